/* Mooring array time series in HDF5: synthesize 10-minute sea-level/pressure
 * records for a set of sensors, append them day by day to an extendible
 * chunked dataset, then do a least-squares tidal harmonic analysis per
 * sensor (column hyperslab reads) and store constituents and de-tided
 * residuals with descriptive attributes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <hdf5.h>

#define NSENS     40
#define PER_DAY   144          /* 10-minute sampling */
#define NDAYS     730
#define NCONST    5
#define NPAR      (1 + 2 * NCONST)
#define DT_HOURS  (1.0 / 6.0)

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char  *const_name[NCONST] = {"M2", "S2", "N2", "K1", "O1"};
static const double const_period_h[NCONST] = {12.4206012, 12.0, 12.65834751, 23.93447213, 25.81933871};

typedef struct { double amp[NCONST], pha[NCONST], mean; } sensor_truth_t;

static void check(herr_t st, const char *what)
{
    if (st < 0) { fprintf(stderr, "HDF5 error in %s\n", what); exit(1); }
}

static void init_truth(sensor_truth_t *tr)
{
    unsigned s = 12345u;
    for (int k = 0; k < NSENS; k++) {
        tr[k].mean = 2.0 + 0.1 * k;
        for (int c = 0; c < NCONST; c++) {
            s = s * 1103515245u + 12345u;
            tr[k].amp[c] = (c == 0 ? 1.2 : 0.35) * (0.6 + 0.4 * ((s >> 16) & 1023) / 1023.0);
            s = s * 1103515245u + 12345u;
            tr[k].pha[c] = 2 * M_PI * ((s >> 16) & 1023) / 1024.0;
        }
    }
}

/* one day of samples for all sensors, row-major [PER_DAY][NSENS] */
static void synth_day_block(int day, const sensor_truth_t *tr, double *blk, unsigned *seed)
{
    for (int i = 0; i < PER_DAY; i++) {
        double t = (day * PER_DAY + i) * DT_HOURS;
        double surge = 0.15 * sin(2 * M_PI * t / (24.0 * 17.0)) * exp(-fmod(t, 24.0 * 40.0) / 300.0);
        for (int k = 0; k < NSENS; k++) {
            double v = tr[k].mean + surge;
            for (int c = 0; c < NCONST; c++)
                v += tr[k].amp[c] * cos(2 * M_PI * t / const_period_h[c] - tr[k].pha[c]);
            *seed = *seed * 1664525u + 1013904223u;
            v += 0.03 * ((*seed >> 8) / 16777216.0 - 0.5);
            blk[i * NSENS + k] = v;
        }
    }
}

static void put_string_attr(hid_t obj, const char *name, const char *val)
{
    hid_t ty = H5Tcopy(H5T_C_S1);
    H5Tset_size(ty, strlen(val) + 1);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, ty, val), "string attr");
    H5Aclose(a); H5Sclose(sp); H5Tclose(ty);
}

static hid_t create_raw_dataset(hid_t file)
{
    hid_t grp = H5Gcreate2(file, "/raw", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {0, NSENS}, maxd[2] = {H5S_UNLIMITED, NSENS}, chunk[2] = {PER_DAY, NSENS};
    hid_t sp = H5Screate_simple(2, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t ds = H5Dcreate2(grp, "sea_level", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    put_string_attr(ds, "units", "m");
    put_string_attr(ds, "long_name", "sea surface height above chart datum");
    double dt = DT_HOURS * 3600.0;
    hid_t s1 = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(ds, "sample_interval_s", H5T_NATIVE_DOUBLE, s1, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &dt);
    H5Aclose(a); H5Sclose(s1);
    H5Pclose(dcpl); H5Sclose(sp); H5Gclose(grp);
    return ds;
}

static void append_day(hid_t ds, int day, const double *blk)
{
    hsize_t newdims[2] = {(hsize_t)(day + 1) * PER_DAY, NSENS};
    check(H5Dset_extent(ds, newdims), "set_extent");
    hid_t fsp = H5Dget_space(ds);
    hsize_t start[2] = {(hsize_t)day * PER_DAY, 0}, count[2] = {PER_DAY, NSENS};
    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t msp = H5Screate_simple(2, count, NULL);
    check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, msp, fsp, H5P_DEFAULT, blk), "append");
    H5Sclose(msp); H5Sclose(fsp);
}

/* Cholesky solve of the NPAR x NPAR normal equations */
static void solve_normal(double A[NPAR][NPAR], double *b)
{
    for (int j = 0; j < NPAR; j++) {
        double d = A[j][j];
        for (int k = 0; k < j; k++) d -= A[j][k] * A[j][k];
        A[j][j] = sqrt(d);
        for (int i = j + 1; i < NPAR; i++) {
            double s = A[i][j];
            for (int k = 0; k < j; k++) s -= A[i][k] * A[j][k];
            A[i][j] = s / A[j][j];
        }
    }
    for (int i = 0; i < NPAR; i++) { for (int k = 0; k < i; k++) b[i] -= A[i][k] * b[k]; b[i] /= A[i][i]; }
    for (int i = NPAR - 1; i >= 0; i--) { for (int k = i + 1; k < NPAR; k++) b[i] -= A[k][i] * b[k]; b[i] /= A[i][i]; }
}

/* read one sensor column via hyperslab and fit mean + cos/sin per constituent */
static void fit_harmonics(hid_t ds, int nt, double coef[NSENS][NPAR])
{
    double *col = malloc((size_t)nt * sizeof *col), *basis = malloc((size_t)nt * NPAR * sizeof *basis);
    for (int i = 0; i < nt; i++) {
        double t = i * DT_HOURS, *row = basis + (size_t)i * NPAR;
        row[0] = 1.0;
        for (int c = 0; c < NCONST; c++) {
            row[1 + 2 * c] = cos(2 * M_PI * t / const_period_h[c]);
            row[2 + 2 * c] = sin(2 * M_PI * t / const_period_h[c]);
        }
    }
    hid_t fsp = H5Dget_space(ds);
    hsize_t cnt[2] = {(hsize_t)nt, 1}, mdim = (hsize_t)nt;
    hid_t msp = H5Screate_simple(1, &mdim, NULL);
    for (int k = 0; k < NSENS; k++) {
        hsize_t start[2] = {0, (hsize_t)k};
        H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, cnt, NULL);
        check(H5Dread(ds, H5T_NATIVE_DOUBLE, msp, fsp, H5P_DEFAULT, col), "column read");
        double A[NPAR][NPAR] = {{0}}, b[NPAR] = {0};
        for (int i = 0; i < nt; i++) {
            const double *row = basis + (size_t)i * NPAR;
            for (int p = 0; p < NPAR; p++) {
                b[p] += row[p] * col[i];
                for (int q = 0; q <= p; q++) A[p][q] += row[p] * row[q];
            }
        }
        for (int p = 0; p < NPAR; p++) for (int q = p + 1; q < NPAR; q++) A[p][q] = A[q][p];
        solve_normal(A, b);
        memcpy(coef[k], b, sizeof b);
    }
    H5Sclose(msp); H5Sclose(fsp);
    free(col); free(basis);
}

static void write_constituents(hid_t file, double coef[NSENS][NPAR], const sensor_truth_t *tr, double *max_err)
{
    static double amp[NSENS][NCONST], pha[NSENS][NCONST];
    *max_err = 0.0;
    for (int k = 0; k < NSENS; k++)
        for (int c = 0; c < NCONST; c++) {
            double a = coef[k][1 + 2 * c], b = coef[k][2 + 2 * c];
            amp[k][c] = hypot(a, b);
            pha[k][c] = atan2(b, a);
            if (pha[k][c] < 0) pha[k][c] += 2 * M_PI;
            double e = fabs(amp[k][c] - tr[k].amp[c]);
            if (e > *max_err) *max_err = e;
        }
    hid_t grp = H5Gcreate2(file, "/analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {NSENS, NCONST};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t da = H5Dcreate2(grp, "amplitude", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dp = H5Dcreate2(grp, "phase", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(da, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, amp);
    H5Dwrite(dp, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, pha);
    put_string_attr(dp, "units", "rad");
    char names[64] = "";
    for (int c = 0; c < NCONST; c++) { strcat(names, const_name[c]); if (c < NCONST - 1) strcat(names, ","); }
    put_string_attr(grp, "constituents", names);
    hsize_t nc = NCONST;
    hid_t s1 = H5Screate_simple(1, &nc, NULL);
    hid_t a = H5Acreate2(grp, "period_hours", H5T_NATIVE_DOUBLE, s1, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, const_period_h);
    H5Aclose(a); H5Sclose(s1);
    H5Dclose(da); H5Dclose(dp); H5Sclose(sp); H5Gclose(grp);
}

/* re-read raw data day by day, subtract prediction, store float residuals */
static double write_residuals(hid_t file, hid_t raw, double coef[NSENS][NPAR], int ndays)
{
    hsize_t dims[2] = {(hsize_t)ndays * PER_DAY, NSENS}, chunk[2] = {PER_DAY, NSENS};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t res = H5Dcreate2(file, "/analysis/residual", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    put_string_attr(res, "units", "m");
    double *blk = malloc(PER_DAY * NSENS * sizeof *blk);
    float *out = malloc(PER_DAY * NSENS * sizeof *out);
    hsize_t count[2] = {PER_DAY, NSENS};
    hid_t msp = H5Screate_simple(2, count, NULL);
    hid_t rsp = H5Dget_space(raw);
    double ss = 0.0;
    for (int d = 0; d < ndays; d++) {
        hsize_t start[2] = {(hsize_t)d * PER_DAY, 0};
        H5Sselect_hyperslab(rsp, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
        check(H5Dread(raw, H5T_NATIVE_DOUBLE, msp, rsp, H5P_DEFAULT, blk), "day read");
        for (int i = 0; i < PER_DAY; i++) {
            double t = (d * PER_DAY + i) * DT_HOURS;
            for (int k = 0; k < NSENS; k++) {
                double pred = coef[k][0];
                for (int c = 0; c < NCONST; c++) {
                    double w = 2 * M_PI * t / const_period_h[c];
                    pred += coef[k][1 + 2 * c] * cos(w) + coef[k][2 + 2 * c] * sin(w);
                }
                double r = blk[i * NSENS + k] - pred;
                out[i * NSENS + k] = (float)r;
                ss += r * r;
            }
        }
        check(H5Dwrite(res, H5T_NATIVE_FLOAT, msp, sp, H5P_DEFAULT, out), "residual write");
    }
    double rms = sqrt(ss / ((double)ndays * PER_DAY * NSENS));
    hid_t s1 = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(res, "rms", H5T_NATIVE_DOUBLE, s1, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &rms);
    H5Aclose(a); H5Sclose(s1);
    H5Sclose(rsp); H5Sclose(msp); H5Pclose(dcpl); H5Sclose(sp); H5Dclose(res);
    free(blk); free(out);
    return rms;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    char path[1200];
    snprintf(path, sizeof path, "%s/mooring_array.h5", argv[1]);
    static sensor_truth_t truth[NSENS];
    init_truth(truth);

    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) { fprintf(stderr, "cannot create %s\n", path); return 1; }
    put_string_attr(file, "title", "synthetic coastal mooring array");
    hid_t raw = create_raw_dataset(file);
    double *blk = malloc(PER_DAY * NSENS * sizeof *blk);
    unsigned seed = 99u;
    for (int d = 0; d < NDAYS; d++) {
        synth_day_block(d, truth, blk, &seed);
        append_day(raw, d, blk);
        if (d % 30 == 29) H5Fflush(file, H5F_SCOPE_LOCAL);
    }
    free(blk);

    static double coef[NSENS][NPAR];
    fit_harmonics(raw, NDAYS * PER_DAY, coef);
    double max_err;
    write_constituents(file, coef, truth, &max_err);
    double rms = write_residuals(file, raw, coef, NDAYS);
    H5Dclose(raw);
    H5Fclose(file);
    printf("sensors=%d samples=%d max_amp_err=%.5f residual_rms=%.5f\n", NSENS, NDAYS * PER_DAY, max_err, rms);
    return 0;
}
