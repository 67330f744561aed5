/*
 * Agent-based honeybee colony foraging model with checkpoint/restart.
 *
 * A colony of forager bees exploits a nectar landscape (flower patches that
 * deplete and regrow).  Every CKPT_EVERY simulated days the full state (bee
 * array + nectar field + colony stores) is written as a binary checkpoint with
 * write(2), protected by a CRC-32.  After the reference run the state is
 * discarded, the newest checkpoint that validates is located, read back with
 * pread(2), and the run is continued to the end; the final state must match
 * the reference bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NBEES      100000
#define FIELD_N    512
#define NDAYS      24
#define TRIPS_PER_DAY 5
#define CKPT_EVERY 4
#define CKPT_MAGIC 0x42454543u /* "BEEC" */

enum { ROLE_SCOUT = 0, ROLE_FORAGER = 1, ROLE_RESTING = 2 };

typedef struct {
    float x, y;          /* current position (m from hive) */
    float tx, ty;        /* remembered patch */
    float energy;        /* crop energy (J) */
    float load;          /* nectar load (mg) */
    uint32_t rng;        /* per-bee random state */
    uint16_t age;        /* days */
    uint8_t role, dances;
} bee_t;

typedef struct {
    uint32_t magic, version;
    uint32_t day, nbees;
    uint32_t field_n, pad;
    double honey_mg, pollen_mg;
    uint64_t trips;
    uint32_t crc_bees, crc_field;
} ckpt_header_t;

typedef struct {
    bee_t *bees;
    float *nectar;       /* mg per cell */
    float *capacity;     /* mg per cell */
    double honey_mg, pollen_mg;
    uint64_t trips;
    uint32_t day;
} colony_t;

static const char *g_dir;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "honeybee: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static uint32_t crc_table[256];
static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}
static uint32_t crc32_buf(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static inline uint32_t xs32(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return *s = x;
}
static inline float urand(uint32_t *s) { return (xs32(s) >> 8) * (1.0f / 16777216.0f); }

static void init_landscape(colony_t *c)
{
    uint32_t s = 20240611u;
    const int npatch = 90;
    float px[90], py[90], pr[90], pa[90];
    for (int p = 0; p < npatch; p++) {
        px[p] = urand(&s) * FIELD_N; py[p] = urand(&s) * FIELD_N;
        pr[p] = 4.0f + 18.0f * urand(&s); pa[p] = 200.0f + 800.0f * urand(&s);
    }
    for (int j = 0; j < FIELD_N; j++)
        for (int i = 0; i < FIELD_N; i++) {
            float cap = 0.5f;
            for (int p = 0; p < npatch; p++) {
                float dx = i - px[p], dy = j - py[p];
                cap += pa[p] * expf(-(dx * dx + dy * dy) / (2.0f * pr[p] * pr[p]));
            }
            c->capacity[(size_t)j * FIELD_N + i] = cap;
            c->nectar[(size_t)j * FIELD_N + i] = cap;
        }
}

static void init_colony(colony_t *c)
{
    uint32_t s = 777u;
    for (int b = 0; b < NBEES; b++) {
        bee_t *e = &c->bees[b];
        memset(e, 0, sizeof *e);
        e->rng = xs32(&s) | 1u;
        e->age = (uint16_t)(urand(&s) * 20);
        e->role = (b % 10 == 0) ? ROLE_SCOUT : ROLE_FORAGER;
        e->energy = 30.0f;
        e->tx = e->ty = FIELD_N / 2.0f;
    }
    c->honey_mg = 2.0e6; c->pollen_mg = 0.0; c->trips = 0; c->day = 0;
}

/* One day of foraging: each active bee makes several trips. */
static void forage_day(colony_t *c)
{
    const float hive = FIELD_N / 2.0f;
    float *nect = c->nectar;
    double honey = 0.0;
    uint64_t trips = 0;
    int ndancers = 0;
    static float dance_x[4096], dance_y[4096];

    for (int trip = 0; trip < TRIPS_PER_DAY; trip++) {
        int nd_new = 0;
        for (int b = 0; b < NBEES; b++) {
            bee_t *e = &c->bees[b];
            if (e->role == ROLE_RESTING) continue;
            float gx, gy;
            if (e->role == ROLE_SCOUT || e->load < 0.0f) {
                float ang = 6.2831853f * urand(&e->rng), r = 40.0f + 180.0f * urand(&e->rng);
                gx = hive + r * cosf(ang); gy = hive + r * sinf(ang);
            } else if (ndancers > 0 && urand(&e->rng) < 0.3f) {
                int d = (int)(urand(&e->rng) * ndancers);
                gx = dance_x[d] + 6.0f * (urand(&e->rng) - 0.5f);
                gy = dance_y[d] + 6.0f * (urand(&e->rng) - 0.5f);
            } else {
                gx = e->tx + 4.0f * (urand(&e->rng) - 0.5f);
                gy = e->ty + 4.0f * (urand(&e->rng) - 0.5f);
            }
            gx = gx < 0.0f ? 0.0f : (gx > FIELD_N - 1 ? FIELD_N - 1 : gx);
            gy = gy < 0.0f ? 0.0f : (gy > FIELD_N - 1 ? FIELD_N - 1 : gy);
            size_t cell = (size_t)gy * FIELD_N + (size_t)gx;
            float dist = hypotf(gx - hive, gy - hive) * 2.0f;    /* 2 m cells */
            float take = nect[cell] > 40.0f ? 40.0f : nect[cell];
            nect[cell] -= take;
            float cost = 0.0065f * dist * 2.0f;                   /* J per round trip */
            e->energy += take * 0.3f - cost;
            e->x = gx; e->y = gy;
            e->load = take;
            trips++;
            if (take > 25.0f) {
                e->tx = gx; e->ty = gy;
                if (take / (cost + 1.0f) > 0.6f && nd_new < 4096) {
                    dance_x[nd_new] = gx; dance_y[nd_new] = gy; nd_new++;
                    e->dances++;
                }
            } else if (take < 5.0f) {
                e->load = -1.0f; /* forget patch, search again */
            }
            honey += take * 0.8;
            if (e->energy < 0.0f) { e->energy = 10.0f; honey -= 20.0; }
        }
        ndancers = nd_new;
    }
    /* ageing and role switching */
    for (int b = 0; b < NBEES; b++) {
        bee_t *e = &c->bees[b];
        e->age++;
        if (e->age > 35) { e->age = 0; e->role = ROLE_FORAGER; e->energy = 30.0f; e->load = -1.0f; }
        else if (e->energy < 5.0f) e->role = ROLE_RESTING;
        else if (e->role == ROLE_RESTING) e->role = ROLE_FORAGER;
    }
    c->honey_mg += honey - 0.012 * NBEES * 24.0;  /* colony consumption */
    c->pollen_mg += 0.05 * honey;
    c->trips += trips;
}

static void regrow_field(colony_t *c)
{
    float *n = c->nectar, *cap = c->capacity;
    for (size_t i = 0; i < (size_t)FIELD_N * FIELD_N; i++) {
        float r = 0.35f * (cap[i] - n[i]);
        n[i] += r;
        if (n[i] > cap[i]) n[i] = cap[i];
    }
    /* very light diffusion of secretion across neighbour cells */
    for (int j = 1; j < FIELD_N - 1; j++)
        for (int i = 1; i < FIELD_N - 1; i++) {
            size_t k = (size_t)j * FIELD_N + i;
            float avg = 0.25f * (n[k - 1] + n[k + 1] + n[k - FIELD_N] + n[k + FIELD_N]);
            n[k] = 0.96f * n[k] + 0.04f * (avg < cap[k] ? avg : cap[k]);
        }
}

static void write_all(int fd, const void *buf, size_t n, const char *path)
{
    const char *p = buf;
    while (n > 0) {
        size_t chunk = n > (1u << 20) ? (1u << 20) : n;
        ssize_t w = write(fd, p, chunk);
        if (w < 0) { if (errno == EINTR) continue; die("write", path); }
        p += w; n -= (size_t)w;
    }
}

static void write_checkpoint(const colony_t *c)
{
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/ckpt_day%03u.bin", g_dir, c->day);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    ckpt_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = CKPT_MAGIC; h.version = 1; h.day = c->day; h.nbees = NBEES; h.field_n = FIELD_N;
    h.honey_mg = c->honey_mg; h.pollen_mg = c->pollen_mg; h.trips = c->trips;
    h.crc_bees = crc32_buf(c->bees, sizeof(bee_t) * NBEES);
    h.crc_field = crc32_buf(c->nectar, sizeof(float) * FIELD_N * FIELD_N);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    write_all(fd, &h, sizeof h, tmp);
    /* bees written in blocks of 4096 records, like a code streaming its arrays */
    for (size_t b = 0; b < NBEES; b += 4096) {
        size_t n = NBEES - b < 4096 ? NBEES - b : 4096;
        write_all(fd, c->bees + b, n * sizeof(bee_t), tmp);
    }
    for (int row = 0; row < FIELD_N; row += 64)
        write_all(fd, c->nectar + (size_t)row * FIELD_N, sizeof(float) * 64 * FIELD_N, tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, path) != 0) die("rename", path);
}

static int read_exact_at(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) return -1;
        p += r; n -= (size_t)r; off += r;
    }
    return 0;
}

/* Returns 0 and fills c if the checkpoint file validates. */
static int read_checkpoint(const char *path, colony_t *c)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ckpt_header_t h;
    int ok = read_exact_at(fd, &h, sizeof h, 0) == 0 && h.magic == CKPT_MAGIC &&
             h.nbees == NBEES && h.field_n == FIELD_N;
    off_t off = sizeof h;
    if (ok) ok = read_exact_at(fd, c->bees, sizeof(bee_t) * NBEES, off) == 0;
    off += (off_t)(sizeof(bee_t) * NBEES);
    if (ok) ok = read_exact_at(fd, c->nectar, sizeof(float) * FIELD_N * FIELD_N, off) == 0;
    close(fd);
    if (!ok) return -1;
    if (crc32_buf(c->bees, sizeof(bee_t) * NBEES) != h.crc_bees) return -1;
    if (crc32_buf(c->nectar, sizeof(float) * FIELD_N * FIELD_N) != h.crc_field) return -1;
    c->day = h.day; c->honey_mg = h.honey_mg; c->pollen_mg = h.pollen_mg; c->trips = h.trips;
    return 0;
}

/* Probe checkpoints newest-first; a corrupted newest one falls back to an older one. */
static int find_and_restore(colony_t *c)
{
    for (int day = NDAYS; day >= 0; day--) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ckpt_day%03d.bin", g_dir, day);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (read_checkpoint(path, c) == 0) return day;
        fprintf(stdout, "honeybee: checkpoint %s rejected (CRC/size)\n", path);
    }
    return -1;
}

static void corrupt_newest(void)
{
    /* emulate a torn write of the last checkpoint: overwrite a block in the middle */
    char path[1024];
    int last = (NDAYS / CKPT_EVERY) * CKPT_EVERY;
    snprintf(path, sizeof path, "%s/ckpt_day%03d.bin", g_dir, last);
    int fd = open(path, O_WRONLY);
    if (fd < 0) die("open", path);
    char junk[4096];
    memset(junk, 0xA5, sizeof junk);
    if (pwrite(fd, junk, sizeof junk, 200000) != (ssize_t)sizeof junk) die("pwrite", path);
    if (close(fd) != 0) die("close", path);
}

static void log_day(FILE *f, const colony_t *c)
{
    double e = 0.0, age = 0.0; int active = 0, scouts = 0;
    for (int b = 0; b < NBEES; b++) {
        e += c->bees[b].energy; age += c->bees[b].age;
        if (c->bees[b].role != ROLE_RESTING) active++;
        if (c->bees[b].role == ROLE_SCOUT) scouts++;
    }
    double nect = 0.0;
    for (size_t i = 0; i < (size_t)FIELD_N * FIELD_N; i++) nect += c->nectar[i];
    if (fprintf(f, "%u %.1f %.1f %llu %d %d %.3f %.2f %.4e\n", c->day, c->honey_mg, c->pollen_mg,
                (unsigned long long)c->trips, active, scouts, e / NBEES, age / NBEES, nect) < 0)
        die("fprintf", "colony_log.txt");
    if (fflush(f) != 0) die("fflush", "colony_log.txt");
}

static uint32_t state_hash(const colony_t *c)
{
    return crc32_buf(c->bees, sizeof(bee_t) * NBEES) ^ crc32_buf(c->nectar, sizeof(float) * FIELD_N * FIELD_N);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    g_dir = argv[1];
    crc_init();
    colony_t c;
    c.bees = malloc(sizeof(bee_t) * NBEES);
    c.nectar = malloc(sizeof(float) * FIELD_N * FIELD_N);
    c.capacity = malloc(sizeof(float) * FIELD_N * FIELD_N);
    if (!c.bees || !c.nectar || !c.capacity) { fprintf(stderr, "honeybee: out of memory\n"); return 1; }

    init_landscape(&c);
    init_colony(&c);
    char lpath[1024];
    snprintf(lpath, sizeof lpath, "%s/colony_log.txt", g_dir);
    FILE *log = fopen(lpath, "w");
    if (!log) die("fopen", lpath);
    fprintf(log, "# day honey_mg pollen_mg trips active scouts mean_energy mean_age nectar_total\n");

    write_checkpoint(&c);
    for (int d = 1; d <= NDAYS; d++) {
        forage_day(&c);
        regrow_field(&c);
        c.day = (uint32_t)d;
        log_day(log, &c);
        if (d % CKPT_EVERY == 0) write_checkpoint(&c);
    }
    uint32_t ref_hash = state_hash(&c);
    double ref_honey = c.honey_mg;

    /* crash: lose the in-memory state and damage the newest checkpoint */
    memset(c.bees, 0, sizeof(bee_t) * NBEES);
    memset(c.nectar, 0, sizeof(float) * FIELD_N * FIELD_N);
    corrupt_newest();

    int from = find_and_restore(&c);
    if (from < 0) { fprintf(stderr, "honeybee: no valid checkpoint\n"); return 1; }
    fprintf(log, "# restart from day %d\n", from);
    for (int d = from + 1; d <= NDAYS; d++) {
        forage_day(&c);
        regrow_field(&c);
        c.day = (uint32_t)d;
        log_day(log, &c);
    }
    if (fclose(log) != 0) die("fclose", lpath);
    uint32_t h = state_hash(&c);
    printf("honeybee: %d bees, %d days, %llu trips, honey %.1f g\n", NBEES, NDAYS,
           (unsigned long long)c.trips, c.honey_mg / 1000.0);
    printf("honeybee: restarted from day %d, final state %s (hash %08x)\n", from,
           (h == ref_hash && c.honey_mg == ref_honey) ? "matches reference" : "DIFFERS", h);
    free(c.bees); free(c.nectar); free(c.capacity);
    return (h == ref_hash) ? 0 : 1;
}
