/*
 * Tiled image writer: shade_tile() computes a TILE x TILE tile of an
 * escape-time fractal; put_tile() stores it in a row-major PGM image by
 * seeking to each of its rows (fseek) and writing the row (fwrite), then
 * fflush()es, so every tile reaches the kernel before the next one is
 * computed. The image is W x H pixels; write_header() writes the PGM
 * header and log_tile() appends one line per tile to a text log.
 * Usage: tile_flush DIR
 */
#include <stdio.h>
#include <stdlib.h>

#define W 2048
#define H 1024
#define TILE 64
#define MAXIT 48

static void shade_tile(unsigned char *t, int tx, int ty)
{
	for (int y = 0; y < TILE; y++)
		for (int x = 0; x < TILE; x++) {
			double cr = -2.0 + 3.0 * (tx * TILE + x) / W;
			double ci = -1.2 + 2.4 * (ty * TILE + y) / H;
			double zr = 0, zi = 0;
			int it = 0;
			while (it < MAXIT && zr * zr + zi * zi < 4.0) {
				double nr = zr * zr - zi * zi + cr;
				zi = 2 * zr * zi + ci;
				zr = nr;
				it++;
			}
			t[y * TILE + x] = (unsigned char)(it * 255 / MAXIT);
		}
}

static void put_tile(FILE *f, long header, const unsigned char *t, int tx, int ty)
{
	for (int y = 0; y < TILE; y++) {
		long off = header + (long)(ty * TILE + y) * W + (long)tx * TILE;
		fseek(f, off, SEEK_SET);
		fwrite(t + y * TILE, 1, TILE, f);
	}
	fflush(f);
}

static long write_header(FILE *f)
{
	return fprintf(f, "P5\n%d %d\n255\n", W, H);
}

static void log_tile(FILE *log, int tx, int ty, const unsigned char *t)
{
	long sum = 0;
	for (int i = 0; i < TILE * TILE; i += 16)
		sum += t[i];
	fprintf(log, "tile %d %d mean %.2f\n", tx, ty, sum / (double)(TILE * TILE / 16));
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/image.pgm", argv[1]);
	FILE *f = fopen(path, "w+b");
	if (!f)
		return 1;
	snprintf(path, sizeof path, "%s/tiles.log", argv[1]);
	FILE *log = fopen(path, "w");
	if (!log)
		return 1;
	long header = write_header(f);
	unsigned char *t = malloc(TILE * TILE);
	for (int ty = 0; ty < H / TILE; ty++)
		for (int tx = 0; tx < W / TILE; tx++) {
			shade_tile(t, tx, ty);
			put_tile(f, header, t, tx, ty);
			log_tile(log, tx, ty, t);
		}
	fclose(log);
	fclose(f);
	free(t);
	return 0;
}
