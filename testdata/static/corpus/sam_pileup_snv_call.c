/*
 * sam_pileup_snv_call.c
 *
 * Small germline SNV-calling pipeline.  It synthesises a multi-contig
 * reference (FASTA), plants heterozygous/homozygous SNVs (truth TSV) and
 * simulates 100 bp reads with sequencing errors into a SAM text file.  It
 * then reloads the FASTA, streams the SAM file to build a per-position
 * pileup with diploid genotype log-likelihoods, writes an mpileup-style
 * text dump and per-contig depth bedGraph files, calls variants into a VCF
 * and scores the calls against the truth set it re-reads from disk.
 *
 * usage: sam_pileup_snv_call DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <sys/stat.h>

#define NCONTIG     3
#define READ_LEN    100
#define COVERAGE    30
#define SNV_SPACING 450
#define ERR_RATE    0.01
#define MIN_BASEQ   13
#define NGENO       10
#define FASTA_WIDTH 60

static const int CONTIG_LEN[NCONTIG] = {130000, 102000, 75000};
static const char BASES[4] = {'A', 'C', 'G', 'T'};
/* the 10 unordered diploid genotypes */
static const int GENO[NGENO][2] = {{0,0},{0,1},{0,2},{0,3},{1,1},{1,2},{1,3},{2,2},{2,3},{3,3}};

typedef struct {
    char  name[16];
    int   len;
    char *ref;     /* reference bases */
    char *hap[2];  /* the two sample haplotypes */
} contig_t;

typedef struct {
    int    depth;
    int    count[4];
    double gl[NGENO]; /* natural-log genotype likelihoods */
} pile_t;

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint32_t rand32(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs >> 16);
}
#define RAND01() (rand32() / 4294967296.0)

static int base_index(char c)
{
    switch (c) { case 'A': return 0; case 'C': return 1; case 'G': return 2; case 'T': return 3; }
    return -1;
}

static void make_reference(contig_t *c, int n)
{
    for (int i = 0; i < n; i++) {
        snprintf(c[i].name, sizeof c[i].name, "chr%d", i + 1);
        c[i].len = CONTIG_LEN[i];
        c[i].ref = malloc(c[i].len + 1);
        /* GC-content drifting along the contig */
        for (int p = 0; p < c[i].len; p++) {
            double gc = 0.38 + 0.12 * sin(p / 3000.0 + i);
            double u = RAND01();
            c[i].ref[p] = u < gc ? (rand32() & 1 ? 'G' : 'C') : (rand32() & 1 ? 'A' : 'T');
        }
        c[i].ref[c[i].len] = 0;
    }
}

static void write_fasta(const char *path, const contig_t *c, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    char line[FASTA_WIDTH + 2];
    for (int i = 0; i < n; i++) {
        fprintf(f, ">%s simulated contig length=%d\n", c[i].name, c[i].len);
        for (int p = 0; p < c[i].len; p += FASTA_WIDTH) {
            int w = c[i].len - p < FASTA_WIDTH ? c[i].len - p : FASTA_WIDTH;
            memcpy(line, c[i].ref + p, w);
            line[w] = '\n'; line[w + 1] = 0;
            fputs(line, f);
        }
    }
    fclose(f);
}

/* Plant SNVs on the haplotypes and record the truth set. */
static int plant_snvs(const char *truth_path, contig_t *c, int n)
{
    FILE *f = fopen(truth_path, "w");
    if (!f) { perror(truth_path); exit(1); }
    int nsnv = 0;
    for (int i = 0; i < n; i++) {
        c[i].hap[0] = strdup(c[i].ref);
        c[i].hap[1] = strdup(c[i].ref);
        for (int p = 200 + (int)(rand32() % 100); p < c[i].len - 200; p += SNV_SPACING / 2 + (int)(rand32() % SNV_SPACING)) {
            int r = base_index(c[i].ref[p]);
            char alt = BASES[(r + 1 + rand32() % 3) % 4];
            int hom = rand32() % 3 == 0;
            c[i].hap[1][p] = alt;
            if (hom) c[i].hap[0][p] = alt;
            fprintf(f, "%s\t%d\t%c\t%c\t%s\n", c[i].name, p + 1, c[i].ref[p], alt, hom ? "1/1" : "0/1");
            nsnv++;
        }
    }
    fclose(f);
    return nsnv;
}

static void simulate_reads(const char *sam_path, const contig_t *c, int n)
{
    FILE *f = fopen(sam_path, "w");
    if (!f) { perror(sam_path); exit(1); }
    fprintf(f, "@HD\tVN:1.6\tSO:unsorted\n");
    for (int i = 0; i < n; i++) fprintf(f, "@SQ\tSN:%s\tLN:%d\n", c[i].name, c[i].len);
    char seq[READ_LEN + 1], qual[READ_LEN + 1];
    long rid = 0;
    for (int i = 0; i < n; i++) {
        long nreads = (long)c[i].len * COVERAGE / READ_LEN;
        for (long r = 0; r < nreads; r++) {
            int pos = (int)(rand32() % (uint32_t)(c[i].len - READ_LEN));
            const char *h = c[i].hap[rand32() & 1];
            for (int k = 0; k < READ_LEN; k++) {
                int q = 20 + (int)(rand32() % 21) - (k > 80 ? (k - 80) / 2 : 0);
                double perr = pow(10.0, -q / 10.0) + (RAND01() < ERR_RATE ? 0.5 : 0.0);
                char b = h[pos + k];
                if (RAND01() < perr) b = BASES[(base_index(b) + 1 + rand32() % 3) % 4];
                seq[k] = b;
                qual[k] = (char)(33 + q);
            }
            seq[READ_LEN] = qual[READ_LEN] = 0;
            int flag = rand32() & 1 ? 16 : 0;
            fprintf(f, "read%07ld\t%d\t%s\t%d\t60\t%dM\t*\t0\t0\t%s\t%s\tRG:Z:sim\n", rid++, flag,
                    c[i].name, pos + 1, READ_LEN, seq, qual);
        }
    }
    fclose(f);
}

/* Re-read the FASTA into fresh buffers (the caller frees the old ones). */
static int load_fasta(const char *path, contig_t *c, int maxn)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char line[512];
    int n = -1, fill = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>') {
            n++;
            if (n >= maxn) break;
            sscanf(line + 1, "%15s", c[n].name);
            char *lp = strstr(line, "length=");
            c[n].len = lp ? atoi(lp + 7) : 0;
            c[n].ref = malloc(c[n].len + 1);
            fill = 0;
            continue;
        }
        for (char *p = line; *p && *p != '\n' && fill < c[n].len; p++) c[n].ref[fill++] = *p;
        c[n].ref[fill] = 0;
    }
    fclose(f);
    return n + 1;
}

static int contig_lookup(const contig_t *c, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0) return i;
    return -1;
}

/* Stream SAM records and accumulate the pileup + genotype likelihoods. */
static long build_pileup(const char *sam_path, const contig_t *c, int n, pile_t **piles)
{
    FILE *f = fopen(sam_path, "r");
    if (!f) { perror(sam_path); exit(1); }
    char line[1024];
    long used = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '@') continue;
        char *save = NULL;
        char *fld[11];
        int nf = 0;
        for (char *t = strtok_r(line, "\t\n", &save); t && nf < 11; t = strtok_r(NULL, "\t\n", &save))
            fld[nf++] = t;
        if (nf < 11) continue;
        int ci = contig_lookup(c, n, fld[2]);
        if (ci < 0) continue;
        int pos = atoi(fld[3]) - 1;
        const char *seq = fld[9], *qual = fld[10];
        for (int k = 0; seq[k] && pos + k < c[ci].len; k++) {
            int q = qual[k] - 33;
            int b = base_index(seq[k]);
            if (q < MIN_BASEQ || b < 0) continue;
            pile_t *pl = &piles[ci][pos + k];
            double e = pow(10.0, -q / 10.0);
            double p_match = 1.0 - e, p_mis = e / 3.0;
            pl->depth++;
            pl->count[b]++;
            for (int g = 0; g < NGENO; g++) {
                double p1 = GENO[g][0] == b ? p_match : p_mis;
                double p2 = GENO[g][1] == b ? p_match : p_mis;
                pl->gl[g] += log(0.5 * (p1 + p2));
            }
        }
        used++;
    }
    fclose(f);
    return used;
}

static void write_mpileup_dump(const char *path, const contig_t *c, int n, pile_t **piles)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    for (int i = 0; i < n; i++)
        for (int p = 0; p < c[i].len; p++) {
            const pile_t *pl = &piles[i][p];
            fprintf(f, "%s\t%d\t%c\t%d\tA:%d\tC:%d\tG:%d\tT:%d\n", c[i].name, p + 1, c[i].ref[p], pl->depth,
                    pl->count[0], pl->count[1], pl->count[2], pl->count[3]);
        }
    fclose(f);
}

static void write_depth_bedgraphs(const char *dir, const contig_t *c, int n, pile_t **piles)
{
    char path[512];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/depth_%s.bedgraph", dir, c[i].name);
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); exit(1); }
        int start = 0;
        for (int p = 1; p <= c[i].len; p++) {
            if (p == c[i].len || piles[i][p].depth != piles[i][start].depth) {
                fprintf(f, "%s\t%d\t%d\t%d\n", c[i].name, start, p, piles[i][start].depth);
                start = p;
            }
        }
        fclose(f);
    }
}

/* Genotype each position; emit VCF records where the best genotype is non-ref. */
static int call_variants(const char *vcf_path, const contig_t *c, int n, pile_t **piles)
{
    FILE *f = fopen(vcf_path, "w");
    if (!f) { perror(vcf_path); exit(1); }
    fprintf(f, "##fileformat=VCFv4.2\n##source=sam_pileup_snv_call\n");
    fprintf(f, "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tSAMPLE\n");
    int ncalls = 0;
    for (int i = 0; i < n; i++)
        for (int p = 0; p < c[i].len; p++) {
            const pile_t *pl = &piles[i][p];
            if (pl->depth < 6) continue;
            int r = base_index(c[i].ref[p]);
            int best = 0;
            for (int g = 1; g < NGENO; g++)
                if (pl->gl[g] > pl->gl[best]) best = g;
            int a1 = GENO[best][0], a2 = GENO[best][1];
            if (a1 == r && a2 == r) continue;
            int homref = 0;
            for (int g = 0; g < NGENO; g++)
                if (GENO[g][0] == r && GENO[g][1] == r) homref = g;
            double qual = 10.0 / log(10.0) * (pl->gl[best] - pl->gl[homref]);
            if (qual < 20.0) continue;
            int alt = a1 == r ? a2 : a1;
            const char *gt = (a1 == a2) ? "1/1" : "0/1";
            fprintf(f, "%s\t%d\t.\t%c\t%c\t%.1f\tPASS\tDP=%d;AF=%.2f\tGT\t%s\n", c[i].name, p + 1,
                    c[i].ref[p], BASES[alt], qual > 999 ? 999.0 : qual, pl->depth,
                    (double)pl->count[alt] / pl->depth, gt);
            ncalls++;
        }
    fclose(f);
    return ncalls;
}

/* Compare VCF against the truth TSV (both re-read from disk). */
static void evaluate_calls(const char *truth_path, const char *vcf_path, const char *out_path)
{
    FILE *t = fopen(truth_path, "r"), *v = fopen(vcf_path, "r");
    if (!t || !v) { perror("evaluate_calls"); exit(1); }
    int cap = 4096, nt = 0;
    long *keys = malloc(sizeof(long) * cap);
    char gts[8], chrom[16], line[512], ref, alt;
    int pos, ci;
    char (*tgt)[4] = malloc(4 * (size_t)cap);
    while (fscanf(t, "%15s %d %c %c %7s", chrom, &pos, &ref, &alt, gts) == 5) {
        if (nt == cap) { cap *= 2; keys = realloc(keys, sizeof(long) * cap); tgt = realloc(tgt, 4 * (size_t)cap); }
        sscanf(chrom, "chr%d", &ci);
        keys[nt] = (long)ci * 100000000L + pos;
        memcpy(tgt[nt], gts, 4);
        nt++;
    }
    int tp = 0, fp = 0, gt_ok = 0;
    while (fgets(line, sizeof line, v)) {
        if (line[0] == '#') continue;
        char vgt[8];
        if (sscanf(line, "chr%d %d %*s %*s %*s %*s %*s %*s %*s %7s", &ci, &pos, vgt) != 3) continue;
        long key = (long)ci * 100000000L + pos;
        int lo = 0, hi = nt - 1, hit = -1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (keys[mid] == key) { hit = mid; break; }
            if (keys[mid] < key) lo = mid + 1; else hi = mid - 1;
        }
        if (hit >= 0) { tp++; gt_ok += strcmp(tgt[hit], vgt) == 0; } else fp++;
    }
    fclose(t); fclose(v);
    FILE *o = fopen(out_path, "w");
    if (!o) { perror(out_path); exit(1); }
    fprintf(o, "truth\t%d\ntp\t%d\nfp\t%d\nfn\t%d\nprecision\t%.4f\nrecall\t%.4f\ngenotype_concordance\t%.4f\n",
            nt, tp, fp, nt - tp, tp + fp ? (double)tp / (tp + fp) : 0.0, nt ? (double)tp / nt : 0.0,
            tp ? (double)gt_ok / tp : 0.0);
    fclose(o);
    printf("truth %d  TP %d  FP %d  recall %.3f\n", nt, tp, fp, nt ? (double)tp / nt : 0.0);
    free(keys); free(tgt);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char fa[512], truth[512], sam[512], mp[512], vcf[512], eval[512];
    mkdir(dir, 0755);
    snprintf(fa, sizeof fa, "%s/reference.fa", dir);
    snprintf(truth, sizeof truth, "%s/truth_snvs.tsv", dir);
    snprintf(sam, sizeof sam, "%s/reads.sam", dir);
    snprintf(mp, sizeof mp, "%s/pileup.txt", dir);
    snprintf(vcf, sizeof vcf, "%s/calls.vcf", dir);
    snprintf(eval, sizeof eval, "%s/evaluation.tsv", dir);

    contig_t sim[NCONTIG];
    make_reference(sim, NCONTIG);
    write_fasta(fa, sim, NCONTIG);
    plant_snvs(truth, sim, NCONTIG);
    simulate_reads(sam, sim, NCONTIG);
    for (int i = 0; i < NCONTIG; i++) { free(sim[i].ref); free(sim[i].hap[0]); free(sim[i].hap[1]); }

    contig_t ctg[NCONTIG];
    int n = load_fasta(fa, ctg, NCONTIG);
    pile_t *piles[NCONTIG];
    for (int i = 0; i < n; i++) piles[i] = calloc(ctg[i].len, sizeof(pile_t));
    long nreads = build_pileup(sam, ctg, n, piles);
    write_mpileup_dump(mp, ctg, n, piles);
    write_depth_bedgraphs(dir, ctg, n, piles);
    int ncalls = call_variants(vcf, ctg, n, piles);
    printf("%ld reads piled up, %d variant calls\n", nreads, ncalls);
    evaluate_calls(truth, vcf, eval);
    for (int i = 0; i < n; i++) { free(piles[i]); free(ctg[i].ref); }
    return 0;
}
