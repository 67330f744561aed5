/*
 * beam_modal_fem.c
 *
 * Modal analysis of a clamped-free Euler-Bernoulli beam.  Parameters come
 * from a "key value" configuration file written at start-up.  Banded
 * stiffness and consistent-mass matrices are assembled, the lowest modes
 * are found by subspace iteration (banded Cholesky + Jacobi on the
 * projected problem), and stored in a binary mode file whose header holds an
 * offset table that is back-patched with fseek.  The modes are read back by
 * seeking to each record and compared with the analytic cantilever shapes
 * (MAC matrix).  A frequency-response sweep with complex banded solves is
 * written as a text table, and a modal-superposition impulse response is
 * streamed to a raw float64 file.
 */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HB 3   /* half bandwidth */
#define NB (HB + 1)
#define MAXQ 32

typedef struct {
    double length, E, Iz, rho, area;
    int n_elem, n_modes;
    double eta;       /* structural loss factor */
    double zeta;      /* modal damping for transient */
    double f_min, f_max;
    int n_freq;
    int n_sensors;
    double dt;
    int n_steps;
} cfg_t;

static void die(const char *m, const char *p)
{
    fprintf(stderr, "beam_modal_fem: %s %s: %s\n", m, p, strerror(errno));
    exit(1);
}

static void write_config(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fputs("# steel cantilever, rectangular 40x8 mm section\n"
          "length     2.5\n"
          "E          2.1e11\n"
          "I          1.7067e-9\n"
          "rho        7850\n"
          "area       3.2e-4\n"
          "n_elem     640\n"
          "n_modes    8\n"
          "eta        0.002\n"
          "zeta       0.01\n"
          "f_min      0.5\n"
          "f_max      800.0\n"
          "n_freq     17000\n"
          "n_sensors  10\n"
          "dt         2.0e-5\n"
          "n_steps    400000\n",
          f);
    fclose(f);
}

static void read_config(const char *path, cfg_t *c)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char key[64], line[256];
    double v;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (sscanf(line, "%63s %lf", key, &v) != 2) continue;
        if (!strcmp(key, "length")) c->length = v;
        else if (!strcmp(key, "E")) c->E = v;
        else if (!strcmp(key, "I")) c->Iz = v;
        else if (!strcmp(key, "rho")) c->rho = v;
        else if (!strcmp(key, "area")) c->area = v;
        else if (!strcmp(key, "n_elem")) c->n_elem = (int)v;
        else if (!strcmp(key, "n_modes")) c->n_modes = (int)v;
        else if (!strcmp(key, "eta")) c->eta = v;
        else if (!strcmp(key, "zeta")) c->zeta = v;
        else if (!strcmp(key, "f_min")) c->f_min = v;
        else if (!strcmp(key, "f_max")) c->f_max = v;
        else if (!strcmp(key, "n_freq")) c->n_freq = (int)v;
        else if (!strcmp(key, "n_sensors")) c->n_sensors = (int)v;
        else if (!strcmp(key, "dt")) c->dt = v;
        else if (!strcmp(key, "n_steps")) c->n_steps = (int)v;
    }
    fclose(f);
}

/* Symmetric band storage: A[i*NB + d] = A(i, i+d). */
static void assemble(const cfg_t *c, double *K, double *M, int ndof)
{
    double h = c->length / c->n_elem;
    double k0 = c->E * c->Iz / (h * h * h), m0 = c->rho * c->area * h / 420.0;
    double ke[4][4] = {{12, 6 * h, -12, 6 * h},
                       {6 * h, 4 * h * h, -6 * h, 2 * h * h},
                       {-12, -6 * h, 12, -6 * h},
                       {6 * h, 2 * h * h, -6 * h, 4 * h * h}};
    double me[4][4] = {{156, 22 * h, 54, -13 * h},
                       {22 * h, 4 * h * h, 13 * h, -3 * h * h},
                       {54, 13 * h, 156, -22 * h},
                       {-13 * h, -3 * h * h, -22 * h, 4 * h * h}};
    memset(K, 0, sizeof(double) * (size_t)ndof * NB);
    memset(M, 0, sizeof(double) * (size_t)ndof * NB);
    for (int e = 0; e < c->n_elem; e++) {
        int g[4] = {2 * e - 2, 2 * e - 1, 2 * e, 2 * e + 1}; /* clamped node 0 removed */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                if (g[a] < 0 || g[b] < 0 || g[b] < g[a]) continue;
                K[g[a] * NB + (g[b] - g[a])] += k0 * ke[a][b];
                M[g[a] * NB + (g[b] - g[a])] += m0 * me[a][b];
            }
    }
}

static void band_matvec(const double *A, int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++) y[i] = 0.0;
    for (int i = 0; i < n; i++) {
        y[i] += A[i * NB] * x[i];
        for (int d = 1; d < NB && i + d < n; d++) {
            y[i] += A[i * NB + d] * x[i + d];
            y[i + d] += A[i * NB + d] * x[i];
        }
    }
}

/* In-place banded LDL^T: A(i,i) <- D_i, A(i,i+d) <- L(i+d,i). */
static void band_ldl(double *A, int n)
{
    for (int j = 0; j < n; j++) {
        double dj = A[j * NB];
        for (int d = 1; d < NB && j + d < n; d++) {
            double lij = A[j * NB + d] / dj;
            for (int e = d; e < NB && j + e < n; e++)
                A[(j + d) * NB + (e - d)] -= lij * A[j * NB + e];
            /* store L later to keep A(j,j+e) intact for the loop above */
        }
        for (int d = 1; d < NB && j + d < n; d++) A[j * NB + d] /= dj;
    }
}

static void band_ldl_solve(const double *F, int n, double *x)
{
    for (int i = 0; i < n; i++)
        for (int d = 1; d < NB && i + d < n; d++) x[i + d] -= F[i * NB + d] * x[i];
    for (int i = 0; i < n; i++) x[i] /= F[i * NB];
    for (int i = n - 1; i >= 0; i--)
        for (int d = 1; d < NB && i + d < n; d++) x[i] -= F[i * NB + d] * x[i + d];
}

/* Cyclic Jacobi for a small symmetric matrix; V receives eigenvectors. */
static void jacobi_eig(double *A, int q, double *V)
{
    for (int i = 0; i < q * q; i++) V[i] = 0;
    for (int i = 0; i < q; i++) V[i * q + i] = 1;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0, dia = 0;
        for (int i = 0; i < q; i++) {
            dia += A[i * q + i] * A[i * q + i];
            for (int j = i + 1; j < q; j++) off += A[i * q + j] * A[i * q + j];
        }
        if (off < 1e-30 * dia) break;
        for (int p = 0; p < q; p++)
            for (int r = p + 1; r < q; r++) {
                double apr = A[p * q + r];
                if (fabs(apr) < 1e-300) continue;
                double th = (A[r * q + r] - A[p * q + p]) / (2 * apr);
                double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1));
                double cs = 1 / sqrt(t * t + 1), sn = t * cs;
                for (int k = 0; k < q; k++) {
                    double akp = A[k * q + p], akr = A[k * q + r];
                    A[k * q + p] = cs * akp - sn * akr;
                    A[k * q + r] = sn * akp + cs * akr;
                }
                for (int k = 0; k < q; k++) {
                    double apk = A[p * q + k], ark = A[r * q + k];
                    A[p * q + k] = cs * apk - sn * ark;
                    A[r * q + k] = sn * apk + cs * ark;
                }
                for (int k = 0; k < q; k++) {
                    double vkp = V[k * q + p], vkr = V[k * q + r];
                    V[k * q + p] = cs * vkp - sn * vkr;
                    V[k * q + r] = sn * vkp + cs * vkr;
                }
            }
    }
}

/* Subspace iteration for the lowest p eigenpairs of K x = lambda M x. */
static int subspace_iteration(const double *K, const double *M, int n, int p, double *lam, double *phi)
{
    int q = 2 * p < p + 8 ? 2 * p : p + 8;
    if (q > MAXQ) q = MAXQ;
    double *F = malloc(sizeof(double) * (size_t)n * NB);
    memcpy(F, K, sizeof(double) * (size_t)n * NB);
    band_ldl(F, n);
    double *X = malloc(sizeof(double) * (size_t)n * q), *Y = malloc(sizeof(double) * (size_t)n * q);
    double *KY = malloc(sizeof(double) * (size_t)n * q), *MY = malloc(sizeof(double) * (size_t)n * q);
    double Kr[MAXQ * MAXQ], Mr[MAXQ * MAXQ], L[MAXQ * MAXQ], A[MAXQ * MAXQ], V[MAXQ * MAXQ], W[MAXQ * MAXQ];
    double old[MAXQ] = {0}, ev[MAXQ];
    uint64_t s = 42;
    for (int i = 0; i < n * q; i++) {
        s = s * 6364136223846793005ULL + 1;
        X[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    int it;
    for (it = 0; it < 200; it++) {
        for (int j = 0; j < q; j++) {
            /* K Y = M X, so Y^T K Y = Y^T (M X): avoids forming K Y */
            band_matvec(M, n, X + (size_t)j * n, KY + (size_t)j * n);
            memcpy(Y + (size_t)j * n, KY + (size_t)j * n, sizeof(double) * (size_t)n);
            band_ldl_solve(F, n, Y + (size_t)j * n);
            band_matvec(M, n, Y + (size_t)j * n, MY + (size_t)j * n);
        }
        for (int a = 0; a < q; a++)
            for (int b = 0; b < q; b++) {
                double sk = 0, sm = 0;
                for (int i = 0; i < n; i++) {
                    sk += Y[(size_t)a * n + i] * KY[(size_t)b * n + i];
                    sm += Y[(size_t)a * n + i] * MY[(size_t)b * n + i];
                }
                Kr[a * q + b] = sk;
                Mr[a * q + b] = sm;
            }
        /* Cholesky Mr = L L^T, A = L^-1 Kr L^-T */
        memset(L, 0, sizeof L);
        for (int j = 0; j < q; j++) {
            double d = Mr[j * q + j];
            for (int k = 0; k < j; k++) d -= L[j * q + k] * L[j * q + k];
            L[j * q + j] = sqrt(d);
            for (int i = j + 1; i < q; i++) {
                double t = Mr[i * q + j];
                for (int k = 0; k < j; k++) t -= L[i * q + k] * L[j * q + k];
                L[i * q + j] = t / L[j * q + j];
            }
        }
        for (int b = 0; b < q; b++) /* W = L^-1 Kr (column by column) */
            for (int i = 0; i < q; i++) {
                double t = Kr[i * q + b];
                for (int k = 0; k < i; k++) t -= L[i * q + k] * W[k * q + b];
                W[i * q + b] = t / L[i * q + i];
            }
        for (int a = 0; a < q; a++) /* A = W L^-T */
            for (int i = 0; i < q; i++) {
                double t = W[a * q + i];
                for (int k = 0; k < i; k++) t -= A[a * q + k] * L[i * q + k];
                A[a * q + i] = t / L[i * q + i];
            }
        jacobi_eig(A, q, V);
        for (int j = 0; j < q; j++) ev[j] = A[j * q + j];
        /* eigenvectors of the reduced problem: solve L^T z = v */
        for (int j = 0; j < q; j++)
            for (int i = q - 1; i >= 0; i--) {
                double t = V[i * q + j];
                for (int k = i + 1; k < q; k++) t -= L[k * q + i] * W[k * q + j];
                W[i * q + j] = t / L[i * q + i];
            }
        /* sort ascending */
        int idx[MAXQ];
        for (int j = 0; j < q; j++) idx[j] = j;
        for (int a = 1; a < q; a++) {
            int t = idx[a], b = a;
            while (b > 0 && ev[idx[b - 1]] > ev[t]) { idx[b] = idx[b - 1]; b--; }
            idx[b] = t;
        }
        for (int j = 0; j < q; j++) {
            double *xj = X + (size_t)j * n;
            for (int i = 0; i < n; i++) {
                double t = 0;
                for (int k = 0; k < q; k++) t += Y[(size_t)k * n + i] * W[k * q + idx[j]];
                xj[i] = t;
            }
        }
        double maxrel = 0;
        for (int j = 0; j < p; j++) {
            double rel = fabs(ev[idx[j]] - old[j]) / ev[idx[j]];
            if (rel > maxrel) maxrel = rel;
            old[j] = ev[idx[j]];
        }
        if (maxrel < 1e-10) break;
    }
    for (int j = 0; j < p; j++) {
        lam[j] = old[j];
        memcpy(phi + (size_t)j * n, X + (size_t)j * n, sizeof(double) * (size_t)n);
    }
    free(F); free(X); free(Y); free(KY); free(MY);
    return it + 1;
}

/* Binary mode file: header {magic, nmodes, ndof, offsets[nmodes]} back-patched. */
static void write_mode_file(const char *path, int p, int n, const double *lam, const double *phi)
{
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    char magic[8] = "MODES01";
    int32_t hdr[2] = {p, n};
    int64_t *offs = calloc((size_t)p, sizeof(int64_t));
    fwrite(magic, 1, 8, f);
    fwrite(hdr, sizeof hdr, 1, f);
    long table_pos = ftell(f);
    fwrite(offs, sizeof(int64_t), (size_t)p, f); /* placeholder */
    for (int j = p - 1; j >= 0; j--) {           /* stored in reverse order */
        offs[j] = ftell(f);
        double freq = sqrt(lam[j]) / (2 * M_PI);
        fwrite(&freq, sizeof freq, 1, f);
        fwrite(phi + (size_t)j * n, sizeof(double), (size_t)n, f);
    }
    if (fseek(f, table_pos, SEEK_SET) != 0) die("fseek", path);
    fwrite(offs, sizeof(int64_t), (size_t)p, f);
    fclose(f);
    free(offs);
}

static void mac_against_analytic(const char *modefile, const char *out, const cfg_t *c)
{
    FILE *f = fopen(modefile, "rb");
    if (!f) die("fopen", modefile);
    char magic[8];
    int32_t hdr[2];
    if (fread(magic, 1, 8, f) != 8 || fread(hdr, sizeof hdr, 1, f) != 1) die("fread", modefile);
    int p = hdr[0], n = hdr[1];
    int64_t *offs = malloc(sizeof(int64_t) * (size_t)p);
    if (fread(offs, sizeof(int64_t), (size_t)p, f) != (size_t)p) die("fread", modefile);
    int nn = n / 2;
    double *fe = malloc(sizeof(double) * (size_t)p * nn), *an = malloc(sizeof(double) * (size_t)p * nn);
    double *vec = malloc(sizeof(double) * (size_t)n), *freq = malloc(sizeof(double) * (size_t)p);
    for (int j = 0; j < p; j++) {
        if (fseek(f, (long)offs[j], SEEK_SET) != 0) die("fseek", modefile);
        if (fread(&freq[j], sizeof(double), 1, f) != 1 || fread(vec, sizeof(double), (size_t)n, f) != (size_t)n)
            die("fread", modefile);
        for (int i = 0; i < nn; i++) fe[(size_t)j * nn + i] = vec[2 * i];
        double bl = (j == 0) ? 1.875104 : (j == 1) ? 4.694091 : (j == 2) ? 7.854757 : (2 * j + 1) * M_PI / 2;
        double b = bl / c->length;
        double sg = (cosh(bl) + cos(bl)) / (sinh(bl) + sin(bl));
        for (int i = 0; i < nn; i++) {
            double x = c->length * (i + 1) / nn;
            an[(size_t)j * nn + i] = cosh(b * x) - cos(b * x) - sg * (sinh(b * x) - sin(b * x));
        }
    }
    fclose(f);
    FILE *o = fopen(out, "w");
    if (!o) die("fopen", out);
    fprintf(o, "# mode  f_FE[Hz]  f_analytic[Hz]  MAC row\n");
    double ea = sqrt(c->E * c->Iz / (c->rho * c->area));
    for (int a = 0; a < p; a++) {
        double bl = (a == 0) ? 1.875104 : (a == 1) ? 4.694091 : (a == 2) ? 7.854757 : (2 * a + 1) * M_PI / 2;
        fprintf(o, "%4d %12.5f %12.5f ", a + 1, freq[a], bl * bl / (c->length * c->length) * ea / (2 * M_PI));
        for (int b = 0; b < p; b++) {
            double xy = 0, xx = 0, yy = 0;
            for (int i = 0; i < nn; i++) {
                double u = fe[(size_t)a * nn + i], v = an[(size_t)b * nn + i];
                xy += u * v; xx += u * u; yy += v * v;
            }
            fprintf(o, " %6.4f", xy * xy / (xx * yy));
        }
        fputc('\n', o);
    }
    fclose(o);
    free(offs); free(fe); free(an); free(vec); free(freq);
}

/* Receptance FRF at evenly spaced sensor nodes for a unit tip force. */
static void frf_sweep(const char *path, const cfg_t *c, const double *K, const double *M, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    double complex *A = malloc(sizeof(double complex) * (size_t)n * NB);
    double complex *x = malloc(sizeof(double complex) * (size_t)n);
    fprintf(f, "# freq_Hz  |H| and phase for %d sensors (m/N, deg)\n", c->n_sensors);
    int ns = c->n_sensors;
    for (int k = 0; k < c->n_freq; k++) {
        double fr = c->f_min * pow(c->f_max / c->f_min, (double)k / (c->n_freq - 1));
        double w2 = pow(2 * M_PI * fr, 2);
        for (int i = 0; i < n * NB; i++) A[i] = K[i] * (1.0 + I * c->eta) - w2 * M[i];
        /* complex symmetric banded LDL^T */
        for (int j = 0; j < n; j++) {
            double complex dj = A[j * NB];
            for (int d = 1; d < NB && j + d < n; d++) {
                double complex l = A[j * NB + d] / dj;
                for (int e = d; e < NB && j + e < n; e++) A[(j + d) * NB + (e - d)] -= l * A[j * NB + e];
            }
            for (int d = 1; d < NB && j + d < n; d++) A[j * NB + d] /= dj;
        }
        for (int i = 0; i < n; i++) x[i] = 0;
        x[n - 2] = 1.0; /* transverse force at the tip */
        for (int i = 0; i < n; i++)
            for (int d = 1; d < NB && i + d < n; d++) x[i + d] -= A[i * NB + d] * x[i];
        for (int i = 0; i < n; i++) x[i] /= A[i * NB];
        for (int i = n - 1; i >= 0; i--)
            for (int d = 1; d < NB && i + d < n; d++) x[i] -= A[i * NB + d] * x[i + d];
        fprintf(f, "%12.5f", fr);
        for (int s = 1; s <= ns; s++) {
            int node = (n / 2) * s / ns;
            double complex h = x[2 * (node - 1)];
            fprintf(f, " %12.5e %8.2f", cabs(h), carg(h) * 180.0 / M_PI);
        }
        fputc('\n', f);
    }
    fclose(f);
    free(A);
    free(x);
}

/* Modal superposition of a tip impulse; streamed as raw float64. */
static double impulse_response(const char *path, const cfg_t *c, int p, int n, const double *lam,
                               const double *phi, const double *M)
{
    double *mv = malloc(sizeof(double) * (size_t)n);
    double amp[MAXQ], wd[MAXQ], zw[MAXQ];
    for (int j = 0; j < p; j++) {
        band_matvec(M, n, phi + (size_t)j * n, mv);
        double mj = 0;
        for (int i = 0; i < n; i++) mj += phi[(size_t)j * n + i] * mv[i];
        double w = sqrt(lam[j]);
        wd[j] = w * sqrt(1 - c->zeta * c->zeta);
        zw[j] = c->zeta * w;
        double tip = phi[(size_t)j * n + n - 2];
        amp[j] = tip * tip / (mj * wd[j]); /* unit impulse at tip, response at tip */
    }
    free(mv);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    enum { CH = 4096 };
    double buf[CH], peak = 0;
    for (int s0 = 0; s0 < c->n_steps; s0 += CH) {
        int m = c->n_steps - s0 < CH ? c->n_steps - s0 : CH;
        for (int k = 0; k < m; k++) {
            double t = (s0 + k) * c->dt, u = 0;
            for (int j = 0; j < p; j++) u += amp[j] * exp(-zw[j] * t) * sin(wd[j] * t);
            buf[k] = u;
            if (fabs(u) > peak) peak = fabs(u);
        }
        fwrite(buf, sizeof(double), (size_t)m, f);
    }
    fclose(f);
    return peak;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    char p1[4096], p2[4096];
    snprintf(p1, sizeof p1, "%s/beam.cfg", argv[1]);
    write_config(p1);
    cfg_t c;
    memset(&c, 0, sizeof c);
    read_config(p1, &c);
    int n = 2 * c.n_elem;
    double *K = malloc(sizeof(double) * (size_t)n * NB), *M = malloc(sizeof(double) * (size_t)n * NB);
    assemble(&c, K, M, n);
    double lam[MAXQ];
    double *phi = malloc(sizeof(double) * (size_t)n * c.n_modes);
    int iters = subspace_iteration(K, M, n, c.n_modes, lam, phi);

    snprintf(p1, sizeof p1, "%s/modes.bin", argv[1]);
    write_mode_file(p1, c.n_modes, n, lam, phi);
    snprintf(p2, sizeof p2, "%s/mac.txt", argv[1]);
    mac_against_analytic(p1, p2, &c);

    snprintf(p1, sizeof p1, "%s/frf.txt", argv[1]);
    frf_sweep(p1, &c, K, M, n);
    snprintf(p1, sizeof p1, "%s/tip_impulse.f64", argv[1]);
    double peak = impulse_response(p1, &c, c.n_modes, n, lam, phi, M);

    printf("ndof=%d subspace iterations=%d f1=%.4f Hz f%d=%.3f Hz peak tip=%.3e m\n", n, iters,
           sqrt(lam[0]) / (2 * M_PI), c.n_modes, sqrt(lam[c.n_modes - 1]) / (2 * M_PI), peak);
    free(K); free(M); free(phi);
    return 0;
}
