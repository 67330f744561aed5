/*
 * What the two pgea twins (pgea.c on PnetCDF, pgea_h5.c on HDF5) share:
 * the clock, the input data, the order of the reads, the computation and
 * the report.
 */
#ifndef IOLENS_PGEA_H
#define IOLENS_PGEA_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
