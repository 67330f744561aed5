/* protein_hydropathy_windows: generates a synthetic proteome in FASTA (60-col
 * wrapped lines, some sequences carrying hydrophobic transmembrane segments),
 * re-parses it character by character, computes Kyte-Doolittle sliding-window
 * hydropathy, calls candidate transmembrane helices, writes a per-protein TSV,
 * a GFF-like feature file, per-family FASTA subsets, and a binary dipeptide
 * composition matrix that is read back for a nearest-neighbour check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <ctype.h>

#define NPROT 9000
#define MINLEN 120
#define MAXLEN 1400
#define WIN 19
#define NFAM 12
#define NNQ 450

static const char AA[] = "ACDEFGHIKLMNPQRSTVWY";
static const char HYD[] = "AILMFVWC";
static double kd[26];

typedef struct {
    char id[32];
    int family;
    int len;
    char *seq;
} Protein;

typedef struct { unsigned s; } Rand;
static unsigned rnd(Rand *r) { r->s = r->s * 1664525u + 1013904223u; return r->s >> 8; }

static void init_scale(void)
{
    const char *a = "ARNDCQEGHILKMFPSTWYV";
    const double v[] = {1.8, -4.5, -3.5, -3.5, 2.5, -3.5, -3.5, -0.4, -3.2, 4.5, 3.8, -3.9, 1.9, 2.8, -1.6, -0.8, -0.7, -0.9, -1.3, 4.2};
    for (int i = 0; i < 20; i++) kd[a[i] - 'A'] = v[i];
}

static void generate_fasta(const char *path, int nprot, Rand *r)
{
    FILE *fp = fopen(path, "w");
    if (!fp) { perror(path); exit(1); }
    char *buf = malloc(MAXLEN + 1);
    for (int p = 0; p < nprot; p++) {
        int len = MINLEN + (int)(rnd(r) % (MAXLEN - MINLEN));
        int fam = (int)(rnd(r) % NFAM);
        for (int i = 0; i < len; i++) buf[i] = AA[rnd(r) % 20];
        int ntm = fam % 4 == 0 ? 1 + (int)(rnd(r) % 7) : 0;
        for (int t = 0; t < ntm; t++) {
            int at = (int)(rnd(r) % (unsigned)(len - 25));
            for (int i = 0; i < 21; i++) buf[at + i] = HYD[rnd(r) % 8];
        }
        fprintf(fp, ">PRT%06d fam=%02d len=%d\n", p, fam, len);
        for (int i = 0; i < len; i += 60) {
            int n = len - i < 60 ? len - i : 60;
            fwrite(buf + i, 1, (size_t)n, fp);
            fputc('\n', fp);
        }
    }
    free(buf);
    fclose(fp);
}

/* character-level parser with getc */
static int read_fasta(const char *path, Protein *ps, int maxp)
{
    FILE *fp = fopen(path, "r");
    if (!fp) { perror(path); exit(1); }
    int n = -1, c, cap = 0;
    char header[128];
    while ((c = getc(fp)) != EOF) {
        if (c == '>') {
            if (!fgets(header, sizeof header, fp)) break;
            if (++n >= maxp) break;
            sscanf(header, "%31s fam=%d", ps[n].id, &ps[n].family);
            cap = 256; ps[n].len = 0; ps[n].seq = malloc((size_t)cap);
        } else if (isalpha(c) && n >= 0) {
            if (ps[n].len + 1 >= cap) { cap *= 2; ps[n].seq = realloc(ps[n].seq, (size_t)cap); }
            ps[n].seq[ps[n].len++] = (char)c;
        }
    }
    fclose(fp);
    return n + 1;
}

/* compute: windowed hydropathy, helix calls; returns number of segments */
static int call_helices(const Protein *p, double *prof, int *starts, int maxs, double *gravy)
{
    double s = 0, tot = 0;
    for (int i = 0; i < p->len; i++) tot += kd[p->seq[i] - 'A'];
    *gravy = tot / p->len;
    for (int i = 0; i < WIN && i < p->len; i++) s += kd[p->seq[i] - 'A'];
    int nw = p->len - WIN + 1, ns = 0, run = 0;
    for (int i = 0; i < nw; i++) {
        prof[i] = s / WIN;
        if (i + WIN < p->len) s += kd[p->seq[i + WIN] - 'A'] - kd[p->seq[i] - 'A'];
        if (prof[i] > 1.6) { if (++run == 1 && ns < maxs) starts[ns++] = i; } else run = 0;
    }
    return ns;
}

static void dipeptide_vector(const Protein *p, float *v)
{
    int idx[26];
    for (int i = 0; i < 26; i++) idx[i] = 0;
    for (int i = 0; i < 20; i++) idx[AA[i] - 'A'] = i;
    memset(v, 0, 400 * sizeof(float));
    for (int i = 0; i + 1 < p->len; i++) v[idx[p->seq[i] - 'A'] * 20 + idx[p->seq[i + 1] - 'A']] += 1.0f;
    float nrm = 0;
    for (int k = 0; k < 400; k++) nrm += v[k] * v[k];
    nrm = sqrtf(nrm);
    for (int k = 0; k < 400; k++) v[k] /= nrm;
}

static void write_reports(Protein *ps, int n, const char *dir)
{
    char name[512];
    snprintf(name, sizeof name, "%s/hydropathy.tsv", dir);
    FILE *tsv = fopen(name, "w");
    snprintf(name, sizeof name, "%s/tm_segments.gff", dir);
    FILE *gff = fopen(name, "w");
    if (!tsv || !gff) { perror("reports"); exit(1); }
    fprintf(tsv, "id\tfamily\tlength\tgravy\tn_tm\tmax_window\n");
    double *prof = malloc(MAXLEN * sizeof(double));
    int starts[64];
    for (int i = 0; i < n; i++) {
        double gravy;
        int ns = call_helices(&ps[i], prof, starts, 64, &gravy);
        double mx = -9;
        for (int k = 0; k < ps[i].len - WIN + 1; k++) if (prof[k] > mx) mx = prof[k];
        fprintf(tsv, "%s\t%d\t%d\t%.4f\t%d\t%.3f\n", ps[i].id, ps[i].family, ps[i].len, gravy, ns, mx);
        for (int s = 0; s < ns; s++)
            fprintf(gff, "%s\tkdscan\tTM_helix\t%d\t%d\t%.2f\t.\t.\tID=%s_tm%d\n", ps[i].id, starts[s] + 1,
                    starts[s] + WIN, prof[starts[s]], ps[i].id, s + 1);
    }
    free(prof);
    fclose(tsv); fclose(gff);
}

/* many files: one FASTA subset per family, each opened in append mode per record */
static void write_family_subsets(const Protein *ps, int n, const char *dir)
{
    char name[512];
    for (int i = 0; i < n; i++) {
        if (ps[i].len < 900) continue;
        snprintf(name, sizeof name, "%s/family_%02d_long.fa", dir, ps[i].family);
        FILE *fp = fopen(name, "a");
        if (!fp) { perror(name); exit(1); }
        fprintf(fp, ">%s\n", ps[i].id);
        for (int k = 0; k < ps[i].len; k += 80) fprintf(fp, "%.*s\n", ps[i].len - k < 80 ? ps[i].len - k : 80, ps[i].seq + k);
        fclose(fp);
    }
}

static void write_composition(Protein *ps, int n, const char *path)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) { perror(path); exit(1); }
    float v[400];
    fwrite(&n, sizeof n, 1, fp);
    for (int i = 0; i < n; i++) { dipeptide_vector(&ps[i], v); fwrite(v, sizeof(float), 400, fp); }
    fclose(fp);
}

/* compute-heavy: nearest neighbour by cosine over the stored matrix */
static int nn_family_agreement(const char *path, int nq)
{
    FILE *fp = fopen(path, "rb");
    int n;
    if (!fp || fread(&n, sizeof n, 1, fp) != 1) { perror(path); exit(1); }
    float *m = malloc((size_t)n * 400 * sizeof(float));
    if (fread(m, sizeof(float), (size_t)n * 400, fp) != (size_t)n * 400) { fprintf(stderr, "short\n"); exit(1); }
    fclose(fp);
    int agree = 0;
    for (int q = 0; q < nq; q++) {
        int qi = (q * 7919) % n, best = -1;
        float bd = -2;
        for (int j = 0; j < n; j++) {
            if (j == qi) continue;
            float d = 0;
            for (int k = 0; k < 400; k++) d += m[(size_t)qi * 400 + k] * m[(size_t)j * 400 + k];
            if (d > bd) { bd = d; best = j; }
        }
        agree += (best % 2 == qi % 2);
    }
    free(m);
    return agree;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    char fa[512], comp[512];
    snprintf(fa, sizeof fa, "%s/proteome.fa", argv[1]);
    snprintf(comp, sizeof comp, "%s/dipeptide.f32", argv[1]);
    init_scale();
    Rand r = {424242};
    generate_fasta(fa, NPROT, &r);
    Protein *ps = calloc(NPROT, sizeof(Protein));
    int n = read_fasta(fa, ps, NPROT);
    write_reports(ps, n, argv[1]);
    write_family_subsets(ps, n, argv[1]);
    write_composition(ps, n, comp);
    int agree = nn_family_agreement(comp, NNQ);
    printf("proteins %d nn-parity agreement %d/%d\n", n, agree, NNQ);
    for (int i = 0; i < n; i++) free(ps[i].seq);
    free(ps);
    return 0;
}
