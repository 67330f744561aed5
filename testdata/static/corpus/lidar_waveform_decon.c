/*
 * lidar_waveform_decon.c
 *
 * Full-waveform airborne LiDAR processing chain.  Synthetic return waveforms
 * (canopy + ground echoes convolved with a system pulse, plus noise) are
 * stored as int16 samples in a binary shot file.  The processor reads shots
 * back with fseek/fread in an interleaved scan-line order, deconvolves each
 * one with Richardson-Lucy iterations, detects echoes, writes an ASCII point
 * cloud, scatters last-return elevations into a gridded DEM file with pwrite,
 * and finally reads the DEM back tile by tile with pread to report
 * per-tile roughness.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>

#define NSAMP 192
#define SCAN_LINES 150
#define SHOTS_PER_LINE 160
#define PULSE_LEN 15
#define RL_ITERS 24
#define GRID 256
#define TILE 32

typedef struct {
    char tag[8];
    int32_t nsamp, lines, shots_per_line;
    float dt_ns;
    float pulse[PULSE_LEN];
} wf_header_t;

typedef struct {
    float x, y, z0;     /* position of first sample */
    float dz;           /* elevation step per sample */
} shot_geo_t;

typedef struct {
    int nret;
    float z[8];
    float amp[8];
} returns_t;

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static float noise(uint32_t a, uint32_t b)
{
    return (float)(hash32(a * 9781u + b * 6271u) & 0xffff) / 65535.0f - 0.5f;
}

static shot_geo_t shot_geometry(int line, int shot)
{
    shot_geo_t g;
    g.x = shot * 1.6f + 0.3f * (line & 1);
    g.y = line * 1.7f;
    g.z0 = 40.0f;
    g.dz = 0.3f;
    return g;
}

static double terrain(double x, double y)
{
    return 8.0 * sin(x * 0.02) + 5.0 * cos(y * 0.03) + 0.02 * x;
}

/* Build the synthetic shot file: header, then shots line by line. */
static void synthesize_shots(const char *path, const float *pulse)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    wf_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.tag, "FWLIDAR", 8);
    h.nsamp = NSAMP; h.lines = SCAN_LINES; h.shots_per_line = SHOTS_PER_LINE;
    h.dt_ns = 1.0f;
    memcpy(h.pulse, pulse, sizeof h.pulse);
    fwrite(&h, sizeof h, 1, f);
    float clean[NSAMP], conv[NSAMP];
    int16_t raw[NSAMP];
    for (int l = 0; l < SCAN_LINES; l++) {
        for (int s = 0; s < SHOTS_PER_LINE; s++) {
            shot_geo_t g = shot_geometry(l, s);
            memset(clean, 0, sizeof clean);
            double zg = terrain(g.x, g.y);
            int ig = (int)((g.z0 - zg) / g.dz);
            if (ig >= 0 && ig < NSAMP) clean[ig] = 900.0f;
            uint32_t r = hash32((uint32_t)(l * 7919 + s));
            if (r % 3) { /* canopy */
                double hc = 3.0 + (r % 160) / 10.0;
                int ic = (int)((g.z0 - zg - hc) / g.dz);
                if (ic >= 0 && ic < NSAMP) clean[ic] += 500.0f;
                if (ic + 12 < NSAMP && (r % 5 == 0)) clean[ic + 12] += 250.0f;
            }
            for (int i = 0; i < NSAMP; i++) {
                double acc = 0;
                for (int k = 0; k < PULSE_LEN; k++) {
                    int j = i - k + PULSE_LEN / 2;
                    if (j >= 0 && j < NSAMP) acc += clean[j] * pulse[k];
                }
                conv[i] = (float)acc + 12.0f + 10.0f * noise((uint32_t)(l * SHOTS_PER_LINE + s), (uint32_t)i);
                raw[i] = (int16_t)lrintf(conv[i]);
            }
            fwrite(raw, sizeof(int16_t), NSAMP, f);
        }
    }
    fclose(f);
}

static void read_shot(FILE *f, int line, int shot, float *out)
{
    int16_t raw[NSAMP];
    long off = (long)sizeof(wf_header_t) +
               ((long)line * SHOTS_PER_LINE + shot) * (long)(NSAMP * sizeof(int16_t));
    if (fseek(f, off, SEEK_SET) != 0 || fread(raw, sizeof(int16_t), NSAMP, f) != NSAMP) {
        fprintf(stderr, "short read at line %d shot %d\n", line, shot);
        exit(1);
    }
    for (int i = 0; i < NSAMP; i++) out[i] = raw[i] > 12 ? raw[i] - 12.0f : 0.0f;
}

/* Richardson-Lucy deconvolution with a symmetric pulse. */
static void richardson_lucy(const float *obs, const float *pulse, float *est, int iters)
{
    float ratio[NSAMP];
    for (int i = 0; i < NSAMP; i++) est[i] = obs[i] > 1.0f ? obs[i] : 1.0f;
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < NSAMP; i++) {
            float acc = 0;
            for (int k = 0; k < PULSE_LEN; k++) {
                int j = i - k + PULSE_LEN / 2;
                if (j >= 0 && j < NSAMP) acc += est[j] * pulse[k];
            }
            ratio[i] = acc > 1e-6f ? obs[i] / acc : 0.0f;
        }
        for (int i = 0; i < NSAMP; i++) {
            float acc = 0;
            for (int k = 0; k < PULSE_LEN; k++) {
                int j = i + k - PULSE_LEN / 2;
                if (j >= 0 && j < NSAMP) acc += ratio[j] * pulse[k];
            }
            est[i] *= acc;
        }
    }
}

static returns_t detect_returns(const float *est, shot_geo_t g, float thresh)
{
    returns_t r;
    r.nret = 0;
    for (int i = 1; i < NSAMP - 1 && r.nret < 8; i++) {
        if (est[i] > thresh && est[i] >= est[i - 1] && est[i] > est[i + 1]) {
            /* parabolic sub-sample refinement */
            float a = est[i - 1], b = est[i], c = est[i + 1];
            float den = a - 2 * b + c;
            float off = fabsf(den) > 1e-6f ? 0.5f * (a - c) / den : 0.0f;
            r.z[r.nret] = g.z0 - (i + off) * g.dz;
            r.amp[r.nret] = b;
            r.nret++;
        }
    }
    return r;
}

static void write_points(FILE *pts, shot_geo_t g, const returns_t *r, int line, int shot)
{
    for (int k = 0; k < r->nret; k++)
        fprintf(pts, "%.2f %.2f %.3f %.1f %d/%d %d %d\n", g.x, g.y, r->z[k], r->amp[k],
                k + 1, r->nret, line, shot);
}

/* Write the last-return elevation into a float DEM file at its cell offset. */
static void dem_scatter(int fd, shot_geo_t g, const returns_t *r)
{
    if (r->nret == 0) return;
    int cx = (int)(g.x / (SHOTS_PER_LINE * 1.6f + 1) * GRID);
    int cy = (int)(g.y / (SCAN_LINES * 1.7f + 1) * GRID);
    if (cx < 0 || cx >= GRID || cy < 0 || cy >= GRID) return;
    float z = r->z[r->nret - 1];
    off_t off = ((off_t)cy * GRID + cx) * (off_t)sizeof(float);
    if (pwrite(fd, &z, sizeof z, off) != (ssize_t)sizeof z) perror("pwrite");
}

static void dem_tile_report(int fd, const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out) { perror(path); exit(1); }
    float row[TILE];
    fprintf(out, "# tile_y tile_x filled mean rms_slope\n");
    for (int ty = 0; ty < GRID / TILE; ty++) {
        for (int tx = 0; tx < GRID / TILE; tx++) {
            double sum = 0, slope = 0;
            int filled = 0, ns = 0;
            for (int y = 0; y < TILE; y++) {
                off_t off = ((off_t)(ty * TILE + y) * GRID + tx * TILE) * (off_t)sizeof(float);
                if (pread(fd, row, sizeof row, off) != (ssize_t)sizeof row) { perror("pread"); exit(1); }
                for (int x = 0; x < TILE; x++) {
                    if (row[x] == 0.0f) continue;
                    filled++;
                    sum += row[x];
                    if (x > 0 && row[x - 1] != 0.0f) {
                        slope += (row[x] - row[x - 1]) * (row[x] - row[x - 1]);
                        ns++;
                    }
                }
            }
            fprintf(out, "%d %d %d %.3f %.4f\n", ty, tx, filled,
                    filled ? sum / filled : 0.0, ns ? sqrt(slope / ns) : 0.0);
        }
    }
    fclose(out);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char wpath[1024], ppath[1024], dpath[1024], tpath[1024];
    snprintf(wpath, sizeof wpath, "%s/shots.fwf", argv[1]);
    snprintf(ppath, sizeof ppath, "%s/points.xyz", argv[1]);
    snprintf(dpath, sizeof dpath, "%s/dem_last_return.f32", argv[1]);
    snprintf(tpath, sizeof tpath, "%s/dem_tiles.txt", argv[1]);

    float pulse[PULSE_LEN], norm = 0;
    for (int k = 0; k < PULSE_LEN; k++) {
        double t = (k - PULSE_LEN / 2) / 2.2;
        pulse[k] = (float)exp(-0.5 * t * t);
        norm += pulse[k];
    }
    for (int k = 0; k < PULSE_LEN; k++) pulse[k] /= norm;

    synthesize_shots(wpath, pulse);

    FILE *wf = fopen(wpath, "rb");
    FILE *pts = fopen(ppath, "w");
    int dem = open(dpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (!wf || !pts || dem < 0) { perror("open"); return 1; }
    if (ftruncate(dem, (off_t)GRID * GRID * sizeof(float)) != 0) { perror("ftruncate"); return 1; }

    float obs[NSAMP], est[NSAMP];
    long npts = 0;
    /* process even scan lines first, then odd ones (interleaved access) */
    for (int parity = 0; parity < 2; parity++) {
        for (int l = parity; l < SCAN_LINES; l += 2) {
            for (int s = 0; s < SHOTS_PER_LINE; s++) {
                read_shot(wf, l, s, obs);
                richardson_lucy(obs, pulse, est, RL_ITERS);
                shot_geo_t g = shot_geometry(l, s);
                returns_t r = detect_returns(est, g, 40.0f);
                write_points(pts, g, &r, l, s);
                dem_scatter(dem, g, &r);
                npts += r.nret;
            }
        }
    }
    fclose(wf);
    fclose(pts);
    dem_tile_report(dem, tpath);
    close(dem);
    printf("shots %d points %ld\n", SCAN_LINES * SHOTS_PER_LINE, npts);
    return 0;
}
