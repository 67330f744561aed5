/*
 * Mountain ice-cap evolution under a warming climate with the shallow-ice
 * approximation (SIA), Glen's flow law n = 3, Mahaffy staggered-grid fluxes,
 * and an elevation-dependent surface mass balance with a rising ELA.
 *
 * The grid is decomposed in y over MPI ranks (one halo row each side).  Every
 * SNAP_EVERY steps, thickness and surface speed are written collectively into
 * one snapshot file through a subarray file view (MPI_File_set_view +
 * MPI_File_write_all), and each rank appends a line to a shared text log with
 * MPI_File_write_ordered.  At the end, ranks re-read every thickness snapshot
 * with MPI_File_read_at_all to build an ice volume / area time series which is
 * written by MPI_File_write_at_all.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 160
#define NY 160
#define DX 5000.0               /* m */
#define NSTEP 1000
#define SNAP_EVERY 10
#define NSNAP (NSTEP / SNAP_EVERY)
#define HDR_BYTES 4096
#define GLEN_A 1.0e-16          /* Pa^-3 a^-1 */
#define RHO 910.0
#define GRAV 9.81
#define SEC_YR 31556926.0

static int rank, nprocs, jfirst, nyl;      /* first global row, local rows */
static double *bed, *H, *Hn, *smb, *speed;
static float *fbuf;

#define IDX(i, jl) ((size_t)(jl) * NX + (i))   /* jl = 0..nyl+1 with halos */

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING]; int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "ice[%d]: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void init_topography(void)
{
    for (int jl = 0; jl < nyl + 2; jl++) {
        int j = jfirst + jl - 1;
        for (int i = 0; i < NX; i++) {
            double x = (i - NX / 2) * DX, y = (j - NY / 2) * DX;
            double r = sqrt(x * x + y * y);
            /* massif with radial valleys and a ridge line */
            double b = 2600.0 * exp(-r * r / (2.0 * 120e3 * 120e3))
                     + 400.0 * cos(atan2(y, x) * 5.0) * exp(-r / 90e3)
                     + 300.0 * exp(-(x - 0.6 * y) * (x - 0.6 * y) / (2.0 * 30e3 * 30e3)) - 200.0;
            bed[IDX(i, jl)] = b;
            H[IDX(i, jl)] = 0.0;
        }
    }
}

static void halo_exchange(double *f)
{
    int up = rank + 1 < nprocs ? rank + 1 : MPI_PROC_NULL;
    int dn = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&f[IDX(0, nyl)], NX, MPI_DOUBLE, up, 1, &f[IDX(0, 0)], NX, MPI_DOUBLE, dn, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&f[IDX(0, 1)], NX, MPI_DOUBLE, dn, 2, &f[IDX(0, nyl + 1)], NX, MPI_DOUBLE, up, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void mass_balance(double ela)
{
    for (int jl = 1; jl <= nyl; jl++)
        for (int i = 0; i < NX; i++) {
            double s = bed[IDX(i, jl)] + H[IDX(i, jl)];
            double b = 0.006 * (s - ela);            /* m ice / yr per m */
            smb[IDX(i, jl)] = b > 2.0 ? 2.0 : b;
        }
}

/* One explicit SIA step; returns the stable dt actually used (years). */
static double sia_step(double dt_max)
{
    const double gam = 2.0 * GLEN_A * pow(RHO * GRAV, 3) / 5.0;
    const double cus = 2.0 * GLEN_A * pow(RHO * GRAV, 3) / 4.0;   /* surface speed factor */
    double dmax = 1.0;
    /* pass 1: maximum diffusivity for the CFL-like limit */
    for (int jl = 1; jl <= nyl; jl++)
        for (int i = 1; i < NX - 1; i++) {
            double h = H[IDX(i, jl)];
            if (h <= 0.0) continue;
            double sx = (bed[IDX(i + 1, jl)] + H[IDX(i + 1, jl)] - bed[IDX(i - 1, jl)] - H[IDX(i - 1, jl)]) / (2 * DX);
            double sy = (bed[IDX(i, jl + 1)] + H[IDX(i, jl + 1)] - bed[IDX(i, jl - 1)] - H[IDX(i, jl - 1)]) / (2 * DX);
            double h2 = h * h;
            double d = gam * h2 * h2 * h * (sx * sx + sy * sy);
            if (d > dmax) dmax = d;
        }
    double gmax;
    MPI_Allreduce(&dmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double dt = 0.12 * DX * DX / gmax;
    if (dt > dt_max) dt = dt_max;

    /* pass 2: staggered fluxes (Mahaffy) */
    for (int jl = 1; jl <= nyl; jl++) {
        int j = jfirst + jl - 1;
        for (int i = 0; i < NX; i++) {
            size_t k = IDX(i, jl);
            if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1) { Hn[k] = 0.0; speed[k] = 0.0; continue; }
            double s = bed[k] + H[k];
            double flux = 0.0, us = 0.0;
            const int di[4] = { 1, -1, 0, 0 }, dj[4] = { 0, 0, 1, -1 };
            for (int e = 0; e < 4; e++) {
                size_t kn = IDX(i + di[e], jl + dj[e]);
                double sn = bed[kn] + H[kn];
                double hs = 0.5 * (H[k] + H[kn]);
                /* cross gradient averaged over the four neighbouring cells */
                double gx, gy;
                if (dj[e] == 0) {
                    gx = (sn - s) / DX;
                    gy = (bed[IDX(i, jl + 1)] + H[IDX(i, jl + 1)] - bed[IDX(i, jl - 1)] - H[IDX(i, jl - 1)]
                        + bed[IDX(i + di[e], jl + 1)] + H[IDX(i + di[e], jl + 1)]
                        - bed[IDX(i + di[e], jl - 1)] - H[IDX(i + di[e], jl - 1)]) / (4 * DX);
                } else {
                    gy = (sn - s) / DX;
                    gx = (bed[IDX(i + 1, jl)] + H[IDX(i + 1, jl)] - bed[IDX(i - 1, jl)] - H[IDX(i - 1, jl)]
                        + bed[IDX(i + 1, jl + dj[e])] + H[IDX(i + 1, jl + dj[e])]
                        - bed[IDX(i - 1, jl + dj[e])] - H[IDX(i - 1, jl + dj[e])]) / (4 * DX);
                }
                double g2 = gx * gx + gy * gy;
                double hs2 = hs * hs;
                double d = gam * hs2 * hs2 * hs * g2;
                flux += d * (sn - s) / DX;
                us += 0.25 * cus * hs2 * hs2 * g2 * sqrt(g2);
            }
            double hn = H[k] + dt * (flux / DX + smb[k]);
            Hn[k] = hn > 0.0 ? hn : 0.0;
            speed[k] = H[k] > 1.0 ? us : 0.0;
        }
    }
    double *t = H; H = Hn; Hn = t;
    return dt;
}

static void write_header(MPI_File fh)
{
    if (rank != 0) return;
    char hdr[HDR_BYTES];
    memset(hdr, 0, sizeof hdr);
    snprintf(hdr, sizeof hdr, "ICECAP-SIA v1\nnx %d\nny %d\ndx %.1f\nnsnap %d\nfields thickness_m speed_m_per_yr\n"
             "layout snapshot-major, field-major, row-major float32\n", NX, NY, DX, NSNAP);
    check(MPI_File_write_at(fh, 0, hdr, HDR_BYTES, MPI_CHAR, MPI_STATUS_IGNORE), "write header");
}

static void write_snapshot(MPI_File fh, MPI_Datatype filetype, int isnap)
{
    for (int f = 0; f < 2; f++) {
        const double *src = f == 0 ? H : speed;
        for (int jl = 1; jl <= nyl; jl++)
            for (int i = 0; i < NX; i++)
                fbuf[(size_t)(jl - 1) * NX + i] = (float)src[IDX(i, jl)];
        MPI_Offset disp = HDR_BYTES + ((MPI_Offset)isnap * 2 + f) * NX * NY * (MPI_Offset)sizeof(float);
        check(MPI_File_set_view(fh, disp, MPI_FLOAT, filetype, "native", MPI_INFO_NULL), "set_view");
        check(MPI_File_write_all(fh, fbuf, nyl * NX, MPI_FLOAT, MPI_STATUS_IGNORE), "write_all");
    }
}

static void log_ordered(MPI_File lh, int step, double t, double ela)
{
    double vol = 0.0, hmax = 0.0, vmax = 0.0; long cells = 0;
    for (int jl = 1; jl <= nyl; jl++)
        for (int i = 0; i < NX; i++) {
            double h = H[IDX(i, jl)];
            vol += h * DX * DX;
            if (h > 0.0) cells++;
            if (h > hmax) hmax = h;
            if (speed[IDX(i, jl)] > vmax) vmax = speed[IDX(i, jl)];
        }
    char line[160];
    int n = snprintf(line, sizeof line, "step %5d t %9.2f ela %7.1f rank %d vol_km3 %10.3f cells %6ld hmax %7.1f vmax %8.2f\n",
                     step, t, ela, rank, vol / 1e9, cells, hmax, vmax);
    check(MPI_File_write_ordered(lh, line, n, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
}

static void volume_series(MPI_File fh, MPI_File th, const double *times)
{
    double *vol = calloc(NSNAP, sizeof(double)), *area = calloc(NSNAP, sizeof(double));
    double *gvol = calloc(NSNAP, sizeof(double)), *garea = calloc(NSNAP, sizeof(double));
    if (!vol || !area || !gvol || !garea) { fprintf(stderr, "ice: out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "reset view");
    for (int s = 0; s < NSNAP; s++) {
        MPI_Offset off = HDR_BYTES + ((MPI_Offset)s * 2 * NY + jfirst) * NX * (MPI_Offset)sizeof(float);
        check(MPI_File_read_at_all(fh, off, fbuf, nyl * NX * (int)sizeof(float), MPI_BYTE, MPI_STATUS_IGNORE), "read_at_all");
        for (int k = 0; k < nyl * NX; k++) {
            vol[s] += fbuf[k] * DX * DX;
            if (fbuf[k] > 10.0f) area[s] += DX * DX;
        }
    }
    MPI_Reduce(vol, gvol, NSNAP, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(area, garea, NSNAP, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char *txt = NULL; int len = 0;
    if (rank == 0) {
        txt = malloc((size_t)NSNAP * 64 + 64);
        if (!txt) MPI_Abort(MPI_COMM_WORLD, 1);
        len = sprintf(txt, "snap,time_yr,volume_km3,area_km2\n");
        for (int s = 0; s < NSNAP; s++)
            len += sprintf(txt + len, "%d,%.2f,%.4f,%.1f\n", s, times[s], gvol[s] / 1e9, garea[s] / 1e6);
        double vpk = 0.0;
        for (int s = 0; s < NSNAP; s++) if (gvol[s] > vpk) vpk = gvol[s];
        printf("ice: peak volume %.1f km3, final volume %.1f km3, final area %.0f km2\n",
               vpk / 1e9, gvol[NSNAP - 1] / 1e9, garea[NSNAP - 1] / 1e6);
    }
    check(MPI_File_write_at_all(th, 0, txt ? txt : "", len, MPI_CHAR, MPI_STATUS_IGNORE), "write_at_all series");
    free(txt); free(vol); free(area); free(gvol); free(garea);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nyl = NY / nprocs + (rank < NY % nprocs ? 1 : 0);
    jfirst = rank * (NY / nprocs) + (rank < NY % nprocs ? rank : NY % nprocs);
    size_t nloc = (size_t)NX * (nyl + 2);
    bed = calloc(nloc, sizeof(double)); H = calloc(nloc, sizeof(double)); Hn = calloc(nloc, sizeof(double));
    smb = calloc(nloc, sizeof(double)); speed = calloc(nloc, sizeof(double));
    fbuf = malloc(sizeof(float) * (size_t)NX * nyl);
    if (!bed || !H || !Hn || !smb || !speed || !fbuf) { fprintf(stderr, "ice: out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }

    char path[1024];
    MPI_File fh, lh, th;
    snprintf(path, sizeof path, "%s/icecap_snapshots.bin", argv[1]);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open snapshots");
    snprintf(path, sizeof path, "%s/icecap_log.txt", argv[1]);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &lh), "open log");
    snprintf(path, sizeof path, "%s/icecap_volume.csv", argv[1]);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &th), "open series");

    int gsz[2] = { NY, NX }, lsz[2] = { nyl, NX }, st[2] = { jfirst, 0 };
    MPI_Datatype filetype;
    MPI_Type_create_subarray(2, gsz, lsz, st, MPI_ORDER_C, MPI_FLOAT, &filetype);
    MPI_Type_commit(&filetype);

    init_topography();
    write_header(fh);
    double t = 0.0, times[NSNAP];
    int isnap = 0;
    for (int step = 1; step <= NSTEP; step++) {
        /* ELA: glacial build-up for 400 years, then warming */
        double ela = t < 400.0 ? 1500.0 : 1500.0 + 4.0 * (t - 400.0);
        halo_exchange(H);
        mass_balance(ela);
        t += sia_step(10.0);
        if (step % SNAP_EVERY == 0) {
            halo_exchange(H);
            write_snapshot(fh, filetype, isnap);
            log_ordered(lh, step, t, ela);
            times[isnap++] = t;
        }
    }
    volume_series(fh, th, times);
    MPI_Type_free(&filetype);
    check(MPI_File_close(&fh), "close snapshots");
    check(MPI_File_close(&lh), "close log");
    check(MPI_File_close(&th), "close series");
    if (rank == 0) printf("ice: %d steps, %d snapshots, %.1f model years on %d ranks\n", NSTEP, NSNAP, t, nprocs);
    free(bed); free(H); free(Hn); free(smb); free(speed); free(fbuf);
    MPI_Finalize();
    return 0;
}
