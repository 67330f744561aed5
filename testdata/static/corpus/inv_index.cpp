// Inverted index over a generated document collection.
//
// 1. A corpus of text documents is generated, one file per document, with
//    words drawn from a Zipf-like synthetic vocabulary.
// 2. Every document is read back line by line, tokenised (lower case,
//    alphanumeric runs) and term frequencies are collected into posting lists.
// 3. The index is written to a single binary file: header, a term dictionary
//    (term, offset, document frequency) and the posting lists (doc id, tf).
// 4. The dictionary is loaded from the file and a batch of one- and two-term
//    queries is answered by seeking to the posting lists (seekg + read);
//    results are checked against the in-memory index.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

const int kNumDocs = 360;
const int kVocab = 6000;
const int kWordsPerDocMin = 1500;
const int kWordsPerDocMax = 3500;
const int kNumQueries = 4000;
const uint32_t kMagic = 0x58444e49;  // "INDX"

struct Posting {
    uint32_t doc;
    uint32_t tf;
};

struct DictEntry {
    uint64_t offset;
    uint32_t df;
};

class SplitMix {
public:
    explicit SplitMix(uint64_t s) : x_(s) {}
    uint64_t next() {
        uint64_t z = (x_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }

private:
    uint64_t x_;
};

std::vector<std::string> make_vocabulary(SplitMix &rng)
{
    static const char *syll[] = {"ka", "lo", "mi", "ren", "tu", "sa", "vel", "or", "qui", "ne",
                                 "da", "fis", "gor", "ha", "ix", "jo", "pul", "ter", "um", "zen"};
    std::vector<std::string> v;
    std::unordered_map<std::string, int> seen;
    while ((int)v.size() < kVocab) {
        int ns = 1 + (int)(rng.next() % 4);
        std::string w;
        for (int i = 0; i < ns; i++) w += syll[rng.next() % 20];
        if (seen.emplace(w, 1).second) v.push_back(w);
    }
    return v;
}

std::string doc_path(const std::string &dir, int d)
{
    char name[64];
    std::snprintf(name, sizeof name, "/doc_%04d.txt", d);
    return dir + name;
}

void write_documents(const std::string &dir, const std::vector<std::string> &vocab, SplitMix &rng)
{
    // cumulative Zipf(1.05) distribution over the vocabulary
    std::vector<double> cdf(kVocab);
    double s = 0.0;
    for (int i = 0; i < kVocab; i++) {
        s += 1.0 / std::pow(i + 1.0, 1.05);
        cdf[i] = s;
    }
    for (auto &c : cdf) c /= s;
    for (int d = 0; d < kNumDocs; d++) {
        std::ofstream out(doc_path(dir, d));
        if (!out) {
            std::cerr << "cannot create document " << d << "\n";
            std::exit(1);
        }
        int nwords = kWordsPerDocMin + (int)(rng.next() % (kWordsPerDocMax - kWordsPerDocMin));
        out << "Document " << d << "\n";
        int col = 0;
        for (int w = 0; w < nwords; w++) {
            int idx = (int)(std::lower_bound(cdf.begin(), cdf.end(), rng.uniform()) - cdf.begin());
            if (idx >= kVocab) idx = kVocab - 1;
            std::string word = vocab[idx];
            if (rng.next() % 17 == 0) word[0] = (char)std::toupper((unsigned char)word[0]);
            out << word;
            col += (int)word.size() + 1;
            if (rng.next() % 13 == 0) out << ',';
            if (col > 70) {
                out << ".\n";
                col = 0;
            } else {
                out << ' ';
            }
        }
        out << "\n";
    }
}

using Index = std::map<std::string, std::vector<Posting>>;

void tokenise_document(const std::string &path, uint32_t doc, Index &index)
{
    std::ifstream in(path);
    if (!in) {
        std::cerr << "cannot open " << path << "\n";
        std::exit(1);
    }
    std::unordered_map<std::string, uint32_t> tf;
    std::string line, tok;
    while (std::getline(in, line)) {
        tok.clear();
        for (size_t i = 0; i <= line.size(); i++) {
            char c = i < line.size() ? line[i] : ' ';
            if (std::isalnum((unsigned char)c)) {
                tok += (char)std::tolower((unsigned char)c);
            } else if (!tok.empty()) {
                tf[tok]++;
                tok.clear();
            }
        }
    }
    for (const auto &kv : tf) index[kv.first].push_back(Posting{doc, kv.second});
}

Index build_index(const std::string &dir)
{
    Index index;
    for (int d = 0; d < kNumDocs; d++) tokenise_document(doc_path(dir, d), (uint32_t)d, index);
    return index;
}

void write_index(const std::string &path, const Index &index)
{
    std::ofstream out(path, std::ios::binary);
    uint32_t nterms = (uint32_t)index.size();
    // layout: magic, nterms, dictionary, postings
    uint64_t dict_bytes = 0;
    for (const auto &kv : index) dict_bytes += 2 + kv.first.size() + 8 + 4;
    uint64_t offset = 8 + dict_bytes;
    out.write(reinterpret_cast<const char *>(&kMagic), 4);
    out.write(reinterpret_cast<const char *>(&nterms), 4);
    for (const auto &kv : index) {
        uint16_t len = (uint16_t)kv.first.size();
        uint32_t df = (uint32_t)kv.second.size();
        out.write(reinterpret_cast<const char *>(&len), 2);
        out.write(kv.first.data(), len);
        out.write(reinterpret_cast<const char *>(&offset), 8);
        out.write(reinterpret_cast<const char *>(&df), 4);
        offset += (uint64_t)df * sizeof(Posting);
    }
    for (const auto &kv : index)
        out.write(reinterpret_cast<const char *>(kv.second.data()), kv.second.size() * sizeof(Posting));
    out.close();
    if (!out) {
        std::cerr << "error writing index\n";
        std::exit(1);
    }
}

std::unordered_map<std::string, DictEntry> load_dictionary(std::ifstream &in)
{
    std::unordered_map<std::string, DictEntry> dict;
    uint32_t magic = 0, nterms = 0;
    in.read(reinterpret_cast<char *>(&magic), 4);
    in.read(reinterpret_cast<char *>(&nterms), 4);
    if (!in || magic != kMagic) {
        std::cerr << "bad index header\n";
        std::exit(1);
    }
    std::string term;
    for (uint32_t i = 0; i < nterms; i++) {
        uint16_t len;
        DictEntry e;
        in.read(reinterpret_cast<char *>(&len), 2);
        term.resize(len);
        in.read(&term[0], len);
        in.read(reinterpret_cast<char *>(&e.offset), 8);
        in.read(reinterpret_cast<char *>(&e.df), 4);
        dict.emplace(term, e);
    }
    if (!in) {
        std::cerr << "truncated dictionary\n";
        std::exit(1);
    }
    return dict;
}

std::vector<Posting> fetch_postings(std::ifstream &in, const DictEntry &e)
{
    std::vector<Posting> p(e.df);
    in.seekg((std::streamoff)e.offset);
    in.read(reinterpret_cast<char *>(p.data()), (std::streamsize)e.df * sizeof(Posting));
    return p;
}

// Score = sum over terms of tf * idf for documents containing all terms.
std::vector<std::pair<uint32_t, double>> and_query(const std::vector<std::vector<Posting>> &lists)
{
    std::vector<std::pair<uint32_t, double>> hits;
    if (lists.empty()) return hits;
    std::vector<size_t> pos(lists.size(), 0);
    const auto &first = lists[0];
    for (const Posting &p : first) {
        double score = p.tf * std::log((double)kNumDocs / first.size());
        bool all = true;
        for (size_t l = 1; l < lists.size() && all; l++) {
            const auto &lst = lists[l];
            while (pos[l] < lst.size() && lst[pos[l]].doc < p.doc) pos[l]++;
            if (pos[l] == lst.size() || lst[pos[l]].doc != p.doc) all = false;
            else score += lst[pos[l]].tf * std::log((double)kNumDocs / lst.size());
        }
        if (all) hits.emplace_back(p.doc, score);
    }
    return hits;
}

int run_queries(const std::string &path, const Index &index, const std::vector<std::string> &vocab,
                SplitMix &rng, long &total_hits)
{
    std::ifstream in(path, std::ios::binary);
    auto dict = load_dictionary(in);
    int errors = 0;
    if (dict.size() != index.size()) errors++;
    total_hits = 0;
    for (int q = 0; q < kNumQueries; q++) {
        int nterms = 1 + (int)(rng.next() % 2);
        std::vector<std::string> terms;
        for (int t = 0; t < nterms; t++) {
            // favour mid-frequency terms
            int idx = (int)(rng.next() % 400) + (int)(rng.next() % 5) * 200;
            terms.push_back(vocab[idx]);
        }
        std::vector<std::vector<Posting>> from_file, from_mem;
        bool missing = false;
        for (const auto &t : terms) {
            auto it = dict.find(t);
            auto im = index.find(t);
            if (it == dict.end() || im == index.end()) {
                if ((it == dict.end()) != (im == index.end())) errors++;
                missing = true;
                break;
            }
            from_file.push_back(fetch_postings(in, it->second));
            from_mem.push_back(im->second);
        }
        if (missing) continue;
        auto a = and_query(from_file);
        auto b = and_query(from_mem);
        if (a != b) errors++;
        total_hits += (long)a.size();
    }
    return errors;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    std::string dir = argv[1];
    SplitMix rng(424242);
    auto vocab = make_vocabulary(rng);
    write_documents(dir, vocab, rng);
    Index index = build_index(dir);
    std::string ipath = dir + "/postings.idx";
    write_index(ipath, index);
    long hits = 0;
    int errors = run_queries(ipath, index, vocab, rng, hits);

    size_t npost = 0;
    for (const auto &kv : index) npost += kv.second.size();
    std::cout << "inv_index: " << kNumDocs << " docs, " << index.size() << " terms, " << npost
              << " postings, " << kNumQueries << " queries, " << hits << " hits, " << errors
              << " errors\n";
    return errors == 0 ? 0 : 1;
}
