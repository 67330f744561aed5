/*
 * radar_doppler_cfar.c
 *
 * Pulse-Doppler radar processing chain.  A synthetic raw data recorder first
 * writes NCPI coherent processing intervals (CPIs) of complex baseband
 * samples, pulse after pulse (pulse-major, as the ADC produces them).  A
 * pulse-compression pass streams the raw file, matched-filters every pulse
 * against the LFM chirp replica and writes an intermediate file.  The
 * Doppler processor then reads each CPI back in range-gate blocks -- a strided
 * access (one short read per pulse per block) -- applies a Hann window and
 * a radix-2 FFT across slow time, writes the range-Doppler power map, runs a
 * ordered-statistic CFAR detector and appends detections to a CSV file.  A
 * final pass re-reads the range-Doppler maps to build a track-persistence
 * histogram.
 *
 * usage: radar_doppler_cfar DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <sys/stat.h>

#define NPULSE     64
#define NRANGE     2048
#define NCPI       20
#define GATE_BLOCK 128
#define CFAR_GUARD 3
#define CFAR_TRAIN 12
#define CFAR_SCALE_DB 14.0
#define NTARGETS   6
#define NTAP       96     /* LFM chirp length in range samples */
#define CHIRP_BETA 0.9

typedef struct { float re, im; } cfloat;

typedef struct {
    double range0;   /* gate at t=0 */
    double vel;      /* gates per CPI */
    double doppler;  /* normalised doppler frequency (cycles/pulse) */
    double amp;
} target_t;

typedef struct {
    int cpi, gate, bin;
    double power_db, noise_db;
} detection_t;

static uint64_t rng_s = 0x243F6A8885A308D3ull;
static double gauss_noise(void)
{
    /* Box-Muller on a 64-bit LCG */
    rng_s = rng_s * 6364136223846793005ull + 1ull;
    double u1 = ((rng_s >> 11) + 1.0) / 9007199254740993.0;
    rng_s = rng_s * 6364136223846793005ull + 1ull;
    double u2 = (rng_s >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void init_targets(target_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        t[i].range0 = 150.0 + 290.0 * i;
        t[i].vel = (i % 2 ? -1.0 : 1.0) * (2.0 + 1.5 * i);
        t[i].doppler = -0.45 + 0.17 * i;
        t[i].amp = 0.04 + 0.02 * (n - i);
    }
}

static void make_chirp(cfloat *c, int ntap, double beta)
{
    for (int k = 0; k < ntap; k++) {
        double ph = M_PI * beta * (k - ntap / 2.0) * (k - ntap / 2.0) / ntap;
        c[k].re = (float)cos(ph);
        c[k].im = (float)sin(ph);
    }
}

/* Record one CPI: write each pulse (NRANGE complex samples) as it is formed. */
static void record_cpi(FILE *raw, const target_t *tg, int ntg, int cpi, const cfloat *chirp,
                       cfloat *pulse)
{
    for (int p = 0; p < NPULSE; p++) {
        for (int g = 0; g < NRANGE; g++) {
            pulse[g].re = (float)(0.7071 * gauss_noise());
            pulse[g].im = (float)(0.7071 * gauss_noise());
        }
        for (int k = 0; k < ntg; k++) {
            double r = tg[k].range0 + tg[k].vel * cpi;
            int g0 = (int)floor(r);
            double ph = 2.0 * M_PI * tg[k].doppler * (p + cpi * NPULSE);
            double cr = tg[k].amp * cos(ph), ci = tg[k].amp * sin(ph);
            for (int t = 0; t < NTAP; t++) {
                int g = g0 + t;
                if (g < 0 || g >= NRANGE) continue;
                pulse[g].re += (float)(cr * chirp[t].re - ci * chirp[t].im);
                pulse[g].im += (float)(cr * chirp[t].im + ci * chirp[t].re);
            }
        }
        if (fwrite(pulse, sizeof(cfloat), NRANGE, raw) != NRANGE) { perror("fwrite"); exit(1); }
    }
}

/* Stream the raw recording pulse by pulse and matched-filter each pulse. */
static void pulse_compress_file(const char *raw_path, const char *out_path, const cfloat *chirp,
                                int npulses_total)
{
    FILE *in = fopen(raw_path, "rb"), *out = fopen(out_path, "wb");
    if (!in || !out) { perror("pulse_compress_file"); exit(1); }
    cfloat *x = calloc(NRANGE + NTAP, sizeof(cfloat));
    cfloat *y = malloc(sizeof(cfloat) * NRANGE);
    for (int p = 0; p < npulses_total; p++) {
        if (fread(x, sizeof(cfloat), NRANGE, in) != NRANGE) { perror("raw read"); exit(1); }
        for (int g = 0; g < NRANGE; g++) {
            float sr = 0.0f, si = 0.0f;
            for (int k = 0; k < NTAP; k++) {
                /* x * conj(chirp) */
                sr += x[g + k].re * chirp[k].re + x[g + k].im * chirp[k].im;
                si += x[g + k].im * chirp[k].re - x[g + k].re * chirp[k].im;
            }
            y[g].re = sr;
            y[g].im = si;
        }
        fwrite(y, sizeof(cfloat), NRANGE, out);
    }
    free(x); free(y);
    fclose(in);
    if (fclose(out) != 0) { perror(out_path); exit(1); }
}

/* Strided read: gates [g0, g0+ng) of every pulse of one CPI -> corner-turned block. */
static void read_gate_block(FILE *raw, int cpi, int g0, int ng, cfloat *block /* [ng][NPULSE] */,
                            cfloat *tmp)
{
    for (int p = 0; p < NPULSE; p++) {
        long off = ((long)cpi * NPULSE + p) * NRANGE * (long)sizeof(cfloat) + (long)g0 * sizeof(cfloat);
        if (fseek(raw, off, SEEK_SET) != 0 || fread(tmp, sizeof(cfloat), ng, raw) != (size_t)ng) {
            perror("read_gate_block");
            exit(1);
        }
        for (int g = 0; g < ng; g++) block[g * NPULSE + p] = tmp[g];
    }
}

static void fft_inplace(double *re, double *im, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i]; re[i] = re[j]; re[j] = t;
            t = im[i]; im[i] = im[j]; im[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = -2.0 * M_PI / len;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                double wr = cos(ang * k), wi = sin(ang * k);
                double ur = re[i + k], ui = im[i + k];
                double vr = re[i + k + len / 2] * wr - im[i + k + len / 2] * wi;
                double vi = re[i + k + len / 2] * wi + im[i + k + len / 2] * wr;
                re[i + k] = ur + vr; im[i + k] = ui + vi;
                re[i + k + len / 2] = ur - vr; im[i + k + len / 2] = ui - vi;
            }
    }
}

/* Window + FFT over slow time for each gate in the block; fftshifted power in dB. */
static void doppler_process(const cfloat *block, int ng, float *rdm /* [NPULSE][NRANGE] */, int g0)
{
    double re[NPULSE], im[NPULSE], win[NPULSE];
    for (int p = 0; p < NPULSE; p++) win[p] = 0.5 - 0.5 * cos(2.0 * M_PI * p / (NPULSE - 1));
    for (int g = 0; g < ng; g++) {
        for (int p = 0; p < NPULSE; p++) {
            re[p] = block[g * NPULSE + p].re * win[p];
            im[p] = block[g * NPULSE + p].im * win[p];
        }
        fft_inplace(re, im, NPULSE);
        for (int b = 0; b < NPULSE; b++) {
            int sb = (b + NPULSE / 2) % NPULSE;
            double pw = re[b] * re[b] + im[b] * im[b];
            rdm[(long)sb * NRANGE + g0 + g] = (float)(10.0 * log10(pw + 1e-12));
        }
    }
}

/* k-th smallest of v[0..n) by insertion sort (n is small). */
static double kth_smallest(double *v, int n, int k)
{
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
    return v[k];
}

/* Ordered-statistic CFAR along range for every Doppler bin: the noise level
 * is the k-th smallest of the 2*CFAR_TRAIN training cells (robust to
 * neighbouring targets), taken in the linear power domain. */
static int cfar_detect(const float *rdm, int cpi, detection_t *det, int maxdet)
{
    int nd = 0;
    const int ntrain = 2 * CFAR_TRAIN, kth = (3 * ntrain) / 4;
    double *lin = malloc(sizeof(double) * NRANGE);
    double train[2 * CFAR_TRAIN];
    for (int b = 0; b < NPULSE; b++) {
        if (b == NPULSE / 2) continue; /* zero-Doppler clutter notch */
        for (int g = 0; g < NRANGE; g++) lin[g] = pow(10.0, rdm[(long)b * NRANGE + g] / 10.0);
        for (int g = CFAR_GUARD + CFAR_TRAIN; g < NRANGE - CFAR_GUARD - CFAR_TRAIN; g++) {
            int n = 0;
            for (int k = CFAR_GUARD + 1; k <= CFAR_GUARD + CFAR_TRAIN; k++) {
                train[n++] = lin[g - k];
                train[n++] = lin[g + k];
            }
            double noise_db = 10.0 * log10(kth_smallest(train, ntrain, kth));
            double cut = rdm[(long)b * NRANGE + g];
            if (cut > noise_db + CFAR_SCALE_DB && nd < maxdet) {
                det[nd].cpi = cpi; det[nd].gate = g; det[nd].bin = b - NPULSE / 2;
                det[nd].power_db = cut; det[nd].noise_db = noise_db;
                nd++;
            }
        }
    }
    free(lin);
    return nd;
}

static void append_detections(FILE *csv, const detection_t *det, int nd)
{
    for (int i = 0; i < nd; i++) {
        fprintf(csv, "%d,%d,%d,%.2f,%.2f\n", det[i].cpi, det[i].gate, det[i].bin, det[i].power_db,
                det[i].noise_db);
    }
    fflush(csv);
}

/* Re-read all range-Doppler maps and count, per gate, in how many CPIs the
 * peak-Doppler power exceeded the map median by 15 dB. */
static void persistence_histogram(const char *rdm_path, const char *out_path)
{
    FILE *f = fopen(rdm_path, "rb");
    if (!f) { perror(rdm_path); exit(1); }
    float *row = malloc(sizeof(float) * NRANGE);
    float *peak = malloc(sizeof(float) * NRANGE);
    int *hits = calloc(NRANGE, sizeof(int));
    for (int c = 0; c < NCPI; c++) {
        for (int g = 0; g < NRANGE; g++) peak[g] = -1e30f;
        double mean = 0.0;
        for (int b = 0; b < NPULSE; b++) {
            if (fread(row, sizeof(float), NRANGE, f) != NRANGE) { perror("rdm read"); exit(1); }
            for (int g = 0; g < NRANGE; g++) {
                if (row[g] > peak[g]) peak[g] = row[g];
                mean += row[g];
            }
        }
        mean /= (double)NPULSE * NRANGE;
        for (int g = 0; g < NRANGE; g++) hits[g] += peak[g] > mean + 15.0;
    }
    fclose(f);
    FILE *o = fopen(out_path, "w");
    if (!o) { perror(out_path); exit(1); }
    for (int g = 0; g < NRANGE; g++)
        if (hits[g]) fprintf(o, "gate %4d persistent_in %2d cpis\n", g, hits[g]);
    fclose(o);
    free(row); free(peak); free(hits);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char raw_path[512], pc_path[512], rdm_path[512], csv_path[512], hist_path[512];
    mkdir(dir, 0755);
    snprintf(raw_path, sizeof raw_path, "%s/raw_iq.bin", dir);
    snprintf(pc_path, sizeof pc_path, "%s/compressed_iq.bin", dir);
    snprintf(rdm_path, sizeof rdm_path, "%s/range_doppler.f32", dir);
    snprintf(csv_path, sizeof csv_path, "%s/detections.csv", dir);
    snprintf(hist_path, sizeof hist_path, "%s/persistence.txt", dir);

    target_t tg[NTARGETS];
    cfloat chirp[NTAP];
    init_targets(tg, NTARGETS);
    make_chirp(chirp, NTAP, CHIRP_BETA);
    cfloat *pulse = malloc(sizeof(cfloat) * NRANGE);
    FILE *raw = fopen(raw_path, "wb");
    if (!raw) { perror(raw_path); return 1; }
    for (int c = 0; c < NCPI; c++) record_cpi(raw, tg, NTARGETS, c, chirp, pulse);
    fclose(raw);
    pulse_compress_file(raw_path, pc_path, chirp, NCPI * NPULSE);

    raw = fopen(pc_path, "rb");
    FILE *rdmf = fopen(rdm_path, "wb");
    FILE *csv = fopen(csv_path, "w");
    if (!raw || !rdmf || !csv) { perror("open"); return 1; }
    fprintf(csv, "cpi,gate,doppler_bin,power_db,noise_db\n");
    cfloat *block = malloc(sizeof(cfloat) * GATE_BLOCK * NPULSE);
    float *rdm = malloc(sizeof(float) * NPULSE * NRANGE);
    int maxdet = 4096, total_det = 0;
    detection_t *det = malloc(sizeof(detection_t) * maxdet);
    for (int c = 0; c < NCPI; c++) {
        for (int g0 = 0; g0 < NRANGE; g0 += GATE_BLOCK) {
            read_gate_block(raw, c, g0, GATE_BLOCK, block, pulse);
            doppler_process(block, GATE_BLOCK, rdm, g0);
        }
        fwrite(rdm, sizeof(float), (size_t)NPULSE * NRANGE, rdmf);
        int nd = cfar_detect(rdm, c, det, maxdet);
        append_detections(csv, det, nd);
        total_det += nd;
    }
    fclose(raw); fclose(rdmf); fclose(csv);
    persistence_histogram(rdm_path, hist_path);
    printf("%d CPIs processed, %d detections\n", NCPI, total_det);
    free(pulse); free(block); free(rdm); free(det);
    return 0;
}
