/*
 * coffee_roast_drum_ckpt_restart.c
 *
 * Batch drum coffee roaster.  Each bean is a sphere resolved into radial
 * shells (explicit conduction), losing moisture and developing colour
 * through Arrhenius kinetics while tumbling between hot drum-wall contact
 * and convective exposure to the drum gas.  A PID burner tracks a roast
 * profile.  The roaster state is checkpointed every 30 s of roast time to
 * binary files written with pwrite (bean block first, header commit record
 * last, then fdatasync); older checkpoints are unlinked.  A power cut is
 * simulated half-way through one checkpoint; the program then scans the
 * directory for the newest valid checkpoint, truncates the roast log and
 * bean-profile stream back to the offsets recorded in it, restarts and
 * finishes the roast, and writes a colour / first-crack report.
 *
 * usage: coffee_roast_drum_ckpt_restart OUTDIR
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

#define PI_D 3.14159265358979323846
#define NBEAN 3000
#define NSH 16
#define DT 0.1
#define T_END 720.0
#define CKPT_EVERY 300           /* steps: 30 s */
#define SNAP_EVERY 100           /* steps: 10 s */
#define KEEP_CKPT 5
#define CRASH_STEP 5400          /* power cut during the 540 s checkpoint */
#define CKPT_MAGIC 0x524f415354434b50ULL /* "ROASTCKP" */

typedef struct {
    double T[NSH];       /* shell temperatures [K], 0 = core */
    double moist;        /* kg water / kg dry */
    double dev;          /* Maillard/caramelisation development index */
    double press;        /* internal vapour pressure proxy [bar] */
    double crack_t;      /* first crack time [s], -1 if none */
    double radius;       /* [m] */
    double contact;      /* remaining wall-contact time [s] */
    double pad;
} bean_t;

typedef struct {
    uint64_t magic;
    int64_t step;
    int64_t nbean;
    double t_gas, integ, prev_err, burner;
    uint64_t rng;
    int64_t log_off, snap_off;
    uint64_t checksum;     /* FNV-1a over bean block */
    uint64_t hdr_check;    /* FNV-1a over the preceding header fields */
} ckpt_hdr_t;

typedef struct {
    bean_t *b;
    double t_gas, integ, prev_err, burner;
    uint64_t rng;
    long step;
} roaster_t;

static const char *outdir;

static void die(const char *what)
{
    fprintf(stderr, "coffee_roast: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t xs64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return *s = x;
}

static double urand(uint64_t *s) { return (double)(xs64(s) >> 11) * (1.0 / 9007199254740992.0); }

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) { h ^= c[i]; h *= 0x100000001b3ULL; }
    return h;
}

static void path_in(char *buf, size_t n, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", outdir, name) >= n) { errno = ENAMETOOLONG; die(name); }
}

static void init_roaster(roaster_t *r)
{
    r->rng = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < NBEAN; i++) {
        bean_t *b = &r->b[i];
        for (int k = 0; k < NSH; k++) b->T[k] = 295.0;
        b->moist = 0.105 + 0.02 * (urand(&r->rng) - 0.5);
        b->dev = 0.0;
        b->press = 1.0;
        b->crack_t = -1.0;
        b->radius = 3.2e-3 + 0.6e-3 * urand(&r->rng);
        b->contact = 0.0;
        b->pad = 0.0;
    }
    r->t_gas = 503.0;   /* charge temperature 230 C */
    r->integ = r->prev_err = 0.0;
    r->burner = 6000.0;
    r->step = 0;
}

/* target bean-probe temperature along the roast profile [K] */
static double profile_setpoint(double t)
{
    if (t < 90.0) return 295.0 + (403.0 - 295.0) * t / 90.0;
    if (t < 360.0) return 403.0 + (448.0 - 403.0) * (t - 90.0) / 270.0;
    if (t < 600.0) return 448.0 + (478.0 - 448.0) * (t - 360.0) / 240.0;
    return 478.0 + (488.0 - 478.0) * (t - 600.0) / 120.0;
}

/* radial conduction and surface exchange in every bean; returns heat taken from gas [W] */
static double bean_heat_step(roaster_t *r)
{
    const double k_bean = 0.12, rho_c = 1.4e6, h_conv = 28.0, h_wall = 140.0, t_wall_off = 25.0;
    static double g_in[NSH], g_out[NSH];
    static int geom_done = 0;
    if (!geom_done) {   /* shell face area / shell volume, in units of dr */
        for (int k = 0; k < NSH; k++) {
            double v = (double)((k + 1) * (k + 1) * (k + 1) - k * k * k) / 3.0;
            g_in[k] = (double)(k * k) / v;
            g_out[k] = (double)((k + 1) * (k + 1)) / v;
        }
        geom_done = 1;
    }
    double qsum = 0.0;
    double Tn[NSH];
    uint64_t rng = r->rng;
    for (int i = 0; i < NBEAN; i++) {
        bean_t *b = &r->b[i];
        double dr = b->radius / NSH;
        double rc = rho_c * (1.0 + 2.5 * b->moist);
        double fo = DT * k_bean / (rc * dr * dr);
        /* tumbling: bean sits on the drum wall for a short random time */
        /* (xorshift64 drawn inline: one draw per bean and step) */
        uint64_t x = rng;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        rng = x;
        double u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
        if (b->contact > 0.0) b->contact -= DT;
        else if (u < 0.02) b->contact = 0.3 + 20.0 * u;
        double ts = b->T[NSH - 1];
        double area = 4.0 * PI_D * b->radius * b->radius;
        double hq = h_conv * (r->t_gas - ts);
        if (b->contact > 0.0) hq += h_wall * 0.1 * (r->t_gas + t_wall_off - ts);
        qsum += hq * area;
        Tn[0] = b->T[0] - fo * g_out[0] * (b->T[0] - b->T[1]);
        for (int k = 1; k < NSH - 1; k++)
            Tn[k] = b->T[k] + fo * (g_in[k] * (b->T[k - 1] - b->T[k]) - g_out[k] * (b->T[k] - b->T[k + 1]));
        Tn[NSH - 1] = b->T[NSH - 1] + fo * g_in[NSH - 1] * (b->T[NSH - 2] - b->T[NSH - 1])
                      + DT * hq * g_out[NSH - 1] / (rc * dr);
        memcpy(b->T, Tn, sizeof Tn);
    }
    r->rng = rng;
    return qsum;
}

/* drying, development, internal pressure and first crack */
static void bean_kinetics(roaster_t *r, double t)
{
    const double Rg = 8.314;
    for (int i = 0; i < NBEAN; i++) {
        bean_t *b = &r->b[i];
        double tm = 0.0;
        for (int k = 0; k < NSH; k++) tm += b->T[k] * (double)(3 * k * k + 3 * k + 1);
        tm /= (double)(NSH * NSH * NSH);
        double kd = 3.0e3 * exp(-52000.0 / (Rg * tm));
        double dm = kd * b->moist * DT;
        b->moist -= dm;
        /* latent heat of the evaporated water cools the outer shells */
        double cool = dm * 2.26e6 / 1500.0;
        b->T[NSH - 1] -= 0.6 * cool;
        b->T[NSH - 2] -= 0.4 * cool;
        b->dev += 2.3e9 * exp(-105000.0 / (Rg * tm)) * DT;
        b->press = 1.0 + 60.0 * b->moist * (tm - 373.0 > 0.0 ? (tm - 373.0) / 100.0 : 0.0) + 0.8 * b->dev;
        if (b->crack_t < 0.0 && b->T[0] > 463.0 && b->press > 3.0) b->crack_t = t;
    }
}

static double bean_probe(const roaster_t *r)
{
    double s = 0.0;
    for (int i = 0; i < NBEAN; i += 7) s += r->b[i].T[NSH - 1];
    return s / (double)((NBEAN + 6) / 7);
}

/* PID burner and lumped drum-gas energy balance */
static void burner_control(roaster_t *r, double t, double qbeans)
{
    const double kp = 600.0, ki = 4.0, kd = 100.0, c_gas = 9.0e3, loss = 20.0;
    double err = profile_setpoint(t) - bean_probe(r);
    r->integ += err * DT;
    if (r->integ > 1500.0) r->integ = 1500.0;      /* anti-windup */
    if (r->integ < -1500.0) r->integ = -1500.0;
    double der = (err - r->prev_err) / DT;
    r->prev_err = err;
    double p = 2500.0 + kp * err + ki * r->integ + kd * der;
    if (p < 0.0) p = 0.0;
    if (p > 9000.0) p = 9000.0;
    r->burner = p;
    r->t_gas += DT * (p - qbeans - loss * (r->t_gas - 295.0)) / c_gas;
}

static void xpwrite(int fd, const void *buf, size_t n, off_t off, const char *what)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) { if (errno == EINTR) continue; die(what); }
        p += w; n -= (size_t)w; off += w;
    }
}

static void xpread(int fd, void *buf, size_t n, off_t off, const char *what)
{
    char *p = buf;
    while (n > 0) {
        ssize_t g = pread(fd, p, n, off);
        if (g < 0) { if (errno == EINTR) continue; die(what); }
        if (g == 0) { errno = EIO; die(what); }
        p += g; n -= (size_t)g; off += g;
    }
}

/* bean block in 64-bean chunks, header commit record last.  If torn, stop half-way. */
static void write_checkpoint(const roaster_t *r, long log_off, long snap_off, int torn)
{
    char path[4096];
    char name[64];
    snprintf(name, sizeof name, "roast_%06ld.ckpt", r->step);
    path_in(path, sizeof path, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(path);
    const size_t chunk = 64;
    size_t nchunks = (NBEAN + chunk - 1) / chunk;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t c = 0; c < nchunks; c++) {
        if (torn && c == nchunks / 2) { close(fd); return; }
        size_t i0 = c * chunk, n = (i0 + chunk <= NBEAN) ? chunk : NBEAN - i0;
        xpwrite(fd, &r->b[i0], n * sizeof(bean_t), (off_t)(sizeof(ckpt_hdr_t) + i0 * sizeof(bean_t)), path);
        h = fnv1a(&r->b[i0], n * sizeof(bean_t), h);
    }
    ckpt_hdr_t hd;
    memset(&hd, 0, sizeof hd);
    hd.magic = CKPT_MAGIC; hd.step = r->step; hd.nbean = NBEAN;
    hd.t_gas = r->t_gas; hd.integ = r->integ; hd.prev_err = r->prev_err; hd.burner = r->burner;
    hd.rng = r->rng; hd.log_off = log_off; hd.snap_off = snap_off; hd.checksum = h;
    hd.hdr_check = fnv1a(&hd, offsetof(ckpt_hdr_t, hdr_check), 0xcbf29ce484222325ULL);
    if (fdatasync(fd) != 0) die("fdatasync bean block");
    xpwrite(fd, &hd, sizeof hd, 0, path);
    if (fdatasync(fd) != 0) die("fdatasync header");
    if (close(fd) != 0) die("close checkpoint");
}

static void rotate_checkpoints(long newest_step)
{
    long old = newest_step - (long)KEEP_CKPT * CKPT_EVERY;
    if (old <= 0) return;
    char path[4096], name[64];
    snprintf(name, sizeof name, "roast_%06ld.ckpt", old);
    path_in(path, sizeof path, name);
    if (unlink(path) != 0 && errno != ENOENT) die("unlink old checkpoint");
}

static int checkpoint_valid(const char *path, ckpt_hdr_t *hd, bean_t *scratch)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die(path);
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat checkpoint");
    int ok = 0;
    if ((size_t)st.st_size == sizeof(ckpt_hdr_t) + NBEAN * sizeof(bean_t)) {
        xpread(fd, hd, sizeof *hd, 0, path);
        if (hd->magic == CKPT_MAGIC && hd->nbean == NBEAN &&
            hd->hdr_check == fnv1a(hd, offsetof(ckpt_hdr_t, hdr_check), 0xcbf29ce484222325ULL)) {
            xpread(fd, scratch, NBEAN * sizeof(bean_t), sizeof(ckpt_hdr_t), path);
            ok = fnv1a(scratch, NBEAN * sizeof(bean_t), 0xcbf29ce484222325ULL) == hd->checksum;
        }
    }
    if (close(fd) != 0) die("close checkpoint");
    return ok;
}

/* scan the directory, validate candidates newest first, load the best one */
static long restart_from_latest(roaster_t *r, long *log_off, long *snap_off, int *rejected)
{
    DIR *d = opendir(outdir);
    if (!d) die("opendir");
    long steps[256];
    int n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        long s;
        char tail[16];
        if (sscanf(e->d_name, "roast_%6ld.%5s", &s, tail) == 2 && strcmp(tail, "ckpt") == 0 && n < 256)
            steps[n++] = s;
    }
    if (errno != 0) die("readdir");
    closedir(d);
    for (int i = 1; i < n; i++)             /* insertion sort, descending */
        for (int j = i; j > 0 && steps[j] > steps[j - 1]; j--) { long t = steps[j]; steps[j] = steps[j - 1]; steps[j - 1] = t; }
    *rejected = 0;
    for (int i = 0; i < n; i++) {
        char path[4096], name[64];
        ckpt_hdr_t hd;
        snprintf(name, sizeof name, "roast_%06ld.ckpt", steps[i]);
        path_in(path, sizeof path, name);
        if (!checkpoint_valid(path, &hd, r->b)) { (*rejected)++; continue; }
        r->step = hd.step; r->t_gas = hd.t_gas; r->integ = hd.integ; r->prev_err = hd.prev_err;
        r->burner = hd.burner; r->rng = hd.rng;
        *log_off = hd.log_off; *snap_off = hd.snap_off;
        return r->step;
    }
    fprintf(stderr, "coffee_roast: no valid checkpoint\n");
    exit(1);
}

/* radial temperature profile of every bean, float32, bean-major */
static void snapshot_profiles(FILE *f, const roaster_t *r)
{
    static float buf[NBEAN * NSH];
    for (int i = 0; i < NBEAN; i++)
        for (int k = 0; k < NSH; k++) buf[i * NSH + k] = (float)r->b[i].T[k];
    if (fwrite(buf, sizeof(float), NBEAN * NSH, f) != NBEAN * NSH) die("fwrite bean profiles");
}

static void log_roast_step(FILE *f, const roaster_t *r, double t, double probe, double ror)
{
    double m = 0.0, dv = 0.0;
    for (int i = 0; i < NBEAN; i += 3) { m += r->b[i].moist; dv += r->b[i].dev; }
    int ns = (NBEAN + 2) / 3;
    if (fprintf(f, "%8.1f %8.2f %8.2f %7.2f %8.1f %7.4f %7.3f\n", t, r->t_gas - 273.15, probe - 273.15,
                ror, r->burner, m / ns, dv / ns) < 0) die("roast log write");
}

/* run steps [r->step, stop); the log and snapshot streams are appended */
static int roast_until(roaster_t *r, long stop, FILE *flog, FILE *fsnap, int crash_at)
{
    double prev_probe = bean_probe(r);
    while (r->step < stop) {
        double t = (r->step + 1) * DT;
        double q = bean_heat_step(r);
        bean_kinetics(r, t);
        burner_control(r, t, q);
        r->step++;
        if (r->step % 10 == 0) {
            double probe = bean_probe(r);
            log_roast_step(flog, r, t, probe, (probe - prev_probe) * 60.0);
            prev_probe = probe;
        }
        if (r->step % SNAP_EVERY == 0) snapshot_profiles(fsnap, r);
        if (r->step % CKPT_EVERY == 0) {
            if (fflush(flog) != 0 || fflush(fsnap) != 0) die("fflush streams");
            long lo = ftell(flog), so = ftell(fsnap);
            if (lo < 0 || so < 0) die("ftell");
            int torn = crash_at && r->step == CRASH_STEP;
            write_checkpoint(r, lo, so, torn);
            if (torn) return 1;
            rotate_checkpoints(r->step);
        }
    }
    return 0;
}

static FILE *open_stream(const char *name, const char *mode)
{
    char path[4096];
    path_in(path, sizeof path, name);
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

static void truncate_stream(const char *name, long off)
{
    char path[4096];
    path_in(path, sizeof path, name);
    if (truncate(path, off) != 0) die("truncate");
}

static void write_roast_report(const roaster_t *r, int rejected, long restart_step)
{
    FILE *f = open_stream("roast_report.txt", "w");
    int hist[20] = {0}, cracked = 0;
    double tsum = 0.0, tmin = 1e9, tmax = -1e9, msum = 0.0;
    for (int i = 0; i < NBEAN; i++) {
        const bean_t *b = &r->b[i];
        /* Agtron-like colour number falls with development */
        double agtron = 95.0 * exp(-0.4 * b->dev);
        int bin = (int)(agtron / 5.0);
        if (bin < 0) bin = 0;
        if (bin > 19) bin = 19;
        hist[bin]++;
        msum += b->moist;
        if (b->crack_t >= 0.0) {
            cracked++; tsum += b->crack_t;
            if (b->crack_t < tmin) tmin = b->crack_t;
            if (b->crack_t > tmax) tmax = b->crack_t;
        }
    }
    int ok = fprintf(f, "drum roast report: %d beans, restarted at step %ld after rejecting %d checkpoint(s)\n",
                     NBEAN, restart_step, rejected) >= 0;
    ok = ok && fprintf(f, "final gas %.1f C, mean moisture %.4f, first crack %d beans", r->t_gas - 273.15,
                       msum / NBEAN, cracked) >= 0;
    if (cracked) ok = ok && fprintf(f, " (%.1f..%.1f s, mean %.1f s)", tmin, tmax, tsum / cracked) >= 0;
    ok = ok && fprintf(f, "\nagtron_bin count\n") >= 0;
    for (int k = 0; k < 20; k++) ok = ok && fprintf(f, "%3d-%3d %6d\n", 5 * k, 5 * k + 5, hist[k]) >= 0;
    if (!ok || fclose(f) != 0) die("roast report");
    printf("roast finished: %d/%d beans cracked, restart from step %ld (%d torn checkpoint rejected)\n",
           cracked, NBEAN, restart_step, rejected);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    outdir = argv[1];
    const long nstep = (long)(T_END / DT + 0.5);
    roaster_t r;
    r.b = malloc(NBEAN * sizeof(bean_t));
    if (!r.b) die("malloc");

    init_roaster(&r);
    FILE *flog = open_stream("roast_log.txt", "w");
    FILE *fsnap = open_stream("bean_profiles.f32", "wb");
    if (fprintf(flog, "#   t[s]  gas[C] bean[C] ROR/min  burner[W] moist   dev\n") < 0) die("log header");
    int crashed = roast_until(&r, nstep, flog, fsnap, 1);
    /* power cut: buffered stream contents are lost with the process */
    if (fclose(flog) != 0 || fclose(fsnap) != 0) die("close streams");
    if (!crashed) { fprintf(stderr, "coffee_roast: crash point not reached\n"); return 1; }
    memset(r.b, 0, NBEAN * sizeof(bean_t));

    long log_off, snap_off;
    int rejected;
    long rs = restart_from_latest(&r, &log_off, &snap_off, &rejected);
    truncate_stream("roast_log.txt", log_off);
    truncate_stream("bean_profiles.f32", snap_off);
    flog = open_stream("roast_log.txt", "a");
    fsnap = open_stream("bean_profiles.f32", "ab");
    roast_until(&r, nstep, flog, fsnap, 0);
    if (fclose(flog) != 0 || fclose(fsnap) != 0) die("close streams");

    write_roast_report(&r, rejected, rs);
    free(r.b);
    return 0;
}
