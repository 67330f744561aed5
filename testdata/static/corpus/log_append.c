/*
 * Log appender that opens and closes the log for every record:
 * append_record() opens the file with O_APPEND, writes one formatted line
 * and closes it; process_item() does the work between records.
 * Usage: log_append DIR [NRECORDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NRECORDS 10000
#define WORK 2000

static double process_item(long i)
{
	double x = (double)i;
	for (int k = 0; k < WORK; k++)
		x = x * 0.999 + 1.0 / (1.0 + (double)k);
	return x;
}

static void append_record(const char *path, long i, double v)
{
	char line[128];
	int n = snprintf(line, sizeof line, "record %ld value %.6f\n", i, v);
	int fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		exit(1);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : NRECORDS;
	char path[4096];
	snprintf(path, sizeof path, "%s/app.log", argv[1]);
	for (long i = 0; i < n; i++)
		append_record(path, i, process_item(i));
	return 0;
}
