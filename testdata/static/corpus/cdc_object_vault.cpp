// cdc_object_vault.cpp
//
// Content-addressed backup vault with content-defined chunking.  Several
// "snapshots" of a slowly mutating synthetic document set are ingested: each
// document is cut into variable-size chunks with a gear rolling hash, every
// chunk is fingerprinted, new chunks are stored as loose object files in a
// two-level fan-out directory tree, and a text manifest per snapshot lists
// the chunk ids of every document.  The vault then verifies one snapshot by
// reassembling documents from objects, expires old snapshots, sweeps
// unreferenced objects with a directory walk, and packs the survivors into a
// single pack file plus a sorted binary index.
#include <algorithm>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kDocs = 30;
constexpr int kSnapshots = 7;
constexpr size_t kDocBytes = 256 * 1024;
constexpr uint32_t kMaskBits = 0x3fff;  // ~16 KiB average chunk
constexpr size_t kMinChunk = 4096, kMaxChunk = 131072;

struct ChunkRef {
    uint64_t id;
    uint32_t len;
};

struct Manifest {
    int snapshot;
    std::map<std::string, std::vector<ChunkRef>> docs;
};

struct Stats {
    size_t chunks_seen = 0, chunks_stored = 0, bytes_stored = 0;
};

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::vector<uint32_t> make_gear_table() {
    std::vector<uint32_t> g(256);
    uint64_t s = 42;
    for (auto& x : g) x = static_cast<uint32_t>(splitmix(s));
    return g;
}

// A document is pseudo-text built from a vocabulary; each snapshot mutates a
// few regions (insertions and overwrites), so most chunks repeat.
std::string make_document(int doc, int snapshot) {
    static const char* words[] = {"flux", "grid", "kernel", "tensor", "halo", "solver", "mesh",
                                  "stride", "buffer", "vector", "node", "rank", "block", "cache"};
    uint64_t s = 1000 + doc;
    std::string text;
    text.reserve(kDocBytes + 4096);
    while (text.size() < kDocBytes) {
        text += words[splitmix(s) % 14];
        text += (splitmix(s) % 11 == 0) ? ".\n" : " ";
    }
    uint64_t m = 77 * doc + 13 * snapshot;
    for (int e = 0; e < snapshot * 2; e++) {
        size_t pos = splitmix(m) % text.size();
        std::ostringstream ins;
        ins << "[edit s" << snapshot << " e" << e << " v" << splitmix(m) % 1000 << "]";
        if (e % 2) text.insert(pos, ins.str());
        else text.replace(pos, std::min(ins.str().size(), text.size() - pos), ins.str());
    }
    return text;
}

uint64_t fingerprint(const char* p, size_t n) {
    uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
    for (size_t i = 0; i < n; i++) {
        h1 = (h1 ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ULL;
        h2 = ((h2 << 5) | (h2 >> 59)) + static_cast<unsigned char>(p[i]) * 0x9e3779b1ULL;
    }
    return h1 ^ (h2 * 0xff51afd7ed558ccdULL);
}

std::vector<size_t> cut_points(const std::string& data, const std::vector<uint32_t>& gear) {
    std::vector<size_t> cuts;
    uint32_t h = 0;
    size_t start = 0;
    for (size_t i = 0; i < data.size(); i++) {
        h = (h << 1) + gear[static_cast<unsigned char>(data[i])];
        size_t len = i + 1 - start;
        if ((len >= kMinChunk && (h & kMaskBits) == 0) || len >= kMaxChunk) {
            cuts.push_back(i + 1);
            start = i + 1;
            h = 0;
        }
    }
    if (start < data.size()) cuts.push_back(data.size());
    return cuts;
}

fs::path object_path(const fs::path& root, uint64_t id, std::string* hex_out = nullptr) {
    std::ostringstream o;
    o << std::hex << std::setw(16) << std::setfill('0') << id;
    std::string h = o.str();
    if (hex_out) *hex_out = h;
    return root / "objects" / h.substr(0, 2) / h.substr(2);
}

// Small LZ77 codec for loose objects.  Token byte < 0x80: literal run of
// (b+1) bytes follows; token >= 0x80: match of length (b-0x80+4) at a
// 16-bit distance that follows.  Matches are found through hash chains.
std::vector<unsigned char> lz_compress(const char* src, size_t n) {
    constexpr int kHashBits = 14, kDepth = 24;
    constexpr size_t kWindow = 65535, kMaxMatch = 131;
    std::vector<int32_t> head(1 << kHashBits, -1), prev(n, -1);
    std::vector<unsigned char> out;
    out.reserve(n / 2 + 16);
    uint32_t raw = static_cast<uint32_t>(n);
    out.insert(out.end(), reinterpret_cast<unsigned char*>(&raw), reinterpret_cast<unsigned char*>(&raw) + 4);
    auto hash4 = [&](size_t i) {
        uint32_t v;
        std::memcpy(&v, src + i, 4);
        return (v * 2654435761u) >> (32 - kHashBits);
    };
    size_t lit_start = 0, i = 0;
    auto flush_literals = [&](size_t end) {
        while (lit_start < end) {
            size_t run = std::min<size_t>(128, end - lit_start);
            out.push_back(static_cast<unsigned char>(run - 1));
            out.insert(out.end(), src + lit_start, src + lit_start + run);
            lit_start += run;
        }
    };
    while (i + 4 <= n) {
        uint32_t h = hash4(i);
        size_t best_len = 0, best_dist = 0;
        int32_t cand = head[h];
        for (int d = 0; d < kDepth && cand >= 0 && i - cand <= kWindow; d++, cand = prev[cand]) {
            size_t l = 0, maxl = std::min(kMaxMatch, n - i);
            while (l < maxl && src[cand + l] == src[i + l]) l++;
            if (l > best_len) { best_len = l; best_dist = i - cand; }
        }
        size_t step = best_len >= 4 ? best_len : 1;
        if (best_len >= 4) {
            flush_literals(i);
            out.push_back(static_cast<unsigned char>(0x80 + best_len - 4));
            out.push_back(static_cast<unsigned char>(best_dist & 0xff));
            out.push_back(static_cast<unsigned char>(best_dist >> 8));
            lit_start = i + best_len;
        }
        for (size_t k = 0; k < step && i + 4 <= n; k++, i++) {
            uint32_t hk = hash4(i);
            prev[i] = head[hk];
            head[hk] = static_cast<int32_t>(i);
        }
        i = std::max(i, lit_start);
    }
    flush_literals(n);
    return out;
}

std::string lz_decompress(const std::vector<char>& in) {
    uint32_t raw;
    std::memcpy(&raw, in.data(), 4);
    std::string out;
    out.reserve(raw);
    size_t p = 4;
    while (p < in.size()) {
        unsigned char t = static_cast<unsigned char>(in[p++]);
        if (t < 0x80) {
            out.append(in.data() + p, t + 1u);
            p += t + 1u;
        } else {
            size_t len = t - 0x80 + 4;
            size_t dist = static_cast<unsigned char>(in[p]) | (static_cast<unsigned char>(in[p + 1]) << 8);
            p += 2;
            size_t from = out.size() - dist;
            for (size_t k = 0; k < len; k++) out.push_back(out[from + k]);
        }
    }
    return out;
}

Manifest ingest_snapshot(const fs::path& root, int snap, const std::vector<uint32_t>& gear,
                         std::set<uint64_t>& known, Stats& st) {
    Manifest m;
    m.snapshot = snap;
    for (int d = 0; d < kDocs; d++) {
        std::string data = make_document(d, snap);
        std::string name = "doc_" + std::to_string(d) + ".txt";
        size_t prev = 0;
        for (size_t cut : cut_points(data, gear)) {
            uint64_t id = fingerprint(data.data() + prev, cut - prev);
            m.docs[name].push_back({id, static_cast<uint32_t>(cut - prev)});
            st.chunks_seen++;
            if (known.insert(id).second) {
                fs::path p = object_path(root, id);
                fs::create_directories(p.parent_path());
                auto packed = lz_compress(data.data() + prev, cut - prev);
                std::ofstream out(p, std::ios::binary);
                out.write(reinterpret_cast<const char*>(packed.data()), static_cast<std::streamsize>(packed.size()));
                st.chunks_stored++;
                st.bytes_stored += packed.size();
            }
            prev = cut;
        }
    }
    std::ofstream mf(root / "manifests" / ("snapshot_" + std::to_string(snap) + ".txt"));
    mf << "snapshot " << snap << "\n";
    for (const auto& [doc, refs] : m.docs) {
        mf << "doc " << doc << " " << refs.size() << "\n";
        for (const auto& r : refs) {
            std::string hex;
            object_path(root, r.id, &hex);
            mf << hex << " " << r.len << "\n";
        }
    }
    return m;
}

Manifest load_manifest(const fs::path& p) {
    Manifest m;
    std::ifstream in(p);
    std::string word, doc;
    in >> word >> m.snapshot;
    size_t n;
    while (in >> word >> doc >> n) {
        auto& v = m.docs[doc];
        for (size_t i = 0; i < n; i++) {
            std::string hex;
            uint32_t len;
            in >> hex >> len;
            v.push_back({std::stoull(hex, nullptr, 16), len});
        }
    }
    return m;
}

size_t verify_snapshot(const fs::path& root, const Manifest& m) {
    size_t bad = 0;
    std::vector<char> buf;
    for (const auto& [doc, refs] : m.docs) {
        std::string rebuilt;
        for (const auto& r : refs) {
            fs::path p = object_path(root, r.id);
            std::ifstream in(p, std::ios::binary);
            buf.resize(fs::file_size(p));
            in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            std::string chunk = lz_decompress(buf);
            if (chunk.size() != r.len || fingerprint(chunk.data(), chunk.size()) != r.id) bad++;
            rebuilt += chunk;
        }
        int d = std::stoi(doc.substr(4));
        if (rebuilt != make_document(d, m.snapshot)) bad++;
    }
    return bad;
}

size_t sweep_unreferenced(const fs::path& root, const std::set<uint64_t>& live) {
    std::vector<fs::path> dead;
    for (const auto& e : fs::recursive_directory_iterator(root / "objects")) {
        if (!e.is_regular_file()) continue;
        std::string hex = e.path().parent_path().filename().string() + e.path().filename().string();
        if (!live.count(std::stoull(hex, nullptr, 16))) dead.push_back(e.path());
    }
    for (const auto& p : dead) fs::remove(p);
    return dead.size();
}

size_t write_pack(const fs::path& root, const std::set<uint64_t>& live) {
    std::ofstream pack(root / "vault.pack", std::ios::binary);
    std::vector<std::pair<uint64_t, uint64_t>> index;  // id, offset
    std::vector<char> buf;
    uint64_t off = 0;
    for (uint64_t id : live) {
        fs::path p = object_path(root, id);
        auto len = fs::file_size(p);
        buf.resize(len);
        std::ifstream in(p, std::ios::binary);
        in.read(buf.data(), static_cast<std::streamsize>(len));
        uint32_t l32 = static_cast<uint32_t>(len);
        pack.write(reinterpret_cast<const char*>(&id), sizeof id);
        pack.write(reinterpret_cast<const char*>(&l32), sizeof l32);
        pack.write(buf.data(), static_cast<std::streamsize>(len));
        index.emplace_back(id, off);
        off += sizeof id + sizeof l32 + len;
    }
    std::sort(index.begin(), index.end());
    std::ofstream idx(root / "vault.idx", std::ios::binary);
    uint64_t n = index.size();
    idx.write(reinterpret_cast<const char*>(&n), sizeof n);
    for (const auto& [id, o] : index) {
        idx.write(reinterpret_cast<const char*>(&id), sizeof id);
        idx.write(reinterpret_cast<const char*>(&o), sizeof o);
    }
    return index.size();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    fs::path root = fs::path(argv[1]) / "vault";
    fs::create_directories(root / "manifests");
    auto gear = make_gear_table();
    std::set<uint64_t> known;
    Stats st;
    for (int s = 0; s < kSnapshots; s++) ingest_snapshot(root, s, gear, known, st);

    Manifest check = load_manifest(root / "manifests" / "snapshot_4.txt");
    size_t bad = verify_snapshot(root, check);

    // retention: keep the last three snapshots only
    std::set<uint64_t> live;
    for (int s = 0; s < kSnapshots; s++) {
        fs::path mp = root / "manifests" / ("snapshot_" + std::to_string(s) + ".txt");
        if (s < kSnapshots - 3) {
            fs::remove(mp);
            continue;
        }
        for (const auto& [doc, refs] : load_manifest(mp).docs)
            for (const auto& r : refs) live.insert(r.id);
    }
    size_t swept = sweep_unreferenced(root, live);
    size_t packed = write_pack(root, live);

    std::ofstream rep(fs::path(argv[1]) / "vault_report.txt");
    rep << "chunks_seen " << st.chunks_seen << "\nchunks_stored " << st.chunks_stored
        << "\nbytes_stored " << st.bytes_stored << "\nverify_errors " << bad
        << "\nswept " << swept << "\npacked " << packed << "\n";
    std::cout << "seen " << st.chunks_seen << " stored " << st.chunks_stored << " bad " << bad
              << " swept " << swept << " packed " << packed << "\n";
    return bad == 0 ? 0 : 1;
}
