/*
 * spool_tree_scan: a mail-spool style directory tree of many small text
 * messages is generated, then walked with opendir/readdir/lstat, every message
 * is read with open/read and parsed (headers + word frequencies), a fraction
 * of the messages is purged with unlink, and a stat-only pass re-measures the
 * tree.  Aggregates are checked against the values recorded while writing.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define N_SENDERS 12
#define N_WORDS 48
#define HASH_SLOTS 4096
#define READ_CHUNK 1024

struct spool_cfg {
    int n_top;          /* first-level directories */
    int n_sub;          /* second-level directories per top */
    int files_per_dir;  /* messages per leaf directory */
    int min_words;
    int max_words;
    int purge_every;    /* unlink every k-th message found */
    uint64_t seed;
};

struct sender_stat {
    long messages;
    long bytes;
    long words;
};

struct word_slot {
    char word[24];
    long count;
};

struct spool_agg {
    struct sender_stat per_sender[N_SENDERS];
    struct word_slot table[HASH_SLOTS];
    long files;
    long bytes;
    long total_words;
    long dirs;
};

static const char *sender_names[N_SENDERS] = {
    "ada", "brook", "cyrus", "dana", "emil", "fay",
    "gus", "hana", "ivo", "jun", "kai", "lior"};

static const char *vocab[N_WORDS] = {
    "kernel", "mesh", "solver", "buffer", "cache", "stride", "vector", "matrix",
    "node", "rank", "halo", "ghost", "flux", "grid", "tile", "block",
    "queue", "batch", "stream", "cluster", "scheduler", "job", "walltime", "quota",
    "restart", "checkpoint", "output", "input", "config", "module", "compile", "link",
    "profile", "trace", "timer", "sample", "latency", "bandwidth", "storage", "tape",
    "archive", "project", "budget", "report", "meeting", "deadline", "review", "patch"};

static uint64_t rng_state;

static uint32_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static void fail(const char *what, const char *path)
{
    fprintf(stderr, "spool_tree_scan: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

/* Write one message file; returns its size and bumps expected counters. */
static long write_message(const char *path, int sender, int nwords, struct spool_agg *expect)
{
    char buf[8192];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) fail("open", path);
    int len = snprintf(buf, sizeof buf, "From: %s\nSubject: note %u\nWords: %d\n\n",
                       sender_names[sender], rng_next() % 10000, nwords);
    if (write(fd, buf, (size_t)len) != len) fail("write header", path);
    long total = len;
    int pos = 0, col = 0;
    for (int w = 0; w < nwords; w++) {
        const char *word = vocab[(rng_next() % N_WORDS + rng_next() % N_WORDS) / 2];
        pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%c", word,
                        (++col % 10 == 0) ? '\n' : ' ');
        if (col % 30 == 0) { /* one write() per three completed body lines */
            if (write(fd, buf, (size_t)pos) != pos) fail("write body", path);
            total += pos;
            pos = 0;
        }
    }
    buf[pos++] = '\n';
    if (write(fd, buf, (size_t)pos) != pos) fail("write body", path);
    total += pos;
    close(fd);
    expect->per_sender[sender].messages++;
    expect->per_sender[sender].bytes += total;
    expect->per_sender[sender].words += nwords;
    expect->files++;
    expect->bytes += total;
    expect->total_words += nwords;
    return total;
}

static void build_tree(const struct spool_cfg *cfg, const char *root, struct spool_agg *expect)
{
    char path[4096];
    rng_state = cfg->seed;
    for (int t = 0; t < cfg->n_top; t++) {
        snprintf(path, sizeof path, "%s/spool/d%02d", root, t);
        if (mkdir(path, 0755) != 0 && errno != EEXIST) fail("mkdir", path);
        for (int s = 0; s < cfg->n_sub; s++) {
            snprintf(path, sizeof path, "%s/spool/d%02d/s%02d", root, t, s);
            if (mkdir(path, 0755) != 0 && errno != EEXIST) fail("mkdir", path);
            for (int f = 0; f < cfg->files_per_dir; f++) {
                char fpath[4200];
                snprintf(fpath, sizeof fpath, "%s/m%04d.msg", path, f);
                int sender = (int)(rng_next() % N_SENDERS);
                int nw = cfg->min_words + (int)(rng_next() % (uint32_t)(cfg->max_words - cfg->min_words + 1));
                write_message(fpath, sender, nw, expect);
            }
        }
    }
}

static void tally_word(struct spool_agg *agg, const char *w, size_t n)
{
    if (n == 0 || n >= sizeof agg->table[0].word) return;
    unsigned h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)w[i]) * 16777619u;
    h &= HASH_SLOTS - 1;
    for (;;) {
        struct word_slot *s = &agg->table[h];
        if (s->count == 0) {
            memcpy(s->word, w, n);
            s->word[n] = '\0';
            s->count = 1;
            return;
        }
        if (strncmp(s->word, w, n) == 0 && s->word[n] == '\0') {
            s->count++;
            return;
        }
        h = (h + 1) & (HASH_SLOTS - 1);
    }
}

/* Parse a whole message held in memory: sender header, then body words. */
static long parse_message(struct spool_agg *agg, const char *text, size_t len)
{
    int sender = -1;
    const char *p = text, *end = text + len;
    while (p < end && *p != '\n') {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if (strncmp(p, "From: ", 6) == 0) {
            for (int s = 0; s < N_SENDERS; s++) {
                size_t nl = strlen(sender_names[s]);
                if ((size_t)(eol - p - 6) == nl && memcmp(p + 6, sender_names[s], nl) == 0) sender = s;
            }
        }
        p = eol + 1;
    }
    long words = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\n')) p++;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\n') p++;
        if (p > w) {
            tally_word(agg, w, (size_t)(p - w));
            words++;
        }
    }
    if (sender >= 0) {
        agg->per_sender[sender].messages++;
        agg->per_sender[sender].bytes += (long)len;
        agg->per_sender[sender].words += words;
    }
    return words;
}

static void process_file(struct spool_agg *agg, const char *path, off_t size)
{
    char *text = malloc((size_t)size + 1);
    if (!text) fail("malloc", path);
    int fd = open(path, O_RDONLY);
    if (fd < 0) fail("open", path);
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, text + got, READ_CHUNK);
        if (n < 0) fail("read", path);
        if (n == 0) break;
        got += (size_t)n;
        if (got + READ_CHUNK > (size_t)size + 1) {
            text = realloc(text, got + READ_CHUNK + 1);
            if (!text) fail("realloc", path);
        }
    }
    close(fd);
    agg->files++;
    agg->bytes += (long)got;
    agg->total_words += parse_message(agg, text, got);
    free(text);
}

/* Recursive walk; when purge_every > 0 every k-th message is unlinked after reading. */
static void scan_dir(struct spool_agg *agg, const char *dir, int purge_every, long *seen)
{
    DIR *d = opendir(dir);
    if (!d) fail("opendir", dir);
    agg->dirs++;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) fail("lstat", path);
        if (S_ISDIR(st.st_mode)) {
            scan_dir(agg, path, purge_every, seen);
        } else if (S_ISREG(st.st_mode)) {
            size_t nl = strlen(e->d_name);
            if (nl < 4 || strcmp(e->d_name + nl - 4, ".msg") != 0) continue;
            process_file(agg, path, st.st_size);
            (*seen)++;
            if (purge_every > 0 && *seen % purge_every == 0 && unlink(path) != 0) fail("unlink", path);
        }
    }
    closedir(d);
}

/* du-like pass: only stat, no reads. */
static void measure_tree(const char *dir, long *files, long *bytes)
{
    DIR *d = opendir(dir);
    if (!d) fail("opendir", dir);
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) fail("stat", path);
        if (S_ISDIR(st.st_mode)) {
            measure_tree(path, files, bytes);
        } else {
            (*files)++;
            *bytes += st.st_size;
        }
    }
    closedir(d);
}

static void write_report(const char *root, struct spool_agg *agg, long left_files, long left_bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/spool_report.txt", root);
    FILE *f = fopen(path, "w");
    if (!f) fail("fopen", path);
    fprintf(f, "# dirs %ld files %ld bytes %ld words %ld\n", agg->dirs, agg->files, agg->bytes,
            agg->total_words);
    for (int s = 0; s < N_SENDERS; s++)
        fprintf(f, "sender %-6s messages %6ld bytes %9ld words %8ld\n", sender_names[s],
                agg->per_sender[s].messages, agg->per_sender[s].bytes, agg->per_sender[s].words);
    /* partial selection sort: the 20 most frequent words to the front */
    for (int k = 0; k < 20; k++) {
        int best = k;
        for (int m = k + 1; m < HASH_SLOTS; m++) {
            const struct word_slot *x = &agg->table[m], *y = &agg->table[best];
            if (x->count > y->count || (x->count == y->count && x->count > 0 && strcmp(x->word, y->word) < 0))
                best = m;
        }
        struct word_slot tmp = agg->table[k];
        agg->table[k] = agg->table[best];
        agg->table[best] = tmp;
        if (agg->table[k].count == 0) break;
        fprintf(f, "word %-12s %ld\n", agg->table[k].word, agg->table[k].count);
    }
    fprintf(f, "# after purge: files %ld bytes %ld\n", left_files, left_bytes);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    struct spool_cfg cfg = {.n_top = 12, .n_sub = 10, .files_per_dir = 20, .min_words = 80,
                            .max_words = 900, .purge_every = 7, .seed = 0xC0FFEE1234ULL};
    static struct spool_agg expect, found;
    char path[4096];
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) fail("mkdir", argv[1]);
    snprintf(path, sizeof path, "%s/spool", argv[1]);
    if (mkdir(path, 0755) != 0 && errno != EEXIST) fail("mkdir", path);

    build_tree(&cfg, argv[1], &expect);
    long seen = 0;
    scan_dir(&found, path, cfg.purge_every, &seen);
    long left_files = 0, left_bytes = 0;
    measure_tree(path, &left_files, &left_bytes);
    write_report(argv[1], &found, left_files, left_bytes);

    int ok = found.files == expect.files && found.bytes == expect.bytes &&
             found.total_words == expect.total_words &&
             left_files == expect.files - expect.files / cfg.purge_every;
    for (int s = 0; s < N_SENDERS; s++)
        ok = ok && memcmp(&found.per_sender[s], &expect.per_sender[s], sizeof(struct sender_stat)) == 0;
    if (!ok) {
        fprintf(stderr, "spool_tree_scan: check FAILED (files %ld/%ld bytes %ld/%ld left %ld)\n",
                found.files, expect.files, found.bytes, expect.bytes, left_files);
        return 1;
    }
    printf("spool_tree_scan: ok (%ld messages, %ld bytes, %ld left)\n", found.files, found.bytes,
           left_files);
    return 0;
}
