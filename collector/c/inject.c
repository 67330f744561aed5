/*
 * Parameters injected into the program without a source change (iolens run
 * --set, iolens tune): MPI-IO hints merged into the info of MPI_File_open
 * (mpiio.c), HDF5 file-access properties set at H5Fcreate/H5Fopen
 * (hdf5.c) and a stdio buffer given to every stream fopen opens (stdio.c).
 * The Go side passes them in the environment:
 *
 *   IOLENS_SET_MPIIO        "key=value;key=value" hints
 *   IOLENS_SET_MPIIO_FILES  extended regular expression of the file names
 *                           they apply to (default: every file)
 *   IOLENS_SET_HDF5         "name=number;..." with names alignment,
 *                           alignment_threshold, sieve_buf_size,
 *                           meta_block_size, chunk_cache_bytes,
 *                           coll_metadata_read, coll_metadata_write
 *   IOLENS_SET_STDIO_BUFFER bytes of the buffer of each stream
 *
 * How many opens got them is counted in the store header (inj_*).
 */
#include "iolens.h"

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

struct iol_inject iol_inject;

static char hint_text[4096];
static regex_t hint_files;
static int have_hint_files;

/* Splits "k=v;k=v" (in place) into pairs; returns how many. */
static int split_pairs(char *s, const char **keys, const char **vals, int max)
{
	int n = 0;
	for (char *item = strtok(s, ";"); item && n < max; item = strtok(NULL, ";")) {
		char *eq = strchr(item, '=');
		if (!eq || eq == item)
			continue;
		*eq = 0;
		keys[n] = item;
		vals[n] = eq + 1;
		n++;
	}
	return n;
}

static const char *const h5_names[IOL_H5_NPROPS] = {
	"alignment", "alignment_threshold", "sieve_buf_size", "meta_block_size",
	"chunk_cache_bytes", "coll_metadata_read", "coll_metadata_write",
};

void iol_inject_init(void)
{
	const char *h = getenv("IOLENS_SET_MPIIO");
	if (h && *h && strlen(h) < sizeof hint_text) {
		memcpy(hint_text, h, strlen(h) + 1);
		iol_inject.nhints = split_pairs(hint_text, iol_inject.hint_keys, iol_inject.hint_vals, IOL_MAX_HINTS);
		const char *files = getenv("IOLENS_SET_MPIIO_FILES");
		if (files && *files)
			have_hint_files = regcomp(&hint_files, files, REG_EXTENDED | REG_NOSUB) == 0;
	}
	const char *p = getenv("IOLENS_SET_HDF5");
	if (p && *p) {
		char text[1024];
		const char *keys[IOL_H5_NPROPS * 2], *vals[IOL_H5_NPROPS * 2];
		snprintf(text, sizeof text, "%s", p);
		int n = split_pairs(text, keys, vals, IOL_H5_NPROPS * 2);
		for (int i = 0; i < n; i++)
			for (int k = 0; k < IOL_H5_NPROPS; k++)
				if (strcmp(keys[i], h5_names[k]) == 0) {
					iol_inject.h5[k] = strtoll(vals[i], NULL, 10);
					iol_inject.h5_set |= 1u << k;
				}
	}
	const char *b = getenv("IOLENS_SET_STDIO_BUFFER");
	if (b && atoll(b) > 0)
		iol_inject.stdio_buffer = (size_t)atoll(b);
}

int iol_inject_hints_for(const char *filename)
{
	if (iol_inject.nhints == 0)
		return 0;
	return !have_hint_files || (filename && regexec(&hint_files, filename, 0, NULL, 0) == 0);
}

void iol_inject_count(int which)
{
	struct iol_store_header *h = iol_header();
	if (h)
		__atomic_fetch_add(&h->inj[which], 1, __ATOMIC_RELAXED);
}

/* ---- stdio buffers: the buffer of each stream, freed when it closes ---- */

#define BUF_SLOTS 1024
static struct {
	FILE *stream;
	void *buf;
} bufs[BUF_SLOTS];
static pthread_mutex_t bufs_lock = PTHREAD_MUTEX_INITIALIZER;

void iol_inject_stdio(FILE *s)
{
	size_t size = iol_inject.stdio_buffer;
	if (!size || !s)
		return;
	void *buf = malloc(size);
	if (!buf)
		return;
	pthread_mutex_lock(&bufs_lock);
	int slot = -1;
	for (int i = 0; i < BUF_SLOTS && slot < 0; i++)
		if (!bufs[i].stream)
			slot = i;
	if (slot >= 0 && setvbuf(s, buf, _IOFBF, size) == 0) {
		bufs[slot].stream = s;
		bufs[slot].buf = buf;
		buf = NULL;
		iol_inject_count(IOL_INJ_STDIO);
	}
	pthread_mutex_unlock(&bufs_lock);
	free(buf);
}

void *iol_inject_stdio_take(FILE *s)
{
	if (!iol_inject.stdio_buffer || !s)
		return NULL;
	void *buf = NULL;
	pthread_mutex_lock(&bufs_lock);
	for (int i = 0; i < BUF_SLOTS; i++)
		if (bufs[i].stream == s) {
			buf = bufs[i].buf;
			bufs[i].stream = NULL;
			bufs[i].buf = NULL;
			break;
		}
	pthread_mutex_unlock(&bufs_lock);
	return buf;
}
