package pdg

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

func loopOver(line int, lo, hi ir.Expr, body ...ir.Stmt) *ir.Loop {
	return &ir.Loop{Pos: at(line), Kind: ir.For, Var: "i", Lo: lo, Hi: hi, Body: body, EndLine: line + 1}
}

func TestTripCounts(t *testing.T) {
	argv := []*ir.Var{{Name: "argc", Type: intT}, {Name: "argv", Type: argvT}}
	for _, c := range []struct {
		name   string
		body   []ir.Stmt
		args   []string
		trip   int64
		source TripSource
	}{
		{"literal", []ir.Stmt{loopOver(2, num(0), num(100))}, nil, 100, TripLiteral},
		{"define", []ir.Stmt{loopOver(2, num(0), ref("NSTEPS"))}, nil, 50, TripConstant},
		{"propagated", []ir.Stmt{decl(2, "n", intT, num(30)), loopOver(3, num(0), bin("*", ref("n"), num(2)))}, nil, 60, TripPropagated},
		{"argument", []ir.Stmt{
			callInto(2, "n", "atoi", ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}),
			decl(2, "n", intT, ir.CallExpr{Callee: "atoi", Args: []ir.Expr{ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}}}),
			loopOver(3, num(0), ref("n")),
		}, []string{"500"}, 500, TripArgument},
		{"argument unknown", []ir.Stmt{
			callInto(2, "n", "atoi", ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}),
			loopOver(3, num(0), ref("n")),
		}, nil, DefaultTrip, TripDefault},
		{"argc", []ir.Stmt{loopOver(2, num(1), ref("argc"))}, []string{"a", "b"}, 2, TripArgument},
		{"unknown bound", []ir.Stmt{loopOver(2, num(0), ref("count"))}, nil, DefaultTrip, TripDefault},
		{"counting down", []ir.Stmt{&ir.Loop{Pos: at(2), Kind: ir.For, Var: "i", Lo: num(10), Hi: num(0), Step: num(-2)}}, nil, 5, TripLiteral},
		{"inclusive", []ir.Stmt{&ir.Loop{Pos: at(2), Kind: ir.Do, Var: "i", Lo: num(1), Hi: num(10), Inclusive: true}}, nil, 10, TripLiteral},
		{"while unknown", []ir.Stmt{&ir.Loop{Pos: at(2), Kind: ir.While, Cond: ref("more")}}, nil, DefaultWhileTrip, TripDefault},
		{"for ever", []ir.Stmt{&ir.Loop{Pos: at(2), Kind: ir.For}}, nil, DefaultWhileTrip, TripDefault},
		{"while counter", []ir.Stmt{
			decl(2, "step", intT, num(0)),
			&ir.Loop{Pos: at(3), Kind: ir.While, Cond: bin("<", ref("step"), ref("NSTEPS")), Body: ir.Block{
				&ir.Assign{Pos: at(4), Target: "step", Op: "+=", Value: num(1)},
			}},
		}, nil, 50, TripPropagated},
		{"while counter stepped on other paths too", []ir.Stmt{
			decl(2, "len", intT, num(0)),
			&ir.Loop{Pos: at(3), Kind: ir.While, Cond: bin("<", ref("len"), num(4000)), Body: ir.Block{
				&ir.If{Pos: at(4), Cond: ref("motif"), Then: ir.Block{
					&ir.Assign{Pos: at(5), Target: "len", Op: "+=", Value: num(12)},
					&ir.Jump{Pos: at(6), Kind: "continue"},
				}},
				&ir.Assign{Pos: at(7), Target: "seq", Op: "=", Value: ref("b"), Partial: true},
				&ir.Assign{Pos: at(7), Target: "len", Op: "+=", Value: num(1)},
			}},
		}, nil, 4000, TripPropagated},
		{"while counter also stepped back", []ir.Stmt{
			decl(2, "len", intT, num(0)),
			&ir.Loop{Pos: at(3), Kind: ir.While, Cond: bin("<", ref("len"), num(4000)), Body: ir.Block{
				&ir.If{Pos: at(4), Cond: ref("undo"), Then: ir.Block{&ir.Assign{Pos: at(5), Target: "len", Op: "-=", Value: num(2)}}},
				&ir.Assign{Pos: at(7), Target: "len", Op: "+=", Value: num(1)},
			}},
		}, nil, DefaultWhileTrip, TripDefault},
		{"while false", []ir.Stmt{&ir.Loop{Pos: at(2), Kind: ir.While, Cond: num(0)}}, nil, 0, TripLiteral},
		{"write until complete", []ir.Stmt{
			&ir.Loop{Pos: at(3), Kind: ir.While, Cond: bin(">", ref("left"), num(0)), Body: ir.Block{
				callInto(4, "k", "write", ref("fd"), ref("p"), ref("left")),
				&ir.Assign{Pos: at(5), Target: "left", Op: "-=", Value: ref("k")},
			}},
		}, nil, 1, TripTransfer},
		{"read until complete", []ir.Stmt{
			&ir.Loop{Pos: at(3), Kind: ir.While, Cond: bin("<", ref("done"), ref("n")), Body: ir.Block{
				callInto(4, "k", "read", ref("fd"), ref("p"), bin("-", ref("n"), ref("done"))),
				&ir.Assign{Pos: at(5), Target: "done", Op: "+=", Value: ref("k")},
			}},
		}, nil, 1, TripTransfer},
		{"countdown without transfer", []ir.Stmt{
			&ir.Loop{Pos: at(3), Kind: ir.While, Cond: bin(">", ref("left"), num(0)), Body: ir.Block{
				call(4, "write", ref("fd"), ref("p"), num(64)),
				&ir.Assign{Pos: at(5), Target: "left", Op: "-=", Value: ref("k")},
			}},
		}, nil, DefaultWhileTrip, TripDefault},
		{"bound assigned in body", []ir.Stmt{
			decl(2, "n", intT, num(30)),
			&ir.Loop{Pos: at(3), Kind: ir.For, Var: "i", Lo: num(0), Hi: ref("n"), Body: ir.Block{
				&ir.Loop{Pos: at(4), Kind: ir.For, Var: "j", Lo: num(0), Hi: ref("n")},
				&ir.Assign{Pos: at(5), Target: "n", Op: "=", Value: ref("other")},
			}},
		}, nil, 30, TripPropagated},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mustBuild(t, cprog(map[string]ir.Expr{"NSTEPS": num(50)}, fn("main", argv, c.body...)), Options{Args: c.args})
			l := first(g.Entry, LoopNode)
			if l.Trip != c.trip || l.TripSource != c.source {
				t.Errorf("trip %d (%s), want %d (%s)", l.Trip, l.TripSource, c.trip, c.source)
			}
		})
	}
}

func TestInnerBoundKilled(t *testing.T) {
	// The inner loop's bound n is reassigned in the outer body: unknown.
	body := []ir.Stmt{
		decl(2, "n", intT, num(30)),
		loopOver(3, num(0), num(4),
			&ir.Loop{Pos: at(4), Kind: ir.For, Var: "j", Lo: num(0), Hi: ref("n")},
			&ir.Assign{Pos: at(5), Target: "n", Op: "+=", Value: num(1)}),
	}
	g := mustBuild(t, cprog(nil, fn("main", nil, body...)), Options{DefaultTrip: 7})
	inner := first(first(g.Entry, LoopNode), LoopNode)
	if inner.Trip != 7 || inner.TripSource != TripDefault {
		t.Errorf("inner trip %d (%s), want 7 (default)", inner.Trip, inner.TripSource)
	}
}

func TestFortranCommandArgument(t *testing.T) {
	body := ir.Block{
		&ir.Decl{Pos: at(2), Var: &ir.Var{Name: "arg", Type: ir.Type{Name: "character(len=32)", Size: 32}}},
		&ir.Decl{Pos: at(3), Var: &ir.Var{Name: "n", Type: ir.Type{Name: "integer", Size: 4}}},
		call(4, "get_command_argument", num(1), ref("arg")),
		&ir.FortranIO{Pos: at(5), Op: "read", Unit: ref("arg"), Specs: map[string]ir.Expr{"fmt": str("*")}, Items: []ir.Expr{ref("n")}},
		&ir.Loop{Pos: at(6), Kind: ir.Do, Var: "i", Lo: num(1), Hi: ref("n"), Inclusive: true},
	}
	p := &ir.Program{Files: []*ir.File{{Path: "a.f90", Lang: ir.Fortran,
		Funcs: []*ir.Func{{Name: "prog", Kind: ir.MainProgram, Body: body}}}}}
	g := mustBuild(t, p, Options{Args: []string{"250"}})
	if l := first(g.Entry, LoopNode); l.Trip != 250 || l.TripSource != TripArgument {
		t.Errorf("trip %d (%s)", l.Trip, l.TripSource)
	}
	if n := first(g.Entry, IONode); n != nil {
		t.Errorf("internal READ made an I/O node: %+v", n.IO)
	}
}

func TestRecursionTerminates(t *testing.T) {
	// void walk(int d) { fwrite(...); walk(d - 1); }  and mutual a ↔ b.
	walk := fn("walk", []*ir.Var{{Name: "d", Type: intT}},
		call(2, "fwrite", ref("x"), num(8), num(1), ref("f")),
		call(3, "walk", bin("-", ref("d"), num(1))))
	a := fn("a", nil, call(5, "b"))
	b := fn("b", nil, call(6, "a"))
	main := fn("main", nil, call(8, "walk", num(10)), call(9, "a"))
	g := mustBuild(t, cprog(nil, main, walk, a, b), Options{MaxDepth: 4})
	w := first(g.Entry, CallNode).Target
	if w == nil || w.Context != "10" {
		t.Fatalf("walk instance %+v", w)
	}
	inner := first(w, CallNode)
	if inner.Cut != "recursion" || inner.Target != nil {
		t.Errorf("recursive call: cut %q target %v", inner.Cut, inner.Target)
	}
	if len(g.Roots) != 1 {
		t.Errorf("roots %d, want only main", len(g.Roots))
	}
}

func TestIndirectAndUnknownCalls(t *testing.T) {
	main := fn("main", nil,
		&ir.Call{Pos: at(2), Indirect: true, Args: []ir.Expr{num(1)}},
		call(3, "compute_stuff", ref("x")),
		callInto(4, "p", "malloc", bin("*", num(100), ir.SizeOf{Type: ir.Type{Name: "double", Size: 8}})))
	g := mustBuild(t, cprog(nil, main), Options{})
	kids := g.Entry.Children
	if len(kids) != 3 || kids[0].Kind != UnknownNode || !kids[0].Indirect || kids[1].Kind != UnknownNode {
		t.Fatalf("children %+v", kids)
	}
	if kids[2].Space != 800 {
		t.Errorf("malloc space %v, want 800", kids[2].Space)
	}
}

func TestEntryOption(t *testing.T) {
	p := cprog(nil, fn("main", nil), fn("driver", nil, call(2, "main")))
	g := mustBuild(t, p, Options{Entry: "driver"})
	if g.Entry.Name != "driver" || !g.Entry.Reachable {
		t.Errorf("entry %+v", g.Entry)
	}
	if _, err := Build(p, Options{Entry: "nope"}); !errors.Is(err, ErrNoEntry) {
		t.Errorf("err = %v, want ErrNoEntry", err)
	}
}

func TestUnreachableRoots(t *testing.T) {
	helper := fn("helper", nil, call(2, "fflush", ref("stdout")))
	orphan := fn("orphan", nil, call(3, "helper"))
	main := fn("main", nil)
	g := mustBuild(t, cprog(nil, main, helper, orphan), Options{})
	if len(g.Roots) != 2 || g.Roots[1].Name != "orphan" || g.Roots[1].Reachable {
		t.Fatalf("roots %v", g.Roots)
	}
	if len(g.Files[0].Children) != 3 {
		t.Errorf("file functions %d, want 3", len(g.Files[0].Children))
	}
}

func TestHandlesThroughCalls(t *testing.T) {
	// write_block(FILE *f, int n) { fwrite(buf, sizeof(double), n, f); }
	wb := fn("write_block", []*ir.Var{{Name: "f", Type: fileT}, {Name: "n", Type: intT}},
		call(2, "fwrite", ref("buf"), ir.SizeOf{Type: ir.Type{Name: "double", Size: 8}}, ref("n"), ref("f")))
	main := fn("main", nil,
		callInto(5, "out", "fopen", str("result.bin"), str("wb")),
		call(6, "write_block", ref("out"), num(64)),
		call(7, "write_block", ref("out"), num(128)))
	g := mustBuild(t, cprog(nil, main, wb), Options{})
	calls := g.Entry.Children[1:]
	for i, want := range []int64{512, 1024} {
		io := first(calls[i].Target, IONode).IO
		if io.Bytes != want || io.FileLabel() != "result.bin" {
			t.Errorf("call %d: bytes %d file %q, want %d result.bin", i, io.Bytes, io.FileLabel(), want)
		}
	}
	if calls[0].Target == calls[1].Target {
		t.Error("contexts share an instance")
	}
}

func TestGlobalSetOnce(t *testing.T) {
	// int nsteps;  main: nsteps = atoi(argv[1]); run();  run: for i < nsteps
	run := fn("run", nil, loopOver(2, num(0), ref("nsteps")))
	main := fn("main", []*ir.Var{{Name: "argc", Type: intT}, {Name: "argv", Type: argvT}},
		callInto(5, "nsteps", "atoi", ir.Index{X: ref("argv"), Idx: []ir.Expr{num(1)}}),
		call(6, "run"))
	p := cprog(nil, main, run)
	p.Files[0].Globals = []*ir.Var{{Name: "nsteps", Type: intT}}
	g := mustBuild(t, p, Options{Args: []string{"42"}})
	l := first(first(g.Entry, CallNode).Target, LoopNode)
	if l.Trip != 42 || l.TripSource != TripArgument {
		t.Errorf("trip %d (%s)", l.Trip, l.TripSource)
	}
}

func TestHDF5Collective(t *testing.T) {
	h5 := func(n string) ir.Expr { return ref(n) }
	main := fn("main", nil,
		callInto(2, "fapl", "H5Pcreate", h5("H5P_FILE_ACCESS")),
		call(3, "H5Pset_fapl_mpio", ref("fapl"), ref("MPI_COMM_WORLD"), ref("MPI_INFO_NULL")),
		callInto(4, "file", "H5Fcreate", str("out.h5"), h5("H5F_ACC_TRUNC"), h5("H5P_DEFAULT"), ref("fapl")),
		decl(5, "n", intT, num(4096)),
		callInto(6, "space", "H5Screate_simple", num(1), addr("n"), ref("NULL")),
		callInto(7, "dset", "H5Dcreate2", ref("file"), str("x"), h5("H5T_NATIVE_DOUBLE"), ref("space"),
			h5("H5P_DEFAULT"), h5("H5P_DEFAULT"), h5("H5P_DEFAULT")),
		callInto(8, "dxpl", "H5Pcreate", h5("H5P_DATASET_XFER")),
		call(9, "H5Pset_dxpl_mpio", ref("dxpl"), h5("H5FD_MPIO_COLLECTIVE")),
		call(10, "H5Dwrite", ref("dset"), h5("H5T_NATIVE_DOUBLE"), h5("H5S_ALL"), h5("H5S_ALL"), ref("dxpl"), ref("data")),
		call(11, "H5Dwrite", ref("dset"), h5("H5T_NATIVE_DOUBLE"), h5("H5S_ALL"), h5("H5S_ALL"), h5("H5P_DEFAULT"), ref("data")),
	)
	g := mustBuild(t, cprog(nil, main), Options{})
	var writes []*IO
	for _, n := range g.Entry.Children {
		if n.Kind == IONode && n.Name == "H5Dwrite" {
			writes = append(writes, n.IO)
		}
	}
	if len(writes) != 2 {
		t.Fatalf("writes %d", len(writes))
	}
	for i, want := range []bool{true, false} {
		io := writes[i]
		if io.Collective != want || !io.Parallel || io.Bytes != 4096*8 || io.FileLabel() != "out.h5" {
			t.Errorf("write %d: collective %v parallel %v bytes %d file %q", i, io.Collective, io.Parallel, io.Bytes, io.FileLabel())
		}
	}
}

func TestStreams(t *testing.T) {
	ofs := ir.Type{Name: "std::ofstream"}
	main := &ir.Func{Name: "main", Kind: ir.Function, Pos: at(1), Body: ir.Block{
		decl(2, "out", ofs, ir.CallExpr{Callee: "std::ofstream", Args: []ir.Expr{str("log.txt")}}),
		&ir.Call{Pos: at(3), Callee: "operator<<", Receiver: ref("out"), Args: []ir.Expr{str("step ")}},
		&ir.Call{Pos: at(3), Callee: "operator<<", Args: []ir.Expr{
			ir.CallExpr{Callee: "operator<<", Args: []ir.Expr{ref("out"), str("step ")}}, ref("std::endl")}},
		&ir.Call{Pos: at(4), Callee: "write", Receiver: ref("out"), Args: []ir.Expr{ref("buf"), num(256)}},
		&ir.Call{Pos: at(5), Callee: "operator<<", Args: []ir.Expr{ref("std::cout"), str("done")}},
	}}
	p := &ir.Program{Files: []*ir.File{{Path: "t.cc", Lang: ir.CPP, Funcs: []*ir.Func{main}}}}
	g := mustBuild(t, p, Options{})
	var got []string
	for _, n := range g.Entry.Children {
		if n.Kind == IONode {
			got = append(got, string(n.IO.Sem.Op)+":"+n.IO.FileLabel())
		}
	}
	want := []string{"open:log.txt", "write:log.txt", "write:log.txt", "flush:log.txt", "write:log.txt", "write:<stdout>"}
	if len(got) != len(want) {
		t.Fatalf("ops %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("op %d = %s, want %s", i, got[i], want[i])
		}
	}
	var bin *IO
	for _, n := range g.Entry.Children {
		if n.Name == "write" {
			bin = n.IO
		}
	}
	if !bin.Binary || bin.Bytes != 256 {
		t.Errorf("out.write: binary %v bytes %d", bin.Binary, bin.Bytes)
	}
	if m := g.Entry.Children[0].IO.File.Mode; m != iosem.ModeWrite|iosem.ModeCreate {
		t.Errorf("ofstream mode %v", m)
	}
}

// std::getline reads a line from a file stream (I/O) or from a string
// stream (compute); POSIX getline in C is STDIO.
func TestGetline(t *testing.T) {
	main := &ir.Func{Name: "main", Kind: ir.Function, Pos: at(1), Body: ir.Block{
		decl(2, "in", ir.Type{Name: "std::ifstream"}, ir.CallExpr{Callee: "std::ifstream", Args: []ir.Expr{str("data.csv")}}),
		decl(3, "ss", ir.Type{Name: "std::stringstream"}, nil),
		call(4, "std::getline", ref("in"), ref("line")),
		call(5, "std::getline", ref("ss"), ref("field"), num(',')),
		call(6, "getline", ref("ss"), ref("field")),
	}}
	p := &ir.Program{Files: []*ir.File{{Path: "t.cc", Lang: ir.CPP, Funcs: []*ir.Func{main}}}}
	var got []string
	for _, n := range mustBuild(t, p, Options{}).Entry.Children {
		if n.Kind == IONode {
			got = append(got, fmt.Sprintf("%d:%s:%s", n.Pos.Line, n.IO.Sem.Op, n.IO.FileLabel()))
		} else {
			got = append(got, fmt.Sprintf("%d:%s:%g", n.Pos.Line, n.Name, n.Work))
		}
	}
	if want := "[2:open:data.csv 4:read:data.csv 5:std::getline:150 6:getline:150]"; fmt.Sprint(got) != want {
		t.Errorf("nodes %v, want %s", got, want)
	}
	c := cprog(nil, fn("main", nil, call(2, "getline", addr("buf"), addr("n"), ref("fp"))))
	if n := mustBuild(t, c, Options{}).Entry.Children[0]; n.Kind != IONode || n.IO.Sem.Interface != iosem.STDIO {
		t.Errorf("POSIX getline: %+v", n)
	}
}

func TestFortranUnits(t *testing.T) {
	sub := &ir.Func{Name: "dump", Kind: ir.Subroutine, Pos: at(20), Params: []*ir.Var{{Name: "u", Type: ir.Type{Name: "integer", Size: 4}}},
		Body: ir.Block{
			&ir.FortranIO{Pos: at(21), Op: "write", Unit: ref("u"), Specs: map[string]ir.Expr{"rec": ref("k")}, Items: []ir.Expr{ref("x")}},
			call(22, "flush", ref("u")),
		}}
	body := ir.Block{
		&ir.FortranIO{Pos: at(2), Op: "open", Unit: num(12), Specs: map[string]ir.Expr{
			"file": str("direct.dat"), "access": str("direct"), "recl": num(8)}},
		call(3, "dump", num(12)),
		&ir.FortranIO{Pos: at(4), Op: "write", Unit: num(7), Items: []ir.Expr{str("abc")}},
		&ir.FortranIO{Pos: at(5), Op: "print", Specs: map[string]ir.Expr{"fmt": str("*")}, Items: []ir.Expr{str("hi")}},
	}
	p := &ir.Program{Files: []*ir.File{{Path: "f.f90", Lang: ir.Fortran, Funcs: []*ir.Func{
		{Name: "main", Kind: ir.MainProgram, Body: body}, sub}}}}
	g := mustBuild(t, p, Options{})
	d := first(g.Entry, CallNode).Target
	w := d.Children[0].IO
	if w.FileLabel() != "direct.dat" || !w.Random || !w.Binary || w.Bytes != 8 {
		t.Errorf("write: %+v file %q", w, w.FileLabel())
	}
	if f := d.Children[1].IO; f.Sem.Op != iosem.Flush || f.FileLabel() != "direct.dat" {
		t.Errorf("flush: %+v", f)
	}
	if u := g.Entry.Children[2].IO; u.FileLabel() != "fort.7" || u.Bytes != 3 {
		t.Errorf("unit 7: %q %d", u.FileLabel(), u.Bytes)
	}
	if pr := g.Entry.Children[3].IO; pr.FileLabel() != "<stdout>" || pr.Binary {
		t.Errorf("print: %+v", pr)
	}
}

// sprintf and sscanf cost the conversions of their format when it is
// known, the table's flat cost otherwise.
func TestMemoryFormatterCost(t *testing.T) {
	main := fn("main", nil,
		call(2, "snprintf", ref("buf"), num(64), str("%d,%.3f\n"), ref("i"), ref("x")),
		call(3, "sscanf", ref("line"), str("%d %s"), addr("i"), ref("name")),
		call(4, "sprintf", ref("buf"), ref("fmt"), ref("i")))
	g := mustBuild(t, cprog(nil, main), Options{})
	kids := g.Entry.Children
	if len(kids) != 3 {
		t.Fatalf("children %+v", kids)
	}
	for i, want := range []float64{
		StringFormatOps + iosem.PrintIntOps + iosem.PrintFloatOps,
		iosem.ScanCallOps + iosem.ScanIntOps + iosem.ScanStrOps,
		800,
	} {
		if kids[i].Work != want {
			t.Errorf("%s: work %v, want %v", kids[i].Name, kids[i].Work, want)
		}
	}
}

// C++ regular expressions cost a match per search, twice that per
// replacement.
func TestRegexCost(t *testing.T) {
	main := fn("main", nil,
		call(2, "std::regex_search", ref("line"), ref("m"), ref("re")),
		call(3, "std::regex_match", ref("line"), ref("re")),
		call(4, "std::regex_replace", ref("line"), ref("re"), str("$1")))
	g := mustBuild(t, cprog(nil, main), Options{})
	kids := g.Entry.Children
	if len(kids) != 3 {
		t.Fatalf("children %+v", kids)
	}
	for i, want := range []float64{RegexMatchOps, RegexMatchOps, 2 * RegexMatchOps} {
		if kids[i].Work != want {
			t.Errorf("%s: work %v, want %v", kids[i].Name, kids[i].Work, want)
		}
	}
}

// The share of executions a branch is taken: a divisibility test, a counter
// reaching its bound, and a conjunction with either.
func TestBranchOdds(t *testing.T) {
	cond := func(c ir.Expr) *ir.If {
		return &ir.If{Pos: at(5), Cond: c, Then: ir.Block{call(6, "write", ref("fd"), ref("buf"), num(4096))}}
	}
	count := &ir.Assign{Pos: at(4), Target: "len", Op: "+=", Value: num(1)}
	for _, c := range []struct {
		name string
		body []ir.Stmt
		want float64
	}{
		{"divisibility", []ir.Stmt{cond(bin("==", bin("%", ref("i"), num(400)), num(0)))}, 1.0 / 400},
		{"divisibility by an unknown period", []ir.Stmt{cond(bin("==", bin("%", ref("g"), ir.Field{X: ref("cfg"), Name: "every"}), num(0)))}, 1.0 / DefaultPeriod},
		{"divisibility in a conjunction", []ir.Stmt{cond(bin("&&", ref("path"), bin("==", bin("%", ref("i"), num(400)), num(0))))}, 1.0 / 400},
		{"buffer full", []ir.Stmt{count, cond(bin("==", ref("len"), num(4096)))}, 1.0 / 4096},
		{"batch reached, bound first", []ir.Stmt{count, cond(bin("<=", num(1000), ref("len")))}, 1.0 / 1000},
		{"not counted up", []ir.Stmt{cond(bin("==", ref("len"), num(4096)))}, UnknownOdds},
		{"counted by eight", []ir.Stmt{&ir.Assign{Pos: at(4), Target: "len", Op: "+=", Value: num(8)}, cond(bin("==", ref("len"), num(4096)))}, 8.0 / 4096},
		{"counted by a step that jumps over the bound", []ir.Stmt{&ir.Assign{Pos: at(4), Target: "len", Op: "+=", Value: num(3)}, cond(bin("==", ref("len"), num(4096)))}, UnknownOdds},
		{"filled by an unknown step", []ir.Stmt{&ir.Assign{Pos: at(4), Target: "len", Op: "+=", Value: ref("n")}, cond(bin("==", ref("len"), num(4096)))}, DefaultIncrement / 4096.0},
		{"refilled by a read of known size", []ir.Stmt{
			&ir.Assign{Pos: at(4), Target: "ib", Field: "pos", Partial: true, Op: "+=", Value: num(1)},
			&ir.If{Pos: at(5), Cond: bin("==", ir.Field{X: ref("ib"), Name: "pos"}, ir.Field{X: ref("ib"), Name: "len"}),
				Then: ir.Block{call(6, "read", ref("fd"), ref("buf"), num(8192))}}}, 1.0 / 8192},
		{"room left too small", []ir.Stmt{
			&ir.Assign{Pos: at(4), Target: "b", Field: "len", Partial: true, Op: "+=", Value: ref("n")},
			cond(bin("<", bin("-", num(65536), ir.Field{X: ref("b"), Name: "len"}), num(128)))}, DefaultIncrement / (65536.0 - 128)},
		{"batch full or timer", []ir.Stmt{count,
			cond(bin("||", bin("==", ref("len"), num(512)), bin("==", bin("%", ref("ticks"), num(200)), num(0))))}, 1.0/512 + 1.0/200},
		{"consumed up to an unknown length", []ir.Stmt{
			&ir.Assign{Pos: at(4), Target: "ib", Field: "pos", Partial: true, Op: "+=", Value: num(1)},
			cond(bin("==", ir.Field{X: ref("ib"), Name: "pos"}, ir.Field{X: ref("ib"), Name: "len"}))}, 1.0 / DefaultTrip},
		{"buffer about to overflow", []ir.Stmt{
			&ir.Assign{Pos: at(4), Target: "ob", Field: "len", Partial: true, Op: "+=", Value: ref("n")},
			cond(bin(">", bin("+", ir.Field{X: ref("ob"), Name: "len"}, ref("n")), num(65536)))}, DefaultIncrement / 65536.0},
		{"another member counted", []ir.Stmt{
			&ir.Assign{Pos: at(4), Target: "ob", Field: "flushes", Partial: true, Op: "+=", Value: num(1)},
			cond(bin(">", bin("+", ir.Field{X: ref("ob"), Name: "len"}, ref("n")), num(65536)))}, UnknownOdds},
		{"unknown", []ir.Stmt{cond(ref("dirty"))}, UnknownOdds},
		{"the rank", []ir.Stmt{call(3, "MPI_Comm_rank", ref("MPI_COMM_WORLD"), addr("rank")), cond(bin("==", ref("rank"), num(0)))}, 0},
		{"leaving the loop", []ir.Stmt{loopOver(3, num(0), num(500), &ir.If{Pos: at(5), Cond: ref("mismatch"), Then: ir.Block{
			call(6, "fprintf", ref("stderr"), str("mismatch\n")),
			&ir.Jump{Pos: at(7), Kind: "break"},
		}})}, 1.0 / 500},
		{"returning from the loop on the else side", []ir.Stmt{loopOver(3, num(0), num(500), &ir.If{Pos: at(5), Cond: ref("ok"),
			Then: ir.Block{call(6, "fputs", str("ok\n"), ref("f"))},
			Else: ir.Block{&ir.Return{Pos: at(7)}},
		})}, 1 - 1.0/500},
		{"the test the loop leaves on, in a disjunction", []ir.Stmt{loopOver(3, num(1), num(1500),
			cond(bin("||", bin("==", bin("%", ref("i"), num(300)), num(0)), bin("<", ref("dmax"), ref("tol")))),
			&ir.If{Pos: at(8), Cond: bin("<", ref("dmax"), ref("tol")), Then: ir.Block{&ir.Jump{Pos: at(8), Kind: "break"}}},
		)}, 1.0/300 + 1.0/1499},
		{"a remainder drawn below a bound", []ir.Stmt{
			decl(3, "r", ir.Type{Name: "int"}, bin("%", ir.CallExpr{Callee: "rnd"}, num(1000))),
			cond(bin("<", ref("r"), num(8)))}, 8.0 / 1000},
		{"a remainder drawn at most a bound, bound first", []ir.Stmt{
			cond(bin(">=", num(16), bin("%", ir.CallExpr{Callee: "rand"}, num(64))))}, 17.0 / 64},
		{"a uniform draw", []ir.Stmt{cond(bin("<", ir.CallExpr{Callee: "drand48"}, ir.Float{V: 0.25}))}, 0.25},
		{"a uniform draw from rand", []ir.Stmt{cond(bin(">", bin("/", ir.Cast{Type: ir.Type{Name: "double"}, X: ir.CallExpr{Callee: "rand"}}, ref("RAND_MAX")), ir.Float{V: 0.75}))}, 0.25},
		{"a Fortran RANDOM_NUMBER", []ir.Stmt{call(3, "random_number", ref("u")), cond(bin("<", ref("u"), ir.Float{V: 0.125}))}, 0.125},
		{"a draw redefined", []ir.Stmt{
			decl(3, "r", ir.Type{Name: "int"}, bin("%", ir.CallExpr{Callee: "rnd"}, num(1000))),
			&ir.Assign{Pos: at(4), Target: "r", Op: "=", Value: ref("n")},
			cond(bin("<", ref("r"), num(8)))}, UnknownOdds},
		{"leaving outside a loop", []ir.Stmt{&ir.If{Pos: at(5), Cond: ref("mismatch"), Then: ir.Block{
			call(6, "fprintf", ref("stderr"), str("mismatch\n")), &ir.Return{Pos: at(7)},
		}}}, UnknownOdds},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mustBuild(t, cprog(nil, fn("main", nil, c.body...)), Options{})
			b := first(g.Entry, BranchNode)
			if b == nil || b.Odds != c.want {
				t.Errorf("branch %+v, want odds %g", b, c.want)
			}
		})
	}
}

// The side of an if that ends the program is an error path, never taken
// by a run that goes on; Fortran's EXIT only leaves a loop.
func TestErrorPath(t *testing.T) {
	check := &ir.If{Pos: at(3), Cond: ref("full"), Then: ir.Block{
		call(4, "fprintf", ref("stderr"), str("table full\n")),
		&ir.Jump{Pos: at(5), Kind: "exit"},
	}}
	g := mustBuild(t, cprog(nil, fn("main", nil, check)), Options{})
	if b := first(g.Entry, BranchNode); b == nil || b.Taken != 1 {
		t.Errorf("C error path: branch %+v, want the else side taken", b)
	}
	loop := &ir.Loop{Pos: at(2), Kind: ir.Do, Var: "i", Lo: num(1), Hi: num(10), Inclusive: true, Body: ir.Block{
		&ir.If{Pos: at(3), Cond: ref("done"), Then: ir.Block{&ir.Jump{Pos: at(4), Kind: "exit"}}},
	}}
	f := &ir.Program{Files: []*ir.File{{Path: "t.f90", Lang: ir.Fortran, Funcs: []*ir.Func{
		{Name: "main", Kind: ir.MainProgram, Pos: at(1), EndLine: 9, Body: ir.Block{loop}}}}}}
	if b := first(mustBuild(t, f, Options{}).Entry, BranchNode); b == nil || b.Taken != -1 {
		t.Errorf("Fortran EXIT: branch %+v, want no side known", b)
	}
}

// TestStreamOpenModes: a C++ stream opened for output without app or in
// truncates its file (a creation, as the cost of an open counts it);
// appending and updating streams do not.
func TestStreamOpenModes(t *testing.T) {
	g := buildSources(t, Options{}, cppSrc(`#include <fstream>
int main() {
  std::ofstream a("a.txt");
  std::ofstream b("b.bin", std::ios::binary);
  std::ofstream c("c.log", std::ios::app);
  std::ofstream d;
  d.open("d.txt", std::ios::out | std::ios::trunc);
  std::fstream e("e.bin", std::ios::in | std::ios::out | std::ios::binary);
  std::ifstream f("f.txt");
  return 0;
}
`))
	want := map[string]iosem.Mode{
		"a.txt": iosem.ModeWrite | iosem.ModeCreate,
		"b.bin": iosem.ModeWrite | iosem.ModeCreate,
		"c.log": iosem.ModeWrite | iosem.ModeAppend,
		"d.txt": iosem.ModeWrite | iosem.ModeCreate,
		"e.bin": iosem.ModeReadWrite,
		"f.txt": iosem.ModeRead,
	}
	got := map[string]iosem.Mode{}
	for _, n := range g.Entry.Children {
		if n.Kind == IONode && n.IO.Sem.Op == iosem.Open {
			got[n.IO.FileLabel()] = n.IO.File.Mode
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("modes %v, want %v", got, want)
	}
}

// TestReductionCost checks Fortran intrinsics reducing or searching an
// array or a section: they cost per element (maxloc 2, sum 1), against
// the same statements over one element.
func TestReductionCost(t *testing.T) {
	work := func(decls string) float64 {
		src := []source{{"red.f90", `program red
  implicit none
  real :: ` + decls + `
  integer :: imax
  real :: s
  imax = maxloc(prof, 1)
  s = sum(series(2, :))
  if (maxval(series(1, :)) > 120.0) s = 0
  print *, imax, s
end program red
`}}
		return buildSources(t, Options{}, src...).Entry.Work
	}
	got := work("prof(240), series(4, 365)") - work("prof(1), series(4, 1)")
	if want := 2*240.0 + 365 + 365; got != want {
		t.Errorf("reductions: %v more operations than over one element, want %v", got, want)
	}
}
