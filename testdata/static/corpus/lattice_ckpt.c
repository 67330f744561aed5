/*
 * Gray-Scott reaction-diffusion on a periodic 2-D lattice with
 * checkpoint/restart.  The job runs its time loop twice in one process:
 * the first job starts from scratch, the second one finds the checkpoint
 * left by the first, restarts from it and continues.
 *
 * Checkpoints are written to a temporary file, flushed and fsync'ed and
 * then renamed over the previous checkpoint so that a crash never leaves
 * a half-written restart file behind.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CKPT_MAGIC 0x47534b50u /* "GSKP" */

typedef struct {
    int n;
    long step;
    double *u;
    double *v;
} lattice_t;

typedef struct {
    uint32_t magic;
    int32_t n;
    int64_t step;
    uint64_t checksum;
} ckpt_header_t;

static double Du = 0.16, Dv = 0.08, feed = 0.035, kill = 0.060;

static void lattice_alloc(lattice_t *lat, int n)
{
    lat->n = n;
    lat->step = 0;
    lat->u = malloc(sizeof(double) * n * n);
    lat->v = malloc(sizeof(double) * n * n);
    if (!lat->u || !lat->v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static void lattice_free(lattice_t *lat)
{
    free(lat->u);
    free(lat->v);
}

static void lattice_seed(lattice_t *lat, unsigned seed)
{
    int n = lat->n;
    srand(seed);
    for (int i = 0; i < n * n; i++) {
        lat->u[i] = 1.0;
        lat->v[i] = 0.0;
    }
    /* a few random square perturbations */
    for (int p = 0; p < 12; p++) {
        int ci = rand() % n, cj = rand() % n;
        for (int di = -6; di <= 6; di++)
            for (int dj = -6; dj <= 6; dj++) {
                int i = (ci + di + n) % n, j = (cj + dj + n) % n;
                lat->u[i * n + j] = 0.5 + 0.02 * (rand() / (double)RAND_MAX);
                lat->v[i * n + j] = 0.25 + 0.02 * (rand() / (double)RAND_MAX);
            }
    }
    lat->step = 0;
}

static void gray_scott_update(lattice_t *lat, double *un, double *vn)
{
    int n = lat->n;
    const double *u = lat->u, *v = lat->v;
    for (int i = 0; i < n; i++) {
        int im = (i == 0) ? n - 1 : i - 1;
        int ip = (i == n - 1) ? 0 : i + 1;
        for (int j = 0; j < n; j++) {
            int jm = (j == 0) ? n - 1 : j - 1;
            int jp = (j == n - 1) ? 0 : j + 1;
            double uc = u[i * n + j], vc = v[i * n + j];
            double lu = u[im * n + j] + u[ip * n + j] + u[i * n + jm] + u[i * n + jp] - 4.0 * uc;
            double lv = v[im * n + j] + v[ip * n + j] + v[i * n + jm] + v[i * n + jp] - 4.0 * vc;
            double uvv = uc * vc * vc;
            un[i * n + j] = uc + Du * lu - uvv + feed * (1.0 - uc);
            vn[i * n + j] = vc + Dv * lv + uvv - (feed + kill) * vc;
        }
    }
    memcpy(lat->u, un, sizeof(double) * n * n);
    memcpy(lat->v, vn, sizeof(double) * n * n);
    lat->step++;
}

/* FNV-1a over the raw bytes of both fields */
static uint64_t lattice_checksum(const lattice_t *lat)
{
    uint64_t h = 1469598103934665603ull;
    size_t nb = sizeof(double) * (size_t)lat->n * lat->n;
    const unsigned char *p[2] = {(const unsigned char *)lat->u, (const unsigned char *)lat->v};
    for (int f = 0; f < 2; f++)
        for (size_t k = 0; k < nb; k++) {
            h ^= p[f][k];
            h *= 1099511628211ull;
        }
    return h;
}

static int write_checkpoint(const char *dir, const lattice_t *lat)
{
    char tmp[4096], fin[4096];
    snprintf(tmp, sizeof tmp, "%s/lattice.ckpt.tmp", dir);
    snprintf(fin, sizeof fin, "%s/lattice.ckpt", dir);

    FILE *f = fopen(tmp, "wb");
    if (!f) {
        perror(tmp);
        return -1;
    }
    ckpt_header_t h = {CKPT_MAGIC, lat->n, lat->step, lattice_checksum(lat)};
    size_t nn = (size_t)lat->n * lat->n;
    int ok = fwrite(&h, sizeof h, 1, f) == 1 &&
             fwrite(lat->u, sizeof(double), nn, f) == nn &&
             fwrite(lat->v, sizeof(double), nn, f) == nn;
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        ok = 0;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "checkpoint write failed: %s\n", strerror(errno));
        return -1;
    }
    if (rename(tmp, fin) != 0) {
        perror("rename");
        return -1;
    }
    return 0;
}

/* returns 1 if a checkpoint was loaded, 0 if none exists, -1 on error */
static int read_checkpoint(const char *dir, lattice_t *lat)
{
    char fin[4096];
    snprintf(fin, sizeof fin, "%s/lattice.ckpt", dir);
    FILE *f = fopen(fin, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    ckpt_header_t h;
    if (fread(&h, sizeof h, 1, f) != 1 || h.magic != CKPT_MAGIC || h.n != lat->n) {
        fclose(f);
        return -1;
    }
    size_t nn = (size_t)lat->n * lat->n;
    if (fread(lat->u, sizeof(double), nn, f) != nn || fread(lat->v, sizeof(double), nn, f) != nn) {
        fclose(f);
        return -1;
    }
    fclose(f);
    lat->step = h.step;
    if (lattice_checksum(lat) != h.checksum) {
        fprintf(stderr, "checkpoint checksum mismatch\n");
        return -1;
    }
    return 1;
}

static double mean_v(const lattice_t *lat)
{
    double s = 0.0;
    for (int i = 0; i < lat->n * lat->n; i++)
        s += lat->v[i];
    return s / ((double)lat->n * lat->n);
}

/* one job: restart if possible, then advance nsteps, checkpointing */
static int run_job(const char *dir, lattice_t *lat, long nsteps, long every, long *start)
{
    int n = lat->n;
    int rc = read_checkpoint(dir, lat);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        lattice_seed(lat, 20240611u);
        printf("job: cold start\n");
    } else {
        printf("job: restart from step %ld\n", lat->step);
    }
    *start = lat->step;

    double *un = malloc(sizeof(double) * n * n);
    double *vn = malloc(sizeof(double) * n * n);
    long end = lat->step + nsteps;
    while (lat->step < end) {
        gray_scott_update(lat, un, vn);
        if (lat->step % every == 0 && write_checkpoint(dir, lat) != 0) {
            free(un);
            free(vn);
            return -1;
        }
    }
    free(un);
    free(vn);
    printf("job: reached step %ld, <v> = %.10f\n", lat->step, mean_v(lat));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    const int n = 320;
    const long steps_per_job = 1200, every = 120;

    lattice_t job1, job2;
    lattice_alloc(&job1, n);
    lattice_alloc(&job2, n);

    long start1, start2;
    if (run_job(dir, &job1, steps_per_job, every, &start1) != 0 || start1 != 0)
        return 1;
    /* the second job must pick up exactly where the first one stopped */
    if (run_job(dir, &job2, steps_per_job, every, &start2) != 0 || start2 != job1.step) {
        fprintf(stderr, "restart did not resume at step %ld\n", job1.step);
        return 1;
    }

    /* continuing job1 in memory must give the same answer as the restarted job */
    double *un = malloc(sizeof(double) * n * n), *vn = malloc(sizeof(double) * n * n);
    while (job1.step < job2.step)
        gray_scott_update(&job1, un, vn);
    free(un);
    free(vn);
    if (lattice_checksum(&job1) != lattice_checksum(&job2)) {
        fprintf(stderr, "restarted run diverged from continuous run\n");
        return 1;
    }
    double mv = mean_v(&job2);
    if (!(mv > 0.0 && mv < 1.0)) {
        fprintf(stderr, "unphysical mean concentration %g\n", mv);
        return 1;
    }
    lattice_free(&job1);
    lattice_free(&job2);
    printf("restart verified at step %ld\n", job2.step);
    return 0;
}
