/* Append-only audit log for a simulated payment service (writev batches,
 * periodic fdatasync, rotation by rename); the retained segments are then
 * scanned, CRC-checked and aggregated into per-account balances. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define NEVENTS 600000
#define NACCOUNTS 5000
#define BATCH 32
#define SYNC_EVERY 2048
#define SEGMENT_MAX (4L << 20)
#define KEEP_SEGMENTS 6
#define REC_MAGIC 0x41554454u
#define PAYLOAD_MAX 160

typedef struct {
    uint32_t magic;
    uint32_t payload_len;
    uint64_t seq;
    uint64_t ts_us;
    uint32_t account;
    int32_t amount_cents;
    float risk;
    uint32_t crc;
} rec_hdr_t;

typedef struct {
    int fd;
    char dir[3072];
    char path[4096];
    long seg_bytes;
    int segments_rotated;
    long since_sync;
    struct iovec iov[2 * BATCH];
    int niov;
    char payloads[BATCH][PAYLOAD_MAX];
    rec_hdr_t hdrs[BATCH];
    int nbatched;
} audit_log_t;

typedef struct {
    double ewma;
    double ewvar;
    long count;
} acct_model_t;

static uint32_t crc_table[256];
static uint64_t prng = 0x2545F4914F6CDD1DULL;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "rotating_audit_log: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t next_rand(void)
{
    prng ^= prng >> 12;
    prng ^= prng << 25;
    prng ^= prng >> 27;
    return prng * 0x2545F4914F6CDD1DULL;
}

static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint32_t record_crc(const rec_hdr_t *h, const char *payload)
{
    rec_hdr_t tmp = *h;
    tmp.crc = 0;
    uint32_t c = crc32_update(0, &tmp, sizeof tmp);
    return crc32_update(c, payload, h->payload_len);
}

static void log_open(audit_log_t *lg)
{
    snprintf(lg->path, sizeof lg->path, "%s/audit.log", lg->dir);
    lg->fd = open(lg->path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
    if (lg->fd < 0)
        die("open", lg->path);
    lg->seg_bytes = 0;
}

static void log_flush_batch(audit_log_t *lg)
{
    if (lg->niov == 0)
        return;
    ssize_t want = 0;
    for (int i = 0; i < lg->niov; i++)
        want += (ssize_t)lg->iov[i].iov_len;
    ssize_t got = writev(lg->fd, lg->iov, lg->niov);
    if (got != want)
        die("writev", lg->path);
    lg->seg_bytes += got;
    lg->niov = 0;
    lg->nbatched = 0;
    if (lg->since_sync >= SYNC_EVERY) {
        if (fdatasync(lg->fd) != 0)
            die("fdatasync", lg->path);
        lg->since_sync = 0;
    }
}

/* audit.log -> audit.log.1 -> audit.log.2 ...; the oldest is removed. */
static void log_rotate(audit_log_t *lg)
{
    char from[4200], to[4200];
    log_flush_batch(lg);
    if (fsync(lg->fd) != 0)
        die("fsync", lg->path);
    close(lg->fd);

    snprintf(from, sizeof from, "%s.%d", lg->path, KEEP_SEGMENTS);
    if (unlink(from) != 0 && errno != ENOENT)
        die("unlink", from);
    for (int k = KEEP_SEGMENTS - 1; k >= 1; k--) {
        snprintf(from, sizeof from, "%s.%d", lg->path, k);
        snprintf(to, sizeof to, "%s.%d", lg->path, k + 1);
        if (rename(from, to) != 0 && errno != ENOENT)
            die("rename", from);
    }
    snprintf(to, sizeof to, "%s.1", lg->path);
    if (rename(lg->path, to) != 0)
        die("rename", lg->path);
    lg->segments_rotated++;
    log_open(lg);
}

static void log_append(audit_log_t *lg, const rec_hdr_t *h, const char *payload)
{
    int b = lg->nbatched++;
    lg->hdrs[b] = *h;
    memcpy(lg->payloads[b], payload, h->payload_len);
    lg->iov[lg->niov].iov_base = &lg->hdrs[b];
    lg->iov[lg->niov++].iov_len = sizeof(rec_hdr_t);
    lg->iov[lg->niov].iov_base = lg->payloads[b];
    lg->iov[lg->niov++].iov_len = h->payload_len;
    lg->since_sync++;
    if (lg->nbatched == BATCH)
        log_flush_batch(lg);
    if (lg->seg_bytes >= SEGMENT_MAX)
        log_rotate(lg);
}

static void log_close(audit_log_t *lg)
{
    log_flush_batch(lg);
    if (fdatasync(lg->fd) != 0)
        die("fdatasync", lg->path);
    close(lg->fd);
}

/* Scores a transaction against the account's running statistics. */
static float risk_score(acct_model_t *m, double amount)
{
    double x = log1p(fabs(amount));
    if (m->count == 0) {
        m->ewma = x;
        m->ewvar = 1.0;
    }
    double d = x - m->ewma;
    double z = d / sqrt(m->ewvar + 1e-6);
    m->ewma += 0.05 * d;
    m->ewvar = 0.95 * (m->ewvar + 0.05 * d * d);
    m->count++;
    /* a few rounds of a logistic squashing with a seasonal term */
    double s = z;
    for (int i = 0; i < 24; i++)
        s = 0.5 * s + 0.5 * tanh(s + 0.1 * sin(0.3 * i + x));
    return (float)(1.0 / (1.0 + exp(-(2.0 * s + 0.8 * z))));
}

static void generate_events(audit_log_t *lg, acct_model_t *models)
{
    static const char *ops[] = {"transfer", "deposit", "withdraw", "refund", "fee"};
    char payload[PAYLOAD_MAX];
    uint64_t ts = 1700000000000000ULL;
    for (long i = 0; i < NEVENTS; i++) {
        uint64_t r = next_rand();
        uint32_t acct = (uint32_t)((r % NACCOUNTS) * (r % 7 + 1) / 7);
        int opi = (int)((r >> 20) % 5);
        int32_t amount = (int32_t)((r >> 32) % 250000) - (opi == 2 || opi == 4 ? 250000 : 0);
        ts += 50 + (r >> 40) % 2000;
        int n = snprintf(payload, sizeof payload,
                         "op=%s acct=%06u peer=%06u channel=%s memo=%08llx",
                         ops[opi], acct, (uint32_t)((r >> 8) % NACCOUNTS),
                         (r & 1) ? "web" : "branch", (unsigned long long)(r >> 16));
        rec_hdr_t h;
        memset(&h, 0, sizeof h);
        h.magic = REC_MAGIC;
        h.payload_len = (uint32_t)n;
        h.seq = (uint64_t)i;
        h.ts_us = ts;
        h.account = acct;
        h.amount_cents = amount;
        h.risk = risk_score(&models[acct], amount / 100.0);
        h.crc = record_crc(&h, payload);
        log_append(lg, &h, payload);
    }
}

typedef struct {
    long records;
    long bad_crc;
    long gaps;
    uint64_t first_seq, last_seq;
    long flagged;
} scan_result_t;

static void scan_segment(const char *path, long long *balance, scan_result_t *res)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT)
            return;
        die("open", path);
    }
    size_t cap = 1 << 16, have = 0, off = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (off > 0) {
            memmove(buf, buf + off, have - off);
            have -= off;
            off = 0;
        }
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0)
            die("read", path);
        if (n == 0)
            break;
        have += (size_t)n;
        while (have - off >= sizeof(rec_hdr_t)) {
            rec_hdr_t h;
            memcpy(&h, buf + off, sizeof h);
            if (h.magic != REC_MAGIC || h.payload_len > PAYLOAD_MAX) {
                fprintf(stderr, "rotating_audit_log: corrupt record in %s\n", path);
                exit(1);
            }
            if (have - off < sizeof h + h.payload_len)
                break;
            const char *payload = buf + off + sizeof h;
            if (record_crc(&h, payload) != h.crc)
                res->bad_crc++;
            if (res->records > 0 && h.seq != res->last_seq + 1)
                res->gaps++;
            if (res->records == 0)
                res->first_seq = h.seq;
            res->last_seq = h.seq;
            res->records++;
            balance[h.account] += h.amount_cents;
            if (h.risk > 0.9f)
                res->flagged++;
            off += sizeof h + h.payload_len;
        }
    }
    if (have != off) {
        fprintf(stderr, "rotating_audit_log: trailing bytes in %s\n", path);
        exit(1);
    }
    free(buf);
    close(fd);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static void write_summary(const char *dir, const long long *balance,
                          const scan_result_t *res, int rotated)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die("fopen", path);
    long long *sorted = malloc(sizeof(long long) * NACCOUNTS);
    memcpy(sorted, balance, sizeof(long long) * NACCOUNTS);
    qsort(sorted, NACCOUNTS, sizeof(long long), cmp_ll);
    fprintf(f, "segments rotated: %d (kept %d)\n", rotated, KEEP_SEGMENTS);
    fprintf(f, "records scanned: %ld  seq %llu..%llu  gaps %ld  bad crc %ld  flagged %ld\n",
            res->records, (unsigned long long)res->first_seq,
            (unsigned long long)res->last_seq, res->gaps, res->bad_crc, res->flagged);
    fprintf(f, "balance percentiles (cents): p1 %lld  p50 %lld  p99 %lld\n",
            sorted[NACCOUNTS / 100], sorted[NACCOUNTS / 2], sorted[NACCOUNTS * 99 / 100]);
    for (int a = 0; a < NACCOUNTS; a++)
        if (balance[a] != 0)
            fprintf(f, "acct %06d %14.2f\n", a, balance[a] / 100.0);
    free(sorted);
    if (fclose(f) != 0)
        die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST)
        die("mkdir", argv[1]);
    crc32_init();

    static audit_log_t lg;
    snprintf(lg.dir, sizeof lg.dir, "%s", argv[1]);
    acct_model_t *models = calloc(NACCOUNTS, sizeof *models);
    log_open(&lg);
    generate_events(&lg, models);
    log_close(&lg);

    long long *balance = calloc(NACCOUNTS, sizeof(long long));
    scan_result_t res;
    memset(&res, 0, sizeof res);
    char path[4200];
    for (int k = KEEP_SEGMENTS; k >= 1; k--) {
        snprintf(path, sizeof path, "%s.%d", lg.path, k);
        scan_segment(path, balance, &res);
    }
    scan_segment(lg.path, balance, &res);

    if (res.bad_crc != 0 || res.gaps != 0 || res.last_seq != NEVENTS - 1) {
        fprintf(stderr, "rotating_audit_log: scan found %ld bad records, %ld gaps\n",
                res.bad_crc, res.gaps);
        return 1;
    }
    write_summary(argv[1], balance, &res, lg.segments_rotated);
    printf("%ld records retained of %d, %d rotations\n", res.records, NEVENTS,
           lg.segments_rotated);
    free(models);
    free(balance);
    return 0;
}
