package pdg

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func TestEval(t *testing.T) {
	env := NewEnv(map[string]ir.Expr{"N": num(100), "M": bin("*", ref("N"), num(2))}, []string{"500", "2.5"})
	env.Declare(&ir.Var{Name: "a", Type: ir.Type{Name: "double", Size: 8, Dims: []ir.Expr{ref("N"), ref("M")}}})
	env.Declare(&ir.Var{Name: "buf", Type: ir.Type{Name: "char", Size: 1, Dims: []ir.Expr{num(4096)}}})
	env.Declare(&ir.Var{Name: "argv", Type: ir.Type{Name: "char", Pointer: 2}})
	env.Set("argv", Value{Kind: Argv, Origin: Argument})
	env.Declare(&ir.Var{Name: "n", Type: intT})
	env.Set("n", IntValue(7, Literal))
	for _, c := range []struct {
		name string
		x    ir.Expr
		want Value
	}{
		{"arith", bin("-", bin("+", num(2), bin("*", num(3), num(4))), bin("/", num(9), num(2))), IntValue(10, Literal)},
		{"mod", bin("%", num(17), num(5)), IntValue(2, Literal)},
		{"shift", bin("<<", num(1), bin(">>", num(64), num(2))), IntValue(1<<16, Literal)},
		{"compare", bin("&&", bin("<", num(1), num(2)), bin(">=", num(3), num(3))), IntValue(1, Literal)},
		{"float", bin("*", ir.Float{V: 1.5}, num(2)), FloatValue(3, Literal)},
		{"power", bin("**", num(2), num(10)), IntValue(1024, Literal)},
		{"constant", ref("M"), IntValue(200, Constant)},
		{"propagated", bin("+", ref("n"), num(1)), IntValue(8, Propagated)},
		{"sizeof type", ir.SizeOf{Type: ir.Type{Name: "double", Size: 8}}, IntValue(8, Literal)},
		{"sizeof array", ir.SizeOf{X: ref("a")}, IntValue(100*200*8, Literal)},
		{"sizeof row", ir.SizeOf{X: ir.Index{X: ref("a"), Idx: []ir.Expr{num(0)}}}, IntValue(200*8, Literal)},
		{"sizeof buf", ir.SizeOf{X: ref("buf")}, IntValue(4096, Literal)},
		{"sizeof base type", ir.SizeOf{Type: ir.Type{Name: "long"}}, IntValue(8, Literal)},
		{"fortran kind", ir.SizeOf{Type: ir.Type{Name: "real(kind=8)", Dims: []ir.Expr{bin(":", num(0), num(9))}}}, IntValue(80, Literal)},
		{"atoi argv", ir.CallExpr{Callee: "atoi", Args: []ir.Expr{ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}}}, IntValue(500, Argument)},
		{"atof argv", ir.CallExpr{Callee: "atof", Args: []ir.Expr{ir.Index{X: ref("argv"), Idx: []ir.Expr{num(2)}}}}, FloatValue(2.5, Argument)},
		{"min", ir.CallExpr{Callee: "min", Args: []ir.Expr{ref("N"), num(5)}}, IntValue(5, Constant)},
		{"min of a chunk", ir.CallExpr{Callee: "min", Args: []ir.Expr{ref("N"), bin("-", ref("total"), ref("off"))}}, IntValue(100, Bound)},
		{"max unknown", ir.CallExpr{Callee: "max", Args: []ir.Expr{ref("N"), ref("total")}}, Value{}},
		{"min of a mean", ir.CallExpr{Callee: "min", Args: []ir.Expr{ir.Cond{C: ref("torn"), T: num(4), F: num(8)}, ref("total")}}, Value{}},
		{"cond", ir.Cond{C: bin(">", ref("N"), num(0)), T: num(1), F: num(2)}, IntValue(1, Constant)},
		{"cond undecided", ir.Cond{C: ref("torn"), T: num(4), F: num(8)}, IntValue(6, Bound)},
		{"cond undecided reals", ir.Cond{C: bin("<", ref("x"), num(0)), T: ir.Float{V: 0.5}, F: num(2)}, FloatValue(1.25, Bound)},
		{"cond special case", ir.Cond{C: bin("==", ref("x"), num(0)), T: num(4), F: num(8)}, IntValue(8, Bound)},
		{"symbol", ref("MPI_DOUBLE"), Value{Kind: Sym, S: "MPI_DOUBLE"}},
		{"unknown", bin("+", ref("MPI_DOUBLE"), num(1)), Value{}},
		{"div zero", bin("/", num(1), num(0)), Value{}},
	} {
		got := Eval(c.x, env)
		if !got.equal(c.want) || got.Origin != c.want.Origin {
			t.Errorf("%s: got %v (origin %d), want %v (origin %d)", c.name, got, got.Origin, c.want, c.want.Origin)
		}
	}
}

// TestOps counts the operations of expressions: one per operator,
// divisionOps for a division or remainder, and, in subscripts, only what
// compilers cannot fold into an address.
func TestOps(t *testing.T) {
	idx := func(x ir.Expr, subs ...ir.Expr) ir.Expr { return ir.Index{X: x, Idx: subs} }
	for _, c := range []struct {
		name string
		x    ir.Expr
		want float64
	}{
		{"arith", bin("+", bin("*", ref("a"), ref("b")), ref("c")), 2},
		{"division", bin("/", ref("a"), ref("b")), divisionOps},
		{"row-major element", idx(ref("c"), bin("+", bin("*", ref("j"), ref("NX")), ref("i"))), 0},
		{"stencil", bin("-", idx(ref("c"), bin("+", bin("*", ref("j"), ref("NX")), bin("+", ref("i"), num(1)))), idx(ref("c"), ref("k"))), 1},
		{"hashed subscript", idx(ref("x"), bin("%", ref("s"), ref("n"))), divisionOps},
		{"indirect", idx(ref("x"), idx(ref("perm"), bin("+", ref("k"), num(1)))), 0},
		{"computed subscript", idx(ref("h"), ir.Cast{Type: intT, X: bin("*", ref("v"), ref("scale"))}), 1},
	} {
		if got := ops(c.x, false); got != c.want {
			t.Errorf("%s: %v ops, want %v", c.name, got, c.want)
		}
	}
}
