/* Nagel-Schreckenberg traffic cellular automaton on a ring road.
 * Sweeps car density, logs per-step flow as text, dumps binary road
 * snapshots with a size header, then re-reads both to build the
 * fundamental diagram and jam-cluster statistics. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define L 20000
#define VMAX 5
#define PSLOW 0.25
#define NSTEPS 500
#define NDENS 12
#define SNAP_EVERY 20

typedef struct { uint32_t magic, ncells, nsteps, density_milli; } snap_hdr;

static uint64_t rng = 88172645463325252ULL;
#define URAND() (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, \
                 (rng >> 11) * (1.0 / 9007199254740992.0))

static void fail(const char *msg, const char *p)
{
    fprintf(stderr, "%s %s: %s\n", msg, p, strerror(errno));
    exit(1);
}

static void init_road(int8_t *road, int ncars)
{
    memset(road, -1, L);
    int placed = 0;
    while (placed < ncars) {
        int i = (int)(URAND() * L);
        if (road[i] < 0) { road[i] = (int8_t)(URAND() * (VMAX + 1)); placed++; }
    }
}

/* one parallel update; returns number of cars crossing site 0 */
static int nasch_step(const int8_t *road, int8_t *next, long *moved)
{
    int flux = 0;
    memset(next, -1, L);
    int first = -1;
    for (int i = 0; i < L; i++) if (road[i] >= 0) { first = i; break; }
    if (first < 0) return 0;
    int i = first;
    do {
        int j = (i + 1) % L, gap = 0;
        while (road[j] < 0 && gap < VMAX) { gap++; j = (j + 1) % L; }
        int v = road[i] + 1;
        if (v > VMAX) v = VMAX;
        if (v > gap) v = gap;
        if (v > 0 && URAND() < PSLOW) v--;
        int ni = i + v;
        if (ni >= L) { ni -= L; flux++; }
        next[ni] = (int8_t)v;
        *moved += v;
        j = (i + 1) % L;
        while (road[j] < 0) j = (j + 1) % L;
        i = j;
    } while (i != first);
    return flux;
}

static void run_density(const char *dir, int k, FILE *log)
{
    int ncars = (int)(L * (0.04 + 0.05 * k));
    int8_t *a = malloc(L), *b = malloc(L);
    if (!a || !b) exit(1);
    init_road(a, ncars);
    char p[4096];
    snprintf(p, sizeof p, "%s/snaps/road_%02d.bin", dir, k);
    FILE *sf = fopen(p, "wb");
    if (!sf) fail("fopen", p);
    snap_hdr h = {0x4e534348u, L, NSTEPS / SNAP_EVERY, (uint32_t)(1000.0 * ncars / L)};
    if (fwrite(&h, sizeof h, 1, sf) != 1) fail("fwrite", p);
    for (int t = 0; t < NSTEPS; t++) {
        long moved = 0;
        int flux = nasch_step(a, b, &moved);
        int8_t *tmp = a; a = b; b = tmp;
        fprintf(log, "%d %d %d %ld\n", k, t, flux, moved);
        if (t % SNAP_EVERY == 0 && fwrite(a, 1, L, sf) != L) fail("fwrite", p);
    }
    if (fclose(sf)) fail("fclose", p);
    free(a); free(b);
}

typedef struct { double rho, flow, vmean; int n; } fd_point;

/* read the text log until EOF and accumulate per-density averages */
static void parse_log(const char *path, fd_point *fd, const int *ncars)
{
    FILE *f = fopen(path, "r");
    if (!f) fail("fopen", path);
    int k, t, flux;
    long moved;
    memset(fd, 0, sizeof(fd_point) * NDENS);
    while (fscanf(f, "%d %d %d %ld", &k, &t, &flux, &moved) == 4) {
        if (k < 0 || k >= NDENS) continue;
        if (t < NSTEPS / 4) continue;     /* discard transient */
        fd[k].flow += flux;
        fd[k].vmean += (double)moved / ncars[k];
        fd[k].n++;
    }
    if (ferror(f)) fail("fscanf", path);
    fclose(f);
    for (k = 0; k < NDENS; k++) {
        fd[k].rho = (double)ncars[k] / L;
        if (fd[k].n) { fd[k].flow /= fd[k].n; fd[k].vmean /= fd[k].n; }
    }
}

/* jam cluster sizes from a snapshot: runs of stopped cars */
static void cluster_stats(const int8_t *road, long *hist, int hmax)
{
    int run = 0;
    for (int i = 0; i < L; i++) {
        if (road[i] == 0) run++;
        else if (run) { hist[run < hmax ? run : hmax - 1]++; run = 0; }
    }
    if (run) hist[run < hmax ? run : hmax - 1]++;
}

static void replay_snapshots(const char *dir, double *mean_jam)
{
    int8_t *buf = malloc(L);
    long hist[64];
    char p[4096];
    for (int k = 0; k < NDENS; k++) {
        snprintf(p, sizeof p, "%s/snaps/road_%02d.bin", dir, k);
        FILE *f = fopen(p, "rb");
        if (!f) fail("fopen", p);
        snap_hdr h;
        if (fread(&h, sizeof h, 1, f) != 1 || h.magic != 0x4e534348u || h.ncells != L)
            fail("bad header", p);
        memset(hist, 0, sizeof hist);
        for (uint32_t s = 0; s < h.nsteps; s++) {
            if (fread(buf, 1, h.ncells, f) != h.ncells) fail("fread", p);
            cluster_stats(buf, hist, 64);
        }
        fclose(f);
        double num = 0, den = 0;
        for (int j = 1; j < 64; j++) { num += (double)j * hist[j]; den += hist[j]; }
        mean_jam[k] = den > 0 ? num / den : 0.0;
    }
    free(buf);
}

static void write_diagram(const char *dir, const fd_point *fd, const double *jam)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/fundamental_diagram.csv", dir);
    FILE *f = fopen(p, "w");
    if (!f) fail("fopen", p);
    fprintf(f, "density,flow_per_step,mean_speed,mean_jam_len\n");
    int kmax = 0;
    for (int k = 0; k < NDENS; k++) {
        fprintf(f, "%.4f,%.4f,%.4f,%.3f\n", fd[k].rho, fd[k].flow, fd[k].vmean, jam[k]);
        if (fd[k].flow > fd[kmax].flow) kmax = k;
    }
    if (fclose(f)) fail("fclose", p);
    printf("capacity %.3f cars/step at density %.3f\n", fd[kmax].flow, fd[kmax].rho);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char p[4096];
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/snaps", dir);
    if (mkdir(p, 0755) && errno != EEXIST) fail("mkdir", p);
    snprintf(p, sizeof p, "%s/flow.log", dir);
    FILE *log = fopen(p, "w");
    if (!log) fail("fopen", p);
    int ncars[NDENS];
    for (int k = 0; k < NDENS; k++) {
        ncars[k] = (int)(L * (0.04 + 0.05 * k));
        run_density(dir, k, log);
    }
    if (fclose(log)) fail("fclose", p);
    fd_point fd[NDENS];
    double jam[NDENS];
    parse_log(p, fd, ncars);
    replay_snapshots(dir, jam);
    write_diagram(dir, fd, jam);
    return 0;
}
