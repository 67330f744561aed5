/*
 * Block copy with read()/write(): make_source() writes SRC_MB MiB;
 * copy_file() copies it to a second file in BLOCK-byte blocks, and
 * crc_block() computes a checksum of every block copied (compute between
 * the reads and the writes).
 * Usage: copy_blocks DIR [SRC_MB]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SRC_MB 64
#define BLOCK 65536

static uint32_t crc_block(const unsigned char *b, ssize_t n)
{
	uint32_t c = 0xffffffffu;
	for (ssize_t i = 0; i < n; i++) {
		c ^= b[i];
		for (int k = 0; k < 2; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

static void make_source(const char *path, long mb)
{
	static unsigned char b[BLOCK];
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	for (long i = 0; i < mb * (1 << 20) / BLOCK; i++) {
		for (int k = 0; k < BLOCK; k += 64)
			b[k] = (unsigned char)(i + k);
		if (write(fd, b, BLOCK) != BLOCK)
			exit(1);
	}
	close(fd);
}

static uint32_t copy_file(const char *from, const char *to)
{
	static unsigned char b[BLOCK];
	int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	uint32_t crc = 0;
	ssize_t n;
	while ((n = read(in, b, BLOCK)) > 0) {
		crc ^= crc_block(b, n);
		if (write(out, b, (size_t)n) != n)
			exit(1);
	}
	close(in);
	close(out);
	return crc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long mb = argc > 2 ? atol(argv[2]) : SRC_MB;
	char src[4096], dst[4096];
	snprintf(src, sizeof src, "%s/source.bin", argv[1]);
	snprintf(dst, sizeof dst, "%s/copy.bin", argv[1]);
	make_source(src, mb);
	printf("%08x\n", copy_file(src, dst));
	return 0;
}
