/*
 * stadium_turnstile_gate_flow_stats.c
 *
 * Season analysis of stadium turnstile scans.
 *
 * Phase 1 (data capture, simulated): a ticket registry (CSV, one line per
 * ticket) and, for each home match, a binary scan log as written by the
 * access-control system: fixed 16-byte records (ticket, scan time, gate,
 * stand, result, reader sequence number) produced by a queueing model of
 * the turnstiles.
 *
 * Phase 2 (analysis, read-mostly): the registry is parsed back with fgets,
 * then the season's scan logs are streamed three times with fread:
 *   - arrival profile per stand and minute relative to kick-off,
 *   - per-gate throughput, busy periods and service-gap percentiles,
 *   - validity audit: duplicates, pass-backs, wrong-stand and void tickets.
 * Only a small text report and a per-match CSV are written.
 *
 * Usage: stadium_turnstile_gate_flow_stats OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMATCH 24
#define NSTAND 4
#define GATES_PER_STAND 20
#define NGATE (NSTAND * GATES_PER_STAND)
#define NTICKET 120000
#define OPEN_BEFORE_S 5400      /* gates open 90 min before kick-off */
#define NMIN 120                /* minutes tracked from opening */
#define CHUNK 4096
#define MAXREC (NTICKET * 2)

typedef struct {
    uint32_t ticket;
    uint32_t t_ms;   /* scan time since gates opened */
    uint16_t gate;
    uint8_t stand;
    uint8_t result;  /* 0 ok, 1 void ticket, 2 already inside, 3 wrong stand */
    uint32_t seq;    /* reader sequence number at that gate */
} scan_rec;

typedef struct {
    uint8_t stand;
    uint8_t season;     /* season ticket holder */
    uint8_t concession; /* child/senior */
    uint32_t valid_mask; /* bit m set if valid for match m */
} ticket_info;

typedef struct {
    long scans, ok, void_t, dup, wrong;
    int peak_minute, peak_count;
    double p50_gap, p95_gap, mean_busy_s;
    double late_frac; /* share of ok entries after kick-off */
} match_stats;

static const char *g_dir;
static uint64_t g_rng = 0x5EA5015EA5015ull;

static void die(const char *what)
{
    fprintf(stderr, "turnstile: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(2);
}

static double urand(void)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static FILE *open_file(const char *name, const char *mode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

/* Ticket registry: season tickets are valid for every match, others for a few. */
static void generate_registry(ticket_info *tk)
{
    FILE *f = open_file("ticket_registry.csv", "w");
    if (fprintf(f, "ticket_id,stand,block,row,seat,type,concession,valid_matches\n") < 0) die("write registry");
    for (uint32_t t = 0; t < NTICKET; t++) {
        ticket_info *q = &tk[t];
        q->stand = (uint8_t)(t / 1000 % NSTAND);
        q->season = urand() < 0.55;
        q->concession = urand() < 0.18;
        if (q->season) {
            q->valid_mask = (1u << NMATCH) - 1;
        } else {
            q->valid_mask = 0;
            int n = 1 + (int)(urand() * 6);
            for (int k = 0; k < n; k++) q->valid_mask |= 1u << (int)(urand() * NMATCH);
        }
        char matches[3 * NMATCH + 1];
        int len = 0;
        for (int m = 0; m < NMATCH; m++)
            if (q->valid_mask >> m & 1)
                len += snprintf(matches + len, sizeof matches - (size_t)len, "%s%d", len ? ";" : "", m);
        if (fprintf(f, "T%07u,%c,%u,%u,%u,%s,%s,%s\n", t, "NESW"[q->stand], t / 400 % 40, t / 25 % 16, t % 25,
                    q->season ? "season" : "match", q->concession ? "Y" : "N", matches) < 0)
            die("write registry");
    }
    if (fclose(f) != 0) die("close registry");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Simulate the gate queues for one match and write its binary scan log. */
static size_t generate_match_scans(int m, const ticket_info *tk, uint64_t *key, scan_rec *rec,
                                   unsigned char *inside)
{
    double derby = (m % 6 == 0) ? 1.0 : 0.0;
    double turnout = 0.78 + 0.14 * urand() + 0.07 * derby;
    size_t nk = 0;
    for (uint32_t t = 0; t < NTICKET; t++) {
        if (!(tk[t].valid_mask >> m & 1)) {
            if (urand() < 0.004) /* someone tries a ticket for another date */
                key[nk++] = ((uint64_t)(urand() * OPEN_BEFORE_S * 1000) << 20) | t;
            continue;
        }
        if (urand() > turnout) continue;
        /* arrivals: mixture peaked ~25 and ~8 minutes before kick-off */
        double mu = urand() < 0.6 ? 1500.0 : 480.0;
        double a = OPEN_BEFORE_S - mu * (-log(1.0 - urand() * 0.999)) * (0.6 + 0.8 * urand());
        if (a < 0) a = urand() * 600;
        key[nk++] = ((uint64_t)(a * 1000) << 20) | t;
        if (urand() < 0.012) /* pass-back attempt a few minutes later */
            key[nk++] = ((uint64_t)((a + 120 + 600 * urand()) * 1000) << 20) | t;
    }
    qsort(key, nk, sizeof key[0], cmp_u64);

    double gate_free[NGATE];
    uint32_t seq[NGATE];
    for (int g = 0; g < NGATE; g++) {
        gate_free[g] = 0;
        seq[g] = (uint32_t)(m * 100000 + g * 1000);
    }
    memset(inside, 0, NTICKET);
    for (size_t k = 0; k < nk; k++) {
        uint32_t t = (uint32_t)(key[k] & 0xFFFFF);
        double arr = (double)(key[k] >> 20) / 1000.0;
        int stand = tk[t].stand;
        if (urand() < 0.02) stand = (stand + 1 + (int)(urand() * 3)) % NSTAND; /* lost fan */
        int best = stand * GATES_PER_STAND;
        for (int g = best + 1; g < (stand + 1) * GATES_PER_STAND; g++)
            if (gate_free[g] < gate_free[best]) best = g;
        scan_rec *r = &rec[k];
        r->ticket = t;
        r->gate = (uint16_t)best;
        r->stand = (uint8_t)stand;
        r->seq = seq[best]++;
        double service;
        if (!(tk[t].valid_mask >> m & 1)) {
            r->result = 1;
            service = 6.0;
        } else if (inside[t]) {
            r->result = 2;
            service = 5.0;
        } else if (stand != tk[t].stand) {
            r->result = 3;
            service = 4.0;
        } else {
            r->result = 0;
            inside[t] = 1;
            service = 2.2 + 1.5 * urand() + (tk[t].concession ? 1.5 : 0.0);
        }
        double start = arr > gate_free[best] ? arr : gate_free[best];
        gate_free[best] = start + service;
        r->t_ms = (uint32_t)(gate_free[best] * 1000.0);
    }
    char name[64];
    snprintf(name, sizeof name, "scans_m%02d.bin", m);
    FILE *f = open_file(name, "wb");
    uint32_t hdr[4] = {0x5343414Eu, (uint32_t)m, (uint32_t)nk, (uint32_t)sizeof(scan_rec)};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("write scan header");
    for (size_t k = 0; k < nk; k += CHUNK) {
        size_t n = nk - k < CHUNK ? nk - k : CHUNK;
        if (fwrite(rec + k, sizeof(scan_rec), n, f) != n) die("write scans");
    }
    if (fclose(f) != 0) die("close scans");
    return nk;
}

/* Parse the registry back; the analysis trusts only what is on disk. */
static long load_registry(ticket_info *tk)
{
    FILE *f = open_file("ticket_registry.csv", "r");
    char line[256];
    long n = 0;
    if (!fgets(line, sizeof line, f)) die("read registry header");
    memset(tk, 0, sizeof(ticket_info) * NTICKET);
    while (fgets(line, sizeof line, f)) {
        unsigned id, block, row, seat;
        char stand, type[16], conc[4], matches[128];
        matches[0] = 0;
        int got = sscanf(line, "T%u,%c,%u,%u,%u,%15[^,],%3[^,],%127s", &id, &stand, &block, &row, &seat, type,
                         conc, matches);
        if (got < 7 || id >= NTICKET) {
            fprintf(stderr, "bad registry line: %s", line);
            exit(3);
        }
        ticket_info *q = &tk[id];
        q->stand = (uint8_t)(strchr("NESW", stand) - "NESW");
        q->season = type[0] == 's';
        q->concession = conc[0] == 'Y';
        q->valid_mask = 0;
        char *p = matches;
        while (*p) {
            char *end;
            long mm = strtol(p, &end, 10);
            if (end == p) break;
            q->valid_mask |= 1u << mm;
            p = *end == ';' ? end + 1 : end;
        }
        n++;
    }
    if (ferror(f)) die("read registry");
    fclose(f);
    return n;
}

static FILE *open_scans(int m, uint32_t *nrec)
{
    char name[64];
    snprintf(name, sizeof name, "scans_m%02d.bin", m);
    FILE *f = open_file(name, "rb");
    uint32_t hdr[4];
    if (fread(hdr, sizeof hdr, 1, f) != 1 || hdr[0] != 0x5343414Eu || hdr[3] != sizeof(scan_rec)) die("bad scan header");
    *nrec = hdr[2];
    return f;
}

/* Pass 1: entries per stand and minute since the gates opened. */
static void pass_arrival_profile(match_stats *ms, long season_hist[NSTAND][NMIN])
{
    static scan_rec buf[CHUNK];
    for (int m = 0; m < NMATCH; m++) {
        long hist[NSTAND][NMIN];
        memset(hist, 0, sizeof hist);
        uint32_t nrec;
        FILE *f = open_scans(m, &nrec);
        long late = 0, ok = 0;
        size_t got;
        while ((got = fread(buf, sizeof(scan_rec), CHUNK, f)) > 0) {
            for (size_t i = 0; i < got; i++) {
                if (buf[i].result != 0) continue;
                int minute = (int)(buf[i].t_ms / 60000);
                ok++;
                if (buf[i].t_ms > OPEN_BEFORE_S * 1000u) late++;
                if (minute >= NMIN) minute = NMIN - 1;
                hist[buf[i].stand][minute]++;
            }
        }
        if (ferror(f)) die("read scans");
        fclose(f);
        ms[m].peak_count = 0;
        for (int mi = 0; mi < NMIN; mi++) {
            long tot = 0;
            for (int s = 0; s < NSTAND; s++) {
                tot += hist[s][mi];
                season_hist[s][mi] += hist[s][mi];
            }
            if (tot > ms[m].peak_count) {
                ms[m].peak_count = (int)tot;
                ms[m].peak_minute = mi - OPEN_BEFORE_S / 60;
            }
        }
        ms[m].late_frac = ok ? (double)late / ok : 0.0;
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Pass 2: gaps between consecutive scans at each gate; busy periods are runs of gaps < 8 s. */
static void pass_gate_queues(match_stats *ms, double gate_util[NGATE])
{
    static scan_rec buf[CHUNK];
    static float gaps[MAXREC];
    static uint32_t last_t[NGATE];
    static uint32_t busy_start[NGATE];
    for (int m = 0; m < NMATCH; m++) {
        uint32_t nrec;
        FILE *f = open_scans(m, &nrec);
        size_t ng = 0, got;
        double busy_total = 0;
        long nbusy = 0;
        double gate_busy[NGATE];
        for (int g = 0; g < NGATE; g++) {
            last_t[g] = UINT32_MAX;
            busy_start[g] = 0;
            gate_busy[g] = 0;
        }
        /* the log is in arrival order; per-gate scan times are monotone */
        while ((got = fread(buf, sizeof(scan_rec), CHUNK, f)) > 0) {
            for (size_t i = 0; i < got; i++) {
                int g = buf[i].gate;
                uint32_t t = buf[i].t_ms;
                if (last_t[g] != UINT32_MAX && t >= last_t[g]) {
                    float gap = (float)(t - last_t[g]) / 1000.0f;
                    gaps[ng++] = gap;
                    if (gap > 8.0f) {
                        double len = (last_t[g] - busy_start[g]) / 1000.0;
                        busy_total += len;
                        gate_busy[g] += len;
                        nbusy++;
                        busy_start[g] = t;
                    }
                } else {
                    busy_start[g] = t;
                }
                last_t[g] = t;
            }
        }
        if (ferror(f)) die("read scans");
        fclose(f);
        for (int g = 0; g < NGATE; g++)
            if (last_t[g] != UINT32_MAX) { /* close the last busy period */
                double len = (last_t[g] - busy_start[g]) / 1000.0;
                busy_total += len;
                gate_busy[g] += len;
                nbusy++;
            }
        qsort(gaps, ng, sizeof gaps[0], cmp_float);
        ms[m].p50_gap = ng ? gaps[ng / 2] : 0;
        ms[m].p95_gap = ng ? gaps[(size_t)(ng * 0.95)] : 0;
        ms[m].mean_busy_s = nbusy ? busy_total / nbusy : 0;
        for (int g = 0; g < NGATE; g++) gate_util[g] += gate_busy[g] / (NMIN * 60.0) / NMATCH;
    }
}

/* Pass 3: audit every scan against the registry and the set of fans inside. */
static void pass_validity_audit(const ticket_info *tk, match_stats *ms, long *mismatch)
{
    static scan_rec buf[CHUNK];
    static unsigned char inside[NTICKET];
    *mismatch = 0;
    for (int m = 0; m < NMATCH; m++) {
        uint32_t nrec;
        FILE *f = open_scans(m, &nrec);
        memset(inside, 0, sizeof inside);
        long n = 0;
        size_t got;
        ms[m].ok = ms[m].void_t = ms[m].dup = ms[m].wrong = 0;
        while ((got = fread(buf, sizeof(scan_rec), CHUNK, f)) > 0) {
            for (size_t i = 0; i < got; i++) {
                const scan_rec *r = &buf[i];
                n++;
                int expect;
                if (r->ticket >= NTICKET || !(tk[r->ticket].valid_mask >> m & 1)) expect = 1;
                else if (inside[r->ticket]) expect = 2;
                else if (r->stand != tk[r->ticket].stand) expect = 3;
                else expect = 0;
                if (expect == 0) inside[r->ticket] = 1;
                if (expect != r->result) (*mismatch)++;
                switch (r->result) {
                case 0: ms[m].ok++; break;
                case 1: ms[m].void_t++; break;
                case 2: ms[m].dup++; break;
                default: ms[m].wrong++; break;
                }
            }
        }
        if (ferror(f)) die("read scans");
        fclose(f);
        if ((uint32_t)n != nrec) {
            fprintf(stderr, "match %d: %ld records, header says %u\n", m, n, nrec);
            exit(3);
        }
        ms[m].scans = n;
    }
}

static void write_report(const match_stats *ms, long season_hist[NSTAND][NMIN], const double *gate_util,
                         long mismatch)
{
    FILE *f = open_file("match_gate_stats.csv", "w");
    fprintf(f, "match,scans,ok,void,duplicate,wrong_stand,peak_min_rel_ko,peak_per_min,p50_gap_s,p95_gap_s,"
               "mean_busy_s,late_frac\n");
    for (int m = 0; m < NMATCH; m++)
        if (fprintf(f, "%d,%ld,%ld,%ld,%ld,%ld,%d,%d,%.2f,%.2f,%.1f,%.4f\n", m, ms[m].scans, ms[m].ok, ms[m].void_t,
                    ms[m].dup, ms[m].wrong, ms[m].peak_minute, ms[m].peak_count, ms[m].p50_gap, ms[m].p95_gap,
                    ms[m].mean_busy_s, ms[m].late_frac) < 0)
            die("write csv");
    if (fclose(f) != 0) die("close csv");

    f = open_file("season_report.txt", "w");
    fprintf(f, "Season turnstile report: %d matches, %d gates\n\n", NMATCH, NGATE);
    fprintf(f, "Entries per 10 minutes (relative to kick-off), season total\n  min   ");
    for (int s = 0; s < NSTAND; s++) fprintf(f, "%10c", "NESW"[s]);
    fprintf(f, "\n");
    for (int mi = 0; mi < NMIN; mi += 10) {
        fprintf(f, "%5d   ", mi - OPEN_BEFORE_S / 60);
        for (int s = 0; s < NSTAND; s++) {
            long sum = 0;
            for (int k = mi; k < mi + 10 && k < NMIN; k++) sum += season_hist[s][k];
            fprintf(f, "%10ld", sum);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\nGate utilisation (busy share of %d min window)\n", NMIN);
    for (int g = 0; g < NGATE; g++)
        fprintf(f, "gate %c%02d %6.3f%s", "NESW"[g / GATES_PER_STAND], g % GATES_PER_STAND, gate_util[g],
                (g + 1) % 4 == 0 ? "\n" : "   ");
    fprintf(f, "\nregistry/log mismatches: %ld\n", mismatch);
    if (ferror(f) || fclose(f) != 0) die("write report");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    g_dir = argv[1];
    ticket_info *tk = malloc(sizeof(ticket_info) * NTICKET);
    uint64_t *key = malloc(sizeof(uint64_t) * MAXREC);
    scan_rec *rec = malloc(sizeof(scan_rec) * MAXREC);
    unsigned char *inside = malloc(NTICKET);
    if (!tk || !key || !rec || !inside) die("malloc");

    generate_registry(tk);
    size_t total = 0;
    for (int m = 0; m < NMATCH; m++) total += generate_match_scans(m, tk, key, rec, inside);
    free(key);
    free(rec);
    free(inside);

    long nt = load_registry(tk);
    static match_stats ms[NMATCH];
    static long season_hist[NSTAND][NMIN];
    static double gate_util[NGATE];
    long mismatch;
    pass_arrival_profile(ms, season_hist);
    pass_gate_queues(ms, gate_util);
    pass_validity_audit(tk, ms, &mismatch);
    write_report(ms, season_hist, gate_util, mismatch);

    long ok = 0, dup = 0;
    for (int m = 0; m < NMATCH; m++) ok += ms[m].ok, dup += ms[m].dup;
    printf("tickets %ld  scans %zu  admitted %ld  pass-backs %ld  mismatches %ld\n", nt, total, ok, dup, mismatch);
    free(tk);
    return mismatch ? 3 : 0;
}
