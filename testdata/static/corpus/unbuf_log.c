/*
 * Tiny unbuffered logging: simulate() advances a particle system for
 * NSTEPS steps; after every step log_event() formats a short line and
 * writes it with one write() call on an O_APPEND descriptor (no
 * buffering); energy() is pure arithmetic.
 * Usage: unbuf_log DIR [NSTEPS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSTEPS 100000
#define NPART 64

static double pos[NPART], vel[NPART];

static double energy(void)
{
	double e = 0;
	for (int i = 0; i < NPART; i++)
		e += 0.5 * vel[i] * vel[i];
	return e;
}

static void advance(double dt)
{
	for (int i = 0; i < NPART; i++) {
		vel[i] -= pos[i] * dt;
		pos[i] += vel[i] * dt;
	}
}

static void log_event(int fd, long step, double e)
{
	char line[96];
	int n = snprintf(line, sizeof line, "step %ld energy %.6f\n", step, e);
	if (write(fd, line, (size_t)n) != n)
		exit(1);
}

static void simulate(int fd, long steps)
{
	for (long s = 0; s < steps; s++) {
		advance(0.001);
		log_event(fd, s, energy());
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long steps = argc > 2 ? atol(argv[2]) : NSTEPS;
	char path[4096];
	snprintf(path, sizeof path, "%s/events.log", argv[1]);
	for (int i = 0; i < NPART; i++)
		pos[i] = (double)i / NPART;
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_APPEND, 0644);
	simulate(fd, steps);
	close(fd);
	return 0;
}
