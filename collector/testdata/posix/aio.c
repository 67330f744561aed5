/*
 * POSIX asynchronous I/O: DIR/aio.dat gets an aio_write of 4096 bytes at
 * offset 8192 and an lio_listio of two writes of 100 bytes at 0 and 100;
 * then an aio_read of 100 bytes at 8192. Each request is awaited with
 * aio_suspend and collected with aio_return.
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[4096] __attribute__((aligned(64)));

static int wait_for(struct aiocb *cb, ssize_t want)
{
	const struct aiocb *list[1] = {cb};
	while (aio_error(cb) == EINPROGRESS)
		aio_suspend(list, 1, NULL);
	return aio_return(cb) == want ? 0 : 1;
}

int main(int argc, char **argv)
{
	char path[4096];
	if (argc != 2)
		return 2;
	snprintf(path, sizeof path, "%s/aio.dat", argv[1]);
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	struct aiocb w = {0}, r = {0}, l1 = {0}, l2 = {0};
	w.aio_fildes = fd, w.aio_buf = buf, w.aio_nbytes = 4096, w.aio_offset = 8192;
	if (aio_write(&w) != 0 || wait_for(&w, 4096))
		return 1;
	l1.aio_fildes = fd, l1.aio_buf = buf, l1.aio_nbytes = 100, l1.aio_offset = 0, l1.aio_lio_opcode = LIO_WRITE;
	l2 = l1;
	l2.aio_offset = 100;
	struct aiocb *list[2] = {&l1, &l2};
	if (lio_listio(LIO_WAIT, list, 2, NULL) != 0 || wait_for(&l1, 100) || wait_for(&l2, 100))
		return 1;
	r.aio_fildes = fd, r.aio_buf = buf, r.aio_nbytes = 100, r.aio_offset = 8192;
	if (aio_read(&r) != 0 || wait_for(&r, 100))
		return 1;
	close(fd);
	return 0;
}
