/*
 * Fortran I/O statements (libgfortran), timed whole as I/O in function
 * profiles only: no Darshan counter changes here. A formatted WRITE spends
 * most of its time formatting into libgfortran's buffer and reaches write(2)
 * once in a while; the statement, not just the system call, is I/O time for
 * the user and for the static model.
 *
 * gfortran compiles a data transfer statement into
 *   _gfortran_st_write(&dt);                  (or _gfortran_st_read)
 *   _gfortran_transfer_integer_write(&dt, ...), _gfortran_transfer_array(...)
 *   ...                                       (one call per I/O list item)
 *   _gfortran_st_write_done(&dt);             (or _gfortran_st_read_done)
 * where dt, a st_parameter_dt on the caller's stack, is the statement. A
 * span (iolens.h) opens at st_write/st_read and closes after the matching
 * *_done: the transfer calls and whatever the I/O list evaluates run inside
 * it and need no wrapper. *_done is called also when the statement fails
 * with IOSTAT=, ERR=, END= or EOR= (the branch is taken after it); an error
 * without them aborts the program.
 *
 * Statements nest: a child statement of user-defined derived-type I/O, or
 * a WRITE in a function referenced in an I/O list, runs inside its parent.
 * Each thread keeps a small stack of its open statements, each known by the
 * address of its st_parameter_dt; a nested statement is a span of its own,
 * charged to the function that executes it (the derived-type I/O
 * procedure), and its parent's span adds only the rest (iol_span_end).
 * Statements nested deeper than DT_MAX are inside their parents' spans and
 * are not timed on their own. A nested statement lives in a deeper frame
 * than its parents, so a begin with the address of an open statement, or a
 * *_done for a statement below the top, means the statements above it never
 * ended: they are dropped (their time is lost, no depth is left behind).
 *
 * Internal I/O (READ/WRITE on a character variable) moves no data to a
 * file and is not timed (its statements are on the stack, marked). The test
 * reads the head of the statement's parameter block, st_parameter_common,
 * part of the interface between gfortran and libgfortran.so.5 (GCC 8 and
 * later; checked with gfortran 12's -fdump-tree-original):
 *   offset 0: GFC_INTEGER_4 flags, bit 14 (IOPARM_DT_HAS_INTERNAL_UNIT) set
 *             by the compiler when the unit is a character variable;
 *   offset 4: GFC_INTEGER_4 unit, -1 or -2 (GFC_INTERNAL_UNIT,
 *             GFC_INTERNAL_UNIT4) for internal units; external units are
 *             >= 0, NEWUNIT= numbers <= -10.
 * The child statement of derived-type I/O on an internal unit names its
 * unit by number, without the flag: libgfortran gives the internal parent
 * a NEWUNIT-like number (-10, ...), stored in its unit field by the real
 * st_write/st_read, and a statement on the number of an open internal
 * statement is internal too.
 *
 * OPEN, CLOSE, REWIND, BACKSPACE, ENDFILE, FLUSH, INQUIRE and WAIT are one
 * call each, timed as a span. INQUIRE(IOLENGTH=) (st_iolength) moves no data
 * and is not wrapped.
 *
 * Without function profiling (iol_span_on() false) every wrapper reads one
 * thread-local word and calls through. A program linked with
 * -static-libgfortran calls its own copy and is not seen.
 */
#include "iolens.h"

#define DT_HAS_INTERNAL_UNIT (1 << 14)
#define INTERNAL_UNIT (-1)
#define INTERNAL_UNIT4 (-2)

/* The head of every statement parameter block (see above). */
struct gf_common {
	int32_t flags;
	int32_t unit;
};

/* The open data transfer statements of the thread, innermost last. */
#define DT_MAX 8
struct dt_span {
	const void *dt;
	iol_tick t1;
	iol_tick io1;
	int32_t internal; /* on an internal unit: not timed */
	int32_t unit;     /* of an internal statement, once it began */
};
static __thread struct {
	uint32_t n;
	struct dt_span s[DT_MAX];
} open_dt __attribute__((tls_model("initial-exec")));

/* Whether statement dt is internal I/O: on a character variable, or the
 * child statement of derived-type I/O on the unit number libgfortran gave
 * an open internal statement. */
static int internal_unit(const void *dt)
{
	const struct gf_common *c = dt;
	if ((c->flags & DT_HAS_INTERNAL_UNIT) || c->unit == INTERNAL_UNIT || c->unit == INTERNAL_UNIT4)
		return 1;
	for (uint32_t i = 0; i < open_dt.n; i++)
		if (open_dt.s[i].internal && open_dt.s[i].unit == c->unit)
			return 1;
	return 0;
}

/* Opens the statement dt if the thread is profiled; returns its span or
 * NULL. */
static inline struct dt_span *dt_begin(const void *dt)
{
	if (IOL_LIKELY(!iol_span_on()) || !dt)
		return NULL;
	iol_tick t1 = iol_now();
	uint32_t n = open_dt.n;
	for (uint32_t i = 0; i < n; i++)
		if (open_dt.s[i].dt == dt) { /* it and those above it never ended */
			n = open_dt.n = i;
			break;
		}
	if (n == DT_MAX)
		return NULL;
	struct dt_span *o = &open_dt.s[n];
	o->internal = internal_unit(dt);
	o->unit = ((const struct gf_common *)dt)->unit;
	o->dt = dt;
	o->t1 = t1;
	o->io1 = iol_fn_io_mark();
	open_dt.n = n + 1;
	return o;
}

/* The open statement dt, made the innermost, or NULL. */
static struct dt_span *dt_find(const void *dt)
{
	for (uint32_t i = open_dt.n; i > 0; i--)
		if (open_dt.s[i - 1].dt == dt) {
			open_dt.n = i;
			return &open_dt.s[i - 1];
		}
	return NULL;
}

/* The real st_write/st_read assigns an internal statement's unit number,
 * the one its derived-type I/O children name. */
#define DT_BEGIN(name)                                                      \
	IOL_REAL_DECL(void, name, (void *));                                \
	void name(void *dt)                                                 \
	{                                                                   \
		IOL_RESOLVE(name);                                          \
		struct dt_span *o = dt_begin(dt);                           \
		real_##name(dt);                                            \
		if (o && o->internal)                                       \
			o->unit = ((const struct gf_common *)dt)->unit;     \
	}

/* Closes the statement dt, if it is open, after the real *_done. */
#define DT_DONE(name)                                                    \
	IOL_REAL_DECL(void, name, (void *));                             \
	void name(void *dt)                                              \
	{                                                                \
		IOL_RESOLVE(name);                                       \
		struct dt_span *o;                                       \
		if (IOL_LIKELY(!open_dt.n) || !(o = dt_find(dt))) {      \
			real_##name(dt);                                 \
			return;                                          \
		}                                                        \
		real_##name(dt);                                         \
		open_dt.n--;                                             \
		if (!o->internal)                                        \
			iol_span_end(o->t1, o->io1);                     \
	}

DT_BEGIN(_gfortran_st_write)
DT_DONE(_gfortran_st_write_done)
DT_BEGIN(_gfortran_st_read)
DT_DONE(_gfortran_st_read_done)

/* A statement made of one call. */
#define STMT(name)                                                   \
	IOL_REAL_DECL(void, name, (void *));                         \
	void name(void *p)                                           \
	{                                                            \
		IOL_RESOLVE(name);                                   \
		if (IOL_LIKELY(!iol_span_on())) {                    \
			real_##name(p);                              \
			return;                                      \
		}                                                    \
		iol_tick t1 = iol_now(), io1 = iol_fn_io_mark();     \
		real_##name(p);                                      \
		iol_span_end(t1, io1);                               \
	}

STMT(_gfortran_st_open)
STMT(_gfortran_st_close)
STMT(_gfortran_st_rewind)
STMT(_gfortran_st_backspace)
STMT(_gfortran_st_endfile)
STMT(_gfortran_st_flush)
STMT(_gfortran_st_inquire)
STMT(_gfortran_st_wait)
STMT(_gfortran_st_wait_async)
