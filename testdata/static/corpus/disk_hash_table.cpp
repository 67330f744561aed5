// On-disk open-addressing hash table of per-sensor running statistics, updated
// in place with std::fstream seekg/seekp; the table is then verified,
// compacted into a sorted binary file and summarised as text.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>
#include <sys/stat.h>

namespace {

constexpr std::uint64_t kBuckets = 1u << 17;
constexpr int kSensors = 70000;
constexpr long kReadings = 350000;
constexpr std::streamoff kHeaderBytes = 256;
constexpr std::uint32_t kUsed = 1;

struct Bucket {
    std::uint64_t key;
    std::uint32_t count;
    std::uint32_t flags;
    double sum;
    double sumsq;
    double vmin;
    double vmax;
    std::uint64_t last_ts;
    std::uint64_t pad;
};
static_assert(sizeof(Bucket) == 64, "bucket must be 64 bytes");

struct Reference {
    std::uint32_t count = 0;
    double sum = 0.0;
};

std::uint64_t mix64(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

class DiskHashTable {
public:
    explicit DiskHashTable(const std::string &path) : path_(path)
    {
        create_empty();
        file_.open(path_, std::ios::in | std::ios::out | std::ios::binary);
        if (!file_)
            throw std::runtime_error("cannot open " + path_);
    }

    // Returns the number of probes needed.
    int upsert(std::uint64_t key, double value, std::uint64_t ts)
    {
        std::uint64_t idx = mix64(key) & (kBuckets - 1);
        for (int probe = 1;; ++probe) {
            Bucket b = read_bucket(idx);
            if (!(b.flags & kUsed)) {
                b = Bucket{key, 1, kUsed, value, value * value, value, value, ts, 0};
                write_bucket(idx, b);
                ++occupied_;
                return probe;
            }
            if (b.key == key) {
                b.count += 1;
                b.sum += value;
                b.sumsq += value * value;
                b.vmin = std::min(b.vmin, value);
                b.vmax = std::max(b.vmax, value);
                b.last_ts = ts;
                write_bucket(idx, b);
                return probe;
            }
            idx = (idx + 1) & (kBuckets - 1);
            if (probe > static_cast<int>(kBuckets))
                throw std::runtime_error("hash table full");
        }
    }

    bool lookup(std::uint64_t key, Bucket &out)
    {
        std::uint64_t idx = mix64(key) & (kBuckets - 1);
        for (std::uint64_t probe = 0; probe < kBuckets; ++probe) {
            Bucket b = read_bucket(idx);
            if (!(b.flags & kUsed))
                return false;
            if (b.key == key) {
                out = b;
                return true;
            }
            idx = (idx + 1) & (kBuckets - 1);
        }
        return false;
    }

    // Sequential pass over the whole bucket array in large chunks.
    std::vector<Bucket> scan_occupied()
    {
        file_.flush();
        std::vector<Bucket> chunk(8192), out;
        out.reserve(occupied_);
        file_.seekg(kHeaderBytes);
        for (std::uint64_t done = 0; done < kBuckets; done += chunk.size()) {
            file_.read(reinterpret_cast<char *>(chunk.data()),
                       static_cast<std::streamsize>(chunk.size() * sizeof(Bucket)));
            if (!file_)
                throw std::runtime_error("short read while scanning " + path_);
            for (const Bucket &b : chunk)
                if (b.flags & kUsed)
                    out.push_back(b);
        }
        return out;
    }

    std::uint64_t occupied() const { return occupied_; }

private:
    void create_empty()
    {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error("cannot create " + path_);
        char header[kHeaderBytes] = {};
        std::snprintf(header, sizeof header, "DHT1 buckets=%llu record=%zu\n",
                      static_cast<unsigned long long>(kBuckets), sizeof(Bucket));
        out.write(header, kHeaderBytes);
        std::vector<Bucket> zeros(4096);
        std::memset(zeros.data(), 0, zeros.size() * sizeof(Bucket));
        for (std::uint64_t i = 0; i < kBuckets; i += zeros.size())
            out.write(reinterpret_cast<const char *>(zeros.data()),
                      static_cast<std::streamsize>(zeros.size() * sizeof(Bucket)));
        if (!out)
            throw std::runtime_error("write failed on " + path_);
    }

    Bucket read_bucket(std::uint64_t idx)
    {
        Bucket b;
        file_.seekg(kHeaderBytes + static_cast<std::streamoff>(idx * sizeof(Bucket)));
        file_.read(reinterpret_cast<char *>(&b), sizeof b);
        if (!file_)
            throw std::runtime_error("bucket read failed");
        return b;
    }

    void write_bucket(std::uint64_t idx, const Bucket &b)
    {
        file_.seekp(kHeaderBytes + static_cast<std::streamoff>(idx * sizeof(Bucket)));
        file_.write(reinterpret_cast<const char *>(&b), sizeof b);
        if (!file_)
            throw std::runtime_error("bucket write failed");
    }

    std::string path_;
    std::fstream file_;
    std::uint64_t occupied_ = 0;
};

// Each sensor follows a slowly drifting damped oscillator; readings are the
// oscillator state integrated over a short window plus noise.
double simulate_reading(std::uint64_t sensor, long t, std::mt19937_64 &rng)
{
    std::normal_distribution<double> noise(0.0, 0.2);
    double omega = 0.5 + 0.001 * static_cast<double>(sensor % 977);
    double x = std::sin(0.01 * t + sensor), v = 0.0, dt = 0.05;
    for (int s = 0; s < 40; ++s) {
        double a = -omega * omega * x - 0.1 * v;
        v += a * dt;
        x += v * dt;
    }
    return 20.0 + 5.0 * x + noise(rng);
}

std::uint64_t pick_sensor(std::mt19937_64 &rng)
{
    // Skewed popularity: a few sensors report far more often.
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double r = u(rng);
    int id = static_cast<int>(kSensors * r * r * r);
    return 1000003ULL * static_cast<std::uint64_t>(id) + 17;
}

void ingest(DiskHashTable &table, std::unordered_map<std::uint64_t, Reference> &ref,
            std::vector<int> &probe_hist)
{
    std::mt19937_64 rng(4242);
    for (long i = 0; i < kReadings; ++i) {
        std::uint64_t key = pick_sensor(rng);
        double value = simulate_reading(key, i, rng);
        int probes = table.upsert(key, value, 1700000000ULL + static_cast<std::uint64_t>(i));
        probe_hist[std::min(probes, static_cast<int>(probe_hist.size()) - 1)]++;
        Reference &r = ref[key];
        r.count++;
        r.sum += value;
    }
}

long verify_sample(DiskHashTable &table,
                   const std::unordered_map<std::uint64_t, Reference> &ref)
{
    long bad = 0, checked = 0;
    for (const auto &kv : ref) {
        if (checked++ % 4 != 0)
            continue;
        Bucket b;
        if (!table.lookup(kv.first, b) || b.count != kv.second.count ||
            std::fabs(b.sum - kv.second.sum) > 1e-6 * std::fabs(kv.second.sum) + 1e-9)
            ++bad;
    }
    // keys that were never inserted must be absent
    for (std::uint64_t k = 5; k < 20000; k += 7) {
        Bucket b;
        if (table.lookup(k, b))
            ++bad;
    }
    return bad;
}

void write_compacted(const std::string &path, std::vector<Bucket> &entries)
{
    std::sort(entries.begin(), entries.end(),
              [](const Bucket &a, const Bucket &b) { return a.key < b.key; });
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw std::runtime_error("cannot create " + path);
    std::uint64_t n = entries.size();
    out.write(reinterpret_cast<const char *>(&n), sizeof n);
    out.write(reinterpret_cast<const char *>(entries.data()),
              static_cast<std::streamsize>(n * sizeof(Bucket)));
    if (!out)
        throw std::runtime_error("write failed on " + path);
}

void write_summary(const std::string &path, const std::vector<Bucket> &entries,
                   const std::vector<int> &probe_hist)
{
    std::ofstream out(path);
    if (!out)
        throw std::runtime_error("cannot create " + path);
    out << "# probe length histogram\n";
    for (std::size_t i = 1; i < probe_hist.size(); ++i)
        out << "probes " << i << (i + 1 == probe_hist.size() ? "+" : "") << ' '
            << probe_hist[i] << '\n';
    out << "# sensor count mean std min max last_ts\n";
    out << std::fixed << std::setprecision(4);
    for (const Bucket &b : entries) {
        double mean = b.sum / b.count;
        double var = std::max(0.0, b.sumsq / b.count - mean * mean);
        out << b.key << ' ' << b.count << ' ' << mean << ' ' << std::sqrt(var) << ' '
            << b.vmin << ' ' << b.vmax << ' ' << b.last_ts << '\n';
    }
    if (!out)
        throw std::runtime_error("write failed on " + path);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        std::cerr << "disk_hash_table: cannot create " << dir << '\n';
        return 1;
    }
    try {
        DiskHashTable table(dir + "/sensors.dht");
        std::unordered_map<std::uint64_t, Reference> ref;
        std::vector<int> probe_hist(17, 0);
        ingest(table, ref, probe_hist);

        long bad = verify_sample(table, ref);
        if (bad != 0) {
            std::cerr << "disk_hash_table: " << bad << " lookups disagree\n";
            return 1;
        }
        std::vector<Bucket> entries = table.scan_occupied();
        if (entries.size() != ref.size()) {
            std::cerr << "disk_hash_table: scan found " << entries.size()
                      << " entries, expected " << ref.size() << '\n';
            return 1;
        }
        write_compacted(dir + "/sensors_sorted.bin", entries);
        write_summary(dir + "/sensors_summary.txt", entries, probe_hist);
        std::cout << ref.size() << " sensors, " << kReadings << " readings, load factor "
                  << static_cast<double>(table.occupied()) / kBuckets << '\n';
    } catch (const std::exception &e) {
        std::cerr << "disk_hash_table: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
