package features

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
	"github.com/iolens/iolens/static/pdg"
)

// Small constructors of hand-built IR.

func at(line int) ir.Pos                  { return ir.Pos{File: "t.c", Line: line} }
func ref(n string) ir.Expr                { return ir.Ref{Name: n} }
func num(v int64) ir.Expr                 { return ir.Int{V: v} }
func str(s string) ir.Expr                { return ir.Str{V: s} }
func bin(op string, l, r ir.Expr) ir.Expr { return ir.Binary{Op: op, L: l, R: r} }
func addr(n string) ir.Expr               { return ir.Unary{Op: "&", X: ref(n)} }

func call(line int, callee string, args ...ir.Expr) *ir.Call {
	return &ir.Call{Pos: at(line), Callee: callee, Args: args}
}

// open is "result = callee(args...)" as the front-end hoists it.
func open(line int, result, callee string, args ...ir.Expr) *ir.Call {
	c := call(line, callee, args...)
	c.Result = result
	return c
}

func decl(line int, name string, t ir.Type) *ir.Decl {
	return &ir.Decl{Pos: at(line), Var: &ir.Var{Pos: at(line), Name: name, Type: t}}
}

func assign(line int, target string, v ir.Expr) *ir.Assign {
	return &ir.Assign{Pos: at(line), Target: target, Op: "=", Value: v}
}

// forLoop is "for (v = lo; v < hi; v++) body".
func forLoop(line int, v string, lo, hi ir.Expr, body ...ir.Stmt) *ir.Loop {
	return &ir.Loop{Pos: at(line), Kind: ir.For, Var: v, Lo: lo, Hi: hi, Body: body, EndLine: line + len(body) + 1}
}

func fn(name string, body ...ir.Stmt) *ir.Func {
	return &ir.Func{Name: name, Kind: ir.Function, Pos: at(1), EndLine: 100, Body: body}
}

var (
	double  = ir.Type{Name: "double", Size: 8}
	integer = ir.Type{Name: "int", Size: 4}
	file    = ir.Type{Name: "FILE", Pointer: 1}
)

func cfile(consts map[string]ir.Expr, funcs ...*ir.Func) *ir.File {
	return &ir.File{Path: "t.c", Lang: ir.C, Lines: 100, Consts: consts, Funcs: funcs}
}

func program(files ...*ir.File) *ir.Program { return &ir.Program{Files: files} }

func build(t *testing.T, p *ir.Program, opts pdg.Options) (*pdg.Graph, []Block) {
	t.Helper()
	g, err := pdg.Build(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, Extract(g, System{Procs: 64, StorageTargets: 8, StorageScore: 0.5})
}

// find returns the first block of kind and name, depth first.
func find(t *testing.T, bs []Block, kind, name string) *Block {
	t.Helper()
	if b := search(bs, kind, name); b != nil {
		return b
	}
	t.Fatalf("no %s block %q", kind, name)
	return nil
}

func search(bs []Block, kind, name string) *Block {
	for i := range bs {
		if bs[i].Kind == kind && bs[i].Name == name {
			return &bs[i]
		}
		if b := search(bs[i].Children, kind, name); b != nil {
			return b
		}
	}
	return nil
}

func cause(b *Block, code string) *Cause {
	for i := range b.Causes {
		if b.Causes[i].Code == code {
			return &b.Causes[i]
		}
	}
	return nil
}

// noIO asserts that every I/O parameter of p is zero.
func noIO(t *testing.T, what string, p Params) {
	t.Helper()
	io := p
	io.Work, io.Stack, io.Space = 0, 0, 0
	if io != (Params{}) {
		t.Errorf("%s: I/O params %+v, want all zero", what, io)
	}
}
