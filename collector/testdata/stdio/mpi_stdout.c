/*
 * Standard streams under MPI: rank 0 alone prints one line, 23 bytes for up
 * to 9 ranks ("hello from rank 0 of N\n"). Expected: only rank 0 has STDIO
 * records; the log holds one rank-0 <STDOUT> record with OPENS 1, WRITES 1,
 * FLUSHES 1, BYTES_WRITTEN 23. With a directory argument every rank also
 * writes "rank R\n" (7 bytes) to DIR/rank-R.txt through fopen, fprintf and
 * fclose: every rank then starts the STDIO module and has the standard
 * streams, and the log holds a shared <STDOUT> record (rank -1) with
 * OPENS = ranks, WRITES 1, FLUSHES 1, BYTES_WRITTEN 23, as under Darshan.
 * Usage: mpi_stdout [DIR]
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1) {
		char path[4096];
		snprintf(path, sizeof path, "%s/rank-%d.txt", argv[1], rank);
		FILE *f = fopen(path, "w");
		if (!f || fprintf(f, "rank %d\n", rank) != 7 || fclose(f) != 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf("hello from rank 0 of %d\n", size);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
