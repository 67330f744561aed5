/*
 * seis_stalta_picks: synthesize one seismogram file per station for a set
 * of local earthquakes, then process the archive like a small network
 * pipeline: scan the trace directory, bandpass every trace in place
 * (read, filter, pwrite back), detect P onsets with a recursive STA/LTA
 * trigger and locate each event by a grid search over epicentres.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#define NSTA        200
#define NEVT        6
#define FS          100.0
#define DURATION    600.0
#define NSAMP       ((int)(FS * DURATION))
#define AREA_KM     200.0
#define VP          6.0
#define VS          3.5
#define MAX_PICKS   32
#define GRID_STEP   0.5
#define STA_SEC     0.5
#define LTA_SEC     10.0
#define TRIG_ON     4.0
#define TRIG_OFF    1.5

typedef struct {
    char net[4], code[8];
    double x_km, y_km;
    double fs;
    int32_t nsamp;
    int32_t filtered;
    char pad[64];
} trace_hdr;

typedef struct { double x, y, t0, mag; } event_t;
typedef struct { int sta; double t; double snr; } pick_t;

static char root[4096];
static double sta_x[NSTA], sta_y[NSTA];

static double urand(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return (*s >> 11) * 0x1.0p-53;
}

static void setup_network(event_t *ev)
{
    uint64_t s = 0x7FEB352DULL;
    for (int i = 0; i < NSTA; i++) {
        sta_x[i] = AREA_KM * urand(&s);
        sta_y[i] = AREA_KM * urand(&s);
    }
    for (int e = 0; e < NEVT; e++) {
        ev[e].x = 30.0 + 140.0 * urand(&s);
        ev[e].y = 30.0 + 140.0 * urand(&s);
        ev[e].t0 = 40.0 + e * (DURATION - 80.0) / NEVT + 20.0 * urand(&s);
        ev[e].mag = 2.0 + 2.0 * urand(&s);
    }
}

static void synth_trace(int ista, const event_t *ev, float *tr)
{
    uint64_t s = 0xA5A5A5A5ULL + (uint64_t)ista * 7919;
    double ar = 0.0;
    for (int k = 0; k < NSAMP; k++) {
        double g = -1.5;
        for (int r = 0; r < 3; r++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            g += (s >> 11) * 0x1.0p-53;
        }
        ar = 0.95 * ar + g;
        tr[k] = (float)(0.2 * ar + 0.05 * sin(2.0 * M_PI * 0.15 * k / FS));
    }
    for (int e = 0; e < NEVT; e++) {
        double dx = ev[e].x - sta_x[ista], dy = ev[e].y - sta_y[ista];
        double dist = sqrt(dx * dx + dy * dy + 64.0);
        double amp = pow(10.0, ev[e].mag - 1.0) / dist;
        double tp = ev[e].t0 + dist / VP, ts = ev[e].t0 + dist / VS;
        int kp = (int)(tp * FS), ks = (int)(ts * FS);
        for (int k = kp; k < NSAMP && k < kp + (int)(40 * FS); k++) {
            double t = (k - kp) / FS;
            tr[k] += (float)(amp * exp(-t / 1.5) * sin(2.0 * M_PI * 6.0 * t));
        }
        for (int k = ks; k < NSAMP && k < ks + (int)(60 * FS); k++) {
            double t = (k - ks) / FS;
            tr[k] += (float)(2.5 * amp * exp(-t / 4.0) * sin(2.0 * M_PI * 3.0 * t + 0.3));
        }
    }
}

static void write_trace(int ista, const float *tr)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/traces/XS.S%03d.HHZ.bin", root, ista);
    trace_hdr h;
    memset(&h, 0, sizeof h);
    strcpy(h.net, "XS");
    snprintf(h.code, sizeof h.code, "S%03d", ista);
    h.x_km = sta_x[ista];
    h.y_km = sta_y[ista];
    h.fs = FS;
    h.nsamp = NSAMP;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    if (write(fd, &h, sizeof h) != (ssize_t)sizeof h ||
        write(fd, tr, NSAMP * sizeof *tr) != (ssize_t)(NSAMP * sizeof *tr)) {
        perror("write"); exit(1);
    }
    close(fd);
}

static int list_traces(char names[][64])
{
    char dpath[4200];
    snprintf(dpath, sizeof dpath, "%s/traces", root);
    DIR *d = opendir(dpath);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL && n < NSTA) {
        size_t L = strlen(de->d_name);
        if (L > 4 && strcmp(de->d_name + L - 4, ".bin") == 0)
            snprintf(names[n++], 64, "%s", de->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++) {
        char tmp[64];
        memcpy(tmp, names[i], 64);
        int j = i - 1;
        while (j >= 0 && strcmp(names[j], tmp) > 0) { memcpy(names[j + 1], names[j], 64); j--; }
        memcpy(names[j + 1], tmp, 64);
    }
    return n;
}

static void biquad_pass(float *x, int n, const double *b, const double *a, int reverse)
{
    double z1 = 0.0, z2 = 0.0;
    for (int i = 0; i < n; i++) {
        int k = reverse ? n - 1 - i : i;
        double in = x[k];
        double out = b[0] * in + z1;
        z1 = b[1] * in - a[1] * out + z2;
        z2 = b[2] * in - a[2] * out;
        x[k] = (float)out;
    }
}

/* Zero-phase 2x2nd-order Butterworth bandpass (highpass + lowpass, forward/backward). */
static void bandpass_filter(float *x, int n, double fs, double f1, double f2)
{
    double bh[3], ah[3], bl[3], al[3];
    double w = tan(M_PI * f1 / fs), q = M_SQRT1_2;
    double norm = 1.0 / (1.0 + w / q + w * w);
    bh[0] = norm; bh[1] = -2.0 * norm; bh[2] = norm;
    ah[0] = 1.0; ah[1] = 2.0 * (w * w - 1.0) * norm; ah[2] = (1.0 - w / q + w * w) * norm;
    w = tan(M_PI * f2 / fs);
    norm = 1.0 / (1.0 + w / q + w * w);
    bl[0] = w * w * norm; bl[1] = 2.0 * bl[0]; bl[2] = bl[0];
    al[0] = 1.0; al[1] = 2.0 * (w * w - 1.0) * norm; al[2] = (1.0 - w / q + w * w) * norm;
    for (int pass = 0; pass < 2; pass++) {
        biquad_pass(x, n, bh, ah, pass);
        biquad_pass(x, n, bl, al, pass);
    }
}

static int stalta_trigger(const float *x, int n, double fs, int ista, pick_t *picks, int maxp)
{
    double cs = 1.0 / (STA_SEC * fs), cl = 1.0 / (LTA_SEC * fs);
    double sta = 0.0, lta = 1e-6;
    int np = 0, on = 0;
    int warm = (int)(LTA_SEC * fs);
    for (int k = 0; k < n; k++) {
        double e = (double)x[k] * x[k];
        sta += cs * (e - sta);
        lta += cl * (e - lta);
        double r = sta / lta;
        if (k < warm) continue;
        if (!on && r > TRIG_ON && np < maxp) {
            picks[np].sta = ista;
            picks[np].t = k / fs - STA_SEC * 0.5;
            picks[np].snr = r;
            np++;
            on = 1;
        } else if (on && r < TRIG_OFF) {
            on = 0;
        }
    }
    return np;
}

static int process_traces(char names[][64], int ntr, pick_t *all, FILE *pk)
{
    float *tr = malloc(NSAMP * sizeof *tr);
    pick_t local[MAX_PICKS];
    int nall = 0;
    for (int i = 0; i < ntr; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/traces/%s", root, names[i]);
        int fd = open(path, O_RDWR);
        struct stat st;
        fstat(fd, &st);
        trace_hdr h;
        if (read(fd, &h, sizeof h) != (ssize_t)sizeof h ||
            st.st_size != (off_t)(sizeof h + (size_t)h.nsamp * sizeof(float)) ||
            read(fd, tr, (size_t)h.nsamp * sizeof(float)) != (ssize_t)(h.nsamp * sizeof(float))) {
            fprintf(stderr, "short trace %s\n", path); exit(1);
        }
        bandpass_filter(tr, h.nsamp, h.fs, 1.0, 15.0);
        h.filtered = 1;
        pwrite(fd, tr, (size_t)h.nsamp * sizeof(float), sizeof h);
        pwrite(fd, &h, sizeof h, 0);
        close(fd);
        int ista = atoi(h.code + 1);
        int np = stalta_trigger(tr, h.nsamp, h.fs, ista, local, MAX_PICKS);
        for (int p = 0; p < np; p++) {
            fprintf(pk, "%s,%s,%.3f,%.3f,%.2f,%.2f\n", h.net, h.code, h.x_km, h.y_km,
                    local[p].t, local[p].snr);
            all[nall++] = local[p];
        }
    }
    free(tr);
    return nall;
}

/* Grid search for each event window of P picks; returns number of located events. */
static int associate_locate(const pick_t *p, int np, const event_t *truth, FILE *cat)
{
    int nloc = 0;
    int ng = (int)(AREA_KM / GRID_STEP) + 1;
    for (int e = 0; e < NEVT; e++) {
        double w0 = truth[e].t0 - 5.0, w1 = truth[e].t0 + 35.0;
        int idx[NSTA];
        int m = 0;
        char used[NSTA] = {0};
        for (int i = 0; i < np && m < NSTA; i++)
            if (p[i].t >= w0 && p[i].t <= w1 && !used[p[i].sta]) { used[p[i].sta] = 1; idx[m++] = i; }
        if (m < 4) continue;
        double best = 1e30, bx = 0, by = 0, bt = 0;
        for (int gy = 0; gy < ng; gy++) {
            for (int gx = 0; gx < ng; gx++) {
                double x = gx * GRID_STEP, y = gy * GRID_STEP;
                double tt[NSTA], mean = 0.0;
                for (int k = 0; k < m; k++) {
                    int s = p[idx[k]].sta;
                    double dx = x - sta_x[s], dy = y - sta_y[s];
                    tt[k] = p[idx[k]].t - sqrt(dx * dx + dy * dy + 64.0) / VP;
                    mean += tt[k];
                }
                mean /= m;
                double l1 = 0.0;
                for (int k = 0; k < m; k++) l1 += fabs(tt[k] - mean);
                if (l1 < best) { best = l1; bx = x; by = y; bt = mean; }
            }
        }
        fprintf(cat, "event %d picks %d x %.2f y %.2f t0 %.3f misfit %.4f | true %.2f %.2f %.3f\n",
                e, m, bx, by, bt, best / m, truth[e].x, truth[e].y, truth[e].t0);
        nloc++;
    }
    return nloc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        return 2;
    }
    snprintf(root, sizeof root, "%s", argv[1]);
    char path[4200];
    snprintf(path, sizeof path, "%s/traces", root);
    mkdir(path, 0755);

    event_t ev[NEVT];
    setup_network(ev);
    float *tr = malloc(NSAMP * sizeof *tr);
    for (int i = 0; i < NSTA; i++) {
        synth_trace(i, ev, tr);
        write_trace(i, tr);
    }
    free(tr);

    static char names[NSTA][64];
    int ntr = list_traces(names);
    pick_t *picks = malloc((size_t)NSTA * MAX_PICKS * sizeof *picks);
    snprintf(path, sizeof path, "%s/picks.csv", root);
    FILE *pk = fopen(path, "w");
    fprintf(pk, "net,sta,x_km,y_km,t_pick,snr\n");
    int np = process_traces(names, ntr, picks, pk);
    fclose(pk);

    snprintf(path, sizeof path, "%s/catalog.txt", root);
    FILE *cat = fopen(path, "w");
    int nloc = associate_locate(picks, np, ev, cat);
    fclose(cat);
    printf("traces %d picks %d located %d\n", ntr, np, nloc);
    free(picks);
    return 0;
}
