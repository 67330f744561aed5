/* Earthquake catalogue survey.
 * Generates four regional binary catalogues (Poisson background seismicity
 * plus Omori-Utsu aftershock sequences, Gutenberg-Richter magnitudes), then
 * analyses them read-mostly: magnitude-frequency histograms and completeness
 * magnitude, Aki/Utsu b-values with bootstrap errors, a gridded b-value map,
 * Gardner-Knopoff declustering and inter-event time statistics.  Writes a
 * small text report and a b-value grid. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREG 4
#define NBACK 300000
#define NMAIN 160
#define MMIN 1.0
#define BTRUE 1.0
#define YEARS 20.0
#define CHUNK 4096
#define NBIN 80
#define GRIDN 24
#define NBOOT 200
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
    double t;      /* days since catalogue start */
    float lat, lon, depth, mag;
    uint32_t id;
    uint32_t flags;
} quake_t;

static char outdir[4000];
static const double reg_lat0[NREG] = {35.0, -20.0, 38.0, 60.0};
static const double reg_lon0[NREG] = {139.0, -70.0, 21.0, -150.0};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "quake_catalog: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t rs = 0x243f6a8885a308d3ull;
static double urand(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static double gr_mag(double mmin) { return mmin - log10(urand()) / BTRUE; }

static int cmp_time(const void *a, const void *b)
{
    double x = ((const quake_t *)a)->t, y = ((const quake_t *)b)->t;
    return (x > y) - (x < y);
}

static void region_path(char *buf, size_t n, int r)
{
    snprintf(buf, n, "%s/catalog_region%d.bin", outdir, r);
}

static size_t generate_region(int r)
{
    size_t cap = NBACK * 3, n = 0;
    quake_t *q = malloc(cap * sizeof *q);
    if (!q) { fprintf(stderr, "out of memory\n"); exit(1); }
    double T = YEARS * 365.25;
    for (int k = 0; k < NBACK; k++) {
        quake_t e = {urand() * T, (float)(reg_lat0[r] + (urand() - 0.5) * 8.0),
                     (float)(reg_lon0[r] + (urand() - 0.5) * 8.0), (float)(5.0 + urand() * 30.0),
                     (float)gr_mag(MMIN), 0, 0};
        q[n++] = e;
    }
    for (int m = 0; m < NMAIN; m++) {
        double t0 = urand() * T, M = 4.5 + gr_mag(0.0) * 0.8;
        double la = reg_lat0[r] + (urand() - 0.5) * 7.0, lo = reg_lon0[r] + (urand() - 0.5) * 7.0;
        quake_t ms = {t0, (float)la, (float)lo, (float)(10.0 + urand() * 20.0), (float)M, 0, 1};
        if (n == cap) break;
        q[n++] = ms;
        int na = (int)(0.02 * pow(10.0, 0.9 * (M - MMIN)));
        if (na > 3000) na = 3000;
        double L = pow(10.0, 0.5 * M - 1.8) / 111.0; /* rupture length, degrees */
        for (int a = 0; a < na && n < cap; a++) {
            /* Omori-Utsu with p = 1.1, c = 0.05 d via inverse transform */
            double u = urand(), c = 0.05, p = 1.1, tmax = 1000.0;
            double A = pow(c, 1 - p), B = pow(c + tmax, 1 - p);
            double dt = pow(A - u * (A - B), 1.0 / (1 - p)) - c;
            quake_t e = {t0 + dt, (float)(la + (urand() - 0.5) * L), (float)(lo + (urand() - 0.5) * L),
                         (float)(5.0 + urand() * 25.0), (float)gr_mag(MMIN), 0, 2};
            if (e.mag >= M) e.mag = (float)(M - 0.1);
            if (e.t < T) q[n++] = e;
        }
    }
    qsort(q, n, sizeof *q, cmp_time);
    for (size_t k = 0; k < n; k++) {
        q[k].id = (uint32_t)(r * 10000000u + k);
        /* detection: small events are missed with a logistic probability */
        double pdet = 1.0 / (1.0 + exp(-(q[k].mag - 1.25) / 0.1));
        if (urand() > pdet) q[k].flags |= 0x80u;
    }
    char path[4100];
    region_path(path, sizeof path, r);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    size_t kept = 0;
    quake_t buf[CHUNK];
    size_t nb = 0;
    for (size_t k = 0; k < n; k++) {
        if (q[k].flags & 0x80u) continue;
        buf[nb++] = q[k];
        if (nb == CHUNK) {
            if (fwrite(buf, sizeof *buf, nb, f) != nb) die("fwrite", path);
            kept += nb;
            nb = 0;
        }
    }
    if (nb && fwrite(buf, sizeof *buf, nb, f) != nb) die("fwrite", path);
    kept += nb;
    if (fclose(f) != 0) die("fclose", path);
    free(q);
    return kept;
}

/* Streaming pass: magnitude histogram per region (0.1 bins). */
static void magnitude_histogram(int r, long hist[NBIN], size_t *count)
{
    char path[4100];
    region_path(path, sizeof path, r);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    quake_t buf[CHUNK];
    size_t got;
    memset(hist, 0, sizeof(long) * NBIN);
    *count = 0;
    while ((got = fread(buf, sizeof *buf, CHUNK, f)) > 0) {
        for (size_t k = 0; k < got; k++) {
            int b = (int)floor((buf[k].mag - MMIN) * 10.0);
            if (b >= 0 && b < NBIN) hist[b]++;
        }
        *count += got;
    }
    if (ferror(f)) die("fread", path);
    fclose(f);
}

static double max_curvature_mc(const long hist[NBIN])
{
    int best = 0;
    for (int b = 1; b < NBIN; b++)
        if (hist[b] > hist[best]) best = b;
    return MMIN + 0.1 * best + 0.2; /* MAXC + standard correction */
}

/* Aki-Utsu maximum-likelihood b-value and Shi-Bolt bootstrap from the
 * magnitudes above Mc (loaded in a second streaming pass). */
static double bvalue_with_bootstrap(int r, double mc, double *sigma, size_t *nabove)
{
    char path[4100];
    region_path(path, sizeof path, r);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    size_t cap = 1 << 16, n = 0;
    float *m = malloc(cap * sizeof *m);
    quake_t buf[CHUNK];
    size_t got;
    while ((got = fread(buf, sizeof *buf, CHUNK, f)) > 0)
        for (size_t k = 0; k < got; k++) {
            if (buf[k].mag < mc - 0.05) continue;
            if (n == cap) {
                cap *= 2;
                m = realloc(m, cap * sizeof *m);
                if (!m) { fprintf(stderr, "out of memory\n"); exit(1); }
            }
            m[n++] = buf[k].mag;
        }
    if (ferror(f)) die("fread", path);
    fclose(f);
    double s = 0;
    for (size_t k = 0; k < n; k++) s += m[k];
    double b = log10(exp(1.0)) / (s / n - (mc - 0.05));
    double sb = 0, sb2 = 0;
    for (int it = 0; it < NBOOT; it++) {
        double ss = 0;
        for (size_t k = 0; k < n; k++) ss += m[(size_t)(urand() * n) % n];
        double bb = log10(exp(1.0)) / (ss / n - (mc - 0.05));
        sb += bb;
        sb2 += bb * bb;
    }
    *sigma = sqrt(sb2 / NBOOT - (sb / NBOOT) * (sb / NBOOT));
    *nabove = n;
    free(m);
    return b;
}

/* Gridded b-value map: stream events into GRIDN x GRIDN cells. */
static void bvalue_map(int r, double mc, FILE *out)
{
    char path[4100];
    region_path(path, sizeof path, r);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    static double sum[GRIDN][GRIDN];
    static long cnt[GRIDN][GRIDN];
    memset(sum, 0, sizeof sum);
    memset(cnt, 0, sizeof cnt);
    quake_t buf[CHUNK];
    size_t got;
    while ((got = fread(buf, sizeof *buf, CHUNK, f)) > 0)
        for (size_t k = 0; k < got; k++) {
            if (buf[k].mag < mc - 0.05) continue;
            int gi = (int)((buf[k].lat - (reg_lat0[r] - 4.0)) / 8.0 * GRIDN);
            int gj = (int)((buf[k].lon - (reg_lon0[r] - 4.0)) / 8.0 * GRIDN);
            if (gi < 0 || gj < 0 || gi >= GRIDN || gj >= GRIDN) continue;
            sum[gi][gj] += buf[k].mag;
            cnt[gi][gj]++;
        }
    if (ferror(f)) die("fread", path);
    fclose(f);
    for (int i = 0; i < GRIDN; i++)
        for (int j = 0; j < GRIDN; j++) {
            double b = cnt[i][j] >= 50 ? log10(exp(1.0)) / (sum[i][j] / cnt[i][j] - (mc - 0.05)) : NAN;
            if (fprintf(out, "%d %.3f %.3f %ld %.3f\n", r, reg_lat0[r] - 4.0 + (i + 0.5) * 8.0 / GRIDN,
                        reg_lon0[r] - 4.0 + (j + 0.5) * 8.0 / GRIDN, cnt[i][j], b) < 0)
                die("fprintf", "bgrid");
        }
}

/* Gardner-Knopoff (1974) window declustering on the whole region. */
static size_t decluster(int r, size_t n, double *cv_decl)
{
    char path[4100];
    region_path(path, sizeof path, r);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    quake_t *q = malloc(n * sizeof *q);
    unsigned char *dep = calloc(n, 1);
    if (!q || !dep) { fprintf(stderr, "out of memory\n"); exit(1); }
    if (fread(q, sizeof *q, n, f) != n) die("fread", path);
    fclose(f);
    for (size_t k = 0; k < n; k++) {
        if (q[k].mag < 4.0 || dep[k]) continue;
        double M = q[k].mag;
        double dkm = pow(10.0, 0.1238 * M + 0.983);
        double tday = M >= 6.5 ? pow(10.0, 0.032 * M + 2.7389) : pow(10.0, 0.5409 * M - 0.547);
        double coslat = cos(q[k].lat * M_PI / 180.0);
        for (size_t j = k + 1; j < n && q[j].t - q[k].t <= tday; j++) {
            double dy = (q[j].lat - q[k].lat) * 111.2, dx = (q[j].lon - q[k].lon) * 111.2 * coslat;
            if (dx * dx + dy * dy <= dkm * dkm && q[j].mag < M) dep[j] = 1;
        }
    }
    /* coefficient of variation of inter-event times of the declustered set */
    double prev = -1, s = 0, s2 = 0;
    size_t m = 0, kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (dep[k] || q[k].mag < 2.0) continue;
        kept++;
        if (prev >= 0) {
            double d = q[k].t - prev;
            s += d;
            s2 += d * d;
            m++;
        }
        prev = q[k].t;
    }
    double mean = s / m;
    *cv_decl = sqrt(s2 / m - mean * mean) / mean;
    free(q);
    free(dep);
    return kept;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    size_t nev[NREG];
    for (int r = 0; r < NREG; r++) nev[r] = generate_region(r);

    char path[4100];
    snprintf(path, sizeof path, "%s/bvalue_grid.txt", outdir);
    FILE *grid = fopen(path, "w");
    if (!grid) die("fopen", path);
    snprintf(path, sizeof path, "%s/report.txt", outdir);
    FILE *rep = fopen(path, "w");
    if (!rep) die("fopen", path);
    if (fprintf(rep, "region events Mc b sigma_b N>=Mc declustered_M2 cv_interevent\n") < 0)
        die("fprintf", path);
    size_t total = 0;
    double bsum = 0;
    for (int r = 0; r < NREG; r++) {
        long hist[NBIN];
        size_t cnt, nab;
        magnitude_histogram(r, hist, &cnt);
        double mc = max_curvature_mc(hist), sb;
        double b = bvalue_with_bootstrap(r, mc, &sb, &nab);
        bvalue_map(r, mc, grid);
        double cv;
        size_t kept = decluster(r, nev[r], &cv);
        if (fprintf(rep, "%d %zu %.2f %.3f %.3f %zu %zu %.3f\n", r, cnt, mc, b, sb, nab, kept, cv) < 0)
            die("fprintf", path);
        total += cnt;
        bsum += b;
    }
    if (fclose(grid) != 0) die("fclose", "bvalue_grid.txt");
    if (fclose(rep) != 0) die("fclose", path);
    printf("quake catalogue survey: %zu events in %d regions, mean b = %.3f\n", total, NREG,
           bsum / NREG);
    return 0;
}
