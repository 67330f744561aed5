/*
 * urban_heat_island_night_tiles.c
 *
 * Nocturnal urban heat island map for a synthetic 1024 x 1024 city grid
 * (4 m cells).  Generates land cover and building heights, computes the sky
 * view factor by horizon scanning, then for each night hour solves a
 * per-cell surface energy balance (longwave loss through the sky view,
 * stored-heat release, anthropogenic heat, turbulent exchange), smooths it
 * with wind-driven advection/diffusion and corrects it with residuals from a
 * street-level sensor network (sensor CSV written and parsed back, residuals
 * inverse-distance weighted on a coarse grid).  Each hourly map is written
 * as 128 x 128 float32 tiles into one tiled raster; every tile is fwrite'n,
 * fflush'ed and fdatasync'ed before the next one and a per-tile statistics
 * line is flushed to a CSV.  Finally the tile index is written and a sample
 * of tiles is read back and verified against their Adler-32 checksums.
 *
 * usage: urban_heat_island_night_tiles OUTDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NX 1024
#define NY 1024
#define TILE 128
#define NTX (NX / TILE)
#define NTY (NY / TILE)
#define NHOUR 6
#define NSENS 400
#define CG 64                    /* coarse residual grid */
#define CELL 4.0                 /* m */
#define SIGMA 5.670374e-8

enum { WATER, PARK, ROAD, LOWRISE, HIGHRISE, INDUSTRY, NCLASS };

static const double c_eps[NCLASS]   = {0.96, 0.95, 0.94, 0.91, 0.90, 0.92};
static const double c_store[NCLASS] = {35.0, 8.0, 45.0, 38.0, 60.0, 50.0};  /* W/m2 at dusk */
static const double c_tau[NCLASS]   = {9.0, 2.0, 4.0, 3.5, 5.0, 4.0};       /* h decay */
static const double c_anth[NCLASS]  = {0.0, 0.5, 12.0, 8.0, 25.0, 30.0};   /* W/m2 */

typedef struct {
    uint64_t offset;
    uint32_t hour, tx, ty, adler;
} tile_idx_t;

static const char *outdir;
static uint8_t *cover;
static float *height, *svf, *temp, *work;
static double sens_x[NSENS], sens_y[NSENS], sens_t[NHOUR][NSENS];

static void die(const char *what)
{
    fprintf(stderr, "urban_heat_island: %s: %s\n", what, errno ? strerror(errno) : "format error");
    exit(1);
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static FILE *open_out(const char *name, const char *mode)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", outdir, name) >= sizeof path) { errno = ENAMETOOLONG; die(name); }
    FILE *f = fopen(path, mode);
    if (!f) die(path);
    return f;
}

/* blocks separated by a road grid, parks, a river and an industrial belt */
static void generate_land_cover(void)
{
    double cx[48], cy[48];
    for (int k = 0; k < 48; k++) { cx[k] = urand() * NX; cy[k] = urand() * NY; }
    for (int j = 0; j < NY; j++) {
        double river = 512.0 + 90.0 * sin(j * 0.006) + 30.0 * sin(j * 0.021 + 1.0);
        for (int i = 0; i < NX; i++) {
            size_t c = (size_t)j * NX + i;
            double dc = hypot(i - 560.0, j - 470.0) / 520.0;   /* distance from centre */
            int cls;
            if (fabs(i - river) < 14.0) cls = WATER;
            else if (i % 64 < 5 || j % 80 < 5) cls = ROAD;
            else {
                /* nearest of 48 seeds decides park / industry patches */
                int best = 0; double bd = 1e30;
                for (int k = 0; k < 48; k++) {
                    double d = (i - cx[k]) * (i - cx[k]) + (j - cy[k]) * (j - cy[k]);
                    if (d < bd) { bd = d; best = k; }
                }
                if (best % 7 == 0) cls = PARK;
                else if (best % 11 == 3 && dc > 0.5) cls = INDUSTRY;
                else if (dc < 0.35 && ((i / 16 + j / 16) % 3 != 0)) cls = HIGHRISE;
                else cls = (((i * 7 + j * 13) / 9) % 5 == 0) ? PARK : LOWRISE;
            }
            cover[c] = (uint8_t)cls;
            double h = 0.0;
            if (cls == LOWRISE) h = 6.0 + 6.0 * ((i / 8 * 31 + j / 8 * 17) % 7) / 6.0;
            else if (cls == HIGHRISE) h = 20.0 + 60.0 * (1.0 - dc) * ((i / 12 * 29 + j / 12 * 23) % 9) / 8.0;
            else if (cls == INDUSTRY) h = 10.0;
            else if (cls == PARK) h = ((i * 37 + j * 11) % 23 == 0) ? 12.0 : 0.0;   /* trees */
            height[c] = (float)h;
        }
    }
    FILE *f = open_out("land_cover.u8", "wb");
    if (fwrite(cover, 1, (size_t)NX * NY, f) != (size_t)NX * NY) die("write land cover");
    if (fwrite(height, sizeof(float), (size_t)NX * NY, f) != (size_t)NX * NY) die("write heights");
    if (fclose(f) != 0) die("close land cover");
}

/* sky view factor from the maximum elevation angle in 8 azimuths, 16 cells out */
static void sky_view_factor(void)
{
    static const int dx[8] = {1, 1, 0, -1, -1, -1, 0, 1}, dy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            size_t c = (size_t)j * NX + i;
            double h0 = height[c], acc = 0.0;
            for (int a = 0; a < 8; a++) {
                double step = (a & 1) ? CELL * 1.41421356 : CELL, maxs = 0.0;
                for (int r = 1; r <= 16; r++) {
                    int ii = i + dx[a] * r, jj = j + dy[a] * r;
                    if (ii < 0 || jj < 0 || ii >= NX || jj >= NY) break;
                    double s = (height[(size_t)jj * NX + ii] - h0) / (r * step);
                    if (s > maxs) maxs = s;
                }
                acc += 1.0 / (1.0 + maxs * maxs);     /* cos^2 of the horizon angle */
            }
            svf[c] = (float)(acc / 8.0);
        }
}

/* sensor network: positions, and "observed" hourly temperatures with biases */
static void write_sensor_csv(void)
{
    FILE *f = open_out("sensors.csv", "w");
    if (fprintf(f, "sensor,hour,x_m,y_m,t_air_c,qc\n") < 0) die("sensor csv header");
    for (int s = 0; s < NSENS; s++) {
        sens_x[s] = urand() * (NX - 1);
        sens_y[s] = urand() * (NY - 1);
    }
    for (int h = 0; h < NHOUR; h++)
        for (int s = 0; s < NSENS; s++) {
            size_t c = (size_t)(int)sens_y[s] * NX + (int)sens_x[s];
            double base = 10.9 - 1.15 * h + 4.5 * (1.0 - svf[c]) + 0.05 * c_anth[cover[c]];
            double t = base + 0.6 * sin(0.013 * sens_x[s]) + 0.4 * (urand() - 0.5);
            int qc = urand() < 0.03 ? 1 : 0;           /* flagged reading */
            if (qc) t += 8.0;
            if (fprintf(f, "S%03d,%d,%.1f,%.1f,%.3f,%d\n", s, 21 + h, sens_x[s] * CELL, sens_y[s] * CELL, t, qc) < 0)
                die("sensor csv write");
        }
    if (fclose(f) != 0) die("close sensor csv");
}

static int read_sensor_csv(void)
{
    FILE *f = open_out("sensors.csv", "r");
    char line[256];
    int n = 0, flagged = 0;
    if (!fgets(line, sizeof line, f)) die("sensor csv empty");
    for (int h = 0; h < NHOUR; h++) for (int s = 0; s < NSENS; s++) sens_t[h][s] = NAN;
    while (fgets(line, sizeof line, f)) {
        int s, hr, qc;
        double x, y, t;
        if (sscanf(line, "S%d,%d,%lf,%lf,%lf,%d", &s, &hr, &x, &y, &t, &qc) != 6) { errno = 0; die("sensor csv parse"); }
        if (s < 0 || s >= NSENS || hr < 21 || hr >= 21 + NHOUR) { errno = 0; die("sensor csv range"); }
        sens_x[s] = x / CELL; sens_y[s] = y / CELL;
        if (qc) { flagged++; continue; }
        sens_t[hr - 21][s] = t;
        n++;
    }
    if (ferror(f)) die("read sensor csv");
    fclose(f);
    return flagged + 0 * n;
}

/* per-cell nocturnal surface energy balance, Newton iteration for T */
static void surface_energy_balance(int hour, double t_rural)
{
    double hrs = hour + 3.0;                 /* hours since sunset */
    double tr = t_rural + 273.15;
    double ldown = 0.78 * SIGMA * pow(tr, 4.0);
    for (size_t c = 0; c < (size_t)NX * NY; c++) {
        int k = cover[c];
        double s = svf[c], eps = c_eps[k];
        double g = c_store[k] * exp(-hrs / c_tau[k]) + c_anth[k];
        double hconv = 6.0 + 4.0 * (1.0 - s);
        /* walls see each other: effective sky radiation mixes with wall emission */
        double lin = s * ldown + (1.0 - s) * SIGMA * pow(tr + 2.0, 4.0) * 0.95;
        double T = tr;
        for (int it = 0; it < 4; it++) {
            double T3 = T * T * T;
            double f = eps * SIGMA * T3 * T - eps * lin - g + hconv * (T - tr);
            double df = 4.0 * eps * SIGMA * T3 + hconv;
            T -= f / df;
        }
        /* 2 m air temperature relaxes toward the surface */
        temp[c] = (float)(tr + 0.55 * (T - tr) - 273.15);
    }
}

/* upwind advection + diffusion by a light breeze, a few explicit sweeps */
static void advect_diffuse(double u, double v, int sweeps)
{
    const double kd = 0.18;
    for (int n = 0; n < sweeps; n++) {
        for (int j = 0; j < NY; j++) {
            int jm = j > 0 ? j - 1 : 0, jp = j < NY - 1 ? j + 1 : NY - 1;
            for (int i = 0; i < NX; i++) {
                int im = i > 0 ? i - 1 : 0, ip = i < NX - 1 ? i + 1 : NX - 1;
                size_t c = (size_t)j * NX + i;
                float tc = temp[c];
                float tw = temp[(size_t)j * NX + im], te = temp[(size_t)j * NX + ip];
                float ts = temp[(size_t)jm * NX + i], tn = temp[(size_t)jp * NX + i];
                double adv = (u > 0 ? u * (tc - tw) : u * (te - tc)) + (v > 0 ? v * (tc - ts) : v * (tn - tc));
                double lap = tw + te + ts + tn - 4.0 * tc;
                double water = cover[c] == WATER ? 0.02 * (14.0 - tc) : 0.0;
                work[c] = (float)(tc - adv + kd * lap + water);
            }
        }
        float *t = temp; temp = work; work = t;
    }
}

/* residuals at sensors -> IDW on coarse grid -> bilinear correction */
static double sensor_correction(int hour)
{
    static double coarse[CG][CG];
    double res[NSENS], rms = 0.0;
    int nv = 0;
    for (int s = 0; s < NSENS; s++) {
        res[s] = NAN;
        if (isnan(sens_t[hour][s])) continue;
        size_t c = (size_t)(int)sens_y[s] * NX + (int)sens_x[s];
        res[s] = sens_t[hour][s] - temp[c];
        rms += res[s] * res[s];
        nv++;
    }
    for (int gj = 0; gj < CG; gj++)
        for (int gi = 0; gi < CG; gi++) {
            double x = (gi + 0.5) * NX / CG, y = (gj + 0.5) * NY / CG, wsum = 0.0, vsum = 0.0;
            for (int s = 0; s < NSENS; s++) {
                if (isnan(res[s])) continue;
                double d2 = (x - sens_x[s]) * (x - sens_x[s]) + (y - sens_y[s]) * (y - sens_y[s]) + 64.0;
                double w = 1.0 / (d2 * d2);
                wsum += w; vsum += w * res[s];
            }
            coarse[gj][gi] = wsum > 0 ? vsum / wsum : 0.0;
        }
    for (int j = 0; j < NY; j++) {
        double gy = (j + 0.5) * CG / (double)NY - 0.5;
        int j0 = gy < 0 ? 0 : (int)gy; if (j0 > CG - 2) j0 = CG - 2;
        double fy = gy - j0; if (fy < 0) fy = 0; if (fy > 1) fy = 1;
        for (int i = 0; i < NX; i++) {
            double gx = (i + 0.5) * CG / (double)NX - 0.5;
            int i0 = gx < 0 ? 0 : (int)gx; if (i0 > CG - 2) i0 = CG - 2;
            double fx = gx - i0; if (fx < 0) fx = 0; if (fx > 1) fx = 1;
            double corr = (1 - fy) * ((1 - fx) * coarse[j0][i0] + fx * coarse[j0][i0 + 1]) +
                          fy * ((1 - fx) * coarse[j0 + 1][i0] + fx * coarse[j0 + 1][i0 + 1]);
            temp[(size_t)j * NX + i] += (float)corr;
        }
    }
    return nv ? sqrt(rms / nv) : 0.0;
}

static uint32_t adler32(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t a = 1, s = 0;
    for (size_t i = 0; i < n; i++) { a = (a + b[i]) % 65521u; s = (s + a) % 65521u; }
    return (s << 16) | a;
}

/* one tile at a time: gather, fwrite, fflush, fdatasync; stats line flushed too */
static void write_hour_tiles(FILE *raster, FILE *stats, int hour, double t_rural, tile_idx_t *idx, int *nidx)
{
    static float tile[TILE * TILE];
    for (int ty = 0; ty < NTY; ty++)
        for (int tx = 0; tx < NTX; tx++) {
            double sum = 0.0, mx = -1e9, mn = 1e9;
            int hot = 0;
            for (int r = 0; r < TILE; r++) {
                const float *src = &temp[(size_t)(ty * TILE + r) * NX + tx * TILE];
                memcpy(&tile[r * TILE], src, TILE * sizeof(float));
                for (int q = 0; q < TILE; q++) {
                    double v = src[q];
                    sum += v;
                    if (v > mx) mx = v;
                    if (v < mn) mn = v;
                    if (v - t_rural > 4.0) hot++;
                }
            }
            long off = ftell(raster);
            if (off < 0) die("ftell raster");
            if (fwrite(tile, sizeof(float), TILE * TILE, raster) != TILE * TILE) die("fwrite tile");
            if (fflush(raster) != 0) die("fflush raster");
            if (fdatasync(fileno(raster)) != 0) die("fdatasync raster");
            tile_idx_t *e = &idx[(*nidx)++];
            e->offset = (uint64_t)off; e->hour = (uint32_t)hour; e->tx = (uint32_t)tx; e->ty = (uint32_t)ty;
            e->adler = adler32(tile, sizeof tile);
            double mean = sum / (TILE * TILE);
            if (fprintf(stats, "%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.4f\n", 21 + hour, tx, ty, mean, mn, mx,
                        mean - t_rural, hot / (double)(TILE * TILE)) < 0) die("tile stats write");
            if (fflush(stats) != 0) die("fflush tile stats");
        }
}

static void write_tile_index(const tile_idx_t *idx, int n)
{
    FILE *f = open_out("uhi_night.idx", "wb");
    uint32_t hdr[4] = {0x55484931u, NX, NY, TILE};
    if (fwrite(hdr, sizeof hdr, 1, f) != 1) die("index header");
    if (fwrite(idx, sizeof *idx, (size_t)n, f) != (size_t)n) die("index write");
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) die("index sync");
    if (fclose(f) != 0) die("index close");
}

/* read the index back and check a strided sample of tiles */
static int verify_tiles(int stride)
{
    FILE *fi = open_out("uhi_night.idx", "rb");
    FILE *fr = open_out("uhi_night.tiles", "rb");
    uint32_t hdr[4];
    if (fread(hdr, sizeof hdr, 1, fi) != 1 || hdr[0] != 0x55484931u) { errno = 0; die("bad index header"); }
    static float tile[TILE * TILE];
    tile_idx_t e;
    int k = 0, checked = 0, bad = 0;
    while (fread(&e, sizeof e, 1, fi) == 1) {
        if (k++ % stride) continue;
        if (fseek(fr, (long)e.offset, SEEK_SET) != 0) die("fseek tile");
        if (fread(tile, sizeof tile, 1, fr) != 1) die("fread tile");
        if (adler32(tile, sizeof tile) != e.adler) bad++;
        checked++;
    }
    if (ferror(fi)) die("read index");
    fclose(fi); fclose(fr);
    if (bad) { fprintf(stderr, "urban_heat_island: %d corrupt tiles\n", bad); exit(1); }
    return checked;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
    outdir = argv[1];
    size_t n = (size_t)NX * NY;
    cover = malloc(n);
    height = malloc(n * sizeof(float));
    svf = malloc(n * sizeof(float));
    temp = malloc(n * sizeof(float));
    work = malloc(n * sizeof(float));
    tile_idx_t *idx = malloc(sizeof(tile_idx_t) * NHOUR * NTX * NTY);
    if (!cover || !height || !svf || !temp || !work || !idx) die("malloc");

    generate_land_cover();
    sky_view_factor();
    write_sensor_csv();
    int flagged = read_sensor_csv();

    FILE *raster = open_out("uhi_night.tiles", "wb");
    FILE *stats = open_out("tile_stats.csv", "w");
    if (fprintf(stats, "hour,tx,ty,mean_c,min_c,max_c,uhi_k,frac_hot\n") < 0) die("stats header");
    int nidx = 0;
    double rms_sum = 0.0;
    for (int h = 0; h < NHOUR; h++) {
        double t_rural = 14.0 - 1.1 * h;
        surface_energy_balance(h, t_rural);
        advect_diffuse(0.25, 0.1, 8);
        rms_sum += sensor_correction(h);
        write_hour_tiles(raster, stats, h, t_rural, idx, &nidx);
    }
    if (fclose(raster) != 0 || fclose(stats) != 0) die("close raster/stats");
    write_tile_index(idx, nidx);
    int checked = verify_tiles(5);

    printf("urban heat island: %dx%d grid, %d hours, %d tiles written, %d verified, %d flagged sensor readings, mean sensor rms %.3f K\n",
           NX, NY, NHOUR, nidx, checked, flagged, rms_sum / NHOUR);
    free(cover); free(height); free(svf); free(temp); free(work); free(idx);
    return 0;
}
