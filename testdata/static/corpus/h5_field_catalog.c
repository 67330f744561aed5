/*
 * h5_field_catalog: a parameter sweep of synthetic 2-D flow fields stored in
 * one HDF5 file.  Each case is a group (case_00 ...) with scalar and string
 * attributes; it holds three 2-D double datasets, alternately contiguous and
 * chunked, written in row blocks through hyperslab selections, each carrying
 * its own attributes (units, sum, min, max).  The file is then reopened, the
 * groups are visited with H5Literate, datasets are opened by name and read in
 * row slabs and column strips to recompute statistics, which must match the
 * stored attributes.  A text catalogue is written at the end.
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

#define N_FIELDS 3

struct catalog_cfg {
    int n_cases;
    hsize_t ny, nx;
    hsize_t write_rows;  /* rows per hyperslab write */
    hsize_t read_rows;   /* rows per hyperslab read */
    hsize_t chunk[2];
    int smooth_sweeps;
};

struct field_stats {
    double sum, min, max, sumsq;
};

struct visit_ctx {
    const struct catalog_cfg *cfg;
    FILE *report;
    int groups_seen;
    int mismatches;
    double grand_sum;
};

static const char *field_names[N_FIELDS] = {"density", "pressure", "vorticity"};
static const char *field_units[N_FIELDS] = {"kg/m^3", "Pa", "1/s"};

#define FAIL(msg)                                          \
    do {                                                   \
        fprintf(stderr, "h5_field_catalog: %s\n", msg);   \
        exit(1);                                           \
    } while (0)
#define CASE_REYNOLDS(c) (100.0 * pow(2.0, (c)))

/* Analytic Taylor-Green-like pattern, then a few Jacobi smoothing sweeps. */
static void generate_field(const struct catalog_cfg *cfg, int c, int f, double *out, double *tmp)
{
    size_t ny = cfg->ny, nx = cfg->nx;
    double k = 1.0 + c, re = CASE_REYNOLDS(c);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            double x = 2 * M_PI * i / nx, y = 2 * M_PI * j / ny;
            double u = sin(k * x) * cos(k * y), v = -cos(k * x) * sin(k * y);
            double val;
            if (f == 0) val = 1.0 + 0.05 * u * v;
            else if (f == 1) val = 101325.0 + 0.25 * (cos(2 * k * x) + cos(2 * k * y)) * 1000.0 / sqrt(re);
            else val = 2.0 * k * sin(k * x) * sin(k * y);
            out[j * nx + i] = val;
        }
    for (int s = 0; s < cfg->smooth_sweeps; s++) {
        for (size_t j = 0; j < ny; j++)
            for (size_t i = 0; i < nx; i++) {
                size_t jm = (j + ny - 1) % ny, jp = (j + 1) % ny, im = (i + nx - 1) % nx, ip = (i + 1) % nx;
                tmp[j * nx + i] = 0.5 * out[j * nx + i] +
                                  0.125 * (out[jm * nx + i] + out[jp * nx + i] + out[j * nx + im] + out[j * nx + ip]);
            }
        memcpy(out, tmp, sizeof(double) * ny * nx);
    }
}

static void accumulate(struct field_stats *st, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        st->sum += v[i];
        st->sumsq += v[i] * v[i];
        if (v[i] < st->min) st->min = v[i];
        if (v[i] > st->max) st->max = v[i];
    }
}

/* Scalar numeric attribute of the given native type (double or int). */
static void put_scalar_attr(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, type, value) < 0) FAIL("attribute write");
    H5Aclose(a);
    H5Sclose(sp);
}

static void put_string_attr(hid_t obj, const char *name, const char *s)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(s) + 1);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, t, s) < 0) FAIL("string attribute write");
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

static double get_double_attr(hid_t obj, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) FAIL("attribute read");
    H5Aclose(a);
    return v;
}

static void write_dataset(const struct catalog_cfg *cfg, hid_t grp, int f, const double *data)
{
    hsize_t dims[2] = {cfg->ny, cfg->nx};
    hid_t fspace = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (f % 2 == 1) H5Pset_chunk(dcpl, 2, cfg->chunk);
    hid_t ds = H5Dcreate2(grp, field_names[f], H5T_IEEE_F64LE, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) FAIL("dataset create");
    struct field_stats st = {0.0, INFINITY, -INFINITY, 0.0};
    for (hsize_t r = 0; r < cfg->ny; r += cfg->write_rows) {
        hsize_t cnt[2] = {cfg->write_rows < cfg->ny - r ? cfg->write_rows : cfg->ny - r, cfg->nx};
        hsize_t start[2] = {r, 0};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL);
        hid_t mspace = H5Screate_simple(2, cnt, NULL);
        const double *rows = data + r * cfg->nx;
        if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, rows) < 0) FAIL("dataset write");
        H5Sclose(mspace);
        accumulate(&st, rows, (size_t)(cnt[0] * cnt[1]));
    }
    put_string_attr(ds, "units", field_units[f]);
    put_scalar_attr(ds, "sum", H5T_NATIVE_DOUBLE, &st.sum);
    put_scalar_attr(ds, "min", H5T_NATIVE_DOUBLE, &st.min);
    put_scalar_attr(ds, "max", H5T_NATIVE_DOUBLE, &st.max);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(fspace);
}

static void write_catalog(const struct catalog_cfg *cfg, const char *path)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) FAIL("cannot create HDF5 file");
    put_scalar_attr(file, "n_cases", H5T_NATIVE_INT, &cfg->n_cases);
    size_t n = (size_t)(cfg->ny * cfg->nx);
    double *buf = malloc(sizeof(double) * n), *tmp = malloc(sizeof(double) * n);
    if (!buf || !tmp) FAIL("out of memory");
    for (int c = 0; c < cfg->n_cases; c++) {
        char gname[32], label[64];
        snprintf(gname, sizeof gname, "case_%02d", c);
        hid_t grp = H5Gcreate2(file, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (grp < 0) FAIL("group create");
        double re = CASE_REYNOLDS(c);
        put_scalar_attr(grp, "reynolds", H5T_NATIVE_DOUBLE, &re);
        put_scalar_attr(grp, "case_id", H5T_NATIVE_INT, &c);
        snprintf(label, sizeof label, "taylor-green k=%d", c + 1);
        put_string_attr(grp, "label", label);
        for (int f = 0; f < N_FIELDS; f++) {
            generate_field(cfg, c, f, buf, tmp);
            write_dataset(cfg, grp, f, buf);
        }
        H5Gclose(grp);
    }
    free(buf);
    free(tmp);
    H5Fclose(file);
}

/* Read a dataset by row slabs and compute its statistics. */
static struct field_stats read_by_rows(const struct catalog_cfg *cfg, hid_t ds)
{
    hid_t fspace = H5Dget_space(ds);
    hsize_t dims[2];
    H5Sget_simple_extent_dims(fspace, dims, NULL);
    double *slab = malloc(sizeof(double) * cfg->read_rows * dims[1]);
    struct field_stats st = {0.0, INFINITY, -INFINITY, 0.0};
    for (hsize_t r = 0; r < dims[0]; r += cfg->read_rows) {
        hsize_t cnt[2] = {cfg->read_rows < dims[0] - r ? cfg->read_rows : dims[0] - r, dims[1]};
        hsize_t start[2] = {r, 0};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL);
        hid_t mspace = H5Screate_simple(2, cnt, NULL);
        if (H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, slab) < 0) FAIL("dataset read");
        H5Sclose(mspace);
        accumulate(&st, slab, (size_t)(cnt[0] * cnt[1]));
    }
    free(slab);
    H5Sclose(fspace);
    return st;
}

/* Peak column-mean magnitude from strided column strips (8 columns at a time). */
static double column_profile_peak(hid_t ds, hsize_t ny, hsize_t nx)
{
    const hsize_t w = 8;
    hid_t fspace = H5Dget_space(ds);
    double *strip = malloc(sizeof(double) * ny * w), peak = -INFINITY;
    for (hsize_t c = 0; c < nx; c += 4 * w) {
        hsize_t start[2] = {0, c}, cnt[2] = {ny, w};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL);
        hid_t mspace = H5Screate_simple(2, cnt, NULL);
        if (H5Dread(ds, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, strip) < 0) FAIL("strip read");
        H5Sclose(mspace);
        for (hsize_t k = 0; k < w; k++) {
            double m = 0.0;
            for (hsize_t j = 0; j < ny; j++) m += fabs(strip[j * w + k]);
            m /= (double)ny;
            if (fabs(m) > peak) peak = fabs(m);
        }
    }
    free(strip);
    H5Sclose(fspace);
    return peak;
}

static herr_t visit_group(hid_t root, const char *name, const H5L_info_t *info, void *op_data)
{
    (void)info;
    struct visit_ctx *ctx = op_data;
    if (strncmp(name, "case_", 5) != 0) return 0;
    hid_t grp = H5Gopen2(root, name, H5P_DEFAULT);
    if (grp < 0) return -1;
    double re = get_double_attr(grp, "reynolds");
    ctx->groups_seen++;
    fprintf(ctx->report, "[%s] Re=%.1f\n", name, re);
    for (int f = 0; f < N_FIELDS; f++) {
        hid_t ds = H5Dopen2(grp, field_names[f], H5P_DEFAULT);
        if (ds < 0) {
            ctx->mismatches++;
            continue;
        }
        struct field_stats st = read_by_rows(ctx->cfg, ds);
        double peak = column_profile_peak(ds, ctx->cfg->ny, ctx->cfg->nx);
        double s_attr = get_double_attr(ds, "sum"), mn = get_double_attr(ds, "min"),
               mx = get_double_attr(ds, "max");
        if (fabs(st.sum - s_attr) > 1e-9 * (1.0 + fabs(s_attr)) || st.min != mn || st.max != mx)
            ctx->mismatches++;
        double n = (double)(ctx->cfg->ny * ctx->cfg->nx), mean = st.sum / n;
        fprintf(ctx->report, "  %-10s mean %.8e std %.6e min %.6e max %.6e colpeak %.4e\n", field_names[f],
                mean, sqrt(fmax(0.0, st.sumsq / n - mean * mean)), st.min, st.max, peak);
        ctx->grand_sum += st.sum;
        H5Dclose(ds);
    }
    H5Gclose(grp);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) FAIL("cannot create output directory");
    struct catalog_cfg cfg;
    cfg.n_cases = 8;
    cfg.ny = 384;
    cfg.nx = 512;
    cfg.write_rows = 24;
    cfg.read_rows = 16;
    cfg.chunk[0] = 64;
    cfg.chunk[1] = 64;
    cfg.smooth_sweeps = 10;

    char h5path[4096], txtpath[4096];
    snprintf(h5path, sizeof h5path, "%s/flow_catalog.h5", argv[1]);
    snprintf(txtpath, sizeof txtpath, "%s/catalog.txt", argv[1]);
    write_catalog(&cfg, h5path);

    hid_t file = H5Fopen(h5path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) FAIL("cannot reopen HDF5 file");
    int ncases = 0;
    hid_t a = H5Aopen(file, "n_cases", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT, &ncases);
    H5Aclose(a);
    struct visit_ctx ctx = {&cfg, fopen(txtpath, "w"), 0, 0, 0.0};
    if (!ctx.report) FAIL("cannot open catalogue text");
    fprintf(ctx.report, "# %d cases, %llu x %llu per field\n", ncases, (unsigned long long)cfg.ny,
            (unsigned long long)cfg.nx);
    hsize_t idx = 0;
    if (H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, &idx, visit_group, &ctx) < 0) FAIL("iteration failed");
    H5Fclose(file);
    fprintf(ctx.report, "# grand sum %.10e mismatches %d\n", ctx.grand_sum, ctx.mismatches);
    fclose(ctx.report);

    if (ctx.mismatches != 0 || ctx.groups_seen != cfg.n_cases || ncases != cfg.n_cases) {
        fprintf(stderr, "h5_field_catalog: check FAILED (%d mismatches, %d groups)\n", ctx.mismatches,
                ctx.groups_seen);
        return 1;
    }
    printf("h5_field_catalog: ok (%d groups, %d datasets)\n", ctx.groups_seen, ctx.groups_seen * N_FIELDS);
    return 0;
}
