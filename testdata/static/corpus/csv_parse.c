/*
 * Sequential stdio reader and parser: write_csv() writes NROWS rows of
 * NCOLS numbers with fprintf; parse_csv() reads them back line by line
 * with fgets and converts the fields with strtod (parse_line);
 * summarize() computes column means and variances.
 * Usage: csv_parse DIR [NROWS]
 */
#include <stdio.h>
#include <stdlib.h>

#define NROWS 100000
#define NCOLS 8
#define LINE 512

static void write_csv(const char *path, long rows)
{
	FILE *f = fopen(path, "w");
	for (long r = 0; r < rows; r++) {
		for (int c = 0; c < NCOLS; c++)
			fprintf(f, c ? ",%.4f" : "%.4f", (double)((r * 31 + c * 17) % 1000) / 7.0);
		fputc('\n', f);
	}
	fclose(f);
}

static int parse_line(char *line, double *v)
{
	int n = 0;
	char *p = line, *end;
	while (n < NCOLS) {
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

static long parse_csv(const char *path, double *sum, double *sq)
{
	FILE *f = fopen(path, "r");
	char line[LINE];
	double v[NCOLS];
	long rows = 0;
	while (fgets(line, sizeof line, f)) {
		if (parse_line(line, v) != NCOLS)
			continue;
		for (int c = 0; c < NCOLS; c++) {
			sum[c] += v[c];
			sq[c] += v[c] * v[c];
		}
		rows++;
	}
	fclose(f);
	return rows;
}

static double summarize(const double *sum, const double *sq, long rows)
{
	double total = 0;
	for (int c = 0; c < NCOLS; c++) {
		double mean = sum[c] / (double)rows;
		total += sq[c] / (double)rows - mean * mean;
	}
	return total;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long rows = argc > 2 ? atol(argv[2]) : NROWS;
	char path[4096];
	double sum[NCOLS] = {0}, sq[NCOLS] = {0};
	snprintf(path, sizeof path, "%s/table.csv", argv[1]);
	write_csv(path, rows);
	long n = parse_csv(path, sum, sq);
	printf("%ld %.3f\n", n, summarize(sum, sq, n));
	return 0;
}
