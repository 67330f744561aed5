/*
 * Prefetching ahead of the application, from a plan exported from its
 * accumulation graph (plan.h). A thread of the library, started at the
 * process's first recorded access, follows the access sequence the
 * application's threads append to the store (the same one --learn
 * records), finds each top-level access among the plan's vertices, follows
 * the most visited edges a few accesses ahead and asks the kernel to read
 * their file extents into the page cache (POSIX_FADV_WILLNEED), while the
 * application computes. The application still reads through the kernel:
 * nothing it reads can be stale. What the thread did is counted in the
 * store header (pf_*), and the merge puts it in the log's metadata.
 *
 * The thread uses raw system calls for its own files, so that the
 * library's wrappers do not record them, and never calls the application's
 * libraries. A plan that does not validate is ignored and the reason put in
 * pf_status.
 */
#include "iolens.h"
#include "plan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int iol_prefetch_enabled;

#define PF_FILES 256   /* concrete files the thread names */
#define PF_PATTERNS 256
#define PF_RING 512    /* prefetched extents remembered */
#define PF_FDS 64
#define PF_CHUNK (128 << 10) /* bytes per POSIX_FADV_WILLNEED when the device does not say */

/* A file of this process: its record id and logical name. */
struct pf_file {
	uint64_t id;
	char *logical;   /* malloc'd */
	const char *path;
	int plan_file;   /* index in the plan's files, -1 if none */
	int fd;          /* opened for fadvise, -1 if not yet */
	int64_t size;    /* at the last fstat */
	int64_t chunk;   /* bytes the kernel reads ahead per POSIX_FADV_WILLNEED */
};

/* A prefetched extent, for hits and to avoid asking twice. */
struct pf_extent {
	uint64_t file;   /* concrete record id */
	int64_t offset, length, used;
};

static struct {
	const struct iol_plan_header *plan;
	size_t plan_size;
	const struct iol_plan_vertex *v;
	const struct iol_plan_edge *e;
	const struct iol_plan_extent *x;
	const struct iol_plan_file *f;
	const char *str;
	uint64_t max_inflight;
	uint32_t depth;
	volatile int started;
	volatile int stop;
	volatile int idle; /* the thread found nothing to do at its last look */
	pthread_t thread;
	struct iol_access_cursor cur;
	struct pf_file files[PF_FILES];
	int nfiles;
	char *patterns[PF_PATTERNS];
	int pattern_count[PF_PATTERNS];
	int npatterns;
	struct pf_extent ring[PF_RING];
	int ring_next, ring_len;
	int64_t expect; /* vertex predicted next, -1 if none */
	uint32_t hist;  /* outcomes of the last predictions, newest in bit 0 (1 = right) */
	uint32_t nhist; /* how many of its bits are outcomes (at most 16) */
} pf = {.expect = -1};

/* How far to prefetch ahead: one access until four predictions were made,
 * then the plan's depth while the recent predictions are right, less as
 * they go wrong, nothing when at most a quarter of the last 16 were right (a program that does not repeat what was learned
 * pays no wasted reads). Predictions go on, so prefetching resumes when
 * they become right again. */
static uint32_t lookahead(void)
{
	if (pf.nhist < 4)
		return pf.depth < 1 ? pf.depth : 1; /* until predictions have proved right */
	/* Counted by hand: __builtin_popcount may call libgcc, which the
	 * library does not link. */
	uint32_t right = 0;
	for (uint32_t i = 0; i < pf.nhist; i++)
		right += (pf.hist >> i) & 1;
	double rate = (double)right / pf.nhist;
	if (rate >= 0.75)
		return pf.depth;
	if (rate >= 0.5)
		return pf.depth < 2 ? pf.depth : 2;
	return rate > 0.25 ? 1 : 0;
}

static void status(const char *s)
{
	struct iol_store_header *h = iol_header();
	if (h)
		snprintf(h->pf_status, sizeof h->pf_status, "%s", s);
}

/* ---- plan ---- */

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define FNV_INIT 0xcbf29ce484222325ULL

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Validates the plan at p (n bytes); on success sets the table pointers. */
static const char *plan_check(const char *p, size_t n)
{
	const struct iol_plan_header *h = (const void *)p;
	if (n < sizeof *h || memcmp(h->magic, IOL_PLAN_MAGIC, 8) != 0)
		return "not a prefetch plan";
	if (h->version != IOL_PLAN_VERSION)
		return "plan version not supported";
	if (h->header_size != sizeof *h || h->size != n)
		return "plan size does not match its header";
	size_t off = sizeof *h;
	size_t need[5] = {
		(size_t)h->nvertices * sizeof(struct iol_plan_vertex),
		(size_t)h->nedges * sizeof(struct iol_plan_edge),
		(size_t)h->nextents * sizeof(struct iol_plan_extent),
		(size_t)h->nfiles * sizeof(struct iol_plan_file),
		(size_t)h->strings_size,
	};
	size_t at[5];
	for (int i = 0; i < 5; i++) {
		if (need[i] > n || off > n - need[i])
			return "plan tables run past its end";
		at[i] = off;
		off = align8(off + need[i]);
	}
	if (off != align8(n) || fnv(p + sizeof *h, n - sizeof *h, FNV_INIT) != h->checksum)
		return "plan checksum mismatch";
	pf.v = (const void *)(p + at[0]);
	pf.e = (const void *)(p + at[1]);
	pf.x = (const void *)(p + at[2]);
	pf.f = (const void *)(p + at[3]);
	pf.str = p + at[4];
	for (uint32_t i = 0; i < h->nvertices; i++) {
		const struct iol_plan_vertex *v = &pf.v[i];
		if (i > 0 && pf.v[i - 1].key >= v->key)
			return "plan vertices not sorted";
		if (v->first_edge > h->nedges || v->nedges > h->nedges - v->first_edge ||
		    v->first_extent > h->nextents || v->nextents > h->nextents - v->first_extent)
			return "plan vertex out of range";
	}
	for (uint32_t i = 0; i < h->nedges; i++)
		if (pf.e[i].to >= h->nvertices)
			return "plan edge out of range";
	for (uint32_t i = 0; i < h->nextents; i++)
		if (pf.x[i].file >= h->nfiles || pf.x[i].offset < 0 || pf.x[i].length < 0)
			return "plan extent out of range";
	for (uint32_t i = 0; i < h->nfiles; i++)
		if (pf.f[i].name_off > h->strings_size || pf.f[i].name_len > h->strings_size - pf.f[i].name_off)
			return "plan file name out of range";
	return NULL;
}

/* The plan of this process: IOLENS_PREFETCH_PLAN, else the plan of its
 * application (IOLENS_APP, else the program's name) in
 * IOLENS_PREFETCH_DIR. */
static int plan_path(char *buf, size_t size)
{
	const char *path = getenv("IOLENS_PREFETCH_PLAN");
	if (path && *path)
		return snprintf(buf, size, "%s", path) < (int)size;
	const char *dir = getenv("IOLENS_PREFETCH_DIR");
	if (!dir || !*dir)
		return 0;
	const char *app = getenv("IOLENS_APP");
	if (!app || !*app)
		app = program_invocation_short_name;
	if (!app || !*app || strchr(app, '/'))
		return 0;
	return snprintf(buf, size, "%s/%s.plan", dir, app) < (int)size;
}

void iol_prefetch_init(void)
{
	char path[PATH_MAX];
	if (!plan_path(path, sizeof path))
		return;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 && errno == ENOENT && !getenv("IOLENS_PREFETCH_PLAN"))
		return; /* nothing learned about this program */
	if (fd < 0 || syscall(SYS_fstat, fd, &st) != 0 || st.st_size <= 0) {
		if (fd >= 0)
			syscall(SYS_close, fd);
		status("plan cannot be read");
		return;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	syscall(SYS_close, fd);
	if (p == MAP_FAILED) {
		status("plan cannot be mapped");
		return;
	}
	const char *why = plan_check(p, (size_t)st.st_size);
	if (why) {
		munmap(p, (size_t)st.st_size);
		status(why);
		return;
	}
	pf.plan = p;
	pf.plan_size = (size_t)st.st_size;
	pf.depth = pf.plan->depth ? pf.plan->depth : 32;
	const char *d = getenv("IOLENS_PREFETCH_DEPTH");
	if (d && atoi(d) > 0)
		pf.depth = (uint32_t)atoi(d);
	const char *m = getenv("IOLENS_PREFETCH_MAX");
	pf.max_inflight = 256ULL << 20;
	if (m && *m) {
		char *end;
		unsigned long long v = strtoull(m, &end, 10);
		switch (*end) {
		case 'k': case 'K': v <<= 10; break;
		case 'm': case 'M': v <<= 20; break;
		case 'g': case 'G': v <<= 30; break;
		}
		if (v > 0)
			pf.max_inflight = v;
	}
	status("ok");
	iol_prefetch_enabled = 1;
}

/* ---- naming, as package knowledge does ---- */

/* Writes path with every run of digits replaced by '#' into buf. */
static void generalize(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	int digits = 0;
	for (const char *c = path; *c && n + 1 < size; c++) {
		if (*c >= '0' && *c <= '9') {
			if (!digits)
				buf[n++] = '#';
			digits = 1;
			continue;
		}
		digits = 0;
		buf[n++] = *c;
	}
	buf[n] = 0;
}

static int plan_file_index(const char *logical)
{
	size_t len = strlen(logical);
	for (uint32_t i = 0; i < pf.plan->nfiles; i++)
		if (pf.f[i].name_len == len && memcmp(pf.str + pf.f[i].name_off, logical, len) == 0)
			return (int)i;
	return -1;
}

/* The process's file with record id id, named on first sight. */
static struct pf_file *file_of(uint64_t id)
{
	for (int i = 0; i < pf.nfiles; i++)
		if (pf.files[i].id == id)
			return &pf.files[i];
	const char *path = iol_name(id);
	if (!path || pf.nfiles == PF_FILES)
		return NULL;
	char pattern[PATH_MAX];
	generalize(path, pattern, sizeof pattern);
	int p = 0;
	while (p < pf.npatterns && strcmp(pf.patterns[p], pattern) != 0)
		p++;
	if (p == pf.npatterns) {
		if (p == PF_PATTERNS || !(pf.patterns[p] = strdup(pattern)))
			return NULL;
		pf.pattern_count[p] = 0;
		pf.npatterns++;
	}
	size_t n = strlen(pattern) + 24;
	char *logical = malloc(n);
	if (!logical)
		return NULL;
	snprintf(logical, n, "%s[%d]", pattern, pf.pattern_count[p]++);
	struct pf_file *f = &pf.files[pf.nfiles++];
	*f = (struct pf_file){.id = id, .logical = logical, .path = path, .plan_file = plan_file_index(logical), .fd = -1};
	return f;
}

/* The vertex of a top-level access, -1 if the plan has none. */
static int64_t vertex_of(const struct iol_access *a, int module, int op)
{
	struct pf_file *f = file_of(a->file);
	if (!f)
		return -1;
	char text[PATH_MAX + 512];
	size_t n = 0;
	int w = snprintf(text, sizeof text, "%s", f->logical);
	if (w < 0 || (size_t)w >= sizeof text)
		return -1;
	n = (size_t)w;
	if (module != IOL_MOD_POSIX) {
		const char *obj = iol_name(a->id);
		size_t pl = strlen(f->path);
		if (!obj || strncmp(obj, f->path, pl) != 0 || obj[pl] != ':')
			return -1;
		w = snprintf(text + n, sizeof text - n, ":%s", obj + pl + 1);
		if (w < 0 || (size_t)w >= sizeof text - n)
			return -1;
		n += (size_t)w;
	}
	text[n++] = 0;
	int64_t off = module == IOL_MOD_POSIX ? a->offset : -1, len = module == IOL_MOD_POSIX ? a->length : 0;
	w = snprintf(text + n, sizeof text - n, "%d,%d,%lld,%lld;", module, op, (long long)off, (long long)len);
	if (w < 0 || (size_t)w >= sizeof text - n)
		return -1;
	n += (size_t)w;
	uint32_t nd = a->ndims & ~IOL_ACCESS_NESTED;
	for (int part = 0; part < 2; part++) {
		for (uint32_t d = 0; d < nd && d < IOL_ACCESS_DIMS; d++) {
			w = snprintf(text + n, sizeof text - n, d ? ",%lld" : "%lld",
				     (long long)(part ? a->sel_count[d] : a->sel_start[d]));
			if (w < 0 || (size_t)w >= sizeof text - n)
				return -1;
			n += (size_t)w;
		}
		if (!part)
			text[n++] = ';';
	}
	uint64_t key = fnv(text, n, FNV_INIT);
	int64_t lo = 0, hi = (int64_t)pf.plan->nvertices - 1;
	while (lo <= hi) {
		int64_t mid = (lo + hi) / 2;
		if (pf.v[mid].key == key)
			return mid;
		if (pf.v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* ---- prefetching ---- */

/* Reads a number of KiB from a sysfs file, 0 if it cannot. */
static int64_t sysfs_kib(const char *path)
{
	char buf[32];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return atoll(buf);
}

/* The most the kernel reads for one POSIX_FADV_WILLNEED on the device of
 * st: the larger of its readahead window and its largest request (block
 * devices, from sysfs; a partition's are its disk's), else 128 KiB. */
static int64_t willneed_chunk(const struct stat *st)
{
	int64_t best = 0;
	static const char *const forms[] = {"/sys/dev/block/%u:%u/queue/%s", "/sys/dev/block/%u:%u/../queue/%s"};
	for (int k = 0; k < 2 && best == 0; k++)
		for (int q = 0; q < 2; q++) {
			char path[128];
			snprintf(path, sizeof path, forms[k], major(st->st_dev), minor(st->st_dev),
				 q ? "max_sectors_kb" : "read_ahead_kb");
			int64_t v = sysfs_kib(path);
			if (v > best)
				best = v;
		}
	return best > 0 ? best << 10 : 128 << 10;
}

static int64_t inflight(void)
{
	int64_t n = 0;
	for (int i = 0; i < pf.ring_len; i++)
		n += pf.ring[i].length - pf.ring[i].used;
	return n;
}

static int covered(uint64_t file, int64_t off, int64_t len)
{
	for (int i = 0; i < pf.ring_len; i++) {
		struct pf_extent *r = &pf.ring[i];
		if (r->file == file && r->offset <= off && off + len <= r->offset + r->length)
			return 1;
	}
	return 0;
}

/* The concrete file of this process that has plan file index i. */
static struct pf_file *concrete(uint32_t i)
{
	for (int k = 0; k < pf.nfiles; k++)
		if (pf.files[k].plan_file == (int)i)
			return &pf.files[k];
	return NULL;
}

static void prefetch_extent(const struct iol_plan_extent *x)
{
	struct pf_file *f = concrete(x->file);
	if (!f || x->length <= 0)
		return;
	if (f->fd < 0) {
		int open_fds = 0;
		for (int k = 0; k < pf.nfiles; k++)
			open_fds += pf.files[k].fd >= 0;
		if (open_fds >= PF_FDS)
			return;
		f->fd = (int)syscall(SYS_openat, AT_FDCWD, f->path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0) {
			f->fd = -2; /* do not try again */
			return;
		}
	}
	if (f->fd < 0)
		return;
	int64_t off = x->offset, len = x->length;
	if (off + len > f->size || f->chunk == 0) {
		struct stat st;
		if (syscall(SYS_fstat, f->fd, &st) == 0) {
			f->size = st.st_size;
			if (f->chunk == 0)
				f->chunk = willneed_chunk(&st);
		}
	}
	if (f->chunk == 0)
		f->chunk = PF_CHUNK;
	if (off >= f->size)
		return;
	if (off + len > f->size)
		len = f->size - off;
	if (covered(f->id, off, len) || inflight() + len > (int64_t)pf.max_inflight)
		return;
	/* The kernel reads at most the device's readahead window or largest
	 * request per call: ask in pieces that size. */
	for (int64_t o = off; o < off + len; o += f->chunk) {
		int64_t n = off + len - o < f->chunk ? off + len - o : f->chunk;
		if (syscall(SYS_fadvise64, f->fd, (off_t)o, (off_t)n, POSIX_FADV_WILLNEED) != 0)
			return;
	}
	pf.ring[pf.ring_next] = (struct pf_extent){f->id, off, len, 0};
	pf.ring_next = (pf.ring_next + 1) % PF_RING;
	if (pf.ring_len < PF_RING)
		pf.ring_len++;
	struct iol_store_header *h = iol_header();
	h->pf_issued++;
	h->pf_bytes += (uint64_t)len;
}

/* Follows the most visited edges from vertex v, prefetching the extents of
 * the read accesses found, and returns the first vertex predicted. */
static int64_t predict_from(int64_t v)
{
	int64_t first = -1;
	uint32_t ahead = lookahead();
	if (ahead == 0 && pf.v[v].nedges > 0)
		return pf.e[pf.v[v].first_edge].to; /* predict, do not prefetch */
	for (uint32_t step = 0; step < ahead; step++) {
		const struct iol_plan_vertex *pv = &pf.v[v];
		if (pv->nedges == 0)
			break;
		v = pf.e[pv->first_edge].to;
		if (first < 0)
			first = v;
		const struct iol_plan_vertex *nv = &pf.v[v];
		if (nv->op == 1)
			for (uint32_t k = 0; k < nv->nextents; k++)
				prefetch_extent(&pf.x[nv->first_extent + k]);
	}
	return first;
}

/* Counts the bytes of a read that earlier prefetches brought in. */
static void account_read(const struct iol_access *a)
{
	struct iol_store_header *h = iol_header();
	for (int i = 0; i < pf.ring_len; i++) {
		struct pf_extent *r = &pf.ring[i];
		if (r->file != a->file || r->used >= r->length)
			continue;
		int64_t lo = a->offset > r->offset ? a->offset : r->offset;
		int64_t hi = a->offset + a->length < r->offset + r->length ? a->offset + a->length
									      : r->offset + r->length;
		if (hi <= lo)
			continue;
		int64_t n = hi - lo;
		if (n > r->length - r->used)
			n = r->length - r->used;
		r->used += n;
		h->pf_hit_bytes += (uint64_t)n;
	}
}

static void handle(const struct iol_access *a, int predict)
{
	int module = (int)(a->kind >> 8), cop = (int)(a->kind & 0xff);
	int op = cop == IOL_OP_READ ? 1 : 2;
	if (module == IOL_MOD_POSIX && cop == IOL_OP_READ)
		account_read(a);
	if (module == IOL_MOD_POSIX && (a->ndims & IOL_ACCESS_NESTED)) {
		file_of(a->file); /* named in sequence order, as package knowledge does */
		return;           /* part of a high-level access */
	}
	struct iol_store_header *h = iol_header();
	int64_t v = vertex_of(a, module, op);
	if (pf.expect >= 0) {
		int right = v == pf.expect;
		if (right)
			h->pf_right++;
		else
			h->pf_wrong++;
		pf.hist = (pf.hist << 1 | (uint32_t)right) & 0xffff;
		if (pf.nhist < 16)
			pf.nhist++;
	}
	pf.expect = -1;
	if (v < 0) {
		h->pf_unknown++;
		return;
	}
	h->pf_matched++;
	if (predict)
		pf.expect = predict_from(v);
}

static void *run(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	long nap = 50000; /* ns */
	for (;;) {
		int stopping = pf.stop;
		const struct iol_access *a;
		int any = 0;
		while ((a = iol_access_next(&pf.cur)) != NULL) {
			handle(a, !stopping);
			any = 1;
		}
		if (stopping) {
			pf.stop = 2;
			return NULL;
		}
		pf.idle = !any;
		if (any) {
			nap = 50000;
			continue;
		}
		struct timespec ts = {0, nap};
		nanosleep(&ts, NULL);
		if (nap < 2000000)
			nap *= 2;
	}
}

void iol_prefetch_wake(void)
{
	if (IOL_LIKELY(pf.started))
		return;
	if (__atomic_exchange_n(&pf.started, 1, __ATOMIC_ACQ_REL))
		return;
	int saved = errno;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&pf.thread, &attr, run, NULL) != 0)
		status("prefetch thread could not start");
	pthread_attr_destroy(&attr);
	errno = saved;
}

void iol_prefetch_finish(void)
{
	if (!iol_prefetch_enabled || !pf.started || pf.stop)
		return;
	pf.stop = 1;
	/* Up to 50 ms for the thread to account for the last reads. */
	for (int i = 0; i < 500 && pf.stop != 2; i++) {
		struct timespec ts = {0, 100000};
		nanosleep(&ts, NULL);
	}
}

void iol_prefetch_fork_child(void)
{
	/* The child starts its own thread at its first access, with a
	 * fresh view of its own (new) store. */
	pf.started = 0;
	pf.stop = 0;
	pf.cur = (struct iol_access_cursor){0, 0};
	pf.ring_len = pf.ring_next = 0;
	pf.expect = -1;
	pf.hist = pf.nhist = 0;
	for (int i = 0; i < pf.nfiles; i++)
		if (pf.files[i].fd >= 0)
			syscall(SYS_close, pf.files[i].fd);
	pf.nfiles = 0;
	pf.npatterns = 0;
	if (pf.plan)
		status("ok");
}
