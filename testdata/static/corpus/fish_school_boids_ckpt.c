/*
 * fish_school_boids_ckpt.c
 *
 * Individual-based model of a fish school (zonal repulsion / alignment /
 * attraction rules) harassed by a few predators in a periodic arena.  The
 * noise is counter based (hash of step and fish id), so a run restarted from a
 * checkpoint reproduces the uninterrupted trajectory bit for bit.
 *
 * I/O: every CKPT_EVERY steps a binary checkpoint is written with pwrite
 * (payload sections first, then the header with per-section CRC-32), fsynced
 * and renamed into place; a per-step order-parameter log goes to a CSV.
 * After the run the newest checkpoint is damaged on purpose (simulated crash),
 * the program scans the directory for the newest *valid* checkpoint, restarts
 * from it, checks the result against the reference state, and finally audits
 * every checkpoint (re-reading all of them) into a timeline CSV.
 *
 * usage: fish_school_boids_ckpt OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFISH 8192
#define NPRED 6
#define ARENA 256.0
#define RADIUS 4.0
#define NCELL 64 /* ARENA / RADIUS */
#define NSTEPS 180
#define CKPT_EVERY 5
#define DT 0.25
#define PI 3.14159265358979323846
#define NSECT 6

#define MIX64(z)                                                                \
    ((z) = ((z) ^ ((z) >> 30)) * 0xbf58476d1ce4e5b9ULL,                          \
     (z) = ((z) ^ ((z) >> 27)) * 0x94d049bb133111ebULL, (z) ^= (z) >> 31)

typedef struct {
    double *x, *y, *vx, *vy;
    float *stamina;
    double pred[NPRED * 4]; /* x, y, vx, vy per predator */
    long step;
} School;

typedef struct {
    char magic[8];
    uint32_t version, nfish, npred, nsect;
    int64_t step;
    double time;
    uint64_t offset[NSECT];
    uint64_t length[NSECT];
    uint32_t crc[NSECT];
    uint32_t header_crc;
    uint32_t pad;
} CkptHeader;

static const char *outdir;
static int cell_start[NCELL * NCELL + 1];
static int cell_list[NFISH];
static uint32_t crc_table[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "fish_school_boids_ckpt: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) die("out of memory", NULL);
    return p;
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_buf(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void school_alloc(School *s)
{
    s->x = xmalloc(NFISH * sizeof(double));
    s->y = xmalloc(NFISH * sizeof(double));
    s->vx = xmalloc(NFISH * sizeof(double));
    s->vy = xmalloc(NFISH * sizeof(double));
    s->stamina = xmalloc(NFISH * sizeof(float));
}

static void school_free(School *s)
{
    free(s->x); free(s->y); free(s->vx); free(s->vy); free(s->stamina);
}

/* Fish start in a few loose shoals with random headings. */
static void init_school(School *s)
{
    uint64_t z = 0x5eed0f15ULL;
    for (int i = 0; i < NFISH; i++) {
        uint64_t a = z + (uint64_t)i * 0x9E3779B97F4A7C15ULL, b, c, d;
        MIX64(a);
        b = a + 1; MIX64(b);
        c = b + 1; MIX64(c);
        d = c + 1; MIX64(d);
        int shoal = (int)(a % 8);
        double cx = 32.0 + 64.0 * (shoal % 4), cy = 64.0 + 128.0 * (shoal / 4);
        double r = 40.0 * sqrt((double)(b >> 11) / 9007199254740992.0);
        double ang = 2.0 * PI * (double)(c >> 11) / 9007199254740992.0;
        double head = 2.0 * PI * (double)(d >> 11) / 9007199254740992.0;
        s->x[i] = fmod(cx + r * cos(ang) + ARENA, ARENA);
        s->y[i] = fmod(cy + r * sin(ang) + ARENA, ARENA);
        s->vx[i] = cos(head);
        s->vy[i] = sin(head);
        s->stamina[i] = 1.0f;
    }
    for (int p = 0; p < NPRED; p++) {
        s->pred[4 * p + 0] = ARENA * (p + 0.5) / NPRED;
        s->pred[4 * p + 1] = (p % 2) ? 20.0 : ARENA - 20.0;
        s->pred[4 * p + 2] = 0.0;
        s->pred[4 * p + 3] = 0.0;
    }
    s->step = 0;
}

/* Counting sort of fish into RADIUS-sized cells. */
static void build_cells(const School *s)
{
    static int cell_of[NFISH];
    memset(cell_start, 0, sizeof cell_start);
    for (int i = 0; i < NFISH; i++) {
        int cx = (int)(s->x[i] / RADIUS), cy = (int)(s->y[i] / RADIUS);
        if (cx >= NCELL) cx = NCELL - 1;
        if (cy >= NCELL) cy = NCELL - 1;
        cell_of[i] = cy * NCELL + cx;
        cell_start[cell_of[i] + 1]++;
    }
    for (int c = 0; c < NCELL * NCELL; c++) cell_start[c + 1] += cell_start[c];
    int fill[NCELL * NCELL];
    memcpy(fill, cell_start, sizeof fill);
    for (int i = 0; i < NFISH; i++) cell_list[fill[cell_of[i]]++] = i;
}

/* Zonal steering rules + predator avoidance + hashed angular noise. */
static void steer_fish(const School *s, double *nvx, double *nvy, long step)
{
    for (int i = 0; i < NFISH; i++) {
        double xi = s->x[i], yi = s->y[i];
        double sepx = 0, sepy = 0, alx = 0, aly = 0, cox = 0, coy = 0;
        int nal = 0, nco = 0;
        int cx = (int)(xi / RADIUS), cy = (int)(yi / RADIUS);
        if (cx >= NCELL) cx = NCELL - 1;
        if (cy >= NCELL) cy = NCELL - 1;
        for (int dy = -1; dy <= 1; dy++) {
            int yy = (cy + dy + NCELL) % NCELL;
            for (int dx = -1; dx <= 1; dx++) {
                int c = yy * NCELL + (cx + dx + NCELL) % NCELL;
                for (int k = cell_start[c]; k < cell_start[c + 1]; k++) {
                    int j = cell_list[k];
                    if (j == i) continue;
                    double rx = s->x[j] - xi, ry = s->y[j] - yi;
                    if (rx > 0.5 * ARENA) rx -= ARENA; else if (rx < -0.5 * ARENA) rx += ARENA;
                    if (ry > 0.5 * ARENA) ry -= ARENA; else if (ry < -0.5 * ARENA) ry += ARENA;
                    double d2 = rx * rx + ry * ry;
                    if (d2 > RADIUS * RADIUS) continue;
                    if (d2 < 1.0) {
                        double inv = 1.0 / (d2 + 1e-6);
                        sepx -= rx * inv; sepy -= ry * inv;
                    } else if (d2 < 6.25) {
                        alx += s->vx[j]; aly += s->vy[j]; nal++;
                    } else {
                        cox += rx; coy += ry; nco++;
                    }
                }
            }
        }
        double fx = 1.5 * sepx, fy = 1.5 * sepy;
        if (nal) { fx += 0.8 * (alx / nal - s->vx[i]); fy += 0.8 * (aly / nal - s->vy[i]); }
        if (nco) { fx += 0.05 * cox / nco; fy += 0.05 * coy / nco; }
        for (int p = 0; p < NPRED; p++) {
            double rx = xi - s->pred[4 * p], ry = yi - s->pred[4 * p + 1];
            if (rx > 0.5 * ARENA) rx -= ARENA; else if (rx < -0.5 * ARENA) rx += ARENA;
            if (ry > 0.5 * ARENA) ry -= ARENA; else if (ry < -0.5 * ARENA) ry += ARENA;
            double d2 = rx * rx + ry * ry;
            if (d2 < 144.0) {
                double w = 3.0 * s->stamina[i] / (d2 + 1.0);
                fx += w * rx; fy += w * ry;
            }
        }
        uint64_t h = ((uint64_t)step << 32) ^ (uint64_t)i ^ 0xA5A5F00DULL;
        MIX64(h);
        double noise = 0.15 * ((double)(h >> 11) / 9007199254740992.0 - 0.5);
        double vx = s->vx[i] + DT * fx, vy = s->vy[i] + DT * fy;
        double c = cos(noise), sn = sin(noise);
        double rvx = c * vx - sn * vy, rvy = sn * vx + c * vy;
        double sp = sqrt(rvx * rvx + rvy * rvy) + 1e-12;
        double target = 1.0 + 0.6 * (double)s->stamina[i] * (sp > 1.2);
        nvx[i] = rvx / sp * target;
        nvy[i] = rvy / sp * target;
    }
}

/* Predators chase the densest nearby cell with limited turning. */
static void move_predators(School *s)
{
    for (int p = 0; p < NPRED; p++) {
        double px = s->pred[4 * p], py = s->pred[4 * p + 1];
        int pcx = (int)(px / RADIUS), pcy = (int)(py / RADIUS);
        int best = -1, bestn = 0;
        for (int dy = -3; dy <= 3; dy++)
            for (int dx = -3; dx <= 3; dx++) {
                int c = ((pcy + dy + NCELL) % NCELL) * NCELL + (pcx + dx + NCELL) % NCELL;
                int n = cell_start[c + 1] - cell_start[c];
                if (n > bestn) { bestn = n; best = c; }
            }
        double tx = px, ty = py;
        if (best >= 0) {
            tx = (best % NCELL + 0.5) * RADIUS;
            ty = (best / NCELL + 0.5) * RADIUS;
        }
        double rx = tx - px, ry = ty - py;
        if (rx > 0.5 * ARENA) rx -= ARENA; else if (rx < -0.5 * ARENA) rx += ARENA;
        if (ry > 0.5 * ARENA) ry -= ARENA; else if (ry < -0.5 * ARENA) ry += ARENA;
        double d = sqrt(rx * rx + ry * ry) + 1e-9;
        double vx = 0.8 * s->pred[4 * p + 2] + 0.2 * 1.4 * rx / d;
        double vy = 0.8 * s->pred[4 * p + 3] + 0.2 * 1.4 * ry / d;
        s->pred[4 * p + 2] = vx;
        s->pred[4 * p + 3] = vy;
        s->pred[4 * p] = fmod(px + DT * vx + ARENA, ARENA);
        s->pred[4 * p + 1] = fmod(py + DT * vy + ARENA, ARENA);
    }
}

static void integrate(School *s, const double *nvx, const double *nvy)
{
    for (int i = 0; i < NFISH; i++) {
        double sp = sqrt(nvx[i] * nvx[i] + nvy[i] * nvy[i]);
        float st = s->stamina[i] + (float)(DT * (sp > 1.2 ? -0.08 : 0.02));
        s->stamina[i] = st < 0.1f ? 0.1f : (st > 1.0f ? 1.0f : st);
        s->vx[i] = nvx[i];
        s->vy[i] = nvy[i];
        double x = s->x[i] + DT * nvx[i], y = s->y[i] + DT * nvy[i];
        if (x < 0) x += ARENA; else if (x >= ARENA) x -= ARENA;
        if (y < 0) y += ARENA; else if (y >= ARENA) y -= ARENA;
        s->x[i] = x;
        s->y[i] = y;
    }
    s->step++;
}

/* Polarisation, mean speed and mean stamina of the school. */
static void order_parameters(const School *s, double *pol, double *speed, double *stam)
{
    double sx = 0, sy = 0, ss = 0, st = 0;
    for (int i = 0; i < NFISH; i++) {
        double sp = sqrt(s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i]) + 1e-12;
        sx += s->vx[i] / sp;
        sy += s->vy[i] / sp;
        ss += sp;
        st += s->stamina[i];
    }
    *pol = sqrt(sx * sx + sy * sy) / NFISH;
    *speed = ss / NFISH;
    *stam = st / NFISH;
}

static void ckpt_name(char *buf, size_t n, long step, int tmp)
{
    snprintf(buf, n, "%s/ckpt_%06ld.bin%s", outdir, step, tmp ? ".tmp" : "");
}

static void pwrite_all(int fd, const void *buf, size_t n, off_t off, const char *path)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite", path);
        }
        p += w; n -= (size_t)w; off += w;
    }
}

static int pread_all(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) return -1; /* short file */
        p += r; n -= (size_t)r; off += r;
    }
    return 0;
}

static void write_checkpoint(const School *s)
{
    char tmp[600], fin[600];
    ckpt_name(tmp, sizeof tmp, s->step, 1);
    ckpt_name(fin, sizeof fin, s->step, 0);
    int fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) die("open", tmp);

    const void *sect[NSECT] = {s->x, s->y, s->vx, s->vy, s->stamina, s->pred};
    size_t len[NSECT] = {NFISH * sizeof(double), NFISH * sizeof(double),
                         NFISH * sizeof(double), NFISH * sizeof(double),
                         NFISH * sizeof(float), sizeof s->pred};
    CkptHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "FSHCKPT1", 8);
    h.version = 1; h.nfish = NFISH; h.npred = NPRED; h.nsect = NSECT;
    h.step = s->step;
    h.time = s->step * DT;
    uint64_t off = 4096; /* header page */
    for (int k = 0; k < NSECT; k++) {
        h.offset[k] = off;
        h.length[k] = len[k];
        h.crc[k] = crc32_buf(sect[k], len[k]);
        pwrite_all(fd, sect[k], len[k], (off_t)off, tmp);
        off += (len[k] + 4095) & ~(uint64_t)4095;
    }
    h.header_crc = crc32_buf(&h, offsetof(CkptHeader, header_crc));
    pwrite_all(fd, &h, sizeof h, 0, tmp);
    if (fsync(fd) != 0) die("fsync", tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, fin) != 0) die("rename", fin);
}

/* Load and validate a checkpoint; returns 0 on success, -1 if invalid. */
static int load_checkpoint(const char *path, School *s)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    CkptHeader h;
    int ok = pread_all(fd, &h, sizeof h, 0) == 0 && memcmp(h.magic, "FSHCKPT1", 8) == 0 &&
             h.header_crc == crc32_buf(&h, offsetof(CkptHeader, header_crc)) &&
             h.nfish == NFISH && h.npred == NPRED && h.nsect == NSECT;
    void *sect[NSECT] = {s->x, s->y, s->vx, s->vy, s->stamina, s->pred};
    const size_t expect[NSECT] = {NFISH * sizeof(double), NFISH * sizeof(double),
                                  NFISH * sizeof(double), NFISH * sizeof(double),
                                  NFISH * sizeof(float), sizeof s->pred};
    for (int k = 0; ok && k < NSECT; k++) {
        if (h.length[k] != expect[k] ||
            pread_all(fd, sect[k], h.length[k], (off_t)h.offset[k]) != 0 ||
            crc32_buf(sect[k], h.length[k]) != h.crc[k])
            ok = 0;
    }
    if (close(fd) != 0) die("close", path);
    if (!ok) return -1;
    s->step = h.step;
    return 0;
}

/* Simulate a crash during the last checkpoint: chop it in half. */
static void damage_newest(long step)
{
    char path[600];
    ckpt_name(path, sizeof path, step, 0);
    struct stat st;
    if (stat(path, &st) != 0) die("stat", path);
    if (truncate(path, st.st_size / 2) != 0) die("truncate", path);
}

/* Collect checkpoint steps found in the directory, newest first. */
static int list_checkpoints(long *steps, int max)
{
    DIR *d = opendir(outdir);
    if (!d) die("opendir", outdir);
    int n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        long st;
        char tail[16];
        if (sscanf(e->d_name, "ckpt_%ld.%15s", &st, tail) == 2 && strcmp(tail, "bin") == 0 &&
            n < max)
            steps[n++] = st;
    }
    if (errno != 0) die("readdir", outdir);
    closedir(d);
    for (int i = 1; i < n; i++) { /* insertion sort, descending */
        long v = steps[i];
        int j = i - 1;
        while (j >= 0 && steps[j] < v) { steps[j + 1] = steps[j]; j--; }
        steps[j + 1] = v;
    }
    return n;
}

static void simulate(School *s, long until, double *nvx, double *nvy, FILE *log, int ckpt)
{
    while (s->step < until) {
        build_cells(s);
        steer_fish(s, nvx, nvy, s->step);
        move_predators(s);
        integrate(s, nvx, nvy);
        if (log) {
            double pol, sp, st;
            order_parameters(s, &pol, &sp, &st);
            if (fprintf(log, "%ld,%.3f,%.6f,%.6f,%.6f\n", s->step, s->step * DT, pol, sp, st) < 0)
                die("fprintf", "metrics.csv");
        }
        if (ckpt && s->step % CKPT_EVERY == 0) write_checkpoint(s);
    }
}

/* Re-read every checkpoint and write a timeline of school statistics. */
static int audit_checkpoints(School *tmp)
{
    long steps[NSTEPS / CKPT_EVERY + 8];
    int n = list_checkpoints(steps, NSTEPS / CKPT_EVERY + 8);
    char path[600];
    snprintf(path, sizeof path, "%s/checkpoint_audit.csv", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "step,valid,polarisation,mean_speed,mean_stamina,pred_mean_x,pred_mean_y\n");
    int valid = 0;
    for (int k = n - 1; k >= 0; k--) {
        char cp[600];
        ckpt_name(cp, sizeof cp, steps[k], 0);
        if (load_checkpoint(cp, tmp) != 0) {
            fprintf(f, "%ld,0,,,,,\n", steps[k]);
            continue;
        }
        valid++;
        double pol, sp, st, pmx = 0, pmy = 0;
        order_parameters(tmp, &pol, &sp, &st);
        for (int p = 0; p < NPRED; p++) { pmx += tmp->pred[4 * p]; pmy += tmp->pred[4 * p + 1]; }
        fprintf(f, "%ld,1,%.6f,%.6f,%.6f,%.3f,%.3f\n", steps[k], pol, sp, st, pmx / NPRED,
                pmy / NPRED);
    }
    if (ferror(f) || fclose(f) != 0) die("write", path);
    return valid;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    crc_init();

    School ref, rst;
    school_alloc(&ref);
    school_alloc(&rst);
    double *nvx = xmalloc(NFISH * sizeof(double)), *nvy = xmalloc(NFISH * sizeof(double));

    char path[600];
    snprintf(path, sizeof path, "%s/metrics.csv", outdir);
    FILE *log = fopen(path, "w");
    if (!log) die("fopen", path);
    fprintf(log, "step,time,polarisation,mean_speed,mean_stamina\n");

    init_school(&ref);
    write_checkpoint(&ref);
    simulate(&ref, NSTEPS, nvx, nvy, log, 1);
    if (ferror(log) || fclose(log) != 0) die("write", path);

    /* crash, then restart from the newest checkpoint that validates */
    damage_newest(ref.step);
    long steps[NSTEPS / CKPT_EVERY + 8];
    int n = list_checkpoints(steps, NSTEPS / CKPT_EVERY + 8);
    int k, rejected = 0;
    for (k = 0; k < n; k++) {
        char cp[600];
        ckpt_name(cp, sizeof cp, steps[k], 0);
        if (load_checkpoint(cp, &rst) == 0) break;
        rejected++;
    }
    if (k == n) {
        fprintf(stderr, "fish_school_boids_ckpt: no valid checkpoint found\n");
        return 1;
    }
    long resumed = rst.step;
    simulate(&rst, NSTEPS, nvx, nvy, NULL, 0);
    int same = memcmp(ref.x, rst.x, NFISH * sizeof(double)) == 0 &&
               memcmp(ref.vy, rst.vy, NFISH * sizeof(double)) == 0 &&
               memcmp(ref.pred, rst.pred, sizeof ref.pred) == 0;
    write_checkpoint(&rst); /* replace the damaged one */

    int valid = audit_checkpoints(&rst);
    double pol, sp, st;
    order_parameters(&ref, &pol, &sp, &st);
    printf("fish school: %d fish, %d predators, %d steps, %d checkpoints valid\n", NFISH, NPRED,
           NSTEPS, valid);
    printf("restart: rejected %d damaged, resumed at step %ld, bitwise identical: %s\n", rejected,
           resumed, same ? "yes" : "NO");
    printf("final polarisation %.4f mean speed %.4f stamina %.4f\n", pol, sp, st);
    free(nvx); free(nvy);
    school_free(&ref); school_free(&rst);
    return same ? 0 : 1;
}
