// fishing_catch_logbook_quota.cpp
//
// A demersal fishing fleet over one season.  The simulation sends every
// vessel on trips from its home port to fishing grounds, records each haul
// in an electronic-logbook CSV (one row per haul and species, written with
// std::ofstream) and writes vessel-monitoring-system (VMS) position pings
// as fixed binary records.  Quota uptake feeds back into discarding.
//
// The analysis then reloads the logbook with std::ifstream/getline into STL
// containers, computes quota uptake per vessel and species, a standardised
// CPUE index (backfitted vessel + month + ground effects on log CPUE),
// reads the VMS file back to grid fishing effort and to match hauls with
// pings, writes CSV/text reports and a binary landings table that is read
// back and verified.
//
// usage: fishing_catch_logbook_quota OUTDIR
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kVessels = 130;
constexpr int kSeasonDays = 250;
constexpr int kGrounds = 40;
constexpr int kSpecies = 12;
constexpr int kQuotaSpecies = 9;
constexpr double kPingHours = 1.0;
const std::array<const char *, kSpecies> kSpeciesCode = {"COD", "HAD", "WHG", "POK", "HKE", "MON",
                                                         "PLE", "SOL", "NEP", "MAC", "HER", "LEM"};
const std::array<const char *, 4> kGear = {"OTB", "OTT", "GNS", "SDN"};
const std::array<int, 12> kMonthDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

struct Port { const char *name; double lat, lon; };
const std::array<Port, 6> kPorts = {{{"Peterhead", 57.50, -1.78}, {"Fraserburgh", 57.69, -2.00},
                                     {"Lerwick", 60.15, -1.14}, {"Scrabster", 58.61, -3.55},
                                     {"Kinlochbervie", 58.46, -5.05}, {"Eyemouth", 55.87, -2.09}}};

struct Ground {
    double lat, lon, depth;
    std::array<double, kSpecies> abundance;   // kg per trawl hour at full power
};

struct Vessel {
    int id, port, gear;
    double length_m, power;
    std::array<double, kSpecies> quota_kg{}, landed_kg{};
};

#pragma pack(push, 1)
struct VmsPing {                 // 32 bytes on disk
    uint32_t vessel;
    uint32_t t_min;              // minutes since season start
    float lat, lon;
    float speed_kn, heading;
    uint32_t trip;
    uint32_t crc;
};
#pragma pack(pop)

struct HaulRow {
    uint32_t trip, haul;
    int vessel, day, minute;
    double lat, lon, depth, dur_min;
    int species;
    double kept, discarded;
};

struct Landing {                 // binary landings table record
    int32_t vessel, species;
    double kept_kg, discarded_kg, quota_kg;
};

class Rng {
  public:
    explicit Rng(uint64_t s) : s_(s) {}
    uint64_t next() {
        uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double unif() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double normal() {
        double u = unif(), v = unif();
        if (u < 1e-300) u = 1e-300;
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }
    int below(int n) { return static_cast<int>(unif() * n); }

  private:
    uint64_t s_;
};

[[noreturn]] void fail(const std::string &what) {
    std::cerr << "fishing_catch_logbook_quota: " << what << "\n";
    std::exit(1);
}

uint32_t ping_crc(const VmsPing &p) {
    const auto *b = reinterpret_cast<const unsigned char *>(&p);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < offsetof(VmsPing, crc); ++i) h = (h ^ b[i]) * 16777619u;
    return h;
}

std::string day_to_date(int day) {
    int m = 0;
    while (m < 11 && day >= kMonthDays[m]) day -= kMonthDays[m++];
    char buf[32];
    std::snprintf(buf, sizeof buf, "2023-%02d-%02d", m + 1, day + 1);
    return buf;
}

int date_to_day(std::string_view s) {
    int m = (s[5] - '0') * 10 + (s[6] - '0');
    int d = (s[8] - '0') * 10 + (s[9] - '0');
    int day = d - 1;
    for (int i = 0; i < m - 1; ++i) day += kMonthDays[i];
    return day;
}

int month_of(int day) {
    int m = 0;
    while (m < 11 && day >= kMonthDays[m]) day -= kMonthDays[m++];
    return m;
}

double km_between(double la1, double lo1, double la2, double lo2) {
    const double r = 6371.0, d2r = M_PI / 180.0;
    double dla = (la2 - la1) * d2r, dlo = (lo2 - lo1) * d2r;
    double a = std::sin(dla / 2) * std::sin(dla / 2) +
               std::cos(la1 * d2r) * std::cos(la2 * d2r) * std::sin(dlo / 2) * std::sin(dlo / 2);
    return 2 * r * std::asin(std::sqrt(std::min(1.0, a)));
}

// Grounds, vessels and their quota allocations.
void build_fleet(Rng &rng, std::vector<Ground> &grounds, std::vector<Vessel> &fleet) {
    grounds.resize(kGrounds);
    for (int g = 0; g < kGrounds; ++g) {
        Ground &gr = grounds[g];
        gr.lat = 56.0 + 5.0 * rng.unif();
        gr.lon = -6.0 + 7.5 * rng.unif();
        gr.depth = 60 + 260 * rng.unif();
        for (int s = 0; s < kSpecies; ++s) {
            double base = std::exp(1.2 * rng.normal()) * 25.0;
            if (s == 8 && gr.depth > 150) base *= 0.1;        // nephrops on soft mud shelves
            if ((s == 4 || s == 5) && gr.depth > 180) base *= 2.5;
            gr.abundance[s] = rng.unif() < 0.75 ? base : 0.0;
        }
    }
    fleet.resize(kVessels);
    for (int v = 0; v < kVessels; ++v) {
        Vessel &ve = fleet[v];
        ve.id = 1000 + v;
        ve.port = rng.below(static_cast<int>(kPorts.size()));
        ve.gear = rng.below(4);
        ve.length_m = 12 + 18 * rng.unif();
        ve.power = std::pow(ve.length_m / 20.0, 1.4) * (ve.gear == 2 ? 0.6 : 1.0);
        for (int s = 0; s < kQuotaSpecies; ++s) ve.quota_kg[s] = 30000.0 * ve.power * std::exp(0.5 * rng.normal());
        for (int s = kQuotaSpecies; s < kSpecies; ++s) ve.quota_kg[s] = 1e12;   // non-quota
    }
}

// Simulate the season; hauls -> logbook CSV, pings -> binary VMS file.
size_t simulate_season(Rng &rng, const std::vector<Ground> &grounds, std::vector<Vessel> &fleet,
                       const std::string &dir, size_t &nping) {
    std::ofstream log(dir + "/logbook_hauls.csv");
    std::ofstream vms(dir + "/vms_pings.bin", std::ios::binary);
    if (!log) fail("cannot create logbook_hauls.csv");
    if (!vms) fail("cannot create vms_pings.bin");
    log << "trip,haul,vessel,date,time,lat,lon,depth_m,duration_min,species,kg_retained,kg_discarded\n";
    log << std::fixed;
    size_t rows = 0;
    nping = 0;
    uint32_t trip_id = 0;
    std::vector<VmsPing> pbuf;
    pbuf.reserve(4096);
    auto ping = [&](const Vessel &v, double t_h, double lat, double lon, double spd, double hdg) {
        VmsPing p{};
        p.vessel = static_cast<uint32_t>(v.id);
        p.t_min = static_cast<uint32_t>(t_h * 60.0);
        p.lat = static_cast<float>(lat + 0.0008 * rng.normal());     // GNSS error
        p.lon = static_cast<float>(lon + 0.0012 * rng.normal());
        p.speed_kn = static_cast<float>(spd);
        p.heading = static_cast<float>(hdg);
        p.trip = trip_id;
        p.crc = ping_crc(p);
        pbuf.push_back(p);
        if (pbuf.size() == 4096) {
            vms.write(reinterpret_cast<const char *>(pbuf.data()),
                      static_cast<std::streamsize>(pbuf.size() * sizeof(VmsPing)));
            if (!vms) fail("write vms_pings.bin");
            nping += pbuf.size();
            pbuf.clear();
        }
    };
    for (Vessel &v : fleet) {
        double t = 24.0 * rng.below(5);                        // hours since season start
        while (t < 24.0 * (kSeasonDays - 8)) {
            ++trip_id;
            const Port &port = kPorts[v.port];
            // pick the ground with the best expected value of unfilled quota nearby
            int best = 0;
            double bestv = -1;
            for (int g = 0; g < kGrounds; ++g) {
                double val = 0;
                for (int s = 0; s < kSpecies; ++s) {
                    double left = std::max(0.0, v.quota_kg[s] - v.landed_kg[s]);
                    val += grounds[g].abundance[s] * (s < kQuotaSpecies ? std::min(1.0, left / 2000.0) : 0.3);
                }
                double d = km_between(port.lat, port.lon, grounds[g].lat, grounds[g].lon);
                val = val / (1.0 + d / 150.0) * std::exp(0.3 * rng.normal());
                if (val > bestv) { bestv = val; best = g; }
            }
            const Ground &gr = grounds[best];
            double dist = km_between(port.lat, port.lon, gr.lat, gr.lon);
            double steam_h = dist / (9.0 * 1.852);
            double hdg = std::atan2(gr.lon - port.lon, gr.lat - port.lat) * 180.0 / M_PI;
            for (double s = 0; s < steam_h; s += kPingHours) {
                double f = s / steam_h;
                ping(v, t + s, port.lat + f * (gr.lat - port.lat), port.lon + f * (gr.lon - port.lon), 9.0, hdg);
            }
            t += steam_h;
            int days = 2 + rng.below(5);
            uint32_t haul_no = 0;
            for (int d = 0; d < days; ++d) {
                int nh = v.gear == 2 ? 2 : 4;
                for (int h = 0; h < nh; ++h) {
                    double dur = (v.gear == 2 ? 300 : 180) + 60 * rng.unif();
                    double lat = gr.lat + 0.15 * rng.normal(), lon = gr.lon + 0.25 * rng.normal();
                    int day = static_cast<int>(t / 24.0);
                    if (day >= kSeasonDays) break;
                    int minute = static_cast<int>((t - 24.0 * day) * 60.0);
                    double season = 1.0 + 0.35 * std::sin(2 * M_PI * (day - 60) / 365.0);
                    ++haul_no;
                    std::string date = day_to_date(day);
                    for (int s = 0; s < kSpecies; ++s) {
                        if (gr.abundance[s] <= 0 || rng.unif() < 0.25) continue;
                        double kg = gr.abundance[s] * v.power * season * dur / 60.0 * std::exp(0.6 * rng.normal());
                        double under = 0.08 + 0.1 * rng.unif();
                        double left = v.quota_kg[s] - v.landed_kg[s];
                        double kept = kg * (1 - under);
                        if (kept > left) kept = std::max(0.0, left);  // quota choke -> discard
                        double disc = kg - kept;
                        v.landed_kg[s] += kept;
                        log << trip_id << ',' << haul_no << ',' << v.id << ',' << date << ','
                            << std::setw(2) << std::setfill('0') << minute / 60 << ':' << std::setw(2)
                            << minute % 60 << std::setfill(' ') << ',' << std::setprecision(4) << lat << ','
                            << lon << ',' << std::setprecision(0) << gr.depth << ',' << dur << ','
                            << kSpeciesCode[s] << ',' << std::setprecision(1) << kept << ',' << disc << '\n';
                        ++rows;
                    }
                    // pings while towing (slow) and hauling/shooting
                    for (double s = 0; s < dur / 60.0 + 1.5; s += kPingHours) {
                        bool towing = s < dur / 60.0;
                        ping(v, t + s, lat + 0.01 * s, lon + 0.015 * s, towing ? 3.0 + 0.4 * rng.normal() : 0.6,
                             std::fmod(360.0 + 40.0 * h, 360.0));
                    }
                    t += dur / 60.0 + 1.5;
                }
                t = std::ceil(t / 24.0) * 24.0 + 4.0;
            }
            for (double s = 0; s < steam_h; s += kPingHours) {
                double f = s / steam_h;
                ping(v, t + s, gr.lat + f * (port.lat - gr.lat), gr.lon + f * (port.lon - gr.lon), 9.0,
                     std::fmod(hdg + 180.0, 360.0));
            }
            t += steam_h + 24.0 * (1 + rng.below(3));                 // time in port
        }
    }
    if (!pbuf.empty()) {
        vms.write(reinterpret_cast<const char *>(pbuf.data()),
                  static_cast<std::streamsize>(pbuf.size() * sizeof(VmsPing)));
        nping += pbuf.size();
    }
    log.close();
    vms.close();
    if (!log) fail("write logbook_hauls.csv");
    if (!vms) fail("write vms_pings.bin");
    return rows;
}

template <typename T>
T parse_num(std::string_view f, size_t lineno) {
    T v{};
    auto r = std::from_chars(f.data(), f.data() + f.size(), v);
    if (r.ec != std::errc()) fail("parse error on logbook line " + std::to_string(lineno));
    return v;
}

// Reload the logbook into a vector of rows (std::ifstream + getline).
std::vector<HaulRow> load_logbook(const std::string &dir) {
    std::ifstream in(dir + "/logbook_hauls.csv");
    if (!in) fail("cannot open logbook_hauls.csv");
    std::unordered_map<std::string, int> code;
    for (int s = 0; s < kSpecies; ++s) code[kSpeciesCode[s]] = s;
    std::vector<HaulRow> rows;
    rows.reserve(300000);
    std::string line;
    size_t lineno = 0;
    std::getline(in, line);                   // header
    std::array<std::string_view, 12> f;
    while (std::getline(in, line)) {
        ++lineno;
        std::string_view sv(line);
        size_t k = 0, pos = 0;
        while (k < 12) {
            size_t c = sv.find(',', pos);
            f[k++] = sv.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos);
            if (c == std::string_view::npos) break;
            pos = c + 1;
        }
        if (k != 12) fail("short logbook line " + std::to_string(lineno));
        HaulRow r;
        r.trip = parse_num<uint32_t>(f[0], lineno);
        r.haul = parse_num<uint32_t>(f[1], lineno);
        r.vessel = parse_num<int>(f[2], lineno);
        r.day = date_to_day(f[3]);
        r.minute = parse_num<int>(f[4].substr(0, 2), lineno) * 60 + parse_num<int>(f[4].substr(3, 2), lineno);
        r.lat = parse_num<double>(f[5], lineno);
        r.lon = parse_num<double>(f[6], lineno);
        r.depth = parse_num<double>(f[7], lineno);
        r.dur_min = parse_num<double>(f[8], lineno);
        auto it = code.find(std::string(f[9]));
        if (it == code.end()) fail("unknown species on line " + std::to_string(lineno));
        r.species = it->second;
        r.kept = parse_num<double>(f[10], lineno);
        r.discarded = parse_num<double>(f[11], lineno);
        rows.push_back(r);
    }
    if (in.bad()) fail("read logbook_hauls.csv");
    return rows;
}

// Quota uptake per vessel and species; returns number of choked vessel-stocks.
int quota_report(const std::vector<HaulRow> &rows, const std::vector<Vessel> &fleet, const std::string &dir,
                 std::vector<Landing> &landings) {
    std::map<std::pair<int, int>, std::pair<double, double>> tot;   // (vessel,species) -> kept, discarded
    for (const HaulRow &r : rows) {
        auto &p = tot[{r.vessel, r.species}];
        p.first += r.kept;
        p.second += r.discarded;
    }
    std::unordered_map<int, const Vessel *> byid;
    for (const Vessel &v : fleet) byid[v.id] = &v;
    std::ofstream out(dir + "/quota_uptake.txt");
    if (!out) fail("cannot create quota_uptake.txt");
    out << std::fixed << std::setprecision(1);
    out << "vessel gear port species kept_kg discarded_kg quota_kg uptake_pct\n";
    int choked = 0;
    landings.clear();
    for (const auto &[key, kd] : tot) {
        const Vessel *v = byid.at(key.first);
        double q = key.second < kQuotaSpecies ? v->quota_kg[key.second] : 0.0;
        double up = q > 0 ? 100.0 * kd.first / q : 0.0;
        if (q > 0 && up > 99.0) ++choked;
        out << v->id << ' ' << kGear[v->gear] << ' ' << kPorts[v->port].name << ' ' << kSpeciesCode[key.second]
            << ' ' << kd.first << ' ' << kd.second << ' ' << q << ' ' << up << '\n';
        landings.push_back({key.first, key.second, kd.first, kd.second, q});
    }
    if (!out) fail("write quota_uptake.txt");
    return choked;
}

// Standardised CPUE: log(kg/h) = mu + vessel + month + ground-cell, backfitted.
std::vector<double> cpue_index(const std::vector<HaulRow> &rows, int species, const std::string &dir) {
    struct Obs { int v, m, g; double y; };
    std::vector<Obs> obs;
    std::unordered_map<int, int> vidx, gidx;
    for (const HaulRow &r : rows) {
        if (r.species != species || r.kept + r.discarded <= 0) continue;
        int cell = static_cast<int>(std::floor(r.lat * 2)) * 1000 + static_cast<int>(std::floor(r.lon * 2) + 500);
        int vi = vidx.try_emplace(r.vessel, static_cast<int>(vidx.size())).first->second;
        int gi = gidx.try_emplace(cell, static_cast<int>(gidx.size())).first->second;
        obs.push_back({vi, month_of(r.day), gi, std::log((r.kept + r.discarded) / (r.dur_min / 60.0))});
    }
    std::vector<double> ev(vidx.size(), 0.0), em(12, 0.0), eg(gidx.size(), 0.0);
    double mu = 0;
    for (const Obs &o : obs) mu += o.y;
    mu /= std::max<size_t>(1, obs.size());
    for (int it = 0; it < 40; ++it) {
        auto update = [&](std::vector<double> &eff, auto key) {
            std::vector<double> s(eff.size(), 0.0), n(eff.size(), 0.0);
            for (const Obs &o : obs) {
                double r = o.y - mu - ev[o.v] - em[o.m] - eg[o.g] + eff[key(o)];
                s[key(o)] += r;
                n[key(o)] += 1;
            }
            double mean = 0;
            for (size_t i = 0; i < eff.size(); ++i) { eff[i] = n[i] > 0 ? s[i] / n[i] : 0.0; mean += eff[i]; }
            mean /= eff.size();
            for (double &e : eff) e -= mean;
        };
        update(ev, [](const Obs &o) { return o.v; });
        update(eg, [](const Obs &o) { return o.g; });
        update(em, [](const Obs &o) { return o.m; });
    }
    std::vector<double> idx(12);
    for (int m = 0; m < 12; ++m) idx[m] = std::exp(mu + em[m]);
    std::ofstream out(dir + "/cpue_" + kSpeciesCode[species] + ".csv");
    if (!out) fail("cannot create cpue file");
    out << "month,standardised_kg_per_hour,nominal_kg_per_hour,n\n" << std::fixed << std::setprecision(3);
    std::vector<double> nom(12, 0.0), cnt(12, 0.0);
    for (const Obs &o : obs) { nom[o.m] += std::exp(o.y); cnt[o.m] += 1; }
    for (int m = 0; m < 12; ++m)
        out << m + 1 << ',' << idx[m] << ',' << (cnt[m] > 0 ? nom[m] / cnt[m] : 0.0) << ',' << cnt[m] << '\n';
    if (!out) fail("write cpue file");
    return idx;
}

// Read VMS pings back; effort grid and haul/ping matching.
void vms_effort(const std::string &dir, const std::vector<HaulRow> &rows, size_t &fishing_pings,
                double &median_offset_km, size_t &bad) {
    std::ifstream in(dir + "/vms_pings.bin", std::ios::binary);
    if (!in) fail("cannot open vms_pings.bin");
    std::unordered_map<int, std::vector<VmsPing>> byv;
    std::unordered_map<int64_t, double> grid;                 // 0.05 deg cells -> hours fishing
    std::vector<VmsPing> buf(8192);
    fishing_pings = 0;
    bad = 0;
    for (;;) {
        in.read(reinterpret_cast<char *>(buf.data()), static_cast<std::streamsize>(buf.size() * sizeof(VmsPing)));
        std::streamsize got = in.gcount();
        if (got % static_cast<std::streamsize>(sizeof(VmsPing)) != 0) fail("truncated vms_pings.bin");
        size_t n = static_cast<size_t>(got) / sizeof(VmsPing);
        for (size_t i = 0; i < n; ++i) {
            const VmsPing &p = buf[i];
            if (ping_crc(p) != p.crc) { ++bad; continue; }
            byv[static_cast<int>(p.vessel)].push_back(p);
            if (p.speed_kn >= 1.5f && p.speed_kn <= 4.5f) {
                ++fishing_pings;
                int64_t key = static_cast<int64_t>(std::floor(p.lat / 0.05)) * 100000 +
                              static_cast<int64_t>(std::floor(p.lon / 0.05) + 50000);
                grid[key] += kPingHours;
            }
        }
        if (!in) {
            if (in.eof()) break;
            fail("read vms_pings.bin");
        }
    }
    std::vector<std::pair<int64_t, double>> cells(grid.begin(), grid.end());
    std::sort(cells.begin(), cells.end());
    std::ofstream out(dir + "/effort_grid.csv");
    if (!out) fail("cannot create effort_grid.csv");
    out << "lat,lon,fishing_hours\n" << std::fixed << std::setprecision(3);
    for (const auto &[key, hours] : cells) {
        int64_t la = key >= 0 ? key / 100000 : -((-key + 99999) / 100000);
        int64_t lo = key - la * 100000 - 50000;
        out << (la + 0.5) * 0.05 << ',' << (lo + 0.5) * 0.05 << ',' << hours << '\n';
    }
    if (!out) fail("write effort_grid.csv");
    // each haul (first species row) against the nearest ping of its vessel in time
    std::vector<double> offs;
    uint32_t last_trip = 0, last_haul = 0;
    for (const HaulRow &r : rows) {
        if (r.trip == last_trip && r.haul == last_haul) continue;
        last_trip = r.trip;
        last_haul = r.haul;
        auto it = byv.find(r.vessel);
        if (it == byv.end()) continue;
        const auto &pv = it->second;
        uint32_t t = static_cast<uint32_t>(r.day * 1440 + r.minute);
        auto lb = std::lower_bound(pv.begin(), pv.end(), t,
                                   [](const VmsPing &p, uint32_t tt) { return p.t_min < tt; });
        if (lb == pv.end()) continue;
        offs.push_back(km_between(r.lat, r.lon, lb->lat, lb->lon));
    }
    std::nth_element(offs.begin(), offs.begin() + offs.size() / 2, offs.end());
    median_offset_km = offs.empty() ? 0.0 : offs[offs.size() / 2];
}

// Binary landings table, written and read back for verification.
bool landings_roundtrip(const std::string &dir, const std::vector<Landing> &landings) {
    const std::string path = dir + "/landings.bin";
    {
        std::ofstream out(path, std::ios::binary);
        if (!out) fail("cannot create landings.bin");
        uint64_t n = landings.size();
        out.write(reinterpret_cast<const char *>(&n), sizeof n);
        out.write(reinterpret_cast<const char *>(landings.data()),
                  static_cast<std::streamsize>(n * sizeof(Landing)));
        if (!out) fail("write landings.bin");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open landings.bin");
    uint64_t n = 0;
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    std::vector<Landing> back(n);
    in.read(reinterpret_cast<char *>(back.data()), static_cast<std::streamsize>(n * sizeof(Landing)));
    if (!in) fail("read landings.bin");
    return n == landings.size() &&
           std::memcmp(back.data(), landings.data(), n * sizeof(Landing)) == 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    Rng rng(0xF15B0A7ULL);
    std::vector<Ground> grounds;
    std::vector<Vessel> fleet;
    build_fleet(rng, grounds, fleet);
    size_t nping = 0;
    size_t nrows = simulate_season(rng, grounds, fleet, dir, nping);

    std::vector<HaulRow> rows = load_logbook(dir);
    if (rows.size() != nrows) fail("row count mismatch after reload");
    std::vector<Landing> landings;
    int choked = quota_report(rows, fleet, dir, landings);
    std::vector<double> cod = cpue_index(rows, 0, dir);
    std::vector<double> hke = cpue_index(rows, 4, dir);
    std::vector<double> nep = cpue_index(rows, 8, dir);
    size_t fishing = 0, bad = 0;
    double med = 0;
    vms_effort(dir, rows, fishing, med, bad);
    bool ok = landings_roundtrip(dir, landings);

    double kept = 0, disc = 0;
    for (const HaulRow &r : rows) { kept += r.kept; disc += r.discarded; }
    std::cout << "fishing_catch_logbook_quota: " << kVessels << " vessels, " << nrows << " logbook rows, "
              << nping << " VMS pings\n";
    std::cout << std::fixed << std::setprecision(1) << "  landed " << kept / 1000.0 << " t, discarded "
              << disc / 1000.0 << " t, choked vessel-stocks " << choked << "\n";
    std::cout << std::setprecision(2) << "  CPUE Jan/Jul  COD " << cod[0] << "/" << cod[6] << "  HKE " << hke[0]
              << "/" << hke[6] << "  NEP " << nep[0] << "/" << nep[6] << " kg/h\n";
    std::cout << "  fishing pings " << fishing << ", bad pings " << bad << ", median haul-ping offset " << med
              << " km, landings table " << (ok ? "verified" : "MISMATCH") << "\n";
    return ok ? 0 : 1;
}
