/*
 * Sequential reader: a file written in one call, then read back 512 bytes
 * at a time with read() and checksummed.
 * Usage: seq_read DIR [SIZE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <fcntl.h>

#define SIZE (4L << 20)
#define REC 512

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long size = argc > 2 ? atol(argv[2]) : SIZE;
	char path[4096];
	snprintf(path, sizeof path, "%s/data.bin", argv[1]);
	unsigned char *data = malloc(size);
	for (long i = 0; i < size; i++)
		data[i] = (unsigned char)(i * 131 % 251);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != size)
		return 1;
	close(fd);
	free(data);

	int in = open(path, O_RDONLY);
	if (in == -1)
		return 1;
	unsigned char rec[REC];
	unsigned long sum = 0;
	for (long off = 0; off < size; off += REC) {
		if (read(in, rec, REC) != REC)
			break;
		for (int k = 0; k < REC; k++)
			sum = sum * 31 + rec[k];
	}
	close(in);
	snprintf(path, sizeof path, "%s/sum.txt", argv[1]);
	FILE *s = fopen(path, "w");
	fprintf(s, "%lu\n", sum);
	fclose(s);
	return 0;
}
