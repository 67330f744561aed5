/*
 * farecard_tap_hash_store.c
 *
 * Back office of a bus fare-card system.  A week of tap-on/tap-off events on
 * a 30-route network is simulated (commuters, students, occasional riders,
 * forgotten tap-offs).  Taps are processed in time order against an on-disk
 * account store: an open-addressing hash file of 64-byte card slots in
 * 4 KiB pages, accessed only with pread/pwrite through a small LRU page
 * cache with write-back of dirty pages.  Fare rules: distance-based fares,
 * 60-minute transfers, concession discounts, daily and weekly capping,
 * maximum-fare charge for a missing tap-off, automatic top-ups.  Every event
 * is appended to a journal of fixed 32-byte records (buffered 4 KiB pwrite at
 * the tail), with fdatasync at each end of day.  Nightly settlement scans the
 * store sequentially with large preads; at the end an auditor replays the
 * journal records of sampled cards (random preads via a journal offset index)
 * and checks the balances held in the store.
 *
 * Usage: farecard_tap_hash_store OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCARDS 60000
#define SLOTS_PER_PAGE 64
#define PAGE 4096
#define NPAGES 1500                    /* load factor ~0.6 at full activation */
#define CACHE_PAGES 256
#define NDAYS 7
#define NROUTES 30
#define NSTOPS 44
#define JBUF 4096
#define NAUDIT 400

typedef struct {
    uint64_t card;                     /* 0 = empty */
    uint32_t kind;                     /* 0 adult, 1 concession, 2 student */
    int32_t balance;                   /* cents */
    uint32_t last_tap;                 /* seconds since week start */
    uint32_t last_board;               /* time of the journey's first boarding (transfer window) */
    uint16_t route, stop;
    uint8_t on_board, pad0[3];
    uint32_t day, day_spent, week_spent, trips, transfers, topups, max_fares;
    uint32_t pad1;
} slot;
_Static_assert(sizeof(slot) == 64, "slot must be 64 bytes");

typedef struct {
    uint32_t t;
    uint32_t card_lo, card_hi;
    uint8_t type;                      /* 1 tap-on, 2 tap-off, 3 top-up, 4 max-fare */
    uint8_t route, stop, kind;
    int32_t amount;                    /* fare (+) or top-up (-) in cents */
    int32_t balance_after;
    uint32_t seq;
    uint32_t crc;
} jrec;
_Static_assert(sizeof(jrec) == 32, "journal record must be 32 bytes");

typedef struct { uint32_t t; uint32_t cidx; uint8_t off; uint8_t route, stop; } tap;

static const char *outdir;
static int fd_store, fd_journal;
static char store_path[4096], journal_path[4096];
static uint64_t rng = 0xC6A4A7935BD1E995ull;

static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "farecard: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

static void pread_full(int fd, void *buf, size_t n, off_t off, const char *path)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) { if (errno == EINTR) continue; die("pread", path); }
        if (r == 0) { errno = EIO; die("pread (short file)", path); }
        p += r; n -= (size_t)r; off += r;
    }
}

static void pwrite_full(int fd, const void *buf, size_t n, off_t off, const char *path)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) { if (errno == EINTR) continue; die("pwrite", path); }
        p += w; n -= (size_t)w; off += w;
    }
}

/* ------------------------------------------------------------ page cache */

typedef struct { int32_t page; uint8_t dirty; uint64_t used; slot s[SLOTS_PER_PAGE]; } cpage;
static cpage cache[CACHE_PAGES];
static int32_t page_to_cache[NPAGES + 1];
static uint64_t clock_tick;
static long n_pread, n_pwrite, n_hits;

static off_t page_off(int32_t page) { return (off_t)(page + 1) * PAGE; }    /* page 0 of the file is the header */

static void cache_writeback(cpage *c)
{
    if (c->page >= 0 && c->dirty) {
        pwrite_full(fd_store, c->s, PAGE, page_off(c->page), store_path);
        n_pwrite++;
        c->dirty = 0;
    }
}

/* Return the cached copy of a store page, reading it with pread on a miss (LRU eviction). */
static slot *get_page(int32_t page, int for_write)
{
    int ci = page_to_cache[page];
    if (ci >= 0) {
        n_hits++;
    } else {
        int victim = 0;
        for (int i = 1; i < CACHE_PAGES; i++)
            if (cache[i].used < cache[victim].used) victim = i;
        cpage *c = &cache[victim];
        cache_writeback(c);
        if (c->page >= 0) page_to_cache[c->page] = -1;
        pread_full(fd_store, c->s, PAGE, page_off(page), store_path);
        n_pread++;
        c->page = page;
        page_to_cache[page] = victim;
        ci = victim;
    }
    cache[ci].used = ++clock_tick;
    if (for_write) cache[ci].dirty = 1;
    return cache[ci].s;
}

static void cache_flush_all(void)
{
    for (int i = 0; i < CACHE_PAGES; i++) cache_writeback(&cache[i]);
}

/* ------------------------------------------------------------ store */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
    return x;
}

/* Create the store: header page then NPAGES zeroed pages, written in 64-page extents;
 * start with an empty page cache. */
static void store_create(void)
{
    for (int i = 0; i < CACHE_PAGES; i++) { cache[i].page = -1; cache[i].dirty = 0; cache[i].used = 0; }
    for (int i = 0; i <= NPAGES; i++) page_to_cache[i] = -1;
    snprintf(store_path, sizeof store_path, "%s/accounts.hash", outdir);
    fd_store = open(store_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd_store < 0) die("open", store_path);
    static char zero[64 * PAGE];
    memset(zero, 0, sizeof zero);
    char hdr[PAGE];
    memset(hdr, 0, sizeof hdr);
    snprintf(hdr, sizeof hdr, "FARESTORE v1 pages=%d slots_per_page=%d slot_bytes=%zu\n", NPAGES, SLOTS_PER_PAGE,
             sizeof(slot));
    pwrite_full(fd_store, hdr, PAGE, 0, store_path);
    for (int p = 0; p < NPAGES; p += 64) {
        int n = NPAGES - p < 64 ? NPAGES - p : 64;
        pwrite_full(fd_store, zero, (size_t)n * PAGE, page_off(p), store_path);
    }
}

/* Find the card's slot (linear probing over pages); insert if absent and create != 0. */
static slot *store_lookup(uint64_t card, int create, int for_write)
{
    uint64_t h = mix64(card);
    int32_t page = (int32_t)(h % NPAGES);
    int start = (int)((h >> 32) % SLOTS_PER_PAGE);
    for (int probe = 0; probe < NPAGES; probe++) {
        slot *s = get_page(page, for_write || create);
        for (int k = 0; k < SLOTS_PER_PAGE; k++) {
            slot *x = &s[(start + k) % SLOTS_PER_PAGE];
            if (x->card == card) return x;
            if (x->card == 0) {
                if (!create) return NULL;
                memset(x, 0, sizeof *x);
                x->card = card;
                return x;
            }
        }
        page = (page + 1) % NPAGES;
        start = 0;
    }
    fprintf(stderr, "farecard: store full\n");
    exit(2);
}

/* ------------------------------------------------------------ journal */

static jrec jbuf[JBUF / sizeof(jrec)];
static int jn;
static off_t jtail;
static uint32_t jseq;

static uint32_t rec_crc(const jrec *r)
{
    const unsigned char *p = (const unsigned char *)r;
    uint32_t c = 0x811C9DC5u;
    for (size_t i = 0; i < offsetof(jrec, crc); i++) { c ^= p[i]; c *= 16777619u; }
    return c;
}

static void journal_flush(void)
{
    if (jn == 0) return;
    pwrite_full(fd_journal, jbuf, (size_t)jn * sizeof(jrec), jtail, journal_path);
    jtail += (off_t)jn * (off_t)sizeof(jrec);
    jn = 0;
}

static off_t journal_append(uint32_t t, uint64_t card, int type, int route, int stop, int kind, int32_t amount,
                            int32_t bal)
{
    jrec *r = &jbuf[jn];
    r->t = t; r->card_lo = (uint32_t)card; r->card_hi = (uint32_t)(card >> 32);
    r->type = (uint8_t)type; r->route = (uint8_t)route; r->stop = (uint8_t)stop; r->kind = (uint8_t)kind;
    r->amount = amount; r->balance_after = bal; r->seq = jseq++;
    r->crc = rec_crc(r);
    off_t off = jtail + (off_t)jn * (off_t)sizeof(jrec);
    if (++jn == (int)(sizeof jbuf / sizeof jbuf[0])) journal_flush();
    return off;
}

/* ------------------------------------------------------------ fares */

static uint64_t card_number[NCARDS];
static uint8_t card_kind[NCARDS];
static off_t *audit_offsets[NAUDIT];
static int audit_n[NAUDIT], audit_cap[NAUDIT];
static int audit_of_card[NCARDS];

static void note_audit(uint32_t cidx, off_t off)
{
    int a = audit_of_card[cidx];
    if (a < 0) return;
    if (audit_n[a] == audit_cap[a]) {
        audit_cap[a] = audit_cap[a] ? 2 * audit_cap[a] : 32;
        audit_offsets[a] = realloc(audit_offsets[a], sizeof(off_t) * (size_t)audit_cap[a]);
        if (!audit_offsets[a]) { fprintf(stderr, "farecard: out of memory\n"); exit(2); }
    }
    audit_offsets[a][audit_n[a]++] = off;
}

static int32_t capped(slot *s, int32_t fare)
{
    const int32_t day_cap = s->kind == 0 ? 1000 : 500, week_cap = s->kind == 0 ? 4200 : 2100;
    if (s->day_spent + (uint32_t)fare > (uint32_t)day_cap) fare = day_cap - (int32_t)s->day_spent;
    if (s->week_spent + (uint32_t)fare > (uint32_t)week_cap) fare = week_cap - (int32_t)s->week_spent;
    return fare < 0 ? 0 : fare;
}

/* Debit a (capped) fare, journal it, autoload if the balance runs low; returns the amount charged. */
static int32_t charge(slot *s, uint32_t cidx, uint32_t t, int type, int route, int stop, int32_t fare)
{
    fare = capped(s, fare);
    s->balance -= fare;
    s->day_spent += (uint32_t)fare;
    s->week_spent += (uint32_t)fare;
    note_audit(cidx, journal_append(t, s->card, type, route, stop, (int)s->kind, fare, s->balance));
    if (s->balance < 500) {                                    /* autoload top-up */
        s->balance += 2000;
        s->topups++;
        note_audit(cidx, journal_append(t, s->card, 3, route, stop, (int)s->kind, -2000, s->balance));
    }
    return fare;
}

static long revenue_route[NROUTES];

/* Apply one tap to the account held in the store. */
static void process_tap(const tap *tp)
{
    uint64_t card = card_number[tp->cidx];
    slot *s = store_lookup(card, 1, 1);
    if (s->trips == 0 && s->balance == 0) { s->kind = card_kind[tp->cidx]; s->balance = 2000; }
    uint32_t day = tp->t / 86400;
    if (day != s->day) { s->day = day; s->day_spent = 0; }
    const int32_t base = 190, per_stop = 14, max_fare = 190 + 14 * NSTOPS;
    int disc = s->kind == 0 ? 100 : (s->kind == 1 ? 50 : 40);
    if (!tp->off) {
        if (s->on_board) {                                     /* never tapped off: maximum fare */
            s->max_fares++;
            revenue_route[s->route] += charge(s, tp->cidx, tp->t, 4, s->route, s->stop, max_fare * disc / 100);
        }
        int transfer = s->last_board && tp->t - s->last_board < 3600 && tp->route != s->route;
        if (transfer) s->transfers++;
        else s->last_board = tp->t;
        s->on_board = 1;
        s->route = tp->route;
        s->stop = tp->stop;
        s->last_tap = tp->t;
        s->trips++;
        note_audit(tp->cidx, journal_append(tp->t, card, 1, tp->route, tp->stop, (int)s->kind, 0, s->balance));
    } else {
        if (!s->on_board || s->route != tp->route) return;     /* stray tap-off: ignored by the validator */
        int stops = abs((int)tp->stop - (int)s->stop);
        int transfer_leg = s->last_board != s->last_tap;
        int32_t fare = ((transfer_leg ? 0 : base) + per_stop * stops) * disc / 100;
        s->on_board = 0;
        s->last_tap = tp->t;
        revenue_route[tp->route] += charge(s, tp->cidx, tp->t, 2, tp->route, tp->stop, fare);
    }
}

static int cmp_tap(const void *a, const void *b)
{
    const tap *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->cidx != y->cidx) return x->cidx < y->cidx ? -1 : 1;
    return (int)x->off - (int)y->off;
}

/* One day of journeys: commuters (two trips, often a transfer), students, occasional riders. */
static long generate_day(int day, tap *taps)
{
    long n = 0;
    int weekend = day >= 5;
    for (uint32_t c = 0; c < NCARDS; c++) {
        double p = card_kind[c] == 2 ? (weekend ? 0.05 : 0.55) : (c % 10 < 4 ? (weekend ? 0.12 : 0.7) : 0.08);
        if (urand() >= p) continue;
        int legs_out = urand() < 0.3 ? 2 : 1;
        for (int trip = 0; trip < 2; trip++) {
            double hour = trip == 0 ? 6.5 + 2.5 * urand() : 15.0 + 4.0 * urand();
            uint32_t t = (uint32_t)(day * 86400 + hour * 3600);
            for (int leg = 0; leg < legs_out; leg++) {
                int route = (int)((c * 7 + (uint32_t)leg * 13 + (uint32_t)trip * 3) % NROUTES);
                int s_on = (int)(urand() * NSTOPS), s_off = (int)(urand() * NSTOPS);
                if (s_off == s_on) s_off = (s_on + 5) % NSTOPS;
                int ride = 120 * abs(s_off - s_on) + 60;
                taps[n++] = (tap){t, c, 0, (uint8_t)route, (uint8_t)s_on};
                if (urand() > 0.025) taps[n++] = (tap){t + (uint32_t)ride, c, 1, (uint8_t)route, (uint8_t)s_off};
                t += (uint32_t)ride + 300 + (uint32_t)(600 * urand());
            }
        }
    }
    qsort(taps, (size_t)n, sizeof(tap), cmp_tap);
    return n;
}

/* Nightly settlement: sequential scan of the whole store in 1 MiB preads. */
static void settlement_scan(int day, FILE *rep, const char *reppath)
{
    enum { CHUNK = 256 };
    static slot buf[CHUNK * SLOTS_PER_PAGE];
    long active = 0, on_board = 0, capped_day = 0;
    long long float_cents = 0;
    for (int p = 0; p < NPAGES; p += CHUNK) {
        int n = NPAGES - p < CHUNK ? NPAGES - p : CHUNK;
        pread_full(fd_store, buf, (size_t)n * PAGE, page_off(p), store_path);
        n_pread++;
        for (int i = 0; i < n * SLOTS_PER_PAGE; i++) {
            const slot *s = &buf[i];
            if (!s->card) continue;
            active++;
            float_cents += s->balance;
            on_board += s->on_board;
            if (s->day == (uint32_t)day && s->day_spent >= (s->kind == 0 ? 1000u : 500u)) capped_day++;
        }
    }
    if (fprintf(rep, "day %d: accounts %ld, stored value %.2f, still on board %ld, hit daily cap %ld\n", day,
                active, float_cents / 100.0, on_board, capped_day) < 0)
        die("fprintf", reppath);
}

/* Audit: replay each sampled card's journal records (random preads) and compare to the store. */
static int audit_replay(long *nrec)
{
    int mismatches = 0;
    *nrec = 0;
    for (int a = 0; a < NAUDIT; a++) {
        uint32_t cidx = (uint32_t)((uint64_t)a * NCARDS / NAUDIT);
        int32_t bal = 2000, last = 2000;
        int seen = 0;
        for (int i = 0; i < audit_n[a]; i++) {
            jrec r;
            pread_full(fd_journal, &r, sizeof r, audit_offsets[a][i], journal_path);
            (*nrec)++;
            if (r.crc != rec_crc(&r)) { mismatches++; continue; }
            uint64_t card = ((uint64_t)r.card_hi << 32) | r.card_lo;
            if (card != card_number[cidx]) { mismatches++; continue; }
            bal -= r.amount;
            if (bal != r.balance_after) mismatches++;
            last = r.balance_after;
            seen = 1;
        }
        slot *s = store_lookup(card_number[cidx], 0, 0);
        if (seen && (!s || s->balance != last)) mismatches++;
    }
    return mismatches;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 1; }
    outdir = argv[1];
    for (uint32_t c = 0; c < NCARDS; c++) {
        card_number[c] = 0x3086000000000000ull | (mix64(c + 12345) & 0xFFFFFFFFFFull);
        card_kind[c] = (uint8_t)(urand() < 0.7 ? 0 : (urand() < 0.5 ? 1 : 2));
        audit_of_card[c] = -1;
    }
    for (int a = 0; a < NAUDIT; a++) audit_of_card[(uint64_t)a * NCARDS / NAUDIT] = a;

    store_create();
    snprintf(journal_path, sizeof journal_path, "%s/taps.journal", outdir);
    fd_journal = open(journal_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd_journal < 0) die("open", journal_path);
    char reppath[4096];
    snprintf(reppath, sizeof reppath, "%s/settlement.txt", outdir);
    FILE *rep = fopen(reppath, "w");
    if (!rep) die("fopen", reppath);

    tap *taps = malloc(sizeof(tap) * (size_t)NCARDS * 8);
    if (!taps) { fprintf(stderr, "farecard: out of memory\n"); return 2; }
    long total_taps = 0;
    for (int day = 0; day < NDAYS; day++) {
        long n = generate_day(day, taps);
        for (long i = 0; i < n; i++) process_tap(&taps[i]);
        total_taps += n;
        journal_flush();
        cache_flush_all();
        if (fdatasync(fd_journal) != 0) die("fdatasync", journal_path);
        if (fdatasync(fd_store) != 0) die("fdatasync", store_path);
        settlement_scan(day, rep, reppath);
    }
    free(taps);
    long nrec;
    int bad = audit_replay(&nrec);
    cache_flush_all();
    long long rev = 0;
    for (int r = 0; r < NROUTES; r++) {
        rev += revenue_route[r];
        if (fprintf(rep, "route %2d revenue %.2f\n", r + 1, revenue_route[r] / 100.0) < 0) die("fprintf", reppath);
    }
    if (fprintf(rep, "audit: %d cards, %ld journal records replayed, %d mismatches\n", NAUDIT, nrec, bad) < 0)
        die("fprintf", reppath);
    if (fclose(rep) != 0) die("fclose", reppath);
    if (close(fd_journal) != 0) die("close", journal_path);
    if (close(fd_store) != 0) die("close", store_path);
    printf("farecard: %ld taps, %u journal records, revenue %.2f, page cache %ld hits / %ld preads / %ld pwrites, "
           "audit mismatches %d\n", total_taps, jseq, rev / 100.0, n_hits, n_pread, n_pwrite, bad);
    return bad != 0;
}
