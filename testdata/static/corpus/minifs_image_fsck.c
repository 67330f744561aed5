/*
 * minifs_image_fsck.c -- build a tiny block file-system image and check it.
 *
 * The image (NBLOCKS blocks of BS bytes) holds a superblock, a block
 * bitmap, an inode table and data blocks; inodes have 12 direct pointers
 * and one single-indirect block.  The tool formats the image, populates
 * it with generated files (every data block written with pwrite, metadata
 * committed with fsync every COMMIT_EVERY files), deletes and re-creates a
 * fraction of the files in NCHURN cycles to fragment free space, runs an
 * fsck-like pass that re-reads every inode, indirect block and data block
 * with pread, verifies per-file CRC32C checksums, estimates per-file
 * compressibility, rebuilds the allocation bitmap and measures
 * fragmentation, defragments files into contiguous
 * extents (pread/pwrite) and checks the image again.  A text report is
 * written with write(2).
 *
 * Usage: minifs_image_fsck OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS            4096
#define NBLOCKS       12288
#define NINODES       2048
#define INODE_SIZE    128
#define INODES_PER_BLK (BS / INODE_SIZE)
#define ITABLE_START  2
#define ITABLE_BLOCKS (NINODES / INODES_PER_BLK)
#define DATA_START    (ITABLE_START + ITABLE_BLOCKS)
#define NDIRECT       12
#define PTRS_PER_BLK  (BS / 4)
#define NFILES_PHASE1 1400
#define NFILES_PHASE2 450
#define COMMIT_EVERY  50
#define NCHURN        4
#define MAX_FILE      (32 * 1024)
#define FS_MAGIC      0x4d494e49u

typedef struct {
    uint32_t magic, block_size, nblocks, ninodes;
    uint32_t free_blocks, used_inodes, generation, pad;
} super_t;

typedef struct {
    uint32_t used, size, nblocks, crc;
    uint32_t direct[NDIRECT];
    uint32_t indirect;
    uint32_t gen;
    char name[INODE_SIZE - 72];
} inode_t;

static uint32_t crc_tab[256];
static uint64_t prng = 0x853c49e6748fea9bull;
static const char *img_path;

static void fail(const char *what)
{
    fprintf(stderr, "minifs: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint32_t rnd(void)
{
    prng = prng * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t x = (uint32_t)(((prng >> 18) ^ prng) >> 27);
    uint32_t r = (uint32_t)(prng >> 59);
    return (x >> r) | (x << ((32 - r) & 31));
}

static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
        crc_tab[i] = c;
    }
}

static uint32_t crc32c(uint32_t c, const unsigned char *p, size_t n)
{
    c = ~c;
    while (n--)
        c = crc_tab[(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

static void put_block(int fd, uint32_t blk, const void *buf, size_t len, size_t within)
{
    if (pwrite(fd, buf, len, (off_t)blk * BS + (off_t)within) != (ssize_t)len)
        fail("pwrite");
}

static void get_block(int fd, uint32_t blk, void *buf, size_t len, size_t within)
{
    if (pread(fd, buf, len, (off_t)blk * BS + (off_t)within) != (ssize_t)len)
        fail("pread");
}

static void fs_format(int fd, super_t *sb, unsigned char *bitmap)
{
    unsigned char zero[BS];
    memset(zero, 0, sizeof zero);
    if (ftruncate(fd, (off_t)NBLOCKS * BS) != 0)
        fail("ftruncate");
    memset(sb, 0, sizeof *sb);
    sb->magic = FS_MAGIC;
    sb->block_size = BS;
    sb->nblocks = NBLOCKS;
    sb->ninodes = NINODES;
    sb->free_blocks = NBLOCKS - DATA_START;
    memset(bitmap, 0, BS);
    for (uint32_t b = 0; b < DATA_START; b++)
        bitmap[b >> 3] |= (unsigned char)(1u << (b & 7));
    for (uint32_t b = ITABLE_START; b < DATA_START; b++)
        put_block(fd, b, zero, BS, 0);
    put_block(fd, 1, bitmap, BS, 0);
    put_block(fd, 0, sb, sizeof *sb, 0);
    if (fsync(fd) != 0)
        fail("fsync");
}

/* First-fit allocation starting at *cursor (reset to DATA_START per file). */
static uint32_t block_alloc(unsigned char *bitmap, super_t *sb, uint32_t *cursor)
{
    for (uint32_t b = *cursor; b < NBLOCKS; b++) {
        if (!(bitmap[b >> 3] & (1u << (b & 7)))) {
            bitmap[b >> 3] |= (unsigned char)(1u << (b & 7));
            *cursor = b + 1;
            sb->free_blocks--;
            return b;
        }
    }
    return 0;
}

/* Pseudo text content: words from a small vocabulary. */
static void gen_content(unsigned char *buf, size_t n, uint32_t seed)
{
    static const char *words[] = { "lorem ", "block ", "inode ", "extent ", "journal ",
                                   "sector ", "bitmap ", "super ", "cache ", "fsync\n" };
    uint32_t s = seed * 2654435761u + 1;
    size_t p = 0;
    while (p < n) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        const char *w = words[s % 10];
        while (*w && p < n)
            buf[p++] = (unsigned char)*w++;
    }
}

static void write_inode(int fd, uint32_t ino, const inode_t *in)
{
    uint32_t blk = ITABLE_START + ino / INODES_PER_BLK;
    put_block(fd, blk, in, sizeof *in, (ino % INODES_PER_BLK) * INODE_SIZE);
}

static int fs_create(int fd, super_t *sb, unsigned char *bitmap, inode_t *itab,
                     uint32_t ino, uint32_t size, unsigned char *data)
{
    inode_t *in = &itab[ino];
    uint32_t nb = (size + BS - 1) / BS;
    if (nb > sb->free_blocks + (nb > NDIRECT ? 1 : 0))
        return -1;
    memset(in, 0, sizeof *in);
    in->used = 1;
    in->size = size;
    in->nblocks = nb;
    in->gen = ++sb->generation;
    snprintf(in->name, sizeof in->name, "file_%05u_g%u.txt", ino, in->gen);
    gen_content(data, size, ino ^ (in->gen << 12));
    in->crc = crc32c(0, data, size);
    uint32_t ind[PTRS_PER_BLK], cursor = DATA_START;
    memset(ind, 0, sizeof ind);
    if (nb > NDIRECT)
        in->indirect = block_alloc(bitmap, sb, &cursor);
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t b = block_alloc(bitmap, sb, &cursor);
        if (i < NDIRECT)
            in->direct[i] = b;
        else
            ind[i - NDIRECT] = b;
        size_t len = (i == nb - 1) ? size - (size_t)i * BS : BS;
        put_block(fd, b, data + (size_t)i * BS, len, 0);
    }
    if (nb > NDIRECT)
        put_block(fd, in->indirect, ind, BS, 0);
    write_inode(fd, ino, in);
    sb->used_inodes++;
    return 0;
}

static void fs_delete(int fd, super_t *sb, unsigned char *bitmap, inode_t *itab, uint32_t ino)
{
    inode_t *in = &itab[ino];
    uint32_t ind[PTRS_PER_BLK];
    if (in->nblocks > NDIRECT)
        get_block(fd, in->indirect, ind, BS, 0);
    for (uint32_t i = 0; i < in->nblocks; i++) {
        uint32_t b = i < NDIRECT ? in->direct[i] : ind[i - NDIRECT];
        bitmap[b >> 3] &= (unsigned char)~(1u << (b & 7));
        sb->free_blocks++;
    }
    if (in->nblocks > NDIRECT) {
        bitmap[in->indirect >> 3] &= (unsigned char)~(1u << (in->indirect & 7));
        sb->free_blocks++;
    }
    memset(in, 0, sizeof *in);
    write_inode(fd, ino, in);
    sb->used_inodes--;
}

static void fs_commit(int fd, const super_t *sb, const unsigned char *bitmap)
{
    put_block(fd, 1, bitmap, BS, 0);
    put_block(fd, 0, sb, sizeof *sb, 0);
    if (fsync(fd) != 0)
        fail("fsync");
}

/* Find a run of n free data blocks (first fit); returns 0 if none. */
static uint32_t find_extent(const unsigned char *bitmap, uint32_t n)
{
    uint32_t run = 0;
    for (uint32_t b = DATA_START; b < NBLOCKS; b++) {
        if (bitmap[b >> 3] & (1u << (b & 7)))
            run = 0;
        else if (++run == n)
            return b - n + 1;
    }
    return 0;
}

/* Move every fragmented file into a contiguous extent when one exists. */
static long defragment(int fd, super_t *sb, unsigned char *bitmap, inode_t *itab)
{
    unsigned char *buf = malloc((size_t)(NDIRECT + PTRS_PER_BLK) * BS);
    long moved = 0;
    for (uint32_t ino = 0; ino < NINODES; ino++) {
        inode_t *in = &itab[ino];
        if (!in->used || in->nblocks < 2)
            continue;
        uint32_t ind[PTRS_PER_BLK], blocks[NDIRECT + PTRS_PER_BLK];
        if (in->nblocks > NDIRECT)
            get_block(fd, in->indirect, ind, BS, 0);
        int frag = 0;
        for (uint32_t i = 0; i < in->nblocks; i++) {
            blocks[i] = i < NDIRECT ? in->direct[i] : ind[i - NDIRECT];
            if (i > 0 && blocks[i] != blocks[i - 1] + 1)
                frag = 1;
        }
        if (!frag)
            continue;
        uint32_t start = find_extent(bitmap, in->nblocks);
        if (!start)
            continue;
        for (uint32_t i = 0; i < in->nblocks; i++)
            get_block(fd, blocks[i], buf + (size_t)i * BS, BS, 0);
        for (uint32_t i = 0; i < in->nblocks; i++) {
            uint32_t nb = start + i;
            bitmap[nb >> 3] |= (unsigned char)(1u << (nb & 7));
            put_block(fd, nb, buf + (size_t)i * BS, BS, 0);
            bitmap[blocks[i] >> 3] &= (unsigned char)~(1u << (blocks[i] & 7));
            if (i < NDIRECT)
                in->direct[i] = nb;
            else
                ind[i - NDIRECT] = nb;
        }
        if (in->nblocks > NDIRECT)
            put_block(fd, in->indirect, ind, BS, 0);
        write_inode(fd, ino, in);
        if (++moved % COMMIT_EVERY == 0)
            fs_commit(fd, sb, bitmap);
    }
    fs_commit(fd, sb, bitmap);
    free(buf);
    return moved;
}

typedef struct {
    long files, bad_crc, blocks_used, bitmap_mismatch, fragments, bytes, est_compressed;
} fsck_t;

/* LZ77-style compressibility estimate: 4-byte hash heads with hash chains
 * searched up to CHAIN_DEPTH candidates, greedy longest match. */
#define CHAIN_DEPTH 24
static long estimate_compressed(const unsigned char *p, size_t n)
{
    static int32_t head[1 << 14];
    static int32_t prev[MAX_FILE + BS];
    memset(head, -1, sizeof head);
    long out = 0;
    size_t i = 0;
    while (i + 4 <= n) {
        uint32_t h = ((uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                      (uint32_t)p[i + 3] << 24) * 2654435761u >> 18;
        size_t best = 0;
        int32_t cand = head[h];
        for (int d = 0; d < CHAIN_DEPTH && cand >= 0; d++, cand = prev[cand]) {
            size_t len = 0;
            while (i + len < n && len < 258 && p[cand + len] == p[i + len])
                len++;
            if (len > best)
                best = len;
        }
        prev[i] = head[h];
        head[h] = (int32_t)i;
        if (best >= 4) {
            out += 3;                   /* (distance, length) token */
            i += best;
        } else {
            out += 1;                   /* literal */
            i++;
        }
    }
    return out + (long)(n - i);
}

static fsck_t fsck(int fd)
{
    fsck_t r;
    memset(&r, 0, sizeof r);
    super_t sb;
    get_block(fd, 0, &sb, sizeof sb, 0);
    if (sb.magic != FS_MAGIC) {
        fprintf(stderr, "bad superblock\n");
        exit(1);
    }
    unsigned char disk_bm[BS], calc_bm[BS], blk[BS];
    unsigned char *data = malloc(MAX_FILE + BS);
    get_block(fd, 1, disk_bm, BS, 0);
    memset(calc_bm, 0, BS);
    for (uint32_t b = 0; b < DATA_START; b++)
        calc_bm[b >> 3] |= (unsigned char)(1u << (b & 7));
    for (uint32_t tb = 0; tb < ITABLE_BLOCKS; tb++) {
        get_block(fd, ITABLE_START + tb, blk, BS, 0);
        for (int k = 0; k < INODES_PER_BLK; k++) {
            inode_t in;
            memcpy(&in, blk + k * INODE_SIZE, sizeof in);
            if (!in.used)
                continue;
            r.files++;
            uint32_t ind[PTRS_PER_BLK];
            if (in.nblocks > NDIRECT) {
                get_block(fd, in.indirect, ind, BS, 0);
                calc_bm[in.indirect >> 3] |= (unsigned char)(1u << (in.indirect & 7));
            }
            uint32_t prev = 0;
            for (uint32_t i = 0; i < in.nblocks; i++) {
                uint32_t b = i < NDIRECT ? in.direct[i] : ind[i - NDIRECT];
                size_t len = (i == in.nblocks - 1) ? in.size - (size_t)i * BS : BS;
                get_block(fd, b, data + (size_t)i * BS, len, 0);
                calc_bm[b >> 3] |= (unsigned char)(1u << (b & 7));
                if (i == 0 || b != prev + 1)
                    r.fragments++;
                prev = b;
                r.blocks_used++;
            }
            r.bytes += in.size;
            r.est_compressed += estimate_compressed(data, in.size);
            if (crc32c(0, data, in.size) != in.crc)
                r.bad_crc++;
        }
    }
    for (int i = 0; i < BS; i++)
        r.bitmap_mismatch += __builtin_popcount((unsigned)(disk_bm[i] ^ calc_bm[i]));
    free(data);
    return r;
}

/* Free-space histogram: lengths of free extents (pure compute on bitmap). */
static void free_extents(const unsigned char *bm, long hist[16])
{
    memset(hist, 0, 16 * sizeof(long));
    long run = 0;
    for (uint32_t b = DATA_START; b <= NBLOCKS; b++) {
        int used = b == NBLOCKS || (bm[b >> 3] & (1u << (b & 7)));
        if (!used) {
            run++;
        } else if (run) {
            int k = 0;
            while ((1L << (k + 1)) <= run && k < 15)
                k++;
            hist[k]++;
            run = 0;
        }
    }
}

static void write_report(const char *dir, const fsck_t *r, const long *hist, const super_t *sb)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/fsck_report.txt", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fail("open report");
    int n = snprintf(line, sizeof line,
                     "image %s\nfiles %ld bytes %ld blocks %ld fragments %ld\n"
                     "bad_crc %ld bitmap_mismatch_bits %ld free_blocks %u\n"
                     "estimated_compression_ratio %.3f\n",
                     img_path, r->files, r->bytes, r->blocks_used, r->fragments,
                     r->bad_crc, r->bitmap_mismatch, sb->free_blocks,
                     r->est_compressed > 0 ? (double)r->bytes / r->est_compressed : 0.0);
    if (write(fd, line, (size_t)n) != n)
        fail("write");
    for (int k = 0; k < 16; k++) {
        n = snprintf(line, sizeof line, "free_extent_len >= %6ld : %ld\n", 1L << k, hist[k]);
        if (write(fd, line, (size_t)n) != n)
            fail("write");
    }
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    mkdir(argv[1], 0755);
    char path[4096];
    snprintf(path, sizeof path, "%s/minifs.img", argv[1]);
    img_path = path;
    crc32c_init();

    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        fail("open image");
    super_t sb;
    unsigned char bitmap[BS];
    inode_t *itab = calloc(NINODES, sizeof(inode_t));
    unsigned char *data = malloc(MAX_FILE + BS);
    fs_format(fd, &sb, bitmap);

    uint32_t next = 0;
    for (int i = 0; i < NFILES_PHASE1; i++, next++) {
        uint32_t size = 256 + rnd() % MAX_FILE;
        if (fs_create(fd, &sb, bitmap, itab, next, size, data) != 0)
            break;
        if ((i + 1) % COMMIT_EVERY == 0)
            fs_commit(fd, &sb, bitmap);
    }
    /* churn cycles: delete every third file and write new ones */
    for (int cyc = 0; cyc < NCHURN; cyc++) {
        for (uint32_t ino = (uint32_t)cyc; ino < next; ino += 3)
            if (itab[ino].used)
                fs_delete(fd, &sb, bitmap, itab, ino);
        fs_commit(fd, &sb, bitmap);
        int created = 0;
        for (uint32_t ino = 0; ino < NINODES && created < NFILES_PHASE2; ino++) {
            if (itab[ino].used)
                continue;
            uint32_t size = 256 + rnd() % MAX_FILE;
            if (fs_create(fd, &sb, bitmap, itab, ino, size, data) != 0)
                break;
            if (ino >= next)
                next = ino + 1;
            if (++created % COMMIT_EVERY == 0)
                fs_commit(fd, &sb, bitmap);
        }
        fs_commit(fd, &sb, bitmap);
    }

    fsck_t before = fsck(fd);
    long moved = defragment(fd, &sb, bitmap, itab);
    fsck_t r = fsck(fd);
    long hist[16];
    free_extents(bitmap, hist);
    printf("defrag: moved %ld files, fragments %ld -> %ld\n", moved, before.fragments,
           r.fragments);
    close(fd);
    write_report(argv[1], &r, hist, &sb);
    printf("files=%ld bytes=%ld fragments=%ld bad_crc=%ld bitmap_mismatch=%ld free=%u\n",
           r.files, r.bytes, r.fragments, r.bad_crc, r.bitmap_mismatch, sb.free_blocks);
    free(itab);
    free(data);
    return 0;
}
