/*
 * slotted_page_vacuum.c
 *
 * A miniature heap-file storage engine using 4 KiB slotted pages with a
 * per-page CRC32, driven entirely through POSIX open/pread/pwrite:
 *   1. bulk-load variable-length customer records into a heap file,
 *   2. scan the heap and build a sorted key -> (page, slot) index file,
 *   3. apply a random workload of deletes and balance updates, each one a
 *      read-modify-write of a single page located through the index,
 *   4. VACUUM: rewrite live tuples densely into a new heap file, fsync it,
 *      rebuild the index and atomically rename both over the old files,
 *   5. verify random point lookups and write a space-usage report.
 *
 * usage: slotted_page_vacuum DIR
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define PAGE_SIZE   4096
#define NRECORDS    60000
#define NDELETES    8000
#define NUPDATES    8000
#define NLOOKUPS    50000
#define PAGE_MAGIC  0x50414745u /* "PAGE" */

typedef struct {
    uint32_t magic;
    uint32_t page_no;
    uint32_t crc;
    uint16_t nslots;
    uint16_t data_start; /* offset of the lowest record byte */
} page_header;

typedef struct {
    uint16_t off;
    uint16_t len; /* 0 = dead slot */
} slot_entry;

typedef struct {
    uint32_t key;
    int32_t  balance_cents;
    uint16_t region;
    uint16_t name_len;
    /* followed by name bytes */
} tuple_head;

typedef struct {
    uint32_t key;
    uint32_t page;
    uint16_t slot;
    uint16_t pad;
} index_entry;

typedef struct {
    long pages_read, pages_written, live, dead;
} io_stats;

static uint32_t crc_table[256];
static io_stats st;

static uint32_t page_crc(const unsigned char *page)
{
    if (!crc_table[1]) { /* lazily build the CRC-32C table */
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t t = i;
            for (int k = 0; k < 8; k++) t = (t & 1) ? 0x82F63B78u ^ (t >> 1) : t >> 1;
            crc_table[i] = t;
        }
    }
    uint32_t c = 0xFFFFFFFFu;
    for (int i = 0; i < PAGE_SIZE; i++) {
        unsigned char b = (i >= 8 && i < 12) ? 0 : page[i]; /* skip the crc field itself */
        c = crc_table[(c ^ b) & 0xFF] ^ (c >> 8);
    }
    return ~c;
}

static void page_init(unsigned char *page, uint32_t pno)
{
    memset(page, 0, PAGE_SIZE);
    page_header *h = (page_header *)page;
    h->magic = PAGE_MAGIC;
    h->page_no = pno;
    h->nslots = 0;
    h->data_start = PAGE_SIZE;
}

/* Returns slot number or -1 if the tuple does not fit. */
static int page_insert(unsigned char *page, const void *tuple, uint16_t len)
{
    page_header *h = (page_header *)page;
    size_t slots_end = sizeof(page_header) + (h->nslots + 1) * sizeof(slot_entry);
    if (slots_end + len > h->data_start) return -1;
    h->data_start -= len;
    memcpy(page + h->data_start, tuple, len);
    slot_entry *s = (slot_entry *)(page + sizeof(page_header));
    s[h->nslots].off = h->data_start;
    s[h->nslots].len = len;
    return h->nslots++;
}

static void page_write(int fd, uint32_t pno, unsigned char *page)
{
    ((page_header *)page)->crc = page_crc(page);
    if (pwrite(fd, page, PAGE_SIZE, (off_t)pno * PAGE_SIZE) != PAGE_SIZE) { perror("pwrite"); exit(1); }
    st.pages_written++;
}

static void page_read(int fd, uint32_t pno, unsigned char *page)
{
    if (pread(fd, page, PAGE_SIZE, (off_t)pno * PAGE_SIZE) != PAGE_SIZE) { perror("pread"); exit(1); }
    st.pages_read++;
    page_header *h = (page_header *)page;
    if (h->magic != PAGE_MAGIC || h->page_no != pno || h->crc != page_crc(page)) {
        fprintf(stderr, "page %u: checksum/magic mismatch\n", pno);
        exit(1);
    }
}

static uint64_t rng = 0x853C49E6748FEA9Bull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static uint16_t make_tuple(unsigned char *buf, uint32_t key)
{
    static const char *first[] = {"Ada", "Boris", "Chioma", "Dmitri", "Elif", "Farid", "Greta", "Hiro"};
    static const char *last[] = {"Okafor", "Lindqvist", "Nakamura", "Petrov", "Silva", "Moreau"};
    tuple_head th;
    char name[160];
    int extra = (int)(rnd() % 90);
    int n = snprintf(name, sizeof name, "%s %s #%u ", first[key % 8], last[(key / 8) % 6], key);
    for (int i = 0; i < extra && n < (int)sizeof name - 1; i++) name[n++] = (char)('a' + (key + i) % 26);
    th.key = key;
    th.balance_cents = (int32_t)(rnd() % 2000000) - 500000;
    th.region = (uint16_t)(key % 12);
    th.name_len = (uint16_t)n;
    memcpy(buf, &th, sizeof th);
    memcpy(buf + sizeof th, name, n);
    return (uint16_t)(sizeof th + n);
}

static uint32_t bulk_load(int fd, uint32_t nrec)
{
    unsigned char page[PAGE_SIZE], tup[256];
    uint32_t pno = 0;
    page_init(page, pno);
    for (uint32_t i = 0; i < nrec; i++) {
        uint32_t key = i * 2654435761u % 1000003u; /* unique, scrambled */
        uint16_t len = make_tuple(tup, key);
        if (page_insert(page, tup, len) < 0) {
            page_write(fd, pno, page);
            page_init(page, ++pno);
            page_insert(page, tup, len);
        }
    }
    page_write(fd, pno, page);
    return pno + 1;
}

static int cmp_index(const void *a, const void *b)
{
    uint32_t x = ((const index_entry *)a)->key, y = ((const index_entry *)b)->key;
    return (x > y) - (x < y);
}

/* Full scan of the heap; returns number of live tuples indexed. */
static uint32_t build_index(int heap_fd, uint32_t npages, const char *idx_path, index_entry **out)
{
    unsigned char page[PAGE_SIZE];
    uint32_t cap = 1024, n = 0;
    index_entry *idx = malloc(cap * sizeof *idx);
    for (uint32_t p = 0; p < npages; p++) {
        page_read(heap_fd, p, page);
        page_header *h = (page_header *)page;
        slot_entry *s = (slot_entry *)(page + sizeof(page_header));
        for (uint16_t k = 0; k < h->nslots; k++) {
            if (s[k].len == 0) continue;
            if (n == cap) idx = realloc(idx, (cap *= 2) * sizeof *idx);
            tuple_head th;
            memcpy(&th, page + s[k].off, sizeof th);
            idx[n].key = th.key; idx[n].page = p; idx[n].slot = k; idx[n].pad = 0;
            n++;
        }
    }
    qsort(idx, n, sizeof *idx, cmp_index);
    int fd = open(idx_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(idx_path); exit(1); }
    if (write(fd, &n, sizeof n) != sizeof n || write(fd, idx, n * sizeof *idx) != (ssize_t)(n * sizeof *idx)) {
        perror("index write");
        exit(1);
    }
    close(fd);
    *out = idx;
    return n;
}

/* Random deletes and in-place updates: one page read-modify-write each. */
static void apply_workload(int fd, index_entry *idx, uint32_t n, long ndel, long nupd, FILE *journal)
{
    unsigned char page[PAGE_SIZE];
    for (long i = 0; i < ndel + nupd; i++) {
        int is_del = (long)(rnd() % (uint32_t)(ndel + nupd)) < ndel;
        index_entry *e = &idx[rnd() % n];
        if (e->page == UINT32_MAX) continue; /* already deleted */
        uint32_t pno = e->page;
        page_read(fd, pno, page);
        slot_entry *s = (slot_entry *)(page + sizeof(page_header));
        if (is_del) {
            s[e->slot].len = 0;
            fprintf(journal, "DEL %u p%u s%u\n", e->key, pno, e->slot);
            e->page = UINT32_MAX;
        } else {
            tuple_head th;
            memcpy(&th, page + s[e->slot].off, sizeof th);
            int32_t delta = (int32_t)(rnd() % 20001) - 10000;
            th.balance_cents += delta;
            memcpy(page + s[e->slot].off, &th, sizeof th);
            fprintf(journal, "UPD %u %+d -> %d\n", e->key, delta, th.balance_cents);
        }
        page_write(fd, pno, page);
    }
}

/* Copy live tuples into a fresh, densely packed heap file. */
static uint32_t vacuum(int old_fd, uint32_t npages, const char *new_path, long *region_cents)
{
    int nfd = open(new_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (nfd < 0) { perror(new_path); exit(1); }
    unsigned char in[PAGE_SIZE], out[PAGE_SIZE];
    uint32_t npno = 0;
    page_init(out, npno);
    st.live = st.dead = 0;
    for (uint32_t p = 0; p < npages; p++) {
        page_read(old_fd, p, in);
        page_header *h = (page_header *)in;
        slot_entry *s = (slot_entry *)(in + sizeof(page_header));
        for (uint16_t k = 0; k < h->nslots; k++) {
            if (s[k].len == 0) { st.dead++; continue; }
            st.live++;
            tuple_head th;
            memcpy(&th, in + s[k].off, sizeof th);
            region_cents[th.region] += th.balance_cents;
            if (page_insert(out, in + s[k].off, s[k].len) < 0) {
                page_write(nfd, npno, out);
                page_init(out, ++npno);
                page_insert(out, in + s[k].off, s[k].len);
            }
        }
    }
    page_write(nfd, npno, out);
    if (fsync(nfd) != 0) perror("fsync");
    close(nfd);
    return npno + 1;
}

static long verify_lookups(int fd, index_entry *idx, uint32_t n, long nlook)
{
    unsigned char page[PAGE_SIZE];
    long found = 0;
    for (long i = 0; i < nlook; i++) {
        uint32_t key = idx[rnd() % n].key;
        index_entry probe = {key, 0, 0, 0};
        index_entry *e = bsearch(&probe, idx, n, sizeof *idx, cmp_index);
        if (!e) continue;
        page_read(fd, e->page, page);
        slot_entry *s = (slot_entry *)(page + sizeof(page_header));
        tuple_head th;
        memcpy(&th, page + s[e->slot].off, sizeof th);
        if (th.key != key) { fprintf(stderr, "lookup mismatch for key %u\n", key); exit(1); }
        found++;
    }
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    const char *dir = argv[1];
    char heap[512], heap_new[512], idx[512], idx_new[512], jpath[512], rpath[512];
    mkdir(dir, 0755);
    snprintf(heap, sizeof heap, "%s/customers.heap", dir);
    snprintf(heap_new, sizeof heap_new, "%s/customers.heap.vacuum", dir);
    snprintf(idx, sizeof idx, "%s/customers.idx", dir);
    snprintf(idx_new, sizeof idx_new, "%s/customers.idx.vacuum", dir);
    snprintf(jpath, sizeof jpath, "%s/workload.journal", dir);
    snprintf(rpath, sizeof rpath, "%s/space_report.txt", dir);

    int fd = open(heap, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(heap); return 1; }
    uint32_t npages = bulk_load(fd, NRECORDS);
    index_entry *ix = NULL;
    uint32_t nidx = build_index(fd, npages, idx, &ix);

    FILE *journal = fopen(jpath, "w");
    if (!journal) { perror(jpath); return 1; }
    apply_workload(fd, ix, nidx, NDELETES, NUPDATES, journal);
    fclose(journal);

    long region_cents[12] = {0};
    uint32_t new_pages = vacuum(fd, npages, heap_new, region_cents);
    close(fd);
    free(ix);
    fd = open(heap_new, O_RDONLY);
    uint32_t nlive = build_index(fd, new_pages, idx_new, &ix);
    if (rename(heap_new, heap) != 0 || rename(idx_new, idx) != 0) { perror("rename"); return 1; }
    long found = verify_lookups(fd, ix, nlive, NLOOKUPS);
    close(fd);

    FILE *r = fopen(rpath, "w");
    if (!r) { perror(rpath); return 1; }
    fprintf(r, "pages_before %u\npages_after %u\nlive %ld\ndead %ld\nfill_gain %.3f\n", npages,
            new_pages, st.live, st.dead, (double)npages / new_pages);
    fprintf(r, "pages_read %ld\npages_written %ld\nlookups_ok %ld\n", st.pages_read, st.pages_written, found);
    for (int g = 0; g < 12; g++) fprintf(r, "region %2d balance %.2f\n", g, region_cents[g] / 100.0);
    fclose(r);
    printf("heap %u -> %u pages, %u live tuples, %ld lookups verified\n", npages, new_pages, nlive, found);
    free(ix);
    return 0;
}
