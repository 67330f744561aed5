package pdg

import (
	"math"
	"testing"
)

// A condition comparing the variable of a counted loop around with a
// value the loop does not change holds for the share of the variable's
// values that satisfy it.
func TestLoopVariableComparisonOdds(t *testing.T) {
	src := []source{
		{"prog.c", `#include <stdio.h>
static void dump(FILE *f, int n, int keep) {
  for (int i = 0; i < n; i++) {
    if (i < keep) fprintf(f, "%d\n", i); /* below */
    if (keep > i) fputc('a', f); /* mirrored */
    if (i == n - 1) fputc('\n', f); /* last */
    if (i != 7) fputc('b', f); /* all but one */
  }
  for (int j = 1; j <= n; j += 4) {
    if (j >= n - 99) fputc('c', f); /* stepped */
  }
}
int main(void) {
  FILE *f = fopen("out.txt", "w");
  dump(f, 4000, 40); /* call */
  fclose(f);
  return 0;
}
`},
		{"prog.f90", `program p
  integer, parameter :: nrec = 96
  integer :: q, u
  open(newunit=u, file='t.txt', status='replace', action='write')
  do q = 1, nrec
     if (q <= 40) write(u, '(i8)') q ! first forty
     if (q > nrec) write(u, '(i8)') q ! never
  end do
  close(u)
end program p
`},
	}
	roots := map[string]*Node{}
	for _, s := range src {
		g := buildSources(t, Options{}, s)
		roots[s.name] = g.Entry
	}
	file, line := lineOf(t, "call", src)
	if call := nodeAt(roots[file], CallNode, file, line); call != nil && call.Target != nil {
		roots[file] = call.Target
	} else {
		t.Fatal("no call of dump")
	}
	checkOdds(t, src, func(file string) *Node { return roots[file] }, []oddsCase{
		{"below", 40.0 / 4000},
		{"mirrored", 40.0 / 4000},
		{"last", 1.0 / 4000},
		{"all but one", 3999.0 / 4000},
		{"stepped", 25.0 / 1000}, // j = 3901, 3905, …, 3997
		{"first forty", 40.0 / 96},
		{"never", UnknownOdds}, // left to the other rules
	})
}

// A character a loop scans equals a character literal once per field,
// and a newline once per line: in a file the program wrote, its lines
// over its bytes.
func TestCharacterOdds(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
int main(void) {
  FILE *f = fopen("seq.fa", "w");
  for (int i = 0; i < 500; i++) fprintf(f, ">s%d\nACGTACGTACGTACGTACG\n", i);
  fclose(f);
  f = fopen("seq.fa", "r");
  int c;
  long h = 0, n = 0;
  while ((c = getc(f)) != EOF) {
    if (c == '>') h++; /* marker */
    if (c != '\n') n++; /* not a newline */
  }
  fclose(f);
  char line[64] = "a,b,c";
  for (int i = 0; i < 64; i++) {
    if (line[i] == ',') n++; /* comma */
    if (line[i] == '\n') h++; /* line end */
  }
  if (c == 'x') n++; /* outside a loop */
  return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	checkOdds(t, src, func(string) *Node { return g.Entry }, []oddsCase{
		{"marker", 1.0 / 16},
		{"not a newline", 1 - 1000.0/15500}, // 500 × (">s", 8 digits, "\n", 19 bases, "\n")
		{"comma", 1.0 / 16},
		{"line end", 1.0 / 80},
		{"outside a loop", UnknownOdds},
	})
}

// An oddsCase is a branch, found by a marker on its line, and its odds.
type oddsCase struct {
	marker string
	odds   float64
}

// checkOdds checks the odds of the branches of the cases, found in the
// graph whose node root gives for the file of each marker.
func checkOdds(t *testing.T, src []source, root func(file string) *Node, cases []oddsCase) {
	t.Helper()
	for _, c := range cases {
		file, line := lineOf(t, c.marker, src)
		n := nodeAt(root(file), BranchNode, file, line)
		if n == nil {
			t.Fatalf("no branch at %q", c.marker)
		}
		if math.Abs(n.Odds-c.odds) > 1e-12 {
			t.Errorf("%s: odds %v, want %v", c.marker, n.Odds, c.odds)
		}
	}
}

// A buffer with room left ("n < CAP", the negation of a counter reaching
// its bound) has it all the other times, and a loop without a condition
// that leaves on such a test runs about once: 1/odds times.
func TestRoomLeftOdds(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define CAP 64
static int buf[CAP], n;
static void put(FILE *f, int v) {
  if (n < CAP) { /* has space */
    buf[n++] = v;
    return;
  }
  fwrite(buf, sizeof buf, 1, f);
  n = 0;
}
static void insert(FILE *f, int v) {
  for (;;) { /* retry */
    if (CAP > n) { /* mirrored room */
      buf[n++] = v;
      return;
    }
    fwrite(buf, sizeof buf, 1, f);
    n = 0;
  }
}
int main(void) {
  FILE *f = fopen("out.bin", "wb");
  for (int i = 0; i < 1000; i++) put(f, i);
  insert(f, 1);
  fclose(f);
  return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	funcs := map[string]*Node{}
	for _, fn := range g.Funcs {
		funcs[fn.Name] = fn
	}
	checkOdds(t, src, func(string) *Node { return funcs["put"] }, []oddsCase{{"has space", 1 - 1.0/64}})
	file, line := lineOf(t, "retry", src)
	l := nodeAt(funcs["insert"], LoopNode, file, line)
	if l == nil {
		t.Fatal("no retry loop")
	}
	if l.Trip != 1 || l.TripSource != TripOdds {
		t.Errorf("retry loop runs %d times (%s), want 1 (%s)", l.Trip, l.TripSource, TripOdds)
	}
	checkOdds(t, src, func(string) *Node { return l }, []oddsCase{{"mirrored room", 1 - 1.0/64}})
}
