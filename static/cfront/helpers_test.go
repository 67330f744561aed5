package cfront

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/ir"
)

// Short constructors for expected IR.

func ref(name string) ir.Expr             { return ir.Ref{Name: name} }
func num(v int64) ir.Expr                 { return ir.Int{V: v} }
func str(s string) ir.Expr                { return ir.Str{V: s} }
func bin(op string, l, r ir.Expr) ir.Expr { return ir.Binary{Op: op, L: l, R: r} }
func callx(callee string, args ...ir.Expr) ir.Expr {
	return ir.CallExpr{Callee: callee, Args: args}
}
func typ(name string, size int64) ir.Type { return ir.Type{Name: name, Size: size} }
func ptr(name string, size int64, levels int) ir.Type {
	return ir.Type{Name: name, Size: size, Pointer: levels}
}
func sizeofT(name string, size int64) ir.Expr { return ir.SizeOf{Type: typ(name, size)} }

// posIn returns a function making positions in file path.
func posIn(path string) func(int) ir.Pos {
	return func(line int) ir.Pos { return ir.Pos{File: path, Line: line} }
}

// parseTestdata parses a file of testdata.
func parseTestdata(t *testing.T, name string) *ir.File {
	t.Helper()
	path := filepath.Join("testdata", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(path, src)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return f
}

// funcNamed returns the function of f with the given name.
func funcNamed(t *testing.T, f *ir.File, name string) *ir.Func {
	t.Helper()
	for _, fn := range f.Funcs {
		if fn.Name == name {
			return fn
		}
	}
	t.Fatalf("no function %q in %s:\n%s", name, f.Path, sprintFile(f))
	return nil
}

// checkIR fails the test with a diff when got differs from want.
func checkIR(t *testing.T, what string, want, got any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}
