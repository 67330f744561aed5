/* A stencil-like program that writes a checkpoint of its grid after every
 * step and flushes it: the I/O is in checkpoint(), the compute in step(). */
#include <stdio.h>

#define NSTEPS 100
#define N 1024

static double grid[N];

static void step(void)
{
	for (int i = 0; i < N; i++)
		grid[i] = grid[i] * 0.5 + 1.0;
}

static void checkpoint(FILE *f)
{
	fwrite(grid, sizeof(double), N, f);
	fflush(f);
}

int main(void)
{
	FILE *f = fopen("ckpt.dat", "wb");
	for (int s = 0; s < NSTEPS; s++) {
		step();
		checkpoint(f);
	}
	fclose(f);
	return 0;
}
