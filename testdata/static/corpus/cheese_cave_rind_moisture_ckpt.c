/*
 * cheese_cave_rind_moisture_ckpt.c
 *
 * Affinage cave simulation with checkpoint/restart.
 *
 * The cave air is a 2-D vertical section (temperature and relative humidity)
 * stirred by a ventilation fan and cooled by a wall chiller.  Racks of cheese
 * wheels sit in the section; each wheel has a 1-D radial moisture and salt
 * profile (brine-rubbed rind, water migrating outward and evaporating into
 * the cave air) plus a surface mould coverage that grows with humidity.
 *
 * Every CKPT_EVERY steps the full state goes to a binary checkpoint file
 * written row by row with write(2), its CRC-32 header patched with pwrite(2),
 * fsync'ed and renamed into place.  A per-step text log records cave means.
 * After the run, the last checkpoint is truncated (simulated crash during a
 * write), the in-memory state is discarded, the newest *valid* checkpoint is
 * located and loaded, the run is replayed to the end and compared bitwise
 * with the reference state.
 *
 * Usage: cheese_cave_rind_moisture_ckpt OUTDIR
 */
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

#define PI 3.14159265358979323846
#define NX 384            /* air cells along the cave */
#define NY 160            /* air cells floor to ceiling */
#define NWHEEL 480        /* cheese wheels on the racks */
#define NRAD 48           /* radial cells per wheel */
#define NSTEP 600
#define CKPT_EVERY 40
#define CKPT_MAGIC 0x43415645u /* 'CAVE' */

typedef struct {
    uint32_t magic;
    uint32_t version;
    int32_t step;
    int32_t nx, ny, nwheel, nrad;
    uint32_t crc;
    uint64_t payload_bytes;
} ckpt_header;

typedef struct {
    double *temp;   /* NX*NY, C */
    double *rh;     /* NX*NY, 0..1 */
    double *moist;  /* NWHEEL*NRAD, kg/kg */
    double *salt;   /* NWHEEL*NRAD, kg/kg */
    double *mould;  /* NWHEEL, coverage 0..1 */
    int *wx, *wy;   /* wheel air cell */
    int step;
} cave_state;

static const char *g_dir;
static uint32_t crc_table[256];
static FILE *g_log;
static double g_u[NX * NY], g_v[NX * NY];

static void die(const char *what)
{
    fprintf(stderr, "cheese_cave: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p) die("calloc");
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

static uint32_t crc_update(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static void alloc_state(cave_state *s)
{
    s->temp = xcalloc((size_t)NX * NY, sizeof(double));
    s->rh = xcalloc((size_t)NX * NY, sizeof(double));
    s->moist = xcalloc((size_t)NWHEEL * NRAD, sizeof(double));
    s->salt = xcalloc((size_t)NWHEEL * NRAD, sizeof(double));
    s->mould = xcalloc(NWHEEL, sizeof(double));
    s->wx = xcalloc(NWHEEL, sizeof(int));
    s->wy = xcalloc(NWHEEL, sizeof(int));
}

static void free_state(cave_state *s)
{
    free(s->temp); free(s->rh); free(s->moist); free(s->salt);
    free(s->mould); free(s->wx); free(s->wy);
}

/* Initial cave climate and rack layout; freshly brined wheels. */
static void init_cave(cave_state *s)
{
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double h = (double)j / NY;
            s->temp[j * NX + i] = 11.5 + 1.5 * h;
            s->rh[j * NX + i] = 0.93 - 0.04 * h;
        }
    for (int w = 0; w < NWHEEL; w++) {
        int rack = w / 60, shelf = (w % 60) / 12, slot = w % 12;
        s->wx[w] = 20 + rack * 44 + slot * 3;
        s->wy[w] = 12 + shelf * 28;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        double age = (double)(rng % 1000) / 1000.0; /* days since brining, scaled */
        for (int r = 0; r < NRAD; r++) {
            double x = (r + 0.5) / NRAD;
            s->moist[w * NRAD + r] = 0.42 - 0.05 * age * x * x;
            s->salt[w * NRAD + r] = 0.035 * exp(-(1.0 - x) * 12.0 / (0.3 + age));
        }
        s->mould[w] = 0.01 + 0.05 * age;
    }
    s->step = 0;
}

/* Steady fan-driven circulation: one closed cell with the fan at the ceiling. */
static void init_fan_flow(void)
{
    for (int j = 0; j < NY; j++) {
        double yy = (j + 0.5) / NY;
        for (int i = 0; i < NX; i++) {
            double xx = (i + 0.5) / NX;
            g_u[j * NX + i] = 0.006 * sin(PI * yy - PI / 2) * sin(PI * xx);
            g_v[j * NX + i] = -0.006 * cos(PI * xx) * cos(PI * yy - PI / 2) * 0.4;
        }
    }
}

/* Air: upwind advection by the fan loop + diffusion + chiller + wheel moisture. */
static void step_air(cave_state *s, const double *evap)
{
    static double tn[NX * NY], hn[NX * NY];
    const double dt = 2.0, dx = 0.05, kdiff = 1.0e-4;
    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
            int c = j * NX + i;
            double u = g_u[c], v = g_v[c];
            int im = i > 0 ? c - 1 : c, ip = i < NX - 1 ? c + 1 : c;
            int jm = j > 0 ? c - NX : c, jp = j < NY - 1 ? c + NX : c;
            double dTx = u > 0 ? s->temp[c] - s->temp[im] : s->temp[ip] - s->temp[c];
            double dTy = v > 0 ? s->temp[c] - s->temp[jm] : s->temp[jp] - s->temp[c];
            double dHx = u > 0 ? s->rh[c] - s->rh[im] : s->rh[ip] - s->rh[c];
            double dHy = v > 0 ? s->rh[c] - s->rh[jm] : s->rh[jp] - s->rh[c];
            double lapT = s->temp[im] + s->temp[ip] + s->temp[jm] + s->temp[jp] - 4 * s->temp[c];
            double lapH = s->rh[im] + s->rh[ip] + s->rh[jm] + s->rh[jp] - 4 * s->rh[c];
            tn[c] = s->temp[c] + dt * (-(u * dTx + v * dTy) / dx + kdiff * lapT / (dx * dx));
            hn[c] = s->rh[c] + dt * (-(u * dHx + v * dHy) / dx + kdiff * lapH / (dx * dx));
            if (i == NX - 1) tn[c] -= dt * 0.002 * (tn[c] - 9.0);      /* chiller wall */
            if (j == NY - 1 && i < 8) hn[c] += dt * 0.003 * (0.97 - hn[c]); /* humidifier */
        }
    }
    for (int w = 0; w < NWHEEL; w++) {
        int c = s->wy[w] * NX + s->wx[w];
        hn[c] += evap[w] * 40.0;
        tn[c] -= evap[w] * 15.0;
    }
    for (int c = 0; c < NX * NY; c++) {
        s->temp[c] = tn[c];
        s->rh[c] = hn[c] < 0.3 ? 0.3 : (hn[c] > 1.0 ? 1.0 : hn[c]);
    }
}

/* Wheels: radial diffusion of water and salt, surface evaporation, mould growth. */
static void step_wheels(cave_state *s, double *evap)
{
    double mn[NRAD], sn[NRAD];
    const double dt = 2.0, dr = 0.12 / NRAD;
    const double dw = 4.0e-7, ds = 2.5e-7;
    for (int w = 0; w < NWHEEL; w++) {
        double *m = s->moist + (size_t)w * NRAD, *sa = s->salt + (size_t)w * NRAD;
        int c = s->wy[w] * NX + s->wx[w];
        double rh = s->rh[c], t = s->temp[c];
        for (int sub = 0; sub < 4; sub++) {
            for (int r = 0; r < NRAD; r++) {
                double rc = (r + 0.5) * dr, rp = (r + 1.0) * dr, rm = r * dr;
                double fm = 0, fs = 0;
                if (r < NRAD - 1) {
                    fm += rp * (m[r + 1] - m[r]);
                    fs += rp * (sa[r + 1] - sa[r]);
                }
                if (r > 0) {
                    fm -= rm * (m[r] - m[r - 1]);
                    fs -= rm * (sa[r] - sa[r - 1]);
                }
                mn[r] = m[r] + 0.25 * dt * dw * fm / (rc * dr * dr);
                sn[r] = sa[r] + 0.25 * dt * ds * fs / (rc * dr * dr);
            }
            /* water activity at the rind lowered by salt */
            double aw = 1.0 - 0.6 * sn[NRAD - 1] - 0.2 * s->mould[w];
            double psat = 611.2 * exp(17.62 * t / (243.12 + t));
            double flux = 2.0e-10 * psat * (aw * mn[NRAD - 1] / 0.42 - rh);
            if (flux < 0) flux *= 0.2;
            mn[NRAD - 1] -= 0.25 * dt * flux / dr;
            if (mn[NRAD - 1] < 0.05) mn[NRAD - 1] = 0.05;
            if (mn[NRAD - 1] < 0.05) mn[NRAD - 1] = 0.05;
            memcpy(m, mn, sizeof mn);
            memcpy(sa, sn, sizeof sn);
            evap[w] = flux * 1e-3;
        }
        double g = rh > 0.88 ? 0.002 * (rh - 0.88) / 0.12 : -0.0002;
        s->mould[w] += dt * g * s->mould[w] * (1.0 - s->mould[w]);
        if (s->mould[w] < 0.0) s->mould[w] = 0.0;
    }
}

static void write_all(int fd, const void *buf, size_t len, const char *what)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            die(what);
        }
        p += n;
        len -= (size_t)n;
    }
}

static void ckpt_name(char *buf, size_t n, int step)
{
    snprintf(buf, n, "%s/ckpt_%05d.bin", g_dir, step);
}

/* Row-by-row binary checkpoint: header placeholder, payload, then header patch. */
static void write_checkpoint(const cave_state *s)
{
    char tmp[1024], fin[1024];
    ckpt_header h = {CKPT_MAGIC, 1, s->step, NX, NY, NWHEEL, NRAD, 0, 0};
    uint32_t crc = 0;
    uint64_t bytes = 0;
    snprintf(tmp, sizeof tmp, "%s/ckpt.tmp", g_dir);
    ckpt_name(fin, sizeof fin, s->step);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open checkpoint");
    write_all(fd, &h, sizeof h, "write checkpoint header");
    for (int j = 0; j < NY; j++) {
        const double *row = s->temp + (size_t)j * NX;
        write_all(fd, row, NX * sizeof(double), "write temp row");
        crc = crc_update(crc, row, NX * sizeof(double));
        bytes += NX * sizeof(double);
    }
    for (int j = 0; j < NY; j++) {
        const double *row = s->rh + (size_t)j * NX;
        write_all(fd, row, NX * sizeof(double), "write rh row");
        crc = crc_update(crc, row, NX * sizeof(double));
        bytes += NX * sizeof(double);
    }
    for (int w = 0; w < NWHEEL; w++) {
        write_all(fd, s->moist + (size_t)w * NRAD, NRAD * sizeof(double), "write wheel");
        write_all(fd, s->salt + (size_t)w * NRAD, NRAD * sizeof(double), "write wheel");
        crc = crc_update(crc, s->moist + (size_t)w * NRAD, NRAD * sizeof(double));
        crc = crc_update(crc, s->salt + (size_t)w * NRAD, NRAD * sizeof(double));
        bytes += 2 * NRAD * sizeof(double);
    }
    write_all(fd, s->mould, NWHEEL * sizeof(double), "write mould");
    crc = crc_update(crc, s->mould, NWHEEL * sizeof(double));
    bytes += NWHEEL * sizeof(double);
    h.crc = crc;
    h.payload_bytes = bytes;
    if (pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) die("pwrite checkpoint header");
    if (fdatasync(fd) != 0) die("fdatasync checkpoint");
    if (close(fd) != 0) die("close checkpoint");
    if (rename(tmp, fin) != 0) die("rename checkpoint");
}

static void log_step(const cave_state *s)
{
    double tm = 0, hm = 0, hmin = 1, mm = 0, mo = 0;
    for (int c = 0; c < NX * NY; c++) {
        tm += s->temp[c];
        hm += s->rh[c];
        if (s->rh[c] < hmin) hmin = s->rh[c];
    }
    for (int w = 0; w < NWHEEL; w++) {
        mm += s->moist[(size_t)w * NRAD + NRAD / 2];
        mo += s->mould[w];
    }
    if (fprintf(g_log, "%5d %9.5f %8.5f %8.5f %9.6f %8.5f\n", s->step, tm / (NX * NY),
                hm / (NX * NY), hmin, mm / NWHEEL, mo / NWHEEL) < 0)
        die("write log");
}

/* Returns 0 if the checkpoint is complete and its CRC matches. */
static int read_checkpoint(const char *path, cave_state *s)
{
    ckpt_header h;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = read(fd, &h, sizeof h);
    if (n != (ssize_t)sizeof h || h.magic != CKPT_MAGIC || h.nx != NX || h.ny != NY ||
        h.nwheel != NWHEEL || h.nrad != NRAD) {
        close(fd);
        return -1;
    }
    uint32_t crc = 0;
    struct { double *p; size_t len; } parts[3] = {
        {s->temp, (size_t)NX * NY}, {s->rh, (size_t)NX * NY}, {NULL, 0}};
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < NY; j++) {
            double *row = parts[k].p + (size_t)j * NX;
            if (read(fd, row, NX * sizeof(double)) != (ssize_t)(NX * sizeof(double))) {
                close(fd);
                return -1;
            }
            crc = crc_update(crc, row, NX * sizeof(double));
        }
    }
    for (int w = 0; w < NWHEEL; w++) {
        double *m = s->moist + (size_t)w * NRAD, *sa = s->salt + (size_t)w * NRAD;
        if (read(fd, m, NRAD * sizeof(double)) != (ssize_t)(NRAD * sizeof(double)) ||
            read(fd, sa, NRAD * sizeof(double)) != (ssize_t)(NRAD * sizeof(double))) {
            close(fd);
            return -1;
        }
        crc = crc_update(crc, m, NRAD * sizeof(double));
        crc = crc_update(crc, sa, NRAD * sizeof(double));
    }
    if (read(fd, s->mould, NWHEEL * sizeof(double)) != (ssize_t)(NWHEEL * sizeof(double))) {
        close(fd);
        return -1;
    }
    crc = crc_update(crc, s->mould, NWHEEL * sizeof(double));
    if (close(fd) != 0) die("close checkpoint");
    if (crc != h.crc) return -1;
    s->step = h.step;
    return 0;
}

/* Simulated crash: the newest checkpoint loses its tail. */
static void damage_newest(int step)
{
    char path[1024];
    struct stat st;
    ckpt_name(path, sizeof path, step);
    if (stat(path, &st) != 0) die("stat newest checkpoint");
    if (truncate(path, st.st_size / 3) != 0) die("truncate checkpoint");
}

/* Probe checkpoints from newest to oldest until one verifies. */
static int restart_from_latest(cave_state *s)
{
    char path[1024];
    struct stat st;
    for (int step = NSTEP; step >= 0; step -= CKPT_EVERY) {
        ckpt_name(path, sizeof path, step);
        if (stat(path, &st) != 0) continue;
        if (read_checkpoint(path, s) == 0) {
            printf("restart: loaded %s (%lld bytes)\n", strrchr(path, '/') + 1,
                   (long long)st.st_size);
            return step;
        }
        printf("restart: rejected %s (%lld bytes)\n", strrchr(path, '/') + 1,
               (long long)st.st_size);
    }
    return -1;
}

static void run_steps(cave_state *s, int until, int do_io)
{
    double evap[NWHEEL];
    while (s->step < until) {
        step_wheels(s, evap);
        step_air(s, evap);
        s->step++;
        if (do_io) {
            log_step(s);
            if (s->step % CKPT_EVERY == 0) write_checkpoint(s);
        }
    }
}

static void write_report(const cave_state *ref, const cave_state *re, int restart_step)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/affinage_report.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("open report");
    size_t ndiff = 0;
    for (int c = 0; c < NX * NY; c++)
        if (ref->temp[c] != re->temp[c] || ref->rh[c] != re->rh[c]) ndiff++;
    for (int k = 0; k < NWHEEL * NRAD; k++)
        if (ref->moist[k] != re->moist[k] || ref->salt[k] != re->salt[k]) ndiff++;
    fprintf(f, "restart_step %d\nmismatched_values %zu\n", restart_step, ndiff);
    fprintf(f, "wheel rack shelf  rind_moist  core_moist  rind_salt  mould\n");
    for (int w = 0; w < NWHEEL; w++) {
        const double *m = ref->moist + (size_t)w * NRAD, *sa = ref->salt + (size_t)w * NRAD;
        fprintf(f, "%5d %4d %5d %11.5f %11.5f %10.5f %6.3f\n", w, w / 60, (w % 60) / 12,
                m[NRAD - 1], m[0], sa[NRAD - 1], ref->mould[w]);
    }
    if (fclose(f) != 0) die("close report");
    printf("replayed from step %d: %zu mismatched values\n", restart_step, ndiff);
    if (ndiff != 0) {
        fprintf(stderr, "restart replay diverged\n");
        exit(3);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    g_dir = argv[1];
    crc_init();
    init_fan_flow();
    char path[1024];
    snprintf(path, sizeof path, "%s/cave_log.txt", g_dir);
    g_log = fopen(path, "w");
    if (!g_log) die("open log");
    setvbuf(g_log, NULL, _IOLBF, 0);

    cave_state ref, re;
    alloc_state(&ref);
    init_cave(&ref);
    write_checkpoint(&ref);
    run_steps(&ref, NSTEP, 1);
    if (fclose(g_log) != 0) die("close log");

    damage_newest(NSTEP);
    alloc_state(&re);
    init_cave(&re); /* geometry only; fields come from the checkpoint */
    memset(re.temp, 0, sizeof(double) * NX * NY);
    int rs = restart_from_latest(&re);
    if (rs < 0) {
        fprintf(stderr, "no valid checkpoint\n");
        return 3;
    }
    run_steps(&re, NSTEP, 0);
    write_report(&ref, &re, rs);
    free_state(&ref);
    free_state(&re);
    return 0;
}
