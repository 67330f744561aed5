/*
 * h5_dome_seeing_night_series.c
 *
 * One observing night of a 4-m telescope enclosure: an outside weather mast,
 * 96 thermocouples on the primary mirror, its cell and the dome air column,
 * a 10 Hz sonic anemometer inside the slit and a DIMM seeing monitor.  A
 * lumped thermal network gives mirror and air temperatures while the outside
 * air cools through the night and the dome is vented; turbulent sonic
 * temperature fluctuations are synthesised with an AR(2) process whose
 * variance follows the mirror-air temperature difference, and DIMM seeing
 * adds free-atmosphere and dome seeing.
 *
 * Every simulated minute the blocks are appended to unlimited, chunked HDF5
 * datasets (H5Dset_extent + hyperslab selection, collective MPI-IO transfer
 * through the mpio driver); per-minute statistics (CT^2 structure constant,
 * dome seeing estimate) go to a compound-free 2-D statistics dataset.  After
 * the night the file is re-read with strided hyperslabs to correlate mirror
 * seeing against the temperature difference, and a summary group and text
 * report are written.
 *
 * Usage: h5_dome_seeing_night_series OUTDIR   (parallel HDF5, 1 rank)
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTC 96                 /* thermocouples */
#define NMIN 540               /* 9 h night */
#define SPM 60                 /* 1 Hz slow channels */
#define SONIC_HZ 10
#define NSONIC (SPM * SONIC_HZ)
#define NWX 6                  /* outside mast: T, RH, P, wind speed, wind dir, dew point */
#define NSTAT 8                /* per-minute statistics columns */
#define STRIDE 15              /* re-read stride in seconds */

static const char *outdir;
static uint64_t rng = 0x5851F42D4C957F2Dull;

static double urand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

static void h5check(herr_t rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "dome: HDF5 call failed: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static hid_t h5id(hid_t id, const char *what)
{
    if (id < 0) {
        fprintf(stderr, "dome: HDF5 call failed: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return id;
}

typedef struct {
    hid_t file, dxpl;
    hid_t d_tc, d_wx, d_sonic, d_dimm, d_stat;
} night_file;

typedef struct {
    double t_out, rh, pres, wind, wdir;
    double tc[NTC];            /* thermal node temperatures */
    double cap[NTC], gair[NTC];
    double vent;               /* dome vent fraction */
    double ar1, ar2;           /* AR(2) state of sonic temperature */
    double u1, u2;             /* AR(2) state of sonic w */
} dome_state;

static void write_attr_double(hid_t obj, const char *name, double v)
{
    hid_t sp = h5id(H5Screate(H5S_SCALAR), "Screate scalar");
    hid_t a = h5id(H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT), name);
    h5check(H5Awrite(a, H5T_NATIVE_DOUBLE, &v), name);
    h5check(H5Aclose(a), "H5Aclose");
    h5check(H5Sclose(sp), "H5Sclose");
}

static void write_attr_string(hid_t obj, const char *name, const char *s)
{
    hid_t t = h5id(H5Tcopy(H5T_C_S1), "Tcopy");
    h5check(H5Tset_size(t, strlen(s) + 1), "Tset_size");
    hid_t sp = h5id(H5Screate(H5S_SCALAR), "Screate scalar");
    hid_t a = h5id(H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), name);
    h5check(H5Awrite(a, t, s), name);
    h5check(H5Aclose(a), "H5Aclose");
    h5check(H5Sclose(sp), "H5Sclose");
    h5check(H5Tclose(t), "H5Tclose");
}

static hid_t make_series(hid_t loc, const char *name, hid_t type, hsize_t ncol, hsize_t chunk_rows, const char *units)
{
    hsize_t dims[2] = {0, ncol}, maxd[2] = {H5S_UNLIMITED, ncol}, chunk[2] = {chunk_rows, ncol};
    hid_t sp = h5id(H5Screate_simple(2, dims, maxd), "Screate_simple");
    hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "Pcreate dcpl");
    h5check(H5Pset_chunk(dcpl, 2, chunk), "set_chunk");
    h5check(H5Pset_obj_track_times(dcpl, 0), "set_obj_track_times");   /* reproducible files */
    hid_t d = h5id(H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    write_attr_string(d, "units", units);
    h5check(H5Pclose(dcpl), "H5Pclose");
    h5check(H5Sclose(sp), "H5Sclose");
    return d;
}

/* File with the MPI-IO driver, groups, unlimited chunked datasets and metadata attributes. */
static void create_night_file(night_file *nf, const char *path)
{
    hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "Pcreate fapl");
    h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "set_fapl_mpio");
    nf->file = h5id(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "Fcreate");
    h5check(H5Pclose(fapl), "H5Pclose");
    nf->dxpl = h5id(H5Pcreate(H5P_DATASET_XFER), "Pcreate dxpl");
    h5check(H5Pset_dxpl_mpio(nf->dxpl, H5FD_MPIO_COLLECTIVE), "set_dxpl_mpio");
    hid_t graw = h5id(H5Gcreate2(nf->file, "/raw", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate raw");
    hid_t gder = h5id(H5Gcreate2(nf->file, "/derived", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate derived");
    write_attr_string(nf->file, "site", "Cerro Synthetico 2650 m");
    write_attr_string(nf->file, "telescope", "4.0 m alt-az, ventilated dome");
    write_attr_double(nf->file, "sample_rate_hz", 1.0);
    write_attr_double(nf->file, "sonic_rate_hz", SONIC_HZ);
    nf->d_tc = make_series(graw, "thermocouples", H5T_NATIVE_FLOAT, NTC, SPM * 5, "degC");
    nf->d_wx = make_series(graw, "weather_mast", H5T_NATIVE_FLOAT, NWX, SPM * 10, "degC,%,hPa,m/s,deg,degC");
    nf->d_sonic = make_series(graw, "sonic_uvwT", H5T_NATIVE_FLOAT, 4, NSONIC, "m/s,m/s,m/s,degC");
    nf->d_dimm = make_series(graw, "dimm_seeing", H5T_NATIVE_FLOAT, 1, SPM * 30, "arcsec");
    nf->d_stat = make_series(gder, "minute_stats", H5T_NATIVE_DOUBLE, NSTAT, 64,
                             "t_min,dT_mirror_air,CT2,dome_seeing,dimm_mean,wind,vent,T_out");
    h5check(H5Gclose(graw), "H5Gclose");
    h5check(H5Gclose(gder), "H5Gclose");
}

/* Outside weather for one minute: slow cooling, gusty wind random walk. */
static void weather_minute(dome_state *s, int minute, float wx[SPM][NWX])
{
    for (int t = 0; t < SPM; t++) {
        double hour = (minute * SPM + t) / 3600.0;
        s->t_out += -0.00018 + 0.002 * gauss();
        s->t_out += (11.5 - 0.45 * hour - s->t_out) * 1e-4;
        s->wind = fabs(s->wind + 0.03 * gauss() + (6.0 + 3.0 * sin(hour) - s->wind) * 0.002);
        s->wdir = fmod(s->wdir + 0.3 * gauss() + 360.0, 360.0);
        s->rh = fmin(95.0, fmax(5.0, s->rh + 0.01 * gauss() + 0.0004));
        s->pres += 0.002 * gauss();
        double a = 17.27, b = 237.7, g = a * s->t_out / (b + s->t_out) + log(s->rh / 100.0);
        wx[t][0] = (float)s->t_out; wx[t][1] = (float)s->rh; wx[t][2] = (float)s->pres;
        wx[t][3] = (float)s->wind; wx[t][4] = (float)s->wdir; wx[t][5] = (float)(b * g / (a - g));
    }
    /* operator opens the vents further when the mirror is warmer than outside air */
    s->vent = fmin(1.0, fmax(0.1, s->vent + 0.02 * (s->tc[0] - s->t_out - 1.0)));
}

/* Thermal network at 1 Hz with 10 sub-steps: nodes exchange with dome air and neighbours. */
static void dome_thermal_minute(dome_state *s, float tc[SPM][NTC])
{
    for (int t = 0; t < SPM; t++) {
        for (int sub = 0; sub < 10; sub++) {
            double air = 0.0;
            for (int k = 48; k < NTC; k++) air += s->tc[k];
            air /= (NTC - 48);
            double hvent = 1.5 + 4.0 * s->vent * sqrt(s->wind);
            double nt[NTC];
            for (int k = 0; k < NTC; k++) {
                double tn = s->tc[k];
                double q;
                if (k < 48) {
                    int kn = (k % 48 + 1) % 48, kp = (k % 48 + 47) % 48;
                    q = s->gair[k] * hvent * (air - tn) + 0.8 * (s->tc[kn] + s->tc[kp] - 2 * tn);
                    if (k < 32) q -= 0.05 * (tn - (s->t_out - 6.0));           /* radiative loss to sky */
                } else {
                    int h = k - 48;                                            /* height index */
                    double above = h < 47 ? s->tc[k + 1] : s->t_out;
                    double below = h > 0 ? s->tc[k - 1] : s->tc[h % 32];
                    q = s->gair[k] * hvent * (s->t_out - tn) + 3.0 * (above + below - 2 * tn);
                }
                nt[k] = tn + 0.1 * q / s->cap[k];                      /* 0.1 s sub-step */
            }
            memcpy(s->tc, nt, sizeof nt);
        }
        for (int k = 0; k < NTC; k++) tc[t][k] = (float)(s->tc[k] + 0.01 * gauss());
    }
}

/* 10 Hz sonic (u, v, w, T): AR(2) turbulence whose temperature variance grows with dT. */
static void sonic_minute(dome_state *s, float son[NSONIC][4])
{
    double dT = s->tc[0] - s->tc[48];
    double sig_t = 0.02 + 0.08 * fabs(dT), sig_w = 0.1 + 0.05 * s->vent * s->wind;
    for (int n = 0; n < NSONIC; n++) {
        double e = gauss(), f = gauss();
        double x = 1.6 * s->ar1 - 0.64 * s->ar2 + sig_t * 0.36 * e;
        s->ar2 = s->ar1; s->ar1 = x;
        double w = 1.5 * s->u1 - 0.6 * s->u2 + sig_w * 0.3 * f;
        s->u2 = s->u1; s->u1 = w;
        double wr = s->wdir * 3.14159265358979 / 180.0;
        son[n][0] = (float)(0.3 * s->vent * s->wind * cos(wr) + 0.2 * gauss() * sig_w);
        son[n][1] = (float)(0.3 * s->vent * s->wind * sin(wr) + 0.2 * gauss() * sig_w);
        son[n][2] = (float)w;
        son[n][3] = (float)(s->tc[50] + x);
    }
}

/* DIMM seeing: free atmosphere (lognormal) + dome seeing from mirror-air dT^(6/5). */
static void dimm_minute(dome_state *s, float dimm[SPM][1])
{
    for (int t = 0; t < SPM; t++) {
        double dT = fabs(s->tc[t % 32] - s->tc[48 + t % 8]);
        double fa = 0.62 * exp(0.25 * gauss());
        double dome = 0.38 * pow(dT, 1.2);
        dimm[t][0] = (float)pow(pow(fa, 5.0 / 3.0) + pow(dome, 5.0 / 3.0), 0.6);
    }
}

/* Extend an unlimited 2-D dataset by nrows and write the block into the new hyperslab. */
static void append_rows(night_file *nf, hid_t d, hid_t memtype, hsize_t ncol, hsize_t nrows, const void *buf)
{
    hid_t fs = h5id(H5Dget_space(d), "Dget_space");
    hsize_t dims[2];
    if (H5Sget_simple_extent_dims(fs, dims, NULL) < 0) h5check(-1, "Sget_simple_extent_dims");
    h5check(H5Sclose(fs), "H5Sclose");
    hsize_t newd[2] = {dims[0] + nrows, ncol};
    h5check(H5Dset_extent(d, newd), "Dset_extent");
    fs = h5id(H5Dget_space(d), "Dget_space");
    hsize_t start[2] = {dims[0], 0}, count[2] = {nrows, ncol};
    h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select_hyperslab");
    hid_t ms = h5id(H5Screate_simple(2, count, NULL), "Screate mem");
    h5check(H5Dwrite(d, memtype, ms, fs, nf->dxpl, buf), "Dwrite append");
    h5check(H5Sclose(ms), "H5Sclose");
    h5check(H5Sclose(fs), "H5Sclose");
}

/* Per-minute statistics: CT^2 from the sonic temperature structure function at 1-10 samples. */
static void minute_statistics(const dome_state *s, int minute, float tc[SPM][NTC], float son[NSONIC][4],
                              float dimm[SPM][1], double st[NSTAT])
{
    double dmir = 0.0, dair = 0.0;
    for (int t = 0; t < SPM; t++) {
        for (int k = 0; k < 32; k++) dmir += tc[t][k];
        for (int k = 48; k < 56; k++) dair += tc[t][k];
    }
    double dT = dmir / (SPM * 32.0) - dair / (SPM * 8.0);
    double ubar = 0.0;
    for (int n = 0; n < NSONIC; n++) ubar += sqrt(son[n][0] * son[n][0] + son[n][1] * son[n][1]);
    ubar = ubar / NSONIC + 0.2;
    /* D_T(r) = <(T(x+r)-T(x))^2> = CT2 r^(2/3); Taylor hypothesis r = U dt; fit by averaging */
    double ct2 = 0.0;
    int nl = 0;
    for (int lag = 1; lag <= 10; lag++) {
        double d = 0.0;
        for (int n = 0; n + lag < NSONIC; n++) {
            double x = son[n + lag][3] - son[n][3];
            d += x * x;
        }
        d /= (NSONIC - lag);
        double r = ubar * lag / SONIC_HZ;
        ct2 += d / pow(r, 2.0 / 3.0);
        nl++;
    }
    ct2 /= nl;
    double dm = 0.0;
    for (int t = 0; t < SPM; t++) dm += dimm[t][0];
    st[0] = minute; st[1] = dT; st[2] = ct2;
    st[3] = 0.38 * pow(fabs(dT), 1.2);
    st[4] = dm / SPM; st[5] = s->wind; st[6] = s->vent; st[7] = s->t_out;
}

/* Strided hyperslab re-read of mirror thermocouples and DIMM every STRIDE seconds. */
static void reread_strided(night_file *nf, double *corr, double *mean_seeing, double *frac_bad, long *nread)
{
    hid_t fs = h5id(H5Dget_space(nf->d_tc), "Dget_space tc");
    hsize_t dims[2];
    if (H5Sget_simple_extent_dims(fs, dims, NULL) < 0) h5check(-1, "Sget_simple_extent_dims");
    hsize_t nsel = (dims[0] + STRIDE - 1) / STRIDE;
    hsize_t start[2] = {0, 0}, stride[2] = {STRIDE, 1}, count[2] = {nsel, 32};
    h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL), "select strided tc");
    float *mir = malloc(sizeof(float) * nsel * 32);
    float *air = malloc(sizeof(float) * nsel * 8);
    float *see = malloc(sizeof(float) * nsel);
    if (!mir || !air || !see) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    hid_t ms = h5id(H5Screate_simple(2, count, NULL), "Screate");
    h5check(H5Dread(nf->d_tc, H5T_NATIVE_FLOAT, ms, fs, nf->dxpl, mir), "Dread mirror");
    h5check(H5Sclose(ms), "H5Sclose");
    hsize_t start2[2] = {0, 48}, count2[2] = {nsel, 8};
    h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start2, stride, count2, NULL), "select strided air");
    ms = h5id(H5Screate_simple(2, count2, NULL), "Screate");
    h5check(H5Dread(nf->d_tc, H5T_NATIVE_FLOAT, ms, fs, nf->dxpl, air), "Dread air");
    h5check(H5Sclose(ms), "H5Sclose");
    h5check(H5Sclose(fs), "H5Sclose");
    fs = h5id(H5Dget_space(nf->d_dimm), "Dget_space dimm");
    hsize_t count3[2] = {nsel, 1};
    h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count3, NULL), "select strided dimm");
    ms = h5id(H5Screate_simple(2, count3, NULL), "Screate");
    h5check(H5Dread(nf->d_dimm, H5T_NATIVE_FLOAT, ms, fs, nf->dxpl, see), "Dread dimm");
    h5check(H5Sclose(ms), "H5Sclose");
    h5check(H5Sclose(fs), "H5Sclose");

    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int bad = 0;
    for (hsize_t r = 0; r < nsel; r++) {
        double m = 0, a = 0;
        for (int k = 0; k < 32; k++) m += mir[r * 32 + k];
        for (int k = 0; k < 8; k++) a += air[r * 8 + k];
        double x = fabs(m / 32 - a / 8), y = see[r];
        sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
        if (y > 1.0) bad++;
    }
    double n = (double)nsel;
    *corr = (sxy / n - sx / n * sy / n) / sqrt((sxx / n - sx * sx / (n * n)) * (syy / n - sy * sy / (n * n)));
    *mean_seeing = sy / n;
    *frac_bad = bad / n;
    *nread = (long)nsel;
    free(mir); free(air); free(see);
}

static void write_summary(night_file *nf, double corr, double mean_seeing, double frac_bad)
{
    hid_t g = h5id(H5Gcreate2(nf->file, "/summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "Gcreate summary");
    write_attr_double(g, "corr_dT_seeing", corr);
    write_attr_double(g, "mean_dimm_seeing_arcsec", mean_seeing);
    write_attr_double(g, "fraction_seeing_gt_1arcsec", frac_bad);
    /* hourly means of the minute statistics, read back with a block hyperslab per hour */
    double hourly[NMIN / 60][NSTAT], sig_t[NMIN / 60], sig_w[NMIN / 60], heat_flux[NMIN / 60];
    static float son[60 * NSONIC][4];
    for (int h = 0; h < NMIN / 60; h++) {
        /* one hour of 10 Hz sonic data: temperature and vertical-wind variance, kinematic heat flux */
        hid_t ss = h5id(H5Dget_space(nf->d_sonic), "Dget_space sonic");
        hsize_t s0[2] = {(hsize_t)h * 60 * NSONIC, 0}, sc[2] = {60 * NSONIC, 4};
        h5check(H5Sselect_hyperslab(ss, H5S_SELECT_SET, s0, NULL, sc, NULL), "select sonic hour");
        hid_t sm = h5id(H5Screate_simple(2, sc, NULL), "Screate");
        h5check(H5Dread(nf->d_sonic, H5T_NATIVE_FLOAT, sm, ss, nf->dxpl, son), "Dread sonic hour");
        h5check(H5Sclose(sm), "H5Sclose");
        h5check(H5Sclose(ss), "H5Sclose");
        double mt = 0, mw = 0, vt = 0, vw = 0, cwt = 0;
        const double n = 60.0 * NSONIC;
        for (int i = 0; i < 60 * NSONIC; i++) { mt += son[i][3]; mw += son[i][2]; }
        mt /= n; mw /= n;
        for (int i = 0; i < 60 * NSONIC; i++) {
            double dt_ = son[i][3] - mt, dw = son[i][2] - mw;
            vt += dt_ * dt_; vw += dw * dw; cwt += dt_ * dw;
        }
        sig_t[h] = sqrt(vt / n); sig_w[h] = sqrt(vw / n); heat_flux[h] = cwt / n;
        double blk[60][NSTAT];
        hid_t fs = h5id(H5Dget_space(nf->d_stat), "Dget_space stat");
        hsize_t start[2] = {(hsize_t)h * 60, 0}, count[2] = {60, NSTAT};
        h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select hour");
        hid_t ms = h5id(H5Screate_simple(2, count, NULL), "Screate");
        h5check(H5Dread(nf->d_stat, H5T_NATIVE_DOUBLE, ms, fs, nf->dxpl, blk), "Dread hour");
        h5check(H5Sclose(ms), "H5Sclose");
        h5check(H5Sclose(fs), "H5Sclose");
        for (int c = 0; c < NSTAT; c++) {
            hourly[h][c] = 0.0;
            for (int m = 0; m < 60; m++) hourly[h][c] += blk[m][c] / 60.0;
        }
    }
    hsize_t dims[2] = {NMIN / 60, NSTAT};
    hid_t sp = h5id(H5Screate_simple(2, dims, NULL), "Screate hourly");
    hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "Pcreate dcpl");
    h5check(H5Pset_obj_track_times(dcpl, 0), "set_obj_track_times");
    hid_t d = h5id(H5Dcreate2(g, "hourly_means", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                   "Dcreate hourly");
    h5check(H5Pclose(dcpl), "H5Pclose");
    h5check(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, nf->dxpl, hourly), "Dwrite hourly");
    h5check(H5Dclose(d), "H5Dclose");
    h5check(H5Sclose(sp), "H5Sclose");
    h5check(H5Gclose(g), "H5Gclose");

    char path[4096];
    snprintf(path, sizeof path, "%s/night_report.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 2); }
    int ok = fprintf(f, "corr(|dT mirror-air|, DIMM) = %.3f\nmean DIMM seeing %.3f arcsec, %.1f%% > 1 arcsec\n",
                     corr, mean_seeing, 100 * frac_bad) >= 0;
    for (int h = 0; h < NMIN / 60; h++)
        ok = ok && fprintf(f, "hour %d: dT %+.3f C  CT2 %.2e  dome %.3f\"  DIMM %.3f\"  wind %.1f  vent %.2f  Tout %.2f"
                              "  sigT %.3f  sigW %.3f  w'T' %+.2e\n",
                           h, hourly[h][1], hourly[h][2], hourly[h][3], hourly[h][4], hourly[h][5], hourly[h][6],
                           hourly[h][7], sig_t[h], sig_w[h], heat_flux[h]) >= 0;
    if (!ok || fclose(f) != 0) { perror(path); MPI_Abort(MPI_COMM_WORLD, 2); }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    outdir = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/dome_night.h5", outdir);
    night_file nf;
    create_night_file(&nf, path);
    dome_state s;
    s.t_out = 11.5; s.rh = 22.0; s.pres = 742.0; s.wind = 6.0; s.wdir = 310.0;
    s.vent = 0.3;
    for (int k = 0; k < NTC; k++) {
        s.tc[k] = 13.0 + 0.4 * urand();
        if (k < 32) { s.cap[k] = 9.0e3; s.gair[k] = 1.0; }          /* mirror glass: slow */
        else if (k < 48) { s.cap[k] = 3.0e3; s.gair[k] = 2.0; }     /* mirror cell steel */
        else { s.cap[k] = 60.0; s.gair[k] = 4.0; }                   /* dome air column */
    }
    s.ar1 = s.ar2 = s.u1 = s.u2 = 0.0;
    static float wx[SPM][NWX], tc[SPM][NTC], son[NSONIC][4], dimm[SPM][1];
    double st[NSTAT];
    for (int m = 0; m < NMIN; m++) {
        weather_minute(&s, m, wx);
        dome_thermal_minute(&s, tc);
        sonic_minute(&s, son);
        dimm_minute(&s, dimm);
        append_rows(&nf, nf.d_wx, H5T_NATIVE_FLOAT, NWX, SPM, wx);
        append_rows(&nf, nf.d_tc, H5T_NATIVE_FLOAT, NTC, SPM, tc);
        append_rows(&nf, nf.d_sonic, H5T_NATIVE_FLOAT, 4, NSONIC, son);
        append_rows(&nf, nf.d_dimm, H5T_NATIVE_FLOAT, 1, SPM, dimm);
        minute_statistics(&s, m, tc, son, dimm, st);
        append_rows(&nf, nf.d_stat, H5T_NATIVE_DOUBLE, NSTAT, 1, st);
    }
    h5check(H5Fflush(nf.file, H5F_SCOPE_GLOBAL), "Fflush");
    double corr, mean_seeing, frac_bad;
    long nread;
    reread_strided(&nf, &corr, &mean_seeing, &frac_bad, &nread);
    write_summary(&nf, corr, mean_seeing, frac_bad);
    hid_t dsets[5] = {nf.d_tc, nf.d_wx, nf.d_sonic, nf.d_dimm, nf.d_stat};
    for (int k = 0; k < 5; k++) h5check(H5Dclose(dsets[k]), "H5Dclose");
    h5check(H5Pclose(nf.dxpl), "H5Pclose");
    h5check(H5Fclose(nf.file), "Fclose");
    printf("dome: %d minutes written, %ld strided rows re-read, corr(dT,seeing)=%.3f, mean seeing %.3f\"\n", NMIN,
           nread, corr, mean_seeing);
    MPI_Finalize();
    return 0;
}
