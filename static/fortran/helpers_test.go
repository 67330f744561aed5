package fortran

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/iolens/iolens/static/ir"
)

// Types and expression shorthands for expected IR.
var (
	integer = ir.Type{Name: "integer", Size: 4}
	real4   = ir.Type{Name: "real", Size: 4}
	double  = ir.Type{Name: "double precision", Size: 8}
	logical = ir.Type{Name: "logical", Size: 4}
)

func ref(name string) ir.Expr { return ir.Ref{Name: name} }
func num(v int64) ir.Expr     { return ir.Int{V: v} }
func flt(v float64) ir.Expr   { return ir.Float{V: v} }
func str(s string) ir.Expr    { return ir.Str{V: s} }

func bin(op string, l, r ir.Expr) ir.Expr { return ir.Binary{Op: op, L: l, R: r} }

func idx(name string, i ...ir.Expr) ir.Expr { return ir.Index{X: ir.Ref{Name: name}, Idx: i} }

func call(name string, args ...ir.Expr) ir.Expr {
	if args == nil {
		args = []ir.Expr{}
	}
	return ir.CallExpr{Callee: name, Args: args}
}

func withDims(t ir.Type, dims ...ir.Expr) ir.Type {
	t.Dims = dims
	return t
}

// lowered returns t with the lower bounds lower.
func lowered(t ir.Type, lower ...ir.Expr) ir.Type {
	t.Lower = lower
	return t
}

// parseFile parses a file of testdata and fails on errors.
func parseFile(t *testing.T, path string) *ir.File {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(path, src)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	if len(f.Errors) > 0 {
		t.Errorf("Parse(%s) errors: %v", path, f.Errors)
	}
	return f
}

// fn returns the function name of f.
func fn(t *testing.T, f *ir.File, name string) *ir.Func {
	t.Helper()
	for _, fn := range f.Funcs {
		if fn.Name == name {
			return fn
		}
	}
	t.Fatalf("no function %s in %s; IR:\n%s", name, f.Path, dump(f))
	return nil
}

// ignorePos ignores positions in snippet tests.
var ignorePos = cmp.Options{cmpopts.IgnoreTypes(ir.Pos{}), cmpopts.IgnoreFields(ir.Loop{}, "EndLine")}

// body parses the free-form statements src as the body of a subroutine
// and returns its IR, failing on errors.
func body(t *testing.T, src string) ir.Block {
	t.Helper()
	f, err := ParseForm("snippet.f90", []byte("subroutine s\n"+src+"\nend subroutine s\n"), Free)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Errors) > 0 || len(f.Funcs) != 1 {
		t.Fatalf("parsing %q: errors %v; IR:\n%s", src, f.Errors, dump(f))
	}
	return f.Funcs[0].Body
}

// checkBody compares the IR of the snippet src with want, ignoring
// positions.
func checkBody(t *testing.T, src string, want ir.Block) {
	t.Helper()
	if diff := cmp.Diff(want, body(t, src), ignorePos); diff != "" {
		t.Errorf("IR of %q mismatch (-want +got):\n%s", src, diff)
	}
}
