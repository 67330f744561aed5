/* Spinodal decomposition: 2-D Cahn-Hilliard equation advanced with a
 * semi-implicit spectral scheme. Concentration snapshots are appended to an
 * extendible chunked HDF5 dataset (MPI-IO driver), with a 1-D free-energy
 * series beside it. The file is then reopened, each snapshot read back by
 * hyperslab, and the radially averaged structure factor S(k,t) and the
 * domain length scale are stored in an analysis group. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N 128
#define NSTEP 350
#define OUT_EVERY 10
#define DT 0.5
#define KAPPA 1.0
#define MOB 1.0
#define NBIN (N / 2)

typedef struct { double re, im; } cplx;

#define H5CHK(x) do { if ((x) < 0) { fprintf(stderr, "HDF5 error at line %d\n", __LINE__); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)


static void fft1d(cplx *a, int n, int stride, int inverse)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { cplx t = a[i * stride]; a[i * stride] = a[j * stride]; a[j * stride] = t; }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = 2 * M_PI / len * (inverse ? 1 : -1);
        cplx wl = {cos(ang), sin(ang)};
        for (int i = 0; i < n; i += len) {
            cplx w = {1, 0};
            for (int k = 0; k < len / 2; k++) {
                cplx *u = &a[(i + k) * stride], *v = &a[(i + k + len / 2) * stride];
                cplx t = {v->re * w.re - v->im * w.im, v->re * w.im + v->im * w.re};
                v->re = u->re - t.re; v->im = u->im - t.im;
                u->re += t.re; u->im += t.im;
                double wr = w.re * wl.re - w.im * wl.im;
                w.im = w.re * wl.im + w.im * wl.re;
                w.re = wr;
            }
        }
    }
    if (inverse) for (int i = 0; i < n; i++) { a[i * stride].re /= n; a[i * stride].im /= n; }
}

static void fft2d(cplx *a, int inverse)
{
    for (int r = 0; r < N; r++) fft1d(a + r * N, N, 1, inverse);
    for (int c = 0; c < N; c++) fft1d(a + c, N, N, inverse);
}

#define KK(i) (2 * M_PI * ((i) <= N / 2 ? (i) : (i) - N) / N)

static void ch_step(double *phi, cplx *ph, cplx *nl)
{
    for (int i = 0; i < N * N; i++) {
        ph[i].re = phi[i]; ph[i].im = 0;
        nl[i].re = phi[i] * phi[i] * phi[i] - phi[i]; nl[i].im = 0;
    }
    fft2d(ph, 0);
    fft2d(nl, 0);
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            double k2 = KK(x) * KK(x) + KK(y) * KK(y);
            double den = 1 + DT * MOB * KAPPA * k2 * k2;
            int i = y * N + x;
            ph[i].re = (ph[i].re - DT * MOB * k2 * nl[i].re) / den;
            ph[i].im = (ph[i].im - DT * MOB * k2 * nl[i].im) / den;
        }
    fft2d(ph, 1);
    for (int i = 0; i < N * N; i++) phi[i] = ph[i].re;
}

static double free_energy(const double *phi)
{
    double e = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            double p = phi[y * N + x];
            double gx = phi[y * N + (x + 1) % N] - p, gy = phi[((y + 1) % N) * N + x] - p;
            e += 0.25 * (p * p - 1) * (p * p - 1) + 0.5 * KAPPA * (gx * gx + gy * gy);
        }
    return e / (N * N);
}

static void put_attr_d(hid_t obj, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(a);
    H5CHK(H5Awrite(a, H5T_NATIVE_DOUBLE, &v));
    H5Aclose(a); H5Sclose(sp);
}

static hid_t create_output(const char *path, hid_t *dphi, hid_t *den)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5CHK(f);
    H5Pclose(fapl);
    hsize_t d3[3] = {0, N, N}, m3[3] = {H5S_UNLIMITED, N, N}, c3[3] = {1, N, N};
    hid_t sp = H5Screate_simple(3, d3, m3), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_chunk(dcpl, 3, c3));
    *dphi = H5Dcreate2(f, "phi", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(*dphi);
    H5Sclose(sp); H5Pclose(dcpl);
    hsize_t d1 = 0, m1 = H5S_UNLIMITED, c1 = 64;
    sp = H5Screate_simple(1, &d1, &m1);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5CHK(H5Pset_chunk(dcpl, 1, &c1));
    *den = H5Dcreate2(f, "free_energy", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5CHK(*den);
    H5Sclose(sp); H5Pclose(dcpl);
    put_attr_d(*dphi, "dt", DT);
    put_attr_d(*dphi, "kappa", KAPPA);
    put_attr_d(*dphi, "output_interval", OUT_EVERY);
    return f;
}

/* grow both datasets by one record: field (collective) and energy scalar */
static void append_snapshot(hid_t d, hid_t de, const double *phi, double energy, hsize_t t)
{
    hsize_t dims[3] = {t + 1, N, N}, start[3] = {t, 0, 0}, cnt[3] = {1, N, N};
    H5CHK(H5Dset_extent(d, dims));
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(3, cnt, NULL);
    H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL));
    hid_t xf = H5Pcreate(H5P_DATASET_XFER);
    H5CHK(H5Pset_dxpl_mpio(xf, H5FD_MPIO_COLLECTIVE));
    H5CHK(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, xf, phi));
    H5Pclose(xf); H5Sclose(ms); H5Sclose(fs);
    hsize_t n1 = t + 1, one = 1;
    H5CHK(H5Dset_extent(de, &n1));
    fs = H5Dget_space(de);
    ms = H5Screate_simple(1, &one, NULL);
    H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &t, NULL, &one, NULL));
    H5CHK(H5Dwrite(de, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &energy));
    H5Sclose(ms); H5Sclose(fs);
}

static void radial_sk(const double *phi, cplx *buf, double *sk)
{
    int cnt[NBIN] = {0};
    memset(sk, 0, sizeof(double) * NBIN);
    double mean = 0;
    for (int i = 0; i < N * N; i++) mean += phi[i];
    mean /= N * N;
    for (int i = 0; i < N * N; i++) { buf[i].re = phi[i] - mean; buf[i].im = 0; }
    fft2d(buf, 0);
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int b = (int)(sqrt(KK(x) * KK(x) + KK(y) * KK(y)) * N / (2 * M_PI) + 0.5);
            if (b <= 0 || b >= NBIN) continue;
            sk[b] += (buf[y * N + x].re * buf[y * N + x].re + buf[y * N + x].im * buf[y * N + x].im) / (N * N);
            cnt[b]++;
        }
    for (int b = 1; b < NBIN; b++) if (cnt[b]) sk[b] /= cnt[b];
}

static void analyze(const char *path, cplx *buf)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5CHK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5CHK(f);
    H5Pclose(fapl);
    hid_t d = H5Dopen2(f, "phi", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    int nt = (int)dims[0];
    double *phi = malloc(sizeof(double) * N * N), *sk = malloc(sizeof(double) * NBIN * nt);
    double *lscale = malloc(sizeof(double) * nt);
    if (!phi || !sk || !lscale) MPI_Abort(MPI_COMM_WORLD, 1);
    hsize_t cnt[3] = {1, N, N};
    hid_t ms = H5Screate_simple(3, cnt, NULL);
    for (int t = 0; t < nt; t++) {
        hsize_t start[3] = {(hsize_t)t, 0, 0};
        H5CHK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL));
        H5CHK(H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, phi));
        radial_sk(phi, buf, sk + (size_t)t * NBIN);
        double m0 = 0, m1 = 0;
        for (int b = 1; b < NBIN; b++) { m0 += sk[t * NBIN + b]; m1 += b * sk[t * NBIN + b]; }
        lscale[t] = m1 > 0 ? N * m0 / m1 : 0;
    }
    H5Sclose(ms); H5Sclose(fs); H5Dclose(d);
    hid_t g = H5Gcreate2(f, "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(g);
    hsize_t d2[2] = {(hsize_t)nt, NBIN}, d1 = (hsize_t)nt;
    hid_t sp = H5Screate_simple(2, d2, NULL);
    hid_t ds = H5Dcreate2(g, "structure_factor", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, sk));
    H5Dclose(ds); H5Sclose(sp);
    sp = H5Screate_simple(1, &d1, NULL);
    ds = H5Dcreate2(g, "domain_length", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5CHK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, lscale));
    H5Dclose(ds); H5Sclose(sp);
    H5Gclose(g);
    H5CHK(H5Fclose(f));
    printf("cahn-hilliard: %d snapshots, domain length %.2f -> %.2f\n", nt, lscale[1], lscale[nt - 1]);
    free(phi); free(sk); free(lscale);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); MPI_Abort(MPI_COMM_WORLD, 2); }
    char path[4096];
    mkdir(argv[1], 0755);
    snprintf(path, sizeof path, "%s/spinodal.h5", argv[1]);
    double *phi = malloc(sizeof(double) * N * N);
    cplx *a = malloc(sizeof(cplx) * N * N), *b = malloc(sizeof(cplx) * N * N);
    if (!phi || !a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
    unsigned long long rs = 0x5eed5eed1234ULL;
    for (int i = 0; i < N * N; i++) {
        rs ^= rs << 7; rs ^= rs >> 9;
        phi[i] = 0.1 * ((rs & 0xffffffffULL) / 4294967296.0 - 0.5);
    }
    hid_t dphi, den;
    hid_t f = create_output(path, &dphi, &den);
    hsize_t nout = 0;
    for (int s = 0; s <= NSTEP; s++) {
        if (s % OUT_EVERY == 0) {
            append_snapshot(dphi, den, phi, free_energy(phi), nout);
            nout++;
        }
        if (s < NSTEP) ch_step(phi, a, b);
    }
    H5Dclose(dphi); H5Dclose(den);
    H5CHK(H5Fclose(f));
    analyze(path, a);
    free(phi); free(a); free(b);
    MPI_Finalize();
    return 0;
}
