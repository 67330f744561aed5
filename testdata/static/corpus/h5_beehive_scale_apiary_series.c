/*
 * h5_beehive_scale_apiary_series.c
 *
 * Season of hive-scale monitoring across a multi-site apiary.  Each colony
 * is a small stock model (foragers, honey stores, brood) driven by a
 * flowering calendar and daily weather; every 5 minutes the scale logs gross
 * hive weight and brood-nest temperature.  Foraging departures, nectar
 * intake, night-time evaporation, swarms and the beekeeper's super harvests
 * all show up in the weight curves.
 *
 * Parallel HDF5 (MPI-IO driver, run on one rank): the weight and
 * temperature datasets [time][hive] are chunked and unlimited in time; each
 * simulated day the datasets are extended with H5Dset_extent and the day's
 * 288 x NHIVE block is written as a hyperslab with a collective transfer
 * list, together with a 1-D weather table.  After the season, each hive's
 * full column is read back as a hyperslab to compute daily net gain,
 * foraging amplitude and swarm/harvest events; the results go to an
 * /analysis group and to a text report.
 *
 * usage: h5_beehive_scale_apiary_series OUTDIR
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NHIVE 128
#define NDAY 100
#define SPD 288                 /* samples per day (5 min) */
#define NSITE 4
#define MAXEV 256
#define HBLK 16                 /* hives per chunk column = analysis read block */
#define PI 3.14159265358979323846

typedef struct {
    double foragers, stores, brood, frame_kg, water;
    double strength;          /* genetic foraging efficiency */
    int site, swarmed, harvests;
} colony_t;

typedef struct { float tmax, tmin, rain_mm, sun_h; } weather_t;
typedef struct { int hive, day, sample; float dkg; int kind; } event_t;

static colony_t col[NHIVE];
static float day_w[SPD][NHIVE], day_t[SPD][NHIVE];
static float amb[SPD][NSITE];
static weather_t wx[NSITE];
static uint64_t rng = 0xbee5cafe1234567ull;
static const char *outdir;

static void fail(const char *what)
{
    fprintf(stderr, "h5_beehive_scale_apiary_series: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define HCHK(x, what) do { if ((x) < 0) fail(what); } while (0)

static double urand(void)
{
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = urand(), v = urand();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

static void init_apiary(void)
{
    for (int h = 0; h < NHIVE; h++) {
        colony_t *c = &col[h];
        c->site = h % NSITE;
        c->foragers = 8000 + 6000 * urand();
        c->stores = 6.0 + 6.0 * urand();
        c->brood = 3000 + 4000 * urand();
        c->frame_kg = 22.0 + 4.0 * urand();     /* boxes, frames, comb */
        c->water = 0.0;
        c->strength = 0.8 + 0.4 * urand();
        c->swarmed = 0;
        c->harvests = 0;
    }
}

/* nectar flow index for a site on a day: rapeseed, fruit bloom, lime trees, heather */
static double flowering(int site, int day)
{
    double f = 0.0;
    f += 1.0 * exp(-pow((day - 18 - 2 * site) / 7.0, 2));
    f += 0.6 * exp(-pow((day - 35) / 5.0, 2));
    f += (site % 2 ? 1.2 : 0.5) * exp(-pow((day - 62 - site) / 6.0, 2));
    f += (site == 3 ? 0.9 : 0.1) * exp(-pow((day - 88) / 8.0, 2));
    return 0.05 + f;
}

static void weather_day(int day)
{
    for (int s = 0; s < NSITE; s++) {
        double seas = 14.0 + 8.0 * sin(PI * (day + 10) / 140.0);
        wx[s].tmax = (float)(seas + 5.0 + 3.0 * gauss() - 0.8 * s);
        wx[s].tmin = (float)(seas - 5.0 + 2.0 * gauss() - 0.8 * s);
        wx[s].rain_mm = (float)(urand() < 0.3 ? 12.0 * urand() * urand() : 0.0);
        wx[s].sun_h = (float)(wx[s].rain_mm > 2.0 ? 2.0 * urand() : 5.0 + 8.0 * urand());
        for (int k = 0; k < SPD; k++) {
            double hr = k / 12.0;
            double dfr = 0.5 - 0.5 * cos(2.0 * PI * (hr - 4.0) / 24.0);
            amb[k][s] = (float)(wx[s].tmin + (wx[s].tmax - wx[s].tmin) * dfr);
        }
    }
}

/* 5-minute colony dynamics for one day; fills the day buffers */
static void simulate_day(int day, event_t *ev, int *nev)
{
    for (int h = 0; h < NHIVE; h++) {
        colony_t *c = &col[h];
        const weather_t *w = &wx[c->site];
        double flow = flowering(c->site, day) * c->strength * (w->sun_h / 10.0) * (w->rain_mm > 4.0 ? 0.2 : 1.0);
        int swarm_k = -1, harvest_k = -1;
        if (!c->swarmed && day > 20 && day < 55 && c->foragers > 16000 && urand() < 0.04) swarm_k = 120 + (int)(36 * urand());
        if (day % 30 == 29 && c->stores > 18.0) harvest_k = 110;
        double out = 0.0;          /* foragers currently out, kg */
        for (int k = 0; k < SPD; k++) {
            double hr = k / 12.0, ta = amb[k][c->site];
            double fly = (ta > 12.0 && hr > 6.0 && hr < 20.0) ? sin(PI * (hr - 6.0) / 14.0) : 0.0;
            double target = 0.6 * fly * c->foragers * 1.0e-4;  /* kg of bees away */
            out += 0.15 * (target - out);
            double intake = fly * flow * c->foragers * 9.0e-7;  /* kg nectar per 5 min */
            c->water += 0.55 * intake;
            c->stores += 0.45 * intake;
            double evap = 0.004 * c->water * (ta > 15.0 ? 1.5 : 1.0);
            c->water -= evap;
            c->stores -= 2.5e-5 * (c->foragers + c->brood) / 288.0 * (ta < 10.0 ? 1.6 : 1.0) * 0.05;
            if (c->stores < 0.5) c->stores = 0.5;
            if (k == swarm_k) {
                double left = 0.55 * c->foragers;
                c->foragers -= left;
                c->stores -= 1.2;
                c->swarmed = 1;
                if (*nev < MAXEV) ev[(*nev)++] = (event_t){h, day, k, -(float)(left * 1e-4 + 1.2), 1};
            }
            if (k == harvest_k) {
                double take = c->stores - 10.0;
                c->stores -= take;
                c->frame_kg -= 6.0;     /* honey super taken off */
                c->harvests++;
                if (*nev < MAXEV) ev[(*nev)++] = (event_t){h, day, k, -(float)(take + 6.0), 2};
            }
            double bees_kg = c->foragers * 1.0e-4 + c->brood * 1.2e-4;
            double wkg = c->frame_kg + c->stores + c->water + bees_kg - out;
            day_w[k][h] = (float)(wkg + 0.01 * gauss() + (w->rain_mm > 0.0 && hr > 14.0 ? 0.08 : 0.0));
            double nest = c->brood > 1500 ? 34.6 + 0.3 * gauss() : 0.4 * ta + 0.6 * 24.0;
            day_t[k][h] = (float)(nest + 0.05 * gauss());
        }
        /* daily population turnover */
        double lay = 1500.0 * flowering(c->site, day) * (c->stores > 4.0 ? 1.0 : 0.3);
        c->brood += 0.3 * (lay * 21.0 - c->brood) / 21.0 * 21.0 / 7.0;
        if (c->brood < 0) c->brood = 0;
        c->foragers += c->brood / 21.0 * 0.9 - c->foragers / 35.0;
        if (day == 70) c->frame_kg += 6.0;     /* empty super added back */
    }
}

static hid_t create_series(hid_t grp, const char *name, int ncols, hsize_t chunk_t, hsize_t chunk_c, hid_t dcpl_base)
{
    hsize_t dims[2] = {0, (hsize_t)ncols}, maxd[2] = {H5S_UNLIMITED, (hsize_t)ncols};
    hsize_t chunk[2] = {chunk_t, chunk_c};
    hid_t sp = H5Screate_simple(2, dims, maxd);
    hid_t dcpl = H5Pcopy(dcpl_base);
    HCHK(H5Pset_chunk(dcpl, 2, chunk), "set_chunk");
    hid_t d = H5Dcreate2(grp, name, H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) fail(name);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return d;
}

static void put_attr_str(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    HCHK(H5Tset_size(t, strlen(val) + 1), "tset_size");
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) fail("attribute");
    HCHK(H5Awrite(a, t, val), "attribute write");
    H5Aclose(a); H5Sclose(sp); H5Tclose(t);
}

/* extend a [time][col] dataset by nrows and write the block collectively */
static void append_block(hid_t d, hsize_t t0, hsize_t nrows, hsize_t ncols, const float *buf, hid_t dxpl)
{
    hsize_t newdims[2] = {t0 + nrows, ncols};
    HCHK(H5Dset_extent(d, newdims), "set_extent");
    hid_t fs = H5Dget_space(d);
    hsize_t start[2] = {t0, 0}, count[2] = {nrows, ncols};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t ms = H5Screate_simple(2, count, NULL);
    HCHK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, dxpl, buf), "append write");
    H5Sclose(ms);
    H5Sclose(fs);
}

/* read the whole season for HBLK consecutive hives (one chunk column) */
static void read_hive_block(hid_t d, int h0, hsize_t nt, float *out, hid_t dxpl)
{
    hid_t fs = H5Dget_space(d);
    hsize_t start[2] = {0, (hsize_t)h0}, count[2] = {nt, HBLK};
    HCHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "select hive block");
    hid_t ms = H5Screate_simple(2, count, NULL);
    HCHK(H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, dxpl, out), "read hive block");
    H5Sclose(ms);
    H5Sclose(fs);
}

/* per-hive analysis of the weight and temperature columns */
static int analyse_hive(const float *w, const float *t, float *gain, float *amp, float *broodless, event_t *det, int maxdet, int hive)
{
    int nd = 0;
    for (int d = 0; d < NDAY; d++) {
        const float *wd = w + (size_t)d * SPD;
        /* midnight-to-midnight net gain, median of 5 samples around midnight */
        double a = 0, b = 0;
        for (int k = 0; k < 6; k++) { a += wd[k]; b += wd[SPD - 6 + k]; }
        gain[d] = (float)((b - a) / 6.0);
        /* morning departure dip: 05:00 mean minus 10:00-11:00 minimum */
        double m5 = 0.0, mn = 1e30;
        for (int k = 60; k < 66; k++) m5 += wd[k] / 6.0;
        for (int k = 120; k < 132; k++) if (wd[k] < mn) mn = wd[k];
        amp[d] = (float)(m5 - mn);
        int cold = 0;
        for (int k = 0; k < SPD; k++) if (t[(size_t)d * SPD + k] < 33.0f) cold++;
        broodless[d] = (float)cold / SPD;
        /* sudden drops within 30 minutes, bigger than diurnal variation */
        for (int k = 6; k < SPD; k++) {
            float drop = wd[k] - wd[k - 6];
            if (drop < -1.0f && nd < maxdet) {
                det[nd++] = (event_t){hive, d, k, drop, drop < -5.0f ? 2 : 1};
                k += 36;
            }
        }
    }
    return nd;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    outdir = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/apiary_season.h5", outdir);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    HCHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl_mpio");
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) fail("H5Fcreate");
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    HCHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "dxpl_mpio");
    /* no object modification times: identical runs give identical files */
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    HCHK(H5Pset_obj_track_times(dcpl, 0), "track_times");
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    HCHK(H5Pset_obj_track_times(gcpl, 0), "track_times");
    hid_t gscale = H5Gcreate2(file, "/scales", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t gwx = H5Gcreate2(file, "/weather", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gscale < 0 || gwx < 0) fail("groups");
    hid_t dw = create_series(gscale, "weight_kg", NHIVE, SPD, HBLK, dcpl);
    hid_t dt = create_series(gscale, "brood_temp_C", NHIVE, SPD, HBLK, dcpl);
    hid_t da = create_series(gwx, "ambient_C", NSITE, SPD, NSITE, dcpl);
    hid_t dd = create_series(gwx, "daily", 4 * NSITE, 16, 4 * NSITE, dcpl);
    put_attr_str(dw, "units", "kg");
    put_attr_str(dw, "sampling", "300 s");
    put_attr_str(dt, "units", "degC");
    put_attr_str(dd, "columns", "per site: tmax_C tmin_C rain_mm sun_h");

    init_apiary();
    event_t *truth = malloc(sizeof(event_t) * MAXEV);
    int ntruth = 0;
    if (!truth) fail("malloc");
    for (int day = 0; day < NDAY; day++) {
        weather_day(day);
        simulate_day(day, truth, &ntruth);
        hsize_t t0 = (hsize_t)day * SPD;
        append_block(dw, t0, SPD, NHIVE, &day_w[0][0], dxpl);
        append_block(dt, t0, SPD, NHIVE, &day_t[0][0], dxpl);
        append_block(da, t0, SPD, NSITE, &amb[0][0], dxpl);
        float drow[4 * NSITE];
        for (int s = 0; s < NSITE; s++) {
            drow[4 * s] = wx[s].tmax; drow[4 * s + 1] = wx[s].tmin;
            drow[4 * s + 2] = wx[s].rain_mm; drow[4 * s + 3] = wx[s].sun_h;
        }
        append_block(dd, (hsize_t)day, 1, 4 * NSITE, drow, dxpl);
        HCHK(H5Fflush(file, H5F_SCOPE_LOCAL), "flush");
    }

    /* analysis: read every hive column back */
    const hsize_t nt = (hsize_t)NDAY * SPD;
    float *w = malloc(sizeof(float) * nt), *t = malloc(sizeof(float) * nt);
    float *bw = malloc(sizeof(float) * nt * HBLK), *bt = malloc(sizeof(float) * nt * HBLK);
    float *gain = malloc(sizeof(float) * NDAY * NHIVE), *amp = malloc(sizeof(float) * NDAY * NHIVE);
    float *bl = malloc(sizeof(float) * NDAY * NHIVE);
    event_t *det = malloc(sizeof(event_t) * MAXEV * 4);
    if (!w || !t || !bw || !bt || !gain || !amp || !bl || !det) fail("malloc");
    int ndet = 0;
    float g[NDAY], a[NDAY], b[NDAY];
    for (int h = 0; h < NHIVE; h++) {
        if (h % HBLK == 0) {
            read_hive_block(dw, h, nt, bw, dxpl);
            read_hive_block(dt, h, nt, bt, dxpl);
        }
        for (hsize_t k = 0; k < nt; k++) {
            w[k] = bw[k * HBLK + h % HBLK];
            t[k] = bt[k * HBLK + h % HBLK];
        }
        ndet += analyse_hive(w, t, g, a, b, det + ndet, MAXEV * 4 - ndet, h);
        for (int d = 0; d < NDAY; d++) {
            gain[d * NHIVE + h] = g[d]; amp[d * NHIVE + h] = a[d]; bl[d * NHIVE + h] = b[d];
        }
    }
    hid_t gan = H5Gcreate2(file, "/analysis", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gan < 0) fail("analysis group");
    const char *names[3] = {"daily_net_gain_kg", "forager_dip_kg", "cool_nest_fraction"};
    float *bufs[3] = {gain, amp, bl};
    for (int i = 0; i < 3; i++) {
        hsize_t dims[2] = {NDAY, NHIVE};
        hid_t sp = H5Screate_simple(2, dims, NULL);
        hid_t d = H5Dcreate2(gan, names[i], H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (d < 0) fail(names[i]);
        HCHK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, dxpl, bufs[i]), "analysis write");
        H5Dclose(d);
        H5Sclose(sp);
    }

    /* text report: season totals per site and detected vs true events */
    snprintf(path, sizeof path, "%s/apiary_report.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) fail("report open");
    double site_gain[NSITE] = {0};
    int best_day = 0;
    double best = -1e30;
    for (int d = 0; d < NDAY; d++) {
        double s = 0;
        for (int h = 0; h < NHIVE; h++) { s += gain[d * NHIVE + h]; site_gain[h % NSITE] += gain[d * NHIVE + h]; }
        if (s > best) { best = s; best_day = d; }
    }
    int nsw = 0, nhv = 0, tsw = 0, thv = 0;
    for (int i = 0; i < ndet; i++) {
        if (det[i].kind == 1) nsw++; else nhv++;
    }
    for (int i = 0; i < ntruth; i++) {
        if (truth[i].kind == 1) tsw++; else thv++;
    }
    fprintf(f, "apiary season: %d hives at %d sites, %d days at 5 min\n", NHIVE, NSITE, NDAY);
    for (int s = 0; s < NSITE; s++)
        fprintf(f, "site %d: mean season net gain %.2f kg/hive\n", s, site_gain[s] / (NHIVE / NSITE));
    fprintf(f, "best apiary day %d: %.1f kg total\n", best_day, best);
    fprintf(f, "events: swarms detected %d (true %d), harvests detected %d (true %d)\n", nsw, tsw, nhv, thv);
    fprintf(f, "# hive day time kind drop_kg\n");
    for (int i = 0; i < ndet; i++)
        fprintf(f, "%4d %3d %02d:%02d %-7s %7.2f\n", det[i].hive, det[i].day, det[i].sample / 12, 5 * (det[i].sample % 12),
                det[i].kind == 1 ? "swarm" : "harvest", det[i].dkg);
    if (ferror(f) || fclose(f) != 0) fail("report write");
    printf("beehive scales: %d hives x %d days, %llu samples per hive\n", NHIVE, NDAY, (unsigned long long)nt);
    printf("  swarms %d/%d detected, harvests %d/%d, best day %d\n", nsw, tsw, nhv, thv, best_day);

    free(w); free(t); free(bw); free(bt); free(gain); free(amp); free(bl); free(det); free(truth);
    H5Gclose(gan);
    H5Dclose(dw); H5Dclose(dt); H5Dclose(da); H5Dclose(dd);
    H5Gclose(gscale); H5Gclose(gwx);
    H5Pclose(dcpl); H5Pclose(gcpl); H5Pclose(dxpl); H5Pclose(fapl);
    if (H5Fclose(file) < 0) fail("H5Fclose");
    MPI_Finalize();
    return 0;
}
