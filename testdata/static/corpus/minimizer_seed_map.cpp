// Toy read mapper: writes a synthetic reference genome (FASTA) and a set of
// simulated reads (FASTQ), builds a (w,k)-minimizer index saved to a binary
// file, reloads it and maps each read by diagonal voting; output is SAM-like.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int kGenomeLen = 4200000;
constexpr int kNumContigs = 6;
constexpr int kK = 15;
constexpr int kW = 10;
constexpr int kNumReads = 100000;
constexpr int kReadLen = 150;
constexpr double kErrRate = 0.02;

// xorshift64 step on a local state variable (kept as a macro: hot loops)
#define XS_NEXT(s) ((s) ^= (s) << 13, (s) ^= (s) >> 7, (s) ^= (s) << 17, (s))

struct Contig { std::string name; std::string seq; };

// index anchor: (minimizer hash, contig << 32 | position); sorted lexicographically
using Anchor = std::pair<uint64_t, uint64_t>;

struct Mapping { int contig = -1; long pos = -1; int votes = 0; int mapq = 0; };

std::string dir_path;

std::string in_dir(const std::string& f) { return dir_path + "/" + f; }

void write_reference(const std::string& path)
{
    std::ofstream out(path);
    uint64_t rs = 7;
    const char* bases = "ACGT";
    int per = kGenomeLen / kNumContigs;
    for (int c = 0; c < kNumContigs; ++c) {
        out << ">chr" << (c + 1) << " synthetic len=" << per << "\n";
        std::string line;
        line.reserve(61);
        for (int i = 0; i < per; ++i) {
            uint64_t r = XS_NEXT(rs);
            // low-complexity repeats in a few regions
            line.push_back((i % 50000) < 400 ? bases[(i / 7) & 3] : bases[r & 3]);
            if (line.size() == 60) { out << line << '\n'; line.clear(); }
        }
        if (!line.empty()) out << line << '\n';
    }
}

std::vector<Contig> load_fasta(const std::string& path)
{
    std::ifstream in(path);
    std::vector<Contig> contigs;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '>') {
            contigs.push_back({line.substr(1, line.find(' ') - 1), {}});
            contigs.back().seq.reserve(kGenomeLen / kNumContigs);
        } else {
            contigs.back().seq += line;
        }
    }
    return contigs;
}


// minimizers of a sequence: (hash, position) for each window of kW k-mers
void collect_minimizers(const std::string& s, std::vector<std::pair<uint64_t, uint32_t>>& out)
{
    out.clear();
    const uint64_t mask = (1ULL << (2 * kK)) - 1;
    std::vector<uint64_t> hs;
    hs.reserve(s.size());
    uint64_t code = 0;
    int valid = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        int b;
        switch (s[i]) { case 'A': b = 0; break; case 'C': b = 1; break; case 'G': b = 2; break; case 'T': b = 3; break; default: b = -1; }
        if (b < 0) { valid = 0; code = 0; hs.push_back(~0ULL); continue; }
        code = ((code << 2) | (uint64_t)b) & mask;
        uint64_t x = code;   // invertible integer hash (Thomas Wang)
        x = (~x + (x << 21)); x ^= x >> 24; x = (x + (x << 3)) + (x << 8);
        x ^= x >> 14; x = (x + (x << 2)) + (x << 4); x ^= x >> 28; x += x << 31;
        hs.push_back(++valid >= kK ? x : ~0ULL);
    }
    long last = -1;
    for (size_t e = kK - 1 + kW - 1; e < hs.size(); ++e) {
        size_t best = e - kW + 1;
        for (size_t j = best + 1; j <= e; ++j) if (hs[j] < hs[best]) best = j;
        if (hs[best] != ~0ULL && (long)best != last) { out.emplace_back(hs[best], (uint32_t)(best + 1 - kK)); last = (long)best; }
    }
}

std::vector<Anchor> build_index(const std::vector<Contig>& ref)
{
    std::vector<Anchor> idx;
    std::vector<std::pair<uint64_t, uint32_t>> mins;
    for (uint32_t c = 0; c < ref.size(); ++c) {
        collect_minimizers(ref[c].seq, mins);
        for (auto& m : mins) idx.emplace_back(m.first, ((uint64_t)c << 32) | m.second);
    }
    std::sort(idx.begin(), idx.end());
    return idx;
}

void save_index(const std::string& path, const std::vector<Anchor>& idx)
{
    std::ofstream out(path, std::ios::binary);
    uint64_t n = idx.size();
    out.write("MINIDX01", 8);
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    const size_t chunk = 1 << 14;
    for (size_t i = 0; i < idx.size(); i += chunk) {
        size_t m = std::min(chunk, idx.size() - i);
        out.write(reinterpret_cast<const char*>(idx.data() + i), (std::streamsize)(m * sizeof(Anchor)));
    }
}

std::vector<Anchor> load_index(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[8];
    uint64_t n = 0;
    in.read(magic, 8);
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    std::vector<Anchor> idx(n);
    in.read(reinterpret_cast<char*>(idx.data()), (std::streamsize)(n * sizeof(Anchor)));
    if (!in || std::string(magic, 8) != "MINIDX01") throw std::runtime_error("corrupt index");
    return idx;
}

void simulate_reads(const std::string& path, const std::vector<Contig>& ref)
{
    std::ofstream out(path);
    uint64_t rs = 2024;
    const char* bases = "ACGT";
    for (int r = 0; r < kNumReads; ++r) {
        uint32_t c = XS_NEXT(rs) % ref.size();
        long pos = (long)(XS_NEXT(rs) % (ref[c].seq.size() - kReadLen));
        std::string s = ref[c].seq.substr(pos, kReadLen);
        for (auto& ch : s)
            if ((XS_NEXT(rs) % 10000) < kErrRate * 10000) ch = bases[XS_NEXT(rs) & 3];
        out << '@' << "read" << r << "_" << ref[c].name << "_" << pos << '\n' << s << "\n+\n"
            << std::string(kReadLen, 'I') << '\n';
    }
}

Mapping map_one(const std::string& seq, const std::vector<Anchor>& idx,
                std::vector<std::pair<uint64_t, uint32_t>>& mins)
{
    collect_minimizers(seq, mins);
    std::unordered_map<int64_t, int> votes;
    for (auto& m : mins) {
        auto lo = std::lower_bound(idx.begin(), idx.end(), Anchor(m.first, 0));
        int hits = 0;
        for (auto it = lo; it != idx.end() && it->first == m.first && hits < 32; ++it, ++hits) {
            int64_t contig = (int64_t)(it->second >> 32), pos = (int64_t)(it->second & 0xffffffffu);
            int64_t diag = (contig << 40) + (pos - (int64_t)m.second + (1LL << 30)) / 16;
            ++votes[diag];
        }
    }
    Mapping best;
    int second = 0;
    for (auto& kv : votes) {
        if (kv.second > best.votes) { second = best.votes; best.votes = kv.second; best.contig = (int)(kv.first >> 40);
                                      best.pos = ((kv.first & ((1LL << 40) - 1)) * 16) - (1LL << 30); }
        else if (kv.second > second) second = kv.second;
    }
    best.mapq = best.votes == 0 ? 0 : std::min(60, 60 * (best.votes - second) / best.votes);
    return best;
}

void map_reads(const std::string& fq, const std::string& sam, const std::vector<Anchor>& idx,
               const std::vector<Contig>& ref, int& mapped, int& correct)
{
    std::ifstream in(fq);
    std::ofstream out(sam);
    for (auto& c : ref) out << "@SQ\tSN:" << c.name << "\tLN:" << c.seq.size() << '\n';
    std::string hdr, seq, plus, qual;
    std::vector<std::pair<uint64_t, uint32_t>> mins;
    mapped = correct = 0;
    while (std::getline(in, hdr) && std::getline(in, seq) && std::getline(in, plus) && std::getline(in, qual)) {
        Mapping m = map_one(seq, idx, mins);
        std::string qname = hdr.substr(1);
        if (m.contig < 0) { out << qname << "\t4\t*\t0\t0\t*\t*\t0\t0\t" << seq << '\t' << qual << '\n'; continue; }
        ++mapped;
        size_t u2 = qname.rfind('_');
        long truth = std::stol(qname.substr(u2 + 1));
        if (std::labs(truth - m.pos) < 32 && qname.find(ref[m.contig].name + "_") != std::string::npos) ++correct;
        out << qname << "\t0\t" << ref[m.contig].name << '\t' << std::max(1L, m.pos + 1) << '\t' << m.mapq
            << '\t' << kReadLen << "M\t*\t0\t0\t" << seq << '\t' << qual << "\tNM:i:" << m.votes << '\n';
    }
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) { std::cerr << "usage: " << argv[0] << " dir\n"; return 1; }
    dir_path = argv[1];
    write_reference(in_dir("reference.fa"));
    std::vector<Contig> ref = load_fasta(in_dir("reference.fa"));
    {
        std::vector<Anchor> idx = build_index(ref);
        save_index(in_dir("reference.mmi"), idx);
    }
    std::vector<Anchor> idx = load_index(in_dir("reference.mmi"));
    simulate_reads(in_dir("reads.fq"), ref);
    int mapped = 0, correct = 0;
    map_reads(in_dir("reads.fq"), in_dir("alignments.sam"), idx, ref, mapped, correct);
    std::cout << "contigs=" << ref.size() << " anchors=" << idx.size() << " mapped=" << mapped
              << "/" << kNumReads << " correct=" << correct << "\n";
    return 0;
}
