/*
 * Borehole tiltmeter network on a restless stratovolcano.  Sixteen
 * two-component tiltmeters sample every minute; the signal is a deep Mogi
 * reservoir inflating steadily, a shallow dike-like intrusion, a short
 * co-eruptive deflation, solid-earth tidal tilt (M2, S2, K1, O1), diurnal
 * thermal noise, random-walk drift and rain offsets.  Every simulated hour
 * the raw block is appended to an extendible chunked dataset through
 * parallel HDF5 (hyperslab selections), tides are removed with constituents
 * fitted on the first week of data read back from the file, and a Mogi
 * source grid search over precomputed Green's functions gives location,
 * depth and volume change, appended to further datasets.  Attributes track
 * progress; at the end the inversion table and one station's raw record are
 * read back for daily summaries and a tidal check.
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NST 16
#define NCH (2 * NST)
#define SPH 60                       /* samples per hour */
#define NDAYS 60
#define NHOURS (NDAYS * 24)
#define CAL_HOURS 168
#define NTIDE 4
#define NPAR (1 + 2 * NTIDE)
#define GX 31
#define GY 31
#define GZ 12
#define NNODE (GX * GY * GZ)
#define NU 0.25
#define NSRC 6

static const double tide_f[NTIDE] = {1.0 / 12.4206, 1.0 / 12.0, 1.0 / 23.9345, 1.0 / 25.8193};
static double st_xy[NST][2], tide_amp[NCH][NTIDE], tide_ph[NCH][NTIDE];
static double drift[NCH], coef[NCH][NPAR];
static float *greens;                /* NNODE x NCH tilt per unit volume */
static double node_xyz[NNODE][3];
static uint64_t rs = 0xA0761D6478BD642Full;

static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double nrand(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }

static void station_layout(void)
{
    const double ring[4] = {1500, 3000, 5000, 8000};
    for (int s = 0; s < NST; s++) {
        double a = 2 * M_PI * (s % 4) / 4.0 + 0.4 * (s / 4) + 0.15 * nrand();
        st_xy[s][0] = ring[s / 4] * cos(a);
        st_xy[s][1] = ring[s / 4] * sin(a);
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < NTIDE; k++) {
                tide_amp[2 * s + c][k] = (k < 2 ? 0.045 : 0.03) * (0.7 + 0.6 * urand()) / (k == 1 ? 2.2 : 1.0);
                tide_ph[2 * s + c][k] = 2 * M_PI * urand();
            }
    }
}

/* Mogi tilt (microradian) at (x,y) from a source at (sx,sy,d) with volume change dv (m^3). */
static void mogi_tilt(double x, double y, double sx, double sy, double d, double dv, double *tx, double *ty)
{
    double dx = x - sx, dy = y - sy, R2 = dx * dx + dy * dy + d * d;
    double k = -(1 - NU) * dv / M_PI * 3.0 * d / (R2 * R2 * sqrt(R2)) * 1e6;
    *tx = k * dx; *ty = k * dy;
}

/* True volume histories (m^3) of the deep reservoir and the shallow intrusion. */
static void source_history(double hour, double *dv_deep, double *dv_shallow)
{
    double day = hour / 24.0;
    *dv_deep = 1.1e5 * day - (day > 45.0 ? 3.5e5 * (1 - exp(-(day - 45.0) / 0.4)) : 0.0);
    *dv_shallow = 2.2e5 / (1 + exp(-(day - 36.0) / 0.6)) - (day > 45.0 ? 1.5e5 * (1 - exp(-(day - 45.0) / 0.3)) : 0.0);
}

static void simulate_hour(int hour, double *blk)
{
    for (int m = 0; m < SPH; m++) {
        double t = hour + m / (double)SPH, vd, vs;
        source_history(t, &vd, &vs);
        double thermal = 0.02 * sin(2 * M_PI * (t / 24.0 - 0.3));
        for (int s = 0; s < NST; s++) {
            double ax, ay, bx, by;
            mogi_tilt(st_xy[s][0], st_xy[s][1], 1200, -800, 4200, vd, &ax, &ay);
            mogi_tilt(st_xy[s][0], st_xy[s][1], 300, 500, 1400, vs, &bx, &by);
            for (int c = 0; c < 2; c++) {
                int ch = 2 * s + c;
                double v = (c ? ay + by : ax + bx) + thermal * (1 + 0.3 * c);
                for (int k = 0; k < NTIDE; k++) v += tide_amp[ch][k] * cos(2 * M_PI * tide_f[k] * t + tide_ph[ch][k]);
                if (m == 0) {
                    drift[ch] += 0.004 * nrand();
                    if (urand() < 0.0015) drift[ch] += 0.3 * nrand();     /* rain offset */
                }
                blk[(m * NST + s) * 2 + c] = v + drift[ch] + 0.006 * nrand();
            }
        }
    }
}

static hid_t create_extendible(hid_t loc, const char *name, int rank, const hsize_t *dims0, const hsize_t *chunk)
{
    hsize_t maxd[3] = {H5S_UNLIMITED, rank > 1 ? dims0[1] : 0, rank > 2 ? dims0[2] : 0};
    hid_t sp = H5Screate_simple(rank, dims0, maxd), pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, rank, chunk);
    hid_t ds = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Pclose(pl); H5Sclose(sp);
    return ds;
}

/* Extends dataset along its first axis and writes nrows through a hyperslab. */
static void append_rows(hid_t ds, hid_t dxpl, int rank, hsize_t row0, hsize_t nrows, const double *buf)
{
    hsize_t dims[3], start[3] = {row0, 0, 0}, count[3];
    hid_t fs = H5Dget_space(ds);
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    dims[0] = row0 + nrows;
    H5Dset_extent(ds, dims);
    fs = H5Dget_space(ds);
    memcpy(count, dims, sizeof count);
    count[0] = nrows;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf);
    H5Sclose(ms); H5Sclose(fs);
}

static void write_attr_double(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR), a;
    if (H5Aexists(obj, name) > 0) a = H5Aopen(obj, name, H5P_DEFAULT);
    else a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a); H5Sclose(sp);
}

static void write_attr_string(hid_t obj, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    H5Tset_size(t, strlen(v) + 1);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, v);
    H5Aclose(a); H5Sclose(sp); H5Tclose(t);
}

static void solve_sym(double A[NPAR][NPAR], double *b, int n)
{
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++) {
            double f = A[i][k] / A[k][k];
            for (int j = k; j < n; j++) A[i][j] -= f * A[k][j];
            b[i] -= f * b[k];
        }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) b[i] -= A[i][j] * b[j];
        b[i] /= A[i][i];
    }
}

/* Least-squares tidal constituents per channel from nh hours read back
 * from the raw dataset starting at hour h0. */
static void fit_tides(hid_t ds, hid_t dxpl, int h0, int nh, double out[][NPAR], int ch0, int nch)
{
    hsize_t start[3] = {(hsize_t)h0 * SPH, (hsize_t)(ch0 / 2), 0}, count[3] = {(hsize_t)nh * SPH, (hsize_t)(nch / 2), 2};
    double *buf = malloc(sizeof(double) * count[0] * count[1] * 2);
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(3, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf);
    H5Sclose(ms); H5Sclose(fs);
    for (int c = 0; c < nch; c++) {
        double A[NPAR][NPAR] = {{0}}, b[NPAR] = {0}, x[NPAR];
        for (hsize_t i = 0; i < count[0]; i++) {
            double t = h0 + i / (double)SPH;
            x[0] = 1.0;
            for (int k = 0; k < NTIDE; k++) { x[1 + 2 * k] = cos(2 * M_PI * tide_f[k] * t); x[2 + 2 * k] = sin(2 * M_PI * tide_f[k] * t); }
            double y = buf[i * nch + c];
            for (int p = 0; p < NPAR; p++) { b[p] += x[p] * y; for (int q = 0; q < NPAR; q++) A[p][q] += x[p] * x[q]; }
        }
        solve_sym(A, b, NPAR);
        memcpy(out[c], b, sizeof b);
    }
    free(buf);
}

static void build_greens(void)
{
    greens = malloc(sizeof(float) * NNODE * NCH);
    int n = 0;
    for (int iz = 0; iz < GZ; iz++)
        for (int iy = 0; iy < GY; iy++)
            for (int ix = 0; ix < GX; ix++, n++) {
                node_xyz[n][0] = -4500 + 300.0 * ix;
                node_xyz[n][1] = -4500 + 300.0 * iy;
                node_xyz[n][2] = 600 + 550.0 * iz;
                for (int s = 0; s < NST; s++) {
                    double tx, ty;
                    mogi_tilt(st_xy[s][0], st_xy[s][1], node_xyz[n][0], node_xyz[n][1], node_xyz[n][2], 1.0, &tx, &ty);
                    greens[(size_t)n * NCH + 2 * s] = (float)tx;
                    greens[(size_t)n * NCH + 2 * s + 1] = (float)ty;
                }
            }
}

/* Grid search with the volume change solved linearly at each node. */
static void invert_hour(const double *obs, double *res)
{
    double best = 1e300, oo = 0;
    int bn = 0;
    double bdv = 0;
    for (int c = 0; c < NCH; c++) oo += obs[c] * obs[c];
    for (int n = 0; n < NNODE; n++) {
        const float *g = greens + (size_t)n * NCH;
        double go = 0, gg = 0;
        for (int c = 0; c < NCH; c++) { go += g[c] * obs[c]; gg += (double)g[c] * g[c]; }
        double mis = oo - go * go / gg;
        if (mis < best) { best = mis; bn = n; bdv = go / gg; }
    }
    res[1] = node_xyz[bn][0]; res[2] = node_xyz[bn][1]; res[3] = node_xyz[bn][2];
    res[4] = bdv; res[5] = sqrt(fmax(best, 0.0) / NCH);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    char path[600];
    snprintf(path, sizeof path, "%s/tiltmeter_network.h5", argv[1]);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    station_layout();
    build_greens();
    write_attr_string(file, "volcano", "synthetic stratovolcano, borehole tilt network");
    write_attr_string(file, "start_utc", "2024-03-01T00:00:00Z");
    hid_t gst = H5Gcreate2(file, "stations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t sd[2] = {NST, 2};
    hid_t sp = H5Screate_simple(2, sd, NULL);
    hid_t dxy = H5Dcreate2(gst, "xy_m", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dxy, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, st_xy);
    H5Dclose(dxy); H5Sclose(sp); H5Gclose(gst);

    hid_t graw = H5Gcreate2(file, "raw", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t gproc = H5Gcreate2(file, "processed", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t d0[3] = {0, NST, 2}, ck_raw[3] = {SPH, NST, 2}, ck_h[3] = {24, NST, 2}, d0s[2] = {0, NSRC}, ck_s[2] = {24, NSRC};
    hid_t draw = create_extendible(graw, "tilt", 3, d0, ck_raw);
    hid_t dhour = create_extendible(gproc, "hourly_detided", 3, d0, ck_h);
    hid_t dsrc = create_extendible(gproc, "mogi_source", 2, d0s, ck_s);
    write_attr_double(draw, "sample_interval_s", 60.0);
    write_attr_string(draw, "units", "microradian");
    write_attr_string(dsrc, "columns", "hour,x_m,y_m,depth_m,dV_m3,rms_urad");

    double *blk = malloc(sizeof(double) * SPH * NCH), hourly[NCH], ref[NCH], res[NSRC];
    double *alerts = malloc(sizeof(double) * NHOURS * 3), dv_hist[NHOURS];
    int nalert = 0;
    for (int hr = 0; hr < NHOURS; hr++) {
        simulate_hour(hr, blk);
        append_rows(draw, dxpl, 3, (hsize_t)hr * SPH, SPH, blk);
        if (hr + 1 == CAL_HOURS) {
            H5Fflush(file, H5F_SCOPE_GLOBAL);
            fit_tides(draw, dxpl, 0, CAL_HOURS, coef, 0, NCH);
        }
        if (hr + 1 < CAL_HOURS) continue;
        for (int c = 0; c < NCH; c++) {
            double s = 0;
            for (int m = 0; m < SPH; m++) {
                double t = hr + m / (double)SPH, tide = 0;
                for (int k = 0; k < NTIDE; k++)
                    tide += coef[c][1 + 2 * k] * cos(2 * M_PI * tide_f[k] * t) + coef[c][2 + 2 * k] * sin(2 * M_PI * tide_f[k] * t);
                s += blk[m * NCH + c] - tide - coef[c][0];
            }
            hourly[c] = s / SPH;
            if (hr + 1 == CAL_HOURS) ref[c] = hourly[c];
            hourly[c] -= ref[c];
        }
        int row = hr + 1 - CAL_HOURS;
        append_rows(dhour, dxpl, 3, (hsize_t)row, 1, hourly);
        res[0] = hr;
        invert_hour(hourly, res);
        append_rows(dsrc, dxpl, 2, (hsize_t)row, 1, res);
        dv_hist[row] = res[4];
        if (row >= 6 && fabs(dv_hist[row] - dv_hist[row - 6]) > 1.5e5) {
            alerts[3 * nalert] = hr; alerts[3 * nalert + 1] = (dv_hist[row] - dv_hist[row - 6]) / 6.0;
            alerts[3 * nalert + 2] = res[3]; nalert++;
        }
        if ((hr + 1) % 24 == 0) write_attr_double(file, "last_complete_hour", hr + 1);
    }

    hsize_t ad[2] = {(hsize_t)(nalert > 0 ? nalert : 1), 3};
    sp = H5Screate_simple(2, ad, NULL);
    hid_t dal = H5Dcreate2(file, "alerts", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (nalert == 0) alerts[0] = alerts[1] = alerts[2] = -1;
    H5Dwrite(dal, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, alerts);
    write_attr_string(dal, "columns", "hour,dV_rate_m3_per_h,depth_m");
    H5Dclose(dal); H5Sclose(sp);
    H5Fflush(file, H5F_SCOPE_GLOBAL);

    /* read back: inversion table for daily summaries */
    int nrow = NHOURS - CAL_HOURS + 1;
    double *src = malloc(sizeof(double) * nrow * NSRC);
    H5Dread(dsrc, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, src);
    double daily[NDAYS][4];
    memset(daily, 0, sizeof daily);
    int dcount[NDAYS] = {0};
    for (int r = 0; r < nrow; r++) {
        int d = (int)src[r * NSRC] / 24;
        daily[d][0] += src[r * NSRC + 4]; daily[d][1] += src[r * NSRC + 3];
        daily[d][2] += src[r * NSRC + 1]; daily[d][3] += src[r * NSRC + 5]; dcount[d]++;
    }
    for (int d = 0; d < NDAYS; d++) for (int k = 0; k < 4; k++) daily[d][k] /= dcount[d] ? dcount[d] : 1;
    hid_t gsum = H5Gcreate2(file, "summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dd[2] = {NDAYS, 4};
    sp = H5Screate_simple(2, dd, NULL);
    hid_t ddy = H5Dcreate2(gsum, "daily_dV_depth_x_rms", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ddy, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, daily);
    H5Dclose(ddy); H5Sclose(sp);

    /* read back: full-record tidal fit for the two channels of station 0 */
    double full[2][NPAR];
    fit_tides(draw, dxpl, 0, NHOURS, full, 0, 2);
    hsize_t td[2] = {2, NPAR};
    sp = H5Screate_simple(2, td, NULL);
    hid_t dtf = H5Dcreate2(gsum, "station0_tide_fit", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dtf, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, full);
    H5Dclose(dtf); H5Sclose(sp); H5Gclose(gsum);

    snprintf(path, sizeof path, "%s/tilt_summary.txt", argv[1]);
    FILE *rep = fopen(path, "w");
    if (!rep) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    fprintf(rep, "# day mean_dV_m3 mean_depth_m mean_x_m rms_urad\n");
    for (int d = 0; d < NDAYS; d++) fprintf(rep, "%d %.1f %.1f %.1f %.5f\n", d, daily[d][0], daily[d][1], daily[d][2], daily[d][3]);
    fprintf(rep, "# alerts %d; M2 amplitude station0 x: calib %.4f full %.4f true %.4f\n", nalert,
            hypot(coef[0][1], coef[0][2]), hypot(full[0][1], full[0][2]), tide_amp[0][0]);
    fclose(rep);

    H5Dclose(draw); H5Dclose(dhour); H5Dclose(dsrc);
    H5Gclose(graw); H5Gclose(gproc);
    H5Pclose(dxpl);
    H5Fclose(file);
    if (rank == 0) printf("tilt network: %d hours, %d alerts\n", NHOURS, nalert);
    free(blk); free(alerts); free(src); free(greens);
    MPI_Finalize();
    return 0;
}
