// Integrity scanner: builds a nested directory tree of generated files, walks it with
// std::filesystem, computes SHA-256 digests into a manifest, mutates part of the tree,
// then rescans and diffs against the manifest re-read from disk.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kProjects = 6;
constexpr int kSubdirs = 8;
constexpr int kFilesPerDir = 10;
constexpr std::size_t kMaxFile = 96 * 1024;

struct Entry {
    std::string rel;
    std::uintmax_t size = 0;
    std::string digest;
};

class Sha256 {
public:
    Sha256() { reset(); }
    void reset()
    {
        static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        std::memcpy(h_, init, sizeof h_);
        len_ = 0;
        fill_ = 0;
    }
    void update(const unsigned char *p, std::size_t n)
    {
        len_ += n;
        while (n > 0) {
            std::size_t take = std::min<std::size_t>(64 - fill_, n);
            std::memcpy(buf_ + fill_, p, take);
            fill_ += take;
            p += take;
            n -= take;
            if (fill_ == 64) {
                block(buf_);
                fill_ = 0;
            }
        }
    }
    std::string hex()
    {
        uint64_t bits = len_ * 8;
        unsigned char pad = 0x80;
        update(&pad, 1);
        unsigned char zero = 0;
        while (fill_ != 56) update(&zero, 1);
        unsigned char lenb[8];
        for (int i = 0; i < 8; i++) lenb[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
        update(lenb, 8);
        std::ostringstream os;
        for (uint32_t v : h_) os << std::hex << std::setw(8) << std::setfill('0') << v;
        return os.str();
    }

private:
    static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
    void block(const unsigned char *p)
    {
        static const uint32_t K[64] = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
        uint32_t w[64];
        for (int i = 0; i < 16; i++)
            w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        h_[0] += a; h_[1] += b; h_[2] += c; h_[3] += d;
        h_[4] += e; h_[5] += f; h_[6] += g; h_[7] += h;
    }
    uint32_t h_[8];
    unsigned char buf_[64];
    std::size_t fill_;
    uint64_t len_;
};

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        s += 0x9e3779b97f4a7c15ULL;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

void write_blob(const fs::path &p, Rng &rng, std::size_t size)
{
    std::vector<char> data(size);
    for (std::size_t i = 0; i < size; i += 8) {
        uint64_t v = rng.next();
        std::memcpy(&data[i], &v, std::min<std::size_t>(8, size - i));
    }
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot create " + p.string());
    out.write(data.data(), static_cast<std::streamsize>(size));
}

void build_tree(const fs::path &root)
{
    Rng rng(2024);
    for (int p = 0; p < kProjects; p++) {
        for (int s = 0; s < kSubdirs; s++) {
            fs::path d = root / ("project" + std::to_string(p)) / ("part" + std::to_string(s)) / "out";
            fs::create_directories(d);
            for (int f = 0; f < kFilesPerDir; f++) {
                std::size_t size = 256 + rng.next() % kMaxFile;
                write_blob(d / ("field_" + std::to_string(f) + ".dat"), rng, size);
            }
            std::ofstream meta(d.parent_path() / "README.txt");
            meta << "project " << p << " part " << s << " files " << kFilesPerDir << "\n";
        }
    }
}

std::vector<Entry> scan_tree(const fs::path &root)
{
    std::vector<Entry> out;
    for (const auto &de : fs::recursive_directory_iterator(root)) {
        if (!de.is_regular_file()) continue;
        Entry e;
        e.rel = fs::relative(de.path(), root).generic_string();
        e.size = de.file_size();
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const Entry &a, const Entry &b) { return a.rel < b.rel; });
    return out;
}

void digest_all(const fs::path &root, std::vector<Entry> &entries)
{
    std::vector<unsigned char> buf(32 * 1024);
    for (auto &e : entries) {
        std::ifstream in(root / e.rel, std::ios::binary);
        if (!in) throw std::runtime_error("cannot read " + e.rel);
        Sha256 sha;
        while (in) {
            in.read(reinterpret_cast<char *>(buf.data()), static_cast<std::streamsize>(buf.size()));
            std::streamsize got = in.gcount();
            if (got > 0) sha.update(buf.data(), static_cast<std::size_t>(got));
        }
        e.digest = sha.hex();
    }
}

void save_manifest(const fs::path &file, const std::vector<Entry> &entries)
{
    std::ofstream out(file);
    if (!out) throw std::runtime_error("cannot write manifest");
    for (const auto &e : entries) out << e.digest << "  " << e.size << "  " << e.rel << '\n';
}

std::map<std::string, Entry> load_manifest(const fs::path &file)
{
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read manifest");
    std::map<std::string, Entry> m;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream is(line);
        Entry e;
        is >> e.digest >> e.size >> e.rel;
        if (!is) throw std::runtime_error("bad manifest line: " + line);
        m[e.rel] = e;
    }
    return m;
}

// Simulates a later job run: rewrites, appends to, deletes and creates some files.
int mutate_tree(const fs::path &root, const std::vector<Entry> &entries)
{
    Rng rng(77);
    int changes = 0;
    for (std::size_t i = 0; i < entries.size(); i++) {
        uint64_t r = rng.next() % 100;
        fs::path p = root / entries[i].rel;
        if (r < 4) {
            write_blob(p, rng, 512 + rng.next() % kMaxFile);
            changes++;
        } else if (r < 7) {
            std::ofstream app(p, std::ios::binary | std::ios::app);
            app << "appended record " << i << '\n';
            changes++;
        } else if (r < 9) {
            fs::remove(p);
            changes++;
        }
    }
    for (int k = 0; k < 20; k++) {
        fs::path d = root / "project0" / "part0" / "out" / ("extra_" + std::to_string(k) + ".dat");
        write_blob(d, rng, 4096 + rng.next() % 8192);
        changes++;
    }
    return changes;
}

int diff_report(const fs::path &file, const std::map<std::string, Entry> &before,
                const std::vector<Entry> &after)
{
    std::ofstream out(file);
    int diffs = 0;
    std::map<std::string, const Entry *> now;
    for (const auto &e : after) now[e.rel] = &e;
    for (const auto &[rel, e] : before) {
        auto it = now.find(rel);
        if (it == now.end()) {
            out << "D " << rel << '\n';
            diffs++;
        } else if (it->second->digest != e.digest) {
            out << "M " << rel << " " << e.size << " -> " << it->second->size << '\n';
            diffs++;
        }
    }
    for (const auto &e : after) {
        if (!before.count(e.rel)) {
            out << "A " << e.rel << " " << e.size << '\n';
            diffs++;
        }
    }
    out << "# total differences " << diffs << '\n';
    return diffs;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    try {
        fs::path base(argv[1]);
        fs::path root = base / "tree";
        fs::create_directories(base);
        fs::remove_all(root);
        build_tree(root);
        auto entries = scan_tree(root);
        digest_all(root, entries);
        save_manifest(base / "manifest.sha256", entries);
        int changes = mutate_tree(root, entries);
        auto rescanned = scan_tree(root);
        digest_all(root, rescanned);
        auto before = load_manifest(base / "manifest.sha256");
        int diffs = diff_report(base / "changes.txt", before, rescanned);
        if (diffs != changes) {
            std::cerr << "fs_tree_digest: expected " << changes << " changes, found " << diffs << '\n';
            return 1;
        }
        std::cout << entries.size() << " files scanned, " << diffs << " changes detected\n";
    } catch (const std::exception &ex) {
        std::cerr << "fs_tree_digest: " << ex.what() << '\n';
        return 1;
    }
    return 0;
}
