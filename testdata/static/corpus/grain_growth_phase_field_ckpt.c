/* Multi-order-parameter phase-field grain growth (Fan-Chen model) on a
 * periodic 2-D grid.  Every CKPT_EVERY steps the full state is written as a
 * binary checkpoint (header + one pwrite per order-parameter field, fsync,
 * atomic rename).  After the first leg the in-memory state is discarded, the
 * newest valid checkpoint is located by probing headers and verifying
 * checksums, the run restarts from it, and final grain statistics, a PGM
 * grain map and an energy log are written. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NX 192
#define NY 192
#define NQ 6
#define NSEEDS 90
#define LEG1_STEPS 600
#define TOTAL_STEPS 840
#define CKPT_EVERY 60
#define DT 0.08
#define LKIN 1.0
#define KAPPA 1.6
#define ALPHA 1.0
#define BETA 1.0
#define GAMMA_X 1.5
#define CKPT_MAGIC 0x47524e43u /* "GRNC" */

typedef struct {
    uint32_t magic;
    uint32_t nx, ny, nq;
    uint32_t step;
    uint32_t pad;
    uint64_t checksum;
    double sim_time;
} ckpt_header;

static double *eta;   /* NQ fields, NX*NY each */
static double *work;
static char outdir[4096];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "grain_growth: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

#define IDX(q, i, j) ((size_t)(q) * NX * NY + (size_t)(j) * NX + (size_t)(i))

/* Voronoi seeding: each seed gets a random orientation index q. */
static void init_microstructure(void)
{
    double sx[NSEEDS], sy[NSEEDS];
    int sq[NSEEDS];
    for (int s = 0; s < NSEEDS; s++) {
        sx[s] = rng_uniform() * NX;
        sy[s] = rng_uniform() * NY;
        sq[s] = (int)(rng_uniform() * NQ) % NQ;
    }
    memset(eta, 0, sizeof(double) * NQ * NX * NY);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double best = 1e30;
            int bs = 0;
            for (int s = 0; s < NSEEDS; s++) {
                double dx = fabs(i - sx[s]), dy = fabs(j - sy[s]);
                if (dx > NX / 2) dx = NX - dx;
                if (dy > NY / 2) dy = NY - dy;
                double d = dx * dx + dy * dy;
                if (d < best) { best = d; bs = s; }
            }
            eta[IDX(sq[bs], i, j)] = 0.95 + 0.05 * rng_uniform();
        }
}

/* One explicit Allen-Cahn step for all order parameters. */
static void allen_cahn_step(void)
{
    for (int j = 0; j < NY; j++) {
        int jm = (j + NY - 1) % NY, jp = (j + 1) % NY;
        for (int i = 0; i < NX; i++) {
            int im = (i + NX - 1) % NX, ip = (i + 1) % NX;
            double sum2 = 0.0;
            for (int q = 0; q < NQ; q++) {
                double e = eta[IDX(q, i, j)];
                sum2 += e * e;
            }
            for (int q = 0; q < NQ; q++) {
                double e = eta[IDX(q, i, j)];
                double lap = eta[IDX(q, ip, j)] + eta[IDX(q, im, j)] + eta[IDX(q, i, jp)] +
                             eta[IDX(q, i, jm)] - 4.0 * e;
                double df = -ALPHA * e + BETA * e * e * e + 2.0 * GAMMA_X * e * (sum2 - e * e);
                work[IDX(q, i, j)] = e - DT * LKIN * (df - KAPPA * lap);
            }
        }
    }
    double *t = eta;
    eta = work;
    work = t;
}

static double free_energy(void)
{
    double f = 0.0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double sum2 = 0.0, loc = 0.0, grad = 0.0;
            for (int q = 0; q < NQ; q++) {
                double e = eta[IDX(q, i, j)];
                double gx = eta[IDX(q, (i + 1) % NX, j)] - e;
                double gy = eta[IDX(q, i, (j + 1) % NY)] - e;
                loc += -0.5 * ALPHA * e * e + 0.25 * BETA * e * e * e * e;
                grad += 0.5 * KAPPA * (gx * gx + gy * gy);
                sum2 += e * e;
            }
            for (int q = 0; q < NQ; q++) {
                double e = eta[IDX(q, i, j)];
                loc += 0.5 * GAMMA_X * e * e * (sum2 - e * e);
            }
            f += loc + grad + 0.25;
        }
    return f;
}

static uint64_t fletcher64(const double *v, size_t n)
{
    const uint32_t *w = (const uint32_t *)v;
    uint64_t a = 0, b = 0;
    for (size_t k = 0; k < 2 * n; k++) {
        a = (a + w[k]) % 0xffffffffull;
        b = (b + a) % 0xffffffffull;
    }
    return (b << 32) | a;
}

static void pwrite_all(int fd, const void *buf, size_t len, off_t off, const char *path)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(fd, p, len, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite", path);
        }
        p += w; len -= (size_t)w; off += w;
    }
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = pread(fd, p, len, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) return -1;
        p += r; len -= (size_t)r; off += r;
    }
    return 0;
}

static void write_checkpoint(int step, double t)
{
    char tmp[4200], fin[4200];
    snprintf(tmp, sizeof tmp, "%s/ckpt_%05d.tmp", outdir, step);
    snprintf(fin, sizeof fin, "%s/ckpt_%05d.bin", outdir, step);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    ckpt_header h = {CKPT_MAGIC, NX, NY, NQ, (uint32_t)step, 0, 0, t};
    h.checksum = fletcher64(eta, (size_t)NQ * NX * NY);
    size_t field = sizeof(double) * NX * NY;
    for (int q = 0; q < NQ; q++)
        pwrite_all(fd, eta + (size_t)q * NX * NY, field, (off_t)(sizeof h + q * field), tmp);
    pwrite_all(fd, &h, sizeof h, 0, tmp); /* header last: marks completion */
    if (fsync(fd) != 0) die("fsync", tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, fin) != 0) die("rename", fin);
}

/* Returns 0 and fills state if the checkpoint is complete and consistent. */
static int read_checkpoint(const char *path, int *step, double *t)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ckpt_header h;
    int ok = pread_all(fd, &h, sizeof h, 0) == 0 && h.magic == CKPT_MAGIC && h.nx == NX &&
             h.ny == NY && h.nq == NQ;
    size_t field = sizeof(double) * NX * NY;
    for (int q = 0; ok && q < NQ; q++)
        ok = pread_all(fd, eta + (size_t)q * NX * NY, field, (off_t)(sizeof h + q * field)) == 0;
    if (close(fd) != 0) die("close", path);
    if (!ok) return -1;
    if (fletcher64(eta, (size_t)NQ * NX * NY) != h.checksum) return -1;
    *step = (int)h.step;
    *t = h.sim_time;
    return 0;
}

/* Probe checkpoints from newest candidate downwards; first valid one wins. */
static int find_and_restart(double *t)
{
    char path[4200];
    for (int s = TOTAL_STEPS; s >= 0; s--) {
        if (s % CKPT_EVERY) continue;
        snprintf(path, sizeof path, "%s/ckpt_%05d.bin", outdir, s);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        int step;
        if (read_checkpoint(path, &step, t) == 0) return step;
        fprintf(stderr, "checkpoint %s invalid, trying older\n", path);
    }
    return -1;
}

/* Label grains (argmax order parameter, 4-connected flood fill). */
static int grain_statistics(int *label, double *mean_area)
{
    unsigned char *own = malloc(NX * NY);
    int *stack = malloc(sizeof(int) * NX * NY);
    if (!own || !stack) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int p = 0; p < NX * NY; p++) {
        int best = 0;
        for (int q = 1; q < NQ; q++)
            if (eta[(size_t)q * NX * NY + p] > eta[(size_t)best * NX * NY + p]) best = q;
        own[p] = (unsigned char)best;
        label[p] = -1;
    }
    int ng = 0;
    for (int p = 0; p < NX * NY; p++) {
        if (label[p] >= 0) continue;
        int sp = 0;
        stack[sp++] = p;
        label[p] = ng;
        while (sp) {
            int c = stack[--sp];
            int i = c % NX, j = c / NX;
            int nb[4] = {j * NX + (i + 1) % NX, j * NX + (i + NX - 1) % NX,
                         ((j + 1) % NY) * NX + i, ((j + NY - 1) % NY) * NX + i};
            for (int k = 0; k < 4; k++)
                if (label[nb[k]] < 0 && own[nb[k]] == own[c]) {
                    label[nb[k]] = ng;
                    stack[sp++] = nb[k];
                }
        }
        ng++;
    }
    free(own);
    free(stack);
    *mean_area = (double)(NX * NY) / ng;
    return ng;
}

static void write_grain_map(const int *label, int ng)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/grains.pgm", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "P2\n%d %d\n255\n", NX, NY) < 0) die("fprintf", path);
    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
            double s = 0.0;
            for (int q = 0; q < NQ; q++) {
                double e = eta[IDX(q, i, j)];
                s += e * e;
            }
            int g = (int)(255.0 * fmin(1.0, s)) ^ ((label[j * NX + i] * 37) % ng & 0x1f);
            if (fprintf(f, "%d%c", g & 255, i + 1 == NX ? '\n' : ' ') < 0) die("fprintf", path);
        }
    }
    if (fclose(f) != 0) die("fclose", path);
}

static FILE *open_log(const char *mode)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/energy.log", outdir);
    FILE *f = fopen(path, mode);
    if (!f) die("fopen", path);
    return f;
}

static void run_leg(int from, int to, double *t, FILE *log)
{
    for (int s = from; s < to; s++) {
        allen_cahn_step();
        *t += DT;
        int step = s + 1;
        if (step % 10 == 0 && fprintf(log, "%6d %10.4f %16.6f\n", step, *t, free_energy()) < 0)
            die("fprintf", "energy.log");
        if (step % CKPT_EVERY == 0) write_checkpoint(step, *t);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    eta = malloc(sizeof(double) * NQ * NX * NY);
    work = malloc(sizeof(double) * NQ * NX * NY);
    if (!eta || !work) { fprintf(stderr, "out of memory\n"); return 1; }

    double t = 0.0;
    init_microstructure();
    write_checkpoint(0, t);
    FILE *log = open_log("w");
    run_leg(0, LEG1_STEPS, &t, log);
    if (fclose(log) != 0) die("fclose", "energy.log");

    /* simulated crash: wipe state, then restart from disk */
    memset(eta, 0, sizeof(double) * NQ * NX * NY);
    t = -1.0;
    int restart = find_and_restart(&t);
    if (restart < 0) { fprintf(stderr, "no valid checkpoint\n"); return 1; }
    log = open_log("a");
    run_leg(restart, TOTAL_STEPS, &t, log);
    if (fclose(log) != 0) die("fclose", "energy.log");

    int *label = malloc(sizeof(int) * NX * NY);
    if (!label) { fprintf(stderr, "out of memory\n"); return 1; }
    double mean_area;
    int ng = grain_statistics(label, &mean_area);
    write_grain_map(label, ng);
    printf("grain growth: restarted at step %d, final step %d, grains %d, mean area %.1f px, F=%.3f\n",
           restart, TOTAL_STEPS, ng, mean_area, free_energy());
    free(label);
    free(eta);
    free(work);
    return 0;
}
