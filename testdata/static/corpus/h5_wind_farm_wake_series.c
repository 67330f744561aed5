/*
 * Offshore wind-farm wake time series in parallel HDF5.
 *
 * A day of 10-minute met-mast conditions (veering wind, ramp events) drives an
 * engineering wake model (Jensen/Park top-hat deficits, sum-of-squares
 * superposition, Crespo-Hernandez added turbulence, thrust iteration) for a
 * staggered array of turbines.  Each step extends unlimited HDF5 datasets by
 * one record: per-turbine power/inflow rows, met scalars, and hub-height
 * speed and turbulence-intensity fields written as 3-D hyperslabs through the
 * MPI-IO driver with collective transfers.  The file is then re-read with
 * strided (per-turbine column) and per-step hyperslab selections to compute
 * capacity factors, sector wake losses and a time-mean flow map.
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROW 10
#define NCOL 10
#define NT   (NROW * NCOL)
#define NSTEP 144
#define GN   128                 /* field grid points per side */
#define DOMAIN 12000.0           /* m */
#define ROTOR_D 120.0
#define HUB_H 100.0
#define RATED_KW 5000.0
#define NSECT 12
#define PI 3.14159265358979323846

static double tx[NT], ty[NT];

static void h5check(herr_t e, const char *what)
{
    if (e < 0) { fprintf(stderr, "windfarm: HDF5 call failed: %s\n", what); MPI_Abort(MPI_COMM_WORLD, 1); }
}
static hid_t h5id(hid_t id, const char *what)
{
    if (id < 0) { fprintf(stderr, "windfarm: HDF5 call failed: %s\n", what); MPI_Abort(MPI_COMM_WORLD, 1); }
    return id;
}

static void layout_turbines(void)
{
    for (int r = 0; r < NROW; r++)
        for (int c = 0; c < NCOL; c++) {
            int k = r * NCOL + c;
            tx[k] = 1500.0 + c * 7.0 * ROTOR_D + (r % 2) * 3.5 * ROTOR_D;
            ty[k] = 1500.0 + r * 6.0 * ROTOR_D + 40.0 * sin(1.3 * c);
        }
}

/* met-mast series: diurnal veer, a frontal passage ramp, gust noise */
static void met_conditions(int step, double *ws, double *wd, double *ti0)
{
    double h = step / 6.0;
    unsigned s = (unsigned)step * 2654435761u;
    double noise = ((s >> 8) & 0xFFFF) / 65535.0 - 0.5;
    *ws = 9.0 + 2.5 * sin(2 * PI * (h - 4.0) / 24.0) + 1.2 * noise;
    if (h > 14.0 && h < 16.0) *ws += 6.0 * (h - 14.0) / 2.0;   /* ramp-up at the front */
    else if (h >= 16.0) *ws += 6.0 * exp(-(h - 16.0) / 3.0);
    *wd = fmod(250.0 + 40.0 * (h / 24.0) + 15.0 * sin(2 * PI * h / 9.0) + 8.0 * noise + 360.0, 360.0);
    *ti0 = 0.06 + 0.02 * (noise + 0.5);
}

static double power_curve_kw(double u)
{
    static const double uu[] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 11.5, 25 };
    static const double pp[] = { 0, 140, 420, 800, 1350, 2050, 2900, 3850, 4700, 5000, 5000 };
    if (u < 3.0 || u > 25.0) return 0.0;
    for (int i = 0; i < 10; i++)
        if (u <= uu[i + 1]) return pp[i] + (pp[i + 1] - pp[i]) * (u - uu[i]) / (uu[i + 1] - uu[i]);
    return RATED_KW;
}

static double thrust_coeff(double u)
{
    if (u < 3.0) return 0.0;
    if (u < 11.5) return 0.80;
    return 0.80 * pow(11.5 / u, 2.2);
}

/* Jensen wake model with thrust iteration. Outputs per-turbine inflow, TI and power. */
static void solve_wakes(double ws, double wd, double ti0, double *uinf, double *tiw, double *pw, double *ct)
{
    double th = (270.0 - wd) * PI / 180.0;                 /* direction the wind blows towards */
    double ex = cos(th), ey = sin(th);
    for (int i = 0; i < NT; i++) { uinf[i] = ws; ct[i] = thrust_coeff(ws); }
    for (int it = 0; it < 4; it++) {
        for (int i = 0; i < NT; i++) {
            double def2 = 0.0, ti_add2 = 0.0;
            for (int j = 0; j < NT; j++) {
                if (j == i) continue;
                double dxw = (tx[i] - tx[j]) * ex + (ty[i] - ty[j]) * ey;    /* downstream distance */
                if (dxw <= 0.0) continue;
                double dyw = fabs(-(tx[i] - tx[j]) * ey + (ty[i] - ty[j]) * ex);
                double k = 0.4 * ti0 + 0.004;
                double rw = 0.5 * ROTOR_D + k * dxw;
                if (dyw > rw + 0.5 * ROTOR_D) continue;
                /* partial overlap fraction of rotor disc within wake */
                double ov = dyw < rw - 0.5 * ROTOR_D ? 1.0 : (rw + 0.5 * ROTOR_D - dyw) / ROTOR_D;
                double d = (1.0 - sqrt(1.0 - ct[j])) * pow(0.5 * ROTOR_D / rw, 2) * ov;
                def2 += d * d;
                double a = 0.5 * (1.0 - sqrt(1.0 - ct[j]));
                double tia = 0.73 * pow(a, 0.8325) * pow(ti0, 0.0325) * pow(dxw / ROTOR_D, -0.32) * ov;
                ti_add2 += tia * tia;
            }
            uinf[i] = ws * (1.0 - sqrt(def2));
            tiw[i] = sqrt(ti0 * ti0 + ti_add2);
        }
        for (int i = 0; i < NT; i++) ct[i] = thrust_coeff(uinf[i]);
    }
    for (int i = 0; i < NT; i++) pw[i] = power_curve_kw(uinf[i]);
}

static void flow_field(double ws, double wd, double ti0, const double *ct, float *fu, float *fti)
{
    double th = (270.0 - wd) * PI / 180.0, ex = cos(th), ey = sin(th);
    double k = 0.4 * ti0 + 0.004;
    double cdef[NT], ca[NT];
    for (int j = 0; j < NT; j++) { cdef[j] = 1.0 - sqrt(1.0 - ct[j]); ca[j] = 0.5 * cdef[j]; }
    for (int gy = 0; gy < GN; gy++)
        for (int gx = 0; gx < GN; gx++) {
            double x = (gx + 0.5) * DOMAIN / GN, y = (gy + 0.5) * DOMAIN / GN;
            double def2 = 0.0, ti2 = 0.0;
            for (int j = 0; j < NT; j++) {
                double dxw = (x - tx[j]) * ex + (y - ty[j]) * ey;
                if (dxw <= 0.0) continue;
                double dyw = fabs(-(x - tx[j]) * ey + (y - ty[j]) * ex);
                double rw = 0.5 * ROTOR_D + k * dxw;
                if (dyw > rw) continue;
                double q = 0.5 * ROTOR_D / rw;
                double d = cdef[j] * q * q;
                def2 += d * d;
                double tia = 0.73 * ca[j] * 0.9 * ROTOR_D / (ROTOR_D + 0.3 * dxw);
                ti2 += tia * tia;
            }
            fu[gy * GN + gx] = (float)(ws * (1.0 - sqrt(def2)));
            fti[gy * GN + gx] = (float)sqrt(ti0 * ti0 + ti2);
        }
}

static hid_t make_ext_dataset(hid_t loc, const char *name, int rank, const hsize_t *dims, const hsize_t *chunk, hid_t type)
{
    hsize_t cur[3], maxd[3];
    for (int i = 0; i < rank; i++) { cur[i] = i == 0 ? 0 : dims[i]; maxd[i] = i == 0 ? H5S_UNLIMITED : dims[i]; }
    hid_t sp = h5id(H5Screate_simple(rank, cur, maxd), "create space");
    hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "dcpl");
    h5check(H5Pset_chunk(dcpl, rank, chunk), "set chunk");
    h5check(H5Pset_obj_track_times(dcpl, 0), "track times");   /* reproducible files */
    hid_t ds = h5id(H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    H5Pclose(dcpl); H5Sclose(sp);
    return ds;
}

/* Grow dataset along dim 0 to step+1 and write one record as a hyperslab. */
static void append_record(hid_t ds, int rank, const hsize_t *dims, int step, hid_t memtype, const void *buf, hid_t dxpl)
{
    hsize_t newdims[3], start[3] = { 0, 0, 0 }, count[3];
    for (int i = 0; i < rank; i++) { newdims[i] = i == 0 ? (hsize_t)step + 1 : dims[i]; count[i] = i == 0 ? 1 : dims[i]; }
    start[0] = (hsize_t)step;
    h5check(H5Dset_extent(ds, newdims), "set_extent");
    hid_t fs = h5id(H5Dget_space(ds), "get_space");
    h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t ms = h5id(H5Screate_simple(rank, count, NULL), "mem space");
    h5check(H5Dwrite(ds, memtype, ms, fs, dxpl, buf), "write record");
    H5Sclose(ms); H5Sclose(fs);
}

static void write_layout(hid_t file)
{
    hsize_t d[2] = { NT, 2 };
    double xy[NT][2];
    for (int i = 0; i < NT; i++) { xy[i][0] = tx[i]; xy[i][1] = ty[i]; }
    hid_t sp = h5id(H5Screate_simple(2, d, NULL), "layout space");
    hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "dcpl");
    h5check(H5Pset_obj_track_times(dcpl, 0), "track times");
    hid_t ds = h5id(H5Dcreate2(file, "/layout_xy_m", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), "layout");
    H5Pclose(dcpl);
    h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xy), "write layout");
    hid_t as = h5id(H5Screate(H5S_SCALAR), "attr space");
    double rd = ROTOR_D;
    hid_t at = h5id(H5Acreate2(ds, "rotor_diameter_m", H5T_IEEE_F64LE, as, H5P_DEFAULT, H5P_DEFAULT), "attr");
    h5check(H5Awrite(at, H5T_NATIVE_DOUBLE, &rd), "attr write");
    H5Aclose(at); H5Sclose(as); H5Dclose(ds); H5Sclose(sp);
}

static void analyse_file(const char *path, const char *report)
{
    hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "fapl");
    h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl mpio");
    hid_t f = h5id(H5Fopen(path, H5F_ACC_RDONLY, fapl), "reopen");
    H5Pclose(fapl);
    hid_t dp = h5id(H5Dopen2(f, "/turbines/power_kw", H5P_DEFAULT), "open power");
    hid_t dm = h5id(H5Dopen2(f, "/met/wind_dir_deg", H5P_DEFAULT), "open met");
    hid_t du = h5id(H5Dopen2(f, "/field/speed", H5P_DEFAULT), "open field");
    hsize_t pd[2];
    hid_t ps = h5id(H5Dget_space(dp), "space");
    H5Sget_simple_extent_dims(ps, pd, NULL);
    int nstep = (int)pd[0];

    double wd[NSTEP];
    h5check(H5Dread(dm, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, wd), "read met");

    /* per-turbine column reads (strided hyperslab through the chunked array) */
    double cf[NT], col[NSTEP], sect_p[NSECT] = { 0 }, sect_front[NSECT] = { 0 };
    int sect_n[NSECT] = { 0 };
    for (int t = 0; t < NT; t++) {
        hsize_t start[2] = { 0, (hsize_t)t }, count[2] = { (hsize_t)nstep, 1 };
        h5check(H5Sselect_hyperslab(ps, H5S_SELECT_SET, start, NULL, count, NULL), "col select");
        hid_t ms = h5id(H5Screate_simple(2, count, NULL), "col mem");
        h5check(H5Dread(dp, H5T_NATIVE_DOUBLE, ms, ps, H5P_DEFAULT, col), "col read");
        H5Sclose(ms);
        double e = 0.0;
        for (int s = 0; s < nstep; s++) e += col[s];
        cf[t] = e / (nstep * RATED_KW);
    }
    /* per-step rows: wake loss relative to the most productive turbine */
    double row[NT];
    for (int s = 0; s < nstep; s++) {
        hsize_t start[2] = { (hsize_t)s, 0 }, count[2] = { 1, NT };
        h5check(H5Sselect_hyperslab(ps, H5S_SELECT_SET, start, NULL, count, NULL), "row select");
        hid_t ms = h5id(H5Screate_simple(2, count, NULL), "row mem");
        h5check(H5Dread(dp, H5T_NATIVE_DOUBLE, ms, ps, H5P_DEFAULT, row), "row read");
        H5Sclose(ms);
        double tot = 0.0, mx = 0.0;
        for (int t = 0; t < NT; t++) { tot += row[t]; if (row[t] > mx) mx = row[t]; }
        int sec = (int)(wd[s] / (360.0 / NSECT)) % NSECT;
        sect_p[sec] += tot; sect_front[sec] += mx * NT; sect_n[sec]++;
    }
    /* time-mean flow map from per-step 2-D slices of the 3-D field */
    static float slab[GN * GN];
    static double mean[GN * GN];
    hid_t fs = h5id(H5Dget_space(du), "field space");
    for (int s = 0; s < nstep; s++) {
        hsize_t start[3] = { (hsize_t)s, 0, 0 }, count[3] = { 1, GN, GN };
        h5check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "slab select");
        hid_t ms = h5id(H5Screate_simple(3, count, NULL), "slab mem");
        h5check(H5Dread(du, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, slab), "slab read");
        H5Sclose(ms);
        for (int k = 0; k < GN * GN; k++) mean[k] += slab[k] / nstep;
    }
    H5Sclose(fs); H5Sclose(ps);
    H5Dclose(dp); H5Dclose(dm); H5Dclose(du);
    h5check(H5Fclose(f), "close reopened");

    FILE *o = fopen(report, "w");
    if (!o) { perror(report); MPI_Abort(MPI_COMM_WORLD, 1); }
    double cfm = 0.0, cfmin = 1.0, cfmax = 0.0;
    for (int t = 0; t < NT; t++) { cfm += cf[t] / NT; if (cf[t] < cfmin) cfmin = cf[t]; if (cf[t] > cfmax) cfmax = cf[t]; }
    fprintf(o, "wind farm daily summary: %d turbines, %d steps\ncapacity factor mean %.4f min %.4f max %.4f\n\n",
            NT, nstep, cfm, cfmin, cfmax);
    fprintf(o, "sector  steps  wake_loss_pct\n");
    for (int k = 0; k < NSECT; k++)
        fprintf(o, "%5.0f %6d %10.2f\n", k * 360.0 / NSECT, sect_n[k],
                sect_front[k] > 0 ? 100.0 * (1.0 - sect_p[k] / sect_front[k]) : 0.0);
    fprintf(o, "\nturbine  x_m  y_m  cf\n");
    for (int t = 0; t < NT; t++) fprintf(o, "%3d %8.1f %8.1f %.4f\n", t, tx[t], ty[t], cf[t]);
    double fmin = 1e9;
    for (int k = 0; k < GN * GN; k++) if (mean[k] < fmin) fmin = mean[k];
    fprintf(o, "\nminimum time-mean hub-height speed in domain: %.3f m/s\n", fmin);
    if (fclose(o) != 0) { perror(report); MPI_Abort(MPI_COMM_WORLD, 1); }
    printf("windfarm: mean capacity factor %.3f (range %.3f-%.3f)\n", cfm, cfmin, cfmax);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    char path[1024], report[1024];
    snprintf(path, sizeof path, "%s/windfarm_day.h5", argv[1]);
    snprintf(report, sizeof report, "%s/windfarm_summary.txt", argv[1]);
    layout_turbines();

    hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "fapl");
    h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl mpio");
    hid_t file = h5id(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "create file");
    H5Pclose(fapl);
    hid_t dxpl = h5id(H5Pcreate(H5P_DATASET_XFER), "dxpl");
    h5check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "collective");

    write_layout(file);
    hid_t gcpl = h5id(H5Pcreate(H5P_GROUP_CREATE), "gcpl");
    h5check(H5Pset_obj_track_times(gcpl, 0), "track times");
    hid_t gt = h5id(H5Gcreate2(file, "/turbines", H5P_DEFAULT, gcpl, H5P_DEFAULT), "group");
    hid_t gm = h5id(H5Gcreate2(file, "/met", H5P_DEFAULT, gcpl, H5P_DEFAULT), "group");
    hid_t gf = h5id(H5Gcreate2(file, "/field", H5P_DEFAULT, gcpl, H5P_DEFAULT), "group");
    H5Pclose(gcpl);
    hsize_t tdims[2] = { 0, NT }, tchunk[2] = { 24, NT };
    hsize_t mdims[1] = { 0 }, mchunk[1] = { 64 };
    hsize_t fdims[3] = { 0, GN, GN }, fchunk[3] = { 1, GN, GN };
    hid_t d_pow = make_ext_dataset(gt, "power_kw", 2, tdims, tchunk, H5T_IEEE_F64LE);
    hid_t d_inf = make_ext_dataset(gt, "inflow_ms", 2, tdims, tchunk, H5T_IEEE_F32LE);
    hid_t d_ti = make_ext_dataset(gt, "turbulence", 2, tdims, tchunk, H5T_IEEE_F32LE);
    hid_t d_ws = make_ext_dataset(gm, "wind_speed_ms", 1, mdims, mchunk, H5T_IEEE_F64LE);
    hid_t d_wd = make_ext_dataset(gm, "wind_dir_deg", 1, mdims, mchunk, H5T_IEEE_F64LE);
    hid_t d_fu = make_ext_dataset(gf, "speed", 3, fdims, fchunk, H5T_IEEE_F32LE);
    hid_t d_ft = make_ext_dataset(gf, "ti", 3, fdims, fchunk, H5T_IEEE_F32LE);

    static float fu[GN * GN], fti[GN * GN];
    double uinf[NT], tiw[NT], pw[NT], ct[NT];
    float f_inf[NT], f_ti[NT];
    double energy_mwh = 0.0;
    for (int s = 0; s < NSTEP; s++) {
        double ws, wd, ti0;
        met_conditions(s, &ws, &wd, &ti0);
        solve_wakes(ws, wd, ti0, uinf, tiw, pw, ct);
        flow_field(ws, wd, ti0, ct, fu, fti);
        for (int i = 0; i < NT; i++) { f_inf[i] = (float)uinf[i]; f_ti[i] = (float)tiw[i]; energy_mwh += pw[i] / 6000.0; }
        tdims[0] = fdims[0] = mdims[0] = 0;
        append_record(d_pow, 2, tdims, s, H5T_NATIVE_DOUBLE, pw, dxpl);
        append_record(d_inf, 2, tdims, s, H5T_NATIVE_FLOAT, f_inf, dxpl);
        append_record(d_ti, 2, tdims, s, H5T_NATIVE_FLOAT, f_ti, dxpl);
        append_record(d_ws, 1, mdims, s, H5T_NATIVE_DOUBLE, &ws, dxpl);
        append_record(d_wd, 1, mdims, s, H5T_NATIVE_DOUBLE, &wd, dxpl);
        append_record(d_fu, 3, fdims, s, H5T_NATIVE_FLOAT, fu, dxpl);
        append_record(d_ft, 3, fdims, s, H5T_NATIVE_FLOAT, fti, dxpl);
        if (s % 36 == 35) h5check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush");
    }
    H5Dclose(d_pow); H5Dclose(d_inf); H5Dclose(d_ti); H5Dclose(d_ws); H5Dclose(d_wd);
    H5Dclose(d_fu); H5Dclose(d_ft);
    H5Gclose(gt); H5Gclose(gm); H5Gclose(gf);
    H5Pclose(dxpl);
    h5check(H5Fclose(file), "close file");
    printf("windfarm: %d steps x %d turbines, farm energy %.1f MWh\n", NSTEP, NT, energy_mwh);

    analyse_file(path, report);
    MPI_Finalize();
    return 0;
}
