/* Builds a Bloom filter from a generated word list, stores it to disk, reloads
 * it and answers a file of membership queries; positives are confirmed
 * against a sorted exact index to measure the false-positive rate. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NWORDS 1000000
#define NQUERIES 800000
#define TARGET_FPR 0.01
#define MAXWORD 64
#define BLOOM_MAGIC 0x424c4f4f4d763031ULL

typedef struct {
    uint64_t magic;
    uint64_t nbits;
    uint32_t k;
    uint32_t pad;
    uint64_t ninserted;
} bloom_header_t;

typedef struct {
    bloom_header_t h;
    uint64_t *bits;
} bloom_t;

static const char *syllables[] = {
    "ka", "ro", "mi", "sel", "tan", "vor", "qui", "lem", "dra", "po",
    "nex", "ul", "ash", "ber", "cyn", "dul", "em", "fal", "gor", "hin",
    "is", "jor", "kel", "lun", "mor", "nav", "oth", "pri", "ras", "sul"};
#define NSYL (sizeof syllables / sizeof syllables[0])

static uint64_t state;

static uint32_t rnd32(void)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(state >> 33);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "bloom_wordlist: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static int make_word(char *w)
{
    int nsyl = 2 + rnd32() % 4, len = 0;
    for (int s = 0; s < nsyl; s++) {
        const char *sy = syllables[rnd32() % NSYL];
        size_t l = strlen(sy);
        memcpy(w + len, sy, l);
        len += (int)l;
    }
    if (rnd32() % 3 == 0)
        len += sprintf(w + len, "%u", rnd32() % 1000);
    w[len] = '\0';
    return len;
}

static void gen_word_file(const char *path, long n, uint64_t seed)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot create", path);
    state = seed;
    char w[MAXWORD];
    for (long i = 0; i < n; i++) {
        make_word(w);
        fputs(w, f);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        die("close", path);
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open", path);
    char line[256];
    long n = 0;
    while (fgets(line, sizeof line, f))
        n++;
    fclose(f);
    return n;
}

static uint64_t hash_fnv(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t hash_mix(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++) {
        h += (uint8_t)s[i];
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    return h | 1;
}

static void bloom_init(bloom_t *b, long expected, double fpr)
{
    double m = -expected * log(fpr) / (M_LN2 * M_LN2);
    b->h.magic = BLOOM_MAGIC;
    b->h.nbits = ((uint64_t)m + 63) & ~63ULL;
    b->h.k = (uint32_t)lrint(b->h.nbits / (double)expected * M_LN2);
    b->h.pad = 0;
    b->h.ninserted = 0;
    b->bits = calloc(b->h.nbits / 64, sizeof(uint64_t));
}

static void bloom_add(bloom_t *b, const char *s, size_t n)
{
    uint64_t h1 = hash_fnv(s, n), h2 = hash_mix(s, n);
    for (uint32_t i = 0; i < b->h.k; i++) {
        uint64_t bit = (h1 + i * h2) % b->h.nbits;
        b->bits[bit >> 6] |= 1ULL << (bit & 63);
    }
    b->h.ninserted++;
}

static int bloom_query(const bloom_t *b, const char *s, size_t n)
{
    uint64_t h1 = hash_fnv(s, n), h2 = hash_mix(s, n);
    for (uint32_t i = 0; i < b->h.k; i++) {
        uint64_t bit = (h1 + i * h2) % b->h.nbits;
        if (!(b->bits[bit >> 6] & (1ULL << (bit & 63))))
            return 0;
    }
    return 1;
}

static void build_filter(const char *path, bloom_t *b)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        bloom_add(b, line, (size_t)len);
    }
    free(line);
    fclose(f);
}

static void save_filter(const char *path, const bloom_t *b)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    if (fwrite(&b->h, sizeof b->h, 1, f) != 1 ||
        fwrite(b->bits, sizeof(uint64_t), b->h.nbits / 64, f) != b->h.nbits / 64)
        die("write", path);
    if (fclose(f) != 0)
        die("close", path);
}

static void load_filter(const char *path, bloom_t *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    if (fread(&b->h, sizeof b->h, 1, f) != 1 || b->h.magic != BLOOM_MAGIC) {
        fprintf(stderr, "bloom_wordlist: bad filter header in %s\n", path);
        exit(1);
    }
    b->bits = malloc(b->h.nbits / 8);
    if (fread(b->bits, sizeof(uint64_t), b->h.nbits / 64, f) != b->h.nbits / 64)
        die("short read", path);
    fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every word, sorts and deduplicates them for exact lookups. */
static char **exact_index(const char *path, long *nout, char **pool_out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *pool = malloc((size_t)size + 1);
    if (fread(pool, 1, (size_t)size, f) != (size_t)size)
        die("short read", path);
    fclose(f);
    pool[size] = '\0';

    long n = 0;
    for (long i = 0; i < size; i++)
        n += pool[i] == '\n';
    char **words = malloc(sizeof(char *) * (size_t)n);
    long k = 0;
    char *p = pool;
    for (long i = 0; i < size; i++)
        if (pool[i] == '\n') {
            pool[i] = '\0';
            words[k++] = p;
            p = pool + i + 1;
        }
    qsort(words, (size_t)k, sizeof(char *), cmp_str);
    long u = 0;
    for (long i = 0; i < k; i++)
        if (u == 0 || strcmp(words[u - 1], words[i]) != 0)
            words[u++] = words[i];
    *nout = u;
    *pool_out = pool;
    return words;
}

typedef struct {
    long queries, bloom_pos, true_pos, false_pos;
} query_stats_t;

static void run_queries(const char *qpath, const char *rpath, const bloom_t *b,
                        char **index, long nidx, query_stats_t *st)
{
    FILE *q = fopen(qpath, "r");
    if (!q)
        die("cannot open", qpath);
    FILE *r = fopen(rpath, "w");
    if (!r)
        die("cannot create", rpath);
    char line[256];
    memset(st, 0, sizeof *st);
    while (fgets(line, sizeof line, q)) {
        size_t n = strcspn(line, "\n");
        line[n] = '\0';
        st->queries++;
        int maybe = bloom_query(b, line, n);
        int exact = 0;
        if (maybe) {
            char *key = line;
            exact = bsearch(&key, index, (size_t)nidx, sizeof(char *), cmp_str) != NULL;
            st->bloom_pos++;
            if (exact)
                st->true_pos++;
            else
                st->false_pos++;
        }
        fprintf(r, "%s\t%d\t%d\n", line, maybe, exact);
    }
    fclose(q);
    if (fclose(r) != 0)
        die("close", rpath);
}

static void write_report(const char *path, const bloom_t *b, long nunique,
                         const query_stats_t *st)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot create", path);
    long set = 0;
    for (uint64_t i = 0; i < b->h.nbits / 64; i++)
        set += __builtin_popcountll(b->bits[i]);
    double fill = (double)set / b->h.nbits;
    long negatives = st->queries - st->true_pos;
    fprintf(f, "bits=%llu k=%u inserted=%llu unique=%ld fill=%.4f\n",
            (unsigned long long)b->h.nbits, b->h.k,
            (unsigned long long)b->h.ninserted, nunique, fill);
    fprintf(f, "queries=%ld bloom_positive=%ld true_positive=%ld false_positive=%ld\n",
            st->queries, st->bloom_pos, st->true_pos, st->false_pos);
    fprintf(f, "measured_fpr=%.5f predicted_fpr=%.5f\n",
            negatives ? (double)st->false_pos / negatives : 0.0, pow(fill, b->h.k));
    if (fclose(f) != 0)
        die("close", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die("mkdir", dir);
    char words[4096], queries[4096], filt[4096], results[4096], report[4096];
    snprintf(words, sizeof words, "%s/words.txt", dir);
    snprintf(queries, sizeof queries, "%s/queries.txt", dir);
    snprintf(filt, sizeof filt, "%s/words.bloom", dir);
    snprintf(results, sizeof results, "%s/results.tsv", dir);
    snprintf(report, sizeof report, "%s/report.txt", dir);

    gen_word_file(words, NWORDS, 12345);
    gen_word_file(queries, NQUERIES, 987654321);

    long n = count_lines(words);
    bloom_t b;
    bloom_init(&b, n, TARGET_FPR);
    build_filter(words, &b);
    save_filter(filt, &b);
    free(b.bits);

    bloom_t loaded;
    load_filter(filt, &loaded);

    long nidx;
    char *pool;
    char **index = exact_index(words, &nidx, &pool);

    query_stats_t st;
    run_queries(queries, results, &loaded, index, nidx, &st);
    write_report(report, &loaded, nidx, &st);
    printf("%ld words (%ld unique), %ld queries, %ld false positives\n", n, nidx,
           st.queries, st.false_pos);

    free(index);
    free(pool);
    free(loaded.bits);
    return 0;
}
