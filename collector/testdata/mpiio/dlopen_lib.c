/*
 * The MPI part of dlopen.c, built as a shared library linked with MPI.
 * run(DIR): MPI_Init(NULL, NULL); every rank r opens DIR/dlopen.dat on
 * MPI_COMM_WORLD (MPI_MODE_CREATE|MPI_MODE_RDWR, MPI_INFO_NULL), writes
 * 100 bytes at 100·r with MPI_File_write_at_all, closes it; MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>

int run(const char *dir)
{
	int rank;
	char path[4096], buf[100] = {0};
	MPI_File fh;
	MPI_Status st;
	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	snprintf(path, sizeof path, "%s/dlopen.dat", dir);
	if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS ||
	    MPI_File_write_at_all(fh, (MPI_Offset)rank * 100, buf, 100, MPI_BYTE, &st) != MPI_SUCCESS ||
	    MPI_File_close(&fh) != MPI_SUCCESS) {
		fprintf(stderr, "rank %d: MPI-IO failed\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
