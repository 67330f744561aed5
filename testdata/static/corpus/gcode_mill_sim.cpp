// CNC milling simulator: emits a G-code program (zig-zag roughing passes
// plus a spiral finishing pass) as text, parses it back line by line,
// sweeps a ball-end cutter over a heightmap stock, stores the machined
// surface as a 16-bit binary PGM, re-reads it via its header and reports
// removed volume and roughness per row band as CSV.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/stat.h>

namespace {

const int NX = 800, NY = 600;          // grid cells, 0.125 mm each
const double CELL = 0.125;
const double STOCK = 20.0;              // mm
const double TOOL_R = 3.0;
const int NLAYER = 4;
const double STEP_DOWN = 1.5;
const int BANDS = 10;

struct Move { int g; double x, y, z, f; };

void die(const std::string &msg)
{
    std::cerr << msg << std::endl;
    std::exit(1);
}

double target_depth(double x, double y)
{
    // pocket shaped like two overlapping bowls
    double a = std::hypot(x - 35, y - 38), b = std::hypot(x - 65, y - 36);
    double d = std::max(0.0, 6.0 - 0.004 * a * a) + std::max(0.0, 5.0 - 0.006 * b * b);
    return std::min(d, NLAYER * STEP_DOWN);
}

void emit_gcode(const std::string &path)
{
    std::ofstream out(path);
    if (!out) die("cannot open " + path);
    out << "%\n(ROUGH + FINISH, ball end R" << TOOL_R << ")\nG21 G90 G17\nF1200\n";
    out.setf(std::ios::fixed);
    out.precision(3);
    double xmax = NX * CELL, ymax = NY * CELL;
    for (int l = 1; l <= NLAYER; l++) {
        double z = STOCK - l * STEP_DOWN;
        out << "G0 Z" << STOCK + 2 << "\nG0 X0 Y0\n";
        bool fwd = true;
        for (double y = 0; y <= ymax; y += TOOL_R * 0.8) {
            for (double x = 0; x <= xmax; x += 1.0) {
                double xx = fwd ? x : xmax - x;
                double zc = std::max(z, STOCK - target_depth(xx, y));
                out << "G1 X" << xx << " Y" << y << " Z" << zc << "\n";
            }
            fwd = !fwd;
        }
    }
    out << "G0 Z" << STOCK + 2 << "\n(FINISH)\nF600\n";
    double cx = xmax / 2, cy = ymax / 2;
    for (double t = 0; t < 60 * M_PI; t += 0.05) {
        double r = 0.22 * t, x = cx + r * std::cos(t), y = cy + r * std::sin(t);
        if (x < 0 || y < 0 || x > xmax || y > ymax) continue;
        out << "G1 X" << x << " Y" << y << " Z" << STOCK - target_depth(x, y) << "\n";
    }
    out << "M30\n%\n";
    if (!out.good()) die("write failed: " + path);
}

std::vector<Move> parse_gcode(const std::string &path)
{
    std::ifstream in(path);
    if (!in) die("cannot open " + path);
    std::vector<Move> moves;
    Move cur{0, 0, 0, STOCK + 2, 1000};
    std::string line;
    while (std::getline(in, line)) {
        size_t c = line.find('(');
        if (c != std::string::npos) line.erase(c);
        std::istringstream ss(line);
        std::string w;
        bool motion = false;
        while (ss >> w) {
            char k = w[0];
            double v = std::atof(w.c_str() + 1);
            switch (k) {
            case 'G': if (v == 0 || v == 1) { cur.g = (int)v; motion = true; } break;
            case 'X': cur.x = v; motion = true; break;
            case 'Y': cur.y = v; motion = true; break;
            case 'Z': cur.z = v; motion = true; break;
            case 'F': cur.f = v; break;
            default: break;
            }
        }
        if (motion) moves.push_back(cur);
    }
    if (in.bad()) die("read error " + path);
    return moves;
}

// stamp the ball-end cutter at a point
void plunge(std::vector<float> &h, double x, double y, double z)
{
    int r = (int)std::ceil(TOOL_R / CELL);
    int ci = (int)(x / CELL), cj = (int)(y / CELL);
    for (int j = cj - r; j <= cj + r; j++) {
        if (j < 0 || j >= NY) continue;
        for (int i = ci - r; i <= ci + r; i++) {
            if (i < 0 || i >= NX) continue;
            double dx = (i + 0.5) * CELL - x, dy = (j + 0.5) * CELL - y;
            double d2 = dx * dx + dy * dy;
            if (d2 > TOOL_R * TOOL_R) continue;
            float zc = (float)(z + TOOL_R - std::sqrt(TOOL_R * TOOL_R - d2));
            float &cell = h[(size_t)j * NX + i];
            if (zc < cell) cell = zc;
        }
    }
}

double simulate(const std::vector<Move> &mv, std::vector<float> &h)
{
    double cut_len = 0;
    for (size_t k = 1; k < mv.size(); k++) {
        const Move &a = mv[k - 1], &b = mv[k];
        double len = std::sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z));
        if (b.g == 0 || b.z >= STOCK) continue;
        int n = std::max(1, (int)(len / (CELL * 0.5)));
        for (int s = 1; s <= n; s++) {
            double t = (double)s / n;
            plunge(h, a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z));
        }
        cut_len += len;
    }
    return cut_len;
}

void write_pgm(const std::string &path, const std::vector<float> &h)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) die("cannot open " + path);
    out << "P5\n# height in um\n" << NX << " " << NY << "\n65535\n";
    std::vector<unsigned char> row(2 * NX);
    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
            uint16_t v = (uint16_t)std::lround(std::max(0.0f, h[(size_t)j * NX + i]) * 1000.0f);
            row[2 * i] = (unsigned char)(v >> 8);
            row[2 * i + 1] = (unsigned char)(v & 0xff);
        }
        out.write(reinterpret_cast<const char *>(row.data()), (std::streamsize)row.size());
    }
    out.flush();
    if (!out) die("write failed " + path);
}

std::vector<float> read_pgm(const std::string &path, int &w, int &hgt)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) die("cannot open " + path);
    std::string magic;
    int maxv;
    in >> magic;
    in >> std::ws;
    while (in.peek() == '#') { std::string c; std::getline(in, c); }
    in >> w >> hgt >> maxv;
    in.get();
    if (magic != "P5" || maxv != 65535 || w <= 0 || hgt <= 0) die("bad pgm " + path);
    std::vector<float> h((size_t)w * hgt);
    std::vector<unsigned char> row(2 * (size_t)w);
    for (int j = 0; j < hgt; j++) {
        if (!in.read(reinterpret_cast<char *>(row.data()), (std::streamsize)row.size())) die("short pgm");
        for (int i = 0; i < w; i++) h[(size_t)j * w + i] = ((row[2 * i] << 8) | row[2 * i + 1]) / 1000.0f;
    }
    return h;
}

void band_report(const std::string &path, const std::vector<float> &h, int w, int hgt)
{
    std::ofstream out(path);
    if (!out) die("cannot open " + path);
    out << "band,removed_mm3,mean_dev_um,max_dev_um\n";
    int rows = hgt / BANDS;
    double total = 0;
    for (int b = 0; b < BANDS; b++) {
        double removed = 0, dev = 0, mx = 0;
        long n = 0;
        for (int j = b * rows; j < (b + 1) * rows; j++)
            for (int i = 0; i < w; i++) {
                double z = h[(size_t)j * w + i];
                removed += (STOCK - z) * CELL * CELL;
                double want = STOCK - target_depth((i + 0.5) * CELL, (j + 0.5) * CELL);
                double d = std::fabs(z - want) * 1000;
                dev += d;
                mx = std::max(mx, d);
                n++;
            }
        total += removed;
        out << b << "," << removed << "," << dev / n << "," << mx << "\n";
    }
    if (!out) die("write failed " + path);
    std::cout << "milled volume " << total << " mm^3" << std::endl;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) { std::cerr << "usage: " << argv[0] << " DIR\n"; return 2; }
    std::string dir = argv[1];
    mkdir(dir.c_str(), 0755);
    emit_gcode(dir + "/pocket.nc");
    std::vector<Move> mv = parse_gcode(dir + "/pocket.nc");
    std::vector<float> h((size_t)NX * NY, (float)STOCK);
    double len = simulate(mv, h);
    write_pgm(dir + "/surface.pgm", h);
    int w, hh;
    std::vector<float> back = read_pgm(dir + "/surface.pgm", w, hh);
    band_report(dir + "/bands.csv", back, w, hh);
    std::printf("%zu moves, %.1f mm of cutting\n", mv.size(), len);
    return 0;
}
