/*
 * fork without exec: the parent writes 10×100 bytes to DIR/a.dat, forks; the
 * child writes 20×100 bytes through the inherited descriptor, 5×10 bytes to
 * DIR/b.dat, and leaves with _exit; the parent then writes 1 more time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char a[4096], b[4096], buf[100] = {0};
	if (argc != 2)
		return 2;
	snprintf(a, sizeof a, "%s/a.dat", argv[1]);
	snprintf(b, sizeof b, "%s/b.dat", argv[1]);
	int fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	for (int i = 0; i < 10; i++)
		write(fd, buf, 100);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 20; i++)
			write(fd, buf, 100);
		int fd2 = open(b, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		for (int i = 0; i < 5; i++)
			write(fd2, buf, 10);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	write(fd, buf, 100);
	close(fd);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
