/*
 * water_meter_read_validate.c
 *
 * Meter-data-management batch for a small water utility.  It first
 * produces the inputs a head-end system would deliver: a pipe-delimited
 * meter master file, a tariff table and sixteen daily AMR export files of
 * hourly register reads (CSV text with comment headers, duplicated and
 * missing reads, register roll-overs, legacy gallon meters, tamper flags
 * and a few garbled lines).  The batch then loads the master with
 * getline(), the tariffs with fscanf(), parses every export line with
 * fgets() and hand-written field splitting, validates reads per meter
 * (hash table), fills gaps, derives hourly consumption, flags
 * continuous-flow leaks from minimum night flow, prices the period with
 * tiered tariffs and writes a consumption table, an exception log, leak
 * alerts, a fixed-width billing register and a summary.
 *
 * usage: water_meter_read_validate OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define NMETER      1300
#define NDAYS       16
#define NHOURS      (NDAYS * 24)
#define HSIZE       4096
#define MAXTIER     4
#define NCLASS      3
#define GAL_TO_M3   0.003785411784

typedef struct {
    char id[12];
    char account[16];
    int cls;                    /* 0 residential, 1 commercial, 2 irrigation */
    int size_mm;
    int legacy_gal;             /* reports US gallons */
    double rollover;            /* register capacity in its own unit */
    double lat, lon;
    /* processing state */
    double reg[NHOURS];         /* register in m3 (NAN = missing) */
    double offset;              /* accumulated roll-overs, m3 */
    double last;                /* last accepted raw register, m3 */
    int last_hour;
    int tamper, reverse, spikes, dups;
    unsigned lowbat_days;       /* bit d set once low battery reported on day d */
    double use[NHOURS];
    double total, night_min[NDAYS];
    int leak_days;
} meter_t;

typedef struct {
    int ntier;
    double upto[MAXTIER], price[MAXTIER];
    double fixed;
} tariff_t;

static const char *g_dir;
static meter_t *g_m;
static int g_hash[HSIZE];
static tariff_t g_tariff[NCLASS];
static uint64_t g_rng = 0x5DEECE66DULL;
static FILE *g_exc;
static long g_exc_count;
static const char *cls_name[NCLASS] = {"residential", "commercial", "irrigation"};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "water_meter_read_validate: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double rnd(void)
{
    g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27;
    return (double)((g_rng * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

static unsigned hash_id(const char *s)
{
    unsigned h = 5381;
    while (*s) h = h * 33u ^ (unsigned char)*s++;
    return h;
}

static int lookup(const char *id)
{
    unsigned h = hash_id(id) & (HSIZE - 1);
    while (g_hash[h] >= 0) {
        if (strcmp(g_m[g_hash[h]].id, id) == 0) return g_hash[h];
        h = (h + 1) & (HSIZE - 1);
    }
    return -1;
}

static void insert(int idx)
{
    unsigned h = hash_id(g_m[idx].id) & (HSIZE - 1);
    while (g_hash[h] >= 0) h = (h + 1) & (HSIZE - 1);
    g_hash[h] = idx;
}

static FILE *xopen(const char *rel, const char *mode, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", g_dir, rel);
    FILE *f = fopen(path, mode);
    if (!f) die("fopen", path);
    return f;
}

static void xclose(FILE *f, const char *path)
{
    if (ferror(f)) die("write", path);
    if (fclose(f) != 0) die("fclose", path);
}

/* ---------------- input generation (head-end side) ---------------- */

static void write_master(void)
{
    char path[1024];
    FILE *f = xopen("meter_master.psv", "w", path, sizeof path);
    fprintf(f, "# meter_id|account|class|size_mm|unit|register_digits|lat|lon|installed\n");
    for (int i = 0; i < NMETER; i++) {
        double u = rnd();
        int cls = u < 0.86 ? 0 : u < 0.96 ? 1 : 2;
        int size = cls == 0 ? 15 + 5 * (rnd() < 0.3) : cls == 1 ? 25 + 15 * (rnd() < 0.4) : 32;
        int gal = rnd() < 0.07;
        int digits = rnd() < 0.1 ? 5 : 6;
        fprintf(f, "WM%07d|ACC-%06d|%s|%d|%s|%d|%.5f|%.5f|20%02d-%02d-%02d\n", 1000000 + i * 7, 300000 + i,
                cls_name[cls], size, gal ? "gal" : "m3", digits, -33.80 + 0.2 * rnd(), 151.00 + 0.25 * rnd(),
                5 + (int)(rnd() * 18), 1 + (int)(rnd() * 12), 1 + (int)(rnd() * 28));
    }
    xclose(f, path);
}

static void write_tariffs(void)
{
    char path[1024];
    FILE *f = xopen("tariffs.txt", "w", path, sizeof path);
    fprintf(f, "# class fixed_charge ntiers then (upto_m3 price_per_m3) pairs\n");
    fprintf(f, "residential 24.50 3\n  8 2.41\n  20 2.97\n  1e9 3.85\n");
    fprintf(f, "commercial 61.00 2\n  150 2.55\n  1e9 2.80\n");
    fprintf(f, "irrigation 18.00 2\n  40 2.90\n  1e9 4.40\n");
    xclose(f, path);
}

/* Hourly household/commercial demand shape. */
static double demand(int cls, int hour, int dow)
{
    static const double res[24] = {0.2, 0.1, 0.08, 0.08, 0.1, 0.4, 1.6, 2.4, 1.9, 1.1, 0.8, 0.8,
                                   0.9, 0.8, 0.7, 0.8, 1.1, 1.7, 2.1, 1.9, 1.4, 1.0, 0.6, 0.35};
    if (cls == 0) return res[hour] * (dow >= 5 ? 1.15 : 1.0) * 0.018;
    if (cls == 1) return (hour >= 7 && hour <= 18 ? 1.0 : 0.1) * (dow >= 5 ? 0.3 : 1.0) * 0.25;
    return (hour >= 4 && hour <= 6) ? 0.9 : 0.0;           /* irrigation timers */
}

typedef struct { double reg, leak, batt; int cls, gal, digits; } sim_t;

static void generate_day_files(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/amr", g_dir);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
    /* re-read the master we just wrote to drive the simulation */
    FILE *mf = xopen("meter_master.psv", "r", path, sizeof path);
    static sim_t sim[NMETER];
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, mf) && n < NMETER) {
        if (line[0] == '#') continue;
        char cls[16], unit[8];
        int digits;
        if (sscanf(line, "%*[^|]|%*[^|]|%15[^|]|%*d|%7[^|]|%d|", cls, unit, &digits) != 3) {
            fprintf(stderr, "bad master line\n");
            exit(1);
        }
        sim[n].cls = cls[0] == 'r' ? 0 : cls[0] == 'c' ? 1 : 2;
        sim[n].gal = unit[0] == 'g';
        sim[n].digits = digits;
        double cap = digits == 5 ? 99999.999 : 999999.999;
        sim[n].reg = rnd() < 0.02 ? cap - 3.0 * rnd() : cap * 0.3 * rnd();
        sim[n].leak = rnd() < 0.04 ? 0.006 + 0.03 * rnd() : 0.0;
        sim[n].batt = rnd() < 0.025 ? 3.25 + 0.1 * rnd() : 3.5 + 0.25 * rnd();
        n++;
    }
    xclose(mf, path);
    int order[NMETER];
    for (int i = 0; i < NMETER; i++) order[i] = i;
    for (int d = 0; d < NDAYS; d++) {
        snprintf(path, sizeof path, "%s/amr/reads_2024-03-%02d.csv", g_dir, d + 1);
        FILE *f = fopen(path, "w");
        if (!f) die("fopen", path);
        fprintf(f, "# AMR export  collector=FN-%02d  date=2024-03-%02d  tz=UTC\n", 3 + d % 4, d + 1);
        fprintf(f, "# timestamp,meter_id,register,unit,status,battery,rssi\n");
        int dow = (d + 4) % 7;                   /* 1 March 2024 is a Friday */
        for (int h = 0; h < 24; h++) {
            for (int i = NMETER - 1; i > 0; i--) {   /* collectors answer in random order */
                int j = (int)(rnd() * (i + 1));
                int t = order[i]; order[i] = order[j]; order[j] = t;
            }
            for (int k = 0; k < NMETER; k++) {
                int i = order[k];
                sim_t *s = &sim[i];
                double cap_m3 = (s->digits == 5 ? 99999.999 : 999999.999) * (s->gal ? GAL_TO_M3 : 1.0);
                double use = demand(s->cls, h, dow) * (0.4 + 1.2 * rnd()) + s->leak;
                if (s->cls == 2 && rnd() < 0.5) use = 0;
                s->reg += use / (s->gal ? GAL_TO_M3 : 1.0);
                double capu = s->digits == 5 ? 99999.999 : 999999.999;
                if (s->reg > capu) s->reg -= capu + 0.001;
                (void)cap_m3;
                double r = rnd();
                if (r < 0.012) continue;                         /* missed read */
                const char *status = "OK";
                double shown = s->reg;
                if (r < 0.0125) status = "TAMPER";
                else if (r < 0.013) { status = "REVFLOW"; shown -= 0.05; }
                else if (r < 0.016) status = "LOWBAT";
                if (rnd() < 0.0004) {                            /* garbled radio frame */
                    fprintf(f, "2024-03-%02dT%02d:00:00Z,WM%07d,%c#@!%%\n", d + 1, h, 1000000 + i * 7,
                            'A' + (int)(rnd() * 26));
                    continue;
                }
                int lines = rnd() < 0.01 ? 2 : 1;                 /* duplicate delivery */
                for (int c = 0; c < lines; c++)
                    if (fprintf(f, "2024-03-%02dT%02d:00:00Z,WM%07d,%.3f,%s,%s,batt=%.2f,rssi=%d\n", d + 1, h,
                                1000000 + i * 7, shown, s->gal ? "gal" : "m3", status,
                                s->batt + 0.02 * rnd(), -60 - (int)(rnd() * 45)) < 0)
                        die("fprintf", path);
            }
        }
        xclose(f, path);
    }
}

/* ---------------- batch processing ---------------- */

static int parse_class(const char *s)
{
    for (int c = 0; c < NCLASS; c++)
        if (strcmp(s, cls_name[c]) == 0) return c;
    return -1;
}

/* Master file via getline(); fields split on '|'. */
static int load_master(void)
{
    char path[1024];
    FILE *f = xopen("meter_master.psv", "r", path, sizeof path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int n = 0;
    for (int h = 0; h < HSIZE; h++) g_hash[h] = -1;
    while ((len = getline(&line, &cap, f)) != -1) {
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        if (line[0] == '#' || len == 0) continue;
        char *fld[9];
        int nf = 0;
        char *p = line;
        while (nf < 9) {
            fld[nf++] = p;
            char *bar = strchr(p, '|');
            if (!bar) break;
            *bar = '\0';
            p = bar + 1;
        }
        if (nf != 9 || n >= NMETER) {
            fprintf(stderr, "meter_master.psv: bad line %d\n", n + 1);
            exit(1);
        }
        meter_t *m = &g_m[n];
        snprintf(m->id, sizeof m->id, "%s", fld[0]);
        snprintf(m->account, sizeof m->account, "%s", fld[1]);
        m->cls = parse_class(fld[2]);
        if (m->cls < 0) { fprintf(stderr, "unknown class %s\n", fld[2]); exit(1); }
        m->size_mm = atoi(fld[3]);
        m->legacy_gal = strcmp(fld[4], "gal") == 0;
        m->rollover = atoi(fld[5]) == 5 ? 99999.999 : 999999.999;
        m->lat = strtod(fld[6], NULL);
        m->lon = strtod(fld[7], NULL);
        for (int t = 0; t < NHOURS; t++) m->reg[t] = NAN;
        m->last = -1.0;
        m->last_hour = -1;
        insert(n);
        n++;
    }
    if (ferror(f)) die("getline", path);
    free(line);
    xclose(f, path);
    return n;
}

/* Tariff table via fscanf(). */
static void load_tariffs(void)
{
    char path[1024];
    FILE *f = xopen("tariffs.txt", "r", path, sizeof path);
    char name[32];
    int c;
    while ((c = fgetc(f)) == '#')
        while ((c = fgetc(f)) != '\n' && c != EOF) {}
    if (c != EOF) ungetc(c, f);
    for (int k = 0; k < NCLASS; k++) {
        tariff_t t;
        if (fscanf(f, "%31s %lf %d", name, &t.fixed, &t.ntier) != 3 || t.ntier < 1 || t.ntier > MAXTIER) {
            fprintf(stderr, "tariffs.txt: bad block %d\n", k);
            exit(1);
        }
        for (int i = 0; i < t.ntier; i++)
            if (fscanf(f, "%lf %lf", &t.upto[i], &t.price[i]) != 2) {
                fprintf(stderr, "tariffs.txt: bad tier\n");
                exit(1);
            }
        int cls = parse_class(name);
        if (cls < 0) { fprintf(stderr, "tariffs.txt: unknown class %s\n", name); exit(1); }
        g_tariff[cls] = t;
    }
    xclose(f, path);
}

static void exception(const char *file, long lineno, const char *meter, const char *kind, const char *detail)
{
    if (fprintf(g_exc, "%s:%ld\t%s\t%s\t%s\n", file, lineno, meter ? meter : "-", kind, detail) < 0)
        die("fprintf", "exceptions.log");
    g_exc_count++;
}

/* Split one CSV line in place; returns number of fields. */
static int split_csv(char *s, char **fld, int maxf)
{
    int n = 0;
    while (n < maxf) {
        fld[n++] = s;
        char *c = strchr(s, ',');
        if (!c) break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

/* Parse and validate one daily AMR file with fgets(). */
static long parse_day_file(int day, long *accepted)
{
    char path[1024], rel[64];
    snprintf(rel, sizeof rel, "amr/reads_2024-03-%02d.csv", day + 1);
    FILE *f = xopen(rel, "r", path, sizeof path);
    char line[512];
    long lineno = 0, nread = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n') line[--len] = '\0';
        if (line[0] == '#' || len == 0) continue;
        nread++;
        char raw[512];
        memcpy(raw, line, len + 1);
        char *fld[8];
        int nf = split_csv(line, fld, 8);
        int Y, M, D, hh, mm, ss;
        if (nf != 7 || sscanf(fld[0], "%4d-%2d-%2dT%2d:%2d:%2dZ", &Y, &M, &D, &hh, &mm, &ss) != 6) {
            exception(rel, lineno, nf > 1 ? fld[1] : NULL, "MALFORMED", raw);
            continue;
        }
        int mi = lookup(fld[1]);
        if (mi < 0) { exception(rel, lineno, fld[1], "UNKNOWN_METER", raw); continue; }
        meter_t *m = &g_m[mi];
        char *end;
        double v = strtod(fld[2], &end);
        if (end == fld[2] || *end != '\0') { exception(rel, lineno, m->id, "BAD_REGISTER", fld[2]); continue; }
        int gal = strcmp(fld[3], "gal") == 0;
        if (gal != m->legacy_gal) { exception(rel, lineno, m->id, "UNIT_MISMATCH", fld[3]); continue; }
        double batt = 0;
        int rssi = 0;
        if (sscanf(fld[5], "batt=%lf", &batt) != 1 || sscanf(fld[6], "rssi=%d", &rssi) != 1) {
            exception(rel, lineno, m->id, "MALFORMED", raw);
            continue;
        }
        int t = (D - 1) * 24 + hh;
        if (t < 0 || t >= NHOURS || M != 3 || Y != 2024) { exception(rel, lineno, m->id, "OUT_OF_PERIOD", fld[0]); continue; }
        if (strcmp(fld[4], "TAMPER") == 0) { m->tamper++; exception(rel, lineno, m->id, "TAMPER", fld[4]); }
        if (batt < 3.4 && !(m->lowbat_days & (1u << day))) {
            m->lowbat_days |= 1u << day;
            exception(rel, lineno, m->id, "LOW_BATTERY", fld[5]);
        }
        double scale = gal ? GAL_TO_M3 : 1.0;
        double reg = v * scale;
        if (t == m->last_hour) {
            m->dups++;
            if (fabs(reg + m->offset - m->reg[t]) > 1e-6) exception(rel, lineno, m->id, "DUP_CONFLICT", fld[2]);
            continue;
        }
        if (m->last >= 0) {
            double cap = m->rollover * scale;
            if (reg < m->last) {
                if (m->last > 0.9 * cap && reg < 0.1 * cap) {
                    m->offset += cap + 0.001 * scale;
                    char msg[64];
                    snprintf(msg, sizeof msg, "%.3f->%.3f", m->last, reg);
                    exception(rel, lineno, m->id, "ROLLOVER", msg);
                } else {
                    m->reverse++;
                    char msg[64];
                    snprintf(msg, sizeof msg, "%.3f<%.3f", reg, m->last);
                    exception(rel, lineno, m->id, "REVERSE_FLOW", msg);
                    continue;          /* keep previous register */
                }
            } else if (t > m->last_hour && (reg - m->last) / (t - m->last_hour) > 6.0) {
                m->spikes++;
                exception(rel, lineno, m->id, "SPIKE", fld[2]);
                continue;
            }
        }
        m->reg[t] = reg + m->offset;
        m->last = reg;
        m->last_hour = t;
        (*accepted)++;
    }
    if (ferror(f)) die("fgets", path);
    xclose(f, path);
    return nread;
}

/* Gap-fill registers linearly and derive hourly use. */
static long fill_and_differentiate(int n)
{
    long filled = 0;
    for (int i = 0; i < n; i++) {
        meter_t *m = &g_m[i];
        int prev = -1;
        for (int t = 0; t < NHOURS; t++) {
            if (isnan(m->reg[t])) continue;
            if (prev >= 0 && t - prev > 1) {
                for (int k = prev + 1; k < t; k++) {
                    m->reg[k] = m->reg[prev] + (m->reg[t] - m->reg[prev]) * (k - prev) / (double)(t - prev);
                    filled++;
                }
            }
            prev = t;
        }
        m->total = 0;
        for (int t = 0; t < NHOURS; t++) {
            double u = 0;
            if (t > 0 && !isnan(m->reg[t]) && !isnan(m->reg[t - 1])) u = m->reg[t] - m->reg[t - 1];
            if (u < 0) u = 0;
            m->use[t] = u;
            m->total += u;
        }
    }
    return filled;
}

/* Continuous-flow leak test: minimum hourly use between 01:00 and 04:59. */
static int detect_leaks(int n)
{
    char path[1024];
    FILE *f = xopen("leak_alerts.txt", "w", path, sizeof path);
    fprintf(f, "%-10s %-11s %-12s %5s %10s %s\n", "meter", "account", "class", "days", "min_l_per_h", "nights");
    int alerts = 0;
    for (int i = 0; i < n; i++) {
        meter_t *m = &g_m[i];
        m->leak_days = 0;
        double worst = 0;
        char nights[NDAYS + 1];
        for (int d = 0; d < NDAYS; d++) {
            double mn = 1e30;
            for (int h = 1; h <= 4; h++) {
                double u = m->use[d * 24 + h];
                if (u < mn) mn = u;
            }
            m->night_min[d] = mn;
            int leak = d > 0 && mn > 0.004;
            nights[d] = leak ? 'L' : '.';
            if (leak) { m->leak_days++; if (mn > worst) worst = mn; }
        }
        nights[NDAYS] = '\0';
        if (m->cls == 0 && m->leak_days >= 10) {
            alerts++;
            if (fprintf(f, "%-10s %-11s %-12s %5d %10.1f %s\n", m->id, m->account, cls_name[m->cls],
                        m->leak_days, worst * 1000.0, nights) < 0)
                die("fprintf", path);
        }
    }
    xclose(f, path);
    return alerts;
}

static void write_consumption(int n)
{
    char path[1024];
    FILE *f = xopen("consumption_hourly.csv", "w", path, sizeof path);
    fprintf(f, "meter_id,date");
    for (int h = 0; h < 24; h++) fprintf(f, ",h%02d_l", h);
    fprintf(f, ",day_total_l\n");
    for (int i = 0; i < n; i++) {
        const meter_t *m = &g_m[i];
        for (int d = 0; d < NDAYS; d++) {
            double tot = 0;
            if (fprintf(f, "%s,2024-03-%02d", m->id, d + 1) < 0) die("fprintf", path);
            for (int h = 0; h < 24; h++) {
                double l = m->use[d * 24 + h] * 1000.0;
                tot += l;
                if (fprintf(f, ",%.1f", l) < 0) die("fprintf", path);
            }
            if (fprintf(f, ",%.1f\n", tot) < 0) die("fprintf", path);
        }
    }
    xclose(f, path);
}

static double price_usage(const tariff_t *t, double m3)
{
    double cost = t->fixed, lo = 0;
    for (int i = 0; i < t->ntier && m3 > lo; i++) {
        double hi = t->upto[i];
        double in = (m3 < hi ? m3 : hi) - lo;
        cost += in * t->price[i];
        lo = hi;
    }
    return cost;
}

static double write_bills(int n)
{
    char path[1024];
    FILE *f = xopen("billing_register.txt", "w", path, sizeof path);
    fprintf(f, "BILLING REGISTER  period 2024-03-01 .. 2024-03-%02d\n", NDAYS);
    fprintf(f, "%-10s %-11s %-12s %10s %10s %10s %5s\n", "METER", "ACCOUNT", "CLASS", "OPEN_M3", "CLOSE_M3",
            "AMOUNT", "FLAGS");
    double revenue = 0;
    for (int i = 0; i < n; i++) {
        const meter_t *m = &g_m[i];
        int first = -1, last = -1;
        for (int t = 0; t < NHOURS; t++)
            if (!isnan(m->reg[t])) { if (first < 0) first = t; last = t; }
        double usage = m->total;
        double amt = price_usage(&g_tariff[m->cls], usage);
        revenue += amt;
        char flags[6] = ".....";
        if (m->tamper) flags[0] = 'T';
        if (m->reverse) flags[1] = 'R';
        if (m->spikes) flags[2] = 'S';
        if (m->cls == 0 && m->leak_days >= 10) flags[3] = 'L';
        if (first < 0 || last - first < NHOURS / 2) flags[4] = 'E';   /* estimated */
        if (fprintf(f, "%-10s %-11s %-12s %10.3f %10.3f %10.2f %5s\n", m->id, m->account, cls_name[m->cls],
                    first >= 0 ? m->reg[first] : 0.0, last >= 0 ? m->reg[last] : 0.0, amt, flags) < 0)
            die("fprintf", path);
    }
    fprintf(f, "TOTAL %.2f\n", revenue);
    xclose(f, path);
    return revenue;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    g_m = calloc(NMETER, sizeof(meter_t));
    if (!g_m) { fprintf(stderr, "out of memory\n"); return 1; }

    write_master();
    write_tariffs();
    generate_day_files();

    int n = load_master();
    load_tariffs();
    char path[1024];
    g_exc = xopen("exceptions.log", "w", path, sizeof path);
    long lines = 0, accepted = 0;
    for (int d = 0; d < NDAYS; d++) lines += parse_day_file(d, &accepted);
    xclose(g_exc, path);
    long filled = fill_and_differentiate(n);
    int leaks = detect_leaks(n);
    write_consumption(n);
    double revenue = write_bills(n);

    double vol = 0;
    for (int i = 0; i < n; i++) vol += g_m[i].total;
    FILE *f = xopen("summary.txt", "w", path, sizeof path);
    fprintf(f, "meters %d\nread lines %ld\naccepted %ld\nexceptions %ld\ngap-filled hours %ld\n"
               "leak alerts %d\nvolume %.1f m3\nrevenue %.2f\n",
            n, lines, accepted, g_exc_count, filled, leaks, vol, revenue);
    xclose(f, path);

    printf("water_meter_read_validate: %d meters, %d days, %ld read lines\n", n, NDAYS, lines);
    printf("  accepted %ld, exceptions %ld, gap-filled %ld hours\n", accepted, g_exc_count, filled);
    printf("  leak alerts %d, volume %.1f m3, revenue %.2f\n", leaks, vol, revenue);
    free(g_m);
    return 0;
}
