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
			want := p.tab.walk(ts, src, math.MaxInt)
			got := p.tab.walk(ts, src, 0)
			read, ok := p.tab.reader.flatten(ts, src)
			ts.Close()
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(node{})); diff != "" {
				t.Errorf("%s (C++ %v): flattening with fresh copies differs (-one walk +fresh copies):\n%s", name, isCPP, diff)
			}
			if !ok {
				t.Fatalf("%s (C++ %v): the reader refuses the tree", name, isCPP)
			}
			if diff := cmp.Diff(want, read, cmp.AllowUnexported(node{})); diff != "" {
				t.Errorf("%s (C++ %v): reading the tree in place differs from the cursor walk (-walk +read):\n%s", name, isCPP, diff)
			}
		}
	}
}

// TestReaderInUse checks that both languages read trees in place: the
// reader's self-check passed on the pinned binding.
func TestReaderInUse(t *testing.T) {
	for _, isCPP := range []bool{false, true} {
		p, err := newParser(isCPP)
		if err != nil {
			t.Fatal(err)
		}
		if p.tab.reader == nil {
			t.Errorf("C++ %v: trees are walked with the cursor, not read in place", isCPP)
		}
	}
}

// FuzzFlatten checks that reading a tree in place gives exactly the nodes
// the binding's cursor walk gives, for any input in either language.
func FuzzFlatten(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(selfCheckSource))
	f.Add([]byte("int a;\nstruct , > class #if A\n 1 ) int b;\n"))
	parsers := make([]*parser, 2)
	for i := range parsers {
		p, err := newParser(i == 1)
		if err != nil {
			f.Fatal(err)
		}
		parsers[i] = p
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, p := range parsers {
			ts, err := p.ts.ParseCtx(context.Background(), nil, src)
			if err != nil {
				t.Skip("tree-sitter gave up")
			}
			want := p.tab.walk(ts, src, math.MaxInt)
			got, ok := p.tab.reader.flatten(ts, src)
			ts.Close()
			if !ok {
				t.Fatal("the reader refuses the tree")
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(node{})); diff != "" {
				t.Fatalf("reading in place differs from the cursor walk (-walk +read):\n%s", diff)
			}
		}
	})
}
