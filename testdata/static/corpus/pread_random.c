/*
 * Random-access reader: make_file() writes NREC records of RECSZ bytes
 * with write(); random_reads() reads NREADS records at pseudo-random
 * record offsets with pread(); checksum() folds every record read.
 * Usage: pread_random DIR [NREADS]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NREC 16384
#define RECSZ 512
#define NREADS 100000

static void make_file(const char *path)
{
	char rec[RECSZ];
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	for (int i = 0; i < NREC; i++) {
		for (int j = 0; j < RECSZ; j++)
			rec[j] = (char)(i + j);
		if (write(fd, rec, RECSZ) != RECSZ)
			exit(1);
	}
	close(fd);
}

static uint64_t checksum(const unsigned char *rec)
{
	uint64_t h = 1469598103934665603ULL;
	for (int j = 0; j < RECSZ; j++)
		h = (h ^ rec[j]) * 1099511628211ULL;
	return h;
}

static uint64_t random_reads(const char *path, long n)
{
	unsigned char rec[RECSZ];
	uint64_t x = 2463534242ULL, sum = 0;
	int fd = open(path, O_RDONLY);
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		off_t off = (off_t)(x % NREC) * RECSZ;
		if (pread(fd, rec, RECSZ, off) != RECSZ)
			exit(1);
		sum += checksum(rec);
	}
	close(fd);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NREADS;
	char path[4096];
	snprintf(path, sizeof path, "%s/records.bin", argv[1]);
	make_file(path);
	printf("%llx\n", (unsigned long long)random_reads(path, n));
	return 0;
}
