/* Generates a synthetic libpcap capture of IPv4 TCP/UDP traffic, parses it packet by
 * packet into a 5-tuple flow table (with IP header checksum validation), writes a
 * ranked flow report and CSV, and splits the capture into per-protocol pcap files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <sys/stat.h>

#define NPACKETS   420000
#define NHOSTS     120
#define SNAPLEN    96
#define TABLE_BITS 17
#define TABLE_SIZE (1u << TABLE_BITS)
#define TOPN       50

typedef struct { uint32_t magic; uint16_t vmaj, vmin; int32_t zone; uint32_t sigfigs, snaplen, linktype; } pcap_ghdr;
typedef struct { uint32_t ts_sec, ts_usec, caplen, len; } pcap_phdr;

typedef struct {
    uint32_t src, dst;
    uint16_t sport, dport;
    uint8_t proto, used;
    uint64_t packets, bytes;
    uint32_t alerts;
    double first, last;
} flow_t;

#define NSIGS      32
#define SIGLEN     3

static flow_t table[TABLE_SIZE];
static long nflows = 0;
static uint8_t sigs[NSIGS][SIGLEN];
static long sig_hits[NSIGS];

static void fail(const char *msg, const char *path)
{
    fprintf(stderr, "pcap_flow_stats: %s %s: %s\n", msg, path, strerror(errno));
    exit(1);
}

static uint64_t rs = 0x5851f42d4c957f2dULL;
static uint32_t rnd(void)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rs >> 33);
}

static uint16_t ip_checksum(const uint8_t *h, int len)
{
    uint32_t sum = 0;
    for (int i = 0; i < len; i += 2) sum += (uint32_t)(h[i] << 8 | h[i + 1]);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v & 0xff; }
static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static void write_global_header(FILE *fp)
{
    pcap_ghdr g = {0xa1b2c3d4u, 2, 4, 0, 0, SNAPLEN, 1};
    fwrite(&g, sizeof g, 1, fp);
}

static void generate_capture(const char *path)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) fail("cannot create", path);
    write_global_header(fp);
    uint8_t pkt[SNAPLEN];
    double t = 1.7e9;
    uint16_t ipid = 1;
    for (long i = 0; i < NPACKETS; i++) {
        /* Zipf-ish host popularity: a few talkers dominate */
        uint32_t a = rnd() % NHOSTS, b = rnd() % NHOSTS;
        a = a * a / NHOSTS;
        int is_tcp = (rnd() % 10) < 7;
        uint16_t dport = is_tcp ? ((rnd() & 3) ? 443 : 22) : ((rnd() & 1) ? 53 : 123);
        uint16_t sport = (uint16_t)(32768 + (a * 131 + b * 7) % 2048);
        uint32_t paylen = is_tcp ? (rnd() % 1400) : 40 + rnd() % 200;
        uint32_t l4 = is_tcp ? 20 : 8;
        uint32_t wire = 14 + 20 + l4 + paylen;
        uint32_t cap = wire < SNAPLEN ? wire : SNAPLEN;
        memset(pkt, 0, sizeof pkt);
        memcpy(pkt, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02", 12);
        put16(pkt + 12, 0x0800);
        uint8_t *ip = pkt + 14;
        ip[0] = 0x45;
        put16(ip + 2, (uint16_t)(20 + l4 + paylen));
        put16(ip + 4, ipid++);
        ip[8] = 64;
        ip[9] = is_tcp ? 6 : 17;
        put32(ip + 12, 0x0a000000u | a);
        put32(ip + 16, 0x0a010000u | b);
        put16(ip + 10, ip_checksum(ip, 20));
        uint8_t *l4p = ip + 20;
        put16(l4p, sport);
        put16(l4p + 2, dport);
        for (uint32_t k = 14 + 20 + l4; k < cap; k++) pkt[k] = (uint8_t)(rnd() & 0xff);
        t += 1e-5 * (1 + rnd() % 50);
        pcap_phdr ph = {(uint32_t)t, (uint32_t)((t - (uint32_t)t) * 1e6), cap, wire};
        if (fwrite(&ph, sizeof ph, 1, fp) != 1 || fwrite(pkt, 1, cap, fp) != cap)
            fail("write", path);
    }
    if (fclose(fp) != 0) fail("close", path);
}

static void init_signatures(void)
{
    uint64_t s = 0x1234567887654321ULL;
    for (int i = 0; i < NSIGS; i++)
        for (int k = 0; k < SIGLEN; k++) {
            s = s * 2862933555777941757ULL + 3037000493ULL;
            sigs[i][k] = (uint8_t)(s >> 56);
        }
}

/* Naive multi-pattern scan of the captured payload bytes. */
static int sig_scan(const uint8_t *p, uint32_t n)
{
    int found = 0;
    for (int i = 0; i < NSIGS; i++) {
        for (uint32_t j = 0; j + SIGLEN <= n; j++) {
            int k = 0;
            while (k < SIGLEN && p[j + k] == sigs[i][k]) k++;
            if (k == SIGLEN) {
                sig_hits[i]++;
                found++;
                break;
            }
        }
    }
    return found;
}

static flow_t *flow_lookup(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, uint8_t proto)
{
    uint64_t h = ((uint64_t)src * 0x9e3779b1u) ^ ((uint64_t)dst * 0x85ebca6bu) ^
                 ((uint64_t)sport << 16 | dport) * 0xc2b2ae35u ^ proto;
    h ^= h >> 29;
    uint32_t idx = (uint32_t)h & (TABLE_SIZE - 1);
    for (;;) {
        flow_t *f = &table[idx];
        if (!f->used) {
            f->used = 1;
            f->src = src; f->dst = dst; f->sport = sport; f->dport = dport; f->proto = proto;
            nflows++;
            if (nflows > TABLE_SIZE * 3 / 4) {
                fprintf(stderr, "pcap_flow_stats: flow table full\n");
                exit(1);
            }
            return f;
        }
        if (f->src == src && f->dst == dst && f->sport == sport && f->dport == dport && f->proto == proto)
            return f;
        idx = (idx + 1) & (TABLE_SIZE - 1);
    }
}

static long parse_capture(const char *path, long *bad_csum)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) fail("cannot open", path);
    pcap_ghdr g;
    if (fread(&g, sizeof g, 1, fp) != 1 || g.magic != 0xa1b2c3d4u) {
        fprintf(stderr, "pcap_flow_stats: not a pcap file\n");
        exit(1);
    }
    pcap_phdr ph;
    uint8_t pkt[65536];
    long n = 0;
    *bad_csum = 0;
    while (fread(&ph, sizeof ph, 1, fp) == 1) {
        if (ph.caplen > sizeof pkt || fread(pkt, 1, ph.caplen, fp) != ph.caplen) {
            fprintf(stderr, "pcap_flow_stats: truncated packet %ld\n", n);
            exit(1);
        }
        n++;
        if (ph.caplen < 14 + 20 + 4 || get16(pkt + 12) != 0x0800) continue;
        const uint8_t *ip = pkt + 14;
        int ihl = (ip[0] & 0x0f) * 4;
        if (ip_checksum(ip, ihl) != 0) { (*bad_csum)++; continue; }
        const uint8_t *l4 = ip + ihl;
        flow_t *f = flow_lookup(get32(ip + 12), get32(ip + 16), get16(l4), get16(l4 + 2), ip[9]);
        double ts = ph.ts_sec + ph.ts_usec * 1e-6;
        if (f->packets == 0) f->first = ts;
        f->last = ts;
        f->packets++;
        f->bytes += ph.len;
        int l4len = ip[9] == 6 ? 20 : 8;
        int off = 14 + ihl + l4len;
        if ((int)ph.caplen > off) f->alerts += sig_scan(pkt + off, ph.caplen - off);
    }
    fclose(fp);
    return n;
}

static int cmp_bytes(const void *a, const void *b)
{
    const flow_t *x = *(flow_t *const *)a, *y = *(flow_t *const *)b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    return (int)x->sport - (int)y->sport + 65536 * ((int)x->dport - (int)y->dport);
}

static flow_t **rank_flows(void)
{
    flow_t **v = malloc(sizeof(flow_t *) * (nflows > 0 ? nflows : 1));
    long k = 0;
    for (uint32_t i = 0; i < TABLE_SIZE; i++)
        if (table[i].used) v[k++] = &table[i];
    qsort(v, nflows, sizeof(flow_t *), cmp_bytes);
    return v;
}

static void ipstr(uint32_t a, char *s)
{
    sprintf(s, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

static void write_reports(const char *dir, flow_t **v, long npk, long bad)
{
    char path[512], s1[20], s2[20];
    snprintf(path, sizeof path, "%s/top_flows.txt", dir);
    FILE *fp = fopen(path, "w");
    if (!fp) fail("cannot create", path);
    fprintf(fp, "packets %ld flows %ld bad_checksums %ld\n", npk, nflows, bad);
    for (int k = 0; k < NSIGS; k++)
        fprintf(fp, "sig%02d %02x%02x%02x hits %ld\n", k, sigs[k][0], sigs[k][1], sigs[k][2], sig_hits[k]);
    for (long i = 0; i < nflows && i < TOPN; i++) {
        ipstr(v[i]->src, s1);
        ipstr(v[i]->dst, s2);
        double dur = v[i]->last - v[i]->first;
        fprintf(fp, "%3ld %-15s %5u -> %-15s %5u %s %8llu pkts %11llu bytes %8.3f s\n", i + 1,
                s1, v[i]->sport, s2, v[i]->dport, v[i]->proto == 6 ? "tcp" : "udp",
                (unsigned long long)v[i]->packets, (unsigned long long)v[i]->bytes, dur);
    }
    fclose(fp);
    snprintf(path, sizeof path, "%s/flows.csv", dir);
    fp = fopen(path, "w");
    if (!fp) fail("cannot create", path);
    fprintf(fp, "src,sport,dst,dport,proto,packets,bytes,alerts,first,last\n");
    for (long i = 0; i < nflows; i++) {
        ipstr(v[i]->src, s1);
        ipstr(v[i]->dst, s2);
        fprintf(fp, "%s,%u,%s,%u,%u,%llu,%llu,%u,%.6f,%.6f\n", s1, v[i]->sport, s2, v[i]->dport,
                v[i]->proto, (unsigned long long)v[i]->packets, (unsigned long long)v[i]->bytes,
                v[i]->alerts, v[i]->first, v[i]->last);
    }
    fclose(fp);
}

static void split_by_protocol(const char *in, const char *dir, long *ntcp, long *nudp)
{
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/tcp.pcap", dir);
    snprintf(p2, sizeof p2, "%s/udp.pcap", dir);
    FILE *fi = fopen(in, "rb"), *ft = fopen(p1, "wb"), *fu = fopen(p2, "wb");
    if (!fi || !ft || !fu) fail("cannot open split files in", dir);
    pcap_ghdr g;
    if (fread(&g, sizeof g, 1, fi) != 1) fail("read", in);
    write_global_header(ft);
    write_global_header(fu);
    pcap_phdr ph;
    uint8_t pkt[65536];
    *ntcp = *nudp = 0;
    while (fread(&ph, sizeof ph, 1, fi) == 1) {
        if (fread(pkt, 1, ph.caplen, fi) != ph.caplen) fail("read", in);
        FILE *dst = pkt[14 + 9] == 6 ? ft : fu;
        if (dst == ft) (*ntcp)++; else (*nudp)++;
        fwrite(&ph, sizeof ph, 1, dst);
        fwrite(pkt, 1, ph.caplen, dst);
    }
    fclose(fi);
    if (fclose(ft) != 0 || fclose(fu) != 0) fail("close", dir);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) fail("mkdir", argv[1]);
    char cap[512];
    snprintf(cap, sizeof cap, "%s/capture.pcap", argv[1]);
    generate_capture(cap);
    init_signatures();
    long bad;
    long npk = parse_capture(cap, &bad);
    if (npk != NPACKETS) {
        fprintf(stderr, "pcap_flow_stats: parsed %ld of %d packets\n", npk, NPACKETS);
        return 1;
    }
    flow_t **ranked = rank_flows();
    write_reports(argv[1], ranked, npk, bad);
    long nt, nu;
    split_by_protocol(cap, argv[1], &nt, &nu);
    if (nt + nu != npk) {
        fprintf(stderr, "pcap_flow_stats: split count mismatch\n");
        return 1;
    }
    printf("%ld packets, %ld flows, tcp %ld udp %ld\n", npk, nflows, nt, nu);
    free(ranked);
    return 0;
}
