package pdg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/static/cfront"
	"github.com/iolens/iolens/static/fortran"
	"github.com/iolens/iolens/static/ir"
)

// A source file of a propagation test: a name whose extension picks the
// front-end, and its text.
type source struct{ name, text string }

// buildSources parses the sources with their front-ends (failing on
// their errors) and builds the graph.
func buildSources(t *testing.T, opts Options, srcs ...source) *Graph {
	t.Helper()
	prog := &ir.Program{}
	for _, s := range srcs {
		var f *ir.File
		var err error
		switch filepath.Ext(s.name) {
		case ".f90", ".f":
			f, err = fortran.Parse(s.name, []byte(s.text))
		default:
			f, err = cfront.Parse(s.name, []byte(s.text))
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Errors) > 0 {
			t.Fatalf("%s: %v", s.name, f.Errors)
		}
		prog.Files = append(prog.Files, f)
	}
	return mustBuild(t, prog, opts)
}

// lineOf returns the file and line of the only source line containing
// marker.
func lineOf(t *testing.T, marker string, srcs []source) (string, int) {
	t.Helper()
	file, line := "", 0
	for _, s := range srcs {
		for i, l := range strings.Split(s.text, "\n") {
			if strings.Contains(l, marker) {
				if line != 0 {
					t.Fatalf("marker %q is on several lines", marker)
				}
				file, line = s.name, i+1
			}
		}
	}
	if line == 0 {
		t.Fatalf("marker %q is on no line", marker)
	}
	return file, line
}

// nodeAt returns the first node of kind at file:line under n, depth
// first, without entering callees.
func nodeAt(n *Node, kind Kind, file string, line int) *Node {
	for _, c := range n.Children {
		if c.Kind == kind && c.Pos.Line == line && c.Pos.File == file {
			return c
		}
		if f := nodeAt(c, kind, file, line); f != nil {
			return f
		}
	}
	return nil
}

// entryLoop returns the loop on the line marked marker in the entry
// function (callees not entered).
func entryLoop(t *testing.T, g *Graph, srcs []source, marker string) *Node {
	t.Helper()
	return entryNode(t, g, srcs, LoopNode, marker)
}

// tripWant is the trip count expected of the loop on the line marked
// loop in the entry function.
type tripWant struct {
	loop string
	trip int64
}

// checkTrips checks the trip counts of loops of the entry function.
func checkTrips(t *testing.T, g *Graph, srcs []source, wants []tripWant) {
	t.Helper()
	for _, w := range wants {
		if l := entryLoop(t, g, srcs, w.loop); l.Trip != w.trip {
			t.Errorf("%s: trip %d (%s), want %d", w.loop, l.Trip, l.TripSource, w.trip)
		}
	}
}

// bytesWant is the data one execution of the I/O on a marked line moves.
type bytesWant struct {
	marker string
	bytes  int64
}

// checkBytes checks the bytes of I/O nodes of the entry function.
func checkBytes(t *testing.T, g *Graph, srcs []source, wants []bytesWant) {
	t.Helper()
	for _, w := range wants {
		n := entryNode(t, g, srcs, IONode, w.marker)
		if !n.IO.BytesKnown || n.IO.Bytes != w.bytes {
			t.Errorf("%s: %d bytes (known %v), want %d", w.marker, n.IO.Bytes, n.IO.BytesKnown, w.bytes)
		}
	}
}

// entryNode returns the node of kind on the line marked marker in the
// entry function (callees not entered).
func entryNode(t *testing.T, g *Graph, srcs []source, kind Kind, marker string) *Node {
	t.Helper()
	file, line := lineOf(t, marker, srcs)
	n := nodeAt(g.Entry, kind, file, line)
	if n == nil {
		t.Fatalf("no %s node at %s:%d (%q)", kind, file, line, marker)
	}
	return n
}

// loopVia returns the loop on the line marked loop in the function
// instance reached from the entry through the calls on the lines marked
// by path, in order.
func loopVia(t *testing.T, g *Graph, srcs []source, path []string, loop string) *Node {
	t.Helper()
	n := g.Entry
	for _, m := range path {
		file, line := lineOf(t, m, srcs)
		c := nodeAt(n, CallNode, file, line)
		if c == nil || c.Target == nil {
			t.Fatalf("no followed call at %s:%d (%q) in %s", file, line, m, n.Name)
		}
		n = c.Target
	}
	file, line := lineOf(t, loop, srcs)
	l := nodeAt(n, LoopNode, file, line)
	if l == nil {
		t.Fatalf("no loop at %s:%d (%q) in %s", file, line, loop, n.Name)
	}
	return l
}

// propagationCase is a program, the calls leading from its entry to a
// function instance, and the trip count and source expected of a loop of
// that instance.
type propagationCase struct {
	name   string
	srcs   []source
	args   []string
	path   []string // markers of the call lines, from the entry on
	loop   string   // marker of the loop line
	trip   int64
	source TripSource
}

func runPropagation(t *testing.T, cases []propagationCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := buildSources(t, Options{Args: c.args}, c.srcs...)
			l := loopVia(t, g, c.srcs, c.path, c.loop)
			if l.Trip != c.trip || l.TripSource != c.source {
				t.Errorf("trip %d (%s), want %d (%s)", l.Trip, l.TripSource, c.trip, c.source)
			}
		})
	}
}

// emitModule is a Fortran module whose procedure emit writes k records.
const emitModule = `module io
contains
  subroutine emit(k)
    integer, intent(in) :: k
    integer :: i
    do i = 1, k ! emit loop
      write(20, *) i
    end do
  end subroutine emit
end module io
`

// twoCallsMain calls writer with two expressions of a PARAMETER.
const twoCallsMain = `program main
  integer, parameter :: n = 400
  call writer(n / 2)
  call writer(2 * n + 1)
end program main
`

// f90 is a Fortran source file of a test.
func f90(name, text string) source { return source{name + ".f90", text} }

// writerF90 is an external subroutine writing k records, in its own file.
const writerF90 = `subroutine writer(k)
  integer, intent(in) :: k
  integer :: i
  do i = 1, k ! writer loop
    write(20, *) i
  end do
end subroutine writer
`

// configF90 is a module of constants and variables, in its own file.
const configF90 = `module config
  integer, parameter :: nrec = 5000
  integer :: nout = 300
end module config
`

func TestFortranCallPropagation(t *testing.T) {
	// ../testdata/solver.f90: a PARAMETER of the main program passed to an
	// internal procedure and to an external subroutine, inside a time loop.
	text, err := os.ReadFile(filepath.Join("..", "testdata", "solver.f90"))
	if err != nil {
		t.Fatal(err)
	}
	solver := []source{f90("solver", string(text))}
	runPropagation(t, []propagationCase{
		{name: "parameter to an external subroutine", srcs: solver,
			path: []string{"call dump(u, n, step)"}, loop: "do i = 1, n", trip: 200000, source: TripParameter},
		{name: "parameter to an internal procedure", srcs: solver,
			path: []string{"call relax(u, n)"}, loop: "do i = 2, m - 1", trip: 199998, source: TripParameter},
		{name: "parameter to a subroutine of another file", srcs: []source{f90("main", `program main
  integer, parameter :: nsteps = 750
  call writer(nsteps)
end program main
`), f90("writer", writerF90)},
			path: []string{"call writer(nsteps)"}, loop: "writer loop", trip: 750, source: TripParameter},
		{name: "parameter to a module procedure", srcs: []source{f90("modproc", emitModule+`
program main
  use io
  integer, parameter :: nrec = 640
  call emit(nrec)
end program main
`)},
			path: []string{"call emit(nrec)"}, loop: "emit loop", trip: 640, source: TripParameter},
		{name: "module procedure of another file", srcs: []source{f90("io", emitModule), f90("main", `program main
  use io
  integer, parameter :: nrec = 640
  call emit(nrec * 2)
end program main
`)},
			path: []string{"call emit(nrec * 2)"}, loop: "emit loop", trip: 1280, source: TripParameter},
		{name: "expression of a parameter", srcs: []source{f90("expr", twoCallsMain), f90("writer", writerF90)},
			path: []string{"call writer(n / 2)"}, loop: "writer loop", trip: 200, source: TripParameter},
		{name: "second context of the same callee", srcs: []source{f90("expr", twoCallsMain), f90("writer", writerF90)},
			path: []string{"call writer(2 * n + 1)"}, loop: "writer loop", trip: 801, source: TripParameter},
		{name: "variable assigned a constant, in a time loop", srcs: []source{f90("var", `program main
  integer :: nx, step
  nx = 96
  do step = 1, 10
    call writer(nx)
  end do
end program main
`), f90("writer", writerF90)},
			path: []string{"call writer(nx)"}, loop: "writer loop", trip: 96, source: TripParameter},
		{name: "through two calls", srcs: []source{f90("two", `program main
  integer, parameter :: n = 30
  call middle(n)
end program main

subroutine middle(m)
  integer :: m
  call writer(m * m)
end subroutine middle
`), f90("writer", writerF90)},
			path: []string{"call middle(n)", "call writer(m * m)"}, loop: "writer loop", trip: 900, source: TripParameter},
		{name: "program argument", args: []string{"4321"}, srcs: []source{f90("args", `program main
  character(len=32) :: arg
  integer :: n
  call get_command_argument(1, arg)
  read(arg, *) n
  call writer(n)
end program main
`), f90("writer", writerF90)},
			path: []string{"call writer(n)"}, loop: "writer loop", trip: 4321, source: TripArgument},
		{name: "host's parameter by host association", srcs: []source{f90("host", `program main
  integer, parameter :: nb = 48
  call inner()
contains
  subroutine inner()
    integer :: i
    do i = 1, nb ! inner loop
      write(20, *) i
    end do
  end subroutine inner
end program main
`)},
			path: []string{"call inner()"}, loop: "inner loop", trip: 48, source: TripConstant},
		{name: "host's variable by host association", srcs: []source{f90("host", `program main
  integer :: nx, step
  nx = 250
  do step = 1, 4
    call inner()
  end do
contains
  subroutine inner()
    integer :: i
    do i = 1, nx / 5 ! inner loop
      write(20, *) i
    end do
  end subroutine inner
end program main
`)},
			path: []string{"call inner()"}, loop: "inner loop", trip: 50, source: TripParameter},
		{name: "host variable through a sibling", srcs: []source{f90("host", `program main
  integer :: nx
  nx = 70
  call first()
contains
  subroutine first()
    call second()
  end subroutine first
  subroutine second()
    integer :: i
    do i = 1, nx ! second loop
      write(20, *) i
    end do
  end subroutine second
end program main
`)},
			path: []string{"call first()", "call second()"}, loop: "second loop", trip: 70, source: TripParameter},
		{name: "host's dummy argument and array", srcs: []source{f90("outer", `program main
  call outer(500)
end program main

subroutine outer(n)
  integer, intent(in) :: n
  real :: work(n)
  call inner()
contains
  subroutine inner()
    integer :: i
    do i = 1, size(work) ! inner loop
      write(12, *) work(i)
    end do
  end subroutine inner
end subroutine outer
`)},
			path: []string{"call outer(500)", "call inner()"}, loop: "inner loop", trip: 500, source: TripParameter},
		{name: "host's allocated array", srcs: []source{f90("alloc", `program main
  real, allocatable :: u(:)
  integer :: m
  m = 300
  allocate(u(m + 1))
  call inner()
contains
  subroutine inner()
    integer :: i
    do i = 1, ubound(u, 1) ! inner loop
      write(12, *) u(i)
    end do
  end subroutine inner
end program main
`)},
			path: []string{"call inner()"}, loop: "inner loop", trip: 301, source: TripParameter},
		{name: "module parameter by USE", srcs: []source{f90("config", configF90), f90("use", `program main
  use config
  integer :: i
  do i = 1, nrec ! main loop
    write(20, *) i
  end do
end program main
`)},
			loop: "main loop", trip: 5000, source: TripConstant},
		{name: "module variable by USE in a callee", srcs: []source{f90("config", configF90), f90("use", `program main
  call emit()
end program main

subroutine emit()
  use config
  integer :: i
  do i = 1, nout ! emit loop
    write(20, *) i
  end do
end subroutine emit
`)},
			path: []string{"call emit()"}, loop: "emit loop", trip: 300, source: TripPropagated},
		{name: "module parameter passed", srcs: []source{f90("config", configF90), f90("use", `program main
  use config
  call writer(nrec / 10)
end program main
`), f90("writer", writerF90)},
			path: []string{"call writer(nrec / 10)"}, loop: "writer loop", trip: 500, source: TripParameter},
		{name: "explicit-shape dummy", srcs: []source{f90("explicit", `program main
  real :: x(1000)
  call put(x, 1000)
end program main

subroutine put(a, len)
  integer :: len
  real :: a(len)
  integer :: i
  do i = 1, size(a) ! put loop
    write(41, *) a(i)
  end do
end subroutine put
`)},
			path: []string{"call put(x, 1000)"}, loop: "put loop", trip: 1000, source: TripParameter},
		{name: "assumed-shape dummy of a declared array", srcs: []source{f90("shape", `program main
  real :: x(1000)
  call put(x)
end program main

subroutine put(a)
  real, intent(in) :: a(:)
  integer :: i
  do i = 1, size(a) ! put loop
    write(40, *) a(i)
  end do
end subroutine put
`)},
			path: []string{"call put(x)"}, loop: "put loop", trip: 1000, source: TripParameter},
		{name: "assumed-shape dummy of an allocated array", srcs: []source{f90("shape", `module m
contains
  subroutine put(a)
    real, intent(in) :: a(:, :)
    integer :: i
    do i = lbound(a, 2), ubound(a, 2) ! put loop
      write(40, *) a(1, i)
    end do
  end subroutine put
end module m

program main
  use m
  real, allocatable :: y(:, :)
  integer :: nx
  nx = 64
  allocate(y(nx, 2 * nx))
  call put(y)
end program main
`)},
			path: []string{"call put(y)"}, loop: "put loop", trip: 128, source: TripParameter},
		{name: "size of a local array", srcs: []source{f90("local", `program main
  real :: x(0:99)
  integer :: i
  do i = 1, size(x) ! main loop
    write(40, *) x(i)
  end do
end program main
`)},
			loop: "main loop", trip: 100, source: TripLiteral},
		{name: "ubound of a local array", srcs: []source{f90("local", `program main
  integer, parameter :: n = 50
  real :: x(-n:n)
  integer :: i
  do i = lbound(x, 1), ubound(x, 1) ! main loop
    write(40, *) x(i)
  end do
end program main
`)},
			loop: "main loop", trip: 101, source: TripConstant},
	})
}

// bumpF90 is a program passing n = 10 to a subroutine bump with the
// given body, then to writer.
func bumpF90(body string) string {
	return `program main
  integer :: n
  n = 10
  call bump(n)
  call writer(n)
end program main

subroutine bump(k)
` + body + `
end subroutine bump
`
}

// TestFortranCallKills checks that what a callee may change is not
// propagated past the call, unless the callee leaves a known value: a
// dummy argument it assigns, a host variable an internal procedure
// assigns.
func TestFortranCallKills(t *testing.T) {
	runPropagation(t, []propagationCase{
		{name: "argument changed by a callee to a known value", srcs: []source{f90("kill", bumpF90(`  integer :: k
  k = k + 1`)), f90("writer", writerF90)},
			path: []string{"call writer(n)"}, loop: "writer loop", trip: 11, source: TripParameter},
		{name: "argument changed by a callee on one path", srcs: []source{f90("kill", bumpF90(`  integer :: k, m
  read(5, *) m
  if (m > 3) k = k + 1`)), f90("writer", writerF90)},
			path: []string{"call writer(n)"}, loop: "writer loop", trip: DefaultTrip, source: TripDefault},
		{name: "argument read by a callee", srcs: []source{f90("kill", `program main
  integer :: n
  n = 10
  call getn(n)
  call writer(n)
end program main

subroutine getn(k)
  integer :: k
  read(5, *) k
end subroutine getn
`), f90("writer", writerF90)},
			path: []string{"call writer(n)"}, loop: "writer loop", trip: DefaultTrip, source: TripDefault},
		{name: "argument only read by a callee", srcs: []source{f90("keep", `program main
  integer :: n
  n = 10
  call show(n)
  call writer(n)
end program main

subroutine show(k)
  integer :: k
  print *, k
end subroutine show
`), f90("writer", writerF90)},
			path: []string{"call writer(n)"}, loop: "writer loop", trip: 10, source: TripParameter},
		{name: "host variable changed by an internal procedure", srcs: []source{f90("host", `program main
  integer :: nx
  nx = 250
  call bump()
  call inner()
contains
  subroutine bump()
    nx = nx + 1
  end subroutine bump
  subroutine inner()
    integer :: i
    do i = 1, nx ! inner loop
      write(20, *) i
    end do
  end subroutine inner
end program main
`)},
			path: []string{"call inner()"}, loop: "inner loop", trip: DefaultTrip, source: TripDefault},
	})
}

// TestInternalWriteIsNotIO checks that internal WRITEs into character
// variables (a local, a dummy argument, a host's variable) make no I/O
// node, and that the file they name is still opened, under the name they
// built.
func TestInternalWriteIsNotIO(t *testing.T) {
	src := []source{f90("internal", `program main
  character(len=64) :: fname
  call inner()
  call label(fname, 3)
contains
  subroutine inner()
    write(fname, '(A,I0)') 'host_', 1
  end subroutine inner
end program main

subroutine label(s, k)
  character(len=*) :: s
  integer :: k
  character(len=16) :: tag
  write(tag, '(I0)') k
  write(s, '(A,A)') 'out_', tag
  open(10, file=s)
  write(10, *) k
  close(10)
end subroutine label
`)}
	if got, want := ioNodes(t, src), "OPEN(out_3) WRITE(out_3) CLOSE(out_3)"; got != want {
		t.Errorf("I/O nodes %q, want %q", got, want)
	}
}

// cSrc and cppSrc are C and C++ source files of a test.
func cSrc(text string) source   { return source{"prog.c", text} }
func cppSrc(text string) source { return source{"prog.cc", text} }

// callsC is a C program passing a literal, a #define, a const, an
// enumerator, a propagated variable and a program argument to functions
// by value, one of them through two calls, and an array with its length.
const callsC = `#include <stdio.h>
#include <stdlib.h>
#define NREC 5000
enum { NCELL = 300 };
static const int NITER = 70;

void put(FILE *f, int n) {
    for (int i = 0; i < n; i++) /* put loop */
        fprintf(f, "%d\n", i);
}

void twice(FILE *f, int n) {
    put(f, n * 2);
}

void fill(double *a, size_t n) {
    for (size_t i = 0; i < n; i++) /* fill loop */
        a[i] = 0;
}

int main(int argc, char **argv) {
    FILE *f = fopen("out.txt", "w");
    double buf[NREC];
    int nsteps = atoi(argv[1]);
    int v = 42;
    put(f, 12);
    put(f, NREC);
    put(f, NCELL);
    put(f, NITER);
    twice(f, NREC / 10);
    fill(buf, NREC);
    for (int s = 0; s < 3; s++) {
        put(f, v);
        put(f, nsteps);
    }
    fclose(f);
    return 0;
}
`

func TestCCallPropagation(t *testing.T) {
	src := []source{cSrc(callsC)}
	args := []string{"64"}
	runPropagation(t, []propagationCase{
		{name: "literal", srcs: src, args: args, path: []string{"put(f, 12);"}, loop: "put loop", trip: 12, source: TripParameter},
		{name: "define", srcs: src, args: args, path: []string{"put(f, NREC);"}, loop: "put loop", trip: 5000, source: TripParameter},
		{name: "enumerator", srcs: src, args: args, path: []string{"put(f, NCELL);"}, loop: "put loop", trip: 300, source: TripParameter},
		{name: "const", srcs: src, args: args, path: []string{"put(f, NITER);"}, loop: "put loop", trip: 70, source: TripParameter},
		{name: "variable in a loop", srcs: src, args: args, path: []string{"put(f, v);"}, loop: "put loop", trip: 42, source: TripParameter},
		{name: "through two calls", srcs: src, args: args,
			path: []string{"twice(f, NREC / 10);", "put(f, n * 2);"}, loop: "put loop", trip: 1000, source: TripParameter},
		{name: "program argument", srcs: src, args: args, path: []string{"put(f, nsteps);"}, loop: "put loop", trip: 64, source: TripArgument},
		{name: "program argument unknown", srcs: src, path: []string{"put(f, nsteps);"}, loop: "put loop", trip: DefaultTrip, source: TripDefault},
		{name: "array length", srcs: src, args: args, path: []string{"fill(buf, NREC);"}, loop: "fill loop", trip: 5000, source: TripParameter},
		{name: "address taken by a callee", srcs: []source{cSrc(`#include <stdio.h>
void put(int n) { for (int i = 0; i < n; i++) puts("x"); /* put loop */ }
void setn(int *n) { *n = 5; }
int main(void) {
    int n = 10;
    setn(&n);
    put(n);
    return 0;
}
`)}, path: []string{"put(n);"}, loop: "put loop", trip: DefaultTrip, source: TripDefault},
	})
}

func TestCPPCallPropagation(t *testing.T) {
	src := []source{cppSrc(`#include <cstdio>
#include <fstream>
#include <vector>
#include <array>
const int N = 1000;

void dump(const int &n) {
    std::ofstream out("x.txt");
    for (int i = 0; i < n; i++) out << i << "\n"; // dump loop
}
void byref(int &n) {
    for (int i = 0; i < n; i++) puts("r"); // byref loop
}
void setn(int &n) { n = 5; }
void scale(std::vector<double> &v) {
    for (size_t i = 0; i < v.size(); i++) v[i] *= 2; // scale loop
}
void print(const std::vector<double> &v) {
    for (double x : v) printf("%f\n", x); // print loop
}
class Grid {
public:
    void write(int steps) {
        for (int i = 0; i < steps; i++) puts("g"); // grid loop
    }
};
int main() {
    dump(N);
    int m = 77;
    byref(m); // before setn
    std::vector<double> v(N / 4);
    scale(v);
    print(v);
    std::array<double, 64> a;
    for (double x : a) printf("%f", x); // array loop
    Grid g;
    g.write(25);
    setn(m);
    byref(m); // after setn
    return 0;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "const reference", srcs: src, path: []string{"dump(N);"}, loop: "dump loop", trip: 1000, source: TripParameter},
		{name: "reference", srcs: src, path: []string{"byref(m); // before setn"}, loop: "byref loop", trip: 77, source: TripParameter},
		{name: "vector size", srcs: src, path: []string{"scale(v);"}, loop: "scale loop", trip: 250, source: TripParameter},
		{name: "vector range", srcs: src, path: []string{"print(v);"}, loop: "print loop", trip: 250, source: TripParameter},
		{name: "std::array range", srcs: src, loop: "array loop", trip: 64, source: TripLiteral},
		{name: "member function", srcs: src, path: []string{"g.write(25);"}, loop: "grid loop", trip: 25, source: TripParameter},
		{name: "changed through a reference", srcs: src, path: []string{"byref(m); // after setn"}, loop: "byref loop", trip: DefaultTrip, source: TripDefault},
	})
}

// Sizes kept in structure members bound the loops that read them when
// every store into the member puts the same number, or, in the order of
// the walk, when the stores so far did (one set from a parameter); a
// member also read into keeps the size its known stores agree on, as a
// bound.
func TestFieldPropagation(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define NPART 4096
struct sim { int np, nsteps, every; double dt; };
struct hdr { int n; };
struct grid { int side; };
static void init(struct sim *s) { s->np = NPART; s->dt = 0.5; }
static void grid_alloc(struct grid *g, int side) { g->side = side; }
static void sweep(struct grid *g, FILE *f) {
    for (int i = 0; i < g->side * g->side; i++) fputc('g', f); /* sweep loop */
}
static void dump(const struct sim *s, FILE *f) {
    for (int i = 0; i < s->np; i++) fprintf(f, "%d\n", i); /* dump loop */
}
static void header(struct hdr *h, const struct sim *s, FILE *f) {
    h->n = s->np;
    for (int i = 0; i < h->n; i++) fputc('x', f); /* header loop */
}
static void steps(struct sim *s, FILE *f) {
    for (int t = 0; t < s->nsteps; t++) fputc('s', f); /* steps loop */
}
static void every(struct sim *s, FILE *f) {
    for (int t = 0; t < s->every; t++) fputc('e', f); /* every loop */
}
int main(int argc, char **argv) {
    struct sim s;
    struct hdr h;
    FILE *f = fopen("out.txt", "w");
    struct grid g;
    init(&s);
    grid_alloc(&g, 320);
    sweep(&g, f);
    s.nsteps = 10;
    if (argc > 2) s.nsteps = 20;
    s.every = 3;
    sscanf(argv[1], "%d", &s.every);
    dump(&s, f);
    header(&h, &s, f);
    steps(&s, f);
    every(&s, f);
    fclose(f);
    return 0;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "set in another function", srcs: src, path: []string{"dump(&s, f);"}, loop: "dump loop", trip: 4096, source: TripPropagated},
		{name: "from another member", srcs: src, path: []string{"header(&h, &s, f);"}, loop: "header loop", trip: 4096, source: TripPropagated},
		{name: "set from a parameter", srcs: src, path: []string{"sweep(&g, f);"}, loop: "sweep loop", trip: 320 * 320, source: TripParameter},
		{name: "two values", srcs: src, path: []string{"steps(&s, f);"}, loop: "steps loop", trip: DefaultTrip, source: TripDefault},
		{name: "read into after a known store", srcs: src, path: []string{"every(&s, f);"}, loop: "every loop", trip: 3, source: TripBound},
	})
}

// A structure initialised by position or by designator keeps the numbers
// of its list in its members; a class with a constructor is no aggregate.
func TestAggregateInitialisers(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
struct config { int steps; double dt; int every; };
typedef struct { int nx, ny; } grid_t;
static void run(const struct config *c, FILE *f) {
    for (int s = 0; s < c->steps; s++) fputc('s', f); /* run loop */
}
static void scan(const grid_t *g, FILE *f) {
    for (int j = 0; j < g->ny; j++) fputc('g', f); /* scan loop */
}
int main(void) {
    struct config c = {5000, 0.1, 10};
    grid_t g = {.ny = 30, .nx = 40};
    FILE *f = fopen("out.txt", "w");
    run(&c, f);
    scan(&g, f);
    fclose(f);
    return 0;
}
`)}
	cpp := []source{cppSrc(`#include <fstream>
namespace render {
struct View { double cx, cy; int nx, ny; };
struct Box { Box(int a, int b) : w(b), h(a) {} int w, h; };
void dump(const View &v, std::ofstream &out) {
    for (int j = 0; j < v.ny; ++j) out << j << '\n'; // view loop
}
void dump2(const Box &b, std::ofstream &out) {
    for (int j = 0; j < b.h; ++j) out << j << '\n'; // box loop
}
}
int main() {
    render::View view{-0.5, 0.1, 1600, 1200};
    render::Box box{7, 9};
    std::ofstream out("x.txt");
    render::dump(view, out);
    render::dump2(box, out);
    return 0;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "by position", srcs: src, path: []string{"run(&c, f);"}, loop: "run loop", trip: 5000, source: TripPropagated},
		{name: "by designator", srcs: src, path: []string{"scan(&g, f);"}, loop: "scan loop", trip: 30, source: TripPropagated},
		{name: "C++ aggregate in a namespace", srcs: cpp, path: []string{"render::dump(view, out);"}, loop: "view loop", trip: 1200, source: TripPropagated},
		{name: "class with a constructor", srcs: cpp, path: []string{"render::dump2(box, out);"}, loop: "box loop", trip: DefaultTrip, source: TripDefault},
	})
}

// An element of a constant table bounds a loop: the element itself at a
// known index, the mean of the table at an unknown one.
func TestTableElements(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
static const int widths[4] = {10, 20, 30, 60};
static int partial[4] = {7};
static void put(FILE *f, int n) {
    for (int i = 0; i < n; i++) fputc('x', f); /* put loop */
}
int main(int argc, char **argv) {
    static const long sizes[] = {4096, 20000, 65536, 100000, 262144, 524288};
    FILE *f = fopen("out.txt", "w");
    put(f, widths[2]);
    put(f, widths[argc]);
    put(f, (int)sizes[argc % 6]);
    put(f, partial[argc]);
    fclose(f);
    return 0;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "known index", srcs: src, path: []string{"put(f, widths[2]);"}, loop: "put loop", trip: 30, source: TripParameter},
		{name: "unknown index", srcs: src, path: []string{"put(f, widths[argc]);"}, loop: "put loop", trip: 30, source: TripBound},
		{name: "local table", srcs: src, path: []string{"put(f, (int)sizes[argc % 6]);"}, loop: "put loop", trip: 162677, source: TripBound},
		{name: "not constant", srcs: src, path: []string{"put(f, partial[argc]);"}, loop: "put loop", trip: DefaultTrip, source: TripDefault},
	})
}

// MPI_Comm_size on MPI_COMM_WORLD returns Options.Procs: the share of
// each rank bounds its loops.
func TestCommSize(t *testing.T) {
	src := []source{cSrc(`#include <mpi.h>
#include <stdio.h>
#define NTOTAL 4096
int main(int argc, char **argv) {
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    FILE *f = fopen("out.txt", "w");
    for (int i = 0; i < NTOTAL / nranks; i++) fputc('x', f); /* share loop */
    fclose(f);
    MPI_Finalize();
    return 0;
}
`)}
	for _, c := range []struct {
		procs  int
		trip   int64
		source TripSource
	}{{4, 1024, TripArgument}, {0, DefaultTrip, TripDefault}} {
		g := buildSources(t, Options{Procs: c.procs}, src...)
		if l := loopVia(t, g, src, nil, "share loop"); l.Trip != c.trip || l.TripSource != c.source {
			t.Errorf("%d processes: trip %d (%s), want %d (%s)", c.procs, l.Trip, l.TripSource, c.trip, c.source)
		}
	}
}

// TestFunctionPointerArguments checks calls through a function pointer
// parameter: each calling context follows the function its caller passes,
// whether called as fn(x) or (*fn)(x).
func TestFunctionPointerArguments(t *testing.T) {
	src := []source{cSrc(`#include <stdio.h>
#define NA 300
#define NB 70
typedef long (*visit_fn)(long i);
static long square(long i) {
  long s = 0;
  for (long k = 0; k < NA; k++) s += k * i; /* square loop */
  return s;
}
static long cube(long i) {
  long s = 0;
  for (long k = 0; k < NB; k++) s += k * i * i; /* cube loop */
  return s;
}
static long apply(visit_fn fn, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += fn(i); /* through */
  return s + (*fn)(n); /* star */
}
int main(void) {
  long s = apply(square, 10); /* first */
  s += apply(cube, 20); /* second */
  printf("%ld\n", s);
  return 0;
}`)}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		path []string
		loop string
		trip int64
	}{
		{[]string{"first", "through"}, "square loop", 300},
		{[]string{"first", "star"}, "square loop", 300},
		{[]string{"second", "through"}, "cube loop", 70},
		{[]string{"second", "star"}, "cube loop", 70},
	} {
		if l := loopVia(t, g, src, c.path, c.loop); l.Trip != c.trip {
			t.Errorf("%v: trip %d, want %d", c.path, l.Trip, c.trip)
		}
	}
}
