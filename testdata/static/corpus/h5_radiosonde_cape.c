/*
 * h5_radiosonde_cape.c
 *
 * Synthetic upper-air network processed into a parallel-HDF5 archive.  For
 * every launch cycle, the soundings of all stations (temperature, dewpoint,
 * wind on fixed pressure levels) are generated, a surface parcel is lifted
 * along dry and moist adiabats to obtain CAPE, CIN and the lifted index, and
 * the profiles are written as one hyperslab per cycle into chunked 2-D
 * datasets with collective MPI-IO transfers.  Afterwards selected pressure
 * levels are read back as strided column hyperslabs (collective reads) to
 * build a level climatology that is written into a second group, together
 * with attributes.  Runs on one MPI rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <mpi.h>
#include <hdf5.h>

#define N_STATIONS 48
#define N_CYCLES 56
#define N_LEV 192
#define P_SFC 1000.0
#define P_TOP 100.0

typedef struct {
    double p[N_LEV];
    double t[N_LEV];   /* K */
    double td[N_LEV];  /* K */
    double u[N_LEV], v[N_LEV];
} sounding_t;

typedef struct {
    double cape, cin, lifted_index, lcl_p;
} parcel_diag_t;

typedef struct {
    hid_t file, dxpl;
    hid_t d_t, d_td, d_wind, d_diag;
} archive_t;

static double sat_vapor_pressure(double tk)
{
    double tc = tk - 273.15;
    return 6.112 * exp(17.67 * tc / (tc + 243.5));
}

static double mixing_ratio(double e, double p)
{
    return 0.622 * e / (p - e);
}

static void make_sounding(sounding_t *s, int station, int cycle)
{
    double lat = 20.0 + 1.1 * station;
    double season = cos(2 * M_PI * cycle / 28.0);
    double t0 = 300.0 - 0.45 * (lat - 20.0) + 4.0 * season + 2.0 * sin(station * 1.7 + cycle);
    double rh0 = 0.55 + 0.35 * sin(station * 0.9 + cycle * 0.4);
    for (int k = 0; k < N_LEV; k++) {
        double p = P_SFC * pow(P_TOP / P_SFC, (double)k / (N_LEV - 1));
        double z = 7.4 * log(P_SFC / p);              /* km, scale height approx */
        double t = z < 11.0 ? t0 - 6.5 * z : t0 - 71.5;
        t += 0.6 * sin(z * 3.1 + station);
        double rh = rh0 * exp(-z / 4.0) + 0.05;
        double e = rh * sat_vapor_pressure(t);
        double td = 243.5 * log(e / 6.112) / (17.67 - log(e / 6.112)) + 273.15;
        s->p[k] = p;
        s->t[k] = t;
        s->td[k] = td < t ? td : t;
        s->u[k] = 5.0 + 25.0 * sin(M_PI * z / 24.0) + station * 0.1;
        s->v[k] = 3.0 * cos(z + cycle * 0.3);
    }
}

/* Lift a surface parcel: dry adiabat to LCL, then pseudo-adiabatic ascent
 * integrated with small pressure sub-steps between levels. */
static parcel_diag_t lift_parcel(const sounding_t *s)
{
    parcel_diag_t d = { 0, 0, 0, 0 };
    const double Rd = 287.04, cp = 1005.7, Lv = 2.501e6, eps = 0.622;
    double tp = s->t[0], p = s->p[0];
    double w = mixing_ratio(sat_vapor_pressure(s->td[0]), p);
    int saturated = 0;
    for (int k = 1; k < N_LEV; k++) {
        const int nsub = 40;
        double p1 = s->p[k];
        double dp = (p1 - p) / nsub;
        for (int i = 0; i < nsub; i++) {
            if (!saturated) {
                tp *= pow((p + dp) / p, Rd / cp);
                if (mixing_ratio(sat_vapor_pressure(tp), p + dp) <= w) {
                    saturated = 1;
                    d.lcl_p = p + dp;
                }
            } else {
                double ws = mixing_ratio(sat_vapor_pressure(tp), p);
                double num = Rd * tp + Lv * ws;
                double den = cp + Lv * Lv * ws * eps / (Rd * tp * tp);
                tp += (num / den) * (dp / p);
            }
            p += dp;
        }
        double tv_env = s->t[k], tv_par = tp;
        double buoy = 9.81 * (tv_par - tv_env) / tv_env;
        double dz = Rd * 0.5 * (s->t[k] + s->t[k - 1]) / 9.81 * log(s->p[k - 1] / s->p[k]);
        if (buoy > 0) d.cape += buoy * dz;
        else if (d.cape == 0) d.cin += buoy * dz;
        if (fabs(s->p[k] - 500.0) < 0.5 * fabs(s->p[k] - s->p[k - 1]) + 1e-9 && d.lifted_index == 0)
            d.lifted_index = tv_env - tv_par;
    }
    return d;
}

static hid_t make_2d_dataset(hid_t loc, const char *name, hsize_t rows, hsize_t cols, hsize_t chunk_rows)
{
    hsize_t dims[2] = { rows, cols }, chunk[2] = { chunk_rows, cols };
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return d;
}

static void put_attr_double(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

static archive_t open_archive(const char *path)
{
    archive_t a;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    a.file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    a.dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(a.dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t g = H5Gcreate2(a.file, "/soundings", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t rows = (hsize_t)N_STATIONS * N_CYCLES;
    a.d_t = make_2d_dataset(g, "temperature", rows, N_LEV, N_STATIONS);
    a.d_td = make_2d_dataset(g, "dewpoint", rows, N_LEV, N_STATIONS);
    a.d_wind = make_2d_dataset(g, "wind_speed", rows, N_LEV, N_STATIONS);
    a.d_diag = make_2d_dataset(g, "parcel_diag", rows, 4, N_STATIONS);
    put_attr_double(g, "surface_pressure_hPa", P_SFC);
    put_attr_double(g, "top_pressure_hPa", P_TOP);
    H5Gclose(g);
    return a;
}

/* Write one block of rows [row0, row0+nrows) of a 2-D dataset collectively. */
static void write_rows(hid_t dset, hid_t dxpl, hsize_t row0, hsize_t nrows, hsize_t ncols, const double *buf)
{
    hid_t fs = H5Dget_space(dset);
    hsize_t start[2] = { row0, 0 }, count[2] = { nrows, ncols };
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(2, count, NULL);
    if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf) < 0) {
        fprintf(stderr, "H5Dwrite failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    H5Sclose(ms);
    H5Sclose(fs);
}

/* Read one pressure level for every sounding (a strided column) collectively. */
static void read_level_column(hid_t dset, hid_t dxpl, int level, double *out, hsize_t rows)
{
    hid_t fs = H5Dget_space(dset);
    hsize_t start[2] = { 0, (hsize_t)level }, count[2] = { rows, 1 };
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(2, count, NULL);
    H5Dread(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, out);
    H5Sclose(ms);
    H5Sclose(fs);
}

static void build_climatology(archive_t *a, const int *levels, int nlevels)
{
    hsize_t rows = (hsize_t)N_STATIONS * N_CYCLES;
    double *col = malloc(sizeof(double) * rows);
    double *clim = malloc(sizeof(double) * nlevels * N_STATIONS * 2);
    for (int li = 0; li < nlevels; li++) {
        read_level_column(a->d_t, a->dxpl, levels[li], col, rows);
        for (int s = 0; s < N_STATIONS; s++) {
            double m = 0, m2 = 0;
            for (int c = 0; c < N_CYCLES; c++) {
                double x = col[(size_t)c * N_STATIONS + s];
                m += x;
                m2 += x * x;
            }
            m /= N_CYCLES;
            clim[(li * N_STATIONS + s) * 2] = m;
            clim[(li * N_STATIONS + s) * 2 + 1] = sqrt(fmax(m2 / N_CYCLES - m * m, 0));
        }
    }
    hid_t g = H5Gcreate2(a->file, "/climatology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[3] = { (hsize_t)nlevels, N_STATIONS, 2 };
    hid_t sp = H5Screate_simple(3, dims, NULL);
    hid_t d = H5Dcreate2(g, "temperature_mean_std", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, a->dxpl, clim);
    put_attr_double(d, "n_cycles", N_CYCLES);
    H5Dclose(d);
    H5Sclose(sp);
    H5Gclose(g);
    free(col);
    free(clim);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/upper_air_archive.h5", argv[1]);
    archive_t a = open_archive(path);

    sounding_t *snd = malloc(sizeof(sounding_t) * N_STATIONS);
    double *bt = malloc(sizeof(double) * N_STATIONS * N_LEV);
    double *btd = malloc(sizeof(double) * N_STATIONS * N_LEV);
    double *bw = malloc(sizeof(double) * N_STATIONS * N_LEV);
    double *bd = malloc(sizeof(double) * N_STATIONS * 4);
    double max_cape = 0;
    for (int c = 0; c < N_CYCLES; c++) {
        for (int s = 0; s < N_STATIONS; s++) {
            make_sounding(&snd[s], s, c);
            parcel_diag_t d = lift_parcel(&snd[s]);
            for (int k = 0; k < N_LEV; k++) {
                bt[s * N_LEV + k] = snd[s].t[k];
                btd[s * N_LEV + k] = snd[s].td[k];
                bw[s * N_LEV + k] = hypot(snd[s].u[k], snd[s].v[k]);
            }
            bd[s * 4 + 0] = d.cape; bd[s * 4 + 1] = d.cin;
            bd[s * 4 + 2] = d.lifted_index; bd[s * 4 + 3] = d.lcl_p;
            if (d.cape > max_cape) max_cape = d.cape;
        }
        hsize_t row0 = (hsize_t)c * N_STATIONS;
        write_rows(a.d_t, a.dxpl, row0, N_STATIONS, N_LEV, bt);
        write_rows(a.d_td, a.dxpl, row0, N_STATIONS, N_LEV, btd);
        write_rows(a.d_wind, a.dxpl, row0, N_STATIONS, N_LEV, bw);
        write_rows(a.d_diag, a.dxpl, row0, N_STATIONS, 4, bd);
    }
    H5Fflush(a.file, H5F_SCOPE_GLOBAL);
    int levels[] = { 0, 12, 25, 40, 60, 85, 110, 140, 170, N_LEV - 1 };
    build_climatology(&a, levels, (int)(sizeof levels / sizeof levels[0]));
    put_attr_double(a.d_diag, "max_cape_J_per_kg", max_cape);

    H5Dclose(a.d_t); H5Dclose(a.d_td); H5Dclose(a.d_wind); H5Dclose(a.d_diag);
    H5Pclose(a.dxpl);
    H5Fclose(a.file);
    printf("soundings %d levels %d max CAPE %.1f J/kg\n", N_STATIONS * N_CYCLES, N_LEV, max_cape);
    free(snd); free(bt); free(btd); free(bw); free(bd);
    MPI_Finalize();
    return 0;
}
