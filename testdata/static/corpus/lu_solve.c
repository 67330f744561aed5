/*
 * Dense linear solve by LU factorisation with partial pivoting.
 *
 * The run configuration (matrix order, seed, number of right-hand sides,
 * acceptance tolerance) is a small text file, which this driver first
 * writes and then reads back like a user-supplied input deck.  The matrix
 * is a random, moderately conditioned test matrix; right-hand sides are
 * built from known solutions so the forward error can be checked.  A short
 * result file is written at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    unsigned long seed;
    int nrhs;
    double tolerance;
} config_t;

static int write_default_config(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# dense LU test configuration\n");
    fprintf(f, "order %d\n", 1500);
    fprintf(f, "seed %lu\n", 20240917ul);
    fprintf(f, "rhs %d\n", 3);
    fprintf(f, "tolerance %g\n", 1e-8);
    return fclose(f);
}

static int read_config(const char *path, config_t *cfg)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char key[64];
    int found = 0;
    memset(cfg, 0, sizeof *cfg);
    /* skip the comment line */
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n')
        ;
    while (fscanf(f, "%63s", key) == 1) {
        if (strcmp(key, "order") == 0 && fscanf(f, "%d", &cfg->n) == 1)
            found |= 1;
        else if (strcmp(key, "seed") == 0 && fscanf(f, "%lu", &cfg->seed) == 1)
            found |= 2;
        else if (strcmp(key, "rhs") == 0 && fscanf(f, "%d", &cfg->nrhs) == 1)
            found |= 4;
        else if (strcmp(key, "tolerance") == 0 && fscanf(f, "%lf", &cfg->tolerance) == 1)
            found |= 8;
        else
            break;
    }
    fclose(f);
    return found == 15 ? 0 : -1;
}

static void fill_test_matrix(double *a, int n, unsigned long seed)
{
    unsigned long long s = seed * 2862933555777941757ull + 3037000493ull;
    for (int i = 0; i < n; i++) {
        double rowsum = 0.0;
        for (int j = 0; j < n; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double r = ((s >> 11) * (1.0 / 9007199254740992.0)) - 0.5;
            a[(size_t)i * n + j] = r;
            rowsum += fabs(r);
        }
        /* mild diagonal boost keeps the condition number reasonable */
        a[(size_t)i * n + i] += 0.05 * rowsum;
    }
}

/* in-place LU with row pivoting, piv[k] = row swapped into k; returns
 * log|det| or NAN if singular */
static double lu_factor(double *a, int n, int *piv)
{
    double logdet = 0.0;
    for (int k = 0; k < n; k++) {
        int p = k;
        double amax = fabs(a[(size_t)k * n + k]);
        for (int i = k + 1; i < n; i++) {
            double v = fabs(a[(size_t)i * n + k]);
            if (v > amax) {
                amax = v;
                p = i;
            }
        }
        piv[k] = p;
        if (amax == 0.0)
            return NAN;
        if (p != k) {
            double *rk = a + (size_t)k * n, *rp = a + (size_t)p * n;
            for (int j = 0; j < n; j++) {
                double t = rk[j];
                rk[j] = rp[j];
                rp[j] = t;
            }
        }
        const double *rowk = a + (size_t)k * n;
        double inv = 1.0 / rowk[k];
        logdet += log(fabs(rowk[k]));
        for (int i = k + 1; i < n; i++) {
            double *rowi = a + (size_t)i * n;
            double l = rowi[k] * inv;
            rowi[k] = l;
            for (int j = k + 1; j < n; j++)
                rowi[j] -= l * rowk[j];
        }
    }
    return logdet;
}

static void lu_solve(const double *lu, const int *piv, int n, double *b)
{
    for (int k = 0; k < n; k++)
        if (piv[k] != k) {
            double t = b[k];
            b[k] = b[piv[k]];
            b[piv[k]] = t;
        }
    for (int i = 1; i < n; i++) {
        double s = b[i];
        const double *row = lu + (size_t)i * n;
        for (int j = 0; j < i; j++)
            s -= row[j] * b[j];
        b[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        const double *row = lu + (size_t)i * n;
        for (int j = i + 1; j < n; j++)
            s -= row[j] * b[j];
        b[i] = s / row[i];
    }
}

static void matvec(const double *a, int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        const double *row = a + (size_t)i * n;
        for (int j = 0; j < n; j++)
            s += row[j] * x[j];
        y[i] = s;
    }
}

static int write_results(const char *path, const config_t *cfg, double logdet, const double *relres,
                         const double *ferr)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "order %d  seed %lu\nlog|det(A)| = %.10f\n", cfg->n, cfg->seed, logdet);
    for (int r = 0; r < cfg->nrhs; r++)
        fprintf(f, "rhs %d: relative residual %.3e  forward error %.3e\n", r, relres[r], ferr[r]);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    char cfgpath[4096], respath[4096];
    snprintf(cfgpath, sizeof cfgpath, "%s/lu.cfg", argv[1]);
    snprintf(respath, sizeof respath, "%s/lu_result.txt", argv[1]);

    config_t cfg;
    if (write_default_config(cfgpath) != 0 || read_config(cfgpath, &cfg) != 0) {
        fprintf(stderr, "configuration problem with %s\n", cfgpath);
        return 1;
    }
    int n = cfg.n;
    double *a = malloc(sizeof(double) * n * n), *lu = malloc(sizeof(double) * n * n);
    double *x = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    double *r = malloc(sizeof(double) * n), *bo = malloc(sizeof(double) * n);
    int *piv = malloc(sizeof(int) * n);
    double *relres = calloc(cfg.nrhs, sizeof(double)), *ferr = calloc(cfg.nrhs, sizeof(double));

    fill_test_matrix(a, n, cfg.seed);
    memcpy(lu, a, sizeof(double) * n * n);
    double logdet = lu_factor(lu, n, piv);
    if (isnan(logdet)) {
        fprintf(stderr, "matrix is singular\n");
        return 1;
    }

    double anorm = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += fabs(a[(size_t)i * n + j]);
        anorm = s > anorm ? s : anorm;
    }

    int fail = 0;
    for (int k = 0; k < cfg.nrhs; k++) {
        for (int i = 0; i < n; i++)
            x[i] = sin(0.01 * (i + 1) * (k + 1)) + 0.5 * k;
        matvec(a, n, x, b);
        memcpy(bo, b, sizeof(double) * n);
        lu_solve(lu, piv, n, b); /* b now holds the computed solution */
        matvec(a, n, b, r);
        double rmax = 0.0, xmax = 0.0, emax = 0.0, xhmax = 0.0;
        for (int i = 0; i < n; i++) {
            rmax = fmax(rmax, fabs(r[i] - bo[i]));
            emax = fmax(emax, fabs(b[i] - x[i]));
            xmax = fmax(xmax, fabs(x[i]));
            xhmax = fmax(xhmax, fabs(b[i]));
        }
        relres[k] = rmax / (anorm * xhmax);
        ferr[k] = emax / xmax;
        if (ferr[k] > cfg.tolerance || relres[k] > 1e-14)
            fail = 1;
    }
    if (write_results(respath, &cfg, logdet, relres, ferr) != 0) {
        fprintf(stderr, "cannot write %s\n", respath);
        return 1;
    }
    printf("n=%d log|det|=%.6f residual %.2e forward error %.2e%s\n", n, logdet, relres[0], ferr[0],
           fail ? "  FAILED" : "");
    free(a);
    free(lu);
    free(x);
    free(b);
    free(r);
    free(bo);
    free(piv);
    free(relres);
    free(ferr);
    return fail;
}
