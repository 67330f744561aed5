package cfront

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlattenFreshCopies checks that moving the walk to a fresh copy of
// the tree at every node it can (span 0), in trees with and without
// errors, flattens the tree exactly as one walk over the tree does.
func TestFlattenFreshCopies(t *testing.T) {
	srcs := map[string][]byte{
		"generated.c": generateC(20),
		// An empty child of the root, where the walk cannot move.
		"empty-child.c": []byte("int a;\nstruct , > class #if A\n 1 ) int b;\n"),
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = src
	}
	for name, src := range srcs {
		for _, isCPP := range []bool{false, true} {
			p, err := newParser(isCPP)
			if err != nil {
				t.Fatal(err)
			}
			ts, err := p.ts.ParseCtx(context.Background(), nil, src)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := p.tab.flatten(ts, src, math.MaxInt)
			got := p.tab.flatten(ts, src, 0)
			ts.Close()
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(node{})); diff != "" {
				t.Errorf("%s (C++ %v): flattening with fresh copies differs (-one walk +fresh copies):\n%s", name, isCPP, diff)
			}
		}
	}
}
