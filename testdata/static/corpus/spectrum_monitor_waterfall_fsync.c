/*
 * Radio spectrum monitoring station: waterfall recorder.
 *
 * Synthesises complex baseband IQ from a 2 MHz wide receiver containing FM
 * broadcast-like carriers, frequency-hopping bursts and a drifting CW beacon,
 * computes Welch-averaged power spectra, and records the waterfall in tiles of
 * TILE_ROWS spectra.  Each tile is appended with fwrite and made durable with
 * fflush + fdatasync (a monitoring station must not lose data on power cut),
 * and a per-tile occupancy line is flushed to a CSV log.  Afterwards the tile
 * file is re-read to build max-hold / mean spectra and a band-occupancy report.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NFFT        1024
#define NAVG        6
#define TILE_ROWS   64
#define NTILES      36
#define NBANDS      16
#define FS          2.0e6
#define PI          3.14159265358979323846

typedef struct { double re, im; } cpx;

typedef struct {
    uint32_t tile, rows, nfft;
    float noise_db, max_db;
    float occupancy[NBANDS];
} tile_hdr_t;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "spectrum: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

/* Emitter scene.  Oscillators are numerically controlled (32-bit phase
 * accumulators into a sine table), as in a real digital down-converter test
 * generator; accumulators are carried across blocks for continuity. */
#define SIN_BITS 12
static double sin_tab[1 << SIN_BITS];
static uint32_t fm_acc[5], fm_mod_acc[5], cw_acc, hop_acc;
static const double fm_freq[5] = { -700e3, -420e3, -150e3, 260e3, 610e3 };
static const double fm_amp[5]  = { 0.8, 0.3, 1.2, 0.5, 0.15 };

static void init_nco_tables(void)
{
    for (int i = 0; i < (1 << SIN_BITS); i++) sin_tab[i] = sin(2.0 * PI * i / (1 << SIN_BITS));
}
/* hot-loop helpers kept as macros so the per-sample loop stays call-free */
#define FREQ_WORD(f) ((uint32_t)(int64_t)((f) * (4294967296.0 / FS)))
#define NCO_SIN(acc) (sin_tab[(uint32_t)(acc) >> (32 - SIN_BITS)])
#define NCO_COS(acc) (sin_tab[(uint32_t)((acc) + 0x40000000u) >> (32 - SIN_BITS)])
#define XS64(s) ((s) ^= (s) << 13, (s) ^= (s) >> 7, (s) ^= (s) << 17)
#define U01(s) (XS64(s), (double)((s) >> 11) * (1.0 / 9007199254740992.0))

static void synth_iq_block(cpx *iq, size_t n, long sample0)
{
    const double dtt = 1.0 / FS;
    uint32_t mod_w[5];
    for (int e = 0; e < 5; e++) mod_w[e] = FREQ_WORD(900.0 + 310.0 * e);
    uint64_t rs = rng_state;
    for (size_t k = 0; k < n; k++) {
        double t = (sample0 + (long)k) * dtt;
        /* receiver noise: Irwin-Hall approximation of a Gaussian */
        double re = -1.5, im = -1.5;
        re += U01(rs); re += U01(rs); re += U01(rs);
        im += U01(rs); im += U01(rs); im += U01(rs);
        re *= 0.04; im *= 0.04;
        for (int e = 0; e < 5; e++) {
            fm_mod_acc[e] += mod_w[e];
            double finst = fm_freq[e] + 45e3 * NCO_SIN(fm_mod_acc[e]);
            fm_acc[e] += FREQ_WORD(finst);
            re += fm_amp[e] * NCO_COS(fm_acc[e]);
            im += fm_amp[e] * NCO_SIN(fm_acc[e]);
        }
        /* CW beacon drifting slowly upward */
        cw_acc += FREQ_WORD(880e3 + 2.0e3 * t);
        re += 0.05 * NCO_COS(cw_acc); im += 0.05 * NCO_SIN(cw_acc);
        /* frequency hopper: 5 ms dwell, on 50% of the time */
        long slot = (long)(t / 5e-3);
        uint32_t hsh = (uint32_t)slot * 2654435761u;
        if ((hsh >> 7) & 1) {
            double fh = -900e3 + (double)((hsh >> 11) % 64) * 28e3;
            hop_acc += FREQ_WORD(fh);
            re += 0.4 * NCO_COS(hop_acc); im += 0.4 * NCO_SIN(hop_acc);
        }
        iq[k].re = re; iq[k].im = im;
    }
    rng_state = rs;
}

static void fft_radix2(cpx *a, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { cpx t = a[i]; a[i] = a[j]; a[j] = t; }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = -2.0 * PI / len;
        cpx wl = { cos(ang), sin(ang) };
        for (int i = 0; i < n; i += len) {
            cpx w = { 1.0, 0.0 };
            for (int j = 0; j < len / 2; j++) {
                cpx u = a[i + j], v = a[i + j + len / 2];
                cpx vw = { v.re * w.re - v.im * w.im, v.re * w.im + v.im * w.re };
                a[i + j].re = u.re + vw.re; a[i + j].im = u.im + vw.im;
                a[i + j + len / 2].re = u.re - vw.re; a[i + j + len / 2].im = u.im - vw.im;
                double wr = w.re * wl.re - w.im * wl.im;
                w.im = w.re * wl.im + w.im * wl.re; w.re = wr;
            }
        }
    }
}

/* Welch average of NAVG half-overlapped Hann-windowed FFTs, fft-shifted, in dB. */
static void power_spectrum_row(const cpx *iq, float *row_db)
{
    static double win[NFFT], acc[NFFT];
    static int init = 0;
    static cpx buf[NFFT];
    double wsum = 0.0;
    if (!init) {
        for (int i = 0; i < NFFT; i++) win[i] = 0.5 - 0.5 * cos(2.0 * PI * i / NFFT);
        init = 1;
    }
    for (int i = 0; i < NFFT; i++) { acc[i] = 0.0; wsum += win[i] * win[i]; }
    for (int s = 0; s < NAVG; s++) {
        const cpx *seg = iq + s * (NFFT / 2);
        for (int i = 0; i < NFFT; i++) { buf[i].re = seg[i].re * win[i]; buf[i].im = seg[i].im * win[i]; }
        fft_radix2(buf, NFFT);
        for (int i = 0; i < NFFT; i++) acc[i] += buf[i].re * buf[i].re + buf[i].im * buf[i].im;
    }
    for (int i = 0; i < NFFT; i++) {
        int k = (i + NFFT / 2) % NFFT;
        row_db[i] = (float)(10.0 * log10(acc[k] / (NAVG * wsum) + 1e-20));
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Noise floor = 20th percentile of all bins in the tile. */
static float noise_floor(const float *tile, int nvals)
{
    static float tmp[TILE_ROWS * NFFT];
    memcpy(tmp, tile, sizeof(float) * (size_t)nvals);
    qsort(tmp, (size_t)nvals, sizeof(float), cmp_float);
    return tmp[nvals / 5];
}

static void occupancy(const float *tile, float nf, float *occ, float *maxdb)
{
    const int per = NFFT / NBANDS;
    float mx = -1e30f;
    for (int b = 0; b < NBANDS; b++) {
        int busy = 0;
        for (int r = 0; r < TILE_ROWS; r++)
            for (int i = b * per; i < (b + 1) * per; i++) {
                float v = tile[r * NFFT + i];
                if (v > nf + 10.0f) busy++;
                if (v > mx) mx = v;
            }
        occ[b] = (float)busy / (TILE_ROWS * per);
    }
    *maxdb = mx;
}

static void write_tile(FILE *f, const char *path, const tile_hdr_t *h, const float *tile)
{
    if (fwrite(h, sizeof *h, 1, f) != 1) die("fwrite header", path);
    if (fwrite(tile, sizeof(float), (size_t)TILE_ROWS * NFFT, f) != (size_t)TILE_ROWS * NFFT)
        die("fwrite tile", path);
    if (fflush(f) != 0) die("fflush", path);
    if (fdatasync(fileno(f)) != 0) die("fdatasync", path);
}

static void log_occupancy(FILE *f, const char *path, const tile_hdr_t *h, double t0)
{
    if (fprintf(f, "%u,%.4f,%.2f,%.2f", h->tile, t0, h->noise_db, h->max_db) < 0) die("fprintf", path);
    for (int b = 0; b < NBANDS; b++)
        if (fprintf(f, ",%.4f", h->occupancy[b]) < 0) die("fprintf", path);
    if (fputc('\n', f) == EOF) die("fputc", path);
    if (fflush(f) != 0) die("fflush", path);
    if (fdatasync(fileno(f)) != 0) die("fdatasync", path);
}

static void maxhold_from_file(const char *path, const char *outpath)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    static float tile[TILE_ROWS * NFFT];
    static double mean[NFFT];
    static float maxh[NFFT], minh[NFFT];
    for (int i = 0; i < NFFT; i++) { mean[i] = 0.0; maxh[i] = -1e30f; minh[i] = 1e30f; }
    tile_hdr_t h;
    long rows = 0;
    while (fread(&h, sizeof h, 1, f) == 1) {
        if (h.nfft != NFFT || h.rows != TILE_ROWS) { fprintf(stderr, "spectrum: bad tile header\n"); exit(1); }
        if (fread(tile, sizeof(float), (size_t)TILE_ROWS * NFFT, f) != (size_t)TILE_ROWS * NFFT)
            die("fread tile", path);
        for (int r = 0; r < TILE_ROWS; r++)
            for (int i = 0; i < NFFT; i++) {
                float v = tile[r * NFFT + i];
                mean[i] += pow(10.0, v / 10.0);
                if (v > maxh[i]) maxh[i] = v;
                if (v < minh[i]) minh[i] = v;
            }
        rows += TILE_ROWS;
    }
    if (ferror(f)) die("fread", path);
    fclose(f);
    FILE *o = fopen(outpath, "w");
    if (!o) die("fopen", outpath);
    fprintf(o, "# freq_khz mean_db max_hold_db min_hold_db  (%ld spectra)\n", rows);
    for (int i = 0; i < NFFT; i++) {
        double fk = (-FS / 2 + (double)i * FS / NFFT) / 1e3;
        if (fprintf(o, "%.3f %.2f %.2f %.2f\n", fk, 10.0 * log10(mean[i] / rows), maxh[i], minh[i]) < 0)
            die("fprintf", outpath);
    }
    if (fclose(o) != 0) die("fclose", outpath);
}

static void band_report(const char *csvpath, const char *outpath)
{
    FILE *f = fopen(csvpath, "r");
    if (!f) die("fopen", csvpath);
    char line[1024];
    double occ_sum[NBANDS] = { 0 }, occ_max[NBANDS] = { 0 };
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *p = line;
        for (int c = 0; c < 4; c++) { p = strchr(p, ','); if (!p) break; p++; }
        if (!p) continue;
        for (int b = 0; b < NBANDS && p; b++) {
            double v = strtod(p, &p);
            occ_sum[b] += v;
            if (v > occ_max[b]) occ_max[b] = v;
            if (*p == ',') p++;
        }
        n++;
    }
    fclose(f);
    FILE *o = fopen(outpath, "w");
    if (!o) die("fopen", outpath);
    fprintf(o, "band  f_lo_khz  f_hi_khz  mean_occ  max_occ  status\n");
    for (int b = 0; b < NBANDS; b++) {
        double lo = (-FS / 2 + b * FS / NBANDS) / 1e3, hi = lo + FS / NBANDS / 1e3;
        double m = n ? occ_sum[b] / n : 0.0;
        fprintf(o, "%4d %9.1f %9.1f %9.4f %8.4f  %s\n", b, lo, hi, m, occ_max[b],
                m > 0.05 ? "OCCUPIED" : (occ_max[b] > 0.02 ? "intermittent" : "clear"));
    }
    if (fclose(o) != 0) die("fclose", outpath);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char wpath[1024], cpath[1024], mpath[1024], bpath[1024];
    snprintf(wpath, sizeof wpath, "%s/waterfall.tiles", argv[1]);
    snprintf(cpath, sizeof cpath, "%s/occupancy.csv", argv[1]);
    snprintf(mpath, sizeof mpath, "%s/maxhold.txt", argv[1]);
    snprintf(bpath, sizeof bpath, "%s/band_report.txt", argv[1]);

    FILE *wf = fopen(wpath, "wb");
    if (!wf) die("fopen", wpath);
    FILE *cf = fopen(cpath, "w");
    if (!cf) die("fopen", cpath);
    fprintf(cf, "# tile,t0_s,noise_db,max_db,occ_band0..occ_band%d\n", NBANDS - 1);

    init_nco_tables();
    const int blk = (NAVG + 1) * NFFT / 2;
    cpx *iq = malloc(sizeof(cpx) * (size_t)blk);
    float *tile = malloc(sizeof(float) * TILE_ROWS * NFFT);
    if (!iq || !tile) { fprintf(stderr, "spectrum: out of memory\n"); return 1; }
    long sample = 0;
    double busiest = 0.0;
    for (int t = 0; t < NTILES; t++) {
        double t0 = sample / FS;
        for (int r = 0; r < TILE_ROWS; r++) {
            synth_iq_block(iq, (size_t)blk, sample);
            sample += blk;
            power_spectrum_row(iq, tile + (size_t)r * NFFT);
        }
        tile_hdr_t h;
        memset(&h, 0, sizeof h);
        h.tile = (uint32_t)t; h.rows = TILE_ROWS; h.nfft = NFFT;
        h.noise_db = noise_floor(tile, TILE_ROWS * NFFT);
        occupancy(tile, h.noise_db, h.occupancy, &h.max_db);
        for (int b = 0; b < NBANDS; b++) if (h.occupancy[b] > busiest) busiest = h.occupancy[b];
        write_tile(wf, wpath, &h, tile);
        log_occupancy(cf, cpath, &h, t0);
    }
    if (fclose(wf) != 0) die("fclose", wpath);
    if (fclose(cf) != 0) die("fclose", cpath);

    maxhold_from_file(wpath, mpath);
    band_report(cpath, bpath);
    printf("spectrum: %d tiles x %d spectra x %d bins recorded (%.2f s of IQ)\n",
           NTILES, TILE_ROWS, NFFT, sample / FS);
    printf("spectrum: busiest band occupancy %.3f\n", busiest);
    free(iq); free(tile);
    return 0;
}
