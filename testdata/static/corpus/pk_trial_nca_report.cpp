// Population pharmacokinetics of a simulated three-period oral dose-escalation
// trial.  Subject demographics and dense plasma-concentration samples are
// generated from a one-compartment absorption model with log-normal
// between-subject variability and proportional assay error, written as CSV
// with std::ofstream, then re-read with std::ifstream/getline into STL maps.
// Non-compartmental analysis (Cmax, Tmax, AUC by linear-up/log-down, terminal
// half-life by best-adjusted-R^2 regression), a per-subject Gauss-Newton fit of
// ka/CL/V, and covariate regressions of clearance on weight and creatinine
// clearance follow.  Results go to a CSV listing, a binary parameter table that
// is read back and verified, and a dose-group summary report.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSubjects = 6000;
constexpr int kPeriods = 3;
constexpr std::array<double, 13> kTimes = {0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 36};
constexpr std::array<double, kPeriods> kDoseMg = {50.0, 100.0, 200.0};
constexpr double kLloq = 0.05;  // mg/L

struct Demog {
    int id;
    double weight_kg, age_y, crcl_ml_min;
    int sex;  // 0 female, 1 male
    double ka, cl, v;  // true parameters (hidden from the analysis)
};

struct Profile {
    double dose = 0.0;
    std::vector<double> t, c;
};

struct NcaResult {
    int id = 0, period = 0, fit_iters = 0, reserved = 0;  // no padding: the struct is written as is
    double dose = 0, cmax = 0, tmax = 0, auc_last = 0, auc_inf = 0, lambda_z = 0, t_half = 0, r2adj = 0;
    double ka = 0, cl = 0, v = 0;
};

[[noreturn]] void fail(const std::string &msg)
{
    std::cerr << "pk_trial: " << msg << "\n";
    std::exit(1);
}

double conc_1cmt(double dose, double ka, double cl, double v, double t)
{
    double ke = cl / v;
    if (std::fabs(ka - ke) < 1e-9) ka += 1e-6;
    return dose * ka / (v * (ka - ke)) * (std::exp(-ke * t) - std::exp(-ka * t));
}

std::vector<Demog> generate_trial(const std::string &dir)
{
    std::mt19937_64 gen(424242);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<Demog> subj;
    subj.reserve(kSubjects);
    std::ofstream dm(dir + "/demographics.csv");
    std::ofstream pk(dir + "/concentrations.csv");
    if (!dm || !pk) fail("cannot create input CSV files");
    dm << "id,sex,age_y,weight_kg,crcl_ml_min\n";
    pk << "id,period,dose_mg,time_h,conc_mg_l,blq,sample_id\n";
    long sample = 0;
    for (int i = 0; i < kSubjects; i++) {
        Demog d;
        d.id = 1001 + i;
        d.sex = (gen() & 1) ? 1 : 0;
        d.age_y = std::clamp(45.0 + 14.0 * z(gen), 18.0, 85.0);
        d.weight_kg = std::clamp((d.sex ? 82.0 : 68.0) + 13.0 * z(gen), 40.0, 150.0);
        double scr = 0.9 + 0.15 * z(gen);
        d.crcl_ml_min = (140.0 - d.age_y) * d.weight_kg / (72.0 * std::max(scr, 0.5)) * (d.sex ? 1.0 : 0.85);
        d.cl = 5.0 * std::pow(d.weight_kg / 70.0, 0.75) * std::pow(d.crcl_ml_min / 100.0, 0.4) * std::exp(0.25 * z(gen));
        d.v = 60.0 * (d.weight_kg / 70.0) * std::exp(0.2 * z(gen));
        d.ka = 1.2 * std::exp(0.35 * z(gen));
        subj.push_back(d);
        dm << d.id << ',' << d.sex << ',' << std::fixed << std::setprecision(1) << d.age_y << ','
           << d.weight_kg << ',' << d.crcl_ml_min << '\n';
        for (int p = 0; p < kPeriods; p++) {
            // occasion-to-occasion variability on CL
            double clp = d.cl * std::exp(0.08 * z(gen));
            for (double t : kTimes) {
                double c = conc_1cmt(kDoseMg[p], d.ka, clp, d.v, t) * (1.0 + 0.12 * z(gen)) + 0.005 * z(gen);
                bool blq = c < kLloq;
                pk << d.id << ',' << (p + 1) << ',' << std::setprecision(1) << kDoseMg[p] << ','
                   << std::setprecision(2) << t << ',' << std::setprecision(5) << (blq ? 0.0 : c) << ','
                   << (blq ? 1 : 0) << ",S" << std::setw(8) << std::setfill('0') << ++sample << std::setfill(' ') << '\n';
            }
        }
    }
    dm.close();
    pk.close();
    if (!dm || !pk) fail("error writing input CSV files");
    return subj;
}

std::map<int, std::array<double, 4>> read_demographics(const std::string &path)
{
    std::ifstream in(path);
    if (!in) fail("cannot open " + path);
    std::map<int, std::array<double, 4>> out;
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string f;
        std::array<std::string, 5> tok;
        for (auto &tk : tok) std::getline(ss, tk, ',');
        out[std::stoi(tok[0])] = {std::stod(tok[1]), std::stod(tok[2]), std::stod(tok[3]), std::stod(tok[4])};
    }
    if (in.bad()) fail("read error on " + path);
    return out;
}

std::map<std::pair<int, int>, Profile> read_concentrations(const std::string &path)
{
    std::ifstream in(path);
    if (!in) fail("cannot open " + path);
    std::map<std::pair<int, int>, Profile> prof;
    std::string line;
    std::getline(in, line);
    long n = 0;
    while (std::getline(in, line)) {
        const char *p = line.c_str();
        char *end;
        int id = (int)std::strtol(p, &end, 10);
        int period = (int)std::strtol(end + 1, &end, 10);
        double dose = std::strtod(end + 1, &end);
        double t = std::strtod(end + 1, &end);
        double c = std::strtod(end + 1, &end);
        int blq = (int)std::strtol(end + 1, &end, 10);
        if (*end != ',') fail("malformed line: " + line);
        Profile &pr = prof[{id, period}];
        pr.dose = dose;
        pr.t.push_back(t);
        pr.c.push_back(blq ? 0.0 : c);
        n++;
    }
    if (in.bad()) fail("read error on " + path);
    if (n != (long)kSubjects * kPeriods * (long)kTimes.size()) fail("unexpected sample count");
    return prof;
}

void nca(const Profile &p, NcaResult &r)
{
    size_t n = p.t.size();
    r.cmax = 0.0;
    for (size_t i = 0; i < n; i++)
        if (p.c[i] > r.cmax) { r.cmax = p.c[i]; r.tmax = p.t[i]; }
    // AUC from 0 (c=0 pre-dose) by linear-up / log-down trapezoids
    double auc = 0.0, tp = 0.0, cp = 0.0;
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        double dt = p.t[i] - tp, c = p.c[i];
        if (c <= 0.0) { tp = p.t[i]; cp = c; continue; }
        if (c < cp && cp > 0.0) auc += (cp - c) * dt / std::log(cp / c);
        else auc += 0.5 * (cp + c) * dt;
        tp = p.t[i]; cp = c; last = i;
    }
    r.auc_last = auc;
    // terminal phase: best adjusted R^2 over the last k >= 3 points after Tmax
    r.r2adj = -1.0; r.lambda_z = 0.0;
    for (size_t k = 3; k <= last + 1; k++) {
        size_t s = last + 1 - k;
        if (p.t[s] <= r.tmax) break;
        double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
        bool ok = true;
        for (size_t i = s; i <= last; i++) {
            if (p.c[i] <= 0.0) { ok = false; break; }
            double x = p.t[i], y = std::log(p.c[i]);
            sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y;
        }
        if (!ok) continue;
        double m = (double)k;
        double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
        double r2 = std::pow(m * sxy - sx * sy, 2) / ((m * sxx - sx * sx) * (m * syy - sy * sy));
        double adj = 1.0 - (1.0 - r2) * (m - 1.0) / (m - 2.0);
        if (slope < 0.0 && adj > r.r2adj - 1e-4) { r.r2adj = adj; r.lambda_z = -slope; }
    }
    if (r.lambda_z > 0.0) {
        r.t_half = std::log(2.0) / r.lambda_z;
        r.auc_inf = auc + p.c[last] / r.lambda_z;
    }
}

// Gauss-Newton (Levenberg damped) fit of log ka, log CL, log V to one profile.
void fit_1cmt(const Profile &p, NcaResult &r)
{
    std::array<double, 3> th = {std::log(1.0), std::log(r.auc_inf > 0 ? p.dose / r.auc_inf : 5.0), std::log(60.0)};
    double lam = 1e-2;
    auto sse = [&](const std::array<double, 3> &q) {
        double s = 0.0;
        for (size_t i = 0; i < p.t.size(); i++) {
            if (p.c[i] <= 0.0) continue;
            double f = conc_1cmt(p.dose, std::exp(q[0]), std::exp(q[1]), std::exp(q[2]), p.t[i]);
            double e = std::log(p.c[i]) - std::log(std::max(f, 1e-12));
            s += e * e;
        }
        return s;
    };
    double cur = sse(th);
    int it = 0;
    for (; it < 60; it++) {
        double jtj[3][3] = {{0}}, jtr[3] = {0};
        for (size_t i = 0; i < p.t.size(); i++) {
            if (p.c[i] <= 0.0) continue;
            double f0 = std::log(std::max(conc_1cmt(p.dose, std::exp(th[0]), std::exp(th[1]), std::exp(th[2]), p.t[i]), 1e-12));
            double res = std::log(p.c[i]) - f0, g[3];
            for (int k = 0; k < 3; k++) {
                auto q = th;
                q[k] += 1e-6;
                double f1 = std::log(std::max(conc_1cmt(p.dose, std::exp(q[0]), std::exp(q[1]), std::exp(q[2]), p.t[i]), 1e-12));
                g[k] = (f1 - f0) / 1e-6;
            }
            for (int a = 0; a < 3; a++) {
                jtr[a] += g[a] * res;
                for (int b = 0; b < 3; b++) jtj[a][b] += g[a] * g[b];
            }
        }
        for (int a = 0; a < 3; a++) jtj[a][a] *= (1.0 + lam);
        // solve 3x3 by Cramer's rule
        auto det3 = [](double m[3][3]) {
            return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                   m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        };
        double d = det3(jtj);
        if (std::fabs(d) < 1e-300) break;
        std::array<double, 3> step;
        for (int k = 0; k < 3; k++) {
            double m[3][3];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) m[a][b] = (b == k) ? jtr[a] : jtj[a][b];
            step[k] = det3(m) / d;
        }
        std::array<double, 3> trial = {th[0] + step[0], th[1] + step[1], th[2] + step[2]};
        double s = sse(trial);
        if (s < cur) {
            double rel = (cur - s) / (cur + 1e-30);
            th = trial; cur = s; lam *= 0.3;
            if (rel < 1e-9) break;
        } else {
            lam *= 10.0;
            if (lam > 1e8) break;
        }
    }
    r.ka = std::exp(th[0]); r.cl = std::exp(th[1]); r.v = std::exp(th[2]);
    r.fit_iters = it;
}

std::vector<NcaResult> analyse(const std::map<std::pair<int, int>, Profile> &prof)
{
    std::vector<NcaResult> out;
    out.reserve(prof.size());
    for (const auto &[key, p] : prof) {
        NcaResult r;
        r.id = key.first; r.period = key.second; r.dose = p.dose;
        nca(p, r);
        fit_1cmt(p, r);
        out.push_back(r);
    }
    return out;
}

void write_listing(const std::string &path, const std::vector<NcaResult> &res)
{
    std::ofstream o(path);
    if (!o) fail("cannot create " + path);
    o << "id,period,dose_mg,cmax,tmax,auc_last,auc_inf,lambda_z,t_half,r2adj,ka_fit,cl_fit,v_fit,iters\n";
    o << std::setprecision(6);
    for (const auto &r : res)
        o << r.id << ',' << r.period << ',' << r.dose << ',' << r.cmax << ',' << r.tmax << ',' << r.auc_last << ','
          << r.auc_inf << ',' << r.lambda_z << ',' << r.t_half << ',' << r.r2adj << ',' << r.ka << ',' << r.cl << ','
          << r.v << ',' << r.fit_iters << '\n';
    o.close();
    if (!o) fail("error writing " + path);
}

void write_binary(const std::string &path, const std::vector<NcaResult> &res)
{
    std::ofstream o(path, std::ios::binary);
    if (!o) fail("cannot create " + path);
    const char magic[8] = {'P', 'K', 'N', 'C', 'A', 'v', '1', 0};
    uint64_t n = res.size();
    o.write(magic, sizeof magic);
    o.write(reinterpret_cast<const char *>(&n), sizeof n);
    for (const auto &r : res) o.write(reinterpret_cast<const char *>(&r), sizeof r);
    o.close();
    if (!o) fail("error writing " + path);
}

std::vector<NcaResult> read_binary(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open " + path);
    char magic[8];
    uint64_t n = 0;
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    if (!in || std::string(magic) != "PKNCAv1") fail("bad header in " + path);
    std::vector<NcaResult> v(n);
    in.read(reinterpret_cast<char *>(v.data()), (std::streamsize)(n * sizeof(NcaResult)));
    if (!in) fail("short read on " + path);
    return v;
}

double percentile(std::vector<double> v, double q)
{
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    double pos = q * (double)(v.size() - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

void write_summary(const std::string &path, const std::vector<NcaResult> &res,
                   const std::map<int, std::array<double, 4>> &dem)
{
    std::ofstream o(path);
    if (!o) fail("cannot create " + path);
    o << std::fixed << std::setprecision(3);
    o << "Dose-group NCA summary (median [5th-95th percentile])\n";
    std::map<double, std::vector<const NcaResult *>> groups;
    for (const auto &r : res) groups[r.dose].push_back(&r);
    double dn_auc_ref = 0.0;
    for (const auto &[dose, g] : groups) {
        std::vector<double> cmax, auc, th, cl;
        for (auto *r : g) {
            cmax.push_back(r->cmax);
            if (r->auc_inf > 0) auc.push_back(r->auc_inf);
            if (r->t_half > 0) th.push_back(r->t_half);
            cl.push_back(r->cl);
        }
        double mauc = percentile(auc, 0.5);
        if (dn_auc_ref == 0.0) dn_auc_ref = mauc / dose;
        o << "dose " << dose << " mg  n=" << g.size() << "\n"
          << "  Cmax   " << percentile(cmax, 0.5) << " [" << percentile(cmax, 0.05) << "-" << percentile(cmax, 0.95) << "]\n"
          << "  AUCinf " << mauc << " [" << percentile(auc, 0.05) << "-" << percentile(auc, 0.95) << "]"
          << "  dose-normalised ratio " << (mauc / dose) / dn_auc_ref << "\n"
          << "  t1/2   " << percentile(th, 0.5) << "  CL/F " << percentile(cl, 0.5) << "\n";
    }
    // covariate model: log CL = a + b log(WT/70) + c log(CRCL/100), least squares
    double ata[3][3] = {{0}}, atb[3] = {0};
    for (const auto &r : res) {
        auto it = dem.find(r.id);
        if (it == dem.end() || r.cl <= 0) continue;
        double x[3] = {1.0, std::log(it->second[2] / 70.0), std::log(it->second[3] / 100.0)}, y = std::log(r.cl);
        for (int a = 0; a < 3; a++) {
            atb[a] += x[a] * y;
            for (int b = 0; b < 3; b++) ata[a][b] += x[a] * x[b];
        }
    }
    for (int k = 0; k < 3; k++) {  // Gaussian elimination
        for (int i = k + 1; i < 3; i++) {
            double f = ata[i][k] / ata[k][k];
            for (int j = k; j < 3; j++) ata[i][j] -= f * ata[k][j];
            atb[i] -= f * atb[k];
        }
    }
    double b[3];
    for (int i = 2; i >= 0; i--) {
        double s = atb[i];
        for (int j = i + 1; j < 3; j++) s -= ata[i][j] * b[j];
        b[i] = s / ata[i][i];
    }
    o << "\nCovariate model: CL/F = " << std::exp(b[0]) << " * (WT/70)^" << b[1] << " * (CRCL/100)^" << b[2] << "\n";
    o.close();
    if (!o) fail("error writing " + path);
    std::cout << "pk_trial: CL/F = " << std::fixed << std::setprecision(3) << std::exp(b[0]) << " L/h, WT exponent "
              << b[1] << ", CRCL exponent " << b[2] << "\n";
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    std::string dir = argv[1];
    auto truth = generate_trial(dir);
    auto dem = read_demographics(dir + "/demographics.csv");
    auto prof = read_concentrations(dir + "/concentrations.csv");
    auto res = analyse(prof);
    write_listing(dir + "/nca_listing.csv", res);
    write_binary(dir + "/nca_params.bin", res);
    auto back = read_binary(dir + "/nca_params.bin");
    if (back.size() != res.size()) fail("binary round trip size mismatch");
    for (size_t i = 0; i < res.size(); i++)
        if (back[i].id != res[i].id || back[i].auc_inf != res[i].auc_inf || back[i].cl != res[i].cl)
            fail("binary round trip mismatch");
    write_summary(dir + "/dose_group_summary.txt", back, dem);
    std::cout << "pk_trial: " << truth.size() << " subjects, " << res.size() << " profiles analysed\n";
    return 0;
}
