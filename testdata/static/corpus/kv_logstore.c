/*
 * Append-only key-value store for simulation metadata.
 *
 * Every put or delete appends one record (header + key + value) to a log
 * file with a single write(); an in-memory open-addressing hash table maps
 * each key to the offset of its newest record.  Reads go straight to the
 * file with pread().  compact_log() copies only the live records to a new
 * log, syncs it and renames it over the old one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REC_MAGIC 0x4b564c31u
#define TOMBSTONE 0xffffffffu
#define MAX_KEY 32
#define MAX_VAL 512

typedef struct {
    uint32_t magic;
    uint32_t key_len;
    uint32_t val_len; /* TOMBSTONE for a delete */
    uint32_t val_sum; /* FNV-1a of the value bytes */
    uint64_t seq;
} rec_header_t;

typedef struct {
    char key[MAX_KEY];
    int64_t offset;   /* -1: empty slot, -2: deleted key */
    uint32_t rec_len; /* header + key + value */
} slot_t;

typedef struct {
    int fd;
    char path[4096];
    int64_t end;
    uint64_t seq;
    slot_t *slots;
    size_t nslots, nlive;
} kvstore_t;

static uint32_t fnv1a32(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 16777619u;
    }
    return h;
}

static slot_t *index_find(kvstore_t *kv, const char *key, int for_insert)
{
    size_t mask = kv->nslots - 1;
    size_t i = fnv1a32(key, strlen(key)) & mask;
    for (;;) {
        slot_t *s = &kv->slots[i];
        if (s->offset == -1)
            return for_insert ? s : NULL;
        if (strcmp(s->key, key) == 0)
            return s;
        i = (i + 1) & mask;
    }
}

static int kv_open(kvstore_t *kv, const char *path, size_t nslots)
{
    snprintf(kv->path, sizeof kv->path, "%s", path);
    kv->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (kv->fd < 0)
        return -1;
    kv->end = 0;
    kv->seq = 0;
    kv->nslots = nslots;
    kv->nlive = 0;
    kv->slots = malloc(sizeof(slot_t) * nslots);
    for (size_t i = 0; i < nslots; i++)
        kv->slots[i].offset = -1;
    return 0;
}

static int kv_append(kvstore_t *kv, const char *key, const void *val, uint32_t val_len)
{
    unsigned char rec[sizeof(rec_header_t) + MAX_KEY + MAX_VAL];
    rec_header_t h;
    h.magic = REC_MAGIC;
    h.key_len = (uint32_t)strlen(key);
    h.val_len = val_len;
    h.val_sum = val_len == TOMBSTONE ? 0 : fnv1a32(val, val_len);
    h.seq = ++kv->seq;
    size_t vbytes = val_len == TOMBSTONE ? 0 : val_len;
    size_t n = sizeof h + h.key_len + vbytes;
    memcpy(rec, &h, sizeof h);
    memcpy(rec + sizeof h, key, h.key_len);
    if (vbytes)
        memcpy(rec + sizeof h + h.key_len, val, vbytes);
    ssize_t w = write(kv->fd, rec, n);
    if (w != (ssize_t)n)
        return -1;

    slot_t *s = index_find(kv, key, 1);
    if (s->offset < 0 && val_len != TOMBSTONE)
        kv->nlive++;
    if (s->offset >= 0 && val_len == TOMBSTONE)
        kv->nlive--;
    if (s->offset == -1)
        snprintf(s->key, MAX_KEY, "%s", key);
    s->offset = val_len == TOMBSTONE ? -2 : kv->end;
    s->rec_len = (uint32_t)n;
    kv->end += (int64_t)n;
    return 0;
}

static int kv_put(kvstore_t *kv, const char *key, const void *val, uint32_t len)
{
    return kv_append(kv, key, val, len);
}

static int kv_delete(kvstore_t *kv, const char *key)
{
    return kv_append(kv, key, NULL, TOMBSTONE);
}

/* returns value length, 0 if absent, -1 on a corrupt record */
static int kv_get(kvstore_t *kv, const char *key, char *val)
{
    slot_t *s = index_find(kv, key, 0);
    if (!s || s->offset < 0)
        return 0;
    unsigned char rec[sizeof(rec_header_t) + MAX_KEY + MAX_VAL];
    if (pread(kv->fd, rec, s->rec_len, s->offset) != (ssize_t)s->rec_len)
        return -1;
    rec_header_t h;
    memcpy(&h, rec, sizeof h);
    if (h.magic != REC_MAGIC || h.key_len != strlen(key) ||
        memcmp(rec + sizeof h, key, h.key_len) != 0)
        return -1;
    memcpy(val, rec + sizeof h + h.key_len, h.val_len);
    if (fnv1a32(val, h.val_len) != h.val_sum)
        return -1;
    return (int)h.val_len;
}

/* copy the live records to a fresh log and switch the store over to it */
static int compact_log(kvstore_t *kv)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.compact", kv->path);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0)
        return -1;
    const size_t bufsz = 1 << 18;
    unsigned char *buf = malloc(bufsz);
    size_t fill = 0;
    int64_t newend = 0;
    for (size_t i = 0; i < kv->nslots; i++) {
        slot_t *s = &kv->slots[i];
        if (s->offset < 0)
            continue;
        if (fill + s->rec_len > bufsz) {
            if (write(out, buf, fill) != (ssize_t)fill)
                goto fail;
            fill = 0;
        }
        if (pread(kv->fd, buf + fill, s->rec_len, s->offset) != (ssize_t)s->rec_len)
            goto fail;
        fill += s->rec_len;
        s->offset = newend;
        newend += s->rec_len;
    }
    if (fill && write(out, buf, fill) != (ssize_t)fill)
        goto fail;
    free(buf);
    if (fsync(out) != 0 || close(out) != 0)
        return -1;
    if (rename(tmp, kv->path) != 0)
        return -1;
    close(kv->fd);
    kv->fd = open(kv->path, O_RDWR | O_APPEND);
    kv->end = newend;
    return kv->fd < 0 ? -1 : 0;
fail:
    free(buf);
    close(out);
    return -1;
}

/* deterministic value for (key id, version) so reads can be checked */
static uint32_t make_value(int id, int version, char *val)
{
    uint32_t len = 24 + (uint32_t)((id * 131 + version * 71) % (MAX_VAL - 64));
    int n = snprintf(val, MAX_VAL, "probe=%d;version=%d;payload=", id, version);
    uint32_t x = (uint32_t)id * 2654435761u + (uint32_t)version;
    for (uint32_t i = (uint32_t)n; i < len; i++) {
        x = x * 1103515245u + 12345u;
        val[i] = (char)('a' + (x >> 16) % 26);
    }
    return len;
}

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/metadata.kvlog", argv[1]);

    const int nkeys = 40000, nops = 160000, nlookups = 120000;
    int *version = calloc(nkeys, sizeof(int)); /* 0: absent, -v: deleted at v */
    kvstore_t kv;
    if (kv_open(&kv, path, 1 << 17) != 0) {
        perror(path);
        return 1;
    }

    uint64_t rng = 12345;
    char key[MAX_KEY], val[MAX_VAL], got[MAX_VAL];
    for (int op = 0; op < nops; op++) {
        int id = (int)(lcg_next(&rng) % nkeys);
        snprintf(key, sizeof key, "probe/%06d", id);
        if (version[id] > 0 && lcg_next(&rng) % 10 == 0) {
            if (kv_delete(&kv, key) != 0)
                return 1;
            version[id] = -version[id];
        } else {
            int v = (version[id] < 0 ? -version[id] : version[id]) + 1;
            uint32_t len = make_value(id, v, val);
            if (kv_put(&kv, key, val, len) != 0) {
                perror("write");
                return 1;
            }
            version[id] = v;
        }
    }
    int64_t log_before = kv.end;

    int errors = 0, hits = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int q = 0; q < nlookups; q++) {
            int id = (int)(lcg_next(&rng) % nkeys);
            snprintf(key, sizeof key, "probe/%06d", id);
            int n = kv_get(&kv, key, got);
            if (version[id] > 0) {
                uint32_t len = make_value(id, version[id], val);
                if (n != (int)len || memcmp(got, val, len) != 0)
                    errors++;
                else
                    hits++;
            } else if (n != 0) {
                errors++;
            }
        }
        if (pass == 0 && compact_log(&kv) != 0) {
            fprintf(stderr, "compaction failed: %s\n", strerror(errno));
            return 1;
        }
    }

    struct stat st;
    if (fstat(kv.fd, &st) != 0 || st.st_size != kv.end) {
        fprintf(stderr, "compacted log size mismatch\n");
        return 1;
    }
    size_t live = 0;
    for (int id = 0; id < nkeys; id++)
        live += version[id] > 0;
    if (errors || live != kv.nlive) {
        fprintf(stderr, "%d lookup errors, live %zu vs index %zu\n", errors, live, kv.nlive);
        return 1;
    }
    printf("log %lld -> %lld bytes after compaction, %zu live keys, %d verified hits\n",
           (long long)log_before, (long long)kv.end, live, hits);
    close(kv.fd);
    free(kv.slots);
    free(version);
    return 0;
}
