/*
 * Progress log flushed in every iteration: fflush after each fprintf, and
 * an fsync of a second file after each write().
 * Usage: flush_loop DIR [NITER]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NITER 2000

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NITER;
	char path[4096];
	snprintf(path, sizeof path, "%s/progress.txt", argv[1]);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return 1;
	double x = 1.0;
	for (long it = 0; it < n; it++) {
		x = 0.5 * (x + 2.0 / x);
		fprintf(f, "%ld %.12f\n", it, x);
		fflush(f);
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/journal.bin", argv[1]);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (long it = 0; it < n / 10; it++) {
		if (write(fd, &it, sizeof it) != sizeof it)
			return 1;
		fsync(fd);
	}
	close(fd);
	return 0;
}
