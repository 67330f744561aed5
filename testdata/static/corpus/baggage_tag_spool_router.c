/*
 * baggage_tag_spool_router.c
 *
 * Airport baggage handling system (BHS) replay with a file-per-bag spool.
 *
 * Every checked bag is a small text record (bag tag, flight, passenger,
 * appended scan events) that moves through a directory tree mirroring the
 * physical system:
 *
 *   checkin/Cnn/ -> screening/L1|L2|L3/ -> sorter/LATnn/ -> makeup/FLIGHT/
 *                -> loaded/FLIGHT/          (or mishandled/ -> rush to a later flight)
 *
 * The day is replayed in 10-minute ticks.  Each tick creates the bags
 * checked in during that interval, scans the spool directories with
 * opendir/readdir, reads each bag record, decides screening outcomes
 * (multi-level hold baggage screening; alarmed bags get an X-ray image
 * written to the image store for the operator), routes cleared bags over the
 * conveyor network with Dijkstra (segment jams vary over the day), moves
 * records between directories with rename() and appends scan events with
 * O_APPEND writes.  Flights close at departure minus 20 minutes: bags in the
 * makeup area are loaded, late bags are declared mishandled and re-booked.
 *
 * After the last flight an audit walks the whole tree (lstat every entry),
 * each flight's loaded bags are concatenated into a per-flight archive and
 * unlinked, emptied directories are removed, and a report is written.
 *
 * usage: baggage_tag_spool_router OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCOUNTER 36
#define NLATERAL 24
#define NFLIGHT 24
#define NNODE 420          /* conveyor segments */
#define MAXBAG 16000
#define TICK 10            /* minutes */
#define DAY_START (4 * 60 + 30)
#define DAY_END (23 * 60 + 30)

typedef struct {
    char code[8];
    char dest[4];
    int dep_min, lateral, closed, nbags, nloaded, nmishandled;
} flight;

typedef struct {
    int to;
    float w;
} edge;

static const char *g_dir;
static uint64_t g_rng = 0xBA66A6E5ull;
static flight flights[NFLIGHT];
static edge adj[NNODE][6];
static int nadj[NNODE];
static float jam[NNODE];
static int lateral_node[NLATERAL];
static int screen_exit_node;
static long stat_renames, stat_appends, stat_creates, stat_scans;
static FILE *g_journal; /* central BSM-style telegram journal */

/* per-bag timing that would come from PLC telegrams in a real BHS */
static int bag_ready_at[MAXBAG];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "baggage_tag_spool_router: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static void jpath(char *buf, size_t n, const char *fmt_dir, const char *name)
{
    int r = name ? snprintf(buf, n, "%s/%s/%s", g_dir, fmt_dir, name) : snprintf(buf, n, "%s/%s", g_dir, fmt_dir);
    if (r < 0 || (size_t)r >= n) {
        fprintf(stderr, "path too long\n");
        exit(1);
    }
}

static void make_dir(const char *rel)
{
    char p[4096];
    jpath(p, sizeof p, rel, NULL);
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        die("mkdir", p);
}

static void create_tree(void)
{
    static const char *top[] = {"checkin", "screening", "screening/L1", "screening/L2", "screening/L3",
                                "screening/images", "sorter",
                                "makeup", "loaded", "mishandled", "archive"};
    char rel[256];
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        make_dir(top[i]);
    for (int c = 0; c < NCOUNTER; c++) {
        snprintf(rel, sizeof rel, "checkin/C%02d", c + 1);
        make_dir(rel);
    }
    for (int l = 0; l < NLATERAL; l++) {
        snprintf(rel, sizeof rel, "sorter/LAT%02d", l + 1);
        make_dir(rel);
    }
    for (int f = 0; f < NFLIGHT; f++) {
        snprintf(rel, sizeof rel, "makeup/%.7s", flights[f].code);
        make_dir(rel);
        snprintf(rel, sizeof rel, "loaded/%.7s", flights[f].code);
        make_dir(rel);
    }
}

static void plan_flights(void)
{
    static const char *dests[] = {"LHR", "CDG", "FRA", "AMS", "MAD", "FCO", "CPH", "OSL", "ARN", "HEL",
                                  "VIE", "ZRH", "BRU", "DUB", "LIS", "ATH", "WAW", "PRG"};
    static const char *airl[] = {"NV", "KQ", "TB", "SX"};
    for (int f = 0; f < NFLIGHT; f++) {
        snprintf(flights[f].code, sizeof flights[f].code, "%s%04d", airl[f % 4], 100 + 7 * f);
        memcpy(flights[f].dest, dests[(f * 7) % 18], 4);
        flights[f].dep_min = 6 * 60 + (int)((double)f / NFLIGHT * (17 * 60)) + (int)(urand() * 8);
        flights[f].lateral = f % NLATERAL;
        flights[f].closed = 0;
        flights[f].nbags = flights[f].nloaded = flights[f].nmishandled = 0;
    }
}

/* Conveyor network: a layered grid of segments from screening exit to the
 * laterals with merges and diverters. */
static void build_conveyors(void)
{
    int cols = 20, rows = NNODE / cols;
    for (int n = 0; n < NNODE; n++)
        nadj[n] = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int n = r * cols + c;
            if (c + 1 < cols) {
                adj[n][nadj[n]++] = (edge){n + 1, (float)(0.3 + 0.4 * urand())};
            }
            if (r + 1 < rows) {
                adj[n][nadj[n]++] = (edge){n + cols, (float)(0.5 + 0.5 * urand())};
            }
            if (r + 1 < rows && c + 1 < cols && urand() < 0.3) {
                adj[n][nadj[n]++] = (edge){n + cols + 1, (float)(0.6 + 0.6 * urand())};
            }
            if (c > 0 && urand() < 0.2) {
                adj[n][nadj[n]++] = (edge){n - 1, (float)(0.4 + 0.3 * urand())};
            }
        }
    screen_exit_node = 0;
    for (int l = 0; l < NLATERAL; l++)
        lateral_node[l] = (rows - 1) * cols + (l * cols) / NLATERAL;
}

/* Dijkstra with a binary heap; returns transit minutes to the lateral and
 * the segment path (screening exit first) in path[0..*hops]. */
static double route_bag(int lateral, int *hops, int *path)
{
    static float dist[NNODE];
    static int prev[NNODE], heap[NNODE * 6 + 1];
    static float hkey[NNODE * 6 + 1];
    int hn = 0;
    for (int i = 0; i < NNODE; i++) {
        dist[i] = 1e30f;
        prev[i] = -1;
    }
    dist[screen_exit_node] = 0.0f;
    heap[0] = screen_exit_node;
    hkey[0] = 0.0f;
    hn = 1;
    while (hn > 0) {
        int u = heap[0];
        float du = hkey[0];
        hn--;
        heap[0] = heap[hn];
        hkey[0] = hkey[hn];
        for (int i = 0;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < hn && hkey[l] < hkey[m])
                m = l;
            if (r < hn && hkey[r] < hkey[m])
                m = r;
            if (m == i)
                break;
            int th = heap[i];
            float tk = hkey[i];
            heap[i] = heap[m];
            hkey[i] = hkey[m];
            heap[m] = th;
            hkey[m] = tk;
            i = m;
        }
        if (du > dist[u])
            continue;
        for (int k = 0; k < nadj[u]; k++) {
            int v = adj[u][k].to;
            float nd = du + adj[u][k].w * jam[v];
            if (nd < dist[v]) {
                dist[v] = nd;
                prev[v] = u;
                int i = hn++;
                heap[i] = v;
                hkey[i] = nd;
                while (i > 0 && hkey[(i - 1) / 2] > hkey[i]) {
                    int p = (i - 1) / 2;
                    int th = heap[i];
                    float tk = hkey[i];
                    heap[i] = heap[p];
                    hkey[i] = hkey[p];
                    heap[p] = th;
                    hkey[p] = tk;
                    i = p;
                }
            }
        }
    }
    int t = lateral_node[lateral], h = 0;
    while (t != screen_exit_node && t >= 0) {
        t = prev[t];
        h++;
    }
    *hops = h;
    t = lateral_node[lateral];
    for (int k = h; k >= 0 && t >= 0; k--) {
        path[k] = t;
        t = prev[t];
    }
    return dist[lateral_node[lateral]];
}

static void append_event(const char *path, int minute, const char *what)
{
    char line[600];
    int n = snprintf(line, sizeof line, "EVT %02d:%02d %s\n", minute / 60, minute % 60, what);
    const char *base = strrchr(path, '/');
    if (fprintf(g_journal, "%02d:%02d %.10s %s\n", minute / 60, minute % 60, base ? base + 1 : path, what) < 0)
        die("write", "journal.log");
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0)
        die("open append", path);
    if (write(fd, line, (size_t)n) != n)
        die("write", path);
    if (close(fd) != 0)
        die("close", path);
    stat_appends++;
}

static void move_bag(const char *from_dir, const char *to_dir, const char *name)
{
    char a[4096], b[4096];
    jpath(a, sizeof a, from_dir, name);
    jpath(b, sizeof b, to_dir, name);
    if (rename(a, b) != 0)
        die("rename", a);
    stat_renames++;
}

/* Read the record and extract tag number and flight index. */
static int read_bag(const char *path, int *tag, int *fidx, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die("open", path);
    ssize_t n = read(fd, buf, cap - 1);
    if (n < 0)
        die("read", path);
    if (close(fd) != 0)
        die("close", path);
    buf[n] = '\0';
    char fl[16];
    if (sscanf(buf, "TAG %d\nFLT %15s", tag, fl) != 2) {
        fprintf(stderr, "corrupt bag record %s\n", path);
        exit(1);
    }
    for (int f = 0; f < NFLIGHT; f++)
        if (strcmp(fl, flights[f].code) == 0) {
            *fidx = f;
            return (int)n;
        }
    fprintf(stderr, "unknown flight %s in %s\n", fl, path);
    exit(1);
}

/* Check-in: passengers arrive between 180 and 40 minutes before departure. */
static int checkin_bags(int minute, int next_tag)
{
    static const char *names[] = {"NILSSON", "OKAFOR", "GARCIA", "MUELLER", "ROSSI", "TANAKA", "DUBOIS", "SILVA",
                                  "NOWAK", "EVANS", "HANSEN", "KOVAC"};
    char rel[64], name[32], path[4096], rec[320];
    for (int f = 0; f < NFLIGHT; f++) {
        int before = flights[f].dep_min - minute;
        if (before > 180 || before <= 40)
            continue;
        double rate = 145.0 / (140.0 / TICK) * (1.0 + 0.6 * sin((before - 40) / 140.0 * 3.14159));
        int n = (int)(rate * 0.62 + urand() * rate * 0.6);
        for (int k = 0; k < n && next_tag < MAXBAG; k++) {
            int tag = next_tag++;
            int counter = (f * 3 + (int)(urand() * 6)) % NCOUNTER;
            int m = minute - (int)(urand() * TICK);
            snprintf(rel, sizeof rel, "checkin/C%02d", counter + 1);
            snprintf(name, sizeof name, "%010d.bag", 220000000 + tag);
            jpath(path, sizeof path, rel, name);
            const char *pax = names[(int)(urand() * 12)];
            char initial = (char)('A' + (int)(urand() * 26)), cls = urand() < 0.1 ? 'J' : 'Y';
            double wgt = 8.0 + 24.0 * urand();
            /* header lines for the spool tools, then the IATA-style source message */
            int len = snprintf(rec, sizeof rec,
                               "TAG %d\nFLT %s DEST %s DEP %02d:%02d\nPAX %s/%c SEQ %03d\nWGT %.1f CLASS %c\n"
                               "BSM\n.V/1LHUB\n.F/%s/%02d%s/%s/%c\n.N/%010d001\n.S/Y/%02dA/C/%03d\n.W/K/1/%.0f\n"
                               ".P/%s/%c\nENDBSM\nEVT %02d:%02d CHECKIN C%02d\n",
                               220000000 + tag, flights[f].code, flights[f].dest, flights[f].dep_min / 60,
                               flights[f].dep_min % 60, pax, initial, flights[f].nbags + 1, wgt, cls, flights[f].code,
                               1 + (minute / 1440), "JUN", flights[f].dest, cls, 220000000 + tag,
                               1 + (int)(urand() * 38), flights[f].nbags + 1, wgt, pax, initial, m / 60, m % 60,
                               counter + 1);
            int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
            if (fd < 0)
                die("create", path);
            if (write(fd, rec, (size_t)len) != len)
                die("write", path);
            if (close(fd) != 0)
                die("close", path);
            flights[f].nbags++;
            bag_ready_at[tag] = m + 2;
            stat_creates++;
        }
    }
    return next_tag;
}

/* List regular entries of a directory (names copied into a growing array). */
static int list_dir(const char *rel, char (**names)[24], int *cap)
{
    char p[4096];
    jpath(p, sizeof p, rel, NULL);
    DIR *d = opendir(p);
    if (!d)
        die("opendir", p);
    int n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n >= *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *names = realloc(*names, sizeof(**names) * (size_t)*cap);
            if (!*names)
                die("realloc", NULL);
        }
        if (strlen(e->d_name) >= 24) {
            fprintf(stderr, "unexpected entry %s in %s\n", e->d_name, p);
            exit(1);
        }
        memcpy((*names)[n++], e->d_name, strlen(e->d_name) + 1);
    }
    if (errno != 0)
        die("readdir", p);
    if (closedir(d) != 0)
        die("closedir", p);
    stat_scans++;
    return n;
}

/* Synthetic dual-energy X-ray projection of an alarmed bag (binary PGM):
 * clutter of overlapping objects with Beer-Lambert attenuation. */
static long write_xray_image(int tag, int level)
{
    enum { W = 128, H = 80 };
    static unsigned char img[W * H];
    static double mu[W * H];
    int nobj = 6 + (int)(urand() * 10);
    for (int i = 0; i < W * H; i++)
        mu[i] = 0.05;
    for (int o = 0; o < nobj; o++) {
        double cx = urand() * W, cy = urand() * H, rx = 4 + urand() * 30, ry = 3 + urand() * 18;
        double dens = o == 0 && level == 3 ? 2.5 : 0.2 + urand() * 0.9, th = urand() * 3.14159;
        double c = cos(th), sn = sin(th);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double dx = x - cx, dy = y - cy, u = (dx * c + dy * sn) / rx, v = (-dx * sn + dy * c) / ry;
                if (u * u + v * v < 1.0)
                    mu[y * W + x] += dens * sqrt(1.0 - u * u - v * v);
            }
    }
    for (int i = 0; i < W * H; i++) {
        double t = exp(-mu[i]) * (0.97 + 0.06 * urand());
        img[i] = (unsigned char)(t >= 1.0 ? 255 : 255.0 * t);
    }
    char name[40], path[4096], head[64];
    snprintf(name, sizeof name, "%010d_L%d.pgm", 220000000 + tag, level);
    jpath(path, sizeof path, "screening/images", name);
    int hl = snprintf(head, sizeof head, "P5\n%d %d\n255\n", W, H);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("create", path);
    if (write(fd, head, (size_t)hl) != hl || write(fd, img, sizeof img) != (ssize_t)sizeof img)
        die("write", path);
    if (close(fd) != 0)
        die("close", path);
    return hl + (long)sizeof img;
}

/* Counters -> screening.  Level 1 auto-clears most bags, the rest go to
 * operator review (L2) and some to CT/manual search (L3). */
static void screening_pass(int minute, char (**names)[24], int *cap, long *nl2, long *nl3)
{
    char rel[64], path[4096], buf[1024];
    for (int c = 0; c < NCOUNTER; c++) {
        snprintf(rel, sizeof rel, "checkin/C%02d", c + 1);
        int n = list_dir(rel, names, cap);
        for (int i = 0; i < n; i++) {
            int tag, f;
            jpath(path, sizeof path, rel, (*names)[i]);
            read_bag(path, &tag, &f, buf, sizeof buf);
            tag -= 220000000;
            if (bag_ready_at[tag] > minute + TICK)
                continue;
            double u = urand();
            const char *lvl = u < 0.86 ? "screening/L1" : (u < 0.985 ? "screening/L2" : "screening/L3");
            bag_ready_at[tag] = minute + (u < 0.86 ? 1 : (u < 0.985 ? 6 : 18));
            append_event(path, minute, u < 0.86 ? "HBS L1 CLEAR" : (u < 0.985 ? "HBS L1 ALARM -> L2" : "HBS L2 ALARM -> L3"));
            move_bag(rel, lvl, (*names)[i]);
            if (u >= 0.86) {
                (*nl2)++;
                write_xray_image(tag, u >= 0.985 ? 3 : 2);
            }
            if (u >= 0.985)
                (*nl3)++;
        }
    }
}

/* Cleared bags leave screening for the sorter lateral of their flight
 * (segment congestion is refreshed at every pass). */
static void sort_pass(int minute, char (**names)[24], int *cap, double *transit_sum, long *nsorted)
{
    static const char *lv[] = {"screening/L1", "screening/L2", "screening/L3"};
    char path[4096], buf[1024], rel[64], ev[512];
    int segs[NNODE];
    /* refresh segment congestion: random jams plus morning/evening peaks */
    for (int n = 0; n < NNODE; n++) {
        double peak = exp(-pow((minute - 7 * 60) / 60.0, 2)) + exp(-pow((minute - 17 * 60) / 80.0, 2));
        jam[n] = (float)(1.0 + (urand() < 0.02 ? 6.0 : 0.0) + peak * 0.8 * urand());
    }
    for (int l = 0; l < 3; l++) {
        int n = list_dir(lv[l], names, cap);
        for (int i = 0; i < n; i++) {
            int tag, f;
            jpath(path, sizeof path, lv[l], (*names)[i]);
            read_bag(path, &tag, &f, buf, sizeof buf);
            tag -= 220000000;
            if (bag_ready_at[tag] > minute + TICK)
                continue;
            int hops, t0 = bag_ready_at[tag] > minute ? bag_ready_at[tag] : minute;
            double tmin = route_bag(flights[f].lateral, &hops, segs);
            bag_ready_at[tag] = t0 + (int)ceil(tmin);
            *transit_sum += tmin;
            (*nsorted)++;
            int len = snprintf(ev, sizeof ev, "SORT LAT%02d hops %d transit %.1f min\nTRK", flights[f].lateral + 1,
                               hops, tmin);
            for (int k = 0; k <= hops && len < (int)sizeof ev - 8; k++)
                len += snprintf(ev + len, sizeof ev - (size_t)len, " S%03d", segs[k]);
            append_event(path, t0, ev);
            snprintf(rel, sizeof rel, "sorter/LAT%02d", flights[f].lateral + 1);
            move_bag(lv[l], rel, (*names)[i]);
        }
    }
}

/* Laterals -> makeup of the flight, or mishandled if the flight closed. */
static void makeup_pass(int minute, char (**names)[24], int *cap)
{
    char rel[64], path[4096], buf[1024], dst[64];
    for (int l = 0; l < NLATERAL; l++) {
        snprintf(rel, sizeof rel, "sorter/LAT%02d", l + 1);
        int n = list_dir(rel, names, cap);
        for (int i = 0; i < n; i++) {
            int tag, f;
            jpath(path, sizeof path, rel, (*names)[i]);
            read_bag(path, &tag, &f, buf, sizeof buf);
            tag -= 220000000;
            if (bag_ready_at[tag] > minute + TICK)
                continue;
            int t0 = bag_ready_at[tag] > minute ? bag_ready_at[tag] : minute;
            if (flights[f].closed) {
                append_event(path, t0, "LATE AT LATERAL -> MISHANDLED");
                move_bag(rel, "mishandled", (*names)[i]);
                flights[f].nmishandled++;
            } else {
                append_event(path, t0, "MAKEUP");
                snprintf(dst, sizeof dst, "makeup/%.7s", flights[f].code);
                move_bag(rel, dst, (*names)[i]);
            }
        }
    }
}

/* Close flights 20 minutes before departure: load makeup contents. */
static void close_flights(int minute, char (**names)[24], int *cap)
{
    char rel[64], dst[64], path[4096];
    for (int f = 0; f < NFLIGHT; f++) {
        if (flights[f].closed || minute < flights[f].dep_min - 20)
            continue;
        flights[f].closed = 1;
        snprintf(rel, sizeof rel, "makeup/%.7s", flights[f].code);
        snprintf(dst, sizeof dst, "loaded/%.7s", flights[f].code);
        int n = list_dir(rel, names, cap);
        for (int i = 0; i < n; i++) {
            jpath(path, sizeof path, rel, (*names)[i]);
            append_event(path, minute, "LOADED ULD");
            move_bag(rel, dst, (*names)[i]);
            flights[f].nloaded++;
        }
    }
}

/* Mishandled bags are re-booked on the next open flight to the same
 * destination (the record is rewritten with a RUSH line). */
static int rush_rebook(int minute, char (**names)[24], int *cap)
{
    char path[4096], buf[1024], dst[64], ev[64];
    int n = list_dir("mishandled", names, cap), moved = 0;
    for (int i = 0; i < n; i++) {
        int tag, f;
        jpath(path, sizeof path, "mishandled", (*names)[i]);
        read_bag(path, &tag, &f, buf, sizeof buf);
        int best = -1;
        for (int g = 0; g < NFLIGHT; g++)
            if (!flights[g].closed && strcmp(flights[g].dest, flights[f].dest) == 0 &&
                flights[g].dep_min - 20 > minute + 15 && (best < 0 || flights[g].dep_min < flights[best].dep_min))
                best = g;
        if (best < 0)
            continue;
        /* rewrite: change flight line, keep history */
        char *nl = strchr(buf, '\n');
        char *rest = nl ? strchr(nl + 1, '\n') : NULL;
        if (!rest)
            continue;
        char tmp[4096];
        jpath(tmp, sizeof tmp, "mishandled", "rush.tmp");
        FILE *o = fopen(tmp, "w");
        if (!o)
            die("open", tmp);
        if (fprintf(o, "TAG %d\nFLT %s DEST %s DEP %02d:%02d RUSH\n%s", tag, flights[best].code, flights[best].dest,
                    flights[best].dep_min / 60, flights[best].dep_min % 60, rest + 1) < 0)
            die("write", tmp);
        if (fclose(o) != 0)
            die("close", tmp);
        if (rename(tmp, path) != 0)
            die("rename", tmp);
        snprintf(ev, sizeof ev, "RUSH REBOOK %s", flights[best].code);
        append_event(path, minute, ev);
        snprintf(dst, sizeof dst, "makeup/%.7s", flights[best].code);
        move_bag("mishandled", dst, (*names)[i]);
        moved++;
    }
    return moved;
}

/* Recursive audit of the spool tree with lstat. */
static void audit_walk(const char *abs, long *nfiles, long *ndirs, long long *bytes, int depth)
{
    DIR *d = opendir(abs);
    if (!d)
        die("opendir", abs);
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", abs, e->d_name) >= sizeof p)
            die("path too long", abs);
        struct stat st;
        if (lstat(p, &st) != 0)
            die("lstat", p);
        if (S_ISDIR(st.st_mode)) {
            (*ndirs)++;
            if (depth < 4)
                audit_walk(p, nfiles, ndirs, bytes, depth + 1);
        } else if (S_ISREG(st.st_mode)) {
            (*nfiles)++;
            *bytes += st.st_size;
        }
        errno = 0;
    }
    if (errno != 0)
        die("readdir", abs);
    if (closedir(d) != 0)
        die("closedir", abs);
}

/* Concatenate every loaded bag of a flight into archive/FLIGHT.txt with a
 * length-prefixed header per bag, then unlink the records and rmdir. */
static long archive_flights(char (**names)[24], int *cap, long long *archived_bytes)
{
    char rel[64], path[4096], ap[4096], buf[4096];
    long nbags = 0;
    for (int f = 0; f < NFLIGHT; f++) {
        snprintf(rel, sizeof rel, "loaded/%.7s", flights[f].code);
        char an[32];
        snprintf(an, sizeof an, "%.7s.txt", flights[f].code);
        jpath(ap, sizeof ap, "archive", an);
        FILE *a = fopen(ap, "w");
        if (!a)
            die("open", ap);
        int n = list_dir(rel, names, cap);
        if (fprintf(a, "FLIGHT %s DEST %s DEP %02d:%02d BAGS %d\n", flights[f].code, flights[f].dest,
                    flights[f].dep_min / 60, flights[f].dep_min % 60, n) < 0)
            die("write", ap);
        for (int i = 0; i < n; i++) {
            jpath(path, sizeof path, rel, (*names)[i]);
            int fd = open(path, O_RDONLY);
            if (fd < 0)
                die("open", path);
            ssize_t r = read(fd, buf, sizeof buf);
            if (r < 0)
                die("read", path);
            if (close(fd) != 0)
                die("close", path);
            if (fprintf(a, "--- %s %zd\n", (*names)[i], r) < 0 || fwrite(buf, 1, (size_t)r, a) != (size_t)r)
                die("write", ap);
            *archived_bytes += r;
            if (unlink(path) != 0)
                die("unlink", path);
            nbags++;
        }
        if (fclose(a) != 0)
            die("close", ap);
        jpath(path, sizeof path, rel, NULL);
        if (rmdir(path) != 0)
            die("rmdir", path);
        snprintf(rel, sizeof rel, "makeup/%.7s", flights[f].code);
        jpath(path, sizeof path, rel, NULL);
        if (rmdir(path) != 0 && errno != ENOTEMPTY)
            die("rmdir", path);
    }
    return nbags;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    plan_flights();
    create_tree();
    build_conveyors();

    char jp[4096];
    jpath(jp, sizeof jp, "journal.log", NULL);
    g_journal = fopen(jp, "w");
    if (!g_journal)
        die("open", jp);
    char(*names)[24] = NULL;
    int cap = 0, next_tag = 0, rushed = 0;
    long nl2 = 0, nl3 = 0, nsorted = 0;
    double transit = 0.0;
    for (int minute = DAY_START; minute <= DAY_END; minute += TICK) {
        next_tag = checkin_bags(minute, next_tag);
        screening_pass(minute, &names, &cap, &nl2, &nl3);
        sort_pass(minute, &names, &cap, &transit, &nsorted);
        makeup_pass(minute, &names, &cap);
        rushed += rush_rebook(minute, &names, &cap);
        close_flights(minute, &names, &cap);
    }

    if (fclose(g_journal) != 0)
        die("close", jp);
    long nfiles = 0, ndirs = 0;
    long long bytes = 0, archived = 0;
    audit_walk(g_dir, &nfiles, &ndirs, &bytes, 0);
    long narch = archive_flights(&names, &cap, &archived);
    free(names);

    char rp[4096];
    jpath(rp, sizeof rp, "bhs_report.txt", NULL);
    FILE *r = fopen(rp, "w");
    if (!r)
        die("open", rp);
    int ok = fprintf(r, "bags %d, L2 reviews %ld, L3 searches %ld, sorted %ld (mean transit %.2f min), rushed %d\n"
                        "spool at close: %ld files, %ld dirs, %lld bytes; archived %ld bags (%lld bytes)\n"
                        "flight  dest dep    bags loaded mishandled\n",
                     next_tag, nl2, nl3, nsorted, nsorted ? transit / nsorted : 0.0, rushed, nfiles, ndirs, bytes, narch,
                     archived) >= 0;
    for (int f = 0; f < NFLIGHT && ok; f++)
        ok = fprintf(r, "%-7s %s  %02d:%02d %5d %6d %10d\n", flights[f].code, flights[f].dest, flights[f].dep_min / 60,
                     flights[f].dep_min % 60, flights[f].nbags, flights[f].nloaded, flights[f].nmishandled) >= 0;
    if (!ok || fclose(r) != 0)
        die("write", rp);
    printf("baggage_tag_spool_router: %d bags, %ld creates, %ld renames, %ld appends, %ld dir scans, %ld archived, "
           "%d rushed\n",
           next_tag, stat_creates, stat_renames, stat_appends, stat_scans, narch, rushed);
    return 0;
}
