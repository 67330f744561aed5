/*
 * The demo workload: every rank writes its share of one shared file as many
 * small independent MPI-IO writes, interleaved with the other ranks' (rank r
 * writes record i at offset (i * ranks + r) * RECORD). Each write is
 * RECORD = 256 bytes, COUNT = 4096 per rank: with 4 ranks, 16,384 writes of
 * 256 bytes, 4 MiB in all. One collective write of the same data, or
 * buffering whole blocks per rank, would do the same in a few large
 * requests; iolens report says so.
 * Usage: smallwrites FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { RECORD = 256, COUNT = 4096 };

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: smallwrites FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	MPI_File fh;
	int err = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
	if (err != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len;
		MPI_Error_string(err, msg, &len);
		fprintf(stderr, "smallwrites: %s: %s\n", argv[1], msg);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char record[RECORD];
	for (int i = 0; i < COUNT; i++) {
		memset(record, 'a' + (rank + i) % 26, sizeof record);
		MPI_Offset off = ((MPI_Offset)i * size + rank) * RECORD;
		MPI_File_write_at(fh, off, record, RECORD, MPI_BYTE, MPI_STATUS_IGNORE);
	}
	MPI_File_close(&fh);

	if (rank == 0)
		printf("smallwrites: %d ranks wrote %d records of %d bytes each to %s\n", size, COUNT, RECORD, argv[1]);
	MPI_Finalize();
	return 0;
}
