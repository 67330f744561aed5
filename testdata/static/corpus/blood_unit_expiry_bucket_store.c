/*
 * blood_unit_expiry_bucket_store.c
 *
 * On-disk inventory store of a regional blood establishment, replayed over
 * one year of operations.
 *
 * Files (all accessed with pread/pwrite at computed offsets):
 *   units.dat    fixed 128-byte unit records (donation number, product,
 *                ABO/RhD group, collection and expiry day, status, chain
 *                links, CRC); deleted records go to an on-disk free list.
 *   din_hash.dat open-addressing hash table (linear probing, tombstones)
 *                from donation identification number to record number.
 *   expiry.dat   calendar of bucket heads, one per (product, group, expiry
 *                day); each bucket is a doubly linked list threaded through
 *                the unit records, so issuing "first to expire" and the
 *                daily outdating sweep touch only the relevant records.
 *   txn.log      append-only transaction journal (buffered write()).
 *
 * Every day: outdate units expiring today, register the day's donations
 * (components RBC, platelets, plasma), serve hospital orders with ABO/RhD
 * compatible units in first-expiry-first-out order, and process look-back
 * recalls (hash lookups of earlier donations, quarantining units still in
 * stock).  At the end the unit file is mapped with mmap and verified
 * against the bucket chains and hash table, and a report is written.
 *
 * usage: blood_unit_expiry_bucket_store OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NDAYS 365
#define NPROD 3
#define NGROUP 8
#define HORIZON (NDAYS + 400)
#define HASH_SLOTS (1 << 18)
#define DONATIONS_PER_DAY 180
#define LOGBUF (1 << 16)
#define NIL (-1)

enum { RBC = 0, PLT = 1, FFP = 2 };
enum { AVAILABLE = 1, ISSUED = 2, EXPIRED = 3, QUARANTINED = 4, FREE = 5 };
static const char *prod_name[NPROD] = {"RBC", "PLT", "FFP"};
static const char *group_name[NGROUP] = {"O-", "O+", "A-", "A+", "B-", "B+", "AB-", "AB+"};
static const int shelf_life[NPROD] = {42, 5, 365};
static const double group_freq[NGROUP] = {0.07, 0.37, 0.06, 0.34, 0.02, 0.09, 0.01, 0.04};

typedef struct {
    uint64_t din;
    char din_text[16];
    int32_t product, group, collected, expires, status, event_day, hospital, reserved;
    int64_t next, prev;
    float volume_ml;
    uint32_t crc;
    char pad[48];
} unit_rec;
_Static_assert(sizeof(unit_rec) == 128, "unit record must be 128 bytes");

typedef struct {
    int64_t nrec, free_head, live;
    char pad[104];
} store_header;

typedef struct {
    uint64_t key; /* 0 empty, 1 tombstone */
    int64_t rec;
} hash_slot;

static const char *g_dir;
static int fd_units, fd_hash, fd_exp, fd_log;
static store_header hdr;
static int64_t heads[NPROD][NGROUP][HORIZON]; /* write-through cache of expiry.dat */
static char logbuf[LOGBUF];
static size_t loglen;
static uint64_t g_rng = 0xB100DB4Eull;
static long n_pread, n_pwrite, n_probe;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "blood_unit_expiry_bucket_store: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double urand(void)
{
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t crc32c(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

static void xpread(int fd, void *buf, size_t n, off_t off, const char *what)
{
    ssize_t r = pread(fd, buf, n, off);
    if (r != (ssize_t)n)
        die("pread", what);
    n_pread++;
}

static void xpwrite(int fd, const void *buf, size_t n, off_t off, const char *what)
{
    ssize_t r = pwrite(fd, buf, n, off);
    if (r != (ssize_t)n)
        die("pwrite", what);
    n_pwrite++;
}

#define REC_OFF(r) ((off_t)sizeof(store_header) + (off_t)(r) * (off_t)sizeof(unit_rec))

static void read_rec(int64_t r, unit_rec *u)
{
    xpread(fd_units, u, sizeof *u, REC_OFF(r), "units.dat");
    if (u->crc != crc32c(u, offsetof(unit_rec, crc))) {
        fprintf(stderr, "CRC mismatch in unit record %lld\n", (long long)r);
        exit(1);
    }
}

static void write_rec(int64_t r, unit_rec *u)
{
    u->crc = crc32c(u, offsetof(unit_rec, crc));
    xpwrite(fd_units, u, sizeof *u, REC_OFF(r), "units.dat");
}

#define WRITE_HEADER() xpwrite(fd_units, &hdr, sizeof hdr, 0, "units.dat header")

static void set_head(int p, int g, int day, int64_t r)
{
    heads[p][g][day] = r;
    off_t off = (off_t)(((size_t)p * NGROUP + (size_t)g) * HORIZON + (size_t)day) * (off_t)sizeof(int64_t);
    xpwrite(fd_exp, &r, sizeof r, off, "expiry.dat");
}

static void journal(const char *fmt_line, size_t n)
{
    if (loglen + n > LOGBUF) {
        size_t done = 0;
        while (done < loglen) {
            ssize_t w = write(fd_log, logbuf + done, loglen - done);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                die("write", "txn.log");
            }
            done += (size_t)w;
        }
        loglen = 0;
    }
    memcpy(logbuf + loglen, fmt_line, n);
    loglen += n;
}

#define JLOG(...)                                                                                                      \
    do {                                                                                                               \
        char jl_[160];                                                                                                 \
        int jn_ = snprintf(jl_, sizeof jl_, __VA_ARGS__);                                                              \
        journal(jl_, (size_t)jn_);                                                                                     \
    } while (0)

static void open_store(void)
{
    char p[4096];
    const char *names[4] = {"units.dat", "din_hash.dat", "expiry.dat", "txn.log"};
    int *fds[4] = {&fd_units, &fd_hash, &fd_exp, &fd_log};
    for (int i = 0; i < 4; i++) {
        if ((size_t)snprintf(p, sizeof p, "%s/%s", g_dir, names[i]) >= sizeof p)
            die("path too long", NULL);
        *fds[i] = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (*fds[i] < 0)
            die("open", p);
    }
    /* pre-size the hash table and calendar (sparse) and initialise heads */
    if (ftruncate(fd_hash, (off_t)HASH_SLOTS * (off_t)sizeof(hash_slot)) != 0)
        die("ftruncate", "din_hash.dat");
    for (int p2 = 0; p2 < NPROD; p2++)
        for (int g = 0; g < NGROUP; g++)
            for (int d = 0; d < HORIZON; d++)
                heads[p2][g][d] = NIL;
    xpwrite(fd_exp, heads, sizeof heads, 0, "expiry.dat");
    memset(&hdr, 0, sizeof hdr);
    hdr.free_head = NIL;
    WRITE_HEADER();
}

/* --- hash index ------------------------------------------------------- */

static void hash_insert(uint64_t key, int64_t rec)
{
    uint64_t h = (key ^ (key >> 33)) * 0xFF51AFD7ED558CCDull; /* MurmurHash3 fmix64 step */
    h = (h ^ (h >> 33)) & (HASH_SLOTS - 1);
    hash_slot s;
    for (;;) {
        xpread(fd_hash, &s, sizeof s, (off_t)h * (off_t)sizeof s, "din_hash.dat");
        n_probe++;
        if (s.key <= 1)
            break;
        h = (h + 1) & (HASH_SLOTS - 1);
    }
    s.key = key;
    s.rec = rec;
    xpwrite(fd_hash, &s, sizeof s, (off_t)h * (off_t)sizeof s, "din_hash.dat");
}

/* Returns the record number or NIL; *slot receives the slot position. */
static int64_t hash_lookup(uint64_t key, uint64_t *slot)
{
    uint64_t h = (key ^ (key >> 33)) * 0xFF51AFD7ED558CCDull; /* MurmurHash3 fmix64 step */
    h = (h ^ (h >> 33)) & (HASH_SLOTS - 1);
    hash_slot s;
    for (;;) {
        xpread(fd_hash, &s, sizeof s, (off_t)h * (off_t)sizeof s, "din_hash.dat");
        n_probe++;
        if (s.key == 0)
            return NIL;
        if (s.key == key) {
            *slot = h;
            return s.rec;
        }
        h = (h + 1) & (HASH_SLOTS - 1);
    }
}

/* --- bucket chains ----------------------------------------------------- */

static void bucket_push(int64_t r, unit_rec *u)
{
    int64_t h = heads[u->product][u->group][u->expires];
    u->prev = NIL;
    u->next = h;
    write_rec(r, u);
    if (h != NIL) {
        unit_rec o;
        read_rec(h, &o);
        o.prev = r;
        write_rec(h, &o);
    }
    set_head(u->product, u->group, u->expires, r);
}

static void bucket_unlink(int64_t r, unit_rec *u)
{
    if (u->prev == NIL && heads[u->product][u->group][u->expires] != r) {
        fprintf(stderr, "bucket chain corrupt at record %lld\n", (long long)r);
        exit(1);
    }
    if (u->prev != NIL) {
        unit_rec p;
        read_rec(u->prev, &p);
        p.next = u->next;
        write_rec(u->prev, &p);
    } else {
        set_head(u->product, u->group, u->expires, u->next);
    }
    if (u->next != NIL) {
        unit_rec n;
        read_rec(u->next, &n);
        n.prev = u->prev;
        write_rec(u->next, &n);
    }
    u->next = u->prev = NIL;
}

/* --- daily operations -------------------------------------------------- */

static int pick_group(void)
{
    double u = urand(), c = 0.0;
    for (int g = 0; g < NGROUP; g++) {
        c += group_freq[g];
        if (u < c)
            return g;
    }
    return NGROUP - 1;
}

static uint64_t next_din_seq = 100000;

static void register_donations(int day, uint64_t *din_hist, long *ndin)
{
    int n = DONATIONS_PER_DAY + (int)(40.0 * (urand() - 0.5)) - (day % 7 >= 5 ? 60 : 0);
    for (int i = 0; i < n; i++) {
        int g = pick_group();
        uint64_t seq = next_din_seq++;
        for (int p = 0; p < NPROD; p++) {
            if (p == PLT && urand() > 0.35)
                continue; /* only some whole-blood donations give a platelet pool share */
            unit_rec u;
            memset(&u, 0, sizeof u);
            u.din = seq * 4 + (uint64_t)p;
            snprintf(u.din_text, sizeof u.din_text, "W0420%02d%06llu", (day / 30) % 100,
                     (unsigned long long)(seq % 1000000));
            u.product = p;
            u.group = g;
            u.collected = day;
            u.expires = day + shelf_life[p];
            u.status = AVAILABLE;
            u.event_day = day;
            u.hospital = -1;
            u.volume_ml = (float)(p == RBC ? 280 + 40 * urand() : p == PLT ? 60 + 20 * urand() : 250 + 50 * urand());
            int64_t r;
            if (hdr.free_head != NIL) { /* reuse a purged record */
                unit_rec f;
                r = hdr.free_head;
                read_rec(r, &f);
                hdr.free_head = f.next;
            } else {
                r = hdr.nrec++;
            }
            hdr.live++;
            bucket_push(r, &u);
            hash_insert(u.din, r);
            din_hist[(*ndin)++] = u.din;
            JLOG("%03d DON %s %s %s r%lld\n", day, u.din_text, prod_name[p], group_name[g], (long long)r);
        }
    }
    WRITE_HEADER();
}

/* Outdate everything expiring today. */
static long outdate_sweep(int day, long expired[NPROD])
{
    long n = 0;
    for (int p = 0; p < NPROD; p++)
        for (int g = 0; g < NGROUP; g++) {
            int64_t r = heads[p][g][day];
            while (r != NIL) {
                unit_rec u;
                read_rec(r, &u);
                int64_t nx = u.next;
                u.status = EXPIRED;
                u.event_day = day;
                u.next = u.prev = NIL;
                write_rec(r, &u);
                JLOG("%03d EXP %s %s %s\n", day, u.din_text, prod_name[p], group_name[g]);
                expired[p]++;
                n++;
                r = nx;
            }
            if (heads[p][g][day] != NIL)
                set_head(p, g, day, NIL);
        }
    return n;
}

/* Records that left stock more than 30 days ago are purged to the free
 * list and their hash entries replaced by tombstones (a full sequential
 * scan of the unit file in batches, once a week). */
static long retention_purge(int day)
{
    const int batch = 512;
    unit_rec *buf = malloc(sizeof(unit_rec) * batch);
    if (!buf)
        die("malloc", NULL);
    long purged = 0;
    for (int64_t r0 = 0; r0 < hdr.nrec; r0 += batch) {
        int n = (int)(hdr.nrec - r0 < batch ? hdr.nrec - r0 : batch);
        xpread(fd_units, buf, sizeof(unit_rec) * (size_t)n, REC_OFF(r0), "units.dat scan");
        for (int i = 0; i < n; i++) {
            unit_rec *u = &buf[i];
            if ((u->status == ISSUED || u->status == EXPIRED || u->status == QUARANTINED) && day - u->event_day > 30) {
                uint64_t slot;
                if (hash_lookup(u->din, &slot) != NIL) {
                    hash_slot t = {1, NIL};
                    xpwrite(fd_hash, &t, sizeof t, (off_t)slot * (off_t)sizeof t, "din_hash.dat");
                }
                u->status = FREE;
                u->next = hdr.free_head;
                u->prev = NIL;
                write_rec(r0 + i, u);
                hdr.free_head = r0 + i;
                hdr.live--;
                purged++;
            }
        }
    }
    free(buf);
    WRITE_HEADER();
    return purged;
}

/* ABO/RhD compatible donor groups for a recipient, preferred order. */
static int compatible(int product, int recip, int *out)
{
    int n = 0;
    int rabo = recip / 2, rrh = recip % 2; /* 0 O, 1 A, 2 B, 3 AB */
    out[n++] = recip;
    for (int g = 0; g < NGROUP; g++) {
        if (g == recip)
            continue;
        int dabo = g / 2, drh = g % 2;
        int abo_ok;
        if (product == FFP) /* plasma: donor must lack the recipient's antigens' antibodies */
            abo_ok = dabo == 3 || (rabo == 0) || (dabo == rabo);
        else
            abo_ok = dabo == 0 || dabo == rabo || rabo == 3;
        int rh_ok = product == FFP || drh <= rrh;
        if (abo_ok && rh_ok)
            out[n++] = g;
    }
    return n;
}

static void hospital_orders(int day, long *short_units, long *age_sum, long *issued)
{
    int norders = 88 + (int)(30 * urand());
    for (int o = 0; o < norders; o++) {
        int h = (int)(urand() * 24);
        double u = urand();
        int product = u < 0.62 ? RBC : (u < 0.8 ? PLT : FFP);
        int recip = pick_group();
        int qty = 1 + (int)(urand() * (product == RBC ? 4 : 2));
        /* first-expiry-first-out over compatible groups, own group first */
        int cg[NGROUP], ncg = compatible(product, recip, cg), got = 0;
        for (int k = 0; k < ncg && got < qty; k++)
            for (int d = day; d < day + shelf_life[product] + 1 && d < HORIZON && got < qty; d++) {
                int64_t r = heads[product][cg[k]][d];
                while (r != NIL && got < qty) {
                    unit_rec un;
                    read_rec(r, &un);
                    int64_t nx = un.next;
                    bucket_unlink(r, &un);
                    un.status = ISSUED;
                    un.event_day = day;
                    un.hospital = h;
                    write_rec(r, &un);
                    *age_sum += day - un.collected;
                    (*issued)++;
                    JLOG("%03d ISS %s %s %s -> H%02d for %s\n", day, un.din_text, prod_name[product],
                         group_name[cg[k]], h, group_name[recip]);
                    got++;
                    r = nx;
                }
            }
        if (got < qty) {
            *short_units += qty - got;
            JLOG("%03d SHORT %s %s H%02d %d\n", day, prod_name[product], group_name[recip], h, qty - got);
        }
    }
}

/* Look-back: a donor seroconverts; all earlier donations within 180 days
 * are looked up by DIN and quarantined if still in stock. */
static long recalls(int day, const uint64_t *din_hist, long ndin)
{
    long q = 0;
    int nrecall = urand() < 0.3 ? 1 + (int)(urand() * 3) : 0;
    for (int i = 0; i < nrecall; i++) {
        for (int k = 0; k < 25 && ndin > 0; k++) {
            uint64_t din = din_hist[(long)(urand() * (double)ndin)];
            uint64_t slot;
            int64_t r = hash_lookup(din, &slot);
            if (r == NIL)
                continue;
            unit_rec u;
            read_rec(r, &u);
            if (u.din != din) {
                fprintf(stderr, "hash points to wrong record\n");
                exit(1);
            }
            if (u.status == AVAILABLE) {
                bucket_unlink(r, &u);
                u.status = QUARANTINED;
                u.event_day = day;
                write_rec(r, &u);
                JLOG("%03d QUA %s\n", day, u.din_text);
                q++;
            }
        }
    }
    return q;
}

/* mmap the unit file and cross-check chains, statuses and hash. */
static int verify_store(long stock[NPROD][NGROUP])
{
    struct stat st;
    if (fstat(fd_units, &st) != 0)
        die("fstat", "units.dat");
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd_units, 0);
    if (map == MAP_FAILED)
        die("mmap", "units.dat");
    const store_header *h = map;
    const unit_rec *rec = (const unit_rec *)((const char *)map + sizeof(store_header));
    int bad = 0;
    long avail = 0, chained = 0;
    if (h->nrec != hdr.nrec || (size_t)REC_OFF(h->nrec) > len)
        bad++;
    for (int64_t r = 0; r < h->nrec; r++) {
        if (rec[r].crc != crc32c(&rec[r], offsetof(unit_rec, crc)))
            bad++;
        if (rec[r].status == AVAILABLE) {
            avail++;
            stock[rec[r].product][rec[r].group]++;
        }
    }
    for (int p = 0; p < NPROD; p++)
        for (int g = 0; g < NGROUP; g++)
            for (int d = 0; d < HORIZON; d++) {
                int64_t prev = NIL;
                for (int64_t r = heads[p][g][d]; r != NIL; r = rec[r].next) {
                    if (rec[r].prev != prev || rec[r].status != AVAILABLE || rec[r].expires != d)
                        bad++;
                    prev = r;
                    chained++;
                }
            }
    if (chained != avail)
        bad++;
    /* every available unit must be findable through the hash */
    long checked = 0;
    for (int64_t r = 0; r < h->nrec && checked < 3000; r += 7) {
        if (rec[r].status != AVAILABLE)
            continue;
        uint64_t slot;
        if (hash_lookup(rec[r].din, &slot) != r)
            bad++;
        checked++;
    }
    if (munmap(map, len) != 0)
        die("munmap", "units.dat");
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    open_store();
    uint64_t *din_hist = malloc(sizeof(uint64_t) * (size_t)NDAYS * (DONATIONS_PER_DAY + 40) * 3);
    if (!din_hist)
        die("malloc", NULL);
    long ndin = 0, expired[NPROD] = {0}, short_units = 0, age_sum = 0, issued = 0, quarantined = 0, purged = 0;
    for (int day = 0; day < NDAYS; day++) {
        outdate_sweep(day, expired);
        register_donations(day, din_hist, &ndin);
        hospital_orders(day, &short_units, &age_sum, &issued);
        quarantined += recalls(day, din_hist, ndin);
        if (day % 7 == 6)
            purged += retention_purge(day);
    }
    WRITE_HEADER();
    if (loglen > 0 && write(fd_log, logbuf, loglen) != (ssize_t)loglen)
        die("write", "txn.log");
    loglen = 0;

    long stock[NPROD][NGROUP] = {{0}};
    int bad = verify_store(stock);

    char p[4096];
    if ((size_t)snprintf(p, sizeof p, "%s/inventory_report.txt", g_dir) >= sizeof p)
        die("path too long", NULL);
    FILE *f = fopen(p, "w");
    if (!f)
        die("open", p);
    int ok = fprintf(f, "donation units %ld, issued %ld (mean age %.1f d), short %ld, quarantined %ld, purged %ld\n"
                        "outdated: RBC %ld  PLT %ld  FFP %ld\nrecords %lld (live %lld), verification errors %d\n"
                        "closing stock by group:\n%-5s",
                     ndin, issued, issued ? (double)age_sum / issued : 0.0, short_units, quarantined, purged,
                     expired[RBC], expired[PLT], expired[FFP], (long long)hdr.nrec, (long long)hdr.live, bad, "") >= 0;
    for (int g = 0; g < NGROUP && ok; g++)
        ok = fprintf(f, "%7s", group_name[g]) >= 0;
    for (int pr = 0; pr < NPROD && ok; pr++) {
        ok = fprintf(f, "\n%-5s", prod_name[pr]) >= 0;
        for (int g = 0; g < NGROUP && ok; g++)
            ok = fprintf(f, "%7ld", stock[pr][g]) >= 0;
    }
    if (!ok || fputc('\n', f) == EOF || fclose(f) != 0)
        die("write", p);
    if (close(fd_units) || close(fd_hash) || close(fd_exp) || close(fd_log))
        die("close", "store files");
    free(din_hist);
    printf("blood_unit_expiry_bucket_store: %ld units registered, %ld issued, %ld outdated, %ld short, %ld quarantined; "
           "%ld preads, %ld pwrites, %ld hash probes, %d verification errors\n",
           ndin, issued, expired[0] + expired[1] + expired[2], short_units, quarantined, n_pread, n_pwrite, n_probe, bad);
    return bad == 0 ? 0 : 1;
}
