package cfront

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func TestGridCPP(t *testing.T) {
	f := parseTestdata(t, "grid.cc")
	at := posIn("testdata/grid.cc")

	if f.Lang != ir.CPP || f.Lines != 43 || len(f.Errors) != 0 {
		t.Fatalf("Lang %q, Lines %d, Errors %v; want c++, 43, none", f.Lang, f.Lines, f.Errors)
	}
	checkIR(t, "Consts", map[string]ir.Expr{"sim::kRanks": num(4)}, f.Consts)

	type sig struct {
		Name, Module string
		Kind         ir.FuncKind
		Line, End    int
	}
	var sigs []sig
	for _, fn := range f.Funcs {
		sigs = append(sigs, sig{fn.Name, fn.Module, fn.Kind, fn.Pos.Line, fn.EndLine})
	}
	checkIR(t, "functions", []sig{
		{"sim::Grid::Grid", "sim::Grid", ir.Method, 11, 11},
		{"sim::Grid::fill", "sim::Grid", ir.Method, 12, 15},
		{"sim::Grid::dump$scale", "sim::Grid", ir.Lambda, 27, 27},
		{"sim::Grid::dump", "sim::Grid", ir.Method, 22, 32},
		{"main", "", ir.Function, 36, 43},
	}, sigs)

	// Methods see the data members, declared after them; a member
	// initialiser constructs its member.
	members := []*ir.Var{{Pos: at(19), Name: "data_", Type: typ("std::vector<double>", 0)}}
	for _, name := range []string{"sim::Grid::Grid", "sim::Grid::fill", "sim::Grid::dump"} {
		checkIR(t, name+" members", members, funcNamed(t, f, name).Members)
	}
	checkIR(t, "constructor", ir.Block{
		&ir.Call{Pos: at(11), Callee: "std::vector<double>", Args: []ir.Expr{ref("n")}, Result: "data_"},
		&ir.Decl{Pos: at(11), Var: &ir.Var{Pos: at(11), Name: "data_", Type: typ("std::vector<double>", 0), Init: callx("std::vector<double>", ref("n"))}},
	}, funcNamed(t, f, "sim::Grid::Grid").Body)

	checkIR(t, "fill", ir.Block{
		&ir.Loop{
			Pos: at(13), Kind: ir.RangeFor, Var: "x", Cond: ref("data_"), EndLine: 14,
			Body: ir.Block{
				&ir.Decl{Pos: at(13), Var: &ir.Var{Pos: at(13), Name: "x", Type: typ("auto", 0)}},
				&ir.Assign{Pos: at(14), Target: "x", Op: "=", Value: ref("v")},
			},
		},
	}, funcNamed(t, f, "sim::Grid::fill").Body)

	dump := funcNamed(t, f, "sim::Grid::dump")
	checkIR(t, "dump params", []*ir.Var{
		{Pos: at(22), Name: "path", Type: typ("std::string", 0), Const: true},
	}, dump.Params)
	ctorArgs := []ir.Expr{ref("path"), ref("std::ios::binary")}
	size := func(line int) *ir.Call { return &ir.Call{Pos: at(line), Callee: "size", Receiver: ref("data_")} }
	writeArgs := []ir.Expr{
		ir.Cast{Type: ptr("char", 1, 1), X: callx("data")},
		bin("*", callx("size"), sizeofT("double", 8)),
	}
	newArgs := []ir.Expr{callx("size"), sizeofT("double", 8)}
	elem := ir.Index{X: ref("data_"), Idx: []ir.Expr{ref("i")}}
	checkIR(t, "dump", ir.Block{
		// std::ofstream ofs(path, mode): a constructor call with a result.
		&ir.Call{Pos: at(24), Callee: "std::ofstream", Args: ctorArgs, Result: "ofs"},
		&ir.Decl{Pos: at(24), Var: &ir.Var{Pos: at(24), Name: "ofs", Type: typ("std::ofstream", 0), Init: callx("std::ofstream", ctorArgs...)}},
		// ofs << ... stays a chain of Binary "<<" on the stream.
		size(25),
		&ir.Assign{Pos: at(25), Target: "ofs", Op: "<<", Partial: true,
			Value: bin("<<", bin("<<", bin("<<", ref("ofs"), str("size ")), callx("size")), str("\n"))},
		// ofs.write(...): member call, innermost calls first.
		&ir.Call{Pos: at(26), Callee: "data", Receiver: ref("data_")},
		size(26),
		&ir.Call{Pos: at(26), Callee: "write", Receiver: ref("ofs"), Args: writeArgs},
		// A lambda a variable holds is a function of its own, which the
		// variable names.
		&ir.Decl{Pos: at(27), Var: &ir.Var{Pos: at(27), Name: "scale", Type: typ("auto", 0), Init: ref("sim::Grid::dump$scale")}},
		size(28),
		&ir.Call{Pos: at(28), Callee: "new[]", Args: newArgs, Result: "tmp"},
		&ir.Decl{Pos: at(28), Var: &ir.Var{Pos: at(28), Name: "tmp", Type: ptr("double", 8, 1), Init: callx("new[]", newArgs...)}},
		&ir.Decl{Pos: at(29), Var: &ir.Var{Pos: at(29), Name: "i", Type: typ("std::size_t", 8), Init: num(0)}},
		// The bound is a call: not a counted loop; the call runs at the
		// start of each iteration and the update at its end.
		&ir.Loop{
			Pos: at(29), Kind: ir.For, Cond: bin("<", ref("i"), callx("size")), EndLine: 30,
			Body: ir.Block{
				size(29),
				&ir.Call{Pos: at(30), Indirect: true, Via: "scale", Args: []ir.Expr{elem}},
				&ir.Assign{Pos: at(30), Target: "tmp", Op: "=", Value: ir.CallExpr{Callee: "scale", Args: []ir.Expr{elem}}, Partial: true,
					Element: ir.Index{X: ref("tmp"), Idx: []ir.Expr{ref("i")}}},
				&ir.Assign{Pos: at(29), Target: "i", Op: "+=", Value: num(1)},
			},
		},
		&ir.Call{Pos: at(31), Callee: "delete[]", Args: []ir.Expr{ref("tmp")}},
	}, dump.Body)
	scale := funcNamed(t, f, "sim::Grid::dump$scale")
	checkIR(t, "lambda parameters", []*ir.Var{{Pos: at(27), Name: "s", Type: typ("double", 8)}}, scale.Params)
	checkIR(t, "lambda body", ir.Block{&ir.Return{Pos: at(27), Value: bin("*", ref("s"), num(2))}}, scale.Body)

	checkIR(t, "main", ir.Block{
		&ir.Call{Pos: at(38), Callee: "sim::Grid", Args: []ir.Expr{num(16)}, Result: "g"},
		&ir.Decl{Pos: at(38), Var: &ir.Var{Pos: at(38), Name: "g", Type: typ("sim::Grid", 0), Init: callx("sim::Grid", num(16))}},
		&ir.Call{Pos: at(39), Callee: "fill", Receiver: ref("g"), Args: []ir.Expr{ir.Float{V: 1}}},
		&ir.Call{Pos: at(40), Callee: "dump", Receiver: ref("g"), Args: []ir.Expr{str("grid.bin")}},
		&ir.Call{Pos: at(41), Callee: "std::fwrite", Args: []ir.Expr{str("x"), num(1), num(1), ref("stdout")}},
		&ir.Return{Pos: at(42), Value: num(0)},
	}, funcNamed(t, f, "main").Body)
}

func TestSyntaxErrors(t *testing.T) {
	f := parseTestdata(t, "broken.c")
	at := posIn("testdata/broken.c")

	checkIR(t, "Errors", []ir.Error{
		{Pos: at(8), Msg: `syntax error near "="`},
		{Pos: at(9), Msg: `syntax error: missing "identifier"`},
		{Pos: at(12), Msg: `syntax error: missing ";"`},
		{Pos: at(17), Msg: `syntax error near "@@@"`},
	}, f.Errors)
	var names []string
	for _, fn := range f.Funcs {
		names = append(names, fn.Name)
	}
	checkIR(t, "functions", []string{"before", "broken", "middle", "after"}, names)

	// The damaged loop keeps its body; its bound is unknown.
	checkIR(t, "broken", ir.Block{
		&ir.Assign{Pos: at(8), Target: "x", Op: "=", Value: num(3)},
		&ir.Assign{Pos: at(9), Target: "i", Op: "=", Value: num(0)},
		&ir.Loop{
			Pos: at(9), Kind: ir.For, Cond: bin("<", ref("i"), ir.Unknown{}), EndLine: 11,
			Body: ir.Block{
				&ir.Call{Pos: at(10), Callee: "write", Args: []ir.Expr{num(1), str("x"), num(1)}},
				&ir.Assign{Pos: at(9), Target: "i", Op: "+=", Value: num(1)},
			},
		},
		&ir.Return{Pos: at(12), Value: ref("a")},
	}, funcNamed(t, f, "broken").Body)
	checkIR(t, "after", ir.Block{
		&ir.Decl{Pos: at(21), Var: &ir.Var{Pos: at(21), Name: "k", Type: typ("int", 4), Init: num(0)}},
		&ir.Loop{
			Pos: at(21), Kind: ir.For, Var: "k", Lo: num(0), Hi: num(8), Step: num(1), EndLine: 22,
			Body: ir.Block{&ir.Call{Pos: at(22), Callee: "fsync", Args: []ir.Expr{ref("fd")}}},
		},
		&ir.Return{Pos: at(23), Value: num(0)},
	}, funcNamed(t, f, "after").Body)
}

// TestNamespaceNames checks that a name used inside a namespace refers to
// the constant or variable of the innermost enclosing namespace that
// declares it, by its qualified name, unless a local hides it.
func TestNamespaceNames(t *testing.T) {
	src := `namespace lattice {
const int L = 256;
int hits = 0;
namespace inner {
const int L = 8;
int f(int *a) { for (int i = 0; i < L; i++) a[i] = i; hits = L; return L; }
}
int g(int L2) { int hits = 1; return L + L2 + hits; }
}
int L = 3;
int h() { return L + lattice::L; }
`
	f, err := Parse("ns.cc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := posIn("ns.cc")
	inner := funcNamed(t, f, "lattice::inner::f").Body
	checkIR(t, "inner loop bound", ref("lattice::inner::L"), inner[1].(*ir.Loop).Hi)
	checkIR(t, "inner assignment", &ir.Assign{Pos: at(6), Target: "lattice::hits", Op: "=", Value: ref("lattice::inner::L")}, inner[2])
	checkIR(t, "outer return", &ir.Return{Pos: at(8), Value: bin("+", bin("+", ref("lattice::L"), ref("L2")), ref("hits"))},
		funcNamed(t, f, "lattice::g").Body[1])
	checkIR(t, "file scope", &ir.Return{Pos: at(11), Value: bin("+", ref("L"), ref("lattice::L"))}, funcNamed(t, f, "h").Body[0])
}
