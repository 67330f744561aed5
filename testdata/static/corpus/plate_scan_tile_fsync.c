/*
 * plate_scan_tile_fsync.c
 *
 * Digitisation pipeline for archival astronomical photographic plates.
 * A synthetic star field is "exposed" onto an emulsion (Gaussian core plus
 * scattering halo, sky fog, vignetting, grain noise, characteristic H-D
 * curve) and scanned tile by tile into a 16-bit density file; every tile is
 * made durable (fwrite, fflush, fsync) before the scanner head moves on, as
 * a plate-scanning machine does so that an interrupted scan can resume.
 *
 * The reduction pass reads the density tiles back, inverts the H-D curve
 * through a lookup table, subtracts a sigma-clipped tile background and
 * writes float32 relative-intensity tiles (fwrite, fflush, fdatasync per
 * tile), detects stars per tile into a flushed CSV catalogue, builds a
 * binned PGM preview, and finally cross-matches detections with the input
 * catalogue to fit a photometric zero point and completeness curve.
 *
 * usage: plate_scan_tile_fsync OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLATE 2048                 /* pixels per side (10 um pixels) */
#define TILE 256
#define NTX (PLATE / TILE)
#define NTILES (NTX * NTX)
#define NSTARS 26000
#define PREVIEW_BIN 8
#define MAXDETS 200000             /* detections per plate */
#define MATCH_CELL 4

typedef struct { double x, y, mag; } star_t;
typedef struct { double x, y, flux, peak; } det_t;

static star_t stars[NSTARS];
static int *bucket_start, *bucket_list;       /* stars per tile, with margins */
static uint16_t tile_raw[TILE * TILE];
static float tile_cal[TILE * TILE];
static double expo[TILE * TILE];
static float hd_lut[65536];
static double preview[(PLATE / PREVIEW_BIN) * (PLATE / PREVIEW_BIN)];
static det_t *dets;
static int ndets;
static uint64_t rng_state = 0x5eed0f1a7e5ull;
static const char *outdir;

/* H-D curve parameters */
static const double D_FOG = 0.25, D_MAX = 3.2, GAMMA_HD = 2.4, LOGE0 = 0.6;
static const double D_SCALE = 65535.0 / 4.0;   /* density units per code */

static void die(const char *what)
{
    fprintf(stderr, "plate_scan_tile_fsync: %s: %s\n", what, errno ? strerror(errno) : "error");
    exit(1);
}

static double urand(void)
{
    rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
    return ((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = urand(), v = urand();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static FILE *open_out(const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

/* star field with a power-law luminosity function and a mild cluster */
static void make_catalog(void)
{
    for (int i = 0; i < NSTARS; i++) {
        star_t *s = &stars[i];
        if (i % 7 == 0) {
            double r = 180.0 * sqrt(-log(urand() + 1e-12)), a = 6.283185307179586 * urand();
            s->x = 1300.0 + r * cos(a);
            s->y = 700.0 + r * sin(a);
        } else {
            s->x = urand() * PLATE;
            s->y = urand() * PLATE;
        }
        if (s->x < 0) s->x = 0;
        if (s->x > PLATE - 1) s->x = PLATE - 1;
        if (s->y < 0) s->y = 0;
        if (s->y > PLATE - 1) s->y = PLATE - 1;
        /* N(<m) ~ 10^(0.3 m) between 8 and 17 */
        double u = urand();
        s->mag = log10(pow(10.0, 0.3 * 8.0) + u * (pow(10.0, 0.3 * 17.0) - pow(10.0, 0.3 * 8.0))) / 0.3;
    }
    FILE *f = open_out("input_catalogue.csv", "w");
    fprintf(f, "id,x_px,y_px,mag\n");
    for (int i = 0; i < NSTARS; i++)
        if (fprintf(f, "%d,%.3f,%.3f,%.3f\n", i, stars[i].x, stars[i].y, stars[i].mag) < 0) die("catalogue");
    if (fclose(f) != 0) die("close catalogue");

    /* counting sort of stars into tiles, with a 12 px render margin */
    const int margin = 12;
    int *count = calloc(NTILES + 1, sizeof(int));
    if (!count) die("calloc");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            bucket_start = malloc((NTILES + 1) * sizeof(int));
            int tot = 0;
            for (int t = 0; t < NTILES; t++) { bucket_start[t] = tot; tot += count[t]; count[t] = 0; }
            bucket_start[NTILES] = tot;
            bucket_list = malloc((size_t)tot * sizeof(int) + 1);
            if (!bucket_start || !bucket_list) die("malloc");
        }
        for (int i = 0; i < NSTARS; i++) {
            int tx0 = (int)((stars[i].x - margin) / TILE), tx1 = (int)((stars[i].x + margin) / TILE);
            int ty0 = (int)((stars[i].y - margin) / TILE), ty1 = (int)((stars[i].y + margin) / TILE);
            if (stars[i].x - margin < 0) tx0 = 0;
            if (stars[i].y - margin < 0) ty0 = 0;
            if (tx1 >= NTX) tx1 = NTX - 1;
            if (ty1 >= NTX) ty1 = NTX - 1;
            for (int ty = ty0; ty <= ty1; ty++)
                for (int tx = tx0; tx <= tx1; tx++) {
                    int t = ty * NTX + tx;
                    if (pass == 1) bucket_list[bucket_start[t] + count[t]] = i;
                    count[t]++;
                }
        }
    }
    free(count);
}

/* expose and develop one tile; result in tile_raw (density codes) */
static void render_tile(int tx, int ty)
{
    const double x0 = tx * TILE, y0 = ty * TILE, c = 0.5 * PLATE;
    for (int j = 0; j < TILE; j++)
        for (int i = 0; i < TILE; i++) {
            double dx = x0 + i - c, dy = y0 + j - c;
            double vig = 1.0 - 0.25 * (dx * dx + dy * dy) / (c * c);
            expo[j * TILE + i] = 1.2 * vig;                      /* sky background */
        }
    int t = ty * NTX + tx;
    for (int b = bucket_start[t]; b < bucket_start[t + 1]; b++) {
        const star_t *s = &stars[bucket_list[b]];
        double flux = 4.0e5 * pow(10.0, -0.4 * (s->mag - 8.0));
        double sig = 1.3 + 0.12 * (17.0 - s->mag);               /* brighter stars bloat */
        int r = (int)(4.0 * sig + 3.0);
        int i0 = (int)floor(s->x - x0) - r, i1 = i0 + 2 * r + 1;
        int j0 = (int)floor(s->y - y0) - r, j1 = j0 + 2 * r + 1;
        if (i0 < 0) i0 = 0;
        if (j0 < 0) j0 = 0;
        if (i1 > TILE) i1 = TILE;
        if (j1 > TILE) j1 = TILE;
        double a = flux / (6.283185307179586 * sig * sig), inv = 0.5 / (sig * sig);
        for (int j = j0; j < j1; j++) {
            double ddy = y0 + j + 0.5 - s->y;
            for (int i = i0; i < i1; i++) {
                double ddx = x0 + i + 0.5 - s->x, r2 = ddx * ddx + ddy * ddy;
                expo[j * TILE + i] += a * exp(-r2 * inv) + 0.02 * a / (1.0 + r2 / (9.0 * sig * sig));
            }
        }
    }
    for (int p = 0; p < TILE * TILE; p++) {
        double le = log10(expo[p]);
        double d = D_FOG + D_MAX / (1.0 + exp(-GAMMA_HD * (le - LOGE0)));
        d += 0.015 * gauss() * sqrt(d);                          /* emulsion grain */
        double code = d * D_SCALE;
        if (code < 0) code = 0;
        if (code > 65535) code = 65535;
        tile_raw[p] = (uint16_t)lrint(code);
    }
}

/* fwrite + fflush + fsync (or fdatasync) */
static void write_tile_durable(FILE *f, const void *buf, size_t bytes, int datasync)
{
    if (fwrite(buf, 1, bytes, f) != bytes) die("fwrite tile");
    if (fflush(f) != 0) die("fflush tile");
    int fd = fileno(f);
    if ((datasync ? fdatasync(fd) : fsync(fd)) != 0) die("sync tile");
}

static void scan_plate(void)
{
    FILE *f = open_out("plate_density.t16", "wb");
    uint32_t hdr[4] = {0x504c5431u, PLATE, PLATE, TILE};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("write header");
    for (int ty = 0; ty < NTX; ty++)
        for (int tx = 0; tx < NTX; tx++) {
            render_tile(tx, ty);
            write_tile_durable(f, tile_raw, sizeof tile_raw, 0);
        }
    if (fclose(f) != 0) die("close density file");
}

/* density code -> relative exposure (inverse H-D curve), clipped near fog and saturation */
static void build_hd_lut(void)
{
    for (int c = 0; c < 65536; c++) {
        double d = c / D_SCALE;
        double y = (d - D_FOG) / D_MAX;
        if (y < 1e-4) y = 1e-4;
        if (y > 1.0 - 1e-4) y = 1.0 - 1e-4;
        double le = LOGE0 - log(1.0 / y - 1.0) / GAMMA_HD;
        hd_lut[c] = (float)pow(10.0, le);
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* background: median of a 1-in-16 subsample, then 3-sigma clipped mean */
static void subtract_background(double *bg, double *rms)
{
    static float sample[TILE * TILE / 16];
    int n = 0;
    for (int p = 0; p < TILE * TILE; p += 16) sample[n++] = tile_cal[p];
    qsort(sample, (size_t)n, sizeof(float), cmp_float);
    double med = sample[n / 2], sd = 0.5 * (sample[(int)(0.8413 * n)] - sample[(int)(0.1587 * n)]);
    for (int it = 0; it < 3; it++) {
        double s = 0, s2 = 0;
        int m = 0;
        for (int p = 0; p < TILE * TILE; p++) {
            double v = tile_cal[p];
            if (fabs(v - med) < 3.0 * sd) { s += v; s2 += v * v; m++; }
        }
        if (m < 10) break;
        med = s / m;
        sd = sqrt(fmax(s2 / m - med * med, 1e-12));
    }
    for (int p = 0; p < TILE * TILE; p++) tile_cal[p] -= (float)med;
    *bg = med;
    *rms = sd;
}

/* local maxima above 5 sigma, 7x7 centroid, r=4 aperture flux */
static int detect_tile(int tx, int ty, double rms, FILE *csv)
{
    int found = 0;
    const float thr = (float)(5.0 * rms);
    for (int j = 5; j < TILE - 5; j++)
        for (int i = 5; i < TILE - 5; i++) {
            float v = tile_cal[j * TILE + i];
            if (v < thr) continue;
            int peak = 1;
            for (int dj = -1; dj <= 1 && peak; dj++)
                for (int di = -1; di <= 1; di++)
                    if ((di || dj) && tile_cal[(j + dj) * TILE + i + di] >= v) { peak = 0; break; }
            if (!peak) continue;
            double sx = 0, sy = 0, sf = 0, ap = 0;
            for (int dj = -3; dj <= 3; dj++)
                for (int di = -3; di <= 3; di++) {
                    double w = tile_cal[(j + dj) * TILE + i + di];
                    if (w > 0) { sx += w * di; sy += w * dj; sf += w; }
                }
            for (int dj = -4; dj <= 4; dj++)
                for (int di = -4; di <= 4; di++)
                    if (di * di + dj * dj <= 16) ap += tile_cal[(j + dj) * TILE + i + di];
            if (ndets >= MAXDETS) continue;
            det_t *d = &dets[ndets++];
            d->x = tx * TILE + i + 0.5 + sx / sf;
            d->y = ty * TILE + j + 0.5 + sy / sf;
            d->flux = ap;
            d->peak = v;
            if (fprintf(csv, "%d,%d,%.3f,%.3f,%.5g,%.5g\n", tx, ty, d->x, d->y, d->flux, d->peak) < 0)
                die("write detections");
            found++;
        }
    if (fflush(csv) != 0) die("fflush detections");
    return found;
}

static void reduce_plate(double *mean_bg, double *mean_rms)
{
    FILE *in = open_out("plate_density.t16", "rb");
    FILE *out = open_out("plate_intensity.f32", "wb");
    FILE *csv = open_out("detections.csv", "w");
    FILE *log = open_out("tile_log.txt", "w");
    uint32_t hdr[4];
    if (fread(hdr, sizeof hdr, 1, in) != 1 || hdr[1] != PLATE || hdr[3] != TILE) die("bad density header");
    hdr[0] = 0x504c5432u;
    if (fwrite(hdr, sizeof hdr, 1, out) != 1) die("write intensity header");
    fprintf(csv, "tile_x,tile_y,x_px,y_px,flux,peak\n");
    const int pw = PLATE / PREVIEW_BIN;
    *mean_bg = *mean_rms = 0.0;
    for (int ty = 0; ty < NTX; ty++)
        for (int tx = 0; tx < NTX; tx++) {
            if (fread(tile_raw, sizeof tile_raw, 1, in) != 1) die("read density tile");
            for (int p = 0; p < TILE * TILE; p++) {
                tile_cal[p] = hd_lut[tile_raw[p]];
                int px = (tx * TILE + p % TILE) / PREVIEW_BIN, py = (ty * TILE + p / TILE) / PREVIEW_BIN;
                preview[py * pw + px] += tile_raw[p];
            }
            double bg, rms;
            subtract_background(&bg, &rms);
            int nd = detect_tile(tx, ty, rms, csv);
            write_tile_durable(out, tile_cal, sizeof tile_cal, 1);
            if (fprintf(log, "tile %2d %2d  background %.4f  rms %.5f  detections %d\n", tx, ty, bg, rms, nd) < 0)
                die("tile log");
            if (fflush(log) != 0) die("fflush tile log");
            *mean_bg += bg / NTILES;
            *mean_rms += rms / NTILES;
        }
    if (fclose(in) != 0 || fclose(out) != 0 || fclose(csv) != 0 || fclose(log) != 0) die("close reduction files");
}

static void write_preview(void)
{
    const int pw = PLATE / PREVIEW_BIN;
    double lo = 1e300, hi = -1e300;
    for (int p = 0; p < pw * pw; p++) {
        if (preview[p] < lo) lo = preview[p];
        if (preview[p] > hi) hi = preview[p];
    }
    FILE *f = open_out("preview.pgm", "wb");
    fprintf(f, "P5\n%d %d\n255\n", pw, pw);
    unsigned char *row = malloc((size_t)pw);
    if (!row) die("malloc");
    for (int y = 0; y < pw; y++) {
        for (int x = 0; x < pw; x++) {
            double v = (preview[y * pw + x] - lo) / (hi - lo + 1e-30);
            row[x] = (unsigned char)(255.0 * sqrt(v));
        }
        if (fwrite(row, 1, (size_t)pw, f) != (size_t)pw) die("write preview");
    }
    free(row);
    if (fclose(f) != 0) die("close preview");
}

/* grid-hash cross-match of detections against the input catalogue */
static void crossmatch(double mean_bg, double mean_rms)
{
    const int nc = PLATE / MATCH_CELL;
    int *head = malloc((size_t)nc * nc * sizeof(int)), *next = malloc(NSTARS * sizeof(int));
    if (!head || !next) die("malloc");
    for (int c = 0; c < nc * nc; c++) head[c] = -1;
    for (int i = 0; i < NSTARS; i++) {
        int c = (int)(stars[i].y / MATCH_CELL) * nc + (int)(stars[i].x / MATCH_CELL);
        next[i] = head[c];
        head[c] = i;
    }
    int matched = 0, nb[10] = {0}, nm[10] = {0};
    double sx = 0, sy = 0, sxx = 0, sxy = 0, sdr = 0;
    for (int i = 0; i < NSTARS; i++) {
        int b = (int)(stars[i].mag - 8.0);
        if (b >= 0 && b < 10) nb[b]++;
    }
    char *used = calloc(NSTARS, 1);
    if (!used) die("calloc");
    for (int d = 0; d < ndets; d++) {
        if (dets[d].flux <= 0) continue;
        int cx = (int)(dets[d].x / MATCH_CELL), cy = (int)(dets[d].y / MATCH_CELL), best = -1;
        double bestr = 1.5 * 1.5;
        for (int yy = cy - 1; yy <= cy + 1; yy++)
            for (int xx = cx - 1; xx <= cx + 1; xx++) {
                if (xx < 0 || yy < 0 || xx >= nc || yy >= nc) continue;
                for (int s = head[yy * nc + xx]; s >= 0; s = next[s]) {
                    double ddx = stars[s].x - dets[d].x, ddy = stars[s].y - dets[d].y, r2 = ddx * ddx + ddy * ddy;
                    if (r2 < bestr) { bestr = r2; best = s; }
                }
            }
        if (best < 0 || used[best]) continue;
        used[best] = 1;
        matched++;
        double instr = -2.5 * log10(dets[d].flux), m = stars[best].mag;
        sx += instr; sy += m; sxx += instr * instr; sxy += instr * m; sdr += sqrt(bestr);
        int b = (int)(m - 8.0);
        if (b >= 0 && b < 10) nm[b]++;
    }
    double slope = (matched * sxy - sx * sy) / (matched * sxx - sx * sx);
    double zp = (sy - slope * sx) / matched;
    FILE *f = open_out("photometry_report.txt", "w");
    fprintf(f, "plate %dx%d px, %d tiles, %d catalogue stars, %d detections, %d matched\n", PLATE, PLATE,
            NTILES, NSTARS, ndets, matched);
    fprintf(f, "mean background %.4f  mean rms %.5f  mean match radius %.3f px\n", mean_bg, mean_rms,
            matched ? sdr / matched : 0.0);
    fprintf(f, "calibration: mag = %.4f + %.4f * (-2.5 log10 flux)\n", zp, slope);
    fprintf(f, "# mag_bin  n_cat  n_matched  completeness\n");
    for (int b = 0; b < 10; b++)
        fprintf(f, "%5.1f-%4.1f %6d %10d %12.3f\n", 8.0 + b, 9.0 + b, nb[b], nm[b], nb[b] ? (double)nm[b] / nb[b] : 0.0);
    if (fclose(f) != 0) die("close report");
    printf("plate scan: %d x %d px in %d tiles, %d stars exposed\n", PLATE, PLATE, NTILES, NSTARS);
    printf("  detections %d, matched %d, zero point %.3f slope %.3f\n", ndets, matched, zp, slope);
    free(head); free(next); free(used);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    outdir = argv[1];
    dets = malloc(sizeof(det_t) * MAXDETS);
    if (!dets) die("malloc");
    make_catalog();
    scan_plate();
    build_hd_lut();
    double bg, rms;
    reduce_plate(&bg, &rms);
    write_preview();
    crossmatch(bg, rms);
    free(dets); free(bucket_start); free(bucket_list);
    return 0;
}
