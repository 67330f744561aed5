/*
 * cellular_potts_restart.c
 *
 * Cellular Potts model of differential-adhesion cell sorting on a periodic
 * 2-D lattice.  The run is split in two legs: leg A runs Metropolis sweeps
 * and writes a binary checkpoint (header + lattice + per-cell areas + CRC)
 * every CKPT_EVERY sweeps, plus a line-flushed energy log and a PGM snapshot
 * of the cell types.  Leg B "crashes", scans the checkpoint directory for
 * the newest valid checkpoint, restarts from it and finishes the run, then
 * writes a cell-contact matrix report.
 *
 * usage: cellular_potts_restart DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <errno.h>
#include <sys/stat.h>

#define L            224
#define NCELLS       144
#define NTYPES       2
#define TOTAL_SWEEPS 840
#define CRASH_AT     515
#define CKPT_EVERY   10
#define PGM_EVERY    30
#define TEMPERATURE  9.0
#define LAMBDA_AREA  1.0

typedef struct {
    char     magic[8];
    int32_t  size;
    int32_t  ncells;
    int32_t  sweep;
    int32_t  target_area;
    uint64_t rng_state;
    double   energy;
} ckpt_header;

typedef struct {
    int      spin[L * L];
    int      type[NCELLS + 1];
    int      area[NCELLS + 1];
    int      target_area;
    uint64_t rng;
    int      sweep;
} potts_state;

static const double J[NTYPES + 1][NTYPES + 1] = {
    /* medium, light, dark */
    {0.0, 16.0, 16.0},
    {16.0, 14.0, 11.0},
    {16.0, 11.0, 2.0},
};

static uint64_t xorshift64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static double uniform01(uint64_t *s)
{
    return (double)(xorshift64(s) >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t crc32_update(uint32_t crc, const void *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (uint32_t)(-(int32_t)(crc & 1)));
    }
    return ~crc;
}

/* Seed cells as squares on a regular grid in the middle of the lattice. */
static void init_lattice(potts_state *st, uint64_t seed)
{
    memset(st, 0, sizeof(*st));
    st->rng = seed;
    int per_row = (int)sqrt((double)NCELLS);
    int side = 10;
    int off = (L - per_row * side) / 2;
    for (int c = 1; c <= NCELLS; c++) {
        int cx = (c - 1) % per_row, cy = (c - 1) / per_row;
        st->type[c] = 1 + (int)(xorshift64(&st->rng) % NTYPES);
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++)
                st->spin[(off + cy * side + y) * L + off + cx * side + x] = c;
    }
    for (int i = 0; i < L * L; i++)
        st->area[st->spin[i]]++;
    st->target_area = side * side;
}

static inline int cell_type(const potts_state *st, int s)
{
    return s == 0 ? 0 : st->type[s];
}

static double total_energy(const potts_state *st)
{
    double e = 0.0;
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++) {
            int s = st->spin[y * L + x];
            int r = st->spin[y * L + (x + 1) % L];
            int d = st->spin[((y + 1) % L) * L + x];
            if (s != r) e += J[cell_type(st, s)][cell_type(st, r)];
            if (s != d) e += J[cell_type(st, s)][cell_type(st, d)];
        }
    for (int c = 1; c <= NCELLS; c++) {
        double da = st->area[c] - st->target_area;
        e += LAMBDA_AREA * da * da;
    }
    return e;
}

/* One Monte-Carlo sweep = L*L copy attempts with the Metropolis rule. */
static int mc_sweep(potts_state *st)
{
    static const int dx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
    static const int dy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    int accepted = 0;
    for (int a = 0; a < L * L; a++) {
        int x = (int)(xorshift64(&st->rng) % L);
        int y = (int)(xorshift64(&st->rng) % L);
        int k = (int)(xorshift64(&st->rng) & 7);
        int nx = (x + dx[k] + L) % L, ny = (y + dy[k] + L) % L;
        int src = st->spin[ny * L + nx], dst = st->spin[y * L + x];
        if (src == dst) continue;
        double dh = 0.0;
        for (int n = 0; n < 8; n++) {
            int s = st->spin[((y + dy[n] + L) % L) * L + (x + dx[n] + L) % L];
            if (s != dst) dh -= J[cell_type(st, dst)][cell_type(st, s)];
            if (s != src) dh += J[cell_type(st, src)][cell_type(st, s)];
        }
        if (dst != 0) {
            double a0 = st->area[dst] - st->target_area;
            dh += LAMBDA_AREA * ((a0 - 1) * (a0 - 1) - a0 * a0);
        }
        if (src != 0) {
            double a1 = st->area[src] - st->target_area;
            dh += LAMBDA_AREA * ((a1 + 1) * (a1 + 1) - a1 * a1);
        }
        if (dh <= 0.0 || uniform01(&st->rng) < exp(-dh / TEMPERATURE)) {
            st->spin[y * L + x] = src;
            st->area[dst]--;
            st->area[src]++;
            accepted++;
        }
    }
    st->sweep++;
    return accepted;
}

static int write_checkpoint(const char *dir, const potts_state *st, double energy)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ckpt/potts_%05d.ckpt", dir, st->sweep);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return -1; }
    ckpt_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "CPMCKPT", 8);
    h.size = L; h.ncells = NCELLS; h.sweep = st->sweep; h.target_area = st->target_area;
    h.rng_state = st->rng; h.energy = energy;
    uint32_t crc = 0;
    crc = crc32_update(crc, &h, sizeof h);
    crc = crc32_update(crc, st->spin, sizeof st->spin);
    crc = crc32_update(crc, st->type, sizeof st->type);
    crc = crc32_update(crc, st->area, sizeof st->area);
    fwrite(&h, sizeof h, 1, f);
    /* lattice row by row, as a real code streaming a distributed array would */
    for (int y = 0; y < L; y++)
        fwrite(&st->spin[y * L], sizeof(int), L, f);
    fwrite(st->type, sizeof(int), NCELLS + 1, f);
    fwrite(st->area, sizeof(int), NCELLS + 1, f);
    fwrite(&crc, sizeof crc, 1, f);
    return fclose(f);
}

static int read_checkpoint(const char *path, potts_state *st, double *energy)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    ckpt_header h;
    uint32_t crc_file = 0, crc = 0;
    int ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, "CPMCKPT", 8) == 0 &&
             h.size == L && h.ncells == NCELLS;
    if (ok) {
        for (int y = 0; y < L && ok; y++)
            ok = fread(&st->spin[y * L], sizeof(int), L, f) == L;
        ok = ok && fread(st->type, sizeof(int), NCELLS + 1, f) == NCELLS + 1;
        ok = ok && fread(st->area, sizeof(int), NCELLS + 1, f) == NCELLS + 1;
        ok = ok && fread(&crc_file, sizeof crc_file, 1, f) == 1;
    }
    fclose(f);
    if (!ok) return -1;
    crc = crc32_update(crc, &h, sizeof h);
    crc = crc32_update(crc, st->spin, sizeof st->spin);
    crc = crc32_update(crc, st->type, sizeof st->type);
    crc = crc32_update(crc, st->area, sizeof st->area);
    if (crc != crc_file) return -1;
    st->sweep = h.sweep;
    st->rng = h.rng_state;
    st->target_area = h.target_area;
    *energy = h.energy;
    return 0;
}

/* Probe checkpoints from the newest possible sweep downwards. */
static int find_latest_checkpoint(const char *dir, int max_sweep, potts_state *st, double *energy)
{
    char path[512];
    for (int s = (max_sweep / CKPT_EVERY) * CKPT_EVERY; s > 0; s -= CKPT_EVERY) {
        snprintf(path, sizeof path, "%s/ckpt/potts_%05d.ckpt", dir, s);
        struct stat sb;
        if (stat(path, &sb) != 0) continue;
        if (read_checkpoint(path, st, energy) == 0) return s;
        fprintf(stderr, "checkpoint %s corrupt, trying older\n", path);
    }
    return -1;
}

static void write_type_pgm(const char *dir, const potts_state *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/frames/types_%05d.pgm", dir, st->sweep);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "P2\n%d %d\n2\n", L, L);
    for (int y = 0; y < L; y++) {
        for (int x = 0; x < L; x++)
            fprintf(f, "%d%c", cell_type(st, st->spin[y * L + x]), x + 1 == L ? '\n' : ' ');
    }
    fclose(f);
}

static void write_contact_report(const char *dir, const potts_state *st)
{
    double contact[NTYPES + 1][NTYPES + 1] = {{0}};
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++) {
            int s = st->spin[y * L + x];
            int r = st->spin[y * L + (x + 1) % L];
            int d = st->spin[((y + 1) % L) * L + x];
            if (s != r) contact[cell_type(st, s)][cell_type(st, r)] += 1;
            if (s != d) contact[cell_type(st, s)][cell_type(st, d)] += 1;
        }
    char path[512];
    snprintf(path, sizeof path, "%s/contact_report.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# type-type boundary lengths after %d sweeps\n", st->sweep);
    for (int a = 0; a <= NTYPES; a++)
        for (int b = a; b <= NTYPES; b++)
            fprintf(f, "%d %d %.0f\n", a, b, contact[a][b] + (a != b ? contact[b][a] : 0));
    fprintf(f, "# cell areas\n");
    for (int c = 1; c <= NCELLS; c++)
        fprintf(f, "cell %3d type %d area %4d\n", c, st->type[c], st->area[c]);
    fclose(f);
}

static void run_leg(const char *dir, potts_state *st, int until, FILE *log)
{
    while (st->sweep < until) {
        int acc = mc_sweep(st);
        double e = total_energy(st);
        fprintf(log, "%6d %14.3f %8d\n", st->sweep, e, acc);
        fflush(log);
        if (st->sweep % CKPT_EVERY == 0) write_checkpoint(dir, st, e);
        if (st->sweep % PGM_EVERY == 0) write_type_pgm(dir, st);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char path[512];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/ckpt", dir);   mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/frames", dir); mkdir(path, 0755);

    potts_state *st = malloc(sizeof *st);
    if (!st) return 1;
    init_lattice(st, 0x9E3779B97F4A7C15ull);

    snprintf(path, sizeof path, "%s/energy.log", dir);
    FILE *log = fopen(path, "w");
    if (!log) { perror(path); return 1; }
    fprintf(log, "# sweep energy accepted\n");
    run_leg(dir, st, CRASH_AT, log);
    int crashed_at = st->sweep;

    /* simulate a crash: throw away the in-memory state entirely */
    memset(st, 0xff, sizeof *st);
    double e0 = 0.0;
    int restart = find_latest_checkpoint(dir, crashed_at, st, &e0);
    if (restart < 0) { fprintf(stderr, "no valid checkpoint\n"); return 1; }
    double e_check = total_energy(st);
    fprintf(log, "# restart from sweep %d energy %.3f recomputed %.3f\n", restart, e0, e_check);
    run_leg(dir, st, TOTAL_SWEEPS, log);
    fclose(log);

    write_contact_report(dir, st);
    printf("restarted at %d, final sweep %d, energy %.2f\n", restart, st->sweep, total_energy(st));
    free(st);
    return 0;
}
