/* Sort-merge equi-join of two key-sorted binary record files (orders and shipments),
 * streaming both inputs through block readers and writing the joined records,
 * followed by a verification pass and a quantile summary of the joined values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <sys/stat.h>

#define NLEFT     2600000L
#define NRIGHT    1900000L
#define RBUF_RECS 8192
#define WBUF_RECS 4096

typedef struct {
    uint64_t key;
    double amount;
    uint32_t region;
    uint32_t flags;
} rec_t;

typedef struct {
    uint64_t key;
    double amount;
    double weight;
    uint32_t region;
    uint32_t carrier;
} joined_t;

typedef struct {
    int fd;
    rec_t *buf;
    long n, pos;
    long consumed;
} reader_t;

static void fail(const char *msg, const char *path)
{
    fprintf(stderr, "merge_join_bin: %s %s: %s\n", msg, path, strerror(errno));
    exit(1);
}

static uint64_t lcg_state;
static double urand(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

/* Keys increase with random gaps; gap distribution controls join selectivity. */
static void gen_sorted(const char *path, long n, uint64_t seed, double mean_gap, int is_right)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) fail("cannot create", path);
    rec_t *batch = malloc(sizeof(rec_t) * WBUF_RECS);
    lcg_state = seed;
    uint64_t key = 1000;
    long filled = 0;
    for (long i = 0; i < n; i++) {
        double u = urand();
        key += 1 + (uint64_t)(-mean_gap * log(1.0 - u));
        rec_t *r = &batch[filled++];
        r->key = key;
        r->amount = is_right ? 0.5 + 40.0 * urand() : exp(3.0 + 1.2 * (urand() - 0.5));
        r->region = (uint32_t)(urand() * 64);
        r->flags = (uint32_t)(urand() * 8);
        if (filled == WBUF_RECS) {
            if (fwrite(batch, sizeof(rec_t), filled, fp) != (size_t)filled) fail("write", path);
            filled = 0;
        }
    }
    if (filled && fwrite(batch, sizeof(rec_t), filled, fp) != (size_t)filled) fail("write", path);
    if (fclose(fp) != 0) fail("close", path);
    free(batch);
}

static void reader_open(reader_t *rd, const char *path)
{
    rd->fd = open(path, O_RDONLY);
    if (rd->fd < 0) fail("cannot open", path);
    rd->buf = malloc(sizeof(rec_t) * RBUF_RECS);
    rd->n = rd->pos = rd->consumed = 0;
}

static const rec_t *reader_peek(reader_t *rd)
{
    if (rd->pos == rd->n) {
        ssize_t got = read(rd->fd, rd->buf, sizeof(rec_t) * RBUF_RECS);
        if (got < 0) fail("read", "input");
        rd->n = got / (ssize_t)sizeof(rec_t);
        rd->pos = 0;
        if (rd->n == 0) return NULL;
    }
    return &rd->buf[rd->pos];
}

static void reader_advance(reader_t *rd)
{
    rd->pos++;
    rd->consumed++;
}

static void reader_close(reader_t *rd)
{
    close(rd->fd);
    free(rd->buf);
}

static long merge_join(const char *lpath, const char *rpath, const char *opath)
{
    reader_t L, R;
    reader_open(&L, lpath);
    reader_open(&R, rpath);
    int out = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) fail("cannot create", opath);
    joined_t *wbuf = malloc(sizeof(joined_t) * WBUF_RECS);
    long nw = 0, total = 0;
    const rec_t *a = reader_peek(&L), *b = reader_peek(&R);
    while (a && b) {
        if (a->key < b->key) {
            reader_advance(&L); a = reader_peek(&L);
        } else if (a->key > b->key) {
            reader_advance(&R); b = reader_peek(&R);
        } else {
            joined_t *j = &wbuf[nw++];
            j->key = a->key;
            j->amount = a->amount;
            j->weight = b->amount;
            j->region = a->region;
            j->carrier = b->region ^ b->flags;
            if (nw == WBUF_RECS) {
                ssize_t bytes = (ssize_t)(sizeof(joined_t) * nw);
                if (write(out, wbuf, bytes) != bytes) fail("write", opath);
                total += nw;
                nw = 0;
            }
            reader_advance(&L); a = reader_peek(&L);
            reader_advance(&R); b = reader_peek(&R);
        }
    }
    if (nw) {
        ssize_t bytes = (ssize_t)(sizeof(joined_t) * nw);
        if (write(out, wbuf, bytes) != bytes) fail("write", opath);
        total += nw;
    }
    close(out);
    free(wbuf);
    reader_close(&L);
    reader_close(&R);
    return total;
}

static double *load_costs(const char *opath, long *count)
{
    struct stat st;
    if (stat(opath, &st) != 0) fail("stat", opath);
    long n = st.st_size / (long)sizeof(joined_t);
    FILE *fp = fopen(opath, "rb");
    if (!fp) fail("cannot open", opath);
    double *cost = malloc(sizeof(double) * (n > 0 ? n : 1));
    joined_t rec;
    uint64_t last = 0;
    for (long i = 0; i < n; i++) {
        if (fread(&rec, sizeof rec, 1, fp) != 1) fail("short read", opath);
        if (rec.key <= last) {
            fprintf(stderr, "merge_join_bin: output not sorted at %ld\n", i);
            exit(1);
        }
        last = rec.key;
        cost[i] = rec.amount * (1.0 + 0.02 * rec.weight) + 0.1 * (rec.carrier % 5);
    }
    fclose(fp);
    *count = n;
    return cost;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile bootstrap of the mean with a small xorshift generator. */
static void bootstrap_ci(const double *x, long n, int nboot, double *lo, double *hi)
{
    double *means = malloc(sizeof(double) * nboot);
    uint64_t s = 0x853c49e6748fea9bULL;
    for (int b = 0; b < nboot; b++) {
        double acc = 0.0;
        for (long i = 0; i < n; i++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            acc += x[s % (uint64_t)n];
        }
        means[b] = acc / n;
    }
    qsort(means, nboot, sizeof(double), cmp_double);
    *lo = means[(int)(0.025 * (nboot - 1))];
    *hi = means[(int)(0.975 * (nboot - 1))];
    free(means);
}

static void summarize(double *cost, long n, const char *rpath)
{
    double lo = 0.0, hi = 0.0;
    if (n > 0) bootstrap_ci(cost, n, 220, &lo, &hi);
    qsort(cost, n, sizeof(double), cmp_double);
    double sum = 0.0, sq = 0.0;
    for (long i = 0; i < n; i++) {
        sum += cost[i];
        sq += cost[i] * cost[i];
    }
    double mean = n ? sum / n : 0.0;
    double sd = n > 1 ? sqrt((sq - n * mean * mean) / (n - 1)) : 0.0;
    FILE *fp = fopen(rpath, "w");
    if (!fp) fail("cannot create", rpath);
    fprintf(fp, "joined_records %ld\nmean %.6f\nstddev %.6f\n", n, mean, sd);
    fprintf(fp, "mean_ci95 %.6f %.6f\n", lo, hi);
    static const double qs[] = {0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        long idx = (long)(qs[k] * (n - 1));
        fprintf(fp, "q%.2f %.6f\n", qs[k], n ? cost[idx] : 0.0);
    }
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) fail("mkdir", argv[1]);
    char lpath[512], rpath[512], opath[512], spath[512];
    snprintf(lpath, sizeof lpath, "%s/orders.bin", argv[1]);
    snprintf(rpath, sizeof rpath, "%s/shipments.bin", argv[1]);
    snprintf(opath, sizeof opath, "%s/joined.bin", argv[1]);
    snprintf(spath, sizeof spath, "%s/summary.txt", argv[1]);

    gen_sorted(lpath, NLEFT, 12345, 3.0, 0);
    gen_sorted(rpath, NRIGHT, 67890, 4.2, 1);
    long nj = merge_join(lpath, rpath, opath);
    long nv;
    double *cost = load_costs(opath, &nv);
    if (nv != nj) {
        fprintf(stderr, "merge_join_bin: count mismatch %ld vs %ld\n", nv, nj);
        return 1;
    }
    summarize(cost, nv, spath);
    free(cost);
    printf("joined %ld records\n", nj);
    return 0;
}
