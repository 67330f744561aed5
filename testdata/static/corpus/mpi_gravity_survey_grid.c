/* mpi_gravity_survey_grid: forward-models the Bouguer gravity anomaly of a
 * buried ore body (a cloud of prism-like point masses) on a survey grid split
 * by rows across ranks.  The grid is written collectively through a subarray
 * file view; each rank appends per-line survey logs with explicit-offset
 * independent writes; the grid is then re-read collectively in a column
 * decomposition (vector datatype view) to compute the upward-continued field
 * and horizontal gradients, and a summary is written with ordered shared-file
 * writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <mpi.h>

#define NX 512
#define NY 512
#define NBODY 1300
#define HDR 64
#define LOGLINE 96
#define UC_HEIGHT 3

typedef struct { double x, y, z, m; } Mass;

static void build_body(Mass *b, int n)
{
    unsigned s = 2024;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u; double u1 = (s >> 8) / 16777216.0;
        s = s * 1103515245u + 12345u; double u2 = (s >> 8) / 16777216.0;
        s = s * 1103515245u + 12345u; double u3 = (s >> 8) / 16777216.0;
        double t = 2 * M_PI * u1;
        b[i].x = 256 + 120 * cos(t) * u2 + 40 * u3;
        b[i].y = 256 + 60 * sin(t) * u2 + 0.3 * (b[i].x - 256);
        b[i].z = 20 + 60 * u3;
        b[i].m = 1.0e3 * (0.5 + u2);
    }
}

/* compute-bound: vertical attraction of every mass at every station of my rows */
static void forward_model(double *g, int row0, int nrows, const Mass *b, int nb)
{
    const double G = 6.674e-11 * 1e5; /* mGal scale */
    for (int r = 0; r < nrows; r++) {
        double y = row0 + r;
        for (int c = 0; c < NX; c++) {
            double x = c, acc = 0;
            for (int k = 0; k < nb; k++) {
                double dx = b[k].x - x, dy = b[k].y - y, dz = b[k].z;
                double r2 = dx * dx + dy * dy + dz * dz;
                acc += b[k].m * dz / (r2 * sqrt(r2));
            }
            g[(size_t)r * NX + c] = G * acc * 1e6;
        }
    }
}

static void write_header(MPI_File fh, int rank)
{
    if (rank == 0) {
        char hdr[HDR];
        memset(hdr, ' ', HDR);
        int n = snprintf(hdr, HDR, "GRAVGRID nx=%d ny=%d type=f64 units=mGal", NX, NY);
        hdr[n] = ' ';
        hdr[HDR - 1] = '\n';
        MPI_File_write_at(fh, 0, hdr, HDR, MPI_CHAR, MPI_STATUS_IGNORE);
    }
}

/* collective write of my row block through a subarray view */
static void write_grid_rows(MPI_File fh, const double *g, int row0, int nrows)
{
    int sizes[2] = {NY, NX}, sub[2] = {nrows, NX}, starts[2] = {row0, 0};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, HDR, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, g, nrows * NX, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Type_free(&ft);
}

/* many small independent writes: one fixed-width log record per survey line */
static void write_line_logs(MPI_File fh, const double *g, int row0, int nrows)
{
    char line[LOGLINE + 1];
    for (int r = 0; r < nrows; r++) {
        double mn = 1e30, mx = -1e30, s = 0;
        for (int c = 0; c < NX; c++) {
            double v = g[(size_t)r * NX + c];
            mn = v < mn ? v : mn; mx = v > mx ? v : mx; s += v;
        }
        int n = snprintf(line, sizeof line, "line %4d stations %4d min %12.6f max %12.6f mean %12.6f", row0 + r, NX, mn, mx, s / NX);
        memset(line + n, ' ', (size_t)(LOGLINE - n));
        line[LOGLINE - 1] = '\n';
        MPI_File_write_at(fh, (MPI_Offset)(row0 + r) * LOGLINE, line, LOGLINE, MPI_CHAR, MPI_STATUS_IGNORE);
    }
}

/* collective read of a column block using a vector view */
static void read_grid_cols(MPI_File fh, double *blk, int col0, int ncols)
{
    MPI_Datatype vec, ft;
    MPI_Type_vector(NY, ncols, NX, MPI_DOUBLE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)NX * NY * sizeof(double), &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, HDR + (MPI_Offset)col0 * sizeof(double), MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, blk, NY * ncols, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec); MPI_Type_free(&ft);
}

/* compute: x-gradient along my columns and a crude upward continuation
 * (box average with height-dependent radius) */
static void derived_fields(const double *blk, int ncols, double *grad, double *upc)
{
    for (int y = 0; y < NY; y++)
        for (int c = 0; c < ncols; c++) {
            int yp = y + 1 < NY ? y + 1 : y, ym = y > 0 ? y - 1 : y;
            grad[(size_t)y * ncols + c] = (blk[(size_t)yp * ncols + c] - blk[(size_t)ym * ncols + c]) / (yp - ym);
            double s = 0, w = 0;
            for (int dy = -UC_HEIGHT * 4; dy <= UC_HEIGHT * 4; dy++) {
                int yy = y + dy;
                if (yy < 0 || yy >= NY) continue;
                for (int dc = -UC_HEIGHT; dc <= UC_HEIGHT; dc++) {
                    int cc = c + dc;
                    if (cc < 0 || cc >= ncols) continue;
                    double ww = UC_HEIGHT / pow(dy * dy + dc * dc + UC_HEIGHT * UC_HEIGHT, 1.5);
                    s += ww * blk[(size_t)yy * ncols + cc]; w += ww;
                }
            }
            upc[(size_t)y * ncols + c] = s / w;
        }
}

static void write_derived(const char *path, const double *f, int col0, int ncols)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    int sizes[2] = {NY, NX}, sub[2] = {NY, ncols}, starts[2] = {0, col0};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, f, NY * ncols, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Type_free(&ft);
    MPI_File_close(&fh);
}

static void ordered_summary(const char *path, int rank, int col0, int ncols, const double *grad, const double *upc)
{
    double gmax = 0, umax = -1e30; int at = 0;
    for (int i = 0; i < NY * ncols; i++) {
        if (fabs(grad[i]) > gmax) gmax = fabs(grad[i]);
        if (upc[i] > umax) { umax = upc[i]; at = i; }
    }
    char txt[256];
    int n = snprintf(txt, sizeof txt, "rank %d cols %d-%d max|dg/dy| %.6f mGal/cell max upward-continued %.6f at (%d,%d)\n",
                     rank, col0, col0 + ncols - 1, gmax, umax, at / ncols, col0 + at % ncols);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 0);
    MPI_File_write_ordered(fh, txt, n, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) { if (!rank) fprintf(stderr, "usage: %s dir\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 1); }
    char grid[512], logs[512], gradp[512], upcp[512], summ[512];
    snprintf(grid, sizeof grid, "%s/bouguer_grid.bin", argv[1]);
    snprintf(logs, sizeof logs, "%s/survey_lines.log", argv[1]);
    snprintf(gradp, sizeof gradp, "%s/gradient_y.bin", argv[1]);
    snprintf(upcp, sizeof upcp, "%s/upward_continued.bin", argv[1]);
    snprintf(summ, sizeof summ, "%s/summary.txt", argv[1]);

    Mass *body = malloc(NBODY * sizeof(Mass));
    build_body(body, NBODY);
    int rows = NY / size, row0 = rank * rows;
    if (rank == size - 1) rows = NY - row0;
    double *g = malloc((size_t)rows * NX * sizeof(double));
    forward_model(g, row0, rows, body, NBODY);

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, grid, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    write_header(fh, rank);
    write_grid_rows(fh, g, row0, rows);
    MPI_File lf;
    MPI_File_open(MPI_COMM_WORLD, logs, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &lf);
    write_line_logs(lf, g, row0, rows);
    MPI_File_close(&lf);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);

    int cols = NX / size, col0 = rank * cols;
    if (rank == size - 1) cols = NX - col0;
    double *blk = malloc((size_t)NY * cols * sizeof(double));
    double *grad = malloc((size_t)NY * cols * sizeof(double));
    double *upc = malloc((size_t)NY * cols * sizeof(double));
    read_grid_cols(fh, blk, col0, cols);
    MPI_File_close(&fh);
    derived_fields(blk, cols, grad, upc);
    write_derived(gradp, grad, col0, cols);
    write_derived(upcp, upc, col0, cols);
    ordered_summary(summ, rank, col0, cols, grad, upc);

    double local = 0, total = 0;
    for (int i = 0; i < NY * cols; i++) local += blk[i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("grid %dx%d ranks %d mean anomaly %.6f mGal\n", NX, NY, size, total / (NX * NY));
    free(body); free(g); free(blk); free(grad); free(upc);
    MPI_Finalize();
    return 0;
}
