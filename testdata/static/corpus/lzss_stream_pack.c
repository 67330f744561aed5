/*
 * lzss_stream_pack: streaming LZSS compressor / decompressor for log files.
 * A synthetic service log is written with fprintf; the compressor reads it
 * in IN_CHUNK pieces with read() into a sliding window, finds matches with
 * hash chains, and emits flag-grouped tokens into its own output buffer that
 * is flushed with write() whenever it fills.  The decompressor streams the
 * packed file back the same way, and the result is compared with the
 * original through two read-only mmap()s.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_LINES   90000
#define IN_CHUNK    8192
#define OUT_CAP     4096
#define WSIZE       4096          /* window, offsets 1..WSIZE-1 */
#define MIN_MATCH   3
#define MAX_MATCH   18
#define HASH_BITS   14
#define MAX_CHAIN   48
#define PACK_MAGIC  0x31535a4cu   /* "LZS1" */

struct outbuf {
    int fd;
    size_t used;
    long nwrites;
    uint64_t total;
    unsigned char data[OUT_CAP];
};

struct inbuf {
    int fd;
    size_t pos, len;
    long nreads;
    unsigned char data[IN_CHUNK];
};

static void ob_flush(struct outbuf *ob)
{
    size_t off = 0;
    while (off < ob->used) {
        ssize_t w = write(ob->fd, ob->data + off, ob->used - off);
        if (w < 0) { if (errno == EINTR) continue; perror("write"); exit(1); }
        off += (size_t)w;
    }
    ob->nwrites++;
    ob->used = 0;
}

static void ob_put(struct outbuf *ob, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n) {
        size_t room = OUT_CAP - ob->used, k = n < room ? n : room;
        memcpy(ob->data + ob->used, s, k);
        ob->used += k;
        ob->total += k;
        s += k;
        n -= k;
        if (ob->used == OUT_CAP) ob_flush(ob);
    }
}

/* returns -1 at end of input */
static int ib_getc(struct inbuf *ib)
{
    if (ib->pos == ib->len) {
        ssize_t r;
        do r = read(ib->fd, ib->data, IN_CHUNK); while (r < 0 && errno == EINTR);
        if (r < 0) { perror("read"); exit(1); }
        ib->nreads++;
        if (r == 0) return -1;
        ib->len = (size_t)r;
        ib->pos = 0;
    }
    return ib->data[ib->pos++];
}

static void write_service_log(const char *path)
{
    static const char *svc[] = {"auth", "billing", "search", "catalog", "cart", "gateway"};
    static const char *lvl[] = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
    static const char *ep[] = {"users", "orders", "items", "sessions", "prices"};
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    uint32_t s = 12345u;
    long ms = 0;
    for (int i = 0; i < LOG_LINES; i++) {
        s = s * 1103515245u + 12345u;
        uint32_t r = s >> 8;
        ms += 1 + (r % 37);
        long sec = ms / 1000;
        fprintf(f, "2024-06-%02ld %02ld:%02ld:%02ld.%03ld host%02u svc=%s level=%s req=%08x latency_ms=%u path=/api/v1/%s/%u\n",
                1 + sec / 86400 % 28, sec / 3600 % 24, sec / 60 % 60, sec % 60, ms % 1000, r % 24,
                svc[r % 6], lvl[(r >> 4) % 6], (unsigned)(s ^ (s >> 13)), (r >> 7) % 900, ep[(r >> 3) % 5], (r >> 11) % 5000);
    }
    fclose(f);
}

static inline unsigned hash3(const unsigned char *p)
{
    return ((p[0] << 10) ^ (p[1] << 5) ^ p[2]) & ((1u << HASH_BITS) - 1);
}

struct lz_state {
    unsigned char win[2 * WSIZE + 2 * IN_CHUNK];
    int64_t head[1 << HASH_BITS];
    int64_t prev[WSIZE];
    uint64_t base;      /* absolute position of win[0] */
    uint64_t filled;    /* absolute position one past last loaded byte */
};

static void lz_fill(struct lz_state *z, struct inbuf *ib, uint64_t cur)
{
    /* keep WSIZE bytes of history behind cur, then top up from the input */
    if (cur - z->base > WSIZE + IN_CHUNK) {
        uint64_t keep_from = cur - WSIZE;
        memmove(z->win, z->win + (keep_from - z->base), (size_t)(z->filled - keep_from));
        z->base = keep_from;
    }
    while (z->filled - z->base < sizeof z->win - 1) {
        int c = ib_getc(ib);
        if (c < 0) break;
        z->win[z->filled++ - z->base] = (unsigned char)c;
        if (z->filled - cur >= IN_CHUNK + MAX_MATCH) break;
    }
}

static int longest_match(const struct lz_state *z, uint64_t cur, uint64_t cand_start, int *best_off)
{
    const unsigned char *p = z->win + (cur - z->base);
    int maxlen = (int)(z->filled - cur < MAX_MATCH ? z->filled - cur : MAX_MATCH);
    int best = 0, chain = 0;
    int64_t cand = (int64_t)cand_start;
    while (cand >= 0 && chain++ < MAX_CHAIN) {
        if ((uint64_t)cand >= cur || cur - (uint64_t)cand >= WSIZE || (uint64_t)cand < z->base) break;
        const unsigned char *q = z->win + ((uint64_t)cand - z->base);
        int l = 0;
        while (l < maxlen && p[l] == q[l]) l++;
        if (l > best) {
            best = l;
            *best_off = (int)(cur - (uint64_t)cand);
            if (l == maxlen) break;
        }
        cand = z->prev[(uint64_t)cand & (WSIZE - 1)];
    }
    return best;
}

static void lz_insert(struct lz_state *z, uint64_t pos)
{
    if (z->filled - pos < MIN_MATCH) return;
    unsigned h = hash3(z->win + (pos - z->base));
    z->prev[pos & (WSIZE - 1)] = z->head[h];
    z->head[h] = (int64_t)pos;
}

static void compress_file(const char *src, const char *dst, struct outbuf *ob, long *nreads)
{
    static struct lz_state z;
    static struct inbuf ib;
    struct stat sb;
    memset(&ib, 0, sizeof ib);
    ib.fd = open(src, O_RDONLY);
    ob->fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ib.fd < 0 || ob->fd < 0 || fstat(ib.fd, &sb) != 0) { perror("compress open"); exit(1); }
    ob->used = 0; ob->nwrites = 0; ob->total = 0;
    uint32_t magic = PACK_MAGIC;
    uint64_t orig = (uint64_t)sb.st_size;
    ob_put(ob, &magic, 4);
    ob_put(ob, &orig, 8);

    memset(z.head, 0xff, sizeof z.head);
    memset(z.prev, 0xff, sizeof z.prev);
    z.base = z.filled = 0;
    unsigned char group[1 + 2 * 8];
    int nitems = 0, glen = 1;
    group[0] = 0;
    uint64_t cur = 0;
    for (;;) {
        if (z.filled - cur < MAX_MATCH + 1) lz_fill(&z, &ib, cur);
        if (cur >= z.filled) break;
        int off = 0, len = 0;
        if (z.filled - cur >= MIN_MATCH) {
            unsigned h = hash3(z.win + (cur - z.base));
            if (z.head[h] >= 0) len = longest_match(&z, cur, (uint64_t)z.head[h], &off);
        }
        if (len >= MIN_MATCH) {
            group[0] |= (unsigned char)(1u << nitems);
            uint16_t tok = (uint16_t)((off << 4) | (len - MIN_MATCH));
            group[glen++] = (unsigned char)(tok & 0xff);
            group[glen++] = (unsigned char)(tok >> 8);
            for (int k = 0; k < len; k++) lz_insert(&z, cur + k);
            cur += (uint64_t)len;
        } else {
            group[glen++] = z.win[cur - z.base];
            lz_insert(&z, cur);
            cur++;
        }
        if (++nitems == 8) {
            ob_put(ob, group, (size_t)glen);
            nitems = 0; glen = 1; group[0] = 0;
        }
    }
    if (nitems) ob_put(ob, group, (size_t)glen);
    ob_flush(ob);
    close(ib.fd);
    close(ob->fd);
    *nreads = ib.nreads;
    if (cur != orig) { fprintf(stderr, "lzss_stream_pack: consumed %llu of %llu bytes\n",
                               (unsigned long long)cur, (unsigned long long)orig); exit(2); }
}

static void decompress_file(const char *src, const char *dst, struct outbuf *ob)
{
    static struct inbuf ib;
    static unsigned char hist[WSIZE];
    memset(&ib, 0, sizeof ib);
    ib.fd = open(src, O_RDONLY);
    ob->fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ib.fd < 0 || ob->fd < 0) { perror("decompress open"); exit(1); }
    ob->used = 0; ob->nwrites = 0; ob->total = 0;
    unsigned char hdr[12];
    for (int i = 0; i < 12; i++) {
        int c = ib_getc(&ib);
        if (c < 0) { fprintf(stderr, "lzss_stream_pack: truncated header\n"); exit(3); }
        hdr[i] = (unsigned char)c;
    }
    uint32_t magic;
    uint64_t orig, out = 0;
    memcpy(&magic, hdr, 4);
    memcpy(&orig, hdr + 4, 8);
    if (magic != PACK_MAGIC) { fprintf(stderr, "lzss_stream_pack: bad magic\n"); exit(3); }
    while (out < orig) {
        int flags = ib_getc(&ib);
        if (flags < 0) break;
        for (int k = 0; k < 8 && out < orig; k++) {
            if (flags & (1 << k)) {
                int lo = ib_getc(&ib), hi = ib_getc(&ib);
                if (lo < 0 || hi < 0) { fprintf(stderr, "lzss_stream_pack: truncated match\n"); exit(3); }
                unsigned tok = (unsigned)lo | ((unsigned)hi << 8);
                unsigned off = tok >> 4, len = (tok & 15) + MIN_MATCH;
                for (unsigned j = 0; j < len; j++) {
                    unsigned char c = hist[(out - off) & (WSIZE - 1)];
                    hist[out & (WSIZE - 1)] = c;
                    ob_put(ob, &c, 1);
                    out++;
                }
            } else {
                int c = ib_getc(&ib);
                if (c < 0) { fprintf(stderr, "lzss_stream_pack: truncated literal\n"); exit(3); }
                unsigned char uc = (unsigned char)c;
                hist[out & (WSIZE - 1)] = uc;
                ob_put(ob, &uc, 1);
                out++;
            }
        }
    }
    ob_flush(ob);
    close(ib.fd);
    close(ob->fd);
}

static int compare_mapped(const char *a, const char *b)
{
    int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
    struct stat sa, sb;
    if (fa < 0 || fb < 0 || fstat(fa, &sa) || fstat(fb, &sb)) return -1;
    if (sa.st_size != sb.st_size) return -2;
    const unsigned char *pa = mmap(NULL, (size_t)sa.st_size, PROT_READ, MAP_PRIVATE, fa, 0);
    const unsigned char *pb = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fb, 0);
    if (pa == MAP_FAILED || pb == MAP_FAILED) return -3;
    int rc = memcmp(pa, pb, (size_t)sa.st_size) != 0 ? -4 : 0;
    munmap((void *)pa, (size_t)sa.st_size);
    munmap((void *)pb, (size_t)sb.st_size);
    close(fa);
    close(fb);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    mkdir(argv[1], 0755);
    char logp[1024], packp[1024], outp[1024];
    snprintf(logp, sizeof logp, "%s/service.log", argv[1]);
    snprintf(packp, sizeof packp, "%s/service.log.lzs", argv[1]);
    snprintf(outp, sizeof outp, "%s/service.log.out", argv[1]);

    write_service_log(logp);
    static struct outbuf ob;
    long nreads;
    compress_file(logp, packp, &ob, &nreads);
    uint64_t packed = ob.total;
    long cw = ob.nwrites;
    decompress_file(packp, outp, &ob);
    int rc = compare_mapped(logp, outp);
    if (rc != 0) { fprintf(stderr, "lzss_stream_pack: round trip mismatch (%d)\n", rc); return 4; }
    printf("lzss_stream_pack: %llu -> %llu bytes (%.1f%%), %ld reads, %ld+%ld writes, round trip ok\n",
           (unsigned long long)ob.total, (unsigned long long)packed, 100.0 * packed / ob.total,
           nreads, cw, ob.nwrites);
    return 0;
}
