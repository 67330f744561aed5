/*
 * meteor_echo_spool_winds.c
 *
 * One day of an all-sky VHF meteor radar.  The acquisition side delivers
 * every detection as a small text file (header + 256 complex samples)
 * into a spool tree incoming/<doy>/<hh>/, writing to a .tmp name and
 * renaming it into place; a few deliveries are torn or left as .tmp.
 * The processing side then sweeps the spool with opendir/readdir/stat:
 * stale .tmp files are unlinked, short files are renamed into
 * quarantine/, each echo is parsed and its Doppler and decay time are
 * re-estimated from the samples, non-meteor detections are unlinked and
 * meteors are renamed into archive/<doy>/<hh>/.  Hourly wind profiles
 * are fitted per height gate (least squares with outlier rejection) and
 * written as one small file per hour, a daily tidal fit is made, hours
 * older than the retention window are packed into bundles and their
 * directories removed, and the final tree is audited recursively.
 *
 * usage: meteor_echo_spool_winds OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define DOY          "2024075"
#define NSAMP        256
#define FS_HZ        536.0
#define LAMBDA_M     9.2
#define RE_KM        6371.0
#define NGATE        10                 /* 70..110 km, 4 km gates */
#define GATE0        70.0
#define GATEW        4.0
#define KEEP_HOURS   6                  /* raw echoes kept unbundled */
#define MAXECHO      40000
#define MIN_FILE     1200               /* bytes; anything shorter is torn */
#define NOISE_POWER  3200.0             /* receiver noise power from calibration */

typedef struct {
    int hour;
    double t_s;                          /* seconds of day */
    double zen, az, range, height;
    double vr, tau, snr;
} echo_t;

static const char *g_dir;
static uint64_t g_rng = 0xC0FFEE1234ULL;
static echo_t g_echo[MAXECHO];
static int g_necho;
static long g_tmp_removed, g_quarantined, g_rejected;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "meteor_echo_spool_winds: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double rnd(void)
{
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
    double u = rnd(), v = rnd();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void mkdir_p(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir", tmp);
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir", tmp);
}

/* Mesospheric wind model: mean flow + diurnal and semidiurnal tides. */
static void true_wind(double t_s, double h, double *u, double *v, double *w)
{
    double th = t_s / 3600.0, z = h - 90.0;
    *u = 12.0 + 0.8 * z + 25.0 * cos(2 * M_PI * (th - 6.0 - 0.25 * z) / 24.0) +
         18.0 * cos(2 * M_PI * (th - 3.0 + 0.15 * z) / 12.0);
    *v = -4.0 + 20.0 * sin(2 * M_PI * (th - 6.0 - 0.25 * z) / 24.0) +
         15.0 * sin(2 * M_PI * (th - 3.0 + 0.15 * z) / 12.0);
    *w = 0.3 * sin(2 * M_PI * th / 8.0);
}

/* Underdense trail: exponential decay with Doppler, plus receiver noise. */
static void synth_iq(double vr, double tau, double snr_db, int kind, int iq[NSAMP][2])
{
    double f = 2.0 * vr / LAMBDA_M;
    double amp = 40.0 * pow(10.0, snr_db / 20.0);
    double ph0 = 2 * M_PI * rnd();
    for (int n = 0; n < NSAMP; n++) {
        double t = n / FS_HZ, a;
        if (kind == 0) a = amp * exp(-t / tau);                 /* meteor */
        else if (kind == 1) a = amp * (0.7 + 0.3 * sin(9.0 * t)); /* aircraft: no decay */
        else a = 0.0;                                           /* interference / noise */
        double ph = ph0 + 2 * M_PI * f * t;
        iq[n][0] = (int)lrint(a * cos(ph) + 40.0 * gauss());
        iq[n][1] = (int)lrint(a * sin(ph) + 40.0 * gauss());
    }
}

/* Acquisition: generate the day's detections as spool files. */
static long acquire_day(long *bytes)
{
    char dir[1024], tmp[1300], fin[1200];
    long files = 0;
    *bytes = 0;
    static int iq[NSAMP][2];
    for (int h = 0; h < 24; h++) {
        snprintf(dir, sizeof dir, "%s/spool/incoming/%s/%02d", g_dir, DOY, h);
        mkdir_p(dir);
        /* sporadic meteor rate peaks near 06 local (= UTC here) */
        int n = (int)(135 + 100 * cos(2 * M_PI * (h - 6) / 24.0) + 10 * gauss());
        double t = h * 3600.0;
        for (int k = 0; k < n; k++) {
            t += 3600.0 / n * (0.2 + 1.6 * rnd());
            if (t >= (h + 1) * 3600.0) t = (h + 1) * 3600.0 - 0.01;
            double u = rnd();
            int kind = u < 0.86 ? 0 : u < 0.92 ? 1 : 2;
            double zen = acos(cos(8 * M_PI / 180) - rnd() * (cos(8 * M_PI / 180) - cos(68 * M_PI / 180)));
            double az = 2 * M_PI * rnd();
            double hgt = 90.0 + 6.5 * gauss();
            if (kind != 0) hgt = 60.0 + 80.0 * rnd();
            double range = -RE_KM * cos(zen) + sqrt(RE_KM * RE_KM * cos(zen) * cos(zen) + hgt * hgt + 2 * RE_KM * hgt);
            double wu, wv, ww;
            true_wind(t, hgt, &wu, &wv, &ww);
            double vr = wu * sin(zen) * sin(az) + wv * sin(zen) * cos(az) + ww * cos(zen) + 4.0 * gauss();
            if (kind == 1) vr = 60.0 + 80.0 * rnd();
            /* ambipolar diffusion: decay time falls steeply with height */
            double logD = 0.5 + 0.055 * (hgt - 90.0) + 0.1 * gauss();
            double tau = LAMBDA_M * LAMBDA_M / (16 * M_PI * M_PI * pow(10.0, logD));
            double snr = 6.0 + 14.0 * rnd();
            synth_iq(vr, tau, snr, kind, iq);
            int hh = (int)(t / 3600), mm = (int)(fmod(t, 3600.0) / 60), ss = (int)fmod(t, 60.0);
            int ms = (int)((t - floor(t)) * 1000);
            snprintf(fin, sizeof fin, "%s/mr_%sT%02d%02d%02d_%03d_%04d.ech", dir, DOY, hh, mm, ss, ms, k);
            snprintf(tmp, sizeof tmp, "%s.tmp", fin);
            FILE *f = fopen(tmp, "w");
            if (!f) die("fopen", tmp);
            int ok = fprintf(f, "# meteor echo v2 station=SKY-CAL freq_mhz=32.55\n") > 0;
            ok &= fprintf(f, "time_utc = 2024-03-15T%02d:%02d:%02d.%03d\n", hh, mm, ss, ms) > 0;
            ok &= fprintf(f, "range_km = %.2f\nzenith_deg = %.3f\nazimuth_deg = %.3f\nsnr_db = %.1f\n", range,
                          zen * 180 / M_PI, az * 180 / M_PI, snr) > 0;
            ok &= fprintf(f, "nsamp = %d\nfs_hz = %.1f\niq =\n", NSAMP, FS_HZ) > 0;
            int torn = rnd() < 0.004;
            int limit = torn ? NSAMP / 8 : NSAMP;
            for (int s = 0; s < limit; s++) ok &= fprintf(f, "%6d %6d\n", iq[s][0], iq[s][1]) > 0;
            if (!ok) die("fprintf", tmp);
            if (fclose(f) != 0) die("fclose", tmp);
            struct stat st;
            if (stat(tmp, &st) != 0) die("stat", tmp);
            *bytes += st.st_size;
            files++;
            if (rnd() < 0.002) continue;                 /* delivery crashed before rename */
            if (rename(tmp, fin) != 0) die("rename", fin);
        }
    }
    return files;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of regular-file names in a directory (caller frees). */
static int list_dir(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    if (!d) die("opendir", dir);
    int cap = 1024, n = 0;
    char **names = malloc(sizeof(char *) * (size_t)cap);
    if (!names) die("malloc", dir);
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap *= 2;
            char **nn = realloc(names, sizeof(char *) * (size_t)cap);
            if (!nn) die("realloc", dir);
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (!names[n]) die("strdup", dir);
        n++;
    }
    if (errno != 0) die("readdir", dir);
    if (closedir(d) != 0) die("closedir", dir);
    qsort(names, (size_t)n, sizeof(char *), cmp_name);
    *out = names;
    return n;
}

static void free_list(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* Decay time by regression of log power (4-sample blocks, calibrated
 * receiver noise removed) against time; Doppler by pulse-pair phase. */
static void estimate_from_iq(int iq[NSAMP][2], int n, double *vr, double *tau, double *snr_est)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, p_first = 0;
    int m = 0;
    for (int b = 0; b + 4 <= n; b += 4) {
        double p = 0;
        for (int i = b; i < b + 4; i++) p += (double)iq[i][0] * iq[i][0] + (double)iq[i][1] * iq[i][1];
        p = p / 4.0 - NOISE_POWER;
        if (b == 0) p_first = p;
        if (p < 1.5 * NOISE_POWER) break;
        double x = (b + 1.5) / FS_HZ, y = log(p);
        sx += x; sy += y; sxx += x * x; sxy += x * y; m++;
    }
    *snr_est = 10 * log10(fmax(p_first, 1.0) / NOISE_POWER);
    /* pulse-pair phase over the part of the record that still holds signal */
    int last = 4 * m > 8 ? 4 * m : 8;
    if (last > n) last = n;
    double re = 0, im = 0;
    for (int i = 1; i < last; i++) {
        double ar = iq[i][0], ai = iq[i][1], br = iq[i - 1][0], bi = iq[i - 1][1];
        re += ar * br + ai * bi;
        im += ai * br - ar * bi;
    }
    *vr = atan2(im, re) * FS_HZ / (2 * M_PI) * LAMBDA_M / 2.0;
    if (m >= 3) {
        double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
        *tau = slope < 0 ? -2.0 / slope : 99.0;        /* power decays at 2/tau */
    } else {
        *tau = m > 0 ? 2.0 * m / FS_HZ : 0.0;           /* only a few blocks: very short trail */
    }
}

/* Parse one echo file; returns 0 on success. */
static int parse_echo(const char *path, echo_t *e, int iq[NSAMP][2], int *nsamp)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[256];
    int hh = 0, mm = 0, ss = 0, ms = 0, have = 0, n = 0, in_iq = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (in_iq) {
            if (n < NSAMP && sscanf(line, "%d %d", &iq[n][0], &iq[n][1]) == 2) n++;
            continue;
        }
        char key[32];
        double val;
        if (sscanf(line, "time_utc = 2024-03-15T%d:%d:%d.%d", &hh, &mm, &ss, &ms) == 4) { have |= 1; continue; }
        if (strncmp(line, "iq =", 4) == 0) { in_iq = 1; continue; }
        if (sscanf(line, "%31s = %lf", key, &val) == 2) {
            if (strcmp(key, "range_km") == 0) { e->range = val; have |= 2; }
            else if (strcmp(key, "zenith_deg") == 0) { e->zen = val * M_PI / 180; have |= 4; }
            else if (strcmp(key, "azimuth_deg") == 0) { e->az = val * M_PI / 180; have |= 8; }
            else if (strcmp(key, "snr_db") == 0) { e->snr = val; have |= 16; }
        }
    }
    if (ferror(f)) die("read", path);
    if (fclose(f) != 0) die("fclose", path);
    *nsamp = n;
    if (have != 31 || n < NSAMP) return -1;
    e->t_s = hh * 3600.0 + mm * 60.0 + ss + ms / 1000.0;
    e->hour = hh;
    e->height = sqrt(e->range * e->range + RE_KM * RE_KM + 2 * e->range * RE_KM * cos(e->zen)) - RE_KM;
    return 0;
}

/* Sweep one hour of the spool: clean, quarantine, classify, archive. */
static int ingest_hour(int h)
{
    char in_dir[1024], arch_dir[1024], qdir[1024], src[1400], dst[1400];
    snprintf(in_dir, sizeof in_dir, "%s/spool/incoming/%s/%02d", g_dir, DOY, h);
    snprintf(arch_dir, sizeof arch_dir, "%s/archive/%s/%02d", g_dir, DOY, h);
    snprintf(qdir, sizeof qdir, "%s/spool/quarantine", g_dir);
    mkdir_p(arch_dir);
    char **names;
    int n = list_dir(in_dir, &names), kept = 0;
    static int iq[NSAMP][2];
    for (int i = 0; i < n; i++) {
        snprintf(src, sizeof src, "%s/%s", in_dir, names[i]);
        size_t len = strlen(names[i]);
        if (len > 4 && strcmp(names[i] + len - 4, ".tmp") == 0) {
            if (unlink(src) != 0) die("unlink", src);
            g_tmp_removed++;
            continue;
        }
        struct stat st;
        if (stat(src, &st) != 0) die("stat", src);
        if (!S_ISREG(st.st_mode) || st.st_size < MIN_FILE) {
            snprintf(dst, sizeof dst, "%s/%s", qdir, names[i]);
            if (rename(src, dst) != 0) die("rename", dst);
            g_quarantined++;
            continue;
        }
        echo_t e;
        int ns;
        if (parse_echo(src, &e, iq, &ns) != 0) {
            snprintf(dst, sizeof dst, "%s/%s", qdir, names[i]);
            if (rename(src, dst) != 0) die("rename", dst);
            g_quarantined++;
            continue;
        }
        double snr_est;
        estimate_from_iq(iq, ns, &e.vr, &e.tau, &snr_est);
        /* meteor: 70-110 km, 10 ms < tau < 1.5 s, consistent height/decay */
        int meteor = e.height > 70 && e.height < 110 && e.tau > 0.005 && e.tau < 1.5 && snr_est > 3.0 &&
                     fabs(e.vr) < 120.0;
        if (!meteor) {
            if (unlink(src) != 0) die("unlink", src);
            g_rejected++;
            continue;
        }
        snprintf(dst, sizeof dst, "%s/%s", arch_dir, names[i]);
        if (rename(src, dst) != 0) die("rename", dst);
        if (g_necho < MAXECHO) g_echo[g_necho++] = e;
        kept++;
    }
    free_list(names, n);
    if (rmdir(in_dir) != 0) die("rmdir", in_dir);
    return kept;
}

/* Solve 3x3 symmetric system by Cramer's rule. */
static int solve3(double a[3][3], const double b[3], double x[3])
{
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                 a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if (fabs(det) < 1e-9) return -1;
    for (int c = 0; c < 3; c++) {
        double m[3][3];
        memcpy(m, a, sizeof m);
        for (int r = 0; r < 3; r++) m[r][c] = b[r];
        x[c] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
    }
    return 0;
}

/* Hourly horizontal wind per height gate with 3-sigma outlier rejection. */
static void fit_winds(double wind[24][NGATE][3], int count[24][NGATE], double *rms_err)
{
    double se = 0;
    int ne = 0;
    for (int h = 0; h < 24; h++)
        for (int g = 0; g < NGATE; g++) {
            double lo = GATE0 + g * GATEW, hi = lo + GATEW;
            static char use[MAXECHO];
            int n = 0;
            for (int i = 0; i < g_necho; i++) {
                use[i] = g_echo[i].hour == h && g_echo[i].height >= lo && g_echo[i].height < hi;
                n += use[i];
            }
            double x[3] = {NAN, NAN, NAN};
            for (int iter = 0; iter < 4 && n >= 8; iter++) {
                double a[3][3] = {{0}}, b[3] = {0};
                for (int i = 0; i < g_necho; i++) {
                    if (!use[i]) continue;
                    const echo_t *e = &g_echo[i];
                    double r[3] = {sin(e->zen) * sin(e->az), sin(e->zen) * cos(e->az), cos(e->zen)};
                    for (int p = 0; p < 3; p++) {
                        b[p] += r[p] * e->vr;
                        for (int q = 0; q < 3; q++) a[p][q] += r[p] * r[q];
                    }
                }
                /* w is poorly resolved by the all-sky geometry: constrain it to zero */
                a[0][2] = a[1][2] = a[2][0] = a[2][1] = 0.0;
                a[2][2] = 1.0;
                b[2] = 0.0;
                if (solve3(a, b, x) != 0) { x[0] = x[1] = x[2] = NAN; break; }
                double ss = 0;
                for (int i = 0; i < g_necho; i++) {
                    if (!use[i]) continue;
                    const echo_t *e = &g_echo[i];
                    double res = e->vr - (x[0] * sin(e->zen) * sin(e->az) + x[1] * sin(e->zen) * cos(e->az) +
                                          x[2] * cos(e->zen));
                    ss += res * res;
                }
                double sd = sqrt(ss / n);
                int drop = 0;
                for (int i = 0; i < g_necho; i++) {
                    if (!use[i]) continue;
                    const echo_t *e = &g_echo[i];
                    double res = e->vr - (x[0] * sin(e->zen) * sin(e->az) + x[1] * sin(e->zen) * cos(e->az) +
                                          x[2] * cos(e->zen));
                    if (fabs(res) > 3 * sd) { use[i] = 0; drop++; n--; }
                }
                if (!drop) break;
            }
            count[h][g] = n;
            for (int p = 0; p < 3; p++) wind[h][g][p] = n >= 8 ? x[p] : NAN;
            if (n >= 8 && !isnan(x[0])) {
                double tu, tv, tw;
                true_wind(h * 3600.0 + 1800.0, lo + GATEW / 2, &tu, &tv, &tw);
                se += (x[0] - tu) * (x[0] - tu) + (x[1] - tv) * (x[1] - tv);
                ne += 2;
            }
        }
    *rms_err = ne ? sqrt(se / ne) : NAN;
}

static void write_wind_files(double wind[24][NGATE][3], int count[24][NGATE])
{
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/winds/%s", g_dir, DOY);
    mkdir_p(dir);
    for (int h = 0; h < 24; h++) {
        snprintf(path, sizeof path, "%s/wind_%sT%02d.txt", dir, DOY, h);
        FILE *f = fopen(path, "w");
        if (!f) die("fopen", path);
        int ok = fprintf(f, "# hourly meteor winds %s %02d:30 UTC\n# height_km  n  u_ms  v_ms  w_ms\n", DOY, h) > 0;
        for (int g = 0; g < NGATE; g++)
            ok &= fprintf(f, "%6.1f %5d %7.2f %7.2f %6.2f\n", GATE0 + (g + 0.5) * GATEW, count[h][g],
                          wind[h][g][0], wind[h][g][1], wind[h][g][2]) > 0;
        if (!ok) die("fprintf", path);
        if (fclose(f) != 0) die("fclose", path);
    }
}

/* Mean + 24/12/8 h harmonics per gate for u and v (7-parameter LSQ). */
static void fit_tides(double wind[24][NGATE][3])
{
    char path[1024];
    snprintf(path, sizeof path, "%s/winds/%s/tides.txt", g_dir, DOY);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "# height comp mean A24 ph24 A12 ph12 A8 ph8\n") < 0) die("fprintf", path);
    for (int g = 0; g < NGATE; g++)
        for (int c = 0; c < 2; c++) {
            double ata[7][8] = {{0}};
            for (int h = 0; h < 24; h++) {
                double y = wind[h][g][c];
                if (isnan(y)) continue;
                double t = h + 0.5, r[7] = {1, cos(2 * M_PI * t / 24), sin(2 * M_PI * t / 24), cos(2 * M_PI * t / 12),
                                            sin(2 * M_PI * t / 12), cos(2 * M_PI * t / 8), sin(2 * M_PI * t / 8)};
                for (int p = 0; p < 7; p++) {
                    for (int q = 0; q < 7; q++) ata[p][q] += r[p] * r[q];
                    ata[p][7] += r[p] * y;
                }
            }
            /* Gauss-Jordan on the augmented normal equations */
            int ok = 1;
            for (int p = 0; p < 7 && ok; p++) {
                int piv = p;
                for (int r = p + 1; r < 7; r++) if (fabs(ata[r][p]) > fabs(ata[piv][p])) piv = r;
                if (fabs(ata[piv][p]) < 1e-9) { ok = 0; break; }
                for (int k = 0; k < 8; k++) { double t = ata[p][k]; ata[p][k] = ata[piv][k]; ata[piv][k] = t; }
                for (int r = 0; r < 7; r++) {
                    if (r == p) continue;
                    double fct = ata[r][p] / ata[p][p];
                    for (int k = p; k < 8; k++) ata[r][k] -= fct * ata[p][k];
                }
            }
            double c_[7] = {0};
            if (ok) for (int p = 0; p < 7; p++) c_[p] = ata[p][7] / ata[p][p];
            if (fprintf(f, "%6.1f %c %7.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f\n", GATE0 + (g + 0.5) * GATEW,
                        c ? 'v' : 'u', c_[0], hypot(c_[1], c_[2]), atan2(c_[2], c_[1]) * 24 / (2 * M_PI),
                        hypot(c_[3], c_[4]), atan2(c_[4], c_[3]) * 12 / (2 * M_PI), hypot(c_[5], c_[6]),
                        atan2(c_[6], c_[5]) * 8 / (2 * M_PI)) < 0)
                die("fprintf", path);
        }
    if (fclose(f) != 0) die("fclose", path);
}

/* Pack archive hours older than the retention window into bundles. */
static long bundle_old_hours(long *packed_bytes)
{
    char bdir[1024], hdir[1024], src[1400], bpath[1200];
    snprintf(bdir, sizeof bdir, "%s/bundles", g_dir);
    mkdir_p(bdir);
    long members = 0;
    *packed_bytes = 0;
    static char buf[1 << 16];
    for (int h = 0; h < 24 - KEEP_HOURS; h++) {
        snprintf(hdir, sizeof hdir, "%s/archive/%s/%02d", g_dir, DOY, h);
        snprintf(bpath, sizeof bpath, "%s/echoes_%sT%02d.bundle", bdir, DOY, h);
        FILE *out = fopen(bpath, "w");
        if (!out) die("fopen", bpath);
        char **names;
        int n = list_dir(hdir, &names);
        if (fprintf(out, "BUNDLE %s %02d members=%d\n", DOY, h, n) < 0) die("fprintf", bpath);
        for (int i = 0; i < n; i++) {
            snprintf(src, sizeof src, "%s/%s", hdir, names[i]);
            struct stat st;
            if (stat(src, &st) != 0) die("stat", src);
            if (fprintf(out, "@@ %s %lld\n", names[i], (long long)st.st_size) < 0) die("fprintf", bpath);
            FILE *in = fopen(src, "r");
            if (!in) die("fopen", src);
            size_t got, tot = 0;
            while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
                if (fwrite(buf, 1, got, out) != got) die("fwrite", bpath);
                tot += got;
            }
            if (ferror(in)) die("fread", src);
            if (fclose(in) != 0) die("fclose", src);
            if ((long long)tot != (long long)st.st_size) { fprintf(stderr, "%s changed size\n", src); exit(1); }
            if (unlink(src) != 0) die("unlink", src);
            *packed_bytes += (long)tot;
            members++;
        }
        free_list(names, n);
        if (fclose(out) != 0) die("fclose", bpath);
        if (rmdir(hdir) != 0) die("rmdir", hdir);
    }
    return members;
}

/* Recursive audit: files, directories and bytes under a path. */
static void audit_tree(const char *path, long *files, long *dirs, long long *bytes)
{
    DIR *d = opendir(path);
    if (!d) die("opendir", path);
    (*dirs)++;
    struct dirent *e;
    char sub[1400];
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(sub, &st) != 0) die("lstat", sub);
        if (S_ISDIR(st.st_mode)) audit_tree(sub, files, dirs, bytes);
        else { (*files)++; *bytes += st.st_size; }
        errno = 0;
    }
    if (errno != 0) die("readdir", path);
    if (closedir(d) != 0) die("closedir", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    char path[1024];
    snprintf(path, sizeof path, "%s/spool/quarantine", g_dir);
    mkdir_p(path);

    long acq_bytes;
    long delivered = acquire_day(&acq_bytes);
    int kept = 0;
    for (int h = 0; h < 24; h++) kept += ingest_hour(h);
    static double wind[24][NGATE][3];
    static int count[24][NGATE];
    double rms;
    fit_winds(wind, count, &rms);
    write_wind_files(wind, count);
    fit_tides(wind);
    long packed_bytes;
    long packed = bundle_old_hours(&packed_bytes);
    long files = 0, dirs = 0;
    long long bytes = 0;
    audit_tree(g_dir, &files, &dirs, &bytes);

    snprintf(path, sizeof path, "%s/daily_summary.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    int ok = fprintf(f, "day %s\ndelivered %ld (%ld bytes)\nmeteors archived %d\nnon-meteor removed %ld\n"
                        "quarantined %ld\nstale tmp removed %ld\nbundled %ld files (%ld bytes)\n"
                        "wind rms error vs model %.2f m/s\ntree: %ld files in %ld dirs, %lld bytes\n",
                     DOY, delivered, acq_bytes, kept, g_rejected, g_quarantined, g_tmp_removed, packed,
                     packed_bytes, rms, files, dirs, bytes) > 0;
    if (!ok || fclose(f) != 0) die("write", path);

    printf("meteor_echo_spool_winds: %ld detections delivered, %d meteors archived\n", delivered, kept);
    printf("  rejected %ld, quarantined %ld, stale tmp %ld, bundled %ld\n", g_rejected, g_quarantined,
           g_tmp_removed, packed);
    printf("  hourly wind rms error %.2f m/s; tree %ld files / %ld dirs\n", rms, files, dirs);
    return 0;
}
