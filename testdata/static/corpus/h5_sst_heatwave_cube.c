/*
 * h5_sst_heatwave_cube.c
 *
 * Coral-reef heat-stress product in parallel HDF5.  Each rank owns a band of
 * latitude rows of a global 1-degree grid.  The program
 *   1. synthesises weekly sea-surface temperature fields (seasonal cycle +
 *      drifting marine-heatwave blobs + noise) and writes them week by week
 *      into a 3-D dataset /sst[week][lat][lon] with collective MPI-IO,
 *   2. re-reads the cube to build the maximum-monthly-mean climatology,
 *   3. computes smoothed HotSpots and the 12-week Degree Heating Weeks,
 *      written collectively into a chunked /dhw cube,
 *   4. reads every 4th DHW week back through a strided hyperslab and
 *      writes area-weighted alert-level statistics plus a text summary.
 *
 * usage: mpirun -np 1 h5_sst_heatwave_cube DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <mpi.h>
#include <hdf5.h>

#define NLAT        180
#define NLON        360
#define NWEEKS      104
#define DHW_WINDOW  12
#define STAT_STRIDE 4
#define NALERT      5
#define NBLOBS      9

typedef struct {
    int rank, nprocs;
    int lat0, nlat;   /* my band of rows */
    hid_t file, dxpl;
} ctx_t;

typedef struct {
    double lat, lon, dlat, dlon, radius, peak, t0, dur;
} blob_t;

static void check(herr_t s, const char *what)
{
    if (s < 0) {
        fprintf(stderr, "HDF5 error in %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

#define LAT_OF(j) (-89.5 + (j))
#define LON_OF(i) (0.5 + (i))

static void init_blobs(blob_t *b, int n)
{
    for (int k = 0; k < n; k++) {
        b[k].lat = -30.0 + 8.0 * k;
        b[k].lon = 40.0 + 67.0 * k;
        b[k].dlat = 0.15 * ((k % 3) - 1);
        b[k].dlon = 0.9 + 0.2 * k;
        b[k].radius = 8.0 + 2.0 * k;
        b[k].peak = 2.2 + 0.3 * k;
        b[k].t0 = 50.0 + 4.0 * k;
        b[k].dur = 16.0 + 3.0 * k;
    }
}

/* Weekly SST for rows [lat0, lat0+nlat). */
static void synth_sst_band(int week, int lat0, int nlat, const blob_t *blobs, float *buf)
{
    for (int j = 0; j < nlat; j++) {
        double lat = LAT_OF(lat0 + j);
        double base = 28.5 - 24.0 * pow(sin(lat * M_PI / 180.0), 2.0);
        double season = (lat >= 0 ? 1.0 : -1.0) * 3.0 * fabs(sin(lat * M_PI / 180.0)) *
                        cos(2.0 * M_PI * (week - 32) / 52.0);
        for (int i = 0; i < NLON; i++) {
            double lon = LON_OF(i);
            double anom = 0.0;
            for (int k = 0; k < NBLOBS; k++) {
                double tt = (week - blobs[k].t0) / blobs[k].dur;
                if (tt < 0.0 || tt > 1.0) continue;
                double cl = blobs[k].lat + blobs[k].dlat * (week - blobs[k].t0);
                double cn = fmod(blobs[k].lon + blobs[k].dlon * (week - blobs[k].t0), 360.0);
                double dx = fabs(lon - cn);
                if (dx > 180.0) dx = 360.0 - dx;
                dx *= cos(lat * M_PI / 180.0);
                double r2 = (dx * dx + (lat - cl) * (lat - cl)) / (blobs[k].radius * blobs[k].radius);
                anom += blobs[k].peak * sin(M_PI * tt) * exp(-r2);
            }
            unsigned h = (unsigned)(week * 7919 + (lat0 + j) * 104729 + i * 1299709);
            h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
            double noise = ((h & 0xffff) / 65535.0 - 0.5) * 0.4;
            buf[(size_t)j * NLON + i] = (float)(base + season + anom + noise);
        }
    }
}

static hid_t create_cube(hid_t file, const char *name, int chunked)
{
    hsize_t dims[3] = {NWEEKS, NLAT, NLON};
    hid_t space = H5Screate_simple(3, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    check(H5Pset_obj_track_times(dcpl, 0), "track_times"); /* reproducible file bytes */
    if (chunked) {
        hsize_t chunk[3] = {4, 45, 90};
        check(H5Pset_chunk(dcpl, 3, chunk), "set_chunk");
        check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "alloc_time");
        check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "fill_time");
    }
    hid_t d = H5Dcreate2(file, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) check(-1, name);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

static void put_string_attr(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(val) + 1);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, t, val), "attr write");
    H5Aclose(a); H5Sclose(s); H5Tclose(t);
}

/* Collective transfer of one week's band to/from a [week][lat][lon] cube. */
static void week_band_io(const ctx_t *c, hid_t dset, int week, float *buf, int do_write)
{
    hsize_t start[3] = {(hsize_t)week, (hsize_t)c->lat0, 0};
    hsize_t count[3] = {1, (hsize_t)c->nlat, NLON};
    hid_t fspace = H5Dget_space(dset);
    check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), "hyperslab");
    hsize_t mdims[1] = {(hsize_t)c->nlat * NLON};
    hid_t mspace = H5Screate_simple(1, mdims, NULL);
    if (do_write)
        check(H5Dwrite(dset, H5T_NATIVE_FLOAT, mspace, fspace, c->dxpl, buf), "H5Dwrite week");
    else
        check(H5Dread(dset, H5T_NATIVE_FLOAT, mspace, fspace, c->dxpl, buf), "H5Dread week");
    H5Sclose(mspace);
    H5Sclose(fspace);
}

/* Maximum of the 13 "monthly" (4-week) means of the first year. */
static void build_mmm_climatology(const ctx_t *c, hid_t sst, float *mmm, float *tmp)
{
    size_t n = (size_t)c->nlat * NLON;
    double *acc = calloc(n, sizeof(double));
    for (size_t k = 0; k < n; k++) mmm[k] = -100.0f;
    for (int w = 0; w < 52; w++) {
        week_band_io(c, sst, w, tmp, 0);
        for (size_t k = 0; k < n; k++) acc[k] += tmp[k];
        if (w % 4 == 3) {
            for (size_t k = 0; k < n; k++) {
                float m = (float)(acc[k] / 4.0);
                if (m > mmm[k]) mmm[k] = m;
                acc[k] = 0.0;
            }
        }
    }
    free(acc);
}

static void write_climatology(const ctx_t *c, const float *mmm)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(gcpl, 0);
    H5Pset_obj_track_times(dcpl, 0);
    hid_t g = H5Gcreate2(c->file, "/climatology", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hsize_t dims[2] = {NLAT, NLON};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(g, "mmm", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hsize_t start[2] = {(hsize_t)c->lat0, 0}, count[2] = {(hsize_t)c->nlat, NLON};
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL), "mmm slab");
    hid_t ms = H5Screate_simple(2, count, NULL);
    check(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, space, c->dxpl, mmm), "mmm write");
    put_string_attr(d, "units", "degC");
    put_string_attr(d, "long_name", "maximum of monthly mean SST, first climatological year");
    H5Sclose(ms); H5Dclose(d); H5Sclose(space); H5Gclose(g);
    H5Pclose(gcpl); H5Pclose(dcpl);
}

/* 3x3 binomial smoothing of HotSpots inside the band (edge rows clamped). */
static void smooth_hotspots(const float *hs, float *out, int nlat)
{
    static const float w[3] = {0.25f, 0.5f, 0.25f};
    for (int j = 0; j < nlat; j++)
        for (int i = 0; i < NLON; i++) {
            float s = 0.0f;
            for (int dj = -1; dj <= 1; dj++) {
                int jj = j + dj < 0 ? 0 : (j + dj >= nlat ? nlat - 1 : j + dj);
                for (int di = -1; di <= 1; di++) {
                    int ii = (i + di + NLON) % NLON;
                    s += w[dj + 1] * w[di + 1] * hs[(size_t)jj * NLON + ii];
                }
            }
            out[(size_t)j * NLON + i] = s;
        }
}

static void compute_dhw(const ctx_t *c, hid_t sst, hid_t dhw, const float *mmm)
{
    size_t n = (size_t)c->nlat * NLON;
    float *week = malloc(n * sizeof(float));
    float *hs = malloc(n * sizeof(float));
    float *ring = calloc((size_t)DHW_WINDOW * n, sizeof(float));
    float *out = malloc(n * sizeof(float));
    for (int w = 0; w < NWEEKS; w++) {
        week_band_io(c, sst, w, week, 0);
        for (size_t k = 0; k < n; k++) {
            float d = week[k] - mmm[k];
            hs[k] = d >= 1.0f ? d : 0.0f;
        }
        smooth_hotspots(hs, ring + (size_t)(w % DHW_WINDOW) * n, c->nlat);
        for (size_t k = 0; k < n; k++) {
            float s = 0.0f;
            for (int r = 0; r < DHW_WINDOW; r++) s += ring[(size_t)r * n + k];
            out[k] = s;
        }
        week_band_io(c, dhw, w, out, 1);
    }
    free(week); free(hs); free(ring); free(out);
}

/* Strided read of every STAT_STRIDE-th DHW week; cos(lat)-weighted alert areas. */
static void alert_statistics(const ctx_t *c, hid_t dhw, double *frac /* [nsamp][NALERT] */, int nsamp)
{
    size_t n = (size_t)c->nlat * NLON;
    float *buf = malloc((size_t)nsamp * n * sizeof(float));
    hsize_t start[3] = {0, (hsize_t)c->lat0, 0};
    hsize_t stride[3] = {STAT_STRIDE, 1, 1};
    hsize_t count[3] = {(hsize_t)nsamp, (hsize_t)c->nlat, NLON};
    hid_t fs = H5Dget_space(dhw);
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL), "strided slab");
    hid_t ms = H5Screate_simple(3, count, NULL);
    check(H5Dread(dhw, H5T_NATIVE_FLOAT, ms, fs, c->dxpl, buf), "strided read");
    H5Sclose(ms); H5Sclose(fs);
    double local[nsamp * NALERT + 1];
    memset(local, 0, sizeof local);
    for (int s = 0; s < nsamp; s++)
        for (int j = 0; j < c->nlat; j++) {
            double wgt = cos(LAT_OF(c->lat0 + j) * M_PI / 180.0);
            for (int i = 0; i < NLON; i++) {
                float v = buf[(size_t)s * n + (size_t)j * NLON + i];
                int a = v <= 0.0f ? 0 : (v < 4.0f ? 1 : (v < 8.0f ? 2 : (v < 12.0f ? 3 : 4)));
                local[s * NALERT + a] += wgt;
            }
        }
    MPI_Allreduce(local, frac, nsamp * NALERT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int s = 0; s < nsamp; s++) {
        double tot = 0.0;
        for (int a = 0; a < NALERT; a++) tot += frac[s * NALERT + a];
        for (int a = 0; a < NALERT; a++) frac[s * NALERT + a] /= tot;
    }
    free(buf);
}

static void write_alert_table(const ctx_t *c, const double *frac, int nsamp, const char *txt_path)
{
    hsize_t dims[2] = {(hsize_t)nsamp, NALERT};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    hid_t d = H5Dcreate2(c->file, "/alert_area_fraction", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                         dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    if (c->rank != 0) H5Sselect_none(space);
    hid_t ms = H5Screate_simple(2, dims, NULL);
    if (c->rank != 0) H5Sselect_none(ms);
    check(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, space, c->dxpl, frac), "alert write");
    put_string_attr(d, "columns", "no_stress,watch,warning,alert1,alert2");
    H5Sclose(ms); H5Dclose(d); H5Sclose(space);
    if (c->rank == 0) {
        FILE *f = fopen(txt_path, "w");
        if (!f) { perror(txt_path); MPI_Abort(MPI_COMM_WORLD, 1); }
        fprintf(f, "# week  no_stress  watch  warning  alert1  alert2 (ocean-area fractions)\n");
        for (int s = 0; s < nsamp; s++) {
            fprintf(f, "%5d", s * STAT_STRIDE);
            for (int a = 0; a < NALERT; a++) fprintf(f, "  %.5f", frac[s * NALERT + a]);
            fputc('\n', f);
        }
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx_t c;
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);
    if (argc != 2) {
        if (c.rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int base = NLAT / c.nprocs, rem = NLAT % c.nprocs;
    c.nlat = base + (c.rank < rem);
    c.lat0 = c.rank * base + (c.rank < rem ? c.rank : rem);

    if (c.rank == 0) mkdir(argv[1], 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    char h5path[512], txt[512];
    snprintf(h5path, sizeof h5path, "%s/sst_heatstress.h5", argv[1]);
    snprintf(txt, sizeof txt, "%s/alert_summary.txt", argv[1]);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl_mpio");
    c.file = H5Fcreate(h5path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (c.file < 0) check(-1, "H5Fcreate");
    H5Pclose(fapl);
    c.dxpl = H5Pcreate(H5P_DATASET_XFER);
    check(H5Pset_dxpl_mpio(c.dxpl, H5FD_MPIO_COLLECTIVE), "dxpl_mpio");

    put_string_attr(c.file, "title", "synthetic weekly SST and degree heating weeks");
    put_string_attr(c.file, "grid", "1x1 degree, lat -89.5..89.5, lon 0.5..359.5");

    blob_t blobs[NBLOBS];
    init_blobs(blobs, NBLOBS);
    hid_t sst = create_cube(c.file, "/sst", 0);
    put_string_attr(sst, "units", "degC");
    float *band = malloc((size_t)c.nlat * NLON * sizeof(float));
    for (int w = 0; w < NWEEKS; w++) {
        synth_sst_band(w, c.lat0, c.nlat, blobs, band);
        week_band_io(&c, sst, w, band, 1);
    }

    float *mmm = malloc((size_t)c.nlat * NLON * sizeof(float));
    build_mmm_climatology(&c, sst, mmm, band);
    write_climatology(&c, mmm);

    hid_t dhw = create_cube(c.file, "/dhw", 1);
    put_string_attr(dhw, "units", "degC-weeks");
    compute_dhw(&c, sst, dhw, mmm);

    int nsamp = (NWEEKS + STAT_STRIDE - 1) / STAT_STRIDE;
    double *frac = malloc(sizeof(double) * nsamp * NALERT);
    alert_statistics(&c, dhw, frac, nsamp);
    write_alert_table(&c, frac, nsamp, txt);
    if (c.rank == 0) printf("wrote %d weeks, %d alert samples, last-week alert2 fraction %.4f\n", NWEEKS,
                            nsamp, frac[(nsamp - 1) * NALERT + 4]);

    free(band); free(mmm); free(frac);
    H5Dclose(sst); H5Dclose(dhw);
    H5Pclose(c.dxpl);
    H5Fclose(c.file);
    MPI_Finalize();
    return 0;
}
