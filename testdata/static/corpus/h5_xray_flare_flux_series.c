/*
 * h5_xray_flare_flux_series.c
 *
 * Solar X-ray / EUV irradiance monitor ground processing with parallel HDF5
 * (MPI-IO driver, collective transfers; run on one rank).
 *
 * A geostationary sensor suite is simulated for five days: a two-channel
 * X-ray photometer (0.5-4 and 1-8 Angstrom) at 1 s cadence with quality
 * flags, and a 48-bin EUV spectrograph at 10 s cadence.  A schedule of
 * flares (power-law peak fluxes, impulsive rise, exponential decay, hotter
 * short channel) is superposed on a slowly varying active-region
 * background with shot noise and eclipse-season data gaps.
 *
 * Every 5-minute telemetry step the unlimited, chunked datasets are
 * extended and the new samples written as hyperslabs.  After the run the
 * file is reopened: the long channel is read hour by hour to detect and
 * classify flares (A..X), the channel ratio gives isothermal temperature
 * and emission measure (written as new datasets), one-minute averages are
 * produced, and the flare catalogue is stored as a compound dataset and a
 * text list.
 *
 * usage: h5_xray_flare_flux_series OUTDIR
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDAYS 5
#define XRS_PER_STEP 300          /* 5 minutes at 1 s */
#define EUV_PER_STEP 30           /* 10 s cadence */
#define NEUV 48
#define NSTEP (NDAYS * 24 * 12)
#define NXRS ((hsize_t)NSTEP * XRS_PER_STEP)
#define MAXFLARE 400

typedef struct {
    double t_start, t_peak, tau_decay, peak_long, temp_mk;
} flare_model;

typedef struct {
    double t_start, t_peak, t_end;
    double peak_flux;
    double peak_temp_mk;
    double peak_em;
    char goes_class[8];
} flare_event;

static const char *g_dir;
static uint64_t g_rng = 0x50A4F1A3Eull;
static flare_model sched[MAXFLARE];
static int nsched;

static void fail(const char *what)
{
    fprintf(stderr, "h5_xray_flare_flux_series: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define HCHK(x)                                                                                                     \
    do {                                                                                                               \
        if ((x) < 0)                                                                                                   \
            fail("HDF5 call failed: " #x);                                                                             \
    } while (0)

static double urand(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (double)((g_rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double nrand(void)
{
    double u1 = urand() + 1e-300, u2 = urand();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Poisson flare occurrence with a power-law (index 1.9) peak-flux
 * distribution above 1e-7 W/m2. */
static void simulate_flare_schedule(void)
{
    double t = 0.0, tend = NDAYS * 86400.0;
    nsched = 0;
    while (nsched < MAXFLARE) {
        t += -log(urand() + 1e-12) * 2400.0;
        if (t >= tend)
            break;
        flare_model *f = &sched[nsched++];
        f->t_start = t;
        f->peak_long = 1e-7 * pow(urand() + 1e-9, -1.0 / 0.9);
        if (f->peak_long > 2e-3)
            f->peak_long = 2e-3;
        f->t_peak = t + 120.0 + 600.0 * urand() * sqrt(f->peak_long / 1e-6 > 1 ? 1.0 : f->peak_long / 1e-6 + 0.2);
        f->tau_decay = 300.0 + 900.0 * urand() + 200.0 * log10(f->peak_long / 1e-7);
        f->temp_mk = 8.0 + 4.0 * log10(f->peak_long / 1e-7) + 2.0 * urand();
    }
}

static double background(double t)
{
    return 2.5e-7 * (1.0 + 0.4 * sin(6.283185307179586 * t / (27.0 * 86400.0) * 3.0) +
                     0.15 * sin(6.283185307179586 * t / 41000.0));
}

/* Short/long channel flux for one step; ratio depends on temperature. */
static void xrs_sample_block(int step, double *lng, double *shrt, uint8_t *flag)
{
    for (int i = 0; i < XRS_PER_STEP; i++) {
        double t = ((double)step * XRS_PER_STEP + i);
        double L = background(t), S = 0.02 * L;
        for (int k = 0; k < nsched; k++) {
            const flare_model *f = &sched[k];
            if (t < f->t_start || t > f->t_peak + 12.0 * f->tau_decay)
                continue;
            double shape;
            if (t < f->t_peak) {
                double x = (t - f->t_start) / (f->t_peak - f->t_start);
                shape = x * x * (3.0 - 2.0 * x);
            } else {
                shape = exp(-(t - f->t_peak) / f->tau_decay);
            }
            double T = 4.0 + (f->temp_mk - 4.0) * (t < f->t_peak ? 1.0 : exp(-(t - f->t_peak) / (1.5 * f->tau_decay)));
            double ratio = 0.02 * exp((T - 4.0) / 6.0); /* short/long grows with temperature */
            L += f->peak_long * shape;
            S += f->peak_long * shape * fmin(ratio, 0.6);
        }
        lng[i] = L * (1.0 + 0.01 * nrand());
        shrt[i] = S * (1.0 + 0.03 * nrand()) + 2e-10 * nrand();
        flag[i] = 0;
        /* eclipse gap around local midnight on day 2 */
        double tod = fmod(t, 86400.0);
        if (t > 86400.0 && tod > 21600.0 && tod < 21600.0 + 3600.0) {
            lng[i] = shrt[i] = -9999.0;
            flag[i] = 4;
        } else if (urand() < 2e-4) {
            lng[i] *= 30.0; /* particle hit */
            flag[i] = 1;
        }
    }
}

/* EUV spectrum: lines with different formation temperatures respond to
 * flares with different amplitudes and delays. */
static void euv_spectrum_block(int step, const double *lng, double *euv)
{
    for (int j = 0; j < EUV_PER_STEP; j++) {
        double L = lng[j * 10];
        if (L < 0)
            L = background((double)step * XRS_PER_STEP + j * 10);
        double act = log10(L / 1e-7);
        for (int b = 0; b < NEUV; b++) {
            double lam = 5.0 + b * 2.5; /* nm */
            double quiet = 1e-5 * exp(-0.5 * pow((lam - 30.4) / 2.0, 2)) + 2e-6 * exp(-lam / 40.0) + 4e-7;
            double resp = (b % 7 == 0 ? 0.8 : 0.15) * act;
            euv[j * NEUV + b] = quiet * (1.0 + fmax(resp, 0.0)) * (1.0 + 0.005 * nrand());
        }
    }
}

static hid_t make_extendible(hid_t file, const char *name, hid_t type, int rank, const hsize_t *chunk,
                             const hsize_t *tail)
{
    hsize_t dims[2] = {0, rank > 1 ? tail[0] : 0}, maxd[2] = {H5S_UNLIMITED, rank > 1 ? tail[0] : 0};
    hid_t sp = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(sp);
    HCHK(H5Pset_chunk(dcpl, rank, chunk));
    HCHK(H5Pset_obj_track_times(dcpl, 0)); /* reproducible files */
    hid_t ds = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    HCHK(ds);
    HCHK(H5Pclose(dcpl));
    HCHK(H5Sclose(sp));
    return ds;
}

static void put_attr_double(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(a);
    HCHK(H5Awrite(a, H5T_NATIVE_DOUBLE, &v));
    HCHK(H5Aclose(a));
    HCHK(H5Sclose(sp));
}

static void put_attr_string(hid_t obj, const char *name, const char *s)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t ty = H5Tcopy(H5T_C_S1);
    HCHK(H5Tset_size(ty, strlen(s) + 1));
    hid_t a = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(a);
    HCHK(H5Awrite(a, ty, s));
    HCHK(H5Aclose(a));
    HCHK(H5Tclose(ty));
    HCHK(H5Sclose(sp));
}

/* Extend a dataset by n rows and write them as a hyperslab. */
static void append_rows(hid_t ds, hid_t memtype, hid_t dxpl, hsize_t start, hsize_t n, hsize_t width, const void *buf)
{
    int rank = width > 0 ? 2 : 1;
    hsize_t newdims[2] = {start + n, width}, off[2] = {start, 0}, cnt[2] = {n, width};
    HCHK(H5Dset_extent(ds, newdims));
    hid_t fs = H5Dget_space(ds);
    HCHK(fs);
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL));
    hid_t ms = H5Screate_simple(rank, cnt, NULL);
    HCHK(H5Dwrite(ds, memtype, ms, fs, dxpl, buf));
    HCHK(H5Sclose(ms));
    HCHK(H5Sclose(fs));
}

static hid_t open_parallel(const char *path, int create)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    HCHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, H5F_ACC_RDWR, fapl);
    HCHK(f);
    HCHK(H5Pclose(fapl));
    return f;
}

static void write_time_series(const char *path, hid_t dxpl)
{
    hid_t f = open_parallel(path, 1);
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    HCHK(H5Pset_obj_track_times(gcpl, 0));
    hid_t g = H5Gcreate2(f, "/xrs", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t ge = H5Gcreate2(f, "/euvs", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    HCHK(H5Pclose(gcpl));
    HCHK(g);
    HCHK(ge);
    put_attr_string(f, "instrument", "simulated XRS + EUVS, geostationary");
    put_attr_double(g, "cadence_s", 1.0);
    put_attr_double(ge, "cadence_s", 10.0);
    hsize_t c1[1] = {3600}, c2[2] = {360, NEUV}, w[1] = {NEUV};
    hid_t d_long = make_extendible(g, "flux_long", H5T_IEEE_F64LE, 1, c1, NULL);
    hid_t d_short = make_extendible(g, "flux_short", H5T_IEEE_F64LE, 1, c1, NULL);
    hid_t d_flag = make_extendible(g, "quality", H5T_STD_U8LE, 1, c1, NULL);
    hid_t d_euv = make_extendible(ge, "irradiance", H5T_IEEE_F32LE, 2, c2, w);
    hid_t d_et = make_extendible(ge, "time_s", H5T_IEEE_F64LE, 1, c1, NULL);

    double lng[XRS_PER_STEP], shr[XRS_PER_STEP], euv[EUV_PER_STEP * NEUV], et[EUV_PER_STEP];
    float euvf[EUV_PER_STEP * NEUV];
    uint8_t flag[XRS_PER_STEP];
    for (int s = 0; s < NSTEP; s++) {
        xrs_sample_block(s, lng, shr, flag);
        euv_spectrum_block(s, lng, euv);
        for (int k = 0; k < EUV_PER_STEP * NEUV; k++)
            euvf[k] = (float)euv[k];
        for (int j = 0; j < EUV_PER_STEP; j++)
            et[j] = (double)s * XRS_PER_STEP + 10.0 * j;
        hsize_t x0 = (hsize_t)s * XRS_PER_STEP, e0 = (hsize_t)s * EUV_PER_STEP;
        append_rows(d_long, H5T_NATIVE_DOUBLE, dxpl, x0, XRS_PER_STEP, 0, lng);
        append_rows(d_short, H5T_NATIVE_DOUBLE, dxpl, x0, XRS_PER_STEP, 0, shr);
        append_rows(d_flag, H5T_NATIVE_UINT8, dxpl, x0, XRS_PER_STEP, 0, flag);
        append_rows(d_euv, H5T_NATIVE_FLOAT, dxpl, e0, EUV_PER_STEP, NEUV, euvf);
        append_rows(d_et, H5T_NATIVE_DOUBLE, dxpl, e0, EUV_PER_STEP, 0, et);
        if (s % 96 == 95)
            HCHK(H5Fflush(f, H5F_SCOPE_LOCAL)); /* every 8 hours, as a downlink pass would */
    }
    hid_t all[] = {d_long, d_short, d_flag, d_euv, d_et};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        HCHK(H5Dclose(all[i]));
    HCHK(H5Gclose(g));
    HCHK(H5Gclose(ge));
    HCHK(H5Fclose(f));
}

static void read_slab(hid_t ds, hid_t dxpl, hsize_t start, hsize_t n, double *buf)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t off[1] = {start}, cnt[1] = {n};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL));
    hid_t ms = H5Screate_simple(1, cnt, NULL);
    HCHK(H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf));
    HCHK(H5Sclose(ms));
    HCHK(H5Sclose(fs));
}

static void goes_class(double flux, char *out, size_t n)
{
    const char *cls = "A";
    double base = 1e-8;
    if (flux >= 1e-4) {
        cls = "X";
        base = 1e-4;
    } else if (flux >= 1e-5) {
        cls = "M";
        base = 1e-5;
    } else if (flux >= 1e-6) {
        cls = "C";
        base = 1e-6;
    } else if (flux >= 1e-7) {
        cls = "B";
        base = 1e-7;
    }
    snprintf(out, n, "%s%.1f", cls, flux / base);
}

/* Isothermal temperature (MK) and emission measure (1e49 cm^-3) from the
 * short/long ratio, inverting the simulator's empirical response. */
static void temperature_em(double L, double S, double *T, double *em)
{
    double r = S / L;
    if (!(r > 0.0) || L <= 0.0) {
        *T = *em = NAN;
        return;
    }
    *T = 4.0 + 6.0 * log(fmax(r, 1e-4) / 0.02);
    if (*T < 1.0)
        *T = 1.0;
    double resp = 1e-6 * (0.3 + 0.07 * *T); /* W/m2 per 1e49 cm^-3 */
    *em = L / resp;
}

/* Hour-by-hour scan of the long channel: 4-sample median despiking, start
 * when 4 consecutive minutes rise, end when flux has decayed half way back
 * to the pre-flare level.  Temperature and EM are computed for every
 * sample and written as new datasets. */
static int detect_flares(const char *path, hid_t dxpl, flare_event *ev, int maxev)
{
    hid_t f = open_parallel(path, 0);
    hid_t dl = H5Dopen2(f, "/xrs/flux_long", H5P_DEFAULT), dsh = H5Dopen2(f, "/xrs/flux_short", H5P_DEFAULT);
    HCHK(dl);
    HCHK(dsh);
    hsize_t dims[1];
    hid_t sp = H5Dget_space(dl);
    HCHK(H5Sget_simple_extent_dims(sp, dims, NULL));
    HCHK(H5Sclose(sp));
    hsize_t n = dims[0];
    const hsize_t hour = 3600;

    hsize_t cd[1] = {n}, ck[1] = {3600};
    hid_t fsp = H5Screate_simple(1, cd, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_chunk(dcpl, 1, ck));
    HCHK(H5Pset_obj_track_times(dcpl, 0));
    hid_t dT = H5Dcreate2(f, "/xrs/temperature_MK", H5T_IEEE_F32LE, fsp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t dE = H5Dcreate2(f, "/xrs/emission_measure_1e49", H5T_IEEE_F32LE, fsp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    HCHK(dT);
    HCHK(dE);
    HCHK(H5Pclose(dcpl));

    double *L = malloc(sizeof(double) * hour), *S = malloc(sizeof(double) * hour);
    float *Tb = malloc(sizeof(float) * hour), *Eb = malloc(sizeof(float) * hour);
    if (!L || !S || !Tb || !Eb)
        fail("malloc");
    int nev = 0, in_flare = 0, rising = 0;
    double minute_prev = 0.0, pre_level = 0.0, peak = 0.0, tpk = 0.0, tst = 0.0, Tpk = 0.0, EMpk = 0.0;
    double acc = 0.0;
    int nacc = 0;
    for (hsize_t h0 = 0; h0 < n; h0 += hour) {
        hsize_t m = n - h0 < hour ? n - h0 : hour;
        read_slab(dl, dxpl, h0, m, L);
        read_slab(dsh, dxpl, h0, m, S);
        for (hsize_t i = 0; i < m; i++) {
            double T, em;
            /* 4-point running median-of-window for particle hits */
            double l = L[i];
            if (i >= 2 && i + 1 < m) {
                double a = L[i - 1], b = L[i + 1];
                if (l > 5.0 * a && l > 5.0 * b)
                    l = 0.5 * (a + b);
            }
            temperature_em(l, S[i], &T, &em);
            Tb[i] = (float)T;
            Eb[i] = (float)em;
            if (l < 0.0)
                continue;
            acc += l;
            nacc++;
            if (nacc < 60)
                continue;
            double minute = acc / nacc;
            double t = (double)(h0 + i);
            acc = 0.0;
            nacc = 0;
            if (!in_flare) {
                rising = (minute > minute_prev * 1.02) ? rising + 1 : 0;
                if (rising == 1)
                    pre_level = minute_prev;
                if (rising >= 4 && minute > 1.4 * pre_level) {
                    in_flare = 1;
                    tst = t - 4 * 60.0;
                    peak = minute;
                    tpk = t;
                    Tpk = T;
                    EMpk = em;
                }
            } else {
                if (minute > peak) {
                    peak = minute;
                    tpk = t;
                    Tpk = T;
                    EMpk = em;
                }
                if (minute < pre_level + 0.5 * (peak - pre_level) && t - tpk > 120.0) {
                    if (nev < maxev) {
                        ev[nev].t_start = tst;
                        ev[nev].t_peak = tpk;
                        ev[nev].t_end = t;
                        ev[nev].peak_flux = peak;
                        ev[nev].peak_temp_mk = Tpk;
                        ev[nev].peak_em = EMpk;
                        goes_class(peak, ev[nev].goes_class, sizeof ev[nev].goes_class);
                        nev++;
                    }
                    in_flare = 0;
                    rising = 0;
                }
            }
            minute_prev = minute;
        }
        hsize_t off[1] = {h0}, cnt[1] = {m};
        hid_t fs2 = H5Dget_space(dT);
        HCHK(H5Sselect_hyperslab(fs2, H5S_SELECT_SET, off, NULL, cnt, NULL));
        hid_t ms = H5Screate_simple(1, cnt, NULL);
        HCHK(H5Dwrite(dT, H5T_NATIVE_FLOAT, ms, fs2, dxpl, Tb));
        HCHK(H5Dwrite(dE, H5T_NATIVE_FLOAT, ms, fs2, dxpl, Eb));
        HCHK(H5Sclose(ms));
        HCHK(H5Sclose(fs2));
    }
    free(L);
    free(S);
    free(Tb);
    free(Eb);
    HCHK(H5Sclose(fsp));
    HCHK(H5Dclose(dT));
    HCHK(H5Dclose(dE));
    HCHK(H5Dclose(dl));
    HCHK(H5Dclose(dsh));
    HCHK(H5Fclose(f));
    return nev;
}

/* One-minute averages of both channels and of the EUV spectrum (band
 * integrated), read back in day-sized hyperslabs. */
static void minute_averages(const char *path, hid_t dxpl, double *max_euv)
{
    hid_t f = open_parallel(path, 0);
    hid_t dl = H5Dopen2(f, "/xrs/flux_long", H5P_DEFAULT), de = H5Dopen2(f, "/euvs/irradiance", H5P_DEFAULT);
    HCHK(dl);
    HCHK(de);
    const hsize_t day = 86400, nmin = NXRS / 60;
    hsize_t md[2] = {nmin, 2};
    hid_t sp = H5Screate_simple(2, md, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_obj_track_times(dcpl, 0));
    hid_t dm = H5Dcreate2(f, "/minute_avg", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    HCHK(H5Pclose(dcpl));
    HCHK(dm);
    double *L = malloc(sizeof(double) * day);
    float *E = malloc(sizeof(float) * (day / 10) * NEUV);
    double *out = malloc(sizeof(double) * (day / 60) * 2);
    if (!L || !E || !out)
        fail("malloc");
    *max_euv = 0.0;
    for (hsize_t d0 = 0; d0 < NXRS; d0 += day) {
        read_slab(dl, dxpl, d0, day, L);
        hid_t fs = H5Dget_space(de);
        hsize_t off[2] = {d0 / 10, 0}, cnt[2] = {day / 10, NEUV};
        HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL));
        hid_t ms = H5Screate_simple(2, cnt, NULL);
        HCHK(H5Dread(de, H5T_NATIVE_FLOAT, ms, fs, dxpl, E));
        HCHK(H5Sclose(ms));
        HCHK(H5Sclose(fs));
        for (hsize_t m = 0; m < day / 60; m++) {
            double s = 0.0, e = 0.0;
            int ns = 0;
            for (int i = 0; i < 60; i++)
                if (L[m * 60 + i] > 0.0) {
                    s += L[m * 60 + i];
                    ns++;
                }
            for (int j = 0; j < 6; j++)
                for (int b = 0; b < NEUV; b++)
                    e += E[(m * 6 + j) * NEUV + b] * 2.5;
            out[2 * m] = ns > 0 ? s / ns : NAN;
            out[2 * m + 1] = e / 6.0;
            if (out[2 * m + 1] > *max_euv)
                *max_euv = out[2 * m + 1];
        }
        hid_t fs2 = H5Dget_space(dm);
        hsize_t o2[2] = {d0 / 60, 0}, c2[2] = {day / 60, 2};
        HCHK(H5Sselect_hyperslab(fs2, H5S_SELECT_SET, o2, NULL, c2, NULL));
        hid_t ms2 = H5Screate_simple(2, c2, NULL);
        HCHK(H5Dwrite(dm, H5T_NATIVE_DOUBLE, ms2, fs2, dxpl, out));
        HCHK(H5Sclose(ms2));
        HCHK(H5Sclose(fs2));
    }
    free(L);
    free(E);
    free(out);
    HCHK(H5Sclose(sp));
    HCHK(H5Dclose(dm));
    HCHK(H5Dclose(dl));
    HCHK(H5Dclose(de));
    HCHK(H5Fclose(f));
}

static void write_flare_catalog(const char *path, hid_t dxpl, const flare_event *ev, int nev)
{
    hid_t f = open_parallel(path, 0);
    hid_t st = H5Tcreate(H5T_COMPOUND, sizeof(flare_event));
    hid_t s8 = H5Tcopy(H5T_C_S1);
    HCHK(H5Tset_size(s8, 8));
    HCHK(H5Tinsert(st, "t_start_s", HOFFSET(flare_event, t_start), H5T_NATIVE_DOUBLE));
    HCHK(H5Tinsert(st, "t_peak_s", HOFFSET(flare_event, t_peak), H5T_NATIVE_DOUBLE));
    HCHK(H5Tinsert(st, "t_end_s", HOFFSET(flare_event, t_end), H5T_NATIVE_DOUBLE));
    HCHK(H5Tinsert(st, "peak_flux_Wm2", HOFFSET(flare_event, peak_flux), H5T_NATIVE_DOUBLE));
    HCHK(H5Tinsert(st, "peak_temp_MK", HOFFSET(flare_event, peak_temp_mk), H5T_NATIVE_DOUBLE));
    HCHK(H5Tinsert(st, "peak_em_1e49", HOFFSET(flare_event, peak_em), H5T_NATIVE_DOUBLE));
    HCHK(H5Tinsert(st, "class", HOFFSET(flare_event, goes_class), s8));
    hsize_t d[1] = {(hsize_t)(nev > 0 ? nev : 1)};
    hid_t sp = H5Screate_simple(1, d, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_obj_track_times(dcpl, 0));
    hid_t ds = H5Dcreate2(f, "/flare_catalog", st, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    HCHK(H5Pclose(dcpl));
    HCHK(ds);
    flare_event dummy;
    memset(&dummy, 0, sizeof dummy);
    HCHK(H5Dwrite(ds, st, H5S_ALL, H5S_ALL, dxpl, nev > 0 ? (const void *)ev : (const void *)&dummy));
    put_attr_double(ds, "n_events", nev);
    HCHK(H5Dclose(ds));
    HCHK(H5Sclose(sp));
    HCHK(H5Tclose(s8));
    HCHK(H5Tclose(st));
    HCHK(H5Fclose(f));

    char tpath[4096];
    if ((size_t)snprintf(tpath, sizeof tpath, "%s/flare_list.txt", g_dir) >= sizeof tpath)
        fail("path too long");
    FILE *fp = fopen(tpath, "w");
    if (!fp)
        fail("cannot open flare_list.txt");
    int ok = fprintf(fp, "# day start   peak    end     class  T_MK   EM_1e49\n") >= 0;
    for (int i = 0; i < nev && ok; i++) {
        int day = (int)(ev[i].t_peak / 86400.0);
        int hs = (int)fmod(ev[i].t_start, 86400.0), hp = (int)fmod(ev[i].t_peak, 86400.0),
            he = (int)fmod(ev[i].t_end, 86400.0);
        ok = fprintf(fp, "%3d %02d:%02d  %02d:%02d  %02d:%02d  %-6s %5.1f %9.3f\n", day + 1, hs / 3600, hs / 60 % 60,
                     hp / 3600, hp / 60 % 60, he / 3600, he / 60 % 60, ev[i].goes_class, ev[i].peak_temp_mk,
                     ev[i].peak_em) >= 0;
    }
    if (!ok || fclose(fp) != 0)
        fail("write flare_list.txt");
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
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/xrs_euvs_l1b.h5", g_dir) >= sizeof path)
        fail("path too long");
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    HCHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    simulate_flare_schedule();
    write_time_series(path, dxpl);
    static flare_event ev[MAXFLARE];
    int nev = detect_flares(path, dxpl, ev, MAXFLARE);
    double max_euv = 0.0;
    minute_averages(path, dxpl, &max_euv);
    write_flare_catalog(path, dxpl, ev, nev);
    HCHK(H5Pclose(dxpl));

    int ncls[5] = {0};
    for (int i = 0; i < nev; i++) {
        const char *c = "ABCMX";
        const char *p = strchr(c, ev[i].goes_class[0]);
        if (p)
            ncls[p - c]++;
    }
    printf("h5_xray_flare_flux_series: %d steps, %llu XRS samples, %d flares simulated, %d detected "
           "(A %d B %d C %d M %d X %d), max band EUV %.3e\n",
           NSTEP, (unsigned long long)NXRS, nsched, nev, ncls[0], ncls[1], ncls[2], ncls[3], ncls[4], max_euv);
    MPI_Finalize();
    return 0;
}
