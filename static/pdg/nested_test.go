package pdg

import (
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
