/*
 * rts_replay_keyframe_store.c
 *
 * Replay container for a real-time-strategy game match.  A deterministic
 * two-army skirmish (units steer towards enemies found through a uniform
 * bucket grid, fight, die and respawn) is simulated and recorded into a
 * random-access replay file:
 *
 *   [header 64 B][block]...[block][keyframe index]
 *   block  = 24-byte block header (type, tick, payload length, flags, CRC)
 *            + payload; a KEYFRAME block holds every unit's full state,
 *            a DELTA block only the fields that changed in that tick.
 *
 * Blocks are appended with pwrite at a tracked end offset; at the end the
 * keyframe index is written and the header patched in place.  The replay is
 * then used the way a replay viewer would:
 *   - random seeks: pread the index, binary-search the keyframe, pread it and
 *     the following deltas, rebuild the state and compare its checksum with
 *     the one recorded live,
 *   - a header-only scan hopping from block to block (lseek + read) to find
 *     ticks with kills,
 *   - in-place bookmarking of those blocks (pwrite of one header field),
 *   - export of a highlights replay (block ranges around kill bursts copied
 *     with pread/pwrite into a second file with its own index).
 *
 * Usage: rts_replay_keyframe_store OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NUNIT      500
#define NTICK      3600
#define KEY_EVERY  50
#define NKEY       (NTICK / KEY_EVERY)
#define MAP        (256 * 256)        /* map size in fixed point: 256 tiles */
#define FIX        256
#define CELL       (8 * FIX)
#define GRIDN      (MAP / CELL)
#define NSEEK      450
#define RESPAWN    120

enum { BLK_KEY = 1, BLK_DELTA = 2 };
enum { FL_KILL = 1, FL_BOOKMARK = 2 };

typedef struct {
    int32_t x, y;         /* fixed point 1/256 tile */
    int16_t hp;
    uint8_t owner, type;
    uint16_t target;      /* 0xFFFF none */
    uint16_t heading;     /* 0..65535 */
    int16_t dead_timer;   /* >0 while dead */
} unit;

typedef struct {
    char magic[8];
    uint32_t version, nunit, ntick, key_every;
    uint64_t index_offset, end_offset;
    uint32_t nkeys, kills;
    uint8_t pad[16];
} file_header;

typedef struct {
    uint16_t type, flags;
    uint32_t tick;
    uint32_t length;
    uint32_t nrec;
    uint32_t crc;
    uint32_t kills;       /* units killed in this tick (delta blocks) */
} block_header;

typedef struct {
    uint32_t tick;
    uint32_t pad;
    uint64_t offset;
} index_entry;

_Static_assert(sizeof(file_header) == 64, "header");
_Static_assert(sizeof(block_header) == 24, "block header");

static const char *g_dir;
static unit U[NUNIT];
static uint64_t live_sum[NTICK + 1];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "rts_replay_keyframe_store: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint32_t crc_tab[256];
static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
        crc_tab[i] = c;
    }
}
static uint32_t crc32c(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_tab[(c ^ b[i]) & 0xFF] ^ (c >> 8);
    return ~c;
}

static void pwrite_full(int fd, const void *buf, size_t n, off_t off, const char *path)
{
    const char *p = buf;
    while (n) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("pwrite", path);
        }
        p += w; n -= (size_t)w; off += w;
    }
}

static void pread_full(int fd, void *buf, size_t n, off_t off, const char *path)
{
    char *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            die("pread", path);
        }
        if (r == 0) { fprintf(stderr, "%s: unexpected EOF at %lld\n", path, (long long)off); exit(1); }
        p += r; n -= (size_t)r; off += r;
    }
}

static uint64_t state_checksum(const unit *u)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < NUNIT; i++) {
        const uint32_t v[5] = {(uint32_t)u[i].x, (uint32_t)u[i].y, (uint32_t)(uint16_t)u[i].hp,
                               u[i].target, u[i].heading};
        for (int k = 0; k < 5; k++) { h ^= v[k]; h *= 1099511628211ull; }
    }
    return h;
}

/* ------------------------------------------------------------------ */
static uint64_t rs = 0xC0FFEE1234ull;
static uint32_t rnd32(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rs >> 33);
}

static void sim_init(void)
{
    for (int i = 0; i < NUNIT; i++) {
        unit *u = &U[i];
        u->owner = (uint8_t)(i % 2);
        u->type = (uint8_t)(rnd32() % 3);           /* 0 infantry, 1 ranged, 2 tank */
        u->x = (int32_t)((u->owner ? 200 : 40) * FIX + (int32_t)(rnd32() % (24 * FIX)));
        u->y = (int32_t)(40 * FIX + (int32_t)(rnd32() % (176 * FIX)));
        u->hp = (int16_t)(u->type == 2 ? 400 : u->type == 1 ? 120 : 160);
        u->target = 0xFFFF;
        u->heading = 0;
        u->dead_timer = 0;
    }
}

static int head_grid[GRIDN * GRIDN], next_in_cell[NUNIT];

/* one simulation tick: bucket grid, target acquisition, steering, combat */
static int sim_tick(int tick)
{
    for (int c = 0; c < GRIDN * GRIDN; c++) head_grid[c] = -1;
    for (int i = 0; i < NUNIT; i++) {
        if (U[i].dead_timer) continue;
        int cx = U[i].x / CELL, cy = U[i].y / CELL;
        int c = cy * GRIDN + cx;
        next_in_cell[i] = head_grid[c];
        head_grid[c] = i;
    }
    int kills = 0;
    static const int speed[3] = {40, 28, 22};
    static const int range[3] = {2 * FIX, 6 * FIX, 4 * FIX};
    static const int damage[3] = {6, 4, 11};
    for (int i = 0; i < NUNIT; i++) {
        unit *u = &U[i];
        if (u->dead_timer) {
            if (--u->dead_timer == 0) {          /* respawn at base */
                u->x = (int32_t)((u->owner ? 220 : 30) * FIX + (int32_t)(rnd32() % (8 * FIX)));
                u->y = (int32_t)(100 * FIX + (int32_t)(rnd32() % (56 * FIX)));
                u->hp = (int16_t)(u->type == 2 ? 400 : u->type == 1 ? 120 : 160);
                u->target = 0xFFFF;
            }
            continue;
        }
        /* re-acquire target every 8 ticks or when lost */
        if (u->target == 0xFFFF || U[u->target].dead_timer || (tick + i) % 8 == 0) {
            int cx = u->x / CELL, cy = u->y / CELL;
            int64_t best = INT64_MAX;
            int bi = -1;
            for (int r = 1; r <= 6 && bi < 0; r += 2) {
                for (int gy = cy - r; gy <= cy + r; gy++) {
                    if (gy < 0 || gy >= GRIDN) continue;
                    for (int gx = cx - r; gx <= cx + r; gx++) {
                        if (gx < 0 || gx >= GRIDN) continue;
                        for (int j = head_grid[gy * GRIDN + gx]; j >= 0; j = next_in_cell[j]) {
                            if (U[j].owner == u->owner) continue;
                            int64_t dx = U[j].x - u->x, dy = U[j].y - u->y;
                            int64_t d2 = dx * dx + dy * dy;
                            if (d2 < best) { best = d2; bi = j; }
                        }
                    }
                }
            }
            u->target = bi >= 0 ? (uint16_t)bi : 0xFFFF;
        }
        double tx, ty;
        if (u->target != 0xFFFF) { tx = U[u->target].x; ty = U[u->target].y; }
        else { tx = u->owner ? 30.0 * FIX : 226.0 * FIX; ty = 128.0 * FIX; }   /* march on enemy base */
        double dx = tx - u->x, dy = ty - u->y, d = sqrt(dx * dx + dy * dy);
        if (d > 1e-9) u->heading = (uint16_t)((atan2(dy, dx) + 3.141592653589793) / 6.283185307179586 * 65535.0);
        if (u->target != 0xFFFF && d <= range[u->type]) {
            unit *t = &U[u->target];
            if (!t->dead_timer) {
                t->hp = (int16_t)(t->hp - damage[u->type] - (int)(rnd32() % 3));
                if (t->hp <= 0) {
                    t->hp = 0;
                    t->dead_timer = RESPAWN;
                    kills++;
                }
            }
        } else if (d > 1e-9) {
            int step = speed[u->type];
            u->x += (int32_t)lround(dx / d * step);
            u->y += (int32_t)lround(dy / d * step);
            if (u->x < 0) u->x = 0;
            if (u->y < 0) u->y = 0;
            if (u->x >= MAP) u->x = MAP - 1;
            if (u->y >= MAP) u->y = MAP - 1;
        }
    }
    return kills;
}

/* ------------------------------------------------------------------ */
/* payload codecs */
static size_t encode_keyframe(const unit *u, uint8_t *out)
{
    size_t p = 0;
    for (int i = 0; i < NUNIT; i++) {
        memcpy(out + p, &u[i].x, 4); p += 4;
        memcpy(out + p, &u[i].y, 4); p += 4;
        memcpy(out + p, &u[i].hp, 2); p += 2;
        out[p++] = u[i].owner;
        out[p++] = u[i].type;
        memcpy(out + p, &u[i].target, 2); p += 2;
        memcpy(out + p, &u[i].heading, 2); p += 2;
        memcpy(out + p, &u[i].dead_timer, 2); p += 2;
    }
    return p;
}

static void decode_keyframe(const uint8_t *in, unit *u)
{
    size_t p = 0;
    for (int i = 0; i < NUNIT; i++) {
        memcpy(&u[i].x, in + p, 4); p += 4;
        memcpy(&u[i].y, in + p, 4); p += 4;
        memcpy(&u[i].hp, in + p, 2); p += 2;
        u[i].owner = in[p++];
        u[i].type = in[p++];
        memcpy(&u[i].target, in + p, 2); p += 2;
        memcpy(&u[i].heading, in + p, 2); p += 2;
        memcpy(&u[i].dead_timer, in + p, 2); p += 2;
    }
}

/* delta record: id u16, mask u8, then x i32 / y i32 / hp i16 / target u16 /
 * heading u16 / dead_timer i16 as flagged */
static size_t encode_delta(const unit *prev, const unit *cur, uint8_t *out, uint32_t *nrec)
{
    size_t p = 0;
    *nrec = 0;
    for (int i = 0; i < NUNIT; i++) {
        uint8_t m = 0;
        if (cur[i].x != prev[i].x) m |= 1;
        if (cur[i].y != prev[i].y) m |= 2;
        if (cur[i].hp != prev[i].hp) m |= 4;
        if (cur[i].target != prev[i].target) m |= 8;
        if (cur[i].heading != prev[i].heading) m |= 16;
        if (cur[i].dead_timer != prev[i].dead_timer) m |= 32;
        if (!m) continue;
        uint16_t id = (uint16_t)i;
        memcpy(out + p, &id, 2); p += 2;
        out[p++] = m;
        if (m & 1) { memcpy(out + p, &cur[i].x, 4); p += 4; }
        if (m & 2) { memcpy(out + p, &cur[i].y, 4); p += 4; }
        if (m & 4) { memcpy(out + p, &cur[i].hp, 2); p += 2; }
        if (m & 8) { memcpy(out + p, &cur[i].target, 2); p += 2; }
        if (m & 16) { memcpy(out + p, &cur[i].heading, 2); p += 2; }
        if (m & 32) { memcpy(out + p, &cur[i].dead_timer, 2); p += 2; }
        (*nrec)++;
    }
    return p;
}

static void apply_delta(const uint8_t *in, uint32_t nrec, unit *u)
{
    size_t p = 0;
    for (uint32_t r = 0; r < nrec; r++) {
        uint16_t id;
        memcpy(&id, in + p, 2); p += 2;
        uint8_t m = in[p++];
        unit *x = &u[id];
        if (m & 1) { memcpy(&x->x, in + p, 4); p += 4; }
        if (m & 2) { memcpy(&x->y, in + p, 4); p += 4; }
        if (m & 4) { memcpy(&x->hp, in + p, 2); p += 2; }
        if (m & 8) { memcpy(&x->target, in + p, 2); p += 2; }
        if (m & 16) { memcpy(&x->heading, in + p, 2); p += 2; }
        if (m & 32) { memcpy(&x->dead_timer, in + p, 2); p += 2; }
    }
}

static off_t append_block(int fd, off_t *end, uint16_t type, uint32_t kills, uint32_t tick, const uint8_t *payload,
                          uint32_t len, uint32_t nrec, const char *path)
{
    block_header bh = {type, kills ? FL_KILL : 0, tick, len, nrec, crc32c(payload, len), kills};
    off_t at = *end;
    pwrite_full(fd, &bh, sizeof bh, at, path);
    pwrite_full(fd, payload, len, at + (off_t)sizeof bh, path);
    *end = at + (off_t)sizeof bh + len;
    return at;
}

/* record the whole match */
static uint32_t record_match(const char *path, index_entry *index)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    file_header fh;
    memset(&fh, 0, sizeof fh);
    pwrite_full(fd, &fh, sizeof fh, 0, path);   /* placeholder */
    off_t end = sizeof fh;
    static unit prev[NUNIT];
    uint8_t *buf = malloc((size_t)NUNIT * 24);
    if (!buf) { fprintf(stderr, "out of memory\n"); exit(1); }
    sim_init();
    uint32_t kills = 0;
    int nk = 0;
    live_sum[0] = state_checksum(U);
    for (int t = 0; t <= NTICK; t++) {
        if (t > 0) {
            memcpy(prev, U, sizeof U);
            int k = sim_tick(t);
            kills += (uint32_t)k;
            live_sum[t] = state_checksum(U);
            uint32_t nrec;
            size_t len = encode_delta(prev, U, buf, &nrec);
            append_block(fd, &end, BLK_DELTA, (uint32_t)k, (uint32_t)t, buf, (uint32_t)len, nrec, path);
        }
        if (t % KEY_EVERY == 0 && t < NTICK) {
            size_t len = encode_keyframe(U, buf);
            off_t at = append_block(fd, &end, BLK_KEY, 0, (uint32_t)t, buf, (uint32_t)len, NUNIT, path);
            index[nk].tick = (uint32_t)t;
            index[nk].pad = 0;
            index[nk].offset = (uint64_t)at;
            nk++;
        }
    }
    /* index, then patch the header */
    pwrite_full(fd, index, sizeof(index_entry) * (size_t)nk, end, path);
    memcpy(fh.magic, "RTSRPLY1", 8);
    fh.version = 1;
    fh.nunit = NUNIT;
    fh.ntick = NTICK;
    fh.key_every = KEY_EVERY;
    fh.index_offset = (uint64_t)end;
    fh.end_offset = (uint64_t)end + sizeof(index_entry) * (uint64_t)nk;
    fh.nkeys = (uint32_t)nk;
    fh.kills = kills;
    pwrite_full(fd, &fh, sizeof fh, 0, path);
    if (fsync(fd) != 0) die("fsync", path);
    if (close(fd) != 0) die("close", path);
    free(buf);
    return kills;
}

/* ------------------------------------------------------------------ */
typedef struct {
    int fd;
    file_header fh;
    index_entry *idx;
    uint8_t *buf;
} replay;

static void replay_open(replay *r, const char *path, int writable)
{
    r->fd = open(path, writable ? O_RDWR : O_RDONLY);
    if (r->fd < 0) die("open", path);
    pread_full(r->fd, &r->fh, sizeof r->fh, 0, path);
    if (memcmp(r->fh.magic, "RTSRPLY1", 8) != 0 || r->fh.nunit != NUNIT) {
        fprintf(stderr, "%s: not a replay\n", path);
        exit(1);
    }
    r->idx = malloc(sizeof(index_entry) * r->fh.nkeys);
    r->buf = malloc((size_t)NUNIT * 24);
    if (!r->idx || !r->buf) { fprintf(stderr, "out of memory\n"); exit(1); }
    pread_full(r->fd, r->idx, sizeof(index_entry) * r->fh.nkeys, (off_t)r->fh.index_offset, path);
}

static void replay_close(replay *r, const char *path)
{
    if (close(r->fd) != 0) die("close", path);
    free(r->idx);
    free(r->buf);
}

static void read_block(replay *r, off_t at, block_header *bh, const char *path)
{
    pread_full(r->fd, bh, sizeof *bh, at, path);
    if (bh->length > (uint32_t)NUNIT * 24) { fprintf(stderr, "%s: bad block at %lld\n", path, (long long)at); exit(1); }
    pread_full(r->fd, r->buf, bh->length, at + (off_t)sizeof *bh, path);
    if (crc32c(r->buf, bh->length) != bh->crc) {
        fprintf(stderr, "%s: CRC mismatch in block at %lld\n", path, (long long)at);
        exit(1);
    }
}

/* rebuild the state at tick t; returns number of blocks read */
static int seek_to_tick(replay *r, uint32_t t, unit *state, const char *path)
{
    int lo = 0, hi = (int)r->fh.nkeys - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (r->idx[mid].tick <= t) lo = mid;
        else hi = mid - 1;
    }
    off_t at = (off_t)r->idx[lo].offset;
    block_header bh;
    read_block(r, at, &bh, path);
    if (bh.type != BLK_KEY) { fprintf(stderr, "%s: index points at non-keyframe\n", path); exit(1); }
    decode_keyframe(r->buf, state);
    int nblk = 1;
    at += (off_t)sizeof bh + bh.length;
    uint32_t cur = bh.tick;
    while (cur < t) {
        read_block(r, at, &bh, path);
        at += (off_t)sizeof bh + bh.length;
        if (bh.type != BLK_DELTA) continue;    /* keyframes after the target are skipped */
        apply_delta(r->buf, bh.nrec, state);
        cur = bh.tick;
        nblk++;
    }
    return nblk;
}

static int random_seeks(const char *path, long *blocks_read)
{
    replay r;
    replay_open(&r, path, 0);
    static unit st[NUNIT];
    int bad = 0;
    *blocks_read = 0;
    uint64_t q = 0x5EEC5EEDull;
    for (int k = 0; k < NSEEK; k++) {
        q = q * 2862933555777941757ull + 3037000493ull;
        uint32_t t = (uint32_t)((q >> 33) % NTICK) + 1;
        *blocks_read += seek_to_tick(&r, t, st, path);
        if (state_checksum(st) != live_sum[t]) bad++;
    }
    replay_close(&r, path);
    return bad;
}

/* header-only scan: hop from block to block with lseek + read */
static int scan_kill_blocks(const char *path, off_t *kill_off, uint32_t *kill_tick, int max)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    file_header fh;
    if (read(fd, &fh, sizeof fh) != (ssize_t)sizeof fh) die("read header", path);
    off_t at = sizeof fh;
    int n = 0;
    while ((uint64_t)at < fh.index_offset) {
        block_header bh;
        if (lseek(fd, at, SEEK_SET) != at) die("lseek", path);
        if (read(fd, &bh, sizeof bh) != (ssize_t)sizeof bh) die("read block header", path);
        if ((bh.flags & FL_KILL) && n < max) {
            kill_off[n] = at;
            kill_tick[n] = bh.tick;
            n++;
        }
        at += (off_t)sizeof bh + bh.length;
    }
    if (close(fd) != 0) die("close", path);
    return n;
}

/* set the BOOKMARK flag in place on blocks with >= 3 kills */
static int bookmark_blocks(const char *path, const off_t *off, int n)
{
    int fd = open(path, O_RDWR);
    if (fd < 0) die("open", path);
    int marked = 0;
    for (int i = 0; i < n; i++) {
        block_header bh;
        pread_full(fd, &bh, sizeof bh, off[i], path);
        if (bh.kills < 3) continue;
        bh.flags |= FL_BOOKMARK;
        pwrite_full(fd, &bh.flags, sizeof bh.flags, off[i] + (off_t)offsetof(block_header, flags), path);
        marked++;
    }
    if (fsync(fd) != 0) die("fsync", path);
    if (close(fd) != 0) die("close", path);
    return marked;
}

/* highlights: for every keyframe interval containing a bookmarked block,
 * copy the interval's blocks (keyframe + deltas) into a new replay */
static long export_highlights(const char *src, const char *dst, int *nclips)
{
    replay r;
    replay_open(&r, src, 0);
    int out = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (out < 0) die("open", dst);
    file_header fh = r.fh;
    off_t end = sizeof fh;
    index_entry *idx = malloc(sizeof(index_entry) * r.fh.nkeys);
    if (!idx) { fprintf(stderr, "out of memory\n"); exit(1); }
    int nk = 0;
    uint8_t *copy = malloc(sizeof(block_header) + (size_t)NUNIT * 24);
    if (!copy) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (uint32_t k = 0; k < r.fh.nkeys; k++) {
        off_t a = (off_t)r.idx[k].offset;
        off_t b = k + 1 < r.fh.nkeys ? (off_t)r.idx[k + 1].offset : (off_t)r.fh.index_offset;
        /* any bookmark in [a, b)? */
        int hit = 0;
        for (off_t at = a; at < b;) {
            block_header bh;
            pread_full(r.fd, &bh, sizeof bh, at, src);
            if (bh.flags & FL_BOOKMARK) { hit = 1; break; }
            at += (off_t)sizeof bh + bh.length;
        }
        if (!hit) continue;
        idx[nk].tick = r.idx[k].tick;
        idx[nk].pad = 0;
        idx[nk].offset = (uint64_t)end;
        nk++;
        for (off_t at = a; at < b;) {
            block_header bh;
            pread_full(r.fd, &bh, sizeof bh, at, src);
            size_t len = sizeof bh + bh.length;
            pread_full(r.fd, copy, len, at, src);
            pwrite_full(out, copy, len, end, dst);
            end += (off_t)len;
            at += (off_t)len;
        }
    }
    pwrite_full(out, idx, sizeof(index_entry) * (size_t)nk, end, dst);
    fh.index_offset = (uint64_t)end;
    fh.end_offset = (uint64_t)end + sizeof(index_entry) * (uint64_t)nk;
    fh.nkeys = (uint32_t)nk;
    pwrite_full(out, &fh, sizeof fh, 0, dst);
    if (close(out) != 0) die("close", dst);
    replay_close(&r, src);
    free(idx);
    free(copy);
    *nclips = nk;
    return (long)fh.end_offset;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    crc_init();
    char path[1024], hpath[1024];
    snprintf(path, sizeof path, "%s/match.rply", g_dir);
    snprintf(hpath, sizeof hpath, "%s/highlights.rply", g_dir);

    static index_entry index[NKEY + 1];
    uint32_t kills = record_match(path, index);

    long blocks = 0;
    int bad = random_seeks(path, &blocks);

    static off_t koff[NTICK];
    static uint32_t ktick[NTICK];
    int nkill = scan_kill_blocks(path, koff, ktick, NTICK);
    int marked = bookmark_blocks(path, koff, nkill);
    int clips = 0;
    long hbytes = export_highlights(path, hpath, &clips);

    /* verify that the highlights replay seeks correctly too */
    replay h;
    replay_open(&h, hpath, 0);
    static unit st[NUNIT];
    int hbad = 0;
    for (uint32_t k = 0; k < h.fh.nkeys; k++) {
        uint32_t t = h.idx[k].tick + KEY_EVERY / 2;
        if (t > NTICK) continue;
        seek_to_tick(&h, t, st, hpath);
        if (state_checksum(st) != live_sum[t]) hbad++;
    }
    replay_close(&h, hpath);

    snprintf(path, sizeof path, "%s/replay_report.txt", g_dir);
    FILE *fp = fopen(path, "w");
    if (!fp) die("fopen", path);
    int werr = fprintf(fp, "ticks %d units %d keyframe interval %d\nkills %u in %d ticks, bookmarked %d\n",
                       NTICK, NUNIT, KEY_EVERY, kills, nkill, marked) < 0;
    werr |= fprintf(fp, "random seeks %d, blocks read %ld, checksum failures %d\n", NSEEK, blocks, bad) < 0;
    werr |= fprintf(fp, "highlights: %d clips, %ld bytes, seek failures %d\n", clips, hbytes, hbad) < 0;
    if (werr || fclose(fp) != 0) die("write", path);

    printf("rts_replay_keyframe_store: %d ticks, %u kills, %d seeks (%ld blocks, %d bad), %d highlight clips (%d bad)\n",
           NTICK, kills, NSEEK, blocks, bad, clips, hbad);
    return (bad || hbad) ? 1 : 0;
}
