/*
 * dem_flow_accum.c -- terrain hydrology on a synthetic digital elevation
 * model.
 *
 * A fractal DEM (diamond-square with a tilted base surface) is written as
 * an ESRI ASCII grid, read back line by line (fgets + strtod), pits are
 * removed with a priority-flood depression fill, D8 flow directions and
 * flow accumulation (topological order) are computed, drainage basins are
 * labelled from their outlets, and the stream network is traced.  Outputs:
 * the filled DEM as a second ASCII grid, flow accumulation and basin
 * labels as raw binary rasters (fwrite) with ENVI-style text headers, a
 * multi-directional hillshade (PGM) and topographic wetness index raster,
 * and a text file of stream polylines.
 *
 * Usage: dem_flow_accum OUTDIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LEVEL      10
#define NG         ((1 << LEVEL) + 1)
#define CELL       30.0
#define ROUGH      0.55
#define STREAM_MIN 2000
#define NODATA     -9999.0

static const int DX8[8] = { 1, 1, 0, -1, -1, -1, 0, 1 };
static const int DY8[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };

static uint64_t s64 = 88172645463325252ull;

static double gauss(void)
{
    double u = 0, v = 0;
    for (int k = 0; k < 4; k++) {
        s64 ^= s64 << 13; s64 ^= s64 >> 7; s64 ^= s64 << 17;
        u += (double)(s64 >> 11) / 9007199254740992.0;
    }
    v = u - 2.0;
    return v * 1.7320508;
}

static FILE *xopen(const char *dir, const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

static void diamond_square(double *z)
{
    double amp = 400.0;
    z[0] = z[NG - 1] = z[(NG - 1) * NG] = z[NG * NG - 1] = 0.0;
    for (int step = NG - 1; step > 1; step /= 2, amp *= ROUGH) {
        int h = step / 2;
        for (int y = h; y < NG; y += step)
            for (int x = h; x < NG; x += step)
                z[y * NG + x] = 0.25 * (z[(y - h) * NG + x - h] + z[(y - h) * NG + x + h] +
                                        z[(y + h) * NG + x - h] + z[(y + h) * NG + x + h]) + amp * gauss();
        for (int y = 0; y < NG; y += h)
            for (int x = (y / h) % 2 ? 0 : h; x < NG; x += step) {
                double s = 0.0;
                int c = 0;
                if (y >= h) { s += z[(y - h) * NG + x]; c++; }
                if (y + h < NG) { s += z[(y + h) * NG + x]; c++; }
                if (x >= h) { s += z[y * NG + x - h]; c++; }
                if (x + h < NG) { s += z[y * NG + x + h]; c++; }
                z[y * NG + x] = s / c + amp * gauss();
            }
    }
    for (int y = 0; y < NG; y++)
        for (int x = 0; x < NG; x++)
            z[y * NG + x] += 1500.0 + 0.6 * (x + y) * 0.5;   /* regional slope */
}

static void write_ascii_grid(const char *dir, const char *name, const double *z)
{
    FILE *f = xopen(dir, name, "w");
    fprintf(f, "ncols %d\nnrows %d\nxllcorner 500000.0\nyllcorner 4100000.0\n"
               "cellsize %.1f\nNODATA_value %.0f\n", NG, NG, CELL, NODATA);
    for (int y = 0; y < NG; y++) {
        for (int x = 0; x < NG; x++)
            fprintf(f, x ? " %.2f" : "%.2f", z[y * NG + x]);
        fputc('\n', f);
    }
    fclose(f);
}

static void read_ascii_grid(const char *dir, const char *name, double *z)
{
    FILE *f = xopen(dir, name, "r");
    size_t cap = 16 * NG + 64;
    char *line = malloc(cap);
    int ncols = 0, nrows = 0, row = 0;
    while (fgets(line, (int)cap, f)) {
        if (sscanf(line, "ncols %d", &ncols) == 1 || sscanf(line, "nrows %d", &nrows) == 1)
            continue;
        if ((line[0] >= 'a' && line[0] <= 'z') || (line[0] >= 'A' && line[0] <= 'Z'))
            continue;                               /* other header keywords */
        char *p = line, *e;
        for (int x = 0; x < ncols && row < nrows; x++) {
            z[row * NG + x] = strtod(p, &e);
            p = e;
        }
        row++;
    }
    if (ncols != NG || nrows != NG || row != NG) {
        fprintf(stderr, "grid size mismatch %d x %d (%d rows)\n", ncols, nrows, row);
        exit(1);
    }
    free(line);
    fclose(f);
}

/* ---- binary min-heap keyed by elevation, for priority flood ---- */
typedef struct { double z; int idx; } hnode_t;

static void heap_push(hnode_t *h, int *n, double z, int idx)
{
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h[p].z <= z)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i].z = z;
    h[i].idx = idx;
}

static hnode_t heap_pop(hnode_t *h, int *n)
{
    hnode_t top = h[0], last = h[--(*n)];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].z < h[c].z)
            c++;
        if (h[c].z >= last.z)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

static long priority_flood(double *z)
{
    hnode_t *heap = malloc(sizeof(hnode_t) * NG * NG);
    unsigned char *closed = calloc(NG * NG, 1);
    int n = 0;
    long raised = 0;
    for (int y = 0; y < NG; y++)
        for (int x = 0; x < NG; x++)
            if (x == 0 || y == 0 || x == NG - 1 || y == NG - 1) {
                heap_push(heap, &n, z[y * NG + x], y * NG + x);
                closed[y * NG + x] = 1;
            }
    while (n > 0) {
        hnode_t c = heap_pop(heap, &n);
        int cx = c.idx % NG, cy = c.idx / NG;
        for (int k = 0; k < 8; k++) {
            int nx = cx + DX8[k], ny = cy + DY8[k];
            if (nx < 0 || ny < 0 || nx >= NG || ny >= NG)
                continue;
            int j = ny * NG + nx;
            if (closed[j])
                continue;
            closed[j] = 1;
            if (z[j] <= c.z) {
                z[j] = c.z + 1e-4;   /* epsilon fill keeps a drainage gradient */
                raised++;
            }
            heap_push(heap, &n, z[j], j);
        }
    }
    free(heap);
    free(closed);
    return raised;
}

static void d8_accumulate(const double *z, signed char *dir8, float *acc)
{
    int *indeg = calloc(NG * NG, sizeof(int));
    for (int y = 0; y < NG; y++)
        for (int x = 0; x < NG; x++) {
            int i = y * NG + x, best = -1;
            double bs = 0.0;
            for (int k = 0; k < 8; k++) {
                int nx = x + DX8[k], ny = y + DY8[k];
                if (nx < 0 || ny < 0 || nx >= NG || ny >= NG)
                    continue;
                double dist = (k % 2) ? CELL * 1.41421356 : CELL;
                double s = (z[i] - z[ny * NG + nx]) / dist;
                if (s > bs) {
                    bs = s;
                    best = k;
                }
            }
            dir8[i] = (signed char)best;
            if (best >= 0)
                indeg[(y + DY8[best]) * NG + x + DX8[best]]++;
        }
    int *queue = malloc(sizeof(int) * NG * NG);
    int qh = 0, qt = 0;
    for (int i = 0; i < NG * NG; i++) {
        acc[i] = 1.0f;
        if (indeg[i] == 0)
            queue[qt++] = i;
    }
    while (qh < qt) {
        int i = queue[qh++];
        if (dir8[i] < 0)
            continue;
        int j = (i / NG + DY8[dir8[i]]) * NG + i % NG + DX8[dir8[i]];
        acc[j] += acc[i];
        if (--indeg[j] == 0)
            queue[qt++] = j;
    }
    free(indeg);
    free(queue);
}

/* Label every cell with the id of the outlet it drains to (path compression). */
static int label_basins(const signed char *dir8, int32_t *basin)
{
    int nb = 0;
    for (int i = 0; i < NG * NG; i++)
        basin[i] = -1;
    int *path = malloc(sizeof(int) * NG * NG);
    for (int i = 0; i < NG * NG; i++) {
        int len = 0, c = i;
        while (basin[c] < 0 && dir8[c] >= 0) {
            path[len++] = c;
            c = (c / NG + DY8[dir8[c]]) * NG + c % NG + DX8[dir8[c]];
        }
        if (basin[c] < 0)
            basin[c] = nb++;
        for (int k = 0; k < len; k++)
            basin[path[k]] = basin[c];
    }
    free(path);
    return nb;
}

static void write_raster(const char *dir, const char *name, const void *data, size_t elsize,
                         const char *envitype)
{
    FILE *f = xopen(dir, name, "wb");
    for (int y = 0; y < NG; y++)
        fwrite((const char *)data + (size_t)y * NG * elsize, elsize, NG, f);
    fclose(f);
    char hname[256];
    snprintf(hname, sizeof hname, "%s.hdr", name);
    f = xopen(dir, hname, "w");
    fprintf(f, "ENVI\nsamples = %d\nlines = %d\nbands = 1\ndata type = %s\n"
               "interleave = bsq\nbyte order = 0\n", NG, NG, envitype);
    fclose(f);
}

/* Horn slope, multi-directional hillshade and topographic wetness index. */
static void terrain_derivatives(const char *dir, const double *z, const float *acc)
{
    unsigned char *shade = malloc(NG * NG);
    float *twi = malloc(sizeof(float) * NG * NG);
    const double az[8] = { 0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0 }, alt = 45.0 * M_PI / 180.0;
    for (int y = 0; y < NG; y++)
        for (int x = 0; x < NG; x++) {
            int xm = x > 0 ? x - 1 : x, xp = x < NG - 1 ? x + 1 : x;
            int ym = y > 0 ? y - 1 : y, yp = y < NG - 1 ? y + 1 : y;
            double a = z[ym * NG + xm], b = z[ym * NG + x], c = z[ym * NG + xp];
            double d = z[y * NG + xm], f = z[y * NG + xp];
            double g = z[yp * NG + xm], h = z[yp * NG + x], i = z[yp * NG + xp];
            double dzdx = ((c + 2 * f + i) - (a + 2 * d + g)) / (8.0 * CELL);
            double dzdy = ((g + 2 * h + i) - (a + 2 * b + c)) / (8.0 * CELL);
            double slope = atan(sqrt(dzdx * dzdx + dzdy * dzdy));
            double aspect = atan2(dzdy, -dzdx);
            double sh = 0.0;
            for (int k = 0; k < 8; k++) {
                double w = 0.5 + 0.5 * cos((az[k] - 315.0) * M_PI / 180.0);
                double zen = M_PI / 2 - alt, azr = (360.0 - az[k] + 90.0) * M_PI / 180.0;
                double v = cos(zen) * cos(slope) + sin(zen) * sin(slope) * cos(azr - aspect);
                sh += w * (v > 0 ? v : 0);
            }
            shade[y * NG + x] = (unsigned char)(255.0 * sh / 4.0);
            twi[y * NG + x] = (float)log(acc[y * NG + x] * CELL / (tan(slope) + 1e-3));
        }
    FILE *fp = xopen(dir, "hillshade.pgm", "wb");
    fprintf(fp, "P5\n%d %d\n255\n", NG, NG);
    fwrite(shade, 1, (size_t)NG * NG, fp);
    fclose(fp);
    write_raster(dir, "twi.f32", twi, sizeof(float), "4");
    free(shade);
    free(twi);
}

static long trace_streams(const char *dir, const signed char *dir8, const float *acc)
{
    FILE *f = xopen(dir, "streams.txt", "w");
    long segs = 0;
    for (int i = 0; i < NG * NG; i++) {
        if (acc[i] < STREAM_MIN)
            continue;
        /* a channel head: no upstream neighbour is itself a stream cell */
        int x = i % NG, y = i / NG, head = 1;
        for (int k = 0; k < 8 && head; k++) {
            int nx = x + DX8[k], ny = y + DY8[k];
            if (nx < 0 || ny < 0 || nx >= NG || ny >= NG)
                continue;
            int j = ny * NG + nx;
            if (dir8[j] >= 0 && (k + 4) % 8 == dir8[j] && acc[j] >= STREAM_MIN)
                head = 0;
        }
        if (!head)
            continue;
        fprintf(f, "segment %ld\n", segs++);
        int c = i, n = 0;
        while (c >= 0 && n < 4 * NG) {
            fprintf(f, "%.1f %.1f %.0f\n", (c % NG) * CELL, (c / NG) * CELL, acc[c]);
            if (dir8[c] < 0)
                break;
            c = (c / NG + DY8[dir8[c]]) * NG + c % NG + DX8[dir8[c]];
            n++;
        }
    }
    fclose(f);
    return segs;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0755);
    double *z = malloc(sizeof(double) * NG * NG);
    diamond_square(z);
    write_ascii_grid(dir, "dem.asc", z);
    memset(z, 0, sizeof(double) * NG * NG);
    read_ascii_grid(dir, "dem.asc", z);
    long raised = priority_flood(z);
    write_ascii_grid(dir, "dem_filled.asc", z);

    signed char *dir8 = malloc(NG * NG);
    float *acc = malloc(sizeof(float) * NG * NG);
    int32_t *basin = malloc(sizeof(int32_t) * NG * NG);
    d8_accumulate(z, dir8, acc);
    int nb = label_basins(dir8, basin);
    write_raster(dir, "flow_acc.f32", acc, sizeof(float), "4");
    write_raster(dir, "basins.i32", basin, sizeof(int32_t), "3");
    terrain_derivatives(dir, z, acc);
    long segs = trace_streams(dir, dir8, acc);
    float amax = 0;
    for (int i = 0; i < NG * NG; i++)
        amax = acc[i] > amax ? acc[i] : amax;
    printf("grid=%d filled_cells=%ld basins=%d max_acc=%.0f stream_segments=%ld\n", NG,
           raised, nb, amax, segs);
    free(z); free(dir8); free(acc); free(basin);
    return 0;
}
