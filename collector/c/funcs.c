/*
 * Function profiling for programs built with -finstrument-functions: the
 * compiler calls __cyg_profile_func_enter and __cyg_profile_func_exit
 * around every function body. glibc defines both as no-ops, so such a
 * program runs without iolens; preloaded, these definitions take over.
 *
 * Each thread keeps a stack of open frames {function, wall and I/O ticks at
 * entry}. Every outermost intercepted operation (iol_op_end in iolens.h)
 * adds its duration to the thread's I/O ticks and to the self I/O of the
 * innermost frame. A span (a Fortran I/O statement, a C++ stream operation:
 * iol_span_end in iolens.h) adds its duration less the operations inside it
 * the same way. On exit a frame adds a call, and, if it is the
 * outermost frame of its function on the thread, its inclusive wall and
 * I/O ticks, to the function's block in the store (struct iol_func_block),
 * found through a lock-free table keyed by function address.
 *
 * Frames deeper than IOL_FN_DEPTH and functions past IOL_FN_MAX are counted
 * in the header's fn_lost. An exit that does not match the innermost frame
 * (a longjmp or exception skipped exits) closes the frames above the
 * matching one; an exit matching none is ignored.
 */
#include "iolens.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IOL_FN_DEPTH 512           /* frames per thread */
#define IOL_FN_MAX 65536           /* functions per process */
#define IOL_FN_SLOTS (2 * IOL_FN_MAX) /* table slots, a power of two */
#define IOL_FN_BLOOM 256           /* per-thread counts of open frames by hash */

__thread uint64_t iol_fn_state __attribute__((tls_model("initial-exec")));

struct iol_frame {
	void *fn;
	struct iol_func_block *e; /* NULL: no room, or stale */
	iol_tick t0;              /* wall ticks at entry */
	iol_tick io0;             /* the thread's I/O ticks at entry */
	iol_tick self;            /* I/O ticks as the innermost frame */
	uint8_t outer;            /* the outermost open frame of fn on this thread */
	uint8_t counted;          /* its call was already counted (flush, fork) */
	uint8_t stale;            /* e is to be looked up again (fork child) */
};

struct iol_fn_stack {
	iol_tick io;   /* I/O ticks of the thread (outermost operations) */
	uint32_t n;    /* frames in use */
	uint32_t lost; /* open frames beyond the cap */
	uint32_t busy; /* inside a hook: a signal handler's frames are skipped */
	iol_tick spare; /* self I/O of a span ending with no frame to take it */
	uint16_t open[IOL_FN_BLOOM]; /* open frames by function hash */
	struct iol_frame f[IOL_FN_DEPTH];
};

static __thread struct iol_fn_stack *stack __attribute__((tls_model("initial-exec")));

struct iol_fn_slot {
	void *volatile fn; /* NULL = empty */
	struct iol_func_block *volatile e;
};

static struct {
	pthread_mutex_t lock; /* serialises insertions */
	pthread_once_t once;
	pthread_key_t key; /* destructor of thread stacks */
	struct iol_fn_slot *volatile slot;
	uint32_t count;
	char exe[4096]; /* path of the main program */
} fns = {.lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT};

static unsigned fn_hash(const void *fn)
{
	return (unsigned)(((uintptr_t)fn * 0x9e3779b97f4a7c15ULL) >> 40);
}

static void lose_frame(void)
{
	struct iol_store_header *h = iol_header();
	if (h)
		__atomic_fetch_add(&h->fn_lost, 1, __ATOMIC_RELAXED);
}

/* ---- the function table ---- */

/* The block of fn, or NULL. Lock-free. */
static struct iol_func_block *fn_find(struct iol_fn_slot *s, void *fn)
{
	for (unsigned i = fn_hash(fn) & (IOL_FN_SLOTS - 1);; i = (i + 1) & (IOL_FN_SLOTS - 1)) {
		void *k = __atomic_load_n(&s[i].fn, __ATOMIC_ACQUIRE);
		if (k == fn)
			return s[i].e;
		if (!k)
			return NULL;
	}
}

/* Where a function's code comes from. */
struct iol_fn_origin {
	void *fn;
	uint64_t offset;
	const char *object;
	size_t len;
};

static void fill_func(void *b, const void *arg)
{
	struct iol_func_block *e = b;
	const struct iol_fn_origin *o = arg;
	e->addr = (uint64_t)(uintptr_t)o->fn;
	e->offset = o->offset;
	e->object_len = (uint32_t)o->len;
	memcpy(e->object, o->object, o->len);
	e->object[o->len] = 0;
}

/* Resolves the object file of fn and its ELF address there. */
static void fn_origin(void *fn, struct iol_fn_origin *o)
{
	Dl_info info;
	struct link_map *lm = NULL;
	o->fn = fn;
	o->offset = (uint64_t)(uintptr_t)fn;
	o->object = "";
	if (dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm) {
		o->offset -= lm->l_addr;
		o->object = lm->l_name;
	}
	if (!o->object[0]) { /* the main program */
		if (!fns.exe[0]) {
			ssize_t n = readlink("/proc/self/exe", fns.exe, sizeof fns.exe - 1);
			fns.exe[n > 0 ? n : 0] = 0;
		}
		o->object = fns.exe;
	}
	o->len = strnlen(o->object, 4095);
}

/* The block of fn, created on first use; NULL if there is no room. */
static struct iol_func_block *fn_entry(void *fn)
{
	struct iol_fn_slot *s = __atomic_load_n(&fns.slot, __ATOMIC_ACQUIRE);
	struct iol_func_block *e = s ? fn_find(s, fn) : NULL;
	if (IOL_LIKELY(e) || !iol_active)
		return e;
	pthread_mutex_lock(&fns.lock);
	if (!fns.slot)
		fns.slot = iol_alloc(IOL_FN_SLOTS * sizeof *fns.slot);
	s = fns.slot;
	e = s ? fn_find(s, fn) : NULL;
	if (!e && s && fns.count < IOL_FN_MAX) {
		struct iol_fn_origin o;
		fn_origin(fn, &o);
		e = iol_block_new(IOL_BLK_FUNC, (sizeof *e + o.len + 1 + 7) & ~(size_t)7, fill_func, &o);
		if (e) {
			unsigned i = fn_hash(fn) & (IOL_FN_SLOTS - 1);
			while (s[i].fn)
				i = (i + 1) & (IOL_FN_SLOTS - 1);
			s[i].e = e;
			__atomic_store_n(&s[i].fn, fn, __ATOMIC_RELEASE);
			fns.count++;
		}
	}
	pthread_mutex_unlock(&fns.lock);
	return e;
}

/* ---- per-thread stacks ---- */

static void add(uint64_t *p, uint64_t v)
{
	if (__libc_single_threaded)
		*p += v;
	else
		__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/* Accounts frame f up to now without closing it. */
static void account(struct iol_fn_stack *s, struct iol_frame *f, iol_tick now)
{
	if (IOL_UNLIKELY(f->stale)) {
		f->e = fn_entry(f->fn);
		f->stale = 0;
	}
	struct iol_func_block *e = f->e;
	if (!e)
		return;
	if (!f->counted)
		add(&e->calls, 1);
	if (f->self)
		add(&e->self_io, f->self);
	if (f->outer) {
		add(&e->wall, now - f->t0);
		add(&e->io, s->io - f->io0);
	}
}

/* Closes the innermost frame at now. */
static void pop(struct iol_fn_stack *s, iol_tick now)
{
	struct iol_frame *f = &s->f[--s->n];
	account(s, f, now);
	s->open[fn_hash(f->fn) & (IOL_FN_BLOOM - 1)]--;
}

/* Accounts the open frames of s up to now; they go on as calls already
 * counted. */
static void flush(struct iol_fn_stack *s, iol_tick now)
{
	for (uint32_t i = 0; i < s->n; i++) {
		struct iol_frame *f = &s->f[i];
		account(s, f, now);
		f->counted = 1;
		f->t0 = now;
		f->io0 = s->io;
		f->self = 0;
	}
}

static void stack_free(void *p)
{
	struct iol_fn_stack *s = p;
	s->busy = 1;
	flush(s, iol_now());
	stack = NULL;
	iol_fn_state &= ~IOL_FN_ON;
	syscall(SYS_munmap, s, sizeof *s);
}

static void make_key(void)
{
	pthread_key_create(&fns.key, stack_free);
}

static struct iol_fn_stack *stack_new(void)
{
	struct iol_fn_stack *s = iol_alloc(sizeof *s);
	if (!s)
		return NULL;
	pthread_once(&fns.once, make_key);
	pthread_setspecific(fns.key, s);
	stack = s;
	iol_fn_state |= IOL_FN_ON;
	return s;
}

/* ---- hooks ---- */

void iol_fn_io(iol_tick t1, iol_tick t2)
{
	struct iol_fn_stack *s = stack;
	iol_tick d = t2 - t1;
	if (!s)
		return;
	s->io += d;
	if (s->n && !s->lost)
		s->f[s->n - 1].self += d;
}

iol_tick iol_fn_io_mark(void)
{
	struct iol_fn_stack *s = stack;
	return s ? s->io : 0;
}

iol_tick *iol_fn_io_sinks(iol_tick **self)
{
	struct iol_fn_stack *s = stack;
	if (!s)
		return NULL;
	*self = s->n && !s->lost ? &s->f[s->n - 1].self : &s->spare;
	return &s->io;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	struct iol_fn_stack *s = stack;
	if (IOL_UNLIKELY(!s)) {
		int saved = errno;
		iol_ensure_started();
		s = stack_new();
		errno = saved;
		if (!s)
			return;
	}
	if (s->busy)
		return;
	s->busy = 1;
	if (IOL_UNLIKELY(s->lost || s->n == IOL_FN_DEPTH)) {
		s->lost++;
		lose_frame();
		s->busy = 0;
		return;
	}
	int saved = errno;
	struct iol_func_block *e = fn_entry(fn);
	if (!e && iol_active)
		lose_frame();
	errno = saved;
	struct iol_frame *f = &s->f[s->n];
	uint16_t *open = &s->open[fn_hash(fn) & (IOL_FN_BLOOM - 1)];
	f->fn = fn;
	f->e = e;
	f->outer = 1;
	for (uint32_t i = *open ? s->n : 0; i > 0; i--)
		if (s->f[i - 1].fn == fn) {
			f->outer = 0;
			break;
		}
	f->counted = 0;
	f->stale = 0;
	f->self = 0;
	f->io0 = s->io;
	++*open;
	s->n++;
	f->t0 = iol_now();
	s->busy = 0;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	iol_tick now = iol_now();
	struct iol_fn_stack *s = stack;
	(void)site;
	if (!s || s->busy)
		return;
	s->busy = 1;
	if (s->lost) {
		s->lost--;
	} else {
		uint32_t i = s->n;
		while (i > 0 && s->f[i - 1].fn != fn)
			i--;
		if (i > 0) {
			int saved = errno;
			while (s->n >= i)
				pop(s, now);
			errno = saved;
		}
	}
	s->busy = 0;
}

/* ---- exit, exec and fork ---- */

void iol_fn_flush(void)
{
	struct iol_fn_stack *s = stack;
	if (!s || s->busy)
		return;
	s->busy = 1;
	flush(s, iol_now());
	s->busy = 0;
}

void iol_fn_fork_child(void)
{
	pthread_mutex_init(&fns.lock, NULL);
	if (fns.slot) {
		syscall(SYS_munmap, fns.slot, IOL_FN_SLOTS * sizeof *fns.slot);
		fns.slot = NULL;
	}
	fns.count = 0;
	/* The parent counts the calls open at the fork; the child accounts
	 * their time from now on, in its own store. */
	struct iol_fn_stack *s = stack;
	if (!s)
		return;
	iol_tick now = iol_now();
	for (uint32_t i = 0; i < s->n; i++) {
		struct iol_frame *f = &s->f[i];
		f->e = NULL;
		f->stale = 1;
		f->counted = 1;
		f->t0 = now;
		f->io0 = s->io;
		f->self = 0;
	}
}
