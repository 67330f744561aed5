/*
 * fatigue_crack_growth_ckpt.c
 *
 * Fleet-level fatigue crack growth for a population of aluminium wing-skin
 * panels with through-cracks at fastener holes.  Every "block" is one
 * thousand-flight load sequence generated from a Markov turning-point model,
 * reduced by four-point rainflow counting to a (range, R-ratio) histogram,
 * then integrated per panel with a Walker-corrected Paris law, finite-width
 * correction and Wheeler overload retardation.
 *
 * State is checkpointed every CKPT_EVERY blocks in a binary file written
 * with pwrite (header + CRC-32 protected payload), fsynced and renamed into
 * place.  The run is deliberately "crashed" part-way through writing one
 * checkpoint; the restart phase scans for the newest checkpoint whose CRC
 * verifies, reads it back with pread, and completes the campaign.
 *
 * Usage: fatigue_crack_growth_ckpt OUTDIR
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

#define NPANEL      30000
#define NBLOCK      32
#define CKPT_EVERY  4
#define CRASH_BLOCK 22        /* crash while writing the checkpoint after this block */
#define NREV        120000    /* turning points per block */
#define NRANGE      16
#define NRBIN       2
#define CHUNK       (256 * 1024)
#define PI          3.14159265358979323846

static const char MAGIC[8] = {'F', 'C', 'G', 'C', 'K', 'P', 'T', '1'};

typedef struct {
    char     magic[8];
    uint32_t version;
    uint32_t npanel;
    uint32_t block;          /* number of completed blocks */
    uint32_t nfailed;
    uint64_t payload_bytes;
    uint32_t payload_crc;
    uint32_t header_crc;     /* CRC of the preceding fields */
    uint8_t  pad[24];
} ckpt_header;

typedef struct {
    double  *a;       /* half crack length, m */
    double  *aol;     /* crack length at last overload, m */
    double  *rpol;    /* overload plastic zone size, m */
    double  *C;       /* Paris coefficient */
    double  *m;       /* Paris exponent */
    double  *sfac;    /* local stress per unit spectrum stress, MPa */
    double  *W;       /* panel half width, m */
    int32_t *fail;    /* block of failure, -1 if intact */
} fleet;

typedef struct {
    double count[NRBIN][NRANGE];
    double smax_over;    /* largest peak in block, spectrum units */
} cycle_hist;

static const char *g_dir;

static void die(const char *what, const char *name)
{
    fprintf(stderr, "fatigue_crack_growth_ckpt: %s %s: %s\n", what, name ? name : "",
            strerror(errno));
    exit(1);
}

/* --------------------------------------------------------------------- */
static uint32_t crc_table[256];

static void crc32_init(void)
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
    const uint8_t *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

/* splitmix64 generator seeded per block so restarts replay; numbers are
 * drawn in batches */
static void rng_fill_uniform(uint64_t *s, double *u, size_t n)
{
    uint64_t x = *s;
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        u[i] = ((double)(z >> 11) + 0.5) * 0x1.0p-53;
    }
    *s = x;
}

/* standard normals by Box-Muller from a batch of uniforms (n even) */
static void rng_fill_normal(uint64_t *s, double *g, size_t n)
{
    rng_fill_uniform(s, g, n);
    for (size_t i = 0; i + 1 < n; i += 2) {
        double r = sqrt(-2.0 * log(g[i])), th = 6.283185307179586 * g[i + 1];
        g[i] = r * cos(th);
        g[i + 1] = r * sin(th);
    }
}

/* --------------------------------------------------------------------- */
static void fleet_alloc(fleet *f)
{
    f->a = malloc(NPANEL * sizeof(double));
    f->aol = malloc(NPANEL * sizeof(double));
    f->rpol = malloc(NPANEL * sizeof(double));
    f->C = malloc(NPANEL * sizeof(double));
    f->m = malloc(NPANEL * sizeof(double));
    f->sfac = malloc(NPANEL * sizeof(double));
    f->W = malloc(NPANEL * sizeof(double));
    f->fail = malloc(NPANEL * sizeof(int32_t));
    if (!f->a || !f->aol || !f->rpol || !f->C || !f->m || !f->sfac || !f->W || !f->fail) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static void fleet_free(fleet *f)
{
    free(f->a); free(f->aol); free(f->rpol); free(f->C);
    free(f->m); free(f->sfac); free(f->W); free(f->fail);
    memset(f, 0, sizeof *f);
}

/* initial flaw sizes, material scatter, stress concentration per location */
static void init_fleet(fleet *f)
{
    uint64_t s = 0xA11C0FFEEull;
    double *g = malloc(sizeof(double) * 4 * NPANEL);
    double *u = malloc(sizeof(double) * NPANEL);
    if (!g || !u) { fprintf(stderr, "out of memory\n"); exit(1); }
    rng_fill_normal(&s, g, 4 * NPANEL);
    rng_fill_uniform(&s, u, NPANEL);
    for (int i = 0; i < NPANEL; i++) {
        f->a[i] = 0.00127 * exp(0.35 * g[4 * i]);             /* ~1.27 mm rogue flaw */
        f->aol[i] = f->a[i];
        f->rpol[i] = 0.0;
        f->C[i] = 1.1e-11 * exp(0.25 * g[4 * i + 1]);         /* m/cycle, MPa sqrt(m) */
        f->m[i] = 3.2 + 0.08 * g[4 * i + 2];
        f->sfac[i] = 95.0 * (1.0 + 0.12 * g[4 * i + 3]);      /* MPa at unit load */
        f->W[i] = 0.08 + 0.04 * u[i];
        f->fail[i] = -1;
    }
    free(g);
    free(u);
}

/* Markov turning-point sequence: a thousand flights with ground-air-ground
 * cycles, gust clusters and occasional manoeuvre overloads.  Random
 * numbers come from per-block batches so that a restart replays exactly. */
static void generate_load_block(int block, double *rev, int nrev, double *uni, double *nor)
{
    uint64_t s = 0x5EEDull * 1315423911ull + (uint64_t)block * 2654435761ull;
    rng_fill_uniform(&s, uni, (size_t)nrev);
    rng_fill_normal(&s, nor, (size_t)nrev + 2);
    size_t ku = 0, kn = 0;
    double level = 0.0;
    int i = 0;
    while (i < nrev) {
        /* ground */
        rev[i++] = -0.2 + 0.02 * nor[kn++];
        if (i >= nrev) break;
        int ngust = 60 + (int)(uni[ku++] * 80);
        double mean = 1.0 + 0.05 * nor[kn++];
        for (int g = 0; g < ngust && i + 1 < nrev; g++) {
            double amp = 0.12 * fabs(nor[kn++]);
            if (uni[ku++] < 0.002) amp = 0.9 + 0.3 * uni[ku++];   /* manoeuvre */
            level = mean + amp;
            rev[i++] = level;
            rev[i++] = mean - 0.8 * amp;
        }
    }
}

/* four-point rainflow algorithm on a turning-point sequence; cycles are
 * binned by range and by stress ratio R = min/max */
static void rainflow_count(const double *rev, int nrev, cycle_hist *h)
{
    double *stack = malloc((size_t)nrev * sizeof(double));
    if (!stack) { fprintf(stderr, "out of memory\n"); exit(1); }
    int sp = 0;
    const double rmax = 2.4;
    memset(h, 0, sizeof *h);
    h->smax_over = -1e30;

    for (int i = 0; i < nrev; i++) {
        double x = rev[i];
        if (x > h->smax_over) h->smax_over = x;
        /* keep only true reversals */
        if (sp >= 2 && ((stack[sp - 1] - stack[sp - 2]) * (x - stack[sp - 1]) >= 0.0)) {
            stack[sp - 1] = x;
        } else {
            stack[sp++] = x;
        }
        while (sp >= 4) {
            double s1 = stack[sp - 4], s2 = stack[sp - 3], s3 = stack[sp - 2], s4 = stack[sp - 1];
            double r_in = fabs(s3 - s2);
            if (r_in <= fabs(s2 - s1) && r_in <= fabs(s4 - s3)) {
                double hi = s2 > s3 ? s2 : s3, lo = s2 > s3 ? s3 : s2;
                int rb = (int)(r_in / rmax * NRANGE);
                if (rb >= NRANGE) rb = NRANGE - 1;
                int qb = (hi > 0.0 && lo / hi > 0.3) ? 1 : 0;
                h->count[qb][rb] += 1.0;
                stack[sp - 3] = s4;
                sp -= 2;
            } else {
                break;
            }
        }
    }
    /* residue counted as half cycles */
    for (int k = 0; k + 1 < sp; k++) {
        double r = fabs(stack[k + 1] - stack[k]);
        int rb = (int)(r / rmax * NRANGE);
        if (rb >= NRANGE) rb = NRANGE - 1;
        h->count[0][rb] += 0.5;
    }
    free(stack);
}

/* integrate crack growth of every panel over one block histogram */
static int grow_cracks(fleet *f, const cycle_hist *h, int block)
{
    const double KIC = 33.0;        /* MPa sqrt(m) */
    const double sy = 350.0;        /* yield, MPa */
    const double gamma_w = 0.6;     /* Walker exponent */
    const double wheeler = 1.6;
    const double rmax = 2.4;
    int newly = 0;
    double walker_f[NRBIN];
    for (int q = 0; q < NRBIN; q++) walker_f[q] = pow(1.0 - (q ? 0.5 : 0.1), gamma_w - 1.0);

    for (int i = 0; i < NPANEL; i++) {
        if (f->fail[i] >= 0) continue;
        double a = f->a[i];
        /* finite-width (Feddersen) correction, frozen over one block */
        double beta = sqrt(1.0 / cos(PI * fmin(a, 0.99 * f->W[i]) / (2.0 * f->W[i])));
        for (int q = 0; q < NRBIN; q++) {
            double R = q ? 0.5 : 0.1;
            double walker = walker_f[q];
            for (int r = 0; r < NRANGE; r++) {
                double n = h->count[q][r];
                if (n <= 0.0) continue;
                double ds = f->sfac[i] * (r + 0.5) * rmax / NRANGE;
                double dk = beta * ds * sqrt(PI * a) * walker;
                /* Wheeler retardation inside the overload zone */
                double phi = 1.0;
                double rp = (dk / (1.0 - R)) * (dk / (1.0 - R)) / (2.0 * PI * sy * sy);
                if (a + rp < f->aol[i] + f->rpol[i]) {
                    phi = pow(rp / (f->aol[i] + f->rpol[i] - a), wheeler);
                }
                a += phi * f->C[i] * pow(dk, f->m[i]) * n;
            }
        }
        /* overload of this block sets a new plastic zone */
        double kmax = sqrt(1.0 / cos(PI * fmin(a, 0.99 * f->W[i]) / (2.0 * f->W[i]))) *
                      f->sfac[i] * h->smax_over * sqrt(PI * a);
        double rpo = kmax * kmax / (2.0 * PI * sy * sy);
        if (a + rpo > f->aol[i] + f->rpol[i]) {
            f->aol[i] = a;
            f->rpol[i] = rpo;
        }
        f->a[i] = a;
        if (kmax >= KIC || a >= 0.9 * f->W[i]) {
            f->fail[i] = block;
            newly++;
        }
    }
    return newly;
}

/* --------------------------------------------------------------------- */
static void pwrite_all(int fd, const void *buf, size_t n, off_t off, const char *name)
{
    const char *p = buf;
    while (n > 0) {
        size_t want = n > CHUNK ? CHUNK : n;
        ssize_t w = pwrite(fd, p, want, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite", name);
        }
        p += w; n -= (size_t)w; off += w;
    }
}

static int pread_all(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        size_t want = n > CHUNK ? CHUNK : n;
        ssize_t r = pread(fd, p, want, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) return -1;     /* short file */
        p += r; n -= (size_t)r; off += r;
    }
    return 0;
}

static size_t payload_size(void)
{
    return (size_t)NPANEL * (7 * sizeof(double) + sizeof(int32_t));
}

/* Write checkpoint <dir>/ckpt_NNNN.bin via a temporary name + fsync +
 * rename.  If torn != 0 the write stops half way (simulated crash) and the
 * temporary file is left behind under the final name without fsync. */
static void write_checkpoint(const fleet *f, int block, int nfailed, int torn)
{
    char tmp[1024], fin[1024];
    snprintf(tmp, sizeof tmp, "%s/ckpt_%04d.tmp", g_dir, block);
    snprintf(fin, sizeof fin, "%s/ckpt_%04d.bin", g_dir, block);

    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);

    const void *arrays[8] = {f->a, f->aol, f->rpol, f->C, f->m, f->sfac, f->W, f->fail};
    const size_t sizes[8] = {8, 8, 8, 8, 8, 8, 8, 4};
    off_t off = sizeof(ckpt_header);
    uint32_t crc = 0;
    int narr = torn ? 4 : 8;
    for (int k = 0; k < narr; k++) {
        size_t n = sizes[k] * NPANEL;
        crc = crc32_update(crc, arrays[k], n);
        pwrite_all(fd, arrays[k], n, off, tmp);
        off += (off_t)n;
    }
    if (torn) {
        /* the "real" CRC would cover all arrays; pretend header was written
         * first with the CRC of the full payload */
        for (int k = narr; k < 8; k++) crc = crc32_update(crc, arrays[k], sizes[k] * NPANEL);
    }

    ckpt_header hd;
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, MAGIC, 8);
    hd.version = 1;
    hd.npanel = NPANEL;
    hd.block = (uint32_t)block;
    hd.nfailed = (uint32_t)nfailed;
    hd.payload_bytes = payload_size();
    hd.payload_crc = crc;
    hd.header_crc = crc32_update(0, &hd, offsetof(ckpt_header, header_crc));
    pwrite_all(fd, &hd, sizeof hd, 0, tmp);

    if (!torn) {
        if (fsync(fd) != 0) die("fsync", tmp);
    }
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, fin) != 0) die("rename", tmp);
}

/* Validate and load one checkpoint; returns completed block count or -1 */
static int read_checkpoint(const char *name, fleet *f, int *nfailed)
{
    int fd = open(name, O_RDONLY);
    if (fd < 0) return -1;
    ckpt_header hd;
    int ok = -1;
    if (pread_all(fd, &hd, sizeof hd, 0) != 0) goto out;
    if (memcmp(hd.magic, MAGIC, 8) != 0 || hd.version != 1 || hd.npanel != NPANEL) goto out;
    if (hd.header_crc != crc32_update(0, &hd, offsetof(ckpt_header, header_crc))) goto out;
    if (hd.payload_bytes != payload_size()) goto out;

    void *arrays[8] = {f->a, f->aol, f->rpol, f->C, f->m, f->sfac, f->W, f->fail};
    const size_t sizes[8] = {8, 8, 8, 8, 8, 8, 8, 4};
    off_t off = sizeof(ckpt_header);
    uint32_t crc = 0;
    for (int k = 0; k < 8; k++) {
        size_t n = sizes[k] * NPANEL;
        if (pread_all(fd, arrays[k], n, off) != 0) goto out;
        crc = crc32_update(crc, arrays[k], n);
        off += (off_t)n;
    }
    if (crc != hd.payload_crc) goto out;
    *nfailed = (int)hd.nfailed;
    ok = (int)hd.block;
out:
    if (close(fd) != 0) die("close", name);
    return ok;
}

/* probe checkpoints newest first and return the first one that verifies */
static int find_latest_checkpoint(fleet *f, int *nfailed, FILE *log)
{
    char name[1024];
    for (int b = NBLOCK; b >= 0; b--) {
        snprintf(name, sizeof name, "%s/ckpt_%04d.bin", g_dir, b);
        struct stat st;
        if (stat(name, &st) != 0) continue;
        int got = read_checkpoint(name, f, nfailed);
        if (fprintf(log, "restart probe ckpt_%04d.bin size=%lld -> %s\n", b, (long long)st.st_size,
                    got >= 0 ? "valid" : "CORRUPT") < 0)
            die("write", "campaign.log");
        if (got >= 0) return got;
    }
    return -1;
}

/* run blocks [first, last) */
static int run_blocks(fleet *f, int first, int last, int nfailed, FILE *log, int crash_at)
{
    double *rev = malloc(NREV * sizeof(double));
    double *uni = malloc(NREV * sizeof(double));
    double *nor = malloc((NREV + 2) * sizeof(double));
    if (!rev || !uni || !nor) { fprintf(stderr, "out of memory\n"); exit(1); }
    cycle_hist h;
    for (int b = first; b < last; b++) {
        generate_load_block(b, rev, NREV, uni, nor);
        rainflow_count(rev, NREV, &h);
        int newly = grow_cracks(f, &h, b);
        nfailed += newly;
        double ncyc = 0.0;
        for (int q = 0; q < NRBIN; q++)
            for (int r = 0; r < NRANGE; r++) ncyc += h.count[q][r];
        if (fprintf(log, "block %3d cycles %9.1f overload %.3f new_failures %5d total %6d\n",
                    b, ncyc, h.smax_over, newly, nfailed) < 0 || fflush(log) != 0)
            die("write", "campaign.log");
        int done = b + 1;
        if (done % CKPT_EVERY == 0) {
            int torn = (crash_at >= 0 && done > crash_at);
            write_checkpoint(f, done, nfailed, torn);
            if (torn) {
                free(rev); free(uni); free(nor);
                return -done;   /* crash */
            }
        }
    }
    free(rev); free(uni); free(nor);
    return nfailed;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* per-panel inspection file and a Weibull fit of failure blocks */
static void write_inspection_report(const fleet *f, int nfailed)
{
    char name[1024];
    snprintf(name, sizeof name, "%s/inspection.csv", g_dir);
    FILE *fp = fopen(name, "w");
    if (!fp) die("fopen", name);
    if (fprintf(fp, "panel,a_mm,W_mm,C,m,sfac_MPa,fail_block\n") < 0) die("write", name);
    int *fb = malloc(NPANEL * sizeof(int));
    if (!fb) { fprintf(stderr, "out of memory\n"); exit(1); }
    int nf = 0;
    for (int i = 0; i < NPANEL; i++) {
        if (fprintf(fp, "%d,%.5f,%.2f,%.4e,%.4f,%.3f,%d\n", i, f->a[i] * 1e3, f->W[i] * 1e3,
                    f->C[i], f->m[i], f->sfac[i], f->fail[i]) < 0)
            die("write", name);
        if (f->fail[i] >= 0) fb[nf++] = f->fail[i] + 1;
    }
    if (fclose(fp) != 0) die("fclose", name);

    qsort(fb, (size_t)nf, sizeof(int), cmp_int);
    /* median-rank regression for Weibull shape/scale on failed panels */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < nf; k++) {
        double F = (k + 1 - 0.3) / (NPANEL + 0.4);
        double x = log((double)fb[k]);
        double y = log(-log(1.0 - F));
        sx += x; sy += y; sxx += x * x; sxy += x * y;
    }
    double beta = 0, eta = 0;
    if (nf > 2) {
        beta = (nf * sxy - sx * sy) / (nf * sxx - sx * sx);
        eta = exp(-(sy - beta * sx) / nf / beta);
    }
    snprintf(name, sizeof name, "%s/fleet_summary.txt", g_dir);
    fp = fopen(name, "w");
    if (!fp) die("fopen", name);
    double amax = 0, amean = 0;
    for (int i = 0; i < NPANEL; i++) {
        amean += f->a[i];
        if (f->a[i] > amax && f->fail[i] < 0) amax = f->a[i];
    }
    amean /= NPANEL;
    if (fprintf(fp, "panels %d failed %d (counted %d)\n", NPANEL, nf, nfailed) < 0 ||
        fprintf(fp, "weibull beta %.4f eta_blocks %.3f\n", beta, eta) < 0 ||
        fprintf(fp, "mean crack %.4f mm, largest surviving %.4f mm\n", amean * 1e3, amax * 1e3) < 0)
        die("write", name);
    if (fclose(fp) != 0) die("fclose", name);
    printf("  failed panels %d/%d, Weibull beta %.3f eta %.2f blocks\n", nf, NPANEL, beta, eta);
    free(fb);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    crc32_init();

    char logname[1024];
    snprintf(logname, sizeof logname, "%s/campaign.log", g_dir);
    FILE *log = fopen(logname, "w");
    if (!log) die("fopen", logname);

    fleet f;
    fleet_alloc(&f);
    init_fleet(&f);

    /* phase 1: run until the simulated crash */
    int r = run_blocks(&f, 0, NBLOCK, 0, log, CRASH_BLOCK);
    if (r >= 0) {
        fprintf(stderr, "expected a simulated crash\n");
        return 1;
    }
    if (fprintf(log, "CRASH while writing checkpoint after block %d\n", -r) < 0)
        die("write", logname);
    fleet_free(&f);

    /* phase 2: restart from the newest valid checkpoint */
    fleet_alloc(&f);
    int nfailed = 0;
    int start = find_latest_checkpoint(&f, &nfailed, log);
    if (start < 0) {
        fprintf(stderr, "no valid checkpoint found\n");
        return 1;
    }
    if (fprintf(log, "restarting at block %d with %d failures\n", start, nfailed) < 0)
        die("write", logname);
    nfailed = run_blocks(&f, start, NBLOCK, nfailed, log, -1);

    write_inspection_report(&f, nfailed);
    if (fclose(log) != 0) die("fclose", logname);
    printf("fatigue_crack_growth_ckpt: %d panels, %d blocks, crash at %d, restarted from %d\n",
           NPANEL, NBLOCK, -r, start);
    fleet_free(&f);
    return 0;
}
