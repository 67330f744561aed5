// Strongly connected components of a large synthetic call/dependency graph.
// The edge list is stored as a binary file with a small text metadata file;
// the program reloads both, runs iterative Tarjan, condenses the graph to a
// DAG, computes longest dependency chains and emits CSV and Graphviz DOT.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kNodes = 1500000;
constexpr uint32_t kBlock = 24;          // nodes per module
constexpr uint32_t kLocalEdges = 3;      // per node, inside module
constexpr uint32_t kRemoteEdges = 2;     // per node, to later modules
constexpr size_t kChunkEdges = 1 << 15;
constexpr uint32_t kDotMinSize = 8;
constexpr int kSketch = 32;             // min-hash registers for reach estimation

struct Csr {
    uint32_t n = 0;
    std::vector<uint32_t> off, adj;
};

struct SccResult {
    std::vector<uint32_t> comp;   // node -> component id (reverse topological order)
    std::vector<uint32_t> size;
};

void write_graph(const std::string& dir, uint64_t& nedges)
{
    std::ofstream bin(dir + "/edges.bin", std::ios::binary);
    std::vector<uint32_t> buf;
    buf.reserve(2 * kChunkEdges);
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    nedges = 0;
    for (uint32_t u = 0; u < kNodes; ++u) {
        uint32_t base = u - u % kBlock;
        uint32_t span = std::min(kBlock, kNodes - base);
        for (uint32_t e = 0; e < kLocalEdges + kRemoteEdges; ++e) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            uint32_t v;
            if (e < kLocalEdges) {
                // a ring plus random chords; every 5th module is left acyclic
                if ((base / kBlock) % 5 == 0) { if (u + 1 >= base + span) continue; v = u + 1 + (uint32_t)(s % (base + span - u - 1)); }
                else v = e == 0 ? base + (u - base + 1) % span : base + (uint32_t)(s % span);
            } else {
                uint64_t hop = kBlock + s % (kBlock * 400);
                if (u + hop >= kNodes) continue;
                v = u + (uint32_t)hop;
            }
            if (v == u) continue;
            buf.push_back(u);
            buf.push_back(v);
            ++nedges;
            if (buf.size() == 2 * kChunkEdges) {
                bin.write(reinterpret_cast<const char*>(buf.data()), (std::streamsize)(buf.size() * 4));
                buf.clear();
            }
        }
    }
    bin.write(reinterpret_cast<const char*>(buf.data()), (std::streamsize)(buf.size() * 4));
    std::ofstream meta(dir + "/graph.meta");
    meta << "# synthetic module dependency graph\n"
         << "nodes=" << kNodes << "\nedges=" << nedges << "\nmodule_size=" << kBlock
         << "\nformat=u32le_pairs\n";
}

Csr load_graph(const std::string& dir)
{
    std::ifstream meta(dir + "/graph.meta");
    std::map<std::string, std::string> kv;
    std::string line;
    while (std::getline(meta, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    Csr g;
    g.n = (uint32_t)std::stoul(kv.at("nodes"));
    uint64_t m = std::stoull(kv.at("edges"));
    std::vector<uint32_t> src(m), dst(m);
    std::ifstream bin(dir + "/edges.bin", std::ios::binary);
    std::vector<uint32_t> buf(2 * kChunkEdges);
    uint64_t got = 0;
    while (got < m) {
        size_t want = (size_t)std::min<uint64_t>(kChunkEdges, m - got);
        bin.read(reinterpret_cast<char*>(buf.data()), (std::streamsize)(want * 8));
        if (!bin) throw std::runtime_error("short edge file");
        for (size_t i = 0; i < want; ++i) { src[got + i] = buf[2 * i]; dst[got + i] = buf[2 * i + 1]; }
        got += want;
    }
    g.off.assign(g.n + 1, 0);
    for (uint64_t i = 0; i < m; ++i) ++g.off[src[i] + 1];
    for (uint32_t i = 0; i < g.n; ++i) g.off[i + 1] += g.off[i];
    g.adj.resize(m);
    std::vector<uint32_t> pos(g.off.begin(), g.off.end() - 1);
    for (uint64_t i = 0; i < m; ++i) g.adj[pos[src[i]]++] = dst[i];
    return g;
}

// iterative Tarjan; components come out in reverse topological order
SccResult tarjan_scc(const Csr& g)
{
    const uint32_t UNSEEN = 0xffffffffu;
    std::vector<uint32_t> index(g.n, UNSEEN), low(g.n), edge_it(g.n);
    std::vector<uint32_t> stack, call;
    std::vector<char> onstack(g.n, 0);
    SccResult r;
    r.comp.assign(g.n, 0);
    uint32_t counter = 0;
    for (uint32_t root = 0; root < g.n; ++root) {
        if (index[root] != UNSEEN) continue;
        call.push_back(root);
        index[root] = low[root] = counter++;
        edge_it[root] = g.off[root];
        stack.push_back(root); onstack[root] = 1;
        while (!call.empty()) {
            uint32_t v = call.back();
            if (edge_it[v] < g.off[v + 1]) {
                uint32_t w = g.adj[edge_it[v]++];
                if (index[w] == UNSEEN) {
                    index[w] = low[w] = counter++;
                    edge_it[w] = g.off[w];
                    stack.push_back(w); onstack[w] = 1;
                    call.push_back(w);
                } else if (onstack[w]) low[v] = std::min(low[v], index[w]);
                continue;
            }
            call.pop_back();
            if (!call.empty()) low[call.back()] = std::min(low[call.back()], low[v]);
            if (low[v] == index[v]) {
                uint32_t id = (uint32_t)r.size.size(), cnt = 0, w;
                do { w = stack.back(); stack.pop_back(); onstack[w] = 0; r.comp[w] = id; ++cnt; } while (w != v);
                r.size.push_back(cnt);
            }
        }
    }
    return r;
}

Csr condense(const Csr& g, const SccResult& s)
{
    std::vector<uint64_t> keys;
    keys.reserve(g.adj.size());
    for (uint32_t u = 0; u < g.n; ++u)
        for (uint32_t k = g.off[u]; k < g.off[u + 1]; ++k) {
            uint32_t a = s.comp[u], b = s.comp[g.adj[k]];
            if (a != b) keys.push_back((uint64_t)a << 32 | b);
        }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    Csr d;
    d.n = (uint32_t)s.size.size();
    d.off.assign(d.n + 1, 0);
    for (uint64_t k : keys) ++d.off[(k >> 32) + 1];
    for (uint32_t i = 0; i < d.n; ++i) d.off[i + 1] += d.off[i];
    d.adj.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) d.adj[i] = (uint32_t)keys[i];
    return d;
}

// longest chain (in nodes) starting at each component; ids are reverse-topological
std::vector<uint64_t> longest_chains(const Csr& dag, const SccResult& s)
{
    std::vector<uint64_t> depth(dag.n, 0);
    for (uint32_t c = 0; c < dag.n; ++c) {          // successors have smaller ids
        uint64_t best = 0;
        for (uint32_t k = dag.off[c]; k < dag.off[c + 1]; ++k) best = std::max(best, depth[dag.adj[k]]);
        depth[c] = best + s.size[c];
    }
    return depth;
}

// Cohen-style estimate of the number of nodes reachable from each component:
// each node draws kSketch uniform ranks, a component keeps the minima over
// everything it reaches; estimate = (k-1) / sum(minima).
std::vector<float> estimate_reach(const Csr& dag, const SccResult& s, const Csr& g)
{
    std::vector<float> mins((size_t)dag.n * kSketch, 1.0f);
    uint64_t st = 0x243f6a8885a308d3ULL;
    for (uint32_t u = 0; u < g.n; ++u) {
        float* m = &mins[(size_t)s.comp[u] * kSketch];
        for (int j = 0; j < kSketch; ++j) {
            st ^= st << 13; st ^= st >> 7; st ^= st << 17;
            float r = (float)(st >> 40) / 16777216.0f;
            if (r < m[j]) m[j] = r;
        }
    }
    std::vector<float> est(dag.n);
    for (uint32_t c = 0; c < dag.n; ++c) {
        float* m = &mins[(size_t)c * kSketch];
        for (uint32_t k = dag.off[c]; k < dag.off[c + 1]; ++k) {
            const float* o = &mins[(size_t)dag.adj[k] * kSketch];
            for (int j = 0; j < kSketch; ++j) m[j] = std::min(m[j], o[j]);
        }
        double sum = 0.0;
        for (int j = 0; j < kSketch; ++j) sum += m[j];
        est[c] = (float)((kSketch - 1) / sum);
    }
    return est;
}

void write_component_table(const std::string& path, const SccResult& s, const Csr& dag,
                           const std::vector<uint64_t>& depth, const std::vector<float>& reach)
{
    std::ofstream out(path);
    out << "component,size,out_degree,chain_weight,reach_est\n";
    for (uint32_t c = 0; c < dag.n; ++c)
        out << c << ',' << s.size[c] << ',' << (dag.off[c + 1] - dag.off[c]) << ',' << depth[c] << ','
            << reach[c] << '\n';
}

void write_dot(const std::string& path, const SccResult& s, const Csr& dag, const std::vector<uint64_t>& depth)
{
    std::ofstream out(path);
    out << "digraph condensation {\n  rankdir=LR;\n  node [shape=box, fontsize=9];\n";
    for (uint32_t c = 0; c < dag.n; ++c)
        if (s.size[c] >= kDotMinSize)
            out << "  c" << c << " [label=\"scc " << c << "\\n" << s.size[c] << " nodes\\nchain " << depth[c] << "\"];\n";
    for (uint32_t c = 0; c < dag.n; ++c) {
        if (s.size[c] < kDotMinSize) continue;
        for (uint32_t k = dag.off[c]; k < dag.off[c + 1]; ++k)
            if (s.size[dag.adj[k]] >= kDotMinSize) out << "  c" << c << " -> c" << dag.adj[k] << ";\n";
    }
    out << "}\n";
}

std::string size_histogram(const SccResult& s)
{
    std::vector<uint64_t> bins(8, 0);
    for (uint32_t sz : s.size) {
        int b = 0;
        while ((1u << (b + 1)) <= sz && b < 7) ++b;
        ++bins[b];
    }
    std::ostringstream os;
    for (int b = 0; b < 8; ++b) os << (b ? " " : "") << "[" << (1u << b) << "+]=" << bins[b];
    return os.str();
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) { std::cerr << "usage: " << argv[0] << " dir\n"; return 1; }
    std::string dir = argv[1];
    uint64_t m = 0;
    write_graph(dir, m);
    Csr g = load_graph(dir);
    SccResult s = tarjan_scc(g);
    Csr dag = condense(g, s);
    std::vector<uint64_t> depth = longest_chains(dag, s);
    std::vector<float> reach = estimate_reach(dag, s, g);
    write_component_table(dir + "/components.csv", s, dag, depth, reach);
    write_dot(dir + "/condensation.dot", s, dag, depth);
    uint64_t longest = *std::max_element(depth.begin(), depth.end());
    std::cout << "nodes=" << g.n << " edges=" << m << " sccs=" << s.size.size() << " dag_edges=" << dag.adj.size()
              << " longest_chain=" << longest << " reach0=" << reach[dag.n - 1] << "\n" << size_histogram(s) << "\n";
    return 0;
}
