package features

import (
	"math"
	"testing"

	"github.com/iolens/iolens/static/cfront"
	"github.com/iolens/iolens/static/fortran"
	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
	"github.com/iolens/iolens/static/pdg"
)

// TestFortranSource runs a real Fortran source through the front-end.
func TestFortranSource(t *testing.T) {
	src := []byte(`program sim
  implicit none
  integer, parameter :: n = 1000, nsteps = 50
  real(8) :: a(n)
  real(8), allocatable :: b(:)
  integer :: i
  allocate(b(2*n))
  open(unit=10, file='out.dat', form='unformatted')
  do i = 1, nsteps
    a = a + 1.0d0
    write(10) a
    write(10) b(:)
    flush(10)
  end do
  close(10)
end program sim
`)
	f, err := fortran.Parse("sim.f90", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	b := find(t, blocks, FunctionBlock, "sim")
	p := b.Params
	if p.Calls != 150 || p.Bytes != 50*(8000+16000) || p.Binary != 100 || p.Flushes != 50 || p.Files != 1 || p.Space != 16000 {
		t.Errorf("params %+v", p)
	}
	if cause(b, CodeFlushInLoop) == nil {
		t.Errorf("no flush-in-loop cause: %+v", b.Causes)
	}
	if p.Work < 50*1000 {
		t.Errorf("work %v: the whole-array assignment counts per element", p.Work)
	}
}

// TestFortranParameterArgument: a PARAMETER passed by reference to one
// subroutine keeps its value for the next one.
func TestFortranParameterArgument(t *testing.T) {
	src := []byte(`      PROGRAM P
      INTEGER NROWS
      PARAMETER (NROWS = 4000)
      DOUBLE PRECISION A(NROWS)
      CALL FILL(A, NROWS)
      CALL SAVE(A, NROWS)
      END

      SUBROUTINE FILL(A, NR)
      INTEGER NR, J
      DOUBLE PRECISION A(NR)
      DO 10 J = 1, NR
         A(J) = J
   10 CONTINUE
      END

      SUBROUTINE SAVE(A, NR)
      INTEGER NR, J
      DOUBLE PRECISION A(NR)
      OPEN(UNIT=11, FILE='t.txt', FORM='FORMATTED')
      DO 20 J = 1, NR
         WRITE(11, '(F14.6)') A(J)
   20 CONTINUE
      CLOSE(11)
      END
`)
	f, err := fortran.Parse("p.f", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	if p := find(t, blocks, FunctionBlock, "save").Params; p.Calls != 4000 {
		t.Errorf("SAVE writes %v times, want 4000: %+v", p.Calls, p)
	}
}

// TestRuntimeWorkIsIO: the collector times a whole Fortran I/O statement
// or C++ stream operation as I/O, so their conversions and the runtime's
// own work are I/O parameters (FormatItems, RuntimeOps), not Work.
func TestRuntimeWorkIsIO(t *testing.T) {
	src := []byte(`subroutine dump(a, n)
  integer, intent(in) :: n
  real(8), intent(in) :: a(n)
  integer :: i
  do i = 1, n
     write(10, '(I8,1X,ES24.16)') i, a(i)
  end do
end subroutine
program p
  integer, parameter :: n = 1000
  real(8) :: a(n)
  a = 1.0d0
  open(10, file='out.txt', form='formatted')
  call dump(a, n)
  close(10)
end program
`)
	f, err := fortran.Parse("p.f90", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	p := find(t, blocks, FunctionBlock, "dump").Params
	if p.Calls != 1000 || p.FormatItems != 2000 || p.RuntimeOps != 1000*iosem.FortranStatementOps {
		t.Errorf("dump: calls %v, format items %v, runtime ops %v; want 1000, 2000, %v", p.Calls, p.FormatItems, p.RuntimeOps, 1000*iosem.FortranStatementOps)
	}
	// The conversions cost by the items' types: an integer and a real in
	// exponent form.
	if want := 1000.0 * (iosem.FortranIntOps + iosem.FortranExponentWriteOps); p.FormatOps != want {
		t.Errorf("dump: format ops %v, want %v", p.FormatOps, want)
	}
	// The loop's own iterations remain compute, the formatting does not.
	if p.Work >= 1000*iosem.FormatOpsPerItem {
		t.Errorf("dump: work %v includes the formatting", p.Work)
	}
}

// TestElementwiseRuntime: the elements an unformatted Fortran transfer
// moves one runtime call each (a row of a matrix) are runtime work of the
// statement, I/O; a column is not.
func TestElementwiseRuntime(t *testing.T) {
	src := []byte(`program p
  integer, parameter :: n = 300
  real(8) :: a(n, n)
  integer :: i
  a = 1.0d0
  open(10, file='rows.bin', form='unformatted')
  call rows(a, n)
  call cols(a, n)
  close(10)
contains
  subroutine rows(a, n)
    integer, intent(in) :: n
    real(8), intent(in) :: a(n, n)
    integer :: i
    do i = 1, n
       write(10) a(i, :)
    end do
  end subroutine
  subroutine cols(a, n)
    integer, intent(in) :: n
    real(8), intent(in) :: a(n, n)
    integer :: i
    do i = 1, n
       write(10) a(:, i)
    end do
  end subroutine
end program
`)
	f, err := fortran.Parse("p.f90", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	for name, want := range map[string]float64{
		"rows": 300 * (iosem.FortranStatementOps + 300*iosem.FortranElementOps),
		"cols": 300 * iosem.FortranStatementOps,
	} {
		if p := find(t, blocks, FunctionBlock, name).Params; p.Calls != 300 || p.RuntimeOps != want {
			t.Errorf("%s: calls %v, runtime ops %v; want 300, %v", name, p.Calls, p.RuntimeOps, want)
		}
	}
}

// TestStreamWorkIsIO: the same for C++ file streams.
func TestStreamWorkIsIO(t *testing.T) {
	src := []byte(`#include <fstream>
void dump(const double *a, int n) {
  std::ofstream out("out.csv");
  for (int i = 0; i < n; i++)
    out << i << ',' << a[i] << '\n';
}
int main() {
  static double a[500];
  dump(a, 500);
  return 0;
}
`)
	f, err := cfront.Parse("p.cpp", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	p := find(t, blocks, FunctionBlock, "dump").Params
	// One statement of four insertions per line.
	if p.Calls != 500 || p.FormatItems != 2000 || p.RuntimeOps != 500*iosem.StreamCallOps || p.Work >= 2000*iosem.FormatOpsPerItem {
		t.Errorf("dump: calls %v, format items %v, runtime ops %v, work %v; want 500, 2000, %v and work without the formatting",
			p.Calls, p.FormatItems, p.RuntimeOps, p.Work, 500*iosem.StreamCallOps)
	}
	// Each line converts an int, two characters and a double.
	if want := 500.0 * (iosem.PrintIntOps + 2*iosem.PrintStrOps + iosem.PrintFloatOps); p.FormatOps != want {
		t.Errorf("dump: format ops %v, want %v", p.FormatOps, want)
	}
}

// TestCompressionIsIO: a dataset created with a deflate filter compresses
// inside H5Dwrite, which the collector times as I/O, and decompresses
// inside H5Dread when opened again by name; a dataset without one does
// neither.
func TestCompressionIsIO(t *testing.T) {
	src := []byte(`#include <hdf5.h>
#define N 4096
static double buf[N];
void store(hid_t file, int deflate) {
  hsize_t dims[1] = {N}, chunk[1] = {1024};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, chunk);
  H5Pset_deflate(dcpl, 4);
  hid_t d = H5Dcreate2(file, "z", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(d);
}
void plain(hid_t file) {
  hsize_t dims[1] = {N};
  hid_t space = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(file, "p", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(d);
}
void load(hid_t file, const char *name) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(d);
}
int main(void) {
  hid_t file = H5Fcreate("out.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  store(file, 1);
  plain(file);
  load(file, "z");
  load(file, "p");
  H5Fclose(file);
  return 0;
}
`)
	blocks := buildC(t, src)
	if p := find(t, blocks, FunctionBlock, "store").Params; p.Bytes != 4096*8 || p.RuntimeOps != 4096*8*DeflateOpsPerByte {
		t.Errorf("store: bytes %v, runtime ops %v; want %v, %v", p.Bytes, p.RuntimeOps, 4096*8, 4096*8*DeflateOpsPerByte)
	}
	if p := find(t, blocks, FunctionBlock, "plain").Params; p.Bytes != 4096*8 || p.RuntimeOps != 0 {
		t.Errorf("plain: bytes %v, runtime ops %v; want %v, 0", p.Bytes, p.RuntimeOps, 4096*8)
	}
	// Of the two loads, the one of "z" inflates.
	if p, want := find(t, blocks, FunctionBlock, "main").Params, 4096*8*(DeflateOpsPerByte+InflateOpsPerByte); p.Bytes != 4*4096*8 || p.RuntimeOps != float64(want) {
		t.Errorf("main: bytes %v, runtime ops %v; want %v, %v", p.Bytes, p.RuntimeOps, 4*4096*8, want)
	}
}

// TestErrorPathsDoNotCount: the call of an error helper in a check's
// failing side neither counts in the function's I/O nor appears among its
// blocks; the calls of a side of unknown odds do.
func TestErrorPathsDoNotCount(t *testing.T) {
	src := []byte(`#include <stdio.h>
#include <stdlib.h>
static void die(const char *msg) {
  fprintf(stderr, "error: %s\n", msg);
  exit(1);
}
static void note(const char *msg) {
  fprintf(stderr, "note: %s\n", msg);
}
static void put(FILE *f, const double *x) {
  if (fwrite(x, sizeof *x, 1, f) != 1) die("write");
  if (*x < 0) note("negative");
}
void save(FILE *f, const double *v, int n) {
  for (int i = 0; i < n; i++)
    put(f, &v[i]);
}
int main(void) {
  static double v[1000];
  FILE *f = fopen("out.bin", "wb");
  for (int k = 0; k < 10; k++)
    save(f, v, 1000);
  fclose(f);
  return 0;
}
`)
	blocks := buildC(t, src)
	save := find(t, blocks, FunctionBlock, "save")
	// 1000 fwrite calls, and note's fprintf on half the iterations.
	if p := save.Params; p.Calls != 1500 {
		t.Errorf("save: %v calls, want 1500", p.Calls)
	}
	put := find(t, blocks, FunctionBlock, "put")
	if b := search(put.Children, CallBlock, "die"); b != nil {
		t.Errorf("the error path's call of die is a block of put: %+v", b)
	}
	if b := search(put.Children, CallBlock, "note"); b == nil {
		t.Error("the call of note is not a block of put")
	}
	// save calls put in a loop: the causes it sees through the call
	// include note's fprintf, not die's.
	vias := map[string]bool{}
	for _, c := range save.Causes {
		vias[c.Via] = true
	}
	if vias["die"] || !vias["note"] {
		t.Errorf("save's causes come through %v, want note and not die", vias)
	}
}

// TestStraightLineLoops: the work of an innermost loop with neither calls
// nor branches counts pdg.StraightLineOpsPerCycle operations per cycle; a loop
// that calls a routine counts one per cycle.
func TestStraightLineLoops(t *testing.T) {
	src := []byte(`#include <math.h>
#define N 1000
static double a[N], b[N];
void dot(double *s) {
  for (int i = 0; i < N; i++)
    *s += a[i] * b[i];
}
void roots(void) {
  for (int i = 0; i < N; i++)
    a[i] = sqrt(b[i]);
}
int main(void) {
  double s = 0;
  dot(&s);
  roots();
  return 0;
}
`)
	blocks := buildC(t, src)
	dot := find(t, blocks, FunctionBlock, "dot").Children[0]
	// Per iteration: the step of the counted loop (1), the compound
	// assignment (2), the multiplication (1).
	const n = 1000
	if want := float64(n*4) / pdg.StraightLineOpsPerCycle; dot.Params.Work != want {
		t.Errorf("dot loop: work %v, want %v", dot.Params.Work, want)
	}
	roots := find(t, blocks, FunctionBlock, "roots").Children[0]
	if roots.Params.Work < n*4 {
		t.Errorf("roots loop: work %v, want at least %v (one operation per cycle)", roots.Params.Work, n*4)
	}
}

// buildC parses a C program and returns its blocks.
func buildC(t *testing.T, src []byte) []Block {
	t.Helper()
	f, err := cfront.Parse("p.c", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	return blocks
}

// TestFileSizeIsExtent: a file the program wrote and reads back again and
// again is no larger than what it wrote (P8), however many bytes pass
// through it: 100 passes over a 1 MiB file keep it in the page cache.
func TestFileSizeIsExtent(t *testing.T) {
	src := []byte(`#include <stdio.h>
static char buf[1 << 20];
static double passes(FILE *f) {
  double s = 0;
  for (int k = 0; k < 100; k++) {
    fseek(f, 0, SEEK_SET);
    fread(buf, 1, sizeof buf, f);
    s += buf[k];
  }
  return s;
}
int main(void) {
  FILE *f = fopen("data.bin", "wb");
  fwrite(buf, 1, sizeof buf, f);
  fclose(f);
  f = fopen("data.bin", "rb");
  double s = passes(f);
  fclose(f);
  return s > 0;
}
`)
	blocks := buildC(t, src)
	for _, name := range []string{"passes", "main"} {
		p := find(t, blocks, FunctionBlock, name).Params
		want := 100.0 * (1 << 20)
		if name == "main" {
			want += 1 << 20
		}
		if p.Bytes != want || p.FileSize != 1<<20 {
			t.Errorf("%s: %v bytes, file size %v; want %v bytes of a %v-byte file", name, p.Bytes, p.FileSize, want, 1<<20)
		}
	}
}

// TestContextMean: a function called in several contexts (a header of 48
// bytes once, a record of 49,152 bytes ten times) is their mean
// invocation, as a profile measures it, not its first context.
func TestContextMean(t *testing.T) {
	src := []byte(`#include <stdio.h>
#include <stdlib.h>
static void read_exact(void *buf, size_t sz, size_t n, FILE *f) {
  if (fread(buf, sz, n, f) != n) exit(1);
}
int main(void) {
  static float rec[12288];
  char hdr[48];
  FILE *f = fopen("buoy.raw", "rb");
  read_exact(hdr, sizeof hdr, 1, f);
  for (int r = 0; r < 10; r++)
    read_exact(rec, sizeof(float), 12288, f);
  fclose(f);
  return 0;
}
`)
	f, err := cfront.Parse("p.c", src)
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	b := find(t, blocks, FunctionBlock, "read_exact")
	want := (48 + 10*49152) / 11.0
	if b.Invocations != 11 || b.Params.Calls != 1 || math.Abs(b.Params.Bytes-want) > 1e-9*want {
		t.Errorf("read_exact: %v invocations, %v calls of %v bytes; want 11 of 1 call of %v bytes", b.Invocations, b.Params.Calls, b.Params.Bytes, want)
	}
}

// TestBranchWork: the statements of a branch's alternatives count, by the
// odds of the alternative (a quarter of the passes here).
func TestBranchWork(t *testing.T) {
	src := []byte(`double f(const double *a) {
  double s = 0;
  for (int i = 0; i < 1000; i++) {
    if (i % 4 == 0) {
      s += a[i] * 3.0 + 1.0;
      s = s * 0.5 - a[i];
    }
  }
  return s;
}
int main(void) {
  static double a[1000];
  return (int)f(a);
}
`)
	f, err := cfront.Parse("p.c", src)
	if err != nil {
		t.Fatal(err)
	}
	g, blocks := build(t, &ir.Program{Files: []*ir.File{f}}, pdg.Options{})
	var loop, alt *pdg.Node
	for _, fn := range g.Funcs {
		if fn.Name == "f" && len(fn.Children) > 0 {
			for _, c := range fn.Children {
				if c.Kind == pdg.LoopNode {
					loop = c
				}
			}
		}
	}
	if loop == nil || len(loop.Children) != 1 || len(loop.Children[0].Children) != 2 {
		t.Fatal("no loop around one two-way branch in f")
	}
	alt = loop.Children[0].Children[0]
	if alt.Work <= 0 {
		t.Fatal("the alternative's statements cost no operations")
	}
	b := find(t, blocks, LoopBlock, "for")
	if want := 1000 * (loop.Work + alt.Work/4); math.Abs(b.Params.Work-want) > 1e-9 {
		t.Errorf("loop work %v, want %v", b.Params.Work, want)
	}
}
