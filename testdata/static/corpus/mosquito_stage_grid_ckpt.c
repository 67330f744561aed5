/*
 * mosquito_stage_grid_ckpt.c
 *
 * Stage-structured Aedes population model on a gridded urban landscape.
 * Each cell holds eggs, larvae, pupae, host-seeking and gravid females;
 * development is temperature driven (seasonal + weather noise), larvae
 * suffer density-dependent mortality against the cell's container capacity,
 * adults disperse by hourly diffusion substeps and a network of CO2 traps
 * removes and counts host-seeking females every night.
 *
 * Every CKPT_EVERY days the full state (five fields, RNG state, counters)
 * is written to a binary checkpoint file with pwrite, row by row, protected
 * by a CRC-32 per field; files are written under a temporary name, fsynced
 * and renamed.  After the production run the program simulates a crash that
 * left the newest checkpoint torn, probes all checkpoints for the newest
 * valid one, restarts from it and verifies that the final state is
 * bit-identical to the uninterrupted run.
 *
 * usage: mosquito_stage_grid_ckpt OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
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

#define NX 176
#define NY 176
#define NCELL (NX * NY)
#define NFIELD 5
#define NDAYS 200
#define CKPT_EVERY 10
#define NTRAP 48
#define SUBSTEPS 24
#define CKPT_MAGIC 0x4D4F5351u /* "MOSQ" */

enum { EGG = 0, LARVA, PUPA, HOST, GRAVID };

typedef struct {
    uint32_t magic;
    uint32_t version;
    int32_t nx, ny, nfield, day;
    uint64_t rng;
    double cum_trapped;
    double cum_emerged;
    uint32_t crc[NFIELD];
    uint32_t hdr_crc;
} ckpt_header;

typedef struct {
    double *f[NFIELD];
    double *capacity;   /* larval container capacity per cell */
    double *scratch;
    uint64_t rng;
    int day;
    double cum_trapped;
    double cum_emerged;
    int trap_cell[NTRAP];
} model;

static const char *g_dir;
static uint32_t crc_table[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "mosquito_stage_grid_ckpt: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void mkpath(char *buf, size_t n, const char *name)
{
    int r = snprintf(buf, n, "%s/%s", g_dir, name);
    if (r < 0 || (size_t)r >= n) {
        fprintf(stderr, "path too long\n");
        exit(1);
    }
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unif(uint64_t *s) { return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* Container capacity: smoothed log-normal noise (rain-filled containers are
 * clustered in residential blocks), with a few parks of zero capacity. */
static void init_habitat(model *m)
{
    double *raw = m->scratch;
    for (int i = 0; i < NCELL; i++) {
        double u1 = rng_unif(&m->rng) + 1e-12, u2 = rng_unif(&m->rng);
        raw[i] = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    for (int pass = 0; pass < 6; pass++) {
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                int xm = x > 0 ? x - 1 : x, xp = x < NX - 1 ? x + 1 : x;
                int ym = y > 0 ? y - 1 : y, yp = y < NY - 1 ? y + 1 : y;
                m->capacity[y * NX + x] = 0.4 * raw[y * NX + x] +
                    0.15 * (raw[y * NX + xm] + raw[y * NX + xp] + raw[ym * NX + x] + raw[yp * NX + x]);
            }
        memcpy(raw, m->capacity, sizeof(double) * NCELL);
    }
    for (int i = 0; i < NCELL; i++)
        m->capacity[i] = 400.0 * exp(1.8 * raw[i]);
    for (int p = 0; p < 5; p++) {
        int cx = (int)(rng_unif(&m->rng) * NX), cy = (int)(rng_unif(&m->rng) * NY);
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < 90)
                    m->capacity[y * NX + x] = 0.0;
    }
    for (int t = 0; t < NTRAP; t++)
        m->trap_cell[t] = (int)(rng_unif(&m->rng) * NCELL);
    for (int k = 0; k < NFIELD; k++)
        memset(m->f[k], 0, sizeof(double) * NCELL);
    for (int i = 0; i < NCELL; i++)
        m->f[EGG][i] = 0.5 * m->capacity[i];
}

static double day_temperature(int day, uint64_t *s)
{
    double season = 21.0 + 8.5 * sin(6.283185307179586 * (day - 40) / 365.0);
    return season + 2.5 * (rng_unif(s) - 0.5) * 2.0;
}

/* One day of aquatic and adult demography (no movement). */
static void demography_step(model *m, double temp)
{
    double dev_egg = fmax(0.0, 0.024 * (temp - 10.0));
    double dev_larva = fmax(0.0, 0.0105 * (temp - 8.5));
    double dev_pupa = fmax(0.0, 0.042 * (temp - 9.0));
    double gono = fmax(0.0, 0.021 * (temp - 9.5));
    double adult_surv = exp(-0.09 - 0.0016 * (temp - 26.0) * (temp - 26.0));
    double *E = m->f[EGG], *L = m->f[LARVA], *P = m->f[PUPA], *H = m->f[HOST], *G = m->f[GRAVID];
    double emerged = 0.0;
    for (int i = 0; i < NCELL; i++) {
        double cap = m->capacity[i] + 1.0;
        double hatch = fmin(1.0, dev_egg) * E[i];
        double lmort = 0.05 + 0.9 * L[i] / (L[i] + cap);
        double pupate = fmin(1.0, dev_larva) * L[i] * (1.0 - lmort);
        double eclose = fmin(1.0, dev_pupa) * P[i] * 0.92;
        double layers = fmin(1.0, gono) * G[i];
        double eggs = 63.0 * layers * cap / (cap + 0.02 * E[i]);
        E[i] = E[i] * 0.97 - hatch + eggs;
        L[i] = L[i] * (1.0 - lmort) + hatch - pupate;
        P[i] = P[i] * 0.9 + pupate - eclose;
        double feed = 0.45 * H[i];
        H[i] = (H[i] - feed + 0.5 * eclose + layers) * adult_surv;
        G[i] = (G[i] + feed - layers) * adult_surv;
        emerged += 0.5 * eclose;
    }
    m->cum_emerged += emerged;
}

/* Adult flight: explicit diffusion with reflecting boundaries, hourly. */
static void disperse_adults(model *m, double dcoef)
{
    for (int fld = HOST; fld <= GRAVID; fld++) {
        double *a = m->f[fld], *b = m->scratch;
        for (int s = 0; s < SUBSTEPS; s++) {
            for (int y = 0; y < NY; y++) {
                int ym = y > 0 ? y - 1 : y, yp = y < NY - 1 ? y + 1 : y;
                for (int x = 0; x < NX; x++) {
                    int xm = x > 0 ? x - 1 : x, xp = x < NX - 1 ? x + 1 : x;
                    double c = a[y * NX + x];
                    b[y * NX + x] = c + dcoef * (a[y * NX + xm] + a[y * NX + xp] + a[ym * NX + x] + a[yp * NX + x] - 4.0 * c);
                }
            }
            memcpy(a, b, sizeof(double) * NCELL);
        }
    }
}

/* Nightly trapping: Poisson-thinned catch of host-seeking females in a 3x3
 * neighbourhood around each trap; one CSV line per trap and night. */
static void sample_traps(model *m, FILE *csv, double temp)
{
    double *H = m->f[HOST];
    for (int t = 0; t < NTRAP; t++) {
        int c = m->trap_cell[t], cx = c % NX, cy = c / NX;
        double avail = 0.0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int x = cx + dx, y = cy + dy;
                if (x < 0 || y < 0 || x >= NX || y >= NY)
                    continue;
                avail += H[y * NX + x];
            }
        double lambda = 0.004 * avail;
        /* Poisson via Knuth for small lambda, normal approximation for large */
        long k;
        if (lambda < 30.0) {
            double L = exp(-lambda), p = 1.0;
            k = -1;
            do {
                k++;
                p *= rng_unif(&m->rng);
            } while (p > L);
        } else {
            double u1 = rng_unif(&m->rng) + 1e-12, u2 = rng_unif(&m->rng);
            k = lround(lambda + sqrt(lambda) * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
            if (k < 0)
                k = 0;
        }
        double frac = avail > 0.0 ? (double)k / avail : 0.0;
        if (frac > 1.0)
            frac = 1.0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int x = cx + dx, y = cy + dy;
                if (x < 0 || y < 0 || x >= NX || y >= NY)
                    continue;
                H[y * NX + x] *= 1.0 - frac;
            }
        m->cum_trapped += (double)k;
        if (csv && fprintf(csv, "%d,%d,%d,%d,%.2f,%ld,%.3f\n", m->day, t, cx, cy, temp, k, avail) < 0)
            die("write", "trap_counts.csv");
    }
}

static void simulate_day(model *m, FILE *csv)
{
    double temp = day_temperature(m->day, &m->rng);
    demography_step(m, temp);
    disperse_adults(m, 0.06 + 0.002 * fmax(0.0, temp - 20.0));
    sample_traps(m, csv, temp);
    m->day++;
}

static void pwrite_all(int fd, const void *buf, size_t n, off_t off, const char *path)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            die("pwrite", path);
        }
        p += w;
        n -= (size_t)w;
        off += w;
    }
}

static int pread_all(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            return -1; /* short file */
        p += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}

static void write_checkpoint(const model *m)
{
    char tmp[4096], final[4096], name[64];
    snprintf(name, sizeof name, "ckpt_day%03d.tmp", m->day);
    mkpath(tmp, sizeof tmp, name);
    snprintf(name, sizeof name, "ckpt_day%03d.bin", m->day);
    mkpath(final, sizeof final, name);

    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("open", tmp);
    ckpt_header h;
    memset(&h, 0, sizeof h);
    h.magic = CKPT_MAGIC;
    h.version = 2;
    h.nx = NX;
    h.ny = NY;
    h.nfield = NFIELD;
    h.day = m->day;
    h.rng = m->rng;
    h.cum_trapped = m->cum_trapped;
    h.cum_emerged = m->cum_emerged;
    const size_t rowb = sizeof(double) * NX;
    for (int k = 0; k < NFIELD; k++) {
        uint32_t crc = 0;
        off_t base = (off_t)sizeof h + (off_t)k * NCELL * (off_t)sizeof(double);
        for (int y = 0; y < NY; y++) {
            const double *row = m->f[k] + (size_t)y * NX;
            crc = crc32_update(crc, row, rowb);
            pwrite_all(fd, row, rowb, base + (off_t)y * (off_t)rowb, tmp);
        }
        h.crc[k] = crc;
    }
    h.hdr_crc = crc32_update(0, &h, offsetof(ckpt_header, hdr_crc));
    pwrite_all(fd, &h, sizeof h, 0, tmp);
    if (fsync(fd) != 0)
        die("fsync", tmp);
    if (close(fd) != 0)
        die("close", tmp);
    if (rename(tmp, final) != 0)
        die("rename", tmp);
}

/* Returns 0 and fills the model if the checkpoint is complete and all CRCs
 * match; -1 otherwise (missing, torn or corrupt). */
static int read_checkpoint(const char *path, model *m)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ckpt_header h;
    int ok = pread_all(fd, &h, sizeof h, 0) == 0 && h.magic == CKPT_MAGIC && h.nx == NX && h.ny == NY &&
             h.nfield == NFIELD && h.hdr_crc == crc32_update(0, &h, offsetof(ckpt_header, hdr_crc));
    const size_t rowb = sizeof(double) * NX;
    for (int k = 0; ok && k < NFIELD; k++) {
        uint32_t crc = 0;
        off_t base = (off_t)sizeof h + (off_t)k * NCELL * (off_t)sizeof(double);
        for (int y = 0; y < NY && ok; y++) {
            double *row = m->f[k] + (size_t)y * NX;
            if (pread_all(fd, row, rowb, base + (off_t)y * (off_t)rowb) != 0)
                ok = 0;
            else
                crc = crc32_update(crc, row, rowb);
        }
        if (ok && crc != h.crc[k])
            ok = 0;
    }
    if (close(fd) != 0)
        die("close", path);
    if (!ok)
        return -1;
    m->day = h.day;
    m->rng = h.rng;
    m->cum_trapped = h.cum_trapped;
    m->cum_emerged = h.cum_emerged;
    return 0;
}

/* Simulate a crash during the last checkpoint: truncate it in the middle of
 * the larva field. */
static void tear_checkpoint(int day)
{
    char path[4096], name[64];
    snprintf(name, sizeof name, "ckpt_day%03d.bin", day);
    mkpath(path, sizeof path, name);
    off_t cut = (off_t)sizeof(ckpt_header) + (off_t)NCELL * (off_t)sizeof(double) * 3 / 2;
    if (truncate(path, cut) != 0)
        die("truncate", path);
}

/* Probe checkpoints newest first; return the day restored, or -1. */
static int restore_latest(model *m, FILE *log)
{
    for (int day = NDAYS; day >= 0; day -= CKPT_EVERY) {
        char path[4096], name[64];
        struct stat st;
        snprintf(name, sizeof name, "ckpt_day%03d.bin", day);
        mkpath(path, sizeof path, name);
        if (stat(path, &st) != 0) {
            if (fprintf(log, "probe %s: missing\n", name) < 0)
                die("write", "restart.log");
            continue;
        }
        int r = read_checkpoint(path, m);
        if (fprintf(log, "probe %s: %lld bytes, %s\n", name, (long long)st.st_size, r == 0 ? "valid" : "INVALID") < 0)
            die("write", "restart.log");
        if (r == 0)
            return m->day;
    }
    return -1;
}

static uint32_t state_digest(const model *m)
{
    uint32_t c = 0;
    for (int k = 0; k < NFIELD; k++)
        c = crc32_update(c, m->f[k], sizeof(double) * NCELL);
    return c;
}

/* Final abundance maps as 32-bit float rasters plus an ASCII PGM of adult
 * density for quick viewing. */
static void write_maps(const model *m)
{
    char path[4096];
    mkpath(path, sizeof path, "final_stages.f32");
    FILE *f = fopen(path, "wb");
    if (!f)
        die("open", path);
    float *row = malloc(sizeof(float) * NX);
    if (!row)
        die("malloc", NULL);
    for (int k = 0; k < NFIELD; k++)
        for (int y = 0; y < NY; y++) {
            for (int x = 0; x < NX; x++)
                row[x] = (float)m->f[k][y * NX + x];
            if (fwrite(row, sizeof(float), NX, f) != NX)
                die("fwrite", path);
        }
    if (fclose(f) != 0)
        die("close", path);
    free(row);

    mkpath(path, sizeof path, "adult_density.pgm");
    f = fopen(path, "w");
    if (!f)
        die("open", path);
    double mx = 0.0;
    for (int i = 0; i < NCELL; i++)
        mx = fmax(mx, m->f[HOST][i] + m->f[GRAVID][i]);
    if (fprintf(f, "P2\n%d %d\n255\n", NX, NY) < 0)
        die("write", path);
    for (int y = 0; y < NY; y++) {
        for (int x = 0; x < NX; x++) {
            double v = (m->f[HOST][y * NX + x] + m->f[GRAVID][y * NX + x]) / (mx > 0 ? mx : 1.0);
            if (fprintf(f, "%d%c", (int)(255.0 * sqrt(v)), x == NX - 1 ? '\n' : ' ') < 0)
                die("write", path);
        }
    }
    if (fclose(f) != 0)
        die("close", path);
}

static void model_alloc(model *m)
{
    memset(m, 0, sizeof *m);
    for (int k = 0; k < NFIELD; k++) {
        m->f[k] = calloc(NCELL, sizeof(double));
        if (!m->f[k])
            die("calloc", NULL);
    }
    m->capacity = calloc(NCELL, sizeof(double));
    m->scratch = calloc(NCELL, sizeof(double));
    if (!m->capacity || !m->scratch)
        die("calloc", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    crc_init();

    model m;
    model_alloc(&m);
    m.rng = 0x5EEDA3DE5ull;
    init_habitat(&m);
    write_checkpoint(&m);

    char path[4096];
    mkpath(path, sizeof path, "trap_counts.csv");
    FILE *csv = fopen(path, "w");
    if (!csv)
        die("open", path);
    if (fprintf(csv, "day,trap,x,y,temp_c,count,available\n") < 0)
        die("write", path);
    while (m.day < NDAYS) {
        simulate_day(&m, csv);
        if (m.day % CKPT_EVERY == 0)
            write_checkpoint(&m);
    }
    if (fclose(csv) != 0)
        die("close", path);
    uint32_t ref_digest = state_digest(&m);
    double ref_trapped = m.cum_trapped;
    write_maps(&m);

    /* crash + restart */
    tear_checkpoint(NDAYS);
    model r;
    model_alloc(&r);
    memcpy(r.capacity, m.capacity, sizeof(double) * NCELL);
    memcpy(r.trap_cell, m.trap_cell, sizeof m.trap_cell);
    mkpath(path, sizeof path, "restart.log");
    FILE *log = fopen(path, "w");
    if (!log)
        die("open", path);
    int from = restore_latest(&r, log);
    if (from < 0) {
        fprintf(stderr, "no valid checkpoint found\n");
        return 1;
    }
    while (r.day < NDAYS)
        simulate_day(&r, NULL);
    uint32_t re_digest = state_digest(&r);
    if (fprintf(log, "restarted from day %d, reference digest %08x, restart digest %08x, trapped %.0f vs %.0f\n",
                from, ref_digest, re_digest, ref_trapped, r.cum_trapped) < 0)
        die("write", path);
    if (fclose(log) != 0)
        die("close", path);

    double adults = 0.0, larvae = 0.0;
    for (int i = 0; i < NCELL; i++) {
        adults += m.f[HOST][i] + m.f[GRAVID][i];
        larvae += m.f[LARVA][i];
    }
    printf("mosquito_stage_grid_ckpt: %d days on %dx%d cells, adults %.3e, larvae %.3e, trapped %.0f, emerged %.3e\n",
           NDAYS, NX, NY, adults, larvae, ref_trapped, m.cum_emerged);
    printf("restart from day %d: digest %08x vs %08x -> %s\n", from, re_digest, ref_digest,
           re_digest == ref_digest ? "identical" : "MISMATCH");
    model *all[2] = {&m, &r};
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < NFIELD; k++)
            free(all[i]->f[k]);
        free(all[i]->capacity);
        free(all[i]->scratch);
    }
    return re_digest == ref_digest ? 0 : 1;
}
