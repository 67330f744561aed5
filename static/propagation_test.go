package static

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/iosem"
)

// TestConstantsThroughCalls checks, end to end, that the PARAMETER n of
// the main program bounds the loops of the procedures it is passed to:
// dump's loop runs 200000 times per call, so the program writes 200000
// lines on each of its 3 steps.
func TestConstantsThroughCalls(t *testing.T) {
	// testdata/solver.f90: dump writes one formatted line per element of
	// its dummy argument a(n), where n is the main program's PARAMETER
	// passed on each of 3 time steps; the internal WRITE that makes the
	// file name is not file I/O.
	path := filepath.Join("testdata", "solver.f90")
	res, err := Analyze(context.Background(), []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	find := func(kind, name string, line int) Block {
		t.Helper()
		for _, b := range res.Blocks {
			if b.Kind == kind && b.Name == name && b.Line == line {
				return b
			}
		}
		t.Fatalf("no %s block %s at line %d", kind, name, line)
		return Block{}
	}
	const n, steps = 200000, 3
	for _, c := range []struct {
		line   int
		trip   int64
		source string
	}{
		{7, steps, "literal"},
		{16, n - 2, "parameter"},
		{29, n, "parameter"},
	} {
		if b := find(features.LoopBlock, "do", c.line); b.Trip != c.trip || b.TripSource != c.source {
			t.Errorf("loop at line %d: trip %d (%s), want %d (%s)", c.line, b.Trip, b.TripSource, c.trip, c.source)
		}
	}
	// One formatted WRITE per line, of an integer and a real estimated
	// at iosem.IntWidth + iosem.FloatWidth characters; the internal WRITE
	// into name is no I/O call; OPEN and CLOSE once per call of dump.
	line := float64(iosem.IntWidth + iosem.FloatWidth)
	dump := find(features.FunctionBlock, "dump", 22).Features.Params
	if dump.Calls != n || dump.Metadata != 2 || dump.Bytes != n*line {
		t.Errorf("dump: %v I/O calls, %v metadata calls, %v bytes; want %d, 2, %v", dump.Calls, dump.Metadata, dump.Bytes, n, n*line)
	}
	solver := find(features.FunctionBlock, "solver", 1)
	p := solver.Features.Params
	if p.Calls != n*steps || p.Metadata != 2*steps || p.Bytes != n*steps*line {
		t.Errorf("solver: %v I/O calls, %v metadata calls, %v bytes; want %d, %d, %v",
			p.Calls, p.Metadata, p.Bytes, n*steps, 2*steps, n*steps*line)
	}
	// All of solver's I/O is dump's: the ranking puts dump first.
	if solver.IOTime <= 0 || solver.OwnIOTime != 0 || res.Blocks[0].Name != "dump" {
		t.Errorf("solver: I/O time %v, own %v; first block %s %s, want dump", solver.IOTime, solver.OwnIOTime, res.Blocks[0].Kind, res.Blocks[0].Name)
	}
}
