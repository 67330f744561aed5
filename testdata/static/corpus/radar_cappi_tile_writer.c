/* Weather-radar volume to CAPPI tiles.
 * Synthesises a polar reflectivity volume (several convective cells plus
 * stratiform rain and noise) for a C-band radar, writes it sweep by sweep,
 * reads it back, interpolates Constant-Altitude PPIs on a Cartesian grid tile
 * by tile, and appends each encoded tile to a per-altitude tile file with
 * fflush + fdatasync after every tile so that a downstream mosaicker can pick
 * up completed tiles.  Also writes a tile index, an echo-top/column-max
 * product and a short summary. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NELEV 10
#define NAZ 360
#define NGATE 480
#define GATE_M 250.0
#define NLEV 3
#define GRID 1024
#define TILE 128
#define PIX_M 230.0
#define NCELLS 9
#define EARTH_R 6371000.0
#define KE (4.0 / 3.0)
#define NODATA 0
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double elev_deg[NELEV] = {0.5, 1.0, 1.5, 2.4, 3.4, 4.5, 6.0, 8.0, 10.5, 14.0};
static const double cappi_alt[NLEV] = {1500.0, 3000.0, 5000.0};
static char outdir[4000];

typedef struct { double x, y, ztop, r, dbz; } cell_t;
static cell_t cells[NCELLS];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "radar_cappi: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint32_t lcg = 12345u;
static double urand(void)
{
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (1.0 / 16777216.0);
}

static void make_storm(void)
{
    for (int c = 0; c < NCELLS; c++) {
        double a = urand() * 2 * M_PI, d = 15000.0 + urand() * 90000.0;
        cells[c].x = d * cos(a);
        cells[c].y = d * sin(a);
        cells[c].ztop = 6000.0 + urand() * 8000.0;
        cells[c].r = 3000.0 + urand() * 7000.0;
        cells[c].dbz = 42.0 + urand() * 18.0;
    }
}

/* Reflectivity (dBZ) of the synthetic atmosphere at a point. */
static double storm_dbz(double x, double y, double z)
{
    double zlin = 0.0;
    double strat = (z < 3500.0 ? 28.0 : 28.0 - (z - 3500.0) * 0.004) +
                   4.0 * sin(x * 2.1e-5) * cos(y * 1.7e-5);
    if (z < 4200.0 && z > 3600.0) strat += 6.0; /* bright band */
    if (strat > 5.0) zlin += pow(10.0, strat / 10.0);
    for (int c = 0; c < NCELLS; c++) {
        if (z > cells[c].ztop) continue;
        double dx = x - cells[c].x, dy = y - cells[c].y;
        double r2 = (dx * dx + dy * dy) / (cells[c].r * cells[c].r);
        if (r2 > 9.0) continue;
        double prof = 1.0 - pow(z / cells[c].ztop, 2.0);
        double d = cells[c].dbz * prof - 12.0 * r2;
        if (d > 0.0) zlin += pow(10.0, d / 10.0);
    }
    return zlin > 1.0 ? 10.0 * log10(zlin) : -32.0;
}

static double beam_height(double range, double el_rad)
{
    double re = KE * EARTH_R;
    return sqrt(range * range + re * re + 2.0 * range * re * sin(el_rad)) - re + 60.0;
}

static void generate_volume(float *vol)
{
    for (int e = 0; e < NELEV; e++) {
        double el = elev_deg[e] * M_PI / 180.0;
        for (int a = 0; a < NAZ; a++) {
            double az = (a + 0.5) * M_PI / 180.0;
            for (int g = 0; g < NGATE; g++) {
                double r = (g + 0.5) * GATE_M;
                double z = beam_height(r, el);
                double s = r * cos(el);
                double v = storm_dbz(s * sin(az), s * cos(az), z) + (urand() - 0.5) * 2.0;
                if (v < -10.0) v = -32.0;
                vol[((size_t)e * NAZ + a) * NGATE + g] = (float)v;
            }
        }
    }
}

static void write_polar_volume(const float *vol)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/volume.pvol", outdir);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    int32_t hdr[4] = {0x50564f4c, NELEV, NAZ, NGATE};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("fwrite", path);
    if (fwrite(elev_deg, sizeof elev_deg, 1, f) != 1) die("fwrite", path);
    for (int e = 0; e < NELEV; e++) {
        for (int a = 0; a < NAZ; a++)
            if (fwrite(vol + ((size_t)e * NAZ + a) * NGATE, sizeof(float), NGATE, f) != NGATE)
                die("fwrite", path);
        if (fflush(f) != 0) die("fflush", path); /* sweep complete */
    }
    if (fclose(f) != 0) die("fclose", path);
}

static float *read_polar_volume(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/volume.pvol", outdir);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    int32_t hdr[4];
    double el[NELEV];
    if (fread(hdr, sizeof hdr, 1, f) != 1 || fread(el, sizeof el, 1, f) != 1) die("fread", path);
    if (hdr[1] != NELEV || hdr[2] != NAZ || hdr[3] != NGATE) {
        fprintf(stderr, "bad volume header\n");
        exit(1);
    }
    size_t n = (size_t)NELEV * NAZ * NGATE;
    float *v = malloc(n * sizeof(float));
    if (!v) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int e = 0; e < NELEV; e++)
        for (int a = 0; a < NAZ; a++)
            if (fread(v + ((size_t)e * NAZ + a) * NGATE, sizeof(float), NGATE, f) != NGATE)
                die("fread", path);
    if (fclose(f) != 0) die("fclose", path);
    return v;
}

static double sample_sweep(const float *vol, int e, double az_deg, double range)
{
    double gf = range / GATE_M - 0.5;
    if (gf < 0.0 || gf >= NGATE - 1) return -99.0;
    int g = (int)gf;
    double wg = gf - g;
    double af = az_deg - 0.5;
    if (af < 0) af += 360.0;
    int a0 = (int)af % NAZ, a1 = (a0 + 1) % NAZ;
    double wa = af - floor(af);
    const float *s = vol + (size_t)e * NAZ * NGATE;
    double v00 = s[a0 * NGATE + g], v01 = s[a0 * NGATE + g + 1];
    double v10 = s[a1 * NGATE + g], v11 = s[a1 * NGATE + g + 1];
    return (1 - wa) * ((1 - wg) * v00 + wg * v01) + wa * ((1 - wg) * v10 + wg * v11);
}

/* CAPPI for one tile: vertical interpolation between the two bracketing
 * sweeps at each pixel.  Output encoded as uint8 (dBZ*2+64). */
static void cappi_tile(const float *vol, double alt, int tx, int ty, uint8_t *out)
{
    for (int j = 0; j < TILE; j++) {
        double y = ((ty * TILE + j) - GRID / 2 + 0.5) * PIX_M;
        for (int i = 0; i < TILE; i++) {
            double x = ((tx * TILE + i) - GRID / 2 + 0.5) * PIX_M;
            double s = sqrt(x * x + y * y);
            double az = atan2(x, y) * 180.0 / M_PI;
            if (az < 0) az += 360.0;
            int lo = -1;
            double hlo = 0, hhi = 0;
            for (int e = 0; e < NELEV - 1; e++) {
                double el0 = elev_deg[e] * M_PI / 180.0, el1 = elev_deg[e + 1] * M_PI / 180.0;
                double h0 = beam_height(s / cos(el0), el0), h1 = beam_height(s / cos(el1), el1);
                if (h0 <= alt && alt < h1) { lo = e; hlo = h0; hhi = h1; break; }
            }
            uint8_t code = NODATA;
            if (lo >= 0) {
                double el0 = elev_deg[lo] * M_PI / 180.0, el1 = elev_deg[lo + 1] * M_PI / 180.0;
                double v0 = sample_sweep(vol, lo, az, s / cos(el0));
                double v1 = sample_sweep(vol, lo + 1, az, s / cos(el1));
                if (v0 > -90.0 && v1 > -90.0) {
                    double w = (alt - hlo) / (hhi - hlo);
                    double v = (1 - w) * v0 + w * v1;
                    double c = v * 2.0 + 64.0;
                    code = (uint8_t)(c < 1.0 ? 1.0 : (c > 255.0 ? 255.0 : c));
                }
            }
            out[j * TILE + i] = code;
        }
    }
}

/* Append one tile (with a small header) and make it durable. */
static long write_tile(FILE *f, int fd, const char *path, int tx, int ty, const uint8_t *t)
{
    long off = ftell(f);
    if (off < 0) die("ftell", path);
    int32_t th[3] = {tx, ty, TILE};
    if (fwrite(th, sizeof th, 1, f) != 1) die("fwrite", path);
    for (int j = 0; j < TILE; j++)
        if (fwrite(t + j * TILE, 1, TILE, f) != TILE) die("fwrite", path);
    if (fflush(f) != 0) die("fflush", path);
    if (fdatasync(fd) != 0) die("fdatasync", path);
    return off;
}

static void build_level(const float *vol, int lev, uint8_t *mosaic, FILE *idx)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cappi_%05.0fm.tiles", outdir, cappi_alt[lev]);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    int fd = fileno(f);
    uint8_t tile[TILE * TILE];
    for (int ty = 0; ty < GRID / TILE; ty++)
        for (int tx = 0; tx < GRID / TILE; tx++) {
            cappi_tile(vol, cappi_alt[lev], tx, ty, tile);
            long off = write_tile(f, fd, path, tx, ty, tile);
            long wet = 0;
            for (int k = 0; k < TILE * TILE; k++) {
                wet += tile[k] >= 64 + 2 * 20;
                mosaic[(size_t)(ty * TILE + k / TILE) * GRID + tx * TILE + k % TILE] = tile[k];
            }
            if (fprintf(idx, "%.0f,%d,%d,%ld,%ld\n", cappi_alt[lev], tx, ty, off, wet) < 0)
                die("fprintf", "tile index");
        }
    if (fclose(f) != 0) die("fclose", path);
}

/* Column maximum over the CAPPI levels and 18 dBZ echo-top estimate. */
static void column_products(const uint8_t *mos, double *max_dbz, double *rain_frac)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/column_max.pgm", outdir);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    if (fprintf(f, "P5\n%d %d\n255\n", GRID, GRID) < 0) die("fprintf", path);
    uint8_t *row = malloc(GRID);
    if (!row) { fprintf(stderr, "out of memory\n"); exit(1); }
    double mx = -99.0;
    long rain = 0;
    for (int j = 0; j < GRID; j++) {
        for (int i = 0; i < GRID; i++) {
            uint8_t m = 0;
            int top = -1;
            for (int l = 0; l < NLEV; l++) {
                uint8_t c = mos[((size_t)l * GRID + j) * GRID + i];
                if (c > m) m = c;
                if (c >= 64 + 36) top = l;
            }
            row[i] = top >= 0 ? (uint8_t)(m | 1) : (uint8_t)(m & 0xfe);
            if (m) {
                double d = (m - 64) / 2.0;
                if (d > mx) mx = d;
                if (d > 15.0) rain++;
            }
        }
        if (fwrite(row, 1, GRID, f) != GRID) die("fwrite", path);
    }
    free(row);
    if (fclose(f) != 0) die("fclose", path);
    *max_dbz = mx;
    *rain_frac = (double)rain / ((double)GRID * GRID);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    make_storm();
    size_t n = (size_t)NELEV * NAZ * NGATE;
    float *vol = malloc(n * sizeof(float));
    uint8_t *mosaic = malloc((size_t)NLEV * GRID * GRID);
    if (!vol || !mosaic) { fprintf(stderr, "out of memory\n"); return 1; }
    generate_volume(vol);
    write_polar_volume(vol);
    free(vol);
    vol = read_polar_volume();

    char path[4200];
    snprintf(path, sizeof path, "%s/tile_index.csv", outdir);
    FILE *idx = fopen(path, "w");
    if (!idx) die("fopen", path);
    if (fprintf(idx, "alt_m,tx,ty,offset,pixels_ge20dBZ\n") < 0) die("fprintf", path);
    for (int l = 0; l < NLEV; l++) build_level(vol, l, mosaic + (size_t)l * GRID * GRID, idx);
    if (fclose(idx) != 0) die("fclose", path);

    double mx, rf;
    column_products(mosaic, &mx, &rf);
    snprintf(path, sizeof path, "%s/summary.txt", outdir);
    FILE *s = fopen(path, "w");
    if (!s) die("fopen", path);
    if (fprintf(s, "levels %d tiles/level %d max %.1f dBZ rain fraction %.4f\n", NLEV,
                (GRID / TILE) * (GRID / TILE), mx, rf) < 0)
        die("fprintf", path);
    if (fclose(s) != 0) die("fclose", path);
    printf("radar CAPPI: %d levels x %d tiles, max %.1f dBZ, rain fraction %.3f\n", NLEV,
           (GRID / TILE) * (GRID / TILE), mx, rf);
    free(vol);
    free(mosaic);
    return 0;
}
