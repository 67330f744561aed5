/*
 * Checkpoint/restart: load_checkpoint() opens DIR/state.ckpt and, when it
 * exists, reads the step number and the particle state back with read();
 * advance() moves NPART particles in an anharmonic well by one step of
 * SUBSTEPS leapfrog substeps; save_checkpoint() writes the state with
 * write() to a temporary file every SAVE_EVERY steps, fsyncs it and
 * renames it over state.ckpt. The run is two jobs of run_job(): the first
 * starts from scratch (no checkpoint yet) and stops at STEPS/2, the second
 * restarts from the checkpoint and goes on to STEPS.
 * Usage: ckpt_restart DIR
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NPART 65536
#define STEPS 160
#define SAVE_EVERY 20
#define SUBSTEPS 8
#define CHUNK 65536

struct state {
	long step;
	double x[NPART], v[NPART];
};

static void init_state(struct state *s)
{
	s->step = 0;
	for (int i = 0; i < NPART; i++) {
		s->x[i] = (double)(i % 97) / 97.0 - 0.5;
		s->v[i] = 0;
	}
}

static int load_checkpoint(const char *dir, struct state *s)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/state.ckpt", dir);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		init_state(s);
		return 0;
	}
	char *p = (char *)s;
	size_t left = sizeof *s;
	while (left > 0) {
		ssize_t n = read(fd, p, left < CHUNK ? left : CHUNK);
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
	close(fd);
	return left == 0;
}

static void advance(struct state *s)
{
	const double dt = 1e-3;
	for (int k = 0; k < SUBSTEPS; k++)
		for (int i = 0; i < NPART; i++) {
			double x = s->x[i];
			double a = -x - 4.0 * x * x * x - 0.01 * s->v[i] * fabs(s->v[i]);
			s->v[i] += dt * a;
			s->x[i] += dt * s->v[i];
		}
}

static void save_checkpoint(const char *dir, const struct state *s)
{
	char tmp[4096], path[4096];
	snprintf(tmp, sizeof tmp, "%s/state.ckpt.tmp", dir);
	snprintf(path, sizeof path, "%s/state.ckpt", dir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		exit(1);
	const char *p = (const char *)s;
	size_t left = sizeof *s;
	while (left > 0) {
		ssize_t n = write(fd, p, left < CHUNK ? left : CHUNK);
		if (n <= 0)
			exit(1);
		p += n;
		left -= (size_t)n;
	}
	fsync(fd);
	close(fd);
	rename(tmp, path);
}

static void run_job(const char *dir, struct state *s, long until)
{
	load_checkpoint(dir, s);
	while (s->step < until) {
		advance(s);
		s->step++;
		if (s->step % SAVE_EVERY == 0)
			save_checkpoint(dir, s);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	struct state *s = malloc(sizeof *s);
	run_job(argv[1], s, STEPS / 2);
	run_job(argv[1], s, STEPS);
	double e = 0;
	for (int i = 0; i < NPART; i++)
		e += s->v[i] * s->v[i];
	printf("%ld %.6e\n", s->step, e);
	free(s);
	return 0;
}
