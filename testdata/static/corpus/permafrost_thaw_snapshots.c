/* permafrost_thaw_snapshots: enthalpy-method freeze/thaw of a field of soil
 * columns driven by a seasonal surface temperature.  Writes binary checkpoints
 * with a checksummed header, a flushed thaw-depth log, text depth profiles,
 * then "crashes" and restarts from the newest checkpoint to verify the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>

#define NCOL 256
#define NZ 200
#define NSTEPS 3600
#define CKPT_EVERY 300
#define LOG_EVERY 4
#define PROFILE_EVERY 600
#define CKPT_KEEP 3

typedef struct {
    char magic[8];
    int32_t ncol, nz, step, pad;
    double time;
    uint64_t checksum;
} CkptHeader;

typedef struct {
    int ncol, nz, step;
    double time, dz, dt;
    double *H;      /* volumetric enthalpy */
    double *T;      /* temperature */
    double *water;  /* water content per column */
} Field;

static const double LATENT = 3.34e8 * 0.3; /* J/m3 for 30% ice */
static const double CAP = 2.0e6;
static const double KCOND = 1.6;

static uint64_t fnv1a(const void *buf, size_t n, uint64_t h)
{
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
    return h;
}

static double temp_from_enthalpy(double h)
{
    if (h < 0.0) return h / CAP;
    if (h > LATENT) return (h - LATENT) / CAP;
    return 0.0;
}

static void field_init(Field *f, int ncol, int nz)
{
    f->ncol = ncol; f->nz = nz; f->step = 0; f->time = 0.0;
    f->dz = 0.05; f->dt = 1800.0;
    size_t n = (size_t)ncol * nz;
    f->H = malloc(n * sizeof(double));
    f->T = malloc(n * sizeof(double));
    f->water = malloc((size_t)ncol * sizeof(double));
    for (int c = 0; c < ncol; c++) {
        double t0 = -4.0 - 3.0 * sin(0.07 * c);
        f->water[c] = 0.25 + 0.1 * cos(0.013 * c * c);
        for (int k = 0; k < nz; k++) {
            double T = t0 + 0.02 * k;
            f->H[(size_t)c * nz + k] = T < 0 ? CAP * T : LATENT + CAP * T;
            f->T[(size_t)c * nz + k] = T;
        }
    }
}

static double surface_temp(double t, int col)
{
    double day = t / 86400.0;
    return -2.0 + 14.0 * sin(2.0 * M_PI * day / 365.0) + 0.5 * sin(0.3 * col);
}

/* compute-bound: explicit enthalpy update over all columns */
static void advance(Field *f, int nsteps)
{
    int nz = f->nz;
    double r = KCOND * f->dt / (f->dz * f->dz);
    double *flux = malloc((size_t)(nz + 1) * sizeof(double));
    for (int s = 0; s < nsteps; s++) {
        for (int c = 0; c < f->ncol; c++) {
            double *H = f->H + (size_t)c * nz;
            double *T = f->T + (size_t)c * nz;
            double ts = surface_temp(f->time, c);
            flux[0] = r * (ts - T[0]) * 2.0;
            for (int k = 1; k < nz; k++) flux[k] = r * (T[k - 1] - T[k]);
            flux[nz] = r * 0.0002;
            for (int k = 0; k < nz; k++) {
                H[k] += (flux[k] - flux[k + 1]) * 0.02;
                T[k] = temp_from_enthalpy(H[k]);
            }
        }
        f->time += f->dt;
        f->step++;
    }
    free(flux);
}

static double thaw_depth(const Field *f, int c)
{
    const double *T = f->T + (size_t)c * f->nz;
    int k = 0;
    while (k < f->nz && T[k] > 0.0) k++;
    return k * f->dz;
}

static void checkpoint_name(char *buf, size_t n, const char *dir, int slot)
{
    snprintf(buf, n, "%s/ckpt_slot%d.bin", dir, slot);
}

static void write_checkpoint(const Field *f, const char *dir, int slot)
{
    char name[512], tmp[520];
    checkpoint_name(name, sizeof name, dir, slot);
    snprintf(tmp, sizeof tmp, "%s.tmp", name);
    size_t n = (size_t)f->ncol * f->nz;
    CkptHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "PFROST1", 8);
    h.ncol = f->ncol; h.nz = f->nz; h.step = f->step; h.time = f->time;
    h.checksum = fnv1a(f->H, n * sizeof(double), 1469598103934665603ULL);
    FILE *fp = fopen(tmp, "wb");
    if (!fp) { perror(tmp); exit(1); }
    fwrite(&h, sizeof h, 1, fp);
    /* one column at a time, like a code writing per-column objects */
    for (int c = 0; c < f->ncol; c++)
        fwrite(f->H + (size_t)c * f->nz, sizeof(double), (size_t)f->nz, fp);
    fwrite(f->water, sizeof(double), (size_t)f->ncol, fp);
    fclose(fp);
    rename(tmp, name);
}

static int read_checkpoint(Field *f, const char *dir, int slot)
{
    char name[512];
    checkpoint_name(name, sizeof name, dir, slot);
    FILE *fp = fopen(name, "rb");
    if (!fp) return -1;
    CkptHeader h;
    if (fread(&h, sizeof h, 1, fp) != 1 || memcmp(h.magic, "PFROST1", 8) != 0) { fclose(fp); return -1; }
    size_t n = (size_t)h.ncol * h.nz;
    if (fread(f->H, sizeof(double), n, fp) != n) { fclose(fp); return -1; }
    if (fread(f->water, sizeof(double), (size_t)h.ncol, fp) != (size_t)h.ncol) { fclose(fp); return -1; }
    fclose(fp);
    if (fnv1a(f->H, n * sizeof(double), 1469598103934665603ULL) != h.checksum) return -2;
    f->step = h.step; f->time = h.time;
    for (size_t i = 0; i < n; i++) f->T[i] = temp_from_enthalpy(f->H[i]);
    return h.step;
}

/* I/O-bound: one short line per column, flushed each record */
static void append_thaw_log(FILE *log, const Field *f)
{
    for (int c = 0; c < f->ncol; c += 4) {
        fprintf(log, "%d %.1f %d %.3f\n", f->step, f->time / 86400.0, c, thaw_depth(f, c));
        fflush(log);
    }
}

static void dump_profiles(const Field *f, const char *dir)
{
    char name[512];
    snprintf(name, sizeof name, "%s/profile_%05d.txt", dir, f->step);
    FILE *fp = fopen(name, "w");
    if (!fp) { perror(name); exit(1); }
    fprintf(fp, "# step %d depth then temperature of every 8th column\n", f->step);
    for (int k = 0; k < f->nz; k++) {
        fprintf(fp, "%7.3f", k * f->dz);
        for (int c = 0; c < f->ncol; c += 8) fprintf(fp, " %8.4f", f->T[(size_t)c * f->nz + k]);
        fputc('\n', fp);
    }
    fclose(fp);
}

static double field_norm(const Field *f)
{
    double s = 0;
    for (size_t i = 0; i < (size_t)f->ncol * f->nz; i++) s += f->H[i] * 1e-6 * f->H[i] * 1e-6;
    return sqrt(s);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    const char *dir = argv[1];
    char name[512];
    Field f;
    field_init(&f, NCOL, NZ);
    snprintf(name, sizeof name, "%s/thaw_depth.log", dir);
    FILE *log = fopen(name, "w");
    if (!log) { perror(name); return 1; }

    int slot = 0, last_slot = -1;
    while (f.step < NSTEPS) {
        advance(&f, LOG_EVERY);
        append_thaw_log(log, &f);
        if (f.step % PROFILE_EVERY == 0) dump_profiles(&f, dir);
        if (f.step % CKPT_EVERY == 0) {
            write_checkpoint(&f, dir, slot);
            last_slot = slot;
            slot = (slot + 1) % CKPT_KEEP;
        }
    }
    fclose(log);
    double ref = field_norm(&f);

    /* simulated crash: wipe state, restart from the newest checkpoint and
       re-run the final stretch */
    Field g;
    field_init(&g, NCOL, NZ);
    int restarted = read_checkpoint(&g, dir, last_slot);
    if (restarted < 0) { fprintf(stderr, "restart failed\n"); return 1; }
    advance(&g, NSTEPS - g.step);
    double again = field_norm(&g);
    /* also validate the older slots */
    int valid = 0;
    for (int s = 0; s < CKPT_KEEP; s++) if (read_checkpoint(&g, dir, s) >= 0) valid++;
    printf("final norm %.6e restart norm %.6e diff %.2e valid slots %d\n",
           ref, again, fabs(ref - again), valid);
    free(f.H); free(f.T); free(f.water);
    free(g.H); free(g.T); free(g.water);
    return 0;
}
