/*
 * Backyard-telescope time-series photometry of a delta Scuti field.
 * A night of 60 s CCD exposures is simulated once and written as FITS files
 * (bias and twilight-flat frames, 200 lights with Moffat PSFs, airmass
 * extinction, seeing changes, moonlight gradient, tracking drift and
 * periodic worm error) together with a text star catalogue.  The reduction
 * then reads the data set several times: master bias/flat by median
 * combination (fread), per-frame sky and drift measurement from sparse rows
 * and reference-star boxes (pread), aperture photometry of every catalogue
 * star on the memory-mapped frames, ensemble differential photometry with a
 * Lomb-Scargle search of the variable candidates, and a registered deep
 * stack (fread).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NX 512
#define NY 384
#define NPIX (NX * NY)
#define NBIAS 11
#define NFLAT 11
#define NLIGHT 200
#define NSTAR 160
#define NREF 6
#define FITS_BLOCK 2880
#define HDR_BYTES FITS_BLOCK
#define DATA_BYTES ((NPIX * 2 + FITS_BLOCK - 1) / FITS_BLOCK * FITS_BLOCK)
#define ZP 22.0
#define EXPTIME 60.0
#define CADENCE_S 72.0
#define R_AP 5.0
#define R_IN 9.0
#define R_OUT 13.0
#define NFREQ 6000
#define VAR_PERIOD 0.0767
#define EB_PERIOD 0.351

typedef struct { int id; double x, y, mag; char type[8]; } star_t;
typedef struct { double mjd, airmass, exptime; int imagetyp; } fitsinfo_t;

static star_t cat[NSTAR];
static uint64_t rng_s = 0xD1B54A32D192ED03ull;
static const char *outdir;

static double urand(void)
{
    rng_s ^= rng_s << 13; rng_s ^= rng_s >> 7; rng_s ^= rng_s << 17;
    return ((rng_s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* approximate unit normal: Irwin-Hall sum of four uniforms */
static double nrand(void)
{
    return (urand() + urand() + urand() + urand() - 2.0) * 1.7320508;
}

/* a row of approximate unit normals, generator state kept in registers */
static void gauss_row(double *z, int n)
{
    uint64_t s = rng_s;
    for (int i = 0; i < n; i++) {
        double acc = 0.0;
        for (int k = 0; k < 4; k++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            acc += ((s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        }
        z[i] = (acc - 2.0) * 1.7320508;
    }
    rng_s = s;
}

static double flat_pattern(int x, int y)
{
    double dx = (x - NX / 2.0) / NX, dy = (y - NY / 2.0) / NX;
    double f = 1.0 - 0.6 * (dx * dx + dy * dy);
    double dd = hypot(x - 140.0, y - 250.0);
    if (dd > 9.0 && dd < 16.0) f *= 0.96;
    f *= 1.0 + 0.008 * sin(x * 12.9898 + y * 78.233);
    return f;
}

static void make_catalog(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/field_catalog.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# id x_ref y_ref Vmag type\n");
    for (int i = 0; i < NSTAR; i++) {
        star_t *s = &cat[i];
        s->id = i + 1;
        s->x = 24 + (NX - 48) * urand();
        s->y = 24 + (NY - 48) * urand();
        s->mag = 9.0 + 6.5 * pow(urand(), 0.45);
        strcpy(s->type, "const");
        if (i == 0) { s->x = 255.3; s->y = 190.7; s->mag = 11.2; strcpy(s->type, "dsct"); }
        if (i == 1) { s->mag = 12.4; strcpy(s->type, "eb"); }
        fprintf(f, "%d %.3f %.3f %.3f %s\n", s->id, s->x, s->y, s->mag, s->type);
    }
    fclose(f);
}

static double true_mag(const star_t *s, double mjd)
{
    if (strcmp(s->type, "dsct") == 0) {
        double ph = fmod(mjd / VAR_PERIOD, 1.0) * 2 * M_PI;
        return s->mag - 0.22 * sin(ph) - 0.07 * sin(2 * ph + 0.8) - 0.03 * sin(3 * ph + 1.9);
    }
    if (strcmp(s->type, "eb") == 0) {
        double ph = fmod(mjd / EB_PERIOD, 1.0);
        double d1 = fmin(ph, 1 - ph), d2 = fabs(ph - 0.5);
        return s->mag + 0.45 * exp(-pow(d1 / 0.045, 2)) + 0.2 * exp(-pow(d2 / 0.045, 2));
    }
    return s->mag;
}

static void write_fits(const char *name, const uint16_t *img, const fitsinfo_t *fi)
{
    static const char *types[] = {"BIAS", "FLAT", "LIGHT"};
    char path[512], hdr[HDR_BYTES + 1], card[81];
    static unsigned char data[DATA_BYTES];
    memset(hdr, ' ', HDR_BYTES);
    int nc = 0;
#define CARD(...) do { snprintf(card, sizeof card, __VA_ARGS__); memcpy(hdr + 80 * nc++, card, strlen(card)); } while (0)
    CARD("SIMPLE  = %20s", "T");
    CARD("BITPIX  = %20d", 16);
    CARD("NAXIS   = %20d", 2);
    CARD("NAXIS1  = %20d", NX);
    CARD("NAXIS2  = %20d", NY);
    CARD("BZERO   = %20.1f", 32768.0);
    CARD("BSCALE  = %20.1f", 1.0);
    CARD("IMAGETYP= '%-8s'", types[fi->imagetyp]);
    CARD("EXPTIME = %20.3f", fi->exptime);
    CARD("MJD-OBS = %20.8f", fi->mjd);
    CARD("AIRMASS = %20.5f", fi->airmass);
    CARD("FILTER  = '%-8s'", "V");
    CARD("OBJECT  = '%-8s'", "DSCT_FLD");
    CARD("END");
#undef CARD
    memset(data, 0, sizeof data);
    for (int p = 0; p < NPIX; p++) {
        uint16_t v = img[p] ^ 0x8000u;     /* value - BZERO as two's complement */
        data[2 * p] = (unsigned char)(v >> 8);
        data[2 * p + 1] = (unsigned char)(v & 0xFF);
    }
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(hdr, 1, HDR_BYTES, f) != HDR_BYTES || fwrite(data, 1, DATA_BYTES, f) != DATA_BYTES) {
        perror(path); exit(1);
    }
    fclose(f);
}

static uint16_t clip16(double v) { return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v); }

static void simulate_night(void)
{
    static double img[NPIX];
    static uint16_t out[NPIX];
    static double bias_col[NX], flatp[NPIX], z[NX];
    char name[64];
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) flatp[y * NX + x] = flat_pattern(x, y);
    fitsinfo_t fi = {60000.0, 1.0, 0.0, 0};
    for (int x = 0; x < NX; x++) bias_col[x] = 1000.0 + 6.0 * sin(x * 0.37) + 3.0 * nrand();
    for (int k = 0; k < NBIAS; k++) {
        for (int y = 0; y < NY; y++) {
            gauss_row(z, NX);
            for (int x = 0; x < NX; x++) out[y * NX + x] = (uint16_t)fmin(65535.0, fmax(0.0, bias_col[x] + 8.0 * z[x]));
        }
        snprintf(name, sizeof name, "bias_%02d.fits", k);
        write_fits(name, out, &fi);
    }
    fi.imagetyp = 1; fi.exptime = 2.0;
    for (int k = 0; k < NFLAT; k++) {
        double level = 24000.0 * (1.0 - 0.04 * k);
        for (int y = 0; y < NY; y++) {
            gauss_row(z, NX);
            for (int x = 0; x < NX; x++) {
                double s = level * flatp[y * NX + x];
                out[y * NX + x] = (uint16_t)fmin(65535.0, fmax(0.0, bias_col[x] + s + sqrt(s) * z[x]));
            }
        }
        snprintf(name, sizeof name, "flat_%02d.fits", k);
        write_fits(name, out, &fi);
    }
    fi.imagetyp = 2; fi.exptime = EXPTIME;
    const double lat = 0.87, dec = 0.52;
    for (int j = 0; j < NLIGHT; j++) {
        double mjd = 60000.85 + j * CADENCE_S / 86400.0;
        double ha = -1.6 + 3.6 * j / NLIGHT;             /* hour angle in hours */
        double cz = sin(lat) * sin(dec) + cos(lat) * cos(dec) * cos(ha * M_PI / 12.0);
        double X = 1.0 / cz;
        double fwhm = (2.4 + 0.5 * sin(j * 0.05) + 0.15 * nrand()) * pow(X, 0.6);
        double alpha = fwhm / (2.0 * sqrt(pow(2.0, 1.0 / 3.0) - 1.0)), beta = 3.0;
        double sky = 250.0 + 60.0 * X + (j > NLIGHT / 2 ? 3.0 * (j - NLIGHT / 2) : 0.0);
        double dx = 0.03 * j + 1.4 * sin(2 * M_PI * j * CADENCE_S / 480.0), dy = -0.015 * j;
        fi.mjd = mjd; fi.airmass = X;
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                img[y * NX + x] = sky * (1.0 + 0.08 * (double)x / NX);
        for (int i = 0; i < NSTAR; i++) {
            double m = true_mag(&cat[i], mjd) + 0.21 * X;
            double flux = pow(10.0, -0.4 * (m - ZP)) * (1.0 + 0.004 * nrand());
            double norm = (beta - 1.0) / (M_PI * alpha * alpha);
            double cx = cat[i].x + dx, cy = cat[i].y + dy;
            for (int y = (int)cy - 12; y <= (int)cy + 12; y++)
                for (int x = (int)cx - 12; x <= (int)cx + 12; x++) {
                    if (x < 0 || y < 0 || x >= NX || y >= NY) continue;
                    double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                    double q = 1.0 / (1.0 + r2 / (alpha * alpha));
                    img[y * NX + x] += flux * norm * q * q * q;      /* Moffat, beta = 3 */
                }
        }
        for (int y = 0; y < NY; y++) {
            gauss_row(z, NX);
            for (int x = 0; x < NX; x++) {
                double s = img[y * NX + x] * flatp[y * NX + x];
                out[y * NX + x] = (uint16_t)fmin(65535.0, fmax(0.0, bias_col[x] + s + sqrt(s + 64.0) * z[x]));
            }
        }
        snprintf(name, sizeof name, "light_%04d.fits", j + 1);
        write_fits(name, out, &fi);
    }
}

static int read_catalog(star_t *c)
{
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/field_catalog.txt", outdir);
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    int n = 0;
    while (n < NSTAR && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (sscanf(line, "%d %lf %lf %lf %7s", &c[n].id, &c[n].x, &c[n].y, &c[n].mag, c[n].type) == 5) n++;
    }
    fclose(f);
    return n;
}

static void parse_header(const char *hdr, fitsinfo_t *fi)
{
    char card[81], key[9], sval[32];
    memset(fi, 0, sizeof *fi);
    for (int c = 0; c < HDR_BYTES / 80; c++) {
        memcpy(card, hdr + 80 * c, 80); card[80] = 0;
        if (strncmp(card, "END", 3) == 0) break;
        memcpy(key, card, 8); key[8] = 0;
        if (strncmp(key, "MJD-OBS", 7) == 0) sscanf(card + 10, "%lf", &fi->mjd);
        else if (strncmp(key, "AIRMASS", 7) == 0) sscanf(card + 10, "%lf", &fi->airmass);
        else if (strncmp(key, "EXPTIME", 7) == 0) sscanf(card + 10, "%lf", &fi->exptime);
        else if (strncmp(key, "IMAGETYP", 8) == 0 && sscanf(card + 10, " '%31[^' ]", sval) == 1)
            fi->imagetyp = strcmp(sval, "BIAS") == 0 ? 0 : strcmp(sval, "FLAT") == 0 ? 1 : 2;
    }
}

/* big-endian BITPIX=16 pixel p plus BZERO */
#define PIX(d, p) ((double)((uint16_t)(((d)[2 * (p)] << 8) | (d)[2 * (p) + 1]) ^ 0x8000u))

/* k-th smallest element (Hoare selection, partially reorders v). */
static double select_kth(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double piv = v[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < piv) i++;
            while (v[j] > piv) j--;
            if (i <= j) { double t = v[i]; v[i] = v[j]; v[j] = t; i++; j--; }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}

/* Median-combines calibration frames read whole with fread. */
static void build_master(const char *prefix, int n, const float *bias, float *master)
{
    unsigned char *stack = malloc((size_t)n * DATA_BYTES);
    char path[512], hdr[HDR_BYTES];
    fitsinfo_t fi;
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/%s_%02d.fits", outdir, prefix, k);
        FILE *f = fopen(path, "rb");
        if (!f || fread(hdr, 1, HDR_BYTES, f) != HDR_BYTES || fread(stack + (size_t)k * DATA_BYTES, 1, DATA_BYTES, f) != DATA_BYTES) {
            perror(path); exit(1);
        }
        fclose(f);
        parse_header(hdr, &fi);
    }
    double v[32], sum = 0;
    for (int p = 0; p < NPIX; p++) {
        for (int k = 0; k < n; k++) {            /* insertion sort of the n samples */
            double x = PIX(stack + (size_t)k * DATA_BYTES, p) - (bias ? bias[p] : 0.0);
            int i = k - 1;
            while (i >= 0 && v[i] > x) { v[i + 1] = v[i]; i--; }
            v[i + 1] = x;
        }
        master[p] = (float)v[n / 2];
        sum += master[p];
    }
    if (bias) for (int p = 0; p < NPIX; p++) master[p] = (float)(master[p] / (sum / NPIX));
    free(stack);
}

/* Sky level from every 6th row and drift from reference-star boxes, both
 * fetched with pread. */
static void sky_and_shift(int fd, const float *bias, const float *flat, const int *refs, double ref0[][2],
                          double *sky, double *sdx, double *sdy, int first)
{
    static unsigned char row[NX * 2];
    static double samp[NX * NY / 6 + 8];
    int ns = 0;
    for (int y = 3; y < NY; y += 6) {
        if (pread(fd, row, sizeof row, HDR_BYTES + (off_t)y * NX * 2) != (ssize_t)sizeof row) { perror("pread"); exit(1); }
        for (int x = 0; x < NX; x += 2) samp[ns++] = (PIX(row, x) - bias[y * NX + x]) / flat[y * NX + x];
    }
    double q1 = select_kth(samp, ns, ns / 4), q3 = select_kth(samp, ns, 3 * ns / 4);
    double med = select_kth(samp, ns, ns / 2), sig = 0.7413 * (q3 - q1), cm = med;
    for (int it = 0; it < 3; it++) {           /* sigma-clipped mean */
        double s = 0; int n = 0;
        for (int i = 0; i < ns; i++) if (fabs(samp[i] - cm) < 3.0 * sig) { s += samp[i]; n++; }
        if (n) cm = s / n;
    }
    *sky = cm;
    double sx = 0, sy = 0;
    for (int r = 0; r < NREF; r++) {
        const star_t *s = &cat[refs[r]];
        double gx = first ? s->x : ref0[r][0] + *sdx, gy = first ? s->y : ref0[r][1] + *sdy;
        int x0 = (int)gx - 8, y0 = (int)gy - 8;
        double m = 0, mx = 0, my = 0;
        for (int y = y0; y < y0 + 17; y++) {
            if (y < 0 || y >= NY || x0 < 0 || x0 + 17 > NX) continue;
            if (pread(fd, row, 17 * 2, HDR_BYTES + ((off_t)y * NX + x0) * 2) != 34) { perror("pread box"); exit(1); }
            for (int i = 0; i < 17; i++) {
                double v = (PIX(row, i) - bias[y * NX + x0 + i]) / flat[y * NX + x0 + i] - med;
                if (v > 0) { m += v; mx += v * (x0 + i); my += v * y; }
            }
        }
        if (m > 0) { mx /= m; my /= m; }
        if (first) { ref0[r][0] = mx; ref0[r][1] = my; }
        sx += mx - ref0[r][0]; sy += my - ref0[r][1];
    }
    *sdx = sx / NREF; *sdy = sy / NREF;
}

/* Aperture photometry of all stars on a memory-mapped frame. */
static void photometry_mmap(const char *path, const float *bias, const float *flat, double dx, double dy,
                            double *flux, double *err, double *fwhm)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    unsigned char *map = mmap(NULL, HDR_BYTES + DATA_BYTES, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) { perror("mmap"); exit(1); }
    const unsigned char *d = map + HDR_BYTES;
    double annulus[600], w2 = 0, wsum = 0;
    for (int i = 0; i < NSTAR; i++) {
        double cx = cat[i].x + dx, cy = cat[i].y + dy, sum = 0, mxx = 0;
        int nap = 0, nan = 0;
        for (int y = (int)(cy - R_OUT); y <= (int)(cy + R_OUT) + 1; y++)
            for (int x = (int)(cx - R_OUT); x <= (int)(cx + R_OUT) + 1; x++) {
                if (x < 0 || y < 0 || x >= NX || y >= NY) continue;
                double r = sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy));
                int p = y * NX + x;
                double v = (PIX(d, p) - bias[p]) / flat[p];
                if (r <= R_AP) { sum += v; nap++; mxx += v * r * r; }
                else if (r >= R_IN && r <= R_OUT && nan < 600) annulus[nan++] = v;
            }
        double sky = nan ? select_kth(annulus, nan, nan / 2) : 0.0;
        double f = sum - nap * sky;
        flux[i] = f;
        err[i] = sqrt(fabs(f) + nap * (sky + 64.0)) / fmax(f, 1.0);
        if (f > 2e4 && f < 4e5) {
            double s2 = (mxx - sky * nap * R_AP * R_AP / 2) / f / 2.0;
            if (s2 > 0) { w2 += f * 2.3548 * sqrt(s2); wsum += f; }
        }
    }
    *fwhm = wsum > 0 ? w2 / wsum : 0.0;
    munmap(map, HDR_BYTES + DATA_BYTES);
    close(fd);
}

static double lomb_scargle(const double *t, const double *y, int n, FILE *out, int id)
{
    double mean = 0, var = 0, best = 0, bestf = 0;
    for (int i = 0; i < n; i++) mean += y[i];
    mean /= n;
    for (int i = 0; i < n; i++) var += (y[i] - mean) * (y[i] - mean);
    var /= (n - 1);
    for (int k = 0; k < NFREQ; k++) {
        double f = 1.0 + 59.0 * k / NFREQ, w = 2 * M_PI * f, s2 = 0, c2 = 0;
        for (int i = 0; i < n; i++) { s2 += sin(2 * w * t[i]); c2 += cos(2 * w * t[i]); }
        double tau = atan2(s2, c2) / (2 * w), yc = 0, ys = 0, cc = 0, ss = 0;
        for (int i = 0; i < n; i++) {
            double c = cos(w * (t[i] - tau)), s = sin(w * (t[i] - tau)), d = y[i] - mean;
            yc += d * c; ys += d * s; cc += c * c; ss += s * s;
        }
        double p = (yc * yc / cc + ys * ys / ss) / (2 * var);
        if (k % 10 == 0) fprintf(out, "%d %.5f %.6f\n", id, f, p);
        if (p > best) { best = p; bestf = f; }
    }
    return bestf;
}

/* Registered deep stack: every light frame read whole with fread. */
static void deep_stack(const float *bias, const float *flat, const double *dx, const double *dy)
{
    float *acc = calloc(NPIX, sizeof(float));
    static unsigned char buf[DATA_BYTES];
    static uint16_t out[NPIX];
    char path[512];
    for (int j = 0; j < NLIGHT; j++) {
        snprintf(path, sizeof path, "%s/light_%04d.fits", outdir, j + 1);
        FILE *f = fopen(path, "rb");
        if (!f || fseek(f, HDR_BYTES, SEEK_SET) != 0 || fread(buf, 1, DATA_BYTES, f) != DATA_BYTES) { perror(path); exit(1); }
        fclose(f);
        int ix = (int)lround(dx[j]), iy = (int)lround(dy[j]);
        for (int y = 0; y < NY; y++) {
            int ys = y + iy;
            if (ys < 0 || ys >= NY) continue;
            for (int x = 0; x < NX; x++) {
                int xs = x + ix;
                if (xs < 0 || xs >= NX) continue;
                int p = ys * NX + xs;
                acc[y * NX + x] += (float)((PIX(buf, p) - bias[p]) / flat[p]);
            }
        }
    }
    for (int p = 0; p < NPIX; p++) out[p] = clip16(acc[p] / NLIGHT * 4.0);
    fitsinfo_t fi = {60000.85, 1.0, EXPTIME * NLIGHT, 2};
    write_fits("deep_stack.fits", out, &fi);
    free(acc);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    outdir = argv[1];
    make_catalog();
    simulate_night();

    memset(cat, 0, sizeof cat);
    int ns = read_catalog(cat);
    float *bias = malloc(NPIX * sizeof(float)), *flat = malloc(NPIX * sizeof(float));
    build_master("bias", NBIAS, NULL, bias);
    build_master("flat", NFLAT, bias, flat);

    int refs[NREF], nr = 0;
    for (int i = 2; i < ns && nr < NREF; i++)
        if (cat[i].mag < 11.5 && cat[i].x > 60 && cat[i].x < NX - 60 && cat[i].y > 60 && cat[i].y < NY - 60) refs[nr++] = i;
    double ref0[NREF][2], *dx = calloc(NLIGHT, sizeof(double)), *dy = calloc(NLIGHT, sizeof(double));
    double *mjd = malloc(NLIGHT * sizeof(double)), *am = malloc(NLIGHT * sizeof(double));
    double *flux = malloc((size_t)NLIGHT * NSTAR * sizeof(double)), *err = malloc((size_t)NLIGHT * NSTAR * sizeof(double));
    char path[512], hdr[HDR_BYTES];
    snprintf(path, sizeof path, "%s/photometry.txt", outdir);
    FILE *ph = fopen(path, "w");
    if (!ph) { perror(path); return 1; }
    fprintf(ph, "# frame mjd airmass sky dx dy fwhm star flux err\n");
    for (int j = 0; j < NLIGHT; j++) {
        snprintf(path, sizeof path, "%s/light_%04d.fits", outdir, j + 1);
        int fd = open(path, O_RDONLY);
        fitsinfo_t fi;
        if (fd < 0 || pread(fd, hdr, HDR_BYTES, 0) != HDR_BYTES) { perror(path); return 1; }
        parse_header(hdr, &fi);
        mjd[j] = fi.mjd; am[j] = fi.airmass;
        double sky, sdx = j ? dx[j - 1] : 0, sdy = j ? dy[j - 1] : 0, fwhm;
        sky_and_shift(fd, bias, flat, refs, ref0, &sky, &sdx, &sdy, j == 0);
        close(fd);
        dx[j] = sdx; dy[j] = sdy;
        photometry_mmap(path, bias, flat, sdx, sdy, flux + (size_t)j * NSTAR, err + (size_t)j * NSTAR, &fwhm);
        for (int i = 0; i < NSTAR; i++)
            fprintf(ph, "%d %.6f %.4f %.2f %.3f %.3f %.3f %d %.2f %.5f\n", j + 1, mjd[j], am[j], sky, sdx, sdy, fwhm,
                    cat[i].id, flux[(size_t)j * NSTAR + i], err[(size_t)j * NSTAR + i]);
    }
    fclose(ph);

    /* ensemble differential photometry */
    int comp[NSTAR], nc = 0;
    for (int i = 2; i < NSTAR; i++) if (cat[i].mag < 12.5) comp[nc++] = i;
    double *zp = malloc(NLIGHT * sizeof(double)), *tmp = malloc(NSTAR * sizeof(double));
    double *mbar = calloc(NSTAR, sizeof(double));
    for (int i = 0; i < NSTAR; i++) {
        for (int j = 0; j < NLIGHT; j++) mbar[i] += -2.5 * log10(fmax(flux[(size_t)j * NSTAR + i], 1.0));
        mbar[i] /= NLIGHT;
    }
    for (int j = 0; j < NLIGHT; j++) {
        for (int k = 0; k < nc; k++) tmp[k] = -2.5 * log10(fmax(flux[(size_t)j * NSTAR + comp[k]], 1.0)) - mbar[comp[k]];
        zp[j] = select_kth(tmp, nc, nc / 2);
    }
    snprintf(path, sizeof path, "%s/variability.txt", outdir);
    FILE *vf = fopen(path, "w");
    snprintf(path, sizeof path, "%s/periodograms.txt", outdir);
    FILE *pf = fopen(path, "w");
    if (!vf || !pf) { perror("open results"); return 1; }
    fprintf(vf, "# id Vcat mean_inst rms expected chi2r best_freq_cpd\n");
    double *t = malloc(NLIGHT * sizeof(double)), *y = malloc(NLIGHT * sizeof(double));
    for (int i = 0; i < NSTAR; i++) {
        double s = 0, s2 = 0, e2 = 0, chi = 0;
        for (int j = 0; j < NLIGHT; j++) {
            t[j] = mjd[j] - mjd[0];
            y[j] = -2.5 * log10(fmax(flux[(size_t)j * NSTAR + i], 1.0)) - zp[j];
            s += y[j]; s2 += y[j] * y[j];
            e2 += pow(1.0857 * err[(size_t)j * NSTAR + i], 2);
        }
        double mean = s / NLIGHT, rms = sqrt(fmax(0.0, s2 / NLIGHT - mean * mean)), ex = sqrt(e2 / NLIGHT);
        for (int j = 0; j < NLIGHT; j++) chi += pow((y[j] - mean) / fmax(1.0857 * err[(size_t)j * NSTAR + i], 1e-4), 2);
        chi /= (NLIGHT - 1);
        double bf = 0.0;
        if (chi > 5.0 && cat[i].mag < 14.0) bf = lomb_scargle(t, y, NLIGHT, pf, cat[i].id);
        fprintf(vf, "%d %.3f %.4f %.5f %.5f %.2f %.4f\n", cat[i].id, cat[i].mag, mean, rms, ex, chi, bf);
    }
    fclose(vf); fclose(pf);
    deep_stack(bias, flat, dx, dy);
    printf("reduced %d frames of %d stars; drift at end %.2f,%.2f px\n", NLIGHT, ns, dx[NLIGHT - 1], dy[NLIGHT - 1]);
    free(bias); free(flat); free(dx); free(dy); free(mjd); free(am); free(flux); free(err);
    free(zp); free(tmp); free(mbar); free(t); free(y);
    return 0;
}
