/* FitzHugh-Nagumo excitable cable whose membrane potential is appended to a
 * chunked, extendible HDF5 dataset; probe time series and activation times are
 * then read back by hyperslab and the analysis is stored in the same file. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NX 2000
#define NSTEPS 60000
#define SAMPLE_EVERY 10
#define APPEND_ROWS 50
#define CHUNK_ROWS 50
#define CHUNK_COLS 500
#define PROBE_STRIDE 40
#define ROW_BLOCK 400

typedef struct {
    double D, eps, a, b, dx, dt;
    double stim_period, stim_amp, stim_width;
} fhn_params_t;

static void fail(const char *what)
{
    fprintf(stderr, "h5_cable_spikes: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define TRY_H5(call, what)        \
    do {                           \
        if ((call) < 0)            \
            fail(what);            \
    } while (0)

static void put_attr_double(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t at = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (at < 0)
        fail(name);
    TRY_H5(H5Awrite(at, H5T_NATIVE_DOUBLE, &v), name);
    H5Aclose(at);
    H5Sclose(sp);
}

static void put_attr_string(hid_t obj, const char *name, const char *s)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t ty = H5Tcopy(H5T_C_S1);
    H5Tset_size(ty, strlen(s) + 1);
    hid_t at = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (at < 0)
        fail(name);
    TRY_H5(H5Awrite(at, ty, s), name);
    H5Aclose(at);
    H5Tclose(ty);
    H5Sclose(sp);
}

static double get_attr_double(hid_t obj, const char *name)
{
    double v;
    hid_t at = H5Aopen(obj, name, H5P_DEFAULT);
    if (at < 0)
        fail(name);
    TRY_H5(H5Aread(at, H5T_NATIVE_DOUBLE, &v), name);
    H5Aclose(at);
    return v;
}

static hid_t mpio_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    TRY_H5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "set mpio driver");
    return fapl;
}

typedef struct {
    hid_t file, grp, v, t;
    hsize_t rows;
} cable_file_t;

static void create_output(cable_file_t *cf, const char *path, const fhn_params_t *p)
{
    hid_t fapl = mpio_fapl();
    cf->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (cf->file < 0)
        fail("create file");
    put_attr_string(cf->file, "model", "FitzHugh-Nagumo cable, explicit Euler");
    put_attr_double(cf->file, "D", p->D);
    put_attr_double(cf->file, "eps", p->eps);
    put_attr_double(cf->file, "a", p->a);
    put_attr_double(cf->file, "b", p->b);

    cf->grp = H5Gcreate2(cf->file, "/cable", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (cf->grp < 0)
        fail("create group");

    hsize_t dims[2] = {0, NX}, maxd[2] = {H5S_UNLIMITED, NX}, chunk[2] = {CHUNK_ROWS, CHUNK_COLS};
    hid_t sp = H5Screate_simple(2, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_obj_track_times(dcpl, 0);   /* keep output files reproducible */
    cf->v = H5Dcreate2(cf->grp, "v", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (cf->v < 0)
        fail("create dataset v");
    H5Sclose(sp);
    H5Pclose(dcpl);
    put_attr_double(cf->v, "dx", p->dx);
    put_attr_double(cf->v, "dt_sample", p->dt * SAMPLE_EVERY);
    put_attr_string(cf->v, "units", "dimensionless membrane potential");

    hsize_t d1 = 0, m1 = H5S_UNLIMITED, c1 = 1024;
    sp = H5Screate_simple(1, &d1, &m1);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &c1);
    H5Pset_obj_track_times(dcpl, 0);
    cf->t = H5Dcreate2(cf->grp, "time", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (cf->t < 0)
        fail("create dataset time");
    H5Sclose(sp);
    H5Pclose(dcpl);
    cf->rows = 0;
}

/* Extend both datasets by nrows and write the buffered block at the end. */
static void append_rows(cable_file_t *cf, const float *block, const double *times, hsize_t nrows)
{
    hsize_t newdims[2] = {cf->rows + nrows, NX};
    TRY_H5(H5Dset_extent(cf->v, newdims), "extend v");
    hid_t fs = H5Dget_space(cf->v);
    hsize_t start[2] = {cf->rows, 0}, count[2] = {nrows, NX};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(2, count, NULL);
    TRY_H5(H5Dwrite(cf->v, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, block), "write v rows");
    H5Sclose(ms);
    H5Sclose(fs);

    hsize_t n1 = cf->rows + nrows, s1 = cf->rows;
    TRY_H5(H5Dset_extent(cf->t, &n1), "extend time");
    fs = H5Dget_space(cf->t);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &s1, NULL, &nrows, NULL);
    ms = H5Screate_simple(1, &nrows, NULL);
    TRY_H5(H5Dwrite(cf->t, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, times), "write time");
    H5Sclose(ms);
    H5Sclose(fs);
    cf->rows += nrows;
}

static void close_output(cable_file_t *cf)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t at = H5Acreate2(cf->v, "nrows", H5T_NATIVE_HSIZE, sp, H5P_DEFAULT, H5P_DEFAULT);
    TRY_H5(H5Awrite(at, H5T_NATIVE_HSIZE, &cf->rows), "write nrows");
    H5Aclose(at);
    H5Sclose(sp);
    H5Dclose(cf->t);
    H5Dclose(cf->v);
    H5Gclose(cf->grp);
    TRY_H5(H5Fclose(cf->file), "close file");
}

static double stimulus(const fhn_params_t *p, int i, double t)
{
    double phase = fmod(t, p->stim_period);
    if (i < 10 && phase < p->stim_width)
        return p->stim_amp;
    /* a weaker ectopic site that fires at a slower rhythm */
    if (i >= NX / 2 && i < NX / 2 + 8 && fmod(t + 37.0, 2.7 * p->stim_period) < p->stim_width)
        return p->stim_amp;
    return 0.0;
}

static void fhn_step(const fhn_params_t *p, double *v, double *w, double *vn, double t)
{
    double c = p->D / (p->dx * p->dx);
    for (int i = 0; i < NX; i++) {
        double vl = v[i > 0 ? i - 1 : 1], vr = v[i < NX - 1 ? i + 1 : NX - 2];
        double lap = c * (vl - 2.0 * v[i] + vr);
        double vi = v[i];
        vn[i] = vi + p->dt * (lap + vi - vi * vi * vi / 3.0 - w[i] + stimulus(p, i, t));
        w[i] += p->dt * p->eps * (vi + p->a - p->b * w[i]);
    }
    memcpy(v, vn, sizeof(double) * NX);
}

static void simulate(cable_file_t *cf, const fhn_params_t *p)
{
    double *v = malloc(sizeof(double) * NX), *w = malloc(sizeof(double) * NX);
    double *vn = malloc(sizeof(double) * NX), times[APPEND_ROWS];
    float *block = malloc(sizeof(float) * APPEND_ROWS * NX);
    int nb = 0;
    for (int i = 0; i < NX; i++) {
        v[i] = -1.2;
        w[i] = -0.62;
    }
    for (int s = 1; s <= NSTEPS; s++) {
        double t = s * p->dt;
        fhn_step(p, v, w, vn, t);
        if (s % SAMPLE_EVERY == 0) {
            for (int i = 0; i < NX; i++)
                block[(size_t)nb * NX + i] = (float)v[i];
            times[nb++] = t;
            if (nb == APPEND_ROWS) {
                append_rows(cf, block, times, (hsize_t)nb);
                nb = 0;
            }
        }
    }
    if (nb > 0)
        append_rows(cf, block, times, (hsize_t)nb);
    free(v);
    free(w);
    free(vn);
    free(block);
}

typedef struct {
    int nprobes;
    int probe[NX / PROBE_STRIDE + 1];
    int spikes[NX / PROBE_STRIDE + 1];
    double first_spike[NX / PROBE_STRIDE + 1];
    double mean_isi[NX / PROBE_STRIDE + 1];
    double velocity;
    float *activation;
} analysis_t;

/* Column-wise reads: one probe node's full time series at a time. */
static void analyse_probes(hid_t v, hsize_t nrows, double dts, analysis_t *an)
{
    hid_t fs = H5Dget_space(v);
    hsize_t count[2] = {nrows, 1};
    hid_t ms = H5Screate_simple(2, count, NULL);
    float *series = malloc(sizeof(float) * nrows);
    an->nprobes = 0;
    for (int node = PROBE_STRIDE / 2; node < NX; node += PROBE_STRIDE) {
        hsize_t start[2] = {0, (hsize_t)node};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        TRY_H5(H5Dread(v, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, series), "read probe");
        int k = an->nprobes++, n = 0;
        double last = -1.0, isi = 0.0;
        an->probe[k] = node;
        an->first_spike[k] = -1.0;
        for (hsize_t r = 1; r < nrows; r++) {
            if (series[r - 1] < 1.0f && series[r] >= 1.0f) {
                /* linear interpolation of the crossing time */
                double tc = (r - 1 + (1.0 - series[r - 1]) / (series[r] - series[r - 1])) * dts;
                if (n == 0)
                    an->first_spike[k] = tc;
                else
                    isi += tc - last;
                last = tc;
                n++;
            }
        }
        an->spikes[k] = n;
        an->mean_isi[k] = n > 1 ? isi / (n - 1) : 0.0;
    }
    free(series);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* Row-block reads: first activation time of every node. */
static void activation_map(hid_t v, hsize_t nrows, double dts, analysis_t *an)
{
    hid_t fs = H5Dget_space(v);
    float *blk = malloc(sizeof(float) * ROW_BLOCK * NX);
    float *prev = malloc(sizeof(float) * NX);
    an->activation = malloc(sizeof(float) * NX);
    for (int i = 0; i < NX; i++)
        an->activation[i] = -1.0f;
    for (hsize_t r0 = 0; r0 < nrows; r0 += ROW_BLOCK) {
        hsize_t n = nrows - r0 < ROW_BLOCK ? nrows - r0 : ROW_BLOCK;
        hsize_t start[2] = {r0, 0}, count[2] = {n, NX};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t ms = H5Screate_simple(2, count, NULL);
        TRY_H5(H5Dread(v, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, blk), "read row block");
        H5Sclose(ms);
        for (hsize_t r = 0; r < n; r++) {
            const float *row = blk + r * NX;
            if (r0 + r > 0)
                for (int i = 0; i < NX; i++)
                    if (an->activation[i] < 0 && prev[i] < 1.0f && row[i] >= 1.0f)
                        an->activation[i] = (float)((r0 + r) * dts);
            memcpy(prev, row, sizeof(float) * NX);
        }
    }
    free(blk);
    free(prev);
    H5Sclose(fs);
}

static void analyse(const char *path, analysis_t *an)
{
    hid_t fapl = mpio_fapl();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0)
        fail("reopen file");
    hid_t v = H5Dopen2(f, "/cable/v", H5P_DEFAULT);
    if (v < 0)
        fail("open /cable/v");
    double dx = get_attr_double(v, "dx"), dts = get_attr_double(v, "dt_sample");
    hsize_t dims[2];
    hid_t fs = H5Dget_space(v);
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    if (dims[1] != NX)
        fail("dataset shape check");

    analyse_probes(v, dims[0], dts, an);
    activation_map(v, dims[0], dts, an);

    /* conduction velocity from a least-squares fit over the left half */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 20; i < NX / 2 - 20; i++)
        if (an->activation[i] > 0) {
            double x = i * dx, y = an->activation[i];
            sx += x; sy += y; sxx += x * x; sxy += x * y;
            m++;
        }
    double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    an->velocity = slope > 0 ? 1.0 / slope : 0.0;
    H5Dclose(v);
    H5Fclose(f);
}

static void store_analysis(const char *path, const analysis_t *an)
{
    hid_t fapl = mpio_fapl();
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    if (f < 0)
        fail("reopen file read-write");
    hid_t g = H5Gcreate2(f, "/analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    put_attr_double(g, "conduction_velocity", an->velocity);

    hsize_t np = (hsize_t)an->nprobes, nx = NX;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    hid_t sp = H5Screate_simple(1, &np, NULL);
    hid_t d = H5Dcreate2(g, "probe_node", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    TRY_H5(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, an->probe), "probe_node");
    H5Dclose(d);
    d = H5Dcreate2(g, "spike_count", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    TRY_H5(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, an->spikes), "spike_count");
    H5Dclose(d);
    d = H5Dcreate2(g, "mean_isi", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    TRY_H5(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, an->mean_isi), "mean_isi");
    H5Dclose(d);
    H5Sclose(sp);
    sp = H5Screate_simple(1, &nx, NULL);
    d = H5Dcreate2(g, "activation_time", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    TRY_H5(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, an->activation),
            "activation_time");
    H5Dclose(d);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Gclose(g);
    TRY_H5(H5Fclose(f), "close file");
}

static void write_report(const char *path, const analysis_t *an)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "h5_cable_spikes: cannot create %s: %s\n", path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(f, "# conduction velocity %.5f space units per time unit\n", an->velocity);
    fprintf(f, "# node spikes first_spike mean_isi\n");
    for (int k = 0; k < an->nprobes; k++)
        fprintf(f, "%5d %4d %10.3f %9.3f\n", an->probe[k], an->spikes[k], an->first_spike[k],
                an->mean_isi[k]);
    fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "h5_cable_spikes: cannot create %s: %s\n", argv[1], strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char h5path[4096], rpt[4096];
    snprintf(h5path, sizeof h5path, "%s/cable.h5", argv[1]);
    snprintf(rpt, sizeof rpt, "%s/spikes.txt", argv[1]);

    fhn_params_t p = {.D = 1.0, .eps = 0.08, .a = 0.7, .b = 0.8, .dx = 0.5, .dt = 0.05,
                      .stim_period = 60.0, .stim_amp = 1.2, .stim_width = 2.0};
    cable_file_t cf;
    create_output(&cf, h5path, &p);
    simulate(&cf, &p);
    hsize_t rows = cf.rows;
    close_output(&cf);

    static analysis_t an;
    analyse(h5path, &an);
    store_analysis(h5path, &an);
    write_report(rpt, &an);
    printf("%llu rows x %d nodes, %d probes, velocity %.4f\n", (unsigned long long)rows, NX,
           an.nprobes, an.velocity);
    free(an.activation);
    MPI_Finalize();
    return 0;
}
