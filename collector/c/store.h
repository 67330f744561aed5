/*
 * Layout of a per-process store: the file that holds everything the preload
 * library records for one process. It is mapped MAP_SHARED from the start,
 * so the kernel keeps every completed update even if the process is killed;
 * the Go side (collector/store.go) reads it after the run and merges stores
 * into Darshan logs. All integers are native little-endian; every block is
 * 8-byte aligned.
 *
 * File layout:
 *   [0, 4096)        struct iol_store_header
 *   [4096, used)     blocks, appended in allocation order
 *
 * Every block starts with a 64-bit word: low 32 bits = block type (never 0),
 * high 32 bits = block size in bytes including the word (a multiple of 8).
 * The word is stored last, with release ordering, once the block's fixed
 * fields are written; a reader stops at the first zero word (a block that
 * was being allocated when the process died).
 *
 * Times: the collector reads a cheap tick counter (the TSC on x86-64,
 * CLOCK_MONOTONIC nanoseconds elsewhere). Time stamps are ticks elapsed since
 * header.tick0 (stored as doubles in records, uint64 in DXT segments);
 * durations are ticks. header.tick0 was read together with the wall clock
 * (start_sec, start_nsec); (cal_tick, cal_sec, cal_nsec) is a later pair,
 * refreshed while the process runs and at exit. Ticks per second =
 * (cal_tick - tick0) / (cal - start), or tick_hz when the pairs are too
 * close together.
 */
#ifndef IOLENS_STORE_H
#define IOLENS_STORE_H

#include <stdint.h>

#define IOL_STORE_MAGIC "IOLSTOR\x01"
#define IOL_STORE_VERSION 1
#define IOL_HEADER_SIZE 4096

/* Process states (header.state). */
enum iol_state {
	IOL_STATE_RUNNING = 1, /* still running, or killed */
	IOL_STATE_EXITED = 2,  /* exit, _exit or a return from main */
	IOL_STATE_EXECED = 3,  /* replaced itself with exec */
};

/* Header flags (header.flags). */
enum {
	IOL_FLAG_DXT = 1,       /* DXT tracing was enabled */
	IOL_FLAG_MPI_BUILD = 2, /* library built with MPI support */
	IOL_FLAG_LEARN = 4,     /* access sequences were recorded */
};

struct iol_store_header {
	char magic[8];            /*    0: IOL_STORE_MAGIC */
	uint32_t version;         /*    8 */
	uint32_t header_size;     /*   12: IOL_HEADER_SIZE */
	uint64_t used;            /*   16: bytes of the file in use (blocks end) */
	uint64_t size;            /*   24: file size */
	int64_t pid;              /*   32 */
	int64_t ppid;             /*   40 */
	int64_t fork_parent;      /*   48: pid of the parent if a fork child, else 0 */
	int64_t uid;              /*   56 */
	int64_t start_sec;        /*   64: wall clock when tick0 was read */
	int64_t start_nsec;       /*   72 */
	int64_t end_sec;          /*   80: wall clock at exit/exec, 0 if unknown */
	int64_t end_nsec;         /*   88 */
	uint64_t tick0;           /*   96 */
	uint64_t cal_tick;        /*  104: latest calibration pair */
	int64_t cal_sec;          /*  112 */
	int64_t cal_nsec;         /*  120 */
	double tick_hz;           /*  128: estimate of ticks per second, 0 if none */
	uint32_t state;           /*  136: enum iol_state */
	uint32_t flags;           /*  140 */
	int64_t mpi_rank;         /*  144: -1 until MPI_Init succeeded */
	int64_t mpi_size;         /*  152: 0 until MPI_Init succeeded */
	uint64_t mpi_job;         /*  160: key shared by all ranks of one MPI job, 0 if none */
	uint64_t partial;         /*  168: bit m set = module m lost data (a cap was reached) */
	int64_t jobid;            /*  176: SLURM_JOB_ID / PBS_JOBID / IOLENS_JOBID, -1 if none */
	uint64_t mpi_init_tick;   /*  184: ticks when MPI_Init returned (0 if never) */
	char hostname[64];        /*  192 */
	char app[64];             /*  256: IOLENS_APP */
	char mpi_flavor[16];      /*  320: "openmpi", "mpich" or "" */
	uint32_t cmdline_len;     /*  336 */
	uint32_t reserved0;       /*  340 */
	char cmdline[3072];       /*  344: argv joined by blanks */
	uint64_t fn_lost;         /* 3416: function frames not profiled (depth or function cap) */
	/* Prefetching (prefetch.c), written by the prefetch thread only. */
	uint64_t pf_issued;       /* 3424: extents prefetched */
	uint64_t pf_bytes;        /* 3432: bytes prefetched */
	uint64_t pf_hit_bytes;    /* 3440: prefetched bytes read afterwards */
	uint64_t pf_right;        /* 3448: next access predicted right */
	uint64_t pf_wrong;        /* 3456: next access predicted wrong */
	uint64_t pf_matched;      /* 3464: top-level accesses found in the plan */
	uint64_t pf_unknown;      /* 3472: top-level accesses not in the plan */
	char pf_status[64];       /* 3480: "" no plan, "ok", or why the plan was ignored */
	uint64_t inj[3];          /* 3544: opens that got injected MPI-IO hints, HDF5 properties, stdio buffers */
	char pad[IOL_HEADER_SIZE - 3568];
};

/* Block types. */
enum iol_block_type {
	IOL_BLK_NAME = 1,
	IOL_BLK_RECORD = 2,
	IOL_BLK_DXT = 3,
	IOL_BLK_HEATMAP = 4,
	IOL_BLK_FUNC = 5,
	IOL_BLK_ACCESS = 6,
};

/* A record name; one per distinct id per process. */
struct iol_name_block {
	uint64_t word;
	uint64_t id;   /* darshan record id (lookup8 hash of the name) */
	uint32_t len;  /* name length without NUL */
	uint32_t pad;
	char name[];   /* len bytes, then NUL, padded to 8 */
};

/*
 * A module record. counters[ncounters] (int64) and fcounters[nfcounters]
 * (double) follow the header directly, in the order of package darshan's
 * tables (counters.h). Time-stamp fcounters (..._TIMESTAMP) hold ticks since
 * tick0, duration fcounters (..._TIME) hold ticks; FASTEST/SLOWEST/VARIANCE
 * counters are left 0 for the merge. After the counters comes runtime state
 * private to the library.
 */
struct iol_record_block {
	uint64_t word;
	uint32_t module;      /*  8: darshan module id */
	uint32_t ncounters;   /* 12 */
	uint32_t nfcounters;  /* 16 */
	uint32_t lock;        /* 20: runtime spin lock */
	uint64_t id;          /* 24: record id */
	uint64_t file_rec_id; /* 32: H5D / PNETCDF_VAR: id of the file record */
	uint64_t events;      /* 40: updates recorded; 0 = only created (e.g. an
	                       *     inherited descriptor never used): the merge drops it */
	/* 48: int64_t counters[ncounters]; double fcounters[nfcounters]; runtime */
};

/* One traced operation. kind is stored last (release); 0 = not completed. */
struct iol_segment {
	uint64_t id;       /* record id */
	uint32_t kind;     /* module id << 8 | op (IOL_OP_READ / IOL_OP_WRITE); 0 = empty */
	uint32_t pad;
	int64_t offset;    /* -1 if unknown */
	int64_t length;
	uint64_t start;    /* ticks since tick0 */
	uint64_t end;
	uint64_t thread;   /* pthread_self() */
};

enum { IOL_OP_WRITE = 1, IOL_OP_READ = 2 };

/* A chunk of DXT segments. */
struct iol_dxt_block {
	uint64_t word;
	uint32_t capacity;   /* segments in this chunk */
	uint32_t next;       /* runtime: next free slot (may exceed capacity) */
	struct iol_segment seg[];
};

#define IOL_ACCESS_DIMS 8
#define IOL_ACCESS_NESTED 0x80000000u

/*
 * One access of the process's access sequence (recorded with IOLENS_LEARN):
 * a PnetCDF variable or HDF5 dataset read or write (id = the variable's or
 * dataset's record, file = its file's record, sel_* = the bounding box of
 * the selection, innermost ndims dimensions, length = bytes), or a POSIX
 * read or write (id = file = the file's record, offset and length the
 * extent, ndims 0). Accesses are stored when they end; the merge orders them
 * by start and puts a POSIX access under the high-level access of the same
 * thread whose interval holds it. kind is stored last (release); 0 = not
 * completed.
 */
struct iol_access {
	uint64_t id;
	uint64_t file;
	uint32_t kind;     /* module id << 8 | op */
	uint32_t ndims;    /* | IOL_ACCESS_NESTED: a POSIX access made inside a
	                    * PnetCDF or HDF5 data call of the same thread */
	int64_t offset;    /* -1 for high-level accesses */
	int64_t length;
	uint64_t start;    /* ticks since tick0 */
	uint64_t end;
	uint64_t thread;   /* pthread_self() */
	int64_t sel_start[IOL_ACCESS_DIMS];
	int64_t sel_count[IOL_ACCESS_DIMS];
};

/* A chunk of accesses; same header as a DXT chunk. */
struct iol_access_block {
	uint64_t word;
	uint32_t capacity;
	uint32_t next;
	struct iol_access acc[];
};

#define IOL_HEATMAP_BINS 200

/* Bytes moved over time by one module (POSIX, MPI-IO, STDIO) of the process. */
struct iol_heatmap_block {
	uint64_t word;
	uint32_t module;      /* darshan module id of the instrumented module */
	uint32_t pad;
	double width;         /* bin width in ticks (doubles when the bins collapse) */
	int64_t write[IOL_HEATMAP_BINS];
	int64_t read[IOL_HEATMAP_BINS];
};

/*
 * The profile of one function of a program built with -finstrument-functions
 * (funcs.c), one block per function address. Times are ticks. wall and io
 * are inclusive and count only the outermost active call of the function on
 * each thread (recursion is not counted twice); self_io is the I/O done
 * while the function was the innermost frame. offset is addr minus the load
 * bias of object, i.e. the function's virtual address in the ELF file.
 */
struct iol_func_block {
	uint64_t word;
	uint64_t addr;        /*  8: run-time address */
	uint64_t offset;      /* 16: ELF virtual address in object */
	uint64_t calls;       /* 24: completed calls (every activation) */
	uint64_t wall;        /* 32: inclusive wall ticks */
	uint64_t io;          /* 40: inclusive I/O ticks */
	uint64_t self_io;     /* 48: I/O ticks as the innermost frame */
	uint32_t object_len;  /* 56: length of object without NUL */
	uint32_t pad;
	char object[];        /* 64: path of the executable or shared object, NUL, padded to 8 */
};

#endif
