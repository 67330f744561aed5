/*
 * tick_column_store_query.c
 *
 * A small columnar store for one trading day of equity trade ticks.
 * Ticks (timestamp, symbol, price, size, side, venue, condition) are
 * generated for 64 symbols with staggered trading sessions, then written
 * into a column file made of row groups: each column chunk is encoded
 * (delta+varint timestamps, frame-of-reference prices, raw integers),
 * CRC-32 protected and placed with pwrite at its computed offset; a footer
 * with per-chunk offsets, lengths, CRCs and min/max zone maps plus a header
 * are pwrite'n last.  A per-symbol row-group bitmap index is written to a
 * second file.  The query side then works purely with pread:
 *   - VWAP per symbol over random 10-minute windows (zone-map pruning),
 *   - one-minute OHLC bars for selected symbols (index pruning), to CSV,
 *   - random point lookups of single values,
 *   - trade busts: read-modify-write of size chunks and footer in place,
 *   - a final scrub that re-reads and checksums every chunk.
 *
 * usage: tick_column_store_query OUTDIR
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

#define NSYM 64
#define NROWS 2400000
#define RG 65536
#define NRG ((NROWS + RG - 1) / RG)
#define NCOL 7
#define DAY_NS (23400LL * 1000000000LL)
#define HDR 4096
#define NWINDOWS 40
#define NLOOKUPS 20000
#define NBUSTS 3000

_Static_assert(NRG <= 64, "row-group bitmap in the symbol index is 64 bits");

enum { C_TS, C_SYM, C_PRICE, C_QTY, C_SIDE, C_VENUE, C_COND };
static const char *col_names[NCOL] = {"ts", "sym", "price", "qty", "side", "venue", "cond"};

typedef struct {
    uint64_t offset;
    uint32_t length, crc;
    int64_t min, max;
} ChunkMeta;

typedef struct {
    uint32_t nrows, pad;
    ChunkMeta col[NCOL];
} RowGroupMeta;

typedef struct {
    char magic[8];
    uint32_t nrg, ncol, rows_per_group, nsym;
    uint64_t nrows, footer_offset, footer_length;
} FileHeader;

typedef struct {
    int64_t *ts, *price;
    uint16_t *sym;
    int32_t *qty;
    uint8_t *side, *venue, *cond;
} Ticks;

static const char *outdir;
static uint32_t crc_table[256];
static RowGroupMeta meta[NRG];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "tick_column_store_query: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) die("out of memory", NULL);
    return p;
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_buf(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void pwrite_full(int fd, const void *buf, size_t n, off_t off)
{
    const char *p = buf;
    while (n) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite", NULL);
        }
        p += w; n -= (size_t)w; off += w;
    }
}

static void pread_full(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            die("pread", NULL);
        }
        if (r == 0) { errno = EIO; die("pread: unexpected end of file", NULL); }
        p += r; n -= (size_t)r; off += r;
    }
}

/* Poisson arrivals over the day; symbols drawn by popularity among those
 * whose session is open; per-symbol random-walk prices in 1e-4 units. */
static void generate_ticks(Ticks *t)
{
    uint64_t s = 0x7ac4b00bULL;
#define NEXT() (s ^= s << 13, s ^= s >> 7, s ^= s << 17)
    int64_t price[NSYM];
    double cum[NSYM], tot = 0;
    int64_t open_ns[NSYM], close_ns[NSYM];
    for (int k = 0; k < NSYM; k++) {
        price[k] = 200000 + 37000LL * k;
        tot += 1.0 / (1.0 + k * 0.35);
        cum[k] = tot;
        open_ns[k] = k < 8 ? 0 : (k % 8) * 1800LL * 1000000000LL;
        close_ns[k] = k < 8 ? DAY_NS : open_ns[k] + (3 * 3600LL + (k % 5) * 1800LL) * 1000000000LL;
        if (close_ns[k] > DAY_NS) close_ns[k] = DAY_NS;
    }
    int64_t ts = 0;
    const double mean_gap = (double)DAY_NS / NROWS;
    for (long i = 0; i < NROWS; i++) {
        NEXT();
        double u = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
        ts += 1 + (int64_t)(-mean_gap * log(u));
        if (ts >= DAY_NS) ts = DAY_NS - 1;
        int k;
        do {
            NEXT();
            double v = ((double)(s >> 11) / 9007199254740992.0) * tot;
            k = 0;
            while (cum[k] < v) k++;
        } while (ts < open_ns[k] || ts >= close_ns[k]);
        NEXT();
        int64_t step = (int64_t)(s % 41) - 20;
        price[k] += step * (1 + k % 3);
        if (price[k] < 10000) price[k] = 10000;
        t->ts[i] = ts;
        t->sym[i] = (uint16_t)k;
        t->price[i] = price[k];
        NEXT();
        t->qty[i] = (int32_t)(100 * (1 + (s % 10)) + (int32_t)((s >> 8) % 4 == 0 ? (s >> 16) % 5000 : 0));
        t->side[i] = (uint8_t)((s >> 24) & 1);
        t->venue[i] = (uint8_t)((s >> 32) % 12);
        t->cond[i] = (uint8_t)(((s >> 40) % 50) == 0 ? 2 : 0);
    }
#undef NEXT
}

/* Encode one column chunk of a row group into buf; returns byte length. */
static uint32_t encode_chunk(const Ticks *t, int col, long r0, uint32_t n, unsigned char *buf, ChunkMeta *cm)
{
    uint32_t len = 0;
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    switch (col) {
    case C_TS: {
        int64_t prev = t->ts[r0];
        memcpy(buf, &prev, 8);
        len = 8;
        mn = t->ts[r0]; mx = t->ts[r0 + n - 1];
        for (uint32_t i = 1; i < n; i++) {
            uint64_t d = (uint64_t)(t->ts[r0 + i] - prev);
            prev = t->ts[r0 + i];
            while (d >= 0x80) { buf[len++] = (unsigned char)(d | 0x80); d >>= 7; }
            buf[len++] = (unsigned char)d;
        }
        break;
    }
    case C_PRICE: {
        for (uint32_t i = 0; i < n; i++) {
            if (t->price[r0 + i] < mn) mn = t->price[r0 + i];
            if (t->price[r0 + i] > mx) mx = t->price[r0 + i];
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)(t->price[r0 + i] - mn);
            memcpy(buf + 4 * i, &v, 4);
        }
        len = 4 * n;
        break;
    }
    case C_SYM:
        for (uint32_t i = 0; i < n; i++) {
            if (t->sym[r0 + i] < mn) mn = t->sym[r0 + i];
            if (t->sym[r0 + i] > mx) mx = t->sym[r0 + i];
        }
        memcpy(buf, t->sym + r0, 2 * (size_t)n);
        len = 2 * n;
        break;
    case C_QTY:
        for (uint32_t i = 0; i < n; i++) {
            if (t->qty[r0 + i] < mn) mn = t->qty[r0 + i];
            if (t->qty[r0 + i] > mx) mx = t->qty[r0 + i];
        }
        memcpy(buf, t->qty + r0, 4 * (size_t)n);
        len = 4 * n;
        break;
    default: {
        const uint8_t *src = col == C_SIDE ? t->side : col == C_VENUE ? t->venue : t->cond;
        for (uint32_t i = 0; i < n; i++) {
            if (src[r0 + i] < mn) mn = src[r0 + i];
            if (src[r0 + i] > mx) mx = src[r0 + i];
        }
        memcpy(buf, src + r0, n);
        len = n;
    }
    }
    cm->length = len;
    cm->crc = crc32_buf(buf, len);
    cm->min = mn;
    cm->max = mx;
    return len;
}

/* Column file: chunks pwrite'n at increasing offsets, then footer, then
 * the header at offset 0. */
static uint64_t write_table(const Ticks *t)
{
    char path[600];
    snprintf(path, sizeof path, "%s/trades.col", outdir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    unsigned char *buf = xmalloc((size_t)RG * 10);
    uint64_t off = HDR;
    for (int g = 0; g < NRG; g++) {
        long r0 = (long)g * RG;
        uint32_t n = (uint32_t)(NROWS - r0 < RG ? NROWS - r0 : RG);
        meta[g].nrows = n;
        for (int c = 0; c < NCOL; c++) {
            uint32_t len = encode_chunk(t, c, r0, n, buf, &meta[g].col[c]);
            meta[g].col[c].offset = off;
            pwrite_full(fd, buf, len, (off_t)off);
            off += (len + 63) & ~63u; /* 64-byte aligned chunks */
        }
    }
    FileHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "TICKCOL1", 8);
    h.nrg = NRG; h.ncol = NCOL; h.rows_per_group = RG; h.nsym = NSYM;
    h.nrows = NROWS;
    h.footer_offset = off;
    h.footer_length = sizeof meta;
    pwrite_full(fd, meta, sizeof meta, (off_t)off);
    uint32_t fcrc = crc32_buf(meta, sizeof meta);
    pwrite_full(fd, &fcrc, 4, (off_t)(off + sizeof meta));
    pwrite_full(fd, &h, sizeof h, 0);
    if (fdatasync(fd) != 0) die("fdatasync", path);
    if (close(fd) != 0) die("close", path);
    free(buf);
    return off + sizeof meta + 4;
}

/* Per-symbol bitmap of row groups plus per-(symbol, group) row counts. */
static void build_symbol_index(const Ticks *t)
{
    char path[600];
    snprintf(path, sizeof path, "%s/trades.symidx", outdir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    static uint32_t counts[NSYM][NRG];
    memset(counts, 0, sizeof counts);
    for (long i = 0; i < NROWS; i++) counts[t->sym[i]][i / RG]++;
    for (int k = 0; k < NSYM; k++) {
        uint64_t bitmap = 0;
        for (int g = 0; g < NRG; g++)
            if (counts[k][g]) bitmap |= 1ULL << g;
        off_t rec = (off_t)k * (8 + 4 * NRG);
        pwrite_full(fd, &bitmap, 8, rec);
        pwrite_full(fd, counts[k], 4 * NRG, rec + 8);
    }
    if (close(fd) != 0) die("close", path);
}

static void load_footer(int fd)
{
    FileHeader h;
    pread_full(fd, &h, sizeof h, 0);
    if (memcmp(h.magic, "TICKCOL1", 8) != 0 || h.nrg != NRG || h.footer_length != sizeof meta) {
        errno = EINVAL;
        die("bad column file header", NULL);
    }
    pread_full(fd, meta, sizeof meta, (off_t)h.footer_offset);
    uint32_t fcrc;
    pread_full(fd, &fcrc, 4, (off_t)(h.footer_offset + sizeof meta));
    if (fcrc != crc32_buf(meta, sizeof meta)) { errno = EIO; die("footer CRC mismatch", NULL); }
}

/* pread one chunk, verify CRC and decode into 64-bit values. */
static void read_column(int fd, int g, int col, unsigned char *raw, int64_t *out)
{
    const ChunkMeta *cm = &meta[g].col[col];
    uint32_t n = meta[g].nrows;
    pread_full(fd, raw, cm->length, (off_t)cm->offset);
    if (crc32_buf(raw, cm->length) != cm->crc) { errno = EIO; die("chunk CRC mismatch", col_names[col]); }
    if (col == C_TS) {
        int64_t v;
        memcpy(&v, raw, 8);
        out[0] = v;
        uint32_t p = 8;
        for (uint32_t i = 1; i < n; i++) {
            uint64_t d = 0;
            int shift = 0;
            while (raw[p] & 0x80) { d |= (uint64_t)(raw[p++] & 0x7f) << shift; shift += 7; }
            d |= (uint64_t)raw[p++] << shift;
            v += (int64_t)d;
            out[i] = v;
        }
    } else if (col == C_PRICE) {
        for (uint32_t i = 0; i < n; i++) { uint32_t u; memcpy(&u, raw + 4 * i, 4); out[i] = cm->min + u; }
    } else if (col == C_SYM) {
        for (uint32_t i = 0; i < n; i++) { uint16_t u; memcpy(&u, raw + 2 * i, 2); out[i] = u; }
    } else if (col == C_QTY) {
        for (uint32_t i = 0; i < n; i++) { int32_t u; memcpy(&u, raw + 4 * i, 4); out[i] = u; }
    } else {
        for (uint32_t i = 0; i < n; i++) out[i] = raw[i];
    }
}

/* VWAP per symbol in random 10-minute windows, zone maps prune groups. */
static double query_vwap_windows(int fd, long *groups_read)
{
    int64_t *ts = xmalloc(RG * 8), *sym = xmalloc(RG * 8), *px = xmalloc(RG * 8), *qty = xmalloc(RG * 8);
    unsigned char *raw = xmalloc((size_t)RG * 10);
    double checksum = 0;
    *groups_read = 0;
    uint64_t s = 99;
    for (int w = 0; w < NWINDOWS; w++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t t0 = (int64_t)((s >> 20) % (uint64_t)(DAY_NS - 600LL * 1000000000LL));
        int64_t t1 = t0 + 600LL * 1000000000LL;
        double pq[NSYM] = {0}, q[NSYM] = {0};
        for (int g = 0; g < NRG; g++) {
            if (meta[g].col[C_TS].max < t0 || meta[g].col[C_TS].min >= t1) continue;
            (*groups_read)++;
            read_column(fd, g, C_TS, raw, ts);
            read_column(fd, g, C_SYM, raw, sym);
            read_column(fd, g, C_PRICE, raw, px);
            read_column(fd, g, C_QTY, raw, qty);
            for (uint32_t i = 0; i < meta[g].nrows; i++)
                if (ts[i] >= t0 && ts[i] < t1) {
                    pq[sym[i]] += (double)px[i] * 1e-4 * (double)qty[i];
                    q[sym[i]] += (double)qty[i];
                }
        }
        for (int k = 0; k < NSYM; k++)
            if (q[k] > 0) checksum += pq[k] / q[k];
    }
    free(ts); free(sym); free(px); free(qty); free(raw);
    return checksum;
}

/* 1-minute OHLC bars for a few symbols, using the symbol index. */
static long query_ohlc_bars(int fd, const int *syms, int nq)
{
    char path[600];
    snprintf(path, sizeof path, "%s/trades.symidx", outdir);
    int ifd = open(path, O_RDONLY);
    if (ifd < 0) die("open", path);
    snprintf(path, sizeof path, "%s/ohlc_1min.csv", outdir);
    FILE *out = fopen(path, "w");
    if (!out) die("fopen", path);
    fprintf(out, "symbol,minute,open,high,low,close,volume,trades\n");
    int64_t *ts = xmalloc(RG * 8), *sym = xmalloc(RG * 8), *px = xmalloc(RG * 8), *qty = xmalloc(RG * 8);
    unsigned char *raw = xmalloc((size_t)RG * 10);
    const int nmin = 390;
    long bars = 0;
    for (int qi = 0; qi < nq; qi++) {
        int k = syms[qi];
        uint64_t bitmap;
        pread_full(ifd, &bitmap, 8, (off_t)k * (8 + 4 * NRG));
        int64_t o[390], h[390], l[390], c[390], v[390], n[390];
        memset(n, 0, sizeof n);
        memset(v, 0, sizeof v);
        for (int g = 0; g < NRG; g++) {
            if (!(bitmap >> g & 1)) continue;
            read_column(fd, g, C_TS, raw, ts);
            read_column(fd, g, C_SYM, raw, sym);
            read_column(fd, g, C_PRICE, raw, px);
            read_column(fd, g, C_QTY, raw, qty);
            for (uint32_t i = 0; i < meta[g].nrows; i++) {
                if (sym[i] != k || qty[i] == 0) continue;
                int m = (int)(ts[i] / (60LL * 1000000000LL));
                if (m >= nmin) m = nmin - 1;
                if (!n[m]) { o[m] = h[m] = l[m] = px[i]; }
                if (px[i] > h[m]) h[m] = px[i];
                if (px[i] < l[m]) l[m] = px[i];
                c[m] = px[i];
                v[m] += qty[i];
                n[m]++;
            }
        }
        for (int m = 0; m < nmin; m++) {
            if (!n[m]) continue;
            fprintf(out, "SYM%02d,%d,%.4f,%.4f,%.4f,%.4f,%lld,%lld\n", k, m, o[m] * 1e-4, h[m] * 1e-4,
                    l[m] * 1e-4, c[m] * 1e-4, (long long)v[m], (long long)n[m]);
            bars++;
        }
    }
    if (ferror(out) || fclose(out) != 0) die("write", path);
    close(ifd);
    free(ts); free(sym); free(px); free(qty); free(raw);
    return bars;
}

/* Random single-value lookups straight from fixed-width columns. */
static double point_lookups(int fd)
{
    uint64_t s = 4242;
    double sum = 0;
    for (int q = 0; q < NLOOKUPS; q++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        long row = (long)((s >> 17) % NROWS);
        int g = (int)(row / RG);
        uint32_t i = (uint32_t)(row % RG);
        uint32_t u;
        int32_t qv;
        pread_full(fd, &u, 4, (off_t)(meta[g].col[C_PRICE].offset + 4ULL * i));
        pread_full(fd, &qv, 4, (off_t)(meta[g].col[C_QTY].offset + 4ULL * i));
        sum += (double)(meta[g].col[C_PRICE].min + u) * 1e-4 * qv;
    }
    return sum;
}

/* Trade busts: zero the size of random trades; each touched qty chunk is
 * read, patched, re-checksummed and written back, then the footer. */
static int bust_trades(int fd)
{
    static long rows[NBUSTS];
    uint64_t s = 777;
    for (int b = 0; b < NBUSTS; b++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        rows[b] = (long)((s >> 17) % NROWS);
    }
    unsigned char *raw = xmalloc((size_t)RG * 4);
    int touched = 0;
    for (int g = 0; g < NRG; g++) {
        ChunkMeta *cm = &meta[g].col[C_QTY];
        int hit = 0;
        for (int b = 0; b < NBUSTS; b++)
            if (rows[b] / RG == g) {
                if (!hit) pread_full(fd, raw, cm->length, (off_t)cm->offset);
                int32_t zero = 0;
                memcpy(raw + 4 * (rows[b] % RG), &zero, 4);
                hit = 1;
            }
        if (!hit) continue;
        cm->crc = crc32_buf(raw, cm->length);
        cm->min = 0;
        pwrite_full(fd, raw, cm->length, (off_t)cm->offset);
        touched++;
    }
    FileHeader h;
    pread_full(fd, &h, sizeof h, 0);
    pwrite_full(fd, meta, sizeof meta, (off_t)h.footer_offset);
    uint32_t fcrc = crc32_buf(meta, sizeof meta);
    pwrite_full(fd, &fcrc, 4, (off_t)(h.footer_offset + sizeof meta));
    if (fdatasync(fd) != 0) die("fdatasync", "trades.col");
    free(raw);
    return touched;
}

static long scrub(int fd, long *bytes)
{
    unsigned char *raw = xmalloc((size_t)RG * 10);
    long bad = 0;
    *bytes = 0;
    for (int g = 0; g < NRG; g++)
        for (int c = 0; c < NCOL; c++) {
            const ChunkMeta *cm = &meta[g].col[c];
            pread_full(fd, raw, cm->length, (off_t)cm->offset);
            if (crc32_buf(raw, cm->length) != cm->crc) bad++;
            *bytes += cm->length;
        }
    free(raw);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    crc_init();
    Ticks t;
    t.ts = xmalloc(NROWS * sizeof(int64_t));
    t.price = xmalloc(NROWS * sizeof(int64_t));
    t.sym = xmalloc(NROWS * sizeof(uint16_t));
    t.qty = xmalloc(NROWS * sizeof(int32_t));
    t.side = xmalloc(NROWS);
    t.venue = xmalloc(NROWS);
    t.cond = xmalloc(NROWS);
    generate_ticks(&t);
    uint64_t fsize = write_table(&t);
    build_symbol_index(&t);
    free(t.ts); free(t.price); free(t.sym); free(t.qty); free(t.side); free(t.venue); free(t.cond);

    char path[600];
    snprintf(path, sizeof path, "%s/trades.col", outdir);
    int fd = open(path, O_RDWR);
    if (fd < 0) die("open", path);
    load_footer(fd);
    long groups;
    double vw = query_vwap_windows(fd, &groups);
    const int qsyms[6] = {0, 3, 9, 17, 33, 60};
    long bars = query_ohlc_bars(fd, qsyms, 6);
    double pl = point_lookups(fd);
    int touched = bust_trades(fd);
    load_footer(fd);
    long scrubbed;
    long bad = scrub(fd, &scrubbed);
    if (close(fd) != 0) die("close", path);

    printf("column file %llu bytes: %d row groups x %d columns, %d rows\n", (unsigned long long)fsize, NRG,
           NCOL, NROWS);
    printf("vwap windows %d (%ld groups read, checksum %.2f), %ld OHLC bars, lookups sum %.1f\n", NWINDOWS,
           groups, vw, bars, pl);
    printf("busts rewrote %d chunks; scrub %ld bytes, %ld bad chunks\n", touched, scrubbed, bad);
    return bad ? 1 : 0;
}
