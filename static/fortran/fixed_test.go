package fortran

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/ir"
)

// TestFixedFormProgram parses a FORTRAN 77 heat solver: labelled DO loops
// sharing terminal labels, continuation lines, COMMON, IMPLICIT,
// PARAMETER, FORMAT labels, direct-access unformatted I/O, a sequence
// number after column 72.
func TestFixedFormProgram(t *testing.T) {
	const path = "testdata/heat77.f"
	f := parseFile(t, path)
	at := func(line int) ir.Pos { return ir.Pos{File: path, Line: line} }

	wantConsts := map[string]ir.Expr{
		"nx": num(64), "ny": num(32), "nstep": num(100),
		"lrec": bin("*", bin("*", num(8), ref("nx")), ref("ny")),
	}
	if diff := cmp.Diff(wantConsts, f.Consts); diff != "" {
		t.Errorf("Consts (-want +got):\n%s", diff)
	}
	if f.Lines != 54 || f.Lang != ir.Fortran || len(f.Globals) != 0 {
		t.Errorf("Lines %d, Lang %q, %d globals", f.Lines, f.Lang, len(f.Globals))
	}

	decl := func(line int, name string, typ ir.Type, init ir.Expr) ir.Stmt {
		return &ir.Decl{Pos: at(line), Var: &ir.Var{Pos: at(line), Name: name, Type: typ, Init: init, Const: init != nil}}
	}
	tij := idx("t", ref("i"), ref("j"))
	main := &ir.Func{
		Name: "heat77", Kind: ir.MainProgram, Pos: at(3), EndLine: 32,
		Body: ir.Block{
			decl(5, "nx", integer, num(64)),
			decl(5, "ny", integer, num(32)),
			decl(5, "nstep", integer, num(100)),
			decl(6, "lrec", integer, wantConsts["lrec"]),
			decl(7, "t", withDims(double, ref("nx"), ref("ny")), nil),
			decl(7, "tnew", lowered(withDims(double, bin("+", bin("+", ref("nx"), num(1)), num(1)), ref("ny")), num(0), nil), nil),
			decl(8, "dx", double, nil),
			decl(8, "dy", double, nil),
			decl(8, "ncells", integer, nil),
			decl(9, "irec", integer, nil),
			decl(10, "fname", ir.Type{Name: "character(len=32)", Size: 32}, nil),
			&ir.Assign{Pos: at(12), Target: "dx", Op: "=", Value: bin("/", flt(1), ref("nx"))},
			&ir.Assign{Pos: at(13), Target: "dy", Op: "=", Value: bin("/", flt(1), call("dble", ref("ny")))},
			&ir.Loop{Pos: at(14), Kind: ir.Do, Var: "j", Lo: num(1), Hi: ref("ny"), Step: num(1), Inclusive: true, EndLine: 17,
				Body: ir.Block{&ir.Loop{Pos: at(15), Kind: ir.Do, Var: "i", Lo: num(1), Hi: ref("nx"), Step: num(1), Inclusive: true, EndLine: 17,
					Body: ir.Block{&ir.Assign{Pos: at(16), Target: "t", Op: "=", Value: flt(0), Partial: true}}}}},
			&ir.Assign{Pos: at(18), Target: "fname", Op: "=", Value: str("heat.dat")},
			&ir.FortranIO{Pos: at(19), Op: "open", Unit: num(11), Specs: map[string]ir.Expr{
				"file": ref("fname"), "access": str("DIRECT"), "form": str("UNFORMATTED"),
				"recl": ref("lrec"), "status": str("REPLACE")}},
			&ir.Assign{Pos: at(21), Target: "irec", Op: "=", Value: num(0)},
			&ir.Loop{Pos: at(22), Kind: ir.Do, Var: "istep", Lo: num(1), Hi: ref("nstep"), Step: num(1), Inclusive: true, EndLine: 29,
				Body: ir.Block{
					&ir.Call{Pos: at(23), Callee: "step", Args: []ir.Expr{ref("t"), ref("tnew"), ref("nx"), ref("ny")}},
					&ir.If{Pos: at(24), Cond: bin("==", call("mod", ref("istep"), num(10)), num(0)), Then: ir.Block{
						&ir.Assign{Pos: at(25), Target: "irec", Op: "=", Value: bin("+", ref("irec"), num(1))},
						&ir.FortranIO{Pos: at(26), Op: "write", Unit: num(11), Specs: map[string]ir.Expr{"rec": ref("irec")},
							Items: []ir.Expr{ir.ImpliedDo{
								Items: []ir.Expr{ir.ImpliedDo{Items: []ir.Expr{tij}, Var: "i", Lo: num(1), Hi: ref("nx"), Step: num(1)}},
								Var:   "j", Lo: num(1), Hi: ref("ny"), Step: num(1)}}},
						&ir.Call{Pos: at(27), Callee: "tsum", Args: []ir.Expr{ref("t"), bin("*", ref("nx"), ref("ny"))}},
						&ir.FortranIO{Pos: at(27), Op: "write", Unit: num(6), Specs: map[string]ir.Expr{"fmt": num(900)},
							Items: []ir.Expr{ref("istep"), call("tsum", ref("t"), bin("*", ref("nx"), ref("ny")))}},
					}},
				}},
			&ir.FortranIO{Pos: at(30), Op: "close", Unit: num(11)},
		},
	}
	if diff := cmp.Diff(main, fn(t, f, "heat77")); diff != "" {
		t.Errorf("program heat77 (-want +got):\n%s", diff)
	}

	arr := withDims(double, ref("nx"), ref("ny"))
	step := &ir.Func{
		Name: "step", Kind: ir.Subroutine, Pos: at(35), EndLine: 45,
		Params: []*ir.Var{
			{Pos: at(35), Name: "t", Type: arr},
			{Pos: at(35), Name: "tnew", Type: lowered(withDims(double, bin("+", bin("+", ref("nx"), num(1)), num(1)), ref("ny")), num(0), nil)},
			{Pos: at(35), Name: "nx", Type: integer},
			{Pos: at(35), Name: "ny", Type: integer},
		},
		Body: ir.Block{
			&ir.Loop{Pos: at(38), Kind: ir.Do, Var: "j", Lo: num(2), Hi: bin("-", ref("ny"), num(1)), Step: num(1), Inclusive: true, EndLine: 40,
				Body: ir.Block{&ir.Loop{Pos: at(39), Kind: ir.Do, Var: "i", Lo: num(2), Hi: bin("-", ref("nx"), num(1)), Step: num(1), Inclusive: true, EndLine: 40,
					Body: ir.Block{&ir.Assign{Pos: at(40), Target: "tnew", Op: "=", Partial: true, Value: bin("*", flt(0.25),
						bin("+", bin("+", bin("+",
							idx("t", bin("-", ref("i"), num(1)), ref("j")),
							idx("t", bin("+", ref("i"), num(1)), ref("j"))),
							idx("t", ref("i"), bin("-", ref("j"), num(1)))),
							idx("t", ref("i"), bin("+", ref("j"), num(1)))))}}}}},
			&ir.If{Pos: at(42), Cond: bin("<", ref("nx"), num(3)), Then: ir.Block{&ir.Jump{Pos: at(42), Kind: "goto", Label: "99"}}},
			&ir.Return{Pos: at(43)},
			&ir.Jump{Pos: at(44), Kind: "stop"},
		},
	}
	if diff := cmp.Diff(step, fn(t, f, "step")); diff != "" {
		t.Errorf("subroutine step (-want +got):\n%s", diff)
	}

	ak := idx("a", ref("k"))
	tsum := &ir.Func{
		Name: "tsum", Kind: ir.Function, Pos: at(47), EndLine: 54,
		Params: []*ir.Var{
			{Pos: at(47), Name: "a", Type: withDims(double, ref("n"))},
			{Pos: at(47), Name: "n", Type: integer},
		},
		Body: ir.Block{
			&ir.Decl{Pos: at(47), Var: &ir.Var{Pos: at(47), Name: "tsum", Type: double}},
			&ir.Assign{Pos: at(50), Target: "tsum", Op: "=", Value: flt(0)},
			&ir.Loop{Pos: at(51), Kind: ir.Do, Var: "k", Lo: num(1), Hi: ref("n"), Step: num(1), Inclusive: true, EndLine: 53,
				Body: ir.Block{&ir.If{Pos: at(52), Cond: bin(">", ak, flt(0)), Then: ir.Block{
					&ir.Assign{Pos: at(52), Target: "tsum", Op: "=", Value: bin("+", ref("tsum"), ak)}}}}},
		},
	}
	if diff := cmp.Diff(tsum, fn(t, f, "tsum")); diff != "" {
		t.Errorf("function tsum (-want +got):\n%s", diff)
	}
	if len(f.Funcs) != 3 {
		t.Errorf("got %d functions, want 3", len(f.Funcs))
	}
}
