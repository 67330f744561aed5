/* Matrix Market (coordinate, real, general) -> binary CSR converter.
 * Generates a convection-diffusion FD matrix as .mtx text, parses it with
 * fgets/strtod, builds CSR, writes a binary container, maps it back with
 * mmap and runs weighted Jacobi on A x = b from the mapped arrays. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define GRID     640            /* matrix order n = GRID*GRID */
#define JACOBI_IT 200
#define CSR_MAGIC 0x52534331u

typedef struct { int32_t r, c; double v; } coo_t;

typedef struct {
    uint32_t magic, pad;
    int64_t  nrows, ncols, nnz;
    int64_t  off_rowptr, off_colidx, off_vals;
} csr_hdr_t;

static char dir[1024];

/* 5-point convection-diffusion with a random perturbation on each entry */
static long generate_mtx(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    int n = GRID * GRID;
    long nnz = 5L * n - 4L * GRID;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% generated: convection-diffusion, grid %d x %d\n", GRID, GRID);
    fprintf(f, "%d %d %ld\n", n, n, nnz);
    uint64_t s = 42;
    const double pe = 0.3;
    for (int j = 0; j < GRID; j++)
        for (int i = 0; i < GRID; i++) {
            int row = j * GRID + i + 1;
            s = s * 6364136223846793005ULL + 1;
            double eps = 1e-3 * (double)(s >> 11) / 9007199254740992.0;
            fprintf(f, "%d %d %.17g\n", row, row, 4.0 + eps);
            if (i > 0)        fprintf(f, "%d %d %.17g\n", row, row - 1, -1.0 - pe);
            if (i < GRID - 1) fprintf(f, "%d %d %.17g\n", row, row + 1, -1.0 + pe);
            if (j > 0)        fprintf(f, "%d %d %.17g\n", row, row - GRID, -1.0 - 0.5 * pe);
            if (j < GRID - 1) fprintf(f, "%d %d %.17g\n", row, row + GRID, -1.0 + 0.5 * pe);
        }
    fclose(f);
    return nnz;
}

static coo_t *parse_mtx(const char *path, int *nrows, int *ncols, long *nnz)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char line[256];
    if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket", 14) != 0) {
        fprintf(stderr, "not a MatrixMarket file\n");
        exit(1);
    }
    while (fgets(line, sizeof line, f) && line[0] == '%')
        ;
    if (sscanf(line, "%d %d %ld", nrows, ncols, nnz) != 3) { fprintf(stderr, "bad size line\n"); exit(1); }
    coo_t *e = malloc((size_t)*nnz * sizeof *e);
    long k = 0;
    while (k < *nnz && fgets(line, sizeof line, f)) {
        char *p = line, *q;
        e[k].r = (int32_t)strtol(p, &q, 10) - 1; p = q;
        e[k].c = (int32_t)strtol(p, &q, 10) - 1; p = q;
        e[k].v = strtod(p, &q);
        if (q == p) continue;
        k++;
    }
    fclose(f);
    *nnz = k;
    return e;
}

/* counting sort by row, then insertion sort columns within each row */
static void coo_to_csr(const coo_t *e, long nnz, int n, int64_t *rowptr, int32_t *col, double *val)
{
    memset(rowptr, 0, (size_t)(n + 1) * sizeof *rowptr);
    for (long k = 0; k < nnz; k++) rowptr[e[k].r + 1]++;
    for (int i = 0; i < n; i++) rowptr[i + 1] += rowptr[i];
    int64_t *pos = malloc((size_t)n * sizeof *pos);
    memcpy(pos, rowptr, (size_t)n * sizeof *pos);
    for (long k = 0; k < nnz; k++) {
        int64_t d = pos[e[k].r]++;
        col[d] = e[k].c;
        val[d] = e[k].v;
    }
    for (int i = 0; i < n; i++)
        for (int64_t a = rowptr[i] + 1; a < rowptr[i + 1]; a++) {
            int32_t c = col[a]; double v = val[a]; int64_t b = a - 1;
            while (b >= rowptr[i] && col[b] > c) { col[b + 1] = col[b]; val[b + 1] = val[b]; b--; }
            col[b + 1] = c; val[b + 1] = v;
        }
    free(pos);
}

static void write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) { perror("write"); exit(1); }
        p += w; n -= (size_t)w;
    }
}

static void write_csr_binary(const char *path, int n, long nnz, const int64_t *rowptr,
                             const int32_t *col, const double *val)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    csr_hdr_t h = {CSR_MAGIC, 0, n, n, nnz, 0, 0, 0};
    h.off_rowptr = sizeof h;
    h.off_colidx = h.off_rowptr + (int64_t)(n + 1) * 8;
    h.off_vals = (h.off_colidx + nnz * 4 + 7) & ~7L;
    write_all(fd, &h, sizeof h);
    write_all(fd, rowptr, (size_t)(n + 1) * 8);
    write_all(fd, col, (size_t)nnz * 4);
    static const char zeros[8];
    write_all(fd, zeros, (size_t)(h.off_vals - (h.off_colidx + nnz * 4)));
    write_all(fd, val, (size_t)nnz * 8);
    fsync(fd);
    close(fd);
}

static double jacobi_on_mapped(const char *path, double *x_out, int *n_out)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    struct stat st;
    fstat(fd, &st);
    unsigned char *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) { perror("mmap"); exit(1); }
    close(fd);
    const csr_hdr_t *h = (const csr_hdr_t *)base;
    int n = (int)h->nrows;
    const int64_t *rp = (const int64_t *)(base + h->off_rowptr);
    const int32_t *ci = (const int32_t *)(base + h->off_colidx);
    const double *av = (const double *)(base + h->off_vals);
    double *x = calloc((size_t)n, sizeof *x), *xn = malloc((size_t)n * sizeof *xn);
    double res = 0.0;
    for (int it = 0; it < JACOBI_IT; it++) {
        res = 0.0;
        for (int i = 0; i < n; i++) {
            double diag = 1.0, s = 1.0;   /* b = 1 */
            for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
                if (ci[k] == i) diag = av[k];
                else s -= av[k] * x[ci[k]];
            }
            double r = s - diag * x[i];
            res += r * r;
            xn[i] = x[i] + 0.8 * r / diag;
        }
        double *t = x; x = xn; xn = t;
    }
    memcpy(x_out, x, (size_t)n * sizeof *x);
    *n_out = n;
    munmap(base, (size_t)st.st_size);
    free(x); free(xn);
    return sqrt(res);
}

static void write_solution_profile(const char *path, const double *x)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# i  x(mid-row)  x(mid-col)\n");
    for (int i = 0; i < GRID; i++)
        fprintf(f, "%d %.10e %.10e\n", i, x[(GRID / 2) * GRID + i], x[i * GRID + GRID / 2]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char mtx[1100], bin[1100], prof[1100];
    snprintf(mtx, sizeof mtx, "%s/cdiff.mtx", dir);
    snprintf(bin, sizeof bin, "%s/cdiff.csr", dir);
    snprintf(prof, sizeof prof, "%s/solution_profile.dat", dir);

    generate_mtx(mtx);
    int nr, nc;
    long nnz;
    coo_t *e = parse_mtx(mtx, &nr, &nc, &nnz);
    int64_t *rowptr = malloc((size_t)(nr + 1) * sizeof *rowptr);
    int32_t *col = malloc((size_t)nnz * sizeof *col);
    double *val = malloc((size_t)nnz * sizeof *val);
    coo_to_csr(e, nnz, nr, rowptr, col, val);
    free(e);
    write_csr_binary(bin, nr, nnz, rowptr, col, val);
    free(rowptr); free(col); free(val);

    double *x = malloc((size_t)nr * sizeof *x);
    int n;
    double res = jacobi_on_mapped(bin, x, &n);
    write_solution_profile(prof, x);
    printf("n=%d nnz=%ld jacobi_residual=%.6e x_center=%.8f\n", n, nnz, res, x[(GRID / 2) * GRID + GRID / 2]);
    free(x);
    return 0;
}
