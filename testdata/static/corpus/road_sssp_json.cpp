// road_sssp_json: generate a synthetic road network (jittered lattice with
// missing links and a few highways), store it as node/edge CSV files, load
// it back into a CSR adjacency, run Dijkstra travel-time searches from a set
// of depots and export per-depot travel-time fields and routes as JSON.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <queue>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kNx = 420;
constexpr int kNy = 420;
constexpr int kDepots = 24;
constexpr int kRoutesPerDepot = 12;
constexpr double kSpacingKm = 0.35;
constexpr double kInf = 1e300;

struct Node { double x, y; };
struct Edge { int u, v; double len_km; int road_class; };

struct Graph {
    std::vector<Node> nodes;
    std::vector<int64_t> offs;
    std::vector<int> adj;
    std::vector<double> minutes;
};

class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    double uniform() {
        s_ ^= s_ << 13; s_ ^= s_ >> 7; s_ ^= s_ << 17;
        return static_cast<double>(s_ >> 11) * 0x1.0p-53;
    }
private:
    uint64_t s_;
};

void generate_network(std::vector<Node>& nodes, std::vector<Edge>& edges)
{
    Rng rng(20240611);
    nodes.resize(static_cast<size_t>(kNx) * kNy);
    for (int j = 0; j < kNy; ++j)
        for (int i = 0; i < kNx; ++i)
            nodes[j * kNx + i] = {(i + 0.4 * (rng.uniform() - 0.5)) * kSpacingKm,
                                  (j + 0.4 * (rng.uniform() - 0.5)) * kSpacingKm};
    auto dist = [&](int a, int b) {
        return std::hypot(nodes[a].x - nodes[b].x, nodes[a].y - nodes[b].y);
    };
    for (int j = 0; j < kNy; ++j) {
        for (int i = 0; i < kNx; ++i) {
            int u = j * kNx + i;
            bool arterial_row = (j % 20) == 0, arterial_col = (i % 20) == 0;
            if (i + 1 < kNx && (arterial_row || rng.uniform() > 0.12))
                edges.push_back({u, u + 1, dist(u, u + 1), arterial_row ? 1 : 2});
            if (j + 1 < kNy && (arterial_col || rng.uniform() > 0.12))
                edges.push_back({u, u + kNx, dist(u, u + kNx), arterial_col ? 1 : 2});
        }
    }
    for (int h = 0; h < 60; ++h) {
        int a = static_cast<int>(rng.uniform() * nodes.size());
        int step = 1 + static_cast<int>(rng.uniform() * 3);
        for (int k = 0; k < 40; ++k) {
            int ai = a % kNx, aj = a / kNx;
            int bi = std::min(kNx - 1, ai + 6 * step), bj = std::min(kNy - 1, aj + 6 * (3 - step));
            int b = bj * kNx + bi;
            if (b == a) break;
            edges.push_back({a, b, 1.05 * dist(a, b), 0});
            a = b;
        }
    }
}

void write_csv(const std::string& dir, const std::vector<Node>& nodes, const std::vector<Edge>& edges)
{
    std::ofstream nf(dir + "/nodes.csv");
    nf << "id,x_km,y_km\n" << std::fixed << std::setprecision(4);
    for (size_t i = 0; i < nodes.size(); ++i)
        nf << i << ',' << nodes[i].x << ',' << nodes[i].y << '\n';
    std::ofstream ef(dir + "/edges.csv");
    ef << "from,to,length_km,class\n" << std::fixed << std::setprecision(5);
    for (const Edge& e : edges)
        ef << e.u << ',' << e.v << ',' << e.len_km << ',' << e.road_class << '\n';
}

Graph load_graph(const std::string& dir)
{
    static const double kSpeedKmh[3] = {110.0, 60.0, 35.0};
    Graph g;
    std::ifstream nf(dir + "/nodes.csv");
    std::string line;
    std::getline(nf, line);
    while (std::getline(nf, line)) {
        const char* p = line.c_str();
        char* end;
        std::strtol(p, &end, 10);
        double x = std::strtod(end + 1, &end);
        double y = std::strtod(end + 1, &end);
        g.nodes.push_back({x, y});
    }
    std::vector<Edge> edges;
    std::ifstream ef(dir + "/edges.csv");
    std::getline(ef, line);
    while (std::getline(ef, line)) {
        const char* p = line.c_str();
        char* end;
        Edge e;
        e.u = static_cast<int>(std::strtol(p, &end, 10));
        e.v = static_cast<int>(std::strtol(end + 1, &end, 10));
        e.len_km = std::strtod(end + 1, &end);
        e.road_class = static_cast<int>(std::strtol(end + 1, &end, 10));
        edges.push_back(e);
    }
    const size_t n = g.nodes.size();
    g.offs.assign(n + 1, 0);
    for (const Edge& e : edges) { ++g.offs[e.u + 1]; ++g.offs[e.v + 1]; }
    for (size_t i = 0; i < n; ++i) g.offs[i + 1] += g.offs[i];
    g.adj.resize(g.offs[n]);
    g.minutes.resize(g.offs[n]);
    std::vector<int64_t> fill(g.offs.begin(), g.offs.end() - 1);
    for (const Edge& e : edges) {
        double t = 60.0 * e.len_km / kSpeedKmh[e.road_class];
        g.adj[fill[e.u]] = e.v; g.minutes[fill[e.u]++] = t;
        g.adj[fill[e.v]] = e.u; g.minutes[fill[e.v]++] = t;
    }
    return g;
}

void dijkstra(const Graph& g, int src, std::vector<double>& dist, std::vector<int>& pred)
{
    using Item = std::pair<double, int>;
    dist.assign(g.nodes.size(), kInf);
    pred.assign(g.nodes.size(), -1);
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
    dist[src] = 0.0;
    pq.push({0.0, src});
    while (!pq.empty()) {
        auto [d, u] = pq.top();
        pq.pop();
        if (d > dist[u]) continue;
        for (int64_t k = g.offs[u]; k < g.offs[u + 1]; ++k) {
            int v = g.adj[k];
            double nd = d + g.minutes[k];
            if (nd < dist[v]) {
                dist[v] = nd;
                pred[v] = u;
                pq.push({nd, v});
            }
        }
    }
}

struct Isochrone { double p50, p90, max; size_t reach15, reach30, unreachable; };

Isochrone isochrone_stats(const std::vector<double>& dist)
{
    std::vector<double> d;
    d.reserve(dist.size());
    Isochrone s{0, 0, 0, 0, 0, 0};
    for (double x : dist) {
        if (x >= kInf) { ++s.unreachable; continue; }
        d.push_back(x);
        if (x <= 15.0) ++s.reach15;
        if (x <= 30.0) ++s.reach30;
    }
    std::sort(d.begin(), d.end());
    if (!d.empty()) {
        s.p50 = d[d.size() / 2];
        s.p90 = d[d.size() * 9 / 10];
        s.max = d.back();
    }
    return s;
}

void write_depot_json(const std::string& path, int depot, const Graph& g,
                      const std::vector<double>& dist, const std::vector<int>& pred,
                      const Isochrone& iso, const std::vector<int>& targets)
{
    std::ofstream out(path);
    out << std::fixed << std::setprecision(3);
    out << "{\n  \"depot\": " << depot << ",\n  \"x_km\": " << g.nodes[depot].x
        << ",\n  \"y_km\": " << g.nodes[depot].y << ",\n";
    out << "  \"stats\": {\"p50_min\": " << iso.p50 << ", \"p90_min\": " << iso.p90
        << ", \"max_min\": " << iso.max << ", \"reach15\": " << iso.reach15
        << ", \"reach30\": " << iso.reach30 << ", \"unreachable\": " << iso.unreachable << "},\n";
    out << "  \"routes\": [\n";
    for (size_t t = 0; t < targets.size(); ++t) {
        std::vector<int> path;
        for (int v = targets[t]; v >= 0; v = pred[v]) path.push_back(v);
        std::reverse(path.begin(), path.end());
        out << "    {\"to\": " << targets[t] << ", \"minutes\": " << dist[targets[t]]
            << ", \"coords\": [";
        for (size_t k = 0; k < path.size(); ++k)
            out << (k ? "," : "") << '[' << g.nodes[path[k]].x << ',' << g.nodes[path[k]].y << ']';
        out << "]}" << (t + 1 < targets.size() ? ",\n" : "\n");
    }
    out << "  ],\n  \"minutes\": [";
    for (size_t i = 0; i < dist.size(); ++i) {
        if (i % 16 == 0) out << "\n    ";
        if (dist[i] >= kInf) out << "null"; else out << dist[i];
        if (i + 1 < dist.size()) out << ',';
    }
    out << "\n  ]\n}\n";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " scratch_dir\n";
        return 2;
    }
    const std::string dir = argv[1];
    {
        std::vector<Node> nodes;
        std::vector<Edge> edges;
        generate_network(nodes, edges);
        write_csv(dir, nodes, edges);
    }
    Graph g = load_graph(dir);

    std::vector<double> dist;
    std::vector<int> pred;
    std::ofstream summary(dir + "/depots.json");
    summary << "[\n";
    const int n = static_cast<int>(g.nodes.size());
    for (int d = 0; d < kDepots; ++d) {
        int depot = static_cast<int>((static_cast<int64_t>(d) * 7919 * 104729) % n);
        dijkstra(g, depot, dist, pred);
        Isochrone iso = isochrone_stats(dist);
        std::vector<int> targets;
        for (int t = 0; t < kRoutesPerDepot; ++t)
            targets.push_back(static_cast<int>((static_cast<int64_t>(depot) + (t + 1) * 15485863LL) % n));
        std::ostringstream name;
        name << dir << "/depot_" << std::setw(2) << std::setfill('0') << d << ".json";
        write_depot_json(name.str(), depot, g, dist, pred, iso, targets);
        summary << "  {\"depot\": " << depot << ", \"p50\": " << iso.p50 << ", \"p90\": " << iso.p90
                << "}" << (d + 1 < kDepots ? ",\n" : "\n");
    }
    summary << "]\n";
    std::cout << "nodes " << n << " arcs " << g.adj.size() << " depots " << kDepots << '\n';
    return 0;
}
