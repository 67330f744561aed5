/*
 * Small buffered writes and reads in loops: one short line per record with
 * fprintf, then the file read back line by line with fgets.
 * Usage: small_writes DIR [NREC]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 50000

static long write_records(const char *path, long n)
{
	FILE *out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	for (long i = 0; i < n; i++)
		fprintf(out, "%ld,%ld\n", i, (i * 7919) % 1000);
	fclose(out);
	return n;
}

static long sum_records(const char *path)
{
	FILE *in = fopen(path, "r");
	char line[64];
	long sum = 0;
	while (fgets(line, sizeof line, in))
		sum += atol(strchr(line, ',') + 1);
	fclose(in);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NREC;
	char path[4096];
	snprintf(path, sizeof path, "%s/records.csv", argv[1]);
	if (write_records(path, n) < 0)
		return 1;
	snprintf(path, sizeof path, "%s/sum.txt", argv[1]);
	FILE *s = fopen(path, "w");
	snprintf(path, sizeof path, "%s/records.csv", argv[1]);
	fprintf(s, "%ld\n", sum_records(path));
	fclose(s);
	return 0;
}
