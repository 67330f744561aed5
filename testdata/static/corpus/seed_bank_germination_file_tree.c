/*
 * seed_bank_germination_file_tree.c
 *
 * Record keeping of a gene bank's seed vault, kept the old-fashioned way: one
 * directory per crop and accession, one small text file per germination test.
 *
 *   vault/<crop>/<accession>/passport.txt        collection data
 *   vault/<crop>/<accession>/lot_<n>/test_<yyyy>.txt  germination tests
 *   attic/<crop>_<accession>_lot_<n>/            superseded seed lots
 *
 * Ten years of monitoring are simulated.  Seed viability follows the
 * Ellis & Roberts viability equation for the vault's moisture and
 * temperature; every test sows 4 x 50 seeds and records the daily
 * germination counts.  Test files are written to a temporary name and
 * renamed into place.  When viability drops below the regeneration
 * standard, the lot directory is renamed into the attic and a fresh lot is
 * started.  An audit then walks the vault with opendir/readdir/stat, parses
 * every test file, refits the viability constants per crop and writes an
 * index and a report; finally superseded lots older than five years are
 * purged from the attic (unlink/rmdir).
 *
 * Usage: seed_bank_germination_file_tree OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCROP 12
#define NACC 120            /* accessions per crop */
#define NYEAR 10
#define YEAR0 2014
#define REPS 4
#define SEEDS 50
#define TEST_DAYS 14
#define REGEN_STANDARD 0.85
#define PATHMAX 512

static const char *crop_name[NCROP] = {"wheat", "barley", "rice", "maize", "sorghum", "lentil",
                                       "chickpea", "faba_bean", "pea", "onion", "lettuce", "sunflower"};
/* Ellis-Roberts species constants KE, CW, CH, CQ (Ellis & Roberts 1980 style) */
static const double crop_KE[NCROP] = {9.0, 9.98, 8.22, 8.5, 8.8, 8.6, 8.9, 8.2, 8.4, 6.9, 8.2, 7.3};
static const double crop_CW[NCROP] = {5.9, 5.9, 5.03, 5.3, 5.6, 5.4, 5.6, 5.0, 5.2, 3.9, 4.9, 4.2};

typedef struct {
    double Ki;        /* initial viability, probits */
    double moisture;  /* seed moisture content, % */
    double store_T;   /* -18 C base collection, +5 C active collection */
    int lot;
    int lot_start_year;
    int regenerations;
} accession_t;

typedef struct {
    long mkdirs, files, renames, unlinks, rmdirs, stats;
} fs_counters;

static const char *g_dir;
static fs_counters g_fs;
static uint64_t g_rng = 0x5EEDBA4Cull;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "seed_bank: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(2);
}

static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static void xmkdir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
    g_fs.mkdirs++;
}

/* Write a small file atomically: temp name, fsync-free write, rename. */
static void write_file_atomic(const char *path, const char *text, size_t len)
{
    char tmp[PATHMAX + 8];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("write", tmp);
        }
        off += (size_t)n;
    }
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, path) != 0) die("rename", tmp);
    g_fs.files++;
    g_fs.renames++;
}

static void create_vault_tree(accession_t acc[NCROP][NACC])
{
    char path[PATHMAX], text[512];
    snprintf(path, sizeof path, "%s/vault", g_dir);
    xmkdir(path);
    snprintf(path, sizeof path, "%s/attic", g_dir);
    xmkdir(path);
    for (int c = 0; c < NCROP; c++) {
        snprintf(path, sizeof path, "%s/vault/%s", g_dir, crop_name[c]);
        xmkdir(path);
        for (int a = 0; a < NACC; a++) {
            accession_t *q = &acc[c][a];
            q->Ki = 1.6 + 1.4 * urand();
            if (a % 3 == 0) { /* active collection: cool room, seeds less dry */
                q->store_T = 5.0;
                q->moisture = 8.5 + 2.5 * urand();
            } else {
                q->store_T = -18.0;
                q->moisture = 5.0 + 2.5 * urand();
            }
            q->lot = 1;
            q->lot_start_year = YEAR0;
            q->regenerations = 0;
            snprintf(path, sizeof path, "%s/vault/%s/ACC%05d", g_dir, crop_name[c], c * 1000 + a);
            xmkdir(path);
            int len = snprintf(text, sizeof text,
                               "accession: ACC%05d\ncrop: %s\ncountry: %s\nlatitude: %.4f\nlongitude: %.4f\n"
                               "elevation_m: %d\nbiological_status: %s\ncollected: %d\nstore: %s\n",
                               c * 1000 + a, crop_name[c], (const char *[]){"ETH", "SYR", "IND", "MEX", "PER", "TUR"}[a % 6],
                               -30 + 70 * urand(), -100 + 200 * urand(), (int)(3000 * urand()),
                               urand() < 0.6 ? "landrace" : "wild relative", 1970 + (int)(40 * urand()),
                               q->store_T > 0 ? "active +5C" : "base -18C");
            char fpath[PATHMAX + 16];
            snprintf(fpath, sizeof fpath, "%s/passport.txt", path);
            write_file_atomic(fpath, text, (size_t)len);
            snprintf(path, sizeof path, "%s/vault/%s/ACC%05d/lot_1", g_dir, crop_name[c], c * 1000 + a);
            xmkdir(path);
        }
    }
}

/* Ellis-Roberts: v = Ki - p / sigma, log10 sigma = KE - CW log10 m - CH T - CQ T^2 */
static double viability_probit(int c, const accession_t *q, double years)
{
    const double T = q->store_T, CH = 0.0329, CQ = 0.000478;
    double log_sigma = crop_KE[c] - crop_CW[c] * log10(q->moisture) - CH * T - CQ * T * T;
    double sigma_days = pow(10.0, log_sigma);
    return q->Ki - years * 365.0 / sigma_days;
}

static double probit_to_p(double v)
{
    return 0.5 * erfc(-v / sqrt(2.0));
}

/* Sow 4 x 50 seeds, record daily cumulative germination; write the test file. */
static double run_germination_test(int c, int a, accession_t *q, int year)
{
    double p = probit_to_p(viability_probit(c, q, year - q->lot_start_year + 0.5));
    int daily[REPS][TEST_DAYS];
    int total = 0, abnormal = 0;
    memset(daily, 0, sizeof daily);
    for (int r = 0; r < REPS; r++)
        for (int s = 0; s < SEEDS; s++) {
            if (urand() >= p) continue;
            if (urand() < 0.03) {
                abnormal++;
                continue;
            }
            /* log-normal germination time, slower for weaker lots */
            double t = exp(1.3 + 0.35 * (urand() + urand() + urand() - 1.5) + 0.8 * (1 - p));
            int d = (int)t;
            if (d < TEST_DAYS) {
                daily[r][d]++;
                total++;
            }
        }
    char text[1024];
    int len = snprintf(text, sizeof text, "accession: ACC%05d\nlot: %d\nyear: %d\nprotocol: ISTA %s 20C\nreplicates: %d x %d\n",
                       c * 1000 + a, q->lot, year, c < 5 ? "BP" : "TP", REPS, SEEDS);
    for (int r = 0; r < REPS; r++) {
        len += snprintf(text + len, sizeof text - (size_t)len, "rep%d:", r + 1);
        int cum = 0;
        for (int d = 0; d < TEST_DAYS; d++) {
            cum += daily[r][d];
            len += snprintf(text + len, sizeof text - (size_t)len, " %d", cum);
        }
        len += snprintf(text + len, sizeof text - (size_t)len, "\n");
    }
    len += snprintf(text + len, sizeof text - (size_t)len, "normal: %d\nabnormal: %d\n", total, abnormal);
    char path[PATHMAX];
    snprintf(path, sizeof path, "%s/vault/%s/ACC%05d/lot_%d/test_%d.txt", g_dir, crop_name[c], c * 1000 + a, q->lot, year);
    write_file_atomic(path, text, (size_t)len);
    return (double)total / (REPS * SEEDS);
}

/* Move the exhausted lot to the attic and start a fresh one. */
static void regenerate_lot(int c, int a, accession_t *q, int year)
{
    char from[PATHMAX], to[PATHMAX];
    snprintf(from, sizeof from, "%s/vault/%s/ACC%05d/lot_%d", g_dir, crop_name[c], c * 1000 + a, q->lot);
    snprintf(to, sizeof to, "%s/attic/%s_ACC%05d_lot_%d_%d", g_dir, crop_name[c], c * 1000 + a, q->lot, year);
    if (rename(from, to) != 0) die("rename", from);
    g_fs.renames++;
    q->lot++;
    q->lot_start_year = year + 1;
    q->Ki = 1.8 + 1.2 * urand();
    q->regenerations++;
    snprintf(from, sizeof from, "%s/vault/%s/ACC%05d/lot_%d", g_dir, crop_name[c], c * 1000 + a, q->lot);
    xmkdir(from);
}

typedef struct {
    int crop;
    int active;    /* active (+5 C) collection */
    int years;     /* storage years at test */
    double germ;   /* observed fraction */
} obs_t;

/* Parse one test file (small stdio read). Returns -1 if malformed. */
static int parse_test_file(const char *path, int *year, int *lot, int *normal)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[256];
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "year: %d", year) == 1) got |= 1;
        else if (sscanf(line, "lot: %d", lot) == 1) got |= 2;
        else if (sscanf(line, "normal: %d", normal) == 1) got |= 4;
    }
    if (ferror(f)) die("read", path);
    fclose(f);
    return got == 7 ? 0 : -1;
}

/* Walk vault/<crop>/<acc>/lot_*: stat everything, parse the tests. */
static long walk_and_parse(obs_t *obs, long cap, FILE *index)
{
    char p1[PATHMAX], p2[PATHMAX + 40], p3[PATHMAX + 80], p4[PATHMAX + 128];
    long n = 0;
    for (int c = 0; c < NCROP; c++) {
        snprintf(p1, sizeof p1, "%s/vault/%s", g_dir, crop_name[c]);
        DIR *d1 = opendir(p1);
        if (!d1) die("opendir", p1);
        struct dirent *e1;
        while ((e1 = readdir(d1))) {
            if (e1->d_name[0] == '.') continue;
            snprintf(p2, sizeof p2, "%s/%.32s", p1, e1->d_name);
            struct stat st;
            if (stat(p2, &st) != 0) die("stat", p2);
            g_fs.stats++;
            if (!S_ISDIR(st.st_mode)) continue;
            DIR *d2 = opendir(p2);
            if (!d2) die("opendir", p2);
            struct dirent *e2;
            while ((e2 = readdir(d2))) {
                if (strncmp(e2->d_name, "lot_", 4) != 0) continue;
                snprintf(p3, sizeof p3, "%s/%.32s", p2, e2->d_name);
                if (stat(p3, &st) != 0) die("stat", p3);
                g_fs.stats++;
                DIR *d3 = opendir(p3);
                if (!d3) die("opendir", p3);
                struct dirent *e3;
                int first_year = 9999;
                while ((e3 = readdir(d3))) {
                    if (strncmp(e3->d_name, "test_", 5) != 0) continue;
                    int y = atoi(e3->d_name + 5);
                    if (y < first_year) first_year = y;
                }
                rewinddir(d3);
                while ((e3 = readdir(d3))) {
                    if (strncmp(e3->d_name, "test_", 5) != 0) continue;
                    snprintf(p4, sizeof p4, "%s/%.32s", p3, e3->d_name);
                    if (stat(p4, &st) != 0) die("stat", p4);
                    g_fs.stats++;
                    int year, lot, normal;
                    if (parse_test_file(p4, &year, &lot, &normal) != 0) continue;
                    if (n < cap) {
                        obs[n].crop = c;
                        obs[n].active = atoi(e1->d_name + 3) % 1000 % 3 == 0;
                        obs[n].years = year - first_year;
                        obs[n].germ = normal / (double)(REPS * SEEDS);
                        n++;
                    }
                    fprintf(index, "%s/%s/%s %d %lld\n", e1->d_name, e2->d_name, e3->d_name, normal, (long long)st.st_size);
                }
                closedir(d3);
            }
            closedir(d2);
        }
        closedir(d1);
    }
    if (ferror(index)) die("write index", NULL);
    return n;
}

/* Least-squares fit of germination = Phi(K - years * loss) over a coarse grid, then a fine grid. */
static double fit_group(const obs_t *o, long m, double *K, double *loss)
{
    double best = 1e300, k0 = 0.0, l0 = 0.0;
    double kstep = 0.15, lstep = 0.02;
    for (int pass = 0; pass < 2; pass++) {
        double kc = k0, lc = l0;
        for (int ik = 0; ik < 24; ik++) {
            double Kt = pass ? kc + kstep * (ik - 12) / 12.0 : 0.2 + kstep * ik;
            for (int il = 0; il < 24; il++) {
                double lt = pass ? lc + lstep * (il - 12) / 12.0 : lstep * il;
                if (lt < 0) continue;
                double sse = 0;
                for (long i = 0; i < m; i++) {
                    double r = probit_to_p(Kt - lt * o[i].years) - o[i].germ;
                    sse += r * r;
                }
                if (sse < best) {
                    best = sse;
                    k0 = Kt;
                    l0 = lt;
                }
            }
        }
    }
    *K = k0;
    *loss = l0;
    return m ? sqrt(best / m) : 0.0;
}

/* Per crop and store: group the observations and fit the viability curve. */
static void fit_viability(const obs_t *obs, long n, double fitK[NCROP][2], double fitS[NCROP][2], double rmse[NCROP][2])
{
    obs_t *grp = malloc(sizeof(obs_t) * (size_t)(n + 1));
    if (!grp) die("malloc", NULL);
    for (int c = 0; c < NCROP; c++)
        for (int act = 0; act < 2; act++) {
            long m = 0;
            for (long i = 0; i < n; i++)
                if (obs[i].crop == c && obs[i].active == act) grp[m++] = obs[i];
            rmse[c][act] = fit_group(grp, m, &fitK[c][act], &fitS[c][act]);
        }
    free(grp);
}

static long remove_tree(const char *path)
{
    long n = 0;
    DIR *d = opendir(path);
    if (!d) die("opendir", path);
    struct dirent *e;
    char p[PATHMAX + 64];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%.60s", path, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0) die("lstat", p);
        g_fs.stats++;
        if (S_ISDIR(st.st_mode)) {
            n += remove_tree(p);
        } else {
            if (unlink(p) != 0) die("unlink", p);
            g_fs.unlinks++;
            n++;
        }
    }
    closedir(d);
    if (rmdir(path) != 0) die("rmdir", path);
    g_fs.rmdirs++;
    return n;
}

/* Purge superseded lots retired more than five years before the end. */
static long purge_attic(int last_year)
{
    char path[PATHMAX];
    snprintf(path, sizeof path, "%s/attic", g_dir);
    DIR *d = opendir(path);
    if (!d) die("opendir", path);
    char names[4096][64];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 4096) {
        if (e->d_name[0] == '.') continue;
        const char *us = strrchr(e->d_name, '_');
        if (us && atoi(us + 1) <= last_year - 5) snprintf(names[nn++], 64, "%.63s", e->d_name);
    }
    closedir(d);
    long removed = 0;
    for (int i = 0; i < nn; i++) {
        char p[PATHMAX + 72];
        snprintf(p, sizeof p, "%s/%.63s", path, names[i]);
        removed += remove_tree(p);
    }
    return removed;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    g_dir = argv[1];
    static accession_t acc[NCROP][NACC];
    create_vault_tree(acc);

    long ntests = 0, nregen = 0;
    for (int y = YEAR0; y < YEAR0 + NYEAR; y++)
        for (int c = 0; c < NCROP; c++)
            for (int a = 0; a < NACC; a++) {
                /* annual test for weak lots, otherwise every second year */
                accession_t *q = &acc[c][a];
                if ((y - q->lot_start_year) % 2 != 0 && q->Ki > 2.0) continue;
                double g = run_germination_test(c, a, q, y);
                ntests++;
                if (g < REGEN_STANDARD) {
                    regenerate_lot(c, a, q, y);
                    nregen++;
                }
            }

    char path[PATHMAX];
    snprintf(path, sizeof path, "%s/test_index.txt", g_dir);
    FILE *index = fopen(path, "w");
    if (!index) die("fopen", path);
    long cap = ntests + 16;
    obs_t *obs = malloc(sizeof(obs_t) * (size_t)cap);
    if (!obs) die("malloc", NULL);
    long nobs = walk_and_parse(obs, cap, index);
    if (fclose(index) != 0) die("close", path);

    double fitK[NCROP][2], fitS[NCROP][2], rmse[NCROP][2];
    fit_viability(obs, nobs, fitK, fitS, rmse);
    long purged = purge_attic(YEAR0 + NYEAR - 1);

    snprintf(path, sizeof path, "%s/vault_report.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "tests %ld  regenerations %ld  parsed %ld  purged files %ld\n", ntests, nregen, nobs, purged);
    fprintf(f, "filesystem ops: mkdir %ld files %ld rename %ld unlink %ld rmdir %ld stat %ld\n\n", g_fs.mkdirs, g_fs.files,
            g_fs.renames, g_fs.unlinks, g_fs.rmdirs, g_fs.stats);
    fprintf(f, "crop        base: Ki  loss/yr   rmse   active: Ki  loss/yr   rmse   regenerated\n");
    for (int c = 0; c < NCROP; c++) {
        int rg = 0;
        for (int a = 0; a < NACC; a++) rg += acc[c][a].regenerations;
        fprintf(f, "%-10s %9.2f %8.4f %7.4f %11.2f %8.4f %7.4f %6d\n", crop_name[c], fitK[c][0], fitS[c][0], rmse[c][0],
                fitK[c][1], fitS[c][1], rmse[c][1], rg);
    }
    if (ferror(f) || fclose(f) != 0) die("write report", path);
    printf("accessions %d  tests %ld  regenerations %ld  files parsed %ld  purged %ld\n", NCROP * NACC, ntests, nregen,
           nobs, purged);
    free(obs);
    return 0;
}
