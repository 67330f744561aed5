/*
 * MPI-IO independent writer: each rank computes NSEG segments of SEG
 * doubles (compute_segment, arithmetic only) and writes each with
 * MPI_File_write_at at its own offset (write_segments); ranks meet in a
 * barrier before closing.
 * Usage: mpiexec -n 2 mpiio_indep DIR [NSEG]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SEG 8192
#define NSEG 256

static void compute_segment(double *buf, int rank, int s)
{
	for (int i = 0; i < SEG; i++)
		buf[i] = sqrt((double)(rank + s + i)) * cos(i * 0.01);
}

static void write_segments(MPI_File fh, int rank, int nseg)
{
	double *buf = malloc(SEG * sizeof *buf);
	for (int s = 0; s < nseg; s++) {
		compute_segment(buf, rank, s);
		MPI_Offset off = ((MPI_Offset)rank * nseg + s) * SEG * sizeof(double);
		MPI_File_write_at(fh, off, buf, SEG, MPI_DOUBLE, MPI_STATUS_IGNORE);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	int nseg = argc > 2 ? atoi(argv[2]) : NSEG;
	char path[4096];
	snprintf(path, sizeof path, "%s/independent.dat", argv[1]);
	MPI_File fh;
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
	write_segments(fh, rank, nseg);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
