/* iolens: mpi */
/*
 * PnetCDF modules: PNETCDF_FILE (files) and PNETCDF_VAR (variables), with
 * Darshan's rules (spec: darshan-runtime-semantics.md §7).
 *
 * The library is not linked against PnetCDF: the wrapped prototypes are
 * declared here (pnetcdf.h, when the compiler finds it, only checks them)
 * and the real functions and the inquiry helpers are resolved at run time.
 * The several hundred typed data calls are generated from one list of
 * families and one list of element types.
 *
 * Differences from the reference runtime: a variable handle is the pair
 * (ncid, varid), not the varid alone, so accesses to two open files whose
 * variables share a varid go to the right records; and a variable's file
 * name goes through the same "driver:" prefix rule as the file record's, so
 * PNETCDF_VAR_FILE_REC_ID always names the PNETCDF_FILE record.
 */
#include "iolens.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <mpi.h>

#if __has_include(<pnetcdf.h>)
#include <pnetcdf.h>
#else
typedef int nc_type;
#endif

enum {
	IOL_NC_NOERR = 0,
	IOL_NC_BYTE = 1,
	IOL_NC_CHAR = 2,
	IOL_NC_SHORT = 3,
	IOL_NC_INT = 4,
	IOL_NC_FLOAT = 5,
	IOL_NC_DOUBLE = 6,
	IOL_NC_UBYTE = 7,
	IOL_NC_USHORT = 8,
	IOL_NC_UINT = 9,
};

#ifdef PNETCDF_VERSION
_Static_assert(IOL_NC_NOERR == NC_NOERR && IOL_NC_BYTE == NC_BYTE && IOL_NC_CHAR == NC_CHAR &&
		       IOL_NC_SHORT == NC_SHORT && IOL_NC_INT == NC_INT && IOL_NC_FLOAT == NC_FLOAT &&
		       IOL_NC_DOUBLE == NC_DOUBLE && IOL_NC_UBYTE == NC_UBYTE &&
		       IOL_NC_USHORT == NC_USHORT && IOL_NC_UINT == NC_UINT,
	       "PnetCDF constants");
#endif

#define NC_RESOLVE(name) IOL_RESOLVE_OR_FAIL(name)

/* ---- PnetCDF helpers, resolved at run time ---- */

static struct {
	int (*inq_path)(int, int *, char *);
	int (*inq_unlimdim)(int, int *);
	int (*inq_dimlen)(int, int, MPI_Offset *);
	int (*inq_varndims)(int, int, int *);
	int (*inq_vardimid)(int, int, int *);
	int (*inq_vartype)(int, int, nc_type *);
	int (*inq_put_size)(int, MPI_Offset *);
	int (*inq_get_size)(int, MPI_Offset *);
} nc;

#ifdef PNETCDF_VERSION
#define NC_CHECK(field, fn) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(nc.field), __typeof__(&fn)), #fn)
NC_CHECK(inq_path, ncmpi_inq_path);
NC_CHECK(inq_unlimdim, ncmpi_inq_unlimdim);
NC_CHECK(inq_dimlen, ncmpi_inq_dimlen);
NC_CHECK(inq_varndims, ncmpi_inq_varndims);
NC_CHECK(inq_vardimid, ncmpi_inq_vardimid);
NC_CHECK(inq_vartype, ncmpi_inq_vartype);
NC_CHECK(inq_put_size, ncmpi_inq_put_size);
NC_CHECK(inq_get_size, ncmpi_inq_get_size);
#endif

static volatile int nc_ready;

#define NC_HELPER(field, name) nc.field = (__typeof__(nc.field))iol_resolve(name)

static void nc_setup(void)
{
	if (IOL_LIKELY(__atomic_load_n(&nc_ready, __ATOMIC_ACQUIRE)))
		return;
	iol_ensure_started();
	NC_HELPER(inq_path, "ncmpi_inq_path");
	NC_HELPER(inq_unlimdim, "ncmpi_inq_unlimdim");
	NC_HELPER(inq_dimlen, "ncmpi_inq_dimlen");
	NC_HELPER(inq_varndims, "ncmpi_inq_varndims");
	NC_HELPER(inq_vardimid, "ncmpi_inq_vardimid");
	NC_HELPER(inq_vartype, "ncmpi_inq_vartype");
	NC_HELPER(inq_put_size, "ncmpi_inq_put_size");
	NC_HELPER(inq_get_size, "ncmpi_inq_get_size");
	__atomic_store_n(&nc_ready, 1, __ATOMIC_RELEASE);
}

/* ---- records ---- */

struct ncfile_rt {
	struct iol_rt rt;
};

struct ncvar_rt {
	struct iol_rt rt;
	struct iol_cv_tuple access;
};

IOL_HIDDEN const struct iol_module iol_pnetcdf_file_module = {
	.id = IOL_MOD_PNETCDF_FILE,
	.ncounters = PNETCDF_FILE_NUM_INDICES,
	.nfcounters = PNETCDF_FILE_F_NUM_INDICES,
	.rt_size = sizeof(struct ncfile_rt),
	.init = NULL,
};

IOL_HIDDEN const struct iol_module iol_pnetcdf_var_module = {
	.id = IOL_MOD_PNETCDF_VAR,
	.ncounters = PNETCDF_VAR_NUM_INDICES,
	.nfcounters = PNETCDF_VAR_F_NUM_INDICES,
	.rt_size = sizeof(struct ncvar_rt),
	.init = NULL,
};

static inline struct ncvar_rt *vrt(struct iol_record_block *r)
{
	return (struct ncvar_rt *)iol_runtime(r);
}

static inline uint64_t var_handle(int ncid, int varid)
{
	return (uint64_t)(uint32_t)ncid << 32 | (uint32_t)varid;
}

/* Normalises a file path after dropping a ROMIO-style "driver:" prefix. */
static char *file_name(const char *path, char *buf, size_t size)
{
	const char *p = strchr(path, ':');
	if (p && p > path + 1)
		path = p + 1;
	return iol_normalize(path, buf, size);
}

static void meta_time(struct iol_record_block *r, iol_tick t1, iol_tick t2)
{
	iol_timer(&iol_fcounters(r)[PNETCDF_FILE_F_META_TIME], &iol_runtime(r)->last_meta_end, t1, t2);
}

/* ---- PNETCDF_FILE ---- */

static void file_opened(int ret, const char *path, const int *ncidp, int counter, iol_tick t1, iol_tick t2)
{
	char buf[PATH_MAX];
	if (ret != IOL_NC_NOERR || !path || !ncidp || !file_name(path, buf, sizeof buf))
		return;
	struct iol_record_block *r = iol_record(&iol_pnetcdf_file_module, buf);
	if (!r || !iol_enter(r))
		return;
	iol_counters(r)[counter]++;
	iol_stamp(iol_fcounters(r), PNETCDF_FILE_F_OPEN_START_TIMESTAMP, PNETCDF_FILE_F_OPEN_END_TIMESTAMP, t1, t2);
	meta_time(r, t1, t2);
	iol_leave(r, t2);
	iol_handle_put(IOL_H_NCFILE, (uint64_t)(uint32_t)*ncidp, r);
}

#define FILE_OPEN_WRAPPER(name, counter)                                                     \
	IOL_REAL_DECL(int, name, (MPI_Comm, const char *, int, MPI_Info, int *));            \
	int name(MPI_Comm comm, const char *path, int mode, MPI_Info info, int *ncidp)       \
	{                                                                                    \
		NC_RESOLVE(name);                                                           \
		nc_setup();                                                                  \
		iol_tick t1 = iol_op_begin();                                                \
		int ret = real_##name(comm, path, mode, info, ncidp);                        \
		iol_tick t2 = iol_op_end(t1);                                                \
		int saved = errno;                                                           \
		file_opened(ret, path, ncidp, counter, t1, t2);                              \
		errno = saved;                                                               \
		return ret;                                                                  \
	}

FILE_OPEN_WRAPPER(ncmpi_create, PNETCDF_FILE_CREATES)
FILE_OPEN_WRAPPER(ncmpi_open, PNETCDF_FILE_OPENS)

static struct iol_record_block *file_get(int ncid)
{
	return iol_handle_get(IOL_H_NCFILE, (uint64_t)(uint32_t)ncid);
}

/* Adds the byte total of a closing open to counter c (-1 stays -1). */
static void add_bytes(int64_t *c, MPI_Offset n)
{
	if (n >= 0 && *c >= 0)
		*c += n;
	else
		*c = -1;
}

IOL_REAL_DECL(int, ncmpi_close, (int));
int ncmpi_close(int ncid)
{
	NC_RESOLVE(ncmpi_close);
	struct iol_record_block *r = file_get(ncid);
	if (!r)
		return real_ncmpi_close(ncid);
	MPI_Offset put = -1, get = -1;
	if (!nc.inq_put_size || nc.inq_put_size(ncid, &put) != IOL_NC_NOERR)
		put = -1;
	if (!nc.inq_get_size || nc.inq_get_size(ncid, &get) != IOL_NC_NOERR)
		get = -1;
	iol_tick t1 = iol_op_begin();
	int ret = real_ncmpi_close(ncid);
	iol_tick t2 = iol_op_end(t1);
	if (ret != IOL_NC_NOERR)
		return ret;
	int saved = errno;
	iol_handle_del(IOL_H_NCFILE, (uint64_t)(uint32_t)ncid);
	if (iol_enter(r)) {
		int64_t *c = iol_counters(r);
		add_bytes(&c[PNETCDF_FILE_BYTES_WRITTEN], put);
		add_bytes(&c[PNETCDF_FILE_BYTES_READ], get);
		iol_stamp(iol_fcounters(r), PNETCDF_FILE_F_CLOSE_START_TIMESTAMP,
			  PNETCDF_FILE_F_CLOSE_END_TIMESTAMP, t1, t2);
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
	return ret;
}

/* enddef (counter < 0: time only), redef, sync. */
#define FILE_META_WRAPPER(name, counter)                                       \
	IOL_REAL_DECL(int, name, (int));                                       \
	int name(int ncid)                                                     \
	{                                                                      \
		NC_RESOLVE(name);                                             \
		struct iol_record_block *r = file_get(ncid);                   \
		if (!r)                                                        \
			return real_##name(ncid);                              \
		iol_tick t1 = iol_op_begin();                                  \
		int ret = real_##name(ncid);                                   \
		iol_tick t2 = iol_op_end(t1);                                  \
		if (ret == IOL_NC_NOERR && iol_enter(r)) {                     \
			if (counter >= 0)                                      \
				iol_counters(r)[counter]++;                    \
			meta_time(r, t1, t2);                                  \
			iol_leave(r, t2);                                      \
		}                                                              \
		return ret;                                                    \
	}

FILE_META_WRAPPER(ncmpi_enddef, -1)
FILE_META_WRAPPER(ncmpi_redef, PNETCDF_FILE_REDEFS)
FILE_META_WRAPPER(ncmpi_sync, PNETCDF_FILE_SYNCS)

#define WAIT_WRAPPER(name, counter)                                                           \
	IOL_REAL_DECL(int, name, (int, int, int[], int[]));                                   \
	int name(int ncid, int count, int array_of_requests[], int array_of_statuses[])       \
	{                                                                                     \
		NC_RESOLVE(name);                                                            \
		struct iol_record_block *r = file_get(ncid);                                  \
		if (!r)                                                                       \
			return real_##name(ncid, count, array_of_requests, array_of_statuses); \
		iol_tick t1 = iol_op_begin();                                                 \
		int ret = real_##name(ncid, count, array_of_requests, array_of_statuses);     \
		iol_tick t2 = iol_op_end(t1);                                                 \
		if (iol_enter(r)) {                                                           \
			double *f = iol_fcounters(r);                                         \
			iol_counters(r)[ret == IOL_NC_NOERR ? counter                         \
							    : PNETCDF_FILE_WAIT_FAILURES]++;  \
			iol_stamp(f, PNETCDF_FILE_F_WAIT_START_TIMESTAMP,                     \
				  PNETCDF_FILE_F_WAIT_END_TIMESTAMP, t1, t2);                 \
			iol_timer(&f[PNETCDF_FILE_F_WAIT_TIME], &iol_runtime(r)->last_wait_end, \
				  t1, t2);                                                    \
			iol_leave(r, t2);                                                     \
		}                                                                             \
		return ret;                                                                   \
	}

WAIT_WRAPPER(ncmpi_wait, PNETCDF_FILE_INDEP_WAITS)
WAIT_WRAPPER(ncmpi_wait_all, PNETCDF_FILE_COLL_WAITS)

/* ---- PNETCDF_VAR records ---- */

static int64_t type_size(nc_type t)
{
	switch (t) {
	case IOL_NC_BYTE: case IOL_NC_CHAR: case IOL_NC_UBYTE: return 1;
	case IOL_NC_SHORT: case IOL_NC_USHORT: return 2;
	case IOL_NC_INT: case IOL_NC_UINT: case IOL_NC_FLOAT: return 4;
	default: return 8;
	}
}

/* What an open learns about a variable (queried outside the timed call). */
struct var_info {
	int64_t ndims, npoints, type_size, is_record;
	int have_dims, have_type;
};

static void var_query(int ncid, int varid, struct var_info *v)
{
	memset(v, 0, sizeof *v);
	nc_type t;
	if (nc.inq_vartype && nc.inq_vartype(ncid, varid, &t) == IOL_NC_NOERR) {
		v->type_size = type_size(t);
		v->have_type = 1;
	}
	int nd, unlim = -1;
	if (!nc.inq_varndims || !nc.inq_vardimid || !nc.inq_dimlen ||
	    nc.inq_varndims(ncid, varid, &nd) != IOL_NC_NOERR || nd < 0)
		return;
	if (!nc.inq_unlimdim || nc.inq_unlimdim(ncid, &unlim) != IOL_NC_NOERR)
		unlim = -1;
	int small[64], *dims = nd <= 64 ? small : malloc(sizeof(int) * (size_t)nd);
	if (!dims)
		return;
	if (nc.inq_vardimid(ncid, varid, dims) == IOL_NC_NOERR) {
		int first = 0;
		if (nd >= 1 && unlim >= 0 && dims[0] == unlim) {
			v->is_record = 1;
			first = 1;
		}
		int64_t n = 1;
		int ok = 1;
		for (int i = first; i < nd && ok; i++) {
			MPI_Offset len;
			if (nc.inq_dimlen(ncid, dims[i], &len) != IOL_NC_NOERR)
				ok = 0;
			else
				n *= len;
		}
		if (ok) {
			v->ndims = nd;
			v->npoints = n;
			v->have_dims = 1;
		}
	}
	if (dims != small)
		free(dims);
}

static void var_opened(int ret, int ncid, const char *varname, const int *varidp, iol_tick t1, iol_tick t2)
{
	if (ret != IOL_NC_NOERR || !varname || !varidp || !iol_active || !nc.inq_path)
		return;
	int len = 0;
	if (nc.inq_path(ncid, &len, NULL) != IOL_NC_NOERR || len <= 0 || len >= PATH_MAX)
		return;
	char path[PATH_MAX], name[PATH_MAX];
	if (nc.inq_path(ncid, NULL, path) != IOL_NC_NOERR)
		return;
	path[len] = 0;
	if (!file_name(path, name, sizeof name))
		return;
	size_t fl = strlen(name), vl = strlen(varname);
	if (fl + 1 + vl + 1 > sizeof name)
		return;
	uint64_t file_id = iol_hash(name, fl);
	name[fl] = ':';
	memcpy(name + fl + 1, varname, vl + 1);
	struct var_info v;
	var_query(ncid, *varidp, &v);
	struct iol_record_block *r = iol_record(&iol_pnetcdf_var_module, name);
	if (!r || !iol_enter(r))
		return;
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	c[PNETCDF_VAR_OPENS]++;
	iol_stamp(f, PNETCDF_VAR_F_OPEN_START_TIMESTAMP, PNETCDF_VAR_F_OPEN_END_TIMESTAMP, t1, t2);
	iol_timer(&f[PNETCDF_VAR_F_META_TIME], &vrt(r)->rt.last_meta_end, t1, t2);
	if (v.have_dims) {
		c[PNETCDF_VAR_NDIMS] = v.ndims;
		c[PNETCDF_VAR_NPOINTS] = v.npoints;
		c[PNETCDF_VAR_IS_RECORD_VAR] = v.is_record;
	}
	if (v.have_type)
		c[PNETCDF_VAR_DATATYPE_SIZE] = v.type_size;
	r->file_rec_id = file_id;
	iol_leave(r, t2);
	iol_handle_put(IOL_H_NCVAR, var_handle(ncid, *varidp), r);
}

IOL_REAL_DECL(int, ncmpi_def_var, (int, const char *, nc_type, int, const int *, int *));
int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp)
{
	NC_RESOLVE(ncmpi_def_var);
	nc_setup();
	iol_tick t1 = iol_op_begin();
	int ret = real_ncmpi_def_var(ncid, name, xtype, ndims, dimidsp, varidp);
	iol_tick t2 = iol_op_end(t1);
	int saved = errno;
	var_opened(ret, ncid, name, varidp, t1, t2);
	errno = saved;
	return ret;
}

IOL_REAL_DECL(int, ncmpi_inq_varid, (int, const char *, int *));
int ncmpi_inq_varid(int ncid, const char *name, int *varidp)
{
	NC_RESOLVE(ncmpi_inq_varid);
	nc_setup();
	iol_tick t1 = iol_op_begin();
	int ret = real_ncmpi_inq_varid(ncid, name, varidp);
	iol_tick t2 = iol_op_end(t1);
	int saved = errno;
	var_opened(ret, ncid, name, varidp, t1, t2);
	errno = saved;
	return ret;
}

/* ---- PNETCDF_VAR I/O ---- */

/* How a data call selects its elements. */
enum { SHAPE_VAR, SHAPE_VAR1, SHAPE_VARA, SHAPE_VARS, SHAPE_VARN, SHAPE_VARD };

struct shape {
	int kind;
	const MPI_Offset *start;   /* var1, vara, vars, varm */
	const MPI_Offset *count;   /* vara, vars, varm */
	const MPI_Offset *stride;  /* vars, varm (NULL: 1) */
	int num;                   /* varn */
	MPI_Offset *const *starts; /* varn */
	MPI_Offset *const *counts; /* varn (NULL: one element per request) */
	MPI_Datatype filetype;     /* vard */
};

/* Blocking independent, blocking collective, non-blocking. */
enum { MODE_INDEP, MODE_COLL, MODE_NB };

/* Adds a data call to the access sequence: the bounding box of its
 * selection in elements (a whole-variable call: no dimensions; a vard call:
 * none known). */
static void learn_access(struct iol_record_block *r, const struct shape *s, int ndims, int op, int64_t size,
			 iol_tick t1, iol_tick t2)
{
	int64_t lo[IOL_ACCESS_DIMS], cnt[IOL_ACCESS_DIMS];
	int first = ndims > IOL_ACCESS_DIMS ? ndims - IOL_ACCESS_DIMS : 0, n = ndims - first;
	switch (s->kind) {
	case SHAPE_VAR1:
	case SHAPE_VARA:
	case SHAPE_VARS:
		for (int d = 0; d < n; d++) {
			int64_t c = s->kind == SHAPE_VAR1 || !s->count ? 1 : s->count[first + d];
			int64_t st = s->kind == SHAPE_VARS && s->stride ? s->stride[first + d] : 1;
			lo[d] = s->start ? s->start[first + d] : 0;
			cnt[d] = c > 0 ? (c - 1) * st + 1 : 0;
		}
		break;
	case SHAPE_VARN:
		if (!s->starts || s->num <= 0) {
			n = 0;
			break;
		}
		for (int d = 0; d < n; d++) {
			int64_t a = INT64_MAX, b = INT64_MIN;
			for (int k = 0; k < s->num; k++) {
				int64_t st = s->starts[k][first + d];
				int64_t c = s->counts ? s->counts[k][first + d] : 1;
				if (st < a)
					a = st;
				if (st + c > b)
					b = st + c;
			}
			lo[d] = a;
			cnt[d] = b - a;
		}
		break;
	default:
		n = 0;
	}
	iol_access_add(IOL_MOD_PNETCDF_VAR, r->id, r->file_rec_id, op, -1, size, n, lo, cnt, t1, t2);
}

static void var_io(struct iol_record_block *r, int ncid, const struct shape *s, int counter, int op, int mode,
		   iol_tick t1, iol_tick t2)
{
	/* Queries that call PnetCDF or MPI, outside the record lock. */
	int64_t records = 1, filetype_size = 0;
	if (s->kind == SHAPE_VAR) {
		int unlim = -1;
		MPI_Offset len;
		if (nc.inq_unlimdim && nc.inq_unlimdim(ncid, &unlim) == IOL_NC_NOERR && unlim >= 0 &&
		    nc.inq_dimlen && nc.inq_dimlen(ncid, unlim, &len) == IOL_NC_NOERR)
			records = len;
	} else if (s->kind == SHAPE_VARD) {
		int n = 0;
		if (s->filetype != MPI_DATATYPE_NULL && PMPI_Type_size(s->filetype, &n) == MPI_SUCCESS)
			filetype_size = n;
	}
	if (!iol_enter(r))
		return;
	struct ncvar_rt *rt = vrt(r);
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	int64_t tsize = c[PNETCDF_VAR_DATATYPE_SIZE], ndims = c[PNETCDF_VAR_NDIMS];
	int64_t tuple[IOL_TUPLE] = {0};
	int64_t size = 0;
	switch (s->kind) {
	case SHAPE_VAR:
		size = c[PNETCDF_VAR_NPOINTS] * records * tsize;
		break;
	case SHAPE_VAR1:
		size = tsize;
		break;
	case SHAPE_VARA:
	case SHAPE_VARS: {
		int64_t n = 1;
		if (s->count)
			for (int64_t i = 0; i < ndims; i++)
				n *= s->count[i];
		else if (ndims > 0)
			n = 0;
		size = n * tsize;
		int64_t first = ndims > 5 ? ndims - 5 : 0;
		for (int64_t j = 0; j < 5 && first + j < ndims; j++) {
			if (s->count)
				tuple[1 + j] = s->count[first + j];
			if (s->kind == SHAPE_VARS)
				tuple[6 + j] = s->stride ? s->stride[first + j] : 1;
		}
		break;
	}
	case SHAPE_VARN: {
		int64_t n = 0;
		if (!s->counts)
			n = s->num;
		else
			for (int k = 0; k < s->num; k++) {
				int64_t m = 1;
				for (int64_t i = 0; i < ndims; i++)
					m *= s->counts[k][i];
				n += m;
			}
		size = n * tsize;
		break;
	}
	case SHAPE_VARD:
		size = filetype_size;
		break;
	}
	tuple[0] = size;
	int rd = op == IOL_OP_READ;
	c[counter]++;
	if (mode == MODE_NB)
		c[rd ? PNETCDF_VAR_NB_READS : PNETCDF_VAR_NB_WRITES]++;
	else if (mode == MODE_COLL)
		c[rd ? PNETCDF_VAR_COLL_READS : PNETCDF_VAR_COLL_WRITES]++;
	else
		c[rd ? PNETCDF_VAR_INDEP_READS : PNETCDF_VAR_INDEP_WRITES]++;
	c[rd ? PNETCDF_VAR_BYTES_READ : PNETCDF_VAR_BYTES_WRITTEN] += size;
	iol_rw_switch(&rt->rt, c, PNETCDF_VAR_RW_SWITCHES, op);
	iol_histogram(c, rd ? PNETCDF_VAR_SIZE_READ_AGG_0_100 : PNETCDF_VAR_SIZE_WRITE_AGG_0_100, size);
	iol_common_tuple(&rt->access, c, PNETCDF_VAR_ACCESS1_ACCESS, PNETCDF_VAR_ACCESS1_COUNT, tuple);
	if (rd) {
		iol_stamp(f, PNETCDF_VAR_F_READ_START_TIMESTAMP, PNETCDF_VAR_F_READ_END_TIMESTAMP, t1, t2);
		iol_maxtime(f, c, PNETCDF_VAR_F_MAX_READ_TIME, PNETCDF_VAR_MAX_READ_TIME_SIZE, t1, t2, size);
		iol_timer(&f[PNETCDF_VAR_F_READ_TIME], &rt->rt.last_read_end, t1, t2);
	} else {
		iol_stamp(f, PNETCDF_VAR_F_WRITE_START_TIMESTAMP, PNETCDF_VAR_F_WRITE_END_TIMESTAMP, t1, t2);
		iol_maxtime(f, c, PNETCDF_VAR_F_MAX_WRITE_TIME, PNETCDF_VAR_MAX_WRITE_TIME_SIZE, t1, t2, size);
		iol_timer(&f[PNETCDF_VAR_F_WRITE_TIME], &rt->rt.last_write_end, t1, t2);
	}
	iol_leave(r, t2);
	if (IOL_UNLIKELY(iol_learn_enabled))
		learn_access(r, s, (int)ndims, op, size, t1, t2);
}

#define NC_ID(...) __VA_ARGS__

/* One data wrapper. params/args are parenthesised lists that include ncid
 * and varid; shape is a parenthesised initialiser of struct shape. */
#define NC_DATA_WRAPPER(name, params, args, shape_, counter_, op_, mode_)                       \
	IOL_REAL_DECL(int, name, params);                                                       \
	int name params                                                                         \
	{                                                                                       \
		NC_RESOLVE(name);                                                              \
		struct iol_record_block *r =                                                    \
			iol_handle_get(IOL_H_NCVAR, var_handle(ncid, varid));                   \
		if (IOL_LIKELY(!r))                                                             \
			return real_##name args;                                                \
		IOL_LEARN_ENTER();                                                              \
		iol_tick t1 = iol_op_begin();                                                   \
		int ret = real_##name args;                                                     \
		iol_tick t2 = iol_op_end(t1);                                                   \
		IOL_LEARN_LEAVE();                                                              \
		if (ret == IOL_NC_NOERR) {                                                      \
			int saved = errno;                                                      \
			struct shape s = {NC_ID shape_};                                        \
			var_io(r, ncid, &s, counter_, op_, mode_, t1, t2);                      \
			errno = saved;                                                          \
		}                                                                               \
		return ret;                                                                     \
	}

/* Parameters and arguments after (ncid, varid), and the selection, of each
 * family. varm's imap only rearranges memory. */
#define NC_P_var
#define NC_A_var
#define NC_S_var (.kind = SHAPE_VAR)
#define NC_P_var1 , const MPI_Offset *start
#define NC_A_var1 , start
#define NC_S_var1 (.kind = SHAPE_VAR1, .start = start)
#define NC_P_vara , const MPI_Offset *start, const MPI_Offset *count
#define NC_A_vara , start, count
#define NC_S_vara (.kind = SHAPE_VARA, .start = start, .count = count)
#define NC_P_vars , const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride
#define NC_A_vars , start, count, stride
#define NC_S_vars (.kind = SHAPE_VARS, .start = start, .count = count, .stride = stride)
#define NC_P_varm , const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, \
		  const MPI_Offset *imap
#define NC_A_varm , start, count, stride, imap
#define NC_S_varm (.kind = SHAPE_VARS, .start = start, .count = count, .stride = stride)
#define NC_P_varn , int num, MPI_Offset *const *starts, MPI_Offset *const *counts
#define NC_A_varn , num, starts, counts
#define NC_S_varn (.kind = SHAPE_VARN, .num = num, .starts = starts, .counts = counts)

/* Buffer parameter of a typed call (T = element type) and of a flexible
 * call, by direction. */
#define NC_BUF_put(T_) const T_ *buf
#define NC_BUF_get(T_) T_ *buf
#define NC_FLEX_put const void *buf, MPI_Offset bufcount, MPI_Datatype buftype
#define NC_FLEX_get void *buf, MPI_Offset bufcount, MPI_Datatype buftype
#define NC_FLEX_ARGS buf, bufcount, buftype

/* Element types of the typed calls: name suffix, C type. */
#define NC_TYPES(X, ...)                          \
	X(text, char, __VA_ARGS__)                \
	X(schar, signed char, __VA_ARGS__)        \
	X(uchar, unsigned char, __VA_ARGS__)      \
	X(short, short, __VA_ARGS__)              \
	X(ushort, unsigned short, __VA_ARGS__)    \
	X(int, int, __VA_ARGS__)                  \
	X(uint, unsigned int, __VA_ARGS__)        \
	X(long, long, __VA_ARGS__)                \
	X(float, float, __VA_ARGS__)              \
	X(double, double, __VA_ARGS__)            \
	X(longlong, long long, __VA_ARGS__)       \
	X(ulonglong, unsigned long long, __VA_ARGS__)

/* Families sharing one selection rule: name, counter suffix. */
#define NC_FAMILIES(Y, ...)              \
	Y(var, VAR, __VA_ARGS__)         \
	Y(var1, VAR1, __VA_ARGS__)       \
	Y(vara, VARA, __VA_ARGS__)       \
	Y(vars, VARS, __VA_ARGS__)       \
	Y(varm, VARM, __VA_ARGS__)       \
	Y(varn, VARN, __VA_ARGS__)

/* Blocking calls: ncmpi_<put|get>_<family>[_<type>][_all]. */
#define NC_BLOCKING_TYPED(t_, T_, f_, F_, d_, D_, op_)                                              \
	NC_DATA_WRAPPER(ncmpi_##d_##_##f_##_##t_, (int ncid, int varid NC_P_##f_, NC_BUF_##d_(T_)),    \
			(ncid, varid NC_A_##f_, buf), NC_S_##f_, PNETCDF_VAR_##D_##_##F_, op_,       \
			MODE_INDEP)                                                                    \
	NC_DATA_WRAPPER(ncmpi_##d_##_##f_##_##t_##_all,                                                \
			(int ncid, int varid NC_P_##f_, NC_BUF_##d_(T_)), (ncid, varid NC_A_##f_, buf), \
			NC_S_##f_, PNETCDF_VAR_##D_##_##F_, op_, MODE_COLL)

#define NC_BLOCKING(f_, F_, d_, D_, op_)                                                            \
	NC_DATA_WRAPPER(ncmpi_##d_##_##f_, (int ncid, int varid NC_P_##f_, NC_FLEX_##d_),              \
			(ncid, varid NC_A_##f_, NC_FLEX_ARGS), NC_S_##f_, PNETCDF_VAR_##D_##_##F_, op_, \
			MODE_INDEP)                                                                    \
	NC_DATA_WRAPPER(ncmpi_##d_##_##f_##_all, (int ncid, int varid NC_P_##f_, NC_FLEX_##d_),        \
			(ncid, varid NC_A_##f_, NC_FLEX_ARGS), NC_S_##f_, PNETCDF_VAR_##D_##_##F_, op_, \
			MODE_COLL)                                                                     \
	NC_TYPES(NC_BLOCKING_TYPED, f_, F_, d_, D_, op_)

NC_FAMILIES(NC_BLOCKING, put, PUT, IOL_OP_WRITE)
NC_FAMILIES(NC_BLOCKING, get, GET, IOL_OP_READ)

/* Non-blocking calls: ncmpi_<iput|iget|bput>_<family>[_<type>], buffer
 * direction d_, posted with a request id. */
#define NC_NONBLOCKING_TYPED(t_, T_, f_, F_, k_, K_, d_, op_)                                       \
	NC_DATA_WRAPPER(ncmpi_##k_##_##f_##_##t_,                                                      \
			(int ncid, int varid NC_P_##f_, NC_BUF_##d_(T_), int *req),                    \
			(ncid, varid NC_A_##f_, buf, req), NC_S_##f_, PNETCDF_VAR_##K_##_##F_, op_,    \
			MODE_NB)

#define NC_NONBLOCKING(f_, F_, k_, K_, d_, op_)                                                     \
	NC_DATA_WRAPPER(ncmpi_##k_##_##f_, (int ncid, int varid NC_P_##f_, NC_FLEX_##d_, int *req),    \
			(ncid, varid NC_A_##f_, NC_FLEX_ARGS, req), NC_S_##f_,                         \
			PNETCDF_VAR_##K_##_##F_, op_, MODE_NB)                                         \
	NC_TYPES(NC_NONBLOCKING_TYPED, f_, F_, k_, K_, d_, op_)

NC_FAMILIES(NC_NONBLOCKING, iput, IPUT, put, IOL_OP_WRITE)
NC_FAMILIES(NC_NONBLOCKING, iget, IGET, get, IOL_OP_READ)
NC_FAMILIES(NC_NONBLOCKING, bput, BPUT, put, IOL_OP_WRITE)

/* vard: the selection is an MPI file type. */
#define NC_VARD(d_, D_, op_, suffix, mode_)                                                          \
	NC_DATA_WRAPPER(ncmpi_##d_##_vard##suffix, (int ncid, int varid, MPI_Datatype filetype, NC_FLEX_##d_), \
			(ncid, varid, filetype, NC_FLEX_ARGS), (.kind = SHAPE_VARD, .filetype = filetype), \
			PNETCDF_VAR_##D_##_VARD, op_, mode_)

NC_VARD(put, PUT, IOL_OP_WRITE, , MODE_INDEP)
NC_VARD(put, PUT, IOL_OP_WRITE, _all, MODE_COLL)
NC_VARD(get, GET, IOL_OP_READ, , MODE_INDEP)
NC_VARD(get, GET, IOL_OP_READ, _all, MODE_COLL)
