/*
 * File-system metadata calls Darshan does not record, each in a function
 * that does nothing else: mkdir and rmdir, access, truncate and
 * ftruncate, posix_fallocate, stdio's remove, and msync of a shared
 * mapping (N/10 synchronous flushes of one dirtied page).
 * Usage: fsmeta DIR N (N: calls of each kind)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char paths[4][4096];

static void make_dirs(const char *dir, int n)
{
	char p[4096];
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/d%d", dir, i);
		if (mkdir(p, 0700) != 0)
			exit(3);
	}
}

static void remove_dirs(const char *dir, int n)
{
	char p[4096];
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/d%d", dir, i);
		if (rmdir(p) != 0)
			exit(4);
	}
}

static int check_access(int n)
{
	int ok = 0;
	for (int i = 0; i < n; i++)
		ok += access(paths[i % 4], R_OK) == 0;
	return ok;
}

static void resize(int fd, int n)
{
	for (int i = 0; i < n; i++) {
		if (ftruncate(fd, (off_t)(i % 64) * 4096) != 0 || truncate(paths[0], (off_t)(i % 32) * 512) != 0)
			exit(5);
	}
}

static void preallocate(int fd, int n)
{
	for (int i = 0; i < n; i++)
		if (posix_fallocate(fd, 0, (off_t)(i % 16 + 1) * 4096) != 0)
			exit(6);
}

static void remove_files(const char *dir, int n)
{
	char p[4096];
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/f%d", dir, i);
		FILE *f = fopen(p, "w");
		if (!f)
			exit(7);
		fclose(f);
	}
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/f%d", dir, i);
		if (remove(p) != 0)
			exit(8);
	}
}

static void sync_mapping(char *map, int n)
{
	for (int i = 0; i < n; i++) {
		map[(size_t)(i % 16) * 4096] = (char)i;
		if (msync(map, 16 * 4096, MS_SYNC) != 0)
			exit(9);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int n = atoi(argv[2]);
	for (int i = 0; i < 4; i++)
		snprintf(paths[i], sizeof paths[i], "%s/p%d", argv[1], i);
	int fd = open(paths[0], O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return 1;
	for (int i = 1; i < 4; i++)
		close(open(paths[i], O_RDWR | O_CREAT, 0600));
	make_dirs(argv[1], n);
	remove_dirs(argv[1], n);
	printf("%d\n", check_access(n));
	resize(fd, n);
	preallocate(fd, n);
	remove_files(argv[1], n);
	if (ftruncate(fd, 16 * 4096) != 0)
		return 1;
	char *map = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	sync_mapping(map, n / 10);
	munmap(map, 16 * 4096);
	close(fd);
	return 0;
}
