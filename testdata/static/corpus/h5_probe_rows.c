/*
 * Advection-diffusion of a passive tracer on a periodic 1-D channel.
 * After every output interval the tracer profile is appended as a new row
 * of a chunked, unlimited 2-D HDF5 dataset (time x cell).  Model constants
 * are stored as attributes.  At the end the file is reopened read-only and
 * a few rows and the attributes are checked against what was written.
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 4096
#define NROWS 2000
#define SUBSTEPS 30
#define CHUNK_ROWS 8

typedef struct {
    double dx, dt, velocity, diffusivity;
} model_t;

typedef struct {
    hid_t file, dset, space_mem;
    hsize_t nrows;
} series_t;

static void init_tracer(double *c, const model_t *m)
{
    for (int i = 0; i < NX; i++) {
        double x = i * m->dx;
        c[i] = exp(-pow((x - 0.25) / 0.03, 2)) + 0.5 * exp(-pow((x - 0.6) / 0.08, 2));
    }
}

/* one step: second-order upwind-biased (Fromm) advection + central diffusion */
static void advect_diffuse(double *c, double *tmp, const model_t *m)
{
    const double nu = m->velocity * m->dt / m->dx;
    const double kap = m->diffusivity * m->dt / (m->dx * m->dx);
    for (int i = 0; i < NX; i++) {
        int im2 = (i - 2 + NX) % NX, im1 = (i - 1 + NX) % NX, ip1 = (i + 1) % NX;
        /* flux-form upwind with a Fromm slope correction */
        double sl_i = 0.5 * (c[ip1] - c[im1]);
        double sl_m = 0.5 * (c[i] - c[im2]);
        double f_right = c[i] + 0.5 * (1.0 - nu) * sl_i;
        double f_left = c[im1] + 0.5 * (1.0 - nu) * sl_m;
        tmp[i] = c[i] - nu * (f_right - f_left) + kap * (c[ip1] - 2.0 * c[i] + c[im1]);
    }
    memcpy(c, tmp, sizeof(double) * NX);
}

static void put_double_attr(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t at = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(at, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(at);
    H5Sclose(sp);
}

static void put_string_attr(hid_t obj, const char *name, const char *s)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t ty = H5Tcopy(H5T_C_S1);
    H5Tset_size(ty, strlen(s) + 1);
    hid_t at = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(at, ty, s);
    H5Aclose(at);
    H5Tclose(ty);
    H5Sclose(sp);
}

static int series_create(series_t *s, const char *path, const model_t *m)
{
    s->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (s->file < 0)
        return -1;
    hsize_t dims[2] = {0, NX}, maxdims[2] = {H5S_UNLIMITED, NX};
    hsize_t chunk[2] = {CHUNK_ROWS, NX};
    hid_t space = H5Screate_simple(2, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    s->dset = H5Dcreate2(s->file, "tracer", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (s->dset < 0)
        return -1;
    hsize_t row[1] = {NX};
    s->space_mem = H5Screate_simple(1, row, NULL);
    s->nrows = 0;

    put_string_attr(s->file, "model", "1-D periodic advection-diffusion, Fromm scheme");
    put_double_attr(s->dset, "dx", m->dx);
    put_double_attr(s->dset, "dt_row", m->dt * SUBSTEPS);
    put_double_attr(s->dset, "velocity", m->velocity);
    put_double_attr(s->dset, "diffusivity", m->diffusivity);
    return 0;
}

static int series_append_row(series_t *s, const double *row)
{
    hsize_t newdims[2] = {s->nrows + 1, NX};
    if (H5Dset_extent(s->dset, newdims) < 0)
        return -1;
    hid_t fspace = H5Dget_space(s->dset);
    hsize_t start[2] = {s->nrows, 0}, count[2] = {1, NX};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    herr_t rc = H5Dwrite(s->dset, H5T_NATIVE_DOUBLE, s->space_mem, fspace, H5P_DEFAULT, row);
    H5Sclose(fspace);
    if (rc < 0)
        return -1;
    s->nrows++;
    return 0;
}

static void series_close(series_t *s)
{
    hsize_t n = s->nrows;
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t at = H5Acreate2(s->dset, "rows_written", H5T_NATIVE_HSIZE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(at, H5T_NATIVE_HSIZE, &n);
    H5Aclose(at);
    H5Sclose(sp);
    H5Sclose(s->space_mem);
    H5Dclose(s->dset);
    H5Fclose(s->file);
}

static double row_mass(const double *c)
{
    double s = 0.0;
    for (int i = 0; i < NX; i++)
        s += c[i];
    return s;
}

/* reopen the file and compare the checked rows and the attributes */
static int verify_series(const char *path, const model_t *m, const hsize_t *rows,
                         double *const *expect, int nrows_check)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return -1;
    hid_t d = H5Dopen2(f, "tracer", H5P_DEFAULT);
    hid_t fspace = H5Dget_space(d);
    hsize_t dims[2];
    H5Sget_simple_extent_dims(fspace, dims, NULL);
    int bad = (dims[0] != NROWS || dims[1] != NX);

    double v = 0.0;
    hid_t at = H5Aopen(d, "velocity", H5P_DEFAULT);
    H5Aread(at, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(at);
    bad |= (v != m->velocity);
    hsize_t nw = 0;
    at = H5Aopen(d, "rows_written", H5P_DEFAULT);
    H5Aread(at, H5T_NATIVE_HSIZE, &nw);
    H5Aclose(at);
    bad |= (nw != NROWS);

    hsize_t one[1] = {NX};
    hid_t mspace = H5Screate_simple(1, one, NULL);
    double *buf = malloc(sizeof(double) * NX);
    for (int k = 0; k < nrows_check && !bad; k++) {
        hsize_t start[2] = {rows[k], 0}, count[2] = {1, NX};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        if (H5Dread(d, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf) < 0 ||
            memcmp(buf, expect[k], sizeof(double) * NX) != 0)
            bad = 1;
    }
    free(buf);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(d);
    H5Fclose(f);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/tracer_series.h5", argv[1]);

    model_t m = {1.0 / NX, 0.0, 1.0, 2.0e-6};
    m.dt = 0.4 * m.dx / m.velocity;

    double *c = malloc(sizeof(double) * NX), *tmp = malloc(sizeof(double) * NX);
    init_tracer(c, &m);
    double mass0 = row_mass(c);

    /* rows kept in memory for the read-back check */
    hsize_t check_rows[3] = {0, NROWS / 2, NROWS - 1};
    double *keep[3];
    for (int k = 0; k < 3; k++)
        keep[k] = malloc(sizeof(double) * NX);

    series_t s;
    if (series_create(&s, path, &m) != 0) {
        fprintf(stderr, "cannot create %s\n", path);
        return 1;
    }
    for (hsize_t r = 0; r < NROWS; r++) {
        for (int sub = 0; sub < SUBSTEPS; sub++)
            advect_diffuse(c, tmp, &m);
        if (series_append_row(&s, c) != 0) {
            fprintf(stderr, "append of row %llu failed\n", (unsigned long long)r);
            return 1;
        }
        for (int k = 0; k < 3; k++)
            if (check_rows[k] == r)
                memcpy(keep[k], c, sizeof(double) * NX);
    }
    series_close(&s);

    double mass = row_mass(c);
    if (fabs(mass - mass0) > 1e-10 * mass0) {
        fprintf(stderr, "tracer mass drifted: %.15g -> %.15g\n", mass0, mass);
        return 1;
    }
    if (verify_series(path, &m, check_rows, keep, 3) != 0) {
        fprintf(stderr, "HDF5 read-back check failed\n");
        return 1;
    }
    double cmax = 0.0;
    for (int i = 0; i < NX; i++)
        cmax = c[i] > cmax ? c[i] : cmax;
    printf("%d rows of %d cells, tracer mass %.12f, max %.6f\n", NROWS, NX, mass, cmax);
    for (int k = 0; k < 3; k++)
        free(keep[k]);
    free(c);
    free(tmp);
    return 0;
}
