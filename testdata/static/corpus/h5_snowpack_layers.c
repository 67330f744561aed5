/* h5_snowpack_layers: a layered snowpack model (heat conduction, compaction
 * and melt-water percolation) over a transect of sites.  Every output step the
 * temperature and density of all layers are written as one hyperslab of
 * time-indexed 3-D datasets through parallel HDF5 with collective MPI-IO
 * transfers; afterwards per-site time slabs are read back collectively to
 * build a melt-onset / SWE summary written to a second group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <mpi.h>
#include <hdf5.h>

#define NSITE 384
#define NLAY 40
#define NOUT 240
#define SUBSTEPS 12
#define READ_BLOCK 32

typedef struct {
    int nsite, nlay;
    double *T;    /* deg C */
    double *rho;  /* kg/m3 */
    double *dz;   /* m */
    double *lwc;  /* liquid water fraction */
} Snowpack;

static void pack_init(Snowpack *s, int nsite, int nlay)
{
    size_t n = (size_t)nsite * nlay;
    s->nsite = nsite; s->nlay = nlay;
    s->T = malloc(n * sizeof(double)); s->rho = malloc(n * sizeof(double));
    s->dz = malloc(n * sizeof(double)); s->lwc = calloc(n, sizeof(double));
    for (int i = 0; i < nsite; i++)
        for (int k = 0; k < nlay; k++) {
            size_t j = (size_t)i * nlay + k;
            s->T[j] = -12.0 + 0.2 * k + 2.0 * sin(0.05 * i);
            s->rho[j] = 120.0 + 8.0 * k + 20.0 * cos(0.03 * i);
            s->dz[j] = 0.05 + 0.001 * (i % 17);
        }
}

static double air_temp(int step, int site)
{
    double day = step / (double)SUBSTEPS;
    return -8.0 + 0.09 * day + 6.0 * sin(2 * M_PI * day) - 0.01 * site;
}

/* compute-bound physics kernel */
static void pack_advance(Snowpack *s, int t0, int nsub)
{
    int nl = s->nlay;
    double *flux = malloc((size_t)(nl + 1) * sizeof(double));
    for (int st = 0; st < nsub; st++) {
        int step = t0 * nsub + st;
        for (int i = 0; i < s->nsite; i++) {
            double *T = s->T + (size_t)i * nl, *rho = s->rho + (size_t)i * nl;
            double *dz = s->dz + (size_t)i * nl, *w = s->lwc + (size_t)i * nl;
            double ta = air_temp(step, i);
            double load = 0.0;
            for (int k = 1; k < nl; k++) {
                double kc = 2.5e-6 * (0.5 * (rho[k] + rho[k - 1])) * (0.5 * (rho[k] + rho[k - 1]));
                flux[k] = kc * (T[k - 1] - T[k]) / (0.5 * (dz[k] + dz[k - 1]));
            }
            flux[0] = 0.8 * (ta - T[0]);
            flux[nl] = 0.0;
            double melt_in = 0.0;
            for (int k = 0; k < nl; k++) {
                double cap = rho[k] * 2090.0 * dz[k];
                T[k] += 150.0 * (flux[k] - flux[k + 1]) / cap;
                if (T[k] > 0.0) { double e = T[k] * cap; T[k] = 0.0; w[k] += e / (334000.0 * rho[k] * dz[k]); }
                w[k] += melt_in; melt_in = 0.0;
                if (w[k] > 0.03) { melt_in = w[k] - 0.03; w[k] = 0.03; }
                if (w[k] > 0 && T[k] < 0) { double fr = fmin(w[k], -T[k] * 2090.0 / 334000.0); w[k] -= fr; T[k] += fr * 334000.0 / 2090.0; }
                                double visc = 3.7e7 * exp(0.024 * rho[k] - 0.1 * T[k]);
                double strain = (9.81 * load + 50.0) / visc * 3600.0;
                rho[k] *= 1.0 + strain; dz[k] /= 1.0 + strain;
                if (rho[k] > 917.0) rho[k] = 917.0;
                load += rho[k] * dz[k];
            }
        }
    }
    free(flux);
}

static hid_t open_parallel_file(const char *path, int create)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    if (f < 0) { fprintf(stderr, "cannot open %s\n", path); MPI_Abort(MPI_COMM_WORLD, 1); }
    return f;
}

static hid_t make_series(hid_t grp, const char *name, hid_t type, const char *units)
{
    hsize_t dims[3] = {NOUT, NSITE, NLAY};
    hid_t sp = H5Screate_simple(3, dims, NULL);
    hid_t ds = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t st = H5Tcopy(H5T_C_S1); H5Tset_size(st, strlen(units) + 1);
    hid_t at = H5Acreate2(ds, "units", st, as, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(at, st, units);
    H5Aclose(at); H5Tclose(st); H5Sclose(as); H5Sclose(sp);
    return ds;
}

/* collective hyperslab write of one output step */
static void write_step(hid_t ds, hid_t memtype, const void *buf, int t, hid_t dxpl)
{
    hsize_t start[3] = {(hsize_t)t, 0, 0}, count[3] = {1, NSITE, NLAY};
    hid_t fs = H5Dget_space(ds);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(3, count, NULL);
    if (H5Dwrite(ds, memtype, ms, fs, dxpl, buf) < 0) MPI_Abort(MPI_COMM_WORLD, 2);
    H5Sclose(ms); H5Sclose(fs);
}

static void to_float(const double *a, float *b, size_t n) { for (size_t i = 0; i < n; i++) b[i] = (float)a[i]; }

static void run_model(hid_t file, hid_t dxpl, Snowpack *s)
{
    hid_t g = H5Gcreate2(file, "/model", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dT = make_series(g, "temperature", H5T_IEEE_F32LE, "degC");
    hid_t dR = make_series(g, "density", H5T_IEEE_F32LE, "kg m-3");
    hid_t dW = make_series(g, "liquid_water", H5T_IEEE_F32LE, "1");
    size_t n = (size_t)NSITE * NLAY;
    float *buf = malloc(n * sizeof(float));
    for (int t = 0; t < NOUT; t++) {
        pack_advance(s, t, SUBSTEPS);
        to_float(s->T, buf, n);   write_step(dT, H5T_NATIVE_FLOAT, buf, t, dxpl);
        to_float(s->rho, buf, n); write_step(dR, H5T_NATIVE_FLOAT, buf, t, dxpl);
        to_float(s->lwc, buf, n); write_step(dW, H5T_NATIVE_FLOAT, buf, t, dxpl);
    }
    free(buf);
    H5Dclose(dT); H5Dclose(dR); H5Dclose(dW); H5Gclose(g);
}

/* collective read of all steps for a block of sites; melt onset and SWE */
static void summarize(hid_t file, hid_t dxpl, int *onset, float *swe_max)
{
    hid_t dT = H5Dopen2(file, "/model/temperature", H5P_DEFAULT);
    hid_t dR = H5Dopen2(file, "/model/density", H5P_DEFAULT);
    hsize_t count[3] = {NOUT, READ_BLOCK, NLAY};
    size_t n = (size_t)NOUT * READ_BLOCK * NLAY;
    float *T = malloc(n * sizeof(float)), *R = malloc(n * sizeof(float));
    hid_t ms = H5Screate_simple(3, count, NULL);
    for (int s0 = 0; s0 < NSITE; s0 += READ_BLOCK) {
        hsize_t start[3] = {0, (hsize_t)s0, 0};
        hid_t fs = H5Dget_space(dT);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dread(dT, H5T_NATIVE_FLOAT, ms, fs, dxpl, T);
        H5Dread(dR, H5T_NATIVE_FLOAT, ms, fs, dxpl, R);
        H5Sclose(fs);
        for (int b = 0; b < READ_BLOCK; b++) {
            int site = s0 + b;
            onset[site] = -1; swe_max[site] = 0;
            for (int t = 0; t < NOUT; t++) {
                float swe = 0; int wet = 0;
                for (int k = 0; k < NLAY; k++) {
                    size_t j = ((size_t)t * READ_BLOCK + b) * NLAY + k;
                    swe += R[j] * 0.05f;
                    wet += T[j] > -0.01f;
                }
                if (swe > swe_max[site]) swe_max[site] = swe;
                if (onset[site] < 0 && wet >= 3) onset[site] = t;
            }
        }
    }
    H5Sclose(ms); free(T); free(R);
    H5Dclose(dT); H5Dclose(dR);
}

static void write_summary(hid_t file, hid_t dxpl, const int *onset, const float *swe)
{
    hid_t g = H5Gcreate2(file, "/summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t d = NSITE;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    hid_t a = H5Dcreate2(g, "melt_onset_step", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t b = H5Dcreate2(g, "swe_max", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(a, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, onset);
    H5Dwrite(b, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, dxpl, swe);
    H5Dclose(a); H5Dclose(b); H5Sclose(sp); H5Gclose(g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 1); }
    char path[512];
    snprintf(path, sizeof path, "%s/snowpack_transect.h5", argv[1]);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    Snowpack s;
    pack_init(&s, NSITE, NLAY);
    hid_t f = open_parallel_file(path, 1);
    run_model(f, dxpl, &s);
    H5Fclose(f);

    f = open_parallel_file(path, 0);
    int *onset = malloc(NSITE * sizeof(int));
    float *swe = malloc(NSITE * sizeof(float));
    summarize(f, dxpl, onset, swe);
    write_summary(f, dxpl, onset, swe);
    H5Fclose(f);
    int melted = 0; double sm = 0;
    for (int i = 0; i < NSITE; i++) { melted += onset[i] >= 0; sm += swe[i]; }
    printf("sites %d melted %d mean max SWE %.2f\n", NSITE, melted, sm / NSITE);
    H5Pclose(dxpl);
    free(onset); free(swe); free(s.T); free(s.rho); free(s.dz); free(s.lwc);
    MPI_Finalize();
    return 0;
}
