/*
 * parcel_scan_audit.c
 *
 * Courier-network scan-event auditor.  A synthetic binary journal of
 * fixed-size barcode scan records (pickup, hub-in, hub-out, out-for-delivery,
 * delivered) is written with raw write() calls in small batches, then read
 * back in chunks, aggregated per parcel through an open-addressing hash
 * table, and audited for missing or out-of-order stages.  Results go to one
 * text report per depot, a line-buffered exceptions CSV (re-read with fgets
 * to tally categories) and a ranked summary of the slowest lanes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>

#define N_PARCELS 300000
#define KDE_POINTS 560
#define N_DEPOTS 48
#define N_STAGES 5
#define BATCH_RECS 48
#define READ_CHUNK (64 * 1024)

typedef struct {
    uint32_t parcel_id;
    uint16_t depot;
    uint8_t stage;
    uint8_t scanner;
    uint32_t timestamp; /* seconds since epoch of the run */
    float weight_kg;
} scan_rec_t;

typedef struct {
    uint32_t parcel_id; /* 0 = empty slot */
    uint16_t origin_depot;
    uint16_t last_depot;
    uint32_t stage_time[N_STAGES];
    uint8_t seen_mask;
    uint8_t order_violations;
    float weight_kg;
} parcel_t;

typedef struct {
    parcel_t *slots;
    size_t cap;
    size_t used;
} parcel_table_t;

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Generate the journal: each parcel emits up to 5 scans, interleaved by a
 * sliding window so records of one parcel are spread through the file. */
static size_t generate_journal(const char *path, int nparcels)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    uint32_t seed = 12345;
    scan_rec_t batch[BATCH_RECS];
    int nb = 0;
    size_t total = 0;
    const int window = 64;
    for (int base = 0; base < nparcels; base += window) {
        for (int stage = 0; stage < N_STAGES; stage++) {
            for (int p = base; p < base + window && p < nparcels; p++) {
                uint32_t r = lcg(&seed);
                if (r % 97 == 0) continue;           /* missed scan */
                scan_rec_t *s = &batch[nb++];
                s->parcel_id = 1000003u + (uint32_t)p * 7u;
                s->depot = (uint16_t)((p * 31 + stage * (r % 3)) % N_DEPOTS);
                s->stage = (uint8_t)stage;
                if (r % 251 == 0 && stage > 0) s->stage = (uint8_t)(stage - 1); /* mislabel */
                s->scanner = (uint8_t)(r & 0xff);
                s->timestamp = (uint32_t)(p * 13 + stage * 3600 + (r % 5000));
                s->weight_kg = 0.2f + (float)((p * 2654435761u) % 30000) / 1000.0f;
                if (nb == BATCH_RECS) {
                    if (write(fd, batch, sizeof batch) != (ssize_t)sizeof batch) { perror("write"); exit(1); }
                    total += nb;
                    nb = 0;
                }
            }
        }
    }
    if (nb) {
        if (write(fd, batch, nb * sizeof(scan_rec_t)) < 0) { perror("write"); exit(1); }
        total += nb;
    }
    close(fd);
    return total;
}

static parcel_t *table_lookup(parcel_table_t *t, uint32_t id)
{
    size_t h = (size_t)(id * 2654435761u) & (t->cap - 1);
    while (t->slots[h].parcel_id != 0 && t->slots[h].parcel_id != id)
        h = (h + 1) & (t->cap - 1);
    if (t->slots[h].parcel_id == 0) {
        t->slots[h].parcel_id = id;
        t->used++;
    }
    return &t->slots[h];
}

/* Stream the journal back in fixed-size chunks and fold it into the table. */
static size_t ingest_journal(const char *path, parcel_table_t *t)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    char *buf = malloc(READ_CHUNK);
    size_t carry = 0, nrec = 0;
    ssize_t got;
    while ((got = read(fd, buf + carry, READ_CHUNK - carry)) > 0) {
        size_t avail = carry + (size_t)got;
        size_t whole = avail / sizeof(scan_rec_t);
        for (size_t i = 0; i < whole; i++) {
            scan_rec_t s;
            memcpy(&s, buf + i * sizeof s, sizeof s);
            parcel_t *p = table_lookup(t, s.parcel_id);
            if (!(p->seen_mask & 1u) && s.stage == 0) p->origin_depot = s.depot;
            for (int k = 0; k < s.stage; k++)
                if (p->stage_time[k] > s.timestamp) p->order_violations++;
            if (p->seen_mask & (1u << s.stage)) p->order_violations++;
            p->seen_mask |= (uint8_t)(1u << s.stage);
            p->stage_time[s.stage] = s.timestamp;
            p->last_depot = s.depot;
            p->weight_kg = s.weight_kg;
            nrec++;
        }
        carry = avail - whole * sizeof(scan_rec_t);
        memmove(buf, buf + whole * sizeof(scan_rec_t), carry);
    }
    free(buf);
    close(fd);
    return nrec;
}

static const char *classify(const parcel_t *p)
{
    if (p->order_violations) return "ORDER";
    if (p->seen_mask == 0x1f) return NULL;
    if (!(p->seen_mask & 0x10)) return "UNDELIVERED";
    return "GAP";
}

/* One report per depot; each parcel line goes through fprintf. */
static void write_depot_reports(const char *dir, const parcel_table_t *t, double *lane_hours)
{
    FILE *files[N_DEPOTS];
    char path[1024];
    for (int d = 0; d < N_DEPOTS; d++) {
        snprintf(path, sizeof path, "%s/depot_%02d.txt", dir, d);
        files[d] = fopen(path, "w");
        if (!files[d]) { perror(path); exit(1); }
        fprintf(files[d], "# depot %d parcel origin transit_h weight\n", d);
    }
    for (size_t i = 0; i < t->cap; i++) {
        const parcel_t *p = &t->slots[i];
        if (!p->parcel_id || (p->seen_mask & 0x11) != 0x11) continue;
        double hours = (p->stage_time[4] - (double)p->stage_time[0]) / 3600.0;
        lane_hours[p->origin_depot * N_DEPOTS + p->last_depot] += hours;
        fprintf(files[p->last_depot], "%u %u %.3f %.3f\n", p->parcel_id,
                p->origin_depot, hours, p->weight_kg);
    }
    for (int d = 0; d < N_DEPOTS; d++) fclose(files[d]);
}

static size_t write_exceptions(const char *path, const parcel_table_t *t)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    setvbuf(f, NULL, _IOLBF, 4096);
    fprintf(f, "parcel_id,category,mask,violations\n");
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++) {
        const parcel_t *p = &t->slots[i];
        if (!p->parcel_id) continue;
        const char *c = classify(p);
        if (!c) continue;
        fprintf(f, "%u,%s,%02x,%u\n", p->parcel_id, c, p->seen_mask, p->order_violations);
        n++;
    }
    fclose(f);
    return n;
}

static void tally_exceptions(const char *path, size_t counts[3])
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char line[256];
    counts[0] = counts[1] = counts[2] = 0;
    if (!fgets(line, sizeof line, f)) { fclose(f); return; }
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ',');
        if (!c) continue;
        c++;
        if (!strncmp(c, "ORDER", 5)) counts[0]++;
        else if (!strncmp(c, "UNDELIVERED", 11)) counts[1]++;
        else counts[2]++;
    }
    fclose(f);
}

typedef struct { int from, to; double total; } lane_t;

static int lane_cmp(const void *a, const void *b)
{
    double x = ((const lane_t *)a)->total, y = ((const lane_t *)b)->total;
    return (x < y) - (x > y);
}

static void write_lane_ranking(const char *path, const double *lane_hours, int top)
{
    lane_t *lanes = malloc(sizeof(lane_t) * N_DEPOTS * N_DEPOTS);
    int n = 0;
    for (int a = 0; a < N_DEPOTS; a++)
        for (int b = 0; b < N_DEPOTS; b++)
            if (lane_hours[a * N_DEPOTS + b] > 0) {
                lanes[n].from = a; lanes[n].to = b;
                lanes[n].total = lane_hours[a * N_DEPOTS + b];
                n++;
            }
    qsort(lanes, n, sizeof(lane_t), lane_cmp);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    for (int i = 0; i < n && i < top; i++)
        fprintf(f, "%3d %2d -> %2d %12.2f h\n", i + 1, lanes[i].from, lanes[i].to, lanes[i].total);
    fclose(f);
    free(lanes);
}

/* Gaussian kernel density of door-to-door transit time per origin depot,
 * written as one two-column table per depot. */
static void origin_transit_kde(const char *dir, const parcel_table_t *t, int npoints)
{
    double *hours = malloc(sizeof(double) * t->used);
    double *dens = malloc(sizeof(double) * npoints);
    char path[1024];
    snprintf(path, sizeof path, "%s/transit_kde.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    for (int d = 0; d < N_DEPOTS; d++) {
        size_t n = 0;
        double mean = 0, m2 = 0;
        for (size_t i = 0; i < t->cap; i++) {
            const parcel_t *p = &t->slots[i];
            if (!p->parcel_id || p->origin_depot != d || (p->seen_mask & 0x11) != 0x11) continue;
            double h = (p->stage_time[4] - (double)p->stage_time[0]) / 3600.0;
            hours[n++] = h;
            double delta = h - mean;
            mean += delta / n;
            m2 += delta * (h - mean);
        }
        if (n < 2) continue;
        double sd = sqrt(m2 / (n - 1));
        double bw = 1.06 * sd * pow((double)n, -0.2) + 1e-6;
        double lo = mean - 4 * sd, hi = mean + 4 * sd;
        for (int g = 0; g < npoints; g++) {
            double x = lo + (hi - lo) * g / (npoints - 1), acc = 0;
            for (size_t i = 0; i < n; i++) {
                double z = (x - hours[i]) / bw;
                acc += exp(-0.5 * z * z);
            }
            dens[g] = acc / (n * bw * 2.5066282746310002);
        }
        fprintf(f, "# origin %d n=%zu mean=%.4f sd=%.4f bw=%.4f\n", d, n, mean, sd, bw);
        for (int g = 0; g < npoints; g++)
            fprintf(f, "%.4f %.6e\n", lo + (hi - lo) * g / (npoints - 1), dens[g]);
    }
    fclose(f);
    free(hours);
    free(dens);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char jpath[1024], xpath[1024], rpath[1024];
    snprintf(jpath, sizeof jpath, "%s/scans.journal", dir);
    snprintf(xpath, sizeof xpath, "%s/exceptions.csv", dir);
    snprintf(rpath, sizeof rpath, "%s/lane_ranking.txt", dir);

    size_t written = generate_journal(jpath, N_PARCELS);
    parcel_table_t t;
    t.cap = 1u << 19;
    t.used = 0;
    t.slots = calloc(t.cap, sizeof(parcel_t));
    size_t read_n = 0;
    /* audit is run twice (morning + evening pass) to mimic a cron job */
    for (int pass = 0; pass < 2; pass++) {
        memset(t.slots, 0, t.cap * sizeof(parcel_t));
        t.used = 0;
        read_n = ingest_journal(jpath, &t);
    }
    double *lane_hours = calloc(N_DEPOTS * N_DEPOTS, sizeof(double));
    write_depot_reports(dir, &t, lane_hours);
    size_t nx = write_exceptions(xpath, &t);
    size_t counts[3];
    tally_exceptions(xpath, counts);
    write_lane_ranking(rpath, lane_hours, 200);
    origin_transit_kde(dir, &t, KDE_POINTS);
    printf("records written %zu read %zu parcels %zu exceptions %zu (order %zu undelivered %zu gap %zu)\n",
           written, read_n, t.used, nx, counts[0], counts[1], counts[2]);
    free(lane_hours);
    free(t.slots);
    return 0;
}
