// bigram_corpus_report: writes a synthetic multi-file text corpus (Zipf
// distributed words built from syllables, with capitals and punctuation),
// then reads every file line by line with std::ifstream/getline, tokenises,
// and counts words and word bigrams in std::unordered_map plus per-word
// document frequencies in a std::map.  A sorted report is written and read
// back to check that the counts add up to the number of generated tokens.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

const int kFiles = 40;
const int kLinesPerFile = 1400;
const int kVocab = 2500;
const double kZipfS = 1.07;
const size_t kTopBigrams = 400;

struct Rng {
    std::uint64_t s;
    std::uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ULL;
    }
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    int range(int lo, int hi) { return lo + static_cast<int>(uniform() * (hi - lo + 1)); }
};

std::vector<std::string> make_vocabulary(Rng &rng) {
    static const char *syll[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua",
                                 "bri", "sto", "pla", "gen", "dor", "fel", "hin", "jax", "wum", "yel"};
    const int nsyll = sizeof(syll) / sizeof(syll[0]);
    std::set<std::string> seen;
    std::vector<std::string> v;
    while (static_cast<int>(v.size()) < kVocab) {
        std::string w;
        int n = rng.range(1, 4);
        for (int k = 0; k < n; ++k) w += syll[rng.range(0, nsyll - 1)];
        if (seen.insert(w).second) v.push_back(w);
    }
    return v;
}

std::vector<double> zipf_cdf() {
    std::vector<double> c(kVocab);
    double acc = 0.0;
    for (int r = 0; r < kVocab; ++r) {
        acc += 1.0 / std::pow(r + 1.0, kZipfS);
        c[r] = acc;
    }
    for (double &x : c) x /= acc;
    return c;
}

int zipf_draw(const std::vector<double> &cdf, Rng &rng) {
    double u = rng.uniform();
    return static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()) % kVocab;
}

// returns number of tokens written
long write_corpus(const std::string &dir, const std::vector<std::string> &vocab,
                  const std::vector<double> &cdf, Rng &rng) {
    long tokens = 0;
    for (int f = 0; f < kFiles; ++f) {
        char name[64];
        std::snprintf(name, sizeof name, "/doc_%03d.txt", f);
        std::ofstream out(dir + name);
        if (!out) throw std::runtime_error("cannot create corpus file");
        for (int l = 0; l < kLinesPerFile; ++l) {
            int nw = rng.range(5, 17);
            for (int k = 0; k < nw; ++k) {
                std::string w = vocab[zipf_draw(cdf, rng)];
                if (k == 0) w[0] = static_cast<char>(std::toupper(w[0]));
                out << w;
                if (k + 1 < nw) out << (rng.uniform() < 0.08 ? ", " : " ");
            }
            out << (rng.uniform() < 0.15 ? "?\n" : ".\n");
            tokens += nw;
        }
    }
    return tokens;
}

void tokenize_line(const std::string &line, std::vector<std::string> &toks) {
    toks.clear();
    std::string cur;
    for (char ch : line) {
        if (std::isalpha(static_cast<unsigned char>(ch))) {
            cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        } else if (!cur.empty()) {
            toks.push_back(cur);
            cur.clear();
        }
    }
    if (!cur.empty()) toks.push_back(cur);
}

struct Counts {
    std::unordered_map<std::string, long> unigram;
    std::unordered_map<std::string, long> bigram;
    std::map<std::string, int> doc_freq;
    long tokens = 0;
};

void count_file(const std::string &path, Counts &c) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::string line;
    std::vector<std::string> toks;
    std::unordered_map<std::string, bool> in_doc;
    while (std::getline(in, line)) {
        tokenize_line(line, toks);
        for (size_t k = 0; k < toks.size(); ++k) {
            ++c.unigram[toks[k]];
            in_doc[toks[k]] = true;
            if (k > 0) ++c.bigram[toks[k - 1] + ' ' + toks[k]];
        }
        c.tokens += static_cast<long>(toks.size());
    }
    for (const auto &kv : in_doc) ++c.doc_freq[kv.first];
}

template <class Map>
std::vector<std::pair<std::string, long>> sorted_by_count(const Map &m) {
    std::vector<std::pair<std::string, long>> v(m.begin(), m.end());
    std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    return v;
}

void write_report(const std::string &path, const Counts &c) {
    std::ofstream out(path);
    out << "tokens " << c.tokens << " types " << c.unigram.size() << " bigram_types " << c.bigram.size() << "\n";
    auto bi = sorted_by_count(c.bigram);
    out << "[bigrams]\n";
    for (size_t k = 0; k < std::min(kTopBigrams, bi.size()); ++k) out << bi[k].second << '\t' << bi[k].first << '\n';
    out << "[unigrams]\n";
    for (const auto &kv : sorted_by_count(c.unigram)) {
        auto it = c.doc_freq.find(kv.first);
        out << kv.second << '\t' << kv.first << '\t' << (it == c.doc_freq.end() ? 0 : it->second) << '\n';
    }
    out << "[end]\n";
}

long reread_unigram_total(const std::string &path) {
    std::ifstream in(path);
    std::string line;
    bool in_uni = false;
    long total = 0, prev = -1;
    while (std::getline(in, line)) {
        if (line == "[unigrams]") { in_uni = true; continue; }
        if (line == "[end]") break;
        if (!in_uni) continue;
        std::istringstream ss(line);
        long n;
        ss >> n;
        if (prev >= 0 && n > prev) return -1;  // must be sorted descending
        prev = n;
        total += n;
    }
    return total;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::cerr << "usage: bigram_corpus_report DIR\n";
        return 1;
    }
    std::string dir = argv[1];
    mkdir(dir.c_str(), 0755);
    std::string cdir = dir + "/corpus";
    mkdir(cdir.c_str(), 0755);

    Rng rng{0x5eed5eed1234ULL};
    auto vocab = make_vocabulary(rng);
    auto cdf = zipf_cdf();
    long generated = write_corpus(cdir, vocab, cdf, rng);

    Counts c;
    for (int f = 0; f < kFiles; ++f) {
        char name[64];
        std::snprintf(name, sizeof name, "/doc_%03d.txt", f);
        count_file(cdir + name, c);
    }
    if (c.tokens != generated) {
        std::cerr << "bigram_corpus_report: counted " << c.tokens << " tokens, generated " << generated << "\n";
        return 2;
    }
    write_report(dir + "/report.txt", c);
    long back = reread_unigram_total(dir + "/report.txt");
    if (back != generated) {
        std::cerr << "bigram_corpus_report: report sums to " << back << ", expected " << generated << "\n";
        return 3;
    }
    std::cout << "bigram_corpus_report: " << generated << " tokens, " << c.unigram.size() << " types, "
              << c.bigram.size() << " bigram types\n";
    return 0;
}
