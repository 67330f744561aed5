/*
 * MPI-IO writes that only rank 0 makes (a header), then every rank's
 * blocks: the header write must stay independent.
 * Usage: mpiexec -n 2 mpiio_rank0 DIR
 */
#include <mpi.h>
#include <stdio.h>

#define NBLK 64
#define BLK 1024

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	char path[4096];
	snprintf(path, sizeof path, "%s/blocks.dat", argv[1]);
	MPI_File fh;
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
	int header[4] = {NBLK, BLK, 0, 0};
	header[2] = size;
	int me = rank;
	for (int b = 0; b < NBLK; b++)
		if (me == 0)
			MPI_File_write_at(fh, b * (MPI_Offset)sizeof header, header, 4, MPI_INT, MPI_STATUS_IGNORE);
	double blk[BLK];
	for (int b = 0; b < NBLK; b++) {
		for (int i = 0; i < BLK; i++)
			blk[i] = rank + b + i * 0.125;
		MPI_Offset off = 4096 + ((MPI_Offset)b * size + rank) * sizeof blk;
		MPI_File_write_at(fh, off, blk, BLK, MPI_DOUBLE, MPI_STATUS_IGNORE);
	}
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
