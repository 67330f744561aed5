/*
 * debris_cloud_ckpt_restart.c
 *
 * Evolution of a debris cloud after an on-orbit fragmentation in a
 * sun-synchronous orbit.  Fragments are sampled from a simplified
 * breakup model (log-normal delta-v and area-to-mass ratio) and
 * propagated with RK4 under two-body gravity, J2 and exponential-
 * atmosphere drag.  Every CKPT_EVERY steps the full state is written as
 * a CRC-protected binary checkpoint (pwrite of structure-of-arrays
 * sections, header committed last, fsync, rename) together with a text
 * Gabbard diagram and a hash-grid conjunction screen against a small
 * catalogue of active satellites.
 *
 * Half-way the run "crashes": state is discarded, the directory is
 * probed for the newest valid checkpoint, and the run restarts from it.
 *
 * usage: debris_cloud_ckpt_restart OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define NFRAG       30000
#define NASSET      48
#define DT          60.0          /* s */
#define NSTEPS      300
#define CKPT_EVERY  30
#define CRASH_STEP  170           /* state is lost after this step */
#define MU          3.986004418e14
#define RE          6378137.0
#define J2          1.08262668e-3
#define CD          2.2
#define OMEGA_E     7.2921159e-5
#define SCREEN_KM   50.0
#define CKPT_MAGIC  0x4b43424544ULL /* "DEBCK" */

typedef struct {
    double x[NFRAG], y[NFRAG], z[NFRAG];
    double vx[NFRAG], vy[NFRAG], vz[NFRAG];
    double am[NFRAG];              /* area-to-mass ratio m^2/kg */
    int32_t alive[NFRAG];
    int step;
    double t;
} cloud_t;

typedef struct {
    uint64_t magic;
    uint32_t version;
    uint32_t nfrag;
    int64_t step;
    double t;
    uint64_t payload_bytes;
    uint32_t payload_crc;
    uint32_t header_crc;           /* over all preceding fields */
    uint8_t pad[16];
} ckpt_header_t;

static const char *g_dir;
static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static uint32_t crc_table[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "debris_cloud_ckpt_restart: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static uint64_t rng_next(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_uniform(void) { return (double)(rng_next() >> 11) * 0x1.0p-53; }

static double rng_normal(void)
{
    double u1 = rng_uniform(), u2 = rng_uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* Exponential atmosphere, piecewise (base altitude km, density kg/m^3, scale height km). */
static double air_density(double alt_m)
{
    static const double tab[][3] = {
        {100, 5.297e-7, 5.877},  {150, 2.070e-9, 22.523}, {200, 2.789e-10, 37.105},
        {250, 7.248e-11, 45.546}, {300, 2.418e-11, 53.628}, {350, 9.518e-12, 53.298},
        {400, 3.725e-12, 58.515}, {450, 1.585e-12, 60.828}, {500, 6.967e-13, 63.822},
        {600, 1.454e-13, 71.835}, {700, 3.614e-14, 88.667}, {800, 1.170e-14, 124.64},
        {900, 5.245e-15, 181.05}, {1000, 3.019e-15, 268.00}};
    double h = alt_m / 1000.0;
    int n = (int)(sizeof tab / sizeof tab[0]);
    if (h < tab[0][0]) h = tab[0][0];
    int k = n - 1;
    while (k > 0 && h < tab[k][0]) k--;
    return tab[k][1] * exp(-(h - tab[k][0]) / tab[k][2]);
}

static inline void accel(double x, double y, double z, double vx, double vy, double vz,
                         double am, double *ax, double *ay, double *az)
{
    double r2 = x * x + y * y + z * z;
    double r = sqrt(r2);
    double ir3 = 1.0 / (r2 * r);
    double zr2 = z * z / r2;
    double k = 1.5 * J2 * RE * RE / r2;
    double gx = -MU * x * ir3 * (1.0 + k * (1.0 - 5.0 * zr2));
    double gy = -MU * y * ir3 * (1.0 + k * (1.0 - 5.0 * zr2));
    double gz = -MU * z * ir3 * (1.0 + k * (3.0 - 5.0 * zr2));
    /* drag relative to co-rotating atmosphere */
    double wx = vx + OMEGA_E * y, wy = vy - OMEGA_E * x, wz = vz;
    double w = sqrt(wx * wx + wy * wy + wz * wz);
    double rho = air_density(r - RE);
    double d = -0.5 * CD * am * rho * w;
    *ax = gx + d * wx;
    *ay = gy + d * wy;
    *az = gz + d * wz;
}

/* Sample fragments around a parent in a 780 km, 98.6 deg circular orbit. */
static void generate_breakup(cloud_t *c)
{
    double a = RE + 780e3, inc = 98.6 * M_PI / 180.0, raan = 0.7, u0 = 0.3;
    double v = sqrt(MU / a);
    double px = a * (cos(raan) * cos(u0) - sin(raan) * sin(u0) * cos(inc));
    double py = a * (sin(raan) * cos(u0) + cos(raan) * sin(u0) * cos(inc));
    double pz = a * sin(u0) * sin(inc);
    double pvx = v * (-cos(raan) * sin(u0) - sin(raan) * cos(u0) * cos(inc));
    double pvy = v * (-sin(raan) * sin(u0) + cos(raan) * cos(u0) * cos(inc));
    double pvz = v * cos(u0) * sin(inc);
    for (int i = 0; i < NFRAG; i++) {
        /* characteristic length 1 mm .. 1 m, power-law distributed */
        double lc = 0.001 * pow(1000.0, pow(rng_uniform(), 2.5));
        double lam = log10(lc);
        double log_am = -0.3 - 0.6 * lam + 0.35 * rng_normal();
        double am = pow(10.0, log_am) * 0.05;
        if (am > 2.0) am = 2.0;
        double chi = log10(am);
        double dv = pow(10.0, 0.2 * chi + 1.85 + 0.4 * rng_normal()); /* m/s */
        if (dv > 1500.0) dv = 1500.0;
        double cz = 2.0 * rng_uniform() - 1.0, ph = 2.0 * M_PI * rng_uniform();
        double sz = sqrt(1.0 - cz * cz);
        c->x[i] = px;  c->y[i] = py;  c->z[i] = pz;
        c->vx[i] = pvx + dv * sz * cos(ph);
        c->vy[i] = pvy + dv * sz * sin(ph);
        c->vz[i] = pvz + dv * cz;
        c->am[i] = am;
        c->alive[i] = 1;
    }
    c->step = 0;
    c->t = 0.0;
}

/* RK4 propagation of all live fragments over nsteps; returns new decays. */
static int propagate(cloud_t *c, int nsteps)
{
    int decayed = 0;
    for (int s = 0; s < nsteps; s++) {
        for (int i = 0; i < NFRAG; i++) {
            if (!c->alive[i]) continue;
            double x = c->x[i], y = c->y[i], z = c->z[i];
            double vx = c->vx[i], vy = c->vy[i], vz = c->vz[i], am = c->am[i];
            double k1x, k1y, k1z, k2x, k2y, k2z, k3x, k3y, k3z, k4x, k4y, k4z;
            double h = DT, h2 = 0.5 * DT;
            accel(x, y, z, vx, vy, vz, am, &k1x, &k1y, &k1z);
            double x2 = x + h2 * vx, y2 = y + h2 * vy, z2 = z + h2 * vz;
            double vx2 = vx + h2 * k1x, vy2 = vy + h2 * k1y, vz2 = vz + h2 * k1z;
            accel(x2, y2, z2, vx2, vy2, vz2, am, &k2x, &k2y, &k2z);
            double x3 = x + h2 * vx2, y3 = y + h2 * vy2, z3 = z + h2 * vz2;
            double vx3 = vx + h2 * k2x, vy3 = vy + h2 * k2y, vz3 = vz + h2 * k2z;
            accel(x3, y3, z3, vx3, vy3, vz3, am, &k3x, &k3y, &k3z);
            double x4 = x + h * vx3, y4 = y + h * vy3, z4 = z + h * vz3;
            double vx4 = vx + h * k3x, vy4 = vy + h * k3y, vz4 = vz + h * k3z;
            accel(x4, y4, z4, vx4, vy4, vz4, am, &k4x, &k4y, &k4z);
            c->x[i] = x + h / 6.0 * (vx + 2 * vx2 + 2 * vx3 + vx4);
            c->y[i] = y + h / 6.0 * (vy + 2 * vy2 + 2 * vy3 + vy4);
            c->z[i] = z + h / 6.0 * (vz + 2 * vz2 + 2 * vz3 + vz4);
            c->vx[i] = vx + h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x);
            c->vy[i] = vy + h / 6.0 * (k1y + 2 * k2y + 2 * k3y + k4y);
            c->vz[i] = vz + h / 6.0 * (k1z + 2 * k2z + 2 * k3z + k4z);
            double r = sqrt(c->x[i] * c->x[i] + c->y[i] * c->y[i] + c->z[i] * c->z[i]);
            if (r - RE < 120e3) { c->alive[i] = 0; decayed++; }
        }
        c->step++;
        c->t += DT;
    }
    return decayed;
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
        if (r == 0) return -1;          /* short file */
        p += r; len -= (size_t)r; off += r;
    }
    return 0;
}

/* Section table: the state arrays in checkpoint order. */
static void sections(cloud_t *c, void *ptr[8], size_t len[8])
{
    ptr[0] = c->x;  ptr[1] = c->y;  ptr[2] = c->z;
    ptr[3] = c->vx; ptr[4] = c->vy; ptr[5] = c->vz;
    ptr[6] = c->am; ptr[7] = c->alive;
    for (int k = 0; k < 7; k++) len[k] = sizeof(double) * NFRAG;
    len[7] = sizeof(int32_t) * NFRAG;
}

static void write_checkpoint(cloud_t *c)
{
    char tmp[1024], fin[1024];
    snprintf(tmp, sizeof tmp, "%s/ckpt_%05d.tmp", g_dir, c->step);
    snprintf(fin, sizeof fin, "%s/ckpt_%05d.bin", g_dir, c->step);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    void *ptr[8]; size_t len[8];
    sections(c, ptr, len);
    off_t off = sizeof(ckpt_header_t);
    uint32_t crc = 0;
    uint64_t total = 0;
    for (int k = 0; k < 8; k++) {
        /* write in 256 KiB pieces so a torn write leaves a recognisable prefix */
        const char *p = ptr[k];
        size_t left = len[k];
        while (left > 0) {
            size_t n = left < (256u << 10) ? left : (256u << 10);
            pwrite_all(fd, p, n, off, tmp);
            crc = crc32_update(crc, p, n);
            p += n; off += (off_t)n; left -= n; total += n;
        }
    }
    ckpt_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = CKPT_MAGIC; h.version = 2; h.nfrag = NFRAG;
    h.step = c->step; h.t = c->t;
    h.payload_bytes = total; h.payload_crc = crc;
    h.header_crc = crc32_update(0, &h, offsetof(ckpt_header_t, header_crc));
    pwrite_all(fd, &h, sizeof h, 0, tmp);
    if (fsync(fd) != 0) die("fsync", tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, fin) != 0) die("rename", fin);
}

/* Validate checkpoint; on success (and if c != NULL) load it. */
static int read_checkpoint(const char *path, cloud_t *c, int *step_out)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ckpt_header_t h;
    int ok = -1;
    if (pread_all(fd, &h, sizeof h, 0) == 0 && h.magic == CKPT_MAGIC && h.nfrag == NFRAG &&
        h.header_crc == crc32_update(0, &h, offsetof(ckpt_header_t, header_crc))) {
        void *ptr[8]; size_t len[8];
        cloud_t *dst = c;
        static cloud_t scratch;
        if (!dst) dst = &scratch;
        sections(dst, ptr, len);
        off_t off = sizeof h;
        uint32_t crc = 0;
        ok = 0;
        for (int k = 0; k < 8 && ok == 0; k++) {
            if (pread_all(fd, ptr[k], len[k], off) != 0) { ok = -1; break; }
            crc = crc32_update(crc, ptr[k], len[k]);
            off += (off_t)len[k];
        }
        if (ok == 0 && crc != h.payload_crc) ok = -1;
        if (ok == 0) {
            dst->step = (int)h.step;
            dst->t = h.t;
            if (step_out) *step_out = (int)h.step;
        }
    }
    if (close(fd) != 0) die("close", path);
    return ok;
}

/* Probe checkpoint names newest-first and return the newest valid one. */
static int find_latest_checkpoint(cloud_t *c)
{
    char path[1024];
    for (int s = (NSTEPS / CKPT_EVERY) * CKPT_EVERY; s > 0; s -= CKPT_EVERY) {
        snprintf(path, sizeof path, "%s/ckpt_%05d.bin", g_dir, s);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        int got;
        if (read_checkpoint(path, c, &got) == 0) {
            printf("  restart: ckpt_%05d.bin valid (%lld bytes)\n", s, (long long)st.st_size);
            return got;
        }
        printf("  restart: ckpt_%05d.bin rejected\n", s);
    }
    return -1;
}

/* Simulated crash while checkpointing: a torn file whose header was never committed. */
static void write_torn_checkpoint(cloud_t *c)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ckpt_%05d.bin", g_dir, (c->step / CKPT_EVERY + 1) * CKPT_EVERY);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    ckpt_header_t h;
    memset(&h, 0, sizeof h);
    pwrite_all(fd, &h, sizeof h, 0, path);
    pwrite_all(fd, c->x, sizeof(double) * NFRAG, sizeof h, path);
    if (close(fd) != 0) die("close", path);
}

/* Osculating apogee/perigee altitude and period of every live fragment. */
static void write_gabbard(cloud_t *c)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gabbard_%05d.txt", g_dir, c->step);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "# t=%.1f s  id period_min apogee_km perigee_km am\n", c->t) < 0)
        die("fprintf", path);
    for (int i = 0; i < NFRAG; i++) {
        if (!c->alive[i]) continue;
        double r = sqrt(c->x[i] * c->x[i] + c->y[i] * c->y[i] + c->z[i] * c->z[i]);
        double v2 = c->vx[i] * c->vx[i] + c->vy[i] * c->vy[i] + c->vz[i] * c->vz[i];
        double a = 1.0 / (2.0 / r - v2 / MU);
        double hx = c->y[i] * c->vz[i] - c->z[i] * c->vy[i];
        double hy = c->z[i] * c->vx[i] - c->x[i] * c->vz[i];
        double hz = c->x[i] * c->vy[i] - c->y[i] * c->vx[i];
        double h2 = hx * hx + hy * hy + hz * hz;
        double e = sqrt(fmax(0.0, 1.0 - h2 / (MU * a)));
        if (a <= 0) continue;
        double per = 2.0 * M_PI * sqrt(a * a * a / MU) / 60.0;
        if (fprintf(f, "%6d %9.3f %10.3f %10.3f %.5f\n", i, per, (a * (1 + e) - RE) / 1e3,
                    (a * (1 - e) - RE) / 1e3, c->am[i]) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Active-satellite catalogue on circular orbits, positions at time t. */
static void asset_positions(double t, double pos[NASSET][3])
{
    for (int k = 0; k < NASSET; k++) {
        double a = RE + 700e3 + 3.5e3 * k;
        double inc = (98.0 + 0.03 * k) * M_PI / 180.0;
        double raan = 0.13 * k, n = sqrt(MU / (a * a * a));
        double u = 0.41 * k + n * t;
        pos[k][0] = a * (cos(raan) * cos(u) - sin(raan) * sin(u) * cos(inc));
        pos[k][1] = a * (sin(raan) * cos(u) + cos(raan) * sin(u) * cos(inc));
        pos[k][2] = a * sin(u) * sin(inc);
    }
}

/* Spatial-hash screen: fragments within SCREEN_KM of any asset. */
#define HBITS 16
static int screen_conjunctions(const cloud_t *c, FILE *log)
{
    static int32_t head[1 << HBITS], next[NFRAG];
    const double cell = SCREEN_KM * 1e3;
    double pos[NASSET][3];
    asset_positions(c->t, pos);
    for (int i = 0; i < (1 << HBITS); i++) head[i] = -1;
    for (int i = 0; i < NFRAG; i++) {
        if (!c->alive[i]) continue;
        int64_t ix = (int64_t)floor(c->x[i] / cell), iy = (int64_t)floor(c->y[i] / cell),
                iz = (int64_t)floor(c->z[i] / cell);
        uint64_t hsh = ((uint64_t)ix * 73856093u) ^ ((uint64_t)iy * 19349663u) ^
                       ((uint64_t)iz * 83492791u);
        int b = (int)(hsh & ((1u << HBITS) - 1));
        next[i] = head[b];
        head[b] = i;
    }
    int hits = 0;
    for (int k = 0; k < NASSET; k++) {
        int64_t cx = (int64_t)floor(pos[k][0] / cell), cy = (int64_t)floor(pos[k][1] / cell),
                cz = (int64_t)floor(pos[k][2] / cell);
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    uint64_t hsh = ((uint64_t)(cx + dx) * 73856093u) ^
                                   ((uint64_t)(cy + dy) * 19349663u) ^
                                   ((uint64_t)(cz + dz) * 83492791u);
                    int b = (int)(hsh & ((1u << HBITS) - 1));
                    for (int i = head[b]; i >= 0; i = next[i]) {
                        double ddx = c->x[i] - pos[k][0], ddy = c->y[i] - pos[k][1],
                               ddz = c->z[i] - pos[k][2];
                        double d = sqrt(ddx * ddx + ddy * ddy + ddz * ddz);
                        if (d < cell) {
                            hits++;
                            if (fprintf(log, "%d %.1f asset%02d frag%05d %.3f km\n", c->step,
                                        c->t, k, i, d / 1e3) < 0)
                                die("fprintf", "conjunctions.log");
                        }
                    }
                }
    }
    return hits;
}

/* Altitude-bin spatial density (objects per km^3) written as a small table. */
static void altitude_density(const cloud_t *c, const char *name)
{
    enum { NB = 60 };
    double cnt[NB] = {0};
    for (int i = 0; i < NFRAG; i++) {
        if (!c->alive[i]) continue;
        double r = sqrt(c->x[i] * c->x[i] + c->y[i] * c->y[i] + c->z[i] * c->z[i]);
        int b = (int)((r - RE) / 1e3 / 25.0);
        if (b >= 0 && b < NB) cnt[b] += 1.0;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    for (int b = 0; b < NB; b++) {
        double r0 = RE / 1e3 + 25.0 * b, r1 = r0 + 25.0;
        double vol = 4.0 / 3.0 * M_PI * (r1 * r1 * r1 - r0 * r0 * r0);
        if (fprintf(f, "%6.0f %8.0f %.6e\n", 25.0 * b, cnt[b], cnt[b] / vol) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

static int count_alive(const cloud_t *c)
{
    int n = 0;
    for (int i = 0; i < NFRAG; i++) n += c->alive[i] ? 1 : 0;
    return n;
}

/* Advance from the current state to `last`, checkpointing on the way. */
static int run_segment(cloud_t *c, int last, FILE *clog)
{
    int hits = 0;
    while (c->step < last) {
        int n = CKPT_EVERY - c->step % CKPT_EVERY;
        if (c->step + n > last) n = last - c->step;
        propagate(c, n);
        if (c->step % CKPT_EVERY == 0) {
            write_checkpoint(c);
            write_gabbard(c);
            hits += screen_conjunctions(c, clog);
        }
    }
    return hits;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    crc_init();

    static cloud_t cloud;
    generate_breakup(&cloud);
    altitude_density(&cloud, "density_initial.txt");

    char path[1024];
    snprintf(path, sizeof path, "%s/conjunctions.log", g_dir);
    FILE *clog = fopen(path, "w");
    if (!clog) die("fopen", path);

    int hits = run_segment(&cloud, CRASH_STEP, clog);
    write_torn_checkpoint(&cloud);
    int alive_at_crash = count_alive(&cloud);

    /* crash: lose all in-memory state */
    memset(&cloud, 0, sizeof cloud);
    int from = find_latest_checkpoint(&cloud);
    if (from < 0) {
        fprintf(stderr, "no valid checkpoint found\n");
        return 1;
    }
    hits += run_segment(&cloud, NSTEPS, clog);
    if (fclose(clog) != 0) die("fclose", path);

    /* verify the final checkpoint round-trips */
    snprintf(path, sizeof path, "%s/ckpt_%05d.bin", g_dir, NSTEPS);
    int fstep = -1;
    if (read_checkpoint(path, NULL, &fstep) != 0 || fstep != NSTEPS) {
        fprintf(stderr, "final checkpoint failed verification\n");
        return 1;
    }
    altitude_density(&cloud, "density_final.txt");

    printf("debris_cloud_ckpt_restart: %d fragments, %d steps of %.0f s\n", NFRAG, NSTEPS, DT);
    printf("  alive at crash (step %d): %d, restarted from step %d\n", CRASH_STEP,
           alive_at_crash, from);
    printf("  alive at end: %d, conjunction hits: %d\n", count_alive(&cloud), hits);
    return 0;
}
