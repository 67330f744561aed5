package pdg

import "testing"

// setupModule is a Fortran module whose sizes a setup routine assigns,
// writes as a namelist and reads back, before the routines that loop
// over them run.
const setupModule = `module field
  implicit none
  integer :: nx = 0, ny = 0, nsteps = 0
  namelist /grid/ nx, ny, nsteps
contains
  subroutine setup()
    nx = 160; ny = 140; nsteps = 80
  end subroutine setup
  subroutine save_config(path)
    character(*), intent(in) :: path
    integer :: u
    open(newunit=u, file=path, status='replace', action='write')
    write(u, nml=grid)
    close(u)
  end subroutine save_config
  subroutine load_config(path)
    character(*), intent(in) :: path
    integer :: u
    nx = 0; ny = 0; nsteps = 0
    open(newunit=u, file=path, status='old', action='read')
    read(u, nml=grid)
    close(u)
  end subroutine load_config
  subroutine sweep(u)
    integer, intent(in) :: u
    integer :: i, j
    do j = 1, ny ! rows loop
      do i = 1, nx ! columns loop
        write(u) i, j
      end do
    end do
  end subroutine sweep
end module field
`

// TestFollowedGlobals: the values a routine assigns to module variables
// or C globals reach the routines called after it, through the caller;
// a namelist written from them and read back gives them again. A global
// updated from its own value (a generator's state) is not followed.
func TestFollowedGlobals(t *testing.T) {
	direct := []source{f90("field", setupModule), f90("main", `program main
  use field
  integer :: k
  call setup()
  open(20, file='out.bin', form='unformatted')
  do k = 1, nsteps ! steps loop
    call sweep(20) ! sweep call
  end do
end program main
`)}
	namelist := []source{f90("field", setupModule), f90("main", `program main
  use field
  call setup()
  call save_config('run.nml')
  nx = 1; ny = 1
  call load_config('run.nml')
  open(20, file='out.bin', form='unformatted')
  call sweep(20) ! sweep call
end program main
`)}
	cGlobals := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
static int nrows, ncols = 0;
static unsigned state;
static unsigned draw(void) { state ^= state << 13; return state >> 7; }
static void init(int scale) { nrows = 50 * scale; ncols = nrows + 8; state = 12345; }
static void dump(FILE *f) {
    for (int r = 0; r < nrows; r++)        /* rows loop */
        for (int c = 0; c < ncols; c++)    /* columns loop */
            fputc('.', f);
}
int main(int argc, char **argv) {
    FILE *f = fopen("grid.txt", "w");
    init(4);
    dump(f);          /* dump call */
    ncols = atoi(argv[1]);
    dump(f);          /* second dump call */
    unsigned r = draw() % 5000;
    for (unsigned k = 0; k < r; k++)  /* draw loop */
        fputc('d', f);
    return 0;
}
`)}
	runPropagation(t, []propagationCase{
		{name: "module variables a setup routine assigns", srcs: direct,
			path: []string{"sweep call"}, loop: "columns loop", trip: 160, source: TripParameter},
		{name: "the loop of the caller", srcs: direct,
			loop: "steps loop", trip: 80, source: TripPropagated},
		{name: "module variables read back from a namelist", srcs: namelist,
			path: []string{"sweep call"}, loop: "rows loop", trip: 140, source: TripParameter},
		{name: "C globals an init function assigns", srcs: cGlobals, args: []string{"3"},
			path: []string{"/* dump call"}, loop: "columns loop", trip: 208, source: TripParameter},
		{name: "a C global reassigned between calls", srcs: cGlobals, args: []string{"3"},
			path: []string{"second dump call"}, loop: "columns loop", trip: 3, source: TripArgument},
		{name: "a C global unchanged between calls", srcs: cGlobals, args: []string{"3"},
			path: []string{"second dump call"}, loop: "rows loop", trip: 200, source: TripParameter},
		{name: "a generator's state is not followed: its draw's remainder counts its mean", srcs: cGlobals, args: []string{"3"},
			loop: "draw loop", trip: 2499, source: TripBound},
	})
}

// TestAllocatedDummies: an allocatable dummy argument a subroutine
// allocates gives its caller's array the extents it allocated.
func TestAllocatedDummies(t *testing.T) {
	srcs := []source{f90("frames", `module frames
  implicit none
contains
  subroutine load(x)
    real(8), allocatable, intent(out) :: x(:, :)
    integer :: n
    n = 2500
    allocate(x(3, n))
    x = 0
  end subroutine load
  subroutine store(x)
    real(8), intent(in) :: x(:, :)
    integer :: i
    open(30, file='frames.bin', form='unformatted')
    do i = 1, size(x, 2) ! frame loop
      write(30) x(:, i)
    end do
  end subroutine store
end module frames
program main
  use frames
  real(8), allocatable :: xyz(:, :)
  call load(xyz)
  call store(xyz) ! store call
end program main
`)}
	runPropagation(t, []propagationCase{
		{name: "extents from the callee's ALLOCATE", srcs: srcs,
			path: []string{"store call"}, loop: "frame loop", trip: 2500, source: TripParameter},
	})
}

// TestDirectRecordsInOrder: a direct-access transfer whose record number
// is the variable of the loop around it, stepped by one, plus terms that
// do not change in that loop, is sequential, read or written (gfortran's
// buffer collects in-order writes: 238 write calls for 5,200 records of
// 3,072 bytes); records in a computed order, or every other one, are
// random, as are records read and written back in one loop.
func TestDirectRecordsInOrder(t *testing.T) {
	srcs := []source{f90("records", `program records
  implicit none
  integer :: k, rec, d, h
  real(8) :: c(384)
  open(10, file='chain.dat', access='direct', form='unformatted', recl=3072)
  do k = 1, 2600
    write(10, rec=k) c ! written
  end do
  do d = 1, 100
    do h = 1, 24
      write(10, rec=24 * (d - 1) + h) c ! hourly
    end do
  end do
  do k = 1, 2600
    read(10, rec=k) c ! in order
  end do
  do k = 0, 2599
    rec = 1 + mod(k * 1597, 2600)
    read(10, rec=rec) c ! scrambled
  end do
  do k = 1, 2600, 2
    read(10, rec=k) c ! strided
  end do
  do k = 1, 1300
    write(10, rec=2 * k) c ! every other
  end do
  do k = 1, 2600
    read(10, rec=k) c ! updated
    c(1) = c(1) + 1
    write(10, rec=k) c ! back
  end do
end program records
`)}
	g := buildSources(t, Options{}, srcs...)
	for _, tc := range []struct {
		marker string
		random bool
	}{
		{"written", false},
		{"hourly", false},
		{"in order", false},
		{"scrambled", true},
		{"strided", true},
		{"every other", true},
		{"updated", true},
		{"back", true},
	} {
		n := entryNode(t, g, srcs, IONode, tc.marker)
		if n.IO.Random != tc.random {
			t.Errorf("%s: random %v, want %v", tc.marker, n.IO.Random, tc.random)
		}
	}
}
