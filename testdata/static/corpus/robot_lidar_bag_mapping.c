/*
 * robot_lidar_bag_mapping.c
 *
 * Records and replays a mobile-robot data log ("bag") and builds occupancy
 * grid maps from it.
 *
 * Recording: a differential-drive robot follows waypoints through a
 * warehouse-like floor (walls, shelving, pillars).  At 10 Hz it ray-casts a
 * 720-beam 2-D lidar scan against the world segments; odometry (with wheel
 * slip noise), ground-truth pose from a motion-capture system and 50 Hz IMU
 * samples are produced too.  Every message is appended to the bag with one
 * writev() (record header + payload) on an O_APPEND descriptor; the bag is
 * split into ~2 MB segment files, and waypoint events go to a text log with
 * dprintf.
 *
 * Replay: each segment is read back with read() in 256 KiB blocks, records
 * are reassembled across block boundaries and CRC-checked, and two
 * log-odds occupancy grids are built by Bresenham ray tracing, one from the
 * odometry poses and one from ground truth.  Map snapshots and the final
 * maps are written as binary PGM with write(); a CSV of pose errors and a
 * map-agreement summary finish the run.
 *
 * usage: robot_lidar_bag_mapping OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
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

#define PI 3.14159265358979323846
#define WORLD_W 40.0
#define WORLD_H 30.0
#define MAXSEG 512
#define NBEAM 720
#define RANGE_MAX 25.0f
#define NSCAN 1800 /* 3 minutes at 10 Hz */
#define IMU_PER_SCAN 5
#define SEGMENT_BYTES (2u << 20)
#define RES 0.1
#define GW 400 /* WORLD_W / RES */
#define GH 300 /* WORLD_H / RES */
#define SNAP_EVERY 300
#define RDBUF (256 * 1024)

enum { MSG_ODOM = 1, MSG_TRUTH = 2, MSG_IMU = 3, MSG_SCAN = 4 };

typedef struct {
    uint32_t magic;
    uint16_t type, flags;
    uint32_t length, crc;
    uint64_t stamp_ns;
} RecHeader;

typedef struct { float x, y, th, v, w; } PoseMsg;
typedef struct { float gz, ax, ay; } ImuMsg;
typedef struct { float angle_min, angle_inc, range_max; uint32_t n; } ScanHead;

typedef struct { double x0, y0, x1, y1; } Seg;

typedef struct {
    int fd, index;
    uint32_t bytes;
    long records, total_bytes, writev_calls;
} Bag;

static const char *outdir;
static Seg world[MAXSEG];
static int nseg;
static uint32_t crc_table[256];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "robot_lidar_bag_mapping: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32c(const void *buf, size_t n, uint32_t c)
{
    const unsigned char *p = buf;
    c = ~c;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return ~c;
}

static void add_box(double x0, double y0, double x1, double y1)
{
    world[nseg++] = (Seg){x0, y0, x1, y0};
    world[nseg++] = (Seg){x1, y0, x1, y1};
    world[nseg++] = (Seg){x1, y1, x0, y1};
    world[nseg++] = (Seg){x0, y1, x0, y0};
}

/* Outer walls, two partition walls with doorways, shelving rows, pillars. */
static void build_world(void)
{
    nseg = 0;
    add_box(0.2, 0.2, WORLD_W - 0.2, WORLD_H - 0.2);
    world[nseg++] = (Seg){14.0, 0.2, 14.0, 12.0};
    world[nseg++] = (Seg){14.0, 14.5, 14.0, 29.8};
    world[nseg++] = (Seg){26.0, 0.2, 26.0, 17.0};
    world[nseg++] = (Seg){26.0, 19.5, 26.0, 29.8};
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 2; c++)
            add_box(28.0 + 5.5 * c, 3.0 + 6.5 * r, 31.5 + 5.5 * c, 4.2 + 6.5 * r);
    for (int r = 0; r < 3; r++) add_box(2.5, 4.0 + 8.0 * r, 10.5, 5.0 + 8.0 * r);
    for (int p = 0; p < 6; p++) { /* 12-gon pillars */
        double cx = 17.0 + 3.5 * (p % 3), cy = 6.0 + 14.0 * (p / 3), r = 0.35;
        for (int k = 0; k < 12; k++) {
            double a0 = 2 * PI * k / 12, a1 = 2 * PI * (k + 1) / 12;
            world[nseg++] = (Seg){cx + r * cos(a0), cy + r * sin(a0), cx + r * cos(a1), cy + r * sin(a1)};
        }
    }
}

/* Ray-cast all beams against all segments (parametric intersection). */
static void raycast_scan(double px, double py, double th, float *ranges, uint8_t *inten, uint64_t noise_seed)
{
    for (int b = 0; b < NBEAM; b++) {
        double a = th - PI + (2 * PI * b) / NBEAM;
        double dx = cos(a), dy = sin(a);
        double best = RANGE_MAX;
        int hit = -1;
        for (int s = 0; s < nseg; s++) {
            double ex = world[s].x1 - world[s].x0, ey = world[s].y1 - world[s].y0;
            double den = dx * ey - dy * ex;
            if (fabs(den) < 1e-12) continue;
            double wx = world[s].x0 - px, wy = world[s].y0 - py;
            double t = (wx * ey - wy * ex) / den;
            if (t <= 0 || t >= best) continue;
            double u = (wx * dy - wy * dx) / den;
            if (u < 0 || u > 1) continue;
            best = t;
            hit = s;
        }
        uint64_t z = noise_seed + (uint64_t)b * 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
        z ^= z >> 29;
        double n = ((double)(z >> 11) / 9007199254740992.0 - 0.5) * 0.03;
        ranges[b] = hit < 0 ? INFINITY : (float)(best + n * (1.0 + 0.05 * best));
        inten[b] = hit < 0 ? 0 : (uint8_t)(255.0 / (1.0 + 0.1 * best) * (hit < 4 ? 0.6 : 1.0));
    }
}

static void bag_open_segment(Bag *bag)
{
    char path[600];
    snprintf(path, sizeof path, "%s/run_%03d.bag", outdir, bag->index);
    bag->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
    if (bag->fd < 0) die("open", path);
    bag->bytes = 0;
}

/* Append one record (header + up to two payload pieces) with writev;
 * roll over to a new segment file when the current one is full. */
static void bag_write(Bag *bag, uint16_t type, uint64_t stamp, const void *p1, size_t n1, const void *p2,
                      size_t n2)
{
    RecHeader h = {0x4741424cu, type, 0, (uint32_t)(n1 + n2), 0, stamp};
    h.crc = crc32c(p1, n1, 0);
    if (n2) h.crc = crc32c(p2, n2, h.crc);
    struct iovec iov[3] = {{&h, sizeof h}, {(void *)p1, n1}, {(void *)p2, n2}};
    int cnt = n2 ? 3 : 2;
    size_t want = sizeof h + n1 + n2;
    ssize_t w = writev(bag->fd, iov, cnt);
    if (w < 0) die("writev", "bag");
    if ((size_t)w != want) { errno = EIO; die("short writev", "bag"); }
    bag->writev_calls++;
    bag->records++;
    bag->bytes += (uint32_t)want;
    bag->total_bytes += (long)want;
    if (bag->bytes >= SEGMENT_BYTES) {
        if (fsync(bag->fd) != 0 || close(bag->fd) != 0) die("close segment", "bag");
        bag->index++;
        bag_open_segment(bag);
    }
}

/* Drive the waypoint loop, producing all sensor messages into the bag. */
static int simulate_drive(Bag *bag, int evfd)
{
    static const double wp[][2] = {{5, 2.5}, {12, 2.5}, {12, 13.2}, {20, 13.2}, {24, 10}, {24, 18.2},
                                   {32, 18.2}, {37, 24}, {30, 27}, {18, 27}, {12, 22}, {6, 27},
                                   {4, 17}, {12, 13.2}, {20, 13.2}, {24, 2.5}, {12, 2.5}, {5, 2.5}};
    const int nwp = (int)(sizeof wp / sizeof wp[0]);
    double x = 5.0, y = 2.5, th = 0.0;          /* truth */
    double ox = x, oy = y, oth = th;            /* odometry */
    int target = 1, reached = 0;
    static float ranges[NBEAM];
    static uint8_t inten[NBEAM];
    const double dt = 0.1;
    uint64_t s = 0x1234abcdULL;
    for (int k = 0; k < NSCAN; k++) {
        uint64_t t_ns = (uint64_t)k * 100000000ULL;
        double gx = wp[target][0] - x, gy = wp[target][1] - y;
        double dist = sqrt(gx * gx + gy * gy);
        double herr = atan2(gy, gx) - th;
        while (herr > PI) herr -= 2 * PI;
        while (herr < -PI) herr += 2 * PI;
        double w = 1.8 * herr;
        if (w > 1.2) w = 1.2;
        if (w < -1.2) w = -1.2;
        double v = fabs(herr) > 0.6 ? 0.1 : (dist < 1.0 ? 0.4 + 0.6 * dist : 1.0);
        for (int i = 0; i < IMU_PER_SCAN; i++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            ImuMsg imu = {(float)(w + 0.01 * ((double)(s % 1000) / 1000 - 0.5)),
                          (float)(0.02 * ((double)((s >> 10) % 1000) / 1000 - 0.5)),
                          (float)(v * w + 0.02 * ((double)((s >> 20) % 1000) / 1000 - 0.5))};
            bag_write(bag, MSG_IMU, t_ns + (uint64_t)i * 20000000ULL, &imu, sizeof imu, NULL, 0);
        }
        /* truth integrates commanded motion; odometry sees slip and scale error */
        x += v * dt * cos(th + 0.5 * w * dt);
        y += v * dt * sin(th + 0.5 * w * dt);
        th += w * dt;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        double slip = 1.0 + 0.02 * ((double)(s % 1000) / 1000 - 0.5);
        double wb = w * 1.012 + 0.004 * ((double)((s >> 12) % 1000) / 1000 - 0.5);
        ox += v * slip * dt * cos(oth + 0.5 * wb * dt);
        oy += v * slip * dt * sin(oth + 0.5 * wb * dt);
        oth += wb * dt;
        PoseMsg odom = {(float)ox, (float)oy, (float)oth, (float)(v * slip), (float)wb};
        PoseMsg truth = {(float)x, (float)y, (float)th, (float)v, (float)w};
        bag_write(bag, MSG_ODOM, t_ns + 100000000ULL, &odom, sizeof odom, NULL, 0);
        bag_write(bag, MSG_TRUTH, t_ns + 100000000ULL, &truth, sizeof truth, NULL, 0);
        raycast_scan(x, y, th, ranges, inten, s);
        ScanHead sh = {(float)-PI, (float)(2 * PI / NBEAM), RANGE_MAX, NBEAM};
        static unsigned char payload[NBEAM * 5];
        memcpy(payload, ranges, sizeof ranges);
        memcpy(payload + sizeof ranges, inten, sizeof inten);
        bag_write(bag, MSG_SCAN, t_ns + 100000000ULL, &sh, sizeof sh, payload, sizeof payload);
        if (dist < 0.3) {
            if (dprintf(evfd, "%.1f waypoint %d reached at (%.2f, %.2f), odom (%.2f, %.2f)\n", t_ns * 1e-9,
                        target, x, y, ox, oy) < 0)
                die("dprintf", "events.log");
            reached++;
            target = (target + 1) % nwp;
        }
    }
    if (fsync(bag->fd) != 0 || close(bag->fd) != 0) die("close segment", "bag");
    return reached;
}

/* Log-odds update along a Bresenham line: free cells, then the hit cell. */
static void integrate_scan(int16_t *grid, double px, double py, double th, const float *ranges)
{
    int x0 = (int)(px / RES), y0 = (int)(py / RES);
    for (int b = 0; b < NBEAM; b += 2) {
        float r = ranges[b];
        int hit = isfinite(r) && r < RANGE_MAX;
        double rr = hit ? r : RANGE_MAX;
        double a = th - PI + (2 * PI * b) / NBEAM;
        int x1 = (int)((px + rr * cos(a)) / RES), y1 = (int)((py + rr * sin(a)) / RES);
        int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
        int err = dx + dy, cx = x0, cy = y0;
        while (cx != x1 || cy != y1) {
            if (cx >= 0 && cx < GW && cy >= 0 && cy < GH) {
                int16_t *c = &grid[cy * GW + cx];
                if (*c > -1200) *c -= 4;
            }
            int e2 = 2 * err;
            if (e2 >= dy) { err += dy; cx += sx; }
            if (e2 <= dx) { err += dx; cy += sy; }
        }
        if (hit && x1 >= 0 && x1 < GW && y1 >= 0 && y1 < GH) {
            int16_t *c = &grid[y1 * GW + x1];
            if (*c < 1200) *c += 9;
        }
    }
}

static void write_pgm(const char *name, const int16_t *grid)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", path);
    char hdr[64];
    int hl = snprintf(hdr, sizeof hdr, "P5\n%d %d\n255\n", GW, GH);
    static unsigned char img[GW * GH];
    for (int y = 0; y < GH; y++)
        for (int x = 0; x < GW; x++) {
            int v = grid[(GH - 1 - y) * GW + x];
            img[y * GW + x] = (unsigned char)(v > 20 ? 0 : v < -20 ? 254 : 205);
        }
    if (write(fd, hdr, (size_t)hl) != hl) die("write", path);
    if (write(fd, img, sizeof img) != (ssize_t)sizeof img) die("write", path);
    if (close(fd) != 0) die("close", path);
}

typedef struct {
    long records, bad_crc, scans, bytes, reads;
    double pos_err_max, pos_err_sum;
} ReplayStats;

/* Read every segment in large blocks, split into records, CRC-check, and
 * feed poses and scans into the two occupancy grids. */
static void replay_bag(int nseg_files, int16_t *g_odom, int16_t *g_truth, ReplayStats *st)
{
    unsigned char *buf = malloc(RDBUF + 65536);
    if (!buf) die("out of memory", NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/pose_error.csv", outdir);
    FILE *csv = fopen(path, "w");
    if (!csv) die("fopen", path);
    fprintf(csv, "t_s,odom_x,odom_y,truth_x,truth_y,err_m,err_deg\n");
    PoseMsg odom = {0}, truth = {0};
    memset(st, 0, sizeof *st);
    for (int sgi = 0; sgi < nseg_files; sgi++) {
        snprintf(path, sizeof path, "%s/run_%03d.bag", outdir, sgi);
        int fd = open(path, O_RDONLY);
        if (fd < 0) die("open", path);
        size_t have = 0;
        for (;;) {
            ssize_t r = read(fd, buf + have, RDBUF);
            if (r < 0) {
                if (errno == EINTR) continue;
                die("read", path);
            }
            st->reads++;
            st->bytes += r;
            have += (size_t)r;
            size_t pos = 0;
            while (have - pos >= sizeof(RecHeader)) {
                RecHeader h;
                memcpy(&h, buf + pos, sizeof h);
                if (h.magic != 0x4741424cu) { errno = EIO; die("bad record magic", path); }
                if (have - pos < sizeof h + h.length) break;
                const unsigned char *pl = buf + pos + sizeof h;
                st->records++;
                if (crc32c(pl, h.length, 0) != h.crc) {
                    st->bad_crc++;
                } else if (h.type == MSG_ODOM) {
                    memcpy(&odom, pl, sizeof odom);
                } else if (h.type == MSG_TRUTH) {
                    memcpy(&truth, pl, sizeof truth);
                } else if (h.type == MSG_SCAN) {
                    static float ranges[NBEAM];
                    memcpy(ranges, pl + sizeof(ScanHead), sizeof ranges);
                    integrate_scan(g_odom, odom.x, odom.y, odom.th, ranges);
                    integrate_scan(g_truth, truth.x, truth.y, truth.th, ranges);
                    st->scans++;
                    double e = hypot(odom.x - truth.x, odom.y - truth.y);
                    double eth = remainder(odom.th - truth.th, 2 * PI) * 180 / PI;
                    if (e > st->pos_err_max) st->pos_err_max = e;
                    st->pos_err_sum += e;
                    if (st->scans % 10 == 0)
                        fprintf(csv, "%.1f,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f\n", h.stamp_ns * 1e-9, odom.x, odom.y,
                                truth.x, truth.y, e, eth);
                    if (st->scans % SNAP_EVERY == 0) {
                        char name[64];
                        snprintf(name, sizeof name, "map_odom_%04ld.pgm", st->scans);
                        write_pgm(name, g_odom);
                    }
                }
                pos += sizeof h + h.length;
            }
            memmove(buf, buf + pos, have - pos);
            have -= pos;
            if (r == 0) break;
        }
        if (have != 0) { errno = EIO; die("truncated record at end of", path); }
        close(fd);
    }
    if (ferror(csv) || fclose(csv) != 0) die("write", "pose_error.csv");
    free(buf);
}

/* Agreement of occupied/free classification between the two maps. */
static void compare_maps(const int16_t *a, const int16_t *b, double *iou, long *occ_a, long *occ_b)
{
    long inter = 0, uni = 0;
    *occ_a = *occ_b = 0;
    for (int i = 0; i < GW * GH; i++) {
        int oa = a[i] > 20, ob = b[i] > 20;
        *occ_a += oa;
        *occ_b += ob;
        inter += oa && ob;
        uni += oa || ob;
    }
    *iou = uni ? (double)inter / uni : 0.0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    crc_init();
    build_world();

    char path[600];
    snprintf(path, sizeof path, "%s/events.log", outdir);
    int evfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
    if (evfd < 0) die("open", path);
    Bag bag = {0};
    bag_open_segment(&bag);
    int reached = simulate_drive(&bag, evfd);
    if (close(evfd) != 0) die("close", path);

    static int16_t g_odom[GW * GH], g_truth[GW * GH];
    ReplayStats st;
    replay_bag(bag.index + 1, g_odom, g_truth, &st);
    write_pgm("map_odometry.pgm", g_odom);
    write_pgm("map_truth.pgm", g_truth);
    double iou;
    long oa, ob;
    compare_maps(g_odom, g_truth, &iou, &oa, &ob);

    snprintf(path, sizeof path, "%s/mapping_summary.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) die("fopen", path);
    fprintf(f, "bag: %d segments, %ld records, %ld bytes, %ld writev calls\n", bag.index + 1, bag.records,
            bag.total_bytes, bag.writev_calls);
    fprintf(f, "replay: %ld records (%ld bad CRC), %ld scans, %ld read calls\n", st.records, st.bad_crc,
            st.scans, st.reads);
    fprintf(f, "odometry drift: max %.3f m, mean %.3f m\n", st.pos_err_max, st.pos_err_sum / st.scans);
    fprintf(f, "occupied cells: odometry %ld, truth %ld, IoU %.3f; waypoints reached %d\n", oa, ob, iou,
            reached);
    if (ferror(f) || fclose(f) != 0) die("write", path);
    printf("bag %d segments, %ld records, %.1f MB; %ld scans replayed, %ld bad CRC\n", bag.index + 1,
           bag.records, bag.total_bytes / 1048576.0, st.scans, st.bad_crc);
    printf("odometry drift max %.2f m; map IoU odometry vs truth %.3f\n", st.pos_err_max, iou);
    return st.bad_crc || st.records != bag.records ? 1 : 0;
}
