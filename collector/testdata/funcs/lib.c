/* Shared library of the function-profiling workload: lib_dump() writes
 * LIB_BLOCKS blocks of 1 KiB through lib_block(). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define LIB_BLOCKS 50

static char buf[1024];

static __attribute__((noinline)) void lib_block(int fd)
{
	if (write(fd, buf, sizeof buf) != sizeof buf)
		perror("write");
}

void lib_dump(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/lib.dat", dir);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	for (int i = 0; i < LIB_BLOCKS; i++)
		lib_block(fd);
	close(fd);
}
