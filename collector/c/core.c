/*
 * Core of the iolens preload library: start-up and configuration, the
 * crash-safe store (a file mapped MAP_SHARED into a reserved address range
 * that grows in place), record and name registries, handle tables, common
 * values, DXT segments, heatmaps, clock calibration, fork and exit.
 */
#include "iolens.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(struct iol_store_header) == IOL_HEADER_SIZE, "store header size");
_Static_assert(sizeof(struct iol_record_block) == 48, "record block header size");
_Static_assert(sizeof(struct iol_segment) == 56, "segment size");
_Static_assert(sizeof(struct iol_access) == 192, "access size");
_Static_assert(offsetof(struct iol_access_block, acc) == offsetof(struct iol_dxt_block, seg), "chunk headers");

volatile int iol_active;
int iol_dxt_enabled;
int iol_learn_enabled;
__thread int iol_learn_depth __attribute__((tls_model("initial-exec")));
int64_t iol_mem_alignment = 8;
iol_tick iol_tick0;
iol_tick iol_next_calibration = UINT64_MAX;
__thread int iol_in_update __attribute__((tls_model("initial-exec")));
struct iol_record_block *volatile *iol_fdmap;
struct iol_heat iol_heat[IOL_HEAT_MODULES];

/* Open-addressing table slot: key 0 = empty, IOL_TOMB = deleted. */
struct iol_slot {
	uint64_t key;
	void *volatile ptr;
};
#define IOL_TOMB UINT64_MAX

struct iol_table {
	struct iol_slot *slot;
	size_t cap; /* power of two */
	size_t used; /* live + tombstones */
};

#define IOL_MAX_MODULES 32
#define IOL_STREAM_CHUNKS 256

/*
 * A sequence of fixed-size elements (DXT segments, accesses) in chunks of
 * the store: each chunk holds twice as many as the previous one (from 1024
 * up to 2^20), and the chunks together at most max bytes; past that the
 * elements are dropped and the module flagged partial.
 */
struct iol_stream {
	uint64_t max;
	uint64_t bytes;
	uint32_t next_cap;
	uint32_t type;   /* block type of the chunks */
	size_t elem;     /* element size */
	int partial_mod; /* module flagged partial when the cap is reached */
	struct iol_dxt_block *volatile cur; /* header common to every chunk */
	/* Every chunk in allocation order, for readers inside the process
	 * (the prefetch thread follows the access sequence). */
	struct iol_dxt_block *chunks[IOL_STREAM_CHUNKS];
	int nchunks;
};

static struct {
	int state; /* 0 not started, 1 starting, 2 started, 3 finished */
	pthread_mutex_t lock;
	struct iol_store_header own; /* header until the store exists */
	struct iol_store_header *hdr;
	int fd;
	char *base;
	size_t reserved;
	uint64_t store_max;
	struct iol_stream dxt;    /* DXT segments */
	struct iol_stream access; /* access sequence */
	const struct iol_module *modules[IOL_MAX_MODULES];
	struct iol_table names;   /* id -> name block */
	struct iol_table records; /* module/id -> record */
	struct iol_table handles; /* kind/handle -> record (lock-free reads) */
	regex_t exclude, include, runtime;
	int have_exclude, have_include, have_runtime;
	char store_dir[PATH_MAX - 256];
	char store_path[PATH_MAX];
	uint32_t calibrating;
	int store_failed;
	iol_tick calibration_interval;
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
};

/* ---- symbol resolution ---- */

struct iol_find {
	const char *name;
	void *self;
	void *found;
};

static int find_in_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct iol_find *f = arg;
	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	void *p = dlsym(h, f->name);
	dlclose(h);
	if (p && p != f->self) {
		f->found = p;
		return 1;
	}
	return 0;
}

void *iol_resolve(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (p)
		return p;
	/* Libraries loaded with RTLD_LOCAL (e.g. by a Python extension) are
	 * not in the global scope RTLD_NEXT searches: look through every
	 * loaded object for a definition that is not ours. */
	struct iol_find f = {name, dlsym(RTLD_DEFAULT, name), NULL};
	dl_iterate_phdr(find_in_object, &f);
	return f.found;
}

/* ---- raw system calls (never intercepted) ---- */

static int sys_open(const char *path, int flags, int mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}
static void sys_close(int fd)
{
	syscall(SYS_close, fd);
}
static ssize_t sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}
static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}
static int sys_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

/* ---- small helpers ---- */

void *iol_alloc(size_t n)
{
	void *p = sys_mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static uint64_t parse_size(const char *s, uint64_t def)
{
	if (!s || !*s)
		return def;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': v <<= 10; break;
	case 'm': case 'M': v <<= 20; break;
	case 'g': case 'G': v <<= 30; break;
	case 't': case 'T': v <<= 40; break;
	default: break;
	}
	return v ? v : def;
}

static int64_t parse_jobid(void)
{
	static const char *vars[] = {"IOLENS_JOBID", "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v >= '0' && *v <= '9')
			return strtoll(v, NULL, 10);
	}
	return -1;
}

static void wall(int64_t *sec, int64_t *nsec)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	*sec = ts.tv_sec;
	*nsec = ts.tv_nsec;
}

/* ---- lookup8 hash (record ids) ---- */

#define MIX64(a, b, c)                                      \
	do {                                                \
		a -= b; a -= c; a ^= (c >> 43);             \
		b -= c; b -= a; b ^= (a << 9);              \
		c -= a; c -= b; c ^= (b >> 8);              \
		a -= b; a -= c; a ^= (c >> 38);             \
		b -= c; b -= a; b ^= (a << 23);             \
		c -= a; c -= b; c ^= (b >> 5);              \
		a -= b; a -= c; a ^= (c >> 35);             \
		b -= c; b -= a; b ^= (a << 49);             \
		c -= a; c -= b; c ^= (b >> 11);             \
		a -= b; a -= c; a ^= (c >> 12);             \
		b -= c; b -= a; b ^= (a << 18);             \
		c -= a; c -= b; c ^= (b >> 22);             \
	} while (0)

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

uint64_t iol_hash(const char *name, size_t len)
{
	const unsigned char *k = (const unsigned char *)name;
	uint64_t a = 0, b = 0, c = 0x9e3779b97f4a7c13ULL;
	size_t n = len;
	while (n >= 24) {
		a += le64(k);
		b += le64(k + 8);
		c += le64(k + 16);
		MIX64(a, b, c);
		k += 24;
		n -= 24;
	}
	c += len;
	for (size_t i = 0; i < n; i++) {
		if (i < 8)
			a += (uint64_t)k[i] << (8 * i);
		else if (i < 16)
			b += (uint64_t)k[i] << (8 * (i - 8));
		else
			c += (uint64_t)k[i] << (8 * (i - 15));
	}
	MIX64(a, b, c);
	return c;
}

/* ---- hash tables ---- */

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static int table_init(struct iol_table *t, size_t cap)
{
	t->slot = iol_alloc(cap * sizeof *t->slot);
	t->cap = t->slot ? cap : 0;
	t->used = 0;
	return t->slot ? 0 : -1;
}

static void *table_get(const struct iol_table *t, uint64_t key)
{
	struct iol_slot *s = __atomic_load_n(&t->slot, __ATOMIC_ACQUIRE);
	size_t cap = t->cap;
	if (!s)
		return NULL;
	for (size_t i = mix(key) & (cap - 1), n = 0; n < cap; i = (i + 1) & (cap - 1), n++) {
		uint64_t k = __atomic_load_n(&s[i].key, __ATOMIC_ACQUIRE);
		if (k == key)
			return __atomic_load_n(&s[i].ptr, __ATOMIC_ACQUIRE);
		if (k == 0)
			return NULL;
	}
	return NULL;
}

static void table_put(struct iol_table *t, uint64_t key, void *ptr);

/* Doubles a table; the old array stays mapped for lock-free readers. */
static int table_grow(struct iol_table *t)
{
	struct iol_table n;
	if (table_init(&n, t->cap ? t->cap * 2 : 1024) < 0)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].key && t->slot[i].key != IOL_TOMB && t->slot[i].ptr)
			table_put(&n, t->slot[i].key, t->slot[i].ptr);
	t->cap = n.cap;
	t->used = n.used;
	__atomic_store_n(&t->slot, n.slot, __ATOMIC_RELEASE);
	return 0;
}

/* Inserts or replaces; caller holds g.lock. */
static void table_put(struct iol_table *t, uint64_t key, void *ptr)
{
	if (!t->slot || (t->used + 1) * 2 > t->cap)
		if (table_grow(t) < 0)
			return;
	size_t tomb = SIZE_MAX;
	for (size_t i = mix(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		uint64_t k = t->slot[i].key;
		if (k == key) {
			__atomic_store_n(&t->slot[i].ptr, ptr, __ATOMIC_RELEASE);
			return;
		}
		if (k == IOL_TOMB && tomb == SIZE_MAX)
			tomb = i;
		if (k == 0) {
			if (tomb != SIZE_MAX)
				i = tomb;
			else
				t->used++;
			__atomic_store_n(&t->slot[i].ptr, ptr, __ATOMIC_RELEASE);
			__atomic_store_n(&t->slot[i].key, key, __ATOMIC_RELEASE);
			return;
		}
	}
}

static void table_del(struct iol_table *t, uint64_t key)
{
	if (!t->slot)
		return;
	for (size_t i = mix(key) & (t->cap - 1), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
		uint64_t k = t->slot[i].key;
		if (k == key) {
			__atomic_store_n(&t->slot[i].ptr, NULL, __ATOMIC_RELEASE);
			__atomic_store_n(&t->slot[i].key, IOL_TOMB, __ATOMIC_RELEASE);
			return;
		}
		if (k == 0)
			return;
	}
}

static uint64_t record_key(int module, uint64_t id)
{
	uint64_t k = id ^ ((uint64_t)module * 0x9e3779b97f4a7c15ULL);
	return k == 0 || k == IOL_TOMB ? k ^ 1 : k;
}

static uint64_t handle_key(int kind, uint64_t h)
{
	uint64_t k = (h * 0x100000001b3ULL) ^ ((uint64_t)kind << 58) ^ (uint64_t)kind;
	return k == 0 || k == IOL_TOMB ? k ^ 2 : k;
}

/* ---- the store ---- */

static void store_dir(char *buf, size_t size)
{
	const char *d = getenv("IOLENS_STORE_DIR");
	if (d && *d) {
		snprintf(buf, size, "%s", d);
		return;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(buf, size, "%s/iolens-%ld", tmp && *tmp ? tmp : "/tmp", (long)getuid());
}

/* Creates dir and its missing parents with mode 0700. */
static int make_dirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		syscall(SYS_mkdirat, AT_FDCWD, dir, 0700);
		*p = '/';
	}
	if (syscall(SYS_mkdirat, AT_FDCWD, dir, 0700) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int store_map(size_t from, size_t to)
{
	if (syscall(SYS_ftruncate, g.fd, (off_t)to) < 0)
		return -1;
	void *p = sys_mmap(g.base + from, to - from, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, g.fd, (off_t)from);
	return p == MAP_FAILED ? -1 : 0;
}

/* Creates this process's store file; caller holds g.lock. */
static int store_create(void)
{
	if (g.hdr != &g.own)
		return 0;
	if (g.store_failed)
		return -1;
	if (!g.store_dir[0])
		store_dir(g.store_dir, sizeof g.store_dir);
	size_t initial = 1 << 20;
	g.reserved = g.store_max;
	char tmp[PATH_MAX] = "";
	g.base = sys_mmap(NULL, g.reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g.base == MAP_FAILED || make_dirs(g.store_dir) < 0) {
		if (g.base == MAP_FAILED)
			g.base = NULL;
		goto fail;
	}
	/* The file gets its final name (*.store) only once its header is
	 * written, so every store a reader finds is well formed. */
	snprintf(tmp, sizeof tmp, "%s/.%.64s-%ld-%ld.tmp", g.store_dir, g.own.hostname, (long)g.own.pid,
		 (long)g.own.start_nsec);
	g.fd = sys_open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (g.fd < 0 || store_map(0, initial) < 0)
		goto fail;
	struct iol_store_header *h = (struct iol_store_header *)g.base;
	memcpy(h, &g.own, sizeof *h);
	h->used = IOL_HEADER_SIZE;
	h->size = initial;
	int linked = -1;
	for (int attempt = 0; attempt < 1000 && linked < 0; attempt++) {
		snprintf(g.store_path, sizeof g.store_path, "%s/%.64s-%ld-%ld-%d.store", g.store_dir,
			 g.own.hostname, (long)g.own.pid, (long)g.own.start_sec, attempt);
		linked = (int)syscall(SYS_linkat, AT_FDCWD, tmp, AT_FDCWD, g.store_path, 0);
		if (linked < 0 && errno != EEXIST)
			break;
	}
	syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
	if (linked < 0)
		goto fail;
	__atomic_store_n(&g.hdr, h, __ATOMIC_RELEASE);
	return 0;
fail:
	if (g.fd >= 0) {
		syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
		sys_close(g.fd);
		g.fd = -1;
	}
	if (g.base)
		sys_munmap(g.base, g.reserved);
	g.base = NULL;
	g.store_failed = 1;
	dprintf(2, "iolens: cannot create a store in %s (errno %d); this process is not recorded\n",
		g.store_dir, errno);
	return -1;
}

/* Allocates a zeroed block of n bytes (a multiple of 8) at the end of the
 * store; caller holds g.lock and publishes the block's word. */
static void *store_alloc(size_t n)
{
	if (store_create() < 0)
		return NULL;
	struct iol_store_header *h = g.hdr;
	if (h->used + n > h->size) {
		uint64_t want = h->size;
		while (h->used + n > want)
			want += want < (256u << 20) ? want : (256u << 20);
		if (want > g.reserved)
			want = g.reserved;
		if (h->used + n > want || store_map(h->size, want) < 0)
			return NULL;
		h->size = want;
	}
	void *p = g.base + h->used;
	__atomic_store_n(&h->used, h->used + n, __ATOMIC_RELEASE);
	return p;
}

static void publish(uint64_t *word, uint32_t type, size_t size)
{
	__atomic_store_n(word, (uint64_t)type | ((uint64_t)size << 32), __ATOMIC_RELEASE);
}

void *iol_block_new(uint32_t type, size_t size, void (*fill)(void *, const void *), const void *arg)
{
	int saved = errno;
	pthread_mutex_lock(&g.lock);
	void *b = g.state == 2 ? store_alloc(size) : NULL;
	if (b) {
		fill(b, arg);
		publish(b, type, size);
	}
	pthread_mutex_unlock(&g.lock);
	errno = saved;
	return b;
}

struct iol_store_header *iol_header(void)
{
	return g.hdr;
}

void iol_set_partial(int module)
{
	__atomic_fetch_or(&g.hdr->partial, (uint64_t)1 << module, __ATOMIC_RELAXED);
}

/* ---- names and exclusions ---- */

char *iol_normalize(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	if (!path)
		return NULL;
	if (path[0] != '/' && path[0] != '<' && path[0] != 0) {
		if (!getcwd(buf, size))
			n = 0;
		else {
			n = strlen(buf);
			if (n + 1 >= size)
				return NULL;
			buf[n++] = '/';
		}
	}
	size_t l = strlen(path);
	if (n + l + 1 > size)
		return NULL;
	memcpy(buf + n, path, l + 1);
	if (path[0] == '<' || path[0] == 0)
		return buf;
	/* Collapse "//" then "/./", each repeatedly. */
	char *r, *w;
	for (r = w = buf; *r; r++) {
		if (r[0] == '/' && w > buf && w[-1] == '/')
			continue;
		*w++ = *r;
	}
	*w = 0;
	char *p;
	while ((p = strstr(buf, "/./")))
		memmove(p, p + 2, strlen(p + 2) + 1);
	return buf;
}

/* Files of MPI runtimes (shared-memory transports, session directories),
 * not the application's I/O. */
static const char runtime_files[] =
	"^/dev/shm/(vader_segment|sm_segment|mpich_shar_tmp|psm2?_|sem\\.|ucx|open_mpi|shm-col-space)"
	"|^/tmp/(ompi|prte|pmix)[.-][^/]*/";

static const char *const default_excluded[] = {
	"/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/", "/lib64/", "/opt/",
	"/sbin/", "/sys/", "/proc/", "/var/", "/run/", "/snap/",
};

int iol_excluded(const char *name)
{
	int excluded = 0;
	if (name[0] == '/') {
		/* The excluded directories, what is below them, and "/". */
		excluded = name[1] == 0;
		for (size_t i = 0; i < sizeof default_excluded / sizeof default_excluded[0] && !excluded; i++) {
			size_t l = strlen(default_excluded[i]);
			excluded = !strncmp(name, default_excluded[i], l) ||
				   (!strncmp(name, default_excluded[i], l - 1) && name[l - 1] == 0);
		}
		if (excluded && (!strncmp(name, "/dev/shm/", 9) || !strncmp(name, "/var/tmp/", 9) ||
				 !strncmp(name, "/var/opt/cray/dws/mounts/", 25)))
			excluded = 0;
	}
	if (!excluded && g.have_runtime && regexec(&g.runtime, name, 0, NULL, 0) == 0)
		excluded = 1;
	if (!excluded && g.have_exclude && regexec(&g.exclude, name, 0, NULL, 0) == 0)
		excluded = 1;
	if (excluded && g.have_include && regexec(&g.include, name, 0, NULL, 0) == 0)
		excluded = 0;
	return excluded;
}

/* Registers a name; caller holds g.lock. */
static int name_register(uint64_t id, const char *name, size_t len)
{
	if (table_get(&g.names, id))
		return 0;
	size_t size = (sizeof(struct iol_name_block) + len + 1 + 7) & ~(size_t)7;
	struct iol_name_block *b = store_alloc(size);
	if (!b)
		return -1;
	b->id = id;
	b->len = (uint32_t)len;
	memcpy(b->name, name, len);
	b->name[len] = 0;
	publish(&b->word, IOL_BLK_NAME, size);
	table_put(&g.names, id, b);
	return 0;
}

const char *iol_name(uint64_t id)
{
	struct iol_name_block *b = table_get(&g.names, id);
	return b ? b->name : NULL;
}

/* ---- records ---- */

static struct iol_record_block *record_new(const struct iol_module *m, uint64_t id, const char *name, size_t len)
{
	if (name_register(id, name, len) < 0) {
		iol_set_partial(m->id);
		return NULL;
	}
	size_t size = sizeof(struct iol_record_block) + 8 * (size_t)(m->ncounters + m->nfcounters) + m->rt_size;
	size = (size + 7) & ~(size_t)7;
	struct iol_record_block *r = store_alloc(size);
	if (!r) {
		iol_set_partial(m->id);
		return NULL;
	}
	r->module = (uint32_t)m->id;
	r->ncounters = m->ncounters;
	r->nfcounters = m->nfcounters;
	r->id = id;
	if (m->init)
		m->init(r, name);
	publish(&r->word, IOL_BLK_RECORD, size);
	if ((unsigned)m->id < IOL_MAX_MODULES)
		g.modules[m->id] = m;
	table_put(&g.records, record_key(m->id, id), r);
	return r;
}

struct iol_record_block *iol_record(const struct iol_module *m, const char *name)
{
	if (!iol_active || !name)
		return NULL;
	size_t len = strlen(name);
	uint64_t id = iol_hash(name, len);
	struct iol_record_block *r = table_get(&g.records, record_key(m->id, id));
	if (r)
		return r;
	if (iol_excluded(name))
		return NULL;
	pthread_mutex_lock(&g.lock);
	r = table_get(&g.records, record_key(m->id, id));
	if (!r && iol_active)
		r = record_new(m, id, name, len);
	pthread_mutex_unlock(&g.lock);
	return r;
}

struct iol_record_block *iol_record_by_id(int module, uint64_t id)
{
	return table_get(&g.records, record_key(module, id));
}

/* ---- handle tables ---- */

struct iol_record_block *iol_fd_get_slow(int fd)
{
	if (fd < 0 || !iol_active)
		return NULL;
	return table_get(&g.handles, handle_key(0, (uint64_t)fd));
}

void iol_fd_put(int fd, struct iol_record_block *r)
{
	if (fd < 0)
		return;
	if (fd < IOL_FDMAP_SIZE && iol_fdmap) {
		__atomic_store_n(&iol_fdmap[fd], r, __ATOMIC_RELEASE);
		return;
	}
	pthread_mutex_lock(&g.lock);
	table_put(&g.handles, handle_key(0, (uint64_t)fd), r);
	pthread_mutex_unlock(&g.lock);
}

void iol_fd_del(int fd)
{
	if (fd < 0)
		return;
	if (fd < IOL_FDMAP_SIZE && iol_fdmap) {
		__atomic_store_n(&iol_fdmap[fd], NULL, __ATOMIC_RELEASE);
		return;
	}
	pthread_mutex_lock(&g.lock);
	table_del(&g.handles, handle_key(0, (uint64_t)fd));
	pthread_mutex_unlock(&g.lock);
}

struct iol_record_block *iol_handle_get(int kind, uint64_t handle)
{
	if (!iol_active)
		return NULL;
	return table_get(&g.handles, handle_key(kind, handle));
}

void iol_handle_put(int kind, uint64_t handle, struct iol_record_block *r)
{
	pthread_mutex_lock(&g.lock);
	table_put(&g.handles, handle_key(kind, handle), r);
	pthread_mutex_unlock(&g.lock);
}

void iol_handle_del(int kind, uint64_t handle)
{
	pthread_mutex_lock(&g.lock);
	table_del(&g.handles, handle_key(kind, handle));
	pthread_mutex_unlock(&g.lock);
}

void iol_spin(uint32_t *lock)
{
	for (;;) {
		while (__atomic_load_n(lock, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
		if (!__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
			return;
	}
}

/* ---- common values ---- */

/* Places value v (of width w) with frequency f into the four record slots
 * (Darshan's insertion rule: counts descending, ties by first component
 * descending). vals(k) addresses slot k's components, cnts[k] its count. */
static void common_insert(int64_t *c, int val_first, int cnt_first, int w, const int64_t *v, int64_t f)
{
	if (v[0] == 0)
		return;
	int keep = 0;
	while (keep < 4) {
		int64_t sc = c[cnt_first + keep], sv = c[val_first + w * keep];
		if (sc > f || (sc == f && sv > v[0]))
			keep++;
		else
			break;
	}
	if (keep == 4)
		return;
	int64_t old[4][IOL_TUPLE], oldc[4];
	for (int k = 0; k < 4; k++) {
		memcpy(old[k], &c[val_first + w * k], sizeof(int64_t) * w);
		oldc[k] = c[cnt_first + k];
	}
	int pos = keep;
	memcpy(&c[val_first + w * pos], v, sizeof(int64_t) * w);
	c[cnt_first + pos] = f;
	pos++;
	for (int k = keep; k < 4 && pos < 4; k++) {
		if (!memcmp(old[k], v, sizeof(int64_t) * w) && oldc[k] != 0)
			continue;
		memcpy(&c[val_first + w * pos], old[k], sizeof(int64_t) * w);
		c[cnt_first + pos] = oldc[k];
		pos++;
	}
	for (; pos < 4; pos++) {
		memset(&c[val_first + w * pos], 0, sizeof(int64_t) * w);
		c[cnt_first + pos] = 0;
	}
}

static unsigned cv_slot(int64_t v)
{
	return (unsigned)(mix((uint64_t)v) & (IOL_CV_INDEX - 1));
}

void iol_common_slow(struct iol_cv *t, int64_t *c, int val_first, int cnt_first, int64_t v)
{
	unsigned k = cv_slot(v);
	int i = -1;
	while (t->index[k]) {
		if (t->val[t->index[k] - 1] == v) {
			i = t->index[k] - 1;
			break;
		}
		k = (k + 1) & (IOL_CV_INDEX - 1);
	}
	if (i < 0) {
		if (t->n == IOL_CV_MAX)
			return; /* only the first 32 distinct values are counted */
		i = t->n++;
		t->val[i] = v;
		t->cnt[i] = 0;
		t->index[k] = (uint8_t)(i + 1);
		unsigned b = iol_cv_bit(v);
		t->bloom[b >> 6] |= (uint64_t)1 << (b & 63);
	}
	t->last = i;
	int64_t f = ++t->cnt[i];
	common_insert(c, val_first, cnt_first, 1, &v, f);
}

void iol_common_tuple(struct iol_cv_tuple *t, int64_t *c, int val_first, int cnt_first, const int64_t v[IOL_TUPLE])
{
	int i;
	for (i = 0; i < t->n; i++)
		if (!memcmp(t->val[i], v, sizeof t->val[i]))
			break;
	if (i == t->n) {
		if (t->n == IOL_CV_MAX)
			return;
		memcpy(t->val[i], v, sizeof t->val[i]);
		t->cnt[i] = 0;
		t->n++;
	}
	int64_t f = ++t->cnt[i];
	common_insert(c, val_first, cnt_first, IOL_TUPLE, v, f);
}

/* ---- clock ---- */

void iol_calibrate(iol_tick now)
{
	if (__atomic_exchange_n(&g.calibrating, 1, __ATOMIC_ACQUIRE))
		return;
	int saved = errno;
	struct iol_store_header *h = g.hdr;
	int64_t s, ns;
	wall(&s, &ns);
	iol_tick t = iol_now();
	__atomic_store_n(&h->cal_tick, 0, __ATOMIC_RELEASE);
	h->cal_sec = s;
	h->cal_nsec = ns;
	__atomic_store_n(&h->cal_tick, t, __ATOMIC_RELEASE);
	iol_next_calibration = (now > t ? now : t) + g.calibration_interval;
	__atomic_store_n(&g.calibrating, 0, __ATOMIC_RELEASE);
	errno = saved;
}

/* Estimates ticks per second, waiting until 200 µs have passed since
 * start-up if needed. */
static double estimate_hz(void)
{
	struct iol_store_header *h = g.hdr;
	if (h->tick_hz > 0)
		return h->tick_hz;
	for (;;) {
		int64_t s, ns;
		wall(&s, &ns);
		iol_tick t = iol_now();
		double dt = (double)(s - h->start_sec) + 1e-9 * (double)(ns - h->start_nsec);
		if (dt >= 200e-6) {
			h->tick_hz = (double)(t - h->tick0) / dt;
			g.calibration_interval = (iol_tick)(h->tick_hz * 0.01);
			return h->tick_hz;
		}
	}
}

/* ---- DXT and access sequences ---- */

/* Returns the chunk after full (allocating it if no other thread did), or
 * NULL when the stream reached its cap or the store is full. */
static struct iol_dxt_block *stream_chunk(struct iol_stream *st, struct iol_dxt_block *full, int partial_mod)
{
	int saved = errno;
	pthread_mutex_lock(&g.lock);
	struct iol_dxt_block *cur = st->cur;
	if (cur == full) {
		uint32_t cap = st->next_cap ? st->next_cap : 1024;
		uint64_t left = st->max > st->bytes ? st->max - st->bytes : 0;
		if ((uint64_t)cap * st->elem > left)
			cap = (uint32_t)(left / st->elem);
		cur = NULL;
		if (cap > 0) {
			size_t size = sizeof(struct iol_dxt_block) + (size_t)cap * st->elem;
			cur = store_alloc(size);
			if (cur) {
				/* Fault the chunk in with one call rather than one
				 * page fault per few dozen elements on the hot path. */
				uintptr_t lo = (uintptr_t)cur & ~(uintptr_t)4095;
				syscall(SYS_madvise, lo, ((uintptr_t)cur + size) - lo, MADV_POPULATE_WRITE);
				cur->capacity = cap;
				publish(&cur->word, st->type, size);
				st->bytes += size;
				st->next_cap = cap < (1u << 20) ? cap * 2 : cap;
				if (st->nchunks < IOL_STREAM_CHUNKS) {
					st->chunks[st->nchunks] = cur;
					__atomic_store_n(&st->nchunks, st->nchunks + 1, __ATOMIC_RELEASE);
				}
				__atomic_store_n(&st->cur, cur, __ATOMIC_RELEASE);
			}
		}
		if (!cur)
			iol_set_partial(partial_mod);
	}
	pthread_mutex_unlock(&g.lock);
	errno = saved;
	return cur;
}

/* Reserves the next element of st; NULL when it is full. The caller fills
 * the element and stores its kind word last, with release ordering. */
static void *stream_slot(struct iol_stream *st, int partial_mod)
{
	struct iol_dxt_block *c = __atomic_load_n(&st->cur, __ATOMIC_ACQUIRE);
	for (;;) {
		if (c) {
			uint32_t i = __libc_single_threaded ? c->next++
							    : __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);
			if (IOL_LIKELY(i < c->capacity))
				return (char *)c->seg + (size_t)i * st->elem;
		}
		struct iol_dxt_block *n = stream_chunk(st, c, partial_mod);
		if (!n || n == c)
			return NULL;
		c = n;
	}
}

void iol_dxt_add(int module, uint64_t id, int op, int64_t offset, int64_t length, iol_tick t1, iol_tick t2)
{
	struct iol_segment *s = stream_slot(&g.dxt, module == IOL_MOD_MPIIO ? IOL_MOD_DXT_MPIIO : IOL_MOD_DXT_POSIX);
	if (!s)
		return;
	s->id = id;
	s->offset = offset;
	s->length = length;
	s->start = t1 - iol_tick0;
	s->end = t2 - iol_tick0;
	s->thread = (uint64_t)pthread_self();
	__atomic_store_n(&s->kind, (uint32_t)(module << 8 | op), __ATOMIC_RELEASE);
}

void iol_access_add(int module, uint64_t id, uint64_t file, int op, int64_t offset, int64_t length, int ndims,
		    const int64_t *sel_start, const int64_t *sel_count, iol_tick t1, iol_tick t2)
{
	struct iol_access *a = stream_slot(&g.access, IOL_MOD_ACCESS);
	if (!a)
		return;
	a->id = id;
	a->file = file;
	a->offset = offset;
	a->length = length;
	a->start = t1 - iol_tick0;
	a->end = t2 - iol_tick0;
	a->thread = (uint64_t)pthread_self();
	int first = ndims > IOL_ACCESS_DIMS ? ndims - IOL_ACCESS_DIMS : 0;
	int n = ndims - first;
	for (int d = 0; d < n; d++) {
		a->sel_start[d] = sel_start ? sel_start[first + d] : 0;
		a->sel_count[d] = sel_count ? sel_count[first + d] : 1;
	}
	a->ndims = (uint32_t)(n > 0 ? n : 0);
	if (module == IOL_MOD_POSIX && iol_learn_depth > 0)
		a->ndims |= IOL_ACCESS_NESTED;
	__atomic_store_n(&a->kind, (uint32_t)(module << 8 | op), __ATOMIC_RELEASE);
	if (IOL_UNLIKELY(iol_prefetch_enabled))
		iol_prefetch_wake();
}

const struct iol_access *iol_access_next(struct iol_access_cursor *c)
{
	for (;;) {
		int n = __atomic_load_n(&g.access.nchunks, __ATOMIC_ACQUIRE);
		if (c->chunk >= n)
			return NULL;
		struct iol_access_block *b = (struct iol_access_block *)g.access.chunks[c->chunk];
		uint32_t used = __atomic_load_n(&b->next, __ATOMIC_RELAXED);
		if (c->idx < b->capacity && c->idx < used) {
			const struct iol_access *a = &b->acc[c->idx];
			if (!__atomic_load_n(&a->kind, __ATOMIC_ACQUIRE))
				return NULL; /* being written */
			c->idx++;
			return a;
		}
		if (c->idx >= b->capacity && c->chunk + 1 < n) {
			c->chunk++;
			c->idx = 0;
			continue;
		}
		return NULL;
	}
}

/* ---- heatmaps ---- */

/* Sets the private copy of a heatmap's width; caller holds its lock. */
static void heat_width(struct iol_heat *h)
{
	h->inv = 1.0 / h->block->width;
	h->end = (int64_t)(h->block->width * IOL_HEATMAP_BINS);
}

static struct iol_heatmap_block *heatmap_for(int module)
{
	struct iol_heat *ph = &iol_heat[module];
	struct iol_heatmap_block *h = __atomic_load_n(&ph->block, __ATOMIC_ACQUIRE);
	if (h)
		return h;
	int saved = errno;
	pthread_mutex_lock(&g.lock);
	h = ph->block;
	if (!h) {
		h = store_alloc(sizeof *h);
		if (h) {
			h->module = (uint32_t)module;
			h->width = 0.1 * estimate_hz();
			publish(&h->word, IOL_BLK_HEATMAP, sizeof *h);
			ph->block = h;
			heat_width(ph);
		} else {
			iol_set_partial(IOL_MOD_HEATMAP);
		}
	}
	pthread_mutex_unlock(&g.lock);
	errno = saved;
	return h;
}

static void heatmap_collapse(struct iol_heatmap_block *h)
{
	for (int i = 0; i < IOL_HEATMAP_BINS; i += 2) {
		h->write[i / 2] = h->write[i] + h->write[i + 1];
		h->read[i / 2] = h->read[i] + h->read[i + 1];
	}
	memset(&h->write[IOL_HEATMAP_BINS / 2], 0, sizeof h->write / 2);
	memset(&h->read[IOL_HEATMAP_BINS / 2], 0, sizeof h->read / 2);
	h->width *= 2;
}

void iol_heatmap_slow(int module, int op, int64_t size, iol_tick t1, iol_tick t2)
{
	if (size <= 0 || (unsigned)module >= IOL_HEAT_MODULES)
		return;
	struct iol_heatmap_block *h = heatmap_for(module);
	if (!h)
		return;
	struct iol_heat *ph = &iol_heat[module];
	int single = __libc_single_threaded;
	if (!single && __atomic_exchange_n(&h->pad, 1, __ATOMIC_ACQUIRE))
		iol_spin(&h->pad);
	int64_t *bins = op == IOL_OP_WRITE ? h->write : h->read;
	double s = iol_rel(t1), e = iol_rel(t2);
	while (e >= h->width * IOL_HEATMAP_BINS) {
		heatmap_collapse(h);
		heat_width(ph);
	}
	double w = h->width, inv = ph->inv;
	int first = (int)(s * inv), last = (int)(e * inv);
	if (last >= IOL_HEATMAP_BINS)
		last = IOL_HEATMAP_BINS - 1;
	if (first > last)
		first = last;
	if (first == last) {
		bins[first] += size;
	} else {
		/* Split the bytes in proportion to the time spent in each bin;
		 * the last bin takes the remainder so no byte is lost. */
		int64_t left = size;
		for (int b = first; b < last; b++) {
			double t = (b + 1) * w - (s > b * w ? s : b * w);
			int64_t part = (int64_t)((double)size * (t / (e - s)) + 0.5);
			if (part > left)
				part = left;
			bins[b] += part;
			left -= part;
		}
		bins[last] += left;
	}
	if (!single)
		__atomic_store_n(&h->pad, 0, __ATOMIC_RELEASE);
}

/* ---- start-up ---- */

static void read_cmdline(struct iol_store_header *h)
{
	int fd = sys_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	ssize_t n = sys_read(fd, h->cmdline, sizeof h->cmdline - 1);
	sys_close(fd);
	if (n <= 0)
		return;
	while (n > 0 && h->cmdline[n - 1] == 0)
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (h->cmdline[i] == 0)
			h->cmdline[i] = ' ';
	h->cmdline[n] = 0;
	h->cmdline_len = (uint32_t)n;
}

static void compile_regex(const char *env, regex_t *re, int *have)
{
	const char *v = getenv(env);
	if (!v || !*v)
		return;
	if (regcomp(re, v, REG_EXTENDED | REG_NOSUB) == 0)
		*have = 1;
	else
		fprintf(stderr, "iolens: %s: invalid regular expression \"%s\", ignored\n", env, v);
}

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

/* Fills the private header of a new process image or fork child. */
static void header_init(int64_t parent)
{
	struct iol_store_header *h = &g.own;
	memset(h, 0, sizeof *h);
	memcpy(h->magic, IOL_STORE_MAGIC, 8);
	h->version = IOL_STORE_VERSION;
	h->header_size = IOL_HEADER_SIZE;
	h->pid = getpid();
	h->ppid = getppid();
	h->fork_parent = parent;
	h->uid = getuid();
	h->state = IOL_STATE_RUNNING;
	h->mpi_rank = -1;
	h->jobid = parse_jobid();
	h->flags = (iol_dxt_enabled ? IOL_FLAG_DXT : 0) | (iol_learn_enabled ? IOL_FLAG_LEARN : 0)
#ifdef IOLENS_MPI
		   | IOL_FLAG_MPI_BUILD
#endif
		;
	gethostname(h->hostname, sizeof h->hostname - 1);
	const char *app = getenv("IOLENS_APP");
	if (app)
		snprintf(h->app, sizeof h->app, "%s", app);
	read_cmdline(h);
	wall(&h->start_sec, &h->start_nsec);
	h->tick0 = iol_tick0 = iol_now();
	h->cal_tick = h->tick0;
	h->cal_sec = h->start_sec;
	h->cal_nsec = h->start_nsec;
	g.hdr = h;
	g.calibration_interval = 1u << 22;
	iol_next_calibration = iol_tick0 + g.calibration_interval;
}

static int env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

void iol_ensure_started(void)
{
	if (IOL_LIKELY(__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) >= 2))
		return;
	int expected = 0;
	if (!__atomic_compare_exchange_n(&g.state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* another thread (or a recursive call) is starting it */
	if (env_on("IOLENS_DISABLE")) {
		__atomic_store_n(&g.state, 3, __ATOMIC_RELEASE);
		return;
	}
	iol_dxt_enabled = env_on("IOLENS_DXT");
	const char *a = getenv("IOLENS_MEMALIGN");
	if (a && atoll(a) > 0)
		iol_mem_alignment = atoll(a);
	g.store_max = parse_size(getenv("IOLENS_STORE_MAX"), 4ULL << 30);
	iol_learn_enabled = env_on("IOLENS_LEARN");
	g.dxt = (struct iol_stream){.type = IOL_BLK_DXT, .elem = sizeof(struct iol_segment)};
	g.dxt.max = parse_size(getenv("IOLENS_DXT_MAX"), 1ULL << 30);
	if (g.dxt.max > g.store_max)
		g.dxt.max = g.store_max;
	g.access = (struct iol_stream){.type = IOL_BLK_ACCESS, .elem = sizeof(struct iol_access)};
	g.access.max = parse_size(getenv("IOLENS_LEARN_MAX"), 256ULL << 20);
	if (g.access.max > g.store_max)
		g.access.max = g.store_max;
	g.have_runtime = regcomp(&g.runtime, runtime_files, REG_EXTENDED | REG_NOSUB) == 0;
	compile_regex("IOLENS_EXCLUDE", &g.exclude, &g.have_exclude);
	compile_regex("IOLENS_INCLUDE", &g.include, &g.have_include);
	header_init(0);
	table_init(&g.names, 1024);
	table_init(&g.records, 1024);
	table_init(&g.handles, 1024);
	iol_fdmap = iol_alloc(IOL_FDMAP_SIZE * sizeof *iol_fdmap);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	iol_active = 1;
	__atomic_store_n(&g.state, 2, __ATOMIC_RELEASE);
	iol_posix_adopt_fds();
	iol_prefetch_init();
	iol_inject_init();
}

__attribute__((constructor)) static void iol_constructor(void)
{
	iol_ensure_started();
}

/* ---- fork ---- */

static void fork_prepare(void)
{
	pthread_mutex_lock(&g.lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&g.lock);
}

static struct iol_record_block *inherit_record(struct iol_record_block *old, const char *name)
{
	const struct iol_module *m = (unsigned)old->module < IOL_MAX_MODULES ? g.modules[old->module] : NULL;
	if (!m || !name)
		return NULL;
	uint64_t key = record_key(m->id, old->id);
	struct iol_record_block *r = table_get(&g.records, key);
	if (!r)
		r = record_new(m, old->id, name, strlen(name));
	if (!r)
		return NULL;
	struct iol_rt *o = iol_runtime(old), *n = iol_runtime(r);
	n->offset = o->offset;
	n->last_read = o->last_read;
	n->last_written = o->last_written;
	r->file_rec_id = old->file_rec_id;
	return r;
}

/* In the child: start a fresh store and carry over the handles it inherits,
 * with zero counters (the parent keeps what it recorded). */
static void fork_child(void)
{
	pthread_mutex_init(&g.lock, NULL);
	if (g.state != 2)
		return;
	struct iol_table old_names = g.names, old_handles = g.handles;
	char *old_base = g.base;
	size_t old_reserved = g.reserved;
	int64_t parent = g.hdr->pid;
	if (g.fd >= 0)
		sys_close(g.fd);
	g.fd = -1;
	g.base = NULL;
	g.dxt.cur = NULL;
	g.dxt.bytes = 0;
	g.dxt.next_cap = 0;
	g.access.cur = NULL;
	g.access.bytes = 0;
	g.access.next_cap = 0;
	g.access.nchunks = 0;
	g.dxt.nchunks = 0;
	memset(iol_heat, 0, sizeof iol_heat);
	g.calibrating = 0;
	g.store_failed = 0;
	header_init(parent);
	table_init(&g.names, 1024);
	table_init(&g.records, 1024);
	table_init(&g.handles, 1024);
	/* Both parent and child may hold these locks' state; the child has one
	 * thread, so reset every lock it can reach. */
	for (int fd = 0; fd < IOL_FDMAP_SIZE && iol_fdmap; fd++) {
		struct iol_record_block *o = iol_fdmap[fd];
		if (!o)
			continue;
		struct iol_name_block *nb = table_get(&old_names, o->id);
		iol_fdmap[fd] = inherit_record(o, nb ? nb->name : NULL);
	}
	for (size_t i = 0; i < old_handles.cap; i++) {
		struct iol_slot *s = &old_handles.slot[i];
		if (!s->key || s->key == IOL_TOMB || !s->ptr)
			continue;
		struct iol_record_block *o = s->ptr;
		struct iol_name_block *nb = table_get(&old_names, o->id);
		struct iol_record_block *n = inherit_record(o, nb ? nb->name : NULL);
		if (n)
			table_put(&g.handles, s->key, n);
	}
	iol_fn_fork_child();
	iol_prefetch_fork_child();
	if (old_base)
		sys_munmap(old_base, old_reserved);
	sys_munmap(old_names.slot, old_names.cap * sizeof *old_names.slot);
	sys_munmap(old_handles.slot, old_handles.cap * sizeof *old_handles.slot);
}

/* ---- exit and exec ---- */

static void finish(uint32_t state)
{
	if (g.state != 2)
		return;
	iol_fn_flush();
	iol_prefetch_finish();
	struct iol_store_header *h = g.hdr;
	wall(&h->end_sec, &h->end_nsec);
	iol_calibrate(UINT64_MAX - g.calibration_interval);
	__atomic_store_n(&h->state, state, __ATOMIC_RELEASE);
}

__attribute__((destructor)) static void iol_destructor(void)
{
	finish(IOL_STATE_EXITED);
	iol_active = 0;
}

IOL_REAL_DECL(void, _exit, (int));
IOL_REAL_DECL(void, _Exit, (int));

void _exit(int status)
{
	IOL_RESOLVE(_exit);
	finish(IOL_STATE_EXITED);
	iol_active = 0;
	real__exit(status);
	__builtin_unreachable();
}

void _Exit(int status)
{
	IOL_RESOLVE(_Exit);
	finish(IOL_STATE_EXITED);
	iol_active = 0;
	real__Exit(status);
	__builtin_unreachable();
}

/* Marks the image as replaced before an exec; if the exec fails the process
 * goes on recording. */
static void before_exec(void)
{
	finish(IOL_STATE_EXECED);
}

static void after_failed_exec(void)
{
	if (g.state == 2)
		__atomic_store_n(&g.hdr->state, IOL_STATE_RUNNING, __ATOMIC_RELEASE);
}

IOL_REAL_DECL(int, execve, (const char *, char *const[], char *const[]));
IOL_REAL_DECL(int, execv, (const char *, char *const[]));
IOL_REAL_DECL(int, execvp, (const char *, char *const[]));
IOL_REAL_DECL(int, execvpe, (const char *, char *const[], char *const[]));
IOL_REAL_DECL(int, fexecve, (int, char *const[], char *const[]));

#define IOL_EXEC_WRAPPER(name, params, args)      \
	int name params                           \
	{                                         \
		IOL_RESOLVE(name);                \
		before_exec();                    \
		int ret = real_##name args;       \
		int saved = errno;                \
		after_failed_exec();              \
		errno = saved;                    \
		return ret;                       \
	}

IOL_EXEC_WRAPPER(execve, (const char *path, char *const argv[], char *const envp[]), (path, argv, envp))
IOL_EXEC_WRAPPER(execv, (const char *path, char *const argv[]), (path, argv))
IOL_EXEC_WRAPPER(execvp, (const char *file, char *const argv[]), (file, argv))
IOL_EXEC_WRAPPER(execvpe, (const char *file, char *const argv[], char *const envp[]), (file, argv, envp))
IOL_EXEC_WRAPPER(fexecve, (int fd, char *const argv[], char *const envp[]), (fd, argv, envp))

/* ---- MPI ---- */

void iol_set_mpi(int64_t rank, int64_t size, uint64_t job, const char *flavor)
{
	if (g.state != 2)
		return;
	pthread_mutex_lock(&g.lock);
	/* Ranks always get a store, so the merge knows every rank. */
	store_create();
	struct iol_store_header *h = g.hdr;
	h->mpi_rank = rank;
	h->mpi_size = size;
	h->mpi_job = job;
	h->mpi_init_tick = iol_now() - iol_tick0;
	if (flavor)
		snprintf(h->mpi_flavor, sizeof h->mpi_flavor, "%s", flavor);
	pthread_mutex_unlock(&g.lock);
}
