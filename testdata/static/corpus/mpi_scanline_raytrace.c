/*
 * mpi_scanline_raytrace: distributed Whitted-style ray tracer with MPI-IO.
 * Scanlines are dealt round-robin to ranks; each rendered row of 32-bit float
 * RGB is written independently with MPI_File_write_at into a raw HDR frame
 * (rank 0 writes a small header).  The frame is then read back collectively
 * through a subarray file view (each rank owns a band of columns), a global
 * luminance histogram is built with MPI_Allreduce, and the tone-mapped 8-bit
 * image is written collectively as a binary PPM; ranks log progress with
 * MPI_File_write_ordered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <mpi.h>

#define W 720
#define H 480
#define HDR_BYTES 64
#define NSPH 24
#define MAX_DEPTH 4
#define NBINS 256
#define SPP 3

typedef struct { double x, y, z; } V3;
typedef struct { V3 c; double r; V3 col; double refl; } Sphere;

static Sphere sph[NSPH];
static V3 light = {-4.0, 9.0, -3.0};

static V3 v3(double x, double y, double z) { V3 v = {x, y, z}; return v; }
static V3 add(V3 a, V3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static V3 sub(V3 a, V3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static V3 mul(V3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static V3 norm(V3 a) { return mul(a, 1.0 / sqrt(dot(a, a))); }

static void build_scene(void)
{
    unsigned s = 12345;
    int i;
    for (i = 0; i < NSPH; i++) {
        s = s * 1103515245u + 12345u; double a = (s >> 8) / 16777216.0;
        s = s * 1103515245u + 12345u; double b = (s >> 8) / 16777216.0;
        s = s * 1103515245u + 12345u; double c = (s >> 8) / 16777216.0;
        sph[i].r = 0.3 + 0.5 * c;
        sph[i].c = v3(-5.0 + 10.0 * a, sph[i].r - 1.0, 4.0 + 10.0 * b);
        sph[i].col = v3(0.3 + 0.7 * a, 0.3 + 0.7 * c, 0.3 + 0.7 * b);
        sph[i].refl = (i % 3 == 0) ? 0.6 : 0.15;
    }
}

static int intersect(V3 o, V3 d, double *tbest, int *hit)
{
    int i;
    *tbest = 1e30; *hit = -1;
    for (i = 0; i < NSPH; i++) {
        V3 oc = sub(o, sph[i].c);
        double b = dot(oc, d), c = dot(oc, oc) - sph[i].r * sph[i].r, disc = b * b - c;
        if (disc > 0) {
            double t = -b - sqrt(disc);
            if (t > 1e-6 && t < *tbest) { *tbest = t; *hit = i; }
        }
    }
    /* ground plane y = -1 */
    if (d.y < -1e-9) {
        double t = (-1.0 - o.y) / d.y;
        if (t > 1e-6 && t < *tbest) { *tbest = t; *hit = NSPH; }
    }
    return *hit >= 0;
}

static V3 trace(V3 o, V3 d, int depth)
{
    double t, tt;
    int h, hh;
    V3 p, n, col, l, c;
    double diff, spec, refl;
    if (!intersect(o, d, &t, &h)) return v3(0.6 + 0.4 * d.y, 0.7 + 0.3 * d.y, 1.0);
    p = add(o, mul(d, t));
    if (h == NSPH) {
        int chk = ((int)floor(p.x) + (int)floor(p.z)) & 1;
        n = v3(0, 1, 0); col = chk ? v3(0.9, 0.9, 0.9) : v3(0.2, 0.2, 0.25); refl = 0.1;
    } else {
        n = norm(sub(p, sph[h].c)); col = sph[h].col; refl = sph[h].refl;
    }
    l = norm(sub(light, p));
    diff = dot(n, l);
    if (diff < 0) diff = 0;
    if (diff > 0 && intersect(add(p, mul(n, 1e-4)), l, &tt, &hh)) diff *= 0.15;
    {
        V3 r = sub(l, mul(n, 2 * dot(n, l)));
        spec = pow(fmax(0.0, dot(r, d)), 40.0) * (diff > 0.2);
    }
    c = add(mul(col, 0.08 + 2.2 * diff), v3(4 * spec, 4 * spec, 4 * spec));
    if (depth < MAX_DEPTH && refl > 0) {
        V3 rd = norm(sub(d, mul(n, 2 * dot(d, n))));
        c = add(mul(c, 1 - refl), mul(trace(add(p, mul(n, 1e-4)), rd, depth + 1), refl));
    }
    return c;
}

static void render_row(int y, float *row)
{
    int x, s;
    V3 eye = v3(0, 1.2, -6.0);
    for (x = 0; x < W; x++) {
        V3 acc = v3(0, 0, 0);
        for (s = 0; s < SPP * SPP; s++) {
            double px = (x + (s % SPP + 0.5) / SPP - W / 2.0) / H;
            double py = -(y + (s / SPP + 0.5) / SPP - H / 2.0) / H;
            acc = add(acc, trace(eye, norm(v3(px, py - 0.1, 1.0)), 0));
        }
        acc = mul(acc, 1.0 / (SPP * SPP));
        row[3 * x] = (float)acc.x; row[3 * x + 1] = (float)acc.y; row[3 * x + 2] = (float)acc.z;
    }
}

static void log_ordered(MPI_File lf, const char *msg)
{
    MPI_Status st;
    MPI_File_write_ordered(lf, (void *)msg, (int)strlen(msg), MPI_CHAR, &st);
}

int main(int argc, char **argv)
{
    int rank, np, y, x, i;
    char path[512], msg[256];
    MPI_File fh, ph, lf;
    MPI_Status st;
    MPI_Datatype band, band8;
    float *row, *tile;
    unsigned char *ldr;
    long hist[NBINS], ghist[NBINS];
    int c0, nc, rows_done = 0;
    double t0, trender, lum_sum = 0, glum, cdf[NBINS];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 2) { if (!rank) fprintf(stderr, "usage: %s dir\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    build_scene();

    snprintf(path, sizeof path, "%s/render.log", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &lf);

    /* phase 1: render rows round-robin and write each one independently */
    snprintf(path, sizeof path, "%s/frame.hdr.raw", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rank == 0) {
        char hdr[HDR_BYTES];
        memset(hdr, ' ', sizeof hdr);
        snprintf(hdr, sizeof hdr, "RAWF32 %d %d 3 float32 little", W, H);
        hdr[HDR_BYTES - 1] = '\n';
        MPI_File_write_at(fh, 0, hdr, HDR_BYTES, MPI_CHAR, &st);
    }
    row = malloc(sizeof(float) * 3 * W);
    t0 = MPI_Wtime();
    for (y = rank; y < H; y += np) {
        render_row(y, row);
        MPI_File_write_at(fh, HDR_BYTES + (MPI_Offset)y * W * 3 * sizeof(float), row, 3 * W, MPI_FLOAT, &st);
        rows_done++;
    }
    trender = MPI_Wtime() - t0;
    (void)trender;
    snprintf(msg, sizeof msg, "rank %d rendered %d rows\n", rank, rows_done);
    log_ordered(lf, msg);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);

    /* phase 2: collective read of a column band via subarray view */
    nc = W / np; c0 = rank * nc;
    if (rank == np - 1) nc = W - c0;
    {
        int sizes[2] = {H, 3 * W}, sub[2] = {H, 3 * nc}, start[2] = {0, 3 * c0};
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_FLOAT, &band);
        MPI_Type_commit(&band);
    }
    tile = malloc(sizeof(float) * 3 * nc * H);
    MPI_File_set_view(fh, HDR_BYTES, MPI_FLOAT, band, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, tile, 3 * nc * H, MPI_FLOAT, &st);
    MPI_File_close(&fh);

    /* phase 3: global log-luminance histogram equalisation */
    memset(hist, 0, sizeof hist);
    for (i = 0; i < nc * H; i++) {
        double L = 0.2126 * tile[3 * i] + 0.7152 * tile[3 * i + 1] + 0.0722 * tile[3 * i + 2];
        double ll = log(1e-4 + L);
        int b = (int)((ll + 9.3) / 11.0 * NBINS);
        lum_sum += ll;
        hist[b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b]++;
    }
    MPI_Allreduce(hist, ghist, NBINS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&lum_sum, &glum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    {
        long acc = 0;
        for (i = 0; i < NBINS; i++) { acc += ghist[i]; cdf[i] = (double)acc / ((double)W * H); }
    }
    ldr = malloc(3 * nc * H);
    for (y = 0; y < H; y++)
        for (x = 0; x < nc; x++) {
            float *p = &tile[3 * (y * nc + x)];
            double L = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
            int b = (int)((log(1e-4 + L) + 9.3) / 11.0 * NBINS), k;
            double target = cdf[b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b], sc = target / (L + 1e-6);
            for (k = 0; k < 3; k++) {
                double v = pow(fmin(1.0, p[k] * sc), 1.0 / 2.2);
                ldr[3 * (y * nc + x) + k] = (unsigned char)lrint(255.0 * v);
            }
        }

    /* phase 4: collective write of the PPM */
    snprintf(path, sizeof path, "%s/frame.ppm", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &ph);
    {
        char hdr[64];
        int hl = snprintf(hdr, sizeof hdr, "P6\n%d %d\n255\n", W, H);
        int sizes[2] = {H, 3 * W}, sub[2] = {H, 3 * nc}, start[2] = {0, 3 * c0};
        if (rank == 0) MPI_File_write_at(ph, 0, hdr, hl, MPI_CHAR, &st);
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_UNSIGNED_CHAR, &band8);
        MPI_Type_commit(&band8);
        MPI_File_set_view(ph, hl, MPI_UNSIGNED_CHAR, band8, "native", MPI_INFO_NULL);
        MPI_File_write_all(ph, ldr, 3 * nc * H, MPI_UNSIGNED_CHAR, &st);
    }
    MPI_File_close(&ph);
    snprintf(msg, sizeof msg, "rank %d columns %d..%d mean log-lum %.4f\n", rank, c0, c0 + nc - 1,
             glum / ((double)W * H));
    log_ordered(lf, msg);
    MPI_File_close(&lf);

    MPI_Type_free(&band); MPI_Type_free(&band8);
    free(row); free(tile); free(ldr);
    MPI_Finalize();
    return 0;
}
