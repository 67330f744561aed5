/* Parallel sample sort of particle records by Morton key through MPI-IO.
 * Ranks write unsorted 16-byte records to a shared file, re-read it through a strided
 * file view (a different decomposition), radix sort locally, pick
 * splitters, exchange with Alltoallv, and write the globally sorted run
 * with collective I/O. Rank 0 then streams the output back to verify order
 * and checksum; each rank logs Z-curve density stats with an ordered write. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPER (240 * BLK)     /* records per rank */
#define BLK 4096             /* records per view block */
#define OVERSAMPLE 64
#define VCHUNK 65536

typedef struct { uint64_t key, payload; } rec;

static int rank, nprocs;

#define check(rc, what) do { int rc_ = (rc); if (rc_ != MPI_SUCCESS) { \
        char msg_[MPI_MAX_ERROR_STRING]; int len_; MPI_Error_string(rc_, msg_, &len_); \
        fprintf(stderr, "rank %d: %s: %s\n", rank, (what), msg_); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* particles in Gaussian clusters; key = 63-bit Morton code of the
 * quantised position, so the sort orders them along a Z-curve */
static void gen_records(rec *r, int n)
{
    uint64_t s = 0x243f6a8885a308d3ULL + 7919ULL * (uint64_t)rank;
    double g[4];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++) {
            s += 0x9e3779b97f4a7c15ULL;
            uint64_t z = s;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            z ^= z >> 31;
            g[k] = ((z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        }
        int cl = (int)(g[3] * 16);
        double rad = sqrt(-2.0 * log(g[0])) * (0.02 + 0.01 * (cl % 4));
        double pos[3] = {0.1 + 0.05 * cl + rad * cos(2 * M_PI * g[1]),
                         0.5 + 0.3 * sin(cl) + rad * sin(2 * M_PI * g[1]),
                         0.5 + 0.3 * cos(1.7 * cl) + rad * (g[2] - 0.5)};
        uint64_t key = 0;
        for (int d = 0; d < 3; d++) {
            double p = pos[d] < 0 ? 0 : pos[d] >= 1 ? 0.9999999 : pos[d];
            uint64_t q = (uint64_t)(p * 2097152.0);      /* 21 bits per axis */
            for (int b = 0; b < 21; b++) key |= ((q >> b) & 1ULL) << (3 * b + d);
        }
        r[i].key = key;
        r[i].payload = ((uint64_t)rank << 48) | (uint64_t)i;
    }
}

static void write_unsorted(const char *path, const rec *r, int n)
{
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open");
    MPI_Offset off = (MPI_Offset)rank * n * sizeof(rec);
    check(MPI_File_write_at_all(fh, off, r, n * (int)sizeof(rec), MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
    check(MPI_File_close(&fh), "close");
}

/* round-robin blocks of BLK records: rank r takes blocks r, r+P, ... */
static void read_strided(const char *path, rec *r, int n)
{
    MPI_File fh;
    MPI_Datatype rt, blocks, filetype;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open");
    MPI_Type_contiguous(sizeof(rec), MPI_BYTE, &rt);
    MPI_Type_commit(&rt);
    MPI_Type_vector(n / BLK, BLK, BLK * nprocs, rt, &blocks);
    MPI_Type_create_resized(blocks, 0, (MPI_Aint)n * nprocs * sizeof(rec), &filetype);
    MPI_Type_commit(&filetype);
    check(MPI_File_set_view(fh, (MPI_Offset)rank * BLK * sizeof(rec), rt, filetype, "native", MPI_INFO_NULL), "view");
    check(MPI_File_read_all(fh, r, n, rt, MPI_STATUS_IGNORE), "read_all");
    MPI_Type_free(&filetype); MPI_Type_free(&blocks); MPI_Type_free(&rt);
    check(MPI_File_close(&fh), "close");
}

static void radix_sort(rec *a, rec *tmp, long n)
{
    long cnt[65536];
    for (int pass = 0; pass < 4; pass++) {
        int sh = pass * 16;
        memset(cnt, 0, sizeof cnt);
        for (long i = 0; i < n; i++) cnt[(a[i].key >> sh) & 0xffff]++;
        long sum = 0;
        for (int b = 0; b < 65536; b++) { long c = cnt[b]; cnt[b] = sum; sum += c; }
        for (long i = 0; i < n; i++) tmp[cnt[(a[i].key >> sh) & 0xffff]++] = a[i];
        memcpy(a, tmp, sizeof(rec) * n);
    }
}

static void choose_splitters(const rec *sorted, int n, uint64_t *split)
{
    uint64_t local[OVERSAMPLE], *all = malloc(sizeof(uint64_t) * OVERSAMPLE * nprocs);
    for (int i = 0; i < OVERSAMPLE; i++) local[i] = sorted[(long)(i + 1) * n / (OVERSAMPLE + 1)].key;
    MPI_Allgather(local, OVERSAMPLE, MPI_UINT64_T, all, OVERSAMPLE, MPI_UINT64_T, MPI_COMM_WORLD);
    /* small insertion sort of the pooled samples */
    int m = OVERSAMPLE * nprocs;
    for (int i = 1; i < m; i++) {
        uint64_t v = all[i];
        int j = i - 1;
        while (j >= 0 && all[j] > v) { all[j + 1] = all[j]; j--; }
        all[j + 1] = v;
    }
    for (int p = 1; p < nprocs; p++) split[p - 1] = all[p * m / nprocs];
    free(all);
}

static rec *exchange(const rec *sorted, int n, const uint64_t *split, long *nout)
{
    int *sc = calloc(nprocs, sizeof(int)), *rc = malloc(sizeof(int) * nprocs);
    int *sd = malloc(sizeof(int) * nprocs), *rd = malloc(sizeof(int) * nprocs);
    int p = 0;
    for (int i = 0; i < n; i++) {
        while (p < nprocs - 1 && sorted[i].key >= split[p]) p++;
        sc[p]++;
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    long tot = 0;
    for (int q = 0; q < nprocs; q++) {
        sd[q] = q ? sd[q - 1] + sc[q - 1] : 0;
        rd[q] = (int)tot;
        tot += rc[q];
    }
    MPI_Datatype rt;
    MPI_Type_contiguous(sizeof(rec), MPI_BYTE, &rt);
    MPI_Type_commit(&rt);
    rec *out = malloc(sizeof(rec) * (tot + 1));
    MPI_Alltoallv(sorted, sc, sd, rt, out, rc, rd, rt, MPI_COMM_WORLD);
    MPI_Type_free(&rt);
    free(sc); free(rc); free(sd); free(rd);
    *nout = tot;
    return out;
}

static void write_sorted(const char *path, const rec *r, long n)
{
    long before = 0;
    MPI_Exscan(&n, &before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) before = 0;
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open");
    check(MPI_File_write_at_all(fh, (MPI_Offset)before * sizeof(rec), r, (int)(n * sizeof(rec)), MPI_BYTE,
                                MPI_STATUS_IGNORE), "write_at_all");
    check(MPI_File_sync(fh), "sync");
    check(MPI_File_close(&fh), "close");
}

/* rank 0 streams the whole output with independent reads */
static int verify_output(const char *path, uint64_t *xsum)
{
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open");
    MPI_Offset size;
    MPI_File_get_size(fh, &size);
    long total = size / sizeof(rec), bad = 0;
    rec *buf = malloc(sizeof(rec) * VCHUNK);
    uint64_t prev = 0;
    *xsum = 0;
    for (long i = 0; i < total; i += VCHUNK) {
        int cnt = total - i < VCHUNK ? (int)(total - i) : VCHUNK;
        check(MPI_File_read_at(fh, (MPI_Offset)i * sizeof(rec), buf, cnt * (int)sizeof(rec), MPI_BYTE,
                               MPI_STATUS_IGNORE), "read_at");
        for (int j = 0; j < cnt; j++) {
            if (buf[j].key < prev) bad++;
            prev = buf[j].key;
            *xsum ^= buf[j].payload * 0x100000001b3ULL + buf[j].key;
        }
    }
    free(buf);
    check(MPI_File_close(&fh), "close");
    return (int)bad + (total != (long)NPER * nprocs);
}

/* local density along the Z-curve: decode each key, mean distance to the
 * next WIN records; one summary line per rank via an ordered write */
#define WIN 24
static void zcurve_density(const char *path, const rec *r, long n, double secs)
{
    float (*xyz)[3] = malloc(sizeof(float[3]) * (n + 1));
    long hist[16] = {0};
    if (!xyz) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            uint64_t q = 0;
            for (int b = 0; b < 21; b++) q |= ((r[i].key >> (3 * b + d)) & 1ULL) << b;
            xyz[i][d] = (float)(q / 2097152.0);
        }
    double dsum = 0;
    for (long i = 0; i + WIN < n; i++) {
        double acc = 0;
        for (int k = 1; k <= WIN; k++) {
            double dx = xyz[i + k][0] - xyz[i][0], dy = xyz[i + k][1] - xyz[i][1], dz = xyz[i + k][2] - xyz[i][2];
            acc += sqrt(dx * dx + dy * dy + dz * dz);
        }
        acc /= WIN;
        dsum += acc;
        int h = acc > 0 ? (int)(-log2(acc)) : 15;
        hist[h < 0 ? 0 : h > 15 ? 15 : h]++;
    }
    free(xyz);
    char line[512];
    int len = snprintf(line, sizeof line, "rank %d records %ld sort %.3fs mean_zdist %.3e hist", rank, n, secs,
                       dsum / (n > WIN ? n - WIN : 1));
    for (int h = 0; h < 16; h++) len += snprintf(line + len, sizeof line - len, " %ld", hist[h]);
    line[len++] = '\n';
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open");
    check(MPI_File_set_size(fh, 0), "set_size");
    check(MPI_File_write_ordered(fh, line, len, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
    check(MPI_File_close(&fh), "close");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) { if (!rank) fprintf(stderr, "usage: %s DIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    char pin[4096], pout[4096], plog[4096];
    if (rank == 0) mkdir(argv[1], 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(pin, sizeof pin, "%s/unsorted.rec", argv[1]);
    snprintf(pout, sizeof pout, "%s/sorted.rec", argv[1]);
    snprintf(plog, sizeof plog, "%s/ranks.log", argv[1]);
    rec *a = malloc(sizeof(rec) * NPER), *tmp = malloc(sizeof(rec) * NPER);
    if (!a || !tmp) MPI_Abort(MPI_COMM_WORLD, 1);
    uint64_t in_sum = 0, tot_in = 0;
    gen_records(a, NPER);
    for (int i = 0; i < NPER; i++) in_sum ^= a[i].payload * 0x100000001b3ULL + a[i].key;
    MPI_Reduce(&in_sum, &tot_in, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
    write_unsorted(pin, a, NPER);
    read_strided(pin, a, NPER);
    double t0 = MPI_Wtime();
    radix_sort(a, tmp, NPER);
    uint64_t *split = malloc(sizeof(uint64_t) * nprocs);
    choose_splitters(a, NPER, split);
    long n;
    rec *mine = exchange(a, NPER, split, &n);
    free(a);
    rec *tmp2 = realloc(tmp, sizeof(rec) * (n + 1));
    if (!tmp2) MPI_Abort(MPI_COMM_WORLD, 1);
    radix_sort(mine, tmp2, n);
    double t1 = MPI_Wtime() - t0;
    write_sorted(pout, mine, n);
    zcurve_density(plog, mine, n, t1);
    int rcode = 0;
    if (rank == 0) {
        uint64_t out_sum;
        int bad = verify_output(pout, &out_sum);
        rcode = bad || out_sum != tot_in;
        printf("samplesort: %d ranks x %d records, order errors %d, checksum %s\n", nprocs, NPER, bad,
               out_sum == tot_in ? "ok" : "MISMATCH");
    }
    MPI_Bcast(&rcode, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(mine); free(tmp2); free(split);
    MPI_Finalize();
    return rcode;
}
