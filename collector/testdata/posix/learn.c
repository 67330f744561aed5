/*
 * POSIX workload of the access-sequence tests. Usage: learn FILE
 * Writes 1000 bytes to FILE (one write), then reads it back out of order:
 * pread 100 bytes at 0, 500 and 200, then read 50 bytes at the current
 * position (0, after a reopen).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[1000] = {0};
	if (argc != 2)
		return 2;
	int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf || close(fd) != 0)
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || pread(fd, buf, 100, 0) != 100 || pread(fd, buf, 100, 500) != 100 ||
	    pread(fd, buf, 100, 200) != 100 || close(fd) != 0)
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || read(fd, buf, 50) != 50 || close(fd) != 0)
		return 1;
	return 0;
}
