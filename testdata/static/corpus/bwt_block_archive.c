/* Block-sorting archiver: synthetic web-server access log is written as
 * text, then compressed block by block (BWT via cyclic-shift doubling,
 * move-to-front, zero-run coding, Elias-gamma bit packing) into one archive
 * with a trailing block index. The index is read from the file tail and
 * a random subset of blocks is fetched with pread, decoded and checked
 * against the original mapped with mmap. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 65536
#define NLINES 110000
#define NCHECK 120

typedef struct { uint64_t off; uint32_t clen, rawlen, primary, crc; } blk_index;

static uint32_t seed = 12345u;
#define RND() ((seed = seed * 1103515245u + 12345u) >> 8 & 0xffffff)
#define fatal(m, p) do { fprintf(stderr, "%s %s: %s\n", (m), (p), strerror(errno)); exit(1); } while (0)

static uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & -(c & 1));
    }
    return ~c;
}

static long gen_log(const char *path)
{
    static const char *paths[] = {"/index.html", "/api/v2/items", "/static/app.js",
                                  "/img/logo.png", "/login", "/api/v2/search?q=", "/feed.xml"};
    static const char *agents[] = {"Mozilla/5.0", "curl/8.1", "Googlebot/2.1", "python-requests/2.31"};
    static const int codes[] = {200, 200, 200, 304, 404, 500, 301};
    FILE *f = fopen(path, "w");
    if (!f) fatal("fopen", path);
    long t = 1700000000;
    for (int i = 0; i < NLINES; i++) {
        uint32_t r[9];
        for (int k = 0; k < 9; k++) r[k] = RND();
        t += r[0] % 3;
        fprintf(f, "10.%u.%u.%u - - [%ld] \"GET %s%s HTTP/1.1\" %d %u \"%s\"\n", r[1] % 4,
                r[2] % 16, r[3] % 256, t, paths[r[4] % 7], (r[5] % 5) ? "" : "42",
                codes[r[6] % 7], 200 + r[7] % 40000, agents[r[8] % 4]);
    }
    if (fclose(f)) fatal("fclose", path);
    struct stat st;
    if (stat(path, &st)) fatal("stat", path);
    return (long)st.st_size;
}

/* sort cyclic rotations by prefix doubling with counting sort */
static uint32_t bwt(const uint8_t *s, int n, uint8_t *out, int *p, int *c, int *pn, int *cn)
{
    int cnt[256 > BLOCK ? 256 : BLOCK];
    memset(cnt, 0, sizeof(int) * 256);
    for (int i = 0; i < n; i++) cnt[s[i]]++;
    for (int i = 1; i < 256; i++) cnt[i] += cnt[i - 1];
    for (int i = 0; i < n; i++) p[--cnt[s[i]]] = i;
    c[p[0]] = 0;
    int classes = 1;
    for (int i = 1; i < n; i++) {
        if (s[p[i]] != s[p[i - 1]]) classes++;
        c[p[i]] = classes - 1;
    }
    for (int h = 0; (1 << h) < n && classes < n; h++) {
        for (int i = 0; i < n; i++) {
            pn[i] = p[i] - (1 << h);
            if (pn[i] < 0) pn[i] += n;
        }
        memset(cnt, 0, sizeof(int) * classes);
        for (int i = 0; i < n; i++) cnt[c[pn[i]]]++;
        for (int i = 1; i < classes; i++) cnt[i] += cnt[i - 1];
        for (int i = n - 1; i >= 0; i--) p[--cnt[c[pn[i]]]] = pn[i];
        cn[p[0]] = 0;
        classes = 1;
        for (int i = 1; i < n; i++) {
            int a1 = c[p[i]], a2 = c[(p[i] + (1 << h)) % n];
            int b1 = c[p[i - 1]], b2 = c[(p[i - 1] + (1 << h)) % n];
            if (a1 != b1 || a2 != b2) classes++;
            cn[p[i]] = classes - 1;
        }
        memcpy(c, cn, sizeof(int) * n);
    }
    uint32_t primary = 0;
    for (int i = 0; i < n; i++) {
        out[i] = s[(p[i] + n - 1) % n];
        if (p[i] == 0) primary = (uint32_t)i;
    }
    return primary;
}

static void unbwt(const uint8_t *l, int n, uint32_t primary, uint8_t *out, int *t)
{
    int cnt[256] = {0}, base[256];
    for (int i = 0; i < n; i++) cnt[l[i]]++;
    int sum = 0;
    for (int i = 0; i < 256; i++) { base[i] = sum; sum += cnt[i]; }
    for (int i = 0; i < n; i++) t[base[l[i]]++] = i;
    int j = t[primary];
    for (int i = 0; i < n; i++) { out[i] = l[j]; j = t[j]; }
}

/* MSB-first bit writer/reader and Elias-gamma codes (v >= 1) */
#define PUT_BITS(buf, bit, v, nb) do { for (int q_ = (nb) - 1; q_ >= 0; q_--) { \
        if (((v) >> q_) & 1) { (buf)[(bit) >> 3] |= (uint8_t)(0x80 >> ((bit) & 7)); } \
        (bit)++; } } while (0)
#define PUT_GAMMA(buf, bit, v) do { int nb_ = 32 - __builtin_clz(v); \
        (bit) += nb_ - 1; PUT_BITS(buf, bit, v, nb_); } while (0)
#define GET_BIT(buf, pos) ((pos)++, ((buf)[((pos) - 1) >> 3] >> (7 - (((pos) - 1) & 7))) & 1)
#define GET_GAMMA(buf, pos, out) do { int z_ = 0; uint32_t b_; \
        for (;;) { b_ = GET_BIT(buf, pos); if (b_) break; z_++; } \
        (out) = 1; while (z_--) { b_ = GET_BIT(buf, pos); (out) = ((out) << 1) | b_; } } while (0)

/* MTF, then code zero runs as flag 0 + gamma(run) and other ranks as flag 1 + gamma(rank) */
static size_t mtf_pack(const uint8_t *l, int n, uint8_t *dst)
{
    uint8_t order[256];
    for (int i = 0; i < 256; i++) order[i] = (uint8_t)i;
    size_t bit = 0;
    memset(dst, 0, (size_t)n * 3 + 64);
    int run = 0;
    for (int i = 0; i < n; i++) {
        int r = 0;
        while (order[r] != l[i]) r++;
        memmove(order + 1, order, r);
        order[0] = l[i];
        if (r == 0) { run++; continue; }
        if (run) { bit++; PUT_GAMMA(dst, bit, (uint32_t)run); run = 0; }
        PUT_BITS(dst, bit, 1u, 1);
        PUT_GAMMA(dst, bit, (uint32_t)r);
    }
    if (run) { bit++; PUT_GAMMA(dst, bit, (uint32_t)run); }
    return (bit + 7) / 8;
}

static void mtf_unpack(const uint8_t *src, int n, uint8_t *l)
{
    uint8_t order[256];
    for (int i = 0; i < 256; i++) order[i] = (uint8_t)i;
    size_t pos = 0;
    int i = 0;
    while (i < n) {
        uint32_t flag = GET_BIT(src, pos), v;
        GET_GAMMA(src, pos, v);
        if (!flag) {
            while (v-- && i < n) l[i++] = order[0];
        } else {
            uint32_t r = v;
            uint8_t c = order[r];
            memmove(order + 1, order, r);
            order[0] = c;
            l[i++] = c;
        }
    }
}

static int compress_file(const char *in, const char *arc, blk_index **idx_out)
{
    FILE *fi = fopen(in, "rb");
    if (!fi) fatal("fopen", in);
    int fo = open(arc, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0) fatal("open", arc);
    uint8_t *raw = malloc(BLOCK), *l = malloc(BLOCK), *packed = malloc(BLOCK * 3 + 64);
    int *p = malloc(sizeof(int) * BLOCK * 4);
    int cap = 16, nb = 0;
    blk_index *idx = malloc(sizeof(blk_index) * cap);
    if (!raw || !l || !packed || !p || !idx) exit(1);
    uint64_t off = 8;
    if (write(fo, "BWTARC01", 8) != 8) fatal("write", arc);
    size_t got;
    while ((got = fread(raw, 1, BLOCK, fi)) > 0) {
        uint32_t prim = bwt(raw, (int)got, l, p, p + BLOCK, p + 2 * BLOCK, p + 3 * BLOCK);
        size_t clen = mtf_pack(l, (int)got, packed);
        if (nb == cap) { cap *= 2; idx = realloc(idx, sizeof(blk_index) * cap); if (!idx) exit(1); }
        idx[nb] = (blk_index){off, (uint32_t)clen, (uint32_t)got, prim, crc32(raw, got)};
        if (write(fo, packed, clen) != (ssize_t)clen) fatal("write", arc);
        off += clen;
        nb++;
    }
    if (ferror(fi)) fatal("fread", in);
    fclose(fi);
    /* footer: index table then count and magic */
    if (write(fo, idx, sizeof(blk_index) * nb) != (ssize_t)(sizeof(blk_index) * nb)) fatal("write", arc);
    uint32_t tail[2] = {(uint32_t)nb, 0x58444e49u};
    if (write(fo, tail, sizeof tail) != sizeof tail) fatal("write", arc);
    if (fsync(fo)) fatal("fsync", arc);
    close(fo);
    free(raw); free(l); free(packed); free(p);
    *idx_out = idx;
    return nb;
}

static int verify_blocks(const char *in, const char *arc)
{
    int fa = open(arc, O_RDONLY), fi = open(in, O_RDONLY);
    if (fa < 0 || fi < 0) fatal("open", arc);
    struct stat st;
    if (fstat(fi, &st)) fatal("fstat", in);
    const uint8_t *orig = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fi, 0);
    if (orig == MAP_FAILED) fatal("mmap", in);
    /* footer: [index table][count][magic] at the end of the archive */
    uint32_t tail[2];
    off_t end = lseek(fa, 0, SEEK_END);
    if (end < 16 || lseek(fa, end - 8, SEEK_SET) < 0 || read(fa, tail, 8) != 8 || tail[1] != 0x58444e49u)
        fatal("footer", arc);
    size_t isz = sizeof(blk_index) * tail[0];
    blk_index *idx = malloc(isz);
    if (!idx || lseek(fa, end - 8 - (off_t)isz, SEEK_SET) < 0 || read(fa, idx, isz) != (ssize_t)isz)
        fatal("index", arc);
    int nb = (int)tail[0], bad = 0;
    uint8_t *cbuf = malloc(BLOCK * 3 + 64), *l = malloc(BLOCK), *out = malloc(BLOCK);
    int *t = malloc(sizeof(int) * BLOCK);
    if (!cbuf || !l || !out || !t) exit(1);
    for (int k = 0; k < NCHECK; k++) {
        int b = (int)(RND() % nb);
        if (pread(fa, cbuf, idx[b].clen, (off_t)idx[b].off) != (ssize_t)idx[b].clen) fatal("pread", arc);
        mtf_unpack(cbuf, (int)idx[b].rawlen, l);
        unbwt(l, (int)idx[b].rawlen, idx[b].primary, out, t);
        if (crc32(out, idx[b].rawlen) != idx[b].crc ||
            memcmp(out, orig + (size_t)b * BLOCK, idx[b].rawlen)) bad++;
    }
    munmap((void *)orig, st.st_size);
    close(fa); close(fi);
    free(idx); free(cbuf); free(l); free(out); free(t);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char in[4096], arc[4096], rep[4096];
    mkdir(argv[1], 0755);
    snprintf(in, sizeof in, "%s/access.log", argv[1]);
    snprintf(arc, sizeof arc, "%s/access.bwa", argv[1]);
    snprintf(rep, sizeof rep, "%s/blocks.tsv", argv[1]);
    long raw = gen_log(in);
    blk_index *idx;
    int nb = compress_file(in, arc, &idx);
    FILE *r = fopen(rep, "w");
    if (!r) fatal("fopen", rep);
    uint64_t csum = 0;
    for (int b = 0; b < nb; b++) {
        fprintf(r, "%d\t%llu\t%u\t%u\t%.3f\n", b, (unsigned long long)idx[b].off, idx[b].rawlen,
                idx[b].clen, 8.0 * idx[b].clen / idx[b].rawlen);
        csum += idx[b].clen;
    }
    if (fclose(r)) fatal("fclose", rep);
    free(idx);
    int bad = verify_blocks(in, arc);
    printf("bwt archive: %ld -> %llu bytes (%.2f bpc) in %d blocks, %d bad\n", raw,
           (unsigned long long)csum, 8.0 * csum / raw, nb, bad);
    return bad != 0;
}
