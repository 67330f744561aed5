/* Voxelizes a random set of spheres into a 3D occupancy volume stored as a
 * sparse file (empty bricks are left as holes), then walks the data extents
 * with SEEK_DATA/SEEK_HOLE to compute per-brick mass and a surface estimate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define GRID 384            /* voxels per axis */
#define BRICK 32            /* voxels per brick axis */
#define NB (GRID / BRICK)   /* bricks per axis */
#define BRICK_BYTES (BRICK * BRICK * BRICK)
#define NSPHERES 220
#define HEADER_BYTES 4096
#define NPASSES 6

typedef struct {
    double cx, cy, cz, r;
    uint8_t density;
} sphere_t;

typedef struct {
    int bi, bj, bk;
    long mass;
    long surface;
} brick_stat_t;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "sparse_voxel_holes: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static void make_spheres(sphere_t *s, int n)
{
    /* spheres cluster in a few regions so that many bricks stay empty */
    const double centers[3][3] = {{0.25, 0.3, 0.3}, {0.7, 0.65, 0.4}, {0.45, 0.5, 0.8}};
    for (int i = 0; i < n; i++) {
        const double *c = centers[i % 3];
        s[i].cx = GRID * (c[0] + 0.3 * (urand() - 0.5));
        s[i].cy = GRID * (c[1] + 0.3 * (urand() - 0.5));
        s[i].cz = GRID * (c[2] + 0.3 * (urand() - 0.5));
        s[i].r = GRID * (0.02 + 0.06 * urand());
        s[i].density = (uint8_t)(40 + (int)(200 * urand()));
    }
}

/* Fill one brick; returns number of non-zero voxels. */
static long voxelize_brick(const sphere_t *s, int n, int bi, int bj, int bk,
                           uint8_t *buf)
{
    long nz = 0;
    double x0 = bi * BRICK, y0 = bj * BRICK, z0 = bk * BRICK;
    int active[NSPHERES], na = 0;

    for (int i = 0; i < n; i++) {
        double dx = fmax(fmax(x0 - s[i].cx, s[i].cx - (x0 + BRICK)), 0.0);
        double dy = fmax(fmax(y0 - s[i].cy, s[i].cy - (y0 + BRICK)), 0.0);
        double dz = fmax(fmax(z0 - s[i].cz, s[i].cz - (z0 + BRICK)), 0.0);
        if (dx * dx + dy * dy + dz * dz <= s[i].r * s[i].r)
            active[na++] = i;
    }
    memset(buf, 0, BRICK_BYTES);
    if (na == 0)
        return 0;

    for (int k = 0; k < BRICK; k++)
        for (int j = 0; j < BRICK; j++)
            for (int i = 0; i < BRICK; i++) {
                double x = x0 + i + 0.5, y = y0 + j + 0.5, z = z0 + k + 0.5;
                int v = 0;
                for (int a = 0; a < na; a++) {
                    const sphere_t *sp = &s[active[a]];
                    double d2 = (x - sp->cx) * (x - sp->cx) +
                                (y - sp->cy) * (y - sp->cy) +
                                (z - sp->cz) * (z - sp->cz);
                    if (d2 < sp->r * sp->r) {
                        double fall = 1.0 - 0.5 * sqrt(d2) / sp->r;
                        v += (int)(sp->density * fall);
                    }
                }
                if (v > 255)
                    v = 255;
                buf[(k * BRICK + j) * BRICK + i] = (uint8_t)v;
                nz += (v != 0);
            }
    return nz;
}

static off_t brick_offset(int bi, int bj, int bk)
{
    return HEADER_BYTES + (off_t)((bk * NB + bj) * NB + bi) * BRICK_BYTES;
}

static long write_sparse_volume(const char *path, const sphere_t *s, int n)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0)
        die("open", path);

    char header[HEADER_BYTES];
    memset(header, 0, sizeof header);
    snprintf(header, sizeof header,
             "VOXVOL v1\ngrid %d\nbrick %d\nlayout brick-major zyx\n", GRID, BRICK);
    if (pwrite(fd, header, HEADER_BYTES, 0) != HEADER_BYTES)
        die("pwrite header", path);

    uint8_t *buf = malloc(BRICK_BYTES);
    long written = 0;
    for (int bk = 0; bk < NB; bk++)
        for (int bj = 0; bj < NB; bj++)
            for (int bi = 0; bi < NB; bi++) {
                long nz = voxelize_brick(s, n, bi, bj, bk, buf);
                if (nz == 0)
                    continue;   /* leave a hole */
                if (pwrite(fd, buf, BRICK_BYTES, brick_offset(bi, bj, bk)) != BRICK_BYTES)
                    die("pwrite brick", path);
                written++;
            }
    /* make sure the logical size covers the whole volume */
    if (ftruncate(fd, brick_offset(0, 0, NB)) != 0)
        die("ftruncate", path);
    if (fsync(fd) != 0)
        die("fsync", path);
    close(fd);
    free(buf);
    return written;
}

static long surface_count(const uint8_t *b)
{
    long s = 0;
    for (int k = 1; k < BRICK - 1; k++)
        for (int j = 1; j < BRICK - 1; j++)
            for (int i = 1; i < BRICK - 1; i++) {
                int c = (k * BRICK + j) * BRICK + i;
                if (!b[c])
                    continue;
                if (!b[c - 1] || !b[c + 1] || !b[c - BRICK] || !b[c + BRICK] ||
                    !b[c - BRICK * BRICK] || !b[c + BRICK * BRICK])
                    s++;
            }
    return s;
}

/* Walk data extents and analyse every brick found inside them. */
static int scan_extents(const char *path, brick_stat_t *stats, int maxstats,
                        long *n_extents)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die("open", path);
    struct stat st;
    if (fstat(fd, &st) != 0)
        die("fstat", path);

    uint8_t *buf = malloc(BRICK_BYTES);
    int nstat = 0;
    off_t pos = HEADER_BYTES;
    *n_extents = 0;
    while (pos < st.st_size) {
        off_t data = lseek(fd, pos, SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO)
                break;
            die("lseek SEEK_DATA", path);
        }
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0)
            die("lseek SEEK_HOLE", path);
        (*n_extents)++;
        /* align to brick boundaries */
        off_t first = (data - HEADER_BYTES) / BRICK_BYTES;
        off_t last = (hole - HEADER_BYTES + BRICK_BYTES - 1) / BRICK_BYTES;
        for (off_t b = first; b < last; b++) {
            off_t off = HEADER_BYTES + b * BRICK_BYTES;
            if (pread(fd, buf, BRICK_BYTES, off) != BRICK_BYTES)
                die("pread", path);
            long mass = 0;
            for (int i = 0; i < BRICK_BYTES; i++)
                mass += buf[i];
            if (mass == 0 || nstat >= maxstats)
                continue;
            brick_stat_t *bs = &stats[nstat++];
            bs->bi = (int)(b % NB);
            bs->bj = (int)((b / NB) % NB);
            bs->bk = (int)(b / (NB * NB));
            bs->mass = mass;
            bs->surface = surface_count(buf);
        }
        pos = hole;
    }
    free(buf);
    close(fd);
    return nstat;
}

/* Copy bricks whose mean density reaches min_mean into a second sparse file. */
static long compact_volume(const char *src, const char *dst, const brick_stat_t *st,
                           int n, double min_mean)
{
    int in = open(src, O_RDONLY);
    if (in < 0)
        die("open", src);
    int out = open(dst, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (out < 0)
        die("open", dst);
    char header[HEADER_BYTES];
    if (pread(in, header, HEADER_BYTES, 0) != HEADER_BYTES)
        die("pread header", src);
    if (pwrite(out, header, HEADER_BYTES, 0) != HEADER_BYTES)
        die("pwrite header", dst);

    uint8_t *buf = malloc(BRICK_BYTES);
    long kept = 0;
    for (int i = 0; i < n; i++) {
        if ((double)st[i].mass / BRICK_BYTES < min_mean)
            continue;
        off_t off = brick_offset(st[i].bi, st[i].bj, st[i].bk);
        if (pread(in, buf, BRICK_BYTES, off) != BRICK_BYTES)
            die("pread", src);
        if (pwrite(out, buf, BRICK_BYTES, off) != BRICK_BYTES)
            die("pwrite", dst);
        kept++;
    }
    if (ftruncate(out, brick_offset(0, 0, NB)) != 0)
        die("ftruncate", dst);
    close(in);
    close(out);
    free(buf);
    return kept;
}

static void write_report(const char *path, const brick_stat_t *st, int n,
                         long extents, long kept, const char *vol)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("fopen", path);
    struct stat sb;
    if (stat(vol, &sb) != 0)
        die("stat", vol);
    fprintf(f, "# volume %s logical %lld bytes, allocated %lld bytes\n", vol,
            (long long)sb.st_size, (long long)sb.st_blocks * 512);
    fprintf(f, "# data extents %ld, occupied bricks %d, kept after threshold %ld\n",
            extents, n, kept);
    fprintf(f, "bi,bj,bk,mass,mean,surface\n");
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d,%d,%d,%ld,%.3f,%ld\n", st[i].bi, st[i].bj, st[i].bk,
                st[i].mass, (double)st[i].mass / BRICK_BYTES, st[i].surface);
        total += st[i].mass;
    }
    fprintf(f, "# total mass %.0f\n", total);
    if (fclose(f) != 0)
        die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST)
        die("mkdir", argv[1]);

    char vol[4096], thr[4096], rep[4096];
    sphere_t spheres[NSPHERES];
    brick_stat_t *stats = malloc(sizeof(brick_stat_t) * NB * NB * NB);
    long extents = 0, kept = 0;
    int nstat = 0;

    for (int pass = 0; pass < NPASSES; pass++) {
        snprintf(vol, sizeof vol, "%s/volume_%d.vox", argv[1], pass);
        snprintf(thr, sizeof thr, "%s/volume_%d_thr.vox", argv[1], pass);
        snprintf(rep, sizeof rep, "%s/bricks_%d.csv", argv[1], pass);
        make_spheres(spheres, NSPHERES);
        long w = write_sparse_volume(vol, spheres, NSPHERES);
        nstat = scan_extents(vol, stats, NB * NB * NB, &extents);
        if (nstat != w) {
            fprintf(stderr, "sparse_voxel_holes: pass %d wrote %ld bricks but found %d\n",
                    pass, w, nstat);
            return 1;
        }
        kept = compact_volume(vol, thr, stats, nstat, 20.0);
        write_report(rep, stats, nstat, extents, kept, vol);
        printf("pass %d: %ld bricks written, %ld extents, %ld kept\n", pass, w,
               extents, kept);
    }
    free(stats);
    return 0;
}
