package pdg

import "testing"

// TestTallies: a counter stepped by constants in a loop nest holds,
// after the nest, its start plus each step times the times it runs
// (branch odds included), and a loop up to it runs that often; a counter
// the loop tests, or stepped in a loop of unknown count, is not tallied.
func TestTallies(t *testing.T) {
	c := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#define N 1000
static double v[N * 8];
int main(int argc, char **argv) {
    FILE *f = fopen("hits.txt", "w");
    int n = 0, m = 5, p = 0, q = 0, r = 0, u = 0, i, j, k;
    for (i = 0; i < N; i++) {
        m += 2;
        for (j = 0; j < 8; j++)
            if (v[i * 8 + j] > 0.5) n++;
    }
    for (k = 0; k < n; k++) fputc('h', f);      /* hits loop */
    for (k = 0; k < m; k++) fputc('m', f);      /* steps loop */
    while (q < 40) if (v[q * 3] > 0.1) q++; else q += 2;
    for (k = 0; k < q; k++) fputc('q', f);      /* bounded loop */
    for (i = 0; i < atoi(argv[1]); i++) r++;
    for (k = 0; k < r; k++) fputc('r', f);      /* argument loop */
    for (i = 0; i < N; i++) if (v[i] > 0.5 && p < 64) p++;
    for (k = 0; k < p; k++) fputc('p', f);      /* capped loop */
    while (getchar() != EOF) u++;
    for (k = 0; k < u; k++) fputc('u', f);      /* unknown loop */
    return 0;
}
`)}
	f := []source{f90("cluster", `program cluster
  implicit none
  integer :: natoms, i, j, k
  real(8) :: p
  natoms = 0
  do k = -7, 7
    do j = -7, 7
      do i = -7, 7
        p = real(i * i + j * j + k * k, 8)
        if (p <= 49.0d0) then
          natoms = natoms + 1
        end if
      end do
    end do
  end do
  open(10, file='cluster.xyz')
  do i = 1, natoms ! atoms loop
    write(10, *) i
  end do
end program cluster
`)}
	for _, tc := range []struct {
		srcs []source
		loop string
		trip int64
		src  TripSource
	}{
		{c, "hits loop", 4000, TripBound},     // 1000 × 8 × 1/2
		{c, "steps loop", 2005, TripBound},    // 5 + 1000 × 2
		{c, "bounded loop", 100, TripDefault}, // q is the loop's own counter: not tallied
		{c, "argument loop", 7, TripBound},
		{c, "capped loop", 100, TripDefault},  // p is tested against a capacity
		{c, "unknown loop", 100, TripDefault}, // counted in a loop of unknown count
		{f, "atoms loop", 1688, TripBound},    // 15³ / 2 = 1687.5
	} {
		l := entryLoop(t, buildSources(t, Options{Args: []string{"7"}}, tc.srcs...), tc.srcs, tc.loop)
		if l.Trip != tc.trip || l.TripSource != tc.src {
			t.Errorf("%s: trip %d (%s), want %d (%s)", tc.loop, l.Trip, l.TripSource, tc.trip, tc.src)
		}
	}
}

// TestOffsetCounters: a condition that adds an offset to the counter
// ("i + 16 <= n") bounds it like the bound less the offset; the bytes a
// read returns are those it asked for, so a loop over the records of
// each chunk runs the chunk's records.
func TestOffsetCounters(t *testing.T) {
	srcs := []source{cSrc(`#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#define CHUNK (1 << 16)
typedef struct { unsigned seq, handle, size, op; } Event;
int main(void) {
    static unsigned char buf[CHUNK];
    long i, n, total = 0;
    int fd = open("trace.bin", O_RDONLY);
    for (i = 0; i + 16 <= 4096; i += 16) total++;          /* offset loop */
    while ((n = read(fd, buf, CHUNK)) > 0) {
        for (i = 0; i + (long)sizeof(Event) <= n; i += sizeof(Event)) {   /* records loop */
            Event e;
            memcpy(&e, buf + i, sizeof e);
            total += e.size;
        }
    }
    for (i = 10; i - 2 < 50; i++) total--;                 /* minus loop */
    close(fd);
    return (int)(total & 1);
}
`)}
	checkTrips(t, buildSources(t, Options{}, srcs...), srcs, []tripWant{
		{"offset loop", 256},
		{"records loop", 4096},
		{"minus loop", 42},
	})
}

// TestOuterInitBounds: an inner loop up to a variable initialised from
// the outer loop's variable ("e = i + B < N ? i + B : N") runs, on
// average, what the initialiser gives with the outer variable at its
// mean value.
func TestOuterInitBounds(t *testing.T) {
	srcs := []source{cSrc(`#include <stdio.h>
#include <stdlib.h>
#define N 1000000
#define B 4800
static float bus[N];
int main(void) {
    FILE *f = fopen("out.raw", "wb");
    long i;
    for (i = 0; i < N; i += B) {
        long j, e = i + B < N ? i + B : N;
        for (j = i; j < e; j++) bus[j] *= 0.5f;   /* block loop */
        fwrite(bus + i, sizeof(float), B, f);
    }
    return 0;
}
`)}
	g := buildSources(t, Options{}, srcs...)
	if l := entryLoop(t, g, srcs, "block loop"); l.Trip != 4800 || l.TripSource != TripBound {
		t.Errorf("block loop: trip %d (%s), want 4800 (%s)", l.Trip, l.TripSource, TripBound)
	}
}
