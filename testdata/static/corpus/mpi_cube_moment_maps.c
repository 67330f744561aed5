/*
 * mpi_cube_moment_maps.c
 *
 * Radio spectral-line cube reduction with MPI-IO.  A synthetic HI data cube
 * (rotating disk galaxies + channel-dependent noise, float32, FITS-like
 * 2880-byte ASCII header) is produced with a channel decomposition: rank 0
 * writes the header, every rank writes its channel slab with collective
 * MPI_File_write_at_all calls.  The slabs are read back plane by plane with
 * independent reads to estimate per-channel noise (median absolute
 * deviation), a smooth-and-mask source finder at several spatial scales
 * builds the emission mask (with halo channels exchanged between ranks),
 * partial moment sums are reduced across ranks, and moment-0/1/2 maps are
 * written collectively by row bands.  Detected peaks are appended to a
 * catalogue through the shared file pointer, and rank 0 extracts the
 * spectrum through each galaxy centre with a strided file view.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCHAN 224
#define NY 192
#define NX 192
#define HDR 2880
#define NGAL 5
#define V0 (-400.0)   /* km/s of channel 0 */
#define DV 4.0        /* km/s per channel */
#define WCHUNK 8      /* channels per collective write */

typedef struct {
    double x, y, vsys, vmax, rscale, pa, incl, flux;
} galaxy_t;

static int rank, nprocs, c0, nc;
static galaxy_t gal[NGAL];

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static uint64_t rs;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return ((double)(rs >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2.0 * log(urand())) * cos(2.0 * M_PI * urand());
}

static void init_galaxies(void)
{
    rs = 0xC0FFEE1234567ULL;
    for (int g = 0; g < NGAL; g++) {
        gal[g].x = 25 + urand() * (NX - 50);
        gal[g].y = 25 + urand() * (NY - 50);
        gal[g].vsys = -150 + 300 * urand();
        gal[g].vmax = 80 + 120 * urand();
        gal[g].rscale = 4 + 6 * urand();
        gal[g].pa = M_PI * urand();
        gal[g].incl = 0.4 + 0.9 * urand();
        gal[g].flux = 0.6 + 1.2 * urand();
    }
}

static double chan_rms(int c)
{
    return 0.05 * (1.0 + 0.3 * sin(c * 0.07)) * (c > NCHAN * 3 / 4 ? 1.4 : 1.0); /* RFI-ish band edge */
}

/* One channel plane: sum of thin rotating exponential disks + noise. */
static void synth_plane(int c, float *plane)
{
    double v = V0 + c * DV, sig_v = 12.0;
    rs = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)(c + 1) * 0x100000001B3ULL);
    for (int k = 0; k < 8; k++) urand();
    double rms = chan_rms(c);
    double cp[NGAL], sp[NGAL], ci[NGAL], si[NGAL];
    for (int g = 0; g < NGAL; g++) {
        cp[g] = cos(gal[g].pa);
        sp[g] = sin(gal[g].pa);
        ci[g] = cos(gal[g].incl);
        si[g] = sin(gal[g].incl);
    }
    for (size_t i = 0; i < (size_t)NY * NX; i++) plane[i] = (float)(rms * gauss());
    for (int g = 0; g < NGAL; g++) {
        double rmax = 6 * gal[g].rscale / ci[g];
        int ylo = (int)fmax(0, gal[g].y - rmax), yhi = (int)fmin(NY - 1, gal[g].y + rmax);
        int xlo = (int)fmax(0, gal[g].x - rmax), xhi = (int)fmin(NX - 1, gal[g].x + rmax);
        for (int y = ylo; y <= yhi; y++)
            for (int x = xlo; x <= xhi; x++) {
                double dx = x - gal[g].x, dy = y - gal[g].y;
                double xm = dx * cp[g] + dy * sp[g], ym = (-dx * sp[g] + dy * cp[g]) / ci[g];
                double r = sqrt(xm * xm + ym * ym);
                if (r > 6 * gal[g].rscale) continue;
                double vrot = gal[g].vmax * tanh(r / (0.8 * gal[g].rscale));
                double vlos = gal[g].vsys + vrot * si[g] * (r > 0 ? xm / r : 0);
                double dvv = (v - vlos) / sig_v;
                plane[(size_t)y * NX + x] += (float)(gal[g].flux * exp(-r / gal[g].rscale) * exp(-0.5 * dvv * dvv));
            }
    }
}

static void write_header(MPI_File fh)
{
    if (rank != 0) return;
    char hdr[HDR + 1];
    memset(hdr, ' ', HDR);
    const char *cards[] = {"SIMPLE  =                    T", "BITPIX  =                  -32",
                           "NAXIS   =                    3", "NAXIS1  =                  192",
                           "NAXIS2  =                  192", "NAXIS3  =                  224",
                           "CTYPE3  = 'VRAD    '",           "CRVAL3  =               -400.0",
                           "CDELT3  =                  4.0", "BUNIT   = 'JY/BEAM '",
                           "OBJECT  = 'SYNTHETIC GROUP'",    "END"};
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++) memcpy(hdr + 80 * i, cards[i], strlen(cards[i]));
    check(MPI_File_write_at(fh, 0, hdr, HDR, MPI_CHAR, MPI_STATUS_IGNORE), "write header");
}

static void write_cube(MPI_File fh, float *buf)
{
    size_t plane = (size_t)NY * NX;
    int nchunks_loc = (nc + WCHUNK - 1) / WCHUNK, nchunks;
    MPI_Allreduce(&nchunks_loc, &nchunks, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < nchunks; k++) {
        int a = k * WCHUNK, b = a + WCHUNK > nc ? nc : a + WCHUNK;
        int cnt = b > a ? b - a : 0;
        for (int c = a; c < a + cnt; c++) synth_plane(c0 + c, buf + (size_t)(c - a) * plane);
        MPI_Offset off = HDR + (MPI_Offset)(c0 + a) * plane * sizeof(float);
        check(MPI_File_write_at_all(fh, cnt ? off : 0, buf, (int)(cnt * plane), MPI_FLOAT, MPI_STATUS_IGNORE),
              "write_at_all cube");
    }
}

static float select_kth(float *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float piv = a[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv) i++;
            while (a[j] > piv) j--;
            if (i <= j) {
                float t = a[i]; a[i] = a[j]; a[j] = t;
                i++; j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return a[k];
}

/* Read own channels back (independent reads), robust noise per channel. */
static void read_slab_and_noise(MPI_File fh, float *slab, double *rms_all)
{
    size_t plane = (size_t)NY * NX;
    float *tmp = malloc(plane * sizeof(float));
    double *rms_loc = calloc(NCHAN, sizeof(double));
    for (int c = 0; c < nc; c++) {
        MPI_Offset off = HDR + (MPI_Offset)(c0 + c) * plane * sizeof(float);
        check(MPI_File_read_at(fh, off, slab + (size_t)c * plane, (int)plane, MPI_FLOAT, MPI_STATUS_IGNORE),
              "read_at plane");
        memcpy(tmp, slab + (size_t)c * plane, plane * sizeof(float));
        float med = select_kth(tmp, (int)plane, (int)plane / 2);
        for (size_t i = 0; i < plane; i++) tmp[i] = fabsf(tmp[i] - med);
        float mad = select_kth(tmp, (int)plane, (int)plane / 2);
        rms_loc[c0 + c] = 1.4826 * mad;
    }
    MPI_Allreduce(rms_loc, rms_all, NCHAN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(tmp);
    free(rms_loc);
}

/* Smooth-and-mask (SoFiA-like): boxcar filters in velocity (halo channels
 * exchanged with the neighbouring ranks) combined with separable spatial
 * boxcars of several widths; a voxel joins the mask if any smoothed version
 * exceeds thresh times the (white-noise scaled) smoothed rms. */
#define HALO 6
static unsigned char *smooth_and_mask(const float *slab, const double *rms, double thresh)
{
    size_t plane = (size_t)NY * NX;
    int next = nc + 2 * HALO;
    float *ext = malloc((size_t)next * plane * sizeof(float));
    double *erms = malloc(sizeof(double) * (size_t)next);
    memcpy(ext + HALO * plane, slab, (size_t)nc * plane * sizeof(float));
    int up = rank + 1 < nprocs ? rank + 1 : MPI_PROC_NULL, dn = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    /* first HALO planes go down, last HALO planes go up */
    MPI_Sendrecv(slab, (int)(HALO * plane), MPI_FLOAT, dn, 1, ext + (size_t)(HALO + nc) * plane,
                 (int)(HALO * plane), MPI_FLOAT, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(slab + (size_t)(nc - HALO) * plane, (int)(HALO * plane), MPI_FLOAT, up, 2, ext,
                 (int)(HALO * plane), MPI_FLOAT, dn, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int h = 0; h < HALO; h++) { /* replicate cube edges */
        if (dn == MPI_PROC_NULL) memcpy(ext + (size_t)h * plane, slab, plane * sizeof(float));
        if (up == MPI_PROC_NULL)
            memcpy(ext + (size_t)(HALO + nc + h) * plane, slab + (size_t)(nc - 1) * plane, plane * sizeof(float));
    }
    for (int e = 0; e < next; e++) {
        int c = c0 - HALO + e;
        erms[e] = rms[c < 0 ? 0 : c >= NCHAN ? NCHAN - 1 : c];
    }

    unsigned char *mask = calloc((size_t)nc * plane, 1);
    float *vs = malloc(plane * sizeof(float)), *tmp = malloc(plane * sizeof(float)),
          *sm = malloc(plane * sizeof(float));
    static const int vwidth[4] = {0, 1, 3, 6};    /* half widths in channels */
    static const int swidth[4] = {0, 1, 2, 4};    /* half widths in pixels */
    for (int c = 0; c < nc; c++) {
        int e0 = c + HALO;
        for (int v = 0; v < 4; v++) {
            int hv = vwidth[v];
            double r2 = 0;
            for (size_t i = 0; i < plane; i++) vs[i] = 0;
            for (int k = -hv; k <= hv; k++) {
                const float *p = ext + (size_t)(e0 + k) * plane;
                for (size_t i = 0; i < plane; i++) vs[i] += p[i];
                r2 += erms[e0 + k] * erms[e0 + k];
            }
            double rv = sqrt(r2); /* rms of the channel sum */
            for (int w = 0; w < 4; w++) {
                int h = swidth[w];
                const float *src = vs;
                if (h > 0) {
                    for (int y = 0; y < NY; y++)
                        for (int x = 0; x < NX; x++) {
                            float s = 0;
                            for (int k = -h; k <= h; k++) {
                                int xx = x + k < 0 ? 0 : x + k >= NX ? NX - 1 : x + k;
                                s += vs[(size_t)y * NX + xx];
                            }
                            tmp[(size_t)y * NX + x] = s;
                        }
                    for (int y = 0; y < NY; y++)
                        for (int x = 0; x < NX; x++) {
                            float s = 0;
                            for (int k = -h; k <= h; k++) {
                                int yy = y + k < 0 ? 0 : y + k >= NY ? NY - 1 : y + k;
                                s += tmp[(size_t)yy * NX + x];
                            }
                            sm[(size_t)y * NX + x] = s;
                        }
                    src = sm;
                }
                double lim = thresh * rv * (2 * h + 1); /* sum of (2h+1)^2 independent pixels */
                unsigned char *mk = mask + (size_t)c * plane;
                for (size_t i = 0; i < plane; i++)
                    if (src[i] > lim) mk[i] = 1;
            }
        }
    }
    free(ext); free(erms); free(vs); free(tmp); free(sm);
    return mask;
}

/* Local 3-D maxima above a threshold, appended via the shared file pointer. */
static int catalogue_peaks(MPI_File cat, const float *slab, const unsigned char *mask, const double *rms)
{
    size_t plane = (size_t)NY * NX;
    int found = 0;
    char line[81];
    for (int c = 1; c < nc - 1; c++)
        for (int y = 1; y < NY - 1; y++)
            for (int x = 1; x < NX - 1; x++) {
                size_t i = (size_t)c * plane + (size_t)y * NX + x;
                float v = slab[i];
                if (!mask[i] || v < 8.0 * rms[c0 + c]) continue;
                int ismax = 1;
                for (int dc = -1; dc <= 1 && ismax; dc++)
                    for (int dy = -1; dy <= 1 && ismax; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            if (!dc && !dy && !dx) continue;
                            if (slab[i + (ptrdiff_t)dc * (ptrdiff_t)plane + dy * NX + dx] > v) {
                                ismax = 0;
                                break;
                            }
                        }
                if (!ismax) continue;
                int n = snprintf(line, sizeof line, "peak r%d chan %4d v %8.1f x %4d y %4d S %8.4f snr %6.1f", rank,
                                 c0 + c, V0 + (c0 + c) * DV, x, y, v, v / rms[c0 + c]);
                memset(line + n, ' ', 79 - n);
                line[79] = '\n';
                check(MPI_File_write_shared(cat, line, 80, MPI_CHAR, MPI_STATUS_IGNORE), "write_shared");
                found++;
            }
    return found;
}

/* Partial moment sums over local channels, reduced to full maps on all ranks. */
static void moment_maps(const float *slab, const unsigned char *mask, double *m0, double *m1, double *m2)
{
    size_t plane = (size_t)NY * NX;
    double *part = calloc(3 * plane, sizeof(double)), *tot = malloc(3 * plane * sizeof(double));
    for (int c = 0; c < nc; c++) {
        double v = V0 + (c0 + c) * DV;
        const float *p = slab + (size_t)c * plane;
        const unsigned char *mk = mask + (size_t)c * plane;
        for (size_t i = 0; i < plane; i++)
            if (mk[i]) {
                double s = p[i] * DV;
                part[i] += s;
                part[plane + i] += s * v;
                part[2 * plane + i] += s * v * v;
            }
    }
    MPI_Allreduce(part, tot, (int)(3 * plane), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < plane; i++) {
        m0[i] = tot[i];
        if (tot[i] > 0.05) {
            m1[i] = tot[plane + i] / tot[i];
            double var = tot[2 * plane + i] / tot[i] - m1[i] * m1[i];
            m2[i] = var > 0 ? sqrt(var) : 0;
        } else {
            m1[i] = NAN;
            m2[i] = NAN;
        }
    }
    free(part);
    free(tot);
}

/* Each rank writes its band of rows of all three maps collectively. */
static void write_moments(const char *path, const double *m0, const double *m1, const double *m2)
{
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open mom");
    int y0 = NY * rank / nprocs, y1 = NY * (rank + 1) / nprocs;
    size_t plane = (size_t)NY * NX;
    const double *maps[3] = {m0, m1, m2};
    float *band = malloc((size_t)(y1 - y0) * NX * sizeof(float));
    for (int m = 0; m < 3; m++) {
        for (size_t i = 0; i < (size_t)(y1 - y0) * NX; i++) band[i] = (float)maps[m][(size_t)y0 * NX + i];
        MPI_Offset off = (MPI_Offset)(m * plane + (size_t)y0 * NX) * sizeof(float);
        check(MPI_File_write_at_all(fh, off, band, (y1 - y0) * NX, MPI_FLOAT, MPI_STATUS_IGNORE), "write mom");
    }
    free(band);
    MPI_File_close(&fh);
}

/* Rank 0: spectrum through each galaxy centre with a strided file view. */
static void extract_spectra(MPI_File fh, const char *path, const double *rms)
{
    MPI_Datatype spec;
    MPI_Type_vector(NCHAN, 1, NY * NX, MPI_FLOAT, &spec);
    MPI_Type_commit(&spec);
    float s[NCHAN];
    FILE *f = NULL;
    if (rank == 0) {
        f = fopen(path, "w");
        if (!f) MPI_Abort(MPI_COMM_WORLD, 4);
    }
    for (int g = 0; g < NGAL; g++) {
        int x = (int)lround(gal[g].x), y = (int)lround(gal[g].y);
        MPI_Offset disp = HDR + ((MPI_Offset)y * NX + x) * sizeof(float);
        check(MPI_File_set_view(fh, disp, MPI_FLOAT, spec, "native", MPI_INFO_NULL), "set_view");
        if (rank == 0) {
            check(MPI_File_read_at(fh, 0, s, NCHAN, MPI_FLOAT, MPI_STATUS_IGNORE), "read spectrum");
            fprintf(f, "# galaxy %d at (%d,%d) vsys %.1f\n", g, x, y, gal[g].vsys);
            for (int c = 0; c < NCHAN; c++) fprintf(f, "%8.1f %10.5f %8.5f\n", V0 + c * DV, s[c], rms[c]);
        }
    }
    check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "reset view");
    if (f) fclose(f);
    MPI_Type_free(&spec);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (!rank) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    c0 = NCHAN * rank / nprocs;
    nc = NCHAN * (rank + 1) / nprocs - c0;
    init_galaxies();
    char cube[4096], path[4096];
    snprintf(cube, sizeof cube, "%s/hi_cube.fits", argv[1]);
    size_t plane = (size_t)NY * NX;

    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, cube, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open cube");
    write_header(fh);
    float *buf = malloc((size_t)WCHUNK * plane * sizeof(float));
    write_cube(fh, buf);
    free(buf);
    check(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_sync(fh), "sync");

    float *slab = malloc((size_t)nc * plane * sizeof(float));
    double rms[NCHAN];
    read_slab_and_noise(fh, slab, rms);
    unsigned char *mask = smooth_and_mask(slab, rms, 4.0);

    MPI_File cat;
    snprintf(path, sizeof path, "%s/peaks.cat", argv[1]);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &cat), "open cat");
    int npk = catalogue_peaks(cat, slab, mask, rms), npk_tot;
    MPI_File_close(&cat);
    MPI_Reduce(&npk, &npk_tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

    double *m0 = malloc(plane * sizeof(double)), *m1 = malloc(plane * sizeof(double)),
           *m2 = malloc(plane * sizeof(double));
    moment_maps(slab, mask, m0, m1, m2);
    snprintf(path, sizeof path, "%s/moments.raw", argv[1]);
    write_moments(path, m0, m1, m2);

    snprintf(path, sizeof path, "%s/centre_spectra.txt", argv[1]);
    extract_spectra(fh, path, rms);
    MPI_File_close(&fh);

    if (rank == 0) {
        double flux = 0;
        long npix = 0;
        for (size_t i = 0; i < plane; i++)
            if (!isnan(m1[i])) {
                flux += m0[i];
                npix++;
            }
        snprintf(path, sizeof path, "%s/summary.txt", argv[1]);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "cube %dx%dx%d  ranks %d\npeaks %d\ndetected pixels %ld\ntotal flux %.3f Jy km/s\n", NCHAN, NY,
                    NX, nprocs, npk_tot, npix, flux);
            for (int c = 0; c < NCHAN; c += 16) fprintf(f, "rms chan %3d = %.5f (true %.5f)\n", c, rms[c], chan_rms(c));
            fclose(f);
        }
        printf("peaks=%d detected_pixels=%ld flux=%.3f\n", npk_tot, npix, flux);
    }
    free(slab); free(mask); free(m0); free(m1); free(m2);
    MPI_Finalize();
    return 0;
}
