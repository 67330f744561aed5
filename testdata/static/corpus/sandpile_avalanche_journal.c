/* Abelian sandpile (BTW model) driven by random grain drops.
 * Every avalanche is journaled as a text line; the grid is checkpointed
 * into a rotating set of binary files; the run is then restarted from the
 * newest checkpoint, and finally the journal is re-read to fit the
 * avalanche-size power law. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define GRID_N        128
#define TOTAL_DROPS   150000
#define CKPT_EVERY    1000
#define CKPT_SLOTS    3
#define JOURNAL_FLUSH 64
#define HIST_BINS     40

typedef struct {
    uint32_t magic;
    uint32_t n;
    uint64_t drops_done;
    uint64_t rng_state;
    uint64_t total_topples;
    uint32_t checksum;
    uint32_t pad;
} ckpt_header_t;

typedef struct {
    int n;
    uint8_t *h;
    int *stack;
    uint64_t rng;
    uint64_t drops_done;
    uint64_t total_topples;
} sandpile_t;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint32_t grid_checksum(const uint8_t *h, size_t count)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < count; i++) {
        a = (a + h[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

static void pile_init(sandpile_t *p, int n, uint64_t seed)
{
    p->n = n;
    p->h = calloc((size_t)n * n, 1);
    p->stack = malloc(sizeof(int) * (size_t)n * n * 4);
    p->rng = seed;
    p->drops_done = 0;
    p->total_topples = 0;
}

/* relax the pile after a drop at idx; returns number of topplings,
 * stores number of distinct sites touched in *area */
static long relax(sandpile_t *p, int idx, int *area, uint8_t *touched, int *tlist)
{
    int n = p->n, sp = 0;
    long topples = 0;
    int a = 0;
    p->stack[sp++] = idx;
    while (sp > 0) {
        int c = p->stack[--sp];
        if (p->h[c] < 4) continue;
        int k = p->h[c] / 4;
        p->h[c] -= (uint8_t)(4 * k);
        topples += k;
        if (!touched[c]) { touched[c] = 1; tlist[a++] = c; }
        int i = c / n, j = c % n;
        int nb[4] = { i > 0 ? c - n : -1, i < n - 1 ? c + n : -1,
                      j > 0 ? c - 1 : -1, j < n - 1 ? c + 1 : -1 };
        for (int q = 0; q < 4; q++) {
            if (nb[q] < 0) continue;          /* grains fall off the edge */
            p->h[nb[q]] += (uint8_t)k;
            if (p->h[nb[q]] >= 4) p->stack[sp++] = nb[q];
        }
    }
    for (int q = 0; q < a; q++) touched[tlist[q]] = 0;
    *area = a;
    return topples;
}

static void write_checkpoint(const char *dir, int slot, const sandpile_t *p)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pile_ckpt_%d.bin", dir, slot);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    ckpt_header_t hd;
    memset(&hd, 0, sizeof hd);
    hd.magic = 0x53414E44u;
    hd.n = (uint32_t)p->n;
    hd.drops_done = p->drops_done;
    hd.rng_state = p->rng;
    hd.total_topples = p->total_topples;
    hd.checksum = grid_checksum(p->h, (size_t)p->n * p->n);
    fwrite(&hd, sizeof hd, 1, f);
    /* one row at a time, as a real code dumping a 2D array would */
    for (int i = 0; i < p->n; i++)
        fwrite(p->h + (size_t)i * p->n, 1, (size_t)p->n, f);
    fclose(f);
}

static int read_checkpoint(const char *dir, int slot, sandpile_t *p)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pile_ckpt_%d.bin", dir, slot);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    ckpt_header_t hd;
    if (fread(&hd, sizeof hd, 1, f) != 1 || hd.magic != 0x53414E44u) { fclose(f); return -1; }
    if ((int)hd.n != p->n) { fclose(f); return -1; }
    size_t got = fread(p->h, 1, (size_t)p->n * p->n, f);
    fclose(f);
    if (got != (size_t)p->n * p->n) return -1;
    if (grid_checksum(p->h, got) != hd.checksum) return -2;
    p->drops_done = hd.drops_done;
    p->rng = hd.rng_state;
    p->total_topples = hd.total_topples;
    return 0;
}

/* drive the pile; each avalanche gets a journal line */
static void drive(sandpile_t *p, uint64_t ndrops, FILE *journal, const char *dir)
{
    uint8_t *touched = calloc((size_t)p->n * p->n, 1);
    int *tlist = malloc(sizeof(int) * (size_t)p->n * p->n);
    int slot = 0;
    for (uint64_t d = 0; d < ndrops; d++) {
        int idx = (int)(rng_next(&p->rng) % (uint64_t)(p->n * p->n));
        p->h[idx]++;
        int area = 0;
        long t = 0;
        if (p->h[idx] >= 4) t = relax(p, idx, &area, touched, tlist);
        p->total_topples += (uint64_t)t;
        p->drops_done++;
        if (t > 0) {
            fprintf(journal, "%llu %d %ld %d\n",
                    (unsigned long long)p->drops_done, idx, t, area);
            if (p->drops_done % JOURNAL_FLUSH == 0) fflush(journal);
        }
        if (journal && p->drops_done % CKPT_EVERY == 0) {
            write_checkpoint(dir, slot, p);
            slot = (slot + 1) % CKPT_SLOTS;
        }
    }
    free(touched);
    free(tlist);
}

static int newest_slot(const char *dir, int n)
{
    sandpile_t tmp;
    pile_init(&tmp, n, 1);
    int best = -1;
    uint64_t best_d = 0;
    for (int s = 0; s < CKPT_SLOTS; s++) {
        if (read_checkpoint(dir, s, &tmp) == 0 && tmp.drops_done >= best_d) {
            best_d = tmp.drops_done;
            best = s;
        }
    }
    free(tmp.h); free(tmp.stack);
    return best;
}

static void fit_powerlaw(const double *hist, int nb, double *slope, double *icpt)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int b = 1; b < nb; b++) {
        if (hist[b] <= 0) continue;
        double x = b * 0.25, y = log10(hist[b]);
        sx += x; sy += y; sxx += x * x; sxy += x * y; m++;
    }
    double den = m * sxx - sx * sx;
    *slope = den != 0 ? (m * sxy - sx * sy) / den : 0;
    *icpt = m ? (sy - *slope * sx) / m : 0;
}

static void analyze_journal(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/avalanche_journal.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    double hist[HIST_BINS] = {0};
    unsigned long long drop;
    int idx, area;
    long t;
    long count = 0, maxt = 0;
    while (fscanf(f, "%llu %d %ld %d", &drop, &idx, &t, &area) == 4) {
        int b = (int)(log10((double)t) / 0.25);
        if (b >= HIST_BINS) b = HIST_BINS - 1;
        hist[b] += 1.0 / (pow(10, (b + 1) * 0.25) - pow(10, b * 0.25));
        if (t > maxt) maxt = t;
        count++;
    }
    fclose(f);
    double slope, icpt;
    fit_powerlaw(hist, HIST_BINS, &slope, &icpt);
    snprintf(path, sizeof path, "%s/avalanche_stats.txt", dir);
    f = fopen(path, "w");
    fprintf(f, "# avalanches %ld max_topples %ld\n", count, maxt);
    fprintf(f, "# tau_fit %.4f intercept %.4f\n", -slope, icpt);
    for (int b = 0; b < HIST_BINS; b++)
        fprintf(f, "%8.3f %14.6e\n", b * 0.25, hist[b]);
    fclose(f);
    printf("avalanches=%ld max=%ld tau=%.3f\n", count, maxt, -slope);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    const char *dir = argv[1];
    char path[512];
    snprintf(path, sizeof path, "%s/avalanche_journal.txt", dir);
    FILE *journal = fopen(path, "w");
    if (!journal) { perror(path); return 1; }

    sandpile_t p;
    pile_init(&p, GRID_N, 0x9E3779B97F4A7C15ull);
    drive(&p, TOTAL_DROPS, journal, dir);
    uint32_t ref = grid_checksum(p.h, (size_t)GRID_N * GRID_N);

    /* restart: roll back to the newest checkpoint and replay to the end */
    sandpile_t r;
    pile_init(&r, GRID_N, 7);
    int s = newest_slot(dir, GRID_N);
    if (s < 0 || read_checkpoint(dir, s, &r) != 0) { fprintf(stderr, "no checkpoint\n"); return 1; }
    fprintf(journal, "# restart from slot %d at drop %llu\n", s, (unsigned long long)r.drops_done);
    fclose(journal);
    FILE *replay = fopen("/dev/null", "w");
    drive(&r, TOTAL_DROPS - r.drops_done, replay, dir);
    fclose(replay);
    uint32_t again = grid_checksum(r.h, (size_t)GRID_N * GRID_N);
    printf("restart %s (slot %d)\n", ref == again ? "consistent" : "MISMATCH", s);

    analyze_journal(dir);
    free(p.h); free(p.stack); free(r.h); free(r.stack);
    return ref == again ? 0 : 2;
}
