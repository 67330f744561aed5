/*
 * Function-profiling workload, built with -finstrument-functions:
 *   prof DIR MODE
 * compute() (arithmetic only) runs COMPUTE_CALLS times, dump() writes
 * BLOCKS blocks of BLOCK bytes with write(), fib(FIB_N) recurses, and
 * lib_dump() (in libprof.so, when linked) writes LIB_BLOCKS blocks.
 * MODE "exit" leaves through exit() from inside leave(); "fork" runs dump()
 * in a fork child too.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define COMPUTE_CALLS 1000
#define BLOCKS 100
#define BLOCK 4096
#define FIB_N 15

void lib_dump(const char *dir);

static volatile double sink;

__attribute__((noinline)) double compute(int k)
{
	double s = 0;
	for (int i = 0; i < 2000; i++)
		s += (double)((i * k) % 7);
	return s;
}

__attribute__((noinline)) void dump(const char *dir, const char *name)
{
	static char buf[BLOCK];
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < BLOCKS; i++)
		if (write(fd, buf, sizeof buf) != sizeof buf)
			exit(1);
	close(fd);
}

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) void leave(const char *dir)
{
	dump(dir, "last.dat");
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	for (int k = 0; k < COMPUTE_CALLS; k++)
		sink += compute(k);
	dump(argv[1], "dump.dat");
	sink += fib(FIB_N);
	if (!strcmp(argv[2], "lib"))
		lib_dump(argv[1]);
	if (!strcmp(argv[2], "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			dump(argv[1], "child.dat");
			return 0;
		}
		waitpid(pid, NULL, 0);
	}
	if (!strcmp(argv[2], "exit"))
		leave(argv[1]);
	return 0;
}
