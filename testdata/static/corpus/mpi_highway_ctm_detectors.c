/*
 * mpi_highway_ctm_detectors.c
 *
 * Macroscopic motorway traffic on 32 independent corridors with the
 * cell transmission model (Godunov scheme for the LWR equation with a
 * triangular fundamental diagram): a morning-peak demand at the upstream end,
 * on- and off-ramps every 5 km, lane drops on some corridors and a temporary
 * incident on others.  The road axis is split between the MPI ranks, ghost
 * cells are exchanged every step.
 *
 * I/O (MPI-IO, one shared file each):
 *   - density snapshots every 90 s: a subarray file view selects the rank's
 *     x-range of the [road][x] plane, written with MPI_File_write_all;
 *   - 5-minute loop-detector aggregates (flow, occupancy, speed) written with
 *     MPI_File_write_at_all at explicit offsets;
 *   - after the run the snapshots are re-read road-decomposed through a
 *     strided vector view (MPI_File_read_all) to compute travel times and
 *     queue lengths, the detector file is re-read with MPI_File_read_at_all
 *     to estimate capacities, and one summary line per road is written with
 *     MPI_File_write_ordered.
 *
 * usage: mpiexec -n 2 mpi_highway_ctm_detectors OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR 32          /* corridors */
#define NX 2000        /* cells of DX metres */
#define DX 50.0
#define DT 1.5         /* s, CFL = VF*DT/DX = 0.9 */
#define NSTEPS 2400    /* one hour */
#define SNAP_EVERY 60
#define NSNAP (NSTEPS / SNAP_EVERY)
#define DET_SPACING 20 /* one loop detector every 1 km */
#define NDET (NX / DET_SPACING)
#define AGG_STEPS 200  /* 5 minutes */
#define NAGG (NSTEPS / AGG_STEPS)
#define VF 30.0        /* free-flow speed m/s */
#define WB 6.0         /* backward wave speed m/s */
#define RHOJ 0.45      /* jam density veh/m (3 lanes) */
#define HDR 4096
#define QMAX (VF * WB * RHOJ / (VF + WB)) /* capacity veh/s */

typedef struct {
    int rank, nprocs, nxl, x0;
    int left, right;
    double *rho;    /* [NR][nxl+2] with ghosts */
    double *cap;    /* [NR][nxl+2] cell capacity veh/s */
    double *flux;   /* [NR][nxl+1] interface fluxes */
    float *det_acc; /* [ndl][NR][3] flow, density, speed sums */
    int ndl, d0;    /* local detectors */
} Domain;

static const char *outdir;

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "mpi_highway_ctm_detectors: %s failed: %s\n", what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n, s);
    if (!p) {
        fprintf(stderr, "mpi_highway_ctm_detectors: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Capacities: lane drop 3->2 lanes at 60 km on every third corridor. */
static void init_roads(Domain *d)
{
    int w = d->nxl + 2;
    for (int r = 0; r < NR; r++) {
        for (int i = 0; i < w; i++) {
            int gx = d->x0 + i - 1;
            double c = QMAX;
            if (r % 3 == 0 && gx >= 1200) c *= 2.0 / 3.0;
            d->cap[r * w + i] = c;
            d->rho[r * w + i] = 0.01 + 0.002 * (r % 5);
        }
    }
    memset(d->det_acc, 0, sizeof(float) * (size_t)d->ndl * NR * 3);
}

static double upstream_demand(int r, double t)
{
    double peak = exp(-((t - 1200.0 - 20.0 * r) / 700.0) * ((t - 1200.0 - 20.0 * r) / 700.0));
    return QMAX * (0.45 + 0.004 * r + (0.40 + 0.003 * r) * peak);
}

static void exchange_halos(Domain *d)
{
    int w = d->nxl + 2;
    static double sendl[NR], sendr[NR], recvl[NR], recvr[NR];
    for (int r = 0; r < NR; r++) {
        sendl[r] = d->rho[r * w + 1];
        sendr[r] = d->rho[r * w + d->nxl];
    }
    check(MPI_Sendrecv(sendr, NR, MPI_DOUBLE, d->right, 1, recvl, NR, MPI_DOUBLE, d->left, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Sendrecv right");
    check(MPI_Sendrecv(sendl, NR, MPI_DOUBLE, d->left, 2, recvr, NR, MPI_DOUBLE, d->right, 2,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE), "Sendrecv left");
    for (int r = 0; r < NR; r++) {
        if (d->left != MPI_PROC_NULL) d->rho[r * w] = recvl[r];
        if (d->right != MPI_PROC_NULL) d->rho[r * w + d->nxl + 1] = recvr[r];
    }
}

/* Godunov fluxes (demand/supply), ramps, incidents; density update. */
static void ctm_step(Domain *d, int step)
{
    int w = d->nxl + 2;
    double t = step * DT;
    for (int r = 0; r < NR; r++) {
        double *rho = d->rho + (size_t)r * w;
        double *cap = d->cap + (size_t)r * w;
        double *f = d->flux + (size_t)r * (d->nxl + 1);
        int incident = (r % 4 == 1) && t > 600.0 && t < 1500.0;
        for (int i = 0; i <= d->nxl; i++) { /* interface between cell i and i+1 */
            int gx = d->x0 + i; /* global index of right cell */
            double cu = cap[i], cd = cap[i + 1];
            if (incident && gx == 800) cd *= 0.35;
            double demand, supply;
            if (gx == 0) {
                demand = upstream_demand(r, t);
            } else {
                demand = VF * rho[i];
                if (demand > cu) demand = cu;
            }
            if (gx == NX) {
                supply = cd;
            } else {
                supply = WB * (RHOJ - rho[i + 1]);
                if (supply > cd) supply = cd;
            }
            f[i] = demand < supply ? demand : supply;
        }
        for (int i = 1; i <= d->nxl; i++) {
            int gx = d->x0 + i - 1;
            double ramp = 0.0;
            if (gx % 100 == 50) { /* on-ramp, limited by remaining supply */
                double sup = WB * (RHOJ - rho[i]) - f[i - 1];
                double q = 0.08 + 0.06 * exp(-((t - 1700.0) / 900.0) * ((t - 1700.0) / 900.0));
                ramp = q < sup ? q : (sup > 0 ? sup : 0);
            } else if (gx % 100 == 99) { /* off-ramp takes 6 % of the outflow */
                ramp = -0.06 * f[i];
            }
            rho[i] += DT / DX * (f[i - 1] - f[i] + ramp);
            if (rho[i] < 0.0) rho[i] = 0.0;
            if (rho[i] > RHOJ) rho[i] = RHOJ;
        }
    }
}

static void accumulate_detectors(Domain *d)
{
    int w = d->nxl + 2;
    for (int k = 0; k < d->ndl; k++) {
        int gx = (d->d0 + k) * DET_SPACING + DET_SPACING / 2;
        int i = gx - d->x0 + 1;
        for (int r = 0; r < NR; r++) {
            double rho = d->rho[r * w + i];
            double q = d->flux[r * (d->nxl + 1) + i];
            float *a = d->det_acc + ((size_t)k * NR + r) * 3;
            a[0] += (float)q;
            a[1] += (float)rho;
            a[2] += (float)(rho > 1e-6 ? q / rho : VF);
        }
    }
}

static void file_name(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", outdir, name);
}

static void write_header(MPI_File fh, const char *magic, int rank, const int *dims, int ndims)
{
    if (rank != 0) return;
    char hdr[HDR];
    memset(hdr, 0, sizeof hdr);
    int len = snprintf(hdr, sizeof hdr, "%s\n", magic);
    for (int k = 0; k < ndims; k++) len += snprintf(hdr + len, sizeof hdr - len, "%d ", dims[k]);
    snprintf(hdr + len, sizeof hdr - len, "\ndx=%g dt=%g vf=%g w=%g rhoj=%g\n", DX, DT, VF, WB, RHOJ);
    check(MPI_File_write_at(fh, 0, hdr, HDR, MPI_CHAR, MPI_STATUS_IGNORE), "write header");
}

/* Collective snapshot write through a subarray view of the [NR][NX] plane. */
static void write_snapshot(MPI_File fh, MPI_Datatype plane_view, const Domain *d, int isnap,
                           float *buf)
{
    int w = d->nxl + 2;
    for (int r = 0; r < NR; r++)
        for (int i = 0; i < d->nxl; i++) buf[(size_t)r * d->nxl + i] = (float)d->rho[r * w + i + 1];
    MPI_Offset disp = HDR + (MPI_Offset)isnap * NR * NX * sizeof(float);
    check(MPI_File_set_view(fh, disp, MPI_FLOAT, plane_view, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, buf, NR * d->nxl, MPI_FLOAT, MPI_STATUS_IGNORE), "write_all");
}

/* Detector aggregates: layout [interval][detector][road][3], rank-contiguous. */
static void write_detectors(MPI_File fh, Domain *d, int iagg)
{
    size_t n = (size_t)d->ndl * NR * 3;
    for (size_t k = 0; k < n; k++) d->det_acc[k] /= (float)AGG_STEPS;
    for (size_t k = 0; k < n; k += 3) d->det_acc[k] *= 3600.0f; /* veh/h */
    MPI_Offset off = HDR + (((MPI_Offset)iagg * NDET + d->d0) * NR * 3) * (MPI_Offset)sizeof(float);
    check(MPI_File_write_at_all(fh, off, d->det_acc, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE),
          "write_at_all detectors");
    memset(d->det_acc, 0, n * sizeof(float));
}

typedef struct {
    double tt_max, tt_free, queue_max_km, veh_hours;
    double cap_est;
} RoadStats;

/* Re-read the snapshots for this rank's roads (every nprocs-th road) via a
 * strided vector view, and derive travel times and queue lengths. */
static void analyse_snapshots(const Domain *d, RoadStats *st, int nmine)
{
    char path[600];
    file_name(path, sizeof path, "density_snapshots.bin");
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open snapshots");
    MPI_Datatype vec;
    check(MPI_Type_vector(nmine, NX, NX * d->nprocs, MPI_FLOAT, &vec), "Type_vector");
    check(MPI_Type_commit(&vec), "Type_commit");
    float *buf = xcalloc((size_t)nmine * NX, sizeof(float));
    const double rhoc = WB * RHOJ / (VF + WB);
    for (int k = 0; k < nmine; k++) {
        st[k].tt_max = 0; st[k].queue_max_km = 0; st[k].veh_hours = 0;
        st[k].tt_free = NX * DX / VF;
    }
    for (int s = 0; s < NSNAP; s++) {
        MPI_Offset disp = HDR + ((MPI_Offset)s * NR + d->rank) * NX * (MPI_Offset)sizeof(float);
        check(MPI_File_set_view(fh, disp, MPI_FLOAT, vec, "native", MPI_INFO_NULL), "set_view read");
        check(MPI_File_read_all(fh, buf, nmine * NX, MPI_FLOAT, MPI_STATUS_IGNORE), "read_all");
        for (int k = 0; k < nmine; k++) {
            const float *rho = buf + (size_t)k * NX;
            double tt = 0, veh = 0;
            int qcells = 0, run = 0;
            for (int i = 0; i < NX; i++) {
                double v = rho[i] <= rhoc ? VF : WB * (RHOJ - rho[i]) / rho[i];
                if (v < 0.5) v = 0.5;
                tt += DX / v;
                veh += rho[i] * DX;
                if (rho[i] > rhoc * 1.05) { run++; if (run > qcells) qcells = run; }
                else run = 0;
            }
            if (tt > st[k].tt_max) st[k].tt_max = tt;
            if (qcells * DX / 1000.0 > st[k].queue_max_km) st[k].queue_max_km = qcells * DX / 1000.0;
            st[k].veh_hours += veh * SNAP_EVERY * DT / 3600.0;
        }
    }
    check(MPI_Type_free(&vec), "Type_free");
    free(buf);
    check(MPI_File_close(&fh), "close snapshots");
}

/* Re-read this rank's detector blocks; capacity = max 5-min flow of each road
 * over the detectors upstream of bottlenecks. */
static void analyse_detectors(const Domain *d, double *cap_by_road)
{
    char path[600];
    file_name(path, sizeof path, "loop_detectors.bin");
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open detectors");
    size_t n = (size_t)d->ndl * NR * 3;
    float *buf = xcalloc(n, sizeof(float));
    double local[NR];
    for (int r = 0; r < NR; r++) local[r] = 0;
    for (int a = 0; a < NAGG; a++) {
        MPI_Offset off = HDR + (((MPI_Offset)a * NDET + d->d0) * NR * 3) * (MPI_Offset)sizeof(float);
        check(MPI_File_read_at_all(fh, off, buf, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE), "read_at_all");
        for (int k = 0; k < d->ndl; k++)
            for (int r = 0; r < NR; r++) {
                double q = buf[((size_t)k * NR + r) * 3];
                if (q > local[r]) local[r] = q;
            }
    }
    check(MPI_Allreduce(local, cap_by_road, NR, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "Allreduce");
    free(buf);
    check(MPI_File_close(&fh), "close detectors");
}

static void write_road_summary(const Domain *d, const RoadStats *st, int nmine, const double *cap)
{
    char path[600];
    file_name(path, sizeof path, "road_summary.txt");
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
          "open summary");
    check(MPI_File_set_size(fh, 0), "set_size");
    char *text = xcalloc((size_t)nmine * 160 + 1, 1);
    int len = 0;
    for (int k = 0; k < nmine; k++) {
        int r = d->rank + k * d->nprocs;
        len += snprintf(text + len, 160,
                        "road %2d  tt_free %6.1f min  tt_max %6.1f min  queue_max %6.2f km  "
                        "veh_h %8.1f  cap %6.0f veh/h\n",
                        r, st[k].tt_free / 60.0, st[k].tt_max / 60.0, st[k].queue_max_km,
                        st[k].veh_hours, cap[r]);
    }
    check(MPI_File_write_ordered(fh, text, len, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
    free(text);
    check(MPI_File_close(&fh), "close summary");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Domain d;
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.nprocs);
    if (argc != 2) {
        if (d.rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    outdir = argv[1];
    if (NR % d.nprocs != 0 || NDET % d.nprocs != 0) {
        if (d.rank == 0) fprintf(stderr, "rank count must divide %d and %d\n", NR, NDET);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);

    d.ndl = NDET / d.nprocs;
    d.d0 = d.rank * d.ndl;
    d.nxl = NX / d.nprocs;
    d.x0 = d.rank * d.nxl;
    d.left = d.rank > 0 ? d.rank - 1 : MPI_PROC_NULL;
    d.right = d.rank < d.nprocs - 1 ? d.rank + 1 : MPI_PROC_NULL;
    d.rho = xcalloc((size_t)NR * (d.nxl + 2), sizeof(double));
    d.cap = xcalloc((size_t)NR * (d.nxl + 2), sizeof(double));
    d.flux = xcalloc((size_t)NR * (d.nxl + 1), sizeof(double));
    d.det_acc = xcalloc((size_t)d.ndl * NR * 3, sizeof(float));
    float *snapbuf = xcalloc((size_t)NR * d.nxl, sizeof(float));
    init_roads(&d);

    char path[600];
    MPI_File fsnap, fdet;
    file_name(path, sizeof path, "density_snapshots.bin");
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fsnap), "open snapshots");
    file_name(path, sizeof path, "loop_detectors.bin");
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fdet), "open detectors");
    int sdims[3] = {NSNAP, NR, NX}, ddims[4] = {NAGG, NDET, NR, 3};
    write_header(fsnap, "CTM-DENSITY float32 [snapshot][road][cell] veh/m", d.rank, sdims, 3);
    write_header(fdet, "CTM-LOOPS float32 [interval][detector][road][flow,density,speed]", d.rank,
                 ddims, 4);

    int gsizes[2] = {NR, NX}, lsizes[2] = {NR, d.nxl}, starts[2] = {0, d.x0};
    MPI_Datatype plane_view;
    check(MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_FLOAT, &plane_view),
          "subarray");
    check(MPI_Type_commit(&plane_view), "commit");

    double t0 = MPI_Wtime();
    int isnap = 0, iagg = 0;
    for (int step = 1; step <= NSTEPS; step++) {
        exchange_halos(&d);
        ctm_step(&d, step);
        accumulate_detectors(&d);
        if (step % SNAP_EVERY == 0) write_snapshot(fsnap, plane_view, &d, isnap++, snapbuf);
        if (step % AGG_STEPS == 0) write_detectors(fdet, &d, iagg++);
    }
    check(MPI_File_close(&fsnap), "close snapshots");
    check(MPI_File_close(&fdet), "close detectors");
    check(MPI_Type_free(&plane_view), "Type_free");
    double t1 = MPI_Wtime();

    int nmine = NR / d.nprocs;
    RoadStats *st = xcalloc((size_t)nmine, sizeof(RoadStats));
    double cap[NR];
    analyse_snapshots(&d, st, nmine);
    analyse_detectors(&d, cap);
    write_road_summary(&d, st, nmine, cap);

    double worst = 0, gworst;
    for (int k = 0; k < nmine; k++)
        if (st[k].tt_max > worst) worst = st[k].tt_max;
    MPI_Reduce(&worst, &gworst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (d.rank == 0)
        printf("CTM: %d corridors x %d cells, %d steps on %d ranks (%.2f s); %d snapshots, %d "
               "detector intervals; worst travel time %.1f min\n",
               NR, NX, NSTEPS, d.nprocs, t1 - t0, isnap, iagg, gworst / 60.0);
    free(d.rho); free(d.cap); free(d.flux); free(d.det_acc); free(snapbuf); free(st);
    MPI_Finalize();
    return 0;
}
