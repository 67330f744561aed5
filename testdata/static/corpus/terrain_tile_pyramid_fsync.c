/*
 * terrain_tile_pyramid_fsync.c
 *
 * Builds a web-map style tile pyramid of a synthetic terrain: a fractal
 * (fBm value-noise) heightmap is relaxed by a few passes of thermal erosion,
 * hill-shaded and tinted with a hypsometric colour ramp.  The shaded RGB
 * image and the float32 elevations are cut into 256x256 tiles and appended to
 * two pyramid container files, level by level (each level is a 2x2 box
 * reduction of the previous elevation level, re-shaded at its own
 * resolution).  Every tile is fwrite'n row by row and then made
 * durable with fflush + fdatasync before the next tile is started, so a
 * reader never sees an index entry for a tile that is not on disk.  A tile
 * index is appended at the end, and a verification pass re-reads tiles through
 * the index and checks their CRCs.  An overview PPM is written last.
 *
 * usage: terrain_tile_pyramid_fsync OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE 2048
#define TILE 256
#define LEVELS 4 /* 2048, 1024, 512, 256 */
#define OCTAVES 7
#define EROSION_PASSES 6
#define MAX_TILES 128

typedef struct {
    uint32_t level, tx, ty, bytes;
    uint64_t offset;
    uint32_t crc, pad;
} TileEntry;

typedef struct {
    FILE *f;
    char path[600];
    TileEntry idx[MAX_TILES];
    int ntiles;
    uint64_t pos;
} Pyramid;

static const char *outdir;
static uint32_t crc_table[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "terrain_tile_pyramid_fsync: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) die("out of memory", NULL);
    return p;
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t c, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    c = ~c;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return ~c;
}

#define LATTICE(ix, iy, seed)                                                   \
    ((float)(((((uint32_t)(ix) * 0x8da6b343u) ^ ((uint32_t)(iy) * 0xd8163841u) ^ \
               ((uint32_t)(seed) * 0xcb1ab31fu)) * 0x9E3779B1u) >> 8) * (1.0f / 16777216.0f))

/* Fractal Brownian motion of smoothed value noise plus a broad ridge. */
static void fbm_heightmap(float *h)
{
    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            float amp = 1.0f, sum = 0.0f, freq = 1.0f / 256.0f;
            for (int o = 0; o < OCTAVES; o++) {
                float fx = x * freq, fy = y * freq;
                int ix = (int)fx, iy = (int)fy;
                float tx = fx - ix, ty = fy - iy;
                tx = tx * tx * (3.0f - 2.0f * tx);
                ty = ty * ty * (3.0f - 2.0f * ty);
                float v00 = LATTICE(ix, iy, o), v10 = LATTICE(ix + 1, iy, o);
                float v01 = LATTICE(ix, iy + 1, o), v11 = LATTICE(ix + 1, iy + 1, o);
                float v = (v00 + (v10 - v00) * tx) * (1.0f - ty) + (v01 + (v11 - v01) * tx) * ty;
                sum += amp * (2.0f * v - 1.0f);
                amp *= 0.52f;
                freq *= 2.0f;
            }
            float dx = (x - 0.45f * SIZE) / SIZE, dy = (y - 0.55f * SIZE) / SIZE;
            float ridge = 1.2f * expf(-12.0f * (dx * 0.3f + dy) * (dx * 0.3f + dy)) *
                          expf(-2.0f * (dx * dx + dy * dy));
            h[(size_t)y * SIZE + x] = 900.0f * (sum + ridge) + 300.0f;
        }
    }
}

/* Thermal erosion: material slides to the steepest lower neighbour when the
 * slope exceeds the talus angle. */
static void thermal_erosion(float *h, float *tmp)
{
    const float talus = 6.0f; /* metres per pixel */
    for (int pass = 0; pass < EROSION_PASSES; pass++) {
        memcpy(tmp, h, (size_t)SIZE * SIZE * sizeof(float));
        for (int y = 1; y < SIZE - 1; y++) {
            for (int x = 1; x < SIZE - 1; x++) {
                size_t i = (size_t)y * SIZE + x;
                float hc = h[i], dmax = 0.0f;
                size_t jmax = i;
                const long nb[4] = {-1, 1, -SIZE, SIZE};
                for (int k = 0; k < 4; k++) {
                    float d = hc - h[i + nb[k]];
                    if (d > dmax) { dmax = d; jmax = i + nb[k]; }
                }
                if (dmax > talus) {
                    float move = 0.25f * (dmax - talus);
                    tmp[i] -= move;
                    tmp[jmax] += move;
                }
            }
        }
        memcpy(h, tmp, (size_t)SIZE * SIZE * sizeof(float));
    }
}

/* Lambertian hill shading (sun azimuth 315 deg, altitude 45 deg) combined with
 * a hypsometric tint into packed RGB. */
static void shade_and_tint(const float *h, unsigned char *rgb, int n, float cell)
{
    static const float stops[6][4] = {{-200, 40, 90, 160},  {0, 70, 140, 80},
                                      {400, 150, 170, 90}, {900, 160, 130, 80},
                                      {1500, 130, 110, 100}, {2200, 250, 250, 250}};
    const float az = 315.0f * 3.14159265f / 180.0f, alt = 45.0f * 3.14159265f / 180.0f;
    const float lx = cosf(alt) * sinf(az), ly = cosf(alt) * cosf(az), lz = sinf(alt);
    for (int y = 0; y < n; y++) {
        int ym = y > 0 ? y - 1 : y, yp = y < n - 1 ? y + 1 : y;
        for (int x = 0; x < n; x++) {
            int xm = x > 0 ? x - 1 : x, xp = x < n - 1 ? x + 1 : x;
            float gx = (h[(size_t)y * n + xp] - h[(size_t)y * n + xm]) / ((xp - xm) * cell);
            float gy = (h[(size_t)yp * n + x] - h[(size_t)ym * n + x]) / ((yp - ym) * cell);
            float nrm = 1.0f / sqrtf(gx * gx + gy * gy + 1.0f);
            float shade = (-gx * lx - gy * ly + lz) * nrm;
            if (shade < 0.0f) shade = 0.0f;
            float e = h[(size_t)y * n + x];
            int k = 0;
            while (k < 4 && e > stops[k + 1][0]) k++;
            float t = (e - stops[k][0]) / (stops[k + 1][0] - stops[k][0]);
            if (t < 0.0f) t = 0.0f;
            if (t > 1.0f) t = 1.0f;
            unsigned char *px = rgb + 3 * ((size_t)y * n + x);
            for (int c = 0; c < 3; c++) {
                float v = (stops[k][c + 1] + t * (stops[k + 1][c + 1] - stops[k][c + 1])) *
                          (0.35f + 0.65f * shade);
                px[c] = (unsigned char)(v > 255.0f ? 255.0f : v);
            }
        }
    }
}

static void pyramid_open(Pyramid *p, const char *name, const char *magic)
{
    snprintf(p->path, sizeof p->path, "%s/%s", outdir, name);
    p->f = fopen(p->path, "wb");
    if (!p->f) die("fopen", p->path);
    char hdr[64];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr, magic, 8);
    uint32_t meta[4] = {SIZE, TILE, LEVELS, 0};
    memcpy(hdr + 8, meta, sizeof meta);
    if (fwrite(hdr, 1, sizeof hdr, p->f) != sizeof hdr) die("fwrite", p->path);
    p->ntiles = 0;
    p->pos = sizeof hdr;
}

/* Append every tile of one level; each tile is flushed and fdatasync'ed. */
static void write_level_tiles(Pyramid *p, int level, const void *img, int n, size_t pixbytes)
{
    int ntx = n / TILE;
    const unsigned char *base = img;
    size_t rowbytes = (size_t)TILE * pixbytes;
    for (int ty = 0; ty < ntx; ty++) {
        for (int tx = 0; tx < ntx; tx++) {
            if (p->ntiles >= MAX_TILES) die("too many tiles", p->path);
            TileEntry *e = &p->idx[p->ntiles++];
            e->level = (uint32_t)level;
            e->tx = (uint32_t)tx;
            e->ty = (uint32_t)ty;
            e->offset = p->pos;
            e->bytes = (uint32_t)(rowbytes * TILE);
            e->pad = 0;
            uint32_t crc = 0;
            for (int r = 0; r < TILE; r++) {
                const unsigned char *row =
                    base + (((size_t)(ty * TILE + r) * n) + (size_t)tx * TILE) * pixbytes;
                crc = crc32_update(crc, row, rowbytes);
                if (fwrite(row, 1, rowbytes, p->f) != rowbytes) die("fwrite", p->path);
            }
            e->crc = crc;
            p->pos += e->bytes;
            if (fflush(p->f) != 0) die("fflush", p->path);
            if (fdatasync(fileno(p->f)) != 0) die("fdatasync", p->path);
        }
    }
}

static void pyramid_close(Pyramid *p)
{
    uint64_t index_off = p->pos;
    uint32_t n = (uint32_t)p->ntiles;
    if (fwrite(p->idx, sizeof(TileEntry), n, p->f) != n) die("fwrite index", p->path);
    if (fwrite(&n, sizeof n, 1, p->f) != 1 || fwrite(&index_off, sizeof index_off, 1, p->f) != 1)
        die("fwrite trailer", p->path);
    if (fflush(p->f) != 0 || fsync(fileno(p->f)) != 0) die("fsync", p->path);
    if (fclose(p->f) != 0) die("fclose", p->path);
}

static void downsample_height(const float *src, int n, float *dst)
{
    int m = n / 2;
    for (int y = 0; y < m; y++)
        for (int x = 0; x < m; x++)
            dst[(size_t)y * m + x] =
                0.25f * (src[(size_t)(2 * y) * n + 2 * x] + src[(size_t)(2 * y) * n + 2 * x + 1] +
                         src[(size_t)(2 * y + 1) * n + 2 * x] +
                         src[(size_t)(2 * y + 1) * n + 2 * x + 1]);
}

/* Re-open a pyramid, load the index from the trailer and check every tile. */
static int verify_pyramid(const char *name, int *ntiles)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    uint32_t n;
    uint64_t index_off;
    if (fseek(f, -(long)(sizeof n + sizeof index_off), SEEK_END) != 0) die("fseek", path);
    if (fread(&n, sizeof n, 1, f) != 1 || fread(&index_off, sizeof index_off, 1, f) != 1)
        die("fread trailer", path);
    if (n > MAX_TILES) die("corrupt index", path);
    TileEntry idx[MAX_TILES];
    if (fseek(f, (long)index_off, SEEK_SET) != 0) die("fseek", path);
    if (fread(idx, sizeof(TileEntry), n, f) != n) die("fread index", path);
    unsigned char *buf = xmalloc((size_t)TILE * TILE * 4);
    int bad = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (idx[k].bytes > (uint32_t)TILE * TILE * 4) die("corrupt tile size", path);
        if (fseek(f, (long)idx[k].offset, SEEK_SET) != 0) die("fseek", path);
        if (fread(buf, 1, idx[k].bytes, f) != idx[k].bytes) die("fread tile", path);
        if (crc32_update(0, buf, idx[k].bytes) != idx[k].crc) bad++;
    }
    free(buf);
    if (fclose(f) != 0) die("fclose", path);
    *ntiles = (int)n;
    return bad;
}

static void write_overview_ppm(const unsigned char *rgb, int n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/overview.ppm", outdir);
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    fprintf(f, "P6\n%d %d\n255\n", n, n);
    if (fwrite(rgb, 3, (size_t)n * n, f) != (size_t)n * n) die("fwrite", path);
    if (fclose(f) != 0) die("fclose", path);
}

static void elevation_stats(const float *h, size_t n, double *mn, double *mx, double *mean)
{
    double a = h[0], b = h[0], s = 0;
    for (size_t i = 0; i < n; i++) {
        if (h[i] < a) a = h[i];
        if (h[i] > b) b = h[i];
        s += h[i];
    }
    *mn = a; *mx = b; *mean = s / (double)n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    crc_init();

    float *h = xmalloc((size_t)SIZE * SIZE * sizeof(float));
    float *tmp = xmalloc((size_t)SIZE * SIZE * sizeof(float));
    unsigned char *rgb = xmalloc((size_t)SIZE * SIZE * 3);

    fbm_heightmap(h);
    thermal_erosion(h, tmp);
    double mn, mx, mean;
    elevation_stats(h, (size_t)SIZE * SIZE, &mn, &mx, &mean);

    Pyramid prgb, pdem;
    pyramid_open(&prgb, "shaded_rgb.pyr", "PYRRGB01");
    pyramid_open(&pdem, "elevation_f32.pyr", "PYRDEM01");
    int n = SIZE;
    float cell = 10.0f; /* metres per pixel at level 0 */
    for (int level = 0; level < LEVELS; level++) {
        shade_and_tint(h, rgb, n, cell);
        write_level_tiles(&prgb, level, rgb, n, 3);
        write_level_tiles(&pdem, level, h, n, sizeof(float));
        if (level == LEVELS - 1) break;
        downsample_height(h, n, tmp);
        memcpy(h, tmp, (size_t)(n / 2) * (n / 2) * sizeof(float));
        n /= 2;
        cell *= 2.0f;
    }
    write_overview_ppm(rgb, n);
    pyramid_close(&prgb);
    pyramid_close(&pdem);

    int nt1, nt2;
    int bad = verify_pyramid("shaded_rgb.pyr", &nt1) + verify_pyramid("elevation_f32.pyr", &nt2);
    printf("terrain %dx%d: elevation %.1f..%.1f m (mean %.1f)\n", SIZE, SIZE, mn, mx, mean);
    printf("pyramid: %d levels, %d rgb tiles, %d elevation tiles, %d CRC failures\n", LEVELS, nt1,
           nt2, bad);
    free(h); free(tmp); free(rgb);
    return bad ? 1 : 0;
}
