/*
 * excavation_magnetometry_tile_fsync.c
 *
 * Fluxgate-gradiometer survey of an archaeological excavation area.  A site
 * model (enclosure ditches, pits, a kiln, hearths, ferrous debris) is
 * sampled along zig-zag traverses with heading error, instrument drift and
 * noise; the raw traverses are written to a binary log, read back, zero-mean
 * traverse corrected, destaggered, despiked and interpolated onto a 12.5 cm
 * grid.  The grid is then processed and written tile by tile into a tiled
 * mosaic file (fflush + fdatasync after every tile, with a flushed tile index
 * so a crashed field laptop never loses finished tiles), a half-resolution
 * overview is written the same way, and a connected-component anomaly
 * catalogue is produced and checked against the rasterised excavation plan.
 *
 * Usage: excavation_magnetometry_tile_fsync OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GX 2048                 /* grid columns (along traverse), 0.125 m */
#define GY 1024                 /* grid rows, 0.125 m */
#define LINE_STEP 4             /* traverses every 4 grid rows (0.5 m) */
#define NLINES (GY / LINE_STEP)
#define TILE 128
#define NTX (GX / TILE)
#define NTY (GY / TILE)
#define NFEAT 900
#define CELL 0.125
#define PI 3.14159265358979323846

typedef struct {
    int kind;                   /* 0 ditch segment, 1 pit, 2 kiln, 3 hearth, 4 iron */
    double x0, y0, x1, y1;      /* m */
    double width, depth, susc;  /* m, m, contrast */
} feature;

typedef struct {
    float x, y, nt;             /* position (m) and gradient reading (nT) */
    uint32_t tick;              /* sample clock */
} sample;

static const char *outdir;
static feature feats[NFEAT];
static float grid[GY][GX];
static unsigned char truth[GY][GX];     /* feature class + 1 on the excavation plan, 0 = natural */
static uint64_t rng = 0x243F6A8885A308D3ull;

static double urand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u1 = urand(), u2 = urand();
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "excavation: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

static FILE *open_out(const char *name, const char *mode, char *path, size_t pathsz)
{
    snprintf(path, pathsz, "%s/%s", outdir, name);
    FILE *f = fopen(path, mode);
    if (!f) die("fopen", path);
    return f;
}

/* Buried features of a multi-period site; the excavation plan (ground truth) is rasterised
 * and written as a PGM for later comparison with the geophysics. */
static void build_site_model(void)
{
    int n = 0;
    double W = GX * CELL, H = GY * CELL;
    /* two rectilinear enclosures made of ditch segments */
    for (int e = 0; e < 2; e++) {
        double cx = W * (0.3 + 0.4 * e), cy = H * 0.5, hw = 40 + 20 * urand(), hh = 25 + 15 * urand();
        double xs[5] = {cx - hw, cx + hw, cx + hw, cx - hw, cx - hw};
        double ys[5] = {cy - hh, cy - hh, cy + hh, cy + hh, cy - hh};
        for (int s = 0; s < 4; s++) {
            for (int k = 0; k < 10 && n < NFEAT; k++, n++) {
                double t0 = k / 10.0, t1 = (k + 0.9) / 10.0;
                feats[n] = (feature){0, xs[s] + t0 * (xs[s + 1] - xs[s]), ys[s] + t0 * (ys[s + 1] - ys[s]),
                                     xs[s] + t1 * (xs[s + 1] - xs[s]), ys[s] + t1 * (ys[s + 1] - ys[s]),
                                     1.5 + urand(), 1.2, 6.0 + 3.0 * urand()};
            }
        }
    }
    /* pits, hearths, one kiln, lots of ferrous debris */
    while (n < NFEAT) {
        double r = urand();
        double x = W * urand(), y = H * urand();
        if (r < 0.25)
            feats[n++] = (feature){1, x, y, x, y, 0.6 + 0.8 * urand(), 0.8, 5.0 + 8.0 * urand()};
        else if (r < 0.30)
            feats[n++] = (feature){3, x, y, x, y, 0.5 + 0.3 * urand(), 0.4, 25.0 + 30.0 * urand()};
        else if (r < 0.302)
            feats[n++] = (feature){2, x, y, x, y, 2.0, 0.9, 180.0};
        else
            feats[n++] = (feature){4, x, y, x, y, 0.05, 0.2 + 0.4 * urand(), 40.0 + 200.0 * urand()};
    }
    memset(truth, 0, sizeof truth);
    for (int i = 0; i < NFEAT; i++) {
        const feature *f = &feats[i];
        double r = f->kind == 4 ? 0.15 : (f->kind == 0 ? 0.5 * f->width : f->width);
        int c0 = (int)((fmin(f->x0, f->x1) - r) / CELL), c1 = (int)((fmax(f->x0, f->x1) + r) / CELL);
        int r0 = (int)((fmin(f->y0, f->y1) - r) / CELL), r1 = (int)((fmax(f->y0, f->y1) + r) / CELL);
        for (int row = r0 < 0 ? 0 : r0; row <= r1 && row < GY; row++)
            for (int col = c0 < 0 ? 0 : c0; col <= c1 && col < GX; col++) {
                double x = (col + 0.5) * CELL, y = (row + 0.5) * CELL, dx, dy;
                if (f->kind == 0) {
                    double vx = f->x1 - f->x0, vy = f->y1 - f->y0;
                    double t = ((x - f->x0) * vx + (y - f->y0) * vy) / (vx * vx + vy * vy);
                    t = t < 0 ? 0 : (t > 1 ? 1 : t);
                    dx = x - (f->x0 + t * vx); dy = y - (f->y0 + t * vy);
                } else {
                    dx = x - f->x0; dy = y - f->y0;
                }
                if (dx * dx + dy * dy <= r * r) truth[row][col] = (unsigned char)(f->kind + 1);
            }
    }
    char path[4096];
    FILE *pf = open_out("site_plan_truth.pgm", "wb", path, sizeof path);
    if (fprintf(pf, "P5\n%d %d\n5\n", GX, GY) < 0) die("fprintf", path);
    for (int row = GY - 1; row >= 0; row--)
        if (fwrite(truth[row], 1, GX, pf) != GX) die("fwrite", path);
    if (fclose(pf) != 0) die("fclose", path);
}

/* Vertical-gradient response at (x, y) of all features (cheap bounding test first). */
static double site_response(double x, double y)
{
    double g = 0.0;
    for (int i = 0; i < NFEAT; i++) {
        const feature *f = &feats[i];
        double dx, dy;
        if (f->kind == 0) {
            double vx = f->x1 - f->x0, vy = f->y1 - f->y0;
            double t = ((x - f->x0) * vx + (y - f->y0) * vy) / (vx * vx + vy * vy);
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            dx = x - (f->x0 + t * vx); dy = y - (f->y0 + t * vy);
        } else {
            dx = x - f->x0; dy = y - f->y0;
        }
        double r2 = dx * dx + dy * dy;
        if (r2 > 64.0) continue;
        double z = f->depth + 0.3;
        if (f->kind == 4) {
            /* dipole: positive peak with negative halo towards north */
            double r2n = dx * dx + (dy - 0.3) * (dy - 0.3);
            g += f->susc * (z * z / pow(r2 + z * z, 1.5) - 0.4 * z * z / pow(r2n + z * z, 1.5));
        } else {
            double w = f->width;
            g += f->susc * w * w / (r2 + w * w + z * z) * exp(-r2 / (8.0 * w * w + 1.0));
        }
    }
    return g;
}

/* Zig-zag traverses at 0.5 m spacing, 8 samples per metre, written as they are logged. */
static long generate_traverses(void)
{
    char path[4096];
    FILE *f = open_out("raw_traverses.bin", "wb", path, sizeof path);
    static sample line[GX];
    uint32_t tick = 0;
    double drift = 0.0;
    long nbytes = 0;
    for (int l = 0; l < NLINES; l++) {
        double y = (l * LINE_STEP + 0.5) * CELL;
        int forward = (l % 2) == 0;
        double heading = forward ? 1.8 : -1.8;            /* heading error, nT */
        double lag = forward ? 0.06 : -0.06;              /* positioning lag, m */
        for (int s = 0; s < GX; s++) {
            int col = forward ? s : GX - 1 - s;
            double x = (col + 0.5) * CELL + lag;
            drift += 0.0004 * gauss();
            double v = site_response(x, y) + heading + drift + 0.15 * gauss();
            if (urand() < 2e-4) v += 60.0 * gauss();      /* spike from the operator's boots */
            line[s] = (sample){(float)x, (float)y, (float)v, tick++};
        }
        if (fwrite(line, sizeof(sample), GX, f) != GX) die("fwrite", path);
        nbytes += (long)sizeof(sample) * GX;
    }
    if (fclose(f) != 0) die("fclose", path);
    return nbytes;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Read traverses back: zero-mean traverse, destagger (undo lag), place on the grid rows. */
static void load_and_grid_traverses(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/raw_traverses.bin", outdir);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    static sample line[GX];
    static float sorted[GX];
    for (int l = 0; l < NLINES; l++) {
        if (fread(line, sizeof(sample), GX, f) != GX) die("fread (short)", path);
        for (int s = 0; s < GX; s++) sorted[s] = line[s].nt;
        qsort(sorted, GX, sizeof(float), cmp_float);
        float med = 0.5f * (sorted[GX / 2 - 1] + sorted[GX / 2]);   /* robust ZMT */
        int row = l * LINE_STEP;
        for (int s = 0; s < GX; s++) {
            double xc = line[s].x - ((l % 2) == 0 ? 0.06 : -0.06);  /* destagger */
            int col = (int)floor(xc / CELL);
            if (col < 0) col = 0;
            if (col >= GX) col = GX - 1;
            grid[row][col] = line[s].nt - med;
        }
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* 5-point median along each traverse removes spikes. */
static void despike_traverses(void)
{
    static float tmp[GX];
    for (int row = 0; row < GY; row += LINE_STEP) {
        for (int c = 0; c < GX; c++) {
            float w[5];
            int k = 0;
            for (int d = -2; d <= 2; d++) {
                int cc = c + d < 0 ? 0 : (c + d >= GX ? GX - 1 : c + d);
                w[k++] = grid[row][cc];
            }
            for (int i = 1; i < 5; i++)
                for (int j = i; j > 0 && w[j - 1] > w[j]; j--) { float t = w[j]; w[j] = w[j - 1]; w[j - 1] = t; }
            tmp[c] = fabsf(grid[row][c] - w[2]) > 8.0f ? w[2] : grid[row][c];
        }
        memcpy(grid[row], tmp, sizeof tmp);
    }
}

/* Catmull-Rom interpolation across traverses to fill the rows between them. */
static void interpolate_between_lines(void)
{
    for (int l = 0; l < NLINES; l++) {
        int r1 = l * LINE_STEP;
        int r0 = (l > 0 ? l - 1 : 0) * LINE_STEP;
        int r2 = (l < NLINES - 1 ? l + 1 : l) * LINE_STEP;
        int r3 = (l < NLINES - 2 ? l + 2 : (l < NLINES - 1 ? l + 1 : l)) * LINE_STEP;
        for (int k = 1; k < LINE_STEP; k++) {
            int row = r1 + k;
            if (row >= GY) break;
            double t = (double)k / LINE_STEP, t2 = t * t, t3 = t2 * t;
            double a0 = -0.5 * t3 + t2 - 0.5 * t, a1 = 1.5 * t3 - 2.5 * t2 + 1.0;
            double a2 = -1.5 * t3 + 2.0 * t2 + 0.5 * t, a3 = 0.5 * t3 - 0.5 * t2;
            for (int c = 0; c < GX; c++)
                grid[row][c] = (float)(a0 * grid[r0][c] + a1 * grid[r1][c] + a2 * grid[r2][c] + a3 * grid[r3][c]);
        }
    }
}

/* Per-tile processing: remove a planar trend fitted by least squares, clip display range. */
static void process_tile(float *tile, double *mean, double *sd, float *lo, float *hi)
{
    double sxx = 0, syy = 0, sxz = 0, syz = 0, sz = 0;
    double m = (TILE - 1) / 2.0;
    for (int r = 0; r < TILE; r++)
        for (int c = 0; c < TILE; c++) {
            double x = c - m, y = r - m, z = tile[r * TILE + c];
            sxx += x * x; syy += y * y; sxz += x * z; syz += y * z; sz += z;
        }
    double bx = sxz / sxx, by = syz / syy, b0 = sz / (TILE * TILE);
    double s = 0, s2 = 0;
    for (int r = 0; r < TILE; r++)
        for (int c = 0; c < TILE; c++) {
            float *p = &tile[r * TILE + c];
            *p = (float)(*p - b0 - bx * (c - m) - by * (r - m));
            s += *p; s2 += (double)*p * *p;
        }
    *mean = s / (TILE * TILE);
    *sd = sqrt(fmax(0.0, s2 / (TILE * TILE) - *mean * *mean));
    *lo = (float)(*mean - 3.0 * *sd);
    *hi = (float)(*mean + 3.0 * *sd);
}

/* Tiled mosaic: each tile header + data, flushed and fdatasync'ed before the next tile. */
static void write_tiled_mosaic(const char *name, const char *indexname, int level, int w, int h,
                               float (*src)[GX], double *checksum)
{
    char path[4096], ipath[4096];
    FILE *f = open_out(name, "wb", path, sizeof path);
    FILE *idx = open_out(indexname, "w", ipath, sizeof ipath);
    if (fprintf(idx, "level,tx,ty,offset,mean,sd,clip_lo,clip_hi\n") < 0) die("fprintf", ipath);
    static float tile[TILE * TILE];
    *checksum = 0.0;
    int ntx = w / TILE, nty = h / TILE;
    for (int ty = 0; ty < nty; ty++)
        for (int tx = 0; tx < ntx; tx++) {
            for (int r = 0; r < TILE; r++) memcpy(&tile[r * TILE], &src[ty * TILE + r][tx * TILE], TILE * sizeof(float));
            double mean, sd;
            float lo, hi;
            process_tile(tile, &mean, &sd, &lo, &hi);
            long off = ftell(f);
            if (off < 0) die("ftell", path);
            int32_t hdr[4] = {level, tx, ty, TILE};
            if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("fwrite", path);
            if (fwrite(tile, sizeof(float), TILE * TILE, f) != TILE * TILE) die("fwrite", path);
            if (fflush(f) != 0) die("fflush", path);
            if (fdatasync(fileno(f)) != 0) die("fdatasync", path);
            if (fprintf(idx, "%d,%d,%d,%ld,%.4f,%.4f,%.3f,%.3f\n", level, tx, ty, off, mean, sd, lo, hi) < 0)
                die("fprintf", ipath);
            if (fflush(idx) != 0) die("fflush", ipath);
            for (int i = 0; i < TILE * TILE; i += 97) *checksum += tile[i];
        }
    if (fsync(fileno(idx)) != 0) die("fsync", ipath);
    if (fclose(idx) != 0) die("fclose", ipath);
    if (fclose(f) != 0) die("fclose", path);
}

/* 8-bit greyscale PGM of the whole processed grid for the site report. */
static void write_preview_pgm(void)
{
    char path[4096];
    FILE *f = open_out("survey_preview.pgm", "wb", path, sizeof path);
    if (fprintf(f, "P5\n%d %d\n255\n", GX, GY) < 0) die("fprintf", path);
    static unsigned char row[GX];
    for (int r = GY - 1; r >= 0; r--) {
        for (int c = 0; c < GX; c++) {
            double v = (grid[r][c] + 3.0) / 6.0 * 255.0;
            row[c] = (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
        if (fwrite(row, 1, GX, f) != GX) die("fwrite", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

static float overview[GY / 2][GX];           /* only the first GX/2 columns are used */

static void build_overview(void)
{
    for (int r = 0; r < GY / 2; r++)
        for (int c = 0; c < GX / 2; c++)
            overview[r][c] = 0.25f * (grid[2 * r][2 * c] + grid[2 * r][2 * c + 1] + grid[2 * r + 1][2 * c] +
                                      grid[2 * r + 1][2 * c + 1]);
}

static int uf_find(int *p, int x)
{
    while (p[x] != x) { p[x] = p[p[x]]; x = p[x]; }
    return x;
}

/* Threshold at +2.5 nT, union-find labelling, catalogue of anomalies by area. */
static int label_anomalies(void)
{
    static int parent[GY * GX];
    static int area[GY * GX];
    static double sumx[GY * GX], sumy[GY * GX], peak[GY * GX];
    static int hits[GY * GX];
    for (int i = 0; i < GY * GX; i++) parent[i] = -1;
    for (int r = 0; r < GY; r++)
        for (int c = 0; c < GX; c++) {
            if (grid[r][c] < 2.5f) continue;
            int id = r * GX + c;
            parent[id] = id;
            if (c > 0 && parent[id - 1] >= 0) parent[uf_find(parent, id)] = uf_find(parent, id - 1);
            if (r > 0 && parent[id - GX] >= 0) {
                int a = uf_find(parent, id), b = uf_find(parent, id - GX);
                if (a != b) parent[a] = b;
            }
        }
    for (int i = 0; i < GY * GX; i++) { area[i] = 0; hits[i] = 0; sumx[i] = sumy[i] = 0; peak[i] = 0; }
    for (int r = 0; r < GY; r++)
        for (int c = 0; c < GX; c++) {
            int id = r * GX + c;
            if (parent[id] < 0) continue;
            int root = uf_find(parent, id);
            area[root]++; sumx[root] += c; sumy[root] += r;
            hits[root] += truth[r][c] != 0;
            if (grid[r][c] > peak[root]) peak[root] = grid[r][c];
        }
    char path[4096];
    FILE *f = open_out("anomalies.csv", "w", path, sizeof path);
    if (fprintf(f, "id,x_m,y_m,area_m2,peak_nT,class,on_excavated_feature\n") < 0) die("fprintf", path);
    int n = 0;
    for (int i = 0; i < GY * GX; i++) {
        if (area[i] < 6) continue;
        double a = area[i] * CELL * CELL;
        const char *cls = peak[i] > 60 ? "ferrous/kiln" : (a > 6.0 ? "ditch/structure" : (a > 0.5 ? "pit" : "small"));
        if (fprintf(f, "%d,%.2f,%.2f,%.3f,%.2f,%s,%.2f\n", n++, (sumx[i] / area[i] + 0.5) * CELL,
                    (sumy[i] / area[i] + 0.5) * CELL, a, peak[i], cls, (double)hits[i] / area[i]) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    build_site_model();
    long raw = generate_traverses();
    load_and_grid_traverses();
    despike_traverses();
    interpolate_between_lines();
    double ck0, ck1;
    write_tiled_mosaic("mosaic_L0.tiles", "mosaic_L0_index.csv", 0, GX, GY, grid, &ck0);
    build_overview();
    write_tiled_mosaic("mosaic_L1.tiles", "mosaic_L1_index.csv", 1, GX / 2, GY / 2, overview, &ck1);
    write_preview_pgm();
    int nanom = label_anomalies();
    printf("excavation: %ld raw bytes, %d+%d tiles fsynced, %d anomalies, checksums %.3f %.3f\n", raw,
           NTX * NTY, (NTX / 2) * (NTY / 2), nanom, ck0, ck1);
    return 0;
}
