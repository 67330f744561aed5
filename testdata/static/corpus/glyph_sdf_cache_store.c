/*
 * Persistent signed-distance-field glyph cache, as used by a GPU text renderer.
 *
 * Glyph outlines (procedural polygons standing in for font contours) are
 * rasterised on demand into 32x32 signed distance fields.  Rendered glyphs are
 * kept in an on-disk store: a header page, an open-addressing hash table of
 * fixed 32-byte slots, and an append-only data area, all accessed with
 * pread/pwrite at computed offsets.  A text-layout workload with Zipf-
 * distributed glyph requests runs through a small in-memory direct-mapped
 * cache in front of the store.  The store is then compacted into a new file
 * (hot glyphs first), fsynced and renamed over the old one, every record is
 * verified by CRC, and the hottest glyphs are exported as an atlas PGM.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SDF_N       32
#define SDF_BYTES   (SDF_N * SDF_N)
#define NSLOTS      16384
#define SLOT_BYTES  32
#define HDR_BYTES   4096
#define DATA_OFF    ((off_t)HDR_BYTES + (off_t)NSLOTS * SLOT_BYTES)
#define NFONTS      3
#define NCODES      2400
#define NREQ        150000
#define MEMCACHE    512
#define MAXSEG      40
#define STORE_MAGIC 0x53444647u   /* "GFDS" */

typedef struct {
    uint32_t key, flags;      /* flags: 1 = used */
    uint64_t offset;
    uint32_t length, crc;
    uint32_t hits, pad;
} slot_t;

typedef struct {
    uint32_t magic, version, nslots, count;
    uint64_t data_end;
    uint32_t sdf_n, generation;
} store_hdr_t;

typedef struct {
    uint32_t key;
    int16_t advance, bearing_x;
    uint8_t sdf[SDF_BYTES];
} glyph_rec_t;

typedef struct { float x0, y0, x1, y1; } seg_t;

static uint32_t crc_tab[256];
static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
        crc_tab[i] = c;
    }
}
static uint32_t crc32c(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint32_t c = 0xFFFFFFFFu;
    while (n--) c = crc_tab[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "glyphcache: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void pwrite_all(int fd, const void *buf, size_t n, off_t off, const char *path)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) { if (errno == EINTR) continue; die("pwrite", path); }
        p += w; n -= (size_t)w; off += w;
    }
}
static void pread_all(int fd, void *buf, size_t n, off_t off, const char *path)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) { if (errno == EINTR) continue; die("pread", path); }
        if (r == 0) { errno = EIO; die("short pread", path); }
        p += r; n -= (size_t)r; off += r;
    }
}

/* Procedural outline: an outer closed contour with one or two counters (holes). */
static int glyph_outline(uint32_t key, seg_t *seg)
{
    uint32_t s = key * 2246822519u + 374761393u;
    int font = (int)(key >> 24), n = 0;
    int ncont = 1 + (int)((s >> 5) % 3);
    for (int c = 0; c < ncont && n < MAXSEG; c++) {
        s = s * 1103515245u + 12345u;
        int nv = 7 + (int)((s >> 10) % (c == 0 ? 12 : 6));
        double cx = 0.5 + (c ? 0.15 * (((s >> 3) & 7) / 7.0 - 0.5) : 0.0), cy = 0.5;
        double rad = c == 0 ? 0.38 : 0.12 + 0.04 * font;
        double vx[24], vy[24];
        for (int v = 0; v < nv; v++) {
            s = s * 1103515245u + 12345u;
            double a = 2.0 * 3.14159265358979 * v / nv * (c ? -1.0 : 1.0);
            double r = rad * (0.75 + 0.25 * ((s >> 16) & 1023) / 1023.0);
            vx[v] = cx + r * cos(a) * (1.0 - 0.1 * font);
            vy[v] = cy + r * sin(a);
        }
        for (int v = 0; v < nv && n < MAXSEG; v++) {
            seg[n].x0 = (float)vx[v]; seg[n].y0 = (float)vy[v];
            seg[n].x1 = (float)vx[(v + 1) % nv]; seg[n].y1 = (float)vy[(v + 1) % nv];
            n++;
        }
    }
    return n;
}

/* Brute-force SDF: distance to nearest segment, sign by even-odd crossing. */
static void render_sdf(uint32_t key, glyph_rec_t *g)
{
    seg_t seg[MAXSEG];
    int ns = glyph_outline(key, seg);
    const float spread = 0.125f;
    for (int py = 0; py < SDF_N; py++)
        for (int px = 0; px < SDF_N; px++) {
            float x = (px + 0.5f) / SDF_N, y = (py + 0.5f) / SDF_N;
            float best = 1e9f;
            int inside = 0;
            for (int k = 0; k < ns; k++) {
                float ax = seg[k].x0, ay = seg[k].y0, bx = seg[k].x1, by = seg[k].y1;
                float ex = bx - ax, ey = by - ay, wx = x - ax, wy = y - ay;
                float t = (wx * ex + wy * ey) / (ex * ex + ey * ey + 1e-12f);
                t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
                float dx = wx - t * ex, dy = wy - t * ey, d2 = dx * dx + dy * dy;
                if (d2 < best) best = d2;
                if ((ay > y) != (by > y) && x < ax + (y - ay) * ex / ey) inside ^= 1;
            }
            float d = sqrtf(best) * (inside ? 1.0f : -1.0f);
            float v = 128.0f + 127.0f * d / spread;
            g->sdf[py * SDF_N + px] = (uint8_t)(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
        }
    g->key = key;
    g->advance = (int16_t)(20 + (key % 13));
    g->bearing_x = (int16_t)(key % 5) - 2;
}

typedef struct {
    int fd;
    const char *path;
    store_hdr_t hdr;
    long probes, disk_hits, renders;
} store_t;

static void store_create(store_t *st, const char *path)
{
    st->path = path;
    st->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (st->fd < 0) die("open", path);
    memset(&st->hdr, 0, sizeof st->hdr);
    st->hdr.magic = STORE_MAGIC; st->hdr.version = 1; st->hdr.nslots = NSLOTS;
    st->hdr.data_end = (uint64_t)DATA_OFF; st->hdr.sdf_n = SDF_N;
    char zero[HDR_BYTES];
    memset(zero, 0, sizeof zero);
    pwrite_all(st->fd, zero, sizeof zero, 0, path);
    /* empty slot table, written in 4 KiB pages */
    for (off_t off = HDR_BYTES; off < DATA_OFF; off += sizeof zero) pwrite_all(st->fd, zero, sizeof zero, off, path);
    pwrite_all(st->fd, &st->hdr, sizeof st->hdr, 0, path);
    st->probes = st->disk_hits = st->renders = 0;
}

static uint32_t slot_hash(uint32_t key) { return (key * 0x9E3779B1u) >> (32 - 14); }

/* Find a key on disk. Returns slot index; *found tells whether it is present. */
static uint32_t store_find(store_t *st, uint32_t key, slot_t *out, int *found)
{
    uint32_t h = slot_hash(key);
    for (uint32_t i = 0; i < NSLOTS; i++) {
        uint32_t k = (h + i) & (NSLOTS - 1);
        pread_all(st->fd, out, sizeof *out, HDR_BYTES + (off_t)k * SLOT_BYTES, st->path);
        st->probes++;
        if (!(out->flags & 1)) { *found = 0; return k; }
        if (out->key == key) { *found = 1; return k; }
    }
    fprintf(stderr, "glyphcache: slot table full\n");
    exit(1);
}

static void store_get(store_t *st, uint32_t key, glyph_rec_t *g)
{
    slot_t sl;
    int found;
    uint32_t k = store_find(st, key, &sl, &found);
    if (found) {
        pread_all(st->fd, g, sizeof *g, (off_t)sl.offset, st->path);
        if (crc32c(g, sizeof *g) != sl.crc || g->key != key) { fprintf(stderr, "glyphcache: corrupt record\n"); exit(1); }
        sl.hits++;
        pwrite_all(st->fd, &sl.hits, sizeof sl.hits, HDR_BYTES + (off_t)k * SLOT_BYTES + offsetof(slot_t, hits), st->path);
        st->disk_hits++;
        return;
    }
    render_sdf(key, g);
    st->renders++;
    sl.key = key; sl.flags = 1; sl.offset = st->hdr.data_end; sl.length = sizeof *g;
    sl.crc = crc32c(g, sizeof *g); sl.hits = 1; sl.pad = 0;
    pwrite_all(st->fd, g, sizeof *g, (off_t)st->hdr.data_end, st->path);
    pwrite_all(st->fd, &sl, sizeof sl, HDR_BYTES + (off_t)k * SLOT_BYTES, st->path);
    st->hdr.data_end += sizeof *g;
    st->hdr.count++;
    if (st->hdr.count % 256 == 0) pwrite_all(st->fd, &st->hdr, sizeof st->hdr, 0, st->path);
}

/* Text-layout workload: Zipf-ranked glyph popularity, runs of the same font. */
static void run_workload(store_t *st, long *mem_hits)
{
    static double cdf[NCODES];
    double z = 0.0;
    for (int i = 0; i < NCODES; i++) { z += 1.0 / pow(i + 1.0, 0.9); cdf[i] = z; }
    static uint32_t mkey[MEMCACHE];
    static glyph_rec_t mglyph[MEMCACHE];
    memset(mkey, 0xFF, sizeof mkey);
    uint64_t s = 88172645463325252ull;
    int font = 0;
    long ink = 0;
    *mem_hits = 0;
    for (long r = 0; r < NREQ; r++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        if (r % 400 == 0) font = (int)((s >> 40) % NFONTS);
        double u = (double)(s >> 11) / 9007199254740992.0 * z;
        int lo = 0, hi = NCODES - 1;
        while (lo < hi) { int mid = (lo + hi) / 2; if (cdf[mid] < u) lo = mid + 1; else hi = mid; }
        uint32_t cp = 0x20u + (uint32_t)lo * 7u % 0x4E00u;
        uint32_t key = ((uint32_t)font << 24) | cp;
        uint32_t m = (key * 2654435761u) >> 23;   /* 9 bits -> MEMCACHE */
        if (mkey[m] == key) { (*mem_hits)++; ink += mglyph[m].sdf[SDF_BYTES / 2]; continue; }
        store_get(st, key, &mglyph[m]);
        mkey[m] = key;
        ink += mglyph[m].sdf[SDF_BYTES / 2];
    }
    pwrite_all(st->fd, &st->hdr, sizeof st->hdr, 0, st->path);
    if (fsync(st->fd) != 0) die("fsync", st->path);
    (void)ink;
}

typedef struct { uint32_t slot, hits; } hot_t;
static int cmp_hot(const void *a, const void *b)
{
    const hot_t *x = a, *y = b;
    if (x->hits != y->hits) return (x->hits < y->hits) - (x->hits > y->hits);
    return (x->slot > y->slot) - (x->slot < y->slot);
}

/* Rewrite the store with records ordered by popularity, then atomically replace. */
static void compact_store(store_t *st, const char *newpath)
{
    slot_t *tab = malloc((size_t)NSLOTS * sizeof(slot_t));
    hot_t *hot = malloc((size_t)NSLOTS * sizeof(hot_t));
    if (!tab || !hot) { fprintf(stderr, "glyphcache: out of memory\n"); exit(1); }
    pread_all(st->fd, tab, (size_t)NSLOTS * sizeof(slot_t), HDR_BYTES, st->path);
    int n = 0;
    for (uint32_t k = 0; k < NSLOTS; k++)
        if (tab[k].flags & 1) { hot[n].slot = k; hot[n].hits = tab[k].hits; n++; }
    qsort(hot, (size_t)n, sizeof *hot, cmp_hot);
    int fd = open(newpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", newpath);
    off_t out = DATA_OFF;
    glyph_rec_t g;
    for (int i = 0; i < n; i++) {
        slot_t *sl = &tab[hot[i].slot];
        pread_all(st->fd, &g, sizeof g, (off_t)sl->offset, st->path);
        pwrite_all(fd, &g, sizeof g, out, newpath);
        sl->offset = (uint64_t)out;
        out += sizeof g;
    }
    pwrite_all(fd, tab, (size_t)NSLOTS * sizeof(slot_t), HDR_BYTES, newpath);
    st->hdr.data_end = (uint64_t)out;
    st->hdr.generation++;
    char page[HDR_BYTES];
    memset(page, 0, sizeof page);
    memcpy(page, &st->hdr, sizeof st->hdr);
    pwrite_all(fd, page, sizeof page, 0, newpath);
    if (fsync(fd) != 0) die("fsync", newpath);
    if (close(st->fd) != 0) die("close", st->path);
    if (rename(newpath, st->path) != 0) die("rename", newpath);
    st->fd = fd;
    free(tab); free(hot);
}

/* Verify every record and export the 16x16 hottest glyphs as an atlas image. */
static int verify_and_atlas(store_t *st, const char *atlas_path)
{
    slot_t *tab = malloc((size_t)NSLOTS * sizeof(slot_t));
    uint8_t *atlas = calloc(16 * SDF_N * 16 * SDF_N, 1);
    if (!tab || !atlas) { fprintf(stderr, "glyphcache: out of memory\n"); exit(1); }
    store_hdr_t h;
    pread_all(st->fd, &h, sizeof h, 0, st->path);
    if (h.magic != STORE_MAGIC || h.generation != 1) { fprintf(stderr, "glyphcache: bad header after compaction\n"); exit(1); }
    pread_all(st->fd, tab, (size_t)NSLOTS * sizeof(slot_t), HDR_BYTES, st->path);
    int bad = 0, n = 0;
    glyph_rec_t g;
    for (uint32_t k = 0; k < NSLOTS; k++) {
        if (!(tab[k].flags & 1)) continue;
        pread_all(st->fd, &g, sizeof g, (off_t)tab[k].offset, st->path);
        if (crc32c(&g, sizeof g) != tab[k].crc || g.key != tab[k].key) bad++;
        n++;
        /* hottest records sit at the front of the data area */
        uint64_t idx = (tab[k].offset - (uint64_t)DATA_OFF) / sizeof g;
        if (idx < 256) {
            int ax = (int)(idx % 16) * SDF_N, ay = (int)(idx / 16) * SDF_N;
            for (int y = 0; y < SDF_N; y++) memcpy(atlas + (size_t)(ay + y) * 16 * SDF_N + ax, g.sdf + y * SDF_N, SDF_N);
        }
    }
    FILE *f = fopen(atlas_path, "wb");
    if (!f) die("fopen", atlas_path);
    fprintf(f, "P5\n%d %d\n255\n", 16 * SDF_N, 16 * SDF_N);
    if (fwrite(atlas, 1, 16 * SDF_N * 16 * SDF_N, f) != (size_t)(16 * SDF_N * 16 * SDF_N)) die("fwrite", atlas_path);
    if (fclose(f) != 0) die("fclose", atlas_path);
    free(tab); free(atlas);
    if (n != (int)h.count) bad++;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    crc_init();
    char path[1024], newpath[1100], atlas[1100];
    snprintf(path, sizeof path, "%s/glyphs.sdfcache", argv[1]);
    snprintf(newpath, sizeof newpath, "%s.compact", path);
    snprintf(atlas, sizeof atlas, "%s/atlas_hot.pgm", argv[1]);
    store_t st;
    store_create(&st, path);
    long mem_hits;
    run_workload(&st, &mem_hits);
    printf("glyphcache: %d requests: %ld memory hits, %ld store hits, %ld rendered, %.2f probes/lookup\n",
           NREQ, mem_hits, st.disk_hits, st.renders, (double)st.probes / (st.disk_hits + st.renders));
    compact_store(&st, newpath);
    int bad = verify_and_atlas(&st, atlas);
    if (close(st.fd) != 0) die("close", path);
    struct stat sb;
    if (stat(path, &sb) != 0) die("stat", path);
    printf("glyphcache: compacted store %lld bytes, %u glyphs, %d bad records\n", (long long)sb.st_size, st.hdr.count, bad);
    return bad ? 1 : 0;
}
