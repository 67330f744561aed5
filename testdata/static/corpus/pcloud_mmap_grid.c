/*
 * pcloud_mmap_grid: a synthetic lidar-like point cloud (x, y, z, intensity as
 * float32) is written with write() in fixed-size chunks, then mapped read-only
 * with mmap and analysed in place: voxel occupancy, per-cell height map,
 * covariance and principal axes (Jacobi eigen-solver).  The height map is
 * written as an ASCII PGM and a short summary with stdio; sums computed while
 * generating are compared with those obtained from the mapping.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_POINTS (4096 * 1024)
#define CHUNK_POINTS 4096
#define VOX 48
#define MAP_W 160
#define MAP_H 120

struct point {
    float x, y, z, intensity;
};

struct gen_sums {
    double sx, sy, sz, si;
};

#define DIE(what)                                                                 \
    do {                                                                          \
        fprintf(stderr, "pcloud_mmap_grid: %s: %s\n", what, strerror(errno));    \
        exit(1);                                                                  \
    } while (0)

static float unitf(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) * (1.0 / 16777216.0));
}

/* Terrain with a tilted plane, rolling hills and a few box-shaped "buildings". */
static float terrain_height(float x, float y)
{
    float h = 0.15f * x + 0.05f * y + 2.0f * sinf(0.11f * x) * cosf(0.07f * y);
    if (fmodf(x, 40.f) > 28.f && fmodf(y, 30.f) > 18.f) h += 9.0f;
    return h;
}

static void generate_cloud(const char *path, struct gen_sums *g)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) DIE("open cloud");
    struct point *chunk = malloc(sizeof(struct point) * CHUNK_POINTS);
    if (!chunk) DIE("malloc");
    uint32_t s = 20240607u;
    memset(g, 0, sizeof *g);
    for (long base = 0; base < N_POINTS; base += CHUNK_POINTS) {
        int n = (int)((N_POINTS - base) < CHUNK_POINTS ? (N_POINTS - base) : CHUNK_POINTS);
        for (int k = 0; k < n; k++) {
            struct point *p = &chunk[k];
            p->x = 200.f * unitf(&s);
            p->y = 150.f * unitf(&s);
            p->z = terrain_height(p->x, p->y) + 0.3f * (unitf(&s) - 0.5f);
            p->intensity = 0.2f + 0.8f * unitf(&s) * (p->z > 8.f ? 1.0f : 0.5f);
            g->sx += p->x;
            g->sy += p->y;
            g->sz += p->z;
            g->si += p->intensity;
        }
        size_t bytes = sizeof(struct point) * (size_t)n;
        if (write(fd, chunk, bytes) != (ssize_t)bytes) DIE("write cloud chunk");
    }
    free(chunk);
    if (close(fd) != 0) DIE("close cloud");
}

static const struct point *map_cloud(const char *path, size_t *count, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) DIE("open cloud for mmap");
    struct stat st;
    if (fstat(fd, &st) != 0) DIE("fstat");
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) DIE("mmap");
    close(fd);
    posix_madvise(m, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
    *len = (size_t)st.st_size;
    *count = (size_t)st.st_size / sizeof(struct point);
    return (const struct point *)m;
}

static long voxel_occupancy(const struct point *p, size_t n, const float lo[3], const float hi[3],
                            uint32_t *vox)
{
    memset(vox, 0, sizeof(uint32_t) * VOX * VOX * VOX);
    float sc[3];
    for (int d = 0; d < 3; d++) sc[d] = (float)VOX / (hi[d] - lo[d] + 1e-3f);
    for (size_t i = 0; i < n; i++) {
        int a = (int)((p[i].x - lo[0]) * sc[0]);
        int b = (int)((p[i].y - lo[1]) * sc[1]);
        int c = (int)((p[i].z - lo[2]) * sc[2]);
        vox[((size_t)a * VOX + b) * VOX + c]++;
    }
    long occupied = 0;
    for (size_t k = 0; k < (size_t)VOX * VOX * VOX; k++) occupied += vox[k] > 0;
    return occupied;
}

static void height_map(const struct point *p, size_t n, const float lo[3], const float hi[3],
                       float *zmax)
{
    for (int k = 0; k < MAP_W * MAP_H; k++) zmax[k] = -INFINITY;
    float sx = (float)MAP_W / (hi[0] - lo[0] + 1e-3f), sy = (float)MAP_H / (hi[1] - lo[1] + 1e-3f);
    for (size_t i = 0; i < n; i++) {
        int c = (int)((p[i].x - lo[0]) * sx), r = (int)((p[i].y - lo[1]) * sy);
        float *cell = &zmax[r * MAP_W + c];
        if (p[i].z > *cell) *cell = p[i].z;
    }
}

/* Two passes: lowest return per cell, then points well above it ("objects"). */
static long classify_above_ground(const struct point *p, size_t n, const float lo[3], const float hi[3],
                                  float threshold, double *mean_intensity)
{
    static float zmin[MAP_W * MAP_H];
    for (int k = 0; k < MAP_W * MAP_H; k++) zmin[k] = INFINITY;
    float sx = (float)MAP_W / (hi[0] - lo[0] + 1e-3f), sy = (float)MAP_H / (hi[1] - lo[1] + 1e-3f);
    for (size_t i = 0; i < n; i++) {
        int k = (int)((p[i].y - lo[1]) * sy) * MAP_W + (int)((p[i].x - lo[0]) * sx);
        if (p[i].z < zmin[k]) zmin[k] = p[i].z;
    }
    long above = 0;
    double si = 0.0;
    for (size_t i = 0; i < n; i++) {
        int k = (int)((p[i].y - lo[1]) * sy) * MAP_W + (int)((p[i].x - lo[0]) * sx);
        if (p[i].z - zmin[k] > threshold) {
            above++;
            si += p[i].intensity;
        }
    }
    *mean_intensity = above ? si / (double)above : 0.0;
    return above;
}

/* One sweep over the mapping: bounding box, means and covariance. */
static void bounds_and_moments(const struct point *p, size_t n, float lo[3], float hi[3], double mean[4],
                               double cov[3][3])
{
    double s[4] = {0, 0, 0, 0}, q[3][3] = {{0}};
    for (int d = 0; d < 3; d++) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++) {
        const float *v = &p[i].x;
        for (int d = 0; d < 3; d++) {
            if (v[d] < lo[d]) lo[d] = v[d];
            if (v[d] > hi[d]) hi[d] = v[d];
        }
        for (int a = 0; a < 4; a++) s[a] += v[a];
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++) q[a][b] += (double)v[a] * v[b];
    }
    for (int a = 0; a < 4; a++) mean[a] = s[a] / (double)n;
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) cov[a][b] = cov[b][a] = q[a][b] / (double)n - mean[a] * mean[b];
}

/* Cyclic Jacobi rotations for a symmetric 3x3 matrix. */
static void jacobi_eigen3(double A[3][3], double evals[3])
{
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];
        if (off < 1e-22) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (fabs(A[p][q]) < 1e-300) continue;
                double theta = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; k++) {
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq;
                    A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk;
                    A[q][k] = s * apk + c * aqk;
                }
            }
    }
    for (int k = 0; k < 3; k++) evals[k] = A[k][k];
}

static void write_pgm(const char *path, const float *zmax, float zlo, float zhi)
{
    FILE *f = fopen(path, "w");
    if (!f) DIE("fopen pgm");
    fprintf(f, "P2\n%d %d\n255\n", MAP_W, MAP_H);
    for (int r = 0; r < MAP_H; r++) {
        for (int c = 0; c < MAP_W; c++) {
            float z = zmax[r * MAP_W + c];
            int g = isfinite(z) ? (int)(255.f * (z - zlo) / (zhi - zlo + 1e-6f)) : 0;
            fprintf(f, "%d%c", g < 0 ? 0 : (g > 255 ? 255 : g), c + 1 == MAP_W ? '\n' : ' ');
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) DIE("mkdir");
    char p_cloud[4096], p_pgm[4096], p_sum[4096];
    snprintf(p_cloud, sizeof p_cloud, "%s/cloud.xyzi", argv[1]);
    snprintf(p_pgm, sizeof p_pgm, "%s/heightmap.pgm", argv[1]);
    snprintf(p_sum, sizeof p_sum, "%s/cloud_summary.txt", argv[1]);

    struct gen_sums g;
    generate_cloud(p_cloud, &g);

    size_t n, len;
    const struct point *pts = map_cloud(p_cloud, &n, &len);
    float lo[3], hi[3];
    double mean[4], cov[3][3], ev[3];
    bounds_and_moments(pts, n, lo, hi, mean, cov);
    uint32_t *vox = malloc(sizeof(uint32_t) * VOX * VOX * VOX);
    float *zmax = malloc(sizeof(float) * MAP_W * MAP_H);
    if (!vox || !zmax) DIE("malloc");
    long occupied = voxel_occupancy(pts, n, lo, hi, vox);
    height_map(pts, n, lo, hi, zmax);
    double obj_intensity;
    long above = classify_above_ground(pts, n, lo, hi, 2.0f, &obj_intensity);
    double trace_before = cov[0][0] + cov[1][1] + cov[2][2];
    jacobi_eigen3(cov, ev);
    munmap((void *)pts, len);

    write_pgm(p_pgm, zmax, lo[2], hi[2]);
    FILE *f = fopen(p_sum, "w");
    if (!f) DIE("fopen summary");
    fprintf(f, "points %zu bytes %zu\n", n, len);
    fprintf(f, "bounds x [%.3f %.3f] y [%.3f %.3f] z [%.3f %.3f]\n", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
    fprintf(f, "mean %.5f %.5f %.5f intensity %.5f\n", mean[0], mean[1], mean[2], mean[3]);
    fprintf(f, "principal variances %.5f %.5f %.5f\n", ev[0], ev[1], ev[2]);
    fprintf(f, "occupied voxels %ld of %d\n", occupied, VOX * VOX * VOX);
    fprintf(f, "above-ground points %ld mean intensity %.5f\n", above, obj_intensity);
    fclose(f);

    double dn = (double)N_POINTS;
    int ok = n == (size_t)N_POINTS && fabs(mean[0] - g.sx / dn) < 1e-6 * fabs(mean[0]) + 1e-9 &&
             fabs(mean[1] - g.sy / dn) < 1e-6 * fabs(mean[1]) + 1e-9 &&
             fabs(mean[2] - g.sz / dn) < 1e-6 * fabs(mean[2]) + 1e-9 &&
             fabs(mean[3] - g.si / dn) < 1e-6 * fabs(mean[3]) + 1e-9 && occupied > 0 && above > 0 &&
             fabs(ev[0] + ev[1] + ev[2] - trace_before) < 1e-9 * trace_before;
    free(vox);
    free(zmax);
    if (!ok) {
        fprintf(stderr, "pcloud_mmap_grid: check FAILED (n %zu mean %.6f vs %.6f)\n", n, mean[0], g.sx / dn);
        return 1;
    }
    printf("pcloud_mmap_grid: ok (%zu points, %ld voxels occupied)\n", n, occupied);
    return 0;
}
