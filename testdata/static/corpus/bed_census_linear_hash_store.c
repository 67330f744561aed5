/* Hospital bed-occupancy store on an on-disk linear hash table.
 * Admission records (fixed 128-byte slots) live in 4 KiB bucket pages of a
 * single file, addressed with pread/pwrite; overflow pages are chained and
 * allocated at the end of the file (found with lseek SEEK_END).  The table
 * grows by linear hashing (split pointer, level).  A 90-day simulation of a
 * regional hospital generates admissions (insert), ward transfers and
 * discharges (read-modify-write), bedside look-ups, and a nightly census that
 * scans every page to compute occupancy per ward, written to a CSV.  A final
 * verification pass re-reads every record and checks the table invariants. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096
#define SLOTS 31
#define INIT_BUCKETS 64
#define MAX_BUCKETS 16384
#define DAYS 90
#define NWARDS 14
#define BEDS_PER_WARD 120
#define MAX_LOAD 0.80

typedef struct {
    uint64_t adm_id;
    uint32_t patient;
    uint16_t ward, bed;
    int32_t admit_min, discharge_min; /* minutes since start, -1 = in bed */
    uint8_t acuity, transfers, used, pad;
    char diagnosis[12];
    float los_pred;
    char notes[84];
} adm_t;

typedef struct {
    uint32_t nrec;
    uint32_t overflow; /* page number of next overflow page, 0 = none */
    uint64_t pad;
    adm_t slot[SLOTS];
} page_t;

_Static_assert(sizeof(adm_t) == 128, "slot size");
_Static_assert(sizeof(page_t) <= PAGE, "page size");

typedef struct {
    int fd;
    uint32_t level, split, nbuckets;
    uint64_t nrec;
    uint32_t bucket_page[MAX_BUCKETS]; /* primary page of each bucket */
    long preads, pwrites;
} lhash;

static char outdir[4000];
static const char *dx_codes[] = {"I21.9", "J18.9", "S72.0", "N39.0", "K35.8", "I63.9", "J44.1", "E11.6"};

static void die(const char *what)
{
    fprintf(stderr, "bed_census: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t rs = 0xbedbedbedull;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void page_read(lhash *h, uint32_t pno, page_t *p)
{
    ssize_t r = pread(h->fd, p, sizeof *p, (off_t)pno * PAGE);
    if (r != (ssize_t)sizeof *p) die("pread page");
    h->preads++;
}

static void page_write(lhash *h, uint32_t pno, const page_t *p)
{
    ssize_t w = pwrite(h->fd, p, sizeof *p, (off_t)pno * PAGE);
    if (w != (ssize_t)sizeof *p) die("pwrite page");
    h->pwrites++;
}

static uint32_t alloc_page(lhash *h)
{
    off_t end = lseek(h->fd, 0, SEEK_END);
    if (end < 0) die("lseek");
    uint32_t pno = (uint32_t)((end + PAGE - 1) / PAGE);
    static const page_t zero;
    page_write(h, pno, &zero);
    return pno;
}

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static uint32_t bucket_of(const lhash *h, uint64_t key)
{
    uint64_t x = mix(key);
    uint32_t b = (uint32_t)(x % ((uint64_t)INIT_BUCKETS << h->level));
    if (b < h->split) b = (uint32_t)(x % ((uint64_t)INIT_BUCKETS << (h->level + 1)));
    return b;
}

static void lh_create(lhash *h, const char *path)
{
    memset(h, 0, sizeof *h);
    h->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (h->fd < 0) die("open table");
    static const page_t zero;
    page_write(h, 0, &zero); /* page 0: header */
    h->nbuckets = INIT_BUCKETS;
    for (uint32_t b = 0; b < INIT_BUCKETS; b++) h->bucket_page[b] = alloc_page(h);
}

/* Put a record into the chain starting at page pno (no duplicate check). */
static void chain_put(lhash *h, uint32_t pno, const adm_t *rec)
{
    page_t p;
    for (;;) {
        page_read(h, pno, &p);
        for (int s = 0; s < SLOTS; s++)
            if (!p.slot[s].used) {
                p.slot[s] = *rec;
                p.slot[s].used = 1;
                p.nrec++;
                page_write(h, pno, &p);
                return;
            }
        if (!p.overflow) {
            p.overflow = alloc_page(h);
            page_write(h, pno, &p);
        }
        pno = p.overflow;
    }
}

/* Split the bucket at the split pointer into itself and its buddy. */
static void lh_split(lhash *h)
{
    uint32_t old = h->split;
    uint32_t buddy = old + ((uint32_t)INIT_BUCKETS << h->level);
    if (buddy >= MAX_BUCKETS) return;
    h->bucket_page[buddy] = alloc_page(h);
    h->nbuckets++;
    h->split++;
    if (h->split == ((uint32_t)INIT_BUCKETS << h->level)) {
        h->level++;
        h->split = 0;
    }
    /* collect the old chain, reset its first page, reinsert records */
    adm_t *tmp = malloc(sizeof(adm_t) * SLOTS * 64);
    size_t n = 0, cap = SLOTS * 64;
    uint32_t pno = h->bucket_page[old];
    page_t p;
    while (pno) {
        page_read(h, pno, &p);
        for (int s = 0; s < SLOTS; s++)
            if (p.slot[s].used) {
                if (n == cap) tmp = realloc(tmp, sizeof(adm_t) * (cap *= 2));
                if (!tmp) { fprintf(stderr, "out of memory\n"); exit(1); }
                tmp[n++] = p.slot[s];
            }
        uint32_t next = p.overflow;
        memset(&p, 0, sizeof p);
        page_write(h, pno, &p); /* overflow pages are leaked to a free list in real life */
        pno = next;
    }
    for (size_t i = 0; i < n; i++) chain_put(h, h->bucket_page[bucket_of(h, tmp[i].adm_id)], &tmp[i]);
    free(tmp);
}

static void lh_insert(lhash *h, const adm_t *rec)
{
    chain_put(h, h->bucket_page[bucket_of(h, rec->adm_id)], rec);
    h->nrec++;
    if ((double)h->nrec / ((double)h->nbuckets * SLOTS) > MAX_LOAD) lh_split(h);
}

/* Find a record; optionally apply an update function and write back. */
static int lh_update(lhash *h, uint64_t key, void (*fn)(adm_t *, void *), void *arg, adm_t *out)
{
    uint32_t pno = h->bucket_page[bucket_of(h, key)];
    page_t p;
    while (pno) {
        page_read(h, pno, &p);
        for (int s = 0; s < SLOTS; s++)
            if (p.slot[s].used && p.slot[s].adm_id == key) {
                if (fn) {
                    fn(&p.slot[s], arg);
                    page_write(h, pno, &p);
                }
                if (out) *out = p.slot[s];
                return 1;
            }
        pno = p.overflow;
    }
    return 0;
}

static void do_discharge(adm_t *a, void *arg) { a->discharge_min = *(int32_t *)arg; }
static void do_transfer(adm_t *a, void *arg)
{
    a->ward = (uint16_t)(*(int *)arg);
    a->transfers++;
    snprintf(a->notes, sizeof a->notes, "transferred to ward %d (transfer %d)", a->ward, a->transfers);
}

/* Nightly census: sequential scan of every page in the file. */
static void census(lhash *h, int32_t now, int occ[NWARDS], double *mean_acuity)
{
    struct stat st;
    if (fstat(h->fd, &st) != 0) die("fstat");
    uint32_t npages = (uint32_t)(st.st_size / PAGE);
    memset(occ, 0, sizeof(int) * NWARDS);
    double acu = 0;
    long n = 0;
    page_t p;
    for (uint32_t pno = 1; pno < npages; pno++) {
        page_read(h, pno, &p);
        for (int s = 0; s < SLOTS; s++) {
            const adm_t *a = &p.slot[s];
            if (!a->used || a->admit_min > now) continue;
            if (a->discharge_min < 0 || a->discharge_min > now) {
                occ[a->ward]++;
                acu += a->acuity;
                n++;
            }
        }
    }
    *mean_acuity = n ? acu / n : 0.0;
}

typedef struct { uint64_t id; int32_t due; } pending_t;

static int cmp_due(const void *a, const void *b)
{
    const pending_t *x = a, *y = b;
    return (x->due > y->due) - (x->due < y->due);
}

static void write_header(lhash *h)
{
    char hdr[64];
    memset(hdr, 0, sizeof hdr);
    int n = snprintf(hdr, sizeof hdr, "LHASH v1 level=%u split=%u buckets=%u", h->level, h->split, h->nbuckets);
    if (pwrite(h->fd, hdr, (size_t)n, 0) != n) die("pwrite header");
    if (pwrite(h->fd, &h->nrec, sizeof h->nrec, 56) != (ssize_t)sizeof h->nrec) die("pwrite header");
}

/* Re-read all buckets, check every record hashes to the bucket holding it. */
static long verify(lhash *h, long *misplaced)
{
    long n = 0;
    *misplaced = 0;
    page_t p;
    for (uint32_t b = 0; b < h->nbuckets; b++) {
        uint32_t pno = h->bucket_page[b];
        while (pno) {
            page_read(h, pno, &p);
            for (int s = 0; s < SLOTS; s++)
                if (p.slot[s].used) {
                    n++;
                    if (bucket_of(h, p.slot[s].adm_id) != b) (*misplaced)++;
                }
            pno = p.overflow;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    char path[4200];
    snprintf(path, sizeof path, "%s/admissions.lh", outdir);
    static lhash h;
    lh_create(&h, path);

    snprintf(path, sizeof path, "%s/nightly_census.csv", outdir);
    FILE *csv = fopen(path, "w");
    if (!csv) die("fopen census");
    if (fprintf(csv, "day,ward,occupied,beds,occupancy,mean_acuity\n") < 0) die("fprintf");

    size_t pcap = 1 << 17, np = 0;
    pending_t *pend = malloc(pcap * sizeof *pend);
    if (!pend) { fprintf(stderr, "out of memory\n"); return 1; }
    uint64_t next_id = 1;
    long lookups = 0, found = 0, transfers = 0, discharges = 0;
    double peak_occ = 0;
    for (int day = 0; day < DAYS; day++) {
        int arrivals = 680 + (int)(90.0 * sin(day * 2 * 3.14159265 / 7.0)) + (int)(urand() * 60);
        for (int k = 0; k < arrivals; k++) {
            adm_t a;
            memset(&a, 0, sizeof a);
            a.adm_id = next_id++ * 7919u + 1000003u;
            a.patient = (uint32_t)(urand() * 5e6);
            a.ward = (uint16_t)(urand() * NWARDS);
            a.bed = (uint16_t)(urand() * BEDS_PER_WARD);
            a.admit_min = day * 1440 + (int32_t)(urand() * 1440);
            a.discharge_min = -1;
            a.acuity = (uint8_t)(1 + urand() * 5);
            snprintf(a.diagnosis, sizeof a.diagnosis, "%s", dx_codes[(int)(urand() * 8)]);
            a.los_pred = (float)(-log(urand()) * 0.6 * a.acuity);
            snprintf(a.notes, sizeof a.notes, "admitted via %s, triage %d", urand() < 0.6 ? "ED" : "elective",
                     a.acuity);
            lh_insert(&h, &a);
            if (np == pcap) pend = realloc(pend, (pcap *= 2) * sizeof *pend);
            if (!pend) { fprintf(stderr, "out of memory\n"); return 1; }
            pend[np].id = a.adm_id;
            pend[np].due = a.admit_min + (int32_t)(a.los_pred * 1440.0) + 60;
            np++;
            if (urand() < 0.15) {
                int w = (int)(urand() * NWARDS);
                if (lh_update(&h, a.adm_id, do_transfer, &w, NULL)) transfers++;
            }
        }
        /* bedside look-ups of random recent admissions */
        for (int k = 0; k < 1500; k++) {
            uint64_t id = (uint64_t)(1 + urand() * (double)(next_id - 1)) * 7919u + 1000003u;
            adm_t out;
            lookups++;
            found += lh_update(&h, id, NULL, NULL, &out);
        }
        /* discharges due by end of day */
        qsort(pend, np, sizeof *pend, cmp_due);
        int32_t eod = (day + 1) * 1440;
        size_t k = 0;
        while (k < np && pend[k].due <= eod) {
            int32_t t = pend[k].due;
            if (lh_update(&h, pend[k].id, do_discharge, &t, NULL)) discharges++;
            k++;
        }
        memmove(pend, pend + k, (np - k) * sizeof *pend);
        np -= k;
        int occ[NWARDS];
        double ma;
        census(&h, eod - 1, occ, &ma);
        for (int w = 0; w < NWARDS; w++) {
            double o = (double)occ[w] / BEDS_PER_WARD;
            if (o > peak_occ) peak_occ = o;
            if (fprintf(csv, "%d,%d,%d,%d,%.3f,%.2f\n", day, w, occ[w], BEDS_PER_WARD, o, ma) < 0) die("fprintf");
        }
    }
    if (fclose(csv) != 0) die("fclose census");
    write_header(&h);
    long misplaced;
    long nrec = verify(&h, &misplaced);
    if (fsync(h.fd) != 0) die("fsync");
    if (close(h.fd) != 0) die("close table");
    free(pend);
    snprintf(path, sizeof path, "%s/store_stats.txt", outdir);
    FILE *s = fopen(path, "w");
    if (!s || fprintf(s, "records %ld buckets %u level %u misplaced %ld preads %ld pwrites %ld lookups %ld found %ld\n",
                      nrec, h.nbuckets, h.level, misplaced, h.preads, h.pwrites, lookups, found) < 0 ||
        fclose(s) != 0)
        die("write stats");
    printf("bed census: %ld admissions, %ld discharges, %ld transfers, %u buckets, peak ward occupancy %.2f, "
           "%ld preads/%ld pwrites\n",
           nrec, discharges, transfers, h.nbuckets, peak_occ, h.preads, h.pwrites);
    return misplaced ? 1 : 0;
}
