/*
 * tbm_telemetry_ring_stats.c
 *
 * Post-shift analysis of tunnel-boring-machine (EPB shield) PLC telemetry.
 * The program first produces its input: a geological long section (CSV of
 * rock units along chainage) and one binary 1 Hz telemetry file per working
 * day (thrust, cutterhead torque and speed, penetration, face and grout
 * pressures, cylinder strokes, gearbox temperature), with boring and
 * ring-building phases.
 *
 * Analysis is read-mostly: the telemetry is streamed three times with
 * large fread chunks.  Pass 1 builds per-ring statistics (specific energy,
 * field penetration index, advance rate, stroke spread); pass 2 flags
 * torque jams against the per-ring statistics, histograms the field
 * penetration index per rock class and collects the torque series for a
 * Welch power spectrum (cutterhead imbalance); pass 3 reconstructs the
 * shield's steering deviation from the differential cylinder strokes.
 * A short text report, a per-ring CSV and an alignment CSV are written.
 *
 * usage: tbm_telemetry_ring_stats OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDAYS 8
#define SEC_PER_DAY 86400
#define MAXRING 400
#define NUNITS 24
#define NCLASS 4
#define CHUNK_RECS 16384
#define FPI_BINS 64
#define SPEC_N 4096            /* Welch segment length */
#define SPEC_DECIM 1           /* torque series decimation (s) */
#define MAXSPEC (NDAYS * SEC_PER_DAY / SPEC_DECIM)
#define PI 3.14159265358979323846

typedef struct {
    int64_t t_ms;
    int32_t ring;
    int16_t mode;            /* 1 boring, 2 ring build, 0 standstill */
    int16_t flags;
    double chainage_m;
    float thrust_kN, torque_kNm, rpm, pen_mm_rev, adv_mm_min;
    float face_bar, grout_bar, stroke_mm[4], gearbox_C;
} tbm_rec;

typedef struct { double ch0, ch1; int rock_class; double ucs_MPa; } unit_t;

typedef struct {
    long n_boring, n_build;
    double ch_start, ch_end;
    double s_thrust, s_torque, s_rpm, s_pen, s_adv, s_se, s_fpi;
    double ss_torque, max_torque, s_stroke_spread, max_gear;
    long jams;
    int rock_class;
} ring_stat;

static const char *outdir;
static unit_t units[NUNITS];
static int nunits;
static ring_stat rings[MAXRING];
static int nrings;
static tbm_rec chunk[CHUNK_RECS];
static long fpi_hist[NCLASS][FPI_BINS];
static double *spec_series;
static long nspec;
static uint64_t rng = 0x7b3e11d0c4a2f9e5ull;

static const double CUTTER_AREA_M2 = 38.5;   /* 7 m shield */
static const int NCUTTERS = 44;

static void die(const char *what)
{
    fprintf(stderr, "tbm_telemetry_ring_stats: %s: %s\n", what, errno ? strerror(errno) : "error");
    exit(1);
}

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = urand(), v = urand();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

static FILE *open_out(const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

static void write_geology(void)
{
    FILE *f = open_out("long_section.csv", "w");
    static const char *names[NCLASS] = {"clay", "sandstone", "mudstone", "granite"};
    static const double ucs[NCLASS] = {0.4, 45.0, 18.0, 140.0};
    double ch = 1000.0;
    if (fprintf(f, "unit,ch_from_m,ch_to_m,class,lithology,ucs_MPa\n") < 0) die("geology");
    for (int u = 0; u < NUNITS; u++) {
        double len = 5.0 + 15.0 * urand();
        int c = (int)(urand() * NCLASS);
        if (fprintf(f, "%d,%.2f,%.2f,%d,%s,%.1f\n", u, ch, ch + len, c, names[c], ucs[c] * (0.8 + 0.4 * urand())) < 0)
            die("geology");
        ch += len;
    }
    if (fclose(f) != 0) die("close geology");
}

static void load_geology(void)
{
    FILE *f = open_out("long_section.csv", "r");
    char line[256], lith[64];
    if (!fgets(line, sizeof line, f)) die("geology header");
    nunits = 0;
    while (fgets(line, sizeof line, f) && nunits < NUNITS) {
        unit_t *u = &units[nunits];
        int id;
        if (sscanf(line, "%d,%lf,%lf,%d,%63[^,],%lf", &id, &u->ch0, &u->ch1, &u->rock_class, lith, &u->ucs_MPa) != 6)
            die("bad geology line");
        nunits++;
    }
    if (ferror(f)) die("read geology");
    fclose(f);
}

static const unit_t *unit_at(double ch)
{
    for (int u = 0; u < nunits; u++)
        if (ch >= units[u].ch0 && ch < units[u].ch1) return &units[u];
    return &units[nunits - 1];
}

/* machine model: one telemetry file per day */
static void generate_telemetry(void)
{
    double ch = 1000.0, stroke = 0.0, gear = 45.0, imbalance = 0.0;
    int ring = 0, mode = 1;
    long build_left = 0;
    for (int day = 0; day < NDAYS; day++) {
        char name[64];
        snprintf(name, sizeof name, "tbm_day%02d.bin", day);
        FILE *f = open_out(name, "wb");
        int n = 0;
        for (int s = 0; s < SEC_PER_DAY; s++) {
            tbm_rec *r = &chunk[n];
            memset(r, 0, sizeof *r);
            long t = (long)day * SEC_PER_DAY + s;
            r->t_ms = (int64_t)t * 1000;
            int maint = (s / 3600) == 6;            /* daily maintenance hour */
            const unit_t *u = unit_at(ch);
            if (maint) {
                mode = 0;
            } else if (mode == 0) {
                mode = build_left > 0 ? 2 : 1;
            }
            int rec_mode = mode, rec_ring = ring;
            if (mode == 1) {
                double hard = u->ucs_MPa;
                double rpm = hard > 60 ? 3.4 : 2.6;
                double pen = (26.0 / (1.0 + hard / 40.0)) * (1.0 + 0.08 * gauss());
                if (pen < 0.5) pen = 0.5;
                double thrust = 9000.0 + 95.0 * hard + 2500.0 * gauss() * 0.1;
                imbalance = 0.97 * imbalance + 0.03 * gauss();
                double torque = 1200.0 + 60.0 * pen + 8.0 * hard +
                                150.0 * sin(2.0 * PI * t / 37.0) * (1.0 + imbalance) + 40.0 * gauss();
                if (urand() < 2e-4) torque *= 2.4;      /* occasional jam */
                double adv = pen * rpm;                  /* mm/min */
                stroke += adv / 60.0;
                ch += adv / 60.0 / 1000.0;
                r->thrust_kN = (float)thrust; r->torque_kNm = (float)torque;
                r->rpm = (float)rpm; r->pen_mm_rev = (float)pen; r->adv_mm_min = (float)adv;
                gear += 0.002 * (torque / 50.0 - (gear - 20.0));
                if (stroke >= 1500.0) { mode = 2; build_left = 1500 + (long)(600 * urand()); }
            } else if (mode == 2) {
                gear += 0.002 * (20.0 - gear);
                if (--build_left <= 0) { mode = 1; stroke = 0.0; ring++; }
            } else {
                gear += 0.002 * (20.0 - gear);
            }
            r->ring = rec_ring; r->mode = (int16_t)rec_mode;
            r->chainage_m = ch;
            r->face_bar = (float)(1.8 + 0.02 * ch / 100.0 + 0.05 * gauss());
            r->grout_bar = (float)(mode == 1 ? 2.4 + 0.1 * gauss() : 0.0);
            for (int k = 0; k < 4; k++)
                r->stroke_mm[k] = (float)(stroke + 6.0 * sin(0.5 * k + ch * 0.3) + 0.5 * gauss());
            r->gearbox_C = (float)gear;
            if (++n == CHUNK_RECS) {
                if (fwrite(chunk, sizeof(tbm_rec), (size_t)n, f) != (size_t)n) die("write telemetry");
                n = 0;
            }
        }
        if (n && fwrite(chunk, sizeof(tbm_rec), (size_t)n, f) != (size_t)n) die("write telemetry");
        if (fclose(f) != 0) die("close telemetry");
    }
}

static double specific_energy(const tbm_rec *r)
{
    /* Teale specific energy, MJ/m^3: F/A + 2 pi N T / (A u) */
    double u = r->adv_mm_min / 1000.0;               /* m/min */
    return (r->thrust_kN / CUTTER_AREA_M2 + 2.0 * PI * r->rpm * r->torque_kNm / (CUTTER_AREA_M2 * u)) / 1000.0;
}

static double fpi(const tbm_rec *r)
{
    return (r->thrust_kN / NCUTTERS) / r->pen_mm_rev;    /* kN/cutter per mm/rev */
}

/* stream every day file through fn, chunk by chunk */
static long stream_days(void (*fn)(const tbm_rec *, int))
{
    long total = 0;
    for (int day = 0; day < NDAYS; day++) {
        char name[64];
        snprintf(name, sizeof name, "tbm_day%02d.bin", day);
        FILE *f = open_out(name, "rb");
        size_t got;
        while ((got = fread(chunk, sizeof(tbm_rec), CHUNK_RECS, f)) > 0) {
            fn(chunk, (int)got);
            total += (long)got;
        }
        if (ferror(f)) die("read telemetry");
        fclose(f);
    }
    return total;
}

static void ring_pass_chunk(const tbm_rec *r, int n)
{
    for (int i = 0; i < n; i++, r++) {
        if (r->ring < 0 || r->ring >= MAXRING) die("ring out of range");
        ring_stat *s = &rings[r->ring];
        if (r->ring + 1 > nrings) {
            nrings = r->ring + 1;
            s->ch_start = r->chainage_m;
        }
        s->ch_end = r->chainage_m;
        if (r->mode == 2) { s->n_build++; continue; }
        if (r->mode != 1) continue;
        s->n_boring++;
        s->s_thrust += r->thrust_kN; s->s_torque += r->torque_kNm;
        s->ss_torque += (double)r->torque_kNm * r->torque_kNm;
        if (r->torque_kNm > s->max_torque) s->max_torque = r->torque_kNm;
        s->s_rpm += r->rpm; s->s_pen += r->pen_mm_rev; s->s_adv += r->adv_mm_min;
        s->s_se += specific_energy(r);
        s->s_fpi += fpi(r);
        float lo = r->stroke_mm[0], hi = lo;
        for (int k = 1; k < 4; k++) {
            if (r->stroke_mm[k] < lo) lo = r->stroke_mm[k];
            if (r->stroke_mm[k] > hi) hi = r->stroke_mm[k];
        }
        s->s_stroke_spread += hi - lo;
        if (r->gearbox_C > s->max_gear) s->max_gear = r->gearbox_C;
    }
}

static void finish_ring_stats(void)
{
    for (int i = 0; i < nrings; i++) {
        ring_stat *s = &rings[i];
        s->rock_class = unit_at(0.5 * (s->ch_start + s->ch_end))->rock_class;
    }
}

static int jam_run[1];
static void anomaly_pass_chunk(const tbm_rec *r, int n)
{
    for (int i = 0; i < n; i++, r++) {
        if (r->mode != 1) { jam_run[0] = 0; continue; }
        ring_stat *s = &rings[r->ring];
        double m = s->s_torque / s->n_boring;
        double sd = sqrt(fmax(s->ss_torque / s->n_boring - m * m, 1e-9));
        if (r->torque_kNm > m + 4.0 * sd) {
            if (jam_run[0]++ == 0) s->jams++;
        } else {
            jam_run[0] = 0;
        }
        double v = fpi(r);
        int b = (int)(v / 5.0);
        if (b < 0) b = 0;
        if (b >= FPI_BINS) b = FPI_BINS - 1;
        fpi_hist[s->rock_class][b]++;
        if ((r->t_ms / 1000) % SPEC_DECIM == 0 && nspec < MAXSPEC) spec_series[nspec++] = r->torque_kNm - m;
    }
}

/* pass 3: shield attitude from the differential cylinder strokes (top/bottom
 * and left/right pairs); integrated per ring into a steering deviation */
static double align_yaw[MAXRING], align_pitch[MAXRING];
static long align_n[MAXRING];
static void alignment_pass_chunk(const tbm_rec *r, int n)
{
    const double arm_mm = 3200.0;                   /* cylinder pitch-circle radius */
    for (int i = 0; i < n; i++, r++) {
        if (r->mode != 1) continue;
        double yaw = (r->stroke_mm[1] - r->stroke_mm[3]) / (2.0 * arm_mm);
        double pitch = (r->stroke_mm[0] - r->stroke_mm[2]) / (2.0 * arm_mm);
        align_yaw[r->ring] += yaw * r->adv_mm_min / 60.0;
        align_pitch[r->ring] += pitch * r->adv_mm_min / 60.0;
        align_n[r->ring]++;
    }
}

static void write_alignment(void)
{
    FILE *f = open_out("alignment.csv", "w");
    double dx = 0.0, dz = 0.0;
    if (fprintf(f, "ring,samples,horiz_dev_mm,vert_dev_mm\n") < 0) die("alignment");
    for (int i = 0; i < nrings; i++) {
        dx += align_yaw[i];
        dz += align_pitch[i];
        if (fprintf(f, "%d,%ld,%.2f,%.2f\n", i, align_n[i], dx, dz) < 0) die("alignment");
    }
    if (fclose(f) != 0) die("close alignment");
}

/* radix-2 complex FFT, in place */
static void fft(double *re, double *im, int n)
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
        double ang = -2.0 * PI / len;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                double wr = cos(ang * k), wi = sin(ang * k);
                double xr = re[i + k + len / 2] * wr - im[i + k + len / 2] * wi;
                double xi = re[i + k + len / 2] * wi + im[i + k + len / 2] * wr;
                re[i + k + len / 2] = re[i + k] - xr; im[i + k + len / 2] = im[i + k] - xi;
                re[i + k] += xr; im[i + k] += xi;
            }
    }
}

/* Welch PSD of the decimated torque series (Hann, 50 % overlap); returns peak period in s */
static double torque_spectrum(double *psd)
{
    static double re[SPEC_N], im[SPEC_N];
    int nseg = 0;
    for (int k = 0; k < SPEC_N / 2; k++) psd[k] = 0.0;
    for (long off = 0; off + SPEC_N <= nspec; off += SPEC_N / 2) {
        for (int k = 0; k < SPEC_N; k++) {
            double w = 0.5 - 0.5 * cos(2.0 * PI * k / (SPEC_N - 1));
            re[k] = w * spec_series[off + k];
            im[k] = 0.0;
        }
        fft(re, im, SPEC_N);
        for (int k = 0; k < SPEC_N / 2; k++) psd[k] += re[k] * re[k] + im[k] * im[k];
        nseg++;
    }
    int kmax = 1;
    for (int k = 1; k < SPEC_N / 2; k++) {
        if (nseg) psd[k] /= nseg;
        if (psd[k] > psd[kmax]) kmax = k;
    }
    return SPEC_N * (double)SPEC_DECIM / kmax;
}

static void write_reports(long nrec, double peak_period, const double *psd)
{
    FILE *f = open_out("ring_summary.csv", "w");
    if (fprintf(f, "ring,ch_start,ch_end,class,boring_s,build_s,thrust_kN,torque_kNm,rpm,pen_mm_rev,"
                   "adv_mm_min,SE_MJ_m3,FPI,max_torque,stroke_spread_mm,max_gearbox_C,jams\n") < 0)
        die("ring csv");
    for (int i = 0; i < nrings; i++) {
        ring_stat *s = &rings[i];
        double n = s->n_boring ? (double)s->n_boring : 1.0;
        if (fprintf(f, "%d,%.3f,%.3f,%d,%ld,%ld,%.1f,%.1f,%.3f,%.3f,%.2f,%.2f,%.2f,%.1f,%.2f,%.2f,%ld\n", i,
                    s->ch_start, s->ch_end, s->rock_class, s->n_boring, s->n_build, s->s_thrust / n,
                    s->s_torque / n, s->s_rpm / n, s->s_pen / n, s->s_adv / n, s->s_se / n, s->s_fpi / n,
                    s->max_torque, s->s_stroke_spread / n, s->max_gear, s->jams) < 0)
            die("ring csv");
    }
    if (fclose(f) != 0) die("close ring csv");

    f = open_out("shift_report.txt", "w");
    static const char *names[NCLASS] = {"clay", "sandstone", "mudstone", "granite"};
    long jams = 0;
    double adv = 0.0;
    for (int i = 0; i < nrings; i++) jams += rings[i].jams;
    adv = rings[nrings - 1].ch_end - rings[0].ch_start;
    fprintf(f, "TBM telemetry report: %ld records, %d days, %d rings, advance %.2f m\n", nrec, NDAYS, nrings, adv);
    fprintf(f, "torque jams flagged: %ld   dominant torque period: %.1f s\n", jams, peak_period);
    for (int c = 0; c < NCLASS; c++) {
        long tot = 0, half = 0;
        for (int b = 0; b < FPI_BINS; b++) tot += fpi_hist[c][b];
        int med = 0;
        for (int b = 0; b < FPI_BINS; b++) {
            half += fpi_hist[c][b];
            if (2 * half >= tot) { med = b; break; }
        }
        fprintf(f, "class %-10s  boring samples %8ld  median FPI %5.1f kN/cutter/(mm/rev)\n", names[c], tot,
                5.0 * med + 2.5);
    }
    fprintf(f, "# torque PSD (first 32 bins)\n");
    for (int k = 1; k <= 32; k++) fprintf(f, "%8.5f Hz  %.4e\n", k / (SPEC_N * (double)SPEC_DECIM), psd[k]);
    if (ferror(f) || fclose(f) != 0) die("close shift report");
    printf("tbm telemetry: %ld records in %d day files, %d rings, %.1f m advanced\n", nrec, NDAYS, nrings, adv);
    printf("  jams %ld, dominant torque period %.1f s\n", jams, peak_period);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    outdir = argv[1];
    spec_series = malloc(sizeof(double) * MAXSPEC);
    if (!spec_series) die("malloc");
    write_geology();
    load_geology();
    generate_telemetry();
    long nrec = stream_days(ring_pass_chunk);
    finish_ring_stats();
    stream_days(anomaly_pass_chunk);
    stream_days(alignment_pass_chunk);
    write_alignment();
    static double psd[SPEC_N / 2];
    double period = torque_spectrum(psd);
    write_reports(nrec, period, psd);
    free(spec_series);
    return 0;
}
