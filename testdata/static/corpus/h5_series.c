/*
 * HDF5 time series: one chunked dataset "/series" of NX columns that
 * grows by ROWS rows per time step; evolve() advances the state (a row
 * block of ROWS x NX values) by one step, append_rows() extends the
 * dataset (H5Dset_extent) and writes the new rows as a hyperslab of the
 * file space with H5Dwrite; NSTEPS steps. window_mean() then reads one
 * hyperslab of the middle of the series back with H5Dread, and
 * log_step() appends one line per step to a text log with fprintf.
 * Usage: h5_series DIR
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 1024
#define ROWS 16
#define NSTEPS 60

static void evolve(double *blk, int step)
{
	for (int r = 0; r < ROWS; r++)
		for (int j = 0; j < NX; j++) {
			double x = blk[r * NX + j];
			for (int k = 0; k < 8; k++)
				x = 0.999 * x + 0.001 * sin(0.01 * j + 0.1 * step + k);
			blk[r * NX + j] = x;
		}
}

static void append_rows(hid_t dset, int step, const double *blk)
{
	hsize_t size[2] = {(hsize_t)(step + 1) * ROWS, NX};
	H5Dset_extent(dset, size);
	hid_t fspace = H5Dget_space(dset);
	hsize_t start[2] = {(hsize_t)step * ROWS, 0}, count[2] = {ROWS, NX};
	H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
	hid_t mspace = H5Screate_simple(2, count, NULL);
	H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, blk);
	H5Sclose(mspace);
	H5Sclose(fspace);
}

static void log_step(FILE *log, int step, const double *blk)
{
	fprintf(log, "step %d rows %d first %.9e last %.9e\n", step, (step + 1) * ROWS, blk[0], blk[ROWS * NX - 1]);
}

static double window_mean(hid_t dset, int first_step, int nsteps, double *buf)
{
	hid_t fspace = H5Dget_space(dset);
	hsize_t start[2] = {(hsize_t)first_step * ROWS, 0}, count[2] = {(hsize_t)nsteps * ROWS, NX};
	H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
	hid_t mspace = H5Screate_simple(2, count, NULL);
	H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf);
	H5Sclose(mspace);
	H5Sclose(fspace);
	double s = 0;
	for (long k = 0; k < (long)nsteps * ROWS * NX; k++)
		s += buf[k];
	return s / ((double)nsteps * ROWS * NX);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/series.h5", argv[1]);
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hsize_t dims[2] = {0, NX}, maxdims[2] = {H5S_UNLIMITED, NX}, chunk[2] = {ROWS, NX};
	hid_t space = H5Screate_simple(2, dims, maxdims);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 2, chunk);
	hid_t dset = H5Dcreate2(file, "/series", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	double *blk = calloc((size_t)ROWS * NX, sizeof *blk);
	snprintf(path, sizeof path, "%s/series.log", argv[1]);
	FILE *log = fopen(path, "w");
	if (!log)
		return 1;
	for (int s = 0; s < NSTEPS; s++) {
		evolve(blk, s);
		append_rows(dset, s, blk);
		log_step(log, s, blk);
	}
	fclose(log);
	double *buf = malloc(sizeof(double) * ROWS * NX * 10);
	printf("%.6f\n", window_mean(dset, NSTEPS / 2, 10, buf));
	free(buf);
	free(blk);
	H5Dclose(dset);
	H5Pclose(dcpl);
	H5Sclose(space);
	H5Fclose(file);
	return 0;
}
