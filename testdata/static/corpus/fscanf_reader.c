/*
 * Text numbers read with fscanf: write_numbers() prints NVALS integers,
 * one per line, with fprintf; read_numbers() reads them back with fscanf
 * into an array; sort_values() (insertion sort of a prefix) and stats()
 * are compute.
 * Usage: fscanf_reader DIR [NVALS]
 */
#include <stdio.h>
#include <stdlib.h>

#define NVALS 200000
#define SORTED 3000

static void write_numbers(const char *path, long n)
{
	FILE *f = fopen(path, "w");
	unsigned x = 7;
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		fprintf(f, "%u\n", (x >> 8) % 1000000u);
	}
	fclose(f);
}

static long read_numbers(const char *path, long *v, long max)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	while (n < max && fscanf(f, "%ld", &v[n]) == 1)
		n++;
	fclose(f);
	return n;
}

static void sort_values(long *v, long n)
{
	for (long i = 1; i < n; i++) {
		long x = v[i], j = i - 1;
		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
}

static double stats(const long *v, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)v[i];
	return s / (double)n;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NVALS;
	char path[4096];
	long *v = malloc((size_t)n * sizeof *v);
	snprintf(path, sizeof path, "%s/numbers.txt", argv[1]);
	write_numbers(path, n);
	long got = read_numbers(path, v, n);
	sort_values(v, got < SORTED ? got : SORTED);
	printf("%ld %.3f\n", got, stats(v, got));
	free(v);
	return 0;
}
