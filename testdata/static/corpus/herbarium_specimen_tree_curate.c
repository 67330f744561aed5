/* Herbarium digitisation intake and curation.
 * Simulates a scanning station dropping specimen label records (key: value
 * text) and small greyscale sheet images into an incoming/ directory.  The
 * curation pass scans incoming/ with opendir/readdir, parses and validates
 * each label, scores image focus (Laplacian variance), detects duplicate
 * sheets by collector+number, files good specimens into a
 * family/genus/ tree under accession names with rename(), quarantines bad
 * ones, then walks the whole tree with stat() to build an index CSV and
 * per-genus counts, and finally deaccessions one genus (unlink + rmdir). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NSPEC 4400
#define NFAM 12
#define NGEN 8
#define IMG_W 72
#define IMG_H 56
#define PATHLEN 4600

static const char *families[NFAM] = {"Asteraceae", "Poaceae", "Fabaceae", "Rosaceae", "Orchidaceae",
                                     "Lamiaceae", "Cyperaceae", "Ericaceae", "Ranunculaceae",
                                     "Brassicaceae", "Apiaceae", "Juncaceae"};
static char root[4000];

typedef struct {
    char barcode[32];
    char family[32];
    char genus[32];
    char collector[48];
    int number;
    double lat, lon;
    int year;
} label_t;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "herbarium: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t rs = 0x4e61747572616cull;
static uint32_t rnd(uint32_t n)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint32_t)(rs % n);
}

/* dir + "/" + name (name truncated to nlen chars if nlen >= 0), checked */
static void join_path(char *out, const char *dir, const char *name, int nlen, const char *suffix)
{
    size_t ld = strlen(dir), ln = nlen >= 0 ? (size_t)nlen : strlen(name), ls = strlen(suffix);
    if (ld + 1 + ln + ls + 1 > PATHLEN) {
        fprintf(stderr, "herbarium: path too long: %s/%s\n", dir, name);
        exit(1);
    }
    memcpy(out, dir, ld);
    out[ld] = '/';
    memcpy(out + ld + 1, name, ln);
    memcpy(out + ld + 1 + ln, suffix, ls + 1);
}

static void mkdir_p(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
}

static void genus_name(int f, int g, char *out, size_t n)
{
    static const char syl[][4] = {"ca", "lo", "mi", "ra", "tu", "phy", "ste", "gla", "ber", "ia"};
    snprintf(out, n, "%c%s%s%s", 'A' + (f * 7 + g * 3) % 26, syl[(f + g) % 10], syl[(f * g + 3) % 10],
             syl[(g * 5 + f) % 10]);
}

static void make_taxonomy_dirs(void)
{
    char p[PATHLEN];
    snprintf(p, sizeof p, "%s/incoming", root);
    mkdir_p(p);
    snprintf(p, sizeof p, "%s/quarantine", root);
    mkdir_p(p);
    snprintf(p, sizeof p, "%s/collection", root);
    mkdir_p(p);
    for (int f = 0; f < NFAM; f++) {
        snprintf(p, sizeof p, "%s/collection/%s", root, families[f]);
        mkdir_p(p);
        for (int g = 0; g < NGEN; g++) {
            char gn[32];
            genus_name(f, g, gn, sizeof gn);
            snprintf(p, sizeof p, "%s/collection/%s/%s", root, families[f], gn);
            mkdir_p(p);
        }
    }
}

static void write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write", path);
        }
        p += w;
        len -= (size_t)w;
    }
    if (close(fd) != 0) die("close", path);
}

static size_t read_file(const char *path, void *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, (char *)buf + got, cap - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            die("read", path);
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    if (close(fd) != 0) die("close", path);
    return got;
}

/* Scanner station output: one label file and one PGM sheet image. */
static void scan_specimens(void)
{
    char path[PATHLEN], text[512];
    static unsigned char img[IMG_W * IMG_H + 64];
    for (int s = 0; s < NSPEC; s++) {
        int f = (int)rnd(NFAM), g = (int)rnd(NGEN);
        char gn[32];
        genus_name(f, g, gn, sizeof gn);
        int dup = s > 50 && rnd(40) == 0;
        int collector = dup ? (int)((s - 17) % 23) : (int)(s % 23);
        int number = dup ? 1000 + (s - 17) : 1000 + s;
        double lat = -40.0 + rnd(9000) / 100.0, lon = -20.0 + rnd(16000) / 100.0;
        int year = 1820 + (int)rnd(205);
        if (rnd(60) == 0) lat = 123.4; /* transcription error */
        int n = snprintf(text, sizeof text,
                         "barcode: HB%07d\nfamily: %s\ngenus: %s\nepithet: sp%u\ncollector: Coll%02d\n"
                         "number: %d\nlatitude: %.4f\nlongitude: %.4f\nyear: %d\nlocality: plot %u\n",
                         s, families[f], gn, rnd(40), collector, number, lat, lon, year, rnd(900));
        snprintf(path, sizeof path, "%s/incoming/HB%07d.txt", root, s);
        write_file(path, text, (size_t)n);
        /* synthetic sheet: leaf-like blobs; some scans are out of focus */
        int blur = rnd(12) == 0;
        int hl = snprintf((char *)img, 64, "P5\n%d %d\n255\n", IMG_W, IMG_H);
        unsigned char *px = img + hl;
        for (int y = 0; y < IMG_H; y++)
            for (int x = 0; x < IMG_W; x++) {
                double dx = (x - IMG_W / 2.0) / 20.0, dy = (y - IMG_H / 2.0) / 9.0;
                double r2 = dx * dx + dy * dy;
                double leaf = blur ? 1.0 / (1.0 + exp((r2 - 1.0) * 3.0)) : (r2 < 1.0);
                double v = 200.0 - (140.0 - 40.0 * sin(x * 0.9) * (blur ? 0.1 : 1.0)) * leaf;
                v += (double)rnd(blur ? 3 : 25);
                px[y * IMG_W + x] = (unsigned char)v;
            }
        snprintf(path, sizeof path, "%s/incoming/HB%07d.pgm", root, s);
        write_file(path, img, (size_t)hl + IMG_W * IMG_H);
    }
}

static int parse_label(const char *text, label_t *L)
{
    memset(L, 0, sizeof *L);
    int fields = 0;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[256];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        fields += sscanf(line, "barcode: %31s", L->barcode) == 1;
        fields += sscanf(line, "family: %31s", L->family) == 1;
        fields += sscanf(line, "genus: %31s", L->genus) == 1;
        fields += sscanf(line, "collector: %47s", L->collector) == 1;
        fields += sscanf(line, "number: %d", &L->number) == 1;
        fields += sscanf(line, "latitude: %lf", &L->lat) == 1;
        fields += sscanf(line, "longitude: %lf", &L->lon) == 1;
        fields += sscanf(line, "year: %d", &L->year) == 1;
        p = e ? e + 1 : p + len;
    }
    return fields == 8 && fabs(L->lat) <= 90.0 && fabs(L->lon) <= 180.0;
}

/* Focus score: variance of the 3x3 Laplacian over the sheet. */
static double focus_score(const unsigned char *img, size_t len)
{
    int w, h, mx, off = 0;
    if (sscanf((const char *)img, "P5 %d %d %d%n", &w, &h, &mx, &off) != 3) return -1.0;
    off++;
    if ((size_t)off + (size_t)w * h > len) return -1.0;
    const unsigned char *px = img + off;
    double s = 0, s2 = 0;
    long n = 0;
    for (int pass = 0; pass < 4; pass++) /* multi-scale: strides 1..4 */
        for (int y = 1 + pass; y < h - 1 - pass; y++)
            for (int x = 1 + pass; x < w - 1 - pass; x++) {
                int k = pass + 1;
                double l = 4.0 * px[y * w + x] - px[y * w + x - k] - px[y * w + x + k] - px[(y - k) * w + x] -
                           px[(y + k) * w + x];
                s += l;
                s2 += l * l;
                n++;
            }
    double m = s / n;
    return s2 / n - m * m;
}

#define DUPHASH 16384
static uint64_t dupkeys[DUPHASH];

static int seen_before(const char *collector, int number)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = collector; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ (uint64_t)number) * 1099511628211ull;
    if (h == 0) h = 1;
    for (size_t i = h % DUPHASH;; i = (i + 1) % DUPHASH) {
        if (dupkeys[i] == h) return 1;
        if (dupkeys[i] == 0) { dupkeys[i] = h; return 0; }
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Curation pass over incoming/. Returns counts via pointers. */
static void curate_incoming(int *filed, int *quarantined, int *duplicates)
{
    char dir[PATHLEN];
    snprintf(dir, sizeof dir, "%s/incoming", root);
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    size_t cap = 1024, n = 0;
    char **names = malloc(cap * sizeof *names);
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".txt") != 0) continue;
        if (n == cap) names = realloc(names, (cap *= 2) * sizeof *names);
        if (!names) { fprintf(stderr, "out of memory\n"); exit(1); }
        names[n++] = strdup(de->d_name);
    }
    if (errno) die("readdir", dir);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str); /* process in barcode order */
    static unsigned char img[IMG_W * IMG_H + 64];
    char text[1024], src[PATHLEN], dst[PATHLEN], isrc[PATHLEN], idst[PATHLEN];
    *filed = *quarantined = *duplicates = 0;
    for (size_t i = 0; i < n; i++) {
        join_path(src, dir, names[i], -1, "");
        size_t len = read_file(src, text, sizeof text - 1);
        text[len] = '\0';
        join_path(isrc, dir, names[i], (int)(strlen(names[i]) - 4), ".pgm");
        size_t ilen = read_file(isrc, img, sizeof img);
        label_t L;
        int ok = parse_label(text, &L);
        double focus = focus_score(img, ilen);
        if (ok && seen_before(L.collector, L.number)) {
            (*duplicates)++;
            if (unlink(src) != 0) die("unlink", src);
            if (unlink(isrc) != 0) die("unlink", isrc);
            continue;
        }
        if (!ok || focus < 1000.0) {
            snprintf(dst, sizeof dst, "%s/quarantine/%s", root, names[i]);
            snprintf(idst, sizeof idst, "%s/quarantine/%.*s.pgm", root, (int)(strlen(names[i]) - 4), names[i]);
            (*quarantined)++;
        } else {
            snprintf(dst, sizeof dst, "%s/collection/%s/%s/%s_%s_%d.txt", root, L.family, L.genus, L.barcode,
                     L.collector, L.number);
            snprintf(idst, sizeof idst, "%s/collection/%s/%s/%s_%s_%d.pgm", root, L.family, L.genus, L.barcode,
                     L.collector, L.number);
            (*filed)++;
        }
        if (rename(src, dst) != 0) die("rename", dst);
        if (rename(isrc, idst) != 0) die("rename", idst);
        free(names[i]);
        names[i] = NULL;
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* Recursive walk: index every file with size and mtime; per-genus counts. */
static long walk_tree(const char *path, const char *rel, FILE *idx, long *bytes)
{
    DIR *d = opendir(path);
    if (!d) die("opendir", path);
    struct dirent *de;
    long files = 0;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        char child[PATHLEN], crel[PATHLEN];
        snprintf(child, sizeof child, "%s/%s", path, de->d_name);
        snprintf(crel, sizeof crel, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        struct stat st;
        if (stat(child, &st) != 0) die("stat", child);
        if (S_ISDIR(st.st_mode)) {
            long c = walk_tree(child, crel, idx, bytes);
            if (fprintf(idx, "D,%s,%ld,0\n", crel, c) < 0) die("fprintf", "index");
            files += c;
        } else {
            files++;
            *bytes += (long)st.st_size;
            if (fprintf(idx, "F,%s,%lld,%o\n", crel, (long long)st.st_size, (unsigned)(st.st_mode & 0777)) < 0)
                die("fprintf", "index");
        }
        errno = 0;
    }
    if (errno) die("readdir", path);
    closedir(d);
    return files;
}

/* Transfer one genus to another institution: remove its files and directory. */
static int deaccession_genus(int f, int g)
{
    char gn[32], dir[PATHLEN];
    genus_name(f, g, gn, sizeof gn);
    snprintf(dir, sizeof dir, "%s/collection/%s/%s", root, families[f], gn);
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    struct dirent *de;
    int removed = 0;
    char **victims = NULL;
    size_t nv = 0, cap = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (nv == cap) victims = realloc(victims, (cap = cap ? 2 * cap : 64) * sizeof *victims);
        if (!victims) { fprintf(stderr, "out of memory\n"); exit(1); }
        victims[nv++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < nv; i++) {
        char p[PATHLEN];
        join_path(p, dir, victims[i], -1, "");
        if (unlink(p) != 0) die("unlink", p);
        removed++;
        free(victims[i]);
    }
    free(victims);
    if (rmdir(dir) != 0) die("rmdir", dir);
    return removed;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(root, sizeof root, "%s", argv[1]);
    make_taxonomy_dirs();
    scan_specimens();
    int filed, quarantined, dups;
    curate_incoming(&filed, &quarantined, &dups);
    int removed = deaccession_genus(3, 5);

    char path[PATHLEN], top[PATHLEN];
    snprintf(path, sizeof path, "%s/collection_index.csv", root);
    FILE *idx = fopen(path, "w");
    if (!idx) die("fopen", path);
    if (fprintf(idx, "kind,path,size_or_count,mode\n") < 0) die("fprintf", path);
    long bytes = 0;
    snprintf(top, sizeof top, "%s/collection", root);
    long nfiles = walk_tree(top, "collection", idx, &bytes);
    snprintf(top, sizeof top, "%s/quarantine", root);
    long nq = walk_tree(top, "quarantine", idx, &bytes);
    if (fclose(idx) != 0) die("fclose", path);

    snprintf(path, sizeof path, "%s/curation_summary.txt", root);
    FILE *s = fopen(path, "w");
    if (!s || fprintf(s, "scanned %d filed %d quarantined %d duplicates %d deaccessioned_files %d\n"
                         "indexed_files %ld quarantine_files %ld bytes %ld\n",
                      NSPEC, filed, quarantined, dups, removed, nfiles, nq, bytes) < 0 || fclose(s) != 0)
        die("write", path);
    printf("herbarium: %d scanned, %d filed, %d quarantined, %d duplicates, %ld files indexed\n", NSPEC, filed,
           quarantined, dups, nfiles + nq);
    return 0;
}
