/*
 * Out-of-core transpose of a dense N x N double matrix stored row-major in a
 * file.  The matrix is generated band by band, then transposed tile by tile:
 * each T x T tile is gathered with one pread per tile row, transposed in
 * memory, and scattered to the mirrored tile position of the output file with
 * one pwrite per row.  Finally a random sample of entries and a few complete
 * rows of the output are checked against the generating formula.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N       4096
#define TILE    256
#define NSAMPLE 4000

static double element(long i, long j)
{
    return (double)i * 1.0e4 + (double)j + 1.0e-3 * (double)((i * 31 + j * 17) % 1000);
}

static void xfer_exact(int fd, void *buf, size_t n, off_t off, int writing)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = writing ? pwrite(fd, p, n, off) : pread(fd, p, n, off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            perror(writing ? "pwrite" : "pread");
            exit(1);
        }
        p += k; n -= (size_t)k; off += k;
    }
}

static void create_matrix(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    double *band = malloc(sizeof(double) * TILE * N);
    for (long r0 = 0; r0 < N; r0 += TILE) {
        for (long i = 0; i < TILE; i++)
            for (long j = 0; j < N; j++) band[i * N + j] = element(r0 + i, j);
        xfer_exact(fd, band, sizeof(double) * TILE * N, (off_t)(r0 * N) * (off_t)sizeof(double), 1);
    }
    free(band);
    if (close(fd) != 0) { perror("close"); exit(1); }
}

static void read_tile(int fd, double *tile, long bi, long bj)
{
    for (long r = 0; r < TILE; r++) {
        off_t off = ((off_t)(bi * TILE + r) * N + bj * TILE) * (off_t)sizeof(double);
        xfer_exact(fd, tile + r * TILE, sizeof(double) * TILE, off, 0);
    }
}

static void write_tile(int fd, const double *tile, long bi, long bj)
{
    for (long r = 0; r < TILE; r++) {
        off_t off = ((off_t)(bi * TILE + r) * N + bj * TILE) * (off_t)sizeof(double);
        xfer_exact(fd, (void *)(tile + r * TILE), sizeof(double) * TILE, off, 1);
    }
}

static void transpose_tile(const double *in, double *out)
{
    const int b = 32;
    for (int ii = 0; ii < TILE; ii += b)
        for (int jj = 0; jj < TILE; jj += b)
            for (int i = ii; i < ii + b; i++)
                for (int j = jj; j < jj + b; j++)
                    out[j * TILE + i] = in[i * TILE + j];
}

static void transpose_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY);
    int out = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) { perror("open for transpose"); exit(1); }
    if (ftruncate(out, (off_t)N * N * (off_t)sizeof(double)) != 0) { perror("ftruncate"); exit(1); }
    double *a = malloc(sizeof(double) * TILE * TILE);
    double *t = malloc(sizeof(double) * TILE * TILE);
    const long nb = N / TILE;
    for (long bi = 0; bi < nb; bi++)
        for (long bj = 0; bj < nb; bj++) {
            read_tile(in, a, bi, bj);
            transpose_tile(a, t);
            write_tile(out, t, bj, bi);
        }
    free(a);
    free(t);
    close(in);
    if (fsync(out) != 0) perror("fsync");
    if (close(out) != 0) { perror("close"); exit(1); }
}

static long verify_transpose(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    long bad = 0;
    uint64_t s = 12345;
    for (int k = 0; k < NSAMPLE; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        long i = (long)((s >> 33) % N), j = (long)((s >> 13) % N);
        double v;
        xfer_exact(fd, &v, sizeof v, ((off_t)i * N + j) * (off_t)sizeof(double), 0);
        if (v != element(j, i)) bad++;
    }
    double *row = malloc(sizeof(double) * N);
    const long rows[4] = {0, TILE - 1, N / 2 + 3, N - 1};
    for (int r = 0; r < 4; r++) {
        xfer_exact(fd, row, sizeof(double) * N, (off_t)rows[r] * N * (off_t)sizeof(double), 0);
        for (long j = 0; j < N; j++)
            if (row[j] != element(j, rows[r])) bad++;
    }
    free(row);
    close(fd);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char a[4096], at[4096];
    snprintf(a, sizeof a, "%s/A.f64", argv[1]);
    snprintf(at, sizeof at, "%s/A_transposed.f64", argv[1]);

    create_matrix(a);
    transpose_file(a, at);
    long bad = verify_transpose(at);
    printf("transposed %d x %d doubles in %d x %d tiles; %ld mismatches\n", N, N, TILE, TILE, bad);
    return bad ? 1 : 0;
}
