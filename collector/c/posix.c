/*
 * POSIX module: wrappers of the open, data, positioning, synchronisation,
 * metadata and descriptor calls, updating POSIX records with Darshan's rules
 * (spec: darshan-runtime-semantics.md §3). Differences from the reference
 * runtime: stat, fstat, lstat, fstatat and statx are counted under their own
 * names (the reference sees only the __xstat family), mmap is counted
 * (POSIX_MMAPS starts at 0 instead of -1), copy_file_range and sendfile
 * count as a read of the source and a write of the destination, unlink
 * adds meta time to an existing record, and descriptors inherited across
 * exec are adopted with their current position.
 */
#include "iolens.h"

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

struct posix_rt {
	struct iol_rt rt;
	struct iol_cv access;
	struct iol_cv stride;
};

#define LUSTRE_MAGIC 0x0BD00BD0

static void posix_init(struct iol_record_block *r, const char *name)
{
	int64_t *c = iol_counters(r);
	c[POSIX_MEM_ALIGNMENT] = iol_mem_alignment;
	c[POSIX_FILE_ALIGNMENT] = -1;
	if (name[0] == '/') {
		struct statfs sf;
		if (syscall(SYS_statfs, name, &sf) == 0)
			c[POSIX_FILE_ALIGNMENT] = sf.f_type == LUSTRE_MAGIC ? 1 << 20 : (int64_t)sf.f_bsize;
	}
}

IOL_HIDDEN const struct iol_module iol_posix_module = {
	.id = IOL_MOD_POSIX,
	.ncounters = POSIX_NUM_INDICES,
	.nfcounters = POSIX_F_NUM_INDICES,
	.rt_size = sizeof(struct posix_rt),
	.init = posix_init,
};

/* The arrays of a POSIX record, at offsets known at compile time. */
static inline int64_t *pc(struct iol_record_block *r)
{
	return (int64_t *)(r + 1);
}
static inline double *pf(struct iol_record_block *r)
{
	return (double *)(pc(r) + POSIX_NUM_INDICES);
}
static inline struct posix_rt *prt(struct iol_record_block *r)
{
	return (struct posix_rt *)(pf(r) + POSIX_F_NUM_INDICES);
}

static void meta_time(struct iol_record_block *r, iol_tick t1, iol_tick t2)
{
	iol_timer(&iol_fcounters(r)[POSIX_F_META_TIME], &prt(r)->rt.last_meta_end, t1, t2);
}

/* Records an open-like event on fd: kind is POSIX_OPENS alone, or with
 * POSIX_DUPS / POSIX_FILENOS. */
static void opened(struct iol_record_block *r, int fd, int extra, int reset, mode_t mode,
		   iol_tick t1, iol_tick t2)
{
	if (!iol_enter(r))
		return;
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	if (mode)
		c[POSIX_MODE] = mode;
	if (reset) {
		prt(r)->rt.offset = 0;
		prt(r)->rt.last_read = 0;
		prt(r)->rt.last_written = 0;
	}
	c[POSIX_OPENS]++;
	if (extra >= 0)
		c[extra]++;
	iol_stamp(f, POSIX_F_OPEN_START_TIMESTAMP, POSIX_F_OPEN_END_TIMESTAMP, t1, t2);
	meta_time(r, t1, t2);
	iol_leave(r, t2);
	iol_fd_put(fd, r);
}

/* The record of a path, or NULL. */
static struct iol_record_block *path_record(const char *path)
{
	char buf[PATH_MAX];
	iol_ensure_started();
	if (!iol_active || !iol_normalize(path, buf, sizeof buf))
		return NULL;
	return iol_record(&iol_posix_module, buf);
}

static void open_done(int fd, const char *path, int flags, mode_t mode, iol_tick t1, iol_tick t2)
{
	if (fd < 0)
		return;
	struct iol_record_block *r = path_record(path);
	if (r)
		opened(r, fd, -1, 1, (flags & (O_CREAT | O_TMPFILE)) ? mode : 0, t1, t2);
}

#define COMMA ,

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

/* The body of a wrapper that returns a descriptor: the real call between
 * two time stamps, then `done` (which may use fd, t1 and t2), errno kept. */
#define FD_CALL(name, args, done)                 \
	IOL_RESOLVE(name);                        \
	iol_tick t1 = iol_op_begin();             \
	int fd = real_##name args;                \
	iol_tick t2 = iol_op_end(t1);             \
	int saved = errno;                        \
	done;                                     \
	errno = saved;                            \
	return fd

#define FD_WRAPPER(name, params, args, done) \
	IOL_REAL_DECL(int, name, params);    \
	int name params                      \
	{                                    \
		FD_CALL(name, args, done);   \
	}

/* open and openat take the mode only with O_CREAT or O_TMPFILE. */
#define OPEN_WRAPPER(name, types, params, args, done)            \
	IOL_REAL_DECL(int, name, (types, ...));                   \
	int name(params, ...)                                     \
	{                                                         \
		va_list ap;                                       \
		va_start(ap, flags);                              \
		mode_t mode = open_mode(flags, ap);               \
		va_end(ap);                                       \
		FD_CALL(name, args, done);                        \
	}

OPEN_WRAPPER(open, const char * COMMA int, const char *path COMMA int flags, (path, flags, mode),
	     open_done(fd, path, flags, mode, t1, t2))
OPEN_WRAPPER(open64, const char * COMMA int, const char *path COMMA int flags, (path, flags, mode),
	     open_done(fd, path, flags, mode, t1, t2))
FD_WRAPPER(__open_2, (const char *path, int flags), (path, flags), open_done(fd, path, 0, 0, t1, t2))
FD_WRAPPER(__open64_2, (const char *path, int flags), (path, flags), open_done(fd, path, 0, 0, t1, t2))
FD_WRAPPER(creat, (const char *path, mode_t mode), (path, mode), open_done(fd, path, O_CREAT, mode, t1, t2))
FD_WRAPPER(creat64, (const char *path, mode_t mode), (path, mode), open_done(fd, path, O_CREAT, mode, t1, t2))

/* Name of path relative to dirfd: the directory's record name when dirfd
 * is tracked (Darshan's rule), else the directory's current path. */
static const char *at_path(int dirfd, const char *path, char *buf, size_t size)
{
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return path;
	char dir[PATH_MAX];
	struct iol_record_block *d = iol_fd_get(dirfd);
	const char *dn = d ? iol_name(d->id) : NULL;
	if (!dn) {
		char link[64];
		snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
		long l = syscall(SYS_readlinkat, AT_FDCWD, link, dir, sizeof dir - 1);
		if (l <= 0 || dir[0] != '/')
			return path;
		dir[l] = 0;
		dn = dir;
	}
	size_t l = strlen(dn);
	if (snprintf(buf, size, "%s%s%s", dn, l && dn[l - 1] == '/' ? "" : "/", path) >= (int)size)
		return path;
	return buf;
}

static void openat_done(int fd, int dirfd, const char *path, int flags, mode_t mode, iol_tick t1, iol_tick t2)
{
	if (fd < 0)
		return;
	char buf[PATH_MAX];
	open_done(fd, at_path(dirfd, path, buf, sizeof buf), flags, mode, t1, t2);
}

OPEN_WRAPPER(openat, int COMMA const char * COMMA int, int dirfd COMMA const char *path COMMA int flags,
	     (dirfd, path, flags, mode), openat_done(fd, dirfd, path, flags, mode, t1, t2))
OPEN_WRAPPER(openat64, int COMMA const char * COMMA int, int dirfd COMMA const char *path COMMA int flags,
	     (dirfd, path, flags, mode), openat_done(fd, dirfd, path, flags, mode, t1, t2))
FD_WRAPPER(__openat_2, (int dirfd, const char *path, int flags), (dirfd, path, flags),
	   openat_done(fd, dirfd, path, 0, 0, t1, t2))

/* mkstemp family: the record is named after the filled-in template. */
#define MKSTEMP_WRAPPER(name, params, args, tmpl) FD_WRAPPER(name, params, args, open_done(fd, tmpl, 0, 0, t1, t2))

MKSTEMP_WRAPPER(mkstemp, (char *t), (t), t)
MKSTEMP_WRAPPER(mkostemp, (char *t, int fl), (t, fl), t)
MKSTEMP_WRAPPER(mkstemps, (char *t, int sl), (t, sl), t)
MKSTEMP_WRAPPER(mkostemps, (char *t, int sl, int fl), (t, sl, fl), t)

/* ---- data ---- */

/* x is a multiple of a (> 0); a mask when a is a power of two, which it
 * nearly always is, to keep a division off the hot path. */
static inline int multiple(uint64_t x, uint64_t a)
{
	return (a & (a - 1)) == 0 ? (x & (a - 1)) == 0 : x % a == 0;
}

static int aligned(const void *p)
{
	return multiple((uintptr_t)p, (uint64_t)iol_mem_alignment);
}

static int iov_aligned(const struct iovec *iov, int n)
{
	for (int i = 0; i < n; i++)
		if (!aligned(iov[i].iov_base))
			return 0;
	return 1;
}

/* One read or write of n bytes (spec §3.3); off < 0 = at the current
 * position. */
static inline __attribute__((always_inline)) void rw(struct iol_record_block *r, int op, int64_t off, int64_t n, int is_aligned,
	       iol_tick t1, iol_tick t2)
{
	if (!iol_enter(r))
		return;
	struct posix_rt *rt = prt(r);
	int64_t *c = pc(r);
	double *f = pf(r);
	int rd = op == IOL_OP_READ;
	if (off < 0)
		off = rt->rt.offset;
	iol_dxt(IOL_MOD_POSIX, r->id, op, off, n, t1, t2);
	iol_access(IOL_MOD_POSIX, r->id, r->id, op, off, n, 0, NULL, NULL, t1, t2);
	iol_heatmap(IOL_MOD_POSIX, op, n, t1, t2);
	int64_t *last = rd ? &rt->rt.last_read : &rt->rt.last_written;
	int64_t L = *last, stride = 0;
	if (off > L) {
		c[rd ? POSIX_SEQ_READS : POSIX_SEQ_WRITES]++;
		if (off > 0 && L != 0)
			stride = off - L - 1;
	}
	if (off == L + 1)
		c[rd ? POSIX_CONSEC_READS : POSIX_CONSEC_WRITES]++;
	*last = off + n - 1;
	rt->rt.offset = off + n;
	int maxb = rd ? POSIX_MAX_BYTE_READ : POSIX_MAX_BYTE_WRITTEN;
	if (c[maxb] < off + n - 1)
		c[maxb] = off + n - 1;
	c[rd ? POSIX_BYTES_READ : POSIX_BYTES_WRITTEN] += n;
	c[rd ? POSIX_READS : POSIX_WRITES]++;
	iol_histogram(c, rd ? POSIX_SIZE_READ_0_100 : POSIX_SIZE_WRITE_0_100, n);
	iol_common(&rt->access, c, POSIX_ACCESS1_ACCESS, POSIX_ACCESS1_COUNT, n);
	iol_common(&rt->stride, c, POSIX_STRIDE1_STRIDE, POSIX_STRIDE1_COUNT, stride);
	if (!is_aligned)
		c[POSIX_MEM_NOT_ALIGNED]++;
	if (c[POSIX_FILE_ALIGNMENT] > 0 && !multiple((uint64_t)off, (uint64_t)c[POSIX_FILE_ALIGNMENT]))
		c[POSIX_FILE_NOT_ALIGNED]++;
	iol_rw_switch(&rt->rt, c, POSIX_RW_SWITCHES, op);
	double a = iol_rel(t1), b = iol_rel(t2);
	if (rd) {
		iol_stamp_rel(f, POSIX_F_READ_START_TIMESTAMP, POSIX_F_READ_END_TIMESTAMP, a, b);
		iol_maxtime(f, c, POSIX_F_MAX_READ_TIME, POSIX_MAX_READ_TIME_SIZE, t1, t2, n);
		iol_timer_rel(&f[POSIX_F_READ_TIME], &rt->rt.last_read_end, a, b);
	} else {
		iol_stamp_rel(f, POSIX_F_WRITE_START_TIMESTAMP, POSIX_F_WRITE_END_TIMESTAMP, a, b);
		iol_maxtime(f, c, POSIX_F_MAX_WRITE_TIME, POSIX_MAX_WRITE_TIME_SIZE, t1, t2, n);
		iol_timer_rel(&f[POSIX_F_WRITE_TIME], &rt->rt.last_write_end, a, b);
	}
	iol_leave(r, t2);
}

/* A data wrapper: call is the real call, off the explicit offset or -1. */
#define DATA_WRAPPER(ret, name, params, args, op, off, is_aligned)          \
	IOL_REAL_DECL(ret, name, params);                                    \
	ret name params                                                      \
	{                                                                    \
		IOL_RESOLVE(name);                                           \
		struct iol_record_block *r = iol_fd_get(fd);                 \
		if (IOL_LIKELY(!r))                                          \
			return real_##name args;                             \
		int al = is_aligned;                                         \
		iol_tick t1 = iol_op_begin();                                \
		ret n = real_##name args;                                    \
		iol_tick t2 = iol_op_end(t1);                                \
		if (n >= 0)                                                  \
			rw(r, op, off, (int64_t)n, al, t1, t2);              \
		return n;                                                    \
	}

DATA_WRAPPER(ssize_t, read, (int fd, void *buf, size_t count), (fd, buf, count), IOL_OP_READ, -1, aligned(buf))
DATA_WRAPPER(ssize_t, write, (int fd, const void *buf, size_t count), (fd, buf, count), IOL_OP_WRITE, -1, aligned(buf))
DATA_WRAPPER(ssize_t, pread, (int fd, void *buf, size_t count, off_t o), (fd, buf, count, o), IOL_OP_READ, o, aligned(buf))
DATA_WRAPPER(ssize_t, pwrite, (int fd, const void *buf, size_t count, off_t o), (fd, buf, count, o), IOL_OP_WRITE, o, aligned(buf))
DATA_WRAPPER(ssize_t, pread64, (int fd, void *buf, size_t count, off64_t o), (fd, buf, count, o), IOL_OP_READ, o, aligned(buf))
DATA_WRAPPER(ssize_t, pwrite64, (int fd, const void *buf, size_t count, off64_t o), (fd, buf, count, o), IOL_OP_WRITE, o, aligned(buf))
DATA_WRAPPER(ssize_t, readv, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), IOL_OP_READ, -1, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, writev, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), IOL_OP_WRITE, -1, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, preadv, (int fd, const struct iovec *iov, int cnt, off_t o), (fd, iov, cnt, o), IOL_OP_READ, o, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, pwritev, (int fd, const struct iovec *iov, int cnt, off_t o), (fd, iov, cnt, o), IOL_OP_WRITE, o, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, preadv64, (int fd, const struct iovec *iov, int cnt, off64_t o), (fd, iov, cnt, o), IOL_OP_READ, o, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t o), (fd, iov, cnt, o), IOL_OP_WRITE, o, iov_aligned(iov, cnt))
/* Fortified builds (-D_FORTIFY_SOURCE) call these for buffers of known size. */
DATA_WRAPPER(ssize_t, __read_chk, (int fd, void *buf, size_t count, size_t len), (fd, buf, count, len), IOL_OP_READ, -1, aligned(buf))
DATA_WRAPPER(ssize_t, __pread_chk, (int fd, void *buf, size_t count, off_t o, size_t len), (fd, buf, count, o, len), IOL_OP_READ, o, aligned(buf))
DATA_WRAPPER(ssize_t, __pread64_chk, (int fd, void *buf, size_t count, off64_t o, size_t len), (fd, buf, count, o, len), IOL_OP_READ, o, aligned(buf))
/* preadv2/pwritev2 with offset -1 use the current position, like read. */
DATA_WRAPPER(ssize_t, preadv2, (int fd, const struct iovec *iov, int cnt, off_t o, int fl), (fd, iov, cnt, o, fl), IOL_OP_READ, o, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, pwritev2, (int fd, const struct iovec *iov, int cnt, off_t o, int fl), (fd, iov, cnt, o, fl), IOL_OP_WRITE, o, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, preadv64v2, (int fd, const struct iovec *iov, int cnt, off64_t o, int fl), (fd, iov, cnt, o, fl), IOL_OP_READ, o, iov_aligned(iov, cnt))
DATA_WRAPPER(ssize_t, pwritev64v2, (int fd, const struct iovec *iov, int cnt, off64_t o, int fl), (fd, iov, cnt, o, fl), IOL_OP_WRITE, o, iov_aligned(iov, cnt))

/* copy_file_range and sendfile move data between two descriptors in the
 * kernel: a read of the source and a write of the destination. */
static void copied(int in, int64_t in_off, int out, int64_t out_off, ssize_t n, iol_tick t1, iol_tick t2)
{
	if (n < 0)
		return;
	int saved = errno;
	struct iol_record_block *r;
	if ((r = iol_fd_get(in)))
		rw(r, IOL_OP_READ, in_off, n, 1, t1, t2);
	if ((r = iol_fd_get(out)))
		rw(r, IOL_OP_WRITE, out_off, n, 1, t1, t2);
	errno = saved;
}

IOL_REAL_DECL(ssize_t, copy_file_range, (int, off64_t *, int, off64_t *, size_t, unsigned int));
ssize_t copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off, size_t len, unsigned int flags)
{
	IOL_RESOLVE(copy_file_range);
	int64_t io = in_off ? *in_off : -1, oo = out_off ? *out_off : -1;
	iol_tick t1 = iol_op_begin();
	ssize_t n = real_copy_file_range(in, in_off, out, out_off, len, flags);
	iol_tick t2 = iol_op_end(t1);
	copied(in, io, out, oo, n, t1, t2);
	return n;
}

#define SENDFILE_WRAPPER(name, offt)                                          \
	IOL_REAL_DECL(ssize_t, name, (int, int, offt *, size_t));             \
	ssize_t name(int out, int in, offt *off, size_t count)                \
	{                                                                     \
		IOL_RESOLVE(name);                                            \
		int64_t io = off ? *off : -1;                                 \
		iol_tick t1 = iol_op_begin();                                 \
		ssize_t n = real_##name(out, in, off, count);                 \
		iol_tick t2 = iol_op_end(t1);                                 \
		copied(in, io, out, -1, n, t1, t2);                           \
		return n;                                                     \
	}

SENDFILE_WRAPPER(sendfile, off_t)
SENDFILE_WRAPPER(sendfile64, off64_t)

/* ---- asynchronous I/O ---- */

/* Requests submitted on tracked descriptors, until their aio_return: the
 * time the submission returned is the operation's start (spec §3.6). */
#define AIO_PENDING 1024
static struct {
	pthread_mutex_t lock;
	const struct aiocb *cb[AIO_PENDING];
	iol_tick t1[AIO_PENDING];
	int op[AIO_PENDING];
} aio = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void aio_submitted(const struct aiocb *cb, int op)
{
	if (!cb || !op || !iol_fd_get(cb->aio_fildes))
		return;
	iol_tick t1 = iol_now();
	int i;
	pthread_mutex_lock(&aio.lock);
	for (i = 0; i < AIO_PENDING; i++)
		if (!aio.cb[i] || aio.cb[i] == cb) {
			aio.cb[i] = cb;
			aio.t1[i] = t1;
			aio.op[i] = op;
			break;
		}
	pthread_mutex_unlock(&aio.lock);
	if (i == AIO_PENDING)
		iol_set_partial(IOL_MOD_POSIX); /* too many requests in flight to follow */
}

/* Removes cb from the pending requests; returns its start (0 if unknown)
 * and sets *op to its direction. */
static iol_tick aio_completed(const struct aiocb *cb, int *op)
{
	iol_tick t1 = 0;
	pthread_mutex_lock(&aio.lock);
	for (int i = 0; i < AIO_PENDING; i++)
		if (aio.cb[i] == cb) {
			aio.cb[i] = NULL;
			t1 = aio.t1[i];
			*op = aio.op[i];
			break;
		}
	pthread_mutex_unlock(&aio.lock);
	return t1;
}

#define AIO_SUBMIT_WRAPPER(name, cb_t, op)                        \
	IOL_REAL_DECL(int, name, (cb_t *));                       \
	int name(cb_t *cb)                                        \
	{                                                         \
		IOL_RESOLVE(name);                                \
		int ret = real_##name(cb);                        \
		if (ret == 0)                                     \
			aio_submitted((const struct aiocb *)cb, op); \
		return ret;                                       \
	}

AIO_SUBMIT_WRAPPER(aio_read, struct aiocb, IOL_OP_READ)
AIO_SUBMIT_WRAPPER(aio_write, struct aiocb, IOL_OP_WRITE)
AIO_SUBMIT_WRAPPER(aio_read64, struct aiocb64, IOL_OP_READ)
AIO_SUBMIT_WRAPPER(aio_write64, struct aiocb64, IOL_OP_WRITE)

/* The direction of a list element: LIO_WRITE, LIO_READ, else none. */
static int lio_op(const struct aiocb *cb)
{
	if (!cb)
		return 0;
	return cb->aio_lio_opcode == LIO_WRITE ? IOL_OP_WRITE : cb->aio_lio_opcode == LIO_READ ? IOL_OP_READ : 0;
}

#define LIO_WRAPPER(name, cb_t)                                                            \
	IOL_REAL_DECL(int, name, (int, cb_t *const[], int, struct sigevent *));            \
	int name(int mode, cb_t *const list[], int n, struct sigevent *sev)                \
	{                                                                                  \
		IOL_RESOLVE(name);                                                         \
		int ret = real_##name(mode, list, n, sev);                                 \
		for (int i = 0; ret == 0 && i < n; i++)                                    \
			aio_submitted((const struct aiocb *)list[i],                       \
				      lio_op((const struct aiocb *)list[i]));              \
		return ret;                                                                \
	}

LIO_WRAPPER(lio_listio, struct aiocb)
LIO_WRAPPER(lio_listio64, struct aiocb64)

#define AIO_RETURN_WRAPPER(name, cb_t)                                                    \
	IOL_REAL_DECL(ssize_t, name, (cb_t *));                                           \
	ssize_t name(cb_t *cb)                                                            \
	{                                                                                 \
		IOL_RESOLVE(name);                                                        \
		ssize_t n = real_##name(cb);                                              \
		iol_tick t2 = iol_now();                                                  \
		struct iol_record_block *r = iol_fd_get(cb->aio_fildes);                  \
		int op = 0;                                                               \
		iol_tick t1 = aio_completed((const struct aiocb *)cb, &op);               \
		if (r && t1 && op && n >= 0)                                              \
			rw(r, op, (int64_t)cb->aio_offset, n, aligned((const void *)cb->aio_buf), t1, t2); \
		return n;                                                                 \
	}

AIO_RETURN_WRAPPER(aio_return, struct aiocb)
AIO_RETURN_WRAPPER(aio_return64, struct aiocb64)

/* ---- positioning, sync, close ---- */

#define SEEK_WRAPPER(name, offt)                                      \
	IOL_REAL_DECL(offt, name, (int, offt, int));                  \
	offt name(int fd, offt off, int whence)                       \
	{                                                             \
		IOL_RESOLVE(name);                                    \
		struct iol_record_block *r = iol_fd_get(fd);          \
		if (!r)                                               \
			return real_##name(fd, off, whence);          \
		iol_tick t1 = iol_op_begin();                         \
		offt ret = real_##name(fd, off, whence);              \
		iol_tick t2 = iol_op_end(t1);                         \
		if (ret >= 0 && iol_enter(r)) {                       \
			prt(r)->rt.offset = ret;                      \
			iol_counters(r)[POSIX_SEEKS]++;               \
			meta_time(r, t1, t2);                         \
			iol_leave(r, t2);                             \
		}                                                     \
		return ret;                                           \
	}

SEEK_WRAPPER(lseek, off_t)
SEEK_WRAPPER(lseek64, off64_t)

#define SYNC_WRAPPER(name, counter)                                             \
	IOL_REAL_DECL(int, name, (int));                                        \
	int name(int fd)                                                        \
	{                                                                       \
		IOL_RESOLVE(name);                                              \
		struct iol_record_block *r = iol_fd_get(fd);                    \
		if (!r)                                                         \
			return real_##name(fd);                                 \
		iol_tick t1 = iol_op_begin();                                   \
		int ret = real_##name(fd);                                      \
		iol_tick t2 = iol_op_end(t1);                                   \
		if (ret == 0 && iol_enter(r)) {                                 \
			iol_counters(r)[counter]++;                             \
			iol_timer(&iol_fcounters(r)[POSIX_F_WRITE_TIME],        \
				  &prt(r)->rt.last_write_end, t1, t2);          \
			iol_leave(r, t2);                                       \
		}                                                               \
		return ret;                                                     \
	}

SYNC_WRAPPER(fsync, POSIX_FSYNCS)
SYNC_WRAPPER(fdatasync, POSIX_FDSYNCS)

IOL_REAL_DECL(int, close, (int));
int close(int fd)
{
	IOL_RESOLVE(close);
	struct iol_record_block *r = iol_fd_get(fd);
	if (!r)
		return real_close(fd);
	iol_tick t1 = iol_op_begin();
	int ret = real_close(fd);
	iol_tick t2 = iol_op_end(t1);
	int saved = errno;
	iol_fd_del(fd);
	if (iol_enter(r)) {
		prt(r)->rt.last_read = 0;
		prt(r)->rt.last_written = 0;
		iol_stamp(iol_fcounters(r), POSIX_F_CLOSE_START_TIMESTAMP, POSIX_F_CLOSE_END_TIMESTAMP, t1, t2);
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
	return ret;
}

/* ---- descriptors ---- */

static void dup_done(int oldfd, int newfd, iol_tick t1, iol_tick t2)
{
	struct iol_record_block *r = iol_fd_get(oldfd);
	if (newfd < 0 || newfd == oldfd)
		return;
	if (!r) {
		iol_fd_del(newfd); /* the target descriptor was closed */
		return;
	}
	opened(r, newfd, POSIX_DUPS, 0, 0, t1, t2);
}

FD_WRAPPER(dup, (int old), (old), dup_done(old, fd, t1, t2))
FD_WRAPPER(dup2, (int old, int new), (old, new), dup_done(old, fd, t1, t2))
FD_WRAPPER(dup3, (int old, int new, int flags), (old, new, flags), dup_done(old, fd, t1, t2))

#define FCNTL_WRAPPER(name)                                                  \
	IOL_REAL_DECL(int, name, (int, int, ...));                           \
	int name(int fd, int cmd, ...)                                       \
	{                                                                    \
		va_list ap;                                                  \
		va_start(ap, cmd);                                           \
		void *arg = va_arg(ap, void *);                              \
		va_end(ap);                                                  \
		IOL_RESOLVE(name);                                           \
		if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC)                \
			return real_##name(fd, cmd, arg);                    \
		iol_tick t1 = iol_op_begin();                                \
		int ret = real_##name(fd, cmd, arg);                         \
		iol_tick t2 = iol_op_end(t1);                                \
		int saved = errno;                                           \
		dup_done(fd, ret, t1, t2);                                   \
		errno = saved;                                               \
		return ret;                                                  \
	}

FCNTL_WRAPPER(fcntl)
FCNTL_WRAPPER(fcntl64)

IOL_REAL_DECL(int, fileno, (FILE *));
int fileno(FILE *stream)
{
	IOL_RESOLVE(fileno);
	iol_tick t1 = iol_op_begin();
	int fd = real_fileno(stream);
	iol_tick t2 = iol_op_end(t1);
	if (fd < 0)
		return fd;
	struct iol_record_block *s = iol_handle_get(IOL_H_STDIO, (uint64_t)(uintptr_t)stream);
	const char *name = s ? iol_name(s->id) : NULL;
	if (!name)
		return fd;
	int saved = errno;
	struct iol_record_block *r = iol_record(&iol_posix_module, name);
	if (r)
		opened(r, fd, POSIX_FILENOS, 0, 0, t1, t2);
	errno = saved;
	return fd;
}

#define MMAP_WRAPPER(name, offt)                                                          \
	IOL_REAL_DECL(void *, name, (void *, size_t, int, int, int, offt));               \
	void *name(void *addr, size_t len, int prot, int flags, int fd, offt off)          \
	{                                                                                 \
		IOL_RESOLVE(name);                                                        \
		void *p = real_##name(addr, len, prot, flags, fd, off);                   \
		struct iol_record_block *r;                                               \
		if (p != MAP_FAILED && !(flags & MAP_ANONYMOUS) && (r = iol_fd_get(fd)) && \
		    iol_enter(r)) {                                                       \
			iol_counters(r)[POSIX_MMAPS]++;                                   \
			iol_leave(r, 0);                                                  \
		}                                                                         \
		return p;                                                                 \
	}

MMAP_WRAPPER(mmap, off_t)
MMAP_WRAPPER(mmap64, off64_t)

/* ---- path and descriptor metadata ---- */

static void stat_done(struct iol_record_block *r, iol_tick t1, iol_tick t2)
{
	if (r && iol_enter(r)) {
		iol_counters(r)[POSIX_STATS]++;
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
}

static void path_stat_done(int ret, int is_reg, const char *path, iol_tick t1, iol_tick t2)
{
	if (ret != 0 || !is_reg)
		return;
	int saved = errno;
	stat_done(path_record(path), t1, t2);
	errno = saved;
}

#define PATH_STAT_WRAPPER(name, st_t)                                              \
	IOL_REAL_DECL(int, name, (const char *, st_t *));                          \
	int name(const char *path, st_t *st)                                       \
	{                                                                          \
		IOL_RESOLVE(name);                                                 \
		iol_tick t1 = iol_op_begin();                                      \
		int ret = real_##name(path, st);                                   \
		iol_tick t2 = iol_op_end(t1);                                      \
		path_stat_done(ret, ret == 0 && S_ISREG(st->st_mode), path, t1, t2); \
		return ret;                                                        \
	}

PATH_STAT_WRAPPER(stat, struct stat)
PATH_STAT_WRAPPER(lstat, struct stat)
PATH_STAT_WRAPPER(stat64, struct stat64)
PATH_STAT_WRAPPER(lstat64, struct stat64)

#define XSTAT_WRAPPER(name, st_t)                                                  \
	IOL_REAL_DECL(int, name, (int, const char *, st_t *));                     \
	int name(int ver, const char *path, st_t *st)                              \
	{                                                                          \
		IOL_RESOLVE(name);                                                 \
		iol_tick t1 = iol_op_begin();                                      \
		int ret = real_##name(ver, path, st);                              \
		iol_tick t2 = iol_op_end(t1);                                      \
		path_stat_done(ret, ret == 0 && S_ISREG(st->st_mode), path, t1, t2); \
		return ret;                                                        \
	}

XSTAT_WRAPPER(__xstat, struct stat)
XSTAT_WRAPPER(__lxstat, struct stat)
XSTAT_WRAPPER(__xstat64, struct stat64)
XSTAT_WRAPPER(__lxstat64, struct stat64)

#define FSTAT_WRAPPER(name, params, args, st)                               \
	IOL_REAL_DECL(int, name, params);                                   \
	int name params                                                     \
	{                                                                   \
		IOL_RESOLVE(name);                                          \
		struct iol_record_block *r = iol_fd_get(fd);                \
		if (!r)                                                     \
			return real_##name args;                            \
		iol_tick t1 = iol_op_begin();                               \
		int ret = real_##name args;                                 \
		iol_tick t2 = iol_op_end(t1);                               \
		if (ret == 0 && S_ISREG((st)->st_mode))                     \
			stat_done(r, t1, t2);                               \
		return ret;                                                 \
	}

FSTAT_WRAPPER(fstat, (int fd, struct stat *st), (fd, st), st)
FSTAT_WRAPPER(fstat64, (int fd, struct stat64 *st), (fd, st), st)
FSTAT_WRAPPER(__fxstat, (int ver, int fd, struct stat *st), (ver, fd, st), st)
FSTAT_WRAPPER(__fxstat64, (int ver, int fd, struct stat64 *st), (ver, fd, st), st)

static void statat_done(int ret, int is_reg, int dirfd, const char *path, int flags, iol_tick t1, iol_tick t2)
{
	if (ret != 0 || !is_reg)
		return;
	if ((flags & AT_EMPTY_PATH) && path[0] == 0) {
		stat_done(iol_fd_get(dirfd), t1, t2);
		return;
	}
	char buf[PATH_MAX];
	path_stat_done(ret, is_reg, at_path(dirfd, path, buf, sizeof buf), t1, t2);
}

#define STATAT_WRAPPER(name, st_t)                                                          \
	IOL_REAL_DECL(int, name, (int, const char *, st_t *, int));                         \
	int name(int dirfd, const char *path, st_t *st, int flags)                          \
	{                                                                                   \
		IOL_RESOLVE(name);                                                          \
		iol_tick t1 = iol_op_begin();                                               \
		int ret = real_##name(dirfd, path, st, flags);                              \
		iol_tick t2 = iol_op_end(t1);                                               \
		statat_done(ret, ret == 0 && S_ISREG(st->st_mode), dirfd, path, flags, t1, t2); \
		return ret;                                                                 \
	}

STATAT_WRAPPER(fstatat, struct stat)
STATAT_WRAPPER(fstatat64, struct stat64)

IOL_REAL_DECL(int, statx, (int, const char *, int, unsigned int, struct statx *));
int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *st)
{
	IOL_RESOLVE(statx);
	iol_tick t1 = iol_op_begin();
	int ret = real_statx(dirfd, path, flags, mask, st);
	iol_tick t2 = iol_op_end(t1);
	statat_done(ret, ret == 0 && S_ISREG(st->stx_mode), dirfd, path, flags, t1, t2);
	return ret;
}

IOL_REAL_DECL(int, rename, (const char *, const char *));
int rename(const char *from, const char *to)
{
	IOL_RESOLVE(rename);
	iol_tick t1 = iol_op_begin();
	int ret = real_rename(from, to);
	iol_tick t2 = iol_op_end(t1);
	if (ret != 0)
		return ret;
	int saved = errno;
	char buf[PATH_MAX];
	iol_ensure_started();
	struct iol_record_block *src = NULL;
	if (iol_active && iol_normalize(from, buf, sizeof buf))
		src = iol_record_by_id(IOL_MOD_POSIX, iol_hash(buf, strlen(buf)));
	if (src) {
		uint64_t src_id = src->id;
		if (iol_enter(src)) {
			iol_counters(src)[POSIX_RENAME_SOURCES]++;
			meta_time(src, t1, t2);
			iol_leave(src, t2);
		}
		struct iol_record_block *dst = path_record(to);
		if (dst && iol_enter(dst)) {
			int64_t *c = iol_counters(dst);
			c[POSIX_RENAME_TARGETS]++;
			if (c[POSIX_RENAMED_FROM] == 0)
				c[POSIX_RENAMED_FROM] = (int64_t)src_id;
			iol_leave(dst, t2);
		}
	}
	errno = saved;
	return ret;
}

IOL_REAL_DECL(int, unlink, (const char *));
int unlink(const char *path)
{
	IOL_RESOLVE(unlink);
	iol_tick t1 = iol_op_begin();
	int ret = real_unlink(path);
	iol_tick t2 = iol_op_end(t1);
	if (ret != 0)
		return ret;
	int saved = errno;
	char buf[PATH_MAX];
	struct iol_record_block *r = NULL;
	if (iol_active && iol_normalize(path, buf, sizeof buf))
		r = iol_record_by_id(IOL_MOD_POSIX, iol_hash(buf, strlen(buf)));
	if (r && iol_enter(r)) {
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
	return ret;
}

/* ---- descriptors inherited across exec ---- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Tracks the regular files a new process image inherited (e.g. a shell
 * redirection "cmd > file"), at their current position. No open is counted:
 * the process did not open them. */
void iol_posix_adopt_fds(void)
{
	int dir = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	char buf[4096];
	long n;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
		for (long pos = 0; pos < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + pos);
			pos += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			int fd = 0;
			for (const char *p = d->d_name; *p; p++)
				fd = fd * 10 + (*p - '0');
			if (fd == dir)
				continue;
			char link[64], target[PATH_MAX];
			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			long l = syscall(SYS_readlinkat, AT_FDCWD, link, target, sizeof target - 1);
			if (l <= 0 || target[0] != '/')
				continue;
			target[l] = 0;
			if (l > 10 && !strcmp(target + l - 10, " (deleted)"))
				continue;
			struct stat st;
			if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			struct iol_record_block *r = iol_record(&iol_posix_module, target);
			if (!r)
				continue;
			off_t pos0 = (off_t)syscall(SYS_lseek, fd, 0, SEEK_CUR);
			prt(r)->rt.offset = pos0 > 0 ? pos0 : 0;
			iol_fd_put(fd, r);
		}
	}
	syscall(SYS_close, dir);
}
