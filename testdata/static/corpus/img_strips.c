/*
 * Out-of-core image filtering in row strips.
 *
 * A raw 8-bit grey image (W x H, no header) is synthesised and written to
 * disk.  A chain of 5x5 convolution passes is then applied; every pass reads
 * the previous image one strip of rows at a time (plus a two-row halo above
 * and below) with fseek + fread, filters the strip and writes it to a new
 * file with fwrite.  The final image is compared with an in-memory reference
 * computed on the whole image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define W 2048
#define H 2048
#define STRIP 32
#define HALO 2
#define NPASS 5

typedef struct {
    const char *name;
    int k[5][5];
    int divisor;
    int offset;
} kernel_t;

static const kernel_t passes[NPASS] = {
    {"gauss", {{1, 4, 6, 4, 1}, {4, 16, 24, 16, 4}, {6, 24, 36, 24, 6}, {4, 16, 24, 16, 4}, {1, 4, 6, 4, 1}}, 256, 0},
    {"sharpen", {{0, 0, 0, 0, 0}, {0, 0, -1, 0, 0}, {0, -1, 8, -1, 0}, {0, 0, -1, 0, 0}, {0, 0, 0, 0, 0}}, 4, 0},
    {"box", {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}}, 25, 0},
    {"emboss", {{-1, -1, 0, 0, 0}, {-1, -1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 1}, {0, 0, 0, 1, 1}}, 1, 0},
    {"laplace_blur", {{0, 1, 2, 1, 0}, {1, 2, 4, 2, 1}, {2, 4, -8, 4, 2}, {1, 2, 4, 2, 1}, {0, 1, 2, 1, 0}}, 32, 0},
};

static uint8_t clamp_pixel(int v)
{
    return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
}

static void synthesize_image(uint8_t *img)
{
    uint32_t s = 12345u;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            s = s * 1664525u + 1013904223u;
            double v = 128.0 + 60.0 * sin(x * 0.013) * cos(y * 0.021) +
                       40.0 * (((x / 64) + (y / 64)) % 2 ? 1.0 : -1.0) + (double)(s >> 28) - 8.0;
            img[(size_t)y * W + x] = clamp_pixel((int)v);
        }
}

static int write_image(const char *path, const uint8_t *img)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return -1; }
    for (int y = 0; y < H; y += STRIP)
        if (fwrite(img + (size_t)y * W, 1, (size_t)STRIP * W, f) != (size_t)STRIP * W) { fclose(f); return -1; }
    return fclose(f);
}

/* Filter rows [y0, y0+rows) of an image whose rows [y0-top, y0+rows+bot) are in src. */
static void filter_rows(const kernel_t *k, const uint8_t *src, int src_first_row, int src_rows,
                        uint8_t *dst, int y0, int rows)
{
    if (y0 - 2 < src_first_row && y0 > 0) return;
    if (y0 + rows + 2 > src_first_row + src_rows && y0 + rows < H) return;
    for (int y = y0; y < y0 + rows; y++) {
        for (int x = 0; x < W; x++) {
            int acc = 0;
            for (int dy = -2; dy <= 2; dy++) {
                int yy = y + dy;
                if (yy < 0) yy = 0;
                if (yy >= H) yy = H - 1;
                const uint8_t *row = src + (size_t)(yy - src_first_row) * W;
                for (int dx = -2; dx <= 2; dx++) {
                    int xx = x + dx;
                    if (xx < 0) xx = 0;
                    if (xx >= W) xx = W - 1;
                    acc += k->k[dy + 2][dx + 2] * row[xx];
                }
            }
            dst[(size_t)(y - y0) * W + x] = clamp_pixel(acc / k->divisor + k->offset);
        }
    }
}

static int convolve_pass(const kernel_t *k, const char *inpath, const char *outpath)
{
    FILE *in = fopen(inpath, "rb");
    FILE *out = fopen(outpath, "wb");
    if (!in || !out) { perror("convolve_pass open"); return -1; }
    uint8_t *src = malloc((size_t)(STRIP + 2 * HALO) * W);
    uint8_t *dst = malloc((size_t)STRIP * W);
    for (int y0 = 0; y0 < H; y0 += STRIP) {
        int first = y0 - HALO < 0 ? 0 : y0 - HALO;
        int last = y0 + STRIP + HALO > H ? H : y0 + STRIP + HALO;
        int nrows = last - first;
        if (fseek(in, (long)first * W, SEEK_SET) != 0 ||
            fread(src, 1, (size_t)nrows * W, in) != (size_t)nrows * W) {
            fprintf(stderr, "short read in pass %s at row %d\n", k->name, y0);
            fclose(in); fclose(out);
            return -1;
        }
        filter_rows(k, src, first, nrows, dst, y0, STRIP);
        if (fwrite(dst, 1, (size_t)STRIP * W, out) != (size_t)STRIP * W) {
            fclose(in); fclose(out);
            return -1;
        }
    }
    free(src);
    free(dst);
    fclose(in);
    return fclose(out);
}

static void reference_filter(uint8_t *img)
{
    uint8_t *tmp = malloc((size_t)W * H);
    for (int p = 0; p < NPASS; p++) {
        filter_rows(&passes[p], img, 0, H, tmp, 0, H);
        memcpy(img, tmp, (size_t)W * H);
    }
    free(tmp);
}

static long compare_with_file(const char *path, const uint8_t *ref, unsigned long *sum)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint8_t *row = malloc(W);
    long diff = 0;
    *sum = 0;
    for (int y = 0; y < H; y++) {
        if (fread(row, 1, W, f) != W) { diff = -1; break; }
        for (int x = 0; x < W; x++) {
            if (row[x] != ref[(size_t)y * W + x]) diff++;
            *sum += row[x];
        }
    }
    free(row);
    fclose(f);
    return diff;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char path[NPASS + 1][4096];
    for (int p = 0; p <= NPASS; p++)
        snprintf(path[p], sizeof path[p], "%s/image_pass%d.raw", argv[1], p);

    uint8_t *img = malloc((size_t)W * H);
    synthesize_image(img);
    if (write_image(path[0], img) != 0) { fprintf(stderr, "cannot write input image\n"); return 1; }
    for (int p = 0; p < NPASS; p++)
        if (convolve_pass(&passes[p], path[p], path[p + 1]) != 0) return 1;

    reference_filter(img);
    unsigned long sum;
    long diff = compare_with_file(path[NPASS], img, &sum);
    printf("img_strips: %d passes over %dx%d, mean %.3f, differing pixels %ld\n",
           NPASS, W, H, (double)sum / ((double)W * H), diff);
    free(img);
    return diff == 0 ? 0 : 1;
}
