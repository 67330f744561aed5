// nj_phylo_newick.cpp -- distance-based phylogeny with bootstrap support.
//
// Sequences are evolved under the Jukes-Cantor model along a random
// reference tree and written as a sequential PHYLIP alignment.  The
// alignment is read back, Jukes-Cantor distances are computed and a
// neighbour-joining tree is built.  NBOOT bootstrap replicates resample
// alignment columns; each replicate's distance matrix is written in PHYLIP
// square format and its NJ tree appended to a Newick file.  The bootstrap
// trees are then parsed back, their bipartitions counted in a std::map and
// the support values written onto the reference-data NJ tree, which is
// saved as an annotated Newick file together with a Robinson-Foulds
// comparison against the true tree.
//
// Usage: nj_phylo_newick OUTDIR

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <sys/stat.h>

namespace {

const int NTAXA = 100;
const int SEQLEN = 2000;
const int NBOOT = 130;
const double MEAN_BRANCH = 0.06;

struct Node {
    int left = -1, right = -1, third = -1;   // third child only at the root
    double len = 0.0;                        // length of branch to parent
    int taxon = -1;
    std::string label;
};

struct Tree {
    std::vector<Node> nodes;
    int root = -1;
};

std::string taxon_name(int i)
{
    std::ostringstream os;
    os << "T" << std::setw(3) << std::setfill('0') << i;
    return os.str();
}

// Random rooted binary reference tree by repeatedly joining random pairs.
Tree random_tree(std::mt19937 &rng)
{
    Tree t;
    std::exponential_distribution<double> br(1.0 / MEAN_BRANCH);
    std::vector<int> pool;
    for (int i = 0; i < NTAXA; i++) {
        Node n;
        n.taxon = i;
        n.len = br(rng);
        t.nodes.push_back(n);
        pool.push_back(i);
    }
    while (pool.size() > 1) {
        std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
        size_t a = pick(rng);
        int na = pool[a];
        pool.erase(pool.begin() + (std::ptrdiff_t)a);
        std::uniform_int_distribution<size_t> pick2(0, pool.size() - 1);
        size_t b = pick2(rng);
        int nb = pool[b];
        Node n;
        n.left = na;
        n.right = nb;
        n.len = br(rng);
        t.nodes.push_back(n);
        pool[b] = (int)t.nodes.size() - 1;
    }
    t.root = pool[0];
    return t;
}

void evolve(const Tree &t, int node, const std::string &parent_seq, std::mt19937 &rng,
            std::vector<std::string> &out)
{
    static const char B[4] = {'A', 'C', 'G', 'T'};
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::string s = parent_seq;
    double p = 0.75 * (1.0 - std::exp(-4.0 / 3.0 * t.nodes[node].len));
    for (char &c : s)
        if (u(rng) < p) {
            char n;
            do
                n = B[rng() & 3];
            while (n == c);
            c = n;
        }
    const Node &n = t.nodes[node];
    if (n.taxon >= 0) {
        out[n.taxon] = s;
        return;
    }
    evolve(t, n.left, s, rng, out);
    evolve(t, n.right, s, rng, out);
}

void write_phylip(const std::string &path, const std::vector<std::string> &seqs)
{
    std::ofstream f(path);
    f << seqs.size() << " " << seqs[0].size() << "\n";
    for (size_t i = 0; i < seqs.size(); i++)
        f << std::left << std::setw(10) << taxon_name((int)i) << seqs[i] << "\n";
}

std::vector<std::string> read_phylip(const std::string &path)
{
    std::ifstream f(path);
    size_t n, len;
    f >> n >> len;
    std::vector<std::string> seqs(n);
    std::string name;
    for (size_t i = 0; i < n; i++)
        f >> name >> seqs[i];
    return seqs;
}

// JC69 distances with per-column weights (bootstrap multiplicities).
std::vector<double> jc_distances(const std::vector<std::string> &s, const std::vector<int> &w)
{
    int n = (int)s.size();
    std::vector<double> d((size_t)n * n, 0.0);
    int total = 0;
    for (int x : w)
        total += x;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int diff = 0;
            const char *a = s[i].data(), *b = s[j].data();
            for (size_t k = 0; k < w.size(); k++)
                diff += (a[k] != b[k]) * w[k];
            double p = (double)diff / total;
            double arg = 1.0 - 4.0 / 3.0 * p;
            double dist = arg > 1e-6 ? -0.75 * std::log(arg) : 5.0;
            d[(size_t)i * n + j] = d[(size_t)j * n + i] = dist;
        }
    return d;
}

Tree neighbor_joining(std::vector<double> d, int n)
{
    Tree t;
    std::vector<int> active, id(n);
    for (int i = 0; i < n; i++) {
        Node leaf;
        leaf.taxon = i;
        t.nodes.push_back(leaf);
        active.push_back(i);
        id[i] = i;
    }
    // d is indexed by matrix slot; slots are reused for new nodes
    while (active.size() > 3) {
        size_t m = active.size();
        std::vector<double> r(m, 0.0);
        for (size_t a = 0; a < m; a++)
            for (size_t b = 0; b < m; b++)
                r[a] += d[(size_t)active[a] * n + active[b]];
        double best = 1e300;
        size_t ba = 0, bb = 1;
        for (size_t a = 0; a < m; a++)
            for (size_t b = a + 1; b < m; b++) {
                double q = (m - 2) * d[(size_t)active[a] * n + active[b]] - r[a] - r[b];
                if (q < best) {
                    best = q;
                    ba = a;
                    bb = b;
                }
            }
        int i = active[ba], j = active[bb];
        double dij = d[(size_t)i * n + j];
        double li = 0.5 * dij + (r[ba] - r[bb]) / (2.0 * (m - 2));
        Node parent;
        parent.left = id[i];
        parent.right = id[j];
        t.nodes[id[i]].len = std::max(li, 0.0);
        t.nodes[id[j]].len = std::max(dij - li, 0.0);
        t.nodes.push_back(parent);
        for (size_t c = 0; c < m; c++) {
            int k = active[c];
            if (k == i || k == j)
                continue;
            double dk = 0.5 * (d[(size_t)i * n + k] + d[(size_t)j * n + k] - dij);
            d[(size_t)i * n + k] = d[(size_t)k * n + i] = dk;
        }
        id[i] = (int)t.nodes.size() - 1;          // slot i now holds the new node
        active.erase(active.begin() + (std::ptrdiff_t)bb);
    }
    int a = active[0], b = active[1], c = active[2];
    double dab = d[(size_t)a * n + b], dac = d[(size_t)a * n + c], dbc = d[(size_t)b * n + c];
    t.nodes[id[a]].len = std::max(0.5 * (dab + dac - dbc), 0.0);
    t.nodes[id[b]].len = std::max(0.5 * (dab + dbc - dac), 0.0);
    t.nodes[id[c]].len = std::max(0.5 * (dac + dbc - dab), 0.0);
    Node root;
    root.left = id[a];
    root.right = id[b];
    root.third = id[c];
    t.nodes.push_back(root);
    t.root = (int)t.nodes.size() - 1;
    return t;
}

void newick_rec(const Tree &t, int v, std::ostream &os)
{
    const Node &n = t.nodes[v];
    if (n.taxon >= 0) {
        os << taxon_name(n.taxon);
    } else {
        os << '(';
        newick_rec(t, n.left, os);
        os << ',';
        newick_rec(t, n.right, os);
        if (n.third >= 0) {
            os << ',';
            newick_rec(t, n.third, os);
        }
        os << ')' << n.label;
    }
    if (v != t.root)
        os << ':' << std::fixed << std::setprecision(5) << n.len;
}

std::string to_newick(const Tree &t)
{
    std::ostringstream os;
    newick_rec(t, t.root, os);
    os << ';';
    return os.str();
}

// Bipartition key of the clade below v, normalised so that taxon 0 is '0'.
std::string clade_key(const std::vector<char> &in)
{
    std::string k(in.size(), '0');
    bool flip = in[0];
    for (size_t i = 0; i < in.size(); i++)
        k[i] = (in[i] != flip) ? '1' : '0';
    return k;
}

void collect_splits(const Tree &t, int v, std::vector<char> &below, std::vector<std::string> &out,
                    std::vector<int> *node_of_split = nullptr)
{
    const Node &n = t.nodes[v];
    std::fill(below.begin(), below.end(), 0);
    if (n.taxon >= 0) {
        below[n.taxon] = 1;
        return;
    }
    std::vector<char> acc(below.size(), 0), tmp(below.size(), 0);
    for (int c : {n.left, n.right, n.third}) {
        if (c < 0)
            continue;
        collect_splits(t, c, tmp, out, node_of_split);
        for (size_t i = 0; i < acc.size(); i++)
            acc[i] |= tmp[i];
    }
    below = acc;
    if (v != t.root) {
        int cnt = (int)std::count(acc.begin(), acc.end(), 1);
        if (cnt > 1 && cnt < (int)acc.size() - 1) {
            out.push_back(clade_key(acc));
            if (node_of_split)
                node_of_split->push_back(v);
        }
    }
}

// Minimal Newick parser (topology + lengths) for trees written above.
int parse_newick(const std::string &s, size_t &p, Tree &t)
{
    Node n;
    if (s[p] == '(') {
        p++;
        std::vector<int> kids;
        for (;;) {
            kids.push_back(parse_newick(s, p, t));
            if (s[p] == ',') {
                p++;
                continue;
            }
            if (s[p] == ')') {
                p++;
                break;
            }
        }
        n.left = kids[0];
        n.right = kids.size() > 1 ? kids[1] : -1;
        n.third = kids.size() > 2 ? kids[2] : -1;
        while (p < s.size() && std::isdigit((unsigned char)s[p]))
            p++;                                  // skip support label
    } else {
        size_t q = p;
        while (s[p] != ':' && s[p] != ',' && s[p] != ')' && s[p] != ';')
            p++;
        n.taxon = std::stoi(s.substr(q + 1, p - q - 1));
    }
    if (s[p] == ':') {
        size_t q = ++p;
        while (s[p] != ',' && s[p] != ')' && s[p] != ';')
            p++;
        n.len = std::stod(s.substr(q, p - q));
    }
    t.nodes.push_back(n);
    return (int)t.nodes.size() - 1;
}

void write_distance_matrix(std::ofstream &f, const std::vector<double> &d, int n, int rep)
{
    f << n << "   replicate " << rep << "\n";
    for (int i = 0; i < n; i++) {
        f << std::left << std::setw(10) << taxon_name(i) << std::right;
        for (int j = 0; j < n; j++)
            f << ' ' << std::fixed << std::setprecision(6) << d[(size_t)i * n + j];
        f << "\n";
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    std::string dir = argv[1];
    mkdir(dir.c_str(), 0755);
    std::mt19937 rng(31337);

    Tree truth = random_tree(rng);
    std::string rootseq(SEQLEN, 'A');
    for (char &c : rootseq)
        c = "ACGT"[rng() & 3];
    std::vector<std::string> seqs(NTAXA);
    evolve(truth, truth.root, rootseq, rng, seqs);
    write_phylip(dir + "/alignment.phy", seqs);
    {
        std::ofstream f(dir + "/true_tree.nwk");
        f << to_newick(truth) << "\n";
    }

    std::vector<std::string> aln = read_phylip(dir + "/alignment.phy");
    std::vector<int> w(SEQLEN, 1);
    Tree nj = neighbor_joining(jc_distances(aln, w), NTAXA);

    std::ofstream dm(dir + "/bootstrap_distances.phy"), bt(dir + "/bootstrap_trees.nwk");
    std::uniform_int_distribution<int> col(0, SEQLEN - 1);
    for (int b = 0; b < NBOOT; b++) {
        std::fill(w.begin(), w.end(), 0);
        for (int k = 0; k < SEQLEN; k++)
            w[col(rng)]++;
        std::vector<double> d = jc_distances(aln, w);
        write_distance_matrix(dm, d, NTAXA, b);
        bt << to_newick(neighbor_joining(d, NTAXA)) << "\n";
    }
    dm.close();
    bt.close();

    // Count bipartitions in the bootstrap trees read back from disk.
    std::map<std::string, int> support;
    std::ifstream in(dir + "/bootstrap_trees.nwk");
    std::string line;
    int ntrees = 0;
    std::vector<char> below(NTAXA);
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        Tree t;
        size_t p = 0;
        t.root = parse_newick(line, p, t);
        std::vector<std::string> splits;
        collect_splits(t, t.root, below, splits);
        for (const auto &s : splits)
            support[s]++;
        ntrees++;
    }
    std::vector<std::string> nj_splits, true_splits;
    std::vector<int> nodes;
    collect_splits(nj, nj.root, below, nj_splits, &nodes);
    collect_splits(truth, truth.root, below, true_splits);
    for (size_t k = 0; k < nj_splits.size(); k++)
        nj.nodes[nodes[k]].label = std::to_string(100 * support[nj_splits[k]] / std::max(ntrees, 1));
    std::set<std::string> ts(true_splits.begin(), true_splits.end());
    int shared = 0;
    for (const auto &s : nj_splits)
        shared += (int)ts.count(s);
    int rf = (int)(nj_splits.size() + ts.size()) - 2 * shared;
    {
        std::ofstream f(dir + "/nj_support.nwk");
        f << to_newick(nj) << "\n";
        f << "[RF distance to true tree: " << rf << " of " << nj_splits.size() + ts.size()
          << " splits; distinct bootstrap splits: " << support.size() << "]\n";
    }
    std::cout << "taxa=" << NTAXA << " sites=" << SEQLEN << " bootstrap_trees=" << ntrees
              << " distinct_splits=" << support.size() << " RF=" << rf << "\n";
    return 0;
}
