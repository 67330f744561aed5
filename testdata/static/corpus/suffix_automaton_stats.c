/* Suffix automaton text statistics. For several synthetic "books" it
 * writes chapter files, streams them back with read() until EOF into an
 * online suffix automaton, matches the previous book against it, dumps the
 * state table to a binary file with a header, reloads it and reports
 * distinct substrings, the longest repeat and frequent long substrings. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCHAP 60
#define CHAP_BYTES 6000
#define SIGMA 27
#define TOPK 20
#define MINLEN 12
#define NBOOK 7

typedef struct { int32_t len, link, endpos, cnt; } state_rec;

static int32_t *nxt;          /* [state][SIGMA] */
static state_rec *st;
static int nst, last;
static uint32_t lcg = 2463534242u;

#define RND32() (lcg ^= lcg << 13, lcg ^= lcg >> 17, lcg ^= lcg << 5, lcg)
#define bail(m, p) do { fprintf(stderr, "%s %s: %s\n", (m), (p), strerror(errno)); exit(1); } while (0)
#define SYM(ch) ((ch) == ' ' ? 26 : ((ch) >= 'a' && (ch) <= 'z') ? (ch) - 'a' : -1)

static const char *lexicon[] = {
    "the", "of", "and", "river", "stone", "light", "engine", "quiet", "under", "northern",
    "signal", "harbor", "mirror", "garden", "winter", "paper", "silver", "thread", "window",
    "salt", "orbit", "lantern", "market", "bridge", "echo", "meadow", "copper", "tide"};
#define NLEX (int)(sizeof lexicon / sizeof lexicon[0])

/* first-order word Markov chain via a small fixed transition bias */
static void write_chapters(const char *dir, int book)
{
    char path[4096], buf[CHAP_BYTES + 64];
    int prev = 0, stride = 3 + 2 * book;
    for (int c = 0; c < NCHAP; c++) {
        int n = 0;
        while (n < CHAP_BYTES) {
            int w = (RND32() % 4 == 0) ? (int)(RND32() % NLEX) : (prev * stride + 1 + book + (int)(RND32() % 3)) % NLEX;
            int l = (int)strlen(lexicon[w]);
            if (n + l + 1 > CHAP_BYTES) break;
            memcpy(buf + n, lexicon[w], l);
            n += l;
            buf[n++] = ' ';
            prev = w;
        }
        snprintf(path, sizeof path, "%s/book%d/ch%03d.txt", dir, book, c);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) bail("open", path);
        for (int off = 0; off < n; off += 512) {     /* sector-sized writes */
            int len = n - off < 512 ? n - off : 512;
            if (write(fd, buf + off, len) != len) bail("write", path);
        }
        if (close(fd)) bail("close", path);
    }
}

/* feed a chunk of raw bytes to the automaton; copies kept chars to text */
static long sam_extend(const char *buf, long n, char *text, long pos)
{
    for (long i = 0; i < n; i++) {
        int c = SYM(buf[i]);
        if (c < 0) continue;
        text[pos] = buf[i];
        int cur = nst++;
        st[cur] = (state_rec){st[last].len + 1, 0, (int32_t)pos++, 1};
        memset(nxt + (size_t)cur * SIGMA, -1, sizeof(int32_t) * SIGMA);
        int p = last;
        while (p != -1 && nxt[(size_t)p * SIGMA + c] == -1) {
            nxt[(size_t)p * SIGMA + c] = cur;
            p = st[p].link;
        }
        if (p != -1) {
            int q = nxt[(size_t)p * SIGMA + c];
            if (st[p].len + 1 == st[q].len) st[cur].link = q;
            else {
                int cl = nst++;
                st[cl] = (state_rec){st[p].len + 1, st[q].link, st[q].endpos, 0};
                memcpy(nxt + (size_t)cl * SIGMA, nxt + (size_t)q * SIGMA, sizeof(int32_t) * SIGMA);
                while (p != -1 && nxt[(size_t)p * SIGMA + c] == q) {
                    nxt[(size_t)p * SIGMA + c] = cl;
                    p = st[p].link;
                }
                st[q].link = st[cur].link = cl;
            }
        }
        last = cur;
    }
    return pos;
}

/* stream all chapters back, keep a copy of the text for reporting */
static long ingest(const char *dir, int book, char *text)
{
    char path[4096], chunk[4096];
    long pos = 0;
    for (int c = 0; c < NCHAP; c++) {
        snprintf(path, sizeof path, "%s/book%d/ch%03d.txt", dir, book, c);
        int fd = open(path, O_RDONLY);
        if (fd < 0) bail("open", path);
        ssize_t got;
        while ((got = read(fd, chunk, sizeof chunk)) > 0)
            pos = sam_extend(chunk, got, text, pos);
        if (got < 0) bail("read", path);
        close(fd);
    }
    return pos;
}

/* matching statistics of another book's chapters against the current
 * automaton: mean longest match length, streamed with small reads */
static double cross_match(const char *dir, int book)
{
    char path[4096], chunk[1024];
    long total = 0, npos = 0;
    for (int c = 0; c < NCHAP; c++) {
        snprintf(path, sizeof path, "%s/book%d/ch%03d.txt", dir, book, c);
        FILE *f = fopen(path, "r");
        if (!f) bail("fopen", path);
        int v = 0, l = 0;
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            for (size_t i = 0; i < got; i++) {
                int s = SYM(chunk[i]);
                if (s < 0) continue;
                while (v && nxt[(size_t)v * SIGMA + s] == -1) { v = st[v].link; l = st[v].len; }
                if (nxt[(size_t)v * SIGMA + s] != -1) { v = nxt[(size_t)v * SIGMA + s]; l++; }
                total += l;
                npos++;
            }
        if (ferror(f)) bail("fread", path);
        fclose(f);
    }
    return npos ? (double)total / npos : 0.0;
}

/* propagate endpos counts along suffix links in decreasing len order */
static void count_occurrences(state_rec *s, int n, long maxlen)
{
    int *bucket = calloc(maxlen + 2, sizeof(int)), *order = malloc(sizeof(int) * n);
    if (!bucket || !order) exit(1);
    for (int i = 0; i < n; i++) bucket[s[i].len]++;
    for (long l = 1; l <= maxlen; l++) bucket[l] += bucket[l - 1];
    for (int i = n - 1; i >= 0; i--) order[--bucket[s[i].len]] = i;
    for (int i = n - 1; i > 0; i--) {
        int v = order[i];
        if (s[v].link >= 0) s[s[v].link].cnt += s[v].cnt;
    }
    free(bucket); free(order);
}

static void dump_states(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) bail("fopen", path);
    int64_t hdr[3] = {0x53414d31, nst, (int64_t)sizeof(state_rec)};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) bail("fwrite", path);
    if (fwrite(st, sizeof(state_rec), nst, f) != (size_t)nst) bail("fwrite", path);
    if (fclose(f)) bail("fclose", path);
}

static state_rec *load_states(const char *path, int *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) bail("fopen", path);
    int64_t hdr[3];
    if (fread(hdr, sizeof hdr, 1, f) != 1 || hdr[0] != 0x53414d31 || hdr[2] != sizeof(state_rec))
        bail("header", path);
    state_rec *s = malloc(sizeof(state_rec) * hdr[1]);
    if (!s) exit(1);
    if (fread(s, sizeof(state_rec), hdr[1], f) != (size_t)hdr[1]) bail("fread", path);
    fclose(f);
    *n = (int)hdr[1];
    return s;
}

static void report(FILE *f, int book, double xm, const state_rec *s, int n, const char *text)
{
    long long distinct = 0;
    int best = 0, top[TOPK];
    for (int k = 0; k < TOPK; k++) top[k] = -1;
    for (int i = 1; i < n; i++) {
        distinct += s[i].len - s[s[i].link].len;
        if (s[i].cnt >= 2 && s[i].len > s[best].len) best = i;
        if (s[i].len < MINLEN) continue;
        /* insertion into small top-k by count */
        int k = TOPK - 1;
        if (top[k] >= 0 && s[top[k]].cnt >= s[i].cnt) continue;
        while (k > 0 && (top[k - 1] < 0 || s[top[k - 1]].cnt < s[i].cnt)) { top[k] = top[k - 1]; k--; }
        top[k] = i;
    }
    fprintf(f, "book %d states %d distinct_substrings %lld mean_match_prev %.3f\n", book, n,
            distinct, xm);
    fprintf(f, "longest_repeat_len %d : \"%.*s\"\n", s[best].len, s[best].len > 80 ? 80 : s[best].len,
            text + s[best].endpos - s[best].len + 1);
    for (int k = 0; k < TOPK && top[k] >= 0; k++) {
        const state_rec *r = &s[top[k]];
        fprintf(f, "%6d x \"%.*s\"\n", r->cnt, MINLEN, text + r->endpos - MINLEN + 1);
    }
    printf("book %d: distinct substrings %lld, longest repeat %d, cross-match %.2f\n", book,
           distinct, s[best].len, xm);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char p[4096], ps[4096];
    mkdir(argv[1], 0755);
    long cap = (long)NCHAP * CHAP_BYTES;
    char *text = malloc(cap + 1);
    if (!text) return 1;
    snprintf(p, sizeof p, "%s/sam_report.txt", argv[1]);
    FILE *rep = fopen(p, "w");
    if (!rep) bail("fopen", p);
    for (int b = 0; b < NBOOK; b++) {
        snprintf(p, sizeof p, "%s/book%d", argv[1], b);
        if (mkdir(p, 0755) && errno != EEXIST) bail("mkdir", p);
        write_chapters(argv[1], b);
        nxt = malloc(sizeof(int32_t) * SIGMA * (size_t)(2 * cap + 2));
        st = malloc(sizeof(state_rec) * (size_t)(2 * cap + 2));
        if (!nxt || !st) return 1;
        memset(nxt, -1, sizeof(int32_t) * SIGMA);
        st[0] = (state_rec){0, -1, -1, 0};
        nst = 1;
        last = 0;
        long n = ingest(argv[1], b, text);
        double xm = b ? cross_match(argv[1], b - 1) : 0.0;
        count_occurrences(st, nst, n);
        snprintf(ps, sizeof ps, "%s/book%d/sam_states.bin", argv[1], b);
        dump_states(ps);
        free(nxt); free(st);
        int ns;
        state_rec *s = load_states(ps, &ns);
        report(rep, b, xm, s, ns, text);
        free(s);
    }
    if (fclose(rep)) bail("fclose", "sam_report.txt");
    free(text);
    return 0;
}
