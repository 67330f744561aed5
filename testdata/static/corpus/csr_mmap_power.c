/*
 * csr_mmap_power: assemble the graph Laplacian of a small-world lattice,
 * store it as a binary CSR file, map the file with mmap and compute the two
 * largest eigenpairs by power iteration with deflation.  Iterates are
 * saved periodically, the eigenvectors are exported as CSV.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define GRID_NX      560
#define GRID_NY      560
#define SHORTCUT_P   0.08
#define MAX_ITER     260
#define SAVE_EVERY   40
#define NEV          2
#define CSR_MAGIC    0x31525343u

typedef struct {
    uint32_t magic, pad;
    int64_t n, nnz;
} csr_header;

typedef struct {
    int64_t n, nnz;
    const int64_t *rowptr;
    const int32_t *col;
    const double *val;
    void *base;
    size_t map_len;
} csr_view;

static char outdir[4096];

static void opath(char *dst, size_t cap, const char *name)
{
    snprintf(dst, cap, "%s/%s", outdir, name);
}

/* Laplacian L = D - W of a 2-D lattice plus random weighted shortcuts. */
static void build_graph_csr(int64_t **rowptr_o, int32_t **col_o, double **val_o, int64_t *nnz_o)
{
    const int64_t n = (int64_t)GRID_NX * GRID_NY;
    int64_t max_e = n * 3;
    int32_t *eu = malloc(max_e * sizeof *eu), *ev = malloc(max_e * sizeof *ev);
    double *ew = malloc(max_e * sizeof *ew);
    int64_t ne = 0;
    uint64_t s = 0x5851F42D4C957F2Dull;
    for (int j = 0; j < GRID_NY; j++) {
        for (int i = 0; i < GRID_NX; i++) {
            int32_t u = j * GRID_NX + i;
            double h = 1.0 + 0.5 * sin(0.02 * i) * cos(0.03 * j);
            if (i + 1 < GRID_NX) { eu[ne] = u; ev[ne] = u + 1; ew[ne++] = h; }
            if (j + 1 < GRID_NY) { eu[ne] = u; ev[ne] = u + GRID_NX; ew[ne++] = 2.0 - h * 0.5; }
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            if ((s >> 11) * 0x1.0p-53 < SHORTCUT_P) {
                int32_t v = (int32_t)((s >> 20) % (uint64_t)n);
                if (v != u) { eu[ne] = u; ev[ne] = v; ew[ne++] = 0.25 + (s & 255) / 256.0; }
            }
        }
    }
    int64_t *rowptr = calloc(n + 1, sizeof *rowptr);
    for (int64_t e = 0; e < ne; e++) { rowptr[eu[e] + 1]++; rowptr[ev[e] + 1]++; }
    for (int64_t r = 0; r < n; r++) rowptr[r + 1] += rowptr[r] + 1;  /* +1 for diagonal */
    int64_t nnz = rowptr[n];
    int32_t *col = malloc(nnz * sizeof *col);
    double *val = malloc(nnz * sizeof *val);
    int64_t *fill = malloc(n * sizeof *fill);
    for (int64_t r = 0; r < n; r++) {
        fill[r] = rowptr[r] + 1;
        col[rowptr[r]] = (int32_t)r;
        val[rowptr[r]] = 0.0;
    }
    for (int64_t e = 0; e < ne; e++) {
        int32_t u = eu[e], v = ev[e];
        col[fill[u]] = v; val[fill[u]++] = -ew[e];
        col[fill[v]] = u; val[fill[v]++] = -ew[e];
        val[rowptr[u]] += ew[e];
        val[rowptr[v]] += ew[e];
    }
    free(eu); free(ev); free(ew); free(fill);
    *rowptr_o = rowptr; *col_o = col; *val_o = val; *nnz_o = nnz;
}

static void write_csr(const char *path, const int64_t *rowptr, const int32_t *col,
                      const double *val, int64_t n, int64_t nnz)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    csr_header h = { CSR_MAGIC, 0, n, nnz };
    fwrite(&h, sizeof h, 1, f);
    fwrite(rowptr, sizeof *rowptr, n + 1, f);
    fwrite(val, sizeof *val, nnz, f);
    fwrite(col, sizeof *col, nnz, f);
    fclose(f);
}

static csr_view map_csr(const char *path)
{
    csr_view m;
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    struct stat st;
    fstat(fd, &st);
    m.map_len = (size_t)st.st_size;
    m.base = mmap(NULL, m.map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m.base == MAP_FAILED) { perror("mmap"); exit(1); }
    madvise(m.base, m.map_len, MADV_SEQUENTIAL);
    const csr_header *h = m.base;
    if (h->magic != CSR_MAGIC) { fprintf(stderr, "bad csr file\n"); exit(1); }
    m.n = h->n;
    m.nnz = h->nnz;
    m.rowptr = (const int64_t *)(h + 1);
    m.val = (const double *)(m.rowptr + m.n + 1);
    m.col = (const int32_t *)(m.val + m.nnz);
    return m;
}

static void spmv(const csr_view *m, const double *x, double *y)
{
    for (int64_t r = 0; r < m->n; r++) {
        double acc = 0.0;
        for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; k++)
            acc += m->val[k] * x[m->col[k]];
        y[r] = acc;
    }
}

static void save_iterate(int ev, int it, const double *v, int64_t n, double lambda)
{
    char name[64], path[4200];
    snprintf(name, sizeof name, "iterate_ev%d_%04d.bin", ev, it);
    opath(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    fwrite(&n, sizeof n, 1, f);
    fwrite(&lambda, sizeof lambda, 1, f);
    fwrite(v, sizeof *v, (size_t)n, f);
    fclose(f);
}

static double power_iterate(const csr_view *m, double *v, double *const *defl, int ndefl,
                            int ev, FILE *log)
{
    int64_t n = m->n;
    double *w = malloc(n * sizeof *w);
    double lambda = 0.0, prev = 0.0;
    for (int it = 1; it <= MAX_ITER; it++) {
        for (int d = 0; d < ndefl; d++) {
            double dot = 0.0;
            for (int64_t i = 0; i < n; i++) dot += defl[d][i] * v[i];
            for (int64_t i = 0; i < n; i++) v[i] -= dot * defl[d][i];
        }
        spmv(m, v, w);
        double num = 0.0, nrm = 0.0;
        for (int64_t i = 0; i < n; i++) { num += v[i] * w[i]; nrm += w[i] * w[i]; }
        nrm = sqrt(nrm);
        lambda = num;
        double resid = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double r = w[i] - lambda * v[i];
            resid += r * r;
            v[i] = w[i] / nrm;
        }
        fprintf(log, "%d %4d %.12e %.6e %.3e\n", ev, it, lambda, sqrt(resid), fabs(lambda - prev));
        prev = lambda;
        if (it % SAVE_EVERY == 0)
            save_iterate(ev, it, v, n, lambda);
    }
    free(w);
    return lambda;
}

static void degree_histogram(const csr_view *m, const char *path)
{
    long hist[64] = {0};
    double dmax = 0.0;
    for (int64_t r = 0; r < m->n; r++) {
        int64_t deg = m->rowptr[r + 1] - m->rowptr[r] - 1;
        hist[deg < 63 ? deg : 63]++;
        if (m->val[m->rowptr[r]] > dmax) dmax = m->val[m->rowptr[r]];
    }
    FILE *f = fopen(path, "w");
    fprintf(f, "# n=%lld nnz=%lld max_weighted_degree=%.6f\n", (long long)m->n,
            (long long)m->nnz, dmax);
    for (int d = 0; d < 64; d++)
        if (hist[d]) fprintf(f, "%d %ld\n", d, hist[d]);
    fclose(f);
}

static void write_vectors_csv(const char *path, double *const *vecs, const double *lam, int nev,
                              int64_t n)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "node,x,y");
    for (int e = 0; e < nev; e++) fprintf(f, ",v%d(lambda=%.6f)", e, lam[e]);
    fputc('\n', f);
    for (int64_t i = 0; i < n; i++) {
        fprintf(f, "%lld,%d,%d", (long long)i, (int)(i % GRID_NX), (int)(i / GRID_NX));
        for (int e = 0; e < nev; e++) fprintf(f, ",%.9e", vecs[e][i]);
        fputc('\n', f);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    char path[4200];
    int64_t *rowptr, nnz, n = (int64_t)GRID_NX * GRID_NY;
    int32_t *col;
    double *val;
    build_graph_csr(&rowptr, &col, &val, &nnz);
    opath(path, sizeof path, "laplacian.csr");
    write_csr(path, rowptr, col, val, n, nnz);
    free(rowptr); free(col); free(val);

    csr_view m = map_csr(path);
    opath(path, sizeof path, "degree_hist.txt");
    degree_histogram(&m, path);

    opath(path, sizeof path, "convergence.log");
    FILE *log = fopen(path, "w");
    double *vecs[NEV], lam[NEV];
    for (int e = 0; e < NEV; e++) {
        vecs[e] = malloc(n * sizeof(double));
        for (int64_t i = 0; i < n; i++)
            vecs[e][i] = sin(0.001 * (double)(i + 1) * (e + 1)) + 0.01 * (double)(i % 7);
        lam[e] = power_iterate(&m, vecs[e], vecs, e, e, log);
        printf("eigenvalue %d: %.10f\n", e, lam[e]);
    }
    fclose(log);
    opath(path, sizeof path, "eigvecs.csv");
    write_vectors_csv(path, vecs, lam, NEV, n);
    munmap(m.base, m.map_len);
    for (int e = 0; e < NEV; e++) free(vecs[e]);
    return 0;
}
