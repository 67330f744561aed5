/*
 * greenhouse_climate_ckpt_restart.c
 *
 * Vertical-section model of a Venlo glasshouse with a tomato crop: air
 * temperature, specific humidity and CO2 are advected by a fixed fan-driven
 * circulation and diffused on a 2-D grid, with heating pipes at the floor,
 * solar gain through the roof, roof-vent exchange with the outside and crop
 * transpiration/photosynthesis in the canopy layer.  A climate computer
 * (PI heating, proportional venting, CO2 dosing) acts on zone averages.
 *
 * Every CKPT_EVERY steps the complete state is written as a binary
 * checkpoint (header + fields with write(2), fdatasync, rename).  At
 * CRASH_STEP the run "crashes" while writing a checkpoint (a truncated file
 * is left behind); the program then discards its state, scans the directory
 * for the newest valid checkpoint, restarts from it and runs to the end.
 *
 * Usage: greenhouse_climate_ckpt_restart OUTDIR
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

#define NX 400            /* along the span, 40 m */
#define NY 64             /* floor to ridge, 6.4 m */
#define NFIELD 5
#define NSTEPS 1800
#define CKPT_EVERY 90
#define CRASH_STEP 1375
#define DT 0.5            /* s */
#define DXY 0.1           /* m */
#define CANOPY_LO 4
#define CANOPY_HI 30
#define PI 3.14159265358979323846
#define FAN_SPEED 0.14    /* m/s, peak |u|+|v| of the fan-driven circulation */

enum { F_T, F_Q, F_C, F_LAI, F_BIO };

typedef struct {
    char magic[8];
    uint32_t version, nx, ny, nfield;
    uint64_t step;
    double time;
    double heat_integral, vent_open, heat_power, co2_dose, energy_used, co2_used;
    uint64_t payload_fnv;
    uint64_t header_fnv;
} ckpt_header;

typedef struct {
    double *f[NFIELD];
    double *u, *v;              /* circulation, precomputed */
    uint64_t step;
    double time;
    double heat_integral, vent_open, heat_power, co2_dose, energy_used, co2_used;
} model;

static const char *outdir;
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "greenhouse: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(2);
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p) { fprintf(stderr, "greenhouse: out of memory\n"); exit(2); }
    return p;
}

#define IDX(i, j) ((size_t)(j) * NX + (size_t)(i))

static void model_alloc(model *m)
{
    for (int k = 0; k < NFIELD; k++) m->f[k] = xcalloc((size_t)NX * NY, sizeof(double));
    m->u = xcalloc((size_t)NX * NY, sizeof(double));
    m->v = xcalloc((size_t)NX * NY, sizeof(double));
}

static void model_free(model *m)
{
    for (int k = 0; k < NFIELD; k++) { free(m->f[k]); m->f[k] = NULL; }
    free(m->u); free(m->v);
    m->u = m->v = NULL;
}

/* Circulation from the horizontal air-flow fans: the stream function solves
 * lap(psi) = -omega, with the fans' vorticity as source and psi = 0 on the walls
 * (SOR), and u = dpsi/dy, v = -dpsi/dx. */
static void build_circulation(model *m)
{
    static double psi[NX * NY], omega[NX * NY];
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double x = (double)i / (NX - 1), y = (double)j / (NY - 1);
            /* fan jets at 2/3 height, alternating direction every 10 m of span */
            double jet = exp(-pow((y - 0.66) / 0.08, 2)) * sin(2.0 * PI * x * 2.0);
            omega[IDX(i, j)] = 0.35 * jet * (1.0 + 0.1 * sin(6.0 * PI * x * y));
            psi[IDX(i, j)] = 0.0;
        }
    const double w = 1.9;
    for (int it = 0; it < 200; it++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) {
                size_t c = IDX(i, j);
                double gs = 0.25 * (psi[c - 1] + psi[c + 1] + psi[c - NX] + psi[c + NX] + DXY * DXY * omega[c]);
                psi[c] += w * (gs - psi[c]);
            }
    double umax = 1e-12;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int jp = j < NY - 1 ? j + 1 : j, jm = j > 0 ? j - 1 : j;
            int ip = i < NX - 1 ? i + 1 : i, im = i > 0 ? i - 1 : i;
            m->u[IDX(i, j)] = (psi[IDX(i, jp)] - psi[IDX(i, jm)]) / ((jp - jm) * DXY);
            m->v[IDX(i, j)] = -(psi[IDX(ip, j)] - psi[IDX(im, j)]) / ((ip - im) * DXY);
            umax = fmax(umax, fabs(m->u[IDX(i, j)]) + fabs(m->v[IDX(i, j)]));
        }
    /* the fans' rated throw fixes the peak air speed at FAN_SPEED */
    for (size_t c = 0; c < (size_t)NX * NY; c++) {
        m->u[c] *= FAN_SPEED / umax;
        m->v[c] *= FAN_SPEED / umax;
    }
}

static void init_state(model *m)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = IDX(i, j);
            m->f[F_T][c] = 17.0 + 0.5 * urand();
            m->f[F_Q][c] = 0.0085 + 0.0004 * urand();
            m->f[F_C][c] = 420.0 + 5.0 * urand();
            int in_canopy = j >= CANOPY_LO && j < CANOPY_HI && (i % 32) > 4 && (i % 32) < 28;
            m->f[F_LAI][c] = in_canopy ? 2.5 + 0.5 * urand() : 0.0;
            m->f[F_BIO][c] = in_canopy ? 120.0 + 10.0 * urand() : 0.0;
        }
    m->step = 0; m->time = 0.0;
    m->heat_integral = 0.0; m->vent_open = 0.0; m->heat_power = 0.0;
    m->co2_dose = 0.0; m->energy_used = 0.0; m->co2_used = 0.0;
}

/* Outside weather at simulated time t (s from 06:00). */
static void outside_weather(double t, double *tout, double *qout, double *solar)
{
    double hour = 6.0 + t / 3600.0 * 48.0;             /* accelerated diurnal forcing */
    double sun = sin(PI * (hour - 6.0) / 14.0);
    *solar = sun > 0 ? 650.0 * sun : 0.0;
    *tout = 9.0 + 7.0 * sin(PI * (hour - 9.0) / 12.0);
    *qout = 0.0062;
}

/* Zone averages, then PI heating, proportional vents, CO2 dosing. */
static void climate_controller(model *m, double *tmean, double *rh, double *cmean)
{
    double st = 0, sq = 0, sc = 0;
    size_t n = 0;
    for (int j = CANOPY_LO; j < CANOPY_HI; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = IDX(i, j);
            st += m->f[F_T][c]; sq += m->f[F_Q][c]; sc += m->f[F_C][c]; n++;
        }
    *tmean = st / n; *cmean = sc / n;
    double qsat = 0.622 * 610.78 * exp(17.27 * *tmean / (*tmean + 237.3)) / 101325.0;
    *rh = 100.0 * (sq / n) / qsat;

    double setpoint = 19.5;
    double err = setpoint - *tmean;
    m->heat_integral += err * DT;
    if (m->heat_integral < -3000) m->heat_integral = -3000;
    if (m->heat_integral > 3000) m->heat_integral = 3000;
    m->heat_power = fmax(0.0, fmin(1.0, 0.6 * err + 2.0e-4 * m->heat_integral));
    double vent_t = 0.35 * (*tmean - 24.0), vent_h = 0.04 * (*rh - 85.0);
    m->vent_open = fmax(0.0, fmin(1.0, fmax(vent_t, vent_h)));
    m->co2_dose = (*cmean < 800.0 && m->vent_open < 0.1) ? 1.0 : (*cmean < 500.0 ? 0.4 : 0.0);
    m->energy_used += m->heat_power * 120.0 * DT;       /* W/m of span */
    m->co2_used += m->co2_dose * 0.004 * DT;
}

/* Upwind advection + diffusion + sources for T, q, CO2 (explicit). */
static void step_transport(model *m, double tout, double qout, double solar)
{
    static double nf[3][NX * NY];
    const double kdiff = 2.0e-3 * DT / (DXY * DXY);
    const double cout = 415.0;
    for (int k = 0; k < 3; k++) {
        const double *f = m->f[k];
        double *g = nf[k];
        for (int j = 0; j < NY; j++) {
            int jp = j < NY - 1 ? j + 1 : j, jm = j > 0 ? j - 1 : j;
            for (int i = 0; i < NX; i++) {
                int ip = i < NX - 1 ? i + 1 : i, im = i > 0 ? i - 1 : i;
                size_t c = IDX(i, j);
                double u = m->u[c] * DT / DXY, v = m->v[c] * DT / DXY;
                double fx = u > 0 ? u * (f[c] - f[IDX(im, j)]) : u * (f[IDX(ip, j)] - f[c]);
                double fy = v > 0 ? v * (f[c] - f[IDX(i, jm)]) : v * (f[IDX(i, jp)] - f[c]);
                double lap = f[IDX(ip, j)] + f[IDX(im, j)] + f[IDX(i, jp)] + f[IDX(i, jm)] - 4.0 * f[c];
                g[c] = f[c] - fx - fy + kdiff * lap;
            }
        }
    }
    /* sources: heating pipes along the floor, solar gain, roof vents, CO2 dosing */
    for (int i = 0; i < NX; i++) {
        for (int j = 0; j < 3; j++) {
            nf[F_T][IDX(i, j)] += m->heat_power * 0.05 * DT;
            nf[F_C][IDX(i, j)] += m->co2_dose * 0.08 * DT;
        }
        for (int j = NY - 6; j < NY; j++) {
            size_t c = IDX(i, j);
            double ex = m->vent_open * 0.01 * DT;
            nf[F_T][c] += ex * (tout - nf[F_T][c]) + solar * 2.0e-5 * DT;
            nf[F_Q][c] += ex * (qout - nf[F_Q][c]);
            nf[F_C][c] += ex * (cout - nf[F_C][c]);
        }
        for (int j = 0; j < NY; j++) nf[F_T][IDX(i, j)] -= 2.0e-5 * DT * (nf[F_T][IDX(i, j)] - tout);
    }
    for (int k = 0; k < 3; k++) memcpy(m->f[k], nf[k], sizeof(double) * NX * NY);
}

/* Canopy: Penman-Monteith-like transpiration and light-limited photosynthesis. */
static void step_canopy(model *m, double solar)
{
    for (int j = CANOPY_LO; j < CANOPY_HI; j++) {
        double depth = (double)(CANOPY_HI - j) / (CANOPY_HI - CANOPY_LO);
        double par = 0.47 * solar * exp(-0.7 * 3.0 * depth);
        for (int i = 0; i < NX; i++) {
            size_t c = IDX(i, j);
            double lai = m->f[F_LAI][c];
            if (lai <= 0.0) continue;
            double t = m->f[F_T][c], q = m->f[F_Q][c], co2 = m->f[F_C][c];
            double es = 610.78 * exp(17.27 * t / (t + 237.3));
            double ea = q * 101325.0 / 0.622;
            double vpd = fmax(0.0, es - ea);
            double gs = 0.008 * (1.0 + par / 150.0) / (1.0 + vpd / 1500.0);
            double trans = gs * lai * vpd * 1.0e-9 * DT;          /* kg/kg per step */
            double amax = 1.2e-3 * co2 / (co2 + 300.0);
            double gross = amax * lai * (1.0 - exp(-0.003 * par)) * DT;
            double resp = 2.0e-6 * m->f[F_BIO][c] * exp(0.069 * (t - 20.0)) * DT;
            m->f[F_Q][c] = q + trans;
            m->f[F_T][c] = t - trans * 2.45e6 / 1005.0 * 0.2;    /* latent cooling */
            m->f[F_C][c] = fmax(50.0, co2 - gross * 40.0 + resp * 40.0);
            m->f[F_BIO][c] += (gross - resp) * 0.68;
            m->f[F_LAI][c] = fmin(4.5, lai + 1.0e-6 * fmax(0.0, gross - resp));
        }
    }
}

static uint64_t fnv1a(const void *buf, size_t n, uint64_t h)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}

static void write_full(int fd, const void *buf, size_t n, const char *path)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; die("write", path); }
        p += w; n -= (size_t)w;
    }
}

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) return 1;                        /* short file */
        p += r; n -= (size_t)r;
    }
    return 0;
}

/* Binary checkpoint: header then NFIELD row-major fields; tmp + fdatasync + rename.
 * If truncate_at_field >= 0 the write stops there (simulated crash). */
static void write_checkpoint(const model *m, int truncate_at_field)
{
    char tmp[4096], fin[4096];
    snprintf(tmp, sizeof tmp, "%s/ckpt_%06llu.tmp", outdir, (unsigned long long)m->step);
    snprintf(fin, sizeof fin, "%s/ckpt_%06llu.bin", outdir, (unsigned long long)m->step);
    ckpt_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "GHCKPT01", 8);
    h.version = 1; h.nx = NX; h.ny = NY; h.nfield = NFIELD;
    h.step = m->step; h.time = m->time;
    h.heat_integral = m->heat_integral; h.vent_open = m->vent_open; h.heat_power = m->heat_power;
    h.co2_dose = m->co2_dose; h.energy_used = m->energy_used; h.co2_used = m->co2_used;
    uint64_t pf = 0xcbf29ce484222325ull;
    for (int k = 0; k < NFIELD; k++) pf = fnv1a(m->f[k], sizeof(double) * NX * NY, pf);
    h.payload_fnv = pf;
    h.header_fnv = fnv1a(&h, offsetof(ckpt_header, header_fnv), 0xcbf29ce484222325ull);

    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    write_full(fd, &h, sizeof h, tmp);
    for (int k = 0; k < NFIELD; k++) {
        if (k == truncate_at_field) {
            write_full(fd, m->f[k], sizeof(double) * NX * NY / 3, tmp);
            break;
        }
        /* one row at a time, as a row-streaming writer would */
        for (int j = 0; j < NY; j++) write_full(fd, m->f[k] + (size_t)j * NX, sizeof(double) * NX, tmp);
    }
    if (fdatasync(fd) != 0) die("fdatasync", tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, fin) != 0) die("rename", tmp);
}

static int cmp_desc(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? 1 : (x > y ? -1 : 0);
}

/* Try to load one checkpoint into m; returns 0 on success, nonzero if invalid. */
static int read_checkpoint(model *m, unsigned long long step, FILE *report)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ckpt_%06llu.bin", outdir, step);
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat", path);
    ckpt_header h;
    int rc = read_full(fd, &h, sizeof h);
    if (rc < 0) die("read", path);
    int bad = 0;
    if (rc > 0 || memcmp(h.magic, "GHCKPT01", 8) != 0 ||
        h.header_fnv != fnv1a(&h, offsetof(ckpt_header, header_fnv), 0xcbf29ce484222325ull) ||
        h.nx != NX || h.ny != NY || h.nfield != NFIELD)
        bad = 1;
    uint64_t pf = 0xcbf29ce484222325ull;
    for (int k = 0; !bad && k < NFIELD; k++) {
        rc = read_full(fd, m->f[k], sizeof(double) * NX * NY);
        if (rc < 0) die("read", path);
        if (rc > 0) { bad = 2; break; }
        pf = fnv1a(m->f[k], sizeof(double) * NX * NY, pf);
    }
    if (!bad && pf != h.payload_fnv) bad = 3;
    if (close(fd) != 0) die("close", path);
    if (fprintf(report, "probe %s size=%lld status=%s\n", path, (long long)st.st_size,
                bad == 0 ? "valid" : bad == 1 ? "bad-header" : bad == 2 ? "truncated" : "bad-checksum") < 0)
        die("fprintf", "restart report");
    if (bad) return bad;
    m->step = h.step; m->time = h.time;
    m->heat_integral = h.heat_integral; m->vent_open = h.vent_open; m->heat_power = h.heat_power;
    m->co2_dose = h.co2_dose; m->energy_used = h.energy_used; m->co2_used = h.co2_used;
    return 0;
}

/* List ckpt_*.bin, newest first, and load the first one that validates. */
static void restart_from_newest(model *m, FILE *report)
{
    unsigned long long steps[1024];
    int n = 0;
    DIR *d = opendir(outdir);
    if (!d) die("opendir", outdir);
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        unsigned long long s;
        char tail[8];
        if (sscanf(e->d_name, "ckpt_%6llu.%3s", &s, tail) == 2 && strcmp(tail, "bin") == 0 && n < 1024)
            steps[n++] = s;
    }
    if (errno != 0) die("readdir", outdir);
    if (closedir(d) != 0) die("closedir", outdir);
    qsort(steps, (size_t)n, sizeof steps[0], cmp_desc);
    for (int i = 0; i < n; i++)
        if (read_checkpoint(m, steps[i], report) == 0) {
            if (fprintf(report, "restart from step %llu\n", steps[i]) < 0) die("fprintf", "restart report");
            return;
        }
    fprintf(stderr, "greenhouse: no valid checkpoint found\n");
    exit(3);
}

static void run_steps(model *m, uint64_t until, FILE *log, int crash)
{
    while (m->step < until) {
        double tout, qout, solar, tmean, rh, cmean;
        outside_weather(m->time, &tout, &qout, &solar);
        climate_controller(m, &tmean, &rh, &cmean);
        step_transport(m, tout, qout, solar);
        step_canopy(m, solar);
        m->step++;
        m->time += DT;
        if (fprintf(log, "%llu,%.1f,%.3f,%.2f,%.1f,%.3f,%.3f,%.2f,%.1f\n", (unsigned long long)m->step, m->time,
                    tmean, rh, cmean, m->heat_power, m->vent_open, tout, solar) < 0)
            die("fprintf", "climate log");
        if (crash && m->step == CRASH_STEP) {
            write_checkpoint(m, 2);                  /* dies half-way through the CO2 field */
            return;
        }
        if (m->step % CKPT_EVERY == 0) write_checkpoint(m, -1);
    }
}

static void write_final_report(const model *m)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/final_crop.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    double bio = 0, lai = 0, tmin = 1e9, tmax = -1e9;
    size_t ncan = 0;
    for (size_t c = 0; c < (size_t)NX * NY; c++) {
        if (m->f[F_LAI][c] > 0) { bio += m->f[F_BIO][c]; lai += m->f[F_LAI][c]; ncan++; }
        tmin = fmin(tmin, m->f[F_T][c]); tmax = fmax(tmax, m->f[F_T][c]);
    }
    /* vertical temperature profile, span-averaged */
    if (fprintf(f, "step %llu time %.0f s\ncanopy cells %zu mean LAI %.4f mean biomass %.3f g/m2\n",
                (unsigned long long)m->step, m->time, ncan, lai / ncan, bio / ncan) < 0)
        die("fprintf", path);
    if (fprintf(f, "air T range %.3f .. %.3f C, heating energy %.1f kJ/m, CO2 %.3f kg/m\n", tmin, tmax,
                m->energy_used / 1000.0, m->co2_used) < 0)
        die("fprintf", path);
    for (int j = 0; j < NY; j += 4) {
        double s = 0, sc = 0;
        for (int i = 0; i < NX; i++) { s += m->f[F_T][IDX(i, j)]; sc += m->f[F_C][IDX(i, j)]; }
        if (fprintf(f, "z %.2f m  T %.3f C  CO2 %.1f ppm\n", j * DXY, s / NX, sc / NX) < 0) die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);

    /* full final fields for plotting: one line per cell */
    snprintf(path, sizeof path, "%s/final_fields.csv", outdir);
    f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "x_m,z_m,T_C,q_g_kg,CO2_ppm,LAI\n") < 0) die("fprintf", path);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = IDX(i, j);
            if (fprintf(f, "%.2f,%.2f,%.4f,%.4f,%.2f,%.3f\n", i * DXY, j * DXY, m->f[F_T][c], 1000.0 * m->f[F_Q][c],
                        m->f[F_C][c], m->f[F_LAI][c]) < 0)
                die("fprintf", path);
        }
    if (fclose(f) != 0) die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/climate_log.csv", outdir);
    FILE *log = fopen(path, "w");
    if (!log) die("fopen", path);
    if (fprintf(log, "step,time_s,T_canopy,RH,CO2,heat,vent,T_out,solar\n") < 0) die("fprintf", path);

    model m;
    model_alloc(&m);
    build_circulation(&m);
    init_state(&m);
    write_checkpoint(&m, -1);
    run_steps(&m, NSTEPS, log, 1);
    uint64_t crashed_at = m.step;

    /* crash: throw away the in-memory state */
    model_free(&m);
    model_alloc(&m);
    build_circulation(&m);

    snprintf(path, sizeof path, "%s/restart_report.txt", outdir);
    FILE *rep = fopen(path, "w");
    if (!rep) die("fopen", path);
    restart_from_newest(&m, rep);
    uint64_t restarted_at = m.step;
    if (fclose(rep) != 0) die("fclose", path);

    run_steps(&m, NSTEPS, log, 0);
    if (fclose(log) != 0) die("fclose", "climate_log.csv");
    write_final_report(&m);
    printf("greenhouse: crashed at step %llu, restarted from %llu, finished %llu steps, heating %.1f kJ/m\n",
           (unsigned long long)crashed_at, (unsigned long long)restarted_at, (unsigned long long)m.step,
           m.energy_used / 1000.0);
    model_free(&m);
    return 0;
}
