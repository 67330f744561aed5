/* Disk-resident spatial index: synthesizes a table of land-parcel bounding
 * boxes, bulk-loads a Sort-Tile-Recursive R-tree into a file of fixed 4 KiB
 * pages (pwrite per page), then answers window queries by walking the tree
 * with pread() through a small LRU page cache, cross-checking a fraction of
 * the answers against a brute-force scan of the parcel table. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>

#define PAGE_SIZE     4096
#define N_PARCELS     260000
#define N_QUERIES     60000
#define CACHE_PAGES   48
#define CHECK_EVERY   40
#define WORLD         10000.0f

typedef struct { float x0, y0, x1, y1; uint32_t id; } entry_t;   /* 20 bytes */

typedef struct {
    uint32_t level;          /* 0 = leaf */
    uint32_t count;
    uint32_t self;
    uint32_t pad;
    entry_t e[(PAGE_SIZE - 16) / sizeof(entry_t)];
} page_t;

#define FANOUT ((int)((PAGE_SIZE - 16) / sizeof(entry_t)))

typedef struct {
    uint32_t magic, root, height, npages;
    uint64_t nentries;
} meta_t;

typedef struct {
    int fd;
    uint32_t tag[CACHE_PAGES];
    uint64_t stamp[CACHE_PAGES];
    page_t *slot;
    uint64_t clock, hits, misses;
} cache_t;

static uint64_t rs = 0xD1B54A32D192ED03ull;
static float frand(void)
{
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (float)((rs * 2685821657736338717ull) >> 40) / 16777216.0f;
}

static void generate_parcels(const char *path, int n)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    for (int i = 0; i < n; i++) {
        /* clustered towns plus rural scatter */
        float cx, cy;
        if (i % 3) {
            int town = (i * 7919) % 40;
            cx = 250.0f * (town % 8) * 5 + 600 * frand();
            cy = 250.0f * (town / 8) * 8 + 600 * frand();
        } else {
            cx = WORLD * frand(); cy = WORLD * frand();
        }
        float w = 2 + 30 * frand() * frand(), h = 2 + 30 * frand() * frand();
        entry_t e = { cx, cy, cx + w, cy + h, (uint32_t)i };
        fwrite(&e, sizeof e, 1, f);
    }
    fclose(f);
}

static entry_t *load_parcels(const char *path, int *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    rewind(f);
    *n = (int)(sz / (long)sizeof(entry_t));
    entry_t *e = malloc(sizeof(entry_t) * (size_t)*n);
    if (fread(e, sizeof(entry_t), (size_t)*n, f) != (size_t)*n) { fprintf(stderr, "short read\n"); exit(1); }
    fclose(f);
    return e;
}

static int cmp_cx(const void *a, const void *b)
{
    const entry_t *p = a, *q = b;
    float u = p->x0 + p->x1, v = q->x0 + q->x1;
    return (u > v) - (u < v);
}

static int cmp_cy(const void *a, const void *b)
{
    const entry_t *p = a, *q = b;
    float u = p->y0 + p->y1, v = q->y0 + q->y1;
    return (u > v) - (u < v);
}

static void write_page(int fd, const page_t *pg)
{
    if (pwrite(fd, pg, PAGE_SIZE, (off_t)pg->self * PAGE_SIZE) != PAGE_SIZE) { perror("pwrite"); exit(1); }
}

/* pack one level with STR; returns the parent entries (one per page) */
static entry_t *str_pack_level(int fd, entry_t *items, int n, uint32_t level, uint32_t *next_page, int *nparents)
{
    int npages = (n + FANOUT - 1) / FANOUT;
    int nslices = (int)ceil(sqrt((double)npages));
    int per_slice = nslices * FANOUT;
    qsort(items, (size_t)n, sizeof(entry_t), cmp_cx);
    for (int s = 0; s < n; s += per_slice) {
        int m = n - s < per_slice ? n - s : per_slice;
        qsort(items + s, (size_t)m, sizeof(entry_t), cmp_cy);
    }
    entry_t *parents = malloc(sizeof(entry_t) * (size_t)npages);
    page_t *pg = calloc(1, sizeof(page_t));
    int np = 0;
    for (int s = 0; s < n; s += per_slice) {
        int send = s + per_slice < n ? s + per_slice : n;
        for (int i = s; i < send; i += FANOUT) {
            int m = send - i < FANOUT ? send - i : FANOUT;
            memset(pg, 0, sizeof *pg);
            pg->level = level; pg->count = (uint32_t)m; pg->self = (*next_page)++;
            entry_t box = { 1e30f, 1e30f, -1e30f, -1e30f, pg->self };
            for (int k = 0; k < m; k++) {
                pg->e[k] = items[i + k];
                box.x0 = fminf(box.x0, items[i + k].x0); box.y0 = fminf(box.y0, items[i + k].y0);
                box.x1 = fmaxf(box.x1, items[i + k].x1); box.y1 = fmaxf(box.y1, items[i + k].y1);
            }
            write_page(fd, pg);
            parents[np++] = box;
        }
    }
    free(pg);
    *nparents = np;
    return parents;
}

static meta_t build_index(const char *path, entry_t *items, int n)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    meta_t m = { 0x52545245u, 0, 0, 1, (uint64_t)n };
    uint32_t next = 1;                       /* page 0 holds the metadata */
    entry_t *level_items = items;
    int cnt = n;
    uint32_t level = 0;
    for (;;) {
        int np;
        entry_t *parents = str_pack_level(fd, level_items, cnt, level, &next, &np);
        if (level_items != items) free(level_items);
        level++;
        if (np == 1) { m.root = parents[0].id; free(parents); break; }
        level_items = parents;
        cnt = np;
    }
    m.height = level;
    m.npages = next;
    char buf[PAGE_SIZE] = {0};
    memcpy(buf, &m, sizeof m);
    if (pwrite(fd, buf, PAGE_SIZE, 0) != PAGE_SIZE) { perror("meta"); exit(1); }
    fsync(fd);
    close(fd);
    return m;
}

static const page_t *cache_get(cache_t *c, uint32_t pno)
{
    c->clock++;
    int victim = 0;
    for (int i = 0; i < CACHE_PAGES; i++) {
        if (c->tag[i] == pno) { c->stamp[i] = c->clock; c->hits++; return &c->slot[i]; }
        if (c->stamp[i] < c->stamp[victim]) victim = i;
    }
    c->misses++;
    if (pread(c->fd, &c->slot[victim], PAGE_SIZE, (off_t)pno * PAGE_SIZE) != PAGE_SIZE) { perror("pread"); exit(1); }
    c->tag[victim] = pno;
    c->stamp[victim] = c->clock;
    return &c->slot[victim];
}

static long window_query(cache_t *c, uint32_t pno, const entry_t *q, double *area)
{
    const page_t *pg = cache_get(c, pno);
    /* copy children locally: the cache slot may be evicted during recursion */
    int m = (int)pg->count, lvl = (int)pg->level;
    entry_t local[FANOUT];
    memcpy(local, pg->e, sizeof(entry_t) * (size_t)m);
    long found = 0;
    for (int k = 0; k < m; k++) {
        const entry_t *e = &local[k];
        if (e->x1 < q->x0 || e->x0 > q->x1 || e->y1 < q->y0 || e->y0 > q->y1) continue;
        if (lvl == 0) { found++; *area += (double)(e->x1 - e->x0) * (e->y1 - e->y0); }
        else found += window_query(c, e->id, q, area);
    }
    return found;
}

static long brute_force(const entry_t *all, int n, const entry_t *q)
{
    long f = 0;
    for (int i = 0; i < n; i++)
        if (!(all[i].x1 < q->x0 || all[i].x0 > q->x1 || all[i].y1 < q->y0 || all[i].y0 > q->y1)) f++;
    return f;
}

static int run_queries(const char *idx_path, const char *log_path, const entry_t *table, int n)
{
    cache_t c = {0};
    c.fd = open(idx_path, O_RDONLY);
    c.slot = malloc(sizeof(page_t) * CACHE_PAGES);
    for (int i = 0; i < CACHE_PAGES; i++) c.tag[i] = UINT32_MAX;
    meta_t m;
    if (pread(c.fd, &m, sizeof m, 0) != sizeof m || m.magic != 0x52545245u) { fprintf(stderr, "bad index\n"); exit(1); }
    FILE *log = fopen(log_path, "w");
    fprintf(log, "# root=%u height=%u pages=%u entries=%llu fanout=%d\n", m.root, m.height, m.npages,
            (unsigned long long)m.nentries, FANOUT);
    int bad = 0;
    for (int i = 0; i < N_QUERIES; i++) {
        float w = 20 + 300 * frand() * frand(), cx = WORLD * frand(), cy = WORLD * frand();
        entry_t q = { cx, cy, cx + w, cy + w * (0.5f + frand()), 0 };
        double area = 0;
        long got = window_query(&c, m.root, &q, &area);
        fprintf(log, "q%05d [%.1f,%.1f]-[%.1f,%.1f] hits=%ld covered=%.1f\n", i, q.x0, q.y0, q.x1, q.y1, got, area);
        if (i % CHECK_EVERY == 0 && brute_force(table, n, &q) != got) bad++;
    }
    fprintf(log, "# cache hits=%llu misses=%llu mismatches=%d\n",
            (unsigned long long)c.hits, (unsigned long long)c.misses, bad);
    printf("pages=%u height=%u cache hit ratio=%.3f mismatches=%d\n", m.npages, m.height,
           (double)c.hits / (double)(c.hits + c.misses), bad);
    fclose(log);
    close(c.fd);
    free(c.slot);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char tpath[600], ipath[600], lpath[600];
    snprintf(tpath, sizeof tpath, "%s/parcels.tbl", argv[1]);
    snprintf(ipath, sizeof ipath, "%s/parcels.rtree", argv[1]);
    snprintf(lpath, sizeof lpath, "%s/window_queries.log", argv[1]);
    generate_parcels(tpath, N_PARCELS);
    int n;
    entry_t *items = load_parcels(tpath, &n);
    build_index(ipath, items, n);
    free(items);
    entry_t *table = load_parcels(tpath, &n);   /* reload: packing reordered the array */
    int bad = run_queries(ipath, lpath, table, n);
    free(table);
    return bad ? 2 : 0;
}
