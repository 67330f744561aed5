/*
 * mc_neutron_slab_mpiio.c -- multigroup Monte Carlo neutron transport in a
 * layered 1-D slab with MPI-IO output.
 *
 * Histories are split across ranks (independent random streams).  Each
 * rank tracks neutrons cell by cell through fuel / moderator / absorber
 * layers with NGROUP energy groups and down-scattering, tallying
 * track-length flux per cell and group and leakage per group.  Every
 * collision of every LOG_EVERY-th history is appended to an in-memory
 * event buffer that is flushed
 * every BATCH histories into a shared event-log file: offsets come from
 * MPI_Exscan over the batch sizes and the data go out with
 * MPI_File_write_at_all.  Rank 0 writes a header and a per-batch progress
 * log with MPI_File_write_at.  At the end the reduced flux tally is written
 * collectively through a 2-D subarray file view (each rank owns a block
 * of cells), and the event log is read back (each rank scans the other
 * rank's batches with MPI_File_read_at) to build a collision-density
 * histogram, which rank 0 stores as text.
 *
 * Usage: mpirun -np 2 mc_neutron_slab_mpiio OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NHIST    480000
#define LOG_EVERY 6
#define BATCH    2000
#define NGROUP   4
#define NCELL    240
#define WIDTH    30.0
#define NREGION  3
#define NHBIN    60
#define HDR      512

typedef struct {
    float x, mu;
    int32_t hist;
    int8_t group, type, region, pad;
} event_t;

/* macroscopic cross sections [region][group] (1/cm) */
static const double SIG_T[NREGION][NGROUP] = {
    { 0.30, 0.42, 0.55, 0.90 },     /* fuel */
    { 0.65, 0.95, 1.40, 2.10 },     /* moderator */
    { 0.40, 0.70, 1.60, 3.50 },     /* absorber */
};
static const double SIG_A[NREGION][NGROUP] = {
    { 0.010, 0.020, 0.060, 0.200 },
    { 0.001, 0.002, 0.006, 0.020 },
    { 0.020, 0.080, 0.600, 2.400 },
};
/* probability of scattering from g to g+1 (rest stays in group) */
static const double DOWN[NREGION][NGROUP] = {
    { 0.05, 0.06, 0.05, 0.0 },
    { 0.35, 0.40, 0.30, 0.0 },
    { 0.10, 0.10, 0.08, 0.0 },
};

static int rank, nprocs;
static uint64_t rs[2];

static double rnd(void)
{
    uint64_t s1 = rs[0];
    const uint64_t s0 = rs[1];
    rs[0] = s0;
    s1 ^= s1 << 23;
    rs[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    return (double)((rs[1] + s0) >> 11) / 9007199254740992.0;
}

static int region_of_cell(int c)
{
    return c < NCELL / 3 ? 0 : c < 2 * NCELL / 3 ? 1 : 2;
}

/* Track one history; appends collision events; returns leakage side code. */
static int track(int h, double *flux, double leak[2][NGROUP], event_t *ev, int *nev, int cap)
{
    const double dx = WIDTH / NCELL;
    double x = rnd() * WIDTH / 3.0, mu = 2.0 * rnd() - 1.0;
    int g = 0, cell = (int)(x / dx);
    for (;;) {
        int reg = region_of_cell(cell);
        double st = SIG_T[reg][g];
        double d = -log(1.0 - rnd()) / st;
        for (;;) {
            double edge = mu > 0 ? (cell + 1) * dx : cell * dx;
            double dist = mu != 0.0 ? (edge - x) / mu : 1e30;
            if (d < dist) {
                flux[g * NCELL + cell] += d;
                x += d * mu;
                break;
            }
            flux[g * NCELL + cell] += dist;
            x = edge;
            cell += mu > 0 ? 1 : -1;
            if (cell < 0 || cell >= NCELL) {
                leak[cell < 0 ? 0 : 1][g] += 1.0;
                return cell < 0 ? 0 : 1;
            }
            if (region_of_cell(cell) != reg)
                goto resample;                 /* new material: resample flight */
            d -= dist;
        }
        {
            int absorbed = rnd() < SIG_A[reg][g] / st;
            if (h % LOG_EVERY == 0 && *nev < cap) {
                event_t *e = &ev[(*nev)++];
                e->x = (float)x;
                e->mu = (float)mu;
                e->hist = h;
                e->group = (int8_t)g;
                e->type = (int8_t)absorbed;
                e->region = (int8_t)reg;
                e->pad = 0;
            }
            if (absorbed)
                return 2;
            if (rnd() < DOWN[reg][g])
                g++;
            mu = 2.0 * rnd() - 1.0;
            continue;
        }
resample:
        ;
    }
}

static void write_header(MPI_File fh)
{
    if (rank != 0)
        return;
    char h[HDR];
    memset(h, ' ', sizeof h);
    int n = snprintf(h, sizeof h, "NEVLOG1 histories=%d logged_every=%d batch=%d groups=%d cells=%d width=%.2f "
                     "event_bytes=%d\n", NHIST, LOG_EVERY, BATCH, NGROUP, NCELL, WIDTH, (int)sizeof(event_t));
    h[n] = ' ';
    h[HDR - 1] = '\n';
    MPI_File_write_at(fh, 0, h, HDR, MPI_CHAR, MPI_STATUS_IGNORE);
}

/* Collective flush of one batch of events; returns new global end offset. */
static MPI_Offset flush_events(MPI_File fh, MPI_Offset base, const event_t *ev, int nev,
                               long long *index, int batch)
{
    long long mine = (long long)nev * (long long)sizeof(event_t), before = 0, total = 0;
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        before = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_File_write_at_all(fh, base + before, ev, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    index[2 * batch] = base + before;          /* where this rank's batch starts */
    index[2 * batch + 1] = nev;
    return base + total;
}

static void write_flux(const char *dir, const double *flux)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/flux_tally.bin", dir);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    int lo = NCELL * rank / nprocs, hi = NCELL * (rank + 1) / nprocs;
    int gsz[2] = { NGROUP, NCELL }, lsz[2] = { NGROUP, hi - lo }, st[2] = { 0, lo };
    MPI_Datatype ftype;
    MPI_Type_create_subarray(2, gsz, lsz, st, MPI_ORDER_C, MPI_DOUBLE, &ftype);
    MPI_Type_commit(&ftype);
    double *blk = malloc(sizeof(double) * NGROUP * (hi - lo));
    const double norm = (double)NHIST * (WIDTH / NCELL);
    for (int g = 0; g < NGROUP; g++)
        for (int c = lo; c < hi; c++)
            blk[g * (hi - lo) + (c - lo)] = flux[g * NCELL + c] / norm;
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, blk, NGROUP * (hi - lo), MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Type_free(&ftype);
    free(blk);
}

/* Each rank scans the batches written by its partner rank. */
static void analyse_events(const char *path, const char *dir, const long long *index,
                           int nbatch)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int partner = (rank + 1) % nprocs;
    long long *pindex = malloc(sizeof(long long) * 2 * nbatch);
    MPI_Sendrecv(index, 2 * nbatch, MPI_LONG_LONG, (rank + nprocs - 1) % nprocs, 7,
                 pindex, 2 * nbatch, MPI_LONG_LONG, partner, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double coll[NGROUP][NHBIN], absb[NHBIN];
    memset(coll, 0, sizeof coll);
    memset(absb, 0, sizeof absb);
    event_t *buf = NULL;
    size_t cap = 0;
    for (int b = 0; b < nbatch; b++) {
        size_t n = (size_t)pindex[2 * b + 1];
        if (n > cap) {
            cap = n;
            buf = realloc(buf, cap * sizeof(event_t));
        }
        MPI_File_read_at(fh, pindex[2 * b], buf, (int)(n * sizeof(event_t)), MPI_BYTE,
                         MPI_STATUS_IGNORE);
        for (size_t k = 0; k < n; k++) {
            int bin = (int)(buf[k].x / WIDTH * NHBIN);
            if (bin < 0 || bin >= NHBIN)
                continue;
            coll[(int)buf[k].group][bin] += 1.0;
            absb[bin] += buf[k].type;
        }
    }
    free(buf);
    free(pindex);
    MPI_File_close(&fh);
    MPI_Allreduce(MPI_IN_PLACE, coll, NGROUP * NHBIN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, absb, NHBIN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        char out[4096];
        snprintf(out, sizeof out, "%s/collision_density.txt", dir);
        FILE *f = fopen(out, "w");
        if (!f) {
            perror(out);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fprintf(f, "# x_cm   coll_g0  coll_g1  coll_g2  coll_g3  absorptions (per history)\n");
        for (int b = 0; b < NHBIN; b++) {
            fprintf(f, "%7.3f", (b + 0.5) * WIDTH / NHBIN);
            for (int g = 0; g < NGROUP; g++)
                fprintf(f, " %10.6f", coll[g][b] * LOG_EVERY / NHIST);
            fprintf(f, " %10.6f\n", absb[b] * LOG_EVERY / NHIST);
        }
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *dir = argv[1];
    if (rank == 0)
        mkdir(dir, 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    rs[0] = 0x243F6A8885A308D3ull ^ (uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ull;
    rs[1] = 0x13198A2E03707344ull + (uint64_t)rank;
    for (int i = 0; i < 20; i++)
        rnd();

    char epath[4096], lpath[4096];
    snprintf(epath, sizeof epath, "%s/events.nev", dir);
    snprintf(lpath, sizeof lpath, "%s/batches.log", dir);
    MPI_File eh, lh;
    MPI_File_open(MPI_COMM_WORLD, epath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &eh);
    MPI_File_open(MPI_COMM_WORLD, lpath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &lh);
    write_header(eh);

    int nbatch = NHIST / BATCH;
    int per_rank_batch = BATCH / nprocs;
    int cap = per_rank_batch * 64;
    event_t *ev = malloc(sizeof(event_t) * cap);
    double *flux = calloc(NGROUP * NCELL, sizeof(double));
    double leak[2][NGROUP];
    memset(leak, 0, sizeof leak);
    long long *index = malloc(sizeof(long long) * 2 * nbatch);
    long fate[3] = { 0, 0, 0 };
    MPI_Offset base = HDR, logoff = 0;
    for (int b = 0; b < nbatch; b++) {
        int nev = 0;
        for (int k = 0; k < per_rank_batch; k++) {
            int h = b * BATCH + rank * per_rank_batch + k;
            fate[track(h, flux, leak, ev, &nev, cap)]++;
        }
        base = flush_events(eh, base, ev, nev, index, b);
        long f[3];
        MPI_Reduce(fate, f, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            char line[128];
            int n = snprintf(line, sizeof line, "batch %4d histories %7d leak_L %.5f leak_R %.5f abs %.5f\n",
                             b, (b + 1) * BATCH, (double)f[0] / ((b + 1) * BATCH),
                             (double)f[1] / ((b + 1) * BATCH), (double)f[2] / ((b + 1) * BATCH));
            MPI_File_write_at(lh, logoff, line, n, MPI_CHAR, MPI_STATUS_IGNORE);
            logoff += n;
        }
    }
    MPI_File_sync(eh);
    MPI_File_close(&eh);
    MPI_File_close(&lh);

    MPI_Allreduce(MPI_IN_PLACE, flux, NGROUP * NCELL, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, leak, 2 * NGROUP, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    write_flux(dir, flux);
    analyse_events(epath, dir, index, nbatch);
    if (rank == 0) {
        printf("events_bytes=%lld leakR(g0..g3)=", (long long)(base - HDR));
        for (int g = 0; g < NGROUP; g++)
            printf(" %.5f", leak[1][g] / NHIST);
        printf(" flux(g3, mid)=%.5f\n", flux[3 * NCELL + NCELL / 2] / (NHIST * WIDTH / NCELL));
    }
    free(ev); free(flux); free(index);
    MPI_Finalize();
    return 0;
}
