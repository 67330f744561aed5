/*
 * h5_pmu_phasor_stream.c
 *
 * Synchrophasor (PMU) data concentrator for a simulated 480-bus, four-area
 * transmission grid.  Bus dynamics follow the classical swing model with
 * governor droop on the generator buses; the operating point comes from a
 * Newton power flow whose linear systems are solved by conjugate gradients.
 * Two events are simulated: a 6 p.u. generator trip at t = 10 s and the loss
 * of an inter-area tie line at t = 60 s.
 *
 * I/O (parallel HDF5 through the MPI-IO driver, collective transfers):
 * every second the 30 new reports of all PMUs are appended to extendible
 * chunked datasets /pmu/frequency, /pmu/angle, /pmu/vmag (float32
 * [time][station]) and /pmu/time_us with H5Dset_extent + hyperslab writes.
 * Afterwards the file is reopened and read back in station-block hyperslabs
 * to compute frequency nadir and RoCoF per station and the inter-area
 * oscillation mode (frequency, damping, mode shape), which are stored in an
 * /analysis group and a text report.
 *
 * usage: h5_pmu_phasor_stream OUTDIR        (run with 1 MPI rank)
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 480
#define NAREA 4
#define PER_AREA (NB / NAREA)
#define GEN_EVERY 6
#define MAXE 4096
#define FS 30            /* PMU reporting rate, frames/s */
#define SUB 2            /* integrator steps per PMU frame */
#define DT (1.0 / (FS * SUB))
#define T_END 120
#define NFRAMES (T_END * FS)
#define BLOCK FS         /* frames appended per write (1 s) */
#define WS (2.0 * 3.14159265358979323846 * 60.0)
#define PI 3.14159265358979323846
#define STATION_BLOCK 48

typedef struct {
    int ne;
    int from[MAXE], to[MAXE];
    double k[MAXE];
    int alive[MAXE];
    double p0[NB];   /* scheduled injection */
    double m[NB], d[NB];
    int is_gen[NB];
    double rating[NB];
} Grid;

typedef struct {
    double th[NB], w[NB], pm[NB];
} State;

static const char *outdir;
static int tie_to_trip = -1;
static hid_t gcpl_nt, dcpl_nt; /* creation plists without object timestamps (reproducible files) */

static void fail(const char *what)
{
    fprintf(stderr, "h5_pmu_phasor_stream: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define HCHK(x, what)            \
    do {                            \
        if ((x) < 0) fail(what);    \
    } while (0)

#define HASHU(z)                                                        \
    (z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL,                       \
     z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL, z ^= z >> 31,         \
     ((double)(z >> 11) + 0.5) / 9007199254740992.0)

/* Four areas of ring lattices with random chords, joined by weak ties. */
static void build_network(Grid *g)
{
    uint64_t s = 12345;
    g->ne = 0;
    for (int a = 0; a < NAREA; a++) {
        int b0 = a * PER_AREA;
        for (int i = 0; i < PER_AREA; i++) {
            for (int hop = 1; hop <= 2; hop++) {
                int e = g->ne++;
                g->from[e] = b0 + i;
                g->to[e] = b0 + (i + hop) % PER_AREA;
                uint64_t z = s++ * 0x9E3779B97F4A7C15ULL;
                g->k[e] = (hop == 1 ? 30.0 : 18.0) * (0.7 + 0.6 * HASHU(z));
            }
        }
        for (int c = 0; c < PER_AREA / 3; c++) {
            uint64_t z1 = s++ * 0x9E3779B97F4A7C15ULL, z2 = s++ * 0x9E3779B97F4A7C15ULL;
            int i = (int)(HASHU(z1) * PER_AREA), j = (int)(HASHU(z2) * PER_AREA);
            if (i == j) continue;
            int e = g->ne++;
            g->from[e] = b0 + i;
            g->to[e] = b0 + j;
            g->k[e] = 12.0;
        }
    }
    for (int a = 0; a < NAREA; a++) { /* three tie lines between neighbouring areas */
        int b = (a + 1) % NAREA;
        for (int t = 0; t < 3; t++) {
            int e = g->ne++;
            g->from[e] = a * PER_AREA + 10 + 37 * t;
            g->to[e] = b * PER_AREA + 25 + 31 * t;
            g->k[e] = 9.0;
            if (a == 1 && t == 0) tie_to_trip = e;
        }
    }
    for (int e = 0; e < g->ne; e++) g->alive[e] = 1;
    double sum = 0;
    for (int i = 0; i < NB; i++) {
        int area = i / PER_AREA;
        uint64_t z = (uint64_t)(i + 777) * 0x9E3779B97F4A7C15ULL;
        g->is_gen[i] = (i % GEN_EVERY) == 0;
        if (g->is_gen[i]) {
            g->rating[i] = 6.0 + 4.0 * HASHU(z);
            g->p0[i] = g->rating[i] * (area < 2 ? 0.80 : 0.55);
            g->m[i] = 2.0 * 4.5 * g->rating[i] / WS;
        } else {
            g->rating[i] = 0.0;
            g->p0[i] = -(0.9 + 0.4 * HASHU(z));
            g->m[i] = 2.0 * 1.5 / WS;
        }
        g->d[i] = 0.02;
        sum += g->p0[i];
    }
    /* distribute the residual over the loads so injections balance */
    for (int i = 0; i < NB; i++)
        if (!g->is_gen[i]) g->p0[i] -= sum / (NB - NB / GEN_EVERY);
}

static void laplacian_apply(const Grid *g, const double *wgt, const double *x, double *y)
{
    memset(y, 0, NB * sizeof(double));
    for (int e = 0; e < g->ne; e++) {
        if (!g->alive[e]) continue;
        double f = wgt[e] * (x[g->from[e]] - x[g->to[e]]);
        y[g->from[e]] += f;
        y[g->to[e]] -= f;
    }
}

/* Newton power flow: sum_j K sin(th_i - th_j) = P_i, linear steps by CG on
 * the (singular, consistent) weighted Laplacian. Returns Newton iterations. */
static int solve_operating_point(const Grid *g, double *th, double *mis_out)
{
    static double wgt[MAXE], r[NB], p[NB], ap[NB], dx[NB], mis[NB];
    memset(th, 0, NB * sizeof(double));
    int it;
    double nm = 0;
    for (it = 0; it < 20; it++) {
        memset(mis, 0, sizeof mis);
        for (int e = 0; e < g->ne; e++) {
            if (!g->alive[e]) continue;
            double dth = th[g->from[e]] - th[g->to[e]];
            double f = g->k[e] * sin(dth);
            mis[g->from[e]] -= f;
            mis[g->to[e]] += f;
            wgt[e] = g->k[e] * cos(dth);
        }
        nm = 0;
        for (int i = 0; i < NB; i++) { mis[i] += g->p0[i]; nm += mis[i] * mis[i]; }
        nm = sqrt(nm);
        if (nm < 1e-10) break;
        memset(dx, 0, sizeof dx);
        memcpy(r, mis, sizeof r);
        memcpy(p, r, sizeof p);
        double rr = 0;
        for (int i = 0; i < NB; i++) rr += r[i] * r[i];
        for (int k = 0; k < 2000 && rr > 1e-26; k++) {
            laplacian_apply(g, wgt, p, ap);
            double pap = 0;
            for (int i = 0; i < NB; i++) pap += p[i] * ap[i];
            double alpha = rr / pap, rr2 = 0;
            for (int i = 0; i < NB; i++) {
                dx[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
                rr2 += r[i] * r[i];
            }
            double beta = rr2 / rr;
            rr = rr2;
            for (int i = 0; i < NB; i++) p[i] = r[i] + beta * p[i];
        }
        double mean = 0;
        for (int i = 0; i < NB; i++) mean += dx[i];
        mean /= NB;
        for (int i = 0; i < NB; i++) th[i] += dx[i] - mean;
    }
    *mis_out = nm;
    return it;
}

static void swing_rhs(const Grid *g, const State *s, State *ds, double *pe)
{
    memset(pe, 0, NB * sizeof(double));
    for (int e = 0; e < g->ne; e++) {
        if (!g->alive[e]) continue;
        double f = g->k[e] * sin(s->th[g->from[e]] - s->th[g->to[e]]);
        pe[g->from[e]] += f;
        pe[g->to[e]] -= f;
    }
    for (int i = 0; i < NB; i++) {
        double pin = g->is_gen[i] ? s->pm[i] : g->p0[i];
        ds->th[i] = s->w[i];
        ds->w[i] = (pin - pe[i] - g->d[i] * s->w[i]) / g->m[i];
        if (g->is_gen[i]) /* droop 5 %, governor-turbine lag 4 s */
            ds->pm[i] = (g->p0[i] - g->rating[i] * s->w[i] / (0.05 * WS) - s->pm[i]) / 4.0;
        else
            ds->pm[i] = 0.0;
    }
}

static void rk4_step(const Grid *g, State *s, double *pe)
{
    static State k1, k2, k3, k4, tmp;
    static double pe_tmp[NB];
    swing_rhs(g, s, &k1, pe);
    for (int i = 0; i < NB; i++) {
        tmp.th[i] = s->th[i] + 0.5 * DT * k1.th[i];
        tmp.w[i] = s->w[i] + 0.5 * DT * k1.w[i];
        tmp.pm[i] = s->pm[i] + 0.5 * DT * k1.pm[i];
    }
    swing_rhs(g, &tmp, &k2, pe_tmp);
    for (int i = 0; i < NB; i++) {
        tmp.th[i] = s->th[i] + 0.5 * DT * k2.th[i];
        tmp.w[i] = s->w[i] + 0.5 * DT * k2.w[i];
        tmp.pm[i] = s->pm[i] + 0.5 * DT * k2.pm[i];
    }
    swing_rhs(g, &tmp, &k3, pe_tmp);
    for (int i = 0; i < NB; i++) {
        tmp.th[i] = s->th[i] + DT * k3.th[i];
        tmp.w[i] = s->w[i] + DT * k3.w[i];
        tmp.pm[i] = s->pm[i] + DT * k3.pm[i];
    }
    swing_rhs(g, &tmp, &k4, pe_tmp);
    for (int i = 0; i < NB; i++) {
        s->th[i] += DT / 6.0 * (k1.th[i] + 2 * k2.th[i] + 2 * k3.th[i] + k4.th[i]);
        s->w[i] += DT / 6.0 * (k1.w[i] + 2 * k2.w[i] + 2 * k3.w[i] + k4.w[i]);
        s->pm[i] += DT / 6.0 * (k1.pm[i] + 2 * k2.pm[i] + 2 * k3.pm[i] + k4.pm[i]);
    }
}

/* One PMU frame: frequency, wrapped angle and a voltage-magnitude proxy with
 * measurement noise. */
static void sample_pmus(const Grid *g, const State *s, const double *pe, long frame, float *f,
                        float *a, float *v)
{
    for (int i = 0; i < NB; i++) {
        uint64_t z = ((uint64_t)frame << 20) ^ (uint64_t)i ^ 0x5bd1e995ULL;
        double n1 = HASHU(z) - 0.5, n2 = HASHU(z) - 0.5, n3 = HASHU(z) - 0.5;
        f[i] = (float)(60.0 + s->w[i] / (2.0 * PI) + 0.002 * n1);
        double deg = fmod(s->th[i] * 180.0 / PI + 0.1 * n2, 360.0);
        if (deg >= 180.0) deg -= 360.0;
        if (deg < -180.0) deg += 360.0;
        a[i] = (float)deg;
        double load = g->is_gen[i] ? 0.0 : -g->p0[i];
        v[i] = (float)(1.03 - 0.025 * load - 0.004 * fabs(pe[i] - g->p0[i]) + 0.002 * n3);
    }
}

static hid_t create_series(hid_t grp, const char *name, hid_t type, int ncol, const char *unit)
{
    hsize_t dims[2] = {0, (hsize_t)ncol}, maxd[2] = {H5S_UNLIMITED, (hsize_t)ncol};
    hsize_t chunk[2] = {BLOCK, (hsize_t)ncol};
    int rank = ncol > 0 ? 2 : 1;
    if (ncol == 0) { dims[0] = 0; maxd[0] = H5S_UNLIMITED; chunk[0] = BLOCK * 8; }
    hid_t sp = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcopy(dcpl_nt);
    HCHK(H5Pset_chunk(dcpl, rank, chunk), "set_chunk");
    hid_t ds = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    HCHK(ds, "Dcreate series");
    hid_t as = H5Screate(H5S_SCALAR), st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, strlen(unit) + 1);
    hid_t at = H5Acreate2(ds, "units", st, as, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(H5Awrite(at, st, unit), "Awrite units");
    H5Aclose(at); H5Tclose(st); H5Sclose(as);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

static void write_station_metadata(hid_t file, const Grid *g)
{
    hid_t grp = H5Gcreate2(file, "/stations", H5P_DEFAULT, gcpl_nt, H5P_DEFAULT);
    HCHK(grp, "Gcreate stations");
    int area[NB], gen[NB];
    float lat[NB], lon[NB];
    for (int i = 0; i < NB; i++) {
        area[i] = i / PER_AREA;
        gen[i] = g->is_gen[i];
        double ang = 2.0 * PI * (i % PER_AREA) / PER_AREA;
        lat[i] = (float)(40.0 + 3.0 * (area[i] / 2) + 1.2 * sin(ang));
        lon[i] = (float)(-100.0 + 4.0 * (area[i] % 2) + 1.5 * cos(ang));
    }
    hsize_t n = NB;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    const char *names[4] = {"area", "is_generator", "latitude", "longitude"};
    const void *bufs[4] = {area, gen, lat, lon};
    hid_t types[4] = {H5T_NATIVE_INT, H5T_NATIVE_INT, H5T_NATIVE_FLOAT, H5T_NATIVE_FLOAT};
    for (int k = 0; k < 4; k++) {
        hid_t ds = H5Dcreate2(grp, names[k], types[k], sp, H5P_DEFAULT, dcpl_nt, H5P_DEFAULT);
        HCHK(ds, "Dcreate station");
        HCHK(H5Dwrite(ds, types[k], H5S_ALL, H5S_ALL, H5P_DEFAULT, bufs[k]), "Dwrite station");
        H5Dclose(ds);
    }
    H5Sclose(sp);
    H5Gclose(grp);
}

/* Extend a [time][station] (or [time]) series by one block and write it. */
static void append_block(hid_t ds, hid_t type, hid_t dxpl, hsize_t t0, int ncol, const void *buf)
{
    int rank = ncol > 0 ? 2 : 1;
    hsize_t newdims[2] = {t0 + BLOCK, (hsize_t)ncol};
    HCHK(H5Dset_extent(ds, newdims), "Dset_extent");
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {t0, 0}, count[2] = {BLOCK, (hsize_t)ncol};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t ms = H5Screate_simple(rank, count, NULL);
    HCHK(H5Dwrite(ds, type, ms, fs, dxpl, buf), "Dwrite block");
    H5Sclose(ms);
    H5Sclose(fs);
}

static hid_t open_file(const char *path, unsigned mode, int create)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    HCHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "set_fapl_mpio");
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, mode, fapl);
    HCHK(f, "open HDF5 file");
    H5Pclose(fapl);
    return f;
}

static void read_station_block(hid_t ds, hid_t dxpl, int s0, int ns, float *buf)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {0, (hsize_t)s0}, count[2] = {NFRAMES, (hsize_t)ns};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select read");
    hid_t ms = H5Screate_simple(2, count, NULL);
    HCHK(H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, dxpl, buf), "Dread block");
    H5Sclose(ms);
    H5Sclose(fs);
}

/* Frequency nadir, max |RoCoF| over a 200 ms window, and settling frame. */
static void analyse_frequency(hid_t file, hid_t dxpl, float *nadir, float *rocof, float *settle)
{
    hid_t ds = H5Dopen2(file, "/pmu/frequency", H5P_DEFAULT);
    HCHK(ds, "Dopen frequency");
    float *buf = malloc(sizeof(float) * NFRAMES * STATION_BLOCK);
    if (!buf) fail("malloc");
    for (int s0 = 0; s0 < NB; s0 += STATION_BLOCK) {
        read_station_block(ds, dxpl, s0, STATION_BLOCK, buf);
        for (int k = 0; k < STATION_BLOCK; k++) {
            float mn = 1e9f, rmax = 0.0f;
            int last_out = 0;
            for (int t = 0; t < NFRAMES; t++) {
                float f = buf[(size_t)t * STATION_BLOCK + k];
                if (f < mn) mn = f;
                if (t >= 6) {
                    float r = (f - buf[(size_t)(t - 6) * STATION_BLOCK + k]) * FS / 6.0f;
                    if (fabsf(r) > rmax) rmax = fabsf(r);
                }
                if (t > 10 * FS && t < 60 * FS && fabsf(f - buf[(size_t)(60 * FS - 1) * STATION_BLOCK + k]) > 0.005f)
                    last_out = t;
            }
            nadir[s0 + k] = mn;
            rocof[s0 + k] = rmax;
            settle[s0 + k] = (float)last_out / FS - 10.0f;
        }
    }
    free(buf);
    H5Dclose(ds);
}

/* Inter-area mode after the tie-line trip: area-mean unwrapped angles, DFT
 * scan 0.1-2 Hz, damping from the decay of the DFT-filtered envelope, and
 * per-station mode shape (complex DFT at the mode frequency). */
static void analyse_mode(hid_t file, hid_t dxpl, double *fmode, double *zeta, float *shape_mag,
                         float *shape_ph)
{
    hid_t ds = H5Dopen2(file, "/pmu/angle", H5P_DEFAULT);
    HCHK(ds, "Dopen angle");
    const int t0 = 61 * FS, nt = NFRAMES - t0;
    double *areamean = calloc((size_t)NAREA * NFRAMES, sizeof(double));
    double *unw = malloc(sizeof(double) * NFRAMES * STATION_BLOCK);
    float *buf = malloc(sizeof(float) * NFRAMES * STATION_BLOCK);
    double *sig = malloc(sizeof(double) * nt);
    float *allang = malloc(sizeof(float) * (size_t)nt * NB);
    if (!areamean || !unw || !buf || !sig || !allang) fail("malloc");
    for (int s0 = 0; s0 < NB; s0 += STATION_BLOCK) {
        read_station_block(ds, dxpl, s0, STATION_BLOCK, buf);
        for (int k = 0; k < STATION_BLOCK; k++) {
            double off = 0.0, prev = buf[k];
            for (int t = 0; t < NFRAMES; t++) {
                double a = buf[(size_t)t * STATION_BLOCK + k];
                if (a - prev > 180.0) off -= 360.0;
                if (a - prev < -180.0) off += 360.0;
                prev = a;
                unw[(size_t)t * STATION_BLOCK + k] = a + off;
                areamean[(size_t)((s0 + k) / PER_AREA) * NFRAMES + t] += (a + off) / PER_AREA;
                if (t >= t0) allang[(size_t)(t - t0) * NB + s0 + k] = (float)(a + off);
            }
        }
    }
    /* detrended difference between area 1 and area 2 (the tripped tie) */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int t = 0; t < nt; t++) {
        double y = areamean[1 * NFRAMES + t0 + t] - areamean[2 * NFRAMES + t0 + t];
        sig[t] = y;
        sx += t; sy += y; sxx += (double)t * t; sxy += t * y;
    }
    double b = (nt * sxy - sx * sy) / (nt * sxx - sx * sx), a = (sy - b * sx) / nt;
    for (int t = 0; t < nt; t++) sig[t] -= a + b * t;
    double best = 0, fbest = 0.1;
    for (int q = 0; q <= 1900; q++) {
        double f = 0.1 + q * 0.001, re = 0, im = 0;
        for (int t = 0; t < nt; t++) {
            double ph = 2.0 * PI * f * t / FS;
            re += sig[t] * cos(ph);
            im -= sig[t] * sin(ph);
        }
        double p = re * re + im * im;
        if (p > best) { best = p; fbest = f; }
    }
    *fmode = fbest;
    /* envelope: magnitude of a sliding two-cycle DFT at the mode frequency */
    int win = (int)(2.0 * FS / fbest);
    if (win > nt / 3) win = nt / 3;
    double e1 = 0, e2 = 0, tt1 = 0, tt2 = 0;
    for (int w0 = 0; w0 + win < nt; w0 += win / 2) {
        double re = 0, im = 0;
        for (int t = w0; t < w0 + win; t++) {
            double ph = 2.0 * PI * fbest * t / FS;
            re += sig[t] * cos(ph);
            im -= sig[t] * sin(ph);
        }
        double env = sqrt(re * re + im * im) + 1e-12;
        if (w0 == 0) { e1 = env; tt1 = (w0 + win / 2.0) / FS; }
        e2 = env; tt2 = (w0 + win / 2.0) / FS;
    }
    double sigma = (tt2 > tt1) ? -log(e2 / e1) / (tt2 - tt1) : 0.0;
    *zeta = sigma / sqrt(sigma * sigma + (2.0 * PI * fbest) * (2.0 * PI * fbest));
    for (int i = 0; i < NB; i++) {
        double re = 0, im = 0, m = 0;
        for (int t = 0; t < nt; t++) m += allang[(size_t)t * NB + i];
        m /= nt;
        for (int t = 0; t < nt; t++) {
            double ph = 2.0 * PI * fbest * t / FS;
            double y = allang[(size_t)t * NB + i] - m;
            re += y * cos(ph);
            im -= y * sin(ph);
        }
        shape_mag[i] = (float)(2.0 * sqrt(re * re + im * im) / nt);
        shape_ph[i] = (float)(atan2(im, re) * 180.0 / PI);
    }
    free(areamean); free(unw); free(buf); free(sig); free(allang);
    H5Dclose(ds);
}

static void write_analysis(hid_t file, float *const arrays[5], double fmode, double zeta)
{
    hid_t grp = H5Gcreate2(file, "/analysis", H5P_DEFAULT, gcpl_nt, H5P_DEFAULT);
    HCHK(grp, "Gcreate analysis");
    const char *names[5] = {"freq_nadir_hz", "rocof_max_hz_s", "settling_s", "mode_shape_deg",
                            "mode_phase_deg"};
    hsize_t n = NB;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    for (int k = 0; k < 5; k++) {
        hid_t ds = H5Dcreate2(grp, names[k], H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl_nt, H5P_DEFAULT);
        HCHK(ds, "Dcreate analysis");
        HCHK(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, arrays[k]),
                "Dwrite analysis");
        H5Dclose(ds);
    }
    H5Sclose(sp);
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t a1 = H5Acreate2(grp, "mode_frequency_hz", H5T_NATIVE_DOUBLE, as, H5P_DEFAULT, H5P_DEFAULT);
    hid_t a2 = H5Acreate2(grp, "mode_damping_ratio", H5T_NATIVE_DOUBLE, as, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(H5Awrite(a1, H5T_NATIVE_DOUBLE, &fmode), "Awrite");
    HCHK(H5Awrite(a2, H5T_NATIVE_DOUBLE, &zeta), "Awrite");
    H5Aclose(a1); H5Aclose(a2); H5Sclose(as);
    H5Gclose(grp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2 || nprocs != 1) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR (1 rank)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    outdir = argv[1];
    char path[600];
    snprintf(path, sizeof path, "%s/pmu_stream.h5", outdir);

    static Grid g;
    build_network(&g);
    static State s;
    double mis;
    int newton = solve_operating_point(&g, s.th, &mis);
    for (int i = 0; i < NB; i++) { s.w[i] = 0.0; s.pm[i] = g.p0[i]; }

    gcpl_nt = H5Pcreate(H5P_GROUP_CREATE);
    dcpl_nt = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_obj_track_times(gcpl_nt, 0), "set_obj_track_times");
    HCHK(H5Pset_obj_track_times(dcpl_nt, 0), "set_obj_track_times");
    hid_t file = open_file(path, 0, 1);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    HCHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "set_dxpl_mpio");
    write_station_metadata(file, &g);
    hid_t grp = H5Gcreate2(file, "/pmu", H5P_DEFAULT, gcpl_nt, H5P_DEFAULT);
    HCHK(grp, "Gcreate pmu");
    hid_t dsf = create_series(grp, "frequency", H5T_NATIVE_FLOAT, NB, "Hz");
    hid_t dsa = create_series(grp, "angle", H5T_NATIVE_FLOAT, NB, "deg");
    hid_t dsv = create_series(grp, "vmag", H5T_NATIVE_FLOAT, NB, "pu");
    hid_t dst = create_series(grp, "time_us", H5T_NATIVE_INT64, 0, "us");

    static float fb[BLOCK * NB], ab[BLOCK * NB], vb[BLOCK * NB];
    int64_t tb[BLOCK];
    static double pe[NB];
    long frame = 0;
    const int trip_bus = 2 * PER_AREA + 6 * GEN_EVERY;
    for (int sec = 0; sec < T_END; sec++) {
        for (int k = 0; k < BLOCK; k++, frame++) {
            for (int sub = 0; sub < SUB; sub++) {
                double t = (frame * SUB + sub) * DT;
                if (fabs(t - 10.0) < 0.5 * DT) { g.p0[trip_bus] -= 6.0; s.pm[trip_bus] -= 6.0; }
                if (fabs(t - 60.0) < 0.5 * DT) g.alive[tie_to_trip] = 0;
                rk4_step(&g, &s, pe);
            }
            sample_pmus(&g, &s, pe, frame, fb + (size_t)k * NB, ab + (size_t)k * NB,
                        vb + (size_t)k * NB);
            tb[k] = 1700000000000000LL + frame * (1000000 / FS);
        }
        hsize_t t0 = (hsize_t)sec * BLOCK;
        append_block(dsf, H5T_NATIVE_FLOAT, dxpl, t0, NB, fb);
        append_block(dsa, H5T_NATIVE_FLOAT, dxpl, t0, NB, ab);
        append_block(dsv, H5T_NATIVE_FLOAT, dxpl, t0, NB, vb);
        append_block(dst, H5T_NATIVE_INT64, dxpl, t0, 0, tb);
    }
    H5Dclose(dsf); H5Dclose(dsa); H5Dclose(dsv); H5Dclose(dst);
    H5Gclose(grp);
    HCHK(H5Fclose(file), "Fclose");

    file = open_file(path, H5F_ACC_RDWR, 0);
    static float nadir[NB], rocof[NB], settle[NB], smag[NB], sph[NB];
    double fmode, zeta;
    analyse_frequency(file, dxpl, nadir, rocof, settle);
    analyse_mode(file, dxpl, &fmode, &zeta, smag, sph);
    float *arrays[5] = {nadir, rocof, settle, smag, sph};
    write_analysis(file, arrays, fmode, zeta);
    H5Pclose(dxpl);
    H5Pclose(gcpl_nt);
    H5Pclose(dcpl_nt);
    HCHK(H5Fclose(file), "Fclose");

    snprintf(path, sizeof path, "%s/event_report.txt", outdir);
    FILE *r = fopen(path, "w");
    if (!r) fail("fopen report");
    float gmin = 100, rmax = 0;
    int imin = 0;
    fprintf(r, "power flow: %d Newton iterations, mismatch %.2e\n", newton, mis);
    fprintf(r, "inter-area mode %.3f Hz, damping ratio %.3f\n", fmode, zeta);
    fprintf(r, "area  nadir_min_hz  rocof_max_hz_s  mean_settle_s  mean_mode_deg\n");
    for (int a = 0; a < NAREA; a++) {
        float amin = 100, ar = 0, ast = 0, am = 0;
        for (int i = a * PER_AREA; i < (a + 1) * PER_AREA; i++) {
            if (nadir[i] < amin) amin = nadir[i];
            if (rocof[i] > ar) ar = rocof[i];
            ast += settle[i] / PER_AREA;
            am += smag[i] / PER_AREA;
            if (nadir[i] < gmin) { gmin = nadir[i]; imin = i; }
            if (rocof[i] > rmax) rmax = rocof[i];
        }
        fprintf(r, "%4d  %12.4f  %14.4f  %13.2f  %13.4f\n", a, amin, ar, ast, am);
    }
    if (ferror(r) || fclose(r) != 0) fail("write report");
    printf("PMU stream: %d stations x %d frames; nadir %.4f Hz at bus %d, max RoCoF %.3f Hz/s\n", NB,
           NFRAMES, gmin, imin, rmax);
    printf("inter-area mode %.3f Hz, damping %.3f\n", fmode, zeta);
    MPI_Finalize();
    return 0;
}
