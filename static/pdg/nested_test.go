package pdg

import (
	"math"
	"testing"
)

// TestNestedBounds: a counted loop whose bounds depend on the variables
// of the counted loops around it runs its count with those at their mean
// values (a triangular nest runs about half its square); a Fortran
// section assignment costs the elements of its section.
func TestNestedBounds(t *testing.T) {
	c := []source{cSrc(`#include <stdio.h>
#define N 100
int main(void) {
    FILE *f = fopen("lu.txt", "w");
    for (int i = 0; i < N; i++)               /* i loop */
        for (int j = i + 1; j < N; j++)       /* j loop */
            for (int k = j; k < N; k += 2)    /* k loop */
                fputc('x', f);
    return 0;
}
`)}
	f90 := []source{{"prog.f90", `program chol
  implicit none
  integer, parameter :: nt = 12, nb = 64
  real(8) :: a(nb, nb), c(nb, nb)
  integer :: i, j, k
  do k = 1, nt                ! k loop
     do i = k + 1, nt         ! i loop
        do j = 1, nb          ! j loop
           c(:, j) = c(:, j) - a(:, k) * a(j, k)   ! column update
        end do
     end do
  end do
end program
`}}
	for _, tc := range []struct {
		srcs []source
		loop string
		trip int64
		src  TripSource
	}{
		{c, "i loop", 100, TripConstant},
		{c, "j loop", 50, TripBound},  // i at its mean, 49 (49.5 truncated): j from 50 to 99
		{c, "k loop", 13, TripBound},  // j at its mean, 50 + 49/2 = 74: k = 74, 76, ..., 98
		{f90, "i loop", 6, TripBound}, // k at its mean, 1 + 11/2 = 6: i = 7..12
	} {
		l := entryLoop(t, buildSources(t, Options{}, tc.srcs...), tc.srcs, tc.loop)
		if l.Trip != tc.trip || l.TripSource != tc.src {
			t.Errorf("%s: trip %d (%s), want %d (%s)", tc.loop, l.Trip, l.TripSource, tc.trip, tc.src)
		}
	}
	l := entryLoop(t, buildSources(t, Options{}, f90...), f90, "j loop")
	// The column update: a multiplication, a subtraction and the store,
	// on each of the nb elements of the column, then the step of the
	// counted loop; a loop that only stores into arrays is vectorised.
	if want := (3.0*64 + 1) / VectorWidth; l.Work != want {
		t.Errorf("column update: work %v per iteration, want %v", l.Work, want)
	}
}

// TestNestedCounter: a loop whose counter is only counted up in a nested
// loop runs at most to its bound (three header fields, however many
// lines hold them).
func TestNestedCounter(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "r");
    char line[256];
    int fields[3], nf = 0;
    while (nf < 3 && fgets(line, sizeof line, f)) {   /* header loop */
        char *p = line, *end;
        while (nf < 3) {
            long v = strtol(p, &end, 10);
            if (end == p) break;
            fields[nf++] = (int)v;
            p = end;
        }
    }
    return fields[0];
}
`)}
	l := entryLoop(t, buildSources(t, Options{}, src...), src, "header loop")
	if l.Trip != 3 || l.TripSource != TripBound {
		t.Errorf("header loop: trip %d (%s), want 3 (bound)", l.Trip, l.TripSource)
	}
}

// TestSkippedIterations checks that the statements after "if (c)
// continue" (Fortran CYCLE) run on the other side of the branch when the
// odds of c are weighed, such as those of a scan selecting the records of
// a key (one in sqrt(trip) match); the skips of unweighed conditions are
// taken to be rare, and what follows them runs every time.
func TestSkippedIterations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		src     source
		odds    float64
		skipped bool
	}{
		{"continue on an unweighed condition", cSrc(`#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double x[1000];
  for (int i = 0; i < 1000; i++) x[i] = rand();
  FILE *f = fopen("pos.txt", "w");
  for (int i = 0; i < 1000; i++) {
    if (x[i] < 0.5) continue; // skip
    fprintf(f, "%g\n", x[i]);
  }
  fclose(f);
  return 0;
}`), UnknownOdds, false},
		{"an unweighed test or a draw", cSrc(`#include <stdio.h>
struct flight { double t0, t1; };
static double urand(unsigned long *s) { *s = *s * 6364136223846793005UL + 1; return (*s >> 11) * (1.0 / 9007199254740992.0); }
int main(void) {
  static struct flight fl[400];
  unsigned long s = 1;
  FILE *f = fopen("feed.csv", "w");
  for (int t = 0; t < 9000; t++)
    for (int i = 0; i < 400; i++) {
      if (t < fl[i].t0 || t > fl[i].t1 || urand(&s) > 0.45) continue; // skip
      fprintf(f, "%d,%d\n", t, i);
    }
  fclose(f);
  return 0;
}`), 0.55, true},
		{"records of a key", cSrc(`#include <stdio.h>
#include <stdlib.h>
struct rec { int key; long pos; };
int main(void) {
  static struct rec r[10000];
  int k = rand();
  FILE *f = fopen("data.bin", "rb");
  char buf[512];
  for (int i = 0; i < 10000; i++) {
    if (r[i].key != k) continue; // skip
    fseek(f, r[i].pos, SEEK_SET);
    fread(buf, 1, sizeof buf, f);
  }
  fclose(f);
  return 0;
}`), 0.99, true},
		{"Fortran CYCLE on a key", f90("cyc", `program p
  integer :: idx(400), i, want, s
  want = 7
  s = 0
  do i = 1, 400
    idx(i) = mod(i, 20)
  end do
  do i = 1, 400
    if (idx(i) /= want) cycle ! skip
    s = s + 1
    write(*, *) i
  end do
end program p
`), 0.95, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := []source{tc.src}
			g := buildSources(t, Options{}, srcs...)
			// The last branch of the line: a call in a condition that
			// does not always run has a branch of its own before it.
			file, line := lineOf(t, "skip", srcs)
			var b *Node
			visitNodes(g.Entry, func(n *Node) {
				if n.Kind == BranchNode && n.Pos.File == file && n.Pos.Line == line {
					b = n
				}
			})
			if b == nil {
				t.Fatal("no branch marked skip")
			}
			if math.Abs(b.Odds-tc.odds) > 1e-9 || len(b.Children) != 2 {
				t.Fatalf("branch odds %g with %d alternatives, want %g and 2", b.Odds, len(b.Children), tc.odds)
			}
			if under := countKind(b, IONode) > 0; under != tc.skipped || countKind(b.Children[0], IONode) != 0 {
				t.Errorf("the I/O after the skip is under the branch: %v, want %v, on its other side only", under, tc.skipped)
			}
		})
	}
}

// countKind counts the nodes of kind under n.
func countKind(n *Node, kind Kind) int {
	c := 0
	for _, ch := range n.Children {
		if ch.Kind == kind {
			c++
		}
		c += countKind(ch, kind)
	}
	return c
}

// TestCacheLookup checks that a function keeping a cache (it compares a
// member with its parameter and stores the parameter there on a miss)
// finds its key CacheHitOdds of the time, and that what follows the
// early return of a hit runs on the other side of the branch.
func TestCacheLookup(t *testing.T) {
	srcs := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
struct slot { int id; char buf[4096]; };
static struct slot cache;
static FILE *vol;
static const char *get(int id) {
  if (cache.id == id) // hit
    return cache.buf;
  fseek(vol, (long)id * 4096, SEEK_SET);
  fread(cache.buf, 1, 4096, vol);
  cache.id = id;
  return cache.buf;
}
static const char *peek(int id) {
  if (cache.id == id) // no store
    return cache.buf;
  return NULL;
}
int main(void) {
  vol = fopen("v.bin", "rb");
  for (int i = 0; i < 1000; i++) { get(rand() % 100); peek(i); }
  return 0;
}`)}
	g := buildSources(t, Options{}, srcs...)
	for _, tc := range []struct {
		fn, marker string
		odds       float64
		rest       bool
	}{{"get", "hit", CacheHitOdds, true}, {"peek", "no store", UnknownOdds, false}} {
		var b *Node
		file, line := lineOf(t, tc.marker, srcs)
		for _, f := range g.Funcs {
			if f.Name == tc.fn {
				b = nodeAt(f, BranchNode, file, line)
			}
		}
		if b == nil {
			t.Fatalf("%s: no branch", tc.fn)
		}
		if math.Abs(b.Odds-tc.odds) > 1e-9 || (countKind(b.Children[1], IONode) > 0) != tc.rest {
			t.Errorf("%s: odds %g, I/O on the other side %v; want %g, %v", tc.fn, b.Odds, countKind(b.Children[1], IONode) > 0, tc.odds, tc.rest)
		}
	}
}

// visitNodes calls f on every node under n, depth first, without entering
// callees.
func visitNodes(n *Node, f func(*Node)) {
	for _, c := range n.Children {
		f(c)
		visitNodes(c, f)
	}
}

// TestChunkedSections: the size of a chunk taken as "min(block, rest)"
// is the block, the size of all chunks but the last, in a loop over the
// chunk and in an assignment to a section of that size.
func TestChunkedSections(t *testing.T) {
	f90 := []source{{"prog.f90", `program pcm
  implicit none
  integer, parameter :: nsamp = 132300, block = 4096
  real(8) :: x(nsamp)
  integer(2) :: buf(block)
  integer :: n0, nb, i
  buf = 3
  do n0 = 1, nsamp, block                 ! chunk loop
     nb = min(block, nsamp - n0 + 1)
     do i = 1, nb                         ! sample loop
        x(n0 + i - 1) = buf(i)
     end do
     do i = 1, 2                          ! scale loop
        x(n0:n0 + nb - 1) = real(buf(1:nb), 8) / 32768.0d0
     end do
     do i = 1, 2                          ! element loop
        x(n0) = real(buf(1), 8) / 32768.0d0
     end do
  end do
  print *, x(1)
end program
`}}
	g := buildSources(t, Options{}, f90...)
	if l := entryLoop(t, g, f90, "sample loop"); l.Trip != 4096 || l.TripSource != TripBound {
		t.Errorf("sample loop: trip %d (%s), want 4096 (bound)", l.Trip, l.TripSource)
	}
	// The conversion, the division and the store on each of the 4096
	// elements of the section: 4095 elements more than the same
	// assignment to one element costs.
	elem := entryLoop(t, g, f90, "element loop")
	l := entryLoop(t, g, f90, "scale loop")
	if want := elem.Work + 3*4095; l.Work != want {
		t.Errorf("scale loop: work %v per iteration, want %v", l.Work, want)
	}
}
