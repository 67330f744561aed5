/*
 * kuwahara_ppm: render a synthetic colour scene to a binary PPM, read it
 * back, apply an iterated Kuwahara (edge-preserving) filter computed with
 * summed-area tables, and write the result as PPM plus a Sobel edge map
 * as ASCII PGM and a per-channel histogram as CSV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define IMG_W      2400
#define IMG_H      1800
#define KUW_RADIUS 4
#define KUW_PASSES 3
#define MAXVAL     255

typedef struct {
    int w, h;
    unsigned char *rgb;
} image_t;

static char outdir[4096];

static FILE *open_out(const char *name, const char *mode)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", outdir, name);
    FILE *f = fopen(p, mode);
    if (!f) { perror(p); exit(1); }
    return f;
}

static void synth_scene(image_t *im)
{
    uint32_t s = 2463534242u;
    for (int y = 0; y < im->h; y++) {
        for (int x = 0; x < im->w; x++) {
            double u = (double)x / im->w, v = (double)y / im->h;
            double r = 0.5 + 0.5 * sin(9.0 * u + 3.0 * sin(5.0 * v));
            double g = 0.5 + 0.5 * cos(7.0 * v - 2.0 * u * u);
            double b = 0.4 + 0.3 * sin(25.0 * (u - 0.5) * (v - 0.3));
            for (int c = 0; c < 5; c++) {
                double cx = 0.15 + 0.17 * c, cy = 0.25 + 0.1 * (c % 3);
                double d2 = (u - cx) * (u - cx) + (v - cy) * (v - cy);
                if (d2 < 0.004 * (c + 1)) { r = 0.9 - 0.15 * c; g = 0.2 + 0.1 * c; b = 0.1 * c; }
            }
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            double nz = ((int)(s & 63) - 32) / 400.0;
            unsigned char *p = im->rgb + 3 * ((size_t)y * im->w + x);
            p[0] = (unsigned char)fmin(255.0, fmax(0.0, 255.0 * (r + nz)));
            p[1] = (unsigned char)fmin(255.0, fmax(0.0, 255.0 * (g + nz)));
            p[2] = (unsigned char)fmin(255.0, fmax(0.0, 255.0 * (b - nz)));
        }
    }
}

static void write_ppm(const char *name, const image_t *im)
{
    FILE *f = open_out(name, "wb");
    fprintf(f, "P6\n# kuwahara_ppm\n%d %d\n%d\n", im->w, im->h, MAXVAL);
    for (int y = 0; y < im->h; y++)
        fwrite(im->rgb + 3 * (size_t)y * im->w, 3, (size_t)im->w, f);
    fclose(f);
}

static image_t read_ppm(const char *name)
{
    FILE *f = open_out(name, "rb");
    char line[256];
    int fields[3], nf = 0;
    image_t im = {0, 0, NULL};
    if (!fgets(line, sizeof line, f) || strncmp(line, "P6", 2) != 0) {
        fprintf(stderr, "%s: not a P6 file\n", name); exit(1);
    }
    while (nf < 3 && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *p = line, *end;
        while (nf < 3) {
            long v = strtol(p, &end, 10);
            if (end == p) break;
            fields[nf++] = (int)v;
            p = end;
        }
    }
    im.w = fields[0];
    im.h = fields[1];
    im.rgb = malloc(3 * (size_t)im.w * im.h);
    if (fread(im.rgb, 3, (size_t)im.w * im.h, f) != (size_t)im.w * im.h) {
        fprintf(stderr, "%s: short read\n", name); exit(1);
    }
    fclose(f);
    return im;
}

/* Summed-area tables (one-pixel zero border) of R, G, B, luma and luma^2. */
static void build_sats(const image_t *im, double *sat[5])
{
    int W = im->w + 1;
    for (int k = 0; k < 5; k++) memset(sat[k], 0, sizeof(double) * W);
    for (int y = 0; y < im->h; y++) {
        double row[5] = {0, 0, 0, 0, 0};
        for (int k = 0; k < 5; k++) sat[k][(size_t)(y + 1) * W] = 0.0;
        for (int x = 0; x < im->w; x++) {
            const unsigned char *p = im->rgb + 3 * ((size_t)y * im->w + x);
            double L = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
            row[0] += p[0]; row[1] += p[1]; row[2] += p[2];
            row[3] += L; row[4] += L * L;
            size_t i = (size_t)(y + 1) * W + x + 1;
            for (int k = 0; k < 5; k++) sat[k][i] = sat[k][i - W] + row[k];
        }
    }
}

static void kuwahara_pass(const image_t *in, image_t *out, double *sat[5], int r)
{
    int W = in->w + 1;
    build_sats(in, sat);
    for (int y = 0; y < in->h; y++) {
        for (int x = 0; x < in->w; x++) {
            double best_var = 1e300, best[3] = {0, 0, 0};
            for (int q = 0; q < 4; q++) {
                int x0 = (q & 1) ? x : x - r, y0 = (q & 2) ? y : y - r;
                int x1 = x0 + r, y1 = y0 + r;
                if (x0 < 0) x0 = 0;
                if (y0 < 0) y0 = 0;
                if (x1 >= in->w) x1 = in->w - 1;
                if (y1 >= in->h) y1 = in->h - 1;
                size_t a = (size_t)y0 * W + x0, b = (size_t)y0 * W + x1 + 1;
                size_t c = (size_t)(y1 + 1) * W + x0, d = (size_t)(y1 + 1) * W + x1 + 1;
                double n = (double)(x1 - x0 + 1) * (y1 - y0 + 1);
                double m = (sat[3][d] - sat[3][b] - sat[3][c] + sat[3][a]) / n;
                double var = (sat[4][d] - sat[4][b] - sat[4][c] + sat[4][a]) / n - m * m;
                if (var < best_var) {
                    best_var = var;
                    for (int k = 0; k < 3; k++)
                        best[k] = (sat[k][d] - sat[k][b] - sat[k][c] + sat[k][a]) / n;
                }
            }
            unsigned char *o = out->rgb + 3 * ((size_t)y * in->w + x);
            for (int k = 0; k < 3; k++) o[k] = (unsigned char)(best[k] + 0.5);
        }
    }
}

static unsigned char *sobel_edges(const image_t *im)
{
    unsigned char *e = calloc((size_t)im->w * im->h, 1);
    float *L = malloc(sizeof(float) * im->w * im->h);
    for (size_t i = 0; i < (size_t)im->w * im->h; i++)
        L[i] = 0.299f * im->rgb[3 * i] + 0.587f * im->rgb[3 * i + 1] + 0.114f * im->rgb[3 * i + 2];
    for (int y = 1; y < im->h - 1; y++) {
        for (int x = 1; x < im->w - 1; x++) {
            const float *p = L + (size_t)y * im->w + x;
            int w = im->w;
            float gx = (p[-w + 1] + 2 * p[1] + p[w + 1]) - (p[-w - 1] + 2 * p[-1] + p[w - 1]);
            float gy = (p[w - 1] + 2 * p[w] + p[w + 1]) - (p[-w - 1] + 2 * p[-w] + p[-w + 1]);
            float g = sqrtf(gx * gx + gy * gy) * 0.25f;
            e[(size_t)y * w + x] = (unsigned char)(g > 255.0f ? 255 : g);
        }
    }
    free(L);
    return e;
}

static void write_pgm_ascii(const char *name, const unsigned char *g, int w, int h)
{
    FILE *f = open_out(name, "w");
    fprintf(f, "P2\n# sobel magnitude of filtered image\n%d %d\n%d\n", w, h, MAXVAL);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            fprintf(f, (x % 20 == 19 || x == w - 1) ? "%d\n" : "%d ", g[(size_t)y * w + x]);
    }
    fclose(f);
}

static void write_histogram(const char *name, const image_t *a, const image_t *b)
{
    long h[2][3][256];
    memset(h, 0, sizeof h);
    size_t n = (size_t)a->w * a->h;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            h[0][k][a->rgb[3 * i + k]]++;
            h[1][k][b->rgb[3 * i + k]]++;
        }
    FILE *f = open_out(name, "w");
    fprintf(f, "level,r_in,g_in,b_in,r_out,g_out,b_out\n");
    for (int v = 0; v < 256; v++)
        fprintf(f, "%d,%ld,%ld,%ld,%ld,%ld,%ld\n", v, h[0][0][v], h[0][1][v], h[0][2][v],
                h[1][0][v], h[1][1][v], h[1][2][v]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);

    image_t scene = { IMG_W, IMG_H, malloc(3 * (size_t)IMG_W * IMG_H) };
    synth_scene(&scene);
    write_ppm("scene.ppm", &scene);
    free(scene.rgb);

    image_t in = read_ppm("scene.ppm");
    image_t cur = { in.w, in.h, malloc(3 * (size_t)in.w * in.h) };
    image_t nxt = { in.w, in.h, malloc(3 * (size_t)in.w * in.h) };
    memcpy(cur.rgb, in.rgb, 3 * (size_t)in.w * in.h);
    double *sat[5];
    for (int k = 0; k < 5; k++) sat[k] = malloc(sizeof(double) * (in.w + 1) * (in.h + 1));
    for (int pass = 0; pass < KUW_PASSES; pass++) {
        kuwahara_pass(&cur, &nxt, sat, KUW_RADIUS + pass);
        image_t t = cur; cur = nxt; nxt = t;
        char name[64];
        snprintf(name, sizeof name, "kuwahara_pass%d.ppm", pass + 1);
        write_ppm(name, &cur);
    }
    unsigned char *edges = sobel_edges(&cur);
    write_pgm_ascii("edges.pgm", edges, cur.w, cur.h);
    write_histogram("histogram.csv", &in, &cur);
    printf("filtered %dx%d image, %d passes\n", in.w, in.h, KUW_PASSES);
    for (int k = 0; k < 5; k++) free(sat[k]);
    free(edges); free(in.rgb); free(cur.rgb); free(nxt.rgb);
    return 0;
}
