/*
 * telemetry_passes: writes a binary telemetry file once (fixed-size records
 * from many sensors), then runs several independent analysis passes over it:
 * a value histogram with large read() calls, windowed moving statistics with
 * pread(), per-sensor flag counts with one fread() per record, and random
 * point probes with pread() that are checked against the generator.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NRECORDS      (4u << 20)     /* 4 Mi records, 64 MiB */
#define NSENSORS      64
#define GEN_BATCH     4096
#define HIST_BINS     256
#define HIST_LO       (-40.0f)
#define HIST_HI       (40.0f)
#define READ_CHUNK    (1 << 16)
#define WIN_LEN       2048
#define WIN_STRIDE    1024
#define NPROBES       100000
#define NFLAGS        4

struct record {
    uint32_t seq;
    uint16_t sensor;
    uint16_t flags;
    float value;
    float temp;
};

struct hist {
    uint64_t bins[HIST_BINS];
    uint64_t below, above, total;
    double sum, sumsq;
};

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352dU;
    x ^= x >> 15; x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* record content is a pure function of its sequence number */
static void make_record(uint32_t i, struct record *r)
{
    uint32_t h = mix32(i * 2654435761u + 12345u);
    r->seq = i;
    r->sensor = (uint16_t)(h % NSENSORS);
    double base = 12.0 * sin(i * 3.0e-5) + 0.5 * r->sensor - 16.0;
    double noise = ((h >> 8) & 0xffff) / 65536.0 - 0.5;
    r->value = (float)(base + 6.0 * noise);
    r->temp = (float)(20.0 + 5.0 * cos(i * 1.0e-6 + r->sensor));
    r->flags = (uint16_t)(((h >> 24) & 0x0f) == 0 ? 1u : 0u) | (uint16_t)(fabs(noise) > 0.49 ? 2u : 0u);
}

static void generate_dataset(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    struct record *batch = malloc(GEN_BATCH * sizeof *batch);
    for (uint32_t i = 0; i < NRECORDS; i += GEN_BATCH) {
        for (uint32_t k = 0; k < GEN_BATCH; k++) make_record(i + k, &batch[k]);
        if (fwrite(batch, sizeof *batch, GEN_BATCH, f) != GEN_BATCH) { perror("fwrite"); exit(1); }
    }
    free(batch);
    if (fclose(f) != 0) { perror("fclose"); exit(1); }
}

static void hist_add(struct hist *h, float v)
{
    h->total++;
    h->sum += v;
    h->sumsq += (double)v * v;
    if (v < HIST_LO) { h->below++; return; }
    if (v >= HIST_HI) { h->above++; return; }
    int b = (int)((v - HIST_LO) * (HIST_BINS / (HIST_HI - HIST_LO)));
    h->bins[b]++;
}

static void pass_histogram(const char *path, struct hist *h)
{
    memset(h, 0, sizeof *h);
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    char *buf = malloc(READ_CHUNK);
    size_t carry = 0;
    for (;;) {
        ssize_t n = read(fd, buf + carry, READ_CHUNK - carry);
        if (n < 0) { if (errno == EINTR) continue; perror("read"); exit(1); }
        if (n == 0) break;
        size_t have = carry + (size_t)n;
        size_t nrec = have / sizeof(struct record);
        const struct record *r = (const struct record *)buf;
        for (size_t k = 0; k < nrec; k++) hist_add(h, r[k].value);
        carry = have - nrec * sizeof(struct record);
        memmove(buf, buf + nrec * sizeof(struct record), carry);
    }
    free(buf);
    close(fd);
}

/* windowed mean / std of value and temperature correlation */
static int pass_moving_stats(const char *path, FILE *out, double *grand_mean)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    struct record *win = malloc(WIN_LEN * sizeof *win);
    int nwin = 0, spikes = 0;
    double acc = 0.0;
    for (uint64_t start = 0; start + WIN_LEN <= NRECORDS; start += WIN_STRIDE) {
        size_t want = WIN_LEN * sizeof *win;
        ssize_t got = pread(fd, win, want, (off_t)(start * sizeof *win));
        if (got != (ssize_t)want) { fprintf(stderr, "short pread at %llu\n", (unsigned long long)start); exit(1); }
        double s = 0, s2 = 0, st = 0, svt = 0, st2 = 0;
        for (int k = 0; k < WIN_LEN; k++) {
            double v = win[k].value, t = win[k].temp;
            s += v; s2 += v * v; st += t; svt += v * t; st2 += t * t;
        }
        double mean = s / WIN_LEN;
        double var = s2 / WIN_LEN - mean * mean;
        double tmean = st / WIN_LEN;
        double cov = svt / WIN_LEN - mean * tmean;
        double tvar = st2 / WIN_LEN - tmean * tmean;
        double corr = cov / sqrt(var * tvar + 1e-30);
        if (start % (2 * WIN_STRIDE) == 0) acc += s;   /* non-overlapping windows */
        if (var > 89.0) spikes++;
        if (nwin % 16 == 0)
            fprintf(out, "%10llu %12.6f %12.6f %9.5f\n", (unsigned long long)start, mean, sqrt(var), corr);
        nwin++;
    }
    *grand_mean = acc / (double)NRECORDS;
    free(win);
    close(fd);
    return spikes;
}

static void pass_flag_counts(const char *path, uint64_t counts[NSENSORS][NFLAGS])
{
    memset(counts, 0, sizeof(uint64_t) * NSENSORS * NFLAGS);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    struct record r;
    while (fread(&r, sizeof r, 1, f) == 1) {
        if (r.sensor >= NSENSORS || r.flags >= NFLAGS) { fprintf(stderr, "corrupt record %u\n", r.seq); exit(1); }
        counts[r.sensor][r.flags]++;
    }
    fclose(f);
}

static int pass_random_probe(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    uint32_t st = 0xdecafbadu;
    int bad = 0;
    for (int p = 0; p < NPROBES; p++) {
        st = mix32(st + (uint32_t)p);
        uint32_t idx = st % NRECORDS;
        struct record got, want;
        if (pread(fd, &got, sizeof got, (off_t)idx * sizeof got) != (ssize_t)sizeof got) { bad++; continue; }
        make_record(idx, &want);
        if (memcmp(&got, &want, sizeof got) != 0) bad++;
    }
    close(fd);
    return bad;
}

static void write_report(const char *path, const struct hist *h, uint64_t counts[NSENSORS][NFLAGS], int spikes)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    double mean = h->sum / h->total;
    fprintf(f, "records %llu mean %.6f std %.6f below %llu above %llu spiky_windows %d\n",
            (unsigned long long)h->total, mean, sqrt(h->sumsq / h->total - mean * mean),
            (unsigned long long)h->below, (unsigned long long)h->above, spikes);
    for (int b = 0; b < HIST_BINS; b++)
        fprintf(f, "bin %3d %9.4f %llu\n", b, HIST_LO + (b + 0.5) * (HIST_HI - HIST_LO) / HIST_BINS,
                (unsigned long long)h->bins[b]);
    for (int s = 0; s < NSENSORS; s++)
        fprintf(f, "sensor %2d %llu %llu %llu %llu\n", s, (unsigned long long)counts[s][0],
                (unsigned long long)counts[s][1], (unsigned long long)counts[s][2], (unsigned long long)counts[s][3]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char data[1024], wins[1024], report[1024];
    mkdir(argv[1], 0755);
    snprintf(data, sizeof data, "%s/telemetry.bin", argv[1]);
    snprintf(wins, sizeof wins, "%s/windows.txt", argv[1]);
    snprintf(report, sizeof report, "%s/report.txt", argv[1]);

    generate_dataset(data);

    static struct hist h;
    pass_histogram(data, &h);
    uint64_t hsum = h.below + h.above;
    for (int b = 0; b < HIST_BINS; b++) hsum += h.bins[b];
    if (h.total != NRECORDS || hsum != NRECORDS) {
        fprintf(stderr, "telemetry_passes: histogram saw %llu records\n", (unsigned long long)h.total);
        return 2;
    }

    FILE *wf = fopen(wins, "w");
    if (!wf) { perror(wins); return 1; }
    double wmean;
    int spikes = pass_moving_stats(data, wf, &wmean);
    fclose(wf);
    if (fabs(wmean - h.sum / h.total) > 1e-6 * (1.0 + fabs(wmean))) {
        fprintf(stderr, "telemetry_passes: window mean %.9f != global mean %.9f\n", wmean, h.sum / h.total);
        return 3;
    }

    static uint64_t counts[NSENSORS][NFLAGS];
    pass_flag_counts(data, counts);
    uint64_t csum = 0;
    for (int s = 0; s < NSENSORS; s++)
        for (int k = 0; k < NFLAGS; k++) csum += counts[s][k];
    if (csum != NRECORDS) { fprintf(stderr, "telemetry_passes: flag counts sum to %llu\n", (unsigned long long)csum); return 4; }

    int bad = pass_random_probe(data);
    if (bad) { fprintf(stderr, "telemetry_passes: %d probes mismatched\n", bad); return 5; }

    write_report(report, &h, counts, spikes);
    printf("telemetry_passes: %u records, mean %.4f, %d spiky windows, probes ok\n",
           NRECORDS, h.sum / h.total, spikes);
    return 0;
}
