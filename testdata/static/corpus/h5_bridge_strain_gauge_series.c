/*
 * h5_bridge_strain_gauge_series.c
 *
 * Structural-health monitoring of a three-span girder bridge.  Traffic
 * (cars and multi-axle trucks in two opposing lanes) is simulated and 48
 * strain gauges (4 girders x 4 stations x 3 spans) are synthesised at
 * 100 Hz from influence lines, lateral load distribution, first-mode
 * span vibration, thermal drift and sensor noise.  Each one-minute block
 * is appended to a parallel-HDF5 file (MPI-IO driver, collective
 * transfers): the strain dataset and the 1 Hz temperature dataset are
 * extended and the new block written as a hyperslab, per-minute gauge
 * statistics are added as a new plane, and weigh-in-motion events
 * detected in the block are appended to an extendible compound dataset.
 * At the end every gauge column is read back with a strided hyperslab
 * for rainflow counting and Miner damage, written to /fatigue.
 *
 * usage: h5_bridge_strain_gauge_series OUTDIR   (run with 1 MPI rank)
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSPAN      3
#define SPAN_L     40.0                 /* m */
#define NGIRDER    4
#define NSTATION   4
#define NGAUGE     (NSPAN * NGIRDER * NSTATION)
#define FS         100                  /* Hz */
#define BLOCK_S    60
#define BLOCK_N    (FS * BLOCK_S)
#define NBLOCK     26
#define MAXVEH     256
#define MAXAXLE    6
#define NSTAT      4                    /* mean, std, min, max */
#define NBINS      64
#define RANGE_MAX  200.0                /* microstrain, histogram top */

typedef struct {
    double t_enter, speed;
    int lane, nax;
    double ax_off[MAXAXLE], ax_kN[MAXAXLE];
    double gvw;
} vehicle_t;

typedef struct {
    double t;
    int lane;
    float speed, gvw_kN, peak_ue;
} wim_event_t;

static const char *g_dir;
static uint64_t g_rng = 0xB51D6E5ULL;
static double gauge_x[NGAUGE];          /* along bridge, m */
static int gauge_span[NGAUGE], gauge_girder[NGAUGE];
static double lat_factor[2][NGIRDER];   /* lane -> girder share */
static vehicle_t veh[MAXVEH];
static int nveh;
static double next_arrival[2];
static double modal_q[NSPAN], modal_v[NSPAN];
static hid_t g_dxpl;

static void h5check(herr_t rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "h5_bridge_strain_gauge_series: HDF5 error in %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static hid_t h5id(hid_t id, const char *what)
{
    if (id < 0) {
        fprintf(stderr, "h5_bridge_strain_gauge_series: HDF5 error in %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return id;
}

static double runif(void)
{
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * 0x1.0p-53;
}

static double rexp(double rate) { return -log(1.0 - runif()) / rate; }

/* Gauge layout and Courbon lateral distribution (girders at -3.6..3.6 m). */
static void setup_bridge(void)
{
    const double stations[NSTATION] = {0.12, 0.25, 0.5, 0.75};
    const double gy[NGIRDER] = {-3.6, -1.2, 1.2, 3.6};
    const double lane_y[2] = {-1.8, 1.8};
    double s2 = 0;
    for (int k = 0; k < NGIRDER; k++) s2 += gy[k] * gy[k];
    for (int l = 0; l < 2; l++)
        for (int k = 0; k < NGIRDER; k++)
            lat_factor[l][k] = 1.0 / NGIRDER + lane_y[l] * gy[k] / s2;
    int g = 0;
    for (int s = 0; s < NSPAN; s++)
        for (int k = 0; k < NGIRDER; k++)
            for (int j = 0; j < NSTATION; j++, g++) {
                gauge_x[g] = s * SPAN_L + stations[j] * SPAN_L;
                gauge_span[g] = s;
                gauge_girder[g] = k;
            }
    next_arrival[0] = rexp(0.28);
    next_arrival[1] = rexp(0.22);
}

/* Add vehicles arriving before t_end; drop those that have left. */
static void generate_traffic(double t_end)
{
    int w = 0;
    for (int i = 0; i < nveh; i++) {
        double len = veh[i].ax_off[veh[i].nax - 1];
        if (veh[i].t_enter + (NSPAN * SPAN_L + len) / veh[i].speed > t_end - BLOCK_S) veh[w++] = veh[i];
    }
    nveh = w;
    for (int l = 0; l < 2; l++) {
        while (next_arrival[l] < t_end && nveh < MAXVEH) {
            vehicle_t *v = &veh[nveh++];
            v->t_enter = next_arrival[l];
            v->lane = l;
            v->speed = 22.0 + 3.0 * (runif() + runif() + runif() - 1.5);
            double u = runif();
            if (u < 0.84) {                     /* car */
                v->nax = 2;
                v->ax_off[0] = 0; v->ax_off[1] = 2.7;
                v->ax_kN[0] = 8.0 + 4 * runif(); v->ax_kN[1] = 6.0 + 4 * runif();
            } else if (u < 0.93) {              /* rigid truck */
                v->nax = 3;
                double a[3] = {0, 5.2, 6.5}, k[3] = {60, 85, 85};
                for (int j = 0; j < 3; j++) { v->ax_off[j] = a[j]; v->ax_kN[j] = k[j] * (0.5 + 0.6 * runif()); }
            } else {                            /* articulated 5/6-axle */
                v->nax = runif() < 0.6 ? 5 : 6;
                double a[6] = {0, 3.6, 4.9, 11.0, 12.3, 13.6}, k[6] = {60, 80, 80, 75, 75, 75};
                for (int j = 0; j < v->nax; j++) { v->ax_off[j] = a[j]; v->ax_kN[j] = k[j] * (0.4 + 0.75 * runif()); }
            }
            v->gvw = 0;
            for (int j = 0; j < v->nax; j++) v->gvw += v->ax_kN[j];
            next_arrival[l] += rexp(l == 0 ? 0.28 : 0.22);
        }
    }
}

/* Simply supported span bending-moment influence line (kN*m per kN). */
static inline double moment_il(double xg, double p)
{
    if (p < 0 || p > SPAN_L) return 0.0;
    return p <= xg ? p * (SPAN_L - xg) / SPAN_L : xg * (SPAN_L - p) / SPAN_L;
}

/* Gaussian noise for a whole block at once (Box-Muller pairs). */
static void fill_noise(float *buf, size_t n, double sigma)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        double u = runif(), v = runif();
        if (u < 1e-300) u = 1e-300;
        double r = sigma * sqrt(-2.0 * log(u));
        buf[i] = (float)(r * cos(6.283185307179586 * v));
        buf[i + 1] = (float)(r * sin(6.283185307179586 * v));
    }
    if (n & 1) buf[n - 1] = 0.0f;
}

static double air_temperature(double t)
{
    return 14.0 + 6.0 * sin(6.283185307179586 * (t + 9 * 3600.0) / 86400.0) + 0.4 * sin(t / 97.0);
}

/* Synthesise one block of strain [BLOCK_N][NGAUGE] in microstrain. */
static void synthesize_block(int b, float *strain, float *temp)
{
    const double ue_per_kNm = 1e3 * 0.8 / (2.0e11 * 0.048) * 1e6;   /* M*c/(EI) */
    const double fn[NSPAN] = {2.62, 2.81, 2.70}, zeta = 0.02, dt = 1.0 / FS;
    fill_noise(strain, (size_t)BLOCK_N * NGAUGE, 1.4);
    for (int n = 0; n < BLOCK_N; n++) {
        double t = b * (double)BLOCK_S + n * dt;
        float *row = strain + (size_t)n * NGAUGE;
        double span_load[NSPAN] = {0};
        for (int i = 0; i < nveh; i++) {
            const vehicle_t *v = &veh[i];
            double d = (t - v->t_enter) * v->speed;           /* distance travelled */
            if (d < 0) continue;
            for (int a = 0; a < v->nax; a++) {
                double s = d - v->ax_off[a];                  /* axle distance from entry */
                if (s < 0 || s > NSPAN * SPAN_L) continue;
                double x = v->lane == 0 ? s : NSPAN * SPAN_L - s;
                int sp = (int)(x / SPAN_L);
                if (sp >= NSPAN) sp = NSPAN - 1;
                double p = x - sp * SPAN_L;
                span_load[sp] += v->ax_kN[a] * sin(M_PI * p / SPAN_L);
                for (int k = 0; k < NGIRDER; k++) {
                    double f = lat_factor[v->lane][k] * v->ax_kN[a] * ue_per_kNm;
                    int g0 = (sp * NGIRDER + k) * NSTATION;
                    for (int j = 0; j < NSTATION; j++)
                        row[g0 + j] += (float)(f * moment_il(gauge_x[g0 + j] - sp * SPAN_L, p));
                }
            }
        }
        /* first bending mode of each span, semi-implicit Euler */
        for (int s = 0; s < NSPAN; s++) {
            double w = 2 * M_PI * fn[s];
            double acc = span_load[s] * 0.002 - 2 * zeta * w * modal_v[s] - w * w * modal_q[s];
            modal_v[s] += dt * acc;
            modal_q[s] += dt * modal_v[s];
            for (int g = s * NGIRDER * NSTATION; g < (s + 1) * NGIRDER * NSTATION; g++)
                row[g] += (float)(modal_q[s] * 40.0 * sin(M_PI * (gauge_x[g] - s * SPAN_L) / SPAN_L));
        }
        double dT = air_temperature(t) - 14.0;
        for (int g = 0; g < NGAUGE; g++) row[g] += (float)(2.7 * dT * (1.0 + 0.05 * gauge_girder[g]));
        if (n % FS == 0) temp[n / FS] = (float)air_temperature(t);
    }
}

/* Weigh-in-motion: peaks of the summed mid-span strain of each span. */
static int detect_vehicles(int b, const float *strain, wim_event_t *ev, int maxev)
{
    static float sum[NSPAN][BLOCK_N], asym[NSPAN][BLOCK_N];
    const double ue_per_kNm = 1e3 * 0.8 / (2.0e11 * 0.048) * 1e6;
    for (int n = 0; n < BLOCK_N; n++)
        for (int s = 0; s < NSPAN; s++) {
            double a = 0, c = 0;
            for (int k = 0; k < NGIRDER; k++) {
                double e = strain[(size_t)n * NGAUGE + (s * NGIRDER + k) * NSTATION + 2];
                a += e;
                c += e * (k - 1.5);
            }
            sum[s][n] = (float)a;
            asym[s][n] = (float)c;
        }
    /* remove slow thermal baseline with a 10 s running minimum */
    int nev = 0;
    const int s = 1;                                     /* centre span */
    static float base[BLOCK_N];
    for (int n = 0; n < BLOCK_N; n += FS) {
        float m = 1e30f;
        for (int j = n - 5 * FS; j < n + 5 * FS; j++)
            if (j >= 0 && j < BLOCK_N && sum[s][j] < m) m = sum[s][j];
        for (int j = n; j < n + FS && j < BLOCK_N; j++) base[j] = m;
    }
    for (int n = 50; n < BLOCK_N - 50 && nev < maxev; n++) {
        float v = sum[s][n] - base[n];
        if (v < 40.0f) continue;
        int ispeak = 1;
        for (int j = n - 50; j <= n + 50; j++)
            if (sum[s][j] - base[j] > v) { ispeak = 0; break; }
        if (!ispeak) continue;
        int lane = asym[s][n] > 0 ? 1 : 0;
        /* speed from the peak in the next span along the direction of travel */
        int s2 = lane == 0 ? 2 : 0;
        int best = -1;
        float bv = 0;
        for (int j = n + 60; j < n + 400 && j < BLOCK_N; j++)
            if (sum[s2][j] > bv) { bv = sum[s2][j]; best = j; }
        double speed = best > 0 ? SPAN_L / ((best - n) / (double)FS) : 22.0;
        /* gross weight: area under the strain signal over the span passage */
        double area = 0;
        int half = (int)(SPAN_L / speed * FS);
        for (int j = n - half; j <= n + half; j++)
            if (j >= 0 && j < BLOCK_N) area += (sum[s][j] - base[j]) / (double)FS;
        double il_area = SPAN_L * SPAN_L / 8.0;          /* int of mid-span IL dx */
        double gvw = area * speed / (il_area * ue_per_kNm);
        ev[nev].t = b * (double)BLOCK_S + n / (double)FS;
        ev[nev].lane = lane;
        ev[nev].speed = (float)speed;
        ev[nev].gvw_kN = (float)gvw;
        ev[nev].peak_ue = v;
        nev++;
        n += 50;
    }
    return nev;
}

static hid_t make_event_type(void)
{
    hid_t t = h5id(H5Tcreate(H5T_COMPOUND, sizeof(wim_event_t)), "Tcreate");
    h5check(H5Tinsert(t, "time_s", HOFFSET(wim_event_t, t), H5T_NATIVE_DOUBLE), "Tinsert");
    h5check(H5Tinsert(t, "lane", HOFFSET(wim_event_t, lane), H5T_NATIVE_INT), "Tinsert");
    h5check(H5Tinsert(t, "speed_ms", HOFFSET(wim_event_t, speed), H5T_NATIVE_FLOAT), "Tinsert");
    h5check(H5Tinsert(t, "gvw_kN", HOFFSET(wim_event_t, gvw_kN), H5T_NATIVE_FLOAT), "Tinsert");
    h5check(H5Tinsert(t, "peak_ue", HOFFSET(wim_event_t, peak_ue), H5T_NATIVE_FLOAT), "Tinsert");
    return t;
}

static hid_t create_extendible(hid_t loc, const char *name, hid_t type, int rank,
                               const hsize_t *dims, const hsize_t *chunk)
{
    hsize_t maxd[3];
    for (int i = 0; i < rank; i++) maxd[i] = dims[i];
    maxd[0] = H5S_UNLIMITED;
    hsize_t d0[3];
    memcpy(d0, dims, sizeof(hsize_t) * (size_t)rank);
    d0[0] = 0;
    hid_t sp = h5id(H5Screate_simple(rank, d0, maxd), "Screate");
    hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "Pcreate");
    h5check(H5Pset_chunk(dcpl, rank, chunk), "set_chunk");
    hid_t ds = h5id(H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

static void put_attr_str(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    h5check(H5Tset_size(t, strlen(val) + 1), "Tset_size");
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = h5id(H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), name);
    h5check(H5Awrite(a, t, val), "Awrite");
    H5Aclose(a); H5Sclose(sp); H5Tclose(t);
}

/* Grow dataset along dim 0 by count rows and write buf there. */
static void append_rows(hid_t ds, hid_t memtype, int rank, const hsize_t *rowdims, hsize_t count,
                        const void *buf)
{
    hid_t fs = h5id(H5Dget_space(ds), "Dget_space");
    hsize_t cur[3];
    H5Sget_simple_extent_dims(fs, cur, NULL);
    H5Sclose(fs);
    hsize_t nd[3], start[3] = {0, 0, 0}, cnt[3];
    nd[0] = cur[0] + count;
    cnt[0] = count;
    for (int i = 1; i < rank; i++) { nd[i] = rowdims[i]; cnt[i] = rowdims[i]; }
    h5check(H5Dset_extent(ds, nd), "Dset_extent");
    fs = h5id(H5Dget_space(ds), "Dget_space");
    start[0] = cur[0];
    h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), "select_hyperslab");
    hid_t ms = h5id(H5Screate_simple(rank, cnt, NULL), "Screate mem");
    h5check(H5Dwrite(ds, memtype, ms, fs, g_dxpl, buf), "Dwrite append");
    H5Sclose(ms);
    H5Sclose(fs);
}

static void minute_stats(const float *strain, float *st)
{
    for (int g = 0; g < NGAUGE; g++) {
        double s = 0, s2 = 0, mn = 1e30, mx = -1e30;
        for (int n = 0; n < BLOCK_N; n++) {
            double e = strain[(size_t)n * NGAUGE + g];
            s += e; s2 += e * e;
            if (e < mn) mn = e;
            if (e > mx) mx = e;
        }
        double m = s / BLOCK_N;
        st[g * NSTAT + 0] = (float)m;
        st[g * NSTAT + 1] = (float)sqrt(fmax(0.0, s2 / BLOCK_N - m * m));
        st[g * NSTAT + 2] = (float)mn;
        st[g * NSTAT + 3] = (float)mx;
    }
}

static void write_gauge_table(hid_t file)
{
    hid_t grp = h5id(H5Gcreate2(file, "/gauges", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate gauges");
    hsize_t d = NGAUGE;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    hid_t ds = h5id(H5Dcreate2(grp, "x_m", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "x_m");
    h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, g_dxpl, gauge_x), "write x_m");
    H5Dclose(ds);
    ds = h5id(H5Dcreate2(grp, "span", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "span");
    h5check(H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, g_dxpl, gauge_span), "write span");
    H5Dclose(ds);
    ds = h5id(H5Dcreate2(grp, "girder", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "girder");
    h5check(H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, g_dxpl, gauge_girder), "write girder");
    H5Dclose(ds);
    H5Sclose(sp);
    H5Gclose(grp);
}

/* ASTM three-point rainflow on turning points; ranges into a histogram. */
static double rainflow(const float *x, size_t n, uint32_t *hist, double *max_range)
{
    static float tp[BLOCK_N * NBLOCK];
    static double stk[BLOCK_N * NBLOCK];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m >= 1 && fabsf(x[i] - tp[m - 1]) < 0.5f) continue;    /* hysteresis gate */
        if (m >= 2 && (tp[m - 1] - tp[m - 2]) * (x[i] - tp[m - 1]) > 0) tp[m - 1] = x[i];
        else tp[m++] = x[i];
    }
    double damage = 0;
    const double E = 2.0e5;                 /* MPa; stress range = E * eps */
    const double dsc = 71.0, nc = 2.0e6;    /* detail category, m = 3 */
    size_t sp = 0;
    *max_range = 0;
    for (size_t i = 0; i < m; i++) {
        stk[sp++] = tp[i];
        while (sp >= 3) {
            double r1 = fabs(stk[sp - 2] - stk[sp - 3]), r2 = fabs(stk[sp - 1] - stk[sp - 2]);
            if (r2 < r1) break;
            double cyc = sp == 3 ? 0.5 : 1.0;
            int bin = (int)(r1 / RANGE_MAX * NBINS);
            hist[bin < NBINS ? bin : NBINS - 1] += cyc == 1.0 ? 2 : 1;   /* half-cycles */
            double ds = E * r1 * 1e-6;
            damage += cyc * pow(ds / dsc, 3.0) / nc;
            if (r1 > *max_range) *max_range = r1;
            if (sp == 3) { stk[0] = stk[1]; stk[1] = stk[2]; sp = 2; }
            else { stk[sp - 3] = stk[sp - 1]; sp -= 2; }
        }
    }
    for (size_t i = 0; i + 1 < sp; i++) {
        double r = fabs(stk[i + 1] - stk[i]);
        int bin = (int)(r / RANGE_MAX * NBINS);
        hist[bin < NBINS ? bin : NBINS - 1] += 1;
        damage += 0.5 * pow(E * r * 1e-6 / dsc, 3.0) / nc;
    }
    return damage;
}

/* Read each gauge column back (strided hyperslab) and count cycles. */
static void fatigue_analysis(hid_t file, hid_t ds, double *damage, double *maxr)
{
    hid_t fs = h5id(H5Dget_space(ds), "Dget_space");
    hsize_t dims[2];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    float *col = malloc(sizeof(float) * dims[0]);
    static uint32_t hist[NGAUGE][NBINS];
    if (!col) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    hsize_t cnt[2] = {dims[0], 1};
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    for (int g = 0; g < NGAUGE; g++) {
        hsize_t start[2] = {0, (hsize_t)g};
        h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), "select column");
        h5check(H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, g_dxpl, col), "Dread column");
        damage[g] = rainflow(col, dims[0], hist[g], &maxr[g]);
    }
    H5Sclose(ms);
    H5Sclose(fs);
    free(col);

    hid_t grp = h5id(H5Gcreate2(file, "/fatigue", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate fatigue");
    hsize_t hd[2] = {NGAUGE, NBINS};
    hid_t sp = H5Screate_simple(2, hd, NULL);
    hid_t d = h5id(H5Dcreate2(grp, "halfcycle_histogram", H5T_STD_U32LE, sp, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT), "hist");
    h5check(H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, g_dxpl, hist), "write hist");
    put_attr_str(d, "bins", "0..200 microstrain, 64 equal bins");
    H5Dclose(d);
    H5Sclose(sp);
    hsize_t nd = NGAUGE;
    sp = H5Screate_simple(1, &nd, NULL);
    d = h5id(H5Dcreate2(grp, "miner_damage", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             "damage");
    h5check(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, g_dxpl, damage), "write damage");
    put_attr_str(d, "sn_curve", "EC3 detail 71, m=3, N_C=2e6");
    H5Dclose(d);
    H5Sclose(sp);
    H5Gclose(grp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (argc != 2 || nproc != 1) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR (1 rank)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    g_dir = argv[1];
    setup_bridge();

    char path[1024];
    snprintf(path, sizeof path, "%s/bridge_shm.h5", g_dir);
    hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "Pcreate fapl");
    h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "set_fapl_mpio");
    hid_t file = h5id(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), path);
    H5Pclose(fapl);
    g_dxpl = h5id(H5Pcreate(H5P_DATASET_XFER), "Pcreate dxpl");
    h5check(H5Pset_dxpl_mpio(g_dxpl, H5FD_MPIO_COLLECTIVE), "set_dxpl_mpio");

    write_gauge_table(file);
    hid_t grp = h5id(H5Gcreate2(file, "/strain", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate strain");
    hsize_t sdims[2] = {BLOCK_N, NGAUGE}, schunk[2] = {BLOCK_N / 4, 16};
    hid_t ds_strain = create_extendible(grp, "microstrain", H5T_IEEE_F32LE, 2, sdims, schunk);
    put_attr_str(ds_strain, "units", "microstrain");
    put_attr_str(ds_strain, "sampling", "100 Hz, rows = samples, columns = gauges");
    hsize_t tdims[1] = {BLOCK_S}, tchunk[1] = {BLOCK_S * 10};
    hid_t ds_temp = create_extendible(grp, "air_temperature_1Hz", H5T_IEEE_F32LE, 1, tdims, tchunk);
    hsize_t mdims[3] = {1, NGAUGE, NSTAT}, mchunk[3] = {1, NGAUGE, NSTAT};
    hid_t ds_min = create_extendible(grp, "minute_stats", H5T_IEEE_F32LE, 3, mdims, mchunk);
    put_attr_str(ds_min, "fields", "mean, std, min, max");
    H5Gclose(grp);
    grp = h5id(H5Gcreate2(file, "/wim", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate wim");
    hid_t evtype = make_event_type();
    hsize_t edims[1] = {1}, echunk[1] = {128};
    hid_t ds_ev = create_extendible(grp, "events", evtype, 1, edims, echunk);
    H5Gclose(grp);

    float *strain = malloc(sizeof(float) * BLOCK_N * NGAUGE);
    float temp[BLOCK_S], st[NGAUGE * NSTAT];
    static wim_event_t ev[512];
    if (!strain) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    int total_ev = 0, trucks = 0;
    double heaviest = 0;
    for (int b = 0; b < NBLOCK; b++) {
        generate_traffic((b + 1) * (double)BLOCK_S);
        synthesize_block(b, strain, temp);
        append_rows(ds_strain, H5T_NATIVE_FLOAT, 2, sdims, BLOCK_N, strain);
        append_rows(ds_temp, H5T_NATIVE_FLOAT, 1, tdims, BLOCK_S, temp);
        minute_stats(strain, st);
        append_rows(ds_min, H5T_NATIVE_FLOAT, 3, mdims, 1, st);
        int ne = detect_vehicles(b, strain, ev, 512);
        if (ne > 0) append_rows(ds_ev, evtype, 1, edims, (hsize_t)ne, ev);
        for (int i = 0; i < ne; i++) {
            if (ev[i].gvw_kN > 150) trucks++;
            if (ev[i].gvw_kN > heaviest) heaviest = ev[i].gvw_kN;
        }
        total_ev += ne;
        h5check(H5Fflush(file, H5F_SCOPE_LOCAL), "Fflush");
    }
    free(strain);

    double damage[NGAUGE], maxr[NGAUGE];
    fatigue_analysis(file, ds_strain, damage, maxr);
    int worst = 0;
    for (int g = 1; g < NGAUGE; g++) if (damage[g] > damage[worst]) worst = g;

    H5Dclose(ds_strain); H5Dclose(ds_temp); H5Dclose(ds_min); H5Dclose(ds_ev);
    H5Tclose(evtype);
    H5Pclose(g_dxpl);
    h5check(H5Fclose(file), "Fclose");

    snprintf(path, sizeof path, "%s/summary.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    int ok = fprintf(f, "blocks %d  samples %d  gauges %d\nWIM events %d  trucks(>150 kN) %d  heaviest %.1f kN\n",
                     NBLOCK, NBLOCK * BLOCK_N, NGAUGE, total_ev, trucks, heaviest) > 0;
    for (int g = 0; g < NGAUGE; g++)
        ok &= fprintf(f, "gauge %2d span %d girder %d x %6.2f  max range %7.2f ue  damage %.3e\n", g,
                      gauge_span[g], gauge_girder[g], gauge_x[g], maxr[g], damage[g]) > 0;
    if (!ok || fclose(f) != 0) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }

    printf("h5_bridge_strain_gauge_series: %d min at %d Hz, %d gauges\n", NBLOCK, FS, NGAUGE);
    printf("  WIM events %d, trucks %d, heaviest %.1f kN\n", total_ev, trucks, heaviest);
    printf("  worst gauge %d (span %d girder %d) damage %.3e, max range %.1f ue\n", worst, gauge_span[worst],
           gauge_girder[worst], damage[worst], maxr[worst]);
    MPI_Finalize();
    return 0;
}
