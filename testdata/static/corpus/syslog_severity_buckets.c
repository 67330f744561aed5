/* syslog_severity_buckets: synthesizes a multi-host syslog stream, then parses
 * it back line by line, buckets messages per host/severity/minute, splits the
 * stream into per-host files, writes a CSV rollup and an alert digest, and
 * finally re-reads the rollup to cross-check the totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define NHOSTS 24
#define NLINES 200000
#define NBIN10 (NMINUTES * 6)
#define MAXLAG 480
#define NMINUTES 720
#define NSEV 8

static const char *facilities[] = {"kernel", "sshd", "cron", "postfix", "nginx", "systemd", "dhclient", "slurmd"};
static const char *words[] = {"connection", "timeout", "accepted", "refused", "disk", "quota", "exceeded",
                              "session", "opened", "closed", "worker", "restart", "checksum", "mismatch",
                              "retrying", "upstream", "latency", "node", "drained", "ok"};

typedef struct { uint32_t s; } Rng;
static uint32_t rng_next(Rng *r) { r->s ^= r->s << 13; r->s ^= r->s >> 17; r->s ^= r->s << 5; return r->s; }

typedef struct {
    long count[NHOSTS][NSEV];
    int per_minute[NMINUTES][NSEV];
    long bytes[NHOSTS];
    float host_bins[NHOSTS][NBIN10];
    long total;
} Rollup;

static int pick_severity(Rng *r)
{
    uint32_t v = rng_next(r) % 1000;
    static const uint32_t edge[NSEV - 1] = {2, 6, 15, 60, 160, 350, 800};
    int s = 0;
    while (s < NSEV - 1 && v >= edge[s]) s++;
    return s;
}

static void generate_stream(const char *path, int nlines, Rng *r)
{
    FILE *fp = fopen(path, "w");
    if (!fp) { perror(path); exit(1); }
    for (int i = 0; i < nlines; i++) {
        int sec = (int)((long)i * NMINUTES * 60 / nlines);
        int host = (int)(rng_next(r) % NHOSTS);
        int sev = pick_severity(r);
        int fac = (int)(rng_next(r) % 8);
        int pri = (fac + 1) * 8 + sev;
        fprintf(fp, "<%d>Jan 12 %02d:%02d:%02d node%02d %s[%u]:", pri, sec / 3600, (sec / 60) % 60, sec % 60,
                host, facilities[fac], 1000 + rng_next(r) % 30000);
        int nw = 3 + (int)(rng_next(r) % 9);
        for (int w = 0; w < nw; w++) { fputc(' ', fp); fputs(words[rng_next(r) % 20], fp); }
        fputc('\n', fp);
    }
    fclose(fp);
}

static int parse_line(const char *line, int *pri, int *hh, int *mm, int *ss, int *host)
{
    return sscanf(line, "<%d>Jan 12 %d:%d:%d node%d", pri, hh, mm, ss, host) == 5;
}

/* I/O-heavy: fgets every line, fputs it into one of NHOSTS open files */
static void split_and_bucket(const char *path, const char *dir, Rollup *ru)
{
    FILE *in = fopen(path, "r");
    if (!in) { perror(path); exit(1); }
    FILE *out[NHOSTS];
    char name[512];
    for (int h = 0; h < NHOSTS; h++) {
        snprintf(name, sizeof name, "%s/host_node%02d.log", dir, h);
        out[h] = fopen(name, "w");
        if (!out[h]) { perror(name); exit(1); }
        setvbuf(out[h], NULL, _IOFBF, 1024); /* small buffers: many write calls */
    }
    char line[1024];
    memset(ru, 0, sizeof *ru);
    while (fgets(line, sizeof line, in)) {
        int pri, hh, mm, ss, host;
        if (!parse_line(line, &pri, &hh, &mm, &ss, &host) || host < 0 || host >= NHOSTS) continue;
        int sev = pri % 8, minute = hh * 60 + mm;
        ru->count[host][sev]++;
        int bin = (hh * 3600 + mm * 60 + ss) / 10;
        if (bin < NBIN10) ru->host_bins[host][bin] += 1.0f;
        if (minute < NMINUTES) ru->per_minute[minute][sev]++;
        size_t len = strlen(line);
        ru->bytes[host] += (long)len;
        ru->total++;
        fputs(line, out[host]);
    }
    for (int h = 0; h < NHOSTS; h++) fclose(out[h]);
    fclose(in);
}

/* compute: exponentially weighted burst detector over the minute series */
static int detect_bursts(const Rollup *ru, int *burst_minutes, int maxb)
{
    double mean = 0, var = 1;
    int nb = 0;
    for (int m = 0; m < NMINUTES; m++) {
        double x = ru->per_minute[m][0] + ru->per_minute[m][1] + ru->per_minute[m][2] + ru->per_minute[m][3];
        double z = (x - mean) / (var > 1e-9 ? __builtin_sqrt(var) : 1.0);
        if (m > 10 && z > 2.5 && nb < maxb) burst_minutes[nb++] = m;
        double d = x - mean;
        mean += 0.05 * d;
        var = 0.95 * (var + 0.05 * d * d);
    }
    return nb;
}

/* compute-bound: lagged cross-correlation of every host pair's 10 s counts */
static void host_lag_correlation(const Rollup *ru, const char *dir)
{
    static float z[NHOSTS][NBIN10];
    for (int h = 0; h < NHOSTS; h++) {
        double m = 0, v = 0;
        for (int b = 0; b < NBIN10; b++) m += ru->host_bins[h][b];
        m /= NBIN10;
        for (int b = 0; b < NBIN10; b++) { double d = ru->host_bins[h][b] - m; v += d * d; }
        double sd = v > 0 ? __builtin_sqrt(v / NBIN10) : 1.0;
        for (int b = 0; b < NBIN10; b++) z[h][b] = (float)((ru->host_bins[h][b] - m) / sd);
    }
    char name[512];
    snprintf(name, sizeof name, "%s/host_lag_corr.txt", dir);
    FILE *fp = fopen(name, "w");
    if (!fp) { perror(name); exit(1); }
    for (int a = 0; a < NHOSTS; a++)
        for (int b = a + 1; b < NHOSTS; b++) {
            double best = -2; int bestlag = 0;
            for (int lag = -MAXLAG; lag <= MAXLAG; lag++) {
                double acc = 0;
                int lo = lag < 0 ? -lag : 0, hi = lag > 0 ? NBIN10 - lag : NBIN10;
                for (int t = lo; t < hi; t++) acc += z[a][t] * z[b][t + lag];
                acc /= (hi - lo);
                if (acc > best) { best = acc; bestlag = lag; }
            }
            fprintf(fp, "node%02d node%02d lag %+4d s corr %.4f\n", a, b, bestlag * 10, best);
        }
    fclose(fp);
}

static void write_rollup_csv(const Rollup *ru, const char *dir)
{
    char name[512];
    snprintf(name, sizeof name, "%s/rollup.csv", dir);
    FILE *fp = fopen(name, "w");
    if (!fp) { perror(name); exit(1); }
    fprintf(fp, "host,emerg,alert,crit,err,warning,notice,info,debug,bytes\n");
    for (int h = 0; h < NHOSTS; h++) {
        fprintf(fp, "node%02d", h);
        for (int s = 0; s < NSEV; s++) fprintf(fp, ",%ld", ru->count[h][s]);
        fprintf(fp, ",%ld\n", ru->bytes[h]);
    }
    fclose(fp);
}

/* re-scan each per-host file to pull the alert-level lines into a digest */
static long write_alert_digest(const char *dir, const int *bursts, int nb)
{
    char name[512], line[1024];
    snprintf(name, sizeof name, "%s/alerts.txt", dir);
    FILE *dig = fopen(name, "w");
    if (!dig) { perror(name); exit(1); }
    fprintf(dig, "burst minutes:");
    for (int i = 0; i < nb; i++) fprintf(dig, " %02d:%02d", bursts[i] / 60, bursts[i] % 60);
    fputc('\n', dig);
    long n = 0;
    for (int h = 0; h < NHOSTS; h++) {
        snprintf(name, sizeof name, "%s/host_node%02d.log", dir, h);
        FILE *fp = fopen(name, "r");
        if (!fp) continue;
        while (fgets(line, sizeof line, fp)) {
            int pri, hh, mm, ss, host;
            if (parse_line(line, &pri, &hh, &mm, &ss, &host) && pri % 8 <= 2) {
                fputs(line, dig);
                n++;
            }
        }
        fclose(fp);
    }
    fclose(dig);
    return n;
}

static long verify_rollup(const char *dir, const Rollup *ru)
{
    char name[512], line[512];
    snprintf(name, sizeof name, "%s/rollup.csv", dir);
    FILE *fp = fopen(name, "r");
    if (!fp) { perror(name); exit(1); }
    long total = 0;
    if (!fgets(line, sizeof line, fp)) { fclose(fp); return -1; }
    while (fgets(line, sizeof line, fp)) {
        char *tok = strtok(line, ",");
        for (int s = 0; s < NSEV && tok; s++) { tok = strtok(NULL, ","); if (tok) total += atol(tok); }
    }
    fclose(fp);
    return total == ru->total ? total : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    char path[512];
    snprintf(path, sizeof path, "%s/messages.log", argv[1]);
    Rng r = {2463534242u};
    generate_stream(path, NLINES, &r);
    static Rollup ru;
    split_and_bucket(path, argv[1], &ru);
    int bursts[64];
    int nb = detect_bursts(&ru, bursts, 64);
    host_lag_correlation(&ru, argv[1]);
    write_rollup_csv(&ru, argv[1]);
    long nalert = write_alert_digest(argv[1], bursts, nb);
    long check = verify_rollup(argv[1], &ru);
    printf("lines %ld alerts %ld bursts %d verify %ld\n", ru.total, nalert, nb, check);
    return check < 0;
}
