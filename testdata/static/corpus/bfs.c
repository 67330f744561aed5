/*
 * Breadth-first search over a graph stored as an edge-list file:
 * write_edges() writes NEDGES random (src, dst) pairs of NVERT vertices;
 * load_edges() reads them back with read(); build_csr() builds the
 * compressed adjacency; bfs() computes the levels from vertex 0;
 * write_levels() stores the level of every vertex.
 * Usage: bfs DIR [NVERT] [NEDGES]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NVERT 200000
#define NEDGES 2000000
#define CHUNK 65536 /* edges per read() */

struct edge {
	int32_t src, dst;
};

static void write_edges(const char *path, long nv, long ne)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	struct edge *buf = malloc(CHUNK * sizeof *buf);
	uint64_t x = 12345;
	for (long i = 0; i < ne; i += CHUNK) {
		long m = ne - i < CHUNK ? ne - i : CHUNK;
		for (long j = 0; j < m; j++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			buf[j].src = (int32_t)((x >> 33) % (uint64_t)nv);
			buf[j].dst = (int32_t)((x >> 11) % (uint64_t)nv);
		}
		if (write(fd, buf, (size_t)m * sizeof *buf) < 0)
			exit(1);
	}
	free(buf);
	close(fd);
}

static struct edge *load_edges(const char *path, long ne)
{
	struct edge *e = malloc((size_t)ne * sizeof *e);
	int fd = open(path, O_RDONLY);
	size_t want = (size_t)ne * sizeof *e, got = 0;
	while (got < want) {
		size_t n = want - got < CHUNK * sizeof *e ? want - got : CHUNK * sizeof *e;
		ssize_t r = read(fd, (char *)e + got, n);
		if (r <= 0)
			exit(1);
		got += (size_t)r;
	}
	close(fd);
	return e;
}

static void build_csr(const struct edge *e, long nv, long ne, long *start, int32_t *adj)
{
	for (long i = 0; i < ne; i++)
		start[e[i].src + 1]++;
	for (long v = 0; v < nv; v++)
		start[v + 1] += start[v];
	long *pos = malloc((size_t)nv * sizeof *pos);
	for (long v = 0; v < nv; v++)
		pos[v] = start[v];
	for (long i = 0; i < ne; i++)
		adj[pos[e[i].src]++] = e[i].dst;
	free(pos);
}

static long bfs(long nv, const long *start, const int32_t *adj, int32_t *level)
{
	int32_t *queue = malloc((size_t)nv * sizeof *queue);
	long head = 0, tail = 0;
	for (long v = 0; v < nv; v++)
		level[v] = -1;
	level[0] = 0;
	queue[tail++] = 0;
	while (head < tail) {
		int32_t v = queue[head++];
		for (long k = start[v]; k < start[v + 1]; k++)
			if (level[adj[k]] < 0) {
				level[adj[k]] = level[v] + 1;
				queue[tail++] = adj[k];
			}
	}
	free(queue);
	return tail;
}

static void write_levels(const char *path, const int32_t *level, long nv)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (write(fd, level, (size_t)nv * sizeof *level) < 0)
		exit(1);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long nv = argc > 2 ? atol(argv[2]) : NVERT, ne = argc > 3 ? atol(argv[3]) : NEDGES;
	char edges[4096], levels[4096];
	snprintf(edges, sizeof edges, "%s/graph.edges", argv[1]);
	snprintf(levels, sizeof levels, "%s/graph.levels", argv[1]);
	write_edges(edges, nv, ne);
	struct edge *e = load_edges(edges, ne);
	long *start = calloc((size_t)nv + 1, sizeof *start);
	int32_t *adj = malloc((size_t)ne * sizeof *adj), *level = malloc((size_t)nv * sizeof *level);
	build_csr(e, nv, ne, start, adj);
	long reached = bfs(nv, start, adj, level);
	write_levels(levels, level, nv);
	printf("reached %ld\n", reached);
	free(e);
	free(start);
	free(adj);
	free(level);
	return 0;
}
