/*
 * Large-count MPI-IO calls (MPI 4.0) after MPI_Init_thread, with exactly
 * known counters (collector/mpiio_test.go). Usage: largecount DIR. Every
 * rank r writes DIR/large.<r>.dat, opened on MPI_COMM_SELF
 * (MPI_MODE_CREATE|MPI_MODE_RDWR, MPI_INFO_NULL):
 *   write_at_c of 3000 bytes at 0; iwrite_at_all_c of 1000 bytes at 3000 +
 *   MPI_Wait; read_at_all_c of 4000 bytes at 0 (checked); read_c of 10 ints
 *   at the individual pointer (0); write_ordered_begin_c/_end of 5 doubles;
 *   close.
 * Exits with status 77 when the MPI library predates MPI 4.0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if MPI_VERSION >= 4
static char buf[4000], rbuf[4000];

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "%s failed (%d)\n", what, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2) {
		fprintf(stderr, "usage: largecount DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/large.%d.dat", argv[1], rank);
	for (int i = 0; i < 4000; i++)
		buf[i] = (char)(i * 13 + rank);
	MPI_File fh;
	MPI_Status st;
	MPI_Request req;
	check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
	check(MPI_File_write_at_c(fh, 0, buf, (MPI_Count)3000, MPI_BYTE, &st), "write_at_c");
	check(MPI_File_iwrite_at_all_c(fh, 3000, buf + 3000, (MPI_Count)1000, MPI_BYTE, &req), "iwrite_at_all_c");
	check(MPI_Wait(&req, &st), "wait");
	check(MPI_File_read_at_all_c(fh, 0, rbuf, (MPI_Count)4000, MPI_BYTE, &st), "read_at_all_c");
	if (memcmp(buf, rbuf, sizeof buf) != 0) {
		fprintf(stderr, "rank %d: read back wrong\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int ints[10];
	check(MPI_File_read_c(fh, ints, (MPI_Count)10, MPI_INT, &st), "read_c");
	double d[5] = {1, 2, 3, 4, 5};
	check(MPI_File_write_ordered_begin_c(fh, d, (MPI_Count)5, MPI_DOUBLE), "write_ordered_begin_c");
	check(MPI_File_write_ordered_end(fh, d, &st), "write_ordered_end");
	check(MPI_File_close(&fh), "close");
	MPI_Finalize();
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "largecount: MPI %d.%d has no large-count calls\n", MPI_VERSION, MPI_SUBVERSION);
	return 77;
}
#endif
