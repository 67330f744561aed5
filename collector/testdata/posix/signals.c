/*
 * I/O from a signal handler while the program does I/O: SIGALRM fires every
 * 50 µs and its handler writes 1 byte to DIR/handler.dat; the main loop
 * writes 20000 × 10 bytes to DIR/main.dat. Prints the number of handler
 * writes on stdout.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

static int hfd;
static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	if (write(hfd, "x", 1) == 1)
		handled++;
}

int main(int argc, char **argv)
{
	char path[4096], buf[10] = {0};
	if (argc != 2)
		return 2;
	snprintf(path, sizeof path, "%s/handler.dat", argv[1]);
	hfd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	snprintf(path, sizeof path, "%s/main.dat", argv[1]);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0 || hfd < 0)
		return 1;
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 20000; i++)
		if (write(fd, buf, sizeof buf) != sizeof buf)
			return 1;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%d\n", (int)handled);
	return 0;
}
