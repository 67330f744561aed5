// Tiled Mandelbrot renderer.  The image is computed one square tile at a
// time (as a distributed renderer would receive them) and each tile's rows
// are placed at their final offsets in a binary PGM file with seekp + write.
// The stream is flushed after every tile so a viewer can follow progress.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace render {

struct View {
    double cx, cy, width;
    int nx, ny, maxiter;
};

struct Tile {
    int x0, y0, w, h;
    std::vector<std::uint8_t> pix;
};

std::uint8_t escape_shade(double cr, double ci, int maxiter)
{
    double zr = 0.0, zi = 0.0;
    int it = 0;
    while (it < maxiter) {
        double zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0)
            break;
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        ++it;
    }
    if (it == maxiter)
        return 0;
    // smooth colouring, mapped to 1..255
    double mod = std::sqrt(zr * zr + zi * zi);
    double nu = it + 1.0 - std::log(std::log(std::max(mod, 1.0000001))) / std::log(2.0);
    double t = std::fmod(nu * 6.0, 255.0);
    return static_cast<std::uint8_t>(1.0 + t * (254.0 / 255.0));
}

void render_tile(const View &v, Tile &t)
{
    const double scale = v.width / v.nx;
    const double x_left = v.cx - 0.5 * v.width;
    const double y_top = v.cy + 0.5 * scale * v.ny;
    t.pix.assign(static_cast<size_t>(t.w) * t.h, 0);
    for (int j = 0; j < t.h; ++j) {
        double ci = y_top - (t.y0 + j + 0.5) * scale;
        for (int i = 0; i < t.w; ++i) {
            double cr = x_left + (t.x0 + i + 0.5) * scale;
            t.pix[static_cast<size_t>(j) * t.w + i] = escape_shade(cr, ci, v.maxiter);
        }
    }
}

class PgmTileWriter {
public:
    PgmTileWriter(const std::string &path, int nx, int ny) : nx_(nx), ny_(ny)
    {
        out_.open(path, std::ios::binary | std::ios::out | std::ios::trunc);
        if (!out_)
            throw std::runtime_error("cannot open " + path);
        std::ostringstream hdr;
        hdr << "P5\n" << nx << " " << ny << "\n255\n";
        header_ = hdr.str();
        out_.write(header_.data(), static_cast<std::streamsize>(header_.size()));
        // reserve the full size so every tile can be placed anywhere
        out_.seekp(static_cast<std::streamoff>(header_.size()) + static_cast<std::streamoff>(nx) * ny - 1);
        out_.put('\0');
        out_.flush();
    }

    void put_tile(const Tile &t)
    {
        for (int j = 0; j < t.h; ++j) {
            std::streamoff off = static_cast<std::streamoff>(header_.size()) +
                                 static_cast<std::streamoff>(t.y0 + j) * nx_ + t.x0;
            out_.seekp(off);
            out_.write(reinterpret_cast<const char *>(&t.pix[static_cast<size_t>(j) * t.w]), t.w);
        }
        out_.flush();
        if (!out_)
            throw std::runtime_error("tile write failed");
    }

    std::size_t header_size() const { return header_.size(); }
    void close() { out_.close(); }

private:
    std::ofstream out_;
    std::string header_;
    int nx_, ny_;
};

std::uint64_t fnv1a(const std::uint8_t *p, std::size_t n, std::uint64_t h = 1469598103934665603ull)
{
    for (std::size_t k = 0; k < n; ++k) {
        h ^= p[k];
        h *= 1099511628211ull;
    }
    return h;
}

// render the whole view tile by tile in a scattered (strided) tile order
std::vector<std::uint8_t> render_to_file(const View &v, int tile, const std::string &path)
{
    PgmTileWriter writer(path, v.nx, v.ny);
    std::vector<std::uint8_t> reference(static_cast<size_t>(v.nx) * v.ny, 0);
    int ntx = (v.nx + tile - 1) / tile, nty = (v.ny + tile - 1) / tile;
    int ntiles = ntx * nty;
    int stride = 7; // must be coprime with the tile count
    while (std::gcd(stride, ntiles) != 1)
        ++stride;
    Tile t;
    for (int k = 0; k < ntiles; ++k) {
        int id = (k * stride) % ntiles;
        t.x0 = (id % ntx) * tile;
        t.y0 = (id / ntx) * tile;
        t.w = std::min(tile, v.nx - t.x0);
        t.h = std::min(tile, v.ny - t.y0);
        render_tile(v, t);
        writer.put_tile(t);
        for (int j = 0; j < t.h; ++j)
            for (int i = 0; i < t.w; ++i)
                reference[static_cast<size_t>(t.y0 + j) * v.nx + t.x0 + i] = t.pix[static_cast<size_t>(j) * t.w + i];
    }
    writer.close();
    return reference;
}

bool verify_image(const std::string &path, const std::vector<std::uint8_t> &reference, int nx, int ny)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::string magic;
    int w = 0, h = 0, maxval = 0;
    in >> magic >> w >> h >> maxval;
    in.get(); // single whitespace after maxval
    if (magic != "P5" || w != nx || h != ny || maxval != 255)
        return false;
    std::vector<std::uint8_t> img(static_cast<size_t>(nx) * ny);
    in.read(reinterpret_cast<char *>(img.data()), static_cast<std::streamsize>(img.size()));
    if (in.gcount() != static_cast<std::streamsize>(img.size()))
        return false;
    return fnv1a(img.data(), img.size()) == fnv1a(reference.data(), reference.size());
}

} // namespace render

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DIR\n";
        return 1;
    }
    const std::string dir = argv[1];
    render::View view{-0.7453, 0.1127, 0.0065, 1600, 1200, 600};
    const std::string path = dir + "/mandel.pgm";
    try {
        std::vector<std::uint8_t> ref = render::render_to_file(view, 96, path);
        std::size_t inside = 0;
        for (auto p : ref)
            inside += (p == 0);
        if (!render::verify_image(path, ref, view.nx, view.ny)) {
            std::cerr << "image read back does not match rendered tiles\n";
            return 1;
        }
        if (inside == 0 || inside == ref.size()) {
            std::cerr << "degenerate image\n";
            return 1;
        }
        std::cout << "rendered " << view.nx << "x" << view.ny << ", interior fraction "
                  << static_cast<double>(inside) / ref.size() << "\n";
    } catch (const std::exception &e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
