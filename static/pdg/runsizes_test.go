package pdg

import (
	"math"
	"testing"
)

// TestGuessedMember checks a member stored a known size in one place and a
// value parsed from a file in another: loops over it count the known size.
// A member only ever stored 0 or 1 besides parsed values stays unknown.
func TestGuessedMember(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { int len; int flags; char *seq; } contig_t;
static const int LENS[3] = {1000, 2000, 3000};
static void make(contig_t *c, int n) {
  for (int i = 0; i < n; i++) { c[i].len = LENS[i]; c[i].flags = 0; }
}
static int load(FILE *f, contig_t *c) {
  char line[256];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char *p = strstr(line, "length=");
    c[n].len = p ? atoi(p + 7) : 0;
    c[n].flags = atoi(line);
    n++;
  }
  return n;
}
int main(void) {
  contig_t sim[3], got[3];
  make(sim, 3);
  FILE *f = fopen("ref.fa", "r");
  int n = load(f, got);
  for (int i = 0; i < n; i++)
    for (int p = 0; p < got[i].len; p++) fputc('A', stdout); /* by len */
  for (int i = 0; i < n; i++)
    for (int p = 0; p < got[i].flags; p++) fputc('B', stdout); /* by flags */
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"by len", 2000}, {"by flags", DefaultTrip}})
}

// TestCommSizeIntoMember checks MPI_Comm_size storing into a structure
// member: sizes derived from it bound loops in the functions that read
// them.
func TestCommSizeIntoMember(t *testing.T) {
	src := []source{cSrc(`#include <mpi.h>
#include <stdio.h>
#define NX 4096
typedef struct { int rank, nprocs, nloc; } decomp_t;
static void log_points(const decomp_t *d, double *u) {
  for (int i = 0; i < d->nloc; i++) u[i] *= 2.0; /* local points */
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  decomp_t d;
  MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &d.nprocs);
  d.nloc = NX / d.nprocs;
  static double u[NX];
  log_points(&d, u); /* call */
  MPI_Finalize();
  return 0;
}`)}
	g := buildSources(t, Options{Procs: 4}, src...)
	if l := loopVia(t, g, src, []string{"call"}, "local points"); l.Trip != 1024 {
		t.Errorf("trip %d (%s), want 1024", l.Trip, l.TripSource)
	}
}

// TestHandleArray checks streams opened into the elements of an array: an
// element read later is one of them, with the buffer setvbuf gave it.
func TestHandleArray(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define NOUT 8
int main(void) {
  FILE *out[NOUT];
  static char bufs[NOUT][256];
  char path[64], line[128];
  for (int i = 0; i < NOUT; i++) {
    snprintf(path, sizeof path, "part_%d.txt", i);
    out[i] = fopen(path, "w");
    setvbuf(out[i], bufs[i], _IOFBF, 256);
  }
  FILE *in = fopen("all.txt", "r");
  int k = 0;
  while (fgets(line, sizeof line, in)) {
    fputs(line, out[k % NOUT]); /* split */
    k++;
  }
  for (int i = 0; i < NOUT; i++) fclose(out[i]);
  setvbuf(in, NULL, _IOLBF, 0); /* line */
  fputs("x\n", in); /* after */
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	put := entryNode(t, g, src, IONode, "split")
	if put.IO.File == nil || put.IO.File.Name != "" || put.IO.File.NameVar != "path" {
		t.Fatalf("fputs file %+v, want a file of the array named by path", put.IO.File)
	}
	if put.IO.Buffer != 256 {
		t.Errorf("fputs buffer %d, want 256", put.IO.Buffer)
	}
	if after := entryNode(t, g, src, IONode, "after"); after.IO.Buffer != 1 {
		t.Errorf("line-buffered stream: buffer %d, want 1", after.IO.Buffer)
	}
}

// TestSortCost checks std::sort over a container of known size: n log2 n
// comparisons of SortCompareOps.
func TestSortCost(t *testing.T) {
	src := []source{cppSrc(`#include <algorithm>
#include <vector>
int main() {
  std::vector<int> order(4096);
  std::vector<double> key(4096);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return key[x] < key[y]; });
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	var sort *Node
	for _, n := range g.Entry.Children {
		if n.Kind == UnknownNode && n.Name == "std::sort" {
			sort = n
		}
	}
	if sort == nil {
		t.Fatal("no std::sort node")
	}
	if want := 4096 * 12.0 * SortCompareOps; math.Abs(sort.Work-want) > 1e-6*want {
		t.Errorf("sort work %g, want %g", sort.Work, want)
	}
}

// TestStateManipulators checks that manipulators setting a stream's
// formatting state are not inserted items.
func TestStateManipulators(t *testing.T) {
	src := []source{cppSrc(`#include <fstream>
#include <iomanip>
int main() {
  std::ofstream out("board.txt");
  int a = 1, b = 2;
  out << std::left << std::setw(10) << a << std::right << std::setw(8) << b << '\n'; /* row */
  out << std::fixed << std::setprecision(3); /* state */
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	row := entryNode(t, g, src, IONode, "row")
	if row.IO.Items != 3 || row.IO.Conversions != "dds" && row.IO.Conversions != "ddc" {
		t.Errorf("row: %d items, conversions %q; want 3 items, two integers and a character", row.IO.Items, row.IO.Conversions)
	}
	file, line := lineOf(t, "state", src)
	if n := nodeAt(g.Entry, IONode, file, line); n != nil {
		t.Errorf("a statement of manipulators only is an insertion: %+v", n.IO)
	}
}

// TestDrawnCounts checks loops bounded by remainders of draws, counted at
// their mean, through a special case guarded by an equality and through
// min with the variable of the loop around.
func TestDrawnCounts(t *testing.T) {
	src := []source{cppSrc(`#include <algorithm>
#include <fstream>
#include <random>
#include <vector>
int main() {
  std::mt19937_64 rng(7);
  std::ofstream out("refs.tsv");
  for (int id = 0; id < 1000; ++id) {
    int nauth = 1 + static_cast<int>(rng() % 6);
    for (int a = 0; a < nauth; ++a) out << a; /* authors */
    int nref = id == 0 ? 0 : std::min<int>(id, 3 + static_cast<int>(rng() % 30));
    std::vector<int> refs;
    for (int r = 0; r < nref; ++r) refs.push_back(r); /* drawn refs */
    refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
    for (size_t r = 0; r < refs.size(); ++r) out << refs[r]; /* kept */
  }
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"authors", 3}, {"drawn refs", 17}, {"kept", 17}})
}

// TestElementListTrip checks a range-for over a container held in one
// element of another: one element's list, DefaultRowTrip entries.
func TestElementListTrip(t *testing.T) {
	src := []source{cppSrc(`#include <vector>
struct Paper { std::vector<int> refs; };
std::vector<Paper> load();
int main() {
  std::vector<Paper> papers = load();
  std::vector<int> cols;
  long s = 0;
  for (size_t i = 0; i < papers.size(); ++i)
    for (int r : papers[i].refs) cols.push_back(r); /* indexed */
  for (const auto &p : papers)
    for (int r : p.refs) s += r; /* visited */
  return (int)s;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"indexed", DefaultRowTrip}, {"visited", DefaultRowTrip}})
}

// TestComponentDefaults checks a Fortran derived type whose components
// have default values and are read from a file: loops over them and the
// arrays allocated with them take the defaults.
func TestComponentDefaults(t *testing.T) {
	src := []source{f90("defaults", `module cfg_mod
  implicit none
  type :: run_config
     integer :: nx = 128, nv = 384
     integer :: seed = 1
  end type run_config
contains
  subroutine dump(u, f)
    integer, intent(in) :: u
    real(8), intent(in) :: f(:,:)
    write(u) f ! dump write
  end subroutine dump
end module cfg_mod

program defaults
  use cfg_mod
  implicit none
  type(run_config) :: cfg
  real(8), allocatable :: f(:,:)
  integer :: u, i, k
  open(newunit=u, file='run.cfg', status='old')
  read(u, *) cfg%nx, cfg%nv, cfg%seed
  close(u)
  allocate(f(cfg%nx, cfg%nv))
  f = 0
  do i = 1, cfg%nx ! nx loop
     f(i, 1) = i
  end do
  do k = 1, cfg%seed ! seed loop
     f(1, 1) = k
  end do
  open(newunit=u, file='f.bin', form='unformatted')
  call dump(u, f) ! dump call
  close(u)
end program defaults
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"nx loop", 128}, {"seed loop", DefaultTrip}})
	file, line := lineOf(t, "dump write", src)
	c := entryNode(t, g, src, CallNode, "dump call")
	n := nodeAt(c.Target, IONode, file, line)
	if n == nil || !n.IO.BytesKnown || n.IO.Bytes != 128*384*8 {
		t.Fatalf("dump write: %+v, want %d bytes", n, 128*384*8)
	}
}

// TestSingleProcessRank checks that the rank of a run of one process is
// 0: a band of rows split by rank is the whole grid. With more processes,
// the sizes are those of rank 0.
func TestSingleProcessRank(t *testing.T) {
	src := []source{cSrc(`#include <mpi.h>
#define NLAT 180
typedef struct { int rank, nprocs, lat0, nlat; } ctx_t;
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ctx_t c;
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);
  int base = NLAT / c.nprocs, rem = NLAT % c.nprocs;
  c.nlat = base + (c.rank < rem);
  double s = 0;
  for (int j = 0; j < c.nlat; j++) s += j; /* band */
  for (int j = me; j < NLAT; j += c.nprocs) s += j; /* cyclic */
  MPI_Finalize();
  return (int)s;
}`)}
	g := buildSources(t, Options{Procs: 1}, src...)
	checkTrips(t, g, src, []tripWant{{"band", 180}, {"cyclic", 180}})
	g = buildSources(t, Options{Procs: 4}, src...)
	checkTrips(t, g, src, []tripWant{{"band", 45}, {"cyclic", 45}})
}

// TestMemberSizeOf checks sizeof of structure members: arrays in a
// typedef'd anonymous structure and in a tagged one, through pointers,
// elements and nested members.
func TestMemberSizeOf(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define L 64
typedef struct { int spin[L * L]; double e; } state_t;
struct rec { char name[24]; state_t st; };
static unsigned sum(const void *buf, size_t n) {
  const unsigned char *p = buf;
  unsigned s = 0;
  for (size_t i = 0; i < n; i++) s += p[i]; /* bytes */
  return s;
}
int main(void) {
  static state_t st;
  static struct rec recs[4];
  const state_t *p = &st;
  FILE *f = fopen("x.bin", "wb");
  unsigned s = sum(p->spin, sizeof p->spin); /* by spin */
  s += sum(recs[1].name, sizeof recs[1].name); /* by name */
  s += sum(&recs[0].st.e, sizeof recs[0].st.e); /* by nested */
  fwrite(st.spin, sizeof st.spin, 1, f); /* write spin */
  fclose(f);
  return (int)s;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		call string
		trip int64
	}{{"by spin", 4 * 64 * 64}, {"by name", 24}, {"by nested", 8}} {
		if l := loopVia(t, g, src, []string{c.call}, "bytes"); l.Trip != c.trip {
			t.Errorf("%s: trip %d (%s), want %d", c.call, l.Trip, l.TripSource, c.trip)
		}
	}
	checkBytes(t, g, src, []bytesWant{{"write spin", 4 * 64 * 64}})
}

// TestRowPointer checks an array of rows allocated through a pointer to
// arrays (char (*names)[64]): a loop to its unknown count runs at most its
// rows, not its bytes; a count the function fills under a capacity test
// runs the default trip count below a larger capacity.
func TestRowPointer(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void dump(FILE *f, int n) {
  char (*names)[64] = malloc((size_t)32 * 64);
  for (int i = 0; i < n; i++) fputs(names[i], f); /* rows */
  free(names);
}
static int collect(FILE *f) {
  int cap = 4096, n = 0;
  char (*seen)[96] = malloc((size_t)cap * 96);
  char line[96];
  while (fgets(line, sizeof line, f))
    if (line[0] == '#' && n < cap) strcpy(seen[n++], line);
  for (int k = 0; k < n; k++) fputs(seen[k], stdout); /* filled */
  free(seen);
  return n;
}
int main(int argc, char **argv) {
  FILE *f = fopen("names.txt", "r");
  dump(stdout, atoi(argv[1])); /* call dump */
  collect(f); /* call collect */
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "call dump", []tripWant{{"rows", 32}})
	checkTripsVia(t, g, src, "call collect", []tripWant{{"filled", DefaultTrip}})
}

// TestHashDraws checks remainders of a variable defined by a call (a hash
// or generator value): they run their mean, and a constant defined as an
// equality chooses the other side of a conditional.
func TestHashDraws(t *testing.T) {
	src := []source{cppSrc(`#include <cstdint>
#include <cstdio>
constexpr int kModules = 680;
uint64_t mix64(uint64_t z) { return (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; }
void emit(int m, FILE *f) {
  uint64_t h = mix64(0xC0FFEEULL + static_cast<uint64_t>(m));
  const bool runtime = (m == kModules - 1);
  const int nfunc = runtime ? 48 : 28;
  for (int k = 0; k < nfunc; k++) fputc('f', f); /* funcs */
  int ncalls = 3 + static_cast<int>((h >> 8) % 6);
  for (int c = 0; c < ncalls; c++) fputc('c', f); /* call sites */
}
int main() {
  for (int m = 0; m < kModules; m++) emit(m, stdout); /* call emit */
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "call emit", []tripWant{{"funcs", 28}, {"call sites", 5}})
}

// TestElementLists checks loops over containers held in elements of
// others, whose sizes the walk does not know: they run DefaultRowTrip. A
// loop over a container of known size whose body queries another
// container's size still runs the first one's size, and a counted loop
// writing records is not a loop completing one transfer.
func TestElementLists(t *testing.T) {
	src := []source{cppSrc(`#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <vector>
struct Obj { std::vector<int> sects; std::vector<int> rels; };
void fold(const std::vector<Obj> &objs, std::vector<std::vector<std::vector<uint32_t>>> &by, FILE *f) {
  std::unordered_map<uint64_t, std::vector<int>> buckets;
  for (size_t o = 0; o < objs.size(); o++) { /* objects */
    size_t ns = objs[o].sects.size();
    fwrite(&ns, sizeof ns, 1, f);
  }
  for (size_t o = 0; o < objs.size(); o++) {
    for (uint32_t r : by[o][0]) fputc(r, f); /* element range */
    const auto &ra = by[o][1];
    for (size_t q = 0; q < ra.size(); q++) fputc('q', f); /* element size */
    auto &bucket = buckets[o];
    for (int c : bucket) fputc(c, f); /* one bucket */
    const Obj &ob = objs[o];
    for (size_t k = 0; k < ob.rels.size(); k++) fputc(ob.rels[k], f); /* member of element */
  }
}
int main() {
  std::vector<Obj> objs(680);
  std::vector<std::vector<std::vector<uint32_t>>> by(680);
  fold(objs, by, stdout); /* call fold */
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "call fold", []tripWant{{"objects", 680}, {"element range", DefaultRowTrip}, {"element size", DefaultRowTrip}, {"one bucket", DefaultRowTrip}, {"member of element", DefaultRowTrip}})
}

// TestCountedRecordLoop checks a loop stepping its index by one while
// writing records indexed by it: it runs its bound (here unknown: the
// default), not once as a loop completing a short transfer would.
func TestCountedRecordLoop(t *testing.T) {
	src := []source{cppSrc(`#include <cstdio>
#include <vector>
int main() {
  std::vector<double> v;
  double x;
  while (scanf("%lf", &x) == 1) v.push_back(x);
  FILE *f = fopen("v.bin", "wb");
  for (size_t s = 0; s < v.size(); s++) fwrite(&v[s], sizeof(double), 1, f); /* records */
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"records", DefaultTrip}})
}

// TestUnchangedTable checks a local array initialised with a list that the
// function never changes: its elements are known where it is read, and
// their mean (rounded) where the index is not.
func TestUnchangedTable(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define N 8192
static unsigned crc(const unsigned char *p, size_t n) {
  unsigned c = 0;
  for (size_t i = 0; i < n; i++) c ^= p[i]; /* bytes */
  return c;
}
int main(void) {
  static unsigned char a[N * 8];
  size_t len[3] = {N * 8, N * 4, N * 4};
  unsigned c = crc(a, len[0]); /* first */
  for (int k = 0; k < 3; k++) c ^= crc(a, len[k]); /* each */
  return (int)c;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		via  []string
		trip int64
	}{{[]string{"first"}, 8192 * 8}, {[]string{"each"}, 43691}} {
		if l := loopVia(t, g, src, c.via[:1], "bytes"); l.Trip != c.trip {
			t.Errorf("%s: trip %d (%s), want %d", c.via[0], l.Trip, l.TripSource, c.trip)
		}
	}
}

// TestCheckCaps checks values read from a file that a check bounds
// before use ("if (n > MAX) die(...)"): past the check they stand for the
// bound, for a variable and for a member of an element alike.
func TestCheckCaps(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#define MAX_TILES 128
#define TILE_BYTES 262144
typedef struct { uint64_t offset; uint32_t bytes, crc; } entry_t;
static void die(const char *m) { fprintf(stderr, "%s\n", m); exit(1); }
int main(void) {
  FILE *f = fopen("p.pyr", "rb");
  uint32_t n;
  if (fread(&n, sizeof n, 1, f) != 1) die("trailer");
  if (n > MAX_TILES) die("corrupt index");
  entry_t *idx = malloc(4 * MAX_TILES * sizeof(entry_t));
  if (fread(idx, sizeof(entry_t), n, f) != n) die("index");
  unsigned char *buf = malloc(4 * TILE_BYTES);
  for (uint32_t k = 0; k < n; k++) { /* tiles */
    if (idx[k].bytes > TILE_BYTES) die("tile size");
    if (fread(buf, 1, idx[k].bytes, f) != idx[k].bytes) die("tile"); /* tile read */
  }
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkBytes(t, g, src, []bytesWant{{"tile read", 262144}})
	checkTrips(t, g, src, []tripWant{{"tiles", 128}})
}

// TestScaledMeans checks a variable a loop of known trip count halves in
// every iteration, or in all but the last: the body sees the mean of the
// values it takes.
func TestScaledMeans(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
int main(void) {
  int n = 2048, m = 1536;
  for (int level = 0; level < 4; level++) {
    for (int i = 0; i < n; i++) fputc('x', stdout); /* row */
    n /= 2;
  }
  for (int level = 0; level < 3; level++) {
    for (int i = 0; i < m; i++) fputc('y', stdout); /* each level */
    if (level + 1 < 3) {
      m /= 2;
    }
  }
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"row", (2048 + 1024 + 512 + 256) / 4}, {"each level", (1536 + 768 + 384) / 3}})
}

// TestDiagnosticSide checks that a branch side that only reports a failed
// check on the standard error and counts it is not taken.
func TestDiagnosticSide(t *testing.T) {
	src := []source{cppSrc(`#include <cstdio>
#include <iostream>
int main() {
  FILE *f = fopen("v.txt", "w");
  int bad = 0;
  for (int i = 0; i < 1000; i++) {
    int v = i * 7 % 13;
    if (v > 11) { /* c check */
      fprintf(stderr, "value %d out of range at %d\n", v, i);
      bad++;
    }
    if (v < 0) std::cerr << "negative " << v << "\n"; /* c++ check */
    if (v == 3) fprintf(f, "three\n"); /* no report */
    fprintf(f, "%d\n", v);
  }
  fclose(f);
  return bad;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		marker string
		taken  int
	}{{"c check", 1}, {"c++ check", 1}, {"no report", -1}} {
		file, line := lineOf(t, c.marker, src)
		if b := nodeAt(g.Entry, BranchNode, file, line); b == nil || b.Taken != c.taken {
			t.Errorf("%s: branch %+v, want taken %d", c.marker, b, c.taken)
		}
	}
}

// checkTripsVia checks the trip counts of loops in the function called on
// the line marked via in the entry function.
func checkTripsVia(t *testing.T, g *Graph, srcs []source, via string, wants []tripWant) {
	t.Helper()
	for _, w := range wants {
		if l := loopVia(t, g, srcs, []string{via}, w.loop); l.Trip != w.trip {
			t.Errorf("%s: trip %d (%s), want %d", w.loop, l.Trip, l.TripSource, w.trip)
		}
	}
}
