/*
 * h5_tomo_sinogram: parallel-beam CT simulation and reconstruction with
 * parallel HDF5.  A Shepp-Logan phantom is rasterised and written to
 * tomo.h5, its noisy sinogram is computed by ray marching and written
 * collectively, the file is reopened and the sinogram read back collectively,
 * reconstructed by filtered back-projection, refined by a few SIRT iterations
 * (each iterate stored in a chunked dataset), and error metrics are stored as
 * attributes and in a text report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <mpi.h>
#include <hdf5.h>

#define N 256          /* image size */
#define NA 180         /* projection angles */
#define ND 363         /* detector bins */
#define N_SIRT 3
#define STEP 0.5

static int rank, nprocs;

static void row_range(int n, int *lo, int *cnt)
{
    int base = n / nprocs, rem = n % nprocs;
    *lo = rank * base + (rank < rem ? rank : rem);
    *cnt = base + (rank < rem ? 1 : 0);
}

/* Collective write of a block of rows [lo, lo+cnt) of a 2-D double dataset. */
static void write_rows(hid_t dset, int ncols, int lo, int cnt, const double *buf)
{
    hsize_t start[2] = {(hsize_t)lo, 0}, count[2] = {(hsize_t)cnt, (hsize_t)ncols};
    hid_t fs = H5Dget_space(dset), ms = H5Screate_simple(2, count, NULL);
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, ms, fs, dx, buf) < 0) MPI_Abort(MPI_COMM_WORLD, 1);
    H5Pclose(dx); H5Sclose(ms); H5Sclose(fs);
}

static void read_rows(hid_t dset, int ncols, int lo, int cnt, double *buf)
{
    hsize_t start[2] = {(hsize_t)lo, 0}, count[2] = {(hsize_t)cnt, (hsize_t)ncols};
    hid_t fs = H5Dget_space(dset), ms = H5Screate_simple(2, count, NULL);
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (H5Dread(dset, H5T_NATIVE_DOUBLE, ms, fs, dx, buf) < 0) MPI_Abort(MPI_COMM_WORLD, 1);
    H5Pclose(dx); H5Sclose(ms); H5Sclose(fs);
}

static hid_t make_dataset(hid_t loc, const char *name, int rows, int cols, int chunked)
{
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols}, chunk[2] = {32, (hsize_t)cols};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d;
    if (chunked) H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_obj_track_times(dcpl, 0);
    d = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl); H5Sclose(sp);
    return d;
}

static void put_attr(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a); H5Sclose(sp);
}

static void make_phantom(double *img, int lo, int cnt)
{
    /* A, a, b, x0, y0, phi(deg) -- modified Shepp-Logan */
    static const double E[10][6] = {
        {1.0, .69, .92, 0, 0, 0}, {-.8, .6624, .8740, 0, -.0184, 0}, {-.2, .1100, .3100, .22, 0, -18},
        {-.2, .1600, .4100, -.22, 0, 18}, {.1, .2100, .2500, 0, .35, 0}, {.1, .0460, .0460, 0, .1, 0},
        {.1, .0460, .0460, 0, -.1, 0}, {.1, .0460, .0230, -.08, -.605, 0}, {.1, .0230, .0230, 0, -.606, 0},
        {.1, .0230, .0460, .06, -.605, 0}};
    int i, j, e;
    for (i = 0; i < cnt; i++)
        for (j = 0; j < N; j++) {
            double y = 1.0 - 2.0 * (lo + i + 0.5) / N, x = -1.0 + 2.0 * (j + 0.5) / N, v = 0;
            for (e = 0; e < 10; e++) {
                double ph = E[e][5] * M_PI / 180, c = cos(ph), s = sin(ph);
                double xr = (x - E[e][3]) * c + (y - E[e][4]) * s, yr = -(x - E[e][3]) * s + (y - E[e][4]) * c;
                if ((xr * xr) / (E[e][1] * E[e][1]) + (yr * yr) / (E[e][2] * E[e][2]) <= 1.0) v += E[e][0];
            }
            img[i * N + j] = v;
        }
}

static double bilinear(const double *img, double x, double y)
{
    int ix = (int)floor(x), iy = (int)floor(y);
    double fx = x - ix, fy = y - iy;
    if (ix < 0 || iy < 0 || ix >= N - 1 || iy >= N - 1) return 0.0;
    return (1 - fy) * ((1 - fx) * img[iy * N + ix] + fx * img[iy * N + ix + 1]) +
           fy * ((1 - fx) * img[(iy + 1) * N + ix] + fx * img[(iy + 1) * N + ix + 1]);
}

/* Forward projection of a full image for angles [alo, alo+acnt). */
static void forward_project(const double *img, double *sino, int alo, int acnt)
{
    int a, d;
    double c0 = (N - 1) / 2.0, half = ND / 2.0;
    for (a = 0; a < acnt; a++) {
        double th = M_PI * (alo + a) / NA, ct = cos(th), st = sin(th);
        for (d = 0; d < ND; d++) {
            double s = d - half + 0.5, sum = 0, t;
            for (t = -half; t <= half; t += STEP)
                sum += bilinear(img, c0 + s * ct - t * st, c0 + s * st + t * ct);
            sino[a * ND + d] = sum * STEP;
        }
    }
}

static void add_noise(double *sino, int acnt, unsigned seed)
{
    int i;
    unsigned long long z = seed * 2654435761ULL + 1;
    for (i = 0; i < acnt * ND; i++) {
        double u1, u2;
        z = z * 6364136223846793005ULL + 1; u1 = ((z >> 11) + 1.0) / 9007199254740993.0;
        z = z * 6364136223846793005ULL + 1; u2 = (z >> 11) / 9007199254740992.0;
        sino[i] += 0.4 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    }
}

/* Ram-Lak filter by direct spatial convolution. */
static void ramp_filter(const double *sino, double *filt, int acnt)
{
    static double h[2 * ND];
    int a, d, k;
    for (k = -ND + 1; k < ND; k++)
        h[k + ND - 1] = k == 0 ? 0.25 : (k % 2 ? -1.0 / (M_PI * M_PI * k * k) : 0.0);
    for (a = 0; a < acnt; a++)
        for (d = 0; d < ND; d++) {
            double s = 0;
            for (k = 0; k < ND; k++) s += sino[a * ND + k] * h[d - k + ND - 1];
            filt[a * ND + d] = s;
        }
}

/* Back-project all angles into image rows [lo, lo+cnt). */
static void back_project(const double *filt, double *img, int lo, int cnt, double scale)
{
    int i, j, a;
    double c0 = (N - 1) / 2.0, half = ND / 2.0;
    static double ct[NA], st[NA];
    for (a = 0; a < NA; a++) { ct[a] = cos(M_PI * a / NA); st[a] = sin(M_PI * a / NA); }
    for (i = 0; i < cnt; i++)
        for (j = 0; j < N; j++) {
            double x = j - c0, y = (lo + i) - c0, v = 0;
            for (a = 0; a < NA; a++) {
                double s = x * ct[a] + y * st[a] + half - 0.5;
                int is = (int)floor(s);
                double f = s - is;
                if (is >= 0 && is < ND - 1) v += (1 - f) * filt[a * ND + is] + f * filt[a * ND + is + 1];
            }
            img[i * N + j] = v * scale;
        }
}

static double rmse_rows(const double *a, const double *b, int cnt)
{
    double s = 0, tot;
    int i;
    for (i = 0; i < cnt * N; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    MPI_Allreduce(&s, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(tot / ((double)N * N));
}

int main(int argc, char **argv)
{
    char path[512], name[64];
    hid_t fapl, file, dphan, dsino, drec, grp;
    int rlo, rcnt, alo, acnt, it;
    double *phan, *full, *sino, *sino_all, *filt, *rec, *resid, *upd;
    int *rc_cnt, *rc_off, *ac_cnt, *ac_off, p;
    double rmse_fbp, rmse_it[N_SIRT];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) { if (!rank) fprintf(stderr, "usage: %s dir\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    snprintf(path, sizeof path, "%s/tomo.h5", argv[1]);

    row_range(N, &rlo, &rcnt);
    row_range(NA, &alo, &acnt);
    rc_cnt = malloc(sizeof(int) * nprocs); rc_off = malloc(sizeof(int) * nprocs);
    ac_cnt = malloc(sizeof(int) * nprocs); ac_off = malloc(sizeof(int) * nprocs);
    {
        int save = rank;
        for (p = 0; p < nprocs; p++) {
            rank = p;
            row_range(N, &rc_off[p], &rc_cnt[p]); rc_off[p] *= N; rc_cnt[p] *= N;
            row_range(NA, &ac_off[p], &ac_cnt[p]); ac_off[p] *= ND; ac_cnt[p] *= ND;
        }
        rank = save;
    }
    phan = malloc(sizeof(double) * rcnt * N);
    full = malloc(sizeof(double) * N * N);
    sino = malloc(sizeof(double) * acnt * ND);
    sino_all = malloc(sizeof(double) * NA * ND);
    filt = malloc(sizeof(double) * NA * ND);
    rec = malloc(sizeof(double) * rcnt * N);
    upd = malloc(sizeof(double) * rcnt * N);
    resid = malloc(sizeof(double) * NA * ND);

    fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);

    /* stage 1: phantom and sinogram */
    file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    make_phantom(phan, rlo, rcnt);
    dphan = make_dataset(file, "phantom", N, N, 0);
    write_rows(dphan, N, rlo, rcnt, phan);
    MPI_Allgatherv(phan, rcnt * N, MPI_DOUBLE, full, rc_cnt, rc_off, MPI_DOUBLE, MPI_COMM_WORLD);
    forward_project(full, sino, alo, acnt);
    add_noise(sino, acnt, 1234u + rank);
    dsino = make_dataset(file, "sinogram", NA, ND, 0);
    write_rows(dsino, ND, alo, acnt, sino);
    put_attr(dsino, "noise_sigma", 0.4);
    H5Dclose(dsino); H5Dclose(dphan); H5Fclose(file);

    /* stage 2: reopen, read sinogram collectively, FBP */
    file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    dsino = H5Dopen2(file, "sinogram", H5P_DEFAULT);
    read_rows(dsino, ND, alo, acnt, sino);
    H5Dclose(dsino);
    ramp_filter(sino, filt + alo * ND, acnt);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, filt, ac_cnt, ac_off, MPI_DOUBLE, MPI_COMM_WORLD);
    back_project(filt, rec, rlo, rcnt, M_PI / NA);
    drec = make_dataset(file, "fbp", N, N, 0);
    write_rows(drec, N, rlo, rcnt, rec);
    dphan = H5Dopen2(file, "phantom", H5P_DEFAULT);
    read_rows(dphan, N, rlo, rcnt, phan);
    H5Dclose(dphan);
    rmse_fbp = rmse_rows(rec, phan, rcnt);
    put_attr(drec, "rmse", rmse_fbp);
    H5Dclose(drec);

    /* stage 3: SIRT refinement starting from FBP */
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sino_all, ac_cnt, ac_off, MPI_DOUBLE, MPI_COMM_WORLD);
    memcpy(sino_all + alo * ND, sino, sizeof(double) * acnt * ND);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sino_all, ac_cnt, ac_off, MPI_DOUBLE, MPI_COMM_WORLD);
    grp = H5Gcreate2(file, "sirt", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (it = 0; it < N_SIRT; it++) {
        int i;
        MPI_Allgatherv(rec, rcnt * N, MPI_DOUBLE, full, rc_cnt, rc_off, MPI_DOUBLE, MPI_COMM_WORLD);
        forward_project(full, resid + alo * ND, alo, acnt);
        for (i = alo * ND; i < (alo + acnt) * ND; i++) resid[i] = sino_all[i] - resid[i];
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, resid, ac_cnt, ac_off, MPI_DOUBLE, MPI_COMM_WORLD);
        back_project(resid, upd, rlo, rcnt, 1.0 / (NA * (double)N));
        for (i = 0; i < rcnt * N; i++) { rec[i] += 1.6 * upd[i]; if (rec[i] < 0) rec[i] = 0; }
        snprintf(name, sizeof name, "iter_%02d", it);
        drec = make_dataset(grp, name, N, N, 1);
        write_rows(drec, N, rlo, rcnt, rec);
        rmse_it[it] = rmse_rows(rec, phan, rcnt);
        put_attr(drec, "rmse", rmse_it[it]);
        H5Dclose(drec);
    }
    H5Gclose(grp);
    H5Fclose(file);
    H5Pclose(fapl);

    if (rank == 0) {
        FILE *f;
        snprintf(path, sizeof path, "%s/recon_report.txt", argv[1]);
        f = fopen(path, "w");
        fprintf(f, "image %dx%d angles %d detectors %d ranks %d\n", N, N, NA, ND, nprocs);
        fprintf(f, "fbp rmse %.5f\n", rmse_fbp);
        for (it = 0; it < N_SIRT; it++) fprintf(f, "sirt %d rmse %.5f\n", it, rmse_it[it]);
        fclose(f);
    }
    free(phan); free(full); free(sino); free(sino_all); free(filt); free(rec); free(upd); free(resid);
    free(rc_cnt); free(rc_off); free(ac_cnt); free(ac_off);
    MPI_Finalize();
    return 0;
}
