/*
 * mpi_harbour_siltation_dredge.c
 *
 * Fine-sediment siltation of a harbour basin and its approach channel under
 * a semi-diurnal tide.  Depth-averaged suspended-sediment transport (upwind
 * advection, diffusion, Partheniades erosion / Krone deposition) with bed
 * level update on a row-decomposed grid (halo exchange between ranks).  A
 * maintenance dredger works the channel every few hours.
 *
 * MPI-IO:
 *   - bed level + concentration snapshots written collectively into one file
 *     through a subarray file view (MPI_File_set_view + MPI_File_write_all);
 *   - cross-channel survey transects at explicit offsets with
 *     MPI_File_write_at_all;
 *   - dredger log lines through the shared file pointer in rank order
 *     (MPI_File_write_ordered);
 *   - at the end the snapshots are re-read column-decomposed
 *     (MPI_File_read_all through a different view) to fit per-cell siltation
 *     trends, which are written with write_at_all, and rank 0 writes a report.
 *
 * usage: mpiexec -n 2 mpi_harbour_siltation_dredge OUTDIR
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 480
#define NY 360
#define DX 10.0
#define DT 7.5
#define NSTEP 480               /* 1 h */
#define SNAP_EVERY 20
#define NSNAP (NSTEP / SNAP_EVERY)
#define DREDGE_EVERY 120
#define NLINE 8
#define HDR_BYTES 64
#define MORFAC 3000.0           /* bed change acceleration factor */
#define PI_D 3.14159265358979323846

typedef struct {
    int rank, size;
    int j0, nyl;                /* owned global rows [j0, j0+nyl) */
    MPI_Comm comm;
} part_t;

/* local arrays carry one halo row above and below */
static float *zb, *cc, *cn, *uu, *vv, *land;
static const char *outdir;

#define IX(i, jl) ((size_t)(jl) * NX + (i))

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "harbour_siltation: %s: %s\n", what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void path_in(char *buf, size_t n, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", outdir, name) >= n) {
        fprintf(stderr, "harbour_siltation: path too long\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* harbour geometry: shoreline in the north, two breakwaters, dredged channel */
static void init_bathymetry(const part_t *p)
{
    for (int jl = 0; jl < p->nyl + 2; jl++) {
        int j = p->j0 + jl - 1;
        for (int i = 0; i < NX; i++) {
            double x = i * DX, y = j * DX;
            double depth = 14.0 - 10.0 * y / (NY * DX);                 /* shoaling to the north */
            int isl = 0;
            if (j >= NY - 40 && (i < 140 || i > 340)) isl = 1;        /* shore either side of basin */
            if (j >= NY - 10) isl = 1;
            if (j >= 200 && j < NY - 40 && (abs(i - 140) < 3 || abs(i - 340) < 3) && !(j < 215 && i > 200)) isl = 1;
            if (j >= 200 && j < 206 && ((i > 140 && i < 215) || (i > 265 && i < 340))) isl = 1;   /* breakwater heads */
            if (fabs(x - 2400.0) < 60.0 && y < 3200.0) depth = fmax(depth, 12.9);              /* channel */
            if (j >= 206 && i > 140 && i < 340) depth = fmax(depth, 11.0);                     /* basin */
            depth += 0.3 * sin(0.05 * i) * cos(0.07 * j);
            land[IX(i, jl)] = (float)isl;
            zb[IX(i, jl)] = (float)(-depth);
            cc[IX(i, jl)] = isl ? 0.0f : 0.05f;
        }
    }
}

/* tidal flow from a streamfunction, blocked by land and weakened in the basin */
static void tidal_velocity(const part_t *p, double t)
{
    double amp = 0.6 * sin(2.0 * PI_D * t / 44712.0 + 0.9);
    for (int jl = 0; jl < p->nyl + 2; jl++) {
        int j = p->j0 + jl - 1;
        for (int i = 0; i < NX; i++) {
            double shelter = (j > 200) ? 0.15 : 1.0;
            double bend = 0.25 * sin(PI_D * j / NY);
            double u = amp * shelter * (1.0 - 0.4 * cos(2.0 * PI_D * i / NX));
            double v = amp * shelter * bend * sin(2.0 * PI_D * i / NX);
            if (j > 205 && i > 150 && i < 330) {   /* basin eddy driven through the entrance */
                double cx = 240.0, cy = 280.0, rx = i - cx, ry = j - cy;
                double r2 = rx * rx + ry * ry;
                u += -0.08 * amp * ry / sqrt(r2 + 100.0);
                v += 0.08 * amp * rx / sqrt(r2 + 100.0);
            }
            if (land[IX(i, jl)] > 0.5f) u = v = 0.0;
            uu[IX(i, jl)] = (float)u;
            vv[IX(i, jl)] = (float)v;
        }
    }
}

static void halo_exchange(const part_t *p, float *a)
{
    int up = p->rank + 1 < p->size ? p->rank + 1 : MPI_PROC_NULL;
    int dn = p->rank > 0 ? p->rank - 1 : MPI_PROC_NULL;
    check(MPI_Sendrecv(&a[IX(0, p->nyl)], NX, MPI_FLOAT, up, 1, &a[IX(0, 0)], NX, MPI_FLOAT, dn, 1, p->comm,
                       MPI_STATUS_IGNORE), "halo up");
    check(MPI_Sendrecv(&a[IX(0, 1)], NX, MPI_FLOAT, dn, 2, &a[IX(0, p->nyl + 1)], NX, MPI_FLOAT, up, 2, p->comm,
                       MPI_STATUS_IGNORE), "halo down");
}

/* advection-diffusion of suspended sediment with erosion / deposition source */
static double transport_step(const part_t *p)
{
    const double kdiff = 1.5, ws = 5e-4, tau_cd = 0.08, tau_ce = 0.45, M = 1.5e-5, rho = 1025.0, cdrag = 0.0025;
    const double rho_dry = 600.0;
    double net_dep = 0.0;
    for (int jl = 1; jl <= p->nyl; jl++) {
        int j = p->j0 + jl - 1;
        for (int i = 0; i < NX; i++) {
            size_t c = IX(i, jl);
            if (land[c] > 0.5f) { cn[c] = 0.0f; continue; }
            int im = i > 0 ? i - 1 : i, ip = i < NX - 1 ? i + 1 : i;
            size_t cs = (j > 0) ? IX(i, jl - 1) : c, cnn = (j < NY - 1) ? IX(i, jl + 1) : c;
            double C = cc[c];
            double cw = land[IX(im, jl)] > 0.5f ? C : cc[IX(im, jl)];
            double ce = land[IX(ip, jl)] > 0.5f ? C : cc[IX(ip, jl)];
            double csv = land[cs] > 0.5f ? C : cc[cs];
            double cnv = land[cnn] > 0.5f ? C : cc[cnn];
            if (i == 0) cw = 0.05;                      /* open boundary: ambient turbidity */
            if (j == 0) csv = 0.05;
            double u = uu[c], v = vv[c];
            double adv = (u > 0 ? u * (C - cw) : u * (ce - C)) / DX + (v > 0 ? v * (C - csv) : v * (cnv - C)) / DX;
            double dif = kdiff * (cw + ce + csv + cnv - 4.0 * C) / (DX * DX);
            double h = -zb[c] > 0.5 ? -zb[c] : 0.5;
            double tau = rho * cdrag * (u * u + v * v);
            double dep = tau < tau_cd ? ws * C * (1.0 - tau / tau_cd) : 0.0;
            double ero = tau > tau_ce ? M * (tau / tau_ce - 1.0) : 0.0;
            double cnew = C + DT * (-adv + dif + (ero - dep) / h);
            cn[c] = (float)(cnew > 0.0 ? cnew : 0.0);
            double dz = DT * (dep - ero) / rho_dry;
            zb[c] += (float)(dz * MORFAC);              /* morphological acceleration */
            net_dep += dz * MORFAC;
        }
    }
    float *t = cc; cc = cn; cn = t;
    return net_dep;
}

/* dredger lowers channel cells shallower than the design depth; log through the shared pointer */
static double dredge_channel(const part_t *p, MPI_File flog, int step)
{
    const double design = -12.5;
    double vol = 0.0;
    int cells = 0;
    for (int jl = 1; jl <= p->nyl; jl++) {
        int j = p->j0 + jl - 1;
        for (int i = 0; i < NX; i++) {
            double x = i * DX, y = j * DX;
            if (!(fabs(x - 2400.0) < 60.0 && y < 3200.0)) continue;
            size_t c = IX(i, jl);
            if (zb[c] > design) { vol += (zb[c] - design + 0.3) * DX * DX; zb[c] = (float)(design - 0.3); cells++; }
        }
    }
    char line[160];
    int n = snprintf(line, sizeof line, "step %6d t=%8.0f s rank %d rows %4d-%4d dredged %5d cells %10.1f m3\n",
                     step, step * DT, p->rank, p->j0, p->j0 + p->nyl - 1, cells, vol);
    check(MPI_File_write_ordered(flog, line, n, MPI_CHAR, MPI_STATUS_IGNORE), "write dredge log");
    return vol;
}

/* snapshot: [2][NY][NX] float32 per record, this rank's rows via a subarray view */
static void write_snapshot(const part_t *p, MPI_File fh, int snap, float *pack)
{
    int gsz[3] = {2, NY, NX}, lsz[3] = {2, p->nyl, NX}, st[3] = {0, p->j0, 0};
    MPI_Datatype ftype;
    check(MPI_Type_create_subarray(3, gsz, lsz, st, MPI_ORDER_C, MPI_FLOAT, &ftype), "subarray");
    check(MPI_Type_commit(&ftype), "commit");
    MPI_Offset disp = HDR_BYTES + (MPI_Offset)snap * 2 * NY * NX * sizeof(float);
    check(MPI_File_set_view(fh, disp, MPI_FLOAT, ftype, "native", MPI_INFO_NULL), "set_view snapshot");
    memcpy(pack, &zb[IX(0, 1)], (size_t)p->nyl * NX * sizeof(float));
    memcpy(pack + (size_t)p->nyl * NX, &cc[IX(0, 1)], (size_t)p->nyl * NX * sizeof(float));
    check(MPI_File_write_all(fh, pack, 2 * p->nyl * NX, MPI_FLOAT, MPI_STATUS_IGNORE), "write_all snapshot");
    MPI_Type_free(&ftype);
}

/* survey transects: [snap][line][NY] float32, each rank its row range */
static void write_survey_lines(const part_t *p, MPI_File fh, int snap)
{
    float buf[NLINE][NY];
    for (int l = 0; l < NLINE; l++) {
        int i = 60 + l * 50;
        for (int jl = 1; jl <= p->nyl; jl++) buf[l][jl - 1] = zb[IX(i, jl)];
    }
    for (int l = 0; l < NLINE; l++) {
        MPI_Offset off = ((MPI_Offset)snap * NLINE * NY + (MPI_Offset)l * NY + p->j0) * sizeof(float);
        check(MPI_File_write_at_all(fh, off, buf[l], p->nyl, MPI_FLOAT, MPI_STATUS_IGNORE), "write survey line");
    }
}

/* re-read all snapshots column-decomposed, fit linear bed trend per cell */
static void siltation_trend(const part_t *p, const char *snap_path, const char *trend_path, double *hist, double *mean_rate)
{
    int i0 = p->rank * NX / p->size, nxl = (p->rank + 1) * NX / p->size - i0;
    MPI_File fh;
    check(MPI_File_open(p->comm, snap_path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "reopen snapshots");
    int gsz[2] = {NY, NX}, lsz[2] = {NY, nxl}, st[2] = {0, i0};
    MPI_Datatype ftype;
    check(MPI_Type_create_subarray(2, gsz, lsz, st, MPI_ORDER_C, MPI_FLOAT, &ftype), "subarray cols");
    check(MPI_Type_commit(&ftype), "commit cols");
    size_t n = (size_t)NY * nxl;
    float *slab = malloc(n * sizeof(float));
    double *sx = calloc(n, sizeof(double)), *sxy = calloc(n, sizeof(double)), *sy = calloc(n, sizeof(double));
    if (!slab || !sx || !sxy || !sy) { fprintf(stderr, "harbour_siltation: malloc\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    double stt = 0.0, st2 = 0.0;
    for (int s = 0; s < NSNAP; s++) {
        /* bed-level field of record s only: skip the concentration plane */
        MPI_Offset disp = HDR_BYTES + (MPI_Offset)s * 2 * NY * NX * sizeof(float);
        check(MPI_File_set_view(fh, disp, MPI_FLOAT, ftype, "native", MPI_INFO_NULL), "view cols");
        check(MPI_File_read_all(fh, slab, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE), "read_all cols");
        double t = (s + 1) * SNAP_EVERY * DT / 3600.0;
        stt += t; st2 += t * t;
        for (size_t k = 0; k < n; k++) { sy[k] += slab[k]; sxy[k] += t * slab[k]; }
    }
    check(MPI_File_close(&fh), "close snapshots");
    double ns = NSNAP, den = ns * st2 - stt * stt, loc_sum = 0.0;
    long loc_n = 0;
    double loc_hist[20] = {0};
    for (size_t k = 0; k < n; k++) {
        double slope = (ns * sxy[k] - stt * sy[k]) / den;      /* m per (accelerated) hour */
        slab[k] = (float)slope;
        if (slope != 0.0) {
            loc_sum += slope; loc_n++;
            int b = (int)floor(slope * 50.0) + 10;
            if (b < 0) b = 0;
            if (b > 19) b = 19;
            loc_hist[b] += 1.0;
        }
    }
    MPI_File ft;
    check(MPI_File_open(p->comm, trend_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &ft), "open trend");
    check(MPI_File_set_view(ft, 0, MPI_FLOAT, ftype, "native", MPI_INFO_NULL), "view trend");
    check(MPI_File_write_at_all(ft, 0, slab, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE), "write trend");
    check(MPI_File_close(&ft), "close trend");
    MPI_Type_free(&ftype);
    double tot[2] = {loc_sum, (double)loc_n}, gtot[2];
    check(MPI_Reduce(loc_hist, hist, 20, MPI_DOUBLE, MPI_SUM, 0, p->comm), "reduce hist");
    check(MPI_Reduce(tot, gtot, 2, MPI_DOUBLE, MPI_SUM, 0, p->comm), "reduce mean");
    *mean_rate = p->rank == 0 && gtot[1] > 0 ? gtot[0] / gtot[1] : 0.0;
    free(slab); free(sx); free(sxy); free(sy);
}

static void write_report(const part_t *p, const double *hist, double mean_rate, double dredged, double dep)
{
    if (p->rank != 0) return;
    char path[4096];
    path_in(path, sizeof path, "siltation_report.txt");
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    int ok = fprintf(f, "harbour siltation: %dx%d cells, %d steps, %d snapshots\n", NX, NY, NSTEP, NSNAP) >= 0;
    ok = ok && fprintf(f, "mean bed trend %.5f m/h (accelerated), net deposition %.1f m, dredged %.1f m3\n",
                       mean_rate, dep, dredged) >= 0;
    for (int b = 0; b < 20 && ok; b++)
        ok = fprintf(f, "trend %+6.3f..%+6.3f m/h %9.0f cells\n", (b - 10) / 50.0, (b - 9) / 50.0, hist[b]) >= 0;
    if (!ok || fclose(f) != 0) { perror("report"); MPI_Abort(MPI_COMM_WORLD, 1); }
    printf("harbour siltation: %d steps on %d ranks, dredged %.0f m3, mean bed trend %.4f m/h\n", NSTEP, p->size,
           dredged, mean_rate);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    part_t p;
    p.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(p.comm, &p.rank);
    MPI_Comm_size(p.comm, &p.size);
    if (argc != 2) {
        if (p.rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    outdir = argv[1];
    MPI_Comm_set_errhandler(p.comm, MPI_ERRORS_RETURN);
    p.j0 = p.rank * NY / p.size;
    p.nyl = (p.rank + 1) * NY / p.size - p.j0;
    size_t nloc = (size_t)(p.nyl + 2) * NX;
    zb = calloc(nloc, sizeof(float)); cc = calloc(nloc, sizeof(float)); cn = calloc(nloc, sizeof(float));
    uu = calloc(nloc, sizeof(float)); vv = calloc(nloc, sizeof(float)); land = calloc(nloc, sizeof(float));
    float *pack = malloc(2 * (size_t)p.nyl * NX * sizeof(float));
    if (!zb || !cc || !cn || !uu || !vv || !land || !pack) { fprintf(stderr, "malloc\n"); MPI_Abort(p.comm, 1); }

    char snap_path[4096], survey_path[4096], log_path[4096], trend_path[4096];
    path_in(snap_path, sizeof snap_path, "bed_snapshots.f32");
    path_in(survey_path, sizeof survey_path, "survey_transects.f32");
    path_in(log_path, sizeof log_path, "dredge_log.txt");
    path_in(trend_path, sizeof trend_path, "bed_trend.f32");

    MPI_File fsnap, fsurv, flog;
    check(MPI_File_open(p.comm, snap_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fsnap), "open snapshots");
    check(MPI_File_open(p.comm, survey_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fsurv), "open survey");
    check(MPI_File_open(p.comm, log_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &flog), "open log");
    if (p.rank == 0) {
        char hdr[HDR_BYTES];
        memset(hdr, 0, sizeof hdr);
        snprintf(hdr, sizeof hdr, "HARBOURSNAP nx=%d ny=%d nsnap=%d dx=%.1f", NX, NY, NSNAP, DX);
        check(MPI_File_write_at(fsnap, 0, hdr, HDR_BYTES, MPI_CHAR, MPI_STATUS_IGNORE), "snapshot header");
    }

    init_bathymetry(&p);
    double dredged = 0.0, dep = 0.0;
    int snap = 0;
    for (int n = 1; n <= NSTEP; n++) {
        if (n % 5 == 1) tidal_velocity(&p, n * DT * 40.0);   /* tide runs 40x faster: morphological time */
        halo_exchange(&p, cc);
        halo_exchange(&p, zb);
        dep += transport_step(&p);
        if (n % DREDGE_EVERY == 0) dredged += dredge_channel(&p, flog, n);
        if (n % SNAP_EVERY == 0) {
            write_snapshot(&p, fsnap, snap, pack);
            write_survey_lines(&p, fsurv, snap);
            snap++;
        }
    }
    check(MPI_File_close(&fsnap), "close snapshots");
    check(MPI_File_close(&fsurv), "close survey");
    check(MPI_File_close(&flog), "close log");

    double gd[2], ld[2] = {dredged, dep};
    check(MPI_Allreduce(ld, gd, 2, MPI_DOUBLE, MPI_SUM, p.comm), "allreduce");
    double hist[20] = {0}, mean_rate = 0.0;
    siltation_trend(&p, snap_path, trend_path, hist, &mean_rate);
    write_report(&p, hist, mean_rate, gd[0], gd[1]);

    free(zb); free(cc); free(cn); free(uu); free(vv); free(land); free(pack);
    MPI_Finalize();
    return 0;
}
