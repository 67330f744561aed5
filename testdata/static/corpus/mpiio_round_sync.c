/* MPI-IO on 2 ranks: each rank owns one contiguous block of a shared file and
 * fills it in several rounds. In every round the rank advances a set of
 * coupled logistic-map oscillators, writes the next piece of its block with
 * collective MPI_File_write_at_all and the file is made durable with
 * MPI_File_sync. Afterwards each rank reads its neighbour's whole block with
 * MPI_File_read_at and checks it against a regeneration of that rank's data. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROUNDS 12
#define PIECE (192 * 1024)              /* doubles per rank per round */
#define NOSC 256

static void init_oscillators(double *x, int rank)
{
    for (int i = 0; i < NOSC; i++) x[i] = 0.1 + 0.8 * (i + 0.5) / NOSC + 1e-3 * rank;
}

/* produce one round of data: PIECE values from NOSC coupled maps */
static void compute_piece(double *x, double *out, int round)
{
    const double r = 3.7 + 0.02 * sin(round);
    const double eps = 0.05;
    double nx[NOSC];
    for (int s = 0; s < PIECE / NOSC; s++) {
        for (int i = 0; i < NOSC; i++) {
            int l = i ? i - 1 : NOSC - 1, rr = i < NOSC - 1 ? i + 1 : 0;
            double fl = r * x[l] * (1 - x[l]), fc = r * x[i] * (1 - x[i]), fr = r * x[rr] * (1 - x[rr]);
            nx[i] = (1 - eps) * fc + 0.5 * eps * (fl + fr);
        }
        memcpy(x, nx, sizeof nx);
        memcpy(out + (size_t)s * NOSC, x, sizeof nx);
    }
}

static void write_rounds(MPI_File fh, int rank, double *checksum)
{
    double x[NOSC];
    double *piece = malloc(sizeof(double) * PIECE);
    init_oscillators(x, rank);
    MPI_Offset block = (MPI_Offset)NROUNDS * PIECE * sizeof(double);
    *checksum = 0.0;
    for (int r = 0; r < NROUNDS; r++) {
        compute_piece(x, piece, r);
        for (int i = 0; i < PIECE; i++) *checksum += piece[i];
        MPI_Offset off = rank * block + (MPI_Offset)r * PIECE * sizeof(double);
        MPI_Status st;
        MPI_File_write_at_all(fh, off, piece, PIECE, MPI_DOUBLE, &st);
        int cnt;
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        if (cnt != PIECE) { fprintf(stderr, "rank %d: short write\n", rank); MPI_Abort(MPI_COMM_WORLD, 1); }
        MPI_File_sync(fh);
    }
    free(piece);
}

static int verify_neighbour(MPI_File fh, int rank, int size)
{
    int nb = (rank + 1) % size;
    double x[NOSC];
    double *expect = malloc(sizeof(double) * PIECE), *got = malloc(sizeof(double) * PIECE);
    init_oscillators(x, nb);
    MPI_Offset block = (MPI_Offset)NROUNDS * PIECE * sizeof(double);
    int bad = 0;
    for (int r = 0; r < NROUNDS; r++) {
        compute_piece(x, expect, r);
        MPI_Status st;
        MPI_File_read_at(fh, nb * block + (MPI_Offset)r * PIECE * sizeof(double), got, PIECE, MPI_DOUBLE, &st);
        if (memcmp(expect, got, sizeof(double) * PIECE) != 0) bad++;
    }
    free(expect); free(got);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: mpiio_round_sync DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/blocks.dat", argv[1]);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double csum;
    write_rounds(fh, rank, &csum);
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = verify_neighbour(fh, rank, size);
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    if (fsize != (MPI_Offset)size * NROUNDS * PIECE * (MPI_Offset)sizeof(double)) bad++;
    MPI_File_close(&fh);
    double total;
    int allbad;
    MPI_Reduce(&csum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("file %lld bytes, data sum %.6f, failures %d\n", (long long)fsize, total, allbad);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
