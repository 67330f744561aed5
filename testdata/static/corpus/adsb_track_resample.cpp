// adsb_track_resample.cpp
//
// Air-traffic surveillance post-processor.  A synthetic ADS-B position feed
// (time-ordered CSV, messages of many aircraft interleaved, with dropouts
// and jitter) is generated, then parsed with ifstream/getline, grouped per
// aircraft, sorted, smoothed with an alpha-beta tracker and resampled onto a
// fixed 4-second clock with great-circle interpolation.  Each resampled
// track is written to its own CSV under a per-operator directory, flight
// phases are summarised in a JSON-lines file, and finally the track files
// are re-read to accumulate a sector-occupancy cube that is stored as a
// binary file.
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
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kAircraft = 420;
constexpr double kDuration = 2.5 * 3600;  // seconds of feed
constexpr double kStep = 4.0;             // resample interval
constexpr int kGridLat = 40, kGridLon = 60, kGridMin = 150;
constexpr double kLat0 = 44.0, kLat1 = 52.0, kLon0 = -2.0, kLon1 = 12.0;
constexpr double kPi = 3.14159265358979323846;

struct Msg {
    double t, lat, lon, alt, gs;
};

struct Flight {
    std::string icao, callsign;
    double t0, t1, lat0, lon0, lat1, lon1, cruise;
};

struct Sample {
    double t, lat, lon, alt, vrate;
};

uint64_t rng(uint64_t& s) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

double urand(uint64_t& s) { return (rng(s) >> 11) * (1.0 / 9007199254740992.0); }

std::vector<Flight> plan_flights() {
    static const char* ops[] = {"AFR", "DLH", "EZY", "RYR", "SWR", "KLM", "BAW", "AUA"};
    std::vector<Flight> f(kAircraft);
    uint64_t s = 0xADB5ULL;
    for (int i = 0; i < kAircraft; i++) {
        std::ostringstream ic, cs;
        ic << std::hex << std::setw(6) << std::setfill('0') << (0x3c0000 + i * 37);
        cs << ops[i % 8] << (100 + i);
        f[i].icao = ic.str();
        f[i].callsign = cs.str();
        f[i].t0 = urand(s) * kDuration * 0.6;
        f[i].t1 = f[i].t0 + 2400 + urand(s) * 3600;
        f[i].lat0 = kLat0 + urand(s) * (kLat1 - kLat0);
        f[i].lon0 = kLon0 + urand(s) * (kLon1 - kLon0);
        f[i].lat1 = kLat0 + urand(s) * (kLat1 - kLat0);
        f[i].lon1 = kLon0 + urand(s) * (kLon1 - kLon0);
        f[i].cruise = 9000 + 3000 * urand(s);
    }
    return f;
}

// Feed: every second, each airborne aircraft emits a message with p=0.45.
size_t write_feed(const fs::path& path, const std::vector<Flight>& fl) {
    std::ofstream out(path);
    out << "t,icao,callsign,lat,lon,alt_m,gs_kt\n";
    out << std::fixed;
    uint64_t s = 99;
    size_t n = 0;
    for (double t = 0; t < kDuration; t += 1.0) {
        for (const auto& f : fl) {
            if (t < f.t0 || t > f.t1 || urand(s) > 0.45) continue;
            double u = (t - f.t0) / (f.t1 - f.t0);
            double lat = f.lat0 + (f.lat1 - f.lat0) * u + 0.0004 * (urand(s) - 0.5);
            double lon = f.lon0 + (f.lon1 - f.lon0) * u + 0.0004 * (urand(s) - 0.5);
            double ramp = std::min({1.0, u / 0.15, (1.0 - u) / 0.2});
            double alt = f.cruise * std::max(ramp, 0.0) + 15 * (urand(s) - 0.5);
            out << std::setprecision(1) << t << ',' << f.icao << ',' << f.callsign << ','
                << std::setprecision(5) << lat << ',' << lon << ',' << std::setprecision(0) << alt
                << ',' << 250 + 200 * ramp << '\n';
            n++;
        }
    }
    return n;
}

std::unordered_map<std::string, std::vector<Msg>> parse_feed(const fs::path& path,
                                                             std::map<std::string, std::string>& calls) {
    std::unordered_map<std::string, std::vector<Msg>> tracks;
    std::ifstream in(path);
    std::string line, field[7];
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        for (auto& x : field) std::getline(ss, x, ',');
        Msg m{std::stod(field[0]), std::stod(field[3]), std::stod(field[4]), std::stod(field[5]),
              std::stod(field[6])};
        tracks[field[1]].push_back(m);
        calls[field[1]] = field[2];
    }
    return tracks;
}

double haversine_km(double la1, double lo1, double la2, double lo2) {
    double r = kPi / 180.0;
    double a = std::sin((la2 - la1) * r / 2), b = std::sin((lo2 - lo1) * r / 2);
    double h = a * a + std::cos(la1 * r) * std::cos(la2 * r) * b * b;
    return 2 * 6371.0 * std::asin(std::sqrt(h));
}

// Alpha-beta filter on altitude, then linear resample on the fixed clock.
std::vector<Sample> resample_track(std::vector<Msg>& msgs) {
    std::sort(msgs.begin(), msgs.end(), [](const Msg& a, const Msg& b) { return a.t < b.t; });
    std::vector<double> alt(msgs.size());
    double x = msgs[0].alt, v = 0;
    const double alpha = 0.35, beta = 0.05;
    for (size_t i = 0; i < msgs.size(); i++) {
        double dt = i ? msgs[i].t - msgs[i - 1].t : 1.0;
        double pred = x + v * dt;
        double r = msgs[i].alt - pred;
        x = pred + alpha * r;
        v += beta * r / dt;
        alt[i] = x;
    }
    std::vector<Sample> out;
    size_t j = 0;
    for (double t = std::ceil(msgs.front().t / kStep) * kStep; t <= msgs.back().t; t += kStep) {
        while (j + 1 < msgs.size() && msgs[j + 1].t < t) j++;
        if (j + 1 >= msgs.size()) break;
        const Msg &a = msgs[j], &b = msgs[j + 1];
        double w = (t - a.t) / (b.t - a.t);
        Sample sm{t, a.lat + w * (b.lat - a.lat), a.lon + w * (b.lon - a.lon),
                  alt[j] + w * (alt[j + 1] - alt[j]), 0};
        if (!out.empty()) sm.vrate = (sm.alt - out.back().alt) / kStep;
        out.push_back(sm);
    }
    return out;
}

void write_track(const fs::path& dir, const std::string& icao, const std::string& call,
                 const std::vector<Sample>& s, std::ofstream& phases) {
    fs::path opdir = dir / call.substr(0, 3);
    fs::create_directories(opdir);
    std::ofstream out(opdir / (icao + "_" + call + ".csv"));
    out << "t,lat,lon,alt_m,vrate_ms\n" << std::fixed << std::setprecision(5);
    double dist = 0, climb = 0, cruise = 0, desc = 0;
    for (size_t i = 0; i < s.size(); i++) {
        out << s[i].t << ',' << s[i].lat << ',' << s[i].lon << ',' << s[i].alt << ',' << s[i].vrate << '\n';
        if (i) dist += haversine_km(s[i - 1].lat, s[i - 1].lon, s[i].lat, s[i].lon);
        (s[i].vrate > 1.5 ? climb : s[i].vrate < -1.5 ? desc : cruise) += kStep;
    }
    phases << "{\"icao\":\"" << icao << "\",\"callsign\":\"" << call << "\",\"samples\":" << s.size()
           << ",\"dist_km\":" << std::setprecision(2) << dist << ",\"climb_s\":" << climb
           << ",\"cruise_s\":" << cruise << ",\"descent_s\":" << desc << "}\n";
}

// Re-read every resampled track and count aircraft per (minute, lat, lon) cell.
std::vector<uint16_t> occupancy_cube(const fs::path& dir) {
    std::vector<uint16_t> cube(static_cast<size_t>(kGridMin) * kGridLat * kGridLon, 0);
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
        std::ifstream in(p);
        std::string line;
        std::getline(in, line);
        int last_cell = -1;
        while (std::getline(in, line)) {
            double t, lat, lon;
            char c;
            std::istringstream ss(line);
            ss >> t >> c >> lat >> c >> lon;
            int m = static_cast<int>(t / 60), gy = static_cast<int>((lat - kLat0) / (kLat1 - kLat0) * kGridLat);
            int gx = static_cast<int>((lon - kLon0) / (kLon1 - kLon0) * kGridLon);
            if (m < 0 || m >= kGridMin || gy < 0 || gy >= kGridLat || gx < 0 || gx >= kGridLon) continue;
            int cell = (m * kGridLat + gy) * kGridLon + gx;
            if (cell != last_cell) cube[cell]++;
            last_cell = cell;
        }
    }
    return cube;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    fs::path root(argv[1]);
    fs::path feed = root / "adsb_feed.csv", tracks_dir = root / "tracks";
    fs::create_directories(tracks_dir);
    auto flights = plan_flights();
    size_t nmsg = write_feed(feed, flights);

    std::map<std::string, std::string> calls;
    auto tracks = parse_feed(feed, calls);
    std::ofstream phases(root / "flight_phases.jsonl");
    phases << std::fixed;
    size_t nsamples = 0;
    for (const auto& [icao, call] : calls) {  // std::map: deterministic order
        auto& msgs = tracks[icao];
        if (msgs.size() < 2) continue;
        auto s = resample_track(msgs);
        nsamples += s.size();
        write_track(tracks_dir, icao, call, s, phases);
    }
    phases.close();

    auto cube = occupancy_cube(tracks_dir);
    std::ofstream cb(root / "sector_occupancy.u16", std::ios::binary);
    int32_t dims[3] = {kGridMin, kGridLat, kGridLon};
    cb.write(reinterpret_cast<const char*>(dims), sizeof dims);
    cb.write(reinterpret_cast<const char*>(cube.data()), static_cast<std::streamsize>(cube.size() * 2));
    uint16_t peak = *std::max_element(cube.begin(), cube.end());
    std::cout << "messages " << nmsg << " aircraft " << calls.size() << " samples " << nsamples
              << " peak cell occupancy " << peak << "\n";
    return 0;
}
