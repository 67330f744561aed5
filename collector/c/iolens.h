/*
 * Internal interface of the iolens preload library, shared by the core
 * (core.c: start-up, store, names, records, handle tables, time, DXT,
 * heatmaps) and the instrumentation modules (posix.c, stdio.c, mpiio.c,
 * hdf5.c, pnetcdf.c).
 *
 * A module wrapper follows one pattern:
 *
 *   ssize_t write(int fd, const void *buf, size_t n) {
 *       IOL_RESOLVE(write);                       // pointer to the real call
 *       struct iol_record_block *r = iol_fd_get(fd);
 *       if (!r) return real_write(fd, buf, n);    // not tracked: no cost
 *       iol_tick t1 = iol_now();
 *       ssize_t ret = real_write(fd, buf, n);
 *       iol_tick t2 = iol_now();
 *       if (iol_enter(r)) { ...update counters...; iol_leave(r, t2); }
 *       return ret;
 *   }
 *
 * iol_enter takes the record's lock (skipped while the process has a single
 * thread) and refuses re-entry from a signal handler that interrupted an
 * update on the same thread.
 */
#ifndef IOLENS_H
#define IOLENS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "counters.h"
#include "store.h"

#define IOL_HIDDEN __attribute__((visibility("hidden")))
#define IOL_LIKELY(x) __builtin_expect(!!(x), 1)
#define IOL_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef uint64_t iol_tick;

/* Reads the tick counter. */
static inline iol_tick iol_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;
	extern int clock_gettime(int, struct timespec *);
	clock_gettime(1 /* CLOCK_MONOTONIC */, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* ---- operation timing and function profiling (funcs.c) ---- */

/* Per-thread word shared by the wrappers and the -finstrument-functions
 * profiler: the low bits count the intercepted operations in progress on
 * the thread (an HDF5 call doing POSIX writes is one operation), IOL_FN_ON
 * is set once the thread entered an instrumented function. */
IOL_HIDDEN extern __thread uint64_t iol_fn_state __attribute__((tls_model("initial-exec")));
#define IOL_FN_ON (UINT64_C(1) << 63)

/* Adds an outermost operation from t1 to t2 to the thread's I/O time. */
IOL_HIDDEN void iol_fn_io(iol_tick t1, iol_tick t2);

/* Time stamps around the real call of every timed wrapper:
 *   iol_tick t1 = iol_op_begin(); ...real call...; iol_tick t2 = iol_op_end(t1);
 * Without profiling the cost is an increment, a decrement and one
 * predictable branch. */
static inline iol_tick iol_op_begin(void)
{
	iol_fn_state++;
	return iol_now();
}
static inline iol_tick iol_op_end(iol_tick t1)
{
	iol_tick t2 = iol_now();
	if (IOL_UNLIKELY(--iol_fn_state == IOL_FN_ON))
		iol_fn_io(t1, t2);
	return t2;
}

/* Spans: a call of a language runtime (a Fortran I/O statement, a C++
 * stream operation; fortran.c, cxx.c) timed whole as I/O, for function
 * profiles only:
 *   if (iol_span_on()) { t1 = iol_now(); io1 = iol_fn_io_mark(); }
 *   ...real calls...
 *   iol_span_end(t1, io1);
 * A span may begin only when iol_span_on(): the thread is profiled and no
 * intercepted operation is in progress. Unlike iol_op_begin/iol_op_end it
 * leaves iol_fn_state alone: the intercepted operations inside it (the
 * runtime's write calls, nested spans) time themselves, and the span adds
 * the rest of its duration. A span that never ends (an exception thrown
 * through it, a statement whose *_done never comes) thus loses only its own
 * time. */
static inline int iol_span_on(void)
{
	return iol_fn_state == IOL_FN_ON;
}
/* The thread's I/O ticks so far (0 if it is not profiled). */
IOL_HIDDEN iol_tick iol_fn_io_mark(void);
/* Where the ticks of a span ending now go: the thread's I/O ticks
 * (returned; NULL if the thread is not profiled) and the self I/O of its
 * innermost frame (*self). */
IOL_HIDDEN iol_tick *iol_fn_io_sinks(iol_tick **self);
/* Ends a span that began at t1 when iol_fn_io_mark() returned io1: adds its
 * duration, less the I/O ticks accounted inside it, to the thread's I/O
 * time. The work is done before the closing time stamp, so that little of
 * the span's own cost falls outside it. */
static inline void iol_span_end(iol_tick t1, iol_tick io1)
{
	iol_tick *self;
	iol_tick *io = iol_fn_io_sinks(&self);
	if (!io)
		return;
	/* The operations inside the span do not overlap (only outermost ones
	 * count) and lie within it. */
	iol_tick start = t1 + (*io - io1);
	int64_t d = (int64_t)(iol_now() - start);
	if (d > 0) {
		*io += (iol_tick)d;
		*self += (iol_tick)d;
	}
}

/* Resolves the next definition of a wrapped function into real_<name>. The
 * pointer variable must be declared with IOL_REAL_DECL. */
#define IOL_REAL_DECL(ret, name, args) static ret(*real_##name) args
#define IOL_RESOLVE(name)                                                      \
	do {                                                                   \
		if (IOL_UNLIKELY(!real_##name))                                \
			real_##name = (__typeof__(real_##name))iol_resolve(#name); \
	} while (0)

/* IOL_RESOLVE for optional libraries (HDF5, PnetCDF): if there is no real
 * call (a program that looks the symbol up to test for the library finds
 * this library's), the wrapper fails with -1 and errno ENOSYS. */
#define IOL_RESOLVE_OR_FAIL(name)                          \
	do {                                               \
		IOL_RESOLVE(name);                         \
		if (IOL_UNLIKELY(!real_##name)) {          \
			errno = ENOSYS;                    \
			return -1;                         \
		}                                          \
	} while (0)

/* The body of a wrapper of a call on a handle: with no record (lookup is
 * NULL) the real call alone; else the real call between two time stamps
 * (t1, t2), its result v, and `done` (which may use r, v, t1, t2) when cond
 * holds. */
#define IOL_TIMED_CALL(ret, name, args, lookup, cond, done) \
	IOL_RESOLVE(name);                                  \
	struct iol_record_block *r = lookup;                \
	if (!r)                                             \
		return real_##name args;                    \
	iol_tick t1 = iol_op_begin();                       \
	ret v = real_##name args;                           \
	iol_tick t2 = iol_op_end(t1);                       \
	if (cond)                                           \
		done;                                       \
	return v

IOL_HIDDEN void *iol_resolve(const char *name);

/* ---- process-wide state ---- */

/* iol_active is non-zero while the library records (after start-up, before
 * the process ends). Wrappers check it through iol_fd_get / iol_record_*. */
IOL_HIDDEN extern volatile int iol_active;
IOL_HIDDEN extern int iol_dxt_enabled;
IOL_HIDDEN extern int iol_learn_enabled;
IOL_HIDDEN extern int64_t iol_mem_alignment;

/* Starts the library if it has not started (safe to call from any wrapper;
 * constructors of other libraries may call wrappers before ours ran). */
IOL_HIDDEN void iol_ensure_started(void);

/* The store header of this process, or NULL before start-up. */
IOL_HIDDEN struct iol_store_header *iol_header(void);

/* Sets the partial bit of a module: data was lost because a cap was hit. */
IOL_HIDDEN void iol_set_partial(int module);

/* Allocates a zeroed block of size bytes (a multiple of 8) in the store,
 * lets fill(block, arg) write its fields and publishes it as type, all under
 * the store lock. Returns the block, or NULL if there is no room or no
 * store. */
IOL_HIDDEN void *iol_block_new(uint32_t type, size_t size, void (*fill)(void *, const void *), const void *arg);

/* Anonymous private zeroed memory of n bytes (reserved lazily), or NULL. */
IOL_HIDDEN void *iol_alloc(size_t n);

/* Function profiling: the thread's open frames are accounted up to now
 * (exit, exec), or handed to a fork child's fresh store. */
IOL_HIDDEN void iol_fn_flush(void);
IOL_HIDDEN void iol_fn_fork_child(void);

/* ---- records ---- */

/* Common runtime state at the start of every record's runtime area; a fork
 * child copies the position fields of records it inherits. */
struct iol_rt {
	int64_t offset;          /* the module's idea of the file position */
	int64_t last_read;       /* last byte read (POSIX) */
	int64_t last_written;    /* last byte written (POSIX) */
	int32_t last_io;         /* 0 none, IOL_OP_READ, IOL_OP_WRITE */
	int32_t pad;
	double last_read_end;    /* timer bookkeeping (ticks) */
	double last_write_end;
	double last_meta_end;
	double last_wait_end;
};

/* Candidate table for the "four most common values" counters. */
#define IOL_CV_MAX 32
#define IOL_CV_INDEX 64 /* hash index slots (a power of two > IOL_CV_MAX) */
struct iol_cv {
	int n;
	int last; /* index of the last hit */
	int64_t val[IOL_CV_MAX];
	int64_t cnt[IOL_CV_MAX];
	uint8_t index[IOL_CV_INDEX]; /* 1 + position in val, 0 = empty */
	uint64_t bloom[2];           /* a bit per value held, see iol_cv_bit */
};

/* The bloom-filter bit of a value (0..127). */
static inline unsigned iol_cv_bit(int64_t v)
{
	return (unsigned)(((uint64_t)v * 0x9e3779b97f4a7c15ULL) >> 57);
}
#define IOL_TUPLE 11
struct iol_cv_tuple {
	int n;
	int pad;
	int64_t val[IOL_CV_MAX][IOL_TUPLE];
	int64_t cnt[IOL_CV_MAX];
};

/* Counter arrays of a record. */
static inline int64_t *iol_counters(struct iol_record_block *r)
{
	return (int64_t *)(r + 1);
}
static inline double *iol_fcounters(struct iol_record_block *r)
{
	return (double *)(iol_counters(r) + r->ncounters);
}
/* Runtime area: struct iol_rt followed by the module's own state. */
static inline struct iol_rt *iol_runtime(struct iol_record_block *r)
{
	return (struct iol_rt *)(iol_fcounters(r) + r->nfcounters);
}

/* Description of a module's records. */
struct iol_module {
	int id;              /* darshan module id */
	uint32_t ncounters;
	uint32_t nfcounters;
	uint32_t rt_size;    /* runtime bytes, including struct iol_rt */
	/* Initialises a new record (e.g. alignment counters); may be NULL.
	 * Called with the record not yet visible to other threads. */
	void (*init)(struct iol_record_block *r, const char *name);
};

/* Normalises path like Darshan (cwd prefix, "//" and "/./" collapsed) into
 * buf (PATH_MAX bytes). Returns buf, or NULL if the result does not fit. */
IOL_HIDDEN char *iol_normalize(const char *path, char *buf, size_t size);

/* Reports whether a (normalised) name is excluded from instrumentation. */
IOL_HIDDEN int iol_excluded(const char *name);

/* Finds or creates the record of module m for name (not normalised here).
 * Returns NULL if the name is excluded, the library is inactive, or the
 * store is full (then the module's partial bit is set). */
IOL_HIDDEN struct iol_record_block *iol_record(const struct iol_module *m, const char *name);
/* Finds a record by id, or NULL. */
IOL_HIDDEN struct iol_record_block *iol_record_by_id(int module, uint64_t id);
/* Returns the name of a record id, or NULL. */
IOL_HIDDEN const char *iol_name(uint64_t id);
/* The lookup8 hash of a name (darshan record id). */
IOL_HIDDEN uint64_t iol_hash(const char *name, size_t len);

/* ---- handle tables ---- */

/* POSIX file descriptors. */
IOL_HIDDEN extern struct iol_record_block *volatile *iol_fdmap;
#define IOL_FDMAP_SIZE 65536
IOL_HIDDEN struct iol_record_block *iol_fd_get_slow(int fd);
static inline struct iol_record_block *iol_fd_get(int fd)
{
	if (IOL_LIKELY((unsigned)fd < IOL_FDMAP_SIZE && iol_fdmap))
		return iol_fdmap[fd];
	return iol_fd_get_slow(fd);
}
IOL_HIDDEN void iol_fd_put(int fd, struct iol_record_block *r);
IOL_HIDDEN void iol_fd_del(int fd);

/* Other handles (FILE*, MPI_File, hid_t, ncid, varid), by kind. */
enum iol_handle_kind {
	IOL_H_STDIO = 1,
	IOL_H_MPIIO,
	IOL_H_H5F,
	IOL_H_H5D,
	IOL_H_NCFILE,
	IOL_H_NCVAR,
};
IOL_HIDDEN struct iol_record_block *iol_handle_get(int kind, uint64_t handle);
IOL_HIDDEN void iol_handle_put(int kind, uint64_t handle, struct iol_record_block *r);
IOL_HIDDEN void iol_handle_del(int kind, uint64_t handle);

/* ---- updates ---- */

IOL_HIDDEN extern __thread int iol_in_update __attribute__((tls_model("initial-exec")));
IOL_HIDDEN void iol_spin(uint32_t *lock);
extern char __libc_single_threaded;

/* Begins an update of r. Returns 0 (and the caller must skip the update)
 * when the library is inactive or a signal handler interrupted an update on
 * this thread. */
static inline int iol_enter(struct iol_record_block *r)
{
	if (IOL_UNLIKELY(!iol_active || iol_in_update))
		return 0;
	iol_in_update = 1;
	if (!__libc_single_threaded &&
	    __atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE))
		iol_spin(&r->lock);
	return 1;
}

IOL_HIDDEN void iol_calibrate(iol_tick now);
IOL_HIDDEN extern iol_tick iol_next_calibration;

/* Ends an update started by iol_enter; now = the latest tick read. */
static inline void iol_leave(struct iol_record_block *r, iol_tick now)
{
	r->events++;
	if (!__libc_single_threaded)
		__atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE);
	iol_in_update = 0;
	if (IOL_UNLIKELY(now >= iol_next_calibration))
		iol_calibrate(now);
}

/* Ticks since tick0 as a double (time stamps in records). */
IOL_HIDDEN extern iol_tick iol_tick0;
static inline double iol_rel(iol_tick t)
{
	return (double)(int64_t)(t - iol_tick0);
}

/* X_START_TIMESTAMP / X_END_TIMESTAMP update (Darshan rules), with the
 * times a = iol_rel(t1), b = iol_rel(t2). */
static inline void iol_stamp_rel(double *f, int start, int end, double a, double b)
{
	if (f[start] == 0 || f[start] > a)
		f[start] = a;
	f[end] = b;
}
static inline void iol_stamp(double *f, int start, int end, iol_tick t1, iol_tick t2)
{
	iol_stamp_rel(f, start, end, iol_rel(t1), iol_rel(t2));
}

/* Cumulative time without double counting (Darshan rules). */
static inline void iol_timer_rel(double *timer, double *last_end, double a, double b)
{
	if (a > *last_end)
		*timer += b - a;
	else
		*timer += b - *last_end;
	if (b > *last_end)
		*last_end = b;
}
static inline void iol_timer(double *timer, double *last_end, iol_tick t1, iol_tick t2)
{
	iol_timer_rel(timer, last_end, iol_rel(t1), iol_rel(t2));
}

/* Slowest single operation. */
static inline void iol_maxtime(double *f, int64_t *c, int fidx, int cidx,
			       iol_tick t1, iol_tick t2, int64_t size)
{
	double d = (double)(int64_t)(t2 - t1);
	if (d > f[fidx]) {
		f[fidx] = d;
		c[cidx] = size;
	}
}

/* Size histogram: c[first + bucket(v)]. */
static inline void iol_histogram(int64_t *c, int first, int64_t v)
{
	int b;
	if (v < 101) b = 0;
	else if (v < 1025) b = 1;
	else if (v < 10241) b = 2;
	else if (v < 102401) b = 3;
	else if (v < 1048577) b = 4;
	else if (v < 4194305) b = 5;
	else if (v < 10485761) b = 6;
	else if (v < 104857601) b = 7;
	else if (v < 1073741825) b = 8;
	else b = 9;
	c[first + b]++;
}

/* Read/write switch. */
static inline void iol_rw_switch(struct iol_rt *rt, int64_t *c, int idx, int op)
{
	if (rt->last_io && rt->last_io != op)
		c[idx]++;
	rt->last_io = op;
}

/* Four most common values: value v counted in table t, slots at
 * c[val_first..+3] (values) and c[cnt_first..+3] (counts). */
IOL_HIDDEN void iol_common_slow(struct iol_cv *t, int64_t *c, int val_first, int cnt_first, int64_t v);
static inline void iol_common(struct iol_cv *t, int64_t *c, int val_first, int cnt_first, int64_t v)
{
	int i = t->last;
	if (IOL_LIKELY(i < t->n && t->val[i] == v)) {
		int64_t f = ++t->cnt[i];
		if (v == 0) /* counted, never shown */
			return;
		if (c[val_first] == v) { /* already the most common */
			c[cnt_first] = f;
			return;
		}
		t->cnt[i]--; /* the slow path counts it */
	} else if (t->n == IOL_CV_MAX) {
		/* A full table never takes new values: most of them are
		 * recognised as new without a lookup. */
		unsigned b = iol_cv_bit(v);
		if (!((t->bloom[b >> 6] >> (b & 63)) & 1))
			return;
	}
	iol_common_slow(t, c, val_first, cnt_first, v);
}
/* The same for 11-value access tuples (H5D, PNETCDF_VAR): tuple k of the
 * record occupies c[val_first + 11*k .. +11), its count c[cnt_first + k]. */
IOL_HIDDEN void iol_common_tuple(struct iol_cv_tuple *t, int64_t *c, int val_first, int cnt_first,
				 const int64_t v[IOL_TUPLE]);

/* ---- DXT and heatmaps ---- */

IOL_HIDDEN void iol_dxt_add(int module, uint64_t id, int op, int64_t offset, int64_t length,
			    iol_tick t1, iol_tick t2);
/* Appends a traced operation (no-op unless DXT is enabled). */
static inline void iol_dxt(int module, uint64_t id, int op, int64_t offset, int64_t length,
			   iol_tick t1, iol_tick t2)
{
	if (IOL_UNLIKELY(iol_dxt_enabled))
		iol_dxt_add(module, id, op, offset, length, t1, t2);
}

/* Depth of PnetCDF and HDF5 data calls in progress on the thread (kept
 * only while learning): a POSIX access inside one is marked nested. */
IOL_HIDDEN extern __thread int iol_learn_depth __attribute__((tls_model("initial-exec")));
#define IOL_LEARN_ENTER()                       \
	do {                                    \
		if (IOL_UNLIKELY(iol_learn_enabled)) \
			iol_learn_depth++;      \
	} while (0)
#define IOL_LEARN_LEAVE()                       \
	do {                                    \
		if (IOL_UNLIKELY(iol_learn_enabled)) \
			iol_learn_depth--;      \
	} while (0)

/* A reader's position in the access sequence (prefetch.c). */
struct iol_access_cursor {
	int chunk;
	uint32_t idx;
};
/* Returns the next completed access after c and advances c, or NULL when
 * the next one has not completed yet. */
IOL_HIDDEN const struct iol_access *iol_access_next(struct iol_access_cursor *c);

/* ---- prefetching (prefetch.c) ---- */
IOL_HIDDEN extern int iol_prefetch_enabled;
/* Loads the plan named by IOLENS_PREFETCH_PLAN, if any (at start-up). */
IOL_HIDDEN void iol_prefetch_init(void);
/* Tells the prefetch thread a new access is there (starting it the first
 * time). */
IOL_HIDDEN void iol_prefetch_wake(void);
/* At exit: lets the prefetch thread account for the last accesses. */
IOL_HIDDEN void iol_prefetch_finish(void);
/* In a fork child: the thread did not survive the fork. */
IOL_HIDDEN void iol_prefetch_fork_child(void);

IOL_HIDDEN void iol_access_add(int module, uint64_t id, uint64_t file, int op, int64_t offset, int64_t length,
				int ndims, const int64_t *sel_start, const int64_t *sel_count, iol_tick t1, iol_tick t2);
/* Appends an access to the access sequence (no-op unless IOLENS_LEARN is
 * set): a POSIX extent (ndims 0, offset >= 0) or a high-level selection
 * (offset -1; sel_start/sel_count of ndims dimensions, NULL = whole). */
static inline void iol_access(int module, uint64_t id, uint64_t file, int op, int64_t offset, int64_t length,
			      int ndims, const int64_t *sel_start, const int64_t *sel_count, iol_tick t1, iol_tick t2)
{
	if (IOL_UNLIKELY(iol_learn_enabled))
		iol_access_add(module, id, file, op, offset, length, ndims, sel_start, sel_count, t1, t2);
}

/* Heatmap of one module: the block in the store and, privately, the bin
 * width's inverse and the tick (relative to tick0) where the bins end. */
struct iol_heat {
	struct iol_heatmap_block *block;
	double inv;
	int64_t end;
};
#define IOL_HEAT_MODULES 16
IOL_HIDDEN extern struct iol_heat iol_heat[IOL_HEAT_MODULES];
IOL_HIDDEN void iol_heatmap_slow(int module, int op, int64_t size, iol_tick t1, iol_tick t2);

/* Adds size bytes moved by module between t1 and t2 to the heatmap. */
static inline void iol_heatmap(int module, int op, int64_t size, iol_tick t1, iol_tick t2)
{
	struct iol_heat *h = &iol_heat[module & (IOL_HEAT_MODULES - 1)];
	int64_t s = (int64_t)(t1 - iol_tick0), e = (int64_t)(t2 - iol_tick0);
	if (IOL_LIKELY(h->block && __libc_single_threaded && e < h->end && size > 0)) {
		int b = (int)((double)s * h->inv);
		if (b == (int)((double)e * h->inv)) {
			(op == IOL_OP_WRITE ? h->block->write : h->block->read)[b] += size;
			return;
		}
	}
	iol_heatmap_slow(module, op, size, t1, t2);
}

/* ---- fork support ---- */

/* Called in a fork child for each tracked record it inherits: returns the
 * replacement record in the child's store (position state copied). */
IOL_HIDDEN struct iol_record_block *iol_inherit(struct iol_record_block *old);

/* Module hooks run at start-up (e.g. STDIO's standard streams). */
IOL_HIDDEN void iol_posix_adopt_fds(void);

/* ---- injected parameters (inject.c) ---- */

#define IOL_MAX_HINTS 32
/* HDF5 file-access properties, in the order of IOLENS_SET_HDF5's names. */
enum {
	IOL_H5_ALIGNMENT,
	IOL_H5_ALIGNMENT_THRESHOLD,
	IOL_H5_SIEVE_BUF_SIZE,
	IOL_H5_META_BLOCK_SIZE,
	IOL_H5_CHUNK_CACHE_BYTES,
	IOL_H5_COLL_METADATA_READ,
	IOL_H5_COLL_METADATA_WRITE,
	IOL_H5_NPROPS
};
/* Counters of the store header's inj[]. */
enum { IOL_INJ_MPIIO, IOL_INJ_HDF5, IOL_INJ_STDIO };

struct iol_inject {
	int nhints;
	const char *hint_keys[IOL_MAX_HINTS], *hint_vals[IOL_MAX_HINTS];
	unsigned h5_set; /* bit k: h5[k] was given */
	int64_t h5[IOL_H5_NPROPS];
	size_t stdio_buffer;
};
/* What to inject, read from the environment at start-up. */
IOL_HIDDEN extern struct iol_inject iol_inject;
IOL_HIDDEN void iol_inject_init(void);
/* Whether the MPI-IO hints apply to the file named filename. */
IOL_HIDDEN int iol_inject_hints_for(const char *filename);
/* Counts an open that got injected parameters (IOL_INJ_*). */
IOL_HIDDEN void iol_inject_count(int which);
/* Gives the stream a buffer of the injected size; the buffer of a stream
 * is taken back before it closes and freed after. */
IOL_HIDDEN void iol_inject_stdio(FILE *s);
IOL_HIDDEN void *iol_inject_stdio_take(FILE *s);

/* ---- MPI (set by mpiio.c in MPI builds) ---- */
IOL_HIDDEN void iol_set_mpi(int64_t rank, int64_t size, uint64_t job, const char *flavor);

#endif
