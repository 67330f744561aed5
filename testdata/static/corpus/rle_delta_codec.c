/*
 * Streaming delta + run-length codec.
 *
 * A synthetic sensor capture (slow ramps, flat plateaus and noisy bursts) is
 * written to a file.  The encoder streams it through 64 KiB input and output
 * buffers with read()/write(): each byte is replaced by its difference to the
 * previous byte and the differences are packed PackBits-style (control byte
 * < 128: literal run of c+1 bytes; >= 128: the next byte repeated c-125
 * times).  The decoder streams the encoded file back the same way with a
 * small state machine, and the decoded file is compared with the original.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSZ (64 * 1024)
#define INPUT_BYTES (40L * 1024 * 1024)
#define MAX_LIT 128
#define MIN_RUN 3
#define MAX_RUN 130

typedef struct {
    int fd;
    uint8_t buf[BUFSZ];
    size_t len;
    long total;
} outbuf_t;

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int out_flush(outbuf_t *o)
{
    if (o->len && write_all(o->fd, o->buf, o->len) != 0) return -1;
    o->total += (long)o->len;
    o->len = 0;
    return 0;
}

static inline int out_byte(outbuf_t *o, uint8_t b)
{
    if (o->len == BUFSZ && out_flush(o) != 0) return -1;
    o->buf[o->len++] = b;
    return 0;
}

static int generate_capture(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); return -1; }
    uint8_t *buf = malloc(BUFSZ);
    uint32_t s = 2463534242u;
    int level = 100, mode = 0, left = 0, slope = 1;
    for (long done = 0; done < INPUT_BYTES; done += BUFSZ) {
        for (int i = 0; i < BUFSZ; i++) {
            if (left-- <= 0) {
                s ^= s << 13; s ^= s >> 17; s ^= s << 5;
                mode = s % 4;
                left = 50 + (int)((s >> 8) % 3000);
                slope = (int)((s >> 20) % 5) - 2;
            }
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            switch (mode) {
            case 0: break;                                   /* plateau */
            case 1: level += slope; break;                   /* ramp */
            case 2: level += (int)(s % 7) - 3; break;        /* random walk */
            default: level = 128 + (int)(s % 41) - 20; break; /* noisy burst */
            }
            buf[i] = (uint8_t)level;
        }
        if (write_all(fd, buf, BUFSZ) != 0) { close(fd); free(buf); return -1; }
    }
    free(buf);
    return close(fd);
}

static int emit_literals(outbuf_t *o, const uint8_t *lit, int n)
{
    while (n > 0) {
        int k = n > MAX_LIT ? MAX_LIT : n;
        if (out_byte(o, (uint8_t)(k - 1)) != 0) return -1;
        for (int i = 0; i < k; i++)
            if (out_byte(o, lit[i]) != 0) return -1;
        lit += k;
        n -= k;
    }
    return 0;
}

/* Runs and literals are not carried across input buffers; the delta state is. */
static long encode_file(const char *inpath, const char *outpath, long *in_total)
{
    int in = open(inpath, O_RDONLY);
    outbuf_t *o = malloc(sizeof *o);
    o->fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    o->len = 0;
    o->total = 0;
    if (in < 0 || o->fd < 0) { perror("encode open"); return -1; }
    uint8_t *ibuf = malloc(BUFSZ), *d = malloc(BUFSZ);
    uint8_t prev = 0;
    ssize_t n;
    *in_total = 0;
    while ((n = read(in, ibuf, BUFSZ)) > 0) {
        *in_total += n;
        for (ssize_t i = 0; i < n; i++) {
            d[i] = (uint8_t)(ibuf[i] - prev);
            prev = ibuf[i];
        }
        ssize_t i = 0, lit_start = 0;
        while (i < n) {
            ssize_t r = 1;
            while (i + r < n && r < MAX_RUN && d[i + r] == d[i]) r++;
            if (r >= MIN_RUN) {
                if (emit_literals(o, d + lit_start, (int)(i - lit_start)) != 0) return -1;
                if (out_byte(o, (uint8_t)(r + 125)) != 0 || out_byte(o, d[i]) != 0) return -1;
                i += r;
                lit_start = i;
            } else {
                i += r;
            }
        }
        if (emit_literals(o, d + lit_start, (int)(n - lit_start)) != 0) return -1;
    }
    if (n < 0 || out_flush(o) != 0) return -1;
    long total = o->total;
    close(in);
    if (close(o->fd) != 0) total = -1;
    free(o); free(ibuf); free(d);
    return total;
}

enum dstate { WANT_CTRL, IN_LITERAL, WANT_RUN_BYTE };

static long decode_file(const char *inpath, const char *outpath)
{
    int in = open(inpath, O_RDONLY);
    outbuf_t *o = malloc(sizeof *o);
    o->fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    o->len = 0;
    o->total = 0;
    if (in < 0 || o->fd < 0) { perror("decode open"); return -1; }
    uint8_t *ibuf = malloc(BUFSZ);
    enum dstate st = WANT_CTRL;
    int count = 0;
    uint8_t prev = 0;
    ssize_t n;
    while ((n = read(in, ibuf, BUFSZ)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            uint8_t b = ibuf[i];
            switch (st) {
            case WANT_CTRL:
                if (b < 128) { count = b + 1; st = IN_LITERAL; }
                else { count = b - 125; st = WANT_RUN_BYTE; }
                break;
            case IN_LITERAL:
                prev = (uint8_t)(prev + b);
                if (out_byte(o, prev) != 0) return -1;
                if (--count == 0) st = WANT_CTRL;
                break;
            case WANT_RUN_BYTE:
                for (int k = 0; k < count; k++) {
                    prev = (uint8_t)(prev + b);
                    if (out_byte(o, prev) != 0) return -1;
                }
                st = WANT_CTRL;
                break;
            }
        }
    }
    if (n < 0 || st != WANT_CTRL) { fprintf(stderr, "truncated encoded stream\n"); return -1; }
    if (out_flush(o) != 0) return -1;
    long total = o->total;
    close(in);
    if (close(o->fd) != 0) total = -1;
    free(o); free(ibuf);
    return total;
}

static long compare_files(const char *a, const char *b)
{
    int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
    if (fa < 0 || fb < 0) return -1;
    uint8_t *ba = malloc(BUFSZ), *bb = malloc(BUFSZ);
    long pos = 0, first_diff = -2;
    for (;;) {
        ssize_t na = read(fa, ba, BUFSZ), nb = read(fb, bb, BUFSZ);
        if (na != nb) { first_diff = pos; break; }
        if (na <= 0) break;
        if (memcmp(ba, bb, (size_t)na) != 0) {
            for (ssize_t i = 0; i < na; i++)
                if (ba[i] != bb[i]) { first_diff = pos + i; break; }
            break;
        }
        pos += na;
    }
    close(fa); close(fb);
    free(ba); free(bb);
    return first_diff;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char raw[4096], enc[4096], dec[4096];
    snprintf(raw, sizeof raw, "%s/capture.raw", argv[1]);
    snprintf(enc, sizeof enc, "%s/capture.drle", argv[1]);
    snprintf(dec, sizeof dec, "%s/capture.decoded", argv[1]);

    if (generate_capture(raw) != 0) return 1;
    long in_total = 0;
    long enc_total = encode_file(raw, enc, &in_total);
    if (enc_total < 0) { fprintf(stderr, "encode failed\n"); return 1; }
    long dec_total = decode_file(enc, dec);
    if (dec_total < 0) { fprintf(stderr, "decode failed\n"); return 1; }
    long diff = compare_files(raw, dec);
    printf("rle_delta_codec: %ld -> %ld bytes (ratio %.3f), decoded %ld, %s\n", in_total, enc_total,
           (double)enc_total / in_total, dec_total, diff == -2 ? "round trip ok" : "MISMATCH");
    if (diff != -2) {
        fprintf(stderr, "first difference at byte %ld\n", diff);
        return 1;
    }
    return dec_total == in_total ? 0 : 1;
}
