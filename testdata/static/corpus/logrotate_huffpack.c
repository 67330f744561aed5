/*
 * logrotate_huffpack: a simulated request-serving daemon writes access log
 * lines; whenever the live log passes a size threshold it is rotated
 * (rename chain, unlink of the oldest generation) and the rotated file is
 * Huffman-packed and verified before the plain copy is removed.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_RECORDS     800000
#define BATCH         2000
#define ROTATE_BYTES  (4L << 20)
#define MAX_KEEP      5
#define MAX_CODE_LEN  16
#define NSYM          256

static const char *components[] = { "gateway", "auth", "billing", "search", "storage",
                                    "scheduler", "cache", "mailer" };
static const char *levels[] = { "DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR" };
static const char *paths[] = { "/api/v2/items", "/api/v2/users/me", "/login", "/static/app.js",
                               "/api/v2/search?q=", "/healthz", "/api/v2/orders" };

static uint64_t rs = 88172645463325252ull;

static void pjoin(char *dst, size_t cap, const char *dir, const char *name)
{
    snprintf(dst, cap, "%s/%s", dir, name);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Append one batch of log lines; returns the current size of the live file. */
static long write_log_batch(FILE *f, long seq0, int count)
{
    for (int i = 0; i < count; i++) {
        long seq = seq0 + i;
        rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
        uint64_t r = rs;
        long ms = seq * 37 + (long)(r & 31);
        int lvl = (int)((r >> 5) % 6);
        int comp = (int)((r >> 9) & 7);
        int pth = (int)((r >> 12) % 7);
        int status = lvl == 5 ? 500 + (int)((r >> 16) & 3) : (lvl == 4 ? 429 : 200);
        double lat = 0.2 + (double)((r >> 20) & 0xFFFF) / 650.0;
        fprintf(f, "2024-03-%02ld %02ld:%02ld:%02ld.%03ld %-5s [%s] req=%08llx %s %d %.3fms",
                1 + (ms / 86400000) % 28, (ms / 3600000) % 24, (ms / 60000) % 60,
                (ms / 1000) % 60, ms % 1000, levels[lvl], components[comp],
                (unsigned long long)(r >> 32), paths[pth], status, lat);
        if (pth == 4)
            fprintf(f, " q=term%llu", (unsigned long long)((r >> 40) % 5000));
        if (lvl >= 4)
            fprintf(f, " retry=%d upstream=10.0.%d.%d", (int)((r >> 44) & 3),
                    (int)((r >> 48) & 255), (int)((r >> 56) & 255));
        fputc('\n', f);
    }
    return ftell(f);
}

static uint32_t crc32_buf(const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    static int init = 0;
    if (!init) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        init = 1;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* Code lengths from a Huffman tree; frequencies are flattened until max length fits. */
static void huff_build_lengths(const uint64_t *freq_in, uint8_t *len)
{
    uint64_t freq[NSYM];
    memcpy(freq, freq_in, sizeof freq);
    for (;;) {
        uint64_t w[2 * NSYM];
        int parent[2 * NSYM], alive[2 * NSYM];
        int nn = 0, nused = 0;
        for (int s = 0; s < NSYM; s++) {
            w[s] = freq[s];
            alive[s] = freq[s] > 0;
            parent[s] = -1;
            nused += alive[s];
        }
        nn = NSYM;
        memset(len, 0, NSYM);
        if (nused < 2) {
            for (int s = 0; s < NSYM; s++)
                if (freq[s]) len[s] = 1;
            return;
        }
        for (int m = 0; m < nused - 1; m++) {
            int a = -1, b = -1;
            for (int i = 0; i < nn; i++) {
                if (!alive[i]) continue;
                if (a < 0 || w[i] < w[a]) { b = a; a = i; }
                else if (b < 0 || w[i] < w[b]) b = i;
            }
            w[nn] = w[a] + w[b];
            alive[nn] = 1; parent[nn] = -1;
            alive[a] = alive[b] = 0;
            parent[a] = parent[b] = nn;
            nn++;
        }
        int maxl = 0;
        for (int s = 0; s < NSYM; s++) {
            if (!freq[s]) continue;
            int d = 0;
            for (int p = s; parent[p] >= 0; p = parent[p]) d++;
            len[s] = (uint8_t)d;
            if (d > maxl) maxl = d;
        }
        if (maxl <= MAX_CODE_LEN)
            return;
        for (int s = 0; s < NSYM; s++)
            if (freq[s]) freq[s] = (freq[s] >> 1) | 1;
    }
}

static void huff_canonical(const uint8_t *len, uint32_t *code)
{
    int bl_count[MAX_CODE_LEN + 1] = {0};
    uint32_t next[MAX_CODE_LEN + 2];
    for (int s = 0; s < NSYM; s++) bl_count[len[s]]++;
    bl_count[0] = 0;
    uint32_t c = 0;
    for (int b = 1; b <= MAX_CODE_LEN; b++) {
        c = (c + bl_count[b - 1]) << 1;
        next[b] = c;
    }
    for (int s = 0; s < NSYM; s++)
        if (len[s]) code[s] = next[len[s]]++;
}

static long compress_file(const char *src, const char *dst, uint32_t *crc_out, size_t *n_out)
{
    FILE *in = fopen(src, "rb");
    if (!in) { perror(src); exit(1); }
    fseek(in, 0, SEEK_END);
    size_t n = (size_t)ftell(in);
    rewind(in);
    unsigned char *buf = malloc(n);
    if (fread(buf, 1, n, in) != n) { perror("fread"); exit(1); }
    fclose(in);

    uint64_t freq[NSYM] = {0};
    for (size_t i = 0; i < n; i++) freq[buf[i]]++;
    uint8_t len[NSYM];
    uint32_t code[NSYM] = {0};
    huff_build_lengths(freq, len);
    huff_canonical(len, code);

    unsigned char *out = malloc(n + 16);
    size_t o = 0;
    uint64_t acc = 0;
    int nbits = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << len[buf[i]]) | code[buf[i]];
        nbits += len[buf[i]];
        while (nbits >= 8) {
            nbits -= 8;
            out[o++] = (unsigned char)(acc >> nbits);
        }
    }
    if (nbits > 0) out[o++] = (unsigned char)(acc << (8 - nbits));

    uint32_t crc = crc32_buf(buf, n);
    uint64_t n64 = n;
    FILE *f = fopen(dst, "wb");
    if (!f) { perror(dst); exit(1); }
    fwrite("HZ1", 1, 3, f);
    fwrite(&n64, sizeof n64, 1, f);
    fwrite(&crc, sizeof crc, 1, f);
    fwrite(len, 1, NSYM, f);
    fwrite(out, 1, o, f);
    fclose(f);
    free(buf); free(out);
    *crc_out = crc;
    *n_out = n;
    return (long)(o + 3 + 8 + 4 + NSYM);
}

static int verify_archive(const char *path, uint32_t want_crc, size_t want_n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    struct stat st;
    fstat(fileno(f), &st);
    char magic[3];
    uint64_t n;
    uint32_t crc;
    uint8_t len[NSYM];
    if (fread(magic, 1, 3, f) != 3 || memcmp(magic, "HZ1", 3) ||
        fread(&n, sizeof n, 1, f) != 1 || fread(&crc, sizeof crc, 1, f) != 1 ||
        fread(len, 1, NSYM, f) != NSYM) {
        fclose(f);
        return 0;
    }
    size_t m = (size_t)st.st_size - 3 - 8 - 4 - NSYM;
    unsigned char *bits = malloc(m + 4);
    if (fread(bits, 1, m, f) != m) { fclose(f); free(bits); return 0; }
    memset(bits + m, 0, 4);
    fclose(f);

    uint32_t code[NSYM] = {0};
    huff_canonical(len, code);
    uint16_t *table = malloc(sizeof(uint16_t) << MAX_CODE_LEN);
    for (int s = 0; s < NSYM; s++) {
        if (!len[s]) continue;
        uint32_t lo = code[s] << (MAX_CODE_LEN - len[s]);
        uint32_t hi = lo + (1u << (MAX_CODE_LEN - len[s]));
        for (uint32_t c = lo; c < hi; c++)
            table[c] = (uint16_t)(s | (len[s] << 8));
    }
    unsigned char *dec = malloc(n);
    uint64_t acc = 0;
    int have = 0;
    size_t ip = 0;
    for (size_t i = 0; i < n; i++) {
        while (have < MAX_CODE_LEN) {
            acc = (acc << 8) | bits[ip++];
            have += 8;
        }
        uint16_t e = table[(acc >> (have - MAX_CODE_LEN)) & ((1u << MAX_CODE_LEN) - 1)];
        dec[i] = (unsigned char)(e & 0xFF);
        have -= e >> 8;
    }
    int ok = n == want_n && crc == want_crc && crc32_buf(dec, n) == want_crc;
    free(bits); free(table); free(dec);
    return ok;
}

static void rotate_logs(const char *dir, int generation, FILE *audit)
{
    char a[4096], b[4096];
    snprintf(b, sizeof b, "%s/service.log.%d.hz", dir, MAX_KEEP);
    if (file_exists(b)) {
        unlink(b);
        fprintf(audit, "gen %d: expired service.log.%d.hz\n", generation, MAX_KEEP);
    }
    for (int k = MAX_KEEP - 1; k >= 1; k--) {
        snprintf(a, sizeof a, "%s/service.log.%d.hz", dir, k);
        snprintf(b, sizeof b, "%s/service.log.%d.hz", dir, k + 1);
        if (file_exists(a))
            rename(a, b);
    }
    pjoin(a, sizeof a, dir, "service.log");
    pjoin(b, sizeof b, dir, "service.log.1");
    rename(a, b);

    char hz[4096];
    snprintf(hz, sizeof hz, "%s.hz", b);
    uint32_t crc;
    size_t n;
    long packed = compress_file(b, hz, &crc, &n);
    int ok = verify_archive(hz, crc, n);
    if (!ok) {
        fprintf(stderr, "verification failed for %s\n", hz);
        exit(1);
    }
    unlink(b);
    fprintf(audit, "gen %d: rotated %zu bytes -> %ld bytes (%.1f%%) crc=%08x\n",
            generation, n, packed, 100.0 * packed / (double)n, crc);
    fflush(audit);
}

static void write_manifest(const char *dir)
{
    char p[4096];
    pjoin(p, sizeof p, dir, "MANIFEST");
    FILE *mf = fopen(p, "w");
    DIR *d = opendir(dir);
    struct dirent *e;
    long total = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "MANIFEST") == 0)
            continue;
        char fp[4096];
        struct stat st;
        pjoin(fp, sizeof fp, dir, e->d_name);
        if (stat(fp, &st) == 0) {
            fprintf(mf, "%-28s %10lld\n", e->d_name, (long long)st.st_size);
            total += (long)st.st_size;
        }
    }
    closedir(d);
    fprintf(mf, "total %ld\n", total);
    fclose(mf);
    printf("manifest total %ld bytes\n", total);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch_dir\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    char live[4096], auditp[4096];
    pjoin(live, sizeof live, dir, "service.log");
    pjoin(auditp, sizeof auditp, dir, "rotations.log");
    FILE *audit = fopen(auditp, "a");
    FILE *f = fopen(live, "a");
    int generation = 0;
    for (long seq = 0; seq < N_RECORDS; seq += BATCH) {
        long size = write_log_batch(f, seq, BATCH);
        if (size >= ROTATE_BYTES) {
            fclose(f);
            rotate_logs(dir, ++generation, audit);
            f = fopen(live, "a");
        }
    }
    fclose(f);
    fclose(audit);
    write_manifest(dir);
    printf("rotations %d\n", generation);
    return 0;
}
