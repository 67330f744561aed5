/*
 * Many small metadata operations: make_tree() creates NDIRS directories
 * and NFILES empty files spread over them (mkdir, open with O_CREAT,
 * close); stat_tree() stats every file and checks it with access();
 * reopen_tree() opens and closes every file again without reading;
 * name_digest() hashes all the path names many times (compute only);
 * remove_tree() unlinks the files and removes the directories.
 * Usage: meta_storm DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NDIRS 16
#define NFILES 800
#define DIGEST_ROUNDS 600

static void entry_path(char *buf, size_t n, const char *dir, int i)
{
	snprintf(buf, n, "%s/d%02d/entry_%05d.meta", dir, i % NDIRS, i);
}

static void make_tree(const char *dir)
{
	char path[4096];
	for (int d = 0; d < NDIRS; d++) {
		snprintf(path, sizeof path, "%s/d%02d", dir, d);
		mkdir(path, 0755);
	}
	for (int i = 0; i < NFILES; i++) {
		entry_path(path, sizeof path, dir, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			close(fd);
	}
}

static long stat_tree(const char *dir)
{
	char path[4096];
	struct stat st;
	long found = 0;
	for (int i = 0; i < NFILES; i++) {
		entry_path(path, sizeof path, dir, i);
		if (stat(path, &st) == 0 && access(path, R_OK) == 0)
			found++;
	}
	return found;
}

static int reopen_tree(const char *dir)
{
	char path[4096];
	int ok = 0;
	for (int i = 0; i < NFILES; i++) {
		entry_path(path, sizeof path, dir, i);
		int fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ok++;
			close(fd);
		}
	}
	return ok;
}

static unsigned long name_digest(const char *dir)
{
	char path[4096];
	unsigned long h = 1469598103934665603UL;
	for (int r = 0; r < DIGEST_ROUNDS; r++)
		for (int i = 0; i < NFILES; i += 3) {
			entry_path(path, sizeof path, dir, i);
			for (const char *p = path; *p; p++)
				h = (h ^ (unsigned char)*p) * 1099511628211UL;
		}
	return h;
}

static void remove_tree(const char *dir)
{
	char path[4096];
	for (int i = 0; i < NFILES; i++) {
		entry_path(path, sizeof path, dir, i);
		unlink(path);
	}
	for (int d = 0; d < NDIRS; d++) {
		snprintf(path, sizeof path, "%s/d%02d", dir, d);
		rmdir(path);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	make_tree(argv[1]);
	long found = stat_tree(argv[1]);
	int ok = reopen_tree(argv[1]);
	unsigned long h = name_digest(argv[1]);
	remove_tree(argv[1]);
	printf("%ld %d %lx\n", found, ok, h);
	return 0;
}
