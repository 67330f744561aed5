// rigid_body_serial: a small rigid-body dynamics code.  Bodies of three kinds
// (spheres, boxes, point clusters) derive from an abstract Body class that
// supplies the principal moments of inertia; they attract each other with a
// softened pairwise force and spin according to Euler's equations (RK4).
// Every kSnapEvery steps the whole scene is serialised with ofstream::write
// (header, then per body: kind tag, a POD state block and the shape
// parameter array).  Afterwards every snapshot is deserialised with
// ifstream::read, energies are recomputed and compared with the values
// recorded during the run, and the last snapshot is compared bit for bit.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

const int kBodies = 800;
const int kSteps = 160;
const int kSnapEvery = 8;
const double kDt = 2e-3;
const double kSoft2 = 0.05;
const uint32_t kMagic = 0x52424431;  // "RBD1"

enum Kind : uint8_t { kSphere = 1, kBox = 2, kCluster = 3 };

// Plain-old-data part of a body, written and read as one block.
struct BodyState {
    uint32_t id;
    uint32_t pad;
    double mass;
    double pos[3], vel[3], omega[3];
    double quat[4];
};

class Body {
  public:
    virtual ~Body() = default;
    // principal moments of inertia per unit mass, body frame
    virtual void inertia(double I[3]) const = 0;
    Kind kind = kSphere;
    BodyState st{};
    std::vector<double> shape;  // kind-specific parameters
};

class Sphere : public Body {
  public:
    void inertia(double I[3]) const override { I[0] = I[1] = I[2] = 0.4 * shape[0] * shape[0]; }
};

class Box : public Body {
  public:
    void inertia(double I[3]) const override {
        double a = 4 * shape[0] * shape[0], b = 4 * shape[1] * shape[1], c = 4 * shape[2] * shape[2];
        I[0] = (b + c) / 12.0;
        I[1] = (a + c) / 12.0;
        I[2] = (a + b) / 12.0;
    }
};

// Point masses stored as (x, y, z, w) quadruples; the inertia tensor is
// assembled and diagonalised with cyclic Jacobi rotations on every call.
class Cluster : public Body {
  public:
    void inertia(double I[3]) const override {
        double T[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, wsum = 0;
        for (size_t k = 0; k + 3 < shape.size(); k += 4) {
            const double *p = &shape[k];
            double w = p[3], r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) T[a][b] += w * ((a == b ? r2 : 0.0) - p[a] * p[b]);
            wsum += w;
        }
        for (int sweep = 0; sweep < 30; ++sweep) {
            double off = T[0][1] * T[0][1] + T[0][2] * T[0][2] + T[1][2] * T[1][2];
            if (off < 1e-24) break;
            for (int p = 0; p < 2; ++p)
                for (int r = p + 1; r < 3; ++r) {
                    if (std::fabs(T[p][r]) < 1e-300) continue;
                    double th = (T[r][r] - T[p][p]) / (2 * T[p][r]);
                    double t = (th >= 0 ? 1.0 : -1.0) / (std::fabs(th) + std::sqrt(th * th + 1));
                    double c = 1 / std::sqrt(t * t + 1), s = t * c;
                    for (int k = 0; k < 3; ++k) {
                        double x = T[k][p], y = T[k][r];
                        T[k][p] = c * x - s * y;
                        T[k][r] = s * x + c * y;
                    }
                    for (int k = 0; k < 3; ++k) {
                        double x = T[p][k], y = T[r][k];
                        T[p][k] = c * x - s * y;
                        T[r][k] = s * x + c * y;
                    }
                }
        }
        for (int a = 0; a < 3; ++a) I[a] = T[a][a] / wsum;
    }
};

double urand(uint64_t &s, double lo, double hi) {
    s = s * 6364136223846793005ULL + 1ULL;
    return lo + (hi - lo) * (static_cast<double>(s >> 11) / 9007199254740992.0);
}

template <typename T> void read_pod(std::istream &is, T *v, size_t n = 1) {
    if (!is.read(reinterpret_cast<char *>(v), static_cast<std::streamsize>(n * sizeof(T))))
        throw std::runtime_error("short read in snapshot");
}

std::vector<std::unique_ptr<Body>> build_scene(uint64_t seed) {
    uint64_t s = seed;
    std::vector<std::unique_ptr<Body>> bodies;
    for (int i = 0; i < kBodies; ++i) {
        std::unique_ptr<Body> b;
        if (i % 3 == 0) {
            b = std::make_unique<Sphere>();
            b->kind = kSphere;
            b->shape = {urand(s, 0.2, 0.6)};
        } else if (i % 3 == 1) {
            b = std::make_unique<Box>();
            b->kind = kBox;
            b->shape = {urand(s, 0.1, 0.5), urand(s, 0.1, 0.5), urand(s, 0.1, 0.5)};
        } else {
            b = std::make_unique<Cluster>();
            b->kind = kCluster;
            int n = 24 + static_cast<int>(urand(s, 0, 40));
            for (int k = 0; k < n; ++k) {
                b->shape.push_back(urand(s, -0.5, 0.5));
                b->shape.push_back(urand(s, -0.3, 0.3));
                b->shape.push_back(urand(s, -0.2, 0.2));
                b->shape.push_back(urand(s, 0.5, 1.5));
            }
        }
        BodyState &st = b->st;
        st.id = static_cast<uint32_t>(i);
        st.mass = urand(s, 0.5, 2.0);
        for (int d = 0; d < 3; ++d) {
            st.pos[d] = urand(s, -20, 20);
            st.vel[d] = urand(s, -1, 1);
            st.omega[d] = urand(s, -3, 3);
        }
        st.quat[0] = 1.0;
        bodies.push_back(std::move(b));
    }
    return bodies;
}

// One time step: O(N^2) softened attraction, symplectic Euler for the
// centres of mass, RK4 on Euler's equations and quaternion update for spin.
void step_scene(std::vector<std::unique_ptr<Body>> &bodies, std::vector<double> &acc) {
    const size_t n = bodies.size();
    acc.assign(3 * n, 0.0);
    for (size_t i = 0; i < n; ++i) {
        const double *pi = bodies[i]->st.pos;
        double a[3] = {0, 0, 0};
        for (size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const BodyState &o = bodies[j]->st;
            double d[3] = {o.pos[0] - pi[0], o.pos[1] - pi[1], o.pos[2] - pi[2]};
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + kSoft2;
            double inv = o.mass / (r2 * std::sqrt(r2));
            for (int k = 0; k < 3; ++k) a[k] += d[k] * inv;
        }
        for (int k = 0; k < 3; ++k) acc[3 * i + k] = 0.01 * a[k];
    }
    for (size_t i = 0; i < n; ++i) {
        BodyState &st = bodies[i]->st;
        for (int k = 0; k < 3; ++k) {
            st.vel[k] += kDt * acc[3 * i + k];
            st.pos[k] += kDt * st.vel[k];
        }
        double I[3], w[3], k1[3], k2[3], k3[3], k4[3], tmp[3];
        bodies[i]->inertia(I);
        std::memcpy(w, st.omega, sizeof w);
        double *ks[4] = {k1, k2, k3, k4};
        const double frac[4] = {0.0, 0.5, 0.5, 1.0};
        for (int stage = 0; stage < 4; ++stage) {
            for (int k = 0; k < 3; ++k) tmp[k] = w[k] + (stage ? frac[stage] * kDt * ks[stage - 1][k] : 0.0);
            ks[stage][0] = (I[1] - I[2]) * tmp[1] * tmp[2] / I[0];
            ks[stage][1] = (I[2] - I[0]) * tmp[2] * tmp[0] / I[1];
            ks[stage][2] = (I[0] - I[1]) * tmp[0] * tmp[1] / I[2];
        }
        for (int k = 0; k < 3; ++k) st.omega[k] = w[k] + kDt / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
        double *q = st.quat;
        double dq[4] = {-0.5 * (q[1] * w[0] + q[2] * w[1] + q[3] * w[2]),
                        0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]),
                        0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]),
                        0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0])};
        double nrm = 0;
        for (int k = 0; k < 4; ++k) {
            q[k] += kDt * dq[k];
            nrm += q[k] * q[k];
        }
        nrm = std::sqrt(nrm);
        for (int k = 0; k < 4; ++k) q[k] /= nrm;
    }
}

double total_energy(const std::vector<std::unique_ptr<Body>> &bodies) {
    double e = 0;
    for (const auto &b : bodies) {
        const BodyState &st = b->st;
        double I[3];
        b->inertia(I);
        e += 0.5 * st.mass * (st.vel[0] * st.vel[0] + st.vel[1] * st.vel[1] + st.vel[2] * st.vel[2]);
        for (int k = 0; k < 3; ++k) e += 0.5 * st.mass * I[k] * st.omega[k] * st.omega[k];
    }
    return e;
}

void save_snapshot(const std::string &path, int32_t step, const std::vector<std::unique_ptr<Body>> &bodies) {
    std::ofstream os(path, std::ios::binary | std::ios::trunc);
    if (!os) throw std::runtime_error("cannot write " + path);
    uint64_t n = bodies.size();
    os.write(reinterpret_cast<const char *>(&kMagic), sizeof kMagic);
    os.write(reinterpret_cast<const char *>(&step), sizeof step);
    os.write(reinterpret_cast<const char *>(&n), sizeof n);
    for (const auto &b : bodies) {
        uint8_t k = b->kind;
        uint32_t len = static_cast<uint32_t>(b->shape.size());
        os.write(reinterpret_cast<const char *>(&k), sizeof k);
        os.write(reinterpret_cast<const char *>(&b->st), sizeof(BodyState));
        os.write(reinterpret_cast<const char *>(&len), sizeof len);
        os.write(reinterpret_cast<const char *>(b->shape.data()), static_cast<std::streamsize>(len * sizeof(double)));
    }
    if (!os) throw std::runtime_error("write failed on " + path);
}

std::vector<std::unique_ptr<Body>> load_snapshot(const std::string &path, int32_t &step) {
    std::ifstream is(path, std::ios::binary);
    if (!is) throw std::runtime_error("cannot read " + path);
    uint32_t magic = 0;
    uint64_t n = 0;
    read_pod(is, &magic);
    read_pod(is, &step);
    read_pod(is, &n);
    if (magic != kMagic || n > 1000000) throw std::runtime_error("bad header in " + path);
    std::vector<std::unique_ptr<Body>> bodies;
    bodies.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        uint8_t k = 0;
        uint32_t len = 0;
        read_pod(is, &k);
        std::unique_ptr<Body> b;
        if (k == kSphere) b = std::make_unique<Sphere>();
        else if (k == kBox) b = std::make_unique<Box>();
        else if (k == kCluster) b = std::make_unique<Cluster>();
        else throw std::runtime_error("unknown body kind in " + path);
        b->kind = static_cast<Kind>(k);
        read_pod(is, &b->st);
        read_pod(is, &len);
        if (len > 4096) throw std::runtime_error("implausible shape length");
        b->shape.resize(len);
        read_pod(is, b->shape.data(), len);
        bodies.push_back(std::move(b));
    }
    return bodies;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " OUTDIR\n";
        return 2;
    }
    std::string dir = argv[1];
    if ((mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) ||
        (mkdir((dir + "/snapshots").c_str(), 0755) != 0 && errno != EEXIST)) {
        std::cerr << "rigid_body_serial: cannot create output directories\n";
        return 1;
    }
    try {
        auto bodies = build_scene(0xB0D1E5ULL);
        std::vector<double> acc, recorded;
        std::vector<int> snap_steps;
        std::vector<std::string> paths;
        for (int step = 1; step <= kSteps; ++step) {
            step_scene(bodies, acc);
            if (step % kSnapEvery == 0) {
                char name[64];
                std::snprintf(name, sizeof name, "/snapshots/scene_%04zu.rbd", snap_steps.size());
                paths.push_back(dir + name);
                save_snapshot(paths.back(), step, bodies);
                recorded.push_back(total_energy(bodies));
                snap_steps.push_back(step);
            }
        }

        std::ofstream report(dir + "/energy.txt");
        report << std::setprecision(12);
        int bad = 0;
        for (size_t s = 0; s < paths.size(); ++s) {
            int32_t step = -1;
            auto loaded = load_snapshot(paths[s], step);
            double e = total_energy(loaded);
            if (step != snap_steps[s] || loaded.size() != bodies.size() ||
                std::fabs(e - recorded[s]) > 1e-12 * std::fabs(recorded[s]))
                ++bad;
            if (s + 1 == paths.size())
                for (size_t i = 0; i < loaded.size(); ++i)
                    if (std::memcmp(&loaded[i]->st, &bodies[i]->st, sizeof(BodyState)) != 0 ||
                        loaded[i]->kind != bodies[i]->kind || loaded[i]->shape != bodies[i]->shape)
                        ++bad;
            report << "snapshot " << s << " step " << step << " energy " << e << "\n";
        }
        report << "mismatches " << bad << "\n";
        if (bad) {
            std::cerr << "rigid_body_serial: check FAILED (" << bad << " mismatches)\n";
            return 1;
        }
        std::cout << "rigid_body_serial: ok (" << snap_steps.size() << " snapshots, " << bodies.size()
                  << " bodies)\n";
    } catch (const std::exception &e) {
        std::cerr << "rigid_body_serial: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
