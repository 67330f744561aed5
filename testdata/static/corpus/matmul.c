/*
 * Dense matrix multiply, compute only: init() fills A and B, multiply()
 * computes C = A B with a blocked triple loop, trace() reduces C; the
 * result is printed once.
 * Usage: matmul DIR [N]
 */
#include <stdio.h>
#include <stdlib.h>

#define N 448
#define BS 32

static void init(double *a, double *b, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			a[i * n + j] = (double)((i + j) % 10) / 10.0;
			b[i * n + j] = (double)((i * j) % 7) / 7.0;
		}
}

static void multiply(const double *a, const double *b, double *c, int n)
{
	for (int ii = 0; ii < n; ii += BS)
		for (int kk = 0; kk < n; kk += BS)
			for (int i = ii; i < ii + BS && i < n; i++)
				for (int k = kk; k < kk + BS && k < n; k++) {
					double x = a[i * n + k];
					for (int j = 0; j < n; j++)
						c[i * n + j] += x * b[k * n + j];
				}
}

static double trace(const double *c, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		t += c[i * n + i];
	return t;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : N;
	double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
	double *c = calloc((size_t)n * n, sizeof(double));
	init(a, b, n);
	for (int rep = 0; rep < 3; rep++)
		multiply(a, b, c, n);
	printf("%.6f\n", trace(c, n));
	free(a);
	free(b);
	free(c);
	return 0;
}
