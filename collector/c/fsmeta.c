/*
 * File-system calls that Darshan does not record: directory creation and
 * removal, permission checks, truncation and preallocation, stdio's
 * remove (glibc's calls unlink inside the library, out of reach of the
 * unlink wrapper), and msync, which writes a shared mapping's pages to
 * its file. They update no counter; they are timed as I/O in function
 * profiles, like the calls Darshan records, so that a function creating a
 * directory tree or flushing a mapped file measures as the I/O it is.
 */
#include "iolens.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* TIMED defines a wrapper of name that only times the real call. */
#define TIMED(ret, name, params, args)                \
	IOL_REAL_DECL(ret, name, params);             \
	ret name params                               \
	{                                             \
		IOL_RESOLVE(name);                    \
		iol_tick t1 = iol_op_begin();         \
		ret r = real_##name args;             \
		iol_op_end(t1);                       \
		return r;                             \
	}

TIMED(int, mkdir, (const char *path, mode_t mode), (path, mode))
TIMED(int, mkdirat, (int dirfd, const char *path, mode_t mode), (dirfd, path, mode))
TIMED(int, rmdir, (const char *path), (path))
TIMED(int, access, (const char *path, int mode), (path, mode))
TIMED(int, faccessat, (int dirfd, const char *path, int mode, int flags), (dirfd, path, mode, flags))
TIMED(int, truncate, (const char *path, off_t len), (path, len))
TIMED(int, truncate64, (const char *path, off64_t len), (path, len))
TIMED(int, ftruncate, (int fd, off_t len), (fd, len))
TIMED(int, ftruncate64, (int fd, off64_t len), (fd, len))
TIMED(int, fallocate, (int fd, int mode, off_t off, off_t len), (fd, mode, off, len))
TIMED(int, posix_fallocate, (int fd, off_t off, off_t len), (fd, off, len))
TIMED(int, remove, (const char *path), (path))
TIMED(int, msync, (void *addr, size_t len, int flags), (addr, len, flags))
