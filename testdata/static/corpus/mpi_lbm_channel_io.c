/* D2Q9 lattice-Boltzmann channel flow past a cylinder, split into horizontal
 * slabs over MPI ranks. Velocity/density frames go to one shared file with
 * collective MPI_File_write_at_all, restart dumps of the populations use
 * independent writes and are verified with a subarray view + collective
 * read; per-rank progress lines go through MPI_File_write_ordered. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define NX        320
#define NY        128
#define NQ        9
#define NSTEPS    1400
#define FRAME_EVERY 40
#define CKPT_EVERY  350
#define LOG_EVERY   200
#define TAU       0.56
#define FORCE_X   2.0e-6
#define HDR_BYTES 64

static const int cx[NQ] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int cy[NQ] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const int opp[NQ] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
static const double wq[NQ] = {4.0/9, 1.0/9, 1.0/9, 1.0/9, 1.0/9, 1.0/36, 1.0/36, 1.0/36, 1.0/36};

typedef struct {
    int rank, nprocs, nyl, y0;
    size_t plane;            /* (nyl+2)*NX */
    double *f, *fn;
    unsigned char *solid;    /* (nyl+2)*NX incl. halo rows */
    MPI_Datatype rowtype;    /* one row of all NQ populations */
} slab_t;

static void init_slab(slab_t *s)
{
    s->nyl = NY / s->nprocs;
    s->y0 = s->rank * s->nyl;
    s->plane = (size_t)(s->nyl + 2) * NX;
    s->f = malloc(NQ * s->plane * sizeof(double));
    s->fn = malloc(NQ * s->plane * sizeof(double));
    s->solid = calloc(s->plane, 1);
    const double xc = NX / 5.0, yc = NY / 2.0 + 2.5, r = NY / 10.0;
    for (int j = 0; j < s->nyl + 2; j++) {
        int jg = s->y0 + j - 1;
        for (int i = 0; i < NX; i++) {
            int wall = jg <= 0 || jg >= NY - 1;
            int cyl = (i - xc) * (i - xc) + (jg - yc) * (jg - yc) <= r * r;
            s->solid[(size_t)j * NX + i] = (unsigned char)(wall || cyl);
            for (int q = 0; q < NQ; q++) s->f[q * s->plane + (size_t)j * NX + i] = wq[q];
        }
    }
    MPI_Type_vector(NQ, NX, (int)s->plane, MPI_DOUBLE, &s->rowtype);
    MPI_Type_commit(&s->rowtype);
}

/* BGK collision with velocity-shift forcing on interior rows */
static void collide(slab_t *s)
{
    const double omega = 1.0 / TAU;
    for (int j = 1; j <= s->nyl; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = (size_t)j * NX + i;
            if (s->solid[c]) continue;
            double fl[NQ], rho = 0, ux = 0, uy = 0;
            for (int q = 0; q < NQ; q++) { fl[q] = s->f[q * s->plane + c]; rho += fl[q]; ux += cx[q] * fl[q]; uy += cy[q] * fl[q]; }
            ux = ux / rho + TAU * FORCE_X;
            uy /= rho;
            double usq = 1.5 * (ux * ux + uy * uy);
            for (int q = 0; q < NQ; q++) {
                double cu = 3.0 * (cx[q] * ux + cy[q] * uy);
                double feq = wq[q] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
                s->f[q * s->plane + c] = fl[q] + omega * (feq - fl[q]);
            }
        }
}

static void exchange_halos(slab_t *s)
{
    int up = s->rank + 1 < s->nprocs ? s->rank + 1 : MPI_PROC_NULL;
    int dn = s->rank > 0 ? s->rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(s->f + (size_t)s->nyl * NX, 1, s->rowtype, up, 1,
                 s->f, 1, s->rowtype, dn, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(s->f + (size_t)1 * NX, 1, s->rowtype, dn, 2,
                 s->f + (size_t)(s->nyl + 1) * NX, 1, s->rowtype, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* pull streaming, periodic in x, half-way bounce-back at solid neighbours */
static void stream(slab_t *s)
{
    for (int q = 0; q < NQ; q++) {
        double *dst = s->fn + q * s->plane;
        const double *src = s->f + q * s->plane, *srco = s->f + opp[q] * s->plane;
        for (int j = 1; j <= s->nyl; j++) {
            int js = j - cy[q];
            for (int i = 0; i < NX; i++) {
                size_t c = (size_t)j * NX + i;
                if (s->solid[c]) { dst[c] = src[c]; continue; }
                int is = (i - cx[q] + NX) % NX;
                size_t n = (size_t)js * NX + is;
                dst[c] = s->solid[n] ? srco[c] : src[n];
            }
        }
    }
    double *t = s->f; s->f = s->fn; s->fn = t;
}

static void macro_fields(const slab_t *s, float *out)
{
    for (int j = 1; j <= s->nyl; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = (size_t)j * NX + i;
            double rho = 0, ux = 0, uy = 0;
            for (int q = 0; q < NQ; q++) { double v = s->f[q * s->plane + c]; rho += v; ux += cx[q] * v; uy += cy[q] * v; }
            float *o = out + 3 * ((size_t)(j - 1) * NX + i);
            o[0] = s->solid[c] ? 0.0f : (float)(ux / rho);
            o[1] = s->solid[c] ? 0.0f : (float)(uy / rho);
            o[2] = (float)rho;
        }
}

static void write_frame(MPI_File fh, const slab_t *s, int frame, float *buf)
{
    macro_fields(s, buf);
    size_t n = (size_t)3 * s->nyl * NX;
    MPI_Offset off = HDR_BYTES + (MPI_Offset)frame * 3 * NX * NY * 4 + (MPI_Offset)s->y0 * NX * 3 * 4;
    MPI_File_write_at_all(fh, off, buf, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE);
}

static double write_restart(const char *dir, const slab_t *s, int step)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/lbm_restart.bin", dir);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (s->rank == 0) {
        int hdr[4] = {NX, NY, NQ, step};
        MPI_File_write_at(fh, 0, hdr, 4, MPI_INT, MPI_STATUS_IGNORE);
    }
    double sum = 0.0;
    const size_t interior = (size_t)s->nyl * NX;
    for (int q = 0; q < NQ; q++) {
        const double *p = s->f + q * s->plane + NX;
        for (size_t k = 0; k < interior; k++) sum += p[k] * (double)(q + 1);
        MPI_Offset off = HDR_BYTES + ((MPI_Offset)q * NY * NX + (MPI_Offset)s->y0 * NX) * 8;
        MPI_File_write_at(fh, off, p, (int)interior, MPI_DOUBLE, MPI_STATUS_IGNORE);
    }
    MPI_File_sync(fh);
    MPI_File_close(&fh);
    double tot;
    MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return tot;
}

/* collective read through a 3-D subarray view; compare weighted checksum */
static int verify_restart(const char *dir, const slab_t *s, double expect)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/lbm_restart.bin", dir);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int gsz[3] = {NQ, NY, NX}, lsz[3] = {NQ, s->nyl, NX}, st[3] = {0, s->y0, 0};
    MPI_Datatype sub;
    MPI_Type_create_subarray(3, gsz, lsz, st, MPI_ORDER_C, MPI_DOUBLE, &sub);
    MPI_Type_commit(&sub);
    MPI_File_set_view(fh, HDR_BYTES, MPI_DOUBLE, sub, "native", MPI_INFO_NULL);
    size_t n = (size_t)NQ * s->nyl * NX;
    double *buf = malloc(n * sizeof *buf);
    MPI_File_read_all(fh, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Type_free(&sub);
    double sum = 0.0;
    for (size_t k = 0; k < n; k++) sum += buf[k] * (double)(k / ((size_t)s->nyl * NX) + 1);
    free(buf);
    double tot;
    MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return fabs(tot - expect) <= 1e-9 * fabs(expect);
}

static void log_progress(MPI_File lf, const slab_t *s, int step)
{
    double mass = 0.0, umax = 0.0;
    for (int j = 1; j <= s->nyl; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = (size_t)j * NX + i;
            if (s->solid[c]) continue;
            double rho = 0, ux = 0;
            for (int q = 0; q < NQ; q++) { rho += s->f[q * s->plane + c]; ux += cx[q] * s->f[q * s->plane + c]; }
            mass += rho;
            if (fabs(ux / rho) > umax) umax = fabs(ux / rho);
        }
    char line[160];
    int len = snprintf(line, sizeof line, "step %6d rank %d rows %4d-%4d mass %.9e umax %.6e\n",
                       step, s->rank, s->y0, s->y0 + s->nyl - 1, mass, umax);
    MPI_File_write_ordered(lf, line, len, MPI_CHAR, MPI_STATUS_IGNORE);
}

/* read back the last frames collectively: vorticity statistics and mean profile */
static void postprocess_frames(MPI_File fh, const slab_t *s, int nframes, const char *dir)
{
    const int navg = 8;
    size_t n = (size_t)3 * s->nyl * NX;
    float *buf = malloc(n * sizeof *buf);
    double *prof = calloc(NY, sizeof *prof), ens = 0.0;
    for (int fr = nframes - navg; fr < nframes; fr++) {
        MPI_Offset off = HDR_BYTES + (MPI_Offset)fr * 3 * NX * NY * 4 + (MPI_Offset)s->y0 * NX * 3 * 4;
        MPI_File_read_at_all(fh, off, buf, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE);
        for (int j = 0; j < s->nyl; j++) {
            double m = 0.0;
            for (int i = 0; i < NX; i++) {
                m += buf[3 * ((size_t)j * NX + i)];
                if (j == 0 || j == s->nyl - 1) continue;
                int ip = (i + 1) % NX, im = (i + NX - 1) % NX;
                double dvdx = 0.5 * (buf[3 * ((size_t)j * NX + ip) + 1] - buf[3 * ((size_t)j * NX + im) + 1]);
                double dudy = 0.5 * (buf[3 * ((size_t)(j + 1) * NX + i)] - buf[3 * ((size_t)(j - 1) * NX + i)]);
                ens += 0.5 * (dvdx - dudy) * (dvdx - dudy);
            }
            prof[s->y0 + j] += m / NX / navg;
        }
    }
    double *gprof = s->rank == 0 ? malloc(NY * sizeof *gprof) : NULL, gens;
    MPI_Reduce(prof, gprof, NY, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ens, &gens, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (s->rank == 0) {
        char path[1200];
        snprintf(path, sizeof path, "%s/mean_profile.csv", dir);
        FILE *f = fopen(path, "w");
        fprintf(f, "y,ux_mean\n");
        for (int j = 0; j < NY; j++) fprintf(f, "%d,%.8e\n", j, gprof[j]);
        fclose(f);
        printf("frames=%d enstrophy(last %d)=%.6e centre_u=%.6e\n", nframes, navg, gens / navg, gprof[NY / 2]);
        free(gprof);
    }
    free(buf); free(prof);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    slab_t s;
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.nprocs);
    if (argc != 2 || NY % s.nprocs) {
        if (s.rank == 0) fprintf(stderr, "usage: %s dir (ranks must divide %d)\n", argv[0], NY);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *dir = argv[1];
    init_slab(&s);
    char path[1200];
    MPI_File fh, lf;
    snprintf(path, sizeof path, "%s/flow_frames.bin", dir);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    snprintf(path, sizeof path, "%s/progress.log", dir);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &lf);
    if (s.rank == 0) {
        int hdr[4] = {NX, NY, 3, 0};
        MPI_File_write_at(fh, 0, hdr, 4, MPI_INT, MPI_STATUS_IGNORE);
    }
    float *fbuf = malloc((size_t)3 * s.nyl * NX * sizeof *fbuf);
    int nframes = 0, ok = 1;
    for (int step = 1; step <= NSTEPS; step++) {
        collide(&s);
        exchange_halos(&s);
        stream(&s);
        if (step % FRAME_EVERY == 0) write_frame(fh, &s, nframes++, fbuf);
        if (step % LOG_EVERY == 0) log_progress(lf, &s, step);
        if (step % CKPT_EVERY == 0) {
            double cs = write_restart(dir, &s, step);
            ok &= verify_restart(dir, &s, cs);
        }
    }
    if (s.rank == 0) {   /* patch frame count in header */
        int hdr[4];
        MPI_File_read_at(fh, 0, hdr, 4, MPI_INT, MPI_STATUS_IGNORE);
        hdr[3] = nframes;
        MPI_File_write_at(fh, 0, hdr, 4, MPI_INT, MPI_STATUS_IGNORE);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    postprocess_frames(fh, &s, nframes, dir);
    MPI_File_close(&fh);
    MPI_File_close(&lf);
    if (s.rank == 0) printf("restart checks %s\n", ok ? "passed" : "FAILED");
    MPI_Type_free(&s.rowtype);
    free(fbuf); free(s.f); free(s.fn); free(s.solid);
    MPI_Finalize();
    return ok ? 0 : 4;
}
