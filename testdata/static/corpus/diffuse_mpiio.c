/*
 * 1-D explicit diffusion of a temperature profile, block-distributed over
 * the MPI ranks, with zero-flux ends.  Every SNAP_EVERY iterations the
 * whole field is appended to one shared file as a new snapshot: each rank
 * sets a file view selecting its block of the snapshot and all ranks write
 * collectively.  At the end each rank reads its block of the last snapshot
 * back with an explicit-offset read and compares it with memory.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NGLOBAL (1 << 19)
#define NITER 1500
#define SNAP_EVERY 150

typedef struct {
    int rank, nranks;
    long n_local, offset; /* block size and global index of first cell */
    double *u;            /* n_local + 2 entries, u[0] and u[n_local+1] are halos */
    double *unew;
} domain_t;

static void decompose(domain_t *d, long nglobal)
{
    long base = nglobal / d->nranks, rem = nglobal % d->nranks;
    d->n_local = base + (d->rank < rem ? 1 : 0);
    d->offset = d->rank * base + (d->rank < rem ? d->rank : rem);
    d->u = calloc((size_t)d->n_local + 2, sizeof(double));
    d->unew = calloc((size_t)d->n_local + 2, sizeof(double));
}

static void init_profile(domain_t *d, long nglobal)
{
    for (long i = 0; i < d->n_local; i++) {
        double x = (double)(d->offset + i) / (double)(nglobal - 1);
        /* a hot spot, a step and a small periodic ripple */
        double v = 1.0 + 4.0 * exp(-pow((x - 0.3) / 0.02, 2));
        if (x > 0.6 && x < 0.8)
            v += 2.0;
        v += 0.1 * sin(40.0 * M_PI * x);
        d->u[i + 1] = v;
    }
}

static void exchange_halos(domain_t *d)
{
    int left = d->rank > 0 ? d->rank - 1 : MPI_PROC_NULL;
    int right = d->rank < d->nranks - 1 ? d->rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&d->u[1], 1, MPI_DOUBLE, left, 10, &d->u[d->n_local + 1], 1, MPI_DOUBLE, right, 10,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&d->u[d->n_local], 1, MPI_DOUBLE, right, 11, &d->u[0], 1, MPI_DOUBLE, left, 11,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* zero-flux ends: mirror the boundary cell into the ghost */
    if (left == MPI_PROC_NULL)
        d->u[0] = d->u[1];
    if (right == MPI_PROC_NULL)
        d->u[d->n_local + 1] = d->u[d->n_local];
}

static void diffuse_step(domain_t *d, double r)
{
    const double *u = d->u;
    double *un = d->unew;
    for (long i = 1; i <= d->n_local; i++)
        un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    double *t = d->u;
    d->u = d->unew;
    d->unew = t;
}

static double total_heat(const domain_t *d)
{
    double local = 0.0, global = 0.0;
    for (long i = 1; i <= d->n_local; i++)
        local += d->u[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

static int write_snapshot(MPI_File fh, const domain_t *d, long nglobal, int snap)
{
    int gsize = (int)nglobal, lsize = (int)d->n_local, start = (int)d->offset;
    MPI_Datatype block;
    MPI_Type_create_subarray(1, &gsize, &lsize, &start, MPI_ORDER_C, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
    MPI_Offset disp = (MPI_Offset)snap * nglobal * (MPI_Offset)sizeof(double);
    int rc = MPI_File_set_view(fh, disp, MPI_DOUBLE, block, "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_write_all(fh, &d->u[1], lsize, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Type_free(&block);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int verify_snapshot(MPI_File fh, const domain_t *d, long nglobal, int snap)
{
    /* back to a plain byte view so that offsets are absolute */
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    double *check = malloc(sizeof(double) * (size_t)d->n_local);
    MPI_Offset off = ((MPI_Offset)snap * nglobal + d->offset) * (MPI_Offset)sizeof(double);
    MPI_Status st;
    int count = 0, bad = 0;
    if (MPI_File_read_at(fh, off, check, (int)d->n_local, MPI_DOUBLE, &st) != MPI_SUCCESS)
        bad = 1;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    if (count != d->n_local)
        bad = 1;
    for (long i = 0; !bad && i < d->n_local; i++)
        if (check[i] != d->u[i + 1])
            bad = 1;
    free(check);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return anybad ? -1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    domain_t d;
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.nranks);
    if (argc < 2) {
        if (d.rank == 0)
            fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/diffusion_snapshots.bin", argv[1]);

    decompose(&d, NGLOBAL);
    init_profile(&d, NGLOBAL);
    double heat0 = total_heat(&d);

    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS) {
        if (d.rank == 0)
            fprintf(stderr, "cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_size(fh, 0);

    const double r = 0.45;
    int snap = 0, status = 0;
    for (int it = 1; it <= NITER; it++) {
        exchange_halos(&d);
        diffuse_step(&d, r);
        if (it % SNAP_EVERY == 0) {
            if (write_snapshot(fh, &d, NGLOBAL, snap) != 0) {
                status = 1;
                break;
            }
            snap++;
        }
    }
    if (status == 0 && verify_snapshot(fh, &d, NGLOBAL, snap - 1) != 0) {
        if (d.rank == 0)
            fprintf(stderr, "snapshot %d read back differs\n", snap - 1);
        status = 1;
    }
    MPI_Offset fsize = 0;
    MPI_File_get_size(fh, &fsize);
    MPI_File_close(&fh);

    double heat = total_heat(&d);
    if (fabs(heat - heat0) > 1e-9 * fabs(heat0)) {
        if (d.rank == 0)
            fprintf(stderr, "heat not conserved: %.15g -> %.15g\n", heat0, heat);
        status = 1;
    }
    if (fsize != (MPI_Offset)snap * NGLOBAL * (MPI_Offset)sizeof(double)) {
        if (d.rank == 0)
            fprintf(stderr, "snapshot file has %lld bytes\n", (long long)fsize);
        status = 1;
    }
    if (d.rank == 0 && status == 0)
        printf("%d snapshots of %d cells written, heat %.12f\n", snap, NGLOBAL, heat);
    free(d.u);
    free(d.unew);
    MPI_Finalize();
    return status;
}
