/* mpi_ambient_noise_xcorr.c
 * Seismic ambient-noise interferometry on a small broadband array.
 *
 * 1. Synthesis: a diffuse noise field from distant sources plus local noise
 *    and occasional earthquakes is recorded by NSTA stations in NWIN windows.
 *    Stations are split into contiguous blocks over ranks; every rank writes
 *    its block of each day through a subarray file view with
 *    MPI_File_write_all into one [window][station][sample] float32 file.
 * 2. Processing: days are dealt round-robin to ranks; each rank reads a whole
 *    day (all stations) with MPI_File_read_at_all, applies demean/taper,
 *    running-absolute-mean normalisation and spectral whitening, stacks the
 *    cross-spectra of all station pairs over the day's windows and inverse
 *    transforms them to daily correlation functions, written with
 *    MPI_File_write_at_all.  Per-day QC lines go to a shared log with
 *    MPI_File_write_ordered.
 * 3. The daily correlations are summed with MPI_Reduce; rank 0 writes the
 *    stacked correlations as text and picks causal/acausal arrival lags to
 *    estimate inter-station group velocities.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTA      10
#define NPAIR     (NSTA * (NSTA - 1) / 2)
#define NSAMP     8192
#define NFFT      16384
#define NWIN      64
#define WPD       8                 /* windows per day */
#define NDAY      (NWIN / WPD)
#define NSRC      12
#define FS        4.0               /* Hz */
#define VEL       3.0               /* km/s */
#define MAXLAG    400
#define NLAG      (2 * MAXLAG + 1)
#define SRCPAD    2400

static int rank, nranks;
static double sta_x[NSTA], sta_y[NSTA];
static double src_x[NSRC], src_y[NSRC], src_amp[NSRC];

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct { uint64_t s; } rng_t;

static double rng_gauss(rng_t *r)
{
    r->s = mix64(r->s);
    double u = ((r->s >> 11) + 0.5) / 9007199254740992.0;
    r->s = mix64(r->s);
    double v = (r->s >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void array_geometry(void)
{
    rng_t r = { 424242 };
    for (int s = 0; s < NSTA; s++) {
        sta_x[s] = 100.0 * (0.5 + 0.5 * rng_gauss(&r) * 0.4);
        sta_y[s] = 100.0 * (0.5 + 0.5 * rng_gauss(&r) * 0.4);
    }
    for (int k = 0; k < NSRC; k++) {
        double az = 6.283185307179586 * k / NSRC + 0.3 * rng_gauss(&r);
        src_x[k] = 50.0 + 350.0 * cos(az);
        src_y[k] = 50.0 + 350.0 * sin(az);
        src_amp[k] = 1.0 + 0.3 * fabs(rng_gauss(&r));
    }
}

/* records of stations [s0, s0+ns) for window w; every rank regenerates the common
   source signals from a window-specific seed so that all blocks see the same wavefield */
static void synthesize_window(int w, int s0, int ns, float *out)
{
    static double src[NSRC][NSAMP + SRCPAD];
    for (int k = 0; k < NSRC; k++) {
        rng_t r = { (uint64_t)w * 1000 + (uint64_t)k + 7 };
        double y1 = 0, y2 = 0;
        for (int t = 0; t < NSAMP + SRCPAD; t++) {   /* microseism-band resonator */
            double y = rng_gauss(&r) + 1.80 * y1 - 0.90 * y2;
            y2 = y1; y1 = y;
            src[k][t] = 0.05 * y;
        }
    }
    for (int s = s0; s < s0 + ns; s++) {
        float *tr = out + (size_t)(s - s0) * NSAMP;
        rng_t r = { (uint64_t)w * 7919 + (uint64_t)s * 104729 + 1 };
        for (int t = 0; t < NSAMP; t++) tr[t] = (float)(0.6 * rng_gauss(&r));
        for (int k = 0; k < NSRC; k++) {
            double d = hypot(sta_x[s] - src_x[k], sta_y[s] - src_y[k]);
            int off = SRCPAD - (int)lround(d / VEL * FS) + 600;
            double a = src_amp[k] * 20.0 / sqrt(d);
            for (int t = 0; t < NSAMP; t++) tr[t] += (float)(a * src[k][t + off]);
        }
        if (w % 13 == 5) {   /* regional earthquake: large transient that normalisation must suppress */
            double d = hypot(sta_x[s] - 300.0, sta_y[s] + 200.0);
            int t0 = 2000 + (int)(d / 3.5 * FS);
            for (int t = t0; t < NSAMP && t < t0 + 1500; t++)
                tr[t] += (float)(80.0 * exp(-(t - t0) / 300.0) * sin(0.9 * (t - t0)));
        }
    }
}

static void write_waveforms(MPI_File fh, int s0, int ns)
{
    int gsizes[3] = { NWIN, NSTA, NSAMP }, lsizes[3] = { WPD, ns, NSAMP }, starts[3] = { 0, s0, 0 };
    float *buf = malloc(sizeof(float) * WPD * (size_t)ns * NSAMP);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int day = 0; day < NDAY; day++) {
        starts[0] = day * WPD;
        MPI_Datatype ft;
        check(MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_FLOAT, &ft), "subarray");
        check(MPI_Type_commit(&ft), "type commit");
        check(MPI_File_set_view(fh, 0, MPI_FLOAT, ft, "native", MPI_INFO_NULL), "set_view");
        for (int k = 0; k < WPD; k++)
            synthesize_window(day * WPD + k, s0, ns, buf + (size_t)k * ns * NSAMP);
        MPI_Status st;
        check(MPI_File_write_all(fh, buf, WPD * ns * NSAMP, MPI_FLOAT, &st), "write_all waveforms");
        MPI_Type_free(&ft);
    }
    free(buf);
}

static void fft(double *re, double *im, int n, int inverse)
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
        double ang = (inverse ? 2.0 : -2.0) * M_PI / len;
        double wr = cos(ang), wi = sin(ang);
        for (int i = 0; i < n; i += len) {
            double cr = 1.0, ci = 0.0;
            for (int k = 0; k < len / 2; k++) {
                int a = i + k, b = i + k + len / 2;
                double xr = re[b] * cr - im[b] * ci, xi = re[b] * ci + im[b] * cr;
                re[b] = re[a] - xr; im[b] = im[a] - xi;
                re[a] += xr; im[a] += xi;
                double nr = cr * wr - ci * wi;
                ci = cr * wi + ci * wr;
                cr = nr;
            }
        }
    }
}

/* demean, cosine taper, running-absolute-mean normalisation; returns rms before normalisation */
static double time_normalize(const float *in, double *out)
{
    double m = 0, rms = 0;
    for (int t = 0; t < NSAMP; t++) m += in[t];
    m /= NSAMP;
    for (int t = 0; t < NSAMP; t++) { out[t] = in[t] - m; rms += out[t] * out[t]; }
    const int half = 40;
    double run = 0;
    static double absv[NSAMP], nrm[NSAMP];
    for (int t = 0; t < NSAMP; t++) absv[t] = fabs(out[t]);
    for (int t = 0; t < 2 * half + 1 && t < NSAMP; t++) run += absv[t];
    for (int t = 0; t < NSAMP; t++) {
        int lo = t - half - 1, hi = t + half;
        if (lo >= 0 && hi < NSAMP) run += absv[hi] - absv[lo];
        nrm[t] = run / (2 * half + 1) + 1e-12;
    }
    int ntap = NSAMP / 20;
    for (int t = 0; t < NSAMP; t++) {
        double w = 1.0;
        if (t < ntap) w = 0.5 - 0.5 * cos(M_PI * t / ntap);
        else if (t >= NSAMP - ntap) w = 0.5 - 0.5 * cos(M_PI * (NSAMP - 1 - t) / ntap);
        out[t] = w * out[t] / nrm[t];
    }
    return sqrt(rms / NSAMP);
}

/* spectral whitening between 0.05 and 0.5 Hz with a smoothed amplitude spectrum */
static void whiten(double *re, double *im)
{
    static double amp[NFFT / 2 + 1];
    for (int k = 0; k <= NFFT / 2; k++) amp[k] = hypot(re[k], im[k]);
    int f1 = (int)(0.05 * NFFT / FS), f2 = (int)(0.5 * NFFT / FS);
    const int sm = 20;
    double run = 0;
    for (int k = 0; k <= NFFT / 2; k++) {
        run += amp[k];
        if (k > 2 * sm) run -= amp[k - 2 * sm - 1];
        int kk = k - sm;
        if (kk < 0) continue;
        double a = run / (2 * sm + 1) + 1e-20;
        double w = (kk >= f1 && kk <= f2) ? 1.0 / a : 0.0;
        re[kk] *= w; im[kk] *= w;
    }
    for (int k = NFFT / 2 - sm + 1; k <= NFFT / 2; k++) re[k] = im[k] = 0.0;
    for (int k = 1; k < NFFT / 2; k++) { re[NFFT - k] = re[k]; im[NFFT - k] = -im[k]; }
}

static void correlate_day(const float *day, double *xc, double *rms_out)
{
    static double sre[NSTA][NFFT], sim[NSTA][NFFT];
    static double accr[NPAIR][NFFT], acci[NPAIR][NFFT], tmp[NSAMP];
    memset(accr, 0, sizeof accr);
    memset(acci, 0, sizeof acci);
    *rms_out = 0;
    for (int w = 0; w < WPD; w++) {
        for (int s = 0; s < NSTA; s++) {
            *rms_out += time_normalize(day + ((size_t)w * NSTA + s) * NSAMP, tmp);
            for (int t = 0; t < NFFT; t++) { sre[s][t] = t < NSAMP ? tmp[t] : 0.0; sim[s][t] = 0.0; }
            fft(sre[s], sim[s], NFFT, 0);
            whiten(sre[s], sim[s]);
        }
        int p = 0;
        for (int a = 0; a < NSTA; a++)
            for (int b = a + 1; b < NSTA; b++, p++)
                for (int k = 0; k < NFFT; k++) {   /* conj(A) * B */
                    accr[p][k] += sre[a][k] * sre[b][k] + sim[a][k] * sim[b][k];
                    acci[p][k] += sre[a][k] * sim[b][k] - sim[a][k] * sre[b][k];
                }
    }
    *rms_out /= WPD * NSTA;
    for (int p = 0; p < NPAIR; p++) {
        fft(accr[p], acci[p], NFFT, 1);
        double norm = 0;
        for (int l = -MAXLAG; l <= MAXLAG; l++) {
            double v = accr[p][(l + NFFT) % NFFT];
            xc[(size_t)p * NLAG + l + MAXLAG] = v;
            if (fabs(v) > norm) norm = fabs(v);
        }
        for (int l = 0; l < NLAG; l++) xc[(size_t)p * NLAG + l] /= norm + 1e-30;
    }
}

static void process_days(MPI_File wf, MPI_File xf, MPI_File qc, double *stack)
{
    float *day = malloc(sizeof(float) * WPD * NSTA * NSAMP);
    double *xc = malloc(sizeof(double) * NPAIR * NLAG);
    float *xcf = malloc(sizeof(float) * NPAIR * NLAG);
    if (!day || !xc || !xcf) MPI_Abort(MPI_COMM_WORLD, 2);
    check(MPI_File_set_view(wf, 0, MPI_FLOAT, MPI_FLOAT, "native", MPI_INFO_NULL), "reset view");
    int rounds = (NDAY + nranks - 1) / nranks;
    for (int r = 0; r < rounds; r++) {
        int d = r * nranks + rank;
        int have = d < NDAY;
        /* offsets are in etype (float) units of the reset view */
        MPI_Offset off = (MPI_Offset)(have ? d : 0) * WPD * NSTA * NSAMP;
        MPI_Status st;
        int got;
        check(MPI_File_read_at_all(wf, off, day, have ? WPD * NSTA * NSAMP : 0, MPI_FLOAT, &st), "read_at_all");
        MPI_Get_count(&st, MPI_FLOAT, &got);
        if (got != (have ? WPD * NSTA * NSAMP : 0)) {
            fprintf(stderr, "rank %d: short read of day %d (%d floats)\n", rank, d, got);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        char line[128] = "";
        double rms = 0;
        if (have) {
            correlate_day(day, xc, &rms);
            for (int i = 0; i < NPAIR * NLAG; i++) { xcf[i] = (float)xc[i]; stack[i] += xc[i]; }
            snprintf(line, sizeof line, "day %3d rank %d mean_rms %10.4f pairs %d\n", d, rank, rms, NPAIR);
        }
        MPI_Offset xoff = (MPI_Offset)(have ? d : 0) * NPAIR * NLAG * (MPI_Offset)sizeof(float);
        check(MPI_File_write_at_all(xf, xoff, xcf, have ? NPAIR * NLAG : 0, MPI_FLOAT, &st), "write_at_all xcorr");
        check(MPI_File_write_ordered(qc, line, (int)strlen(line), MPI_CHAR, &st), "write_ordered");
    }
    free(day); free(xc); free(xcf);
}

static void write_stack_and_velocities(const char *dir, const double *stack)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/xcorr_stack.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    snprintf(path, sizeof path, "%s/group_velocity.txt", dir);
    FILE *g = fopen(path, "w");
    if (!g) { perror(path); MPI_Abort(MPI_COMM_WORLD, 1); }
    fprintf(g, "# sta_a sta_b dist_km lag_causal_s lag_acausal_s v_causal v_acausal snr\n");
    int p = 0;
    double vsum = 0;
    int nv = 0;
    for (int a = 0; a < NSTA; a++)
        for (int b = a + 1; b < NSTA; b++, p++) {
            const double *c = stack + (size_t)p * NLAG;
            for (int l = 0; l < NLAG; l++)
                if (fprintf(f, "%d %d %.2f %.6e\n", a, b, (l - MAXLAG) / FS, c[l] / NDAY) < 0) {
                    perror("xcorr_stack.txt"); MPI_Abort(MPI_COMM_WORLD, 1);
                }
            /* peaks on each side inside the 1.5-5 km/s group-velocity window, noise from the far lags */
            double d = hypot(sta_x[a] - sta_x[b], sta_y[a] - sta_y[b]);
            int l0 = (int)(d / 5.0 * FS), l1 = (int)(d / 1.5 * FS) + 1;
            if (l0 < 1) l0 = 1;
            if (l1 > MAXLAG) l1 = MAXLAG;
            int lp = l0, ln = l0;
            for (int l = l0; l <= l1; l++) {
                if (fabs(c[MAXLAG + l]) > fabs(c[MAXLAG + lp])) lp = l;
                if (fabs(c[MAXLAG - l]) > fabs(c[MAXLAG - ln])) ln = l;
            }
            double noise = 0;
            for (int l = MAXLAG - 50; l <= MAXLAG; l++) noise += c[MAXLAG + l] * c[MAXLAG + l];
            noise = sqrt(noise / 51) + 1e-30;
            double vp = d / (lp / FS), vn = d / (ln / FS);
            double snr = fmax(fabs(c[MAXLAG + lp]), fabs(c[MAXLAG - ln])) / noise;
            if (snr > 5 && d > 20) { vsum += 0.5 * (vp + vn); nv++; }
            fprintf(g, "%d %d %8.2f %8.2f %8.2f %7.3f %7.3f %7.1f\n", a, b, d, lp / FS, ln / FS, vp, vn, snr);
        }
    if (fclose(f) != 0 || fclose(g) != 0) { perror("fclose"); MPI_Abort(MPI_COMM_WORLD, 1); }
    printf("stacked %d days, %d pairs; mean group velocity %.3f km/s from %d pairs\n", NDAY, NPAIR,
           nv ? vsum / nv : 0.0, nv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    array_geometry();
    int s0 = rank * NSTA / nranks, s1 = (rank + 1) * NSTA / nranks;
    char wp[4096], xp[4096], qp[4096];
    snprintf(wp, sizeof wp, "%s/waveforms.f32", argv[1]);
    snprintf(xp, sizeof xp, "%s/xcorr_daily.f32", argv[1]);
    snprintf(qp, sizeof qp, "%s/qc.log", argv[1]);
    MPI_File wf, xf, qc;
    check(MPI_File_open(MPI_COMM_WORLD, wp, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &wf), "open waveforms");
    check(MPI_File_open(MPI_COMM_WORLD, xp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &xf), "open xcorr");
    check(MPI_File_open(MPI_COMM_WORLD, qp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &qc), "open qc");
    write_waveforms(wf, s0, s1 - s0);
    check(MPI_File_sync(wf), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_sync(wf), "sync");

    double *stack = calloc((size_t)NPAIR * NLAG, sizeof(double));
    double *total = rank == 0 ? calloc((size_t)NPAIR * NLAG, sizeof(double)) : NULL;
    if (!stack || (rank == 0 && !total)) MPI_Abort(MPI_COMM_WORLD, 2);
    process_days(wf, xf, qc, stack);
    check(MPI_File_close(&wf), "close waveforms");
    check(MPI_File_close(&xf), "close xcorr");
    check(MPI_File_close(&qc), "close qc");
    MPI_Reduce(stack, total, NPAIR * NLAG, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) write_stack_and_velocities(argv[1], total);
    free(stack);
    free(total);
    MPI_Finalize();
    return 0;
}
