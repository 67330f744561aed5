/*
 * Crash test workload: writes 100 bytes to DIR/crash.dat in a loop and
 * reports the number of completed writes on stdout (4-byte counts) after
 * each. With "step", it then waits for one byte on stdin before the next
 * write, so a parent can kill it at a known count.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[100] = {0}, ack;
	if (argc != 3)
		return 2;
	int step = strcmp(argv[2], "step") == 0;
	snprintf(path, sizeof path, "%s/crash.dat", argv[1]);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	for (unsigned n = 1; n <= 10000000; n++) {
		if (write(fd, buf, 100) != 100)
			return 1;
		if (write(1, &n, sizeof n) != sizeof n)
			return 1;
		if (step && read(0, &ack, 1) != 1)
			return 1;
	}
	return 0;
}
