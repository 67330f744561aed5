/*
 * chromatogram_peak_fit.c
 *
 * HPLC batch processing.  A method file (INI style) is written and parsed,
 * then a batch of ASCII chromatogram exports (one file per injection, with a
 * text header and "time<TAB>signal" rows) is generated into a runs/
 * sub-directory.  The batch is discovered with opendir/readdir, every run
 * is parsed, baseline-corrected with asymmetric least squares (pentadiagonal
 * solves), smoothed with a Savitzky-Golay filter, peaks are detected and
 * fitted with Gaussians by Levenberg-Marquardt.  Peak tables are appended to
 * a CSV and a calibration curve (area vs. concentration) is reported.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define MAX_PEAKS 64
#define N_ANALYTES 6

typedef struct {
    int n_runs;
    int n_points;
    double t_end;       /* minutes */
    int sg_half;        /* Savitzky-Golay half window */
    double als_lambda;
    double als_p;
    int als_iter;
    double snr_min;
    int lm_iter;
    double max_sigma;
} method_t;

typedef struct {
    double t0, h, sigma, area, rt_err;
    int analyte;
} peak_t;

static const double analyte_rt[N_ANALYTES] = {2.15, 3.40, 4.05, 5.90, 7.25, 9.80};
static const char *analyte_name[N_ANALYTES] = {"caffeine", "theobromine", "paraxanthine",
                                               "theophylline", "vanillin", "coumarin"};

static uint64_t rs;
static double urand(void)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}
static double gauss(void)
{
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

static void die(const char *m, const char *p)
{
    fprintf(stderr, "chromatogram_peak_fit: %s %s: %s\n", m, p, strerror(errno));
    exit(1);
}

/* ---------------- method file ---------------- */
static void write_method(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "; HPLC processing method\n[acquisition]\nruns = 112\npoints = 10000\nt_end = 12.0\n\n");
    fprintf(f, "[baseline]\nals_lambda = 1.0e7\nals_p = 0.01\nals_iter = 8\n\n");
    fprintf(f, "[peaks]\nsg_half = 7\nsnr_min = 8.0\nlm_iter = 40\nmax_sigma = 0.2\n");
    fclose(f);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ')) *--e = 0;
    return s;
}

static void parse_method(const char *path, method_t *m)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[512], section[64] = "";
    while (fgets(line, sizeof line, f)) {
        char *s = trim(line);
        if (*s == ';' || *s == 0) continue;
        if (*s == '[') {
            snprintf(section, sizeof section, "%.*s", (int)strcspn(s + 1, "]"), s + 1);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) continue;
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        if (!strcmp(key, "runs")) m->n_runs = atoi(val);
        else if (!strcmp(key, "points")) m->n_points = atoi(val);
        else if (!strcmp(key, "t_end")) m->t_end = atof(val);
        else if (!strcmp(key, "als_lambda")) m->als_lambda = atof(val);
        else if (!strcmp(key, "als_p")) m->als_p = atof(val);
        else if (!strcmp(key, "als_iter")) m->als_iter = atoi(val);
        else if (!strcmp(key, "sg_half")) m->sg_half = atoi(val);
        else if (!strcmp(key, "snr_min")) m->snr_min = atof(val);
        else if (!strcmp(key, "lm_iter")) m->lm_iter = atoi(val);
        else if (!strcmp(key, "max_sigma")) m->max_sigma = atof(val);
        else fprintf(stderr, "unknown key [%s] %s\n", section, key);
    }
    fclose(f);
}

/* ---------------- synthetic instrument exports ---------------- */
static void generate_runs(const char *rundir, const method_t *m)
{
    char path[4096];
    for (int r = 0; r < m->n_runs; r++) {
        snprintf(path, sizeof path, "%s/inj_%03d.asc", rundir, (r * 37) % m->n_runs);
        int idx = (r * 37) % m->n_runs;
        rs = 1234567ULL + (uint64_t)idx * 1000003ULL;
        double level = 1.0 + (idx % 8);          /* calibration level */
        double conc[N_ANALYTES];
        for (int a = 0; a < N_ANALYTES; a++) conc[a] = level * (0.5 + 0.25 * a);
        double drift = 0.02 * gauss();
        FILE *f = fopen(path, "w");
        if (!f) die("fopen", path);
        fprintf(f, "Sample Name:\tSTD_L%d_%03d\nInjection:\t%d\nLevel:\t%.1f\nDetector:\tUV 273nm\n", (int)level,
                idx, idx, level);
        fprintf(f, "Points:\t%d\nUnits:\tmin\tmAU\n", m->n_points);
        for (int i = 0; i < m->n_points; i++) {
            double t = m->t_end * i / (m->n_points - 1);
            double y = 5.0 + 1.5 * t + 3.0 * sin(0.4 * t) + 0.15 * gauss(); /* drifting baseline */
            for (int a = 0; a < N_ANALYTES; a++) {
                double c = analyte_rt[a] + drift;
                double s = 0.035 + 0.006 * c;
                double tail = (t > c) ? 1.0 + 0.3 * (t - c) / s * 0.1 : 1.0;
                double d = (t - c) / (s * tail);
                y += 12.0 * conc[a] * exp(-0.5 * d * d);
            }
            fprintf(f, "%.5f\t%.4f\n", t, y);
        }
        fclose(f);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **list_runs(const char *rundir, int *count)
{
    DIR *d = opendir(rundir);
    if (!d) die("opendir", rundir);
    int cap = 16, n = 0;
    char **names = malloc((size_t)cap * sizeof(char *));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t L = strlen(e->d_name);
        if (L < 5 || strcmp(e->d_name + L - 4, ".asc") != 0) continue;
        if (n == cap) names = realloc(names, (size_t)(cap *= 2) * sizeof(char *));
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    *count = n;
    return names;
}

static int read_run(const char *path, double *t, double *y, int maxn, double *level)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[256];
    int n = 0;
    *level = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Level:", 6)) *level = atof(line + 6);
        char *end;
        double a = strtod(line, &end);
        if (end == line) continue; /* header line */
        double b = strtod(end, &end);
        if (n < maxn) {
            t[n] = a;
            y[n] = b;
            n++;
        }
    }
    fclose(f);
    return n;
}

/* ---------------- signal processing ---------------- */
/* Asymmetric least squares baseline (Eilers): solve (W + lambda D'D) z = W y
 * repeatedly with a pentadiagonal LDL^T factorisation. */
static void als_baseline(const double *y, int n, double lambda, double p, int iters, double *z)
{
    double *w = malloc((size_t)n * sizeof(double));
    double *a = malloc((size_t)n * sizeof(double)); /* diag */
    double *b = malloc((size_t)n * sizeof(double)); /* 1st off */
    double *c = malloc((size_t)n * sizeof(double)); /* 2nd off */
    double *rhs = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) w[i] = 1.0;
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < n; i++) {
            /* D'D for second differences: diag 1,5,6,...,6,5,1; off1 -2,-4..-4,-2; off2 1 */
            double dd = 6.0;
            if (i == 0 || i == n - 1) dd = 1.0;
            else if (i == 1 || i == n - 2) dd = 5.0;
            a[i] = w[i] + lambda * dd;
            b[i] = (i < n - 1) ? lambda * ((i == 0 || i == n - 2) ? -2.0 : -4.0) : 0.0;
            c[i] = (i < n - 2) ? lambda : 0.0;
            rhs[i] = w[i] * y[i];
        }
        /* LDL^T of symmetric pentadiagonal: L has subdiagonals l1, l2 */
        for (int i = 0; i < n; i++) {
            double di = a[i];
            if (i >= 1) di -= b[i - 1] * b[i - 1] * a[i - 1];
            if (i >= 2) di -= c[i - 2] * c[i - 2] * a[i - 2];
            double l1 = 0.0;
            if (i < n - 1) {
                l1 = b[i];
                if (i >= 1) l1 -= b[i - 1] * c[i - 1] * a[i - 1];
            }
            a[i] = di;
            if (i < n - 1) b[i] = l1 / di;
            if (i < n - 2) c[i] = c[i] / di;
        }
        for (int i = 0; i < n; i++) {
            double v = rhs[i];
            if (i >= 1) v -= b[i - 1] * rhs[i - 1];
            if (i >= 2) v -= c[i - 2] * rhs[i - 2];
            rhs[i] = v;
        }
        for (int i = n - 1; i >= 0; i--) {
            double v = rhs[i] / a[i];
            if (i < n - 1) v -= b[i] * z[i + 1];
            if (i < n - 2) v -= c[i] * z[i + 2];
            z[i] = v;
        }
        for (int i = 0; i < n; i++) w[i] = (y[i] > z[i]) ? p : 1.0 - p;
    }
    free(w); free(a); free(b); free(c); free(rhs);
}

/* Savitzky-Golay quadratic smoothing with general coefficient formula. */
static void savgol(const double *y, int n, int m, double *out)
{
    double norm = (double)(2 * m + 3) * (2 * m + 1) * (2 * m - 1) / 3.0;
    double *coef = malloc((size_t)(2 * m + 1) * sizeof(double));
    for (int k = -m; k <= m; k++) coef[k + m] = (3.0 * m * (m + 1) - 1 - 5.0 * k * k) / norm;
    for (int i = 0; i < n; i++) {
        if (i < m || i >= n - m) {
            out[i] = y[i];
            continue;
        }
        double s = 0;
        for (int k = -m; k <= m; k++) s += coef[k + m] * y[i + k];
        out[i] = s;
    }
    free(coef);
}

static double noise_level(const double *y, int n)
{
    /* median absolute first difference, robust to peaks */
    int m = n - 1;
    double *d = malloc((size_t)m * sizeof(double));
    for (int i = 0; i < m; i++) d[i] = fabs(y[i + 1] - y[i]);
    /* partial selection for the median */
    int k = m / 2, lo = 0, hi = m - 1;
    while (lo < hi) {
        double piv = d[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (d[i] < piv) i++;
            while (d[j] > piv) j--;
            if (i <= j) {
                double t = d[i]; d[i] = d[j]; d[j] = t;
                i++; j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    double med = d[k];
    free(d);
    return 1.4826 * med / sqrt(2.0) + 1e-9;
}

/* Fit y = h exp(-(t-t0)^2/(2 s^2)) on [i0,i1] by Levenberg-Marquardt. */
static void fit_gaussian(const double *t, const double *y, int i0, int i1, int iters, peak_t *pk)
{
    double p[3] = {pk->h, pk->t0, pk->sigma};
    double lam = 1e-3;
    double chi_old = 0;
    for (int i = i0; i <= i1; i++) {
        double d = (t[i] - p[1]) / p[2];
        double r = y[i] - p[0] * exp(-0.5 * d * d);
        chi_old += r * r;
    }
    for (int it = 0; it < iters; it++) {
        double JTJ[3][3] = {{0}}, JTr[3] = {0};
        for (int i = i0; i <= i1; i++) {
            double d = (t[i] - p[1]) / p[2];
            double e = exp(-0.5 * d * d);
            double r = y[i] - p[0] * e;
            double J[3] = {e, p[0] * e * d / p[2], p[0] * e * d * d / p[2]};
            for (int a = 0; a < 3; a++) {
                JTr[a] += J[a] * r;
                for (int b = 0; b < 3; b++) JTJ[a][b] += J[a] * J[b];
            }
        }
        double A[3][4];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) A[a][b] = JTJ[a][b] * (a == b ? 1.0 + lam : 1.0);
            A[a][3] = JTr[a];
        }
        for (int c = 0; c < 3; c++) { /* Gaussian elimination */
            int piv = c;
            for (int r2 = c + 1; r2 < 3; r2++)
                if (fabs(A[r2][c]) > fabs(A[piv][c])) piv = r2;
            for (int k = 0; k < 4; k++) {
                double tmp = A[c][k]; A[c][k] = A[piv][k]; A[piv][k] = tmp;
            }
            if (fabs(A[c][c]) < 1e-300) return;
            for (int r2 = c + 1; r2 < 3; r2++) {
                double fct = A[r2][c] / A[c][c];
                for (int k = c; k < 4; k++) A[r2][k] -= fct * A[c][k];
            }
        }
        double dp[3];
        for (int c = 2; c >= 0; c--) {
            double s = A[c][3];
            for (int k = c + 1; k < 3; k++) s -= A[c][k] * dp[k];
            dp[c] = s / A[c][c];
        }
        double q[3] = {p[0] + dp[0], p[1] + dp[1], fabs(p[2] + dp[2]) + 1e-6};
        double chi = 0;
        for (int i = i0; i <= i1; i++) {
            double d = (t[i] - q[1]) / q[2];
            double r = y[i] - q[0] * exp(-0.5 * d * d);
            chi += r * r;
        }
        if (chi < chi_old) {
            memcpy(p, q, sizeof p);
            lam *= 0.3;
            if (chi_old - chi < 1e-10 * chi_old) break;
            chi_old = chi;
        } else {
            lam *= 10.0;
        }
    }
    pk->h = p[0];
    pk->t0 = p[1];
    pk->sigma = p[2];
    pk->area = p[0] * p[2] * sqrt(2 * M_PI) * 60.0; /* mAU*s */
}

static int find_and_fit(const double *t, const double *ys, const double *yc, int n, const method_t *m,
                        peak_t *peaks)
{
    double sigma_n = noise_level(yc, n);
    int np = 0;
    int guard = m->sg_half * 3;
    for (int i = guard; i < n - guard && np < MAX_PEAKS; i++) {
        if (!(ys[i] > ys[i - 1] && ys[i] >= ys[i + 1])) continue;
        if (ys[i] < m->snr_min * sigma_n) continue;
        /* width at half height */
        int l = i, r = i;
        while (l > 0 && ys[l] > 0.5 * ys[i]) l--;
        while (r < n - 1 && ys[r] > 0.5 * ys[i]) r++;
        double fwhm = t[r] - t[l];
        peak_t pk = {t[i], ys[i], fwhm / 2.3548, 0, 0, -1};
        int span = (r - l);
        int i0 = i - span < 0 ? 0 : i - span, i1 = i + span >= n ? n - 1 : i + span;
        double sig0 = pk.sigma;
        fit_gaussian(t, yc, i0, i1, m->lm_iter, &pk);
        if (pk.sigma > 3.0 * sig0 || pk.sigma > m->max_sigma || pk.h <= 0 || pk.t0 < t[i0] || pk.t0 > t[i1]) {
            i = r; /* rejected: baseline artefact or failed fit */
            continue;
        }
        double best = 1e9;
        for (int a = 0; a < N_ANALYTES; a++) {
            double e = fabs(pk.t0 - analyte_rt[a]);
            if (e < best && e < 0.15) {
                best = e;
                pk.analyte = a;
                pk.rt_err = pk.t0 - analyte_rt[a];
            }
        }
        peaks[np++] = pk;
        i = r; /* skip past this peak */
    }
    return np;
}

static void append_peak_table(const char *csv, const char *run, double level, const peak_t *pk, int np)
{
    FILE *f = fopen(csv, "a");
    if (!f) die("fopen", csv);
    for (int k = 0; k < np; k++)
        fprintf(f, "%s,%.1f,%d,%s,%.4f,%.3f,%.4f,%.3f\n", run, level, k + 1,
                pk[k].analyte >= 0 ? analyte_name[pk[k].analyte] : "unknown", pk[k].t0, pk[k].h,
                pk[k].sigma, pk[k].area);
    fclose(f);
}

static void write_calibration(const char *path, double sx[], double sy[], double sxx[], double sxy[],
                              double syy[], int cnt[])
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "%-14s %5s %12s %12s %8s\n", "analyte", "n", "slope", "intercept", "r2");
    for (int a = 0; a < N_ANALYTES; a++) {
        double n = cnt[a];
        if (n < 2) continue;
        double b = (n * sxy[a] - sx[a] * sy[a]) / (n * sxx[a] - sx[a] * sx[a]);
        double c = (sy[a] - b * sx[a]) / n;
        double r = (n * sxy[a] - sx[a] * sy[a]) /
                   sqrt((n * sxx[a] - sx[a] * sx[a]) * (n * syy[a] - sy[a] * sy[a]));
        fprintf(f, "%-14s %5d %12.4f %12.4f %8.5f\n", analyte_name[a], cnt[a], b, c, r * r);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    char path[8192], rundir[4096], csv[4096];
    snprintf(path, sizeof path, "%s/method.ini", dir);
    write_method(path);
    method_t m;
    memset(&m, 0, sizeof m);
    parse_method(path, &m);

    snprintf(rundir, sizeof rundir, "%s/runs", dir);
    if (mkdir(rundir, 0755) != 0 && errno != EEXIST) die("mkdir", rundir);
    generate_runs(rundir, &m);

    int nfiles;
    char **names = list_runs(rundir, &nfiles);
    snprintf(csv, sizeof csv, "%s/peaks.csv", dir);
    FILE *h = fopen(csv, "w");
    if (!h) die("fopen", csv);
    fprintf(h, "run,level,peak,analyte,rt_min,height_mAU,sigma_min,area_mAUs\n");
    fclose(h);

    double *t = malloc((size_t)m.n_points * sizeof(double));
    double *y = malloc((size_t)m.n_points * sizeof(double));
    double *z = malloc((size_t)m.n_points * sizeof(double));
    double *ys = malloc((size_t)m.n_points * sizeof(double));
    double sx[N_ANALYTES] = {0}, sy[N_ANALYTES] = {0}, sxx[N_ANALYTES] = {0}, sxy[N_ANALYTES] = {0},
           syy[N_ANALYTES] = {0};
    int cnt[N_ANALYTES] = {0};
    int total_peaks = 0;
    peak_t peaks[MAX_PEAKS];
    for (int r = 0; r < nfiles; r++) {
        snprintf(path, sizeof path, "%s/%s", rundir, names[r]);
        double level;
        int n = read_run(path, t, y, m.n_points, &level);
        als_baseline(y, n, m.als_lambda, m.als_p, m.als_iter, z);
        for (int i = 0; i < n; i++) y[i] -= z[i];
        savgol(y, n, m.sg_half, ys);
        int np = find_and_fit(t, ys, y, n, &m, peaks);
        append_peak_table(csv, names[r], level, peaks, np);
        for (int k = 0; k < np; k++) {
            int a = peaks[k].analyte;
            if (a < 0) continue;
            double conc = level * (0.5 + 0.25 * a);
            sx[a] += conc; sy[a] += peaks[k].area;
            sxx[a] += conc * conc; sxy[a] += conc * peaks[k].area; syy[a] += peaks[k].area * peaks[k].area;
            cnt[a]++;
        }
        total_peaks += np;
        free(names[r]);
    }
    free(names);
    snprintf(path, sizeof path, "%s/calibration.txt", dir);
    write_calibration(path, sx, sy, sxx, sxy, syy, cnt);
    printf("%d runs, %d peaks\n", nfiles, total_peaks);
    free(t); free(y); free(z); free(ys);
    return 0;
}
