/*
 * PnetCDF writer in independent data mode: every rank writes its row of a
 * 2D variable, one record per step, with ncmpi_put_vara_double.
 * Usage: mpiexec -n 2 pnetcdf_indep DIR
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>

#define NSTEPS 50
#define NX 256

int main(int argc, char **argv)
{
	int rank, size, ncid, dimids[2], varid;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	char path[4096];
	snprintf(path, sizeof path, "%s/rows.nc", argv[1]);
	ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid);
	ncmpi_def_dim(ncid, "row", (MPI_Offset)size * NSTEPS, &dimids[0]);
	ncmpi_def_dim(ncid, "x", NX, &dimids[1]);
	ncmpi_def_var(ncid, "v", NC_DOUBLE, 2, dimids, &varid);
	ncmpi_enddef(ncid);
	double row[NX];
	ncmpi_begin_indep_data(ncid);
	for (int step = 0; step < NSTEPS; step++) {
		for (int i = 0; i < NX; i++)
			row[i] = rank * 1000.0 + step + i * 0.25;
		MPI_Offset start[2] = {(MPI_Offset)step * size + rank, 0}, count[2] = {1, NX};
		ncmpi_put_vara_double(ncid, varid, start, count, row);
	}
	ncmpi_end_indep_data(ncid);
	ncmpi_close(ncid);
	MPI_Finalize();
	return 0;
}
