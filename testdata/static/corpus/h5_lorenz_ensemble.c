/*
 * h5_lorenz_ensemble: integrates an ensemble of Lorenz-63 systems with RK4
 * and appends every output step to chunked, extendible HDF5 datasets
 * (states[t][member][3] and ensemble mean/spread[t][3]) via H5Dset_extent and
 * hyperslab writes.  Model parameters and the number of written steps are
 * stored as attributes.  The file is then reopened read-only, a block of
 * steps x members is read back and compared with a copy kept in memory.
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NMEMBERS     192
#define NOUT         3000
#define SUBSTEPS     24
#define DT           0.0015
#define CHUNK_T      32
#define CHECK_T0     600
#define CHECK_NT     400
#define CHECK_M0     40
#define CHECK_NM     16

struct lorenz_params {
    double sigma, rho, beta;
};

struct series_writer {
    hid_t file;
    hid_t states;      /* [t][NMEMBERS][3] */
    hid_t stats;       /* [t][2][3]  mean and spread */
    hsize_t nwritten;
};

static void check(herr_t rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "h5_lorenz_ensemble: %s failed\n", what);
        exit(2);
    }
}

static void lorenz_rhs(const struct lorenz_params *p, const double *s, double *ds)
{
    ds[0] = p->sigma * (s[1] - s[0]);
    ds[1] = s[0] * (p->rho - s[2]) - s[1];
    ds[2] = s[0] * s[1] - p->beta * s[2];
}

static void rk4_advance(const struct lorenz_params *p, double *s, int nsub)
{
    double k1[3], k2[3], k3[3], k4[3], t[3];
    for (int it = 0; it < nsub; it++) {
        lorenz_rhs(p, s, k1);
        for (int d = 0; d < 3; d++) t[d] = s[d] + 0.5 * DT * k1[d];
        lorenz_rhs(p, t, k2);
        for (int d = 0; d < 3; d++) t[d] = s[d] + 0.5 * DT * k2[d];
        lorenz_rhs(p, t, k3);
        for (int d = 0; d < 3; d++) t[d] = s[d] + DT * k3[d];
        lorenz_rhs(p, t, k4);
        for (int d = 0; d < 3; d++) s[d] += DT / 6.0 * (k1[d] + 2.0 * k2[d] + 2.0 * k3[d] + k4[d]);
    }
}

static void ensemble_stats(const double *ens, double *out /* [2][3] */)
{
    double mean[3] = {0, 0, 0}, var[3] = {0, 0, 0};
    for (int m = 0; m < NMEMBERS; m++)
        for (int d = 0; d < 3; d++) mean[d] += ens[3 * m + d];
    for (int d = 0; d < 3; d++) mean[d] /= NMEMBERS;
    for (int m = 0; m < NMEMBERS; m++)
        for (int d = 0; d < 3; d++) {
            double e = ens[3 * m + d] - mean[d];
            var[d] += e * e;
        }
    for (int d = 0; d < 3; d++) {
        out[d] = mean[d];
        out[3 + d] = sqrt(var[d] / (NMEMBERS - 1));
    }
}

static hid_t make_extendible(hid_t file, const char *name, int rank, const hsize_t *inner, const hsize_t *chunk)
{
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0};
    for (int r = 1; r < rank; r++) dims[r] = maxd[r] = inner[r - 1];
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    check(H5Pset_chunk(dcpl, rank, chunk), "H5Pset_chunk");
    hid_t ds = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) check(-1, "H5Dcreate2");
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
}

static void put_double_attr(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, H5T_NATIVE_DOUBLE, &v), "H5Awrite");
    H5Aclose(a);
    H5Sclose(sp);
}

static void writer_open(struct series_writer *w, const char *path, const struct lorenz_params *p)
{
    w->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (w->file < 0) check(-1, "H5Fcreate");
    hsize_t inner_s[2] = {NMEMBERS, 3}, chunk_s[3] = {CHUNK_T, NMEMBERS, 3};
    hsize_t inner_m[2] = {2, 3}, chunk_m[3] = {CHUNK_T, 2, 3};
    w->states = make_extendible(w->file, "states", 3, inner_s, chunk_s);
    w->stats = make_extendible(w->file, "mean_spread", 3, inner_m, chunk_m);
    put_double_attr(w->states, "sigma", p->sigma);
    put_double_attr(w->states, "rho", p->rho);
    put_double_attr(w->states, "beta", p->beta);
    put_double_attr(w->states, "dt_output", DT * SUBSTEPS);
    w->nwritten = 0;
}

/* grow a dataset by one step along the unlimited axis and write that step */
static void append_step(hid_t ds, hsize_t t, hsize_t d1, hsize_t d2, const double *buf)
{
    hsize_t newdims[3] = {t + 1, d1, d2};
    check(H5Dset_extent(ds, newdims), "H5Dset_extent");
    hid_t fspace = H5Dget_space(ds);
    hsize_t start[3] = {t, 0, 0}, count[3] = {1, d1, d2};
    check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t mspace = H5Screate_simple(3, count, NULL);
    check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf), "H5Dwrite");
    H5Sclose(mspace);
    H5Sclose(fspace);
}

static void writer_close(struct series_writer *w)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(w->states, "steps_written", H5T_NATIVE_HSIZE, sp, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, H5T_NATIVE_HSIZE, &w->nwritten), "H5Awrite steps");
    H5Aclose(a);
    H5Sclose(sp);
    H5Dclose(w->states);
    H5Dclose(w->stats);
    H5Fclose(w->file);
}

static int verify_file(const char *path, const double *expect, const struct lorenz_params *p)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    hid_t ds = H5Dopen2(f, "states", H5P_DEFAULT);
    hsize_t nsteps = 0;
    double rho = 0.0;
    hid_t a = H5Aopen(ds, "steps_written", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_HSIZE, &nsteps);
    H5Aclose(a);
    a = H5Aopen(ds, "rho", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, &rho);
    H5Aclose(a);
    int bad = (nsteps != NOUT) + (rho != p->rho);

    hid_t fspace = H5Dget_space(ds);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fspace, dims, NULL);
    if (dims[0] != NOUT || dims[1] != NMEMBERS) bad++;
    hsize_t start[3] = {CHECK_T0, CHECK_M0, 0}, count[3] = {CHECK_NT, CHECK_NM, 3};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mspace = H5Screate_simple(3, count, NULL);
    double *got = malloc(CHECK_NT * CHECK_NM * 3 * sizeof(double));
    check(H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, got), "H5Dread");
    for (size_t i = 0; i < (size_t)CHECK_NT * CHECK_NM * 3; i++)
        if (got[i] != expect[i]) bad++;
    free(got);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(ds);
    H5Fclose(f);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: h5_lorenz_ensemble DIR\n"); return 1; }
    mkdir(argv[1], 0755);
    char path[1024];
    snprintf(path, sizeof path, "%s/ensemble.h5", argv[1]);

    struct lorenz_params p = {10.0, 28.0, 8.0 / 3.0};
    double *ens = malloc(NMEMBERS * 3 * sizeof(double));
    double *keep = malloc((size_t)CHECK_NT * CHECK_NM * 3 * sizeof(double));
    unsigned long long s = 88172645463325252ull;
    for (int m = 0; m < NMEMBERS; m++)
        for (int d = 0; d < 3; d++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            ens[3 * m + d] = (d == 2 ? 25.0 : 1.0) + 1e-3 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
        }

    struct series_writer w;
    writer_open(&w, path, &p);
    double stats[6];
    for (int t = 0; t < NOUT; t++) {
        for (int m = 0; m < NMEMBERS; m++) rk4_advance(&p, &ens[3 * m], SUBSTEPS);
        ensemble_stats(ens, stats);
        append_step(w.states, (hsize_t)t, NMEMBERS, 3, ens);
        append_step(w.stats, (hsize_t)t, 2, 3, stats);
        w.nwritten++;
        if (t >= CHECK_T0 && t < CHECK_T0 + CHECK_NT)
            memcpy(&keep[(size_t)(t - CHECK_T0) * CHECK_NM * 3], &ens[3 * CHECK_M0], CHECK_NM * 3 * sizeof(double));
        if (t % 250 == 0) H5Fflush(w.file, H5F_SCOPE_LOCAL);
    }
    writer_close(&w);

    int bad = verify_file(path, keep, &p);
    if (bad != 0) {
        fprintf(stderr, "h5_lorenz_ensemble: verification failed (%d)\n", bad);
        return 3;
    }
    printf("h5_lorenz_ensemble: %d members x %d steps appended and verified, final spread %.3f\n",
           NMEMBERS, NOUT, stats[3]);
    free(ens);
    free(keep);
    return 0;
}
