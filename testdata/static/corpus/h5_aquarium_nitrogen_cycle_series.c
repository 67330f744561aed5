/*
 * h5_aquarium_nitrogen_cycle_series.c
 *
 * Water-quality logger of an ornamental-fish holding facility: 2048 tanks on
 * recirculation-free racks, newly set up, so each tank goes through the
 * nitrogen cycle (ammonia -> nitrite -> nitrate by slowly establishing
 * nitrifying biofilms), with feeding, aeration, heater control, partial water
 * changes and alkalinity-driven pH.  Each tank is integrated with 5-minute
 * explicit steps for three weeks.
 *
 * Output: one HDF5 file opened through the MPI-IO driver (1 rank):
 *   /tanks/{volume_l,stock_g,rack}         static per-tank tables
 *   /series/{tan,no2,no3,o2,ph,temp}       float (time, tank), unlimited time
 *        axis, chunked; extended by one row every logged hour and the new row
 *        written as a hyperslab with a collective transfer
 *   /sentinel/o2_5min                      5-minute O2 of 32 sentinel tanks,
 *        extended by a 12-row block per hour
 *   /alarms                                compound records, appended
 * Afterwards the file is reopened read-only: per-tank time columns are read
 * as strided hyperslabs to find the day each tank finished cycling, and the
 * last day is read as a block for rack statistics; a text summary is written.
 *
 * Usage: h5_aquarium_nitrogen_cycle_series OUTDIR
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTANK 2048
#define NRACK 64
#define NDAY 21
#define SUB_PER_HOUR 12          /* 5-minute integration steps */
#define NHOUR (NDAY * 24)
#define NVAR 6
#define NSENT 32
#define CHUNK_T 24
#define DT_H (1.0 / SUB_PER_HOUR)

static const char *var_names[NVAR] = {"tan", "no2", "no3", "o2", "ph", "temp"};

typedef struct {
    float volume_l, stock_g, feed_frac;
    int rack;
    double tan, no2, no3, o2, alk, temp;  /* mg/L, mg/L, mg/L, mg/L, mg/L CaCO3, C */
    double aob, nob;                      /* nitrifier biomass, relative */
    double heater_on;
    int cycled_hour;
} tank_t;

typedef struct {
    int32_t hour, tank;
    int32_t kind; /* 1 high ammonia, 2 high nitrite, 3 low oxygen */
    float value;
} alarm_rec;

static void h5check(herr_t rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "hdf5 error: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static hid_t h5id(hid_t id, const char *what)
{
    if (id < 0) {
        fprintf(stderr, "hdf5 error: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return id;
}

static void init_tanks(tank_t *tk)
{
    uint64_t x = 0xA9A41u;
    for (int i = 0; i < NTANK; i++) {
        tank_t *t = &tk[i];
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double r1 = (double)(x >> 11) / 9007199254740992.0;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double r2 = (double)(x >> 11) / 9007199254740992.0;
        t->rack = i / (NTANK / NRACK);
        t->volume_l = (float)(60.0 + 180.0 * r1);
        t->stock_g = (float)(t->volume_l * (0.8 + 2.5 * r2));
        t->feed_frac = (float)(0.015 + 0.01 * r1 * r2);
        t->tan = 0.2;
        t->no2 = 0.0;
        t->no3 = 2.0;
        t->o2 = 8.0;
        t->alk = 120.0;
        t->temp = 24.0;
        /* seeded tanks (mature filter media added) start with more biofilm */
        double seed = (i % 7 == 0) ? 0.3 : 0.002 + 0.01 * r2;
        t->aob = seed;
        t->nob = seed * 0.5;
        t->heater_on = 0;
        t->cycled_hour = -1;
    }
}

/* One hour of water chemistry for every tank (explicit 5-minute steps). */
static void advance_hour(tank_t *tk, int hour, float sent_o2[SUB_PER_HOUR][NSENT])
{
    double room = 21.5 + 2.0 * sin(2 * M_PI * (hour % 24 - 9) / 24.0);
    int feed = (hour % 24 == 8 || hour % 24 == 17);
    int wchange_day = (hour / 24) % 7 == 6 && hour % 24 == 10;
    for (int i = 0; i < NTANK; i++) {
        tank_t *t = &tk[i];
        double v = t->volume_l;
        for (int s = 0; s < SUB_PER_HOUR; s++) {
            double theta = pow(1.07, t->temp - 20.0);
            /* ammonia excretion: baseline + post-feeding pulse (mg N / L / h) */
            double excr = t->stock_g * (0.004 + (feed ? 0.03 * t->feed_frac * 40.0 * exp(-s / 4.0) : 0.0)) / v;
            double fo2 = t->o2 / (t->o2 + 0.6);
            double r_aob = 0.9 * theta * t->aob * t->tan / (t->tan + 0.6) * fo2;
            double r_nob = 1.1 * theta * t->nob * t->no2 / (t->no2 + 0.8) * fo2;
            double ph = 6.2 + 1.6 * t->alk / (t->alk + 40.0);
            double inhib = 1.0 / (1.0 + 0.05 * t->tan * pow(10.0, ph - 9.25)); /* free ammonia inhibits NOB */
            r_nob *= inhib;
            double osat = 14.6 - 0.41 * t->temp + 0.008 * t->temp * t->temp - 0.000078 * t->temp * t->temp * t->temp;
            double resp = t->stock_g * 0.25 / v * theta;
            t->tan += DT_H * (excr - r_aob);
            t->no2 += DT_H * (r_aob - r_nob);
            t->no3 += DT_H * r_nob;
            t->o2 += DT_H * (2.5 * (osat - t->o2) - resp - 3.4 * r_aob - 1.1 * r_nob);
            t->alk -= DT_H * 7.1 * r_aob;
            t->aob += DT_H * t->aob * (0.035 * theta * t->tan / (t->tan + 0.6) * fo2 - 0.004);
            t->nob += DT_H * t->nob * (0.028 * theta * t->no2 / (t->no2 + 0.8) * fo2 * inhib - 0.004);
            /* heater with hysteresis, tank relaxes to room temperature */
            if (t->temp < 24.5) t->heater_on = 1;
            if (t->temp > 25.5) t->heater_on = 0;
            t->temp += DT_H * (0.15 * (room - t->temp) + t->heater_on * 150.0 / v);
            if (t->tan < 0) t->tan = 0;
            if (t->no2 < 0) t->no2 = 0;
            if (t->o2 < 0) t->o2 = 0;
            if (t->aob > 1.5) t->aob = 1.5;
            if (t->nob > 1.5) t->nob = 1.5;
            if (i % (NTANK / NSENT) == 0) sent_o2[s][i / (NTANK / NSENT)] = (float)t->o2;
        }
        if (wchange_day) { /* 30 % water change with buffered tap water */
            t->tan *= 0.7;
            t->no2 *= 0.7;
            t->no3 = 0.7 * t->no3 + 0.3 * 2.0;
            t->alk = 0.7 * t->alk + 0.3 * 120.0;
        }
        if (t->alk < 5) t->alk = 5;
    }
}

static hid_t create_series(hid_t grp, const char *name, hsize_t ncols, hsize_t chunk_t)
{
    hsize_t dims[2] = {0, ncols}, maxd[2] = {H5S_UNLIMITED, ncols}, chunk[2] = {chunk_t, ncols};
    hid_t sp = h5id(H5Screate_simple(2, dims, maxd), "space");
    hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "dcpl");
    h5check(H5Pset_chunk(dcpl, 2, chunk), "set_chunk");
    hid_t ds = h5id(H5Dcreate2(grp, name, H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

static void write_static_tables(hid_t file, const tank_t *tk)
{
    hid_t g = h5id(H5Gcreate2(file, "/tanks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group tanks");
    hsize_t n = NTANK;
    hid_t sp = h5id(H5Screate_simple(1, &n, NULL), "space");
    float *fv = malloc(sizeof(float) * NTANK);
    int *iv = malloc(sizeof(int) * NTANK);
    for (int i = 0; i < NTANK; i++) fv[i] = tk[i].volume_l;
    hid_t ds = h5id(H5Dcreate2(g, "volume_l", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "volume");
    h5check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, fv), "write volume");
    H5Dclose(ds);
    for (int i = 0; i < NTANK; i++) fv[i] = tk[i].stock_g;
    ds = h5id(H5Dcreate2(g, "stock_g", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "stock");
    h5check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, fv), "write stock");
    H5Dclose(ds);
    for (int i = 0; i < NTANK; i++) iv[i] = tk[i].rack;
    ds = h5id(H5Dcreate2(g, "rack", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "rack");
    h5check(H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, iv), "write rack");
    H5Dclose(ds);
    H5Sclose(sp);
    H5Gclose(g);
    free(fv);
    free(iv);
}

/* Grow a (time, ncols) dataset by nrows and write them as a hyperslab. */
static void append_rows(hid_t ds, hsize_t *nrows_now, hsize_t nrows, hsize_t ncols, const float *buf, hid_t xfer)
{
    hsize_t newdims[2] = {*nrows_now + nrows, ncols};
    h5check(H5Dset_extent(ds, newdims), "set_extent");
    hid_t fsp = h5id(H5Dget_space(ds), "get_space");
    hsize_t start[2] = {*nrows_now, 0}, count[2] = {nrows, ncols};
    h5check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL), "select");
    hid_t msp = h5id(H5Screate_simple(2, count, NULL), "mem space");
    h5check(H5Dwrite(ds, H5T_NATIVE_FLOAT, msp, fsp, xfer, buf), "write rows");
    H5Sclose(msp);
    H5Sclose(fsp);
    *nrows_now += nrows;
}

static int check_alarms(const tank_t *tk, int hour, alarm_rec *out, int cap)
{
    int n = 0;
    for (int i = 0; i < NTANK && n < cap; i++) {
        if (tk[i].tan > 0.5 && hour % 6 == 0) out[n++] = (alarm_rec){hour, i, 1, (float)tk[i].tan};
        else if (tk[i].no2 > 1.0 && hour % 6 == 0) out[n++] = (alarm_rec){hour, i, 2, (float)tk[i].no2};
        else if (tk[i].o2 < 6.5) out[n++] = (alarm_rec){hour, i, 3, (float)tk[i].o2};
    }
    return n;
}

/* Strided column reads: the whole history of every 16th tank. */
static void analyse_cycling(hid_t file, int *cycled_day, int *nsampled)
{
    hid_t dtan = h5id(H5Dopen2(file, "/series/tan", H5P_DEFAULT), "open tan");
    hid_t dno2 = h5id(H5Dopen2(file, "/series/no2", H5P_DEFAULT), "open no2");
    hid_t fsp = h5id(H5Dget_space(dtan), "space");
    hsize_t dims[2];
    H5Sget_simple_extent_dims(fsp, dims, NULL);
    float *ctan = malloc(sizeof(float) * dims[0]), *cno2 = malloc(sizeof(float) * dims[0]);
    hsize_t cnt1[1] = {dims[0]};
    hid_t msp = h5id(H5Screate_simple(1, cnt1, NULL), "mem");
    int ns = 0;
    for (int tnk = 0; tnk < NTANK; tnk += 16) {
        hsize_t start[2] = {0, (hsize_t)tnk}, count[2] = {dims[0], 1};
        h5check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL), "select column");
        h5check(H5Dread(dtan, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, ctan), "read tan column");
        h5check(H5Dread(dno2, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, cno2), "read no2 column");
        /* cycled: after the nitrite peak, ammonia and nitrite both stay below 0.25 for 48 h */
        int peak = 0;
        for (hsize_t h = 1; h < dims[0]; h++)
            if (cno2[h] > cno2[peak]) peak = (int)h;
        int run = 0, done = -1;
        for (hsize_t h = (hsize_t)peak; h < dims[0]; h++) {
            run = (ctan[h] < 0.25f && cno2[h] < 0.25f) ? run + 1 : 0;
            if (run >= 48) {
                done = (int)(h - 47) / 24;
                break;
            }
        }
        cycled_day[ns++] = done;
    }
    *nsampled = ns;
    free(ctan);
    free(cno2);
    H5Sclose(msp);
    H5Sclose(fsp);
    H5Dclose(dtan);
    H5Dclose(dno2);
}

/* Block read of the last 24 rows of every series; per-rack means. */
static void analyse_last_day(hid_t file, double rack_mean[NRACK][NVAR])
{
    float *blk = malloc(sizeof(float) * 24 * NTANK);
    memset(rack_mean, 0, sizeof(double) * NRACK * NVAR);
    for (int v = 0; v < NVAR; v++) {
        char name[64];
        snprintf(name, sizeof name, "/series/%s", var_names[v]);
        hid_t ds = h5id(H5Dopen2(file, name, H5P_DEFAULT), name);
        hid_t fsp = h5id(H5Dget_space(ds), "space");
        hsize_t dims[2];
        H5Sget_simple_extent_dims(fsp, dims, NULL);
        hsize_t start[2] = {dims[0] - 24, 0}, count[2] = {24, NTANK};
        h5check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL), "select block");
        hid_t msp = h5id(H5Screate_simple(2, count, NULL), "mem");
        h5check(H5Dread(ds, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, blk), "read block");
        for (int h = 0; h < 24; h++)
            for (int i = 0; i < NTANK; i++) rack_mean[i / (NTANK / NRACK)][v] += blk[h * NTANK + i];
        for (int r = 0; r < NRACK; r++) rack_mean[r][v] /= 24.0 * (NTANK / NRACK);
        H5Sclose(msp);
        H5Sclose(fsp);
        H5Dclose(ds);
    }
    free(blk);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/aquarium_water_quality.h5", argv[1]);

    tank_t *tk = malloc(sizeof(tank_t) * NTANK);
    if (!tk) MPI_Abort(MPI_COMM_WORLD, 2);
    init_tanks(tk);

    hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "fapl");
    h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl_mpio");
    hid_t file = h5id(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "create file");
    hid_t xfer = h5id(H5Pcreate(H5P_DATASET_XFER), "xfer");
    h5check(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE), "collective");

    write_static_tables(file, tk);
    hid_t gser = h5id(H5Gcreate2(file, "/series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group series");
    hid_t ds[NVAR];
    hsize_t nrows[NVAR];
    for (int v = 0; v < NVAR; v++) {
        ds[v] = create_series(gser, var_names[v], NTANK, CHUNK_T);
        nrows[v] = 0;
    }
    hid_t gsen = h5id(H5Gcreate2(file, "/sentinel", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group sentinel");
    hid_t dsen = create_series(gsen, "o2_5min", NSENT, 288);
    hsize_t nsen = 0;

    hid_t atype = h5id(H5Tcreate(H5T_COMPOUND, sizeof(alarm_rec)), "compound");
    H5Tinsert(atype, "hour", HOFFSET(alarm_rec, hour), H5T_NATIVE_INT32);
    H5Tinsert(atype, "tank", HOFFSET(alarm_rec, tank), H5T_NATIVE_INT32);
    H5Tinsert(atype, "kind", HOFFSET(alarm_rec, kind), H5T_NATIVE_INT32);
    H5Tinsert(atype, "value", HOFFSET(alarm_rec, value), H5T_NATIVE_FLOAT);
    hsize_t a0 = 0, amax = H5S_UNLIMITED, achunk = 512;
    hid_t asp = h5id(H5Screate_simple(1, &a0, &amax), "alarm space");
    hid_t adcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "dcpl");
    h5check(H5Pset_chunk(adcpl, 1, &achunk), "chunk");
    hid_t dal = h5id(H5Dcreate2(file, "/alarms", atype, asp, H5P_DEFAULT, adcpl, H5P_DEFAULT), "alarms");
    H5Pclose(adcpl);
    H5Sclose(asp);
    hsize_t nal = 0;

    float *row = malloc(sizeof(float) * NTANK);
    float sent[SUB_PER_HOUR][NSENT];
    alarm_rec *al = malloc(sizeof(alarm_rec) * NTANK);
    double t0 = MPI_Wtime(), tio = 0;
    for (int hour = 0; hour < NHOUR; hour++) {
        advance_hour(tk, hour, sent); /* sentinel probes report every 5 minutes */
        double ta = MPI_Wtime();
        for (int v = 0; v < NVAR; v++) {
            for (int i = 0; i < NTANK; i++) {
                const tank_t *t = &tk[i];
                double val = v == 0 ? t->tan : v == 1 ? t->no2 : v == 2 ? t->no3 : v == 3 ? t->o2
                           : v == 4 ? 6.2 + 1.6 * t->alk / (t->alk + 40.0) : t->temp;
                row[i] = (float)val;
            }
            append_rows(ds[v], &nrows[v], 1, NTANK, row, xfer);
        }
        append_rows(dsen, &nsen, SUB_PER_HOUR, NSENT, &sent[0][0], xfer);
        int na = check_alarms(tk, hour, al, NTANK);
        if (na > 0) {
            hsize_t nd = nal + (hsize_t)na;
            h5check(H5Dset_extent(dal, &nd), "extend alarms");
            hid_t fsp = h5id(H5Dget_space(dal), "space");
            hsize_t st = nal, cn = (hsize_t)na;
            h5check(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &st, NULL, &cn, NULL), "select alarms");
            hid_t msp = h5id(H5Screate_simple(1, &cn, NULL), "mem");
            h5check(H5Dwrite(dal, atype, msp, fsp, xfer, al), "write alarms");
            H5Sclose(msp);
            H5Sclose(fsp);
            nal = nd;
        }
        tio += MPI_Wtime() - ta;
    }
    double tsim = MPI_Wtime() - t0;
    for (int v = 0; v < NVAR; v++) H5Dclose(ds[v]);
    H5Dclose(dsen);
    H5Dclose(dal);
    H5Tclose(atype);
    H5Gclose(gser);
    H5Gclose(gsen);
    H5Pclose(xfer);
    h5check(H5Fclose(file), "close file");

    file = h5id(H5Fopen(path, H5F_ACC_RDONLY, fapl), "reopen");
    static int cycled[NTANK];
    int ns = 0;
    static double rack_mean[NRACK][NVAR];
    analyse_cycling(file, cycled, &ns);
    analyse_last_day(file, rack_mean);
    h5check(H5Fclose(file), "close file");
    H5Pclose(fapl);

    snprintf(path, sizeof path, "%s/cycling_summary.txt", argv[1]);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int hist[NDAY + 1] = {0};
    for (int k = 0; k < ns; k++) hist[cycled[k] < 0 ? NDAY : cycled[k]]++;
    fprintf(f, "Nitrogen cycle completion (sampled %d tanks)\nday  tanks\n", ns);
    for (int d = 0; d < NDAY; d++) fprintf(f, "%3d  %5d\n", d, hist[d]);
    fprintf(f, "not cycled: %d\n\nrack   TAN     NO2     NO3     O2      pH     temp\n", hist[NDAY]);
    for (int r = 0; r < NRACK; r++) {
        fprintf(f, "%4d", r);
        for (int v = 0; v < NVAR; v++) fprintf(f, " %7.3f", rack_mean[r][v]);
        fprintf(f, "\n");
    }
    fprintf(f, "alarms: %llu\n", (unsigned long long)nal);
    if (ferror(f) || fclose(f) != 0) {
        perror("summary");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("tanks %d  hours %d  alarms %llu  not cycled %d/%d  sim %.2f s (io %.2f s)\n", NTANK, NHOUR,
           (unsigned long long)nal, hist[NDAY], ns, tsim, tio);
    free(row);
    free(al);
    free(tk);
    MPI_Finalize();
    return 0;
}
