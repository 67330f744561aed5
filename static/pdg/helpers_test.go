package pdg

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func at(line int) ir.Pos                  { return ir.Pos{File: "t.c", Line: line} }
func ref(n string) ir.Expr                { return ir.Ref{Name: n} }
func num(v int64) ir.Expr                 { return ir.Int{V: v} }
func str(s string) ir.Expr                { return ir.Str{V: s} }
func bin(op string, l, r ir.Expr) ir.Expr { return ir.Binary{Op: op, L: l, R: r} }
func addr(n string) ir.Expr               { return ir.Unary{Op: "&", X: ref(n)} }

func call(line int, callee string, args ...ir.Expr) *ir.Call {
	return &ir.Call{Pos: at(line), Callee: callee, Args: args}
}

func callInto(line int, result, callee string, args ...ir.Expr) *ir.Call {
	c := call(line, callee, args...)
	c.Result = result
	return c
}

func decl(line int, name string, t ir.Type, init ir.Expr) *ir.Decl {
	return &ir.Decl{Pos: at(line), Var: &ir.Var{Pos: at(line), Name: name, Type: t, Init: init}}
}

func fn(name string, params []*ir.Var, body ...ir.Stmt) *ir.Func {
	return &ir.Func{Name: name, Kind: ir.Function, Pos: at(1), EndLine: 50, Params: params, Body: body}
}

func cprog(consts map[string]ir.Expr, funcs ...*ir.Func) *ir.Program {
	return &ir.Program{Files: []*ir.File{{Path: "t.c", Lang: ir.C, Lines: 50, Consts: consts, Funcs: funcs}}}
}

var (
	intT  = ir.Type{Name: "int", Size: 4}
	fileT = ir.Type{Name: "FILE", Pointer: 1}
	argvT = ir.Type{Name: "char", Size: 1, Pointer: 2}
)

func mustBuild(t *testing.T, p *ir.Program, o Options) *Graph {
	t.Helper()
	g, err := Build(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// first returns the first node of kind under n, depth first.
func first(n *Node, kind Kind) *Node {
	for _, c := range n.Children {
		if c.Kind == kind {
			return c
		}
		if f := first(c, kind); f != nil {
			return f
		}
	}
	return nil
}
