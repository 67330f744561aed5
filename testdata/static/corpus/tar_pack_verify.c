/* Minimal ustar-style archiver: generates a tree of synthetic data files, packs it
 * into a single archive with 512-byte headers, extracts it into a second tree and
 * verifies every extracted file against the original by content hash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#define NDIRS      16
#define NFILES     40
#define MAXFILE    (160 * 1024)
#define BLK        512
#define COPYBUF    (64 * 1024)
#define MAXENTRIES 4096

typedef struct {
    char name[100];
    char mode[8];
    char uid[8];
    char gid[8];
    char size[12];
    char mtime[12];
    char chksum[8];
    char typeflag;
    char linkname[100];
    char magic[6];
    char version[2];
    char uname[32];
    char gname[32];
    char devmajor[8];
    char devminor[8];
    char prefix[155];
    char pad[12];
} tar_header;

typedef struct {
    char rel[256];
    long size;
    uint64_t hash;
    double ratio;
} entry_t;

static entry_t entries[MAXENTRIES];
static int nentries = 0;

static void die(const char *what, const char *arg)
{
    fprintf(stderr, "tar_pack_verify: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    exit(1);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    rng_state = x;
    return x;
}

static void mkdir_p(const char *path)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir", tmp);
            *p = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir", tmp);
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Fill a buffer with a mildly compressible pattern: runs of text-like bytes and noise. */
static void synth_content(unsigned char *buf, long n)
{
    long i = 0;
    while (i < n) {
        uint64_t r = rng_next();
        int run = 8 + (int)(r % 120);
        unsigned char base = (unsigned char)('a' + (r >> 8) % 26);
        int noisy = (r >> 16) & 1;
        for (int k = 0; k < run && i < n; k++, i++)
            buf[i] = noisy ? (unsigned char)(rng_next() & 0xff) : (unsigned char)(base + (k % 7));
    }
}

static void make_tree(const char *root)
{
    unsigned char *buf = malloc(MAXFILE);
    char path[512];
    if (!buf) die("malloc", NULL);
    for (int d = 0; d < NDIRS; d++) {
        snprintf(path, sizeof path, "%s/run%02d/data", root, d);
        mkdir_p(path);
        for (int f = 0; f < NFILES; f++) {
            long sz = 200 + (long)(rng_next() % (MAXFILE - 200));
            synth_content(buf, sz);
            snprintf(path, sizeof path, "%s/run%02d/data/chunk_%03d.bin", root, d, f);
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) die("open", path);
            long off = 0;
            while (off < sz) {
                ssize_t w = write(fd, buf + off, sz - off);
                if (w < 0) die("write", path);
                off += w;
            }
            close(fd);
        }
    }
    free(buf);
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const entry_t *)a)->rel, ((const entry_t *)b)->rel);
}

static void collect(const char *root, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *dp = opendir(path);
    if (!dp) die("opendir", path);
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char sub[256], full[512];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0) die("stat", full);
        if (S_ISDIR(st.st_mode)) {
            collect(root, sub);
        } else if (S_ISREG(st.st_mode)) {
            if (nentries >= MAXENTRIES) { fprintf(stderr, "too many files\n"); exit(1); }
            snprintf(entries[nentries].rel, sizeof entries[nentries].rel, "%s", sub);
            entries[nentries].size = (long)st.st_size;
            entries[nentries].hash = 0;
            nentries++;
        }
    }
    closedir(dp);
}

/* Greedy LZ77 parse with 3-byte hash chains (bounded depth); returns estimated coded size ratio. */
#define LZ_CHAIN 4
static double lz_estimate(const unsigned char *p, long n)
{
    static int head[1 << 15];
    static int prev[MAXFILE];
    for (int i = 0; i < (1 << 15); i++) head[i] = -1;
    long i = 0, literals = 0, matches = 0;
    while (i + 3 <= n) {
        unsigned hkey = ((p[i] << 10) ^ (p[i + 1] << 5) ^ p[i + 2]) & 0x7fff;
        long best = 0;
        int cand = head[hkey];
        for (int depth = 0; depth < LZ_CHAIN && cand >= 0 && i - cand < 32768; depth++) {
            long len = 0;
            while (i + len < n && len < 258 && p[cand + len] == p[i + len]) len++;
            if (len > best) best = len;
            cand = prev[cand];
        }
        prev[i] = head[hkey];
        head[hkey] = (int)i;
        if (best >= 4) {
            for (long k = 1; k < best && i + k + 3 <= n; k++) {
                unsigned hk = ((p[i + k] << 10) ^ (p[i + k + 1] << 5) ^ p[i + k + 2]) & 0x7fff;
                prev[i + k] = head[hk];
                head[hk] = (int)(i + k);
            }
            matches++;
            i += best;
        } else {
            literals++;
            i++;
        }
    }
    literals += n - i;
    double bits = literals * 9.0 + matches * 24.0;
    return n > 0 ? bits / (8.0 * n) : 1.0;
}

static unsigned header_checksum(const tar_header *h)
{
    const unsigned char *p = (const unsigned char *)h;
    unsigned sum = 0;
    for (int i = 0; i < BLK; i++) {
        if (i >= 148 && i < 156) sum += ' ';
        else sum += p[i];
    }
    return sum;
}

static void fill_header(tar_header *h, const char *name, long size)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->mode, sizeof h->mode, "%07o", 0644);
    snprintf(h->uid, sizeof h->uid, "%07o", 0);
    snprintf(h->gid, sizeof h->gid, "%07o", 0);
    snprintf(h->size, sizeof h->size, "%011lo", size);
    snprintf(h->mtime, sizeof h->mtime, "%011o", 0);
    h->typeflag = '0';
    memcpy(h->magic, "ustar", 6);
    memcpy(h->version, "00", 2);
    snprintf(h->uname, sizeof h->uname, "sim");
    snprintf(h->gname, sizeof h->gname, "sim");
    unsigned cs = header_checksum(h);
    snprintf(h->chksum, sizeof h->chksum, "%06o", cs);
    h->chksum[7] = ' ';
}

static long pack_tree(const char *root, const char *archive)
{
    int out = open(archive, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) die("open", archive);
    unsigned char *buf = malloc(MAXFILE + BLK);
    static const unsigned char zeros[BLK];
    long total = 0;
    for (int i = 0; i < nentries; i++) {
        tar_header h;
        char path[512];
        fill_header(&h, entries[i].rel, entries[i].size);
        if (write(out, &h, BLK) != BLK) die("write header", archive);
        total += BLK;
        snprintf(path, sizeof path, "%s/%s", root, entries[i].rel);
        int in = open(path, O_RDONLY);
        if (in < 0) die("open", path);
        long got = 0;
        while (got < entries[i].size) {
            ssize_t r = read(in, buf + got, entries[i].size - got);
            if (r <= 0) die("read", path);
            got += r;
        }
        close(in);
        entries[i].hash = fnv1a(0xcbf29ce484222325ULL, buf, (size_t)got);
        entries[i].ratio = lz_estimate(buf, got);
        long off = 0;
        while (off < got) {
            long chunk = got - off < COPYBUF ? got - off : COPYBUF;
            if (write(out, buf + off, chunk) != chunk) die("write data", archive);
            off += chunk;
        }
        total += entries[i].size;
        long pad = (BLK - entries[i].size % BLK) % BLK;
        if (pad && write(out, zeros, pad) != pad) die("write pad", archive);
        total += pad;
    }
    if (write(out, zeros, BLK) != BLK || write(out, zeros, BLK) != BLK) die("write trailer", archive);
    total += 2 * BLK;
    close(out);
    free(buf);
    return total;
}

static int extract_archive(const char *archive, const char *dest)
{
    int in = open(archive, O_RDONLY);
    if (in < 0) die("open", archive);
    unsigned char *buf = malloc(COPYBUF);
    int count = 0;
    for (;;) {
        tar_header h;
        ssize_t r = read(in, &h, BLK);
        if (r != BLK) die("short header read", archive);
        if (h.name[0] == 0) break;
        unsigned stored = (unsigned)strtoul(h.chksum, NULL, 8);
        if (stored != header_checksum(&h)) {
            fprintf(stderr, "tar_pack_verify: bad header checksum for %s\n", h.name);
            exit(1);
        }
        long size = strtol(h.size, NULL, 8);
        char path[512], dir[512];
        snprintf(path, sizeof path, "%s/%s", dest, h.name);
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) { *slash = 0; mkdir_p(dir); }
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0) die("open", path);
        long padded = (size + BLK - 1) / BLK * BLK;
        long left = padded, keep = size;
        while (left > 0) {
            ssize_t n = read(in, buf, left < COPYBUF ? left : COPYBUF);
            if (n <= 0) die("read data", archive);
            long w = n < keep ? n : keep;
            if (w > 0 && write(out, buf, w) != w) die("write", path);
            keep -= w;
            left -= n;
        }
        close(out);
        count++;
    }
    close(in);
    free(buf);
    return count;
}

static int verify_tree(const char *dest)
{
    unsigned char *buf = malloc(COPYBUF);
    int bad = 0;
    for (int i = 0; i < nentries; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dest, entries[i].rel);
        FILE *fp = fopen(path, "rb");
        if (!fp) die("fopen", path);
        uint64_t hh = 0xcbf29ce484222325ULL;
        long got = 0;
        size_t n;
        while ((n = fread(buf, 1, COPYBUF, fp)) > 0) {
            hh = fnv1a(hh, buf, n);
            got += (long)n;
        }
        fclose(fp);
        if (hh != entries[i].hash || got != entries[i].size) {
            fprintf(stderr, "mismatch: %s\n", entries[i].rel);
            bad++;
        }
    }
    free(buf);
    return bad;
}

static void write_listing(const char *path, long archive_bytes)
{
    FILE *fp = fopen(path, "w");
    if (!fp) die("fopen", path);
    fprintf(fp, "# archive bytes %ld, entries %d\n", archive_bytes, nentries);
    for (int i = 0; i < nentries; i++)
        fprintf(fp, "%10ld %016llx %6.3f %s\n", entries[i].size,
                (unsigned long long)entries[i].hash, entries[i].ratio, entries[i].rel);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    char src[512], dst[512], arc[512], lst[512];
    mkdir_p(argv[1]);
    snprintf(src, sizeof src, "%s/src", argv[1]);
    snprintf(dst, sizeof dst, "%s/extracted", argv[1]);
    snprintf(arc, sizeof arc, "%s/bundle.tar", argv[1]);
    snprintf(lst, sizeof lst, "%s/bundle.lst", argv[1]);

    make_tree(src);
    collect(src, "");
    qsort(entries, nentries, sizeof(entry_t), cmp_entry);
    long bytes = pack_tree(src, arc);
    int n = extract_archive(arc, dst);
    if (n != nentries) {
        fprintf(stderr, "tar_pack_verify: extracted %d of %d entries\n", n, nentries);
        return 1;
    }
    int bad = verify_tree(dst);
    write_listing(lst, bytes);
    if (bad) {
        fprintf(stderr, "tar_pack_verify: %d files differ\n", bad);
        return 1;
    }
    printf("packed %d files, %ld archive bytes, all verified\n", nentries, bytes);
    return 0;
}
