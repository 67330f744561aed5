/*
 * Log appender with a compute loop: the log is opened once in append mode
 * (stdio buffering as is); for each of NEVENTS events integrate() advances
 * a damped oscillator by a few hundred RK4 steps (compute), and
 * log_event() appends one line of several formatted fields with fprintf.
 * Every BANNER_EVERY events log_banner() writes a block of header lines,
 * and every CHECK_EVERY events check_size() stats the log file (the size
 * a log rotation would look at).
 * Usage: event_log DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define NEVENTS 40000
#define RK_STEPS 60
#define BANNER_EVERY 5000
#define CHECK_EVERY 1000

struct osc {
	double x, v, t;
};

static void integrate(struct osc *o)
{
	const double h = 1e-3, c = 0.05;
	for (int s = 0; s < RK_STEPS; s++) {
		double x = o->x, v = o->v;
		double k1x = v, k1v = -x - c * v;
		double k2x = v + h / 2 * k1v, k2v = -(x + h / 2 * k1x) - c * k2x;
		double k3x = v + h / 2 * k2v, k3v = -(x + h / 2 * k2x) - c * k3x;
		double k4x = v + h * k3v, k4v = -(x + h * k3x) - c * k4x;
		o->x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
		o->v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
		o->t += h;
	}
}

static void log_event(FILE *log, long id, const struct osc *o)
{
	fprintf(log, "event=%ld t=%.6f x=%+.9e v=%+.9e e=%.9e level=%s\n", id, o->t, o->x, o->v,
		0.5 * (o->x * o->x + o->v * o->v), id % 7 == 0 ? "warn" : "info");
}

static void log_banner(FILE *log, long id)
{
	for (int i = 0; i < 8; i++)
		fprintf(log, "# ---- checkpoint %ld, line %d ----\n", id, i);
}

static long check_size(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	return (long)st.st_size;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/events.log", argv[1]);
	FILE *log = fopen(path, "a");
	if (!log)
		return 1;
	struct osc o = {1, 0, 0};
	long size = 0;
	for (long id = 1; id <= NEVENTS; id++) {
		integrate(&o);
		log_event(log, id, &o);
		if (id % BANNER_EVERY == 0)
			log_banner(log, id);
		if (id % CHECK_EVERY == 0)
			size = check_size(path);
	}
	fclose(log);
	printf("%.6e %ld\n", o.x, size);
	return 0;
}
