// Railway timetable checker: synthesizes a day's timetable for a small
// network (CSV, one row per train stop), parses it back with ifstream,
// expands each run into fixed-block occupations, detects headway
// conflicts by sorting occupations per block, iteratively resolves them by
// delaying trains, then writes a departure board per station into a
// directory tree and a conflict log, and re-reads the boards for a summary.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static const int N_LINES = 6;
static const int STATIONS_PER_LINE = 14;
static const int TRAINS_PER_LINE = 64;
static const int BLOCKS_PER_SEGMENT = 4;
static const int HEADWAY_S = 90;
static const int MAX_ROUNDS = 60;
static const int N_SCENARIOS = 64;

struct Stop {
    int train;
    int line;
    int seq;
    std::string station;
    int arr, dep;  // seconds after midnight
};

struct Occupation {
    int block;
    int train;
    int t_in, t_out;
};

struct Train {
    int id, line;
    std::vector<Stop> stops;
    int delay = 0;
};

struct Conflict {
    int block, first, second, overlap;
};

static uint64_t rng_state = 0xC0FFEE1234567ull;
static int rnd(int n)
{
    rng_state = rng_state * 2862933555777941757ull + 3037000493ull;
    return static_cast<int>((rng_state >> 33) % static_cast<uint64_t>(n));
}

static std::string station_name(int line, int k)
{
    // lines share a central trunk: the middle four stations are common
    int mid = STATIONS_PER_LINE / 2;
    if (k >= mid - 2 && k < mid + 2) return "Central_" + std::to_string(k - mid + 2);
    std::ostringstream os;
    os << "L" << line << "_S" << std::setw(2) << std::setfill('0') << k;
    return os.str();
}

static std::string hhmmss(int t)
{
    std::ostringstream os;
    os << std::setfill('0') << std::setw(2) << t / 3600 << ':' << std::setw(2) << (t / 60) % 60 << ':'
       << std::setw(2) << t % 60;
    return os.str();
}

static void generate_timetable(const fs::path &csv)
{
    std::ofstream out(csv);
    out << "train,line,seq,station,arrival_s,departure_s\n";
    int id = 0;
    for (int l = 0; l < N_LINES; l++) {
        std::vector<int> run(STATIONS_PER_LINE - 1);
        for (auto &r : run) r = 90 + rnd(150);
        for (int k = 0; k < TRAINS_PER_LINE; k++, id++) {
            int t = 5 * 3600 + k * (18 * 3600 / TRAINS_PER_LINE) + l * 170 + rnd(120);
            bool reverse = k % 2;
            for (int s = 0; s < STATIONS_PER_LINE; s++) {
                int st = reverse ? STATIONS_PER_LINE - 1 - s : s;
                std::string name = station_name(l, st);
                bool trunk = name.compare(0, 8, "Central_") == 0;
                int dwell = trunk ? 45 : 30 + rnd(40);   // trunk runs to a fixed pattern
                out << id << ',' << l << ',' << s << ',' << name << ',' << t << ',' << t + dwell << '\n';
                t += dwell;
                if (s + 1 < STATIONS_PER_LINE) {
                    int nxt = reverse ? st - 1 : st + 1;
                    bool trunk_seg = trunk && station_name(l, nxt).compare(0, 8, "Central_") == 0;
                    t += trunk_seg ? 160 : run[reverse ? st - 1 : st] + rnd(20);
                }
            }
        }
    }
}

static std::vector<Train> parse_timetable(const fs::path &csv)
{
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);  // header
    std::map<int, Train> by_id;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string f[6];
        for (auto &x : f) std::getline(ss, x, ',');
        Stop s{std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2]), f[3], std::stoi(f[4]), std::stoi(f[5])};
        Train &tr = by_id[s.train];
        tr.id = s.train;
        tr.line = s.line;
        tr.stops.push_back(s);
    }
    std::vector<Train> v;
    v.reserve(by_id.size());
    for (auto &kv : by_id) v.push_back(std::move(kv.second));
    return v;
}

// block id from the directed station pair (double track) plus block index
static int block_id(std::map<std::string, int> &seg_ids, const std::string &a, const std::string &b, int k)
{
    std::string key = a + ">" + b;
    auto it = seg_ids.find(key);
    int sid;
    if (it == seg_ids.end()) {
        sid = static_cast<int>(seg_ids.size());
        seg_ids.emplace(key, sid);
    } else {
        sid = it->second;
    }
    return sid * BLOCKS_PER_SEGMENT + k;
}

static std::vector<Occupation> build_occupations(const std::vector<Train> &trains, std::map<std::string, int> &seg)
{
    std::vector<Occupation> occ;
    for (const auto &tr : trains) {
        for (size_t i = 0; i + 1 < tr.stops.size(); i++) {
            const Stop &a = tr.stops[i], &b = tr.stops[i + 1];
            double t0 = a.dep + tr.delay, t1 = b.arr + tr.delay;
            for (int k = 0; k < BLOCKS_PER_SEGMENT; k++) {
                // trains accelerate out and brake in: nonuniform block times
                double u0 = static_cast<double>(k) / BLOCKS_PER_SEGMENT, u1 = static_cast<double>(k + 1) / BLOCKS_PER_SEGMENT;
                double s0 = 0.5 - 0.5 * std::cos(M_PI * u0), s1 = 0.5 - 0.5 * std::cos(M_PI * u1);
                occ.push_back({block_id(seg, a.station, b.station, k), tr.id,
                               static_cast<int>(t0 + (t1 - t0) * s0), static_cast<int>(t0 + (t1 - t0) * s1) + 30});
            }
        }
    }
    return occ;
}

static std::vector<Conflict> find_conflicts(std::vector<Occupation> &occ)
{
    std::sort(occ.begin(), occ.end(), [](const Occupation &x, const Occupation &y) {
        if (x.block != y.block) return x.block < y.block;
        return x.t_in != y.t_in ? x.t_in < y.t_in : x.train < y.train;  // stable priority on ties
    });
    std::vector<Conflict> c;
    for (size_t i = 1; i < occ.size(); i++) {
        const auto &p = occ[i - 1], &q = occ[i];
        if (p.block != q.block || p.train == q.train) continue;
        int gap = q.t_in - p.t_out;
        if (gap < HEADWAY_S) c.push_back({q.block, p.train, q.train, HEADWAY_S - gap});
    }
    return c;
}

static int resolve_delays(std::vector<Train> &trains, std::ofstream &log, std::vector<Conflict> &final_c)
{
    std::map<std::string, int> seg;
    int round = 0;
    for (; round < MAX_ROUNDS; round++) {
        auto occ = build_occupations(trains, seg);
        auto conf = find_conflicts(occ);
        log << "round " << round << " occupations " << occ.size() << " conflicts " << conf.size() << '\n';
        final_c = conf;
        if (conf.empty()) break;
        // delay the later train of each conflict by the worst overlap it sees
        std::vector<int> extra(trains.size(), 0);
        for (const auto &c : conf) extra[c.second] = std::max(extra[c.second], std::min(c.overlap, 240));
        for (size_t t = 0; t < trains.size(); t++) trains[t].delay += extra[t];
        for (size_t i = 0; i < conf.size() && i < 40; i++)
            log << "  block " << conf[i].block << " trains " << conf[i].first << "->" << conf[i].second
                << " short by " << conf[i].overlap << "s\n";
        log.flush();
    }
    return round;
}

// disruption scenario: primary delays on a random subset of trains, then
// knock-on delays from conflict resolution; one CSV row per scenario
static void run_scenarios(const std::vector<Train> &base, std::ofstream &log, const fs::path &csv)
{
    std::ofstream out(csv);
    out << "scenario,disrupted,primary_min,rounds,total_delay_min,max_delay_min,knock_on_trains\n";
    for (int sc = 0; sc < N_SCENARIOS; sc++) {
        std::vector<Train> tr = base;
        int disrupted = 0;
        long primary = 0;
        for (auto &t : tr) {
            if (rnd(100) < 4 + sc % 8) {
                int d = 60 * (2 + rnd(3 + sc % 12));
                t.delay += d;
                primary += d;
                disrupted++;
            }
        }
        std::vector<int> before(tr.size());
        for (size_t i = 0; i < tr.size(); i++) before[i] = tr[i].delay;
        log << "scenario " << sc << " disrupted " << disrupted << '\n';
        std::vector<Conflict> rem;
        int rounds = resolve_delays(tr, log, rem);
        long total = 0;
        int mx = 0, knock = 0;
        for (size_t i = 0; i < tr.size(); i++) {
            total += tr[i].delay;
            mx = std::max(mx, tr[i].delay);
            if (tr[i].delay > before[i]) knock++;
        }
        out << sc << ',' << disrupted << ',' << primary / 60 << ',' << rounds << ',' << total / 60 << ',' << mx / 60
            << ',' << knock << '\n';
        out.flush();
    }
}

static void write_station_boards(const fs::path &dir, const std::vector<Train> &trains)
{
    std::map<std::string, std::vector<std::pair<int, std::string>>> boards;
    for (const auto &tr : trains)
        for (size_t i = 0; i < tr.stops.size(); i++) {
            const auto &s = tr.stops[i];
            std::string dest = tr.stops.back().station;
            std::ostringstream row;
            row << hhmmss(s.dep + tr.delay) << "  train " << std::setw(4) << tr.id << "  to " << std::setw(12)
                << std::left << dest << std::right << "  plan " << hhmmss(s.dep) << "  +" << tr.delay / 60 << "min";
            boards[s.station].emplace_back(s.dep + tr.delay, row.str());
        }
    for (auto &kv : boards) {
        fs::path sub = dir / "boards" / kv.first.substr(0, kv.first.find('_'));
        fs::create_directories(sub);
        std::sort(kv.second.begin(), kv.second.end());
        std::ofstream out(sub / (kv.first + ".txt"));
        out << "DEPARTURES " << kv.first << '\n';
        for (const auto &r : kv.second) out << r.second << std::endl;  // line-flushed, like a live display feed
    }
}

static void summarize_boards(const fs::path &dir, const fs::path &report)
{
    std::ofstream out(report);
    long total = 0, late = 0;
    std::vector<fs::path> files;
    for (const auto &e : fs::recursive_directory_iterator(dir / "boards"))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto &p : files) {
        std::ifstream in(p);
        std::string line;
        std::getline(in, line);
        long n = 0, nl = 0;
        while (std::getline(in, line)) {
            n++;
            auto pos = line.rfind('+');
            if (pos != std::string::npos && std::stoi(line.substr(pos + 1)) >= 3) nl++;
        }
        out << std::setw(14) << p.stem().string() << " departures " << std::setw(5) << n << " late>=3min "
            << std::setw(5) << nl << " (" << std::fixed << std::setprecision(1) << (n ? 100.0 * nl / n : 0.0)
            << "%)\n";
        total += n;
        late += nl;
    }
    out << "TOTAL " << total << " late " << late << '\n';
    std::cout << "stations=" << files.size() << " departures=" << total << " late=" << late << '\n';
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 1;
    }
    fs::path dir(argv[1]);
    fs::create_directories(dir);
    generate_timetable(dir / "timetable.csv");
    auto trains = parse_timetable(dir / "timetable.csv");
    std::ofstream log(dir / "conflicts.log");
    std::vector<Conflict> last;
    int rounds = resolve_delays(trains, log, last);
    log << "converged after " << rounds << " rounds, remaining " << last.size() << '\n';
    run_scenarios(trains, log, dir / "disruption_scenarios.csv");
    log.close();
    write_station_boards(dir, trains);
    summarize_boards(dir, dir / "punctuality.txt");
    std::cout << "rounds=" << rounds << '\n';
    return 0;
}
