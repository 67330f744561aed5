// sph_dambreak_vtk: weakly-compressible SPH simulation of a 2-D dam break.
// Particle states are written as legacy-VTK ASCII polydata frames, binary
// restart files are written periodically with ofstream::write, and the last
// restart is read back and checked at the end.  An energy log is kept.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr double kDx = 0.01;
constexpr double kH = 1.3 * kDx;
constexpr double kBoxW = 1.6, kBoxH = 1.0;
constexpr double kColW = 0.4, kColH = 0.8;
constexpr double kRho0 = 1000.0;
constexpr double kGravity = 9.81;
constexpr double kC0 = 20.0;
constexpr double kAlphaVisc = 0.08;
constexpr double kDt = 6.0e-5;
constexpr int kSteps = 1000;
constexpr int kFrameEvery = 25;
constexpr int kRestartEvery = 250;
constexpr int kLogEvery = 10;
constexpr uint32_t kRestartMagic = 0x53504831;

struct Particles {
    std::vector<double> x, y, vx, vy, ax, ay, rho, drho, p;
    double mass = 0.0;
    size_t size() const { return x.size(); }
};

struct CellGrid {
    int nx = 0, ny = 0;
    double cell = 2.0 * kH;
    std::vector<int> head, next;
};

double kernel_w(double r)
{
    const double q = r / kH, sigma = 10.0 / (7.0 * M_PI * kH * kH);
    if (q < 1.0) return sigma * (1.0 - 1.5 * q * q + 0.75 * q * q * q);
    if (q < 2.0) return sigma * 0.25 * (2.0 - q) * (2.0 - q) * (2.0 - q);
    return 0.0;
}

void init_dam(Particles& ps)
{
    const int nx = static_cast<int>(kColW / kDx), ny = static_cast<int>(kColH / kDx);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            ps.x.push_back((i + 1.0) * kDx);
            ps.y.push_back((j + 1.0) * kDx);
        }
    const size_t n = ps.x.size();
    for (auto* v : {&ps.vx, &ps.vy, &ps.ax, &ps.ay, &ps.drho, &ps.p}) v->assign(n, 0.0);
    ps.rho.assign(n, kRho0);
    ps.mass = kRho0 * kDx * kDx;
    for (size_t i = 0; i < n; ++i) {
        double depth = kColH + kDx - ps.y[i];
        ps.rho[i] = kRho0 * (1.0 + kRho0 * kGravity * depth / (kRho0 * kC0 * kC0));
    }
}

void build_cell_list(const Particles& ps, CellGrid& g)
{
    g.nx = static_cast<int>(kBoxW / g.cell) + 1;
    g.ny = static_cast<int>(kBoxH / g.cell) + 1;
    g.head.assign(static_cast<size_t>(g.nx) * g.ny, -1);
    const size_t n = ps.size();
    g.next.assign(n, -1);
    for (size_t i = 0; i < n; ++i) {
        int cx = std::clamp(static_cast<int>(ps.x[i] / g.cell), 0, g.nx - 1);
        int cy = std::clamp(static_cast<int>(ps.y[i] / g.cell), 0, g.ny - 1);
        int c = cy * g.nx + cx;
        g.next[i] = g.head[c];
        g.head[c] = static_cast<int>(i);
    }
}

// Continuity equation, pressure gradient, artificial viscosity and gravity.
void compute_rates(Particles& ps, const CellGrid& g)
{
    const size_t n = ps.size();
    const double sigma = 10.0 / (7.0 * M_PI * kH * kH);
    for (size_t i = 0; i < n; ++i) {
        ps.p[i] = kRho0 * kC0 * kC0 / 7.0 * (std::pow(ps.rho[i] / kRho0, 7.0) - 1.0);
        ps.ax[i] = 0.0;
        ps.ay[i] = -kGravity;
        ps.drho[i] = 0.0;
    }
    for (size_t i = 0; i < n; ++i) {
        int cx = std::clamp(static_cast<int>(ps.x[i] / g.cell), 0, g.nx - 1);
        int cy = std::clamp(static_cast<int>(ps.y[i] / g.cell), 0, g.ny - 1);
        for (int oy = -1; oy <= 1; ++oy) {
            int yy = cy + oy;
            if (yy < 0 || yy >= g.ny) continue;
            for (int ox = -1; ox <= 1; ++ox) {
                int xx = cx + ox;
                if (xx < 0 || xx >= g.nx) continue;
                for (int j = g.head[yy * g.nx + xx]; j >= 0; j = g.next[j]) {
                    if (static_cast<size_t>(j) == i) continue;
                    double dx = ps.x[i] - ps.x[j], dy = ps.y[i] - ps.y[j];
                    double r2 = dx * dx + dy * dy;
                    if (r2 >= 4.0 * kH * kH || r2 < 1e-14) continue;
                    double r = std::sqrt(r2), q = r / kH;
                    double dw = q < 1.0 ? sigma * (-3.0 * q + 2.25 * q * q) / kH
                                        : -sigma * 0.75 * (2.0 - q) * (2.0 - q) / kH;
                    double ex = dx / r, ey = dy / r;
                    double dvx = ps.vx[i] - ps.vx[j], dvy = ps.vy[i] - ps.vy[j];
                    double vr = dvx * dx + dvy * dy;
                    double pi_ij = 0.0;
                    if (vr < 0.0) {
                        double mu = kH * vr / (r2 + 0.01 * kH * kH);
                        pi_ij = -kAlphaVisc * kC0 * mu / (0.5 * (ps.rho[i] + ps.rho[j]));
                    }
                    double f = -ps.mass * (ps.p[i] / (ps.rho[i] * ps.rho[i]) +
                                           ps.p[j] / (ps.rho[j] * ps.rho[j]) + pi_ij) * dw;
                    ps.ax[i] += f * ex;
                    ps.ay[i] += f * ey;
                    ps.drho[i] += ps.mass * (dvx * ex + dvy * ey) * dw;
                }
            }
        }
    }
}

// Monaghan-type repulsive walls at x = 0, x = kBoxW and y = 0.
void integrate(Particles& ps, double dt)
{
    const double r0 = kDx, strength = 5.0 * kGravity * kColH;
    const size_t n = ps.size();
    for (size_t i = 0; i < n; ++i) {
        const double wall_d[3] = {ps.x[i], kBoxW - ps.x[i], ps.y[i]};
        double wall_a[3] = {0.0, 0.0, 0.0};
        for (int w = 0; w < 3; ++w) {
            if (wall_d[w] >= r0) continue;
            double d = std::max(wall_d[w], 0.05 * r0);
            double q2 = (r0 / d) * (r0 / d);
            wall_a[w] = strength * (q2 * q2 - q2) / d;
        }
        ps.vx[i] += dt * (ps.ax[i] + wall_a[0] - wall_a[1]);
        ps.vy[i] += dt * (ps.ay[i] + wall_a[2]);
        ps.x[i] = std::clamp(ps.x[i] + dt * ps.vx[i], 0.0, kBoxW);
        ps.y[i] = std::clamp(ps.y[i] + dt * ps.vy[i], 0.0, kBoxH);
        ps.rho[i] = std::max(0.9 * kRho0, ps.rho[i] + dt * ps.drho[i]);
    }
}

void log_energy(std::ofstream& log, const Particles& ps, int step)
{
    double ek = 0.0, ep = 0.0, front = 0.0, rho_max = 0.0;
    const size_t n = ps.size();
    for (size_t i = 0; i < n; ++i) {
        ek += 0.5 * ps.mass * (ps.vx[i] * ps.vx[i] + ps.vy[i] * ps.vy[i]);
        ep += ps.mass * kGravity * ps.y[i];
        front = std::max(front, ps.x[i]);
        rho_max = std::max(rho_max, ps.rho[i]);
    }
    log << step << ' ' << std::setprecision(8) << step * kDt << ' ' << ek << ' ' << ep << ' '
        << front << ' ' << rho_max << ' ' << kernel_w(0.0) << '\n';
}

void write_vtk(const std::string& path, const Particles& ps, int step)
{
    std::ofstream out(path);
    const size_t n = ps.size();
    out << "# vtk DataFile Version 3.0\nSPH dam break step " << step << "\nASCII\nDATASET POLYDATA\n";
    out << "POINTS " << n << " double\n" << std::setprecision(7);
    for (size_t i = 0; i < n; ++i) out << ps.x[i] << ' ' << ps.y[i] << " 0\n";
    out << "VERTICES " << n << ' ' << 2 * n << '\n';
    for (size_t i = 0; i < n; ++i) out << "1 " << i << '\n';
    out << "POINT_DATA " << n << "\nSCALARS density double 1\nLOOKUP_TABLE default\n";
    for (size_t i = 0; i < n; ++i) out << ps.rho[i] << '\n';
    out << "SCALARS pressure double 1\nLOOKUP_TABLE default\n";
    for (size_t i = 0; i < n; ++i) out << ps.p[i] << '\n';
    out << "VECTORS velocity double\n";
    for (size_t i = 0; i < n; ++i) out << ps.vx[i] << ' ' << ps.vy[i] << " 0\n";
}

uint64_t state_checksum(const Particles& ps)
{
    uint64_t h = 1469598103934665603ull;
    for (const auto* v : {&ps.x, &ps.y, &ps.vx, &ps.vy, &ps.rho})
        for (double d : *v) {
            uint64_t b;
            std::memcpy(&b, &d, sizeof b);
            h = (h ^ b) * 1099511628211ull;
        }
    return h;
}

void write_restart(const std::string& path, const Particles& ps, int step)
{
    std::ofstream out(path, std::ios::binary);
    uint64_t n = ps.size(), sum = state_checksum(ps);
    out.write(reinterpret_cast<const char*>(&kRestartMagic), sizeof kRestartMagic);
    out.write(reinterpret_cast<const char*>(&step), sizeof step);
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(&ps.mass), sizeof ps.mass);
    for (const auto* v : {&ps.x, &ps.y, &ps.vx, &ps.vy, &ps.rho})
        out.write(reinterpret_cast<const char*>(v->data()), static_cast<std::streamsize>(n * sizeof(double)));
    out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
}

bool read_restart(const std::string& path, Particles& ps, int& step)
{
    std::ifstream in(path, std::ios::binary);
    uint32_t magic = 0;
    uint64_t n = 0, sum = 0;
    in.read(reinterpret_cast<char*>(&magic), sizeof magic);
    in.read(reinterpret_cast<char*>(&step), sizeof step);
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    in.read(reinterpret_cast<char*>(&ps.mass), sizeof ps.mass);
    if (!in || magic != kRestartMagic) return false;
    for (auto* v : {&ps.x, &ps.y, &ps.vx, &ps.vy, &ps.rho}) {
        v->resize(n);
        in.read(reinterpret_cast<char*>(v->data()), static_cast<std::streamsize>(n * sizeof(double)));
    }
    in.read(reinterpret_cast<char*>(&sum), sizeof sum);
    return static_cast<bool>(in) && sum == state_checksum(ps);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " scratch_dir\n";
        return 2;
    }
    const std::string dir = argv[1];
    Particles ps;
    CellGrid grid;
    init_dam(ps);
    std::ofstream elog(dir + "/energy.log", std::ios::app);
    elog << "# step time ekin epot front_x rho_max w0\n";
    std::string last_restart;
    for (int step = 1; step <= kSteps; ++step) {
        build_cell_list(ps, grid);
        compute_rates(ps, grid);
        integrate(ps, kDt);
        if (step % kLogEvery == 0) log_energy(elog, ps, step);
        if (step % kFrameEvery == 0) {
            std::ostringstream name;
            name << dir << "/dam_" << std::setw(5) << std::setfill('0') << step << ".vtk";
            write_vtk(name.str(), ps, step);
        }
        if (step % kRestartEvery == 0) {
            last_restart = dir + "/restart_" + std::to_string(step) + ".bin";
            write_restart(last_restart, ps, step);
        }
    }
    Particles check;
    int rstep = 0;
    bool ok = read_restart(last_restart, check, rstep);
    std::cout << "particles " << ps.size() << " restart step " << rstep << (ok ? " verified" : " CORRUPT")
              << '\n';
    return ok ? 0 : 1;
}
