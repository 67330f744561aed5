/*
 * FFT-like compute with one final output: signal() synthesises LOG2N
 * samples, fft() is a recursive radix-2 transform (twiddle() computes the
 * factors), power() derives the spectrum, and write_spectrum() writes it
 * once with fwrite at the end.
 * Usage: fft DIR [REPEAT]
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LOG2N 17
#define NSAMP (1 << LOG2N)
#define REPEAT 4

static void signal_init(double complex *x, int n)
{
	for (int i = 0; i < n; i++)
		x[i] = sin(2 * M_PI * 50 * i / n) + 0.5 * sin(2 * M_PI * 120 * i / n);
}

static double complex twiddle(int k, int n)
{
	return cexp(-2.0 * I * M_PI * k / n);
}

static void fft(double complex *x, double complex *tmp, int n)
{
	if (n < 2)
		return;
	int h = n / 2;
	for (int i = 0; i < h; i++) {
		tmp[i] = x[2 * i];
		tmp[i + h] = x[2 * i + 1];
	}
	fft(tmp, x, h);
	fft(tmp + h, x, h);
	for (int k = 0; k < h; k++) {
		double complex t = twiddle(k, n) * tmp[k + h];
		x[k] = tmp[k] + t;
		x[k + h] = tmp[k] - t;
	}
}

static void power(const double complex *x, double *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
}

static void write_spectrum(const char *dir, const double *p, int n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/spectrum.bin", dir);
	FILE *f = fopen(path, "wb");
	fwrite(p, sizeof p[0], (size_t)n, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int repeat = argc > 2 ? atoi(argv[2]) : REPEAT;
	double complex *x = malloc(NSAMP * sizeof *x), *tmp = malloc(NSAMP * sizeof *tmp);
	double *p = malloc(NSAMP * sizeof *p);
	for (int r = 0; r < repeat; r++) {
		signal_init(x, NSAMP);
		fft(x, tmp, NSAMP);
	}
	power(x, p, NSAMP);
	write_spectrum(argv[1], p, NSAMP);
	free(x);
	free(tmp);
	free(p);
	return 0;
}
