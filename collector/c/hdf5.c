/*
 * HDF5 modules: H5F (files) and H5D (datasets), with Darshan's rules (spec:
 * darshan-runtime-semantics.md §6).
 *
 * The library is preloaded into every process and linked against no HDF5,
 * so this file declares the few HDF5 types and constants it needs (values of
 * HDF5 1.10, unchanged in 1.12 and 1.14) and resolves every HDF5 function
 * it calls at run time. A program without HDF5 never calls these wrappers;
 * a helper missing at run time only leaves its counter alone. Compiling with
 * -DIOLENS_CHECK_HDF5 and HDF5's include directory checks every prototype
 * and constant against hdf5.h.
 *
 * Differences from the reference runtime: with an HDF5 older than 1.10
 * (32-bit hid_t) the wrappers pass calls through without recording, where
 * the reference refuses to open files; H5F_USE_MPIIO is derived from the
 * file driver (H5Pget_driver against H5FD_mpio_init), which is what
 * H5Pget_fapl_mpio tests, without duplicating a communicator or printing an
 * HDF5 error for other drivers.
 */
#include "iolens.h"

#include <errno.h>
#include <limits.h>

#ifdef IOLENS_CHECK_HDF5
#include <hdf5.h>
_Static_assert(H5_VERS_MAJOR == 1 && H5_VERS_MINOR >= 10, "HDF5 1.10 or later");
#else
typedef int64_t hid_t;
typedef int herr_t;
typedef int htri_t;
typedef uint64_t hsize_t;
typedef int64_t hssize_t;
typedef uint64_t haddr_t;
typedef int H5F_scope_t;
typedef int H5I_type_t;
typedef int H5S_sel_type;
typedef int H5D_layout_t;
typedef int H5FD_mpio_xfer_t;
typedef int H5_index_t;
typedef int H5_iter_order_t;
#endif

/* H5O_token_t (HDF5 1.12+): an opaque 16-byte object token passed by value. */
#if defined(IOLENS_CHECK_HDF5) && (H5_VERS_MAJOR > 1 || H5_VERS_MINOR >= 12)
typedef H5O_token_t iol_h5o_token_t;
#else
typedef struct {
	uint8_t data[16];
} iol_h5o_token_t;
#endif

enum {
	IOL_H5P_DEFAULT = 0,
	IOL_H5S_ALL = 0,
	IOL_H5S_MAX_RANK = 32,
	IOL_H5I_FILE = 1,
	IOL_H5I_DATASET = 5,
	IOL_H5S_SEL_NONE = 0,
	IOL_H5S_SEL_POINTS = 1,
	IOL_H5S_SEL_HYPERSLABS = 2,
	IOL_H5S_SEL_ALL = 3,
	IOL_H5D_CHUNKED = 2,
	IOL_H5FD_MPIO_COLLECTIVE = 1,
};

#ifdef IOLENS_CHECK_HDF5
_Static_assert(IOL_H5P_DEFAULT == (int)H5P_DEFAULT, "H5P_DEFAULT");
_Static_assert(IOL_H5S_ALL == (int)H5S_ALL, "H5S_ALL");
_Static_assert(IOL_H5S_MAX_RANK == (int)H5S_MAX_RANK, "H5S_MAX_RANK");
_Static_assert(IOL_H5I_FILE == (int)H5I_FILE, "H5I_FILE");
_Static_assert(IOL_H5I_DATASET == (int)H5I_DATASET, "H5I_DATASET");
_Static_assert(IOL_H5S_SEL_NONE == (int)H5S_SEL_NONE, "H5S_SEL_NONE");
_Static_assert(IOL_H5S_SEL_POINTS == (int)H5S_SEL_POINTS, "H5S_SEL_POINTS");
_Static_assert(IOL_H5S_SEL_HYPERSLABS == (int)H5S_SEL_HYPERSLABS, "H5S_SEL_HYPERSLABS");
_Static_assert(IOL_H5S_SEL_ALL == (int)H5S_SEL_ALL, "H5S_SEL_ALL");
_Static_assert(IOL_H5D_CHUNKED == (int)H5D_CHUNKED, "H5D_CHUNKED");
#ifdef H5_HAVE_PARALLEL
_Static_assert(IOL_H5FD_MPIO_COLLECTIVE == (int)H5FD_MPIO_COLLECTIVE, "H5FD_MPIO_COLLECTIVE");
#endif
_Static_assert(sizeof(hid_t) == 8 && sizeof(hsize_t) == 8 && sizeof(haddr_t) == 8, "HDF5 integer sizes");
#endif

#define H5_RESOLVE(name) IOL_RESOLVE_OR_FAIL(name)

/* ---- HDF5 helpers, resolved at run time ---- */

static struct {
	herr_t (*get_libversion)(unsigned *, unsigned *, unsigned *);
	ssize_t (*fget_name)(hid_t, char *, size_t);
	ssize_t (*iget_name)(hid_t, char *, size_t);
	H5I_type_t (*iget_type)(hid_t);
	hid_t (*iget_file_id)(hid_t);
	herr_t (*file_close)(hid_t);
	hid_t (*dget_space)(hid_t);
	hid_t (*dget_type)(hid_t);
	hid_t (*dget_create_plist)(hid_t);
	int (*sget_simple_extent_ndims)(hid_t);
	hssize_t (*sget_simple_extent_npoints)(hid_t);
	hssize_t (*sget_select_npoints)(hid_t);
	H5S_sel_type (*sget_select_type)(hid_t);
	htri_t (*sis_regular_hyperslab)(hid_t);
	htri_t (*sget_regular_hyperslab)(hid_t, hsize_t[], hsize_t[], hsize_t[], hsize_t[]);
	herr_t (*sget_select_bounds)(hid_t, hsize_t[], hsize_t[]);
	herr_t (*sclose)(hid_t);
	size_t (*tget_size)(hid_t);
	herr_t (*tclose)(hid_t);
	H5D_layout_t (*pget_layout)(hid_t);
	int (*pget_chunk)(hid_t, int, hsize_t[]);
	hid_t (*pget_driver)(hid_t);
	herr_t (*pget_dxpl_mpio)(hid_t, H5FD_mpio_xfer_t *);
	herr_t (*pclose)(hid_t);
	/* Injected file-access properties (inject.c). */
	herr_t (*open)(void);
	hid_t *cls_file_access; /* the variable behind H5P_FILE_ACCESS */
	hid_t (*pcreate)(hid_t);
	hid_t (*pcopy)(hid_t);
	herr_t (*pset_alignment)(hid_t, hsize_t, hsize_t);
	herr_t (*pset_sieve_buf_size)(hid_t, size_t);
	herr_t (*pset_meta_block_size)(hid_t, hsize_t);
	herr_t (*pget_cache)(hid_t, int *, size_t *, size_t *, double *);
	herr_t (*pset_cache)(hid_t, int, size_t, size_t, double);
	herr_t (*pset_all_coll_metadata_ops)(hid_t, _Bool);
	herr_t (*pset_coll_metadata_write)(hid_t, _Bool);
	hid_t (*fd_mpio_init)(void);
	void *dflush;
} h5;

#ifdef IOLENS_CHECK_HDF5
#define H5_CHECK(field, fn) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(h5.field), __typeof__(&fn)), #fn)
H5_CHECK(get_libversion, H5get_libversion);
H5_CHECK(fget_name, H5Fget_name);
H5_CHECK(iget_name, H5Iget_name);
H5_CHECK(iget_type, H5Iget_type);
H5_CHECK(iget_file_id, H5Iget_file_id);
H5_CHECK(file_close, H5Fclose);
H5_CHECK(dget_space, H5Dget_space);
H5_CHECK(dget_type, H5Dget_type);
H5_CHECK(dget_create_plist, H5Dget_create_plist);
H5_CHECK(sget_simple_extent_ndims, H5Sget_simple_extent_ndims);
H5_CHECK(sget_simple_extent_npoints, H5Sget_simple_extent_npoints);
H5_CHECK(sget_select_npoints, H5Sget_select_npoints);
H5_CHECK(sget_select_type, H5Sget_select_type);
H5_CHECK(sis_regular_hyperslab, H5Sis_regular_hyperslab);
H5_CHECK(sget_regular_hyperslab, H5Sget_regular_hyperslab);
H5_CHECK(sget_select_bounds, H5Sget_select_bounds);
H5_CHECK(sclose, H5Sclose);
H5_CHECK(tget_size, H5Tget_size);
H5_CHECK(tclose, H5Tclose);
H5_CHECK(pget_layout, H5Pget_layout);
H5_CHECK(pget_chunk, H5Pget_chunk);
H5_CHECK(pget_driver, H5Pget_driver);
H5_CHECK(pclose, H5Pclose);
H5_CHECK(open, H5open);
H5_CHECK(pcreate, H5Pcreate);
H5_CHECK(pcopy, H5Pcopy);
H5_CHECK(pset_alignment, H5Pset_alignment);
H5_CHECK(pset_sieve_buf_size, H5Pset_sieve_buf_size);
H5_CHECK(pset_meta_block_size, H5Pset_meta_block_size);
H5_CHECK(pget_cache, H5Pget_cache);
H5_CHECK(pset_cache, H5Pset_cache);
#ifdef H5_HAVE_PARALLEL
H5_CHECK(pget_dxpl_mpio, H5Pget_dxpl_mpio);
H5_CHECK(fd_mpio_init, H5FD_mpio_init);
#endif
#endif

/* 0: not set up; 1: recording; -1: HDF5 older than 1.10, pass through. */
static volatile int h5_state;

#define H5_HELPER(field, name) h5.field = (__typeof__(h5.field))iol_resolve(name)

/* Resolves the helpers once; returns 1 when calls are to be recorded. */
static int h5_setup(void)
{
	int s = __atomic_load_n(&h5_state, __ATOMIC_ACQUIRE);
	if (IOL_LIKELY(s))
		return s > 0;
	iol_ensure_started();
	H5_HELPER(get_libversion, "H5get_libversion");
	unsigned maj = 0, min = 0, rel = 0;
	if (!h5.get_libversion || h5.get_libversion(&maj, &min, &rel) < 0 ||
	    maj < 1 || (maj == 1 && min < 10)) {
		__atomic_store_n(&h5_state, -1, __ATOMIC_RELEASE);
		return 0;
	}
	H5_HELPER(fget_name, "H5Fget_name");
	H5_HELPER(iget_name, "H5Iget_name");
	H5_HELPER(iget_type, "H5Iget_type");
	H5_HELPER(iget_file_id, "H5Iget_file_id");
	H5_HELPER(file_close, "H5Fclose");
	H5_HELPER(dget_space, "H5Dget_space");
	H5_HELPER(dget_type, "H5Dget_type");
	H5_HELPER(dget_create_plist, "H5Dget_create_plist");
	H5_HELPER(sget_simple_extent_ndims, "H5Sget_simple_extent_ndims");
	H5_HELPER(sget_simple_extent_npoints, "H5Sget_simple_extent_npoints");
	H5_HELPER(sget_select_npoints, "H5Sget_select_npoints");
	H5_HELPER(sget_select_type, "H5Sget_select_type");
	H5_HELPER(sis_regular_hyperslab, "H5Sis_regular_hyperslab");
	H5_HELPER(sget_regular_hyperslab, "H5Sget_regular_hyperslab");
	H5_HELPER(sget_select_bounds, "H5Sget_select_bounds");
	H5_HELPER(sclose, "H5Sclose");
	H5_HELPER(tget_size, "H5Tget_size");
	H5_HELPER(tclose, "H5Tclose");
	H5_HELPER(pget_layout, "H5Pget_layout");
	H5_HELPER(pget_chunk, "H5Pget_chunk");
	H5_HELPER(pget_driver, "H5Pget_driver");
	H5_HELPER(pget_dxpl_mpio, "H5Pget_dxpl_mpio");
	H5_HELPER(pclose, "H5Pclose");
	H5_HELPER(open, "H5open");
	H5_HELPER(cls_file_access, "H5P_CLS_FILE_ACCESS_ID_g");
	H5_HELPER(pcreate, "H5Pcreate");
	H5_HELPER(pcopy, "H5Pcopy");
	H5_HELPER(pset_alignment, "H5Pset_alignment");
	H5_HELPER(pset_sieve_buf_size, "H5Pset_sieve_buf_size");
	H5_HELPER(pset_meta_block_size, "H5Pset_meta_block_size");
	H5_HELPER(pget_cache, "H5Pget_cache");
	H5_HELPER(pset_cache, "H5Pset_cache");
	H5_HELPER(pset_all_coll_metadata_ops, "H5Pset_all_coll_metadata_ops");
	H5_HELPER(pset_coll_metadata_write, "H5Pset_coll_metadata_write");
	H5_HELPER(fd_mpio_init, "H5FD_mpio_init");
	H5_HELPER(dflush, "H5Dflush");
	__atomic_store_n(&h5_state, 1, __ATOMIC_RELEASE);
	return 1;
}

/* ---- records ---- */

struct h5f_rt {
	struct iol_rt rt;
};

struct h5d_rt {
	struct iol_rt rt;
	struct iol_cv_tuple access;
};

IOL_HIDDEN const struct iol_module iol_h5f_module = {
	.id = IOL_MOD_H5F,
	.ncounters = H5F_NUM_INDICES,
	.nfcounters = H5F_F_NUM_INDICES,
	.rt_size = sizeof(struct h5f_rt),
	.init = NULL,
};

static void h5d_init(struct iol_record_block *r, const char *name)
{
	int64_t *c = iol_counters(r);
	(void)name;
	if (!h5.dflush)
		c[H5D_FLUSHES] = -1;
	if (!h5.sis_regular_hyperslab || !h5.sget_regular_hyperslab) {
		c[H5D_REGULAR_HYPERSLAB_SELECTS] = -1;
		c[H5D_IRREGULAR_HYPERSLAB_SELECTS] = -1;
	}
}

IOL_HIDDEN const struct iol_module iol_h5d_module = {
	.id = IOL_MOD_H5D,
	.ncounters = H5D_NUM_INDICES,
	.nfcounters = H5D_F_NUM_INDICES,
	.rt_size = sizeof(struct h5d_rt),
	.init = h5d_init,
};

static inline struct h5d_rt *drt(struct iol_record_block *r)
{
	return (struct h5d_rt *)iol_runtime(r);
}

/* Drops a ROMIO-style "driver:" prefix (a ':' after the second character). */
static const char *strip_prefix(const char *name)
{
	const char *p = strchr(name, ':');
	return p && p > name + 1 ? p + 1 : name;
}

/* ---- H5F ---- */

/* Reports whether a file-access property list selects the MPI-IO driver. */
static int uses_mpiio(hid_t fapl)
{
	if (fapl == IOL_H5P_DEFAULT || !h5.pget_driver || !h5.fd_mpio_init)
		return 0;
	hid_t mpio = h5.fd_mpio_init();
	return mpio >= 0 && h5.pget_driver(fapl) == mpio;
}

static void file_opened(hid_t fid, const char *filename, hid_t fapl, iol_tick t1, iol_tick t2)
{
	char buf[PATH_MAX];
	if (fid < 0 || !filename || !iol_normalize(strip_prefix(filename), buf, sizeof buf))
		return;
	int mpiio = uses_mpiio(fapl);
	struct iol_record_block *r = iol_record(&iol_h5f_module, buf);
	if (!r || !iol_enter(r))
		return;
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	c[H5F_USE_MPIIO] = mpiio;
	c[H5F_OPENS]++;
	iol_stamp(f, H5F_F_OPEN_START_TIMESTAMP, H5F_F_OPEN_END_TIMESTAMP, t1, t2);
	iol_timer(&f[H5F_F_META_TIME], &iol_runtime(r)->last_meta_end, t1, t2);
	iol_leave(r, t2);
	iol_handle_put(IOL_H_H5F, (uint64_t)fid, r);
}

/* A copy of fapl (or a new file-access list) with the injected properties
 * set, or -1 when there are none or it cannot be made. */
static hid_t inject_fapl(hid_t fapl)
{
	const int64_t *v = iol_inject.h5;
	unsigned set = iol_inject.h5_set;
	if (!set || !h5.pclose)
		return -1;
	if (h5.open)
		h5.open(); /* H5P_FILE_ACCESS is valid once the library is */
	hid_t p = -1;
	if (fapl != IOL_H5P_DEFAULT && h5.pcopy)
		p = h5.pcopy(fapl);
	else if (fapl == IOL_H5P_DEFAULT && h5.pcreate && h5.cls_file_access)
		p = h5.pcreate(*h5.cls_file_access);
	if (p < 0)
		return -1;
#define SET(k) (set & (1u << (k)))
	if (SET(IOL_H5_ALIGNMENT) && h5.pset_alignment)
		h5.pset_alignment(p, SET(IOL_H5_ALIGNMENT_THRESHOLD) ? (hsize_t)v[IOL_H5_ALIGNMENT_THRESHOLD] : 1,
				  (hsize_t)v[IOL_H5_ALIGNMENT]);
	if (SET(IOL_H5_SIEVE_BUF_SIZE) && h5.pset_sieve_buf_size)
		h5.pset_sieve_buf_size(p, (size_t)v[IOL_H5_SIEVE_BUF_SIZE]);
	if (SET(IOL_H5_META_BLOCK_SIZE) && h5.pset_meta_block_size)
		h5.pset_meta_block_size(p, (hsize_t)v[IOL_H5_META_BLOCK_SIZE]);
	if (SET(IOL_H5_CHUNK_CACHE_BYTES) && h5.pget_cache && h5.pset_cache) {
		int mdc;
		size_t slots, bytes;
		double w0;
		if (h5.pget_cache(p, &mdc, &slots, &bytes, &w0) >= 0)
			h5.pset_cache(p, mdc, slots, (size_t)v[IOL_H5_CHUNK_CACHE_BYTES], w0);
	}
	if (SET(IOL_H5_COLL_METADATA_READ) && h5.pset_all_coll_metadata_ops)
		h5.pset_all_coll_metadata_ops(p, v[IOL_H5_COLL_METADATA_READ] != 0);
	if (SET(IOL_H5_COLL_METADATA_WRITE) && h5.pset_coll_metadata_write)
		h5.pset_coll_metadata_write(p, v[IOL_H5_COLL_METADATA_WRITE] != 0);
#undef SET
	return p;
}

/* Ends an open with injected properties p (-1: none). */
static void injected(hid_t p, hid_t ret)
{
	if (p < 0)
		return;
	h5.pclose(p);
	if (ret >= 0)
		iol_inject_count(IOL_INJ_HDF5);
}

IOL_REAL_DECL(hid_t, H5Fcreate, (const char *, unsigned, hid_t, hid_t));
hid_t H5Fcreate(const char *filename, unsigned flags, hid_t fcpl_id, hid_t fapl_id)
{
	H5_RESOLVE(H5Fcreate);
	if (!h5_setup())
		return real_H5Fcreate(filename, flags, fcpl_id, fapl_id);
	hid_t p = IOL_UNLIKELY(iol_inject.h5_set) ? inject_fapl(fapl_id) : -1;
	iol_tick t1 = iol_op_begin();
	hid_t ret = real_H5Fcreate(filename, flags, fcpl_id, p >= 0 ? p : fapl_id);
	iol_tick t2 = iol_op_end(t1);
	int saved = errno;
	injected(p, ret);
	file_opened(ret, filename, fapl_id, t1, t2);
	errno = saved;
	return ret;
}

IOL_REAL_DECL(hid_t, H5Fopen, (const char *, unsigned, hid_t));
hid_t H5Fopen(const char *filename, unsigned flags, hid_t fapl_id)
{
	H5_RESOLVE(H5Fopen);
	if (!h5_setup())
		return real_H5Fopen(filename, flags, fapl_id);
	hid_t p = IOL_UNLIKELY(iol_inject.h5_set) ? inject_fapl(fapl_id) : -1;
	iol_tick t1 = iol_op_begin();
	hid_t ret = real_H5Fopen(filename, flags, p >= 0 ? p : fapl_id);
	iol_tick t2 = iol_op_end(t1);
	int saved = errno;
	injected(p, ret);
	file_opened(ret, filename, fapl_id, t1, t2);
	errno = saved;
	return ret;
}

IOL_REAL_DECL(herr_t, H5Fflush, (hid_t, H5F_scope_t));
herr_t H5Fflush(hid_t object_id, H5F_scope_t scope)
{
	H5_RESOLVE(H5Fflush);
	if (!iol_active || h5_state <= 0)
		return real_H5Fflush(object_id, scope);
	iol_tick t1 = iol_op_begin();
	herr_t ret = real_H5Fflush(object_id, scope);
	iol_tick t2 = iol_op_end(t1);
	if (ret < 0)
		return ret;
	int saved = errno;
	struct iol_record_block *r = NULL;
	if (h5.iget_type && (int)h5.iget_type(object_id) == IOL_H5I_FILE) {
		r = iol_handle_get(IOL_H_H5F, (uint64_t)object_id);
	} else if (h5.iget_file_id && h5.file_close) {
		hid_t fid = h5.iget_file_id(object_id);
		if (fid >= 0) {
			r = iol_handle_get(IOL_H_H5F, (uint64_t)fid);
			h5.file_close(fid); /* drops the reference H5Iget_file_id added */
		}
	}
	if (r && iol_enter(r)) {
		iol_counters(r)[H5F_FLUSHES]++;
		iol_timer(&iol_fcounters(r)[H5F_F_META_TIME], &iol_runtime(r)->last_meta_end, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
	return ret;
}

IOL_REAL_DECL(herr_t, H5Fclose, (hid_t));
herr_t H5Fclose(hid_t file_id)
{
	H5_RESOLVE(H5Fclose);
	struct iol_record_block *r = iol_handle_get(IOL_H_H5F, (uint64_t)file_id);
	if (!r)
		return real_H5Fclose(file_id);
	iol_tick t1 = iol_op_begin();
	herr_t ret = real_H5Fclose(file_id);
	iol_tick t2 = iol_op_end(t1);
	if (ret < 0)
		return ret;
	int saved = errno;
	iol_handle_del(IOL_H_H5F, (uint64_t)file_id);
	if (iol_enter(r)) {
		double *f = iol_fcounters(r);
		iol_stamp(f, H5F_F_CLOSE_START_TIMESTAMP, H5F_F_CLOSE_END_TIMESTAMP, t1, t2);
		iol_timer(&f[H5F_F_META_TIME], &iol_runtime(r)->last_meta_end, t1, t2);
		iol_leave(r, t2);
	}
	errno = saved;
	return ret;
}

/* ---- H5D records ---- */

/* Size of Darshan's record-name buffer, including the NUL. */
#define H5D_NAME_MAX 256

/* Appends s to the name of length *len, within H5D_NAME_MAX - 1 characters;
 * returns 1 if all of s fitted. */
static int name_append(char *name, size_t *len, const char *s)
{
	size_t room = H5D_NAME_MAX - 1 > *len ? H5D_NAME_MAX - 1 - *len : 0;
	size_t n = strlen(s);
	int fits = n <= room;
	if (!fits)
		n = room;
	memcpy(name + *len, s, n);
	*len += n;
	name[*len] = 0;
	return fits;
}

/* Builds the record name of a dataset opened at loc (spec §6.2): the file
 * name, ':', the path of loc, then obj (the name argument, or the dataset's
 * own path). Returns 0 and sets *file_id, or -1. */
static int dataset_name(hid_t loc, const char *obj, char *name, uint64_t *file_id)
{
	char fname[H5D_NAME_MAX];
	if (!h5.fget_name)
		return -1;
	ssize_t n = h5.fget_name(loc, fname, sizeof fname);
	if (n < 0)
		return -1;
	fname[sizeof fname - 1] = 0;
	if (n >= H5D_NAME_MAX - 1) {
		memcpy(name, fname, sizeof fname);
		*file_id = 0;
		return 0;
	}
	if (!iol_normalize(fname, name, PATH_MAX))
		return -1;
	size_t len = strlen(name);
	*file_id = iol_hash(name, len);
	if (len + 2 > H5D_NAME_MAX - 1)
		return 0;
	name[len++] = ':';
	name[len] = 0;
	char path[H5D_NAME_MAX];
	path[0] = 0;
	if (h5.iget_name) {
		ssize_t m = h5.iget_name(loc, path, sizeof path);
		if (m < 0)
			path[0] = 0;
		else if (m >= (ssize_t)sizeof path)
			path[sizeof path - 1] = 0;
	}
	if (name_append(name, &len, path) && obj)
		name_append(name, &len, obj);
	return 0;
}

/* What an open learns about a dataset (queried outside the timed call). */
struct dataset_info {
	int64_t ndims, npoints, type_size;
	int64_t chunk[5];
	int have_space, have_type;
};

static void dataset_query(hid_t dset, struct dataset_info *d)
{
	memset(d, 0, sizeof *d);
	if (h5.dget_space && h5.sclose) {
		hid_t s = h5.dget_space(dset);
		if (s >= 0) {
			if (h5.sget_simple_extent_ndims && h5.sget_simple_extent_npoints) {
				d->ndims = h5.sget_simple_extent_ndims(s);
				d->npoints = h5.sget_simple_extent_npoints(s);
				d->have_space = 1;
			}
			h5.sclose(s);
		}
	}
	if (h5.dget_type && h5.tclose) {
		hid_t t = h5.dget_type(dset);
		if (t >= 0) {
			if (h5.tget_size) {
				d->type_size = (int64_t)h5.tget_size(t);
				d->have_type = 1;
			}
			h5.tclose(t);
		}
	}
	if (h5.dget_create_plist && h5.pclose) {
		hid_t p = h5.dget_create_plist(dset);
		if (p >= 0) {
			if (p != IOL_H5P_DEFAULT && h5.pget_layout && h5.pget_chunk &&
			    (int)h5.pget_layout(p) == IOL_H5D_CHUNKED) {
				hsize_t dims[IOL_H5S_MAX_RANK] = {0};
				int n = h5.pget_chunk(p, IOL_H5S_MAX_RANK, dims);
				if (n > IOL_H5S_MAX_RANK)
					n = IOL_H5S_MAX_RANK;
				for (int i = 0; i < n && i < 5; i++)
					d->chunk[i] = (int64_t)dims[n - 1 - i];
			}
			h5.pclose(p);
		}
	}
}

/* Records the open of dataset dset at loc; obj names it (see dataset_name). */
static void dataset_opened(hid_t dset, hid_t loc, const char *obj, int deprecated, iol_tick t1, iol_tick t2)
{
	char name[PATH_MAX];
	uint64_t file_id;
	if (dset < 0 || !iol_active || dataset_name(loc, obj, name, &file_id) < 0)
		return;
	struct dataset_info d;
	dataset_query(dset, &d);
	struct iol_record_block *r = iol_record(&iol_h5d_module, name);
	if (!r || !iol_enter(r))
		return;
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	c[H5D_OPENS]++;
	c[H5D_USE_DEPRECATED] = deprecated;
	iol_stamp(f, H5D_F_OPEN_START_TIMESTAMP, H5D_F_OPEN_END_TIMESTAMP, t1, t2);
	iol_timer(&f[H5D_F_META_TIME], &drt(r)->rt.last_meta_end, t1, t2);
	if (d.have_space) {
		c[H5D_DATASPACE_NDIMS] = d.ndims;
		c[H5D_DATASPACE_NPOINTS] = d.npoints;
	}
	if (d.have_type)
		c[H5D_DATATYPE_SIZE] = d.type_size;
	for (int i = 0; i < 5; i++)
		if (d.chunk[i])
			c[H5D_CHUNK_SIZE_D1 + i] = d.chunk[i];
	r->file_rec_id = file_id;
	iol_leave(r, t2);
	iol_handle_put(IOL_H_H5D, (uint64_t)dset, r);
}

#define DATASET_OPEN_WRAPPER(name, params, args, loc, obj, deprecated)   \
	IOL_REAL_DECL(hid_t, name, params);                              \
	hid_t name params                                                \
	{                                                                \
		H5_RESOLVE(name);                                       \
		if (!h5_setup())                                         \
			return real_##name args;                         \
		iol_tick t1 = iol_op_begin();                            \
		hid_t ret = real_##name args;                            \
		iol_tick t2 = iol_op_end(t1);                            \
		int saved = errno;                                       \
		dataset_opened(ret, loc, obj, deprecated, t1, t2);       \
		errno = saved;                                           \
		return ret;                                              \
	}

DATASET_OPEN_WRAPPER(H5Dcreate1, (hid_t loc_id, const char *name, hid_t type_id, hid_t space_id, hid_t dcpl_id),
		     (loc_id, name, type_id, space_id, dcpl_id), loc_id, name, 1)
DATASET_OPEN_WRAPPER(H5Dcreate2, (hid_t loc_id, const char *name, hid_t type_id, hid_t space_id, hid_t lcpl_id,
				  hid_t dcpl_id, hid_t dapl_id),
		     (loc_id, name, type_id, space_id, lcpl_id, dcpl_id, dapl_id), loc_id, name, 0)
DATASET_OPEN_WRAPPER(H5Dopen1, (hid_t loc_id, const char *name), (loc_id, name), loc_id, name, 1)
DATASET_OPEN_WRAPPER(H5Dopen2, (hid_t loc_id, const char *name, hid_t dapl_id), (loc_id, name, dapl_id),
		     loc_id, name, 0)

/* H5Oopen family: a dataset open when the object is a dataset. by_path says
 * whether the name argument names it; otherwise its own path is used. */
static void object_opened(hid_t obj, hid_t loc, const char *name, int by_path, iol_tick t1, iol_tick t2)
{
	if (obj < 0 || !h5.iget_type || (int)h5.iget_type(obj) != IOL_H5I_DATASET)
		return;
	char path[H5D_NAME_MAX];
	if (!by_path) {
		if (!h5.iget_name)
			return;
		ssize_t m = h5.iget_name(obj, path, sizeof path);
		if (m < 0)
			return;
		path[sizeof path - 1] = 0;
		name = path;
	}
	dataset_opened(obj, loc, name, 0, t1, t2);
}

#define OBJECT_OPEN_WRAPPER(fn, params, args, loc, name, by_path)        \
	IOL_REAL_DECL(hid_t, fn, params);                                \
	hid_t fn params                                                  \
	{                                                                \
		H5_RESOLVE(fn);                                         \
		if (!h5_setup())                                         \
			return real_##fn args;                           \
		iol_tick t1 = iol_op_begin();                            \
		hid_t ret = real_##fn args;                              \
		iol_tick t2 = iol_op_end(t1);                            \
		int saved = errno;                                       \
		object_opened(ret, loc, name, by_path, t1, t2);          \
		errno = saved;                                           \
		return ret;                                              \
	}

OBJECT_OPEN_WRAPPER(H5Oopen, (hid_t loc_id, const char *name, hid_t lapl_id), (loc_id, name, lapl_id),
		    loc_id, name, 1)
OBJECT_OPEN_WRAPPER(H5Oopen_by_addr, (hid_t loc_id, haddr_t addr), (loc_id, addr), loc_id, NULL, 0)
OBJECT_OPEN_WRAPPER(H5Oopen_by_idx, (hid_t loc_id, const char *group_name, H5_index_t idx_type,
				     H5_iter_order_t order, hsize_t n, hid_t lapl_id),
		    (loc_id, group_name, idx_type, order, n, lapl_id), loc_id, NULL, 0)
OBJECT_OPEN_WRAPPER(H5Oopen_by_token, (hid_t loc_id, iol_h5o_token_t token), (loc_id, token), loc_id, NULL, 0)

/* ---- H5D I/O ---- */

/* The file selection of one transfer, queried outside the record lock. */
struct selection {
	int all;      /* H5S_ALL: the whole dataset */
	int type;     /* H5S_SEL_* */
	int regular;  /* 1 regular hyperslab, 0 irregular, -1 unknown */
	int64_t npoints;
	int64_t dims[10]; /* LENGTH_D1..5, STRIDE_D1..5 */
};

static void selection_query(hid_t space, struct selection *s)
{
	memset(s, 0, sizeof *s);
	s->type = -1;
	if (space == IOL_H5S_ALL) {
		s->all = 1;
		return;
	}
	/* Other small values are not ids but selectors of newer releases
	 * (H5S_BLOCK, H5S_PLIST): the selection is not known here. */
	if (space > 0 && space < 16)
		return;
	if (h5.sget_select_npoints)
		s->npoints = h5.sget_select_npoints(space);
	if (s->npoints < 0)
		s->npoints = 0;
	if (h5.sget_select_type)
		s->type = h5.sget_select_type(space);
	if (s->type != IOL_H5S_SEL_HYPERSLABS)
		return;
	s->regular = -1;
	if (!h5.sis_regular_hyperslab || !h5.sget_regular_hyperslab)
		return;
	s->regular = h5.sis_regular_hyperslab(space) > 0;
	if (!s->regular)
		return;
	hsize_t start[IOL_H5S_MAX_RANK] = {0}, stride[IOL_H5S_MAX_RANK] = {0};
	hsize_t count[IOL_H5S_MAX_RANK] = {0}, block[IOL_H5S_MAX_RANK] = {0};
	if (h5.sget_regular_hyperslab(space, start, stride, count, block) < 0)
		return;
	/* D1 holds entry 4 of the arrays: for an n-dimensional dataset the
	 * first (slowest) dimension lands in D5 and the last in D(6-n). */
	for (int i = 0; i < 5; i++) {
		s->dims[i] = (int64_t)(count[4 - i] * block[4 - i]);
		s->dims[5 + i] = (int64_t)stride[4 - i];
	}
}

static int collective(hid_t dxpl)
{
	H5FD_mpio_xfer_t mode;
	return dxpl != IOL_H5P_DEFAULT && h5.pget_dxpl_mpio && h5.pget_dxpl_mpio(dxpl, &mode) >= 0 &&
	       (int)mode == IOL_H5FD_MPIO_COLLECTIVE;
}

/* Adds a transfer to the access sequence: the bounding box of its file
 * selection (none for H5S_ALL: the whole dataset). */
static void learn_access(struct iol_record_block *r, int op, hid_t fspace, int64_t bytes, iol_tick t1, iol_tick t2)
{
	hsize_t lo[IOL_H5S_MAX_RANK], hi[IOL_H5S_MAX_RANK];
	int64_t start[IOL_H5S_MAX_RANK], count[IOL_H5S_MAX_RANK];
	int n = 0;
	if (fspace > 15 && h5.sget_simple_extent_ndims && h5.sget_select_bounds) {
		n = h5.sget_simple_extent_ndims(fspace);
		if (n < 0 || n > IOL_H5S_MAX_RANK || h5.sget_select_bounds(fspace, lo, hi) < 0)
			n = 0;
		for (int d = 0; d < n; d++) {
			start[d] = (int64_t)lo[d];
			count[d] = (int64_t)(hi[d] - lo[d] + 1);
		}
	}
	iol_access_add(IOL_MOD_H5D, r->id, r->file_rec_id, op, -1, bytes, n, start, count, t1, t2);
}

static void dataset_io(struct iol_record_block *r, int op, hid_t fspace, hid_t dxpl, iol_tick t1, iol_tick t2)
{
	struct selection s;
	selection_query(fspace, &s);
	int coll = collective(dxpl);
	if (!iol_enter(r))
		return;
	struct h5d_rt *rt = drt(r);
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	int rd = op == IOL_OP_READ;
	c[rd ? H5D_READS : H5D_WRITES]++;
	iol_rw_switch(&rt->rt, c, H5D_RW_SWITCHES, op);
	int64_t npoints = s.all ? c[H5D_DATASPACE_NPOINTS] : s.npoints;
	if (s.type == IOL_H5S_SEL_POINTS)
		c[H5D_POINT_SELECTS]++;
	else if (s.type == IOL_H5S_SEL_HYPERSLABS && s.regular >= 0)
		c[s.regular ? H5D_REGULAR_HYPERSLAB_SELECTS : H5D_IRREGULAR_HYPERSLAB_SELECTS]++;
	int64_t access = npoints * c[H5D_DATATYPE_SIZE];
	c[rd ? H5D_BYTES_READ : H5D_BYTES_WRITTEN] += access;
	iol_histogram(c, rd ? H5D_SIZE_READ_AGG_0_100 : H5D_SIZE_WRITE_AGG_0_100, access);
	int64_t tuple[IOL_TUPLE];
	tuple[0] = access;
	memcpy(&tuple[1], s.dims, sizeof s.dims);
	iol_common_tuple(&rt->access, c, H5D_ACCESS1_ACCESS, H5D_ACCESS1_COUNT, tuple);
	if (coll)
		c[H5D_USE_MPIIO_COLLECTIVE] = 1;
	if (rd) {
		iol_stamp(f, H5D_F_READ_START_TIMESTAMP, H5D_F_READ_END_TIMESTAMP, t1, t2);
		iol_maxtime(f, c, H5D_F_MAX_READ_TIME, H5D_MAX_READ_TIME_SIZE, t1, t2, access);
		iol_timer(&f[H5D_F_READ_TIME], &rt->rt.last_read_end, t1, t2);
	} else {
		iol_stamp(f, H5D_F_WRITE_START_TIMESTAMP, H5D_F_WRITE_END_TIMESTAMP, t1, t2);
		iol_maxtime(f, c, H5D_F_MAX_WRITE_TIME, H5D_MAX_WRITE_TIME_SIZE, t1, t2, access);
		iol_timer(&f[H5D_F_WRITE_TIME], &rt->rt.last_write_end, t1, t2);
	}
	iol_leave(r, t2);
	if (IOL_UNLIKELY(iol_learn_enabled))
		learn_access(r, op, fspace, access, t1, t2);
}

#define DATASET_IO_WRAPPER(name, bufdecl, op)                                                       \
	IOL_REAL_DECL(herr_t, name, (hid_t, hid_t, hid_t, hid_t, hid_t, bufdecl));                 \
	herr_t name(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,     \
		    hid_t dxpl_id, bufdecl buf)                                                    \
	{                                                                                          \
		H5_RESOLVE(name);                                                                 \
		struct iol_record_block *r = iol_handle_get(IOL_H_H5D, (uint64_t)dset_id);         \
		if (IOL_LIKELY(!r))                                                                \
			return real_##name(dset_id, mem_type_id, mem_space_id, file_space_id,      \
					   dxpl_id, buf);                                          \
		IOL_LEARN_ENTER();                                                                 \
		iol_tick t1 = iol_op_begin();                                                      \
		herr_t ret = real_##name(dset_id, mem_type_id, mem_space_id, file_space_id,        \
					 dxpl_id, buf);                                            \
		iol_tick t2 = iol_op_end(t1);                                                      \
		IOL_LEARN_LEAVE();                                                                 \
		if (ret >= 0) {                                                                    \
			int saved = errno;                                                         \
			dataset_io(r, op, file_space_id, dxpl_id, t1, t2);                         \
			errno = saved;                                                             \
		}                                                                                  \
		return ret;                                                                        \
	}

DATASET_IO_WRAPPER(H5Dread, void *, IOL_OP_READ)
DATASET_IO_WRAPPER(H5Dwrite, const void *, IOL_OP_WRITE)

IOL_REAL_DECL(herr_t, H5Dflush, (hid_t));
herr_t H5Dflush(hid_t dset_id)
{
	H5_RESOLVE(H5Dflush);
	struct iol_record_block *r = iol_handle_get(IOL_H_H5D, (uint64_t)dset_id);
	if (!r)
		return real_H5Dflush(dset_id);
	iol_tick t1 = iol_op_begin();
	herr_t ret = real_H5Dflush(dset_id);
	iol_tick t2 = iol_op_end(t1);
	if (ret >= 0 && iol_enter(r)) {
		iol_counters(r)[H5D_FLUSHES]++;
		iol_timer(&iol_fcounters(r)[H5D_F_META_TIME], &drt(r)->rt.last_meta_end, t1, t2);
		iol_leave(r, t2);
	}
	return ret;
}

#define DATASET_CLOSE_WRAPPER(name)                                                           \
	IOL_REAL_DECL(herr_t, name, (hid_t));                                                 \
	herr_t name(hid_t id)                                                                 \
	{                                                                                     \
		H5_RESOLVE(name);                                                            \
		struct iol_record_block *r = iol_handle_get(IOL_H_H5D, (uint64_t)id);         \
		if (!r)                                                                       \
			return real_##name(id);                                               \
		iol_tick t1 = iol_op_begin();                                                 \
		herr_t ret = real_##name(id);                                                 \
		iol_tick t2 = iol_op_end(t1);                                                 \
		if (ret < 0)                                                                  \
			return ret;                                                           \
		int saved = errno;                                                            \
		iol_handle_del(IOL_H_H5D, (uint64_t)id);                                      \
		if (iol_enter(r)) {                                                           \
			double *f = iol_fcounters(r);                                         \
			iol_stamp(f, H5D_F_CLOSE_START_TIMESTAMP, H5D_F_CLOSE_END_TIMESTAMP,  \
				  t1, t2);                                                    \
			iol_timer(&f[H5D_F_META_TIME], &drt(r)->rt.last_meta_end, t1, t2);    \
			iol_leave(r, t2);                                                     \
		}                                                                             \
		errno = saved;                                                                \
		return ret;                                                                   \
	}

DATASET_CLOSE_WRAPPER(H5Dclose)
DATASET_CLOSE_WRAPPER(H5Oclose)
