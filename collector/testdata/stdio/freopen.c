/*
 * freopen of the standard streams, stdin readers, getline, scanf and the
 * unlocked variants. Expected STDIO counters: <dir>/in.dat OPENS 2 (fopen
 * and freopen), WRITES 3, BYTES_WRITTEN 19, MAX_BYTE_WRITTEN 18, READS 9,
 * BYTES_READ 19, MAX_BYTE_READ 18; <dir>/out.dat OPENS 1, WRITES 4,
 * BYTES_WRITTEN 32, MAX_BYTE_WRITTEN 31, FLUSHES 1; <STDIN>, <STDOUT>,
 * <STDERR> OPENS 1 and nothing else.
 * Usage: freopen [dir]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char in[4096], out[4096], buf[32];
	const char *dir = argc > 1 ? argv[1] : ".";
	snprintf(in, sizeof in, "%s/in.dat", dir);
	snprintf(out, sizeof out, "%s/out.dat", dir);
	memset(buf, 'c', sizeof buf);

	FILE *f = fopen(in, "w");
	if (!f)
		return 1;
	const char *volatile lines[3] = {"abcdef\n", "12 34\n", "line3\n"};
	for (int i = 0; i < 3; i++)             /* 7 + 6 + 6 bytes */
		fprintf(f, "%s", lines[i]);
	fclose(f);

	if (!freopen(in, "r", stdin))
		return 1;
	for (int i = 0; i < 7; i++)             /* 7 reads of 1 byte */
		if (getchar() != "abcdef\n"[i])
			return 1;
	int a, b;
	if (scanf("%d %d\n", &a, &b) != 2 || a != 12 || b != 34) /* 6 bytes */
		return 1;
	char *line = NULL;
	size_t cap = 0;
	if (getline(&line, &cap, stdin) != 6)   /* 6 bytes */
		return 1;
	if (getline(&line, &cap, stdin) != -1)  /* end of file: not counted */
		return 1;
	free(line);

	if (!freopen(out, "w", stdout))
		return 1;
	printf("%d\n", 7);                      /* 2 */
	const char *volatile u = "unlocked\n";
	fputs_unlocked(u, stdout);              /* 9 */
	volatile size_t n = 20;
	fwrite_unlocked(buf, 1, n, stdout);     /* 20 */
	int (*volatile pc)(int, FILE *) = fputc_unlocked; /* a call, not the inline macro */
	pc('!', stdout);                        /* 1 */
	fflush_unlocked(stdout);                /* 1 flush */
	return 0;
}
