/*
 * bucket_dist_sort: sort a binary file of fixed-size records that is much
 * larger than the working buffer.  Splitters are chosen from a random
 * sample (pread), records are distributed into bucket files with buffered
 * write(), each bucket is merge-sorted in memory and placed at its final
 * offset of the output with pwrite().
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define N_REC        (5u << 20)
#define GEN_CHUNK    65536
#define READ_BYTES   (1 << 20)
#define NBUCKET      64
#define BUCKET_BUF   4096          /* records buffered per bucket */
#define N_SAMPLE     16384

typedef struct {
    uint64_t key;
    uint32_t id;
    float weight;
} record_t;

static char scratch[4096];

static const char *fpath(const char *name)
{
    static char buf[4][4200];
    static int slot = 0;
    slot = (slot + 1) & 3;
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", scratch, name);
    return buf[slot];
}

/* Keys from a log-normal mixture, so bucket sizes are uneven without good splitters. */
static uint64_t gen_input(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    record_t *chunk = malloc(GEN_CHUNK * sizeof *chunk);
    uint64_t s = 0x243F6A8885A308D3ull, idsum = 0;
    uint32_t id = 0;
    for (uint32_t done = 0; done < N_REC; done += GEN_CHUNK) {
        for (int i = 0; i < GEN_CHUNK; i += 2) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            double u1 = ((s >> 11) + 1.0) / 9007199254740993.0;
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            double u2 = (s >> 11) / 9007199254740992.0;
            double r = sqrt(-2.0 * log(u1));
            double z0 = r * cos(2.0 * M_PI * u2), z1 = r * sin(2.0 * M_PI * u2);
            double mu = (s & 3) == 0 ? 30.0 : 36.0;
            chunk[i].key = (uint64_t)exp(mu + 1.7 * z0);
            chunk[i + 1].key = (uint64_t)exp(mu + 0.9 * z1);
            for (int k = 0; k < 2; k++) {
                chunk[i + k].id = id;
                chunk[i + k].weight = (float)(u1 * (k + 1));
                idsum += id++;
            }
        }
        fwrite(chunk, sizeof *chunk, GEN_CHUNK, f);
    }
    fclose(f);
    free(chunk);
    return idsum;
}

static void heap_sort_u64(uint64_t *a, size_t n)
{
    for (size_t start = n / 2; start-- > 0;) {
        size_t root = start;
        while (2 * root + 1 < n) {
            size_t c = 2 * root + 1;
            if (c + 1 < n && a[c] < a[c + 1]) c++;
            if (a[root] >= a[c]) break;
            uint64_t t = a[root]; a[root] = a[c]; a[c] = t;
            root = c;
        }
    }
    for (size_t end = n; end-- > 1;) {
        uint64_t t = a[0]; a[0] = a[end]; a[end] = t;
        size_t root = 0;
        while (2 * root + 1 < end) {
            size_t c = 2 * root + 1;
            if (c + 1 < end && a[c] < a[c + 1]) c++;
            if (a[root] >= a[c]) break;
            t = a[root]; a[root] = a[c]; a[c] = t;
            root = c;
        }
    }
}

static void sample_splitters(const char *path, uint64_t *split)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    uint64_t *sample = malloc(N_SAMPLE * sizeof *sample);
    uint64_t s = 0x13198A2E03707344ull;
    for (int i = 0; i < N_SAMPLE; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        off_t rec = (off_t)(s % N_REC);
        if (pread(fd, &sample[i], sizeof(uint64_t), rec * (off_t)sizeof(record_t)) != 8) {
            perror("pread"); exit(1);
        }
    }
    close(fd);
    heap_sort_u64(sample, N_SAMPLE);
    for (int b = 1; b < NBUCKET; b++)
        split[b - 1] = sample[(size_t)b * N_SAMPLE / NBUCKET];
    free(sample);
}

static void flush_bucket(int fd, record_t *buf, int n)
{
    size_t bytes = (size_t)n * sizeof *buf;
    if (write(fd, buf, bytes) != (ssize_t)bytes) { perror("write"); exit(1); }
}

static void distribute(const char *path, const uint64_t *split, uint32_t *count)
{
    int in = open(path, O_RDONLY);
    if (in < 0) { perror(path); exit(1); }
    int fds[NBUCKET];
    int fill[NBUCKET] = {0};
    record_t *bbuf = malloc((size_t)NBUCKET * BUCKET_BUF * sizeof *bbuf);
    for (int b = 0; b < NBUCKET; b++) {
        char name[32];
        snprintf(name, sizeof name, "bucket_%02d.tmp", b);
        fds[b] = open(fpath(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        count[b] = 0;
    }
    record_t *rbuf = malloc(READ_BYTES);
    ssize_t got;
    while ((got = read(in, rbuf, READ_BYTES)) > 0) {
        size_t nr = (size_t)got / sizeof(record_t);
        for (size_t i = 0; i < nr; i++) {
            uint64_t k = rbuf[i].key;
            int lo = 0, hi = NBUCKET - 1;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (k < split[mid]) hi = mid; else lo = mid + 1;
            }
            bbuf[(size_t)lo * BUCKET_BUF + fill[lo]] = rbuf[i];
            count[lo]++;
            if (++fill[lo] == BUCKET_BUF) {
                flush_bucket(fds[lo], bbuf + (size_t)lo * BUCKET_BUF, BUCKET_BUF);
                fill[lo] = 0;
            }
        }
    }
    for (int b = 0; b < NBUCKET; b++) {
        if (fill[b]) flush_bucket(fds[b], bbuf + (size_t)b * BUCKET_BUF, fill[b]);
        close(fds[b]);
    }
    close(in);
    free(rbuf); free(bbuf);
}

/* Bottom-up merge sort on (key, id); ties in key keep the original id order. */
static void merge_sort_records(record_t *a, record_t *tmp, size_t n)
{
    record_t *src = a, *dst = tmp;
    for (size_t i = 0; i + 1 < n; i += 2) {
        if (a[i].key > a[i + 1].key || (a[i].key == a[i + 1].key && a[i].id > a[i + 1].id)) {
            record_t t = a[i]; a[i] = a[i + 1]; a[i + 1] = t;
        }
    }
    for (size_t width = 2; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                const record_t *x = &src[i], *y = &src[j];
                if (y->key < x->key || (y->key == x->key && y->id < x->id))
                    dst[k++] = src[j++];
                else
                    dst[k++] = src[i++];
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        record_t *t = src; src = dst; dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static void sort_buckets(const char *out_path, const uint32_t *count)
{
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) { perror(out_path); exit(1); }
    uint32_t maxc = 0;
    for (int b = 0; b < NBUCKET; b++) if (count[b] > maxc) maxc = count[b];
    record_t *a = malloc((size_t)maxc * sizeof *a), *tmp = malloc((size_t)maxc * sizeof *tmp);
    off_t off = 0;
    for (int b = 0; b < NBUCKET; b++) {
        char name[32];
        snprintf(name, sizeof name, "bucket_%02d.tmp", b);
        const char *bp = fpath(name);
        int fd = open(bp, O_RDONLY);
        size_t bytes = (size_t)count[b] * sizeof(record_t);
        size_t have = 0;
        while (have < bytes) {
            ssize_t r = read(fd, (char *)a + have, bytes - have);
            if (r <= 0) { perror("read bucket"); exit(1); }
            have += (size_t)r;
        }
        close(fd);
        unlink(bp);
        merge_sort_records(a, tmp, count[b]);
        if (pwrite(out, a, bytes, off) != (ssize_t)bytes) { perror("pwrite"); exit(1); }
        off += (off_t)bytes;
    }
    fsync(out);
    close(out);
    free(a); free(tmp);
}

static int verify_sorted(const char *path, uint64_t want_idsum, uint64_t *q)
{
    FILE *f = fopen(path, "rb");
    record_t *buf = malloc(GEN_CHUNK * sizeof *buf);
    uint64_t prev = 0, idsum = 0, seen = 0;
    int ok = 1;
    size_t got;
    while ((got = fread(buf, sizeof *buf, GEN_CHUNK, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            if (buf[i].key < prev) ok = 0;
            prev = buf[i].key;
            idsum += buf[i].id;
            for (int k = 1; k < 10; k++)
                if (seen + i == (uint64_t)k * N_REC / 10) q[k - 1] = buf[i].key;
        }
        seen += got;
    }
    fclose(f);
    free(buf);
    return ok && idsum == want_idsum && seen == N_REC;
}

static void write_summary(const uint32_t *count, const uint64_t *split, const uint64_t *q, int ok)
{
    FILE *f = fopen(fpath("summary.txt"), "w");
    fprintf(f, "records %u buckets %d sorted %s\n", N_REC, NBUCKET, ok ? "yes" : "NO");
    for (int b = 0; b < NBUCKET; b++)
        fprintf(f, "bucket %2d count %8u upper %llu\n", b, count[b],
                b < NBUCKET - 1 ? (unsigned long long)split[b] : 0ULL);
    for (int k = 0; k < 9; k++)
        fprintf(f, "decile %d %llu\n", k + 1, (unsigned long long)q[k]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        return 2;
    }
    snprintf(scratch, sizeof scratch, "%s", argv[1]);
    uint64_t split[NBUCKET - 1], q[9] = {0};
    uint32_t count[NBUCKET];

    uint64_t idsum = gen_input(fpath("input.rec"));
    sample_splitters(fpath("input.rec"), split);
    distribute(fpath("input.rec"), split, count);
    sort_buckets(fpath("sorted.rec"), count);
    int ok = verify_sorted(fpath("sorted.rec"), idsum, q);
    write_summary(count, split, q, ok);
    printf("sorted %u records: %s\n", N_REC, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
