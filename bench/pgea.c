/*
 * A pgea-like PnetCDF workload for the prefetch benchmark (make
 * bench-prefetch): for each time step it reads rows of several variables
 * from two input files, averages them while computing, and writes the
 * average. Usage:
 *
 *   pgea gen DIR NVARS NSTEPS X SEED
 *       writes DIR/in_A.nc and DIR/in_B.nc: variables v0.. double (step, x)
 *   pgea run DIR OUT NVARS NSTEPS X NS_PER_BYTE ORDER
 *       ORDER "fixed": each step reads A's variables in the order
 *       1, 4, 2, 0, 3, ... (i*3+1 mod NVARS) interleaved with B's in the
 *       reverse order, an order that sequential readahead cannot guess;
 *       "random": a different random order at every step and run.
 *       Each rank reads its slice of x of each row (collective reads),
 *       then computes for NS_PER_BYTE nanoseconds per byte it read (a busy
 *       loop), then writes its slice of the average to OUT.
 * Prints on rank 0 the bytes read by all ranks and its own seconds in all,
 * reading, computing and writing.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgea.h"

#define CHECK(x)                                                                              \
	do {                                                                                  \
		int err_ = (x);                                                               \
		if (err_ != NC_NOERR) {                                                       \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
			MPI_Abort(MPI_COMM_WORLD, 1);                                         \
		}                                                                             \
	} while (0)

static void create(const char *path, int nvars, MPI_Offset nsteps, MPI_Offset x, int *ncid, int *var)
{
	int dims[2];
	CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, ncid));
	CHECK(ncmpi_def_dim(*ncid, "step", nsteps, &dims[0]));
	CHECK(ncmpi_def_dim(*ncid, "x", x, &dims[1]));
	for (int v = 0; v < nvars; v++) {
		char name[16];
		snprintf(name, sizeof name, "v%d", v);
		CHECK(ncmpi_def_var(*ncid, name, NC_DOUBLE, 2, dims, &var[v]));
	}
	CHECK(ncmpi_enddef(*ncid));
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	struct pgea_args args;
	int status = pgea_parse(argc, argv, "pgea", ".nc", &args);
	if (status >= 0) {
		MPI_Finalize();
		return status;
	}
	int gen = args.gen, nvars = args.nvars;
	MPI_Offset nsteps = args.nsteps, x = args.x, lo = args.lo, n = args.n;
	double *buf = malloc(n * sizeof *buf), *avg = calloc(n, sizeof *avg);
	char (*path)[4096] = args.path;
	int ncid[2], var[2][64];
	MPI_Offset start[2] = {0, lo}, count[2] = {1, n};
	if (gen) {
		unsigned long long seed = args.seed;
		for (int f = 0; f < 2; f++) {
			create(path[f], nvars, nsteps, x, &ncid[f], var[f]);
			for (int v = 0; v < nvars; v++)
				for (MPI_Offset s = 0; s < nsteps; s++) {
					pgea_fill(buf, (int64_t)n, &seed);
					start[0] = s;
					CHECK(ncmpi_put_vara_double_all(ncid[f], var[f][v], start, count, buf));
				}
			CHECK(ncmpi_close(ncid[f]));
		}
		MPI_Finalize();
		return 0;
	}
	const char *out = args.out;
	double ns_per_byte = args.ns_per_byte;
	int random = args.random;
	unsigned seed = (unsigned)time(NULL);
	MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
	srand(seed);
	struct pgea_times t = {.start = pgea_now()};
	for (int f = 0; f < 2; f++) {
		CHECK(ncmpi_open(MPI_COMM_WORLD, path[f], NC_NOWRITE, MPI_INFO_NULL, &ncid[f]));
		for (int v = 0; v < nvars; v++) {
			char name[16];
			snprintf(name, sizeof name, "v%d", v);
			CHECK(ncmpi_inq_varid(ncid[f], name, &var[f][v]));
		}
	}
	int oid, ovar;
	create(out, 1, nsteps, x, &oid, &ovar);
	int order[64];
	int64_t bytes = 0;
	for (MPI_Offset s = 0; s < nsteps; s++) {
		double r0 = pgea_now();
		pgea_order(order, nvars, random);
		memset(avg, 0, n * sizeof *avg);
		start[0] = s;
		for (int i = 0; i < nvars; i++)
			for (int f = 0; f < 2; f++) {
				int v = f == 0 ? order[i] : order[nvars - 1 - i];
				CHECK(ncmpi_get_vara_double_all(ncid[f], var[f][v], start, count, buf));
				for (MPI_Offset k = 0; k < n; k++)
					avg[k] += buf[k];
				bytes += n * (int64_t)sizeof *buf;
			}
		/* Compute: NS_PER_BYTE ns per byte read this step. */
		double c0 = pgea_now();
		t.read += c0 - r0;
		pgea_compute(ns_per_byte * 1e-9 * (double)(2 * nvars * n * sizeof *buf), avg, (int64_t)n, 2 * nvars);
		double w0 = pgea_now();
		t.compute += w0 - c0;
		CHECK(ncmpi_put_vara_double_all(oid, ovar, start, count, avg));
		t.write += pgea_now() - w0;
	}
	CHECK(ncmpi_close(oid));
	for (int f = 0; f < 2; f++)
		CHECK(ncmpi_close(ncid[f]));
	int64_t total = 0;
	MPI_Reduce(&bytes, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		pgea_report(&t, (long long)total);
	free(buf);
	free(avg);
	MPI_Finalize();
	return 0;
}
