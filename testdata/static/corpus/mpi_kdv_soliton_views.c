/*
 * mpi_kdv_soliton_views.c
 *
 * Ensemble of Korteweg-de Vries two-soliton collisions, u_t + 6 u u_x +
 * u_xxx = 0 on a periodic domain, integrated with RK4 and a conservative
 * (Zabusky-Kruskal style) finite-difference scheme.  The x axis is split
 * across MPI ranks with eight ghost cells per side, so that all four RK
 * stages can be evaluated on a shrinking extended region after a single
 * halo exchange per time step (communication-avoiding RK4).
 *
 * MPI-IO usage:
 *   - rank 0 writes a fixed-size header with MPI_File_write_at;
 *   - every SNAP_EVERY steps all ranks write the global [member][x] field
 *     collectively (MPI_File_set_view with a subarray filetype, a subarray
 *     memory type that skips ghost cells, MPI_File_write_all);
 *   - per-rank local peak lines go to a shared text log through
 *     MPI_File_write_ordered;
 *   - post-processing re-opens the field file, re-decomposes by member and
 *     reads contiguous member rows of every snapshot with independent
 *     MPI_File_read_at, tracks the tall soliton and fits its speed;
 *     results are written with MPI_File_write_at_all.
 *
 * usage: mpirun -np 2 mpi_kdv_soliton_views DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <mpi.h>

#define NMEM       64
#define NX         1024
#define DX         0.35
#define DT         0.03
#define NSTEPS     1200
#define SNAP_EVERY 12
#define NG         8     /* 2 cells per RK stage: one halo exchange per step */
#define HEADER_BYTES 1024

typedef struct {
    int rank, nprocs, left, right;
    int nloc, x0;       /* interior points owned and global start index */
    int stride;         /* nloc + 2*NG */
} decomp_t;

typedef struct {
    int member;
    double kappa, c_theory, c_fit, peak_mean;
} speed_rec_t;

static void die(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "%s: %s\n", what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double member_kappa(int m) { return 0.55 + 0.45 * m / (NMEM - 1); }

static void init_fields(const decomp_t *d, double *u)
{
    const double L = NX * DX, k2 = 0.45;
    for (int m = 0; m < NMEM; m++) {
        double k1 = member_kappa(m);
        for (int i = 0; i < d->nloc; i++) {
            double x = (d->x0 + i) * DX;
            double a = 0.0;
            for (int img = -1; img <= 1; img++) { /* periodic images */
                double s1 = 1.0 / cosh(k1 * (x - 0.15 * L + img * L));
                double s2 = 1.0 / cosh(k2 * (x - 0.45 * L + img * L));
                a += 2.0 * k1 * k1 * s1 * s1 + 2.0 * k2 * k2 * s2 * s2;
            }
            u[m * d->stride + NG + i] = a;
        }
    }
}

/* Exchange NG ghost columns of every member with both neighbours. */
static void halo_exchange(const decomp_t *d, double *u, double *sbuf, double *rbuf)
{
    const int n = NMEM * NG;
    for (int m = 0; m < NMEM; m++)
        for (int g = 0; g < NG; g++) sbuf[m * NG + g] = u[m * d->stride + NG + g];          /* to left */
    MPI_Sendrecv(sbuf, n, MPI_DOUBLE, d->left, 1, rbuf, n, MPI_DOUBLE, d->right, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int m = 0; m < NMEM; m++)
        for (int g = 0; g < NG; g++) u[m * d->stride + NG + d->nloc + g] = rbuf[m * NG + g];
    for (int m = 0; m < NMEM; m++)
        for (int g = 0; g < NG; g++) sbuf[m * NG + g] = u[m * d->stride + d->nloc + g];       /* to right */
    MPI_Sendrecv(sbuf, n, MPI_DOUBLE, d->right, 2, rbuf, n, MPI_DOUBLE, d->left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int m = 0; m < NMEM; m++)
        for (int g = 0; g < NG; g++) u[m * d->stride + g] = rbuf[m * NG + g];
}

/* RHS on local columns [lo, hi) (ghost-inclusive indexing). */
static void kdv_rhs(const decomp_t *d, const double *u, double *du, int lo, int hi)
{
    const double c1 = 1.0 / DX, c3 = 1.0 / (2.0 * DX * DX * DX);
    for (int m = 0; m < NMEM; m++) {
        const double *r = u + m * d->stride;
        double *o = du + m * d->stride;
        for (int i = lo; i < hi; i++) {
            double nonlin = (r[i + 1] + r[i] + r[i - 1]) * (r[i + 1] - r[i - 1]) * c1;  /* = 6 u u_x */
            double disp = (r[i + 2] - 2.0 * r[i + 1] + 2.0 * r[i - 1] - r[i - 2]) * c3;
            o[i] = -nonlin - disp;
        }
    }
}

/* One exchange, then stage s is evaluated on [2(s+1), stride - 2(s+1)),
 * which ends exactly on the interior for the fourth stage. */
static void rk4_step(const decomp_t *d, double *u, double *work, double *sbuf, double *rbuf)
{
    size_t n = (size_t)NMEM * d->stride;
    double *k = work, *acc = work + n, *tmp = work + 2 * n;
    static const double a[4] = {0.0, 0.5, 0.5, 1.0}, b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    halo_exchange(d, u, sbuf, rbuf);
    memcpy(tmp, u, n * sizeof(double));
    memset(acc, 0, n * sizeof(double));
    for (int s = 0; s < 4; s++) {
        int lo = 2 * (s + 1), hi = d->stride - 2 * (s + 1);
        if (s > 0)
            for (int m = 0; m < NMEM; m++)
                for (int i = lo - 2; i < hi + 2; i++) {
                    size_t j = (size_t)m * d->stride + i;
                    tmp[j] = u[j] + a[s] * DT * k[j];
                }
        kdv_rhs(d, tmp, k, lo, hi);
        for (int m = 0; m < NMEM; m++)
            for (int i = lo; i < hi; i++) acc[(size_t)m * d->stride + i] += b[s] * k[(size_t)m * d->stride + i];
    }
    for (int m = 0; m < NMEM; m++)
        for (int i = NG; i < NG + d->nloc; i++) u[m * d->stride + i] += DT * acc[m * d->stride + i];
}

/* Mass, momentum (L2) and Hamiltonian per member, globally reduced. */
static void invariants(const decomp_t *d, const double *u, double *glob /* [NMEM][3] */)
{
    double loc[NMEM * 3];
    for (int m = 0; m < NMEM; m++) {
        const double *r = u + m * d->stride;
        double ms = 0, p = 0, h = 0;
        for (int i = NG; i < NG + d->nloc; i++) {
            double ux = (r[i + 1] - r[i - 1]) / (2 * DX);
            ms += r[i];
            p += r[i] * r[i];
            h += r[i] * r[i] * r[i] - 0.5 * ux * ux;
        }
        loc[3 * m] = ms * DX; loc[3 * m + 1] = p * DX; loc[3 * m + 2] = h * DX;
    }
    MPI_Allreduce(loc, glob, NMEM * 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static void write_header(MPI_File fh, int rank, int nsnap)
{
    if (rank != 0) return;
    char hdr[HEADER_BYTES];
    memset(hdr, 0, sizeof hdr);
    int n = snprintf(hdr, sizeof hdr,
                     "KDVENS v1\nnmem %d\nnx %d\ndx %.6f\ndt %.6f\nsnap_every %d\nnsnap %d\nlayout double[nsnap][nmem][nx]\n",
                     NMEM, NX, DX, DT, SNAP_EVERY, nsnap);
    (void)n;
    die(MPI_File_write_at(fh, 0, hdr, HEADER_BYTES, MPI_CHAR, MPI_STATUS_IGNORE), "header write");
}

static void write_snapshot(const decomp_t *d, MPI_File fh, MPI_Datatype filetype, MPI_Datatype memtype,
                           int snap, const double *u)
{
    MPI_Offset disp = HEADER_BYTES + (MPI_Offset)snap * NMEM * NX * sizeof(double);
    die(MPI_File_set_view(fh, disp, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL), "set_view");
    die(MPI_File_write_all(fh, u, 1, memtype, MPI_STATUS_IGNORE), "write_all");
    (void)d;
}

static void log_local_peaks(const decomp_t *d, MPI_File logf, int step, const double *u)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "step %6d rank %d x[%d,%d)", step, d->rank, d->x0, d->x0 + d->nloc);
    for (int m = 0; m < NMEM; m++) {
        double mx = -1e30;
        for (int i = NG; i < NG + d->nloc; i++)
            if (u[m * d->stride + i] > mx) mx = u[m * d->stride + i];
        n += snprintf(line + n, sizeof line - n, " %.4f", mx);
    }
    line[n++] = '\n';
    die(MPI_File_write_ordered(logf, line, n, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
}

/* Member-decomposed re-read of all snapshots; track the tall soliton. */
static int analyse_speeds(const decomp_t *d, const char *field_path, const char *out_path, int nsnap,
                          speed_rec_t *recs)
{
    MPI_File fh;
    die(MPI_File_open(MPI_COMM_WORLD, field_path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open field");
    int per = NMEM / d->nprocs, m0 = d->rank * per, m1 = d->rank == d->nprocs - 1 ? NMEM : m0 + per;
    int nm = m1 - m0;
    double *rows = malloc(sizeof(double) * nm * NX);
    memset(recs, 0, sizeof(speed_rec_t) * nm); /* deterministic struct padding on disk */
    double *pos = malloc(sizeof(double) * nm * nsnap), *pk = malloc(sizeof(double) * nm * nsnap);
    for (int s = 0; s < nsnap; s++) {
        MPI_Offset off = HEADER_BYTES + ((MPI_Offset)s * NMEM + m0) * NX * sizeof(double);
        die(MPI_File_read_at(fh, off, rows, nm * NX, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_at");
        for (int j = 0; j < nm; j++) {
            const double *r = rows + (size_t)j * NX;
            int im = 0;
            for (int i = 1; i < NX; i++)
                if (r[i] > r[im]) im = i;
            double ym = r[(im - 1 + NX) % NX], y0 = r[im], yp = r[(im + 1) % NX];
            double den = ym - 2 * y0 + yp;
            double frac = den != 0.0 ? 0.5 * (ym - yp) / den : 0.0;
            pos[j * nsnap + s] = (im + frac) * DX;
            pk[j * nsnap + s] = y0;
        }
    }
    MPI_File_close(&fh);
    const double L = NX * DX, tsnap = SNAP_EVERY * DT;
    for (int j = 0; j < nm; j++) {
        /* unwrap the periodic track, then least squares x = x0 + c t */
        double shift = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, pmean = 0;
        for (int s = 0; s < nsnap; s++) {
            if (s > 0 && pos[j * nsnap + s] + shift < pos[j * nsnap + s - 1] - 0.5 * L) shift += L;
            pos[j * nsnap + s] += shift;
            double t = s * tsnap, x = pos[j * nsnap + s];
            sx += t; sy += x; sxx += t * t; sxy += t * x;
            pmean += pk[j * nsnap + s];
        }
        int m = m0 + j;
        recs[j].member = m;
        recs[j].kappa = member_kappa(m);
        recs[j].c_theory = 4.0 * recs[j].kappa * recs[j].kappa;
        recs[j].c_fit = (nsnap * sxy - sx * sy) / (nsnap * sxx - sx * sx);
        recs[j].peak_mean = pmean / nsnap;
    }
    MPI_File out;
    die(MPI_File_open(MPI_COMM_WORLD, out_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &out), "open out");
    die(MPI_File_set_size(out, 0), "truncate");
    MPI_Offset off = (MPI_Offset)m0 * sizeof(speed_rec_t);
    die(MPI_File_write_at_all(out, off, recs, nm * (int)sizeof(speed_rec_t), MPI_BYTE, MPI_STATUS_IGNORE),
        "write_at_all");
    MPI_File_close(&out);
    free(rows); free(pos); free(pk);
    return nm;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    decomp_t d;
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.nprocs);
    if (argc != 2 || NX % d.nprocs != 0) {
        if (d.rank == 0) fprintf(stderr, "usage: %s DIR (NX divisible by ranks)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    d.nloc = NX / d.nprocs;
    d.x0 = d.rank * d.nloc;
    d.stride = d.nloc + 2 * NG;
    d.left = (d.rank - 1 + d.nprocs) % d.nprocs;
    d.right = (d.rank + 1) % d.nprocs;

    if (d.rank == 0) mkdir(argv[1], 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    char field_path[512], log_path[512], inv_path[512], speed_path[512];
    snprintf(field_path, sizeof field_path, "%s/ensemble_u.dat", argv[1]);
    snprintf(log_path, sizeof log_path, "%s/local_peaks.log", argv[1]);
    snprintf(inv_path, sizeof inv_path, "%s/invariants.txt", argv[1]);
    snprintf(speed_path, sizeof speed_path, "%s/soliton_speeds.bin", argv[1]);

    size_t n = (size_t)NMEM * d.stride;
    double *u = calloc(n, sizeof(double)), *work = calloc(3 * n, sizeof(double));
    double *sbuf = malloc(sizeof(double) * NMEM * NG), *rbuf = malloc(sizeof(double) * NMEM * NG);
    init_fields(&d, u);

    int gsz[2] = {NMEM, NX}, lsz[2] = {NMEM, d.nloc}, gst[2] = {0, d.x0};
    int msz[2] = {NMEM, d.stride}, mst[2] = {0, NG};
    MPI_Datatype filetype, memtype;
    MPI_Type_create_subarray(2, gsz, lsz, gst, MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Type_create_subarray(2, msz, lsz, mst, MPI_ORDER_C, MPI_DOUBLE, &memtype);
    MPI_Type_commit(&filetype);
    MPI_Type_commit(&memtype);

    MPI_File fh, logf;
    die(MPI_File_open(MPI_COMM_WORLD, field_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open field");
    die(MPI_File_set_size(fh, 0), "truncate field");
    die(MPI_File_open(MPI_COMM_WORLD, log_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &logf), "open log");
    die(MPI_File_set_size(logf, 0), "truncate log");
    int nsnap = NSTEPS / SNAP_EVERY + 1;
    write_header(fh, d.rank, nsnap);

    FILE *inv = NULL;
    if (d.rank == 0) {
        inv = fopen(inv_path, "w");
        if (!inv) { perror(inv_path); MPI_Abort(MPI_COMM_WORLD, 1); }
        fprintf(inv, "# step  member  mass  momentum  hamiltonian\n");
    }
    double glob[NMEM * 3];
    int snap = 0;
    for (int step = 0; step <= NSTEPS; step++) {
        if (step > 0) rk4_step(&d, u, work, sbuf, rbuf);
        if (step % SNAP_EVERY == 0) {
            write_snapshot(&d, fh, filetype, memtype, snap++, u);
            log_local_peaks(&d, logf, step, u);
            invariants(&d, u, glob);
            if (d.rank == 0)
                for (int m = 0; m < NMEM; m++)
                    fprintf(inv, "%6d %3d %.10f %.10f %.10f\n", step, m, glob[3 * m], glob[3 * m + 1], glob[3 * m + 2]);
        }
    }
    MPI_File_close(&fh);
    MPI_File_close(&logf);
    if (inv) fclose(inv);

    speed_rec_t recs[NMEM];
    int nm = analyse_speeds(&d, field_path, speed_path, snap, recs);
    speed_rec_t all[NMEM];
    int counts[64], displs[64];
    int mybytes = nm * (int)sizeof(speed_rec_t);
    MPI_Gather(&mybytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (d.rank == 0) {
        displs[0] = 0;
        for (int r = 1; r < d.nprocs; r++) displs[r] = displs[r - 1] + counts[r - 1];
    }
    MPI_Gatherv(recs, mybytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (d.rank == 0) {
        double maxerr = 0;
        for (int m = 0; m < NMEM; m++) {
            double e = fabs(all[m].c_fit - all[m].c_theory) / all[m].c_theory;
            if (e > maxerr) maxerr = e;
        }
        printf("%d snapshots, %d members, max relative speed error %.3f\n", snap, NMEM, maxerr);
    }
    MPI_Type_free(&filetype);
    MPI_Type_free(&memtype);
    free(u); free(work); free(sbuf); free(rbuf);
    MPI_Finalize();
    return 0;
}
