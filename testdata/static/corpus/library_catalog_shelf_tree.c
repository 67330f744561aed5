/*
 * library_catalog_shelf_tree.c
 *
 * A small public library keeps its catalogue as one text record per item
 * in a directory tree sharded by Dewey class (catalog/<hundreds>/<tens>/).
 * This tool maintains that tree the way a nightly batch would:
 *
 *   1. accession: create the class directories and one record file per item
 *   2. circulation: several days of check-outs, renewals and returns; every
 *      transaction reads the item record, rewrites it in place and is
 *      appended to a per-day log
 *      (accession and withdrawal write a temp file and rename it into place)
 *   3. weeding: items without circulation are moved into withdrawn/
 *      (rename across directories); old withdrawals are purged (unlink)
 *   4. reclassification: a share of items gets a new call number and is
 *      moved into another class directory
 *   5. inventory: the whole tree is walked with opendir/readdir, every
 *      file stat()ed and parsed; duplicate-title detection by word
 *      shingles within each class; shelf lists per class are written and a
 *      collection report summarises it all.
 *
 * Usage: library_catalog_shelf_tree OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NITEMS      4800
#define NDAYS       10
#define TX_PER_DAY  600
#define RECMAX      4096
#define MAXWORDS    12

static const char *g_dir;

static const char *subject_words[10][12] = {
    {"catalog", "information", "computing", "archives", "encyclopedia", "bibliography", "journalism",
     "manuscripts", "data", "museums", "networks", "libraries"},
    {"mind", "ethics", "logic", "dreams", "stoicism", "perception", "memory", "virtue", "reason", "self",
     "happiness", "doubt"},
    {"faith", "myth", "scripture", "pilgrims", "temples", "saints", "ritual", "gods", "monastery", "prayer",
     "legends", "prophets"},
    {"economics", "law", "cities", "education", "trade", "labor", "policy", "elections", "crime", "money",
     "families", "welfare"},
    {"grammar", "words", "dialects", "translation", "phonetics", "alphabets", "idioms", "syntax", "speech",
     "etymology", "latin", "sign"},
    {"physics", "chemistry", "geology", "oceans", "stars", "botany", "insects", "fossils", "climate", "atoms",
     "rivers", "birds"},
    {"medicine", "engineering", "farming", "cooking", "bridges", "engines", "nursing", "gardening",
     "electronics", "bees", "railways", "textiles"},
    {"painting", "music", "architecture", "sculpture", "photography", "dance", "film", "gardens", "pottery",
     "games", "theatre", "sport"},
    {"poetry", "novels", "drama", "essays", "letters", "satire", "fables", "sonnets", "epics", "diaries",
     "stories", "verse"},
    {"history", "travel", "biography", "maps", "empires", "wars", "explorers", "kings", "revolutions",
     "migration", "islands", "frontiers"}};
static const char *connectors[] = {"of", "and", "in", "the", "for", "on", "a", "beyond", "after", "under"};
static const char *surnames[] = {"Achebe", "Borges", "Carson", "Dinesen", "Eco", "Frisch", "Gordimer",
                                 "Hesse", "Ishiguro", "Jansson", "Kundera", "Lessing", "Mahfouz", "Neruda",
                                 "Oz", "Pamuk", "Queneau", "Rushdie", "Sebald", "Tokarczuk", "Undset", "Vonnegut",
                                 "Walcott", "Xingjian", "Yourcenar", "Zweig"};

typedef struct {
    char id[12];
    char call[24];
    char title[160];
    char author[48];
    int year;
    int checked_out;     /* 0/1 */
    int due_day;
    int circ_count;
    int last_day;
    int withdrawn;
    char path[256];      /* relative to OUTDIR */
    long size;
} item;

static item *items;
static int nitems;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "library_catalog_shelf_tree: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static uint32_t rng = 0x1B873593u;
static uint32_t rnd(void)
{
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}
static int rndn(int n) { return (int)(rnd() % (uint32_t)n); }

static void mkdir_p(const char *path)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("mkdir", path);
}

/* ------------------------------------------------------------------ */
static int format_record(const item *it, char *buf, size_t n)
{
    int cls = (it->call[0] - '0');
    int len = snprintf(buf, n,
                       "ID: %s\nCALL: %s\nTITLE: %s\nAUTHOR: %s\nYEAR: %d\nSTATUS: %s\nDUE: %d\n"
                       "CIRC: %d\nLAST: %d\nSUBJECTS: %s; %s; %s\nNOTE: ",
                       it->id, it->call, it->title, it->author, it->year,
                       it->withdrawn ? "WITHDRAWN" : it->checked_out ? "CHECKED_OUT" : "ON_SHELF",
                       it->checked_out ? it->due_day : 0, it->circ_count, it->last_day,
                       subject_words[cls][(it->year) % 12], subject_words[cls][(it->year / 7) % 12],
                       subject_words[cls][(it->circ_count + it->year / 3) % 12]);
    /* a summary note of deterministic pseudo-text, 700..1900 bytes */
    uint32_t h = 2166136261u;
    for (const char *p = it->id; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    int target = 700 + (int)(h % 1200);
    while (len < target && (size_t)len + 20 < n) {
        h = h * 1103515245u + 12345u;
        const char *w = (h >> 16) % 3 ? subject_words[cls][(h >> 8) % 12] : connectors[(h >> 8) % 10];
        len += snprintf(buf + len, n - (size_t)len, "%s ", w);
    }
    len += snprintf(buf + len, n - (size_t)len, "\n");
    return len;
}

/* rewrite a record in place (open with O_TRUNC, write, close) */
static void write_record_inplace(item *it)
{
    char buf[RECMAX], path[1024];
    int len = format_record(it, buf, sizeof buf);
    snprintf(path, sizeof path, "%s/%s", g_dir, it->path);
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0) die("open", path);
    ssize_t w = write(fd, buf, (size_t)len);
    if (w != len) die("write", path);
    if (close(fd) != 0) die("close", path);
    it->size = len;
}

/* write a record to <dir>/<rel>.tmp and rename it over <rel> */
static void write_record_atomic(item *it)
{
    char buf[RECMAX], path[1024], tmp[1100];
    int len = format_record(it, buf, sizeof buf);
    snprintf(path, sizeof path, "%s/%s", g_dir, it->path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die("open", tmp);
    ssize_t w = write(fd, buf, (size_t)len);
    if (w != len) die("write", tmp);
    if (close(fd) != 0) die("close", tmp);
    if (rename(tmp, path) != 0) die("rename", tmp);
    it->size = len;
}

static void item_path(item *it, const char *root)
{
    char cls[4] = {it->call[0], '0', '0', 0};
    char sub[4] = {it->call[0], it->call[1], '0', 0};
    snprintf(it->path, sizeof it->path, "%s/%s/%s/%s.rec", root, cls, sub, it->id);
}

/* 1. accession */
static void create_catalog(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/catalog", g_dir);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/withdrawn", g_dir);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/circulation", g_dir);
    mkdir_p(path);
    for (int h = 0; h < 10; h++) {
        snprintf(path, sizeof path, "%s/catalog/%d00", g_dir, h);
        mkdir_p(path);
        for (int t = 0; t < 10; t++) {
            snprintf(path, sizeof path, "%s/catalog/%d00/%d%d0", g_dir, h, h, t);
            mkdir_p(path);
        }
    }
    items = calloc(NITEMS, sizeof(item));
    if (!items) { fprintf(stderr, "out of memory\n"); exit(1); }
    nitems = NITEMS;
    for (int i = 0; i < NITEMS; i++) {
        item *it = &items[i];
        int cls = rndn(10);
        int dew = cls * 100 + rndn(100);
        const char *au = surnames[rndn(26)];
        snprintf(it->id, sizeof it->id, "B%07d", 1000000 + i * 7);
        snprintf(it->call, sizeof it->call, "%03d.%02d %c%02d", dew, rndn(100), au[0], rndn(90) + 10);
        int nw = 3 + 2 * rndn(3);
        int len = 0;
        for (int k = 0; k < nw; k++) {
            const char *w = (k % 2) ? connectors[rndn(10)] : subject_words[cls][rndn(12)];
            /* some near-duplicate titles (different editions) */
            len += snprintf(it->title + len, sizeof it->title - (size_t)len, "%s%s", k ? " " : "", w);
        }
        snprintf(it->author, sizeof it->author, "%s, %c.", au, 'A' + rndn(26));
        it->year = 1900 + rndn(124);
        item_path(it, "catalog");
        write_record_atomic(it);
    }
}

/* read and minimally parse a record file (STATUS and CIRC lines) */
static int read_record(const char *rel, char *buf, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("open", path);
    ssize_t r = read(fd, buf, n - 1);
    if (r < 0) die("read", path);
    if (close(fd) != 0) die("close", path);
    buf[r] = 0;
    return (int)r;
}

/* 2. one day of circulation */
static void circulation_day(int day, long *tx_out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/circulation/day_%03d.log", g_dir, day);
    FILE *log = fopen(path, "w");
    if (!log) die("fopen", path);
    char buf[RECMAX];
    long tx = 0;
    for (int k = 0; k < TX_PER_DAY; k++) {
        /* popular items (low index within class) circulate more */
        int i = (int)((double)nitems * (double)(rnd() % 1000) * (double)(rnd() % 1000) / 1e6);
        item *it = &items[i];
        if (it->withdrawn) continue;
        read_record(it->path, buf, sizeof buf);
        if (!strstr(buf, it->id)) { fprintf(stderr, "record %s corrupt\n", it->path); exit(1); }
        const char *what;
        if (it->checked_out) {
            if (rndn(4) == 0 && it->due_day - day < 7) { it->due_day += 21; what = "RENEW"; }
            else { it->checked_out = 0; what = "RETURN"; }
        } else {
            it->checked_out = 1;
            it->due_day = day + 21;
            it->circ_count++;
            it->last_day = day;
            what = "CHECKOUT";
        }
        write_record_inplace(it);
        if (fprintf(log, "%03d %05d %-8s %s %s\n", day, k, what, it->id, it->call) < 0) die("fprintf", path);
        tx++;
    }
    if (fclose(log) != 0) die("fclose", path);
    *tx_out += tx;
}

/* 3. weeding: never-circulated items older than 1960 go to withdrawn/;
 *    withdrawn items from the first half of the list are purged */
static int weed_collection(int *purged)
{
    int moved = 0;
    *purged = 0;
    char from[1024], to[1024];
    for (int i = 0; i < nitems; i++) {
        item *it = &items[i];
        if (it->withdrawn || it->checked_out || it->circ_count > 0 || it->year >= 1960) continue;
        if (rndn(3) != 0) continue;
        snprintf(from, sizeof from, "%s/%s", g_dir, it->path);
        snprintf(it->path, sizeof it->path, "withdrawn/%s.rec", it->id);
        snprintf(to, sizeof to, "%s/%s", g_dir, it->path);
        if (rename(from, to) != 0) die("rename", from);
        it->withdrawn = 1;
        write_record_atomic(it);
        moved++;
    }
    for (int i = 0; i < nitems / 2; i++) {
        item *it = &items[i];
        if (it->withdrawn != 1 || rndn(2)) continue;
        snprintf(from, sizeof from, "%s/%s", g_dir, it->path);
        if (unlink(from) != 0) die("unlink", from);
        it->withdrawn = 2;      /* gone */
        (*purged)++;
    }
    return moved;
}

/* 4. reclassification into a different class directory */
static int reclassify_items(void)
{
    int n = 0;
    char old[1024];
    for (int i = 0; i < nitems; i++) {
        item *it = &items[i];
        if (it->withdrawn || rndn(50) != 0) continue;
        snprintf(old, sizeof old, "%s/%s", g_dir, it->path);
        int dew = atoi(it->call);
        int ndew = (dew + 10 + rndn(80)) % 1000;
        char tail[16];
        snprintf(tail, sizeof tail, "%s", it->call + 3);
        snprintf(it->call, sizeof it->call, "%03d%.15s", ndew, tail);
        item_path(it, "catalog");
        write_record_atomic(it);
        if (unlink(old) != 0) die("unlink", old);
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------ */
typedef struct {
    char call[24];
    char id[12];
    char title[160];
    char status[16];
    int circ;
    long size;
} shelf_entry;

static shelf_entry *inv;
static int ninv;

static void parse_into(const char *buf, shelf_entry *e)
{
    const char *p;
    memset(e, 0, sizeof *e);
    if ((p = strstr(buf, "ID: "))) sscanf(p + 4, "%11s", e->id);
    if ((p = strstr(buf, "CALL: "))) sscanf(p + 6, "%23[^\n]", e->call);
    if ((p = strstr(buf, "TITLE: "))) sscanf(p + 7, "%159[^\n]", e->title);
    if ((p = strstr(buf, "STATUS: "))) sscanf(p + 8, "%15s", e->status);
    if ((p = strstr(buf, "CIRC: "))) e->circ = atoi(p + 6);
}

/* 5a. recursive walk with opendir/readdir + stat + read */
static void walk(const char *rel, long *files, long *dirs, long *bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    DIR *d = opendir(path);
    if (!d) die("opendir", path);
    (*dirs)++;
    struct dirent *de;
    char **names = NULL;
    int nn = 0, cap = 0;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, (size_t)cap * sizeof *names);
            if (!names) { fprintf(stderr, "out of memory\n"); exit(1); }
        }
        names[nn++] = strdup(de->d_name);
    }
    if (errno != 0) die("readdir", path);
    if (closedir(d) != 0) die("closedir", path);
    /* deterministic order regardless of directory hashing */
    for (int i = 1; i < nn; i++) {
        char *x = names[i];
        int j = i - 1;
        while (j >= 0 && strcmp(names[j], x) > 0) { names[j + 1] = names[j]; j--; }
        names[j + 1] = x;
    }
    for (int i = 0; i < nn; i++) {
        char crel[512], full[1024];
        snprintf(crel, sizeof crel, "%s/%s", rel, names[i]);
        snprintf(full, sizeof full, "%s/%s", g_dir, crel);
        struct stat st;
        if (stat(full, &st) != 0) die("stat", full);
        if (S_ISDIR(st.st_mode)) {
            walk(crel, files, dirs, bytes);
        } else if (S_ISREG(st.st_mode)) {
            size_t len = strlen(names[i]);
            if (len < 4 || strcmp(names[i] + len - 4, ".rec") != 0) { free(names[i]); continue; }
            char buf[RECMAX];
            int r = read_record(crel, buf, sizeof buf);
            if (r != st.st_size) { fprintf(stderr, "%s: size changed\n", full); exit(1); }
            shelf_entry *e = &inv[ninv++];
            parse_into(buf, e);
            e->size = st.st_size;
            (*files)++;
            *bytes += st.st_size;
        }
        free(names[i]);
    }
    free(names);
}

static int cmp_call(const void *a, const void *b)
{
    const shelf_entry *x = a, *y = b;
    int c = strcmp(x->call, y->call);
    return c ? c : strcmp(x->id, y->id);
}

/* 5b. near-duplicate titles: Jaccard similarity of word sets inside a class */
static int split_words(const char *t, char w[MAXWORDS][24])
{
    int n = 0;
    const char *p = t;
    while (*p && n < MAXWORDS) {
        while (*p == ' ') p++;
        int k = 0;
        while (*p && *p != ' ' && k < 23) w[n][k++] = *p++;
        while (*p && *p != ' ') p++;
        w[n][k] = 0;
        if (k) n++;
    }
    return n;
}

static long detect_duplicates(void)
{
    long pairs = 0;
    char (*words)[MAXWORDS][24] = malloc(sizeof *words * (size_t)(ninv ? ninv : 1));
    int *nw = malloc(sizeof(int) * (size_t)(ninv ? ninv : 1));
    if (!words || !nw) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int i = 0; i < ninv; i++) nw[i] = split_words(inv[i].title, words[i]);
    int start = 0;
    for (int i = 1; i <= ninv; i++) {
        if (i < ninv && inv[i].call[0] == inv[start].call[0]) continue;
        /* class block [start, i) */
        for (int a = start; a < i; a++) {
            for (int b = a + 1; b < i; b++) {
                int inter = 0;
                for (int x = 0; x < nw[a]; x++)
                    for (int y = 0; y < nw[b]; y++)
                        if (strcmp(words[a][x], words[b][y]) == 0) { inter++; break; }
                int uni = nw[a] + nw[b] - inter;
                if (uni > 0 && inter * 10 >= uni * 8) pairs++;
            }
        }
        start = i;
    }
    free(words);
    free(nw);
    return pairs;
}

/* 5c. shelf lists, one small file per Dewey hundred */
static void write_shelflists(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/shelflists", g_dir);
    mkdir_p(path);
    FILE *fp = NULL;
    int cur = -1;
    for (int i = 0; i < ninv; i++) {
        int cls = inv[i].call[0] - '0';
        if (cls != cur) {
            if (fp && fclose(fp) != 0) die("fclose", path);
            snprintf(path, sizeof path, "%s/shelflists/class_%d00.txt", g_dir, cls);
            fp = fopen(path, "w");
            if (!fp) die("fopen", path);
            if (fprintf(fp, "SHELF LIST  class %d00\n", cls) < 0) die("fprintf", path);
            cur = cls;
        }
        if (fprintf(fp, "%-16s %-9s %-12s %4d  %s\n", inv[i].call, inv[i].id, inv[i].status, inv[i].circ,
                    inv[i].title) < 0)
            die("fprintf", path);
    }
    if (fp && fclose(fp) != 0) die("fclose", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];

    create_catalog();
    long tx = 0;
    for (int day = 1; day <= NDAYS; day++) circulation_day(day, &tx);
    int purged = 0;
    int moved = weed_collection(&purged);
    int recl = reclassify_items();

    inv = calloc((size_t)nitems, sizeof *inv);
    if (!inv) { fprintf(stderr, "out of memory\n"); return 1; }
    long files = 0, dirs = 0, bytes = 0;
    ninv = 0;
    walk("catalog", &files, &dirs, &bytes);
    long wfiles = 0, wdirs = 0, wbytes = 0;
    int ncat = ninv;
    walk("withdrawn", &wfiles, &wdirs, &wbytes);
    ninv = ncat;      /* withdrawn items are not shelved */

    qsort(inv, (size_t)ninv, sizeof *inv, cmp_call);
    long dups = detect_duplicates();
    write_shelflists();

    int out = 0;
    for (int i = 0; i < ninv; i++) out += strcmp(inv[i].status, "CHECKED_OUT") == 0;
    int expect = 0;
    for (int i = 0; i < nitems; i++) expect += items[i].withdrawn == 0;

    char path[1024];
    snprintf(path, sizeof path, "%s/collection_report.txt", g_dir);
    FILE *fp = fopen(path, "w");
    if (!fp) die("fopen", path);
    int bad = 0;
    bad |= fprintf(fp, "accessioned %d items, %d circulation days, %ld transactions\n", NITEMS, NDAYS, tx) < 0;
    bad |= fprintf(fp, "weeded %d (purged %d), reclassified %d\n", moved, purged, recl) < 0;
    bad |= fprintf(fp, "catalog walk: %ld directories, %ld records, %ld bytes; withdrawn shelf %ld records\n", dirs,
                   files, bytes, wfiles) < 0;
    bad |= fprintf(fp, "on loan %d, near-duplicate title pairs %ld\n", out, dups) < 0;
    if (bad || fclose(fp) != 0) die("write", path);
    if (files != expect) {
        fprintf(stderr, "inventory mismatch: %ld records found, %d expected\n", files, expect);
        return 1;
    }
    printf("library_catalog_shelf_tree: %ld records in %ld dirs, %ld transactions, %d weeded, %d reclassified, %ld dup pairs\n",
           files, dirs, tx, moved, recl, dups);
    free(items);
    free(inv);
    return 0;
}
