/* Photovoltaic inverter fleet time series in parallel HDF5.
 * Simulates one-minute operation of a fleet of string inverters over several
 * days: clear-sky irradiance with drifting cloud shadows, module temperature
 * (NOCT model), a single-diode string model solved for the maximum power
 * point, an inverter efficiency curve with clipping, and injected faults
 * (string disconnects, soiling).  Every time step extends the chunked
 * datasets /fleet/ac_power, /fleet/dc_voltage and /fleet/module_temp by one
 * row and writes it as a hyperslab (MPI-IO driver, one rank).  Afterwards the
 * daily blocks are read back to compute per-inverter energy yield and
 * performance ratio, flag underperformers, and store the analysis. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NINV 320
#define NDAYS 3
#define STEPS_PER_DAY 1440
#define NSTEPS (NDAYS * STEPS_PER_DAY)
#define CHUNK_T 60
#define NCLOUD 6
#define NS_CELLS 720 /* cells per string (12 modules x 60 cells) */
#define P_RATED 10000.0
#define LAT_DEG 47.0
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static char outdir[4000];
static double inv_x[NINV], inv_y[NINV], soiling[NINV];
static int fault_day[NINV];

#define HCHK(x, what)                                              \
    do {                                                              \
        if ((x) < 0) {                                                \
            fprintf(stderr, "pv_fleet: HDF5 call failed: %s\n", what); \
            exit(1);                                                  \
        }                                                             \
    } while (0)

static uint64_t rs = 0x1badb002ull;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void layout_fleet(void)
{
    for (int k = 0; k < NINV; k++) {
        inv_x[k] = (k % 20) * 45.0 + urand() * 5.0;
        inv_y[k] = (k / 20) * 30.0 + urand() * 5.0;
        soiling[k] = 1.0 - 0.01 * urand() - (k % 37 == 0 ? 0.12 : 0.0);
        fault_day[k] = (k % 53 == 7) ? (int)(urand() * NDAYS) : -1;
    }
}

/* Clear-sky global horizontal -> plane-of-array irradiance (simple Haurwitz). */
static double clear_sky_poa(int step)
{
    int day = step / STEPS_PER_DAY;
    double hour = (step % STEPS_PER_DAY) / 60.0;
    double doy = 172 + day;
    double decl = 23.45 * sin(2 * M_PI * (284 + doy) / 365.0) * M_PI / 180.0;
    double ha = (hour - 12.0) * 15.0 * M_PI / 180.0, lat = LAT_DEG * M_PI / 180.0;
    double cz = sin(lat) * sin(decl) + cos(lat) * cos(decl) * cos(ha);
    if (cz <= 0.02) return 0.0;
    double ghi = 1098.0 * cz * exp(-0.057 / cz);
    /* 30 deg south-facing tilt: crude transposition */
    double tilt = 30.0 * M_PI / 180.0;
    double cinc = sin(lat - tilt) * sin(decl) + cos(lat - tilt) * cos(decl) * cos(ha);
    return fmax(0.0, ghi * (0.85 * fmax(cinc, 0.0) / cz + 0.15));
}

static double cloud_factor(int step, double x, double y)
{
    double f = 1.0;
    for (int c = 0; c < NCLOUD; c++) {
        double cx = fmod(c * 400.0 + step * (3.0 + c), 1600.0) - 300.0;
        double cy = 120.0 + 90.0 * sin(c * 1.7 + step * 0.002);
        double r = 80.0 + 40.0 * c;
        double d2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (r * r);
        if (d2 < 4.0) f *= 1.0 - 0.7 * exp(-d2);
    }
    return f;
}

/* Single-diode string model: I(V) by Newton, MPP by golden-section search. */
static double string_current(double v, double iph, double i0, double nvt)
{
    const double rs_ = 0.35 * NS_CELLS / 60.0, rsh = 300.0 * NS_CELLS / 60.0;
    double i = iph;
    for (int it = 0; it < 4; it++) {
        double e = exp((v + i * rs_) / nvt);
        double f = iph - i0 * (e - 1.0) - (v + i * rs_) / rsh - i;
        double df = -i0 * e * rs_ / nvt - rs_ / rsh - 1.0;
        i -= f / df;
    }
    return i > 0 ? i : 0.0;
}

static double mpp_power(double g, double tcell, double *vmp)
{
    if (g < 5.0) { *vmp = 0.0; return 0.0; }
    double iph = 9.5 * g / 1000.0 * (1.0 + 0.0005 * (tcell - 25.0));
    double vt = 1.380649e-23 * (tcell + 273.15) / 1.602176634e-19;
    double nvt = 1.2 * vt * NS_CELLS;
    double i0 = 2e-10 * pow((tcell + 273.15) / 298.15, 3.0);
    double voc = nvt * log(iph / i0 + 1.0);
    double a = 0.5 * voc, b = voc, gr = 0.6180339887;
    double c = b - gr * (b - a), d = a + gr * (b - a);
    double pc = c * string_current(c, iph, i0, nvt), pd = d * string_current(d, iph, i0, nvt);
    for (int it = 0; it < 12; it++) {
        if (pc > pd) { b = d; d = c; pd = pc; c = b - gr * (b - a); pc = c * string_current(c, iph, i0, nvt); }
        else { a = c; c = d; pc = pd; d = a + gr * (b - a); pd = d * string_current(d, iph, i0, nvt); }
    }
    *vmp = 0.5 * (a + b);
    return 0.5 * (pc + pd) * 1.3; /* 1.3 parallel strings per inverter */
}

static double inverter_ac(double pdc)
{
    if (pdc < 30.0) return 0.0;
    double x = pdc / P_RATED;
    double eff = 0.985 - 0.012 / x - 0.01 * x;
    double ac = pdc * (eff > 0 ? eff : 0);
    return ac > P_RATED ? P_RATED : ac;
}

static void simulate_step(int step, float *ac, float *vdc, float *tmod, double *poa_out)
{
    double poa = clear_sky_poa(step);
    double tamb = 18.0 + 8.0 * sin(2 * M_PI * ((step % STEPS_PER_DAY) / 1440.0 - 0.375));
    int day = step / STEPS_PER_DAY;
    *poa_out = poa;
    for (int k = 0; k < NINV; k++) {
        double g = poa * cloud_factor(step, inv_x[k], inv_y[k]) * soiling[k];
        double tc = tamb + g * (45.0 - 20.0) / 800.0;
        double vmp;
        double pdc = mpp_power(g, tc, &vmp);
        if (fault_day[k] == day && (step % STEPS_PER_DAY) > 600 && (step % STEPS_PER_DAY) < 900)
            pdc *= 0.5; /* one of two strings disconnected */
        ac[k] = (float)inverter_ac(pdc);
        vdc[k] = (float)vmp;
        tmod[k] = (float)tc;
    }
}

static hid_t make_series(hid_t grp, const char *name, const char *units)
{
    hsize_t dims[2] = {0, NINV}, maxd[2] = {H5S_UNLIMITED, NINV}, chunk[2] = {CHUNK_T, NINV};
    hid_t sp = H5Screate_simple(2, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_chunk(dcpl, 2, chunk), "set_chunk");
    hid_t ds = H5Dcreate2(grp, name, H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    HCHK(ds, name);
    hid_t asp = H5Screate(H5S_SCALAR);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, strlen(units) + 1);
    hid_t at = H5Acreate2(ds, "units", st, asp, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(at, "attr");
    HCHK(H5Awrite(at, st, units), "attr write");
    H5Aclose(at); H5Tclose(st); H5Sclose(asp); H5Pclose(dcpl); H5Sclose(sp);
    return ds;
}

/* Extend the dataset by one row and write that row as a hyperslab. */
static void append_row(hid_t ds, hid_t dxpl, hsize_t row, const float *vals)
{
    hsize_t newdims[2] = {row + 1, NINV};
    HCHK(H5Dset_extent(ds, newdims), "set_extent");
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {row, 0}, count[2] = {1, NINV};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "hyperslab");
    hid_t ms = H5Screate_simple(2, count, NULL);
    HCHK(H5Dwrite(ds, H5T_NATIVE_FLOAT, ms, fs, dxpl, vals), "write row");
    H5Sclose(ms);
    H5Sclose(fs);
}

static void append_scalar(hid_t ds, hid_t dxpl, hsize_t row, double v)
{
    hsize_t nd[1] = {row + 1}, st[1] = {row}, ct[1] = {1};
    HCHK(H5Dset_extent(ds, nd), "set_extent poa");
    hid_t fs = H5Dget_space(ds);
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, ct, NULL), "hyperslab poa");
    hid_t ms = H5Screate_simple(1, ct, NULL);
    HCHK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, &v), "write poa");
    H5Sclose(ms);
    H5Sclose(fs);
}

/* Read one day of a series back as a block hyperslab. */
static void read_day(hid_t ds, hid_t dxpl, int day, float *buf)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {(hsize_t)day * STEPS_PER_DAY, 0}, count[2] = {STEPS_PER_DAY, NINV};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "hyperslab day");
    hid_t ms = H5Screate_simple(2, count, NULL);
    HCHK(H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, dxpl, buf), "read day");
    H5Sclose(ms);
    H5Sclose(fs);
}

static int analyse_yield(hid_t file, hid_t ds_ac, hid_t ds_poa, hid_t dxpl, double *fleet_kwh)
{
    float *blk = malloc(sizeof(float) * STEPS_PER_DAY * NINV);
    double *poa = malloc(sizeof(double) * NSTEPS);
    double *yield = calloc((size_t)NDAYS * NINV, sizeof(double));
    float *pr = malloc(sizeof(float) * NDAYS * NINV);
    if (!blk || !poa || !yield || !pr) { fprintf(stderr, "out of memory\n"); exit(1); }
    HCHK(H5Dread(ds_poa, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, poa), "read poa");
    *fleet_kwh = 0.0;
    int flagged = 0;
    for (int d = 0; d < NDAYS; d++) {
        read_day(ds_ac, dxpl, d, blk);
        double insol = 0.0;
        for (int s = 0; s < STEPS_PER_DAY; s++) insol += poa[d * STEPS_PER_DAY + s] / 60.0 / 1000.0;
        for (int s = 0; s < STEPS_PER_DAY; s++)
            for (int k = 0; k < NINV; k++) yield[d * NINV + k] += blk[s * NINV + k] / 60.0 / 1000.0;
        /* median-based outlier flag on daily performance ratio */
        double tmp[NINV];
        for (int k = 0; k < NINV; k++) {
            pr[d * NINV + k] = (float)(yield[d * NINV + k] / (insol * P_RATED / 1000.0));
            tmp[k] = pr[d * NINV + k];
            *fleet_kwh += yield[d * NINV + k];
        }
        for (int a = 1; a < NINV; a++) {
            double v = tmp[a];
            int b = a - 1;
            while (b >= 0 && tmp[b] > v) { tmp[b + 1] = tmp[b]; b--; }
            tmp[b + 1] = v;
        }
        double med = tmp[NINV / 2];
        for (int k = 0; k < NINV; k++) flagged += pr[d * NINV + k] < 0.85 * med;
    }
    hid_t g = H5Gcreate2(file, "/analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(g, "group analysis");
    hsize_t dims[2] = {NDAYS, NINV};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t ds = H5Dcreate2(g, "daily_yield_kwh", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(ds, "yield ds");
    HCHK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, yield), "write yield");
    H5Dclose(ds);
    ds = H5Dcreate2(g, "performance_ratio", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(ds, "pr ds");
    HCHK(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, dxpl, pr), "write pr");
    H5Dclose(ds);
    H5Sclose(sp);
    H5Gclose(g);
    free(blk); free(poa); free(yield); free(pr);
    return flagged;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    char path[4100];
    snprintf(path, sizeof path, "%s/pv_fleet.h5", outdir);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    HCHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl_mpio");
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    HCHK(file, "create file");
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    HCHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "dxpl");

    layout_fleet();
    hid_t grp = H5Gcreate2(file, "/fleet", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    HCHK(grp, "group fleet");
    hid_t ds_ac = make_series(grp, "ac_power", "W");
    hid_t ds_v = make_series(grp, "dc_voltage", "V");
    hid_t ds_t = make_series(grp, "module_temp", "degC");
    hsize_t d1[1] = {0}, m1[1] = {H5S_UNLIMITED}, c1[1] = {1024};
    hid_t sp1 = H5Screate_simple(1, d1, m1);
    hid_t pl1 = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_chunk(pl1, 1, c1), "chunk poa");
    hid_t ds_poa = H5Dcreate2(grp, "poa_irradiance", H5T_NATIVE_DOUBLE, sp1, H5P_DEFAULT, pl1, H5P_DEFAULT);
    HCHK(ds_poa, "poa ds");
    H5Pclose(pl1);
    H5Sclose(sp1);

    float ac[NINV], vdc[NINV], tm[NINV];
    double peak = 0.0;
    for (int s = 0; s < NSTEPS; s++) {
        double poa;
        simulate_step(s, ac, vdc, tm, &poa);
        append_row(ds_ac, dxpl, (hsize_t)s, ac);
        append_row(ds_v, dxpl, (hsize_t)s, vdc);
        append_row(ds_t, dxpl, (hsize_t)s, tm);
        append_scalar(ds_poa, dxpl, (hsize_t)s, poa);
        double tot = 0;
        for (int k = 0; k < NINV; k++) tot += ac[k];
        if (tot > peak) peak = tot;
    }
    HCHK(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush");
    double fleet_kwh;
    int flagged = analyse_yield(file, ds_ac, ds_poa, dxpl, &fleet_kwh);
    H5Dclose(ds_ac); H5Dclose(ds_v); H5Dclose(ds_t); H5Dclose(ds_poa);
    H5Gclose(grp);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    HCHK(H5Fclose(file), "close file");

    snprintf(path, sizeof path, "%s/fleet_report.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "inverters %d days %d energy %.1f kWh peak %.1f kW flagged inverter-days %d\n",
                      NINV, NDAYS, fleet_kwh, peak / 1000.0, flagged) < 0 || fclose(f) != 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("pv fleet: %d inverters x %d min, %.1f MWh, peak %.1f kW, %d flagged inverter-days\n", NINV,
           NSTEPS, fleet_kwh / 1000.0, peak / 1000.0, flagged);
    MPI_Finalize();
    return 0;
}
