/*
 * laundry_rfid_tag_hash_pagefile.c
 *
 * Garment tracking for an industrial laundry with a continuous tunnel washer.
 * Every garment (hospital linen, chef whites, workwear) carries a UHF RFID
 * tag; the garment register is an on-disk hash table of 4 KiB pages with
 * linear probing between pages, accessed with pread/pwrite:
 *
 *   garments.tbl     header page + bucket pages of fixed 48-byte slots
 *   batches.log      append-only record of every tunnel batch (write)
 *   garments.new     compacted, resized table (tombstones dropped), fsync'ed
 *                    and renamed over garments.tbl
 *
 * Flow: bulk-load the register; run the tunnel for a few weeks of batches
 * (each batch: tag reads -> page lookups, in-place slot updates of wash
 * counts, retirements as tombstones; a counter-flow tunnel model computes
 * water temperature, detergent and soil removal per module); scan the whole
 * table for per-customer rental invoices; compact into a larger table;
 * verify random lookups; write a report.
 *
 * Usage: laundry_rfid_tag_hash_pagefile OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096
#define SLOTS_PER_PAGE 84
#define NGARMENT 200000
#define NCUSTOMER 120
#define NTYPE 8
#define NBATCH 1300
#define BATCH_ITEMS 130
#define NMODULE 12
#define WASH_LIMIT 120       /* retire after this many washes */
#define TABLE_MAGIC 0x4C4E4452u /* 'LNDR' */

enum { SLOT_EMPTY = 0, SLOT_LIVE = 1, SLOT_TOMB = 2 };

typedef struct {
    uint64_t tag;
    uint32_t customer;
    uint16_t type;
    uint8_t state;
    uint8_t damage;
    uint32_t washes;
    uint32_t last_batch;
    uint32_t first_batch;
    float soil_index;
    double rental_cents;
    uint32_t pad[2];
} slot_t; /* 48 bytes */

typedef struct {
    uint32_t magic, npages, nlive, ntomb;
    uint32_t slots_per_page, slot_size;
    uint32_t pad[2];
    slot_t slot[SLOTS_PER_PAGE];
    uint8_t tail[PAGE - 32 - SLOTS_PER_PAGE * 48];
} page_t;
_Static_assert(sizeof(slot_t) == 48, "slot layout");
_Static_assert(sizeof(page_t) == PAGE, "page layout");

typedef struct {
    uint32_t batch, items, unknown, retired;
    float temp_main, detergent, soil_removed, water_l;
} batch_rec;

static const char *g_dir;
static uint64_t g_rng = 0x7A6E1A57ull;
static const char *type_name[NTYPE] = {"flat_sheet", "pillowcase", "bath_towel", "scrub_top",
                                       "chef_jacket", "coverall", "apron", "table_cloth"};
static const double type_kg[NTYPE] = {0.65, 0.15, 0.55, 0.25, 0.45, 0.9, 0.2, 0.7};
static const double type_rent[NTYPE] = {4.0, 1.2, 3.1, 2.5, 5.5, 7.5, 1.5, 4.4};

static void die(const char *what)
{
    fprintf(stderr, "laundry: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(2);
}

static uint64_t next_u64(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static double urand(void) { return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0); }

static uint64_t tag_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static void pread_full(int fd, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("pread");
        p += n;
        len -= (size_t)n;
        off += n;
    }
}

static void pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("pwrite");
        p += n;
        len -= (size_t)n;
        off += n;
    }
}

static off_t page_off(uint32_t pg) { return (off_t)(pg + 1) * PAGE; } /* page 0 of file = header */

/* Bulk load: build bucket pages in memory in groups, write each page once. */
static uint32_t bulk_load(int fd, uint32_t npages, uint64_t *tags, uint32_t *cust_of)
{
    page_t *pages = calloc(npages, sizeof(page_t));
    if (!pages) die("calloc pages");
    uint32_t placed = 0;
    for (uint32_t i = 0; i < NGARMENT; i++) {
        uint64_t tag = 0xE280110000000000ull | (next_u64() & 0xFFFFFFFFFFull);
        tags[i] = tag;
        uint32_t pg = (uint32_t)(tag_hash(tag) % npages);
        for (uint32_t probe = 0; probe < npages; probe++) {
            page_t *p = &pages[(pg + probe) % npages];
            if (p->nlive < SLOTS_PER_PAGE) {
                slot_t *s = &p->slot[p->nlive++];
                s->tag = tag;
                s->customer = (uint32_t)(urand() * urand() * NCUSTOMER);
                cust_of[i] = s->customer;
                s->type = (uint16_t)(urand() * NTYPE);
                s->state = SLOT_LIVE;
                s->washes = (uint32_t)(urand() * WASH_LIMIT);
                s->soil_index = 0;
                placed++;
                break;
            }
        }
    }
    for (uint32_t pg = 0; pg < npages; pg++) {
        pages[pg].magic = TABLE_MAGIC;
        pages[pg].npages = npages;
        pages[pg].slots_per_page = SLOTS_PER_PAGE;
        pages[pg].slot_size = sizeof(slot_t);
        pwrite_full(fd, &pages[pg], PAGE, page_off(pg));
    }
    page_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.magic = TABLE_MAGIC;
    hdr.npages = npages;
    hdr.nlive = placed;
    hdr.slots_per_page = SLOTS_PER_PAGE;
    hdr.slot_size = sizeof(slot_t);
    pwrite_full(fd, &hdr, PAGE, 0);
    free(pages);
    return placed;
}

/* Probe pages from the home bucket; returns slot index and fills *pg/page. */
static int lookup_slot(int fd, uint32_t npages, uint64_t tag, page_t *page, uint32_t *pgno)
{
    uint32_t pg = (uint32_t)(tag_hash(tag) % npages);
    for (uint32_t probe = 0; probe < npages; probe++) {
        uint32_t p = (pg + probe) % npages;
        pread_full(fd, page, PAGE, page_off(p));
        if (page->magic != TABLE_MAGIC) die("corrupt page");
        int empty_seen = 0;
        for (int i = 0; i < SLOTS_PER_PAGE; i++) {
            if (page->slot[i].state == SLOT_EMPTY) {
                empty_seen = 1;
                break;
            }
            if (page->slot[i].tag == tag) {
                *pgno = p;
                return page->slot[i].state == SLOT_LIVE ? i : -1;
            }
        }
        if (empty_seen) return -1;
    }
    return -1;
}

static void update_slot(int fd, uint32_t pgno, int idx, const slot_t *s)
{
    off_t off = page_off(pgno) + (off_t)offsetof(page_t, slot) + (off_t)idx * (off_t)sizeof(slot_t);
    pwrite_full(fd, s, sizeof *s, off);
}

/* Counter-flow tunnel: water enters at the rinse end, garments at the
 * prewash end.  Explicit transport of temperature and detergent between
 * modules, first-order soil removal per garment type. */
static void simulate_tunnel_batch(const int type_count[NTYPE], double soil_removed[NTYPE], batch_rec *rec)
{
    double temp[NMODULE], det[NMODULE], soil[NTYPE];
    for (int m = 0; m < NMODULE; m++) {
        temp[m] = 35.0;
        det[m] = 0.0;
    }
    double kg = 0;
    for (int t = 0; t < NTYPE; t++) {
        soil[t] = 1.0;
        kg += type_count[t] * type_kg[t];
    }
    const double dt = 1.0, flow = 0.9 * kg / 60.0; /* l/s of counter-flow */
    double water = 0;
    for (int m = 0; m < NMODULE; m++) {
        /* the load sits 150 s in each module while water flows backwards */
        for (int step = 0; step < 150; step++) {
            double tn[NMODULE], dn[NMODULE];
            for (int k = 0; k < NMODULE; k++) {
                double up_t = k + 1 < NMODULE ? temp[k + 1] : 18.0; /* fresh water at rinse end */
                double up_d = k + 1 < NMODULE ? det[k + 1] : 0.0;
                double heat = (k >= 2 && k <= 6) ? 2.2 * (75.0 - temp[k]) / 75.0 : 0.0; /* steam injection */
                double dose = (k == 2) ? 0.004 : 0.0;
                tn[k] = temp[k] + dt * (flow * (up_t - temp[k]) / 80.0 + heat - 0.002 * (temp[k] - 20.0));
                dn[k] = det[k] + dt * (flow * (up_d - det[k]) / 80.0 + dose);
            }
            memcpy(temp, tn, sizeof temp);
            memcpy(det, dn, sizeof det);
            water += flow * dt;
            for (int t = 0; t < NTYPE; t++) {
                double k_rem = 0.0009 * exp(0.045 * (temp[m] - 40.0)) * (1.0 + 180.0 * det[m]) * (t == 5 ? 0.6 : 1.0);
                soil[t] -= dt * k_rem * soil[t];
            }
        }
    }
    double tot = 0;
    for (int t = 0; t < NTYPE; t++) {
        soil_removed[t] = 1.0 - soil[t];
        tot += soil_removed[t] * type_count[t];
    }
    rec->temp_main = (float)temp[5];
    rec->detergent = (float)det[3];
    rec->soil_removed = (float)(tot / (rec->items ? rec->items : 1));
    rec->water_l = (float)water;
}

static void append_batch_log(int fd, const batch_rec *r)
{
    ssize_t n = write(fd, r, sizeof *r);
    if (n != (ssize_t)sizeof *r) die("write batch log");
}

/* Run the tunnel: every batch reads tags, updates slots in place. */
static void run_tunnel(int fd, uint32_t npages, const uint64_t *tags, const uint32_t *cust_of, int logfd, long *n_retired,
                       long *n_unknown)
{
    page_t *page = malloc(sizeof(page_t));
    if (!page) die("malloc");
    *n_retired = *n_unknown = 0;
    /* garment pools per customer (indices into tags) */
    uint32_t *pool = malloc(sizeof(uint32_t) * NGARMENT);
    uint32_t start[NCUSTOMER + 1] = {0}, fill[NCUSTOMER];
    if (!pool) die("malloc");
    for (uint32_t i = 0; i < NGARMENT; i++) start[cust_of[i] + 1]++;
    for (int c = 0; c < NCUSTOMER; c++) start[c + 1] += start[c];
    memcpy(fill, start, sizeof fill);
    for (uint32_t i = 0; i < NGARMENT; i++) pool[fill[cust_of[i]]++] = i;
    for (uint32_t b = 1; b <= NBATCH; b++) {
        batch_rec rec = {b, 0, 0, 0, 0, 0, 0, 0};
        int type_count[NTYPE] = {0};
        /* a batch holds one customer's soiled linen; big customers send more batches */
        uint32_t cust = cust_of[(uint32_t)(urand() * NGARMENT)];
        uint32_t psize = start[cust + 1] - start[cust];
        uint64_t picked[BATCH_ITEMS];
        for (int i = 0; i < BATCH_ITEMS; i++) {
            if (urand() < 0.01 || psize == 0) picked[i] = 0xE2801100FFFFFFFFull - (uint64_t)(urand() * 1e6); /* foreign tag */
            else picked[i] = tags[pool[start[cust] + (uint32_t)(urand() * psize)]];
        }
        double soil_removed[NTYPE];
        uint32_t pg[BATCH_ITEMS];
        int idx[BATCH_ITEMS];
        slot_t slots[BATCH_ITEMS];
        for (int i = 0; i < BATCH_ITEMS; i++) {
            idx[i] = lookup_slot(fd, npages, picked[i], page, &pg[i]);
            if (idx[i] < 0) {
                rec.unknown++;
                continue;
            }
            for (int j = 0; j < i; j++) /* tag read twice by the tunnel antenna */
                if (idx[j] == idx[i] && pg[j] == pg[i]) {
                    idx[i] = -1;
                    break;
                }
            if (idx[i] < 0) continue;
            slots[i] = page->slot[idx[i]];
            type_count[slots[i].type]++;
            rec.items++;
        }
        simulate_tunnel_batch(type_count, soil_removed, &rec);
        for (int i = 0; i < BATCH_ITEMS; i++) {
            if (idx[i] < 0) continue;
            slot_t *s = &slots[i];
            s->washes++;
            if (s->first_batch == 0) s->first_batch = b;
            s->last_batch = b;
            s->soil_index = (float)(0.9 * s->soil_index + 0.1 * (1.0 - soil_removed[s->type]));
            s->rental_cents += type_rent[s->type] * 100.0 / 30.0;
            if (urand() < 0.002) s->damage++;
            if (s->washes >= WASH_LIMIT || s->damage >= 2) {
                s->state = SLOT_TOMB;
                rec.retired++;
            }
            update_slot(fd, pg[i], idx[i], s);
        }
        *n_retired += rec.retired;
        *n_unknown += rec.unknown;
        append_batch_log(logfd, &rec);
    }
    free(pool);
    free(page);
}

/* Sequential scan in 64-page chunks: rental totals per customer and type. */
static void scan_customer_totals(int fd, uint32_t npages, double totals[NCUSTOMER], long live_by_type[NTYPE],
                                 long *live, long *tomb)
{
    enum { CH = 64 };
    page_t *buf = malloc(sizeof(page_t) * CH);
    if (!buf) die("malloc");
    memset(totals, 0, sizeof(double) * NCUSTOMER);
    memset(live_by_type, 0, sizeof(long) * NTYPE);
    *live = *tomb = 0;
    for (uint32_t p0 = 0; p0 < npages; p0 += CH) {
        uint32_t n = npages - p0 < CH ? npages - p0 : CH;
        pread_full(fd, buf, (size_t)n * PAGE, page_off(p0));
        for (uint32_t k = 0; k < n; k++)
            for (int i = 0; i < SLOTS_PER_PAGE; i++) {
                const slot_t *s = &buf[k].slot[i];
                if (s->state == SLOT_EMPTY) break;
                if (s->state == SLOT_TOMB) {
                    (*tomb)++;
                    continue;
                }
                (*live)++;
                live_by_type[s->type]++;
                totals[s->customer] += s->rental_cents / 100.0;
            }
    }
    free(buf);
}

/* Rehash live slots into a table with more pages; pages written in hash order. */
static uint32_t compact_table(int fd, uint32_t npages, uint32_t newpages)
{
    char path[1024], newpath[1024];
    snprintf(path, sizeof path, "%s/garments.tbl", g_dir);
    snprintf(newpath, sizeof newpath, "%s/garments.new", g_dir);
    int nfd = open(newpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (nfd < 0) die("open garments.new");
    page_t *dst = calloc(newpages, sizeof(page_t));
    page_t *src = malloc(sizeof(page_t));
    if (!dst || !src) die("malloc");
    uint32_t moved = 0;
    for (uint32_t p = 0; p < npages; p++) {
        pread_full(fd, src, PAGE, page_off(p));
        for (int i = 0; i < SLOTS_PER_PAGE; i++) {
            const slot_t *s = &src->slot[i];
            if (s->state == SLOT_EMPTY) break;
            if (s->state != SLOT_LIVE) continue;
            uint32_t h = (uint32_t)(tag_hash(s->tag) % newpages);
            for (uint32_t probe = 0; probe < newpages; probe++) {
                page_t *d = &dst[(h + probe) % newpages];
                if (d->nlive < SLOTS_PER_PAGE) {
                    d->slot[d->nlive++] = *s;
                    moved++;
                    break;
                }
            }
        }
    }
    /* write pages in a scattered order (stride coprime with the page count) */
    uint32_t stride = 7919;
    while (newpages % stride == 0) stride += 2;
    for (uint32_t k = 0; k < newpages; k++) {
        uint32_t p = (uint32_t)(((uint64_t)k * stride) % newpages);
        dst[p].magic = TABLE_MAGIC;
        dst[p].npages = newpages;
        dst[p].slots_per_page = SLOTS_PER_PAGE;
        dst[p].slot_size = sizeof(slot_t);
        pwrite_full(nfd, &dst[p], PAGE, page_off(p));
    }
    page_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.magic = TABLE_MAGIC;
    hdr.npages = newpages;
    hdr.nlive = moved;
    hdr.slots_per_page = SLOTS_PER_PAGE;
    hdr.slot_size = sizeof(slot_t);
    pwrite_full(nfd, &hdr, PAGE, 0);
    if (fsync(nfd) != 0) die("fsync garments.new");
    if (close(nfd) != 0) die("close garments.new");
    if (rename(newpath, path) != 0) die("rename garments.new");
    free(dst);
    free(src);
    return moved;
}

static long verify_lookups(const uint64_t *tags, uint32_t *found)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/garments.tbl", g_dir);
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open garments.tbl");
    page_t *page = malloc(sizeof(page_t));
    if (!page) die("malloc");
    pread_full(fd, page, PAGE, 0);
    if (page->magic != TABLE_MAGIC) die("bad header");
    uint32_t npages = page->npages;
    long probes = 0;
    *found = 0;
    for (int i = 0; i < 40000; i++) {
        uint64_t tag = tags[(uint32_t)(urand() * NGARMENT)];
        uint32_t pg;
        int idx = lookup_slot(fd, npages, tag, page, &pg);
        probes++;
        if (idx >= 0 && page->slot[idx].tag == tag) (*found)++;
    }
    free(page);
    close(fd);
    return probes;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    g_dir = argv[1];
    char path[1024];
    snprintf(path, sizeof path, "%s/garments.tbl", g_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open garments.tbl");
    snprintf(path, sizeof path, "%s/batches.log", g_dir);
    int logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (logfd < 0) die("open batches.log");

    uint64_t *tags = malloc(sizeof(uint64_t) * NGARMENT);
    uint32_t *cust_of = calloc(NGARMENT, sizeof(uint32_t));
    if (!tags || !cust_of) die("malloc");
    uint32_t npages = (uint32_t)(NGARMENT / (SLOTS_PER_PAGE * 0.70)) + 1;
    uint32_t placed = bulk_load(fd, npages, tags, cust_of);

    long retired, unknown;
    run_tunnel(fd, npages, tags, cust_of, logfd, &retired, &unknown);
    if (fsync(logfd) != 0 || close(logfd) != 0) die("close batches.log");

    double totals[NCUSTOMER];
    long live_by_type[NTYPE], live, tomb;
    scan_customer_totals(fd, npages, totals, live_by_type, &live, &tomb);
    uint32_t moved = compact_table(fd, npages, npages + npages / 4);
    if (close(fd) != 0) die("close garments.tbl");
    uint32_t found;
    long probes = verify_lookups(tags, &found);

    snprintf(path, sizeof path, "%s/laundry_report.txt", g_dir);
    FILE *f = fopen(path, "w");
    if (!f) die("open report");
    fprintf(f, "garments loaded %u  pages %u -> %u  batches %d\n", placed, npages, npages + npages / 4, NBATCH);
    fprintf(f, "retired %ld  unknown tags %ld  live %ld  tombstones %ld  moved %u\n", retired, unknown, live, tomb, moved);
    fprintf(f, "verify: %ld lookups, %u found\n\nlive garments by type\n", probes, found);
    for (int t = 0; t < NTYPE; t++) fprintf(f, "  %-12s %7ld\n", type_name[t], live_by_type[t]);
    fprintf(f, "\ncustomer rental accrued (EUR)\n");
    for (int c = 0; c < NCUSTOMER; c++) fprintf(f, "  C%03d %12.2f%s", c, totals[c], c % 4 == 3 ? "\n" : "");
    if (ferror(f) || fclose(f) != 0) die("write report");
    printf("garments %u  batches %d  retired %ld  unknown %ld  live %ld  verified %u/%ld\n", placed, NBATCH, retired,
           unknown, live, found, probes);
    free(tags);
    free(cust_of);
    return (long)moved == live ? 0 : 3;
}
