/*
 * Linearised shallow-water equations on a doubly periodic grid
 * (forward-backward time stepping).  Following the "one file per field per
 * step" output convention of many legacy codes, every time step creates a
 * directory step_NNNNN/ holding one small raw file per variable.  A gather
 * phase afterwards reads all of them back, concatenates them into a single
 * archive with a small header per block, and removes the per-step files
 * and directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NXY 64
#define NSTEPS 200
#define NVARS 4

static const char *var_names[NVARS] = {"height", "uvel", "vvel", "vorticity"};

typedef struct {
    double h[NXY][NXY], u[NXY][NXY], v[NXY][NXY], zeta[NXY][NXY];
} state_t;

typedef struct {
    int32_t step, var, nx, ny;
    uint64_t checksum;
} block_header_t;

static uint64_t fnv1a64(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void init_state(state_t *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < NXY; i++)
        for (int j = 0; j < NXY; j++) {
            double x = (i + 0.5) / NXY - 0.5, y = (j + 0.5) / NXY - 0.35;
            s->h[i][j] = 0.1 * exp(-(x * x + y * y) / 0.004) + 0.03 * exp(-((x - 0.2) * (x - 0.2) + (y - 0.4) * (y - 0.4)) / 0.01);
        }
}

/* forward-backward step: momentum from old height, height from new momentum */
static void sw_step(state_t *s, double g, double H, double dt, double dx)
{
    double c = dt / dx;
    for (int i = 0; i < NXY; i++) {
        int ip = (i + 1) % NXY;
        for (int j = 0; j < NXY; j++) {
            int jp = (j + 1) % NXY;
            s->u[i][j] -= g * c * (s->h[ip][j] - s->h[i][j]);
            s->v[i][j] -= g * c * (s->h[i][jp] - s->h[i][j]);
        }
    }
    for (int i = 0; i < NXY; i++) {
        int im = (i + NXY - 1) % NXY;
        for (int j = 0; j < NXY; j++) {
            int jm = (j + NXY - 1) % NXY;
            s->h[i][j] -= H * c * (s->u[i][j] - s->u[im][j] + s->v[i][j] - s->v[i][jm]);
        }
    }
    for (int i = 0; i < NXY; i++) {
        int ip = (i + 1) % NXY;
        for (int j = 0; j < NXY; j++) {
            int jp = (j + 1) % NXY;
            s->zeta[i][j] = (s->v[ip][j] - s->v[i][j] - s->u[i][jp] + s->u[i][j]) / dx;
        }
    }
}

static double total_height(const state_t *s)
{
    double t = 0.0;
    for (int i = 0; i < NXY; i++)
        for (int j = 0; j < NXY; j++)
            t += s->h[i][j];
    return t;
}

static int write_small_file(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, data, n);
    if (close(fd) != 0 || w != (ssize_t)n)
        return -1;
    return 0;
}

/* one directory per step, one file per variable */
static int dump_step(const char *dir, int step, const state_t *s, uint64_t *sums)
{
    char sdir[4096], path[4200];
    snprintf(sdir, sizeof sdir, "%s/step_%05d", dir, step);
    if (mkdir(sdir, 0755) != 0 && errno != EEXIST)
        return -1;
    const void *fields[NVARS] = {s->h, s->u, s->v, s->zeta};
    for (int v = 0; v < NVARS; v++) {
        snprintf(path, sizeof path, "%s/%s.raw", sdir, var_names[v]);
        if (write_small_file(path, fields[v], sizeof s->h) != 0)
            return -1;
        sums[v] = fnv1a64(fields[v], sizeof s->h);
    }
    return 0;
}

/* read every per-step file, append it to the archive, then remove it */
static int gather_steps(const char *dir, int nsteps, const uint64_t (*sums)[NVARS], long *nblocks)
{
    char archive[4096], sdir[4096], path[4200];
    snprintf(archive, sizeof archive, "%s/all_steps.bin", dir);
    int out = open(archive, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0)
        return -1;
    size_t nbytes = sizeof(double) * NXY * NXY;
    double *buf = malloc(nbytes);
    *nblocks = 0;
    int rc = 0;
    for (int step = 1; step <= nsteps && rc == 0; step++) {
        snprintf(sdir, sizeof sdir, "%s/step_%05d", dir, step);
        for (int v = 0; v < NVARS; v++) {
            snprintf(path, sizeof path, "%s/%s.raw", sdir, var_names[v]);
            int fd = open(path, O_RDONLY);
            if (fd < 0) {
                rc = -1;
                break;
            }
            ssize_t r = read(fd, buf, nbytes);
            close(fd);
            block_header_t hdr = {step, v, NXY, NXY, fnv1a64(buf, nbytes)};
            if (r != (ssize_t)nbytes || hdr.checksum != sums[step - 1][v]) {
                fprintf(stderr, "%s: short read or checksum mismatch\n", path);
                rc = -1;
                break;
            }
            if (write(out, &hdr, sizeof hdr) != (ssize_t)sizeof hdr ||
                write(out, buf, nbytes) != (ssize_t)nbytes) {
                rc = -1;
                break;
            }
            if (unlink(path) != 0) {
                rc = -1;
                break;
            }
            (*nblocks)++;
        }
        if (rc == 0 && rmdir(sdir) != 0)
            rc = -1;
    }
    free(buf);
    if (close(out) != 0)
        rc = -1;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    const double g = 9.81, H = 10.0, dx = 1000.0;
    const double dt = 0.25 * dx / sqrt(g * H);

    state_t *s = malloc(sizeof *s);
    uint64_t (*sums)[NVARS] = malloc(sizeof(uint64_t) * NVARS * NSTEPS);
    init_state(s);
    double mass0 = total_height(s);

    for (int step = 1; step <= NSTEPS; step++) {
        sw_step(s, g, H, dt, dx);
        if (dump_step(dir, step, s, sums[step - 1]) != 0) {
            fprintf(stderr, "dump of step %d failed: %s\n", step, strerror(errno));
            return 1;
        }
    }
    double mass = total_height(s);

    long nblocks = 0;
    if (gather_steps(dir, NSTEPS, (const uint64_t(*)[NVARS])sums, &nblocks) != 0) {
        fprintf(stderr, "gather failed\n");
        return 1;
    }
    char archive[4096];
    snprintf(archive, sizeof archive, "%s/all_steps.bin", dir);
    struct stat st;
    long expect = (long)NSTEPS * NVARS * (long)(sizeof(block_header_t) + sizeof(double) * NXY * NXY);
    if (stat(archive, &st) != 0 || st.st_size != expect || nblocks != (long)NSTEPS * NVARS) {
        fprintf(stderr, "archive has wrong size\n");
        return 1;
    }
    if (fabs(mass - mass0) > 1e-12 * fabs(mass0) + 1e-12) {
        fprintf(stderr, "mass not conserved: %.15g -> %.15g\n", mass0, mass);
        return 1;
    }
    printf("%ld blocks gathered into %s (%lld bytes), mass %.12f\n", nblocks, archive,
           (long long)st.st_size, mass);
    free(sums);
    free(s);
    return 0;
}
