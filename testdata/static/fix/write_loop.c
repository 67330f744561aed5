/*
 * Records written one small write() at a time: each record is a 24-byte
 * header followed by its payload, both written straight to the
 * descriptor, so every record costs two system calls.
 * Usage: write_loop DIR [NRECORDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NRECORDS 20000

struct header {
	long id;
	long length;
	long checksum;
};

static long checksum(const char *p, long n)
{
	long sum = 0;
	for (long i = 0; i < n; i++)
		sum = sum * 31 + p[i];
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NRECORDS;
	char path[4096];
	snprintf(path, sizeof path, "%s/records.bin", argv[1]);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	char payload[40];
	for (long i = 0; i < n; i++) {
		int len = snprintf(payload, sizeof payload, "record %ld", i);
		struct header h = { i, len, checksum(payload, len) };
		if (write(fd, &h, sizeof h) != (ssize_t)sizeof h) {
			perror("write");
			break;
		}
		if (write(fd, payload, (size_t)len) != len) {
			perror("write");
			break;
		}
	}
	if (close(fd) != 0) {
		perror("close");
		return 1;
	}
	return 0;
}
