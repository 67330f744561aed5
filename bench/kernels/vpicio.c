/*
 * A VPIC-IO-like kernel for tuning: every rank holds N particles; each time
 * step writes their 8 variables (x, y, z, id1, id2, px, py, pz: 4-byte
 * floats and ints) as 8 one-dimensional datasets of a group per step, each
 * rank its contiguous slice, collectively (parallel HDF5, MPI-IO driver).
 * Usage: vpicio FILE PARTICLES_PER_RANK STEPS
 * Prints "write_s=T bytes=B" on rank 0 (T: the longest rank's time).
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                              \
	do {                                                                  \
		if ((x) < 0) {                                                \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
			MPI_Abort(MPI_COMM_WORLD, 1);                         \
		}                                                             \
	} while (0)

int main(int argc, char **argv)
{
	static const char *names[8] = {"x", "y", "z", "id1", "id2", "px", "py", "pz"};
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 4) {
		if (rank == 0)
			fprintf(stderr, "usage: vpicio FILE PARTICLES_PER_RANK STEPS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	hsize_t n = strtoull(argv[2], NULL, 10), total = n * size, start = n * rank;
	int steps = atoi(argv[3]);
	float *buf = malloc(n * sizeof *buf);
	for (hsize_t i = 0; i < n; i++)
		buf[i] = (float)(start + i);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	CHECK(f);
	hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
	CHECK(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE));
	hid_t fspace = H5Screate_simple(1, &total, NULL), mspace = H5Screate_simple(1, &n, NULL);
	CHECK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &n, NULL));
	for (int s = 0; s < steps; s++) {
		char group[32];
		snprintf(group, sizeof group, "Step#%d", s);
		hid_t g = H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		CHECK(g);
		for (int v = 0; v < 8; v++) {
			hid_t type = v == 3 || v == 4 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
			hid_t d = H5Dcreate2(g, names[v], type, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
			CHECK(d);
			CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, mspace, fspace, xfer, buf));
			H5Dclose(d);
		}
		H5Gclose(g);
	}
	H5Sclose(mspace);
	H5Sclose(fspace);
	H5Pclose(xfer);
	H5Fclose(f);
	H5Pclose(fapl);
	double t = MPI_Wtime() - t0, tmax;
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("write_s=%.4f bytes=%llu\n", tmax, (unsigned long long)(total * 4 * 8 * steps));
	free(buf);
	MPI_Finalize();
	return 0;
}
