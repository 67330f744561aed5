/*
 * MPI-IO with compute between the writes: the ranks share a 1-D domain of
 * NGLOBAL points, each owning a contiguous slab; relax() does SWEEPS
 * Jacobi sweeps on the slab after exchanging one halo point with each
 * neighbour (exchange_halo, MPI_Sendrecv); every OUT_EVERY iterations
 * write_snapshot() writes every rank's slab into the snapshot file at its
 * offset with the collective MPI_File_write_at_all. norm() reduces the
 * result with MPI_Allreduce. Rank 0 also writes a small header file once
 * with write() (write_header) and one line per iteration to a text log
 * with fprintf (log_iteration).
 * Usage: mpiexec -n 2 mpi_relax_io DIR
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NGLOBAL (1 << 19)
#define NITER 24
#define SWEEPS 10
#define OUT_EVERY 3

static void exchange_halo(double *u, int nloc, int rank, int nprocs)
{
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int right = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
	MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[nloc + 1], 1, MPI_DOUBLE, right, 0,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(&u[nloc], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void relax(double *u, double *tmp, int nloc, long first)
{
	for (int s = 0; s < SWEEPS; s++) {
		for (int i = 1; i <= nloc; i++)
			tmp[i] = 0.5 * (u[i - 1] + u[i + 1]) + 1e-6 * (double)((first + i) % 17);
		for (int i = 1; i <= nloc; i++)
			u[i] = tmp[i];
	}
}

static void write_snapshot(MPI_File fh, int snap, const double *u, int nloc, long first)
{
	MPI_Offset off = ((MPI_Offset)snap * NGLOBAL + first) * (MPI_Offset)sizeof(double);
	MPI_File_write_at_all(fh, off, &u[1], nloc, MPI_DOUBLE, MPI_STATUS_IGNORE);
}

static void write_header(const char *dir, int nprocs)
{
	char path[4096], text[256];
	snprintf(path, sizeof path, "%s/snapshots.hdr", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	int n = snprintf(text, sizeof text, "points %d\nranks %d\nsnapshots %d\ntype float64\n", NGLOBAL, nprocs,
			 NITER / OUT_EVERY);
	if (write(fd, text, (size_t)n) != n)
		MPI_Abort(MPI_COMM_WORLD, 1);
	close(fd);
}

static void log_iteration(FILE *log, int it, const double *u, int nloc)
{
	fprintf(log, "iteration %d u[1] %.9e u[mid] %.9e\n", it, u[1], u[nloc / 2]);
}

static double norm(const double *u, int nloc)
{
	double s = 0, g = 0;
	for (int i = 1; i <= nloc; i++)
		s += u[i] * u[i];
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

int main(int argc, char **argv)
{
	int rank, nprocs;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	int nloc = NGLOBAL / nprocs;
	long first = (long)rank * nloc;
	double *u = calloc(nloc + 2, sizeof *u), *tmp = calloc(nloc + 2, sizeof *tmp);
	char path[4096];
	snprintf(path, sizeof path, "%s/snapshots.dat", argv[1]);
	MPI_File fh;
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
	FILE *log = NULL;
	if (rank == 0) {
		write_header(argv[1], nprocs);
		snprintf(path, sizeof path, "%s/iterations.log", argv[1]);
		log = fopen(path, "w");
	}
	int snap = 0;
	for (int it = 1; it <= NITER; it++) {
		exchange_halo(u, nloc, rank, nprocs);
		relax(u, tmp, nloc, first);
		if (log)
			log_iteration(log, it, u, nloc);
		if (it % OUT_EVERY == 0)
			write_snapshot(fh, snap++, u, nloc, first);
	}
	if (log)
		fclose(log);
	MPI_File_close(&fh);
	double g = norm(u, nloc);
	if (rank == 0)
		printf("%.6e\n", g);
	free(u);
	free(tmp);
	MPI_Finalize();
	return 0;
}
