/*
 * outage_ticket_bptree_store.c
 *
 * Distribution-grid outage management store.  A year of outage tickets
 * for ~1200 feeders (background failures, storm days, momentary recloser
 * operations) is replayed in time order against an on-disk B+tree keyed
 * by (feeder, start minute, ticket): a ticket is inserted when it opens
 * and updated in place when the crew restores supply; cancelled tickets
 * are deleted.  Pages are 4 KiB, checksummed, and move between disk and a
 * small clock-replacement buffer pool only through pread/pwrite.  After
 * the replay the tree is flushed and fsync'ed, every feeder is range-
 * scanned along the leaf chain to compute IEEE 1366 reliability indices
 * (SAIFI, SAIDI, CAIDI, MAIFI, major event days by the 2.5-beta method),
 * the tree is rebuilt bottom-up into a compact file that replaces the
 * original (rename), and random point lookups are verified on it.
 *
 * usage: outage_ticket_bptree_store OUTDIR
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
#include <sys/stat.h>
#include <unistd.h>

#define PAGE        4096
#define POOL        1024             /* 4 MB buffer pool */
#define HASHSZ      4096
#define NFEEDER     4800
#define NDAY        365
#define MAGIC       0x4f5554424b455931ULL      /* "OUTBKEY1" */
#define LEAF        1
#define INNER       2
#define HDR         16
#define LEAF_MAX    ((PAGE - HDR) / (8 + (int)sizeof(ticket_t)))
#define INNER_MAX   ((PAGE - HDR - 4) / 12)

typedef struct {
    uint32_t ticket;
    uint32_t duration_min;        /* 0 while open */
    uint32_t customers;
    uint32_t restore_minute;
    uint32_t flags;               /* bit0 momentary, bit1 storm */
    uint32_t device;              /* interrupting device (recloser, fuse, breaker) */
    uint32_t calls;               /* customer trouble calls received */
    uint32_t etr_minute;          /* estimated time of restoration given */
    uint16_t cause, crew, section, weather;
    float lat, lon;
    uint32_t reserved[4];
} ticket_t;                        /* 64 bytes */

typedef struct {                  /* page 0 */
    uint64_t magic;
    uint32_t root, npages, height, pad;
    uint64_t nkeys;
} meta_t;

typedef struct {
    uint16_t type, n;
    uint32_t next;                /* leaf chain */
    uint32_t sum;                 /* Fletcher checksum of the page with sum = 0 */
    uint32_t pad;
} phdr_t;

typedef struct {
    uint32_t pid;
    int pin, dirty, ref, used;
    uint8_t *data;
} frame_t;

typedef struct {
    int fd;
    const char *path;
    frame_t fr[POOL];
    int hash[HASHSZ];             /* pid -> frame (open addressing, -1 empty) */
    int hand;
    meta_t meta;
    long reads, writes, hits;
} tree_t;

static const char *g_dir;
static uint64_t g_rng = 0x0DDB1A5E5BADC0DEULL;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "outage_ticket_bptree_store: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double rnd(void)
{
    g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27;
    return (double)((g_rng * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
    double u = rnd(), v = rnd();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static uint32_t page_sum(const uint8_t *p)
{
    uint32_t a = 0xffff, b = 0xffff;
    const uint32_t *w = (const uint32_t *)(const void *)p;
    for (int i = 0; i < PAGE / 4; i++) {
        uint32_t x = i == 2 ? 0 : w[i];          /* word 2 holds the checksum */
        a = (a + (x & 0xffff) + (x >> 16)) % 65535u;
        b = (b + a) % 65535u;
    }
    return (b << 16) | a;
}

static phdr_t *H(uint8_t *p) { return (phdr_t *)(void *)p; }
static uint64_t *leaf_keys(uint8_t *p) { return (uint64_t *)(void *)(p + HDR); }
static ticket_t *leaf_vals(uint8_t *p) { return (ticket_t *)(void *)(p + HDR + 8 * LEAF_MAX); }
static uint64_t *inner_keys(uint8_t *p) { return (uint64_t *)(void *)(p + HDR); }
static uint32_t *inner_kids(uint8_t *p) { return (uint32_t *)(void *)(p + HDR + 8 * INNER_MAX); }

/* ---------------- buffer pool over pread/pwrite ---------------- */

static void write_frame(tree_t *t, frame_t *f)
{
    H(f->data)->sum = page_sum(f->data);
    off_t off = (off_t)f->pid * PAGE;
    size_t done = 0;
    while (done < PAGE) {
        ssize_t w = pwrite(t->fd, f->data + done, PAGE - done, off + (off_t)done);
        if (w < 0) { if (errno == EINTR) continue; die("pwrite", t->path); }
        done += (size_t)w;
    }
    f->dirty = 0;
    t->writes++;
}

static void hash_put(tree_t *t, uint32_t pid, int fi)
{
    unsigned h = (pid * 2654435761u) & (HASHSZ - 1);
    while (t->hash[h] >= 0) h = (h + 1) & (HASHSZ - 1);
    t->hash[h] = fi;
}

static int hash_get(tree_t *t, uint32_t pid)
{
    unsigned h = (pid * 2654435761u) & (HASHSZ - 1);
    while (t->hash[h] >= 0) {
        if (t->fr[t->hash[h]].pid == pid && t->fr[t->hash[h]].used) return t->hash[h];
        h = (h + 1) & (HASHSZ - 1);
    }
    return -1;
}

static void hash_del(tree_t *t, int fi)
{
    uint32_t pid = t->fr[fi].pid;
    unsigned h = (pid * 2654435761u) & (HASHSZ - 1);
    while (t->hash[h] != fi) h = (h + 1) & (HASHSZ - 1);
    t->hash[h] = -1;
    /* re-insert the rest of the cluster (linear-probing deletion) */
    for (unsigned j = (h + 1) & (HASHSZ - 1); t->hash[j] >= 0; j = (j + 1) & (HASHSZ - 1)) {
        int g = t->hash[j];
        t->hash[j] = -1;
        hash_put(t, t->fr[g].pid, g);
    }
}

static int victim(tree_t *t)
{
    for (int spins = 0; spins < 4 * POOL; spins++) {
        frame_t *f = &t->fr[t->hand];
        int fi = t->hand;
        t->hand = (t->hand + 1) % POOL;
        if (!f->used) return fi;
        if (f->pin) continue;
        if (f->ref) { f->ref = 0; continue; }
        if (f->dirty) write_frame(t, f);
        hash_del(t, fi);
        f->used = 0;
        return fi;
    }
    fprintf(stderr, "buffer pool exhausted (all pages pinned)\n");
    exit(1);
}

/* Pin a page; `fresh` pages are zeroed instead of read. */
static uint8_t *pin(tree_t *t, uint32_t pid, int fresh)
{
    int fi = hash_get(t, pid);
    if (fi >= 0) {
        t->fr[fi].pin++;
        t->fr[fi].ref = 1;
        t->hits++;
        return t->fr[fi].data;
    }
    fi = victim(t);
    frame_t *f = &t->fr[fi];
    f->pid = pid; f->pin = 1; f->ref = 1; f->dirty = 0; f->used = 1;
    if (fresh) {
        memset(f->data, 0, PAGE);
        f->dirty = 1;
    } else {
        size_t done = 0;
        off_t off = (off_t)pid * PAGE;
        while (done < PAGE) {
            ssize_t r = pread(t->fd, f->data + done, PAGE - done, off + (off_t)done);
            if (r < 0) { if (errno == EINTR) continue; die("pread", t->path); }
            if (r == 0) { fprintf(stderr, "%s: short page %u\n", t->path, pid); exit(1); }
            done += (size_t)r;
        }
        t->reads++;
        if (page_sum(f->data) != H(f->data)->sum) {
            fprintf(stderr, "%s: checksum mismatch on page %u\n", t->path, pid);
            exit(1);
        }
    }
    hash_put(t, pid, fi);
    return f->data;
}

static void unpin(tree_t *t, uint8_t *data, int dirty)
{
    ptrdiff_t fi = (data - t->fr[0].data) / PAGE;       /* frames are one contiguous block */
    if (fi < 0 || fi >= POOL || t->fr[fi].data != data || t->fr[fi].pin <= 0) {
        fprintf(stderr, "unpin of unknown frame\n");
        exit(1);
    }
    t->fr[fi].pin--;
    if (dirty) t->fr[fi].dirty = 1;
}

static uint32_t alloc_page(tree_t *t) { return t->meta.npages++; }

static void tree_open(tree_t *t, const char *path, int create)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->fd = open(path, create ? (O_RDWR | O_CREAT | O_TRUNC) : O_RDWR, 0644);
    if (t->fd < 0) die("open", path);
    for (int i = 0; i < HASHSZ; i++) t->hash[i] = -1;
    uint8_t *mem = malloc((size_t)POOL * PAGE);
    if (!mem) die("malloc", path);
    for (int i = 0; i < POOL; i++) t->fr[i].data = mem + (size_t)i * PAGE;
    if (create) {
        t->meta.magic = MAGIC;
        t->meta.npages = 1;
        uint32_t root = alloc_page(t);
        uint8_t *p = pin(t, root, 1);
        H(p)->type = LEAF;
        unpin(t, p, 1);
        t->meta.root = root;
        t->meta.height = 1;
    } else {
        uint8_t buf[PAGE];
        if (pread(t->fd, buf, PAGE, 0) != PAGE) die("pread meta", path);
        memcpy(&t->meta, buf, sizeof t->meta);
        if (t->meta.magic != MAGIC) { fprintf(stderr, "%s: bad magic\n", path); exit(1); }
    }
}

static void tree_flush(tree_t *t)
{
    for (int i = 0; i < POOL; i++)
        if (t->fr[i].used && t->fr[i].dirty) write_frame(t, &t->fr[i]);
    uint8_t buf[PAGE];
    memset(buf, 0, PAGE);
    memcpy(buf, &t->meta, sizeof t->meta);
    if (pwrite(t->fd, buf, PAGE, 0) != PAGE) die("pwrite meta", t->path);
    if (fsync(t->fd) != 0) die("fsync", t->path);
}

static void tree_close(tree_t *t)
{
    tree_flush(t);
    if (close(t->fd) != 0) die("close", t->path);
    free(t->fr[0].data);
}

/* ---------------- B+tree operations ---------------- */

static int lower_bound(const uint64_t *k, int n, uint64_t key)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (k[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int child_index(const uint64_t *k, int n, uint64_t key)
{
    int lo = 0, hi = n;                 /* first separator > key */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (k[mid] <= key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Recursive insert; returns 1 and fills (*up_key, *up_pid) if pid split. */
static int insert_rec(tree_t *t, uint32_t pid, uint64_t key, const ticket_t *val, uint64_t *up_key,
                      uint32_t *up_pid)
{
    uint8_t *p = pin(t, pid, 0);
    if (H(p)->type == LEAF) {
        uint64_t *k = leaf_keys(p);
        ticket_t *v = leaf_vals(p);
        int n = H(p)->n, pos = lower_bound(k, n, key);
        if (pos < n && k[pos] == key) { v[pos] = *val; unpin(t, p, 1); return 0; }
        if (n < LEAF_MAX) {
            memmove(k + pos + 1, k + pos, sizeof(uint64_t) * (size_t)(n - pos));
            memmove(v + pos + 1, v + pos, sizeof(ticket_t) * (size_t)(n - pos));
            k[pos] = key; v[pos] = *val;
            H(p)->n++;
            t->meta.nkeys++;
            unpin(t, p, 1);
            return 0;
        }
        /* split: right half to a new leaf */
        uint32_t rp = alloc_page(t);
        uint8_t *r = pin(t, rp, 1);
        H(r)->type = LEAF;
        int mid = n / 2;
        uint64_t *rk = leaf_keys(r);
        ticket_t *rv = leaf_vals(r);
        memcpy(rk, k + mid, sizeof(uint64_t) * (size_t)(n - mid));
        memcpy(rv, v + mid, sizeof(ticket_t) * (size_t)(n - mid));
        H(r)->n = (uint16_t)(n - mid);
        H(p)->n = (uint16_t)mid;
        H(r)->next = H(p)->next;
        H(p)->next = rp;
        uint8_t *tgt = key < rk[0] ? p : r;
        uint64_t *tk = leaf_keys(tgt);
        ticket_t *tv = leaf_vals(tgt);
        int tn = H(tgt)->n, tpos = lower_bound(tk, tn, key);
        memmove(tk + tpos + 1, tk + tpos, sizeof(uint64_t) * (size_t)(tn - tpos));
        memmove(tv + tpos + 1, tv + tpos, sizeof(ticket_t) * (size_t)(tn - tpos));
        tk[tpos] = key; tv[tpos] = *val;
        H(tgt)->n++;
        t->meta.nkeys++;
        *up_key = rk[0];
        *up_pid = rp;
        unpin(t, r, 1);
        unpin(t, p, 1);
        return 1;
    }
    uint64_t *k = inner_keys(p);
    uint32_t *c = inner_kids(p);
    int n = H(p)->n, ci = child_index(k, n, key);
    uint64_t ck;
    uint32_t cp;
    if (!insert_rec(t, c[ci], key, val, &ck, &cp)) { unpin(t, p, 0); return 0; }
    if (n < INNER_MAX) {
        memmove(k + ci + 1, k + ci, sizeof(uint64_t) * (size_t)(n - ci));
        memmove(c + ci + 2, c + ci + 1, sizeof(uint32_t) * (size_t)(n - ci));
        k[ci] = ck; c[ci + 1] = cp;
        H(p)->n++;
        unpin(t, p, 1);
        return 0;
    }
    /* split inner node: build the merged arrays then cut in two */
    static uint64_t tk[INNER_MAX + 1];
    static uint32_t tc[INNER_MAX + 2];
    memcpy(tk, k, sizeof(uint64_t) * (size_t)ci);
    tk[ci] = ck;
    memcpy(tk + ci + 1, k + ci, sizeof(uint64_t) * (size_t)(n - ci));
    memcpy(tc, c, sizeof(uint32_t) * (size_t)(ci + 1));
    tc[ci + 1] = cp;
    memcpy(tc + ci + 2, c + ci + 1, sizeof(uint32_t) * (size_t)(n - ci));
    int total = n + 1, mid = total / 2;
    uint32_t rp = alloc_page(t);
    uint8_t *r = pin(t, rp, 1);
    H(r)->type = INNER;
    memcpy(k, tk, sizeof(uint64_t) * (size_t)mid);
    memcpy(c, tc, sizeof(uint32_t) * (size_t)(mid + 1));
    H(p)->n = (uint16_t)mid;
    memcpy(inner_keys(r), tk + mid + 1, sizeof(uint64_t) * (size_t)(total - mid - 1));
    memcpy(inner_kids(r), tc + mid + 1, sizeof(uint32_t) * (size_t)(total - mid));
    H(r)->n = (uint16_t)(total - mid - 1);
    *up_key = tk[mid];
    *up_pid = rp;
    unpin(t, r, 1);
    unpin(t, p, 1);
    return 1;
}

static void tree_insert(tree_t *t, uint64_t key, const ticket_t *val)
{
    uint64_t uk;
    uint32_t up;
    if (insert_rec(t, t->meta.root, key, val, &uk, &up)) {
        uint32_t nr = alloc_page(t);
        uint8_t *p = pin(t, nr, 1);
        H(p)->type = INNER;
        H(p)->n = 1;
        inner_keys(p)[0] = uk;
        inner_kids(p)[0] = t->meta.root;
        inner_kids(p)[1] = up;
        unpin(t, p, 1);
        t->meta.root = nr;
        t->meta.height++;
    }
}

/* Descend to the leaf that would hold key (pinned). */
static uint8_t *find_leaf(tree_t *t, uint64_t key)
{
    uint8_t *p = pin(t, t->meta.root, 0);
    while (H(p)->type == INNER) {
        uint32_t next = inner_kids(p)[child_index(inner_keys(p), H(p)->n, key)];
        unpin(t, p, 0);
        p = pin(t, next, 0);
    }
    return p;
}

/* Read-modify-write of one record; returns 0 if found. */
static int tree_update(tree_t *t, uint64_t key, uint32_t restore_minute, uint32_t duration)
{
    uint8_t *p = find_leaf(t, key);
    int n = H(p)->n, pos = lower_bound(leaf_keys(p), n, key);
    if (pos >= n || leaf_keys(p)[pos] != key) { unpin(t, p, 0); return -1; }
    leaf_vals(p)[pos].restore_minute = restore_minute;
    leaf_vals(p)[pos].duration_min = duration;
    unpin(t, p, 1);
    return 0;
}

static int tree_delete(tree_t *t, uint64_t key)
{
    uint8_t *p = find_leaf(t, key);
    int n = H(p)->n, pos = lower_bound(leaf_keys(p), n, key);
    if (pos >= n || leaf_keys(p)[pos] != key) { unpin(t, p, 0); return -1; }
    memmove(leaf_keys(p) + pos, leaf_keys(p) + pos + 1, sizeof(uint64_t) * (size_t)(n - pos - 1));
    memmove(leaf_vals(p) + pos, leaf_vals(p) + pos + 1, sizeof(ticket_t) * (size_t)(n - pos - 1));
    H(p)->n--;
    t->meta.nkeys--;
    unpin(t, p, 1);
    return 0;
}

static int tree_get(tree_t *t, uint64_t key, ticket_t *out)
{
    uint8_t *p = find_leaf(t, key);
    int n = H(p)->n, pos = lower_bound(leaf_keys(p), n, key);
    int ok = pos < n && leaf_keys(p)[pos] == key;
    if (ok) *out = leaf_vals(p)[pos];
    unpin(t, p, 0);
    return ok ? 0 : -1;
}

/* ---------------- workload ---------------- */

typedef struct { uint32_t customers; double rate, x, y; } feeder_t;

typedef struct { uint32_t minute; uint64_t key; uint32_t dur; } restore_ev;

static feeder_t g_feeder[NFEEDER];
static restore_ev *g_heap;
static int g_heap_n;

static uint64_t make_key(uint32_t feeder, uint32_t minute, uint32_t ticket)
{
    return ((uint64_t)feeder << 44) | ((uint64_t)minute << 20) | (ticket & 0xfffff);
}

static void heap_push(restore_ev e)
{
    int i = g_heap_n++;
    while (i > 0 && g_heap[(i - 1) / 2].minute > e.minute) { g_heap[i] = g_heap[(i - 1) / 2]; i = (i - 1) / 2; }
    g_heap[i] = e;
}

static restore_ev heap_pop(void)
{
    restore_ev top = g_heap[0], last = g_heap[--g_heap_n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= g_heap_n) break;
        if (c + 1 < g_heap_n && g_heap[c + 1].minute < g_heap[c].minute) c++;
        if (g_heap[c].minute >= last.minute) break;
        g_heap[i] = g_heap[c]; i = c;
    }
    g_heap[i] = last;
    return top;
}

static void build_feeders(void)
{
    for (int f = 0; f < NFEEDER; f++) {
        g_feeder[f].customers = 400 + (uint32_t)(3600 * rnd() * rnd());
        g_feeder[f].rate = (1.0 + 6.0 * rnd()) / NDAY;          /* sustained per day */
        g_feeder[f].x = rnd();
        g_feeder[f].y = rnd();
    }
}

/* Replay the year: inserts at outage start, updates at restoration. */
static void replay_year(tree_t *t, long *ntickets, long *nupdates, long *ndeleted)
{
    g_heap = malloc(sizeof(restore_ev) * 400000);  /* open tickets at any time */
    if (!g_heap) die("malloc", "heap");
    uint32_t ticket = 0;
    *ntickets = *nupdates = *ndeleted = 0;
    static uint64_t cancel[8192];
    int ncancel = 0;
    for (int d = 0; d < NDAY; d++) {
        /* storm day: a front crosses part of the service area */
        int storm = rnd() < 0.035;
        double sx = rnd(), sy = rnd(), srad = 0.2 + 0.3 * rnd();
        /* draw the day's outages, then replay them in minute order */
        static struct { uint32_t minute, feeder; int storm, momentary; } ev[20000];
        int ne = 0;
        for (int f = 0; f < NFEEDER; f++) {
            double lam = g_feeder[f].rate * (1.0 + 0.5 * sin(6.283185307179586 * (d - 170) / 365.0));
            int hit = storm && hypot(g_feeder[f].x - sx, g_feeder[f].y - sy) < srad;
            if (hit) lam *= 18.0;
            double mom = 2.5 * lam;
            while (rnd() < lam && ne < 20000) { ev[ne].feeder = (uint32_t)f; ev[ne].storm = hit; ev[ne].momentary = 0; ne++; lam *= 0.3; }
            while (rnd() < mom && ne < 20000) { ev[ne].feeder = (uint32_t)f; ev[ne].storm = hit; ev[ne].momentary = 1; ne++; mom *= 0.4; }
        }
        for (int i = 0; i < ne; i++) {
            double hr = ev[i].storm ? 12.0 + 4.0 * gauss() : 24.0 * rnd();
            if (hr < 0) hr = 0;
            if (hr >= 24) hr = 23.99;
            ev[i].minute = (uint32_t)(d * 1440 + hr * 60);
        }
        /* insertion sort by minute: the day's list is short */
        for (int i = 1; i < ne; i++) {
            __typeof__(ev[0]) x = ev[i];
            int j = i - 1;
            while (j >= 0 && ev[j].minute > x.minute) { ev[j + 1] = ev[j]; j--; }
            ev[j + 1] = x;
        }
        for (int i = 0; i < ne; i++) {
            while (g_heap_n > 0 && g_heap[0].minute <= ev[i].minute) {
                restore_ev r = heap_pop();
                if (tree_update(t, r.key, r.minute, r.dur) == 0) (*nupdates)++;
            }
            ticket++;
            ticket_t v;
            memset(&v, 0, sizeof v);
            v.ticket = ticket;
            double frac = ev[i].momentary ? 1.0 : 0.15 + 0.85 * rnd();
            v.customers = (uint32_t)(g_feeder[ev[i].feeder].customers * frac);
            v.cause = (uint16_t)(ev[i].storm ? 3 : (int)(rnd() * 5));
            v.crew = (uint16_t)(rnd() * 40);
            v.flags = (uint32_t)(ev[i].momentary | (ev[i].storm << 1));
            v.device = ev[i].feeder * 16u + (uint32_t)(rnd() * 16);
            v.calls = ev[i].momentary ? 0 : (uint32_t)(v.customers * 0.04 * rnd());
            v.section = (uint16_t)(rnd() * 60);
            v.weather = (uint16_t)(ev[i].storm ? 7 : (int)(rnd() * 3));
            v.lat = (float)(44.0 + 1.5 * g_feeder[ev[i].feeder].y + 0.01 * gauss());
            v.lon = (float)(-93.0 + 2.0 * g_feeder[ev[i].feeder].x + 0.01 * gauss());
            uint64_t key = make_key(ev[i].feeder, ev[i].minute, ticket);
            tree_insert(t, key, &v);
            (*ntickets)++;
            double dur = ev[i].momentary ? 0.2 + 4.0 * rnd()
                                         : exp(log(85.0) + 0.8 * gauss()) * (ev[i].storm ? 3.5 : 1.0);
            if (dur < 5.0 && !ev[i].momentary) dur = 5.0;
            restore_ev r = {ev[i].minute + (uint32_t)ceil(dur), key, (uint32_t)ceil(dur)};
            heap_push(r);
            v.etr_minute = ev[i].minute + (uint32_t)(dur * (0.6 + 0.8 * rnd()));
            if (!ev[i].momentary) tree_insert(t, key, &v);          /* dispatcher posts the ETR */
            if (!ev[i].momentary && rnd() < 0.02 && ncancel < 8192) cancel[ncancel++] = key;
        }
        /* dispatch reviews the day's cancelled (duplicate) tickets at midnight */
        while (g_heap_n > 0 && g_heap[0].minute <= (uint32_t)(d + 1) * 1440) {
            restore_ev r = heap_pop();
            if (tree_update(t, r.key, r.minute, r.dur) == 0) (*nupdates)++;
        }
        for (int i = 0; i < ncancel; i++)
            if (tree_delete(t, cancel[i]) == 0) (*ndeleted)++;
        ncancel = 0;
    }
    while (g_heap_n > 0) {
        restore_ev r = heap_pop();
        if (tree_update(t, r.key, r.minute, r.dur) == 0) (*nupdates)++;
    }
    free(g_heap);
}

typedef struct {
    double saifi, saidi, caidi, maifi, saidi_excl_med;
    int med_days;
    long sustained, momentary;
} reliability_t;

/* Leaf-chain range scan per feeder; IEEE 1366 indices and MED detection. */
static void reliability_scan(tree_t *t, reliability_t *out, const char *report)
{
    static double day_cmi[NDAY], day_ci[NDAY];
    static double f_cmi[NFEEDER], f_ci[NFEEDER], f_mom[NFEEDER];
    memset(day_cmi, 0, sizeof day_cmi); memset(day_ci, 0, sizeof day_ci);
    double served = 0;
    long sus = 0, mom = 0;
    for (int f = 0; f < NFEEDER; f++) {
        served += g_feeder[f].customers;
        f_cmi[f] = f_ci[f] = f_mom[f] = 0;
        uint64_t lo = make_key((uint32_t)f, 0, 0), hi = make_key((uint32_t)f + 1, 0, 0);
        uint8_t *p = find_leaf(t, lo);
        int pos = lower_bound(leaf_keys(p), H(p)->n, lo);
        for (;;) {
            int n = H(p)->n;
            uint64_t *k = leaf_keys(p);
            ticket_t *v = leaf_vals(p);
            int done = 0;
            for (; pos < n; pos++) {
                if (k[pos] >= hi) { done = 1; break; }
                uint32_t minute = (uint32_t)((k[pos] >> 20) & 0xffffff);
                int day = (int)(minute / 1440);
                if (day >= NDAY) day = NDAY - 1;
                if (v[pos].duration_min < 5) { f_mom[f] += v[pos].customers; mom++; continue; }
                double cmi = (double)v[pos].customers * v[pos].duration_min;
                f_cmi[f] += cmi; f_ci[f] += v[pos].customers;
                day_cmi[day] += cmi; day_ci[day] += v[pos].customers;
                sus++;
            }
            uint32_t next = H(p)->next;
            unpin(t, p, 0);
            if (done || next == 0) break;
            p = pin(t, next, 0);
            pos = 0;
        }
    }
    double cmi = 0, ci = 0, mci = 0;
    for (int f = 0; f < NFEEDER; f++) { cmi += f_cmi[f]; ci += f_ci[f]; mci += f_mom[f]; }
    /* 2.5 beta: T_MED = exp(alpha + 2.5 beta) over ln(daily SAIDI) */
    double sl = 0, sl2 = 0;
    int nd = 0;
    for (int d = 0; d < NDAY; d++)
        if (day_cmi[d] > 0) { double l = log(day_cmi[d] / served); sl += l; sl2 += l * l; nd++; }
    double alpha = sl / nd, beta = sqrt(fmax(0.0, sl2 / nd - alpha * alpha));
    double tmed = exp(alpha + 2.5 * beta), excl = 0;
    out->med_days = 0;
    for (int d = 0; d < NDAY; d++) {
        double ds = day_cmi[d] / served;
        if (ds > tmed) out->med_days++;
        else excl += ds;
    }
    out->saifi = ci / served;
    out->saidi = cmi / served;
    out->caidi = ci > 0 ? cmi / ci : 0;
    out->maifi = mci / served;
    out->saidi_excl_med = excl;
    out->sustained = sus;
    out->momentary = mom;

    FILE *f = fopen(report, "w");
    if (!f) die("fopen", report);
    int ok = fprintf(f, "feeder customers SAIFI SAIDI_min CAIDI_min MAIFI\n") > 0;
    for (int i = 0; i < NFEEDER; i++) {
        double c = g_feeder[i].customers;
        ok &= fprintf(f, "F%04d %5u %.3f %8.1f %7.1f %.3f\n", i, g_feeder[i].customers, f_ci[i] / c, f_cmi[i] / c,
                      f_ci[i] > 0 ? f_cmi[i] / f_ci[i] : 0.0, f_mom[i] / c) > 0;
    }
    ok &= fprintf(f, "SYSTEM SAIFI %.3f SAIDI %.1f CAIDI %.1f MAIFI %.3f  T_MED %.2f  MEDs %d  SAIDI(excl MED) %.1f\n",
                  out->saifi, out->saidi, out->caidi, out->maifi, tmed, out->med_days, excl) > 0;
    if (!ok || fclose(f) != 0) die("write", report);
}

/* Bottom-up rebuild at ~95 % fill into a new file (sequential pwrite). */
static void compact_tree(tree_t *src, const char *dst_path, uint32_t *pages_out)
{
    tree_t dst;
    tree_open(&dst, dst_path, 1);
    /* reuse the root leaf created by tree_open as the first leaf */
    uint32_t *level = malloc(sizeof(uint32_t) * (src->meta.npages + 16));
    uint64_t *lkey = malloc(sizeof(uint64_t) * (src->meta.npages + 16));
    if (!level || !lkey) die("malloc", dst_path);
    int nl = 0;
    const int fill = LEAF_MAX * 95 / 100;
    uint32_t cur = dst.meta.root;
    uint8_t *out = pin(&dst, cur, 0);
    level[nl] = cur; lkey[nl] = 0; nl++;
    uint8_t *p = find_leaf(src, 0);
    uint64_t copied = 0;
    for (;;) {
        int n = H(p)->n;
        for (int i = 0; i < n; i++) {
            if (H(out)->n == fill) {
                uint32_t np = alloc_page(&dst);
                H(out)->next = np;
                unpin(&dst, out, 1);
                out = pin(&dst, np, 1);
                H(out)->type = LEAF;
                level[nl] = np; lkey[nl] = leaf_keys(p)[i]; nl++;
            }
            int o = H(out)->n++;
            leaf_keys(out)[o] = leaf_keys(p)[i];
            leaf_vals(out)[o] = leaf_vals(p)[i];
            copied++;
        }
        uint32_t next = H(p)->next;
        unpin(src, p, 0);
        if (next == 0) break;
        p = pin(src, next, 0);
    }
    unpin(&dst, out, 1);
    dst.meta.nkeys = copied;
    /* inner levels */
    int height = 1;
    while (nl > 1) {
        int nn = 0;
        for (int i = 0; i < nl;) {
            int take = nl - i < INNER_MAX + 1 ? nl - i : INNER_MAX * 95 / 100 + 1;
            if (nl - i - take > 0 && nl - i - take < 2) take--;      /* avoid a 1-child tail */
            uint32_t np = alloc_page(&dst);
            uint8_t *q = pin(&dst, np, 1);
            H(q)->type = INNER;
            H(q)->n = (uint16_t)(take - 1);
            for (int j = 0; j < take; j++) {
                inner_kids(q)[j] = level[i + j];
                if (j > 0) inner_keys(q)[j - 1] = lkey[i + j];
            }
            unpin(&dst, q, 1);
            level[nn] = np; lkey[nn] = lkey[i]; nn++;
            i += take;
        }
        nl = nn;
        height++;
    }
    dst.meta.root = level[0];
    dst.meta.height = (uint32_t)height;
    *pages_out = dst.meta.npages;
    free(level); free(lkey);
    tree_close(&dst);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    char path[1024], cpath[1024], bpath[1024], rpath[1024];
    snprintf(path, sizeof path, "%s/outages.bpt", g_dir);
    snprintf(cpath, sizeof cpath, "%s/outages.bpt.compact", g_dir);
    snprintf(bpath, sizeof bpath, "%s/outages.bpt.pre-compact", g_dir);

    build_feeders();
    static tree_t t;
    tree_open(&t, path, 1);
    long nt, nu, nd;
    replay_year(&t, &nt, &nu, &nd);
    tree_flush(&t);
    long rd1 = t.reads, wr1 = t.writes;
    uint32_t pages_before = t.meta.npages, height_before = t.meta.height;

    reliability_t rel;
    snprintf(rpath, sizeof rpath, "%s/reliability_by_feeder.txt", g_dir);
    reliability_scan(&t, &rel, rpath);

    uint32_t pages_after;
    compact_tree(&t, cpath, &pages_after);
    tree_close(&t);
    if (rename(path, bpath) != 0) die("rename", bpath);
    if (rename(cpath, path) != 0) die("rename", path);

    /* verify random tickets on the compacted tree against a second scan */
    static tree_t c;
    tree_open(&c, path, 0);
    reliability_t rel2;
    snprintf(rpath, sizeof rpath, "%s/reliability_by_feeder.verify.txt", g_dir);
    reliability_scan(&c, &rel2, rpath);
    long found = 0, probes = 0;
    for (int i = 0; i < 20000; i++) {
        uint32_t f = (uint32_t)(rnd() * NFEEDER);
        uint8_t *p = find_leaf(&c, make_key(f, (uint32_t)(rnd() * NDAY * 1440), 0));
        int n = H(p)->n;
        uint64_t key = n ? leaf_keys(p)[(int)(rnd() * n)] : 0;
        unpin(&c, p, 0);
        if (!n) continue;
        ticket_t v;
        probes++;
        if (tree_get(&c, key, &v) == 0 && (v.ticket & 0xfffff) == (uint32_t)(key & 0xfffff)) found++;
    }
    tree_close(&c);

    FILE *f = fopen(rpath, "a");
    if (!f) die("fopen", rpath);
    fprintf(f, "probes %ld found %ld\n", probes, found);
    if (fclose(f) != 0) die("fclose", rpath);

    printf("outage_ticket_bptree_store: %ld tickets, %ld restorations, %ld cancelled\n", nt, nu, nd);
    printf("  tree %u pages (height %u) -> compact %u pages; replay I/O %ld page reads, %ld page writes\n",
           pages_before, height_before, pages_after, rd1, wr1);
    printf("  SAIFI %.3f SAIDI %.1f min CAIDI %.1f MAIFI %.3f, %d major event days, SAIDI excl. MED %.1f\n",
           rel.saifi, rel.saidi, rel.caidi, rel.maifi, rel.med_days, rel.saidi_excl_med);
    printf("  compacted tree %s, %ld/%ld probes found\n",
           (rel2.sustained == rel.sustained && rel2.momentary == rel.momentary) ? "consistent" : "INCONSISTENT",
           found, probes);
    return (rel2.sustained == rel.sustained && found == probes) ? 0 : 1;
}
