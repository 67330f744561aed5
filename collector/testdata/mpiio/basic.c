/*
 * MPI-IO workload with exactly known counters (collector/mpiio_test.go).
 * Usage: basic DIR. Every rank r of N:
 *
 * DIR/shared.dat, opened on MPI_COMM_WORLD (MPI_MODE_CREATE|MPI_MODE_RDWR,
 * with an info object; MPICH opens it as "ufs:DIR/shared.dat", Open MPI's
 * OMPIO does not accept file-system prefixes):
 *   10 write_at_all of 1 MiB at (i*N + r) MiB;
 *   5 write_at of 4 KiB; a write_at_all_begin/_end of 4 KiB;
 *   a write_at of 0 bytes;
 *   sync, barrier, sync;
 *   10 read_at_all of 1 MiB reading the first blocks back (checked);
 *   an iread_at of 4 KiB + MPI_Wait (checked); an iwrite_at of 4 KiB +
 *   MPI_Wait;
 *   a write_shared and a write_ordered of 25 ints (100 bytes each);
 *   set_view (etype and filetype MPI_INT, MPI_INFO_NULL) at a per-rank
 *   displacement, then a write_all of 2 elements of a vector datatype of 6
 *   ints (48 bytes);
 *   set_view back to bytes with the info object; sync; close.
 * DIR/private.<r>.dat, opened on MPI_COMM_SELF (MPI_MODE_CREATE|
 *   MPI_MODE_WRONLY, MPI_INFO_NULL): 3 writes of 1000 bytes; close.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1 << 20)
#define SMALL 4096

static char big[MIB], rbuf[MIB], small[SMALL], rsmall[SMALL];

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		MPI_Error_string(rc, msg, &len);
		fprintf(stderr, "%s: %s\n", what, msg);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void fill(char *p, int n, int seed)
{
	for (int i = 0; i < n; i++)
		p[i] = (char)(seed * 31 + i * 7);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2) {
		fprintf(stderr, "usage: basic DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	const MPI_Offset mib = MIB, n = size, r = rank;
	char path[4096];
#ifdef MPICH_VERSION
	snprintf(path, sizeof path, "ufs:%s/shared.dat", argv[1]);
#else
	snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
#endif
	MPI_Info info;
	MPI_Info_create(&info);
	MPI_Info_set(info, "access_style", "read_mostly");
	MPI_File fh;
	MPI_Status st;
	MPI_Request req;
	check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open shared");

	for (int i = 0; i < 10; i++) {
		fill(big, MIB, i * size + rank);
		check(MPI_File_write_at_all(fh, (i * n + r) * mib, big, MIB, MPI_BYTE, &st), "write_at_all");
	}
	MPI_Offset base = 10 * n * mib;
	fill(small, SMALL, 1000 + rank);
	for (int j = 0; j < 5; j++)
		check(MPI_File_write_at(fh, base + (r * 5 + j) * SMALL, small, SMALL, MPI_BYTE, &st), "write_at");
	check(MPI_File_write_at_all_begin(fh, base + (5 * n + r) * SMALL, small, SMALL, MPI_BYTE), "write_at_all_begin");
	check(MPI_File_write_at_all_end(fh, small, &st), "write_at_all_end");
	check(MPI_File_write_at(fh, base, small, 0, MPI_BYTE, &st), "write_at 0");

	/* Every rank's writes are visible before any rank reads (a collective
	 * read may read other ranks' data): MPI's sync, barrier, sync. */
	check(MPI_File_sync(fh), "sync");
	MPI_Barrier(MPI_COMM_WORLD);
	check(MPI_File_sync(fh), "sync");
	for (int i = 0; i < 10; i++) {
		check(MPI_File_read_at_all(fh, (i * n + r) * mib, rbuf, MIB, MPI_BYTE, &st), "read_at_all");
		fill(big, MIB, i * size + rank);
		if (memcmp(big, rbuf, MIB) != 0) {
			fprintf(stderr, "rank %d: block %d read back wrong\n", rank, i);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	check(MPI_File_iread_at(fh, base + r * 5 * SMALL, rsmall, SMALL, MPI_BYTE, &req), "iread_at");
	check(MPI_Wait(&req, &st), "wait");
	if (memcmp(small, rsmall, SMALL) != 0) {
		fprintf(stderr, "rank %d: small block read back wrong\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	check(MPI_File_iwrite_at(fh, base + (6 * n + r) * SMALL, small, SMALL, MPI_BYTE, &req), "iwrite_at");
	check(MPI_Wait(&req, &st), "wait");

	int ints[25];
	for (int i = 0; i < 25; i++)
		ints[i] = rank * 100 + i;
	check(MPI_File_write_shared(fh, ints, 25, MPI_INT, &st), "write_shared");
	check(MPI_File_write_ordered(fh, ints, 25, MPI_INT, &st), "write_ordered");

	MPI_Datatype vec;
	MPI_Type_vector(3, 2, 4, MPI_INT, &vec); /* 6 ints in an extent of 10 */
	MPI_Type_commit(&vec);
	int vbuf[2 * 12];
	for (int i = 0; i < 24; i++)
		vbuf[i] = i;
	MPI_Offset vbase = base + 7 * n * SMALL;
	check(MPI_File_set_view(fh, vbase + r * 48, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view");
	check(MPI_File_write_all(fh, vbuf, 2, vec, &st), "write_all");
	check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info), "set_view");
	check(MPI_File_sync(fh), "sync");
	check(MPI_File_close(&fh), "close shared");
	MPI_Type_free(&vec);
	MPI_Info_free(&info);

	snprintf(path, sizeof path, "%s/private.%d.dat", argv[1], rank);
	check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open private");
	for (int i = 0; i < 3; i++)
		check(MPI_File_write(fh, big, 1000, MPI_BYTE, &st), "write");
	check(MPI_File_close(&fh), "close private");

	MPI_Finalize();
	return 0;
}
