/*
 * pkg_store_install_gc.c
 *
 * A miniature functional package manager (content-addressed store in the
 * style of Nix/Guix).  A catalogue of packages with a dependency DAG is
 * "built" in three releases; every package build lands in
 *   store/<hash>-<name>-<version>/{bin,lib,share/doc,share/man/man1}
 * where the hash covers the name, version and the hashes of all
 * dependencies, so an upgrade cascades to every reverse dependency.
 * Builds are staged in a temporary directory, a MANIFEST with per-file
 * hashes and a DEPS file are written, and the directory is rename()d into
 * the store.  Each release creates a profile generation of relative
 * symlinks to all binaries and atomically re-points the "current" symlink.
 * Afterwards the whole store is walked with opendir/readdir/lstat and every
 * file is re-hashed against its manifest; old generations are deleted and a
 * garbage collector computes the live closure from the remaining profiles
 * (readlink + DEPS files) and removes dead store paths with unlink/rmdir.
 *
 * usage: pkg_store_install_gc OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPKG 96
#define NREL 3
#define MAXDEP 5
#define PATHMAX 1024
#define KEEP_GENERATIONS 2

typedef struct {
    char name[32];
    int ndep, dep[MAXDEP];
    int version[NREL];      /* version per release */
    uint64_t hash[NREL];    /* store hash per release */
    char dir[NREL][96];     /* store directory name per release */
} Package;

typedef struct {
    long files, dirs, bytes, symlinks, renames;
    long verified_files, verified_bytes, mismatches;
    long removed_files, removed_dirs, removed_links, removed_bytes;
} Counters;

static const char *root;
static Package pkgs[NPKG];
static Counters cnt;
static unsigned char content[16384];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "pkg_store_install_gc: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

/* snprintf into a path buffer, treating truncation as an error. */
static void mkpath(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= n) {
        errno = ENAMETOOLONG;
        die("path too long", fmt);
    }
}

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) { h ^= s[i]; h *= 1099511628211ULL; }
    return h;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void xmkdir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
    cnt.dirs++;
}

/* Catalogue: names, dependency DAG (deps only on lower indices), and the
 * version of every package in each release (some get upgraded). */
static void build_catalog(void)
{
    static const char *stems[] = {"lib", "py", "gtk", "perl", "rust", "go", "x", "font", "tool", "net"};
    static const char *roots[] = {"zlib", "ssl", "curl", "png", "jpeg", "xml", "yaml", "sqlite",
                                  "ffi", "iconv", "pcre", "expat", "bz2", "lzma", "gmp", "mpfr"};
    for (int i = 0; i < NPKG; i++) {
        Package *p = &pkgs[i];
        uint64_t h = mix(0xabcdef12345ULL + (uint64_t)i);
        snprintf(p->name, sizeof p->name, "%s%s%d", stems[h % 10], roots[(h >> 8) % 16], i);
        p->ndep = i == 0 ? 0 : (int)((h >> 16) % (MAXDEP + 1));
        if (p->ndep > i) p->ndep = i;
        for (int d = 0; d < p->ndep; d++) {
            uint64_t r = mix(h + (uint64_t)d);
            /* prefer recent packages, like a layered distribution */
            int span = i < 40 ? i : 40;
            p->dep[d] = i - 1 - (int)(r % (uint64_t)span);
        }
        p->version[0] = 1 + (int)((h >> 24) % 4);
        for (int r = 1; r < NREL; r++) {
            uint64_t u = mix(h ^ (0x77ULL * (uint64_t)r));
            p->version[r] = p->version[r - 1] + ((u % 100) < (r == 1 ? 30u : 20u));
        }
    }
}

/* Store hashes for a release: hash(name, version, dependency hashes). */
static int compute_store_hashes(int rel)
{
    int changed = 0;
    for (int i = 0; i < NPKG; i++) {
        Package *p = &pkgs[i];
        uint64_t h = fnv1a(p->name, strlen(p->name), 1469598103934665603ULL);
        h = fnv1a(&p->version[rel], sizeof(int), h);
        for (int d = 0; d < p->ndep; d++) h = fnv1a(&pkgs[p->dep[d]].hash[rel], 8, h);
        p->hash[rel] = h;
        mkpath(p->dir[rel], sizeof p->dir[rel], "%016llx-%s-%d.%d", (unsigned long long)h, p->name,
                 p->version[rel] / 2 + 1, p->version[rel] % 2 * 5);
        if (rel == 0 || p->hash[rel] != p->hash[rel - 1]) changed++;
    }
    return changed;
}

/* Deterministic pseudo-random "build output" bytes (text-like for docs). */
static size_t fill_content(uint64_t seed, size_t size, int text)
{
    static const char words[] = "the of and package library function return value option "
                                "configure install build shared static manual page usage ";
    uint64_t z = seed;
    for (size_t i = 0; i < size; i += 8) {
        z += 0x9E3779B97F4A7C15ULL; /* splitmix64 stream */
        uint64_t r = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
        r ^= r >> 31;
        for (int k = 0; k < 8 && i + k < size; k++) {
            unsigned char b = (unsigned char)(r >> (8 * k));
            content[i + k] = text ? (unsigned char)words[b % (sizeof words - 1)] : b;
        }
    }
    if (text && size) content[size - 1] = '\n';
    return size;
}

static void write_file(const char *path, const void *buf, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    const char *p = buf;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write", path);
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0) die("close", path);
    cnt.files++;
    cnt.bytes += (long)n;
}

/* Build one package into a staging directory and rename it into the store. */
static void install_package(int i, int rel)
{
    Package *p = &pkgs[i];
    char stage[PATHMAX], final[PATHMAX], path[PATHMAX];
    mkpath(final, sizeof final, "%s/store/%s", root, p->dir[rel]);
    struct stat st;
    if (stat(final, &st) == 0) return; /* already in the store */
    mkpath(stage, sizeof stage, "%s/store/.tmp-%016llx", root, (unsigned long long)p->hash[rel]);
    xmkdir(stage);
    static const char *subdirs[] = {"bin", "lib", "share", "share/doc", "share/man", "share/man/man1"};
    for (int k = 0; k < 6; k++) {
        mkpath(path, sizeof path, "%s/%s", stage, subdirs[k]);
        xmkdir(path);
    }
    char *manifest = malloc(64 * 1024);
    if (!manifest) die("out of memory", NULL);
    size_t mlen = 0;
    uint64_t h = p->hash[rel];
    int nbin = 1 + (int)(h % 4), nlib = 2 + (int)((h >> 8) % 7), ndoc = 2 + (int)((h >> 16) % 9);
    int nman = nbin;
    struct { const char *dir, *fmt; int n, minsz, span, text; } groups[4] = {
        {"bin", "%s-tool%d", nbin, 2048, 4096, 0},
        {"lib", "lib%s-part%d.so", nlib, 1024, 7168, 0},
        {"share/doc", "%s-notes%d.txt", ndoc, 200, 1300, 1},
        {"share/man/man1", "%s-tool%d.1", nman, 500, 1500, 1},
    };
    for (int g = 0; g < 4; g++) {
        for (int k = 0; k < groups[g].n; k++) {
            char fname[96];
            snprintf(fname, sizeof fname, groups[g].fmt, p->name, k);
            uint64_t fs = mix(h + (uint64_t)(g * 100 + k));
            size_t size = (size_t)groups[g].minsz + (size_t)(fs % (uint64_t)groups[g].span);
            fill_content(fs, size, groups[g].text);
            mkpath(path, sizeof path, "%s/%s/%s", stage, groups[g].dir, fname);
            write_file(path, content, size);
            if (g == 0 && chmod(path, 0755) != 0) die("chmod", path);
            mlen += (size_t)snprintf(manifest + mlen, 64 * 1024 - mlen, "%s/%s %zu %016llx\n",
                                     groups[g].dir, fname, size,
                                     (unsigned long long)fnv1a(content, size, 1469598103934665603ULL));
        }
    }
    mkpath(path, sizeof path, "%s/MANIFEST", stage);
    write_file(path, manifest, mlen);
    mlen = 0;
    for (int d = 0; d < p->ndep; d++)
        mlen += (size_t)snprintf(manifest + mlen, 64 * 1024 - mlen, "%s\n", pkgs[p->dep[d]].dir[rel]);
    mkpath(path, sizeof path, "%s/DEPS", stage);
    write_file(path, manifest, mlen);
    free(manifest);
    if (rename(stage, final) != 0) die("rename", final);
    cnt.renames++;
}

/* Profile generation: bin/ with relative symlinks into the store, then the
 * "current" link is replaced atomically (symlink to temp name + rename). */
static void build_profile(int rel)
{
    char gen[PATHMAX], path[PATHMAX], target[PATHMAX];
    mkpath(gen, sizeof gen, "%s/profiles/gen-%d", root, rel + 1);
    xmkdir(gen);
    mkpath(path, sizeof path, "%s/bin", gen);
    xmkdir(path);
    for (int i = 0; i < NPKG; i++) {
        const Package *p = &pkgs[i];
        if (i % 3 == 1) continue; /* libraries only, not user-installed */
        int nbin = 1 + (int)(p->hash[rel] % 4);
        for (int k = 0; k < nbin; k++) {
            mkpath(path, sizeof path, "%s/bin/%s-tool%d", gen, p->name, k);
            mkpath(target, sizeof target, "../../../store/%s/bin/%s-tool%d", p->dir[rel], p->name, k);
            if (symlink(target, path) != 0) die("symlink", path);
            cnt.symlinks++;
        }
    }
    mkpath(path, sizeof path, "%s/profiles/.current-tmp", root);
    mkpath(target, sizeof target, "gen-%d", rel + 1);
    if (symlink(target, path) != 0) die("symlink", path);
    mkpath(gen, sizeof gen, "%s/profiles/current", root);
    if (rename(path, gen) != 0) die("rename", gen);
    cnt.symlinks++;
}

/* Re-hash every file of one store path against its MANIFEST. */
static void verify_package(const char *pdir)
{
    char path[PATHMAX], line[512];
    mkpath(path, sizeof path, "%s/MANIFEST", pdir);
    FILE *m = fopen(path, "r");
    if (!m) die("fopen", path);
    unsigned char *buf = malloc(16384);
    if (!buf) die("out of memory", NULL);
    while (fgets(line, sizeof line, m)) {
        char rel[400];
        size_t size;
        unsigned long long want;
        if (sscanf(line, "%399s %zu %llx", rel, &size, &want) != 3) die("bad manifest line", path);
        char fpath[PATHMAX];
        mkpath(fpath, sizeof fpath, "%s/%s", pdir, rel);
        int fd = open(fpath, O_RDONLY);
        if (fd < 0) die("open", fpath);
        ssize_t got = read(fd, buf, 16384);
        if (got < 0) die("read", fpath);
        if (close(fd) != 0) die("close", fpath);
        if ((size_t)got != size || fnv1a(buf, (size_t)got, 1469598103934665603ULL) != want) cnt.mismatches++;
        cnt.verified_files++;
        cnt.verified_bytes += got;
    }
    if (ferror(m)) die("fgets", path);
    fclose(m);
    free(buf);
}

/* Walk the store: every entry is lstat'ed, file sizes summed per package,
 * and each package's manifest is verified. */
static long walk_tree(const char *dir, long *nfiles, long *nbytes)
{
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    struct dirent *e;
    long entries = 0;
    char path[PATHMAX];
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        mkpath(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) die("lstat", path);
        entries++;
        if (S_ISDIR(st.st_mode)) {
            entries += walk_tree(path, nfiles, nbytes);
        } else if (S_ISREG(st.st_mode)) {
            (*nfiles)++;
            *nbytes += st.st_size;
        }
        errno = 0;
    }
    if (errno != 0) die("readdir", dir);
    closedir(d);
    return entries;
}

static long verify_store(long *nfiles, long *nbytes)
{
    char store[PATHMAX], pdir[PATHMAX];
    mkpath(store, sizeof store, "%s/store", root);
    *nfiles = *nbytes = 0;
    long entries = walk_tree(store, nfiles, nbytes);
    DIR *d = opendir(store);
    if (!d) die("opendir", store);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        mkpath(pdir, sizeof pdir, "%s/%s", store, e->d_name);
        verify_package(pdir);
    }
    closedir(d);
    return entries;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    struct dirent *e;
    char path[PATHMAX];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        mkpath(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) die("lstat", path);
        if (S_ISDIR(st.st_mode)) {
            remove_tree(path);
        } else {
            if (unlink(path) != 0) die("unlink", path);
            if (S_ISLNK(st.st_mode)) cnt.removed_links++;
            else { cnt.removed_files++; cnt.removed_bytes += st.st_size; }
        }
    }
    closedir(d);
    if (rmdir(dir) != 0) die("rmdir", dir);
    cnt.removed_dirs++;
}

/* Keep the newest generations, then mark store paths reachable from the
 * remaining profiles (readlink, then DEPS closure) and delete the rest. */
static int collect_garbage(int ngen, int *live_out)
{
    char path[PATHMAX], link[PATHMAX], store[PATHMAX];
    for (int g = 1; g <= ngen - KEEP_GENERATIONS; g++) {
        mkpath(path, sizeof path, "%s/profiles/gen-%d", root, g);
        remove_tree(path);
    }
    mkpath(store, sizeof store, "%s/store", root);
    /* live set as a sorted list of directory names */
    int cap = 4096, nlive = 0;
    char (*live)[96] = malloc((size_t)cap * 96);
    if (!live) die("out of memory", NULL);
    for (int g = ngen - KEEP_GENERATIONS + 1; g <= ngen; g++) {
        char bindir[PATHMAX];
        mkpath(bindir, sizeof bindir, "%s/profiles/gen-%d/bin", root, g);
        DIR *d = opendir(bindir);
        if (!d) die("opendir", bindir);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            mkpath(path, sizeof path, "%s/%s", bindir, e->d_name);
            ssize_t n = readlink(path, link, sizeof link - 1);
            if (n < 0) die("readlink", path);
            link[n] = '\0';
            char *s = strstr(link, "store/");
            if (!s) continue;
            s += 6;
            char *slash = strchr(s, '/');
            if (slash) *slash = '\0';
            int found = 0;
            for (int k = 0; k < nlive && !found; k++) found = strcmp(live[k], s) == 0;
            if (!found && nlive < cap) mkpath(live[nlive++], 96, "%s", s);
        }
        closedir(d);
    }
    /* closure over DEPS files (worklist = the live array itself) */
    for (int k = 0; k < nlive; k++) {
        mkpath(path, sizeof path, "%s/%s/DEPS", store, live[k]);
        FILE *f = fopen(path, "r");
        if (!f) die("fopen", path);
        char dep[128];
        while (fgets(dep, sizeof dep, f)) {
            dep[strcspn(dep, "\n")] = '\0';
            int found = 0;
            for (int q = 0; q < nlive && !found; q++) found = strcmp(live[q], dep) == 0;
            if (!found && nlive < cap) mkpath(live[nlive++], 96, "%s", dep);
        }
        fclose(f);
    }
    int dead = 0;
    DIR *d = opendir(store);
    if (!d) die("opendir", store);
    struct dirent *e;
    char (*victims)[96] = malloc((size_t)cap * 96);
    if (!victims) die("out of memory", NULL);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        int found = 0;
        for (int q = 0; q < nlive && !found; q++) found = strcmp(live[q], e->d_name) == 0;
        if (!found && dead < cap) mkpath(victims[dead++], 96, "%s", e->d_name);
    }
    closedir(d);
    for (int k = 0; k < dead; k++) {
        mkpath(path, sizeof path, "%s/%s", store, victims[k]);
        remove_tree(path);
    }
    free(victims);
    free(live);
    *live_out = nlive;
    return dead;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    char path[PATHMAX];
    mkpath(path, sizeof path, "%s/store", root);
    xmkdir(path);
    mkpath(path, sizeof path, "%s/profiles", root);
    xmkdir(path);

    build_catalog();
    int rebuilt[NREL];
    for (int rel = 0; rel < NREL; rel++) {
        rebuilt[rel] = compute_store_hashes(rel);
        for (int i = 0; i < NPKG; i++) install_package(i, rel);
        build_profile(rel);
    }
    long files_before, bytes_before;
    long entries = verify_store(&files_before, &bytes_before);
    int live;
    int dead = collect_garbage(NREL, &live);
    long files_after, bytes_after;
    verify_store(&files_after, &bytes_after);

    mkpath(path, sizeof path, "%s/gc_report.txt", root);
    FILE *r = fopen(path, "w");
    if (!r) die("fopen", path);
    fprintf(r, "releases %d, packages %d, builds per release:", NREL, NPKG);
    for (int rel = 0; rel < NREL; rel++) fprintf(r, " %d", rebuilt[rel]);
    fprintf(r, "\ncreated: %ld files (%ld bytes), %ld dirs, %ld symlinks, %ld renames\n", cnt.files,
            cnt.bytes, cnt.dirs, cnt.symlinks, cnt.renames);
    fprintf(r, "store before gc: %ld entries, %ld files, %ld bytes\n", entries, files_before, bytes_before);
    fprintf(r, "gc: %d live paths, %d dead paths removed (%ld files, %ld bytes, %ld dirs, %ld links)\n",
            live, dead, cnt.removed_files, cnt.removed_bytes, cnt.removed_dirs, cnt.removed_links);
    fprintf(r, "store after gc: %ld files, %ld bytes\n", files_after, bytes_after);
    fprintf(r, "verified %ld files (%ld bytes), %ld mismatches\n", cnt.verified_files, cnt.verified_bytes,
            cnt.mismatches);
    if (ferror(r) || fclose(r) != 0) die("write", path);

    printf("package store: %d builds in %d releases, %ld files / %ld bytes written\n",
           rebuilt[0] + rebuilt[1] + rebuilt[2], NREL, cnt.files, cnt.bytes);
    printf("gc removed %d store paths (%ld files), %d live; %ld files verified, %ld mismatches\n", dead,
           cnt.removed_files, live, cnt.verified_files, cnt.mismatches);
    return cnt.mismatches ? 1 : 0;
}
