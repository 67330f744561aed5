/* Telemetry recorder for a simulated multi-channel vibration rig: every tick appends a
 * fixed-size CRC-protected record to an O_APPEND ring file that is compacted in place
 * (pread tail, ftruncate, re-append) when it exceeds its cap; alarms go to a text log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <sys/stat.h>

#define NCHAN      12
#define NTICKS     480000
#define RING_CAP   (4L * 1024 * 1024)
#define RING_KEEP  (1L * 1024 * 1024)
#define SUBSTEPS   6

typedef struct {
    uint32_t seq;
    uint32_t crc;
    double t;
    float ch[NCHAN];
} sample_rec;

typedef struct {
    double x[NCHAN], v[NCHAN];
    double k[NCHAN], c[NCHAN];
    uint64_t noise;
} rig_t;

static void fail(const char *msg, const char *path)
{
    fprintf(stderr, "ring_telemetry: %s %s: %s\n", msg, path, strerror(errno));
    exit(1);
}

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_buf(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static double gauss(uint64_t *s)
{
    double u1, u2;
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    u1 = ((*s >> 11) + 1) * (1.0 / 9007199254740993.0);
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    u2 = (*s >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static void rig_init(rig_t *r)
{
    r->noise = 0xdeadbeefcafef00dULL;
    for (int i = 0; i < NCHAN; i++) {
        r->x[i] = 0.0;
        r->v[i] = 0.0;
        r->k[i] = 40.0 + 25.0 * i;
        r->c[i] = 0.3 + 0.05 * i;
    }
}

/* Coupled damped oscillators driven by a chirp and noise, integrated with RK2 substeps. */
static void rig_step(rig_t *r, double t, double dt)
{
    double h = dt / SUBSTEPS;
    for (int s = 0; s < SUBSTEPS; s++) {
        double tt = t + s * h;
        double drive = sin(2.0 * M_PI * (0.8 + 0.005 * tt) * tt);
        double ax[NCHAN], xm[NCHAN], vm[NCHAN];
        for (int i = 0; i < NCHAN; i++) {
            double left = i > 0 ? r->x[i-1] : 0.0, right = i < NCHAN - 1 ? r->x[i+1] : 0.0;
            ax[i] = -r->k[i] * r->x[i] - r->c[i] * r->v[i] + 5.0 * (left + right - 2.0 * r->x[i])
                    + (i == 0 ? drive : 0.0);
            xm[i] = r->x[i] + 0.5 * h * r->v[i];
            vm[i] = r->v[i] + 0.5 * h * ax[i];
        }
        for (int i = 0; i < NCHAN; i++) {
            double left = i > 0 ? xm[i-1] : 0.0, right = i < NCHAN - 1 ? xm[i+1] : 0.0;
            double a = -r->k[i] * xm[i] - r->c[i] * vm[i] + 5.0 * (left + right - 2.0 * xm[i])
                       + (i == 0 ? drive : 0.0);
            r->x[i] += h * vm[i];
            r->v[i] += h * a;
        }
    }
}

static long compact_ring(int fd, int rfd, const char *path, long size)
{
    char *tail = malloc(RING_KEEP);
    long keep = RING_KEEP - RING_KEEP % (long)sizeof(sample_rec);
    if (pread(rfd, tail, keep, size - keep) != keep) fail("pread", path);
    if (ftruncate(fd, 0) != 0) fail("ftruncate", path);
    if (write(fd, tail, keep) != keep) fail("write", path);
    free(tail);
    return keep;
}

static long record_run(const char *ring_path, const char *alarm_path, int *ncompact)
{
    int fd = open(ring_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd < 0) fail("open", ring_path);
    int rfd = open(ring_path, O_RDONLY);
    if (rfd < 0) fail("open", ring_path);
    FILE *alarms = fopen(alarm_path, "w");
    if (!alarms) fail("fopen", alarm_path);

    rig_t rig;
    rig_init(&rig);
    long size = 0;
    double dt = 1.0 / 2000.0;
    double thresh = 0.08;
    *ncompact = 0;
    for (uint32_t seq = 0; seq < NTICKS; seq++) {
        double t = seq * dt;
        rig_step(&rig, t, dt);
        sample_rec rec;
        rec.seq = seq;
        rec.crc = 0;
        rec.t = t;
        for (int i = 0; i < NCHAN; i++)
            rec.ch[i] = (float)(rig.x[i] + 1e-4 * gauss(&rig.noise));
        rec.crc = crc32_buf(&rec, sizeof rec);
        if (write(fd, &rec, sizeof rec) != (ssize_t)sizeof rec) fail("write", ring_path);
        size += sizeof rec;
        for (int i = 0; i < NCHAN; i++) {
            if (fabs(rec.ch[i]) > thresh) {
                fprintf(alarms, "t=%.5f seq=%u ch=%d value=%+.6f\n", t, seq, i, rec.ch[i]);
                if (seq % 64 == 0) fflush(alarms);
            }
        }
        if (size >= RING_CAP) {
            size = compact_ring(fd, rfd, ring_path, size);
            (*ncompact)++;
        }
    }
    fclose(alarms);
    close(rfd);
    close(fd);
    return size;
}

static int replay_ring(const char *ring_path, double *rms, uint32_t *first, uint32_t *last)
{
    FILE *fp = fopen(ring_path, "rb");
    if (!fp) fail("fopen", ring_path);
    sample_rec rec;
    long n = 0;
    int bad = 0;
    double sq[NCHAN] = {0};
    uint32_t prev = 0;
    while (fread(&rec, sizeof rec, 1, fp) == 1) {
        uint32_t stored = rec.crc;
        rec.crc = 0;
        if (crc32_buf(&rec, sizeof rec) != stored) bad++;
        if (n == 0) *first = rec.seq;
        else if (rec.seq != prev + 1) bad++;
        prev = rec.seq;
        for (int i = 0; i < NCHAN; i++) sq[i] += (double)rec.ch[i] * rec.ch[i];
        n++;
    }
    fclose(fp);
    *last = prev;
    for (int i = 0; i < NCHAN; i++) rms[i] = n ? sqrt(sq[i] / n) : 0.0;
    return bad;
}

static long count_lines(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) fail("fopen", path);
    char line[256];
    long n = 0;
    while (fgets(line, sizeof line, fp)) n++;
    fclose(fp);
    return n;
}

static void write_summary(const char *path, long ring_bytes, int ncompact, uint32_t first,
                          uint32_t last, const double *rms, long nalarms)
{
    FILE *fp = fopen(path, "w");
    if (!fp) fail("fopen", path);
    fprintf(fp, "ring_bytes %ld\ncompactions %d\nfirst_seq %u\nlast_seq %u\nalarms %ld\n",
            ring_bytes, ncompact, first, last, nalarms);
    for (int i = 0; i < NCHAN; i++) fprintf(fp, "rms_ch%02d %.6e\n", i, rms[i]);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) fail("mkdir", argv[1]);
    char ring[512], alarm[512], summ[512];
    snprintf(ring, sizeof ring, "%s/telemetry.ring", argv[1]);
    snprintf(alarm, sizeof alarm, "%s/alarms.log", argv[1]);
    snprintf(summ, sizeof summ, "%s/summary.txt", argv[1]);

    crc_init();
    int ncompact;
    long bytes = record_run(ring, alarm, &ncompact);
    double rms[NCHAN];
    uint32_t first = 0, last = 0;
    int bad = replay_ring(ring, rms, &first, &last);
    if (bad || last != NTICKS - 1) {
        fprintf(stderr, "ring_telemetry: replay found %d bad records (last seq %u)\n", bad, last);
        return 1;
    }
    long nal = count_lines(alarm);
    write_summary(summ, bytes, ncompact, first, last, rms, nal);
    printf("ring %ld bytes, %d compactions, %ld alarms\n", bytes, ncompact, nal);
    return 0;
}
