/*
 * h5_ocean_heat_budget.c
 *
 * Parallel-HDF5 ocean diagnostics.  Monthly temperature and salinity fields
 * of a synthetic basin (NT x NZ x NY x NX, float32) are generated with a
 * latitude-band decomposition over MPI ranks and written collectively into
 * one HDF5 file through the MPI-IO driver.  The analysis pass reads the
 * slabs back collectively, evaluates the UNESCO EOS-80 density with pressure
 * (secant bulk modulus), and computes column ocean heat content, mixed-layer
 * depth and maximum buoyancy frequency, written as 2-D monthly datasets.  A
 * zonal-mean temperature section is built from per-level hyperslab reads,
 * station profiles are pulled with point selections, and after re-opening
 * the file read-only a text summary of the heat-content trend is written.
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 12
#define NZ 32
#define NY 100
#define NX 200
#define N_STATIONS 24
#define CP 3985.0

static int rank, nprocs;
static int y0_loc, ny_loc;
static double depth[NZ], dz[NZ], lat[NY], lon[NX];

#define CHECK(x)                                                                                        \
    do {                                                                                                \
        if ((x) < 0) {                                                                                  \
            fprintf(stderr, "HDF5 call failed at %s:%d\n", __FILE__, __LINE__);                        \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                               \
        }                                                                                               \
    } while (0)

static void setup_grid(void)
{
    double z = 0.0;
    for (int k = 0; k < NZ; k++) {
        dz[k] = 5.0 * pow(1.16, k); /* stretched levels, ~5 m to ~370 m */
        depth[k] = z + 0.5 * dz[k];
        z += dz[k];
    }
    for (int j = 0; j < NY; j++) lat[j] = -60.0 + 120.0 * (j + 0.5) / NY;
    for (int i = 0; i < NX; i++) lon[i] = 120.0 + 160.0 * (i + 0.5) / NX;
    int base = NY / nprocs, rem = NY % nprocs;
    ny_loc = base + (rank < rem);
    y0_loc = rank * base + (rank < rem ? rank : rem);
}

/* Analytic-ish climatology with a seasonal cycle, eddies and a warming trend. */
static void generate_month(int t, float *T, float *S)
{
    double season = cos(2 * M_PI * (t + 0.5) / 12.0);
    for (int k = 0; k < NZ; k++) {
        double thermo = exp(-depth[k] / 180.0);
        for (int jl = 0; jl < ny_loc; jl++) {
            int j = y0_loc + jl;
            double phi = lat[j] * M_PI / 180.0;
            double sst = 28.0 * cos(phi) * cos(phi) - 1.0 + 3.0 * season * sin(phi);
            double mld = 30.0 + 60.0 * (1 - season * (lat[j] > 0 ? 1 : -1)) * fabs(sin(phi));
            for (int i = 0; i < NX; i++) {
                double eddy = 0.6 * sin(lon[i] * 0.21 + 0.7 * t) * cos(lat[j] * 0.17 - 0.3 * t);
                double tt;
                if (depth[k] < mld) tt = sst + eddy;
                else tt = 2.0 + (sst - 2.0) * thermo * exp(mld / 180.0) + eddy * thermo;
                tt += 0.02 * t * thermo;
                size_t ix = ((size_t)k * ny_loc + jl) * NX + i;
                T[ix] = (float)tt;
                S[ix] = (float)(34.6 + 1.2 * cos(2 * phi) * thermo + 0.1 * eddy + 0.0005 * depth[k] * (1 - thermo));
            }
        }
    }
}

static double eos80(double S, double T, double p_bar)
{
    double T2 = T * T, T3 = T2 * T, T4 = T3 * T, S15 = S * sqrt(S);
    double rw = 999.842594 + 6.793952e-2 * T - 9.095290e-3 * T2 + 1.001685e-4 * T3 - 1.120083e-6 * T4 +
                6.536332e-9 * T4 * T;
    double r0 = rw + S * (0.824493 - 4.0899e-3 * T + 7.6438e-5 * T2 - 8.2467e-7 * T3 + 5.3875e-9 * T4) +
                S15 * (-5.72466e-3 + 1.0227e-4 * T - 1.6546e-6 * T2) + 4.8314e-4 * S * S;
    double Kw = 19652.21 + 148.4206 * T - 2.327105 * T2 + 1.360477e-2 * T3 - 5.155288e-5 * T4;
    double K0 = Kw + S * (54.6746 - 0.603459 * T + 1.09987e-2 * T2 - 6.1670e-5 * T3) +
                S15 * (7.944e-2 + 1.6483e-2 * T - 5.3009e-4 * T2);
    double A = 3.239908 + 1.43713e-3 * T + 1.16092e-4 * T2 - 5.77905e-7 * T3 +
               S * (2.2838e-3 - 1.0981e-5 * T - 1.6078e-6 * T2) + 1.91075e-4 * S15;
    double B = 8.50935e-5 - 6.12293e-6 * T + 5.2787e-8 * T2 + S * (-9.9348e-7 + 2.0816e-8 * T + 9.1697e-10 * T2);
    double K = K0 + A * p_bar + B * p_bar * p_bar;
    return r0 / (1.0 - p_bar / K);
}

static hid_t make_dxpl_collective(void)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    return dxpl;
}

static void write_attr_string(hid_t obj, const char *name, const char *val)
{
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, strlen(val) + 1);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, st, sp, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, st, val));
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(st);
}

static hid_t gcpl_id = -1;
static hid_t group_cpl(void)
{
    if (gcpl_id < 0) {
        gcpl_id = H5Pcreate(H5P_GROUP_CREATE);
        CHECK(H5Pset_obj_track_times(gcpl_id, 0));
    }
    return gcpl_id;
}

static hid_t create_dataset(hid_t loc, const char *name, hid_t type, int rank_, const hsize_t *dims,
                            const char *units)
{
    hid_t sp = H5Screate_simple(rank_, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_obj_track_times(dcpl, 0)); /* reproducible files */
    hid_t ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds);
    H5Pclose(dcpl);
    H5Sclose(sp);
    write_attr_string(ds, "units", units);
    return ds;
}

static void write_coordinates(hid_t file)
{
    hid_t g = H5Gcreate2(file, "/grid", H5P_DEFAULT, group_cpl(), H5P_DEFAULT);
    hsize_t n;
    n = NZ;
    hid_t dd = create_dataset(g, "depth", H5T_NATIVE_DOUBLE, 1, &n, "m");
    hid_t dt = create_dataset(g, "thickness", H5T_NATIVE_DOUBLE, 1, &n, "m");
    n = NY;
    hid_t dl = create_dataset(g, "lat", H5T_NATIVE_DOUBLE, 1, &n, "degrees_north");
    n = NX;
    hid_t dn = create_dataset(g, "lon", H5T_NATIVE_DOUBLE, 1, &n, "degrees_east");
    if (rank == 0) { /* small arrays: independent writes from rank 0 */
        CHECK(H5Dwrite(dd, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, depth));
        CHECK(H5Dwrite(dt, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, dz));
        CHECK(H5Dwrite(dl, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, lat));
        CHECK(H5Dwrite(dn, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, lon));
    }
    H5Dclose(dd); H5Dclose(dt); H5Dclose(dl); H5Dclose(dn);
    H5Gclose(g);
}

/* Select this rank's latitude band of month t in a [NT][NZ][NY][NX] dataset. */
static void select_slab(hid_t fsp, int t, int k0, int nk)
{
    hsize_t start[4] = {(hsize_t)t, (hsize_t)k0, (hsize_t)y0_loc, 0};
    hsize_t count[4] = {1, (hsize_t)nk, (hsize_t)ny_loc, NX};
    CHECK(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL));
}

static void write_fields(hid_t file, float *T, float *S)
{
    hid_t g = H5Gcreate2(file, "/fields", H5P_DEFAULT, group_cpl(), H5P_DEFAULT);
    hsize_t dims[4] = {NT, NZ, NY, NX};
    hid_t dT = create_dataset(g, "temperature", H5T_NATIVE_FLOAT, 4, dims, "degC");
    hid_t dS = create_dataset(g, "salinity", H5T_NATIVE_FLOAT, 4, dims, "psu");
    hid_t dxpl = make_dxpl_collective();
    hsize_t mdims[3] = {NZ, (hsize_t)ny_loc, NX};
    hid_t msp = H5Screate_simple(3, mdims, NULL);
    for (int t = 0; t < NT; t++) {
        generate_month(t, T, S);
        hid_t fsp = H5Dget_space(dT);
        select_slab(fsp, t, 0, NZ);
        CHECK(H5Dwrite(dT, H5T_NATIVE_FLOAT, msp, fsp, dxpl, T));
        CHECK(H5Dwrite(dS, H5T_NATIVE_FLOAT, msp, fsp, dxpl, S));
        H5Sclose(fsp);
    }
    H5Sclose(msp);
    H5Pclose(dxpl);
    H5Dclose(dT);
    H5Dclose(dS);
    H5Gclose(g);
}

/* Column diagnostics for every month: heat content, MLD, max N^2. */
static void column_diagnostics(hid_t file, float *T, float *S)
{
    hid_t dT = H5Dopen2(file, "/fields/temperature", H5P_DEFAULT);
    hid_t dS = H5Dopen2(file, "/fields/salinity", H5P_DEFAULT);
    hid_t g = H5Gcreate2(file, "/diag", H5P_DEFAULT, group_cpl(), H5P_DEFAULT);
    hsize_t d3[3] = {NT, NY, NX};
    hid_t dO = create_dataset(g, "ohc", H5T_NATIVE_DOUBLE, 3, d3, "J m-2");
    hid_t dM = create_dataset(g, "mld", H5T_NATIVE_FLOAT, 3, d3, "m");
    hid_t dN = create_dataset(g, "n2_max", H5T_NATIVE_FLOAT, 3, d3, "s-2");
    hid_t dD = create_dataset(g, "dyn_height", H5T_NATIVE_FLOAT, 3, d3, "m2 s-2");
    hid_t dxpl = make_dxpl_collective();
    hsize_t mdims[3] = {NZ, (hsize_t)ny_loc, NX};
    hid_t msp = H5Screate_simple(3, mdims, NULL);
    size_t ncol = (size_t)ny_loc * NX;
    double *ohc = malloc(sizeof(double) * ncol);
    float *mld = malloc(sizeof(float) * ncol), *n2 = malloc(sizeof(float) * ncol);
    float *dyn = malloc(sizeof(float) * ncol);
    double rho[NZ];
    hsize_t m2[2] = {(hsize_t)ny_loc, NX};
    hid_t msp2 = H5Screate_simple(2, m2, NULL);
    for (int t = 0; t < NT; t++) {
        hid_t fsp = H5Dget_space(dT);
        select_slab(fsp, t, 0, NZ);
        CHECK(H5Dread(dT, H5T_NATIVE_FLOAT, msp, fsp, dxpl, T));
        CHECK(H5Dread(dS, H5T_NATIVE_FLOAT, msp, fsp, dxpl, S));
        H5Sclose(fsp);
        for (size_t c = 0; c < ncol; c++) {
            double h = 0.0;
            for (int k = 0; k < NZ; k++) {
                double tk = T[(size_t)k * ncol + c], sk = S[(size_t)k * ncol + c];
                rho[k] = eos80(sk, tk, depth[k] / 10.0);
                h += rho[k] * CP * tk * dz[k];
            }
            ohc[c] = h;
            /* mixed layer: potential density proxy (surface-referenced) exceeds 10 m value + 0.03 */
            double ref = eos80(S[c + ncol], T[c + ncol], 0.0), m = depth[NZ - 1];
            for (int k = 2; k < NZ; k++) {
                double r0 = eos80(S[(size_t)k * ncol + c], T[(size_t)k * ncol + c], 0.0);
                if (r0 - ref > 0.03) {
                    m = depth[k];
                    break;
                }
            }
            mld[c] = (float)m;
            double nmax = 0;
            for (int k = 0; k + 1 < NZ; k++) {
                double pm = 0.5 * (depth[k] + depth[k + 1]) / 10.0;
                double ra = eos80(S[(size_t)k * ncol + c], T[(size_t)k * ncol + c], pm);
                double rb = eos80(S[(size_t)(k + 1) * ncol + c], T[(size_t)(k + 1) * ncol + c], pm);
                double nn = 9.81 / 1025.0 * (rb - ra) / (depth[k + 1] - depth[k]);
                if (nn > nmax) nmax = nn;
            }
            n2[c] = (float)nmax;
            /* dynamic height anomaly: integral of specific-volume anomaly dp */
            double dh = 0;
            for (int k = 0; k < NZ; k++) {
                double p = depth[k] / 10.0;
                double dv = 1.0 / rho[k] - 1.0 / eos80(35.0, 0.0, p);
                dh += dv * dz[k] * 1.0e4 / 10.0; /* dp in Pa for dz in m (~1 dbar per m) */
            }
            dyn[c] = (float)dh;
        }
        hsize_t st[3] = {(hsize_t)t, (hsize_t)y0_loc, 0}, ct[3] = {1, (hsize_t)ny_loc, NX};
        hid_t fs2 = H5Dget_space(dO);
        CHECK(H5Sselect_hyperslab(fs2, H5S_SELECT_SET, st, NULL, ct, NULL));
        CHECK(H5Dwrite(dO, H5T_NATIVE_DOUBLE, msp2, fs2, dxpl, ohc));
        CHECK(H5Dwrite(dM, H5T_NATIVE_FLOAT, msp2, fs2, dxpl, mld));
        CHECK(H5Dwrite(dN, H5T_NATIVE_FLOAT, msp2, fs2, dxpl, n2));
        CHECK(H5Dwrite(dD, H5T_NATIVE_FLOAT, msp2, fs2, dxpl, dyn));
        H5Sclose(fs2);
    }
    free(ohc); free(mld); free(n2); free(dyn);
    H5Sclose(msp2); H5Sclose(msp); H5Pclose(dxpl);
    H5Dclose(dO); H5Dclose(dM); H5Dclose(dN); H5Dclose(dD); H5Dclose(dT); H5Dclose(dS);
    H5Gclose(g);
}

/* Zonal-mean temperature section from one hyperslab read per level. */
static void zonal_mean_section(hid_t file)
{
    hid_t dT = H5Dopen2(file, "/fields/temperature", H5P_DEFAULT);
    hsize_t d3[3] = {NT, NZ, NY};
    hid_t dZ = create_dataset(file, "/diag/zonal_mean_T", H5T_NATIVE_DOUBLE, 3, d3, "degC");
    hid_t dxpl = make_dxpl_collective();
    hsize_t m2[2] = {(hsize_t)ny_loc, NX};
    hid_t msp = H5Screate_simple(2, m2, NULL);
    hsize_t m1 = (hsize_t)ny_loc;
    hid_t msp1 = H5Screate_simple(1, &m1, NULL);
    float *lev = malloc(sizeof(float) * (size_t)ny_loc * NX);
    double *zm = malloc(sizeof(double) * (size_t)ny_loc);
    for (int t = 0; t < NT; t++)
        for (int k = 0; k < NZ; k++) {
            hid_t fsp = H5Dget_space(dT);
            select_slab(fsp, t, k, 1);
            CHECK(H5Dread(dT, H5T_NATIVE_FLOAT, msp, fsp, dxpl, lev));
            H5Sclose(fsp);
            for (int j = 0; j < ny_loc; j++) {
                double s = 0;
                for (int i = 0; i < NX; i++) s += lev[(size_t)j * NX + i];
                zm[j] = s / NX;
            }
            hsize_t st[3] = {(hsize_t)t, (hsize_t)k, (hsize_t)y0_loc}, ct[3] = {1, 1, (hsize_t)ny_loc};
            hid_t fz = H5Dget_space(dZ);
            CHECK(H5Sselect_hyperslab(fz, H5S_SELECT_SET, st, NULL, ct, NULL));
            CHECK(H5Dwrite(dZ, H5T_NATIVE_DOUBLE, msp1, fz, dxpl, zm));
            H5Sclose(fz);
        }
    free(lev); free(zm);
    H5Sclose(msp); H5Sclose(msp1); H5Pclose(dxpl);
    H5Dclose(dT); H5Dclose(dZ);
}

/* Station profiles through point selections (independent reads, rank 0). */
static void station_profiles(hid_t file, const char *dir)
{
    if (rank != 0) return;
    hid_t dT = H5Dopen2(file, "/fields/temperature", H5P_DEFAULT);
    hsize_t np = (hsize_t)NT * NZ;
    hsize_t *coords = malloc(sizeof(hsize_t) * 4 * np);
    float *prof = malloc(sizeof(float) * np);
    char path[4096];
    snprintf(path, sizeof path, "%s/stations.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int s = 0; s < N_STATIONS; s++) {
        int j = (s * 37 + 5) % NY, i = (s * 53 + 11) % NX;
        for (int t = 0; t < NT; t++)
            for (int k = 0; k < NZ; k++) {
                hsize_t *c = coords + 4 * ((size_t)t * NZ + k);
                c[0] = (hsize_t)t; c[1] = (hsize_t)k; c[2] = (hsize_t)j; c[3] = (hsize_t)i;
            }
        hid_t fsp = H5Dget_space(dT);
        CHECK(H5Sselect_elements(fsp, H5S_SELECT_SET, np, coords));
        hid_t msp = H5Screate_simple(1, &np, NULL);
        CHECK(H5Dread(dT, H5T_NATIVE_FLOAT, msp, fsp, H5P_DEFAULT, prof));
        H5Sclose(msp);
        H5Sclose(fsp);
        fprintf(f, "station %02d lat %.2f lon %.2f\n", s, lat[j], lon[i]);
        for (int k = 0; k < NZ; k++) {
            fprintf(f, "  %8.1f", depth[k]);
            for (int t = 0; t < NT; t++) fprintf(f, " %7.3f", prof[(size_t)t * NZ + k]);
            fputc('\n', f);
        }
    }
    fclose(f);
    free(coords); free(prof);
    H5Dclose(dT);
}

/* Re-open read-only, area-weighted heat content per month and trend. */
static void heat_trend_summary(const char *h5path, const char *dir)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fopen(h5path, H5F_ACC_RDONLY, fapl);
    CHECK(file);
    hid_t dO = H5Dopen2(file, "/diag/ohc", H5P_DEFAULT);
    hid_t dxpl = make_dxpl_collective();
    hsize_t m2[2] = {(hsize_t)ny_loc, NX};
    hid_t msp = H5Screate_simple(2, m2, NULL);
    double *ohc = malloc(sizeof(double) * (size_t)ny_loc * NX);
    double total[NT], area_loc = 0, area_tot = 0;
    for (int t = 0; t < NT; t++) {
        hid_t fsp = H5Dget_space(dO);
        hsize_t st[3] = {(hsize_t)t, (hsize_t)y0_loc, 0}, ct[3] = {1, (hsize_t)ny_loc, NX};
        CHECK(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, st, NULL, ct, NULL));
        CHECK(H5Dread(dO, H5T_NATIVE_DOUBLE, msp, fsp, dxpl, ohc));
        H5Sclose(fsp);
        double loc = 0;
        double dlon = 160.0 / NX * M_PI / 180.0 * 6.371e6, dlat = 120.0 / NY * M_PI / 180.0 * 6.371e6;
        for (int jl = 0; jl < ny_loc; jl++) {
            double area = dlon * cos(lat[y0_loc + jl] * M_PI / 180.0) * dlat;
            if (t == 0) area_loc += area * NX;
            for (int i = 0; i < NX; i++) loc += ohc[(size_t)jl * NX + i] * area;
        }
        MPI_Allreduce(&loc, &total[t], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Allreduce(&area_loc, &area_tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(ohc);
    H5Sclose(msp); H5Pclose(dxpl); H5Dclose(dO); H5Fclose(file); H5Pclose(fapl);
    if (rank == 0) {
        double st = 0, sy = 0, stt = 0, sty = 0;
        for (int t = 0; t < NT; t++) {
            st += t; sy += total[t]; stt += (double)t * t; sty += t * total[t];
        }
        double slope = (NT * sty - st * sy) / (NT * stt - st * st);
        char path[4096];
        snprintf(path, sizeof path, "%s/heat_budget.txt", dir);
        FILE *f = fopen(path, "w");
        if (!f) MPI_Abort(MPI_COMM_WORLD, 1);
        fprintf(f, "# month  basin_OHC[ZJ]\n");
        for (int t = 0; t < NT; t++) fprintf(f, "%3d %14.6f\n", t + 1, total[t] * 1e-21);
        fprintf(f, "trend %.6e J/month  (%.4f W/m2 over basin)\n", slope,
                slope / (30.44 * 86400.0) / area_tot);
        fclose(f);
        printf("basin OHC month1 %.4f ZJ, trend %.4e J/month\n", total[0] * 1e-21, slope);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    setup_grid();
    char h5path[4096];
    snprintf(h5path, sizeof h5path, "%s/ocean_monthly.h5", argv[1]);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(h5path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file);
    write_attr_string(file, "title", "synthetic basin monthly T/S and heat budget diagnostics");
    write_attr_string(file, "equation_of_state", "UNESCO EOS-80");
    write_coordinates(file);

    size_t nloc = (size_t)NZ * ny_loc * NX;
    float *T = malloc(sizeof(float) * nloc), *S = malloc(sizeof(float) * nloc);
    write_fields(file, T, S);
    H5Fflush(file, H5F_SCOPE_GLOBAL);
    column_diagnostics(file, T, S);
    zonal_mean_section(file);
    station_profiles(file, argv[1]);
    H5Fclose(file);
    H5Pclose(fapl);
    H5Pclose(gcpl_id);
    free(T);
    free(S);

    heat_trend_summary(h5path, argv[1]);
    MPI_Finalize();
    return 0;
}
