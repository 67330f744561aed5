/*
 * bikeshare_trip_od_stats.c
 *
 * A year of a city bike-share system.  The first phase simulates docked
 * bikes moving between stations (time-varying Poisson demand, gravity
 * destination model, per-bike chains, nightly truck rebalancing) and
 * writes the trip log as twelve monthly binary files of fixed 32-byte
 * records.  Everything after that is read-mostly analysis of those
 * files: hour-of-week station profiles, an origin-destination matrix with
 * speeds, a per-bike chain audit that finds rebalancing moves (radix sort
 * of all trips by bike and time), and duration statistics by rider type,
 * ending in a small text report and two CSV tables.
 *
 * usage: bikeshare_trip_od_stats OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSTATION     560
#define NBIKE        9000
#define DOCKS        18
#define YEAR_DAYS    365
#define TRIPS_PER_DAY_BASE 9500.0
#define TRIP_MAGIC   0x50495254454b4942ULL   /* "BIKETRIP" */
#define CHUNK_RECS   4096

typedef struct {
    uint32_t trip_id;
    uint32_t t_start;      /* seconds since 1 Jan 00:00 */
    uint32_t duration;     /* s */
    uint32_t bike;
    uint16_t from, to;
    uint32_t dist_m;
    uint8_t member, ebike;
    uint16_t fare_cents;
    uint32_t check;        /* xor-fold of the other fields */
} trip_t;

typedef struct {
    uint64_t magic;
    uint32_t month, version;
    uint64_t count;
    uint8_t pad[40];
} month_header_t;

typedef struct { uint32_t t; uint32_t bike; uint16_t station; } arrival_t;

static const char *g_dir;
static uint64_t g_rng = 0x2545F4914F6CDD1DULL;
static double st_x[NSTATION], st_y[NSTATION], w_home[NSTATION], w_work[NSTATION];
static double *cum_am, *cum_pm;            /* [NSTATION][NSTATION] destination CDFs */
static double cum_orig_am[NSTATION], cum_orig_pm[NSTATION], cum_orig_off[NSTATION];
static int32_t dock_head[NSTATION], dock_count[NSTATION], bike_next[NBIKE];
static arrival_t heap[NBIKE];
static int heap_n;
static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "bikeshare_trip_od_stats: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static uint64_t rng64(void)
{
    uint64_t x = g_rng;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    g_rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static double runif(void) { return (double)(rng64() >> 11) * 0x1.0p-53; }

static double rnorm(void)
{
    double u = runif(), v = runif();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static uint32_t trip_check(const trip_t *t)
{
    return t->trip_id ^ (t->t_start * 2654435761u) ^ t->duration ^ (t->bike << 7) ^
           ((uint32_t)t->from << 16 | t->to) ^ t->dist_m ^ ((uint32_t)t->member << 24) ^
           ((uint32_t)t->ebike << 25) ^ t->fare_cents;
}

static double station_dist(int a, int b) { return hypot(st_x[a] - st_x[b], st_y[a] - st_y[b]); }

static int pick_cdf(const double *cdf, int n)
{
    double u = runif() * cdf[n - 1];
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] < u) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Stations: dense downtown core plus residential rings; gravity CDFs. */
static void build_city(void)
{
    for (int s = 0; s < NSTATION; s++) {
        double r, a = 6.283185307179586 * runif();
        if (s < NSTATION / 4) r = 1200.0 * sqrt(runif());
        else r = 1200.0 + 4800.0 * sqrt(runif());
        st_x[s] = r * cos(a);
        st_y[s] = r * sin(a) * 0.8;
        double pop = exp(0.8 * rnorm());
        w_work[s] = pop * (r < 1500 ? 6.0 : 0.6);
        w_home[s] = pop * (r < 1500 ? 1.0 : 2.0);
    }
    cum_am = malloc(sizeof(double) * NSTATION * NSTATION);
    cum_pm = malloc(sizeof(double) * NSTATION * NSTATION);
    if (!cum_am || !cum_pm) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int i = 0; i < NSTATION; i++) {
        double sa = 0, sp = 0;
        for (int j = 0; j < NSTATION; j++) {
            double d = station_dist(i, j);
            double deter = exp(-d / 2200.0) * (j == i ? 0.15 : 1.0);
            sa += w_work[j] * deter;
            sp += w_home[j] * deter;
            cum_am[i * NSTATION + j] = sa;
            cum_pm[i * NSTATION + j] = sp;
        }
    }
    double a = 0, p = 0, o = 0;
    for (int s = 0; s < NSTATION; s++) {
        a += w_home[s]; p += w_work[s]; o += 0.5 * (w_home[s] + w_work[s]);
        cum_orig_am[s] = a; cum_orig_pm[s] = p; cum_orig_off[s] = o;
    }
    /* place bikes: round-robin, weighted towards large stations */
    for (int s = 0; s < NSTATION; s++) { dock_head[s] = -1; dock_count[s] = 0; }
    for (int b = 0; b < NBIKE; b++) {
        int s = pick_cdf(cum_orig_off, NSTATION);
        bike_next[b] = dock_head[s]; dock_head[s] = b; dock_count[s]++;
    }
}

static void heap_push(arrival_t a)
{
    int i = heap_n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (heap[p].t <= a.t) break;
        heap[i] = heap[p]; i = p;
    }
    heap[i] = a;
}

static arrival_t heap_pop(void)
{
    arrival_t top = heap[0], last = heap[--heap_n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= heap_n) break;
        if (c + 1 < heap_n && heap[c + 1].t < heap[c].t) c++;
        if (heap[c].t >= last.t) break;
        heap[i] = heap[c]; i = c;
    }
    heap[i] = last;
    return top;
}

static void dock_bike(int b, int s)
{
    bike_next[b] = dock_head[s]; dock_head[s] = b; dock_count[s]++;
}

static int undock_bike(int s)
{
    int b = dock_head[s];
    if (b < 0) return -1;
    dock_head[s] = bike_next[b]; dock_count[s]--;
    return b;
}

static void process_arrivals(uint32_t t)
{
    while (heap_n > 0 && heap[0].t <= t) {
        arrival_t a = heap_pop();
        dock_bike((int)a.bike, a.station);
    }
}

/* Night truck: move bikes from overfull to near-empty stations. */
static int rebalance(void)
{
    int moved = 0;
    for (int pass = 0; pass < 4; pass++) {
        int hi = -1, lo = -1;
        for (int s = 0; s < NSTATION; s++) {
            if (hi < 0 || dock_count[s] > dock_count[hi]) hi = s;
            if (lo < 0 || dock_count[s] < dock_count[lo]) lo = s;
        }
        while (dock_count[hi] > DOCKS + 4 && dock_count[lo] < DOCKS / 3) {
            int b = undock_bike(hi);
            dock_bike(b, lo);
            moved++;
        }
        if (dock_count[hi] <= DOCKS) break;
    }
    return moved;
}

/* Hourly demand multiplier: weekday double peak, weekend afternoon hump, seasons. */
static double demand_rate(int day, int hour)
{
    int dow = (day + 6) % 7;            /* 1 Jan is a Sunday */
    double season = 0.55 + 0.45 * sin(6.283185307179586 * (day - 100) / 365.0 + 0.3);
    double h = hour + 0.5, prof;
    if (dow >= 1 && dow <= 5)
        prof = 0.15 + 2.6 * exp(-pow((h - 8.3) / 1.1, 2)) + 2.2 * exp(-pow((h - 17.6) / 1.4, 2)) +
               0.6 * exp(-pow((h - 12.5) / 2.0, 2));
    else
        prof = 0.1 + 1.4 * exp(-pow((h - 14.5) / 3.5, 2));
    if (hour < 5) prof *= 0.3;
    return TRIPS_PER_DAY_BASE / 24.0 * season * prof / 1.1;
}

static FILE *open_month(int m, char *path, size_t cap)
{
    snprintf(path, cap, "%s/trips_m%02d.bin", g_dir, m + 1);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    month_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = TRIP_MAGIC; h.month = (uint32_t)m + 1; h.version = 1;
    if (fwrite(&h, sizeof h, 1, f) != 1) die("fwrite", path);
    return f;
}

static void close_month(FILE *f, const char *path, int m, uint64_t count)
{
    month_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = TRIP_MAGIC; h.month = (uint32_t)m + 1; h.version = 1; h.count = count;
    if (fseek(f, 0, SEEK_SET) != 0) die("fseek", path);
    if (fwrite(&h, sizeof h, 1, f) != 1) die("fwrite", path);
    if (fclose(f) != 0) die("fclose", path);
}

/* Phase 1: simulate the year and write the monthly trip files. */
static uint64_t simulate_year(uint64_t *unmet, uint64_t *truck_moves)
{
    static trip_t buf[CHUNK_RECS];
    int nbuf = 0;
    uint64_t total = 0, month_count = 0;
    char path[1024];
    int month = 0, mday = 0;
    FILE *f = open_month(0, path, sizeof path);
    *unmet = 0; *truck_moves = 0;
    for (int day = 0; day < YEAR_DAYS; day++) {
        if (mday == mdays[month]) {
            if (nbuf && fwrite(buf, sizeof(trip_t), (size_t)nbuf, f) != (size_t)nbuf) die("fwrite", path);
            nbuf = 0;
            close_month(f, path, month, month_count);
            month++; mday = 0; month_count = 0;
            f = open_month(month, path, sizeof path);
        }
        mday++;
        for (int hour = 0; hour < 24; hour++) {
            uint32_t t0 = (uint32_t)(day * 86400 + hour * 3600);
            if (hour == 2) { process_arrivals(t0); *truck_moves += (uint64_t)rebalance(); }
            double lam = demand_rate(day, hour) / 3600.0;
            double t = t0 - log(1.0 - runif()) / lam;
            const double *ocdf = hour < 11 ? cum_orig_am : hour >= 15 && hour < 20 ? cum_orig_pm : cum_orig_off;
            const double *dcdf = hour < 11 ? cum_am : cum_pm;
            while (t < t0 + 3600) {
                uint32_t ts = (uint32_t)t;
                process_arrivals(ts);
                int s0 = pick_cdf(ocdf, NSTATION);
                int b = undock_bike(s0);
                if (b < 0) { (*unmet)++; t += -log(1.0 - runif()) / lam; continue; }
                int member = runif() < (hour >= 6 && hour <= 19 ? 0.72 : 0.5);
                int ebike = (b % 5) == 0;
                int s1 = pick_cdf(dcdf + (size_t)s0 * NSTATION, NSTATION);
                double d = station_dist(s0, s1) * 1.28;
                double dur;
                if (s1 == s0) {
                    d = 800.0 + 3000.0 * runif();
                    dur = 600.0 + 1800.0 * exp(0.5 * rnorm());
                } else {
                    double v = (member ? 4.3 : 3.3) * (ebike ? 1.35 : 1.0);
                    dur = 45.0 + d / v * exp(0.22 * rnorm());
                }
                trip_t *tr = &buf[nbuf++];
                tr->trip_id = (uint32_t)total;
                tr->t_start = ts;
                tr->duration = (uint32_t)dur;
                tr->bike = (uint32_t)b;
                tr->from = (uint16_t)s0; tr->to = (uint16_t)s1;
                tr->dist_m = (uint32_t)d;
                tr->member = (uint8_t)member; tr->ebike = (uint8_t)ebike;
                double fare = member ? (dur > 2700 ? 15.0 * ceil((dur - 2700) / 900.0) : 0.0)
                                     : 100.0 + 15.0 * ceil(dur / 60.0);
                if (ebike) fare += 10.0 * ceil(dur / 60.0);
                tr->fare_cents = (uint16_t)(fare > 65535 ? 65535 : fare);
                tr->check = trip_check(tr);
                arrival_t a = { ts + tr->duration, (uint32_t)b, (uint16_t)s1 };
                heap_push(a);
                total++; month_count++;
                if (nbuf == CHUNK_RECS) {
                    if (fwrite(buf, sizeof(trip_t), CHUNK_RECS, f) != CHUNK_RECS) die("fwrite", path);
                    nbuf = 0;
                }
                t += -log(1.0 - runif()) / lam;
            }
        }
    }
    if (nbuf && fwrite(buf, sizeof(trip_t), (size_t)nbuf, f) != (size_t)nbuf) die("fwrite", path);
    close_month(f, path, month, month_count);
    return total;
}

/* Generic reader: calls fn on each chunk of every monthly file. */
typedef void (*chunk_fn)(const trip_t *t, size_t n, void *ctx);

static uint64_t scan_trips(chunk_fn fn, void *ctx)
{
    static trip_t buf[CHUNK_RECS];
    uint64_t seen = 0;
    char path[1024];
    for (int m = 0; m < 12; m++) {
        snprintf(path, sizeof path, "%s/trips_m%02d.bin", g_dir, m + 1);
        FILE *f = fopen(path, "rb");
        if (!f) die("fopen", path);
        month_header_t h;
        if (fread(&h, sizeof h, 1, f) != 1) die("fread", path);
        if (h.magic != TRIP_MAGIC || h.month != (uint32_t)m + 1) {
            fprintf(stderr, "%s: bad header\n", path);
            exit(1);
        }
        uint64_t left = h.count;
        while (left > 0) {
            size_t want = left < CHUNK_RECS ? (size_t)left : CHUNK_RECS;
            size_t got = fread(buf, sizeof(trip_t), want, f);
            if (got != want) die("fread (short)", path);
            fn(buf, got, ctx);
            left -= got; seen += got;
        }
        if (fclose(f) != 0) die("fclose", path);
    }
    return seen;
}

/* Pass A: hour-of-week departures and arrivals per station. */
typedef struct { uint32_t dep[NSTATION][168], arr[NSTATION][168]; uint64_t bad; } profile_ctx;

static void profile_chunk(const trip_t *t, size_t n, void *vctx)
{
    profile_ctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        if (trip_check(&t[i]) != t[i].check) { c->bad++; continue; }
        uint32_t d = t[i].t_start / 86400, how = ((d + 6) % 7) * 24 + (t[i].t_start % 86400) / 3600;
        uint32_t te = t[i].t_start + t[i].duration;
        uint32_t de = te / 86400, howe = ((de + 6) % 7) * 24 + (te % 86400) / 3600;
        c->dep[t[i].from][how]++;
        c->arr[t[i].to][howe]++;
    }
}

static void station_profiles(profile_ctx *pc, double *peak_imbalance, int *worst)
{
    memset(pc, 0, sizeof *pc);
    scan_trips(profile_chunk, pc);
    char path[1024];
    snprintf(path, sizeof path, "%s/station_hour_of_week.csv", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "station,x_m,y_m,how,departures,arrivals,net\n") < 0) die("fprintf", path);
    *peak_imbalance = 0; *worst = 0;
    for (int s = 0; s < NSTATION; s++) {
        double cum = 0, lo = 0, hi = 0;
        for (int h = 0; h < 168; h++) {
            int net = (int)pc->arr[s][h] - (int)pc->dep[s][h];
            cum += net / 52.0;
            if (cum < lo) lo = cum;
            if (cum > hi) hi = cum;
            if (fprintf(f, "%d,%.0f,%.0f,%d,%u,%u,%d\n", s, st_x[s], st_y[s], h, pc->dep[s][h],
                        pc->arr[s][h], net) < 0)
                die("fprintf", path);
        }
        if (hi - lo > *peak_imbalance) { *peak_imbalance = hi - lo; *worst = s; }
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Pass B: origin-destination counts, mean duration and speed. */
typedef struct { uint32_t *cnt; float *dur_sum; double speed_sum[2][2]; uint64_t speed_n[2][2]; } od_ctx;

static void od_chunk(const trip_t *t, size_t n, void *vctx)
{
    od_ctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)t[i].from * NSTATION + t[i].to;
        c->cnt[k]++;
        c->dur_sum[k] += (float)t[i].duration;
        if (t[i].from != t[i].to && t[i].duration > 60) {
            c->speed_sum[t[i].member][t[i].ebike] += t[i].dist_m / (double)t[i].duration;
            c->speed_n[t[i].member][t[i].ebike]++;
        }
    }
}

static void od_matrix(od_ctx *oc)
{
    oc->cnt = calloc((size_t)NSTATION * NSTATION, sizeof(uint32_t));
    oc->dur_sum = calloc((size_t)NSTATION * NSTATION, sizeof(float));
    if (!oc->cnt || !oc->dur_sum) { fprintf(stderr, "out of memory\n"); exit(1); }
    memset(oc->speed_sum, 0, sizeof oc->speed_sum);
    memset(oc->speed_n, 0, sizeof oc->speed_n);
    scan_trips(od_chunk, oc);
    /* top 200 OD pairs by partial selection */
    enum { TOP = 200 };
    uint32_t top_k[TOP];
    int ntop = 0;
    for (uint32_t k = 0; k < (uint32_t)(NSTATION * NSTATION); k++) {
        if (ntop < TOP) { top_k[ntop++] = k; }
        else {
            int mi = 0;
            for (int j = 1; j < TOP; j++) if (oc->cnt[top_k[j]] < oc->cnt[top_k[mi]]) mi = j;
            if (oc->cnt[k] > oc->cnt[top_k[mi]]) top_k[mi] = k;
        }
    }
    for (int a = 1; a < ntop; a++) {
        uint32_t v = top_k[a];
        int b = a - 1;
        while (b >= 0 && (oc->cnt[top_k[b]] < oc->cnt[v] ||
                          (oc->cnt[top_k[b]] == oc->cnt[v] && top_k[b] > v))) {
            top_k[b + 1] = top_k[b]; b--;
        }
        top_k[b + 1] = v;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/od_top.csv", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "rank,from,to,trips,mean_duration_s,straight_m\n") < 0) die("fprintf", path);
    for (int r = 0; r < ntop; r++) {
        uint32_t k = top_k[r];
        int i = (int)(k / NSTATION), j = (int)(k % NSTATION);
        if (fprintf(f, "%d,%d,%d,%u,%.1f,%.0f\n", r + 1, i, j, oc->cnt[k],
                    oc->cnt[k] ? oc->dur_sum[k] / oc->cnt[k] : 0.0, station_dist(i, j)) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

/* Pass C: per-bike chain audit.  Trips are radix-sorted by (bike, start). */
typedef struct { uint64_t *key; uint32_t *ends; uint64_t n; } chain_ctx;

static void chain_chunk(const trip_t *t, size_t n, void *vctx)
{
    chain_ctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        c->key[c->n] = ((uint64_t)t[i].bike << 32) | t[i].t_start;
        c->ends[c->n] = ((uint32_t)t[i].from << 16) | t[i].to;
        c->n++;
    }
}

static void radix_sort_pairs(uint64_t *key, uint32_t *val, uint64_t n)
{
    uint64_t *k2 = malloc(n * sizeof(uint64_t));
    uint32_t *v2 = malloc(n * sizeof(uint32_t));
    if (!k2 || !v2) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int pass = 0; pass < 6; pass++) {      /* 48 significant bits, 8 per pass */
        int sh = pass < 4 ? 8 * pass : 32 + 8 * (pass - 4);
        uint64_t cnt[257] = {0};
        for (uint64_t i = 0; i < n; i++) cnt[((key[i] >> sh) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (uint64_t i = 0; i < n; i++) {
            uint64_t d = cnt[(key[i] >> sh) & 0xff]++;
            k2[d] = key[i]; v2[d] = val[i];
        }
        memcpy(key, k2, n * sizeof(uint64_t));
        memcpy(val, v2, n * sizeof(uint32_t));
    }
    free(k2); free(v2);
}

static uint64_t bike_chain_audit(uint64_t ntrips, uint32_t *bike_trips_max)
{
    chain_ctx c;
    c.key = malloc(ntrips * sizeof(uint64_t));
    c.ends = malloc(ntrips * sizeof(uint32_t));
    c.n = 0;
    if (!c.key || !c.ends) { fprintf(stderr, "out of memory\n"); exit(1); }
    scan_trips(chain_chunk, &c);
    radix_sort_pairs(c.key, c.ends, c.n);
    uint64_t breaks = 0;
    uint32_t run = 0;
    *bike_trips_max = 0;
    for (uint64_t i = 0; i < c.n; i++) {
        if (i > 0 && (c.key[i] >> 32) == (c.key[i - 1] >> 32)) {
            run++;
            if ((c.ends[i - 1] & 0xffff) != (c.ends[i] >> 16)) breaks++;
        } else {
            run = 1;
        }
        if (run > *bike_trips_max) *bike_trips_max = run;
    }
    free(c.key); free(c.ends);
    return breaks;
}

/* Pass D: duration distribution by rider type with raw read(2) of each file. */
typedef struct { uint32_t hist[2][240]; double lsum[2], lsum2[2]; uint64_t n[2]; double revenue; } dur_ctx;

static void duration_stats(dur_ctx *dc)
{
    memset(dc, 0, sizeof *dc);
    static trip_t buf[CHUNK_RECS];
    char path[1024];
    for (int m = 0; m < 12; m++) {
        snprintf(path, sizeof path, "%s/trips_m%02d.bin", g_dir, m + 1);
        int fd = open(path, O_RDONLY);
        if (fd < 0) die("open", path);
        month_header_t h;
        if (read(fd, &h, sizeof h) != (ssize_t)sizeof h) die("read", path);
        uint64_t left = h.count * sizeof(trip_t);
        while (left > 0) {
            size_t want = left < sizeof buf ? (size_t)left : sizeof buf;
            ssize_t got = read(fd, buf, want);
            if (got < 0) { if (errno == EINTR) continue; die("read", path); }
            if (got == 0 || got % (ssize_t)sizeof(trip_t) != 0) {
                fprintf(stderr, "%s: truncated\n", path);
                exit(1);
            }
            size_t n = (size_t)got / sizeof(trip_t);
            for (size_t i = 0; i < n; i++) {
                int mb = buf[i].member;
                uint32_t minutes = buf[i].duration / 60;
                dc->hist[mb][minutes < 239 ? minutes : 239]++;
                double l = log((double)buf[i].duration);
                dc->lsum[mb] += l; dc->lsum2[mb] += l * l; dc->n[mb]++;
                dc->revenue += buf[i].fare_cents / 100.0;
            }
            left -= (uint64_t)got;
        }
        if (close(fd) != 0) die("close", path);
    }
}

static double hist_quantile(const uint32_t *h, int nb, uint64_t total, double q)
{
    uint64_t target = (uint64_t)(q * total), acc = 0;
    for (int b = 0; b < nb; b++) {
        acc += h[b];
        if (acc > target) return b + 0.5;
    }
    return nb;
}

static void write_report(uint64_t ntrips, uint64_t unmet, uint64_t truck, const profile_ctx *pc,
                         double imb, int worst, const od_ctx *oc, uint64_t breaks,
                         uint32_t maxrun, const dur_ctx *dc)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/report.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    int ok = 1;
    ok &= fprintf(f, "Bike-share annual report\n========================\n") > 0;
    ok &= fprintf(f, "trips %llu  unmet demand %llu  truck moves %llu  bad records %llu\n",
                  (unsigned long long)ntrips, (unsigned long long)unmet,
                  (unsigned long long)truck, (unsigned long long)pc->bad) > 0;
    ok &= fprintf(f, "chain breaks found by audit %llu  busiest bike %u trips\n",
                  (unsigned long long)breaks, maxrun) > 0;
    ok &= fprintf(f, "largest weekly dock swing: station %d (%.1f bikes)\n", worst, imb) > 0;
    const char *who[2] = {"casual", "member"};
    for (int m = 0; m < 2; m++) {
        double mu = dc->lsum[m] / dc->n[m];
        double sd = sqrt(fmax(0.0, dc->lsum2[m] / dc->n[m] - mu * mu));
        ok &= fprintf(f, "%-7s trips %8llu  median %5.1f min  p90 %5.1f min  lognormal mu %.3f sd %.3f\n",
                      who[m], (unsigned long long)dc->n[m],
                      hist_quantile(dc->hist[m], 240, dc->n[m], 0.5),
                      hist_quantile(dc->hist[m], 240, dc->n[m], 0.9), mu, sd) > 0;
        for (int e = 0; e < 2; e++)
            ok &= fprintf(f, "        %s mean speed %.2f m/s\n", e ? "e-bike " : "classic",
                          oc->speed_n[m][e] ? oc->speed_sum[m][e] / oc->speed_n[m][e] : 0.0) > 0;
    }
    ok &= fprintf(f, "fare revenue %.2f\n", dc->revenue) > 0;
    if (!ok) die("fprintf", path);
    if (fclose(f) != 0) die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    build_city();
    uint64_t unmet, truck;
    uint64_t ntrips = simulate_year(&unmet, &truck);

    static profile_ctx pc;
    double imb;
    int worst;
    station_profiles(&pc, &imb, &worst);
    od_ctx oc;
    od_matrix(&oc);
    uint32_t maxrun;
    uint64_t breaks = bike_chain_audit(ntrips, &maxrun);
    static dur_ctx dc;
    duration_stats(&dc);
    write_report(ntrips, unmet, truck, &pc, imb, worst, &oc, breaks, maxrun, &dc);

    printf("bikeshare_trip_od_stats: %llu trips in 12 monthly files, %llu unmet requests\n",
           (unsigned long long)ntrips, (unsigned long long)unmet);
    printf("  truck moves %llu, chain breaks %llu, corrupt records %llu\n",
           (unsigned long long)truck, (unsigned long long)breaks, (unsigned long long)pc.bad);
    printf("  members %llu casual %llu revenue %.2f\n", (unsigned long long)dc.n[1],
           (unsigned long long)dc.n[0], dc.revenue);
    free(oc.cnt); free(oc.dur_sum); free(cum_am); free(cum_pm);
    return 0;
}
