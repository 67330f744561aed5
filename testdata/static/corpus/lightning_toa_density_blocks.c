/*
 * lightning_toa_density_blocks.c
 *
 * Regional lightning detection network: a day of convective storm cells
 * produces cloud-to-ground strokes; a network of VLF/LF sensors records
 * time-of-arrival (TOA) with timing jitter and distance-dependent detection
 * efficiency.  Each stroke with enough reporting sensors is located by
 * Gauss-Newton least squares, written to a text stroke catalogue (flushed
 * every block of strokes), and accumulated into two 1 km rasters (stroke
 * density and maximum absolute peak current).  The rasters are stored as
 * a tiled, three-level pyramid file: each 256x256 tile is written with
 * pwrite and made durable with fdatasync before the next one, so a reader
 * can follow the product while it is produced.  Finally the tile index is
 * re-read and every tile verified against its checksum.
 *
 * usage: lightning_toa_density_blocks OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN_KM 1536
#define GRID 1536          /* 1 km cells */
#define TILE 256
#define NLEVEL 3
#define NSENSOR 26
#define NCELLS_STORM 90
#define NSTROKE 110000
#define CATALOG_BLOCK 2000
#define C_KM_PER_US 0.299792458
#define TILE_MAGIC 0x4C544E47u /* "LTNG" */

typedef struct {
    double x, y, vx, vy;     /* km, km/h */
    double t_start, t_end;   /* h */
    double rate;             /* strokes per minute at peak */
} storm;

typedef struct {
    double t;       /* s since midnight */
    double x, y;    /* true position, km */
    double ipeak;   /* kA, signed */
} stroke;

typedef struct {
    int nrep;
    int sid[NSENSOR];
    double tarr[NSENSOR]; /* microseconds relative to stroke second */
} report;

typedef struct {
    double x, y, t0, chi2;
    int ok, nsens, iters;
} fix;

typedef struct {
    uint32_t magic;
    int32_t level, tx, ty, field;
    uint32_t crc;
    uint64_t offset;
} tile_entry;

static const char *g_dir;
static uint64_t g_rng = 0x11A77E2Bull;
static double sens_x[NSENSOR], sens_y[NSENSOR];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "lightning_toa_density_blocks: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void mkpath(char *buf, size_t n, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", g_dir, name) >= n) {
        fprintf(stderr, "path too long\n");
        exit(1);
    }
}

static double urand(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static double nrand(void)
{
    double u1 = urand() + 1e-300, u2 = urand();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static uint32_t fnv1a(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static void place_network(void)
{
    /* jittered 5x5 lattice plus one central sensor */
    int k = 0;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 5; i++) {
            sens_x[k] = (i + 0.5) * DOMAIN_KM / 5.0 + 40.0 * nrand();
            sens_y[k] = (j + 0.5) * DOMAIN_KM / 5.0 + 40.0 * nrand();
            k++;
        }
    sens_x[k] = DOMAIN_KM / 2.0;
    sens_y[k] = DOMAIN_KM / 2.0;
}

/* Storm cells and the strokes they produce (Poisson process with a
 * triangular intensity envelope over the cell's life). */
static int generate_strokes(stroke *s, int max)
{
    storm st[NCELLS_STORM];
    for (int i = 0; i < NCELLS_STORM; i++) {
        st[i].x = 100.0 + urand() * (DOMAIN_KM - 200.0);
        st[i].y = 100.0 + urand() * (DOMAIN_KM - 200.0);
        st[i].vx = 25.0 + 15.0 * nrand();
        st[i].vy = 10.0 + 15.0 * nrand();
        st[i].t_start = 10.0 + 10.0 * urand();
        st[i].t_end = st[i].t_start + 1.0 + 4.0 * urand();
        st[i].rate = 4.0 + 30.0 * urand() * urand();
    }
    double wsum = 0.0;
    for (int i = 0; i < NCELLS_STORM; i++)
        wsum += st[i].rate * (st[i].t_end - st[i].t_start);
    int n = 0;
    for (int i = 0; i < NCELLS_STORM && n < max; i++) {
        int ns = (int)(max * st[i].rate * (st[i].t_end - st[i].t_start) / wsum);
        for (int k = 0; k < ns && n < max; k++) {
            /* triangular in time */
            double u = 0.5 * (urand() + urand());
            double th = st[i].t_start + u * (st[i].t_end - st[i].t_start);
            double age = th - st[i].t_start;
            double spread = 6.0 + 4.0 * age;
            s[n].t = th * 3600.0;
            s[n].x = st[i].x + st[i].vx * age + spread * nrand();
            s[n].y = st[i].y + st[i].vy * age + spread * nrand();
            double mag = exp(log(18.0) + 0.65 * nrand());
            s[n].ipeak = urand() < 0.9 ? -mag : mag;
            n++;
        }
    }
    return n;
}

static void sort_strokes(stroke *s, int n)
{
    /* strokes per cell are generated cell by cell; order by time (shell sort) */
    static const int gaps[] = {88573, 29524, 9841, 3280, 1093, 364, 121, 40, 13, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        int gap = gaps[g];
        for (int i = gap; i < n; i++) {
            stroke tmp = s[i];
            int j = i;
            while (j >= gap && s[j - gap].t > tmp.t) {
                s[j] = s[j - gap];
                j -= gap;
            }
            s[j] = tmp;
        }
    }
}

/* Sensor reports: detection probability falls with range and rises with
 * current; arrival time jitter 0.4 us rms plus rare outliers. */
static void simulate_reports(const stroke *s, report *r, int n)
{
    for (int i = 0; i < n; i++) {
        r[i].nrep = 0;
        double frac = s[i].t - floor(s[i].t);
        for (int k = 0; k < NSENSOR; k++) {
            double d = hypot(s[i].x - sens_x[k], s[i].y - sens_y[k]);
            double pdet = fabs(s[i].ipeak) / (fabs(s[i].ipeak) + 6.0) * exp(-d / 700.0);
            if (urand() > pdet)
                continue;
            double jitter = 0.4 * nrand();
            if (urand() < 0.01)
                jitter += 5.0 + 20.0 * urand();
            r[i].sid[r[i].nrep] = k;
            r[i].tarr[r[i].nrep] = frac * 1e6 + d / C_KM_PER_US + jitter;
            r[i].nrep++;
        }
    }
}

static int solve3(double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-14)
            return -1;
        if (p != c) {
            for (int k = 0; k < 3; k++) {
                double t = a[c][k];
                a[c][k] = a[p][k];
                a[p][k] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 2; r >= 0; r--) {
        double acc = b[r];
        for (int k = r + 1; k < 3; k++)
            acc -= a[r][k] * x[k];
        x[r] = acc / a[r][r];
    }
    return 0;
}

/* Gauss-Newton TOA location with one pass of outlier rejection. */
static void locate_strokes(const report *r, fix *f, int n)
{
    for (int i = 0; i < n; i++) {
        f[i].ok = 0;
        f[i].nsens = r[i].nrep;
        if (r[i].nrep < 4)
            continue;
        int first = 0;
        for (int k = 1; k < r[i].nrep; k++)
            if (r[i].tarr[k] < r[i].tarr[first])
                first = k;
        double x = sens_x[r[i].sid[first]] + 1.0, y = sens_y[r[i].sid[first]] + 1.0;
        double t0 = r[i].tarr[first];
        unsigned char use[NSENSOR];
        memset(use, 1, sizeof use);
        int it, pass;
        double chi2 = 0.0;
        for (pass = 0; pass < 2; pass++) {
            for (it = 0; it < 12; it++) {
                double a[3][3] = {{0}}, b[3] = {0}, dx[3];
                chi2 = 0.0;
                for (int k = 0; k < r[i].nrep; k++) {
                    if (!use[k])
                        continue;
                    double ex = x - sens_x[r[i].sid[k]], ey = y - sens_y[r[i].sid[k]];
                    double d = sqrt(ex * ex + ey * ey) + 1e-9;
                    double res = r[i].tarr[k] - (t0 + d / C_KM_PER_US);
                    double j[3] = {ex / (d * C_KM_PER_US), ey / (d * C_KM_PER_US), 1.0};
                    for (int p = 0; p < 3; p++) {
                        b[p] += j[p] * res;
                        for (int q = 0; q < 3; q++)
                            a[p][q] += j[p] * j[q];
                    }
                    chi2 += res * res;
                }
                if (solve3(a, b, dx) != 0)
                    break;
                x += dx[0];
                y += dx[1];
                t0 += dx[2];
                if (fabs(dx[0]) + fabs(dx[1]) < 1e-4)
                    break;
            }
            if (pass == 0) {
                int nuse = 0;
                for (int k = 0; k < r[i].nrep; k++) {
                    double d = hypot(x - sens_x[r[i].sid[k]], y - sens_y[r[i].sid[k]]);
                    double res = r[i].tarr[k] - (t0 + d / C_KM_PER_US);
                    use[k] = fabs(res) < 3.0;
                    nuse += use[k];
                }
                if (nuse < 4)
                    break;
            }
        }
        f[i].x = x;
        f[i].y = y;
        f[i].t0 = t0;
        f[i].chi2 = chi2;
        f[i].iters = it;
        f[i].ok = isfinite(x) && isfinite(y) && x >= 0 && y >= 0 && x < DOMAIN_KM && y < DOMAIN_KM;
    }
}

/* Stroke catalogue in a fixed text layout, flushed after every block so a
 * downstream alerting process sees complete blocks. */
static long write_catalogue(const stroke *s, const fix *f, int n)
{
    char path[4096];
    mkpath(path, sizeof path, "strokes.txt");
    FILE *fp = fopen(path, "w");
    if (!fp)
        die("open", path);
    if (fprintf(fp, "#   hh:mm:ss.ssssss    x_km      y_km   ipeak_kA nsens  chi2_us2  err_km\n") < 0)
        die("write", path);
    long nloc = 0;
    for (int i = 0; i < n; i++) {
        if (!f[i].ok)
            continue;
        double sec = floor(s[i].t) + f[i].t0 * 1e-6;
        int hh = (int)(sec / 3600.0), mm = (int)(fmod(sec, 3600.0) / 60.0);
        double ss = fmod(sec, 60.0);
        if (fprintf(fp, "%02d:%02d:%09.6f %9.3f %9.3f %7.1f %3d %9.3f %7.3f\n", hh, mm, ss, f[i].x, f[i].y,
                    s[i].ipeak, f[i].nsens, f[i].chi2, hypot(f[i].x - s[i].x, f[i].y - s[i].y)) < 0)
            die("write", path);
        nloc++;
        if (nloc % CATALOG_BLOCK == 0 && fflush(fp) != 0)
            die("fflush", path);
    }
    if (fclose(fp) != 0)
        die("close", path);
    return nloc;
}

/* Bin located strokes to the 1 km grid with a small Gaussian footprint
 * matching the location uncertainty. */
static void accumulate_rasters(const stroke *s, const fix *f, int n, float *dens, float *imax)
{
    memset(dens, 0, sizeof(float) * GRID * GRID);
    memset(imax, 0, sizeof(float) * GRID * GRID);
    double w[5][5], ws = 0.0;
    for (int j = -2; j <= 2; j++)
        for (int i = -2; i <= 2; i++)
            ws += w[j + 2][i + 2] = exp(-(i * i + j * j) / 2.0);
    for (int k = 0; k < n; k++) {
        if (!f[k].ok)
            continue;
        int cx = (int)f[k].x, cy = (int)f[k].y;
        for (int j = -2; j <= 2; j++)
            for (int i = -2; i <= 2; i++) {
                int x = cx + i, y = cy + j;
                if (x < 0 || y < 0 || x >= GRID || y >= GRID)
                    continue;
                dens[(size_t)y * GRID + x] += (float)(w[j + 2][i + 2] / ws);
            }
        float a = (float)fabs(s[k].ipeak);
        if (a > imax[(size_t)cy * GRID + cx])
            imax[(size_t)cy * GRID + cx] = a;
    }
}

/* 2x2 reduction: sum for density, max for peak current. */
static void reduce_level(const float *src, int n, float *dst, int is_max)
{
    int m = n / 2;
    for (int y = 0; y < m; y++)
        for (int x = 0; x < m; x++) {
            float a = src[(size_t)(2 * y) * n + 2 * x], b = src[(size_t)(2 * y) * n + 2 * x + 1];
            float c = src[(size_t)(2 * y + 1) * n + 2 * x], d = src[(size_t)(2 * y + 1) * n + 2 * x + 1];
            dst[(size_t)y * m + x] = is_max ? fmaxf(fmaxf(a, b), fmaxf(c, d)) : a + b + c + d;
        }
}

/* Write one level of one field as padded TILExTILE tiles; each tile is
 * pwritten at its slot and fdatasync'ed. */
static int write_level_tiles(int fd, const char *path, const float *img, int n, int level, int field,
                             tile_entry *idx, int nidx, uint64_t *next_off)
{
    int nt = (n + TILE - 1) / TILE;
    float *tile = malloc(sizeof(float) * TILE * TILE);
    if (!tile)
        die("malloc", NULL);
    for (int ty = 0; ty < nt; ty++)
        for (int tx = 0; tx < nt; tx++) {
            for (int y = 0; y < TILE; y++)
                for (int x = 0; x < TILE; x++) {
                    int gx = tx * TILE + x, gy = ty * TILE + y;
                    tile[y * TILE + x] = (gx < n && gy < n) ? img[(size_t)gy * n + gx] : 0.0f;
                }
            size_t nb = sizeof(float) * TILE * TILE;
            tile_entry *e = &idx[nidx++];
            e->magic = TILE_MAGIC;
            e->level = level;
            e->tx = tx;
            e->ty = ty;
            e->field = field;
            e->crc = fnv1a(tile, nb);
            e->offset = *next_off;
            ssize_t w = pwrite(fd, tile, nb, (off_t)e->offset);
            if (w != (ssize_t)nb)
                die("pwrite", path);
            if (fdatasync(fd) != 0)
                die("fdatasync", path);
            *next_off += nb;
        }
    free(tile);
    return nidx;
}

static int write_pyramid(float *dens, float *imax, tile_entry *idx)
{
    char path[4096];
    mkpath(path, sizeof path, "density_pyramid.tiles");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("open", path);
    uint64_t off = 4096; /* header block written last */
    int nidx = 0;
    float *buf[2] = {dens, imax};
    float *half = malloc(sizeof(float) * (GRID / 2) * (GRID / 2));
    if (!half)
        die("malloc", NULL);
    for (int field = 0; field < 2; field++) {
        int n = GRID;
        float *cur = buf[field];
        for (int level = 0; level < NLEVEL; level++) {
            nidx = write_level_tiles(fd, path, cur, n, level, field, idx, nidx, &off);
            if (level + 1 < NLEVEL) {
                reduce_level(cur, n, half, field == 1);
                memcpy(cur, half, sizeof(float) * (n / 2) * (n / 2)); /* in place: overwrite level source */
                n /= 2;
            }
        }
    }
    free(half);
    /* index after the tiles, header points to it */
    if (pwrite(fd, idx, sizeof(tile_entry) * nidx, (off_t)off) != (ssize_t)(sizeof(tile_entry) * nidx))
        die("pwrite index", path);
    char hdr[4096];
    memset(hdr, 0, sizeof hdr);
    int hl = snprintf(hdr, sizeof hdr, "LTNGPYR1 grid=%d tile=%d levels=%d fields=2 ntiles=%d index=%llu\n", GRID,
                      TILE, NLEVEL, nidx, (unsigned long long)off);
    if (hl < 0 || pwrite(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr)
        die("pwrite header", path);
    if (fsync(fd) != 0)
        die("fsync", path);
    if (close(fd) != 0)
        die("close", path);
    return nidx;
}

/* Re-open the pyramid, parse the header, read the index and every tile
 * and compare checksums; also recompute the total stroke density. */
static int verify_pyramid(double *total_level2)
{
    char path[4096];
    mkpath(path, sizeof path, "density_pyramid.tiles");
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die("open", path);
    char hdr[4096];
    if (pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr)
        die("pread header", path);
    int grid, tile, levels, fields, ntiles;
    unsigned long long ioff;
    if (sscanf(hdr, "LTNGPYR1 grid=%d tile=%d levels=%d fields=%d ntiles=%d index=%llu", &grid, &tile, &levels,
               &fields, &ntiles, &ioff) != 6) {
        fprintf(stderr, "bad pyramid header\n");
        exit(1);
    }
    tile_entry *idx = malloc(sizeof(tile_entry) * (size_t)ntiles);
    float *t = malloc(sizeof(float) * (size_t)tile * tile);
    if (!idx || !t)
        die("malloc", NULL);
    if (pread(fd, idx, sizeof(tile_entry) * (size_t)ntiles, (off_t)ioff) != (ssize_t)(sizeof(tile_entry) * ntiles))
        die("pread index", path);
    int bad = 0;
    *total_level2 = 0.0;
    for (int i = 0; i < ntiles; i++) {
        size_t nb = sizeof(float) * (size_t)tile * tile;
        if (pread(fd, t, nb, (off_t)idx[i].offset) != (ssize_t)nb)
            die("pread tile", path);
        if (idx[i].magic != TILE_MAGIC || fnv1a(t, nb) != idx[i].crc)
            bad++;
        if (idx[i].level == NLEVEL - 1 && idx[i].field == 0)
            for (int k = 0; k < tile * tile; k++)
                *total_level2 += t[k];
    }
    if (close(fd) != 0)
        die("close", path);
    free(idx);
    free(t);
    return bad;
}

static void write_network_report(const report *r, const fix *f, int n, long nloc, int ntiles, int bad, double tot)
{
    char path[4096];
    mkpath(path, sizeof path, "network_report.txt");
    FILE *fp = fopen(path, "w");
    if (!fp)
        die("open", path);
    long part[NSENSOR] = {0};
    double chi_sum = 0.0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < r[i].nrep; k++)
            part[r[i].sid[k]]++;
        if (f[i].ok)
            chi_sum += f[i].chi2;
    }
    int ok = fprintf(fp, "strokes %d located %ld (%.1f%%) mean chi2 %.3f us^2\n", n, nloc, 100.0 * nloc / n,
                     chi_sum / (nloc > 0 ? nloc : 1)) >= 0;
    for (int k = 0; k < NSENSOR && ok; k++)
        ok = fprintf(fp, "sensor %2d at (%7.1f,%7.1f) km reported %ld\n", k, sens_x[k], sens_y[k], part[k]) >= 0;
    ok = ok && fprintf(fp, "pyramid tiles %d, checksum failures %d, level-2 density total %.1f\n", ntiles, bad, tot) >= 0;
    if (!ok)
        die("write", path);
    if (fclose(fp) != 0)
        die("close", path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    stroke *s = malloc(sizeof(stroke) * NSTROKE);
    report *r = malloc(sizeof(report) * NSTROKE);
    fix *f = malloc(sizeof(fix) * NSTROKE);
    float *dens = malloc(sizeof(float) * GRID * GRID);
    float *imax = malloc(sizeof(float) * GRID * GRID);
    tile_entry *idx = malloc(sizeof(tile_entry) * 1024);
    if (!s || !r || !f || !dens || !imax || !idx)
        die("malloc", NULL);

    place_network();
    int n = generate_strokes(s, NSTROKE);
    sort_strokes(s, n);
    simulate_reports(s, r, n);
    locate_strokes(r, f, n);
    long nloc = write_catalogue(s, f, n);
    accumulate_rasters(s, f, n, dens, imax);
    int ntiles = write_pyramid(dens, imax, idx);
    double tot = 0.0;
    int bad = verify_pyramid(&tot);
    write_network_report(r, f, n, nloc, ntiles, bad, tot);

    printf("lightning_toa_density_blocks: %d strokes, %ld located, %d tiles written (fdatasync each), %d bad, "
           "density total %.1f\n", n, nloc, ntiles, bad, tot);
    free(s);
    free(r);
    free(f);
    free(dens);
    free(imax);
    free(idx);
    return bad == 0 ? 0 : 1;
}
