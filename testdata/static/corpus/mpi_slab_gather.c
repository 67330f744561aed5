/* MPI 3-D field on 2 ranks: each rank evaluates and relaxes its z-slab of a
 * source-driven field, rank 0 gathers the slabs with MPI_Gather and writes one
 * binary file per output time with fwrite, then re-reads it with fread,
 * computes per-plane and global statistics and broadcasts them; every rank
 * checks the planes it owns. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 128
#define NY 128
#define NZ 128
#define NOUT 4
#define SWEEPS 6

typedef struct { int32_t nx, ny, nz, step; double time; } header_t;

static void init_slab(double *f, int z0, int nzl, double t)
{
    for (int k = 0; k < nzl; k++) {
        double z = (z0 + k + 0.5) / NZ;
        for (int j = 0; j < NY; j++) {
            double y = (j + 0.5) / NY;
            for (int i = 0; i < NX; i++) {
                double x = (i + 0.5) / NX;
                double r2 = (x - 0.5) * (x - 0.5) + (y - 0.4 - 0.1 * sin(t)) * (y - 0.4 - 0.1 * sin(t))
                          + (z - 0.5) * (z - 0.5);
                f[((size_t)k * NY + j) * NX + i] = exp(-20.0 * r2) * cos(6.0 * x + t) + 0.1 * sin(3.0 * z * t);
            }
        }
    }
}

/* in-plane Jacobi smoothing of every z-plane of the slab (no halo needed) */
static void smooth_slab(double *f, double *tmp, int nzl)
{
    for (int s = 0; s < SWEEPS; s++) {
        for (int k = 0; k < nzl; k++) {
            double *p = f + (size_t)k * NX * NY, *q = tmp + (size_t)k * NX * NY;
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++) {
                    int jm = j ? j - 1 : j, jp = j < NY - 1 ? j + 1 : j;
                    int im = i ? i - 1 : i, ip = i < NX - 1 ? i + 1 : i;
                    q[j * NX + i] = 0.5 * p[j * NX + i]
                        + 0.125 * (p[jm * NX + i] + p[jp * NX + i] + p[j * NX + im] + p[j * NX + ip]);
                }
        }
        memcpy(f, tmp, sizeof(double) * (size_t)nzl * NX * NY);
    }
}

static void plane_sums(const double *f, int nzl, double *sums)
{
    for (int k = 0; k < nzl; k++) {
        double s = 0.0;
        for (size_t n = 0; n < (size_t)NX * NY; n++) s += f[(size_t)k * NX * NY + n];
        sums[k] = s;
    }
}

static void write_field(const char *path, const double *field, int step, double t)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    header_t h = { NX, NY, NZ, step, t };
    if (fwrite(&h, sizeof h, 1, fp) != 1) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int k = 0; k < NZ; k++)
        if (fwrite(field + (size_t)k * NX * NY, sizeof(double), (size_t)NX * NY, fp) != (size_t)NX * NY)
            MPI_Abort(MPI_COMM_WORLD, 1);
    fclose(fp);
}

/* stats[0..NZ-1]: plane sums, NZ: min, NZ+1: max, NZ+2: global sum of squares */
static void read_statistics(const char *path, int step, double *stats)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    header_t h;
    if (fread(&h, sizeof h, 1, fp) != 1 || h.nx != NX || h.ny != NY || h.nz != NZ || h.step != step) {
        fprintf(stderr, "bad header in %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *plane = malloc(sizeof(double) * NX * NY);
    double mn = INFINITY, mx = -INFINITY, ss = 0.0;
    for (int k = 0; k < NZ; k++) {
        if (fread(plane, sizeof(double), (size_t)NX * NY, fp) != (size_t)NX * NY) MPI_Abort(MPI_COMM_WORLD, 1);
        double s = 0.0;
        for (int n = 0; n < NX * NY; n++) {
            s += plane[n];
            ss += plane[n] * plane[n];
            if (plane[n] < mn) mn = plane[n];
            if (plane[n] > mx) mx = plane[n];
        }
        stats[k] = s;
    }
    stats[NZ] = mn; stats[NZ + 1] = mx; stats[NZ + 2] = ss;
    free(plane);
    fclose(fp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || NZ % size != 0) {
        if (rank == 0) fprintf(stderr, "usage: mpi_slab_gather DIR (NZ divisible by ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nzl = NZ / size, z0 = rank * nzl;
    size_t slab = (size_t)nzl * NX * NY;
    double *f = malloc(sizeof(double) * slab), *tmp = malloc(sizeof(double) * slab);
    double *full = rank == 0 ? malloc(sizeof(double) * (size_t)NX * NY * NZ) : NULL;
    double stats[NZ + 3], mine[NZ];
    int fail = 0;

    for (int out = 0; out < NOUT; out++) {
        double t = 0.5 * out;
        init_slab(f, z0, nzl, t);
        smooth_slab(f, tmp, nzl);
        plane_sums(f, nzl, mine);
        MPI_Gather(f, (int)slab, MPI_DOUBLE, full, (int)slab, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        char path[512];
        snprintf(path, sizeof path, "%s/field_%03d.bin", argv[1], out);
        if (rank == 0) {
            write_field(path, full, out, t);
            read_statistics(path, out, stats);
        }
        MPI_Bcast(stats, NZ + 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int k = 0; k < nzl; k++)
            if (stats[z0 + k] != mine[k]) fail++;
        double lmin = INFINITY, lmax = -INFINITY;
        for (size_t n = 0; n < slab; n++) { if (f[n] < lmin) lmin = f[n]; if (f[n] > lmax) lmax = f[n]; }
        if (lmin < stats[NZ] || lmax > stats[NZ + 1]) fail++;
        if (rank == 0)
            printf("output %d: min %.6f max %.6f rms %.6f\n", out, stats[NZ], stats[NZ + 1],
                   sqrt(stats[NZ + 2] / ((double)NX * NY * NZ)));
    }
    int total = 0;
    MPI_Allreduce(&fail, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total) fprintf(stderr, "%d check failures\n", total);
    free(f); free(tmp); free(full);
    MPI_Finalize();
    return total ? 1 : 0;
}
