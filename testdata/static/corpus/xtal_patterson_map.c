/* Crystallography toy: builds an orthorhombic cell with P2(1)2(1)2(1)
 * symmetry, writes an atom list as text, computes structure factors
 * F(hkl), stores them as a binary reflection file, re-reads them with
 * simulated noise for an R-factor, and synthesises a Patterson map
 * written through mmap, then peak-searched from the mapped file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NASYM 40
#define NSYM 4
#define HMAX 10
#define NG 30               /* Patterson grid points per axis */
#define CELL_A 12.0
#define CELL_B 15.0
#define CELL_C 18.0

typedef struct { char el[4]; double x, y, z, b; } atom;
typedef struct { int16_t h, k, l, pad; float fobs, phase, sigma; } refl;

static uint64_t seed = 0x1234abcdULL;
static double rnd(void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 11) * (1.0 / 9007199254740992.0);
}

#define oops(m, p) do { fprintf(stderr, "%s %s: %s\n", (m), (p), strerror(errno)); exit(1); } while (0)

static void write_atoms(const char *path)
{
    static const char *els[] = {"C", "C", "C", "N", "O", "S"};
    FILE *f = fopen(path, "w");
    if (!f) oops("fopen", path);
    fprintf(f, "cell %.3f %.3f %.3f\nnatoms %d\n", CELL_A, CELL_B, CELL_C, NASYM);
    for (int i = 0; i < NASYM; i++)
        fprintf(f, "%-2s %9.5f %9.5f %9.5f %6.2f\n", els[i % 6], rnd(), rnd(), rnd(),
                8.0 + 10.0 * rnd());
    if (fclose(f)) oops("fclose", path);
}

/* read the asymmetric unit back and apply the four P212121 operators */
static int read_atoms(const char *path, atom *full)
{
    atom at[NASYM];
    FILE *f = fopen(path, "r");
    if (!f) oops("fopen", path);
    double a, b, c;
    int n;
    if (fscanf(f, "cell %lf %lf %lf natoms %d", &a, &b, &c, &n) != 4 || n > NASYM)
        oops("bad header", path);
    for (int i = 0; i < n; i++)
        if (fscanf(f, "%3s %lf %lf %lf %lf", at[i].el, &at[i].x, &at[i].y, &at[i].z,
                   &at[i].b) != 5) oops("fscanf", path);
    fclose(f);
    int m = 0;
    for (int i = 0; i < n; i++) {
        double x = at[i].x, y = at[i].y, z = at[i].z;
        double ops[NSYM][3] = {{x, y, z}, {0.5 - x, -y, 0.5 + z},
                               {-x, 0.5 + y, 0.5 - z}, {0.5 + x, 0.5 - y, -z}};
        for (int s = 0; s < NSYM; s++) {
            full[m] = at[i];
            full[m].x = ops[s][0] - floor(ops[s][0]);
            full[m].y = ops[s][1] - floor(ops[s][1]);
            full[m].z = ops[s][2] - floor(ops[s][2]);
            m++;
        }
    }
    return m;
}

static int structure_factors(const atom *at, int n, refl *out)
{
    int nr = 0;
    for (int h = 0; h <= HMAX; h++)
        for (int k = -HMAX; k <= HMAX; k++)
            for (int l = -HMAX; l <= HMAX; l++) {
                if (h == 0 && (k < 0 || (k == 0 && l <= 0))) continue;
                double s2 = 0.25 * (h * h / (CELL_A * CELL_A) + k * k / (CELL_B * CELL_B) +
                                    l * l / (CELL_C * CELL_C));
                double re = 0, im = 0, g = exp(-2.5 * s2);   /* one-gaussian form factor */
                for (int j = 0; j < n; j++) {
                    char e = at[j].el[0];
                    double z = e == 'C' ? 6 : e == 'N' ? 7 : e == 'O' ? 8 : 16;
                    double f = z * g * exp(-at[j].b * s2);
                    double arg = 2 * M_PI * (h * at[j].x + k * at[j].y + l * at[j].z);
                    re += f * cos(arg);
                    im += f * sin(arg);
                }
                refl r = {(int16_t)h, (int16_t)k, (int16_t)l, 0, (float)hypot(re, im),
                          (float)atan2(im, re), 0.f};
                out[nr++] = r;
            }
    return nr;
}

/* one small fwrite per reflection, after a count header */
static void write_reflections(const char *path, const refl *r, int nr)
{
    FILE *f = fopen(path, "wb");
    if (!f) oops("fopen", path);
    int32_t hdr[2] = {0x484b4c31, nr};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) oops("fwrite", path);
    for (int i = 0; i < nr; i++)
        if (fwrite(&r[i], sizeof(refl), 1, f) != 1) oops("fwrite", path);
    if (fflush(f) || fsync(fileno(f))) oops("sync", path);
    fclose(f);
}

static refl *read_reflections(const char *path, int *nr, double *rfac)
{
    FILE *f = fopen(path, "rb");
    if (!f) oops("fopen", path);
    int32_t hdr[2];
    if (fread(hdr, sizeof hdr, 1, f) != 1 || hdr[0] != 0x484b4c31) oops("header", path);
    refl *r = malloc(sizeof(refl) * hdr[1]);
    if (!r) exit(1);
    double num = 0, den = 0;
    for (int i = 0; i < hdr[1]; i++) {
        if (fread(&r[i], sizeof(refl), 1, f) != 1) oops("fread", path);
        double calc = r[i].fobs;
        double noise = 1.0 + 0.05 * (rnd() + rnd() + rnd() - 1.5);
        r[i].fobs = (float)(calc * noise);
        r[i].sigma = (float)(0.03 * calc + 0.5);
        num += fabs(r[i].fobs - calc);
        den += r[i].fobs;
    }
    fclose(f);
    *nr = hdr[1];
    *rfac = num / den;
    return r;
}

/* P(uvw) = sum |F|^2 cos(2pi(hu+kv+lw)); Friedel pairs folded in */
static void patterson(const refl *r, int nr, float *map)
{
    double cu[NG][2 * HMAX + 1];
    for (int u = 0; u < NG; u++)
        for (int h = -HMAX; h <= HMAX; h++) cu[u][h + HMAX] = 2 * M_PI * h * u / NG;
    for (int iu = 0; iu < NG; iu++)
        for (int iv = 0; iv < NG; iv++)
            for (int iw = 0; iw < NG; iw++) {
                double s = 0;
                for (int i = 0; i < nr; i++) {
                    double f2 = (double)r[i].fobs * r[i].fobs;
                    s += f2 * cos(cu[iu][r[i].h + HMAX] + cu[iv][r[i].k + HMAX] +
                                  cu[iw][r[i].l + HMAX]);
                }
                map[(iu * NG + iv) * NG + iw] = (float)(2 * s);
            }
}

static void map_to_file(const char *path, const float *map)
{
    size_t bytes = sizeof(float) * NG * NG * NG;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) oops("open", path);
    if (ftruncate(fd, (off_t)bytes)) oops("ftruncate", path);
    float *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) oops("mmap", path);
    memcpy(m, map, bytes);
    if (msync(m, bytes, MS_SYNC)) oops("msync", path);
    munmap(m, bytes);
    close(fd);
}

static int peak_search(const char *mpath, const char *ppath)
{
    int fd = open(mpath, O_RDONLY);
    if (fd < 0) oops("open", mpath);
    struct stat st;
    if (fstat(fd, &st)) oops("fstat", mpath);
    const float *m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) oops("mmap", mpath);
    FILE *out = fopen(ppath, "w");
    if (!out) oops("fopen", ppath);
    float origin = m[0];
    int np = 0;
    for (int u = 0; u < NG; u++)
        for (int v = 0; v < NG; v++)
            for (int w = 0; w < NG; w++) {
                float c = m[(u * NG + v) * NG + w];
                if (c < 0.05f * origin) continue;
                int ismax = 1;
                for (int d = 0; d < 27 && ismax; d++) {
                    int du = d / 9 - 1, dv = (d / 3) % 3 - 1, dw = d % 3 - 1;
                    if (!du && !dv && !dw) continue;
                    int a = (u + du + NG) % NG, b = (v + dv + NG) % NG, e = (w + dw + NG) % NG;
                    if (m[(a * NG + b) * NG + e] > c) ismax = 0;
                }
                if (ismax) {
                    fprintf(out, "%8.4f %8.4f %8.4f %12.2f\n", (double)u / NG, (double)v / NG,
                            (double)w / NG, c / origin);
                    np++;
                }
            }
    if (fclose(out)) oops("fclose", ppath);
    munmap((void *)m, st.st_size);
    close(fd);
    return np;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char pa[4096], ph[4096], pm[4096], pp[4096];
    mkdir(argv[1], 0755);
    snprintf(pa, sizeof pa, "%s/atoms.txt", argv[1]);
    snprintf(ph, sizeof ph, "%s/reflections.hkl", argv[1]);
    snprintf(pm, sizeof pm, "%s/patterson.map", argv[1]);
    snprintf(pp, sizeof pp, "%s/patterson_peaks.txt", argv[1]);

    atom full[NASYM * NSYM];
    write_atoms(pa);
    int nf = read_atoms(pa, full);
    refl *r = malloc(sizeof(refl) * (HMAX + 1) * (2 * HMAX + 1) * (2 * HMAX + 1));
    float *map = malloc(sizeof(float) * NG * NG * NG);
    if (!r || !map) return 1;
    int nr = structure_factors(full, nf, r);
    write_reflections(ph, r, nr);
    free(r);
    double rfac;
    r = read_reflections(ph, &nr, &rfac);
    patterson(r, nr, map);
    map_to_file(pm, map);
    int np = peak_search(pm, pp);
    printf("atoms %d reflections %d R=%.4f patterson peaks %d\n", nf, nr, rfac, np);
    free(r); free(map);
    return 0;
}
