// skilift_gate_scan_queue_model.cpp
//
// A week at a ski resort: an event-driven simulation of skiers riding 14
// lifts (chairs load every few seconds, FIFO queues at the bottom
// stations, skiers choose their next lift by skill, queue length and the
// piste network) produces the RFID gate-scan log the access-control system
// would record, one text file per day via std::ofstream.  The analysis side
// then behaves like the resort's operations office: it reads the logs back
// with std::ifstream/getline, groups scans per card, estimates queue waiting
// times per lift and 15-minute bin from repeated laps, flags cards used at
// two gates faster than physically possible (pass sharing), writes a binary
// per-lift time series which it reads back for the weekly report, and a CSV
// leaderboard of vertical metres.
//
// usage: skilift_gate_scan_queue_model OUTDIR
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <queue>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kLifts = 14;
constexpr int kDays = 7;
constexpr int kSkiersPerDay = 6500;
constexpr int kBinSec = 900;
constexpr int kDayStart = 8 * 3600 + 30 * 60;
constexpr int kDayEnd = 16 * 3600 + 30 * 60;
constexpr int kBins = (kDayEnd - kDayStart) / kBinSec + 1;

struct Lift {
    const char *name;
    int seats;          // per chair / cabin
    int interval;       // s between chairs
    int ride;           // s bottom to top
    int vertical;       // m
    int bottom_node;    // piste node at the bottom station
    int down_node;      // node reached by the main piste from the top
    int alt_node;       // node reached by the alternative run
    double difficulty;  // 0 easy .. 1 expert terrain from the top
};

// nodes: 0 valley, 1 mid-station, 2 Kamm, 3 Nordwand, 4 glacier, 5 Alm, 6 Hochjoch, 7 summit
const Lift kLiftTable[kLifts] = {
    {"Talstation Gondola", 8, 9, 540, 820, 0, 1, 0, 0.2},  {"Sonnhang 6CLD", 6, 7, 330, 410, 1, 2, 1, 0.3},
    {"Kamm Express", 4, 6, 420, 520, 2, 1, 3, 0.7},         {"Nordwand T-Bar", 2, 5, 300, 260, 3, 2, 3, 0.95},
    {"Gletscher 8MGD", 8, 10, 480, 610, 2, 1, 4, 0.6},       {"Rinne 4CL", 4, 8, 600, 380, 4, 2, 4, 0.9},
    {"Alm 4CLF", 4, 8, 360, 330, 1, 5, 1, 0.25},             {"Kinderland Band", 1, 2, 120, 20, 0, 0, 0, 0.0},
    {"Waldabfahrt 4CLD", 4, 7, 390, 450, 5, 1, 5, 0.45},     {"Hochjoch 6CLD", 6, 8, 400, 500, 5, 6, 5, 0.55},
    {"Panorama 3S", 30, 90, 480, 700, 6, 7, 6, 0.5},         {"Gipfel 2CL", 2, 10, 420, 300, 7, 7, 6, 0.85},
    {"Schattenseite 4CL", 4, 9, 450, 420, 6, 2, 6, 0.65},    {"Talabfahrt Shuttle", 6, 15, 300, 0, 1, 0, 0, 0.0},
};

struct Rng {
    uint64_t s;
    double next() {
        s ^= s << 7; s ^= s >> 9;
        return static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
    }
};

struct Skier {
    uint32_t card;
    double skill;        // 0..1
    int node;
    int leave_time;
};

struct Event {
    int t;
    int kind;            // 0 = skier at lift gate, 1 = chair load at lift, 2 = skier at top
    int who;             // skier index or lift index
    int lift;
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : (kind != o.kind ? kind > o.kind : who > o.who); }
};

struct Scan {
    int day, t, gate, lift;
    uint32_t card;
    bool ok;
};

struct BinStat {
    uint16_t day, lift, bin, pad;
    uint32_t scans, laps;
    float mean_wait, p90_wait;
};

[[noreturn]] void die(const std::string &msg) {
    std::cerr << "skilift_gate_scan: " << msg << "\n";
    std::exit(1);
}

std::string hhmmss(int t) {
    char b[16];
    std::snprintf(b, sizeof b, "%02d:%02d:%02d", t / 3600, (t / 60) % 60, t % 60);
    return b;
}

// pick the next lift from a piste node: skill fit, queue length and a little randomness
int choose_lift(const Skier &s, int node, const std::vector<std::deque<int>> &queues, Rng &rng) {
    double best = -1e9;
    int pick = -1;
    for (int l = 0; l < kLifts; l++) {
        const Lift &L = kLiftTable[l];
        if (L.bottom_node != node) continue;
        double fit = 1.0 - std::fabs(L.difficulty - s.skill);
        double qwait = static_cast<double>(queues[l].size()) / L.seats * L.interval;
        double score = 2.0 * fit - qwait / 60.0 + 0.8 * rng.next();
        if (score > best) { best = score; pick = l; }
    }
    return pick;
}

// event-driven simulation of one day; returns the gate scans in time order
std::vector<Scan> simulate_day(int day, Rng &rng) {
    std::vector<Skier> skiers(kSkiersPerDay);
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> evq;
    std::vector<std::deque<int>> queues(kLifts);
    std::vector<Scan> scans;
    scans.reserve(kSkiersPerDay * 20);
    for (int i = 0; i < kSkiersPerDay; i++) {
        Skier &s = skiers[i];
        // ~1.5 % of cards are shared by two people: reuse a card id of an earlier skier
        s.card = (i > 50 && rng.next() < 0.015) ? skiers[i - 37].card : 100000u + day * 10000u + i;
        s.skill = std::min(1.0, std::max(0.0, 0.5 + 0.25 * (rng.next() + rng.next() - 1.0) * 2.0));
        s.node = 0;
        int arrive = kDayStart + static_cast<int>(9000.0 * rng.next() * rng.next());
        s.leave_time = 13 * 3600 + static_cast<int>(12600.0 * rng.next());
        evq.push({arrive, 0, i, choose_lift(s, 0, queues, rng)});
    }
    for (int l = 0; l < kLifts; l++) evq.push({kDayStart, 1, l, l});
    while (!evq.empty()) {
        Event e = evq.top();
        evq.pop();
        if (e.kind == 0) {
            Skier &s = skiers[e.who];
            if (e.t > s.leave_time || e.t > kDayEnd - 600) continue;   // goes home
            const Lift &L = kLiftTable[e.lift];
            bool ok = rng.next() > 0.004;                              // unreadable card, retry at next gate
            int gate = e.lift * 4 + static_cast<int>(rng.next() * 4);
            scans.push_back({day, e.t, gate, e.lift, s.card, ok});
            if (!ok) { evq.push({e.t + 5, 0, e.who, e.lift}); continue; }
            (void)L;
            queues[e.lift].push_back(e.who);
        } else if (e.kind == 1) {
            const Lift &L = kLiftTable[e.who];
            for (int k = 0; k < L.seats && !queues[e.who].empty(); k++) {
                int sk = queues[e.who].front();
                queues[e.who].pop_front();
                evq.push({e.t + L.ride, 2, sk, e.who});
            }
            if (e.t + L.interval < kDayEnd) evq.push({e.t + L.interval, 1, e.who, e.who});
        } else {
            Skier &s = skiers[e.who];
            const Lift &L = kLiftTable[e.lift];
            int node = L.down_node;
            // descend: steeper/longer pistes take time, skill speeds it up
            double speed = 4.0 + 9.0 * s.skill + 2.0 * rng.next();           // m/s along the piste
            int descent = L.vertical > 0 ? static_cast<int>(L.vertical * 4.5 / speed) + 20 : 30;
            // some skiers take the alternative run
            if (rng.next() < 0.35) node = L.alt_node;
            if (node == 7 && s.skill < 0.6) node = 6;
            if (e.t > s.leave_time - 1800 && node != 0 && node != 1) node = 1;   // heading home
            s.node = node;
            int next = choose_lift(s, node, queues, rng);
            if (next < 0) next = 0;
            evq.push({e.t + descent, 0, e.who, next});
        }
    }
    std::sort(scans.begin(), scans.end(), [](const Scan &a, const Scan &b) {
        return a.t != b.t ? a.t < b.t : (a.gate != b.gate ? a.gate < b.gate : a.card < b.card);
    });
    return scans;
}

void write_scan_log(const std::string &path, int day, const std::vector<Scan> &scans) {
    std::ofstream out(path);
    if (!out) die("cannot create " + path);
    out << "# access-control export day " << day << " resort=Hochtal lifts=" << kLifts << "\n";
    for (const Scan &s : scans)
        out << "2025-02-" << std::setw(2) << std::setfill('0') << (10 + day) << 'T' << hhmmss(s.t) << " G"
            << std::setw(2) << s.gate << " L" << std::setw(2) << s.lift << " C" << std::setw(8) << s.card
            << (s.ok ? " OK" : " NOREAD") << "\n";
    out.flush();
    if (!out) die("write error on " + path);
}

// parse "2025-02-DDTHH:MM:SS Ggg Lll Ccccccccc OK"
std::vector<Scan> parse_scan_log(const std::string &path, int day) {
    std::ifstream in(path);
    if (!in) die("cannot open " + path);
    std::vector<Scan> v;
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        if (line.empty() || line[0] == '#') continue;
        if (line.size() < 40 || line[10] != 'T') die(path + ": malformed line " + std::to_string(lineno));
        Scan s;
        s.day = day;
        s.t = std::stoi(line.substr(11, 2)) * 3600 + std::stoi(line.substr(14, 2)) * 60 + std::stoi(line.substr(17, 2));
        s.gate = std::stoi(line.substr(21, 2));
        s.lift = std::stoi(line.substr(25, 2));
        s.card = static_cast<uint32_t>(std::stoul(line.substr(29, 8)));
        s.ok = line.compare(38, 2, "OK") == 0;
        if (s.lift < 0 || s.lift >= kLifts) die(path + ": bad lift id");
        v.push_back(s);
    }
    if (in.bad()) die("read error on " + path);
    return v;
}

using CardMap = std::unordered_map<uint32_t, std::vector<Scan>>;

CardMap group_by_card(const std::vector<Scan> &scans) {
    CardMap m;
    m.reserve(kSkiersPerDay * 2);
    for (const Scan &s : scans)
        if (s.ok) m[s.card].push_back(s);
    for (auto &kv : m)
        std::stable_sort(kv.second.begin(), kv.second.end(), [](const Scan &a, const Scan &b) { return a.t < b.t; });
    return m;
}

// repeated laps on the same lift: cycle = wait + ride + descent.  The fastest
// cycle of the day approximates the queue-free cycle; the excess is waiting.
std::vector<BinStat> estimate_queue_times(int day, const CardMap &cards) {
    std::vector<std::vector<std::vector<float>>> waits(kLifts, std::vector<std::vector<float>>(kBins));
    std::vector<std::vector<uint32_t>> count(kLifts, std::vector<uint32_t>(kBins, 0));
    std::vector<std::vector<int>> cycles(kLifts);
    std::vector<std::tuple<int, int, int>> laps;   // lift, bin, cycle
    for (const auto &kv : cards) {
        const auto &v = kv.second;
        for (size_t k = 0; k < v.size(); k++) {
            int bin = (v[k].t - kDayStart) / kBinSec;
            if (bin >= 0 && bin < kBins) count[v[k].lift][bin]++;
            if (k + 1 < v.size() && v[k + 1].lift == v[k].lift) {
                int c = v[k + 1].t - v[k].t;
                if (c > 0 && c < 5400) { cycles[v[k].lift].push_back(c); laps.emplace_back(v[k].lift, bin, c); }
            }
        }
    }
    std::vector<int> base(kLifts, 0);
    for (int l = 0; l < kLifts; l++) {
        auto &c = cycles[l];
        if (c.empty()) continue;
        size_t q = c.size() / 50;                  // 2nd percentile as the free-flow cycle
        std::nth_element(c.begin(), c.begin() + q, c.end());
        base[l] = c[q];
    }
    for (const auto &lp : laps) {
        int l = std::get<0>(lp), b = std::get<1>(lp), c = std::get<2>(lp);
        if (b >= 0 && b < kBins) waits[l][b].push_back(static_cast<float>(std::max(0, c - base[l])));
    }
    std::vector<BinStat> out;
    for (int l = 0; l < kLifts; l++)
        for (int b = 0; b < kBins; b++) {
            BinStat s{};
            s.day = static_cast<uint16_t>(day); s.lift = static_cast<uint16_t>(l); s.bin = static_cast<uint16_t>(b);
            s.scans = count[l][b];
            auto &w = waits[l][b];
            s.laps = static_cast<uint32_t>(w.size());
            if (!w.empty()) {
                double sum = 0;
                for (float x : w) sum += x;
                s.mean_wait = static_cast<float>(sum / w.size());
                size_t q = (w.size() * 9) / 10;
                if (q >= w.size()) q = w.size() - 1;
                std::nth_element(w.begin(), w.begin() + q, w.end());
                s.p90_wait = w[q];
            }
            out.push_back(s);
        }
    return out;
}

// same card at gates of lifts whose bottom stations are not reachable in the time between
int detect_card_sharing(const CardMap &cards, std::ofstream &alerts) {
    static const int min_transfer[8] = {0, 240, 420, 600, 720, 360, 540, 780};   // s from valley node
    int flagged = 0;
    std::vector<uint32_t> ids;
    ids.reserve(cards.size());
    for (const auto &kv : cards) ids.push_back(kv.first);
    std::sort(ids.begin(), ids.end());
    for (uint32_t id : ids) {
        const auto &v = cards.at(id);
        int hits = 0;
        for (size_t k = 1; k < v.size(); k++) {
            int na = kLiftTable[v[k - 1].lift].bottom_node, nb = kLiftTable[v[k].lift].bottom_node;
            int need = std::abs(min_transfer[na] - min_transfer[nb]) + 90;
            if (v[k - 1].lift != v[k].lift && v[k].t - v[k - 1].t < need) hits++;
        }
        if (hits >= 2) {
            flagged++;
            alerts << "day " << v.front().day << " card C" << id << " impossible transfers " << hits << " scans "
                   << v.size() << "\n";
        }
    }
    if (!alerts) die("write error on sharing alerts");
    return flagged;
}

void write_lift_series(const std::string &path, const std::vector<BinStat> &all) {
    std::ofstream out(path, std::ios::binary);
    if (!out) die("cannot create " + path);
    const char magic[8] = {'L', 'I', 'F', 'T', 'Q', 'v', '1', 0};
    uint32_t n = static_cast<uint32_t>(all.size());
    out.write(magic, sizeof magic);
    out.write(reinterpret_cast<const char *>(&n), sizeof n);
    out.write(reinterpret_cast<const char *>(all.data()), static_cast<std::streamsize>(all.size() * sizeof(BinStat)));
    if (!out) die("write error on " + path);
}

std::vector<BinStat> read_lift_series(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) die("cannot open " + path);
    char magic[8];
    uint32_t n = 0;
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    if (!in || std::string(magic, 5) != "LIFTQ") die("bad header in " + path);
    std::vector<BinStat> v(n);
    in.read(reinterpret_cast<char *>(v.data()), static_cast<std::streamsize>(n * sizeof(BinStat)));
    if (!in) die("short read on " + path);
    return v;
}

void write_leaderboard(const std::string &path, const std::map<uint32_t, long> &vert) {
    std::vector<std::pair<long, uint32_t>> v;
    v.reserve(vert.size());
    for (const auto &kv : vert) v.emplace_back(kv.second, kv.first);
    size_t top = std::min<size_t>(500, v.size());
    std::partial_sort(v.begin(), v.begin() + top, v.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::ofstream out(path);
    if (!out) die("cannot create " + path);
    out << "rank,card,vertical_m\n";
    for (size_t i = 0; i < top; i++) out << i + 1 << ",C" << v[i].second << "," << v[i].first << "\n";
    if (!out) die("write error on " + path);
}

void write_report(const std::string &path, const std::vector<BinStat> &series, int flagged, size_t total_scans) {
    std::ofstream out(path);
    if (!out) die("cannot create " + path);
    out << "ski-lift queue report: " << kDays << " days, " << total_scans << " gate scans, " << flagged
        << " cards flagged for sharing\n";
    out << std::left << std::setw(22) << "lift" << std::right << std::setw(9) << "scans" << std::setw(12)
        << "mean_wait_s" << std::setw(12) << "worst_p90_s" << std::setw(12) << "worst_bin" << "\n";
    for (int l = 0; l < kLifts; l++) {
        uint64_t scans = 0;
        double wsum = 0, wn = 0, worst = 0;
        int worst_bin = -1, worst_day = -1;
        for (const BinStat &b : series) {
            if (b.lift != l) continue;
            scans += b.scans;
            wsum += static_cast<double>(b.mean_wait) * b.laps;
            wn += b.laps;
            if (b.laps >= 5 && b.p90_wait > worst) { worst = b.p90_wait; worst_bin = b.bin; worst_day = b.day; }
        }
        out << std::left << std::setw(22) << kLiftTable[l].name << std::right << std::setw(9) << scans << std::setw(12)
            << std::fixed << std::setprecision(1) << (wn > 0 ? wsum / wn : 0.0) << std::setw(12) << worst << std::setw(6)
            << "d" << worst_day << " " << (worst_bin >= 0 ? hhmmss(kDayStart + worst_bin * kBinSec) : "-") << "\n";
    }
    if (!out) die("write error on " + path);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    Rng rng{0x1234abcd9876ef01ULL};

    for (int d = 0; d < kDays; d++) {
        std::vector<Scan> scans = simulate_day(d, rng);
        write_scan_log(dir + "/gates_day" + std::to_string(d) + ".log", d, scans);
    }

    std::vector<BinStat> series;
    std::map<uint32_t, long> vertical;
    std::ofstream alerts(dir + "/sharing_alerts.txt");
    if (!alerts) die("cannot create sharing_alerts.txt");
    int flagged = 0;
    size_t total = 0;
    for (int d = 0; d < kDays; d++) {
        std::vector<Scan> scans = parse_scan_log(dir + "/gates_day" + std::to_string(d) + ".log", d);
        total += scans.size();
        CardMap cards = group_by_card(scans);
        for (const auto &kv : cards)
            for (const Scan &s : kv.second) vertical[kv.first] += kLiftTable[s.lift].vertical;
        std::vector<BinStat> st = estimate_queue_times(d, cards);
        series.insert(series.end(), st.begin(), st.end());
        flagged += detect_card_sharing(cards, alerts);
    }
    alerts.close();
    if (!alerts) die("close error on sharing alerts");

    write_lift_series(dir + "/lift_queue_series.bin", series);
    std::vector<BinStat> back = read_lift_series(dir + "/lift_queue_series.bin");
    if (back.size() != series.size()) die("series size mismatch");
    write_leaderboard(dir + "/vertical_leaderboard.csv", vertical);
    write_report(dir + "/queue_report.txt", back, flagged, total);
    std::cout << "ski-lift gates: " << total << " scans over " << kDays << " days, " << vertical.size() << " cards, "
              << flagged << " flagged for sharing\n";
    return 0;
}
