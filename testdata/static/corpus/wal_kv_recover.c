/*
 * wal_kv_recover: a small append-only key/value store.  Every put/delete is
 * framed (header + key + value, CRC-32) and appended to a journal with one
 * write() call; the journal is fdatasync'ed every sync_every records and a
 * key -> offset index is rewritten (buffered write(), fsync, rename) every
 * index_every records.  After the workload the store is closed and a
 * recovery scan reads the journal back with read(), checks every frame and
 * rebuilds the table, which is compared with the expected state; entries of
 * the last index are spot-checked with pread().
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REC_MAGIC   0x57414c31u   /* "WAL1" */
#define OP_PUT      1
#define OP_DEL      2
#define MAX_KEY     32
#define MAX_VAL     256
#define SCAN_BUF    (1 << 16)
#define INDEX_BUF   (1 << 15)

struct store_opts {
    int nkeys;
    long nops;
    int sync_every;
    long index_every;
    int del_percent;
    uint64_t seed;
};

struct rec_header {
    uint32_t magic;
    uint32_t crc;
    uint64_t seq;
    uint16_t klen;
    uint16_t vlen;
    uint8_t op;
    uint8_t pad[3];
};

struct slot {
    char key[MAX_KEY];
    int used;
    int live;
    uint64_t offset;    /* of the newest record for this key */
    uint32_t vcrc;      /* crc of the current value */
    uint16_t vlen;
};

struct table {
    struct slot *slots;
    size_t cap;
    size_t live;
};

struct store {
    const struct store_opts *opt;
    int fd;
    uint64_t end;
    uint64_t seq;
    long since_sync;
    long nsyncs;
    struct table tab;
    char dir[512];
};

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint64_t key_hash(const char *k)
{
    uint64_t h = 1469598103934665603ull;
    while (*k) { h ^= (unsigned char)*k++; h *= 1099511628211ull; }
    return h;
}

static void table_init(struct table *t, size_t cap)
{
    t->slots = calloc(cap, sizeof *t->slots);
    t->cap = cap;
    t->live = 0;
}

static struct slot *table_find(struct table *t, const char *key, int create)
{
    size_t i = key_hash(key) & (t->cap - 1);
    for (;;) {
        struct slot *s = &t->slots[i];
        if (!s->used) {
            if (!create) return NULL;
            s->used = 1;
            snprintf(s->key, MAX_KEY, "%s", key);
            return s;
        }
        if (strcmp(s->key, key) == 0) return s;
        i = (i + 1) & (t->cap - 1);
    }
}

static void table_apply(struct table *t, int op, const char *key, uint64_t off, uint32_t vcrc, uint16_t vlen)
{
    struct slot *s = table_find(t, key, 1);
    if (op == OP_PUT) {
        if (!s->live) t->live++;
        s->live = 1;
        s->vcrc = vcrc;
        s->vlen = vlen;
    } else {
        if (s->live) t->live--;
        s->live = 0;
    }
    s->offset = off;
}

static void write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) { if (errno == EINTR) continue; perror("write"); exit(1); }
        p += w;
        len -= (size_t)w;
    }
}

static void journal_append(struct store *st, int op, const char *key, const char *val, uint16_t vlen)
{
    unsigned char frame[sizeof(struct rec_header) + MAX_KEY + MAX_VAL];
    struct rec_header h;
    memset(&h, 0, sizeof h);
    h.magic = REC_MAGIC;
    h.seq = ++st->seq;
    h.klen = (uint16_t)strlen(key);
    h.vlen = op == OP_PUT ? vlen : 0;
    h.op = (uint8_t)op;
    memcpy(frame + sizeof h, key, h.klen);
    if (h.vlen) memcpy(frame + sizeof h + h.klen, val, h.vlen);
    size_t total = sizeof h + h.klen + h.vlen;
    h.crc = crc32_update(0, frame + sizeof h, h.klen + h.vlen);
    h.crc = crc32_update(h.crc, &h.seq, sizeof h.seq);
    memcpy(frame, &h, sizeof h);
    write_full(st->fd, frame, total);
    table_apply(&st->tab, op, key, st->end, crc32_update(0, val, h.vlen), h.vlen);
    st->end += total;
    if (++st->since_sync >= st->opt->sync_every) {
        if (fdatasync(st->fd) != 0) { perror("fdatasync"); exit(1); }
        st->since_sync = 0;
        st->nsyncs++;
    }
}

/* index file: count, then (klen, key, offset) per live key; buffered writes */
static void index_rewrite(struct store *st)
{
    char tmp[1024], final[1024];
    snprintf(tmp, sizeof tmp, "%s/index.tmp", st->dir);
    snprintf(final, sizeof final, "%s/index.dat", st->dir);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(tmp); exit(1); }
    static unsigned char buf[INDEX_BUF];
    size_t used = 0;
    uint64_t n = st->tab.live, journal_end = st->end;
    memcpy(buf, &n, 8);
    memcpy(buf + 8, &journal_end, 8);
    used = 16;
    for (size_t i = 0; i < st->tab.cap; i++) {
        const struct slot *s = &st->tab.slots[i];
        if (!s->used || !s->live) continue;
        uint8_t kl = (uint8_t)strlen(s->key);
        if (used + 1 + kl + 8 > sizeof buf) {
            write_full(fd, buf, used);
            used = 0;
        }
        buf[used++] = kl;
        memcpy(buf + used, s->key, kl);
        used += kl;
        memcpy(buf + used, &s->offset, 8);
        used += 8;
    }
    if (used) write_full(fd, buf, used);
    if (fsync(fd) != 0) { perror("fsync index"); exit(1); }
    close(fd);
    if (rename(tmp, final) != 0) { perror("rename index"); exit(1); }
}

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void make_value(uint64_t *rng, char *val, uint16_t *vlen)
{
    static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    int n = 16 + (int)(rng_next(rng) % (MAX_VAL - 16));
    for (int i = 0; i < n; i++) val[i] = alpha[rng_next(rng) & 63];
    *vlen = (uint16_t)n;
}

static void run_workload(struct store *st, struct table *expect)
{
    const struct store_opts *o = st->opt;
    uint64_t rng = o->seed;
    char key[MAX_KEY], val[MAX_VAL];
    for (long i = 0; i < o->nops; i++) {
        /* skewed key choice: half of the traffic on 1/16 of the keys */
        uint64_t r = rng_next(&rng);
        int k = (r & 1) ? (int)((r >> 8) % (uint64_t)(o->nkeys / 16)) : (int)((r >> 8) % (uint64_t)o->nkeys);
        snprintf(key, sizeof key, "user:%06d", k);
        uint16_t vlen = 0;
        int op = (int)((r >> 40) % 100) < o->del_percent ? OP_DEL : OP_PUT;
        if (op == OP_PUT) make_value(&rng, val, &vlen);
        journal_append(st, op, key, val, vlen);
        table_apply(expect, op, key, 0, crc32_update(0, val, op == OP_PUT ? vlen : 0), vlen);
        if ((i + 1) % o->index_every == 0) index_rewrite(st);
    }
}

/* sequential recovery: parse every frame, rebuild a fresh table */
static long recovery_scan(const char *dir, struct table *out, uint64_t *last_seq)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/journal.wal", dir);
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    unsigned char *buf = malloc(SCAN_BUF + sizeof(struct rec_header) + MAX_KEY + MAX_VAL);
    size_t have = 0, pos = 0;
    uint64_t file_off = 0;
    long nrec = 0;
    int eof = 0;
    *last_seq = 0;
    for (;;) {
        if (!eof && have - pos < sizeof(struct rec_header) + MAX_KEY + MAX_VAL) {
            memmove(buf, buf + pos, have - pos);
            have -= pos;
            pos = 0;
            ssize_t n = read(fd, buf + have, SCAN_BUF);
            if (n < 0) { perror("read journal"); exit(1); }
            if (n == 0) eof = 1;
            have += (size_t)n;
        }
        if (have - pos < sizeof(struct rec_header)) break;
        struct rec_header h;
        memcpy(&h, buf + pos, sizeof h);
        size_t total = sizeof h + h.klen + h.vlen;
        if (h.magic != REC_MAGIC || h.klen >= MAX_KEY || h.vlen > MAX_VAL || have - pos < total) break;
        uint32_t crc = crc32_update(0, buf + pos + sizeof h, h.klen + h.vlen);
        crc = crc32_update(crc, &h.seq, sizeof h.seq);
        if (crc != h.crc || h.seq != *last_seq + 1) break;
        char key[MAX_KEY];
        memcpy(key, buf + pos + sizeof h, h.klen);
        key[h.klen] = '\0';
        table_apply(out, h.op, key, file_off,
                    crc32_update(0, buf + pos + sizeof h + h.klen, h.vlen), h.vlen);
        *last_seq = h.seq;
        pos += total;
        file_off += total;
        nrec++;
    }
    free(buf);
    close(fd);
    return nrec;
}

static long compare_tables(const struct table *a, const struct table *b)
{
    long bad = 0;
    for (size_t i = 0; i < a->cap; i++) {
        const struct slot *s = &a->slots[i];
        if (!s->used) continue;
        struct slot *o = table_find((struct table *)b, s->key, 0);
        if (!o) { if (s->live) bad++; continue; }
        if (o->live != s->live) bad++;
        else if (s->live && (o->vcrc != s->vcrc || o->vlen != s->vlen)) bad++;
    }
    return bad + (a->live != b->live);
}

static long check_index(const char *dir)
{
    char ipath[1024], jpath[1024];
    snprintf(ipath, sizeof ipath, "%s/index.dat", dir);
    snprintf(jpath, sizeof jpath, "%s/journal.wal", dir);
    int ifd = open(ipath, O_RDONLY), jfd = open(jpath, O_RDONLY);
    if (ifd < 0 || jfd < 0) return 1;
    struct stat sb;
    fstat(ifd, &sb);
    unsigned char *ib = malloc((size_t)sb.st_size);
    if (read(ifd, ib, (size_t)sb.st_size) != sb.st_size) return 1;
    close(ifd);
    uint64_t n, jend;
    memcpy(&n, ib, 8);
    memcpy(&jend, ib + 8, 8);
    size_t p = 16;
    long bad = 0;
    for (uint64_t e = 0; e < n; e++) {
        uint8_t kl = ib[p++];
        char key[MAX_KEY];
        memcpy(key, ib + p, kl);
        key[kl] = '\0';
        p += kl;
        uint64_t off;
        memcpy(&off, ib + p, 8);
        p += 8;
        if (off >= jend) { bad++; continue; }
        struct rec_header h;
        char rkey[MAX_KEY];
        if (pread(jfd, &h, sizeof h, (off_t)off) != (ssize_t)sizeof h || h.magic != REC_MAGIC ||
            h.op != OP_PUT || h.klen != kl ||
            pread(jfd, rkey, kl, (off_t)(off + sizeof h)) != kl || memcmp(rkey, key, kl) != 0)
            bad++;
    }
    if (p != (size_t)sb.st_size) bad++;
    free(ib);
    close(jfd);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 1; }
    mkdir(argv[1], 0755);
    crc_init();

    struct store_opts opt = {
        .nkeys = 6000, .nops = 70000, .sync_every = 64, .index_every = 6000,
        .del_percent = 12, .seed = 0xfeedbeefull,
    };
    struct store st;
    struct table expect;
    char jpath[1024];
    memset(&st, 0, sizeof st);
    st.opt = &opt;
    snprintf(st.dir, sizeof st.dir, "%s", argv[1]);
    snprintf(jpath, sizeof jpath, "%s/journal.wal", argv[1]);
    st.fd = open(jpath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (st.fd < 0) { perror(jpath); return 1; }
    size_t cap = 1024;
    while (cap < 4 * (size_t)opt.nkeys) cap <<= 1;
    table_init(&st.tab, cap);
    table_init(&expect, st.tab.cap);
    run_workload(&st, &expect);
    index_rewrite(&st);
    if (fdatasync(st.fd) != 0) { perror("final fdatasync"); return 1; }
    close(st.fd);

    struct table rec;
    uint64_t last_seq;
    table_init(&rec, st.tab.cap);
    long nrec = recovery_scan(argv[1], &rec, &last_seq);
    if (nrec != opt.nops || last_seq != st.seq) {
        fprintf(stderr, "wal_kv_recover: recovered %ld of %ld records\n", nrec, opt.nops);
        return 2;
    }
    long bad = compare_tables(&expect, &rec) + compare_tables(&rec, &expect);
    if (bad) { fprintf(stderr, "wal_kv_recover: %ld keys differ after recovery\n", bad); return 3; }
    bad = check_index(argv[1]);
    if (bad) { fprintf(stderr, "wal_kv_recover: %ld bad index entries\n", bad); return 4; }
    printf("wal_kv_recover: %ld records, %zu live keys, %ld syncs, recovery ok\n",
           nrec, rec.live, st.nsyncs);
    return 0;
}
