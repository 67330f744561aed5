/*
 * heat_halo_mpiio: explicit 2-D heat equation with a moving heat source on a
 * doubly periodic grid, decomposed in row slabs over the MPI ranks.  Ghost
 * rows are exchanged every step with MPI_Sendrecv; every SNAP_EVERY steps all
 * ranks write their slab into one shared file with MPI_File_write_at_all, and
 * rank 0 writes the file header and a text log.  At the end every snapshot is
 * read back with MPI_File_read_at_all and checked against the logged sums and
 * the final in-memory field.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

static const int GLOBAL_NX = 640;
static const int GLOBAL_NY = 640;
static const int N_STEPS = 500;
static const int SNAP_EVERY = 50;
static const double ALPHA = 0.22;
static const MPI_Offset HEADER_BYTES = 64;

struct slab {
    int rank, size;
    int ny;          /* owned rows */
    int row0;        /* global index of first owned row */
    int up, down;    /* neighbour ranks (periodic) */
    double *u, *unew; /* (ny+2) x NX including ghost rows */
};

static void abort_msg(const char *msg)
{
    fprintf(stderr, "heat_halo_mpiio: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void init_slab(struct slab *s)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    if (GLOBAL_NY % s->size != 0) abort_msg("rank count must divide GLOBAL_NY");
    s->ny = GLOBAL_NY / s->size;
    s->row0 = s->rank * s->ny;
    s->up = (s->rank + s->size - 1) % s->size;
    s->down = (s->rank + 1) % s->size;
    size_t n = (size_t)(s->ny + 2) * GLOBAL_NX;
    s->u = calloc(n, sizeof(double));
    s->unew = calloc(n, sizeof(double));
    if (!s->u || !s->unew) abort_msg("out of memory");
    for (int j = 1; j <= s->ny; j++) {
        double y = (double)(s->row0 + j - 1) / GLOBAL_NY;
        for (int i = 0; i < GLOBAL_NX; i++) {
            double x = (double)i / GLOBAL_NX;
            s->u[(size_t)j * GLOBAL_NX + i] = 0.5 + 0.25 * sin(2 * M_PI * x) * sin(4 * M_PI * y);
        }
    }
}

static void halo_exchange(struct slab *s)
{
    double *first = s->u + GLOBAL_NX, *last = s->u + (size_t)s->ny * GLOBAL_NX;
    double *ghost_top = s->u, *ghost_bot = s->u + (size_t)(s->ny + 1) * GLOBAL_NX;
    MPI_Sendrecv(first, GLOBAL_NX, MPI_DOUBLE, s->up, 10, ghost_bot, GLOBAL_NX, MPI_DOUBLE, s->down, 10,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(last, GLOBAL_NX, MPI_DOUBLE, s->down, 11, ghost_top, GLOBAL_NX, MPI_DOUBLE, s->up, 11,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double source_term(int gi, int gj, double cx, double cy)
{
    double dx = (double)gi / GLOBAL_NX - cx, dy = (double)gj / GLOBAL_NY - cy;
    double r2 = dx * dx + dy * dy;
    return r2 < 0.004 ? 0.002 * (1.0 - r2 / 0.004) : 0.0;
}

static void stencil_step(struct slab *s, int step)
{
    const int nx = GLOBAL_NX;
    double cx = 0.5 + 0.3 * cos(0.01 * step), cy = 0.5 + 0.3 * sin(0.01 * step);
    for (int j = 1; j <= s->ny; j++) {
        const double *c = s->u + (size_t)j * nx;
        double *o = s->unew + (size_t)j * nx;
        for (int i = 0; i < nx; i++) {
            int il = i == 0 ? nx - 1 : i - 1, ir = i == nx - 1 ? 0 : i + 1;
            double lap = c[il] + c[ir] + c[i - nx] + c[i + nx] - 4.0 * c[i];
            o[i] = c[i] + ALPHA * lap;
        }
        double dyr = (double)(s->row0 + j - 1) / GLOBAL_NY - cy;
        if ((step & 3) == 0 && dyr * dyr < 0.004)
            for (int i = 0; i < nx; i++) o[i] += 4.0 * source_term(i, s->row0 + j - 1, cx, cy);
    }
    double *t = s->u;
    s->u = s->unew;
    s->unew = t;
}

static void local_moments(const struct slab *s, double m[3])
{
    double sum = 0.0, mn = 1e300, mx = -1e300;
    for (int j = 1; j <= s->ny; j++)
        for (int i = 0; i < GLOBAL_NX; i++) {
            double v = s->u[(size_t)j * GLOBAL_NX + i];
            sum += v;
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
    m[0] = sum;
    m[1] = mn;
    m[2] = mx;
}

static MPI_Offset snapshot_offset(int snap, const struct slab *s)
{
    MPI_Offset field = (MPI_Offset)GLOBAL_NX * GLOBAL_NY * sizeof(double);
    return HEADER_BYTES + (MPI_Offset)snap * field + (MPI_Offset)s->row0 * GLOBAL_NX * sizeof(double);
}

static void write_header(MPI_File fh, const struct slab *s, int nsnap)
{
    if (s->rank != 0) return;
    int hdr[16];
    memset(hdr, 0, sizeof hdr);
    hdr[0] = 0x48454154; /* "HEAT" */
    hdr[1] = GLOBAL_NX;
    hdr[2] = GLOBAL_NY;
    hdr[3] = nsnap;
    hdr[4] = SNAP_EVERY;
    MPI_File_write_at(fh, 0, hdr, 16, MPI_INT, MPI_STATUS_IGNORE);
}

static void write_snapshot(MPI_File fh, const struct slab *s, int snap)
{
    int count = s->ny * GLOBAL_NX;
    MPI_File_write_at_all(fh, snapshot_offset(snap, s), s->u + GLOBAL_NX, count, MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
}

static int verify_file(const char *path, const struct slab *s, int nsnap, const double *logged_sum)
{
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        abort_msg("cannot reopen snapshot file");
    int hdr[16] = {0}, bad = 0;
    if (s->rank == 0) {
        MPI_File_read_at(fh, 0, hdr, 16, MPI_INT, MPI_STATUS_IGNORE);
        if (hdr[0] != 0x48454154 || hdr[1] != GLOBAL_NX || hdr[2] != GLOBAL_NY || hdr[3] != nsnap) bad++;
    }
    size_t count = (size_t)s->ny * GLOBAL_NX;
    double *buf = malloc(count * sizeof(double));
    for (int k = 0; k < nsnap; k++) {
        MPI_File_read_at_all(fh, snapshot_offset(k, s), buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        double local = 0.0, global = 0.0;
        for (size_t i = 0; i < count; i++) local += buf[i];
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (fabs(global - logged_sum[k]) > 1e-9 * fabs(logged_sum[k])) bad++;
        if (k == nsnap - 1 && memcmp(buf, s->u + GLOBAL_NX, count * sizeof(double)) != 0) bad++;
    }
    free(buf);
    MPI_File_close(&fh);
    int total_bad = 0;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total_bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct slab s;
    init_slab(&s);
    if (argc != 2) abort_msg("usage: heat_halo_mpiio OUTDIR");
    if (s.rank == 0 && mkdir(argv[1], 0755) != 0 && errno != EEXIST) abort_msg("cannot create output dir");
    MPI_Barrier(MPI_COMM_WORLD);

    char path[4096], logpath[4096];
    snprintf(path, sizeof path, "%s/heat_snapshots.bin", argv[1]);
    snprintf(logpath, sizeof logpath, "%s/heat_log.txt", argv[1]);
    int nsnap = N_STEPS / SNAP_EVERY;
    double *logged_sum = calloc((size_t)nsnap, sizeof(double));

    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        abort_msg("cannot open snapshot file");
    MPI_File_set_size(fh, 0);
    write_header(fh, &s, nsnap);
    FILE *log = NULL;
    if (s.rank == 0) {
        log = fopen(logpath, "w");
        if (!log) abort_msg("cannot open log");
        fprintf(log, "# nx %d ny %d ranks %d steps %d\n", GLOBAL_NX, GLOBAL_NY, s.size, N_STEPS);
    }

    int snap = 0;
    for (int step = 1; step <= N_STEPS; step++) {
        halo_exchange(&s);
        stencil_step(&s, step);
        if (step % SNAP_EVERY == 0) {
            double m[3], g[3];
            local_moments(&s, m);
            MPI_Allreduce(&m[0], &g[0], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(&m[1], &g[1], 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&m[2], &g[2], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            write_snapshot(fh, &s, snap);
            logged_sum[snap] = g[0];
            if (s.rank == 0)
                fprintf(log, "step %5d snap %2d mean %.10f min %.6f max %.6f\n", step, snap,
                        g[0] / ((double)GLOBAL_NX * GLOBAL_NY), g[1], g[2]);
            snap++;
        }
    }
    MPI_File_close(&fh);

    int bad = verify_file(path, &s, nsnap, logged_sum);
    if (s.rank == 0) {
        fprintf(log, "# verification mismatches %d\n", bad);
        fclose(log);
        if (bad == 0) printf("heat_halo_mpiio: ok (%d snapshots of %dx%d)\n", nsnap, GLOBAL_NX, GLOBAL_NY);
        else fprintf(stderr, "heat_halo_mpiio: check FAILED (%d mismatches)\n", bad);
    }
    free(logged_sum);
    free(s.u);
    free(s.unew);
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
}
