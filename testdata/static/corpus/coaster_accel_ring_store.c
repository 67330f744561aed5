/*
 * coaster_accel_ring_store.c
 *
 * Ride-acceleration data logger for the roller coasters of an amusement
 * park.  Each coaster has a parametric track (lift hill, first drop,
 * vertical loop, airtime camelbacks, helix, brake run); every car carries a
 * tri-axial accelerometer sampled at 200 Hz.  Ride runs are integrated
 * along the track (energy balance with rolling and aerodynamic losses) and
 * converted to body-frame accelerations with vibration and sensor noise.
 *
 * Storage is a single pre-allocated on-disk ring of fixed 64 KiB segments:
 *   page 0          superblock (head, generation, CRC)
 *   pages 1..T      segment table: stream id, time span, sample count,
 *                   per-axis min/max summaries, CRC-32 of the payload
 *   data area       NSEG segments, each holding one stream's samples
 * Sealed segments are written with pwrite at the ring head; the table page
 * holding their entry is updated read-modify-write with pread/pwrite; the
 * superblock is rewritten every few segments.  The ring wraps, so the
 * oldest segments are overwritten.
 *
 * Afterwards the store is reopened: a recovery scan verifies every live
 * segment, random time-window peak queries binary-search the table and
 * pread only overlapping segments, and a safety audit uses the min/max
 * summaries to pread only segments that can contain limit exceedances.
 *
 * usage: coaster_accel_ring_store OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCOASTER 4
#define NCAR 6
#define NSTREAM (NCOASTER * NCAR)
#define RATE 200                      /* Hz */
#define NRIDES 5                      /* runs per coaster */
#define SEG_BYTES 65536
#define SAMPLE_BYTES 6                /* int16 ax, ay, az in milli-g */
#define SEG_SAMPLES (SEG_BYTES / SAMPLE_BYTES)
#define NSEG 288                      /* ring capacity (18 MiB of data) */
#define PAGE 4096
#define ENTRIES_PER_PAGE (PAGE / (int)sizeof(seg_entry))
#define TABLE_PAGES ((NSEG + ENTRIES_PER_PAGE - 1) / ENTRIES_PER_PAGE)
#define DATA_OFF ((off_t)(1 + TABLE_PAGES) * PAGE)
#define TRACK_N 4096
#define NQUERY 400
#define MAGIC 0x43525354u             /* "TSRC" */
#define G 9.80665
#define PI 3.14159265358979323846

typedef struct {
    uint32_t gen;                 /* 0 = never written */
    uint16_t stream, nsamp;
    int64_t t0_ms, t1_ms;
    int16_t mn[3], mx[3];
    uint32_t crc;
    uint32_t pad;
} seg_entry;                      /* 48 bytes */

typedef struct {
    uint32_t magic, nseg, seg_bytes, table_pages;
    uint32_t head, gen;
    uint64_t sealed;
    uint32_t crc;
} superblock;

typedef struct { double h[TRACK_N], curv[TRACK_N], bank[TRACK_N], len; } track_t;

typedef struct {
    int16_t buf[SEG_SAMPLES][3];
    int n;
    int64_t t0_ms, t_last;
} stream_buf;

static track_t tracks[NCOASTER];
static stream_buf sbuf[NSTREAM];
static seg_entry table[NSEG];
static superblock sb;
static uint32_t crc_tab[256];
static int fd = -1;
static const char *outdir;
static uint64_t rng = 0xc0a57e12ab34cd56ull;
static long n_pread, n_pwrite;

static void die(const char *what)
{
    fprintf(stderr, "coaster_accel_ring_store: %s: %s\n", what, errno ? strerror(errno) : "corrupt store");
    exit(1);
}

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1u) ? 0x82F63B78u ^ (c >> 1) : c >> 1;   /* CRC-32C */
        crc_tab[i] = c;
    }
}

static uint32_t crc32c(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_tab[(c ^ b[i]) & 0xffu] ^ (c >> 8);
    return ~c;
}

static void pwrite_full(const void *buf, size_t n, off_t off)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite");
        }
        p += w; off += w; n -= (size_t)w;
    }
    n_pwrite++;
}

static void pread_full(void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            die("pread");
        }
        if (r == 0) { errno = 0; die("short pread"); }
        p += r; off += r; n -= (size_t)r;
    }
    n_pread++;
}

/* parametric track: height profile and curvature of the vertical/horizontal elements */
static void build_track(int c)
{
    track_t *t = &tracks[c];
    double lift = 40.0 + 12.0 * c, scale = 1.0 + 0.15 * c;
    t->len = 900.0 * scale;
    for (int i = 0; i < TRACK_N; i++) {
        double s = t->len * i / (TRACK_N - 1), u = s / t->len, h;
        if (u < 0.12) h = 2.0 + lift * u / 0.12;                                     /* lift hill */
        else if (u < 0.20) h = 2.0 + lift * (0.5 + 0.5 * cos(PI * (u - 0.12) / 0.08)); /* first drop */
        else if (u < 0.30) h = 2.0 + 0.55 * lift * pow(sin(PI * (u - 0.20) / 0.10), 2); /* loop (height proxy) */
        else if (u < 0.62) h = 4.0 + 0.35 * lift * pow(sin(3.0 * PI * (u - 0.30) / 0.32), 2); /* camelbacks */
        else if (u < 0.85) h = 3.0 + 2.0 * sin(8.0 * PI * u);                          /* helix */
        else h = 2.0;                                                                 /* brakes, station */
        t->h[i] = h;
        t->bank[i] = (u > 0.62 && u < 0.85) ? 1.1 : 0.2 * sin(20.0 * u);
    }
    /* vertical curvature from the height profile (second derivative) */
    double ds = t->len / (TRACK_N - 1);
    for (int i = 1; i < TRACK_N - 1; i++) t->curv[i] = (t->h[i + 1] - 2.0 * t->h[i] + t->h[i - 1]) / (ds * ds);
    t->curv[0] = t->curv[TRACK_N - 1] = 0.0;
    for (int i = 0; i < TRACK_N; i++) {
        double u = (double)i / (TRACK_N - 1);
        if (u >= 0.20 && u < 0.30) t->curv[i] = 1.0 / (9.0 + 2.0 * c);                /* loop radius */
    }
}

static void write_superblock(void)
{
    static unsigned char page[PAGE];
    sb.crc = 0;
    sb.crc = crc32c(&sb, sizeof sb);
    memset(page, 0, PAGE);
    memcpy(page, &sb, sizeof sb);
    pwrite_full(page, PAGE, 0);
}

static void format_store(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ride_accel.ring", outdir);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(path);
    if (ftruncate(fd, DATA_OFF + (off_t)NSEG * SEG_BYTES) != 0) die("ftruncate");
    memset(&sb, 0, sizeof sb);
    sb.magic = MAGIC; sb.nseg = NSEG; sb.seg_bytes = SEG_BYTES; sb.table_pages = TABLE_PAGES;
    write_superblock();
    static unsigned char zero[PAGE];
    for (int p = 0; p < TABLE_PAGES; p++) pwrite_full(zero, PAGE, (off_t)(1 + p) * PAGE);
    memset(table, 0, sizeof table);
}

/* seal a stream's buffer into the ring at the head */
static void seal_segment(int s)
{
    stream_buf *b = &sbuf[s];
    if (b->n == 0) return;
    uint32_t slot = sb.head;
    seg_entry e;
    memset(&e, 0, sizeof e);
    e.gen = ++sb.gen;
    e.stream = (uint16_t)s;
    e.nsamp = (uint16_t)b->n;
    e.t0_ms = b->t0_ms;
    e.t1_ms = b->t_last;
    for (int a = 0; a < 3; a++) { e.mn[a] = INT16_MAX; e.mx[a] = INT16_MIN; }
    for (int k = 0; k < b->n; k++)
        for (int a = 0; a < 3; a++) {
            if (b->buf[k][a] < e.mn[a]) e.mn[a] = b->buf[k][a];
            if (b->buf[k][a] > e.mx[a]) e.mx[a] = b->buf[k][a];
        }
    if (b->n < SEG_SAMPLES) memset(&b->buf[b->n][0], 0, (size_t)(SEG_SAMPLES - b->n) * SAMPLE_BYTES);
    e.crc = crc32c(b->buf, SEG_BYTES);
    pwrite_full(b->buf, SEG_BYTES, DATA_OFF + (off_t)slot * SEG_BYTES);
    /* read-modify-write of the table page that holds this entry */
    static unsigned char page[PAGE];
    int pg = (int)slot / ENTRIES_PER_PAGE, ix = (int)slot % ENTRIES_PER_PAGE;
    off_t poff = (off_t)(1 + pg) * PAGE;
    pread_full(page, PAGE, poff);
    memcpy(page + ix * sizeof(seg_entry), &e, sizeof e);
    pwrite_full(page, PAGE, poff);
    table[slot] = e;
    sb.head = (slot + 1) % NSEG;
    sb.sealed++;
    if (sb.sealed % 8 == 0) write_superblock();
    b->n = 0;
}

static void push_sample(int s, int64_t t_ms, double ax, double ay, double az)
{
    stream_buf *b = &sbuf[s];
    if (b->n == 0) b->t0_ms = t_ms;
    double v[3] = {ax, ay, az};
    for (int a = 0; a < 3; a++) {
        double mg = v[a] / G * 1000.0;
        if (mg > 32767) mg = 32767;
        if (mg < -32768) mg = -32768;
        b->buf[b->n][a] = (int16_t)lrint(mg);
    }
    b->t_last = t_ms;
    if (++b->n == SEG_SAMPLES) seal_segment(s);
}

static double interp(const double *f, double len, double s)
{
    double x = s / len * (TRACK_N - 1);
    if (x <= 0) return f[0];
    if (x >= TRACK_N - 1) return f[TRACK_N - 1];
    int i = (int)x;
    double w = x - i;
    return f[i] * (1 - w) + f[i + 1] * w;
}

/* one ride run of coaster c starting at t_start: all cars, 200 Hz */
static double simulate_ride(int c, int64_t t_start_ms, double load)
{
    const track_t *t = &tracks[c];
    double s = 0.0, v = 0.5, dt = 1.0 / RATE, vmax = 0.0;
    double mass = 6.0 * (600.0 + 320.0 * load), cda = 3.2;
    long k = 0;
    while (s < t->len && k < RATE * 240) {
        double u = s / t->len;
        double dh = (interp(t->h, t->len, s + 0.5) - interp(t->h, t->len, s - 0.5));
        double acc;
        if (u < 0.12) { v = 1.8; acc = 0.0; }                        /* chain lift */
        else {
            acc = -G * dh - 0.015 * G - 0.5 * 1.2 * cda * v * v / mass;
            if (u > 0.85) acc -= (v > 2.0 ? 6.0 : 0.0);               /* magnetic brakes */
        }
        v += acc * dt;
        if (v < 1.0) v = 1.0;
        if (v > vmax) vmax = v;
        s += v * dt;
        double kappa = interp(t->curv, t->len, s), bank = interp(t->bank, t->len, s);
        for (int car = 0; car < NCAR; car++) {
            /* cars trail the front by 2.2 m: sample the track behind */
            double sc = s - 2.2 * car;
            double kc = car ? interp(t->curv, t->len, sc > 0 ? sc : 0) : kappa;
            double an = v * v * kc;                                    /* normal (vertical) */
            double lat = v * v * 0.02 * sin(bank * 3.0 + sc * 0.05);   /* unbalanced lateral */
            double vib = 0.25 * sin(2.0 * PI * 17.0 * k * dt + car) + 0.15 * (urand() - 0.5);
            double az = G * cos(bank) + an + vib * G * 0.1;
            double ay = G * sin(bank) * 0.1 + lat + 0.05 * G * (urand() - 0.5);
            double ax = acc + 0.03 * G * (urand() - 0.5);
            push_sample(c * NCAR + car, t_start_ms + k * 1000 / RATE, ax, ay, az);
        }
        k++;
    }
    /* the car loggers flush their partial segments when the train is back in the station */
    for (int car = 0; car < NCAR; car++) seal_segment(c * NCAR + car);
    return vmax;
}

static void load_table_from_disk(void)
{
    static unsigned char page[PAGE];
    unsigned char sbpage[PAGE];
    pread_full(sbpage, PAGE, 0);
    memcpy(&sb, sbpage, sizeof sb);
    uint32_t c = sb.crc;
    sb.crc = 0;
    if (sb.magic != MAGIC || crc32c(&sb, sizeof sb) != c || sb.nseg != NSEG) { errno = 0; die("bad superblock"); }
    sb.crc = c;
    for (int p = 0; p < TABLE_PAGES; p++) {
        pread_full(page, PAGE, (off_t)(1 + p) * PAGE);
        for (int i = 0; i < ENTRIES_PER_PAGE && p * ENTRIES_PER_PAGE + i < NSEG; i++)
            memcpy(&table[p * ENTRIES_PER_PAGE + i], page + i * sizeof(seg_entry), sizeof(seg_entry));
    }
}

/* the superblock may lag behind: the true head follows the highest generation */
static int recover_scan(long *bytes_checked, uint32_t *maxgen)
{
    static int16_t seg[SEG_SAMPLES][3];
    int bad = 0;
    *bytes_checked = 0;
    *maxgen = 0;
    for (int i = 0; i < NSEG; i++) {
        if (table[i].gen == 0) continue;
        pread_full(seg, SEG_BYTES, DATA_OFF + (off_t)i * SEG_BYTES);
        *bytes_checked += SEG_BYTES;
        if (crc32c(seg, SEG_BYTES) != table[i].crc) bad++;
        if (table[i].gen > *maxgen) *maxgen = table[i].gen;
    }
    return bad;
}

static int cmp_by_t0(const void *a, const void *b)
{
    const seg_entry *x = &table[*(const int *)a], *y = &table[*(const int *)b];
    if (x->t0_ms != y->t0_ms) return x->t0_ms < y->t0_ms ? -1 : 1;
    return (int)x->stream - (int)y->stream;
}

/* per-stream segment lists sorted by start time, for binary search */
static int idx[NSTREAM][NSEG], nidx[NSTREAM];

static void build_index(void)
{
    memset(nidx, 0, sizeof nidx);
    for (int i = 0; i < NSEG; i++)
        if (table[i].gen) idx[table[i].stream][nidx[table[i].stream]++] = i;
    for (int s = 0; s < NSTREAM; s++) qsort(idx[s], (size_t)nidx[s], sizeof(int), cmp_by_t0);
}

/* peak vertical acceleration of a stream in [t0, t1] */
static double query_peak(int s, int64_t t0, int64_t t1, int *segs_read)
{
    static int16_t seg[SEG_SAMPLES][3];
    int lo = 0, hi = nidx[s];
    while (lo < hi) {                       /* first segment ending at or after t0 */
        int mid = (lo + hi) / 2;
        if (table[idx[s][mid]].t1_ms < t0) lo = mid + 1; else hi = mid;
    }
    int best = INT16_MIN;
    for (int k = lo; k < nidx[s] && table[idx[s][k]].t0_ms <= t1; k++) {
        const seg_entry *e = &table[idx[s][k]];
        if (e->mx[2] <= best) continue;     /* summary says it cannot improve */
        pread_full(seg, SEG_BYTES, DATA_OFF + (off_t)idx[s][k] * SEG_BYTES);
        (*segs_read)++;
        /* a segment never spans two runs, so its samples are evenly spaced in time */
        for (int j = 0; j < e->nsamp; j++) {
            int64_t tj = e->t0_ms + (e->nsamp > 1 ? (e->t1_ms - e->t0_ms) * j / (e->nsamp - 1) : 0);
            if (tj < t0 || tj > t1) continue;
            if (seg[j][2] > best) best = seg[j][2];
        }
    }
    return best == INT16_MIN ? NAN : best / 1000.0;
}

/* EN 13814-style envelope audit: vertical > 5.0 g, < -1.5 g, lateral > 1.8 g */
static long exceedance_audit(FILE *rep, int *segs_read, int *segs_skipped)
{
    static int16_t seg[SEG_SAMPLES][3];
    long hits = 0;
    for (int i = 0; i < NSEG; i++) {
        const seg_entry *e = &table[i];
        if (!e->gen) continue;
        if (e->mx[2] <= 5000 && e->mn[2] >= -1500 && e->mx[1] <= 1800 && e->mn[1] >= -1800) {
            (*segs_skipped)++;
            continue;
        }
        pread_full(seg, SEG_BYTES, DATA_OFF + (off_t)i * SEG_BYTES);
        (*segs_read)++;
        int run = 0;
        for (int j = 0; j < e->nsamp; j++) {
            int over = seg[j][2] > 5000 || seg[j][2] < -1500 || abs(seg[j][1]) > 1800;
            if (over) {
                if (run == 0) {
                    hits++;
                    int64_t tj = e->t0_ms + (e->nsamp > 1 ? (e->t1_ms - e->t0_ms) * j / (e->nsamp - 1) : 0);
                    fprintf(rep, "  coaster %d car %d t=%lld ms az=%.2f g ay=%.2f g (segment %d gen %u)\n",
                            e->stream / NCAR + 1, e->stream % NCAR + 1, (long long)tj, seg[j][2] / 1000.0,
                            seg[j][1] / 1000.0, i, e->gen);
                }
                run++;
            } else {
                run = 0;
            }
        }
    }
    return hits;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    outdir = argv[1];
    crc_init();
    for (int c = 0; c < NCOASTER; c++) build_track(c);
    format_store();

    /* a park day: coasters dispatch trains in turn */
    double vmax[NCOASTER] = {0};
    int64_t ride_t[NCOASTER * NRIDES];
    for (int r = 0; r < NRIDES; r++)
        for (int c = 0; c < NCOASTER; c++) {
            int64_t t0 = (int64_t)(9 * 3600 + r * 420 + c * 37) * 1000;
            ride_t[c * NRIDES + r] = t0;
            double v = simulate_ride(c, t0, 0.4 + 0.6 * urand());
            if (v > vmax[c]) vmax[c] = v;
        }
    for (int s = 0; s < NSTREAM; s++) seal_segment(s);
    write_superblock();
    if (fsync(fd) != 0) die("fsync");
    if (close(fd) != 0) die("close");

    /* reopen as an analysis client would */
    char path[4096];
    snprintf(path, sizeof path, "%s/ride_accel.ring", outdir);
    fd = open(path, O_RDONLY);
    if (fd < 0) die(path);
    load_table_from_disk();
    long checked;
    uint32_t maxgen;
    int bad = recover_scan(&checked, &maxgen);
    build_index();

    snprintf(path, sizeof path, "%s/ride_audit.txt", outdir);
    FILE *rep = fopen(path, "w");
    if (!rep) die(path);
    fprintf(rep, "ring store: %d segments of %d bytes, %llu sealed, newest generation %u, %d corrupt\n", NSEG,
            SEG_BYTES, (unsigned long long)sb.sealed, maxgen, bad);
    fprintf(rep, "# random window queries: coaster car ride t0_ms t1_ms peak_az_g\n");
    int qsegs = 0, nan_q = 0;
    for (int q = 0; q < NQUERY; q++) {
        int c = (int)(urand() * NCOASTER), car = (int)(urand() * NCAR), r = NRIDES - 1 - (int)(urand() * 3);
        int64_t t0 = ride_t[c * NRIDES + r] + (int64_t)(urand() * 60000), t1 = t0 + 5000 + (int64_t)(urand() * 20000);
        double pk = query_peak(c * NCAR + car, t0, t1, &qsegs);
        if (isnan(pk)) nan_q++;
        fprintf(rep, "%d %d %2d %lld %lld %s%.3f\n", c + 1, car + 1, r + 1, (long long)t0, (long long)t1,
                isnan(pk) ? "overwritten " : "", isnan(pk) ? 0.0 : pk);
    }
    fprintf(rep, "# envelope exceedances\n");
    int aread = 0, askip = 0;
    long hits = exceedance_audit(rep, &aread, &askip);
    fprintf(rep, "# audit read %d segments, skipped %d by summary\n", aread, askip);
    if (ferror(rep) || fclose(rep) != 0) die("write audit");
    if (close(fd) != 0) die("close");

    printf("coaster ring store: %d streams, %llu segments sealed into a %d-slot ring, %d corrupt\n", NSTREAM,
           (unsigned long long)sb.sealed, NSEG, bad);
    printf("  top speeds m/s:");
    for (int c = 0; c < NCOASTER; c++) printf(" %.1f", vmax[c]);
    printf("\n  %d queries read %d segments (%d windows overwritten); audit %ld exceedances, %d read / %d skipped\n",
           NQUERY, qsegs, nan_q, hits, aread, askip);
    printf("  %ld preads, %ld pwrites, %.1f MB verified\n", n_pread, n_pwrite, checked / 1048576.0);
    return bad ? 1 : 0;
}
