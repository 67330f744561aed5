/*
 * Mail-relay queue digest.
 *
 * Produces a synthetic day of Postfix-style syslog for an outbound relay
 * (smtpd connect, cleanup message-id, qmgr from/size, smtp delivery attempts
 * with sent/deferred/bounced status and delay breakdowns, qmgr removed), then
 * digests it like a postmaster's report script: lines are read with fgets and
 * picked apart with sscanf/strstr into a queue-ID hash table, per-recipient-
 * domain delivery statistics are accumulated, delay percentiles and deferral
 * reasons are reported with fprintf, the still-queued messages are listed,
 * and a getline pass counts hourly volume for a CSV.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMSG        70000
#define NDOMAINS    300
#define QHASH       (1 << 17)
#define MAXDELAYS   (NMSG * 2)

static const char *g_dir;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "maildigest: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t rs = 0xC0FFEE1234567ull;
static uint32_t rnd(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs >> 16);
}
static double frand(void) { return rnd() / 4294967296.0; }

static const char *tlds[] = { "com", "net", "org", "de", "fr", "co.uk", "nl", "io", "edu", "jp" };
static const char *defer_reasons[] = {
    "Connection timed out", "451 4.7.1 Greylisted, please try again later",
    "421 4.7.0 Too many connections", "452 4.2.2 Mailbox full", "Host not found, try again"
};
static const char *bounce_reasons[] = {
    "550 5.1.1 User unknown", "554 5.7.1 Message rejected as spam", "552 5.3.4 Message size exceeds limit"
};

static void domain_name(int d, char *out, size_t n)
{
    static const char *syl[] = { "mar", "tel", "ko", "vin", "sa", "bri", "lo", "nex", "qua", "do", "ra", "pel" };
    snprintf(out, n, "%s%s%s.%s", syl[d % 12], syl[(d / 12) % 12], syl[(d * 7 + 3) % 12], tlds[d % 10]);
}

typedef struct { long t; char line[400]; } event_t;

static int cmp_event(const void *a, const void *b)
{
    const event_t *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

static void fmt_time(long t, char *buf, size_t n)
{
    if (t >= 86400) t = 86399;
    int r = snprintf(buf, n, "Mar 14 %02ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    if (r < 0 || (size_t)r >= n) { fprintf(stderr, "maildigest: timestamp buffer too small\n"); exit(1); }
}

/* Writes maillog; returns the number of lines. Events per message are created
 * out of order in time, so they are buffered per batch and sorted. */
static long generate_maillog(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    const int batch = 2000;
    event_t *ev = malloc(sizeof(event_t) * (size_t)batch * 12);
    if (!ev) { fprintf(stderr, "maildigest: out of memory\n"); exit(1); }
    long lines = 0;
    double popularity[NDOMAINS], cum = 0.0;
    for (int d = 0; d < NDOMAINS; d++) { popularity[d] = 1.0 / pow(d + 1.0, 1.1); cum += popularity[d]; }
    for (int b0 = 0; b0 < NMSG; b0 += batch) {
        int ne = 0;
        for (int m = b0; m < b0 + batch && m < NMSG; m++) {
            long t0 = (long)((double)m / NMSG * 86000.0);
            char qid[16], dom[64], ts[32];
            snprintf(qid, sizeof qid, "%05X%05X", (unsigned)(m * 2654435761u) & 0xFFFFF, (unsigned)m & 0xFFFFF);
            double r = frand() * cum, acc = 0.0; int d = 0;
            for (d = 0; d < NDOMAINS - 1; d++) { acc += popularity[d]; if (acc >= r) break; }
            domain_name(d, dom, sizeof dom);
            int pid = 10000 + (int)(rnd() % 5000);
            unsigned ip = rnd();
            long size = 800 + (long)(-20000.0 * log(frand() + 1e-12));
            fmt_time(t0, ts, sizeof ts);
            ev[ne].t = t0 * 10;
            snprintf(ev[ne++].line, 400, "%s relay1 postfix/smtpd[%d]: %s: client=app%u.internal[10.%u.%u.%u]\n",
                     ts, pid, qid, ip % 40, (ip >> 8) & 255, (ip >> 16) & 255, ip >> 24);
            ev[ne].t = t0 * 10 + 1;
            snprintf(ev[ne++].line, 400, "%s relay1 postfix/cleanup[%d]: %s: message-id=<%08x.%d@app.internal>\n",
                     ts, pid + 1, qid, rnd(), m);
            ev[ne].t = t0 * 10 + 2;
            snprintf(ev[ne++].line, 400, "%s relay1 postfix/qmgr[812]: %s: from=<noreply@shop.example>, size=%ld, nrcpt=1 (queue active)\n",
                     ts, qid, size);
            /* delivery attempts: slow or greylisting domains defer first */
            long t = t0 + 1 + (long)(rnd() % 3);
            int ndefer = (d % 17 == 3) ? 1 + (int)(rnd() % 3) : (frand() < 0.04 ? 1 : 0);
            int bounce = frand() < 0.015;
            int stuck = (d % 53 == 7) && frand() < 0.7;     /* unreachable domain */
            int user = (int)(rnd() % 5000);
            for (int a = 0; a <= ndefer + (stuck ? 3 : 0); a++) {
                double qa = (t - t0) + frand() * 0.1, conn = 0.05 + frand() * 0.5, xmit = size / 2.0e6 + frand() * 0.3;
                int deferred = a < ndefer || stuck;
                const char *status, *dsn, *why;
                char reason[160];
                if (deferred) { status = "deferred"; dsn = "4.4.1"; why = defer_reasons[(d + a) % 5]; }
                else if (bounce) { status = "bounced"; dsn = "5.1.1"; why = bounce_reasons[user % 3]; }
                else { status = "sent"; dsn = "2.0.0"; why = "250 2.0.0 Ok: queued as 4Fb"; }
                snprintf(reason, sizeof reason, "%s", why);
                fmt_time(t, ts, sizeof ts);
                ev[ne].t = t * 10 + 3;
                int len = snprintf(ev[ne++].line, 400,
                         "%s relay1 postfix/smtp[%d]: %s: to=<user%d@%s>, relay=mx.%s[192.0.2.%d]:25, delay=%.2f, "
                         "delays=%.2f/0.01/%.2f/%.2f, dsn=%s, status=%s (%s)\n",
                         ts, 20000 + (int)(rnd() % 9000), qid, user, dom, dom, (int)(rnd() % 250),
                         qa + conn + xmit, qa, conn, xmit, dsn, status, reason);
                if (len < 0 || len >= 400) { fprintf(stderr, "maildigest: log line too long\n"); exit(1); }
                if (!deferred) break;
                t += 300 * (1L << a);          /* exponential retry backoff */
                if (t >= 86400) break;
            }
            if (!stuck && t < 86400) {
                fmt_time(t, ts, sizeof ts);
                ev[ne].t = t * 10 + 4;
                snprintf(ev[ne++].line, 400, "%s relay1 postfix/qmgr[812]: %s: removed\n", ts, qid);
            }
        }
        qsort(ev, (size_t)ne, sizeof *ev, cmp_event);
        for (int i = 0; i < ne; i++)
            if (fputs(ev[i].line, f) == EOF) die("fputs", path);
        lines += ne;
    }
    free(ev);
    if (fclose(f) != 0) die("fclose", path);
    return lines;
}

typedef struct {
    char qid[16];
    long size;
    int attempts, state;        /* 0 queued, 1 sent, 2 bounced, 3 removed */
    int dom;
    double delay;
} qent_t;

typedef struct {
    char name[64];
    long sent, bounced, deferred, bytes;
    double delay_sum;
} dstat_t;

static qent_t *qtab;
static dstat_t dstats[1024];
static int ndstats;

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s) { h ^= (uint8_t)*s++; h *= 16777619u; }
    return h;
}

static qent_t *qlookup(const char *qid, int create)
{
    uint32_t h = hash_str(qid) & (QHASH - 1);
    while (qtab[h].qid[0]) {
        if (strcmp(qtab[h].qid, qid) == 0) return &qtab[h];
        h = (h + 1) & (QHASH - 1);
    }
    if (!create) return NULL;
    memset(&qtab[h], 0, sizeof qtab[h]);
    snprintf(qtab[h].qid, sizeof qtab[h].qid, "%s", qid);
    qtab[h].dom = -1;
    return &qtab[h];
}

static int domain_index(const char *name)
{
    for (int i = 0; i < ndstats; i++)
        if (strcmp(dstats[i].name, name) == 0) return i;
    if (ndstats == 1024) return 1023;
    snprintf(dstats[ndstats].name, sizeof dstats[ndstats].name, "%s", name);
    return ndstats++;
}

typedef struct { char reason[64]; long n; } reason_t;

static double *delays;
static long ndelays;
static reason_t reasons[32];
static int nreasons;

static void count_reason(const char *p)
{
    char r[64];
    const char *open = strrchr(p, '(');
    if (!open) return;
    size_t n = strcspn(open + 1, ")");
    if (n >= sizeof r) n = sizeof r - 1;
    memcpy(r, open + 1, n); r[n] = 0;
    for (int i = 0; i < nreasons; i++)
        if (strcmp(reasons[i].reason, r) == 0) { reasons[i].n++; return; }
    if (nreasons < 32) { snprintf(reasons[nreasons].reason, 64, "%s", r); reasons[nreasons++].n = 1; }
}

static long parse_maillog(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char line[1024], qid[32], prog[32], rest[900];
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        int hh, mm, ss;
        if (sscanf(line, "Mar 14 %d:%d:%d relay1 postfix/%31[^[][%*d]: %31[0-9A-F]: %899[^\n]",
                   &hh, &mm, &ss, prog, qid, rest) != 6) continue;
        if (strcmp(prog, "smtpd") == 0) {
            qlookup(qid, 1);
        } else if (strcmp(prog, "qmgr") == 0) {
            qent_t *q = qlookup(qid, 0);
            if (!q) continue;
            long size;
            const char *s = strstr(rest, "size=");
            if (s && sscanf(s, "size=%ld", &size) == 1) q->size = size;
            else if (strncmp(rest, "removed", 7) == 0) q->state = 3;
        } else if (strcmp(prog, "smtp") == 0) {
            qent_t *q = qlookup(qid, 0);
            if (!q) continue;
            char user[64], dom[64], status[16];
            double delay, d1, d2, d3, d4;
            const char *to = strstr(rest, "to=<"), *dl = strstr(rest, "delay="), *st = strstr(rest, "status=");
            if (!to || !dl || !st) continue;
            if (sscanf(to, "to=<%63[^@]@%63[^>]>", user, dom) != 2) continue;
            if (sscanf(dl, "delay=%lf, delays=%lf/%lf/%lf/%lf", &delay, &d1, &d2, &d3, &d4) != 5) continue;
            if (sscanf(st, "status=%15s", status) != 1) continue;
            int di = domain_index(dom);
            q->dom = di; q->attempts++;
            if (strcmp(status, "sent") == 0) {
                q->state = 1; q->delay = delay;
                dstats[di].sent++; dstats[di].bytes += q->size; dstats[di].delay_sum += delay;
                if (ndelays < MAXDELAYS) delays[ndelays++] = delay;
            } else if (strcmp(status, "deferred") == 0) {
                dstats[di].deferred++;
                count_reason(st);
            } else if (strcmp(status, "bounced") == 0) {
                q->state = 2; dstats[di].bounced++;
                count_reason(st);
            }
        }
    }
    if (ferror(f)) die("fgets", path);
    fclose(f);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static int cmp_dstat(const void *a, const void *b)
{
    const dstat_t *x = a, *y = b;
    long vx = x->sent + x->bounced + x->deferred, vy = y->sent + y->bounced + y->deferred;
    return (vx < vy) - (vx > vy);
}

static void write_domain_report(const char *path)
{
    qsort(delays, (size_t)ndelays, sizeof(double), cmp_double);
    qsort(dstats, (size_t)ndstats, sizeof(dstat_t), cmp_dstat);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "Relay delivery digest\n\ndelivered: %ld  delay p50 %.2fs  p90 %.2fs  p99 %.2fs  max %.1fs\n\n",
                ndelays, ndelays ? delays[ndelays / 2] : 0.0, ndelays ? delays[ndelays * 9 / 10] : 0.0,
                ndelays ? delays[ndelays * 99 / 100] : 0.0, ndelays ? delays[ndelays - 1] : 0.0) < 0)
        die("fprintf", path);
    fprintf(f, "%-24s %8s %8s %8s %12s %10s\n", "domain", "sent", "bounced", "deferred", "bytes", "mean_delay");
    for (int i = 0; i < ndstats; i++)
        if (fprintf(f, "%-24s %8ld %8ld %8ld %12ld %10.2f\n", dstats[i].name, dstats[i].sent, dstats[i].bounced,
                    dstats[i].deferred, dstats[i].bytes, dstats[i].sent ? dstats[i].delay_sum / dstats[i].sent : 0.0) < 0)
            die("fprintf", path);
    fprintf(f, "\nnon-delivery reasons\n");
    for (int i = 0; i < nreasons; i++) fprintf(f, "%8ld  %s\n", reasons[i].n, reasons[i].reason);
    if (fclose(f) != 0) die("fclose", path);
}

static long write_queue_listing(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    long n = 0;
    fprintf(f, "-Queue ID-  --Size-- Attempts Recipient-domain\n");
    for (long h = 0; h < QHASH; h++) {
        qent_t *q = &qtab[h];
        if (!q->qid[0] || q->state == 3 || q->state == 1 || q->state == 2) continue;
        if (fprintf(f, "%-11s %8ld %8d %s\n", q->qid, q->size, q->attempts, q->dom >= 0 ? "(deferred)" : "(new)") < 0)
            die("fprintf", path);
        n++;
    }
    fprintf(f, "-- %ld Requests.\n", n);
    if (fclose(f) != 0) die("fclose", path);
    return n;
}

static void hourly_volume(const char *logpath, const char *csvpath)
{
    FILE *f = fopen(logpath, "r");
    if (!f) die("fopen", logpath);
    char *line = NULL;
    size_t cap = 0;
    long accepted[24] = { 0 }, sent[24] = { 0 }, deferred[24] = { 0 }, bytes[24] = { 0 };
    while (getline(&line, &cap, f) != -1) {
        int hh = (line[7] - '0') * 10 + (line[8] - '0');
        if (hh < 0 || hh > 23) continue;
        if (strstr(line, "postfix/smtpd[")) accepted[hh]++;
        else if (strstr(line, "status=sent")) sent[hh]++;
        else if (strstr(line, "status=deferred")) deferred[hh]++;
        const char *s = strstr(line, "size=");
        if (s) bytes[hh] += strtol(s + 5, NULL, 10);
    }
    if (ferror(f)) die("getline", logpath);
    free(line);
    fclose(f);
    FILE *o = fopen(csvpath, "w");
    if (!o) die("fopen", csvpath);
    fprintf(o, "hour,accepted,sent,deferred,bytes\n");
    for (int h = 0; h < 24; h++)
        if (fprintf(o, "%02d,%ld,%ld,%ld,%ld\n", h, accepted[h], sent[h], deferred[h], bytes[h]) < 0) die("fprintf", csvpath);
    if (fclose(o) != 0) die("fclose", csvpath);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    g_dir = argv[1];
    char logp[1024], repp[1024], qp[1024], hp[1024];
    snprintf(logp, sizeof logp, "%s/maillog", g_dir);
    snprintf(repp, sizeof repp, "%s/domain_digest.txt", g_dir);
    snprintf(qp, sizeof qp, "%s/mailq.txt", g_dir);
    snprintf(hp, sizeof hp, "%s/hourly.csv", g_dir);
    qtab = calloc(QHASH, sizeof(qent_t));
    delays = malloc(sizeof(double) * MAXDELAYS);
    if (!qtab || !delays) { fprintf(stderr, "maildigest: out of memory\n"); return 1; }
    long nl = generate_maillog(logp);
    long np = parse_maillog(logp);
    if (np != nl) { fprintf(stderr, "maildigest: read %ld lines, wrote %ld\n", np, nl); return 1; }
    write_domain_report(repp);
    long queued = write_queue_listing(qp);
    hourly_volume(logp, hp);
    printf("maildigest: %ld log lines, %d domains, %ld delivered, %ld still queued\n", nl, ndstats, ndelays, queued);
    free(qtab); free(delays);
    return 0;
}
