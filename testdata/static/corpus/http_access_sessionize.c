/* Web access-log analytics: synthesizes a combined-format HTTP access log,
 * parses it back line by line, groups requests into per-client sessions
 * (30 minute inactivity gap), writes fixed-size binary session records,
 * an hourly traffic CSV and a top-URL report, ranks pages by the stationary
 * distribution of the observed click-transition chain, then samples the
 * session file with strided seeks to estimate bounce rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define N_REQUESTS    420000
#define N_CLIENTS     1800
#define N_URLS        900
#define SESSION_GAP   1800
#define CLIENT_HASH   16384
#define SAMPLE_STRIDE 7
#define PR_ITERS      600
#define N_ENTRY       8
#define PR_DAMP       0.85

typedef struct {
    uint32_t ip;
    int64_t t_first, t_last;
    uint32_t n_req;
    uint64_t bytes;
    uint32_t errors;
    uint16_t first_url, last_url;
} session_t;

typedef struct {
    uint32_t ip;
    int used;
    session_t cur;
} client_slot_t;

typedef struct {
    long hits[24];
    long bytes[24];
    long errors[24];
    long url_hits[N_URLS];
    long url_err[N_URLS];
    long sessions_written;
    uint32_t *trans;            /* N_URLS x N_URLS click transitions */
} stats_t;

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static const char *methods[] = { "GET", "GET", "GET", "POST", "HEAD", "PUT" };
static const char *months[] = { "Jan","Feb","Mar","Apr","May","Jun","Jul","Aug","Sep","Oct","Nov","Dec" };

static void generate_log(const char *path, long nreq)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    int64_t t = 0;                       /* seconds since 2023-03-01 00:00 */
    for (long i = 0; i < nreq; i++) {
        t += rnd() % 3;
        uint32_t c = rnd() % N_CLIENTS;
        /* heavy-tailed client popularity */
        if (rnd() % 4 == 0) c = c % 64;
        uint32_t ip = 0x0A000000u | (c * 2654435761u >> 8);
        int url = (int)((rnd() % N_URLS) * (rnd() % N_URLS) / N_URLS);
        int status = 200;
        uint32_t r = rnd() % 1000;
        if (r < 30) status = 404; else if (r < 38) status = 500; else if (r < 90) status = 304;
        long bytes = status == 200 ? 200 + rnd() % 50000 : 0;
        int64_t day = t / 86400, sod = t % 86400;
        fprintf(f, "%u.%u.%u.%u - - [%02d/%s/2023:%02d:%02d:%02d +0000] \"%s /site/page%04d.html HTTP/1.1\" %d %ld \"-\" \"bot/%u\"\n",
                ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255,
                (int)(day % 28) + 1, months[2 + day / 28 % 10],
                (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60),
                methods[rnd() % 6], url, status, bytes, rnd() % 5);
    }
    fclose(f);
}

/* returns 1 on success */
static int parse_line(const char *line, uint32_t *ip, int64_t *t, int *url, int *status, long *bytes)
{
    unsigned a, b, c, d;
    int day, hh, mm, ss, yr;
    char mon[4], meth[8];
    if (sscanf(line, "%u.%u.%u.%u - - [%d/%3s/%d:%d:%d:%d", &a, &b, &c, &d, &day, mon, &yr, &hh, &mm, &ss) != 10)
        return 0;
    const char *q = strchr(line, '"');
    if (!q || sscanf(q + 1, "%7s /site/page%d.html", meth, url) != 2) return 0;
    q = strchr(q + 1, '"');
    if (!q || sscanf(q + 1, "%d %ld", status, bytes) != 2) return 0;
    *ip = (a << 24) | (b << 16) | (c << 8) | d;
    int mon_i = 0;
    for (int i = 0; i < 12; i++) if (!strncmp(mon, months[i], 3)) { mon_i = i; break; }
    *t = ((int64_t)(mon_i - 2) * 28 + (day - 1)) * 86400 + hh * 3600 + mm * 60 + ss;
    return 1;
}

static client_slot_t *client_lookup(client_slot_t *tab, uint32_t ip)
{
    uint32_t h = (ip * 2246822519u) & (CLIENT_HASH - 1);
    while (tab[h].used && tab[h].ip != ip) h = (h + 1) & (CLIENT_HASH - 1);
    if (!tab[h].used) { tab[h].used = 1; tab[h].ip = ip; tab[h].cur.n_req = 0; }
    return &tab[h];
}

static void emit_session(FILE *out, const session_t *s, stats_t *st)
{
    fwrite(s, sizeof *s, 1, out);           /* one small record write per session */
    st->sessions_written++;
}

static void sessionize(const char *logpath, const char *sesspath, stats_t *st)
{
    FILE *in = fopen(logpath, "r");
    FILE *out = fopen(sesspath, "wb");
    if (!in || !out) { perror("sessionize"); exit(1); }
    client_slot_t *tab = calloc(CLIENT_HASH, sizeof *tab);
    char line[512];
    long bad = 0;
    while (fgets(line, sizeof line, in)) {
        uint32_t ip; int64_t t; int url, status; long bytes;
        if (!parse_line(line, &ip, &t, &url, &status, &bytes)) { bad++; continue; }
        int hr = (int)(t % 86400 / 3600);
        st->hits[hr]++; st->bytes[hr] += bytes;
        if (url >= 0 && url < N_URLS) { st->url_hits[url]++; if (status >= 400) st->url_err[url]++; }
        if (status >= 400) st->errors[hr]++;
        client_slot_t *c = client_lookup(tab, ip);
        session_t *s = &c->cur;
        if (s->n_req > 0 && t - s->t_last > SESSION_GAP) {
            emit_session(out, s, st);
            s->n_req = 0;
        }
        if (s->n_req == 0) {
            memset(s, 0, sizeof *s);
            s->ip = ip; s->t_first = t; s->first_url = (uint16_t)url;
        }
        else st->trans[(size_t)s->last_url * N_URLS + (size_t)url]++;
        s->t_last = t; s->n_req++; s->bytes += (uint64_t)bytes;
        s->last_url = (uint16_t)url;
        if (status >= 400) s->errors++;
    }
    for (int h = 0; h < CLIENT_HASH; h++)
        if (tab[h].used && tab[h].cur.n_req) emit_session(out, &tab[h].cur, st);
    if (bad) fprintf(stderr, "%ld unparsable lines\n", bad);
    free(tab);
    fclose(in);
    fclose(out);
}

static void hourly_report(const char *path, const stats_t *st)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "hour,hits,megabytes,error_rate\n");
    for (int h = 0; h < 24; h++)
        fprintf(f, "%02d,%ld,%.3f,%.5f\n", h, st->hits[h], st->bytes[h] / 1048576.0,
                st->hits[h] ? (double)st->errors[h] / st->hits[h] : 0.0);
    fclose(f);
}

static void top_urls(const char *path, const stats_t *st, int k)
{
    int *idx = malloc(sizeof(int) * N_URLS);
    for (int i = 0; i < N_URLS; i++) idx[i] = i;
    /* partial selection sort: compute-light, fine for small k */
    for (int i = 0; i < k && i < N_URLS; i++) {
        int best = i;
        for (int j = i + 1; j < N_URLS; j++)
            if (st->url_hits[idx[j]] > st->url_hits[idx[best]]) best = j;
        int tmp = idx[i]; idx[i] = idx[best]; idx[best] = tmp;
    }
    FILE *f = fopen(path, "w");
    for (int i = 0; i < k; i++)
        fprintf(f, "%3d /site/page%04d.html hits=%ld errors=%ld\n", i + 1, idx[i],
                st->url_hits[idx[i]], st->url_err[idx[i]]);
    fclose(f);
    free(idx);
}

static double *build_chain(const stats_t *st)
{
    double *P = malloc(sizeof(double) * N_URLS * N_URLS);
    for (int i = 0; i < N_URLS; i++) {
        double rs = 0;
        for (int j = 0; j < N_URLS; j++) rs += st->trans[(size_t)i * N_URLS + j];
        for (int j = 0; j < N_URLS; j++)
            P[(size_t)i * N_URLS + j] = rs > 0 ? st->trans[(size_t)i * N_URLS + j] / rs : 1.0 / N_URLS;
    }
    return P;
}

/* power iteration on the row-normalised chain (dense); teleport < 0 means
 * uniform teleportation, otherwise personalised to that entry page */
static double rank_pages(const double *P, int teleport, int iters, double *x)
{
    double *y = malloc(sizeof(double) * N_URLS);
    for (int i = 0; i < N_URLS; i++) x[i] = 1.0 / N_URLS;
    double delta = 0;
    for (int it = 0; it < iters; it++) {
        for (int j = 0; j < N_URLS; j++)
            y[j] = teleport < 0 ? (1.0 - PR_DAMP) / N_URLS : (j == teleport ? 1.0 - PR_DAMP : 0.0);
        for (int i = 0; i < N_URLS; i++) {
            double xi = PR_DAMP * x[i];
            const double *row = P + (size_t)i * N_URLS;
            for (int j = 0; j < N_URLS; j++) y[j] += xi * row[j];
        }
        delta = 0;
        for (int j = 0; j < N_URLS; j++) { delta += y[j] > x[j] ? y[j] - x[j] : x[j] - y[j]; x[j] = y[j]; }
    }
    free(y);
    return delta;
}

static void write_ranks(const char *dir, const char *tag, const double *x, double delta)
{
    char path[600];
    snprintf(path, sizeof path, "%s/page_rank_%s.txt", dir, tag);
    FILE *f = fopen(path, "w");
    fprintf(f, "# stationary click distribution (%s), final L1 change %.3e\n", tag, delta);
    for (int j = 0; j < N_URLS; j++) fprintf(f, "page%04d %.8f\n", j, x[j]);
    fclose(f);
}

static void rank_all(const stats_t *st, const char *dir, int n_entry)
{
    double *P = build_chain(st);
    double *x = malloc(sizeof(double) * N_URLS);
    double d = rank_pages(P, -1, PR_ITERS, x);
    write_ranks(dir, "global", x, d);
    for (int e = 0; e < n_entry; e++) {
        char tag[32];
        snprintf(tag, sizeof tag, "entry%04d", e * 7);
        d = rank_pages(P, e * 7, PR_ITERS, x);
        write_ranks(dir, tag, x, d);
    }
    free(P); free(x);
}

static void sample_sessions(const char *sesspath, long nsess, int stride, const char *outpath)
{
    FILE *f = fopen(sesspath, "rb");
    if (!f) { perror(sesspath); exit(1); }
    long n = 0, bounces = 0;
    double dur = 0, reqs = 0;
    session_t s;
    for (long i = 0; i < nsess; i += stride) {
        fseek(f, i * (long)sizeof(session_t), SEEK_SET);
        if (fread(&s, sizeof s, 1, f) != 1) break;
        n++;
        if (s.n_req == 1) bounces++;
        dur += (double)(s.t_last - s.t_first);
        reqs += s.n_req;
    }
    fclose(f);
    FILE *o = fopen(outpath, "w");
    fprintf(o, "sampled=%ld bounce_rate=%.4f mean_duration_s=%.1f mean_requests=%.2f\n",
            n, n ? (double)bounces / n : 0, n ? dur / n : 0, n ? reqs / n : 0);
    fclose(o);
    printf("sessions=%ld sampled=%ld bounce=%.3f\n", nsess, n, n ? (double)bounces / n : 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char logp[512], sessp[512], hourp[512], topp[512], sampp[512];
    snprintf(logp, sizeof logp, "%s/access.log", argv[1]);
    snprintf(sessp, sizeof sessp, "%s/sessions.bin", argv[1]);
    snprintf(hourp, sizeof hourp, "%s/hourly.csv", argv[1]);
    snprintf(topp, sizeof topp, "%s/top_urls.txt", argv[1]);
    snprintf(sampp, sizeof sampp, "%s/session_sample.txt", argv[1]);
    stats_t *st = calloc(1, sizeof *st);
    st->trans = calloc((size_t)N_URLS * N_URLS, sizeof(uint32_t));
    generate_log(logp, N_REQUESTS);
    sessionize(logp, sessp, st);
    hourly_report(hourp, st);
    top_urls(topp, st, 25);
    rank_all(st, argv[1], N_ENTRY);
    sample_sessions(sessp, st->sessions_written, SAMPLE_STRIDE, sampp);
    free(st->trans);
    free(st);
    return 0;
}
