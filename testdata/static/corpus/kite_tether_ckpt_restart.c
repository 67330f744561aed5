/*
 * kite_tether_ckpt_restart.c
 *
 * Fleet simulation of pumping-cycle airborne wind energy kites.  Each kite
 * is flown on a lumped-mass tether (elastic segments with internal damping
 * and cross-flow drag) in a logarithmic wind profile with AR(1) gusts; the
 * kite steers a figure-of-eight by rolling its lift vector, and the ground
 * winch reels out under load and reels in with the kite depowered.
 *
 * I/O: ground tension is buffered and appended to a binary log with write();
 * the whole fleet state is checkpointed every CKEVERY steps to
 * ckpt_NNNNNN.bin (per-kite blocks written with pwrite at fixed offsets,
 * fsync, header with CRC-32 written last, rename from .tmp).  The run is
 * "killed" at step CRASH_STEP after a torn checkpoint write; the program then
 * scans the directory for the newest valid checkpoint, restarts from it
 * (truncating the tension log to match), finishes the run, and finally
 * replays one checkpoint interval from an older checkpoint to verify
 * bitwise reproducibility against the file on disk.
 *
 * usage: kite_tether_ckpt_restart OUTDIR
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
#include <sys/types.h>
#include <unistd.h>

#define NKITE 64           /* kites in the fleet */
#define NNODE 40           /* tether nodes per kite, node 0 = ground, last = kite */
#define NSTEPS 10000
#define DT 1.0e-3          /* s */
#define CKEVERY 400
#define LOGBLOCK 100
#define CRASH_STEP 7137
#define MAGIC 0x4b54434bu  /* "KCTK" */
#define VERSION 3u
#define PI 3.14159265358979323846

static const double RHO_AIR = 1.225;
static const double TETHER_LEN0 = 250.0;   /* m */
static const double TETHER_EA = 6.0e4;     /* N */
static const double TETHER_DAMP = 8.0;     /* N s */
static const double TETHER_MU = 0.03;      /* kg/m */
static const double TETHER_D = 0.005;      /* m diameter */
static const double KITE_MASS = 12.0;      /* kg */
static const double KITE_AREA = 18.0;      /* m^2 */

typedef struct {
    uint64_t rng;          /* gust generator state */
    double gust;           /* relative gust amplitude */
    double uref;           /* mean wind at 10 m */
    double phase;          /* figure-eight phase offset */
    double reel_len;       /* deployed tether length */
    double energy;         /* harvested energy, J */
    double max_tension;
    double sum_tension;
} kite_state;

typedef struct {
    uint32_t magic, version;
    uint32_t nkite, nnode;
    int64_t step;
    double time;
    uint64_t block_bytes;
    uint32_t payload_crc;
    uint32_t header_crc;   /* over all preceding header bytes */
} ckpt_header;

static kite_state ks[NKITE];
static double pos[NKITE][NNODE][3];
static double vel[NKITE][NNODE][3];
static double frc[NNODE][3];
static float tension_buf[LOGBLOCK][NKITE];
static uint32_t crc_table[256];
static const char *outdir;

static void die(const char *what)
{
    fprintf(stderr, "kite_tether_ckpt_restart: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

static double rng_normal(uint64_t *s)
{
    /* xorshift64* + Box-Muller (one variate per call) */
    double u[2];
    for (int i = 0; i < 2; i++) {
        *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
        u[i] = ((*s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    }
    if (u[0] < 1e-300) u[0] = 1e-300;
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * PI * u[1]);
}

static void init_fleet(void)
{
    for (int k = 0; k < NKITE; k++) {
        kite_state *s = &ks[k];
        memset(s, 0, sizeof *s);
        s->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1) ^ 0xD1B54A32D192ED03ull;
        s->uref = 7.0 + 5.0 * (k % 12) / 11.0;
        s->phase = 2.0 * PI * k / NKITE;
        s->reel_len = TETHER_LEN0;
        double elev = 30.0 * PI / 180.0, azi = 0.2 * sin(s->phase);
        double seg = s->reel_len / (NNODE - 1);
        for (int i = 0; i < NNODE; i++) {
            double r = seg * i;
            pos[k][i][0] = r * cos(elev) * cos(azi);
            pos[k][i][1] = r * cos(elev) * sin(azi);
            pos[k][i][2] = r * sin(elev);
            vel[k][i][0] = vel[k][i][1] = vel[k][i][2] = 0.0;
        }
    }
}

static double wind_at(const kite_state *s, double z)
{
    const double z0 = 0.05;
    if (z < 1.0) z = 1.0;
    return s->uref * log(z / z0) / log(10.0 / z0) * (1.0 + s->gust);
}

/* reel speed of the pumping cycle: out under load, in fast when depowered */
static double reel_speed(const kite_state *s, double t, int *powered)
{
    double cyc = fmod(t + 3.0 * s->phase, 14.0);
    *powered = cyc < 10.0;
    return *powered ? 0.25 * s->uref : -0.6 * s->uref;
}

/* forces on all nodes of kite k; returns tension of the ground segment */
static double tether_forces(int k, double t)
{
    kite_state *s = &ks[k];
    int powered;
    (void)reel_speed(s, t, &powered);
    double seg0 = s->reel_len / (NNODE - 1);
    double tground = 0.0;
    for (int i = 0; i < NNODE; i++) {
        double m = (i == NNODE - 1) ? KITE_MASS + 0.5 * TETHER_MU * seg0 : TETHER_MU * seg0;
        frc[i][0] = frc[i][1] = 0.0;
        frc[i][2] = -9.81 * m;
    }
    for (int i = 0; i < NNODE - 1; i++) {
        double d[3], dv[3], len = 0.0, rate = 0.0;
        for (int c = 0; c < 3; c++) {
            d[c] = pos[k][i + 1][c] - pos[k][i][c];
            dv[c] = vel[k][i + 1][c] - vel[k][i][c];
            len += d[c] * d[c];
        }
        len = sqrt(len);
        for (int c = 0; c < 3; c++) {
            d[c] /= len;
            rate += d[c] * dv[c];
        }
        double strain = (len - seg0) / seg0;
        double ten = strain > 0.0 ? TETHER_EA * strain + TETHER_DAMP * rate : 0.0;
        if (i == 0) tground = ten;
        /* cross-flow drag of the segment, lumped on both ends */
        double zmid = 0.5 * (pos[k][i][2] + pos[k][i + 1][2]);
        double w = wind_at(s, zmid);
        double va[3] = {w - 0.5 * (vel[k][i][0] + vel[k][i + 1][0]),
                        -0.5 * (vel[k][i][1] + vel[k][i + 1][1]),
                        -0.5 * (vel[k][i][2] + vel[k][i + 1][2])};
        double along = va[0] * d[0] + va[1] * d[1] + va[2] * d[2];
        double vp[3], vpn = 0.0;
        for (int c = 0; c < 3; c++) {
            vp[c] = va[c] - along * d[c];
            vpn += vp[c] * vp[c];
        }
        vpn = sqrt(vpn);
        double fd = 0.5 * RHO_AIR * 1.1 * TETHER_D * len * vpn;
        for (int c = 0; c < 3; c++) {
            frc[i][c] += ten * d[c] + 0.5 * fd * vp[c];
            frc[i + 1][c] += -ten * d[c] + 0.5 * fd * vp[c];
        }
    }
    /* kite aerodynamics: lift rolled by the steering angle */
    int kt = NNODE - 1;
    double *p = pos[k][kt], *v = vel[k][kt];
    double w = wind_at(s, p[2]);
    double va[3] = {w - v[0], -v[1], -v[2]};
    double van = sqrt(va[0] * va[0] + va[1] * va[1] + va[2] * va[2]);
    double rn = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    double ev[3], er[3], el[3], es[3], dot = 0.0, eln = 0.0;
    for (int c = 0; c < 3; c++) {
        ev[c] = va[c] / van;
        er[c] = p[c] / rn;
        dot += er[c] * ev[c];
    }
    for (int c = 0; c < 3; c++) {
        el[c] = er[c] - dot * ev[c];
        eln += el[c] * el[c];
    }
    eln = sqrt(eln);
    for (int c = 0; c < 3; c++) el[c] /= eln;
    es[0] = ev[1] * el[2] - ev[2] * el[1];
    es[1] = ev[2] * el[0] - ev[0] * el[2];
    es[2] = ev[0] * el[1] - ev[1] * el[0];
    double roll = 0.35 * sin(0.9 * t + s->phase) * (powered ? 1.0 : 0.3);
    double cl = powered ? 1.0 : 0.25, cd = powered ? 0.18 : 0.10;
    double q = 0.5 * RHO_AIR * van * van * KITE_AREA;
    for (int c = 0; c < 3; c++)
        frc[kt][c] += q * (cl * (cos(roll) * el[c] + sin(roll) * es[c]) + cd * ev[c]);
    return tground;
}

/* advance the whole fleet by one step (semi-implicit Euler) */
static void fleet_step(int64_t step, int logging)
{
    double t = step * DT;
    for (int k = 0; k < NKITE; k++) {
        kite_state *s = &ks[k];
        s->gust = 0.995 * s->gust + 0.0998 * 0.12 * rng_normal(&s->rng);
        double tg = tether_forces(k, t);
        double seg0 = s->reel_len / (NNODE - 1);
        for (int i = 1; i < NNODE; i++) {
            double m = (i == NNODE - 1) ? KITE_MASS + 0.5 * TETHER_MU * seg0 : TETHER_MU * seg0;
            for (int c = 0; c < 3; c++) {
                vel[k][i][c] += DT * frc[i][c] / m;
                pos[k][i][c] += DT * vel[k][i][c];
            }
            if (pos[k][i][2] < 0.0) { pos[k][i][2] = 0.0; vel[k][i][2] = 0.0; }
        }
        int powered;
        double vr = reel_speed(s, t, &powered);
        s->reel_len += vr * DT;
        if (s->reel_len < 150.0) s->reel_len = 150.0;
        if (s->reel_len > 400.0) s->reel_len = 400.0;
        s->energy += tg * vr * DT;
        if (tg > s->max_tension) s->max_tension = tg;
        s->sum_tension += tg;
        if (logging) tension_buf[step % LOGBLOCK][k] = (float)tg;
    }
}

static void write_all(int fd, const void *buf, size_t n, const char *what)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            die(what);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void pwrite_all(int fd, const void *buf, size_t n, off_t off, const char *what)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die(what);
        }
        p += w; off += w;
        n -= (size_t)w;
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
        if (r == 0) return -1;   /* short file */
        p += r; off += r;
        n -= (size_t)r;
    }
    return 0;
}

static void flush_tension_log(int fd)
{
    write_all(fd, tension_buf, sizeof tension_buf, "write tension log");
}

#define BLOCK_BYTES (sizeof(kite_state) + 2 * sizeof(double) * NNODE * 3)

static void pack_block(int k, unsigned char *blk)
{
    memcpy(blk, &ks[k], sizeof(kite_state));
    memcpy(blk + sizeof(kite_state), pos[k], sizeof pos[k]);
    memcpy(blk + sizeof(kite_state) + sizeof pos[k], vel[k], sizeof vel[k]);
}

/* write checkpoint; if torn != 0 only part of the blocks reach the disk */
static void write_checkpoint(int64_t step, int torn)
{
    char tmp[4096], fin[4096];
    snprintf(tmp, sizeof tmp, "%s/ckpt_%06lld.tmp", outdir, (long long)step);
    snprintf(fin, sizeof fin, "%s/ckpt_%06lld.bin", outdir, (long long)step);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(tmp);
    static unsigned char blk[BLOCK_BYTES];
    uint32_t crc = 0;
    int nblocks = torn ? NKITE / 3 : NKITE;
    for (int k = 0; k < NKITE; k++) {
        pack_block(k, blk);
        crc = crc32_update(crc, blk, BLOCK_BYTES);
        if (k < nblocks)
            pwrite_all(fd, blk, BLOCK_BYTES, (off_t)(sizeof(ckpt_header) + (size_t)k * BLOCK_BYTES),
                       "pwrite checkpoint block");
    }
    if (fsync(fd) != 0) die("fsync checkpoint data");
    ckpt_header h;
    memset(&h, 0, sizeof h);
    h.magic = MAGIC; h.version = VERSION;
    h.nkite = NKITE; h.nnode = NNODE;
    h.step = step; h.time = step * DT;
    h.block_bytes = BLOCK_BYTES;
    h.payload_crc = crc;
    h.header_crc = crc32_update(0, &h, offsetof(ckpt_header, header_crc));
    pwrite_all(fd, &h, sizeof h, 0, "pwrite checkpoint header");
    if (fsync(fd) != 0) die("fsync checkpoint header");
    if (close(fd) != 0) die("close checkpoint");
    if (rename(tmp, fin) != 0) die("rename checkpoint");
}

/* read a checkpoint into the global state; returns step or -1 if invalid */
static int64_t read_checkpoint(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ckpt_header h;
    int64_t result = -1;
    static unsigned char blk[BLOCK_BYTES];
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat checkpoint");
    if (pread_all(fd, &h, sizeof h, 0) != 0) goto out;
    if (h.magic != MAGIC || h.version != VERSION || h.nkite != NKITE || h.nnode != NNODE ||
        h.block_bytes != BLOCK_BYTES)
        goto out;
    if (h.header_crc != crc32_update(0, &h, offsetof(ckpt_header, header_crc))) goto out;
    if ((uint64_t)st.st_size != sizeof h + (uint64_t)NKITE * BLOCK_BYTES) goto out;
    uint32_t crc = 0;
    for (int k = 0; k < NKITE; k++) {
        if (pread_all(fd, blk, BLOCK_BYTES, (off_t)(sizeof h + (size_t)k * BLOCK_BYTES)) != 0) goto out;
        crc = crc32_update(crc, blk, BLOCK_BYTES);
        memcpy(&ks[k], blk, sizeof(kite_state));
        memcpy(pos[k], blk + sizeof(kite_state), sizeof pos[k]);
        memcpy(vel[k], blk + sizeof(kite_state) + sizeof pos[k], sizeof vel[k]);
    }
    if (crc != h.payload_crc) goto out;
    result = h.step;
out:
    if (close(fd) != 0) die("close checkpoint (read)");
    return result;
}

/* scan OUTDIR for ckpt_*.bin, newest first, return the step of the newest valid one */
static int64_t restore_latest(int *rejected)
{
    DIR *d = opendir(outdir);
    if (!d) die("opendir");
    long long steps[256];
    int n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        long long s;
        char tail[8];
        if (sscanf(e->d_name, "ckpt_%lld.%3s", &s, tail) == 2 && strcmp(tail, "bin") == 0 && n < 256)
            steps[n++] = s;
    }
    if (errno != 0) die("readdir");
    closedir(d);
    /* insertion sort descending */
    for (int i = 1; i < n; i++) {
        long long v = steps[i];
        int j = i - 1;
        while (j >= 0 && steps[j] < v) { steps[j + 1] = steps[j]; j--; }
        steps[j + 1] = v;
    }
    *rejected = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ckpt_%06lld.bin", outdir, steps[i]);
        int64_t s = read_checkpoint(path);
        if (s >= 0) return s;
        (*rejected)++;
    }
    return -1;
}

/* run steps [from, to) with logging and checkpoints */
static void run_segment(int64_t from, int64_t to, int logfd, int crash)
{
    for (int64_t step = from; step < to; step++) {
        fleet_step(step, 1);
        if ((step + 1) % LOGBLOCK == 0) flush_tension_log(logfd);
        if ((step + 1) % CKEVERY == 0) write_checkpoint(step + 1, 0);
    }
    if (crash) write_checkpoint(to, 1);  /* torn write at the moment of the crash */
}

/* replay one interval from an old checkpoint and compare with the next one */
static int verify_replay(int64_t s0)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ckpt_%06lld.bin", outdir, (long long)s0);
    if (read_checkpoint(path) != s0) return -1;
    for (int64_t step = s0; step < s0 + CKEVERY; step++) fleet_step(step, 0);
    static double p2[NKITE][NNODE][3];
    memcpy(p2, pos, sizeof pos);
    kite_state k2[NKITE];
    memcpy(k2, ks, sizeof ks);
    snprintf(path, sizeof path, "%s/ckpt_%06lld.bin", outdir, (long long)(s0 + CKEVERY));
    if (read_checkpoint(path) != s0 + CKEVERY) return -1;
    int mism = 0;
    if (memcmp(p2, pos, sizeof pos) != 0) mism++;
    if (memcmp(k2, ks, sizeof ks) != 0) mism++;
    return mism;
}

static void write_report(int64_t restart_step, int rejected, int mism)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fleet_report.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die(path);
    double tot = 0.0, best = -1e300;
    int bestk = 0;
    fprintf(f, "# kite  uref_m/s  tether_m  energy_kJ  mean_power_kW  mean_tension_kN  max_tension_kN\n");
    for (int k = 0; k < NKITE; k++) {
        double e = ks[k].energy;
        tot += e;
        if (e > best) { best = e; bestk = k; }
        if (fprintf(f, "%5d %9.3f %9.2f %10.2f %14.3f %16.3f %15.3f\n", k, ks[k].uref, ks[k].reel_len,
                    e / 1e3, e / (NSTEPS * DT) / 1e3, ks[k].sum_tension / NSTEPS / 1e3,
                    ks[k].max_tension / 1e3) < 0)
            die("write report");
    }
    fprintf(f, "# restart from step %lld after rejecting %d checkpoint(s); replay mismatches %d\n",
            (long long)restart_step, rejected, mism);
    if (fclose(f) != 0) die("close report");
    printf("kite fleet: %d kites x %d nodes, %d steps (%.1f s)\n", NKITE, NNODE, NSTEPS, NSTEPS * DT);
    printf("  crash at step %d, restarted from checkpoint %lld (%d rejected)\n", CRASH_STEP,
           (long long)restart_step, rejected);
    printf("  fleet energy %.1f MJ, best kite %d (%.1f kJ)\n", tot / 1e6, bestk, best / 1e3);
    printf("  replay check: %s\n", mism == 0 ? "bitwise identical" : "MISMATCH");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    outdir = argv[1];
    crc_init();
    char logpath[4096];
    snprintf(logpath, sizeof logpath, "%s/ground_tension.f32", outdir);

    /* first run, killed at CRASH_STEP */
    init_fleet();
    int logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (logfd < 0) die(logpath);
    run_segment(0, CRASH_STEP, logfd, 1);
    if (close(logfd) != 0) die("close tension log");

    /* lose everything in memory, restart from disk */
    memset(ks, 0, sizeof ks);
    memset(pos, 0, sizeof pos);
    memset(vel, 0, sizeof vel);
    int rejected;
    int64_t s0 = restore_latest(&rejected);
    if (s0 < 0) {
        fprintf(stderr, "no valid checkpoint found\n");
        return 1;
    }
    logfd = open(logpath, O_WRONLY);
    if (logfd < 0) die(logpath);
    off_t keep = (off_t)s0 * NKITE * (off_t)sizeof(float);
    if (ftruncate(logfd, keep) != 0) die("ftruncate tension log");
    if (lseek(logfd, keep, SEEK_SET) < 0) die("lseek tension log");
    run_segment(s0, NSTEPS, logfd, 0);
    if (fsync(logfd) != 0) die("fsync tension log");
    if (close(logfd) != 0) die("close tension log");

    /* keep the final state, verify one interval, then restore the final state */
    int mism = verify_replay(s0 - 4 * CKEVERY);
    char fin[4096];
    snprintf(fin, sizeof fin, "%s/ckpt_%06lld.bin", outdir, (long long)NSTEPS);
    if (read_checkpoint(fin) != NSTEPS) {
        fprintf(stderr, "final checkpoint unreadable\n");
        return 1;
    }
    write_report(s0, rejected, mism);
    return mism == 0 ? 0 : 1;
}
