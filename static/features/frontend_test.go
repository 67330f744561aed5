package features

import (
	"testing"

	"github.com/iolens/iolens/static/fortran"
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
