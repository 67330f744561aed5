/*
 * A flushing streamer next to a one-shot reader: stream_blocks() writes
 * NBLOCKS blocks of BLOCK (4 KiB) bytes with fwrite, each followed by
 * fflush (one write() per block); fill_block() computes each block first;
 * peek_header() opens the stream file and reads its first 64 bytes once;
 * checksum_blocks() regenerates blocks and folds them into a checksum
 * without touching the file (compute only); write_manifest() writes a
 * three-line description of the stream once.
 * Usage: flush_peek DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBLOCKS 2000
#define BLOCK 4096
#define HEADER 64

static void fill_block(unsigned char *b, int k)
{
	unsigned int s = 2166136261u ^ (unsigned int)k;
	for (int i = 0; i < BLOCK; i++) {
		s = s * 16777619u + 0x9e3779b9u;
		b[i] = (unsigned char)(s >> 24);
	}
}

static void stream_blocks(const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		exit(1);
	unsigned char *b = malloc(BLOCK);
	for (int k = 0; k < NBLOCKS; k++) {
		fill_block(b, k);
		fwrite(b, 1, BLOCK, f);
		fflush(f);
	}
	free(b);
	fclose(f);
}

static unsigned peek_header(const char *path)
{
	unsigned char h[HEADER];
	FILE *f = fopen(path, "rb");
	if (!f)
		exit(1);
	size_t n = fread(h, 1, HEADER, f);
	fclose(f);
	unsigned s = 0;
	for (size_t i = 0; i < n; i++)
		s = s * 31 + h[i];
	return s;
}

static void write_manifest(const char *dir, unsigned h)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/stream.manifest", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		exit(1);
	fprintf(f, "blocks %d\nblock_size %d\nheader_hash %u\n", NBLOCKS, BLOCK, h);
	fclose(f);
}

static unsigned long checksum_blocks(int rounds)
{
	unsigned char *b = malloc(BLOCK);
	unsigned long sum = 0;
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < NBLOCKS; k += 4) {
			fill_block(b, k + r);
			for (int i = 0; i < BLOCK; i += 8)
				sum += b[i] * (unsigned long)(i + 1);
		}
	free(b);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/stream.bin", argv[1]);
	stream_blocks(path);
	unsigned h = peek_header(path);
	write_manifest(argv[1], h);
	unsigned long c = checksum_blocks(6);
	printf("%u %lu\n", h, c);
	return 0;
}
