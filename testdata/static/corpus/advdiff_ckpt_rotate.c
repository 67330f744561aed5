/* 2-D advection-diffusion of a passive scalar on a periodic grid with
 * rotating checkpoint slots (write tmp, fsync, rename) and an append-only
 * run log; afterwards restarts from the newest valid slot and replays. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define NX        448
#define NY        448
#define NSTEPS    1200
#define CKPT_EVERY 30
#define NSLOTS    3
#define CKPT_MAGIC 0x43504b41u
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
    uint32_t magic;
    uint32_t nx, ny;
    uint32_t step;
    double   time;
    uint64_t checksum;
} ckpt_hdr_t;

static const char *g_dir;
static int g_logfd = -1;
static double g_vx[NX * NY], g_vy[NX * NY];

static uint64_t fnv1a_field(const double *u, size_t n)
{
    const unsigned char *p = (const unsigned char *)u;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n * sizeof(double); i++) { h ^= p[i]; h *= 1099511628211ULL; }
    return h;
}

static void log_event(const char *fmt, int step, double val)
{
    char line[256];
    int len = snprintf(line, sizeof line, fmt, step, val);
    if (write(g_logfd, line, (size_t)len) != len) { perror("log write"); exit(1); }
}

static void init_scalar(double *u)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double x = (i + 0.5) / NX, y = (j + 0.5) / NY;
            double r1 = (x - 0.3) * (x - 0.3) + (y - 0.5) * (y - 0.5);
            double r2 = (x - 0.7) * (x - 0.7) + (y - 0.35) * (y - 0.35);
            u[j * NX + i] = exp(-r1 / 0.004) + 0.6 * exp(-r2 / 0.01);
            g_vx[j * NX + i] = -sin(M_PI * x) * cos(M_PI * y) * 0.8;
            g_vy[j * NX + i] =  cos(M_PI * x) * sin(M_PI * y) * 0.8;
        }
}

/* one explicit step: second-order upwind-biased advection in a solid-body
 * rotation-like velocity field plus 5-point diffusion */
static void advdiff_step(const double *u, double *un, double dt)
{
    const double dx = 1.0 / NX, kappa = 2e-5;
    for (int j = 0; j < NY; j++) {
        int jm = (j + NY - 1) % NY, jp = (j + 1) % NY, jmm = (j + NY - 2) % NY, jpp = (j + 2) % NY;
        for (int i = 0; i < NX; i++) {
            int im = (i + NX - 1) % NX, ip = (i + 1) % NX, imm = (i + NX - 2) % NX, ipp = (i + 2) % NX;
            double vx = g_vx[j * NX + i], vy = g_vy[j * NX + i];
            const double *r = u + j * NX;
            double dudx = vx > 0 ? (3 * r[i] - 4 * r[im] + r[imm]) / (2 * dx)
                                 : (-3 * r[i] + 4 * r[ip] - r[ipp]) / (2 * dx);
            double dudy = vy > 0 ? (3 * r[i] - 4 * u[jm * NX + i] + u[jmm * NX + i]) / (2 * dx)
                                 : (-3 * r[i] + 4 * u[jp * NX + i] - u[jpp * NX + i]) / (2 * dx);
            double lap = (r[ip] + r[im] + u[jp * NX + i] + u[jm * NX + i] - 4 * r[i]) / (dx * dx);
            un[j * NX + i] = r[i] - dt * (vx * dudx + vy * dudy) + dt * kappa * lap;
        }
    }
}

static double scalar_mass(const double *u)
{
    double s = 0.0;
    for (size_t k = 0; k < (size_t)NX * NY; k++) s += u[k];
    return s / ((double)NX * NY);
}

static void write_checkpoint(const double *u, int step, double t)
{
    char tmp[1200], fin[1200];
    int slot = (step / CKPT_EVERY) % NSLOTS;
    snprintf(tmp, sizeof tmp, "%s/ckpt_slot%d.tmp", g_dir, slot);
    snprintf(fin, sizeof fin, "%s/ckpt_slot%d.bin", g_dir, slot);
    ckpt_hdr_t h = {CKPT_MAGIC, NX, NY, (uint32_t)step, t, fnv1a_field(u, (size_t)NX * NY)};
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(tmp); exit(1); }
    if (write(fd, &h, sizeof h) != (ssize_t)sizeof h) { perror("ckpt hdr"); exit(1); }
    const size_t rowbytes = NX * sizeof(double);
    for (int j = 0; j < NY; j += 32) {       /* write in row bands */
        size_t nb = (size_t)((j + 32 <= NY) ? 32 : NY - j) * rowbytes;
        if (write(fd, u + (size_t)j * NX, nb) != (ssize_t)nb) { perror("ckpt body"); exit(1); }
    }
    if (fsync(fd) != 0) { perror("fsync"); exit(1); }
    close(fd);
    if (rename(tmp, fin) != 0) { perror("rename"); exit(1); }
    log_event("checkpoint step=%d mass=%.12f\n", step, scalar_mass(u));
}

/* inspect all slots, validate header and checksum, return newest step or -1 */
static int find_latest_checkpoint(double *u, double *t_out)
{
    int best = -1;
    double *buf = malloc((size_t)NX * NY * sizeof *buf);
    for (int s = 0; s < NSLOTS; s++) {
        char p[1200];
        struct stat st;
        snprintf(p, sizeof p, "%s/ckpt_slot%d.bin", g_dir, s);
        if (stat(p, &st) != 0) continue;
        if ((size_t)st.st_size != sizeof(ckpt_hdr_t) + (size_t)NX * NY * sizeof(double)) continue;
        int fd = open(p, O_RDONLY);
        if (fd < 0) continue;
        ckpt_hdr_t h;
        if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || h.magic != CKPT_MAGIC || (int)h.step <= best) {
            close(fd);
            continue;
        }
        size_t nb = (size_t)NX * NY * sizeof(double);
        if (pread(fd, buf, nb, sizeof h) == (ssize_t)nb && fnv1a_field(buf, (size_t)NX * NY) == h.checksum) {
            best = (int)h.step;
            *t_out = h.time;
            memcpy(u, buf, nb);
        }
        close(fd);
    }
    free(buf);
    return best;
}

static double run_steps(double **u, double **un, int from, int to, double dt, int checkpointing)
{
    for (int n = from; n < to; n++) {
        advdiff_step(*u, *un, dt);
        double *sw = *u; *u = *un; *un = sw;
        if (checkpointing && (n + 1) % CKPT_EVERY == 0) write_checkpoint(*u, n + 1, (n + 1) * dt);
    }
    return scalar_mass(*u);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    g_dir = argv[1];
    char lp[1200];
    snprintf(lp, sizeof lp, "%s/run.log", g_dir);
    g_logfd = open(lp, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (g_logfd < 0) { perror(lp); return 1; }

    size_t n = (size_t)NX * NY;
    double *u = malloc(n * sizeof *u), *un = malloc(n * sizeof *un);
    const double dt = 0.25 / NX;
    init_scalar(u);
    log_event("start step=%d mass=%.12f\n", 0, scalar_mass(u));
    /* first run: stop short of the end, as if the job was killed */
    int killed_at = NSTEPS - CKPT_EVERY / 2;
    run_steps(&u, &un, 0, killed_at, dt, 1);
    log_event("abort step=%d mass=%.12f\n", killed_at, scalar_mass(u));

    double t0 = 0.0;
    int restart = find_latest_checkpoint(u, &t0);
    if (restart < 0) { fprintf(stderr, "no valid checkpoint\n"); return 2; }
    log_event("restart step=%d time=%.6f\n", restart, t0);
    double mass = run_steps(&u, &un, restart, NSTEPS, dt, 1);
    log_event("finish step=%d mass=%.12f\n", NSTEPS, mass);
    fsync(g_logfd);
    close(g_logfd);
    printf("restarted from %d, final mass %.10f checksum %016llx\n", restart, mass,
           (unsigned long long)fnv1a_field(u, n));
    free(u); free(un);
    return 0;
}
