/*
 * Standard streams (expected STDIO counters): <STDOUT> OPENS 1, WRITES 5,
 * FLUSHES 1, BYTES_WRITTEN 23, MAX_BYTE_WRITTEN 22; <STDERR> OPENS 1,
 * WRITES 2, BYTES_WRITTEN 10, MAX_BYTE_WRITTEN 9; <STDIN> OPENS 1 and
 * nothing else (left out of a merged log). fileno(stdout) creates the POSIX
 * record <STDOUT> with OPENS 1, FILENOS 1. Built with and without
 * -D_FORTIFY_SOURCE=2 (printf then becomes __printf_chk).
 * Usage: stdout
 */
#include <stdarg.h>
#include <stdio.h>

static int vout(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int main(void)
{
	printf("hello %d\n", 42);               /* 9: "hello 42\n" */
	printf("plain\n");                      /* 6 (the compiler calls puts("plain")) */
	puts("abc");                            /* 4: "abc\n" */
	putchar('z');                           /* 1 */
	fflush(stdout);                         /* 1 flush */
	vout("v%d\n", 1);                       /* 3: "v1\n" */
	fputs("err\n", stderr);                 /* 4 (the compiler calls fwrite) */
	fprintf(stderr, "%d\n", 12345);         /* 6 */
	return fileno(stdout) == 1 ? 0 : 1;
}
