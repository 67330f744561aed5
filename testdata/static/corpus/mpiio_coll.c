/*
 * MPI-IO collective writer and reader: every rank fills a block of BLOCK
 * doubles per iteration (fill_block) and writes it with
 * MPI_File_write_at_all (write_collective) at rank-interleaved offsets,
 * NITER times; read_collective() reads everything back with
 * MPI_File_read_at_all and check() verifies it.
 * Usage: mpiexec -n 2 mpiio_coll DIR [NITER]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 65536
#define NITER 16

static void fill_block(double *buf, int rank, int it)
{
	for (int i = 0; i < BLOCK; i++)
		buf[i] = rank * 1e6 + it * 1e3 + i * 1e-3;
}

static void write_collective(MPI_File fh, int rank, int nprocs, int niter, double *buf)
{
	for (int it = 0; it < niter; it++) {
		fill_block(buf, rank, it);
		MPI_Offset off = ((MPI_Offset)it * nprocs + rank) * BLOCK * sizeof(double);
		MPI_File_write_at_all(fh, off, buf, BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
	}
}

static int check(const double *buf, int rank, int it)
{
	for (int i = 0; i < BLOCK; i++)
		if (buf[i] != rank * 1e6 + it * 1e3 + i * 1e-3)
			return 1;
	return 0;
}

static int read_collective(MPI_File fh, int rank, int nprocs, int niter, double *buf)
{
	int bad = 0;
	for (int it = 0; it < niter; it++) {
		MPI_Offset off = ((MPI_Offset)it * nprocs + rank) * BLOCK * sizeof(double);
		MPI_File_read_at_all(fh, off, buf, BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
		bad += check(buf, rank, it);
	}
	return bad;
}

int main(int argc, char **argv)
{
	int rank, nprocs;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	int niter = argc > 2 ? atoi(argv[2]) : NITER;
	char path[4096];
	snprintf(path, sizeof path, "%s/collective.dat", argv[1]);
	double *buf = malloc(BLOCK * sizeof *buf);
	MPI_File fh;
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	write_collective(fh, rank, nprocs, niter, buf);
	int bad = read_collective(fh, rank, nprocs, niter, buf);
	MPI_File_close(&fh);
	free(buf);
	MPI_Finalize();
	return bad != 0;
}
