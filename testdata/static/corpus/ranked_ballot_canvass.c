/*
 * ranked_ballot_canvass.c
 *
 * Canvass of a municipal ranked-choice election from a cast-vote-record
 * (CVR) text export.  The program first produces the county's exports
 * itself: a candidate registry, a precinct registry and the CVR (one line
 * per ballot and contest, five rankings, with the usual defects: skipped
 * rankings, overvotes "A|B", repeated candidates, write-ins and
 * inconsistent capitalisation/spacing) generated from a spatial voting
 * model.  It then
 *   - loads the registries with fscanf,
 *   - parses the CVR with getline, normalising names through a hash table
 *     and remembering each line's ftell offset,
 *   - writes per-precinct first-choice results (CSV),
 *   - tabulates every contest by instant-runoff voting (round table written
 *     per round) and by the Schulze Condorcet method,
 *   - performs a ballot-level audit: a pseudo-random sample of CVR lines is
 *     re-read with fseek/fgets and re-interpreted, and compared with the
 *     stored interpretation,
 *   - writes a canvass report.
 *
 * Usage: ranked_ballot_canvass OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPREC      320
#define NDIST      4
#define NBALLOT    120000
#define NRANK      5
#define NCONTEST   3             /* MAYOR, COUNCIL (by district), SHERIFF */
#define MAXCAND    32
#define NAUDIT     2500
#define HASHSZ     1024

#define R_BLANK    0
#define R_OVER     255
#define R_WRITEIN  254

typedef struct {
    char name[48];       /* canonical upper-case name */
    int contest;         /* 0 mayor, 1 council, 2 sheriff */
    int district;        /* council district 1..4, else 0 */
    double x, y;         /* ideological position */
} candidate;

typedef struct {
    int id, district;
    double cx, cy, turnout;
    long ballots;
} precinct;

static const char *contest_name[NCONTEST] = {"MAYOR", "COUNCIL", "SHERIFF"};
static const char *first_names[] = {"ALMA", "BORIS", "CLARA", "DESMOND", "EFUA", "FARID", "GRETA", "HUGO",
                                    "IMANI", "JONAS", "KEIKO", "LUIS", "MARTA", "NILS", "OLU", "PRIYA"};
static const char *last_names[] = {"ABERNATHY", "BECKER", "CHO", "DUARTE", "ELLISON", "FONSECA", "GRANT",
                                   "HALVORSEN", "IBARRA", "JOVANOVIC", "KOWALSKI", "LINDQVIST", "MBEKI",
                                   "NAKAMURA", "OKAFOR", "PETROV", "QUINTERO", "ROSSI", "SATO", "TREMBLAY"};

static candidate cand[MAXCAND * 2];
static int ncand;
static precinct prec[NPREC];
static const char *g_dir;

/* parsed ballots: rankings per contest, precinct, line offset */
static uint8_t (*votes)[NCONTEST][NRANK];
static int *ballot_prec;
static long (*line_off)[NCONTEST];
static long nballots;
static long writeins, overvotes, skipped, duplicates;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "ranked_ballot_canvass: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static FILE *open_file(const char *name, const char *mode, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", g_dir, name);
    FILE *fp = fopen(path, mode);
    if (!fp) die("fopen", path);
    return fp;
}

static void close_file(FILE *fp, const char *path)
{
    if (ferror(fp) || fclose(fp) != 0) die("write/close", path);
}

static uint64_t rs = 0x2545F4914F6CDD1Dull;

/* xorshift64* uniforms in (0,1), drawn in batches */
static void fill_uniform(double *u, long n)
{
    for (long i = 0; i < n; i++) {
        rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
        u[i] = ((double)((rs * 0x2545F4914F6CDD1Dull) >> 11) + 0.5) * 0x1.0p-53;
    }
}

/* candidate lists per contest and council district */
static int clist[NCONTEST][NDIST + 1][MAXCAND], nclist[NCONTEST][NDIST + 1];

/* ------------------------------------------------------------------ */
/* 1. registries and the cast-vote-record export */
static void write_registries(void)
{
    char path[1024];
    double u[2 * MAXCAND * 2 + 3 * NPREC];
    fill_uniform(u, 2 * MAXCAND * 2 + 3 * NPREC);
    int ku = 0;
    FILE *fp = open_file("candidates.txt", "w", path, sizeof path);
    fprintf(fp, "# contest district x y name\n");
    int k = 0;
    for (int c = 0; c < NCONTEST; c++) {
        int nd = c == 1 ? NDIST : 1;
        int per = c == 0 ? 8 : c == 1 ? 6 : 4;
        for (int d = 0; d < nd; d++)
            for (int i = 0; i < per; i++, k++) {
                const char *fn = first_names[(k * 7 + 3) % 16];
                const char *ln = last_names[(k * 11 + c) % 20];
                double x = 2.0 * u[ku++] - 1.0, y = 2.0 * u[ku++] - 1.0;
                fprintf(fp, "%s %d %.4f %.4f %s %s\n", contest_name[c], c == 1 ? d + 1 : 0, x, y, fn, ln);
            }
    }
    close_file(fp, path);

    fp = open_file("precincts.txt", "w", path, sizeof path);
    fprintf(fp, "# precinct district centre_x centre_y turnout\n");
    for (int p = 0; p < NPREC; p++) {
        double ang = 6.283185307 * p / NPREC;
        fprintf(fp, "%d %d %.4f %.4f %.4f\n", 1001 + p, 1 + p * NDIST / NPREC, 0.5 * cos(ang) + 0.2 * u[ku],
                0.5 * sin(3 * ang) + 0.2 * u[ku + 1], 0.35 + 0.4 * u[ku + 2]);
        ku += 3;
    }
    close_file(fp, path);
}

static void load_registries(void)
{
    char path[1024], line[256];
    FILE *fp = open_file("candidates.txt", "r", path, sizeof path);
    ncand = 0;
    if (!fgets(line, sizeof line, fp)) die("read header", path);
    char cn[32], fn[24], ln[24];
    int dist;
    double x, y;
    int r;
    while ((r = fscanf(fp, "%31s %d %lf %lf %23s %23s", cn, &dist, &x, &y, fn, ln)) == 6) {
        if (ncand >= MAXCAND * 2) { fprintf(stderr, "too many candidates\n"); exit(1); }
        candidate *c = &cand[ncand++];
        c->contest = -1;
        for (int k = 0; k < NCONTEST; k++)
            if (strcmp(cn, contest_name[k]) == 0) c->contest = k;
        if (c->contest < 0) { fprintf(stderr, "%s: unknown contest %s\n", path, cn); exit(1); }
        c->district = dist;
        c->x = x; c->y = y;
        snprintf(c->name, sizeof c->name, "%s %s", fn, ln);
    }
    if (r != EOF || ferror(fp)) { fprintf(stderr, "%s: parse error\n", path); exit(1); }
    fclose(fp);

    fp = open_file("precincts.txt", "r", path, sizeof path);
    if (!fgets(line, sizeof line, fp)) die("read header", path);
    for (int p = 0; p < NPREC; p++) {
        if (fscanf(fp, "%d %d %lf %lf %lf", &prec[p].id, &prec[p].district, &prec[p].cx, &prec[p].cy,
                   &prec[p].turnout) != 5) {
            fprintf(stderr, "%s: parse error at precinct %d\n", path, p);
            exit(1);
        }
        prec[p].ballots = 0;
    }
    fclose(fp);

    memset(nclist, 0, sizeof nclist);
    for (int i = 0; i < ncand; i++) {
        int c = cand[i].contest;
        for (int d = 0; d <= NDIST; d++)
            if (c != 1 || cand[i].district == d) clist[c][d][nclist[c][d]++] = i;
    }
}

/* The export spells about 80 % of the names canonically, 12 % in Title
 * Case and pads the rest with blanks. */
static void generate_cvr(void)
{
    char path[1024];
    FILE *fp = open_file("cvr_export.csv", "w", path, sizeof path);
    if (fprintf(fp, "Precinct,BallotID,Contest,Rank1,Rank2,Rank3,Rank4,Rank5\n") < 0) die("fprintf", path);
    long b = 0;
    double wsum = 0;
    for (int p = 0; p < NPREC; p++) wsum += prec[p].turnout;
    const long per_ballot = 6 + NCONTEST * (MAXCAND + 1 + 3 * NRANK);
    double *u = NULL;
    long ucap = 0;
    for (int p = 0; p < NPREC; p++) {
        long nb = (long)(NBALLOT * prec[p].turnout / wsum);
        if (nb * per_ballot > ucap) {
            ucap = nb * per_ballot;
            u = realloc(u, sizeof(double) * (size_t)ucap);
            if (!u) { fprintf(stderr, "out of memory\n"); exit(1); }
        }
        fill_uniform(u, nb * per_ballot);
        long ku = 0;
        for (long i = 0; i < nb; i++, b++) {
            double vx = prec[p].cx + 0.45 * (u[ku] + u[ku + 1] + u[ku + 2] - 1.5);
            double vy = prec[p].cy + 0.45 * (u[ku + 3] + u[ku + 4] + u[ku + 5] - 1.5);
            ku += 6;
            for (int c = 0; c < NCONTEST; c++) {
                int d = c == 1 ? prec[p].district : 0;
                int n = nclist[c][d], idx[MAXCAND];
                double dist[MAXCAND];
                for (int k = 0; k < n; k++) {
                    idx[k] = clist[c][d][k];
                    double dx = vx - cand[idx[k]].x, dy = vy - cand[idx[k]].y;
                    dist[k] = dx * dx + dy * dy + 0.08 * u[ku++];
                }
                /* selection-sort the preference order */
                for (int a = 0; a < n; a++)
                    for (int q = a + 1; q < n; q++)
                        if (dist[q] < dist[a]) {
                            double t = dist[a]; dist[a] = dist[q]; dist[q] = t;
                            int ti = idx[a]; idx[a] = idx[q]; idx[q] = ti;
                        }
                int depth = 1 + (int)(u[ku++] * NRANK);
                if (fprintf(fp, "%d,%07ld,%s", prec[p].id, b, contest_name[c]) < 0) die("fprintf", path);
                int used = 0;
                for (int r = 0; r < NRANK; r++) {
                    char buf[128] = "";
                    double x = u[ku++], style = u[ku++], pick = u[ku++];
                    const char *name = NULL;
                    if (r >= depth || x < 0.01) {
                        buf[0] = 0;                          /* truncated or skipped rank */
                    } else if (x < 0.016) {
                        snprintf(buf, sizeof buf, "%s|%s", cand[idx[used % n]].name,
                                 cand[idx[(used + 1) % n]].name);
                    } else if (x < 0.03) {
                        snprintf(buf, sizeof buf, "WRITE-IN:%s", last_names[(int)(pick * 20)]);
                    } else if (x < 0.04 && used > 0) {
                        name = cand[idx[used - 1]].name;     /* repeated ranking */
                    } else {
                        name = cand[idx[used % n]].name;
                        used++;
                    }
                    if (name) {
                        if (style < 0.80) {
                            snprintf(buf, sizeof buf, "%s", name);
                        } else if (style < 0.92) {
                            size_t j = 0;
                            int start = 1;
                            for (; name[j] && j + 1 < sizeof buf; j++) {
                                buf[j] = start ? name[j] : (char)tolower((unsigned char)name[j]);
                                start = name[j] == ' ';
                            }
                            buf[j] = 0;
                        } else {
                            snprintf(buf, sizeof buf, "  %s ", name);
                        }
                    }
                    if (fprintf(fp, ",%s", buf) < 0) die("fprintf", path);
                }
                if (fputc('\n', fp) == EOF) die("fputc", path);
            }
        }
    }
    free(u);
    close_file(fp, path);
}

/* ------------------------------------------------------------------ */
/* 2. name normalisation hash table */
static struct { char key[128]; int idx; } htab[HASHSZ];

static void build_name_table(void)
{
    for (int i = 0; i < HASHSZ; i++) htab[i].idx = -1;
    for (int i = 0; i < ncand; i++) {
        char key[128];
        snprintf(key, sizeof key, "%d:%.47s", cand[i].contest, cand[i].name);
        unsigned h = 2166136261u;
        for (const char *q = key; *q; q++) { h ^= (unsigned char)*q; h *= 16777619u; }
        h %= HASHSZ;
        while (htab[h].idx >= 0) h = (h + 1) % HASHSZ;
        snprintf(htab[h].key, sizeof htab[h].key, "%s", key);
        htab[h].idx = i;
    }
}

/* interpret one CVR line; returns contest index or -1 */
static int interpret_line(char *line, int *prec_id, long *ballot, uint8_t rank[NRANK], int count_defects)
{
    char *fields[3 + NRANK];
    int nf = 0;
    char *s = line;
    size_t len = strlen(s);
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r')) s[--len] = 0;
    fields[nf++] = s;
    for (char *q = s; *q && nf < 3 + NRANK; q++)
        if (*q == ',') { *q = 0; fields[nf++] = q + 1; }
    if (nf != 3 + NRANK) return -1;
    *prec_id = atoi(fields[0]);
    *ballot = atol(fields[1]);
    int c = -1;
    for (int k = 0; k < NCONTEST; k++)
        if (strcmp(fields[2], contest_name[k]) == 0) c = k;
    if (c < 0) return -1;
    int seen[MAXCAND * 2] = {0};
    for (int r = 0; r < NRANK; r++) {
        const char *f = fields[3 + r];
        if (!*f) {
            rank[r] = R_BLANK;
            if (count_defects) skipped++;
        } else if (strchr(f, '|')) {
            rank[r] = R_OVER;
            if (count_defects) overvotes++;
        } else if (strncmp(f, "WRITE-IN:", 9) == 0) {
            rank[r] = R_WRITEIN;
            if (count_defects) writeins++;
        } else {
            /* normalise: trim blanks, upper-case, prefix the contest */
            char key[80];
            size_t n = (size_t)snprintf(key, sizeof key, "%d:", c);
            while (*f == ' ') f++;
            for (; *f && n + 1 < sizeof key; f++) key[n++] = (char)toupper((unsigned char)*f);
            while (key[n - 1] == ' ') n--;
            key[n] = 0;
            unsigned h = 2166136261u;
            for (const char *q = key; *q; q++) { h ^= (unsigned char)*q; h *= 16777619u; }
            h %= HASHSZ;
            int i = -1;
            while (htab[h].idx >= 0) {
                if (strcmp(htab[h].key, key) == 0) { i = htab[h].idx; break; }
                h = (h + 1) % HASHSZ;
            }
            if (i < 0) { fprintf(stderr, "unknown candidate '%s'\n", fields[3 + r]); exit(1); }
            if (seen[i]) {
                rank[r] = R_BLANK;
                if (count_defects) duplicates++;
            } else {
                seen[i] = 1;
                rank[r] = (uint8_t)(i + 1);
            }
        }
    }
    return c;
}

static void parse_cvr(void)
{
    char path[1024];
    FILE *fp = open_file("cvr_export.csv", "r", path, sizeof path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long cap_b = NBALLOT + NPREC;
    votes = calloc((size_t)cap_b, sizeof *votes);
    ballot_prec = calloc((size_t)cap_b, sizeof *ballot_prec);
    line_off = calloc((size_t)cap_b, sizeof *line_off);
    if (!votes || !ballot_prec || !line_off) { fprintf(stderr, "out of memory\n"); exit(1); }
    if (getline(&line, &cap, fp) < 0) die("getline header", path);
    long off = ftell(fp);
    nballots = 0;
    while ((n = getline(&line, &cap, fp)) > 0) {
        int pid;
        long bid;
        uint8_t rk[NRANK];
        int c = interpret_line(line, &pid, &bid, rk, 1);
        int p = pid - 1001;
        if (p < 0 || p >= NPREC || prec[p].id != pid) p = -1;
        if (c < 0 || p < 0 || bid >= cap_b) { fprintf(stderr, "%s: malformed line at %ld\n", path, off); exit(1); }
        if (bid + 1 > nballots) nballots = bid + 1;
        memcpy(votes[bid][c], rk, NRANK);
        ballot_prec[bid] = p;
        line_off[bid][c] = off;
        if (c == 0) prec[p].ballots++;
        off += n;
    }
    if (ferror(fp)) die("getline", path);
    free(line);
    fclose(fp);
}

/* ------------------------------------------------------------------ */
/* 3. per-precinct first choices */
static void precinct_first_choice_report(void)
{
    char path[1024];
    FILE *fp = open_file("precinct_first_choices.csv", "w", path, sizeof path);
    static long cnt[NPREC][MAXCAND * 2 + 2];
    memset(cnt, 0, sizeof cnt);
    for (long b = 0; b < nballots; b++)
        for (int c = 0; c < NCONTEST; c++) {
            int first = -1;
            for (int r = 0; r < NRANK && first < 0; r++) {
                uint8_t v = votes[b][c][r];
                if (v == R_BLANK) continue;
                first = v == R_OVER ? MAXCAND * 2 : v == R_WRITEIN ? MAXCAND * 2 + 1 : v - 1;
            }
            if (first >= 0) cnt[ballot_prec[b]][first]++;
        }
    fprintf(fp, "precinct,district,ballots,contest,choice,votes\n");
    for (int p = 0; p < NPREC; p++)
        for (int i = 0; i < ncand + 2; i++) {
            int k = i < ncand ? i : MAXCAND * 2 + (i - ncand);
            if (i < ncand && cand[i].contest == 1 && cand[i].district != prec[p].district) continue;
            const char *nm = i < ncand ? cand[i].name : (i == ncand ? "OVERVOTE" : "WRITE-IN");
            const char *ct = i < ncand ? contest_name[cand[i].contest] : "ALL";
            if (fprintf(fp, "%d,%d,%ld,%s,%s,%ld\n", prec[p].id, prec[p].district, prec[p].ballots, ct, nm,
                        cnt[p][k]) < 0)
                die("fprintf", path);
        }
    close_file(fp, path);
}

/* ------------------------------------------------------------------ */
/* 4. instant-runoff tabulation for one contest/district */
static int irv_tabulate(int contest, int district, FILE *out, const char *path)
{
    const int *idx = clist[contest][district];
    int n = nclist[contest][district];
    int elim[MAXCAND * 2] = {0};
    int winner = -1;
    for (int round = 1; round <= n && winner < 0; round++) {
        long tally[MAXCAND * 2] = {0}, exhausted = 0, active = 0;
        for (long b = 0; b < nballots; b++) {
            if (contest == 1 && prec[ballot_prec[b]].district != district) continue;
            int got = -1;
            for (int r = 0; r < NRANK; r++) {
                uint8_t v = votes[b][contest][r];
                if (v == R_BLANK || v == R_WRITEIN) continue;
                if (v == R_OVER) break;                 /* overvote exhausts the ballot */
                if (!elim[v - 1]) { got = v - 1; break; }
            }
            if (got < 0) exhausted++;
            else { tally[got]++; active++; }
        }
        int lo = -1, hi = -1;
        for (int k = 0; k < n; k++) {
            int i = idx[k];
            if (elim[i]) continue;
            if (hi < 0 || tally[i] > tally[hi]) hi = i;
            if (lo < 0 || tally[i] < tally[lo]) lo = i;
        }
        for (int k = 0; k < n; k++) {
            int i = idx[k];
            if (elim[i]) continue;
            if (fprintf(out, "%s,%d,%d,%s,%ld,%.3f\n", contest_name[contest], district, round, cand[i].name,
                        tally[i], active ? 100.0 * tally[i] / active : 0.0) < 0)
                die("fprintf", path);
        }
        if (fprintf(out, "%s,%d,%d,EXHAUSTED,%ld,\n", contest_name[contest], district, round, exhausted) < 0)
            die("fprintf", path);
        if (2 * tally[hi] > active) winner = hi;
        else elim[lo] = 1;
    }
    return winner;
}

/* 5. Schulze method from the pairwise preference matrix */
static int schulze(int contest, int district, long pref_out[MAXCAND][MAXCAND])
{
    const int *idx = clist[contest][district];
    int n = nclist[contest][district];
    int pos[MAXCAND * 2];
    for (int i = 0; i < MAXCAND * 2; i++) pos[i] = -1;
    for (int k = 0; k < n; k++) pos[idx[k]] = k;
    long d[MAXCAND][MAXCAND];
    memset(d, 0, sizeof d);
    for (long b = 0; b < nballots; b++) {
        if (contest == 1 && prec[ballot_prec[b]].district != district) continue;
        int order[NRANK], m = 0;
        for (int r = 0; r < NRANK; r++) {
            uint8_t v = votes[b][contest][r];
            if (v == R_OVER) break;
            if (v == R_BLANK || v == R_WRITEIN) continue;
            order[m++] = pos[v - 1];
        }
        int ranked[MAXCAND] = {0};
        for (int a = 0; a < m; a++) {
            ranked[order[a]] = 1;
            for (int q = a + 1; q < m; q++) d[order[a]][order[q]]++;
        }
        /* ranked candidates beat all unranked ones */
        for (int a = 0; a < m; a++)
            for (int u = 0; u < n; u++)
                if (!ranked[u]) d[order[a]][u]++;
    }
    long p[MAXCAND][MAXCAND];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) p[i][j] = (i != j && d[i][j] > d[j][i]) ? d[i][j] : 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                for (int k = 0; k < n; k++)
                    if (i != k && j != k) {
                        long m = p[j][i] < p[i][k] ? p[j][i] : p[i][k];
                        if (m > p[j][k]) p[j][k] = m;
                    }
    int win = -1;
    for (int i = 0; i < n && win < 0; i++) {
        int ok = 1;
        for (int j = 0; j < n; j++)
            if (j != i && p[j][i] > p[i][j]) ok = 0;
        if (ok) win = idx[i];
    }
    memcpy(pref_out, d, sizeof d);
    return win;
}

/* ------------------------------------------------------------------ */
/* 6. ballot-level audit: re-read sampled CVR lines through fseek/fgets */
static int audit_sample(long *checked)
{
    char path[1024], line[512];
    FILE *fp = open_file("cvr_export.csv", "r", path, sizeof path);
    FILE *log = NULL;
    char lpath[1024];
    log = open_file("audit_log.txt", "w", lpath, sizeof lpath);
    int mism = 0;
    *checked = 0;
    double u[2 * NAUDIT];
    fill_uniform(u, 2 * NAUDIT);
    for (int k = 0; k < NAUDIT; k++) {
        long b = (long)(u[2 * k] * nballots);
        int c = (int)(u[2 * k + 1] * NCONTEST);
        if (fseek(fp, line_off[b][c], SEEK_SET) != 0) die("fseek", path);
        if (!fgets(line, sizeof line, fp)) die("fgets", path);
        int pid;
        long bid;
        uint8_t rk[NRANK];
        int cc = interpret_line(line, &pid, &bid, rk, 0);
        int same = cc == c && bid == b && memcmp(rk, votes[b][c], NRANK) == 0;
        if (!same) mism++;
        if (fprintf(log, "%5d ballot %07ld %-8s offset %10ld %s\n", k, b, contest_name[c], line_off[b][c],
                    same ? "MATCH" : "MISMATCH") < 0)
            die("fprintf", lpath);
        (*checked)++;
    }
    fclose(fp);
    close_file(log, lpath);
    return mism;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];

    write_registries();
    load_registries();
    generate_cvr();
    build_name_table();
    parse_cvr();
    precinct_first_choice_report();

    char rpath[1024], cpath[1024];
    FILE *rounds = open_file("irv_rounds.csv", "w", rpath, sizeof rpath);
    if (fprintf(rounds, "contest,district,round,candidate,votes,percent\n") < 0) die("fprintf", rpath);
    FILE *canv = open_file("canvass_report.txt", "w", cpath, sizeof cpath);
    fprintf(canv, "CANVASS REPORT  ballots %ld  precincts %d\n", nballots, NPREC);
    fprintf(canv, "defects: blank rankings %ld overvotes %ld write-ins %ld repeated %ld\n\n", skipped, overvotes,
            writeins, duplicates);
    int agree = 0, races = 0;
    for (int c = 0; c < NCONTEST; c++) {
        int nd = c == 1 ? NDIST : 1;
        for (int d = 1; d <= nd; d++) {
            int dist = c == 1 ? d : 0;
            int w_irv = irv_tabulate(c, dist, rounds, rpath);
            long pref[MAXCAND][MAXCAND];
            int w_sch = schulze(c, dist, pref);
            races++;
            if (w_irv == w_sch) agree++;
            fprintf(canv, "%-8s district %d  IRV winner: %-22s  Schulze winner: %-22s %s\n", contest_name[c],
                    dist, w_irv >= 0 ? cand[w_irv].name : "-", w_sch >= 0 ? cand[w_sch].name : "(cycle)",
                    w_irv == w_sch ? "" : "  ** methods disagree **");
        }
    }
    close_file(rounds, rpath);

    long checked;
    int mism = audit_sample(&checked);
    fprintf(canv, "\naudit: %ld ballot-contests re-read, %d mismatches\n", checked, mism);
    close_file(canv, cpath);

    printf("ranked_ballot_canvass: %ld ballots, %d races, IRV/Schulze agree in %d, audit %ld checked %d mismatches\n",
           nballots, races, agree, checked, mism);
    free(votes); free(ballot_prec); free(line_off);
    return mism ? 1 : 0;
}
