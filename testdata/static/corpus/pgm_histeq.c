/* Synthesises a batch of 16-bit grayscale PGM frames (noisy microscope-like
 * scenes), then equalises each frame's histogram, denoises it with a 3x3
 * median filter and writes 8-bit results, ASCII thumbnails and statistics. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NFRAMES 6
#define WIDTH 1280
#define HEIGHT 1024
#define MAXVAL 4095
#define NBLOBS 60
#define THUMB 8

static uint64_t rs = 88172645463325252ULL;

static double rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (rs >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
    double u = rnd() + 1e-12, v = rnd();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "pgm_histeq: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void synth_frame(uint16_t *img, int frame)
{
    double bx[NBLOBS], by[NBLOBS], bs[NBLOBS], ba[NBLOBS];
    for (int b = 0; b < NBLOBS; b++) {
        bx[b] = rnd() * WIDTH;
        by[b] = rnd() * HEIGHT;
        bs[b] = 6.0 + 30.0 * rnd();
        ba[b] = 300.0 + 1500.0 * rnd();
    }
    double drift = 0.1 * frame;
    for (int y = 0; y < HEIGHT; y++) {
        for (int x = 0; x < WIDTH; x++) {
            /* dim, uneven illumination */
            double v = 180.0 + 120.0 * sin(0.003 * x + drift) * cos(0.004 * y);
            for (int b = 0; b < NBLOBS; b++) {
                double dx = x - bx[b], dy = y - by[b];
                double r2 = dx * dx + dy * dy, s2 = bs[b] * bs[b];
                if (r2 < 9.0 * s2)
                    v += ba[b] * exp(-0.5 * r2 / s2);
            }
            v += 25.0 * gauss();
            if (v < 0)
                v = 0;
            if (v > MAXVAL)
                v = MAXVAL;
            img[(size_t)y * WIDTH + x] = (uint16_t)v;
        }
    }
}

static void write_pgm16(const char *path, const uint16_t *img, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    fprintf(f, "P5\n# synthetic frame\n%d %d\n%d\n", w, h, MAXVAL);
    uint8_t *row = malloc((size_t)w * 2);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint16_t v = img[(size_t)y * w + x];
            row[2 * x] = (uint8_t)(v >> 8);   /* PGM is big-endian */
            row[2 * x + 1] = (uint8_t)(v & 0xff);
        }
        if (fwrite(row, 2, (size_t)w, f) != (size_t)w)
            die("short write", path);
    }
    free(row);
    if (fclose(f) != 0)
        die("close", path);
}

static void skip_comments(FILE *f)
{
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#') {
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            ungetc(c, f);
            return;
        }
    }
}

static uint16_t *read_pgm16(const char *path, int *w, int *h, int *maxval)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    char magic[3] = {0};
    if (fread(magic, 1, 2, f) != 2 || strcmp(magic, "P5") != 0) {
        fprintf(stderr, "pgm_histeq: %s is not a binary PGM\n", path);
        exit(1);
    }
    skip_comments(f);
    if (fscanf(f, "%d", w) != 1) goto bad;
    skip_comments(f);
    if (fscanf(f, "%d", h) != 1) goto bad;
    skip_comments(f);
    if (fscanf(f, "%d", maxval) != 1) goto bad;
    fgetc(f); /* single whitespace before raster */

    size_t n = (size_t)(*w) * (*h);
    uint16_t *img = malloc(n * sizeof *img);
    uint8_t *raw = malloc(n * 2);
    if (fread(raw, 2, n, f) != n)
        die("short read", path);
    for (size_t i = 0; i < n; i++)
        img[i] = (uint16_t)((raw[2 * i] << 8) | raw[2 * i + 1]);
    free(raw);
    fclose(f);
    return img;
bad:
    fprintf(stderr, "pgm_histeq: malformed header in %s\n", path);
    exit(1);
}

static void histogram(const uint16_t *img, size_t n, long *hist, int maxval)
{
    memset(hist, 0, sizeof(long) * (maxval + 1));
    for (size_t i = 0; i < n; i++)
        hist[img[i]]++;
}

static void equalize(const uint16_t *img, size_t n, const long *hist, int maxval,
                     uint8_t *out)
{
    uint8_t *lut = malloc(maxval + 1);
    long cdf = 0, cdf_min = -1;
    for (int v = 0; v <= maxval; v++) {
        cdf += hist[v];
        if (cdf_min < 0 && cdf > 0)
            cdf_min = cdf;
        double t = (double)(cdf - cdf_min) / (double)(n - cdf_min);
        lut[v] = (uint8_t)lrint(255.0 * (t < 0 ? 0 : t));
    }
    for (size_t i = 0; i < n; i++)
        out[i] = lut[img[i]];
    free(lut);
}

static inline void sort2(uint8_t *a, uint8_t *b)
{
    if (*a > *b) {
        uint8_t t = *a;
        *a = *b;
        *b = t;
    }
}

static void median3x3(const uint8_t *in, uint8_t *out, int w, int h)
{
    memcpy(out, in, (size_t)w * h);
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            uint8_t p[9];
            int k = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    p[k++] = in[(size_t)(y + dy) * w + x + dx];
            /* partial sorting network for the median of 9 */
            sort2(&p[1], &p[2]); sort2(&p[4], &p[5]); sort2(&p[7], &p[8]);
            sort2(&p[0], &p[1]); sort2(&p[3], &p[4]); sort2(&p[6], &p[7]);
            sort2(&p[1], &p[2]); sort2(&p[4], &p[5]); sort2(&p[7], &p[8]);
            sort2(&p[0], &p[3]); sort2(&p[5], &p[8]); sort2(&p[4], &p[7]);
            sort2(&p[3], &p[6]); sort2(&p[1], &p[4]); sort2(&p[2], &p[5]);
            sort2(&p[4], &p[7]); sort2(&p[4], &p[2]); sort2(&p[6], &p[4]);
            sort2(&p[4], &p[2]);
            out[(size_t)y * w + x] = p[4];
        }
}

static void write_pgm8(const char *path, const uint8_t *img, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    fprintf(f, "P5\n%d %d\n255\n", w, h);
    if (fwrite(img, 1, (size_t)w * h, f) != (size_t)w * h)
        die("short write", path);
    if (fclose(f) != 0)
        die("close", path);
}

/* Box-downsampled plain (P2) thumbnail. */
static void write_thumbnail_ascii(const char *path, const uint8_t *img, int w, int h)
{
    int tw = w / THUMB, th = h / THUMB;
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot create", path);
    fprintf(f, "P2\n%d %d\n255\n", tw, th);
    for (int ty = 0; ty < th; ty++) {
        for (int tx = 0; tx < tw; tx++) {
            int s = 0;
            for (int y = 0; y < THUMB; y++)
                for (int x = 0; x < THUMB; x++)
                    s += img[(size_t)(ty * THUMB + y) * w + tx * THUMB + x];
            fprintf(f, "%d%c", s / (THUMB * THUMB), (tx + 1) % 16 ? ' ' : '\n');
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        die("close", path);
}

static void frame_stats(FILE *csv, int frame, const long *hist, int maxval, size_t n,
                        const uint8_t *eq)
{
    double mean = 0, var = 0;
    for (int v = 0; v <= maxval; v++)
        mean += (double)v * hist[v];
    mean /= n;
    for (int v = 0; v <= maxval; v++)
        var += hist[v] * (v - mean) * (v - mean);
    var /= n;
    long acc = 0;
    int p50 = 0, p99 = 0;
    for (int v = 0; v <= maxval; v++) {
        acc += hist[v];
        if (!p50 && acc >= (long)(0.5 * n)) p50 = v;
        if (!p99 && acc >= (long)(0.99 * n)) p99 = v;
    }
    long eh[256] = {0};
    for (size_t i = 0; i < n; i++)
        eh[eq[i]]++;
    double ent = 0;
    for (int v = 0; v < 256; v++)
        if (eh[v]) {
            double p = (double)eh[v] / n;
            ent -= p * log2(p);
        }
    fprintf(csv, "%d,%.2f,%.2f,%d,%d,%.4f\n", frame, mean, sqrt(var), p50, p99, ent);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    char sub[4096], path[4096];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die("mkdir", dir);
    snprintf(sub, sizeof sub, "%s/raw", dir);
    if (mkdir(sub, 0755) != 0 && errno != EEXIST)
        die("mkdir", sub);
    snprintf(sub, sizeof sub, "%s/eq", dir);
    if (mkdir(sub, 0755) != 0 && errno != EEXIST)
        die("mkdir", sub);

    uint16_t *img = malloc(sizeof(uint16_t) * WIDTH * HEIGHT);
    for (int fr = 0; fr < NFRAMES; fr++) {
        synth_frame(img, fr);
        snprintf(path, sizeof path, "%s/raw/frame_%03d.pgm", dir, fr);
        write_pgm16(path, img, WIDTH, HEIGHT);
    }
    free(img);

    snprintf(path, sizeof path, "%s/stats.csv", dir);
    FILE *csv = fopen(path, "w");
    if (!csv)
        die("cannot create", path);
    fprintf(csv, "frame,mean,std,p50,p99,entropy_eq\n");

    for (int fr = 0; fr < NFRAMES; fr++) {
        int w, h, maxval;
        snprintf(path, sizeof path, "%s/raw/frame_%03d.pgm", dir, fr);
        uint16_t *in = read_pgm16(path, &w, &h, &maxval);
        size_t n = (size_t)w * h;
        long *hist = malloc(sizeof(long) * (maxval + 1));
        uint8_t *eq = malloc(n), *den = malloc(n);

        histogram(in, n, hist, maxval);
        equalize(in, n, hist, maxval, eq);
        median3x3(eq, den, w, h);

        snprintf(path, sizeof path, "%s/eq/frame_%03d_eq.pgm", dir, fr);
        write_pgm8(path, den, w, h);
        snprintf(path, sizeof path, "%s/eq/frame_%03d_thumb.pgm", dir, fr);
        write_thumbnail_ascii(path, den, w, h);
        frame_stats(csv, fr, hist, maxval, n, den);

        free(in);
        free(hist);
        free(eq);
        free(den);
    }
    if (fclose(csv) != 0)
        die("close", "stats.csv");
    printf("processed %d frames of %dx%d\n", NFRAMES, WIDTH, HEIGHT);
    return 0;
}
