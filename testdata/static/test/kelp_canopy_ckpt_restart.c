/*
 * Giant-kelp canopy dynamics on a rocky reef: weekly logistic canopy growth
 * limited by nitrate (from sea-surface temperature with ENSO and marine
 * heatwaves), depth-dependent light, winter wave storms, spore dispersal,
 * drift-kelp production, and sea-urchin grazing fronts with predator control.
 * A canopy survey log is appended with write(); half-yearly checkpoints are
 * written with pwrite, fsync'd and renamed into place.  Midway the run
 * "crashes" during a checkpoint, leaving a torn file; the restart scans the
 * directory, validates checkpoints by CRC, truncates the survey log and
 * resumes.  At the end the survey log is read back for trend analysis.
 */
#define _GNU_SOURCE
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

#define NX 160
#define NY 160
#define NCELL (NX * NY)
#define NFIELD 4
#define WEEKS_PER_YEAR 52
#define NYEARS 30
#define NSTEPS (NYEARS * WEEKS_PER_YEAR)
#define CKPT_EVERY 26
#define KEEP_CKPTS 3
#define CRASH_STEP 1014
#define SURVEY_EVERY 2
#define NBANDS 8
#define LOGBUF_CAP 32768
#define CELL_M 50.0
#define HDR_BYTES 256
#define FIELD_BYTES ((size_t)NCELL * sizeof(double))
#define ROWS_PER_WRITE 16

enum { F_CANOPY = 0, F_URCHIN = 1, F_DRIFT = 2, F_RECRUIT = 3 };

typedef struct {
    uint64_t step;
    uint64_t rng;
    double sst_anom;
    uint64_t log_offset;
    double *f[NFIELD];
} state_t;

typedef struct {
    char magic[8];
    uint32_t version, nx, ny, nfield;
    uint64_t step, rng, log_offset;
    double sst_anom;
    uint32_t field_crc[NFIELD];
    uint32_t hdr_crc;
} ckpt_hdr_t;

static uint32_t crc_table[256];
static double depth[NCELL];
static char logbuf[LOGBUF_CAP];
static size_t loglen;
static int logfd = -1;
static uint64_t log_written;
static const char *outdir;

static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_buf(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ b[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static double rng_u(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return ((*s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rng_n(uint64_t *s)
{
    double u1 = rng_u(s), u2 = rng_u(s);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Reef bathymetry: sloping shelf with rocky ridges and a sandy channel. */
static void init_bathymetry(void)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double x = i * CELL_M, y = j * CELL_M;
            double d = 2.0 + 28.0 * (double)i / NX + 3.0 * sin(y / 310.0) * cos(x / 270.0)
                       + 1.5 * sin((x + y) / 123.0);
            if (fabs(y - 4200.0 - 600.0 * sin(x / 900.0)) < 180.0) d += 12.0;
            depth[j * NX + i] = d < 0.5 ? 0.5 : d;
        }
}

static void init_state(state_t *s)
{
    s->step = 0; s->rng = 0x9E3779B97F4A7C15ull; s->sst_anom = 0.0; s->log_offset = 0;
    for (int k = 0; k < NFIELD; k++) s->f[k] = calloc(NCELL, sizeof(double));
    for (int c = 0; c < NCELL; c++) {
        double suit = exp(-pow((depth[c] - 12.0) / 8.0, 2));
        s->f[F_CANOPY][c] = 1.2 * suit * (0.5 + rng_u(&s->rng));
        s->f[F_URCHIN][c] = 2.0 + 3.0 * rng_u(&s->rng);
        s->f[F_DRIFT][c] = 0.2 * suit;
    }
}

/* Weekly SST: seasonal cycle + ENSO + AR(1) anomaly with heatwave bursts. */
static double forcing_sst(state_t *s, uint64_t step)
{
    double t = (double)step / WEEKS_PER_YEAR;
    s->sst_anom = 0.92 * s->sst_anom + 0.35 * rng_n(&s->rng);
    if (rng_u(&s->rng) < 0.004) s->sst_anom += 2.5;
    return 14.5 + 3.0 * sin(6.283185307 * (t - 0.35)) + 1.2 * sin(6.283185307 * t / 4.3)
           + s->sst_anom;
}

static void advance_week(state_t *s, double *tmpa, double *tmpb, double *storm_hs)
{
    double sst = forcing_sst(s, s->step);
    double nitrate = fmax(0.0, 11.5 - 0.85 * (sst - 10.0));
    double week = fmod((double)s->step, WEEKS_PER_YEAR);
    int winter = (week < 10 || week > 45);
    double hs = 1.2 + 0.4 * rng_n(&s->rng);
    if (winter && rng_u(&s->rng) < 0.18) hs = 4.0 + 3.0 * rng_u(&s->rng);
    if (hs < 0.3) hs = 0.3;
    *storm_hs = hs;
    double larval = 0.0;
    if (week > 20 && week < 30) {
        larval = 0.08 * (1.0 + rng_u(&s->rng));
        if (rng_u(&s->rng) < 0.03) larval += 2.5;   /* episodic settlement pulse */
    }
    double *B = s->f[F_CANOPY], *U = s->f[F_URCHIN], *D = s->f[F_DRIFT], *R = s->f[F_RECRUIT];

    double starfish = 1.0 / (1.0 + exp(3.0 * (s->sst_anom - 1.8)));
    for (int c = 0; c < NCELL; c++) {
        double z = depth[c];
        double light = exp(-0.05 * z) * (z > 1.5 ? 1.0 : z / 1.5);
        double r = 0.12 * light * nitrate / (nitrate + 1.5);
        double K = 2.8 * exp(-pow((z - 12.0) / 10.0, 2));
        double active = exp(-D[c] / 0.15);
        double graze = 0.004 * U[c] * (0.2 + 0.8 * active) * B[c] / (B[c] + 0.4);
        double drag = 1.0 - exp(-0.006 * hs * hs * (B[c] + 0.3) * 10.0 / (z + 4.0));
        double heat = sst > 20.5 ? 0.04 * (sst - 20.5) : 0.0;
        double recruit = 0.25 * R[c] * (U[c] < 6.0 ? 1.0 : 0.2);
        double detached = (drag + 0.004 + heat) * B[c];
        double nb = B[c] + r * B[c] * (1.0 - B[c] / (K + 1e-6)) - graze - detached + recruit;
        tmpa[c] = nb > 0.0 ? nb : 0.0;
        D[c] = 0.85 * D[c] + 0.5 * detached;
        R[c] = 0.75 * R[c];
        double pred = 0.05 * starfish * U[c] / (U[c] + 4.0);
        tmpb[c] = U[c] + larval * (1.0 - U[c] / 40.0) - pred - 0.002 * U[c]
                  + 0.3 * graze;
        if (tmpb[c] < 0.0) tmpb[c] = 0.0;
    }
    /* spore dispersal into the recruit pool, urchin movement (active fronts) */
    for (int j = 0; j < NY; j++) {
        int jm = j > 0 ? j - 1 : j, jp = j < NY - 1 ? j + 1 : j;
        for (int i = 0; i < NX; i++) {
            int im = i > 0 ? i - 1 : i, ip = i < NX - 1 ? i + 1 : i, c = j * NX + i;
            double lapb = tmpa[j * NX + im] + tmpa[j * NX + ip] + tmpa[jm * NX + i]
                          + tmpa[jp * NX + i] - 4.0 * tmpa[c];
            double spores = fmax(0.0, 0.02 * (tmpa[c] + 0.25 * lapb + 0.25 * tmpa[c]));
            R[c] += spores * (depth[c] < 30.0 ? 1.0 : 0.0);
            double mob = 0.05 + 0.2 * exp(-D[c] / 0.1);
            double lapu = tmpb[j * NX + im] + tmpb[j * NX + ip] + tmpb[jm * NX + i]
                          + tmpb[jp * NX + i] - 4.0 * tmpb[c];
            U[c] = tmpb[c] + 0.2 * mob * lapu;
            B[c] = tmpa[c];
        }
    }
    s->step++;
}

static void log_flush(void)
{
    size_t off = 0;
    while (off < loglen) {
        ssize_t w = write(logfd, logbuf + off, loglen - off);
        if (w < 0) { if (errno == EINTR) continue; perror("write log"); exit(1); }
        off += (size_t)w;
    }
    log_written += loglen;
    loglen = 0;
}

/* Satellite-style survey: canopy area, mean biomass and barren fraction by
 * cross-shore band. */
static void survey_record(const state_t *s, double hs)
{
    for (int b = 0; b < NBANDS; b++) {
        int i0 = b * NX / NBANDS, i1 = (b + 1) * NX / NBANDS;
        double area = 0.0, bio = 0.0, barren = 0.0;
        for (int j = 0; j < NY; j++)
            for (int i = i0; i < i1; i++) {
                int c = j * NX + i;
                if (s->f[F_CANOPY][c] > 0.8) area += CELL_M * CELL_M;
                bio += s->f[F_CANOPY][c];
                if (s->f[F_URCHIN][c] > 8.0 && s->f[F_CANOPY][c] < 0.05) barren += 1.0;
            }
        int n = (i1 - i0) * NY;
        if (loglen + 160 > LOGBUF_CAP) log_flush();
        loglen += (size_t)snprintf(logbuf + loglen, LOGBUF_CAP - loglen,
                                   "%llu %d %.4f %.1f %.5f %.5f %.3f\n",
                                   (unsigned long long)s->step, b, s->sst_anom, area / 1e4,
                                   bio / n, barren / n, hs);
    }
}

static void write_canopy_pgm(const state_t *s, int year)
{
    char path[512], hdr[64];
    static unsigned char img[NCELL];
    snprintf(path, sizeof path, "%s/canopy_%02d.pgm", outdir, year);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    int hl = snprintf(hdr, sizeof hdr, "P5\n%d %d\n255\n", NX, NY);
    for (int c = 0; c < NCELL; c++) {
        double v = s->f[F_CANOPY][c] / 2.5 * 255.0;
        img[c] = (unsigned char)(v > 255.0 ? 255 : v);
    }
    if (write(fd, hdr, hl) != hl || write(fd, img, NCELL) != NCELL) { perror("pgm"); exit(1); }
    close(fd);
}

static void ckpt_path(char *buf, size_t n, uint64_t step, const char *ext)
{
    snprintf(buf, n, "%s/ckpt_%06llu.%s", outdir, (unsigned long long)step, ext);
}

static void fill_header(const state_t *s, ckpt_hdr_t *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, "KELPCKP1", 8);
    h->version = 1; h->nx = NX; h->ny = NY; h->nfield = NFIELD;
    h->step = s->step; h->rng = s->rng; h->log_offset = s->log_offset; h->sst_anom = s->sst_anom;
    for (int k = 0; k < NFIELD; k++) h->field_crc[k] = crc32_buf(s->f[k], FIELD_BYTES);
    h->hdr_crc = crc32_buf(h, offsetof(ckpt_hdr_t, hdr_crc));
}

static void pwrite_all(int fd, const void *p, size_t n, off_t off)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n, off);
        if (w < 0) { if (errno == EINTR) continue; perror("pwrite"); exit(1); }
        c += w; n -= (size_t)w; off += w;
    }
}

/* Writes fields row-block by row-block; 'torn' stops partway through and
 * skips fsync to model a crash after a premature rename. */
static void write_checkpoint(state_t *s, int torn)
{
    char tmp[512], fin[512];
    unsigned char hbuf[HDR_BYTES];
    ckpt_hdr_t h;
    log_flush();
    s->log_offset = log_written;
    fill_header(s, &h);
    memset(hbuf, 0, sizeof hbuf);
    memcpy(hbuf, &h, sizeof h);
    ckpt_path(tmp, sizeof tmp, s->step, "tmp");
    ckpt_path(fin, sizeof fin, s->step, "bin");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(tmp); exit(1); }
    pwrite_all(fd, hbuf, HDR_BYTES, 0);
    size_t blk = (size_t)ROWS_PER_WRITE * NX * sizeof(double);
    for (int k = 0; k < NFIELD; k++)
        for (int j = 0; j < NY; j += ROWS_PER_WRITE) {
            if (torn && k == 2 && j >= NY / 2) goto crash;
            pwrite_all(fd, (const char *)s->f[k] + (size_t)j * NX * sizeof(double), blk,
                       HDR_BYTES + (off_t)(k * FIELD_BYTES + (size_t)j * NX * sizeof(double)));
        }
    if (fsync(fd) != 0) { perror("fsync"); exit(1); }
crash:
    close(fd);
    if (rename(tmp, fin) != 0) { perror("rename"); exit(1); }
    if (!torn) {
        int dfd = open(outdir, O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) { fsync(dfd); close(dfd); }
        if (s->step > (uint64_t)KEEP_CKPTS * CKPT_EVERY) {
            char old[512];
            ckpt_path(old, sizeof old, s->step - (uint64_t)KEEP_CKPTS * CKPT_EVERY, "bin");
            unlink(old);
        }
    }
}

/* Returns 1 if the checkpoint is complete and every CRC matches; loads it
 * into s when s != NULL. */
static int validate_checkpoint(const char *path, state_t *s)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    struct stat st;
    ckpt_hdr_t h;
    int ok = fstat(fd, &st) == 0 && st.st_size == (off_t)(HDR_BYTES + NFIELD * FIELD_BYTES)
             && pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h
             && memcmp(h.magic, "KELPCKP1", 8) == 0
             && h.hdr_crc == crc32_buf(&h, offsetof(ckpt_hdr_t, hdr_crc))
             && h.nx == NX && h.ny == NY && h.nfield == NFIELD;
    double *buf = malloc(FIELD_BYTES);
    for (int k = 0; ok && k < NFIELD; k++) {
        if (pread(fd, buf, FIELD_BYTES, HDR_BYTES + (off_t)(k * FIELD_BYTES)) != (ssize_t)FIELD_BYTES
            || crc32_buf(buf, FIELD_BYTES) != h.field_crc[k]) { ok = 0; break; }
        if (s) memcpy(s->f[k], buf, FIELD_BYTES);
    }
    free(buf);
    close(fd);
    if (ok && s) {
        s->step = h.step; s->rng = h.rng; s->log_offset = h.log_offset; s->sst_anom = h.sst_anom;
    }
    return ok;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Directory scan after the crash: drop temporaries, quarantine torn files,
 * load the newest valid checkpoint and truncate the survey log to match. */
static int scan_and_restart(state_t *s)
{
    DIR *d = opendir(outdir);
    if (!d) { perror("opendir"); exit(1); }
    uint64_t steps[256];
    int n = 0;
    struct dirent *e;
    char path[512], bad[512];
    while ((e = readdir(d)) != NULL) {
        unsigned long long st;
        char ext[8];
        if (sscanf(e->d_name, "ckpt_%llu.%3s", &st, ext) != 2) continue;
        if (strcmp(ext, "tmp") == 0) {
            snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
            unlink(path);
        } else if (strcmp(ext, "bin") == 0 && n < 256) steps[n++] = st;
    }
    closedir(d);
    qsort(steps, n, sizeof steps[0], cmp_desc);
    for (int i = 0; i < n; i++) {
        ckpt_path(path, sizeof path, steps[i], "bin");
        if (validate_checkpoint(path, s)) {
            if (ftruncate(logfd, (off_t)s->log_offset) != 0) { perror("ftruncate"); exit(1); }
            lseek(logfd, 0, SEEK_END);
            log_written = s->log_offset;
            loglen = 0;
            printf("restart from step %llu (%d candidates)\n", (unsigned long long)s->step, n);
            return 1;
        }
        ckpt_path(bad, sizeof bad, steps[i], "bad");
        rename(path, bad);
        printf("checkpoint %llu failed validation, quarantined\n", (unsigned long long)steps[i]);
    }
    return 0;
}

static void run_until(state_t *s, uint64_t end, double *ta, double *tb, int crash_at_end)
{
    double hs = 0.0;
    while (s->step < end) {
        advance_week(s, ta, tb, &hs);
        if (s->step % SURVEY_EVERY == 0) survey_record(s, hs);
        if (s->step % WEEKS_PER_YEAR == 0) write_canopy_pgm(s, (int)(s->step / WEEKS_PER_YEAR));
        if (s->step % CKPT_EVERY == 0 && !(crash_at_end && s->step == end)) write_checkpoint(s, 0);
    }
    if (crash_at_end) {
        /* a stale temporary from an earlier interrupted attempt, then the torn one */
        char tmp[512];
        ckpt_path(tmp, sizeof tmp, s->step - 3, "tmp");
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) { pwrite_all(fd, s->f[0], FIELD_BYTES / 3, HDR_BYTES); close(fd); }
        write_checkpoint(s, 1);
        log_flush();
    }
}

/* Reads the survey log back and fits a canopy-area trend per band plus the
 * canopy response to SST anomalies. */
static void analyse_survey(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/canopy_survey.log", outdir);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(path); exit(1); }
    char *txt = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, txt + got, (size_t)st.st_size - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    txt[got] = 0;
    close(fd);
    double sx[NBANDS] = {0}, sy[NBANDS] = {0}, sxx[NBANDS] = {0}, sxy[NBANDS] = {0};
    double sa[NBANDS] = {0}, sab[NBANDS] = {0}, saa[NBANDS] = {0}, sbar[NBANDS] = {0};
    int cnt[NBANDS] = {0};
    for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long long stp; int b; double an, area, bio, barren, hs;
        if (sscanf(line, "%llu %d %lf %lf %lf %lf %lf", &stp, &b, &an, &area, &bio, &barren, &hs) != 7
            || b < 0 || b >= NBANDS) continue;
        double t = (double)stp / WEEKS_PER_YEAR;
        sx[b] += t; sy[b] += area; sxx[b] += t * t; sxy[b] += t * area;
        sa[b] += an; sab[b] += an * area; saa[b] += an * an; sbar[b] += barren; cnt[b]++;
    }
    free(txt);
    snprintf(path, sizeof path, "%s/canopy_trends.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# band n mean_area_ha trend_ha_per_yr area_vs_sst_slope mean_barren_frac\n");
    for (int b = 0; b < NBANDS; b++) {
        double n = cnt[b] ? cnt[b] : 1;
        double slope = (n * sxy[b] - sx[b] * sy[b]) / (n * sxx[b] - sx[b] * sx[b] + 1e-12);
        double sst_slope = (n * sab[b] - sa[b] * sy[b]) / (n * saa[b] - sa[b] * sa[b] + 1e-12);
        fprintf(f, "%d %d %.2f %.4f %.4f %.4f\n", b, cnt[b], sy[b] / n, slope, sst_slope, sbar[b] / n);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    outdir = argv[1];
    crc32_init();
    init_bathymetry();
    char path[512];
    snprintf(path, sizeof path, "%s/canopy_survey.log", outdir);
    logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (logfd < 0) { perror(path); return 1; }

    double *ta = malloc(FIELD_BYTES), *tb = malloc(FIELD_BYTES);
    state_t s;
    init_state(&s);
    write_checkpoint(&s, 0);
    run_until(&s, CRASH_STEP, ta, tb, 1);
    for (int k = 0; k < NFIELD; k++) free(s.f[k]);

    state_t r;
    init_state(&r);
    if (!scan_and_restart(&r)) { fprintf(stderr, "no valid checkpoint\n"); return 1; }
    run_until(&r, NSTEPS, ta, tb, 0);
    log_flush();
    close(logfd);

    int valid = 0;
    for (uint64_t st = NSTEPS; st + (uint64_t)KEEP_CKPTS * CKPT_EVERY > NSTEPS; st -= CKPT_EVERY) {
        ckpt_path(path, sizeof path, st, "bin");
        valid += validate_checkpoint(path, NULL);
    }
    analyse_survey();
    printf("finished %d steps, %d/%d retained checkpoints valid\n", NSTEPS, valid, KEEP_CKPTS);
    for (int k = 0; k < NFIELD; k++) free(r.f[k]);
    free(ta); free(tb);
    return 0;
}
