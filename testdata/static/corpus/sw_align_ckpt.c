/*
 * Smith-Waterman local alignment with affine gaps (Gotoh), linear memory.
 *
 * Two synthetic DNA sequences (the second a mutated copy of a window of the
 * first, with substitutions and indels) are aligned by filling the dynamic
 * programming matrix row by row, keeping only the current and previous row.
 * Every STATE_EVERY rows a tiny progress state (row, best score and its
 * position, a rolling checksum of the rows) is saved by rewriting a state
 * file with open(O_TRUNC)/write/close.  The linear-memory kernel is checked
 * against a full-matrix implementation on a prefix, and the final score and
 * end coordinates are written to a small result file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN_A 16000
#define LEN_B 16800
#define STATE_EVERY 400
#define CHECK_LEN 1200

#define MATCH 3
#define MISMATCH (-2)
#define GAP_OPEN (-5)
#define GAP_EXTEND (-1)
#define NEG_INF (-1000000)

typedef struct {
    int32_t row;
    int32_t best;
    int32_t best_i;
    int32_t best_j;
    uint64_t checksum;
} align_state_t;

static uint32_t lcg = 7u;

static uint32_t next_rand(void)
{
    lcg = lcg * 1103515245u + 12345u;
    return (lcg >> 8) & 0xffffff;
}

static void make_sequences(char *a, char *b, int *lb)
{
    static const char base[4] = {'A', 'C', 'G', 'T'};
    for (int i = 0; i < LEN_A; i++) a[i] = base[next_rand() % 4];
    /* b: mutated copy of a window of a, padded with random flanks */
    int n = 0;
    for (int k = 0; k < 800; k++) b[n++] = base[next_rand() % 4];
    for (int i = 1000; i < LEN_A - 500 && n < LEN_B - 800; i++) {
        uint32_t r = next_rand() % 100;
        if (r < 8) b[n++] = base[next_rand() % 4];           /* substitution */
        else if (r < 10) { /* deletion */ }
        else if (r < 12) { b[n++] = base[next_rand() % 4]; b[n++] = a[i]; } /* insertion */
        else b[n++] = a[i];
    }
    while (n < LEN_B) b[n++] = base[next_rand() % 4];
    *lb = n;
}

static int save_state(const char *path, const align_state_t *st)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    ssize_t w = write(fd, st, sizeof *st);
    if (close(fd) != 0 || w != (ssize_t)sizeof *st) return -1;
    return 0;
}

static int load_state(const char *path, align_state_t *st)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t r = read(fd, st, sizeof *st);
    close(fd);
    return r == (ssize_t)sizeof *st ? 0 : -1;
}

/* Linear-memory Gotoh local alignment; optionally saves progress states. */
static int align_linear(const char *a, int la, const char *b, int lb, const char *state_path,
                        align_state_t *out, int *nsaves)
{
    int32_t *H = malloc(sizeof(int32_t) * (lb + 1)), *Hp = malloc(sizeof(int32_t) * (lb + 1));
    int32_t *E = malloc(sizeof(int32_t) * (lb + 1));
    align_state_t st = {0, 0, 0, 0, 0};
    for (int j = 0; j <= lb; j++) { Hp[j] = 0; E[j] = NEG_INF; }
    *nsaves = 0;
    for (int i = 1; i <= la; i++) {
        int32_t F = NEG_INF;
        H[0] = 0;
        char ai = a[i - 1];
        uint64_t rowsum = 0;
        for (int j = 1; j <= lb; j++) {
            int32_t e = E[j] + GAP_EXTEND, eo = Hp[j] + GAP_OPEN;
            E[j] = e > eo ? e : eo;
            int32_t f = F + GAP_EXTEND, fo = H[j - 1] + GAP_OPEN;
            F = f > fo ? f : fo;
            int32_t h = Hp[j - 1] + (ai == b[j - 1] ? MATCH : MISMATCH);
            if (E[j] > h) h = E[j];
            if (F > h) h = F;
            if (h < 0) h = 0;
            H[j] = h;
            rowsum += (uint64_t)h;
            if (h > st.best) { st.best = h; st.best_i = i; st.best_j = j; }
        }
        st.checksum = st.checksum * 1000003ULL + rowsum;
        st.row = i;
        int32_t *t = H; H = Hp; Hp = t;
        if (state_path && i % STATE_EVERY == 0) {
            if (save_state(state_path, &st) != 0) { free(H); free(Hp); free(E); return -1; }
            (*nsaves)++;
        }
    }
    *out = st;
    free(H); free(Hp); free(E);
    return 0;
}

/* Straightforward full-matrix version for cross-checking on a prefix. */
static int align_full(const char *a, int la, const char *b, int lb, int *bi, int *bj)
{
    size_t w = (size_t)lb + 1;
    int32_t *H = calloc((size_t)(la + 1) * w, sizeof(int32_t));
    int32_t *E = malloc((size_t)(la + 1) * w * sizeof(int32_t));
    int32_t *F = malloc((size_t)(la + 1) * w * sizeof(int32_t));
    int best = 0;
    *bi = *bj = 0;
    for (size_t k = 0; k < (size_t)(la + 1) * w; k++) E[k] = F[k] = NEG_INF;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            size_t c = (size_t)i * w + j, up = c - w, left = c - 1, diag = up - 1;
            int32_t e1 = E[up] + GAP_EXTEND, e2 = H[up] + GAP_OPEN;
            E[c] = e1 > e2 ? e1 : e2;
            int32_t f1 = F[left] + GAP_EXTEND, f2 = H[left] + GAP_OPEN;
            F[c] = f1 > f2 ? f1 : f2;
            int32_t h = H[diag] + (a[i - 1] == b[j - 1] ? MATCH : MISMATCH);
            if (E[c] > h) h = E[c];
            if (F[c] > h) h = F[c];
            if (h < 0) h = 0;
            H[c] = h;
            if (h > best) { best = h; *bi = i; *bj = j; }
        }
    free(H); free(E); free(F);
    return best;
}

static int write_result(const char *path, const align_state_t *st, int la, int lb)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "len_a %d\nlen_b %d\nscore %d\nend_a %d\nend_b %d\nchecksum %llu\n", la, lb, st->best,
            st->best_i, st->best_j, (unsigned long long)st->checksum);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char state_path[4096], result_path[4096];
    snprintf(state_path, sizeof state_path, "%s/align.state", argv[1]);
    snprintf(result_path, sizeof result_path, "%s/align_result.txt", argv[1]);

    char *a = malloc(LEN_A), *b = malloc(LEN_B + 4);
    int lb;
    make_sequences(a, b, &lb);

    /* cross-check the linear kernel on prefixes */
    align_state_t small;
    int dummy, fi, fj;
    if (align_linear(a + 1000, CHECK_LEN, b + 800, CHECK_LEN, NULL, &small, &dummy) != 0) return 1;
    int full = align_full(a + 1000, CHECK_LEN, b + 800, CHECK_LEN, &fi, &fj);
    if (full != small.best || fi != small.best_i || fj != small.best_j) {
        fprintf(stderr, "kernel mismatch: full %d (%d,%d) linear %d (%d,%d)\n", full, fi, fj, small.best,
                small.best_i, small.best_j);
        return 1;
    }

    align_state_t fin, saved;
    int nsaves = 0;
    if (align_linear(a, LEN_A, b, lb, state_path, &fin, &nsaves) != 0) { perror("state"); return 1; }
    if (load_state(state_path, &saved) != 0) { fprintf(stderr, "cannot read state\n"); return 1; }
    int last_saved_row = (LEN_A / STATE_EVERY) * STATE_EVERY;
    if (saved.row != last_saved_row || saved.best > fin.best) {
        fprintf(stderr, "saved state inconsistent: row %d best %d\n", saved.row, saved.best);
        return 1;
    }
    if (write_result(result_path, &fin, LEN_A, lb) != 0) return 1;
    printf("sw_align_ckpt: %dx%d score %d ending at (%d,%d), %d state saves, prefix check %d\n", LEN_A, lb,
           fin.best, fin.best_i, fin.best_j, nsaves, full);
    /* the mutated copy covers ~14000 bases; a real alignment must score far above noise */
    return fin.best > 10000 ? 0 : 1;
}
