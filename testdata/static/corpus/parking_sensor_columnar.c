/* parking_sensor_columnar.c
 * On-street parking sensor analytics on a small home-made columnar file.
 *
 * A month of magnetometer bay sensor events (arrival/departure, battery,
 * radio RSSI) for a city district is simulated, sorted by time and stored in
 * "events.col": a header, row groups whose columns are separate contiguous
 * chunks written with pwrite at computed offsets, and a footer directory with
 * per-row-group min/max statistics; the header is patched last with the
 * footer offset.  Analyses then use pread only:
 *   - hourly occupancy of one zone for one week (row groups skipped by
 *     min/max time statistics, only three columns read),
 *   - parking dwell-time distribution (full scan of three columns),
 *   - low-battery sensor list (battery + bay columns only),
 *   - de-flapping: state chunks are read, glitches from faulty sensors are
 *     removed and the corrected chunks are rewritten in place with pwrite,
 *   - a per-bay row index file is built (bucketed, one pwrite per bay) and
 *     random bays are looked up and cross-checked with small preads.
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

#define NBAYS      2400
#define NZONES     24
#define DAYS       30
#define RG_ROWS    65536
#define MAXEV      1600000
#define MAGIC      0x4C4F43504B524150ULL   /* "PARKCOL" */

typedef struct {
    int64_t ts;          /* seconds since start of month */
    uint16_t bay;
    uint8_t state;       /* 1 = occupied, 0 = free */
    uint16_t batt_mv;
    int8_t rssi;
} event;

typedef struct {
    uint64_t off_ts, off_bay, off_state, off_batt, off_rssi;
    uint32_t nrows, pad;
    int64_t ts_min, ts_max;
    uint16_t bay_min, bay_max, pad2[2];
} rg_meta;

typedef struct {
    uint64_t magic, footer_off, nrows;
    uint32_t nrg, version;
} file_header;

static event *ev;
static size_t nev;
static rg_meta rgs[64];
static uint32_t nrg;
static uint64_t rng = 0x7a11ba5eULL;
static int faulty[NBAYS];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "parking_sensor_columnar: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static void pwrite_full(int fd, const void *buf, size_t len, off_t off, const char *path)
{
    const char *p = buf;
    while (len) {
        ssize_t w = pwrite(fd, p, len, off);
        if (w < 0) { if (errno == EINTR) continue; die("pwrite", path); }
        p += w; len -= (size_t)w; off += w;
    }
}

static void pread_full(int fd, void *buf, size_t len, off_t off, const char *path)
{
    char *p = buf;
    while (len) {
        ssize_t r = pread(fd, p, len, off);
        if (r < 0) { if (errno == EINTR) continue; die("pread", path); }
        if (r == 0) { errno = EIO; die("short pread", path); }
        p += r; len -= (size_t)r; off += r;
    }
}

/* demand depends on zone (shopping, residential, office) and time of day */
static double arrival_rate(int zone, int64_t t)
{
    double h = (double)(t % 86400) / 3600.0;
    int dow = (int)(t / 86400) % 7;
    double base = zone % 3 == 0 ? (h > 9 && h < 20 ? 1.6 : 0.2)
                : zone % 3 == 1 ? (h > 17 || h < 8 ? 0.5 : 0.3)
                : (h > 7 && h < 18 && dow < 5 ? 1.2 : 0.1);
    return base / 3600.0;    /* per second */
}

static void simulate_sensors(void)
{
    nev = 0;
    for (int b = 0; b < NBAYS; b++) {
        int zone = b / (NBAYS / NZONES);
        faulty[b] = urand() < 0.03;
        double batt = 3600.0 - 100.0 * urand();
        int64_t t = (int64_t)(urand() * 3600);
        int occ = 0;
        while (t < DAYS * 86400LL && nev + 4 < MAXEV) {
            if (!occ) {
                /* thinning of a non-homogeneous Poisson process */
                double lmax = 1.6 / 3600.0;
                t += (int64_t)(-log(urand() + 1e-12) / lmax) + 1;
                if (urand() > arrival_rate(zone, t) / lmax) continue;
                occ = 1;
            } else {
                double stay = zone % 3 == 1 ? 3600.0 * (1 + 10 * urand()) : 600.0 + 5400.0 * urand() * urand();
                t += (int64_t)stay;
                occ = 0;
            }
            if (t >= DAYS * 86400LL) break;
            batt -= 0.15 + (faulty[b] ? 0.9 : 0.0);   /* mV per radio transmission */
            ev[nev++] = (event){ t, (uint16_t)b, (uint8_t)occ, (uint16_t)batt, (int8_t)(-60 - (int)(30 * urand())) };
            if (faulty[b] && urand() < 0.3) {    /* flapping glitch: spurious toggle pair */
                ev[nev++] = (event){ t + 2, (uint16_t)b, (uint8_t)!occ, (uint16_t)batt, -95 };
                ev[nev++] = (event){ t + 9, (uint16_t)b, (uint8_t)occ, (uint16_t)batt, -95 };
            }
        }
    }
}

static int cmp_event(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (int)x->bay - (int)y->bay;
}

static void write_columnar(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    file_header h = { MAGIC, 0, nev, 0, 1 };
    pwrite_full(fd, &h, sizeof h, 0, path);
    off_t off = 4096;
    int64_t *ts = malloc(sizeof(int64_t) * RG_ROWS);
    uint16_t *bay = malloc(sizeof(uint16_t) * RG_ROWS), *batt = malloc(sizeof(uint16_t) * RG_ROWS);
    uint8_t *st = malloc(RG_ROWS);
    int8_t *rs = malloc(RG_ROWS);
    if (!ts || !bay || !batt || !st || !rs) die("malloc", "");
    nrg = 0;
    for (size_t r0 = 0; r0 < nev; r0 += RG_ROWS) {
        uint32_t n = (uint32_t)(nev - r0 < RG_ROWS ? nev - r0 : RG_ROWS);
        rg_meta *m = &rgs[nrg++];
        memset(m, 0, sizeof *m);
        m->nrows = n;
        m->ts_min = INT64_MAX; m->ts_max = INT64_MIN; m->bay_min = UINT16_MAX; m->bay_max = 0;
        for (uint32_t i = 0; i < n; i++) {
            const event *e = &ev[r0 + i];
            ts[i] = e->ts; bay[i] = e->bay; st[i] = e->state; batt[i] = e->batt_mv; rs[i] = e->rssi;
            if (e->ts < m->ts_min) m->ts_min = e->ts;
            if (e->ts > m->ts_max) m->ts_max = e->ts;
            if (e->bay < m->bay_min) m->bay_min = e->bay;
            if (e->bay > m->bay_max) m->bay_max = e->bay;
        }
        m->off_ts = (uint64_t)off;    pwrite_full(fd, ts, sizeof(int64_t) * n, off, path);   off += sizeof(int64_t) * n;
        m->off_bay = (uint64_t)off;   pwrite_full(fd, bay, sizeof(uint16_t) * n, off, path); off += sizeof(uint16_t) * n;
        m->off_state = (uint64_t)off; pwrite_full(fd, st, n, off, path);                      off += n;
        m->off_batt = (uint64_t)off;  pwrite_full(fd, batt, sizeof(uint16_t) * n, off, path); off += sizeof(uint16_t) * n;
        m->off_rssi = (uint64_t)off;  pwrite_full(fd, rs, n, off, path);                      off += n;
        off = (off + 4095) & ~(off_t)4095;     /* align row groups to pages */
    }
    h.footer_off = (uint64_t)off;
    h.nrg = nrg;
    pwrite_full(fd, rgs, sizeof(rg_meta) * nrg, off, path);
    pwrite_full(fd, &h, sizeof h, 0, path);        /* commit: header now points at the footer */
    if (fsync(fd) != 0) die("fsync", path);
    if (close(fd) != 0) die("close", path);
    free(ts); free(bay); free(batt); free(st); free(rs);
}

static int open_columnar(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0) die("open", path);
    file_header h;
    pread_full(fd, &h, sizeof h, 0, path);
    if (h.magic != MAGIC || h.nrg > 64) { errno = EINVAL; die("bad header", path); }
    nrg = h.nrg;
    pread_full(fd, rgs, sizeof(rg_meta) * nrg, (off_t)h.footer_off, path);
    return fd;
}

static void hourly_occupancy(int fd, const char *path, int zone, int day0, FILE *rep)
{
    int64_t t0 = day0 * 86400LL, t1 = t0 + 7 * 86400LL;
    int b0 = zone * (NBAYS / NZONES), b1 = b0 + NBAYS / NZONES;
    static uint8_t occ[NBAYS];
    static int64_t since[NBAYS];
    static double occ_sec[7 * 24];
    memset(occ, 0, sizeof occ);
    memset(occ_sec, 0, sizeof occ_sec);
    int64_t *ts = malloc(sizeof(int64_t) * RG_ROWS);
    uint16_t *bay = malloc(sizeof(uint16_t) * RG_ROWS);
    uint8_t *st = malloc(RG_ROWS);
    int skipped = 0;
    for (uint32_t g = 0; g < nrg; g++) {
        rg_meta *m = &rgs[g];
        if (m->ts_max < t0 || m->ts_min >= t1 || m->bay_max < b0 || m->bay_min >= b1) { skipped++; continue; }
        pread_full(fd, ts, sizeof(int64_t) * m->nrows, (off_t)m->off_ts, path);
        pread_full(fd, bay, sizeof(uint16_t) * m->nrows, (off_t)m->off_bay, path);
        pread_full(fd, st, m->nrows, (off_t)m->off_state, path);
        for (uint32_t i = 0; i < m->nrows; i++) {
            int b = bay[i];
            if (b < b0 || b >= b1 || ts[i] < t0 || ts[i] >= t1) continue;
            if (occ[b]) {   /* close the occupied interval, distributing it over hours */
                for (int64_t t = since[b]; t < ts[i];) {
                    int64_t hour_end = (t / 3600 + 1) * 3600;
                    int64_t e = hour_end < ts[i] ? hour_end : ts[i];
                    occ_sec[(t - t0) / 3600] += (double)(e - t);
                    t = e;
                }
            }
            occ[b] = st[i];
            since[b] = ts[i];
        }
    }
    free(ts); free(bay); free(st);
    fprintf(rep, "zone %d hourly occupancy, days %d-%d (%d of %u row groups skipped)\n", zone, day0, day0 + 6,
            skipped, nrg);
    for (int d = 0; d < 7; d++) {
        fprintf(rep, "  day %2d:", day0 + d);
        for (int hh = 0; hh < 24; hh++)
            fprintf(rep, " %3.0f", 100.0 * occ_sec[d * 24 + hh] / (3600.0 * (b1 - b0)));
        if (fputc('\n', rep) == EOF) die("write", "report");
    }
}

static void dwell_distribution(int fd, const char *path, FILE *rep)
{
    static int64_t arrived[NBAYS];
    long hist[13] = {0};                /* 15-minute bins, last bin = > 3 h */
    long short_stays = 0, total = 0;
    for (int b = 0; b < NBAYS; b++) arrived[b] = -1;
    int64_t *ts = malloc(sizeof(int64_t) * RG_ROWS);
    uint16_t *bay = malloc(sizeof(uint16_t) * RG_ROWS);
    uint8_t *st = malloc(RG_ROWS);
    for (uint32_t g = 0; g < nrg; g++) {
        rg_meta *m = &rgs[g];
        pread_full(fd, ts, sizeof(int64_t) * m->nrows, (off_t)m->off_ts, path);
        pread_full(fd, bay, sizeof(uint16_t) * m->nrows, (off_t)m->off_bay, path);
        pread_full(fd, st, m->nrows, (off_t)m->off_state, path);
        for (uint32_t i = 0; i < m->nrows; i++) {
            int b = bay[i];
            if (st[i]) { arrived[b] = ts[i]; continue; }
            if (arrived[b] < 0) continue;
            int64_t d = ts[i] - arrived[b];
            arrived[b] = -1;
            total++;
            if (d < 60) { short_stays++; continue; }
            int bin = (int)(d / 900);
            hist[bin > 12 ? 12 : bin]++;
        }
    }
    free(ts); free(bay); free(st);
    fprintf(rep, "dwell time distribution (%ld stays, %ld under one minute)\n", total, short_stays);
    for (int k = 0; k < 13; k++)
        fprintf(rep, "  %3d-%s min %8ld\n", k * 15, k == 12 ? "   " : "", hist[k]);
}

static int low_battery(int fd, const char *path, FILE *rep)
{
    static uint16_t last_mv[NBAYS];
    uint16_t *bay = malloc(sizeof(uint16_t) * RG_ROWS), *batt = malloc(sizeof(uint16_t) * RG_ROWS);
    for (uint32_t g = 0; g < nrg; g++) {
        rg_meta *m = &rgs[g];
        pread_full(fd, bay, sizeof(uint16_t) * m->nrows, (off_t)m->off_bay, path);
        pread_full(fd, batt, sizeof(uint16_t) * m->nrows, (off_t)m->off_batt, path);
        for (uint32_t i = 0; i < m->nrows; i++) last_mv[bay[i]] = batt[i];
    }
    free(bay); free(batt);
    int n = 0;
    fprintf(rep, "sensors below 3400 mV at month end:\n");
    for (int b = 0; b < NBAYS; b++)
        if (last_mv[b] && last_mv[b] < 3400) { fprintf(rep, "  bay %4d  %4u mV\n", b, last_mv[b]); n++; }
    return n;
}

/* drop toggle pairs shorter than 15 s: the state of the glitch rows is reset to the prior state */
static long deflap_in_place(int fd, const char *path)
{
    static uint8_t cur[NBAYS];
    static int64_t last_t[NBAYS];
    static int32_t last_row[NBAYS];
    static uint32_t last_g[NBAYS];
    memset(cur, 0, sizeof cur);
    for (int b = 0; b < NBAYS; b++) { last_t[b] = -1000; last_row[b] = -1; }
    int64_t *ts = malloc(sizeof(int64_t) * RG_ROWS);
    uint16_t *bay = malloc(sizeof(uint16_t) * RG_ROWS);
    uint8_t *st = malloc(RG_ROWS);
    long fixed = 0;
    for (uint32_t g = 0; g < nrg; g++) {
        rg_meta *m = &rgs[g];
        pread_full(fd, ts, sizeof(int64_t) * m->nrows, (off_t)m->off_ts, path);
        pread_full(fd, bay, sizeof(uint16_t) * m->nrows, (off_t)m->off_bay, path);
        pread_full(fd, st, m->nrows, (off_t)m->off_state, path);
        int dirty = 0;
        for (uint32_t i = 0; i < m->nrows; i++) {
            int b = bay[i];
            if (st[i] != cur[b] && ts[i] - last_t[b] < 15 && last_row[b] >= 0) {
                /* the previous toggle was a glitch: neutralise it and this one */
                uint8_t prior = st[i];
                if (last_g[b] == g) st[last_row[b]] = prior;
                else {
                    pwrite_full(fd, &prior, 1, (off_t)(rgs[last_g[b]].off_state + (uint64_t)last_row[b]), path);
                }
                cur[b] = prior;
                last_row[b] = -1;
                dirty = 1;
                fixed++;
                continue;
            }
            if (st[i] != cur[b]) { last_t[b] = ts[i]; last_row[b] = (int32_t)i; last_g[b] = g; }
            cur[b] = st[i];
        }
        if (dirty) pwrite_full(fd, st, m->nrows, (off_t)m->off_state, path);
    }
    free(ts); free(bay); free(st);
    if (fdatasync(fd) != 0) die("fdatasync", path);
    return fixed;
}

static void build_bay_index(int fd, const char *path, const char *ipath)
{
    uint32_t *count = calloc(NBAYS, sizeof(uint32_t));
    uint64_t *start = malloc(sizeof(uint64_t) * (NBAYS + 1));
    uint32_t *rows = malloc(sizeof(uint32_t) * nev);
    uint16_t *bay = malloc(sizeof(uint16_t) * RG_ROWS);
    if (!count || !start || !rows || !bay) die("malloc", "");
    for (int pass = 0; pass < 2; pass++) {
        uint32_t base = 0;
        uint32_t *fill = NULL;
        if (pass == 1) {
            start[0] = 0;
            for (int b = 0; b < NBAYS; b++) start[b + 1] = start[b] + count[b];
            fill = calloc(NBAYS, sizeof(uint32_t));
            if (!fill) die("calloc", "");
        }
        for (uint32_t g = 0; g < nrg; g++) {
            rg_meta *m = &rgs[g];
            pread_full(fd, bay, sizeof(uint16_t) * m->nrows, (off_t)m->off_bay, path);
            for (uint32_t i = 0; i < m->nrows; i++) {
                int b = bay[i];
                if (pass == 0) count[b]++;
                else rows[start[b] + fill[b]++] = base + i;
            }
            base += m->nrows;
        }
        free(fill);
    }
    int ifd = open(ipath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ifd < 0) die("open", ipath);
    off_t data0 = (off_t)sizeof(uint64_t) * (NBAYS + 1);
    pwrite_full(ifd, start, sizeof(uint64_t) * (NBAYS + 1), 0, ipath);
    for (int b = 0; b < NBAYS; b++)   /* one write per bucket, in reverse to stress sparse layout */
        pwrite_full(ifd, rows + start[NBAYS - 1 - b], sizeof(uint32_t) * count[NBAYS - 1 - b],
                    data0 + (off_t)(sizeof(uint32_t) * start[NBAYS - 1 - b]), ipath);
    if (close(ifd) != 0) die("close", ipath);
    free(count); free(start); free(rows); free(bay);
}

static int verify_index(int fd, const char *path, const char *ipath, int nprobe)
{
    int ifd = open(ipath, O_RDONLY);
    if (ifd < 0) die("open", ipath);
    int bad = 0;
    uint32_t rows[4096];
    for (int p = 0; p < nprobe; p++) {
        int b = (int)(urand() * NBAYS);
        uint64_t se[2];
        pread_full(ifd, se, sizeof se, (off_t)(sizeof(uint64_t) * (size_t)b), ipath);
        uint64_t n = se[1] - se[0];
        if (n > 4096) n = 4096;
        pread_full(ifd, rows, sizeof(uint32_t) * n, (off_t)(sizeof(uint64_t) * (NBAYS + 1) + 4 * se[0]), ipath);
        for (uint64_t k = 0; k < n; k += 7) {
            uint32_t r = rows[k], g = r / RG_ROWS, i = r % RG_ROWS;
            uint16_t v;
            pread_full(fd, &v, sizeof v, (off_t)(rgs[g].off_bay + 2ULL * i), path);
            if (v != b) bad++;
        }
    }
    close(ifd);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char col[4096], idx[4096], rp[4096];
    snprintf(col, sizeof col, "%s/events.col", argv[1]);
    snprintf(idx, sizeof idx, "%s/bay_rows.idx", argv[1]);
    snprintf(rp, sizeof rp, "%s/district_report.txt", argv[1]);
    ev = malloc(sizeof(event) * MAXEV);
    if (!ev) die("malloc", "");
    simulate_sensors();
    qsort(ev, nev, sizeof(event), cmp_event);
    write_columnar(col);
    free(ev);

    int fd = open_columnar(col, O_RDWR);
    FILE *rep = fopen(rp, "w");
    if (!rep) die("fopen", rp);
    long fixed = deflap_in_place(fd, col);
    hourly_occupancy(fd, col, 0, 7, rep);
    hourly_occupancy(fd, col, 2, 14, rep);
    dwell_distribution(fd, col, rep);
    int low = low_battery(fd, col, rep);
    build_bay_index(fd, col, idx);
    int bad = verify_index(fd, col, idx, 600);
    if (fclose(rep) != 0) die("fclose", rp);
    if (close(fd) != 0) die("close", col);
    printf("%zu events in %u row groups; %ld glitches removed, %d low batteries, index mismatches %d\n", nev, nrg,
           fixed, low, bad);
    return bad ? 1 : 0;
}
