/*
 * Mostly compute with a tiny configuration read: seed_config() writes a
 * three-line configuration file when none exists; read_config() reads it
 * with fgets and sscanf; simulate() runs a 2-D reaction-diffusion model
 * (Gray-Scott) on an N x N grid for the configured number of steps, and
 * pattern_stats() reduces the result; save_result() writes it to a
 * one-line result file, and it is printed on stdout.
 * Usage: config_compute DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 192

struct config {
	int steps;
	double feed, kill;
};

static void seed_config(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f) {
		fclose(f);
		return;
	}
	f = fopen(path, "w");
	if (!f)
		exit(1);
	fputs("steps 400\nfeed 0.037\nkill 0.060\n", f);
	fclose(f);
}

static void read_config(const char *path, struct config *c)
{
	char line[256], key[64];
	double v;
	FILE *f = fopen(path, "r");
	if (!f)
		exit(1);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%63s %lf", key, &v) == 2) {
			if (strcmp(key, "steps") == 0)
				c->steps = (int)v;
			else if (strcmp(key, "feed") == 0)
				c->feed = v;
			else if (strcmp(key, "kill") == 0)
				c->kill = v;
		}
	fclose(f);
}

static void simulate(const struct config *c, double *u, double *v, double *u2, double *v2)
{
	for (int s = 0; s < c->steps; s++) {
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				int ip = (i + 1) % N, im = (i + N - 1) % N, jp = (j + 1) % N, jm = (j + N - 1) % N;
				double uu = u[i * N + j], vv = v[i * N + j];
				double lu = u[ip * N + j] + u[im * N + j] + u[i * N + jp] + u[i * N + jm] - 4 * uu;
				double lv = v[ip * N + j] + v[im * N + j] + v[i * N + jp] + v[i * N + jm] - 4 * vv;
				double r = uu * vv * vv;
				u2[i * N + j] = uu + 0.2 * lu - r + c->feed * (1 - uu);
				v2[i * N + j] = vv + 0.1 * lv + r - (c->feed + c->kill) * vv;
			}
		memcpy(u, u2, sizeof(double) * N * N);
		memcpy(v, v2, sizeof(double) * N * N);
	}
}

static double pattern_stats(const double *v)
{
	double s = 0;
	for (int k = 0; k < N * N; k++)
		s += v[k] > 0.2 ? 1 : 0;
	return s / (N * N);
}

static void save_result(const char *dir, const struct config *c, double frac)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/result.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		exit(1);
	fprintf(f, "steps %d feed %.4f kill %.4f spots %.6f\n", c->steps, c->feed, c->kill, frac);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/model.cfg", argv[1]);
	seed_config(path);
	struct config c = {100, 0.04, 0.06};
	read_config(path, &c);
	double *u = malloc(sizeof(double) * N * N), *v = malloc(sizeof(double) * N * N);
	double *u2 = malloc(sizeof(double) * N * N), *v2 = malloc(sizeof(double) * N * N);
	for (int k = 0; k < N * N; k++) {
		u[k] = 1;
		v[k] = (k / N > N / 2 - 8 && k / N < N / 2 + 8 && k % N > N / 2 - 8 && k % N < N / 2 + 8) ? 0.5 : 0;
	}
	simulate(&c, u, v, u2, v2);
	double frac = pattern_stats(v);
	save_result(argv[1], &c, frac);
	printf("%.6f\n", frac);
	free(u);
	free(v);
	free(u2);
	free(v2);
	return 0;
}
