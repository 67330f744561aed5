/*
 * h5_percolation_clusters.c -- site percolation study with parallel HDF5.
 *
 * For NPROB occupation probabilities around the 2-D site-percolation
 * threshold and NREAL realisations each, an L x L lattice is filled at
 * random, clusters are labelled with the Hoshen-Kopelman algorithm
 * (union-find with path halving) and spanning is tested.  Occupancy
 * (uint8) and cluster labels (int32) of every realisation are written as
 * planes of two 3-D datasets with collective MPI-IO transfers
 * (H5Pset_fapl_mpio / H5FD_MPIO_COLLECTIVE).  The file is then reopened,
 * the label planes are read back with independent transfers, and the
 * cluster-size distribution n_s(p), mean cluster size, strength and
 * box-counting dimension of the largest cluster and the correlation length
 * are computed and stored in an "analysis" group with attributes.  Intended to run on one MPI rank.
 *
 * Usage: h5_percolation_clusters OUTDIR
 */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define L       400
#define NPROB   12
#define NREAL   6
#define NPLANE  (NPROB * NREAL)
#define PMIN    0.55
#define PMAX    0.65
#define NSBIN   24
#define NSCALE  9

#define H5CHK(x) do { if ((x) < 0) { fprintf(stderr, "HDF5 call failed line %d\n", __LINE__); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static uint64_t st = 0xfeedfacecafebeefull;
static hid_t dcpl = H5P_DEFAULT, gcpl = H5P_DEFAULT;   /* no object timestamps */

static void make_creation_plists(void)
{
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_obj_track_times(dcpl, 0));
    gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5CHK(H5Pset_obj_track_times(gcpl, 0));
}

static double uniform(void)
{
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t z = st;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
    z ^= z >> 33;
    return (double)(z >> 11) / 9007199254740992.0;
}

static void fill_lattice(double p, uint8_t *occ)
{
    for (int i = 0; i < L * L; i++)
        occ[i] = uniform() < p;
}

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Hoshen-Kopelman labelling; returns number of clusters, sets *spans. */
static int hoshen_kopelman(const uint8_t *occ, int32_t *label, int *parent, int *spans)
{
    int next = 0;
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++) {
            int i = y * L + x;
            if (!occ[i]) {
                label[i] = -1;
                continue;
            }
            int up = y > 0 && occ[i - L] ? label[i - L] : -1;
            int left = x > 0 && occ[i - 1] ? label[i - 1] : -1;
            if (up < 0 && left < 0) {
                parent[next] = next;
                label[i] = next++;
            } else if (up >= 0 && left >= 0) {
                int a = uf_find(parent, up), b = uf_find(parent, left);
                if (a != b)
                    parent[a < b ? b : a] = a < b ? a : b;
                label[i] = a < b ? a : b;
            } else {
                label[i] = up >= 0 ? up : left;
            }
        }
    /* relabel to compact root ids */
    int *newid = malloc(sizeof(int) * (next + 1));
    for (int k = 0; k < next; k++)
        newid[k] = -1;
    int nc = 0;
    for (int i = 0; i < L * L; i++)
        if (label[i] >= 0) {
            int r = uf_find(parent, label[i]);
            if (newid[r] < 0)
                newid[r] = nc++;
            label[i] = newid[r];
        }
    free(newid);
    /* spanning: a label present in both top and bottom rows */
    uint8_t *top = calloc(nc + 1, 1);
    *spans = 0;
    for (int x = 0; x < L; x++)
        if (label[x] >= 0)
            top[label[x]] = 1;
    for (int x = 0; x < L; x++)
        if (label[(L - 1) * L + x] >= 0 && top[label[(L - 1) * L + x]])
            *spans = 1;
    free(top);
    return nc;
}

static hid_t make_plane_dataset(hid_t file, const char *name, hid_t type)
{
    hsize_t dims[3] = { NPLANE, L, L };
    hid_t sp = H5Screate_simple(3, dims, NULL);
    hid_t d = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(d);
    H5Sclose(sp);
    return d;
}

static void write_plane(hid_t dset, hid_t memtype, int plane, const void *buf)
{
    hsize_t start[3] = { (hsize_t)plane, 0, 0 }, count[3] = { 1, L, L };
    hid_t fs = H5Dget_space(dset);
    H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hsize_t md[2] = { L, L };
    hid_t ms = H5Screate_simple(2, md, NULL);
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE));
    H5CHK(H5Dwrite(dset, memtype, ms, fs, x, buf));
    H5Pclose(x);
    H5Sclose(ms);
    H5Sclose(fs);
}

static void simulate(const char *path, double *probs, int *spanning, int *nclusters)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5CHK(file);
    H5Pclose(fapl);
    hid_t docc = make_plane_dataset(file, "occupancy", H5T_STD_U8LE);
    hid_t dlab = make_plane_dataset(file, "labels", H5T_STD_I32LE);
    uint8_t *occ = malloc(L * L);
    int32_t *lab = malloc(sizeof(int32_t) * L * L);
    int *parent = malloc(sizeof(int) * L * L);
    for (int ip = 0; ip < NPROB; ip++) {
        probs[ip] = PMIN + (PMAX - PMIN) * ip / (NPROB - 1);
        for (int r = 0; r < NREAL; r++) {
            int plane = ip * NREAL + r, span;
            fill_lattice(probs[ip], occ);
            nclusters[plane] = hoshen_kopelman(occ, lab, parent, &span);
            spanning[plane] = span;
            write_plane(docc, H5T_NATIVE_UINT8, plane, occ);
            write_plane(dlab, H5T_NATIVE_INT32, plane, lab);
        }
    }
    hsize_t pd[1] = { NPROB }, sd[1] = { NPLANE };
    hid_t sp = H5Screate_simple(1, pd, NULL);
    hid_t d = H5Dcreate2(file, "probability", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, probs));
    H5Dclose(d);
    H5Sclose(sp);
    sp = H5Screate_simple(1, sd, NULL);
    d = H5Dcreate2(file, "spanning", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, spanning));
    H5Dclose(d);
    H5Sclose(sp);
    int lattice = L;
    hid_t s1 = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(file, "L", H5T_NATIVE_INT, s1, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(H5Awrite(a, H5T_NATIVE_INT, &lattice));
    H5Aclose(a);
    H5Sclose(s1);
    free(occ); free(lab); free(parent);
    H5Dclose(docc);
    H5Dclose(dlab);
    H5Fclose(file);
}

/* Box-counting dimension of cluster `c` and correlation length of the
 * finite clusters (size-weighted radius of gyration). */
static void geometry(const int32_t *lab, int nc, int big, int *size, double *dim, double *xi)
{
    double *sx = calloc(nc, sizeof(double)), *sy = calloc(nc, sizeof(double));
    double *sxx = calloc(nc, sizeof(double));
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++) {
            int c = lab[y * L + x];
            if (c < 0)
                continue;
            sx[c] += x;
            sy[c] += y;
            sxx[c] += (double)x * x + (double)y * y;
        }
    double num = 0.0, den = 0.0;
    for (int c = 0; c < nc; c++) {
        if (c == big || size[c] < 2)
            continue;
        double s = size[c], mx = sx[c] / s, my = sy[c] / s;
        double rg2 = sxx[c] / s - mx * mx - my * my;
        num += 2.0 * rg2 * s * s;
        den += s * s;
    }
    *xi = den > 0 ? sqrt(num / den) : 0.0;
    free(sx); free(sy); free(sxx);
    /* box counting on the largest cluster, box sizes 1..2^(NSCALE-1) */
    double lx[NSCALE], ly[NSCALE];
    uint8_t *occ = malloc((size_t)L * L);
    for (int k = 0; k < NSCALE; k++) {
        int b = 1 << k, nbx = (L + b - 1) / b;
        memset(occ, 0, (size_t)nbx * nbx);
        long count = 0;
        for (int y = 0; y < L; y++)
            for (int x = 0; x < L; x++)
                if (lab[y * L + x] == big) {
                    int id = (y / b) * nbx + x / b;
                    if (!occ[id]) {
                        occ[id] = 1;
                        count++;
                    }
                }
        lx[k] = log((double)b);
        ly[k] = log((double)(count > 0 ? count : 1));
    }
    free(occ);
    double mx = 0, my = 0, sxy = 0, sxx2 = 0;
    for (int k = 0; k < NSCALE; k++) {
        mx += lx[k] / NSCALE;
        my += ly[k] / NSCALE;
    }
    for (int k = 0; k < NSCALE; k++) {
        sxy += (lx[k] - mx) * (ly[k] - my);
        sxx2 += (lx[k] - mx) * (lx[k] - mx);
    }
    *dim = -sxy / sxx2;
}

/* Read label planes back and compute cluster statistics per probability. */
static void analyse(const char *path, const double *probs)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5CHK(file);
    H5Pclose(fapl);
    hid_t dlab = H5Dopen2(file, "labels", H5P_DEFAULT);
    int32_t *lab = malloc(sizeof(int32_t) * L * L);
    int *size = malloc(sizeof(int) * L * L);
    double ns[NPROB][NSBIN], strength[NPROB], meansize[NPROB], fdim[NPROB], corrlen[NPROB];
    memset(ns, 0, sizeof ns);
    hsize_t md[2] = { L, L };
    hid_t ms = H5Screate_simple(2, md, NULL);
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(x, H5FD_MPIO_INDEPENDENT));
    for (int ip = 0; ip < NPROB; ip++) {
        strength[ip] = meansize[ip] = fdim[ip] = corrlen[ip] = 0.0;
        for (int r = 0; r < NREAL; r++) {
            hsize_t start[3] = { (hsize_t)(ip * NREAL + r), 0, 0 }, count[3] = { 1, L, L };
            hid_t fs = H5Dget_space(dlab);
            H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
            H5CHK(H5Dread(dlab, H5T_NATIVE_INT32, ms, fs, x, lab));
            H5Sclose(fs);
            int nc = 0;
            for (int i = 0; i < L * L; i++)
                if (lab[i] + 1 > nc)
                    nc = lab[i] + 1;
            memset(size, 0, sizeof(int) * (nc + 1));
            for (int i = 0; i < L * L; i++)
                if (lab[i] >= 0)
                    size[lab[i]]++;
            int smax = 0, big = -1;
            double s1 = 0, s2 = 0;
            for (int c = 0; c < nc; c++) {
                if (size[c] > smax) {
                    smax = size[c];
                    big = c;
                }
                int b = (int)(log2((double)size[c]));
                ns[ip][b < NSBIN ? b : NSBIN - 1] += 1.0 / ((double)L * L * NREAL);
            }
            for (int c = 0; c < nc; c++)
                if (size[c] != smax) {
                    s1 += size[c];
                    s2 += (double)size[c] * size[c];
                }
            strength[ip] += (double)smax / ((double)L * L * NREAL);
            double dim, xi;
            geometry(lab, nc, big, size, &dim, &xi);
            fdim[ip] += dim / NREAL;
            corrlen[ip] += xi / NREAL;
            meansize[ip] += (s1 > 0 ? s2 / s1 : 0.0) / NREAL;
        }
    }
    H5Pclose(x);
    H5Sclose(ms);
    free(lab);
    free(size);
    H5Dclose(dlab);

    hid_t g = H5Gcreate2(file, "analysis", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hsize_t d2[2] = { NPROB, NSBIN }, d1[1] = { NPROB };
    hid_t sp = H5Screate_simple(2, d2, NULL);
    hid_t d = H5Dcreate2(g, "ns_log2_bins", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ns));
    H5Dclose(d);
    H5Sclose(sp);
    sp = H5Screate_simple(1, d1, NULL);
    d = H5Dcreate2(g, "largest_cluster_strength", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, strength));
    H5Dclose(d);
    d = H5Dcreate2(g, "mean_cluster_size", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, meansize));
    H5Dclose(d);
    d = H5Dcreate2(g, "largest_cluster_box_dimension", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, fdim));
    H5Dclose(d);
    d = H5Dcreate2(g, "correlation_length", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, corrlen));
    H5Dclose(d);
    H5Sclose(sp);
    int peak = 0;
    for (int ip = 1; ip < NPROB; ip++)
        if (meansize[ip] > meansize[peak])
            peak = ip;
    double pc = probs[peak];
    hid_t s1 = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, "pc_estimate", H5T_NATIVE_DOUBLE, s1, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(H5Awrite(a, H5T_NATIVE_DOUBLE, &pc));
    H5Aclose(a);
    H5Sclose(s1);
    H5Gclose(g);
    H5Fclose(file);
    printf("pc estimate (peak of mean cluster size) = %.4f, P_inf(pmax) = %.4f, "
           "D_box(pc) = %.3f, xi(pmin) = %.2f\n", pc, strength[NPROB - 1], fdim[peak], corrlen[0]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mkdir(argv[1], 0755);
    char path[4096];
    snprintf(path, sizeof path, "%s/percolation.h5", argv[1]);
    double probs[NPROB];
    int spanning[NPLANE], ncl[NPLANE];
    make_creation_plists();
    simulate(path, probs, spanning, ncl);
    int nspan = 0;
    for (int i = 0; i < NPLANE; i++)
        nspan += spanning[i];
    printf("lattices=%d spanning=%d clusters(first)=%d\n", NPLANE, nspan, ncl[0]);
    analyse(path, probs);
    H5Pclose(dcpl);
    H5Pclose(gcpl);
    MPI_Finalize();
    return 0;
}
