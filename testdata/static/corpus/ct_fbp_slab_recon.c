/*
 * ct_fbp_slab_recon.c
 *
 * Slice-by-slice filtered back-projection (FBP) reconstruction of a 3-D
 * Shepp-Logan head phantom from parallel-beam projections.
 *
 *  1. Analytic line integrals through the ellipsoid phantom (plus detector
 *     noise) are written slice by slice to sinogram.f32.
 *  2. The reconstruction proceeds in slabs of SLAB slices: the slab's
 *     sinograms are read back, ramp-filtered (Shepp-Logan window, FFT
 *     convolution) and back-projected.
 *  3. Each slab is cut into BX x BY x SLAB bricks which are appended to
 *     volume.bricks; after every brick the stream is flushed and the file
 *     data is committed with fdatasync so that a viewer can page bricks in
 *     while the scan is still being reconstructed.  A brick directory
 *     (offset, min, max, checksum) is appended and flushed per brick.
 *  4. A mid-slab PGM preview is written per slab; finally every brick is
 *     re-read and checked and the reconstruction error against the
 *     voxelised phantom is reported.
 *
 * Usage: ct_fbp_slab_recon OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N       160           /* reconstruction grid N x N */
#define NZ      96            /* slices */
#define NANG    100           /* projection angles over 180 degrees */
#define NDET    256           /* detector bins */
#define NFFT    512           /* zero-padded FFT length */
#define SLAB    16            /* slices per slab */
#define BX      32
#define BY      32
#define PI      3.14159265358979323846

typedef struct { double x0, y0, z0, a, b, c, phi, rho; } ellipsoid;

static const ellipsoid phantom[10] = {
    { 0.00,  0.0000,  0.00, 0.6900, 0.920, 0.810,   0.0,  1.0},
    { 0.00, -0.0184,  0.00, 0.6624, 0.874, 0.780,   0.0, -0.8},
    { 0.22,  0.0000,  0.00, 0.1100, 0.310, 0.220, -18.0, -0.2},
    {-0.22,  0.0000,  0.00, 0.1600, 0.410, 0.280,  18.0, -0.2},
    { 0.00,  0.3500, -0.15, 0.2100, 0.250, 0.410,   0.0,  0.1},
    { 0.00,  0.1000,  0.25, 0.0460, 0.046, 0.050,   0.0,  0.1},
    { 0.00, -0.1000,  0.25, 0.0460, 0.046, 0.050,   0.0,  0.1},
    {-0.08, -0.6050,  0.00, 0.0460, 0.023, 0.050,   0.0,  0.1},
    { 0.00, -0.6060,  0.00, 0.0230, 0.023, 0.020,   0.0,  0.1},
    { 0.06, -0.6050,  0.00, 0.0230, 0.046, 0.020,   0.0,  0.1},
};

static const char *g_dir;
static double cos_t[NANG], sin_t[NANG];

static void die(const char *what, const char *name)
{
    fprintf(stderr, "ct_fbp_slab_recon: %s %s: %s\n", what, name, strerror(errno));
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    return p;
}

static FILE *open_in_dir(const char *file, const char *mode, char *path, size_t plen)
{
    snprintf(path, plen, "%s/%s", g_dir, file);
    FILE *fp = fopen(path, mode);
    if (!fp) die("fopen", path);
    return fp;
}

static uint64_t rng_state = 0x7F4A7C15F39CC060ull;

/* a batch of standard normal deviates (xorshift64 + Box-Muller), n even */
static void fill_gauss(double *g, int n)
{
    for (int i = 0; i + 1 < n; i += 2) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            rng_state ^= rng_state << 13;
            rng_state ^= rng_state >> 7;
            rng_state ^= rng_state << 17;
            u[k] = ((double)(rng_state >> 11) + 0.5) * 0x1.0p-53;
        }
        double r = sqrt(-2.0 * log(u[0]));
        g[i] = r * cos(2.0 * PI * u[1]);
        g[i + 1] = r * sin(2.0 * PI * u[1]);
    }
}

static double slice_z(int iz) { return -0.9 + 1.8 * (iz + 0.5) / NZ; }
static double det_t(int k) { return (k - NDET / 2 + 0.5) * (2.0 / N); }

/* 1. analytic parallel projections of every slice, written slice-major */
static void generate_sinograms(void)
{
    char path[1024];
    FILE *fp = open_in_dir("sinogram.f32", "wb", path, sizeof path);
    float *sino = xmalloc(sizeof(float) * NANG * NDET);
    double *noise = xmalloc(sizeof(double) * NANG * NDET);
    double tdet[NDET];
    for (int k = 0; k < NDET; k++) tdet[k] = det_t(k);
    const double photons = 2.0e4;

    for (int iz = 0; iz < NZ; iz++) {
        double z = slice_z(iz);
        memset(sino, 0, sizeof(float) * NANG * NDET);
        for (int e = 0; e < 10; e++) {
            const ellipsoid *E = &phantom[e];
            double dz = (z - E->z0) / E->c;
            if (fabs(dz) >= 1.0) continue;
            double sc = sqrt(1.0 - dz * dz);
            double A = E->a * sc, B = E->b * sc, al = E->phi * PI / 180.0;
            for (int ia = 0; ia < NANG; ia++) {
                double th = PI * ia / NANG;
                double ca = cos(th - al), sa = sin(th - al);
                double a2 = A * A * ca * ca + B * B * sa * sa;
                double s0 = E->x0 * cos_t[ia] + E->y0 * sin_t[ia];
                for (int k = 0; k < NDET; k++) {
                    double s = tdet[k] - s0;
                    if (s * s < a2)
                        sino[ia * NDET + k] += (float)(2.0 * E->rho * A * B * sqrt(a2 - s * s) / a2);
                }
            }
        }
        /* transmission noise: I = I0 exp(-p), Gaussian approximation */
        fill_gauss(noise, NANG * NDET);
        for (int i = 0; i < NANG * NDET; i++) {
            double p = sino[i] * 0.5;
            double I = photons * exp(-p);
            I += sqrt(I) * noise[i];
            if (I < 1.0) I = 1.0;
            sino[i] = (float)(-log(I / photons) / 0.5);
        }
        if (fwrite(sino, sizeof(float), NANG * NDET, fp) != (size_t)(NANG * NDET))
            die("fwrite", path);
    }
    if (fclose(fp) != 0) die("fclose", path);
    free(sino);
    free(noise);
}

/* in-place iterative radix-2 complex FFT (sign = -1 forward, +1 inverse) */
static void fft(double *re, double *im, int n, int sign)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i]; re[i] = re[j]; re[j] = t;
            t = im[i]; im[i] = im[j]; im[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = sign * 2.0 * PI / len;
        double wr = cos(ang), wi = sin(ang);
        for (int i = 0; i < n; i += len) {
            double cr = 1.0, ci = 0.0;
            for (int k = 0; k < len / 2; k++) {
                double ur = re[i + k], ui = im[i + k];
                double vr = re[i + k + len / 2] * cr - im[i + k + len / 2] * ci;
                double vi = re[i + k + len / 2] * ci + im[i + k + len / 2] * cr;
                re[i + k] = ur + vr; im[i + k] = ui + vi;
                re[i + k + len / 2] = ur - vr; im[i + k + len / 2] = ui - vi;
                double t = cr * wr - ci * wi;
                ci = cr * wi + ci * wr;
                cr = t;
            }
        }
    }
}

static double filt_H[NFFT];

/* spatial Ram-Lak kernel (Kak & Slaney) -> frequency response, with a
 * Shepp-Logan sinc window */
static void build_ramp_filter(void)
{
    double re[NFFT], im[NFFT];
    double tau = 2.0 / N;
    for (int n = 0; n < NFFT; n++) {
        int k = n <= NFFT / 2 ? n : n - NFFT;
        if (k == 0) re[n] = 1.0 / (4.0 * tau * tau);
        else if (k % 2 == 0) re[n] = 0.0;
        else re[n] = -1.0 / (PI * PI * k * k * tau * tau);
        im[n] = 0.0;
    }
    fft(re, im, NFFT, -1);
    for (int n = 0; n < NFFT; n++) {
        int k = n <= NFFT / 2 ? n : n - NFFT;
        double f = (double)k / NFFT;
        double w = (k == 0) ? 1.0 : sin(PI * f) / (PI * f);
        filt_H[n] = re[n] * w * tau;
    }
}

/* 2. read one slab of sinograms back and ramp-filter every projection */
static void read_and_filter_slab(FILE *fp, const char *path, int z0, float *sino, double *filt)
{
    size_t per = (size_t)NANG * NDET;
    if (fseek(fp, (long)(z0 * per * sizeof(float)), SEEK_SET) != 0) die("fseek", path);
    if (fread(sino, sizeof(float), per * SLAB, fp) != per * SLAB) die("fread", path);

    double re[NFFT], im[NFFT];
    for (int s = 0; s < SLAB; s++) {
        for (int ia = 0; ia < NANG; ia++) {
            const float *row = sino + (size_t)s * per + (size_t)ia * NDET;
            for (int k = 0; k < NFFT; k++) {
                re[k] = k < NDET ? row[k] : 0.0;
                im[k] = 0.0;
            }
            fft(re, im, NFFT, -1);
            for (int k = 0; k < NFFT; k++) { re[k] *= filt_H[k]; im[k] *= filt_H[k]; }
            fft(re, im, NFFT, +1);
            double *out = filt + (size_t)s * per + (size_t)ia * NDET;
            for (int k = 0; k < NDET; k++) out[k] = re[k] / NFFT;
        }
    }
}

/* 3. pixel-driven back-projection with linear interpolation */
static void backproject_slab(const double *filt, float *slab)
{
    size_t per = (size_t)NANG * NDET;
    double scale = PI / NANG;
    double t0 = det_t(0), inv_dt = N / 2.0;
    for (int s = 0; s < SLAB; s++) {
        float *img = slab + (size_t)s * N * N;
        for (int iy = 0; iy < N; iy++) {
            double y = -1.0 + (iy + 0.5) * 2.0 / N;
            for (int ix = 0; ix < N; ix++) {
                double x = -1.0 + (ix + 0.5) * 2.0 / N;
                double acc = 0.0;
                for (int ia = 0; ia < NANG; ia++) {
                    double u = (x * cos_t[ia] + y * sin_t[ia] - t0) * inv_dt;
                    int k = (int)u;
                    double f = u - k;
                    const double *row = filt + (size_t)s * per + (size_t)ia * NDET;
                    if (k >= 0 && k + 1 < NDET) acc += row[k] + f * (row[k + 1] - row[k]);
                }
                img[iy * N + ix] = (float)(acc * scale);
            }
        }
    }
}

static uint32_t fletcher32(const float *v, size_t n)
{
    const uint16_t *p = (const uint16_t *)(const void *)v;
    size_t words = n * 2;
    uint32_t s1 = 0xffff, s2 = 0xffff;
    while (words) {
        size_t t = words > 359 ? 359 : words;
        words -= t;
        do { s1 += *p++; s2 += s1; } while (--t);
        s1 = (s1 & 0xffff) + (s1 >> 16);
        s2 = (s2 & 0xffff) + (s2 >> 16);
    }
    s1 = (s1 & 0xffff) + (s1 >> 16);
    s2 = (s2 & 0xffff) + (s2 >> 16);
    return s2 << 16 | s1;
}

/* 4. cut a slab into bricks; write, flush and fdatasync each one */
static long write_slab_bricks(FILE *vol, const char *vpath, FILE *idx, const char *ipath,
                              const float *slab, int slab_no, long offset)
{
    float brick[BX * BY * SLAB];
    for (int by = 0; by < N / BY; by++) {
        for (int bx = 0; bx < N / BX; bx++) {
            float mn = 1e30f, mx = -1e30f;
            for (int s = 0; s < SLAB; s++)
                for (int j = 0; j < BY; j++)
                    for (int i = 0; i < BX; i++) {
                        float v = slab[(size_t)s * N * N + (size_t)(by * BY + j) * N + bx * BX + i];
                        brick[(s * BY + j) * BX + i] = v;
                        if (v < mn) mn = v;
                        if (v > mx) mx = v;
                    }
            uint32_t ck = fletcher32(brick, BX * BY * SLAB);
            if (fwrite(brick, sizeof brick, 1, vol) != 1) die("fwrite", vpath);
            if (fflush(vol) != 0) die("fflush", vpath);
            if (fdatasync(fileno(vol)) != 0) die("fdatasync", vpath);
            if (fprintf(idx, "%d %d %d %ld %.6f %.6f %08x\n", slab_no, by, bx, offset, mn, mx, ck) < 0)
                die("fprintf", ipath);
            if (fflush(idx) != 0) die("fflush", ipath);
            offset += (long)sizeof brick;
        }
    }
    return offset;
}

/* mid-slab preview, windowed to soft tissue */
static void write_preview_pgm(const float *slab, int slab_no)
{
    char file[64], path[1024];
    snprintf(file, sizeof file, "preview_slab%02d.pgm", slab_no);
    FILE *fp = open_in_dir(file, "w", path, sizeof path);
    const float *img = slab + (size_t)(SLAB / 2) * N * N;
    if (fprintf(fp, "P2\n%d %d\n255\n", N, N) < 0) die("fprintf", path);
    for (int iy = N - 1; iy >= 0; iy--) {
        for (int ix = 0; ix < N; ix++) {
            double v = (img[iy * N + ix] - 0.0) / 0.35;
            int g = (int)(255.0 * (v < 0 ? 0 : v > 1 ? 1 : v));
            if (fprintf(fp, "%d%c", g, ix + 1 == N ? '\n' : ' ') < 0) die("fprintf", path);
        }
    }
    if (fclose(fp) != 0) die("fclose", path);
}

static double ph_cos[10], ph_sin[10];

/* reconstruction error of one slab against the phantom sampled at voxel
 * centres, inside the skull only; the phantom is rasterised one image row
 * at a time, ellipsoid by ellipsoid */
static void slab_error(const float *slab, int z0, double *sse, long *cnt)
{
    double ref[N];
    for (int s = 0; s < SLAB; s++) {
        double z = slice_z(z0 + s);
        for (int iy = 0; iy < N; iy++) {
            double y = -1.0 + (iy + 0.5) * 2.0 / N;
            for (int ix = 0; ix < N; ix++) ref[ix] = 0.0;
            for (int e = 0; e < 10; e++) {
                const ellipsoid *E = &phantom[e];
                double dz = (z - E->z0) / E->c, dy = y - E->y0;
                if (fabs(dz) >= 1.0) continue;
                for (int ix = 0; ix < N; ix++) {
                    double dx = -1.0 + (ix + 0.5) * 2.0 / N - E->x0;
                    double xr = dx * ph_cos[e] + dy * ph_sin[e];
                    double yr = -dx * ph_sin[e] + dy * ph_cos[e];
                    if (xr * xr / (E->a * E->a) + yr * yr / (E->b * E->b) + dz * dz <= 1.0) ref[ix] += E->rho;
                }
            }
            for (int ix = 0; ix < N; ix++)
                if (ref[ix] > 0.05) {
                    double d = slab[(size_t)s * N * N + iy * N + ix] - ref[ix];
                    *sse += d * d;
                    (*cnt)++;
                }
        }
    }
}

/* 5. re-read every brick through the directory and verify checksums */
static int verify_bricks(double *vmin, double *vmax)
{
    char vpath[1024], ipath[1024], line[256];
    FILE *vol = open_in_dir("volume.bricks", "rb", vpath, sizeof vpath);
    FILE *idx = open_in_dir("volume.index", "r", ipath, sizeof ipath);
    float brick[BX * BY * SLAB];
    int nbad = 0, nb = 0;
    *vmin = 1e30; *vmax = -1e30;
    while (fgets(line, sizeof line, idx)) {
        int sl, by, bx;
        long off;
        double mn, mx;
        unsigned ck;
        if (line[0] == '#') continue;
        if (sscanf(line, "%d %d %d %ld %lf %lf %x", &sl, &by, &bx, &off, &mn, &mx, &ck) != 7) {
            fprintf(stderr, "bad index line: %s", line);
            exit(1);
        }
        if (fseek(vol, off, SEEK_SET) != 0) die("fseek", vpath);
        if (fread(brick, sizeof brick, 1, vol) != 1) die("fread", vpath);
        if (fletcher32(brick, BX * BY * SLAB) != ck) nbad++;
        if (mn < *vmin) *vmin = mn;
        if (mx > *vmax) *vmax = mx;
        nb++;
    }
    if (ferror(idx)) die("fgets", ipath);
    if (fclose(idx) != 0 || fclose(vol) != 0) die("fclose", vpath);
    if (nb != (NZ / SLAB) * (N / BY) * (N / BX)) {
        fprintf(stderr, "brick count mismatch: %d\n", nb);
        exit(1);
    }
    return nbad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    for (int ia = 0; ia < NANG; ia++) {
        cos_t[ia] = cos(PI * ia / NANG);
        sin_t[ia] = sin(PI * ia / NANG);
    }
    for (int e = 0; e < 10; e++) {
        ph_cos[e] = cos(phantom[e].phi * PI / 180.0);
        ph_sin[e] = sin(phantom[e].phi * PI / 180.0);
    }

    generate_sinograms();
    build_ramp_filter();

    char spath[1024], vpath[1024], ipath[1024];
    FILE *sfp = open_in_dir("sinogram.f32", "rb", spath, sizeof spath);
    FILE *vol = open_in_dir("volume.bricks", "wb", vpath, sizeof vpath);
    FILE *idx = open_in_dir("volume.index", "w", ipath, sizeof ipath);
    if (fprintf(idx, "# slab by bx offset min max fletcher32  (brick %dx%dx%d float32)\n",
                BX, BY, SLAB) < 0)
        die("fprintf", ipath);

    float *sino = xmalloc(sizeof(float) * NANG * NDET * SLAB);
    double *filt = xmalloc(sizeof(double) * NANG * NDET * SLAB);
    float *slab = xmalloc(sizeof(float) * N * N * SLAB);
    long offset = 0;
    double sse = 0.0;
    long cnt = 0;
    for (int sl = 0; sl < NZ / SLAB; sl++) {
        read_and_filter_slab(sfp, spath, sl * SLAB, sino, filt);
        backproject_slab(filt, slab);
        offset = write_slab_bricks(vol, vpath, idx, ipath, slab, sl, offset);
        write_preview_pgm(slab, sl);
        slab_error(slab, sl * SLAB, &sse, &cnt);
    }
    if (fclose(sfp) != 0) die("fclose", spath);
    if (fsync(fileno(vol)) != 0) die("fsync", vpath);
    if (fclose(vol) != 0) die("fclose", vpath);
    if (fclose(idx) != 0) die("fclose", ipath);
    free(sino); free(filt); free(slab);

    double vmin, vmax;
    int nbad = verify_bricks(&vmin, &vmax);
    double rmse = sqrt(sse / (cnt ? cnt : 1));

    char rpath[1024];
    FILE *rep = open_in_dir("recon_report.txt", "w", rpath, sizeof rpath);
    if (fprintf(rep, "grid %d x %d x %d, %d angles, %d detector bins\n", N, N, NZ, NANG, NDET) < 0 ||
        fprintf(rep, "bricks %d, bad checksums %d, bytes %ld\n",
                (NZ / SLAB) * (N / BY) * (N / BX), nbad, offset) < 0 ||
        fprintf(rep, "value range %.5f .. %.5f, RMSE inside head %.5f over %ld voxels\n",
                vmin, vmax, rmse, cnt) < 0)
        die("fprintf", rpath);
    if (fclose(rep) != 0) die("fclose", rpath);

    printf("ct_fbp_slab_recon: %d slices reconstructed, %ld bytes of bricks, RMSE %.4f, %d bad bricks\n",
           NZ, offset, rmse, nbad);
    return nbad ? 1 : 0;
}
