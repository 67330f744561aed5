// Binary particle snapshot: serialise a std::vector of particle structs in
// chunks with std::ofstream::write, read it back in chunks with
// std::ifstream::read, verify it, sort the particles along a Morton
// space-filling curve and build per-species speed histograms.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace snap {

struct Particle {
    std::uint64_t id;
    double x, y, z;
    double vx, vy, vz;
    float mass;
    std::int32_t species;
};
static_assert(sizeof(Particle) == 64, "unexpected Particle layout");

struct FileHeader {
    char magic[8];
    std::uint32_t version;
    std::uint32_t record_size;
    std::uint64_t count;
    double box;
};

constexpr int kSpecies = 3;
constexpr double kBox = 100.0;
constexpr std::size_t kChunk = 16384;
constexpr int kBins = 80;
const std::array<double, kSpecies> kMass = {1.0, 4.0, 12.0};
const std::array<double, kSpecies> kTemp = {1.0, 1.5, 0.8};

std::uint64_t fnv1a(std::uint64_t h, const void *data, std::size_t n)
{
    const unsigned char *p = static_cast<const unsigned char *>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::vector<Particle> make_particles(std::size_t n, std::uint32_t seed)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> pos(0.0, kBox);
    std::normal_distribution<double> gauss(0.0, 1.0);
    std::vector<std::uint64_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = i;
    for (std::size_t i = n - 1; i > 0; --i) {
        std::size_t j = gen() % (i + 1);
        std::swap(ids[i], ids[j]);
    }
    std::vector<Particle> p(n);
    for (std::size_t i = 0; i < n; ++i) {
        int s = static_cast<int>(gen() % kSpecies);
        double sigma = std::sqrt(kTemp[s] / kMass[s]);
        p[i].id = ids[i];
        p[i].x = pos(gen);
        p[i].y = pos(gen);
        p[i].z = pos(gen);
        p[i].vx = sigma * gauss(gen);
        p[i].vy = sigma * gauss(gen);
        p[i].vz = sigma * gauss(gen);
        p[i].mass = static_cast<float>(kMass[s]);
        p[i].species = s;
    }
    return p;
}

std::uint64_t save_snapshot(const std::string &path, const std::vector<Particle> &p)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot create " + path);
    FileHeader h{};
    std::memcpy(h.magic, "PSNAP01", 8);
    h.version = 1;
    h.record_size = sizeof(Particle);
    h.count = p.size();
    h.box = kBox;
    out.write(reinterpret_cast<const char *>(&h), sizeof h);
    std::uint64_t sum = 0xcbf29ce484222325ULL;
    for (std::size_t off = 0; off < p.size(); off += kChunk) {
        std::size_t n = std::min(kChunk, p.size() - off);
        const char *bytes = reinterpret_cast<const char *>(p.data() + off);
        out.write(bytes, static_cast<std::streamsize>(n * sizeof(Particle)));
        sum = fnv1a(sum, bytes, n * sizeof(Particle));
    }
    out.close();
    if (!out) throw std::runtime_error("write failed on " + path);
    return sum;
}

std::vector<Particle> load_snapshot(const std::string &path, std::uint64_t &sum)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    FileHeader h{};
    in.read(reinterpret_cast<char *>(&h), sizeof h);
    if (!in || std::memcmp(h.magic, "PSNAP01", 8) != 0 || h.record_size != sizeof(Particle))
        throw std::runtime_error("bad snapshot header in " + path);
    std::vector<Particle> p(h.count);
    sum = 0xcbf29ce484222325ULL;
    for (std::size_t off = 0; off < p.size(); off += kChunk) {
        std::size_t n = std::min<std::size_t>(kChunk, p.size() - off);
        char *bytes = reinterpret_cast<char *>(p.data() + off);
        in.read(bytes, static_cast<std::streamsize>(n * sizeof(Particle)));
        if (static_cast<std::size_t>(in.gcount()) != n * sizeof(Particle))
            throw std::runtime_error("short read in " + path);
        sum = fnv1a(sum, bytes, n * sizeof(Particle));
    }
    return p;
}

std::uint64_t spread_bits(std::uint64_t v)
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

std::uint64_t morton_key(const Particle &q)
{
    const double scale = 2097151.0 / kBox;
    auto cell = [scale](double c) { return static_cast<std::uint64_t>(c * scale); };
    return spread_bits(cell(q.x)) | spread_bits(cell(q.y)) << 1 | spread_bits(cell(q.z)) << 2;
}

void sort_spatially(std::vector<Particle> &p)
{
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keys(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) keys[i] = {morton_key(p[i]), static_cast<std::uint32_t>(i)};
    std::sort(keys.begin(), keys.end());
    std::vector<Particle> sorted(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) sorted[i] = p[keys[i].second];
    p.swap(sorted);
}

struct SpeedHistogram {
    double vmax;
    std::array<std::vector<std::uint64_t>, kSpecies> counts;
    std::array<double, kSpecies> kinetic{};
    std::array<std::uint64_t, kSpecies> number{};
};

SpeedHistogram speed_histogram(const std::vector<Particle> &p, double vmax)
{
    SpeedHistogram h;
    h.vmax = vmax;
    for (auto &c : h.counts) c.assign(kBins + 1, 0);     // last bin: overflow
    for (const Particle &q : p) {
        double v2 = q.vx * q.vx + q.vy * q.vy + q.vz * q.vz;
        int b = static_cast<int>(std::sqrt(v2) / vmax * kBins);
        h.counts[q.species][std::min(b, kBins)]++;
        h.kinetic[q.species] += 0.5 * q.mass * v2;
        h.number[q.species]++;
    }
    return h;
}

void write_histogram(const std::string &path, const SpeedHistogram &h)
{
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot create " + path);
    out << "# speed_lo speed_hi";
    for (int s = 0; s < kSpecies; ++s) out << " species" << s;
    out << '\n';
    for (int b = 0; b <= kBins; ++b) {
        out << h.vmax * b / kBins << ' ' << (b < kBins ? h.vmax * (b + 1) / kBins : INFINITY);
        for (int s = 0; s < kSpecies; ++s) out << ' ' << h.counts[s][b];
        out << '\n';
    }
}

} // namespace snap

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    const std::size_t n = 1200000;
    try {
        std::vector<snap::Particle> particles = snap::make_particles(n, 4711u);
        std::uint64_t wsum = snap::save_snapshot(dir + "/particles.psnap", particles);
        particles.clear();
        particles.shrink_to_fit();

        std::uint64_t rsum = 0;
        std::vector<snap::Particle> p = snap::load_snapshot(dir + "/particles.psnap", rsum);
        if (p.size() != n || rsum != wsum) {
            std::cerr << "snapshot read back differs from what was written\n";
            return 1;
        }

        snap::sort_spatially(p);
        std::vector<char> seen(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            if (p[i].id >= n || seen[p[i].id]) {
                std::cerr << "particle ids are not a permutation\n";
                return 1;
            }
            seen[p[i].id] = 1;
            if (i > 0 && snap::morton_key(p[i - 1]) > snap::morton_key(p[i])) {
                std::cerr << "particles not in Morton order\n";
                return 1;
            }
        }

        snap::SpeedHistogram h = snap::speed_histogram(p, 5.0);
        snap::write_histogram(dir + "/speed_histogram.txt", h);
        std::uint64_t total = 0;
        for (int s = 0; s < snap::kSpecies; ++s) {
            for (std::uint64_t c : h.counts[s]) total += c;
            double kt = h.kinetic[s] / (1.5 * static_cast<double>(h.number[s]));
            std::cout << "species " << s << ": " << h.number[s] << " particles, kT = " << kt << "\n";
            if (std::fabs(kt - snap::kTemp[s]) > 0.01 * snap::kTemp[s]) {
                std::cerr << "temperature of species " << s << " off\n";
                return 1;
            }
        }
        if (total != n) {
            std::cerr << "histogram lost particles\n";
            return 1;
        }
    } catch (const std::exception &e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
