/* Thermodynamic sea-ice growth model (Stefan-law conduction through ice and
 * snow, seasonal air temperature, ocean heat flux, lateral smoothing) on a
 * 2-D grid.  Every few model days the ice and snow thickness fields are
 * written as hyperslabs of chunked 3-D HDF5 datasets with collective MPI-IO
 * transfers; afterwards the file is reopened to extract probe time series
 * (point selections through time) and a thickness histogram of the final
 * slice, which go to a small text report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <mpi.h>
#include <hdf5.h>

#define NX          288
#define NY          224
#define N_DAYS      365
#define SUBSTEPS    8
#define OUT_EVERY   4
#define N_PROBES    12
#define HIST_BINS   30

typedef struct {
    double k_ice, k_snow, rho_ice, latent, t_freeze, dt;
    double ocean_flux, snow_rate, kappa_lat;
} params_t;

typedef struct {
    int nx, ny;
    double *h_ice, *h_snow, *t_air_mean, *work;
} grid_t;

static void check(herr_t e, const char *what)
{
    if (e < 0) { fprintf(stderr, "HDF5 failure in %s\n", what); MPI_Abort(MPI_COMM_WORLD, 1); }
}

static void init_grid(grid_t *g, int nx, int ny)
{
    g->nx = nx; g->ny = ny;
    size_t n = (size_t)nx * ny;
    g->h_ice = calloc(n, sizeof(double));
    g->h_snow = calloc(n, sizeof(double));
    g->t_air_mean = malloc(n * sizeof(double));
    g->work = malloc(n * sizeof(double));
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double lat = 62.0 + 26.0 * j / (ny - 1);            /* colder to the north */
            double cont = 3.0 * sin(2 * M_PI * i / nx);           /* land/sea contrast */
            g->t_air_mean[(size_t)j * nx + i] = -2.0 - 0.55 * (lat - 62.0) + cont;
            g->h_ice[(size_t)j * nx + i] = lat > 80 ? 1.5 : 0.0;
        }
}

/* seasonal anomaly shared by all cells */
static double seasonal_anomaly(double day)
{
    return -18.0 * cos(2 * M_PI * (day - 15.0) / 365.0);
}

/* one substep of thermodynamic growth/melt; returns total ice volume */
static double step_thermo(grid_t *g, const params_t *p, double day)
{
    double vol = 0;
    size_t n = (size_t)g->nx * g->ny;
    double anom = seasonal_anomaly(day);
    for (size_t k = 0; k < n; k++) {
        double ta = g->t_air_mean[k] + anom;
        double hi = g->h_ice[k], hs = g->h_snow[k];
        if (ta < p->t_freeze) {
            double resist = hi / p->k_ice + hs / p->k_snow + 0.05;  /* plus surface layer */
            double cond = (p->t_freeze - ta) / resist;              /* W/m^2 */
            double dh = (cond - p->ocean_flux) * p->dt / (p->rho_ice * p->latent);
            hi += dh;
            if (hi > 0.05) hs += p->snow_rate * p->dt;
        } else {
            double melt = (ta - p->t_freeze) * 9.0 + p->ocean_flux;
            double ds = melt * p->dt / (330.0 * p->latent);
            if (hs > ds) hs -= ds; else { hi -= (ds - hs) * 330.0 / p->rho_ice; hs = 0; }
        }
        if (hi < 0) { hi = 0; hs = 0; }
        g->h_ice[k] = hi; g->h_snow[k] = hs;
        vol += hi;
    }
    return vol;
}

/* ridging/drift proxy: explicit lateral diffusion of ice thickness */
static void smooth_lateral(grid_t *g, double kappa, int sweeps)
{
    int nx = g->nx, ny = g->ny;
    for (int s = 0; s < sweeps; s++) {
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                size_t c = (size_t)j * nx + i;
                double lap = -4 * g->h_ice[c]
                    + g->h_ice[(size_t)j * nx + (i + 1) % nx] + g->h_ice[(size_t)j * nx + (i + nx - 1) % nx]
                    + g->h_ice[(size_t)(j < ny - 1 ? j + 1 : j) * nx + i] + g->h_ice[(size_t)(j > 0 ? j - 1 : j) * nx + i];
                g->work[c] = g->h_ice[c] + kappa * lap;
            }
        double *t = g->h_ice; g->h_ice = g->work; g->work = t;
    }
}

static hid_t create_field(hid_t grp, const char *name, int nout, int ny, int nx)
{
    hsize_t dims[3] = { (hsize_t)nout, (hsize_t)ny, (hsize_t)nx };
    hsize_t chunk[3] = { 1, (hsize_t)ny / 4, (hsize_t)nx };
    hid_t space = H5Screate_simple(3, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    check(H5Pset_chunk(dcpl, 3, chunk), "set_chunk");
    /* every element is written later: skip the fill-value pass at allocation */
    check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "fill_time");
    hid_t ds = H5Dcreate2(grp, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl); H5Sclose(space);
    return ds;
}

static void write_attrs(hid_t obj, const params_t *p)
{
    const char *names[] = { "k_ice", "k_snow", "rho_ice", "latent_heat", "ocean_flux", "dt_seconds" };
    double vals[] = { p->k_ice, p->k_snow, p->rho_ice, p->latent, p->ocean_flux, p->dt };
    hid_t sp = H5Screate(H5S_SCALAR);
    for (int i = 0; i < 6; i++) {
        hid_t a = H5Acreate2(obj, names[i], H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &vals[i]);
        H5Aclose(a);
    }
    H5Sclose(sp);
}

/* collective write of one time slice */
static void write_slice(hid_t ds, hid_t dxpl, int t, const double *field, int ny, int nx, float *buf)
{
    for (size_t k = 0; k < (size_t)nx * ny; k++) buf[k] = (float)field[k];
    hid_t fs = H5Dget_space(ds);
    hsize_t start[3] = { (hsize_t)t, 0, 0 }, count[3] = { 1, (hsize_t)ny, (hsize_t)nx };
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t ms = H5Screate_simple(3, count, NULL);
    check(H5Dwrite(ds, H5T_NATIVE_FLOAT, ms, fs, dxpl, buf), "write_slice");
    H5Sclose(ms); H5Sclose(fs);
}

static void write_series(hid_t grp, const char *name, const double *v, int n, hid_t dxpl)
{
    hsize_t d = (hsize_t)n;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    hid_t ds = H5Dcreate2(grp, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, v), name);
    H5Dclose(ds); H5Sclose(sp);
}

static void probe_report(const char *h5path, const char *txtpath, int nout, int ny, int nx)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(h5path, H5F_ACC_RDONLY, fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t ds = H5Dopen2(f, "/fields/ice_thickness", H5P_DEFAULT);
    FILE *out = fopen(txtpath, "w");
    float *series = malloc(sizeof(float) * (size_t)nout);
    for (int p = 0; p < N_PROBES; p++) {
        int pj = (p * 37 + 11) % ny, pi = (p * 101 + 5) % nx;
        hid_t fs = H5Dget_space(ds);
        hsize_t start[3] = { 0, (hsize_t)pj, (hsize_t)pi }, count[3] = { (hsize_t)nout, 1, 1 };
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hsize_t m = (hsize_t)nout;
        hid_t ms = H5Screate_simple(1, &m, NULL);
        check(H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, dxpl, series), "probe");
        H5Sclose(ms); H5Sclose(fs);
        float mx = 0; int tmx = 0;
        for (int t = 0; t < nout; t++) if (series[t] > mx) { mx = series[t]; tmx = t; }
        fprintf(out, "probe %2d (j=%3d,i=%3d) max_h=%.3f m at day %d final=%.3f\n", p, pj, pi, mx, tmx * OUT_EVERY, series[nout - 1]);
    }
    /* histogram of the final slice */
    float *last = malloc(sizeof(float) * (size_t)nx * ny);
    hid_t fs = H5Dget_space(ds);
    hsize_t start[3] = { (hsize_t)nout - 1, 0, 0 }, count[3] = { 1, (hsize_t)ny, (hsize_t)nx };
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(3, count, NULL);
    check(H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, dxpl, last), "last");
    H5Sclose(ms); H5Sclose(fs);
    long hist[HIST_BINS] = {0};
    for (size_t k = 0; k < (size_t)nx * ny; k++) {
        int b = (int)(last[k] / 0.2f);
        hist[b < 0 ? 0 : (b >= HIST_BINS ? HIST_BINS - 1 : b)]++;
    }
    for (int b = 0; b < HIST_BINS; b++) fprintf(out, "hist %5.2f %ld\n", b * 0.2, hist[b]);
    fclose(out);
    free(series); free(last);
    H5Dclose(ds); H5Pclose(dxpl); H5Fclose(f); H5Pclose(fapl);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 1); }
    char h5path[600], txtpath[600];
    snprintf(h5path, sizeof h5path, "%s/seaice_run.h5", argv[1]);
    snprintf(txtpath, sizeof txtpath, "%s/seaice_probes.txt", argv[1]);
    params_t p = { 2.03, 0.31, 917.0, 334000.0, -1.8, 86400.0 / SUBSTEPS, 2.0, 0.30 / 86400.0 / 30.0, 0.12 };
    grid_t g;
    init_grid(&g, NX, NY);
    int nout = N_DAYS / OUT_EVERY;

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(h5path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t gf = H5Gcreate2(file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t gd = H5Gcreate2(file, "diagnostics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    write_attrs(file, &p);
    hid_t ds_ice = create_field(gf, "ice_thickness", nout, NY, NX);
    hid_t ds_snow = create_field(gf, "snow_depth", nout, NY, NX);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

    float *buf = malloc(sizeof(float) * NX * NY);
    double *volume = calloc(N_DAYS, sizeof(double));
    int t = 0;
    for (int day = 0; day < N_DAYS; day++) {
        for (int s = 0; s < SUBSTEPS; s++)
            volume[day] = step_thermo(&g, &p, day + (double)s / SUBSTEPS);
        smooth_lateral(&g, p.kappa_lat, 2);
        if (day % OUT_EVERY == OUT_EVERY - 1 && t < nout) {
            write_slice(ds_ice, dxpl, t, g.h_ice, NY, NX, buf);
            write_slice(ds_snow, dxpl, t, g.h_snow, NY, NX, buf);
            t++;
        }
    }
    write_series(gd, "ice_volume_per_cell_area", volume, N_DAYS, dxpl);
    H5Dclose(ds_ice); H5Dclose(ds_snow); H5Pclose(dxpl);
    H5Gclose(gf); H5Gclose(gd); H5Fclose(file); H5Pclose(fapl);

    probe_report(h5path, txtpath, nout, NY, NX);
    printf("slices=%d final_mean_volume=%.4f m\n", t, volume[N_DAYS - 1] / (NX * NY));
    free(buf); free(volume);
    free(g.h_ice); free(g.h_snow); free(g.t_air_mean); free(g.work);
    MPI_Finalize();
    return 0;
}
