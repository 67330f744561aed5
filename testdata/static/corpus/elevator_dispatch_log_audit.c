/*
 * elevator_dispatch_log_audit.c
 *
 * Traffic audit of a 40-floor office tower served by a group of 8 cars.
 * Part 1 produces the data: a building table (floor populations, tenants) is
 * written as text, read back with fscanf, and drives a second-by-second
 * simulation of passenger arrivals (morning up-peak, lunch, evening
 * down-peak, interfloor) and a collective group dispatcher; the group
 * controller writes one text event log per day with fprintf (hall calls,
 * assignments, door open/close, car calls, arrivals, fault codes).
 * Part 2 is the audit tool: it reads the daily logs with getline, parses each
 * event with sscanf, matches hall calls to the door openings that served
 * them, computes waiting-time distributions per hour and per floor band,
 * door dwell statistics and fault counts, and writes per-call CSV records, an
 * hourly traffic profile and a text summary with fprintf.
 *
 * Usage: elevator_dispatch_log_audit OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFLOOR 40
#define NCAR 8
#define NDAYS 8
#define CAPACITY 16
#define MAXQ 512
#define MAXPAX 64

static const char *outdir;
static uint64_t rng = 0x9FB21C651E98DF25ull;

static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "elevator: %s %s: %s\n", what, path, errno ? strerror(errno) : "format error");
    exit(2);
}

static FILE *xfopen(const char *name, const char *mode, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", outdir, name);
    errno = 0;
    FILE *f = fopen(path, mode);
    if (!f) die("fopen", path);
    return f;
}

static int population[NFLOOR];
static char tenant[NFLOOR][24];
static float presence[NFLOOR][24];          /* fraction of the floor population in the building, by hour */

/* Building table: floor, population, tenant name. */
static void write_building_table(void)
{
    char path[4096];
    FILE *f = xfopen("building.cfg", "w", path, sizeof path);
    const char *names[] = {"Lobby", "Bank", "LawFirm", "Insurer", "Consult", "TechCo", "Media", "Gov", "Clinic",
                           "Archit", "Energy", "Shipping"};
    if (fprintf(f, "# floor population tenant\n") < 0) die("fprintf", path);
    for (int fl = 0; fl < NFLOOR; fl++) {
        int pop = fl == 0 ? 0 : 60 + (int)(90 * urand());
        if (fl == 20 || fl == 39) pop /= 3;                    /* plant rooms / sky lobby */
        if (fprintf(f, "%d %d %s\n", fl, pop, fl == 0 ? "Lobby" : names[1 + (fl * 7) % 11]) < 0)
            die("fprintf", path);
    }
    /* tenant working hours: presence factor per floor and hour (flexitime spreads the edges) */
    if (fprintf(f, "# floor hour presence\n") < 0) die("fprintf", path);
    for (int fl = 0; fl < NFLOOR; fl++) {
        int t = (fl * 7) % 11;
        double open = 7.0 + (t % 3) * 0.5, close = 17.0 + (t % 4) * 0.75;
        for (int h = 0; h < 24; h++) {
            double x = h + 0.5;
            double pr = fl == 0 ? 0.0 : 1.0 / (1.0 + exp(-(x - open) * 2.5)) / (1.0 + exp((x - close) * 2.0));
            if (fprintf(f, "%d %d %.4f\n", fl, h, pr) < 0) die("fprintf", path);
        }
    }
    if (fclose(f) != 0) die("fclose", path);
}

static void read_building_table(void)
{
    char path[4096], line[256];
    FILE *f = xfopen("building.cfg", "r", path, sizeof path);
    if (!fgets(line, sizeof line, f)) die("fgets", path);
    for (int i = 0; i < NFLOOR; i++) {
        int fl, pop;
        char name[24];
        errno = 0;
        if (fscanf(f, "%d %d %23s", &fl, &pop, name) != 3 || fl < 0 || fl >= NFLOOR) die("fscanf", path);
        population[fl] = pop;
        snprintf(tenant[fl], sizeof tenant[fl], "%s", name);
    }
    if (fscanf(f, " # floor hour presence") != 0) die("fscanf", path);
    for (int i = 0; i < NFLOOR * 24; i++) {
        int fl, h;
        float pr;
        errno = 0;
        if (fscanf(f, "%d %d %f", &fl, &h, &pr) != 3 || fl < 0 || fl >= NFLOOR || h < 0 || h > 23) die("fscanf", path);
        presence[fl][h] = pr;
    }
    if (fclose(f) != 0) die("fclose", path);
}

typedef struct { int dest; int t_arrive; int id; } pax;

typedef struct {
    double pos;                 /* floor position */
    int dir;                    /* +1, -1, 0 */
    int door_timer;             /* >0 while doors open */
    uint64_t car_calls;         /* bitmask of destination floors */
    uint64_t assigned_up, assigned_dn;
    pax load[CAPACITY];
    int nload;
    int trips;
} car;

typedef struct { pax q[MAXQ]; int n; } queue;

static car cars[NCAR];
static queue upq[NFLOOR], dnq[NFLOOR];
static int hall_up_car[NFLOOR], hall_dn_car[NFLOOR];

/* One controller event line: ISO timestamp, source, event, key=value fields. */
static void log_event(FILE *f, int day, int t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int a = fprintf(f, "2024-04-%02dT%02d:%02d:%02d ", day + 1, t / 3600, (t / 60) % 60, t % 60);
    int b = vfprintf(f, fmt, ap);
    va_end(ap);
    if (a < 0 || b < 0) die("fprintf", "controller log");
}

static double lobby_pop_total;

/* Time-of-day traffic components: up-peak, lunch, down-peak, interfloor. */
static void traffic_factors(int t, double f[5])
{
    double h = t / 3600.0;
    f[4] = (int)h;
    f[0] = exp(-0.5 * pow((h - 8.6) / 0.45, 2));
    f[1] = exp(-0.5 * pow((h - 12.5) / 0.6, 2));
    f[2] = exp(-0.5 * pow((h - 17.4) / 0.5, 2));
    f[3] = (h > 7 && h < 19) ? 0.08 : 0.005;
}

/* Arrival probability per second on a floor. */
static double arrival_rate(int fl, const double f[5])
{
    if (fl == 0) return lobby_pop_total * (f[0] + 0.5 * f[1]) / 3600.0 / 1.2;
    return population[fl] * (f[2] + 0.5 * f[1] + f[3] * presence[fl][(int)f[4]]) / 3600.0 / 1.2;
}

/* Destination: lobby arrivals go to floors by population, others mostly down to the lobby. */
static int choose_destination(int fl)
{
    int dest;
    if (fl == 0) {
        double x = urand() * lobby_pop_total, c = 0;
        dest = NFLOOR - 1;
        for (int k = 1; k < NFLOOR; k++) { c += population[k]; if (x < c) { dest = k; break; } }
    } else if (urand() < 0.8) {
        dest = 0;
    } else {
        do { dest = 1 + (int)(urand() * (NFLOOR - 1)); } while (dest == fl);
    }
    return dest;
}

/* Dispatcher: estimated time of arrival cost for each car, collective-selective rules. */
static int assign_car(int fl, int dir, int exclude)
{
    int best = 0;
    double bestc = 1e30;
    for (int c = 0; c < NCAR; c++) {
        if (c == exclude) continue;
        const car *k = &cars[c];
        double d = fl - k->pos, cost;
        if (k->dir == 0) cost = fabs(d);
        else if ((k->dir > 0 && d >= 0 && dir > 0) || (k->dir < 0 && d <= 0 && dir < 0)) cost = fabs(d);
        else cost = 2.0 * NFLOOR - fabs(d);
        cost += 4.0 * __builtin_popcountll(k->car_calls) + 2.0 * k->nload;
        if (cost < bestc) { bestc = cost; best = c; }
    }
    return best;
}

static void board_and_alight(car *k, int c, int fl, FILE *lg, int day, int t)
{
    int out = 0, in = 0;
    for (int i = 0; i < k->nload;) {
        if (k->load[i].dest == fl) { k->load[i] = k->load[--k->nload]; out++; }
        else i++;
    }
    queue *q = NULL;
    if (k->dir >= 0 && (k->assigned_up >> fl & 1)) { q = &upq[fl]; k->assigned_up &= ~(1ull << fl); hall_up_car[fl] = -1; }
    else if (k->dir <= 0 && (k->assigned_dn >> fl & 1)) { q = &dnq[fl]; k->assigned_dn &= ~(1ull << fl); hall_dn_car[fl] = -1; }
    if (q) {
        int i = 0;
        while (i < q->n && k->nload < CAPACITY) {
            pax p = q->q[i];
            k->load[k->nload++] = p;
            k->car_calls |= 1ull << p.dest;
            log_event(lg, day, t, "CAR%d CARCALL fl=%d pax=%d\n", c + 1, p.dest, p.id);
            in++;
            i++;
        }
        memmove(q->q, q->q + i, sizeof(pax) * (size_t)(q->n - i));
        q->n -= i;
    }
    k->door_timer = 3 + (in + out + 1) / 2;
    log_event(lg, day, t, "CAR%d DOOR_OPEN fl=%d out=%d in=%d load=%d\n", c + 1, fl, out, in, k->nload * 100 / CAPACITY);
    if (q && q->n > 0) {            /* car full, passengers left behind: re-register the hall call */
        int dir = (q == &upq[fl]) ? 1 : -1;
        int nc = assign_car(fl, dir, c);
        if (dir > 0) { cars[nc].assigned_up |= 1ull << fl; hall_up_car[fl] = nc; }
        else { cars[nc].assigned_dn |= 1ull << fl; hall_dn_car[fl] = nc; }
        log_event(lg, day, t, "GRP ASSIGN fl=%d dir=%s car=%d reason=overflow\n", fl, dir > 0 ? "UP" : "DN", nc + 1);
    }
}

/* One car for one second: doors, movement (0.5 floor/s), collective stopping rules. */
static void car_step(int c, FILE *lg, int day, int t)
{
    car *k = &cars[c];
    if (k->door_timer > 0) {
        if (--k->door_timer == 0) log_event(lg, day, t, "CAR%d DOOR_CLOSE fl=%d\n", c + 1, (int)lround(k->pos));
        return;
    }
    int fl = (int)lround(k->pos);
    if (fabs(k->pos - fl) < 1e-9) {
        uint64_t bit = 1ull << fl;
        uint64_t targets = k->car_calls | k->assigned_up | k->assigned_dn;
        uint64_t above = (targets & ~bit) >> fl >> 1, below = targets & (bit - 1);
        int stop_up = (k->assigned_up & bit) && (k->dir >= 0 || below == 0);
        int stop_dn = (k->assigned_dn & bit) && (k->dir <= 0 || above == 0);
        if ((k->car_calls & bit) || stop_up || stop_dn) {
            k->car_calls &= ~bit;
            if (stop_up && (k->dir == 0 || !stop_dn || above)) k->dir = 1;
            else if (stop_dn) k->dir = -1;
            board_and_alight(k, c, fl, lg, day, t);
            k->trips++;
            return;
        }
        if ((targets & ~bit) == 0) {
            if (k->dir != 0) log_event(lg, day, t, "CAR%d IDLE fl=%d\n", c + 1, fl);
            k->dir = 0;
            return;
        }
        int newdir;
        if (k->dir > 0) newdir = above ? 1 : -1;
        else if (k->dir < 0) newdir = below ? -1 : 1;
        else newdir = above ? 1 : -1;
        if (newdir != k->dir) log_event(lg, day, t, "CAR%d DEPART fl=%d dir=%s\n", c + 1, fl, newdir > 0 ? "UP" : "DN");
        k->dir = newdir;
    }
    k->pos += 0.5 * k->dir;
    if (k->pos < 0) k->pos = 0;
    if (k->pos > NFLOOR - 1) k->pos = NFLOOR - 1;
}

/* Simulate one day and write its controller log. */
static long simulate_day(int day, int *pax_id)
{
    char name[64], path[4096];
    snprintf(name, sizeof name, "group_ctl_2024-04-%02d.log", day + 1);
    FILE *lg = xfopen(name, "w", path, sizeof path);
    long npax = 0;
    for (int fl = 0; fl < NFLOOR; fl++) { upq[fl].n = dnq[fl].n = 0; hall_up_car[fl] = hall_dn_car[fl] = -1; }
    for (int c = 0; c < NCAR; c++) { memset(&cars[c], 0, sizeof cars[c]); cars[c].pos = (c * 5) % NFLOOR; }
    lobby_pop_total = 0;
    for (int k = 1; k < NFLOOR; k++) lobby_pop_total += population[k];
    for (int t = 5 * 3600; t < 22 * 3600; t++) {
        double tf[5];
        traffic_factors(t, tf);
        for (int fl = 0; fl < NFLOOR; fl++) {
            if (urand() >= arrival_rate(fl, tf)) continue;
            int dest = choose_destination(fl);
            int dir = dest > fl ? 1 : -1;
            queue *q = dir > 0 ? &upq[fl] : &dnq[fl];
            if (q->n >= MAXQ) continue;                         /* lobby overflow: walk away */
            pax p = {dest, t, (*pax_id)++};
            q->q[q->n++] = p;
            npax++;
            int *hc = dir > 0 ? &hall_up_car[fl] : &hall_dn_car[fl];
            if (*hc < 0) {
                int c = assign_car(fl, dir, -1);
                *hc = c;
                if (dir > 0) cars[c].assigned_up |= 1ull << fl; else cars[c].assigned_dn |= 1ull << fl;
                log_event(lg, day, t, "GRP HALLCALL fl=%d dir=%s pax=%d\n", fl, dir > 0 ? "UP" : "DN", p.id);
                log_event(lg, day, t, "GRP ASSIGN fl=%d dir=%s car=%d reason=eta\n", fl, dir > 0 ? "UP" : "DN", c + 1);
            } else {
                log_event(lg, day, t, "GRP HALLCALL fl=%d dir=%s pax=%d dup=1\n", fl, dir > 0 ? "UP" : "DN", p.id);
            }
        }
        for (int c = 0; c < NCAR; c++) car_step(c, lg, day, t);
        if (urand() < 2.0e-5) {
            int c = (int)(urand() * NCAR);
            const char *codes[] = {"E17_DOOR_REOPEN", "E31_LEVELLING", "E05_OVERLOAD", "E44_SAFETY_EDGE"};
            log_event(lg, day, t, "CAR%d FAULT code=%s fl=%d\n", c + 1, codes[(int)(urand() * 4)], (int)lround(cars[c].pos));
        }
    }
    if (fclose(lg) != 0) die("fclose", path);
    return npax;
}

/* ------------------------------------------------------------------ audit */

typedef struct { int t_call; int fl; int dir; int car; int served; } call_rec;

static long waits_by_hour[24][6];           /* histogram bins: <15,<30,<45,<60,<90,>=90 s */
static double wait_sum_hour[24];
static long calls_hour[24], fault_count[NCAR], dwell_hist[16];
static long band_calls[4];
static double band_wait[4];
static long floor_hour_calls[NFLOOR][24];
static double floor_hour_wait[NFLOOR][24];
typedef struct { int wait; unsigned char band, hour; } wait_rec;
static wait_rec *all_waits;
static long n_waits, cap_waits;

static int wait_bin(int w)
{
    return w < 15 ? 0 : w < 30 ? 1 : w < 45 ? 2 : w < 60 ? 3 : w < 90 ? 4 : 5;
}

/* Parse one daily log: match HALLCALL (first, non-dup) to ASSIGN and to the DOOR_OPEN of that car there. */
static long audit_day(int day, FILE *calls_csv, const char *csvpath, long *nlines)
{
    char name[64], path[4096];
    snprintf(name, sizeof name, "group_ctl_2024-04-%02d.log", day + 1);
    FILE *f = xfopen(name, "r", path, sizeof path);
    static call_rec open_up[NFLOOR], open_dn[NFLOOR];
    for (int i = 0; i < NFLOOR; i++) { open_up[i].served = open_dn[i].served = 1; }
    int door_open_t[NCAR] = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long served = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        (*nlines)++;
        int yy, mo, dd, hh, mi, ss;
        char who[16], ev[16];
        int off = 0;
        if (sscanf(line, "%d-%d-%dT%d:%d:%d %15s %15s %n", &yy, &mo, &dd, &hh, &mi, &ss, who, ev, &off) != 8) {
            fprintf(stderr, "elevator: bad log line in %s: %s", path, line);
            exit(2);
        }
        int t = hh * 3600 + mi * 60 + ss;
        const char *rest = line + off;
        if (strcmp(ev, "HALLCALL") == 0) {
            int fl, pid;
            char dir[4];
            if (sscanf(rest, "fl=%d dir=%3s pax=%d", &fl, dir, &pid) != 3) die("parse HALLCALL", path);
            if (strstr(rest, "dup=1")) continue;
            call_rec *r = dir[0] == 'U' ? &open_up[fl] : &open_dn[fl];
            if (!r->served) continue;
            *r = (call_rec){t, fl, dir[0] == 'U' ? 1 : -1, -1, 0};
        } else if (strcmp(ev, "ASSIGN") == 0) {
            int fl, c;
            char dir[4];
            if (sscanf(rest, "fl=%d dir=%3s car=%d", &fl, dir, &c) != 3) die("parse ASSIGN", path);
            call_rec *r = dir[0] == 'U' ? &open_up[fl] : &open_dn[fl];
            if (!r->served) r->car = c;
            else *r = (call_rec){t, fl, dir[0] == 'U' ? 1 : -1, c, 0};    /* overflow re-registration */
        } else if (strcmp(ev, "DOOR_OPEN") == 0) {
            int fl, out, in, load, c = atoi(who + 3) - 1;
            if (sscanf(rest, "fl=%d out=%d in=%d load=%d", &fl, &out, &in, &load) != 4) die("parse DOOR_OPEN", path);
            door_open_t[c] = t;
            call_rec *cand[2] = {&open_up[fl], &open_dn[fl]};
            for (int k = 0; k < 2; k++) {
                call_rec *r = cand[k];
                if (r->served || r->car != c + 1 || in == 0) continue;
                int w = t - r->t_call, h = r->t_call / 3600, band = fl == 0 ? 0 : 1 + (fl - 1) / 13;
                r->served = 1;
                served++;
                waits_by_hour[h][wait_bin(w)]++;
                wait_sum_hour[h] += w;
                calls_hour[h]++;
                band_calls[band]++;
                band_wait[band] += w;
                floor_hour_calls[fl][h]++;
                floor_hour_wait[fl][h] += w;
                if (n_waits == cap_waits) {
                    cap_waits = cap_waits ? 2 * cap_waits : 65536;
                    all_waits = realloc(all_waits, sizeof(wait_rec) * (size_t)cap_waits);
                    if (!all_waits) { fprintf(stderr, "elevator: out of memory\n"); exit(2); }
                }
                all_waits[n_waits++] = (wait_rec){w, (unsigned char)band, (unsigned char)h};
                if (fprintf(calls_csv, "%d,%d,%d,%s,%d,%d,%d\n", day + 1, r->t_call, fl, r->dir > 0 ? "UP" : "DN", c + 1,
                            w, in) < 0)
                    die("fprintf", csvpath);
                break;
            }
        } else if (strcmp(ev, "DOOR_CLOSE") == 0) {
            int c = atoi(who + 3) - 1, d = t - door_open_t[c];
            dwell_hist[d < 15 ? d : 15]++;
        } else if (strcmp(ev, "FAULT") == 0) {
            fault_count[atoi(who + 3) - 1]++;
        }
    }
    if (ferror(f)) die("getline", path);
    free(line);
    if (fclose(f) != 0) die("fclose", path);
    return served;
}

static void write_hourly_profile(void)
{
    char path[4096];
    FILE *f = xfopen("hourly_waits.csv", "w", path, sizeof path);
    int ok = fprintf(f, "hour,calls,mean_wait_s,lt15,lt30,lt45,lt60,lt90,ge90,pct_long\n") >= 0;
    for (int h = 0; h < 24; h++) {
        if (!calls_hour[h]) continue;
        long *b = waits_by_hour[h];
        ok = ok && fprintf(f, "%d,%ld,%.2f,%ld,%ld,%ld,%ld,%ld,%ld,%.2f\n", h, calls_hour[h],
                           wait_sum_hour[h] / calls_hour[h], b[0], b[1], b[2], b[3], b[4], b[5],
                           100.0 * (b[4] + b[5]) / calls_hour[h]) >= 0;
    }
    if (!ok || fclose(f) != 0) die("write", path);

    /* floor x hour matrix of served calls and mean waits */
    f = xfopen("floor_hour_waits.csv", "w", path, sizeof path);
    ok = fprintf(f, "floor,hour,calls,mean_wait_s\n") >= 0;
    for (int fl = 0; fl < NFLOOR; fl++)
        for (int h = 0; h < 24; h++)
            if (floor_hour_calls[fl][h])
                ok = ok && fprintf(f, "%d,%d,%ld,%.2f\n", fl, h, floor_hour_calls[fl][h],
                                   floor_hour_wait[fl][h] / floor_hour_calls[fl][h]) >= 0;
    if (!ok || fclose(f) != 0) die("write", path);
}

static int cmp_wait(const void *a, const void *b)
{
    const wait_rec *x = a, *y = b;
    if (x->band != y->band) return x->band - y->band;
    return x->wait - y->wait;
}

static void write_summary(long npax, long nlines, long nserved)
{
    char path[4096];
    FILE *f = xfopen("audit_summary.txt", "w", path, sizeof path);
    int ok = fprintf(f, "Elevator group audit: %d days, %ld passengers, %ld log lines, %ld hall calls served\n",
                     NDAYS, npax, nlines, nserved) >= 0;
    const char *bands[4] = {"lobby", "low rise 1-13", "mid rise 14-26", "high rise 27-39"};
    qsort(all_waits, (size_t)n_waits, sizeof(wait_rec), cmp_wait);
    long first = 0;
    for (int b = 0; b < 4; b++) {
        long n = band_calls[b];
        const wait_rec *w = all_waits + first;
        ok = ok && fprintf(f, "  %-16s calls %7ld  mean wait %6.2f s  p50 %4d  p90 %4d  p99 %4d  max %4d s\n", bands[b], n,
                           n ? band_wait[b] / n : 0.0, n ? w[n / 2].wait : 0, n ? w[n * 9 / 10].wait : 0,
                           n ? w[n * 99 / 100].wait : 0, n ? w[n - 1].wait : 0) >= 0;
        first += n;
    }
    ok = ok && fprintf(f, "door dwell histogram (s):") >= 0;
    for (int d = 0; d < 16; d++) ok = ok && fprintf(f, " %ld", dwell_hist[d]) >= 0;
    ok = ok && fprintf(f, "\nfaults per car:") >= 0;
    for (int c = 0; c < NCAR; c++) ok = ok && fprintf(f, " CAR%d=%ld", c + 1, fault_count[c]) >= 0;
    ok = ok && fprintf(f, "\nbusiest floors:") >= 0;
    for (int fl = 1; fl < NFLOOR; fl += 6)
        ok = ok && fprintf(f, " %d(%s,%d)", fl, tenant[fl], population[fl]) >= 0;
    ok = ok && fprintf(f, "\n") >= 0;
    if (!ok || fclose(f) != 0) die("write", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    write_building_table();
    read_building_table();
    int pax_id = 0;
    long npax = 0;
    for (int d = 0; d < NDAYS; d++) npax += simulate_day(d, &pax_id);

    char csvpath[4096];
    FILE *calls = xfopen("served_calls.csv", "w", csvpath, sizeof csvpath);
    if (fprintf(calls, "day,t_call,floor,dir,car,wait_s,boarded\n") < 0) die("fprintf", csvpath);
    long nlines = 0, nserved = 0;
    for (int d = 0; d < NDAYS; d++) nserved += audit_day(d, calls, csvpath, &nlines);
    if (fclose(calls) != 0) die("fclose", csvpath);
    write_hourly_profile();
    write_summary(npax, nlines, nserved);
    double tw = 0;
    long tc = 0;
    for (int h = 0; h < 24; h++) { tw += wait_sum_hour[h]; tc += calls_hour[h]; }
    free(all_waits);
    printf("elevator: %ld passengers, %ld log lines, %ld calls served, mean wait %.1f s\n", npax, nlines, nserved,
           tc ? tw / tc : 0.0);
    return 0;
}
