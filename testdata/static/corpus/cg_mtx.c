/*
 * Sparse symmetric positive definite solve with conjugate gradients.
 *
 * A variable-coefficient 2-D diffusion operator on an NX x NY grid is
 * assembled and written in Matrix Market coordinate format (fprintf), together
 * with a right-hand side vector in Matrix Market array format.  Both are read
 * back with fscanf, converted from coordinate triples to CSR, and solved with
 * Jacobi-preconditioned CG.  The solution is written as raw doubles with
 * fwrite and re-read to check it against the manufactured solution.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define NX 280
#define NY 280
#define MAX_IT 4000
#define TOL 1e-10

typedef struct {
    int n, nnz;
    int *rowptr, *col;
    double *val;
} csr_t;

static double coef(double x, double y)
{
    return 1.0 + 0.8 * sin(3.0 * x) * cos(2.0 * y) + 0.5 * x * y;
}

static double exact_solution(int i, int j)
{
    double x = (i + 1.0) / (NX + 1.0), y = (j + 1.0) / (NY + 1.0);
    return sin(M_PI * x) * sin(2.0 * M_PI * y) + 0.1 * x;
}

/* Write the operator as "i j value" lines, 1-based, general storage. */
static int write_matrix_market(const char *path, const char *rhs_path)
{
    FILE *f = fopen(path, "w");
    FILE *g = fopen(rhs_path, "w");
    if (!f || !g) { perror("open mtx"); return -1; }
    int n = NX * NY;
    long nnz = (long)n * 5 - 2L * NX - 2L * NY;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% variable coefficient diffusion, %d x %d grid\n", NX, NY);
    fprintf(f, "%d %d %ld\n", n, n, nnz);
    double *xs = malloc(sizeof(double) * n);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            xs[j * NX + i] = exact_solution(i, j);
    fprintf(g, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
    long written = 0;
    double h = 1.0 / (NX + 1.0);
    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
            int r = j * NX + i;
            double x = (i + 1) * h, y = (j + 1) * h;
            double kw = coef(x - 0.5 * h, y), ke = coef(x + 0.5 * h, y);
            double ks = coef(x, y - 0.5 * h), kn = coef(x, y + 0.5 * h);
            double diag = kw + ke + ks + kn + 0.01;
            double ax = diag * xs[r];
            if (j > 0) { fprintf(f, "%d %d %.17g\n", r + 1, r - NX + 1, -ks); ax -= ks * xs[r - NX]; written++; }
            if (i > 0) { fprintf(f, "%d %d %.17g\n", r + 1, r, -kw); ax -= kw * xs[r - 1]; written++; }
            fprintf(f, "%d %d %.17g\n", r + 1, r + 1, diag); written++;
            if (i < NX - 1) { fprintf(f, "%d %d %.17g\n", r + 1, r + 2, -ke); ax -= ke * xs[r + 1]; written++; }
            if (j < NY - 1) { fprintf(f, "%d %d %.17g\n", r + 1, r + NX + 1, -kn); ax -= kn * xs[r + NX]; written++; }
            fprintf(g, "%.17g\n", ax);
        }
    }
    free(xs);
    if (written != nnz) { fprintf(stderr, "nnz mismatch %ld %ld\n", written, nnz); return -1; }
    if (fclose(f) || fclose(g)) return -1;
    return 0;
}

static int read_matrix_market(const char *path, csr_t *A)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return -1; }
    char line[512];
    do {
        if (!fgets(line, sizeof line, f)) { fclose(f); return -1; }
    } while (line[0] == '%');
    int nr, nc, nnz;
    if (sscanf(line, "%d %d %d", &nr, &nc, &nnz) != 3 || nr != nc) { fclose(f); return -1; }
    int *ri = malloc(sizeof(int) * nnz), *ci = malloc(sizeof(int) * nnz);
    double *v = malloc(sizeof(double) * nnz);
    for (int k = 0; k < nnz; k++) {
        if (fscanf(f, "%d %d %lf", &ri[k], &ci[k], &v[k]) != 3) {
            fprintf(stderr, "bad entry %d\n", k);
            fclose(f);
            return -1;
        }
        ri[k]--; ci[k]--;
    }
    fclose(f);
    /* COO -> CSR by counting sort on row */
    A->n = nr;
    A->nnz = nnz;
    A->rowptr = calloc(nr + 1, sizeof(int));
    A->col = malloc(sizeof(int) * nnz);
    A->val = malloc(sizeof(double) * nnz);
    for (int k = 0; k < nnz; k++) A->rowptr[ri[k] + 1]++;
    for (int r = 0; r < nr; r++) A->rowptr[r + 1] += A->rowptr[r];
    int *fill = malloc(sizeof(int) * nr);
    memcpy(fill, A->rowptr, sizeof(int) * nr);
    for (int k = 0; k < nnz; k++) {
        int p = fill[ri[k]]++;
        A->col[p] = ci[k];
        A->val[p] = v[k];
    }
    free(fill); free(ri); free(ci); free(v);
    return 0;
}

static double *read_vector_market(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char line[256];
    do {
        if (!fgets(line, sizeof line, f)) { fclose(f); return NULL; }
    } while (line[0] == '%');
    int m, one;
    if (sscanf(line, "%d %d", &m, &one) != 2 || m != n) { fclose(f); return NULL; }
    double *b = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        if (fscanf(f, "%lf", &b[i]) != 1) { free(b); fclose(f); return NULL; }
    fclose(f);
    return b;
}

static void spmv(const csr_t *A, const double *x, double *y)
{
    for (int r = 0; r < A->n; r++) {
        double s = 0.0;
        for (int p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
            s += A->val[p] * x[A->col[p]];
        y[r] = s;
    }
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static int conjugate_gradient(const csr_t *A, const double *b, double *x, double *final_res)
{
    int n = A->n;
    double *r = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
    double *p = malloc(sizeof(double) * n), *q = malloc(sizeof(double) * n);
    double *dinv = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        dinv[i] = 1.0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->col[k] == i) dinv[i] = 1.0 / A->val[k];
        x[i] = 0.0;
        r[i] = b[i];
        z[i] = dinv[i] * r[i];
        p[i] = z[i];
    }
    double bnorm = sqrt(dot(b, b, n));
    double rz = dot(r, z, n);
    int it;
    for (it = 0; it < MAX_IT; it++) {
        spmv(A, p, q);
        double alpha = rz / dot(p, q, n);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        double rn = sqrt(dot(r, r, n));
        if (rn < TOL * bnorm) { *final_res = rn / bnorm; it++; break; }
        for (int i = 0; i < n; i++) z[i] = dinv[i] * r[i];
        double rz_new = dot(r, z, n);
        double beta = rz_new / rz;
        rz = rz_new;
        for (int i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
        *final_res = rn / bnorm;
    }
    free(r); free(z); free(p); free(q); free(dinv);
    return it;
}

static int write_solution(const char *path, const double *x, int n)
{
    if (n != NX * NY) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int hdr[2] = {NX, NY};
    if (fwrite(hdr, sizeof(int), 2, f) != 2) { fclose(f); return -1; }
    for (int j = 0; j < NY; j++)
        if (fwrite(x + (size_t)j * NX, sizeof(double), NX, f) != NX) { fclose(f); return -1; }
    return fclose(f);
}

static double check_solution_file(const char *path, int n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 1e30;
    int hdr[2];
    double err = 0.0, v;
    if (fread(hdr, sizeof(int), 2, f) != 2 || hdr[0] != NX || hdr[1] != NY) { fclose(f); return 1e30; }
    for (int k = 0; k < n; k++) {
        if (fread(&v, sizeof(double), 1, f) != 1) { fclose(f); return 1e30; }
        double e = fabs(v - exact_solution(k % NX, k / NX));
        if (e > err) err = e;
    }
    fclose(f);
    return err;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char mtx[4096], rhs[4096], sol[4096];
    snprintf(mtx, sizeof mtx, "%s/diffusion.mtx", argv[1]);
    snprintf(rhs, sizeof rhs, "%s/diffusion_rhs.mtx", argv[1]);
    snprintf(sol, sizeof sol, "%s/solution.bin", argv[1]);

    if (write_matrix_market(mtx, rhs) != 0) return 1;
    csr_t A;
    if (read_matrix_market(mtx, &A) != 0) return 1;
    double *b = read_vector_market(rhs, A.n);
    if (!b) { fprintf(stderr, "cannot read rhs\n"); return 1; }
    double *x = malloc(sizeof(double) * A.n);
    double res = 0.0;
    int its = conjugate_gradient(&A, b, x, &res);
    if (write_solution(sol, x, A.n) != 0) { fprintf(stderr, "cannot write solution\n"); return 1; }
    double err = check_solution_file(sol, A.n);
    printf("cg_mtx: n=%d nnz=%d iterations=%d relres=%.3e maxerr=%.3e\n", A.n, A.nnz, its, res, err);
    return (res < 1e-9 && err < 1e-6) ? 0 : 1;
}
