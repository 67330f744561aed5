/* Prokaryote-style gene finder: synthesizes a multi-contig genome in FASTA
 * (with codon-biased genes planted in both strands), reads it back, scans
 * all six reading frames for open reading frames, translates them to a
 * protein FASTA, builds a codon-usage table, scores every ORF with a codon
 * adaptation index, writes one GFF3 file per contig and re-reads those
 * files for a final summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define N_CONTIGS    64
#define CONTIG_LEN   300000
#define LINE_W       60
#define MIN_ORF_NT   240
#define GENES_PER_CT 160

typedef struct {
    char name[32];
    char *seq;
    long len;
} contig_t;

typedef struct {
    int contig;
    long start, end;     /* 1-based, inclusive, forward coordinates */
    char strand;
    int frame;
    double cai;
    double gc3;
} orf_t;

typedef struct {
    orf_t *v;
    long n, cap;
} orf_list_t;

static uint64_t rs = 0x853C49E6748FEA9Bull;
static uint32_t rnd(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t x = (uint32_t)(((rs >> 18) ^ rs) >> 27), r = (uint32_t)(rs >> 59);
    return (x >> r) | (x << ((32 - r) & 31));
}

static const char *AA = "KNKNTTTTRSRSIIMIQHQHPPPPRRRRLLLLEDEDAAAAGGGGVVVV*Y*YSSSS*CWCLFLF";
static int codon_idx(const char *p)
{
    int v = 0;
    for (int k = 0; k < 3; k++) {
        int b;
        switch (p[k]) { case 'A': b = 0; break; case 'C': b = 1; break; case 'G': b = 2; break; case 'T': b = 3; break; default: return -1; }
        v = v * 4 + b;
    }
    return v;
}

static void revcomp(const char *s, long n, char *out)
{
    for (long i = 0; i < n; i++) {
        char c = s[n - 1 - i];
        out[i] = c == 'A' ? 'T' : c == 'T' ? 'A' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'N';
    }
}

/* plant genes with a biased codon preference into random background */
static void generate_genome(const char *path)
{
    static const char *pref[] = { "GCG","CTG","AAA","GAA","ATT","CGT","GGC","ACC","GTG","CAG","AAC","GAT","TTC","TAT","CCG","AGC","ATG","TGG","CAT","TGC" };
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    char *seq = malloc(CONTIG_LEN + 1), *tmp = malloc(CONTIG_LEN + 1);
    for (int c = 0; c < N_CONTIGS; c++) {
        for (long i = 0; i < CONTIG_LEN; i++) seq[i] = "ACGT"[rnd() & 3];
        for (int g = 0; g < GENES_PER_CT; g++) {
            long len = 3 * (120 + rnd() % 400);
            long at = rnd() % (CONTIG_LEN - len - 6);
            memcpy(seq + at, "ATG", 3);
            for (long k = 3; k < len; k += 3) {
                const char *cd = (rnd() % 10 < 8) ? pref[rnd() % 20] : NULL;
                char buf[4];
                if (!cd) { do { for (int q = 0; q < 3; q++) buf[q] = "ACGT"[rnd() & 3]; } while (AA[codon_idx(buf)] == '*'); cd = buf; }
                memcpy(seq + at + k, cd, 3);
            }
            memcpy(seq + at + len, "TAA", 3);
            if (g & 1) {                     /* flip to the reverse strand */
                revcomp(seq + at, len + 3, tmp);
                memcpy(seq + at, tmp, (size_t)len + 3);
            }
        }
        fprintf(f, ">contig_%03d synthetic length=%d\n", c + 1, CONTIG_LEN);
        for (long i = 0; i < CONTIG_LEN; i += LINE_W) {
            int w = (int)(CONTIG_LEN - i < LINE_W ? CONTIG_LEN - i : LINE_W);
            fwrite(seq + i, 1, (size_t)w, f);
            fputc('\n', f);
        }
    }
    free(seq); free(tmp);
    fclose(f);
}

static contig_t *read_fasta(const char *path, int *ncontigs)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    int cap = 8, n = 0;
    contig_t *v = malloc(sizeof(contig_t) * (size_t)cap);
    char line[256];
    long scap = 0;
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        line[l] = 0;
        if (line[0] == '>') {
            if (n == cap) { cap *= 2; v = realloc(v, sizeof(contig_t) * (size_t)cap); }
            sscanf(line + 1, "%31s", v[n].name);
            scap = 1 << 16;
            v[n].seq = malloc((size_t)scap);
            v[n].len = 0;
            n++;
        } else if (n > 0) {
            contig_t *c = &v[n - 1];
            if (c->len + (long)l + 1 > scap) { scap *= 2; c->seq = realloc(c->seq, (size_t)scap); }
            memcpy(c->seq + c->len, line, l);
            c->len += (long)l;
            c->seq[c->len] = 0;
        }
    }
    fclose(f);
    *ncontigs = n;
    return v;
}

static void orf_push(orf_list_t *L, orf_t o)
{
    if (L->n == L->cap) { L->cap = L->cap ? 2 * L->cap : 1024; L->v = realloc(L->v, sizeof(orf_t) * (size_t)L->cap); }
    L->v[L->n++] = o;
}

/* scan one strand (already oriented) in its three frames */
static void scan_frames(const char *s, long n, int contig, char strand, orf_list_t *L)
{
    for (int fr = 0; fr < 3; fr++) {
        long start = -1;
        for (long i = fr; i + 3 <= n; i += 3) {
            int ci = codon_idx(s + i);
            if (ci < 0) { start = -1; continue; }
            if (start < 0 && ci == 14 /* ATG */) start = i;
            else if (start >= 0 && AA[ci] == '*') {
                if (i + 3 - start >= MIN_ORF_NT) {
                    orf_t o = { contig, 0, 0, strand, fr, 0, 0 };
                    if (strand == '+') { o.start = start + 1; o.end = i + 3; }
                    else { o.start = n - (i + 3) + 1; o.end = n - start; }
                    orf_push(L, o);
                }
                start = -1;
            }
        }
    }
}

static void orf_sequence(const contig_t *c, const orf_t *o, char *buf)
{
    long len = o->end - o->start + 1;
    if (o->strand == '+') memcpy(buf, c->seq + o->start - 1, (size_t)len);
    else revcomp(c->seq + o->start - 1, len, buf);
    buf[len] = 0;
}

static void write_proteins(const char *path, const contig_t *cs, const orf_list_t *L, double *usage)
{
    FILE *f = fopen(path, "w");
    char *nt = malloc(CONTIG_LEN + 1);
    for (long k = 0; k < L->n; k++) {
        const orf_t *o = &L->v[k];
        orf_sequence(&cs[o->contig], o, nt);
        long len = o->end - o->start + 1;
        fprintf(f, ">%s_orf%05ld %ld..%ld(%c) frame=%d\n", cs[o->contig].name, k, o->start, o->end, o->strand, o->frame);
        int col = 0;
        for (long i = 0; i + 3 <= len; i += 3) {
            int ci = codon_idx(nt + i);
            usage[ci] += 1;
            fputc(AA[ci], f);
            if (++col == LINE_W) { fputc('\n', f); col = 0; }
        }
        if (col) fputc('\n', f);
    }
    free(nt);
    fclose(f);
}

/* relative adaptiveness w = count / max count among synonymous codons */
static void codon_weights(const double *usage, double *w, const char *table_path)
{
    FILE *f = fopen(table_path, "w");
    fprintf(f, "codon\taa\tcount\tw\n");
    for (int c = 0; c < 64; c++) {
        double mx = 0;
        for (int d = 0; d < 64; d++) if (AA[d] == AA[c] && usage[d] > mx) mx = usage[d];
        w[c] = mx > 0 ? (usage[c] > 0 ? usage[c] / mx : 0.5 / mx) : 1;
        fprintf(f, "%c%c%c\t%c\t%.0f\t%.4f\n", "ACGT"[c / 16], "ACGT"[c / 4 % 4], "ACGT"[c % 4], AA[c], usage[c], w[c]);
    }
    fclose(f);
}

static void score_orfs(const contig_t *cs, orf_list_t *L, const double *w)
{
    char *nt = malloc(CONTIG_LEN + 1);
    for (long k = 0; k < L->n; k++) {
        orf_t *o = &L->v[k];
        orf_sequence(&cs[o->contig], o, nt);
        long len = o->end - o->start + 1, m = 0, gc3 = 0;
        double lg = 0;
        for (long i = 3; i + 3 <= len - 3; i += 3) {
            int ci = codon_idx(nt + i);
            if (AA[ci] == 'M' || AA[ci] == 'W') continue;
            lg += log(w[ci]);
            m++;
            gc3 += nt[i + 2] == 'G' || nt[i + 2] == 'C';
        }
        o->cai = m ? exp(lg / m) : 0;
        o->gc3 = m ? (double)gc3 / m : 0;
    }
    free(nt);
}

static void write_gff_per_contig(const char *dir, const contig_t *cs, int nc, const orf_list_t *L)
{
    char path[600];
    long k = 0;
    for (int c = 0; c < nc; c++) {
        snprintf(path, sizeof path, "%s/%s.gff3", dir, cs[c].name);
        FILE *f = fopen(path, "w");
        fprintf(f, "##gff-version 3\n##sequence-region %s 1 %ld\n", cs[c].name, cs[c].len);
        for (; k < L->n && L->v[k].contig == c; k++) {
            const orf_t *o = &L->v[k];
            fprintf(f, "%s\torfscan\tCDS\t%ld\t%ld\t%.4f\t%c\t0\tID=orf%05ld;gc3=%.3f\n",
                    cs[c].name, o->start, o->end, o->cai, o->strand, k, o->gc3);
        }
        fclose(f);
    }
}

static void summarize_gff(const char *dir, const contig_t *cs, int nc)
{
    char path[600], line[512];
    snprintf(path, sizeof path, "%s/orf_summary.tsv", dir);
    FILE *out = fopen(path, "w");
    fprintf(out, "contig\tn_cds\tcoding_fraction\tmean_cai\thigh_cai\n");
    long total = 0;
    for (int c = 0; c < nc; c++) {
        snprintf(path, sizeof path, "%s/%s.gff3", dir, cs[c].name);
        FILE *f = fopen(path, "r");
        long n = 0, hi = 0, cov = 0;
        double sc = 0;
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '#') continue;
            char seqid[64], src[32], type[16], strand;
            long a, b;
            double score;
            if (sscanf(line, "%63s %31s %15s %ld %ld %lf %c", seqid, src, type, &a, &b, &score, &strand) == 7) {
                n++; sc += score; cov += b - a + 1;
                if (score > 0.6) hi++;
            }
        }
        fclose(f);
        fprintf(out, "%s\t%ld\t%.4f\t%.4f\t%ld\n", cs[c].name, n, (double)cov / cs[c].len, n ? sc / n : 0, hi);
        total += n;
    }
    fclose(out);
    printf("contigs=%d cds=%ld\n", nc, total);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    char path[600];
    snprintf(path, sizeof path, "%s/genome.fna", argv[1]);
    generate_genome(path);
    int nc;
    contig_t *cs = read_fasta(path, &nc);
    orf_list_t L = {0};
    char *rc = malloc(CONTIG_LEN + 1);
    for (int c = 0; c < nc; c++) {
        scan_frames(cs[c].seq, cs[c].len, c, '+', &L);
        revcomp(cs[c].seq, cs[c].len, rc);
        scan_frames(rc, cs[c].len, c, '-', &L);
    }
    free(rc);
    double usage[64] = {0}, w[64];
    snprintf(path, sizeof path, "%s/orfs.faa", argv[1]);
    write_proteins(path, cs, &L, usage);
    snprintf(path, sizeof path, "%s/codon_usage.tsv", argv[1]);
    codon_weights(usage, w, path);
    score_orfs(cs, &L, w);
    write_gff_per_contig(argv[1], cs, nc, &L);
    summarize_gff(argv[1], cs, nc);
    for (int c = 0; c < nc; c++) free(cs[c].seq);
    free(cs); free(L.v);
    return 0;
}
