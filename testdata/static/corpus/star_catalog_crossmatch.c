/*
 * star_catalog_crossmatch.c
 *
 * Positional cross-match of two simulated survey catalogues of the same
 * 10 x 10 degree field: a deep optical survey (binary fixed-length records)
 * and a shallower infrared survey (CSV text, with a small systematic frame
 * offset and rotation, proper motions and a colour term).  The program first
 * writes both catalogues from a common truth list, then analyses them in
 * read-mostly passes:
 *   1. stream the optical catalogue for magnitude counts and error curves,
 *   2. parse the IR catalogue into memory and bucket it on a 36" grid,
 *   3. stream the optical catalogue again and match within 1.5 arcsec,
 *   4. fit the astrometric frame offset/rotation and photometric transform
 *      with iterative sigma clipping,
 *   5. stream the optical catalogue a third time for match completeness and
 *      a source-density map,
 * and finally writes a short text report.
 *
 * usage: star_catalog_crossmatch OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTRUE 600000
#define RA0 150.0
#define DEC0 0.0
#define FIELD 10.0
#define MAG_BRIGHT 14.0
#define MAG_FAINT 22.0
#define LIMIT_A 21.5
#define LIMIT_B 20.0
#define GRID 1000 /* 0.01 deg cells */
#define MATCH_RADIUS (1.5 / 3600.0)
#define CHUNK 8192
#define NMAGBIN 32
#define NDENS 20
#define DEG2RAD 0.017453292519943295
#define PI 3.14159265358979323846

typedef struct { /* 40-byte record of the optical catalogue */
    int64_t id;
    double ra, dec;
    float mag, magerr, fwhm;
    uint32_t flags;
} OptRec;

typedef struct {
    double *ra, *dec;
    float *mag, *magerr;
    int64_t *id;
    int n;
    int *cell_start, *cell_list;
} IrCat;

typedef struct {
    double *dra, *ddec, *dec, *ra;
    float *ma, *mb;
    int n, cap;
} Matches;

typedef struct {
    double ra, dec, pmra, pmdec;
    float mag, colour;
} Truth;

static const char *outdir;
static uint64_t rng_state = 0x9d2c5680ULL;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "star_catalog_crossmatch: %s %s: %s\n", what, path ? path : "",
            strerror(errno));
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) die("out of memory", NULL);
    return p;
}

/* Fill buf with n uniform deviates in (0,1) (splitmix64). */
static void fill_uniform(double *buf, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        buf[i] = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
    }
}

static void opath(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", outdir, name);
}

/* Truth list: Euclidean-like number counts, uniform field plus three open
 * clusters, random colours and proper motions. */
static void generate_truth(Truth *t)
{
    double *ubuf = xmalloc(CHUNK * 8 * sizeof(double));
    const double a = pow(10.0, 0.3 * MAG_BRIGHT), b = pow(10.0, 0.3 * MAG_FAINT);
    const double cl_ra[3] = {152.3, 156.8, 158.1}, cl_dec[3] = {3.1, 7.4, 1.9};
    for (int i = 0; i < NTRUE; i++) {
        if (i % CHUNK == 0) fill_uniform(ubuf, CHUNK * 8);
        const double *u = ubuf + (size_t)(i % CHUNK) * 8;
        if (u[0] < 0.06) {
            int c = (int)(u[1] * 3.0);
            double r = 0.15 * sqrt(-2.0 * log(u[2])), th = 2.0 * PI * u[3];
            t[i].ra = cl_ra[c] + r * cos(th) / cos(cl_dec[c] * DEG2RAD);
            t[i].dec = cl_dec[c] + r * sin(th);
        } else {
            t[i].ra = RA0 + FIELD * u[2];
            t[i].dec = DEC0 + FIELD * u[3];
        }
        if (t[i].ra < RA0) t[i].ra += FIELD;
        if (t[i].ra >= RA0 + FIELD) t[i].ra -= FIELD;
        if (t[i].dec < DEC0) t[i].dec = DEC0 + 1e-6;
        if (t[i].dec >= DEC0 + FIELD) t[i].dec = DEC0 + FIELD - 1e-6;
        t[i].mag = (float)(log10(a + u[4] * (b - a)) / 0.3);
        t[i].colour = (float)(0.2 + 1.3 * u[5] * u[5]);
        double s = sqrt(-2.0 * log(u[6]));
        t[i].pmra = 8e-3 / 3600.0 * s * cos(2.0 * PI * u[7]); /* deg per epoch gap */
        t[i].pmdec = 8e-3 / 3600.0 * s * sin(2.0 * PI * u[7]);
    }
    free(ubuf);
}

static int write_catalog_optical(const Truth *t)
{
    char path[600];
    opath(path, sizeof path, "optical_deep.cat");
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    OptRec *buf = xmalloc(CHUNK * sizeof(OptRec));
    double *ubuf = xmalloc(CHUNK * 6 * sizeof(double));
    int nb = 0, nout = 0;
    for (int i = 0; i < NTRUE + NTRUE / 50; i++) {
        if (i % CHUNK == 0) fill_uniform(ubuf, CHUNK * 6);
        const double *u = ubuf + (size_t)(i % CHUNK) * 6;
        OptRec r;
        double g1 = sqrt(-2.0 * log(u[0])) * cos(2.0 * PI * u[1]);
        double g2 = sqrt(-2.0 * log(u[0])) * sin(2.0 * PI * u[1]);
        if (i < NTRUE) {
            double m = t[i].mag;
            double merr = 0.008 + 0.15 * pow(10.0, 0.4 * (m - LIMIT_A));
            double mobs = m + merr * g1;
            if (mobs > LIMIT_A + 0.3 * (u[2] - 0.5)) continue;
            double pos = (0.04 + 0.25 * pow(10.0, 0.4 * (m - 21.0))) / 3600.0;
            r.id = 1000000000LL + i;
            r.ra = t[i].ra + pos * g2 / cos(t[i].dec * DEG2RAD);
            r.dec = t[i].dec + pos * sqrt(-2.0 * log(u[3])) * cos(2.0 * PI * u[4]);
            r.mag = (float)mobs;
            r.magerr = (float)merr;
            r.fwhm = (float)(0.9 + 0.1 * u[5]);
            r.flags = mobs < 15.0 ? 4u : 0u; /* saturated */
        } else { /* spurious detections: cosmic rays, artefacts */
            r.id = 2000000000LL + i;
            r.ra = RA0 + FIELD * u[2];
            r.dec = DEC0 + FIELD * u[3];
            r.mag = (float)(20.5 + 1.0 * u[4]);
            r.magerr = 0.12f;
            r.fwhm = (float)(0.3 + 0.3 * u[5]);
            r.flags = 1u;
        }
        buf[nb++] = r;
        nout++;
        if (nb == CHUNK) {
            if (fwrite(buf, sizeof(OptRec), nb, f) != (size_t)nb) die("fwrite", path);
            nb = 0;
        }
    }
    if (nb && fwrite(buf, sizeof(OptRec), nb, f) != (size_t)nb) die("fwrite", path);
    if (fclose(f) != 0) die("fclose", path);
    free(buf);
    free(ubuf);
    return nout;
}

static int write_catalog_ir(const Truth *t)
{
    char path[600];
    opath(path, sizeof path, "infrared_shallow.csv");
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    if (fprintf(f, "# source_id,ra_deg,dec_deg,mag_ks,err_ks,quality\n") < 0) die("fprintf", path);
    double *ubuf = xmalloc(CHUNK * 5 * sizeof(double));
    int nout = 0;
    for (int i = 0; i < NTRUE; i++) {
        if (i % CHUNK == 0) fill_uniform(ubuf, CHUNK * 5);
        const double *u = ubuf + (size_t)(i % CHUNK) * 5;
        double mb = t[i].mag - t[i].colour;
        double merr = 0.02 + 0.2 * pow(10.0, 0.4 * (mb - LIMIT_B));
        double mobs = mb + merr * sqrt(-2.0 * log(u[0])) * cos(2.0 * PI * u[1]);
        if (mobs > LIMIT_B) continue;
        double sig = 0.12 / 3600.0;
        double g1 = sqrt(-2.0 * log(u[2])) * cos(2.0 * PI * u[3]);
        double g2 = sqrt(-2.0 * log(u[2])) * sin(2.0 * PI * u[3]);
        /* frame offset (0.12", -0.08") and a 0.02"/deg rotation-like term */
        double dra = (0.12 + 0.02 * (t[i].dec - 5.0)) / 3600.0;
        double ddec = (-0.08 - 0.02 * (t[i].ra - 155.0)) / 3600.0;
        double ra = t[i].ra + t[i].pmra + (dra + sig * g1) / cos(t[i].dec * DEG2RAD);
        double dec = t[i].dec + t[i].pmdec + ddec + sig * g2;
        char q = u[4] < 0.03 ? 'C' : (mobs < 10.5 ? 'S' : 'A');
        if (fprintf(f, "J%010d,%.7f,%.7f,%.3f,%.3f,%c\n", i, ra, dec, mobs, merr, q) < 0)
            die("fprintf", path);
        nout++;
    }
    if (fclose(f) != 0) die("fclose", path);
    free(ubuf);
    return nout;
}

/* Pass 1: magnitude histogram, mean error per bin and bounding box. */
static long scan_optical(int *hist, double *errsum, double box[4])
{
    char path[600];
    opath(path, sizeof path, "optical_deep.cat");
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    OptRec *buf = xmalloc(CHUNK * sizeof(OptRec));
    long n = 0;
    box[0] = box[2] = 1e9;
    box[1] = box[3] = -1e9;
    size_t got;
    while ((got = fread(buf, sizeof(OptRec), CHUNK, f)) > 0) {
        for (size_t k = 0; k < got; k++) {
            const OptRec *r = &buf[k];
            int b = (int)((r->mag - MAG_BRIGHT) * 4.0);
            if (b >= 0 && b < NMAGBIN) { hist[b]++; errsum[b] += r->magerr; }
            if (r->ra < box[0]) box[0] = r->ra;
            if (r->ra > box[1]) box[1] = r->ra;
            if (r->dec < box[2]) box[2] = r->dec;
            if (r->dec > box[3]) box[3] = r->dec;
        }
        n += (long)got;
    }
    if (ferror(f)) die("fread", path);
    fclose(f);
    free(buf);
    return n;
}

/* Pass 2: parse the IR CSV (quality C rejected) into column arrays. */
static void load_ir(IrCat *c, int cap)
{
    char path[600];
    opath(path, sizeof path, "infrared_shallow.csv");
    FILE *f = fopen(path, "r");
    if (!f) die("fopen", path);
    c->ra = xmalloc(cap * sizeof(double));
    c->dec = xmalloc(cap * sizeof(double));
    c->mag = xmalloc(cap * sizeof(float));
    c->magerr = xmalloc(cap * sizeof(float));
    c->id = xmalloc(cap * sizeof(int64_t));
    c->n = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *p = line, *end;
        if (*p != 'J') continue;
        long long id = strtoll(p + 1, &end, 10);
        double ra = strtod(end + 1, &end);
        double dec = strtod(end + 1, &end);
        double m = strtod(end + 1, &end);
        double e = strtod(end + 1, &end);
        if (*end != ',') die("malformed CSV line", path);
        if (end[1] == 'C') continue;
        if (c->n >= cap) die("IR catalogue larger than expected", path);
        c->id[c->n] = id;
        c->ra[c->n] = ra;
        c->dec[c->n] = dec;
        c->mag[c->n] = (float)m;
        c->magerr[c->n] = (float)e;
        c->n++;
    }
    if (ferror(f)) die("fgets", path);
    fclose(f);
}

/* Counting sort of IR sources into 0.01-degree cells. */
static void bucket_ir(IrCat *c)
{
    c->cell_start = calloc((size_t)GRID * GRID + 1, sizeof(int));
    c->cell_list = xmalloc((size_t)c->n * sizeof(int));
    int *cell = xmalloc((size_t)c->n * sizeof(int));
    if (!c->cell_start) die("out of memory", NULL);
    for (int i = 0; i < c->n; i++) {
        int cx = (int)((c->ra[i] - RA0) / FIELD * GRID), cy = (int)((c->dec[i] - DEC0) / FIELD * GRID);
        cx = cx < 0 ? 0 : (cx >= GRID ? GRID - 1 : cx);
        cy = cy < 0 ? 0 : (cy >= GRID ? GRID - 1 : cy);
        cell[i] = cy * GRID + cx;
        c->cell_start[cell[i] + 1]++;
    }
    for (int k = 0; k < GRID * GRID; k++) c->cell_start[k + 1] += c->cell_start[k];
    int *fill = xmalloc((size_t)GRID * GRID * sizeof(int));
    memcpy(fill, c->cell_start, (size_t)GRID * GRID * sizeof(int));
    for (int i = 0; i < c->n; i++) c->cell_list[fill[cell[i]]++] = i;
    free(fill);
    free(cell);
}

/* Pass 3: stream optical records, nearest IR neighbour within the radius. */
static void crossmatch(const IrCat *c, Matches *m, unsigned char *matched, long nopt)
{
    char path[600];
    opath(path, sizeof path, "optical_deep.cat");
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    OptRec *buf = xmalloc(CHUNK * sizeof(OptRec));
    long idx = 0;
    size_t got;
    while ((got = fread(buf, sizeof(OptRec), CHUNK, f)) > 0) {
        for (size_t k = 0; k < got; k++, idx++) {
            const OptRec *r = &buf[k];
            if (idx >= nopt) die("optical catalogue grew", path);
            matched[idx] = 0;
            if (r->flags & 1u) continue;
            double cosd = cos(r->dec * DEG2RAD);
            int cx = (int)((r->ra - RA0) / FIELD * GRID), cy = (int)((r->dec - DEC0) / FIELD * GRID);
            double best = MATCH_RADIUS * MATCH_RADIUS;
            int bj = -1;
            for (int dy = -1; dy <= 1; dy++) {
                int yy = cy + dy;
                if (yy < 0 || yy >= GRID) continue;
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = cx + dx;
                    if (xx < 0 || xx >= GRID) continue;
                    int cell = yy * GRID + xx;
                    for (int q = c->cell_start[cell]; q < c->cell_start[cell + 1]; q++) {
                        int j = c->cell_list[q];
                        double a = (c->ra[j] - r->ra) * cosd, b = c->dec[j] - r->dec;
                        double d2 = a * a + b * b;
                        if (d2 < best) { best = d2; bj = j; }
                    }
                }
            }
            if (bj < 0) continue;
            matched[idx] = 1;
            if (m->n == m->cap) die("match buffer full", NULL);
            m->dra[m->n] = (c->ra[bj] - r->ra) * cosd * 3600.0;
            m->ddec[m->n] = (c->dec[bj] - r->dec) * 3600.0;
            m->ra[m->n] = r->ra;
            m->dec[m->n] = r->dec;
            m->ma[m->n] = r->mag;
            m->mb[m->n] = c->mag[bj];
            m->n++;
        }
    }
    if (ferror(f)) die("fread", path);
    fclose(f);
    free(buf);
}

/* Solve the 3x3 normal equations of an offset + linear-gradient model with
 * iterative 3-sigma clipping: d = p0 + p1*(x - x0) + p2*(y - y0). */
static void fit_plane_clipped(const double *d, const double *x, const double *y, int n, double x0,
                              double y0, double p[3], double *rms, int *nused)
{
    unsigned char *use = xmalloc((size_t)n);
    memset(use, 1, (size_t)n);
    p[0] = p[1] = p[2] = 0.0;
    double sig = 1e9;
    for (int it = 0; it < 6; it++) {
        double A[3][3] = {{0}}, rhs[3] = {0};
        int cnt = 0;
        for (int i = 0; i < n; i++) {
            if (!use[i]) continue;
            double v[3] = {1.0, x[i] - x0, y[i] - y0};
            for (int a = 0; a < 3; a++) {
                rhs[a] += v[a] * d[i];
                for (int b = 0; b < 3; b++) A[a][b] += v[a] * v[b];
            }
            cnt++;
        }
        /* Gaussian elimination with partial pivoting */
        for (int col = 0; col < 3; col++) {
            int piv = col;
            for (int r = col + 1; r < 3; r++)
                if (fabs(A[r][col]) > fabs(A[piv][col])) piv = r;
            for (int k = 0; k < 3; k++) { double t = A[col][k]; A[col][k] = A[piv][k]; A[piv][k] = t; }
            double t = rhs[col]; rhs[col] = rhs[piv]; rhs[piv] = t;
            for (int r = col + 1; r < 3; r++) {
                double f = A[r][col] / A[col][col];
                for (int k = col; k < 3; k++) A[r][k] -= f * A[col][k];
                rhs[r] -= f * rhs[col];
            }
        }
        for (int r = 2; r >= 0; r--) {
            double s = rhs[r];
            for (int k = r + 1; k < 3; k++) s -= A[r][k] * p[k];
            p[r] = s / A[r][r];
        }
        double ss = 0;
        for (int i = 0; i < n; i++) {
            if (!use[i]) continue;
            double res = d[i] - p[0] - p[1] * (x[i] - x0) - p[2] * (y[i] - y0);
            ss += res * res;
        }
        sig = sqrt(ss / (cnt > 3 ? cnt - 3 : 1));
        for (int i = 0; i < n; i++) {
            double res = d[i] - p[0] - p[1] * (x[i] - x0) - p[2] * (y[i] - y0);
            use[i] = fabs(res) < 3.0 * sig;
        }
        *nused = cnt;
    }
    *rms = sig;
    free(use);
}

/* Photometric transform magB = a + b*magA, clipped, plus colour histogram. */
static void fit_photometry(const Matches *m, double *a, double *b, double *rms, int *colour_hist)
{
    double ca = 0, cb = 1;
    double sig = 1e9;
    for (int it = 0; it < 5; it++) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0, ss = 0;
        int n = 0;
        for (int i = 0; i < m->n; i++) {
            double r = m->mb[i] - (ca + cb * m->ma[i]);
            if (fabs(r) > 3.0 * sig) continue;
            sx += m->ma[i]; sy += m->mb[i];
            sxx += (double)m->ma[i] * m->ma[i]; sxy += (double)m->ma[i] * m->mb[i];
            n++;
        }
        double den = n * sxx - sx * sx;
        cb = (n * sxy - sx * sy) / den;
        ca = (sy - cb * sx) / n;
        for (int i = 0; i < m->n; i++) {
            double r = m->mb[i] - (ca + cb * m->ma[i]);
            if (fabs(r) <= 3.0 * sig) ss += r * r;
        }
        sig = sqrt(ss / n);
    }
    for (int i = 0; i < m->n; i++) {
        int k = (int)((m->ma[i] - m->mb[i]) * 10.0);
        if (k >= 0 && k < 20) colour_hist[k]++;
    }
    *a = ca; *b = cb; *rms = sig;
}

/* Pass 4: completeness of matching per magnitude and source density map. */
static void completeness_pass(const unsigned char *matched, long nopt, int *nmag, int *nmatch,
                              int dens[NDENS][NDENS])
{
    char path[600];
    opath(path, sizeof path, "optical_deep.cat");
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    OptRec *buf = xmalloc(CHUNK * sizeof(OptRec));
    long idx = 0;
    size_t got;
    while ((got = fread(buf, sizeof(OptRec), CHUNK, f)) > 0) {
        for (size_t k = 0; k < got && idx < nopt; k++, idx++) {
            const OptRec *r = &buf[k];
            int b = (int)((r->mag - MAG_BRIGHT) * 4.0);
            if (b >= 0 && b < NMAGBIN && !(r->flags & 1u)) {
                nmag[b]++;
                nmatch[b] += matched[idx];
            }
            int dx = (int)((r->ra - RA0) / FIELD * NDENS), dy = (int)((r->dec - DEC0) / FIELD * NDENS);
            if (dx >= 0 && dx < NDENS && dy >= 0 && dy < NDENS) dens[dy][dx]++;
        }
    }
    if (ferror(f)) die("fread", path);
    fclose(f);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];

    Truth *truth = xmalloc(NTRUE * sizeof(Truth));
    generate_truth(truth);
    int nopt_written = write_catalog_optical(truth);
    int nir_written = write_catalog_ir(truth);
    free(truth);

    int hist[NMAGBIN] = {0};
    double errsum[NMAGBIN] = {0}, box[4];
    long nopt = scan_optical(hist, errsum, box);
    if (nopt != nopt_written) die("optical record count mismatch", NULL);

    IrCat ir;
    load_ir(&ir, nir_written);
    bucket_ir(&ir);

    Matches m;
    m.cap = ir.n;
    m.n = 0;
    m.dra = xmalloc(m.cap * sizeof(double));
    m.ddec = xmalloc(m.cap * sizeof(double));
    m.ra = xmalloc(m.cap * sizeof(double));
    m.dec = xmalloc(m.cap * sizeof(double));
    m.ma = xmalloc(m.cap * sizeof(float));
    m.mb = xmalloc(m.cap * sizeof(float));
    unsigned char *matched = xmalloc((size_t)nopt);
    crossmatch(&ir, &m, matched, nopt);

    double pra[3], pdec[3], rms_ra, rms_dec;
    int used_ra, used_dec;
    fit_plane_clipped(m.dra, m.ra, m.dec, m.n, 155.0, 5.0, pra, &rms_ra, &used_ra);
    fit_plane_clipped(m.ddec, m.ra, m.dec, m.n, 155.0, 5.0, pdec, &rms_dec, &used_dec);
    double pa, pb, prms;
    int colour_hist[20] = {0};
    fit_photometry(&m, &pa, &pb, &prms, colour_hist);

    int nmag[NMAGBIN] = {0}, nmatch[NMAGBIN] = {0};
    static int dens[NDENS][NDENS];
    completeness_pass(matched, nopt, nmag, nmatch, dens);

    char path[600];
    opath(path, sizeof path, "crossmatch_report.txt");
    FILE *r = fopen(path, "w");
    if (!r) die("fopen", path);
    fprintf(r, "optical sources %ld (box RA %.4f..%.4f Dec %.4f..%.4f)\n", nopt, box[0], box[1],
            box[2], box[3]);
    fprintf(r, "infrared sources %d (of %d lines)\nmatches %d within %.1f arcsec\n", ir.n,
            nir_written, m.n, MATCH_RADIUS * 3600.0);
    fprintf(r, "dRA*cosDec  = %+.4f %+.5f*(RA-155) %+.5f*(Dec-5) arcsec, rms %.4f (%d used)\n",
            pra[0], pra[1], pra[2], rms_ra, used_ra);
    fprintf(r, "dDec        = %+.4f %+.5f*(RA-155) %+.5f*(Dec-5) arcsec, rms %.4f (%d used)\n",
            pdec[0], pdec[1], pdec[2], rms_dec, used_dec);
    fprintf(r, "Ks = %.4f + %.4f * r, rms %.4f mag\n\n", pa, pb, prms);
    fprintf(r, "  mag    N_opt  mean_err  matched  completeness\n");
    for (int b = 0; b < NMAGBIN; b++)
        fprintf(r, "%5.2f %8d %9.4f %8d %8.3f\n", MAG_BRIGHT + b / 4.0, hist[b],
                hist[b] ? errsum[b] / hist[b] : 0.0, nmatch[b],
                nmag[b] ? (double)nmatch[b] / nmag[b] : 0.0);
    fprintf(r, "\ncolour histogram (r-Ks, 0.1 mag bins):");
    for (int k = 0; k < 20; k++) fprintf(r, " %d", colour_hist[k]);
    fprintf(r, "\n\nsource density per 0.25 sq deg:\n");
    for (int y = NDENS - 1; y >= 0; y--) {
        for (int x = 0; x < NDENS; x++) fprintf(r, " %5d", dens[y][x]);
        fprintf(r, "\n");
    }
    if (ferror(r) || fclose(r) != 0) die("write", path);

    printf("catalogues: %ld optical, %d infrared; %d matches\n", nopt, ir.n, m.n);
    printf("frame offset dRA %+.3f\" dDec %+.3f\"; photometric slope %.3f\n", pra[0], pdec[0], pb);
    free(ir.ra); free(ir.dec); free(ir.mag); free(ir.magerr); free(ir.id);
    free(ir.cell_start); free(ir.cell_list);
    free(m.dra); free(m.ddec); free(m.ra); free(m.dec); free(m.ma); free(m.mb);
    free(matched);
    return 0;
}
