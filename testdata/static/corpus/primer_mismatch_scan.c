/*
 * primer_mismatch_scan: in-silico PCR.  A synthetic genome is written as a
 * multi-record FASTA file (60 columns), a primer panel is written as a TSV
 * file, both are parsed back, every primer is searched on both strands
 * allowing up to 3 mismatches using a 2-bit packed sliding window, and the
 * hits are written to a TSV file that is re-read to pair forward/reverse hits
 * into predicted amplicons.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define PLEN 22
#define MAX_MM 3
#define NPRIMERS 80
#define NCONTIGS 12
#define CONTIG_LEN 160000

typedef struct { char name[32]; char seq[PLEN + 1]; double tm; double gc; } Primer;
typedef struct { char *name; char *seq; size_t len; } Contig;

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static uint64_t xorshift(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }

static void write_genome_fasta(const char *path, char *primer_src[NPRIMERS])
{
    static const char B[4] = {'A', 'C', 'G', 'T'};
    FILE *f = fopen(path, "w");
    char *buf = malloc(CONTIG_LEN + 1);
    int c, p = 0;
    if (!f) { perror(path); exit(1); }
    for (c = 0; c < NCONTIGS; c++) {
        size_t i;
        int gcbias = 30 + 5 * (c % 5);
        for (i = 0; i < CONTIG_LEN; i++) {
            int r = (int)(xorshift() % 100);
            buf[i] = r < gcbias / 2 ? 'G' : r < gcbias ? 'C' : B[(xorshift() >> 3) & 1 ? 0 : 3];
        }
        /* plant primer source sites (with occasional point mutations) */
        for (; p < NPRIMERS && p < (c + 1) * NPRIMERS / NCONTIGS; p++) {
            size_t pos = 1000 + xorshift() % (CONTIG_LEN - 5000);
            primer_src[p] = malloc(PLEN + 1);
            memcpy(primer_src[p], buf + pos, PLEN);
            primer_src[p][PLEN] = 0;
            /* copy a mutated version downstream to create near hits */
            memcpy(buf + pos + 800 + xorshift() % 1500, primer_src[p], PLEN);
            buf[pos + 3] = B[xorshift() & 3];
        }
        buf[CONTIG_LEN] = 0;
        fprintf(f, ">contig_%02d len=%d synthetic\n", c, CONTIG_LEN);
        for (i = 0; i < CONTIG_LEN; i += 60) {
            size_t n = CONTIG_LEN - i < 60 ? CONTIG_LEN - i : 60;
            fwrite(buf + i, 1, n, f);
            fputc('\n', f);
        }
    }
    free(buf);
    fclose(f);
}

static void revcomp(const char *s, char *out, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        char ch = s[n - 1 - i];
        out[i] = ch == 'A' ? 'T' : ch == 'T' ? 'A' : ch == 'C' ? 'G' : 'C';
    }
    out[n] = 0;
}

static void write_primer_panel(const char *path, char *src[NPRIMERS])
{
    FILE *f = fopen(path, "w");
    int i;
    fprintf(f, "#name\tsequence\n");
    for (i = 0; i < NPRIMERS; i++) {
        char rc[PLEN + 1];
        if (i % 2 == 0) fprintf(f, "P%03d_F\t%s\n", i, src[i]);
        else { revcomp(src[i], rc, PLEN); fprintf(f, "P%03d_R\t%s\n", i, rc); }
        free(src[i]);
    }
    fclose(f);
}

/* SantaLucia-style nearest-neighbour melting temperature (simplified table). */
static double melting_temp(const char *s)
{
    static const double dH[4][4] = {{-7.9, -8.4, -7.8, -7.2}, {-8.5, -8.0, -10.6, -7.8},
                                    {-8.2, -9.8, -8.0, -8.4}, {-7.2, -8.2, -8.5, -7.9}};
    static const double dS[4][4] = {{-22.2, -22.4, -21.0, -20.4}, {-22.7, -19.9, -27.2, -21.0},
                                    {-22.2, -24.4, -19.9, -22.4}, {-21.3, -22.2, -22.7, -22.2}};
    double h = 0.2, sEnt = -5.7;
    int i;
    for (i = 0; i + 1 < PLEN; i++) {
        int a = s[i] == 'A' ? 0 : s[i] == 'C' ? 1 : s[i] == 'G' ? 2 : 3;
        int b = s[i + 1] == 'A' ? 0 : s[i + 1] == 'C' ? 1 : s[i + 1] == 'G' ? 2 : 3;
        h += dH[a][b]; sEnt += dS[a][b];
    }
    return h * 1000.0 / (sEnt + 1.987 * log(0.25e-6)) - 273.15 + 16.6 * log10(0.05);
}

static int read_primers(const char *path, Primer *p)
{
    FILE *f = fopen(path, "r");
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < NPRIMERS) {
        int i, gc = 0;
        if (line[0] == '#') continue;
        if (sscanf(line, "%31s %22s", p[n].name, p[n].seq) != 2) continue;
        for (i = 0; i < PLEN; i++) gc += p[n].seq[i] == 'G' || p[n].seq[i] == 'C';
        p[n].gc = (double)gc / PLEN;
        p[n].tm = melting_temp(p[n].seq);
        n++;
    }
    fclose(f);
    return n;
}

static int read_fasta(const char *path, Contig *ctg)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = -1;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        if (line[0] == '>') {
            n++;
            line[l] = 0;
            ctg[n].name = strdup(strtok(line + 1, " "));
            cap = 1 << 16;
            ctg[n].seq = malloc(cap);
            ctg[n].len = 0;
            continue;
        }
        if (n < 0) continue;
        if (ctg[n].len + l + 1 > cap) { cap *= 2; ctg[n].seq = realloc(ctg[n].seq, cap); }
        memcpy(ctg[n].seq + ctg[n].len, line, l);
        ctg[n].len += l;
        ctg[n].seq[ctg[n].len] = 0;
    }
    fclose(f);
    return n + 1;
}

static inline uint64_t enc(char c) { return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3; }

static uint64_t pack(const char *s)
{
    uint64_t w = 0;
    int i;
    for (i = 0; i < PLEN; i++) w = (w << 2) | enc(s[i]);
    return w;
}

/* Count mismatching bases between two packed 2-bit words. */
static inline int mismatches(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ b;
    x = (x | (x >> 1)) & 0x5555555555555555ULL;
    return __builtin_popcountll(x);
}

static long scan_contig(const Contig *c, const Primer *p, int np, FILE *hits)
{
    uint64_t mask = (PLEN * 2 == 64) ? ~0ULL : ((1ULL << (PLEN * 2)) - 1);
    uint64_t fw[NPRIMERS], rv[NPRIMERS], win = 0;
    long nh = 0;
    size_t i;
    int k;
    for (k = 0; k < np; k++) {
        char rc[PLEN + 1];
        fw[k] = pack(p[k].seq);
        revcomp(p[k].seq, rc, PLEN);
        rv[k] = pack(rc);
    }
    for (i = 0; i < c->len; i++) {
        win = ((win << 2) | enc(c->seq[i])) & mask;
        if (i + 1 < PLEN) continue;
        for (k = 0; k < np; k++) {
            int mf = mismatches(win, fw[k]);
            int mr = mismatches(win, rv[k]);
            if (mf <= MAX_MM) {
                fprintf(hits, "%s\t%s\t%zu\t+\t%d\n", c->name, p[k].name, i + 1 - PLEN, mf);
                nh++;
            }
            if (mr <= MAX_MM) {
                fprintf(hits, "%s\t%s\t%zu\t-\t%d\n", c->name, p[k].name, i + 1 - PLEN, mr);
                nh++;
            }
        }
    }
    return nh;
}

typedef struct { char ctg[32]; char primer[32]; long pos; char strand; int mm; } Hit;

static int hit_cmp(const void *a, const void *b)
{
    const Hit *x = a, *y = b;
    int c = strcmp(x->ctg, y->ctg);
    if (c) return c;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static void predict_amplicons(const char *hits_path, const char *out_path)
{
    FILE *f = fopen(hits_path, "r"), *o;
    Hit *h = NULL;
    size_t n = 0, cap = 0, i, j, namp = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (n == cap) { cap = cap ? cap * 2 : 1024; h = realloc(h, cap * sizeof *h); }
        if (sscanf(line, "%31s %31s %ld %c %d", h[n].ctg, h[n].primer, &h[n].pos, &h[n].strand, &h[n].mm) == 5)
            n++;
    }
    fclose(f);
    qsort(h, n, sizeof *h, hit_cmp);
    o = fopen(out_path, "w");
    fprintf(o, "contig\tfwd\trev\tstart\tend\tsize\tmismatches\n");
    for (i = 0; i < n; i++) {
        if (h[i].strand != '+') continue;
        for (j = i + 1; j < n && !strcmp(h[j].ctg, h[i].ctg) && h[j].pos - h[i].pos < 3000; j++) {
            if (h[j].strand == '-') {
                fprintf(o, "%s\t%s\t%s\t%ld\t%ld\t%ld\t%d\n", h[i].ctg, h[i].primer, h[j].primer, h[i].pos,
                        h[j].pos + PLEN, h[j].pos + PLEN - h[i].pos, h[i].mm + h[j].mm);
                namp++;
            }
        }
    }
    fprintf(o, "# %zu hits, %zu amplicons\n", n, namp);
    fclose(o);
    free(h);
}

int main(int argc, char **argv)
{
    char fa[512], pr[512], hp[512], ap[512], rp[512];
    char *src[NPRIMERS];
    Primer primers[NPRIMERS];
    Contig ctg[NCONTIGS];
    int np, nc, i;
    FILE *hits, *rep;
    long total = 0;

    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 2; }
    snprintf(fa, sizeof fa, "%s/genome.fa", argv[1]);
    snprintf(pr, sizeof pr, "%s/primers.tsv", argv[1]);
    snprintf(hp, sizeof hp, "%s/hits.tsv", argv[1]);
    snprintf(ap, sizeof ap, "%s/amplicons.tsv", argv[1]);
    snprintf(rp, sizeof rp, "%s/primer_report.txt", argv[1]);

    write_genome_fasta(fa, src);
    write_primer_panel(pr, src);
    np = read_primers(pr, primers);
    nc = read_fasta(fa, ctg);

    hits = fopen(hp, "w");
    for (i = 0; i < nc; i++) total += scan_contig(&ctg[i], primers, np, hits);
    fclose(hits);
    predict_amplicons(hp, ap);

    rep = fopen(rp, "w");
    for (i = 0; i < np; i++)
        fprintf(rep, "%s\t%s\tGC=%.2f\tTm=%.1f\n", primers[i].name, primers[i].seq, primers[i].gc, primers[i].tm);
    fprintf(rep, "total hits %ld over %d contigs\n", total, nc);
    fclose(rep);
    for (i = 0; i < nc; i++) { free(ctg[i].name); free(ctg[i].seq); }
    return 0;
}
