package cfront

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

// TestFunctionMacros checks the uses of function-like macros whose
// replacement is an expression: lowered as the expression they expand to,
// with the arguments in place of the parameters and the macros of the
// replacement expanded in turn; the others stay calls.
func TestFunctionMacros(t *testing.T) {
	src := `#define NX 160
#define IDX(i, j) ((size_t)(j) * NX + (i))
#define SQ(x) ((x) * (x))
#define DIST2(a, b) (SQ(a) + SQ(b))
#define AT(g, k) ((g)->cells[k].v)
#define SWAP(a, b) do { int t_ = (a); (a) = (b); (b) = t_; } while (0)
#define LOG(...) printf(__VA_ARGS__)
struct cell { double v; };
struct grid { struct cell cells[64]; };
double f(double *h, struct grid *g, int i, int j) {
    double x = h[IDX(i, j + 1)];
    x += DIST2(i, f2(j));
    x += AT(g, i);
    SWAP(i, j);
    LOG("%d", i);
    return x + SQ(1, 2);
}
`
	f, err := Parse("m.c", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := posIn("m.c")
	sizeT := typ("size_t", 8)
	checkIR(t, "body", ir.Block{
		&ir.Decl{Pos: at(11), Var: &ir.Var{Pos: at(11), Name: "x", Type: typ("double", 8),
			Init: ir.Index{X: ref("h"), Idx: []ir.Expr{
				bin("+", bin("*", ir.Cast{Type: sizeT, X: bin("+", ref("j"), num(1))}, ref("NX")), ref("i"))}}}},
		&ir.Call{Pos: at(12), Callee: "f2", Args: []ir.Expr{ref("j")}},
		&ir.Assign{Pos: at(12), Target: "x", Op: "+=", Value: bin("+",
			bin("*", ref("i"), ref("i")), bin("*", callx("f2", ref("j")), callx("f2", ref("j"))))},
		&ir.Assign{Pos: at(13), Target: "x", Op: "+=", Value: ir.Field{
			X: ir.Index{X: ir.Field{X: ref("g"), Name: "cells"}, Idx: []ir.Expr{ref("i")}}, Name: "v"}},
		&ir.Call{Pos: at(14), Callee: "SWAP", Args: []ir.Expr{ref("i"), ref("j")}},
		&ir.Call{Pos: at(15), Callee: "LOG", Args: []ir.Expr{str("%d"), ref("i")}},
		&ir.Call{Pos: at(16), Callee: "SQ", Args: []ir.Expr{num(1), num(2)}},
		&ir.Return{Pos: at(16), Value: bin("+", ref("x"), callx("SQ", num(1), num(2)))},
	}, funcNamed(t, f, "f").Body)
}
