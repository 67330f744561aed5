/*
 * Snapshot statistics stored as HDF5 attributes.
 * A 2-D advection-diffusion run produces several fields per snapshot; each
 * field gets its own HDF5 group and every snapshot becomes a 2-D dataset in
 * that group.  The file is closed, reopened read-write, every dataset is read
 * whole, its statistics (min, max, mean, standard deviation) are attached as
 * attributes, per-group summaries are added, and a final read-only pass
 * checks the attributes against the values computed during the run.
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX        384
#define NY        512
#define NSNAP     12
#define NVARS     4
#define SUBSTEPS  100

static const char *VAR_NAMES[NVARS] = {"temperature", "pressure", "density", "speed"};
static const char *VAR_UNITS[NVARS] = {"K", "Pa", "kg/m3", "m/s"};

typedef struct {
    double min, max, mean, stddev;
} field_stats;

static void die(const char *msg)
{
    fprintf(stderr, "error: %s\n", msg);
    exit(1);
}

static void field_statistics(const double *f, size_t n, field_stats *s)
{
    double mn = f[0], mx = f[0], sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (f[i] < mn) mn = f[i];
        if (f[i] > mx) mx = f[i];
        sum += f[i];
    }
    double mean = sum / (double)n, ss = 0.0;
    for (size_t i = 0; i < n; i++) ss += (f[i] - mean) * (f[i] - mean);
    s->min = mn;
    s->max = mx;
    s->mean = mean;
    s->stddev = sqrt(ss / (double)n);
}

static void init_temperature(double *t)
{
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            double x = (double)i / NX - 0.3, y = (double)j / NY - 0.5;
            t[i * NY + j] = 280.0 + 40.0 * exp(-(x * x + y * y) / 0.01);
        }
}

static void advect_diffuse(double *t, double *work, int nsteps)
{
    const double kappa = 0.12, cx = 0.35, cy = 0.15;
    for (int s = 0; s < nsteps; s++) {
        for (int i = 0; i < NX; i++) {
            int ip = (i + 1) % NX, im = (i + NX - 1) % NX;
            for (int j = 0; j < NY; j++) {
                int jp = (j + 1) % NY, jm = (j + NY - 1) % NY;
                double c = t[i * NY + j];
                double lap = t[ip * NY + j] + t[im * NY + j] + t[i * NY + jp] + t[i * NY + jm] - 4.0 * c;
                double adv = cx * (c - t[im * NY + j]) + cy * (c - t[i * NY + jm]);
                work[i * NY + j] = c + kappa * lap - adv;
            }
        }
        memcpy(t, work, sizeof(double) * NX * NY);
    }
}

static void derive_fields(const double *t, double *p, double *rho, double *spd, int snap)
{
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            size_t k = (size_t)i * NY + j;
            rho[k] = 1.2 * (1.0 + 0.05 * sin(0.02 * i + 0.3 * snap) * cos(0.015 * j));
            p[k] = rho[k] * 287.05 * t[k];
            double gx = t[((i + 1) % NX) * NY + j] - t[((i + NX - 1) % NX) * NY + j];
            double gy = t[i * NY + (j + 1) % NY] - t[i * NY + (j + NY - 1) % NY];
            spd[k] = 0.5 * sqrt(gx * gx + gy * gy);
        }
}

static void write_snapshot_datasets(hid_t file, int snap, double *const fields[NVARS])
{
    hsize_t dims[2] = {NX, NY};
    char name[64];
    snprintf(name, sizeof name, "snap_%04d", snap);
    for (int v = 0; v < NVARS; v++) {
        hid_t grp = H5Gopen2(file, VAR_NAMES[v], H5P_DEFAULT);
        hid_t space = H5Screate_simple(2, dims, NULL);
        hid_t dset = H5Dcreate2(grp, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (dset < 0) die("H5Dcreate2");
        if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, fields[v]) < 0)
            die("H5Dwrite");
        H5Dclose(dset);
        H5Sclose(space);
        H5Gclose(grp);
    }
}

static void write_string_attr(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(value) + 1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, value);
    H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
}

static void write_double_attr(hid_t obj, const char *name, double value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) die("H5Acreate2");
    H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(attr);
    H5Sclose(space);
}

static double read_double_attr(hid_t obj, const char *name)
{
    double value = NAN;
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0) die("H5Aopen");
    H5Aread(attr, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(attr);
    return value;
}

static void run_simulation(const char *path, field_stats ref[NVARS][NSNAP])
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) die("H5Fcreate");
    write_string_attr(file, "model", "2-D advection-diffusion, periodic");
    for (int v = 0; v < NVARS; v++) {
        hid_t grp = H5Gcreate2(file, VAR_NAMES[v], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        write_string_attr(grp, "units", VAR_UNITS[v]);
        H5Gclose(grp);
    }
    size_t n = (size_t)NX * NY;
    double *t = malloc(n * sizeof(double)), *work = malloc(n * sizeof(double));
    double *p = malloc(n * sizeof(double)), *rho = malloc(n * sizeof(double));
    double *spd = malloc(n * sizeof(double));
    double *fields[NVARS] = {t, p, rho, spd};
    init_temperature(t);
    for (int s = 0; s < NSNAP; s++) {
        if (s > 0) advect_diffuse(t, work, SUBSTEPS);
        derive_fields(t, p, rho, spd, s);
        for (int v = 0; v < NVARS; v++) field_statistics(fields[v], n, &ref[v][s]);
        write_snapshot_datasets(file, s, fields);
    }
    free(t); free(work); free(p); free(rho); free(spd);
    if (H5Fclose(file) < 0) die("H5Fclose");
}

static void annotate_statistics(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (file < 0) die("H5Fopen rdwr");
    size_t n = (size_t)NX * NY;
    double *buf = malloc(n * sizeof(double));
    char name[64];
    for (int v = 0; v < NVARS; v++) {
        hid_t grp = H5Gopen2(file, VAR_NAMES[v], H5P_DEFAULT);
        double gmin = INFINITY, gmax = -INFINITY;
        for (int s = 0; s < NSNAP; s++) {
            snprintf(name, sizeof name, "snap_%04d", s);
            hid_t dset = H5Dopen2(grp, name, H5P_DEFAULT);
            if (dset < 0) die("H5Dopen2");
            hid_t space = H5Dget_space(dset);
            hsize_t dims[2];
            H5Sget_simple_extent_dims(space, dims, NULL);
            if (dims[0] != NX || dims[1] != NY) die("unexpected dataset shape");
            if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) die("H5Dread");
            field_stats st;
            field_statistics(buf, n, &st);
            write_double_attr(dset, "min", st.min);
            write_double_attr(dset, "max", st.max);
            write_double_attr(dset, "mean", st.mean);
            write_double_attr(dset, "stddev", st.stddev);
            if (st.min < gmin) gmin = st.min;
            if (st.max > gmax) gmax = st.max;
            H5Sclose(space);
            H5Dclose(dset);
        }
        write_double_attr(grp, "range_min", gmin);
        write_double_attr(grp, "range_max", gmax);
        H5Gclose(grp);
    }
    free(buf);
    if (H5Fclose(file) < 0) die("H5Fclose");
}

static int check_attributes(const char *path, field_stats ref[NVARS][NSNAP])
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) die("H5Fopen rdonly");
    int bad = 0;
    char name[64];
    for (int v = 0; v < NVARS; v++) {
        hid_t grp = H5Gopen2(file, VAR_NAMES[v], H5P_DEFAULT);
        double gmin = INFINITY, gmax = -INFINITY;
        for (int s = 0; s < NSNAP; s++) {
            snprintf(name, sizeof name, "snap_%04d", s);
            hid_t dset = H5Dopen2(grp, name, H5P_DEFAULT);
            double got[4] = {read_double_attr(dset, "min"), read_double_attr(dset, "max"),
                             read_double_attr(dset, "mean"), read_double_attr(dset, "stddev")};
            double want[4] = {ref[v][s].min, ref[v][s].max, ref[v][s].mean, ref[v][s].stddev};
            for (int k = 0; k < 4; k++)
                if (got[k] != want[k]) bad++;
            if (want[0] < gmin) gmin = want[0];
            if (want[1] > gmax) gmax = want[1];
            H5Dclose(dset);
        }
        if (read_double_attr(grp, "range_min") != gmin || read_double_attr(grp, "range_max") != gmax)
            bad++;
        H5Gclose(grp);
    }
    H5Fclose(file);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/snapshots.h5", argv[1]);
    static field_stats ref[NVARS][NSNAP];

    run_simulation(path, ref);
    annotate_statistics(path);
    int bad = check_attributes(path, ref);
    printf("%d variables x %d snapshots of %dx%d; temperature max %.3f -> %.3f, mean %.4f\n",
           NVARS, NSNAP, NX, NY, ref[0][0].max, ref[0][NSNAP - 1].max, ref[0][NSNAP - 1].mean);
    if (bad) {
        fprintf(stderr, "%d attribute mismatches\n", bad);
        return 1;
    }
    if (fabs(ref[0][NSNAP - 1].mean - ref[0][0].mean) > 1e-9 * ref[0][0].mean) {
        fprintf(stderr, "temperature not conserved\n");
        return 1;
    }
    return 0;
}
