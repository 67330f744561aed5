/*
 * Canonical k-mer counting.  A synthetic multi-record FASTA file is generated
 * (order-2 Markov background with planted repeat motifs and N gaps), read back
 * line by line with fgets, every canonical 11-mer is counted in an
 * open-addressing hash table that grows by doubling, the counts are
 * cross-checked against a direct-indexed table, and the 100 most frequent
 * k-mers are written as a text report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K          11
#define KMASK      ((1ULL << (2 * K)) - 1)
#define NRECORDS   36
#define REC_LEN    110000
#define LINE_WIDTH 70
#define NMOTIFS    24
#define MOTIF_LEN  28
#define TOPN       100

typedef struct {
    uint64_t key;      /* canonical k-mer code + 1, 0 marks an empty slot */
    uint32_t count;
} kmer_slot;

typedef struct {
    kmer_slot *slots;
    size_t     cap;    /* power of two */
    size_t     used;
} kmer_table;

static uint64_t rng = 0x243f6a8885a308d3ULL;

static uint32_t next_rand(void)
{
    rng = rng * 2862933555777941757ULL + 3037000493ULL;
    return (uint32_t)(rng >> 32);
}

static const char BASES[4] = {'A', 'C', 'G', 'T'};

static int base_code(int c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return -1;
    }
}

static void generate_fasta(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    char motifs[NMOTIFS][MOTIF_LEN];
    for (int m = 0; m < NMOTIFS; m++)
        for (int i = 0; i < MOTIF_LEN; i++) motifs[m][i] = BASES[next_rand() & 3];

    /* order-2 Markov weights: a fixed, skewed table */
    unsigned weights[16][4];
    for (int ctx = 0; ctx < 16; ctx++)
        for (int b = 0; b < 4; b++) weights[ctx][b] = 1 + ((ctx * 7 + b * 13) % 9);

    char *seq = malloc(REC_LEN + MOTIF_LEN);
    for (int r = 0; r < NRECORDS; r++) {
        int len = 0, prev2 = 0;
        while (len < REC_LEN) {
            uint32_t u = next_rand();
            if (u % 1000 < 6) {                       /* planted repeat */
                const char *mo = motifs[(u >> 10) % NMOTIFS];
                memcpy(seq + len, mo, MOTIF_LEN);
                len += MOTIF_LEN;
                continue;
            }
            if (u % 20000 == 7) {                     /* short gap */
                int n = 5 + (int)((u >> 8) % 20);
                for (int i = 0; i < n && len < REC_LEN; i++) seq[len++] = 'N';
                continue;
            }
            unsigned *w = weights[prev2 & 15], tot = w[0] + w[1] + w[2] + w[3];
            unsigned pick = (u >> 8) % tot, b = 0;
            while (pick >= w[b]) pick -= w[b++];
            seq[len++] = BASES[b];
            prev2 = ((prev2 << 2) | (int)b) & 15;
        }
        fprintf(f, ">contig_%04d synthetic length=%d\n", r + 1, len);
        for (int i = 0; i < len; i += LINE_WIDTH) {
            int n = len - i < LINE_WIDTH ? len - i : LINE_WIDTH;
            fwrite(seq + i, 1, (size_t)n, f);
            fputc('\n', f);
        }
    }
    free(seq);
    if (fclose(f) != 0) { perror("fclose"); exit(1); }
}

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void table_init(kmer_table *t, size_t cap)
{
    t->cap = cap;
    t->used = 0;
    t->slots = calloc(cap, sizeof(kmer_slot));
    if (!t->slots) { perror("calloc"); exit(1); }
}

static void table_grow(kmer_table *t)
{
    kmer_table bigger;
    table_init(&bigger, t->cap * 2);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].key) continue;
        size_t j = hash64(t->slots[i].key) & (bigger.cap - 1);
        while (bigger.slots[j].key) j = (j + 1) & (bigger.cap - 1);
        bigger.slots[j] = t->slots[i];
        bigger.used++;
    }
    free(t->slots);
    *t = bigger;
}

static void table_add(kmer_table *t, uint64_t code)
{
    uint64_t key = code + 1;
    size_t j = hash64(key) & (t->cap - 1);
    while (t->slots[j].key) {
        if (t->slots[j].key == key) { t->slots[j].count++; return; }
        j = (j + 1) & (t->cap - 1);
    }
    t->slots[j].key = key;
    t->slots[j].count = 1;
    if (++t->used * 10 > t->cap * 7) table_grow(t);
}

static uint64_t count_kmers(const char *path, kmer_table *t, uint32_t *direct, long *nrec)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char line[512];
    uint64_t fwd = 0, rev = 0, windows = 0;
    int valid = 0;
    *nrec = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>') {
            valid = 0; fwd = rev = 0;
            (*nrec)++;
            continue;
        }
        for (char *p = line; *p && *p != '\n'; p++) {
            int c = base_code((unsigned char)*p);
            if (c < 0) { valid = 0; fwd = rev = 0; continue; }
            fwd = ((fwd << 2) | (uint64_t)c) & KMASK;
            rev = (rev >> 2) | ((uint64_t)(3 - c) << (2 * (K - 1)));
            if (++valid >= K) {
                uint64_t canon = fwd < rev ? fwd : rev;
                table_add(t, canon);
                direct[canon]++;
                windows++;
            }
        }
    }
    if (ferror(f)) { perror("read"); exit(1); }
    fclose(f);
    return windows;
}

static int cross_check(const kmer_table *t, const uint32_t *direct, uint64_t windows)
{
    uint64_t total = 0;
    size_t distinct = 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].key) continue;
        uint64_t code = t->slots[i].key - 1;
        if (direct[code] != t->slots[i].count) return 1;
        total += t->slots[i].count;
    }
    for (uint64_t c = 0; c <= KMASK; c++) distinct += direct[c] != 0;
    if (total != windows || distinct != t->used) return 1;
    return 0;
}

static void decode_kmer(uint64_t code, char *out)
{
    for (int i = K - 1; i >= 0; i--) { out[i] = BASES[code & 3]; code >>= 2; }
    out[K] = '\0';
}

static int slot_before(const kmer_slot *a, const kmer_slot *b)
{
    /* ordering used for the ranking: higher count first, then smaller code */
    if (a->count != b->count) return a->count > b->count;
    return a->key < b->key;
}

static void sift_down(kmer_slot *heap, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && slot_before(&heap[w], &heap[l])) w = l;
        if (r < n && slot_before(&heap[w], &heap[r])) w = r;
        if (w == i) return;
        kmer_slot tmp = heap[i]; heap[i] = heap[w]; heap[w] = tmp;
        i = w;
    }
}

static int select_top(const kmer_table *t, kmer_slot *top)
{
    /* heap whose root is the worst of the current best TOPN */
    int n = 0;
    for (size_t i = 0; i < t->cap; i++) {
        const kmer_slot *s = &t->slots[i];
        if (!s->key) continue;
        if (n < TOPN) {
            top[n++] = *s;
            if (n == TOPN)
                for (int j = TOPN / 2 - 1; j >= 0; j--) sift_down(top, n, j);
        } else if (slot_before(s, &top[0])) {
            top[0] = *s;
            sift_down(top, n, 0);
        }
    }
    /* heap sort into best-first order */
    if (n < TOPN) for (int j = n / 2 - 1; j >= 0; j--) sift_down(top, n, j);
    for (int m = n - 1; m > 0; m--) {
        kmer_slot tmp = top[0]; top[0] = top[m]; top[m] = tmp;
        sift_down(top, m, 0);
    }
    return n;
}

static void write_top(const char *path, const kmer_slot *top, int n, uint64_t windows, size_t distinct)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# k=%d canonical k-mers, %llu windows, %zu distinct\n", K,
            (unsigned long long)windows, distinct);
    fprintf(f, "# rank kmer count fraction\n");
    char s[K + 1];
    for (int i = 0; i < n; i++) {
        decode_kmer(top[i].key - 1, s);
        fprintf(f, "%4d %s %8u %.6e\n", i + 1, s, top[i].count, (double)top[i].count / (double)windows);
    }
    if (fclose(f) != 0) { perror("fclose"); exit(1); }
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char fasta[4096], report[4096];
    snprintf(fasta, sizeof fasta, "%s/reads.fa", argv[1]);
    snprintf(report, sizeof report, "%s/top_kmers.txt", argv[1]);

    generate_fasta(fasta);

    kmer_table table;
    table_init(&table, 1u << 16);
    uint32_t *direct = calloc(KMASK + 1, sizeof(uint32_t));
    if (!direct) { perror("calloc"); return 1; }
    long nrec;
    uint64_t windows = count_kmers(fasta, &table, direct, &nrec);

    if (nrec != NRECORDS) { fprintf(stderr, "read %ld records, expected %d\n", nrec, NRECORDS); return 1; }
    if (cross_check(&table, direct, windows) != 0) {
        fprintf(stderr, "hash table counts disagree with direct counts\n");
        return 1;
    }
    kmer_slot top[TOPN];
    int n = select_top(&table, top);
    uint32_t maxc = 0;
    for (uint64_t c = 0; c <= KMASK; c++) if (direct[c] > maxc) maxc = direct[c];
    if (n != TOPN || top[0].count != maxc) { fprintf(stderr, "top-k selection wrong\n"); return 1; }
    for (int i = 1; i < n; i++)
        if (top[i].count > top[i - 1].count) { fprintf(stderr, "top-k not sorted\n"); return 1; }

    write_top(report, top, n, windows, table.used);
    printf("%ld records, %llu windows, %zu distinct %d-mers, top count %u\n", nrec,
           (unsigned long long)windows, table.used, K, top[0].count);
    free(direct);
    free(table.slots);
    return 0;
}
