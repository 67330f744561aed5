/*
 * POSIX workload with exactly known counters (collector/posix_test.go):
 * DIR/basic.dat: 1000 writes of 100 bytes, then 10 sequential reads of 100
 * bytes, a seek to 5000, a read of 100, a pread of 200 at 10000, fstat,
 * dup, stat; renamed to DIR/renamed.dat, which gets a misaligned pwrite of
 * 10 bytes at 3, a writev of 2×8 bytes, fsync, fdatasync, mmap, unlink.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[4096] __attribute__((aligned(64)));

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char path[4096], path2[4096];
	struct stat st;
	check(argc == 2, "usage: basic DIR");
	snprintf(path, sizeof path, "%s/basic.dat", argv[1]);
	snprintf(path2, sizeof path2, "%s/renamed.dat", argv[1]);

	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0640);
	check(fd >= 0, "open");
	for (int i = 0; i < 1000; i++)
		check(write(fd, buf, 100) == 100, "write");
	check(close(fd) == 0, "close");

	fd = open(path, O_RDONLY);
	check(fd >= 0, "open");
	for (int i = 0; i < 10; i++)
		check(read(fd, buf, 100) == 100, "read");
	check(lseek(fd, 5000, SEEK_SET) == 5000, "lseek");
	check(read(fd, buf, 100) == 100, "read");
	check(pread(fd, buf, 200, 10000) == 200, "pread");
	check(fstat(fd, &st) == 0, "fstat");
	int fd2 = dup(fd);
	check(fd2 >= 0, "dup");
	check(close(fd2) == 0 && close(fd) == 0, "close");
	check(stat(path, &st) == 0, "stat");
	check(rename(path, path2) == 0, "rename");

	fd = open(path2, O_RDWR);
	check(fd >= 0, "open");
	check(pwrite(fd, buf + 1, 10, 3) == 10, "pwrite");
	struct iovec iov[2] = {{buf, 8}, {buf + 8, 8}};
	check(writev(fd, iov, 2) == 16, "writev");
	check(fsync(fd) == 0 && fdatasync(fd) == 0, "sync");
	void *p = mmap(NULL, 26, PROT_READ, MAP_SHARED, fd, 0);
	check(p != MAP_FAILED, "mmap");
	munmap(p, 26);
	check(close(fd) == 0, "close");
	check(unlink(path2) == 0, "unlink");
	return 0;
}
