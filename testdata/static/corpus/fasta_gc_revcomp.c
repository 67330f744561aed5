/* Generates a synthetic multi-contig genome in FASTA format, reads it back
 * line by line, computes windowed GC content and CpG-island candidates, and
 * writes the reverse complement of every contig plus a BED track of windows. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NCONTIGS 36
#define MIN_LEN 400000
#define MAX_LEN 1600000
#define IN_WIDTH 60
#define OUT_WIDTH 70
#define WINDOW 200
#define STEP 50
#define LINE_MAX_CHARS 1024

static uint32_t seed = 20240611u;

static uint32_t lcg(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed;
}

static void fail(const char *msg, const char *path)
{
    fprintf(stderr, "fasta_gc_revcomp: %s %s: %s\n", msg, path, strerror(errno));
    exit(1);
}

/* Markov-ish sequence with GC-rich islands scattered along the contig. */
static void gen_sequence(char *seq, long len)
{
    static const char at[] = "AT", gc[] = "GC";
    long pos = 0;
    while (pos < len) {
        long seg = 500 + (lcg() >> 8) % 5000;
        int island = ((lcg() >> 12) % 6) == 0;
        int gc_pct = island ? 68 : 38;
        for (long i = 0; i < seg && pos < len; i++, pos++) {
            uint32_t r = lcg() >> 8;
            if ((int)(r % 100) < gc_pct)
                seq[pos] = gc[(r >> 8) & 1];
            else
                seq[pos] = at[(r >> 8) & 1];
            if (island && i > 0 && seq[pos - 1] == 'C' && ((r >> 10) & 3) == 0)
                seq[pos] = 'G';
            if (((r >> 14) % 20000) == 0)
                seq[pos] = 'N';
        }
    }
}

static void write_fasta_record(FILE *f, const char *name, const char *seq, long len,
                               int width)
{
    char line[LINE_MAX_CHARS];
    fprintf(f, ">%s length=%ld\n", name, len);
    for (long i = 0; i < len; i += width) {
        long n = len - i < width ? len - i : width;
        memcpy(line, seq + i, (size_t)n);
        line[n] = '\n';
        line[n + 1] = '\0';
        fputs(line, f);
    }
}

static long generate_genome(const char *path, long *lengths)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail("cannot create", path);
    char *seq = malloc(MAX_LEN);
    long total = 0;
    for (int c = 0; c < NCONTIGS; c++) {
        long len = MIN_LEN + (long)(lcg() % (MAX_LEN - MIN_LEN));
        char name[64];
        snprintf(name, sizeof name, "contig_%03d", c + 1);
        gen_sequence(seq, len);
        write_fasta_record(f, name, seq, len, IN_WIDTH);
        lengths[c] = len;
        total += len;
    }
    free(seq);
    if (fclose(f) != 0)
        fail("close failed", path);
    return total;
}

/* Reads the next record; returns its length or -1 at EOF.  The header line of
 * the following record is kept in 'pending' between calls. */
static long read_fasta_next(FILE *f, char *pending, char *name, char **seq, long *cap)
{
    char line[LINE_MAX_CHARS];
    if (pending[0] != '>') {
        if (!fgets(line, sizeof line, f))
            return -1;
        strcpy(pending, line);
    }
    if (pending[0] != '>')
        return -1;
    sscanf(pending + 1, "%63s", name);
    pending[0] = '\0';

    long len = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>') {
            strcpy(pending, line);
            break;
        }
        size_t n = strcspn(line, "\r\n");
        if (len + (long)n > *cap) {
            *cap = 2 * (*cap + (long)n);
            *seq = realloc(*seq, (size_t)*cap);
            if (!*seq) {
                fprintf(stderr, "fasta_gc_revcomp: out of memory\n");
                exit(1);
            }
        }
        for (size_t i = 0; i < n; i++)
            (*seq)[len++] = (char)toupper((unsigned char)line[i]);
    }
    return len;
}

typedef struct {
    long start;
    double gc;
    double cpg_ratio;
} window_t;

/* Sliding GC fraction and observed/expected CpG ratio. */
static long gc_windows(const char *seq, long len, window_t *w)
{
    long nw = 0;
    for (long s = 0; s + WINDOW <= len; s += STEP) {
        int g = 0, c = 0, cg = 0, n = 0;
        for (long i = s; i < s + WINDOW; i++) {
            char b = seq[i];
            if (b == 'G')
                g++;
            else if (b == 'C')
                c++;
            else if (b == 'N')
                n++;
            if (i + 1 < s + WINDOW && b == 'C' && seq[i + 1] == 'G')
                cg++;
        }
        int valid = WINDOW - n;
        w[nw].start = s;
        w[nw].gc = valid ? (double)(g + c) / valid : 0.0;
        w[nw].cpg_ratio = (c && g) ? (double)cg * valid / ((double)c * g) : 0.0;
        nw++;
    }
    return nw;
}

static void revcomp(const char *seq, long len, char *out)
{
    for (long i = 0; i < len; i++) {
        char b = seq[len - 1 - i], r;
        switch (b) {
        case 'A': r = 'T'; break;
        case 'T': r = 'A'; break;
        case 'G': r = 'C'; break;
        case 'C': r = 'G'; break;
        default: r = 'N'; break;
        }
        out[i] = r;
    }
}

static long write_windows_bed(FILE *bed, const char *name, const window_t *w, long nw)
{
    long islands = 0;
    for (long i = 0; i < nw; i++) {
        int isl = w[i].gc > 0.5 && w[i].cpg_ratio > 0.6;
        fprintf(bed, "%s\t%ld\t%ld\tgc=%.3f;oe=%.3f\t%d\n", name, w[i].start,
                w[i].start + WINDOW, w[i].gc, w[i].cpg_ratio, isl ? 1 : 0);
        islands += isl;
    }
    return islands;
}

static uint64_t seq_hash(const char *s, long n)
{
    uint64_t h = 1469598103934665603ULL;
    for (long i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Re-reads the reverse-complement file and checks that reverse-complementing
 * it again reproduces the original hashes. */
static int verify_roundtrip(const char *path, const uint64_t *hashes, int n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail("cannot open", path);
    char pending[LINE_MAX_CHARS] = "", name[64];
    long cap = MAX_LEN;
    char *seq = malloc((size_t)cap), *back = malloc(MAX_LEN);
    int k = 0, bad = 0;
    long len;
    while ((len = read_fasta_next(f, pending, name, &seq, &cap)) >= 0) {
        if (k >= n || len > MAX_LEN) {
            bad++;
            break;
        }
        revcomp(seq, len, back);
        if (seq_hash(back, len) != hashes[k])
            bad++;
        k++;
    }
    fclose(f);
    free(seq);
    free(back);
    return (k == n && bad == 0) ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        fail("mkdir", dir);

    char genome[4096], rcpath[4096], bedpath[4096], sumpath[4096];
    snprintf(genome, sizeof genome, "%s/genome.fa", dir);
    snprintf(rcpath, sizeof rcpath, "%s/genome_rc.fa", dir);
    snprintf(bedpath, sizeof bedpath, "%s/gc_windows.bed", dir);
    snprintf(sumpath, sizeof sumpath, "%s/summary.tsv", dir);

    long lengths[NCONTIGS];
    long total = generate_genome(genome, lengths);

    FILE *in = fopen(genome, "r");
    FILE *rc = fopen(rcpath, "w");
    FILE *bed = fopen(bedpath, "w");
    FILE *sum = fopen(sumpath, "w");
    if (!in || !rc || !bed || !sum)
        fail("cannot open outputs in", dir);
    fprintf(sum, "contig\tlength\tgc\tislands\n");

    char pending[LINE_MAX_CHARS] = "", name[64];
    long cap = 1 << 20;
    char *seq = malloc((size_t)cap);
    char *rcs = malloc(MAX_LEN);
    window_t *win = malloc(sizeof(window_t) * (MAX_LEN / STEP + 1));
    uint64_t hashes[NCONTIGS];
    int nc = 0;
    long len, islands_total = 0;

    while ((len = read_fasta_next(in, pending, name, &seq, &cap)) >= 0) {
        if (nc >= NCONTIGS || len != lengths[nc]) {
            fprintf(stderr, "fasta_gc_revcomp: unexpected record %s (len %ld)\n", name, len);
            return 1;
        }
        long nw = gc_windows(seq, len, win);
        long isl = write_windows_bed(bed, name, win, nw);
        double gcsum = 0.0;
        for (long i = 0; i < nw; i++)
            gcsum += win[i].gc;
        fprintf(sum, "%s\t%ld\t%.4f\t%ld\n", name, len, nw ? gcsum / nw : 0.0, isl);
        islands_total += isl;

        hashes[nc] = seq_hash(seq, len);
        revcomp(seq, len, rcs);
        char rcname[96];
        snprintf(rcname, sizeof rcname, "%s_rc", name);
        write_fasta_record(rc, rcname, rcs, len, OUT_WIDTH);
        nc++;
    }
    fclose(in);
    if (fclose(rc) || fclose(bed) || fclose(sum))
        fail("close failed in", dir);

    if (verify_roundtrip(rcpath, hashes, nc) != 0) {
        fprintf(stderr, "fasta_gc_revcomp: reverse complement round trip failed\n");
        return 1;
    }
    printf("%d contigs, %ld bases, %ld island windows\n", nc, total, islands_total);
    free(seq);
    free(rcs);
    free(win);
    return 0;
}
