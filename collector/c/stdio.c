/*
 * STDIO module: wrappers of the stream calls of the C library, updating
 * STDIO records with Darshan's rules (spec: darshan-runtime-semantics.md §4).
 *
 * Differences from the reference runtime, all of them calls it does not see:
 * puts (strlen + 1 bytes), putc, getc, putchar, getchar, the fortified
 * __printf_chk family and __fgets_chk / __fread_chk, the exported *_unlocked
 * variants, getline / getdelim, scanf / vscanf and the C23 scanf names are
 * counted like their plain equivalents. getw at end of file (EOF returned with
 * the end-of-file or error indicator set) is not counted; the reference runtime
 * counts 4 bytes unless the error indicator is set. fclose and freopen forget
 * the POSIX descriptor of the stream they close (fileno may have tracked it),
 * so that a later descriptor with the same number is not charged to it.
 * Calls the compiler expands inline (getc_unlocked, putc_unlocked and their
 * relatives under optimisation, small constant-size fread_unlocked) stay
 * invisible.
 */
#undef _FORTIFY_SOURCE
#include "iolens.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>

/* Optimised builds turn these into macros (bits/stdio.h). */
#undef fread_unlocked
#undef fwrite_unlocked
#undef getc
#undef putc
#undef getchar
#undef putchar
#undef fgetc_unlocked
#undef fputc_unlocked
#undef getc_unlocked
#undef putc_unlocked
#undef getchar_unlocked
#undef putchar_unlocked
#undef getline

struct stdio_rt {
	struct iol_rt rt;
};

/* The standard streams' records count as opened at time 0 (also when a
 * fork child re-creates them). */
static void stdio_init(struct iol_record_block *r, const char *name)
{
	if (!strcmp(name, "<STDIN>") || !strcmp(name, "<STDOUT>") || !strcmp(name, "<STDERR>"))
		iol_counters(r)[STDIO_OPENS] = 1;
}

static const struct iol_module stdio_module = {
	.id = IOL_MOD_STDIO,
	.ncounters = STDIO_NUM_INDICES,
	.nfcounters = STDIO_F_NUM_INDICES,
	.rt_size = sizeof(struct stdio_rt),
	.init = stdio_init,
};

static inline struct stdio_rt *srt(struct iol_record_block *r)
{
	return (struct stdio_rt *)iol_runtime(r);
}

static inline uint64_t key(FILE *s)
{
	return (uint64_t)(uintptr_t)s;
}

/* ---- module start: the standard streams ---- */

/* The module starts, creating the records of the three standard streams, at
 * the first call on a standard stream or on a stream of a file it records.
 * Calls on files it leaves out (the MPI library reading /proc or its
 * configuration during MPI_Init, say) do not start it, so that a rank that
 * never uses STDIO has no standard-stream records, as under Darshan, whose
 * modules start after MPI_Init. */
static int stdio_state; /* 0 not started, 1 starting, 2 started */

static void stdio_start_slow(void)
{
	iol_ensure_started();
	if (!iol_active)
		return;
	int expected = 0;
	if (!__atomic_compare_exchange_n(&stdio_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	static const char *const names[3] = {"<STDIN>", "<STDOUT>", "<STDERR>"};
	FILE *const streams[3] = {stdin, stdout, stderr};
	int saved = errno;
	for (int i = 0; i < 3; i++) {
		struct iol_record_block *r = iol_record(&stdio_module, names[i]);
		if (r)
			iol_handle_put(IOL_H_STDIO, key(streams[i]), r);
	}
	errno = saved;
	__atomic_store_n(&stdio_state, 2, __ATOMIC_RELEASE);
}

static inline void stdio_start(void)
{
	if (IOL_UNLIKELY(__atomic_load_n(&stdio_state, __ATOMIC_ACQUIRE) != 2))
		stdio_start_slow();
}

/* The record of a stream, or NULL if the stream is not tracked. Before the
 * module starts, only the standard streams can be. */
static inline struct iol_record_block *stream_get(FILE *s)
{
	if (IOL_UNLIKELY(__atomic_load_n(&stdio_state, __ATOMIC_ACQUIRE) != 2)) {
		if (s != stdin && s != stdout && s != stderr)
			return NULL;
		stdio_start_slow();
	}
	return iol_handle_get(IOL_H_STDIO, key(s));
}

/* ---- updates ---- */

static void meta_time(struct iol_record_block *r, iol_tick t1, iol_tick t2)
{
	iol_timer(&iol_fcounters(r)[STDIO_F_META_TIME], &srt(r)->rt.last_meta_end, t1, t2);
}

/* One counted read or write of n bytes at the stream's offset; counter is
 * STDIO_READS, STDIO_WRITES or STDIO_FLUSHES (a write of 0 bytes). */
static inline __attribute__((always_inline)) void xfer(struct iol_record_block *r, int op, int counter,
							int64_t n, iol_tick t1, iol_tick t2)
{
	int saved = errno;
	if (!iol_enter(r)) {
		errno = saved;
		return;
	}
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	struct iol_rt *rt = &srt(r)->rt;
	int64_t off = rt->offset;
	rt->offset = off + n;
	c[counter]++;
	if (op == IOL_OP_READ) {
		c[STDIO_BYTES_READ] += n;
		if (c[STDIO_MAX_BYTE_READ] < off + n - 1)
			c[STDIO_MAX_BYTE_READ] = off + n - 1;
		iol_stamp(f, STDIO_F_READ_START_TIMESTAMP, STDIO_F_READ_END_TIMESTAMP, t1, t2);
		iol_timer(&f[STDIO_F_READ_TIME], &rt->last_read_end, t1, t2);
	} else {
		c[STDIO_BYTES_WRITTEN] += n;
		if (c[STDIO_MAX_BYTE_WRITTEN] < off + n - 1)
			c[STDIO_MAX_BYTE_WRITTEN] = off + n - 1;
		iol_stamp(f, STDIO_F_WRITE_START_TIMESTAMP, STDIO_F_WRITE_END_TIMESTAMP, t1, t2);
		iol_timer(&f[STDIO_F_WRITE_TIME], &rt->last_write_end, t1, t2);
	}
	iol_heatmap(IOL_MOD_STDIO, op, n, t1, t2);
	iol_leave(r, t2);
	errno = saved;
}

#define WRITTEN(r, n, t1, t2) xfer(r, IOL_OP_WRITE, STDIO_WRITES, n, t1, t2)
#define READ(r, n, t1, t2) xfer(r, IOL_OP_READ, STDIO_READS, n, t1, t2)

/* An open-like event that maps stream s to r (NULL: s is not tracked). */
static void opened(struct iol_record_block *r, FILE *s, int fdopened, iol_tick t1, iol_tick t2)
{
	if (!r) {
		if (iol_handle_get(IOL_H_STDIO, key(s)))
			iol_handle_del(IOL_H_STDIO, key(s));
		return;
	}
	if (iol_enter(r)) {
		int64_t *c = iol_counters(r);
		if (!fdopened)
			srt(r)->rt.offset = 0;
		c[STDIO_OPENS]++;
		if (fdopened)
			c[STDIO_FDOPENS]++;
		iol_stamp(iol_fcounters(r), STDIO_F_OPEN_START_TIMESTAMP, STDIO_F_OPEN_END_TIMESTAMP, t1, t2);
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	iol_handle_put(IOL_H_STDIO, key(s), r);
}

/* The record of a file opened by name, or NULL if it is left out; a file
 * that is recorded starts the module. */
static struct iol_record_block *path_record(const char *path)
{
	char buf[PATH_MAX];
	if (!iol_active || !iol_normalize(path, buf, sizeof buf) || iol_excluded(buf))
		return NULL;
	stdio_start();
	return iol_record(&stdio_module, buf);
}

/* Forgets the POSIX descriptor fd of a stream the C library closed. */
static void forget_fd(int fd)
{
	if (fd >= 0 && iol_fd_get(fd))
		iol_fd_del(fd);
}

/* ---- open and close ---- */

#define FOPEN_WRAPPER(name)                                                  \
	IOL_REAL_DECL(FILE *, name, (const char *, const char *));           \
	FILE *name(const char *path, const char *mode)                       \
	{                                                                    \
		IOL_RESOLVE(name);                                           \
		iol_tick t1 = iol_op_begin();                                \
		FILE *s = real_##name(path, mode);                           \
		iol_tick t2 = iol_op_end(t1);                                \
		if (s) {                                                     \
			int saved = errno;                                   \
			opened(path_record(path), s, 0, t1, t2);             \
			if (IOL_UNLIKELY(iol_inject.stdio_buffer))           \
				iol_inject_stdio(s);                         \
			errno = saved;                                       \
		}                                                            \
		return s;                                                    \
	}

FOPEN_WRAPPER(fopen)
FOPEN_WRAPPER(fopen64)

/* freopen(NULL, mode, s) reopens the same file: the stream keeps its
 * record. A failed freopen closed s: its mapping goes. */
#define FREOPEN_WRAPPER(name)                                                         \
	IOL_REAL_DECL(FILE *, name, (const char *, const char *, FILE *));            \
	FILE *name(const char *path, const char *mode, FILE *old)                     \
	{                                                                             \
		IOL_RESOLVE(name);                                                    \
		struct iol_record_block *o = stream_get(old);                         \
		int fd = iol_active ? fileno_unlocked(old) : -1;                      \
		iol_tick t1 = iol_op_begin();                                         \
		FILE *s = real_##name(path, mode, old);                               \
		iol_tick t2 = iol_op_end(t1);                                         \
		int saved = errno;                                                    \
		forget_fd(fd);                                                        \
		if (s)                                                                \
			opened(path ? path_record(path) : o, s, 0, t1, t2);           \
		else if (o)                                                           \
			iol_handle_del(IOL_H_STDIO, key(old));                        \
		errno = saved;                                                        \
		return s;                                                             \
	}

FREOPEN_WRAPPER(freopen)
FREOPEN_WRAPPER(freopen64)

IOL_REAL_DECL(FILE *, fdopen, (int, const char *));
FILE *fdopen(int fd, const char *mode)
{
	IOL_RESOLVE(fdopen);
	iol_tick t1 = iol_op_begin();
	FILE *s = real_fdopen(fd, mode);
	iol_tick t2 = iol_op_end(t1);
	if (s) {
		int saved = errno;
		struct iol_record_block *p = iol_fd_get(fd);
		const char *name = p ? iol_name(p->id) : NULL;
		if (name)
			stdio_start();
		opened(name ? iol_record(&stdio_module, name) : NULL, s, 1, t1, t2);
		errno = saved;
	}
	return s;
}

IOL_REAL_DECL(int, fclose, (FILE *));
int fclose(FILE *s)
{
	IOL_RESOLVE(fclose);
	struct iol_record_block *r = stream_get(s);
	int fd = iol_active ? fileno_unlocked(s) : -1;
	/* Taken before the call, freed after it (see iol_inject_stdio). */
	void *buf = iol_inject_stdio_take(s);
	if (!r) {
		int ret = real_fclose(s);
		int saved = errno;
		forget_fd(fd);
		free(buf);
		errno = saved;
		return ret;
	}
	/* Unmapped before the call: once closed, the pointer may be reused
	 * by another thread's fopen. */
	iol_handle_del(IOL_H_STDIO, key(s));
	iol_tick t1 = iol_op_begin();
	int ret = real_fclose(s);
	iol_tick t2 = iol_op_end(t1);
	int saved = errno;
	forget_fd(fd);
	free(buf);
	if (iol_enter(r)) {
		iol_stamp(iol_fcounters(r), STDIO_F_CLOSE_START_TIMESTAMP, STDIO_F_CLOSE_END_TIMESTAMP, t1, t2);
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
	return ret;
}

/* ---- data ---- */

/* A wrapper of a call on stream s returning v: when cond holds, bytes are
 * counted as a read or write. */
#define DATA_WRAPPER(ret, name, params, args, s, op, cond, bytes)                      \
	IOL_REAL_DECL(ret, name, params);                                               \
	ret name params                                                                 \
	{                                                                               \
		IOL_TIMED_CALL(ret, name, args, stream_get(s), cond,                    \
			       xfer(r, op, op == IOL_OP_READ ? STDIO_READS : STDIO_WRITES, \
				    (int64_t)(bytes), t1, t2));                         \
	}

#define W IOL_OP_WRITE
#define R IOL_OP_READ

DATA_WRAPPER(size_t, fwrite, (const void *p, size_t size, size_t n, FILE *s), (p, size, n, s), s, W, v > 0, size * v)
DATA_WRAPPER(size_t, fwrite_unlocked, (const void *p, size_t size, size_t n, FILE *s), (p, size, n, s), s, W, v > 0, size * v)
DATA_WRAPPER(size_t, fread, (void *p, size_t size, size_t n, FILE *s), (p, size, n, s), s, R, v > 0, size * v)
DATA_WRAPPER(size_t, fread_unlocked, (void *p, size_t size, size_t n, FILE *s), (p, size, n, s), s, R, v > 0, size * v)
DATA_WRAPPER(size_t, __fread_chk, (void *p, size_t plen, size_t size, size_t n, FILE *s), (p, plen, size, n, s), s, R, v > 0, size * v)
DATA_WRAPPER(size_t, __fread_unlocked_chk, (void *p, size_t plen, size_t size, size_t n, FILE *s), (p, plen, size, n, s), s, R, v > 0, size * v)

DATA_WRAPPER(int, fputc, (int ch, FILE *s), (ch, s), s, W, v != EOF, 1)
DATA_WRAPPER(int, fputc_unlocked, (int ch, FILE *s), (ch, s), s, W, v != EOF, 1)
DATA_WRAPPER(int, putc, (int ch, FILE *s), (ch, s), s, W, v != EOF, 1)
DATA_WRAPPER(int, putc_unlocked, (int ch, FILE *s), (ch, s), s, W, v != EOF, 1)
DATA_WRAPPER(int, _IO_putc, (int ch, FILE *s), (ch, s), s, W, v != EOF, 1)
DATA_WRAPPER(int, putchar, (int ch), (ch), stdout, W, v != EOF, 1)
DATA_WRAPPER(int, putchar_unlocked, (int ch), (ch), stdout, W, v != EOF, 1)
DATA_WRAPPER(int, putw, (int w, FILE *s), (w, s), s, W, v != EOF, sizeof(int))
DATA_WRAPPER(int, fputs, (const char *str, FILE *s), (str, s), s, W, v > 0, strlen(str))
DATA_WRAPPER(int, fputs_unlocked, (const char *str, FILE *s), (str, s), s, W, v > 0, strlen(str))
DATA_WRAPPER(int, puts, (const char *str), (str), stdout, W, v >= 0, strlen(str) + 1)

DATA_WRAPPER(int, fgetc, (FILE *s), (s), s, R, v != EOF, 1)
DATA_WRAPPER(int, fgetc_unlocked, (FILE *s), (s), s, R, v != EOF, 1)
DATA_WRAPPER(int, getc, (FILE *s), (s), s, R, v != EOF, 1)
DATA_WRAPPER(int, getc_unlocked, (FILE *s), (s), s, R, v != EOF, 1)
DATA_WRAPPER(int, _IO_getc, (FILE *s), (s), s, R, v != EOF, 1)
DATA_WRAPPER(int, getchar, (void), (), stdin, R, v != EOF, 1)
DATA_WRAPPER(int, getchar_unlocked, (void), (), stdin, R, v != EOF, 1)
DATA_WRAPPER(int, getw, (FILE *s), (s), s, R, v != EOF || (!ferror(s) && !feof(s)), sizeof(int))
DATA_WRAPPER(char *, fgets, (char *b, int n, FILE *s), (b, n, s), s, R, v != NULL, strlen(v))
DATA_WRAPPER(char *, fgets_unlocked, (char *b, int n, FILE *s), (b, n, s), s, R, v != NULL, strlen(v))
DATA_WRAPPER(char *, __fgets_chk, (char *b, size_t bl, int n, FILE *s), (b, bl, n, s), s, R, v != NULL, strlen(v))
DATA_WRAPPER(char *, __fgets_unlocked_chk, (char *b, size_t bl, int n, FILE *s), (b, bl, n, s), s, R, v != NULL, strlen(v))
DATA_WRAPPER(ssize_t, getline, (char **b, size_t *n, FILE *s), (b, n, s), s, R, v > 0, v)
DATA_WRAPPER(ssize_t, getdelim, (char **b, size_t *n, int d, FILE *s), (b, n, d, s), s, R, v > 0, v)
DATA_WRAPPER(ssize_t, __getdelim, (char **b, size_t *n, int d, FILE *s), (b, n, d, s), s, R, v > 0, v)

/* ---- formatted output: bytes = characters written, as returned ---- */

IOL_REAL_DECL(int, vfprintf, (FILE *, const char *, va_list));
IOL_REAL_DECL(int, vprintf, (const char *, va_list));
IOL_REAL_DECL(int, __vfprintf_chk, (FILE *, int, const char *, va_list));
IOL_REAL_DECL(int, __vprintf_chk, (int, const char *, va_list));

/* Body of a formatted write on stream s: vcall calls the real v-function
 * with the caller's va_list. */
#define PRINT_BODY(real, s, vcall)                                   \
	IOL_RESOLVE(real);                                           \
	struct iol_record_block *r = stream_get(s);                  \
	if (!r)                                                      \
		return vcall;                                        \
	iol_tick t1 = iol_op_begin();                                \
	int v = vcall;                                               \
	iol_tick t2 = iol_op_end(t1);                                \
	if (v > 0)                                                   \
		WRITTEN(r, v, t1, t2);                               \
	return v;

static int print_v(FILE *s, const char *fmt, va_list ap)
{
	PRINT_BODY(vfprintf, s, real_vfprintf(s, fmt, ap))
}

static int print_chk_v(FILE *s, int flag, const char *fmt, va_list ap)
{
	PRINT_BODY(__vfprintf_chk, s, real___vfprintf_chk(s, flag, fmt, ap))
}

/* printf goes through the real vprintf (not vfprintf on stdout), so that
 * the C library sees the call the program made. */
static int print_out_v(const char *fmt, va_list ap)
{
	PRINT_BODY(vprintf, stdout, real_vprintf(fmt, ap))
}

static int print_out_chk_v(int flag, const char *fmt, va_list ap)
{
	PRINT_BODY(__vprintf_chk, stdout, real___vprintf_chk(flag, fmt, ap))
}

int fprintf(FILE *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = print_v(s, fmt, ap);
	va_end(ap);
	return ret;
}

int vfprintf(FILE *s, const char *fmt, va_list ap)
{
	return print_v(s, fmt, ap);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = print_out_v(fmt, ap);
	va_end(ap);
	return ret;
}

int vprintf(const char *fmt, va_list ap)
{
	return print_out_v(fmt, ap);
}

int __fprintf_chk(FILE *s, int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = print_chk_v(s, flag, fmt, ap);
	va_end(ap);
	return ret;
}

int __vfprintf_chk(FILE *s, int flag, const char *fmt, va_list ap)
{
	return print_chk_v(s, flag, fmt, ap);
}

int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int ret = print_out_chk_v(flag, fmt, ap);
	va_end(ap);
	return ret;
}

int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	return print_out_chk_v(flag, fmt, ap);
}

/* ---- formatted input: bytes = position after - position before ---- */

/* vcall is the call of the real v-function on stream s with ap. A result of
 * 0 (nothing matched) is not counted; EOF is (usually 0 bytes). The two
 * positions are taken inside the timed span: on a read stream each costs a
 * system call, which outside it would be charged to the application's
 * computation. */
#define SCAN_BODY(real, s, vcall)                                          \
	IOL_RESOLVE(real);                                                 \
	struct iol_record_block *r = stream_get(s);                        \
	if (!r)                                                            \
		return vcall;                                              \
	iol_tick t1 = iol_op_begin();                                      \
	int64_t before = ftello(s);                                        \
	int v = vcall;                                                     \
	int saved = errno;                                                 \
	int64_t after = v != 0 ? ftello(s) : before;                       \
	errno = saved;                                                     \
	iol_tick t2 = iol_op_end(t1);                                      \
	if (v != 0)                                                        \
		READ(r, before >= 0 && after >= before ? after - before : 0, t1, t2); \
	return v;

IOL_REAL_DECL(int, vfscanf, (FILE *, const char *, va_list));
IOL_REAL_DECL(int, __isoc99_vfscanf, (FILE *, const char *, va_list));
IOL_REAL_DECL(int, __isoc23_vfscanf, (FILE *, const char *, va_list));
IOL_REAL_DECL(int, vscanf, (const char *, va_list));
IOL_REAL_DECL(int, __isoc99_vscanf, (const char *, va_list));
IOL_REAL_DECL(int, __isoc23_vscanf, (const char *, va_list));

/* One scan family: fscanf, vfscanf, scanf and vscanf under the symbol
 * names given (the C names of the wrappers are prefixed by p: stdio.h may
 * redirect the plain names to the __isoc99_ ones). */
#define SCAN_FAMILY(p, vf, vs, f, s_)                                                \
	static int p##f##_v(FILE *s, const char *fmt, va_list ap)                    \
	{                                                                            \
		SCAN_BODY(vf, s, real_##vf(s, fmt, ap))                              \
	}                                                                            \
	static int p##s_##_v(const char *fmt, va_list ap)                            \
	{                                                                            \
		SCAN_BODY(vs, stdin, real_##vs(fmt, ap))                             \
	}                                                                            \
	int p##f(FILE *s, const char *fmt, ...) __asm__(#f);                         \
	int p##f(FILE *s, const char *fmt, ...)                                      \
	{                                                                            \
		va_list ap;                                                          \
		va_start(ap, fmt);                                                   \
		int ret = p##f##_v(s, fmt, ap);                                      \
		va_end(ap);                                                          \
		return ret;                                                          \
	}                                                                            \
	int p##vf(FILE *s, const char *fmt, va_list ap) __asm__(#vf);                \
	int p##vf(FILE *s, const char *fmt, va_list ap)                              \
	{                                                                            \
		return p##f##_v(s, fmt, ap);                                         \
	}                                                                            \
	int p##s_(const char *fmt, ...) __asm__(#s_);                                \
	int p##s_(const char *fmt, ...)                                              \
	{                                                                            \
		va_list ap;                                                          \
		va_start(ap, fmt);                                                   \
		int ret = p##s_##_v(fmt, ap);                                        \
		va_end(ap);                                                          \
		return ret;                                                          \
	}                                                                            \
	int p##vs(const char *fmt, va_list ap) __asm__(#vs);                         \
	int p##vs(const char *fmt, va_list ap)                                       \
	{                                                                            \
		return p##s_##_v(fmt, ap);                                           \
	}

SCAN_FAMILY(iol_w_, vfscanf, vscanf, fscanf, scanf)
SCAN_FAMILY(iol_w_, __isoc99_vfscanf, __isoc99_vscanf, __isoc99_fscanf, __isoc99_scanf)
/* Names used by programs built against glibc 2.38 and later. */
SCAN_FAMILY(iol_w_, __isoc23_vfscanf, __isoc23_vscanf, __isoc23_fscanf, __isoc23_scanf)

/* ---- positioning and flushing ---- */

/* A successful positioning call: the offset becomes the stream position. */
static void positioned(struct iol_record_block *r, FILE *s, int64_t pos, iol_tick t1, iol_tick t2)
{
	int saved = errno;
	if (pos < 0)
		pos = ftello(s);
	if (iol_enter(r)) {
		if (pos >= 0)
			srt(r)->rt.offset = pos;
		iol_counters(r)[STDIO_SEEKS]++;
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
}

#define SEEK_WRAPPER(name, params, args)                                                     \
	IOL_REAL_DECL(int, name, params);                                                    \
	int name params                                                                      \
	{                                                                                    \
		IOL_TIMED_CALL(int, name, args, stream_get(s), v >= 0, positioned(r, s, -1, t1, t2)); \
	}

SEEK_WRAPPER(fseek, (FILE *s, long off, int whence), (s, off, whence))
SEEK_WRAPPER(fseeko, (FILE *s, off_t off, int whence), (s, off, whence))
SEEK_WRAPPER(fseeko64, (FILE *s, off64_t off, int whence), (s, off, whence))
SEEK_WRAPPER(fsetpos, (FILE *s, const fpos_t *pos), (s, pos))
SEEK_WRAPPER(fsetpos64, (FILE *s, const fpos64_t *pos), (s, pos))

IOL_REAL_DECL(void, rewind, (FILE *));
void rewind(FILE *s)
{
	IOL_RESOLVE(rewind);
	struct iol_record_block *r = stream_get(s);
	if (!r) {
		real_rewind(s);
		return;
	}
	iol_tick t1 = iol_op_begin();
	real_rewind(s);
	iol_tick t2 = iol_op_end(t1);
	positioned(r, s, 0, t1, t2);
}

/* fflush(NULL) flushes every stream and records nothing. */
#define FLUSH_WRAPPER(name)                                                     \
	IOL_REAL_DECL(int, name, (FILE *));                                     \
	int name(FILE *s)                                                       \
	{                                                                       \
		IOL_RESOLVE(name);                                              \
		struct iol_record_block *r = s ? stream_get(s) : NULL;          \
		if (!r)                                                         \
			return real_##name(s);                                  \
		iol_tick t1 = iol_op_begin();                                   \
		int v = real_##name(s);                                         \
		iol_tick t2 = iol_op_end(t1);                                   \
		if (v >= 0)                                                     \
			xfer(r, IOL_OP_WRITE, STDIO_FLUSHES, 0, t1, t2);        \
		return v;                                                       \
	}

FLUSH_WRAPPER(fflush)
FLUSH_WRAPPER(fflush_unlocked)
