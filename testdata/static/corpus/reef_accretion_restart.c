/*
 * reef_accretion_restart.c
 *
 * Toy coral-reef accretion model on a 2-D bathymetry grid: coral cover grows
 * where light (depth-attenuated) is sufficient, dead coral adds to reef
 * height, and sediment is diffused and settles.  The run writes rotating
 * binary checkpoints (header + three fields), a flushed per-step progress
 * log and small text transect files, then simulates a crash, restarts from
 * the newest valid checkpoint and verifies that the replayed run reproduces
 * the reference state bit for bit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>

#define NX 400
#define NY 400
#define TOTAL_STEPS 150
#define CKPT_EVERY 6
#define CKPT_SLOTS 4
#define TRANSECT_EVERY 3
#define CRASH_STEP 109

typedef struct {
    uint32_t magic;
    uint32_t nx, ny;
    uint32_t step;
    uint64_t rng;
    double sea_level;
    uint64_t checksum;
} ckpt_header_t;

typedef struct {
    int nx, ny;
    int step;
    uint64_t rng;
    double sea_level;
    float *height;   /* reef top elevation, m (negative = below datum) */
    float *coral;    /* live coral cover fraction 0..1 */
    float *sediment; /* suspended sediment concentration */
    float *scratch;
} reef_t;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    *s = x;
    return x;
}

static double rng_unit(uint64_t *s)
{
    return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void reef_alloc(reef_t *r, int nx, int ny)
{
    size_t n = (size_t)nx * ny;
    r->nx = nx; r->ny = ny;
    r->height = malloc(n * sizeof(float));
    r->coral = malloc(n * sizeof(float));
    r->sediment = malloc(n * sizeof(float));
    r->scratch = malloc(n * sizeof(float));
    if (!r->height || !r->coral || !r->sediment || !r->scratch) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static void reef_init(reef_t *r, uint64_t seed)
{
    r->step = 0;
    r->rng = seed;
    r->sea_level = 0.0;
    for (int j = 0; j < r->ny; j++) {
        for (int i = 0; i < r->nx; i++) {
            size_t k = (size_t)j * r->nx + i;
            double x = (double)i / r->nx, y = (double)j / r->ny;
            /* sloping shelf with a few seamount bumps */
            double h = -30.0 + 25.0 * x
                     + 6.0 * exp(-((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)) * 60.0)
                     + 4.0 * sin(9.0 * y) * cos(5.0 * x);
            r->height[k] = (float)(h + 0.5 * (rng_unit(&r->rng) - 0.5));
            r->coral[k] = (float)(0.05 + 0.1 * rng_unit(&r->rng));
            r->sediment[k] = (float)(0.2 * x);
        }
    }
}

static uint64_t field_checksum(const float *f, size_t n, uint64_t h)
{
    const unsigned char *p = (const unsigned char *)f;
    size_t bytes = n * sizeof(float);
    for (size_t i = 0; i < bytes; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t reef_checksum(const reef_t *r)
{
    size_t n = (size_t)r->nx * r->ny;
    uint64_t h = 1469598103934665603ULL;
    h = field_checksum(r->height, n, h);
    h = field_checksum(r->coral, n, h);
    h = field_checksum(r->sediment, n, h);
    return h;
}

/* One model step: light-limited growth, mortality, accretion, sediment diffusion. */
static void reef_step(reef_t *r)
{
    int nx = r->nx, ny = r->ny;
    double tide = 0.8 * sin(r->step * 0.37);
    r->sea_level += 0.002;
    for (int sub = 0; sub < 4; sub++) {
        /* sediment diffusion with settling, 5-point stencil into scratch */
        for (int j = 0; j < ny; j++) {
            int jm = j > 0 ? j - 1 : j, jp = j < ny - 1 ? j + 1 : j;
            for (int i = 0; i < nx; i++) {
                int im = i > 0 ? i - 1 : i, ip = i < nx - 1 ? i + 1 : i;
                size_t k = (size_t)j * nx + i;
                float s = r->sediment[k];
                float lap = r->sediment[(size_t)j * nx + im] + r->sediment[(size_t)j * nx + ip]
                          + r->sediment[(size_t)jm * nx + i] + r->sediment[(size_t)jp * nx + i]
                          - 4.0f * s;
                r->scratch[k] = s + 0.2f * lap - 0.01f * s + 0.0005f;
            }
        }
        float *t = r->sediment; r->sediment = r->scratch; r->scratch = t;
    }
    for (size_t k = 0; k < (size_t)nx * ny; k++) {
        double depth = r->sea_level + tide - r->height[k];
        double light = depth > 0 ? exp(-0.08 * depth) : 0.2;
        light *= exp(-2.0 * r->sediment[k]);
        double c = r->coral[k];
        double growth = 0.25 * light * c * (1.0 - c);
        double mort = 0.02 * c + (depth < 0 ? 0.1 * c : 0.0);
        double noise = 0.002 * (rng_unit(&r->rng) - 0.5);
        c += growth - mort + noise;
        if (c < 0.001) c = 0.001;
        if (c > 1.0) c = 1.0;
        r->coral[k] = (float)c;
        r->height[k] += (float)(0.004 * mort + 0.001 * growth);
    }
    r->step++;
}

static int write_checkpoint(const reef_t *r, const char *dir, int slot)
{
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/reef_ckpt_%d.bin", dir, slot);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) { perror(tmp); return -1; }
    ckpt_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = 0x52454546u;
    h.nx = r->nx; h.ny = r->ny; h.step = r->step;
    h.rng = r->rng; h.sea_level = r->sea_level;
    h.checksum = reef_checksum(r);
    fwrite(&h, sizeof h, 1, f);
    /* write each field row by row, as a naive code would */
    const float *fields[3] = { r->height, r->coral, r->sediment };
    for (int fi = 0; fi < 3; fi++)
        for (int j = 0; j < r->ny; j++)
            fwrite(fields[fi] + (size_t)j * r->nx, sizeof(float), r->nx, f);
    fflush(f);
    fclose(f);
    if (rename(tmp, path) != 0) { perror("rename"); return -1; }
    return 0;
}

static int read_checkpoint(reef_t *r, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    ckpt_header_t h;
    if (fread(&h, sizeof h, 1, f) != 1 || h.magic != 0x52454546u ||
        (int)h.nx != r->nx || (int)h.ny != r->ny) {
        fclose(f);
        return -1;
    }
    size_t n = (size_t)r->nx * r->ny;
    size_t got = fread(r->height, sizeof(float), n, f);
    got += fread(r->coral, sizeof(float), n, f);
    got += fread(r->sediment, sizeof(float), n, f);
    fclose(f);
    if (got != 3 * n) return -1;
    r->step = h.step; r->rng = h.rng; r->sea_level = h.sea_level;
    if (reef_checksum(r) != h.checksum) return -2;
    return 0;
}

/* Scan all checkpoint slots (header only) and pick the newest one. */
static int find_latest_checkpoint(const char *dir, int slots, char *out, size_t outlen)
{
    int best_step = -1;
    for (int s = 0; s < slots; s++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/reef_ckpt_%d.bin", dir, s);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        ckpt_header_t h;
        if (fread(&h, sizeof h, 1, f) == 1 && h.magic == 0x52454546u && (int)h.step > best_step) {
            best_step = (int)h.step;
            snprintf(out, outlen, "%s", path);
        }
        fclose(f);
    }
    return best_step;
}

static void write_transect(const reef_t *r, const char *dir, int row)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/transect_%04d.txt", dir, r->step);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return; }
    fprintf(f, "# step %d row %d sea_level %.4f\n", r->step, row, r->sea_level);
    fprintf(f, "# i height coral sediment\n");
    for (int i = 0; i < r->nx; i++) {
        size_t k = (size_t)row * r->nx + i;
        fprintf(f, "%d %.5f %.5f %.5f\n", i, r->height[k], r->coral[k], r->sediment[k]);
    }
    fclose(f);
}

static void log_progress(FILE *log, const reef_t *r, const char *phase)
{
    size_t n = (size_t)r->nx * r->ny;
    double cover = 0, hmax = -1e30;
    for (size_t k = 0; k < n; k++) {
        cover += r->coral[k];
        if (r->height[k] > hmax) hmax = r->height[k];
    }
    fprintf(log, "%s step=%d mean_cover=%.6f max_height=%.4f sea=%.4f\n",
            phase, r->step, cover / n, hmax, r->sea_level);
    fflush(log);
}

static uint64_t run_segment(reef_t *r, int until, const char *dir, FILE *log,
                            const char *phase, int do_ckpt)
{
    while (r->step < until) {
        reef_step(r);
        log_progress(log, r, phase);
        if (r->step % TRANSECT_EVERY == 0)
            write_transect(r, dir, r->ny / 2);
        if (do_ckpt && r->step % CKPT_EVERY == 0)
            write_checkpoint(r, dir, (r->step / CKPT_EVERY) % CKPT_SLOTS);
    }
    return reef_checksum(r);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char logpath[1024];
    snprintf(logpath, sizeof logpath, "%s/progress.log", dir);
    FILE *log = fopen(logpath, "w");
    if (!log) { perror(logpath); return 1; }

    /* reference run up to the crash point, with checkpoints */
    reef_t a;
    reef_alloc(&a, NX, NY);
    reef_init(&a, 0x9E3779B97F4A7C15ULL);
    run_segment(&a, CRASH_STEP, dir, log, "ref", 1);
    fprintf(log, "simulated crash at step %d\n", a.step);
    fflush(log);
    /* continue the reference in memory without checkpoints to get the truth */
    uint64_t truth = run_segment(&a, TOTAL_STEPS, dir, log, "truth", 0);

    /* restart from latest checkpoint on disk */
    reef_t b;
    reef_alloc(&b, NX, NY);
    char ck[1024] = "";
    int s = find_latest_checkpoint(dir, CKPT_SLOTS, ck, sizeof ck);
    if (s < 0 || read_checkpoint(&b, ck) != 0) {
        fprintf(stderr, "no valid checkpoint\n");
        return 1;
    }
    fprintf(log, "restarted from %s at step %d\n", ck, b.step);
    uint64_t replay = run_segment(&b, TOTAL_STEPS, dir, log, "replay", 1);
    int ok = replay == truth;
    fprintf(log, "truth=%016llx replay=%016llx %s\n", (unsigned long long)truth,
            (unsigned long long)replay, ok ? "MATCH" : "MISMATCH");
    fclose(log);
    printf("restart from step %d: %s\n", s, ok ? "MATCH" : "MISMATCH");
    reef_t *all[2] = { &a, &b };
    for (int q = 0; q < 2; q++) {
        free(all[q]->height); free(all[q]->coral);
        free(all[q]->sediment); free(all[q]->scratch);
    }
    return ok ? 0 : 1;
}
