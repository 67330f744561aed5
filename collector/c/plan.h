/*
 * Layout of a prefetch plan: what `iolens run --prefetch` exports from an
 * application's accumulation graph (package knowledge, plan.go writes it)
 * for the preload library, which maps it read-only (prefetch.c). All
 * integers are little-endian; every array starts 8-byte aligned, in this
 * order after the header:
 *
 *   vertices[nvertices]  sorted by key (ascending, distinct)
 *   edges[nedges]        the out-edges of each vertex, most visited first
 *   extents[nextents]    the file extents of each vertex
 *   files[nfiles]        logical file names, as offsets into strings
 *   strings[strings_size]
 *
 * A vertex key is the 64-bit FNV-1a hash of the vertex's canonical text:
 *
 *   object NUL module "," op "," offset "," length ";" starts ";" counts
 *
 * numbers in decimal, starts and counts comma-separated (empty for POSIX).
 * object is the logical name: for POSIX the file's, for a variable or a
 * dataset the file's, ':' and the object's name inside the file. A file's
 * logical name is its path with every run of decimal digits replaced by
 * '#', followed by "[i]", i = how many other paths of that pattern the
 * process accessed before it. High-level vertices have offset -1 and
 * length 0.
 */
#ifndef IOLENS_PLAN_H
#define IOLENS_PLAN_H

#include <stdint.h>

#define IOL_PLAN_MAGIC "IOLPLAN\x01"
#define IOL_PLAN_VERSION 1

struct iol_plan_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;   /* sizeof(struct iol_plan_header) */
	uint64_t size;          /* bytes of the whole plan */
	uint32_t nvertices;
	uint32_t nedges;
	uint32_t nextents;
	uint32_t nfiles;
	uint64_t strings_size;
	uint64_t checksum;      /* FNV-1a 64 of bytes [header_size, size) */
	uint32_t depth;         /* accesses to look ahead */
	uint32_t pad;
};

struct iol_plan_vertex {
	uint64_t key;
	uint32_t first_edge;
	uint32_t nedges;
	uint32_t first_extent;
	uint32_t nextents;
	uint32_t op;            /* 1 read, 2 write (darshan.Op) */
	uint32_t pad;
	int64_t bytes;          /* mean bytes of the access */
};

struct iol_plan_edge {
	uint32_t to;            /* vertex index */
	uint32_t count;
	double gap;             /* mean seconds between the two accesses */
};

struct iol_plan_extent {
	uint32_t file;          /* index into files */
	uint32_t pad;
	int64_t offset;
	int64_t length;
};

struct iol_plan_file {
	uint32_t name_off;      /* into strings */
	uint32_t name_len;
};

#endif
