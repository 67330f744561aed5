/*
 * vaccine_cold_chain_logger_spool.c
 *
 * Ingest pipeline for vaccine cold-chain temperature loggers in a district
 * immunisation programme.  Each health-facility refrigerator and cold box
 * carries a 30-day electronic logger that uploads one small CSV readout per
 * day (10-minute readings).  The program:
 *   1. writes the logger registry, creates a spool tree (inbox/<region>/), simulates each logger's
 *      temperature trace (compressor cycling, door openings, power cuts,
 *      freezing risk in cold boxes) and "uploads" every daily readout with
 *      the write-to-.tmp-then-rename pattern;
 *   2. scans the inbox with opendir/readdir, stats every file, parses it,
 *      computes alarm excursions (WHO PQS: >8 C for 10 h, <-0.5 C for 1 h),
 *      mean kinetic temperature and cumulative heat exposure;
 *   3. files each readout into archive/<region>/<logger>/ (mkdir + rename),
 *      hard-links alarm readouts into alerts/, and writes a small status
 *      file per logger;
 *   4. applies a retention policy (unlink readouts older than 12 days, then
 *      rmdir empty directories), walks the final tree with lstat and writes a
 *      size/checksum manifest and a district report.
 *
 * Usage: vaccine_cold_chain_logger_spool OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define NREGION 6
#define NLOGGER 160
#define NDAY 20
#define READ_PER_DAY 144
#define RETAIN_DAYS 12
#define PATHMAX 4096

static const char *outdir;
static const char *regions[NREGION] = {"north", "lakes", "highlands", "coast", "delta", "capital"};
static uint64_t rng = 0xA0761D6478BD642Full;

static double urand(void)
{
    rng += 0x9E3779B97F4A7C15ull;
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "coldchain: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

/* snprintf into a path buffer, refusing silently truncated paths. */
static void xpath(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    if (r < 0 || (size_t)r >= n) {
        fprintf(stderr, "coldchain: path too long\n");
        exit(2);
    }
}

static void xmkdir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
}

typedef struct {
    int id, region, kind;          /* kind 0 ice-lined refrigerator, 1 solar direct-drive, 2 cold box */
    double setpoint, temp, comp_on;
    int outage_left;
    /* ingest-side accumulators */
    double mkt_sum, heat_exposure, tmin, tmax;
    int n_read, high_alarms, low_alarms, files, last_day;
    double high_run, low_run;      /* running excursion durations (minutes) */
} logger;

static logger loggers[NLOGGER];
static int registry_id[NLOGGER], registry_idx[NLOGGER];   /* sorted logger ids -> logger index */

/* Commission the loggers and write the district registry (one line per device). */
static void init_loggers(void)
{
    for (int i = 0; i < NLOGGER; i++) {
        logger *g = &loggers[i];
        memset(g, 0, sizeof *g);
        g->id = 41000 + i * 7;
        g->region = i % NREGION;
        g->kind = urand() < 0.55 ? 0 : (urand() < 0.6 ? 1 : 2);
        g->setpoint = 4.5 + 1.0 * (urand() - 0.5);
        g->temp = g->setpoint;
        g->tmin = 1e9;
        g->tmax = -1e9;
        g->last_day = -1;
    }
    char path[PATHMAX];
    xpath(path, sizeof path, "%s/registry.csv", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "logger_id,region,kind,setpoint_c,facility\n") < 0) die("fprintf", path);
    for (int i = NLOGGER - 1; i >= 0; i--)                     /* commissioning order: newest first */
        if (fprintf(f, "%d,%s,%d,%.2f,HF-%s-%03d\n", loggers[i].id, regions[loggers[i].region], loggers[i].kind,
                    loggers[i].setpoint, regions[loggers[i].region], i / NREGION) < 0)
            die("fprintf", path);
    if (fclose(f) != 0) die("fclose", path);
}

/* One day of 10-minute readings: thermostat cycling, door openings, grid outages, ambient swing. */
static void simulate_day(logger *g, int day, float *temps)
{
    for (int k = 0; k < READ_PER_DAY; k++) {
        double hour = k / 6.0;
        double ambient = 27.0 + 6.0 * sin((hour - 9.0) / 24.0 * 6.283185307);
        if (g->kind != 1 && g->outage_left == 0 && urand() < (g->region == 0 || g->region == 4 ? 0.004 : 0.0012))
            g->outage_left = 6 + (int)(urand() * 60);          /* 1-11 h power cut */
        int powered = g->outage_left == 0;
        if (g->outage_left > 0) g->outage_left--;
        if (g->kind == 1) powered = hour > 7.5 && hour < 17.0;    /* solar direct drive */
        for (int sub = 0; sub < 10; sub++) {                     /* 1-minute sub-steps */
            if (g->kind == 2) {                                  /* cold box with frozen packs */
                double pack = day % 5 == 0 ? -4.0 : 1.0;          /* unconditioned packs every 5th day */
                g->temp += 0.002 * (ambient - g->temp) + 0.02 * (pack - g->temp);
            } else {
                if (g->temp > g->setpoint + 1.0) g->comp_on = powered;
                if (g->temp < g->setpoint - 1.0 || !powered) g->comp_on = 0;
                double hold = g->kind == 0 ? 0.0005 : 0.00015;    /* ice lining / SDD ice bank slow warming */
                g->temp += hold * (ambient - g->temp) - 0.05 * g->comp_on;
                if (urand() < 0.004) g->temp += 0.8 + urand();  /* door opening */
            }
        }
        temps[k] = (float)(g->temp + 0.05 * (urand() - 0.5));
    }
}

/* Upload one readout: write inbox/<region>/L<id>_d<day>.tmp then rename to .csv. */
static long upload_readout(const logger *g, int day, const float *temps)
{
    char tmp[PATHMAX], fin[PATHMAX];
    xpath(tmp, sizeof tmp, "%s/inbox/%s/L%05d_d%03d.tmp", outdir, regions[g->region], g->id, day);
    xpath(fin, sizeof fin, "%s/inbox/%s/L%05d_d%03d.csv", outdir, regions[g->region], g->id, day);
    FILE *f = fopen(tmp, "w");
    if (!f) die("fopen", tmp);
    if (fprintf(f, "# logger=%d region=%s kind=%d day=%d interval_min=10\ntime,temp_c\n", g->id,
                regions[g->region], g->kind, day) < 0)
        die("fprintf", tmp);
    for (int k = 0; k < READ_PER_DAY; k++)
        if (fprintf(f, "2024-05-%02dT%02d:%02d,%.2f\n", day + 1, k / 6, (k % 6) * 10, temps[k]) < 0)
            die("fprintf", tmp);
    long sz = ftell(f);
    if (fclose(f) != 0) die("fclose", tmp);
    if (rename(tmp, fin) != 0) die("rename", tmp);
    return sz;
}

typedef struct { char name[64]; int region; off_t size; } inbox_entry;

static int cmp_entry(const void *a, const void *b)
{
    const inbox_entry *x = a, *y = b;
    if (x->region != y->region) return x->region - y->region;
    return strcmp(x->name, y->name);
}

static logger *find_logger(int id)
{
    int lo = 0, hi = NLOGGER - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (registry_id[mid] == id) return &loggers[registry_idx[mid]];
        if (registry_id[mid] < id) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

/* Parse one readout and update the logger's excursion, MKT and heat-exposure accumulators.
 * Returns 1 if the readout contains an alarm. */
static int parse_readout(const char *path, logger **out_g, int *out_day)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[256];
    int id, kind, day, alarm = 0;
    char reg[32];
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "# logger=%d region=%31s kind=%d day=%d", &id, reg, &kind, &day) != 4) {
        fprintf(stderr, "coldchain: bad header in %s\n", path);
        exit(2);
    }
    logger *g = find_logger(id);
    if (!g) { fprintf(stderr, "coldchain: unknown logger %d\n", id); exit(2); }
    if (!fgets(line, sizeof line, f)) die("fgets", path);
    const double dh_over_r = 83144.0 / 8.314;                    /* USP <1079>: 83.144 kJ/mol */
    while (fgets(line, sizeof line, f)) {
        char *comma = strchr(line, ',');
        if (!comma) { fprintf(stderr, "coldchain: bad row in %s\n", path); exit(2); }
        double t = strtod(comma + 1, NULL);
        g->mkt_sum += exp(-dh_over_r / (t + 273.15));
        g->n_read++;
        if (t > 8.0) g->heat_exposure += (t - 8.0) * 10.0 / 60.0;   /* degree-hours above 8 C */
        if (t < g->tmin) g->tmin = t;
        if (t > g->tmax) g->tmax = t;
        g->high_run = t > 8.0 ? g->high_run + 10.0 : 0.0;
        g->low_run = t < -0.5 ? g->low_run + 10.0 : 0.0;
        if (g->high_run == 600.0) { g->high_alarms++; alarm = 1; }   /* 10 h continuous above 8 C */
        if (g->low_run == 60.0) { g->low_alarms++; alarm = 1; }      /* 1 h continuous below -0.5 C */
    }
    if (ferror(f)) die("fgets", path);
    if (fclose(f) != 0) die("fclose", path);
    g->files++;
    g->last_day = day;
    *out_g = g;
    *out_day = day;
    return alarm;
}

/* Load the registry, scan all region inboxes, stat and parse each readout in name order, then file it. */
static void ingest_inbox(long *nfiles, long *nbytes, long *nalarm)
{
    static inbox_entry ents[NLOGGER * NDAY + 16];
    int n = 0;
    {
        char path[PATHMAX], line[256];
        xpath(path, sizeof path, "%s/registry.csv", outdir);
        FILE *f = fopen(path, "r");
        if (!f) die("fopen", path);
        if (!fgets(line, sizeof line, f)) die("fgets", path);
        int k = 0;
        while (k < NLOGGER && fgets(line, sizeof line, f)) {
            int id;
            char reg[32];
            if (sscanf(line, "%d,%31[^,]", &id, reg) != 2) { fprintf(stderr, "coldchain: bad registry line\n"); exit(2); }
            int idx = -1;
            for (int i = 0; i < NLOGGER; i++)
                if (loggers[i].id == id) { idx = i; break; }
            if (idx < 0 || strcmp(reg, regions[loggers[idx].region]) != 0) {
                fprintf(stderr, "coldchain: registry mismatch for %d\n", id);
                exit(2);
            }
            int j = k++;                                         /* insertion into the sorted table */
            while (j > 0 && registry_id[j - 1] > id) { registry_id[j] = registry_id[j - 1]; registry_idx[j] = registry_idx[j - 1]; j--; }
            registry_id[j] = id;
            registry_idx[j] = idx;
        }
        if (ferror(f)) die("fgets", path);
        if (fclose(f) != 0) die("fclose", path);
        if (k != NLOGGER) { fprintf(stderr, "coldchain: registry incomplete\n"); exit(2); }
    }
    for (int r = 0; r < NREGION; r++) {
        char dpath[PATHMAX];
        xpath(dpath, sizeof dpath, "%s/inbox/%s", outdir, regions[r]);
        DIR *d = opendir(dpath);
        if (!d) die("opendir", dpath);
        struct dirent *e;
        errno = 0;
        while ((e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".csv") != 0) continue;   /* skip partial .tmp */
            if (n >= (int)(sizeof ents / sizeof ents[0])) { fprintf(stderr, "coldchain: inbox overflow\n"); exit(2); }
            char fpath[PATHMAX];
            xpath(fpath, sizeof fpath, "%s/%s", dpath, e->d_name);
            struct stat st;
            if (stat(fpath, &st) != 0) die("stat", fpath);
            if (!S_ISREG(st.st_mode) || st.st_size == 0) continue;
            xpath(ents[n].name, sizeof ents[n].name, "%s", e->d_name);
            ents[n].region = r;
            ents[n].size = st.st_size;
            n++;
        }
        if (errno != 0) die("readdir", dpath);
        if (closedir(d) != 0) die("closedir", dpath);
    }
    qsort(ents, (size_t)n, sizeof ents[0], cmp_entry);
    *nfiles = n;
    *nbytes = 0;
    *nalarm = 0;
    for (int i = 0; i < n; i++) {
        char src[PATHMAX], ldir[PATHMAX], dst[PATHMAX];
        xpath(src, sizeof src, "%s/inbox/%s/%s", outdir, regions[ents[i].region], ents[i].name);
        logger *g;
        int day;
        int alarm = parse_readout(src, &g, &day);
        *nbytes += ents[i].size;
        xpath(ldir, sizeof ldir, "%s/archive/%s/L%05d", outdir, regions[g->region], g->id);
        if (g->files == 1) xmkdir(ldir);
        xpath(dst, sizeof dst, "%s/%s", ldir, ents[i].name);
        if (rename(src, dst) != 0) die("rename", src);
        if (alarm) {
            char apath[PATHMAX];
            xpath(apath, sizeof apath, "%s/alerts/%s", outdir, ents[i].name);
            if (link(dst, apath) != 0) die("link", apath);
            (*nalarm)++;
        }
    }
}

/* Small per-logger status file (what the district dashboard polls). */
static void write_logger_status(void)
{
    for (int i = 0; i < NLOGGER; i++) {
        logger *g = &loggers[i];
        char path[PATHMAX];
        xpath(path, sizeof path, "%s/archive/%s/L%05d/status.txt", outdir, regions[g->region], g->id);
        FILE *f = fopen(path, "w");
        if (!f) die("fopen", path);
        double mkt = -(83144.0 / 8.314) / log(g->mkt_sum / g->n_read) - 273.15;
        if (fprintf(f, "logger %d\nkind %d\nreadings %d\nmkt_c %.3f\nmin_c %.2f\nmax_c %.2f\n"
                       "heat_exposure_degh %.2f\nhigh_alarms %d\nlow_alarms %d\nlast_day %d\n",
                    g->id, g->kind, g->n_read, mkt, g->tmin, g->tmax, g->heat_exposure, g->high_alarms,
                    g->low_alarms, g->last_day) < 0)
            die("fprintf", path);
        if (fclose(f) != 0) die("fclose", path);
    }
}

/* Retention: remove readouts older than RETAIN_DAYS from the archive (alerts keep their link). */
static long apply_retention(void)
{
    long removed = 0;
    for (int i = 0; i < NLOGGER; i++) {
        logger *g = &loggers[i];
        char ldir[PATHMAX];
        xpath(ldir, sizeof ldir, "%s/archive/%s/L%05d", outdir, regions[g->region], g->id);
        DIR *d = opendir(ldir);
        if (!d) die("opendir", ldir);
        struct dirent *e;
        char victims[NDAY][64];
        int nv = 0;
        errno = 0;
        while ((e = readdir(d)) != NULL) {
            int id, day;
            if (sscanf(e->d_name, "L%5d_d%3d.csv", &id, &day) == 2 && day < NDAY - RETAIN_DAYS && nv < NDAY) {
                xpath(victims[nv], sizeof victims[0], "%s", e->d_name);
                nv++;
            }
        }
        if (errno != 0) die("readdir", ldir);
        if (closedir(d) != 0) die("closedir", ldir);
        for (int v = 0; v < nv; v++) {
            char p[PATHMAX];
            xpath(p, sizeof p, "%s/%s", ldir, victims[v]);
            if (unlink(p) != 0) die("unlink", p);
            removed++;
        }
    }
    /* the inbox directories are empty now: remove them */
    for (int r = 0; r < NREGION; r++) {
        char p[PATHMAX];
        xpath(p, sizeof p, "%s/inbox/%s", outdir, regions[r]);
        if (rmdir(p) != 0) die("rmdir", p);
    }
    char p[PATHMAX];
    xpath(p, sizeof p, "%s/inbox", outdir);
    if (rmdir(p) != 0) die("rmdir", p);
    return removed;
}

typedef struct { long files, dirs; long long bytes; uint32_t crc; } walk_stats;

static uint32_t crc_table[256];

static uint32_t file_crc(const char *path)
{
    if (crc_table[1] == 0)
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    unsigned char buf[8192];
    uint32_t c = 0xFFFFFFFFu;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < r; i++) c = crc_table[(c ^ buf[i]) & 0xFF] ^ (c >> 8);
    if (r < 0) die("read", path);
    if (close(fd) != 0) die("close", path);
    return c ^ 0xFFFFFFFFu;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Recursive walk with lstat in sorted order; one manifest line per regular file. */
static void walk_tree(const char *dir, const char *rel, FILE *man, const char *manpath, walk_stats *ws)
{
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strcmp(e->d_name, "MANIFEST.txt") == 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names) { fprintf(stderr, "coldchain: out of memory\n"); exit(2); }
        }
        names[n] = strdup(e->d_name);
        if (!names[n]) { fprintf(stderr, "coldchain: out of memory\n"); exit(2); }
        n++;
    }
    if (errno != 0) die("readdir", dir);
    if (closedir(d) != 0) die("closedir", dir);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char p[PATHMAX], r[PATHMAX];
        xpath(p, sizeof p, "%s/%s", dir, names[i]);
        xpath(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
        struct stat st;
        if (lstat(p, &st) != 0) die("lstat", p);
        if (S_ISDIR(st.st_mode)) {
            ws->dirs++;
            walk_tree(p, r, man, manpath, ws);
        } else if (S_ISREG(st.st_mode)) {
            uint32_t c = file_crc(p);
            ws->files++;
            ws->bytes += st.st_size;
            ws->crc ^= c;
            if (fprintf(man, "%08x %8lld %lu %s\n", c, (long long)st.st_size, (unsigned long)st.st_nlink, r) < 0)
                die("fprintf", manpath);
        }
        free(names[i]);
    }
    free(names);
}

static void write_district_report(long nup, long ningest, long nalarm, long nremoved, const walk_stats *ws)
{
    char path[PATHMAX];
    xpath(path, sizeof path, "%s/district_report.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    int ok = fprintf(f, "uploads %ld, ingested %ld, alarm readouts %ld, expired %ld\n", nup, ningest, nalarm,
                     nremoved) >= 0;
    ok = ok && fprintf(f, "tree: %ld files, %ld dirs, %lld bytes, xor-crc %08x\n", ws->files, ws->dirs, ws->bytes,
                       ws->crc) >= 0;
    for (int r = 0; r < NREGION; r++) {
        int n = 0, hi = 0, lo = 0;
        double mkt = 0, expo = 0;
        for (int i = 0; i < NLOGGER; i++) {
            logger *g = &loggers[i];
            if (g->region != r) continue;
            n++;
            hi += g->high_alarms;
            lo += g->low_alarms;
            mkt += -(83144.0 / 8.314) / log(g->mkt_sum / g->n_read) - 273.15;
            expo += g->heat_exposure;
        }
        ok = ok && fprintf(f, "%-10s loggers %3d  mean MKT %6.3f C  heat exposure %9.1f deg-h  high %4d  freeze %4d\n",
                           regions[r], n, mkt / n, expo, hi, lo) >= 0;
    }
    /* devices needing attention: ranked by heat exposure */
    int order[NLOGGER];
    for (int i = 0; i < NLOGGER; i++) order[i] = i;
    for (int i = 1; i < NLOGGER; i++)
        for (int j = i; j > 0 && loggers[order[j]].heat_exposure > loggers[order[j - 1]].heat_exposure; j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    ok = ok && fprintf(f, "\nlogger  region     kind  files  MKT_C   min_C   max_C  heat_degh  high  freeze  action\n") >= 0;
    for (int i = 0; i < NLOGGER; i++) {
        const logger *g = &loggers[order[i]];
        double mkt = -(83144.0 / 8.314) / log(g->mkt_sum / g->n_read) - 273.15;
        const char *action = g->low_alarms ? "SHAKE-TEST" : (g->high_alarms > 3 ? "CHECK-VVM" : (g->high_alarms ? "review" : "ok"));
        ok = ok && fprintf(f, "%6d  %-9s  %4d  %5d  %5.2f  %6.2f  %6.2f  %9.1f  %4d  %6d  %s\n", g->id, regions[g->region],
                           g->kind, g->files, mkt, g->tmin, g->tmax, g->heat_exposure, g->high_alarms, g->low_alarms,
                           action) >= 0;
    }
    if (!ok || fclose(f) != 0) die("write", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    char p[PATHMAX];
    const char *top[] = {"inbox", "archive", "alerts"};
    for (int i = 0; i < 3; i++) { xpath(p, sizeof p, "%s/%s", outdir, top[i]); xmkdir(p); }
    for (int r = 0; r < NREGION; r++) {
        xpath(p, sizeof p, "%s/inbox/%s", outdir, regions[r]); xmkdir(p);
        xpath(p, sizeof p, "%s/archive/%s", outdir, regions[r]); xmkdir(p);
    }
    init_loggers();
    static float temps[READ_PER_DAY];
    long nup = 0, upbytes = 0;
    for (int day = 0; day < NDAY; day++)
        for (int i = 0; i < NLOGGER; i++) {
            simulate_day(&loggers[i], day, temps);
            if (urand() < 0.03) continue;                      /* logger out of range: no upload today */
            upbytes += upload_readout(&loggers[i], day, temps);
            nup++;
        }
    long ningest, inbytes, nalarm;
    ingest_inbox(&ningest, &inbytes, &nalarm);
    write_logger_status();
    long nremoved = apply_retention();
    xpath(p, sizeof p, "%s/MANIFEST.txt", outdir);
    FILE *man = fopen(p, "w");
    if (!man) die("fopen", p);
    walk_stats ws = {0, 0, 0, 0};
    walk_tree(outdir, "", man, p, &ws);
    if (fclose(man) != 0) die("fclose", p);
    write_district_report(nup, ningest, nalarm, nremoved, &ws);
    printf("coldchain: %ld uploads (%ld bytes), %ld alarm readouts, %ld expired, %ld files in final tree\n", nup,
           upbytes, nalarm, nremoved, ws.files);
    return 0;
}
