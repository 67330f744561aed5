/*
 * Buffered binary I/O on one file (expected STDIO counters of <dir>/rw.dat):
 * OPENS 2, FDOPENS 0, WRITES 1000, READS 1003, SEEKS 4, FLUSHES 2,
 * BYTES_WRITTEN 100000, BYTES_READ 100300, MAX_BYTE_WRITTEN 99999,
 * MAX_BYTE_READ 99999. No POSIX record (the C library opens the file itself).
 * Usage: rw [dir]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *must(FILE *f, const char *what)
{
	if (!f) {
		perror(what);
		exit(1);
	}
	return f;
}

int main(int argc, char **argv)
{
	char path[4096], buf[256];
	snprintf(path, sizeof path, "%s/rw.dat", argc > 1 ? argv[1] : ".");
	memset(buf, 'a', sizeof buf);

	FILE *f = must(fopen(path, "w"), "fopen w");
	for (int i = 0; i < 1000; i++)          /* 1000 writes of 100 bytes */
		if (fwrite(buf, 100, 1, f) != 1)
			return 1;
	fflush(f);                              /* 2 flushes */
	fflush(f);
	fclose(f);

	f = must(fopen(path, "r"), "fopen r");
	for (int i = 0; i < 1000; i++)          /* 1000 reads of 100 bytes */
		if (fread(buf, 1, 100, f) != 100)
			return 1;
	if (fread(buf, 1, 100, f) != 0)         /* at the end: not counted */
		return 1;
	fseek(f, 5000, SEEK_SET);               /* seek 1 */
	if (fread(buf, 100, 1, f) != 1)         /* read 1001: bytes 5000..5099 */
		return 1;
	rewind(f);                              /* seek 2 */
	fpos_t pos;
	fgetpos(f, &pos);                       /* not counted */
	fseeko(f, 0, SEEK_END);                 /* seek 3 */
	fsetpos(f, &pos);                       /* seek 4: back to 0 */
	volatile size_t n = 100;                /* not a compile-time constant */
	if (fread_unlocked(buf, 1, n, f) != 100) /* read 1002: bytes 0..99 */
		return 1;
	if (!fgets_unlocked(buf, 101, f))       /* read 1003: 100 bytes, no newline */
		return 1;
	if (ftell(f) != 200)                    /* not counted */
		return 1;
	fclose(f);
	return 0;
}
