/*
 * Parallel HDF5 writer: every rank writes its row of a 2D dataset, one
 * dataset per step, with the default (independent) transfer property list.
 * Usage: mpiexec -n 2 hdf5_indep DIR
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

#define NSTEPS 20
#define NX 1024

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	char path[4096];
	snprintf(path, sizeof path, "%s/steps.h5", argv[1]);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	hsize_t dims[2] = {(hsize_t)size, NX};
	hsize_t start[2] = {(hsize_t)rank, 0}, count[2] = {1, NX};
	hid_t space = H5Screate_simple(2, dims, NULL);
	hid_t mem = H5Screate_simple(2, count, NULL);
	double row[NX];
	for (int step = 0; step < NSTEPS; step++) {
		char name[32];
		snprintf(name, sizeof name, "step%03d", step);
		for (int i = 0; i < NX; i++)
			row[i] = rank * 1000.0 + step + i * 0.5;
		hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		hid_t fspace = H5Dget_space(dset);
		H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
		H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, fspace, H5P_DEFAULT, row);
		H5Sclose(fspace);
		H5Dclose(dset);
	}
	H5Sclose(mem);
	H5Sclose(space);
	H5Fclose(file);
	MPI_Finalize();
	return 0;
}
