/*
 * mpi_canal_lock_surge_io.c
 *
 * Surge waves in a long navigation-canal reach caused by lock operations.
 * One-dimensional Saint-Venant equations (HLL finite volumes, Manning
 * friction, rectangular section) on a domain split along the canal between
 * MPI ranks.  The upstream lock empties its chamber into the reach every
 * cycle, the downstream lock fills from it, and a side weir spills when the
 * level rises; lock cycles are staggered so that waves cross and reflect.
 *
 * MPI-IO:
 *   - surge_snapshots.bin: header (rank 0, write_at) + every SNAPEVERY steps
 *     the global depth and discharge, each rank writing its cells with
 *     MPI_File_write_at_all at its own offset;
 *   - gauges.bin: 2-D array [sample][gauge]; gauges are owned by the rank
 *     holding their cell, buffered, and written collectively through a
 *     subarray file view with MPI_File_write_all;
 *   - lock_log.txt: one text line per rank per snapshot via
 *     MPI_File_write_ordered;
 *   - post-processing re-reads the snapshots, snapshot-decomposed across
 *     ranks with MPI_File_read_at, to build a surge envelope (max/min level,
 *     max velocity) reduced to rank 0 and written as a text table.
 *
 * usage: mpiexec -n 2 mpi_canal_lock_surge_io OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCELL 4000             /* global cells (8 km pound) */
#define DX 2.0                 /* m */
#define DT 0.25                /* s */
#define NSTEPS 4800
#define SNAPEVERY 40
#define NGAUGE 16
#define GAUGEEVERY 4
#define GBUF (SNAPEVERY / GAUGEEVERY)
#define ENV_BIN 20             /* cells per envelope bin */

static const double G = 9.81;
static const double H0 = 3.5;          /* still-water depth */
static const double WIDTH = 32.0;      /* m */
static const double CYCLE = 600.0;     /* lock cycle, s */

static int rank, nprocs, nloc, i0;
static double *h, *q, *hn, *qn, *fh, *fq, *manning;
static double gbuf[GBUF][NGAUGE];
static int gauge_cell[NGAUGE];
static const char *outdir;

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: %s: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static void init_reach(void)
{
    nloc = NCELL / nprocs;
    i0 = rank * nloc;
    if (rank == nprocs - 1) nloc = NCELL - i0;
    /* arrays with one ghost cell each side */
    h = xmalloc((nloc + 2) * sizeof(double));
    q = xmalloc((nloc + 2) * sizeof(double));
    hn = xmalloc((nloc + 2) * sizeof(double));
    qn = xmalloc((nloc + 2) * sizeof(double));
    fh = xmalloc((nloc + 1) * sizeof(double));
    fq = xmalloc((nloc + 1) * sizeof(double));
    manning = xmalloc((nloc + 2) * sizeof(double));
    for (int i = 0; i < nloc + 2; i++) {
        int gi = i0 + i - 1;
        double x = gi * DX;
        h[i] = H0;
        q[i] = 0.0;
        /* lined sections near structures, weedy earth channel elsewhere */
        manning[i] = 0.022 + 0.010 * (0.5 + 0.5 * sin(x / 900.0)) + ((gi % 1500) < 100 ? -0.008 : 0.0);
    }
    for (int g = 0; g < NGAUGE; g++) gauge_cell[g] = (int)((g + 0.5) * NCELL / NGAUGE);
}

/* chamber emptying / filling hydrographs (m^2/s per unit width) */
static double lock_upstream(double t)
{
    double tc = fmod(t, CYCLE);
    if (tc > 300.0) return 0.0;
    double s = tc / 300.0;
    return (12.0 * 85.0 * 4.2 / 150.0) * 4.0 * s * (1.0 - s) * 1.5 / WIDTH;
}

static double lock_downstream(double t)
{
    double tc = fmod(t + 0.37 * CYCLE, CYCLE);
    if (tc > 360.0) return 0.0;
    double s = tc / 360.0;
    return -(12.0 * 85.0 * 4.2 / 180.0) * 4.0 * s * (1.0 - s) * 1.5 / WIDTH;
}

static void exchange_halos(void)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
    double sbuf[2], rbuf[2];
    sbuf[0] = h[1]; sbuf[1] = q[1];
    rbuf[0] = h[nloc + 1]; rbuf[1] = q[nloc + 1];
    check(MPI_Sendrecv(sbuf, 2, MPI_DOUBLE, left, 1, rbuf, 2, MPI_DOUBLE, right, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE), "halo left");
    h[nloc + 1] = rbuf[0]; q[nloc + 1] = rbuf[1];
    sbuf[0] = h[nloc]; sbuf[1] = q[nloc];
    rbuf[0] = h[0]; rbuf[1] = q[0];
    check(MPI_Sendrecv(sbuf, 2, MPI_DOUBLE, right, 2, rbuf, 2, MPI_DOUBLE, left, 2, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE), "halo right");
    h[0] = rbuf[0]; q[0] = rbuf[1];
}

/* one HLL step with lock inflow/outflow boundaries, side-weir spill and friction */
static double hll_step(double t)
{
    if (rank == 0) { h[0] = h[1]; q[0] = 2.0 * lock_upstream(t) - q[1]; }
    if (rank == nprocs - 1) { h[nloc + 1] = h[nloc]; q[nloc + 1] = 2.0 * lock_downstream(t) - q[nloc]; }
    double smax = 0.0;
    for (int i = 0; i <= nloc; i++) {
        double hl = h[i], hr = h[i + 1], ul = q[i] / hl, ur = q[i + 1] / hr;
        double cl = sqrt(G * hl), cr = sqrt(G * hr);
        double sl = fmin(ul - cl, ur - cr), sr = fmax(ul + cl, ur + cr);
        double fhl = q[i], fhr = q[i + 1];
        double fql = q[i] * ul + 0.5 * G * hl * hl, fqr = q[i + 1] * ur + 0.5 * G * hr * hr;
        if (sl >= 0.0) { fh[i] = fhl; fq[i] = fql; }
        else if (sr <= 0.0) { fh[i] = fhr; fq[i] = fqr; }
        else {
            fh[i] = (sr * fhl - sl * fhr + sl * sr * (hr - hl)) / (sr - sl);
            fq[i] = (sr * fql - sl * fqr + sl * sr * (q[i + 1] - q[i])) / (sr - sl);
        }
        double s = fmax(fabs(sl), fabs(sr));
        if (s > smax) smax = s;
    }
    const double weir_crest = H0 + 0.12;
    for (int i = 1; i <= nloc; i++) {
        hn[i] = h[i] - DT / DX * (fh[i] - fh[i - 1]);
        double qq = q[i] - DT / DX * (fq[i] - fq[i - 1]);
        int gi = i0 + i - 1;
        if (gi >= 2600 && gi < 2700 && hn[i] > weir_crest)       /* side weir */
            hn[i] -= DT * 0.42 * sqrt(2.0 * G) * pow(hn[i] - weir_crest, 1.5) / WIDTH;
        /* semi-implicit Manning friction */
        double n = manning[i], hh = hn[i];
        double cf = G * n * n * fabs(qq) / (hh * hh * cbrt(hh));
        qn[i] = qq / (1.0 + DT * cf);
    }
    for (int i = 1; i <= nloc; i++) { h[i] = hn[i]; q[i] = qn[i]; }
    return smax;
}

static void sample_gauges(int slot)
{
    for (int g = 0; g < NGAUGE; g++) {
        int li = gauge_cell[g] - i0;
        gbuf[slot][g] = (li >= 0 && li < nloc) ? h[li + 1] : 0.0;
    }
}

static void write_snapshot(MPI_File fh_snap, int snap, double t)
{
    /* record: [time double][h NCELL][q NCELL] */
    MPI_Offset rec = (MPI_Offset)(1 + 2 * NCELL) * sizeof(double);
    MPI_Offset base = 64 + (MPI_Offset)snap * rec;
    if (rank == 0) check(MPI_File_write_at(fh_snap, base, &t, 1, MPI_DOUBLE, MPI_STATUS_IGNORE), "snap time");
    check(MPI_File_write_at_all(fh_snap, base + (1 + (MPI_Offset)i0) * sizeof(double), h + 1, nloc, MPI_DOUBLE,
                                MPI_STATUS_IGNORE), "snap depth");
    check(MPI_File_write_at_all(fh_snap, base + (1 + (MPI_Offset)NCELL + i0) * sizeof(double), q + 1, nloc,
                                MPI_DOUBLE, MPI_STATUS_IGNORE), "snap discharge");
}

/* collective write of the buffered gauge rows through a subarray view */
static void flush_gauges(MPI_File fg, int block)
{
    int g0 = -1, ng = 0;
    for (int g = 0; g < NGAUGE; g++) {
        int li = gauge_cell[g] - i0;
        if (li >= 0 && li < nloc) {
            if (g0 < 0) g0 = g;
            ng++;
        }
    }
    int sizes[2] = {GBUF, NGAUGE}, sub[2] = {GBUF, ng > 0 ? ng : 1}, start[2] = {0, g0 > 0 ? g0 : 0};
    MPI_Datatype ftype;
    check(MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &ftype), "subarray");
    check(MPI_Type_commit(&ftype), "commit");
    MPI_Offset disp = (MPI_Offset)block * GBUF * NGAUGE * sizeof(double);
    check(MPI_File_set_view(fg, disp, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL), "gauge view");
    double *pack = xmalloc(sizeof(double) * GBUF * (ng > 0 ? ng : 1));
    for (int r = 0; r < GBUF; r++)
        for (int k = 0; k < ng; k++) pack[r * ng + k] = gbuf[r][g0 + k];
    check(MPI_File_write_all(fg, pack, GBUF * ng, MPI_DOUBLE, MPI_STATUS_IGNORE), "gauge write");
    free(pack);
    MPI_Type_free(&ftype);
}

static void log_ordered(MPI_File fl, int step, double t, double smax)
{
    double hmax = 0.0, hmin = 1e30, umax = 0.0, vol = 0.0;
    for (int i = 1; i <= nloc; i++) {
        if (h[i] > hmax) hmax = h[i];
        if (h[i] < hmin) hmin = h[i];
        double u = fabs(q[i] / h[i]);
        if (u > umax) umax = u;
        vol += h[i] * DX * WIDTH;
    }
    char line[256];
    int len = snprintf(line, sizeof line,
                       "step %6d t %8.1f s rank %d cells %6d-%6d  h %.4f..%.4f m  |u|max %.3f m/s  "
                       "vol %.1f m3  wave speed %.3f\n",
                       step, t, rank, i0, i0 + nloc - 1, hmin, hmax, umax, vol, smax);
    check(MPI_File_write_ordered(fl, line, len, MPI_CHAR, MPI_STATUS_IGNORE), "ordered log");
}

/* read back snapshots decomposed by snapshot index and build the surge envelope */
static void surge_envelope(MPI_File fh_snap, int nsnap)
{
    const int nbin = NCELL / ENV_BIN;
    double *env = xmalloc(3 * nbin * sizeof(double)), *genv = xmalloc(3 * nbin * sizeof(double));
    double *buf = xmalloc((1 + 2 * (size_t)NCELL) * sizeof(double));
    for (int b = 0; b < nbin; b++) { env[b] = -1e30; env[nbin + b] = -1e30; env[2 * nbin + b] = -1e30; }
    MPI_Offset rec = (MPI_Offset)(1 + 2 * NCELL) * sizeof(double);
    for (int s = rank; s < nsnap; s += nprocs) {
        MPI_Status st;
        check(MPI_File_read_at(fh_snap, 64 + s * rec, buf, 1 + 2 * NCELL, MPI_DOUBLE, &st), "read snapshot");
        int cnt;
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        if (cnt != 1 + 2 * NCELL) {
            fprintf(stderr, "rank %d: short snapshot read\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        const double *hh = buf + 1, *qq = buf + 1 + NCELL;
        for (int i = 0; i < NCELL; i++) {
            int b = i / ENV_BIN;
            double u = fabs(qq[i] / hh[i]);
            if (hh[i] - H0 > env[b]) env[b] = hh[i] - H0;
            if (H0 - hh[i] > env[nbin + b]) env[nbin + b] = H0 - hh[i];
            if (u > env[2 * nbin + b]) env[2 * nbin + b] = u;
        }
    }
    check(MPI_Reduce(env, genv, 3 * nbin, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "reduce envelope");
    if (rank == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/surge_envelope.txt", outdir);
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
        fprintf(f, "# km_from  km_to  max_rise_m  max_drawdown_m  max_speed_m_s\n");
        double worst = 0.0;
        int wb = 0;
        for (int b = 0; b < nbin; b++) {
            if (fprintf(f, "%8.3f %6.3f %11.4f %15.4f %14.4f\n", b * ENV_BIN * DX / 1000.0,
                        (b + 1) * ENV_BIN * DX / 1000.0, genv[b], genv[nbin + b], genv[2 * nbin + b]) < 0) {
                perror("envelope");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (genv[b] > worst) { worst = genv[b]; wb = b; }
        }
        if (fclose(f) != 0) { perror("close envelope"); MPI_Abort(MPI_COMM_WORLD, 1); }
        printf("canal surge: %d cells on %d ranks, %d steps (%.0f s), %d snapshots\n", NCELL, nprocs, NSTEPS,
               NSTEPS * DT, nsnap);
        printf("  max rise %.3f m at km %.2f\n", worst, (wb + 0.5) * ENV_BIN * DX / 1000.0);
    }
    free(env); free(genv); free(buf);
}

static void open_file(const char *name, int amode, MPI_File *f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    check(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, f), path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    outdir = argv[1];
    init_reach();
    MPI_File fs, fg, fl;
    open_file("surge_snapshots.bin", MPI_MODE_CREATE | MPI_MODE_RDWR, &fs);
    open_file("gauges.bin", MPI_MODE_CREATE | MPI_MODE_WRONLY, &fg);
    open_file("lock_log.txt", MPI_MODE_CREATE | MPI_MODE_WRONLY, &fl);
    if (rank == 0) {
        char hdr[64];
        memset(hdr, 0, sizeof hdr);
        snprintf(hdr, sizeof hdr, "CANALSURGE v1 ncell=%d dx=%.2f dt=%.3f", NCELL, DX, DT);
        check(MPI_File_write_at(fs, 0, hdr, 64, MPI_CHAR, MPI_STATUS_IGNORE), "snapshot header");
    }
    int nsnap = 0, slot = 0, block = 0;
    double smax = 0.0;
    for (int step = 0; step < NSTEPS; step++) {
        double t = step * DT;
        exchange_halos();
        smax = hll_step(t);
        if (smax * DT / DX > 0.95) {
            fprintf(stderr, "rank %d: CFL violated (%.3f)\n", rank, smax * DT / DX);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if ((step + 1) % GAUGEEVERY == 0) sample_gauges(slot++);
        if ((step + 1) % SNAPEVERY == 0) {
            write_snapshot(fs, nsnap++, t + DT);
            flush_gauges(fg, block++);
            slot = 0;
            log_ordered(fl, step + 1, t + DT, smax);
        }
    }
    check(MPI_File_close(&fg), "close gauges");
    check(MPI_File_close(&fl), "close log");
    check(MPI_File_sync(fs), "sync snapshots");
    MPI_Barrier(MPI_COMM_WORLD);
    surge_envelope(fs, nsnap);
    check(MPI_File_close(&fs), "close snapshots");
    free(h); free(q); free(hn); free(qn); free(fh); free(fq); free(manning);
    MPI_Finalize();
    return 0;
}
