/* Synthesize a multi-component test signal, store it as 16-bit PCM WAV,
 * then read it back frame by frame to build a log-magnitude spectrogram
 * (PGM image) and a CSV of spectral peaks per frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define SAMPLE_RATE 22050
#define DURATION_S  240
#define NSAMP       (SAMPLE_RATE * DURATION_S)
#define NFFT        1024
#define HOP         256
#define NBINS       (NFFT / 2)
#define WRITE_BLOCK 4096

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct { double re, im; } cplx;

static char outdir[1024];

static FILE *open_out(const char *name, const char *mode)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", outdir, name);
    FILE *f = fopen(p, mode);
    if (!f) { perror(p); exit(1); }
    return f;
}

static void put_u32(unsigned char *b, uint32_t v) { b[0]=v; b[1]=v>>8; b[2]=v>>16; b[3]=v>>24; }
static void put_u16(unsigned char *b, uint16_t v) { b[0]=v; b[1]=v>>8; }

/* linear chirp + two tones + AM burst + LCG noise, written in blocks */
static void synth_and_write_wav(const char *name)
{
    FILE *f = open_out(name, "wb");
    unsigned char hdr[44];
    memcpy(hdr, "RIFF", 4); put_u32(hdr + 4, 36 + NSAMP * 2);
    memcpy(hdr + 8, "WAVEfmt ", 8); put_u32(hdr + 16, 16);
    put_u16(hdr + 20, 1); put_u16(hdr + 22, 1);
    put_u32(hdr + 24, SAMPLE_RATE); put_u32(hdr + 28, SAMPLE_RATE * 2);
    put_u16(hdr + 32, 2); put_u16(hdr + 34, 16);
    memcpy(hdr + 36, "data", 4); put_u32(hdr + 40, NSAMP * 2);
    fwrite(hdr, 1, 44, f);

    int16_t block[WRITE_BLOCK];
    uint32_t lcg = 2463534242u;
    const double f0 = 200.0, f1 = 8000.0, T = DURATION_S;
    size_t nb = 0;
    for (long i = 0; i < NSAMP; i++) {
        double t = (double)i / SAMPLE_RATE;
        double phase = 2 * M_PI * (f0 * t + 0.5 * (f1 - f0) / T * t * t);
        double x = 0.35 * sin(phase) + 0.2 * sin(2 * M_PI * 1500.0 * t)
                 + 0.1 * sin(2 * M_PI * 3333.0 * t) * (0.5 + 0.5 * sin(2 * M_PI * 0.2 * t));
        if (fmod(t, 10.0) < 0.5) x += 0.2 * sin(2 * M_PI * 5000.0 * t);
        lcg = lcg * 1664525u + 1013904223u;
        x += 0.05 * ((double)(lcg >> 8) / 16777216.0 - 0.5);
        block[nb++] = (int16_t)lrint(32767.0 * fmax(-1.0, fmin(1.0, x)));
        if (nb == WRITE_BLOCK) { fwrite(block, sizeof(int16_t), nb, f); nb = 0; }
    }
    if (nb) fwrite(block, sizeof(int16_t), nb, f);
    fclose(f);
}

static long read_wav_header(FILE *f, int *rate)
{
    unsigned char hdr[44];
    if (fread(hdr, 1, 44, f) != 44 || memcmp(hdr, "RIFF", 4) || memcmp(hdr + 36, "data", 4)) {
        fprintf(stderr, "bad wav header\n");
        exit(1);
    }
    *rate = hdr[24] | hdr[25] << 8 | hdr[26] << 16 | hdr[27] << 24;
    uint32_t nbytes = hdr[40] | hdr[41] << 8 | hdr[42] << 16 | (uint32_t)hdr[43] << 24;
    return (long)(nbytes / 2);
}

/* in-place iterative radix-2 FFT with precomputed twiddles */
static void fft_inplace(cplx *x, const cplx *tw, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { cplx t = x[i]; x[i] = x[j]; x[j] = t; }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int step = n / len;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                cplx w = tw[k * step], u = x[i + k], v = x[i + k + len / 2];
                double vr = v.re * w.re - v.im * w.im, vi = v.re * w.im + v.im * w.re;
                x[i + k].re = u.re + vr; x[i + k].im = u.im + vi;
                x[i + k + len / 2].re = u.re - vr; x[i + k + len / 2].im = u.im - vi;
            }
    }
}

/* read overlapping frames with fseek/fread, window, transform */
static int compute_spectrogram(const char *name, float *spec, int maxframes)
{
    FILE *f = open_out(name, "rb");
    int rate;
    long ns = read_wav_header(f, &rate);
    cplx *tw = malloc(NFFT / 2 * sizeof *tw), *x = malloc(NFFT * sizeof *x);
    double *win = malloc(NFFT * sizeof *win);
    int16_t *pcm = malloc(NFFT * sizeof *pcm);
    for (int k = 0; k < NFFT / 2; k++) { tw[k].re = cos(-2 * M_PI * k / NFFT); tw[k].im = sin(-2 * M_PI * k / NFFT); }
    for (int i = 0; i < NFFT; i++) win[i] = 0.5 - 0.5 * cos(2 * M_PI * i / (NFFT - 1));
    int nf = 0;
    for (long start = 0; start + NFFT <= ns && nf < maxframes; start += HOP, nf++) {
        fseek(f, 44 + start * 2, SEEK_SET);
        if (fread(pcm, sizeof(int16_t), NFFT, f) != NFFT) break;
        for (int i = 0; i < NFFT; i++) { x[i].re = win[i] * pcm[i] / 32768.0; x[i].im = 0.0; }
        fft_inplace(x, tw, NFFT);
        float *row = spec + (size_t)nf * NBINS;
        for (int k = 0; k < NBINS; k++)
            row[k] = (float)(10.0 * log10(x[k].re * x[k].re + x[k].im * x[k].im + 1e-12));
    }
    fclose(f);
    free(tw); free(x); free(win); free(pcm);
    return nf;
}

/* spectrogram as binary PGM: time along x, frequency along y (low at bottom) */
static void write_spectrogram_pgm(const char *name, const float *spec, int nf)
{
    float lo = 1e30f, hi = -1e30f;
    for (size_t i = 0; i < (size_t)nf * NBINS; i++) { if (spec[i] < lo) lo = spec[i]; if (spec[i] > hi) hi = spec[i]; }
    if (lo < hi - 90.0f) lo = hi - 90.0f;
    FILE *f = open_out(name, "wb");
    fprintf(f, "P5\n# log-magnitude spectrogram, %d frames x %d bins\n%d %d\n255\n", nf, NBINS, nf, NBINS);
    unsigned char *line = malloc(nf);
    for (int k = NBINS - 1; k >= 0; k--) {
        for (int t = 0; t < nf; t++) {
            float v = (spec[(size_t)t * NBINS + k] - lo) / (hi - lo);
            line[t] = (unsigned char)(v < 0 ? 0 : v > 1 ? 255 : v * 255.0f);
        }
        fwrite(line, 1, nf, f);
    }
    free(line);
    fclose(f);
}

/* three strongest local maxima per frame, written as CSV rows */
static void write_peak_table(const char *name, const float *spec, int nf)
{
    FILE *f = open_out(name, "w");
    fprintf(f, "frame,time_s,f1_hz,db1,f2_hz,db2,f3_hz,db3\n");
    for (int t = 0; t < nf; t++) {
        const float *row = spec + (size_t)t * NBINS;
        int pk[3] = {1, 1, 1};
        float pv[3] = {-1e30f, -1e30f, -1e30f};
        for (int k = 1; k < NBINS - 1; k++) {
            if (row[k] <= row[k - 1] || row[k] < row[k + 1]) continue;
            for (int j = 0; j < 3; j++)
                if (row[k] > pv[j]) {
                    for (int m = 2; m > j; m--) { pv[m] = pv[m - 1]; pk[m] = pk[m - 1]; }
                    pv[j] = row[k]; pk[j] = k;
                    break;
                }
        }
        fprintf(f, "%d,%.4f", t, (double)t * HOP / SAMPLE_RATE);
        for (int j = 0; j < 3; j++) fprintf(f, ",%.2f,%.3f", (double)pk[j] * SAMPLE_RATE / NFFT, pv[j]);
        fputc('\n', f);
    }
    fclose(f);
}

/* spectral centroid and flatness over all frames */
static void band_statistics(const float *spec, int nf, double *centroid, double *flatness)
{
    double csum = 0.0, fsum = 0.0;
    for (int t = 0; t < nf; t++) {
        const float *row = spec + (size_t)t * NBINS;
        double num = 0.0, den = 0.0, lg = 0.0;
        for (int k = 1; k < NBINS; k++) {
            double p = pow(10.0, row[k] / 10.0);
            num += p * k; den += p; lg += log(p + 1e-20);
        }
        csum += num / den * SAMPLE_RATE / NFFT;
        fsum += exp(lg / (NBINS - 1)) / (den / (NBINS - 1));
    }
    *centroid = csum / nf;
    *flatness = fsum / nf;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    synth_and_write_wav("signal.wav");
    int maxf = (NSAMP - NFFT) / HOP + 1;
    float *spec = malloc((size_t)maxf * NBINS * sizeof *spec);
    int nf = compute_spectrogram("signal.wav", spec, maxf);
    write_spectrogram_pgm("spectrogram.pgm", spec, nf);
    write_peak_table("peaks.csv", spec, nf);
    double cen, flat;
    band_statistics(spec, nf, &cen, &flat);
    FILE *s = open_out("summary.txt", "w");
    fprintf(s, "frames %d\nbins %d\nmean_centroid_hz %.3f\nmean_flatness %.6f\n", nf, NBINS, cen, flat);
    fclose(s);
    printf("frames=%d centroid=%.1f Hz flatness=%.4f\n", nf, cen, flat);
    free(spec);
    return 0;
}
