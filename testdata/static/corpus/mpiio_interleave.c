/*
 * Interleaved small-record output with MPI-IO (2 ranks).
 *
 * A stream of NREC fixed-size observation records (index, owner, a few
 * derived doubles, checksum) is produced round-robin: record i is computed
 * and written by rank i % nprocs with an independent MPI_File_write_at at
 * offset i * sizeof(record).  After a barrier the file is read back in
 * contiguous windows with the collective MPI_File_read_at_all, every rank
 * reading its own half of each window, and each record is recomputed and
 * compared.  Error counts are combined with MPI_Allreduce.
 */
#include <mpi.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 60000
#define WINDOW 2048

typedef struct {
    int64_t index;
    int32_t owner;
    int32_t nsteps;
    double x, v, energy, phase;
    uint64_t check;
} record_t;

static uint64_t fold_checksum(const record_t *r)
{
    const uint64_t *w = (const uint64_t *)r;
    uint64_t h = 1469598103934665603ULL;
    for (size_t k = 0; k < offsetof(record_t, check) / 8; k++) {
        h ^= w[k];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

/* Integrate a driven pendulum for a record-specific number of steps. */
static void compute_record(int64_t i, int owner, record_t *r)
{
    memset(r, 0, sizeof *r);
    double x = 0.1 + 0.001 * (double)(i % 977), v = 0.0, dt = 0.01;
    int nsteps = 40 + (int)(i % 23);
    for (int s = 0; s < nsteps; s++) {
        double t = s * dt;
        double a = -sin(x) - 0.1 * v + 0.5 * cos(0.667 * t + 0.001 * (double)i);
        v += dt * a;
        x += dt * v;
    }
    r->index = i;
    r->owner = owner;
    r->nsteps = nsteps;
    r->x = x;
    r->v = v;
    r->energy = 0.5 * v * v + (1.0 - cos(x));
    r->phase = atan2(v, x);
    r->check = fold_checksum(r);
}

static int write_interleaved(MPI_File fh, int rank, int nprocs, long *nwritten)
{
    record_t r;
    *nwritten = 0;
    for (int64_t i = rank; i < NREC; i += nprocs) {
        compute_record(i, rank, &r);
        MPI_Offset off = (MPI_Offset)i * (MPI_Offset)sizeof(record_t);
        MPI_Status st;
        if (MPI_File_write_at(fh, off, &r, (int)sizeof r, MPI_BYTE, &st) != MPI_SUCCESS) return -1;
        (*nwritten)++;
    }
    return 0;
}

static long read_back_collective(MPI_File fh, int rank, int nprocs, double *energy_sum)
{
    long errors = 0;
    int per_rank = WINDOW / nprocs;
    record_t *buf = malloc(sizeof(record_t) * per_rank);
    record_t ref;
    *energy_sum = 0.0;
    for (int64_t w = 0; w < NREC; w += WINDOW) {
        int64_t first = w + (int64_t)rank * per_rank;
        int64_t count = per_rank;
        if (first >= NREC) count = 0;
        else if (first + count > NREC) count = NREC - first;
        MPI_Offset off = (MPI_Offset)(count > 0 ? first : 0) * (MPI_Offset)sizeof(record_t);
        MPI_Status st;
        /* every rank takes part in every window, possibly with zero bytes */
        if (MPI_File_read_at_all(fh, off, buf, (int)(count * sizeof(record_t)), MPI_BYTE, &st) != MPI_SUCCESS) {
            errors++;
            continue;
        }
        int got;
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != (int)(count * sizeof(record_t))) errors++;
        for (int64_t k = 0; k < count; k++) {
            int64_t i = first + k;
            compute_record(i, (int)(i % nprocs), &ref);
            if (memcmp(&ref, &buf[k], sizeof ref) != 0 || buf[k].check != fold_checksum(&buf[k])) errors++;
            *energy_sum += buf[k].energy;
        }
    }
    free(buf);
    return errors;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/observations.rec", argv[1]);

    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        if (rank == 0) fprintf(stderr, "cannot create %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_size(fh, 0);
    long nwritten = 0;
    int werr = write_interleaved(fh, rank, nprocs, &nwritten) != 0;
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    double esum = 0.0;
    long errors = read_back_collective(fh, rank, nprocs, &esum);
    MPI_File_close(&fh);

    errors += werr;
    if (rank == 0 && fsize != (MPI_Offset)NREC * (MPI_Offset)sizeof(record_t)) errors++;
    long total_err = 0, total_written = 0;
    double total_e = 0.0;
    MPI_Allreduce(&errors, &total_err, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&nwritten, &total_written, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&esum, &total_e, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (total_written != NREC) total_err++;
    if (rank == 0)
        printf("mpiio_interleave: %ld records written by %d ranks, file %lld bytes, mean energy %.6f, %ld errors\n",
               total_written, nprocs, (long long)fsize, total_e / NREC, total_err);
    MPI_Finalize();
    return total_err == 0 ? 0 : 1;
}
