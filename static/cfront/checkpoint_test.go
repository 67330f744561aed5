package cfront

import (
	"testing"

	"github.com/iolens/iolens/static/ir"
)

func TestCheckpointC(t *testing.T) {
	f := parseTestdata(t, "checkpoint.c")
	at := posIn("testdata/checkpoint.c")

	if f.Lang != ir.C || f.Lines != 82 || len(f.Errors) != 0 {
		t.Fatalf("Lang %q, Lines %d, Errors %v; want c, 82, none", f.Lang, f.Lines, f.Errors)
	}
	checkIR(t, "Consts", map[string]ir.Expr{
		"NSTEPS":      num(100),
		"BUF":         bin("*", num(4), num(1024)),
		"NAME":        str("ckpt.dat"),
		"MODE_READ":   num(0),
		"MODE_WRITE":  num(4),
		"MODE_APPEND": num(5),
		"nx":          num(64),
	}, f.Consts)
	checkIR(t, "Globals", []*ir.Var{
		{Pos: at(21), Name: "nx", Type: typ("int", 4), Init: num(64), Const: true},
		{Pos: at(22), Name: "grid", Type: ir.Type{Name: "double", Size: 8, Dims: []ir.Expr{num(64), num(64)}}},
		{Pos: at(24), Name: "handlers", Type: ir.Type{Name: "handler_t", Size: 8, Dims: []ir.Expr{num(4)}}},
	}, f.Globals)

	var names []string
	for _, fn := range f.Funcs {
		names = append(names, fn.Name)
	}
	checkIR(t, "functions", []string{"checkpoint", "copy", "main"}, names)

	// fwrite under if (step % 10 == 0) in the counted step loop; fflush in
	// the loop.
	checkIR(t, "checkpoint", &ir.Func{
		Name: "checkpoint", Kind: ir.Function, Pos: at(26), EndLine: 35,
		Params: []*ir.Var{
			{Pos: at(26), Name: "f", Type: ptr("FILE", 0, 1)},
			{Pos: at(26), Name: "data", Type: ptr("double", 8, 1)},
			{Pos: at(26), Name: "n", Type: typ("size_t", 8)},
		},
		Body: ir.Block{
			&ir.Decl{Pos: at(28), Var: &ir.Var{Pos: at(28), Name: "step", Type: typ("int", 4)}},
			&ir.Assign{Pos: at(29), Target: "step", Op: "=", Value: num(0)},
			&ir.Loop{
				Pos: at(29), Kind: ir.For, Var: "step", Lo: num(0), Hi: ref("NSTEPS"), Step: num(1), EndLine: 34,
				Body: ir.Block{
					&ir.If{
						Pos:  at(30),
						Cond: bin("==", bin("%", ref("step"), num(10)), num(0)),
						Then: ir.Block{&ir.Call{Pos: at(31), Callee: "fwrite",
							Args: []ir.Expr{ref("data"), sizeofT("double", 8), ref("n"), ref("f")}}},
					},
					&ir.Call{Pos: at(33), Callee: "fflush", Args: []ir.Expr{ref("f")}},
				},
			},
		},
	}, funcNamed(t, f, "checkpoint"))

	// while ((n = read(fd, buf, sizeof buf)) > 0): the call and the
	// assignment run at the start of every iteration.
	readArgs := []ir.Expr{ref("fd"), ref("buf"), ir.SizeOf{X: ref("buf")}}
	checkIR(t, "copy", &ir.Func{
		Name: "copy", Kind: ir.Function, Pos: at(37), EndLine: 47,
		Params: []*ir.Var{
			{Pos: at(37), Name: "fd", Type: typ("int", 4)},
			{Pos: at(37), Name: "out", Type: typ("int", 4)},
		},
		Body: ir.Block{
			&ir.Decl{Pos: at(39), Var: &ir.Var{Pos: at(39), Name: "buf", Type: ir.Type{Name: "char", Size: 1, Dims: []ir.Expr{ref("BUF")}}}},
			&ir.Decl{Pos: at(40), Var: &ir.Var{Pos: at(40), Name: "n", Type: typ("ssize_t", 8)}},
			&ir.Decl{Pos: at(41), Var: &ir.Var{Pos: at(41), Name: "total", Type: typ("long", 8), Init: num(0)}},
			&ir.Loop{
				Pos: at(42), Kind: ir.While, Cond: bin(">", ref("n"), num(0)), EndLine: 45,
				Body: ir.Block{
					&ir.Call{Pos: at(42), Callee: "read", Args: readArgs, Result: "n"},
					&ir.Assign{Pos: at(42), Target: "n", Op: "=", Value: callx("read", readArgs...)},
					&ir.Assign{Pos: at(43), Target: "total", Op: "+=", Value: ref("n")},
					&ir.Call{Pos: at(44), Callee: "write", Args: []ir.Expr{ref("out"), ref("buf"), ref("n")}},
				},
			},
			&ir.Return{Pos: at(46), Value: ref("total")},
		},
	}, funcNamed(t, f, "copy"))

	main := funcNamed(t, f, "main")
	checkIR(t, "main params", []*ir.Var{
		{Pos: at(49), Name: "argc", Type: typ("int", 4)},
		{Pos: at(49), Name: "argv", Type: ptr("char", 1, 2)},
	}, main.Params)
	mallocArgs := []ir.Expr{bin("*", ref("n"), sizeofT("double", 8))}
	fopenArgs := []ir.Expr{ref("NAME"), str("wb")}
	atoiArgs := []ir.Expr{ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}}
	checkIR(t, "main declarations", ir.Block{
		&ir.Decl{Pos: at(51), Var: &ir.Var{Pos: at(51), Name: "i", Type: typ("int", 4)}},
		&ir.Decl{Pos: at(51), Var: &ir.Var{Pos: at(51), Name: "j", Type: typ("int", 4)}},
		&ir.Call{Pos: at(51), Callee: "atoi", Args: atoiArgs, Result: "n"},
		&ir.Decl{Pos: at(51), Var: &ir.Var{Pos: at(51), Name: "n", Type: typ("int", 4), Init: callx("atoi", atoiArgs...)}},
		&ir.Call{Pos: at(52), Callee: "malloc", Args: mallocArgs, Result: "data"},
		&ir.Decl{Pos: at(52), Var: &ir.Var{Pos: at(52), Name: "data", Type: ptr("double", 8, 1), Init: callx("malloc", mallocArgs...)}},
		&ir.Decl{Pos: at(53), Var: &ir.Var{Pos: at(53), Name: "c", Type: typ("struct cell", 16)}},
		&ir.Call{Pos: at(54), Callee: "fopen", Args: fopenArgs, Result: "f"},
		&ir.Decl{Pos: at(54), Var: &ir.Var{Pos: at(54), Name: "f", Type: ptr("FILE", 0, 1), Init: callx("fopen", fopenArgs...)}},
		&ir.If{Pos: at(55), Cond: bin("==", ref("f"), num(0)), Then: ir.Block{&ir.Jump{Pos: at(56), Kind: "exit"}}},
	}, main.Body[:10])

	// Nested counted loops, the inner one counting down by 2 inclusively;
	// the function-like macro SQR expands to its expression.
	checkIR(t, "main loop nest", ir.Block{
		&ir.Assign{Pos: at(57), Target: "i", Op: "=", Value: num(0)},
		&ir.Loop{
			Pos: at(57), Kind: ir.For, Var: "i", Lo: num(0), Hi: ref("nx"), Step: num(1), EndLine: 59,
			Body: ir.Block{
				&ir.Assign{Pos: at(58), Target: "j", Op: "=", Value: bin("-", ref("nx"), num(1))},
				&ir.Loop{
					Pos: at(58), Kind: ir.For, Var: "j", Lo: bin("-", ref("nx"), num(1)), Hi: num(0),
					Step: num(-2), Inclusive: true, EndLine: 59,
					Body: ir.Block{
						&ir.Assign{Pos: at(59), Target: "grid", Op: "=", Partial: true,
							Value:   bin("+", bin("*", ref("i"), ref("i")), ref("j")),
							Element: ir.Index{X: ref("grid"), Idx: []ir.Expr{ref("i"), ref("j")}}},
					},
				},
			},
		},
		// handlers[i](fd): through a function pointer, unresolved.
		&ir.Assign{Pos: at(60), Target: "i", Op: "=", Value: num(0)},
		&ir.Loop{
			Pos: at(60), Kind: ir.For, Var: "i", Lo: num(0), Hi: num(4), Step: num(1), EndLine: 61,
			Body: ir.Block{&ir.Call{Pos: at(61), Indirect: true, Args: []ir.Expr{ref("i")}}},
		},
	}, main.Body[10:14])

	checkIR(t, "main switch", &ir.Switch{
		Pos: at(62), Tag: ref("argc"),
		Cases: []ir.Block{
			{
				&ir.Call{Pos: at(64), Callee: "checkpoint", Args: []ir.Expr{ref("f"), ref("data"), ref("n")}},
				&ir.Jump{Pos: at(65), Kind: "break"},
			},
			nil, // case 2: falls through
			{
				&ir.Assign{Pos: at(68), Target: "c", Op: "=", Value: sizeofT("struct cell", 16), Partial: true, Field: "value"},
				&ir.Jump{Pos: at(69), Kind: "break"},
			},
			{&ir.Return{Pos: at(71), Value: num(2)}},
		},
	}, main.Body[14])

	// #ifdef USE_MPI ... #else ... #endif keeps both branches.
	checkIR(t, "main #ifdef", &ir.If{
		Pos:  at(73),
		Cond: ir.Unknown{Text: "defined(USE_MPI)"},
		Then: ir.Block{
			&ir.Decl{Pos: at(74), Var: &ir.Var{Pos: at(74), Name: "fh", Type: typ("MPI_File", 0)}},
			&ir.Call{Pos: at(75), Callee: "MPI_File_write_all",
				Args: []ir.Expr{ref("fh"), ref("data"), ref("n"), ref("MPI_DOUBLE"), ref("MPI_STATUS_IGNORE")}},
		},
		Else: ir.Block{
			&ir.Call{Pos: at(77), Callee: "write",
				Args: []ir.Expr{num(3), ref("data"), bin("*", ref("n"), sizeofT("double", 8))}},
		},
	}, main.Body[15])
	checkIR(t, "main tail", ir.Block{
		&ir.Call{Pos: at(79), Callee: "fclose", Args: []ir.Expr{ref("f")}},
		&ir.Call{Pos: at(80), Callee: "free", Args: []ir.Expr{ref("data")}},
		&ir.Return{Pos: at(81), Value: num(0)},
	}, main.Body[16:])
}
