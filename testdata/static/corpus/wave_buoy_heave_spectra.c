/*
 * wave_buoy_heave_spectra.c
 *
 * Directional wave buoy network post-processing.  The program first writes
 * the raw archive a network of six heave-pitch-roll buoys would deliver:
 * one binary file per buoy with three days of 34-minute records sampled at
 * 2 Hz (heave, north and west displacement, float32, channel-planar), the
 * sea state of each record synthesised from a JONSWAP spectrum with cos-2s
 * directional spreading as a storm passes through.
 *
 * The analysis then reads the archive back:
 *   pass 1  every record, all channels: quality control, Welch auto- and
 *           cross-spectra, spectral moments (Hm0, Tp, Tm01, Tm02), first-order
 *           directional moments, and a Maximum-Entropy-Method directional
 *           spectrum at the peak band;
 *   pass 2  heave channel only (fseek over the horizontal channels):
 *           zero-upcrossing wave heights, H1/3 and Hmax;
 * and writes a compact text report plus a CSV of per-record parameters, and
 * a 2-parameter Weibull fit of Hm0 per buoy.
 *
 * usage: wave_buoy_heave_spectra OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUOY 6
#define NREC 144          /* 3 days of half-hourly records */
#define NSAMP 4096        /* 2 Hz, 34.1 min */
#define FS 2.0
#define NSEG 256          /* Welch segment */
#define NBAND (NSEG / 2)
#define NDIR 90
#define BUOY_MAGIC 0x42554F59u /* "BUOY" */

typedef struct {
    double re, im;
} cpx;

typedef struct {
    uint32_t magic;
    int32_t buoy, nrec, nsamp;
    double fs, lat, lon, depth;
} file_header;

typedef struct {
    int32_t index;
    int32_t flags;
    double t_start_h;
} record_header;

typedef struct {
    double hm0, tp, tm01, tm02, dirp, spread, mem_peak_dir;
    double h13, hmax;
    int nwaves, qc_spikes;
} record_params;

static const char *g_dir;
static uint64_t g_rng = 0xB0E1F00Dull;
static const double PI = 3.141592653589793;
static const double buoy_lat[NBUOY] = {54.10, 54.35, 54.62, 55.01, 55.40, 55.77};
static const double buoy_lon[NBUOY] = {6.20, 6.85, 7.40, 7.05, 6.40, 5.90};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "wave_buoy_heave_spectra: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void buoy_path(char *buf, size_t n, int b)
{
    if ((size_t)snprintf(buf, n, "%s/buoy_%02d.raw", g_dir, b) >= n)
        die("path too long", NULL);
}

static double urand(void)
{
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/* iterative radix-2 FFT, sign = -1 forward, +1 inverse (unnormalised) */
static void fft(cpx *a, int n, int sign)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            cpx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = sign * 2.0 * PI / len;
        cpx wl = {cos(ang), sin(ang)};
        for (int i = 0; i < n; i += len) {
            cpx w = {1.0, 0.0};
            for (int k = 0; k < len / 2; k++) {
                cpx u = a[i + k], v = a[i + k + len / 2];
                cpx t = {v.re * w.re - v.im * w.im, v.re * w.im + v.im * w.re};
                a[i + k].re = u.re + t.re;
                a[i + k].im = u.im + t.im;
                a[i + k + len / 2].re = u.re - t.re;
                a[i + k + len / 2].im = u.im - t.im;
                double wr = w.re * wl.re - w.im * wl.im;
                w.im = w.re * wl.im + w.im * wl.re;
                w.re = wr;
            }
        }
    }
}

/* Storm scenario: sea state at time t (hours) for buoy b. */
static void sea_state(int b, double t, double *hs, double *tp, double *dir, double *s)
{
    double lag = 3.0 * b;
    double x = (t - 30.0 - lag) / 11.0;
    *hs = 1.2 + 5.3 * exp(-x * x);
    *tp = 6.5 + 6.0 * exp(-x * x * 0.6) + 0.4 * sin(t / 5.0);
    *dir = fmod(200.0 + 90.0 * tanh((t - 30.0 - lag) / 15.0) + 360.0, 360.0) * PI / 180.0;
    *s = 6.0 + 10.0 * (1.0 - exp(-x * x));
}

static double jonswap(double f, double hs, double tp)
{
    double fp = 1.0 / tp, gamma = 3.3, sig = f <= fp ? 0.07 : 0.09;
    double pm = 0.3125 * hs * hs * pow(fp, 4) * pow(f, -5) * exp(-1.25 * pow(fp / f, 4));
    double r = exp(-(f - fp) * (f - fp) / (2.0 * sig * sig * fp * fp));
    return pm * pow(gamma, r) * (1.0 - 0.287 * log(gamma));
}

/* Random-phase synthesis of heave/north/west from a directional spectrum,
 * one direction per frequency component drawn from cos-2s spreading. */
static void synthesize_record(int b, double t, float *heave, float *north, float *west, cpx *w0, cpx *w1, cpx *w2)
{
    double hs, tp, dm, s;
    sea_state(b, t, &hs, &tp, &dm, &s);
    double df = FS / NSAMP;
    memset(w0, 0, sizeof(cpx) * NSAMP);
    memset(w1, 0, sizeof(cpx) * NSAMP);
    memset(w2, 0, sizeof(cpx) * NSAMP);
    for (int k = 1; k < NSAMP / 2; k++) {
        double f = k * df;
        if (f < 0.03 || f > 0.6)
            continue;
        double a = sqrt(2.0 * jonswap(f, hs, tp) * df);
        double ph = 2.0 * PI * urand();
        /* rejection sample theta from cos^{2s}((theta - dm)/2) */
        double th;
        for (;;) {
            th = dm + (urand() - 0.5) * 2.0 * PI;
            if (urand() < pow(fabs(cos((th - dm) / 2.0)), 2.0 * s))
                break;
        }
        w0[k].re = a * cos(ph);
        w0[k].im = a * sin(ph);
        /* horizontal displacement in quadrature, projected on north/west */
        w1[k].re = a * cos(th) * sin(ph);
        w1[k].im = -a * cos(th) * cos(ph);
        w2[k].re = a * sin(th) * sin(ph);
        w2[k].im = -a * sin(th) * cos(ph);
    }
    fft(w0, NSAMP, 1);
    fft(w1, NSAMP, 1);
    fft(w2, NSAMP, 1);
    for (int n = 0; n < NSAMP; n++) {
        heave[n] = (float)w0[n].re;
        north[n] = (float)w1[n].re;
        west[n] = (float)w2[n].re;
    }
    /* occasional telemetry spike */
    if (urand() < 0.15) {
        int n = (int)(urand() * NSAMP);
        heave[n] += (float)(8.0 * hs);
    }
}

static void generate_archive(void)
{
    float *buf = malloc(sizeof(float) * 3 * NSAMP);
    cpx *w = malloc(sizeof(cpx) * 3 * NSAMP);
    if (!buf || !w)
        die("malloc", NULL);
    for (int b = 0; b < NBUOY; b++) {
        char path[4096];
        buoy_path(path, sizeof path, b);
        FILE *f = fopen(path, "wb");
        if (!f)
            die("open", path);
        file_header h = {BUOY_MAGIC, b, NREC, NSAMP, FS, buoy_lat[b], buoy_lon[b], 35.0 + 5.0 * b};
        if (fwrite(&h, sizeof h, 1, f) != 1)
            die("fwrite", path);
        for (int r = 0; r < NREC; r++) {
            record_header rh = {r, 0, 0.5 * r};
            synthesize_record(b, rh.t_start_h, buf, buf + NSAMP, buf + 2 * NSAMP, w, w + NSAMP, w + 2 * NSAMP);
            if (fwrite(&rh, sizeof rh, 1, f) != 1 || fwrite(buf, sizeof(float), 3 * NSAMP, f) != 3 * NSAMP)
                die("fwrite", path);
        }
        if (fclose(f) != 0)
            die("close", path);
    }
    free(buf);
    free(w);
}

/* Despike: replace samples beyond 4.5 sigma by the mean of neighbours. */
static int qc_despike(float *x, int n)
{
    double s1 = 0.0, s2 = 0.0;
    for (int i = 0; i < n; i++) {
        s1 += x[i];
        s2 += (double)x[i] * x[i];
    }
    double mean = s1 / n, sd = sqrt(fmax(s2 / n - mean * mean, 1e-12));
    int spikes = 0;
    for (int i = 0; i < n; i++)
        if (fabs(x[i] - mean) > 4.5 * sd) {
            x[i] = 0.5f * (x[i > 0 ? i - 1 : i + 1] + x[i < n - 1 ? i + 1 : i - 1]);
            spikes++;
        }
    return spikes;
}

/* Welch auto/cross spectra (Hann, 50% overlap) of three channels. */
static void welch_spectra(const float *h, const float *nn, const float *ww, double *shh, double *snn, double *sww,
                          cpx *chn, cpx *chw, cpx *cnw, cpx *seg)
{
    double win[NSEG], wss = 0.0;
    for (int i = 0; i < NSEG; i++) {
        win[i] = 0.5 - 0.5 * cos(2.0 * PI * i / NSEG);
        wss += win[i] * win[i];
    }
    for (int k = 0; k < NBAND; k++) {
        shh[k] = snn[k] = sww[k] = 0.0;
        chn[k].re = chn[k].im = chw[k].re = chw[k].im = cnw[k].re = cnw[k].im = 0.0;
    }
    int nseg = 0;
    for (int st = 0; st + NSEG <= NSAMP; st += NSEG / 2) {
        cpx *a = seg, *b = seg + NSEG, *c = seg + 2 * NSEG;
        for (int i = 0; i < NSEG; i++) {
            a[i].re = h[st + i] * win[i];
            b[i].re = nn[st + i] * win[i];
            c[i].re = ww[st + i] * win[i];
            a[i].im = b[i].im = c[i].im = 0.0;
        }
        fft(a, NSEG, -1);
        fft(b, NSEG, -1);
        fft(c, NSEG, -1);
        for (int k = 0; k < NBAND; k++) {
            shh[k] += a[k].re * a[k].re + a[k].im * a[k].im;
            snn[k] += b[k].re * b[k].re + b[k].im * b[k].im;
            sww[k] += c[k].re * c[k].re + c[k].im * c[k].im;
            /* conj(a) * b etc. */
            chn[k].re += a[k].re * b[k].re + a[k].im * b[k].im;
            chn[k].im += a[k].re * b[k].im - a[k].im * b[k].re;
            chw[k].re += a[k].re * c[k].re + a[k].im * c[k].im;
            chw[k].im += a[k].re * c[k].im - a[k].im * c[k].re;
            cnw[k].re += b[k].re * c[k].re + b[k].im * c[k].im;
            cnw[k].im += b[k].re * c[k].im - b[k].im * c[k].re;
        }
        nseg++;
    }
    double scale = 2.0 / (FS * wss * nseg);
    for (int k = 0; k < NBAND; k++) {
        shh[k] *= scale;
        snn[k] *= scale;
        sww[k] *= scale;
        chn[k].re *= scale;
        chn[k].im *= scale;
        chw[k].re *= scale;
        chw[k].im *= scale;
        cnw[k].re *= scale;
        cnw[k].im *= scale;
    }
}

/* Spectral moments, peak period, first-order directional parameters and a
 * MEM (Lygre & Krogstad) directional distribution at the peak band. */
static void spectral_parameters(const double *shh, const double *snn, const double *sww, const cpx *chn,
                                const cpx *chw, const cpx *cnw, record_params *p)
{
    double df = FS / NSEG, m0 = 0, m1 = 0, m2 = 0, mm1 = 0;
    int kp = 1;
    for (int k = 1; k < NBAND; k++) {
        double f = k * df;
        if (f < 0.03 || f > 0.6)
            continue;
        m0 += shh[k] * df;
        m1 += shh[k] * f * df;
        m2 += shh[k] * f * f * df;
        mm1 += shh[k] / f * df;
        if (shh[k] > shh[kp])
            kp = k;
    }
    p->hm0 = 4.0 * sqrt(m0);
    /* parabolic refinement of peak */
    double y0 = shh[kp - 1], y1 = shh[kp], y2 = shh[kp + 1], den = y0 - 2 * y1 + y2;
    double kk = kp + (den != 0.0 ? 0.5 * (y0 - y2) / den : 0.0);
    p->tp = 1.0 / (kk * df);
    p->tm01 = m0 / m1;
    p->tm02 = sqrt(m0 / m2);
    (void)mm1;

    double norm = sqrt(shh[kp] * (snn[kp] + sww[kp]));
    double a1 = chn[kp].im / norm, b1 = chw[kp].im / norm;
    double a2 = (snn[kp] - sww[kp]) / (snn[kp] + sww[kp]), b2 = 2.0 * cnw[kp].re / (snn[kp] + sww[kp]);
    p->dirp = fmod(atan2(b1, a1) * 180.0 / PI + 540.0, 360.0); /* direction waves come from */
    p->spread = sqrt(fmax(0.0, 2.0 * (1.0 - sqrt(a1 * a1 + b1 * b1)))) * 180.0 / PI;

    /* MEM: D(th) ~ (1 - phi1 c1* - phi2 c2*) / |1 - phi1 e^{-i th} - phi2 e^{-2i th}|^2 */
    cpx c1 = {a1, b1}, c2 = {a2, b2};
    double c1c2r = c1.re * c2.re + c1.im * c2.im, c1c2i = c1.re * c2.im - c1.im * c2.re; /* conj(c1)*c2 */
    double c1m2 = c1.re * c1.re + c1.im * c1.im;
    double dn = 1.0 - c1m2;
    cpx phi1 = {(c1.re - (c1c2r * c1.re - c1c2i * c1.im)) / dn, (c1.im - (c1c2r * c1.im + c1c2i * c1.re)) / dn};
    cpx phi2 = {c2.re - (c1.re * phi1.re - c1.im * phi1.im), c2.im - (c1.re * phi1.im + c1.im * phi1.re)};
    double best = -1.0;
    for (int it = 0; it < 4 * NDIR; it++) {
        double th = 2.0 * PI * it / (4 * NDIR);
        double er = 1.0 - phi1.re * cos(th) - phi1.im * sin(th) - phi2.re * cos(2 * th) - phi2.im * sin(2 * th);
        double ei = phi1.re * sin(th) - phi1.im * cos(th) + phi2.re * sin(2 * th) - phi2.im * cos(2 * th);
        double d = 1.0 / (er * er + ei * ei + 1e-12);
        if (d > best) {
            best = d;
            p->mem_peak_dir = fmod(th * 180.0 / PI + 180.0, 360.0);
        }
    }
}

static void read_exact(void *buf, size_t sz, size_t n, FILE *f, const char *path)
{
    if (fread(buf, sz, n, f) != n) {
        if (feof(f))
            fprintf(stderr, "wave_buoy_heave_spectra: %s: unexpected end of file\n", path);
        die("fread", path);
    }
}

/* Pass 1: all channels of all records. */
static void spectral_pass(int b, record_params *p, FILE *csv)
{
    char path[4096];
    buoy_path(path, sizeof path, b);
    FILE *f = fopen(path, "rb");
    if (!f)
        die("open", path);
    file_header h;
    read_exact(&h, sizeof h, 1, f, path);
    if (h.magic != BUOY_MAGIC || h.nsamp != NSAMP || h.nrec != NREC) {
        fprintf(stderr, "%s: bad header\n", path);
        exit(1);
    }
    float *buf = malloc(sizeof(float) * 3 * NSAMP);
    double *s = malloc(sizeof(double) * 3 * NBAND);
    cpx *c = malloc(sizeof(cpx) * (3 * NBAND + 3 * NSEG));
    if (!buf || !s || !c)
        die("malloc", NULL);
    for (int r = 0; r < NREC; r++) {
        record_header rh;
        read_exact(&rh, sizeof rh, 1, f, path);
        read_exact(buf, sizeof(float), 3 * NSAMP, f, path);
        p[r].qc_spikes = qc_despike(buf, NSAMP);
        welch_spectra(buf, buf + NSAMP, buf + 2 * NSAMP, s, s + NBAND, s + 2 * NBAND, c, c + NBAND, c + 2 * NBAND,
                      c + 3 * NBAND);
        spectral_parameters(s, s + NBAND, s + 2 * NBAND, c, c + NBAND, c + 2 * NBAND, &p[r]);
        if (fprintf(csv, "%d,%d,%.1f,%.3f,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f,%d\n", b, r, rh.t_start_h, p[r].hm0, p[r].tp,
                    p[r].tm01, p[r].tm02, p[r].dirp, p[r].spread, p[r].mem_peak_dir, p[r].qc_spikes) < 0)
            die("write", "record_params.csv");
    }
    if (fclose(f) != 0)
        die("close", path);
    free(buf);
    free(s);
    free(c);
}

/* Pass 2: heave only, skipping horizontal channels with fseek. */
static void zero_crossing_pass(int b, record_params *p)
{
    char path[4096];
    buoy_path(path, sizeof path, b);
    FILE *f = fopen(path, "rb");
    if (!f)
        die("open", path);
    float *x = malloc(sizeof(float) * NSAMP);
    double *hw = malloc(sizeof(double) * NSAMP);
    if (!x || !hw)
        die("malloc", NULL);
    long rec_bytes = (long)sizeof(record_header) + 3L * NSAMP * (long)sizeof(float);
    for (int r = 0; r < NREC; r++) {
        long off = (long)sizeof(file_header) + r * rec_bytes + (long)sizeof(record_header);
        if (fseek(f, off, SEEK_SET) != 0)
            die("fseek", path);
        read_exact(x, sizeof(float), NSAMP, f, path);
        qc_despike(x, NSAMP);
        double mean = 0.0;
        for (int i = 0; i < NSAMP; i++)
            mean += x[i];
        mean /= NSAMP;
        int nw = 0, last_up = -1;
        double hi = -1e30, lo = 1e30;
        for (int i = 1; i < NSAMP; i++) {
            double a = x[i - 1] - mean, c = x[i] - mean;
            if (last_up >= 0) {
                if (c > hi)
                    hi = c;
                if (c < lo)
                    lo = c;
            }
            if (a < 0.0 && c >= 0.0) {
                if (last_up >= 0)
                    hw[nw++] = hi - lo;
                last_up = i;
                hi = -1e30;
                lo = 1e30;
            }
        }
        /* H1/3: mean of highest third, via partial selection sort */
        double hmax = 0.0, sum = 0.0;
        int third = nw / 3;
        for (int k = 0; k < third; k++) {
            int m = k;
            for (int j = k + 1; j < nw; j++)
                if (hw[j] > hw[m])
                    m = j;
            double t = hw[k];
            hw[k] = hw[m];
            hw[m] = t;
            sum += hw[k];
        }
        if (nw > 0)
            hmax = hw[0];
        p[r].nwaves = nw;
        p[r].h13 = third > 0 ? sum / third : 0.0;
        p[r].hmax = hmax;
    }
    if (fclose(f) != 0)
        die("close", path);
    free(x);
    free(hw);
}

/* Weibull fit of Hm0 by linear regression on the Weibull plot. */
static void weibull_fit(const record_params *p, double *k, double *lambda, double *h100)
{
    double hs[NREC];
    for (int r = 0; r < NREC; r++)
        hs[r] = p[r].hm0;
    for (int i = 1; i < NREC; i++) {
        double t = hs[i];
        int j = i;
        while (j > 0 && hs[j - 1] > t) {
            hs[j] = hs[j - 1];
            j--;
        }
        hs[j] = t;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < NREC; i++) {
        double F = (i + 0.7) / (NREC + 0.4);
        double x = log(hs[i]), y = log(-log(1.0 - F));
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double slope = (NREC * sxy - sx * sy) / (NREC * sxx - sx * sx);
    double icpt = (sy - slope * sx) / NREC;
    *k = slope;
    *lambda = exp(-icpt / slope);
    *h100 = *lambda * pow(log(100.0 * 48.0), 1.0 / *k); /* 100-record return level */
}

static void write_report(record_params p[NBUOY][NREC])
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/network_report.txt", g_dir) >= sizeof path)
        die("path too long", NULL);
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    int ok = fprintf(f, "buoy   lat     lon    max_Hm0  t_max_h  max_Hmax  Hmax/Hm0  mean_Tp  spikes  weib_k  weib_l  H_ret\n") >= 0;
    for (int b = 0; b < NBUOY && ok; b++) {
        int rmax = 0, spikes = 0;
        double tp = 0.0, ratio = 0.0;
        for (int r = 0; r < NREC; r++) {
            if (p[b][r].hm0 > p[b][rmax].hm0)
                rmax = r;
            spikes += p[b][r].qc_spikes;
            tp += p[b][r].tp;
            ratio = fmax(ratio, p[b][r].hmax / p[b][r].hm0);
        }
        double k, l, h100;
        weibull_fit(p[b], &k, &l, &h100);
        ok = fprintf(f, "%4d %6.2f %6.2f %9.3f %8.1f %9.3f %9.3f %8.2f %7d %7.3f %7.3f %6.2f\n", b, buoy_lat[b],
                     buoy_lon[b], p[b][rmax].hm0, 0.5 * rmax, p[b][rmax].hmax, ratio, tp / NREC, spikes, k, l, h100) >= 0;
    }
    if (!ok)
        die("write", path);
    if (fclose(f) != 0)
        die("close", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    generate_archive();

    static record_params p[NBUOY][NREC];
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/record_params.csv", g_dir) >= sizeof path)
        die("path too long", NULL);
    FILE *csv = fopen(path, "w");
    if (!csv)
        die("open", path);
    if (fprintf(csv, "buoy,record,t_h,hm0_m,tp_s,tm01_s,tm02_s,dirp_deg,spread_deg,mem_dir_deg,spikes\n") < 0)
        die("write", path);
    for (int b = 0; b < NBUOY; b++)
        spectral_pass(b, p[b], csv);
    if (fclose(csv) != 0)
        die("close", path);
    for (int b = 0; b < NBUOY; b++)
        zero_crossing_pass(b, p[b]);
    write_report(p);

    double hmx = 0.0;
    int bmx = 0;
    for (int b = 0; b < NBUOY; b++)
        for (int r = 0; r < NREC; r++)
            if (p[b][r].hm0 > hmx) {
                hmx = p[b][r].hm0;
                bmx = b;
            }
    printf("wave_buoy_heave_spectra: %d buoys x %d records analysed, peak Hm0 %.2f m at buoy %d\n", NBUOY, NREC, hmx,
           bmx);
    return 0;
}
