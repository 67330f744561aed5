// transit_connection_scan: earliest-arrival journey planner for a synthetic
// city bus network using the Connection Scan Algorithm.  The feed is written
// as a stops.csv plus one stop_times CSV per route in feed/routes/, loaded
// back by iterating the directory with std::filesystem, compiled into a sorted
// binary connection table with a per-stop departure index, used to answer a
// batch of journey queries (written to journeys.txt), and finally the index is
// used with seekg to print departure boards for selected stops.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

struct Stop { int id; std::string name; double x, y; };
struct Connection { int32_t dep_stop, arr_stop, dep_time, arr_time, trip; };

static constexpr int kStops = 500;
static constexpr int kRoutes = 90;
static constexpr int kQueries = 7000;
static constexpr int kBoards = 40;

static std::string hhmmss(int t) {
    char b[16];
    std::snprintf(b, sizeof b, "%02d:%02d:%02d", t / 3600, (t / 60) % 60, t % 60);
    return b;
}

static int parse_hhmmss(const std::string& s) {
    return std::stoi(s.substr(0, 2)) * 3600 + std::stoi(s.substr(3, 2)) * 60 + std::stoi(s.substr(6, 2));
}

static std::vector<Stop> generate_feed(const fs::path& feed, std::mt19937& rng) {
    fs::create_directories(feed / "routes");
    std::uniform_real_distribution<double> U(0.0, 20.0);
    std::vector<Stop> stops;
    std::ofstream so(feed / "stops.csv");
    so << "stop_id,stop_name,x_km,y_km\n";
    for (int i = 0; i < kStops; ++i) {
        Stop s{i, "Stop " + std::to_string(i), U(rng), U(rng)};
        so << s.id << "," << s.name << "," << std::fixed << std::setprecision(3) << s.x << "," << s.y << "\n";
        stops.push_back(s);
    }
    std::uniform_int_distribution<int> pick(0, kStops - 1), len(12, 30), headway(6, 15);
    int trip_id = 0;
    for (int r = 0; r < kRoutes; ++r) {
        // build a route as a greedy walk between nearby stops
        std::vector<int> path{pick(rng)};
        int n = len(rng);
        while ((int)path.size() < n) {
            const Stop& cur = stops[path.back()];
            int best = -1; double bd = 1e9;
            for (int k = 0; k < 40; ++k) {
                int c = pick(rng);
                if (std::find(path.begin(), path.end(), c) != path.end()) continue;
                double d = std::hypot(stops[c].x - cur.x, stops[c].y - cur.y);
                if (d < bd) { bd = d; best = c; }
            }
            if (best >= 0) path.push_back(best);
        }
        std::ostringstream fname;
        fname << "route_" << std::setw(3) << std::setfill('0') << r << ".csv";
        std::ofstream ro(feed / "routes" / fname.str());
        ro << "trip_id,stop_sequence,stop_id,arrival,departure\n";
        int hw = headway(rng) * 60;
        for (int start = 5 * 3600 + (r * 97) % hw; start < 24 * 3600; start += hw) {
            for (int dir = 0; dir < 2; ++dir) {
                int t = start;
                for (int k = 0; k < n; ++k) {
                    int sidx = dir == 0 ? path[k] : path[n - 1 - k];
                    ro << trip_id << "," << k << "," << sidx << "," << hhmmss(t) << "," << hhmmss(t + 30) << "\n";
                    if (k + 1 < n) {
                        int nxt = dir == 0 ? path[k + 1] : path[n - 2 - k];
                        double d = std::hypot(stops[nxt].x - stops[sidx].x, stops[nxt].y - stops[sidx].y);
                        t += 30 + (int)(d / 22.0 * 3600.0) + 20;
                    }
                }
                ++trip_id;
            }
        }
    }
    return stops;
}

static std::vector<Connection> load_connections(const fs::path& feed) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(feed / "routes"))
        if (e.path().extension() == ".csv") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<Connection> conns;
    for (const auto& f : files) {
        std::ifstream in(f);
        std::string line;
        std::getline(in, line);  // header
        int prev_trip = -1, prev_stop = -1, prev_dep = 0;
        while (std::getline(in, line)) {
            std::istringstream ls(line);
            std::string tok[5];
            for (int i = 0; i < 5; ++i) std::getline(ls, tok[i], ',');
            int trip = std::stoi(tok[0]), stop = std::stoi(tok[2]);
            int arr = parse_hhmmss(tok[3]), dep = parse_hhmmss(tok[4]);
            if (trip == prev_trip) conns.push_back({prev_stop, stop, prev_dep, arr, trip});
            prev_trip = trip; prev_stop = stop; prev_dep = dep;
        }
    }
    std::sort(conns.begin(), conns.end(), [](const Connection& a, const Connection& b) {
        return a.dep_time != b.dep_time ? a.dep_time < b.dep_time : a.trip < b.trip;
    });
    return conns;
}

// Binary timetable: header, connections sorted by time, then per-stop index of
// (offset,count) into a departures section grouped by stop.
static void write_timetable(const fs::path& p, const std::vector<Connection>& conns) {
    std::vector<std::vector<int32_t>> by_stop(kStops);
    for (size_t i = 0; i < conns.size(); ++i) by_stop[conns[i].dep_stop].push_back((int32_t)i);
    std::ofstream out(p, std::ios::binary);
    uint64_t n = conns.size();
    out.write("CSATT001", 8);
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(conns.data()), sizeof(Connection) * n);
    uint64_t off = 0;
    for (int s = 0; s < kStops; ++s) {
        uint64_t cnt = by_stop[s].size();
        out.write(reinterpret_cast<const char*>(&off), sizeof off);
        out.write(reinterpret_cast<const char*>(&cnt), sizeof cnt);
        off += cnt;
    }
    for (int s = 0; s < kStops; ++s)
        for (int32_t ci : by_stop[s]) out.write(reinterpret_cast<const char*>(&conns[ci]), sizeof(Connection));
}

struct Journey { int arrival; std::vector<Connection> legs; };

static Journey csa_query(const std::vector<Connection>& conns, int src, int dst, int t0,
                         std::vector<int>& earliest, std::vector<int>& in_conn, std::vector<int>& trip_first) {
    std::fill(earliest.begin(), earliest.end(), INT32_MAX);
    std::fill(in_conn.begin(), in_conn.end(), -1);
    std::fill(trip_first.begin(), trip_first.end(), -1);
    earliest[src] = t0;
    auto it = std::lower_bound(conns.begin(), conns.end(), t0,
                               [](const Connection& c, int t) { return c.dep_time < t; });
    for (size_t i = it - conns.begin(); i < conns.size(); ++i) {
        const Connection& c = conns[i];
        if (c.dep_time >= earliest[dst]) break;
        bool reachable = trip_first[c.trip] != -1 || (earliest[c.dep_stop] != INT32_MAX && earliest[c.dep_stop] + 120 <= c.dep_time) ||
                         (c.dep_stop == src && earliest[src] <= c.dep_time);
        if (!reachable) continue;
        if (trip_first[c.trip] == -1) trip_first[c.trip] = (int)i;
        if (c.arr_time < earliest[c.arr_stop]) {
            earliest[c.arr_stop] = c.arr_time;
            in_conn[c.arr_stop] = (int)i;
        }
    }
    Journey j{earliest[dst], {}};
    if (j.arrival == INT32_MAX) return j;
    int s = dst;
    while (s != src && in_conn[s] >= 0) {
        const Connection& last = conns[in_conn[s]];
        const Connection& first = conns[trip_first[last.trip]];
        j.legs.push_back({first.dep_stop, last.arr_stop, first.dep_time, last.arr_time, last.trip});
        s = first.dep_stop;
        if (j.legs.size() > 50) break;
    }
    std::reverse(j.legs.begin(), j.legs.end());
    return j;
}

static void print_boards(const fs::path& tt, const fs::path& out_dir, std::mt19937& rng) {
    fs::create_directories(out_dir);
    std::ifstream in(tt, std::ios::binary);
    char magic[8];
    uint64_t n;
    in.read(magic, 8);
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    const std::streamoff idx_base = 16 + (std::streamoff)(sizeof(Connection) * n);
    const std::streamoff dep_base = idx_base + kStops * 16;
    std::uniform_int_distribution<int> pick(0, kStops - 1);
    for (int b = 0; b < kBoards; ++b) {
        int s = pick(rng);
        uint64_t off, cnt;
        in.seekg(idx_base + (std::streamoff)s * 16);
        in.read(reinterpret_cast<char*>(&off), 8);
        in.read(reinterpret_cast<char*>(&cnt), 8);
        std::vector<Connection> deps(cnt);
        in.seekg(dep_base + (std::streamoff)(off * sizeof(Connection)));
        in.read(reinterpret_cast<char*>(deps.data()), (std::streamsize)(cnt * sizeof(Connection)));
        std::ofstream bo(out_dir / ("board_stop_" + std::to_string(s) + ".txt"));
        bo << "Departures from stop " << s << " (" << cnt << " total)\n";
        for (size_t k = 0; k < deps.size(); k += 4)
            bo << hhmmss(deps[k].dep_time) << "  trip " << std::setw(5) << deps[k].trip << "  to stop "
               << deps[k].arr_stop << "\n";
    }
}

int main(int argc, char** argv) {
    if (argc != 2) { std::cerr << "usage: " << argv[0] << " dir\n"; return 2; }
    fs::path dir(argv[1]);
    std::mt19937 rng(424242);
    generate_feed(dir / "feed", rng);
    std::vector<Connection> conns = load_connections(dir / "feed");
    write_timetable(dir / "timetable.bin", conns);

    int max_trip = 0;
    for (const auto& c : conns) max_trip = std::max(max_trip, c.trip);
    std::vector<int> earliest(kStops), in_conn(kStops), trip_first(max_trip + 1);
    std::uniform_int_distribution<int> pick(0, kStops - 1), when(6 * 3600, 20 * 3600);
    std::ofstream jo(dir / "journeys.txt");
    long reached = 0, total_legs = 0;
    for (int q = 0; q < kQueries; ++q) {
        int s = pick(rng), d = pick(rng), t = when(rng);
        if (s == d) continue;
        Journey j = csa_query(conns, s, d, t, earliest, in_conn, trip_first);
        jo << "query " << q << ": " << s << " -> " << d << " at " << hhmmss(t);
        if (j.arrival == INT32_MAX) { jo << "  unreachable\n"; continue; }
        ++reached; total_legs += (long)j.legs.size();
        jo << "  arrive " << hhmmss(j.arrival) << " (" << j.legs.size() << " legs)\n";
        for (const auto& l : j.legs)
            jo << "    trip " << l.trip << " " << l.dep_stop << "@" << hhmmss(l.dep_time) << " -> " << l.arr_stop
               << "@" << hhmmss(l.arr_time) << "\n";
    }
    jo << "reached " << reached << " of " << kQueries << ", mean legs "
       << (reached ? (double)total_legs / reached : 0.0) << "\n";
    jo.close();
    print_boards(dir / "timetable.bin", dir / "boards", rng);
    return 0;
}
