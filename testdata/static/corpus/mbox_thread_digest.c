/* mbox_thread_digest.c
 * Mailing-list archive tool for mbox files.
 *
 * Generates about two years of a busy developer mailing list as one mboxrd
 * archive (From_ separators, folded headers, quoted replies, signatures,
 * ">From " escaping), then
 *   - parses it with getline into message records (headers unfolded, body
 *     line / quote / signature statistics),
 *   - threads messages by Message-ID / In-Reply-To / References with a hash
 *     table, computing thread size, depth, lifetime and participants,
 *   - counts body terms per year in an open-addressing hash table,
 *   - writes an indented thread digest, a per-author CSV, per-month
 *     activity and per-year term tables with fprintf,
 *   - splits the archive into one mbox per year with a second getline pass
 *     copying messages with fputs,
 *   - re-reads the author CSV with fscanf for a top-poster report.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NMSG      13000
#define NAUTH     600
#define HASHSZ    65536
#define NWORDS    (sizeof vocab / sizeof vocab[0])

typedef struct {
    char id[64], parent_id[64], from[64], subject[96];
    long long date;           /* seconds since 2021-01-01 */
    long offset;              /* byte offset of the From_ line */
    int lines, quoted, sig, bytes;
    int parent, first_child, next_sibling, root, depth;
} msg;

static msg *m;
static int nmsg;
static int hash_tab[HASHSZ];
static int hash_next[NMSG];
static uint64_t rs = 0x853c49e6748fea9bULL;

static const char *vocab[] = {
    "patch", "kernel", "driver", "regression", "bisect", "commit", "review", "merge", "build", "config",
    "memory", "leak", "lock", "race", "scheduler", "latency", "throughput", "benchmark", "test", "failure",
    "warning", "compiler", "linker", "module", "interface", "device", "firmware", "interrupt", "buffer",
    "allocation", "cache", "page", "fault", "trace", "log", "debug", "release", "version", "branch",
    "upstream", "backport", "stable", "maintainer", "reviewer", "feedback", "comment", "nit", "typo",
    "documentation", "example", "usage", "option", "flag", "default", "timeout", "retry", "error",
    "return", "value", "pointer", "struct", "field", "offset", "alignment", "endian", "overflow",
    "check", "assert", "invariant", "refactor", "cleanup", "rename", "split", "series", "cover",
    "letter", "thanks", "agreed", "indeed", "however", "perhaps", "should", "would", "could", "the",
    "a", "this", "that", "we", "it", "is", "not", "with", "for", "on", "in", "to", "of", "and", "but",
};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "mbox_thread_digest: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint32_t rnd(void)
{
    uint64_t old = rs;
    rs = old * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t x = (uint32_t)(((old >> 18u) ^ old) >> 27u), r = (uint32_t)(old >> 59u);
    return (x >> r) | (x << ((-r) & 31));
}

static void write_words(FILE *f, const char *prefix, int nw)
{
    fputs(prefix, f);
    for (int k = 0; k < nw; k++) {
        fputs(vocab[rnd() % NWORDS], f);
        fputc(k + 1 < nw ? ' ' : '\n', f);
    }
}

static void format_date(long long t, char *buf, size_t n, int rfc)
{
    time_t base = 1609459200;   /* 2021-01-01T00:00:00Z */
    time_t tt = base + (time_t)t;
    struct tm tmv;
    gmtime_r(&tt, &tmv);
    strftime(buf, n, rfc ? "%a, %d %b %Y %H:%M:%S +0000" : "%a %b %e %H:%M:%S %Y", &tmv);
}

/* generator: parents are chosen among recent messages, so threads interleave */
static void generate_archive(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    char (*subj)[80] = malloc((size_t)NMSG * 80);
    if (!subj) die("malloc", "");
    long long t = 0;
    char d1[64], d2[64];
    for (int i = 0; i < NMSG; i++) {
        t += 60 + rnd() % 9000;
        int author = (int)((rnd() % NAUTH) * (rnd() % NAUTH) / NAUTH);   /* skewed posting rates */
        int parent = -1;
        if (i > 10 && rnd() % 100 < 72) parent = i - 1 - (int)(rnd() % (i < 400 ? i : 400));
        if (parent >= 0) snprintf(subj[i], 80, "%s", subj[parent]);
        else snprintf(subj[i], 80, "[PATCH v%u %u/%u] %s: fix %s in %s", 1 + rnd() % 4, 1 + rnd() % 9, 9,
                      vocab[rnd() % 30], vocab[rnd() % 60], vocab[rnd() % 40]);
        format_date(t, d1, sizeof d1, 0);
        format_date(t, d2, sizeof d2, 1);
        if (fprintf(f, "From dev%03d@lists.example.org %s\n", author, d1) < 0) die("fprintf", path);
        fprintf(f, "From: Developer %03d <dev%03d@lists.example.org>\n", author, author);
        fprintf(f, "To: devel@lists.example.org\n");
        fprintf(f, "Subject: %s%s\n", parent >= 0 ? "Re: " : "", subj[i]);
        fprintf(f, "Date: %s\n", d2);
        fprintf(f, "Message-ID: <%08x.%d@mail.example.org>\n", (unsigned)(i * 2654435761u), i);
        if (parent >= 0) {
            fprintf(f, "In-Reply-To: <%08x.%d@mail.example.org>\n", (unsigned)(parent * 2654435761u), parent);
            fprintf(f, "References: <%08x.%d@mail.example.org>\n\t<%08x.%d@mail.example.org>\n",
                    (unsigned)(parent * 2654435761u), parent, (unsigned)(parent * 2654435761u), parent);
        }
        fprintf(f, "Content-Type: text/plain; charset=utf-8\n\n");
        if (parent >= 0) {
            fprintf(f, "On %s, Developer %03d wrote:\n", d2, (int)(rnd() % NAUTH));
            int q = 2 + rnd() % 12;
            for (int k = 0; k < q; k++) write_words(f, "> ", 6 + rnd() % 8);
            fputc('\n', f);
        }
        int body = 3 + rnd() % 25;
        for (int k = 0; k < body; k++) {
            if (rnd() % 60 == 0) fputs(">From the previous discussion it follows that\n", f);  /* mboxrd-escaped */
            else write_words(f, "", 4 + rnd() % 12);
        }
        if (rnd() % 3) fprintf(f, "\n-- \nDeveloper %03d\n", author);
        if (fputc('\n', f) == EOF) die("write", path);
    }
    free(subj);
    if (fclose(f) != 0) die("fclose", path);
}

#define TERMSZ 4096
static char term_word[TERMSZ][32];
static long term_count[TERMSZ][4];        /* per archive year */
static long term_docs[TERMSZ];

static unsigned hash_str(const char *s);

/* tokenise an unquoted body line and count lower-case terms per year */
static void count_terms(const char *line, int year)
{
    char w[32];
    size_t n = 0;
    for (const char *p = line;; p++) {
        int c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            if (n < sizeof w - 1) w[n++] = (char)(c | 0x20);
            continue;
        }
        if (n >= 3) {
            w[n] = 0;
            unsigned h = hash_str(w) & (TERMSZ - 1);
            while (term_word[h][0] && strcmp(term_word[h], w) != 0) h = (h + 1) & (TERMSZ - 1);
            if (!term_word[h][0]) memcpy(term_word[h], w, n + 1);
            term_count[h][year]++;
        }
        n = 0;
        if (c == 0) break;
    }
}

static void write_terms(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "# term 2021 2022 2023 2024 growth\n");
    for (int h = 0; h < TERMSZ; h++) {
        if (!term_word[h][0]) continue;
        term_docs[h] = term_count[h][0] + term_count[h][1] + term_count[h][2] + term_count[h][3];
        double growth = (term_count[h][1] + 1.0) / (term_count[h][0] + 1.0);
        if (fprintf(f, "%-16s %8ld %8ld %8ld %8ld %7.3f\n", term_word[h], term_count[h][0], term_count[h][1],
                    term_count[h][2], term_count[h][3], growth) < 0)
            die("fprintf", path);
    }
    if (fclose(f) != 0) die("fclose", path);
}

static unsigned hash_str(const char *s)
{
    unsigned h = 2166136261u;
    while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
    return h & (HASHSZ - 1);
}

static int lookup_id(const char *id)
{
    for (int k = hash_tab[hash_str(id)]; k >= 0; k = hash_next[k])
        if (strcmp(m[k].id, id) == 0) return k;
    return -1;
}

static void extract_angle(const char *v, char *out, size_t n)
{
    const char *a = strrchr(v, '<'), *b = a ? strchr(a, '>') : NULL;
    if (!a || !b) { out[0] = 0; return; }
    size_t len = (size_t)(b - a - 1);
    if (len >= n) len = n - 1;
    memcpy(out, a + 1, len);
    out[len] = 0;
}

static long long parse_rfc_date(const char *v)
{
    static const char *mon = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char wd[8], mn[8];
    int d, y, hh, mm, ss;
    if (sscanf(v, "%7[^,], %d %7s %d %d:%d:%d", wd, &d, mn, &y, &hh, &mm, &ss) != 7) return -1;
    const char *p = strstr(mon, mn);
    int mo = p ? (int)(p - mon) / 3 : 0;
    static const int cum[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    long long days = 0;
    for (int yy = 2021; yy < y; yy++) days += (yy % 4 == 0) ? 366 : 365;
    days += cum[mo] + (mo > 1 && y % 4 == 0) + d - 1;
    return days * 86400LL + hh * 3600LL + mm * 60LL + ss;
}

static void finish_header(msg *cur, const char *hdr)
{
    if (strncmp(hdr, "Message-ID:", 11) == 0) extract_angle(hdr, cur->id, sizeof cur->id);
    else if (strncmp(hdr, "In-Reply-To:", 12) == 0) extract_angle(hdr, cur->parent_id, sizeof cur->parent_id);
    else if (strncmp(hdr, "References:", 11) == 0 && cur->parent_id[0] == 0)
        extract_angle(hdr, cur->parent_id, sizeof cur->parent_id);
    else if (strncmp(hdr, "From:", 5) == 0) extract_angle(hdr, cur->from, sizeof cur->from);
    else if (strncmp(hdr, "Subject:", 8) == 0) snprintf(cur->subject, sizeof cur->subject, "%s", hdr + 9);
    else if (strncmp(hdr, "Date:", 5) == 0) cur->date = parse_rfc_date(hdr + 6);
}

static void parse_archive(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    char *line = NULL, hdr[2048];
    size_t cap = 0;
    ssize_t len;
    int in_header = 0, in_sig = 0;
    msg *cur = NULL;
    hdr[0] = 0;
    long pos = 0;
    nmsg = 0;
    while ((len = getline(&line, &cap, f)) != -1) {
        long here = pos;
        pos += len;
        if (len > 0 && line[len - 1] == '\n') line[--len] = 0;
        if (strncmp(line, "From ", 5) == 0) {
            if (nmsg >= NMSG) { errno = EOVERFLOW; die("too many messages in", path); }
            cur = &m[nmsg++];
            memset(cur, 0, sizeof *cur);
            cur->offset = here;
            cur->parent = cur->first_child = cur->next_sibling = -1;
            in_header = 1; in_sig = 0; hdr[0] = 0;
            continue;
        }
        if (!cur) continue;
        cur->bytes += (int)len + 1;
        if (in_header) {
            if (line[0] == ' ' || line[0] == '\t') {          /* folded continuation */
                strncat(hdr, line, sizeof hdr - strlen(hdr) - 1);
                continue;
            }
            if (hdr[0]) finish_header(cur, hdr);
            if (len == 0) { in_header = 0; hdr[0] = 0; continue; }
            snprintf(hdr, sizeof hdr, "%s", line);
            continue;
        }
        cur->lines++;
        if (strcmp(line, "-- ") == 0) in_sig = 1;
        if (in_sig) cur->sig++;
        else if (line[0] == '>' && strncmp(line, ">From ", 6) != 0) cur->quoted++;
        else {
            int year = (int)(cur->date / (365LL * 86400));
            count_terms(line, year < 0 ? 0 : year > 3 ? 3 : year);
        }
    }
    if (ferror(f)) die("getline", path);
    free(line);
    if (fclose(f) != 0) die("fclose", path);
}

static void link_threads(void)
{
    for (int k = 0; k < HASHSZ; k++) hash_tab[k] = -1;
    for (int i = 0; i < nmsg; i++) {
        unsigned h = hash_str(m[i].id);
        hash_next[i] = hash_tab[h];
        hash_tab[h] = i;
    }
    for (int i = nmsg - 1; i >= 0; i--) {      /* reverse so children end up in date order */
        int p = m[i].parent_id[0] ? lookup_id(m[i].parent_id) : -1;
        m[i].parent = p;
        if (p >= 0) { m[i].next_sibling = m[p].first_child; m[p].first_child = i; }
    }
    for (int i = 0; i < nmsg; i++) {
        int p = m[i].parent;
        m[i].root = p >= 0 ? m[p].root : i;
        m[i].depth = p >= 0 ? m[p].depth + 1 : 0;
    }
}

static void print_subtree(FILE *f, int i, const char *path)
{
    for (int c = i; c >= 0; c = m[c].next_sibling) {
        if (fprintf(f, "%*s%s  %s  (%d lines, %d quoted)\n", 2 * m[c].depth + 2, "", m[c].from, m[c].id,
                    m[c].lines, m[c].quoted) < 0)
            die("fprintf", path);
        if (m[c].first_child >= 0) print_subtree(f, m[c].first_child, path);
    }
}

static void write_thread_digest(const char *path, int *nthreads, int *largest)
{
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    int *size = calloc((size_t)nmsg, sizeof(int)), *maxd = calloc((size_t)nmsg, sizeof(int));
    long long *last = calloc((size_t)nmsg, sizeof(long long));
    if (!size || !maxd || !last) die("calloc", "");
    for (int i = 0; i < nmsg; i++) {
        int r = m[i].root;
        size[r]++;
        if (m[i].depth > maxd[r]) maxd[r] = m[i].depth;
        if (m[i].date > last[r]) last[r] = m[i].date;
    }
    *nthreads = 0; *largest = 0;
    for (int i = 0; i < nmsg; i++) {
        if (m[i].root != i) continue;
        (*nthreads)++;
        if (size[i] > *largest) *largest = size[i];
        if (fprintf(f, "=== %s\n    %d messages, depth %d, open %.1f days\n", m[i].subject, size[i], maxd[i],
                    (last[i] - m[i].date) / 86400.0) < 0)
            die("fprintf", path);
        if (fprintf(f, "  %s  %s\n", m[i].from, m[i].id) < 0) die("fprintf", path);
        if (m[i].first_child >= 0) print_subtree(f, m[i].first_child, path);
    }
    free(size); free(maxd); free(last);
    if (fclose(f) != 0) die("fclose", path);
}

static void write_author_csv(const char *path)
{
    int na = 0;
    static char names[NAUTH * 2][64];
    static int posts[NAUTH * 2], replies[NAUTH * 2], started[NAUTH * 2];
    static long long bytes[NAUTH * 2];
    for (int i = 0; i < nmsg; i++) {
        int a;
        for (a = 0; a < na; a++) if (strcmp(names[a], m[i].from) == 0) break;
        if (a == na) {
            if (na == NAUTH * 2) continue;
            snprintf(names[na++], 64, "%s", m[i].from);
        }
        posts[a]++;
        bytes[a] += m[i].bytes;
        if (m[i].parent >= 0) replies[a]++; else started[a]++;
    }
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "author posts started replies bytes\n");
    for (int a = 0; a < na; a++)
        if (fprintf(f, "%s %d %d %d %lld\n", names[a], posts[a], started[a], replies[a], bytes[a]) < 0)
            die("fprintf", path);
    if (fclose(f) != 0) die("fclose", path);
}

static void write_monthly(const char *dir)
{
    int mon_msgs[48] = {0}, mon_new[48] = {0};
    long long mon_lines[48] = {0}, mon_quoted[48] = {0};
    for (int i = 0; i < nmsg; i++) {
        int mo = (int)(m[i].date / (86400LL * 30));
        if (mo > 47) mo = 47;
        mon_msgs[mo]++;
        mon_lines[mo] += m[i].lines;
        mon_quoted[mo] += m[i].quoted;
        if (m[i].parent < 0) mon_new[mo]++;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/monthly_activity.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "# month messages new_threads lines quote_ratio\n");
    for (int mo = 0; mo < 48; mo++)
        if (mon_msgs[mo] && fprintf(f, "%5d %8d %8d %9lld %6.3f\n", mo, mon_msgs[mo], mon_new[mo], mon_lines[mo],
                                    (double)mon_quoted[mo] / (double)(mon_lines[mo] ? mon_lines[mo] : 1)) < 0)
            die("fprintf", path);
    if (fclose(f) != 0) die("fclose", path);
}

static int split_by_year(const char *src, const char *dir)
{
    FILE *in = fopen(src, "r");
    if (!in) die("fopen", src);
    FILE *out = NULL;
    int cur_year = -1, idx = -1, files = 0;
    char *line = NULL;
    size_t cap = 0;
    char path[4096];
    while (getline(&line, &cap, in) != -1) {
        if (strncmp(line, "From ", 5) == 0) {
            idx++;
            int year = 2021 + (int)(m[idx].date / (365LL * 86400));
            if (year != cur_year) {
                if (out && fclose(out) != 0) die("fclose", path);
                snprintf(path, sizeof path, "%s/archive_%d.mbox", dir, year);
                out = fopen(path, "w");
                if (!out) die("fopen", path);
                cur_year = year;
                files++;
            }
        }
        if (out && fputs(line, out) == EOF) die("fputs", path);
    }
    if (ferror(in)) die("getline", src);
    free(line);
    fclose(in);
    if (out && fclose(out) != 0) die("fclose", path);
    return files;
}

static void top_posters(const char *csv, const char *path)
{
    FILE *in = fopen(csv, "r");
    if (!in) die("fopen", csv);
    char name[64];
    int p, s, r;
    long long b;
    int topn[10] = {0};
    char topname[10][64] = {{0}};
    if (fscanf(in, "%*s %*s %*s %*s %*s") != 0) die("fscanf header", csv);
    while (fscanf(in, "%63s %d %d %d %lld", name, &p, &s, &r, &b) == 5) {
        for (int k = 0; k < 10; k++)
            if (p > topn[k]) {
                memmove(&topn[k + 1], &topn[k], sizeof(int) * (size_t)(9 - k));
                memmove(&topname[k + 1], &topname[k], sizeof(topname[0]) * (size_t)(9 - k));
                topn[k] = p;
                snprintf(topname[k], 64, "%s", name);
                break;
            }
    }
    if (ferror(in)) die("fscanf", csv);
    fclose(in);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    for (int k = 0; k < 10; k++) fprintf(f, "%2d. %-32s %6d\n", k + 1, topname[k], topn[k]);
    if (fclose(f) != 0) die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char mbox[4096], path[4096], csv[4096];
    snprintf(mbox, sizeof mbox, "%s/devel.mbox", argv[1]);
    m = calloc(NMSG, sizeof *m);
    if (!m) die("calloc", "");
    generate_archive(mbox);
    parse_archive(mbox);
    link_threads();
    int nthreads, largest;
    snprintf(path, sizeof path, "%s/thread_digest.txt", argv[1]);
    write_thread_digest(path, &nthreads, &largest);
    snprintf(csv, sizeof csv, "%s/authors.csv", argv[1]);
    write_author_csv(csv);
    write_monthly(argv[1]);
    snprintf(path, sizeof path, "%s/terms_by_year.txt", argv[1]);
    write_terms(path);
    int years = split_by_year(mbox, argv[1]);
    snprintf(path, sizeof path, "%s/top_posters.txt", argv[1]);
    top_posters(csv, path);
    int orphans = 0;
    for (int i = 0; i < nmsg; i++) if (m[i].parent_id[0] && m[i].parent < 0) orphans++;
    printf("%d messages, %d threads (largest %d), %d orphans, %d yearly archives\n", nmsg, nthreads, largest,
           orphans, years);
    free(m);
    return 0;
}
