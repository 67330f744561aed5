// mesh_obj_decimate.cpp
//
// Surface-mesh simplification pipeline.  A bumpy icosphere ("scanned
// pebble") is generated and written as Wavefront OBJ text, parsed back with
// iostreams, and simplified in two stages with Garland-Heckbert quadric
// edge collapses (priority queue with lazy invalidation, link-condition and
// normal-flip checks).  Each stage is saved both as OBJ and as binary
// little-endian PLY; the next stage starts from the PLY read back from disk.
// The approximation error of every original vertex against the simplified
// surface is measured with a uniform-grid point-to-triangle search and
// written as CSV plus a summary report.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <functional>
#include <unordered_map>
#include <vector>

struct Vec3 {
    double x = 0, y = 0, z = 0;
    Vec3() = default;
    Vec3(double a, double b, double c) : x(a), y(b), z(c) {}
    Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
};
static inline double dot(const Vec3 &a, const Vec3 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline Vec3 cross(const Vec3 &a, const Vec3 &b)
{
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double norm(const Vec3 &a) { return std::sqrt(dot(a, a)); }

struct Mesh {
    std::vector<Vec3> v;
    std::vector<std::array<int, 3>> f;
};

// ---------------------------------------------------------------- generation
static Mesh make_pebble(int subdiv)
{
    Mesh m;
    const double t = (1.0 + std::sqrt(5.0)) / 2.0;
    m.v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
           {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    m.f = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
           {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
           {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    for (auto &p : m.v) p = p * (1.0 / norm(p));
    for (int s = 0; s < subdiv; s++) {
        std::map<std::pair<int, int>, int> mid;
        auto midpoint = [&](int a, int b) {
            auto key = std::make_pair(std::min(a, b), std::max(a, b));
            auto it = mid.find(key);
            if (it != mid.end()) return it->second;
            Vec3 p = (m.v[a] + m.v[b]) * 0.5;
            p = p * (1.0 / norm(p));
            m.v.push_back(p);
            int id = (int)m.v.size() - 1;
            mid[key] = id;
            return id;
        };
        std::vector<std::array<int, 3>> nf;
        nf.reserve(m.f.size() * 4);
        for (auto &tri : m.f) {
            int a = midpoint(tri[0], tri[1]), b = midpoint(tri[1], tri[2]), c = midpoint(tri[2], tri[0]);
            nf.push_back({tri[0], a, c});
            nf.push_back({tri[1], b, a});
            nf.push_back({tri[2], c, b});
            nf.push_back({a, b, c});
        }
        m.f.swap(nf);
    }
    for (auto &p : m.v) { // anisotropic scaling + surface bumps
        double bump = 0.06 * std::sin(7 * p.x + 1.3) * std::sin(5 * p.y) * std::cos(6 * p.z) +
                      0.02 * std::sin(23 * p.x * p.y + 11 * p.z);
        double r = 1.0 + bump;
        p = Vec3(1.4 * p.x * r, 1.0 * p.y * r, 0.7 * p.z * r);
    }
    return m;
}

// ---------------------------------------------------------------- OBJ / PLY I/O
static void write_obj(const std::string &path, const Mesh &m, const std::string &comment)
{
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << "# " << comment << "\n# vertices " << m.v.size() << " faces " << m.f.size() << "\n";
    out << std::fixed << std::setprecision(6);
    for (auto &p : m.v) out << "v " << p.x << ' ' << p.y << ' ' << p.z << '\n';
    for (auto &t : m.f) out << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << '\n';
}

static Mesh read_obj(const std::string &path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    Mesh m;
    std::string line, tag;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        ss >> tag;
        if (tag == "v") {
            Vec3 p;
            ss >> p.x >> p.y >> p.z;
            m.v.push_back(p);
        } else if (tag == "f") {
            std::array<int, 3> t;
            for (int k = 0; k < 3; k++) {
                std::string tok;
                ss >> tok;
                t[k] = std::stoi(tok.substr(0, tok.find('/'))) - 1;
            }
            m.f.push_back(t);
        }
    }
    return m;
}

static void write_ply(const std::string &path, const Mesh &m)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << "ply\nformat binary_little_endian 1.0\ncomment decimated pebble\n"
        << "element vertex " << m.v.size() << "\nproperty float x\nproperty float y\nproperty float z\n"
        << "element face " << m.f.size() << "\nproperty list uchar int vertex_indices\nend_header\n";
    for (auto &p : m.v) {
        float xyz[3] = {(float)p.x, (float)p.y, (float)p.z};
        out.write(reinterpret_cast<const char *>(xyz), sizeof xyz);
    }
    for (auto &t : m.f) {
        unsigned char n = 3;
        out.write(reinterpret_cast<const char *>(&n), 1);
        int32_t idx[3] = {t[0], t[1], t[2]};
        out.write(reinterpret_cast<const char *>(idx), sizeof idx);
    }
}

static Mesh read_ply(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::string line;
    size_t nv = 0, nf = 0;
    while (std::getline(in, line)) {
        if (line.rfind("element vertex", 0) == 0) nv = std::stoul(line.substr(15));
        else if (line.rfind("element face", 0) == 0) nf = std::stoul(line.substr(13));
        else if (line == "end_header") break;
    }
    Mesh m;
    m.v.resize(nv);
    m.f.resize(nf);
    std::vector<float> buf(3 * nv);
    in.read(reinterpret_cast<char *>(buf.data()), (std::streamsize)(buf.size() * sizeof(float)));
    for (size_t i = 0; i < nv; i++) m.v[i] = Vec3(buf[3 * i], buf[3 * i + 1], buf[3 * i + 2]);
    for (size_t i = 0; i < nf; i++) {
        unsigned char n;
        int32_t idx[3];
        in.read(reinterpret_cast<char *>(&n), 1);
        in.read(reinterpret_cast<char *>(idx), sizeof idx);
        if (n != 3) throw std::runtime_error("non-triangle face in " + path);
        m.f[i] = {idx[0], idx[1], idx[2]};
    }
    if (!in) throw std::runtime_error("truncated " + path);
    return m;
}

// ---------------------------------------------------------------- decimation
struct Quadric {
    double a[10] = {0}; // xx xy xz xw yy yz yw zz zw ww
    void add_plane(double nx, double ny, double nz, double d, double w)
    {
        a[0] += w * nx * nx; a[1] += w * nx * ny; a[2] += w * nx * nz; a[3] += w * nx * d;
        a[4] += w * ny * ny; a[5] += w * ny * nz; a[6] += w * ny * d;
        a[7] += w * nz * nz; a[8] += w * nz * d; a[9] += w * d * d;
    }
    Quadric operator+(const Quadric &o) const
    {
        Quadric q;
        for (int i = 0; i < 10; i++) q.a[i] = a[i] + o.a[i];
        return q;
    }
    double eval(const Vec3 &p) const
    {
        return a[0] * p.x * p.x + 2 * a[1] * p.x * p.y + 2 * a[2] * p.x * p.z + 2 * a[3] * p.x +
               a[4] * p.y * p.y + 2 * a[5] * p.y * p.z + 2 * a[6] * p.y + a[7] * p.z * p.z + 2 * a[8] * p.z + a[9];
    }
    bool optimum(Vec3 &p) const
    {
        double A[3][3] = {{a[0], a[1], a[2]}, {a[1], a[4], a[5]}, {a[2], a[5], a[7]}};
        double b[3] = {-a[3], -a[6], -a[8]};
        double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                     A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                     A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        if (std::fabs(det) < 1e-12) return false;
        double inv = 1.0 / det;
        p.x = inv * (b[0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (b[1] * A[2][2] - A[1][2] * b[2]) +
                     A[0][2] * (b[1] * A[2][1] - A[1][1] * b[2]));
        p.y = inv * (A[0][0] * (b[1] * A[2][2] - A[1][2] * b[2]) - b[0] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                     A[0][2] * (A[1][0] * b[2] - b[1] * A[2][0]));
        p.z = inv * (A[0][0] * (A[1][1] * b[2] - b[1] * A[2][1]) - A[0][1] * (A[1][0] * b[2] - b[1] * A[2][0]) +
                     b[0] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]));
        return true;
    }
};

// Heap entry: (cost, u, w, stamp_u, stamp_w); std::greater gives a min-heap.
using Candidate = std::tuple<double, int, int, unsigned, unsigned>;

class Decimator {
  public:
    explicit Decimator(const Mesh &m) : V(m.v), F(m.f)
    {
        size_t nv = V.size();
        Q.assign(nv, Quadric());
        vdead.assign(nv, false);
        fdead.assign(F.size(), false);
        stamp.assign(nv, 0);
        vf.assign(nv, {});
        for (size_t i = 0; i < F.size(); i++) {
            for (int k = 0; k < 3; k++) vf[F[i][k]].push_back((int)i);
            Vec3 n = cross(V[F[i][1]] - V[F[i][0]], V[F[i][2]] - V[F[i][0]]);
            double area = norm(n);
            if (area <= 0) continue;
            n = n * (1.0 / area);
            double d = -dot(n, V[F[i][0]]);
            for (int k = 0; k < 3; k++) Q[F[i][k]].add_plane(n.x, n.y, n.z, d, area);
        }
        for (size_t i = 0; i < F.size(); i++)
            for (int k = 0; k < 3; k++) {
                int a = F[i][k], b = F[i][(k + 1) % 3];
                if (a < b) push_edge(a, b);
            }
        live_faces = F.size();
    }

    size_t simplify(size_t target_faces)
    {
        size_t collapses = 0;
        while (live_faces > target_faces && !pq.empty()) {
            auto [cost, u, w, su, sw] = pq.top();
            pq.pop();
            (void)cost;
            if (vdead[u] || vdead[w] || stamp[u] != su || stamp[w] != sw) continue;
            Vec3 pos = placement(u, w);
            if (!link_ok(u, w) || flips(u, w, pos) || flips(w, u, pos)) continue;
            collapse(u, w, pos);
            collapses++;
        }
        return collapses;
    }

    Mesh result() const
    {
        Mesh m;
        std::vector<int> remap(V.size(), -1);
        for (size_t i = 0; i < V.size(); i++)
            if (!vdead[i]) {
                remap[i] = (int)m.v.size();
                m.v.push_back(V[i]);
            }
        for (size_t i = 0; i < F.size(); i++)
            if (!fdead[i]) m.f.push_back({remap[F[i][0]], remap[F[i][1]], remap[F[i][2]]});
        return m;
    }

  private:
    std::vector<Vec3> V;
    std::vector<std::array<int, 3>> F;
    std::vector<Quadric> Q;
    std::vector<bool> vdead, fdead;
    std::vector<unsigned> stamp;
    std::vector<std::vector<int>> vf;
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> pq;
    size_t live_faces = 0;

    Vec3 placement(int a, int b) const
    {
        Quadric q = Q[a] + Q[b];
        Vec3 p;
        if (!q.optimum(p)) p = (V[a] + V[b]) * 0.5;
        return p;
    }

    void push_edge(int a, int b)
    {
        Quadric q = Q[a] + Q[b];
        Vec3 p;
        if (!q.optimum(p)) p = (V[a] + V[b]) * 0.5;
        pq.emplace(q.eval(p), a, b, stamp[a], stamp[b]);
    }

    void neighbours(int a, std::vector<int> &out) const
    {
        out.clear();
        for (int fi : vf[a]) {
            if (fdead[fi]) continue;
            for (int k = 0; k < 3; k++)
                if (F[fi][k] != a) out.push_back(F[fi][k]);
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
    }

    bool link_ok(int a, int b)
    {
        neighbours(a, na);
        neighbours(b, nb);
        int common = 0;
        size_t i = 0, j = 0;
        while (i < na.size() && j < nb.size()) {
            if (na[i] == nb[j]) { common++; i++; j++; }
            else if (na[i] < nb[j]) i++;
            else j++;
        }
        return common == 2;
    }

    bool flips(int a, int b, const Vec3 &p) const
    {
        for (int fi : vf[a]) {
            if (fdead[fi]) continue;
            const auto &t = F[fi];
            if (t[0] == b || t[1] == b || t[2] == b) continue;
            Vec3 P[3], Pn[3];
            for (int k = 0; k < 3; k++) {
                P[k] = V[t[k]];
                Pn[k] = (t[k] == a) ? p : P[k];
            }
            Vec3 n0 = cross(P[1] - P[0], P[2] - P[0]), n1 = cross(Pn[1] - Pn[0], Pn[2] - Pn[0]);
            double l0 = norm(n0), l1 = norm(n1);
            if (l1 < 1e-14 || dot(n0, n1) < 0.3 * l0 * l1) return true;
        }
        return false;
    }

    void collapse(int a, int b, const Vec3 &p)
    {
        V[a] = p;
        Q[a] = Q[a] + Q[b];
        for (int fi : vf[b]) {
            if (fdead[fi]) continue;
            auto &t = F[fi];
            if (t[0] == a || t[1] == a || t[2] == a) {
                fdead[fi] = true;
                live_faces--;
                continue;
            }
            for (int k = 0; k < 3; k++)
                if (t[k] == b) t[k] = a;
            vf[a].push_back(fi);
        }
        vdead[b] = true;
        vf[b].clear();
        std::vector<int> live;
        for (int fi : vf[a])
            if (!fdead[fi]) live.push_back(fi);
        vf[a].swap(live);
        stamp[a]++; // invalidates every queued edge touching a
        neighbours(a, na);
        for (int n : na) push_edge(a, n);
    }
    std::vector<int> na, nb;
};

// ---------------------------------------------------------------- error metric
// Closest point on triangle (Ericson, Real-Time Collision Detection), written
// out in scalars because it is the innermost kernel of the error metric.
static double point_tri_dist2(const Vec3 &P, const Vec3 &A, const Vec3 &B, const Vec3 &C)
{
    double abx = B.x - A.x, aby = B.y - A.y, abz = B.z - A.z;
    double acx = C.x - A.x, acy = C.y - A.y, acz = C.z - A.z;
    double apx = P.x - A.x, apy = P.y - A.y, apz = P.z - A.z;
    double d1 = abx * apx + aby * apy + abz * apz, d2 = acx * apx + acy * apy + acz * apz;
    double qx, qy, qz;
    if (d1 <= 0 && d2 <= 0) return apx * apx + apy * apy + apz * apz;
    double bpx = P.x - B.x, bpy = P.y - B.y, bpz = P.z - B.z;
    double d3 = abx * bpx + aby * bpy + abz * bpz, d4 = acx * bpx + acy * bpy + acz * bpz;
    if (d3 >= 0 && d4 <= d3) return bpx * bpx + bpy * bpy + bpz * bpz;
    double vc = d1 * d4 - d3 * d2;
    double cpx = P.x - C.x, cpy = P.y - C.y, cpz = P.z - C.z;
    double d5 = abx * cpx + aby * cpy + abz * cpz, d6 = acx * cpx + acy * cpy + acz * cpz;
    double vb = d5 * d2 - d1 * d6;
    double va = d3 * d6 - d5 * d4;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        qx = A.x + abx * v; qy = A.y + aby * v; qz = A.z + abz * v;
    } else if (d6 >= 0 && d5 <= d6) {
        return cpx * cpx + cpy * cpy + cpz * cpz;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        qx = A.x + acx * w; qy = A.y + acy * w; qz = A.z + acz * w;
    } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        qx = B.x + (C.x - B.x) * w; qy = B.y + (C.y - B.y) * w; qz = B.z + (C.z - B.z) * w;
    } else {
        double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
        qx = A.x + abx * v + acx * w; qy = A.y + aby * v + acy * w; qz = A.z + abz * v + acz * w;
    }
    double dx = P.x - qx, dy = P.y - qy, dz = P.z - qz;
    return dx * dx + dy * dy + dz * dz;
}

struct ErrorStats {
    double mean = 0, rms = 0, max = 0, area_mean = 0;
};

static ErrorStats surface_error(const Mesh &orig, const Mesh &simp, const std::string &csv_path)
{
    Vec3 lo(1e30, 1e30, 1e30), hi(-1e30, -1e30, -1e30);
    for (auto &p : orig.v) {
        lo = Vec3(std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z));
        hi = Vec3(std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z));
    }
    const int G = 40;
    Vec3 ext = hi - lo;
    double cs = std::max(ext.x, std::max(ext.y, ext.z)) / G * 1.0001;
    auto cell = [&](double v, double l) { return std::clamp((int)((v - l) / cs), 0, G - 1); };
    std::vector<std::vector<int>> grid((size_t)G * G * G);
    for (size_t i = 0; i < simp.f.size(); i++) {
        const auto &t = simp.f[i];
        Vec3 a = simp.v[t[0]], b = simp.v[t[1]], c = simp.v[t[2]];
        int x0 = cell(std::min({a.x, b.x, c.x}), lo.x), x1 = cell(std::max({a.x, b.x, c.x}), lo.x);
        int y0 = cell(std::min({a.y, b.y, c.y}), lo.y), y1 = cell(std::max({a.y, b.y, c.y}), lo.y);
        int z0 = cell(std::min({a.z, b.z, c.z}), lo.z), z1 = cell(std::max({a.z, b.z, c.z}), lo.z);
        for (int x = x0; x <= x1; x++)
            for (int y = y0; y <= y1; y++)
                for (int z = z0; z <= z1; z++) grid[((size_t)x * G + y) * G + z].push_back((int)i);
    }
    std::vector<int> seen(simp.f.size(), -1);
    int query_id = 0;
    auto nearest = [&](const Vec3 &p) {
        int cx = cell(p.x, lo.x), cy = cell(p.y, lo.y), cz = cell(p.z, lo.z);
        double best = 1e300;
        query_id++;
        for (int r = 1; r <= G && best > 1e299; r++) {
            for (int x = std::max(0, cx - r); x <= std::min(G - 1, cx + r); x++)
                for (int y = std::max(0, cy - r); y <= std::min(G - 1, cy + r); y++)
                    for (int z = std::max(0, cz - r); z <= std::min(G - 1, cz + r); z++)
                        for (int fi : grid[((size_t)x * G + y) * G + z]) {
                            if (seen[fi] == query_id) continue;
                            seen[fi] = query_id;
                            const auto &t = simp.f[fi];
                            best = std::min(best, point_tri_dist2(p, simp.v[t[0]], simp.v[t[1]], simp.v[t[2]]));
                        }
        }
        return std::sqrt(best);
    };
    std::ofstream csv(csv_path);
    csv << "vertex,x,y,z,distance\n";
    ErrorStats st;
    for (size_t vi = 0; vi < orig.v.size(); vi++) {
        const Vec3 &p = orig.v[vi];
        double d = nearest(p);
        st.mean += d;
        st.rms += d * d;
        st.max = std::max(st.max, d);
        csv << vi << ',' << p.x << ',' << p.y << ',' << p.z << ',' << d << '\n';
    }
    // interior samples of every original face (barycentric stencil)
    static const double bary[4][3] = {{1. / 3, 1. / 3, 1. / 3}, {0.6, 0.2, 0.2}, {0.2, 0.6, 0.2}, {0.2, 0.2, 0.6}};
    double area_sum = 0, face_err = 0;
    for (const auto &t : orig.f) {
        const Vec3 &a = orig.v[t[0]], &b = orig.v[t[1]], &c = orig.v[t[2]];
        double area = 0.5 * norm(cross(b - a, c - a)), e = 0;
        for (const auto &w : bary) {
            Vec3 p(w[0] * a.x + w[1] * b.x + w[2] * c.x, w[0] * a.y + w[1] * b.y + w[2] * c.y,
                   w[0] * a.z + w[1] * b.z + w[2] * c.z);
            double d = nearest(p);
            e += 0.25 * d;
            st.max = std::max(st.max, d);
        }
        face_err += area * e;
        area_sum += area;
    }
    st.area_mean = face_err / area_sum;
    st.mean /= orig.v.size();
    st.rms = std::sqrt(st.rms / orig.v.size());
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 1;
    }
    const std::string dir = argv[1];
    try {
        Mesh gen = make_pebble(6);
        write_obj(dir + "/pebble_full.obj", gen, "synthetic scanned pebble, icosphere level 6");
        Mesh orig = read_obj(dir + "/pebble_full.obj");

        std::ofstream rep(dir + "/decimation_report.txt");
        rep << "stage  faces_in  faces_out  collapses  mean_err   rms_err    max_err    area_err\n";
        const double ratios[2] = {0.30, 0.08};
        std::string prev_ply;
        for (int s = 0; s < 2; s++) {
            Mesh in = (s == 0) ? orig : read_ply(prev_ply);
            Decimator dec(in);
            size_t target = (size_t)(orig.f.size() * ratios[s]);
            size_t nc = dec.simplify(target);
            Mesh out = dec.result();
            std::string base = dir + "/pebble_lod" + std::to_string(s + 1);
            write_obj(base + ".obj", out, "quadric decimation stage " + std::to_string(s + 1));
            write_ply(base + ".ply", out);
            prev_ply = base + ".ply";
            ErrorStats e = surface_error(orig, out, base + "_error.csv");
            rep << std::setw(5) << s + 1 << std::setw(10) << in.f.size() << std::setw(11) << out.f.size()
                << std::setw(11) << nc << std::scientific << std::setprecision(3) << std::setw(11) << e.mean
                << std::setw(11) << e.rms << std::setw(11) << e.max << std::setw(11) << e.area_mean << std::defaultfloat << '\n';
            std::cout << "stage " << s + 1 << ": " << in.f.size() << " -> " << out.f.size() << " faces, max err "
                      << e.max << '\n';
        }
    } catch (const std::exception &ex) {
        std::cerr << "mesh_obj_decimate: " << ex.what() << '\n';
        return 2;
    }
    return 0;
}
