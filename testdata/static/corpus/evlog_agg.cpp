// Event-log analyser.
//
// A synthetic service emits JSON-lines style events ({"ts":..,"type":"..",
// "user":..,"latency_ms":..,"bytes":..,"ok":true}) written with std::ofstream.
// The analyser reads the log back with std::getline, extracts the fields with
// hand-written find/substr parsing, aggregates per event type in an
// unordered_map and compares with the producer's own totals.  A per-type
// report is written at the end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

const char *const kEventTypes[] = {
    "login", "logout", "search", "view_item", "add_to_cart",
    "checkout", "payment", "error", "upload", "download", "ping", "export"};
const int kNumTypes = sizeof(kEventTypes) / sizeof(kEventTypes[0]);
const long kNumEvents = 260000;

struct TypeStats {
    long count = 0;
    long failures = 0;
    long long bytes = 0;
    long long latency_us = 0;  // integer microseconds, exact to compare
    long max_latency_us = 0;
    std::unordered_map<long, int> users;
};

class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next() {
        s_ = s_ * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t x = s_;
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return x;
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }

private:
    uint64_t s_;
};

std::unordered_map<std::string, TypeStats> generate_log(const std::string &path)
{
    std::unordered_map<std::string, TypeStats> truth;
    std::ofstream out(path);
    if (!out) {
        std::cerr << "cannot create " << path << "\n";
        std::exit(1);
    }
    Rng rng(20240611);
    long long ts = 1717000000000LL;
    for (long i = 0; i < kNumEvents; i++) {
        // skewed type distribution
        double u = rng.uniform();
        int t = static_cast<int>(kNumTypes * u * u);
        const char *type = kEventTypes[t];
        long user = static_cast<long>(rng.next() % 5000);
        long latency_us = static_cast<long>(-std::log(1.0 - rng.uniform()) * 35000.0) + 200;
        long bytes = static_cast<long>(rng.next() % 65536);
        bool ok = (rng.next() % 100) >= (t == 7 ? 100 : 3);
        ts += 1 + static_cast<long long>(rng.next() % 40);

        out << "{\"ts\":" << ts << ",\"type\":\"" << type << "\",\"user\":" << user
            << ",\"latency_ms\":" << latency_us / 1000 << '.' << std::setw(3) << std::setfill('0')
            << latency_us % 1000 << std::setfill(' ') << ",\"bytes\":" << bytes
            << ",\"ok\":" << (ok ? "true" : "false") << "}\n";

        TypeStats &s = truth[type];
        s.count++;
        if (!ok) s.failures++;
        s.bytes += bytes;
        s.latency_us += latency_us;
        s.max_latency_us = std::max(s.max_latency_us, latency_us);
        s.users[user]++;
    }
    out.close();
    if (!out) {
        std::cerr << "write error on " << path << "\n";
        std::exit(1);
    }
    return truth;
}

// Return the raw text of the value that follows "key": in a flat JSON object.
bool field_value(const std::string &line, const std::string &key, std::string &value)
{
    std::string pat = "\"" + key + "\":";
    size_t p = line.find(pat);
    if (p == std::string::npos) return false;
    p += pat.size();
    if (p < line.size() && line[p] == '"') {
        size_t e = line.find('"', p + 1);
        if (e == std::string::npos) return false;
        value = line.substr(p + 1, e - p - 1);
        return true;
    }
    size_t e = line.find_first_of(",}", p);
    if (e == std::string::npos) return false;
    value = line.substr(p, e - p);
    return true;
}

long parse_millis_as_micros(const std::string &v)
{
    size_t dot = v.find('.');
    long whole = std::strtol(v.substr(0, dot).c_str(), nullptr, 10);
    long frac = 0;
    if (dot != std::string::npos) {
        std::string f = v.substr(dot + 1);
        while (f.size() < 3) f += '0';
        frac = std::strtol(f.substr(0, 3).c_str(), nullptr, 10);
    }
    return whole * 1000 + frac;
}

std::unordered_map<std::string, TypeStats> analyse_log(const std::string &path, long &lines, long &bad)
{
    std::unordered_map<std::string, TypeStats> agg;
    std::ifstream in(path);
    if (!in) {
        std::cerr << "cannot open " << path << "\n";
        std::exit(1);
    }
    std::string line, type, v;
    long long prev_ts = 0;
    lines = bad = 0;
    while (std::getline(in, line)) {
        lines++;
        if (line.empty() || line.front() != '{' || line.back() != '}' || !field_value(line, "type", type)) {
            bad++;
            continue;
        }
        TypeStats &s = agg[type];
        s.count++;
        if (field_value(line, "ts", v)) {
            long long ts = std::strtoll(v.c_str(), nullptr, 10);
            if (ts < prev_ts) bad++;
            prev_ts = ts;
        }
        if (field_value(line, "user", v)) s.users[std::strtol(v.c_str(), nullptr, 10)]++;
        if (field_value(line, "latency_ms", v)) {
            long us = parse_millis_as_micros(v);
            s.latency_us += us;
            s.max_latency_us = std::max(s.max_latency_us, us);
        }
        if (field_value(line, "bytes", v)) s.bytes += std::strtol(v.c_str(), nullptr, 10);
        if (field_value(line, "ok", v) && v == "false") s.failures++;
    }
    return agg;
}

int compare_stats(const std::unordered_map<std::string, TypeStats> &a,
                  const std::unordered_map<std::string, TypeStats> &b)
{
    int mismatches = 0;
    if (a.size() != b.size()) mismatches++;
    for (const auto &kv : a) {
        auto it = b.find(kv.first);
        if (it == b.end()) {
            mismatches++;
            continue;
        }
        const TypeStats &x = kv.second, &y = it->second;
        if (x.count != y.count || x.failures != y.failures || x.bytes != y.bytes ||
            x.latency_us != y.latency_us || x.max_latency_us != y.max_latency_us ||
            x.users.size() != y.users.size()) {
            std::cerr << "mismatch for type " << kv.first << "\n";
            mismatches++;
        }
    }
    return mismatches;
}

void write_report(const std::string &path, const std::unordered_map<std::string, TypeStats> &agg)
{
    std::vector<std::string> types;
    for (const auto &kv : agg) types.push_back(kv.first);
    std::sort(types.begin(), types.end(), [&](const std::string &l, const std::string &r) {
        return agg.at(l).count > agg.at(r).count;
    });
    std::ofstream out(path);
    out << std::left << std::setw(14) << "type" << std::right << std::setw(9) << "count"
        << std::setw(9) << "fail%" << std::setw(12) << "mean_ms" << std::setw(12) << "max_ms"
        << std::setw(14) << "bytes" << std::setw(8) << "users" << "\n";
    for (const auto &t : types) {
        const TypeStats &s = agg.at(t);
        out << std::left << std::setw(14) << t << std::right << std::setw(9) << s.count
            << std::setw(9) << std::fixed << std::setprecision(2) << 100.0 * s.failures / s.count
            << std::setw(12) << std::setprecision(3) << s.latency_us / 1000.0 / s.count
            << std::setw(12) << s.max_latency_us / 1000.0 << std::setw(14) << s.bytes
            << std::setw(8) << s.users.size() << "\n";
    }
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    std::string dir = argv[1];
    std::string logpath = dir + "/events.jsonl";

    auto truth = generate_log(logpath);
    long lines = 0, bad = 0;
    auto agg = analyse_log(logpath, lines, bad);
    int mism = compare_stats(truth, agg);
    write_report(dir + "/event_report.txt", agg);

    std::cout << "evlog_agg: " << lines << " lines, " << agg.size() << " types, "
              << bad << " bad, " << mism << " mismatches\n";
    return (mism == 0 && bad == 0 && lines == kNumEvents) ? 0 : 1;
}
