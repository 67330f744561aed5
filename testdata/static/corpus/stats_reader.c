/*
 * Read-mostly analysis: make_input() writes NSAMP single-precision samples
 * of a noisy signal with write(), in 1 MiB pieces (the input); the
 * analysis then reads the whole input once with pread() in READ_CHUNK
 * pieces (load_input), computes its moments (moments), a histogram with
 * quantiles (histogram), and an autocorrelation at a few lags
 * (autocorr); write_summary() prints a short report with fprintf.
 * Usage: stats_reader DIR
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NSAMP (8L << 20)
#define READ_CHUNK (4L << 20)
#define NBINS 2048
#define NLAGS 6

static void make_input(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		exit(1);
	enum { PIECE = 1 << 18 };
	float *buf = malloc(PIECE * sizeof *buf);
	unsigned long seed = 12345;
	for (long done = 0; done < NSAMP; done += PIECE) {
		for (int i = 0; i < PIECE; i++) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			buf[i] = (float)((done + i) % 1000) * 1e-3f + (float)(seed >> 40) * 1e-7f;
		}
		if (write(fd, buf, PIECE * sizeof *buf) < 0)
			exit(1);
	}
	free(buf);
	close(fd);
}

static float *load_input(const char *path, long *n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		exit(1);
	float *v = malloc(NSAMP * sizeof *v);
	char *p = (char *)v;
	long total = NSAMP * (long)sizeof *v, off = 0;
	while (off < total) {
		ssize_t got = pread(fd, p + off, total - off < READ_CHUNK ? total - off : READ_CHUNK, off);
		if (got <= 0)
			break;
		off += got;
	}
	close(fd);
	*n = off / (long)sizeof *v;
	return v;
}

static void moments(const float *v, long n, double m[4])
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += v[i];
	double mean = s / n, m2 = 0, m3 = 0, m4 = 0;
	for (long i = 0; i < n; i++) {
		double d = v[i] - mean, d2 = d * d;
		m2 += d2;
		m3 += d2 * d;
		m4 += d2 * d2;
	}
	m[0] = mean;
	m[1] = m2 / n;
	m[2] = (m3 / n) / pow(m[1], 1.5);
	m[3] = (m4 / n) / (m[1] * m[1]);
}

static void histogram(const float *v, long n, double q[3])
{
	static long bins[NBINS];
	float lo = v[0], hi = v[0];
	for (long i = 1; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	double w = (hi - lo) / NBINS + 1e-12;
	for (long i = 0; i < n; i++) {
		long b = (long)((v[i] - lo) / w);
		bins[b < NBINS ? b : NBINS - 1]++;
	}
	const double want[3] = {0.25, 0.5, 0.75};
	long acc = 0;
	int k = 0;
	for (int b = 0; b < NBINS && k < 3; b++) {
		acc += bins[b];
		while (k < 3 && acc >= want[k] * n)
			q[k++] = lo + (b + 0.5) * w;
	}
}

static void autocorr(const float *v, long n, double mean, double r[NLAGS])
{
	for (int l = 0; l < NLAGS; l++) {
		long lag = 1L << (2 * l);
		double s = 0;
		for (long i = 0; i + lag < n; i++)
			s += (v[i] - mean) * (v[i + lag] - mean);
		r[l] = s / (n - lag);
	}
}

static void write_summary(const char *path, const double m[4], const double q[3], const double r[NLAGS])
{
	FILE *f = fopen(path, "w");
	if (!f)
		exit(1);
	fprintf(f, "mean %.9g\nvariance %.9g\nskewness %.6g\nkurtosis %.6g\n", m[0], m[1], m[2], m[3]);
	fprintf(f, "q1 %.6g\nmedian %.6g\nq3 %.6g\n", q[0], q[1], q[2]);
	for (int l = 0; l < NLAGS; l++)
		fprintf(f, "acf[%d] %.6g\n", 1 << (2 * l), r[l] / m[1]);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char in[4096], out[4096];
	snprintf(in, sizeof in, "%s/signal.f32", argv[1]);
	snprintf(out, sizeof out, "%s/summary.txt", argv[1]);
	make_input(in);
	long n;
	float *v = load_input(in, &n);
	double m[4], q[3], r[NLAGS];
	moments(v, n, m);
	histogram(v, n, q);
	autocorr(v, n, m[0], r);
	write_summary(out, m, q, r);
	free(v);
	return 0;
}
