/*
 * Output flushed in a loop: every iteration relax() does some arithmetic,
 * then report() prints one line with fprintf and forces it out with fflush
 * (a write per line despite stdio buffering).
 * Usage: fflush_loop DIR [NITER]
 */
#include <stdio.h>
#include <stdlib.h>

#define NITER 80000
#define WORK 200

static double relax(double x)
{
	for (int k = 0; k < WORK; k++)
		x = 0.5 * (x + 2.0 / x);
	return x;
}

static void report(FILE *f, long it, double x)
{
	fprintf(f, "%ld %.12f\n", it, x);
	fflush(f);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NITER;
	char path[4096];
	snprintf(path, sizeof path, "%s/progress.txt", argv[1]);
	FILE *f = fopen(path, "w");
	double x = 1.0;
	for (long it = 0; it < n; it++) {
		x = relax(x + (double)it);
		report(f, it, x);
	}
	fclose(f);
	return 0;
}
