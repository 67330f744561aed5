// marathon_chip_splits.cpp
// City-marathon timing system: RFID chip reads from the timing mats are
// simulated (several reads per crossing, with RSSI, occasional missed reads
// and a few course cutters), each mat writing its own raw read log with
// std::ofstream.  The results engine then reloads every mat log with
// std::ifstream/getline, keeps the strongest read per chip and mat, builds
// chip and gun times, split paces and anomaly flags, ranks age groups,
// writes a results CSV, one text file per age group and a fixed-record binary
// results file, and finally checks random bib lookups with seekg/read.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kRunners = 30000;
constexpr std::array<double, 11> kMatKm = {0.0, 5.0, 10.0, 15.0, 20.0, 21.0975, 25.0, 30.0, 35.0, 40.0, 42.195};
constexpr int kMats = static_cast<int>(kMatKm.size());
constexpr int64_t kGunMs = 9LL * 3600 * 1000;   // 09:00:00 start

struct Runner {
    uint32_t bib, chip;
    int age;
    char sex;
    double pace0;       // s/km at start
    double fade;        // pace drift per km
    int wave;
    bool cutter;
};

struct Crossing {
    int64_t ms = -1;
    int rssi = -999;
    int reads = 0;
};

struct Result {
    uint32_t bib;
    int32_t chip_ms, gun_ms;
    std::array<int32_t, kMats> split_ms;
    uint16_t flags;
    uint16_t place_overall, place_group;
    char group[8];
};

[[noreturn]] void fail(const std::string &what)
{
    std::cerr << "marathon_chip_splits: " << what << '\n';
    std::exit(1);
}

std::string group_of(const Runner &r)
{
    int lo = r.age < 20 ? 18 : (r.age / 5) * 5;
    if (lo > 70) lo = 70;
    return std::string(1, r.sex) + std::to_string(lo);
}

std::vector<Runner> register_field(std::mt19937_64 &rng)
{
    std::vector<Runner> field;
    field.reserve(kRunners);
    std::normal_distribution<double> pace(345.0, 55.0);
    std::uniform_int_distribution<int> age(18, 79);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < kRunners; i++) {
        Runner r;
        r.bib = 1001 + i;
        r.chip = 0x5A000000u ^ (static_cast<uint32_t>(i) * 2654435761u);
        r.age = age(rng);
        r.sex = u(rng) < 0.42 ? 'F' : 'M';
        r.pace0 = std::max(175.0, pace(rng) + (r.sex == 'F' ? 20.0 : 0.0) + 0.8 * std::max(0, r.age - 40));
        r.fade = 0.3 + 2.2 * u(rng) * u(rng);
        r.wave = r.pace0 < 300 ? 0 : r.pace0 < 360 ? 1 : 2;
        r.cutter = u(rng) < 0.0015;
        field.push_back(r);
    }
    return field;
}

// every mat gets its own append-only log of raw antenna reads
void simulate_reads(const std::vector<Runner> &field, const std::string &dir, std::mt19937_64 &rng)
{
    std::vector<std::ofstream> mats(kMats);
    for (int m = 0; m < kMats; m++) {
        char name[64];
        std::snprintf(name, sizeof name, "/mat_%02d_%06.3fkm.log", m, kMatKm[m]);
        mats[m].open(dir + name);
        if (!mats[m]) fail("cannot create mat log " + std::string(name));
        mats[m] << "# mat " << m << " km " << kMatKm[m] << " reader v2.4 epoch_ms,chip,antenna,rssi\n";
    }
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> g(0.0, 1.0);
    for (const Runner &r : field) {
        int64_t start = kGunMs + r.wave * 8LL * 60 * 1000 + static_cast<int64_t>(u(rng) * 240000);
        double t = 0.0;
        double km_prev = 0.0;
        for (int m = 0; m < kMats; m++) {
            double seg = kMatKm[m] - km_prev;
            if (r.cutter && m >= 4 && m <= 6) seg *= 0.3;              // short-cut across the loop
            double mid = 0.5 * (kMatKm[m] + km_prev);
            double pace = r.pace0 + r.fade * mid + (mid > 30 ? 4.0 * (mid - 30) * r.fade : 0.0);
            t += seg * pace * (1.0 + 0.02 * g(rng));
            km_prev = kMatKm[m];
            if (r.cutter && (m == 4 || m == 5)) continue;            // ... and misses its mats
            if (u(rng) < 0.004) continue;                            // missed crossing
            int nreads = 1 + static_cast<int>(u(rng) * 5);
            int64_t cross = start + static_cast<int64_t>(t * 1000.0);
            for (int k = 0; k < nreads; k++) {
                int64_t ms = cross + static_cast<int64_t>((k - nreads / 2) * 180 + 60 * g(rng));
                int ant = 1 + static_cast<int>(u(rng) * 4);
                int rssi = -45 - static_cast<int>(std::abs(ms - cross) / 25) - static_cast<int>(6 * u(rng));
                mats[m] << ms << ',' << std::hex << r.chip << std::dec << ',' << ant << ',' << rssi << '\n';
            }
        }
    }
    for (auto &f : mats) {
        f.close();
        if (!f) fail("error writing a mat log");
    }
}

// parse one mat log, keeping the strongest read per chip
std::unordered_map<uint32_t, Crossing> load_mat(const std::string &path)
{
    std::ifstream in(path);
    if (!in) fail("cannot open " + path);
    std::unordered_map<uint32_t, Crossing> best;
    best.reserve(kRunners * 2);
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        if (line.empty() || line[0] == '#') continue;
        const char *p = line.data(), *end = p + line.size();
        int64_t ms = 0;
        uint32_t chip = 0;
        int ant = 0, rssi = 0;
        bool ok = false;
        auto r1 = std::from_chars(p, end, ms);
        if (r1.ec == std::errc() && r1.ptr < end && *r1.ptr == ',') {
            auto r2 = std::from_chars(r1.ptr + 1, end, chip, 16);
            if (r2.ec == std::errc() && r2.ptr < end && *r2.ptr == ',') {
                auto r3 = std::from_chars(r2.ptr + 1, end, ant);
                if (r3.ec == std::errc() && r3.ptr < end && *r3.ptr == ',') {
                    auto r4 = std::from_chars(r3.ptr + 1, end, rssi);
                    ok = r4.ec == std::errc();
                }
            }
        }
        if (!ok) fail("bad record in " + path + ":" + std::to_string(lineno));
        Crossing &c = best[chip];
        c.reads++;
        if (rssi > c.rssi) { c.rssi = rssi; c.ms = ms; }
    }
    if (in.bad()) fail("read error on " + path);
    return best;
}

enum : uint16_t { kMissingSplit = 1, kImpossibleSplit = 2, kNoFinish = 4, kNegativeSplit = 8 };

std::vector<Result> compute_results(const std::vector<Runner> &field,
                                    const std::vector<std::unordered_map<uint32_t, Crossing>> &mats)
{
    std::vector<Result> res;
    res.reserve(field.size());
    for (const Runner &r : field) {
        Result x{};
        x.bib = r.bib;
        std::string g = group_of(r);
        std::snprintf(x.group, sizeof x.group, "%s", g.c_str());
        int64_t t0 = -1;
        for (int m = 0; m < kMats; m++) {
            auto it = mats[m].find(r.chip);
            int64_t ms = it == mats[m].end() ? -1 : it->second.ms;
            if (m == 0) t0 = ms;
            x.split_ms[m] = (ms < 0 || t0 < 0) ? -1 : static_cast<int32_t>(ms - t0);
            if (ms < 0 && m > 0) x.flags |= kMissingSplit;
        }
        int32_t fin = x.split_ms[kMats - 1];
        if (fin < 0) x.flags |= kNoFinish;
        int prev = 0;
        for (int m = 1; m < kMats; m++) {
            if (x.split_ms[m] < 0) continue;
            double dkm = kMatKm[m] - kMatKm[prev];
            double pace = (x.split_ms[m] - x.split_ms[prev]) / 1000.0 / dkm;
            if (pace < 160.0) x.flags |= kImpossibleSplit;     // faster than the world record
            prev = m;
        }
        if (fin > 0 && x.split_ms[5] > 0 && fin - x.split_ms[5] < x.split_ms[5]) x.flags |= kNegativeSplit;
        auto itf = mats[kMats - 1].find(r.chip);
        x.chip_ms = fin;
        x.gun_ms = itf == mats[kMats - 1].end() ? -1 : static_cast<int32_t>(itf->second.ms - kGunMs);
        res.push_back(x);
    }
    return res;
}

bool official(const Result &r)
{
    return !(r.flags & (kNoFinish | kImpossibleSplit)) && !((r.flags & kMissingSplit) && r.split_ms[5] < 0 && r.split_ms[4] < 0);
}

std::map<std::string, std::vector<size_t>> rank_results(std::vector<Result> &res)
{
    std::vector<size_t> order;
    for (size_t i = 0; i < res.size(); i++)
        if (official(res[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return res[a].gun_ms < res[b].gun_ms; });   // rules: gun time
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t k = 0; k < order.size(); k++) {
        Result &r = res[order[k]];
        r.place_overall = static_cast<uint16_t>(k + 1);
        auto &v = groups[r.group];
        v.push_back(order[k]);
    }
    for (auto &[name, v] : groups) {
        std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return res[a].chip_ms < res[b].chip_ms; });
        for (size_t k = 0; k < v.size(); k++) res[v[k]].place_group = static_cast<uint16_t>(k + 1);
    }
    return groups;
}

std::string hms(int32_t ms)
{
    if (ms < 0) return "--:--:--";
    char b[32];
    int s = ms / 1000;
    std::snprintf(b, sizeof b, "%d:%02d:%02d.%01d", s / 3600, (s / 60) % 60, s % 60, (ms % 1000) / 100);
    return b;
}

void write_results_csv(const std::vector<Result> &res, const std::string &path)
{
    std::ofstream out(path);
    if (!out) fail("cannot create " + path);
    out << "bib,group,place,group_place,gun,chip";
    for (int m = 1; m < kMats; m++) out << ",split_" << kMatKm[m];
    out << ",flags\n";
    for (const Result &r : res) {
        out << r.bib << ',' << r.group << ',' << r.place_overall << ',' << r.place_group << ','
            << hms(r.gun_ms) << ',' << hms(r.chip_ms);
        for (int m = 1; m < kMats; m++) out << ',' << hms(r.split_ms[m]);
        out << ',' << r.flags << '\n';
    }
    out.close();
    if (!out) fail("error writing " + path);
}

void write_group_tables(const std::vector<Result> &res, const std::map<std::string, std::vector<size_t>> &groups,
                        const std::string &dir)
{
    for (const auto &[name, v] : groups) {
        std::ofstream out(dir + "/group_" + name + ".txt");
        if (!out) fail("cannot create group file " + name);
        out << "Age group " << name << " (" << v.size() << " finishers)\n";
        out << " pl   bib     chip        half     2nd half   pace/km\n";
        for (size_t idx : v) {
            const Result &r = res[idx];
            int half = r.split_ms[5];
            double pace = r.chip_ms / 1000.0 / 42.195;
            char line[128];
            std::snprintf(line, sizeof line, "%4u %6u %11s %11s %11s  %d:%02d\n", r.place_group, r.bib,
                          hms(r.chip_ms).c_str(), hms(half).c_str(),
                          half > 0 ? hms(r.chip_ms - half).c_str() : "--", static_cast<int>(pace) / 60,
                          static_cast<int>(pace) % 60);
            out << line;
        }
        out.close();
        if (!out) fail("error writing group file " + name);
    }
}

void write_binary(const std::vector<Result> &res, const std::string &path)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) fail("cannot create " + path);
    const uint32_t magic = 0x4D524348, n = static_cast<uint32_t>(res.size()), recsz = sizeof(Result);
    out.write(reinterpret_cast<const char *>(&magic), 4);
    out.write(reinterpret_cast<const char *>(&n), 4);
    out.write(reinterpret_cast<const char *>(&recsz), 4);
    for (const Result &r : res) out.write(reinterpret_cast<const char *>(&r), sizeof r);
    out.close();
    if (!out) fail("error writing " + path);
}

int verify_lookups(const std::vector<Result> &res, const std::string &path, std::mt19937_64 &rng)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open " + path);
    uint32_t hdr[3];
    if (!in.read(reinterpret_cast<char *>(hdr), sizeof hdr)) fail("short header in " + path);
    if (hdr[0] != 0x4D524348 || hdr[1] != res.size() || hdr[2] != sizeof(Result)) fail("bad header in " + path);
    std::uniform_int_distribution<uint32_t> pick(0, hdr[1] - 1);
    int bad = 0;
    for (int k = 0; k < 4000; k++) {
        uint32_t i = pick(rng);
        Result r;
        in.seekg(static_cast<std::streamoff>(sizeof hdr) + static_cast<std::streamoff>(i) * hdr[2]);
        if (!in.read(reinterpret_cast<char *>(&r), sizeof r)) fail("short record in " + path);
        if (r.bib != res[i].bib || r.chip_ms != res[i].chip_ms || r.place_overall != res[i].place_overall) bad++;
    }
    return bad;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    std::mt19937_64 rng(42195);
    std::vector<Runner> field = register_field(rng);
    simulate_reads(field, dir, rng);

    std::vector<std::unordered_map<uint32_t, Crossing>> mats;
    size_t reads = 0;
    for (int m = 0; m < kMats; m++) {
        char name[64];
        std::snprintf(name, sizeof name, "/mat_%02d_%06.3fkm.log", m, kMatKm[m]);
        mats.push_back(load_mat(dir + name));
        for (const auto &kv : mats.back()) reads += kv.second.reads;
    }
    std::vector<Result> res = compute_results(field, mats);
    auto groups = rank_results(res);
    write_results_csv(res, dir + "/results.csv");
    write_group_tables(res, groups, dir);
    write_binary(res, dir + "/results.bin");
    int bad = verify_lookups(res, dir + "/results.bin", rng);

    int finishers = 0, flagged = 0, negative = 0;
    int32_t best = INT32_MAX;
    for (const Result &r : res) {
        if (official(r)) { finishers++; best = std::min(best, r.chip_ms); }
        if (r.flags & kImpossibleSplit) flagged++;
        if (r.flags & kNegativeSplit) negative++;
    }
    std::cout << reads << " chip reads, " << finishers << " official finishers in " << groups.size()
              << " groups, winner " << hms(best) << ", " << flagged << " flagged, " << negative
              << " negative splits, lookup mismatches " << bad << '\n';
    return bad ? 1 : 0;
}
