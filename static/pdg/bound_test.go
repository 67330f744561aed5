package pdg

import "testing"

// A value known only as the known side of a choice whose condition is
// not (merge(ut, 0, q <= 40) with ut opened on some passes) decides no
// branch of the callee, and its call context is not that of the same
// number passed exactly: the first call writes nothing, the second may.
func TestBoundValuesDecideNoBranch(t *testing.T) {
	src := []source{{"prog.f90", `module m
contains
  subroutine step(u)
    integer, intent(in) :: u
    integer :: k
    do k = 1, 1000
       if (u /= 0) write(u, '(i8)') k
    end do
  end subroutine step
end module m
program p
  use m
  integer :: i, ut, q
  do i = 1, 10
     do q = 1, 50
        call step(0) ! exact
     end do
     ut = 0
     if (mod(i - 1, 3) == 0) then
        open(newunit=ut, file='t.txt', status='replace', action='write')
     end if
     do q = 1, 100
        call step(merge(ut, 0, q <= 40)) ! bound
     end do
     if (ut /= 0) close(ut)
  end do
end program p
`}}
	g := buildSources(t, Options{}, src...)
	for _, c := range []struct {
		marker string
		taken  int
	}{
		{"exact", 1},  // the ELSE side: no write
		{"bound", -1}, // not decided
	} {
		file, line := lineOf(t, c.marker, src)
		call := nodeAt(g.Entry, CallNode, file, line)
		if call == nil || call.Target == nil {
			t.Fatalf("no call at %q", c.marker)
		}
		branch := first(call.Target, BranchNode)
		if branch == nil || branch.Taken != c.taken {
			t.Errorf("%s: branch %+v, want taken %d", c.marker, branch, c.taken)
		}
	}
}
