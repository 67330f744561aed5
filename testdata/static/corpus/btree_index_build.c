/* Bulk-load an on-disk B+tree index over a heap file of fixed records,
 * then run point lookups and a full leaf-chain scan. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

#define NKEYS      800000
#define RECSZ      64
#define PAGESZ     4096
#define HDRSZ      16
#define FANOUT     ((PAGESZ - HDRSZ) / 16)
#define NLOOKUP    600000
#define HEAP_CHUNK 8192

typedef struct { uint64_t key; uint64_t val; } entry_t;

typedef struct {
    uint32_t kind;      /* 0 = leaf, 1 = internal */
    uint32_t n;
    uint64_t next;      /* leaf: next leaf page; internal: unused */
    entry_t  e[FANOUT];
} page_t;

typedef struct {
    uint64_t root;
    uint64_t npages;
    uint32_t height;
    uint32_t nkeys;
} meta_t;

static char g_dir[1024];

#define MIX64(z) do { z ^= z >> 30; z *= 0xbf58476d1ce4e5b9ULL; \
                      z ^= z >> 27; z *= 0x94d049bb133111ebULL; z ^= z >> 31; } while (0)

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void path_join(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", g_dir, name);
}

/* generate unique pseudo-random keys and write the heap file of records */
static void write_heap_file(entry_t *ent)
{
    char path[1100];
    path_join(path, sizeof path, "records.heap");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open heap");
    unsigned char *buf = malloc((size_t)HEAP_CHUNK * RECSZ);
    uint64_t state = 0x1234abcdULL;
    size_t fill = 0;
    for (uint32_t i = 0; i < NKEYS; i++) {
        uint64_t z = state += 0x9e3779b97f4a7c15ULL;
        MIX64(z);
        ent[i].key = (z & ~0xfffffULL) | i;  /* unique via low bits */
        ent[i].val = (uint64_t)i * RECSZ;
        unsigned char *r = buf + fill * RECSZ;
        memcpy(r, &ent[i].key, 8);
        for (int b = 8; b < RECSZ; b++) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            r[b] = (unsigned char)('a' + (z >> 59) % 26);
        }
        if (++fill == HEAP_CHUNK) {
            if (write(fd, buf, fill * RECSZ) != (ssize_t)(fill * RECSZ)) die("write heap");
            fill = 0;
        }
    }
    if (fill && write(fd, buf, fill * RECSZ) != (ssize_t)(fill * RECSZ)) die("write heap");
    if (fsync(fd) != 0) die("fsync heap");
    close(fd);
    free(buf);
}

/* LSD radix sort on 64-bit keys, 16 bits per pass */
static void radix_sort_entries(entry_t *a, size_t n)
{
    entry_t *tmp = malloc(n * sizeof *tmp);
    size_t *count = malloc(65536 * sizeof *count);
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++) count[(a[i].key >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) { size_t c = count[d]; count[d] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) tmp[count[(a[i].key >> shift) & 0xffff]++] = a[i];
        memcpy(a, tmp, n * sizeof *a);
    }
    free(count);
    free(tmp);
}

/* write leaf pages then successive internal levels; returns meta */
static meta_t bulk_load_index(int fd, const entry_t *sorted, size_t n)
{
    meta_t m = {0, 1, 0, (uint32_t)n};
    page_t pg;
    size_t nlevel = (n + FANOUT - 1) / FANOUT;
    entry_t *sep = malloc(nlevel * sizeof *sep);
    uint64_t first = m.npages;
    for (size_t p = 0; p < nlevel; p++) {
        memset(&pg, 0, sizeof pg);
        pg.kind = 0;
        size_t lo = p * FANOUT, hi = lo + FANOUT < n ? lo + FANOUT : n;
        pg.n = (uint32_t)(hi - lo);
        pg.next = (p + 1 < nlevel) ? first + p + 1 : 0;
        memcpy(pg.e, sorted + lo, (hi - lo) * sizeof(entry_t));
        if (pwrite(fd, &pg, PAGESZ, (off_t)(first + p) * PAGESZ) != PAGESZ) die("pwrite leaf");
        sep[p].key = sorted[lo].key;
        sep[p].val = first + p;
    }
    m.npages += nlevel;
    m.height = 1;
    while (nlevel > 1) {
        size_t nup = (nlevel + FANOUT - 1) / FANOUT;
        first = m.npages;
        for (size_t p = 0; p < nup; p++) {
            memset(&pg, 0, sizeof pg);
            pg.kind = 1;
            size_t lo = p * FANOUT, hi = lo + FANOUT < nlevel ? lo + FANOUT : nlevel;
            pg.n = (uint32_t)(hi - lo);
            memcpy(pg.e, sep + lo, (hi - lo) * sizeof(entry_t));
            if (pwrite(fd, &pg, PAGESZ, (off_t)(first + p) * PAGESZ) != PAGESZ) die("pwrite node");
            sep[p].key = sep[lo].key;
            sep[p].val = first + p;
        }
        m.npages += nup;
        nlevel = nup;
        m.height++;
    }
    m.root = sep[0].val;
    free(sep);
    memset(&pg, 0, sizeof pg);
    memcpy(&pg, &m, sizeof m);
    if (pwrite(fd, &pg, PAGESZ, 0) != PAGESZ) die("pwrite meta");
    if (fsync(fd) != 0) die("fsync index");
    return m;
}

/* descend from the root with pread, then fetch the heap record */
static int lookup_keys(int ifd, int hfd, const entry_t *probe, size_t nprobe, uint64_t *digest)
{
    page_t pg;
    meta_t m;
    if (pread(ifd, &pg, PAGESZ, 0) != PAGESZ) die("pread meta");
    memcpy(&m, &pg, sizeof m);
    int found = 0;
    unsigned char rec[RECSZ];
    for (size_t q = 0; q < nprobe; q++) {
        uint64_t key = probe[q].key, pno = m.root;
        for (;;) {
            if (pread(ifd, &pg, PAGESZ, (off_t)pno * PAGESZ) != PAGESZ) die("pread page");
            uint32_t lo = 0, hi = pg.n;
            if (pg.kind == 1) {
                while (hi - lo > 1) { uint32_t mid = (lo + hi) / 2; if (pg.e[mid].key <= key) lo = mid; else hi = mid; }
                pno = pg.e[lo].val;
                continue;
            }
            while (lo < hi) { uint32_t mid = (lo + hi) / 2; if (pg.e[mid].key < key) lo = mid + 1; else hi = mid; }
            if (lo < pg.n && pg.e[lo].key == key) {
                if (pread(hfd, rec, RECSZ, (off_t)pg.e[lo].val) != RECSZ) die("pread rec");
                uint64_t k2;
                memcpy(&k2, rec, 8);
                if (k2 == key) { found++; *digest = *digest * 31 + rec[RECSZ - 1]; }
            }
            break;
        }
    }
    return found;
}

/* walk the leaf chain sequentially, checking order */
static size_t scan_leaf_chain(int ifd, uint64_t first_leaf, uint64_t *xsum)
{
    page_t pg;
    size_t total = 0;
    uint64_t prev = 0, pno = first_leaf;
    while (pno) {
        if (pread(ifd, &pg, PAGESZ, (off_t)pno * PAGESZ) != PAGESZ) die("pread leaf");
        for (uint32_t i = 0; i < pg.n; i++) {
            if (total && pg.e[i].key <= prev) { fprintf(stderr, "order violation\n"); exit(2); }
            prev = pg.e[i].key;
            *xsum ^= pg.e[i].key + pg.e[i].val;
        }
        total += pg.n;
        pno = pg.next;
    }
    return total;
}

static void make_probes(const entry_t *ent, entry_t *probe, size_t nprobe)
{
    uint64_t s = 77;
    for (size_t i = 0; i < nprobe; i++) {
        uint64_t z = s += 0x9e3779b97f4a7c15ULL;
        MIX64(z);
        if (i % 5 == 4) probe[i].key = z | 1ULL;          /* likely miss */
        else probe[i] = ent[z % NKEYS];
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s scratchdir\n", argv[0]); return 1; }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    entry_t *ent = malloc((size_t)NKEYS * sizeof *ent);
    entry_t *probe = malloc((size_t)NLOOKUP * sizeof *probe);
    write_heap_file(ent);
    make_probes(ent, probe, NLOOKUP);
    radix_sort_entries(ent, NKEYS);

    char ipath[1100], hpath[1100];
    path_join(ipath, sizeof ipath, "records.bpt");
    path_join(hpath, sizeof hpath, "records.heap");
    int ifd = open(ipath, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (ifd < 0) die("open index");
    meta_t m = bulk_load_index(ifd, ent, NKEYS);
    int hfd = open(hpath, O_RDONLY);
    if (hfd < 0) die("open heap ro");

    uint64_t digest = 0, xs = 0;
    int found = lookup_keys(ifd, hfd, probe, NLOOKUP, &digest);
    size_t scanned = scan_leaf_chain(ifd, 1, &xs);
    struct stat st;
    if (fstat(ifd, &st) != 0) die("fstat");
    printf("pages=%llu height=%u index_bytes=%lld found=%d/%d scanned=%zu digest=%016llx xs=%016llx\n",
           (unsigned long long)m.npages, m.height, (long long)st.st_size, found, NLOOKUP,
           scanned, (unsigned long long)digest, (unsigned long long)xs);
    close(hfd);
    close(ifd);
    free(probe);
    free(ent);
    return scanned == NKEYS ? 0 : 3;
}
