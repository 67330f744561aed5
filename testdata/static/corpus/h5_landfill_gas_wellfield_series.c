/*
 * h5_landfill_gas_wellfield_series.c
 *
 * Landfill gas collection: a waste body of 40 placement cells (different
 * ages and moisture) generates methane by first-order decay (LandGEM-style);
 * gas pressure in the waste mass is solved each hour on a 2-D grid by SOR
 * with 48 vertical extraction wells as vacuum sinks and leakage through the
 * cover; well flow, methane and oxygen fractions follow from pressure,
 * generation and air intrusion.  Field technicians re-tune the wellhead
 * valves once a day from the methane/oxygen readings.
 *
 * Parallel HDF5 (MPI-IO driver, collective transfers; run on 1 rank):
 *   /wells/{flow,ch4,o2,vacuum}  [hour][well] extended by one row per step
 *   /field/pressure              [snap][ny][nx] extended every 6 hours
 *   /field/generation            [ny][nx] written once, attributes with units
 * After the run the well series are read back one well column at a time
 * (strided hyperslabs) to compute per-well statistics, and the final pressure
 * snapshot is re-read for a mass-balance check; a text summary is written.
 *
 * usage: h5_landfill_gas_wellfield_series OUTDIR
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 200
#define NY 140
#define DXM 5.0                  /* m */
#define NW 48
#define NHOUR 720                /* 30 days */
#define SNAP_EVERY 6
#define NPLACE 40
#define SOR_ITERS 12
#define NVAR 4

typedef struct { int i, j; double valve, vacuum; } well_t;

static double gen[NY][NX];       /* methane generation [m3/h per cell] */
static double pres[NY][NX];      /* gauge pressure [Pa] */
static double age[NY][NX], moist[NY][NX];
static well_t wells[NW];
static double wflow[NW], wch4[NW], wo2[NW];
static const char *outdir;

static void fail(const char *what)
{
    fprintf(stderr, "landfill_gas: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}
#define H5CHK(x, what) do { if ((x) < 0) fail(what); } while (0)

static uint32_t lcg = 2463534242u;
static double urand(void)
{
    lcg ^= lcg << 13; lcg ^= lcg >> 17; lcg ^= lcg << 5;
    return lcg / 4294967296.0;
}

/* placement cells: rectangular lifts with placement year and moisture */
static void build_waste_inventory(void)
{
    for (int c = 0; c < NPLACE; c++) {
        int ci = c % 8, cj = c / 8;
        double a = 1.0 + 14.0 * urand(), m = 0.2 + 0.3 * urand();
        for (int j = cj * (NY / 5); j < (cj + 1) * (NY / 5); j++)
            for (int i = ci * (NX / 8); i < (ci + 1) * (NX / 8); i++) {
                age[j][i] = a + 0.3 * sin(0.2 * i) * cos(0.15 * j);
                moist[j][i] = m;
            }
    }
    for (int w = 0; w < NW; w++) {
        wells[w].i = 12 + (w % 8) * 25;
        wells[w].j = 12 + (w / 8) * 23;
        wells[w].valve = 0.5;
        wells[w].vacuum = 0.0;
    }
}

/* LandGEM first-order decay: q = k L0 M exp(-k age), k depends on moisture */
static double methane_generation(double t_days)
{
    const double L0 = 100.0, tonnes_per_cell = DXM * DXM * 18.0 * 0.9;
    double tot = 0.0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double k = 0.02 + 0.12 * moist[j][i];
            double a = age[j][i] + t_days / 365.0;
            double seasonal = 1.0 + 0.05 * sin(2.0 * 3.14159265 * t_days / 365.0);
            double q = k * L0 * tonnes_per_cell * exp(-k * a) / 8760.0 * seasonal;
            gen[j][i] = q;
            tot += q;
        }
    return tot;
}

/* quasi-steady gas pressure: div(T grad p) - leak p + gen = 0, wells fixed at -vacuum.
   Warm-started from the previous hour, so a few SOR sweeps per hour suffice. */
static double solve_gas_pressure(void)
{
    const double trans = 0.8, leak = 0.002, omega = 1.7;
    const double inv_diag = 1.0 / (4.0 * trans + leak);
    static unsigned char is_well[NY][NX];
    memset(is_well, 0, sizeof is_well);
    for (int w = 0; w < NW; w++) {
        is_well[wells[w].j][wells[w].i] = 1;
        pres[wells[w].j][wells[w].i] = -wells[w].vacuum;
    }
    double dmax = 0.0;
    for (int it = 0; it < SOR_ITERS; it++) {
        dmax = 0.0;
        for (int colour = 0; colour < 2; colour++)          /* red-black ordering */
            for (int j = 0; j < NY; j++)
                for (int i = (j + colour) & 1; i < NX; i += 2) {
                    if (is_well[j][i]) continue;
                    double pw = i > 0 ? pres[j][i - 1] : 0.0, pe = i < NX - 1 ? pres[j][i + 1] : 0.0;
                    double ps = j > 0 ? pres[j - 1][i] : 0.0, pn = j < NY - 1 ? pres[j + 1][i] : 0.0;
                    double pnew = (trans * (pw + pe + ps + pn) + gen[j][i] * 40.0) * inv_diag;
                    double d = pnew - pres[j][i];
                    pres[j][i] += omega * d;
                    if (fabs(d) > dmax) dmax = fabs(d);
                }
    }
    return dmax;
}

/* well flows from the pressure gradient around each well; air intrusion at high vacuum */
static void well_flows(void)
{
    const double trans = 0.8;
    for (int w = 0; w < NW; w++) {
        int i = wells[w].i, j = wells[w].j;
        double p0 = pres[j][i];
        double inflow = trans * ((pres[j][i - 1] - p0) + (pres[j][i + 1] - p0) + (pres[j - 1][i] - p0) + (pres[j + 1][i] - p0));
        double gas = inflow > 0 ? inflow / 40.0 : 0.0;             /* m3/h landfill gas */
        double local_gen = 0.0;
        for (int dj = -8; dj <= 8; dj++)
            for (int di = -8; di <= 8; di++) local_gen += gen[j + dj][i + di];
        double air = wells[w].vacuum > 0.0 ? 0.004 * pow(wells[w].vacuum, 1.5) : 0.0;
        double lfg = 1.8 * local_gen;                              /* CH4 ~ 55 % of LFG */
        double total = gas + air + 1e-9;
        wflow[w] = total;
        double ch4 = 0.55 * fmin(gas, lfg) / total;
        wch4[w] = 100.0 * ch4;
        wo2[w] = 100.0 * 0.209 * air / total;
    }
}

/* daily field tuning: open valves on rich wells, close on oxygen intrusion */
static void tune_wellheads(int hour)
{
    for (int w = 0; w < NW; w++) {
        double v = wells[w].valve;
        if (wo2[w] > 2.0 || wch4[w] < 40.0) v *= 0.8;
        else if (wch4[w] > 52.0 && wo2[w] < 0.5) v = fmin(1.0, v * 1.15 + 0.02);
        wells[w].valve = v;
        wells[w].vacuum = 2500.0 * v * (1.0 + 0.05 * sin(0.3 * hour + w));   /* header vacuum [Pa] */
    }
}

typedef struct {
    hid_t file, dxpl;
    hid_t dvar[NVAR], dpres;
} h5out_t;

static const char *var_names[NVAR] = {"flow", "ch4", "o2", "vacuum"};
static const char *var_units[NVAR] = {"m3/h", "%vol", "%vol", "Pa"};

static void put_attr_string(hid_t obj, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5CHK(t, "H5Tcopy");
    H5CHK(H5Tset_size(t, strlen(val) + 1), "H5Tset_size");
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(a, "H5Acreate2");
    H5CHK(H5Awrite(a, t, val), "H5Awrite");
    H5Aclose(a); H5Sclose(s); H5Tclose(t);
}

static void create_file_layout(h5out_t *h, const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5CHK(h->file, "H5Fcreate");
    H5Pclose(fapl);
    h->dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(h->dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");

    /* no object timestamps: identical runs give identical files */
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5CHK(H5Pset_obj_track_times(gcpl, 0), "track_times");
    hid_t gw = H5Gcreate2(h->file, "/wells", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t gf = H5Gcreate2(h->file, "/field", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    H5CHK(gw, "create /wells"); H5CHK(gf, "create /field");
    put_attr_string(gw, "description", "hourly wellhead readings, one row per hour, one column per well");

    hsize_t dims[2] = {0, NW}, maxd[2] = {H5S_UNLIMITED, NW}, chunk[2] = {24, NW};
    hid_t sp = H5Screate_simple(2, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_chunk(dcpl, 2, chunk), "H5Pset_chunk wells");
    H5CHK(H5Pset_obj_track_times(dcpl, 0), "track_times");
    for (int v = 0; v < NVAR; v++) {
        h->dvar[v] = H5Dcreate2(gw, var_names[v], H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5CHK(h->dvar[v], "H5Dcreate2 well var");
        put_attr_string(h->dvar[v], "units", var_units[v]);
    }
    H5Pclose(dcpl); H5Sclose(sp);

    hsize_t pd[3] = {0, NY, NX}, pm[3] = {H5S_UNLIMITED, NY, NX}, pc[3] = {1, NY, NX};
    sp = H5Screate_simple(3, pd, pm);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_chunk(dcpl, 3, pc), "H5Pset_chunk pressure");
    H5CHK(H5Pset_obj_track_times(dcpl, 0), "track_times");
    h->dpres = H5Dcreate2(gf, "pressure", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(h->dpres, "H5Dcreate2 pressure");
    put_attr_string(h->dpres, "units", "Pa gauge");
    H5Pclose(dcpl); H5Sclose(sp);

    /* well coordinates as a small static dataset */
    int coords[NW][2];
    for (int w = 0; w < NW; w++) { coords[w][0] = wells[w].i; coords[w][1] = wells[w].j; }
    hsize_t cd[2] = {NW, 2};
    sp = H5Screate_simple(2, cd, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_obj_track_times(dcpl, 0), "track_times");
    hid_t dc = H5Dcreate2(gw, "grid_index", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5CHK(dc, "create grid_index");
    H5CHK(H5Dwrite(dc, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, h->dxpl, coords), "write grid_index");
    H5Dclose(dc); H5Sclose(sp);
    H5Gclose(gw); H5Gclose(gf);
}

static void write_generation_field(h5out_t *h)
{
    hsize_t d[2] = {NY, NX};
    hid_t sp = H5Screate_simple(2, d, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_obj_track_times(dcpl, 0), "track_times");
    hid_t ds = H5Dcreate2(h->file, "/field/generation", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5CHK(ds, "create generation");
    put_attr_string(ds, "units", "m3 CH4 per hour per cell");
    H5CHK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, h->dxpl, gen), "write generation");
    H5Dclose(ds); H5Sclose(sp);
}

/* grow each well dataset by one row and write that row as a hyperslab */
static void append_well_row(h5out_t *h, int hour)
{
    const double *src[NVAR] = {wflow, wch4, wo2, NULL};
    double vac[NW];
    for (int w = 0; w < NW; w++) vac[w] = wells[w].vacuum;
    src[3] = vac;
    hsize_t newd[2] = {(hsize_t)hour + 1, NW}, start[2] = {(hsize_t)hour, 0}, cnt[2] = {1, NW};
    hid_t mem = H5Screate_simple(2, cnt, NULL);
    for (int v = 0; v < NVAR; v++) {
        H5CHK(H5Dset_extent(h->dvar[v], newd), "H5Dset_extent well");
        hid_t fs = H5Dget_space(h->dvar[v]);
        H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), "select well row");
        H5CHK(H5Dwrite(h->dvar[v], H5T_NATIVE_DOUBLE, mem, fs, h->dxpl, src[v]), "write well row");
        H5Sclose(fs);
    }
    H5Sclose(mem);
}

static void append_pressure_snapshot(h5out_t *h, int snap)
{
    hsize_t newd[3] = {(hsize_t)snap + 1, NY, NX}, start[3] = {(hsize_t)snap, 0, 0}, cnt[3] = {1, NY, NX};
    H5CHK(H5Dset_extent(h->dpres, newd), "H5Dset_extent pressure");
    hid_t fs = H5Dget_space(h->dpres);
    H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), "select snapshot");
    hid_t mem = H5Screate_simple(3, cnt, NULL);
    H5CHK(H5Dwrite(h->dpres, H5T_NATIVE_DOUBLE, mem, fs, h->dxpl, pres), "write snapshot");
    H5Sclose(mem); H5Sclose(fs);
}

typedef struct { double mean_flow, mean_ch4, max_o2, frac_low_ch4; int o2_events; } wstat_t;

/* read back each well's column of every variable (strided selection down the time axis) */
static void read_back_well_stats(const char *path, wstat_t *st)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl read");
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5CHK(f, "H5Fopen");
    H5Pclose(fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "dxpl read");
    hid_t d[NVAR];
    for (int v = 0; v < NVAR; v++) {
        char name[64];
        snprintf(name, sizeof name, "/wells/%s", var_names[v]);
        d[v] = H5Dopen2(f, name, H5P_DEFAULT);
        H5CHK(d[v], "H5Dopen2");
    }
    hsize_t dims[2];
    hid_t fs0 = H5Dget_space(d[0]);
    H5Sget_simple_extent_dims(fs0, dims, NULL);
    H5Sclose(fs0);
    if (dims[0] != NHOUR || dims[1] != NW) fail("well series extent");
    static double col[NVAR][NHOUR];
    hsize_t mcnt[1] = {NHOUR};
    hid_t mem = H5Screate_simple(1, mcnt, NULL);
    for (int w = 0; w < NW; w++) {
        hsize_t start[2] = {0, (hsize_t)w}, cnt[2] = {NHOUR, 1};
        for (int v = 0; v < NVAR; v++) {
            hid_t fs = H5Dget_space(d[v]);
            H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL), "select column");
            H5CHK(H5Dread(d[v], H5T_NATIVE_DOUBLE, mem, fs, dxpl, col[v]), "read column");
            H5Sclose(fs);
        }
        wstat_t s = {0};
        int in_event = 0;
        for (int t = 0; t < NHOUR; t++) {
            s.mean_flow += col[0][t];
            s.mean_ch4 += col[1][t];
            if (col[2][t] > s.max_o2) s.max_o2 = col[2][t];
            if (col[1][t] < 45.0) s.frac_low_ch4 += 1.0;
            if (col[2][t] > 1.5 && !in_event) { s.o2_events++; in_event = 1; }
            if (col[2][t] < 1.0) in_event = 0;
        }
        s.mean_flow /= NHOUR; s.mean_ch4 /= NHOUR; s.frac_low_ch4 /= NHOUR;
        st[w] = s;
    }
    H5Sclose(mem);
    /* final pressure snapshot for the cover-leak balance */
    hid_t dp = H5Dopen2(f, "/field/pressure", H5P_DEFAULT);
    H5CHK(dp, "open pressure");
    hsize_t pd[3];
    hid_t ps = H5Dget_space(dp);
    H5Sget_simple_extent_dims(ps, pd, NULL);
    hsize_t start[3] = {pd[0] - 1, 0, 0}, cnt[3] = {1, NY, NX};
    H5CHK(H5Sselect_hyperslab(ps, H5S_SELECT_SET, start, NULL, cnt, NULL), "select last snap");
    hid_t pm = H5Screate_simple(3, cnt, NULL);
    H5CHK(H5Dread(dp, H5T_NATIVE_DOUBLE, pm, ps, dxpl, pres), "read last snap");
    H5Sclose(pm); H5Sclose(ps); H5Dclose(dp);
    for (int v = 0; v < NVAR; v++) H5Dclose(d[v]);
    H5Pclose(dxpl);
    H5CHK(H5Fclose(f), "H5Fclose read");
}

static void write_summary(const wstat_t *st, double gen_total, double recovered)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/wellfield_summary.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f) fail("fopen summary");
    double leak = 0.0;
    for (int j = 0; j < NY; j++) for (int i = 0; i < NX; i++) if (pres[j][i] > 0) leak += 0.002 * pres[j][i] / 40.0;
    int ok = fprintf(f, "wellfield summary: %d wells, %d hours, generation %.1f m3/h CH4, recovered %.1f m3/h, "
                        "cover emission %.1f m3/h\n", NW, NHOUR, gen_total, recovered, leak) >= 0;
    ok = ok && fprintf(f, "well   i   j  mean_flow  mean_CH4  max_O2  frac_CH4<45  O2_events\n") >= 0;
    for (int w = 0; w < NW && ok; w++)
        ok = fprintf(f, "W%02d %4d %3d %10.2f %9.2f %7.2f %12.3f %10d\n", w, wells[w].i, wells[w].j, st[w].mean_flow,
                     st[w].mean_ch4, st[w].max_o2, st[w].frac_low_ch4, st[w].o2_events) >= 0;
    if (!ok || fclose(f) != 0) fail("write summary");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); MPI_Finalize(); return 2; }
    outdir = argv[1];
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/landfill_gas.h5", outdir) >= sizeof path) fail("path");

    build_waste_inventory();
    tune_wellheads(0);
    double g0 = methane_generation(0.0);
    h5out_t h;
    create_file_layout(&h, path);
    write_generation_field(&h);

    double recovered = 0.0, resid = 0.0;
    int snap = 0;
    for (int hr = 0; hr < NHOUR; hr++) {
        if (hr % 24 == 0) methane_generation(hr / 24.0);
        resid = solve_gas_pressure();
        well_flows();
        if (hr % 24 == 23) tune_wellheads(hr);
        append_well_row(&h, hr);
        if (hr % SNAP_EVERY == SNAP_EVERY - 1) append_pressure_snapshot(&h, snap++);
        if (hr >= NHOUR - 24) for (int w = 0; w < NW; w++) recovered += wflow[w] * wch4[w] / 100.0 / 24.0;
    }
    for (int v = 0; v < NVAR; v++) H5Dclose(h.dvar[v]);
    H5Dclose(h.dpres);
    H5Pclose(h.dxpl);
    H5CHK(H5Fclose(h.file), "H5Fclose");

    static wstat_t st[NW];
    read_back_well_stats(path, st);
    write_summary(st, g0, recovered);
    double mch4 = 0.0;
    for (int w = 0; w < NW; w++) mch4 += st[w].mean_ch4 / NW;
    printf("landfill gas wellfield: %d wells x %d h, %d pressure snapshots, mean CH4 %.1f %%, last SOR update %.2e Pa\n",
           NW, NHOUR, snap, mch4, resid);
    MPI_Finalize();
    return 0;
}
