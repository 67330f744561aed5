/*
 * POSIX workload of the prefetch tests. Usage: posix_reads FILE PAUSE_MS
 * Reads six 4096-byte blocks of FILE (at least 32 KiB) in the order
 * 5, 2, 7, 0, 3, 6, computing (sleeping) PAUSE_MS milliseconds before
 * each read: an order that sequential readahead cannot guess.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const int order[] = {5, 2, 7, 0, 3, 6};
	char buf[4096];
	if (argc != 3) {
		fprintf(stderr, "usage: posix_reads FILE PAUSE_MS\n");
		return 2;
	}
	long ms = atol(argv[2]);
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < 6; i++) {
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		if (pread(fd, buf, sizeof buf, (off_t)order[i] * 4096) != (ssize_t)sizeof buf) {
			perror("pread");
			return 1;
		}
	}
	return close(fd) != 0;
}
