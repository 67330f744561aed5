/*
 * External merge sort: generate() writes NKEYS pseudo-random 64-bit keys
 * to an input file; make_runs() reads it RUN_KEYS at a time, sorts each
 * chunk in memory (sort_chunk, a shell sort) and writes it to a temporary run file;
 * merge_runs() merges the runs with a k-way merge into the output file;
 * verify() reads the output back and checks the order.
 * Usage: extsort DIR [NKEYS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NKEYS 1000000
#define RUN_KEYS 125000
#define MAX_RUNS 64
#define IOBUF 4096

static uint64_t next_key(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void generate(const char *path, long n)
{
	FILE *f = fopen(path, "wb");
	uint64_t x = 88172645463325252ULL, buf[IOBUF];
	for (long i = 0; i < n; i += IOBUF) {
		long m = n - i < IOBUF ? n - i : IOBUF;
		for (long j = 0; j < m; j++)
			buf[j] = next_key(&x);
		fwrite(buf, sizeof buf[0], (size_t)m, f);
	}
	fclose(f);
}

/* Shell sort with Ciura's gaps extended by x2.25 (in place, no calls). */
static void sort_chunk(uint64_t *keys, long n)
{
	static const long gaps[] = {1, 4, 10, 23, 57, 132, 301, 701, 1577, 3548, 7983, 17961, 40412};
	for (int g = (int)(sizeof gaps / sizeof gaps[0]) - 1; g >= 0; g--) {
		long h = gaps[g];
		for (long i = h; i < n; i++) {
			uint64_t x = keys[i];
			long j = i;
			for (; j >= h && keys[j - h] > x; j -= h)
				keys[j] = keys[j - h];
			keys[j] = x;
		}
	}
}

static int make_runs(const char *dir, const char *input, uint64_t *chunk)
{
	FILE *in = fopen(input, "rb");
	char path[4096];
	int runs = 0;
	size_t n;
	while (runs < MAX_RUNS && (n = fread(chunk, sizeof chunk[0], RUN_KEYS, in)) > 0) {
		sort_chunk(chunk, (long)n);
		snprintf(path, sizeof path, "%s/run%03d.tmp", dir, runs++);
		FILE *out = fopen(path, "wb");
		fwrite(chunk, sizeof chunk[0], n, out);
		fclose(out);
	}
	fclose(in);
	return runs;
}

static void merge_runs(const char *dir, int runs, const char *output)
{
	FILE *in[MAX_RUNS], *out = fopen(output, "wb");
	uint64_t head[MAX_RUNS];
	int live[MAX_RUNS];
	char path[4096];
	for (int r = 0; r < runs; r++) {
		snprintf(path, sizeof path, "%s/run%03d.tmp", dir, r);
		in[r] = fopen(path, "rb");
		live[r] = fread(&head[r], sizeof head[r], 1, in[r]) == 1;
	}
	for (;;) {
		int best = -1;
		for (int r = 0; r < runs; r++)
			if (live[r] && (best < 0 || head[r] < head[best]))
				best = r;
		if (best < 0)
			break;
		fwrite(&head[best], sizeof head[best], 1, out);
		live[best] = fread(&head[best], sizeof head[best], 1, in[best]) == 1;
	}
	for (int r = 0; r < runs; r++) {
		fclose(in[r]);
		snprintf(path, sizeof path, "%s/run%03d.tmp", dir, r);
		remove(path);
	}
	fclose(out);
}

static long verify(const char *output)
{
	FILE *f = fopen(output, "rb");
	uint64_t prev = 0, buf[IOBUF];
	long n = 0, bad = 0;
	size_t m;
	while ((m = fread(buf, sizeof buf[0], IOBUF, f)) > 0)
		for (size_t i = 0; i < m; i++, n++) {
			bad += buf[i] < prev;
			prev = buf[i];
		}
	fclose(f);
	return bad ? -1 : n;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NKEYS;
	char input[4096], output[4096];
	snprintf(input, sizeof input, "%s/keys.in", argv[1]);
	snprintf(output, sizeof output, "%s/keys.out", argv[1]);
	uint64_t *chunk = malloc(RUN_KEYS * sizeof *chunk);
	generate(input, n);
	int runs = make_runs(argv[1], input, chunk);
	merge_runs(argv[1], runs, output);
	free(chunk);
	return verify(output) == n ? 0 : 1;
}
