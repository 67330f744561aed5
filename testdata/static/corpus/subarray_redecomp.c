/* Smooths a 3D scalar field on z-slabs, writing periodic checkpoints through
 * MPI-IO subarray file views; then restarts from the last checkpoint with a
 * y-slab decomposition, computes gradient magnitudes and writes them back. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

#define NX 160
#define NY 160
#define NZ 128
#define NEPOCHS 4
#define SWEEPS_PER_EPOCH 8
#define HEADER_BYTES 512
#define NBINS 64

#define IDX(i, j, k, ny, nx) ((((size_t)(k)) * (ny) + (j)) * (nx) + (i))

static int rank, nprocs;

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "subarray_redecomp[%d]: %s: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void split(int n, int parts, int who, int *start, int *count)
{
    int base = n / parts, rem = n % parts;
    *count = base + (who < rem);
    *start = who * base + (who < rem ? who : rem);
}

/* Sum of anisotropic Gaussian bumps plus a plane wave, with a tiny checkerboard. */
static double initial_value(int i, int j, int k)
{
    static const double c[5][4] = {{0.3, 0.4, 0.5, 0.08}, {0.7, 0.6, 0.3, 0.12},
                                   {0.5, 0.2, 0.7, 0.05}, {0.2, 0.8, 0.2, 0.10},
                                   {0.8, 0.3, 0.8, 0.07}};
    double x = (i + 0.5) / NX, y = (j + 0.5) / NY, z = (k + 0.5) / NZ, v = 0.0;
    for (int b = 0; b < 5; b++) {
        double dx = x - c[b][0], dy = y - c[b][1], dz = z - c[b][2];
        v += exp(-(dx * dx + dy * dy + 2.0 * dz * dz) / (2.0 * c[b][3] * c[b][3]));
    }
    v += 0.2 * sin(6.283185307 * (2.0 * x + y)) * cos(6.283185307 * z);
    v += ((i + j + k) & 1) ? 0.05 : -0.05;
    return v;
}

static void init_slab(double *u, int z0, int nzl)
{
    /* u has one ghost plane below and above: planes 0..nzl+1 */
    for (int k = 0; k < nzl; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                u[IDX(i, j, k + 1, NY, NX)] = initial_value(i, j, z0 + k);
}

static void exchange_halo(double *u, int nzl)
{
    size_t plane = (size_t)NX * NY;
    int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int up = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(u + plane * 1, (int)plane, MPI_DOUBLE, down, 0,
                 u + plane * (nzl + 1), (int)plane, MPI_DOUBLE, up, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + plane * nzl, (int)plane, MPI_DOUBLE, up, 1, u, (int)plane,
                 MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* insulated outer boundaries */
    if (down == MPI_PROC_NULL)
        memcpy(u, u + plane, plane * sizeof(double));
    if (up == MPI_PROC_NULL)
        memcpy(u + plane * (nzl + 1), u + plane * nzl, plane * sizeof(double));
}

/* Weighted Jacobi smoothing of the interior of the slab. */
static void smooth_slab(double *u, double *tmp, int nzl, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        exchange_halo(u, nzl);
        for (int k = 1; k <= nzl; k++)
            for (int j = 0; j < NY; j++) {
                int jm = j > 0 ? j - 1 : j, jp = j < NY - 1 ? j + 1 : j;
                for (int i = 0; i < NX; i++) {
                    int im = i > 0 ? i - 1 : i, ip = i < NX - 1 ? i + 1 : i;
                    double nb = u[IDX(im, j, k, NY, NX)] + u[IDX(ip, j, k, NY, NX)] +
                                u[IDX(i, jm, k, NY, NX)] + u[IDX(i, jp, k, NY, NX)] +
                                u[IDX(i, j, k - 1, NY, NX)] + u[IDX(i, j, k + 1, NY, NX)];
                    tmp[IDX(i, j, k, NY, NX)] =
                        0.4 * u[IDX(i, j, k, NY, NX)] + 0.1 * nb;
                }
            }
        memcpy(u + (size_t)NX * NY, tmp + (size_t)NX * NY,
               (size_t)NX * NY * nzl * sizeof(double));
    }
}

static void write_header(MPI_File fh, int epoch)
{
    if (rank == 0) {
        char hdr[HEADER_BYTES];
        memset(hdr, 0, sizeof hdr);
        snprintf(hdr, sizeof hdr,
                 "FIELD3D double native order=zyx nx=%d ny=%d nz=%d epoch=%d sweeps=%d\n",
                 NX, NY, NZ, epoch, (epoch + 1) * SWEEPS_PER_EPOCH);
        check(MPI_File_write_at(fh, 0, hdr, HEADER_BYTES, MPI_CHAR, MPI_STATUS_IGNORE),
              "write header");
    }
}

static void write_checkpoint(const char *path, const double *u, int z0, int nzl, int epoch)
{
    MPI_File fh;
    MPI_Datatype filetype;
    int gsizes[3] = {NZ, NY, NX}, lsizes[3] = {nzl, NY, NX}, starts[3] = {z0, 0, 0};
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                        MPI_INFO_NULL, &fh), "open checkpoint");
    check(MPI_File_set_size(fh, 0), "truncate checkpoint");
    write_header(fh, epoch);
    MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Type_commit(&filetype);
    check(MPI_File_set_view(fh, HEADER_BYTES, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL),
          "set view");
    check(MPI_File_write_all(fh, u + (size_t)NX * NY, nzl * NY * NX, MPI_DOUBLE,
                             MPI_STATUS_IGNORE), "write_all checkpoint");
    MPI_Type_free(&filetype);
    check(MPI_File_close(&fh), "close checkpoint");
}

/* Reads a y-slab with one ghost row on each interior side. */
static double *read_yslab(const char *path, int y0, int nyl, int *g0, int *gny)
{
    MPI_File fh;
    MPI_Datatype filetype;
    int lo = y0 > 0 ? y0 - 1 : y0, hi = y0 + nyl < NY ? y0 + nyl + 1 : y0 + nyl;
    int gsizes[3] = {NZ, NY, NX}, lsizes[3] = {NZ, hi - lo, NX}, starts[3] = {0, lo, 0};
    double *v = malloc(sizeof(double) * NZ * (size_t)(hi - lo) * NX);
    char hdr[HEADER_BYTES];

    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
          "open checkpoint for reading");
    check(MPI_File_read_at_all(fh, 0, hdr, HEADER_BYTES, MPI_CHAR, MPI_STATUS_IGNORE),
          "read header");
    int nx, ny, nz;
    if (sscanf(hdr, "FIELD3D double native order=zyx nx=%d ny=%d nz=%d", &nx, &ny, &nz) != 3 ||
        nx != NX || ny != NY || nz != NZ) {
        fprintf(stderr, "subarray_redecomp[%d]: unexpected header in %s\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Type_commit(&filetype);
    check(MPI_File_set_view(fh, HEADER_BYTES, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL),
          "set view");
    check(MPI_File_read_all(fh, v, NZ * (hi - lo) * NX, MPI_DOUBLE, MPI_STATUS_IGNORE),
          "read_all");
    MPI_Type_free(&filetype);
    MPI_File_close(&fh);
    *g0 = lo;
    *gny = hi - lo;
    return v;
}

static void gradient(const double *v, int g0, int gny, int y0, int nyl, float *g,
                     long *hist, double *gmax)
{
    double hmax = 0.0;
    for (int k = 0; k < NZ; k++)
        for (int jl = 0; jl < nyl; jl++) {
            int j = y0 + jl, jv = j - g0;
            int jm = jv > 0 ? jv - 1 : jv, jp = jv < gny - 1 ? jv + 1 : jv;
            int km = k > 0 ? k - 1 : k, kp = k < NZ - 1 ? k + 1 : k;
            for (int i = 0; i < NX; i++) {
                int im = i > 0 ? i - 1 : i, ip = i < NX - 1 ? i + 1 : i;
                double gx = (v[IDX(ip, jv, k, gny, NX)] - v[IDX(im, jv, k, gny, NX)]) * NX / (ip - im);
                double gy = (v[IDX(i, jp, k, gny, NX)] - v[IDX(i, jm, k, gny, NX)]) * NY / (jp - jm);
                double gz = (v[IDX(i, jv, kp, gny, NX)] - v[IDX(i, jv, km, gny, NX)]) * NZ / (kp - km);
                double m = sqrt(gx * gx + gy * gy + gz * gz);
                g[IDX(i, jl, k, nyl, NX)] = (float)m;
                if (m > hmax)
                    hmax = m;
            }
        }
    MPI_Allreduce(&hmax, gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    memset(hist, 0, sizeof(long) * NBINS);
    size_t n = (size_t)NZ * nyl * NX;
    for (size_t p = 0; p < n; p++) {
        int b = (int)(g[p] / *gmax * NBINS);
        hist[b < NBINS ? b : NBINS - 1]++;
    }
}

static void write_gradient(const char *path, const float *g, int y0, int nyl)
{
    MPI_File fh;
    MPI_Datatype filetype;
    int gsizes[3] = {NZ, NY, NX}, lsizes[3] = {NZ, nyl, NX}, starts[3] = {0, y0, 0};
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                        MPI_INFO_NULL, &fh), "open gradient");
    check(MPI_File_set_size(fh, 0), "truncate gradient");
    MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_FLOAT, &filetype);
    MPI_Type_commit(&filetype);
    check(MPI_File_set_view(fh, 0, MPI_FLOAT, filetype, "native", MPI_INFO_NULL), "set view");
    check(MPI_File_write_all(fh, g, NZ * nyl * NX, MPI_FLOAT, MPI_STATUS_IGNORE),
          "write_all gradient");
    MPI_Type_free(&filetype);
    check(MPI_File_close(&fh), "close gradient");
}

/* Independent reads of individual x-lines owned by this rank's z-slab. */
static int spot_check(const char *path, const double *u, int z0, int nzl)
{
    MPI_File fh;
    double line[NX];
    int bad = 0;
    check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
          "open for spot check");
    for (int t = 0; t < 400; t++) {
        int k = (t * 37) % nzl, j = (t * 53) % NY;
        MPI_Offset off = HEADER_BYTES +
                         (MPI_Offset)IDX(0, j, z0 + k, NY, NX) * (MPI_Offset)sizeof(double);
        check(MPI_File_read_at(fh, off, line, NX, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_at");
        for (int i = 0; i < NX; i++)
            if (line[i] != u[IDX(i, j, k + 1, NY, NX)])
                bad++;
    }
    MPI_File_close(&fh);
    return bad;
}

static void write_report(const char *path, const long *hist, double gmax, int bad)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "subarray_redecomp: cannot create %s: %s\n", path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(f, "# grid %d x %d x %d, %d ranks, spot-check mismatches %d\n", NX, NY, NZ,
            nprocs, bad);
    fprintf(f, "# gradient magnitude histogram, max %.6g\n", gmax);
    for (int b = 0; b < NBINS; b++)
        fprintf(f, "%10.5f %ld\n", (b + 0.5) * gmax / NBINS, hist[b]);
    fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0 && mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "subarray_redecomp: cannot create %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    char path[4096];
    int z0, nzl;
    split(NZ, nprocs, rank, &z0, &nzl);
    size_t slab = (size_t)NX * NY * (nzl + 2);
    double *u = calloc(slab, sizeof(double)), *tmp = calloc(slab, sizeof(double));

    init_slab(u, z0, nzl);
    for (int e = 0; e < NEPOCHS; e++) {
        smooth_slab(u, tmp, nzl, SWEEPS_PER_EPOCH);
        snprintf(path, sizeof path, "%s/field_ckpt_%02d.dat", argv[1], e);
        write_checkpoint(path, u, z0, nzl, e);
    }
    int bad = spot_check(path, u, z0, nzl), totbad = 0;
    MPI_Reduce(&bad, &totbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    free(tmp);
    free(u);

    /* restart with a different decomposition */
    int y0, nyl, g0, gny;
    split(NY, nprocs, rank, &y0, &nyl);
    double *v = read_yslab(path, y0, nyl, &g0, &gny);
    float *g = malloc(sizeof(float) * NZ * (size_t)nyl * NX);
    long hist[NBINS], tot[NBINS];
    double gmax;
    gradient(v, g0, gny, y0, nyl, g, hist, &gmax);
    MPI_Reduce(hist, tot, NBINS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/grad_mag.f32", argv[1]);
    write_gradient(path, g, y0, nyl);

    int rc = 0;
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/gradient_report.txt", argv[1]);
        write_report(path, tot, gmax, totbad);
        if (totbad != 0) {
            fprintf(stderr, "subarray_redecomp: %d spot-check mismatches\n", totbad);
            rc = 1;
        } else {
            printf("wrote %d checkpoints and gradient field, max |grad| %.4f\n", NEPOCHS, gmax);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(v);
    free(g);
    MPI_Finalize();
    return rc;
}
