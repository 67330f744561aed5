/*
 * HDF5 writer: make_field() computes a NX x NY field per time step;
 * write_step() writes it as dataset "/step_<n>" of one HDF5 file with
 * H5Dwrite; NSTEPS steps, then read_back() reads the last dataset.
 * Usage: hdf5_write DIR [NSTEPS]
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 512
#define NY 512
#define NSTEPS 40

static void make_field(double *f, int step)
{
	for (int i = 0; i < NX; i++)
		for (int j = 0; j < NY; j++)
			f[i * NY + j] = sin(i * 0.05 + step) * cos(j * 0.05);
}

static void write_step(hid_t file, int step, const double *f)
{
	hsize_t dims[2] = {NX, NY};
	char name[32];
	snprintf(name, sizeof name, "/step_%d", step);
	hid_t space = H5Screate_simple(2, dims, NULL);
	hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, f);
	H5Dclose(dset);
	H5Sclose(space);
}

static double read_back(hid_t file, int step, double *f)
{
	char name[32];
	snprintf(name, sizeof name, "/step_%d", step);
	hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
	H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, f);
	H5Dclose(dset);
	double s = 0;
	for (int k = 0; k < NX * NY; k++)
		s += f[k];
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int steps = argc > 2 ? atoi(argv[2]) : NSTEPS;
	char path[4096];
	snprintf(path, sizeof path, "%s/fields.h5", argv[1]);
	double *f = malloc(sizeof(double) * NX * NY);
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	for (int s = 0; s < steps; s++) {
		make_field(f, s);
		write_step(file, s, f);
	}
	printf("%.6f\n", read_back(file, steps - 1, f));
	H5Fclose(file);
	free(f);
	return 0;
}
