/*
 * h5_spent_fuel_decay_heat.c
 *
 * Long-term radionuclide inventory of a spent-fuel pool: every fuel rod
 * segment starts from a burnup- and enrichment-dependent inventory of
 * actinides, fission and activation products, which is decayed through
 * branching decay chains (Pu-241 -> Am-241 -> Np-237, the 4n+2 series from
 * Pu-238 down to Pb-206, Sr-90 -> Y-90, ...) with a matrix exponential of
 * the decay matrix per (logarithmically growing) time step.
 *
 * Time series are written with parallel HDF5 (MPI-IO driver, collective
 * transfers) into extendible chunked datasets; every step extends them by
 * one record and writes one hyperslab:
 *     /time_years            [t]
 *     /inventory_atoms       [t][segment][nuclide]  float64
 *     /activity_bq           [t][segment][nuclide]  float32
 *     /decay_heat_w          [t][segment]           float64
 * Afterwards the file is reopened and nuclide columns are read back with
 * strided hyperslab selections to find when each nuclide dominates the pool
 * activity and how the decay heat distribution evolves; results go into a
 * /summary group and a text report.
 *
 * Usage: h5_spent_fuel_decay_heat OUTDIR     (run with 1 MPI rank)
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSEG    384           /* fuel rod segments */
#define NNUC    27
#define NSTEP   240
#define T0      0.01          /* years */
#define DECADES 6.0
#define SEC_PER_YEAR 3.15576e7
#define MEV_J   1.602176634e-13

typedef struct {
    const char *name;
    double half_life_y;       /* 0 = stable */
    int daughter;             /* index or -1 */
    int daughter2;            /* second branch or -1 */
    double branch2;           /* fraction to daughter2 */
    double q_mev;             /* recoverable energy per decay */
} nuclide;

enum { PU241, AM241, NP237, CS137, BA137M, BA137, SR90, Y90, ZR90, PU238, U234, TH230, RA226,
       RN222, PB210, PO210, PB206, CM244, PU240, U236, PU239, U235, EU154, GD154, CO60, NI60, KR85 };

static const nuclide nuc[NNUC] = {
    [PU241] = {"Pu-241", 14.29, AM241, -1, 0, 0.0052},
    [AM241] = {"Am-241", 432.6, NP237, -1, 0, 5.64},
    [NP237] = {"Np-237", 2.144e6, -1, -1, 0, 4.96},
    [CS137] = {"Cs-137", 30.08, BA137M, BA137, 0.054, 0.19},
    [BA137M] = {"Ba-137m", 4.85e-6, BA137, -1, 0, 0.66},
    [BA137] = {"Ba-137", 0, -1, -1, 0, 0},
    [SR90] = {"Sr-90", 28.79, Y90, -1, 0, 0.196},
    [Y90] = {"Y-90", 7.31e-3, ZR90, -1, 0, 0.934},
    [ZR90] = {"Zr-90", 0, -1, -1, 0, 0},
    [PU238] = {"Pu-238", 87.7, U234, -1, 0, 5.59},
    [U234] = {"U-234", 2.455e5, TH230, -1, 0, 4.86},
    [TH230] = {"Th-230", 7.54e4, RA226, -1, 0, 4.77},
    [RA226] = {"Ra-226", 1600.0, RN222, -1, 0, 4.87},
    [RN222] = {"Rn-222", 1.0468e-2, PB210, -1, 0, 19.2},   /* incl. short-lived progeny */
    [PB210] = {"Pb-210", 22.2, PO210, -1, 0, 1.20},        /* incl. Bi-210 */
    [PO210] = {"Po-210", 0.3789, PB206, -1, 0, 5.41},
    [PB206] = {"Pb-206", 0, -1, -1, 0, 0},
    [CM244] = {"Cm-244", 18.1, PU240, -1, 0, 5.90},
    [PU240] = {"Pu-240", 6561.0, U236, -1, 0, 5.26},
    [U236] = {"U-236", 2.342e7, -1, -1, 0, 4.57},
    [PU239] = {"Pu-239", 24110.0, U235, -1, 0, 5.24},
    [U235] = {"U-235", 7.04e8, -1, -1, 0, 4.68},
    [EU154] = {"Eu-154", 8.601, GD154, -1, 0, 1.53},
    [GD154] = {"Gd-154", 0, -1, -1, 0, 0},
    [CO60] = {"Co-60", 5.271, NI60, -1, 0, 2.60},
    [NI60] = {"Ni-60", 0, -1, -1, 0, 0},
    [KR85] = {"Kr-85", 10.76, -1, -1, 0, 0.25},
};

static const char *g_dir;
static hid_t g_dcpl, g_gcpl;      /* creation properties without timestamps */
static double lam[NNUC];          /* 1/year */
static double A[NNUC][NNUC];      /* dN/dt = A N */

static void fail(const char *what)
{
    fprintf(stderr, "h5_spent_fuel_decay_heat: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define H5CHK(x, what) do { if ((x) < 0) fail(what); } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) fail("malloc");
    return p;
}

static void build_decay_matrix(void)
{
    memset(A, 0, sizeof A);
    for (int i = 0; i < NNUC; i++) {
        lam[i] = nuc[i].half_life_y > 0 ? log(2.0) / nuc[i].half_life_y : 0.0;
        A[i][i] = -lam[i];
    }
    for (int i = 0; i < NNUC; i++) {
        if (lam[i] == 0.0) continue;
        double b2 = nuc[i].daughter2 >= 0 ? nuc[i].branch2 : 0.0;
        if (nuc[i].daughter >= 0) A[nuc[i].daughter][i] += (1.0 - b2) * lam[i];
        if (nuc[i].daughter2 >= 0) A[nuc[i].daughter2][i] += b2 * lam[i];
    }
}

static void matmul(double C[NNUC][NNUC], double X[NNUC][NNUC], double Y[NNUC][NNUC])
{
    double T[NNUC][NNUC];
    for (int i = 0; i < NNUC; i++)
        for (int j = 0; j < NNUC; j++) {
            double s = 0.0;
            for (int k = 0; k < NNUC; k++) s += X[i][k] * Y[k][j];
            T[i][j] = s;
        }
    memcpy(C, T, sizeof T);
}

/* exp(A dt) by scaling and squaring with a degree-14 Taylor polynomial */
static void expm_decay(double dt, double E[NNUC][NNUC])
{
    double norm = 0.0;
    for (int j = 0; j < NNUC; j++) {
        double c = 0.0;
        for (int i = 0; i < NNUC; i++) c += fabs(A[i][j]);
        if (c > norm) norm = c;
    }
    norm *= dt;
    int s = 0;
    while (norm > 0.25) { norm *= 0.5; s++; }
    double scale = dt / ldexp(1.0, s);
    double X[NNUC][NNUC], term[NNUC][NNUC];
    for (int i = 0; i < NNUC; i++)
        for (int j = 0; j < NNUC; j++) {
            X[i][j] = A[i][j] * scale;
            E[i][j] = (i == j);
            term[i][j] = (i == j);
        }
    for (int k = 1; k <= 14; k++) {
        matmul(term, term, X);
        for (int i = 0; i < NNUC; i++)
            for (int j = 0; j < NNUC; j++) {
                term[i][j] /= k;
                E[i][j] += term[i][j];
            }
    }
    for (int q = 0; q < s; q++) matmul(E, E, E);
}

/* per-segment discharge inventory from burnup (GWd/tHM), enrichment and
 * axial position; crude but monotone fits per nuclide, atoms per segment */
static void initial_inventory(double *N)
{
    unsigned long long st = 0x5EED0F5EEDull;
    for (int s = 0; s < NSEG; s++) {
        st = st * 2862933555777941757ull + 3037000493ull;
        double u = (double)(st >> 11) * 0x1.0p-53;
        st = st * 2862933555777941757ull + 3037000493ull;
        double v = (double)(st >> 11) * 0x1.0p-53;
        int axial = s % 16;
        double shape = sin(3.14159265 * (axial + 0.5) / 16.0);
        double bu = (25.0 + 35.0 * u) * (0.75 + 0.3 * shape);
        double enr = 3.2 + 1.5 * v;
        double hm = 1.2e24;                       /* heavy-metal atoms per segment */
        double *n = N + (size_t)s * NNUC;
        memset(n, 0, NNUC * sizeof(double));
        double fiss = hm * bu / 950.0;            /* ~ fissions per segment */
        n[CS137] = 0.0619 * fiss;
        n[BA137M] = n[CS137] * 1.5e-7;
        n[SR90] = 0.0577 * fiss * (1.1 - 0.05 * enr);
        n[Y90] = n[SR90] * 2.5e-4;
        n[KR85] = 0.0029 * fiss;
        n[EU154] = 2.0e-5 * fiss * bu / 40.0;
        n[CO60] = 4.0e18 * (0.5 + shape);
        n[PU239] = hm * 0.0058 * (1.0 - exp(-bu / 15.0)) * (4.0 / enr);
        n[PU240] = hm * 0.0024 * (bu / 45.0);
        n[PU241] = hm * 0.0013 * pow(bu / 45.0, 1.6);
        n[PU238] = hm * 3.0e-4 * pow(bu / 45.0, 2.2) * (4.0 / enr);
        n[CM244] = hm * 6.0e-5 * pow(bu / 45.0, 3.5) * (4.0 / enr);
        n[AM241] = n[PU241] * 0.02;
        n[U235] = hm * (enr / 100.0) * exp(-bu / 38.0);
        n[U236] = hm * 0.0045 * (bu / 45.0) * (enr / 4.0);
        n[U234] = hm * 2.0e-4;
        n[NP237] = hm * 6.0e-4 * (bu / 45.0);
    }
}

typedef struct {
    hid_t file, dxpl;
    hid_t d_time, d_inv, d_act, d_heat;
} h5out;

static hid_t make_extendible(hid_t file, const char *name, hid_t type, int rank, const hsize_t *chunk,
                             const hsize_t *tail)
{
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0};
    for (int k = 1; k < rank; k++) dims[k] = maxd[k] = tail[k - 1];
    hid_t sp = H5Screate_simple(rank, dims, maxd);
    H5CHK(sp, "H5Screate_simple");
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(dcpl, "H5Pcreate dcpl");
    H5CHK(H5Pset_chunk(dcpl, rank, chunk), "H5Pset_chunk");
    H5CHK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
    H5CHK(H5Pset_obj_track_times(dcpl, 0), "H5Pset_obj_track_times");
    hid_t d = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(d, name);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return d;
}

static void write_nuclide_table(hid_t file)
{
    hid_t g = H5Gcreate2(file, "/nuclides", H5P_DEFAULT, g_gcpl, H5P_DEFAULT);
    H5CHK(g, "create /nuclides");
    hid_t st = H5Tcopy(H5T_C_S1);
    H5CHK(H5Tset_size(st, 8), "set str size");
    char names[NNUC][8];
    double hl[NNUC], q[NNUC];
    for (int i = 0; i < NNUC; i++) {
        memset(names[i], 0, 8);
        strncpy(names[i], nuc[i].name, 7);
        hl[i] = nuc[i].half_life_y;
        q[i] = nuc[i].q_mev;
    }
    hsize_t n = NNUC;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(g, "name", st, sp, H5P_DEFAULT, g_dcpl, H5P_DEFAULT);
    H5CHK(d, "create name");
    H5CHK(H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, names), "write names");
    H5Dclose(d);
    d = H5Dcreate2(g, "half_life_years", H5T_IEEE_F64LE, sp, H5P_DEFAULT, g_dcpl, H5P_DEFAULT);
    H5CHK(d, "create half_life");
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, hl), "write half_life");
    H5Dclose(d);
    d = H5Dcreate2(g, "q_mev", H5T_IEEE_F64LE, sp, H5P_DEFAULT, g_dcpl, H5P_DEFAULT);
    H5CHK(d, "create q");
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q), "write q");
    H5Dclose(d);
    hsize_t an = NNUC * NNUC;
    hid_t asp = H5Screate_simple(1, &an, NULL);
    hid_t at = H5Acreate2(g, "decay_matrix_per_year", H5T_IEEE_F64LE, asp, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(at, "create attr");
    H5CHK(H5Awrite(at, H5T_NATIVE_DOUBLE, A), "write attr");
    H5Aclose(at);
    H5Sclose(asp);
    H5Sclose(sp);
    H5Tclose(st);
    H5Gclose(g);
}

static void open_output(h5out *o)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/pool_inventory.h5", g_dir);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(fapl, "H5Pcreate fapl");
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    o->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5CHK(o->file, "H5Fcreate");
    H5Pclose(fapl);
    o->dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(o->dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");

    hsize_t c1[1] = {64};
    hsize_t c3[3] = {4, 128, NNUC}, t3[2] = {NSEG, NNUC};
    hsize_t c2[2] = {16, NSEG}, t2[1] = {NSEG};
    o->d_time = make_extendible(o->file, "/time_years", H5T_IEEE_F64LE, 1, c1, NULL);
    o->d_inv = make_extendible(o->file, "/inventory_atoms", H5T_IEEE_F64LE, 3, c3, t3);
    o->d_act = make_extendible(o->file, "/activity_bq", H5T_IEEE_F32LE, 3, c3, t3);
    o->d_heat = make_extendible(o->file, "/decay_heat_w", H5T_IEEE_F64LE, 2, c2, t2);
    write_nuclide_table(o->file);
}

/* grow one dataset by one record and write the new slab */
static void append_record(hid_t d, hid_t dxpl, int rank, hsize_t step, const hsize_t *tail, hid_t memtype,
                          const void *buf)
{
    hsize_t dims[3], start[3] = {step, 0, 0}, count[3];
    dims[0] = step + 1;
    count[0] = 1;
    for (int k = 1; k < rank; k++) dims[k] = count[k] = tail[k - 1];
    H5CHK(H5Dset_extent(d, dims), "H5Dset_extent");
    hid_t fs = H5Dget_space(d);
    H5CHK(fs, "H5Dget_space");
    H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t ms = H5Screate_simple(rank, count, NULL);
    H5CHK(H5Dwrite(d, memtype, ms, fs, dxpl, buf), "H5Dwrite step");
    H5Sclose(ms);
    H5Sclose(fs);
}

static void append_step(h5out *o, int step, double t, const double *N, const float *act, const double *heat)
{
    hsize_t t3[2] = {NSEG, NNUC}, t2[1] = {NSEG};
    append_record(o->d_time, o->dxpl, 1, (hsize_t)step, NULL, H5T_NATIVE_DOUBLE, &t);
    append_record(o->d_inv, o->dxpl, 3, (hsize_t)step, t3, H5T_NATIVE_DOUBLE, N);
    append_record(o->d_act, o->dxpl, 3, (hsize_t)step, t3, H5T_NATIVE_FLOAT, act);
    append_record(o->d_heat, o->dxpl, 2, (hsize_t)step, t2, H5T_NATIVE_DOUBLE, heat);
}

/* N <- E N for every segment */
static void advance_segments(double E[NNUC][NNUC], double *N)
{
    double tmp[NNUC];
    for (int s = 0; s < NSEG; s++) {
        double *n = N + (size_t)s * NNUC;
        for (int i = 0; i < NNUC; i++) {
            double acc = 0.0;
            for (int j = 0; j < NNUC; j++) acc += E[i][j] * n[j];
            tmp[i] = acc;
        }
        memcpy(n, tmp, sizeof tmp);
    }
}

static void activity_and_heat(const double *N, float *act, double *heat)
{
    for (int s = 0; s < NSEG; s++) {
        double w = 0.0;
        for (int i = 0; i < NNUC; i++) {
            double a = lam[i] / SEC_PER_YEAR * N[(size_t)s * NNUC + i];
            act[(size_t)s * NNUC + i] = (float)a;
            w += a * nuc[i].q_mev * MEV_J;
        }
        heat[s] = w;
    }
}

/* reopen, read activity columns back nuclide by nuclide (strided selection
 * over the last dimension) and the heat field at chosen times */
static void analyse_file(double *peak_share, double *peak_time, double heat_pct[3][3], double *total_heat_t,
                         double *times)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/pool_inventory.h5", g_dir);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl");
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5CHK(f, "H5Fopen");
    H5Pclose(fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "dxpl");

    hid_t dt = H5Dopen2(f, "/time_years", H5P_DEFAULT);
    H5CHK(dt, "open time");
    H5CHK(H5Dread(dt, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, times), "read time");
    H5Dclose(dt);

    hid_t da = H5Dopen2(f, "/activity_bq", H5P_DEFAULT);
    H5CHK(da, "open activity");
    hid_t fs = H5Dget_space(da);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    if (dims[0] != NSTEP || dims[1] != NSEG || dims[2] != NNUC) fail("activity extent");

    float *col = xmalloc(sizeof(float) * NSTEP * NSEG);
    double *tot = xmalloc(sizeof(double) * NNUC * NSTEP);
    for (int k = 0; k < NNUC; k++) {
        hsize_t start[3] = {0, 0, (hsize_t)k}, count[3] = {NSTEP, NSEG, 1};
        H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select column");
        hsize_t mdim[1] = {(hsize_t)NSTEP * NSEG};
        hid_t ms = H5Screate_simple(1, mdim, NULL);
        H5CHK(H5Dread(da, H5T_NATIVE_FLOAT, ms, fs, dxpl, col), "read column");
        H5Sclose(ms);
        for (int t = 0; t < NSTEP; t++) {
            double s = 0.0;
            for (int g = 0; g < NSEG; g++) s += col[(size_t)t * NSEG + g];
            tot[k * NSTEP + t] = s;
        }
    }
    H5Sclose(fs);
    H5Dclose(da);
    for (int k = 0; k < NNUC; k++) {
        peak_share[k] = 0.0;
        peak_time[k] = 0.0;
    }
    for (int t = 0; t < NSTEP; t++) {
        double all = 0.0;
        for (int k = 0; k < NNUC; k++) all += tot[k * NSTEP + t];
        for (int k = 0; k < NNUC; k++) {
            double sh = all > 0 ? tot[k * NSTEP + t] / all : 0.0;
            if (sh > peak_share[k]) { peak_share[k] = sh; peak_time[k] = times[t]; }
        }
    }

    /* decay heat distribution across segments at three epochs */
    hid_t dh = H5Dopen2(f, "/decay_heat_w", H5P_DEFAULT);
    H5CHK(dh, "open heat");
    hid_t hs = H5Dget_space(dh);
    double *row = xmalloc(sizeof(double) * NSEG);
    const double epochs[3] = {1.0, 100.0, 10000.0};
    for (int e = 0; e < 3; e++) {
        int t = 0;
        while (t + 1 < NSTEP && times[t] < epochs[e]) t++;
        hsize_t start[2] = {(hsize_t)t, 0}, count[2] = {1, NSEG};
        H5CHK(H5Sselect_hyperslab(hs, H5S_SELECT_SET, start, NULL, count, NULL), "select heat");
        hsize_t m = NSEG;
        hid_t ms = H5Screate_simple(1, &m, NULL);
        H5CHK(H5Dread(dh, H5T_NATIVE_DOUBLE, ms, hs, dxpl, row), "read heat");
        H5Sclose(ms);
        /* insertion sort is fine for 2k values */
        for (int i = 1; i < NSEG; i++) {
            double x = row[i];
            int j = i - 1;
            while (j >= 0 && row[j] > x) { row[j + 1] = row[j]; j--; }
            row[j + 1] = x;
        }
        heat_pct[e][0] = row[NSEG / 20];
        heat_pct[e][1] = row[NSEG / 2];
        heat_pct[e][2] = row[NSEG - 1 - NSEG / 20];
    }
    /* pool total heat curve */
    hsize_t start[2] = {0, 0}, count[2] = {NSTEP, NSEG};
    H5CHK(H5Sselect_hyperslab(hs, H5S_SELECT_SET, start, NULL, count, NULL), "select all heat");
    double *all = xmalloc(sizeof(double) * NSTEP * NSEG);
    H5CHK(H5Dread(dh, H5T_NATIVE_DOUBLE, H5S_ALL, hs, dxpl, all), "read all heat");
    for (int t = 0; t < NSTEP; t++) {
        double s = 0.0;
        for (int g = 0; g < NSEG; g++) s += all[(size_t)t * NSEG + g];
        total_heat_t[t] = s;
    }
    H5Sclose(hs);
    H5Dclose(dh);

    /* summary group */
    hid_t g = H5Gcreate2(f, "/summary", H5P_DEFAULT, g_gcpl, H5P_DEFAULT);
    H5CHK(g, "create summary");
    hsize_t n = NNUC;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(g, "peak_activity_share", H5T_IEEE_F64LE, sp, H5P_DEFAULT, g_dcpl, H5P_DEFAULT);
    H5CHK(d, "create peak share");
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, peak_share), "write peak share");
    H5Dclose(d);
    d = H5Dcreate2(g, "peak_time_years", H5T_IEEE_F64LE, sp, H5P_DEFAULT, g_dcpl, H5P_DEFAULT);
    H5CHK(d, "create peak time");
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, peak_time), "write peak time");
    H5Dclose(d);
    H5Sclose(sp);
    hsize_t nt = NSTEP;
    sp = H5Screate_simple(1, &nt, NULL);
    d = H5Dcreate2(g, "pool_heat_w", H5T_IEEE_F64LE, sp, H5P_DEFAULT, g_dcpl, H5P_DEFAULT);
    H5CHK(d, "create pool heat");
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, total_heat_t), "write pool heat");
    H5Dclose(d);
    H5Sclose(sp);
    H5Gclose(g);

    H5Pclose(dxpl);
    H5CHK(H5Fclose(f), "H5Fclose");
    free(col); free(tot); free(row); free(all);
}

static void write_report(const double *peak_share, const double *peak_time, double heat_pct[3][3],
                         const double *pool_heat, const double *times)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/decay_report.txt", g_dir);
    FILE *fp = fopen(path, "w");
    if (!fp) fail("fopen report");
    int bad = 0;
    bad |= fprintf(fp, "spent fuel pool: %d segments, %d nuclides, %d steps (%.2g..%.2g y)\n", NSEG, NNUC,
                   NSTEP, times[0], times[NSTEP - 1]) < 0;
    bad |= fprintf(fp, "\n%-8s %12s %10s %12s\n", "nuclide", "half-life y", "max share", "at year") < 0;
    for (int k = 0; k < NNUC; k++)
        if (nuc[k].half_life_y > 0)
            bad |= fprintf(fp, "%-8s %12.4g %10.4f %12.4g\n", nuc[k].name, nuc[k].half_life_y, peak_share[k],
                           peak_time[k]) < 0;
    const char *lbl[3] = {"1 y", "100 y", "10000 y"};
    bad |= fprintf(fp, "\nsegment decay heat (W): p5 / median / p95\n") < 0;
    for (int e = 0; e < 3; e++)
        bad |= fprintf(fp, "  %-8s %12.5g %12.5g %12.5g\n", lbl[e], heat_pct[e][0], heat_pct[e][1],
                       heat_pct[e][2]) < 0;
    bad |= fprintf(fp, "\npool heat curve (every 12th step)\n") < 0;
    for (int t = 0; t < NSTEP; t += 12)
        bad |= fprintf(fp, "  %12.5g y %14.6g W\n", times[t], pool_heat[t]) < 0;
    if (bad || fclose(fp) != 0) fail("write report");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    g_dir = argv[1];
    g_dcpl = H5Pcreate(H5P_DATASET_CREATE);
    g_gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5CHK(g_dcpl, "H5Pcreate");
    H5CHK(g_gcpl, "H5Pcreate");
    H5CHK(H5Pset_obj_track_times(g_dcpl, 0), "track times");
    H5CHK(H5Pset_obj_track_times(g_gcpl, 0), "track times");
    build_decay_matrix();

    double *N = xmalloc(sizeof(double) * NSEG * NNUC);
    float *act = xmalloc(sizeof(float) * NSEG * NNUC);
    double *heat = xmalloc(sizeof(double) * NSEG);
    initial_inventory(N);

    h5out o;
    open_output(&o);
    double t = 0.0;
    double E[NNUC][NNUC];
    for (int step = 0; step < NSTEP; step++) {
        double tn = T0 * pow(10.0, DECADES * step / (NSTEP - 1));
        expm_decay(tn - t, E);
        advance_segments(E, N);
        t = tn;
        activity_and_heat(N, act, heat);
        append_step(&o, step, t, N, act, heat);
    }
    H5Dclose(o.d_time); H5Dclose(o.d_inv); H5Dclose(o.d_act); H5Dclose(o.d_heat);
    H5Pclose(o.dxpl);
    H5CHK(H5Fclose(o.file), "H5Fclose");

    double peak_share[NNUC], peak_time[NNUC], heat_pct[3][3], pool_heat[NSTEP], times[NSTEP];
    analyse_file(peak_share, peak_time, heat_pct, pool_heat, times);
    write_report(peak_share, peak_time, heat_pct, pool_heat, times);

    printf("h5_spent_fuel_decay_heat: %d segments x %d nuclides, %d steps to %.0f years\n", NSEG, NNUC, NSTEP, t);
    printf("  pool decay heat: %.4g W at %.2g y, %.4g W at %.0f y\n", pool_heat[0], times[0],
           pool_heat[NSTEP - 1], times[NSTEP - 1]);
    free(N); free(act); free(heat);
    H5Pclose(g_dcpl);
    H5Pclose(g_gcpl);
    MPI_Finalize();
    return 0;
}
