/* Satellite telemetry ground-station front end.
 * Generates a raw downlink capture of CCSDS-style transfer frames (attached
 * sync marker, primary header with virtual channel and counters, first header
 * pointer, CRC-16 frame error control) carrying space packets from several
 * instruments, with injected bit errors, dropped frames and garbage gaps.
 * The processor reads the capture in large chunks with fread, acquires and
 * tracks frame sync, checks CRCs and counters, reassembles packets that span
 * frames per virtual channel, routes them by APID into per-instrument packet
 * files (small setvbuf buffers), decodes housekeeping into calibrated
 * engineering values (CSV), and finally re-reads the frames flagged bad with
 * fseek/fread for an anomaly report. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASM_WORD 0x1ACFFC1Du
#define FRAME_LEN 1111 /* after the 4-byte ASM */
#define HDR_LEN 6
#define DATA_LEN (FRAME_LEN - HDR_LEN - 2)
#define NFRAMES 15000
#define NVC 4
#define NHK 4
#define NSCI 3
#define HK_CH 16
#define NO_PKT 0x7FF
#define CHUNK (1 << 16)
#define MAXBAD 4096

static char outdir[4000];
static uint16_t crc_tab[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "tm_demux: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint64_t rs = 0x5a7e111e7e1eull;
static uint32_t rnd(uint32_t n)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rs >> 33) % n);
}

static void crc_init(void)
{
    for (int i = 0; i < 256; i++) {
        uint16_t c = (uint16_t)(i << 8);
        for (int b = 0; b < 8; b++) c = (uint16_t)((c & 0x8000) ? (c << 1) ^ 0x1021 : c << 1);
        crc_tab[i] = c;
    }
}

static uint16_t crc16(const uint8_t *p, size_t n)
{
    uint16_t c = 0xFFFF;
    while (n--) c = (uint16_t)((c << 8) ^ crc_tab[((c >> 8) ^ *p++) & 0xFF]);
    return c;
}

/* ---------------- capture generation ---------------- */

typedef struct {
    uint8_t *buf;
    size_t len, cap;
} bytes_t;

static void bput(bytes_t *b, const uint8_t *p, size_t n)
{
    if (b->len + n > b->cap) {
        while (b->len + n > b->cap) b->cap = b->cap ? 2 * b->cap : 1 << 16;
        b->buf = realloc(b->buf, b->cap);
        if (!b->buf) { fprintf(stderr, "out of memory\n"); exit(1); }
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

static uint16_t seq_count[0x800];

/* One space packet: HK (APID 0x10+i) or science line (APID 0x100+i). */
static size_t make_packet(uint8_t *pkt, int apid, double t)
{
    size_t dlen;
    uint8_t *d = pkt + HDR_LEN;
    /* secondary header: 4-byte coarse time */
    uint32_t ct = (uint32_t)t;
    d[0] = (uint8_t)(ct >> 24); d[1] = (uint8_t)(ct >> 16); d[2] = (uint8_t)(ct >> 8); d[3] = (uint8_t)ct;
    if (apid < 0x100) {
        for (int c = 0; c < HK_CH; c++) {
            double v = 2048 + 1200 * sin(t / (300.0 + 37 * c) + apid) + rnd(20);
            uint16_t r = (uint16_t)v;
            d[4 + 2 * c] = (uint8_t)(r >> 8);
            d[5 + 2 * c] = (uint8_t)r;
        }
        dlen = 4 + 2 * HK_CH;
    } else {
        int npx = 600 + (int)rnd(400);
        int base = 100 + (apid & 0xF) * 30;
        for (int k = 0; k < npx; k++)
            d[4 + k] = (uint8_t)(base + 60 * sin(k * 0.03 + t * 0.01) + rnd(16));
        dlen = 4 + (size_t)npx;
    }
    uint16_t sc = seq_count[apid]++ & 0x3FFF;
    pkt[0] = (uint8_t)(0x08 | ((apid >> 8) & 0x7));
    pkt[1] = (uint8_t)apid;
    pkt[2] = (uint8_t)(0xC0 | (sc >> 8));
    pkt[3] = (uint8_t)sc;
    pkt[4] = (uint8_t)((dlen - 1) >> 8);
    pkt[5] = (uint8_t)(dlen - 1);
    return HDR_LEN + dlen;
}

static void generate_capture(const char *path, long *injected_bad)
{
    FILE *f = fopen(path, "wb");
    if (!f) die("fopen", path);
    bytes_t q[NVC] = {{0}};
    uint8_t vc_cnt[NVC] = {0}, mc = 0;
    uint8_t frame[4 + FRAME_LEN], pkt[2048];
    double t = 0.0;
    *injected_bad = 0;
    for (int fr = 0; fr < NFRAMES; fr++) {
        int vc = fr % 7 == 0 ? 0 : (fr % 7 < 4 ? 1 : (fr % 7 < 6 ? 2 : 3));
        /* keep each VC's packet queue at least one data field deep */
        while (q[vc].len < DATA_LEN) {
            t += 0.25;
            int apid = vc == 0 ? 0x10 + (int)rnd(NHK) : 0x100 + (vc - 1) % NSCI;
            size_t n = make_packet(pkt, apid, t);
            bput(&q[vc], pkt, n);
        }
        /* first header pointer: locate the first packet boundary in the queue */
        frame[0] = (uint8_t)(ASM_WORD >> 24); frame[1] = (uint8_t)(ASM_WORD >> 16);
        frame[2] = (uint8_t)(ASM_WORD >> 8); frame[3] = (uint8_t)ASM_WORD;
        uint8_t *h = frame + 4;
        h[0] = (uint8_t)(0x00 | (0x2A >> 6));
        h[1] = (uint8_t)(((0x2A & 0x3F) << 2) | 0) ; /* scid 0x2A */
        h[1] = (uint8_t)((h[1] & 0xF1) | (vc << 1));
        h[2] = mc++;
        h[3] = vc_cnt[vc]++;
        /* boundary offsets were tracked implicitly: scan queue headers */
        static size_t vc_skip[NVC]; /* bytes of a packet continuing into this frame */
        uint16_t fhp = vc_skip[vc] >= DATA_LEN ? NO_PKT : (uint16_t)vc_skip[vc];
        h[4] = (uint8_t)(fhp >> 8);
        h[5] = (uint8_t)fhp;
        memcpy(h + HDR_LEN, q[vc].buf, DATA_LEN);
        /* compute how much of the last packet spills into the next frame */
        size_t pos = vc_skip[vc];
        while (pos < DATA_LEN) {
            size_t plen = HDR_LEN + ((size_t)q[vc].buf[pos + 4] << 8 | q[vc].buf[pos + 5]) + 1;
            pos += plen;
        }
        vc_skip[vc] = pos - DATA_LEN;
        memmove(q[vc].buf, q[vc].buf + DATA_LEN, q[vc].len - DATA_LEN);
        q[vc].len -= DATA_LEN;
        uint16_t c = crc16(h, FRAME_LEN - 2);
        h[FRAME_LEN - 2] = (uint8_t)(c >> 8);
        h[FRAME_LEN - 1] = (uint8_t)c;
        /* channel impairments */
        uint32_t r = rnd(1000);
        if (r < 4) continue; /* frame lost entirely */
        if (r < 12) {        /* bit errors */
            h[HDR_LEN + rnd(DATA_LEN)] ^= (uint8_t)(1u << rnd(8));
            (*injected_bad)++;
        }
        if (fwrite(frame, 1, sizeof frame, f) != sizeof frame) die("fwrite", path);
        if (r >= 995) { /* receiver glitch: garbage bytes between frames */
            uint8_t junk[300];
            size_t nj = 17 + rnd(280);
            for (size_t k = 0; k < nj; k++) junk[k] = (uint8_t)rnd(256);
            if (fwrite(junk, 1, nj, f) != nj) die("fwrite", path);
        }
    }
    for (int v = 0; v < NVC; v++) free(q[v].buf);
    if (fclose(f) != 0) die("fclose", path);
}

/* ---------------- processing ---------------- */

typedef struct {
    uint8_t buf[4096];
    size_t len;
    int valid; /* currently assembling a packet whose start we saw */
    int last_cnt;
} vcstate_t;

typedef struct {
    FILE *pkt_files[0x800];
    FILE *hk_csv;
    long packets[0x800], frames_ok, frames_crc, frames_gap, packets_dropped, sync_losses;
    long bad_off[MAXBAD];
    int nbad;
    double hk_sum[NHK][HK_CH];
    long hk_n[NHK];
} proc_t;

static FILE *packet_file(proc_t *P, int apid)
{
    if (!P->pkt_files[apid]) {
        char path[4200];
        snprintf(path, sizeof path, "%s/apid_%03x.pkts", outdir, apid);
        FILE *f = fopen(path, "wb");
        if (!f) die("fopen", path);
        if (setvbuf(f, NULL, _IOFBF, 8192) != 0) die("setvbuf", path);
        P->pkt_files[apid] = f;
    }
    return P->pkt_files[apid];
}

/* Housekeeping calibration: 3rd-order polynomial per channel. */
static void decode_hk(proc_t *P, int apid, const uint8_t *d)
{
    int k = apid - 0x10;
    uint32_t ct = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
    if (fprintf(P->hk_csv, "%u,0x%03x", ct, apid) < 0) die("fprintf", "hk.csv");
    for (int c = 0; c < HK_CH; c++) {
        double raw = (double)((uint16_t)d[4 + 2 * c] << 8 | d[5 + 2 * c]);
        double x = raw / 4095.0;
        double eng = (c < 8) ? -40.0 + 125.0 * x + 3.0 * x * x - 1.5 * x * x * x /* degC */
                             : 28.0 * x * (1.0 + 0.01 * x) /* volts */;
        P->hk_sum[k][c] += eng;
        if (fprintf(P->hk_csv, ",%.3f", eng) < 0) die("fprintf", "hk.csv");
    }
    if (fputc('\n', P->hk_csv) == EOF) die("fputc", "hk.csv");
    P->hk_n[k]++;
}

static void emit_packet(proc_t *P, const uint8_t *pkt, size_t len)
{
    int apid = ((pkt[0] & 7) << 8) | pkt[1];
    FILE *f = packet_file(P, apid);
    if (fwrite(pkt, 1, len, f) != len) die("fwrite", "packet file");
    P->packets[apid]++;
    if (apid >= 0x10 && apid < 0x10 + NHK) decode_hk(P, apid, pkt + HDR_LEN);
}

/* Feed the data field of a good frame to the VC's packet reassembler. */
static void process_frame(proc_t *P, vcstate_t *vs, const uint8_t *h)
{
    int vc = (h[1] >> 1) & 7;
    if (vc >= NVC) return;
    vcstate_t *s = &vs[vc];
    int cnt = h[3];
    if (s->last_cnt >= 0 && ((s->last_cnt + 1) & 0xFF) != cnt) {
        P->frames_gap++;
        if (s->valid && s->len) P->packets_dropped++;
        s->valid = 0;
        s->len = 0;
    }
    s->last_cnt = cnt;
    uint16_t fhp = (uint16_t)((h[4] << 8 | h[5]) & 0x7FF);
    const uint8_t *d = h + HDR_LEN;
    size_t pos = 0;
    if (!s->valid) {
        if (fhp == NO_PKT) return;
        pos = fhp;
        s->valid = 1;
        s->len = 0;
    }
    while (pos < DATA_LEN) {
        /* need the header to know the length */
        size_t need = s->len < HDR_LEN ? HDR_LEN - s->len : 0;
        if (need) {
            size_t take = need < DATA_LEN - pos ? need : DATA_LEN - pos;
            memcpy(s->buf + s->len, d + pos, take);
            s->len += take;
            pos += take;
            if (s->len < HDR_LEN) break;
        }
        size_t plen = HDR_LEN + ((size_t)s->buf[4] << 8 | s->buf[5]) + 1;
        if (plen > sizeof s->buf) { s->valid = 0; s->len = 0; P->packets_dropped++; break; }
        size_t take = plen - s->len;
        if (take > DATA_LEN - pos) take = DATA_LEN - pos;
        memcpy(s->buf + s->len, d + pos, take);
        s->len += take;
        pos += take;
        if (s->len == plen) {
            emit_packet(P, s->buf, plen);
            s->len = 0;
        }
    }
}

/* Chunked reader with sync acquisition: search for the ASM, then expect it
 * every 4+FRAME_LEN bytes; on a miss drop back to searching. */
static void demux_capture(const char *path, proc_t *P)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen", path);
    size_t cap = CHUNK + 2 * (4 + FRAME_LEN);
    uint8_t *buf = malloc(cap);
    if (!buf) { fprintf(stderr, "out of memory\n"); exit(1); }
    size_t have = 0, pos = 0;
    long base = 0; /* file offset of buf[0] */
    vcstate_t vs[NVC];
    memset(vs, 0, sizeof vs);
    for (int v = 0; v < NVC; v++) vs[v].last_cnt = -1;
    int locked = 0;
    for (;;) {
        if (have - pos < 4 + FRAME_LEN) {
            memmove(buf, buf + pos, have - pos);
            base += (long)pos;
            have -= pos;
            pos = 0;
            size_t got = fread(buf + have, 1, cap - have, f);
            if (ferror(f)) die("fread", path);
            have += got;
            if (have < 4 + FRAME_LEN) break;
        }
        uint32_t w = (uint32_t)buf[pos] << 24 | (uint32_t)buf[pos + 1] << 16 | (uint32_t)buf[pos + 2] << 8 |
                     buf[pos + 3];
        if (w != ASM_WORD) {
            if (locked) { P->sync_losses++; locked = 0; }
            pos++;
            continue;
        }
        locked = 1;
        const uint8_t *h = buf + pos + 4;
        uint16_t c = (uint16_t)(h[FRAME_LEN - 2] << 8 | h[FRAME_LEN - 1]);
        if (crc16(h, FRAME_LEN - 2) != c) {
            P->frames_crc++;
            if (P->nbad < MAXBAD) P->bad_off[P->nbad++] = base + (long)pos;
            int vc = (h[1] >> 1) & 7;
            if (vc < NVC) { vs[vc].valid = 0; vs[vc].len = 0; vs[vc].last_cnt = h[3]; }
        } else {
            P->frames_ok++;
            process_frame(P, vs, h);
        }
        pos += 4 + FRAME_LEN;
    }
    free(buf);
    fclose(f);
}

/* Re-read the CRC-failed frames by offset and characterise the damage. */
static void anomaly_report(const char *cap_path, proc_t *P)
{
    FILE *f = fopen(cap_path, "rb");
    if (!f) die("fopen", cap_path);
    char path[4200];
    snprintf(path, sizeof path, "%s/anomalies.txt", outdir);
    FILE *o = fopen(path, "w");
    if (!o) die("fopen", path);
    uint8_t fr[4 + FRAME_LEN];
    for (int i = 0; i < P->nbad; i++) {
        if (fseek(f, P->bad_off[i], SEEK_SET) != 0) die("fseek", cap_path);
        if (fread(fr, 1, sizeof fr, f) != sizeof fr) die("fread", cap_path);
        const uint8_t *h = fr + 4;
        /* syndrome: which single bit flip (if any) repairs the CRC */
        int fixbit = -1;
        uint8_t tmp[FRAME_LEN];
        memcpy(tmp, h, FRAME_LEN);
        uint16_t want = (uint16_t)(h[FRAME_LEN - 2] << 8 | h[FRAME_LEN - 1]);
        for (int b = HDR_LEN * 8; b < (FRAME_LEN - 2) * 8 && fixbit < 0; b += 1) {
            tmp[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
            if (crc16(tmp, FRAME_LEN - 2) == want) fixbit = b;
            tmp[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
            if (b > HDR_LEN * 8 + 2047) break; /* bounded search per frame */
        }
        if (fprintf(o, "offset %ld vc %d vccount %d master %d correctable_bit %d\n", P->bad_off[i], (h[1] >> 1) & 7,
                    h[3], h[2], fixbit) < 0)
            die("fprintf", path);
    }
    fclose(f);
    if (fclose(o) != 0) die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    crc_init();
    char cap[4200], path[4200];
    snprintf(cap, sizeof cap, "%s/downlink.raw", outdir);
    long injected;
    generate_capture(cap, &injected);

    static proc_t P;
    snprintf(path, sizeof path, "%s/housekeeping.csv", outdir);
    P.hk_csv = fopen(path, "w");
    if (!P.hk_csv) die("fopen", path);
    if (fprintf(P.hk_csv, "coarse_time,apid,T0,T1,T2,T3,T4,T5,T6,T7,V0,V1,V2,V3,V4,V5,V6,V7\n") < 0)
        die("fprintf", path);
    demux_capture(cap, &P);
    if (fclose(P.hk_csv) != 0) die("fclose", path);
    long npk = 0;
    int napid = 0;
    for (int a = 0; a < 0x800; a++)
        if (P.pkt_files[a]) {
            if (fclose(P.pkt_files[a]) != 0) die("fclose", "packet file");
            npk += P.packets[a];
            napid++;
        }
    anomaly_report(cap, &P);

    snprintf(path, sizeof path, "%s/pass_summary.txt", outdir);
    FILE *s = fopen(path, "w");
    if (!s) die("fopen", path);
    int ok = fprintf(s, "frames_ok %ld crc_fail %ld (injected %ld) counter_gaps %ld sync_losses %ld\n", P.frames_ok,
                     P.frames_crc, injected, P.frames_gap, P.sync_losses) > 0;
    ok &= fprintf(s, "packets %ld in %d apids, dropped partial packets %ld\n", npk, napid, P.packets_dropped) > 0;
    for (int k = 0; k < NHK; k++)
        ok &= fprintf(s, "hk apid 0x%03x packets %ld mean T0 %.2f mean V0 %.3f\n", 0x10 + k, P.hk_n[k],
                      P.hk_n[k] ? P.hk_sum[k][0] / P.hk_n[k] : 0.0, P.hk_n[k] ? P.hk_sum[k][8] / P.hk_n[k] : 0.0) > 0;
    if (!ok || fclose(s) != 0) die("write", path);
    printf("tm demux: %ld good frames, %ld CRC failures, %ld gaps, %ld packets in %d APIDs\n", P.frames_ok,
           P.frames_crc, P.frames_gap, npk, napid);
    return 0;
}
