/* Overdamped Langevin particles in a 2-D double-well potential, split across MPI ranks.
 * Each epoch every rank appends a text record to a shared log with MPI_File_write_ordered;
 * positions are checkpointed collectively, then re-read and checked against the log. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <errno.h>
#include <sys/stat.h>

#define NLOCAL      40000
#define NEPOCHS     400
#define SUBSTEPS    2
#define CKPT_EVERY  40
#define NBINS       48
#define XMAX        2.4

typedef struct { double x, y; } particle_t;

static uint64_t rng_s[2];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static double uniform01(void)
{
    uint64_t s0 = rng_s[0], s1 = rng_s[1], r = s0 + s1;
    s1 ^= s0;
    rng_s[0] = rotl(s0, 55) ^ s1 ^ (s1 << 14);
    rng_s[1] = rotl(s1, 36);
    return ((r >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void gauss_pair(double *g1, double *g2)
{
    double r = sqrt(-2.0 * log(uniform01())), th = 2.0 * M_PI * uniform01();
    *g1 = r * cos(th);
    *g2 = r * sin(th);
}

static void abort_msg(const char *msg, int code)
{
    fprintf(stderr, "mpi_ordered_log: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, code);
}

static void init_particles(particle_t *p, int rank)
{
    rng_s[0] = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(rank + 1) * 0xbf58476d1ce4e5b9ULL;
    rng_s[1] = 0x94d049bb133111ebULL + (uint64_t)rank;
    for (int i = 0; i < NLOCAL; i++) {
        p[i].x = -1.0 + 0.1 * (uniform01() - 0.5);
        p[i].y = 0.2 * (uniform01() - 0.5);
    }
}

/* V(x,y) = (x^2-1)^2 + 0.5 y^2 with a time-dependent tilt to drive hopping. */
static int advance(particle_t *p, double t, double dt, double temp)
{
    int crossings = 0;
    double tilt = 0.8 * sin(4.0 * t);
    double amp = sqrt(2.0 * temp * dt);
    for (int i = 0; i < NLOCAL; i++) {
        double x = p[i].x, y = p[i].y;
        for (int s = 0; s < SUBSTEPS; s++) {
            double g1, g2;
            gauss_pair(&g1, &g2);
            double fx = -4.0 * x * (x * x - 1.0) + tilt;
            double fy = -y;
            double xn = x + dt * fx + amp * g1;
            if ((xn > 0.0) != (x > 0.0)) crossings++;
            x = xn;
            y += dt * fy + amp * g2;
        }
        p[i].x = x;
        p[i].y = y;
    }
    return crossings;
}

static void local_histogram(const particle_t *p, long *hist, double *mean_x, double *frac_right)
{
    memset(hist, 0, sizeof(long) * NBINS);
    double sx = 0.0;
    long right = 0;
    for (int i = 0; i < NLOCAL; i++) {
        double x = p[i].x;
        int b = (int)((x + XMAX) / (2.0 * XMAX) * NBINS);
        if (b < 0) b = 0;
        if (b >= NBINS) b = NBINS - 1;
        hist[b]++;
        sx += x;
        if (x > 0.0) right++;
    }
    *mean_x = sx / NLOCAL;
    *frac_right = (double)right / NLOCAL;
}

static int format_record(char *buf, size_t cap, int epoch, int rank, double t, double mx,
                         double fr, int cross, const long *hist)
{
    int n = snprintf(buf, cap, "epoch %5d rank %d t %9.3f mean_x %+.6f right %.5f cross %6d hist",
                     epoch, rank, t, mx, fr, cross);
    for (int b = 0; b < NBINS; b++) n += snprintf(buf + n, cap - n, " %ld", hist[b]);
    n += snprintf(buf + n, cap - n, "\n");
    return n;
}

static void write_checkpoint(const char *dir, int epoch, const particle_t *p, int rank)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ckpt_%04d.bin", dir, epoch);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        abort_msg("cannot open checkpoint for writing", 1);
    MPI_File_set_size(fh, 0);
    MPI_Offset off = (MPI_Offset)rank * NLOCAL * sizeof(particle_t);
    MPI_File_write_at_all(fh, off, p, NLOCAL * 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
}

static double verify_checkpoints(const char *dir, int rank, int nranks, int *nfiles)
{
    particle_t *q = malloc(sizeof(particle_t) * NLOCAL);
    double drift = 0.0;
    *nfiles = 0;
    for (int e = CKPT_EVERY; e <= NEPOCHS; e += CKPT_EVERY) {
        char path[600];
        snprintf(path, sizeof path, "%s/ckpt_%04d.bin", dir, e);
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
            abort_msg("cannot open checkpoint for reading", 1);
        MPI_Offset size;
        MPI_File_get_size(fh, &size);
        if (size != (MPI_Offset)nranks * NLOCAL * sizeof(particle_t))
            abort_msg("checkpoint has wrong size", 1);
        MPI_Offset off = (MPI_Offset)rank * NLOCAL * sizeof(particle_t);
        MPI_File_read_at_all(fh, off, q, NLOCAL * 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
        double s = 0.0;
        for (int i = 0; i < NLOCAL; i++) s += q[i].x;
        double g;
        s /= NLOCAL;
        MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        drift += g / nranks;
        (*nfiles)++;
    }
    free(q);
    return drift;
}

static long count_log_lines(const char *path)
{
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        abort_msg("cannot reopen log", 1);
    MPI_Offset size, off = 0;
    MPI_File_get_size(fh, &size);
    char *buf = malloc(1 << 16);
    long lines = 0;
    while (off < size) {
        int want = (size - off) < (1 << 16) ? (int)(size - off) : (1 << 16);
        MPI_Status st;
        int got;
        MPI_File_read_at(fh, off, buf, want, MPI_CHAR, &st);
        MPI_Get_count(&st, MPI_CHAR, &got);
        if (got <= 0) break;
        for (int i = 0; i < got; i++) lines += buf[i] == '\n';
        off += got;
    }
    free(buf);
    MPI_File_close(&fh);
    return lines;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const char *dir = argv[1];
    if (rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST) abort_msg("cannot create output directory", 1);
    MPI_Barrier(MPI_COMM_WORLD);

    char logpath[600];
    snprintf(logpath, sizeof logpath, "%s/epochs.log", dir);
    MPI_File logfh;
    if (MPI_File_open(MPI_COMM_WORLD, logpath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &logfh) != MPI_SUCCESS)
        abort_msg("cannot open shared log", 1);
    MPI_File_set_size(logfh, 0);

    particle_t *p = malloc(sizeof(particle_t) * NLOCAL);
    init_particles(p, rank);
    long hist[NBINS], ghist[NBINS];
    char rec[1024];
    double dt = 2e-3, temp = 0.35, t = 0.0;
    long total_cross = 0;
    for (int e = 1; e <= NEPOCHS; e++) {
        int cross = advance(p, t, dt, temp);
        t += dt * SUBSTEPS;
        double mx, fr;
        local_histogram(p, hist, &mx, &fr);
        MPI_Allreduce(hist, ghist, NBINS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        int n = format_record(rec, sizeof rec, e, rank, t, mx, fr, cross, hist);
        MPI_File_write_ordered(logfh, rec, n, MPI_CHAR, MPI_STATUS_IGNORE);
        total_cross += cross;
        if (e % CKPT_EVERY == 0) write_checkpoint(dir, e, p, rank);
    }
    MPI_File_close(&logfh);

    int nfiles;
    double drift = verify_checkpoints(dir, rank, nranks, &nfiles);
    long gcross;
    MPI_Reduce(&total_cross, &gcross, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long lines = count_log_lines(logpath);
        if (lines != (long)NEPOCHS * nranks) abort_msg("log line count mismatch", 1);
        char spath[600];
        snprintf(spath, sizeof spath, "%s/final_hist.txt", dir);
        FILE *fp = fopen(spath, "w");
        if (!fp) abort_msg("cannot write final histogram", 1);
        fprintf(fp, "# ranks %d particles %ld crossings %ld ckpts %d mean_ckpt_x %.6f\n",
                nranks, (long)NLOCAL * nranks, gcross, nfiles, drift / nfiles);
        for (int b = 0; b < NBINS; b++)
            fprintf(fp, "%9.5f %ld\n", -XMAX + (b + 0.5) * 2.0 * XMAX / NBINS, ghist[b]);
        fclose(fp);
        printf("%ld log records, %d checkpoints, %ld crossings\n", lines, nfiles, gcross);
    }
    free(p);
    MPI_Finalize();
    return 0;
}
