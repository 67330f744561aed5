/*
 * gff3_transcript_bed12_stats.c
 *
 * Genome annotation toolkit in plain stdio.  It first writes a simulated
 * GFF3 annotation (genes, alternatively spliced mRNAs, exons shared between
 * isoforms via multi-valued Parent=, CDS with phases, UTRs) together with a
 * chrom.sizes file, then behaves like a GFF3 -> BED converter and QC tool:
 *   - reads chrom.sizes with fscanf and the GFF3 with getline, splitting the
 *     nine tab-separated columns and the key=value attribute list by hand;
 *   - builds an ID hash index and links exons/CDS to mRNAs and mRNAs to genes;
 *   - validates bounds and CDS phase continuity (the generator plants a few
 *     phase errors);
 *   - writes transcripts as BED12, introns as BED6 and gene density per
 *     megabase as bedGraph, all with fprintf, plus a text report with exon,
 *     intron and CDS length statistics.
 *
 * usage: gff3_transcript_bed12_stats OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCHROM 12
#define NSCAF 30000 /* unplaced scaffolds listed in chrom.sizes */
#define GENES_PER_MB 38
#define MAXEX 24
#define HASH_BITS 21
/* floor(log2(v)) capped at 15, for length histograms */
#define LOG2_BIN(v, b)                                  \
    do {                                                \
        long v_ = (v);                                  \
        (b) = 0;                                        \
        while (v_ > 1 && (b) < 15) { v_ >>= 1; (b)++; } \
    } while (0)

enum { F_GENE, F_MRNA, F_EXON, F_CDS, F_UTR5, F_UTR3, F_OTHER };
static const char *type_names[] = {"gene", "mRNA", "exon", "CDS", "five_prime_UTR", "three_prime_UTR"};

typedef struct {
    int32_t chrom, start, end; /* 1-based closed */
    int8_t type, strand, phase;
    uint32_t id;     /* arena offset, 0 = none */
    uint32_t par[2]; /* parent ID offsets */
    int32_t up[2];   /* resolved parent feature indices */
} Feature;

typedef struct {
    Feature *f;
    size_t n, cap;
    char *arena;
    size_t alen, acap;
    int32_t *hash; /* feature index + 1 */
    int32_t *child_start, *child_list; /* children of each feature */
} Annot;

static const char *outdir;
static char chrom_names[NCHROM][16];
static long chrom_len[NCHROM];
static long scaf_len[NSCAF];
static long assembly_len, assembly_n50;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "gff3_transcript_bed12_stats: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static FILE *xfopen(const char *name, const char *mode, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", outdir, name);
    FILE *f = fopen(path, mode);
    if (!f) die("fopen", path);
    return f;
}

static void xfclose(FILE *f, const char *path)
{
    if (ferror(f)) die("write error", path);
    if (fclose(f) != 0) die("fclose", path);
}

static void write_chrom_sizes(void)
{
    char path[600];
    FILE *f = xfopen("chrom.sizes", "w", path, sizeof path);
    for (int c = 0; c < NCHROM; c++) {
        long len = 19000000L + 3400000L * ((c * 7) % NCHROM);
        if (fprintf(f, "chr%d\t%ld\n", c + 1, len) < 0) die("fprintf", path);
    }
    uint64_t z = 0x5caf01dULL;
    for (int k = 0; k < NSCAF; k++) { /* log-uniform 1 kb .. 300 kb */
        z ^= z << 13; z ^= z >> 7; z ^= z << 17;
        long len = (long)(1000.0 * pow(300.0, (double)(z % 100000) / 100000.0));
        if (fprintf(f, "chrUn_KZ%06d\t%ld\n", 208000 + k, len) < 0) die("fprintf", path);
    }
    xfclose(f, path);
}

static void read_chrom_sizes(void)
{
    char path[600];
    FILE *f = xfopen("chrom.sizes", "r", path, sizeof path);
    for (int c = 0; c < NCHROM; c++)
        if (fscanf(f, "%15s %ld", chrom_names[c], &chrom_len[c]) != 2) die("fscanf", path);
    char name[64];
    for (int k = 0; k < NSCAF; k++)
        if (fscanf(f, "%63s %ld", name, &scaf_len[k]) != 2) die("fscanf", path);
    fclose(f);
    /* assembly size and N50 over all sequences (shell sort, descending) */
    static long all[NCHROM + NSCAF];
    int n = 0;
    assembly_len = 0;
    for (int c = 0; c < NCHROM; c++) all[n++] = chrom_len[c];
    for (int k = 0; k < NSCAF; k++) all[n++] = scaf_len[k];
    for (int i = 0; i < n; i++) assembly_len += all[i];
    for (int gap = n / 2; gap > 0; gap /= 2)
        for (int i = gap; i < n; i++) {
            long v = all[i];
            int j = i;
            while (j >= gap && all[j - gap] < v) { all[j] = all[j - gap]; j -= gap; }
            all[j] = v;
        }
    long acc = 0;
    for (int i = 0; i < n; i++) {
        acc += all[i];
        if (2 * acc >= assembly_len) { assembly_n50 = all[i]; break; }
    }
}

/* xorshift64 draw in [0, n) into var (statement macro) */
static uint64_t rng_state = 0x6ff3a11ULL;
#define RND(var, n)                                                             \
    do {                                                                        \
        rng_state ^= rng_state << 13;                                           \
        rng_state ^= rng_state >> 7;                                            \
        rng_state ^= rng_state << 17;                                           \
        (var) = (long)(rng_state % (uint64_t)(n));                              \
    } while (0)

/* Simulated annotation: genes with 1-3 isoforms (exon skipping), shared
 * first exon, UTRs and phased CDS; a few planted phase errors. */
static long generate_gff3(long *planted)
{
    char path[600];
    FILE *f = xfopen("annotation.gff3", "w", path, sizeof path);
    fprintf(f, "##gff-version 3\n");
    for (int c = 0; c < NCHROM; c++) fprintf(f, "##sequence-region %s 1 %ld\n", chrom_names[c], chrom_len[c]);
    for (int k = 0; k < NSCAF; k++) fprintf(f, "##sequence-region chrUn_KZ%06d 1 %ld\n", 208000 + k, scaf_len[k]);
    fprintf(f, "#!genome-build simulated ASM0001v1\n");
    long ngene = 0, lines = 0;
    *planted = 0;
    for (int c = 0; c < NCHROM; c++) {
        long pos = 4000;
        long ng = chrom_len[c] / 1000000L * GENES_PER_MB;
        for (long g = 0; g < ng; g++) {
            long gap, r1, r2, r3;
            RND(gap, 20000);
            gap += 1000;
            RND(r1, 4);
            RND(r2, 4);
            RND(r3, 6);
            int nex = 1 + (int)(r1 + r2 + r3);
            if (nex > MAXEX) nex = MAXEX;
            long es[MAXEX], ee[MAXEX];
            long p = pos + gap;
            for (int e = 0; e < nex; e++) {
                long elen, ilen, mult;
                if (e == 0 || e == nex - 1) { RND(elen, 900); elen += 150; }
                else { RND(elen, 260); elen += 60; }
                es[e] = p;
                ee[e] = p + elen - 1;
                RND(ilen, 200);
                RND(mult, 40);
                ilen = 80 + ilen * (1 + mult);
                p = ee[e] + 1 + ilen;
            }
            if (ee[nex - 1] + 5000 >= chrom_len[c]) break;
            pos = ee[nex - 1];
            ngene++;
            long coin;
            RND(coin, 2);
            char strand = coin ? '+' : '-';
            char gid[32];
            snprintf(gid, sizeof gid, "gene%06ld", ngene);
            fprintf(f, "%s\tsimulated\tgene\t%ld\t%ld\t.\t%c\t.\tID=%s;Name=SIM%ld;biotype=protein_coding\n",
                    chrom_names[c], es[0], ee[nex - 1], strand, gid, ngene);
            lines++;
            int niso = 1;
            if (nex >= 3) { RND(coin, 3); niso += coin == 0; }
            if (nex >= 5) { RND(coin, 4); niso += coin == 0; }
            /* exon 1 (transcription order) is shared by all isoforms */
            int first = strand == '+' ? 0 : nex - 1;
            char shared_parents[128] = "";
            for (int k = 0; k < niso; k++) {
                char tmp[40];
                snprintf(tmp, sizeof tmp, "%s%s.t%d", k ? "," : "", gid, k + 1);
                strcat(shared_parents, tmp);
            }
            for (int k = 0; k < niso; k++) {
                char tid[40];
                snprintf(tid, sizeof tid, "%s.t%d", gid, k + 1);
                int skip = -1;
                if (k > 0) { RND(coin, nex - 2); skip = 1 + (int)coin; }
                fprintf(f, "%s\tsimulated\tmRNA\t%ld\t%ld\t.\t%c\t.\tID=%s;Parent=%s;Name=SIM%ld-%d\n",
                        chrom_names[c], es[0], ee[nex - 1], strand, tid, gid, ngene, k + 1);
                lines++;
                int use[MAXEX], nu = 0;
                for (int e = 0; e < nex; e++)
                    if (e != skip) use[nu++] = e;
                for (int q = 0; q < nu; q++) {
                    int e = use[q];
                    if (e == first) {
                        if (k == 0)
                            fprintf(f, "%s\tsimulated\texon\t%ld\t%ld\t.\t%c\t.\tID=%s.e1;Parent=%s\n",
                                    chrom_names[c], es[e], ee[e], strand, gid, shared_parents);
                        else
                            continue;
                    } else {
                        fprintf(f, "%s\tsimulated\texon\t%ld\t%ld\t.\t%c\t.\tID=%s.e%d;Parent=%s\n",
                                chrom_names[c], es[e], ee[e], strand, tid, e + 1, tid);
                    }
                    lines++;
                }
                /* CDS: trim UTRs at both transcript ends, phases in transcript order */
                long utr5, utr3;
                RND(utr5, 100);
                RND(utr3, 100);
                utr5 += 30;
                utr3 += 40;
                long cs[MAXEX] = {0}, ce[MAXEX] = {0};
                for (int q = 0; q < nu; q++) { cs[q] = es[use[q]]; ce[q] = ee[use[q]]; }
                if (strand == '+') { cs[0] += utr5; ce[nu - 1] -= utr3; }
                else { ce[nu - 1] -= utr5; cs[0] += utr3; }
                long total = 0;
                for (int q = 0; q < nu; q++) total += ce[q] - cs[q] + 1;
                if (strand == '+') ce[nu - 1] -= total % 3; /* stop codon ends in frame */
                else cs[0] += total % 3;
                long done = 0;
                RND(coin, 300);
                int bad = coin == 0 && nu > 2;
                for (int qq = 0; qq < nu; qq++) {
                    int q = strand == '+' ? qq : nu - 1 - qq;
                    int phase = (int)((3 - done % 3) % 3);
                    if (bad && qq == 1) { phase = (phase + 1) % 3; (*planted)++; }
                    fprintf(f, "%s\tsimulated\tCDS\t%ld\t%ld\t.\t%c\t%d\tID=cds.%s;Parent=%s\n",
                            chrom_names[c], cs[q], ce[q], strand, phase, tid, tid);
                    done += ce[q] - cs[q] + 1;
                    lines++;
                }
                long u5s = strand == '+' ? es[use[0]] : ce[nu - 1] + 1;
                long u5e = strand == '+' ? cs[0] - 1 : ee[use[nu - 1]];
                long u3s = strand == '+' ? ce[nu - 1] + 1 : es[use[0]];
                long u3e = strand == '+' ? ee[use[nu - 1]] : cs[0] - 1;
                fprintf(f, "%s\tsimulated\tfive_prime_UTR\t%ld\t%ld\t.\t%c\t.\tParent=%s\n",
                        chrom_names[c], u5s, u5e, strand, tid);
                fprintf(f, "%s\tsimulated\tthree_prime_UTR\t%ld\t%ld\t.\t%c\t.\tParent=%s\n",
                        chrom_names[c], u3s, u3e, strand, tid);
                lines += 2;
            }
            fprintf(f, "###\n");
        }
    }
    xfclose(f, path);
    return lines;
}

/* Make room for at least n more bytes in the ID string arena. */
static void arena_reserve(Annot *a, size_t n)
{
    if (a->alen + n <= a->acap) return;
    a->acap = a->acap * 2 + n;
    a->arena = realloc(a->arena, a->acap);
    if (!a->arena) die("out of memory", NULL);
}

/* Read the GFF3 line by line: nine columns, attribute list, ID/Parent. */
static long parse_gff3(Annot *a)
{
    char path[600];
    FILE *f = xfopen("annotation.gff3", "r", path, sizeof path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long nlines = 0;
    a->arena = malloc(1 << 20);
    a->acap = 1 << 20;
    a->alen = 1; /* offset 0 means "none" */
    if (!a->arena) die("out of memory", NULL);
    a->arena[0] = '\0';
    while ((len = getline(&line, &cap, f)) > 0) {
        nlines++;
        if (line[0] == '#') continue;
        if (line[len - 1] == '\n') line[--len] = '\0';
        char *col[9];
        int nc = 0;
        char *p = line;
        col[nc++] = p;
        while (*p && nc < 9) {
            if (*p == '\t') { *p = '\0'; col[nc++] = p + 1; }
            p++;
        }
        if (nc != 9) { fprintf(stderr, "line %ld: %d columns\n", nlines, nc); exit(1); }
        Feature ft;
        memset(&ft, 0, sizeof ft);
        ft.chrom = -1;
        for (int c = 0; c < NCHROM; c++)
            if (strcmp(col[0], chrom_names[c]) == 0) { ft.chrom = c; break; }
        if (ft.chrom < 0) { fprintf(stderr, "line %ld: unknown seqid %s\n", nlines, col[0]); exit(1); }
        ft.type = F_OTHER;
        for (int t = 0; t < F_OTHER; t++)
            if (strcmp(col[2], type_names[t]) == 0) { ft.type = (int8_t)t; break; }
        ft.start = (int32_t)strtol(col[3], NULL, 10);
        ft.end = (int32_t)strtol(col[4], NULL, 10);
        ft.strand = col[6][0] == '-' ? -1 : 1;
        ft.phase = col[7][0] == '.' ? -1 : (int8_t)(col[7][0] - '0');
        ft.up[0] = ft.up[1] = -1;
        /* attributes: key=value;key=value, Parent may be comma-separated */
        char *attr = col[8];
        if (a->alen + (size_t)len + 4 > a->acap) arena_reserve(a, (size_t)len + 4);
        while (*attr) {
            char *end = strchr(attr, ';');
            size_t alen = end ? (size_t)(end - attr) : strlen(attr);
            if (alen > 3 && strncmp(attr, "ID=", 3) == 0) {
                ft.id = (uint32_t)a->alen;
                memcpy(a->arena + a->alen, attr + 3, alen - 3);
                a->arena[a->alen + alen - 3] = '\0';
                a->alen += alen - 2;
            } else if (alen > 7 && strncmp(attr, "Parent=", 7) == 0) {
                char *v = attr + 7, *vend = attr + alen;
                int np = 0;
                while (v < vend && np < 2) {
                    char *comma = memchr(v, ',', (size_t)(vend - v));
                    size_t vl = comma ? (size_t)(comma - v) : (size_t)(vend - v);
                    ft.par[np++] = (uint32_t)a->alen;
                    memcpy(a->arena + a->alen, v, vl);
                    a->arena[a->alen + vl] = '\0';
                    a->alen += vl + 1;
                    v += vl + 1;
                }
            }
            if (!end) break;
            attr = end + 1;
        }
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 65536;
            a->f = realloc(a->f, a->cap * sizeof(Feature));
            if (!a->f) die("out of memory", NULL);
        }
        a->f[a->n++] = ft;
    }
    if (ferror(f)) die("getline", path);
    free(line);
    fclose(f);
    return nlines;
}

/* Open-addressing hash of feature IDs, then resolve Parent references and
 * build child lists (counting sort by parent). */
static long link_features(Annot *a)
{
    size_t hsize = (size_t)1 << HASH_BITS;
    a->hash = calloc(hsize, sizeof(int32_t));
    if (!a->hash) die("out of memory", NULL);
    for (size_t i = 0; i < a->n; i++) {
        if (!a->f[i].id) continue;
        const unsigned char *s = (const unsigned char *)a->arena + a->f[i].id;
        uint64_t h = 1469598103934665603ULL;
        while (*s) { h ^= *s++; h *= 1099511628211ULL; }
        size_t slot = h & (hsize - 1);
        while (a->hash[slot]) slot = (slot + 1) & (hsize - 1);
        a->hash[slot] = (int32_t)i + 1;
    }
    long unresolved = 0;
    a->child_start = calloc(a->n + 1, sizeof(int32_t));
    if (!a->child_start) die("out of memory", NULL);
    for (size_t i = 0; i < a->n; i++) {
        for (int k = 0; k < 2; k++) {
            if (!a->f[i].par[k]) continue;
            const char *key = a->arena + a->f[i].par[k];
            uint64_t h = 1469598103934665603ULL;
            for (const unsigned char *s = (const unsigned char *)key; *s; s++) { h ^= *s; h *= 1099511628211ULL; }
            size_t slot = h & (hsize - 1);
            int32_t found = -1;
            while (a->hash[slot]) {
                int32_t j = a->hash[slot] - 1;
                if (strcmp(a->arena + a->f[j].id, key) == 0) { found = j; break; }
                slot = (slot + 1) & (hsize - 1);
            }
            if (found < 0) unresolved++;
            a->f[i].up[k] = found;
            if (found >= 0) a->child_start[found + 1]++;
        }
    }
    for (size_t i = 0; i < a->n; i++) a->child_start[i + 1] += a->child_start[i];
    a->child_list = malloc((a->child_start[a->n] + 1) * sizeof(int32_t));
    int32_t *fill = malloc((a->n + 1) * sizeof(int32_t));
    if (!a->child_list || !fill) die("out of memory", NULL);
    memcpy(fill, a->child_start, (a->n + 1) * sizeof(int32_t));
    for (size_t i = 0; i < a->n; i++)
        for (int k = 0; k < 2; k++)
            if (a->f[i].up[k] >= 0) a->child_list[fill[a->f[i].up[k]]++] = (int32_t)i;
    free(fill);
    return unresolved;
}

typedef struct {
    long mrna, exons, cds_bad_len, phase_errors, bound_errors, introns;
    long exlen_hist[16], inlen_hist[16], exon_count_hist[MAXEX + 2];
    double exlen_sum, inlen_sum, cdslen_sum;
} Stats;

/* Per mRNA: gather exons and CDS, sort by start, check bounds and phases,
 * write BED12 and intron BED lines, accumulate statistics. */
static void validate_and_export(const Annot *a, Stats *st)
{
    char p1[600], p2[600];
    FILE *bed = xfopen("transcripts.bed", "w", p1, sizeof p1);
    FILE *intr = xfopen("introns.bed", "w", p2, sizeof p2);
    fprintf(bed, "track name=simulated_transcripts description=\"GFF3 to BED12\"\n");
    memset(st, 0, sizeof *st);
    int32_t ex[256], cds[256];
    for (size_t i = 0; i < a->n; i++) {
        const Feature *m = &a->f[i];
        if (m->type != F_MRNA) continue;
        st->mrna++;
        int ne = 0, ncd = 0;
        for (int32_t q = a->child_start[i]; q < a->child_start[i + 1]; q++) {
            int32_t c = a->child_list[q];
            if (a->f[c].type == F_EXON && ne < 256) ex[ne++] = c;
            else if (a->f[c].type == F_CDS && ncd < 256) cds[ncd++] = c;
        }
        for (int x = 1; x < ne; x++) { /* insertion sorts by start */
            int32_t v = ex[x];
            int y = x - 1;
            while (y >= 0 && a->f[ex[y]].start > a->f[v].start) { ex[y + 1] = ex[y]; y--; }
            ex[y + 1] = v;
        }
        for (int x = 1; x < ncd; x++) {
            int32_t v = cds[x];
            int y = x - 1;
            while (y >= 0 && a->f[cds[y]].start > a->f[v].start) { cds[y + 1] = cds[y]; y--; }
            cds[y + 1] = v;
        }
        if (ne == 0) continue;
        st->exons += ne;
        st->exon_count_hist[ne > MAXEX ? MAXEX + 1 : ne]++;
        const Feature *g = m->up[0] >= 0 ? &a->f[m->up[0]] : NULL;
        if (g && (m->start < g->start || m->end > g->end)) st->bound_errors++;
        for (int x = 0; x < ne; x++) {
            const Feature *e = &a->f[ex[x]];
            if (e->start < m->start || e->end > m->end) st->bound_errors++;
            long l = e->end - e->start + 1;
            int bin;
            LOG2_BIN(l, bin);
            st->exlen_hist[bin]++;
            st->exlen_sum += (double)l;
        }
        /* phase continuity in transcription order */
        long done = 0;
        for (int xx = 0; xx < ncd; xx++) {
            int x = m->strand > 0 ? xx : ncd - 1 - xx;
            const Feature *c = &a->f[cds[x]];
            if (c->phase != (int)((3 - done % 3) % 3)) st->phase_errors++;
            done += c->end - c->start + 1;
        }
        st->cdslen_sum += (double)done;
        if (done % 3 != 0) st->cds_bad_len++;
        long thick_s = ncd ? a->f[cds[0]].start - 1 : m->start - 1;
        long thick_e = ncd ? a->f[cds[ncd - 1]].end : m->start - 1;
        const char *name = a->arena + m->id;
        fprintf(bed, "%s\t%d\t%d\t%s\t%d\t%c\t%ld\t%ld\t0,0,0\t%d\t", chrom_names[m->chrom], m->start - 1,
                m->end, name, ne * 10 > 1000 ? 1000 : ne * 10, m->strand > 0 ? '+' : '-', thick_s, thick_e, ne);
        for (int x = 0; x < ne; x++) fprintf(bed, "%d,", a->f[ex[x]].end - a->f[ex[x]].start + 1);
        fputc('\t', bed);
        for (int x = 0; x < ne; x++) fprintf(bed, "%d,", a->f[ex[x]].start - m->start);
        fputc('\n', bed);
        for (int x = 0; x + 1 < ne; x++) {
            long is = a->f[ex[x]].end, ie = a->f[ex[x + 1]].start - 1;
            long l = ie - is;
            if (l <= 0) { st->bound_errors++; continue; }
            st->introns++;
            int bin;
            LOG2_BIN(l, bin);
            st->inlen_hist[bin]++;
            st->inlen_sum += (double)l;
            int num = m->strand > 0 ? x + 1 : ne - 1 - x;
            fprintf(intr, "%s\t%ld\t%ld\t%s.intron%d\t%ld\t%c\n", chrom_names[m->chrom], is, ie, name, num, l,
                    m->strand > 0 ? '+' : '-');
        }
    }
    xfclose(bed, p1);
    xfclose(intr, p2);
}

static void write_density(const Annot *a, long *maxwin)
{
    char path[600];
    FILE *f = xfopen("gene_density.bedgraph", "w", path, sizeof path);
    fprintf(f, "track type=bedGraph name=gene_density_1Mb\n");
    *maxwin = 0;
    for (int c = 0; c < NCHROM; c++) {
        long nw = chrom_len[c] / 100000 + 1;
        long *cnt = calloc((size_t)nw, sizeof(long));
        if (!cnt) die("out of memory", NULL);
        for (size_t i = 0; i < a->n; i++)
            if (a->f[i].type == F_GENE && a->f[i].chrom == c) cnt[(a->f[i].start - 1) / 100000]++;
        for (long w = 0; w + 10 <= nw; w++) { /* 1 Mb sliding window, 100 kb step */
            long s = 0;
            for (int k = 0; k < 10; k++) s += cnt[w + k];
            if (s > *maxwin) *maxwin = s;
            fprintf(f, "%s\t%ld\t%ld\t%ld\n", chrom_names[c], w * 100000, w * 100000 + 1000000, s);
        }
        free(cnt);
    }
    xfclose(f, path);
}

static void write_report(const Annot *a, const Stats *st, long lines, long planted, long unresolved,
                         long maxwin)
{
    char path[600];
    FILE *f = xfopen("annotation_report.txt", "w", path, sizeof path);
    long ngene = 0;
    for (size_t i = 0; i < a->n; i++) ngene += a->f[i].type == F_GENE;
    fprintf(f, "assembly %ld bp in %d sequences, N50 %ld bp\n", assembly_len, NCHROM + NSCAF, assembly_n50);
    fprintf(f, "GFF3 lines %ld, features %zu, genes %ld, mRNAs %ld, exons %ld, introns %ld\n", lines,
            a->n, ngene, st->mrna, st->exons, st->introns);
    fprintf(f, "unresolved parents %ld, bound errors %ld, CDS length not multiple of 3: %ld\n",
            unresolved, st->bound_errors, st->cds_bad_len);
    fprintf(f, "CDS phase errors %ld (planted %ld)\n", st->phase_errors, planted);
    fprintf(f, "mean exon %.1f bp, mean intron %.1f bp, mean CDS %.1f bp, max genes per Mb %ld\n",
            st->exlen_sum / st->exons, st->inlen_sum / (st->introns ? st->introns : 1),
            st->cdslen_sum / st->mrna, maxwin);
    fprintf(f, "\nlength bin   exons   introns\n");
    for (int b = 0; b < 16; b++)
        fprintf(f, "%6ld+ %9ld %9ld\n", 1L << b, st->exlen_hist[b], st->inlen_hist[b]);
    fprintf(f, "\nexons per transcript\n");
    for (int k = 1; k <= MAXEX + 1; k++)
        if (st->exon_count_hist[k]) fprintf(f, "%3d %8ld\n", k, st->exon_count_hist[k]);
    xfclose(f, path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    write_chrom_sizes();
    read_chrom_sizes();
    long planted;
    long written = generate_gff3(&planted);

    Annot a;
    memset(&a, 0, sizeof a);
    long lines = parse_gff3(&a);
    long unresolved = link_features(&a);
    Stats st;
    validate_and_export(&a, &st);
    long maxwin;
    write_density(&a, &maxwin);
    write_report(&a, &st, lines, planted, unresolved, maxwin);

    printf("GFF3: %ld feature lines written, %ld lines read, %zu features\n", written, lines, a.n);
    printf("%ld mRNAs, %ld exons, %ld introns; phase errors %ld (planted %ld), unresolved %ld\n", st.mrna,
           st.exons, st.introns, st.phase_errors, planted, unresolved);
    int ok = st.phase_errors == planted && unresolved == 0 && st.bound_errors == 0 && st.cds_bad_len == 0;
    free(a.f); free(a.arena); free(a.hash); free(a.child_start); free(a.child_list);
    return ok ? 0 : 1;
}
