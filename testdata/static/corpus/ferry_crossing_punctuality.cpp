// ferry_crossing_punctuality.cpp
//
// Punctuality analysis for an archipelago ferry network.  The program
// writes the network's timetable (text) and three years of hourly wind and
// wave observations at every port (binary), reads both back, and replays
// every scheduled sailing: vessels rotate between the ends of their route,
// crossings slow down in head seas, sailings are cancelled above a
// vessel-specific wave limit, and late arrivals propagate to the vessel's
// next departure through the turnaround time.  The resulting sailing log
// (CSV) is re-read to compute per-route on-time performance and delay
// percentiles, a delay-propagation matrix between routes sharing a port, and
// a turnaround-slack sensitivity study.  Outputs: report text, route
// statistics in a binary file and the slack study as CSV.
//
// usage: ferry_crossing_punctuality OUTDIR

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <queue>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kPorts = 16;
constexpr int kRoutes = 24;
constexpr int kDays = 1095;
constexpr int kHours = kDays * 24;

std::string g_dir;

[[noreturn]] void fail(const std::string &what)
{
    std::cerr << "ferry_crossing_punctuality: " << what << "\n";
    std::exit(1);
}

std::string path_of(const std::string &name) { return g_dir + "/" + name; }

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double unif() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
    double normal()
    {
        double u1 = unif() + 1e-300, u2 = unif();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
};

struct Route {
    int id, port_a, port_b;
    double distance_nm, service_speed_kn, wave_limit_m, heading_deg;
    int turnaround_min;
    std::string vessel;
};

struct Departure {
    int route, dir; // dir 0: a->b, 1: b->a
    int minute;     // minute of day
};

struct WeatherObs {
    float wind_ms, wind_dir_deg, hs_m;
};

struct Sailing {
    int day, route, dir, sched_min;
    int actual_dep, actual_arr; // minutes from day start, -1 if cancelled
    int delay_dep, delay_arr;
    bool cancelled;
};

// ---------------------------------------------------------------------------
// 1. Network and timetable (text)

std::vector<Route> build_network(Rng &rng)
{
    static const char *names[] = {"Skarvholm", "Eider",  "Lindqvist", "Tern",      "Grebe",   "Solvik",
                                  "Hafsund",   "Merlin", "Auk II",    "Kittiwake", "Fulmar",  "Orca",
                                  "Brent",     "Gannet", "Puffin",    "Shearwater", "Eidsvaag", "Dunlin",
                                  "Rorqual",   "Skua",   "Storm",     "Tystie",     "Loon",     "Razorbill"};
    std::vector<Route> routes;
    for (int r = 0; r < kRoutes; r++) {
        Route rt;
        rt.id = r;
        rt.port_a = r % kPorts;
        rt.port_b = (r * 5 + 3) % kPorts;
        if (rt.port_b == rt.port_a)
            rt.port_b = (rt.port_a + 1) % kPorts;
        rt.distance_nm = 4.0 + 22.0 * rng.unif();
        rt.service_speed_kn = 11.0 + 6.0 * rng.unif();
        rt.wave_limit_m = 2.2 + 2.5 * rng.unif();
        rt.heading_deg = 360.0 * rng.unif();
        rt.turnaround_min = 10 + static_cast<int>(15 * rng.unif());
        rt.vessel = names[r];
        routes.push_back(rt);
    }
    return routes;
}

void write_timetable(const std::vector<Route> &routes)
{
    std::ofstream out(path_of("timetable.txt"));
    if (!out)
        fail("cannot create timetable.txt");
    out << "# route vessel port_a port_b distance_nm speed_kn wave_limit_m heading_deg turnaround_min\n";
    for (const auto &r : routes)
        out << "ROUTE " << r.id << ' ' << r.vessel.size() << ' ' << r.vessel << ' ' << r.port_a << ' ' << r.port_b
            << ' ' << std::fixed << std::setprecision(2) << r.distance_nm << ' ' << r.service_speed_kn << ' '
            << r.wave_limit_m << ' ' << r.heading_deg << ' ' << r.turnaround_min << '\n';
    // a single vessel shuttles: departures from A at t, from B after crossing + turnaround
    for (const auto &r : routes) {
        int crossing = static_cast<int>(std::ceil(60.0 * r.distance_nm / r.service_speed_kn));
        int cycle = 2 * (crossing + r.turnaround_min + 12);
        for (int t = 6 * 60; t + cycle <= 23 * 60; t += cycle) {
            out << "DEP " << r.id << " 0 " << t << '\n';
            out << "DEP " << r.id << " 1 " << t + crossing + r.turnaround_min + 12 << '\n';
        }
    }
    if (!out.flush())
        fail("write error on timetable.txt");
}

void read_timetable(std::vector<Route> &routes, std::vector<Departure> &deps)
{
    std::ifstream in(path_of("timetable.txt"));
    if (!in)
        fail("cannot open timetable.txt");
    routes.clear();
    deps.clear();
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream ss(line);
        std::string kind;
        ss >> kind;
        if (kind == "ROUTE") {
            Route r;
            size_t nlen;
            ss >> r.id >> nlen;
            ss.get();
            r.vessel.resize(nlen);
            ss.read(&r.vessel[0], static_cast<std::streamsize>(nlen));
            ss >> r.port_a >> r.port_b >> r.distance_nm >> r.service_speed_kn >> r.wave_limit_m >> r.heading_deg >>
                r.turnaround_min;
            if (!ss)
                fail("bad ROUTE line: " + line);
            routes.push_back(r);
        } else if (kind == "DEP") {
            Departure d;
            ss >> d.route >> d.dir >> d.minute;
            if (!ss)
                fail("bad DEP line: " + line);
            deps.push_back(d);
        } else {
            fail("unknown timetable record: " + line);
        }
    }
    if (in.bad())
        fail("read error on timetable.txt");
    std::sort(deps.begin(), deps.end(), [](const Departure &a, const Departure &b) {
        return a.minute != b.minute ? a.minute < b.minute : a.route < b.route;
    });
}

// ---------------------------------------------------------------------------
// 2. Weather (binary): hourly wind and significant wave height per port

void write_weather(Rng &rng)
{
    std::ofstream out(path_of("port_weather.bin"), std::ios::binary);
    if (!out)
        fail("cannot create port_weather.bin");
    const uint32_t hdr[4] = {0x46455252u, kPorts, kHours, sizeof(WeatherObs)};
    out.write(reinterpret_cast<const char *>(hdr), sizeof hdr);
    // synoptic wind shared by all ports (AR(1) with seasonal mean), local modulation
    std::vector<double> syn(kHours), dir(kHours);
    double a = 0.0, d = 220.0;
    for (int h = 0; h < kHours; h++) {
        double season = 8.0 + 3.5 * std::cos(6.283185307179586 * (h / 24.0 - 15.0) / 365.0);
        a = 0.985 * a + 0.17 * rng.normal() * 3.0;
        d += 4.0 * rng.normal();
        syn[h] = std::max(0.0, season + a);
        dir[h] = std::fmod(d + 3600.0, 360.0);
    }
    std::vector<WeatherObs> row(kPorts);
    for (int h = 0; h < kHours; h++) {
        for (int p = 0; p < kPorts; p++) {
            double exposure = 0.7 + 0.05 * p;
            double w = std::max(0.0, syn[h] * exposure + 1.2 * rng.normal());
            row[p].wind_ms = static_cast<float>(w);
            row[p].wind_dir_deg = static_cast<float>(std::fmod(dir[h] + 10.0 * rng.normal() + 360.0, 360.0));
            row[p].hs_m = static_cast<float>(0.016 * w * w * exposure + 0.1);
        }
        out.write(reinterpret_cast<const char *>(row.data()), static_cast<std::streamsize>(sizeof(WeatherObs) * kPorts));
    }
    if (!out.flush())
        fail("write error on port_weather.bin");
}

std::vector<WeatherObs> read_weather()
{
    std::ifstream in(path_of("port_weather.bin"), std::ios::binary);
    if (!in)
        fail("cannot open port_weather.bin");
    uint32_t hdr[4];
    if (!in.read(reinterpret_cast<char *>(hdr), sizeof hdr) || hdr[0] != 0x46455252u || hdr[1] != kPorts ||
        hdr[2] != kHours || hdr[3] != sizeof(WeatherObs))
        fail("bad weather header");
    std::vector<WeatherObs> w(static_cast<size_t>(kPorts) * kHours);
    if (!in.read(reinterpret_cast<char *>(w.data()), static_cast<std::streamsize>(w.size() * sizeof(WeatherObs))))
        fail("short read on port_weather.bin");
    return w;
}

// ---------------------------------------------------------------------------
// 3. Operations replay

struct VesselState {
    int free_at;  // absolute minute when vessel is ready at its current port
    int at_end;   // 0 at port_a, 1 at port_b
};

double crossing_minutes(const Route &r, int dir, const WeatherObs &wa, const WeatherObs &wb)
{
    double hs = 0.5 * (wa.hs_m + wb.hs_m);
    double wind = 0.5 * (wa.wind_ms + wb.wind_ms);
    double heading = std::fmod(r.heading_deg + (dir ? 180.0 : 0.0), 360.0);
    double rel = std::cos((wa.wind_dir_deg - heading) * 3.141592653589793 / 180.0);
    double speed_loss = 0.06 * hs * hs * (1.0 + 0.5 * rel) + 0.01 * wind * std::max(0.0, rel);
    double v = r.service_speed_kn * std::max(0.45, 1.0 - speed_loss);
    return 60.0 * r.distance_nm / v + 3.0; // + berthing
}

std::vector<Sailing> replay_operations(const std::vector<Route> &routes, const std::vector<Departure> &deps,
                                       const std::vector<WeatherObs> &wx, int slack_extra, Rng &rng)
{
    std::vector<Sailing> log;
    log.reserve(static_cast<size_t>(kDays) * deps.size());
    std::vector<VesselState> vs(routes.size());
    for (auto &v : vs)
        v = {0, 0};
    for (int day = 0; day < kDays; day++) {
        // vessel overnight at port A
        for (auto &v : vs)
            v = {day * 1440 + 5 * 60, 0};
        for (const auto &d : deps) {
            const Route &r = routes[static_cast<size_t>(d.route)];
            VesselState &v = vs[static_cast<size_t>(d.route)];
            int sched = day * 1440 + d.minute;
            int hour = std::min(kHours - 1, sched / 60);
            const WeatherObs &wa = wx[static_cast<size_t>(hour) * kPorts + r.port_a];
            const WeatherObs &wb = wx[static_cast<size_t>(hour) * kPorts + r.port_b];
            Sailing s{day, d.route, d.dir, d.minute, -1, -1, 0, 0, false};
            if (v.at_end != d.dir) {
                // vessel on the wrong side after a cancellation: positioning is skipped, sailing cancelled
                s.cancelled = true;
                log.push_back(s);
                continue;
            }
            if (std::max(wa.hs_m, wb.hs_m) > r.wave_limit_m) {
                s.cancelled = true;
                log.push_back(s);
                continue;
            }
            double loading = 2.0 + 4.0 * rng.unif() * rng.unif(); // late vehicles, freight
            int dep = std::max(sched, v.free_at) + static_cast<int>(loading > 5.0 ? loading - 5.0 : 0.0);
            int arr = dep + static_cast<int>(std::lround(crossing_minutes(r, d.dir, wa, wb)));
            s.actual_dep = dep - day * 1440;
            s.actual_arr = arr - day * 1440;
            s.delay_dep = dep - sched;
            int planned_arr = sched + static_cast<int>(std::ceil(60.0 * r.distance_nm / r.service_speed_kn)) + 5;
            s.delay_arr = arr - planned_arr;
            v.free_at = arr + r.turnaround_min - slack_extra;
            v.at_end = 1 - d.dir;
            log.push_back(s);
        }
    }
    return log;
}

void write_sailing_log(const std::vector<Sailing> &log, const std::vector<Route> &routes)
{
    std::ofstream out(path_of("sailings.csv"));
    if (!out)
        fail("cannot create sailings.csv");
    out << "date,route,vessel,direction,scheduled,departed,arrived,dep_delay_min,arr_delay_min,status\n";
    char buf[160];
    for (const auto &s : log) {
        int y = 2022 + s.day / 365, doy = s.day % 365 + 1;
        auto hm = [](int m, char *o) {
            if (m < 0)
                std::snprintf(o, 8, "--:--");
            else
                std::snprintf(o, 8, "%02d:%02d", (m / 60) % 100, m % 60);
        };
        char a[8], b[8], c[8];
        hm(s.sched_min, a);
        hm(s.actual_dep, b);
        hm(s.actual_arr, c);
        std::snprintf(buf, sizeof buf, "%d-%03d,%d,%s,%c,%s,%s,%s,%d,%d,%s\n", y, doy, s.route,
                      routes[static_cast<size_t>(s.route)].vessel.c_str(), s.dir ? 'B' : 'A', a, b, c, s.delay_dep,
                      s.delay_arr, s.cancelled ? "CANCELLED" : (s.delay_arr <= 5 ? "ON_TIME" : "LATE"));
        out << buf;
    }
    if (!out.flush())
        fail("write error on sailings.csv");
}

// ---------------------------------------------------------------------------
// 4. Statistics from the re-read log

struct RouteStats {
    int32_t route;
    int32_t sailings, cancelled, on_time;
    double mean_delay, p50, p90, p99, max_delay;
};

std::vector<RouteStats> route_statistics(std::map<int, std::vector<int>> &daily_late)
{
    std::ifstream in(path_of("sailings.csv"));
    if (!in)
        fail("cannot open sailings.csv");
    std::string line;
    std::getline(in, line);
    std::unordered_map<int, std::vector<int>> delays;
    std::unordered_map<int, std::array<int, 3>> counts;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        f.reserve(10);
        size_t st = 0;
        for (;;) {
            size_t p = line.find(',', st);
            f.emplace_back(line.substr(st, p == std::string::npos ? std::string::npos : p - st));
            if (p == std::string::npos)
                break;
            st = p + 1;
        }
        if (f.size() != 10)
            fail("bad sailing line: " + line);
        int route = std::stoi(f[1]);
        int day = (std::stoi(f[0].substr(0, 4)) - 2022) * 365 + std::stoi(f[0].substr(5)) - 1;
        auto &c = counts[route];
        c[0]++;
        if (f[9] == "CANCELLED") {
            c[1]++;
            continue;
        }
        int d = std::stoi(f[8]);
        if (f[9] == "ON_TIME")
            c[2]++;
        else {
            auto &v = daily_late[route];
            if (v.empty())
                v.assign(kDays, 0);
            v[static_cast<size_t>(day)]++;
        }
        delays[route].push_back(d);
    }
    if (in.bad())
        fail("read error on sailings.csv");
    std::vector<RouteStats> out;
    for (int r = 0; r < kRoutes; r++) {
        RouteStats s{};
        s.route = r;
        auto &v = delays[r];
        auto &c = counts[r];
        s.sailings = c[0];
        s.cancelled = c[1];
        s.on_time = c[2];
        if (!v.empty()) {
            s.mean_delay = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
            auto q = [&v](double p) {
                size_t k = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
                std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
                return static_cast<double>(v[k]);
            };
            s.p50 = q(0.5);
            s.p90 = q(0.9);
            s.p99 = q(0.99);
            s.max_delay = *std::max_element(v.begin(), v.end());
        }
        out.push_back(s);
    }
    return out;
}

// Correlation of daily late-sailing counts between every pair of routes.
std::vector<double> propagation_matrix(std::map<int, std::vector<int>> &daily_late)
{
    std::vector<double> m(kRoutes * kRoutes, 0.0);
    std::vector<std::vector<double>> z(kRoutes, std::vector<double>(kDays, 0.0));
    for (int r = 0; r < kRoutes; r++) {
        auto &v = daily_late[r];
        if (v.empty())
            v.assign(kDays, 0);
        double mean = std::accumulate(v.begin(), v.end(), 0.0) / kDays, s2 = 0.0;
        for (int d = 0; d < kDays; d++)
            s2 += (v[static_cast<size_t>(d)] - mean) * (v[static_cast<size_t>(d)] - mean);
        double sd = std::sqrt(s2 / kDays) + 1e-12;
        for (int d = 0; d < kDays; d++)
            z[static_cast<size_t>(r)][static_cast<size_t>(d)] = (v[static_cast<size_t>(d)] - mean) / sd;
    }
    // lagged (same day and next day) correlation
    for (int a = 0; a < kRoutes; a++)
        for (int b = 0; b < kRoutes; b++) {
            double c0 = 0.0, c1 = 0.0;
            for (int d = 0; d + 1 < kDays; d++) {
                c0 += z[static_cast<size_t>(a)][static_cast<size_t>(d)] * z[static_cast<size_t>(b)][static_cast<size_t>(d)];
                c1 += z[static_cast<size_t>(a)][static_cast<size_t>(d)] * z[static_cast<size_t>(b)][static_cast<size_t>(d + 1)];
            }
            m[static_cast<size_t>(a * kRoutes + b)] = std::max(c0, c1) / (kDays - 1);
        }
    return m;
}

// Replay the whole network with more turnaround slack (minutes) and record
// the network on-time share: how much punctuality does slack buy?
void slack_study(const std::vector<Route> &routes, const std::vector<Departure> &deps,
                 const std::vector<WeatherObs> &wx, std::vector<std::pair<int, double>> &result)
{
    for (int slack = -6; slack <= 12; slack += 3) {
        Rng rng(777);
        auto log = replay_operations(routes, deps, wx, slack, rng);
        long ok = 0, run = 0;
        for (const auto &s : log) {
            if (s.cancelled)
                continue;
            run++;
            ok += s.delay_arr <= 5;
        }
        result.emplace_back(slack, run > 0 ? static_cast<double>(ok) / run : 0.0);
    }
    std::ofstream out(path_of("slack_study.csv"));
    if (!out)
        fail("cannot create slack_study.csv");
    out << "extra_slack_min,on_time_share\n";
    for (auto &p : result)
        out << p.first << ',' << std::setprecision(5) << p.second << '\n';
    if (!out.flush())
        fail("write error on slack_study.csv");
}

void write_reports(const std::vector<Route> &routes, const std::vector<RouteStats> &st, const std::vector<double> &pm)
{
    std::ofstream bin(path_of("route_stats.bin"), std::ios::binary);
    if (!bin)
        fail("cannot create route_stats.bin");
    uint32_t n = static_cast<uint32_t>(st.size());
    bin.write(reinterpret_cast<const char *>(&n), sizeof n);
    bin.write(reinterpret_cast<const char *>(st.data()), static_cast<std::streamsize>(sizeof(RouteStats) * st.size()));
    bin.write(reinterpret_cast<const char *>(pm.data()), static_cast<std::streamsize>(sizeof(double) * pm.size()));
    if (!bin.flush())
        fail("write error on route_stats.bin");

    std::ofstream rep(path_of("punctuality_report.txt"));
    if (!rep)
        fail("cannot create punctuality_report.txt");
    rep << "route vessel        sailings cancelled on_time%  mean   p50   p90   p99   max  strongest_link\n";
    for (const auto &s : st) {
        int best = -1;
        double bv = -1.0;
        for (int b = 0; b < kRoutes; b++)
            if (b != s.route && pm[static_cast<size_t>(s.route * kRoutes + b)] > bv) {
                bv = pm[static_cast<size_t>(s.route * kRoutes + b)];
                best = b;
            }
        int run = s.sailings - s.cancelled;
        rep << std::setw(5) << s.route << ' ' << std::left << std::setw(12) << routes[static_cast<size_t>(s.route)].vessel
            << std::right << std::setw(10) << s.sailings << std::setw(10) << s.cancelled << std::fixed
            << std::setprecision(1) << std::setw(9) << (run > 0 ? 100.0 * s.on_time / run : 0.0) << std::setw(6)
            << s.mean_delay << std::setw(6) << s.p50 << std::setw(6) << s.p90 << std::setw(6) << s.p99 << std::setw(6)
            << s.max_delay << "  " << best << " (r=" << std::setprecision(2) << bv << ")\n";
    }
    if (!rep.flush())
        fail("write error on punctuality_report.txt");
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    g_dir = argv[1];
    Rng rng(0xFE44E5ull);
    {
        auto net = build_network(rng);
        write_timetable(net);
        write_weather(rng);
    }
    std::vector<Route> routes;
    std::vector<Departure> deps;
    read_timetable(routes, deps);
    auto wx = read_weather();

    Rng ops(777);
    auto log = replay_operations(routes, deps, wx, 0, ops);
    write_sailing_log(log, routes);

    std::map<int, std::vector<int>> daily_late;
    auto stats = route_statistics(daily_late);
    auto pm = propagation_matrix(daily_late);
    std::vector<std::pair<int, double>> slack;
    slack_study(routes, deps, wx, slack);
    write_reports(routes, stats, pm);

    long tot = 0, canc = 0, on = 0;
    for (const auto &s : stats) {
        tot += s.sailings;
        canc += s.cancelled;
        on += s.on_time;
    }
    std::cout << "ferry_crossing_punctuality: " << routes.size() << " routes, " << deps.size()
              << " daily departures, " << tot << " sailings over " << kDays << " days, " << canc << " cancelled, "
              << std::fixed << std::setprecision(1) << 100.0 * on / std::max(1L, tot - canc) << "% on time; slack +12 min -> "
              << 100.0 * slack.back().second << "%\n";
    return 0;
}
