/* Exactly known profile: compute() (arithmetic only) runs NCOMPUTE times;
 * dump() writes one 4 KiB block with write() and runs NDUMP times.
 * Usage: tiny DIR */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define NCOMPUTE 500
#define NDUMP 100
#define BLOCK 4096

static volatile double sink;

__attribute__((noinline)) double compute(int k)
{
	double s = 0;
	for (int i = 0; i < 5000; i++)
		s += (double)((i ^ k) % 13);
	return s;
}

__attribute__((noinline)) void dump(int fd)
{
	static char block[BLOCK];
	if (write(fd, block, BLOCK) != BLOCK)
		_exit(1);
}

int main(int argc, char **argv)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tiny.dat", argc > 1 ? argv[1] : ".");
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	for (int k = 0; k < NCOMPUTE; k++)
		sink += compute(k);
	for (int i = 0; i < NDUMP; i++)
		dump(fd);
	close(fd);
	return 0;
}
