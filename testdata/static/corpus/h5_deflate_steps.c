/* Advection-diffusion of a passive tracer blob in a rotating flow on a 2-D grid. Snapshots
 * are appended to an extendible, chunked, shuffle+deflate compressed HDF5 dataset with
 * per-snapshot diagnostic attributes; a second pass re-reads them to track the centroid. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>
#include <sys/stat.h>

#define NX         384
#define NY         384
#define NSTEPS     720
#define SNAP_EVERY 24
#define CHUNK      64

static void die(const char *msg)
{
    fprintf(stderr, "h5_deflate_steps: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(x) do { if ((x) < 0) die(#x); } while (0)

static void init_field(double *c)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double x = (i + 0.5) / NX - 0.3, y = (j + 0.5) / NY - 0.5;
            c[j * NX + i] = exp(-(x * x + y * y) / (2.0 * 0.05 * 0.05));
        }
}

/* Upwind advection in solid-body rotation plus explicit diffusion, zero-flux edges. */
static void step(const double *c, double *cn, double dt, double kappa)
{
    double h = 1.0 / NX;
    for (int j = 0; j < NY; j++) {
        int jm = j > 0 ? j - 1 : j, jp = j < NY - 1 ? j + 1 : j;
        double y = (j + 0.5) * h - 0.5;
        for (int i = 0; i < NX; i++) {
            int im = i > 0 ? i - 1 : i, ip = i < NX - 1 ? i + 1 : i;
            double x = (i + 0.5) * h - 0.5;
            double u = -2.0 * M_PI * y, v = 2.0 * M_PI * x;
            double cc = c[j * NX + i];
            double dcx = u > 0 ? cc - c[j * NX + im] : c[j * NX + ip] - cc;
            double dcy = v > 0 ? cc - c[jm * NX + i] : c[jp * NX + i] - cc;
            double lap = c[j * NX + ip] + c[j * NX + im] + c[jp * NX + i] + c[jm * NX + i] - 4.0 * cc;
            cn[j * NX + i] = cc - dt / h * (u * dcx + v * dcy) + kappa * dt / (h * h) * lap;
        }
    }
}

static void field_stats(const double *c, double *mass, double *cmax)
{
    double s = 0.0, m = -1e300;
    for (long k = 0; k < (long)NX * NY; k++) {
        s += c[k];
        if (c[k] > m) m = c[k];
    }
    *mass = s / ((double)NX * NY);
    *cmax = m;
}

static void put_attr(hid_t obj, const char *name, double value)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, H5T_NATIVE_DOUBLE, &value));
    H5Aclose(a);
    H5Sclose(sp);
}

static double get_attr(hid_t obj, const char *name)
{
    double v;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Aread(a, H5T_NATIVE_DOUBLE, &v));
    H5Aclose(a);
    return v;
}

static hid_t make_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    return fapl;
}

static int run_and_store(const char *path)
{
    hid_t fapl = make_fapl();
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file);
    H5Pclose(fapl);

    hsize_t dims[3] = {0, NY, NX}, maxdims[3] = {H5S_UNLIMITED, NY, NX}, chunk[3] = {1, CHUNK, CHUNK};
    hid_t space = H5Screate_simple(3, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 3, chunk));
    H5Pset_obj_track_times(dcpl, 0);
    if (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0) CHECK(H5Pset_shuffle(dcpl));
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) CHECK(H5Pset_deflate(dcpl, 4));
    hid_t dset = H5Dcreate2(file, "tracer", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(dset);
    H5Sclose(space);
    H5Pclose(dcpl);

    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_obj_track_times(gcpl, 0);
    hid_t diag = H5Gcreate2(file, "diagnostics", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    CHECK(diag);

    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    double *c = malloc(sizeof(double) * NX * NY), *cn = malloc(sizeof(double) * NX * NY);
    float *snap = malloc(sizeof(float) * NX * NY);
    init_field(c);
    double dt = 0.2 / NX, kappa = 2e-5;
    int nsnap = 0;
    for (int s = 1; s <= NSTEPS; s++) {
        step(c, cn, dt, kappa);
        double *t = c; c = cn; cn = t;
        if (s % SNAP_EVERY == 0) {
            for (long k = 0; k < (long)NX * NY; k++) snap[k] = (float)c[k];
            hsize_t newdims[3] = {(hsize_t)nsnap + 1, NY, NX};
            CHECK(H5Dset_extent(dset, newdims));
            hid_t fsp = H5Dget_space(dset);
            hsize_t start[3] = {(hsize_t)nsnap, 0, 0}, count[3] = {1, NY, NX};
            CHECK(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL));
            hid_t msp = H5Screate_simple(3, count, NULL);
            CHECK(H5Dwrite(dset, H5T_NATIVE_FLOAT, msp, fsp, dxpl, snap));
            H5Sclose(msp);
            H5Sclose(fsp);
            double mass, cmax;
            field_stats(c, &mass, &cmax);
            char name[64];
            snprintf(name, sizeof name, "snap%03d_time", nsnap);
            put_attr(diag, name, s * dt);
            snprintf(name, sizeof name, "snap%03d_mass", nsnap);
            put_attr(diag, name, mass);
            snprintf(name, sizeof name, "snap%03d_max", nsnap);
            put_attr(diag, name, cmax);
            nsnap++;
        }
    }
    put_attr(dset, "dt", dt);
    put_attr(dset, "kappa", kappa);
    free(c); free(cn); free(snap);
    H5Pclose(dxpl);
    H5Gclose(diag);
    H5Dclose(dset);
    H5Fclose(file);
    return nsnap;
}

static void analyse(const char *path, int nsnap_expected)
{
    hid_t fapl = make_fapl();
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    CHECK(file);
    H5Pclose(fapl);
    hid_t dset = H5Dopen2(file, "tracer", H5P_DEFAULT);
    CHECK(dset);
    hid_t diag = H5Gopen2(file, "diagnostics", H5P_DEFAULT);
    CHECK(diag);
    hid_t fsp = H5Dget_space(dset);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fsp, dims, NULL);
    if ((int)dims[0] != nsnap_expected || dims[1] != NY || dims[2] != NX) die("unexpected dataset shape");
    int nsnap = (int)dims[0];
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    float *buf = malloc(sizeof(float) * NX * NY);
    double *track = malloc(sizeof(double) * nsnap * 4);
    hsize_t count[3] = {1, NY, NX};
    hid_t msp = H5Screate_simple(3, count, NULL);
    for (int k = 0; k < nsnap; k++) {
        hsize_t start[3] = {(hsize_t)k, 0, 0};
        CHECK(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL));
        CHECK(H5Dread(dset, H5T_NATIVE_FLOAT, msp, fsp, dxpl, buf));
        double m = 0.0, mx = 0.0, my = 0.0;
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double v = buf[j * NX + i];
                m += v;
                mx += v * (i + 0.5) / NX;
                my += v * (j + 0.5) / NY;
            }
        char name[64];
        snprintf(name, sizeof name, "snap%03d_mass", k);
        double ref = get_attr(diag, name);
        double mass = m / ((double)NX * NY);
        if (fabs(mass - ref) > 1e-5 * fabs(ref) + 1e-12) die("mass attribute does not match stored field");
        snprintf(name, sizeof name, "snap%03d_time", k);
        track[4 * k] = get_attr(diag, name);
        track[4 * k + 1] = mx / m;
        track[4 * k + 2] = my / m;
        track[4 * k + 3] = mass;
    }
    H5Sclose(msp);
    H5Sclose(fsp);

    hsize_t tdims[2] = {(hsize_t)nsnap, 4};
    hid_t tsp = H5Screate_simple(2, tdims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    hid_t tds = H5Dcreate2(file, "centroid_track", H5T_IEEE_F64LE, tsp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(tds);
    CHECK(H5Dwrite(tds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dxpl, track));
    H5Dclose(tds);
    H5Pclose(dcpl);
    H5Sclose(tsp);
    printf("%d snapshots, centroid moved from (%.4f, %.4f) to (%.4f, %.4f), mass %.6f -> %.6f\n", nsnap,
           track[1], track[2], track[4 * (nsnap - 1) + 1], track[4 * (nsnap - 1) + 2], track[3],
           track[4 * (nsnap - 1) + 3]);
    free(buf);
    free(track);
    H5Pclose(dxpl);
    H5Gclose(diag);
    H5Dclose(dset);
    H5Fclose(file);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) die("cannot create output directory");
    char path[600];
    snprintf(path, sizeof path, "%s/tracer.h5", argv[1]);
    int nsnap = run_and_store(path);
    analyse(path, nsnap);
    MPI_Finalize();
    return 0;
}
