/*
 * Collector overhead microbenchmark: N write(fd, buf, 64) calls, then N
 * pread calls of 64 bytes at pseudo-random 64-byte-aligned offsets, on the
 * file named by argv[1] (put it on tmpfs). Prints the mean nanoseconds per
 * call of each phase as "write_ns=<x> pread_ns=<y>".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [N]\n", argv[0]);
		return 2;
	}
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	char buf[64] = {0};
	int fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	double t0 = now();
	for (long i = 0; i < n; i++)
		if (write(fd, buf, sizeof buf) != sizeof buf)
			return 1;
	double t1 = now();
	uint64_t x = 88172645463325252ULL;
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, sizeof buf, (off_t)(x % (uint64_t)n) * 64) != sizeof buf)
			return 1;
	}
	double t2 = now();
	close(fd);
	unlink(argv[1]);
	printf("write_ns=%.1f pread_ns=%.1f\n", (t1 - t0) / n, (t2 - t1) / n);
	return 0;
}
