/*
 * buddy_alloc_replay: replays an allocation trace against a binary buddy
 * allocator and a segregated-fit allocator and records fragmentation.
 * A synthetic malloc/free trace is emitted the way an LD_PRELOAD tracer would
 * (one unbuffered write(2) per event), then read back in 1 MiB read(2) chunks
 * and replayed; every SNAP_EVERY events a fragmentation snapshot is stored with
 * pwrite(2) at its slot in a pre-sized snapshot file, which is finally sampled
 * with lseek/read and summarised with dprintf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define N_EVENTS 1150000
#define HEAP_ORDER 27            /* 128 MiB simulated arena */
#define MIN_ORDER 5              /* 32-byte minimum block */
#define N_ORDERS (HEAP_ORDER - MIN_ORDER + 1)
#define MAX_LIVE 65536
#define SNAP_EVERY 500
#define READ_CHUNK (1 << 20)

typedef struct { uint32_t seq; uint32_t handle; uint32_t size; uint32_t op; } TraceEvent; /* op 1=alloc 0=free */

typedef struct {
    uint32_t event;
    uint32_t live_bytes;
    uint32_t free_blocks[N_ORDERS];
    double external_frag;
    double segfit_waste;
    uint32_t ff_extents;
    double ff_scan_per_op;
} Snapshot;

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* ---- trace generation: tracer style, one syscall per event ---- */
static void emit_trace(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    uint32_t live[MAX_LIVE];
    int nlive = 0;
    uint32_t next_handle = 1, i;
    if (fd < 0) { perror(path); exit(1); }
    for (i = 0; i < N_EVENTS; i++) {
        TraceEvent e;
        e.seq = i;
        if (nlive > 0 && (nlive >= MAX_LIVE - 1 || next_rand() % (uint64_t)(nlive + 9000) < (uint64_t)nlive)) {
            int k = (int)(next_rand() % nlive);
            e.op = 0; e.handle = live[k]; e.size = 0;
            live[k] = live[--nlive];
        } else {
            uint64_t r = next_rand() % 1000;
            e.op = 1; e.handle = next_handle++;
            e.size = r < 700 ? 16 + (uint32_t)(next_rand() % 240)
                   : r < 950 ? 256 + (uint32_t)(next_rand() % 3840)
                   : 4096 + (uint32_t)(next_rand() % 200000);
            live[nlive++] = e.handle;
        }
        if (write(fd, &e, sizeof e) != sizeof e) { perror("write trace"); exit(1); }
    }
    close(fd);
}

/* ---- buddy allocator over offsets ---- */
typedef struct { int32_t *next; int32_t head[N_ORDERS]; uint8_t *order_of; uint8_t *is_free; } Buddy;

static void buddy_init(Buddy *b)
{
    size_t nblk = (size_t)1 << (HEAP_ORDER - MIN_ORDER);
    int o;
    b->next = malloc(sizeof(int32_t) * nblk);
    b->order_of = calloc(nblk, 1);
    b->is_free = calloc(nblk, 1);
    for (o = 0; o < N_ORDERS; o++) b->head[o] = -1;
    b->head[N_ORDERS - 1] = 0; b->next[0] = -1;
    b->order_of[0] = N_ORDERS - 1; b->is_free[0] = 1;
}

static void list_remove(Buddy *b, int o, int32_t blk)
{
    int32_t *p = &b->head[o];
    while (*p != -1 && *p != blk) p = &b->next[*p];
    if (*p == blk) *p = b->next[blk];
}

static int32_t buddy_alloc(Buddy *b, uint32_t size)
{
    int o = 0, k;
    int32_t blk;
    while (((uint32_t)1 << (o + MIN_ORDER)) < size) o++;
    for (k = o; k < N_ORDERS && b->head[k] == -1; k++) ;
    if (k == N_ORDERS) return -1;
    blk = b->head[k]; b->head[k] = b->next[blk]; b->is_free[blk] = 0;
    while (k > o) {
        int32_t buddy;
        k--;
        buddy = blk + (1 << k);
        b->order_of[buddy] = (uint8_t)k; b->is_free[buddy] = 1;
        b->next[buddy] = b->head[k]; b->head[k] = buddy;
    }
    b->order_of[blk] = (uint8_t)o;
    return blk;
}

static void buddy_free(Buddy *b, int32_t blk)
{
    int o = b->order_of[blk];
    while (o < N_ORDERS - 1) {
        int32_t buddy = blk ^ (1 << o);
        if (!b->is_free[buddy] || b->order_of[buddy] != o) break;
        list_remove(b, o, buddy);
        b->is_free[buddy] = 0;
        blk = blk < buddy ? blk : buddy;
        o++;
    }
    b->order_of[blk] = (uint8_t)o; b->is_free[blk] = 1;
    b->next[blk] = b->head[o]; b->head[o] = blk;
}

static void buddy_census(const Buddy *b, Snapshot *s)
{
    int o;
    uint64_t free_total = 0, largest = 0;
    for (o = 0; o < N_ORDERS; o++) {
        int32_t p = b->head[o];
        uint32_t n = 0;
        while (p != -1) { n++; p = b->next[p]; }
        s->free_blocks[o] = n;
        if (n) largest = (uint64_t)1 << (o + MIN_ORDER);
        free_total += (uint64_t)n << (o + MIN_ORDER);
    }
    s->external_frag = free_total ? 1.0 - (double)largest / free_total : 0.0;
}

/* segregated fit: size classes with per-class slabs; waste = rounded - requested */
static uint32_t segfit_class(uint32_t size)
{
    uint32_t c = 16;
    while (c < size) c += c < 512 ? 16 : c < 8192 ? 256 : 4096;
    return c;
}

/* address-ordered first-fit over a sorted array of free extents, with coalescing */
typedef struct { uint64_t off, len; } Extent;
typedef struct { Extent *fl; int n, cap; uint64_t scanned; } FirstFit;

static void ff_init(FirstFit *f)
{
    f->cap = 1 << 16; f->fl = malloc(sizeof(Extent) * f->cap);
    f->n = 1; f->fl[0].off = 0; f->fl[0].len = (uint64_t)1 << HEAP_ORDER; f->scanned = 0;
}

static int64_t ff_alloc(FirstFit *f, uint64_t size)
{
    int i;
    size = (size + 15) & ~(uint64_t)15;
    for (i = 0; i < f->n; i++) {
        f->scanned++;
        if (f->fl[i].len >= size) {
            uint64_t off = f->fl[i].off;
            f->fl[i].off += size; f->fl[i].len -= size;
            if (f->fl[i].len == 0) { memmove(&f->fl[i], &f->fl[i + 1], sizeof(Extent) * (f->n - i - 1)); f->n--; }
            return (int64_t)off;
        }
    }
    return -1;
}

static void ff_free(FirstFit *f, uint64_t off, uint64_t size)
{
    int lo = 0, hi = f->n;
    size = (size + 15) & ~(uint64_t)15;
    while (lo < hi) { int mid = (lo + hi) / 2; if (f->fl[mid].off < off) lo = mid + 1; else hi = mid; }
    if (lo > 0 && f->fl[lo - 1].off + f->fl[lo - 1].len == off) {
        f->fl[lo - 1].len += size;
        if (lo < f->n && f->fl[lo - 1].off + f->fl[lo - 1].len == f->fl[lo].off) {
            f->fl[lo - 1].len += f->fl[lo].len;
            memmove(&f->fl[lo], &f->fl[lo + 1], sizeof(Extent) * (f->n - lo - 1)); f->n--;
        }
        return;
    }
    if (lo < f->n && off + size == f->fl[lo].off) { f->fl[lo].off = off; f->fl[lo].len += size; return; }
    if (f->n == f->cap) { f->cap *= 2; f->fl = realloc(f->fl, sizeof(Extent) * f->cap); }
    memmove(&f->fl[lo + 1], &f->fl[lo], sizeof(Extent) * (f->n - lo));
    f->fl[lo].off = off; f->fl[lo].len = size; f->n++;
}

static void replay(const char *trace, const char *snaps, Snapshot **out, int *nsnap)
{
    int fd = open(trace, O_RDONLY), sfd;
    unsigned char *buf = malloc(READ_CHUNK);
    ssize_t n;
    Buddy b;
    int32_t *where = malloc(sizeof(int32_t) * (N_EVENTS + 2));
    uint32_t *req = calloc(N_EVENTS + 2, sizeof(uint32_t));
    uint64_t live_bytes = 0, seg_rounded = 0;
    int64_t *ff_where = malloc(sizeof(int64_t) * (N_EVENTS + 2));
    FirstFit ff;
    int ns = 0, total_snaps = N_EVENTS / SNAP_EVERY;
    Snapshot *all = calloc(total_snaps + 1, sizeof(Snapshot));

    buddy_init(&b);
    ff_init(&ff);
    sfd = open(snaps, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || sfd < 0) { perror("replay open"); exit(1); }
    if (ftruncate(sfd, (off_t)total_snaps * sizeof(Snapshot)) != 0) perror("ftruncate");
    while ((n = read(fd, buf, READ_CHUNK)) > 0) {
        ssize_t i;
        for (i = 0; i + (ssize_t)sizeof(TraceEvent) <= n; i += sizeof(TraceEvent)) {
            TraceEvent e;
            memcpy(&e, buf + i, sizeof e);
            if (e.op == 1) {
                where[e.handle] = buddy_alloc(&b, e.size);
                req[e.handle] = e.size;
                ff_where[e.handle] = ff_alloc(&ff, e.size);
                live_bytes += e.size;
                seg_rounded += segfit_class(e.size);
            } else {
                if (where[e.handle] >= 0) buddy_free(&b, where[e.handle]);
                if (ff_where[e.handle] >= 0) ff_free(&ff, (uint64_t)ff_where[e.handle], req[e.handle]);
                live_bytes -= req[e.handle];
                seg_rounded -= segfit_class(req[e.handle]);
            }
            if ((e.seq + 1) % SNAP_EVERY == 0 && ns < total_snaps) {
                Snapshot *s = &all[ns];
                s->event = e.seq + 1;
                s->live_bytes = (uint32_t)live_bytes;
                buddy_census(&b, s);
                s->segfit_waste = seg_rounded ? 1.0 - (double)live_bytes / seg_rounded : 0.0;
                s->ff_extents = (uint32_t)ff.n;
                s->ff_scan_per_op = (double)ff.scanned / (e.seq + 1);
                /* snapshot slot order is interleaved (even slots first) to exercise seeks */
                {
                    int slot = (ns % 2 == 0) ? ns / 2 : total_snaps / 2 + ns / 2;
                    if (pwrite(sfd, s, sizeof *s, (off_t)slot * sizeof *s) != sizeof *s) perror("pwrite");
                }
                ns++;
            }
        }
    }
    fsync(sfd);
    close(sfd); close(fd);
    free(buf); free(where); free(req); free(b.next); free(b.order_of); free(b.is_free);
    free(ff.fl); free(ff_where);
    *out = all; *nsnap = ns;
}

static void sample_snapshots(const char *snaps, const char *report, int nsnap)
{
    int fd = open(snaps, O_RDONLY), rfd, i, k;
    double sum_frag = 0, max_frag = 0, sum_waste = 0;
    uint32_t hist[N_ORDERS] = {0};
    int used = 0;
    rfd = open(report, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (i = 0; i < nsnap; i += 3) {
        Snapshot s;
        int slot = (i % 2 == 0) ? i / 2 : nsnap / 2 + i / 2;
        if (lseek(fd, (off_t)slot * sizeof s, SEEK_SET) < 0) break;
        if (read(fd, &s, sizeof s) != sizeof s) break;
        sum_frag += s.external_frag; sum_waste += s.segfit_waste;
        if (s.external_frag > max_frag) max_frag = s.external_frag;
        for (k = 0; k < N_ORDERS; k++) hist[k] += s.free_blocks[k];
        used++;
        if (i % 60 == 0)
            dprintf(rfd, "event %8u live %10u ext_frag %.4f segfit_waste %.4f ff_extents %u ff_scan %.1f\n",
                    s.event, s.live_bytes, s.external_frag, s.segfit_waste, s.ff_extents, s.ff_scan_per_op);
    }
    dprintf(rfd, "samples %d mean_ext_frag %.4f max_ext_frag %.4f mean_segfit_waste %.4f\n", used,
            used ? sum_frag / used : 0, max_frag, used ? sum_waste / used : 0);
    for (k = 0; k < N_ORDERS; k++) dprintf(rfd, "order %2d (%9u B): %u\n", k + MIN_ORDER, 1u << (k + MIN_ORDER), hist[k]);
    close(rfd); close(fd);
}

int main(int argc, char **argv)
{
    char trace[512], snaps[512], report[512];
    Snapshot *all;
    int nsnap;
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 2; }
    snprintf(trace, sizeof trace, "%s/alloc.trace", argv[1]);
    snprintf(snaps, sizeof snaps, "%s/frag_snapshots.bin", argv[1]);
    snprintf(report, sizeof report, "%s/frag_report.txt", argv[1]);
    emit_trace(trace);
    replay(trace, snaps, &all, &nsnap);
    sample_snapshots(snaps, report, nsnap);
    free(all);
    return 0;
}
