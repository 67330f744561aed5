// Keelboat regatta series: 64 handicapped yachts sail ten windward-leeward
// races in an oscillating, drifting, puffy breeze.  Each boat follows a polar
// table scaled by its crew skill, tacks on headers and at laylines, loses
// speed in tacks and in the dirty air of boats to windward.  Per race, GPS
// tracks are written boat by boat to a binary file, mark roundings are
// appended to a race-committee log and results (elapsed, time-on-distance and
// time-on-time corrected) go to a text sheet.  The series is then scored by
// reading the sheets back with getline/>> (low-point, one discard, RRS A8
// tie-breaks), and the binary tracks are re-read per boat for VMG and tacking
// statistics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const int NBOAT = 64;
const int NRACE = 10;
const int MAXT = 6000;           // seconds
const double LEG = 2000.0;       // metres, windward leg length
const int NLEGS = 4;
const double KN = 0.514444;
const double DEG = M_PI / 180.0;

struct Boat {
    int sail;
    std::string name;
    double skill;     // polar multiplier
    double phrf;      // s/nm
    double tcf;
};

struct BoatState {
    double x, y, hdg, spd;
    int leg, tack, tacking, finished, ocs, ntacks;
    double finish_t, dist;
};

struct TrackRec { float t, x, y, hdg, spd; };

uint64_t rng_s = 0x6A09E667F3BCC909ull;
double urand() {
    rng_s ^= rng_s << 13; rng_s ^= rng_s >> 7; rng_s ^= rng_s << 17;
    return ((rng_s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

std::vector<Boat> make_fleet() {
    static const char *syl[] = {"Sea", "Wind", "Blue", "Storm", "Gull", "Tern", "Swift", "Rip", "Tide", "Star", "Wave", "Fox"};
    std::vector<Boat> f;
    for (int i = 0; i < NBOAT; i++) {
        Boat b;
        b.sail = 1000 + 37 * i;
        b.name = std::string(syl[i % 12]) + syl[(i * 7 + 3) % 12];
        double design = 0.85 + 0.3 * urand();
        b.skill = design * (0.94 + 0.08 * urand());
        b.phrf = 180.0 - 160.0 * (design - 0.85) / 0.3;      // faster designs rate lower
        b.tcf = 650.0 / (550.0 + b.phrf);
        f.push_back(b);
    }
    return f;
}

// Wind direction (deg, from) and speed (kn) at time t and position.
void wind_at(int race, double t, double x, double y, double &dir, double &tws) {
    double phase = race * 1.7;
    dir = 8.0 * std::sin(2 * M_PI * t / (540.0 + 40 * race) + phase) + 0.004 * t * (race % 2 ? 1 : -1)
        + 2.0 * std::sin(x / 700.0 + t / 300.0);
    tws = 11.0 + race % 3 + 2.5 * std::sin(x / 400.0 - t / 90.0) * std::cos(y / 500.0 + t / 130.0);
}

double polar(double twa_deg, double tws) {
    static const double ang[] = {0, 30, 40, 52, 60, 75, 90, 110, 120, 135, 150, 165, 180};
    static const double rat[] = {0, 0.45, 0.80, 0.90, 0.93, 0.98, 1.0, 1.0, 0.98, 0.92, 0.85, 0.78, 0.72};
    double a = std::fabs(twa_deg);
    if (a > 180) a = 360 - a;
    int k = 0;
    while (k < 11 && ang[k + 1] < a) k++;
    double r = rat[k] + (rat[k + 1] - rat[k]) * (a - ang[k]) / (ang[k + 1] - ang[k]);
    return r * 6.5 * std::pow(tws / 12.0, 0.45);
}

// Simulates one race; returns per-boat tracks and states.
void sail_race(int race, const std::vector<Boat> &fleet, std::vector<BoatState> &st,
               std::vector<std::vector<TrackRec>> &tracks, std::ofstream &rclog) {
    st.assign(NBOAT, BoatState());
    tracks.assign(NBOAT, std::vector<TrackRec>());
    for (int b = 0; b < NBOAT; b++) {
        BoatState &s = st[b];
        s.x = -300.0 + 600.0 * b / (NBOAT - 1) + 10.0 * urand();
        s.y = -5.0 * urand();
        s.tack = urand() < 0.5 ? 1 : -1;
        s.ocs = urand() < 0.025;
        s.leg = 0; s.tacking = 0; s.finished = 0; s.ntacks = 0; s.dist = 0; s.finish_t = 0;
    }
    const double markx[2] = {0.0, 0.0}, marky[2] = {LEG, 0.0};
    int nfin = 0;
    for (int t = 0; t < MAXT && nfin < NBOAT; t++) {
        for (int b = 0; b < NBOAT; b++) {
            BoatState &s = st[b];
            if (s.finished) continue;
            double wdir, tws;
            wind_at(race, t, s.x, s.y, wdir, tws);
            int up = (s.leg % 2 == 0);
            double mx = markx[s.leg % 2], my = marky[s.leg % 2];
            double brg = std::atan2(mx - s.x, my - s.y) / DEG;          // bearing to mark, 0 = north
            double twa_opt = up ? 41.0 : 163.0;
            double hdg;
            if (up) {
                double rel = std::remainder(brg - wdir, 360.0);      // mark relative to wind
                bool lay_now = s.tack * rel >= twa_opt - 2, lay_other = -s.tack * rel >= twa_opt - 2;
                bool header = (s.tack > 0 ? wdir > 4.0 : wdir < -4.0);
                bool room = -s.tack * rel < twa_opt - 12;            // far enough from the other layline
                if (!s.tacking && !lay_now && (lay_other || (header && room))) { s.tack = -s.tack; s.tacking = 8; s.ntacks++; }
                hdg = (s.tack * rel >= twa_opt) ? brg : wdir + s.tack * twa_opt;
            } else {
                double rel = std::remainder(brg - (wdir + 180.0), 360.0);
                double hot = 180.0 - twa_opt;
                if (!s.tacking && s.tack * rel >= hot - 3) { s.tack = -s.tack; s.tacking = 5; s.ntacks++; }
                hdg = (-s.tack * rel >= hot) ? brg : wdir + 180.0 - s.tack * hot;
            }
            double spd = polar(hdg - wdir, tws) * fleet[b].skill;
            if (s.tacking) { spd *= 0.45; s.tacking--; }
            // dirty air from boats within 60 m upwind in a 20 degree cone
            for (int o = 0; o < NBOAT; o++) {
                if (o == b || st[o].finished) continue;
                double dx = st[o].x - s.x, dy = st[o].y - s.y, d2 = dx * dx + dy * dy;
                if (d2 > 3600.0) continue;
                double ang = std::atan2(dx, dy) / DEG - wdir;
                if (std::fabs(std::remainder(ang, 360.0)) < 20.0) { spd *= 0.93; break; }
            }
            if (s.ocs && t < 40) spd = 0.0;
            s.hdg = hdg; s.spd = spd;
            double v = spd * KN;
            s.x += v * std::sin(hdg * DEG);
            s.y += v * std::cos(hdg * DEG);
            s.dist += v;
            tracks[b].push_back(TrackRec{(float)t, (float)s.x, (float)s.y, (float)hdg, (float)spd});
            double rx = s.x - mx, ry = s.y - my;
            if ((up && s.y > my - 5 && std::fabs(rx) < 120) || (!up && s.y < my + 5 && std::fabs(rx) < 120) || rx * rx + ry * ry < 400) {
                rclog << "race " << race + 1 << " t " << t << " sail " << fleet[b].sail << " rounds mark " << s.leg + 1
                      << " pos " << std::fixed << std::setprecision(1) << s.x << ' ' << s.y << '\n';
                s.leg++;
                s.tack = -s.tack;
                if (s.leg == NLEGS) { s.finished = 1; s.finish_t = t; nfin++; }
            }
        }
    }
    for (int b = 0; b < NBOAT; b++) if (!st[b].finished) st[b].finish_t = -1;   // DNF
}

void write_tracks(const std::string &path, const std::vector<std::vector<TrackRec>> &tracks) {
    std::ofstream out(path, std::ios::binary);
    int32_t hdr[2] = {NBOAT, (int32_t)sizeof(TrackRec)};
    out.write(reinterpret_cast<const char *>(hdr), sizeof hdr);
    std::vector<int64_t> offs(NBOAT);
    std::streampos idxpos = out.tellp();
    out.write(reinterpret_cast<const char *>(offs.data()), NBOAT * sizeof(int64_t));
    for (int b = 0; b < NBOAT; b++) {
        offs[b] = out.tellp();
        int32_t n = (int32_t)tracks[b].size();
        out.write(reinterpret_cast<const char *>(&n), sizeof n);
        out.write(reinterpret_cast<const char *>(tracks[b].data()), n * sizeof(TrackRec));
    }
    out.seekp(idxpos);
    out.write(reinterpret_cast<const char *>(offs.data()), NBOAT * sizeof(int64_t));
    if (!out) { std::cerr << "track write failed " << path << "\n"; std::exit(1); }
}

void write_results(const std::string &path, int race, const std::vector<Boat> &fleet, const std::vector<BoatState> &st) {
    std::ofstream out(path);
    double dist_nm = NLEGS * LEG / 1852.0;
    out << "# race " << race + 1 << " course W/L " << NLEGS << " legs, " << std::fixed << std::setprecision(2) << dist_nm << " nm\n";
    out << "# sail name status elapsed_s tod_s tot_s\n";
    for (int b = 0; b < NBOAT; b++) {
        const BoatState &s = st[b];
        std::string status = s.ocs ? "OCS" : (s.finish_t < 0 ? "DNF" : "FIN");
        double el = s.finish_t < 0 ? 0.0 : s.finish_t;
        out << fleet[b].sail << ' ' << fleet[b].name << ' ' << status << ' ' << std::setprecision(1) << el << ' '
            << el - fleet[b].phrf * dist_nm << ' ' << el * fleet[b].tcf << '\n';
    }
}

struct Entry { int sail; std::string name; std::vector<double> pts; double total, net; };

// Reads the result sheets back and scores the series (low point, TOT).
std::vector<Entry> score_series(const std::string &dir) {
    std::vector<Entry> e(NBOAT);
    std::vector<int> sails;
    for (int r = 0; r < NRACE; r++) {
        std::ifstream in(dir + "/race_" + std::to_string(r + 1) + "_results.txt");
        std::string line;
        struct Row { int sail; std::string name, status; double tot; };
        std::vector<Row> rows;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream is(line);
            Row row; double el, tod;
            if (is >> row.sail >> row.name >> row.status >> el >> tod >> row.tot) rows.push_back(row);
        }
        std::vector<int> order;
        for (size_t i = 0; i < rows.size(); i++) if (rows[i].status == "FIN") order.push_back((int)i);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return rows[a].tot < rows[b].tot; });
        std::vector<double> pts(rows.size(), NBOAT + 1.0);
        for (size_t k = 0; k < order.size(); k++) pts[order[k]] = k + 1.0;
        for (size_t i = 0; i < rows.size(); i++) {
            e[i].sail = rows[i].sail; e[i].name = rows[i].name;
            e[i].pts.push_back(pts[i]);
        }
    }
    for (auto &x : e) {
        x.total = 0; double worst = 0;
        for (double p : x.pts) { x.total += p; worst = std::max(worst, p); }
        x.net = x.total - (NRACE >= 5 ? worst : 0.0);
    }
    std::sort(e.begin(), e.end(), [](const Entry &a, const Entry &b) {
        if (a.net != b.net) return a.net < b.net;
        std::vector<double> pa = a.pts, pb = b.pts;              // A8.1: best scores first
        std::sort(pa.begin(), pa.end()); std::sort(pb.begin(), pb.end());
        if (pa != pb) return pa < pb;
        return a.pts.back() < b.pts.back();                        // A8.2: last race
    });
    return e;
}

void write_standings(const std::string &path, const std::vector<Entry> &e) {
    std::ofstream out(path);
    out << std::left << std::setw(5) << "pos" << std::setw(7) << "sail" << std::setw(12) << "name";
    for (int r = 0; r < NRACE; r++) out << std::setw(5) << ("R" + std::to_string(r + 1));
    out << std::setw(7) << "total" << "net\n";
    for (size_t i = 0; i < e.size(); i++) {
        out << std::setw(5) << i + 1 << std::setw(7) << e[i].sail << std::setw(12) << e[i].name;
        for (double p : e[i].pts) out << std::setw(5) << p;
        out << std::setw(7) << e[i].total << e[i].net << '\n';
    }
}

// Re-reads every boat's track per race: VMG up/down, tacks, distance.
void analyse_tracks(const std::string &dir, const std::vector<Boat> &fleet) {
    std::ofstream out(dir + "/performance.csv");
    out << "race,sail,samples,dist_m,mean_speed_kn,vmg_up_kn,vmg_down_kn,manoeuvres,p90_speed_kn\n";
    std::vector<TrackRec> buf;
    for (int r = 0; r < NRACE; r++) {
        std::ifstream in(dir + "/race_" + std::to_string(r + 1) + "_tracks.bin", std::ios::binary);
        int32_t hdr[2];
        in.read(reinterpret_cast<char *>(hdr), sizeof hdr);
        std::vector<int64_t> offs(hdr[0]);
        in.read(reinterpret_cast<char *>(offs.data()), hdr[0] * sizeof(int64_t));
        for (int b = 0; b < hdr[0]; b++) {
            in.seekg(offs[b]);
            int32_t n = 0;
            in.read(reinterpret_cast<char *>(&n), sizeof n);
            buf.resize(n);
            in.read(reinterpret_cast<char *>(buf.data()), n * sizeof(TrackRec));
            double dist = 0, vu = 0, vd = 0, sum = 0; int nu = 0, nd = 0, man = 0;
            std::vector<float> sp;
            for (int i = 1; i < n; i++) {
                double dx = buf[i].x - buf[i - 1].x, dy = buf[i].y - buf[i - 1].y;
                dist += std::sqrt(dx * dx + dy * dy);
                sum += buf[i].spd; sp.push_back(buf[i].spd);
                double wdir, tws;
                wind_at(r, buf[i].t, buf[i].x, buf[i].y, wdir, tws);
                double vmg = buf[i].spd * std::cos((buf[i].hdg - wdir) * DEG);
                if (vmg > 0) { vu += vmg; nu++; } else { vd -= vmg; nd++; }
                if (std::fabs(std::remainder(buf[i].hdg - buf[i - 1].hdg, 360.0)) > 40.0) man++;
            }
            std::sort(sp.begin(), sp.end());
            out << r + 1 << ',' << fleet[b].sail << ',' << n << ',' << std::fixed << std::setprecision(1) << dist << ','
                << std::setprecision(3) << (n > 1 ? sum / (n - 1) : 0.0) << ',' << (nu ? vu / nu : 0.0) << ','
                << (nd ? vd / nd : 0.0) << ',' << man << ',' << (sp.empty() ? 0.0f : sp[sp.size() * 9 / 10]) << '\n';
        }
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) { std::cerr << "usage: " << argv[0] << " OUTDIR\n"; return 2; }
    std::string dir = argv[1];
    std::vector<Boat> fleet = make_fleet();
    {
        std::ofstream ent(dir + "/entries.txt");
        ent << "# sail name skill phrf tcf\n";
        for (const Boat &b : fleet)
            ent << b.sail << ' ' << b.name << ' ' << std::setprecision(4) << b.skill << ' ' << b.phrf << ' ' << b.tcf << '\n';
    }
    std::ofstream rclog(dir + "/race_committee.log", std::ios::app);
    std::vector<BoatState> st;
    std::vector<std::vector<TrackRec>> tracks;
    for (int r = 0; r < NRACE; r++) {
        sail_race(r, fleet, st, tracks, rclog);
        write_tracks(dir + "/race_" + std::to_string(r + 1) + "_tracks.bin", tracks);
        write_results(dir + "/race_" + std::to_string(r + 1) + "_results.txt", r, fleet, st);
        rclog.flush();
    }
    rclog.close();
    std::vector<Entry> standings = score_series(dir);
    write_standings(dir + "/series_standings.txt", standings);
    analyse_tracks(dir, fleet);
    std::cout << "series winner " << standings[0].sail << " " << standings[0].name << " net " << standings[0].net << "\n";
    return 0;
}
