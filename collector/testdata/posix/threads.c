/*
 * 8 threads at once: each does 1000 pwrites of 64 bytes into DIR/shared.dat
 * (its own 64000-byte slice) and 1000 writes of 64 bytes into its own file
 * DIR/thread<i>.dat.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 8
#define OPS 1000

static const char *dir;
static int shared;

static void *work(void *arg)
{
	long id = (long)arg;
	char buf[64] = {0}, path[4096];
	snprintf(path, sizeof path, "%s/thread%ld.dat", dir, id);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		exit(1);
	for (int i = 0; i < OPS; i++) {
		if (pwrite(shared, buf, 64, (off_t)(id * OPS + i) * 64) != 64 || write(fd, buf, 64) != 64)
			exit(1);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t t[THREADS];
	if (argc != 2)
		return 2;
	dir = argv[1];
	snprintf(path, sizeof path, "%s/shared.dat", dir);
	shared = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (shared < 0)
		return 1;
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	close(shared);
	return 0;
}
