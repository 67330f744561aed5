/*
 * Drone survey orthomosaic: a multirotor flies a lawnmower pattern at 100 m
 * over hilly farmland (procedural 4-band reflectance: fields, lanes,
 * hedgerows, tree clumps).  Each frame has a jittered pose and an unknown
 * auto-exposure gain; gains are recovered by a block adjustment over tie
 * points in frame overlaps.  The orthomosaic is then rendered tile by tile
 * (DEM-based projection into every covering frame, vignetting/BRDF
 * correction, nadir-weighted feathering) and each 4-band uint16 tile and its
 * float DSM tile are written with fwrite, fflush and fdatasync; the tile
 * index is fsync'd after each tile row.  A per-tile QA table and a quicklook
 * image finish the run.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AREA_W 1280.0
#define AREA_H 896.0
#define GSD 0.5
#define TILE 256
#define NTX ((int)(AREA_W / GSD + TILE - 1) / TILE)
#define NTY ((int)(AREA_H / GSD + TILE - 1) / TILE)
#define NBAND 4
#define AGL 100.0
#define SENSOR_W 4000
#define SENSOR_H 3000
#define FOCAL_PX 2856.0
#define LINE_SPACING 48.0
#define SHOT_SPACING 40.0
#define MAX_FRAMES 1200
#define TIE_GRID 6
#define GS_ITERS 300
#define QL 4
#define NODATA 0

typedef struct {
    double c[3], yaw, pitch, roll, R[9];
    double gain_true, loggain_est;
    int line, shot;
} frame_t;

typedef struct { int a, b; double r; int n; } pair_t;

static frame_t frames[MAX_FRAMES];
static int nframes;

/* integer lattice hash, as a macro so the noise inner loops stay flat */
#define HASH3(x, y, s, out) do { \
        uint32_t h_ = (uint32_t)(x) * 374761393u + (uint32_t)(y) * 668265263u + (uint32_t)(s) * 2246822519u; \
        h_ = (h_ ^ (h_ >> 13)) * 1274126177u; (out) = h_ ^ (h_ >> 16); } while (0)
#define HRAND(x, y, s, out) do { uint32_t q_; HASH3(x, y, s, q_); (out) = q_ * (1.0 / 4294967296.0); } while (0)

static double value_noise(double x, double y, uint32_t seed)
{
    int32_t ix = (int32_t)floor(x), iy = (int32_t)floor(y);
    double fx = x - ix, fy = y - iy;
    fx = fx * fx * (3 - 2 * fx); fy = fy * fy * (3 - 2 * fy);
    double a, b, c, d;
    HRAND(ix, iy, seed, a); HRAND(ix + 1, iy, seed, b);
    HRAND(ix, iy + 1, seed, c); HRAND(ix + 1, iy + 1, seed, d);
    return a + (b - a) * fx + (c - a) * fy + (a - b - c + d) * fx * fy;
}

static double fbm(double x, double y, int oct, uint32_t seed)
{
    double s = 0, amp = 0.5;
    for (int o = 0; o < oct; o++) { s += amp * value_noise(x, y, seed + o); x *= 2.03; y *= 2.03; amp *= 0.5; }
    return s;
}

static double terrain_height(double x, double y)
{
    return 35.0 * fbm(x / 600.0, y / 600.0, 3, 11u) + 4.0 * sin(x / 170.0) * cos(y / 210.0);
}

/* Ground reflectance (blue, green, red, NIR) and canopy height above ground. */
static void ground_reflectance(double x, double y, double refl[NBAND], double *canopy)
{
    static const double crop[6][NBAND] = {
        {0.04, 0.09, 0.05, 0.45}, {0.05, 0.10, 0.07, 0.38}, {0.08, 0.12, 0.14, 0.25},
        {0.10, 0.13, 0.17, 0.22}, {0.03, 0.07, 0.04, 0.52}, {0.06, 0.11, 0.10, 0.33}};
    double px = x / 140.0, py = y / 95.0;
    int32_t fx = (int32_t)floor(px + 0.3 * sin(py * 0.7)), fy = (int32_t)floor(py);
    double cr;
    HRAND(fx, fy, 5u, cr);
    int ct = (int)(cr * 6.0);
    double within = 0.85 + 0.3 * fbm(x / 9.0, y / 9.0, 2, 21u);
    for (int b = 0; b < NBAND; b++) refl[b] = crop[ct][b] * within;
    double ex = px + 0.3 * sin(py * 0.7) - fx, ey = py - fy;
    double edge = fmin(fmin(ex, 1 - ex) * 140.0, fmin(ey, 1 - ey) * 95.0);
    *canopy = 0.0;
    if (edge < 2.5) {
        double hedge = fbm(x / 4.0, y / 4.0, 2, 31u);
        *canopy = 2.0 + 3.0 * hedge;
        refl[0] = 0.03; refl[1] = 0.07; refl[2] = 0.04; refl[3] = 0.40 + 0.1 * hedge;
    }
    if (fabs(y - 430.0 - 60.0 * sin(x / 200.0)) < 3.0) {
        refl[0] = 0.18; refl[1] = 0.20; refl[2] = 0.22; refl[3] = 0.25; *canopy = 0.0;
    }
    double trees = fbm(x / 30.0, y / 30.0, 2, 41u);
    if (trees > 0.66) {
        *canopy = 8.0 + 40.0 * (trees - 0.66);
        refl[0] = 0.02; refl[1] = 0.05; refl[2] = 0.03; refl[3] = 0.35;
    }
}

static void pose_matrix(frame_t *f)
{
    double cy = cos(f->yaw), sy = sin(f->yaw), cp = cos(f->pitch), sp = sin(f->pitch);
    double cr = cos(f->roll), sr = sin(f->roll);
    double Rz[9] = {cy, -sy, 0, sy, cy, 0, 0, 0, 1};
    double Rx[9] = {1, 0, 0, 0, cp, -sp, 0, sp, cp};
    double Ry[9] = {cr, 0, sr, 0, 1, 0, -sr, 0, cr};
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            T[i * 3 + j] = 0;
            for (int k = 0; k < 3; k++) T[i * 3 + j] += Rx[i * 3 + k] * Ry[k * 3 + j];
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            f->R[i * 3 + j] = 0;
            for (int k = 0; k < 3; k++) f->R[i * 3 + j] += Rz[i * 3 + k] * T[k * 3 + j];
        }
}

static void plan_flight(void)
{
    uint64_t s = 0x2545F4914F6CDD1Dull;
    nframes = 0;
    int nlines = (int)(AREA_H / LINE_SPACING) + 2;
    int nshots = (int)(AREA_W / SHOT_SPACING) + 3;
    for (int l = 0; l < nlines; l++)
        for (int k = 0; k < nshots && nframes < MAX_FRAMES; k++) {
            frame_t *f = &frames[nframes];
            int kk = (l % 2 == 0) ? k : nshots - 1 - k;
            double jit[6];
            for (int q = 0; q < 6; q++) {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                jit[q] = ((s >> 11) * (1.0 / 9007199254740992.0)) - 0.5;
            }
            f->c[0] = -SHOT_SPACING + kk * SHOT_SPACING + 3.0 * jit[0];
            f->c[1] = -LINE_SPACING / 2 + l * LINE_SPACING + 3.0 * jit[1];
            f->c[2] = AGL + terrain_height(f->c[0], f->c[1]) * 0.3 + 30.0 + 2.0 * jit[2];
            f->yaw = (l % 2 == 0 ? 0.0 : M_PI) + 0.05 * jit[3];
            f->pitch = 0.06 * jit[4];
            f->roll = 0.06 * jit[5];
            f->gain_true = exp(0.15 * sin(0.37 * nframes) + 0.1 * sin(0.051 * nframes) + 0.08 * jit[0]);
            f->loggain_est = 0.0;
            f->line = l; f->shot = kk;
            pose_matrix(f);
            nframes++;
        }
}

/* Projects a ground point into a frame; returns 0 if outside the sensor. */
static int project(const frame_t *f, double X, double Y, double Z, double *u, double *v, double *cosv)
{
    double d[3] = {X - f->c[0], Y - f->c[1], Z - f->c[2]};
    double p[3];
    for (int i = 0; i < 3; i++) p[i] = f->R[0 * 3 + i] * d[0] + f->R[1 * 3 + i] * d[1] + f->R[2 * 3 + i] * d[2];
    double depth = -p[2];
    if (depth <= 1.0) return 0;
    *u = FOCAL_PX * p[0] / depth;
    *v = FOCAL_PX * p[1] / depth;
    if (fabs(*u) >= SENSOR_W / 2 || fabs(*v) >= SENSOR_H / 2) return 0;
    *cosv = depth / sqrt(p[0] * p[0] + p[1] * p[1] + depth * depth);
    return 1;
}

/* Known radiometric model: vignetting and a mild BRDF term toward the sun. */
static double radiometric_model(double u, double v, double cosv)
{
    double r2 = u * u + v * v, q = FOCAL_PX * FOCAL_PX / (FOCAL_PX * FOCAL_PX + r2);
    double sinv = sqrt(fmax(0.0, 1 - cosv * cosv));
    double r = sqrt(r2) + 1e-9;
    /* cos(azimuth - sun azimuth), sun azimuth 2.3 rad */
    double caz = (u * -0.666276 + v * 0.745705) / r;
    return q * q * (1.0 + 0.12 * sinv * caz);
}

/* Simulated raw DN for a frame pixel given the model factor 'model'. */
static void observe(const frame_t *f, int fid, double u, double v, double model, const double refl[NBAND],
                    double out[NBAND])
{
    double m = model * f->gain_true;
    uint32_t h;
    HASH3((int32_t)u, (int32_t)v, fid, h);
    for (int b = 0; b < NBAND; b++) {
        double noise = 1.0 + 0.01 * (((h >> (8 * b)) & 0xFF) / 255.0 - 0.5);
        out[b] = fmin(65535.0, refl[b] * 60000.0 * m * noise);
    }
}

/* Block adjustment of per-frame log gains from tie points in overlaps. */
static double estimate_gains(FILE *rep)
{
    int cap = nframes * 40, np = 0;
    pair_t *pairs = malloc(sizeof(pair_t) * cap);
    double foot = AGL * SENSOR_W / 2 / FOCAL_PX;
    for (int a = 0; a < nframes; a++)
        for (int b = a + 1; b < nframes && np < cap; b++) {
            double dx = frames[a].c[0] - frames[b].c[0], dy = frames[a].c[1] - frames[b].c[1];
            if (fabs(dx) > 1.4 * foot || fabs(dy) > 1.0 * foot) continue;
            double x0 = fmax(frames[a].c[0], frames[b].c[0]) - 0.7 * foot;
            double x1 = fmin(frames[a].c[0], frames[b].c[0]) + 0.7 * foot;
            double y0 = fmax(frames[a].c[1], frames[b].c[1]) - 0.5 * foot;
            double y1 = fmin(frames[a].c[1], frames[b].c[1]) + 0.5 * foot;
            double sum = 0; int n = 0;
            for (int i = 0; i < TIE_GRID; i++)
                for (int j = 0; j < TIE_GRID; j++) {
                    double X = x0 + (x1 - x0) * (i + 0.5) / TIE_GRID, Y = y0 + (y1 - y0) * (j + 0.5) / TIE_GRID;
                    double refl[NBAND], can, ua, va, ca, ub, vb, cb, oa[NBAND], ob[NBAND];
                    ground_reflectance(X, Y, refl, &can);
                    double Z = terrain_height(X, Y) + can;
                    if (!project(&frames[a], X, Y, Z, &ua, &va, &ca) || !project(&frames[b], X, Y, Z, &ub, &vb, &cb))
                        continue;
                    double ma = radiometric_model(ua, va, ca), mb = radiometric_model(ub, vb, cb);
                    observe(&frames[a], a, ua, va, ma, refl, oa);
                    observe(&frames[b], b, ub, vb, mb, refl, ob);
                    sum += log(oa[1] / ma) - log(ob[1] / mb) + log(oa[3] / ma) - log(ob[3] / mb);
                    n += 2;
                }
            if (n >= 8) { pairs[np].a = a; pairs[np].b = b; pairs[np].r = sum / n; pairs[np].n = n; np++; }
        }
    double *acc = malloc(sizeof(double) * nframes), *wt = malloc(sizeof(double) * nframes);
    for (int it = 0; it < GS_ITERS; it++) {
        memset(acc, 0, sizeof(double) * nframes);
        memset(wt, 0, sizeof(double) * nframes);
        for (int p = 0; p < np; p++) {
            pair_t *q = &pairs[p];
            acc[q->a] += q->n * (frames[q->b].loggain_est + q->r); wt[q->a] += q->n;
            acc[q->b] += q->n * (frames[q->a].loggain_est - q->r); wt[q->b] += q->n;
        }
        double mean = 0;
        for (int f = 0; f < nframes; f++) {
            if (wt[f] > 0) frames[f].loggain_est = 0.3 * frames[f].loggain_est + 0.7 * acc[f] / wt[f];
            mean += frames[f].loggain_est;
        }
        mean /= nframes;
        for (int f = 0; f < nframes; f++) frames[f].loggain_est -= mean;
    }
    double tmean = 0, err = 0;
    for (int f = 0; f < nframes; f++) tmean += log(frames[f].gain_true);
    tmean /= nframes;
    for (int f = 0; f < nframes; f++) {
        double e = frames[f].loggain_est - (log(frames[f].gain_true) - tmean);
        err += e * e;
    }
    fprintf(rep, "# frames %d tie pairs %d gain rms error %.5f\n", nframes, np, sqrt(err / nframes));
    free(pairs); free(acc); free(wt);
    return sqrt(err / nframes);
}

/* Renders one tile: DSM, then frame-major accumulation of corrected,
 * feathered observations. */
static void render_tile(int tx, int ty, uint16_t *bands, float *dsm, double *accum, double *wsum, int *nfr,
                        double *seam)
{
    double x0 = tx * TILE * GSD, y0 = ty * TILE * GSD;
    double hx = 1.06 * AGL * SENSOR_W / 2 / FOCAL_PX, hy = 1.08 * AGL * SENSOR_H / 2 / FOCAL_PX;
    static double refl_t[TILE * TILE][NBAND];
    static double best_w[TILE * TILE];
    static int best_f[TILE * TILE];
    memset(accum, 0, sizeof(double) * TILE * TILE * NBAND);
    memset(wsum, 0, sizeof(double) * TILE * TILE);
    for (int p = 0; p < TILE * TILE; p++) { best_w[p] = 0; best_f[p] = -1; }
    for (int j = 0; j < TILE; j++)
        for (int i = 0; i < TILE; i++) {
            double X = x0 + (i + 0.5) * GSD, Y = y0 + (j + 0.5) * GSD, can;
            if (X >= AREA_W || Y >= AREA_H) { dsm[j * TILE + i] = -9999.0f; continue; }
            ground_reflectance(X, Y, refl_t[j * TILE + i], &can);
            dsm[j * TILE + i] = (float)(terrain_height(X, Y) + can);
        }
    *nfr = 0;
    for (int f = 0; f < nframes; f++) {
        const frame_t *fr = &frames[f];
        if (fr->c[0] + hx < x0 || fr->c[0] - hx > x0 + TILE * GSD) continue;
        if (fr->c[1] + hy < y0 || fr->c[1] - hy > y0 + TILE * GSD) continue;
        int i0 = (int)fmax(0, (fr->c[0] - hx - x0) / GSD), i1 = (int)fmin(TILE, (fr->c[0] + hx - x0) / GSD);
        int j0 = (int)fmax(0, (fr->c[1] - hy - y0) / GSD), j1 = (int)fmin(TILE, (fr->c[1] + hy - y0) / GSD);
        double g = exp(fr->loggain_est);
        int used = 0;
        for (int j = j0; j < j1; j++)
            for (int i = i0; i < i1; i++) {
                int p = j * TILE + i;
                if (dsm[p] < -9000.0f) continue;
                double u, v, cv, obs[NBAND];
                if (!project(fr, x0 + (i + 0.5) * GSD, y0 + (j + 0.5) * GSD, dsm[p], &u, &v, &cv)) continue;
                double m = radiometric_model(u, v, cv);
                observe(fr, f, u, v, m, refl_t[p], obs);
                m *= g;
                double eu = 1.0 - fabs(u) / (SENSOR_W / 2), ev = 1.0 - fabs(v) / (SENSOR_H / 2);
                double w = fmin(eu, ev) * fmin(eu, ev) * cv * cv * cv * cv;
                for (int b = 0; b < NBAND; b++) accum[p * NBAND + b] += w * obs[b] / m;
                wsum[p] += w;
                if (w > best_w[p]) { best_w[p] = w; best_f[p] = f; }
                used = 1;
            }
        *nfr += used;
    }
    int seams = 0;
    for (int p = 0; p < TILE * TILE; p++) {
        for (int b = 0; b < NBAND; b++) {
            double val = wsum[p] > 0 ? accum[p * NBAND + b] / wsum[p] : NODATA;
            bands[b * TILE * TILE + p] = (uint16_t)fmin(65535.0, fmax(0.0, val));
        }
        if (p % TILE && best_f[p] != best_f[p - 1]) seams++;
    }
    *seam = seams * GSD;
}

static void write_fully(FILE *fp, const void *p, size_t sz, size_t n, const char *what)
{
    if (fwrite(p, sz, n, fp) != n) { perror(what); exit(1); }
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    char path[600];
    FILE *fm, *fd, *fi, *fq;
    snprintf(path, sizeof path, "%s/mosaic_tiles.bin", argv[1]); fm = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/dsm_tiles.bin", argv[1]); fd = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/tile_index.bin", argv[1]); fi = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/tile_qa.csv", argv[1]); fq = fopen(path, "w");
    if (!fm || !fd || !fi || !fq) { perror("open outputs"); return 1; }

    plan_flight();
    double gerr = estimate_gains(fq);
    fprintf(fq, "tx,ty,frames,mean_ndvi,valid_frac,seam_m,dsm_min,dsm_max\n");

    uint16_t *bands = malloc(sizeof(uint16_t) * TILE * TILE * NBAND);
    float *dsm = malloc(sizeof(float) * TILE * TILE);
    double *accum = malloc(sizeof(double) * TILE * TILE * NBAND), *wsum = malloc(sizeof(double) * TILE * TILE);
    int qw = NTX * TILE / QL, qh = NTY * TILE / QL;
    unsigned char *ql = calloc((size_t)qw * qh * 3, 1);
    uint64_t moff = 0, doff = 0;

    for (int ty = 0; ty < NTY; ty++) {
        for (int tx = 0; tx < NTX; tx++) {
            int nfr; double seam;
            render_tile(tx, ty, bands, dsm, accum, wsum, &nfr, &seam);
            int32_t hdr[16] = {0x544F4D44, tx, ty, TILE, TILE, NBAND, nfr, (int32_t)(GSD * 1000)};
            write_fully(fm, hdr, sizeof hdr, 1, "mosaic hdr");
            write_fully(fm, bands, sizeof(uint16_t), (size_t)TILE * TILE * NBAND, "mosaic tile");
            if (fflush(fm) != 0 || fdatasync(fileno(fm)) != 0) { perror("sync mosaic"); return 1; }
            write_fully(fd, dsm, sizeof(float), (size_t)TILE * TILE, "dsm tile");
            if (fflush(fd) != 0 || fdatasync(fileno(fd)) != 0) { perror("sync dsm"); return 1; }
            uint64_t ent[4] = {(uint64_t)(ty * NTX + tx), moff, doff, (uint64_t)nfr};
            write_fully(fi, ent, sizeof ent, 1, "index");
            moff += sizeof hdr + sizeof(uint16_t) * TILE * TILE * NBAND;
            doff += sizeof(float) * TILE * TILE;

            double ndvi = 0, dmin = 1e9, dmax = -1e9; int valid = 0;
            for (int p = 0; p < TILE * TILE; p++) {
                double red = bands[2 * TILE * TILE + p], nir = bands[3 * TILE * TILE + p];
                if (nir + red > 0) { ndvi += (nir - red) / (nir + red); valid++; }
                if (dsm[p] > -9000.0f) { dmin = fmin(dmin, dsm[p]); dmax = fmax(dmax, dsm[p]); }
            }
            fprintf(fq, "%d,%d,%d,%.4f,%.4f,%.1f,%.2f,%.2f\n", tx, ty, nfr, valid ? ndvi / valid : 0.0,
                    (double)valid / (TILE * TILE), seam, dmin, dmax);
            for (int j = 0; j < TILE / QL; j++)
                for (int i = 0; i < TILE / QL; i++) {
                    int p = (j * QL) * TILE + i * QL;
                    unsigned char *q = ql + ((size_t)(ty * TILE / QL + j) * qw + tx * TILE / QL + i) * 3;
                    for (int b = 0; b < 3; b++) q[b] = (unsigned char)fmin(255.0, bands[(2 - b) * TILE * TILE + p] / 60.0);
                }
        }
        if (fflush(fi) != 0 || fsync(fileno(fi)) != 0) { perror("sync index"); return 1; }
    }
    fclose(fm); fclose(fd); fclose(fi); fclose(fq);

    snprintf(path, sizeof path, "%s/quicklook.ppm", argv[1]);
    FILE *fp = fopen(path, "wb");
    if (!fp) { perror(path); return 1; }
    fprintf(fp, "P6\n%d %d\n255\n", qw, qh);
    write_fully(fp, ql, 1, (size_t)qw * qh * 3, "quicklook");
    fclose(fp);
    printf("%d frames, %dx%d tiles, gain rms error %.4f\n", nframes, NTX, NTY, gerr);
    free(bands); free(dsm); free(accum); free(wsum); free(ql);
    return 0;
}
