/*
 * fastq_demux_trim.c
 *
 * Sequencing-run read preprocessor.  It writes a synthetic multiplexed
 * single-end FASTQ file (inline 6-nt sample barcodes, adapter read-through,
 * decaying base qualities), then streams it back with getline, assigns each
 * read to a sample by Hamming distance to the barcode whitelist, locates
 * the 3' adapter with a banded mismatch-tolerant scan, applies sliding-window
 * quality trimming, and writes surviving reads to one FASTQ per sample plus
 * an 'undetermined' file.  Finally a per-sample length histogram and a
 * per-cycle mean quality table are written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define N_READS 170000
#define READ_LEN 120
#define BC_LEN 6
#define N_SAMPLES 16
#define MIN_LEN 30
#define WIN 5
#define WIN_Q 20

static const char *ADAPTER = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC";
static const char BASES[4] = { 'A', 'C', 'G', 'T' };

typedef struct {
    char *name, *seq, *qual;
    size_t ncap, scap, qcap;
    ssize_t nlen, slen, qlen;
} fq_rec_t;

typedef struct {
    long reads, kept, too_short, adapter_hits;
    long len_hist[READ_LEN + 1];
} sample_stats_t;

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 7;
    *s ^= *s >> 9;
    return *s;
}

static void make_barcodes(char bc[N_SAMPLES][BC_LEN + 1])
{
    uint64_t s = 0xBADC0FFEEULL;
    for (int i = 0; i < N_SAMPLES; i++) {
        for (;;) {
            for (int k = 0; k < BC_LEN; k++) bc[i][k] = BASES[xs(&s) & 3];
            bc[i][BC_LEN] = 0;
            int ok = 1;
            for (int j = 0; j < i && ok; j++) {
                int d = 0;
                for (int k = 0; k < BC_LEN; k++) d += bc[i][k] != bc[j][k];
                if (d < 3) ok = 0;
            }
            if (ok) break;
        }
    }
}

static void generate_fastq(const char *path, char bc[N_SAMPLES][BC_LEN + 1])
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    uint64_t s = 0x1234567ULL;
    char seq[READ_LEN + 1], qual[READ_LEN + 1];
    int alen = (int)strlen(ADAPTER);
    for (long r = 0; r < N_READS; r++) {
        int sample = (int)(xs(&s) % (N_SAMPLES + 1)); /* last = unknown barcode */
        int insert = 8 + (int)(xs(&s) % 160);
        for (int i = 0; i < READ_LEN; i++) {
            int p = i - BC_LEN;
            if (i < BC_LEN)
                seq[i] = sample < N_SAMPLES ? bc[sample][i] : BASES[xs(&s) & 3];
            else if (p < insert)
                seq[i] = BASES[(xs(&s) >> 3) & 3];
            else
                seq[i] = p - insert < alen ? ADAPTER[p - insert] : 'A';
            if (xs(&s) % 200 == 0) seq[i] = BASES[xs(&s) & 3]; /* sequencing error */
            int q = 39 - i / 5 - (int)(xs(&s) % 8);
            if (q < 2) q = 2;
            qual[i] = (char)(33 + q);
        }
        seq[READ_LEN] = qual[READ_LEN] = 0;
        fprintf(f, "@RUN7:L1:%ld:%d length=%d\n", r, sample, READ_LEN);
        fputs(seq, f);
        fputs("\n+\n", f);
        fputs(qual, f);
        fputc('\n', f);
    }
    fclose(f);
}

static int read_record(FILE *f, fq_rec_t *r)
{
    char *plus = NULL;
    size_t pcap = 0;
    r->nlen = getline(&r->name, &r->ncap, f);
    if (r->nlen <= 0) return 0;
    r->slen = getline(&r->seq, &r->scap, f);
    ssize_t pl = getline(&plus, &pcap, f);
    r->qlen = getline(&r->qual, &r->qcap, f);
    free(plus);
    if (r->slen <= 0 || pl <= 0 || r->qlen <= 0) return 0;
    if (r->seq[r->slen - 1] == '\n') r->seq[--r->slen] = 0;
    if (r->qual[r->qlen - 1] == '\n') r->qual[--r->qlen] = 0;
    if (r->name[r->nlen - 1] == '\n') r->name[--r->nlen] = 0;
    return 1;
}

static int assign_sample(const char *seq, char bc[N_SAMPLES][BC_LEN + 1])
{
    int best = -1, bestd = 99, second = 99;
    for (int i = 0; i < N_SAMPLES; i++) {
        int d = 0;
        for (int k = 0; k < BC_LEN; k++) d += seq[k] != bc[i][k];
        if (d < bestd) { second = bestd; bestd = d; best = i; }
        else if (d < second) second = d;
    }
    return (bestd <= 1 && second > bestd) ? best : -1;
}

/* First position where the adapter prefix matches with <= 10% mismatches
 * (at least 3 overlapping bases); returns len if none. */
static int find_adapter(const char *seq, int len)
{
    int alen = (int)strlen(ADAPTER);
    for (int start = 0; start <= len - 3; start++) {
        int overlap = len - start < alen ? len - start : alen;
        int allowed = overlap / 10, mm = 0;
        int k;
        for (k = 0; k < overlap; k++) {
            if (seq[start + k] != ADAPTER[k] && ++mm > allowed) break;
        }
        if (k == overlap) return start;
    }
    return len;
}

/* Fallback: semi-global alignment allowing indels.  The adapter must start
 * inside the read and may run off its end; returns the start of the best
 * alignment with an error rate <= 12%, or len. */
static int find_adapter_indel(const char *seq, int len)
{
    int alen = (int)strlen(ADAPTER);
    int prev[64], cur[64], pstart[64], cstart[64];
    int best_pos = len;
    double best_rate = 1.0;
    for (int j = 0; j <= alen; j++) { prev[j] = j; pstart[j] = 0; }
    for (int i = 1; i <= len; i++) {
        cur[0] = 0;
        cstart[0] = i;
        for (int j = 1; j <= alen; j++) {
            int sub = prev[j - 1] + (seq[i - 1] != ADAPTER[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            if (sub <= del && sub <= ins) { cur[j] = sub; cstart[j] = pstart[j - 1]; }
            else if (del <= ins) { cur[j] = del; cstart[j] = pstart[j]; }
            else { cur[j] = ins; cstart[j] = cstart[j - 1]; }
        }
        /* at the read end, partial adapter prefixes of length >= 8 are allowed */
        int jmin = i == len ? 8 : alen;
        for (int j = jmin; j <= alen; j++) {
            double rate = (double)cur[j] / j;
            if (rate <= 0.12 && rate < best_rate) { best_rate = rate; best_pos = cstart[j]; }
        }
        memcpy(prev, cur, sizeof(int) * (alen + 1));
        memcpy(pstart, cstart, sizeof(int) * (alen + 1));
    }
    return best_pos;
}

static int quality_trim(const char *qual, int len)
{
    int sum = 0;
    for (int i = 0; i < len; i++) {
        sum += qual[i] - 33;
        if (i >= WIN) sum -= qual[i - WIN] - 33;
        if (i >= WIN - 1 && sum < WIN_Q * WIN) return i - WIN + 1 > 0 ? i - WIN + 1 : 0;
    }
    return len;
}

static void write_reports(const char *dir, sample_stats_t *st, const double *cycq, const long *cycn)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/length_histogram.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "length");
    for (int s = 0; s <= N_SAMPLES; s++) fprintf(f, "\tS%02d", s);
    fprintf(f, "\n");
    for (int l = 0; l <= READ_LEN; l++) {
        fprintf(f, "%d", l);
        for (int s = 0; s <= N_SAMPLES; s++) fprintf(f, "\t%ld", st[s].len_hist[l]);
        fprintf(f, "\n");
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    f = fopen(path, "w");
    for (int s = 0; s <= N_SAMPLES; s++)
        fprintf(f, "%s%02d reads=%ld kept=%ld short=%ld adapter=%ld\n",
                s < N_SAMPLES ? "sample" : "undet", s, st[s].reads, st[s].kept,
                st[s].too_short, st[s].adapter_hits);
    fprintf(f, "\ncycle mean_q\n");
    for (int i = 0; i < READ_LEN; i++)
        fprintf(f, "%d %.3f\n", i + 1, cycn[i] ? cycq[i] / cycn[i] : 0.0);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char bc[N_SAMPLES][BC_LEN + 1];
    make_barcodes(bc);
    char in[1024], path[1024];
    snprintf(in, sizeof in, "%s/run_multiplexed.fastq", dir);
    generate_fastq(in, bc);

    FILE *outs[N_SAMPLES + 1];
    for (int s = 0; s <= N_SAMPLES; s++) {
        if (s < N_SAMPLES) snprintf(path, sizeof path, "%s/sample_%02d_%s.fastq", dir, s, bc[s]);
        else snprintf(path, sizeof path, "%s/undetermined.fastq", dir);
        outs[s] = fopen(path, "w");
        if (!outs[s]) { perror(path); return 1; }
    }
    sample_stats_t *st = calloc(N_SAMPLES + 1, sizeof(sample_stats_t));
    double cycq[READ_LEN] = { 0 };
    long cycn[READ_LEN] = { 0 };
    FILE *f = fopen(in, "r");
    if (!f) { perror(in); return 1; }
    fq_rec_t r;
    memset(&r, 0, sizeof r);
    while (read_record(f, &r)) {
        int s = assign_sample(r.seq, bc);
        int idx = s < 0 ? N_SAMPLES : s;
        st[idx].reads++;
        for (int i = 0; i < r.qlen && i < READ_LEN; i++) {
            cycq[i] += r.qual[i] - 33;
            cycn[i]++;
        }
        char *seq = r.seq + BC_LEN, *qual = r.qual + BC_LEN;
        int len = (int)r.slen - BC_LEN;
        int a = find_adapter(seq, len);
        if (a == len) a = find_adapter_indel(seq, len);
        if (a < len) st[idx].adapter_hits++;
        int q = quality_trim(qual, a);
        st[idx].len_hist[q]++;
        if (q < MIN_LEN) { st[idx].too_short++; continue; }
        st[idx].kept++;
        fprintf(outs[idx], "%s trimmed=%d\n%.*s\n+\n%.*s\n", r.name, q, q, seq, q, qual);
    }
    fclose(f);
    for (int s = 0; s <= N_SAMPLES; s++) fclose(outs[s]);
    write_reports(dir, st, cycq, cycn);
    long kept = 0;
    for (int s = 0; s <= N_SAMPLES; s++) kept += st[s].kept;
    printf("reads %d kept %ld\n", N_READS, kept);
    free(r.name); free(r.seq); free(r.qual); free(st);
    return 0;
}
