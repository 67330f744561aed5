/*
 * nbody_restart: softened gravitational N-body integration (kick-drift-kick
 * leapfrog) that writes binary checkpoints with POSIX open/write/fsync and an
 * atomic rename every CKPT_EVERY steps, keeps only the newest KEEP_CKPTS
 * files, then restarts from the newest checkpoint found in the directory and
 * checks that the restarted run reproduces the reference run bit for bit.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NBODY       640
#define NSTEPS      340
#define CKPT_EVERY  12
#define KEEP_CKPTS  3
#define LOG_EVERY   5
#define SOFTENING   1.0e-2
#define DT          2.0e-4
#define CKPT_MAGIC  0x4e42434bu   /* "NBCK" */

struct sim {
    int n;
    long step;
    double t;
    double *pos;   /* 3*n */
    double *vel;   /* 3*n */
    double *acc;   /* 3*n */
    double *mass;  /* n   */
};

struct ckpt_header {
    uint32_t magic;
    uint32_t n;
    int64_t step;
    double t;
    uint64_t checksum;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void sim_alloc(struct sim *s, int n)
{
    s->n = n;
    s->step = 0;
    s->t = 0.0;
    s->pos = calloc(3 * (size_t)n, sizeof(double));
    s->vel = calloc(3 * (size_t)n, sizeof(double));
    s->acc = calloc(3 * (size_t)n, sizeof(double));
    s->mass = calloc((size_t)n, sizeof(double));
    if (!s->pos || !s->vel || !s->acc || !s->mass) {
        fprintf(stderr, "nbody_restart: out of memory\n");
        exit(1);
    }
}

/* Plummer-like cloud with a small rotation */
static void init_bodies(struct sim *s)
{
    for (int i = 0; i < s->n; i++) {
        double r = 0.2 + 0.8 * rng_uniform();
        double th = acos(2.0 * rng_uniform() - 1.0);
        double ph = 2.0 * M_PI * rng_uniform();
        s->pos[3*i]   = r * sin(th) * cos(ph);
        s->pos[3*i+1] = r * sin(th) * sin(ph);
        s->pos[3*i+2] = r * cos(th);
        s->vel[3*i]   = -0.3 * s->pos[3*i+1];
        s->vel[3*i+1] =  0.3 * s->pos[3*i];
        s->vel[3*i+2] =  0.05 * (rng_uniform() - 0.5);
        s->mass[i] = (0.5 + rng_uniform()) / s->n;
    }
}

static void compute_forces(struct sim *s)
{
    const int n = s->n;
    double *a = s->acc;
    memset(a, 0, 3 * (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        double xi = s->pos[3*i], yi = s->pos[3*i+1], zi = s->pos[3*i+2];
        double ax = 0.0, ay = 0.0, az = 0.0;
        for (int j = i + 1; j < n; j++) {
            double dx = s->pos[3*j] - xi;
            double dy = s->pos[3*j+1] - yi;
            double dz = s->pos[3*j+2] - zi;
            double r2 = dx*dx + dy*dy + dz*dz + SOFTENING*SOFTENING;
            double inv = 1.0 / (r2 * sqrt(r2));
            double fi = s->mass[j] * inv, fj = s->mass[i] * inv;
            ax += fi * dx; ay += fi * dy; az += fi * dz;
            a[3*j]   -= fj * dx;
            a[3*j+1] -= fj * dy;
            a[3*j+2] -= fj * dz;
        }
        a[3*i] += ax; a[3*i+1] += ay; a[3*i+2] += az;
    }
}

static void leapfrog_step(struct sim *s)
{
    const int m = 3 * s->n;
    for (int k = 0; k < m; k++) s->vel[k] += 0.5 * DT * s->acc[k];
    for (int k = 0; k < m; k++) s->pos[k] += DT * s->vel[k];
    compute_forces(s);
    for (int k = 0; k < m; k++) s->vel[k] += 0.5 * DT * s->acc[k];
    s->step++;
    s->t += DT;
}

static double total_energy(const struct sim *s)
{
    double ke = 0.0, pe = 0.0;
    for (int i = 0; i < s->n; i++) {
        const double *v = &s->vel[3*i];
        ke += 0.5 * s->mass[i] * (v[0]*v[0] + v[1]*v[1] + v[2]*v[2]);
        for (int j = i + 1; j < s->n; j++) {
            double dx = s->pos[3*j] - s->pos[3*i];
            double dy = s->pos[3*j+1] - s->pos[3*i+1];
            double dz = s->pos[3*j+2] - s->pos[3*i+2];
            pe -= s->mass[i] * s->mass[j] / sqrt(dx*dx + dy*dy + dz*dz + SOFTENING*SOFTENING);
        }
    }
    return ke + pe;
}

static uint64_t fnv1a(const void *buf, size_t len, uint64_t h)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t state_checksum(const struct sim *s)
{
    size_t bytes = 3 * (size_t)s->n * sizeof(double);
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a(s->pos, bytes, h);
    h = fnv1a(s->vel, bytes, h);
    h = fnv1a(s->acc, bytes, h);
    h = fnv1a(s->mass, (size_t)s->n * sizeof(double), h);
    return h;
}

static void write_all(int fd, const void *buf, size_t len, const char *what)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            perror(what);
            exit(1);
        }
        p += w;
        len -= (size_t)w;
    }
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

static void ckpt_name(char *buf, size_t cap, const char *dir, long step)
{
    snprintf(buf, cap, "%s/ckpt/state_%06ld.bin", dir, step);
}

/* each body is written as its own record (pos, vel, acc, mass) */
static void write_checkpoint(const struct sim *s, const char *dir)
{
    char tmp[1024], final[1024];
    struct ckpt_header h;
    snprintf(tmp, sizeof tmp, "%s/ckpt/.state.tmp", dir);
    ckpt_name(final, sizeof final, dir, s->step);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(tmp); exit(1); }
    h.magic = CKPT_MAGIC;
    h.n = (uint32_t)s->n;
    h.step = s->step;
    h.t = s->t;
    h.checksum = state_checksum(s);
    write_all(fd, &h, sizeof h, tmp);
    for (int i = 0; i < s->n; i++) {
        double rec[10];
        memcpy(rec, &s->pos[3*i], 3 * sizeof(double));
        memcpy(rec + 3, &s->vel[3*i], 3 * sizeof(double));
        memcpy(rec + 6, &s->acc[3*i], 3 * sizeof(double));
        rec[9] = s->mass[i];
        write_all(fd, rec, sizeof rec, tmp);
    }
    if (fsync(fd) != 0) { perror("fsync"); exit(1); }
    close(fd);
    if (rename(tmp, final) != 0) { perror("rename"); exit(1); }

    /* drop checkpoints older than the newest KEEP_CKPTS */
    long oldest_kept = s->step - (long)(KEEP_CKPTS - 1) * CKPT_EVERY;
    for (long st = oldest_kept - CKPT_EVERY; st > 0; st -= CKPT_EVERY) {
        ckpt_name(final, sizeof final, dir, st);
        if (unlink(final) != 0 && errno == ENOENT) break;
    }
}

static int read_checkpoint(struct sim *s, const char *path)
{
    struct ckpt_header h;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    if (read_all(fd, &h, sizeof h) != 0 || h.magic != CKPT_MAGIC) { close(fd); return -1; }
    sim_alloc(s, (int)h.n);
    s->step = h.step;
    s->t = h.t;
    for (int i = 0; i < s->n; i++) {
        double rec[10];
        if (read_all(fd, rec, sizeof rec) != 0) { close(fd); return -1; }
        memcpy(&s->pos[3*i], rec, 3 * sizeof(double));
        memcpy(&s->vel[3*i], rec + 3, 3 * sizeof(double));
        memcpy(&s->acc[3*i], rec + 6, 3 * sizeof(double));
        s->mass[i] = rec[9];
    }
    close(fd);
    if (state_checksum(s) != h.checksum) return -2;
    return 0;
}

/* scan the checkpoint directory for the highest step number */
static long find_latest_checkpoint(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ckpt", dir);
    DIR *d = opendir(path);
    if (!d) return -1;
    long best = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long st;
        if (sscanf(e->d_name, "state_%ld.bin", &st) == 1 && st > best) best = st;
    }
    closedir(d);
    return best;
}

static void run(struct sim *s, long until, const char *dir, FILE *log, int checkpointing)
{
    while (s->step < until) {
        leapfrog_step(s);
        if (log && s->step % LOG_EVERY == 0)
            fprintf(log, "%6ld %12.6f %.12e\n", s->step, s->t, total_energy(s));
        if (checkpointing && s->step % CKPT_EVERY == 0) {
            write_checkpoint(s, dir);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    char path[1024];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/ckpt", dir);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) { perror(path); return 1; }

    snprintf(path, sizeof path, "%s/energy.log", dir);
    FILE *log = fopen(path, "w");
    if (!log) { perror(path); return 1; }

    struct sim ref;
    sim_alloc(&ref, NBODY);
    init_bodies(&ref);
    compute_forces(&ref);
    double e0 = total_energy(&ref);
    fprintf(log, "# step time energy  (E0 = %.12e)\n", e0);
    run(&ref, NSTEPS, dir, log, 1);
    fclose(log);
    uint64_t ref_sum = state_checksum(&ref);

    long latest = find_latest_checkpoint(dir);
    if (latest < 0) { fprintf(stderr, "nbody_restart: no checkpoint found\n"); return 2; }
    struct sim rs;
    ckpt_name(path, sizeof path, dir, latest);
    int rc = read_checkpoint(&rs, path);
    if (rc != 0) { fprintf(stderr, "nbody_restart: checkpoint %s unreadable (%d)\n", path, rc); return 2; }
    run(&rs, NSTEPS, dir, NULL, 0);
    if (state_checksum(&rs) != ref_sum || rs.step != ref.step) {
        fprintf(stderr, "nbody_restart: restarted run differs from reference\n");
        return 3;
    }
    double e1 = total_energy(&ref);
    if (fabs(e1 - e0) > 1e-3 * fabs(e0)) {
        fprintf(stderr, "nbody_restart: energy drift too large (%g -> %g)\n", e0, e1);
        return 4;
    }
    printf("nbody_restart: %d bodies, %d steps, restart from step %ld ok, dE/E = %.3e\n",
           NBODY, NSTEPS, latest, (e1 - e0) / e0);
    free(ref.pos); free(ref.vel); free(ref.acc); free(ref.mass);
    free(rs.pos); free(rs.vel); free(rs.acc); free(rs.mass);
    return 0;
}
