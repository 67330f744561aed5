/*
 * Many small files: make_payload() fills FILESZ bytes, write_file()
 * creates, writes and closes one file; NFILES files are written into
 * NDIRS subdirectories, then sum_files() reopens and reads each.
 * Usage: small_files DIR [NFILES]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES 2000
#define NDIRS 10
#define FILESZ 1024

static void make_payload(char *buf, int k)
{
	for (int i = 0; i < FILESZ; i++)
		buf[i] = (char)('a' + (k + i) % 26);
}

static void write_file(const char *path, const char *buf)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, FILESZ) != FILESZ)
		exit(1);
	close(fd);
}

static long sum_files(const char *dir, int n)
{
	char path[4096], buf[FILESZ];
	long s = 0;
	for (int k = 0; k < n; k++) {
		snprintf(path, sizeof path, "%s/d%02d/f%05d.txt", dir, k % NDIRS, k);
		int fd = open(path, O_RDONLY);
		ssize_t r = read(fd, buf, sizeof buf);
		close(fd);
		for (ssize_t i = 0; i < r; i++)
			s += buf[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int n = argc > 2 ? atoi(argv[2]) : NFILES;
	char path[4096], buf[FILESZ];
	for (int d = 0; d < NDIRS; d++) {
		snprintf(path, sizeof path, "%s/d%02d", argv[1], d);
		mkdir(path, 0755);
	}
	for (int k = 0; k < n; k++) {
		make_payload(buf, k);
		snprintf(path, sizeof path, "%s/d%02d/f%05d.txt", argv[1], k % NDIRS, k);
		write_file(path, buf);
	}
	printf("%ld\n", sum_files(argv[1], n));
	return 0;
}
