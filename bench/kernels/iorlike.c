/*
 * An IOR-like MPI-IO kernel for tuning: every rank writes SEGMENTS blocks of
 * BLOCK bytes to one shared file in transfers of XFER bytes, with
 * independent or collective calls, in the segmented layout (rank r's
 * block of segment s at (s * ranks + r) * BLOCK) or the strided one (each
 * transfer of each rank interleaved with the others' at XFER granularity),
 * then reads it back the same way.
 * Usage: iorlike FILE BLOCK XFER SEGMENTS segmented|strided indep|coll
 * Prints "write_s=T read_s=T bytes=B" on rank 0 (the longest rank's times).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 7) {
		if (rank == 0)
			fprintf(stderr, "usage: iorlike FILE BLOCK XFER SEGMENTS segmented|strided indep|coll\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	long long block = atoll(argv[2]), xfer = atoll(argv[3]);
	int segments = atoi(argv[4]), strided = strcmp(argv[5], "strided") == 0, coll = strcmp(argv[6], "coll") == 0;
	if (block <= 0 || xfer <= 0 || block % xfer || segments <= 0) {
		if (rank == 0)
			fprintf(stderr, "iorlike: BLOCK must be a positive multiple of XFER\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	char *buf = malloc(xfer);
	memset(buf, 'a' + rank % 26, xfer);
	double times[2];
	for (int phase = 0; phase < 2; phase++) {
		MPI_File fh;
		int amode = phase == 0 ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (MPI_File_open(MPI_COMM_WORLD, argv[1], amode, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 1);
		long long per = block / xfer;
		for (int s = 0; s < segments; s++)
			for (long long k = 0; k < per; k++) {
				MPI_Offset off = strided ? ((MPI_Offset)(s * per + k) * size + rank) * xfer
							 : ((MPI_Offset)s * size + rank) * block + k * xfer;
				MPI_Status st;
				int err;
				if (phase == 0)
					err = coll ? MPI_File_write_at_all(fh, off, buf, (int)xfer, MPI_BYTE, &st)
						   : MPI_File_write_at(fh, off, buf, (int)xfer, MPI_BYTE, &st);
				else
					err = coll ? MPI_File_read_at_all(fh, off, buf, (int)xfer, MPI_BYTE, &st)
						   : MPI_File_read_at(fh, off, buf, (int)xfer, MPI_BYTE, &st);
				if (err != MPI_SUCCESS)
					MPI_Abort(MPI_COMM_WORLD, 1);
			}
		MPI_File_close(&fh);
		double t = MPI_Wtime() - t0;
		MPI_Reduce(&t, &times[phase], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("write_s=%.4f read_s=%.4f bytes=%lld\n", times[0], times[1], block * segments * size);
	free(buf);
	MPI_Finalize();
	return 0;
}
