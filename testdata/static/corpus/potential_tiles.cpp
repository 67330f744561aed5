// potential_tiles: evaluates the 2-D electrostatic potential of a set of point
// charges on a large grid, tile by tile.  Every tile is appended to a binary
// tile store through std::ofstream and flushed, an index line (offset, size,
// checksum) is written to a text index that is flushed every few tiles, and a
// down-sampled quick-look PGM is written at the end.  The store is then
// re-opened and randomly chosen tiles are checked against the index.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kGridX = 2048;
constexpr int kGridY = 1536;
constexpr int kTile = 32;
constexpr int kCharges = 36;
constexpr int kIndexFlushEvery = 24;
constexpr int kQuicklookStride = 8;
constexpr int kVerifyTiles = 400;

struct Charge {
    double x, y, q;
};

struct TileEntry {
    int tx, ty;
    std::uint64_t offset;
    std::uint32_t bytes;
    std::uint64_t checksum;
};

class Lcg {
public:
    explicit Lcg(std::uint64_t s) : state_(s) {}
    double uniform() {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state_ >> 11) * (1.0 / 9007199254740992.0);
    }
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(uniform() * n); }

private:
    std::uint64_t state_;
};

std::vector<Charge> place_charges(Lcg &rng) {
    std::vector<Charge> c(kCharges);
    for (auto &ch : c) {
        ch.x = rng.uniform() * kGridX;
        ch.y = rng.uniform() * kGridY;
        ch.q = (rng.uniform() < 0.5 ? -1.0 : 1.0) * (0.5 + rng.uniform());
    }
    return c;
}

// potential of a 2-D line charge: -q log r, with a small core radius
void eval_tile(const std::vector<Charge> &charges, int tx, int ty, std::vector<float> &out) {
    out.assign(static_cast<size_t>(kTile) * kTile, 0.0f);
    for (int j = 0; j < kTile; ++j) {
        double y = ty * kTile + j + 0.5;
        for (int i = 0; i < kTile; ++i) {
            double x = tx * kTile + i + 0.5;
            double phi = 0.0;
            for (const auto &c : charges) {
                double dx = x - c.x, dy = y - c.y;
                phi -= 0.5 * c.q * std::log(dx * dx + dy * dy + 4.0);
            }
            out[static_cast<size_t>(j) * kTile + i] = static_cast<float>(phi);
        }
    }
}

std::uint64_t tile_checksum(const std::vector<float> &t) {
    std::uint64_t h = 1469598103934665603ULL;
    const unsigned char *p = reinterpret_cast<const unsigned char *>(t.data());
    for (size_t k = 0; k < t.size() * sizeof(float); ++k) {
        h ^= p[k];
        h *= 1099511628211ULL;
    }
    return h;
}

class TileWriter {
public:
    TileWriter(const std::string &data_path, const std::string &index_path)
        : data_(data_path, std::ios::binary | std::ios::trunc), index_(index_path, std::ios::trunc) {
        if (!data_ || !index_) throw std::runtime_error("cannot open tile store");
        index_ << "# tx ty offset bytes checksum\n";
    }

    void put(int tx, int ty, const std::vector<float> &tile) {
        TileEntry e;
        e.tx = tx;
        e.ty = ty;
        e.offset = offset_;
        e.bytes = static_cast<std::uint32_t>(tile.size() * sizeof(float));
        e.checksum = tile_checksum(tile);
        data_.write(reinterpret_cast<const char *>(tile.data()), e.bytes);
        data_.flush();
        if (!data_) throw std::runtime_error("tile write failed");
        offset_ += e.bytes;
        index_ << e.tx << ' ' << e.ty << ' ' << e.offset << ' ' << e.bytes << ' ' << e.checksum << '\n';
        if (++count_ % kIndexFlushEvery == 0) index_.flush();
        entries_.push_back(e);
    }

    void finish() {
        index_ << "# end " << count_ << " tiles\n";
        index_.flush();
        data_.close();
        index_.close();
    }

    const std::vector<TileEntry> &entries() const { return entries_; }

private:
    std::ofstream data_;
    std::ofstream index_;
    std::uint64_t offset_ = 0;
    int count_ = 0;
    std::vector<TileEntry> entries_;
};

// keeps every kQuicklookStride-th sample of each tile for the preview image
void sample_into_quicklook(const std::vector<float> &tile, int tx, int ty, std::vector<float> &ql) {
    const int qw = kGridX / kQuicklookStride;
    for (int j = 0; j < kTile; j += kQuicklookStride)
        for (int i = 0; i < kTile; i += kQuicklookStride) {
            int gx = (tx * kTile + i) / kQuicklookStride;
            int gy = (ty * kTile + j) / kQuicklookStride;
            ql[static_cast<size_t>(gy) * qw + gx] = tile[static_cast<size_t>(j) * kTile + i];
        }
}

void write_quicklook(const std::string &path, const std::vector<float> &ql) {
    const int qw = kGridX / kQuicklookStride, qh = kGridY / kQuicklookStride;
    float lo = ql[0], hi = ql[0];
    for (float v : ql) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    std::ofstream out(path, std::ios::trunc);
    out << "P2\n" << qw << ' ' << qh << "\n255\n";
    for (int y = 0; y < qh; ++y) {
        for (int x = 0; x < qw; ++x) {
            float v = ql[static_cast<size_t>(y) * qw + x];
            int g = static_cast<int>(255.0f * (v - lo) / (hi - lo + 1e-12f));
            out << g << (x + 1 == qw ? '\n' : ' ');
        }
        if (y % 32 == 31) out.flush();
    }
}

std::vector<TileEntry> load_index(const std::string &path) {
    std::ifstream in(path);
    std::vector<TileEntry> v;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        TileEntry e;
        ss >> e.tx >> e.ty >> e.offset >> e.bytes >> e.checksum;
        if (ss) v.push_back(e);
    }
    return v;
}

int verify_store(const std::string &data_path, const std::vector<TileEntry> &index,
                 const std::vector<Charge> &charges, Lcg &rng) {
    std::ifstream in(data_path, std::ios::binary);
    std::vector<float> tile(static_cast<size_t>(kTile) * kTile), fresh;
    int bad = 0;
    for (int k = 0; k < kVerifyTiles; ++k) {
        const TileEntry &e = index[rng.below(static_cast<std::uint32_t>(index.size()))];
        in.seekg(static_cast<std::streamoff>(e.offset));
        in.read(reinterpret_cast<char *>(tile.data()), e.bytes);
        if (!in || tile_checksum(tile) != e.checksum) {
            ++bad;
            continue;
        }
        if (k % 50 == 0) {  // occasionally recompute from scratch
            eval_tile(charges, e.tx, e.ty, fresh);
            if (std::memcmp(fresh.data(), tile.data(), e.bytes) != 0) ++bad;
        }
    }
    return bad;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::cerr << "usage: potential_tiles DIR\n";
        return 1;
    }
    const std::string dir = argv[1];
    mkdir(dir.c_str(), 0755);
    const std::string data_path = dir + "/tiles.bin";
    const std::string index_path = dir + "/tiles.idx";

    Lcg rng(424242);
    std::vector<Charge> charges = place_charges(rng);
    std::vector<float> ql(static_cast<size_t>(kGridX / kQuicklookStride) * (kGridY / kQuicklookStride));
    std::vector<float> tile;

    const int ntx = kGridX / kTile, nty = kGridY / kTile;
    {
        TileWriter writer(data_path, index_path);
        for (int ty = 0; ty < nty; ++ty)
            for (int tx = 0; tx < ntx; ++tx) {
                eval_tile(charges, tx, ty, tile);
                writer.put(tx, ty, tile);
                sample_into_quicklook(tile, tx, ty, ql);
            }
        writer.finish();
    }
    write_quicklook(dir + "/quicklook.pgm", ql);

    std::vector<TileEntry> index = load_index(index_path);
    if (static_cast<int>(index.size()) != ntx * nty) {
        std::cerr << "potential_tiles: index has " << index.size() << " entries, expected " << ntx * nty << "\n";
        return 2;
    }
    int bad = verify_store(data_path, index, charges, rng);
    if (bad != 0) {
        std::cerr << "potential_tiles: " << bad << " tiles failed verification\n";
        return 3;
    }
    std::cout << "potential_tiles: " << ntx * nty << " tiles of " << kTile << "x" << kTile << " written and verified\n";
    return 0;
}
