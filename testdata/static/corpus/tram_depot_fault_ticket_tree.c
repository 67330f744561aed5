/*
 * tram_depot_fault_ticket_tree.c
 *
 * Maintenance-ticket spool of a tram depot, kept as a directory tree with
 * one small file per fault ticket:
 *
 *   depot/fleet/T101/open/   new tickets   (created O_EXCL, mtime = raise time)
 *   depot/fleet/T101/work/   in the shed   (rename from open/, notes appended)
 *   depot/fleet/T101/closed/ done          (rename from work/)
 *   depot/archive/wkNN/      weekly per-tram archives of old closed tickets
 *
 * Each simulated day the wayside wheel-impact-load detector signals of every
 * tram are analysed for wheel flats (compute), door / pantograph / HVAC
 * faults are raised from a reliability model, the shift dispatcher scans
 * the open/ directories (readdir + stat + reading each ticket's header) to
 * pick jobs by priority and age, and finished jobs are closed.  Weekly,
 * closed tickets older than 14 days are concatenated into the archive and
 * unlinked.  Every day ends with a census walk of the whole tree, and the
 * run ends with a ledger check against an in-memory record.
 *
 * usage: tram_depot_fault_ticket_tree OUTDIR
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
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define NTRAM 64
#define NDAY 56
#define NAXLE 8
#define WILD_N 384               /* wheel-impact samples per axle per pass */
#define SHIFT_SLOTS 46           /* jobs the shed can start per day */
#define MAXTICKET 40000
#define T0 1735689600LL          /* 2025-01-01T00:00:00Z */
#define PI 3.14159265358979323846

enum { ST_OPEN, ST_WORK, ST_CLOSED, ST_ARCHIVED };
static const char *state_dir[] = {"open", "work", "closed"};
static const char *fault_name[] = {"WHEEL_FLAT", "DOOR", "PANTOGRAPH", "HVAC", "BRAKE", "PIS"};

typedef struct { int tram, fault, prio, state; long long raised, closed; } ticket_t;

static ticket_t led[MAXTICKET];
static int nticket;
static const char *outdir;
static uint64_t rng = 0x7a3d1e9b00c0ffeeull;
static double flat_depth[NTRAM][NAXLE];       /* mm, grows until the wheel is turned */
static long n_readdir, n_stat, n_rename, n_unlink, n_create;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "tram_depot_fault_ticket_tree: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static void xmkdir(const char *p)
{
    if (mkdir(p, 0755) != 0 && errno != EEXIST) die("mkdir", p);
}

static void make_depot_tree(void)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/depot", outdir); xmkdir(p);
    snprintf(p, sizeof p, "%s/depot/fleet", outdir); xmkdir(p);
    snprintf(p, sizeof p, "%s/depot/archive", outdir); xmkdir(p);
    for (int t = 0; t < NTRAM; t++) {
        snprintf(p, sizeof p, "%s/depot/fleet/T%03d", outdir, 101 + t);
        xmkdir(p);
        for (int s = 0; s < 3; s++) {
            snprintf(p, sizeof p, "%s/depot/fleet/T%03d/%s", outdir, 101 + t, state_dir[s]);
            xmkdir(p);
        }
    }
}

static void set_mtime(const char *p, long long t)
{
    struct timespec ts[2] = {{(time_t)t, 0}, {(time_t)t, 0}};
    if (utimensat(AT_FDCWD, p, ts, 0) != 0) die("utimensat", p);
}

static void write_full(int fd, const char *buf, size_t n, const char *p)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write", p);
        }
        buf += w;
        n -= (size_t)w;
    }
}

static void ticket_path(char *p, size_t n, int id, int state)
{
    snprintf(p, n, "%s/depot/fleet/T%03d/%s/TK%06d.txt", outdir, 101 + led[id].tram, state_dir[state], id);
}

static void raise_ticket(int tram, int fault, int prio, long long now, const char *detail)
{
    if (nticket >= MAXTICKET) return;
    int id = nticket++;
    led[id] = (ticket_t){tram, fault, prio, ST_OPEN, now, 0};
    char p[4096], buf[8192];
    ticket_path(p, sizeof p, id, ST_OPEN);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) die("create ticket", p);
    int len = snprintf(buf, sizeof buf,
                       "TICKET TK%06d PRIO %d FAULT %s TRAM T%03d RAISED %lld\n"
                       "source: %s\n"
                       "detail: %s\n"
                       "history:\n  %lld raised by depot monitoring\n",
                       id, prio, fault_name[fault], 101 + tram, now,
                       fault == 0 ? "wayside WILD detector" : "on-board diagnostics", detail, now);
    /* excerpt of the on-board diagnostic log around the event */
    int nlog = 12 + (int)(urand() * 36);
    len += snprintf(buf + len, sizeof buf - (size_t)len, "diagnostic log (%d lines):\n", nlog);
    for (int k = 0; k < nlog && len < (int)sizeof buf - 160; k++)
        len += snprintf(buf + len, sizeof buf - (size_t)len,
                        "  %lld CAR%d %-10s v=%5.1f km/h U=%6.1f V I=%6.1f A T=%5.1f C st=%04X\n",
                        now - (nlog - k) * 13, 1 + (int)(urand() * 3), fault_name[fault], 40.0 * urand(),
                        720.0 + 60.0 * urand(), 400.0 * urand() - 100.0, 20.0 + 40.0 * urand(),
                        (unsigned)(urand() * 65535));
    write_full(fd, buf, (size_t)len, p);
    if (close(fd) != 0) die("close ticket", p);
    set_mtime(p, now);
    n_create++;
}

/* wheel-impact load detector: synthesise the rail strain signal of every axle
 * pass and estimate the flat depth from the impact peak over the static load */
static int wheel_impact_scan(long long now)
{
    static double sig[WILD_N], env[WILD_N], hum[NAXLE][WILD_N];
    static int have_env = 0;
    if (!have_env) {
        for (int k = 0; k < WILD_N; k++) {
            double x = (k - WILD_N / 2) / 60.0;
            env[k] = exp(-x * x);
            for (int a = 0; a < NAXLE; a++) hum[a][k] = 0.8 * sin(0.37 * k + a);   /* rail resonance */
        }
        have_env = 1;
    }
    int raised = 0;
    for (int t = 0; t < NTRAM; t++)
        for (int a = 0; a < NAXLE; a++) {
            double *fd = &flat_depth[t][a];
            if (urand() < 0.004) *fd += 0.3 + 0.6 * urand();      /* a wheel slides on wet rail */
            if (*fd > 0) *fd += 0.01;                               /* flats grow with use */
            double v = 8.0 + 6.0 * urand(), stat_kn = 55.0 + 8.0 * urand();
            double per = 2.0 * PI * 0.33 / v * 600.0;               /* samples per wheel turn */
            for (int k = 0; k < WILD_N; k++) {
                sig[k] = stat_kn * env[k] + hum[a][k] + 0.5 * (urand() - 0.5);
                double ph = fmod(k + 97.0 * a, per);
                if (*fd > 0 && ph < 6.0) sig[k] += *fd * v * 2.2 * (1.0 - ph / 6.0) * sqrt(env[k]);
            }
            /* 9-point running mean gives the quasi-static load; impact = raw peak above it */
            double peak = 0.0, base = 0.0, s = 0.0;
            for (int k = 0; k < 9; k++) s += sig[k];
            for (int k = 4; k < WILD_N - 5; k++) {
                if (s / 9.0 > base) base = s / 9.0;
                if (sig[k] > peak) peak = sig[k];
                s += sig[k + 5] - sig[k - 4];
            }
            double dyn = peak - base;
            if (dyn > 12.0) {
                char det[160];
                snprintf(det, sizeof det, "axle %d impact %.1f kN over %.1f kN static at %.1f m/s, est. flat %.1f mm",
                         a + 1, dyn, base, v, dyn / (2.2 * v));
                raise_ticket(t, 0, dyn > 35.0 ? 1 : 2, now + 3600 * 5 + a * 7, det);
                *fd = 0.0;                                          /* wheel will be turned */
                raised++;
            }
        }
    return raised;
}

static int random_faults(long long now)
{
    static const double rate[] = {0.0, 0.26, 0.07, 0.13, 0.05, 0.16};
    int raised = 0;
    for (int t = 0; t < NTRAM; t++)
        for (int f = 1; f < 6; f++)
            if (urand() < rate[f]) {
                char det[160];
                snprintf(det, sizeof det, "code %c%03d logged %d times on route %d", 'A' + f,
                         (int)(urand() * 900) + 100, 1 + (int)(urand() * 20), 1 + (int)(urand() * 9));
                raise_ticket(t, f, f == 4 ? 1 : (f == 2 ? 2 : 3), now + 3600 * (6 + (long long)(12 * urand())), det);
                raised++;
            }
    return raised;
}

typedef struct { int id, prio; long long age; } cand_t;

static int cmp_cand(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    if (x->prio != y->prio) return x->prio - y->prio;
    if (x->age != y->age) return x->age < y->age ? 1 : -1;
    return x->id - y->id;
}

/* the dispatcher: scan every open/ directory, read ticket headers, start jobs */
static int dispatch_work(long long now)
{
    static cand_t cand[MAXTICKET];
    int nc = 0;
    char dp[3072], p[4096], line[256];
    for (int t = 0; t < NTRAM; t++) {
        snprintf(dp, sizeof dp, "%s/depot/fleet/T%03d/open", outdir, 101 + t);
        DIR *d = opendir(dp);
        if (!d) die("opendir", dp);
        struct dirent *e;
        errno = 0;
        while ((e = readdir(d)) != NULL) {
            n_readdir++;
            if (e->d_name[0] == '.') continue;
            snprintf(p, sizeof p, "%s/%s", dp, e->d_name);
            struct stat st;
            if (stat(p, &st) != 0) die("stat", p);
            n_stat++;
            FILE *f = fopen(p, "r");
            if (!f) die("open ticket", p);
            int id, prio;
            if (!fgets(line, sizeof line, f) || sscanf(line, "TICKET TK%d PRIO %d", &id, &prio) != 2) {
                errno = EINVAL;
                die("bad ticket header", p);
            }
            fclose(f);
            if (st.st_mtime > now) continue;                      /* not yet raised at shift start */
            cand[nc++] = (cand_t){id, prio, now - (long long)st.st_mtime};
        }
        if (errno != 0) die("readdir", dp);
        closedir(d);
    }
    qsort(cand, (size_t)nc, sizeof(cand_t), cmp_cand);
    int started = 0;
    for (int k = 0; k < nc && started < SHIFT_SLOTS; k++) {
        int id = cand[k].id;
        char from[4096], to[4096];
        ticket_path(from, sizeof from, id, ST_OPEN);
        ticket_path(to, sizeof to, id, ST_WORK);
        if (rename(from, to) != 0) die("rename", from);
        n_rename++;
        led[id].state = ST_WORK;
        started++;
    }
    return started;
}

/* finish jobs: append the work record and move to closed/ */
static int close_work(long long now)
{
    static const char *fitters[] = {"Okafor", "Brandt", "Silva", "Nowak", "Haddad", "Lund"};
    int closed = 0;
    char dp[3072], p[4096], to[4096], note[256];
    for (int t = 0; t < NTRAM; t++) {
        snprintf(dp, sizeof dp, "%s/depot/fleet/T%03d/work", outdir, 101 + t);
        DIR *d = opendir(dp);
        if (!d) die("opendir", dp);
        struct dirent *e;
        int ids[256], n = 0;
        errno = 0;
        while ((e = readdir(d)) != NULL && n < 256) {
            n_readdir++;
            int id;
            if (sscanf(e->d_name, "TK%d.txt", &id) == 1) ids[n++] = id;
        }
        if (errno != 0) die("readdir", dp);
        closedir(d);
        for (int k = 0; k < n; k++) {
            int id = ids[k];
            if (urand() < 0.15) continue;                         /* waiting for parts */
            snprintf(p, sizeof p, "%s/TK%06d.txt", dp, id);
            int fd = open(p, O_WRONLY | O_APPEND);
            if (fd < 0) die("open for append", p);
            double hrs = 0.5 + 6.0 * urand();
            int len = snprintf(note, sizeof note, "  %lld work by %s, %.1f h, parts %s\n  %lld closed\n",
                               now + 7200, fitters[(id + t) % 6], hrs, urand() < 0.4 ? "replaced" : "none",
                               now + 7200 + (long long)(hrs * 3600));
            write_full(fd, note, (size_t)len, p);
            if (close(fd) != 0) die("close", p);
            long long tc = now + 7200 + (long long)(hrs * 3600);
            set_mtime(p, tc);
            ticket_path(to, sizeof to, id, ST_CLOSED);
            if (rename(p, to) != 0) die("rename", p);
            n_rename++;
            led[id].state = ST_CLOSED;
            led[id].closed = tc;
            closed++;
        }
    }
    return closed;
}

/* weekly: move closed tickets older than 14 days into the week's archive file
 * (one tram section after another), fsync it once, then unlink the originals */
static int archive_closed(int week, long long now)
{
    char ap[4096], dp[3072], p[4096], hdr[64];
    snprintf(ap, sizeof ap, "%s/depot/archive/wk%02d.log", outdir, week);
    int afd = open(ap, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (afd < 0) die("create archive", ap);
    static char buf[8192];
    static int victims[MAXTICKET];
    int archived = 0;
    for (int t = 0; t < NTRAM; t++) {
        snprintf(dp, sizeof dp, "%s/depot/fleet/T%03d/closed", outdir, 101 + t);
        DIR *d = opendir(dp);
        if (!d) die("opendir", dp);
        int section = 0;
        struct dirent *e;
        errno = 0;
        while ((e = readdir(d)) != NULL) {
            n_readdir++;
            int id;
            if (sscanf(e->d_name, "TK%d.txt", &id) != 1 || id < 0 || id >= nticket) continue;
            snprintf(p, sizeof p, "%s/%s", dp, e->d_name);
            struct stat st;
            if (lstat(p, &st) != 0) die("lstat", p);
            n_stat++;
            if (now - (long long)st.st_mtime < 14 * 86400LL) continue;
            if (!section) {
                int n = snprintf(hdr, sizeof hdr, "==== T%03d week %02d\n", 101 + t, week);
                write_full(afd, hdr, (size_t)n, ap);
                section = 1;
            }
            int fd = open(p, O_RDONLY);
            if (fd < 0) die("open closed ticket", p);
            ssize_t r;
            while ((r = read(fd, buf, sizeof buf)) > 0) write_full(afd, buf, (size_t)r, ap);
            if (r < 0) die("read ticket", p);
            close(fd);
            write_full(afd, "----\n", 5, ap);
            victims[archived++] = id;
        }
        if (errno != 0) die("readdir", dp);
        closedir(d);
    }
    if (fsync(afd) != 0 || close(afd) != 0) die("sync archive", ap);
    for (int k = 0; k < archived; k++) {
        ticket_path(p, sizeof p, victims[k], ST_CLOSED);
        if (unlink(p) != 0) die("unlink", p);
        n_unlink++;
        led[victims[k]].state = ST_ARCHIVED;
    }
    return archived;
}

typedef struct { long files[3], bytes[3]; double oldest_open_days; long dirs; } census_t;

static void walk(const char *dp, int depth, int state, census_t *c, long long now)
{
    DIR *d = opendir(dp);
    if (!d) die("opendir", dp);
    c->dirs++;
    struct dirent *e;
    char p[4096];
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        n_readdir++;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", dp, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0) die("lstat", p);
        n_stat++;
        if (S_ISDIR(st.st_mode)) {
            int s = state;
            for (int k = 0; k < 3; k++)
                if (strcmp(e->d_name, state_dir[k]) == 0) s = k;
            walk(p, depth + 1, s, c, now);
        } else if (S_ISREG(st.st_mode) && state >= 0) {
            c->files[state]++;
            c->bytes[state] += (long)st.st_size;
            if (state == ST_OPEN) {
                double age = (double)(now - (long long)st.st_mtime) / 86400.0;
                if (age > c->oldest_open_days) c->oldest_open_days = age;
            }
        }
        errno = 0;
    }
    if (errno != 0) die("readdir", dp);
    closedir(d);
}

static census_t depot_census(long long now)
{
    census_t c;
    memset(&c, 0, sizeof c);
    char p[4096];
    snprintf(p, sizeof p, "%s/depot/fleet", outdir);
    walk(p, 0, -1, &c, now);
    return c;
}

static int verify_ledger(const census_t *c)
{
    long n[4] = {0};
    for (int i = 0; i < nticket; i++) n[led[i].state]++;
    int bad = 0;
    for (int s = 0; s < 3; s++)
        if (n[s] != c->files[s]) bad++;
    /* spot-check: every ledger ticket must exist exactly where the ledger says */
    char p[4096];
    struct stat st;
    for (int i = 0; i < nticket; i += 7) {
        if (led[i].state == ST_ARCHIVED) continue;
        ticket_path(p, sizeof p, i, led[i].state);
        if (stat(p, &st) != 0) bad++;
        n_stat++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    outdir = argv[1];
    make_depot_tree();
    char rp[4096];
    snprintf(rp, sizeof rp, "%s/depot/daily_census.txt", outdir);
    FILE *rep = fopen(rp, "w");
    if (!rep) die("open", rp);
    fprintf(rep, "# day raised_flat raised_other started closed archived open work closed_files bytes oldest_open_d\n");
    census_t c;
    memset(&c, 0, sizeof c);
    long tot_flat = 0, tot_arch = 0;
    for (int day = 0; day < NDAY; day++) {
        long long now = T0 + (long long)day * 86400;
        int rf = wheel_impact_scan(now);
        int ro = random_faults(now);
        int st = dispatch_work(now + 86400 - 1);
        int cl = close_work(now + 6 * 3600);
        int ar = 0;
        if (day % 7 == 6) ar = archive_closed(day / 7, now + 86400);
        c = depot_census(now + 86400);
        tot_flat += rf;
        tot_arch += ar;
        if (fprintf(rep, "%3d %4d %4d %4d %4d %5d %5ld %5ld %5ld %8ld %6.1f\n", day, rf, ro, st, cl, ar, c.files[0],
                    c.files[1], c.files[2], c.bytes[0] + c.bytes[1] + c.bytes[2], c.oldest_open_days) < 0)
            die("write census", rp);
        if (fflush(rep) != 0) die("flush census", rp);
    }
    int bad = verify_ledger(&c);
    if (fclose(rep) != 0) die("close", rp);
    printf("tram depot: %d trams, %d days, %d tickets (%ld wheel flats), %ld archived\n", NTRAM, NDAY, nticket,
           tot_flat, tot_arch);
    printf("  final: open %ld, in work %ld, closed %ld; ledger mismatches %d\n", c.files[0], c.files[1], c.files[2],
           bad);
    printf("  metadata ops: %ld creates, %ld renames, %ld unlinks, %ld stats, %ld dirents\n", n_create, n_rename,
           n_unlink, n_stat, n_readdir);
    return bad ? 1 : 0;
}
