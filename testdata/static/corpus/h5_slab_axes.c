/*
 * Serial HDF5: a 2-D damped wave field u(y, x) is integrated in time and each
 * output step is written as one [1, NY, NX] slab of a chunked 3-D dataset
 * "/wave/u" of shape [NT, NY, NX].  Afterwards the file is reopened and read
 * along the other axes: for every x index a [NT, NY, 1] hyperslab (a t-y
 * plane) is read to get per-point temporal mean / rms / peak, and a few
 * [NT, 1, NX] planes are read for space-time correlations.  Results are
 * checked against accumulators kept during the run.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define NX 160
#define NY 128
#define NT 144
#define SUBSTEPS 12

typedef struct {
    double *sum, *sumsq, *peak;
} point_stats_t;

static void init_field(double *u, double *uprev)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double x = (i - 0.35 * NX) / NX, y = (j - 0.5 * NY) / NY;
            double x2 = (i - 0.7 * NX) / NX, y2 = (j - 0.3 * NY) / NY;
            u[j * NX + i] = exp(-300.0 * (x * x + y * y)) - 0.6 * exp(-500.0 * (x2 * x2 + y2 * y2));
            uprev[j * NX + i] = u[j * NX + i];
        }
}

static void advance_wave(double *u, double *uprev, double *unext)
{
    const double c2 = 0.2, damp = 0.002;
    for (int s = 0; s < SUBSTEPS; s++) {
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                int im = i > 0 ? i - 1 : i + 1, ip = i < NX - 1 ? i + 1 : i - 1;
                int jm = j > 0 ? j - 1 : j + 1, jp = j < NY - 1 ? j + 1 : j - 1;
                double lap = u[j * NX + im] + u[j * NX + ip] + u[jm * NX + i] + u[jp * NX + i] - 4.0 * u[j * NX + i];
                unext[j * NX + i] = (2.0 * u[j * NX + i] - (1.0 - damp) * uprev[j * NX + i] + c2 * lap) / (1.0 + damp);
            }
        memcpy(uprev, u, sizeof(double) * NX * NY);
        memcpy(u, unext, sizeof(double) * NX * NY);
    }
}

static void accumulate(point_stats_t *ps, const double *u)
{
    for (int k = 0; k < NX * NY; k++) {
        ps->sum[k] += u[k];
        ps->sumsq[k] += u[k] * u[k];
        if (fabs(u[k]) > ps->peak[k]) ps->peak[k] = fabs(u[k]);
    }
}

static int run_and_write(const char *path, point_stats_t *ps, double *row_sum_t)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) return -1;
    hid_t grp = H5Gcreate2(file, "wave", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[3] = {NT, NY, NX};
    hsize_t chunk[3] = {8, 32, 40};
    hid_t space = H5Screate_simple(3, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, chunk);
    hid_t dset = H5Dcreate2(grp, "u", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    double dt_out = 0.05 * SUBSTEPS;
    hid_t aspace = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(dset, "dt_out", H5T_NATIVE_DOUBLE, aspace, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_DOUBLE, &dt_out);
    H5Aclose(attr);
    H5Sclose(aspace);

    double *u = malloc(sizeof(double) * NX * NY), *up = malloc(sizeof(double) * NX * NY);
    double *un = malloc(sizeof(double) * NX * NY);
    init_field(u, up);
    hsize_t mdims[3] = {1, NY, NX};
    hid_t mspace = H5Screate_simple(3, mdims, NULL);
    herr_t st = 0;
    for (int t = 0; t < NT && st >= 0; t++) {
        if (t > 0) advance_wave(u, up, un);
        accumulate(ps, u);
        for (int j = 0; j < NY; j++) {
            double s = 0.0;
            for (int i = 0; i < NX; i++) s += u[j * NX + i];
            row_sum_t[t * NY + j] = s;
        }
        hsize_t start[3] = {(hsize_t)t, 0, 0}, count[3] = {1, NY, NX};
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
        st = H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, space, H5P_DEFAULT, u);
    }
    H5Sclose(mspace);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Gclose(grp);
    if (H5Fclose(file) < 0) st = -1;
    free(u); free(up); free(un);
    return st < 0 ? -1 : 0;
}

/* Read t-y planes (one per x index) and compare temporal statistics. */
static int analyse_x_planes(hid_t dset, const point_stats_t *ps, double *max_rms)
{
    hid_t fspace = H5Dget_space(dset);
    hsize_t mdims[2] = {NT, NY};
    hid_t mspace = H5Screate_simple(2, mdims, NULL);
    double *plane = malloc(sizeof(double) * NT * NY);
    int bad = 0;
    *max_rms = 0.0;
    for (int i = 0; i < NX && !bad; i++) {
        hsize_t start[3] = {0, 0, (hsize_t)i}, count[3] = {NT, NY, 1};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        if (H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, plane) < 0) { bad = 1; break; }
        for (int j = 0; j < NY; j++) {
            double s = 0.0, s2 = 0.0, pk = 0.0;
            for (int t = 0; t < NT; t++) {
                double v = plane[t * NY + j];
                s += v;
                s2 += v * v;
                if (fabs(v) > pk) pk = fabs(v);
            }
            int k = j * NX + i;
            if (fabs(s - ps->sum[k]) > 1e-9 * (1.0 + fabs(ps->sum[k])) ||
                fabs(s2 - ps->sumsq[k]) > 1e-9 * (1.0 + ps->sumsq[k]) || pk != ps->peak[k]) {
                fprintf(stderr, "stats mismatch at x=%d y=%d\n", i, j);
                bad = 1;
                break;
            }
            double rms = sqrt(s2 / NT);
            if (rms > *max_rms) *max_rms = rms;
        }
    }
    free(plane);
    H5Sclose(mspace);
    H5Sclose(fspace);
    return bad ? -1 : 0;
}

/* Read t-x planes for a handful of y rows and check the row sums. */
static int analyse_y_planes(hid_t dset, const double *row_sum_t, double *corr)
{
    hid_t fspace = H5Dget_space(dset);
    hsize_t mdims[2] = {NT, NX};
    hid_t mspace = H5Screate_simple(2, mdims, NULL);
    double *plane = malloc(sizeof(double) * NT * NX);
    int bad = 0;
    *corr = 0.0;
    for (int j = 0; j < NY && !bad; j += 9) {
        hsize_t start[3] = {0, (hsize_t)j, 0}, count[3] = {NT, 1, NX};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        if (H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, plane) < 0) { bad = 1; break; }
        for (int t = 0; t < NT; t++) {
            double s = 0.0;
            for (int i = 0; i < NX; i++) s += plane[t * NX + i];
            if (fabs(s - row_sum_t[t * NY + j]) > 1e-9 * (1.0 + fabs(s))) { bad = 1; break; }
        }
        /* lag-1 temporal autocorrelation of the row, summed over x */
        for (int t = 1; t < NT; t++)
            for (int i = 0; i < NX; i++)
                *corr += plane[t * NX + i] * plane[(t - 1) * NX + i];
    }
    free(plane);
    H5Sclose(mspace);
    H5Sclose(fspace);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/wave_slabs.h5", argv[1]);

    point_stats_t ps;
    ps.sum = calloc(NX * NY, sizeof(double));
    ps.sumsq = calloc(NX * NY, sizeof(double));
    ps.peak = calloc(NX * NY, sizeof(double));
    double *row_sum_t = malloc(sizeof(double) * NT * NY);

    if (run_and_write(path, &ps, row_sum_t) != 0) { fprintf(stderr, "write phase failed\n"); return 1; }

    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return 1;
    hid_t dset = H5Dopen2(file, "/wave/u", H5P_DEFAULT);
    double max_rms = 0.0, corr = 0.0;
    int rc = 0;
    if (analyse_x_planes(dset, &ps, &max_rms) != 0) rc = 1;
    if (analyse_y_planes(dset, row_sum_t, &corr) != 0) rc = 1;
    H5Dclose(dset);
    H5Fclose(file);
    printf("h5_slab_axes: %dx%dx%d, max rms %.5f, lag-1 corr sum %.5f, %s\n", NT, NY, NX, max_rms, corr,
           rc ? "FAILED" : "ok");
    free(ps.sum); free(ps.sumsq); free(ps.peak); free(row_sum_t);
    return rc;
}
