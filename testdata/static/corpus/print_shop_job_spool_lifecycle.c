/*
 * print_shop_job_spool_lifecycle.c
 *
 * The hot-folder spool of an offset print shop over three production days.
 * Every job is a directory holding a key=value job ticket and one RLE-coded
 * plate raster per page and CMYK separation.  Jobs move through the tree by
 * rename(2):
 *
 *   incoming/ -> preflight (readdir, stat, decode plates, ink coverage,
 *                report file) -> ready/ or failed/
 *   ready/    -> scheduler (readdir + ticket parsing, priority/due sort,
 *                makeready-aware list scheduling) -> press/pN/
 *   press/pN/ -> press run (re-read plates, ink consumption, append press
 *                log) -> done/dayD/
 *   done/day0 -> archived at the end of day 2: files packed into one
 *                archive file, then unlink(2) / rmdir(2)
 *
 * Finally the whole tree is walked (opendir/readdir/lstat) for an inventory
 * report.  Directory listings are always sorted so results are
 * deterministic.
 *
 * usage: print_shop_job_spool_lifecycle OUTDIR
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
#include <unistd.h>

#define NDAYS 3
#define JOBS_PER_DAY 200
#define NPRESS 4
#define PLATE 96                   /* plate raster side (downsampled preview) */
#define MAXNAMES 4096
#define PATHLEN 1024

typedef struct {
    char name[64];
    int priority, due_min, pages, colours, qty;
    double coverage[4];
} ticket_t;

static const char *root;
static uint64_t rng = 0xb5ad4eceda1ce2a9ULL;

static void die(const char *what)
{
    fprintf(stderr, "print_spool: %s: %s\n", what, errno ? strerror(errno) : "bad data");
    exit(1);
}

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static void pathf(char *buf, const char *fmt, const char *a, const char *b)
{
    int n = b ? snprintf(buf, PATHLEN, fmt, root, a, b) : snprintf(buf, PATHLEN, fmt, root, a);
    if (n < 0 || n >= PATHLEN) { errno = ENAMETOOLONG; die(fmt); }
}

/* out = a "/" b, refusing to truncate */
static void join(char *out, const char *a, const char *b)
{
    int n = snprintf(out, PATHLEN, "%s/%s", a, b);
    if (n < 0 || n >= PATHLEN) { errno = ENAMETOOLONG; die(a); }
}

static void xmkdir(const char *p)
{
    if (mkdir(p, 0755) != 0 && errno != EEXIST) die(p);
}

static void xrename(const char *a, const char *b)
{
    if (rename(a, b) != 0) die(a);
}

static void write_whole(const char *path, const void *buf, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(path);
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; die(path); }
        p += w; n -= (size_t)w;
    }
    if (close(fd) != 0) die(path);
}

static size_t read_whole(const char *path, void *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) die(path);
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fd, (char *)buf + got, cap - got);
        if (r < 0) { if (errno == EINTR) continue; die(path); }
        if (r == 0) break;
        got += (size_t)r;
        if (got == cap) { errno = EFBIG; die(path); }
    }
    close(fd);
    return got;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* sorted entry names of a directory (without . and ..); caller frees */
static int list_dir(const char *dir, char **names, int cap)
{
    DIR *d = opendir(dir);
    if (!d) die(dir);
    int n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) { errno = ENOSPC; die("directory too large"); }
        names[n] = strdup(e->d_name);
        if (!names[n]) die("strdup");
        n++;
    }
    if (errno != 0) die("readdir");
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    return n;
}

static void free_names(char **names, int n) { for (int i = 0; i < n; i++) free(names[i]); }

static void make_spool_tree(void)
{
    static const char *dirs[] = {"incoming", "ready", "failed", "press", "done", "archive", "logs"};
    char p[PATHLEN];
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) { pathf(p, "%s/%s", dirs[i], NULL); xmkdir(p); }
    for (int k = 0; k < NPRESS; k++) {
        char sub[16];
        snprintf(sub, sizeof sub, "p%d", k + 1);
        pathf(p, "%s/press/%s", sub, NULL); xmkdir(p);
    }
    for (int d = 0; d < NDAYS; d++) {
        char sub[16];
        snprintf(sub, sizeof sub, "day%d", d);
        pathf(p, "%s/done/%s", sub, NULL); xmkdir(p);
    }
}

/* halftone-like plate: smooth tone field with text blocks; RLE (count,value) bytes */
static size_t render_plate_rle(unsigned char *out, int page, int sep, double base)
{
    size_t n = 0;
    double fx = 0.05 + 0.02 * sep, fy = 0.04 + 0.01 * page;
    double sx[PLATE];
    for (int x = 0; x < PLATE; x++) sx[x] = 0.35 * sin(fx * x + page);
    for (int y = 0; y < PLATE; y++) {
        int run = 0, prev = -1;
        double cy = cos(fy * y + sep);
        for (int x = 0; x < PLATE; x++) {
            double tone = base + sx[x] * cy;
            if ((y / 12 + x / 30) % 3 == 0 && sep == 3) tone = 0.95;      /* black text blocks */
            int v = (int)(tone * 15.0 + 0.5);
            v = v < 0 ? 0 : (v > 15 ? 15 : v);
            v *= 17;
            if (v == prev && run < 255) run++;
            else {
                if (prev >= 0) { out[n++] = (unsigned char)run; out[n++] = (unsigned char)prev; }
                prev = v; run = 1;
            }
        }
        out[n++] = (unsigned char)run; out[n++] = (unsigned char)prev;
    }
    return n;
}

static void submit_job(int day, int seq)
{
    char job[64], dir[PATHLEN], path[PATHLEN];
    snprintf(job, sizeof job, "J%d%04d", day, seq);
    pathf(dir, "%s/incoming/%s", job, NULL);
    xmkdir(dir);
    int pages = 1 + (int)(urand() * 4.0), colours = urand() < 0.7 ? 4 : 1;
    int prio = urand() < 0.1 ? 1 : (urand() < 0.5 ? 2 : 3);
    int due = 480 + (int)(urand() * 540.0);
    int qty = 250 * (1 + (int)(urand() * 40.0));
    char ticket[512];
    int tl = snprintf(ticket, sizeof ticket,
                      "job=%s\ncustomer=C%03d\nproduct=%s\npages=%d\ncolours=%d\nquantity=%d\npriority=%d\n"
                      "due_min=%d\nstock=%s\n",
                      job, (int)(urand() * 300.0), pages > 2 ? "brochure" : (pages == 2 ? "flyer" : "poster"), pages,
                      colours, qty, prio, due, urand() < 0.5 ? "coated_135g" : "uncoated_90g");
    join(path, dir, "ticket.txt");
    write_whole(path, ticket, (size_t)tl);
    static unsigned char rle[PLATE * PLATE * 2];
    for (int p = 0; p < pages; p++)
        for (int s = 4 - colours; s < 4; s++) {
            double base = 0.15 + 0.5 * urand();
            if (urand() < 0.004) base = 1.3;                                   /* overinked: preflight fails */
            size_t n = render_plate_rle(rle, p, s, base);
            char leaf[32];
            snprintf(leaf, sizeof leaf, "page%02d_%c.rle", p + 1, "CMYK"[s]);
            join(path, dir, leaf);
            write_whole(path, rle, n);
        }
}

static int parse_ticket(const char *path, ticket_t *t)
{
    char buf[1024];
    size_t n = read_whole(path, buf, sizeof buf - 1);
    buf[n] = 0;
    memset(t, 0, sizeof *t);
    int fields = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        const char *k = line, *v = eq + 1;
        if (!strcmp(k, "job")) { snprintf(t->name, sizeof t->name, "%s", v); fields++; }
        else if (!strcmp(k, "pages")) { t->pages = atoi(v); fields++; }
        else if (!strcmp(k, "colours")) { t->colours = atoi(v); fields++; }
        else if (!strcmp(k, "priority")) { t->priority = atoi(v); fields++; }
        else if (!strcmp(k, "due_min")) { t->due_min = atoi(v); fields++; }
        else if (!strcmp(k, "quantity")) { t->qty = atoi(v); fields++; }
    }
    return fields == 6;
}

/* decode an RLE plate and return its mean tone (ink coverage 0..1) */
static double plate_coverage(const char *path, long *bytes)
{
    static unsigned char buf[PLATE * PLATE * 2 + 16];
    size_t n = read_whole(path, buf, sizeof buf);
    *bytes += (long)n;
    double sum = 0.0;
    long px = 0;
    for (size_t i = 0; i + 1 < n; i += 2) { sum += (double)buf[i] * buf[i + 1]; px += buf[i]; }
    if (px != PLATE * PLATE) return -1.0;
    return sum / (255.0 * px);
}

/* preflight every job in incoming/: checks and routes to ready/ or failed/ */
static void preflight_incoming(int *n_ok, int *n_fail)
{
    static char *jobs[MAXNAMES], *files[64];
    char dir[PATHLEN], path[PATHLEN], dst[PATHLEN];
    pathf(dir, "%s/incoming", NULL, NULL);
    int nj = list_dir(dir, jobs, MAXNAMES);
    for (int j = 0; j < nj; j++) {
        char jd[PATHLEN];
        pathf(jd, "%s/incoming/%s", jobs[j], NULL);
        int nf = list_dir(jd, files, 64);
        ticket_t t;
        join(path, jd, "ticket.txt");
        int ok = parse_ticket(path, &t);
        int plates = 0;
        double tac_max = 0.0;
        long bytes = 0;
        char report[2048];
        int rl = snprintf(report, sizeof report, "preflight %s\n", jobs[j]);
        for (int f = 0; f < nf; f++) {
            if (!strstr(files[f], ".rle")) continue;
            join(path, jd, files[f]);
            struct stat sb;
            if (stat(path, &sb) != 0) die(path);
            if (sb.st_size < 2 * PLATE || !S_ISREG(sb.st_mode)) ok = 0;
            double cov = plate_coverage(path, &bytes);
            if (cov < 0.0 || cov > 0.92) ok = 0;
            if (cov > tac_max) tac_max = cov;
            plates++;
            if (rl < (int)sizeof report - 80)
                rl += snprintf(report + rl, sizeof report - (size_t)rl, "  %-14s %6ld B coverage %.3f\n", files[f],
                               (long)sb.st_size, cov);
        }
        if (plates != t.pages * t.colours) ok = 0;
        rl += snprintf(report + rl, sizeof report - (size_t)rl, "result %s plates %d bytes %ld max_cov %.3f\n",
                       ok ? "PASS" : "FAIL", plates, bytes, tac_max);
        join(path, jd, "preflight.txt");
        write_whole(path, report, (size_t)(rl < (int)sizeof report ? rl : (int)sizeof report - 1));
        pathf(dst, ok ? "%s/ready/%s" : "%s/failed/%s", jobs[j], NULL);
        xrename(jd, dst);
        if (ok) (*n_ok)++; else (*n_fail)++;
        free_names(files, nf);
    }
    free_names(jobs, nj);
}

static int cmp_ticket(const void *a, const void *b)
{
    const ticket_t *x = a, *y = b;
    if (x->priority != y->priority) return x->priority - y->priority;
    if (x->due_min != y->due_min) return x->due_min - y->due_min;
    return strcmp(x->name, y->name);
}

/* read all ready tickets, sort by priority/due, assign greedily to the press that
   finishes first, with extra makeready when switching between 1- and 4-colour work */
static int schedule_presses(double press_free[NPRESS], int press_colours[NPRESS])
{
    static char *jobs[MAXNAMES];
    static ticket_t tk[MAXNAMES];
    char dir[PATHLEN], path[PATHLEN], dst[PATHLEN];
    pathf(dir, "%s/ready", NULL, NULL);
    int nj = list_dir(dir, jobs, MAXNAMES), nt = 0;
    for (int j = 0; j < nj; j++) {
        char jd[PATHLEN];
        join(jd, dir, jobs[j]);
        join(path, jd, "ticket.txt");
        if (!parse_ticket(path, &tk[nt])) { errno = 0; die(path); }
        nt++;
    }
    qsort(tk, (size_t)nt, sizeof *tk, cmp_ticket);
    for (int j = 0; j < nt; j++) {
        int best = 0;
        double best_end = 1e30;
        for (int k = 0; k < NPRESS; k++) {
            double mr = press_colours[k] == tk[j].colours ? 12.0 : 35.0;
            double run = tk[j].qty * tk[j].pages / (k < 2 ? 250.0 : 150.0);     /* sheets per minute */
            double end = press_free[k] + mr + run;
            if (end < best_end) { best_end = end; best = k; }
        }
        press_free[best] = best_end;
        press_colours[best] = tk[j].colours;
        char sub[16];
        snprintf(sub, sizeof sub, "p%d", best + 1);
        join(path, dir, tk[j].name);
        pathf(dst, "%s/press/%s/%s", sub, tk[j].name);
        xrename(path, dst);
    }
    free_names(jobs, nj);
    return nt;
}

/* each press prints its queue: re-read plates for ink use, append to the press log */
static double run_presses(int day)
{
    static char *jobs[MAXNAMES], *files[64];
    double ink_total = 0.0;
    for (int k = 0; k < NPRESS; k++) {
        char sub[16], qdir[PATHLEN], logp[PATHLEN], daydir[16];
        snprintf(sub, sizeof sub, "p%d", k + 1);
        snprintf(daydir, sizeof daydir, "day%d", day);
        pathf(qdir, "%s/press/%s", sub, NULL);
        pathf(logp, "%s/logs/press_%s.log", sub, NULL);
        FILE *log = fopen(logp, "a");
        if (!log) die(logp);
        int nj = list_dir(qdir, jobs, MAXNAMES);
        for (int j = 0; j < nj; j++) {
            char jd[PATHLEN], path[PATHLEN], dst[PATHLEN];
            join(jd, qdir, jobs[j]);
            ticket_t t;
            join(path, jd, "ticket.txt");
            if (!parse_ticket(path, &t)) { errno = 0; die(path); }
            int nf = list_dir(jd, files, 64);
            double ink = 0.0;
            long bytes = 0;
            for (int f = 0; f < nf; f++) {
                if (!strstr(files[f], ".rle")) continue;
                join(path, jd, files[f]);
                double cov = plate_coverage(path, &bytes);
                ink += cov * 0.0012 * t.qty;                      /* kg per separation run */
            }
            ink_total += ink;
            if (fprintf(log, "day%d %s pages=%d colours=%d qty=%d ink_kg=%.3f\n", day, jobs[j], t.pages, t.colours,
                        t.qty, ink) < 0) die("press log");
            join(path, jd, "press.txt");
            char note[128];
            int nl = snprintf(note, sizeof note, "printed on %s day %d ink %.3f kg\n", sub, day, ink);
            write_whole(path, note, (size_t)nl);
            pathf(dst, "%s/done/%s/%s", daydir, jobs[j]);
            xrename(jd, dst);
            free_names(files, nf);
        }
        free_names(jobs, nj);
        if (fclose(log) != 0) die("close press log");
    }
    return ink_total;
}

/* pack one finished day into an archive (header + bytes per file), then remove the tree */
static long archive_day(int day, int *removed_files)
{
    static char *jobs[MAXNAMES], *files[64];
    char ddir[PATHLEN], apath[PATHLEN], daydir[16], aname[32];
    snprintf(daydir, sizeof daydir, "day%d", day);
    snprintf(aname, sizeof aname, "day%d.spa", day);
    pathf(ddir, "%s/done/%s", daydir, NULL);
    pathf(apath, "%s/archive/%s", aname, NULL);
    FILE *a = fopen(apath, "wb");
    if (!a) die(apath);
    static unsigned char buf[PLATE * PLATE * 2 + 2048];
    long total = 0;
    int nj = list_dir(ddir, jobs, MAXNAMES);
    for (int j = 0; j < nj; j++) {
        char jd[PATHLEN];
        join(jd, ddir, jobs[j]);
        int nf = list_dir(jd, files, 64);
        for (int f = 0; f < nf; f++) {
            char path[PATHLEN], hdr[160];
            join(path, jd, files[f]);
            size_t n = read_whole(path, buf, sizeof buf);
            int hl = snprintf(hdr, sizeof hdr, "%s/%s %zu\n", jobs[j], files[f], n);
            if (fwrite(hdr, 1, (size_t)hl, a) != (size_t)hl || fwrite(buf, 1, n, a) != n) die("archive write");
            total += (long)n;
            if (unlink(path) != 0) die(path);
            (*removed_files)++;
        }
        if (rmdir(jd) != 0) die(jd);
        free_names(files, nf);
    }
    free_names(jobs, nj);
    if (fflush(a) != 0 || fsync(fileno(a)) != 0 || fclose(a) != 0) die("archive close");
    if (rmdir(ddir) != 0) die(ddir);
    return total;
}

typedef struct { long files, dirs, bytes, rle, tickets; } inv_t;

static void inventory_walk(const char *dir, int depth, inv_t *inv, FILE *rep)
{
    static char *names_stack[8][MAXNAMES];
    if (depth >= 8) { errno = ELOOP; die(dir); }
    char **names = names_stack[depth];
    int n = list_dir(dir, names, MAXNAMES);
    long before = inv->bytes, files_before = inv->files;
    for (int i = 0; i < n; i++) {
        char path[PATHLEN];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= sizeof path) { errno = ENAMETOOLONG; die(path); }
        struct stat sb;
        if (lstat(path, &sb) != 0) die(path);
        if (S_ISDIR(sb.st_mode)) { inv->dirs++; inventory_walk(path, depth + 1, inv, rep); }
        else if (S_ISREG(sb.st_mode)) {
            inv->files++; inv->bytes += sb.st_size;
            if (strstr(names[i], ".rle")) inv->rle++;
            if (!strcmp(names[i], "ticket.txt")) inv->tickets++;
        }
    }
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if ((depth <= 1 || (depth == 2 && base[0] != 'J')) &&
        fprintf(rep, "%*s%-40s files %6ld bytes %10ld\n", depth * 2, "", dir + strlen(root), inv->files - files_before,
                inv->bytes - before) < 0) die("inventory write");
    free_names(names, n);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    root = argv[1];
    make_spool_tree();
    double press_free[NPRESS] = {0}, ink = 0.0;
    int press_colours[NPRESS] = {4, 4, 1, 4};
    int ok = 0, fail = 0, scheduled = 0, removed = 0;
    long archived = 0;
    for (int day = 0; day < NDAYS; day++) {
        for (int s = 0; s < JOBS_PER_DAY; s++) submit_job(day, s);
        preflight_incoming(&ok, &fail);
        scheduled += schedule_presses(press_free, press_colours);
        ink += run_presses(day);
        for (int k = 0; k < NPRESS; k++) press_free[k] = 0.0;
        if (day == 2) archived += archive_day(0, &removed);
    }
    char rp[PATHLEN];
    pathf(rp, "%s/%s", "inventory.txt", NULL);
    FILE *rep = fopen(rp, "w");
    if (!rep) die(rp);
    inv_t inv = {0};
    inventory_walk(root, 0, &inv, rep);
    if (fprintf(rep, "total: %ld files in %ld dirs, %ld bytes, %ld plates, %ld tickets\n", inv.files, inv.dirs, inv.bytes,
                inv.rle, inv.tickets) < 0 || fclose(rep) != 0) die("inventory close");
    printf("print spool: %d jobs passed preflight, %d failed, %d scheduled, %.1f kg ink, %d files archived (%ld B), "
           "%ld files remain\n", ok, fail, scheduled, ink, removed, archived, inv.files);
    return 0;
}
