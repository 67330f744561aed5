/*
 * bitmap_column_index.c
 *
 * A miniature column store with compressed bitmap indexes.  A synthetic
 * sales fact table is generated segment by segment and stored as one file
 * per (column, segment).  For the low-cardinality columns (region, channel)
 * a bitmap per distinct value and segment is built, run-length compressed
 * into 32-bit words and appended to a single blob file, with a fixed-size
 * directory of (offset, length) entries written at the end.  A query workload
 * then reads the directory, fetches the needed bitmaps with pread, ANDs /
 * ORs them, gathers the matching 'amount' values with pread from the column
 * files, and appends each answer to a query log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>

#define SEG_ROWS 131072
#define N_SEGS 14
#define N_REGION 12
#define N_CHANNEL 24
#define N_QUERIES 260
#define WORDS_PER_SEG (SEG_ROWS / 64)

typedef struct {
    uint8_t region[SEG_ROWS];
    uint8_t channel[SEG_ROWS];
    uint16_t day[SEG_ROWS];
    float amount[SEG_ROWS];
} segment_t;

typedef struct {
    uint64_t offset;
    uint32_t nwords;   /* compressed length in 32-bit words */
    uint32_t popcount;
} dir_entry_t;

typedef struct {
    int nentries;
    dir_entry_t *e;
} directory_t;

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Rows are roughly clustered by day and region, like a real load order. */
static void generate_segment(segment_t *s, int seg)
{
    for (int i = 0; i < SEG_ROWS; i++) {
        uint64_t h = mix64((uint64_t)seg * SEG_ROWS + i);
        int row = seg * SEG_ROWS + i;
        s->day[i] = (uint16_t)(row / 5000);
        s->region[i] = (uint8_t)(((row / 700) + (h % 8 == 0 ? h % N_REGION : 0)) % N_REGION);
        s->channel[i] = (uint8_t)((h >> 8) % 100 < 60 ? (h >> 16) % 4 : (h >> 16) % N_CHANNEL);
        s->amount[i] = (float)(5.0 + ((h >> 24) % 100000) / 100.0 * (1 + s->region[i] % 3));
    }
}

static void write_column(const char *dir, const char *col, int seg, const void *data, size_t bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.%03d.col", dir, col, seg);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    fwrite(data, 1, bytes, f);
    fclose(f);
}

/* Compress a 64-bit-word bitmap into 32-bit words: literal words carry 31
 * bits, fill words (MSB set) carry a bit value and a run count of 31-bit groups. */
static uint32_t rle_compress(const uint64_t *bm, int nwords64, uint32_t *out)
{
    int nbits = nwords64 * 64;
    uint32_t n = 0;
    for (int start = 0; start < nbits; start += 31) {
        uint32_t grp = 0;
        for (int b = 0; b < 31 && start + b < nbits; b++) {
            int bit = start + b;
            if (bm[bit >> 6] >> (bit & 63) & 1) grp |= 1u << b;
        }
        int fillv = grp == 0 ? 0 : (grp == 0x7fffffffu ? 1 : -1);
        if (fillv >= 0 && n > 0 && (out[n - 1] >> 31) && ((out[n - 1] >> 30) & 1) == (uint32_t)fillv
            && (out[n - 1] & 0x3fffffffu) < 0x3fffffffu) {
            out[n - 1]++;
        } else if (fillv >= 0) {
            out[n++] = 0x80000000u | ((uint32_t)fillv << 30) | 1u;
        } else {
            out[n++] = grp;
        }
    }
    return n;
}

static void rle_expand(const uint32_t *in, uint32_t nin, uint64_t *bm, int nwords64)
{
    memset(bm, 0, (size_t)nwords64 * 8);
    int nbits = nwords64 * 64, pos = 0;
    for (uint32_t i = 0; i < nin && pos < nbits; i++) {
        uint32_t w = in[i];
        if (w >> 31) {
            uint32_t runs = w & 0x3fffffffu;
            if ((w >> 30) & 1)
                for (uint32_t r = 0; r < runs * 31 && pos < nbits; r++, pos++)
                    bm[pos >> 6] |= 1ULL << (pos & 63);
            else
                pos += runs * 31;
        } else {
            for (int b = 0; b < 31 && pos < nbits; b++, pos++)
                if (w >> b & 1) bm[pos >> 6] |= 1ULL << (pos & 63);
        }
    }
}

/* Build bitmaps for one column of one segment and append them to the blob. */
static void index_column(FILE *blob, dir_entry_t *dir, const uint8_t *col, int card,
                         uint64_t *bm, uint32_t *cbuf)
{
    for (int v = 0; v < card; v++) {
        memset(bm, 0, WORDS_PER_SEG * 8);
        uint32_t pop = 0;
        for (int i = 0; i < SEG_ROWS; i++)
            if (col[i] == v) { bm[i >> 6] |= 1ULL << (i & 63); pop++; }
        uint32_t nw = rle_compress(bm, WORDS_PER_SEG, cbuf);
        dir[v].offset = (uint64_t)ftell(blob);
        dir[v].nwords = nw;
        dir[v].popcount = pop;
        fwrite(cbuf, sizeof(uint32_t), nw, blob);
    }
}

static directory_t load_directory(const char *path)
{
    directory_t d;
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    int32_t n;
    if (fread(&n, sizeof n, 1, f) != 1) { fprintf(stderr, "bad directory\n"); exit(1); }
    d.nentries = n;
    d.e = malloc(sizeof(dir_entry_t) * n);
    if (fread(d.e, sizeof(dir_entry_t), n, f) != (size_t)n) { fprintf(stderr, "short dir\n"); exit(1); }
    fclose(f);
    return d;
}

static void fetch_bitmap(int blobfd, const dir_entry_t *e, uint32_t *cbuf, uint64_t *bm)
{
    ssize_t want = (ssize_t)e->nwords * 4;
    if (pread(blobfd, cbuf, want, (off_t)e->offset) != want) { perror("pread bitmap"); exit(1); }
    rle_expand(cbuf, e->nwords, bm, WORDS_PER_SEG);
}

/* sum(amount) where region == r AND channel in [c0, c1] ; amounts pulled by pread */
static double run_query(const char *dir, int blobfd, const directory_t *d, int r, int c0, int c1,
                        long *hits)
{
    uint64_t *a = malloc(WORDS_PER_SEG * 8), *b = malloc(WORDS_PER_SEG * 8), *acc = malloc(WORDS_PER_SEG * 8);
    uint32_t *cbuf = malloc(sizeof(uint32_t) * (SEG_ROWS / 31 + 64));
    double total = 0;
    *hits = 0;
    const int per_seg = N_REGION + N_CHANNEL;
    for (int seg = 0; seg < N_SEGS; seg++) {
        const dir_entry_t *er = &d->e[seg * per_seg + r];
        if (er->popcount == 0) continue;
        fetch_bitmap(blobfd, er, cbuf, a);
        memset(acc, 0, WORDS_PER_SEG * 8);
        for (int c = c0; c <= c1; c++) {
            fetch_bitmap(blobfd, &d->e[seg * per_seg + N_REGION + c], cbuf, b);
            for (int w = 0; w < WORDS_PER_SEG; w++) acc[w] |= b[w];
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/amount.%03d.col", dir, seg);
        int fd = open(path, O_RDONLY);
        if (fd < 0) { perror(path); exit(1); }
        for (int w = 0; w < WORDS_PER_SEG; w++) {
            uint64_t m = a[w] & acc[w];
            if (!m) continue;
            float vals[64];
            /* read only the 64-row block that contains matches */
            if (pread(fd, vals, sizeof vals, (off_t)w * sizeof vals) != (ssize_t)sizeof vals) {
                perror("pread amount"); exit(1);
            }
            while (m) {
                int bit = __builtin_ctzll(m);
                total += vals[bit];
                (*hits)++;
                m &= m - 1;
            }
        }
        close(fd);
    }
    free(a); free(b); free(acc); free(cbuf);
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char blobp[1024], dirp[1024], logp[1024];
    snprintf(blobp, sizeof blobp, "%s/bitmaps.blob", dir);
    snprintf(dirp, sizeof dirp, "%s/bitmaps.dir", dir);
    snprintf(logp, sizeof logp, "%s/query.log", dir);

    segment_t *s = malloc(sizeof(segment_t));
    uint64_t *bm = malloc(WORDS_PER_SEG * 8);
    uint32_t *cbuf = malloc(sizeof(uint32_t) * (SEG_ROWS / 31 + 64));
    const int per_seg = N_REGION + N_CHANNEL;
    dir_entry_t *entries = calloc((size_t)N_SEGS * per_seg, sizeof(dir_entry_t));
    FILE *blob = fopen(blobp, "wb");
    if (!blob) { perror(blobp); return 1; }
    for (int seg = 0; seg < N_SEGS; seg++) {
        generate_segment(s, seg);
        write_column(dir, "region", seg, s->region, sizeof s->region);
        write_column(dir, "channel", seg, s->channel, sizeof s->channel);
        write_column(dir, "day", seg, s->day, sizeof s->day);
        write_column(dir, "amount", seg, s->amount, sizeof s->amount);
        index_column(blob, entries + seg * per_seg, s->region, N_REGION, bm, cbuf);
        index_column(blob, entries + seg * per_seg + N_REGION, s->channel, N_CHANNEL, bm, cbuf);
    }
    fclose(blob);
    FILE *df = fopen(dirp, "wb");
    int32_t ne = N_SEGS * per_seg;
    fwrite(&ne, sizeof ne, 1, df);
    fwrite(entries, sizeof(dir_entry_t), ne, df);
    fclose(df);
    free(entries);

    directory_t d = load_directory(dirp);
    int blobfd = open(blobp, O_RDONLY);
    FILE *log = fopen(logp, "w");
    if (blobfd < 0 || !log) { perror("open"); return 1; }
    double grand = 0;
    for (int q = 0; q < N_QUERIES; q++) {
        uint64_t h = mix64(q + 77);
        int r = h % N_REGION, c0 = (h >> 8) % N_CHANNEL;
        int c1 = c0 + (int)((h >> 16) % 4);
        if (c1 >= N_CHANNEL) c1 = N_CHANNEL - 1;
        long hits;
        double tot = run_query(dir, blobfd, &d, r, c0, c1, &hits);
        fprintf(log, "q%03d region=%d channel=[%d,%d] hits=%ld sum=%.2f avg=%.4f\n",
                q, r, c0, c1, hits, tot, hits ? tot / hits : 0.0);
        fflush(log);
        grand += tot;
    }
    fclose(log);
    close(blobfd);
    printf("directory entries %d, grand total %.2f\n", d.nentries, grand);
    free(d.e); free(s); free(bm); free(cbuf);
    return 0;
}
