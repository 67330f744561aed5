/* bird_ring_recovery_tree.c
 * A national bird-ringing scheme's file-based database.
 *
 * Every ringed bird is one small text record under
 *     rings/<species>/<year>/<ring>.rec
 * holding the ringing event and any re-traps.  Finder reports arrive as one
 * small file each in inbox/.  The processing run:
 *   1. rings the birds (mkdir of the species/year tree, one record per bird),
 *   2. receives recovery reports into inbox/,
 *   3. processes the inbox in name order: locates each ring by stat()ing the
 *      candidate species/year directories (reported species first), appends the recovery to the bird's record
 *      (O_APPEND), and renames the report into processed/<year>/ or rejected/,
 *   4. walks the tree (opendir/readdir), re-reads every record, writes a
 *      per-species fixed-width exchange export (one line per ringing, re-trap
 *      and recovery event) and computes great-circle movement statistics,
 *   5. moves records of birds reported dead into deceased/<species>/, purges
 *      processed reports of the oldest year (unlink, rmdir),
 *   6. takes an lstat census of the whole directory tree.
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

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define NBIRDS    3000
#define NREPORTS  1500
#define Y_FIRST   2012
#define NYEARS    12
#define PATHMAX   4096

typedef struct { const char *code, *name; double mean_km; int migrant; } species_t;

static const species_t species[] = {
    {"HIRRUS", "Barn Swallow", 2500, 1}, {"ERIRUB", "Robin", 120, 0}, {"PARMAJ", "Great Tit", 8, 0},
    {"CYACAE", "Blue Tit", 6, 0}, {"TURMER", "Blackbird", 60, 0}, {"SYLATR", "Blackcap", 1400, 1},
    {"PHYCOL", "Chiffchaff", 1200, 1}, {"ACRSCI", "Reed Warbler", 2800, 1}, {"FRICOE", "Chaffinch", 300, 0},
    {"CARCHL", "Greenfinch", 40, 0}, {"STUVUL", "Starling", 600, 0}, {"PASDOM", "House Sparrow", 2, 0},
    {"CALALP", "Dunlin", 2000, 1}, {"LARRID", "Black-headed Gull", 700, 0}, {"ANAPLA", "Mallard", 250, 0},
    {"ACCNIS", "Sparrowhawk", 30, 0}, {"FICHYP", "Pied Flycatcher", 4200, 1}, {"DELURB", "House Martin", 3000, 1},
    {"TROTRO", "Wren", 10, 0}, {"PRUMOD", "Dunnock", 5, 0}, {"SITEUR", "Nuthatch", 3, 0},
    {"EMBSCH", "Reed Bunting", 150, 0}, {"LUSMEG", "Nightingale", 4500, 1}, {"APUAPU", "Swift", 6000, 1},
};
#define NSPECIES ((int)(sizeof species / sizeof species[0]))

static const char *root;
static uint64_t rng = 0xb1bdb1bdULL;
static int bird_species[NBIRDS], bird_year[NBIRDS];
static double bird_lat[NBIRDS], bird_lon[NBIRDS];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "bird_ring_recovery_tree: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static double urand(void)
{
    rng ^= rng << 7; rng ^= rng >> 9;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
}

static void write_file(const char *path, const char *text, int flags)
{
    int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
    if (fd < 0) die("open", path);
    size_t len = strlen(text);
    const char *p = text;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) { if (errno == EINTR) continue; die("write", path); }
        p += w; len -= (size_t)w;
    }
    if (close(fd) != 0) die("close", path);
}

static void ring_number(int i, char *buf, size_t n)
{
    /* scheme prefix + serial + check letter */
    snprintf(buf, n, "NLA%06d%c", 100000 + i * 7, 'A' + (i * 7) % 23);
}

static void ring_birds(void)
{
    char path[2 * PATHMAX], ring[32], text[2048];
    snprintf(path, sizeof path, "%s/rings", root);
    make_dir(path);
    for (int s = 0; s < NSPECIES; s++) {
        snprintf(path, sizeof path, "%s/rings/%s", root, species[s].code);
        make_dir(path);
        for (int y = 0; y < NYEARS; y++) {
            snprintf(path, sizeof path, "%s/rings/%s/%d", root, species[s].code, Y_FIRST + y);
            make_dir(path);
        }
    }
    for (int i = 0; i < NBIRDS; i++) {
        int s = (int)(urand() * urand() * NSPECIES);
        int y = (int)(urand() * NYEARS);
        bird_species[i] = s; bird_year[i] = y;
        bird_lat[i] = 51.0 + 2.5 * urand();
        bird_lon[i] = 3.5 + 3.5 * urand();
        ring_number(i, ring, sizeof ring);
        int n = snprintf(text, sizeof text,
                         "ring %s\nspecies %s %s\nringed %d-%02d-%02d lat %.4f lon %.4f age %d sex %c\n"
                         "ringer R%04d station ST%03d\nbiometrics wing %.1f mass %.1f fat %d\n",
                         ring, species[s].code, species[s].name, Y_FIRST + y, 1 + (int)(urand() * 12),
                         1 + (int)(urand() * 28), bird_lat[i], bird_lon[i], 1 + (int)(urand() * 4),
                         urand() < 0.5 ? 'M' : 'F', (int)(urand() * 400), (int)(urand() * 60),
                         60 + 40 * urand(), 10 + 20 * urand(), (int)(urand() * 6));
        int retraps = (int)(urand() * 15);
        for (int k = 0; k < retraps && n < (int)sizeof text - 128; k++)
            n += snprintf(text + n, sizeof text - (size_t)n, "retrap %d-%02d station ST%03d wing %.1f mass %.1f fat %d\n",
                          Y_FIRST + y + (int)(urand() * 2), 1 + (int)(urand() * 12), (int)(urand() * 60),
                          60 + 40 * urand(), 10 + 20 * urand(), (int)(urand() * 6));
        snprintf(path, sizeof path, "%s/rings/%s/%d/%s.rec", root, species[s].code, Y_FIRST + y, ring);
        write_file(path, text, O_TRUNC | O_EXCL);
    }
}

/* finders report a ring (sometimes misread), where and how the bird was found */
static void receive_reports(void)
{
    char path[2 * PATHMAX], ring[32], text[512];
    snprintf(path, sizeof path, "%s/inbox", root);
    make_dir(path);
    for (int r = 0; r < NREPORTS; r++) {
        int i = (int)(urand() * NBIRDS);
        int s = bird_species[i];
        ring_number(i, ring, sizeof ring);
        if (urand() < 0.03) ring[5] = (char)('0' + (ring[5] - '0' + 3) % 10);   /* misread digit */
        double dist = species[s].mean_km * (-log(urand() + 1e-12)) * (species[s].migrant ? 0.5 + urand() : 1.0);
        double bearing = species[s].migrant ? 3.5 + 0.5 * (urand() - 0.5) : 2.0 * M_PI * urand();
        double dlat = dist / 111.2 * cos(bearing);
        double lat = bird_lat[i] + dlat;
        if (lat > 80) lat = 80;
        if (lat < -40) lat = -40;
        double lon = bird_lon[i] + dist / (111.2 * cos(lat * M_PI / 180.0) + 1e-9) * sin(bearing);
        int year = bird_year[i] + 1 + (int)(urand() * 3);
        if (year >= NYEARS) year = NYEARS - 1;
        const char *how = urand() < 0.45 ? "found_dead" : urand() < 0.7 ? "controlled" : "sighted";
        const char *hint = urand() < 0.8 ? species[s].code : "unknown";
        snprintf(text, sizeof text, "report %05d\nspecies %s\nring %s\ndate %d-%02d-%02d\nlat %.4f\nlon %.4f\ncircumstances %s\nfinder F%05d\n",
                 r, hint, ring, Y_FIRST + year, 1 + (int)(urand() * 12), 1 + (int)(urand() * 28), lat, lon, how,
                 (int)(urand() * 99999));
        snprintf(path, sizeof path, "%s/inbox/rep_%05d_%04x.txt", root, r, (unsigned)(urand() * 65535));
        write_file(path, text, O_TRUNC | O_EXCL);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sorted list of directory entries (excluding dot entries) */
static char **list_dir(const char *path, int *count)
{
    DIR *d = opendir(path);
    if (!d) die("opendir", path);
    int cap = 256, n = 0;
    char **names = malloc(sizeof(char *) * (size_t)cap);
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) { cap *= 2; names = realloc(names, sizeof(char *) * (size_t)cap); }
        if (!names) die("realloc", path);
        names[n++] = strdup(e->d_name);
    }
    if (errno != 0) die("readdir", path);
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    *count = n;
    return names;
}

static void free_list(char **names, int n)
{
    for (int k = 0; k < n; k++) free(names[k]);
    free(names);
}

/* locate a ring's record by probing the species/year directories with stat();
   the finder's species identification narrows the search when it is given */
static int find_ring(const char *ring, const char *hint, char *out, size_t n)
{
    struct stat st;
    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < NSPECIES; s++) {
            int match = strcmp(species[s].code, hint) == 0;
            if ((pass == 0) != match) continue;
            for (int y = 0; y < NYEARS; y++) {
                snprintf(out, n, "%s/rings/%s/%d/%s.rec", root, species[s].code, Y_FIRST + y, ring);
                if (stat(out, &st) == 0) return 1;
                if (errno != ENOENT) die("stat", out);
            }
        }
    return 0;
}

static void process_inbox(int *accepted, int *rejected)
{
    char inbox[PATHMAX], path[2 * PATHMAX], rec[2 * PATHMAX], dst[2 * PATHMAX], line[256];
    snprintf(inbox, sizeof inbox, "%s/inbox", root);
    snprintf(path, sizeof path, "%s/processed", root); make_dir(path);
    snprintf(path, sizeof path, "%s/rejected", root); make_dir(path);
    int n;
    char **names = list_dir(inbox, &n);
    *accepted = *rejected = 0;
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/%s", inbox, names[k]);
        FILE *f = fopen(path, "r");
        if (!f) die("fopen", path);
        char ring[32] = "", date[32] = "", how[32] = "", hint[32] = "";
        double lat = 0, lon = 0;
        while (fgets(line, sizeof line, f)) {
            sscanf(line, "ring %31s", ring);
            sscanf(line, "species %31s", hint);
            sscanf(line, "date %31s", date);
            sscanf(line, "lat %lf", &lat);
            sscanf(line, "lon %lf", &lon);
            sscanf(line, "circumstances %31s", how);
        }
        if (ferror(f)) die("read", path);
        fclose(f);
        if (ring[0] && find_ring(ring, hint, rec, sizeof rec)) {
            char add[256];
            snprintf(add, sizeof add, "recovery %s lat %.4f lon %.4f %s report %s\n", date, lat, lon, how, names[k]);
            write_file(rec, add, O_APPEND);
            snprintf(dst, sizeof dst, "%s/processed/%.4s", root, date);
            make_dir(dst);
            snprintf(dst, sizeof dst, "%s/processed/%.4s/%s", root, date, names[k]);
            (*accepted)++;
        } else {
            snprintf(dst, sizeof dst, "%s/rejected/%s", root, names[k]);
            (*rejected)++;
        }
        if (rename(path, dst) != 0) die("rename", path);
    }
    free_list(names, n);
}

static double haversine_km(double la1, double lo1, double la2, double lo2)
{
    double p1 = la1 * M_PI / 180, p2 = la2 * M_PI / 180, dp = p2 - p1, dl = (lo2 - lo1) * M_PI / 180;
    double a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2);
    return 2 * 6371.0 * asin(sqrt(a));
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void movement_summary(const char *out_path)
{
    FILE *out = fopen(out_path, "w");
    if (!out) die("fopen", out_path);
    fprintf(out, "# species recoveries median_km p90_km max_km mean_bearing_deg\n");
    static double dists[NREPORTS * 2];
    char path[2 * PATHMAX], line[256], xpath[PATHMAX];
    snprintf(xpath, sizeof xpath, "%s/exports", root);
    make_dir(xpath);
    for (int s = 0; s < NSPECIES; s++) {
        int nd = 0;
        double sx = 0, sy = 0;
        snprintf(xpath, sizeof xpath, "%s/exports/%s.exch", root, species[s].code);
        FILE *ex = fopen(xpath, "w");
        if (!ex) die("fopen", xpath);
        for (int y = 0; y < NYEARS; y++) {
            char dir[PATHMAX];
            snprintf(dir, sizeof dir, "%s/rings/%s/%d", root, species[s].code, Y_FIRST + y);
            int n;
            char **names = list_dir(dir, &n);
            for (int k = 0; k < n; k++) {
                snprintf(path, sizeof path, "%s/%s", dir, names[k]);
                FILE *f = fopen(path, "r");
                if (!f) die("fopen", path);
                double la0 = 0, lo0 = 0, la, lo;
                char ringno[16];
                snprintf(ringno, sizeof ringno, "%.10s", names[k]);
                while (fgets(line, sizeof line, f)) {
                    if (strncmp(line, "ringed ", 7) == 0 || strncmp(line, "retrap ", 7) == 0 ||
                        strncmp(line, "recovery ", 9) == 0) {
                        /* fixed-width exchange record: scheme|ring|species|event|free text */
                        line[strcspn(line, "\n")] = 0;
                        if (fprintf(ex, "NLA|%-10s|%-6s|%c|%-90.90s|%4d\n", ringno, species[s].code,
                                    line[1] == 'i' ? 'R' : line[1] == 'e' && line[2] == 't' ? 'T' : 'V',
                                    line, Y_FIRST + y) < 0)
                            die("fprintf", xpath);
                    }
                    if (strncmp(line, "ringed ", 7) == 0) {
                        const char *p = strstr(line, "lat ");
                        if (p) sscanf(p, "lat %lf lon %lf", &la0, &lo0);
                    } else if (strncmp(line, "recovery ", 9) == 0) {
                        const char *p = strstr(line, "lat ");
                        if (p && sscanf(p, "lat %lf lon %lf", &la, &lo) == 2 && nd < NREPORTS * 2) {
                            double d = haversine_km(la0, lo0, la, lo);
                            dists[nd++] = d;
                            double b = atan2(sin((lo - lo0) * M_PI / 180) * cos(la * M_PI / 180),
                                             cos(la0 * M_PI / 180) * sin(la * M_PI / 180) -
                                             sin(la0 * M_PI / 180) * cos(la * M_PI / 180) * cos((lo - lo0) * M_PI / 180));
                            sx += cos(b); sy += sin(b);
                        }
                    }
                }
                if (ferror(f)) die("read", path);
                fclose(f);
            }
            free_list(names, n);
        }
        if (fclose(ex) != 0) die("fclose", xpath);
        if (nd == 0) continue;
        qsort(dists, (size_t)nd, sizeof(double), cmp_dbl);
        double mb = atan2(sy, sx) * 180 / M_PI;
        if (mb < 0) mb += 360;
        if (fprintf(out, "%-7s %-18s %5d %9.1f %9.1f %9.1f %6.1f\n", species[s].code, species[s].name, nd,
                    dists[nd / 2], dists[(int)(nd * 0.9)], dists[nd - 1], mb) < 0)
            die("fprintf", out_path);
    }
    if (fclose(out) != 0) die("fclose", out_path);
}

static int retire_deceased(void)
{
    char dir[PATHMAX], path[2 * PATHMAX], dst[2 * PATHMAX], line[256];
    snprintf(dst, sizeof dst, "%s/deceased", root);
    make_dir(dst);
    int moved = 0;
    for (int s = 0; s < NSPECIES; s++) {
        int made = 0;
        for (int y = 0; y < NYEARS; y++) {
            snprintf(dir, sizeof dir, "%s/rings/%s/%d", root, species[s].code, Y_FIRST + y);
            int n;
            char **names = list_dir(dir, &n);
            for (int k = 0; k < n; k++) {
                snprintf(path, sizeof path, "%s/%s", dir, names[k]);
                FILE *f = fopen(path, "r");
                if (!f) die("fopen", path);
                int dead = 0;
                while (fgets(line, sizeof line, f))
                    if (strncmp(line, "recovery ", 9) == 0 && strstr(line, "found_dead")) dead = 1;
                fclose(f);
                if (!dead) continue;
                if (!made) {
                    snprintf(dst, sizeof dst, "%s/deceased/%s", root, species[s].code);
                    make_dir(dst);
                    made = 1;
                }
                snprintf(dst, sizeof dst, "%s/deceased/%s/%s", root, species[s].code, names[k]);
                if (rename(path, dst) != 0) die("rename", path);
                moved++;
            }
            free_list(names, n);
            if (n == 0 && rmdir(dir) != 0) die("rmdir", dir);   /* drop empty year directories */
        }
    }
    return moved;
}

static int purge_oldest_reports(void)
{
    char dir[PATHMAX], path[2 * PATHMAX];
    snprintf(dir, sizeof dir, "%s/processed", root);
    int n;
    char **years = list_dir(dir, &n);
    int removed = 0;
    if (n > 0) {
        snprintf(dir, sizeof dir, "%s/processed/%s", root, years[0]);
        int m;
        char **names = list_dir(dir, &m);
        for (int k = 0; k < m; k++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[k]);
            if (unlink(path) != 0) die("unlink", path);
            removed++;
        }
        free_list(names, m);
        if (rmdir(dir) != 0) die("rmdir", dir);
    }
    free_list(years, n);
    return removed;
}

static void census(const char *dir, long *files, long *dirs, long long *bytes)
{
    int n;
    char **names = list_dir(dir, &n);
    char path[2 * PATHMAX];
    struct stat st;
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        if (lstat(path, &st) != 0) die("lstat", path);
        if (S_ISDIR(st.st_mode)) { (*dirs)++; census(path, files, dirs, bytes); }
        else { (*files)++; *bytes += st.st_size; }
    }
    free_list(names, n);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    root = argv[1];
    ring_birds();
    receive_reports();
    int acc, rej;
    process_inbox(&acc, &rej);
    char path[2 * PATHMAX];
    snprintf(path, sizeof path, "%s/movement_summary.txt", root);
    movement_summary(path);
    int dead = retire_deceased();
    int purged = purge_oldest_reports();
    long files = 0, dirs = 0;
    long long bytes = 0;
    census(root, &files, &dirs, &bytes);
    snprintf(path, sizeof path, "%s/census.txt", root);
    char text[256];
    snprintf(text, sizeof text, "files %ld\ndirectories %ld\nbytes %lld\n", files, dirs, bytes);
    write_file(path, text, O_TRUNC);
    printf("%d birds, %d reports: %d accepted, %d rejected; %d retired as dead, %d old reports purged\n",
           NBIRDS, NREPORTS, acc, rej, dead, purged);
    printf("census: %ld files in %ld directories, %lld bytes\n", files, dirs, bytes);
    return 0;
}
