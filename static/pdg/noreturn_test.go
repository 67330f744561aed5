package pdg

import (
	"testing"
)

// TestNeverReturns: a check whose side calls a function that never
// returns (an error helper ending in exit, a Fortran subroutine ending in
// STOP, MPI_Abort) is an error path, taken by no run that goes on; a
// helper that may return first is not.
func TestNeverReturns(t *testing.T) {
	c := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
static void die(const char *msg) {
    fprintf(stderr, "%s\n", msg);
    exit(1);
}
static void fail(const char *msg) {
    die(msg);
}
static void warn_or_die(int fatal) {
    if (!fatal) return;
    exit(2);
}
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "w");
    if (!f) die("open");                            /* die check */
    if (fputs("x", f) < 0) fail("write");           /* fail check */
    if (fflush(f)) MPI_Abort(MPI_COMM_WORLD, 1);    /* abort check */
    if (fclose(f)) warn_or_die(argc);               /* may return */
    return 0;
}
`)}
	f90 := []source{{"prog.f90", `module util
contains
  subroutine fatal(msg)
    character(*), intent(in) :: msg
    write(*,*) msg
    stop 1
  end subroutine
end module
program p
  use util
  integer :: ios
  open(10, file='a.dat', iostat=ios)
  if (ios /= 0) call fatal('open') ! fatal check
  close(10)
end program
`}}
	for _, c := range []struct {
		srcs   []source
		marker string
		taken  int
	}{
		{c, "die check", 1},
		{c, "fail check", 1},
		{c, "abort check", 1},
		{c, "may return", -1},
		{f90, "fatal check", 1},
	} {
		g := buildSources(t, Options{}, c.srcs...)
		file, line := lineOf(t, c.marker, c.srcs)
		b := nodeAt(g.Entry, BranchNode, file, line)
		if b == nil {
			t.Fatalf("%s: no branch at %s:%d", c.marker, file, line)
		}
		if b.Taken != c.taken {
			t.Errorf("%s: taken %d, want %d", c.marker, b.Taken, c.taken)
		}
	}
}
