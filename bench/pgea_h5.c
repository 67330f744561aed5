/*
 * The HDF5 twin of pgea.c, for the prefetch benchmark (make
 * bench-prefetch): the same steps, orders, compute and output, with
 * datasets in HDF5 files (MPI-IO driver, collective transfers, contiguous
 * layout). Usage:
 *
 *   pgea_h5 gen DIR NVARS NSTEPS X SEED
 *       writes DIR/in_A.h5 and DIR/in_B.h5: datasets v0.. double (step, x)
 *   pgea_h5 run DIR OUT NVARS NSTEPS X NS_PER_BYTE fixed|random
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgea.h"

#define CHECK(x)                                                              \
	do {                                                                  \
		if ((x) < 0) {                                                \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
			MPI_Abort(MPI_COMM_WORLD, 1);                         \
		}                                                             \
	} while (0)

static hid_t fapl(void)
{
	hid_t p = H5Pcreate(H5P_FILE_ACCESS);
	CHECK(H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL));
	return p;
}

/* Creates path with nvars datasets (nsteps, x) named v0.. (or "avg"). */
static hid_t create(const char *path, int nvars, hsize_t nsteps, hsize_t x, hid_t *dset, const char *single)
{
	hid_t p = fapl();
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, p);
	CHECK(f);
	H5Pclose(p);
	hsize_t dims[2] = {nsteps, x};
	hid_t space = H5Screate_simple(2, dims, NULL);
	for (int v = 0; v < nvars; v++) {
		char name[16];
		snprintf(name, sizeof name, "v%d", v);
		dset[v] = H5Dcreate2(f, single ? single : name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		CHECK(dset[v]);
	}
	H5Sclose(space);
	return f;
}

/* Transfers row s, columns [lo, lo+n), of dset collectively. */
static void row(hid_t dset, hsize_t s, hsize_t lo, hsize_t n, double *buf, int write)
{
	hid_t fs = H5Dget_space(dset);
	hsize_t start[2] = {s, lo}, count[2] = {1, n};
	CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
	hid_t ms = H5Screate_simple(1, &n, NULL);
	hid_t x = H5Pcreate(H5P_DATASET_XFER);
	CHECK(H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE));
	if (write)
		CHECK(H5Dwrite(dset, H5T_NATIVE_DOUBLE, ms, fs, x, buf));
	else
		CHECK(H5Dread(dset, H5T_NATIVE_DOUBLE, ms, fs, x, buf));
	H5Pclose(x);
	H5Sclose(ms);
	H5Sclose(fs);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	struct pgea_args args;
	int status = pgea_parse(argc, argv, "pgea_h5", ".h5", &args);
	if (status >= 0) {
		MPI_Finalize();
		return status;
	}
	int gen = args.gen, nvars = args.nvars;
	hsize_t nsteps = args.nsteps, x = args.x, lo = args.lo, n = args.n;
	double *buf = malloc(n * sizeof *buf), *avg = calloc(n, sizeof *avg);
	char (*path)[4096] = args.path;
	hid_t file[2], dset[2][64];
	if (gen) {
		unsigned long long seed = args.seed;
		for (int f = 0; f < 2; f++) {
			file[f] = create(path[f], nvars, nsteps, x, dset[f], NULL);
			for (int v = 0; v < nvars; v++) {
				for (hsize_t s = 0; s < nsteps; s++) {
					pgea_fill(buf, (int64_t)n, &seed);
					row(dset[f][v], s, lo, n, buf, 1);
				}
				H5Dclose(dset[f][v]);
			}
			H5Fclose(file[f]);
		}
		MPI_Finalize();
		return 0;
	}
	const char *out = args.out;
	double ns_per_byte = args.ns_per_byte;
	int random = args.random;
	unsigned seed = (unsigned)time(NULL);
	MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
	srand(seed);
	struct pgea_times t = {.start = pgea_now()};
	for (int f = 0; f < 2; f++) {
		hid_t p = fapl();
		file[f] = H5Fopen(path[f], H5F_ACC_RDONLY, p);
		CHECK(file[f]);
		H5Pclose(p);
		for (int v = 0; v < nvars; v++) {
			char name[16];
			snprintf(name, sizeof name, "v%d", v);
			dset[f][v] = H5Dopen2(file[f], name, H5P_DEFAULT);
			CHECK(dset[f][v]);
		}
	}
	hid_t odset;
	hid_t ofile = create(out, 1, nsteps, x, &odset, "avg");
	int order[64];
	int64_t bytes = 0;
	for (hsize_t s = 0; s < nsteps; s++) {
		double r0 = pgea_now();
		pgea_order(order, nvars, random);
		memset(avg, 0, n * sizeof *avg);
		for (int i = 0; i < nvars; i++)
			for (int f = 0; f < 2; f++) {
				int v = f == 0 ? order[i] : order[nvars - 1 - i];
				row(dset[f][v], s, lo, n, buf, 0);
				for (hsize_t k = 0; k < n; k++)
					avg[k] += buf[k];
				bytes += n * (int64_t)sizeof *buf;
			}
		/* Compute: NS_PER_BYTE ns per byte read this step. */
		double c0 = pgea_now();
		t.read += c0 - r0;
		pgea_compute(ns_per_byte * 1e-9 * (double)(2 * nvars * n * sizeof *buf), avg, (int64_t)n, 2 * nvars);
		double w0 = pgea_now();
		t.compute += w0 - c0;
		row(odset, s, lo, n, avg, 1);
		t.write += pgea_now() - w0;
	}
	H5Dclose(odset);
	H5Fclose(ofile);
	for (int f = 0; f < 2; f++) {
		for (int v = 0; v < nvars; v++)
			H5Dclose(dset[f][v]);
		H5Fclose(file[f]);
	}
	int64_t total = 0;
	MPI_Reduce(&bytes, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		pgea_report(&t, (long long)total);
	free(buf);
	free(avg);
	MPI_Finalize();
	return 0;
}
