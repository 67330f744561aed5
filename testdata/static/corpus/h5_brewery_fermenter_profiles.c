/* h5_brewery_fermenter_profiles.c
 * A brewery cellar of cylindro-conical fermenters followed through primary
 * fermentation.  Every tank is a vertical column of layers with
 * temperature-dependent yeast growth (Monod on sugar, ethanol inhibition),
 * CO2-driven mixing, heat of fermentation and a PI-controlled glycol jacket
 * on the upper cone.
 *
 * I/O (parallel HDF5 through the MPI-IO driver, run on one rank):
 *   /profiles/{temperature,sugar,ethanol,yeast}  [time][tank][layer], unlimited
 *       time dimension, chunked; extended and written as a hyperslab per
 *       output step with collective transfers;
 *   /cellar/{gravity_plato,co2_rate,valve}       [time][tank], same pattern;
 *   /cellar/time_h                               [time];
 *   tank attributes (recipe, pitch rate, set point).
 * After the run the file is re-opened, each tank's sugar column is read back
 * as a strided hyperslab to find attenuation milestones, and a text batch
 * report is written.
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTANK     64
#define NLAYER    96
#define DT_S      120.0
#define NSTEP     5040              /* 7 days */
#define OUT_EVERY 24                /* every 48 minutes */
#define NOUT      (NSTEP / OUT_EVERY)

typedef struct {
    double og_plato, pitch, setpoint, kp, ki, dextrin;
    int recipe;
} tank_cfg;

static const char *recipes[4] = { "pilsner", "helles", "pale_ale", "weizen" };
static tank_cfg cfg[NTANK];
static double T[NTANK][NLAYER], S[NTANK][NLAYER], E[NTANK][NLAYER], X[NTANK][NLAYER];
static double integ[NTANK], valve[NTANK], co2[NTANK];
static unsigned long long seed = 0x5eed1234abcdULL;

#define H5CHK(expr) do { if ((expr) < 0) { fprintf(stderr, "HDF5 call failed: %s (line %d)\n", #expr, __LINE__); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static double urand(void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0;
}

static void configure_cellar(void)
{
    for (int t = 0; t < NTANK; t++) {
        int r = t % 4;
        cfg[t].recipe = r;
        cfg[t].og_plato = (r == 2 ? 13.0 : r == 3 ? 12.5 : 11.8) + 0.6 * (urand() - 0.5);
        cfg[t].pitch = (r >= 2 ? 0.8 : 1.5) * (0.8 + 0.4 * urand());  /* g/L yeast */
        cfg[t].setpoint = r >= 2 ? 19.0 : 10.5;
        cfg[t].kp = 0.25 + 0.1 * urand();
        cfg[t].ki = 2.0e-5;
        double fermentable = (r == 3 ? 0.80 : 0.76) + 0.04 * urand();
        cfg[t].dextrin = cfg[t].og_plato * 10.4 * (1.0 - fermentable);
        for (int k = 0; k < NLAYER; k++) {
            T[t][k] = cfg[t].setpoint - 1.0 + 0.02 * k;
            S[t][k] = cfg[t].og_plato * 10.4 * fermentable;     /* g/L fermentable extract */
            E[t][k] = 0.0;
            X[t][k] = cfg[t].pitch * (k > NLAYER / 2 ? 1.3 : 0.7);
        }
        integ[t] = 0.0;
        valve[t] = 0.0;
    }
}

/* one time step of kinetics in every layer of every tank */
static void kinetics(void)
{
    for (int t = 0; t < NTANK; t++) {
        double prod = 0.0;
        for (int k = 0; k < NLAYER; k++) {
            double temp = T[t][k];
            double arr = exp(0.0693 * (temp - 15.0));              /* Q10 ~ 2 */
            double mu = 0.18 / 3600.0 * arr * S[t][k] / (S[t][k] + 12.0) * fmax(0.0, 1.0 - E[t][k] / 95.0);
            double xmax = 6.0;
            double growth = mu * X[t][k] * (1.0 - X[t][k] / xmax);
            double qs = 0.55 / 3600.0 * arr * S[t][k] / (S[t][k] + 6.0) * fmax(0.0, 1.0 - E[t][k] / 110.0);
            double uptake = fmin(qs * X[t][k] * DT_S, S[t][k]);
            S[t][k] -= uptake;
            E[t][k] += 0.48 * uptake;
            X[t][k] += growth * DT_S;
            T[t][k] += uptake * 0.0065;                             /* heat of fermentation, K per g/L */
            prod += 0.46 * uptake;
        }
        co2[t] = prod / NLAYER / DT_S * 3600.0;                       /* g/L/h */
    }
}

/* CO2 bubbles drive vertical mixing; yeast settles slowly into the cone */
static void vertical_mixing(void)
{
    static double nt[NLAYER], ns[NLAYER], ne[NLAYER], nx[NLAYER];
    for (int t = 0; t < NTANK; t++) {
        double kmix = 0.02 + 0.25 * fmin(co2[t], 2.0);
        double settle = co2[t] < 0.15 ? 0.02 : 0.002;
        for (int k = 0; k < NLAYER; k++) {
            int up = k > 0 ? k - 1 : k, dn = k < NLAYER - 1 ? k + 1 : k;
            nt[k] = T[t][k] + kmix * (T[t][up] + T[t][dn] - 2.0 * T[t][k]);
            ns[k] = S[t][k] + kmix * (S[t][up] + S[t][dn] - 2.0 * S[t][k]);
            ne[k] = E[t][k] + kmix * (E[t][up] + E[t][dn] - 2.0 * E[t][k]);
            nx[k] = X[t][k] + kmix * (X[t][up] + X[t][dn] - 2.0 * X[t][k]);
        }
        /* settling flux towards the bottom layer (index NLAYER-1) */
        for (int k = NLAYER - 2; k >= 0; k--) {
            double f = settle * nx[k];
            nx[k] -= f;
            nx[k + 1] += f;
        }
        memcpy(T[t], nt, sizeof nt);
        memcpy(S[t], ns, sizeof ns);
        memcpy(E[t], ne, sizeof ne);
        memcpy(X[t], nx, sizeof nx);
    }
}

/* PI controller on the mean temperature of the jacket zone (layers 8..39) */
static void jacket_control(double cellar_temp)
{
    for (int t = 0; t < NTANK; t++) {
        double m = 0.0;
        for (int k = 8; k < 40; k++) m += T[t][k];
        m /= 32.0;
        double err = m - cfg[t].setpoint;
        integ[t] += err * DT_S;
        double u = cfg[t].kp * err + cfg[t].ki * integ[t];
        valve[t] = u < 0 ? 0 : u > 1 ? 1 : u;
        if (valve[t] == 0.0 || valve[t] == 1.0) integ[t] -= err * DT_S;   /* anti-windup */
        for (int k = 8; k < 40; k++) T[t][k] -= valve[t] * 0.004 * (T[t][k] - (-2.0)) * DT_S / 60.0;
        for (int k = 0; k < NLAYER; k++) T[t][k] += 2.0e-5 * (cellar_temp - T[t][k]) * DT_S;
    }
}

typedef struct { hid_t id; int rank; } dset;

static dset make_series(hid_t grp, const char *name, int rank, hsize_t d1, hsize_t d2)
{
    hsize_t cur[3] = { 0, d1, d2 }, max[3] = { H5S_UNLIMITED, d1, d2 }, chunk[3] = { 8, d1, d2 };
    hid_t sp = H5Screate_simple(rank, cur, max);
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(sp);
    H5CHK(pl);
    H5CHK(H5Pset_chunk(pl, rank, chunk));
    H5CHK(H5Pset_obj_track_times(pl, 0));      /* reproducible files: no object timestamps */
    dset d = { H5Dcreate2(grp, name, H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, pl, H5P_DEFAULT), rank };
    H5CHK(d.id);
    H5Pclose(pl);
    H5Sclose(sp);
    return d;
}

static void append_record(dset d, hsize_t step, const float *buf, hid_t dxpl)
{
    hsize_t ext[3], start[3] = { step, 0, 0 }, count[3];
    hid_t fs = H5Dget_space(d.id);
    H5CHK(fs);
    H5CHK(H5Sget_simple_extent_dims(fs, ext, NULL));
    H5Sclose(fs);
    ext[0] = step + 1;
    H5CHK(H5Dset_extent(d.id, ext));
    fs = H5Dget_space(d.id);
    count[0] = 1; count[1] = ext[1]; count[2] = d.rank > 2 ? ext[2] : 1;
    H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t ms = H5Screate_simple(d.rank, count, NULL);
    H5CHK(H5Dwrite(d.id, H5T_NATIVE_FLOAT, ms, fs, dxpl, buf));
    H5Sclose(ms);
    H5Sclose(fs);
}

static void write_tank_attributes(hid_t grp)
{
    hsize_t n = NTANK;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    float og[NTANK], pitch[NTANK], sp_t[NTANK];
    int rec[NTANK];
    for (int t = 0; t < NTANK; t++) {
        og[t] = (float)cfg[t].og_plato; pitch[t] = (float)cfg[t].pitch;
        sp_t[t] = (float)cfg[t].setpoint; rec[t] = cfg[t].recipe;
    }
    const char *names[4] = { "original_gravity_plato", "pitch_rate_g_per_l", "setpoint_c", "recipe" };
    const void *bufs[4] = { og, pitch, sp_t, rec };
    for (int a = 0; a < 4; a++) {
        hid_t ty = a == 3 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
        hid_t at = H5Acreate2(grp, names[a], ty, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5CHK(at);
        H5CHK(H5Awrite(at, ty, bufs[a]));
        H5Aclose(at);
    }
    H5Sclose(sp);
}

static void simulate(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5CHK(f);
    H5Pclose(fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5CHK(H5Pset_obj_track_times(gcpl, 0));
    hid_t gp = H5Gcreate2(f, "profiles", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t gc = H5Gcreate2(f, "cellar", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    H5CHK(gp);
    H5CHK(gc);
    write_tank_attributes(gc);
    const char *pnames[4] = { "temperature", "sugar", "ethanol", "yeast" };
    dset prof[4], gravity, rate, val, th;
    for (int v = 0; v < 4; v++) prof[v] = make_series(gp, pnames[v], 3, NTANK, NLAYER);
    gravity = make_series(gc, "gravity_plato", 2, NTANK, 0);
    rate = make_series(gc, "co2_rate", 2, NTANK, 0);
    val = make_series(gc, "valve", 2, NTANK, 0);
    th = make_series(gc, "time_h", 1, 0, 0);

    static float buf[NTANK * NLAYER];
    float sc[NTANK];
    double (*fields[4])[NLAYER] = { T, S, E, X };
    hsize_t rec = 0;
    for (int step = 1; step <= NSTEP; step++) {
        double hours = step * DT_S / 3600.0;
        double cellar = 8.0 + 2.0 * sin(2.0 * M_PI * hours / 24.0);
        kinetics();
        vertical_mixing();
        jacket_control(cellar);
        if (step % OUT_EVERY) continue;
        for (int v = 0; v < 4; v++) {
            for (int t = 0; t < NTANK; t++)
                for (int k = 0; k < NLAYER; k++) buf[t * NLAYER + k] = (float)fields[v][t][k];
            append_record(prof[v], rec, buf, dxpl);
        }
        for (int t = 0; t < NTANK; t++) {
            double s = 0, e = 0;
            for (int k = 0; k < NLAYER; k++) { s += S[t][k]; e += E[t][k]; }
            /* apparent extract: residual sugar + dextrins, lowered by the density of ethanol */
            sc[t] = (float)((s / NLAYER + cfg[t].dextrin - 0.45 * e / NLAYER) / 10.4);
        }
        append_record(gravity, rec, sc, dxpl);
        for (int t = 0; t < NTANK; t++) sc[t] = (float)co2[t];
        append_record(rate, rec, sc, dxpl);
        for (int t = 0; t < NTANK; t++) sc[t] = (float)valve[t];
        append_record(val, rec, sc, dxpl);
        float h = (float)hours;
        append_record(th, rec, &h, dxpl);
        rec++;
    }
    for (int v = 0; v < 4; v++) H5Dclose(prof[v].id);
    H5Dclose(gravity.id); H5Dclose(rate.id); H5Dclose(val.id); H5Dclose(th.id);
    H5Gclose(gp); H5Gclose(gc);
    H5Pclose(dxpl);
    H5CHK(H5Fclose(f));
}

/* read one tank's sugar history [time][layer] as a hyperslab and find milestones */
static void analyse_batches(const char *path, const char *report)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5CHK(f);
    H5Pclose(fapl);
    hid_t ds = H5Dopen2(f, "/profiles/sugar", H5P_DEFAULT);
    hid_t dt = H5Dopen2(f, "/profiles/temperature", H5P_DEFAULT);
    hid_t dh = H5Dopen2(f, "/cellar/time_h", H5P_DEFAULT);
    H5CHK(ds); H5CHK(dt); H5CHK(dh);
    hsize_t dims[3];
    hid_t fs = H5Dget_space(ds);
    H5CHK(H5Sget_simple_extent_dims(fs, dims, NULL));
    hsize_t nt = dims[0];
    float *hours = malloc(sizeof(float) * nt), *col = malloc(sizeof(float) * nt * NLAYER);
    float *tcol = malloc(sizeof(float) * nt * NLAYER);
    if (!hours || !col || !tcol) MPI_Abort(MPI_COMM_WORLD, 2);
    H5CHK(H5Dread(dh, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, hours));
    FILE *out = fopen(report, "w");
    if (!out) { perror(report); MPI_Abort(MPI_COMM_WORLD, 1); }
    fprintf(out, "# tank recipe     OG_P   FG_P  RDF%%   t_50%%_h  t_90%%_h  Tmax_C  strat_max_K\n");
    double adf_sum = 0;
    for (int t = 0; t < NTANK; t++) {
        hsize_t start[3] = { 0, (hsize_t)t, 0 }, count[3] = { nt, 1, NLAYER };
        H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        hid_t ms = H5Screate_simple(3, count, NULL);
        H5CHK(H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, col));
        H5CHK(H5Dread(dt, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, tcol));
        H5Sclose(ms);
        double og = cfg[t].og_plato, t50 = -1, t90 = -1, tmax = -100, strat = 0, fg = og;
        for (hsize_t i = 0; i < nt; i++) {
            double s = 0, lo = 1e9, hi = -1e9;
            for (int k = 0; k < NLAYER; k++) {
                s += col[i * NLAYER + k];
                double tv = tcol[i * NLAYER + k];
                if (tv > tmax) tmax = tv;
                if (tv < lo) lo = tv;
                if (tv > hi) hi = tv;
            }
            if (hi - lo > strat) strat = hi - lo;
            fg = (s / NLAYER + cfg[t].dextrin) / 10.4;   /* real extract */
            double att = (og - fg) / (og - cfg[t].dextrin / 10.4);
            if (t50 < 0 && att >= 0.5) t50 = hours[i];
            if (t90 < 0 && att >= 0.9) t90 = hours[i];
        }
        double adf = 100.0 * (1.0 - fg / og);    /* real degree of fermentation */
        adf_sum += adf;
        if (fprintf(out, "%5d %-9s %6.2f %6.2f %5.1f %8.1f %8.1f %7.2f %7.2f\n", t, recipes[cfg[t].recipe], og, fg,
                    adf, t50, t90, tmax, strat) < 0) {
            perror(report); MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (fclose(out) != 0) { perror(report); MPI_Abort(MPI_COMM_WORLD, 1); }
    printf("%d tanks, %llu records: mean real degree of fermentation %.1f%%\n", NTANK, (unsigned long long)nt,
           adf_sum / NTANK);
    free(hours); free(col); free(tcol);
    H5Sclose(fs);
    H5Dclose(ds); H5Dclose(dt); H5Dclose(dh);
    H5CHK(H5Fclose(f));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    char h5[4096], rep[4096];
    snprintf(h5, sizeof h5, "%s/cellar_fermentation.h5", argv[1]);
    snprintf(rep, sizeof rep, "%s/batch_report.txt", argv[1]);
    configure_cellar();
    simulate(h5);
    analyse_batches(h5, rep);
    MPI_Finalize();
    return 0;
}
