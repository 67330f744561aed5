/*
 * patch_diff_apply.c
 *
 * A miniature version-control workflow.  A synthetic source file is
 * evolved through a chain of revisions (random line deletions, edits and
 * block insertions).  Each consecutive pair is diffed with the Myers O(ND)
 * algorithm, the result is written as a unified diff, the patch is parsed
 * and applied to the older revision through a mkstemp() temporary that is
 * renamed into place, and the result is verified byte-for-byte (CRC32 and
 * block comparison) against the real revision.  Line provenance ("blame")
 * is tracked through the chain and written at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE_LINES 34000
#define N_REVISIONS 9
#define CONTEXT 3

enum { OP_EQ = 0, OP_DEL = 1, OP_INS = 2 };

typedef struct {
    char *buf;      /* whole file contents */
    size_t size;
    char **line;    /* pointers into buf (NUL-terminated, newline stripped) */
    uint32_t *id;   /* interned line identities */
    int n;
} text_t;

typedef struct {
    unsigned char op;
    int a, b;
} edit_t;

/* ------------------------------------------------------------------ */
static uint64_t rs = 88172645463325252ULL;
static uint32_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint32_t)(rs >> 32);
}

static void fail(const char *msg, const char *path)
{
    fprintf(stderr, "patch_diff_apply: %s %s: %s\n", msg, path, strerror(errno));
    exit(1);
}

static const char *idents[] = {"count", "offset", "buffer", "state", "index", "value", "result", "node",
                               "flags", "limit", "cursor", "weight", "delta", "scale", "handle", "total"};
static const char *funcs[] = {"compute", "update", "lookup", "flush", "merge", "resize", "encode", "hash"};

static void random_code_line(char *out, size_t cap, int depth)
{
    int kind = (int)(rnd() % 10);
    char ind[64];
    int d = depth % 6;
    memset(ind, ' ', (size_t)(4 * d));
    ind[4 * d] = 0;
    const char *a = idents[rnd() % 16], *b = idents[rnd() % 16], *f = funcs[rnd() % 8];
    unsigned v = rnd() % 1000;
    switch (kind) {
    case 0: snprintf(out, cap, "%s", ""); break;
    case 1: snprintf(out, cap, "%s}", ind); break;
    case 2: snprintf(out, cap, "%sif (%s_%u > %s) {", ind, a, v % 7, b); break;
    case 3: snprintf(out, cap, "%sfor (int i = 0; i < %s; i++) {", ind, a); break;
    case 4: snprintf(out, cap, "%s/* %s the %s before %s */", ind, f, a, b); break;
    default: snprintf(out, cap, "%s%s_%u = %s(%s, %u);", ind, a, v % 13, f, b, v); break;
    }
}

/* Write the initial revision with buffered stdio. */
static void generate_base(const char *path, int nlines)
{
    FILE *f = fopen(path, "w");
    if (!f) fail("fopen", path);
    char line[256];
    for (int i = 0; i < nlines; i++) {
        random_code_line(line, sizeof line, (i / 7) % 5 + 1);
        fputs(line, f);
        fputc('\n', f);
    }
    fclose(f);
}

/* Derive the next revision by streaming the previous one line by line. */
static void make_revision(const char *src, const char *dst, int rev)
{
    FILE *in = fopen(src, "r");
    if (!in) fail("fopen", src);
    FILE *out = fopen(dst, "w");
    if (!out) fail("fopen", dst);
    char line[4096], nl[256];
    rs ^= (uint64_t)rev * 0x9E3779B97F4A7C15ULL;
    while (fgets(line, sizeof line, in)) {
        uint32_t r = rnd() % 1000;
        if (r < 8) continue; /* delete */
        if (r < 16) {        /* modify */
            random_code_line(nl, sizeof nl, (int)(rnd() % 4) + 1);
            fprintf(out, "%s\n", nl);
            continue;
        }
        fputs(line, out);
        if (r < 22) { /* insert a block after */
            int k = 1 + (int)(rnd() % 5);
            for (int j = 0; j < k; j++) {
                random_code_line(nl, sizeof nl, 2);
                fprintf(out, "%s  // r%d\n", nl, rev);
            }
        }
    }
    fclose(in);
    fclose(out);
}

/* ------------------------------------------------------------------ */
/* Line interning: open-addressed hash table of line strings -> ids.    */
typedef struct {
    uint64_t *hash;
    const char **str;
    uint32_t *id;
    size_t cap;
    uint32_t next;
} intern_t;

static intern_t itab;

static uint32_t intern_line(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = s; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    size_t m = itab.cap - 1, i = (size_t)h & m;
    while (itab.str[i]) {
        if (itab.hash[i] == h && strcmp(itab.str[i], s) == 0) return itab.id[i];
        i = (i + 1) & m;
    }
    itab.hash[i] = h;
    itab.str[i] = strdup(s); /* text buffers are freed between revisions */
    itab.id[i] = itab.next++;
    return itab.id[i];
}

static void load_text(const char *path, text_t *t)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) fail("open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) fail("fstat", path);
    t->size = (size_t)st.st_size;
    t->buf = malloc(t->size + 1);
    size_t got = 0;
    while (got < t->size) {
        ssize_t r = read(fd, t->buf + got, t->size - got);
        if (r <= 0) fail("read", path);
        got += (size_t)r;
    }
    close(fd);
    t->buf[t->size] = 0;
    int n = 0;
    for (size_t i = 0; i < t->size; i++)
        if (t->buf[i] == '\n') n++;
    t->line = malloc((size_t)(n + 1) * sizeof(char *));
    t->id = malloc((size_t)(n + 1) * sizeof(uint32_t));
    t->n = 0;
    char *p = t->buf;
    while (*p) {
        char *e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        int last = (*e == 0);
        *e = 0;
        t->line[t->n] = p;
        t->id[t->n] = intern_line(p);
        t->n++;
        if (last) break;
        p = e + 1;
    }
}

static void free_text(text_t *t)
{
    free(t->buf);
    free(t->line);
    free(t->id);
}

/* ------------------------------------------------------------------ */
/* Myers greedy O((N+M)D) diff with per-step trace for backtracking.    */
static edit_t *myers_diff(const uint32_t *a, int n, const uint32_t *b, int m, int *nops, int *dist)
{
    int max = n + m;
    int *v = malloc((size_t)(2 * max + 3) * sizeof(int));
    int **trace = malloc((size_t)(max + 1) * sizeof(int *));
    int off = max + 1;
    v[off + 1] = 0;
    int D = -1;
    for (int d = 0; d <= max && D < 0; d++) {
        for (int k = -d; k <= d; k += 2) {
            int x;
            if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) x = v[off + k + 1];
            else x = v[off + k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                x++;
                y++;
            }
            v[off + k] = x;
            if (x >= n && y >= m) D = d;
        }
        trace[d] = malloc((size_t)(d + 1) * sizeof(int));
        for (int k = -d; k <= d; k += 2) trace[d][(k + d) / 2] = v[off + k];
    }
    /* backtrack */
    edit_t *ops = malloc((size_t)(n + m + 1) * sizeof(edit_t));
    int no = 0, x = n, y = m;
    for (int d = D; d > 0; d--) {
        int k = x - y;
        int pk;
        const int *pv = trace[d - 1];
        if (k == -d || (k != d && pv[(k - 1 + d - 1) / 2] < pv[(k + 1 + d - 1) / 2])) pk = k + 1;
        else pk = k - 1;
        int px = pv[(pk + d - 1) / 2];
        int py = px - pk;
        while (x > px && y > py) {
            x--; y--;
            ops[no++] = (edit_t){OP_EQ, x, y};
        }
        if (x == px) { y--; ops[no++] = (edit_t){OP_INS, x, y}; }
        else { x--; ops[no++] = (edit_t){OP_DEL, x, y}; }
    }
    while (x > 0 && y > 0) {
        x--; y--;
        ops[no++] = (edit_t){OP_EQ, x, y};
    }
    for (int i = 0; i < no / 2; i++) {
        edit_t t = ops[i];
        ops[i] = ops[no - 1 - i];
        ops[no - 1 - i] = t;
    }
    for (int d = 0; d <= D; d++) free(trace[d]);
    free(trace);
    free(v);
    *nops = no;
    *dist = D;
    return ops;
}

/* ------------------------------------------------------------------ */
static int write_unified_patch(const char *path, const char *an, const char *bn, const text_t *A,
                               const text_t *B, const edit_t *ops, int no)
{
    FILE *f = fopen(path, "w");
    if (!f) fail("fopen", path);
    fprintf(f, "--- %s\n+++ %s\n", an, bn);
    int hunks = 0, i = 0;
    while (i < no) {
        while (i < no && ops[i].op == OP_EQ) i++;
        if (i >= no) break;
        int start = i - CONTEXT < 0 ? 0 : i - CONTEXT;
        /* extend the hunk while the gap of equal lines is small */
        int end = i, eq = 0;
        for (int j = i; j < no; j++) {
            if (ops[j].op == OP_EQ) {
                if (++eq > 2 * CONTEXT) break;
            } else {
                eq = 0;
                end = j;
            }
        }
        int stop = end + CONTEXT + 1 > no ? no : end + CONTEXT + 1;
        int as = ops[start].a, bs = ops[start].b, al = 0, bl = 0;
        for (int j = start; j < stop; j++) {
            if (ops[j].op != OP_INS) al++;
            if (ops[j].op != OP_DEL) bl++;
        }
        fprintf(f, "@@ -%d,%d +%d,%d @@\n", as + 1, al, bs + 1, bl);
        for (int j = start; j < stop; j++) {
            if (ops[j].op == OP_EQ) fprintf(f, " %s\n", A->line[ops[j].a]);
            else if (ops[j].op == OP_DEL) fprintf(f, "-%s\n", A->line[ops[j].a]);
            else fprintf(f, "+%s\n", B->line[ops[j].b]);
        }
        hunks++;
        i = stop;
    }
    fclose(f);
    return hunks;
}

/* Apply a unified diff to `base`, writing into a temp file in `dir` that
 * is atomically renamed to `dst`. */
static void apply_patch(const char *dir, const text_t *base, const char *patch, const char *dst)
{
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/.apply.XXXXXX", dir);
    int fd = mkstemp(tmpl);
    if (fd < 0) fail("mkstemp", tmpl);
    FILE *out = fdopen(fd, "w");
    static char obuf[1 << 16];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    FILE *p = fopen(patch, "r");
    if (!p) fail("fopen", patch);
    char line[4096];
    int cur = 0; /* next base line (0-based) */
    while (fgets(line, sizeof line, p)) {
        if (!strncmp(line, "---", 3) || !strncmp(line, "+++", 3)) continue;
        if (!strncmp(line, "@@", 2)) {
            int as, al, bs, bl;
            if (sscanf(line, "@@ -%d,%d +%d,%d @@", &as, &al, &bs, &bl) != 4) {
                fprintf(stderr, "bad hunk header\n");
                exit(4);
            }
            while (cur < as - 1) fprintf(out, "%s\n", base->line[cur++]);
            continue;
        }
        size_t L = strlen(line);
        if (L && line[L - 1] == '\n') line[--L] = 0;
        if (line[0] == ' ' || line[0] == '-') {
            if (cur >= base->n || strcmp(base->line[cur], line + 1) != 0) {
                fprintf(stderr, "patch context mismatch at base line %d\n", cur + 1);
                exit(5);
            }
            if (line[0] == ' ') fprintf(out, "%s\n", base->line[cur]);
            cur++;
        } else if (line[0] == '+') {
            fprintf(out, "%s\n", line + 1);
        }
    }
    while (cur < base->n) fprintf(out, "%s\n", base->line[cur++]);
    fclose(p);
    if (fflush(out) != 0) fail("fflush", tmpl);
    fclose(out);
    if (rename(tmpl, dst) != 0) fail("rename", dst);
}

static uint32_t crc_table[256];
static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

/* Stream both files in 64 KiB blocks, compare and checksum. */
static int verify_same(const char *p1, const char *p2, uint32_t *crc_out)
{
    FILE *f1 = fopen(p1, "rb"), *f2 = fopen(p2, "rb");
    if (!f1) fail("fopen", p1);
    if (!f2) fail("fopen", p2);
    static unsigned char b1[65536], b2[65536];
    uint32_t crc = 0xFFFFFFFFu;
    int same = 1;
    for (;;) {
        size_t n1 = fread(b1, 1, sizeof b1, f1);
        size_t n2 = fread(b2, 1, sizeof b2, f2);
        if (n1 != n2 || memcmp(b1, b2, n1) != 0) same = 0;
        for (size_t i = 0; i < n1; i++) crc = crc_table[(crc ^ b1[i]) & 0xFF] ^ (crc >> 8);
        if (n1 == 0 || n2 == 0) break;
    }
    fclose(f1);
    fclose(f2);
    *crc_out = crc ^ 0xFFFFFFFFu;
    return same;
}

/* Edit distance between every pair of revisions at most MAX_SPAN apart,
 * reloading each revision from disk; written as a small matrix. */
#define MAX_SPAN 3
static void revision_distance_matrix(const char *dir, const char *out_path)
{
    char p[4096];
    text_t T[N_REVISIONS + 1];
    for (int r = 0; r <= N_REVISIONS; r++) {
        snprintf(p, sizeof p, "%s/rev%02d.src", dir, r);
        load_text(p, &T[r]);
    }
    FILE *f = fopen(out_path, "w");
    if (!f) fail("fopen", out_path);
    fprintf(f, "# Myers edit distance (lines) between revisions\n     ");
    for (int j = 0; j <= N_REVISIONS; j++) fprintf(f, " %7s%02d", "r", j);
    fputc('\n', f);
    for (int i = 0; i <= N_REVISIONS; i++) {
        fprintf(f, "r%02d  ", i);
        for (int j = 0; j <= N_REVISIONS; j++) {
            int d = -1;
            if (i == j) d = 0;
            else if (abs(i - j) <= MAX_SPAN) {
                int no;
                edit_t *ops = myers_diff(T[i].id, T[i].n, T[j].id, T[j].n, &no, &d);
                free(ops);
            }
            fprintf(f, " %9d", d);
        }
        fputc('\n', f);
    }
    fclose(f);
    for (int r = 0; r <= N_REVISIONS; r++) free_text(&T[r]);
}

static void write_blame(const char *path, const text_t *T, const int *origin)
{
    FILE *f = fopen(path, "w");
    if (!f) fail("fopen", path);
    for (int i = 0; i < T->n; i++) fprintf(f, "r%-3d %6d| %s\n", origin[i], i + 1, T->line[i]);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    const char *dir = argv[1];
    char pa[4096], pb[4096], pp[4096], pc[4096], log[4096];
    crc_init();
    itab.cap = 1u << 20;
    itab.hash = calloc(itab.cap, sizeof(uint64_t));
    itab.str = calloc(itab.cap, sizeof(char *));
    itab.id = calloc(itab.cap, sizeof(uint32_t));

    snprintf(pa, sizeof pa, "%s/rev00.src", dir);
    generate_base(pa, BASE_LINES);
    for (int r = 1; r <= N_REVISIONS; r++) {
        snprintf(pa, sizeof pa, "%s/rev%02d.src", dir, r - 1);
        snprintf(pb, sizeof pb, "%s/rev%02d.src", dir, r);
        make_revision(pa, pb, r);
    }

    snprintf(log, sizeof log, "%s/history.log", dir);
    FILE *lg = fopen(log, "w");
    if (!lg) fail("fopen", log);

    text_t A, B;
    snprintf(pa, sizeof pa, "%s/rev00.src", dir);
    load_text(pa, &A);
    int *origin = malloc((size_t)A.n * sizeof(int));
    for (int i = 0; i < A.n; i++) origin[i] = 0;

    int failures = 0;
    for (int r = 1; r <= N_REVISIONS; r++) {
        snprintf(pa, sizeof pa, "%s/rev%02d.src", dir, r - 1);
        snprintf(pb, sizeof pb, "%s/rev%02d.src", dir, r);
        snprintf(pp, sizeof pp, "%s/rev%02d.patch", dir, r);
        snprintf(pc, sizeof pc, "%s/rev%02d.applied", dir, r);
        load_text(pb, &B);
        int no, D;
        edit_t *ops = myers_diff(A.id, A.n, B.id, B.n, &no, &D);
        char an[64], bn[64];
        snprintf(an, sizeof an, "a/rev%02d.src", r - 1);
        snprintf(bn, sizeof bn, "b/rev%02d.src", r);
        int hunks = write_unified_patch(pp, an, bn, &A, &B, ops, no);
        apply_patch(dir, &A, pp, pc);
        uint32_t crc;
        int ok = verify_same(pc, pb, &crc);
        if (!ok) failures++;

        int *norigin = malloc((size_t)B.n * sizeof(int));
        int ins = 0, del = 0;
        for (int j = 0; j < no; j++) {
            if (ops[j].op == OP_EQ) norigin[ops[j].b] = origin[ops[j].a];
            else if (ops[j].op == OP_INS) { norigin[ops[j].b] = r; ins++; }
            else del++;
        }
        free(origin);
        origin = norigin;
        fprintf(lg, "r%02d lines=%d D=%d +%d -%d hunks=%d crc=%08x %s\n", r, B.n, D, ins, del, hunks,
                crc, ok ? "OK" : "MISMATCH");
        fflush(lg);
        free(ops);
        free_text(&A);
        A = B;
    }
    snprintf(pp, sizeof pp, "%s/blame.txt", dir);
    write_blame(pp, &A, origin);
    fclose(lg);
    snprintf(pp, sizeof pp, "%s/distance_matrix.txt", dir);
    revision_distance_matrix(dir, pp);
    printf("%d revisions, %d verification failures, final %d lines, %u distinct lines\n", N_REVISIONS,
           failures, A.n, itab.next);
    free(origin);
    free_text(&A);
    return failures ? 6 : 0;
}
