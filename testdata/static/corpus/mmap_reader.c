/*
 * Memory-mapped reader: make_file() writes NPAGES pages with write();
 * scan() maps the file with mmap and sums every 64-bit word (the reads are
 * page faults, not system calls); histogram() bins the bytes of the map.
 * Usage: mmap_reader DIR [NPAGES]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define NPAGES 16384
#define PAGE 4096

static void make_file(const char *path, long npages)
{
	static uint64_t page[PAGE / 8];
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	for (long p = 0; p < npages; p++) {
		for (int i = 0; i < PAGE / 8; i++)
			page[i] = (uint64_t)(p * 512 + i);
		if (write(fd, page, PAGE) != PAGE)
			exit(1);
	}
	close(fd);
}

static uint64_t scan(const uint64_t *m, long words)
{
	uint64_t s = 0;
	for (long i = 0; i < words; i++)
		s += m[i] ^ (s >> 3);
	return s;
}

static long histogram(const unsigned char *m, long n, long *bins)
{
	for (long i = 0; i < n; i++)
		bins[m[i] >> 4]++;
	return bins[0];
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long npages = argc > 2 ? atol(argv[2]) : NPAGES;
	char path[4096];
	long bins[16] = {0};
	snprintf(path, sizeof path, "%s/mapped.bin", argv[1]);
	make_file(path, npages);
	int fd = open(path, O_RDONLY);
	size_t len = (size_t)npages * PAGE;
	void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	uint64_t s = scan(m, (long)(len / 8));
	long b0 = histogram(m, (long)len, bins);
	munmap(m, len);
	close(fd);
	printf("%llx %ld\n", (unsigned long long)s, b0);
	return 0;
}
