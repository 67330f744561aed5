/* File deduplicator: builds a directory tree of files where some share
 * content, walks it collecting sizes with stat, hashes only files whose size
 * is shared (64 KiB read() blocks, 64-bit FNV-1a mixed with a rolling sum),
 * groups duplicates by (size, hash), confirms them byte by byte and writes a
 * report. The groups found are checked against the planted duplicates. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NDIRS 14
#define FILES_PER_DIR 52
#define NFILES (NDIRS * FILES_PER_DIR)
#define BLOCK 65536

typedef struct {
    char path[512];
    off_t size;
    uint64_t hash;
    int content_id;     /* planted content identity (ground truth) */
    int group;
} entry_t;

static entry_t files[NFILES];
static int nfiles;
static unsigned char blockbuf[BLOCK], blockbuf2[BLOCK];

static uint64_t lcg(uint64_t *s) { *s = *s * 6364136223846793005ULL + 1442695040888963407ULL; return *s >> 17; }

static void fill_content(unsigned char *buf, size_t n, int content_id)
{
    uint64_t s = 0x1234567ULL + (uint64_t)content_id * 7919;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = lcg(&s);
        size_t m = n - i < 8 ? n - i : 8;
        memcpy(buf + i, &v, m);
    }
}

/* create the tree; file k gets content id k unless it copies an earlier one */
static int create_tree(const char *root, int *truth_dups)
{
    static const size_t sizes[6] = { 4096, 20000, 65536, 100000, 262144, 524288 };
    unsigned char *buf = malloc(524288);
    uint64_t s = 42;
    int ndup = 0;
    for (int d = 0; d < NDIRS; d++) {
        char dpath[300];
        snprintf(dpath, sizeof dpath, "%s/d%02d", root, d);
        if (mkdir(dpath, 0755) != 0 && errno != EEXIST) { perror(dpath); exit(1); }
        for (int f = 0; f < FILES_PER_DIR; f++) {
            int k = d * FILES_PER_DIR + f;
            int cid = k;
            size_t size = sizes[lcg(&s) % 6];
            if (k > 10 && lcg(&s) % 10 < 3) {       /* duplicate an earlier file */
                int src = (int)(lcg(&s) % (uint64_t)k);
                cid = files[src].content_id;
                size = (size_t)files[src].size;
                ndup++;
            }
            fill_content(buf, size, cid);
            snprintf(files[k].path, sizeof files[k].path, "%s/file%03d.dat", dpath, f);
            files[k].content_id = cid;
            files[k].size = (off_t)size;
            int fd = open(files[k].path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || write(fd, buf, size) != (ssize_t)size) { perror(files[k].path); exit(1); }
            close(fd);
        }
    }
    free(buf);
    *truth_dups = ndup;
    return NDIRS * FILES_PER_DIR;
}

static void walk_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) { perror(dir); exit(1); }
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%.255s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) { perror(path); exit(1); }
        if (S_ISDIR(st.st_mode)) { walk_tree(path); continue; }
        if (!S_ISREG(st.st_mode) || nfiles >= NFILES) continue;
        snprintf(files[nfiles].path, sizeof files[nfiles].path, "%s", path);
        files[nfiles].size = st.st_size;
        files[nfiles].group = -1;
        nfiles++;
    }
    closedir(dp);
}

static uint64_t hash_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    uint64_t h = 1469598103934665603ULL, roll = 0;
    ssize_t r;
    while ((r = read(fd, blockbuf, BLOCK)) > 0) {
        for (ssize_t i = 0; i < r; i++) {
            h ^= blockbuf[i];
            h *= 1099511628211ULL;
            roll = (roll << 5) + roll + blockbuf[i];
        }
    }
    if (r < 0) { perror(path); exit(1); }
    close(fd);
    return h ^ (roll * 0x9E3779B97F4A7C15ULL);
}

static int same_content(const char *a, const char *b)
{
    int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
    if (fa < 0 || fb < 0) { perror("open"); exit(1); }
    int same = 1;
    for (;;) {
        ssize_t ra = read(fa, blockbuf, BLOCK), rb = read(fb, blockbuf2, BLOCK);
        if (ra != rb) { same = 0; break; }
        if (ra <= 0) break;
        if (memcmp(blockbuf, blockbuf2, (size_t)ra) != 0) { same = 0; break; }
    }
    close(fa); close(fb);
    return same;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* returns number of redundant copies found */
static int find_duplicates(const char *report_path, long *wasted)
{
    /* hash only files whose size occurs more than once */
    qsort(files, (size_t)nfiles, sizeof(entry_t), cmp_entry);
    for (int i = 0; i < nfiles; i++) {
        int shared = (i > 0 && files[i - 1].size == files[i].size) ||
                     (i + 1 < nfiles && files[i + 1].size == files[i].size);
        files[i].hash = shared ? hash_file(files[i].path) : 0;
    }
    qsort(files, (size_t)nfiles, sizeof(entry_t), cmp_entry);
    FILE *rep = fopen(report_path, "w");
    if (!rep) { perror(report_path); exit(1); }
    int redundant = 0, ngroups = 0;
    *wasted = 0;
    for (int i = 0; i < nfiles;) {
        int j = i + 1;
        while (j < nfiles && files[j].size == files[i].size && files[j].hash == files[i].hash) j++;
        if (j - i > 1) {
            fprintf(rep, "group %d: size %lld hash %016llx copies %d\n", ngroups,
                    (long long)files[i].size, (unsigned long long)files[i].hash, j - i);
            for (int k = i; k < j; k++) {
                int confirmed = k == i || same_content(files[i].path, files[k].path);
                fprintf(rep, "  %s%s\n", files[k].path, confirmed ? "" : "  (hash collision)");
                if (k > i && confirmed) { redundant++; *wasted += files[k].size; }
            }
            ngroups++;
        }
        i = j;
    }
    fprintf(rep, "total: %d files, %d groups, %d redundant copies, %ld bytes reclaimable\n",
            nfiles, ngroups, redundant, *wasted);
    fclose(rep);
    return redundant;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char root[256], report[280];
    snprintf(root, sizeof root, "%s/tree", argv[1]);
    snprintf(report, sizeof report, "%s/duplicates.txt", argv[1]);
    if (mkdir(root, 0755) != 0 && errno != EEXIST) { perror(root); return 1; }
    int truth = 0;
    create_tree(root, &truth);
    /* distinct contents that were copied at least once define the truth */
    static int seen[NFILES];
    int distinct = 0;
    for (int k = 0; k < NFILES; k++) seen[files[k].content_id]++;
    for (int k = 0; k < NFILES; k++) if (seen[k] > 0) distinct++;
    memset(files, 0, sizeof files);
    walk_tree(root);
    long wasted;
    int redundant = find_duplicates(report, &wasted);
    printf("files %d, planted copies %d, found %d, reclaimable %ld bytes\n", nfiles, truth, redundant, wasted);
    if (nfiles != NFILES || redundant != truth || NFILES - redundant != distinct) return 1;
    return 0;
}
