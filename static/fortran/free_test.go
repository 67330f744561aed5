package fortran

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/ir"
)

// TestFreeFormModule parses a Fortran 2008 module with a checkpoint
// routine and the program driving it: module constants and allocatable
// globals, CONTAINS, INQUIRE, stream OPEN in both IF branches, implied-DO
// WRITE, FLUSH, a time-step loop with SELECT CASE, DO WHILE, a named loop
// with EXIT and the "mod(step, freq) == 0" checkpoint branch.
func TestFreeFormModule(t *testing.T) {
	const path = "testdata/checkpoint.f90"
	f := parseFile(t, path)
	at := func(line int) ir.Pos { return ir.Pos{File: path, Line: line} }
	realdp := ir.Type{Name: "real(kind=dp)", Size: 8}

	wantConsts := map[string]ir.Expr{
		"dp": call("kind", flt(1)), "nx": num(128), "ny": num(64), "prefix": str("ckpt_"),
	}
	if diff := cmp.Diff(wantConsts, f.Consts); diff != "" {
		t.Errorf("Consts (-want +got):\n%s", diff)
	}
	wantGlobals := []*ir.Var{
		{Pos: at(8), Name: "u", Type: withDims(realdp, nil, nil)},
		{Pos: at(8), Name: "v", Type: withDims(realdp, nil, nil)},
		{Pos: at(9), Name: "freq", Type: integer, Init: num(10)},
		{Pos: at(10), Name: "bytes_written", Type: ir.Type{Name: "integer(kind=int64)", Size: 8}, Init: num(0)},
	}
	if diff := cmp.Diff(wantGlobals, f.Globals); diff != "" {
		t.Errorf("Globals (-want +got):\n%s", diff)
	}

	type summary struct {
		Name, Module string
		Kind         ir.FuncKind
		Line, End    int
	}
	var got []summary
	for _, fn := range f.Funcs {
		got = append(got, summary{fn.Name, fn.Module, fn.Kind, fn.Pos.Line, fn.EndLine})
	}
	want := []summary{
		{"init", "sim_io", ir.Subroutine, 12, 16},
		{"checkpoint", "sim_io", ir.Subroutine, 18, 38},
		{"norm", "sim_io", ir.Function, 40, 44},
		{"driver", "", ir.MainProgram, 47, 83},
		{"relax", "", ir.Subroutine, 79, 82},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}

	init := &ir.Func{Name: "init", Kind: ir.Subroutine, Pos: at(12), EndLine: 16, Module: "sim_io",
		Params: []*ir.Var{{Pos: at(12), Name: "n", Type: integer}, {Pos: at(12), Name: "m", Type: integer}},
		Body: ir.Block{
			&ir.Call{Pos: at(14), Callee: "allocate", Args: []ir.Expr{
				idx("u", ref("n"), ref("m")),
				idx("v", bin("+", bin("+", ref("n"), num(1)), num(1)), ref("m"))}},
			&ir.Assign{Pos: at(15), Target: "u", Op: "=", Value: flt(0)},
			&ir.Assign{Pos: at(15), Target: "v", Op: "=", Value: flt(1)},
		}}
	if diff := cmp.Diff(init, fn(t, f, "init")); diff != "" {
		t.Errorf("subroutine init (-want +got):\n%s", diff)
	}

	decl := func(line int, name string, typ ir.Type) ir.Stmt {
		return &ir.Decl{Pos: at(line), Var: &ir.Var{Pos: at(line), Name: name, Type: typ}}
	}
	stream := func(line int, extra map[string]ir.Expr) ir.Stmt {
		specs := map[string]ir.Expr{"newunit": ref("unit"), "file": ref("fname"), "form": str("unformatted"),
			"access": str("stream"), "action": str("write"), "iostat": ref("ios")}
		for k, v := range extra {
			specs[k] = v
		}
		return &ir.FortranIO{Pos: at(line), Op: "open", Specs: specs}
	}
	checkpoint := &ir.Func{Name: "checkpoint", Kind: ir.Subroutine, Pos: at(18), EndLine: 38, Module: "sim_io",
		Params: []*ir.Var{{Pos: at(18), Name: "step", Type: integer}},
		Body: ir.Block{
			decl(20, "unit", integer),
			decl(20, "ios", integer),
			decl(21, "fname", ir.Type{Name: "character(len=64)", Size: 64}),
			decl(22, "there", logical),
			&ir.FortranIO{Pos: at(23), Op: "write", Unit: ref("fname"),
				Specs: map[string]ir.Expr{"fmt": str(`(a, i6.6, ".bin")`)}, Items: []ir.Expr{ref("prefix"), ref("step")}},
			&ir.FortranIO{Pos: at(24), Op: "inquire",
				Specs: map[string]ir.Expr{"file": call("trim", ref("fname")), "exist": ref("there")}},
			&ir.If{Pos: at(25), Cond: ref("there"),
				Then: ir.Block{stream(26, map[string]ir.Expr{"status": str("old"), "position": str("append")})},
				Else: ir.Block{stream(29, map[string]ir.Expr{"status": str("new")})}},
			&ir.If{Pos: at(32), Cond: bin("!=", ref("ios"), num(0)), Then: ir.Block{&ir.Return{Pos: at(32)}}},
			&ir.FortranIO{Pos: at(33), Op: "write", Unit: ref("unit"), Items: []ir.Expr{ref("nx"), ref("ny")}},
			&ir.FortranIO{Pos: at(34), Op: "write", Unit: ref("unit"), Items: []ir.Expr{ir.ImpliedDo{
				Items: []ir.Expr{ir.ImpliedDo{Items: []ir.Expr{idx("u", ref("i"), ref("j"))}, Var: "i", Lo: num(1), Hi: ref("nx"), Step: num(1)}},
				Var:   "j", Lo: num(1), Hi: ref("ny"), Step: num(1)}}},
			&ir.FortranIO{Pos: at(35), Op: "flush", Unit: ref("unit")},
			&ir.FortranIO{Pos: at(36), Op: "close", Unit: ref("unit")},
			&ir.Assign{Pos: at(37), Target: "bytes_written", Op: "=", Value: bin("+", ref("bytes_written"),
				bin("*", bin("/", bin("*", ir.SizeOf{X: ref("u")}, num(8)), num(8)), call("size", ref("u"))))},
		}}
	if diff := cmp.Diff(checkpoint, fn(t, f, "checkpoint")); diff != "" {
		t.Errorf("subroutine checkpoint (-want +got):\n%s", diff)
	}

	norm := fn(t, f, "norm")
	if diff := cmp.Diff([]*ir.Var{{Pos: at(40), Name: "a", Type: withDims(realdp, nil, nil)}}, norm.Params); diff != "" {
		t.Errorf("norm params (-want +got):\n%s", diff)
	}

	calls := func(line int, name string, args ...ir.Expr) *ir.Call {
		return &ir.Call{Pos: at(line), Callee: name, Args: args}
	}
	driver := &ir.Func{Name: "driver", Kind: ir.MainProgram, Pos: at(47), EndLine: 83,
		Body: ir.Block{
			decl(50, "step", integer),
			decl(50, "nsteps", integer),
			decl(50, "mode", integer),
			decl(50, "iter", integer),
			decl(51, "err", realdp),
			&ir.Assign{Pos: at(52), Target: "nsteps", Op: "=", Value: num(1000)},
			&ir.Assign{Pos: at(52), Target: "mode", Op: "=", Value: num(2)},
			calls(53, "init", ref("nx"), ref("ny")),
			&ir.Loop{Pos: at(54), Kind: ir.Do, Var: "step", Lo: num(1), Hi: ref("nsteps"), Step: num(1), Inclusive: true, EndLine: 74,
				Body: ir.Block{
					&ir.Switch{Pos: at(55), Tag: ref("mode"), Cases: []ir.Block{
						{calls(57, "relax", ref("u"))},
						{
							&ir.Assign{Pos: at(59), Target: "err", Op: "=", Value: flt(1)},
							&ir.Assign{Pos: at(60), Target: "iter", Op: "=", Value: num(0)},
							&ir.Loop{Pos: at(61), Kind: ir.While, EndLine: 64,
								Cond: bin("&&", bin(">", ref("err"), flt(1e-6)), bin("<", ref("iter"), num(100))),
								Body: ir.Block{
									calls(62, "norm", ref("u")),
									&ir.Assign{Pos: at(62), Target: "err", Op: "=", Value: bin("*", call("norm", ref("u")), flt(0.5))},
									&ir.Assign{Pos: at(63), Target: "iter", Op: "=", Value: bin("+", ref("iter"), num(1))},
								}},
						},
						{&ir.Jump{Pos: at(66), Kind: "exit", Label: "time"}},
					}},
					&ir.If{Pos: at(68), Cond: bin("==", call("mod", ref("step"), ref("freq")), num(0)),
						Then: ir.Block{calls(69, "checkpoint", ref("step"))},
						Else: ir.Block{&ir.If{Pos: at(70), Cond: bin("==", ref("step"), ref("nsteps")),
							Then: ir.Block{calls(71, "checkpoint", num(-1))}}}},
					&ir.If{Pos: at(73), Cond: bin("<", ref("err"), num(0)),
						Then: ir.Block{&ir.Jump{Pos: at(73), Kind: "exit", Label: "time"}}},
				}},
			calls(75, "norm", ref("u")),
			&ir.FortranIO{Pos: at(75), Op: "write", Unit: str("*"), Specs: map[string]ir.Expr{"fmt": str("(a, g0)")},
				Items: []ir.Expr{str("final norm = "), call("norm", ref("u"))}},
			calls(76, "flush", num(6)),
			&ir.FortranIO{Pos: at(77), Op: "print", Specs: map[string]ir.Expr{"fmt": str("*")},
				Items: []ir.Expr{str(`done; it's "ok" ! really`)}},
		}}
	if diff := cmp.Diff(driver, fn(t, f, "driver")); diff != "" {
		t.Errorf("program driver (-want +got):\n%s", diff)
	}
}
