/*
 * fish_ladder_counter_log_parse.c
 *
 * Season processing of resistivity fish-counter logs from the four ladders
 * of a river dam.  Each ladder has three electrode channels; the counter
 * logger writes one text line per crossing event (timestamp, ladder,
 * channel, direction, peak signal, quality), plus heartbeat lines, water
 * temperature readings, and the occasional garbled line after a power dip.
 *
 * Steps:
 *  1. generate_counter_logs: write the raw logs (fprintf), one per ladder;
 *  2. parse_log: read them back with getline, validate each line with
 *     sscanf/strtol, send bad lines to rejects.log;
 *  3. dedupe_events: a fish crossing several channels within 2 s is one fish;
 *  4. classify_species: signal size and season -> salmon / sea trout / shad;
 *  5. daily and hourly passage tables (fprintf), run timing (5/50/95 %
 *     passage dates) and a temperature correlation report.
 *
 * Usage: fish_ladder_counter_log_parse OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLADDER 4
#define NCHAN 3
#define DAY0 91              /* 1 April (day of year, 0-based) */
#define NDAY 200
#define NSPECIES 3
#define MAXEV 700000

static const char *species_name[NSPECIES] = {"salmon", "sea_trout", "shad"};
static const int month_start[13] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};

typedef struct {
    int32_t day;       /* season day 0..NDAY-1 */
    int32_t ms;        /* ms since midnight */
    int8_t ladder, chan, dir; /* dir +1 up, -1 down */
    int8_t species;
    int16_t peak;
    float qual;
} event_t;

static const char *g_dir;
static uint64_t g_rng = 0xF15A1ADDE5ull;

static void die(const char *what)
{
    fprintf(stderr, "fish_ladder: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(2);
}

static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static FILE *open_out(const char *name, const char *mode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

static void doy_to_date(int doy, int *mon, int *mday)
{
    int m = 0;
    while (m < 11 && doy >= month_start[m + 1]) m++;
    *mon = m + 1;
    *mday = doy - month_start[m] + 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Run curves: salmon peak mid-June, sea trout July, shad May. */
static double run_intensity(int sp, int day, int ladder)
{
    static const double peak[NSPECIES] = {75, 105, 45}, width[NSPECIES] = {22, 18, 10}, size[NSPECIES] = {260, 140, 420};
    double d = (day - peak[sp] - 3 * ladder) / width[sp];
    return size[sp] * exp(-0.5 * d * d) * (ladder == 0 ? 1.3 : 1.0);
}

static void generate_counter_logs(void)
{
    static int times[20000];
    static int8_t sp_of[20000];
    for (int l = 0; l < NLADDER; l++) {
        char name[64];
        snprintf(name, sizeof name, "ladder%d_raw.log", l + 1);
        FILE *f = open_out(name, "w");
        for (int day = 0; day < NDAY; day++) {
            int mon, mday;
            doy_to_date(DAY0 + day, &mon, &mday);
            double temp_mean = 7.0 + 11.0 * sin(3.14159 * (day + 10) / (NDAY + 40));
            int n = 0;
            for (int sp = 0; sp < NSPECIES; sp++) {
                double lam = run_intensity(sp, day, l) * (1.0 + 0.04 * (temp_mean - 12.0));
                int k = (int)(lam * (0.6 + 0.8 * urand()));
                for (int i = 0; i < k && n < 20000; i++) {
                    /* dawn and dusk peaks */
                    double h = urand() < 0.5 ? 5.5 + 2.5 * urand() : 19.0 + 3.0 * urand();
                    if (urand() < 0.3) h = 24.0 * urand();
                    times[n] = (int)(h * 3600000.0);
                    sp_of[n++] = (int8_t)sp;
                }
            }
            /* sort by time, keeping species attached: pack into one key */
            static int keys[20000];
            for (int i = 0; i < n; i++) keys[i] = times[i] / 4 * 4 + sp_of[i];
            qsort(keys, (size_t)n, sizeof keys[0], cmp_int);
            int next_hb = 0, next_temp = 0;
            for (int i = 0; i <= n; i++) {
                int t = i < n ? keys[i] / 4 * 4 : 86400000;
                while (next_hb <= t && next_hb < 86400000) {
                    fprintf(f, "2023-%02d-%02dT%02d:%02d:00.000 FL%d HB ok v=12.%d\n", mon, mday, next_hb / 3600000,
                            next_hb / 60000 % 60, l + 1, (int)(urand() * 9));
                    next_hb += 900000;
                }
                while (next_temp <= t && next_temp < 86400000) {
                    double tw = temp_mean + 1.2 * sin(2 * 3.14159 * (next_temp / 3.6e6 - 9) / 24) + 0.2 * (urand() - 0.5);
                    fprintf(f, "2023-%02d-%02dT%02d:00:00.000 FL%d TEMP %.2f\n", mon, mday, next_temp / 3600000, l + 1, tw);
                    next_temp += 3600000;
                }
                if (i == n) break;
                int sp = keys[i] % 4;
                int dir = urand() < 0.08 ? -1 : 1;
                int peak = (int)((sp == 0 ? 95 : sp == 1 ? 60 : 38) * (0.8 + 0.4 * urand()));
                int nch = 1 + (urand() < 0.6) + (urand() < 0.4);
                int c0 = (int)(urand() * NCHAN);
                for (int c = 0; c < nch; c++) {
                    int tt = t + c * (int)(300 + 900 * urand());
                    if (tt >= 86400000) tt = 86399999;
                    if (urand() < 0.002) { /* garbled by a power dip */
                        fprintf(f, "2023-%02d-%02dT%02d:%02d:%02d.%03d FL%d CH\x7f%d UP ?? QUAL=\n", mon, mday, tt / 3600000,
                                tt / 60000 % 60, tt / 1000 % 60, tt % 1000, l + 1, c);
                        continue;
                    }
                    fprintf(f, "2023-%02d-%02dT%02d:%02d:%02d.%03d FL%d CH%d %s %d QUAL=%.2f\n", mon, mday, tt / 3600000,
                            tt / 60000 % 60, tt / 1000 % 60, tt % 1000, l + 1, (c0 + c) % NCHAN + 1,
                            dir > 0 ? "UP" : "DN", peak + (int)(6 * (urand() - 0.5)), 0.55 + 0.45 * urand());
                }
            }
        }
        if (ferror(f) || fclose(f) != 0) die("write raw log");
    }
}

typedef struct {
    long lines, events, heartbeats, temps, rejected;
} parse_stats;

/* getline + sscanf parser; temperatures go to temp[ladder][day]. */
static void parse_log(int l, event_t *ev, long *nev, double temp[NLADDER][NDAY], int ntemp[NLADDER][NDAY],
                      FILE *rej, parse_stats *ps)
{
    char name[64];
    snprintf(name, sizeof name, "ladder%d_raw.log", l + 1);
    FILE *f = open_out(name, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        ps->lines++;
        int yr, mon, mday, hh, mm, ss, ms, lad, n = 0;
        if (sscanf(line, "%d-%d-%dT%d:%d:%d.%d FL%d %n", &yr, &mon, &mday, &hh, &mm, &ss, &ms, &lad, &n) != 8 ||
            mon < 1 || mon > 12 || hh > 23 || mm > 59 || ss > 59 || lad != l + 1) {
            fprintf(rej, "%s:%ld bad header: %s", name, ps->lines, line);
            ps->rejected++;
            continue;
        }
        int day = month_start[mon - 1] + mday - 1 - DAY0;
        if (day < 0 || day >= NDAY) {
            ps->rejected++;
            continue;
        }
        const char *rest = line + n;
        int ch, peak;
        char dir[4];
        float q;
        double tw;
        if (strncmp(rest, "HB ", 3) == 0) {
            ps->heartbeats++;
        } else if (sscanf(rest, "TEMP %lf", &tw) == 1) {
            temp[l][day] += tw;
            ntemp[l][day]++;
            ps->temps++;
        } else if (sscanf(rest, "CH%d %3s %d QUAL=%f", &ch, dir, &peak, &q) == 4 && ch >= 1 && ch <= NCHAN &&
                   (strcmp(dir, "UP") == 0 || strcmp(dir, "DN") == 0)) {
            if (*nev >= MAXEV) die("too many events");
            event_t *e = &ev[(*nev)++];
            e->day = day;
            e->ms = ((hh * 60 + mm) * 60 + ss) * 1000 + ms;
            e->ladder = (int8_t)l;
            e->chan = (int8_t)ch;
            e->dir = dir[0] == 'U' ? 1 : -1;
            e->peak = (int16_t)peak;
            e->qual = q;
            e->species = -1;
            ps->events++;
        } else {
            fprintf(rej, "%s:%ld bad record: %s", name, ps->lines, line);
            ps->rejected++;
        }
    }
    if (ferror(f)) die("read raw log");
    free(line);
    fclose(f);
}

static int cmp_event(const void *a, const void *b)
{
    const event_t *x = a, *y = b;
    if (x->ladder != y->ladder) return x->ladder - y->ladder;
    if (x->day != y->day) return x->day - y->day;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

/* Sort, then merge detections of the same fish on neighbouring channels. */
static long dedupe_events(event_t *ev, long n)
{
    qsort(ev, (size_t)n, sizeof *ev, cmp_event);
    long out = 0;
    for (long i = 0; i < n; i++) {
        if (out > 0) {
            event_t *p = &ev[out - 1];
            if (p->ladder == ev[i].ladder && p->day == ev[i].day && ev[i].ms - p->ms < 2000 && p->dir == ev[i].dir &&
                abs(p->peak - ev[i].peak) < 12) {
                if (ev[i].qual > p->qual) { /* keep the best-quality detection */
                    p->qual = ev[i].qual;
                    p->peak = ev[i].peak;
                    p->chan = ev[i].chan;
                }
                continue;
            }
        }
        ev[out++] = ev[i];
    }
    return out;
}

/* Peak signal scales with body length; shad only early, trout mid-summer. */
static void classify_species(event_t *ev, long n, long counts[NSPECIES])
{
    memset(counts, 0, sizeof(long) * NSPECIES);
    for (long i = 0; i < n; i++) {
        int p = ev[i].peak, d = ev[i].day;
        double score[NSPECIES];
        score[0] = -fabs(p - 95.0) / 12.0 - (d < 30 ? 1.0 : 0.0);
        score[1] = -fabs(p - 60.0) / 8.0 - (d < 50 ? 1.5 : 0.0);
        score[2] = -fabs(p - 38.0) / 6.0 - (d > 90 ? 3.0 : 0.0);
        int best = 0;
        for (int s = 1; s < NSPECIES; s++)
            if (score[s] > score[best]) best = s;
        ev[i].species = (int8_t)best;
        counts[best]++;
    }
}

static void write_passage_tables(const event_t *ev, long n, long daily[NLADDER][NDAY][NSPECIES],
                                 const double temp[NLADDER][NDAY], const int ntemp[NLADDER][NDAY])
{
    static long hourly[NLADDER][NSPECIES][24];
    memset(hourly, 0, sizeof hourly);
    memset(daily, 0, sizeof(long) * NLADDER * NDAY * NSPECIES);
    for (long i = 0; i < n; i++) {
        daily[ev[i].ladder][ev[i].day][ev[i].species] += ev[i].dir;
        hourly[ev[i].ladder][ev[i].species][ev[i].ms / 3600000] += ev[i].dir;
    }
    FILE *f = open_out("daily_passage.csv", "w");
    fprintf(f, "date,ladder,water_temp_c,salmon_net,sea_trout_net,shad_net\n");
    for (int d = 0; d < NDAY; d++) {
        int mon, mday;
        doy_to_date(DAY0 + d, &mon, &mday);
        for (int l = 0; l < NLADDER; l++)
            fprintf(f, "2023-%02d-%02d,FL%d,%.2f,%ld,%ld,%ld\n", mon, mday, l + 1,
                    ntemp[l][d] ? temp[l][d] / ntemp[l][d] : NAN, daily[l][d][0], daily[l][d][1], daily[l][d][2]);
    }
    if (ferror(f) || fclose(f) != 0) die("write daily_passage.csv");
    f = open_out("hourly_profile.txt", "w");
    for (int l = 0; l < NLADDER; l++)
        for (int s = 0; s < NSPECIES; s++) {
            fprintf(f, "FL%d %-9s", l + 1, species_name[s]);
            for (int h = 0; h < 24; h++) fprintf(f, " %6ld", hourly[l][s][h]);
            fprintf(f, "\n");
        }
    if (ferror(f) || fclose(f) != 0) die("write hourly_profile.txt");
}

/* Cumulative passage percentiles and Pearson r of daily count vs temperature. */
static void write_run_timing(long daily[NLADDER][NDAY][NSPECIES], const double temp[NLADDER][NDAY],
                             const int ntemp[NLADDER][NDAY], const parse_stats *ps, long ndedup)
{
    FILE *f = open_out("run_timing.txt", "w");
    fprintf(f, "lines %ld  events %ld  fish %ld  heartbeats %ld  temps %ld  rejected %ld\n\n", ps->lines, ps->events,
            ndedup, ps->heartbeats, ps->temps, ps->rejected);
    fprintf(f, "species    total     5%%      50%%     95%%    r(temp)\n");
    for (int s = 0; s < NSPECIES; s++) {
        double cum[NDAY], tot = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        for (int d = 0; d < NDAY; d++) {
            double c = 0, t = 0;
            int nt = 0;
            for (int l = 0; l < NLADDER; l++) {
                c += daily[l][d][s];
                t += temp[l][d];
                nt += ntemp[l][d];
            }
            tot += c;
            cum[d] = tot;
            t = nt ? t / nt : 0;
            sx += t, sy += c, sxx += t * t, syy += c * c, sxy += t * c;
        }
        int q[3] = {-1, -1, -1};
        const double frac[3] = {0.05, 0.5, 0.95};
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < NDAY && q[k] < 0; d++)
                if (cum[d] >= frac[k] * tot) q[k] = d;
        double r = (NDAY * sxy - sx * sy) / sqrt((NDAY * sxx - sx * sx) * (NDAY * syy - sy * sy) + 1e-30);
        char ds[3][8];
        for (int k = 0; k < 3; k++) {
            int mon, mday;
            doy_to_date(DAY0 + (q[k] < 0 ? 0 : q[k]), &mon, &mday);
            snprintf(ds[k], sizeof ds[k], "%02d-%02d", mon, mday);
        }
        fprintf(f, "%-9s %7.0f   %s   %s   %s   %6.3f\n", species_name[s], tot, ds[0], ds[1], ds[2], r);
    }
    if (ferror(f) || fclose(f) != 0) die("write run_timing.txt");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    g_dir = argv[1];
    generate_counter_logs();

    event_t *ev = malloc(sizeof(event_t) * MAXEV);
    if (!ev) die("malloc");
    static double temp[NLADDER][NDAY];
    static int ntemp[NLADDER][NDAY];
    static long daily[NLADDER][NDAY][NSPECIES];
    parse_stats ps = {0, 0, 0, 0, 0};
    long nev = 0;
    FILE *rej = open_out("rejects.log", "w");
    for (int l = 0; l < NLADDER; l++) parse_log(l, ev, &nev, temp, ntemp, rej, &ps);
    if (ferror(rej) || fclose(rej) != 0) die("write rejects.log");

    long nfish = dedupe_events(ev, nev);
    long counts[NSPECIES];
    classify_species(ev, nfish, counts);
    write_passage_tables(ev, nfish, daily, temp, ntemp);
    write_run_timing(daily, temp, ntemp, &ps, nfish);
    printf("lines %ld  detections %ld  fish %ld (salmon %ld, trout %ld, shad %ld)  rejected %ld\n", ps.lines, nev,
           nfish, counts[0], counts[1], counts[2], ps.rejected);
    free(ev);
    return 0;
}
