/*
 * Convective tray dryer for saffron stigmas.  Twenty trays of freshly
 * picked stigmas (lot data generated once and memory-mapped read-only) are
 * dried under a staged temperature program read from a text file.  Each tray
 * is a 64 x 48 cell layer; air crosses every tray row, cooling and picking up
 * moisture, and the exhaust is partly recirculated.  Cells follow a
 * thin-layer drying law toward a GAB equilibrium moisture, a stigma heat
 * balance, crocin (colour) degradation and picrocrocin -> safranal (aroma)
 * kinetics.  The whole dryer state lives in a MAP_SHARED file mapping that is
 * updated in place, msync'd at every stage end and at hourly tray
 * rotations (performed as in-place swaps).  Moisture snapshots, a stage log
 * and an ISO 3632 style grading report are written with stdio; the final
 * state file is re-read with read() to verify its checksum.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NTRAY 20
#define NX 64
#define NY 48
#define NCELL (NX * NY)
#define NVAR 6
#define HDR 4096
#define DT 30.0
#define MAXSTAGE 16
#define ROTATE_S 3600
#define RECIRC 0.55
#define STATE_BYTES (HDR + (size_t)NVAR * NTRAY * NCELL * sizeof(float))
#define LOT_BYTES ((size_t)NTRAY * (64 + 3 * NCELL * sizeof(float)))

enum { V_X = 0, V_T, V_CROC, V_PICRO, V_SAFR, V_MOULD };

typedef struct {
    char magic[8];
    int32_t ntray, ny, nx, nvar;
    int64_t step;
    double time_s;
    int32_t stage, rotations;
    uint64_t checksum;
} state_hdr_t;

typedef struct { int minutes; double tset, rhset, airflow; } stage_t;

static uint64_t rs = 0xBB67AE8584CAA73Bull;
static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void write_all(int fd, const void *p, size_t n, const char *what)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w <= 0) { perror(what); exit(1); }
        c += w; n -= (size_t)w;
    }
}

/* Harvest lots: per-tray header and initial moisture/crocin/picrocrocin. */
static void generate_inputs(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/harvest_lots.bin", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    float *f = malloc(3 * NCELL * sizeof(float));
    for (int t = 0; t < NTRAY; t++) {
        char hdr[64];
        memset(hdr, 0, sizeof hdr);
        double x0 = 4.2 + 0.8 * urand(), load = 180 + 60 * urand();
        snprintf(hdr, sizeof hdr, "LOT %04d origin=%c load_g=%.1f X0=%.3f", 310 + t, "KTHM"[t % 4], load, x0);
        for (int c = 0; c < NCELL; c++) {
            double clump = 0.25 * sin(c * 0.071 + t) * cos(c * 0.013);
            f[c] = (float)(x0 * (1.0 + clump + 0.05 * (urand() - 0.5)));
            f[NCELL + c] = (float)(260.0 + 25.0 * urand() + 10.0 * (t % 4));
            f[2 * NCELL + c] = (float)(95.0 + 15.0 * urand());
        }
        write_all(fd, hdr, sizeof hdr, "lot header");
        write_all(fd, f, 3 * NCELL * sizeof(float), "lot fields");
    }
    close(fd);
    free(f);
    snprintf(path, sizeof path, "%s/dryer_program.txt", dir);
    FILE *p = fopen(path, "w");
    if (!p) { perror(path); exit(1); }
    fprintf(p, "# stage minutes T_set_C RH_set air_m_s\n");
    static const double prog[][4] = {{20, 40, 0.35, 1.2}, {20, 45, 0.30, 1.2}, {20, 50, 0.25, 1.4}, {20, 55, 0.22, 1.4},
                                     {20, 60, 0.20, 1.5}, {20, 60, 0.18, 1.5}, {20, 60, 0.16, 1.5}, {20, 58, 0.15, 1.5},
                                     {20, 55, 0.15, 1.3}, {20, 52, 0.15, 1.2}, {20, 50, 0.15, 1.0}, {20, 45, 0.18, 0.8},
                                     {20, 40, 0.20, 0.8}, {20, 35, 0.25, 0.6}};
    for (size_t s = 0; s < sizeof prog / sizeof prog[0]; s++)
        fprintf(p, "%zu %d %.1f %.2f %.2f\n", s + 1, (int)prog[s][0], prog[s][1], prog[s][2], prog[s][3]);
    fclose(p);
}

static int read_program(const char *dir, stage_t *st)
{
    char path[600], line[200];
    snprintf(path, sizeof path, "%s/dryer_program.txt", dir);
    FILE *p = fopen(path, "r");
    if (!p) { perror(path); exit(1); }
    int n = 0, idx;
    while (n < MAXSTAGE && fgets(line, sizeof line, p)) {
        if (line[0] == '#') continue;
        if (sscanf(line, "%d %d %lf %lf %lf", &idx, &st[n].minutes, &st[n].tset, &st[n].rhset, &st[n].airflow) == 5) n++;
    }
    fclose(p);
    return n;
}

/* GAB isotherm: equilibrium moisture (dry basis) at water activity aw. */
static double gab_xe(double aw, double tc)
{
    double xm = 0.085 * exp(150.0 / (tc + 273.15) - 0.45), c = 9.0, k = 0.88;
    aw = fmin(aw, 0.95);
    return xm * c * k * aw / ((1 - k * aw) * (1 - k * aw + c * k * aw));
}

static double sat_vp(double tc) { return 610.94 * exp(17.625 * tc / (tc + 243.04)); }

static uint64_t field_checksum(const float *f, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)f;
    for (size_t i = 0; i < n * sizeof(float); i += 4) { h ^= *(const uint32_t *)(b + i); h *= 1099511628211ull; }
    return h;
}

/* One time step for a tray: march the air across each row (x), exchanging
 * heat and vapour with the stigma cells. Returns kg water removed. */
static double step_tray(float *F, int tray, double tin, double win, double air, double *tout, double *wout)
{
    float *X = F + ((size_t)V_X * NTRAY + tray) * NCELL, *T = F + ((size_t)V_T * NTRAY + tray) * NCELL;
    float *C = F + ((size_t)V_CROC * NTRAY + tray) * NCELL, *P = F + ((size_t)V_PICRO * NTRAY + tray) * NCELL;
    float *S = F + ((size_t)V_SAFR * NTRAY + tray) * NCELL, *M = F + ((size_t)V_MOULD * NTRAY + tray) * NCELL;
    const double dry_mass = 1.16e-5, cp_s = 2200.0, lat = 2.4e6, h_conv = 12.0 + 9.0 * air, area = 2.3e-4;
    const double mdot_air = 4.6e-4 * air;     /* kg/s of air along one tray row */
    double removed = 0.0, to = 0.0, wo = 0.0;
    for (int y = 0; y < NY; y++) {
        double ta = tin, w = win;
        for (int x = 0; x < NX; x++) {
            int c = y * NX + x;
            double t0 = T[c];
            double pv = w * 101325.0 / (0.622 + w), aw = fmin(0.99, pv / sat_vp(ta));
            double xe = gab_xe(aw, ta);
            double k = 110.0 * exp(-4200.0 / (t0 + 273.15)) * (0.6 + 0.4 * air);
            double dX = -k * (X[c] - xe) * DT;
            if (X[c] + dX < xe) dX = xe - X[c];
            double evap = -dX * dry_mass;                     /* kg water this step */
            /* exponential integrator of m c dT/dt = hA (ta - T) - E */
            double mc = dry_mass * (cp_s + 4180.0 * X[c]), tau = mc / (h_conv * area);
            double e_w = evap * lat / DT, tinf = ta - e_w * tau / mc;
            double tc = tinf + (t0 - tinf) * exp(-DT / tau);
            double q = mc * (tc - t0) + evap * lat;           /* J taken from the air */
            X[c] += (float)dX;
            T[c] = (float)tc;
            double tk = tc + 273.15, aw_s = X[c] / (X[c] + 0.25);
            C[c] -= (float)(C[c] * 2.7e9 * exp(-8400.0 / tk) * (0.3 + aw_s) * DT / 3600.0);
            double form = P[c] * 6.0e11 * exp(-9800.0 / tk) * aw_s * DT / 3600.0;
            P[c] -= (float)form;
            S[c] += (float)(0.35 * form - S[c] * 6.6e7 * exp(-7000.0 / tk) * DT / 3600.0);
            if (X[c] > 0.6 && tc > 25.0 && tc < 40.0) M[c] += (float)(DT / 3600.0 * (X[c] - 0.6));
            w += evap / DT / mdot_air;
            ta -= q / DT / (mdot_air * 1006.0);
            removed += evap;
        }
        to += ta; wo += w;
    }
    *tout = to / NY; *wout = wo / NY;
    return removed;
}

/* Operator turns a tray 180 degrees: in-place swap of every field. */
static void rotate_tray(float *F, int tray)
{
    for (int v = 0; v < NVAR; v++) {
        float *f = F + ((size_t)v * NTRAY + tray) * NCELL;
        for (int a = 0, b = NCELL - 1; a < b; a++, b--) { float t = f[a]; f[a] = f[b]; f[b] = t; }
    }
}

static void dump_moisture(const char *dir, int stage, const float *F)
{
    char path[600];
    snprintf(path, sizeof path, "%s/moisture_stage_%02d.f32", dir, stage);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(F, sizeof(float), (size_t)NTRAY * NCELL, f) != (size_t)NTRAY * NCELL) { perror(path); exit(1); }
    fclose(f);
}

static void tray_means(const float *F, int tray, double m[NVAR])
{
    for (int v = 0; v < NVAR; v++) {
        const float *f = F + ((size_t)v * NTRAY + tray) * NCELL;
        double s = 0;
        for (int c = 0; c < NCELL; c++) s += f[c];
        m[v] = s / NCELL;
    }
}

/* Re-reads the state file with read(), checks it and grades every tray. */
static void grade_trays(const char *dir, const char *statepath)
{
    int fd = open(statepath, O_RDONLY);
    if (fd < 0) { perror(statepath); exit(1); }
    state_hdr_t h;
    float *F = malloc(STATE_BYTES - HDR);
    char *pad = malloc(HDR);
    if (read(fd, pad, HDR) != HDR) { perror("read hdr"); exit(1); }
    memcpy(&h, pad, sizeof h);
    size_t need = STATE_BYTES - HDR, got = 0;
    while (got < need) {
        ssize_t r = read(fd, (char *)F + got, need - got > 262144 ? 262144 : need - got);
        if (r <= 0) { perror("read state"); exit(1); }
        got += (size_t)r;
    }
    close(fd);
    int ok = field_checksum(F, (size_t)NVAR * NTRAY * NCELL) == h.checksum;
    char path[600];
    snprintf(path, sizeof path, "%s/quality_report.txt", dir);
    FILE *q = fopen(path, "w");
    if (!q) { perror(path); exit(1); }
    fprintf(q, "# checksum %s, %lld steps, %d rotations\n", ok ? "OK" : "MISMATCH", (long long)h.step, h.rotations);
    fprintf(q, "# tray moisture_wb crocin_E440 picrocrocin_E257 safranal_E330 mould_h overdried_frac category\n");
    for (int t = 0; t < NTRAY; t++) {
        double m[NVAR];
        tray_means(F, t, m);
        const float *X = F + ((size_t)V_X * NTRAY + t) * NCELL;
        int over = 0;
        for (int c = 0; c < NCELL; c++) over += X[c] < 0.06f;
        double wb = m[V_X] / (1 + m[V_X]);
        const char *cat = (m[V_CROC] >= 190 && wb <= 0.12) ? "I" : (m[V_CROC] >= 150 && wb <= 0.12) ? "II"
                        : (m[V_CROC] >= 100 && wb <= 0.12) ? "III" : "reject";
        fprintf(q, "%2d %.4f %.1f %.1f %.2f %.3f %.3f %s\n", t, wb, m[V_CROC], m[V_PICRO], m[V_SAFR], m[V_MOULD],
                (double)over / NCELL, cat);
    }
    fclose(q);
    free(F); free(pad);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    generate_inputs(dir);
    stage_t prog[MAXSTAGE];
    int nstage = read_program(dir, prog);

    char path[600], statepath[600];
    snprintf(path, sizeof path, "%s/harvest_lots.bin", dir);
    int lfd = open(path, O_RDONLY);
    if (lfd < 0) { perror(path); return 1; }
    const unsigned char *lots = mmap(NULL, LOT_BYTES, PROT_READ, MAP_PRIVATE, lfd, 0);
    if (lots == MAP_FAILED) { perror("mmap lots"); return 1; }

    snprintf(statepath, sizeof statepath, "%s/dryer_state.bin", dir);
    int sfd = open(statepath, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (sfd < 0 || ftruncate(sfd, (off_t)STATE_BYTES) != 0) { perror(statepath); return 1; }
    unsigned char *map = mmap(NULL, STATE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
    if (map == MAP_FAILED) { perror("mmap state"); return 1; }
    state_hdr_t *hdr = (state_hdr_t *)map;
    float *F = (float *)(map + HDR);
    memcpy(hdr->magic, "SAFDRY01", 8);
    hdr->ntray = NTRAY; hdr->ny = NY; hdr->nx = NX; hdr->nvar = NVAR;
    for (int t = 0; t < NTRAY; t++) {
        const float *src = (const float *)(lots + (size_t)t * (64 + 3 * NCELL * sizeof(float)) + 64);
        memcpy(F + ((size_t)V_X * NTRAY + t) * NCELL, src, NCELL * sizeof(float));
        memcpy(F + ((size_t)V_CROC * NTRAY + t) * NCELL, src + NCELL, NCELL * sizeof(float));
        memcpy(F + ((size_t)V_PICRO * NTRAY + t) * NCELL, src + 2 * NCELL, NCELL * sizeof(float));
        for (int c = 0; c < NCELL; c++) {
            F[((size_t)V_T * NTRAY + t) * NCELL + c] = 22.0f;
            F[((size_t)V_SAFR * NTRAY + t) * NCELL + c] = 0.5f;
            F[((size_t)V_MOULD * NTRAY + t) * NCELL + c] = 0.0f;
        }
    }
    munmap((void *)lots, LOT_BYTES);
    close(lfd);
    msync(map, STATE_BYTES, MS_SYNC);

    snprintf(path, sizeof path, "%s/drying_log.txt", dir);
    FILE *log = fopen(path, "w");
    if (!log) { perror(path); return 1; }
    fprintf(log, "# time_min stage tray X_db T_C crocin picrocrocin safranal mould_h water_removed_g\n");
    double t_ex = prog[0].tset, w_ex = 0.012, time_s = 0.0;
    int64_t step = 0;
    int rotations = 0;
    for (int s = 0; s < nstage; s++) {
        int nsteps = (int)(prog[s].minutes * 60 / DT);
        double removed_stage = 0.0;
        for (int k = 0; k < nsteps; k++) {
            double w_fresh = prog[s].rhset * 0.2 * sat_vp(20.0) / 101325.0;
            double tin = prog[s].tset, win = (1 - RECIRC) * w_fresh + RECIRC * w_ex;
            double tsum = 0, wsum = 0;
            for (int t = 0; t < NTRAY; t++) {
                double to, wo;
                removed_stage += step_tray(F, t, tin - 0.15 * t, win, prog[s].airflow * (1.0 - 0.01 * t), &to, &wo);
                tsum += to; wsum += wo;
            }
            t_ex = tsum / NTRAY; w_ex = wsum / NTRAY;
            time_s += DT; step++;
            if ((int64_t)time_s % ROTATE_S == 0) {
                for (int t = 0; t < NTRAY; t += 2) rotate_tray(F, t);
                rotations++;
                hdr->rotations = rotations;
                msync(map, STATE_BYTES, MS_SYNC);
            }
        }
        hdr->step = step; hdr->time_s = time_s; hdr->stage = s + 1;
        hdr->checksum = field_checksum(F, (size_t)NVAR * NTRAY * NCELL);
        if (msync(map, STATE_BYTES, MS_SYNC) != 0) { perror("msync"); return 1; }
        for (int t = 0; t < NTRAY; t++) {
            double m[NVAR];
            tray_means(F, t, m);
            fprintf(log, "%.1f %d %d %.4f %.2f %.2f %.2f %.3f %.4f %.2f\n", time_s / 60, s + 1, t, m[V_X], m[V_T], m[V_CROC],
                    m[V_PICRO], m[V_SAFR], m[V_MOULD], removed_stage * 1000 / NTRAY);
        }
        dump_moisture(dir, s + 1, F);
    }
    fclose(log);
    munmap(map, STATE_BYTES);
    close(sfd);
    grade_trays(dir, statepath);
    printf("dried %d trays over %d stages (%.1f h), %d rotations, exhaust %.1f C\n", NTRAY, nstage, time_s / 3600, rotations, t_ex);
    return 0;
}
