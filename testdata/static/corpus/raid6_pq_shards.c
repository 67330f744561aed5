/* RAID-6 style P+Q parity over GF(2^8): writes one file per data disk,
 * computes P/Q parity files stripe by stripe, repeatedly "loses" two disks
 * and rebuilds them from the survivors, then scrubs all shards with CRC-32C
 * and writes a text report. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NDATA 8
#define NSTRIPES 48
#define CHUNK 65536
#define ROUNDS 6

static uint8_t gf_exp[512], gf_log[256];
static char base[4096];

#define die(what, path) do { fprintf(stderr, "%s %s: %s\n", (what), (path), strerror(errno)); exit(1); } while (0)

static void gf_init(void)
{
    int x = 1;
    for (int i = 0; i < 255; i++) {
        gf_exp[i] = (uint8_t)x;
        gf_log[x] = (uint8_t)i;
        x <<= 1;
        if (x & 0x100) x ^= 0x11d;
    }
    for (int i = 255; i < 512; i++) gf_exp[i] = gf_exp[i - 255];
}

#define GF_MUL(a, b) ((a) && (b) ? gf_exp[gf_log[(a)] + gf_log[(b)]] : 0)
#define SHARD_PATH(out, kind, disk) snprintf(out, sizeof out, "%s/shards/%s%02d.bin", base, kind, disk)

/* xorshift-based fill: deterministic pseudo data with some structure */
static void synth_chunk(uint8_t *buf, int stripe, int disk)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)stripe << 20) ^ (uint64_t)disk;
    for (int i = 0; i < CHUNK; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        buf[i] = (uint8_t)((s & 0x3f) + (i % 61));
    }
}

/* one file per disk; each stripe appended with write() */
static void write_data_shards(uint8_t *buf)
{
    char p[4200];
    for (int d = 0; d < NDATA; d++) {
        SHARD_PATH(p, "d", d);
        int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) die("open", p);
        for (int s = 0; s < NSTRIPES; s++) {
            synth_chunk(buf, s, d);
            if (write(fd, buf, CHUNK) != CHUNK) die("write", p);
        }
        if (close(fd)) die("close", p);
    }
}

static void compute_pq(uint8_t **data, uint8_t *P, uint8_t *Q)
{
    memset(P, 0, CHUNK);
    memset(Q, 0, CHUNK);
    for (int d = NDATA - 1; d >= 0; d--) {
        for (int i = 0; i < CHUNK; i++) {
            P[i] ^= data[d][i];
            Q[i] = GF_MUL(Q[i], 2) ^ data[d][i];
        }
    }
}

/* read each stripe with pread from every data shard, write parity with pwrite */
static void build_parity(uint8_t **data, uint8_t *P, uint8_t *Q)
{
    char p[4200];
    int fds[NDATA];
    for (int d = 0; d < NDATA; d++) {
        SHARD_PATH(p, "d", d);
        fds[d] = open(p, O_RDONLY);
        if (fds[d] < 0) die("open", p);
    }
    SHARD_PATH(p, "p", 0);
    int fp = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fp < 0) die("open", p);
    SHARD_PATH(p, "q", 0);
    int fq = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fq < 0) die("open", p);
    for (int s = 0; s < NSTRIPES; s++) {
        off_t off = (off_t)s * CHUNK;
        for (int d = 0; d < NDATA; d++)
            if (pread(fds[d], data[d], CHUNK, off) != CHUNK) die("pread", "data");
        compute_pq(data, P, Q);
        if (pwrite(fp, P, CHUNK, off) != CHUNK) die("pwrite", "P");
        if (pwrite(fq, Q, CHUNK, off) != CHUNK) die("pwrite", "Q");
    }
    if (fsync(fp) || fsync(fq)) die("fsync", "parity");
    close(fp); close(fq);
    for (int d = 0; d < NDATA; d++) close(fds[d]);
}

/* rebuild disks a<b from surviving shards + P,Q */
static void recover_two(uint8_t **data, int a, int b, uint8_t *P, uint8_t *Q)
{
    uint8_t Pxy[CHUNK], Qxy[CHUNK];
    memcpy(Pxy, P, CHUNK);
    memcpy(Qxy, Q, CHUNK);
    for (int d = 0; d < NDATA; d++) {
        if (d == a || d == b) continue;
        uint8_t g = gf_exp[d];
        for (int i = 0; i < CHUNK; i++) {
            Pxy[i] ^= data[d][i];
            Qxy[i] ^= GF_MUL(g, data[d][i]);
        }
    }
    uint8_t ga = gf_exp[a], gb = gf_exp[b];
    uint8_t den = gf_exp[255 - gf_log[ga ^ gb]];
    for (int i = 0; i < CHUNK; i++) {
        /* Da*ga + Db*gb = Qxy ; Da + Db = Pxy */
        uint8_t t = GF_MUL(ga, Pxy[i]) ^ Qxy[i];
        uint8_t db = GF_MUL(t, den);
        data[b][i] = db;
        data[a][i] = Pxy[i] ^ db;
    }
}

static int rebuild_pass(uint8_t **data, uint8_t *P, uint8_t *Q, int a, int b)
{
    char p[4200];
    int fds[NDATA], fp, fq;
    uint8_t *ref = malloc(CHUNK);
    if (!ref) exit(1);
    for (int d = 0; d < NDATA; d++) {
        SHARD_PATH(p, "d", d);
        fds[d] = (d == a || d == b) ? -1 : open(p, O_RDONLY);
        if (d != a && d != b && fds[d] < 0) die("open", p);
    }
    SHARD_PATH(p, "p", 0);
    if ((fp = open(p, O_RDONLY)) < 0) die("open", p);
    SHARD_PATH(p, "q", 0);
    if ((fq = open(p, O_RDONLY)) < 0) die("open", p);
    char ra[4200], rb[4200];
    snprintf(ra, sizeof ra, "%s/rebuilt/d%02d.bin", base, a);
    snprintf(rb, sizeof rb, "%s/rebuilt/d%02d.bin", base, b);
    FILE *oa = fopen(ra, "wb"), *ob = fopen(rb, "wb");
    if (!oa || !ob) die("fopen", ra);
    int bad = 0;
    for (int s = 0; s < NSTRIPES; s++) {
        off_t off = (off_t)s * CHUNK;
        if (lseek(fp, off, SEEK_SET) < 0 || read(fp, P, CHUNK) != CHUNK) die("read", "P");
        if (lseek(fq, off, SEEK_SET) < 0 || read(fq, Q, CHUNK) != CHUNK) die("read", "Q");
        for (int d = 0; d < NDATA; d++)
            if (fds[d] >= 0 && pread(fds[d], data[d], CHUNK, off) != CHUNK) die("pread", "d");
        recover_two(data, a, b, P, Q);
        if (fwrite(data[a], 1, CHUNK, oa) != CHUNK) die("fwrite", ra);
        if (fwrite(data[b], 1, CHUNK, ob) != CHUNK) die("fwrite", rb);
        synth_chunk(ref, s, a);
        bad += memcmp(ref, data[a], CHUNK) != 0;
        synth_chunk(ref, s, b);
        bad += memcmp(ref, data[b], CHUNK) != 0;
    }
    if (fclose(oa) || fclose(ob)) die("fclose", ra);
    close(fp); close(fq);
    for (int d = 0; d < NDATA; d++) if (fds[d] >= 0) close(fds[d]);
    free(ref);
    return bad;
}

/* scrub: stream every shard and every rebuilt image, CRC-32C each chunk
 * (bitwise), re-check P and compare rebuilt images against the shards */
static int scrub(uint8_t **data, uint8_t *P, uint32_t (*crc)[NDATA + 2])
{
    char p[4200];
    int fds[2 * NDATA + 2], bad = 0;
    uint8_t *img = malloc(CHUNK);
    if (!img) exit(1);
    for (int d = 0; d < 2 * NDATA + 2; d++) {
        if (d < NDATA) SHARD_PATH(p, "d", d);
        else if (d < NDATA + 2) SHARD_PATH(p, d == NDATA ? "p" : "q", 0);
        else snprintf(p, sizeof p, "%s/rebuilt/d%02d.bin", base, d - NDATA - 2);
        if ((fds[d] = open(p, O_RDONLY)) < 0) die("open", p);
    }
    for (int s = 0; s < NSTRIPES; s++) {
        for (int d = 0; d < 2 * NDATA + 2; d++) {
            uint8_t *buf = d < NDATA ? data[d] : d < NDATA + 2 ? P : img;
            if (read(fds[d], buf, CHUNK) != CHUNK) die("read", "scrub");
            uint32_t c = 0xffffffffu;
            for (int i = 0; i < CHUNK; i++) {
                c ^= buf[i];
                for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & -(c & 1u));
            }
            if (d >= NDATA + 2) {
                bad += ~c != crc[s][d - NDATA - 2];
                continue;
            }
            crc[s][d] = ~c;
            if (d == NDATA) {
                for (int i = 0; i < CHUNK; i++) {
                    uint8_t x = 0;
                    for (int j = 0; j < NDATA; j++) x ^= data[j][i];
                    if (x != P[i]) { bad++; break; }
                }
            }
        }
    }
    for (int d = 0; d < 2 * NDATA + 2; d++) close(fds[d]);
    free(img);
    return bad;
}

static void write_report(int *fails, int (*pairs)[2], uint32_t (*crc)[NDATA + 2], int pbad)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/rebuild_report.txt", base);
    FILE *f = fopen(p, "w");
    if (!f) die("fopen", p);
    fprintf(f, "# disks=%d stripes=%d chunk=%d\n", NDATA, NSTRIPES, CHUNK);
    for (int r = 0; r < ROUNDS; r++)
        fprintf(f, "round %d lost %d,%d bad_stripes %d\n", r, pairs[r][0], pairs[r][1], fails[r]);
    fprintf(f, "# scrub: parity/image mismatches %d; crc32c per stripe (d0..d%d P Q)\n", pbad, NDATA - 1);
    for (int s = 0; s < NSTRIPES; s++) {
        fprintf(f, "%3d", s);
        for (int d = 0; d < NDATA + 2; d++) fprintf(f, " %08x", crc[s][d]);
        fputc('\n', f);
    }
    if (fclose(f)) die("fclose", p);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    snprintf(base, sizeof base, "%s", argv[1]);
    char p[4200];
    mkdir(base, 0755);
    snprintf(p, sizeof p, "%s/shards", base);
    if (mkdir(p, 0755) && errno != EEXIST) die("mkdir", p);
    snprintf(p, sizeof p, "%s/rebuilt", base);
    if (mkdir(p, 0755) && errno != EEXIST) die("mkdir", p);

    gf_init();
    uint8_t *data[NDATA];
    for (int d = 0; d < NDATA; d++) if (!(data[d] = malloc(CHUNK))) return 1;
    uint8_t *P = malloc(CHUNK), *Q = malloc(CHUNK);
    if (!P || !Q) return 1;

    write_data_shards(data[0]);
    build_parity(data, P, Q);
    int pairs[ROUNDS][2] = {{1, 5}, {0, 7}, {3, 4}, {2, 6}, {0, 1}, {6, 7}};
    int fails[ROUNDS], total = 0;
    for (int r = 0; r < ROUNDS; r++) {
        fails[r] = rebuild_pass(data, P, Q, pairs[r][0], pairs[r][1]);
        total += fails[r];
    }
    static uint32_t crc[NSTRIPES][NDATA + 2];
    int pbad = scrub(data, P, crc);
    write_report(fails, pairs, crc, pbad);
    total += pbad;
    printf("raid6: %d stripes x %d disks, rebuild mismatches %d, scrub errors %d\n", NSTRIPES, NDATA,
           total - pbad, pbad);
    for (int d = 0; d < NDATA; d++) free(data[d]);
    free(P); free(Q);
    return total ? 1 : 0;
}
