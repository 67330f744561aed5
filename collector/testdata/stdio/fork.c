/*
 * A stream shared with a fork child. Expected STDIO counters of
 * <dir>/fork.dat: parent OPENS 1, WRITES 2, FLUSHES 1, BYTES_WRITTEN 40,
 * MAX_BYTE_WRITTEN 39; child (its own store) OPENS 0, WRITES 1, FLUSHES 1,
 * BYTES_WRITTEN 20, MAX_BYTE_WRITTEN 29 (the child starts at the parent's
 * offset 10).
 * Usage: fork [dir]
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[64];
	snprintf(path, sizeof path, "%s/fork.dat", argc > 1 ? argv[1] : ".");
	memset(buf, 'd', sizeof buf);

	FILE *f = fopen(path, "w");
	if (!f || fwrite(buf, 1, 10, f) != 10)
		return 1;
	fflush(f);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		fwrite(buf, 1, 20, f);
		fflush(f);
		_exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	fwrite(buf, 1, 30, f);
	fclose(f);
	return 0;
}
