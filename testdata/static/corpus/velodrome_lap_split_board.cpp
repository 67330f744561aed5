// velodrome_lap_split_board.cpp
//
// Track-cycling timing system for a season of velodrome meetings.  Riders
// (power, CdA, mass) race scratch and points races on a 250 m board track;
// transponders are read by four timing loops (finish line and the three
// quarter-lap lines), each with its own decoder that logs passings to a CSV
// file with missed reads, duplicate reads and a small clock offset.
//
// Processing (std::ifstream + getline): rider registry, four decoder logs
// merged per race in std::map / std::vector, de-duplicated, clock-corrected,
// gap-filled by interpolation; lap and quarter-lap splits, flying-lap bests
// and finishing orders are derived.  Results go to a text board per meeting,
// cleaned passings to a binary archive (ofstream::write), which is re-read
// (ifstream::read) to build season rider profiles and a leaderboard.
//
// usage: velodrome_lap_split_board OUTDIR

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
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kRiders = 96;
constexpr int kMeetings = 10;
constexpr int kRacesPerMeeting = 20;
constexpr int kLoops = 4;
constexpr double kTrack = 250.0;
constexpr double kRho = 1.18;

struct Rider {
    int id;
    std::string name, club;
    double power_w, cda, mass;
};

struct Passing {
    int race, rider, loop;
    int64_t t_us;
};

#pragma pack(push, 1)
struct ArchiveRec {
    int32_t race, rider;
    int16_t lap, quarter;
    int64_t t_us;
    float split_s;
};
#pragma pack(pop)

struct RiderSeason {
    int races = 0, wins = 0, points = 0;
    double best_flying = 1e9, sum_lap = 0.0;
    long laps = 0;
};

std::string g_out;

[[noreturn]] void fail(const std::string &what) {
    std::cerr << "velodrome_lap_split_board: " << what << "\n";
    std::exit(1);
}

class Rng {
    uint64_t s_;
public:
    explicit Rng(uint64_t s) : s_(s) {}
    double uniform() {
        s_ ^= s_ >> 12; s_ ^= s_ << 25; s_ ^= s_ >> 27;
        return static_cast<double>((s_ * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    }
    double normal() {
        double u = uniform(), v = uniform();
        if (u < 1e-300) u = 1e-300;
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }
};

std::string path(const std::string &name) { return g_out + "/" + name; }

void write_registry(Rng &rng) {
    static const char *clubs[] = {"Harbour Wheelers", "Northside RC", "Velo Ardennes", "Track Union",
                                  "Eastgate CC", "Dune Riders"};
    static const char *syll[] = {"ka", "lo", "mi", "ren", "sa", "to", "vik", "an", "bel", "dor", "el", "fin"};
    std::ofstream f(path("riders.txt"));
    if (!f) fail("cannot create riders.txt");
    f << "# id name club power_w cda_m2 mass_kg\n";
    for (int i = 0; i < kRiders; i++) {
        std::string name;
        int n = 2 + static_cast<int>(rng.uniform() * 2);
        for (int k = 0; k < n; k++) name += syll[static_cast<int>(rng.uniform() * 12)];
        name[0] = static_cast<char>(name[0] - 'a' + 'A');
        std::string club = clubs[static_cast<int>(rng.uniform() * 6)];
        std::replace(club.begin(), club.end(), ' ', '_');
        f << i << ' ' << name << ' ' << club << ' ' << std::fixed << std::setprecision(1)
          << 300.0 + 140.0 * rng.uniform() << ' ' << std::setprecision(4) << 0.21 + 0.05 * rng.uniform() << ' '
          << std::setprecision(1) << 64.0 + 18.0 * rng.uniform() << '\n';
    }
    if (!f) fail("write riders.txt");
}

std::vector<Rider> load_registry() {
    std::ifstream f(path("riders.txt"));
    if (!f) fail("cannot open riders.txt");
    std::vector<Rider> v;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream is(line);
        Rider r;
        if (!(is >> r.id >> r.name >> r.club >> r.power_w >> r.cda >> r.mass)) fail("bad rider line: " + line);
        v.push_back(r);
    }
    if (f.bad()) fail("read riders.txt");
    return v;
}

// speed on the boards for a given power and drafting factor (Newton on the power balance)
double speed_for_power(double p, double cda, double mass, double draft, double v) {
    for (int it = 0; it < 30; it++) {
        double f = 0.5 * kRho * cda * (1.0 - draft) * v * v * v + 0.0025 * mass * 9.81 * v - p;
        double df = 1.5 * kRho * cda * (1.0 - draft) * v * v + 0.0025 * mass * 9.81;
        double dv = f / df;
        v -= dv;
        if (std::fabs(dv) < 1e-7) break;
    }
    return v;
}

// simulate one race; passings go to the four decoder streams
void simulate_race(int race, const std::vector<Rider> &riders, Rng &rng, std::vector<std::ofstream> &dec,
                   const int64_t clock_off[kLoops], int64_t t_start) {
    int nfield = 14 + static_cast<int>(rng.uniform() * 8);
    int laps = 30 + static_cast<int>(rng.uniform() * 30);
    std::vector<int> field;
    while (static_cast<int>(field.size()) < nfield) {
        int r = static_cast<int>(rng.uniform() * kRiders);
        if (std::find(field.begin(), field.end(), r) == field.end()) field.push_back(r);
    }
    std::vector<double> pos(nfield, 0.0), fatigue(nfield, 0.0), vel(nfield, 14.0), noise(nfield, 0.0);
    for (int i = 0; i < nfield; i++) pos[i] = -2.0 * i;            // rolling start in line
    std::vector<int> next_mark(nfield, 1);
    const double dt = 0.25;
    double t = 0.0;
    double finish = laps * kTrack;
    int finished = 0;
    std::vector<char> done(nfield, 0);
    std::vector<int> order(nfield);
    for (int i = 0; i < nfield; i++) order[i] = i;
    long tick = 0;
    while (finished < nfield && t < 3600.0) {
        // keep riders ordered by track position (insertion sort, order changes slowly)
        for (int k = 1; k < nfield; k++) {
            int x = order[k], j = k - 1;
            while (j >= 0 && pos[order[j]] < pos[x]) { order[j + 1] = order[j]; j--; }
            order[j + 1] = x;
        }
        if (tick++ % 4 == 0)
            for (int i = 0; i < nfield; i++) noise[i] = 0.03 * rng.normal();
        for (int k = 0; k < nfield; k++) {
            int i = order[k];
            if (done[i]) continue;
            const Rider &r = riders[field[i]];
            double gap = k > 0 ? pos[order[k - 1]] - pos[i] : 99.0;
            double draft = gap < 3.0 ? 0.30 * (1.0 - gap / 3.0) + 0.05 : 0.0;
            double remaining = finish - pos[i];
            double effort = remaining < 2.0 * kTrack ? 1.25 : 0.85 + 0.05 * std::sin(0.01 * t + i);
            double p = r.power_w * effort * (1.0 - 0.25 * fatigue[i]) * (1.0 + noise[i]);
            double v = speed_for_power(p, r.cda, r.mass, draft, vel[i]);
            vel[i] = v;
            fatigue[i] += dt * (effort > 1.0 ? 0.004 : -0.0005);
            if (fatigue[i] < 0) fatigue[i] = 0;
            double newpos = pos[i] + v * dt;
            while (next_mark[i] * (kTrack / kLoops) <= newpos && next_mark[i] <= laps * kLoops) {
                double mark = next_mark[i] * (kTrack / kLoops);
                double tc = t + dt * (mark - pos[i]) / (newpos - pos[i]);
                int loop = next_mark[i] % kLoops;
                double u = rng.uniform();
                if (u > 0.02) {                                    // 2 % missed reads
                    int64_t ts = t_start + static_cast<int64_t>(tc * 1e6) + clock_off[loop];
                    dec[loop] << race << ',' << field[i] << ',' << loop << ',' << ts << ','
                              << static_cast<int>(60 + 30 * rng.uniform()) << '\n';
                    if (u > 0.97)                                  // duplicate read 1-30 ms later
                        dec[loop] << race << ',' << field[i] << ',' << loop << ','
                                  << ts + 1000 + static_cast<int64_t>(29000 * rng.uniform()) << ','
                                  << static_cast<int>(40 + 20 * rng.uniform()) << '\n';
                }
                next_mark[i]++;
            }
            pos[i] = newpos;
            if (pos[i] >= finish) {
                done[i] = 1;
                finished++;
            }
        }
        t += dt;
    }
}

void generate_meetings(const std::vector<Rider> &riders, Rng &rng) {
    std::vector<std::ofstream> dec;
    for (int l = 0; l < kLoops; l++) {
        dec.emplace_back(path("decoder_" + std::to_string(l) + ".csv"));
        if (!dec.back()) fail("cannot create decoder file");
        dec.back() << "race,transponder,loop,t_us,rssi\n";
    }
    const int64_t clock_off[kLoops] = {0, 1830, -2410, 960};      // decoder clock offsets, us
    int race = 0;
    for (int m = 0; m < kMeetings; m++)
        for (int r = 0; r < kRacesPerMeeting; r++, race++)
            simulate_race(race, riders, rng, dec, clock_off, static_cast<int64_t>(race) * 7200000000LL);
    for (auto &d : dec) {
        d.flush();
        if (!d) fail("write decoder file");
    }
}

// parse all decoder logs into per-race passing lists
std::map<int, std::vector<Passing>> load_passings(long &nlines) {
    std::map<int, std::vector<Passing>> byrace;
    nlines = 0;
    for (int l = 0; l < kLoops; l++) {
        std::ifstream f(path("decoder_" + std::to_string(l) + ".csv"));
        if (!f) fail("cannot open decoder file");
        std::string line;
        std::getline(f, line);                                      // header
        while (std::getline(f, line)) {
            Passing p;
            const char *s = line.c_str();
            char *e;
            p.race = static_cast<int>(std::strtol(s, &e, 10));
            if (*e != ',') fail("bad passing: " + line);
            p.rider = static_cast<int>(std::strtol(e + 1, &e, 10));
            if (*e != ',') fail("bad passing: " + line);
            p.loop = static_cast<int>(std::strtol(e + 1, &e, 10));
            if (*e != ',') fail("bad passing: " + line);
            p.t_us = std::strtoll(e + 1, &e, 10);
            byrace[p.race].push_back(p);
            nlines++;
        }
        if (f.bad()) fail("read decoder file");
    }
    return byrace;
}

// estimate each decoder's clock offset relative to loop 0 from median quarter-split asymmetry
void estimate_offsets(const std::map<int, std::vector<Passing>> &byrace, double off[kLoops]) {
    std::vector<double> d[kLoops];
    for (const auto &kv : byrace) {
        std::map<std::pair<int, int>, std::vector<int64_t>> per;
        for (const auto &p : kv.second) per[{p.rider, p.loop}].push_back(p.t_us);
        for (auto &q : per) std::sort(q.second.begin(), q.second.end());
        for (const auto &q : per) {
            if (q.first.second != 0) continue;
            int rider = q.first.first;
            const auto &t0 = q.second;
            for (int l = 1; l < kLoops; l++) {
                auto it = per.find({rider, l});
                if (it == per.end()) continue;
                // pair each finish-line passing with the next passing at loop l
                for (size_t k = 0; k + 1 < t0.size(); k++) {
                    auto nx = std::upper_bound(it->second.begin(), it->second.end(), t0[k]);
                    if (nx == it->second.end() || *nx > t0[k + 1]) continue;
                    double frac = static_cast<double>(*nx - t0[k]) / static_cast<double>(t0[k + 1] - t0[k]);
                    d[l].push_back((frac - l / static_cast<double>(kLoops)) * (t0[k + 1] - t0[k]));
                }
            }
        }
    }
    off[0] = 0.0;
    for (int l = 1; l < kLoops; l++) {
        if (d[l].empty()) { off[l] = 0.0; continue; }
        std::nth_element(d[l].begin(), d[l].begin() + d[l].size() / 2, d[l].end());
        off[l] = d[l][d[l].size() / 2];
    }
}

struct RaceResult {
    int race;
    std::vector<std::pair<int, double>> order;        // rider, finish time s
    std::vector<ArchiveRec> recs;
    int filled = 0, dupes = 0;
};

// clean one race: correct clocks, drop duplicates, interpolate missing marks, splits
RaceResult clean_race(int race, std::vector<Passing> &ps, const double off[kLoops],
                      std::unordered_map<int, RiderSeason> &season) {
    RaceResult res;
    res.race = race;
    for (auto &p : ps) p.t_us -= static_cast<int64_t>(off[p.loop]);
    std::sort(ps.begin(), ps.end(), [](const Passing &a, const Passing &b) {
        return a.rider != b.rider ? a.rider < b.rider : a.t_us < b.t_us;
    });
    int64_t t0 = INT64_MAX;
    for (const auto &p : ps) t0 = std::min(t0, p.t_us);
    size_t i = 0;
    while (i < ps.size()) {
        size_t j = i;
        while (j < ps.size() && ps[j].rider == ps[i].rider) j++;
        std::vector<std::pair<int, int64_t>> marks;    // mark index, time
        int mark = 0;
        int64_t last = INT64_MIN;
        int last_loop = -1;
        for (size_t k = i; k < j; k++) {
            if (ps[k].loop == last_loop && ps[k].t_us - last < 100000) { res.dupes++; continue; }
            // advance the mark counter to this loop
            do { mark++; } while (mark % kLoops != ps[k].loop);
            marks.push_back({mark, ps[k].t_us});
            last = ps[k].t_us;
            last_loop = ps[k].loop;
        }
        // fill gaps by linear interpolation between neighbouring marks
        std::vector<int64_t> tm;
        for (size_t k = 0; k < marks.size(); k++) {
            if (k > 0)
                for (int m = marks[k - 1].first + 1; m < marks[k].first; m++) {
                    double f = static_cast<double>(m - marks[k - 1].first) / (marks[k].first - marks[k - 1].first);
                    tm.push_back(marks[k - 1].second +
                                 static_cast<int64_t>(f * static_cast<double>(marks[k].second - marks[k - 1].second)));
                    res.filled++;
                }
            tm.push_back(marks[k].second);
        }
        int rider = ps[i].rider;
        RiderSeason &rs = season[rider];
        rs.races++;
        int first_mark = marks.empty() ? 1 : marks.front().first;
        for (size_t k = 0; k < tm.size(); k++) {
            int m = first_mark + static_cast<int>(k);
            ArchiveRec a{};
            a.race = race; a.rider = rider;
            a.lap = static_cast<int16_t>(m / kLoops);
            a.quarter = static_cast<int16_t>(m % kLoops);
            a.t_us = tm[k] - t0;
            a.split_s = k > 0 ? static_cast<float>((tm[k] - tm[k - 1]) * 1e-6) : 0.0f;
            res.recs.push_back(a);
            if (k >= static_cast<size_t>(kLoops) && a.quarter == 0) {
                double lap = (tm[k] - tm[k - kLoops]) * 1e-6;
                rs.sum_lap += lap;
                rs.laps++;
                rs.best_flying = std::min(rs.best_flying, lap);
            }
        }
        if (!tm.empty()) res.order.push_back({rider, (tm.back() - t0) * 1e-6});
        i = j;
    }
    std::sort(res.order.begin(), res.order.end(),
              [](const std::pair<int, double> &a, const std::pair<int, double> &b) { return a.second < b.second; });
    static const int pts[] = {10, 6, 4, 2, 1};
    for (size_t k = 0; k < res.order.size() && k < 5; k++) season[res.order[k].first].points += pts[k];
    if (!res.order.empty()) season[res.order.front().first].wins++;
    return res;
}

void write_boards_and_archive(std::map<int, std::vector<Passing>> &byrace, const double off[kLoops],
                              const std::vector<Rider> &riders, std::unordered_map<int, RiderSeason> &season,
                              long &nrec, int &filled, int &dupes) {
    std::ofstream arch(path("passings_clean.bin"), std::ios::binary);
    if (!arch) fail("cannot create archive");
    const char magic[8] = {'V', 'E', 'L', 'O', 'A', 'R', 'C', '1'};
    arch.write(magic, sizeof magic);
    nrec = 0; filled = 0; dupes = 0;
    std::ofstream board;
    int cur_meeting = -1;
    for (auto &kv : byrace) {
        int meeting = kv.first / kRacesPerMeeting;
        if (meeting != cur_meeting) {
            if (board.is_open()) {
                board.close();
                if (!board) fail("write board");
            }
            std::ostringstream nm;
            nm << "board_meeting_" << std::setw(2) << std::setfill('0') << meeting << ".txt";
            board.open(path(nm.str()));
            if (!board) fail("cannot create board");
            board << "MEETING " << meeting + 1 << "  (clock offsets us:";
            for (int l = 0; l < kLoops; l++) board << ' ' << std::fixed << std::setprecision(0) << off[l];
            board << ")\n";
            cur_meeting = meeting;
        }
        RaceResult res = clean_race(kv.first, kv.second, off, season);
        filled += res.filled;
        dupes += res.dupes;
        board << "\nRace " << kv.first << "  riders " << res.order.size() << "\n";
        for (size_t k = 0; k < res.order.size(); k++)
            board << std::setw(3) << k + 1 << ". " << std::left << std::setw(14) << riders[res.order[k].first].name
                  << std::right << std::fixed << std::setprecision(3) << std::setw(10) << res.order[k].second
                  << (k ? "  +" : "   ") << std::setprecision(3) << res.order[k].second - res.order[0].second << "\n";
        arch.write(reinterpret_cast<const char *>(res.recs.data()),
                   static_cast<std::streamsize>(res.recs.size() * sizeof(ArchiveRec)));
        nrec += static_cast<long>(res.recs.size());
        if (!arch) fail("write archive");
    }
    board.close();
    arch.close();
    if (!board || !arch) fail("close outputs");
}

// re-read the archive: quarter-split speed profile per rider (banking effect) and consistency
void archive_profiles(const std::vector<Rider> &riders, std::unordered_map<int, RiderSeason> &season) {
    std::ifstream f(path("passings_clean.bin"), std::ios::binary);
    if (!f) fail("cannot open archive");
    char magic[8];
    if (!f.read(magic, 8) || std::string(magic, 8) != "VELOARC1") fail("bad archive magic");
    std::vector<std::array<double, kLoops>> qsum(kRiders), qss(kRiders);
    std::vector<std::array<long, kLoops>> qn(kRiders);
    for (int r = 0; r < kRiders; r++) { qsum[r].fill(0); qss[r].fill(0); qn[r].fill(0); }
    std::vector<ArchiveRec> buf(4096);
    while (f) {
        f.read(reinterpret_cast<char *>(buf.data()), static_cast<std::streamsize>(buf.size() * sizeof(ArchiveRec)));
        size_t got = static_cast<size_t>(f.gcount()) / sizeof(ArchiveRec);
        for (size_t k = 0; k < got; k++) {
            const ArchiveRec &a = buf[k];
            if (a.split_s <= 0.0f || a.split_s > 10.0f) continue;
            double v = kTrack / kLoops / a.split_s * 3.6;
            qsum[a.rider][a.quarter] += v;
            qss[a.rider][a.quarter] += v * v;
            qn[a.rider][a.quarter]++;
        }
    }
    if (f.bad()) fail("read archive");
    std::vector<int> ids;
    for (auto &kv : season) ids.push_back(kv.first);
    std::sort(ids.begin(), ids.end(), [&](int a, int b) {
        return season[a].points != season[b].points ? season[a].points > season[b].points : a < b;
    });
    std::ofstream lb(path("season_leaderboard.txt"));
    if (!lb) fail("cannot create leaderboard");
    lb << "# rank rider club races wins points best_flying_lap_s mean_lap_s  quarter speeds km/h (sd)\n";
    int rank = 0;
    for (int id : ids) {
        const RiderSeason &s = season[id];
        lb << std::setw(4) << ++rank << ' ' << std::left << std::setw(14) << riders[id].name << std::setw(18)
           << riders[id].club << std::right << std::setw(4) << s.races << std::setw(4) << s.wins << std::setw(6)
           << s.points << std::fixed << std::setprecision(3) << std::setw(9) << s.best_flying << std::setw(9)
           << (s.laps ? s.sum_lap / s.laps : 0.0);
        for (int q = 0; q < kLoops; q++) {
            double m = qn[id][q] ? qsum[id][q] / qn[id][q] : 0.0;
            double sd = qn[id][q] ? std::sqrt(std::max(qss[id][q] / qn[id][q] - m * m, 0.0)) : 0.0;
            lb << "  " << std::setprecision(2) << m << " (" << sd << ")";
        }
        lb << '\n';
    }
    if (!lb) fail("write leaderboard");
    if (!ids.empty())
        std::cout << "  season winner " << riders[ids[0]].name << " (" << season[ids[0]].points << " pts, best lap "
                  << std::fixed << std::setprecision(3) << season[ids[0]].best_flying << " s)\n";
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 1;
    }
    g_out = argv[1];
    Rng rng(0x7e10d20e5eedull);
    write_registry(rng);
    std::vector<Rider> riders = load_registry();
    generate_meetings(riders, rng);
    long nlines;
    auto byrace = load_passings(nlines);
    double off[kLoops];
    estimate_offsets(byrace, off);
    std::unordered_map<int, RiderSeason> season;
    long nrec;
    int filled, dupes;
    write_boards_and_archive(byrace, off, riders, season, nrec, filled, dupes);
    std::cout << "velodrome: " << kMeetings << " meetings, " << byrace.size() << " races, " << nlines
              << " decoder lines\n";
    std::cout << "  estimated clock offsets (us):";
    for (int l = 0; l < kLoops; l++) std::cout << ' ' << std::fixed << std::setprecision(0) << off[l];
    std::cout << "\n  " << nrec << " archived marks, " << filled << " interpolated, " << dupes << " duplicates dropped\n";
    archive_profiles(riders, season);
    return 0;
}
