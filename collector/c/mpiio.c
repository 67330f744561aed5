/* iolens: mpi */
/*
 * MPI-IO module (MPI builds only): wrappers of MPI_Init and the MPI_File
 * calls, updating MPI-IO records with Darshan's rules (spec:
 * darshan-runtime-semantics.md §1.1, §5, §8).
 *
 * Every wrapper answers to both the MPI_ and the PMPI_ name (the Fortran
 * bindings of Open MPI call the PMPI_ functions). Because the PMPI_ names
 * are ours, the real functions are looked up with iol_resolve, which also
 * finds a libmpi the program loaded later with dlopen (e.g. from Python);
 * the helpers (PMPI_Comm_size, PMPI_Type_size, ...) are looked up the same
 * way, and Open MPI's predefined handles (addresses of objects in libmpi)
 * by their symbol names, so the object has no link-time reference to MPI
 * at all and the library also loads into processes without MPI.
 *
 * Differences from the reference runtime:
 *  - DXT offsets are converted with MPI_File_get_byte_offset with Open MPI
 *    too (the reference records -1 there); files opened with
 *    MPI_MODE_SEQUENTIAL have no positions and get offset -1.
 *  - MPI-IO calls the MPI library makes from inside another MPI-IO call
 *    (or from MPI_Init) are not counted again.
 *  - A datatype whose size is undefined (MPI_UNDEFINED) counts 0 bytes.
 */
#include "iolens.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#if defined(IOLENS_MPI_OPENMPI) || (!defined(IOLENS_MPI_MPICH) && defined(OPEN_MPI))
#define IOL_MPI_FLAVOR "openmpi"
#define IOL_MPI_HANDLES_BY_NAME 1
#else
#define IOL_MPI_FLAVOR "mpich"
#endif

/* Calls added by MPI 3.1 (non-blocking collectives) and MPI 4.0 (large counts). */
#define HAVE_MPI31 (MPI_VERSION > 3 || (MPI_VERSION == 3 && MPI_SUBVERSION >= 1))
#define HAVE_MPI40 (MPI_VERSION >= 4)

_Static_assert(sizeof(MPI_File) <= sizeof(uint64_t), "MPI_File fits a handle key");

struct mpiio_rt {
	struct iol_rt rt;
	struct iol_cv access;
};

IOL_HIDDEN const struct iol_module iol_mpiio_module = {
	.id = IOL_MOD_MPIIO,
	.ncounters = MPIIO_NUM_INDICES,
	.nfcounters = MPIIO_F_NUM_INDICES,
	.rt_size = sizeof(struct mpiio_rt),
};

static inline struct mpiio_rt *mrt(struct iol_record_block *r)
{
	return (struct mpiio_rt *)iol_runtime(r);
}

/* Depth of MPI calls made by a wrapper on this thread: calls that arrive
 * while it is non-zero come from inside the MPI library and pass through. */
static __thread int in_mpi __attribute__((tls_model("initial-exec")));

/* ---- the MPI library ---- */

/* Looks up a function of the MPI library; a process that calls an MPI
 * wrapper has one, so a missing symbol is fatal. */
static void *mpi_symbol(const char *name)
{
	void *p = iol_resolve(name);
	if (!p) {
		fprintf(stderr, "iolens: %s: symbol not found in the MPI library\n", name);
		abort();
	}
	return p;
}

#ifdef IOL_MPI_HANDLES_BY_NAME
/* Looks up an object of the MPI library. The global scope comes first: a
 * program that refers to the object has its own copy of it (a copy
 * relocation), and that copy is the one the library uses. */
static void *mpi_object(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	return p ? p : mpi_symbol(name);
}
#endif

#define REAL(name) real_##name
#define REAL_DECL(name) static __typeof__(&PMPI_##name) real_##name
#define RESOLVE(name)                                                                   \
	do {                                                                            \
		if (IOL_UNLIKELY(!real_##name))                                         \
			real_##name = (__typeof__(real_##name))mpi_symbol("PMPI_" #name); \
	} while (0)

/* Helpers that are not wrapped, and the predefined handles. */
static struct {
	int ready;
	__typeof__(&PMPI_Comm_dup) comm_dup;
	__typeof__(&PMPI_Comm_free) comm_free;
	__typeof__(&PMPI_Comm_rank) comm_rank;
	__typeof__(&PMPI_Comm_size) comm_size;
	__typeof__(&PMPI_Bcast) bcast;
	__typeof__(&PMPI_Type_size) type_size;
	__typeof__(&PMPI_File_get_position) get_position;
	__typeof__(&PMPI_File_get_position_shared) get_position_shared;
	__typeof__(&PMPI_File_get_byte_offset) get_byte_offset;
	MPI_Comm world;
	MPI_Info info_null;
	MPI_Datatype datatype_null;
	MPI_Datatype byte;
} api;

static void api_load(void)
{
	if (IOL_LIKELY(__atomic_load_n(&api.ready, __ATOMIC_ACQUIRE)))
		return;
	api.comm_dup = (__typeof__(api.comm_dup))mpi_symbol("PMPI_Comm_dup");
	api.comm_free = (__typeof__(api.comm_free))mpi_symbol("PMPI_Comm_free");
	api.comm_rank = (__typeof__(api.comm_rank))mpi_symbol("PMPI_Comm_rank");
	api.comm_size = (__typeof__(api.comm_size))mpi_symbol("PMPI_Comm_size");
	api.bcast = (__typeof__(api.bcast))mpi_symbol("PMPI_Bcast");
	api.type_size = (__typeof__(api.type_size))mpi_symbol("PMPI_Type_size");
	api.get_position = (__typeof__(api.get_position))mpi_symbol("PMPI_File_get_position");
	api.get_position_shared = (__typeof__(api.get_position_shared))mpi_symbol("PMPI_File_get_position_shared");
	api.get_byte_offset = (__typeof__(api.get_byte_offset))mpi_symbol("PMPI_File_get_byte_offset");
#ifdef IOL_MPI_HANDLES_BY_NAME
	/* Open MPI's handles are the addresses of these objects. */
	api.world = (MPI_Comm)mpi_object("ompi_mpi_comm_world");
	api.info_null = (MPI_Info)mpi_object("ompi_mpi_info_null");
	api.datatype_null = (MPI_Datatype)mpi_object("ompi_mpi_datatype_null");
	api.byte = (MPI_Datatype)mpi_object("ompi_mpi_byte");
#else
	api.world = MPI_COMM_WORLD;
	api.info_null = MPI_INFO_NULL;
	api.datatype_null = MPI_DATATYPE_NULL;
	api.byte = MPI_BYTE;
#endif
	__atomic_store_n(&api.ready, 1, __ATOMIC_RELEASE);
}

/* The handle-table key of a file handle (a pointer or an integer, by MPI). */
static inline uint64_t file_key(MPI_File fh)
{
	uint64_t k = 0;
	memcpy(&k, &fh, sizeof fh);
	return k;
}

/* The record of a file handle, or NULL when the handle is not tracked or
 * the call comes from inside the MPI library. */
static inline struct iol_record_block *tracked(MPI_File fh)
{
	if (IOL_UNLIKELY(in_mpi))
		return NULL;
	return iol_handle_get(IOL_H_MPIIO, file_key(fh));
}

/* ---- MPI_Init ---- */

static int mpi_setup_done;

/* A key shared by all ranks of the job, made on rank 0; never 0. */
static uint64_t job_key(void)
{
	char host[64] = "";
	struct timespec ts;
	gethostname(host, sizeof host - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t k = iol_hash(host, strlen(host));
	k ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
	k ^= ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ (iol_now() << 17);
	k ^= k >> 31;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 29;
	return k ? k : 1;
}

/* Runs once, after the real initialisation succeeded: tells the core the
 * rank, the size and the job key. Collective over MPI_COMM_WORLD; every rank
 * takes the same path because iol_active depends only on the environment. */
static void mpi_started(void)
{
	if (__atomic_exchange_n(&mpi_setup_done, 1, __ATOMIC_ACQ_REL) || !iol_active)
		return;
	api_load();
	MPI_Comm comm;
	if (api.comm_dup(api.world, &comm) != MPI_SUCCESS)
		return;
	int rank = 0, size = 1;
	api.comm_rank(comm, &rank);
	api.comm_size(comm, &size);
	uint64_t key = rank == 0 ? job_key() : 0;
	api.bcast(&key, (int)sizeof key, api.byte, 0, comm);
	api.comm_free(&comm);
	iol_set_mpi(rank, size, key, IOL_MPI_FLAVOR);
}

REAL_DECL(Init);
int MPI_Init(int *argc, char ***argv)
{
	iol_ensure_started();
	RESOLVE(Init);
	in_mpi++;
	int ret = REAL(Init)(argc, argv);
	in_mpi--;
	if (ret == MPI_SUCCESS && !in_mpi)
		mpi_started();
	return ret;
}
int PMPI_Init(int *argc, char ***argv) __attribute__((alias("MPI_Init")));

REAL_DECL(Init_thread);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	iol_ensure_started();
	RESOLVE(Init_thread);
	in_mpi++;
	int ret = REAL(Init_thread)(argc, argv, required, provided);
	in_mpi--;
	if (ret == MPI_SUCCESS && !in_mpi)
		mpi_started();
	return ret;
}
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
	__attribute__((alias("MPI_Init_thread")));

/* ---- open, close, sync, view ---- */

static void meta_time(struct iol_record_block *r, iol_tick t1, iol_tick t2)
{
	iol_timer(&iol_fcounters(r)[MPIIO_F_META_TIME], &mrt(r)->rt.last_meta_end, t1, t2);
}

static void opened(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File fh,
		   iol_tick t1, iol_tick t2)
{
	char buf[PATH_MAX];
	if (!filename)
		return;
	/* A ROMIO file-system prefix ("ufs:", "nfs:", ...) is not part of
	 * the name; a colon at position 0 or 1 is kept. */
	const char *colon = strchr(filename, ':');
	if (colon && colon > filename + 1)
		filename = colon + 1;
	if (!iol_normalize(filename, buf, sizeof buf))
		return;
	struct iol_record_block *r = iol_record(&iol_mpiio_module, buf);
	if (!r)
		return;
	api_load();
	int size = 0;
	api.comm_size(comm, &size);
	if (iol_enter(r)) {
		int64_t *c = iol_counters(r);
		c[MPIIO_MODE] = amode;
		c[size == 1 ? MPIIO_INDEP_OPENS : MPIIO_COLL_OPENS]++;
		if (info != api.info_null)
			c[MPIIO_HINTS]++;
		iol_stamp(iol_fcounters(r), MPIIO_F_OPEN_START_TIMESTAMP, MPIIO_F_OPEN_END_TIMESTAMP, t1, t2);
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	iol_handle_put(IOL_H_MPIIO, file_key(fh), r);
}

REAL_DECL(File_open);
/* A copy of info (or a new info) with the injected hints set, which take
 * precedence over the program's; MPI_INFO_NULL if it cannot be made. */
static MPI_Info inject_hints(MPI_Info info)
{
	MPI_Info m;
	int err = info == MPI_INFO_NULL ? PMPI_Info_create(&m) : PMPI_Info_dup(info, &m);
	if (err != MPI_SUCCESS)
		return MPI_INFO_NULL;
	for (int i = 0; i < iol_inject.nhints; i++)
		PMPI_Info_set(m, iol_inject.hint_keys[i], iol_inject.hint_vals[i]);
	return m;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
	RESOLVE(File_open);
	if (in_mpi || !iol_active)
		return REAL(File_open)(comm, filename, amode, info, fh);
	in_mpi++;
	MPI_Info merged = MPI_INFO_NULL;
	if (IOL_UNLIKELY(iol_inject.nhints) && iol_inject_hints_for(filename))
		merged = inject_hints(info);
	iol_tick t1 = iol_op_begin();
	int ret = REAL(File_open)(comm, filename, amode, merged != MPI_INFO_NULL ? merged : info, fh);
	iol_tick t2 = iol_op_end(t1);
	in_mpi--;
	if (ret == MPI_SUCCESS && fh)
		opened(comm, filename, amode, info, *fh, t1, t2);
	if (merged != MPI_INFO_NULL) {
		PMPI_Info_free(&merged);
		if (ret == MPI_SUCCESS)
			iol_inject_count(IOL_INJ_MPIIO);
	}
	return ret;
}
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
	__attribute__((alias("MPI_File_open")));

REAL_DECL(File_close);
int MPI_File_close(MPI_File *fh)
{
	RESOLVE(File_close);
	struct iol_record_block *r = fh ? tracked(*fh) : NULL;
	if (!r)
		return REAL(File_close)(fh);
	MPI_File h = *fh;
	in_mpi++;
	iol_tick t1 = iol_op_begin();
	int ret = REAL(File_close)(fh);
	iol_tick t2 = iol_op_end(t1);
	in_mpi--;
	iol_handle_del(IOL_H_MPIIO, file_key(h));
	if (iol_enter(r)) {
		iol_stamp(iol_fcounters(r), MPIIO_F_CLOSE_START_TIMESTAMP, MPIIO_F_CLOSE_END_TIMESTAMP, t1, t2);
		meta_time(r, t1, t2);
		iol_leave(r, t2);
	}
	return ret;
}
int PMPI_File_close(MPI_File *fh) __attribute__((alias("MPI_File_close")));

REAL_DECL(File_sync);
int MPI_File_sync(MPI_File fh)
{
	RESOLVE(File_sync);
	struct iol_record_block *r = tracked(fh);
	if (!r)
		return REAL(File_sync)(fh);
	in_mpi++;
	iol_tick t1 = iol_op_begin();
	int ret = REAL(File_sync)(fh);
	iol_tick t2 = iol_op_end(t1);
	in_mpi--;
	if (ret == MPI_SUCCESS && iol_enter(r)) {
		iol_counters(r)[MPIIO_SYNCS]++;
		iol_timer(&iol_fcounters(r)[MPIIO_F_WRITE_TIME], &mrt(r)->rt.last_write_end, t1, t2);
		iol_leave(r, t2);
	}
	return ret;
}
int PMPI_File_sync(MPI_File fh) __attribute__((alias("MPI_File_sync")));

REAL_DECL(File_set_view);
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
		      const char *datarep, MPI_Info info)
{
	RESOLVE(File_set_view);
	struct iol_record_block *r = tracked(fh);
	if (!r)
		return REAL(File_set_view)(fh, disp, etype, filetype, datarep, info);
	in_mpi++;
	iol_tick t1 = iol_op_begin();
	int ret = REAL(File_set_view)(fh, disp, etype, filetype, datarep, info);
	iol_tick t2 = iol_op_end(t1);
	in_mpi--;
	if (ret == MPI_SUCCESS && iol_enter(r)) {
		iol_counters(r)[MPIIO_VIEWS]++;
		/* Only a view with hints counts its time. */
		if (info != api.info_null) {
			iol_counters(r)[MPIIO_HINTS]++;
			meta_time(r, t1, t2);
		}
		iol_leave(r, t2);
	}
	return ret;
}
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
		       const char *datarep, MPI_Info info) __attribute__((alias("MPI_File_set_view")));

/* ---- data ---- */

/* Where a data call accesses the file (for DXT offsets). */
enum { POS_EXPLICIT, POS_INDIVIDUAL, POS_SHARED };

/* The byte offset of a data call, queried before the call when DXT is on:
 * the explicit offset, or the individual or shared file pointer, in units
 * of the view's etype, converted to bytes; -1 if unknown. */
static int64_t dxt_offset(struct iol_record_block *r, MPI_File fh, int where, MPI_Offset off)
{
	if (!iol_dxt_enabled || (iol_counters(r)[MPIIO_MODE] & MPI_MODE_SEQUENTIAL))
		return -1;
	api_load();
	in_mpi++;
	int ok = MPI_SUCCESS;
	if (where == POS_INDIVIDUAL)
		ok = api.get_position(fh, &off);
	else if (where == POS_SHARED)
		ok = api.get_position_shared(fh, &off);
	MPI_Offset byte = -1;
	if (ok == MPI_SUCCESS && api.get_byte_offset(fh, off, &byte) != MPI_SUCCESS)
		byte = -1;
	in_mpi--;
	return ok == MPI_SUCCESS ? (int64_t)byte : -1;
}

/* The size of a transfer: count × the datatype's size, wrapped to a C int
 * like the reference. */
static int transfer_size(int64_t count, MPI_Datatype datatype)
{
	if (count <= 0 || datatype == api.datatype_null)
		return 0;
	int tsize = 0;
	in_mpi++;
	if (api.type_size(datatype, &tsize) != MPI_SUCCESS || tsize < 0)
		tsize = 0;
	in_mpi--;
	return (int)(uint32_t)((uint64_t)count * (uint64_t)tsize);
}

/* One data call that succeeded (spec §5): counter is the counter of its
 * kind (MPIIO_INDEP_READS, ...). */
static void transfer(struct iol_record_block *r, int op, int counter, int64_t count, MPI_Datatype datatype,
		     int64_t offset, iol_tick t1, iol_tick t2)
{
	api_load();
	int64_t size = transfer_size(count, datatype);
	if (!iol_enter(r))
		return;
	struct mpiio_rt *rt = mrt(r);
	int64_t *c = iol_counters(r);
	double *f = iol_fcounters(r);
	int rd = op == IOL_OP_READ;
	iol_dxt(IOL_MOD_MPIIO, r->id, op, offset, size, t1, t2);
	iol_heatmap(IOL_MOD_MPIIO, op, size, t1, t2);
	iol_histogram(c, rd ? MPIIO_SIZE_READ_AGG_0_100 : MPIIO_SIZE_WRITE_AGG_0_100, size);
	iol_common(&rt->access, c, MPIIO_ACCESS1_ACCESS, MPIIO_ACCESS1_COUNT, size);
	c[rd ? MPIIO_BYTES_READ : MPIIO_BYTES_WRITTEN] += size;
	c[counter]++;
	iol_rw_switch(&rt->rt, c, MPIIO_RW_SWITCHES, op);
	if (rd) {
		iol_stamp(f, MPIIO_F_READ_START_TIMESTAMP, MPIIO_F_READ_END_TIMESTAMP, t1, t2);
		iol_maxtime(f, c, MPIIO_F_MAX_READ_TIME, MPIIO_MAX_READ_TIME_SIZE, t1, t2, size);
		iol_timer(&f[MPIIO_F_READ_TIME], &rt->rt.last_read_end, t1, t2);
	} else {
		iol_stamp(f, MPIIO_F_WRITE_START_TIMESTAMP, MPIIO_F_WRITE_END_TIMESTAMP, t1, t2);
		iol_maxtime(f, c, MPIIO_F_MAX_WRITE_TIME, MPIIO_MAX_WRITE_TIME_SIZE, t1, t2, size);
		iol_timer(&f[MPIIO_F_WRITE_TIME], &rt->rt.last_write_end, t1, t2);
	}
	iol_leave(r, t2);
}

/* A data wrapper. params must name the handle fh, the count count and the
 * datatype datatype; off is the explicit offset (or 0). */
#define IO_WRAPPER(name, params, args, op, counter, where, off)                          \
	REAL_DECL(name);                                                                 \
	int MPI_##name params                                                            \
	{                                                                                \
		RESOLVE(name);                                                           \
		struct iol_record_block *r = tracked(fh);                                \
		if (IOL_LIKELY(!r))                                                      \
			return REAL(name) args;                                          \
		int64_t at = dxt_offset(r, fh, where, off);                              \
		in_mpi++;                                                                \
		iol_tick t1 = iol_op_begin();                                            \
		int ret = REAL(name) args;                                               \
		iol_tick t2 = iol_op_end(t1);                                            \
		in_mpi--;                                                                \
		if (ret == MPI_SUCCESS)                                                  \
			transfer(r, op, counter, (int64_t)count, datatype, at, t1, t2);  \
		return ret;                                                              \
	}                                                                                \
	int PMPI_##name params __attribute__((alias("MPI_" #name)));

/* Shapes of the data calls: B is the buffer type, C the count type. */
#define AT_STATUS(name, B, C, op, counter)                                                         \
	IO_WRAPPER(name, (MPI_File fh, MPI_Offset offset, B buf, C count, MPI_Datatype datatype,   \
			  MPI_Status *status),                                                     \
		   (fh, offset, buf, count, datatype, status), op, counter, POS_EXPLICIT, offset)
#define AT_BEGIN(name, B, C, op, counter)                                                          \
	IO_WRAPPER(name, (MPI_File fh, MPI_Offset offset, B buf, C count, MPI_Datatype datatype),  \
		   (fh, offset, buf, count, datatype), op, counter, POS_EXPLICIT, offset)
#define AT_REQUEST(name, B, C, op, counter)                                                        \
	IO_WRAPPER(name, (MPI_File fh, MPI_Offset offset, B buf, C count, MPI_Datatype datatype,   \
			  MPI_Request *request),                                                   \
		   (fh, offset, buf, count, datatype, request), op, counter, POS_EXPLICIT, offset)
#define PTR_STATUS(name, B, C, op, counter, where)                                                 \
	IO_WRAPPER(name, (MPI_File fh, B buf, C count, MPI_Datatype datatype, MPI_Status *status), \
		   (fh, buf, count, datatype, status), op, counter, where, 0)
#define PTR_BEGIN(name, B, C, op, counter, where)                                                  \
	IO_WRAPPER(name, (MPI_File fh, B buf, C count, MPI_Datatype datatype),                     \
		   (fh, buf, count, datatype), op, counter, where, 0)
#define PTR_REQUEST(name, B, C, op, counter, where)                                                \
	IO_WRAPPER(name, (MPI_File fh, B buf, C count, MPI_Datatype datatype,                      \
			  MPI_Request *request),                                                   \
		   (fh, buf, count, datatype, request), op, counter, where, 0)

#define RD IOL_OP_READ
#define WR IOL_OP_WRITE
#define IND POS_INDIVIDUAL
#define SHR POS_SHARED

/* All data calls with count type C and suffix S ("" or "_c"). */
#define DATA_CALLS(C, S)                                                                        \
	AT_STATUS(File_read_at##S, void *, C, RD, MPIIO_INDEP_READS)                            \
	AT_STATUS(File_write_at##S, const void *, C, WR, MPIIO_INDEP_WRITES)                    \
	AT_STATUS(File_read_at_all##S, void *, C, RD, MPIIO_COLL_READS)                         \
	AT_STATUS(File_write_at_all##S, const void *, C, WR, MPIIO_COLL_WRITES)                 \
	AT_BEGIN(File_read_at_all_begin##S, void *, C, RD, MPIIO_SPLIT_READS)                   \
	AT_BEGIN(File_write_at_all_begin##S, const void *, C, WR, MPIIO_SPLIT_WRITES)           \
	AT_REQUEST(File_iread_at##S, void *, C, RD, MPIIO_NB_READS)                             \
	AT_REQUEST(File_iwrite_at##S, const void *, C, WR, MPIIO_NB_WRITES)                     \
	PTR_STATUS(File_read##S, void *, C, RD, MPIIO_INDEP_READS, IND)                         \
	PTR_STATUS(File_write##S, const void *, C, WR, MPIIO_INDEP_WRITES, IND)                 \
	PTR_STATUS(File_read_all##S, void *, C, RD, MPIIO_COLL_READS, IND)                      \
	PTR_STATUS(File_write_all##S, const void *, C, WR, MPIIO_COLL_WRITES, IND)              \
	PTR_BEGIN(File_read_all_begin##S, void *, C, RD, MPIIO_SPLIT_READS, IND)                \
	PTR_BEGIN(File_write_all_begin##S, const void *, C, WR, MPIIO_SPLIT_WRITES, IND)        \
	PTR_REQUEST(File_iread##S, void *, C, RD, MPIIO_NB_READS, IND)                          \
	PTR_REQUEST(File_iwrite##S, const void *, C, WR, MPIIO_NB_WRITES, IND)                  \
	PTR_STATUS(File_read_shared##S, void *, C, RD, MPIIO_INDEP_READS, SHR)                  \
	PTR_STATUS(File_write_shared##S, const void *, C, WR, MPIIO_INDEP_WRITES, SHR)          \
	PTR_STATUS(File_read_ordered##S, void *, C, RD, MPIIO_COLL_READS, SHR)                  \
	PTR_STATUS(File_write_ordered##S, const void *, C, WR, MPIIO_COLL_WRITES, SHR)          \
	PTR_BEGIN(File_read_ordered_begin##S, void *, C, RD, MPIIO_SPLIT_READS, SHR)            \
	PTR_BEGIN(File_write_ordered_begin##S, const void *, C, WR, MPIIO_SPLIT_WRITES, SHR)    \
	PTR_REQUEST(File_iread_shared##S, void *, C, RD, MPIIO_NB_READS, SHR)                   \
	PTR_REQUEST(File_iwrite_shared##S, const void *, C, WR, MPIIO_NB_WRITES, SHR)

/* The non-blocking collectives of MPI 3.1. */
#define NB_COLL_CALLS(C, S)                                                                     \
	AT_REQUEST(File_iread_at_all##S, void *, C, RD, MPIIO_NB_READS)                         \
	AT_REQUEST(File_iwrite_at_all##S, const void *, C, WR, MPIIO_NB_WRITES)                 \
	PTR_REQUEST(File_iread_all##S, void *, C, RD, MPIIO_NB_READS, IND)                      \
	PTR_REQUEST(File_iwrite_all##S, const void *, C, WR, MPIIO_NB_WRITES, IND)

DATA_CALLS(int, )
#if HAVE_MPI31
NB_COLL_CALLS(int, )
#endif
#if HAVE_MPI40
DATA_CALLS(MPI_Count, _c)
NB_COLL_CALLS(MPI_Count, _c)
#endif
