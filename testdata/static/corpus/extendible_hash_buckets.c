/* extendible_hash_buckets: an on-disk extendible hash index of sensor-reading
 * records.  Every insert reads a 4 KiB bucket page with pread and writes it
 * back with pwrite; overflowing buckets split and the directory doubles.  The
 * directory is persisted, a batch of in-place updates is applied, the index is
 * reopened read-only, probed with random lookups,
 * and a full page scan produces a per-station aggregate report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>

#define PAGE 1024
#define NKEYS 40000
#define NUPDATES 8000
#define NPROBES 2000000
#define MAXDEPTH 20

typedef struct {
    uint64_t key;
    uint32_t station;
    float value;
} Entry;

#define SLOTS ((PAGE - 16) / sizeof(Entry))

typedef struct {
    uint32_t local_depth;
    uint32_t count;
    uint64_t pad;
    Entry e[SLOTS];
} Bucket;

typedef struct {
    int fd;
    uint32_t global_depth;
    uint32_t npages;
    uint32_t *dir;
    long reads, writes;
} HashIndex;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

static void page_read(HashIndex *ix, uint32_t page, Bucket *b)
{
    if (pread(ix->fd, b, PAGE, (off_t)page * PAGE) != PAGE) { perror("pread"); exit(1); }
    ix->reads++;
}

static void page_write(HashIndex *ix, uint32_t page, const Bucket *b)
{
    if (pwrite(ix->fd, b, PAGE, (off_t)page * PAGE) != PAGE) { perror("pwrite"); exit(1); }
    ix->writes++;
}

static void index_create(HashIndex *ix, const char *path)
{
    ix->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (ix->fd < 0) { perror(path); exit(1); }
    ix->global_depth = 1; ix->npages = 2; ix->reads = ix->writes = 0;
    ix->dir = malloc(sizeof(uint32_t) << MAXDEPTH);
    ix->dir[0] = 0; ix->dir[1] = 1;
    Bucket b; memset(&b, 0, sizeof b); b.local_depth = 1;
    page_write(ix, 0, &b); page_write(ix, 1, &b);
}

static void split_bucket(HashIndex *ix, uint32_t slot, Bucket *b)
{
    uint32_t old_page = ix->dir[slot];
    if (b->local_depth == ix->global_depth) {
        if (ix->global_depth >= MAXDEPTH) { fprintf(stderr, "directory full\n"); exit(1); }
        uint32_t n = 1u << ix->global_depth;
        for (uint32_t i = 0; i < n; i++) ix->dir[n + i] = ix->dir[i];
        ix->global_depth++;
    }
    uint32_t ld = b->local_depth;
    Bucket nb0, nb1;
    memset(&nb0, 0, sizeof nb0); memset(&nb1, 0, sizeof nb1);
    nb0.local_depth = nb1.local_depth = ld + 1;
    for (uint32_t i = 0; i < b->count; i++) {
        uint64_t h = mix64(b->e[i].key);
        if ((h >> ld) & 1) nb1.e[nb1.count++] = b->e[i]; else nb0.e[nb0.count++] = b->e[i];
    }
    uint32_t new_page = ix->npages++;
    uint32_t n = 1u << ix->global_depth;
    for (uint32_t i = 0; i < n; i++)
        if (ix->dir[i] == old_page && ((i >> ld) & 1)) ix->dir[i] = new_page;
    page_write(ix, old_page, &nb0);
    page_write(ix, new_page, &nb1);
}

static void index_insert(HashIndex *ix, const Entry *e)
{
    Bucket b;
    for (;;) {
        uint64_t h = mix64(e->key);
        uint32_t slot = (uint32_t)(h & ((1u << ix->global_depth) - 1));
        uint32_t page = ix->dir[slot];
        page_read(ix, page, &b);
        if (b.count < SLOTS) {
            b.e[b.count++] = *e;
            page_write(ix, page, &b);
            return;
        }
        split_bucket(ix, slot, &b);
    }
}

static void save_directory(const HashIndex *ix, const char *path)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) { perror(path); exit(1); }
    fwrite(&ix->global_depth, sizeof(uint32_t), 1, fp);
    fwrite(&ix->npages, sizeof(uint32_t), 1, fp);
    fwrite(ix->dir, sizeof(uint32_t), (size_t)1 << ix->global_depth, fp);
    fclose(fp);
}

static void load_directory(HashIndex *ix, const char *dirpath, const char *datapath)
{
    FILE *fp = fopen(dirpath, "rb");
    if (!fp) { perror(dirpath); exit(1); }
    if (fread(&ix->global_depth, sizeof(uint32_t), 1, fp) != 1 || fread(&ix->npages, sizeof(uint32_t), 1, fp) != 1) exit(1);
    ix->dir = malloc(sizeof(uint32_t) << MAXDEPTH);
    if (fread(ix->dir, sizeof(uint32_t), (size_t)1 << ix->global_depth, fp) != (size_t)1 << ix->global_depth) exit(1);
    fclose(fp);
    ix->fd = open(datapath, O_RDONLY);
    if (ix->fd < 0) { perror(datapath); exit(1); }
    ix->reads = ix->writes = 0;
}

static int index_lookup(HashIndex *ix, uint64_t key, Entry *out)
{
    Bucket b;
    uint64_t h = mix64(key);
    page_read(ix, ix->dir[h & ((1u << ix->global_depth) - 1)], &b);
    for (uint32_t i = 0; i < b.count; i++) if (b.e[i].key == key) { *out = b.e[i]; return 1; }
    return 0;
}

/* read-modify-write of the bucket holding key: recalibrate its value */
static int index_update(HashIndex *ix, uint64_t key, float scale, float offset)
{
    Bucket b;
    uint64_t h = mix64(key);
    uint32_t page = ix->dir[h & ((1u << ix->global_depth) - 1)];
    page_read(ix, page, &b);
    for (uint32_t i = 0; i < b.count; i++)
        if (b.e[i].key == key) {
            b.e[i].value = b.e[i].value * scale + offset;
            page_write(ix, page, &b);
            return 1;
        }
    return 0;
}

static Entry make_entry(uint32_t i)
{
    Entry e;
    e.key = ((uint64_t)(i % 97) << 40) | (uint64_t)i * 2654435761u;
    e.station = i % 97;
    e.value = (float)(15.0 + 10.0 * ((i * 7919u) % 1000) / 1000.0);
    return e;
}

/* sequential scan of all pages in large chunks, aggregate per station */
static void scan_report(HashIndex *ix, const char *path)
{
    double sum[97] = {0}, mn[97], mx[97];
    long cnt[97] = {0};
    for (int s = 0; s < 97; s++) { mn[s] = 1e30; mx[s] = -1e30; }
    const int CH = 64;
    Bucket *buf = malloc((size_t)CH * PAGE);
    double fill = 0;
    for (uint32_t p = 0; p < ix->npages; p += CH) {
        uint32_t n = ix->npages - p < (uint32_t)CH ? ix->npages - p : (uint32_t)CH;
        if (pread(ix->fd, buf, (size_t)n * PAGE, (off_t)p * PAGE) != (ssize_t)n * PAGE) { perror("scan"); exit(1); }
        for (uint32_t j = 0; j < n; j++) {
            fill += buf[j].count;
            for (uint32_t i = 0; i < buf[j].count; i++) {
                Entry *e = &buf[j].e[i];
                sum[e->station] += e->value; cnt[e->station]++;
                if (e->value < mn[e->station]) mn[e->station] = e->value;
                if (e->value > mx[e->station]) mx[e->station] = e->value;
            }
        }
    }
    free(buf);
    FILE *fp = fopen(path, "w");
    if (!fp) { perror(path); exit(1); }
    fprintf(fp, "# pages %u avg fill %.3f\n", ix->npages, fill / ix->npages / SLOTS);
    for (int s = 0; s < 97; s++)
        fprintf(fp, "station %2d n %6ld mean %.4f min %.3f max %.3f\n", s, cnt[s], cnt[s] ? sum[s] / cnt[s] : 0, mn[s], mx[s]);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    char data[512], dirf[512], rep[512];
    snprintf(data, sizeof data, "%s/readings.ehash", argv[1]);
    snprintf(dirf, sizeof dirf, "%s/readings.ehdir", argv[1]);
    snprintf(rep, sizeof rep, "%s/station_report.txt", argv[1]);

    HashIndex ix;
    index_create(&ix, data);
    for (uint32_t i = 0; i < NKEYS; i++) { Entry e = make_entry(i); index_insert(&ix, &e); }
    long upd = 0;
    for (uint32_t u = 0; u < NUPDATES; u++) {
        Entry e = make_entry((u * 40503u) % NKEYS);
        upd += index_update(&ix, e.key, 1.0008f, -0.013f);
    }
    long wr = ix.writes, rd = ix.reads;
    save_directory(&ix, dirf);
    close(ix.fd); free(ix.dir);

    HashIndex ro;
    load_directory(&ro, dirf, data);
    long hits = 0;
    uint32_t s = 7;
    for (int q = 0; q < NPROBES; q++) {
        s = s * 1103515245u + 12345u;
        uint32_t i = (s >> 4) % (NKEYS + NKEYS / 4); /* 20% misses */
        Entry e, want = make_entry(i);
        if (index_lookup(&ro, want.key, &e)) hits += (e.station == want.station);
    }
    scan_report(&ro, rep);
    printf("depth %u pages %u updates %ld r/w %ld/%ld probes %d hits %ld\n", ro.global_depth, ro.npages, upd, rd, wr, NPROBES, hits);
    close(ro.fd); free(ro.dir);
    return 0;
}
