// Railway timetable delay-cascade simulator.
// Builds a small network of lines through shared hub stations, writes a
// GTFS-like timetable (stations.txt, stop_times.txt) with std::ofstream,
// reads it back with std::ifstream/getline into STL containers, then
// simulates sixteen operating days: random primary delays propagate through
// running-time recovery, single-track headway conflicts on shared segments
// and held connections at hubs (event queue on actual times).  Each day's
// realised events go to a text log; per-station delay histograms go to a
// binary file that is read back for punctuality KPIs and a final report.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kLines = 10;
constexpr int kStationsPerLine = 16;
constexpr int kTrainsPerLineDir = 70;  // per direction per day
constexpr int kDays = 16;
constexpr int kHistBins = 32;          // 1-minute bins, last bin open
constexpr double kHeadway = 3.0;       // minutes between trains on a segment
constexpr double kMaxHold = 5.0;       // max wait for a connecting train

struct StopTime {
    int trip;
    int seq;
    int station;
    double arr;   // scheduled, minutes after midnight
    double dep;
};

struct Event {
    double t;
    int trip;
    int seq;
    bool operator>(const Event &o) const { return t > o.t || (t == o.t && trip > o.trip); }
};

std::string g_dir;

[[noreturn]] void fail(const std::string &what)
{
    std::cerr << "railway_timetable: " << what << '\n';
    std::exit(1);
}

void check(const std::ios &s, const std::string &what)
{
    if (!s) fail("I/O error: " + what);
}

struct Network {
    std::vector<std::string> names;
    std::vector<std::vector<int>> lines;  // station ids along each line
};

Network build_network(std::mt19937_64 &rng)
{
    Network net;
    std::uniform_int_distribution<int> pick(0, 5);
    const int hubs = 6;
    for (int h = 0; h < hubs; ++h) net.names.push_back("Hub" + std::to_string(h));
    for (int l = 0; l < kLines; ++l) {
        std::vector<int> st;
        int hubA = l % hubs, hubB = (l * 3 + 1) % hubs;
        for (int s = 0; s < kStationsPerLine; ++s) {
            if (s == 4) { st.push_back(hubA); continue; }
            if (s == 11 && hubB != hubA) { st.push_back(hubB); continue; }
            net.names.push_back("L" + std::to_string(l) + "S" + std::to_string(s) + "_" +
                                std::to_string(pick(rng)));
            st.push_back(static_cast<int>(net.names.size()) - 1);
        }
        net.lines.push_back(st);
    }
    return net;
}

void write_timetable(const Network &net, std::mt19937_64 &rng)
{
    std::ofstream fs(g_dir + "/stations.txt");
    check(fs, "open stations.txt");
    fs << "station_id,name\n";
    for (size_t i = 0; i < net.names.size(); ++i) fs << i << ',' << net.names[i] << '\n';
    fs.close();
    check(fs, "write stations.txt");

    std::ofstream out(g_dir + "/stop_times.txt");
    check(out, "open stop_times.txt");
    out << "trip_id,stop_sequence,station_id,arrival,departure\n";
    std::uniform_real_distribution<double> run(3.0, 7.0);
    int trip = 0;
    for (int l = 0; l < kLines; ++l) {
        std::vector<double> runtime(kStationsPerLine);
        for (auto &r : runtime) r = run(rng);
        for (int dir = 0; dir < 2; ++dir)
            for (int k = 0; k < kTrainsPerLineDir; ++k, ++trip) {
                double t = 300.0 + k * 15.0 + l * 1.5 + dir * 7.0;
                for (int s = 0; s < kStationsPerLine; ++s) {
                    int idx = dir ? kStationsPerLine - 1 - s : s;
                    double dwell = (net.lines[l][idx] < 6) ? 2.0 : 0.5;
                    char buf[96];
                    std::snprintf(buf, sizeof buf, "%d,%d,%d,%.1f,%.1f\n", trip, s, net.lines[l][idx], t,
                                  t + dwell);
                    out << buf;
                    t += dwell + runtime[idx];
                }
            }
    }
    out.close();
    check(out, "write stop_times.txt");
}

std::vector<std::vector<StopTime>> read_timetable()
{
    std::ifstream in(g_dir + "/stop_times.txt");
    check(in, "open stop_times.txt for reading");
    std::string line;
    std::getline(in, line);
    std::map<int, std::vector<StopTime>> trips;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        StopTime st{};
        char c;
        if (!(ls >> st.trip >> c >> st.seq >> c >> st.station >> c >> st.arr >> c >> st.dep))
            fail("malformed line: " + line);
        trips[st.trip].push_back(st);
    }
    if (in.bad()) fail("read stop_times.txt");
    std::vector<std::vector<StopTime>> out;
    out.reserve(trips.size());
    for (auto &kv : trips) {
        std::sort(kv.second.begin(), kv.second.end(),
                  [](const StopTime &a, const StopTime &b) { return a.seq < b.seq; });
        out.push_back(std::move(kv.second));
    }
    return out;
}

struct DayResult {
    std::vector<std::array<uint32_t, kHistBins>> hist;  // per station
    double mean_delay = 0;
    int cancelled_holds = 0;
};

// Simulate one operating day; writes the realised event log.
DayResult simulate_day(int day, const std::vector<std::vector<StopTime>> &tt, size_t nstations,
                       std::mt19937_64 &rng)
{
    const size_t ntrip = tt.size();
    std::vector<std::vector<double>> act_arr(ntrip), act_dep(ntrip);
    for (size_t i = 0; i < ntrip; ++i) {
        act_arr[i].assign(tt[i].size(), -1.0);
        act_dep[i].assign(tt[i].size(), -1.0);
    }
    std::exponential_distribution<double> primary(0.25);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> initial(ntrip);
    for (auto &d : initial) d = u(rng) < 0.18 ? primary(rng) : 0.0;

    // segment key -> last exit time (single-track sharing by both directions)
    std::unordered_map<uint64_t, double> seg_free;
    // station -> scheduled arrivals (time, trip), sorted; last known delay per trip
    std::vector<std::vector<std::pair<double, int>>> sched_arr(nstations);
    for (size_t i = 0; i < ntrip; ++i)
        for (const auto &st : tt[i]) sched_arr[st.station].emplace_back(st.arr, static_cast<int>(i));
    for (auto &v : sched_arr) std::sort(v.begin(), v.end());
    std::vector<double> last_delay(ntrip, -1.0);

    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> pq;
    for (size_t i = 0; i < ntrip; ++i) pq.push({tt[i][0].dep + initial[i], static_cast<int>(i), 0});

    DayResult res;
    res.hist.assign(nstations, {});
    std::ofstream log(g_dir + "/events_day" + std::to_string(day) + ".log");
    check(log, "open event log");
    log << "# day " << day << " trip seq station sched_arr act_arr sched_dep act_dep delay\n";
    double dsum = 0;
    long dn = 0;
    while (!pq.empty()) {
        Event e = pq.top();
        pq.pop();
        const StopTime &st = tt[e.trip][e.seq];
        double arr = e.seq == 0 ? st.arr + initial[e.trip] : e.t;
        act_arr[e.trip][e.seq] = arr;
        double dep = std::max(arr + (st.dep - st.arr) * 0.8, st.dep);
        // hold for feeders at hubs: trains scheduled to arrive shortly before our
        // departure that have not arrived yet (estimated from their last delay)
        if (st.station < 6) {
            const auto &sa = sched_arr[st.station];
            auto lo = std::lower_bound(sa.begin(), sa.end(), std::make_pair(st.dep - 8.0, -1));
            for (auto it = lo; it != sa.end() && it->first < st.dep - 1.0; ++it) {
                int ft = it->second;
                if (ft == e.trip || last_delay[ft] < 0.0) continue;
                bool arrived = false;
                for (size_t q = 0; q < tt[ft].size(); ++q)
                    if (tt[ft][q].station == st.station) { arrived = act_arr[ft][q] >= 0.0; break; }
                if (arrived) continue;
                double est = it->first + last_delay[ft];
                if (est - st.dep < kMaxHold) dep = std::max(dep, est + 1.0);
                else res.cancelled_holds++;
            }
        }
        act_dep[e.trip][e.seq] = dep;
        double delay = dep - st.dep;
        last_delay[e.trip] = delay;
        int bin = std::min(kHistBins - 1, static_cast<int>(delay));
        res.hist[st.station][bin]++;
        dsum += delay;
        ++dn;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%d %d %d %.1f %.2f %.1f %.2f %.2f\n", e.trip, e.seq, st.station, st.arr,
                      arr, st.dep, dep, delay);
        log << buf;
        if (static_cast<size_t>(e.seq) + 1 < tt[e.trip].size()) {
            const StopTime &nx = tt[e.trip][e.seq + 1];
            int a = std::min(st.station, nx.station), b = std::max(st.station, nx.station);
            uint64_t key = (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
            double runtime = (nx.arr - st.dep) * 0.95;  // 5 % recovery margin
            double enter = std::max(dep, seg_free.count(key) ? seg_free[key] + kHeadway : 0.0);
            double exit = enter + runtime;
            seg_free[key] = enter;
            pq.push({std::max(exit, nx.arr), e.trip, e.seq + 1});
        }
    }
    log.close();
    check(log, "write event log");
    res.mean_delay = dsum / static_cast<double>(dn);
    return res;
}

void append_histograms(std::ofstream &bin, int day, const DayResult &r)
{
    int32_t hdr[2] = {day, static_cast<int32_t>(r.hist.size())};
    bin.write(reinterpret_cast<const char *>(hdr), sizeof hdr);
    for (const auto &h : r.hist) bin.write(reinterpret_cast<const char *>(h.data()), sizeof(uint32_t) * kHistBins);
    check(bin, "write histogram block");
}

struct Kpi {
    double punct3 = 0, punct6 = 0;
    std::vector<double> station_p95;
};

Kpi read_kpis(size_t nstations)
{
    std::ifstream in(g_dir + "/delay_hist.bin", std::ios::binary);
    check(in, "open delay_hist.bin");
    std::vector<std::array<uint64_t, kHistBins>> tot(nstations);
    for (auto &t : tot) t.fill(0);
    for (int d = 0; d < kDays; ++d) {
        int32_t hdr[2];
        in.read(reinterpret_cast<char *>(hdr), sizeof hdr);
        check(in, "read histogram header");
        if (hdr[0] != d || hdr[1] != static_cast<int32_t>(nstations)) fail("histogram file corrupt");
        std::vector<uint32_t> block(nstations * kHistBins);
        in.read(reinterpret_cast<char *>(block.data()), static_cast<std::streamsize>(block.size() * 4));
        check(in, "read histogram block");
        for (size_t s = 0; s < nstations; ++s)
            for (int b = 0; b < kHistBins; ++b) tot[s][b] += block[s * kHistBins + b];
    }
    Kpi k;
    uint64_t all = 0, on3 = 0, on6 = 0;
    for (size_t s = 0; s < nstations; ++s) {
        uint64_t n = 0;
        for (int b = 0; b < kHistBins; ++b) n += tot[s][b];
        uint64_t c = 0;
        double p95 = kHistBins;
        for (int b = 0; b < kHistBins; ++b) {
            c += tot[s][b];
            if (b < 3) on3 += tot[s][b];
            if (b < 6) on6 += tot[s][b];
            if (p95 == kHistBins && n && c >= 0.95 * static_cast<double>(n)) p95 = b + 1;
        }
        all += n;
        k.station_p95.push_back(p95);
    }
    k.punct3 = static_cast<double>(on3) / static_cast<double>(all);
    k.punct6 = static_cast<double>(on6) / static_cast<double>(all);
    return k;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    g_dir = argv[1];
    std::mt19937_64 rng(19470101ULL);
    Network net = build_network(rng);
    write_timetable(net, rng);
    auto tt = read_timetable();

    std::ofstream bin(g_dir + "/delay_hist.bin", std::ios::binary);
    check(bin, "open delay_hist.bin");
    std::vector<double> daily_mean;
    int holds = 0;
    for (int d = 0; d < kDays; ++d) {
        DayResult r = simulate_day(d, tt, net.names.size(), rng);
        append_histograms(bin, d, r);
        daily_mean.push_back(r.mean_delay);
        holds += r.cancelled_holds;
    }
    bin.close();
    check(bin, "close delay_hist.bin");

    Kpi k = read_kpis(net.names.size());
    std::ofstream rep(g_dir + "/punctuality_report.txt");
    check(rep, "open report");
    rep << "trips " << tt.size() << " stations " << net.names.size() << " days " << kDays << '\n';
    rep << "punctuality <3min " << k.punct3 << " <6min " << k.punct6 << '\n';
    for (int d = 0; d < kDays; ++d) rep << "day " << d << " mean departure delay " << daily_mean[d] << '\n';
    std::vector<std::pair<double, size_t>> worst;
    for (size_t s = 0; s < k.station_p95.size(); ++s) worst.emplace_back(k.station_p95[s], s);
    std::sort(worst.rbegin(), worst.rend());
    for (size_t i = 0; i < 10 && i < worst.size(); ++i)
        rep << "p95 " << worst[i].first << " min at " << net.names[worst[i].second] << '\n';
    rep.close();
    check(rep, "write report");
    std::cout << "railway cascade: " << tt.size() << " trips x " << kDays << " days, punctuality(3min) "
              << k.punct3 << ", missed connections " << holds << '\n';
    return 0;
}
