package pdg

import (
	"slices"
	"strings"
	"testing"

	"github.com/iolens/iolens/static/iosem"
)

// TestTriangularLoops checks a loop from past the variable of a loop
// around to the same unknown bound: half the outer count, less the
// offset, when the outer count comes from the extent of the arrays it
// indexes.
func TestTriangularLoops(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#define MAXC 32
int main(void) {
  double d[MAXC];
  int n = rand();
  long s = 0;
  for (int a = 0; a < n; a++) { /* outer */
    d[a] = a;
    for (int q = a + 1; q < n; q++) s += d[q] < d[a]; /* next */
    for (int q = a + 2; q < n; q++) s++; /* two after */
  }
  return (int)s;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"outer", 32}, {"next", 15}, {"two after", 14}})
}

// TestShareOfSum checks a count proportional to a share of a sum, "total
// * w[p] / wsum" with wsum the sum of the w over a counted loop: total
// over the number of terms, whichever way the product is written.
func TestShareOfSum(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define NB 120000
#define NP 320
typedef struct { double turnout; int id; } precinct;
static precinct prec[NP];
static double wt[NP];
int main(void) {
  double wsum = 0, tsum = 0;
  for (int p = 0; p < NP; p++) wsum += prec[p].turnout;
  for (int p = 0; p < NP; p++) tsum = tsum + wt[p];
  long s = 0, b = 0;
  for (int p = 0; p < NP; p++) {
    long nb = (long)(NB * prec[p].turnout / wsum);
    for (long i = 0; i < nb; i++, b++) s += i; /* ballots */
    for (long i = 0; i < (long)(640 * (wt[p] / tsum)); i++) s++; /* weights */
    for (long i = 0; i < (long)(NB * wt[p] / wsum); i++) s++; /* other sum */
  }
  printf("%ld\n", s);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"ballots", 375}, {"weights", 2}, {"other sum", DefaultTrip}})
}

// TestRowPointer checks a pointer initialised with a row of an array of
// known extents: loops indexing it are bounded by the row's extent.
func TestRowPointerExtent(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#define NC 3
#define MAXCAND 32
static int clist[NC][5][MAXCAND], nclist[NC][5];
int main(void) {
  const int *idx = clist[1][2];
  int n = nclist[1][2];
  long s = 0;
  for (int k = 0; k < n; k++) s += idx[k]; /* row */
  return (int)s;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"row", 32}})
}

// TestGlobalArrayExtents checks a global array one function allocates and
// another loops over up to an unknown count: the loop is bounded by the
// allocation, which "sizeof *bp" in it does not make an update of bp.
func TestGlobalArrayExtents(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#define NB 120000
static int *bp;
static long nb;
static void load(void) {
  bp = calloc(NB + 10, sizeof *bp);
  nb = 0;
  for (long i = 0; i < NB; i++) { long b = rand(); if (b + 1 > nb) nb = b + 1; bp[i] = 1; }
}
static long tab(void) {
  long s = 0;
  for (long b = 0; b < nb; b++) s += bp[b]; /* ballots */
  return s;
}
int main(void) {
  load();
  printf("%ld\n", tab()); /* tabulate */
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "tabulate", []tripWant{{"ballots", 120010}})
}

// TestFlagLoops checks a loop whose condition also tests a flag its body
// sets past a skip of unknown odds: two iterations on average, at most
// the count; a flag set under a condition keeps the count; a flag set to
// a match of a key stops halfway on average.
func TestFlagLoops(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#include <string.h>
#define NRANK 5
#define NNAME 901
int main(int argc, char **argv) {
  unsigned char v[NRANK];
  static char names[NNAME][40];
  int first = -1, found = 0, last = -1, hit = 0;
  for (int i = 0; i < NNAME && !hit; i++) hit = strcmp(names[i], argv[0]) == 0; /* search */
  for (int r = 0; r < NRANK; r++) v[r] = rand();
  for (int r = 0; r < NRANK && first < 0; r++) { /* first choice */
    if (v[r] == 0) continue;
    first = v[r] - 1;
  }
  for (int r = 0; r < NRANK && !found; r++) { /* set once */
    found = 1;
  }
  for (int r = 0; r < NRANK && last < 0; r++) { /* conditional */
    if (v[r] > 3) last = r;
  }
  return first + found + last + hit;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"first choice", 2}, {"set once", 1}, {"conditional", 5}, {"search", 451}})
}

// TestWindowOdds checks a condition keeping the variable of a counted
// loop in a window below an unknown bound, "i < j && i + w >= j": w of
// the loop's values, one when w is not known.
func TestWindowOdds(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int j = rand(), v = rand();
  for (int i = 0; i < 1000; i++) {
    if (i < j && i + 2 >= j) putchar('a'); /* fixed width */
    if (i + v >= j && i < j) putchar('b'); /* open width */
    if (i <= j && i + 4 > j) putchar('c'); /* inclusive */
  }
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkOdds(t, src, func(string) *Node { return g.Entry }, []oddsCase{
		{"fixed width", 0.002}, {"open width", 0.001}, {"inclusive", 0.004}})
}

// TestChainedLoads checks the work of an innermost loop whose loads wait
// for the previous iteration's: a table-driven CRC and a list walk take
// their operations plus LoadLatency per iteration, where an independent
// sum retires StraightLineOpsPerCycle operations per cycle.
func TestChainedLoads(t *testing.T) {
	src := []source{cSrc(`#include <stdint.h>
#include <stddef.h>
typedef struct node { struct node *next; int v; } node;
static uint32_t tab[256];
static uint8_t buf[4096];
int main(void) {
  uint32_t c = 0xffffffffu, s = 0;
  for (int i = 0; i < 4096; i++) c = tab[(c ^ buf[i]) & 0xff] ^ (c >> 8); /* crc */
  for (int i = 0; i < 4096; i++) s = s + (buf[i] ^ (s >> 8)); /* sum */
  node *p = NULL;
  for (int i = 0; i < 4096 && p; i++) p = p->next; /* walk */
  return (int)(c + s);
}`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		loop string
		work float64
	}{{"crc", 4 + LoadLatency}, {"sum", 5.0 / StraightLineOpsPerCycle}, {"walk", 6 + LoadLatency}} {
		if l := entryLoop(t, g, src, tc.loop); l.Work != tc.work {
			t.Errorf("%s: work %v per iteration, want %v", tc.loop, l.Work, tc.work)
		}
	}
}

// TestChunkedTransfer checks a loop completing a transfer in pieces of at
// most K: the request over K iterations, K bytes each; a request that
// fits runs once.
func TestChunkedTransfer(t *testing.T) {
	src := []source{cSrc(`#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#define CHUNK 4096
static char big[40000];
static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    size_t want = n > CHUNK ? CHUNK : n;
    ssize_t w = write(fd, p, want); /* one piece */
    if (w < 0) return;
    p += w; n -= (size_t)w;
  }
}
static void pwrite_all(int fd, const char *p, size_t len, off_t off) {
  while (len) { /* to zero */
    ssize_t w = pwrite(fd, p, len, off);
    if (w < 0) return;
    p += w; len -= (size_t)w; off += w;
  }
}
static const size_t kPiece = 8192;
static void write_pieces(int fd, const char *p, size_t n) {
  size_t off = 0;
  while (off < n) { /* by a constant step */
    size_t m = n - off < kPiece ? n - off : kPiece;
    write(fd, p + off, m);
    off += kPiece;
  }
}
int main(void) {
  int fd = open("out.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  write_all(fd, big, sizeof big); /* whole */
  write_all(fd, big, 100); /* small */
  write_pieces(fd, big, (size_t)rand()); /* unknown size */
  pwrite_all(fd, big, 30000, 0); /* positioned */
  close(fd);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		via         string
		trip, bytes int64
	}{{"whole", 10, 4096}, {"small", 1, 100}} {
		l := loopVia(t, g, src, []string{tc.via}, "while (n > 0)")
		file, line := lineOf(t, "one piece", src)
		io := nodeAt(l, IONode, file, line)
		if io == nil {
			t.Fatalf("%s: no write in the loop", tc.via)
		}
		if l.Trip != tc.trip || io.IO.Bytes != tc.bytes {
			t.Errorf("%s: %d trips (%s) of %d bytes, want %d of %d", tc.via, l.Trip, l.TripSource, io.IO.Bytes, tc.trip, tc.bytes)
		}
	}
	if l := loopVia(t, g, src, []string{"positioned"}, "to zero"); l.Trip != 1 || l.TripSource != TripTransfer {
		t.Errorf("loop to zero: %d trips (%s), want 1 (%s)", l.Trip, l.TripSource, TripTransfer)
	}
	if l := loopVia(t, g, src, []string{"unknown size"}, "by a constant step"); l.TripSource == TripTransfer {
		t.Errorf("loop by a constant step: %d trips (%s), want no transfer", l.Trip, l.TripSource)
	}
}

// TestCountdownLoops checks loops counting a variable down to zero by a
// step: "while (words)" taking at most 359 words per pass, by the local
// the pass declares, and the "do ... while (--t)" over them.
func TestCountdownLoops(t *testing.T) {
	src := []source{cSrc(`#include <stdint.h>
#include <stddef.h>
static uint16_t buf[32768];
static uint32_t sum(const uint16_t *p, size_t n) {
  size_t words = n * 2;
  uint32_t s1 = 1, s2 = 1;
  while (words) { /* blocks */
    size_t t = words > 359 ? 359 : words;
    words -= t;
    do { s1 += *p++; s2 += s1; } while (--t); /* words of a block */
  }
  return s1 + s2;
}
int main(void) {
  return (int)sum(buf, 16384); /* call */
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "call", []tripWant{{"blocks", 92}, {"words of a block", 359}})
}

// TestGroupLoops checks a loop over the group of records an enclosing
// loop has just closed ("start = i" after it): one group, DefaultRowTrip
// records, and a triangular loop over its pairs.
func TestGroupLoops(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#define N 4800
static int key[N];
int main(void) {
  long pairs = 0;
  int start = 0;
  for (int i = 1; i <= N; i++) {
    if (i < N && key[i] == key[start]) continue;
    for (int a = start; a < i; a++) /* group */
      for (int b = a + 1; b < i; b++) pairs += key[a] == key[b]; /* each pair */
    start = i;
  }
  return (int)pairs;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"group", DefaultRowTrip}, {"each pair", (DefaultRowTrip+1)/2 - 1}})
}

// TestCountCaps checks a global count the program only grows, up to a
// limit it tests before each increment: elsewhere it stands for that
// limit. A fill count reset when its buffer is flushed does not.
func TestCountCaps(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define MAXD 5000
static double delays[MAXD];
static long ndelays, nbuf;
static int buf[64];
static void record(double d) {
  if (ndelays < MAXD) delays[ndelays++] = d;
}
static void fill(int v) {
  if (nbuf < 64) buf[nbuf++] = v; else nbuf = 0;
}
static double report(void) {
  double s = 0;
  for (long i = 0; i < ndelays; i++) s += i; /* delays loop */
  for (long i = 0; i < nbuf; i++) s += i; /* buffer loop */
  return s;
}
int main(void) {
  for (int i = 0; i < 100; i++) { record(i); fill(i); }
  double s = report(); /* totals */
  printf("%f\n", s);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "totals", []tripWant{{"delays loop", 5000}, {"buffer loop", DefaultTrip}})
}

// TestOffsetBounds checks loops from a start to the start plus a count
// ("m < b0 + batch"), or between two constant offsets of one base
// ("nd = d0 - 1; nd <= d0 + 1"): the count, whatever the start.
func TestOffsetBounds(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#define NMSG 7000
int main(void) {
  const int batch = 200;
  long s = 0;
  for (int b0 = 0; b0 < NMSG; b0 += batch) /* batches */
    for (int m = b0; m < b0 + batch && m < NMSG; m++) s += m; /* one group */
  int lo = rand();
  for (int k = lo; k < lo + 25; k++) s++; /* offset */
  for (int k = lo; k <= 40 + lo; k++) s++; /* inclusive */
  for (int k = lo - 1; k <= lo + 1; k++) s++; /* around */
  for (int k = lo + 2; k < lo + 10; k++) s++; /* shifted */
  return (int)s;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"batches", 35}, {"one group", 200}, {"offset", 25}, {"inclusive", 41},
		{"around", 3}, {"shifted", 8}})
}

// TestProbeLoops checks the loops probing an open-addressing hash table,
// on disk or in memory, or its pages and each page's slots from a hashed
// start: a few slots, not the table's size; a scan of all slots for a key
// is no probe.
func TestProbeLoops(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#define NSLOTS 16384
#define HSIZE 4096
typedef struct { unsigned key, flags; } slot_t;
static slot_t tab[HSIZE];
static int find(int fd, unsigned key, slot_t *out) {
  unsigned h = key * 2654435761u >> 18;
  for (unsigned i = 0; i < NSLOTS; i++) { /* disk probe */
    unsigned k = (h + i) & (NSLOTS - 1);
    if (pread(fd, out, sizeof *out, 4096 + (off_t)k * sizeof *out) != sizeof *out) return -1;
    if (!(out->flags & 1)) return 0;
    if (out->key == key) return 1;
  }
  return -1;
}
static slot_t *lookup(unsigned key) {
  unsigned h = key & (HSIZE - 1);
  while (tab[h].key != 0) { /* memory probe */
    if (tab[h].key == key) return &tab[h];
    h = (h + 1) % HSIZE;
  }
  return NULL;
}
static int words(const char *line) {
  int n = 0;
  for (const char *p = line;; p++) { /* outer scan */
    unsigned h = (unsigned char)*p & (HSIZE - 1);
    while (tab[h].key != 0) h = (h + 1) % HSIZE; /* inner probe */
    n++;
    if (*p == 0) break;
  }
  return n;
}
typedef struct { unsigned long card; int n; } pslot;
static pslot pages[64][32];
static pslot *paged(unsigned long card) {
  unsigned long h = card * 0x9E3779B97F4A7C15ul;
  int page = (int)(h % 64), start = (int)((h >> 32) % 32);
  for (int probe = 0; probe < 64; probe++) { /* page probe */
    pslot *s = pages[page];
    for (int k = 0; k < 32; k++) { /* slot probe */
      pslot *x = &s[(start + k) % 32];
      if (x->card == card) return x;
      if (x->card == 0) return 0;
    }
    page = (page + 1) % 64;
    start = 0;
  }
  return 0;
}
static int scan(unsigned key) {
  for (int i = 0; i < HSIZE; i++) /* full scan */
    if (tab[i].key == key) return i;
  return -1;
}
int main(void) {
  int fd = open("t.bin", O_RDONLY);
  slot_t s;
  int n = find(fd, 7, &s); /* on disk */
  n += lookup(9) != NULL; /* in memory */
  n += scan(11); /* by scan */
  n += words("a b"); /* by words */
  n += paged(5) != 0; /* by pages */
  close(fd);
  return n;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "on disk", []tripWant{{"disk probe", ProbeTrip}})
	checkTripsVia(t, g, src, "in memory", []tripWant{{"memory probe", ProbeTrip}})
	checkTripsVia(t, g, src, "by scan", []tripWant{{"full scan", 4096}})
	checkTripsVia(t, g, src, "by words", []tripWant{{"outer scan", DefaultWhileTrip}, {"inner probe", ProbeTrip}})
	checkTripsVia(t, g, src, "by pages", []tripWant{{"page probe", ProbeTrip}, {"slot probe", ProbeTrip}})
}

// TestSmallFiles checks a loop reading to the end of a file of unknown
// contents that a loop around opens, one file per iteration: a small
// file (SmallFileReadTrip lines), where a file opened once is read
// DefaultReadTrip times. Read by blocks, a small file is SmallFileBytes:
// one 64 KiB request, four of 4 KiB.
func TestSmallFiles(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <dirent.h>
static char block[1 << 16];
int main(int argc, char **argv) {
  char line[256], path[512];
  long n = 0;
  size_t got;
  DIR *d = opendir(argv[1]);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    while (fgets(line, sizeof line, f)) n++; /* per entry */
    rewind(f);
    while ((got = fread(block, 1, sizeof block, f)) > 0) n += (long)got; /* whole blocks */
    rewind(f);
    while ((got = fread(block, 1, 4096, f)) > 0) n += (long)got; /* pages */
    fclose(f);
  }
  closedir(d);
  FILE *g = fopen(argv[2], "r");
  while (fgets(line, sizeof line, g)) n++; /* one file */
  fclose(g);
  return (int)n;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"per entry", SmallFileReadTrip}, {"one file", DefaultReadTrip},
		{"whole blocks", 1}, {"pages", SmallFileBytes / 4096}})
}

func TestFilledPaths(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
static char dir[256];
static void part_path(char *buf, size_t n, int r) { snprintf(buf, n, "%s/part%d.bin", dir, r); }
static void named(char *buf, size_t n, int r) { part_path(buf, n, r); }
static void write_part(int r) {
  char path[300];
  part_path(path, sizeof path, r);
  FILE *f = fopen(path, "wb");
  double row[512] = {0};
  for (int i = 0; i < 200; i++) fwrite(row, sizeof row[0], 512, f);
  fclose(f);
}
static double read_part(int r) {
  char path[300];
  named(path, sizeof path, r);
  FILE *f = fopen(path, "rb");
  double row[512], s = 0;
  while (fread(row, sizeof row[0], 512, f) == 512) s += row[0]; /* rows */
  fclose(f);
  return s;
}
static double load_part(int r, size_t n) {
  char path[300];
  part_path(path, sizeof path, r);
  FILE *f = fopen(path, "rb");
  double *q = malloc(n * sizeof *q), s = 0;
  if (fread(q, sizeof *q, n, f) != n) exit(1);
  fclose(f);
  for (size_t k = 0; k < n; k++) s += q[k]; /* records */
  free(q);
  return s;
}
int main(int argc, char **argv) {
  snprintf(dir, sizeof dir, "%s", argv[1]);
  for (int r = 0; r < 3; r++) write_part(r);
  double s = 0;
  for (int r = 0; r < 3; r++) s += read_part(r); /* each part */
  for (int r = 0; r < 3; r++) s += load_part(r, (size_t)rand()); /* unknown count */
  return s > 0;
}`)}
	g := buildSources(t, Options{Args: []string{"out"}}, src...)
	if l := loopVia(t, g, src, []string{"each part"}, "rows"); l.Trip != 200 || l.TripSource != TripWritten {
		t.Errorf("rows: %d trips (%s), want 200 (%s)", l.Trip, l.TripSource, TripWritten)
	}
	if l := loopVia(t, g, src, []string{"unknown count"}, "records"); l.Trip != 200*512 {
		t.Errorf("records: %d trips (%s), want %d", l.Trip, l.TripSource, 200*512)
	}
}

func TestGrowingCounters(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
int main(void) {
  size_t cap = 1024, n = 0, m = 0, h = 0;
  double *v = malloc(cap * sizeof *v), s = 0;
  for (int k = 0; k < 5000; k++) {
    if (n == cap) {
      cap *= 2;
      v = realloc(v, cap * sizeof *v);
    }
    v[n++] = k;
  }
  for (size_t k = 0; k < n; k++) s += v[k]; /* grown */
  for (int j = 0; j < 40; j++)
    if (n < 6000) v[n++] = j;
  for (size_t k = 0; k < n; k++) s += v[k]; /* at least */
  for (int j = 0; j < 40; j++)
    if (m < 30) m++;
  for (size_t k = 0; k < m; k++) s += v[k]; /* from zero */
  for (int j = 0; j < 40; j++)
    if (h == 100) break; else h++;
  for (size_t k = 0; k < h; k++) s += v[k]; /* stopped */
  free(v);
  return s > 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"grown", 5000}, {"at least", 5000}, {"from zero", DefaultTrip}, {"stopped", DefaultTrip}})
}

func TestTokenCounts(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <string.h>
int main(void) {
  char line[256], tok[8][64], *save = NULL;
  double s = 0;
  int nt = 0;
  for (char *t = strtok_r(line, " ", &save); t && nt < 8; t = strtok_r(NULL, " ", &save))
    snprintf(tok[nt++], 64, "%s", t);
  for (int i = 0; i < nt; i++) s += i; /* tokens */
  int k = 0;
  if (tok[0][0] == '$') k++;
  for (; k < nt; k++) s += tok[k][0]; /* rest */
  for (; k < 1000; k++) s += k; /* far */
  return s > 0;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"tokens", 8}, {"rest", 8}, {"far", DefaultTrip}})
}

func TestStringScans(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; } /* key */
  return h;
}
int main(int argc, char **argv) {
  char line[256];
  unsigned h = 0;
  FILE *f = fopen("rows.txt", "w");
  for (int i = 0; i < 1000; i++) fputs("station-17,0.125\n", f);
  fclose(f);
  f = fopen("rows.txt", "r");
  while (fgets(line, sizeof line, f)) {
    for (char *p = line; *p; p++) h = h * 31 + *p; /* whole line */
    for (int i = 0; line[i] != '\0'; i++) h += line[i]; /* indexed */
    h += hash(line + 7);
  }
  fclose(f);
  const char *name = "station";
  for (const char *q = name; *q; q++) h += *q; /* literal */
  return (int)h;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"whole line", 17}, {"indexed", 17}, {"literal", 7}})
	file, line := lineOf(t, "key */", src)
	n := 0
	for _, fn := range g.Funcs {
		if fn.Name == "hash" {
			if l := nodeAt(fn, LoopNode, file, line); l == nil || l.Trip != DefaultScanTrip {
				t.Errorf("key scan: %+v, want %d trips", l, DefaultScanTrip)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("hash not analysed")
	}
}

func TestMemberCounts(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { double *v; size_t n, cap; } vec;
static void push(vec *a, double x) {
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 64;
    a->v = realloc(a->v, a->cap * sizeof *a->v);
  }
  a->v[a->n++] = x;
}
static void fill(vec *a, int k) {
  for (int i = 0; i < k; i++)
    if (i % 4 == 0) push(a, i);
}
static void dump(const vec *a, FILE *f) {
  for (size_t i = 0; i < a->n; i++) fprintf(f, "%g\n", a->v[i]); /* rows */
}
int main(void) {
  vec a = {0}, b = {0}, c = {0};
  FILE *f = fopen("out.txt", "w");
  for (int i = 0; i < 5000; i++) push(&a, i * 0.5);
  dump(&a, f); /* pushed */
  fill(&b, 800);
  dump(&b, f); /* filled */
  for (size_t i = 0; i < b.n; i++) fputc('b', f); /* local */
  push(&c, 1.0);
  memset(&c, 0, sizeof c);
  for (size_t i = 0; i < c.n; i++) fputc('c', f); /* cleared */
  fclose(f);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		via  string
		trip int64
	}{{"pushed", 5000}, {"filled", 200}} {
		if l := loopVia(t, g, src, []string{tc.via}, "rows"); l.Trip != tc.trip {
			t.Errorf("%s: %d trips (%s), want %d", tc.via, l.Trip, l.TripSource, tc.trip)
		}
	}
	checkTrips(t, g, src, []tripWant{{"local", 200}, {"cleared", DefaultTrip}})
}

func TestSearchFailure(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
static int slot[64];
static int find_free(void) {
  for (int i = 0; i < 64; i++)
    if (slot[i] == 0) return i;
  fprintf(stderr, "no free slot\n"); /* exhausted */
  exit(1);
}
static int find_or_last(void) {
  for (int i = 0; i < 64; i++)
    if (slot[i] == 0) return i;
  fprintf(stderr, "table full\n"); /* fallback */
  return 63;
}
int main(void) {
  int s = 0;
  for (int k = 0; k < 1000; k++) s += find_free() + find_or_last();
  return s;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		fn, marker string
		ran        bool
	}{{"find_free", "exhausted", false}, {"find_or_last", "fallback", true}} {
		file, line := lineOf(t, tc.marker, src)
		for _, f := range g.Funcs {
			if f.Name != tc.fn {
				continue
			}
			n := nodeAt(f, IONode, file, line)
			if n == nil {
				t.Fatalf("%s: no fprintf node", tc.fn)
			}
			if got := runsOf(f, n) > 0; got != tc.ran {
				t.Errorf("%s: fprintf runs %v per call, want running %v", tc.fn, runsOf(f, n), tc.ran)
			}
		}
	}
}

// runsOf returns how many times the node target under n runs per
// execution of n: the trip counts of the loops and the odds of the branch
// sides on the way; -1 when target is not under n.
func runsOf(n, target *Node) float64 {
	if n == target {
		return 1
	}
	for i, c := range n.Children {
		r := runsOf(c, target)
		if r < 0 {
			continue
		}
		switch n.Kind {
		case LoopNode:
			r *= float64(n.Trip)
		case BranchNode:
			r *= sideOdds(n, i, len(n.Children))
		}
		return r
	}
	return -1
}

func TestResultInternalWrite(t *testing.T) {
	src := []source{{"label.f90", `module labels
  implicit none
  character(len=4) :: pname(10)
contains
  function station_label(p, k) result(s)
    integer, intent(in) :: p, k
    character(len=12) :: s
    write(s, '(A,I0)') pname(p), k ! into the result
  end function station_label
end module labels
program survey
  use labels
  implicit none
  integer :: i
  character(len=12) :: a
  do i = 1, 1000
    a = station_label(1, i)
  end do
  print *, a
end program survey
`}}
	g := buildSources(t, Options{}, src...)
	file, line := lineOf(t, "into the result", src)
	for _, f := range g.Funcs {
		if f.Name == "station_label" && nodeAt(f, IONode, file, line) != nil {
			t.Errorf("the internal WRITE into the result of %s is I/O", f.Name)
		}
	}
}

func TestBucketChains(t *testing.T) {
	src := []source{cSrc(`#include <stddef.h>
struct node { struct node *next; int v; };
static int head[1024], next_[100000];
static struct node *bucket[64], *list;
int main(void) {
  int s = 0;
  for (int b = 0; b < 1024; b++)
    for (int i = head[b]; i >= 0; i = next_[i]) s += i; /* by index */
  for (int b = 0; b < 64; b++)
    for (struct node *p = bucket[b]; p != NULL; p = p->next) s += p->v; /* by pointer */
  for (struct node *p = list; p; p = p->next) s += p->v; /* whole list */
  return s;
}`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"by index", DefaultRowTrip}, {"by pointer", DefaultRowTrip}, {"whole list", DefaultTrip}})
}

func TestLambdas(t *testing.T) {
	src := []source{cppSrc(`#include <vector>
#include <fstream>
struct Obs { int v; double y; };
double fit(const std::vector<Obs> &obs, std::ofstream &out) {
    std::vector<double> ev(100, 0.0), em(12, 0.0);
    for (int it = 0; it < 40; ++it) {
        auto update = [&](std::vector<double> &eff) {
            for (const Obs &o : obs) eff[o.v % eff.size()] += o.y; // observations
            for (size_t i = 0; i < eff.size(); ++i) out << eff[i] << '\n'; // effects
        };
        update(ev); // vessels
        update(em); // months
    }
    return ev[0] + em[0];
}
int main() {
    std::vector<Obs> obs(50000);
    std::ofstream out("fit.txt");
    return fit(obs, out) > 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		via  string
		trip int64
	}{{"vessels", 100}, {"months", 12}} {
		for _, w := range []tripWant{{"observations", 50000}, {"effects", tc.trip}} {
			if l := loopVia(t, g, src, []string{"fit(obs, out)", tc.via}, w.loop); l.Trip != w.trip {
				t.Errorf("%s: %s: %d trips (%s), want %d", tc.via, w.loop, l.Trip, l.TripSource, w.trip)
			}
		}
	}
}

// TestGeneratorDraws checks draws made by a program's own generator: a
// method scaling its integer output into [0, 1) is a uniform draw ("<
// 0.25" holds a quarter of the time), and a loop bound drawn below a
// known n by a helper (truncated uniform times n, or a remainder by n)
// runs its mean.
func TestGeneratorDraws(t *testing.T) {
	src := []source{cppSrc(`#include <cstdint>
#include <cstdio>
struct Rng {
    uint64_t s_ = 88172645463325252ULL;
    uint64_t next() { s_ ^= s_ << 13; s_ ^= s_ >> 7; s_ ^= s_ << 17; return s_; }
    double unif() { return (next() >> 11) * 0x1.0p-53; }
    int below(int n) { return static_cast<int>(unif() * n); }
};
static int pick(Rng &r, int n) { return static_cast<int>(r.next() % n); }
int main() {
    Rng rng;
    int days = 2 + rng.below(5);
    for (int d = 0; d < days; ++d) std::putchar('d'); /* day loop */
    int k = 1 + pick(rng, 9);
    for (int i = 0; i < k; ++i) std::putchar('k'); /* picks */
    for (int i = 0; i < 1000; ++i)
        if (rng.unif() < 0.25) std::putchar('q'); /* quarter */
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"day loop", 4}, {"picks", 5}})
	checkOdds(t, src, func(string) *Node { return g.Entry }, []oddsCase{{"quarter", 0.25}})
}

// TestTextElements checks the characters a stream insertion of an element
// of a std::array of C strings is taken to write: a string's.
func TestTextElements(t *testing.T) {
	src := []source{cppSrc(`#include <array>
#include <fstream>
const std::array<const char *, 3> kCode = {"COD", "HAD", "WHG"};
int main() {
    std::ofstream out("codes.txt");
    for (int s = 0; s < 3; ++s) out << kCode[s] << '\n'; /* insertion */
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkBytes(t, g, src, []bytesWant{{"insertion", iosem.StrWidth + 1}})
}

// TestFillOnce checks a table filled once by a counter only counted up,
// "if (n < TOP) top[n++] = k; else ...": the test holds for the first TOP
// of the loop's passes, and the other side runs the rest of them; a
// counter declared inside the loop, or reset, is not filled once.
func TestFillOnce(t *testing.T) {
	src := []source{cSrc(`#include <stdint.h>
#define N 10000
#define TOP 50
static uint32_t cnt[N];
int main(void) {
  uint32_t top[TOP];
  int ntop = 0, nbuf = 0, sum = 0;
  for (int k = 0; k < N; k++) {
    if (ntop < TOP) { top[ntop++] = k; } /* filling */
    else {
      int mi = 0;
      for (int j = 1; j < TOP; j++) if (cnt[top[j]] < cnt[top[mi]]) mi = j;
      if (cnt[k] > cnt[top[mi]]) top[mi] = k;
    }
    if (nbuf < TOP) { nbuf++; } else { nbuf = 0; } /* cycling */
  }
  for (int r = 0; r < 20; r++)
    for (int k = 0; k < 100; k++)
      if (TOP > sum) sum++; /* nested */
  return (int)top[0] + nbuf + sum;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkOdds(t, src, func(string) *Node { return g.Entry }, []oddsCase{
		{"filling", 50.0 / 10000}, {"cycling", 1 - 1.0/50}, {"nested", 50.0 / 2000}})
}

// TestChunkedRecords checks a loop reading a count of records in chunks
// of at most CHUNK ("want = left < CHUNK ? left : CHUNK; got = fread(buf,
// sizeof rec, want, f); left -= got"): the count over CHUNK passes when
// the count is known (a header field the program wrote), the file's
// records over CHUNK when only the file's size is; never one pass per
// record, as the value a call returned earlier would make it.
func TestChunkedRecords(t *testing.T) {
	const prog = `#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
typedef struct { uint32_t magic, count; } hdr_t;
typedef struct { double a[8]; } rec_t;
#define CHUNK 2048
#define NREC 100000
static rec_t buf[CHUNK];
static long scan(const char *p) {
  FILE *f = fopen(p, "rb");
  hdr_t h;
  fread(&h, sizeof h, 1, f);
  uint64_t left = h.count;
  long seen = 0;
  while (left > 0) { /* chunks */
    size_t want = left < CHUNK ? (size_t)left : CHUNK;
    size_t got = fread(buf, sizeof(rec_t), want, f);
    if (got != want) return -1;
    left -= got; seen += got;
  }
  fclose(f);
  return seen;
}
static void put(const char *p) {
  FILE *f = fopen(p, "wb");
  hdr_t h = {1, COUNT};
  fwrite(&h, sizeof h, 1, f);
  for (int i = 0; i < NREC; i++) fwrite(&buf[i % CHUNK], sizeof(rec_t), 1, f);
  fclose(f);
}
int main(void) {
  put("recs.bin");
  return (int)scan("recs.bin"); /* read back */
}
`
	for _, tc := range []struct {
		count string
		trip  int64
	}{{"NREC", 49}, {"(uint32_t)rand()", 48}} {
		src := []source{cSrc(strings.Replace(prog, "COUNT", tc.count, 1))}
		g := buildSources(t, Options{}, src...)
		if l := loopVia(t, g, src, []string{"read back"}, "chunks"); l.Trip != tc.trip {
			t.Errorf("count %s: %d trips (%s), want %d", tc.count, l.Trip, l.TripSource, tc.trip)
		}
		for _, fn := range g.Funcs {
			file, line := lineOf(t, "chunks", src)
			if l := nodeAt(fn, LoopNode, file, line); fn.Name == "scan" && l != nil && l.Trip != tc.trip {
				t.Errorf("count %s: scan's own walk: %d trips (%s), want %d", tc.count, l.Trip, l.TripSource, tc.trip)
			}
		}
	}
}

// TestReopenedSeries checks a file variable a loop closes and reopens on
// the next file of a series through a helper ("if (day % 30 == 29) {
// fclose(f); f = open_month(++month); }"): it holds an open file
// throughout, so the writes of the loop and the close after it have one.
func TestReopenedSeries(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
static char path[256];
static FILE *open_month(int m) {
  snprintf(path, sizeof path, "m%02d.bin", m);
  FILE *f = fopen(path, "wb");
  if (!f) exit(1);
  return f;
}
int main(void) {
  double x[100] = {0};
  int month = 0;
  FILE *f = open_month(0);
  for (int day = 0; day < 365; day++) {
    if (day % 30 == 29) {
      fclose(f); /* month end */
      month++;
      f = open_month(month);
    }
    fwrite(x, sizeof x, 1, f); /* daily */
  }
  fclose(f); /* year end */
  return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, m := range []string{"month end", "daily", "year end"} {
		if n := entryNode(t, g, src, IONode, m); n.IO.File == nil {
			t.Errorf("%s: no file", m)
		}
	}
}

// TestClockLoops checks a loop advancing a floating-point clock to a
// known end: (end − start) / step passes for a known step, and output
// when the clock passes the time of the next event, moved on by a
// period, on step/period of them; with a step the analysis does not
// know, the run's events over the loop's passes.
func TestClockLoops(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  FILE *f = fopen("series.txt", "w");
  double t = 0.0, dt = 0.01, tnext = 0.0, x = 0.0;
  while (t < 10.0) { /* known step */
    x += t * 0.5;
    if (t >= tnext - 1e-9) { fprintf(f, "%g %g\n", t, x); tnext = tnext + 0.5; } /* every half */
    t += dt;
  }
  double s = 1.0, h = 0.1 + rand() / (double)RAND_MAX, snext = 1.0;
  while (s < 11.0) { /* drawn step */
    if (snext <= s) { fprintf(f, "%g\n", s); snext += 2.0; } /* every two */
    s = s + h;
  }
  fclose(f);
  return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"known step", 1000}, {"drawn step", DefaultWhileTrip}})
	checkOdds(t, src, func(string) *Node { return g.Entry }, []oddsCase{{"every half", 0.01 / 0.5}, {"every two", 5.0 / DefaultWhileTrip}})

	f90 := []source{{"prog.f90", `program clock
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: tend = 3.0_dp, dt_ts = 1.0_dp / 1440.0_dp
  real(dp) :: t, dt, tnext, x
  integer :: u
  open(newunit=u, file='ts.txt', status='replace')
  dt = 0.45_dp * 0.03125_dp / 310.0_dp
  t = 0.0_dp
  tnext = 0.0_dp
  x = 0.0_dp
  do while (t < tend) ! steps
     x = x + sin(t)
     if (t >= tnext) then ! each minute
        write(u, '(2f12.5)') t, x
        tnext = tnext + dt_ts
     end if
     t = t + dt
  end do
  close(u)
end program clock
`}}
	g = buildSources(t, Options{}, f90...)
	checkTrips(t, g, f90, []tripWant{{"steps", 66134}})
	checkOdds(t, f90, func(string) *Node { return g.Entry }, []oddsCase{{"each minute", 0.45 * 0.03125 / 310 * 1440}})
}

// TestDirectoryListing checks the count a directory listing returns
// ("while ((e = readdir(d)) != NULL) names[n++] = ..."): the entries the
// listing loop is taken to run, so that the caller's loop over them runs
// as many, not the default of a counted loop. A cap on the listing ("&&
// k < 256") bounds it without telling its length.
func TestDirectoryListing(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <stdlib.h>
static int list_dir(const char *p, char (**names)[24], int *cap) {
  DIR *d = opendir(p);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (n >= *cap) { *cap = *cap ? 2 * *cap : 256; *names = realloc(*names, sizeof(**names) * (size_t)*cap); }
    memcpy((*names)[n++], e->d_name, strlen(e->d_name) + 1);
  }
  closedir(d);
  return n;
}
static int count_tickets(const char *p) {
  DIR *d = opendir(p);
  int k = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && k < 256) /* capped */
    if (e->d_name[0] != '.') k++;
  closedir(d);
  return k;
}
int main(int argc, char **argv) {
  char (*names)[24] = NULL;
  int cap = 0;
  int n = list_dir(argv[1], &names, &cap);
  for (int i = 0; i < n; i++) puts(names[i]); /* entries */
  return count_tickets(argv[1]) > 0; /* listing */
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"entries", DefaultWhileTrip}})
	checkTripsVia(t, g, src, "listing", []tripWant{{"capped", DefaultWhileTrip}})
}

// TestStridedAccess checks an innermost loop stepping through an array
// across rows ("slab[c * NS + t]" in a loop over c) over more than
// StridedSweepBytes: StridedLatency cycles per iteration besides its
// operations, where a loop along a row only storing is a vectorised copy,
// and so is a transposed tile that the cache holds.
func TestStridedAccess(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#define NS 65536
#define NC 128
int main(void) {
  unsigned char *raw = malloc((size_t)NS * NC);
  float *slab = malloc(sizeof(float) * (size_t)NS * NC);
  for (long t = 0; t < NS; t++)
    for (int c = 0; c < NC; c++) slab[(size_t)c * NS + t] = raw[t * NC + c]; /* transpose */
  for (long c = 0; c < NC; c++)
    for (long t = 0; t < NS; t++) slab[c * NS + t] = raw[c * NS + t]; /* copy */
  static double tile[256 * 256], tt[256 * 256];
  for (int i = 0; i < 256; i++)
    for (int j = 0; j < 256; j++) tt[j * 256 + i] = tile[i * 256 + j]; /* in cache */
  return (int)slab[7] + (int)tt[3];
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		loop string
		work float64
	}{{"transpose", 2 + StridedLatency}, {"copy", 2.0 / VectorWidth}, {"in cache", 2.0 / VectorWidth}} {
		file, line := lineOf(t, tc.loop, src)
		var inner *Node
		for _, n := range g.Entry.Children {
			if n.Kind == LoopNode && len(n.Children) == 1 && n.Children[0].Pos.Line == line {
				inner = n.Children[0]
			}
		}
		if inner == nil {
			t.Fatalf("no inner loop at %s:%d", file, line)
		}
		if inner.Work != tc.work {
			t.Errorf("%s: work %v per iteration, want %v", tc.loop, inner.Work, tc.work)
		}
	}
}

// TestConstructedFill checks the cost of a container constructed with a
// count: its elements are written at memset's speed (its bytes / 16),
// for a structure the sum of its members' sizes; outside loops, one of
// MmapThreshold bytes or more also faults its pages in.
func TestConstructedFill(t *testing.T) {
	src := []source{cppSrc(`#include <vector>
struct Obs { float a, b, c, d; };
int main() {
  std::vector<Obs> w(12 * 35040); /* records */
  std::vector<double> v(1000000, 0.0); /* values */
  std::vector<double> s(1000); /* small */
  double t = 0;
  for (int k = 0; k < 4; k++) {
    std::vector<double> p(1000000); /* per pass */
    t += p[k];
  }
  return (int)(w[0].a + v[1] + s[2] + t);
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		marker string
		work   float64
	}{
		// The fill at memset's speed, the page faults of fresh memory
		// (+ the count's product).
		{"records", 12*35040*16/16 + 1643*PageFaultOps + 1},
		{"values", 1000000*8/16 + 1954*PageFaultOps},
		{"small", 1000 * 8 / 16},
		{"per pass", 1000000 * 8 / 16},
	} {
		file, line := lineOf(t, tc.marker, src)
		n := nodeAt(g.Entry, CallNode, file, line)
		if n == nil {
			n = nodeAt(g.Entry, UnknownNode, file, line)
		}
		if n == nil {
			t.Fatalf("no call at %q", tc.marker)
		}
		if n.Work != tc.work {
			t.Errorf("%s: work %v, want %v", tc.marker, n.Work, tc.work)
		}
	}
}

// TestSectionReductions checks a Fortran reduction of a section of an
// allocatable array (sum(real(table(k, s, :), dp))): the section has the
// extent the array was allocated with, the reduction costs its elements
// once each (twice with the conversion), and its result is one value, so
// the statement is not repeated per element: (2 × 1000 + the loop's 8
// other operations) / StraightLineOpsPerCycle per iteration. A reduction
// along one dimension assigned to a whole array (cm = sum(real(c, dp),
// dim=2)) is computed once, not once per element of the array.
func TestSectionReductions(t *testing.T) {
	src := []source{{"prog.f90", `program sections
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0), nplot = 1000, nspec = 4, ndcl = 40
  real(sp), allocatable :: table(:, :, :)
  real(dp) :: stems(nspec), dmid
  integer :: k, s
  allocate(table(ndcl, nspec, nplot))
  table = 1.0
  stems = 0
  do s = 1, nspec
     do k = 1, ndcl ! classes
        dmid = 2.0_dp * k - 1.0_dp
        stems(s) = stems(s) + sum(real(table(k, s, :), dp)) * dmid
     end do
  end do
  print *, stems
  call centre(reshape([(k, k = 1, 768)], [3, 256]))
  call capacity()
contains
  subroutine centre(c)
    integer, intent(in) :: c(3, 256)
    real(dp) :: cm(3)
    cm = sum(real(c, dp), dim=2) / 256 ! centre
  end subroutine centre
  subroutine capacity()
    real(dp) :: b(100, 50), cap(10)
    integer :: lev
    b = 1.0_dp
    do lev = 1, 10 ! levels
       cap(lev) = sum(max(0.0_dp, 2.5_dp - b))
    end do
    print *, cap
  end subroutine capacity
end program sections
`}}
	g := buildSources(t, Options{}, src...)
	file, line := lineOf(t, "classes", src)
	l := nodeAt(g.Entry, LoopNode, file, line)
	if l == nil {
		t.Fatal("no loop over the classes")
	}
	if want := (2*1000 + 8) / StraightLineOpsPerCycle; l.Work != float64(want) {
		t.Errorf("work %v per iteration, want %v", l.Work, want)
	}
	for _, fn := range g.Funcs {
		if fn.Name != "centre" {
			continue
		}
		// The statement's own operations (a division, divisionOps, the
		// keyword argument and the store) per element of cm, and the
		// conversion and the sum per element of c once.
		if want := 3*(divisionOps+2) + 2*768.0; fn.Work != want {
			t.Errorf("centre: work %v, want %v", fn.Work, want)
		}
	}
	// A reduction of an expression of whole arrays: the sum, the max and
	// the subtraction per element of b, once; the statement's own four
	// operations and the loop's step.
	checkWorkVia(t, g, src, "call capacity()", "levels", (3*100*50+5.0)/StraightLineOpsPerCycle)
}

// TestHostTables checks a host's array assigned once an array constructor
// (v0max = [250.0_dp, 250.0_dp, 170.0_dp]): its internal procedures read
// its elements like those of a PARAMETER array, the element when the
// index is known, else the mean of the elements; one the host changes
// again stays unknown. A PARAMETER array's index starts at its lower
// bound.
func TestHostTables(t *testing.T) {
	src := []source{{"prog.f90", `program host_tables
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: tend = 3.0_dp, dz = 4.0_dp / 128
  integer, parameter :: lens(0:2) = [1000, 2000, 3000]
  real(dp) :: v0max(3)
  integer :: nsteps(3), w(3), is
  v0max = [250.0_dp, 250.0_dp, 170.0_dp]
  nsteps = (/ 10, 20, 30 /)
  w = [1, 2, 3]
  w(2) = 7
  do is = 1, 3
     call run(is)
  end do
  call fixed()
contains
  subroutine run(is)
    integer, intent(in) :: is
    real(dp) :: t, dt, x
    dt = 0.45_dp * dz / (v0max(is) + 60.0_dp)
    t = 0.0_dp
    x = 0.0_dp
    do while (t < tend) ! clock
       x = x + sin(t)
       t = t + dt
    end do
    print *, x
  end subroutine run
  subroutine fixed()
    integer :: k, s
    s = 0
    do k = 1, nsteps(2) ! second
       s = s + k
    end do
    do k = 1, w(2) ! changed
       s = s + k
    end do
    do k = 1, lens(2) ! bounded
       s = s + k
    end do
    print *, s
  end subroutine fixed
end program host_tables
`}}
	g := buildSources(t, Options{}, src...)
	// 3 / (0.45 × 4/128 / ((250 + 250 + 170)/3 + 60)) = 60445.2
	checkTripsVia(t, g, src, "call run(is)", []tripWant{{"clock", 60445}})
	checkTripsVia(t, g, src, "call fixed()", []tripWant{{"second", 20}, {"changed", DefaultTrip}, {"bounded", 3000}})
}

// TestKeyedHeader checks a header the program formats into a buffer and
// writes as bytes, then reads back and parses with a format that names
// each value's key ("grid=%d tile=%d"): the values scanned are those it
// wrote; a key written with an unknown value, or a conversion without a
// key, stays unknown.
func TestKeyedHeader(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#define GRID 1536
#define TILE 256
int main(int argc, char **argv) {
  char hdr[4096];
  int fd = open("pyr.bin", O_RDWR | O_CREAT | O_TRUNC, 0600);
  memset(hdr, 0, sizeof hdr);
  snprintf(hdr, sizeof hdr, "PYR1 grid=%d tile=%d count=%d %d\n", GRID, TILE, argc, 7);
  pwrite(fd, hdr, sizeof hdr, 0);
  char in[4096];
  pread(fd, in, sizeof in, 0);
  int grid, tile, count, plain;
  if (sscanf(in, "PYR1 grid=%d tile=%d count=%d %d", &grid, &tile, &count, &plain) != 4) return 1;
  long s = 0;
  for (int k = 0; k < tile * tile; k++) s += k; /* tile */
  for (int k = 0; k < grid; k++) s += k; /* grid */
  for (int k = 0; k < count; k++) s += k; /* count */
  for (int k = 0; k < plain; k++) s += k; /* plain */
  close(fd);
  return (int)(s & 1);
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"k < tile", 256 * 256}, {"k < grid", 1536}, {"k < count", DefaultTrip}, {"k < plain", DefaultTrip}})
}

// TestFormatKeys checks the keys formatKeys finds before the storing
// conversions of a scanf format.
func TestFormatKeys(t *testing.T) {
	tests := []struct {
		format string
		want   []string
	}{
		{"PYR1 grid=%d tile=%d", []string{"grid", "tile"}},
		{"n: %ld %% x = %lf%*d name=%31[^,],%d", []string{"n", "x", "name", ""}},
		{"%d %d", []string{"", ""}},
		{"size=%", nil},
	}
	for _, tt := range tests {
		if got := formatKeys(tt.format); !slices.Equal(got, tt.want) {
			t.Errorf("formatKeys(%q) = %q, want %q", tt.format, got, tt.want)
		}
	}
}

// TestComparatorCalls checks a qsort through a comparator the program
// defines: each of its n log2 n comparisons also calls a program function
// (CallOps), on top of the comparison; one whose comparator is not known
// costs the comparisons only.
func TestComparatorCalls(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
extern int (*pick(void))(const void *, const void *);
int main(void) {
  static double v[1024];
  qsort(v, 1024, sizeof(double), cmp_double); /* own */
  int (*f)(const void *, const void *) = pick();
  qsort(v, 1024, sizeof(double), f); /* other */
  return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	for _, tc := range []struct {
		marker string
		work   float64
	}{{"own", 1024 * 10 * (20 + CallOps)}, {"other", 1024 * 10 * 20}} {
		file, line := lineOf(t, tc.marker, src)
		n := nodeAt(g.Entry, UnknownNode, file, line)
		if n == nil {
			t.Fatalf("no call at %q", tc.marker)
		}
		if n.Work != tc.work {
			t.Errorf("%s: work %v, want %v", tc.marker, n.Work, tc.work)
		}
	}
}

// TestScaledDraws checks loop bounds made of a uniform draw: one scaled by
// K and truncated runs (K-1)/2 on average (6 + 4.5 held in an int: 10),
// one left real K/2.
func TestScaledDraws(t *testing.T) {
	src := []source{cSrc(`#include <stdlib.h>
#include <stdint.h>
static uint64_t state = 88172645463325252ULL;
static double urand(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (double)(state >> 11) * (1.0 / 9007199254740992.0);
}
static double image(void) {
  double s = 0;
  int nobj = 6 + (int)(urand() * 10);
  for (int o = 0; o < nobj; o++) s += o * urand(); /* objects */
  for (int k = 0; k < 400 * drand48(); k++) s += k; /* real */
  return s;
}
int main(void) {
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += image();
  return (int)s;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTripsVia(t, g, src, "s += image()", []tripWant{{"objects", 10}, {"real", 200}})
}

// TestToggledFields checks members a program sets and resets as it runs
// (a cached page's dirty flag, 1 when written and 0 when written back;
// its page number, -1 when free): a read sees neither value, as the walk
// visits each loop body once and would see the reset as it was before
// the loop. A member stored one value keeps it.
func TestToggledFields(t *testing.T) {
	src := []source{cSrc(`#include <unistd.h>
typedef struct { int page; int dirty; char s[4096]; } cpage;
typedef struct { int n; } config;
static cpage cache[8];
static int fd;
static void writeback(cpage *c) {
  if (c->page >= 0 && c->dirty) { /* written back */
    pwrite(fd, c->s, sizeof c->s, (off_t)c->page * 4096);
    c->dirty = 0;
  }
}
static cpage *get(int page, int w) {
  cpage *c = &cache[page % 8];
  if (c->page != page) {
    writeback(c);
    pread(fd, c->s, sizeof c->s, (off_t)page * 4096);
    c->page = page;
  }
  if (w) c->dirty = 1;
  return c;
}
int main(void) {
  config cfg;
  cfg.n = 64;
  for (int i = 0; i < 8; i++) { cache[i].page = -1; cache[i].dirty = 0; }
  long s = 0;
  for (int k = 0; k < cfg.n; k++) /* configured */
    s += get(k * 7, k & 1)->s[0];
  return (int)s;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkTrips(t, g, src, []tripWant{{"configured", 64}})
	var writeback *Node
	for _, f := range g.Funcs {
		if f.Name == "writeback" && f.Reachable {
			writeback = f
		}
	}
	if writeback == nil {
		t.Fatal("writeback not reached")
	}
	checkOdds(t, src, func(string) *Node { return writeback }, []oddsCase{{"written back", UnknownOdds}})
}

// checkWorkVia checks the work per iteration of the loop marked loop in
// the function the call marked via reaches.
func checkWorkVia(t *testing.T, g *Graph, srcs []source, via, loop string, want float64) {
	t.Helper()
	if l := loopVia(t, g, srcs, []string{via}, loop); l.Work != want {
		t.Errorf("%s: work %v per iteration, want %v", loop, l.Work, want)
	}
}
