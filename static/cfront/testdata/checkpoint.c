/* A stencil code that checkpoints its grid every ten steps. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

#define NSTEPS 100
#define BUF (4*1024)
#define NAME "ckpt.dat"
#define SQR(x) ((x) * (x))

struct cell {
	int id;
	double value;
};

enum mode { MODE_READ, MODE_WRITE = 4, MODE_APPEND };

static const int nx = 64;
double grid[64][64];
typedef void (*handler_t)(int);
static handler_t handlers[4];

static void checkpoint(FILE *f, double *data, size_t n)
{
	int step;
	for (step = 0; step < NSTEPS; step++) {
		if (step % 10 == 0) {
			fwrite(data, sizeof(double), n, f);
		}
		fflush(f);
	}
}

long copy(int fd, int out)
{
	char buf[BUF];
	ssize_t n;
	long total = 0;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		total += n;
		write(out, buf, n);
	}
	return total;
}

int main(int argc, char **argv)
{
	int i, j, n = atoi(argv[1]);
	double *data = malloc(n * sizeof(double));
	struct cell c;
	FILE *f = fopen(NAME, "wb");
	if (f == NULL)
		exit(1);
	for (i = 0; i < nx; i++)
		for (j = nx - 1; j >= 0; j -= 2)
			grid[i][j] = SQR(i) + j;
	for (i = 0; i < 4; i++)
		handlers[i](i);
	switch (argc) {
	case 1:
		checkpoint(f, data, n);
		break;
	case 2:
	case 3:
		c.value = sizeof(struct cell);
		break;
	default:
		return 2;
	}
#ifdef USE_MPI
	MPI_File fh;
	MPI_File_write_all(fh, data, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
#else
	write(3, data, n * sizeof(double));
#endif
	fclose(f);
	free(data);
	return 0;
}
