/*
 * sample_profile_symbolize.c
 *
 * Offline symbolizer for a sampling profiler.  It writes an unsorted
 * nm-style symbol map and two binary sample streams (baseline and candidate
 * build; variable-length records: header + call-stack instruction
 * pointers) through a large stdio buffer.  The map is parsed and sorted,
 * the sample streams are consumed with pread() in fixed-size windows
 * (records straddle window boundaries), every IP is resolved by binary
 * search, and self/total counts, caller->callee edges and folded stacks are
 * aggregated in hash tables.  Outputs: folded stacks (flame-graph input),
 * a Graphviz call graph and a differential report whose confidence
 * intervals come from bootstrap resampling of the leaf samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_SYMS 24000
#define N_CHAINS 600
#define MAX_DEPTH 16
#define N_SAMPLES 220000
#define WINDOW (256 * 1024)
#define N_BOOT 200
#define TOPN 25

typedef struct {
    uint64_t ts;
    uint32_t pid;
    uint16_t cpu;
    uint16_t depth;
} rec_hdr_t;

typedef struct {
    uint64_t addr;
    uint32_t size;
    char name[48];
} sym_t;

typedef struct {
    uint64_t key;
    uint32_t count;
    uint16_t depth;
    int32_t frames[MAX_DEPTH]; /* root first */
} stack_ent_t;

typedef struct {
    uint64_t key; /* (caller << 32) | callee, +1 so 0 means empty */
    uint32_t count;
} edge_ent_t;

typedef struct {
    uint32_t *self, *total;
    stack_ent_t *stacks;
    size_t stack_cap, n_stacks;
    edge_ent_t *edges;
    size_t edge_cap, n_edges;
    int32_t *leaf; /* leaf symbol per sample, for bootstrap */
    size_t n_samples;
    uint64_t unresolved;
} profile_t;

static uint64_t rs = 0x243F6A8885A308D3ULL;
static uint64_t rnd64(void)
{
    rs += 0x9E3779B97F4A7C15ULL;
    uint64_t z = rs;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void die(const char *m, const char *p)
{
    fprintf(stderr, "sample_profile_symbolize: %s %s: %s\n", m, p, strerror(errno));
    exit(1);
}

/* ------------------------------------------------------------------ */
static const char *mods[] = {"net", "vfs", "sched", "alloc", "json", "tls", "sql", "rpc", "img", "zip", "http", "ui"};
static const char *verbs[] = {"read", "write", "parse", "encode", "lookup", "flush", "scan", "merge", "emit", "split"};
static const char *nouns[] = {"buf", "node", "frame", "row", "token", "page", "block", "entry", "key", "chunk"};

static void gen_symbol_map(const char *path, sym_t *truth)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    uint64_t a = 0x401000;
    for (int i = 0; i < N_SYMS; i++) {
        uint32_t sz = 16 + (uint32_t)(rnd64() % 2000);
        truth[i].addr = a;
        truth[i].size = sz;
        if (i == 0) snprintf(truth[i].name, sizeof truth[i].name, "main");
        else
            snprintf(truth[i].name, sizeof truth[i].name, "%s_%s_%s_%d", mods[rnd64() % 12], verbs[rnd64() % 10],
                     nouns[rnd64() % 10], i);
        a += sz + (rnd64() % 4) * 16;
    }
    /* emit in a scrambled order, as `nm -p` would */
    int *perm = malloc(sizeof(int) * N_SYMS);
    for (int i = 0; i < N_SYMS; i++) perm[i] = i;
    for (int i = N_SYMS - 1; i > 0; i--) {
        int j = (int)(rnd64() % (uint64_t)(i + 1));
        int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    for (int k = 0; k < N_SYMS; k++) {
        const sym_t *s = &truth[perm[k]];
        fprintf(f, "%016llx %08x %c %s\n", (unsigned long long)s->addr, s->size, (perm[k] % 5) ? 'T' : 't',
                s->name);
    }
    free(perm);
    fclose(f);
}

/* Synthetic call-chain population shared by both builds. */
static int chains[N_CHAINS][MAX_DEPTH], chain_len[N_CHAINS];

static void build_chains(void)
{
    chains[0][0] = 0;
    chain_len[0] = 1;
    for (int c = 1; c < N_CHAINS; c++) {
        int p = (int)(rnd64() % (uint64_t)c);
        int keep = 1 + (int)(rnd64() % (uint64_t)chain_len[p]);
        int add = 1 + (int)(rnd64() % 3);
        if (keep + add > MAX_DEPTH) keep = MAX_DEPTH - add;
        memcpy(chains[c], chains[p], sizeof(int) * (size_t)keep);
        for (int k = 0; k < add; k++) chains[c][keep + k] = 1 + (int)(rnd64() % (N_SYMS - 1));
        chain_len[c] = keep + add;
    }
}

static void gen_samples(const char *path, const sym_t *syms, int regress)
{
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    char *buf = malloc(1 << 20);
    setvbuf(f, buf, _IOFBF, 1 << 20);
    double cum[N_CHAINS], tot = 0;
    for (int c = 0; c < N_CHAINS; c++) {
        double w = 1.0 / (1.0 + c * 0.35); /* Zipf-like popularity */
        if (regress && (c == 7 || c == 41 || c == 230)) w *= 2.5;
        if (regress && c == 3) w *= 0.6;
        tot += w;
        cum[c] = tot;
    }
    uint64_t ts = 1000000;
    uint64_t ips[MAX_DEPTH];
    for (int s = 0; s < N_SAMPLES; s++) {
        double u = (double)(rnd64() >> 11) / 9007199254740992.0 * tot;
        int lo = 0, hi = N_CHAINS - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cum[mid] < u) lo = mid + 1;
            else hi = mid;
        }
        int c = lo, d = chain_len[c];
        rec_hdr_t h = {ts, 4000u + (uint32_t)(c % 4), (uint16_t)(s & 1), (uint16_t)d};
        ts += 250000 + rnd64() % 1000;
        for (int k = 0; k < d; k++) { /* leaf first */
            const sym_t *sy = &syms[chains[c][d - 1 - k]];
            ips[k] = sy->addr + rnd64() % sy->size;
        }
        if (rnd64() % 500 == 0) ips[0] = 0x7fff00000000ULL + rnd64() % 4096; /* JIT / unknown */
        fwrite(&h, sizeof h, 1, f);
        fwrite(ips, sizeof(uint64_t), (size_t)d, f);
    }
    fclose(f);
    free(buf);
}

/* ------------------------------------------------------------------ */
static int cmp_sym(const void *a, const void *b)
{
    const sym_t *x = a, *y = b;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

static sym_t *load_symbols(const char *path, int *n_out)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    int cap = 1024, n = 0;
    sym_t *s = malloc(sizeof(sym_t) * (size_t)cap);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *p = line, *e;
        uint64_t addr = strtoull(p, &e, 16);
        uint32_t size = (uint32_t)strtoul(e, &e, 16);
        while (*e == ' ') e++;
        char type = *e++;
        if (type != 'T' && type != 't') continue;
        while (*e == ' ') e++;
        e[strcspn(e, "\n")] = 0;
        if (n == cap) s = realloc(s, sizeof(sym_t) * (size_t)(cap *= 2));
        s[n].addr = addr;
        s[n].size = size;
        snprintf(s[n].name, sizeof s[n].name, "%s", e);
        n++;
    }
    fclose(f);
    qsort(s, (size_t)n, sizeof(sym_t), cmp_sym);
    *n_out = n;
    return s;
}

static int resolve(const sym_t *s, int n, uint64_t ip)
{
    int lo = 0, hi = n - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        if (s[mid].addr <= ip) {
            best = mid;
            lo = mid + 1;
        } else hi = mid - 1;
    }
    if (best >= 0 && ip < s[best].addr + s[best].size) return best;
    return -1;
}

static void add_stack(profile_t *P, const int32_t *fr, int d)
{
    uint64_t h = 1469598103934665603ULL;
    for (int k = 0; k < d; k++) h = (h ^ (uint64_t)(fr[k] + 2)) * 1099511628211ULL;
    h |= 1;
    if (P->n_stacks * 2 >= P->stack_cap) {
        fprintf(stderr, "stack table full\n");
        exit(3);
    }
    size_t m = P->stack_cap - 1, i = (size_t)h & m;
    while (P->stacks[i].key && P->stacks[i].key != h) i = (i + 1) & m;
    if (!P->stacks[i].key) {
        P->stacks[i].key = h;
        P->stacks[i].depth = (uint16_t)d;
        memcpy(P->stacks[i].frames, fr, sizeof(int32_t) * (size_t)d);
        P->n_stacks++;
    }
    P->stacks[i].count++;
}

static void add_edge(profile_t *P, int caller, int callee)
{
    uint64_t key = (((uint64_t)(uint32_t)(caller + 1)) << 32) | (uint32_t)(callee + 1);
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    size_t m = P->edge_cap - 1, i = (size_t)(h >> 20) & m;
    while (P->edges[i].key && P->edges[i].key != key) i = (i + 1) & m;
    if (!P->edges[i].key) {
        P->edges[i].key = key;
        P->n_edges++;
    }
    P->edges[i].count++;
}

/* Stream the sample file with pread() windows and aggregate. */
static void process_samples(const char *path, const sym_t *syms, int ns, profile_t *P)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    unsigned char *win = malloc(WINDOW + sizeof(rec_hdr_t) + MAX_DEPTH * 8);
    off_t off = 0;
    size_t have = 0;
    int32_t fr[MAX_DEPTH];
    int *mark = calloc((size_t)ns, sizeof(int));
    int stamp = 0;
    for (;;) {
        ssize_t r = pread(fd, win + have, WINDOW, off);
        if (r < 0) die("pread", path);
        off += r;
        have += (size_t)r;
        size_t pos = 0;
        while (have - pos >= sizeof(rec_hdr_t)) {
            rec_hdr_t h;
            memcpy(&h, win + pos, sizeof h);
            size_t need = sizeof h + (size_t)h.depth * 8;
            if (have - pos < need) break;
            const unsigned char *ipp = win + pos + sizeof h;
            int d = h.depth;
            stamp++;
            for (int k = 0; k < d; k++) {
                uint64_t ip;
                memcpy(&ip, ipp + 8 * k, 8);
                int sidx = resolve(syms, ns, ip);
                if (sidx < 0) P->unresolved++;
                fr[d - 1 - k] = sidx; /* root first */
                if (sidx >= 0 && mark[sidx] != stamp) { /* count recursion once */
                    mark[sidx] = stamp;
                    P->total[sidx]++;
                }
            }
            if (fr[d - 1] >= 0) P->self[fr[d - 1]]++;
            P->leaf[P->n_samples++] = fr[d - 1];
            for (int k = 0; k + 1 < d; k++)
                if (fr[k] >= 0 && fr[k + 1] >= 0) add_edge(P, fr[k], fr[k + 1]);
            add_stack(P, fr, d);
            pos += need;
        }
        memmove(win, win + pos, have - pos);
        have -= pos;
        if (r == 0) break;
    }
    close(fd);
    free(win);
    free(mark);
}

static void profile_init(profile_t *P, int ns)
{
    memset(P, 0, sizeof *P);
    P->self = calloc((size_t)ns, sizeof(uint32_t));
    P->total = calloc((size_t)ns, sizeof(uint32_t));
    P->stack_cap = 4096;
    P->stacks = calloc(P->stack_cap, sizeof(stack_ent_t));
    P->edge_cap = 1 << 14;
    P->edges = calloc(P->edge_cap, sizeof(edge_ent_t));
    P->leaf = malloc(sizeof(int32_t) * N_SAMPLES);
}

static void write_folded(const char *path, const profile_t *P, const sym_t *syms)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    for (size_t i = 0; i < P->stack_cap; i++) {
        const stack_ent_t *e = &P->stacks[i];
        if (!e->key) continue;
        for (int k = 0; k < e->depth; k++)
            fprintf(f, "%s%s", k ? ";" : "", e->frames[k] >= 0 ? syms[e->frames[k]].name : "[unknown]");
        fprintf(f, " %u\n", e->count);
    }
    fclose(f);
}

static void write_callgraph(const char *path, const profile_t *P, const sym_t *syms)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "digraph profile {\n  node [shape=box];\n");
    uint32_t thresh = (uint32_t)(P->n_samples / 200);
    for (size_t i = 0; i < P->edge_cap; i++) {
        const edge_ent_t *e = &P->edges[i];
        if (!e->key || e->count < thresh) continue;
        int a = (int)(e->key >> 32) - 1, b = (int)(e->key & 0xffffffffu) - 1;
        fprintf(f, "  \"%s\" -> \"%s\" [label=\"%u\", penwidth=%.2f];\n", syms[a].name, syms[b].name, e->count,
                1.0 + 8.0 * e->count / (double)P->n_samples);
    }
    fprintf(f, "}\n");
    fclose(f);
}

static const uint32_t *sort_key;
static int cmp_idx(const void *a, const void *b)
{
    uint32_t x = sort_key[*(const int *)a], y = sort_key[*(const int *)b];
    return (x < y) - (x > y);
}

/* Bootstrap confidence interval on the change in self-fraction. */
static void differential_report(const char *path, const profile_t *A, const profile_t *B, const sym_t *syms,
                                int ns)
{
    int *idx = malloc(sizeof(int) * (size_t)ns);
    uint32_t *comb = malloc(sizeof(uint32_t) * (size_t)ns);
    for (int i = 0; i < ns; i++) {
        idx[i] = i;
        comb[i] = A->self[i] + B->self[i];
    }
    sort_key = comb;
    qsort(idx, (size_t)ns, sizeof(int), cmp_idx);
    int top[TOPN], pos_of[N_SYMS];
    for (int i = 0; i < ns; i++) pos_of[i] = -1;
    for (int k = 0; k < TOPN; k++) {
        top[k] = idx[k];
        pos_of[idx[k]] = k;
    }
    static double delta[N_BOOT][TOPN];
    uint32_t ca[TOPN], cb[TOPN];
    for (int b = 0; b < N_BOOT; b++) {
        memset(ca, 0, sizeof ca);
        memset(cb, 0, sizeof cb);
        for (size_t s = 0; s < A->n_samples; s++) {
            int32_t l = A->leaf[rnd64() % A->n_samples];
            if (l >= 0 && pos_of[l] >= 0) ca[pos_of[l]]++;
        }
        for (size_t s = 0; s < B->n_samples; s++) {
            int32_t l = B->leaf[rnd64() % B->n_samples];
            if (l >= 0 && pos_of[l] >= 0) cb[pos_of[l]]++;
        }
        for (int k = 0; k < TOPN; k++)
            delta[b][k] = 100.0 * ((double)cb[k] / B->n_samples - (double)ca[k] / A->n_samples);
    }
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "%-36s %9s %9s %9s %9s %9s  %s\n", "function", "base%", "cand%", "delta", "ci_lo", "ci_hi", "verdict");
    for (int k = 0; k < TOPN; k++) {
        double v[N_BOOT];
        for (int b = 0; b < N_BOOT; b++) v[b] = delta[b][k];
        for (int i = 1; i < N_BOOT; i++) { /* insertion sort */
            double t = v[i];
            int j = i - 1;
            while (j >= 0 && v[j] > t) { v[j + 1] = v[j]; j--; }
            v[j + 1] = t;
        }
        double lo = v[(int)(0.025 * N_BOOT)], hi = v[(int)(0.975 * N_BOOT) - 1];
        int s = top[k];
        double pa = 100.0 * A->self[s] / A->n_samples, pb = 100.0 * B->self[s] / B->n_samples;
        fprintf(f, "%-36s %9.3f %9.3f %+9.3f %+9.3f %+9.3f  %s\n", syms[s].name, pa, pb, pb - pa, lo, hi,
                lo > 0 ? "REGRESSED" : hi < 0 ? "improved" : "-");
    }
    fclose(f);
    free(idx);
    free(comb);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    char p[4096], q[4096];
    sym_t *truth = malloc(sizeof(sym_t) * N_SYMS);
    snprintf(p, sizeof p, "%s/app.map", dir);
    gen_symbol_map(p, truth);
    build_chains();
    snprintf(p, sizeof p, "%s/baseline.samples", dir);
    gen_samples(p, truth, 0);
    snprintf(p, sizeof p, "%s/candidate.samples", dir);
    gen_samples(p, truth, 1);
    free(truth);

    int ns;
    snprintf(p, sizeof p, "%s/app.map", dir);
    sym_t *syms = load_symbols(p, &ns);
    profile_t A, B;
    profile_init(&A, ns);
    profile_init(&B, ns);
    snprintf(p, sizeof p, "%s/baseline.samples", dir);
    process_samples(p, syms, ns, &A);
    snprintf(p, sizeof p, "%s/candidate.samples", dir);
    process_samples(p, syms, ns, &B);

    snprintf(q, sizeof q, "%s/baseline.folded", dir);
    write_folded(q, &A, syms);
    snprintf(q, sizeof q, "%s/candidate.folded", dir);
    write_folded(q, &B, syms);
    snprintf(q, sizeof q, "%s/callgraph.dot", dir);
    write_callgraph(q, &B, syms);
    snprintf(q, sizeof q, "%s/diff_report.txt", dir);
    differential_report(q, &A, &B, syms, ns);
    printf("symbols=%d samples=%zu/%zu stacks=%zu edges=%zu unresolved=%llu\n", ns, A.n_samples, B.n_samples,
           B.n_stacks, B.n_edges, (unsigned long long)(A.unresolved + B.unresolved));
    return 0;
}
