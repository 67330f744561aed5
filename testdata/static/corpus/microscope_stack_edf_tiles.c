/* microscope_stack_edf_tiles.c
 * Widefield fluorescence microscope z-stack acquisition and extended
 * depth-of-field (EDF) fusion, processed tile by tile as a slide scanner does.
 *
 * 1. Acquisition: for every 128x128 tile and every focal plane, fluorescent
 *    beads are rendered with a defocus-dependent Gaussian PSF, camera shot
 *    and read noise are added, and the 16-bit plane is appended to a tiled
 *    stack file with fwrite + fflush; after each tile's last plane the file
 *    is fsynced so that a crashed scan keeps every completed tile.  A per-tile offset table is kept.
 * 2. Fusion: each tile stack is read back, a local Laplacian-energy focus
 *    measure is computed per plane, the sharpest plane is selected per pixel,
 *    the depth map is median-smoothed and the fused tile plus depth map are
 *    written with write() + fdatasync per tile.
 * 3. A text tile index is written and a few random tiles are re-read and
 *    checked against their stored checksums.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TILE     128
#define NTX      6
#define NTY      6
#define NZ       16
#define NBEADS   2500
#define DZ       0.5       /* um between planes */
#define PIXEL    0.1625    /* um per pixel */
#define HALO     24

typedef struct { double x, y, z, amp; } bead;
typedef struct { long long stack_off, edf_off; uint32_t stack_sum, edf_sum; double focus_mean; int zmode; } tile_rec;

static bead beads[NBEADS];
static uint16_t stack[NZ][TILE][TILE];
static float focus[NZ][TILE][TILE];
static uint16_t fused[TILE][TILE];
static uint8_t depth[TILE][TILE], depth_s[TILE][TILE];
static tile_rec tiles[NTY][NTX];
static uint64_t rng = 88172645463325252ULL;
static const char *dir;

static void fail(const char *what, const char *path)
{
    fprintf(stderr, "microscope_stack_edf_tiles: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
    double u = urand(), v = urand();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void scatter_beads(void)
{
    double w = NTX * TILE * PIXEL, h = NTY * TILE * PIXEL;
    for (int i = 0; i < NBEADS; i++) {
        /* beads sit on a tilted, wavy coverslip so focus varies across the slide */
        beads[i].x = w * urand();
        beads[i].y = h * urand();
        beads[i].z = 2.0 + 0.035 * beads[i].x + 0.8 * sin(beads[i].y / 9.0) + 0.6 * gauss();
        beads[i].amp = 900.0 + 2500.0 * urand();
    }
}

static void render_tile_plane(int tx, int ty, int iz, double *img)
{
    double x0 = tx * TILE * PIXEL, y0 = ty * TILE * PIXEL, zf = iz * DZ;
    for (int k = 0; k < TILE * TILE; k++) img[k] = 110.0;   /* camera offset + autofluorescence */
    for (int b = 0; b < NBEADS; b++) {
        double bx = (beads[b].x - x0) / PIXEL, by = (beads[b].y - y0) / PIXEL;
        if (bx < -HALO || by < -HALO || bx > TILE + HALO || by > TILE + HALO) continue;
        double dzr = (beads[b].z - zf) / 0.9;
        double sig = 1.4 * sqrt(1.0 + dzr * dzr);
        double a = beads[b].amp / (sig * sig);
        int r = (int)(3.0 * sig) + 1;
        int i0 = (int)by - r, i1 = (int)by + r, j0 = (int)bx - r, j1 = (int)bx + r;
        if (i0 < 0) i0 = 0;
        if (j0 < 0) j0 = 0;
        if (i1 > TILE - 1) i1 = TILE - 1;
        if (j1 > TILE - 1) j1 = TILE - 1;
        double inv = -0.5 / (sig * sig);
        for (int i = i0; i <= i1; i++) {
            double dy2 = (i - by) * (i - by);
            for (int j = j0; j <= j1; j++)
                img[i * TILE + j] += a * exp(inv * ((j - bx) * (j - bx) + dy2));
        }
    }
}

static void camera_noise(const double *img, uint16_t *out)
{
    for (int k = 0; k < TILE * TILE; k++) {
        double e = img[k] * 0.8;                          /* photo-electrons */
        double v = e + sqrt(e) * gauss() + 1.6 * gauss(); /* shot + read noise */
        v = v / 0.8;
        if (v < 0) v = 0;
        if (v > 65535) v = 65535;
        out[k] = (uint16_t)lrint(v);
    }
}

static uint32_t adler32(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < len; i++) { a = (a + p[i]) % 65521; b = (b + a) % 65521; }
    return (b << 16) | a;
}

static void acquire_stack(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) fail("fopen", path);
    static double img[TILE * TILE];
    static uint16_t plane[TILE * TILE];
    long long off = 0;
    for (int ty = 0; ty < NTY; ty++)
        for (int tx = 0; tx < NTX; tx++) {
            tiles[ty][tx].stack_off = off;
            uint32_t sum = 1;
            for (int iz = 0; iz < NZ; iz++) {
                render_tile_plane(tx, ty, iz, img);
                camera_noise(img, plane);
                if (fwrite(plane, sizeof plane, 1, f) != 1) fail("fwrite", path);
                if (fflush(f) != 0) fail("fflush", path);
                sum = sum * 31u + adler32(plane, sizeof plane);
                off += (long long)sizeof plane;
            }
            /* the tile is complete: make it durable before moving the stage */
            if (fsync(fileno(f)) != 0) fail("fsync", path);
            tiles[ty][tx].stack_sum = sum;
        }
    if (fclose(f) != 0) fail("fclose", path);
}

static void read_tile_stack(FILE *f, int tx, int ty, const char *path)
{
    if (fseeko(f, (off_t)tiles[ty][tx].stack_off, SEEK_SET) != 0) fail("fseeko", path);
    if (fread(stack, sizeof stack, 1, f) != 1) fail("fread", path);
}

static void focus_measure(void)
{
    static float lap[TILE][TILE];
    for (int z = 0; z < NZ; z++) {
        for (int i = 0; i < TILE; i++)
            for (int j = 0; j < TILE; j++) {
                int im = i > 0 ? i - 1 : i, ip = i < TILE - 1 ? i + 1 : i;
                int jm = j > 0 ? j - 1 : j, jp = j < TILE - 1 ? j + 1 : j;
                float l = 4.0f * stack[z][i][j] - stack[z][im][j] - stack[z][ip][j]
                          - stack[z][i][jm] - stack[z][i][jp];
                lap[i][j] = l * l;
            }
        /* 5x5 box sum of the squared Laplacian via running sums */
        for (int i = 0; i < TILE; i++)
            for (int j = 0; j < TILE; j++) {
                float s = 0.0f;
                for (int di = -2; di <= 2; di++) {
                    int ii = i + di;
                    if (ii < 0 || ii >= TILE) continue;
                    for (int dj = -2; dj <= 2; dj++) {
                        int jj = j + dj;
                        if (jj < 0 || jj >= TILE) continue;
                        s += lap[ii][jj];
                    }
                }
                focus[z][i][j] = s;
            }
    }
}

static int cmp_u8(const void *a, const void *b)
{
    return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b;
}

static void fuse_tile(tile_rec *t)
{
    int hist[NZ] = {0};
    double fsum = 0.0;
    for (int i = 0; i < TILE; i++)
        for (int j = 0; j < TILE; j++) {
            int best = 0;
            for (int z = 1; z < NZ; z++)
                if (focus[z][i][j] > focus[best][i][j]) best = z;
            depth[i][j] = (uint8_t)best;
            fsum += focus[best][i][j];
        }
    /* 3x3 median on the depth map removes isolated wrong picks in flat background */
    for (int i = 0; i < TILE; i++)
        for (int j = 0; j < TILE; j++) {
            uint8_t w[9];
            int n = 0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++) {
                    int ii = i + di, jj = j + dj;
                    if (ii < 0) ii = 0;
                    if (jj < 0) jj = 0;
                    if (ii >= TILE) ii = TILE - 1;
                    if (jj >= TILE) jj = TILE - 1;
                    w[n++] = depth[ii][jj];
                }
            qsort(w, 9, 1, cmp_u8);
            depth_s[i][j] = w[4];
            fused[i][j] = stack[w[4]][i][j];
            hist[w[4]]++;
        }
    int mode = 0;
    for (int z = 1; z < NZ; z++) if (hist[z] > hist[mode]) mode = z;
    t->zmode = mode;
    t->focus_mean = fsum / (TILE * TILE);
}

static void write_full(int fd, const void *buf, size_t len, const char *path)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) { if (errno == EINTR) continue; fail("write", path); }
        p += w; len -= (size_t)w;
    }
}

static void fuse_all(const char *stack_path, const char *edf_path)
{
    FILE *in = fopen(stack_path, "rb");
    if (!in) fail("fopen", stack_path);
    int fd = open(edf_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) fail("open", edf_path);
    long long off = 0;
    for (int ty = 0; ty < NTY; ty++)
        for (int tx = 0; tx < NTX; tx++) {
            read_tile_stack(in, tx, ty, stack_path);
            focus_measure();
            fuse_tile(&tiles[ty][tx]);
            write_full(fd, fused, sizeof fused, edf_path);
            write_full(fd, depth_s, sizeof depth_s, edf_path);
            if (fdatasync(fd) != 0) fail("fdatasync", edf_path);
            tiles[ty][tx].edf_off = off;
            tiles[ty][tx].edf_sum = adler32(fused, sizeof fused);
            off += (long long)(sizeof fused + sizeof depth_s);
        }
    if (close(fd) != 0) fail("close", edf_path);
    if (fclose(in) != 0) fail("fclose", stack_path);
}

static void write_index(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) fail("fopen", path);
    fprintf(f, "# tile_x tile_y stack_offset edf_offset stack_sum edf_sum focus_mean z_mode_um\n");
    for (int ty = 0; ty < NTY; ty++)
        for (int tx = 0; tx < NTX; tx++) {
            tile_rec *t = &tiles[ty][tx];
            if (fprintf(f, "%d %d %lld %lld %08x %08x %.4e %.2f\n", tx, ty, t->stack_off, t->edf_off,
                        t->stack_sum, t->edf_sum, t->focus_mean, t->zmode * DZ) < 0)
                fail("fprintf", path);
        }
    if (fclose(f) != 0) fail("fclose", path);
}

static int verify_random_tiles(const char *stack_path, const char *edf_path, int nprobe)
{
    int fd = open(edf_path, O_RDONLY);
    if (fd < 0) fail("open", edf_path);
    FILE *in = fopen(stack_path, "rb");
    if (!in) fail("fopen", stack_path);
    int bad = 0;
    for (int p = 0; p < nprobe; p++) {
        int tx = (int)(urand() * NTX), ty = (int)(urand() * NTY);
        tile_rec *t = &tiles[ty][tx];
        if (pread(fd, fused, sizeof fused, (off_t)t->edf_off) != (ssize_t)sizeof fused) fail("pread", edf_path);
        if (adler32(fused, sizeof fused) != t->edf_sum) bad++;
        read_tile_stack(in, tx, ty, stack_path);
        uint32_t sum = 1;
        for (int z = 0; z < NZ; z++) sum = sum * 31u + adler32(stack[z], sizeof stack[z]);
        if (sum != t->stack_sum) bad++;
    }
    close(fd);
    fclose(in);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    dir = argv[1];
    char sp[4096], ep[4096], ip[4096];
    snprintf(sp, sizeof sp, "%s/stack_tiles.u16", dir);
    snprintf(ep, sizeof ep, "%s/edf_tiles.u16", dir);
    snprintf(ip, sizeof ip, "%s/tile_index.txt", dir);
    scatter_beads();
    acquire_stack(sp);
    fuse_all(sp, ep);
    write_index(ip);
    int bad = verify_random_tiles(sp, ep, 8);
    double fm = 0.0;
    for (int ty = 0; ty < NTY; ty++)
        for (int tx = 0; tx < NTX; tx++) fm += tiles[ty][tx].focus_mean;
    printf("tiles %dx%d, %d planes: mean focus %.4e, verify failures %d\n", NTX, NTY, NZ, fm / (NTX * NTY), bad);
    printf("focal plane tile(0,0) %.2f um, tile(%d,%d) %.2f um\n", tiles[0][0].zmode * DZ, NTX - 1, NTY - 1,
           tiles[NTY - 1][NTX - 1].zmode * DZ);
    return bad ? 1 : 0;
}
