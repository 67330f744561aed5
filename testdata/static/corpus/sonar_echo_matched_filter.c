/* sonar_echo_matched_filter: simulates raw hydro-acoustic pings (LFM chirp
 * echoes from a sloping seabed plus noise) into a raw ping file, then reads it
 * back ping by ping, matched-filters and envelope-detects each ping, writes the
 * decimated echogram with pwrite at computed offsets, gathers range-bin
 * time series with strided fseek reads and renders a PGM image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>

#define NPINGS 720
#define NSAMP 8192
#define CHIRP_LEN 160
#define DECIM 4
#define NOUT (NSAMP / DECIM)
#define NGATHER 48

typedef struct {
    int ping;
    float heading, depth_m, pad;
} PingHeader;

typedef struct { unsigned long long s; } Lcg;
static double lcg_uniform(Lcg *g) { g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL; return ((g->s >> 11) & ((1ULL << 53) - 1)) / 9007199254740992.0; }
static double lcg_gauss(Lcg *g) { double u = lcg_uniform(g) + 1e-12, v = lcg_uniform(g); return sqrt(-2 * log(u)) * cos(2 * M_PI * v); }

static void make_chirp(float *re, float *im, int n)
{
    double f0 = 0.05, f1 = 0.2;
    for (int i = 0; i < n; i++) {
        double t = (double)i / n;
        double ph = 2 * M_PI * (f0 * i + 0.5 * (f1 - f0) * i * t);
        double w = 0.5 - 0.5 * cos(2 * M_PI * t);
        re[i] = (float)(w * cos(ph));
        im[i] = (float)(w * sin(ph));
    }
}

/* compute + many medium fwrites: one header and one sample block per ping */
static void simulate_pings(const char *path, const float *chirp, Lcg *g)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) { perror(path); exit(1); }
    float *x = malloc(NSAMP * sizeof(float));
    for (int p = 0; p < NPINGS; p++) {
        PingHeader h = {p, (float)(90.0 + 0.01 * p), (float)(40.0 + 8.0 * sin(p * 0.02)), 0};
        for (int i = 0; i < NSAMP; i++) x[i] = (float)(0.05 * lcg_gauss(g));
        int bottom = (int)(h.depth_m * 120.0) % (NSAMP - CHIRP_LEN);
        for (int e = 0; e < 6; e++) {
            int off = bottom + e * 37 + (int)(lcg_uniform(g) * 20);
            double amp = 1.0 / (1 + e);
            for (int i = 0; i < CHIRP_LEN && off + i < NSAMP; i++) x[off + i] += (float)(amp * chirp[i]);
        }
        fwrite(&h, sizeof h, 1, fp);
        fwrite(x, sizeof(float), NSAMP, fp);
    }
    free(x);
    fclose(fp);
}

/* compute-bound: direct-form complex matched filter + envelope + boxcar decimate */
static void matched_filter(const float *x, const float *cr, const float *ci, float *env)
{
    for (int o = 0; o < NOUT; o++) {
        double acc = 0;
        for (int d = 0; d < DECIM; d++) {
            int i = o * DECIM + d;
            double re = 0, im = 0;
            int kmax = NSAMP - i < CHIRP_LEN ? NSAMP - i : CHIRP_LEN;
            for (int k = 0; k < kmax; k++) { re += x[i + k] * cr[k]; im -= x[i + k] * ci[k]; }
            acc += sqrt(re * re + im * im);
        }
        env[o] = (float)(acc / DECIM);
    }
}

static void process_pings(const char *raw, const char *echo, const float *cr, const float *ci, float *peak)
{
    FILE *in = fopen(raw, "rb");
    int fd = open(echo, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (!in || fd < 0) { perror("process_pings"); exit(1); }
    float *x = malloc(NSAMP * sizeof(float)), *env = malloc(NOUT * sizeof(float));
    PingHeader h;
    for (int p = 0; p < NPINGS; p++) {
        if (fread(&h, sizeof h, 1, in) != 1 || fread(x, sizeof(float), NSAMP, in) != NSAMP) { fprintf(stderr, "short read\n"); exit(1); }
        matched_filter(x, cr, ci, env);
        float mx = 0;
        for (int o = 0; o < NOUT; o++) if (env[o] > mx) mx = env[o];
        peak[h.ping] = mx;
        /* pings are written in reverse row order, as a sonar that records bottom-up */
        off_t off = (off_t)(NPINGS - 1 - h.ping) * NOUT * sizeof(float);
        if (pwrite(fd, env, NOUT * sizeof(float), off) != (ssize_t)(NOUT * sizeof(float))) { perror("pwrite"); exit(1); }
    }
    free(x); free(env);
    close(fd);
    fclose(in);
}

/* I/O-bound: gather NGATHER range bins across all pings with strided seeks */
static void gather_range_bins(const char *echo, const char *dir)
{
    FILE *fp = fopen(echo, "rb");
    if (!fp) { perror(echo); exit(1); }
    char name[512];
    snprintf(name, sizeof name, "%s/range_bins.txt", dir);
    FILE *out = fopen(name, "w");
    float *series = malloc(NPINGS * sizeof(float));
    for (int b = 0; b < NGATHER; b++) {
        int bin = 200 + b * (NOUT - 400) / NGATHER;
        for (int r = 0; r < NPINGS; r++) {
            fseek(fp, ((long)r * NOUT + bin) * (long)sizeof(float), SEEK_SET);
            if (fread(&series[r], sizeof(float), 1, fp) != 1) { fprintf(stderr, "gather fail\n"); exit(1); }
        }
        double m = 0, m2 = 0;
        for (int r = 0; r < NPINGS; r++) { m += series[r]; m2 += series[r] * series[r]; }
        m /= NPINGS;
        fprintf(out, "bin %5d mean %.5f rms %.5f\n", bin, m, sqrt(m2 / NPINGS));
    }
    free(series);
    fclose(out);
    fclose(fp);
}

static void render_pgm(const char *echo, const char *dir)
{
    char name[512];
    snprintf(name, sizeof name, "%s/echogram.pgm", dir);
    int fd = open(echo, O_RDONLY);
    FILE *out = fopen(name, "wb");
    if (fd < 0 || !out) { perror("render_pgm"); exit(1); }
    int w = NOUT / 2, hgt = NPINGS;
    fprintf(out, "P5\n%d %d\n255\n", w, hgt);
    float *row = malloc(NOUT * sizeof(float));
    unsigned char *pix = malloc((size_t)w);
    for (int r = 0; r < hgt; r++) {
        if (pread(fd, row, NOUT * sizeof(float), (off_t)r * NOUT * sizeof(float)) <= 0) { perror("pread"); exit(1); }
        for (int c = 0; c < w; c++) {
            double v = 20 * log10(row[2 * c] + row[2 * c + 1] + 1e-6);
            int q = (int)((v + 20) * 4);
            pix[c] = (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
        }
        fwrite(pix, 1, (size_t)w, out);
    }
    free(row); free(pix);
    fclose(out);
    close(fd);
}

static void write_peak_track(const float *peak, const char *dir)
{
    char name[512];
    snprintf(name, sizeof name, "%s/peak_track.csv", dir);
    FILE *fp = fopen(name, "w");
    fprintf(fp, "ping,peak\n");
    for (int p = 0; p < NPINGS; p++) fprintf(fp, "%d,%.6f\n", p, peak[p]);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    char raw[512], echo[512];
    snprintf(raw, sizeof raw, "%s/pings.raw", argv[1]);
    snprintf(echo, sizeof echo, "%s/echogram.f32", argv[1]);
    float cr[CHIRP_LEN], ci[CHIRP_LEN], peak[NPINGS];
    make_chirp(cr, ci, CHIRP_LEN);
    Lcg g = {12345};
    simulate_pings(raw, cr, &g);
    process_pings(raw, echo, cr, ci, peak);
    gather_range_bins(echo, argv[1]);
    render_pgm(echo, argv[1]);
    write_peak_track(peak, argv[1]);
    double s = 0;
    for (int p = 0; p < NPINGS; p++) s += peak[p];
    printf("pings %d mean peak %.5f\n", NPINGS, s / NPINGS);
    return 0;
}
