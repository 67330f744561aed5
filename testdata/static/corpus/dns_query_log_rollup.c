/*
 * dns_query_log_rollup.c
 *
 * Synthesises a day of recursive-resolver query logs (text, one query per
 * line), then processes it like an operations rollup job:
 *   - parses every line and aggregates per registered domain in a hash table,
 *   - splits the stream into one small-buffered file per query type,
 *   - writes one rollup file per hour (queries, NXDOMAIN ratio, p95 latency),
 *   - writes a top-N domain report and a typosquatting-candidate list (edit
 *     distance of rare domains against the popular ones),
 *   - re-counts the split files to verify.
 *
 * usage: dns_query_log_rollup DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

#define NQUERIES    260000
#define NDOMAINS    5000
#define NCLIENTS    700
#define NQTYPES     8
#define HASH_BITS   14
#define TOPN        40
#define NPOPULAR    250
#define SPLIT_BUFSZ 256

static const char *QTYPES[NQTYPES] = {"A", "AAAA", "MX", "TXT", "PTR", "SRV", "CNAME", "NS"};
static const char *RCODES[4] = {"NOERROR", "NXDOMAIN", "SERVFAIL", "REFUSED"};
static const char *TLDS[6] = {"com", "net", "org", "io", "de", "example"};

typedef struct {
    char     name[64];
    uint32_t queries;
    uint32_t nxdomain;
    uint32_t servfail;
    double   latency_sum;
    int      used;
} domain_stat;

typedef struct {
    uint32_t count;
    uint32_t nx;
    uint32_t lat_hist[64]; /* log2-ish buckets of latency in 50us steps */
} hour_stat;

static uint64_t lcg_state = 88172645463325252ull;
static uint32_t next_rand(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(lcg_state >> 33);
}

static void generate_query_log(const char *path, int nq)
{
    static const char *syll[16] = {"ka", "lo", "mi", "net", "ra", "zu", "tech", "ex",
                                   "on", "sol", "bit", "ur", "vi", "gro", "pha", "de"};
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    char dom[64];
    long ts;
    for (int i = 0; i < nq; i++) {
        ts = 1700000000L + (long)i * 86400L / nq;
        /* Zipf-like popularity: low domain ids are queried far more often */
        double u = (next_rand() + 1.0) / 2147483649.0;
        int d = (int)(NDOMAINS * u * u * u);
        if (d >= NDOMAINS) d = NDOMAINS - 1;
        uint32_t x = (uint32_t)d * 2654435761u;
        x ^= x >> 15;
        snprintf(dom, sizeof dom, "%s%s%s%s%d.%s", syll[x & 15], syll[(x >> 4) & 15], syll[(x >> 8) & 15],
                 d % 3 ? syll[(x >> 12) & 15] : "", d % 41, TLDS[(x >> 20) % 6]);
        int sub = next_rand() % 5;
        int qt = (next_rand() % 100) < 55 ? 0 : (int)(next_rand() % NQTYPES);
        int rc = (next_rand() % 100) < (d % 17 == 0 ? 40 : 4) ? 1 : ((next_rand() % 500) == 0 ? 2 : 0);
        if ((next_rand() % 2000) == 0) rc = 3;
        double lat = 80.0 + (next_rand() % 4000) * ((next_rand() % 10) == 0 ? 6.0 : 0.3);
        fprintf(f, "%ld.%03u 10.%u.%u.%u %s%s %s %s %.1f\n", ts, next_rand() % 1000,
                (unsigned)(next_rand() % NCLIENTS) / 250, (next_rand() % 250), 1 + next_rand() % 250,
                sub == 0 ? "" : (sub == 1 ? "www." : (sub == 2 ? "api." : (sub == 3 ? "mail." : "cdn."))),
                dom, QTYPES[qt], RCODES[rc], lat);
    }
    fclose(f);
}

typedef struct {
    long   ts;
    char   client[20];
    char   qname[80];
    char   qtype[8];
    char   rcode[12];
    double latency;
} query_rec;

static int parse_query_line(const char *line, query_rec *q)
{
    unsigned ms;
    int n = sscanf(line, "%ld.%u %19s %79s %7s %11s %lf", &q->ts, &ms, q->client, q->qname,
                   q->qtype, q->rcode, &q->latency);
    return n == 7;
}

/* Strip subdomain labels: keep the last two labels as the registered domain. */
static const char *registered_domain(const char *qname)
{
    const char *last = strrchr(qname, '.');
    if (!last) return qname;
    const char *p = last - 1;
    while (p > qname && *p != '.') p--;
    return *p == '.' ? p + 1 : p;
}

static domain_stat *lookup_domain(domain_stat *table, const char *name)
{
    uint32_t mask = (1u << HASH_BITS) - 1;
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = name; *p; p++) { h ^= (unsigned char)*p; h *= 16777619u; }
    h &= mask;
    while (table[h].used && strcmp(table[h].name, name) != 0) h = (h + 1) & mask;
    if (!table[h].used) {
        table[h].used = 1;
        strncpy(table[h].name, name, sizeof table[h].name - 1);
    }
    return &table[h];
}

static long process_log(const char *dir, const char *logpath, domain_stat *table, hour_stat *hours,
                        long split_counts[NQTYPES])
{
    FILE *in = fopen(logpath, "r");
    if (!in) { perror(logpath); exit(1); }
    FILE *split[NQTYPES];
    static char bufs[NQTYPES][SPLIT_BUFSZ];
    char path[512];
    for (int i = 0; i < NQTYPES; i++) {
        snprintf(path, sizeof path, "%s/split/qtype_%s.log", dir, QTYPES[i]);
        split[i] = fopen(path, "w");
        if (!split[i]) { perror(path); exit(1); }
        setvbuf(split[i], bufs[i], _IOFBF, SPLIT_BUFSZ);
        split_counts[i] = 0;
    }
    char line[256];
    query_rec q;
    long nparsed = 0;
    long t0 = 1700000000L;
    while (fgets(line, sizeof line, in)) {
        if (!parse_query_line(line, &q)) continue;
        nparsed++;
        domain_stat *d = lookup_domain(table, registered_domain(q.qname));
        d->queries++;
        d->latency_sum += q.latency;
        int nx = strcmp(q.rcode, "NXDOMAIN") == 0;
        d->nxdomain += nx;
        d->servfail += strcmp(q.rcode, "SERVFAIL") == 0;
        int hr = (int)((q.ts - t0) / 3600);
        if (hr < 0) hr = 0;
        if (hr > 23) hr = 23;
        hours[hr].count++;
        hours[hr].nx += nx;
        int b = (int)(q.latency / 50.0);
        hours[hr].lat_hist[b > 63 ? 63 : b]++;
        int qi = -1;
        for (int t = 0; t < NQTYPES && qi < 0; t++)
            if (strcmp(q.qtype, QTYPES[t]) == 0) qi = t;
        if (qi >= 0) {
            fputs(line, split[qi]);
            split_counts[qi]++;
        }
    }
    fclose(in);
    for (int i = 0; i < NQTYPES; i++) fclose(split[i]);
    return nparsed;
}

static double hist_percentile(const uint32_t *hist, int nb, uint32_t total, double p)
{
    uint32_t target = (uint32_t)(p * total), acc = 0;
    for (int b = 0; b < nb; b++) {
        acc += hist[b];
        if (acc >= target) return (b + 0.5) * 50.0;
    }
    return nb * 50.0;
}

static void write_hourly_rollups(const char *dir, const hour_stat *hours)
{
    char path[512];
    for (int h = 0; h < 24; h++) {
        snprintf(path, sizeof path, "%s/hourly/rollup_h%02d.txt", dir, h);
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); exit(1); }
        const hour_stat *s = &hours[h];
        fprintf(f, "hour=%02d\nqueries=%u\nnxdomain=%u\nnx_ratio=%.4f\n", h, s->count, s->nx,
                s->count ? (double)s->nx / s->count : 0.0);
        fprintf(f, "p50_us=%.1f\np95_us=%.1f\np99_us=%.1f\n",
                hist_percentile(s->lat_hist, 64, s->count, 0.50),
                hist_percentile(s->lat_hist, 64, s->count, 0.95),
                hist_percentile(s->lat_hist, 64, s->count, 0.99));
        for (int b = 0; b < 64; b++)
            if (s->lat_hist[b]) fprintf(f, "bucket %4d %u\n", b * 50, s->lat_hist[b]);
        fclose(f);
    }
}

static int cmp_queries_desc(const void *a, const void *b)
{
    const domain_stat *x = a, *y = b;
    if (x->queries != y->queries) return x->queries < y->queries ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int write_top_report(const char *dir, domain_stat *table, int tsize)
{
    int n = 0;
    for (int i = 0; i < tsize; i++)
        if (table[i].used) table[n++] = table[i];
    qsort(table, n, sizeof *table, cmp_queries_desc);
    char path[512];
    snprintf(path, sizeof path, "%s/top_domains.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "%-32s %9s %9s %9s %10s\n", "domain", "queries", "nxdomain", "servfail", "mean_us");
    for (int i = 0; i < n && i < TOPN; i++)
        fprintf(f, "%-32s %9u %9u %9u %10.1f\n", table[i].name, table[i].queries, table[i].nxdomain,
                table[i].servfail, table[i].latency_sum / table[i].queries);
    /* suspicious: mostly-NXDOMAIN domains (possible DGA) */
    fprintf(f, "\n# domains with nx_ratio > 0.3 and >= 20 queries\n");
    for (int i = 0; i < n; i++)
        if (table[i].queries >= 20 && table[i].nxdomain > 0.3 * table[i].queries)
            fprintf(f, "%s %.3f\n", table[i].name, (double)table[i].nxdomain / table[i].queries);
    fclose(f);
    return n;
}

static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    int prev[80], cur[80];
    if (la > 79 || lb > 79) return 99;
    for (int j = 0; j <= lb; j++) prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        for (int j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

/* Flag rarely-queried domains within edit distance 1..2 of a popular one
 * (typosquatting candidates). Table must already be sorted by popularity. */
static int write_typosquat_candidates(const char *dir, const domain_stat *sorted, int n, int npopular)
{
    char path[512];
    snprintf(path, sizeof path, "%s/typosquat_candidates.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    int flagged = 0;
    for (int i = npopular; i < n; i++) {
        for (int j = 0; j < npopular && j < n; j++) {
            int d = edit_distance(sorted[i].name, sorted[j].name);
            if (d >= 1 && d <= 2) {
                fprintf(f, "%s ~ %s (d=%d, %u vs %u queries)\n", sorted[i].name, sorted[j].name, d,
                        sorted[i].queries, sorted[j].queries);
                flagged++;
                break;
            }
        }
    }
    fclose(f);
    return flagged;
}

static long verify_split_files(const char *dir, const long expect[NQTYPES])
{
    char path[512], line[256];
    long total = 0;
    for (int i = 0; i < NQTYPES; i++) {
        snprintf(path, sizeof path, "%s/split/qtype_%s.log", dir, QTYPES[i]);
        FILE *f = fopen(path, "r");
        if (!f) { perror(path); exit(1); }
        long n = 0;
        while (fgets(line, sizeof line, f)) n++;
        fclose(f);
        if (n != expect[i]) { fprintf(stderr, "split %s: %ld != %ld\n", QTYPES[i], n, expect[i]); exit(1); }
        total += n;
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char path[512];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/split", dir);  mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/hourly", dir); mkdir(path, 0755);

    snprintf(path, sizeof path, "%s/resolver_queries.log", dir);
    generate_query_log(path, NQUERIES);

    int tsize = 1 << HASH_BITS;
    domain_stat *table = calloc(tsize, sizeof *table);
    hour_stat *hours = calloc(24, sizeof *hours);
    long split_counts[NQTYPES];
    long n = process_log(dir, path, table, hours, split_counts);
    write_hourly_rollups(dir, hours);
    int ndom = write_top_report(dir, table, tsize);
    int nsquat = write_typosquat_candidates(dir, table, ndom, NPOPULAR);
    long v = verify_split_files(dir, split_counts);
    printf("parsed %ld queries, %ld routed to qtype splits, %d domains, %d typosquat candidates\n",
           n, v, ndom, nsquat);
    free(table);
    free(hours);
    return 0;
}
