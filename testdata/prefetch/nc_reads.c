/*
 * PnetCDF workload of the prefetch tests, for any number of ranks.
 * Usage: nc_reads create FILE | nc_reads read FILE PAUSE_MS
 *
 * create: FILE gets five variables v0..v4, double (rank, x), x = 1000, one
 * row per rank, each rank writing its row of each (collective).
 * read: each rank reads its row of v3, v1, v4, v0, v2 (8000 contiguous
 * bytes each, independent data mode), computing (sleeping) PAUSE_MS
 * milliseconds before each read.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                                   \
	do {                                                                       \
		int err_ = (x);                                                    \
		if (err_ != NC_NOERR) {                                            \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
			MPI_Abort(MPI_COMM_WORLD, 1);                              \
		}                                                                  \
	} while (0)

enum { X = 1000, NVARS = 5 };

int main(int argc, char **argv)
{
	static double row[X];
	int rank, size, ncid, var[NVARS], dims[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || (strcmp(argv[1], "read") == 0 && argc != 4)) {
		if (rank == 0)
			fprintf(stderr, "usage: nc_reads create FILE | nc_reads read FILE PAUSE_MS\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Offset start[2] = {rank, 0}, count[2] = {1, X};
	if (strcmp(argv[1], "create") == 0) {
		for (int i = 0; i < X; i++)
			row[i] = rank * X + i;
		CHECK(ncmpi_create(MPI_COMM_WORLD, argv[2], NC_CLOBBER, MPI_INFO_NULL, &ncid));
		CHECK(ncmpi_def_dim(ncid, "rank", size, &dims[0]));
		CHECK(ncmpi_def_dim(ncid, "x", X, &dims[1]));
		for (int v = 0; v < NVARS; v++) {
			char name[8];
			snprintf(name, sizeof name, "v%d", v);
			CHECK(ncmpi_def_var(ncid, name, NC_DOUBLE, 2, dims, &var[v]));
		}
		CHECK(ncmpi_enddef(ncid));
		for (int v = 0; v < NVARS; v++)
			CHECK(ncmpi_put_vara_double_all(ncid, var[v], start, count, row));
		CHECK(ncmpi_close(ncid));
	} else {
		static const int order[NVARS] = {3, 1, 4, 0, 2};
		long ms = atol(argv[3]);
		CHECK(ncmpi_open(MPI_COMM_WORLD, argv[2], NC_NOWRITE, MPI_INFO_NULL, &ncid));
		for (int v = 0; v < NVARS; v++) {
			char name[8];
			snprintf(name, sizeof name, "v%d", v);
			CHECK(ncmpi_inq_varid(ncid, name, &var[v]));
		}
		CHECK(ncmpi_begin_indep_data(ncid));
		for (int i = 0; i < NVARS; i++) {
			struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
			nanosleep(&ts, NULL);
			CHECK(ncmpi_get_vara_double(ncid, var[order[i]], start, count, row));
			if (row[0] != rank * X)
				MPI_Abort(MPI_COMM_WORLD, 3);
		}
		CHECK(ncmpi_end_indep_data(ncid));
		CHECK(ncmpi_close(ncid));
	}
	MPI_Finalize();
	return 0;
}
