/*
 * asteroid_lightcurve_mmap_periods.c
 *
 * Rotation periods of main-belt asteroids from sparse survey photometry.
 * A wide-field survey is simulated over 60 nights: each exposure records
 * catalogue reference stars and any of 120 tracked asteroids in the field,
 * with per-exposure zero-point drifts (cloud, airmass) and photon noise.
 * Asteroid brightness follows the H-G phase function, heliocentric and
 * geocentric distance changes, and a rotational light curve of a triaxial
 * body (double-peaked, with a second harmonic).
 *
 * I/O: the detection table is written with write(2) in large blocks; it is
 * then memory-mapped read-only and scanned to solve per-exposure zero points
 * from the reference stars; a calibrated copy is produced through a
 * writable shared mapping (ftruncate + mmap + msync); the asteroid
 * detections are gathered through an index into the mapping, each object
 * gets an H-G phase fit and a generalised Lomb-Scargle periodogram of the
 * residuals (the strongest peak is the second harmonic of the rotation of a
 * double-peaked light curve), folded light curves go into a second mapped
 * output file and a text catalogue is written with stdio.
 *
 * Usage: asteroid_lightcurve_mmap_periods OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NNIGHT 60
#define EXP_PER_NIGHT 70
#define NEXP (NNIGHT * EXP_PER_NIGHT)
#define STARS_PER_EXP 55
#define NAST 120
#define NFREQ 2000
#define FMIN 0.25                 /* cycles/day: periods 96 h ... */
#define FMAX 12.0                 /* ... 2 h (light-curve frequency = 2/P) */
#define NBIN 64
#define PI 3.14159265358979323846

typedef struct {
    double mjd;
    float mag, err;              /* instrumental magnitude */
    float airmass, phase_deg;    /* phase angle (asteroids), 0 for stars */
    float r_au, delta_au;        /* helio/geocentric distance (asteroids) */
    int32_t exposure;
    int32_t object;              /* >= 0 asteroid number, -1 - star id for stars */
    float ref_mag;               /* catalogue magnitude for stars */
} detection;                     /* 48 bytes with padding */

typedef struct {
    double H, G, period_h, amp, phi0, a_au, ecc_phase;
} asteroid;

static const char *outdir;
static asteroid ast[NAST];
static double zp_true[NEXP], zp_fit[NEXP], exp_mjd[NEXP], exp_airmass[NEXP];
static uint64_t rng = 0x2B7E151628AED2A6ull;

static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(2.0 * PI * v);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "lightcurve: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

/* Survey plan: exposures through each night with zero points drifting with thin cloud, and
 * the physical parameters of the tracked asteroids. */
static void plan_survey(void)
{
    for (int a = 0; a < NAST; a++) {
        ast[a].H = 13.0 + 4.0 * urand();
        ast[a].G = 0.05 + 0.35 * urand();
        ast[a].period_h = exp(log(4.2) + urand() * (log(40.0) - log(4.2)));
        ast[a].amp = 0.08 + 0.5 * urand() * urand();
        ast[a].phi0 = 2.0 * PI * urand();
        ast[a].a_au = 2.2 + 1.0 * urand();
        ast[a].ecc_phase = 2.0 * PI * urand();
    }
    double cloud = 0.0;
    for (int n = 0; n < NNIGHT; n++) {
        double bad = urand() < 0.15 ? 0.3 : 0.0;
        for (int e = 0; e < EXP_PER_NIGHT; e++) {
            int k = n * EXP_PER_NIGHT + e;
            double hour = 20.0 + 9.0 * e / EXP_PER_NIGHT;
            exp_mjd[k] = 60300.0 + n + (n / 7) * 1.0 + hour / 24.0;
            double ha = (hour - 24.5) / 12.0 * PI;
            exp_airmass[k] = 1.0 / (0.25 + 0.75 * cos(0.9 * ha));
            cloud = 0.9 * cloud + 0.1 * bad * urand();
            zp_true[k] = 25.0 - 0.12 * exp_airmass[k] - cloud + 0.01 * gauss();
        }
    }
}

/* Bowell et al. H-G phase function (reduced magnitude offset). */
static double hg_phase(double alpha_rad, double G)
{
    double t = tan(0.5 * alpha_rad);
    double p1 = exp(-3.33 * pow(t, 0.63)), p2 = exp(-1.87 * pow(t, 1.22));
    return -2.5 * log10((1.0 - G) * p1 + G * p2);
}

/* Detections of one exposure: reference stars plus the asteroids in the field. */
static int exposure_detections(int k, detection *out)
{
    int n = 0;
    for (int s = 0; s < STARS_PER_EXP; s++) {
        int sid = (k / EXP_PER_NIGHT % 7) * 1000 + s;
        double ref = 12.0 + 6.0 * ((sid * 2654435761u) % 1000) / 1000.0;
        double flux_err = 0.003 + 0.02 * pow(10.0, 0.4 * (ref - 18.0));
        out[n++] = (detection){exp_mjd[k], (float)(ref - zp_true[k] + 25.0 + flux_err * gauss()), (float)flux_err,
                               (float)exp_airmass[k], 0.0f, 0.0f, 0.0f, k, -1 - sid, (float)ref};
    }
    for (int a = 0; a < NAST; a++) {
        if ((a + k) % 4 != 0) continue;                        /* field footprint: each asteroid 1 in 4 */
        double day = exp_mjd[k] - 60300.0;
        double th = ast[a].ecc_phase + 2.0 * PI * day / (365.25 * pow(ast[a].a_au, 1.5));
        double r = ast[a].a_au * (1.0 + 0.05 * cos(th));
        double earth = 2.0 * PI * day / 365.25;
        double ex = cos(earth), ey = sin(earth), ax = r * cos(th + 0.6), ay = r * sin(th + 0.6);
        double delta = hypot(ax - ex, ay - ey);
        double cosal = (r * r + delta * delta - 1.0) / (2.0 * r * delta);
        double alpha = acos(fmax(-1.0, fmin(1.0, cosal)));
        double rot = 2.0 * PI * day * 24.0 / ast[a].period_h + ast[a].phi0;
        double lc = 0.5 * ast[a].amp * cos(2.0 * rot) + 0.1 * ast[a].amp * cos(rot + 0.7);
        double V = ast[a].H + 5.0 * log10(r * delta) + hg_phase(alpha, ast[a].G) + lc;
        double err = 0.01 + 0.03 * pow(10.0, 0.4 * (V - 19.0));
        if (V > 21.5) continue;                                 /* below the detection limit */
        out[n++] = (detection){exp_mjd[k], (float)(V - zp_true[k] + 25.0 + err * gauss()), (float)err,
                               (float)exp_airmass[k], (float)(alpha * 180.0 / PI), (float)r, (float)delta, k, a,
                               0.0f};
    }
    return n;
}

/* Write the detection table exposure by exposure in ~1 MiB write(2) blocks. */
static long write_detection_table(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    enum { BLK = 26000 };
    static detection buf[BLK + STARS_PER_EXP + NAST];
    int nb = 0;
    long total = 0;
    for (int k = 0; k < NEXP; k++) {
        nb += exposure_detections(k, buf + nb);
        if (nb >= BLK || k == NEXP - 1) {
            size_t bytes = sizeof(detection) * (size_t)nb;
            const char *p = (const char *)buf;
            while (bytes > 0) {
                ssize_t w = write(fd, p, bytes);
                if (w < 0) { if (errno == EINTR) continue; die("write", path); }
                p += w; bytes -= (size_t)w;
            }
            total += nb;
            nb = 0;
        }
    }
    if (close(fd) != 0) die("close", path);
    return total;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Map the detection table read-only and solve each exposure's zero point as the median of
 * (catalogue - instrumental) over its reference stars; returns the mapping. */
static const detection *solve_zero_points(const char *path, size_t *count, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat", path);
    *len = (size_t)st.st_size;
    void *map = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) die("mmap", path);
    if (close(fd) != 0) die("close", path);
    int rc = posix_madvise(map, *len, POSIX_MADV_SEQUENTIAL);
    if (rc != 0) { errno = rc; die("posix_madvise", path); }
    const detection *d = map;
    size_t n = *count = *len / sizeof(detection);
    static float res[STARS_PER_EXP + NAST];
    size_t i = 0;
    while (i < n) {
        int k = d[i].exposure, m = 0;
        while (i < n && d[i].exposure == k) {
            if (d[i].object < 0 && d[i].err < 0.02f) res[m++] = d[i].ref_mag - d[i].mag;
            i++;
        }
        if (m == 0) { zp_fit[k] = 25.0; continue; }
        qsort(res, (size_t)m, sizeof(float), cmp_float);
        zp_fit[k] = 25.0 + (m % 2 ? res[m / 2] : 0.5 * (res[m / 2 - 1] + res[m / 2]));
    }
    return d;
}

/* Calibrated copy through a writable shared mapping: mag -> calibrated magnitude. */
static void write_calibrated_copy(const char *path, const detection *d, size_t n)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    size_t len = n * sizeof(detection);
    if (ftruncate(fd, (off_t)len) != 0) die("ftruncate", path);
    detection *out = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (out == MAP_FAILED) die("mmap", path);
    if (close(fd) != 0) die("close", path);
    for (size_t i = 0; i < n; i++) {
        out[i] = d[i];
        out[i].mag = (float)(d[i].mag + zp_fit[d[i].exposure] - 25.0);
    }
    if (msync(out, len, MS_SYNC) != 0) die("msync", path);
    if (munmap(out, len) != 0) die("munmap", path);
}

/* Index asteroid detections by object (counting sort of record numbers). */
static void index_asteroids(const detection *d, size_t n, uint32_t *start, uint32_t *recs)
{
    uint32_t cnt[NAST + 1];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++)
        if (d[i].object >= 0) cnt[d[i].object + 1]++;
    start[0] = 0;
    for (int a = 0; a < NAST; a++) start[a + 1] = start[a] + cnt[a + 1];
    uint32_t fill[NAST];
    memcpy(fill, start, sizeof fill);
    for (size_t i = 0; i < n; i++)
        if (d[i].object >= 0) recs[fill[d[i].object]++] = (uint32_t)i;
}

/* Weighted least squares of reduced magnitude vs the H-G phase law over a grid of G; the two
 * basis functions Phi1, Phi2 depend only on the phase angle and are evaluated once. */
static void fit_phase_curve(const double *alpha, const double *redmag, const double *w, int n, double *H,
                            double *G, double *resid)
{
    double *p1 = malloc(sizeof(double) * (size_t)n), *p2 = malloc(sizeof(double) * (size_t)n);
    if (!p1 || !p2) { fprintf(stderr, "lightcurve: out of memory\n"); exit(2); }
    for (int i = 0; i < n; i++) {
        double t = tan(0.5 * alpha[i]);
        p1[i] = exp(-3.33 * pow(t, 0.63));
        p2[i] = exp(-1.87 * pow(t, 1.22));
    }
    double best = 1e300;
    for (int g = 0; g <= 60; g++) {
        double Gt = g / 60.0 * 0.6 - 0.05, sw = 0, swr = 0, chi = 0;
        for (int i = 0; i < n; i++) {
            double r = redmag[i] + 2.5 * log10((1.0 - Gt) * p1[i] + Gt * p2[i]);
            sw += w[i]; swr += w[i] * r;
        }
        double Ht = swr / sw;
        for (int i = 0; i < n; i++) {
            double r = redmag[i] + 2.5 * log10((1.0 - Gt) * p1[i] + Gt * p2[i]) - Ht;
            chi += w[i] * r * r;
        }
        if (chi < best) { best = chi; *H = Ht; *G = Gt; }
    }
    for (int i = 0; i < n; i++) resid[i] = redmag[i] + 2.5 * log10((1.0 - *G) * p1[i] + *G * p2[i]) - *H;
    free(p1);
    free(p2);
}

/* Generalised Lomb-Scargle power on a uniform frequency grid using trig recurrences. */
static double lomb_scargle(const double *t, const double *y, const double *w, int n, double *power)
{
    double *c = malloc(sizeof(double) * n), *s = malloc(sizeof(double) * n);
    double *dc = malloc(sizeof(double) * n), *ds = malloc(sizeof(double) * n);
    if (!c || !s || !dc || !ds) { fprintf(stderr, "lightcurve: out of memory\n"); exit(2); }
    double df = (FMAX - FMIN) / (NFREQ - 1), W = 0, Y = 0, YY = 0;
    for (int i = 0; i < n; i++) { W += w[i]; }
    for (int i = 0; i < n; i++) { Y += w[i] * y[i] / W; }
    for (int i = 0; i < n; i++) { YY += w[i] * (y[i] - Y) * (y[i] - Y) / W; }
    for (int i = 0; i < n; i++) {
        double ph = 2.0 * PI * FMIN * t[i], dph = 2.0 * PI * df * t[i];
        c[i] = cos(ph); s[i] = sin(ph); dc[i] = cos(dph); ds[i] = sin(dph);
    }
    double best = 0.0, fbest = FMIN;
    for (int f = 0; f < NFREQ; f++) {
        double C = 0, S = 0, YC = 0, YS = 0, CC = 0, SS = 0, CS = 0;
        for (int i = 0; i < n; i++) {
            double wi = w[i] / W, yi = y[i] - Y;
            C += wi * c[i]; S += wi * s[i];
            YC += wi * yi * c[i]; YS += wi * yi * s[i];
            CC += wi * c[i] * c[i]; SS += wi * s[i] * s[i]; CS += wi * c[i] * s[i];
            double cn = c[i] * dc[i] - s[i] * ds[i];
            s[i] = s[i] * dc[i] + c[i] * ds[i];
            c[i] = cn;
        }
        CC -= C * C; SS -= S * S; CS -= C * S;
        double D = CC * SS - CS * CS;
        power[f] = D > 0 ? (SS * YC * YC + CC * YS * YS - 2.0 * CS * YC * YS) / (YY * D) : 0.0;
        if (power[f] > best) { best = power[f]; fbest = FMIN + f * df; }
    }
    free(c); free(s); free(dc); free(ds);
    return fbest;
}

/* Fold at the rotation period (= 2 / light-curve frequency) and bin; two-harmonic amplitude. */
static void fold_and_bin(const double *t, const double *y, int n, double period_d, float *binned, double *amp)
{
    double sum[NBIN] = {0}, cnt[NBIN] = {0};
    for (int i = 0; i < n; i++) {
        double ph = fmod(t[i] / period_d, 1.0);
        int b = (int)(ph * NBIN);
        if (b >= NBIN) b = NBIN - 1;
        sum[b] += y[i]; cnt[b] += 1;
    }
    double lo = 1e9, hi = -1e9;
    for (int b = 0; b < NBIN; b++) {
        binned[b] = cnt[b] > 0 ? (float)(sum[b] / cnt[b]) : NAN;
        if (cnt[b] >= 2) { lo = fmin(lo, binned[b]); hi = fmax(hi, binned[b]); }
    }
    *amp = hi > lo ? hi - lo : 0.0;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    char raw[4096], cal[4096], fold[4096], catp[4096];
    snprintf(raw, sizeof raw, "%s/detections_raw.bin", outdir);
    snprintf(cal, sizeof cal, "%s/detections_calibrated.bin", outdir);
    snprintf(fold, sizeof fold, "%s/folded_lightcurves.bin", outdir);
    snprintf(catp, sizeof catp, "%s/rotation_periods.txt", outdir);

    plan_survey();
    long ndet = write_detection_table(raw);

    size_t n, len;
    const detection *d = solve_zero_points(raw, &n, &len);
    if ((long)n != ndet) { fprintf(stderr, "lightcurve: table size mismatch\n"); return 2; }
    write_calibrated_copy(cal, d, n);

    uint32_t start[NAST + 1];
    uint32_t *recs = malloc(sizeof(uint32_t) * n);
    if (!recs) { fprintf(stderr, "lightcurve: out of memory\n"); return 2; }
    index_asteroids(d, n, start, recs);
    int rc = posix_madvise((void *)d, len, POSIX_MADV_RANDOM);
    if (rc != 0) { errno = rc; die("posix_madvise", raw); }

    /* output mapping: per object a header (4 floats) and NBIN binned magnitudes */
    size_t rec_floats = 4 + NBIN, flen = sizeof(float) * rec_floats * NAST;
    int ffd = open(fold, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (ffd < 0) die("open", fold);
    if (ftruncate(ffd, (off_t)flen) != 0) die("ftruncate", fold);
    float *fout = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_SHARED, ffd, 0);
    if (fout == MAP_FAILED) die("mmap", fold);
    if (close(ffd) != 0) die("close", fold);

    FILE *cat = fopen(catp, "w");
    if (!cat) die("fopen", catp);
    if (fprintf(cat, "# ast  nobs   H_true  H_fit  G_fit  P_true_h  P_fit_h  amp_true amp_fit  LS_power\n") < 0)
        die("fprintf", catp);
    static double t[NEXP], alpha[NEXP], red[NEXP], w[NEXP], resid[NEXP], power[NFREQ];
    int good = 0;
    for (int a = 0; a < NAST; a++) {
        int m = 0;
        for (uint32_t j = start[a]; j < start[a + 1]; j++) {
            const detection *x = &d[recs[j]];
            t[m] = x->mjd - 60300.0;
            alpha[m] = x->phase_deg * PI / 180.0;
            red[m] = x->mag + zp_fit[x->exposure] - 25.0 - 5.0 * log10((double)x->r_au * x->delta_au);
            w[m] = 1.0 / ((double)x->err * x->err);
            m++;
        }
        double H = 0, G = 0, amp = 0;
        float *rec = fout + (size_t)a * rec_floats;
        if (m < 30) {
            memset(rec, 0, sizeof(float) * rec_floats);
            continue;
        }
        fit_phase_curve(alpha, red, w, m, &H, &G, resid);
        double f = lomb_scargle(t, resid, w, m, power);
        double period_d = 2.0 / f;                              /* double-peaked light curve */
        fold_and_bin(t, resid, m, period_d, rec + 4, &amp);
        rec[0] = (float)a; rec[1] = (float)(period_d * 24.0); rec[2] = (float)amp; rec[3] = (float)m;
        double pbest = power[(int)lround((f - FMIN) / ((FMAX - FMIN) / (NFREQ - 1)))];
        double rel = fabs(period_d * 24.0 - ast[a].period_h) / ast[a].period_h;
        if (rel < 0.02) good++;
        if (fprintf(cat, "%5d %5d %8.3f %6.3f %6.3f %9.4f %8.4f %8.3f %7.3f %9.4f\n", a, m, ast[a].H, H, G,
                    ast[a].period_h, period_d * 24.0, ast[a].amp, amp, pbest) < 0)
            die("fprintf", catp);
    }
    if (fprintf(cat, "# periods within 2%%: %d of %d\n", good, NAST) < 0) die("fprintf", catp);
    if (fclose(cat) != 0) die("fclose", catp);
    if (msync(fout, flen, MS_SYNC) != 0) die("msync", fold);
    if (munmap(fout, flen) != 0) die("munmap", fold);
    if (munmap((void *)d, len) != 0) die("munmap", raw);
    free(recs);
    printf("lightcurve: %ld detections in %d exposures, %d/%d asteroid periods recovered within 2%%\n", ndet, NEXP,
           good, NAST);
    return 0;
}
