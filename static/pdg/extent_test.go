package pdg

import "testing"

// TestExtentBoundLoops checks that a C loop whose bound is not known runs
// to the extent of the arrays it reads or writes at its index: allocated
// in a declaration, declared with a size, or passed to a pointer
// parameter; and that a loop indexing no array of known extent keeps the
// default.
func TestExtentBoundLoops(t *testing.T) {
	srcs := []source{cSrc(`#include <stdlib.h>
#include <stdint.h>
#define BLOCK 65536
static double hist[300];
static void unpack(const uint8_t *l, int n, uint8_t *out) {
  for (int i = 0; i < n; i++) out[i] = l[0]; // store loop
  for (int i = 1; i < n; i++) hist[l[i - 1]] += 1; // read loop
}
int main(int argc, char **argv) {
  uint8_t *l = malloc(BLOCK), *out = (uint8_t *)malloc(BLOCK / 2);
  int n = rand(), s = 0;
  unpack(l, n, out); // call
  for (int i = 0; i < n; i++) s += hist[i]; // table loop
  for (int i = 0; i < n; i++) s += rand(); // free loop
  return s;
}`)}
	const block = 65536
	g := buildSources(t, Options{}, srcs...)
	for _, tc := range []struct {
		path   []string
		marker string
		want   int64
		src    TripSource
	}{
		{[]string{"// call"}, "store loop", block / 2, TripBound},
		{[]string{"// call"}, "read loop", block, TripBound},
		{nil, "table loop", 300, TripBound},
		{nil, "free loop", DefaultTrip, TripDefault},
	} {
		l := loopVia(t, g, srcs, tc.path, tc.marker)
		if l.Trip != tc.want || l.TripSource != tc.src {
			t.Errorf("%s runs %d times (%s), want %d (%s)", tc.marker, l.Trip, l.TripSource, tc.want, tc.src)
		}
	}
}
