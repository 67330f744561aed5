/*
 * pagerank_edges: graph ranking driven by files.  A small key=value parameter
 * file is written and parsed for the graph size, a power-law-ish directed
 * graph is emitted as a text edge list (one fprintf per edge), the edge list
 * is parsed back with getline/strtol into a CSR structure, the CSR is cached
 * to a binary file with fwrite and reloaded with fread (and compared), then
 * PageRank power iterations run and the top vertices are written out.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct graph_params {
    long vertices;
    long edges;
    int iterations;
    double damping;
    int top_k;
    unsigned long seed;
};

struct csr {
    long nv, ne;
    long *row_ptr;    /* nv+1 */
    int32_t *col;     /* ne: destination of each out-edge */
};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "pagerank_edges: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void write_params(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "# graph generation and ranking parameters\n");
    fprintf(f, "vertices = 200000\n");
    fprintf(f, "edges = 1600000\n");
    fprintf(f, "iterations = 50\n");
    fprintf(f, "damping = 0.85\n");
    fprintf(f, "top_k = 50\n");
    fprintf(f, "seed = 424242\n");
    fclose(f);
}

static void read_params(const char *path, struct graph_params *gp)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[256], key[64];
    double val;
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (sscanf(line, " %63[a-z_] = %lf", key, &val) != 2) {
            fprintf(stderr, "pagerank_edges: bad parameter line: %s", line);
            exit(1);
        }
        if (strcmp(key, "vertices") == 0) gp->vertices = (long)val;
        else if (strcmp(key, "edges") == 0) gp->edges = (long)val;
        else if (strcmp(key, "iterations") == 0) gp->iterations = (int)val;
        else if (strcmp(key, "damping") == 0) gp->damping = val;
        else if (strcmp(key, "top_k") == 0) gp->top_k = (int)val;
        else if (strcmp(key, "seed") == 0) gp->seed = (unsigned long)val;
        else continue;
        seen++;
    }
    fclose(f);
    if (seen != 6) {
        fprintf(stderr, "pagerank_edges: parameter file incomplete (%d keys)\n", seen);
        exit(1);
    }
}

/* Preferential-ish targets: squaring a uniform skews toward low ids. */
static void write_edge_list(const char *path, const struct graph_params *gp, uint64_t *checksum)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    uint64_t s = gp->seed, sum = 0, r[2];
    fprintf(f, "%% directed edge list: %ld vertices %ld edges\n", gp->vertices, gp->edges);
    for (long e = 0; e < gp->edges; e++) {
        for (int k = 0; k < 2; k++) { /* splitmix64 */
            uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            r[k] = z ^ (z >> 31);
        }
        long src = (long)(r[0] % (uint64_t)gp->vertices);
        double u = (double)(r[1] >> 11) / 9007199254740992.0;
        long dst = (long)(u * u * (double)gp->vertices);
        if (dst == src) dst = (dst + 1) % gp->vertices;
        fprintf(f, "%ld %ld\n", src, dst);
        sum += (uint64_t)src * 31u + (uint64_t)dst;
    }
    fclose(f);
    *checksum = sum;
}

static void parse_edge_list(const char *path, long nv, long ne, struct csr *g, uint64_t *checksum)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    int32_t *src = malloc(sizeof(int32_t) * (size_t)ne), *dst = malloc(sizeof(int32_t) * (size_t)ne);
    if (!src || !dst) die("malloc", "edges");
    char *line = NULL;
    size_t cap = 0;
    long m = 0;
    uint64_t sum = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] == '%') continue;
        char *end;
        long a = strtol(line, &end, 10);
        long b = strtol(end, &end, 10);
        if (m >= ne || a < 0 || a >= nv || b < 0 || b >= nv) {
            fprintf(stderr, "pagerank_edges: bad edge line %ld\n", m);
            exit(1);
        }
        src[m] = (int32_t)a;
        dst[m] = (int32_t)b;
        sum += (uint64_t)a * 31u + (uint64_t)b;
        m++;
    }
    free(line);
    fclose(f);
    if (m != ne) {
        fprintf(stderr, "pagerank_edges: expected %ld edges, parsed %ld\n", ne, m);
        exit(1);
    }
    /* counting sort by source into CSR */
    g->nv = nv;
    g->ne = ne;
    g->row_ptr = calloc((size_t)nv + 1, sizeof(long));
    g->col = malloc(sizeof(int32_t) * (size_t)ne);
    if (!g->row_ptr || !g->col) die("malloc", "csr");
    for (long e = 0; e < ne; e++) g->row_ptr[src[e] + 1]++;
    for (long v = 0; v < nv; v++) g->row_ptr[v + 1] += g->row_ptr[v];
    long *fill = malloc(sizeof(long) * (size_t)nv);
    memcpy(fill, g->row_ptr, sizeof(long) * (size_t)nv);
    for (long e = 0; e < ne; e++) g->col[fill[src[e]]++] = dst[e];
    free(fill);
    free(src);
    free(dst);
    *checksum = sum;
}

static void save_csr(const char *path, const struct csr *g)
{
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    const char magic[8] = "CSRv1\0\0";
    fwrite(magic, 1, 8, f);
    fwrite(&g->nv, sizeof g->nv, 1, f);
    fwrite(&g->ne, sizeof g->ne, 1, f);
    /* row-block at a time, as a tool streaming a large graph would */
    const long blk = 4096;
    for (long v = 0; v <= g->nv; v += blk) {
        long n = (g->nv + 1 - v) < blk ? (g->nv + 1 - v) : blk;
        if (fwrite(g->row_ptr + v, sizeof(long), (size_t)n, f) != (size_t)n) die("fwrite", path);
    }
    for (long e = 0; e < g->ne; e += blk) {
        long n = (g->ne - e) < blk ? (g->ne - e) : blk;
        if (fwrite(g->col + e, sizeof(int32_t), (size_t)n, f) != (size_t)n) die("fwrite", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

static void load_csr(const char *path, struct csr *g)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    char magic[8];
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "CSRv1", 5) != 0 ||
        fread(&g->nv, sizeof g->nv, 1, f) != 1 || fread(&g->ne, sizeof g->ne, 1, f) != 1) {
        fprintf(stderr, "pagerank_edges: bad CSR header\n");
        exit(1);
    }
    g->row_ptr = malloc(sizeof(long) * (size_t)(g->nv + 1));
    g->col = malloc(sizeof(int32_t) * (size_t)g->ne);
    if (!g->row_ptr || !g->col) die("malloc", "csr copy");
    const long blk = 4096;
    for (long v = 0; v <= g->nv; v += blk) {
        long n = (g->nv + 1 - v) < blk ? (g->nv + 1 - v) : blk;
        if (fread(g->row_ptr + v, sizeof(long), (size_t)n, f) != (size_t)n) die("fread", path);
    }
    for (long e = 0; e < g->ne; e += blk) {
        long n = (g->ne - e) < blk ? (g->ne - e) : blk;
        if (fread(g->col + e, sizeof(int32_t), (size_t)n, f) != (size_t)n) die("fread", path);
    }
    fclose(f);
}

static double pagerank(const struct csr *g, double d, int iters, double *rank)
{
    long n = g->nv;
    double *next = malloc(sizeof(double) * (size_t)n);
    for (long v = 0; v < n; v++) rank[v] = 1.0 / (double)n;
    double delta = 0.0;
    for (int it = 0; it < iters; it++) {
        double dangling = 0.0;
        for (long v = 0; v < n; v++) {
            next[v] = 0.0;
            if (g->row_ptr[v + 1] == g->row_ptr[v]) dangling += rank[v];
        }
        for (long v = 0; v < n; v++) {
            long deg = g->row_ptr[v + 1] - g->row_ptr[v];
            if (deg == 0) continue;
            double share = rank[v] / (double)deg;
            for (long e = g->row_ptr[v]; e < g->row_ptr[v + 1]; e++) next[g->col[e]] += share;
        }
        double base = (1.0 - d) / (double)n + d * dangling / (double)n;
        delta = 0.0;
        for (long v = 0; v < n; v++) {
            double r = base + d * next[v];
            delta += fabs(r - rank[v]);
            rank[v] = r;
        }
    }
    free(next);
    return delta;
}

static const double *sort_key;
static int cmp_rank_desc(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    if (sort_key[x] != sort_key[y]) return sort_key[x] < sort_key[y] ? 1 : -1;
    return (x > y) - (x < y);
}

static void write_top(const char *path, const double *rank, long n, int k, double delta)
{
    long *idx = malloc(sizeof(long) * (size_t)n);
    for (long v = 0; v < n; v++) idx[v] = v;
    sort_key = rank;
    qsort(idx, (size_t)n, sizeof(long), cmp_rank_desc);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "# top %d of %ld vertices, final L1 delta %.3e\n", k, n, delta);
    for (int i = 0; i < k && i < n; i++) fprintf(f, "%4d %8ld %.10f\n", i + 1, idx[i], rank[idx[i]]);
    fclose(f);
    free(idx);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) die("mkdir", argv[1]);
    char p_par[4096], p_edges[4096], p_csr[4096], p_top[4096];
    snprintf(p_par, sizeof p_par, "%s/graph.cfg", argv[1]);
    snprintf(p_edges, sizeof p_edges, "%s/edges.txt", argv[1]);
    snprintf(p_csr, sizeof p_csr, "%s/graph.csr", argv[1]);
    snprintf(p_top, sizeof p_top, "%s/top_ranks.txt", argv[1]);

    struct graph_params gp = {0, 0, 0, 0.0, 0, 0};
    write_params(p_par);
    read_params(p_par, &gp);

    uint64_t sum_written, sum_parsed;
    write_edge_list(p_edges, &gp, &sum_written);
    struct csr g, g2;
    parse_edge_list(p_edges, gp.vertices, gp.edges, &g, &sum_parsed);
    save_csr(p_csr, &g);
    load_csr(p_csr, &g2);
    int same = g.nv == g2.nv && g.ne == g2.ne &&
               memcmp(g.row_ptr, g2.row_ptr, sizeof(long) * (size_t)(g.nv + 1)) == 0 &&
               memcmp(g.col, g2.col, sizeof(int32_t) * (size_t)g.ne) == 0;
    if (sum_written != sum_parsed || !same) {
        fprintf(stderr, "pagerank_edges: check FAILED (edge list or CSR cache mismatch)\n");
        return 1;
    }
    double *rank = malloc(sizeof(double) * (size_t)gp.vertices);
    double delta = pagerank(&g2, gp.damping, gp.iterations, rank);
    double total = 0.0;
    for (long v = 0; v < gp.vertices; v++) total += rank[v];
    write_top(p_top, rank, gp.vertices, gp.top_k, delta);
    if (fabs(total - 1.0) > 1e-9 || delta > 1e-6) {
        fprintf(stderr, "pagerank_edges: check FAILED (rank sum %.12f, delta %.3e)\n", total, delta);
        return 1;
    }
    printf("pagerank_edges: ok (%ld vertices, %ld edges, delta %.2e)\n", gp.vertices, gp.edges, delta);
    free(rank);
    free(g.row_ptr);
    free(g.col);
    free(g2.row_ptr);
    free(g2.col);
    return 0;
}
