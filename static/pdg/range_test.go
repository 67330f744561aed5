package pdg

import "testing"

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
	for _, c := range []struct {
		marker string
		odds   float64
	}{
		{"below", 40.0 / 4000},
		{"mirrored", 40.0 / 4000},
		{"last", 1.0 / 4000},
		{"all but one", 3999.0 / 4000},
		{"stepped", 25.0 / 1000}, // j = 3901, 3905, …, 3997
		{"first forty", 40.0 / 96},
		{"never", UnknownOdds}, // left to the other rules
	} {
		file, line := lineOf(t, c.marker, src)
		n := nodeAt(roots[file], BranchNode, file, line)
		if n == nil {
			t.Fatalf("no branch at %q", c.marker)
		}
		if n.Odds != c.odds {
			t.Errorf("%s: odds %v, want %v", c.marker, n.Odds, c.odds)
		}
	}
}
