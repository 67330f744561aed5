/*
 * 2D five-point stencil on an NX x NY grid with periodic binary
 * checkpoints: step() updates the grid STEPS times; every CKPT_EVERY steps
 * checkpoint() writes the whole grid to a new file with fwrite;
 * residual() reduces the final grid.
 * Usage: stencil DIR [STEPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 512
#define NY 512
#define STEPS 300
#define CKPT_EVERY 20

static void init(double *g)
{
	for (int i = 0; i < NX; i++)
		for (int j = 0; j < NY; j++)
			g[i * NY + j] = (i == NX / 2 && j == NY / 2) ? 1000.0 : 0.0;
}

static void step(const double *g, double *out)
{
	for (int i = 1; i < NX - 1; i++)
		for (int j = 1; j < NY - 1; j++)
			out[i * NY + j] = 0.25 * (g[(i - 1) * NY + j] + g[(i + 1) * NY + j] +
						  g[i * NY + j - 1] + g[i * NY + j + 1]);
}

static void checkpoint(const char *dir, int it, const double *g)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/ckpt_%04d.bin", dir, it);
	FILE *f = fopen(path, "wb");
	fwrite(&it, sizeof it, 1, f);
	fwrite(g, sizeof g[0], (size_t)NX * NY, f);
	fclose(f);
}

static double residual(const double *g)
{
	double s = 0;
	for (long k = 0; k < (long)NX * NY; k++)
		s += g[k] * g[k];
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int steps = argc > 2 ? atoi(argv[2]) : STEPS;
	double *a = calloc((size_t)NX * NY, sizeof *a), *b = calloc((size_t)NX * NY, sizeof *b);
	init(a);
	for (int it = 1; it <= steps; it++) {
		step(a, b);
		double *t = a;
		a = b;
		b = t;
		if (it % CKPT_EVERY == 0)
			checkpoint(argv[1], it, a);
	}
	printf("%.6e\n", residual(a));
	free(a);
	free(b);
	return 0;
}
