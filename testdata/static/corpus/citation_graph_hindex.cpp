// citation_graph_hindex.cpp
//
// Bibliometrics over a synthetic citation corpus.  A generator writes a
// tab-separated paper table (id, year, venue, authors, references) grown by
// preferential attachment.  The analysis reloads it with std::ifstream and
// string streams, builds the citation graph, and computes per-author
// h-index / g-index and per-venue citation half-life.  Results go to an
// author leaderboard, one small CSV per venue and year in a directory tree
// (std::filesystem), and a binary CSR snapshot of the graph that is read
// back and cross-checked; finally the venue tree is walked and summed.
//
// usage: citation_graph_hindex DIR

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kPapers = 180000;
constexpr int kAuthors = 9000;
constexpr int kVenues = 24;
constexpr int kFirstYear = 1990;
constexpr int kLastYear = 2023;
constexpr int kMaxRefs = 30;

struct Paper {
    int id = 0;
    int year = 0;
    int venue = 0;
    std::vector<int> authors;
    std::vector<int> refs;
};

struct AuthorStats {
    int papers = 0;
    long citations = 0;
    int h_index = 0;
    int g_index = 0;
};

std::string venue_name(int v)
{
    static const char *kinds[] = {"Journal", "Transactions", "Letters", "Proceedings"};
    static const char *fields[] = {"Computational Physics", "Bioinformatics", "Data Systems",
                                   "Applied Mathematics", "Climate Dynamics", "Networking"};
    return std::string(kinds[v % 4]) + " of " + fields[v % 6] + " " + std::to_string(v / 6 + 1);
}

// Preferential attachment: cite earlier papers with probability ~ (citations + 1).
void generate_corpus(const fs::path &tsv, int npapers)
{
    std::mt19937_64 rng(20240607);
    std::vector<int> attach;  // each entry is a paper id; repeated once per citation received
    attach.reserve(static_cast<size_t>(npapers) * 12);
    std::ofstream out(tsv);
    if (!out) throw std::runtime_error("cannot write " + tsv.string());
    out << "# id\tyear\tvenue\tauthors\treferences\n";
    const int span = kLastYear - kFirstYear + 1;
    for (int id = 0; id < npapers; ++id) {
        int year = kFirstYear + static_cast<int>(static_cast<long>(id) * span / npapers);
        int venue = static_cast<int>(rng() % kVenues);
        int nauth = 1 + static_cast<int>(rng() % 6);
        out << id << '\t' << year << '\t' << venue << '\t';
        for (int a = 0; a < nauth; ++a) {
            // skewed author productivity
            double u = std::generate_canonical<double, 53>(rng);
            int author = static_cast<int>(kAuthors * u * u);
            out << (a ? "," : "") << author;
        }
        out << '\t';
        int nref = id == 0 ? 0 : std::min<int>(id, 3 + static_cast<int>(rng() % kMaxRefs));
        std::vector<int> refs;
        for (int r = 0; r < nref; ++r) {
            int target = (!attach.empty() && rng() % 4 != 0)
                             ? attach[rng() % attach.size()]
                             : static_cast<int>(rng() % static_cast<unsigned>(id));
            refs.push_back(target);
        }
        std::sort(refs.begin(), refs.end());
        refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
        for (size_t r = 0; r < refs.size(); ++r) {
            out << (r ? "," : "") << refs[r];
            attach.push_back(refs[r]);
        }
        attach.push_back(id);
        out << '\n';
    }
}

std::vector<int> parse_int_list(const std::string &field)
{
    std::vector<int> v;
    std::istringstream ss(field);
    std::string tok;
    while (std::getline(ss, tok, ','))
        if (!tok.empty()) v.push_back(std::stoi(tok));
    return v;
}

std::vector<Paper> load_corpus(const fs::path &tsv)
{
    std::ifstream in(tsv);
    if (!in) throw std::runtime_error("cannot read " + tsv.string());
    std::vector<Paper> papers;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string f_id, f_year, f_venue, f_auth, f_refs;
        std::getline(ls, f_id, '\t');
        std::getline(ls, f_year, '\t');
        std::getline(ls, f_venue, '\t');
        std::getline(ls, f_auth, '\t');
        std::getline(ls, f_refs, '\t');
        Paper p;
        p.id = std::stoi(f_id);
        p.year = std::stoi(f_year);
        p.venue = std::stoi(f_venue);
        p.authors = parse_int_list(f_auth);
        p.refs = parse_int_list(f_refs);
        papers.push_back(std::move(p));
    }
    return papers;
}

std::vector<int> count_citations(const std::vector<Paper> &papers)
{
    std::vector<int> cites(papers.size(), 0);
    for (const auto &p : papers)
        for (int r : p.refs) ++cites[static_cast<size_t>(r)];
    return cites;
}

std::vector<AuthorStats> author_indices(const std::vector<Paper> &papers, const std::vector<int> &cites)
{
    std::vector<std::vector<int>> per_author(kAuthors);
    for (const auto &p : papers)
        for (int a : p.authors) per_author[static_cast<size_t>(a)].push_back(cites[static_cast<size_t>(p.id)]);
    std::vector<AuthorStats> stats(kAuthors);
    for (int a = 0; a < kAuthors; ++a) {
        auto &c = per_author[static_cast<size_t>(a)];
        std::sort(c.begin(), c.end(), std::greater<int>());
        AuthorStats &s = stats[static_cast<size_t>(a)];
        s.papers = static_cast<int>(c.size());
        long cum = 0;
        for (size_t i = 0; i < c.size(); ++i) {
            s.citations += c[i];
            if (c[i] >= static_cast<int>(i + 1)) s.h_index = static_cast<int>(i + 1);
            cum += c[i];
            if (cum >= static_cast<long>((i + 1) * (i + 1))) s.g_index = static_cast<int>(i + 1);
        }
    }
    return stats;
}

void write_leaderboard(const fs::path &path, const std::vector<AuthorStats> &stats, size_t top)
{
    std::vector<int> order(stats.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) {
        const auto &a = stats[static_cast<size_t>(x)], &b = stats[static_cast<size_t>(y)];
        return a.h_index != b.h_index ? a.h_index > b.h_index : (a.citations != b.citations ? a.citations > b.citations : x < y);
    });
    std::ofstream out(path);
    out << std::left << std::setw(10) << "author" << std::right << std::setw(8) << "papers" << std::setw(12)
        << "citations" << std::setw(6) << "h" << std::setw(6) << "g" << '\n';
    for (size_t i = 0; i < top && i < order.size(); ++i) {
        const auto &s = stats[static_cast<size_t>(order[i])];
        out << std::left << std::setw(10) << ("A" + std::to_string(order[i])) << std::right << std::setw(8)
            << s.papers << std::setw(12) << s.citations << std::setw(6) << s.h_index << std::setw(6) << s.g_index
            << '\n';
    }
}

// For each (venue, year of the cited paper) the median age of incoming citations.
// One CSV per venue and year: rows are citing years with counts.
long write_venue_tree(const fs::path &root, const std::vector<Paper> &papers)
{
    std::vector<std::map<int, std::map<int, int>>> hist(kVenues);  // venue -> cited year -> citing year -> n
    for (const auto &p : papers)
        for (int r : p.refs) {
            const Paper &q = papers[static_cast<size_t>(r)];
            ++hist[static_cast<size_t>(q.venue)][q.year][p.year];
        }
    long rows = 0;
    for (int v = 0; v < kVenues; ++v) {
        fs::path vdir = root / ("venue_" + std::to_string(v));
        fs::create_directories(vdir);
        std::ofstream meta(vdir / "VENUE.txt");
        meta << venue_name(v) << '\n';
        for (const auto &[cited_year, row] : hist[static_cast<size_t>(v)]) {
            std::ofstream csv(vdir / ("cited_" + std::to_string(cited_year) + ".csv"));
            csv << "citing_year,count,age\n";
            long total = 0;
            for (const auto &[citing_year, n] : row) {
                csv << citing_year << ',' << n << ',' << (citing_year - cited_year) << '\n';
                total += n;
                ++rows;
            }
            long half = 0;
            int half_life = 0;
            for (const auto &[citing_year, n] : row) {
                half += n;
                if (2 * half >= total) { half_life = citing_year - cited_year; break; }
            }
            csv << "# half_life_years," << half_life << '\n';
            meta << cited_year << ' ' << total << ' ' << half_life << '\n';
        }
    }
    return rows;
}

// Compressed-sparse-row snapshot of the reference lists.
void write_csr(const fs::path &path, const std::vector<Paper> &papers)
{
    std::vector<int64_t> rowptr(papers.size() + 1, 0);
    std::vector<int32_t> cols;
    for (size_t i = 0; i < papers.size(); ++i) {
        for (int r : papers[i].refs) cols.push_back(r);
        rowptr[i + 1] = static_cast<int64_t>(cols.size());
    }
    std::ofstream out(path, std::ios::binary);
    const char magic[8] = {'C', 'I', 'T', 'E', 'C', 'S', 'R', '1'};
    uint64_t n = papers.size(), nnz = cols.size();
    out.write(magic, sizeof magic);
    out.write(reinterpret_cast<const char *>(&n), sizeof n);
    out.write(reinterpret_cast<const char *>(&nnz), sizeof nnz);
    out.write(reinterpret_cast<const char *>(rowptr.data()), static_cast<std::streamsize>(rowptr.size() * sizeof(int64_t)));
    out.write(reinterpret_cast<const char *>(cols.data()), static_cast<std::streamsize>(cols.size() * sizeof(int32_t)));
}

// Re-read the CSR file and recompute in-degrees; returns the number of mismatches.
long verify_csr(const fs::path &path, const std::vector<int> &cites)
{
    std::ifstream in(path, std::ios::binary);
    char magic[8];
    uint64_t n = 0, nnz = 0;
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char *>(&n), sizeof n);
    in.read(reinterpret_cast<char *>(&nnz), sizeof nnz);
    std::vector<int64_t> rowptr(n + 1);
    in.read(reinterpret_cast<char *>(rowptr.data()), static_cast<std::streamsize>((n + 1) * sizeof(int64_t)));
    std::vector<int> indeg(n, 0);
    std::vector<int32_t> row;
    for (uint64_t i = 0; i < n; ++i) {
        row.resize(static_cast<size_t>(rowptr[i + 1] - rowptr[i]));
        in.read(reinterpret_cast<char *>(row.data()), static_cast<std::streamsize>(row.size() * sizeof(int32_t)));
        for (int32_t c : row) ++indeg[static_cast<size_t>(c)];
    }
    long bad = 0;
    for (uint64_t i = 0; i < n; ++i) bad += indeg[i] != cites[i];
    return bad;
}

long walk_venue_tree(const fs::path &root)
{
    long total = 0;
    for (const auto &entry : fs::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".csv") continue;
        std::ifstream in(entry.path());
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            auto c1 = line.find(',');
            auto c2 = line.find(',', c1 + 1);
            total += std::stol(line.substr(c1 + 1, c2 - c1 - 1));
        }
    }
    return total;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    const fs::path dir(argv[1]);
    fs::create_directories(dir);
    const fs::path tsv = dir / "papers.tsv";
    generate_corpus(tsv, kPapers);

    auto papers = load_corpus(tsv);
    auto cites = count_citations(papers);
    auto stats = author_indices(papers, cites);
    write_leaderboard(dir / "author_leaderboard.txt", stats, 500);
    long rows = write_venue_tree(dir / "venues", papers);
    write_csr(dir / "citations.csr", papers);
    long bad = verify_csr(dir / "citations.csr", cites);
    long summed = walk_venue_tree(dir / "venues");
    long total_cites = std::accumulate(cites.begin(), cites.end(), 0L);
    std::cout << papers.size() << " papers, " << total_cites << " citations, " << rows << " venue rows, tree sum "
              << summed << ", csr mismatches " << bad << '\n';
    return (bad == 0 && summed == total_cites) ? 0 : 1;
}
