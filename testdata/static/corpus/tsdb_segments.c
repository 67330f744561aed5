/* Log-structured time-series store: samples of several series are appended
 * to per-series segment files opened with O_APPEND, a fixed-layout index file
 * is kept current with pwrite, and range queries use the index plus
 * lseek + read binary search inside the segment files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NSERIES 16
#define NSAMPLES 100000
#define SEG_CAP 8192
#define MAXSEG ((NSAMPLES + SEG_CAP - 1) / SEG_CAP)
#define BATCH 64
#define NQUERIES 2500

typedef struct { int64_t ts; double val; } sample_t;
typedef struct { int64_t first_ts, last_ts; uint32_t count, seg; } index_slot_t;

static int64_t *ref_ts[NSERIES];
static double *ref_val[NSERIES];
static index_slot_t mem_index[NSERIES][MAXSEG];
static const char *base_dir;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

static void segment_path(char *buf, size_t n, int s, int seg)
{
    snprintf(buf, n, "%s/series%02d.seg%03d", base_dir, s, seg);
}

static void die(const char *what)
{
    fprintf(stderr, "tsdb_segments: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0) die("write");
        c += w; n -= (size_t)w;
    }
}

/* generate the samples of one batch: an irregular clock plus a noisy
 * damped oscillation whose frequency depends on the series */
static void generate_batch(int s, int start, int n, sample_t *out)
{
    for (int i = 0; i < n; i++) {
        int k = start + i;
        int64_t prev = k == 0 ? 1700000000000LL + s * 17 : ref_ts[s][k - 1];
        int64_t ts = prev + 950 + (int64_t)(next_rand() % 101);
        double t = (double)k * 0.001;
        double v = 20.0 + 5.0 * sin(2.0 * M_PI * (0.3 + 0.05 * s) * t) * exp(-0.01 * t)
                 + 0.2 * ((double)(next_rand() >> 11) / 9007199254740992.0 - 0.5);
        for (int j = 0; j < 6; j++) v += 1e-6 * sin(v + j);
        ref_ts[s][k] = ts; ref_val[s][k] = v;
        out[i].ts = ts; out[i].val = v;
    }
}

static void append_batch(int s, int start, const sample_t *buf, int n, int idx_fd)
{
    int done = 0;
    while (done < n) {
        int k = start + done;
        int seg = k / SEG_CAP;
        int room = SEG_CAP - k % SEG_CAP;
        int take = n - done < room ? n - done : room;
        char path[512];
        segment_path(path, sizeof path, s, seg);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd < 0) die("open segment");
        write_all(fd, buf + done, (size_t)take * sizeof(sample_t));
        close(fd);
        index_slot_t *slot = &mem_index[s][seg];
        if (slot->count == 0) slot->first_ts = buf[done].ts;
        slot->last_ts = buf[done + take - 1].ts;
        slot->count += (uint32_t)take;
        slot->seg = (uint32_t)seg;
        off_t off = (off_t)(s * MAXSEG + seg) * (off_t)sizeof(index_slot_t);
        if (pwrite(idx_fd, slot, sizeof *slot, off) != (ssize_t)sizeof *slot) die("pwrite index");
        done += take;
    }
}

static void ingest(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/index.bin", base_dir);
    int idx_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (idx_fd < 0) die("open index");
    if (ftruncate(idx_fd, (off_t)sizeof mem_index) != 0) die("ftruncate");
    sample_t batch[BATCH];
    /* series are interleaved batch by batch, as a collector would */
    for (int start = 0; start < NSAMPLES; start += BATCH) {
        int n = NSAMPLES - start < BATCH ? NSAMPLES - start : BATCH;
        for (int s = 0; s < NSERIES; s++) {
            generate_batch(s, start, n, batch);
            append_batch(s, start, batch, n, idx_fd);
        }
    }
    if (fsync(idx_fd) != 0) die("fsync index");
    close(idx_fd);
}

static void load_index(index_slot_t idx[NSERIES][MAXSEG])
{
    char path[512];
    snprintf(path, sizeof path, "%s/index.bin", base_dir);
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open index for read");
    ssize_t r = read(fd, idx, sizeof(index_slot_t) * NSERIES * MAXSEG);
    if (r != (ssize_t)(sizeof(index_slot_t) * NSERIES * MAXSEG)) die("read index");
    close(fd);
}

static int64_t ts_at(int fd, long pos)
{
    sample_t smp;
    if (lseek(fd, (off_t)pos * (off_t)sizeof smp, SEEK_SET) < 0) die("lseek");
    if (read(fd, &smp, sizeof smp) != (ssize_t)sizeof smp) die("read probe");
    return smp.ts;
}

/* sum and count of samples with t0 <= ts <= t1 in series s */
static void range_query(index_slot_t idx[NSERIES][MAXSEG], int s, int64_t t0, int64_t t1,
                        double *sum, long *count)
{
    static sample_t chunk[1024];
    *sum = 0.0; *count = 0;
    for (int seg = 0; seg < MAXSEG; seg++) {
        index_slot_t *sl = &idx[s][seg];
        if (sl->count == 0 || sl->last_ts < t0 || sl->first_ts > t1) continue;
        char path[512];
        segment_path(path, sizeof path, s, seg);
        int fd = open(path, O_RDONLY);
        if (fd < 0) die("open segment for query");
        long lo = 0, hi = sl->count;
        while (lo < hi) {                 /* first sample with ts >= t0 */
            long mid = (lo + hi) / 2;
            if (ts_at(fd, mid) < t0) lo = mid + 1; else hi = mid;
        }
        if (lseek(fd, (off_t)lo * (off_t)sizeof(sample_t), SEEK_SET) < 0) die("lseek");
        int stop = 0;
        while (!stop) {
            ssize_t r = read(fd, chunk, sizeof chunk);
            if (r < 0) die("read chunk");
            if (r == 0) break;
            long n = r / (long)sizeof(sample_t);
            for (long i = 0; i < n; i++) {
                if (chunk[i].ts > t1) { stop = 1; break; }
                *sum += chunk[i].val; (*count)++;
            }
        }
        close(fd);
    }
}

static long lower_bound_ts(const int64_t *ts, long n, int64_t t)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (ts[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int run_queries(void)
{
    static index_slot_t idx[NSERIES][MAXSEG];
    load_index(idx);
    if (memcmp(idx, mem_index, sizeof idx) != 0) { fprintf(stderr, "index file differs\n"); return 1; }
    int bad = 0;
    double grand = 0.0;
    for (int q = 0; q < NQUERIES; q++) {
        int s = (int)(next_rand() % NSERIES);
        long a = (long)(next_rand() % NSAMPLES);
        long len = 1 + (long)(next_rand() % 6000);
        long b = a + len < NSAMPLES ? a + len : NSAMPLES - 1;
        int64_t t0 = ref_ts[s][a] - (int64_t)(next_rand() % 500);
        int64_t t1 = ref_ts[s][b] + (int64_t)(next_rand() % 500);
        double sum; long cnt;
        range_query(idx, s, t0, t1, &sum, &cnt);
        long k0 = lower_bound_ts(ref_ts[s], NSAMPLES, t0);
        double rsum = 0.0; long rcnt = 0;
        for (long k = k0; k < NSAMPLES && ref_ts[s][k] <= t1; k++) { rsum += ref_val[s][k]; rcnt++; }
        if (cnt != rcnt || fabs(sum - rsum) > 1e-9 * (fabs(rsum) + 1.0)) {
            if (bad < 5) fprintf(stderr, "query %d: got %ld/%.6f want %ld/%.6f\n", q, cnt, sum, rcnt, rsum);
            bad++;
        }
        grand += sum;
    }
    printf("queries: %d, mismatches: %d, total %.6e\n", NQUERIES, bad, grand);
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    base_dir = argv[1];
    for (int s = 0; s < NSERIES; s++) {
        ref_ts[s] = malloc(sizeof(int64_t) * NSAMPLES);
        ref_val[s] = malloc(sizeof(double) * NSAMPLES);
        if (!ref_ts[s] || !ref_val[s]) return 1;
    }
    ingest();
    int rc = run_queries();
    for (int s = 0; s < NSERIES; s++) { free(ref_ts[s]); free(ref_val[s]); }
    return rc;
}
