/* Coral-reef bleaching heat-stress monitor (NOAA Coral Reef Watch style).
 * A tropical SST grid is split into latitude slabs across MPI ranks.  Each
 * rank builds the monthly climatology and maximum monthly mean (MMM), then
 * steps through one year of daily SST (seasonal cycle + drifting marine
 * heatwaves + AR(1) noise), maintaining HotSpots and 12-week Degree Heating
 * Weeks in a ring buffer.  Weekly DHW fields are written collectively into a
 * shared file through a subarray file view (MPI_File_write_all), weekly alert
 * levels with MPI_File_write_at_all; afterwards the DHW file is read back
 * collectively to find the week of first Alert-2 per cell and the annual
 * maximum, and rank 0 writes a CSV time series and a summary. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLAT 240
#define NLON 400
#define LAT0 -30.0
#define DLAT 0.25
#define DLON 0.9
#define NDAYS 364
#define NWEEK (NDAYS / 7)
#define WINDOW 84
#define NBLOB 14
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int rank, nprocs, lat_lo, nlat_loc;
static float *mmm, *clim;         /* clim: 12 months */
static float *sst_base, *sst_amp; /* per-cell annual mean and seasonal amplitude */
static float *ring;               /* WINDOW days of HotSpot >= 1 */
static float *dhw, *sst, *noise;
static unsigned char *mask, *alert;
static char outdir[4000];

static void check_mpi(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static uint64_t rs;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return ((rs >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void decompose(void)
{
    int base = NLAT / nprocs, rem = NLAT % nprocs;
    nlat_loc = base + (rank < rem);
    lat_lo = rank * base + (rank < rem ? rank : rem);
}

/* Land mask from a few idealised continents; climatology by latitude. */
static void build_climatology(void)
{
    size_t n = (size_t)nlat_loc * NLON;
    for (int j = 0; j < nlat_loc; j++) {
        double lat = LAT0 + (lat_lo + j + 0.5) * DLAT;
        for (int i = 0; i < NLON; i++) {
            double lon = (i + 0.5) * DLON;
            int land = (lon > 10 && lon < 45 && lat < 15) || (lon > 110 && lon < 150 && lat < -15) ||
                       (lon > 280 && lon < 320 && lat < 5) || (lon > 70 && lon < 90 && lat > 8);
            size_t c = (size_t)j * NLON + i;
            mask[c] = (unsigned char)!land;
            double base = 28.5 - 0.012 * lat * lat + 0.6 * sin(lon * 0.0174533 * 2.0);
            double amp = 0.08 * fabs(lat) + 0.3;
            sst_base[c] = (float)base;
            sst_amp[c] = (float)(lat < 0 ? amp : -amp);
            double mx = -1e9;
            for (int m = 0; m < 12; m++) {
                /* monthly mean = average of daily cycle over the month */
                double s = 0.0;
                for (int d = 0; d < 30; d += 6) {
                    double ph = 2.0 * M_PI * (m * 30.4 + d + 3.0) / 365.25;
                    s += 6.0 * (base + amp * (lat < 0 ? cos(ph) : -cos(ph)));
                }
                clim[(size_t)m * n + c] = (float)(s / 30.0);
                if (s / 30.0 > mx) mx = s / 30.0;
            }
            mmm[c] = (float)mx;
        }
    }
}

typedef struct { double lat, lon, vlat, vlon, r, amp, t0, dur; } blob_t;
static blob_t blobs[NBLOB];

static void seed_heatwaves(void)
{
    uint64_t save = rs;
    rs = 0xc0a1c0a1ull; /* same heatwaves on every rank */
    for (int b = 0; b < NBLOB; b++) {
        blobs[b].lat = LAT0 + urand() * NLAT * DLAT;
        blobs[b].lon = urand() * NLON * DLON;
        blobs[b].vlat = (urand() - 0.5) * 0.08;
        blobs[b].vlon = (urand() - 0.3) * 0.25;
        blobs[b].r = 4.0 + urand() * 10.0;
        blobs[b].amp = 1.0 + urand() * 2.2;
        blobs[b].t0 = urand() * (NDAYS - 60);
        blobs[b].dur = 40.0 + urand() * 90.0;
    }
    rs = save;
}

static void daily_sst(int day)
{
    size_t n = (size_t)nlat_loc * NLON;
    double cph = cos(2.0 * M_PI * day / 365.25);
    for (size_t c = 0; c < n; c++) noise[c] = (float)(0.85 * noise[c] + 0.42 * (urand() - 0.5));
    for (int j = 0; j < nlat_loc; j++) {
        double lat = LAT0 + (lat_lo + j + 0.5) * DLAT;
        for (int i = 0; i < NLON; i++) {
            size_t c = (size_t)j * NLON + i;
            double lon = (i + 0.5) * DLON;
            double s = sst_base[c] + sst_amp[c] * cph + noise[c];
            for (int b = 0; b < NBLOB; b++) {
                double age = day - blobs[b].t0;
                if (age < 0 || age > blobs[b].dur) continue;
                double bl = blobs[b].lat + blobs[b].vlat * age, bo = blobs[b].lon + blobs[b].vlon * age;
                double dy = lat - bl, dx = lon - bo;
                if (fabs(dy) > 3 * blobs[b].r || fabs(dx) > 3 * blobs[b].r) continue;
                double env = sin(M_PI * age / blobs[b].dur);
                s += blobs[b].amp * env * exp(-(dx * dx + dy * dy) / (blobs[b].r * blobs[b].r));
            }
            sst[c] = (float)s;
        }
    }
}

static void update_dhw(int day)
{
    size_t n = (size_t)nlat_loc * NLON;
    float *slot = ring + (size_t)(day % WINDOW) * n;
    for (size_t c = 0; c < n; c++) {
        float hs = mask[c] ? sst[c] - mmm[c] : 0.0f;
        float contrib = hs >= 1.0f ? hs / 7.0f : 0.0f;
        dhw[c] += contrib - slot[c];
        if (dhw[c] < 0.0f) dhw[c] = 0.0f;
        slot[c] = contrib;
        unsigned char lvl = 0;
        if (hs > 0.0f) lvl = 1;
        if (hs >= 1.0f && dhw[c] > 0.0f) lvl = 2;
        if (dhw[c] >= 4.0f) lvl = 3;
        if (dhw[c] >= 8.0f) lvl = 4;
        if (lvl > alert[c]) alert[c] = lvl;
    }
}

/* Weekly DHW field: collective write through a subarray view. */
static void write_weekly_dhw(MPI_File fh, MPI_Datatype filetype, int week)
{
    MPI_Offset disp = (MPI_Offset)week * NLAT * NLON * sizeof(float);
    check_mpi(MPI_File_set_view(fh, disp, MPI_FLOAT, filetype, "native", MPI_INFO_NULL), "set_view");
    check_mpi(MPI_File_write_all(fh, dhw, nlat_loc * NLON, MPI_FLOAT, MPI_STATUS_IGNORE),
              "write_all dhw");
}

static void write_weekly_alerts(MPI_File fh, int week)
{
    MPI_Offset off = (MPI_Offset)week * NLAT * NLON + (MPI_Offset)lat_lo * NLON;
    check_mpi(MPI_File_write_at_all(fh, off, alert, nlat_loc * NLON, MPI_UNSIGNED_CHAR,
                                    MPI_STATUS_IGNORE),
              "write_at_all alert");
    memset(alert, 0, (size_t)nlat_loc * NLON);
}

static void write_mmm(void)
{
    char path[4100];
    snprintf(path, sizeof path, "%s/mmm_climatology.f32", outdir);
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
              "open mmm");
    MPI_Offset off = (MPI_Offset)lat_lo * NLON * sizeof(float);
    check_mpi(MPI_File_write_at_all(fh, off, mmm, nlat_loc * NLON, MPI_FLOAT, MPI_STATUS_IGNORE),
              "write mmm");
    check_mpi(MPI_File_close(&fh), "close mmm");
}

/* Read the DHW cube back week by week: first week reaching 4 and 8 DHW,
 * annual maximum; returns local counts. */
static void analyse_dhw_file(const char *path, long counts[3], double *maxdhw, int *first4)
{
    MPI_File fh;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open dhw r");
    size_t n = (size_t)nlat_loc * NLON;
    float *buf = malloc(n * sizeof(float));
    float *mx = calloc(n, sizeof(float));
    if (!buf || !mx) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t c = 0; c < n; c++) first4[c] = -1;
    for (int w = 0; w < NWEEK; w++) {
        MPI_Offset off = ((MPI_Offset)w * NLAT + lat_lo) * NLON * sizeof(float);
        check_mpi(MPI_File_read_at_all(fh, off, buf, (int)n, MPI_FLOAT, MPI_STATUS_IGNORE), "read dhw");
        for (size_t c = 0; c < n; c++) {
            if (buf[c] > mx[c]) mx[c] = buf[c];
            if (first4[c] < 0 && buf[c] >= 4.0f) first4[c] = w;
        }
    }
    check_mpi(MPI_File_close(&fh), "close dhw r");
    counts[0] = counts[1] = counts[2] = 0;
    *maxdhw = 0;
    for (size_t c = 0; c < n; c++) {
        if (!mask[c]) continue;
        counts[0]++;
        if (mx[c] >= 4.0f) counts[1]++;
        if (mx[c] >= 8.0f) counts[2]++;
        if (mx[c] > *maxdhw) *maxdhw = mx[c];
    }
    free(buf);
    free(mx);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    decompose();
    rs = 0x5eed0000ull + 7919ull * (uint64_t)(rank + 1);
    size_t n = (size_t)nlat_loc * NLON;
    mmm = malloc(n * sizeof(float));
    clim = malloc(12 * n * sizeof(float));
    sst_base = malloc(n * sizeof(float));
    sst_amp = malloc(n * sizeof(float));
    ring = calloc((size_t)WINDOW * n, sizeof(float));
    dhw = calloc(n, sizeof(float));
    sst = malloc(n * sizeof(float));
    noise = calloc(n, sizeof(float));
    mask = malloc(n);
    alert = calloc(n, 1);
    if (!mmm || !clim || !sst_base || !sst_amp || !ring || !dhw || !sst || !noise || !mask || !alert) MPI_Abort(MPI_COMM_WORLD, 1);

    build_climatology();
    write_mmm();
    seed_heatwaves();

    char dpath[4100], apath[4100], cpath[4100];
    snprintf(dpath, sizeof dpath, "%s/dhw_weekly.f32", outdir);
    snprintf(apath, sizeof apath, "%s/alert_weekly.u8", outdir);
    snprintf(cpath, sizeof cpath, "%s/weekly_stress.csv", outdir);
    MPI_File fd, fa;
    check_mpi(MPI_File_open(MPI_COMM_WORLD, dpath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fd),
              "open dhw");
    check_mpi(MPI_File_open(MPI_COMM_WORLD, apath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fa),
              "open alert");
    int gsz[2] = {NLAT, NLON}, lsz[2] = {nlat_loc, NLON}, st[2] = {lat_lo, 0};
    MPI_Datatype ftype;
    MPI_Type_create_subarray(2, gsz, lsz, st, MPI_ORDER_C, MPI_FLOAT, &ftype);
    MPI_Type_commit(&ftype);
    FILE *csv = NULL;
    if (rank == 0) {
        csv = fopen(cpath, "w");
        if (!csv || fprintf(csv, "week,mean_dhw,cells_dhw4,cells_dhw8\n") < 0) {
            perror(cpath);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (int day = 0; day < NDAYS; day++) {
        daily_sst(day);
        update_dhw(day);
        if (day % 7 == 6) {
            int week = day / 7;
            write_weekly_dhw(fd, ftype, week);
            write_weekly_alerts(fa, week);
            double loc[3] = {0, 0, 0}, glob[3];
            for (size_t c = 0; c < n; c++) {
                loc[0] += dhw[c];
                loc[1] += dhw[c] >= 4.0f;
                loc[2] += dhw[c] >= 8.0f;
            }
            MPI_Reduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0 && fprintf(csv, "%d,%.5f,%.0f,%.0f\n", week, glob[0] / (NLAT * NLON), glob[1],
                                     glob[2]) < 0) {
                perror(cpath);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    MPI_Type_free(&ftype);
    check_mpi(MPI_File_close(&fd), "close dhw");
    check_mpi(MPI_File_close(&fa), "close alert");

    long cnt[3], gcnt[3];
    double mx, gmx;
    int *first4 = malloc(n * sizeof(int));
    if (!first4) MPI_Abort(MPI_COMM_WORLD, 1);
    analyse_dhw_file(dpath, cnt, &mx, first4);
    MPI_Reduce(cnt, gcnt, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mx, &gmx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    free(first4);
    if (rank == 0) {
        if (fclose(csv) != 0) { perror(cpath); MPI_Abort(MPI_COMM_WORLD, 1); }
        char spath[4100];
        snprintf(spath, sizeof spath, "%s/summary.txt", outdir);
        FILE *s = fopen(spath, "w");
        if (!s || fprintf(s, "ocean cells %ld\nDHW>=4 %ld\nDHW>=8 %ld\nmax DHW %.2f\n", gcnt[0], gcnt[1],
                          gcnt[2], gmx) < 0 || fclose(s) != 0) {
            perror(spath);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("coral DHW: %d weeks, %ld ocean cells, %ld reached Alert 1, %ld Alert 2, max DHW %.2f\n",
               NWEEK, gcnt[0], gcnt[1], gcnt[2], gmx);
    }
    free(mmm); free(clim); free(sst_base); free(sst_amp); free(ring); free(dhw); free(sst); free(noise); free(mask); free(alert);
    MPI_Finalize();
    return 0;
}
