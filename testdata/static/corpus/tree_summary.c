/*
 * Directory-tree summariser (a small "du --by-extension").
 * A synthetic project tree is created first (nested directories made with
 * mkdir, files of log-uniformly distributed sizes written with
 * open/write/close).  The tree is then walked recursively with
 * openat/fdopendir/readdir and fstatat; sizes are summed per file extension
 * and per directory subtree, compared with what was created, and a text
 * report sorted by volume is written.
 */
#define _GNU_SOURCE
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

#define FANOUT     5
#define MAX_DEPTH  3
#define MIN_FILES  6
#define MAX_FILES  16
#define MAX_SIZE   (192 * 1024)
#define NEXT       8
#define MAX_DIRS   256

static const char *EXTS[NEXT] = {"dat", "txt", "csv", "log", "bin", "h5", "nc", "json"};

typedef struct {
    char     ext[16];
    uint64_t files;
    uint64_t bytes;
    uint64_t blocks;
    off_t    largest;
} ext_summary;

typedef struct {
    char     path[512];
    uint64_t bytes;
    uint64_t files;
} dir_summary;

typedef struct {
    ext_summary ext[NEXT + 1];      /* last slot: files without a known extension */
    dir_summary dirs[MAX_DIRS];
    int         ndirs;
    uint64_t    total_files, total_bytes;
} tree_summary;

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static int ext_index(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot) return NEXT;
    for (int i = 0; i < NEXT; i++)
        if (strcmp(dot + 1, EXTS[i]) == 0) return i;
    return NEXT;
}

static void fill_content(char *buf, size_t n, int ext, uint32_t salt)
{
    if (ext == 1 || ext == 2 || ext == 3 || ext == 7) {        /* text-like */
        size_t pos = 0;
        uint32_t line = 0;
        while (pos < n) {
            char tmp[96];
            int k = snprintf(tmp, sizeof tmp, "%u,%u,%.5f\n", line, salt, sin(line * 0.01 + salt));
            size_t c = (size_t)k < n - pos ? (size_t)k : n - pos;
            memcpy(buf + pos, tmp, c);
            pos += c;
            line++;
        }
    } else {
        uint32_t x = salt * 2654435761u + 1;
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            buf[i] = (char)(x >> 24);
        }
    }
}

static void write_file(const char *path, const char *buf, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    size_t done = 0;
    while (done < n) {
        size_t piece = n - done < 65536 ? n - done : 65536;
        ssize_t w = write(fd, buf + done, piece);
        if (w < 0) {
            if (errno == EINTR) continue;
            perror(path);
            exit(1);
        }
        done += (size_t)w;
    }
    if (close(fd) != 0) { perror(path); exit(1); }
}

static void populate_dir(const char *dir, int depth, char *buf, tree_summary *expect)
{
    int nfiles = MIN_FILES + (int)(rnd() % (MAX_FILES - MIN_FILES + 1));
    char path[1024];
    for (int f = 0; f < nfiles; f++) {
        int e = (int)(rnd() % (NEXT + 1));
        /* log-uniform size between 16 bytes and MAX_SIZE */
        double u = (rnd() + 0.5) / 4294967296.0;
        size_t size = (size_t)(16.0 * pow((double)MAX_SIZE / 16.0, u));
        if (e == NEXT)
            snprintf(path, sizeof path, "%s/README_%d", dir, f);
        else
            snprintf(path, sizeof path, "%s/part_%02d_%d.%s", dir, depth, f, EXTS[e]);
        fill_content(buf, size, e, rnd());
        write_file(path, buf, size);
        expect->ext[e].files++;
        expect->ext[e].bytes += size;
        expect->total_files++;
        expect->total_bytes += size;
    }
    if (depth == MAX_DEPTH) return;
    for (int d = 0; d < FANOUT; d++) {
        snprintf(path, sizeof path, "%s/sub%d_%c", dir, depth, 'a' + d);
        if (mkdir(path, 0755) != 0 && errno != EEXIST) { perror(path); exit(1); }
        populate_dir(path, depth + 1, buf, expect);
    }
}

static void create_tree(const char *root, tree_summary *expect)
{
    memset(expect, 0, sizeof *expect);
    if (mkdir(root, 0755) != 0 && errno != EEXIST) { perror(root); exit(1); }
    char *buf = malloc(MAX_SIZE + 1);
    populate_dir(root, 0, buf, expect);
    free(buf);
}

/* returns the number of bytes below this directory */
static uint64_t walk_dir(int parent_fd, const char *name, const char *relpath, tree_summary *s)
{
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY);
    if (fd < 0) { perror(relpath); exit(1); }
    DIR *d = fdopendir(fd);
    if (!d) { perror("fdopendir"); exit(1); }
    int slot = s->ndirs < MAX_DIRS ? s->ndirs++ : -1;
    uint64_t subtree = 0, nfiles = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            perror(de->d_name);
            exit(1);
        }
        if (S_ISDIR(st.st_mode)) {
            char child[512];
            snprintf(child, sizeof child, "%s/%s", relpath, de->d_name);
            subtree += walk_dir(dirfd(d), de->d_name, child, s);
        } else if (S_ISREG(st.st_mode)) {
            ext_summary *e = &s->ext[ext_index(de->d_name)];
            e->files++;
            e->bytes += (uint64_t)st.st_size;
            e->blocks += (uint64_t)st.st_blocks;
            if (st.st_size > e->largest) e->largest = st.st_size;
            s->total_files++;
            s->total_bytes += (uint64_t)st.st_size;
            subtree += (uint64_t)st.st_size;
            nfiles++;
        }
    }
    closedir(d);
    if (slot >= 0) {
        snprintf(s->dirs[slot].path, sizeof s->dirs[slot].path, "%s", relpath);
        s->dirs[slot].bytes = subtree;
        s->dirs[slot].files = nfiles;
    }
    return subtree;
}

static int by_bytes_ext(const void *a, const void *b)
{
    const ext_summary *x = a, *y = b;
    return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

static int by_bytes_dir(const void *a, const void *b)
{
    const dir_summary *x = a, *y = b;
    if (x->bytes != y->bytes) return (x->bytes < y->bytes) - (x->bytes > y->bytes);
    return strcmp(x->path, y->path);
}

static void write_report(const char *path, tree_summary *s)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    ext_summary sorted[NEXT + 1];
    memcpy(sorted, s->ext, sizeof sorted);
    qsort(sorted, NEXT + 1, sizeof sorted[0], by_bytes_ext);
    fprintf(f, "# %llu files, %llu bytes, %d directories\n", (unsigned long long)s->total_files,
            (unsigned long long)s->total_bytes, s->ndirs);
    fprintf(f, "%-8s %8s %14s %14s %10s %7s\n", "ext", "files", "bytes", "allocated", "largest", "share");
    for (int i = 0; i <= NEXT; i++)
        fprintf(f, "%-8s %8llu %14llu %14llu %10lld %6.2f%%\n", sorted[i].ext,
                (unsigned long long)sorted[i].files, (unsigned long long)sorted[i].bytes,
                (unsigned long long)sorted[i].blocks * 512ULL, (long long)sorted[i].largest,
                100.0 * (double)sorted[i].bytes / (double)s->total_bytes);
    qsort(s->dirs, (size_t)s->ndirs, sizeof s->dirs[0], by_bytes_dir);
    fprintf(f, "\n# largest subtrees\n");
    for (int i = 0; i < s->ndirs && i < 15; i++)
        fprintf(f, "%14llu %5llu  %s\n", (unsigned long long)s->dirs[i].bytes,
                (unsigned long long)s->dirs[i].files, s->dirs[i].path);
    if (fclose(f) != 0) { perror(path); exit(1); }
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char root[4096], report[4096];
    snprintf(root, sizeof root, "%s/project", argv[1]);
    snprintf(report, sizeof report, "%s/tree_report.txt", argv[1]);

    static tree_summary expect, found;
    create_tree(root, &expect);

    memset(&found, 0, sizeof found);
    for (int i = 0; i < NEXT; i++) snprintf(found.ext[i].ext, sizeof found.ext[i].ext, ".%s", EXTS[i]);
    snprintf(found.ext[NEXT].ext, sizeof found.ext[NEXT].ext, "(none)");
    int top = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (top < 0) { perror(argv[1]); return 1; }
    uint64_t total = walk_dir(top, "project", "project", &found);
    close(top);

    int bad = 0;
    for (int i = 0; i <= NEXT; i++)
        if (found.ext[i].files != expect.ext[i].files || found.ext[i].bytes != expect.ext[i].bytes) bad++;
    if (total != expect.total_bytes || found.total_files != expect.total_files) bad++;
    int want_dirs = 0;
    for (int d = 0, p = 1; d <= MAX_DEPTH; d++, p *= FANOUT) want_dirs += p;
    if (found.ndirs != want_dirs) bad++;

    write_report(report, &found);
    printf("%llu files in %d directories, %llu bytes; %d mismatches\n",
           (unsigned long long)found.total_files, found.ndirs, (unsigned long long)total, bad);
    return bad ? 1 : 0;
}
