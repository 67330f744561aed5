/*
 * Buffered binary output: produce() fills a record of NFIELDS doubles by
 * arithmetic; write_records() writes NRECORDS records one fwrite each
 * through a stdio buffer of BUFSZ bytes (setvbuf).
 * Usage: buffered_fwrite DIR [NRECORDS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NRECORDS 1000000
#define NFIELDS 16
#define BUFSZ (1 << 16)

static void produce(long i, double *rec)
{
	for (int k = 0; k < NFIELDS; k++)
		rec[k] = sqrt((double)(i * NFIELDS + k));
}

static void write_records(const char *path, long n)
{
	FILE *f = fopen(path, "wb");
	static char buf[BUFSZ];
	double rec[NFIELDS];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	for (long i = 0; i < n; i++) {
		produce(i, rec);
		fwrite(rec, sizeof rec[0], NFIELDS, f);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NRECORDS;
	char path[4096];
	snprintf(path, sizeof path, "%s/records.bin", argv[1]);
	write_records(path, n);
	return 0;
}
