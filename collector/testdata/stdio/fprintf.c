/*
 * Formatted and character I/O on one file (expected STDIO counters of
 * <dir>/fprintf.dat): OPENS 2, WRITES 105, READS 106, SEEKS 0, FLUSHES 0,
 * BYTES_WRITTEN 1014, BYTES_READ 1014, MAX_BYTE_WRITTEN 1013,
 * MAX_BYTE_READ 1013. Built with and without -D_FORTIFY_SOURCE=2 (then
 * fprintf, vfprintf and fgets become __fprintf_chk, __vfprintf_chk and
 * __fgets_chk); the counters are the same.
 * Usage: fprintf [dir]
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int vwrite(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int main(int argc, char **argv)
{
	char path[4096], line[64];
	snprintf(path, sizeof path, "%s/fprintf.dat", argc > 1 ? argv[1] : ".");

	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	for (int i = 0; i < 100; i++)           /* 100 writes of 10 bytes */
		fprintf(f, "line %04d\n", i);
	const char *volatile abc = "abc\n";
	fputs(abc, f);                          /* 4 bytes */
	fputc('x', f);                          /* 1 */
	putc('y', f);                           /* 1 */
	putw(0x12345678, f);                    /* 4 */
	vwrite(f, "%s=%d\n", "k", 7);           /* 4: "k=7\n" */
	fclose(f);                              /* 105 writes, 1014 bytes */

	f = fopen(path, "r");
	if (!f)
		return 1;
	volatile int n = sizeof line;           /* a run-time size: __fgets_chk when fortified */
	for (int i = 0; i < 100; i++)           /* 100 reads of 10 bytes */
		if (!fgets(line, n, f) || strlen(line) != 10)
			return 1;
	if (!fgets(line, sizeof line, f))       /* 4 */
		return 1;
	if (fgetc(f) != 'x' || getc(f) != 'y')  /* 1 + 1 */
		return 1;
	if (getw(f) != 0x12345678)              /* 4 */
		return 1;
	char key[8];
	int val;
	if (fscanf(f, "%7[^=]=%d\n", key, &val) != 2 || val != 7) /* 4 */
		return 1;
	/* At the end of the file: only fscanf's EOF is counted (0 bytes). */
	if (fgetc(f) != EOF || fgets(line, sizeof line, f) || getw(f) != EOF)
		return 1;
	if (fscanf(f, "%d", &val) != EOF)
		return 1;
	fclose(f);                              /* 106 reads, 1014 bytes */
	return 0;
}
