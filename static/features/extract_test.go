package features

import (
	"strings"
	"testing"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
	"github.com/iolens/iolens/static/pdg"
)

// checkpointProgram is
//
//	#define NSTEPS 100
//	int main() {
//	  FILE *f = fopen("out.dat", "wb");
//	  double buf[10];
//	  for (int step = 0; step < NSTEPS; step++)
//	    <body>
//	  fclose(f);
//	}
func checkpointProgram(body ...ir.Stmt) *ir.Program {
	f := decl(3, "f", file)
	f.Var.Init = ir.CallExpr{Callee: "fopen", Args: []ir.Expr{str("out.dat"), str("wb")}}
	main := fn("main",
		open(3, "f", "fopen", str("out.dat"), str("wb")),
		f,
		decl(4, "buf", ir.Type{Name: "double", Size: 8, Dims: []ir.Expr{num(10)}}),
		forLoop(5, "step", num(0), ref("NSTEPS"), body...),
		call(9, "fclose", ref("f")),
	)
	return program(cfile(map[string]ir.Expr{"NSTEPS": num(100)}, main))
}

func fwrite(line int) *ir.Call {
	return call(line, "fwrite", ref("buf"), ir.SizeOf{Type: double}, num(10), ref("f"))
}

func TestFwriteInLoop(t *testing.T) {
	_, blocks := build(t, checkpointProgram(fwrite(6)), pdg.Options{})
	main := find(t, blocks, FunctionBlock, "main")
	p := main.Params
	// 100 fwrites of 80 bytes fill 8000/4096 of a stream buffer; fopen
	// "wb" creates the file.
	want := Params{LoopIO: 100, Calls: 100, Bytes: 8000, Sync: 100, Binary: 100, Small: 100,
		Metadata: 2, Files: 1, FileSize: 8000, Procs: 8, Storage: 0.5,
		Kernel: 8000.0 / 4096, Buffered: 100, Creates: 1, Written: 8000}
	got := p
	got.Work, got.Stack = 0, 0
	if got != want {
		t.Errorf("main params\n got %+v\nwant %+v", got, want)
	}
	if p.Stack != 80+8 {
		t.Errorf("stack = %v, want 88 (buf[10] and f)", p.Stack)
	}
	loop := find(t, main.Children, LoopBlock, "for")
	if loop.Trip != 100 || loop.TripSource != "constant" {
		t.Errorf("loop trip %d (%s), want 100 (constant)", loop.Trip, loop.TripSource)
	}
	w := find(t, loop.Children, CallBlock, "fwrite")
	if w.Params.Calls != 100 || w.Params.Bytes != 8000 {
		t.Errorf("fwrite block: %+v", w.Params)
	}
	c := cause(w, CodeSmallWritesInLoop)
	if c == nil {
		t.Fatalf("no %s cause in %+v", CodeSmallWritesInLoop, w.Causes)
	}
	if c.Message != "80 B writes (fwrite) in a loop of 100 iterations (100 calls)" || c.Call.Line != 6 || c.Loop.Line != 5 {
		t.Errorf("cause %+v", c)
	}
	if f := blocks[0]; f.Kind != FileBlock || f.Params.Bytes != 8000 || f.Params.Files != 1 {
		t.Errorf("file block %+v", f.Params)
	}
}

func TestConditionalCheckpoint(t *testing.T) {
	check := &ir.If{Pos: at(6), Cond: bin("==", bin("%", ref("step"), num(10)), num(0)),
		Then: ir.Block{fwrite(7)}}
	_, blocks := build(t, checkpointProgram(check), pdg.Options{})
	// step % 10 == 0 holds in one step of ten.
	p := find(t, blocks, FunctionBlock, "main").Params
	if p.Calls != 10 || p.Conditional != 10 || p.Bytes != 800 {
		t.Errorf("calls %v conditional %v bytes %v, want 10 10 800", p.Calls, p.Conditional, p.Bytes)
	}
	if w := find(t, blocks, CallBlock, "fwrite"); !w.Conditional || w.Params.Calls != 10 || w.Params.Conditional != 10 {
		t.Errorf("fwrite block conditional %v, %+v", w.Conditional, w.Params)
	}
}

func TestConstantBranch(t *testing.T) {
	// if (DEBUG) fwrite(...) with DEBUG 0: the write never runs.
	p := checkpointProgram(&ir.If{Pos: at(6), Cond: ref("DEBUG"), Then: ir.Block{fwrite(7)}})
	p.Files[0].Consts["DEBUG"] = num(0)
	_, blocks := build(t, p, pdg.Options{})
	if got := find(t, blocks, FunctionBlock, "main").Params; got.Calls != 0 || got.Conditional != 0 {
		t.Errorf("calls %v conditional %v, want 0 0", got.Calls, got.Conditional)
	}
}

func TestFlushInLoop(t *testing.T) {
	loop := &ir.Loop{Pos: at(5), Kind: ir.For, Var: "i", Lo: num(0), Hi: num(2000), EndLine: 8, Body: ir.Block{
		call(6, "fprintf", ref("f"), str("%d %f\n"), ref("i"), ref("x")),
		call(7, "fflush", ref("f")),
	}}
	main := fn("main", open(3, "f", "fopen", str("log.txt"), str("w")), decl(3, "f", file), loop)
	_, blocks := build(t, program(cfile(nil, main)), pdg.Options{})
	p := find(t, blocks, FunctionBlock, "main").Params
	if p.Flushes != 2000 || p.Calls != 4000 || p.Binary != 0 {
		t.Errorf("flushes %v calls %v binary %v, want 2000 4000 0", p.Flushes, p.Calls, p.Binary)
	}
	// "%d %f\n": 2 literal characters + 8 + 16.
	if p.Bytes != 2000*26 {
		t.Errorf("bytes %v, want %v", p.Bytes, 2000*26)
	}
	c := cause(find(t, blocks, FunctionBlock, "main"), CodeFlushInLoop)
	if c == nil {
		t.Fatal("no flush-in-loop cause")
	}
	if !strings.HasPrefix(c.Message, "fflush inside a loop of 2000 iterations") || c.Weight != 2000 ||
		c.Call.Line != 7 || c.Loop.Line != 5 || c.LoopEnd != 8 {
		t.Errorf("cause %+v", c)
	}
	if fc := cause(find(t, blocks, FunctionBlock, "main"), CodeFormattedIO); fc == nil || fc.Message != "formatted fprintf of 4,000 items" {
		t.Errorf("formatted cause %+v", fc)
	}
}

func TestRandomSeeks(t *testing.T) {
	loop := forLoop(5, "i", num(0), num(1000),
		call(6, "lseek", ref("fd"), bin("*", ref("i"), num(4096)), ref("SEEK_SET")),
		call(7, "read", ref("fd"), ref("buf"), num(4096)),
	)
	main := fn("main",
		open(3, "fd", "open", str("data.bin"), ref("O_RDONLY")),
		decl(4, "buf", ir.Type{Name: "char", Size: 1, Dims: []ir.Expr{num(4096)}}),
		loop)
	g, blocks := build(t, program(cfile(nil, main)), pdg.Options{})
	p := find(t, blocks, FunctionBlock, "main").Params
	if p.Random != 1000 || p.Calls != 1000 || p.Bytes != 4096000 || p.Metadata != 1001 || p.Small != 0 {
		t.Errorf("random %v calls %v bytes %v metadata %v small %v", p.Random, p.Calls, p.Bytes, p.Metadata, p.Small)
	}
	c := cause(find(t, blocks, FunctionBlock, "main"), CodeRandomAccess)
	if c == nil || c.Message != "random seeks before reads (1,000 lseek)" {
		t.Errorf("cause %+v", c)
	}
	open := g.Entry.Children[0].IO
	if open.File.Name != "data.bin" || open.File.Mode.String() != "r" {
		t.Errorf("open: file %q mode %q", open.File.Name, open.File.Mode)
	}
}

func TestRandomSeekAfterRead(t *testing.T) {
	// The seek follows the read in the body: from the second iteration
	// on, every read follows a seek.
	loop := forLoop(5, "i", num(0), num(10),
		call(6, "read", ref("fd"), ref("buf"), num(8)),
		call(7, "lseek", ref("fd"), ref("off"), ref("SEEK_SET")),
	)
	main := fn("main", open(3, "fd", "open", str("d"), ref("O_RDONLY")), decl(4, "buf", double), loop)
	_, blocks := build(t, program(cfile(nil, main)), pdg.Options{})
	main2 := find(t, blocks, FunctionBlock, "main")
	if main2.Params.Random != 10 {
		t.Errorf("random %v, want 10", main2.Params.Random)
	}
	if cause(main2, CodeUnbufferedSmallIO) == nil {
		t.Errorf("no unbuffered-small-io cause in %+v", main2.Causes)
	}
}

// mpiProgram opens a file with MPI-IO and writes 1024 doubles with
// routine at an offset.
func mpiProgram(routine string) *ir.Program {
	main := fn("main",
		decl(2, "fh", ir.Type{Name: "MPI_File", Size: 8}),
		call(3, "MPI_File_open", ref("MPI_COMM_WORLD"), str("out.dat"),
			bin("|", ref("MPI_MODE_CREATE"), ref("MPI_MODE_WRONLY")), ref("MPI_INFO_NULL"), addr("fh")),
		call(4, routine, ref("fh"), ref("off"), ref("buf"), num(1024), ref("MPI_DOUBLE"), addr("st")),
		call(5, "MPI_File_close", addr("fh")),
	)
	return program(cfile(nil, main))
}

func TestMPIIOIndependent(t *testing.T) {
	g, blocks := build(t, mpiProgram("MPI_File_write_at"), pdg.Options{})
	io := g.Entry.Children[1].IO
	if io.Bytes != 8192 || !io.BytesKnown || io.Collective || !io.Parallel || !io.Random || io.FileLabel() != "out.dat" {
		t.Errorf("io %+v", io)
	}
	if m := g.Entry.Children[0].IO.File.Mode.String(); m != "wc" {
		t.Errorf("mode %q, want wc", m)
	}
	main := find(t, blocks, FunctionBlock, "main")
	if main.Params.Bytes != 8192 || main.Params.Metadata != 2 || main.Params.Files != 1 {
		t.Errorf("params %+v", main.Params)
	}
	c := cause(main, CodeIndependentMPIIO)
	if c == nil || c.Message != "independent MPI-IO writes (MPI_File_write_at) where collective ones exist (MPI_File_write_at_all), 1 calls" {
		t.Errorf("cause %+v", c)
	}
}

func TestMPIIOCollective(t *testing.T) {
	g, blocks := build(t, mpiProgram("MPI_File_write_at_all"), pdg.Options{})
	if io := g.Entry.Children[1].IO; !io.Collective || io.Bytes != 8192 {
		t.Errorf("io %+v", io)
	}
	if c := cause(find(t, blocks, FunctionBlock, "main"), CodeIndependentMPIIO); c != nil {
		t.Errorf("unexpected cause %+v", c)
	}
}

// fortranProgram is
//
//	program sim
//	  real(8) :: a(1000)
//	  open(unit=10, file='out.dat', form='unformatted')
//	  do i = 1, 50
//	    write(10 <fmt>) a
//	  end do
//	end program
func fortranProgram(specs map[string]ir.Expr) *ir.Program {
	pos := func(l int) ir.Pos { return ir.Pos{File: "sim.f90", Line: l} }
	body := ir.Block{
		&ir.Decl{Pos: pos(2), Var: &ir.Var{Name: "a", Type: ir.Type{Name: "real(8)", Size: 8, Dims: []ir.Expr{num(1000)}}}},
		&ir.FortranIO{Pos: pos(3), Op: "open", Unit: num(10),
			Specs: map[string]ir.Expr{"file": str("out.dat"), "form": str("unformatted")}},
		&ir.Loop{Pos: pos(4), Kind: ir.Do, Var: "i", Lo: num(1), Hi: num(50), Inclusive: true, EndLine: 6, Body: ir.Block{
			&ir.FortranIO{Pos: pos(5), Op: "write", Unit: num(10), Specs: specs, Items: []ir.Expr{ref("a")}},
		}},
	}
	f := &ir.File{Path: "sim.f90", Lang: ir.Fortran, Lines: 7,
		Funcs: []*ir.Func{{Name: "sim", Kind: ir.MainProgram, Pos: pos(1), EndLine: 7, Body: body}}}
	return program(f)
}

func TestFortranUnformatted(t *testing.T) {
	g, blocks := build(t, fortranProgram(nil), pdg.Options{})
	if g.Entry == nil || g.Entry.Name != "sim" {
		t.Fatalf("entry %v", g.Entry)
	}
	p := find(t, blocks, FunctionBlock, "sim").Params
	if p.Bytes != 400000 || p.Binary != 50 || p.Calls != 50 || p.FileSize != 400000 || p.Files != 1 {
		t.Errorf("params %+v", p)
	}
}

func TestFortranFormatted(t *testing.T) {
	_, blocks := build(t, fortranProgram(map[string]ir.Expr{"fmt": str("*")}), pdg.Options{})
	b := find(t, blocks, FunctionBlock, "sim")
	if b.Params.Binary != 0 || b.Params.Calls != 50 {
		t.Errorf("params %+v", b.Params)
	}
	if c := cause(b, CodeFormattedIO); c == nil || c.Message != "formatted WRITE of 50,000 items" {
		t.Errorf("cause %+v", c)
	}
}

func TestComputeOnly(t *testing.T) {
	body := forLoop(3, "i", num(0), num(1000),
		open(4, "", "sqrt", ref("x")),
		assign(4, "y", bin("+", bin("*", ref("y"), num(2)), ir.CallExpr{Callee: "sqrt", Args: []ir.Expr{ref("x")}})),
	)
	kernel := fn("kernel", body)
	main := fn("main", call(10, "kernel"))
	_, blocks := build(t, program(cfile(nil, main, kernel)), pdg.Options{})
	for _, name := range []string{"kernel", "main"} {
		b := find(t, blocks, FunctionBlock, name)
		noIO(t, name, b.Params)
		// Per iteration: sqrt 4, y*2+sqrt: 2 operators and the store 1,
		// the loop test and step 1; main adds the call (pdg.CallOps).
		if b.Params.Work != 1000*(4+3+1)+btoi(name == "main")*pdg.CallOps {
			t.Errorf("%s work = %v", name, b.Params.Work)
		}
		if len(b.Causes) != 0 {
			t.Errorf("%s causes %+v", name, b.Causes)
		}
	}
	noIO(t, "file", blocks[0].Params)
}

func btoi(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestInclusiveCallee(t *testing.T) {
	// void dump(FILE *f) { for (i < 10) fwrite(buf, 8, 10, f); }
	// main calls dump three times.
	dump := fn("dump", decl(2, "buf", ir.Type{Name: "double", Size: 8, Dims: []ir.Expr{num(10)}}),
		forLoop(3, "i", num(0), num(10), call(4, "fwrite", ref("buf"), num(8), num(10), ref("f"))))
	dump.Params = []*ir.Var{{Name: "f", Type: file}}
	main := fn("main", open(10, "f", "fopen", str("o"), str("w")), decl(10, "f", file),
		call(11, "dump", ref("f")), call(12, "dump", ref("f")), call(13, "dump", ref("f")))
	_, blocks := build(t, program(cfile(nil, main, dump)), pdg.Options{})
	d := find(t, blocks, FunctionBlock, "dump").Params
	m := find(t, blocks, FunctionBlock, "main").Params
	for _, c := range []struct {
		name      string
		callee, x float64
	}{
		{"calls", d.Calls, m.Calls}, {"bytes", d.Bytes, m.Bytes}, {"binary", d.Binary, m.Binary},
		{"loop", d.LoopIO, m.LoopIO}, {"small", d.Small, m.Small},
	} {
		if c.x != 3*c.callee || c.callee == 0 {
			t.Errorf("%s: main %v, dump %v, want 3×", c.name, c.x, c.callee)
		}
	}
	if d.Calls != 10 || d.Bytes != 800 {
		t.Errorf("dump params %+v", d)
	}
	// The file opened in main is the one dump writes: one file of 2400
	// bytes.
	if m.Files != 1 || m.FileSize != 2400 {
		t.Errorf("main files %v size %v", m.Files, m.FileSize)
	}
	// The file block counts dump's own I/O three times, main's open once.
	if f := blocks[0].Params; f.Calls != 30 || f.Metadata != 1 {
		t.Errorf("file params %+v", f)
	}
}

func TestUnreachableNotCounted(t *testing.T) {
	unused := fn("unused", call(20, "fflush", ref("stdout")))
	main := fn("main", call(2, "puts", str("hello")))
	_, blocks := build(t, program(cfile(nil, main, unused)), pdg.Options{})
	u := find(t, blocks, FunctionBlock, "unused")
	if !u.Unreachable || u.Params.Flushes != 1 {
		t.Errorf("unused: unreachable %v params %+v", u.Unreachable, u.Params)
	}
	if f := blocks[0].Params; f.Flushes != 0 || f.Calls != 1 || f.Bytes != 5 {
		t.Errorf("file params %+v", f)
	}
}

func TestNoEntryCountsRoots(t *testing.T) {
	lib := fn("lib_write", call(2, "fflush", ref("stdout")))
	_, blocks := build(t, program(cfile(nil, lib)), pdg.Options{})
	if f := blocks[0].Params; f.Flushes != 1 {
		t.Errorf("file params %+v", f)
	}
}

// TestNamespaceChanges checks that mkdir, rename and unlink count as
// creations (directory updates) and stat does not.
func TestNamespaceChanges(t *testing.T) {
	p := loopParams(t, 50,
		call(4, "mkdir", str("d"), num(0755)),
		call(5, "rename", str("a"), str("b")),
		call(6, "unlink", str("b")),
		call(7, "stat", str("d"), ref("st")),
	)
	if p.Creates != 150 || p.Metadata != 200 {
		t.Errorf("creates %v, metadata %v; want 150 and 200", p.Creates, p.Metadata)
	}
}

// TestAttributesMoveNoData checks that HDF5 attribute writes and reads
// are no data transfers and cross no library layers to the file:
// attributes reach the file with the metadata.
func TestAttributesMoveNoData(t *testing.T) {
	p := loopParams(t, 50,
		call(4, "H5Awrite", ref("attr"), ref("H5T_NATIVE_DOUBLE"), ref("v")),
		call(5, "H5Aread", ref("attr"), ref("H5T_NATIVE_DOUBLE"), ref("v")),
	)
	if p.Calls != 0 || p.Bytes != 0 || p.Parallel != 0 {
		t.Errorf("calls %v, bytes %v, parallel calls %v; want 0, 0 and 0", p.Calls, p.Bytes, p.Parallel)
	}
}

// TestParallelOpens checks that opens through MPI-IO count among the
// parallel opens, and POSIX opens do not; the first starts the library's
// I/O components once, though it is in a loop.
func TestParallelOpens(t *testing.T) {
	p := loopParams(t, 20,
		call(4, "MPI_File_open", ref("MPI_COMM_WORLD"), str("a.dat"), ref("MPI_MODE_RDONLY"), ref("MPI_INFO_NULL"), addr("fh")),
		call(5, "MPI_File_close", addr("fh")),
		call(6, "open", str("b.dat"), ref("O_RDONLY")),
	)
	if p.ParallelOpens != 20 || p.Parallel != 40 || p.ParallelStarts != 1 {
		t.Errorf("parallel opens %v, calls %v, starts %v; want 20, 40 and 1", p.ParallelOpens, p.Parallel, p.ParallelStarts)
	}
}

// loopParams returns the parameters of a main running the statements body
// in a loop of trips iterations.
func loopParams(t *testing.T, trips int64, body ...ir.Stmt) Params {
	t.Helper()
	main := fn("main", forLoop(3, "i", num(0), num(trips), body...))
	_, blocks := build(t, program(cfile(nil, main)), pdg.Options{})
	return find(t, blocks, FunctionBlock, "main").Params
}

// TestChunkRequests checks that an HDF5 transfer touching several chunks
// of a chunked dataset costs a library request per chunk.
func TestChunkRequests(t *testing.T) {
	s, ok := iosem.Lookup("H5Dread")
	if !ok {
		t.Fatal("H5Dread has no semantics")
	}
	for _, c := range []struct {
		chunks int64
		want   float64
	}{{0, 1}, {1, 1}, {32, 32}} {
		if p := runtimeCost(&pdg.IO{Sem: s, Chunks: c.chunks}); p.Parallel != c.want {
			t.Errorf("%d chunks: %v parallel calls, want %v", c.chunks, p.Parallel, c.want)
		}
	}
}
