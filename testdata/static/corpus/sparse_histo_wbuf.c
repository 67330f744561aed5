/* Sparse 2-D histogram accumulator: a set of chaotic map orbits (Henon-like
 * with noise) is binned on a fine grid held in an open-addressing hash
 * table. After each epoch all occupied bins are formatted with snprintf into
 * a user-level 64 KiB buffer that is passed to write() whenever it fills.
 * Finally every epoch file is read back with read(), parsed and verified. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TABLE_BITS 19
#define TABLE_SIZE (1u << TABLE_BITS)
#define NBINS 2048
#define NEPOCH 6
#define ORBITS 64
#define ITERS_PER_EPOCH 40000
#define WBUF 65536

typedef struct { int32_t ix, iy; int64_t count; double wsum; } bin_t;

static bin_t table[TABLE_SIZE];
static int used;

typedef struct { int fd; size_t len; long flushes; char buf[WBUF]; } outbuf_t;

static uint32_t bin_hash(int32_t ix, int32_t iy)
{
    uint64_t k = ((uint64_t)(uint32_t)ix << 32) | (uint32_t)iy;
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33;
    return (uint32_t)k & (TABLE_SIZE - 1);
}

static bin_t *lookup(int32_t ix, int32_t iy, int create)
{
    uint32_t h = bin_hash(ix, iy);
    for (;;) {
        bin_t *b = &table[h];
        if (b->count == 0) {
            if (!create) return NULL;
            if (used > (int)(TABLE_SIZE * 0.7)) { fprintf(stderr, "table full\n"); exit(1); }
            b->ix = ix; b->iy = iy; used++;
            return b;
        }
        if (b->ix == ix && b->iy == iy) return b;
        h = (h + 1) & (TABLE_SIZE - 1);
    }
}

static void accumulate_epoch(double *ox, double *oy, uint64_t *seed)
{
    for (int o = 0; o < ORBITS; o++) {
        double x = ox[o], y = oy[o];
        for (int it = 0; it < ITERS_PER_EPOCH; it++) {
            *seed ^= *seed << 13; *seed ^= *seed >> 7; *seed ^= *seed << 17;
            double noise = ((double)(*seed >> 11) / 9007199254740992.0 - 0.5) * 1e-3;
            double xn = 1.0 - 1.4 * x * x + y + noise;
            y = 0.3 * x;
            x = xn;
            int32_t ix = (int32_t)floor((x + 1.5) / 3.0 * NBINS);
            int32_t iy = (int32_t)floor((y + 0.5) / 1.0 * NBINS);
            bin_t *b = lookup(ix, iy, 1);
            b->count++;
            b->wsum += x * x + y * y;
        }
        ox[o] = x; oy[o] = y;
    }
}

static void flush_buffer(outbuf_t *ob)
{
    size_t off = 0;
    while (off < ob->len) {
        ssize_t w = write(ob->fd, ob->buf + off, ob->len - off);
        if (w < 0) { if (errno == EINTR) continue; perror("write"); exit(1); }
        off += (size_t)w;
    }
    ob->len = 0;
    ob->flushes++;
}

static void emit_record(outbuf_t *ob, const bin_t *b)
{
    char line[96];
    int n = snprintf(line, sizeof line, "%d %d %lld %.17g\n", b->ix, b->iy, (long long)b->count, b->wsum);
    if (ob->len + (size_t)n > WBUF) flush_buffer(ob);
    memcpy(ob->buf + ob->len, line, (size_t)n);
    ob->len += (size_t)n;
}

static long dump_histogram(const char *path, int epoch)
{
    static outbuf_t ob;
    ob.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ob.fd < 0) { perror(path); exit(1); }
    ob.len = 0; ob.flushes = 0;
    char head[64];
    int n = snprintf(head, sizeof head, "# epoch %d bins %d\n", epoch, used);
    memcpy(ob.buf, head, (size_t)n);
    ob.len = (size_t)n;
    for (uint32_t h = 0; h < TABLE_SIZE; h++)
        if (table[h].count) emit_record(&ob, &table[h]);
    flush_buffer(&ob);
    close(ob.fd);
    return ob.flushes;
}

/* read the whole file with read() in 64 KiB pieces, parse line by line */
static int verify_dump(const char *path, int epoch_bins_expected, int final_epoch)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); return 1; }
    static char chunk[WBUF + 128];
    size_t carry = 0;
    int lines = 0, bad = 0, header_seen = 0, bins = -1;
    for (;;) {
        ssize_t r = read(fd, chunk + carry, WBUF);
        if (r < 0) { perror("read"); close(fd); return 1; }
        size_t avail = carry + (size_t)r, start = 0;
        for (size_t i = 0; i < avail; i++) {
            if (chunk[i] != '\n') continue;
            chunk[i] = '\0';
            const char *ln = chunk + start;
            if (!header_seen) {
                int ep;
                if (sscanf(ln, "# epoch %d bins %d", &ep, &bins) != 2) bad++;
                header_seen = 1;
            } else {
                int ix, iy; long long cnt; double ws;
                if (sscanf(ln, "%d %d %lld %lg", &ix, &iy, &cnt, &ws) != 4) { bad++; }
                else if (final_epoch) {
                    bin_t *b = lookup(ix, iy, 0);
                    if (!b || b->count != cnt || b->wsum != ws) bad++;
                }
                lines++;
            }
            start = i + 1;
        }
        carry = avail - start;
        memmove(chunk, chunk + start, carry);
        if (r == 0) break;
    }
    close(fd);
    if (carry != 0 || bins != epoch_bins_expected || lines != bins) bad++;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    double ox[ORBITS], oy[ORBITS];
    for (int o = 0; o < ORBITS; o++) { ox[o] = 0.1 + 0.001 * o; oy[o] = 0.05 - 0.0007 * o; }
    uint64_t seed = 0xC0FFEE1234ULL;
    int bins_at[NEPOCH];
    char path[512];
    for (int e = 0; e < NEPOCH; e++) {
        accumulate_epoch(ox, oy, &seed);
        snprintf(path, sizeof path, "%s/histo_epoch%02d.txt", argv[1], e);
        long fl = dump_histogram(path, e);
        bins_at[e] = used;
        printf("epoch %d: %d occupied bins, %ld writes\n", e, used, fl);
    }
    int bad = 0;
    for (int e = 0; e < NEPOCH; e++) {
        snprintf(path, sizeof path, "%s/histo_epoch%02d.txt", argv[1], e);
        bad += verify_dump(path, bins_at[e], e == NEPOCH - 1);
    }
    long long total = 0;
    for (uint32_t h = 0; h < TABLE_SIZE; h++) total += table[h].count;
    if (total != (long long)NEPOCH * ORBITS * ITERS_PER_EPOCH) bad++;
    if (bad) fprintf(stderr, "%d verification failures\n", bad);
    return bad ? 1 : 0;
}
