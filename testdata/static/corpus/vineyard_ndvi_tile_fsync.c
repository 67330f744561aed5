/*
 * vineyard_ndvi_tile_fsync.c
 *
 * Drone multispectral survey of a trellised vineyard block.  A 5 cm/pixel
 * red + near-infrared mosaic is synthesised tile by tile (vine rows at an
 * angle, missing vines, water-stress patches, inter-row cover crop) and
 * stored as 256x256 uint16 band tiles; every tile is flushed and fsync'ed
 * so that an interrupted flight upload leaves only complete tiles.  The
 * tiles are then read back, turned into NDVI (3x3 median despeckle), the
 * NDVI tiles are written with fflush + fdatasync per tile and a flushed
 * text tile index, per-block canopy statistics are clustered into
 * management zones (k-means), a zone map and CSV are written, and finally
 * every NDVI tile is re-read and checked against its Adler-32 in the index.
 *
 * usage: vineyard_ndvi_tile_fsync OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WIDTH      2560
#define HEIGHT     2048
#define TILE       256
#define TX         (WIDTH / TILE)
#define TY         (HEIGHT / TILE)
#define NTILES     (TX * TY)
#define BLOCK      32                      /* stats block, px */
#define BX         (WIDTH / BLOCK)
#define BY         (HEIGHT / BLOCK)
#define NZONES     4
#define GSD        0.05                    /* m per pixel */
#define ROW_SPACING 2.5                    /* m */
#define ROW_ANGLE  (12.0 * 3.14159265358979323846 / 180.0)
#define VIG_N      24                      /* vigour lattice */

typedef struct {
    double ndvi_sum, canopy_px, px, ndvi_canopy_sum;
} block_stat_t;

static const char *g_dir;
static uint64_t g_rng = 20240611ULL;
static float vigour_lat[VIG_N + 1][VIG_N + 1];
static uint8_t missing_vine[4096];
static block_stat_t g_blocks[BY][BX];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "vineyard_ndvi_tile_fsync: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static uint32_t rng_u32(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static double rng_unit(void) { return rng_u32() / 4294967296.0; }

static uint32_t adler32(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint32_t a = 1, b = 0;
    while (n > 0) {
        size_t chunk = n < 5552 ? n : 5552;
        n -= chunk;
        while (chunk--) { a += *p++; b += a; }
        a %= 65521u; b %= 65521u;
    }
    return (b << 16) | a;
}

static FILE *open_out(const char *name, const char *mode, char *pathbuf, size_t cap)
{
    snprintf(pathbuf, cap, "%s/%s", g_dir, name);
    FILE *f = fopen(pathbuf, mode);
    if (!f) die("fopen", pathbuf);
    return f;
}

/* Smooth vigour field on a coarse lattice plus a gap map along each row. */
static void make_field_model(void)
{
    for (int j = 0; j <= VIG_N; j++)
        for (int i = 0; i <= VIG_N; i++) vigour_lat[j][i] = (float)(0.75 + 0.25 * rng_unit());
    /* two water-stressed patches (sandy lenses) */
    for (int j = 0; j <= VIG_N; j++)
        for (int i = 0; i <= VIG_N; i++) {
            double d1 = hypot(i - 6.0, j - 15.0), d2 = hypot(i - 18.0, j - 5.0);
            vigour_lat[j][i] *= (float)(1.0 - 0.45 * exp(-d1 * d1 / 18.0) - 0.3 * exp(-d2 * d2 / 10.0));
        }
    for (int k = 0; k < 4096; k++) missing_vine[k] = rng_unit() < 0.04;
}

static double vigour_at(double fx, double fy)
{
    double gx = fx * VIG_N, gy = fy * VIG_N;
    int i = (int)gx, j = (int)gy;
    if (i >= VIG_N) i = VIG_N - 1;
    if (j >= VIG_N) j = VIG_N - 1;
    double tx = gx - i, ty = gy - j;
    tx = tx * tx * (3 - 2 * tx);
    ty = ty * ty * (3 - 2 * ty);
    return (1 - ty) * ((1 - tx) * vigour_lat[j][i] + tx * vigour_lat[j][i + 1]) +
           ty * ((1 - tx) * vigour_lat[j + 1][i] + tx * vigour_lat[j + 1][i + 1]);
}

/* Synthesise red and NIR digital numbers for one tile. */
static void render_tile(int ty, int tx, uint16_t *red, uint16_t *nir)
{
    const double ca = cos(ROW_ANGLE), sa = sin(ROW_ANGLE);
    /* vigour varies on a 5 m scale: evaluate it once per 16x16 sub-block */
    static double vsub[TILE / 16][TILE / 16];
    for (int j = 0; j < TILE / 16; j++)
        for (int i = 0; i < TILE / 16; i++)
            vsub[j][i] = vigour_at((tx * TILE + 16.0 * i + 8.0) / WIDTH,
                                   (ty * TILE + 16.0 * j + 8.0) / HEIGHT);
    for (int y = 0; y < TILE; y++) {
        for (int x = 0; x < TILE; x++) {
            int gx = tx * TILE + x, gy = ty * TILE + y;
            double mx = gx * GSD, my = gy * GSD;
            double across = mx * ca + my * sa;      /* distance across rows */
            double along = -mx * sa + my * ca;      /* distance along row */
            double rpos = across / ROW_SPACING;
            int row = (int)floor(rpos);
            double off = (rpos - row - 0.5) * ROW_SPACING; /* m from row centre */
            int vine = (int)floor(along / 1.2) & 63;
            double v = vsub[y / 16][x / 16];
            double half_w = 0.25 + 0.25 * v;
            double q = off / half_w;
            double canopy = exp(-(q * q) * (q * q));
            if (missing_vine[((unsigned)row * 64u + (unsigned)vine) & 4095u]) canopy *= 0.15;
            double shade = (off > 0 && off < 0.9) ? 0.8 : 1.0;  /* afternoon sun */
            double cover = 0.35 + 0.3 * sin(along * 0.7 + row) * sin(across * 0.3);
            double r_soil = 0.17, n_soil = 0.24;
            double r_grass = 0.07, n_grass = 0.32;
            double r_bg = cover * r_grass + (1 - cover) * r_soil;
            double n_bg = cover * n_grass + (1 - cover) * n_soil;
            double r = canopy * (0.045 + 0.04 * (1 - v)) + (1 - canopy) * r_bg * shade;
            double n = canopy * (0.50 * v) + (1 - canopy) * n_bg * shade;
            double noise_r = (rng_unit() - 0.5) * 0.01, noise_n = (rng_unit() - 0.5) * 0.02;
            double dr = (r + noise_r) * 40000.0, dn = (n + noise_n) * 40000.0;
            red[y * TILE + x] = (uint16_t)(dr < 0 ? 0 : dr > 65535 ? 65535 : dr);
            nir[y * TILE + x] = (uint16_t)(dn < 0 ? 0 : dn > 65535 ? 65535 : dn);
        }
    }
}

/* Append both bands of one tile and make them durable before the next. */
static void write_band_tile(FILE *f, const char *path, const uint16_t *red, const uint16_t *nir)
{
    size_t n = (size_t)TILE * TILE;
    if (fwrite(red, sizeof(uint16_t), n, f) != n) die("fwrite", path);
    if (fwrite(nir, sizeof(uint16_t), n, f) != n) die("fwrite", path);
    if (fflush(f) != 0) die("fflush", path);
    if (fsync(fileno(f)) != 0) die("fsync", path);
}

static void acquire_bands(void)
{
    char path[1024];
    FILE *f = open_out("bands_red_nir.tiles", "wb", path, sizeof path);
    static uint16_t red[TILE * TILE], nir[TILE * TILE];
    for (int ty = 0; ty < TY; ty++)
        for (int tx = 0; tx < TX; tx++) {
            render_tile(ty, tx, red, nir);
            write_band_tile(f, path, red, nir);
        }
    if (fclose(f) != 0) die("fclose", path);
}

static void read_band_tile(FILE *f, const char *path, int t, uint16_t *red, uint16_t *nir)
{
    size_t n = (size_t)TILE * TILE;
    long off = (long)t * (long)(2 * n * sizeof(uint16_t));
    if (fseek(f, off, SEEK_SET) != 0) die("fseek", path);
    if (fread(red, sizeof(uint16_t), n, f) != n) die("fread", path);
    if (fread(nir, sizeof(uint16_t), n, f) != n) die("fread", path);
}

/* Median of 9 by the classic exchange network (Paeth / Devillard). */
#define SORT2(a, b) { if ((a) > (b)) { float t_ = (a); (a) = (b); (b) = t_; } }
#define MEDIAN9(p) { \
    SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]); \
    SORT2(p[0], p[1]); SORT2(p[3], p[4]); SORT2(p[6], p[7]); \
    SORT2(p[1], p[2]); SORT2(p[4], p[5]); SORT2(p[7], p[8]); \
    SORT2(p[0], p[3]); SORT2(p[5], p[8]); SORT2(p[4], p[7]); \
    SORT2(p[3], p[6]); SORT2(p[1], p[4]); SORT2(p[2], p[5]); \
    SORT2(p[4], p[7]); SORT2(p[4], p[2]); SORT2(p[6], p[4]); \
    SORT2(p[4], p[2]); }

/* NDVI with a 3x3 median filter (edge pixels use the clamped neighbourhood). */
static void ndvi_tile(const uint16_t *red, const uint16_t *nir, int16_t *out, float *raw)
{
    for (int i = 0; i < TILE * TILE; i++) {
        double r = red[i], n = nir[i];
        raw[i] = (n + r) > 0 ? (float)((n - r) / (n + r)) : 0.0f;
    }
    for (int y = 0; y < TILE; y++)
        for (int x = 0; x < TILE; x++) {
            float w[9];
            int k = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = y + dy, xx = x + dx;
                    yy = yy < 0 ? 0 : yy >= TILE ? TILE - 1 : yy;
                    xx = xx < 0 ? 0 : xx >= TILE ? TILE - 1 : xx;
                    w[k++] = raw[yy * TILE + xx];
                }
            MEDIAN9(w);
            out[y * TILE + x] = (int16_t)lrintf(w[4] * 10000.0f);
        }
}

static void accumulate_blocks(int ty, int tx, const int16_t *nd)
{
    for (int y = 0; y < TILE; y++)
        for (int x = 0; x < TILE; x++) {
            block_stat_t *b = &g_blocks[(ty * TILE + y) / BLOCK][(tx * TILE + x) / BLOCK];
            double v = nd[y * TILE + x] / 10000.0;
            b->ndvi_sum += v;
            b->px += 1;
            if (v > 0.55) { b->canopy_px += 1; b->ndvi_canopy_sum += v; }
        }
}

static void write_ndvi_tile(FILE *f, const char *path, FILE *idx, const char *ipath, int t,
                            const int16_t *nd, long *offset)
{
    size_t n = (size_t)TILE * TILE;
    if (fwrite(nd, sizeof(int16_t), n, f) != n) die("fwrite", path);
    if (fflush(f) != 0) die("fflush", path);
    if (fdatasync(fileno(f)) != 0) die("fdatasync", path);
    uint32_t a = adler32(nd, n * sizeof(int16_t));
    if (fprintf(idx, "%4d %3d %3d %10ld %8zu %08x\n", t, t / TX, t % TX, *offset,
                n * sizeof(int16_t), (unsigned)a) < 0)
        die("fprintf", ipath);
    if (fflush(idx) != 0) die("fflush", ipath);
    *offset += (long)(n * sizeof(int16_t));
}

static void process_ndvi(void)
{
    char bpath[1024], npath[1024], ipath[1024];
    FILE *fb = open_out("bands_red_nir.tiles", "rb", bpath, sizeof bpath);
    FILE *fn = open_out("ndvi_i16.tiles", "wb", npath, sizeof npath);
    FILE *fi = open_out("ndvi_tiles.idx", "w", ipath, sizeof ipath);
    if (fprintf(fi, "# tile ty tx offset bytes adler32  (%dx%d int16 NDVI*1e4)\n", TILE, TILE) < 0)
        die("fprintf", ipath);
    static uint16_t red[TILE * TILE], nir[TILE * TILE];
    static int16_t nd[TILE * TILE];
    static float raw[TILE * TILE];
    long off = 0;
    /* tiles are processed in serpentine order to follow the flight lines */
    for (int ty = 0; ty < TY; ty++)
        for (int k = 0; k < TX; k++) {
            int tx = (ty & 1) ? TX - 1 - k : k;
            int t = ty * TX + tx;
            read_band_tile(fb, bpath, t, red, nir);
            ndvi_tile(red, nir, nd, raw);
            accumulate_blocks(ty, tx, nd);
            write_ndvi_tile(fn, npath, fi, ipath, t, nd, &off);
        }
    if (fclose(fb) != 0) die("fclose", bpath);
    if (fclose(fn) != 0) die("fclose", npath);
    if (fclose(fi) != 0) die("fclose", ipath);
}

/* k-means on (mean NDVI, canopy fraction, canopy NDVI) of every block. */
static int cluster_zones(uint8_t zone[BY][BX], double cent[NZONES][3])
{
    static double feat[BY * BX][3];
    int nb = BY * BX;
    for (int j = 0; j < BY; j++)
        for (int i = 0; i < BX; i++) {
            block_stat_t *b = &g_blocks[j][i];
            double *f = feat[j * BX + i];
            f[0] = b->ndvi_sum / b->px;
            f[1] = b->canopy_px / b->px;
            f[2] = b->canopy_px > 0 ? b->ndvi_canopy_sum / b->canopy_px : 0.0;
        }
    for (int k = 0; k < NZONES; k++) {
        int pick = (int)((k + 0.5) * nb / NZONES);
        memcpy(cent[k], feat[pick], sizeof cent[k]);
    }
    int iter, changed = 1;
    static int lab[BY * BX];
    for (int i = 0; i < nb; i++) lab[i] = -1;
    for (iter = 0; iter < 200 && changed; iter++) {
        changed = 0;
        for (int i = 0; i < nb; i++) {
            int best = 0;
            double bd = 1e300;
            for (int k = 0; k < NZONES; k++) {
                double d = 0;
                for (int c = 0; c < 3; c++) d += (feat[i][c] - cent[k][c]) * (feat[i][c] - cent[k][c]);
                if (d < bd) { bd = d; best = k; }
            }
            if (lab[i] != best) { lab[i] = best; changed++; }
        }
        double sum[NZONES][3] = {{0}};
        int cnt[NZONES] = {0};
        for (int i = 0; i < nb; i++) {
            cnt[lab[i]]++;
            for (int c = 0; c < 3; c++) sum[lab[i]][c] += feat[i][c];
        }
        for (int k = 0; k < NZONES; k++)
            if (cnt[k] > 0)
                for (int c = 0; c < 3; c++) cent[k][c] = sum[k][c] / cnt[k];
    }
    /* order zones by canopy NDVI so zone 0 = lowest vigour */
    int order[NZONES];
    for (int k = 0; k < NZONES; k++) order[k] = k;
    for (int a = 0; a < NZONES; a++)
        for (int b = a + 1; b < NZONES; b++)
            if (cent[order[b]][0] < cent[order[a]][0]) { int t = order[a]; order[a] = order[b]; order[b] = t; }
    int rank[NZONES];
    double tmp[NZONES][3];
    for (int k = 0; k < NZONES; k++) { rank[order[k]] = k; memcpy(tmp[k], cent[order[k]], sizeof tmp[k]); }
    memcpy(cent, tmp, sizeof tmp);
    for (int j = 0; j < BY; j++)
        for (int i = 0; i < BX; i++) zone[j][i] = (uint8_t)rank[lab[j * BX + i]];
    return iter;
}

static void write_zone_outputs(uint8_t zone[BY][BX], double cent[NZONES][3])
{
    char path[1024];
    FILE *f = open_out("zones.pgm", "w", path, sizeof path);
    if (fprintf(f, "P2\n%d %d\n%d\n", BX, BY, NZONES - 1) < 0) die("fprintf", path);
    for (int j = 0; j < BY; j++) {
        for (int i = 0; i < BX; i++)
            if (fprintf(f, "%d%c", zone[j][i], i == BX - 1 ? '\n' : ' ') < 0) die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);

    f = open_out("blocks.csv", "w", path, sizeof path);
    if (fprintf(f, "bx,by,easting_m,northing_m,mean_ndvi,canopy_frac,canopy_ndvi,zone\n") < 0)
        die("fprintf", path);
    for (int j = 0; j < BY; j++)
        for (int i = 0; i < BX; i++) {
            block_stat_t *b = &g_blocks[j][i];
            if (fprintf(f, "%d,%d,%.2f,%.2f,%.4f,%.4f,%.4f,%d\n", i, j, (i + 0.5) * BLOCK * GSD,
                        (j + 0.5) * BLOCK * GSD, b->ndvi_sum / b->px, b->canopy_px / b->px,
                        b->canopy_px > 0 ? b->ndvi_canopy_sum / b->canopy_px : 0.0,
                        zone[j][i]) < 0)
                die("fprintf", path);
        }
    if (fclose(f) != 0) die("fclose", path);

    f = open_out("zones_summary.txt", "w", path, sizeof path);
    int cnt[NZONES] = {0};
    for (int j = 0; j < BY; j++)
        for (int i = 0; i < BX; i++) cnt[zone[j][i]]++;
    for (int k = 0; k < NZONES; k++) {
        double area = cnt[k] * (BLOCK * GSD) * (BLOCK * GSD);
        if (fprintf(f, "zone %d  blocks %5d  area %8.1f m2  meanNDVI %.3f  canopy %.3f  canopyNDVI %.3f\n",
                    k, cnt[k], area, cent[k][0], cent[k][1], cent[k][2]) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Re-read the tile index and every NDVI tile, recompute Adler-32. */
static int verify_tiles(double *mean_ndvi)
{
    char ipath[1024], npath[1024];
    FILE *fi = open_out("ndvi_tiles.idx", "r", ipath, sizeof ipath);
    FILE *fn = open_out("ndvi_i16.tiles", "rb", npath, sizeof npath);
    static int16_t nd[TILE * TILE];
    char line[256];
    int bad = 0, seen = 0;
    double sum = 0;
    while (fgets(line, sizeof line, fi)) {
        if (line[0] == '#') continue;
        int t, ty, tx;
        long off;
        size_t bytes;
        unsigned a;
        if (sscanf(line, "%d %d %d %ld %zu %x", &t, &ty, &tx, &off, &bytes, &a) != 6) {
            fprintf(stderr, "bad index line: %s", line);
            exit(1);
        }
        if (bytes != sizeof nd) { bad++; continue; }
        if (fseek(fn, off, SEEK_SET) != 0) die("fseek", npath);
        if (fread(nd, 1, bytes, fn) != bytes) die("fread", npath);
        if (adler32(nd, bytes) != a) bad++;
        for (int i = 0; i < TILE * TILE; i++) sum += nd[i];
        seen++;
    }
    if (ferror(fi)) die("fgets", ipath);
    if (fclose(fi) != 0) die("fclose", ipath);
    if (fclose(fn) != 0) die("fclose", npath);
    if (seen != NTILES) {
        fprintf(stderr, "index lists %d tiles, expected %d\n", seen, NTILES);
        exit(1);
    }
    *mean_ndvi = sum / ((double)seen * TILE * TILE) / 10000.0;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    make_field_model();
    acquire_bands();
    process_ndvi();
    static uint8_t zone[BY][BX];
    double cent[NZONES][3];
    int iters = cluster_zones(zone, cent);
    write_zone_outputs(zone, cent);
    double mean;
    int bad = verify_tiles(&mean);
    printf("vineyard_ndvi_tile_fsync: %dx%d px, %d tiles of %d px, k-means %d iterations\n", WIDTH,
           HEIGHT, NTILES, TILE, iters);
    for (int k = 0; k < NZONES; k++)
        printf("  zone %d: mean NDVI %.3f canopy fraction %.3f\n", k, cent[k][0], cent[k][1]);
    printf("  verified tiles, %d bad, field mean NDVI %.4f\n", bad, mean);
    return bad ? 1 : 0;
}
