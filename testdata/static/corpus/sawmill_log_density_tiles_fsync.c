/*
 * sawmill_log_density_tiles_fsync.c
 *
 * CT log scanner at a sawmill infeed.  For every log a synthetic density
 * volume is generated slice by slice (taper, ovality, sweep, off-centre pith,
 * growth rings, heartwood, bark, knot whorls and rot pockets).  Each slice is
 * cut into 32x32 tiles which are appended to a per-log tile file with fwrite;
 * the stream is fflush'ed after every tile and fdatasync'ed after every block
 * of 8 slices so that the optimiser downstream can start on committed data.
 * A binary tile index (offset + Adler-32 per tile) is written alongside.
 *
 * The optimiser then re-reads each log through the index, segments knots,
 * and searches cant rotations and board offsets for the highest-value sawing
 * pattern.  Results go to a CSV cut plan and a text summary.
 *
 * Usage: sawmill_log_density_tiles_fsync OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846
#define NLOG 24
#define NSLICE 80          /* slices per log, 4 cm apart */
#define NPIX 128           /* slice is NPIX x NPIX, 4 mm pixels */
#define TILE 32
#define NTILE_SIDE (NPIX / TILE)
#define TILES_PER_SLICE (NTILE_SIDE * NTILE_SIDE)
#define SYNC_BLOCK 8
#define MAXKNOT 64
#define NANGLE 12
#define PIXMM 4.0

typedef struct {
    double z0, azim, len, dia; /* start slice, direction, length (mm), diameter (mm) */
    int sound;                 /* sound (1) or dead/loose (0) knot */
} knot_t;

typedef struct {
    double r_butt, r_top;      /* radius mm */
    double oval, oval_ang;     /* ovality */
    double sweep;              /* mm of bow at mid length */
    double pith_dx, pith_dy;   /* pith offset mm */
    double ring_w;             /* mean ring width mm */
    double heart_frac;
    int nknot;
    knot_t knot[MAXKNOT];
    double rot_z, rot_r;       /* rot pocket centre slice, radius mm; r<0 none */
    uint32_t seed;
} log_geom;

typedef struct {
    uint64_t offset;
    uint32_t adler;
    uint16_t slice, tile;
} tile_entry;

static const char *g_dir;
static uint64_t g_rng = 0xC0FFEE1234567ull;

static void die(const char *what)
{
    fprintf(stderr, "sawmill: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(2);
}

static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t adler32(const unsigned char *p, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

/* Random but plausible log shapes: spruce-like whorls every ~50 cm. */
static void generate_log_geometry(log_geom *g, int nlog)
{
    for (int l = 0; l < nlog; l++) {
        log_geom *q = &g[l];
        q->r_top = 110.0 + 60.0 * urand();
        q->r_butt = q->r_top * (1.15 + 0.25 * urand());
        q->oval = 0.03 + 0.10 * urand();
        q->oval_ang = PI * urand();
        q->sweep = 25.0 * urand();
        q->pith_dx = 18.0 * (urand() - 0.5);
        q->pith_dy = 18.0 * (urand() - 0.5);
        q->ring_w = 1.5 + 3.0 * urand();
        q->heart_frac = 0.45 + 0.25 * urand();
        q->nknot = 0;
        q->seed = (uint32_t)(urand() * 4294967295.0);
        for (double z = 4 + 8 * urand(); z < NSLICE - 2 && q->nknot < MAXKNOT - 6; z += 10 + 4 * urand()) {
            int nw = 3 + (int)(4 * urand());
            double a0 = 2 * PI * urand();
            for (int k = 0; k < nw; k++) {
                knot_t *kn = &q->knot[q->nknot++];
                kn->z0 = z + urand();
                kn->azim = a0 + 2 * PI * k / nw + 0.3 * (urand() - 0.5);
                kn->len = 60.0 + 90.0 * urand();
                kn->dia = 10.0 + 25.0 * urand() * (1.0 - z / (1.6 * NSLICE));
                kn->sound = z > NSLICE * 0.35 ? (urand() < 0.7) : (urand() < 0.3);
            }
        }
        if (urand() < 0.3) {
            q->rot_z = NSLICE * 0.1 * urand();
            q->rot_r = 20 + 30 * urand();
        } else {
            q->rot_z = 0;
            q->rot_r = -1;
        }
    }
}

/* Density (kg/m^3 scaled to 0..255) of one transverse slice. */
static void scan_slice(const log_geom *q, int s, unsigned char *img)
{
    double zf = (double)s / (NSLICE - 1);
    double R = q->r_butt + (q->r_top - q->r_butt) * zf;
    double bow = q->sweep * sin(PI * zf);
    double cx = q->pith_dx + bow, cy = q->pith_dy;
    double ca = cos(q->oval_ang), sa = sin(q->oval_ang);
    /* knots active in this slice */
    int act[MAXKNOT], na = 0;
    for (int k = 0; k < q->nknot; k++) {
        double dz = s - q->knot[k].z0;
        if (dz > -1.0 && dz < q->knot[k].len / 40.0 + 1.0) act[na++] = k;
    }
    for (int j = 0; j < NPIX; j++) {
        double y = (j - NPIX / 2 + 0.5) * PIXMM;
        for (int i = 0; i < NPIX; i++) {
            double x = (i - NPIX / 2 + 0.5) * PIXMM;
            double dx = x - bow, dy = y;
            double u = dx * ca + dy * sa, v = -dx * sa + dy * ca;
            double re = sqrt(u * u / ((1 + q->oval) * (1 + q->oval)) + v * v / ((1 - q->oval) * (1 - q->oval)));
            double dens;
            if (re > R + 8.0) {
                dens = 2.0; /* air */
            } else if (re > R) {
                dens = 300.0; /* bark */
            } else {
                double px = x - cx, py = y - cy;
                double rp = sqrt(px * px + py * py);
                double ring = rp / q->ring_w - floor(rp / q->ring_w);
                dens = 410.0 + 140.0 * (ring > 0.7 ? 1.0 : 0.0);
                if (rp > q->heart_frac * R) dens += 250.0; /* wet sapwood */
                double ang = na ? atan2(py, px) : 0.0;
                for (int n = 0; n < na; n++) {
                    const knot_t *kn = &q->knot[act[n]];
                    double reach = (s - kn->z0 + 1.0) * 40.0;
                    if (rp > reach || rp > kn->len) continue;
                    double da = remainder(ang - kn->azim, 2 * PI);
                    double w = kn->dia * (0.3 + 0.7 * rp / kn->len) / 2.0;
                    if (fabs(da) * rp < w) dens = kn->sound ? 1050.0 : 700.0;
                }
                if (q->rot_r > 0 && fabs(s - q->rot_z) < 6.0 && rp < q->rot_r) dens *= 0.55;
            }
            /* detector noise from a per-pixel hash of (log seed, slice, pixel) */
            uint32_t hsh = (uint32_t)(q->seed + (uint32_t)s * 2654435761u + (uint32_t)(j * NPIX + i) * 40503u);
            hsh ^= hsh >> 15;
            hsh *= 0x2c1b3c6du;
            hsh ^= hsh >> 12;
            dens += 12.0 * ((hsh & 0xFFFF) / 65536.0 - 0.5);
            int v8 = (int)(dens / 4.0);
            img[j * NPIX + i] = (unsigned char)(v8 < 0 ? 0 : v8 > 255 ? 255 : v8);
        }
    }
}

/* Append the slice tile by tile; flush per tile, data-sync per block of slices. */
static void write_slice_tiles(FILE *f, const unsigned char *img, int s, tile_entry *idx)
{
    unsigned char tile[TILE * TILE];
    for (int ty = 0; ty < NTILE_SIDE; ty++)
        for (int tx = 0; tx < NTILE_SIDE; tx++) {
            for (int r = 0; r < TILE; r++)
                memcpy(tile + r * TILE, img + (ty * TILE + r) * NPIX + tx * TILE, TILE);
            long off = ftell(f);
            if (off < 0) die("ftell");
            if (fwrite(tile, 1, sizeof tile, f) != sizeof tile) die("fwrite tile");
            if (fflush(f) != 0) die("fflush tile");
            tile_entry *e = &idx[s * TILES_PER_SLICE + ty * NTILE_SIDE + tx];
            e->offset = (uint64_t)off;
            e->adler = adler32(tile, sizeof tile);
            e->slice = (uint16_t)s;
            e->tile = (uint16_t)(ty * NTILE_SIDE + tx);
        }
    if ((s + 1) % SYNC_BLOCK == 0 || s == NSLICE - 1)
        if (fdatasync(fileno(f)) != 0) die("fdatasync tiles");
}

static void write_tile_index(int l, const tile_entry *idx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/log_%02d.tidx", g_dir, l);
    FILE *f = fopen(path, "wb");
    if (!f) die("open tile index");
    uint32_t hdr[4] = {0x54494458u, NSLICE, NPIX, TILE};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("write tile index");
    if (fwrite(idx, sizeof(tile_entry), (size_t)NSLICE * TILES_PER_SLICE, f) !=
        (size_t)NSLICE * TILES_PER_SLICE)
        die("write tile index");
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) die("sync tile index");
    if (fclose(f) != 0) die("close tile index");
}

/* Read the volume back through the index, verifying every tile checksum. */
static int load_volume(int l, unsigned char *vol)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/log_%02d.tidx", g_dir, l);
    FILE *fi = fopen(path, "rb");
    if (!fi) die("open tile index");
    uint32_t hdr[4];
    if (fread(hdr, sizeof hdr, 1, fi) != 1 || hdr[1] != NSLICE || hdr[2] != NPIX) die("bad index header");
    size_t nt = (size_t)NSLICE * TILES_PER_SLICE;
    tile_entry *idx = malloc(nt * sizeof *idx);
    if (!idx) die("malloc");
    if (fread(idx, sizeof *idx, nt, fi) != nt) die("read tile index");
    fclose(fi);
    snprintf(path, sizeof path, "%s/log_%02d.tiles", g_dir, l);
    FILE *f = fopen(path, "rb");
    if (!f) die("open tiles");
    unsigned char tile[TILE * TILE];
    int bad = 0;
    /* tiles are visited slice-major but in column order, as the optimiser wants */
    for (size_t k = 0; k < nt; k++) {
        int s = k / TILES_PER_SLICE, t = k % TILES_PER_SLICE;
        int tt = (t % NTILE_SIDE) * NTILE_SIDE + t / NTILE_SIDE;
        const tile_entry *e = &idx[s * TILES_PER_SLICE + tt];
        if (fseek(f, (long)e->offset, SEEK_SET) != 0) die("fseek tile");
        if (fread(tile, 1, sizeof tile, f) != sizeof tile) die("fread tile");
        if (adler32(tile, sizeof tile) != e->adler) bad++;
        int ty = tt / NTILE_SIDE, tx = tt % NTILE_SIDE;
        unsigned char *img = vol + (size_t)s * NPIX * NPIX;
        for (int r = 0; r < TILE; r++)
            memcpy(img + (ty * TILE + r) * NPIX + tx * TILE, tile + r * TILE, TILE);
    }
    fclose(f);
    free(idx);
    return bad;
}

/* Knot map: per slice, pixels much denser than their ring neighbourhood. */
static int segment_knots(const unsigned char *vol, unsigned char *mask)
{
    int count = 0;
    for (int s = 0; s < NSLICE; s++) {
        const unsigned char *img = vol + (size_t)s * NPIX * NPIX;
        unsigned char *m = mask + (size_t)s * NPIX * NPIX;
        for (int j = 2; j < NPIX - 2; j++)
            for (int i = 2; i < NPIX - 2; i++) {
                int c = img[j * NPIX + i];
                if (c < 170) {
                    m[j * NPIX + i] = 0;
                    continue;
                }
                int sum = 0;
                for (int b = -2; b <= 2; b++)
                    for (int a = -2; a <= 2; a++) sum += img[(j + b) * NPIX + i + a];
                int mean = sum / 25;
                m[j * NPIX + i] = (c >= 235 && c > mean + 6) || (c >= 170 && c < 190 && mean < 150);
                count += m[j * NPIX + i];
            }
    }
    return count;
}

typedef struct {
    double value;
    int angle, offset;
    int boards, clear_boards;
    double wood_frac;
} cut_result;

/* Rotate the cant, lay 50 mm boards across it and price them by knot content. */
static cut_result optimise_sawing(const unsigned char *vol, const unsigned char *mask)
{
    cut_result best = {-1, 0, 0, 0, 0, 0};
    const int bw = (int)(50.0 / PIXMM); /* board thickness in pixels */
    enum { NSEC = NSLICE / 4 };
    static int proj_wood[NSEC][NPIX], proj_knot[NSEC][NPIX];
    for (int a = 0; a < NANGLE; a++) {
        double th = PI * a / NANGLE, c = cos(th), sn = sin(th);
        /* projections of wood and knot pixels onto the sawing direction, per 16 cm section */
        memset(proj_wood, 0, sizeof proj_wood);
        memset(proj_knot, 0, sizeof proj_knot);
        for (int sec = 0; sec < NSEC; sec++)
            for (int s = sec * 4; s < sec * 4 + 4; s++) {
                const unsigned char *img = vol + (size_t)s * NPIX * NPIX;
                const unsigned char *m = mask + (size_t)s * NPIX * NPIX;
                for (int j = s & 1; j < NPIX; j += 2)
                    for (int i = 0; i < NPIX; i += 2) {
                        double x = i - NPIX / 2, y = j - NPIX / 2;
                        int row = (int)(x * sn + y * c + NPIX / 2);
                        if (row < 0 || row >= NPIX) continue;
                        if (img[j * NPIX + i] > 80) proj_wood[sec][row]++;
                        proj_knot[sec][row] += m[j * NPIX + i];
                    }
            }
        for (int off = 0; off < bw; off++) {
            double v = 0, wsum = 0;
            int nb = 0, nc = 0;
            for (int sec = 0; sec < NSEC; sec++)
                for (int r0 = off; r0 + bw <= NPIX; r0 += bw) {
                    int w = 0, k = 0, minw = 1 << 30;
                    for (int r = r0; r < r0 + bw; r++) {
                        w += proj_wood[sec][r];
                        k += proj_knot[sec][r];
                        if (proj_wood[sec][r] < minw) minw = proj_wood[sec][r];
                    }
                    if (minw < 6) continue; /* wane: board would not hold */
                    nb++;
                    wsum += w;
                    if (k < 2)
                        v += 3.0 * w, nc++;
                    else
                        v += w * (k < 15 ? 1.6 : 0.7);
                }
            if (v > best.value) {
                best.value = v;
                best.angle = a;
                best.offset = off;
                best.boards = nb;
                best.clear_boards = nc;
                best.wood_frac = wsum / (double)((size_t)NSLICE * NPIX * NPIX / 4);
            }
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 1;
    }
    g_dir = argv[1];
    static log_geom logs[NLOG];
    generate_log_geometry(logs, NLOG);

    unsigned char *img = malloc(NPIX * NPIX);
    tile_entry *idx = malloc(sizeof(tile_entry) * NSLICE * TILES_PER_SLICE);
    if (!img || !idx) die("malloc");
    char path[1024];
    for (int l = 0; l < NLOG; l++) {
        snprintf(path, sizeof path, "%s/log_%02d.tiles", g_dir, l);
        FILE *f = fopen(path, "wb");
        if (!f) die("open tiles");
        for (int s = 0; s < NSLICE; s++) {
            scan_slice(&logs[l], s, img);
            write_slice_tiles(f, img, s, idx);
        }
        if (fclose(f) != 0) die("close tiles");
        write_tile_index(l, idx);
    }
    free(img);
    free(idx);

    unsigned char *vol = malloc((size_t)NSLICE * NPIX * NPIX);
    unsigned char *mask = calloc((size_t)NSLICE * NPIX * NPIX, 1);
    if (!vol || !mask) die("malloc");
    snprintf(path, sizeof path, "%s/cut_plan.csv", g_dir);
    FILE *plan = fopen(path, "w");
    if (!plan) die("open cut plan");
    fprintf(plan, "log,bad_tiles,knot_voxels,angle_deg,offset_mm,boards,clear_boards,value,wood_frac\n");
    double total = 0;
    int totbad = 0, totclear = 0;
    for (int l = 0; l < NLOG; l++) {
        int bad = load_volume(l, vol);
        int nk = segment_knots(vol, mask);
        cut_result cr = optimise_sawing(vol, mask);
        if (fprintf(plan, "%d,%d,%d,%.1f,%.0f,%d,%d,%.1f,%.4f\n", l, bad, nk, 180.0 * cr.angle / NANGLE,
                    cr.offset * PIXMM, cr.boards, cr.clear_boards, cr.value, cr.wood_frac) < 0)
            die("write cut plan");
        if (fflush(plan) != 0) die("flush cut plan");
        total += cr.value;
        totbad += bad;
        totclear += cr.clear_boards;
    }
    if (fclose(plan) != 0) die("close cut plan");
    free(vol);
    free(mask);
    printf("logs %d  slices %d  tiles %d  bad tiles %d  clear boards %d  value %.0f\n", NLOG, NSLICE,
           NLOG * NSLICE * TILES_PER_SLICE, totbad, totclear, total);
    return totbad ? 3 : 0;
}
