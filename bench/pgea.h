/*
 * What the two pgea twins (pgea.c on PnetCDF, pgea_h5.c on HDF5) share:
 * the clock, the input data, the order of the reads, the computation and
 * the report.
 */
#ifndef IOLENS_PGEA_H
#define IOLENS_PGEA_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The command line of a twin:
 *   NAME gen DIR NVARS NSTEPS X SEED
 *   NAME run DIR OUT NVARS NSTEPS X NS_PER_BYTE fixed|random
 * with this rank's slice [lo, lo+n) of x and the input paths DIR/in_A.EXT
 * and DIR/in_B.EXT. */
struct pgea_args {
	int gen;
	const char *dir, *out;
	int nvars, random;
	long long nsteps, x, lo, n;
	unsigned long long seed;
	double ns_per_byte;
	char path[2][4096];
};

/* Parses the command line into a; returns -1, or the exit status after a
 * usage message. Bad sizes abort the job. */
static int pgea_parse(int argc, char **argv, const char *name, const char *ext, struct pgea_args *a)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(a, 0, sizeof *a);
	a->gen = argc == 7 && strcmp(argv[1], "gen") == 0;
	if (!a->gen && !(argc == 9 && strcmp(argv[1], "run") == 0)) {
		if (rank == 0)
			fprintf(stderr, "usage: %s gen DIR NVARS NSTEPS X SEED | %s run DIR OUT NVARS NSTEPS X NS_PER_BYTE fixed|random\n", name, name);
		return 2;
	}
	a->dir = argv[2];
	int i = a->gen ? 3 : 4;
	a->nvars = atoi(argv[i]);
	a->nsteps = atoll(argv[i + 1]);
	a->x = atoll(argv[i + 2]);
	if (a->nvars < 1 || a->nvars > 64 || a->nsteps < 1 || a->x < size) {
		if (rank == 0)
			fprintf(stderr, "%s: bad sizes\n", name);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (a->gen) {
		a->seed = strtoull(argv[6], NULL, 10) * 2654435761u + rank;
	} else {
		a->out = argv[3];
		a->ns_per_byte = atof(argv[7]);
		a->random = strcmp(argv[8], "random") == 0;
	}
	a->lo = a->x * rank / size;
	a->n = a->x * (rank + 1) / size - a->lo;
	snprintf(a->path[0], sizeof a->path[0], "%s/in_A%s", a->dir, ext);
	snprintf(a->path[1], sizeof a->path[1], "%s/in_B%s", a->dir, ext);
	return -1;
}

static double pgea_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Fills buf with n pseudo-random doubles in [0, 1) from *seed. */
static void pgea_fill(double *buf, int64_t n, unsigned long long *seed)
{
	for (int64_t i = 0; i < n; i++) {
		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[i] = (double)(*seed >> 11) / (double)(1ULL << 53);
	}
}

/* The order of the variables of a step: 1, 4, 2, 0, 3, ... (i*3+1 mod
 * nvars), or a random permutation. */
static void pgea_order(int *order, int nvars, int random)
{
	for (int i = 0; i < nvars; i++)
		order[i] = nvars % 3 ? (i * 3 + 1) % nvars : i;
	if (random)
		for (int i = nvars - 1; i > 0; i--) {
			int j = rand() % (i + 1), t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
}

/* Computes (a busy loop over avg) for the given seconds, then turns the
 * sums of avg into means of nsum values. */
static void pgea_compute(double seconds, double *avg, int64_t n, int nsum)
{
	double until = pgea_now() + seconds;
	volatile double acc = 0;
	while (pgea_now() < until)
		for (int k = 0; k < 1000; k++)
			acc += avg[k % n] * 1e-9;
	for (int64_t k = 0; k < n; k++)
		avg[k] /= nsum;
}

/* Times of the run of rank 0, printed at the end. */
struct pgea_times {
	double start, read, compute, write;
};

static void pgea_report(const struct pgea_times *t, long long total_bytes)
{
	printf("read_bytes=%lld seconds=%.3f read_s=%.3f compute_s=%.3f write_s=%.3f\n", total_bytes,
	       pgea_now() - t->start, t->read, t->compute, t->write);
}

#endif
