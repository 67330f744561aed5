// Laplacian mesh smoothing of a noisy height-field surface.
// The triangle mesh is written as OBJ-style text, read back token by token,
// vertex adjacency is built from the triangles, boundary vertices are pinned
// and the interior is smoothed; the result is written as legacy VTK (ASCII).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mesh {

struct Vec3 {
    double x, y, z;
};

struct TriMesh {
    std::vector<Vec3> verts;
    std::vector<int> tris;            // 3 indices per triangle, 0-based
    std::vector<int> adj_start;       // CSR adjacency
    std::vector<int> adj;
    std::vector<char> boundary;
    std::size_t ntris() const { return tris.size() / 3; }
};

class Lcg {
public:
    explicit Lcg(std::uint64_t seed) : s_(seed) {}
    double uniform() {
        s_ = s_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(s_ >> 11) * (1.0 / 9007199254740992.0);
    }
private:
    std::uint64_t s_;
};

TriMesh make_noisy_surface(int nu, int nv, double noise, std::uint64_t seed)
{
    TriMesh m;
    Lcg rng(seed);
    m.verts.reserve(static_cast<std::size_t>(nu) * nv);
    for (int j = 0; j < nv; ++j) {
        for (int i = 0; i < nu; ++i) {
            double u = static_cast<double>(i) / (nu - 1);
            double v = static_cast<double>(j) / (nv - 1);
            double z = 0.2 * std::sin(2.0 * M_PI * u) * std::cos(M_PI * v);
            bool edge = (i == 0 || j == 0 || i == nu - 1 || j == nv - 1);
            if (!edge) z += noise * (rng.uniform() - 0.5);
            m.verts.push_back({u, v, z});
        }
    }
    for (int j = 0; j + 1 < nv; ++j) {
        for (int i = 0; i + 1 < nu; ++i) {
            int a = j * nu + i, b = a + 1, c = a + nu, d = c + 1;
            m.tris.insert(m.tris.end(), {a, b, d});
            m.tris.insert(m.tris.end(), {a, d, c});
        }
    }
    return m;
}

void write_obj(const std::string &path, const TriMesh &m)
{
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot create " + path);
    out << "# noisy height field\n";
    out << "o surface\n";
    out << std::setprecision(10);
    for (const Vec3 &p : m.verts)
        out << "v " << p.x << ' ' << p.y << ' ' << p.z << '\n';
    for (std::size_t t = 0; t < m.ntris(); ++t)
        out << "f " << m.tris[3 * t] + 1 << ' ' << m.tris[3 * t + 1] + 1 << ' '
            << m.tris[3 * t + 2] + 1 << '\n';
    if (!out) throw std::runtime_error("write failed on " + path);
}

TriMesh read_obj(const std::string &path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    TriMesh m;
    std::string tok;
    while (in >> tok) {
        if (tok == "v") {
            Vec3 p;
            in >> p.x >> p.y >> p.z;
            m.verts.push_back(p);
        } else if (tok == "f") {
            int a, b, c;
            in >> a >> b >> c;
            m.tris.push_back(a - 1);
            m.tris.push_back(b - 1);
            m.tris.push_back(c - 1);
        } else {
            std::string rest;
            std::getline(in, rest);     // comment or object name
        }
    }
    return m;
}

void build_adjacency(TriMesh &m)
{
    const std::size_t nv = m.verts.size();
    std::vector<std::pair<int, int>> edges;
    edges.reserve(m.tris.size() * 2);
    for (std::size_t t = 0; t < m.ntris(); ++t) {
        for (int k = 0; k < 3; ++k) {
            int a = m.tris[3 * t + k], b = m.tris[3 * t + (k + 1) % 3];
            edges.emplace_back(a, b);
            edges.emplace_back(b, a);
        }
    }
    std::sort(edges.begin(), edges.end());
    // an edge used by only one triangle appears once in each direction
    m.boundary.assign(nv, 0);
    std::vector<std::pair<int, int>> uniq;
    uniq.reserve(edges.size() / 2);
    for (std::size_t i = 0; i < edges.size();) {
        std::size_t j = i;
        while (j < edges.size() && edges[j] == edges[i]) ++j;
        if (j - i == 1) {
            m.boundary[edges[i].first] = 1;
            m.boundary[edges[i].second] = 1;
        }
        uniq.push_back(edges[i]);
        i = j;
    }
    m.adj_start.assign(nv + 1, 0);
    for (const auto &e : uniq) m.adj_start[e.first + 1]++;
    for (std::size_t v = 0; v < nv; ++v) m.adj_start[v + 1] += m.adj_start[v];
    m.adj.resize(uniq.size());
    std::vector<int> fill(m.adj_start.begin(), m.adj_start.end() - 1);
    for (const auto &e : uniq) m.adj[fill[e.first]++] = e.second;
}

double roughness(const TriMesh &m)
{
    double sum = 0.0;
    std::size_t n = 0;
    for (std::size_t v = 0; v < m.verts.size(); ++v) {
        if (m.boundary[v]) continue;
        double cx = 0, cy = 0, cz = 0;
        int deg = m.adj_start[v + 1] - m.adj_start[v];
        for (int k = m.adj_start[v]; k < m.adj_start[v + 1]; ++k) {
            const Vec3 &q = m.verts[m.adj[k]];
            cx += q.x; cy += q.y; cz += q.z;
        }
        double dx = cx / deg - m.verts[v].x, dy = cy / deg - m.verts[v].y,
               dz = cz / deg - m.verts[v].z;
        sum += dx * dx + dy * dy + dz * dz;
        ++n;
    }
    return std::sqrt(sum / static_cast<double>(n));
}

void laplacian_smooth(TriMesh &m, int iterations, double lambda)
{
    std::vector<Vec3> next(m.verts.size());
    for (int it = 0; it < iterations; ++it) {
        for (std::size_t v = 0; v < m.verts.size(); ++v) {
            const Vec3 &p = m.verts[v];
            if (m.boundary[v]) { next[v] = p; continue; }
            double cx = 0, cy = 0, cz = 0;
            int b = m.adj_start[v], e = m.adj_start[v + 1];
            for (int k = b; k < e; ++k) {
                const Vec3 &q = m.verts[m.adj[k]];
                cx += q.x; cy += q.y; cz += q.z;
            }
            double inv = 1.0 / (e - b);
            next[v] = {p.x + lambda * (cx * inv - p.x),
                       p.y + lambda * (cy * inv - p.y),
                       p.z + lambda * (cz * inv - p.z)};
        }
        m.verts.swap(next);
    }
}

void write_vtk(const std::string &path, const TriMesh &m)
{
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot create " + path);
    out << "# vtk DataFile Version 3.0\n";
    out << "smoothed surface\nASCII\nDATASET POLYDATA\n";
    out << "POINTS " << m.verts.size() << " double\n";
    out << std::setprecision(9);
    for (const Vec3 &p : m.verts) out << p.x << ' ' << p.y << ' ' << p.z << '\n';
    out << "POLYGONS " << m.ntris() << ' ' << 4 * m.ntris() << '\n';
    for (std::size_t t = 0; t < m.ntris(); ++t)
        out << "3 " << m.tris[3 * t] << ' ' << m.tris[3 * t + 1] << ' ' << m.tris[3 * t + 2] << '\n';
    out << "POINT_DATA " << m.verts.size() << "\nSCALARS height double 1\nLOOKUP_TABLE default\n";
    for (const Vec3 &p : m.verts) out << p.z << '\n';
    out << "SCALARS boundary int 1\nLOOKUP_TABLE default\n";
    for (char b : m.boundary) out << static_cast<int>(b) << '\n';
    if (!out) throw std::runtime_error("write failed on " + path);
}

} // namespace mesh

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    const int nu = 340, nv = 300;
    try {
        mesh::TriMesh src = mesh::make_noisy_surface(nu, nv, 0.02, 20240611ULL);
        mesh::write_obj(dir + "/surface.obj", src);
        mesh::TriMesh m = mesh::read_obj(dir + "/surface.obj");

        if (m.verts.size() != src.verts.size() || m.tris != src.tris) {
            std::cerr << "mesh read back with wrong topology\n";
            return 1;
        }
        double maxerr = 0.0;
        for (std::size_t i = 0; i < m.verts.size(); ++i) {
            maxerr = std::max({maxerr, std::fabs(m.verts[i].x - src.verts[i].x),
                               std::fabs(m.verts[i].y - src.verts[i].y),
                               std::fabs(m.verts[i].z - src.verts[i].z)});
        }
        if (maxerr > 1e-9) {
            std::cerr << "vertex coordinates differ by " << maxerr << "\n";
            return 1;
        }

        mesh::build_adjacency(m);
        std::size_t nb = std::count(m.boundary.begin(), m.boundary.end(), 1);
        if (nb != static_cast<std::size_t>(2 * (nu + nv) - 4)) {
            std::cerr << "unexpected boundary vertex count " << nb << "\n";
            return 1;
        }
        double r0 = mesh::roughness(m);
        mesh::laplacian_smooth(m, 150, 0.5);
        double r1 = mesh::roughness(m);
        mesh::write_vtk(dir + "/smoothed.vtk", m);

        std::cout << "vertices " << m.verts.size() << ", triangles " << m.ntris()
                  << ", boundary " << nb << ", roughness " << r0 << " -> " << r1 << "\n";
        if (!(r1 < 0.2 * r0)) {
            std::cerr << "smoothing did not reduce roughness enough\n";
            return 1;
        }
    } catch (const std::exception &e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
