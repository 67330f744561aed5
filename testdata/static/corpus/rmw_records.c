/*
 * Read-modify-write of fixed-size records: init_file() writes NREC
 * records of RECSZ bytes; update_pass() visits UPDATES records with a
 * stride, reads each with pread, changes it (modify) and writes it back
 * in place with pwrite; sync_file() calls fsync at the end.
 * Usage: rmw_records DIR [UPDATES]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NREC 4096
#define RECSZ 1024
#define UPDATES 150000
#define STRIDE 97

struct record {
	int64_t id;
	int64_t version;
	double value[(RECSZ - 16) / 8];
};

static void init_file(int fd)
{
	struct record r;
	memset(&r, 0, sizeof r);
	for (int i = 0; i < NREC; i++) {
		r.id = i;
		if (pwrite(fd, &r, sizeof r, (off_t)i * RECSZ) != sizeof r)
			exit(1);
	}
}

static void modify(struct record *r)
{
	r->version++;
	for (int k = 0; k < (RECSZ - 16) / 8; k++)
		r->value[k] = r->value[k] * 0.5 + (double)r->version;
}

static void update_pass(int fd, long updates)
{
	struct record r;
	for (long u = 0; u < updates; u++) {
		off_t off = (off_t)((u * STRIDE) % NREC) * RECSZ;
		if (pread(fd, &r, sizeof r, off) != sizeof r)
			exit(1);
		modify(&r);
		if (pwrite(fd, &r, sizeof r, off) != sizeof r)
			exit(1);
	}
}

static void sync_file(int fd)
{
	fsync(fd);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long updates = argc > 2 ? atol(argv[2]) : UPDATES;
	char path[4096];
	snprintf(path, sizeof path, "%s/records.db", argv[1]);
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	init_file(fd);
	update_pass(fd, updates);
	sync_file(fd);
	close(fd);
	return 0;
}
