/*
 * sufarr_disk_query: build a suffix array for a synthetic genome, store it
 * as an on-disk index and answer exact-match pattern queries by binary
 * searching the index with pread().
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define GENOME_LEN   (3u << 20)
#define LINE_WIDTH   60
#define N_QUERIES    24000
#define QLEN_MIN     10
#define QLEN_MAX     28
#define MAX_REPORT   6
#define IDX_MAGIC    0x53554641u   /* "SUFA" */
#define IO_BLOCK     (1 << 16)

struct idx_header {
    uint32_t magic;
    uint32_t version;
    uint64_t n;
    uint64_t checksum;
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static char *path_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    snprintf(p, len, "%s/%s", dir, name);
    return p;
}

/* Random sequence with copied segments (repeats with point mutations). */
static void synth_genome(char *g, size_t n)
{
    static const char base[4] = {'A', 'C', 'G', 'T'};
    uint64_t s = rng_state;
    size_t i = 0;
    while (i < n) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        if (i > 10000 && (s & 1023) < 3) {
            size_t len = 200 + (s >> 20) % 1800;
            size_t src = (s >> 40) % (i - len);
            for (size_t k = 0; k < len && i < n; k++, i++) {
                char c = g[src + k];
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                if ((s & 255) == 0)
                    c = base[(s >> 8) & 3];
                g[i] = c;
            }
        } else {
            for (int k = 0; k < 32 && i < n; k++, i++)
                g[i] = base[(s >> (2 * k)) & 3];
        }
    }
    rng_state = s;
}

static void write_fasta(const char *path, const char *g, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, ">chrSyn1 synthetic length=%zu\n", n);
    for (size_t i = 0; i < n; i += LINE_WIDTH) {
        size_t len = n - i < LINE_WIDTH ? n - i : LINE_WIDTH;
        fwrite(g + i, 1, len, f);
        fputc('\n', f);
    }
    fclose(f);
}

static char *read_fasta(const char *path, size_t *out_n)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char line[256];
    size_t cap = 1 << 20, n = 0;
    char *seq = malloc(cap + 1);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>')
            continue;
        for (char *c = line; *c && *c != '\n'; c++) {
            if (n == cap) {
                cap *= 2;
                seq = realloc(seq, cap + 1);
            }
            seq[n++] = *c;
        }
    }
    fclose(f);
    seq[n] = '\0';
    *out_n = n;
    return seq;
}

/* Prefix doubling with two counting-sort passes per round. */
static void build_suffix_array(const char *t, size_t n, int32_t *sa)
{
    int32_t *rank = malloc(n * sizeof *rank);
    int32_t *tmp = malloc(n * sizeof *tmp);
    int32_t *nrank = malloc(n * sizeof *nrank);
    size_t cnt_len = n > 256 ? n + 1 : 257;
    int32_t *cnt = calloc(cnt_len, sizeof *cnt);

    for (size_t i = 0; i < n; i++) {
        rank[i] = (unsigned char)t[i];
        cnt[rank[i]]++;
    }
    for (size_t c = 1; c < 257; c++)
        cnt[c] += cnt[c - 1];
    for (size_t i = n; i-- > 0;)
        sa[--cnt[rank[i]]] = (int32_t)i;

    for (size_t k = 1; k < n; k <<= 1) {
        size_t p = 0;
        for (size_t i = n - k; i < n; i++)
            tmp[p++] = (int32_t)i;
        for (size_t j = 0; j < n; j++)
            if ((size_t)sa[j] >= k)
                tmp[p++] = sa[j] - (int32_t)k;

        memset(cnt, 0, cnt_len * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[rank[i]]++;
        for (size_t c = 1; c < cnt_len; c++)
            cnt[c] += cnt[c - 1];
        for (size_t j = n; j-- > 0;)
            sa[--cnt[rank[tmp[j]]]] = tmp[j];

        nrank[sa[0]] = 0;
        for (size_t j = 1; j < n; j++) {
            int32_t a = sa[j - 1], b = sa[j];
            int32_t ra2 = (size_t)a + k < n ? rank[a + k] : -1;
            int32_t rb2 = (size_t)b + k < n ? rank[b + k] : -1;
            nrank[b] = nrank[a] + (rank[a] != rank[b] || ra2 != rb2);
        }
        int32_t *sw = rank; rank = nrank; nrank = sw;
        if ((size_t)rank[sa[n - 1]] == n - 1)
            break;
    }
    free(rank); free(tmp); free(nrank); free(cnt);
}

static void save_index(const char *path, const int32_t *sa, size_t n)
{
    struct idx_header h = { IDX_MAGIC, 1, n, 0 };
    for (size_t i = 0; i < n; i++)
        h.checksum = h.checksum * 1099511628211ull + (uint32_t)sa[i];

    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    if (write(fd, &h, sizeof h) != (ssize_t)sizeof h) { perror("write"); exit(1); }
    const char *p = (const char *)sa;
    size_t left = n * sizeof *sa;
    while (left > 0) {
        size_t chunk = left < IO_BLOCK ? left : IO_BLOCK;
        ssize_t w = write(fd, p, chunk);
        if (w <= 0) { perror("write"); exit(1); }
        p += w;
        left -= (size_t)w;
    }
    fsync(fd);
    close(fd);
}

static int open_index(const char *path, size_t expect_n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    struct stat st;
    fstat(fd, &st);
    struct idx_header h;
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || h.magic != IDX_MAGIC ||
        h.n != expect_n || (size_t)st.st_size != sizeof h + expect_n * 4) {
        fprintf(stderr, "bad index %s\n", path);
        exit(1);
    }
    return fd;
}

static int cmp_suffix(const char *t, size_t n, size_t pos, const char *pat, size_t m)
{
    for (size_t k = 0; k < m; k++) {
        if (pos + k >= n)
            return -1;
        if (t[pos + k] != pat[k])
            return (unsigned char)t[pos + k] < (unsigned char)pat[k] ? -1 : 1;
    }
    return 0;
}

/* Returns [lo, hi) range of suffixes starting with pat; probes read via pread. */
static size_t sa_lookup(int fd, const char *t, size_t n, const char *pat, size_t m,
                        size_t *first)
{
    const off_t base = sizeof(struct idx_header);
    size_t lo = 0, hi = n;
    int32_t v;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        pread(fd, &v, sizeof v, base + (off_t)mid * 4);
        if (cmp_suffix(t, n, (size_t)v, pat, m) < 0) lo = mid + 1; else hi = mid;
    }
    size_t left = lo;
    hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        pread(fd, &v, sizeof v, base + (off_t)mid * 4);
        if (cmp_suffix(t, n, (size_t)v, pat, m) <= 0) lo = mid + 1; else hi = mid;
    }
    *first = left;
    return lo - left;
}

static char *make_queries(const char *t, size_t n, size_t *qlen)
{
    char *q = malloc((size_t)N_QUERIES * (QLEN_MAX + 1));
    static const char base[4] = {'A', 'C', 'G', 'T'};
    uint64_t s = rng_state ^ 0xD1B54A32D192ED03ull;
    for (int i = 0; i < N_QUERIES; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        size_t m = QLEN_MIN + s % (QLEN_MAX - QLEN_MIN + 1);
        char *dst = q + (size_t)i * (QLEN_MAX + 1);
        if (i % 4 != 3) {
            size_t pos = (s >> 16) % (n - m);
            memcpy(dst, t + pos, m);
        } else {
            for (size_t k = 0; k < m; k++) {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                dst[k] = base[s & 3];
            }
        }
        dst[m] = '\0';
        qlen[i] = m;
    }
    return q;
}

static void run_queries(const char *idx_path, const char *out_path, const char *t,
                        size_t n, const char *q, const size_t *qlen)
{
    int fd = open_index(idx_path, n);
    FILE *out = fopen(out_path, "w");
    if (!out) { perror(out_path); exit(1); }
    fprintf(out, "query\tlen\thits\tpositions\n");
    size_t total = 0, found = 0;
    int32_t pos[MAX_REPORT];
    for (int i = 0; i < N_QUERIES; i++) {
        const char *pat = q + (size_t)i * (QLEN_MAX + 1);
        size_t first;
        size_t c = sa_lookup(fd, t, n, pat, qlen[i], &first);
        total += c;
        found += c > 0;
        fprintf(out, "%s\t%zu\t%zu\t", pat, qlen[i], c);
        size_t show = c < MAX_REPORT ? c : MAX_REPORT;
        if (show > 0) {
            pread(fd, pos, show * 4, sizeof(struct idx_header) + (off_t)first * 4);
            for (size_t k = 0; k < show; k++)
                fprintf(out, k ? ",%d" : "%d", pos[k]);
        }
        fputc('\n', out);
    }
    fprintf(out, "# queries=%d matched=%zu total_hits=%zu\n", N_QUERIES, found, total);
    fclose(out);
    close(fd);
    printf("queries %d matched %zu hits %zu\n", N_QUERIES, found, total);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        return 2;
    }
    char *fa_path = path_join(argv[1], "genome.fa");
    char *idx_path = path_join(argv[1], "genome.sa");
    char *hit_path = path_join(argv[1], "hits.tsv");

    char *g = malloc(GENOME_LEN);
    synth_genome(g, GENOME_LEN);
    write_fasta(fa_path, g, GENOME_LEN);
    free(g);

    size_t n;
    char *t = read_fasta(fa_path, &n);
    int32_t *sa = malloc(n * sizeof *sa);
    build_suffix_array(t, n, sa);
    save_index(idx_path, sa, n);
    free(sa);

    size_t *qlen = malloc(N_QUERIES * sizeof *qlen);
    char *q = make_queries(t, n, qlen);
    run_queries(idx_path, hit_path, t, n, q, qlen);

    free(q); free(qlen); free(t);
    free(fa_path); free(idx_path); free(hit_path);
    return 0;
}
