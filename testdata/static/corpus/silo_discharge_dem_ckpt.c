/* silo_discharge_dem_ckpt.c
 * 2-D discrete-element simulation of granular discharge from a flat-bottomed
 * silo through a central orifice (linear spring-dashpot normal contacts with
 * Coulomb-limited tangential friction, cell lists, symplectic Euler).
 * Grains leaving through the orifice are re-inserted at the top, so the run
 * measures a steady Beverloo-type mass flow rate.
 *
 * I/O: binary checkpoints every CKPT_EVERY steps (header + six field arrays
 * written with write(2), checksum patched into the header with pwrite(2),
 * fsync + rename for atomicity), a text flow log, and then a simulated crash:
 * the newest checkpoint is truncated, the program discards its state, scans
 * the directory for the newest *valid* checkpoint, restarts from it, runs to
 * the end and checks that the final state is bit-identical to the first run.
 */
#define _POSIX_C_SOURCE 200809L
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

#define NP          8000
#define WIDTH       80.0
#define ORIFICE     7.0
#define GRAV        10.0
#define KN          2.0e4
#define GAMMA_N     30.0
#define GAMMA_T     20.0
#define MU_FRIC     0.5
#define DT          5.0e-4
#define NSTEPS      3600
#define CKPT_EVERY  300
#define LOG_EVERY   50
#define CELL        1.0
#define NCX         80
#define NCY         160
#define CKPT_MAGIC  0x53494c4f434b5054ULL  /* "SILOCKPT" */

typedef struct {
    uint64_t magic;
    uint32_t version, np;
    int64_t step;
    double time;
    uint64_t rng;
    int64_t discharged;
    uint64_t checksum;
} ckpt_header;

static double x[NP], y[NP], vx[NP], vy[NP], om[NP], rad[NP];
static double fx[NP], fy[NP], tq[NP];
static int cell_head[NCX * NCY], cell_next[NP];
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static int64_t discharged = 0;
static const char *outdir;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "silo_discharge_dem_ckpt: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static void init_packing(void)
{
    int per_row = (int)(WIDTH / 1.0) - 1;
    for (int i = 0; i < NP; i++) {
        int row = i / per_row, col = i % per_row;
        rad[i] = 0.38 + 0.1 * rng_uniform();
        x[i] = 1.0 + col * 1.0 + 0.05 * (rng_uniform() - 0.5);
        y[i] = 0.6 + row * 1.0 + 0.05 * (rng_uniform() - 0.5);
        vx[i] = vy[i] = om[i] = 0.0;
    }
}

static void build_cells(void)
{
    for (int c = 0; c < NCX * NCY; c++) cell_head[c] = -1;
    for (int i = 0; i < NP; i++) {
        int cx = (int)(x[i] / CELL), cy = (int)(y[i] / CELL);
        if (cx < 0) cx = 0;
        if (cx >= NCX) cx = NCX - 1;
        if (cy < 0) cy = 0;
        if (cy >= NCY) cy = NCY - 1;
        int c = cy * NCX + cx;
        cell_next[i] = cell_head[c];
        cell_head[c] = i;
    }
}

static void compute_forces(void)
{
    for (int i = 0; i < NP; i++) {
        double m = rad[i] * rad[i];
        fx[i] = 0.0;
        fy[i] = -GRAV * m;
        tq[i] = 0.0;
    }
    for (int cy = 0; cy < NCY; cy++)
        for (int cx = 0; cx < NCX; cx++)
            for (int i = cell_head[cy * NCX + cx]; i >= 0; i = cell_next[i])
                for (int dy = 0; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        if (dy == 0 && dx < 0) continue;
                        int nx = cx + dx, ny = cy + dy;
                        if (nx < 0 || nx >= NCX || ny >= NCY) continue;
                        int j0 = cell_head[ny * NCX + nx];
                        if (dy == 0 && dx == 0) j0 = cell_next[i];
                        for (int j = j0; j >= 0; j = cell_next[j]) {
                            double rx = x[j] - x[i], ry = y[j] - y[i];
                            double d2 = rx * rx + ry * ry, rs = rad[i] + rad[j];
                            if (d2 >= rs * rs || d2 == 0.0) continue;
                            double d = sqrt(d2), nxv = rx / d, nyv = ry / d;
                            double ovl = rs - d;
                            double dvx = vx[j] - vx[i], dvy = vy[j] - vy[i];
                            double vn = dvx * nxv + dvy * nyv;
                            double fn = KN * ovl - GAMMA_N * vn;
                            if (fn < 0.0) fn = 0.0;
                            /* tangential slip of j relative to i at the contact point */
                            double vt = -dvx * nyv + dvy * nxv - rad[i] * om[i] - rad[j] * om[j];
                            double ft = GAMMA_T * vt;
                            double lim = MU_FRIC * fn;
                            if (ft > lim) ft = lim;
                            if (ft < -lim) ft = -lim;
                            double fxc = -fn * nxv - ft * nyv, fyc = -fn * nyv + ft * nxv;
                            fx[i] += fxc; fy[i] += fyc;
                            fx[j] -= fxc; fy[j] -= fyc;
                            tq[i] += ft * rad[i];
                            tq[j] += ft * rad[j];
                        }
                    }
    /* walls: x = 0, x = WIDTH, floor y = 0 outside the orifice */
    for (int i = 0; i < NP; i++) {
        double r = rad[i];
        if (x[i] < r) fx[i] += KN * (r - x[i]) - GAMMA_N * vx[i];
        if (x[i] > WIDTH - r) fx[i] -= KN * (x[i] - (WIDTH - r)) + GAMMA_N * vx[i];
        double half = 0.5 * ORIFICE, xc = x[i] - 0.5 * WIDTH;
        if (fabs(xc) > half && y[i] < r && y[i] > -r)
            fy[i] += KN * (r - y[i]) - GAMMA_N * vy[i];
    }
}

static void integrate(void)
{
    for (int i = 0; i < NP; i++) {
        double m = rad[i] * rad[i], inertia = 0.5 * m * rad[i] * rad[i];
        vx[i] += DT * fx[i] / m;
        vy[i] += DT * fy[i] / m;
        om[i] += DT * tq[i] / inertia;
        x[i] += DT * vx[i];
        y[i] += DT * vy[i];
    }
}

static int recycle_discharged(void)
{
    int n = 0;
    for (int i = 0; i < NP; i++) {
        if (y[i] > -3.0) continue;
        /* drop into the next free slot of an insertion lattice above the pile */
        int64_t slot = discharged + n;
        x[i] = 1.0 + (double)(slot % 78) + 0.1 * rng_uniform();
        y[i] = 115.0 + 1.2 * (double)((slot / 78) % 25);
        vx[i] = 0.0; vy[i] = -1.0; om[i] = 0.0;
        n++;
    }
    discharged += n;
    return n;
}

static uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    for (size_t k = 0; k < len; k++) { h ^= p[k]; h *= 1099511628211ULL; }
    return h;
}

static void write_all(int fd, const void *buf, size_t len, const char *path)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) { if (errno == EINTR) continue; die("write", path); }
        p += w; len -= (size_t)w;
    }
}

static void write_checkpoint(int64_t step)
{
    char tmp[4096], fin[4096];
    snprintf(tmp, sizeof tmp, "%s/ckpt_%06lld.tmp", outdir, (long long)step);
    snprintf(fin, sizeof fin, "%s/ckpt_%06lld.bin", outdir, (long long)step);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    ckpt_header h = { CKPT_MAGIC, 1, NP, step, step * DT, rng_state, discharged, 0 };
    write_all(fd, &h, sizeof h, tmp);
    double *fields[6] = { x, y, vx, vy, om, rad };
    uint64_t sum = 1469598103934665603ULL;
    for (int f = 0; f < 6; f++) {
        write_all(fd, fields[f], sizeof(double) * NP, tmp);
        sum = fnv1a(sum, fields[f], sizeof(double) * NP);
    }
    h.checksum = sum;
    if (pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) die("pwrite", tmp);
    if (fsync(fd) != 0) die("fsync", tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, fin) != 0) die("rename", tmp);
}

static void read_all(int fd, void *buf, size_t len, const char *path)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0) { if (errno == EINTR) continue; die("read", path); }
        if (r == 0) break;
        p += r; len -= (size_t)r;
    }
    if (len != 0) { errno = EIO; }
}

/* returns 1 and fills the state if the checkpoint is complete and its checksum matches */
static int read_checkpoint(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat", path);
    ckpt_header h;
    if (st.st_size != (off_t)(sizeof h + 6 * sizeof(double) * NP)) { close(fd); return 0; }
    read_all(fd, &h, sizeof h, path);
    if (h.magic != CKPT_MAGIC || h.np != NP) { close(fd); return 0; }
    double *fields[6] = { x, y, vx, vy, om, rad };
    uint64_t sum = 1469598103934665603ULL;
    for (int f = 0; f < 6; f++) {
        read_all(fd, fields[f], sizeof(double) * NP, path);
        sum = fnv1a(sum, fields[f], sizeof(double) * NP);
    }
    if (close(fd) != 0) die("close", path);
    if (sum != h.checksum) return 0;
    rng_state = h.rng;
    discharged = h.discharged;
    return 1;
}

static int cmp_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

static int64_t restart_from_newest(void)
{
    DIR *d = opendir(outdir);
    if (!d) die("opendir", outdir);
    char *names[1024];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 1024)
        if (strncmp(e->d_name, "ckpt_", 5) == 0 && strstr(e->d_name, ".bin"))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_desc);
    int64_t step = -1;
    char path[4096];
    for (int k = 0; k < n && step < 0; k++) {
        snprintf(path, sizeof path, "%s/%s", outdir, names[k]);
        if (read_checkpoint(path)) step = atoll(names[k] + 5);
        else printf("  rejected %s\n", names[k]);
    }
    for (int k = 0; k < n; k++) free(names[k]);
    if (step < 0) { fprintf(stderr, "no valid checkpoint\n"); exit(1); }
    return step;
}

static void crash_truncate_newest(int64_t step)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ckpt_%06lld.bin", outdir, (long long)step);
    if (truncate(path, (off_t)(sizeof(ckpt_header) + 3 * sizeof(double) * NP + 1234)) != 0)
        die("truncate", path);
}

static void flow_stats(FILE *log, int64_t step, int recent)
{
    double ke = 0.0, ymax = 0.0, vmean = 0.0;
    for (int i = 0; i < NP; i++) {
        double m = rad[i] * rad[i];
        ke += 0.5 * m * (vx[i] * vx[i] + vy[i] * vy[i]);
        if (y[i] > ymax) ymax = y[i];
        if (fabs(x[i] - 0.5 * WIDTH) < ORIFICE && y[i] < 3.0) vmean += vy[i];
    }
    if (fprintf(log, "%6lld %9.4f %8d %10lld %14.6e %9.3f %12.5e\n", (long long)step, step * DT,
                recent, (long long)discharged, ke, ymax, vmean) < 0)
        die("fprintf", "flow.log");
}

static uint64_t state_hash(void)
{
    uint64_t h = 1469598103934665603ULL;
    h = fnv1a(h, x, sizeof x); h = fnv1a(h, y, sizeof y);
    h = fnv1a(h, vx, sizeof vx); h = fnv1a(h, vy, sizeof vy);
    return fnv1a(h, om, sizeof om);
}

static void run(int64_t from, int64_t to, FILE *log)
{
    int recent = 0;
    for (int64_t s = from + 1; s <= to; s++) {
        build_cells();
        compute_forces();
        integrate();
        recent += recycle_discharged();
        if (log && s % LOG_EVERY == 0) { flow_stats(log, s, recent); recent = 0; }
        if (s % CKPT_EVERY == 0) write_checkpoint(s);
    }
}

static void write_positions(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    for (int i = 0; i < NP; i++)
        if (fprintf(f, "%d %.6f %.6f %.5f %.5f %.4f\n", i, x[i], y[i], vx[i], vy[i], rad[i]) < 0)
            die("fprintf", path);
    if (fclose(f) != 0) die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    outdir = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/flow.log", outdir);
    FILE *log = fopen(path, "w");
    if (!log) die("fopen", path);
    fprintf(log, "#  step     time   outflow  cumulative   kinetic_energy   y_max   v_orifice\n");

    init_packing();
    run(0, NSTEPS, log);
    if (fclose(log) != 0) die("fclose", path);
    uint64_t ref = state_hash();
    int64_t ref_discharged = discharged;
    write_positions("final_run1.txt");

    /* simulated node failure during the last checkpoint write */
    crash_truncate_newest(NSTEPS);
    memset(x, 0, sizeof x); memset(y, 0, sizeof y);
    memset(vx, 0, sizeof vx); memset(vy, 0, sizeof vy); memset(om, 0, sizeof om);
    rng_state = 0; discharged = 0;

    int64_t from = restart_from_newest();
    printf("restart from step %lld (discharged so far %lld)\n", (long long)from, (long long)discharged);
    run(from, NSTEPS, NULL);
    uint64_t again = state_hash();
    write_positions("final_restart.txt");
    printf("grains discharged: %lld  (%.1f per unit time)\n", (long long)ref_discharged,
           ref_discharged / (NSTEPS * DT));
    printf("restart reproducible: %s\n", again == ref && discharged == ref_discharged ? "yes" : "NO");
    return again == ref ? 0 : 1;
}
