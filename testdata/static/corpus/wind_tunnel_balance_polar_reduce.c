/*
 * wind_tunnel_balance_polar_reduce.c
 *
 * Data reduction for a low-speed wind-tunnel campaign on a wing model
 * mounted on a six-component strain-gauge balance.  The program first
 * records the campaign: a text calibration (interaction) matrix and one raw
 * binary file per run, each an angle-of-attack sweep of 16 plateaus sampled
 * at 2 kHz (six bridge voltages, dynamic pressure, encoder angle; float32).
 * The analysis then works read-mostly from those files: wind-off tare from
 * the first plateau, calibrated force/moment reduction with axis rotation
 * into aerodynamic coefficients per plateau, Welch spectra of all six
 * components for buffet onset, rainflow counting of normal-force cycles for
 * balance fatigue, and a small polar / stall report.
 *
 * usage: wind_tunnel_balance_polar_reduce OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRUN 20
#define NPLAT 16
#define PLAT_LEN 4096
#define NCH 8                   /* N1 N2 A Y1 Y2 R q alpha */
#define FS 2000.0
#define NFFT 512
#define PI_D 3.14159265358979323846
#define S_REF 0.12              /* m^2 wing area */
#define C_REF 0.20              /* m chord */

typedef struct { float v[NCH]; } sample_t;

typedef struct {
    double q_nom;               /* Pa */
    double flap;                /* deg */
    double alpha[NPLAT];
    double cl[NPLAT], cd[NPLAT], cm[NPLAT];
    double cl_rms[NPLAT];
    double buffet[NPLAT];       /* band power ratio 20-80 Hz of normal force */
    double fatigue_damage;
} run_t;

static const char *outdir;
static double calib[6][6];     /* loads = calib * (bridge - zero) */
static double inv_calib[6][6];

static void die(const char *what)
{
    fprintf(stderr, "wind_tunnel: %s: %s\n", what, errno ? strerror(errno) : "bad data");
    exit(1);
}

static uint64_t rs = 0xda942042e4dd58b5ULL;
static double urand(void)
{
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (double)((rs * 0x2545f4914f6cdd1dULL) >> 11) * (1.0 / 9007199254740992.0);
}

static FILE *open_in_dir(const char *name, const char *mode)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", outdir, name) >= sizeof path) { errno = ENAMETOOLONG; die(name); }
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

static void invert6(double a[6][6], double inv[6][6])
{
    double m[6][12];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 12; j++) m[i][j] = j < 6 ? a[i][j] : (j - 6 == i);
    for (int c = 0; c < 6; c++) {
        int p = c;
        for (int r = c + 1; r < 6; r++) if (fabs(m[r][c]) > fabs(m[p][c])) p = r;
        for (int j = 0; j < 12; j++) { double t = m[c][j]; m[c][j] = m[p][j]; m[p][j] = t; }
        double d = m[c][c];
        for (int j = 0; j < 12; j++) m[c][j] /= d;
        for (int r = 0; r < 6; r++)
            if (r != c) { double f = m[r][c]; for (int j = 0; j < 12; j++) m[r][j] -= f * m[c][j]; }
    }
    for (int i = 0; i < 6; i++) for (int j = 0; j < 6; j++) inv[i][j] = m[i][j + 6];
}

/* calibration matrix with realistic small interactions, written as text */
static void write_calibration(void)
{
    static const double diag[6] = {310.0, 305.0, 95.0, 150.0, 148.0, 12.5};   /* N/mV, N*m/mV */
    FILE *f = open_in_dir("balance_calibration.txt", "w");
    if (fprintf(f, "# six-component balance interaction matrix, loads [N, N*m] per bridge output [mV/V]\n"
                   "# rows: N1 N2 A Y1 Y2 R   columns: bridge N1 N2 A Y1 Y2 R\n") < 0) die("calibration header");
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
            double v = i == j ? diag[i] * (1.0 + 0.01 * (urand() - 0.5)) : diag[i] * 0.02 * (urand() - 0.5);
            if (fprintf(f, "%s%.6e", j ? " " : "", v) < 0) die("calibration write");
        }
        if (fputc('\n', f) == EOF) die("calibration write");
    }
    if (fclose(f) != 0) die("calibration close");
}

static void load_calibration(void)
{
    FILE *f = open_in_dir("balance_calibration.txt", "r");
    int c;
    for (int skip = 0; skip < 2; skip++)
        while ((c = fgetc(f)) != '\n') if (c == EOF) die("calibration header");
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            if (fscanf(f, "%lf", &calib[i][j]) != 1) { errno = 0; die("calibration matrix"); }
    fclose(f);
    invert6(calib, inv_calib);
}

/* n standard normal deviates (Box-Muller, both outputs used) */
static void fill_gaussian(double *g, int n)
{
    for (int i = 0; i < n; i += 2) {
        double u1 = urand(), u2 = urand();
        if (u1 < 1e-300) u1 = 1e-300;
        double rad = sqrt(-2.0 * log(u1));
        g[i] = rad * cos(2.0 * PI_D * u2);
        if (i + 1 < n) g[i + 1] = rad * sin(2.0 * PI_D * u2);
    }
}

/* one run: plateau 0 wind-off, then an alpha sweep with stall and buffet */
static void record_run(int run, run_t *r)
{
    char name[64];
    snprintf(name, sizeof name, "run_%03d.raw", run);
    FILE *f = open_in_dir(name, "wb");
    static sample_t buf[PLAT_LEN];
    double zero[6];
    for (int k = 0; k < 6; k++) zero[k] = 0.05 * (urand() - 0.5);
    double clmax = 1.15 + 0.35 * r->flap / 20.0 + 0.04 * log(r->q_nom / 400.0);
    double a_stall = 13.5 - 0.12 * r->flap + 1.0 * log(r->q_nom / 400.0);
    double phase = 0.0;
    static double noise[PLAT_LEN * 12];
    for (int p = 0; p < NPLAT; p++) {
        fill_gaussian(noise, PLAT_LEN * 12);
        double alpha = p == 0 ? 0.0 : -4.0 + 1.5 * (p - 1);
        double q = p == 0 ? 0.0 : r->q_nom;
        for (int s = 0; s < PLAT_LEN; s++) {
            const double *g = &noise[s * 12];
            double a = alpha + 0.02 * sin(2 * PI_D * 0.7 * s / FS);
            double ar = a * PI_D / 180.0;
            double cl = 2 * PI_D * 0.85 * (ar + r->flap * 0.012);
            double post = a - a_stall;
            if (post > 0) cl = clmax - 0.08 * post;
            if (cl > clmax) cl = clmax;
            double buff = post > -2.0 ? 0.02 * (post + 2.0) : 0.0;
            phase += 2 * PI_D * (35.0 + 8.0 * sin(s * 0.001)) / FS;
            cl += buff * (sin(phase) + 0.6 * g[0]);
            double cd = 0.012 + 0.05 * cl * cl + (post > 0 ? 0.03 * post : 0.0);
            double cm = -0.05 - 0.02 * r->flap / 10.0 + (post > 0 ? -0.015 * post : 0.0);
            double qs = q * (1.0 + 0.004 * g[1]);
            double L = qs * S_REF * cl, D = qs * S_REF * cd, M = qs * S_REF * C_REF * cm;
            /* body axes */
            double N = L * cos(ar) + D * sin(ar), A = D * cos(ar) - L * sin(ar);
            double load[6] = {0.5 * N + M / 0.1, 0.5 * N - M / 0.1, A, 0.3 * g[2], 0.3 * g[3], 0.02 * g[4]};
            for (int k = 0; k < 6; k++) {
                double v = zero[k];
                for (int j = 0; j < 6; j++) v += inv_calib[k][j] * load[j];
                buf[s].v[k] = (float)(v + 2e-5 * g[5 + k]);
            }
            buf[s].v[6] = (float)(qs + 0.5 * g[11]);
            buf[s].v[7] = (float)(a + 0.005 * g[0] * g[1]);
        }
        if (fwrite(buf, sizeof(sample_t), PLAT_LEN, f) != PLAT_LEN) die("write raw run");
    }
    if (fclose(f) != 0) die("close raw run");
}

static FILE *open_run(int run)
{
    char name[64];
    snprintf(name, sizeof name, "run_%03d.raw", run);
    return open_in_dir(name, "rb");
}

/* wind-off zero from plateau 0 */
static void read_tare(int run, double zero[6])
{
    FILE *f = open_run(run);
    static sample_t buf[PLAT_LEN];
    if (fread(buf, sizeof(sample_t), PLAT_LEN, f) != PLAT_LEN) die("read tare plateau");
    fclose(f);
    for (int k = 0; k < 6; k++) {
        double s = 0.0;
        for (int i = 0; i < PLAT_LEN; i++) s += buf[i].v[k];
        zero[k] = s / PLAT_LEN;
    }
}

/* calibrated loads -> wind-axis coefficients, plateau by plateau */
static void reduce_coefficients(int run, const double zero[6], run_t *r)
{
    FILE *f = open_run(run);
    static sample_t buf[PLAT_LEN];
    for (int p = 0; p < NPLAT; p++) {
        if (fread(buf, sizeof(sample_t), PLAT_LEN, f) != PLAT_LEN) die("read plateau");
        double scl = 0, scd = 0, scm = 0, scl2 = 0, sa = 0;
        for (int i = 0; i < PLAT_LEN; i++) {
            double br[6], ld[6];
            for (int k = 0; k < 6; k++) br[k] = buf[i].v[k] - zero[k];
            for (int k = 0; k < 6; k++) {
                double v = 0.0;
                for (int j = 0; j < 6; j++) v += calib[k][j] * br[j];
                ld[k] = v;
            }
            double q = buf[i].v[6], a = buf[i].v[7] * PI_D / 180.0;
            double N = ld[0] + ld[1], A = ld[2], M = 0.1 * (ld[0] - ld[1]) / 2.0;
            double L = N * cos(a) - A * sin(a), D = N * sin(a) + A * cos(a);
            double qs = q > 1.0 ? q * S_REF : 1.0;
            double cl = L / qs;
            scl += cl; scl2 += cl * cl; scd += D / qs; scm += M / (qs * C_REF); sa += buf[i].v[7];
        }
        r->alpha[p] = sa / PLAT_LEN;
        r->cl[p] = scl / PLAT_LEN; r->cd[p] = scd / PLAT_LEN; r->cm[p] = scm / PLAT_LEN;
        double var = scl2 / PLAT_LEN - r->cl[p] * r->cl[p];
        r->cl_rms[p] = var > 0 ? sqrt(var) : 0.0;
    }
    fclose(f);
}

static void fft(double complex *x, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { double complex t = x[i]; x[i] = x[j]; x[j] = t; }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double complex w = cexp(-2.0 * I * PI_D / len);
        for (int i = 0; i < n; i += len) {
            double complex wk = 1.0;
            for (int k = 0; k < len / 2; k++) {
                double complex u = x[i + k], v = x[i + k + len / 2] * wk;
                x[i + k] = u + v; x[i + k + len / 2] = u - v;
                wk *= w;
            }
        }
    }
}

/* Welch PSD of each balance bridge per plateau; buffet = 20-80 Hz share of normal force */
static void buffet_spectra(int run, run_t *r, FILE *psd_out)
{
    FILE *f = open_run(run);
    static sample_t buf[PLAT_LEN];
    double complex seg[NFFT];
    double win[NFFT], psd[6][NFFT / 2 + 1];
    for (int i = 0; i < NFFT; i++) win[i] = 0.5 - 0.5 * cos(2 * PI_D * i / (NFFT - 1));
    for (int p = 0; p < NPLAT; p++) {
        if (fread(buf, sizeof(sample_t), PLAT_LEN, f) != PLAT_LEN) die("read plateau for psd");
        memset(psd, 0, sizeof psd);
        int nseg = 0;
        for (int s0 = 0; s0 + NFFT <= PLAT_LEN; s0 += NFFT / 2, nseg++)
            for (int k = 0; k < 6; k++) {
                double mean = 0.0;
                for (int i = 0; i < NFFT; i++) mean += buf[s0 + i].v[k];
                mean /= NFFT;
                for (int i = 0; i < NFFT; i++) seg[i] = (buf[s0 + i].v[k] - mean) * win[i];
                fft(seg, NFFT);
                for (int b = 0; b <= NFFT / 2; b++) psd[k][b] += creal(seg[b] * conj(seg[b]));
            }
        double band = 0.0, tot = 0.0;
        for (int b = 1; b <= NFFT / 2; b++) {
            double fhz = b * FS / NFFT, pn = psd[0][b] + psd[1][b];
            tot += pn;
            if (fhz >= 20.0 && fhz <= 80.0) band += pn;
        }
        r->buffet[p] = tot > 0 ? band / tot : 0.0;
        /* keep a compact spectrum of N1 per plateau (first 64 bins) */
        if (fprintf(psd_out, "%d %d", run, p) < 0) die("psd write");
        for (int b = 0; b < 64; b++)
            if (fprintf(psd_out, " %.3e", psd[0][b] / (nseg * FS * NFFT)) < 0) die("psd write");
        if (fputc('\n', psd_out) == EOF) die("psd write");
    }
    fclose(f);
}

/* rainflow cycle counting of the normal-force bridge over the whole run, Miner damage */
static void rainflow_fatigue(int run, const double zero[6], run_t *r)
{
    FILE *f = open_run(run);
    static sample_t buf[PLAT_LEN];
    static double tp[NPLAT * PLAT_LEN];     /* turning points */
    double stack[4096];
    int ntp = 0;
    double prev = 0.0, prev2 = 0.0;
    int first = 1;
    for (int p = 0; p < NPLAT; p++) {
        if (fread(buf, sizeof(sample_t), PLAT_LEN, f) != PLAT_LEN) die("read plateau for rainflow");
        for (int i = 0; i < PLAT_LEN; i++) {
            double x = 0.0;
            for (int j = 0; j < 6; j++) x += (calib[0][j] + calib[1][j]) * (buf[i].v[j] - zero[j]);
            if (first) { prev2 = prev = x; first = 0; tp[ntp++] = x; continue; }
            if ((x - prev) * (prev - prev2) < 0.0) tp[ntp++] = prev;
            prev2 = prev; prev = x;
        }
    }
    fclose(f);
    int top = 0;
    double damage = 0.0;
    const double s_ref = 200.0, m_exp = 5.0, n_ref = 1e7;   /* S-N curve of the flexure */
    for (int i = 0; i < ntp; i++) {
        if (top >= 4096) top = 0;                           /* residue overflow: restart */
        stack[top++] = tp[i];
        while (top >= 3) {
            double x = fabs(stack[top - 1] - stack[top - 2]), y = fabs(stack[top - 2] - stack[top - 3]);
            if (x < y) break;
            damage += (top == 3 ? 0.5 : 1.0) * pow(y / s_ref, m_exp) / n_ref;
            if (top == 3) { stack[0] = stack[1]; stack[1] = stack[2]; top = 2; }
            else { stack[top - 3] = stack[top - 1]; top -= 2; }
        }
    }
    r->fatigue_damage = damage;
}

static void write_polar_report(const run_t *runs)
{
    FILE *f = open_in_dir("polar_report.txt", "w");
    int ok = fprintf(f, "run  q[Pa]  flap  alpha    CL       CD       Cm     CLrms  buffet\n") >= 0;
    for (int r = 0; r < NRUN && ok; r++)
        for (int p = 1; p < NPLAT && ok; p++)
            ok = fprintf(f, "%3d %6.0f %5.1f %6.2f %8.4f %8.5f %8.4f %7.4f %6.3f\n", r, runs[r].q_nom, runs[r].flap,
                         runs[r].alpha[p], runs[r].cl[p], runs[r].cd[p], runs[r].cm[p], runs[r].cl_rms[p],
                         runs[r].buffet[p]) >= 0;
    ok = ok && fprintf(f, "\nrun  CLmax  alpha_CLmax  L/Dmax  buffet_onset  damage\n") >= 0;
    for (int r = 0; r < NRUN && ok; r++) {
        int pm = 1;
        double ld = 0.0, onset = NAN;
        for (int p = 1; p < NPLAT; p++) {
            if (runs[r].cl[p] > runs[r].cl[pm]) pm = p;
            if (runs[r].cd[p] > 0 && runs[r].cl[p] / runs[r].cd[p] > ld) ld = runs[r].cl[p] / runs[r].cd[p];
            if (isnan(onset) && runs[r].buffet[p] > 0.5) onset = runs[r].alpha[p];
        }
        ok = fprintf(f, "%3d %7.4f %9.2f %9.2f %10.2f %10.3e\n", r, runs[r].cl[pm], runs[r].alpha[pm], ld, onset,
                     runs[r].fatigue_damage) >= 0;
    }
    if (!ok || fclose(f) != 0) die("polar report");
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    outdir = argv[1];
    static run_t runs[NRUN];

    write_calibration();
    load_calibration();
    for (int r = 0; r < NRUN; r++) {
        runs[r].q_nom = 300.0 + 100.0 * (r % 5);
        runs[r].flap = 5.0 * (r / 5);
        record_run(r, &runs[r]);
    }

    FILE *psd = open_in_dir("n1_spectra.txt", "w");
    double dmax = 0.0, clmax = 0.0;
    for (int r = 0; r < NRUN; r++) {
        double zero[6];
        read_tare(r, zero);
        reduce_coefficients(r, zero, &runs[r]);
        buffet_spectra(r, &runs[r], psd);
        rainflow_fatigue(r, zero, &runs[r]);
        if (runs[r].fatigue_damage > dmax) dmax = runs[r].fatigue_damage;
        for (int p = 1; p < NPLAT; p++) if (runs[r].cl[p] > clmax) clmax = runs[r].cl[p];
    }
    if (fclose(psd) != 0) die("close spectra");
    write_polar_report(runs);
    printf("wind tunnel campaign: %d runs x %d plateaus reduced, max CL %.3f, max balance damage %.3e\n",
           NRUN, NPLAT, clmax, dmax);
    return 0;
}
