/*
 * Column norms of a distributed dense matrix through MPI-IO.
 * The ranks own contiguous row blocks and write them collectively into one
 * shared row-major file (subarray file view + MPI_File_write_all, in row
 * batches).  The file is then re-read column-blocked: each rank sets a file
 * view built from MPI_Type_vector that selects its columns and reads them
 * with MPI_File_read_all, computes the 2-norm of each of its columns, and
 * rank 0 gathers the norms and stores them with MPI_File_write_at.
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROWS        4096
#define NCOLS        2048
#define ROW_BATCH    256
#define HEADER_BYTES 64

static void check_mpi(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "%s: %s\n", what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double matrix_entry(long i, long j)
{
    return sin(1.0e-3 * (double)((i + 1) * (j % 97 + 1))) + 0.01 * (double)(i % 13) - 2.0e-4 * (double)j;
}

static void fill_rows(double *buf, long row0, long nrows)
{
    for (long i = 0; i < nrows; i++)
        for (long j = 0; j < NCOLS; j++)
            buf[i * NCOLS + j] = matrix_entry(row0 + i, j);
}

static void write_matrix(const char *path, int rank, int nranks)
{
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh), "open matrix for writing");
    check_mpi(MPI_File_set_size(fh, 0), "truncate");
    if (rank == 0) {
        int64_t hdr[8] = {0x4d41545258ULL, NROWS, NCOLS, (int64_t)sizeof(double), 0, 0, 0, 0};
        check_mpi(MPI_File_write_at(fh, 0, hdr, 8, MPI_INT64_T, MPI_STATUS_IGNORE), "write header");
    }
    long rows_per = NROWS / nranks;
    long row0 = rank * rows_per;
    int sizes[2] = {NROWS, NCOLS}, sub[2] = {(int)rows_per, NCOLS}, starts[2] = {(int)row0, 0};
    MPI_Datatype rowblock;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &rowblock);
    MPI_Type_commit(&rowblock);
    check_mpi(MPI_File_set_view(fh, HEADER_BYTES, MPI_DOUBLE, rowblock, "native", MPI_INFO_NULL),
              "set row view");

    double *buf = malloc(sizeof(double) * ROW_BATCH * NCOLS);
    for (long r = 0; r < rows_per; r += ROW_BATCH) {
        long n = rows_per - r < ROW_BATCH ? rows_per - r : ROW_BATCH;
        fill_rows(buf, row0 + r, n);
        check_mpi(MPI_File_write_all(fh, buf, (int)(n * NCOLS), MPI_DOUBLE, MPI_STATUS_IGNORE),
                  "write_all rows");
    }
    free(buf);
    MPI_Type_free(&rowblock);
    check_mpi(MPI_File_close(&fh), "close matrix");
}

static void read_column_norms(const char *path, int rank, int nranks, double *norms)
{
    long ncl = NCOLS / nranks;
    long c0 = rank * ncl;
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              "open matrix for reading");
    int64_t hdr[8];
    check_mpi(MPI_File_read_at_all(fh, 0, hdr, 8, MPI_INT64_T, MPI_STATUS_IGNORE), "read header");
    if (hdr[1] != NROWS || hdr[2] != NCOLS) {
        fprintf(stderr, "rank %d: bad matrix header\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Datatype colblock;
    MPI_Type_vector(NROWS, (int)ncl, NCOLS, MPI_DOUBLE, &colblock);
    MPI_Type_commit(&colblock);
    check_mpi(MPI_File_set_view(fh, HEADER_BYTES + c0 * (MPI_Offset)sizeof(double), MPI_DOUBLE,
                                colblock, "native", MPI_INFO_NULL), "set column view");

    double *buf = malloc(sizeof(double) * ROW_BATCH * ncl);
    for (long j = 0; j < ncl; j++) norms[j] = 0.0;
    for (long r = 0; r < NROWS; r += ROW_BATCH) {
        MPI_Status st;
        int got;
        check_mpi(MPI_File_read_all(fh, buf, (int)(ROW_BATCH * ncl), MPI_DOUBLE, &st), "read_all columns");
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        if (got != ROW_BATCH * ncl) {
            fprintf(stderr, "rank %d: short read (%d)\n", rank, got);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (long i = 0; i < ROW_BATCH; i++)
            for (long j = 0; j < ncl; j++) {
                double a = buf[i * ncl + j];
                norms[j] += a * a;
            }
    }
    for (long j = 0; j < ncl; j++) norms[j] = sqrt(norms[j]);
    free(buf);
    MPI_Type_free(&colblock);
    check_mpi(MPI_File_close(&fh), "close matrix");
}

static void store_norms(const char *path, const double *all)
{
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
              "open norms file");
    check_mpi(MPI_File_set_size(fh, 0), "truncate norms");
    int64_t n = NCOLS;
    check_mpi(MPI_File_write_at(fh, 0, &n, 1, MPI_INT64_T, MPI_STATUS_IGNORE), "write count");
    check_mpi(MPI_File_write_at(fh, 8, all, NCOLS, MPI_DOUBLE, MPI_STATUS_IGNORE), "write norms");
    check_mpi(MPI_File_close(&fh), "close norms");
}

static int verify_norms(const char *path, const double *all)
{
    /* re-read the stored norms and compare with a direct in-memory computation */
    double *back = malloc(sizeof(double) * NCOLS);
    double *ref = calloc(NCOLS, sizeof(double));
    MPI_File fh;
    int64_t n = 0;
    check_mpi(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "reopen norms");
    check_mpi(MPI_File_read_at(fh, 0, &n, 1, MPI_INT64_T, MPI_STATUS_IGNORE), "read count");
    check_mpi(MPI_File_read_at(fh, 8, back, NCOLS, MPI_DOUBLE, MPI_STATUS_IGNORE), "read norms");
    check_mpi(MPI_File_close(&fh), "close norms");
    for (long i = 0; i < NROWS; i++)
        for (long j = 0; j < NCOLS; j++) {
            double a = matrix_entry(i, j);
            ref[j] += a * a;
        }
    int bad = (n != NCOLS);
    for (long j = 0; j < NCOLS; j++) {
        double r = sqrt(ref[j]);
        if (back[j] != all[j] || fabs(all[j] - r) > 1e-12 * r) bad++;
    }
    free(back);
    free(ref);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2 || NROWS % nranks || NCOLS % nranks || (NROWS / nranks) % ROW_BATCH) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR (rank count must divide the matrix)\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char mpath[4096], npath[4096];
    snprintf(mpath, sizeof mpath, "%s/matrix.bin", argv[1]);
    snprintf(npath, sizeof npath, "%s/colnorms.bin", argv[1]);

    write_matrix(mpath, rank, nranks);

    long ncl = NCOLS / nranks;
    double *mine = malloc(sizeof(double) * ncl);
    read_column_norms(mpath, rank, nranks, mine);

    double *all = rank == 0 ? malloc(sizeof(double) * NCOLS) : NULL;
    MPI_Gather(mine, (int)ncl, MPI_DOUBLE, all, (int)ncl, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    int status = 0;
    if (rank == 0) {
        store_norms(npath, all);
        int bad = verify_norms(npath, all);
        double fro = 0.0;
        for (long j = 0; j < NCOLS; j++) fro += all[j] * all[j];
        printf("%d x %d matrix, %d ranks, Frobenius norm %.10e, column norm[0] %.6f, [last] %.6f\n",
               NROWS, NCOLS, nranks, sqrt(fro), all[0], all[NCOLS - 1]);
        if (bad) {
            fprintf(stderr, "%d column norms wrong\n", bad);
            status = 1;
        }
        free(all);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(mine);
    MPI_Finalize();
    return status;
}
