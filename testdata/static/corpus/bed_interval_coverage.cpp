// Read-coverage toolkit for interval data: synthesizes an unsorted BED file
// of aligned sequencing fragments (with enriched "peak" regions), parses it
// with stream extraction, sorts and merges intervals per chromosome, runs an
// event sweep to emit bedGraph depth tracks (one file per chromosome),
// computes a strand cross-correlation profile (fragment-length estimate),
// writes a binned binary depth index, answers gene-region queries with
// seekg()/read() on that index, and calls enriched windows.
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

static const int N_CHROM = 8;
static const long CHROM_LEN = 4000000;
static const long N_READS = 800000;
static const int BIN = 50;
static const int N_GENES = 3000;
static const int PEAK_WIN = 20;   // bins
static const int XC_RES = 5;      // bp per cross-correlation cell
static const int XC_SHIFTS = 100;

struct Interval {
    long start, end;
    int score;
    char strand;
};

struct ChromData {
    std::vector<Interval> iv;
    std::vector<std::pair<long, long>> merged;
    std::vector<uint16_t> bins;
};

static uint64_t rng = 0xA5A5F00DBEEF1234ull;
static uint64_t next_u64()
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static std::string chrom_name(int c) { return "chr" + std::to_string(c + 1); }

static void generate_reads(const fs::path &bed)
{
    std::ofstream out(bed);
    std::vector<long> peaks;
    for (int k = 0; k < 400; k++) peaks.push_back(static_cast<long>(next_u64() % (CHROM_LEN - 5000)));
    for (long r = 0; r < N_READS; r++) {
        int c = static_cast<int>(next_u64() % N_CHROM);
        long len = 120 + static_cast<long>(next_u64() % 380);
        long s;
        if (next_u64() % 5 == 0) {  // enriched fragments near a peak centre
            long p = peaks[next_u64() % peaks.size()];
            s = p + static_cast<long>(next_u64() % 1500);
        } else {
            s = static_cast<long>(next_u64() % (CHROM_LEN - len));
        }
        out << chrom_name(c) << '\t' << s << '\t' << s + len << "\tfrag" << r << '\t' << next_u64() % 61 << '\t'
            << ((next_u64() & 1) ? '+' : '-') << '\n';
    }
}

static std::map<std::string, ChromData> load_bed(const fs::path &bed, long &n)
{
    std::ifstream in(bed);
    std::map<std::string, ChromData> m;
    std::string chrom, name;
    Interval iv;
    n = 0;
    while (in >> chrom >> iv.start >> iv.end >> name >> iv.score >> iv.strand) {
        if (iv.score < 10) continue;  // mapping-quality filter
        m[chrom].iv.push_back(iv);
        n++;
    }
    return m;
}

static void merge_intervals(ChromData &cd)
{
    std::sort(cd.iv.begin(), cd.iv.end(), [](const Interval &a, const Interval &b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    for (const auto &x : cd.iv) {
        if (!cd.merged.empty() && x.start <= cd.merged.back().second)
            cd.merged.back().second = std::max(cd.merged.back().second, x.end);
        else
            cd.merged.emplace_back(x.start, x.end);
    }
}

// event sweep: writes run-length depth segments and fills the bin maxima
static long depth_sweep(const std::string &chrom, ChromData &cd, const fs::path &out_path)
{
    std::vector<std::pair<long, int>> ev;
    ev.reserve(cd.iv.size() * 2);
    for (const auto &x : cd.iv) {
        ev.emplace_back(x.start, +1);
        ev.emplace_back(x.end, -1);
    }
    std::sort(ev.begin(), ev.end());
    cd.bins.assign(static_cast<size_t>(CHROM_LEN / BIN + 1), 0);
    std::ofstream out(out_path);
    out << "track type=bedGraph name=" << chrom << "_depth\n";
    int depth = 0;
    long prev = 0, segments = 0;
    for (size_t i = 0; i < ev.size();) {
        long pos = ev[i].first;
        if (depth > 0 && pos > prev) {
            out << chrom << '\t' << prev << '\t' << pos << '\t' << depth << '\n';
            segments++;
            for (long b = prev / BIN; b <= (pos - 1) / BIN; b++)
                cd.bins[static_cast<size_t>(b)] = std::max<uint16_t>(cd.bins[static_cast<size_t>(b)], static_cast<uint16_t>(depth));
        }
        while (i < ev.size() && ev[i].first == pos) depth += ev[i++].second;
        prev = pos;
    }
    return segments;
}

static void write_bin_index(const fs::path &path, const std::map<std::string, ChromData> &m)
{
    std::ofstream out(path, std::ios::binary);
    uint32_t nc = static_cast<uint32_t>(m.size()), nb = static_cast<uint32_t>(CHROM_LEN / BIN + 1);
    out.write(reinterpret_cast<const char *>(&nc), sizeof nc);
    out.write(reinterpret_cast<const char *>(&nb), sizeof nb);
    for (const auto &kv : m) out.write(reinterpret_cast<const char *>(kv.second.bins.data()), nb * sizeof(uint16_t));
}

// per-gene mean depth via random access into the binary index
static void query_genes(const fs::path &index, const fs::path &tsv, const std::vector<std::string> &names)
{
    std::ifstream in(index, std::ios::binary);
    uint32_t nc, nb;
    in.read(reinterpret_cast<char *>(&nc), sizeof nc);
    in.read(reinterpret_cast<char *>(&nb), sizeof nb);
    std::ofstream out(tsv);
    out << "gene\tchrom\tstart\tend\tmean_depth\tmax_depth\n";
    std::vector<uint16_t> buf;
    for (int g = 0; g < N_GENES; g++) {
        uint32_t c = static_cast<uint32_t>(next_u64() % nc);
        long glen = 2000 + static_cast<long>(next_u64() % 30000);
        long s = static_cast<long>(next_u64() % static_cast<uint64_t>(CHROM_LEN - glen));
        long b0 = s / BIN, b1 = (s + glen) / BIN;
        buf.resize(static_cast<size_t>(b1 - b0 + 1));
        in.seekg(8 + (static_cast<std::streamoff>(c) * nb + b0) * 2);
        in.read(reinterpret_cast<char *>(buf.data()), static_cast<std::streamsize>(buf.size() * 2));
        double sum = 0;
        uint16_t mx = 0;
        for (auto v : buf) {
            sum += v;
            mx = std::max(mx, v);
        }
        out << "gene" << std::setw(5) << std::setfill('0') << g << std::setfill(' ') << '\t' << names[c] << '\t' << s
            << '\t' << s + glen << '\t' << std::fixed << std::setprecision(2) << sum / buf.size() << '\t' << mx << '\n';
    }
}

// strand cross-correlation: Pearson correlation of + strand 5' ends with
// - strand 5' ends shifted by d; the argmax estimates fragment length
static void strand_xcorr(const ChromData &cd, std::vector<double> &acc)
{
    size_t n = static_cast<size_t>(CHROM_LEN / XC_RES + 1);
    std::vector<float> plus(n, 0.f), minus(n, 0.f);
    for (const auto &x : cd.iv) {
        if (x.strand == '+') plus[static_cast<size_t>(x.start / XC_RES)] += 1.f;
        else minus[static_cast<size_t>((x.end - 1) / XC_RES)] += 1.f;
    }
    double mp = 0, mm = 0;
    for (size_t i = 0; i < n; i++) { mp += plus[i]; mm += minus[i]; }
    mp /= n; mm /= n;
    double vp = 0, vm = 0;
    for (size_t i = 0; i < n; i++) { vp += (plus[i] - mp) * (plus[i] - mp); vm += (minus[i] - mm) * (minus[i] - mm); }
    for (int d = 0; d < XC_SHIFTS; d++) {
        double c = 0;
        for (size_t i = 0; i + d < n; i++) c += (plus[i] - mp) * (minus[i + d] - mm);
        acc[static_cast<size_t>(d)] += c / std::sqrt(vp * vm + 1e-30);
    }
}

// sliding-window enrichment relative to the chromosome-wide mean
static int call_peaks(const std::string &chrom, const ChromData &cd, std::ofstream &out)
{
    double mean = 0;
    for (auto v : cd.bins) mean += v;
    mean /= static_cast<double>(cd.bins.size());
    int npk = 0;
    double win = 0;
    bool in_peak = false;
    long pk_start = 0;
    for (size_t b = 0; b < cd.bins.size(); b++) {
        win += cd.bins[b];
        if (b >= static_cast<size_t>(PEAK_WIN)) win -= cd.bins[b - PEAK_WIN];
        double avg = win / PEAK_WIN;
        bool hot = avg > 3.0 * mean + 2.0;
        if (hot && !in_peak) {
            in_peak = true;
            pk_start = static_cast<long>(b) - PEAK_WIN + 1;
        } else if (!hot && in_peak) {
            in_peak = false;
            out << chrom << '\t' << std::max(0L, pk_start) * BIN << '\t' << static_cast<long>(b) * BIN << "\tpeak_"
                << chrom << '_' << npk++ << '\n';
        }
    }
    return npk;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 1;
    }
    fs::path dir(argv[1]);
    fs::create_directories(dir / "bedgraph");
    generate_reads(dir / "fragments.bed");
    long kept;
    auto chroms = load_bed(dir / "fragments.bed", kept);
    std::vector<std::string> names;
    std::ofstream merged_out(dir / "merged.bed");
    std::ofstream peaks_out(dir / "peaks.bed");
    long segs = 0;
    int peaks = 0;
    std::vector<double> xc(XC_SHIFTS, 0.0);
    for (auto &kv : chroms) {
        names.push_back(kv.first);
        merge_intervals(kv.second);
        for (const auto &m : kv.second.merged) merged_out << kv.first << '\t' << m.first << '\t' << m.second << '\n';
        segs += depth_sweep(kv.first, kv.second, dir / "bedgraph" / (kv.first + ".bedgraph"));
        peaks += call_peaks(kv.first, kv.second, peaks_out);
        strand_xcorr(kv.second, xc);
    }
    {
        std::ofstream xo(dir / "strand_xcorr.txt");
        int best = 0;
        for (int d = 0; d < XC_SHIFTS; d++) {
            xo << d * XC_RES << ' ' << std::setprecision(6) << xc[static_cast<size_t>(d)] / chroms.size() << '\n';
            if (xc[static_cast<size_t>(d)] > xc[static_cast<size_t>(best)]) best = d;
        }
        xo << "# estimated_fragment_length " << best * XC_RES << '\n';
    }
    merged_out.close();
    peaks_out.close();
    write_bin_index(dir / "depth_bins.u16", chroms);
    query_genes(dir / "depth_bins.u16", dir / "gene_coverage.tsv", names);
    std::cout << "kept=" << kept << " bedgraph_segments=" << segs << " peaks=" << peaks << '\n';
    return 0;
}
