/*
 * Multichannel time-series recorder and validator.
 * The producer simulates 8 noisy AR(2) channels and emits fixed-size blocks,
 * each a small header (channel, sequence number, start time, CRC-32 of the
 * payload) followed by the float samples, written with one writev per block.
 * The consumer reads the blocks back with readv into header + payload
 * buffers, validates magic, sequence and CRC, and keeps running per-channel
 * statistics (Welford mean/variance, extrema, spike count) which must match
 * the statistics the producer accumulated.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define NCHAN       8
#define NSAMP       2048
#define NBLOCKS     4800       /* total over all channels */
#define BLOCK_MAGIC 0x53455249u
#define SAMPLE_DT   1.0e-3

typedef struct {
    uint32_t magic;
    uint32_t channel;
    uint64_t seq;
    double   t0;
    uint32_t nsamp;
    uint32_t crc;
} block_header;

typedef struct {
    uint64_t n;
    double   mean, m2, min, max;
    uint64_t spikes;
} running_stats;

typedef struct {
    double y1, y2;     /* AR(2) memory */
    double a1, a2, noise;
    uint64_t seq;
} channel_model;

static uint32_t crc_table[256];

static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_buf(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static uint64_t rng_s = 0x853c49e6748fea9bULL;

static double rand_normal(void)
{
    double u1, u2;
    rng_s = rng_s * 6364136223846793005ULL + 1442695040888963407ULL;
    u1 = ((rng_s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    rng_s = rng_s * 6364136223846793005ULL + 1442695040888963407ULL;
    u2 = ((rng_s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void stats_reset(running_stats *s)
{
    memset(s, 0, sizeof *s);
    s->min = INFINITY;
    s->max = -INFINITY;
}

static void stats_update(running_stats *s, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        s->n++;
        double d = v - s->mean;
        s->mean += d / (double)s->n;
        s->m2 += d * (v - s->mean);
        if (v < s->min) s->min = v;
        if (v > s->max) s->max = v;
        if (s->n > 100 && fabs(v - s->mean) > 5.0 * sqrt(s->m2 / (double)(s->n - 1))) s->spikes++;
    }
}

static void generate_block(channel_model *m, float *out, int chan)
{
    for (int i = 0; i < NSAMP; i++) {
        double y = m->a1 * m->y1 + m->a2 * m->y2 + m->noise * rand_normal();
        m->y2 = m->y1;
        m->y1 = y;
        double v = y + 0.5 * sin(2.0 * M_PI * (chan + 1) * 3.0 * (double)(m->seq * NSAMP + i) * SAMPLE_DT);
        if (((m->seq * NSAMP + i) * 2654435761u) % 50000 == 17) v += 12.0;   /* rare glitch */
        out[i] = (float)v;
    }
}

static int write_all_iov(int fd, struct iovec *iov, int cnt)
{
    size_t want = 0;
    for (int i = 0; i < cnt; i++) want += iov[i].iov_len;
    while (want > 0) {
        ssize_t w = writev(fd, iov, cnt);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        want -= (size_t)w;
        /* advance past what was written */
        while (cnt > 0 && (size_t)w >= iov->iov_len) { w -= (ssize_t)iov->iov_len; iov++; cnt--; }
        if (cnt > 0) { iov->iov_base = (char *)iov->iov_base + w; iov->iov_len -= (size_t)w; }
    }
    return 0;
}

static void produce(const char *path, running_stats ref[NCHAN])
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    channel_model model[NCHAN];
    for (int c = 0; c < NCHAN; c++) {
        model[c].y1 = model[c].y2 = 0.0;
        model[c].a1 = 1.6 - 0.05 * c;
        model[c].a2 = -0.7 + 0.02 * c;
        model[c].noise = 0.1 + 0.02 * c;
        model[c].seq = 0;
        stats_reset(&ref[c]);
    }
    float *payload = malloc(sizeof(float) * NSAMP);
    for (int b = 0; b < NBLOCKS; b++) {
        int c = b % NCHAN;
        block_header h;
        memset(&h, 0, sizeof h);
        generate_block(&model[c], payload, c);
        h.magic = BLOCK_MAGIC;
        h.channel = (uint32_t)c;
        h.seq = model[c].seq++;
        h.t0 = (double)(h.seq * NSAMP) * SAMPLE_DT;
        h.nsamp = NSAMP;
        h.crc = crc32_buf(payload, sizeof(float) * NSAMP);
        stats_update(&ref[c], payload, NSAMP);
        struct iovec iov[2] = {{&h, sizeof h}, {payload, sizeof(float) * NSAMP}};
        if (write_all_iov(fd, iov, 2) != 0) { perror("writev"); exit(1); }
    }
    free(payload);
    if (close(fd) != 0) { perror("close"); exit(1); }
}

static int consume(const char *path, running_stats got[NCHAN])
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); exit(1); }
    float *payload = malloc(sizeof(float) * NSAMP);
    uint64_t next_seq[NCHAN] = {0};
    int errors = 0, blocks = 0;
    for (int c = 0; c < NCHAN; c++) stats_reset(&got[c]);
    for (;;) {
        block_header h;
        struct iovec iov[2] = {{&h, sizeof h}, {payload, sizeof(float) * NSAMP}};
        ssize_t r = readv(fd, iov, 2);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR) continue;
            perror("readv");
            exit(1);
        }
        if ((size_t)r != sizeof h + sizeof(float) * NSAMP) {
            fprintf(stderr, "truncated block %d (%zd bytes)\n", blocks, r);
            errors++;
            break;
        }
        blocks++;
        if (h.magic != BLOCK_MAGIC || h.channel >= NCHAN || h.nsamp != NSAMP) { errors++; continue; }
        if (h.seq != next_seq[h.channel]) errors++;
        next_seq[h.channel] = h.seq + 1;
        if (crc32_buf(payload, sizeof(float) * NSAMP) != h.crc) { errors++; continue; }
        stats_update(&got[h.channel], payload, NSAMP);
    }
    free(payload);
    close(fd);
    if (blocks != NBLOCKS) errors++;
    return errors;
}

static void write_summary(const char *path, const running_stats s[NCHAN])
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "# channel samples mean stddev min max spikes\n");
    for (int c = 0; c < NCHAN; c++)
        fprintf(f, "%d %llu %.9f %.9f %.6f %.6f %llu\n", c, (unsigned long long)s[c].n, s[c].mean,
                sqrt(s[c].m2 / (double)(s[c].n - 1)), s[c].min, s[c].max, (unsigned long long)s[c].spikes);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char data[4096], summary[4096];
    snprintf(data, sizeof data, "%s/series.blk", argv[1]);
    snprintf(summary, sizeof summary, "%s/series_summary.txt", argv[1]);
    crc32_init();

    running_stats ref[NCHAN], got[NCHAN];
    produce(data, ref);
    int errors = consume(data, got);
    write_summary(summary, got);

    uint64_t spikes = 0;
    for (int c = 0; c < NCHAN; c++) {
        if (got[c].n != ref[c].n || got[c].mean != ref[c].mean || got[c].m2 != ref[c].m2 ||
            got[c].min != ref[c].min || got[c].max != ref[c].max || got[c].spikes != ref[c].spikes)
            errors++;
        spikes += got[c].spikes;
    }
    printf("%d blocks x %d samples, %d channels, channel 0 mean %.5f sd %.5f, %llu spikes, %d errors\n",
           NBLOCKS, NSAMP, NCHAN, got[0].mean, sqrt(got[0].m2 / (double)(got[0].n - 1)),
           (unsigned long long)spikes, errors);
    return errors ? 1 : 0;
}
