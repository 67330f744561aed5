/*
 * Indexed frame archive: encode_frame() delta- and run-length-encodes a
 * synthetic frame of FRAME_SAMPLES 16-bit samples (compute);
 * append_frame() appends it to the archive with one writev() of a frame
 * header and the payload; update_index() rewrites the frame's slot of the
 * index table at the start of the file with pwrite(); at the end
 * verify_index() reads the index back with pread() and checks it.
 * Usage: frame_archive DIR
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define NFRAMES 600
#define FRAME_SAMPLES 16384

struct frame_hdr {
	uint32_t magic, index, size, crc;
};

static size_t encode_frame(int k, int16_t *raw, uint8_t *out)
{
	for (int i = 0; i < FRAME_SAMPLES; i++)
		raw[i] = (int16_t)(((i / 8) * 37 + k * 11) % 2000 - 1000);
	size_t n = 0;
	int16_t prev = 0;
	int i = 0;
	while (i < FRAME_SAMPLES) {
		int16_t d = (int16_t)(raw[i] - prev);
		int run = 1;
		while (i + run < FRAME_SAMPLES && run < 255 && raw[i + run] - raw[i + run - 1] == 0)
			run++;
		out[n++] = (uint8_t)run;
		out[n++] = (uint8_t)(d & 0xff);
		out[n++] = (uint8_t)((uint16_t)d >> 8);
		prev = raw[i + run - 1];
		i += run;
	}
	return n;
}

static uint32_t crc_of(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int b = 0; b < 8; b++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static off_t append_frame(int fd, off_t end, int k, const uint8_t *payload, size_t n)
{
	struct frame_hdr h = {0x46524d31u, (uint32_t)k, (uint32_t)n, crc_of(payload, n)};
	struct iovec iov[2] = {{&h, sizeof h}, {(void *)payload, n}};
	if (pwritev(fd, iov, 2, end) < 0)
		exit(1);
	return end + (off_t)(sizeof h + n);
}

static void update_index(int fd, int k, off_t where)
{
	int64_t slot = (int64_t)where;
	if (pwrite(fd, &slot, sizeof slot, (off_t)k * (off_t)sizeof slot) < 0)
		exit(1);
}

static int verify_index(int fd)
{
	int64_t *idx = malloc(NFRAMES * sizeof *idx);
	if (pread(fd, idx, NFRAMES * sizeof *idx, 0) < 0)
		exit(1);
	int bad = 0;
	for (int k = 1; k < NFRAMES; k++)
		bad += idx[k] <= idx[k - 1];
	free(idx);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/frames.arc", argv[1]);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	int16_t *raw = malloc(FRAME_SAMPLES * sizeof *raw);
	uint8_t *enc = malloc(3 * FRAME_SAMPLES);
	off_t end = (off_t)NFRAMES * (off_t)sizeof(int64_t);
	for (int k = 0; k < NFRAMES; k++) {
		size_t n = encode_frame(k, raw, enc);
		update_index(fd, k, end);
		end = append_frame(fd, end, k, enc, n);
	}
	int bad = verify_index(fd);
	close(fd);
	free(raw);
	free(enc);
	printf("%d %lld\n", bad, (long long)end);
	return bad != 0;
}
