/*
 * geothermal_well_log_heatflow.c
 *
 * Read-mostly analysis of a geothermal exploration well field.  The program
 * first produces its input data set: for each well an LAS 2.0 wireline log
 * (gamma ray, resistivity, bulk density, neutron porosity, logged
 * temperature) and a binary distributed-temperature-sensing (DTS) heat-up
 * survey recorded after drilling-fluid circulation stopped.  It then reads
 * everything back: the LAS files are parsed for per-formation statistics and
 * thermal conductivity, the DTS traces are streamed for a per-depth Horner
 * extrapolation to static formation temperature and feed-zone detection, a
 * Bullard plot gives the conductive heat flow, gamma-ray logs are
 * cross-correlated between wells to correlate formation tops, and a short
 * text report is written.
 *
 * Usage: geothermal_well_log_heatflow OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWELL 6
#define NFORM 7
#define LAS_STEP 0.075
#define LAS_N 40000                /* 3000 m */
#define DTS_DZ 0.5
#define DTS_NZ 6000
#define DTS_NT 96                  /* traces during heat-up */
#define CIRC_HOURS 30.0
#define NULLV -999.25
#define MAXLAG 400                 /* samples for GR cross-correlation */

static const char *outdir;
static uint64_t rng = 88172645463325252ull;

static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "geothermal: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

typedef struct {
    double top[NFORM + 1];         /* depth of formation tops, m; top[NFORM] = TD */
    double gr[NFORM], res[NFORM], rhob[NFORM], phi[NFORM], kcond[NFORM];
    double t_surface, heatflow;    /* true model values */
    double feed_depth[3], feed_strength[3];
} well_model;

typedef struct {
    double depth[LAS_N], gr[LAS_N], res[LAS_N], rhob[LAS_N], nphi[LAS_N], temp[LAS_N];
    int n;
} las_log;

static well_model wells[NWELL];
static las_log logs[NWELL];
static double tform_las[NWELL][LAS_N], tform_dts[NWELL][DTS_NZ];   /* true static temperatures */

static const char *form_name[NFORM] = {"Quaternary fill", "Upper tuff", "Ignimbrite", "Mudstone cap",
                                       "Andesite", "Altered breccia", "Greywacke basement"};

static double formation_temperature(const well_model *m, double z);

/* Layer-cake geology with dipping tops and per-well property variation; the true static
 * temperature profile of each well is tabulated on the LAS and DTS depth grids. */
static void build_well_models(void)
{
    const double base_thick[NFORM] = {120, 380, 300, 420, 650, 500, 1000};
    const double gr0[NFORM] = {45, 70, 95, 120, 55, 80, 105};
    const double res0[NFORM] = {30, 12, 40, 2.5, 60, 8, 150};
    const double rho0[NFORM] = {1.95, 2.10, 2.25, 2.35, 2.55, 2.45, 2.65};
    const double k0[NFORM] = {1.2, 1.1, 1.6, 1.3, 2.1, 1.9, 2.8};
    for (int w = 0; w < NWELL; w++) {
        double z = 0.0, dip = 0.04 * w;
        for (int f = 0; f < NFORM; f++) {
            wells[w].top[f] = z;
            z += base_thick[f] * (1.0 + dip * (f % 3 - 1) + 0.05 * gauss());
            wells[w].gr[f] = gr0[f] * (1.0 + 0.08 * gauss());
            wells[w].res[f] = res0[f] * exp(0.2 * gauss());
            wells[w].rhob[f] = rho0[f] + 0.03 * gauss();
            wells[w].phi[f] = fmax(0.02, (2.65 - wells[w].rhob[f]) / 1.65);
            wells[w].kcond[f] = k0[f] * (1.0 + 0.05 * gauss());
        }
        wells[w].top[NFORM] = z;
        wells[w].t_surface = 14.0 + gauss();
        wells[w].heatflow = 0.11 + 0.02 * w / (NWELL - 1.0);  /* W/m2 */
        for (int k = 0; k < 3; k++) {
            wells[w].feed_depth[k] = 900.0 + 600.0 * k + 200.0 * urand();
            wells[w].feed_strength[k] = 6.0 + 10.0 * urand();
        }
        for (int i = 0; i < LAS_N; i++) tform_las[w][i] = formation_temperature(&wells[w], i * LAS_STEP);
        for (int k = 0; k < DTS_NZ; k++) tform_dts[w][k] = formation_temperature(&wells[w], k * DTS_DZ);
    }
}

static int formation_at(const well_model *m, double z)
{
    for (int f = NFORM - 1; f >= 0; f--)
        if (z >= m->top[f]) return f;
    return 0;
}

/* Conductive geotherm: T(z) = Ts + q * integral dz / k. */
static double formation_temperature(const well_model *m, double z)
{
    double t = m->t_surface, zz = 0.0;
    for (int f = 0; f < NFORM && zz < z; f++) {
        double zb = fmin(z, m->top[f + 1]);
        if (zb > zz) t += m->heatflow * (zb - zz) / m->kcond[f];
        zz = zb;
    }
    return t;
}

/* Write an LAS 2.0 file with fprintf; a few tool-failure gaps are written as NULL. */
static void write_las_file(int w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/GTW-%d.las", outdir, w + 1);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    const well_model *m = &wells[w];
    if (fprintf(f, "~VERSION INFORMATION\n VERS.   2.0 : CWLS LOG ASCII STANDARD - VERSION 2.0\n"
                   " WRAP.   NO  : ONE LINE PER DEPTH STEP\n~WELL INFORMATION\n"
                   " STRT.M  %.4f : START DEPTH\n STOP.M  %.4f : STOP DEPTH\n STEP.M  %.4f : STEP\n"
                   " NULL.   %.2f : NULL VALUE\n WELL.   GTW-%d : WELL\n FLD .   CALDERA EAST : FIELD\n"
                   "~CURVE INFORMATION\n DEPT.M : depth\n GR  .GAPI : gamma ray\n RES .OHMM : deep resistivity\n"
                   " RHOB.G/C3 : bulk density\n NPHI.V/V : neutron porosity\n TEMP.DEGC : logged temperature\n"
                   "~A  DEPT       GR        RES       RHOB     NPHI     TEMP\n",
                0.0, (LAS_N - 1) * LAS_STEP, LAS_STEP, NULLV, w + 1) < 0)
        die("fprintf", path);
    double gr_s = 0.0, res_s = 0.0;
    int gap_left = 0;
    for (int i = 0; i < LAS_N; i++) {
        double z = i * LAS_STEP;
        int fm = formation_at(m, z);
        gr_s = 0.92 * gr_s + 0.08 * 8.0 * gauss();          /* correlated heterogeneity */
        res_s = 0.95 * res_s + 0.05 * 0.4 * gauss();
        double gr = m->gr[fm] + gr_s + 2.0 * gauss();
        double res = m->res[fm] * exp(res_s);
        double rho = m->rhob[fm] + 0.015 * gauss();
        double phi = m->phi[fm] + 0.01 * gauss();
        double t = tform_las[w][i] * 0.82 + 0.18 * (m->t_surface + 0.03 * z) + 0.05 * gauss();
        if (gap_left == 0 && urand() < 2e-4) gap_left = 20 + (int)(60 * urand());
        if (gap_left > 0) {
            gap_left--;
            if (fprintf(f, "%9.3f %9.2f %9.2f %9.2f %9.2f %9.2f\n", z, NULLV, NULLV, NULLV, NULLV, t) < 0)
                die("fprintf", path);
        } else if (fprintf(f, "%9.3f %9.3f %9.4f %9.4f %9.4f %9.3f\n", z, gr, res, rho, phi, t) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Binary DTS heat-up survey: header then DTS_NT float traces of DTS_NZ samples. */
static void write_dts_survey(int w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/GTW-%d_heatup.dts", outdir, w + 1);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    const well_model *m = &wells[w];
    int32_t hdr[4] = {0x44545331, DTS_NZ, DTS_NT, w + 1};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("fwrite", path);
    static float trace[DTS_NZ];
    const double *tform = tform_dts[w];
    for (int it = 0; it < DTS_NT; it++) {
        double dt_h = 2.0 * pow(1.045, it);                 /* shut-in time */
        double horner = log((CIRC_HOURS + dt_h) / dt_h);
        float tcode = (float)dt_h;
        if (fwrite(&tcode, sizeof tcode, 1, f) != 1) die("fwrite", path);
        for (int k = 0; k < DTS_NZ; k++) {
            double z = k * DTS_DZ;
            double tmud = m->t_surface + 0.012 * z;          /* circulating fluid temperature */
            double slope = 0.55 * (tform[k] - tmud);
            double feed = 0.0;
            for (int q = 0; q < 3; q++) {
                double d = (z - m->feed_depth[q]) / 6.0;
                feed -= m->feed_strength[q] * exp(-d * d) * exp(-dt_h / 40.0);  /* cold feed zone */
            }
            trace[k] = (float)(tform[k] - slope * horner + feed + 0.08 * gauss());
        }
        if (fwrite(trace, sizeof(float), DTS_NZ, f) != DTS_NZ) die("fwrite", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Parse an LAS file: skip sections until ~A, then one row per line; NULLs become NAN. */
static void read_las_file(int w, las_log *lg)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/GTW-%d.las", outdir, w + 1);
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    int in_data = 0;
    double nullv = -9999.0;
    lg->n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '~') { in_data = (line[1] == 'A'); continue; }
        if (!in_data) {
            if (strncmp(line, " NULL.", 6) == 0) nullv = strtod(line + 6, NULL);
            continue;
        }
        if (lg->n >= LAS_N) break;
        char *p = line, *e;
        double v[6];
        int k;
        for (k = 0; k < 6; k++) {
            v[k] = strtod(p, &e);
            if (e == p) break;
            p = e;
        }
        if (k != 6) { fprintf(stderr, "geothermal: bad LAS row in %s\n", path); exit(2); }
        for (k = 1; k < 6; k++) if (v[k] == nullv) v[k] = NAN;
        int i = lg->n++;
        lg->depth[i] = v[0]; lg->gr[i] = v[1]; lg->res[i] = v[2];
        lg->rhob[i] = v[3]; lg->nphi[i] = v[4]; lg->temp[i] = v[5];
    }
    if (ferror(f)) die("fgets", path);
    if (fclose(f) != 0) die("fclose", path);
}

typedef struct { double mean_gr, sd_gr, med_res, mean_rho, mean_phi, k_est; int n; } form_stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per-formation statistics; conductivity from a geometric-mean porosity mixing law. */
static void formation_statistics(int w, form_stats st[NFORM])
{
    static double buf[LAS_N];
    const las_log *lg = &logs[w];
    for (int fm = 0; fm < NFORM; fm++) {
        double s = 0, s2 = 0, sr = 0, sp = 0;
        int n = 0, nr = 0;
        for (int i = 0; i < lg->n; i++) {
            if (formation_at(&wells[w], lg->depth[i]) != fm || isnan(lg->gr[i])) continue;
            s += lg->gr[i]; s2 += lg->gr[i] * lg->gr[i]; sr += lg->rhob[i]; sp += lg->nphi[i];
            buf[nr++] = lg->res[i];
            n++;
        }
        qsort(buf, (size_t)nr, sizeof(double), cmp_double);
        st[fm].n = n;
        st[fm].mean_gr = n ? s / n : NAN;
        st[fm].sd_gr = n ? sqrt(fmax(0.0, s2 / n - st[fm].mean_gr * st[fm].mean_gr)) : NAN;
        st[fm].med_res = nr ? buf[nr / 2] : NAN;
        st[fm].mean_rho = n ? sr / n : NAN;
        st[fm].mean_phi = n ? sp / n : NAN;
        double kmatrix = 1.0 + 1.8 * (st[fm].mean_rho - 1.9) / 0.75, kwater = 0.6;
        double phi = fmin(0.6, fmax(0.01, st[fm].mean_phi));
        st[fm].k_est = pow(kmatrix, 1.0 - phi) * pow(kwater, phi);
    }
}

/* Horner extrapolation per depth: T(dt) = Tf - m*ln((tc+dt)/dt); streams all traces once. */
static void horner_extrapolation(int w, double *tstatic, double *feed_signal)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/GTW-%d_heatup.dts", outdir, w + 1);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    int32_t hdr[4];
    if (fread(hdr, sizeof hdr, 1, f) != 1) die("fread header", path);
    if (hdr[0] != 0x44545331 || hdr[1] != DTS_NZ || hdr[2] != DTS_NT) {
        fprintf(stderr, "geothermal: bad DTS header in %s\n", path);
        exit(2);
    }
    static double sx[DTS_NZ], sy[DTS_NZ], sxy[DTS_NZ], sxx[DTS_NZ], first[DTS_NZ], last[DTS_NZ];
    static float trace[DTS_NZ];
    memset(sx, 0, sizeof sx); memset(sy, 0, sizeof sy); memset(sxy, 0, sizeof sxy); memset(sxx, 0, sizeof sxx);
    int nfit = 0;
    for (int it = 0; it < DTS_NT; it++) {
        float tcode;
        if (fread(&tcode, sizeof tcode, 1, f) != 1) die("fread time", path);
        if (fread(trace, sizeof(float), DTS_NZ, f) != DTS_NZ) die("fread trace", path);
        double x = log((CIRC_HOURS + tcode) / tcode);
        for (int k = 0; k < DTS_NZ; k++) {
            if (it == 0) first[k] = trace[k];
            if (it == DTS_NT - 1) last[k] = trace[k];
        }
        if (tcode < 24.0) continue;                            /* only late-time straight line */
        nfit++;
        for (int k = 0; k < DTS_NZ; k++) {
            sx[k] += x; sy[k] += trace[k]; sxy[k] += x * trace[k]; sxx[k] += x * x;
        }
    }
    if (fclose(f) != 0) die("fclose", path);
    for (int k = 0; k < DTS_NZ; k++) {
        double den = nfit * sxx[k] - sx[k] * sx[k];
        double b = (nfit * sxy[k] - sx[k] * sy[k]) / den;
        tstatic[k] = (sy[k] - b * sx[k]) / nfit;
        feed_signal[k] = (last[k] - first[k]);
    }
}

/* Feed zones: local peaks of the detrended heat-up difference (second difference). */
static int detect_feed_zones(const double *sig, double *zones, int maxz)
{
    static double hp[DTS_NZ];
    int n = 0;
    for (int k = 0; k < DTS_NZ; k++) {
        double s = 0;
        int c = 0;
        for (int d = -60; d <= 60; d++) {
            int kk = k + d;
            if (kk < 0 || kk >= DTS_NZ) continue;
            s += sig[kk]; c++;
        }
        hp[k] = sig[k] - s / c;
    }
    for (int k = 20; k < DTS_NZ - 20 && n < maxz; k++) {
        if (hp[k] < 2.0) continue;
        int peak = 1;
        for (int d = -20; d <= 20; d++) if (hp[k + d] > hp[k]) { peak = 0; break; }
        if (peak) zones[n++] = k * DTS_DZ;
    }
    return n;
}

/* Re-read a +-30 m window around each feed zone from every trace (fseek + fread) and
 * fit the exponential recovery of the cold anomaly: ln(A) = ln(A0) - dt/tau. */
static void feed_zone_recovery(int w, const double *zones, int nz, double *tau)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/GTW-%d_heatup.dts", outdir, w + 1);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    enum { HALF = 60 };
    float win[2 * HALF + 1];
    for (int z = 0; z < nz; z++) {
        int k0 = (int)(zones[z] / DTS_DZ) - HALF;
        if (k0 < 0) k0 = 0;
        if (k0 + 2 * HALF + 1 > DTS_NZ) k0 = DTS_NZ - 2 * HALF - 1;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int n = 0;
        for (int it = 0; it < DTS_NT; it++) {
            long trace_off = 16L + (long)it * (long)(sizeof(float) * (DTS_NZ + 1));
            float tcode;
            if (fseek(f, trace_off, SEEK_SET) != 0) die("fseek", path);
            if (fread(&tcode, sizeof tcode, 1, f) != 1) die("fread time", path);
            if (fseek(f, (long)sizeof(float) * k0, SEEK_CUR) != 0) die("fseek", path);
            if (fread(win, sizeof(float), 2 * HALF + 1, f) != 2 * HALF + 1) die("fread window", path);
            double edge = 0.5 * (win[0] + win[2 * HALF]), centre = 0.0;
            for (int d = -3; d <= 3; d++) centre += win[HALF + d] / 7.0;
            double a = edge - centre;
            if (a > 0.3) {
                double y = log(a);
                sx += tcode; sy += y; sxx += (double)tcode * tcode; sxy += tcode * y; n++;
            }
        }
        double b = n > 2 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0.0;
        tau[z] = b < 0 ? -1.0 / b : NAN;
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Bullard plot: T vs thermal resistance R(z) = sum dz/k; slope = heat flow. */
static double bullard_heatflow(int w, const double *tstatic, const form_stats st[NFORM])
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, r = 0;
    int n = 0;
    for (int k = 0; k < DTS_NZ; k++) {
        double z = k * DTS_DZ;
        int fm = formation_at(&wells[w], z);
        r += DTS_DZ / st[fm].k_est;
        if (z < 200.0) continue;
        sx += r; sy += tstatic[k]; sxx += r * r; sxy += r * tstatic[k]; n++;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* Normalised cross-correlation of GR logs (well w against well 0): best lag in metres. */
static double correlate_gamma(int w, double *best_r)
{
    const las_log *a = &logs[0], *b = &logs[w];
    int n = a->n < b->n ? a->n : b->n;
    double best = -2.0;
    int bestlag = 0;
    for (int lag = -MAXLAG; lag <= MAXLAG; lag += 2) {
        double s1 = 0, s2 = 0, s11 = 0, s22 = 0, s12 = 0;
        int c = 0;
        for (int i = 2000; i < n - 2000; i += 3) {
            int j = i + lag;
            double x = a->gr[i], y = b->gr[j];
            if (isnan(x) || isnan(y)) continue;
            s1 += x; s2 += y; s11 += x * x; s22 += y * y; s12 += x * y; c++;
        }
        double cov = s12 / c - (s1 / c) * (s2 / c);
        double r = cov / sqrt((s11 / c - (s1 / c) * (s1 / c)) * (s22 / c - (s2 / c) * (s2 / c)));
        if (r > best) { best = r; bestlag = lag; }
    }
    *best_r = best;
    return bestlag * LAS_STEP;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    build_well_models();
    for (int w = 0; w < NWELL; w++) {
        write_las_file(w);
        write_dts_survey(w);
    }

    char path[4096];
    snprintf(path, sizeof path, "%s/heatflow_report.txt", outdir);
    FILE *rep = fopen(path, "w");
    if (!rep) die("fopen", path);
    static double tstatic[DTS_NZ], feed[DTS_NZ];
    double qsum = 0.0;
    int nfeed_total = 0;
    for (int w = 0; w < NWELL; w++) read_las_file(w, &logs[w]);
    for (int w = 0; w < NWELL; w++) {
        form_stats st[NFORM];
        formation_statistics(w, st);
        horner_extrapolation(w, tstatic, feed);
        double zones[16];
        int nz = detect_feed_zones(feed, zones, 16);
        double tau[16];
        feed_zone_recovery(w, zones, nz, tau);
        double q = bullard_heatflow(w, tstatic, st);
        double r, lag = correlate_gamma(w, &r);
        qsum += q;
        nfeed_total += nz;
        if (fprintf(rep, "Well GTW-%d  rows %d  heat flow %.1f mW/m2 (model %.1f)  T(2900 m) %.1f C  "
                         "GR lag vs GTW-1 %.2f m (r=%.3f)\n",
                    w + 1, logs[w].n, 1000 * q, 1000 * wells[w].heatflow, tstatic[(int)(2900 / DTS_DZ)], lag, r) < 0)
            die("fprintf", path);
        for (int fm = 0; fm < NFORM; fm++)
            if (fprintf(rep, "  %-20s n=%6d GR %6.1f+-%5.1f  Rt %7.2f  RHOB %.3f  NPHI %.3f  k %.2f W/m/K\n",
                        form_name[fm], st[fm].n, st[fm].mean_gr, st[fm].sd_gr, st[fm].med_res, st[fm].mean_rho,
                        st[fm].mean_phi, st[fm].k_est) < 0)
                die("fprintf", path);
        for (int z = 0; z < nz; z++)
            if (fprintf(rep, "  feed zone at %.1f m, recovery time constant %.1f h\n", zones[z], tau[z]) < 0)
                die("fprintf", path);
    }
    if (fclose(rep) != 0) die("fclose", path);
    printf("geothermal: %d wells, mean heat flow %.1f mW/m2, %d feed zones\n", NWELL, 1000 * qsum / NWELL,
           nfeed_total);
    return 0;
}
