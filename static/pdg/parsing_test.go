package pdg

import "testing"

// Parsing through a string stream or an internal file costs what the
// stream or Fortran runtime costs, as compute, and the values extracted
// are unknown after it.
func TestParsingCosts(t *testing.T) {
	cpp := func(stmt string) []source {
		return []source{cppSrc(`#include <fstream>
#include <sstream>
#include <string>
int main() {
    std::string line = "12 3.5";
    std::istringstream ss(line);
    long a = 7;
    double b = 0;
    ` + stmt + `
    std::ofstream out("out.txt");
    for (long i = 0; i < a; i++) out << i << '\n'; /* a loop */
    return 0;
}
`)}
	}
	f90 := func(stmt string) []source {
		return []source{f90("parse", `program parse
  character(len=80) :: line
  character(len=8) :: sid
  integer :: y, m, d
  real(kind=8) :: amount
  character(len=1) :: flag
  line = 'S01 2001 2 3 1.5 A'
  `+stmt+`
end program parse
`)}
	}
	for _, c := range []struct {
		name       string
		with, base []source
		ops        float64
	}{
		// 2 × StreamCallOps + ScanIntOps + ScanFloatOps
		{"string stream extraction", cpp("ss >> a >> b;"), cpp(""), 2*40 + 300 + 600},
		// FortranStatementOps + 2 × FortranCharOps + 3 × FortranIntOps
		// + FortranRealReadOps
		{"internal READ", f90("read(line, *) sid, y, m, d, amount, flag"), f90(""), 400 + 2*150 + 3*180 + 500},
	} {
		with, base := buildSources(t, Options{}, c.with...), buildSources(t, Options{}, c.base...)
		if got := with.Entry.Work - base.Entry.Work; got != c.ops {
			t.Errorf("%s: %v operations, want %v", c.name, got, c.ops)
		}
	}
	for stmt, trip := range map[string]int64{"": 7, "ss >> a >> b;": DefaultTrip} {
		g := buildSources(t, Options{}, cpp(stmt)...)
		if l := loopVia(t, g, cpp(stmt), nil, "a loop"); l.Trip != trip {
			t.Errorf("%q: trip %d (%s), want %d", stmt, l.Trip, l.TripSource, trip)
		}
	}
}

// A member counted up in one function and tested in another reaches its
// bound by steps the test does not see: DefaultIncrement at a time.
func TestCounterSteppedElsewhere(t *testing.T) {
	src := []source{cSrc(`#include <unistd.h>
struct log { int fd; long since; };
static void flush(struct log *lg) {
    if (lg->since >= 2048) { /* sync test */
        fsync(lg->fd);
        lg->since = 0;
    }
}
static void append(struct log *lg) {
    lg->since++;
    flush(lg);
}
int main(void) {
    struct log lg = {1, 0};
    for (int i = 0; i < 100000; i++) append(&lg);
    return 0;
}
`)}
	g := buildSources(t, Options{}, src...)
	var flush *Node
	for _, f := range g.Funcs {
		if f.Name == "flush" {
			flush = f
		}
	}
	if flush == nil {
		t.Fatal("no flush")
	}
	file, line := lineOf(t, "sync test", src)
	b := nodeAt(flush, BranchNode, file, line)
	if want := float64(DefaultIncrement) / 2048; b == nil || b.Odds != want {
		t.Errorf("branch %+v, want odds %g", b, want)
	}
}
