/*
 * fdopen and fileno (expected counters of <dir>/fdopen.dat): STDIO OPENS 2,
 * FDOPENS 1, WRITES 1, READS 1, BYTES_WRITTEN 50, BYTES_READ 60,
 * MAX_BYTE_WRITTEN 49 (the stream's offset starts at 0, not at the
 * descriptor's position 10), MAX_BYTE_READ 59, SEEKS 0, FLUSHES 0; POSIX
 * OPENS 2, FILENOS 1, WRITES 1, BYTES_WRITTEN 10. A stream fdopen'ed on a pipe
 * is not tracked: no other STDIO record than the standard streams.
 * Usage: fdopen [dir]
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[100];
	snprintf(path, sizeof path, "%s/fdopen.dat", argc > 1 ? argv[1] : ".");
	memset(buf, 'b', sizeof buf);

	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "0123456789", 10) != 10)
		return 1;
	FILE *f = fdopen(fd, "w");
	if (!f || fwrite(buf, 1, 50, f) != 50)
		return 1;
	fclose(f);

	f = fopen(path, "r");
	if (!f || fileno(f) < 0)
		return 1;
	if (fread(buf, 1, sizeof buf, f) != 60)
		return 1;
	fclose(f);

	int p[2];
	if (pipe(p) != 0)
		return 1;
	f = fdopen(p[1], "w");
	if (!f)
		return 1;
	fwrite("pipe", 1, 4, f);
	fclose(f);
	close(p[0]);
	return 0;
}
