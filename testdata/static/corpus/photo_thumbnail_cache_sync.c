/*
 * Photo library thumbnail cache synchroniser.
 *
 * Builds a small photo library of procedurally rendered greyscale PGM images
 * in a dated album tree (photos/YYYY/MM-DD/IMG_nnnn.pgm), then keeps a flat
 * thumbnail cache (thumbs/xx/<hash>.pgm, sharded by hash prefix) in sync with
 * it the way a gallery daemon does: walk the library with opendir/readdir,
 * stat each photo, regenerate a thumbnail when it is missing or older than
 * its source (box-filter downscale written to a temp file and rename()d into
 * place), compute a difference hash for duplicate detection, and keep an index
 * file.  A simulated editing session then rewrites, moves (rename) and deletes
 * (unlink) photos; a second sync regenerates stale thumbnails and garbage-
 * collects orphans, and empty album directories are removed (rmdir).
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define NPHOTOS   900
#define PW        192
#define PH        128
#define TW        48
#define TH        32
#define MAXENT    4096

static char g_root[900];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "thumbsync: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

/* a/b into out, refusing to truncate */
static void path_join(char *out, size_t n, const char *a, const char *b)
{
    int r = snprintf(out, n, "%s/%s", a, b);
    if (r < 0 || (size_t)r >= n) { fprintf(stderr, "thumbsync: path too long: %s/%s\n", a, b); exit(1); }
}

static void mkdir_p(const char *path)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + strlen(g_root) + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir", tmp);
            *p = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir", tmp);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s) { h ^= (uint8_t)*s++; h *= 1099511628211ull; }
    return h;
}

/* Procedural "photo": horizon, sun, a few textured blobs, sensor noise.
 * Every tenth shot is a burst repeat of the previous scene; a retouched
 * variant keeps the scene but changes exposure and noise. */
static void render_photo(int id, int variant, uint8_t *img)
{
    int scene = (id % 10 == 9) ? id - 1 : id;
    uint32_t s = (uint32_t)scene * 2654435761u + 1u;
    uint32_t noise = (uint32_t)id * 40503u + (uint32_t)variant * 977u + 7u;
    double gain = variant ? 1.12 : 1.0;
    double horizon = PH * (0.35 + 0.3 * ((s >> 8) % 1000) / 1000.0);
    double sx = PW * ((s >> 4) % 997) / 997.0, sy = horizon * 0.5;
    double bx[5], by[5], br[5], bv[5];
    for (int k = 0; k < 5; k++) {
        s = s * 1664525u + 1013904223u; bx[k] = (s >> 8) % PW;
        s = s * 1664525u + 1013904223u; by[k] = horizon + (s >> 8) % (PH - (int)horizon + 1);
        s = s * 1664525u + 1013904223u; br[k] = 6 + (s >> 8) % 24;
        s = s * 1664525u + 1013904223u; bv[k] = 40 + (s >> 8) % 180;
    }
    for (int y = 0; y < PH; y++)
        for (int x = 0; x < PW; x++) {
            double v = y < horizon ? 200.0 - 80.0 * y / horizon : 90.0 + 30.0 * sin(x * 0.11 + y * 0.07);
            double ds2 = (x - sx) * (x - sx) + (y - sy) * (y - sy);
            if (ds2 < 900.0) v += 255.0 * exp(-ds2 / 60.0);
            for (int k = 0; k < 5; k++) {
                double d2 = ((x - bx[k]) * (x - bx[k]) + (y - by[k]) * (y - by[k])) / (br[k] * br[k]);
                if (d2 < 1.0) v = bv[k] + 20.0 * sin(x * 0.5) * cos(y * 0.4);
            }
            noise = noise * 1664525u + 1013904223u;
            v = gain * v + ((noise >> 24) & 15) - 7.5;
            img[y * PW + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static void write_pgm(const char *path, const uint8_t *img, int w, int h)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    char hdr[64];
    int n = snprintf(hdr, sizeof hdr, "P5\n%d %d\n255\n", w, h);
    if (write(fd, hdr, (size_t)n) != n) die("write", path);
    size_t len = (size_t)w * h;
    if (write(fd, img, len) != (ssize_t)len) die("write", path);
    if (close(fd) != 0) die("close", path);
}

static int read_pgm(const char *path, uint8_t *img, int w, int h)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    int fw, fh, mx;
    if (fscanf(f, "P5 %d %d %d", &fw, &fh, &mx) != 3 || fw != w || fh != h || fgetc(f) == EOF) { fclose(f); return -1; }
    size_t got = fread(img, 1, (size_t)w * h, f);
    fclose(f);
    return got == (size_t)w * h ? 0 : -1;
}

static void photo_path(int id, char *out, size_t n, int *year, int *mon, int *day)
{
    int y = 2019 + id % 5, m = 1 + (id / 5) % 12, d = 1 + (id / 60) % 28;
    if (year) { *year = y; *mon = m; *day = d; }
    snprintf(out, n, "%s/photos/%04d/%02d-%02d/IMG_%04d.pgm", g_root, y, m, d, id);
}

static void create_library(void)
{
    uint8_t *img = malloc(PW * PH);
    if (!img) { fprintf(stderr, "thumbsync: out of memory\n"); exit(1); }
    for (int id = 0; id < NPHOTOS; id++) {
        char path[1200], dir[1200];
        int y, m, d;
        photo_path(id, path, sizeof path, &y, &m, &d);
        snprintf(dir, sizeof dir, "%s/photos/%04d/%02d-%02d", g_root, y, m, d);
        mkdir_p(dir);
        render_photo(id, 0, img);
        write_pgm(path, img, PW, PH);
        /* camera timestamps: set mtime in the past so edits are detectable */
        struct timeval tv[2] = { { 1600000000 + id * 600, 0 }, { 1600000000 + id * 600, 0 } };
        if (utimes(path, tv) != 0) die("utimes", path);
    }
    free(img);
}

typedef struct { char rel[160]; uint64_t dhash; long mtime; } idx_t;

static void thumb_path(const char *rel, char *out, size_t n, char *dir, size_t dn)
{
    uint64_t h = fnv1a(rel);
    snprintf(dir, dn, "%s/thumbs/%02x", g_root, (unsigned)(h >> 56));
    snprintf(out, n, "%s/%016llx.pgm", dir, (unsigned long long)h);
}

/* Area-averaging downscale in linear light (gamma 2.2). */
static void make_thumbnail(const uint8_t *img, uint8_t *th)
{
    static double lin[256];
    static int init = 0;
    if (!init) { for (int i = 0; i < 256; i++) lin[i] = pow(i / 255.0, 2.2); init = 1; }
    const int fx = PW / TW, fy = PH / TH;
    for (int ty = 0; ty < TH; ty++)
        for (int tx = 0; tx < TW; tx++) {
            double acc = 0.0;
            for (int y = ty * fy; y < (ty + 1) * fy; y++)
                for (int x = tx * fx; x < (tx + 1) * fx; x++) acc += lin[img[y * PW + x]];
            th[ty * TW + tx] = (uint8_t)lrint(255.0 * pow(acc / (fx * fy), 1.0 / 2.2));
        }
}

/* 64-bit difference hash of a thumbnail on a 9x8 grid of cell means. */
static uint64_t dhash_thumb(const uint8_t *th)
{
    double g[8][9];
    for (int gy = 0; gy < 8; gy++)
        for (int gx = 0; gx < 9; gx++) {
            double acc = 0.0; int n = 0;
            for (int y = gy * TH / 8; y < (gy + 1) * TH / 8; y++)
                for (int x = gx * TW / 9; x < (gx + 1) * TW / 9; x++) { acc += th[y * TW + x]; n++; }
            g[gy][gx] = acc / n;
        }
    uint64_t h = 0;
    for (int gy = 0; gy < 8; gy++)
        for (int gx = 0; gx < 8; gx++) h = (h << 1) | (g[gy][gx] > g[gy][gx + 1]);
    return h;
}

typedef struct { int scanned, created, refreshed, fresh, removed; } sync_stats_t;

static void sync_one(const char *full, const char *rel, idx_t *idx, int *nidx, sync_stats_t *st,
                     uint8_t *img, uint8_t *th)
{
    struct stat ps, ts;
    if (stat(full, &ps) != 0) die("stat", full);
    char tp[1300], td[1200], tmp[1400];
    thumb_path(rel, tp, sizeof tp, td, sizeof td);
    st->scanned++;
    int have = stat(tp, &ts) == 0;
    /* like the freedesktop thumbnail spec, a thumbnail is valid while it
     * carries the source's mtime; we store it as the thumbnail's own mtime */
    if (have && ts.st_mtime == ps.st_mtime) {
        st->fresh++;
        if (read_pgm(tp, th, TW, TH) != 0) die("read thumbnail", tp);
    } else {
        if (read_pgm(full, img, PW, PH) != 0) { fprintf(stderr, "thumbsync: bad photo %s\n", full); exit(1); }
        mkdir_p(td);
        make_thumbnail(img, th);
        snprintf(tmp, sizeof tmp, "%s.tmp.%d", tp, (int)getpid());
        write_pgm(tmp, th, TW, TH);
        struct timeval tv[2] = { { ps.st_mtime, 0 }, { ps.st_mtime, 0 } };
        if (utimes(tmp, tv) != 0) die("utimes", tmp);
        if (rename(tmp, tp) != 0) die("rename", tmp);
        if (have) st->refreshed++; else st->created++;
    }
    if (*nidx < MAXENT) {
        idx_t *e = &idx[(*nidx)++];
        if (strlen(rel) >= sizeof e->rel) { fprintf(stderr, "thumbsync: name too long %s\n", rel); exit(1); }
        memcpy(e->rel, rel, strlen(rel) + 1);
        e->mtime = (long)ps.st_mtime;
        e->dhash = dhash_thumb(th);
    }
}

static int name_cmp(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Recursive walk of photos/ with opendir/readdir. */
static void walk(const char *dir, const char *rel, idx_t *idx, int *nidx, sync_stats_t *st, uint8_t *img, uint8_t *th)
{
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    struct dirent *de;
    char (*names)[256] = malloc(512 * 256);
    if (!names) { fprintf(stderr, "thumbsync: out of memory\n"); exit(1); }
    int nn = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (nn < 512) memcpy(names[nn++], de->d_name, strlen(de->d_name) + 1);
    }
    closedir(d);
    /* process in sorted order so the run is deterministic */
    qsort(names, (size_t)nn, 256, name_cmp);
    for (int i = 0; i < nn; i++) {
        char full[1200], r2[400];
        path_join(full, sizeof full, dir, names[i]);
        if (rel[0]) path_join(r2, sizeof r2, rel, names[i]);
        else memcpy(r2, names[i], strlen(names[i]) + 1);      /* names are < 256 bytes */
        struct stat s;
        if (lstat(full, &s) != 0) die("lstat", full);
        if (S_ISDIR(s.st_mode)) walk(full, r2, idx, nidx, st, img, th);
        else if (S_ISREG(s.st_mode) && strstr(names[i], ".pgm")) sync_one(full, r2, idx, nidx, st, img, th);
    }
    free(names);
}

static int idx_cmp(const void *a, const void *b) { return strcmp(((const idx_t *)a)->rel, ((const idx_t *)b)->rel); }

/* Remove thumbnails whose source is gone: every cache file must be in the index. */
static void gc_orphans(const idx_t *idx, int nidx, sync_stats_t *st)
{
    char tdir[1200];
    snprintf(tdir, sizeof tdir, "%s/thumbs", g_root);
    static char live[MAXENT][40];
    for (int i = 0; i < nidx; i++)
        snprintf(live[i], 40, "%016llx.pgm", (unsigned long long)fnv1a(idx[i].rel));
    DIR *d = opendir(tdir);
    if (!d) die("opendir", tdir);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char sub[1300];
        path_join(sub, sizeof sub, tdir, de->d_name);
        DIR *s = opendir(sub);
        if (!s) die("opendir", sub);
        struct dirent *fe;
        while ((fe = readdir(s)) != NULL) {
            if (fe->d_name[0] == '.') continue;
            int found = 0;
            for (int i = 0; i < nidx && !found; i++) found = strcmp(live[i], fe->d_name) == 0;
            if (!found) {
                char fp[1400];
                path_join(fp, sizeof fp, sub, fe->d_name);
                if (unlink(fp) != 0) die("unlink", fp);
                st->removed++;
            }
        }
        closedir(s);
    }
    closedir(d);
}

static void write_index(const char *name, idx_t *idx, int nidx, int *ndup)
{
    qsort(idx, (size_t)nidx, sizeof *idx, idx_cmp);
    char path[1200], tmp[1300];
    snprintf(path, sizeof path, "%s/%s", g_root, name);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    if (!f) die("fopen", tmp);
    *ndup = 0;
    for (int i = 0; i < nidx; i++) {
        int dup = -1;
        for (int j = 0; j < i; j++)
            if (__builtin_popcountll(idx[i].dhash ^ idx[j].dhash) <= 10) { dup = j; break; }
        if (dup >= 0) (*ndup)++;
        if (fprintf(f, "%s\t%ld\t%016llx\t%s\n", idx[i].rel, idx[i].mtime, (unsigned long long)idx[i].dhash,
                    dup >= 0 ? idx[dup].rel : "-") < 0) die("fprintf", tmp);
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) die("fsync", tmp);
    if (fclose(f) != 0) die("fclose", tmp);
    if (rename(tmp, path) != 0) die("rename", path);
}

/* Editing session: re-render (retouch) some photos, move some to a new album, delete some. */
static void edit_session(int *nedit, int *nmove, int *ndel)
{
    uint8_t *img = malloc(PW * PH);
    if (!img) { fprintf(stderr, "thumbsync: out of memory\n"); exit(1); }
    char album[1200];
    snprintf(album, sizeof album, "%s/photos/2024/favourites", g_root);
    mkdir_p(album);
    *nedit = *nmove = *ndel = 0;
    for (int id = 0; id < NPHOTOS; id++) {
        char path[1200];
        photo_path(id, path, sizeof path, NULL, NULL, NULL);
        int r = (id * 37) % 100;
        if (r < 15) {
            render_photo(id, 1, img);
            write_pgm(path, img, PW, PH);
            /* the editor stamps the export with the session time */
            struct timeval tv[2] = { { 1700000000 + id, 0 }, { 1700000000 + id, 0 } };
            if (utimes(path, tv) != 0) die("utimes", path);
            (*nedit)++;
        } else if (r < 22) {
            char dst[1300];
            snprintf(dst, sizeof dst, "%s/IMG_%04d.pgm", album, id);
            if (rename(path, dst) != 0) die("rename", path);
            (*nmove)++;
        } else if (r < 27) {
            if (unlink(path) != 0) die("unlink", path);
            (*ndel)++;
        }
    }
    free(img);
}

static int prune_empty_dirs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    struct dirent *de;
    int entries = 0, removed = 0;
    char (*sub)[256] = malloc(64 * 256);
    if (!sub) { fprintf(stderr, "thumbsync: out of memory\n"); exit(1); }
    int ns = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        entries++;
        if (ns < 64) memcpy(sub[ns++], de->d_name, strlen(de->d_name) + 1);
    }
    closedir(d);
    for (int i = 0; i < ns; i++) {
        char p[1300];
        struct stat s;
        path_join(p, sizeof p, dir, sub[i]);
        if (lstat(p, &s) == 0 && S_ISDIR(s.st_mode)) {
            removed += prune_empty_dirs(p);
            if (rmdir(p) == 0) { removed++; entries--; }
            else if (errno != ENOTEMPTY && errno != EEXIST) die("rmdir", p);
        }
    }
    free(sub);
    return removed;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    snprintf(g_root, sizeof g_root, "%s", argv[1]);
    char p[1200];
    snprintf(p, sizeof p, "%s/thumbs", g_root);
    mkdir_p(p);
    create_library();

    static idx_t idx[MAXENT];
    uint8_t *img = malloc(PW * PH), *th = malloc(TW * TH);
    if (!img || !th) { fprintf(stderr, "thumbsync: out of memory\n"); return 1; }
    int nidx = 0, ndup;
    sync_stats_t s1 = { 0 }, s2 = { 0 };
    snprintf(p, sizeof p, "%s/photos", g_root);
    walk(p, "", idx, &nidx, &s1, img, th);
    write_index("thumbs.index", idx, nidx, &ndup);
    printf("thumbsync: pass 1 scanned %d, created %d, up to date %d, near-duplicates %d\n",
           s1.scanned, s1.created, s1.fresh, ndup);

    int ne, nm, nd;
    edit_session(&ne, &nm, &nd);
    nidx = 0;
    walk(p, "", idx, &nidx, &s2, img, th);
    gc_orphans(idx, nidx, &s2);
    write_index("thumbs.index", idx, nidx, &ndup);
    int pruned = prune_empty_dirs(p);
    printf("thumbsync: edits %d, moves %d, deletes %d; pass 2 created %d, refreshed %d, kept %d, orphans removed %d, "
           "empty albums removed %d\n", ne, nm, nd, s2.created, s2.refreshed, s2.fresh, s2.removed, pruned);
    free(img); free(th);
    return 0;
}
