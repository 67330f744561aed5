// spring_mass_cloth_frames.cpp
//
// Mass-spring cloth draped over a sphere in a gusty wind.  Position-based
// Verlet integration with structural, shear and bending springs and several
// constraint-relaxation passes per step.  Output:
//   * frames.bin    - every FRAME_EVERY steps a framed binary record
//                     (header + float xyz positions) via std::ofstream::write,
//   * frames.idx    - a text index of (step, byte offset, checksum),
//   * obj/*.obj     - every OBJ_EVERY steps a Wavefront OBJ mesh with normals,
//   * replay.csv    - produced by re-opening frames.bin, seeking to frames
//                     in index order (newest first) and computing strain and
//                     kinetic-energy statistics between consecutive frames.
//
// usage: spring_mass_cloth_frames DIR

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kNx = 48;
constexpr int kNy = 48;
constexpr int kSteps = 900;
constexpr int kFrameEvery = 3;
constexpr int kObjEvery = 60;
constexpr int kRelaxIters = 6;
constexpr double kDt = 1.0 / 240.0;
constexpr double kSpacing = 0.02;

struct Vec3 {
    double x = 0, y = 0, z = 0;
};

inline double dist(const Vec3 &a, const Vec3 &b)
{
    double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

struct Spring {
    int a, b;
    double rest;
    double stiffness;
};

struct Cloth {
    std::vector<Vec3> pos, prev;
    std::vector<double> inv_mass;
    std::vector<Spring> springs;
};

struct FrameHeader {
    char magic[4];
    int32_t step;
    int32_t nx, ny;
    double time;
    uint32_t checksum;
    uint32_t pad;
};

struct IndexEntry {
    int step;
    std::streamoff offset;
    uint32_t checksum;
};

#define IDX(i, j) ((j) * kNx + (i))

Cloth build_cloth()
{
    Cloth c;
    c.pos.resize(kNx * kNy);
    c.inv_mass.assign(kNx * kNy, 1.0);
    for (int j = 0; j < kNy; ++j)
        for (int i = 0; i < kNx; ++i) {
            // horizontal sheet above the sphere, slightly tilted
            c.pos[IDX(i, j)] = {(i - kNx / 2) * kSpacing, 0.8 + 0.002 * i, (j - kNy / 2) * kSpacing};
        }
    c.prev = c.pos;
    // pin two corners
    c.inv_mass[IDX(0, 0)] = 0.0;
    c.inv_mass[IDX(kNx - 1, 0)] = 0.0;
    auto add = [&](int a, int b, double k) { c.springs.push_back({a, b, dist(c.pos[a], c.pos[b]), k}); };
    for (int j = 0; j < kNy; ++j)
        for (int i = 0; i < kNx; ++i) {
            if (i + 1 < kNx) add(IDX(i, j), IDX(i + 1, j), 1.0);
            if (j + 1 < kNy) add(IDX(i, j), IDX(i, j + 1), 1.0);
            if (i + 1 < kNx && j + 1 < kNy) {
                add(IDX(i, j), IDX(i + 1, j + 1), 0.7);
                add(IDX(i + 1, j), IDX(i, j + 1), 0.7);
            }
            if (i + 2 < kNx) add(IDX(i, j), IDX(i + 2, j), 0.25);
            if (j + 2 < kNy) add(IDX(i, j), IDX(i, j + 2), 0.25);
        }
    return c;
}

Vec3 wind_at(double t, const Vec3 &p)
{
    double gust = 0.6 + 0.4 * std::sin(2.1 * t) * std::sin(0.7 * t + 3.0 * p.x);
    return {1.4 * gust, 0.0, 0.3 * std::cos(1.3 * t + 2.0 * p.z)};
}

// Verlet step with gravity + wind drag on vertices, then spring relaxation and sphere collision.
void step_cloth(Cloth &c, double t)
{
    const double gy = -9.81, cx = 0.0, cy = 0.35, cz = 0.0, radius = 0.35;
    for (size_t k = 0; k < c.pos.size(); ++k) {
        if (c.inv_mass[k] == 0.0) continue;
        Vec3 &p = c.pos[k], &q = c.prev[k];
        Vec3 w = wind_at(t, p);
        double vx = p.x - q.x, vy = p.y - q.y, vz = p.z - q.z;
        double ax = 0.5 * (w.x - vx / kDt), ay = gy + 0.5 * (w.y - vy / kDt), az = 0.5 * (w.z - vz / kDt);
        q = p;
        p.x += 0.995 * vx + kDt * kDt * ax;
        p.y += 0.995 * vy + kDt * kDt * ay;
        p.z += 0.995 * vz + kDt * kDt * az;
    }
    for (int it = 0; it < kRelaxIters; ++it) {
        for (const Spring &s : c.springs) {
            Vec3 &pa = c.pos[s.a], &pb = c.pos[s.b];
            double dx = pb.x - pa.x, dy = pb.y - pa.y, dz = pb.z - pa.z;
            double len = std::sqrt(dx * dx + dy * dy + dz * dz);
            double w = c.inv_mass[s.a] + c.inv_mass[s.b];
            if (len < 1e-12 || w == 0.0) continue;
            double corr = s.stiffness * (len - s.rest) / (len * w);
            double ca = corr * c.inv_mass[s.a], cb = corr * c.inv_mass[s.b];
            pa.x += ca * dx; pa.y += ca * dy; pa.z += ca * dz;
            pb.x -= cb * dx; pb.y -= cb * dy; pb.z -= cb * dz;
        }
        for (Vec3 &p : c.pos) {
            double rx = p.x - cx, ry = p.y - cy, rz = p.z - cz;
            double d = std::sqrt(rx * rx + ry * ry + rz * rz);
            if (d < radius * 1.01) {
                double s = radius * 1.01 / d;
                p.x = cx + s * rx; p.y = cy + s * ry; p.z = cz + s * rz;
            }
        }
    }
}

uint32_t fletcher32(const void *data, size_t nbytes)
{
    const uint8_t *p = static_cast<const uint8_t *>(data);
    uint32_t a = 0xffff, b = 0xffff;
    for (size_t i = 0; i < nbytes; ++i) {
        a = (a + p[i]) % 65535u;
        b = (b + a) % 65535u;
    }
    return (b << 16) | a;
}

IndexEntry append_frame(std::ofstream &out, const Cloth &c, int step, double t)
{
    std::vector<float> xyz(c.pos.size() * 3);
    for (size_t k = 0; k < c.pos.size(); ++k) {
        xyz[3 * k] = static_cast<float>(c.pos[k].x);
        xyz[3 * k + 1] = static_cast<float>(c.pos[k].y);
        xyz[3 * k + 2] = static_cast<float>(c.pos[k].z);
    }
    FrameHeader h{};
    std::memcpy(h.magic, "CLTH", 4);
    h.step = step;
    h.nx = kNx;
    h.ny = kNy;
    h.time = t;
    h.checksum = fletcher32(xyz.data(), xyz.size() * sizeof(float));
    IndexEntry e{step, static_cast<std::streamoff>(out.tellp()), h.checksum};
    out.write(reinterpret_cast<const char *>(&h), sizeof h);
    out.write(reinterpret_cast<const char *>(xyz.data()), static_cast<std::streamsize>(xyz.size() * sizeof(float)));
    if (!out) throw std::runtime_error("frame write failed");
    return e;
}

void write_obj(const fs::path &path, const Cloth &c)
{
    // area-weighted vertex normals from the two triangles of every quad
    std::vector<Vec3> normal(c.pos.size());
    auto accumulate_face = [&](int a, int b, int d) {
        const Vec3 &pa = c.pos[a], &pb = c.pos[b], &pd = c.pos[d];
        double ux = pb.x - pa.x, uy = pb.y - pa.y, uz = pb.z - pa.z;
        double vx = pd.x - pa.x, vy = pd.y - pa.y, vz = pd.z - pa.z;
        double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        for (int v : {a, b, d}) {
            normal[v].x += nx; normal[v].y += ny; normal[v].z += nz;
        }
    };
    for (int j = 0; j + 1 < kNy; ++j)
        for (int i = 0; i + 1 < kNx; ++i) {
            accumulate_face(IDX(i, j), IDX(i + 1, j), IDX(i, j + 1));
            accumulate_face(IDX(i + 1, j + 1), IDX(i, j + 1), IDX(i + 1, j));
        }
    std::ofstream out(path);
    out << std::fixed << std::setprecision(5);
    out << "# cloth " << kNx << "x" << kNy << "\n";
    for (const Vec3 &p : c.pos) out << "v " << p.x << ' ' << p.y << ' ' << p.z << '\n';
    for (const Vec3 &n : normal) {
        double l = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
        if (l > 0)
            out << "vn " << n.x / l << ' ' << n.y / l << ' ' << n.z / l << '\n';
        else
            out << "vn 0 1 0\n";
    }
    for (int j = 0; j + 1 < kNy; ++j)
        for (int i = 0; i + 1 < kNx; ++i) {
            int a = IDX(i, j) + 1, b = IDX(i + 1, j) + 1, d = IDX(i, j + 1) + 1, e = IDX(i + 1, j + 1) + 1;
            out << "f " << a << "//" << a << ' ' << b << "//" << b << ' ' << d << "//" << d << '\n';
            out << "f " << b << "//" << b << ' ' << e << "//" << e << ' ' << d << "//" << d << '\n';
        }
}

void write_index(const fs::path &path, const std::vector<IndexEntry> &index)
{
    std::ofstream out(path);
    for (const auto &e : index) out << e.step << ' ' << e.offset << ' ' << e.checksum << '\n';
}

std::vector<IndexEntry> read_index(const fs::path &path)
{
    std::ifstream in(path);
    std::vector<IndexEntry> index;
    IndexEntry e{};
    while (in >> e.step >> e.offset >> e.checksum) index.push_back(e);
    return index;
}

bool read_frame(std::ifstream &in, const IndexEntry &e, std::vector<float> &xyz, FrameHeader &h)
{
    in.seekg(e.offset);
    in.read(reinterpret_cast<char *>(&h), sizeof h);
    xyz.resize(static_cast<size_t>(h.nx) * h.ny * 3);
    in.read(reinterpret_cast<char *>(xyz.data()), static_cast<std::streamsize>(xyz.size() * sizeof(float)));
    return in && std::memcmp(h.magic, "CLTH", 4) == 0 && fletcher32(xyz.data(), xyz.size() * sizeof(float)) == e.checksum;
}

// Walk frames newest-to-oldest; report mean strain of structural springs and
// kinetic energy estimated from the displacement between stored frames.
int replay_statistics(const fs::path &bin, const fs::path &idxfile, const fs::path &csv, const Cloth &topo)
{
    auto index = read_index(idxfile);
    std::ifstream in(bin, std::ios::binary);
    std::ofstream out(csv);
    out << "step,time,mean_strain,max_strain,kinetic_energy,lowest_y\n";
    std::vector<float> cur, older;
    FrameHeader h{}, ho{};
    int bad = 0;
    for (size_t k = index.size(); k-- > 1;) {
        if (!read_frame(in, index[k], cur, h) || !read_frame(in, index[k - 1], older, ho)) {
            ++bad;
            continue;
        }
        double ssum = 0.0, smax = 0.0;
        int ns = 0;
        for (const Spring &s : topo.springs) {
            if (s.stiffness < 1.0) continue;
            double dx = cur[3 * s.a] - cur[3 * s.b], dy = cur[3 * s.a + 1] - cur[3 * s.b + 1],
                   dz = cur[3 * s.a + 2] - cur[3 * s.b + 2];
            double strain = std::sqrt(dx * dx + dy * dy + dz * dz) / s.rest - 1.0;
            ssum += strain;
            smax = std::max(smax, strain);
            ++ns;
        }
        double dt = h.time - ho.time, ke = 0.0, ymin = 1e9;
        for (size_t v = 0; v < cur.size(); v += 3) {
            double vx = (cur[v] - older[v]) / dt, vy = (cur[v + 1] - older[v + 1]) / dt, vz = (cur[v + 2] - older[v + 2]) / dt;
            ke += 0.5 * (vx * vx + vy * vy + vz * vz);
            ymin = std::min<double>(ymin, cur[v + 1]);
        }
        out << h.step << ',' << h.time << ',' << ssum / ns << ',' << smax << ',' << ke << ',' << ymin << '\n';
    }
    return bad;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 2;
    }
    const fs::path dir(argv[1]);
    fs::create_directories(dir / "obj");
    Cloth cloth = build_cloth();
    const Cloth topology = cloth;

    std::ofstream frames(dir / "frames.bin", std::ios::binary);
    std::vector<IndexEntry> index;
    double t = 0.0;
    for (int step = 1; step <= kSteps; ++step) {
        step_cloth(cloth, t);
        t += kDt;
        if (step % kFrameEvery == 0) index.push_back(append_frame(frames, cloth, step, t));
        if (step % kObjEvery == 0) {
            std::ostringstream name;
            name << "cloth_" << std::setw(5) << std::setfill('0') << step << ".obj";
            write_obj(dir / "obj" / name.str(), cloth);
        }
    }
    frames.close();
    write_index(dir / "frames.idx", index);
    int bad = replay_statistics(dir / "frames.bin", dir / "frames.idx", dir / "replay.csv", topology);
    std::cout << index.size() << " frames stored, " << bad << " bad frames on replay\n";
    return bad == 0 ? 0 : 1;
}
