/*
 * Parallel HDF5 workload with exactly known I/O, for 2 MPI ranks (every
 * rank records the same counters). Usage: mpiexec -n 2 parallel DIR
 *
 * File DIR/parallel.h5, MPI-IO driver. Datasets of 512x512 doubles:
 *   "data" (contiguous): created; each rank writes its half of the rows
 *     (regular hyperslab, collective); closed. Reopened with
 *     H5Dopen2; the rank's half is read back (regular hyperslab,
 *     collective), then 4 points (independent), then rows 0, 1 and 5 of
 *     the rank's half (an irregular hyperslab, independent); closed with
 *     H5Oclose.
 *   "chunked" (chunks 64x128): created; each rank writes every other row
 *     starting at its rank (stride 2, collective); the whole dataset is
 *     read (H5S_ALL, default transfer); closed. Reopened with H5Oopen and
 *     closed.
 * The file is flushed once (H5Fflush on the file id) and closed.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512

#define CHECK(x)                                                              \
	do {                                                                  \
		if ((x) < 0) {                                                \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); \
			MPI_Abort(MPI_COMM_WORLD, 1);                         \
		}                                                             \
	} while (0)

int main(int argc, char **argv)
{
	int rank, size;
	char path[4096];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2 || size % 2) {
		fprintf(stderr, "usage: mpiexec -n 2 parallel DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(path, sizeof path, "%s/parallel.h5", argv[1]);

	double *buf = malloc(sizeof(double) * N * N);
	for (int i = 0; i < N * N; i++)
		buf[i] = rank * 1e6 + i;

	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	CHECK(file);
	hid_t coll = H5Pcreate(H5P_DATASET_XFER);
	CHECK(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));

	hsize_t dims[2] = {N, N};
	hid_t space = H5Screate_simple(2, dims, NULL);

	/* "data": the rank's half of the rows. */
	hsize_t half = N / 2;
	hsize_t start[2] = {rank % 2 * half, 0}, count[2] = {half, N};
	hsize_t mdims[2] = {half, N};
	hid_t mem = H5Screate_simple(2, mdims, NULL);
	hid_t dset = H5Dcreate2(file, "data", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	CHECK(dset);
	hid_t fsel = H5Dget_space(dset);
	CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL));
	CHECK(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, fsel, coll, buf));
	CHECK(H5Sclose(fsel));
	CHECK(H5Dclose(dset));

	/* "chunked": every other row, starting at the rank. */
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hsize_t chunk[2] = {64, 128};
	CHECK(H5Pset_chunk(dcpl, 2, chunk));
	hid_t cset = H5Dcreate2(file, "chunked", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	CHECK(cset);
	hsize_t cstart[2] = {rank % 2, 0}, cstride[2] = {2, 1}, ccount[2] = {half, N};
	fsel = H5Dget_space(cset);
	CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, cstart, cstride, ccount, NULL));
	CHECK(H5Dwrite(cset, H5T_NATIVE_DOUBLE, mem, fsel, coll, buf));
	CHECK(H5Sclose(fsel));
	CHECK(H5Dread(cset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
	CHECK(H5Dclose(cset));
	CHECK(H5Pclose(dcpl));

	CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL));

	/* "data" again: the half back, 4 points, 3 irregular rows. */
	dset = H5Dopen2(file, "data", H5P_DEFAULT);
	CHECK(dset);
	fsel = H5Dget_space(dset);
	CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL));
	CHECK(H5Dread(dset, H5T_NATIVE_DOUBLE, mem, fsel, coll, buf));
	hsize_t points[4][2] = {{start[0], 0}, {start[0], 7}, {start[0] + 3, 100}, {start[0] + 200, 511}};
	CHECK(H5Sselect_elements(fsel, H5S_SELECT_SET, 4, &points[0][0]));
	hsize_t four = 4;
	hid_t mem4 = H5Screate_simple(1, &four, NULL);
	CHECK(H5Dread(dset, H5T_NATIVE_DOUBLE, mem4, fsel, H5P_DEFAULT, buf));
	hsize_t row[2] = {1, N}, r0[2] = {start[0], 0}, r5[2] = {start[0] + 5, 0};
	hsize_t two[2] = {2, N};
	CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, r0, NULL, two, NULL));
	CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_OR, r5, NULL, row, NULL));
	hsize_t three[2] = {3, N};
	hid_t mem3 = H5Screate_simple(2, three, NULL);
	CHECK(H5Dread(dset, H5T_NATIVE_DOUBLE, mem3, fsel, H5P_DEFAULT, buf));
	CHECK(H5Sclose(fsel));
	CHECK(H5Oclose(dset));

	hid_t obj = H5Oopen(file, "chunked", H5P_DEFAULT);
	CHECK(obj);
	CHECK(H5Dclose(obj));

	CHECK(H5Sclose(mem3));
	CHECK(H5Sclose(mem4));
	CHECK(H5Sclose(mem));
	CHECK(H5Sclose(space));
	CHECK(H5Pclose(coll));
	CHECK(H5Pclose(fapl));
	CHECK(H5Fclose(file));
	free(buf);
	MPI_Finalize();
	return 0;
}
