/*
 * Loops of small write()s that coalescing would change: one returns from
 * the middle of the loop, one seeks the descriptor between writes, one
 * writes to a descriptor other code can reach.
 */
#include <fcntl.h>
#include <unistd.h>

#define N 10000

static int logfd = -1;

static int early_return(int fd)
{
	for (int i = 0; i < N; i++) {
		if (write(fd, "x", 1) != 1)
			return -1;
	}
	return 0;
}

static void seeking(int fd)
{
	for (int i = 0; i < N; i++) {
		write(fd, "ab", 2);
		lseek(fd, 0, SEEK_SET);
	}
}

static void global_fd(void)
{
	for (int i = 0; i < N; i++)
		write(logfd, "y", 1);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0600);
	logfd = fd;
	early_return(fd);
	seeking(fd);
	global_fd();
	return close(fd);
}
