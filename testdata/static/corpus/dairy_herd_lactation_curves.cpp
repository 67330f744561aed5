// dairy_herd_lactation_curves.cpp
//
// Milk-recording analysis for a dairy herd.  A herd of cows (Holstein and
// Jersey, parities 1-6) is simulated for one recording year: each cow calves
// on some day, and the rotary parlour records two milkings a day with yield,
// fat, protein, somatic cell count and electrical conductivity.  The parlour
// software exports one CSV file per month (std::ofstream).  The analysis
// reads the exports back (std::ifstream + getline), groups records per cow
// in STL maps, fits Wood's lactation curve y = a t^b exp(-c t) per lactation,
// predicts 305-day yields, flags clinical/subclinical mastitis episodes,
// stores per-cow daily milk/fat/protein/SCC series in a binary archive with
// an offset index, re-reads the cows with long records from the archive with
// seekg to rank them on energy-corrected milk, and writes a cow summary CSV
// and a herd report.
//
// Usage: dairy_herd_lactation_curves OUTDIR

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kCows = 640;
constexpr int kDays = 365;
constexpr int kMonthDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

std::string g_dir;

struct Rng {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    double uniform() {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        return static_cast<double>((s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    }
    double normal() {
        double u = uniform(), v = uniform();
        return std::sqrt(-2.0 * std::log(u + 1e-300)) * std::cos(6.283185307179586 * v);
    }
};

[[noreturn]] void fail(const std::string &what) {
    std::cerr << "dairy: " << what << "\n";
    std::exit(2);
}

struct Cow {
    int id;
    std::string breed;
    int parity;
    int calving_day;      // day of year of calving (can be negative: calved last year)
    double a, b, c;       // true Wood parameters
    double scc_base;
    int mastitis_day;     // -1 if none
};

struct Milking {
    int day;
    int session;
    double kg, fat, protein, scc, cond;
};

struct CowResult {
    double a = 0, b = 0, c = 0, y305 = 0, peak_day = 0, peak_kg = 0, persistency = 0;
    double fat_kg = 0, prot_kg = 0;
    int n_days = 0, mastitis_flags = 0;
    std::vector<double> daily;     // daily yield by days in milk (index 0 = DIM 1)
    std::vector<double> daily_fat, daily_prot, daily_scc;   // kg fat, kg protein, max SCC per day
};

std::vector<Cow> generate_herd(Rng &rng) {
    std::vector<Cow> herd;
    herd.reserve(kCows);
    for (int i = 0; i < kCows; ++i) {
        Cow c;
        c.id = 1000 + i;
        c.breed = rng.uniform() < 0.8 ? "HO" : "JE";
        c.parity = 1 + static_cast<int>(rng.uniform() * 5.5);
        c.calving_day = static_cast<int>(rng.uniform() * 420.0) - 120;
        double scale = (c.breed == "HO" ? 1.0 : 0.72) * (c.parity == 1 ? 0.8 : 1.0);
        c.a = 17.0 * scale * std::exp(0.08 * rng.normal());
        c.b = (c.parity == 1 ? 0.17 : 0.23) + 0.03 * rng.normal();
        c.c = (c.parity == 1 ? 0.0025 : 0.0040) + 0.0005 * rng.normal();
        c.scc_base = 60.0 * std::exp(0.5 * rng.normal());
        c.mastitis_day = rng.uniform() < 0.18 ? static_cast<int>(rng.uniform() * kDays) : -1;
        herd.push_back(c);
    }
    return herd;
}

// One CSV per month, as exported by the parlour software, with a few gaps (cluster kicked off).
void write_parlour_exports(const std::vector<Cow> &herd, Rng &rng) {
    int day0 = 0;
    for (int m = 0; m < 12; ++m) {
        char name[64];
        std::snprintf(name, sizeof name, "/parlour_2023-%02d.csv", m + 1);
        std::ofstream out(g_dir + name);
        if (!out) fail("cannot create " + g_dir + name);
        out << "date,session,cow,breed,parity,dim,kg,fat_pct,protein_pct,scc_k,cond_mS\n";
        out << std::fixed;
        for (int d = day0; d < day0 + kMonthDays[m]; ++d) {
            for (int session = 0; session < 2; ++session) {
                for (const Cow &c : herd) {
                    int dim = d - c.calving_day + 1;
                    if (dim < 1 || dim > 330) continue;                 // dry or not calved yet
                    if (rng.uniform() < 0.004) continue;                // missed milking
                    double y = c.a * std::pow(dim, c.b) * std::exp(-c.c * dim);
                    double scc = c.scc_base * std::exp(0.3 * rng.normal());
                    double cond = 4.6 + 0.15 * rng.normal();
                    if (c.mastitis_day >= 0 && d >= c.mastitis_day && d < c.mastitis_day + 9) {
                        double sev = 1.0 - (d - c.mastitis_day) / 9.0;
                        scc += 1500.0 * sev;
                        cond += 1.2 * sev;
                        y *= 1.0 - 0.35 * sev;
                    }
                    double kg = std::max(0.0, 0.5 * y * (session == 0 ? 1.08 : 0.92) + 0.6 * rng.normal());
                    double fat = 3.9 + 0.4 * (dim / 305.0) - 0.01 * y + 0.15 * rng.normal();
                    if (c.breed == "JE") fat += 1.1;
                    double prot = 3.2 + 0.3 * (dim / 305.0) + 0.08 * rng.normal();
                    out << "2023-" << std::setw(3) << std::setfill('0') << d + 1 << std::setfill(' ') << ','
                        << (session == 0 ? "AM" : "PM") << ',' << c.id << ',' << c.breed << ',' << c.parity << ','
                        << dim << ',' << std::setprecision(2) << kg << ',' << fat << ',' << prot << ','
                        << std::setprecision(0) << scc << ',' << std::setprecision(2) << cond << '\n';
                }
            }
        }
        day0 += kMonthDays[m];
        out.close();
        if (!out) fail("write error on " + g_dir + name);
    }
}

// Read all monthly exports back, grouping milkings per cow.
std::map<int, std::vector<Milking>> load_parlour_exports(long &nrec) {
    std::map<int, std::vector<Milking>> per_cow;
    nrec = 0;
    for (int m = 0; m < 12; ++m) {
        char name[64];
        std::snprintf(name, sizeof name, "/parlour_2023-%02d.csv", m + 1);
        std::ifstream in(g_dir + name);
        if (!in) fail("cannot open " + g_dir + name);
        std::string line, field;
        if (!std::getline(in, line)) fail("empty export " + g_dir + name);
        while (std::getline(in, line)) {
            std::istringstream ss(line);
            std::array<std::string, 11> f;
            for (auto &x : f)
                if (!std::getline(ss, x, ',')) fail("short row in " + g_dir + name + ": " + line);
            Milking mk;
            mk.day = std::stoi(f[0].substr(5)) - 1;
            mk.session = f[1] == "AM" ? 0 : 1;
            int cow = std::stoi(f[2]);
            mk.kg = std::stod(f[6]);
            mk.fat = std::stod(f[7]);
            mk.protein = std::stod(f[8]);
            mk.scc = std::stod(f[9]);
            mk.cond = std::stod(f[10]);
            per_cow[cow].push_back(mk);
            ++nrec;
        }
        if (in.bad()) fail("read error on " + g_dir + name);
    }
    return per_cow;
}

// Wood curve fit: ln y = ln a + b ln t - c t, ordinary least squares on daily totals (3x3 normal equations).
void fit_wood(const std::vector<double> &daily, CowResult &r) {
    double A[3][3] = {{0}}, rhs[3] = {0};
    for (size_t i = 0; i < daily.size(); ++i) {
        if (daily[i] <= 0.5) continue;
        double t = static_cast<double>(i + 1);
        double x[3] = {1.0, std::log(t), -t}, y = std::log(daily[i]);
        for (int p = 0; p < 3; ++p) {
            rhs[p] += x[p] * y;
            for (int q = 0; q < 3; ++q) A[p][q] += x[p] * x[q];
        }
    }
    // Gaussian elimination with partial pivoting
    for (int k = 0; k < 3; ++k) {
        int piv = k;
        for (int i = k + 1; i < 3; ++i) if (std::fabs(A[i][k]) > std::fabs(A[piv][k])) piv = i;
        std::swap(A[k], A[piv]);
        std::swap(rhs[k], rhs[piv]);
        if (std::fabs(A[k][k]) < 1e-12) return;
        for (int i = k + 1; i < 3; ++i) {
            double f = A[i][k] / A[k][k];
            for (int j = k; j < 3; ++j) A[i][j] -= f * A[k][j];
            rhs[i] -= f * rhs[k];
        }
    }
    double sol[3];
    for (int k = 2; k >= 0; --k) {
        double s = rhs[k];
        for (int j = k + 1; j < 3; ++j) s -= A[k][j] * sol[j];
        sol[k] = s / A[k][k];
    }
    r.a = std::exp(sol[0]); r.b = sol[1]; r.c = sol[2];
    r.y305 = 0.0;
    for (int t = 1; t <= 305; ++t) r.y305 += r.a * std::pow(t, r.b) * std::exp(-r.c * t);
    r.peak_day = r.c > 0 ? r.b / r.c : 0.0;
    r.peak_kg = r.a * std::pow(std::max(1.0, r.peak_day), r.b) * std::exp(-r.c * r.peak_day);
    r.persistency = -(r.b + 1.0) * std::log(r.c);
}

// Build daily records per cow (days in milk), fit curves, flag mastitis from SCC + conductivity.
std::map<int, CowResult> analyse_cows(std::map<int, std::vector<Milking>> &per_cow,
                                      const std::vector<Cow> &herd) {
    std::map<int, CowResult> res;
    std::map<int, int> calving;
    for (const Cow &c : herd) calving[c.id] = c.calving_day;
    for (auto &kv : per_cow) {
        auto &recs = kv.second;
        std::sort(recs.begin(), recs.end(),
                  [](const Milking &x, const Milking &y) { return x.day != y.day ? x.day < y.day : x.session < y.session; });
        CowResult r;
        int cd = calving[kv.first];
        r.daily.assign(330, 0.0);
        r.daily_fat.assign(330, 0.0);
        r.daily_prot.assign(330, 0.0);
        r.daily_scc.assign(330, 0.0);
        std::vector<double> cond_hist;
        int flagged_until = -1;
        for (size_t i = 0; i < recs.size(); ++i) {
            const Milking &mk = recs[i];
            int dim = mk.day - cd + 1;
            if (dim < 1 || dim > 330) continue;
            r.daily[dim - 1] += mk.kg;
            r.daily_fat[dim - 1] += mk.kg * mk.fat / 100.0;
            r.daily_prot[dim - 1] += mk.kg * mk.protein / 100.0;
            r.daily_scc[dim - 1] = std::max(r.daily_scc[dim - 1], mk.scc);
            r.fat_kg += mk.kg * mk.fat / 100.0;
            r.prot_kg += mk.kg * mk.protein / 100.0;
            // conductivity relative to the cow's own rolling 14-milking median
            double med = 4.6;
            if (cond_hist.size() >= 6) {
                std::vector<double> w(cond_hist.end() - std::min<size_t>(14, cond_hist.size()), cond_hist.end());
                std::nth_element(w.begin(), w.begin() + w.size() / 2, w.end());
                med = w[w.size() / 2];
            }
            cond_hist.push_back(mk.cond);
            if (mk.day > flagged_until && mk.scc > 400.0 && mk.cond > med * 1.12) {
                ++r.mastitis_flags;
                flagged_until = mk.day + 14;
            }
        }
        r.n_days = static_cast<int>(std::count_if(r.daily.begin(), r.daily.end(), [](double v) { return v > 0; }));
        if (r.n_days >= 30) fit_wood(r.daily, r);
        res[kv.first] = std::move(r);
    }
    return res;
}

// Binary archive: header, per-cow (id, n, float milk[n], fat[n], protein[n], scc[n]) records,
// and a trailing offset index.
void write_archive(const std::map<int, CowResult> &res) {
    std::ofstream out(g_dir + "/herd_daily.bin", std::ios::binary);
    if (!out) fail("cannot create herd_daily.bin");
    const char magic[8] = {'D', 'H', 'A', 'R', 'C', 'H', '0', '1'};
    uint32_t ncow = static_cast<uint32_t>(res.size());
    uint64_t index_off = 0;
    out.write(magic, 8);
    out.write(reinterpret_cast<const char *>(&ncow), sizeof ncow);
    out.write(reinterpret_cast<const char *>(&index_off), sizeof index_off);   // patched below
    std::vector<std::pair<int32_t, uint64_t>> index;
    for (const auto &kv : res) {
        index.emplace_back(kv.first, static_cast<uint64_t>(out.tellp()));
        int32_t id = kv.first, n = static_cast<int32_t>(kv.second.daily.size());
        out.write(reinterpret_cast<const char *>(&id), sizeof id);
        out.write(reinterpret_cast<const char *>(&n), sizeof n);
        for (const std::vector<double> *series : {&kv.second.daily, &kv.second.daily_fat, &kv.second.daily_prot,
                                                  &kv.second.daily_scc}) {
            std::vector<float> f(series->begin(), series->end());
            out.write(reinterpret_cast<const char *>(f.data()), static_cast<std::streamsize>(f.size() * sizeof(float)));
        }
    }
    index_off = static_cast<uint64_t>(out.tellp());
    for (const auto &e : index) {
        out.write(reinterpret_cast<const char *>(&e.first), sizeof e.first);
        out.write(reinterpret_cast<const char *>(&e.second), sizeof e.second);
    }
    out.seekp(12);
    out.write(reinterpret_cast<const char *>(&index_off), sizeof index_off);
    out.close();
    if (!out) fail("write error on herd_daily.bin");
}

// Re-read the selected cows' daily series from the archive via the index and seekg, and compute
// actual 305-day energy-corrected milk (ECM = 0.327 milk + 12.95 fat + 7.65 protein).
std::vector<std::pair<int, double>> reread_ecm(const std::vector<int> &ids) {
    std::ifstream in(g_dir + "/herd_daily.bin", std::ios::binary);
    if (!in) fail("cannot open herd_daily.bin");
    char magic[8];
    uint32_t ncow = 0;
    uint64_t index_off = 0;
    in.read(magic, 8);
    in.read(reinterpret_cast<char *>(&ncow), sizeof ncow);
    in.read(reinterpret_cast<char *>(&index_off), sizeof index_off);
    if (!in || std::string(magic, 8) != "DHARCH01") fail("bad archive header");
    in.seekg(static_cast<std::streamoff>(index_off));
    std::map<int, uint64_t> offsets;
    for (uint32_t i = 0; i < ncow; ++i) {
        int32_t id;
        uint64_t off;
        in.read(reinterpret_cast<char *>(&id), sizeof id);
        in.read(reinterpret_cast<char *>(&off), sizeof off);
        if (!in) fail("truncated archive index");
        offsets[id] = off;
    }
    std::vector<std::pair<int, double>> out;
    for (int id : ids) {
        auto it = offsets.find(id);
        if (it == offsets.end()) fail("cow missing from archive");
        in.seekg(static_cast<std::streamoff>(it->second));
        int32_t rid, n;
        in.read(reinterpret_cast<char *>(&rid), sizeof rid);
        in.read(reinterpret_cast<char *>(&n), sizeof n);
        std::vector<float> f(static_cast<size_t>(4 * n));
        in.read(reinterpret_cast<char *>(f.data()), static_cast<std::streamsize>(4 * n * sizeof(float)));
        if (!in || rid != id) fail("bad archive record");
        // actual (not fitted) 305-day ECM, carrying the last value over missing days
        double total = 0.0, last = 0.0;
        for (int t = 0; t < 305 && t < n; ++t) {
            double ecm = 0.327 * f[t] + 12.95 * f[n + t] + 7.65 * f[2 * n + t];
            double v = f[t] > 0 ? ecm : last;
            total += v;
            last = v;
        }
        out.emplace_back(id, total);
    }
    return out;
}

void write_reports(const std::vector<Cow> &herd, const std::map<int, CowResult> &res,
                   const std::vector<std::pair<int, double>> &top, long nrec) {
    std::ofstream csv(g_dir + "/cow_summary.csv");
    if (!csv) fail("cannot create cow_summary.csv");
    csv << "cow,breed,parity,days,a,b,c,peak_dim,peak_kg,y305_kg,persistency,fat_kg,protein_kg,mastitis\n";
    csv << std::fixed << std::setprecision(4);
    std::map<std::string, std::vector<double>> by_group;
    int flagged = 0;
    for (const Cow &c : herd) {
        auto it = res.find(c.id);
        if (it == res.end()) continue;
        const CowResult &r = it->second;
        csv << c.id << ',' << c.breed << ',' << c.parity << ',' << r.n_days << ',' << r.a << ',' << r.b << ','
            << r.c << ',' << r.peak_day << ',' << r.peak_kg << ',' << r.y305 << ',' << r.persistency << ','
            << r.fat_kg << ',' << r.prot_kg << ',' << r.mastitis_flags << '\n';
        if (r.n_days >= 200) by_group[c.breed + (c.parity == 1 ? "-heifer" : "-cow")].push_back(r.y305);
        flagged += r.mastitis_flags > 0;
    }
    csv.close();
    if (!csv) fail("write error on cow_summary.csv");

    std::ofstream rep(g_dir + "/herd_report.txt");
    if (!rep) fail("cannot create herd_report.txt");
    rep << "Herd milk recording 2023: " << nrec << " milkings, " << res.size() << " cows in milk, " << flagged
        << " with mastitis alerts\n\n305-day yield by group (cows with >= 200 recorded days)\n";
    rep << std::fixed << std::setprecision(1);
    for (auto &g : by_group) {
        auto v = g.second;
        std::sort(v.begin(), v.end());
        double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
        rep << "  " << std::setw(10) << g.first << "  n=" << std::setw(4) << v.size() << "  mean " << mean
            << "  median " << v[v.size() / 2] << "  p90 " << v[v.size() * 9 / 10] << " kg\n";
    }
    rep << "\nTop producers (archive re-read, actual 305-day ECM kg)\n";
    for (size_t i = 0; i < top.size() && i < 40; ++i) rep << "  cow " << top[i].first << "  " << top[i].second << "\n";
    rep.close();
    if (!rep) fail("write error on herd_report.txt");
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 1;
    }
    g_dir = argv[1];
    Rng rng;
    std::vector<Cow> herd = generate_herd(rng);
    write_parlour_exports(herd, rng);
    long nrec = 0;
    auto per_cow = load_parlour_exports(nrec);
    auto res = analyse_cows(per_cow, herd);
    write_archive(res);
    std::vector<std::pair<double, int>> rank;
    for (const auto &kv : res)
        if (kv.second.n_days >= 250) rank.emplace_back(kv.second.y305, kv.first);
    std::sort(rank.rbegin(), rank.rend());
    std::vector<int> ids;
    for (const auto &r : rank) ids.push_back(r.second);
    auto top = reread_ecm(ids);
    std::sort(top.begin(), top.end(),
              [](const std::pair<int, double> &a, const std::pair<int, double> &b) { return a.second > b.second; });
    write_reports(herd, res, top, nrec);
    std::cout << "dairy: " << nrec << " milkings from " << res.size() << " cows, top fitted 305-d yield "
              << std::fixed << std::setprecision(0) << (rank.empty() ? 0.0 : rank.front().first) << " kg\n";
    return 0;
}
