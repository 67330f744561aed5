/*
 * brick_volume_raycast.c -- out-of-core direct volume rendering of a
 * bricked scalar volume.
 *
 * A synthetic density volume (metaball "galaxy cluster" plus turbulence)
 * of N^3 floats is generated slab by slab and written into a bricked file
 * with fwrite (header, per-brick min/max table, then BRICK^3 bricks).  The
 * renderer reads the header and brick table with fread, then ray-marches
 * NVIEWS orthographic views around the volume; bricks are fetched on demand
 * with fseek+fread through a small LRU brick cache, empty bricks are
 * skipped using the min/max table, samples are trilinearly interpolated and
 * composited front to back through a transfer function.  Each view is
 * written as a binary PPM, and a density histogram of the whole file is
 * computed in a final streaming pass.
 *
 * Usage: brick_volume_raycast OUTDIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N        192
#define BRICK    16
#define NB       (N / BRICK)
#define NBRICKS  (NB * NB * NB)
#define CACHE    10
#define IMG      200
#define NVIEWS   6
#define STEP     0.7f
#define NBLOBS   24
#define NHIST    64

typedef struct {
    char magic[8];
    int32_t n, brick, nb, pad;
    int64_t data_off;
} vhdr_t;

typedef struct {
    int id;
    long last_use;
    float v[BRICK * BRICK * BRICK];
} cache_slot_t;

static FILE *vol;
static vhdr_t hdr;
static float bmin[NBRICKS], bmax[NBRICKS];
static cache_slot_t cache[CACHE];
static long tick, misses, hits;

static float blob_x[NBLOBS], blob_y[NBLOBS], blob_z[NBLOBS], blob_r[NBLOBS], blob_a[NBLOBS];

static uint32_t rs = 0xdeadbeefu;

static float frand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 17;
    rs ^= rs << 5;
    return (rs >> 8) / 16777216.0f;
}

static FILE *xfopen(const char *dir, const char *name, const char *mode)
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

static float density(int x, int y, int z)
{
    float d = 0.0f;
    for (int b = 0; b < NBLOBS; b++) {
        float dx = x - blob_x[b], dy = y - blob_y[b], dz = z - blob_z[b];
        float r2 = (dx * dx + dy * dy + dz * dz) / (blob_r[b] * blob_r[b]);
        if (r2 < 9.0f)
            d += blob_a[b] / (1.0f + r2 * r2);
    }
    d *= 1.0f + 0.25f * sinf(0.21f * x) * sinf(0.17f * y + 0.5f * sinf(0.13f * z));
    return d;
}

/* Generate the volume slab by slab (one brick layer at a time) and brick it. */
static void write_bricked_volume(const char *dir)
{
    for (int b = 0; b < NBLOBS; b++) {
        float cx = N * (0.3f + 0.4f * frand()), cy = N * (0.3f + 0.4f * frand());
        float cz = N * (0.3f + 0.4f * frand());
        blob_x[b] = cx; blob_y[b] = cy; blob_z[b] = cz;
        blob_r[b] = 4.0f + 18.0f * frand() * frand();
        blob_a[b] = 0.2f + frand();
    }
    FILE *f = xfopen(dir, "volume.bvol", "wb");
    memset(&hdr, 0, sizeof hdr);
    memcpy(hdr.magic, "BRICKV1", 8);
    hdr.n = N; hdr.brick = BRICK; hdr.nb = NB;
    hdr.data_off = (int64_t)(sizeof hdr + 2 * sizeof(float) * NBRICKS);
    fwrite(&hdr, sizeof hdr, 1, f);
    fwrite(bmin, sizeof(float), NBRICKS, f);      /* placeholder table */
    fwrite(bmax, sizeof(float), NBRICKS, f);
    float *slab = malloc(sizeof(float) * N * N * BRICK);
    float brick[BRICK * BRICK * BRICK];
    for (int bz = 0; bz < NB; bz++) {
        for (int z = 0; z < BRICK; z++)
            for (int y = 0; y < N; y++)
                for (int x = 0; x < N; x++)
                    slab[((size_t)z * N + y) * N + x] = density(x, y, bz * BRICK + z);
        for (int by = 0; by < NB; by++)
            for (int bx = 0; bx < NB; bx++) {
                int id = (bz * NB + by) * NB + bx;
                float lo = 1e30f, hi = -1e30f;
                for (int z = 0; z < BRICK; z++)
                    for (int y = 0; y < BRICK; y++)
                        for (int x = 0; x < BRICK; x++) {
                            float v = slab[((size_t)z * N + by * BRICK + y) * N + bx * BRICK + x];
                            brick[(z * BRICK + y) * BRICK + x] = v;
                            lo = v < lo ? v : lo;
                            hi = v > hi ? v : hi;
                        }
                bmin[id] = lo;
                bmax[id] = hi;
                fwrite(brick, sizeof(float), BRICK * BRICK * BRICK, f);
            }
    }
    fseek(f, (long)sizeof hdr, SEEK_SET);
    fwrite(bmin, sizeof(float), NBRICKS, f);
    fwrite(bmax, sizeof(float), NBRICKS, f);
    fclose(f);
    free(slab);
}

static void open_volume(const char *dir)
{
    vol = xfopen(dir, "volume.bvol", "rb");
    if (fread(&hdr, sizeof hdr, 1, vol) != 1 || memcmp(hdr.magic, "BRICKV1", 8) != 0 ||
        fread(bmin, sizeof(float), NBRICKS, vol) != NBRICKS ||
        fread(bmax, sizeof(float), NBRICKS, vol) != NBRICKS) {
        fprintf(stderr, "bad volume header\n");
        exit(1);
    }
    for (int i = 0; i < CACHE; i++)
        cache[i].id = -1;
}

static const float *get_brick(int id)
{
    static int last_slot = 0;
    int victim = 0;
    tick++;
    if (cache[last_slot].id == id) {
        cache[last_slot].last_use = tick;
        hits++;
        return cache[last_slot].v;
    }
    for (int i = 0; i < CACHE; i++) {
        if (cache[i].id == id) {
            cache[i].last_use = tick;
            hits++;
            last_slot = i;
            return cache[i].v;
        }
        if (cache[i].last_use < cache[victim].last_use)
            victim = i;
    }
    misses++;
    long off = (long)hdr.data_off + (long)id * BRICK * BRICK * BRICK * (long)sizeof(float);
    fseek(vol, off, SEEK_SET);
    if (fread(cache[victim].v, sizeof(float), BRICK * BRICK * BRICK, vol) != BRICK * BRICK * BRICK) {
        fprintf(stderr, "short brick read\n");
        exit(1);
    }
    cache[victim].id = id;
    cache[victim].last_use = tick;
    last_slot = victim;
    return cache[victim].v;
}

static float voxel(int x, int y, int z)
{
    if (x < 0) x = 0;
    if (y < 0) y = 0;
    if (z < 0) z = 0;
    if (x >= N) x = N - 1;
    if (y >= N) y = N - 1;
    if (z >= N) z = N - 1;
    int id = ((z / BRICK) * NB + y / BRICK) * NB + x / BRICK;
    if (bmax[id] < 0.05f)
        return bmax[id];
    const float *b = get_brick(id);
    return b[((z % BRICK) * BRICK + y % BRICK) * BRICK + x % BRICK];
}

static float sample(float x, float y, float z)
{
    int x0 = (int)floorf(x), y0 = (int)floorf(y), z0 = (int)floorf(z);
    float fx = x - x0, fy = y - y0, fz = z - z0;
    float c00 = voxel(x0, y0, z0) * (1 - fx) + voxel(x0 + 1, y0, z0) * fx;
    float c10 = voxel(x0, y0 + 1, z0) * (1 - fx) + voxel(x0 + 1, y0 + 1, z0) * fx;
    float c01 = voxel(x0, y0, z0 + 1) * (1 - fx) + voxel(x0 + 1, y0, z0 + 1) * fx;
    float c11 = voxel(x0, y0 + 1, z0 + 1) * (1 - fx) + voxel(x0 + 1, y0 + 1, z0 + 1) * fx;
    return ((c00 * (1 - fy) + c10 * fy) * (1 - fz) + (c01 * (1 - fy) + c11 * fy) * fz);
}

static void transfer(float d, float rgba[4])
{
    float t = d > 1.5f ? 1.0f : d / 1.5f;
    rgba[0] = t;
    rgba[1] = 0.3f + 0.6f * t * t;
    rgba[2] = 1.0f - t;
    rgba[3] = d < 0.08f ? 0.0f : 0.04f + 0.25f * t;
}

/* Orthographic ray casting around the vertical axis. */
static void render_view(int view, unsigned char *img)
{
    float ang = 2.0f * (float)M_PI * view / NVIEWS;
    float dx = cosf(ang), dz = sinf(ang);      /* ray direction */
    float ux = -dz, uz = dx;                  /* image x axis */
    float c = 0.5f * N, half = 0.87f * N;
    for (int j = 0; j < IMG; j++)
        for (int i = 0; i < IMG; i++) {
            float u = (i + 0.5f) / IMG * 2.0f - 1.0f, v = (j + 0.5f) / IMG * 2.0f - 1.0f;
            float ox = c + u * half * ux - half * dx, oy = c + v * half, oz = c + u * half * uz - half * dz;
            float acc[4] = { 0, 0, 0, 0 };
            for (float s = 0.0f; s < 2.0f * half && acc[3] < 0.98f; s += STEP) {
                float px = ox + s * dx, py = oy, pz = oz + s * dz;
                if (px < 0 || py < 0 || pz < 0 || px >= N - 1 || py >= N - 1 || pz >= N - 1)
                    continue;
                int id = (((int)pz / BRICK) * NB + (int)py / BRICK) * NB + (int)px / BRICK;
                if (bmax[id] < 0.08f) {
                    s += 2.0f * STEP;      /* empty-space skipping */
                    continue;
                }
                float rgba[4];
                transfer(sample(px, py, pz), rgba);
                float w = (1.0f - acc[3]) * rgba[3];
                acc[0] += w * rgba[0];
                acc[1] += w * rgba[1];
                acc[2] += w * rgba[2];
                acc[3] += w;
            }
            for (int k = 0; k < 3; k++) {
                float g = acc[k] + (1.0f - acc[3]) * 0.05f;
                img[3 * (j * IMG + i) + k] = (unsigned char)(255.0f * (g > 1.0f ? 1.0f : g));
            }
        }
}

static void write_ppm(const char *dir, int view, const unsigned char *img)
{
    char name[64];
    snprintf(name, sizeof name, "view_%02d.ppm", view);
    FILE *f = xfopen(dir, name, "wb");
    fprintf(f, "P6\n%d %d\n255\n", IMG, IMG);
    fwrite(img, 3, (size_t)IMG * IMG, f);
    fclose(f);
}

/* Streaming pass over all bricks: log-density histogram. */
static void density_histogram(const char *dir)
{
    long hist[NHIST] = { 0 };
    float brick[BRICK * BRICK * BRICK];
    fseek(vol, (long)hdr.data_off, SEEK_SET);
    for (int id = 0; id < NBRICKS; id++) {
        if (fread(brick, sizeof(float), BRICK * BRICK * BRICK, vol) != BRICK * BRICK * BRICK)
            break;
        for (int k = 0; k < BRICK * BRICK * BRICK; k++) {
            float l = log10f(brick[k] + 1e-6f);
            int b = (int)((l + 6.0f) / 7.0f * NHIST);
            hist[b < 0 ? 0 : b >= NHIST ? NHIST - 1 : b]++;
        }
    }
    FILE *f = xfopen(dir, "density_hist.txt", "w");
    for (int b = 0; b < NHIST; b++)
        fprintf(f, "%8.4f %ld\n", -6.0 + 7.0 * (b + 0.5) / NHIST, hist[b]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0755);
    write_bricked_volume(dir);
    open_volume(dir);
    unsigned char *img = malloc(3 * IMG * IMG);
    for (int v = 0; v < NVIEWS; v++) {
        render_view(v, img);
        write_ppm(dir, v, img);
    }
    density_histogram(dir);
    fclose(vol);
    int empty = 0;
    for (int i = 0; i < NBRICKS; i++)
        empty += bmax[i] < 0.08f;
    printf("bricks=%d empty=%d cache hits=%ld misses=%ld\n", NBRICKS, empty, hits, misses);
    free(img);
    return 0;
}
