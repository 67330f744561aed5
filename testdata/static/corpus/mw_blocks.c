/*
 * Master-worker block processing with MPI (2 ranks).
 *
 * Rank 0 generates an input file of double-precision samples, then reads it
 * back block by block with fread and ships each block to rank 1.  Rank 1
 * applies a smoothing filter followed by a per-sample Chebyshev series
 * evaluation and returns the transformed block.  Rank 0 appends every
 * returned block to an output file with fwrite and finally re-reads a
 * sample of output blocks to check them against a local recomputation.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define BLOCK_LEN   65536
#define NBLOCKS     48
#define NCHEB       24
#define TAG_WORK    1
#define TAG_RESULT  2
#define TAG_STOP    3

static double cheb_coef[NCHEB];

static void init_coefficients(void)
{
    for (int k = 0; k < NCHEB; k++)
        cheb_coef[k] = 1.0 / (1.0 + k * k) * ((k % 3 == 0) ? -1.0 : 1.0);
}

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static double next_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static int generate_input(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return -1; }
    double *buf = malloc(BLOCK_LEN * sizeof(double));
    double phase = 0.0;
    for (int b = 0; b < NBLOCKS; b++) {
        for (int i = 0; i < BLOCK_LEN; i++) {
            phase += 0.0007;
            buf[i] = 0.6 * sin(phase) + 0.3 * sin(7.1 * phase) + 0.1 * (2.0 * next_uniform() - 1.0);
        }
        if (fwrite(buf, sizeof(double), BLOCK_LEN, f) != BLOCK_LEN) {
            perror("fwrite input");
            fclose(f);
            free(buf);
            return -1;
        }
    }
    free(buf);
    return fclose(f);
}

/* 7-point smoothing, then sum_k c_k T_k(x) by Clenshaw recurrence. */
static void process_block(const double *in, double *out, int n)
{
    static const double w[7] = {0.03, 0.1, 0.22, 0.3, 0.22, 0.1, 0.03};
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = -3; j <= 3; j++) {
            int k = i + j;
            if (k < 0) k = 0;
            if (k >= n) k = n - 1;
            s += w[j + 3] * in[k];
        }
        double x = s;
        if (x > 1.0) x = 1.0;
        if (x < -1.0) x = -1.0;
        double b1 = 0.0, b2 = 0.0;
        for (int k = NCHEB - 1; k >= 1; k--) {
            double b0 = 2.0 * x * b1 - b2 + cheb_coef[k];
            b2 = b1;
            b1 = b0;
        }
        out[i] = x * b1 - b2 + cheb_coef[0];
    }
}

static int master_loop(const char *inpath, const char *outpath)
{
    FILE *fin = fopen(inpath, "rb");
    FILE *fout = fopen(outpath, "wb");
    if (!fin || !fout) { perror("open master files"); return -1; }
    double *blk = malloc(BLOCK_LEN * sizeof(double));
    double *res = malloc(BLOCK_LEN * sizeof(double));
    int rc = 0;
    for (int b = 0; b < NBLOCKS; b++) {
        size_t got = fread(blk, sizeof(double), BLOCK_LEN, fin);
        if (got != BLOCK_LEN) {
            fprintf(stderr, "short read at block %d\n", b);
            rc = -1;
            break;
        }
        MPI_Send(blk, BLOCK_LEN, MPI_DOUBLE, 1, TAG_WORK, MPI_COMM_WORLD);
        MPI_Recv(res, BLOCK_LEN, MPI_DOUBLE, 1, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (fwrite(res, sizeof(double), BLOCK_LEN, fout) != BLOCK_LEN) {
            perror("fwrite output");
            rc = -1;
            break;
        }
    }
    MPI_Send(NULL, 0, MPI_DOUBLE, 1, TAG_STOP, MPI_COMM_WORLD);
    fclose(fin);
    if (fclose(fout) != 0) rc = -1;
    free(blk);
    free(res);
    return rc;
}

static long worker_loop(void)
{
    double *blk = malloc(BLOCK_LEN * sizeof(double));
    double *res = malloc(BLOCK_LEN * sizeof(double));
    long nblocks = 0;
    for (;;) {
        MPI_Status st;
        MPI_Recv(blk, BLOCK_LEN, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        process_block(blk, res, BLOCK_LEN);
        MPI_Send(res, BLOCK_LEN, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        nblocks++;
    }
    free(blk);
    free(res);
    return nblocks;
}

static int verify_output(const char *inpath, const char *outpath)
{
    FILE *fin = fopen(inpath, "rb");
    FILE *fout = fopen(outpath, "rb");
    if (!fin || !fout) { perror("open for verify"); return -1; }
    double *blk = malloc(BLOCK_LEN * sizeof(double));
    double *res = malloc(BLOCK_LEN * sizeof(double));
    double *ref = malloc(BLOCK_LEN * sizeof(double));
    int bad = 0;
    for (int b = 0; b < NBLOCKS && !bad; b += 7) {
        long off = (long)b * BLOCK_LEN * (long)sizeof(double);
        if (fseek(fin, off, SEEK_SET) || fseek(fout, off, SEEK_SET)) { bad = 1; break; }
        if (fread(blk, sizeof(double), BLOCK_LEN, fin) != BLOCK_LEN ||
            fread(res, sizeof(double), BLOCK_LEN, fout) != BLOCK_LEN) { bad = 1; break; }
        process_block(blk, ref, BLOCK_LEN);
        for (int i = 0; i < BLOCK_LEN; i++)
            if (ref[i] != res[i]) {
                fprintf(stderr, "mismatch block %d index %d: %g vs %g\n", b, i, ref[i], res[i]);
                bad = 1;
                break;
            }
    }
    fseek(fout, 0, SEEK_END);
    if (ftell(fout) != (long)NBLOCKS * BLOCK_LEN * (long)sizeof(double)) {
        fprintf(stderr, "output file has wrong size\n");
        bad = 1;
    }
    fclose(fin);
    fclose(fout);
    free(blk); free(res); free(ref);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size != 2) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    init_coefficients();
    char inpath[4096], outpath[4096];
    snprintf(inpath, sizeof inpath, "%s/mw_input.bin", argv[1]);
    snprintf(outpath, sizeof outpath, "%s/mw_output.bin", argv[1]);

    int status = 0;
    if (rank == 0) {
        if (generate_input(inpath) != 0) status = 1;
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (status == 0 && master_loop(inpath, outpath) != 0) status = 1;
        if (status == 0 && verify_output(inpath, outpath) != 0) status = 1;
        long done;
        MPI_Recv(&done, 1, MPI_LONG, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (status == 0 && done != NBLOCKS) status = 1;
        printf("mw_blocks: %ld blocks processed by worker, %s\n", done, status ? "FAILED" : "ok");
    } else {
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
        long done = 0;
        if (status == 0) done = worker_loop();
        MPI_Send(&done, 1, MPI_LONG, 0, 9, MPI_COMM_WORLD);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
