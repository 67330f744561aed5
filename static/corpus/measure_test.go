package corpus

import (
	"github.com/iolens/iolens/internal/fixture"

	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

var instrument = []string{"-O2", "-g", "-finstrument-functions", "-finstrument-functions-exclude-file-list=/usr/include"}

// testProgram is a program of testdata built with compiler cc.
func testProgram(t *testing.T, name, lang, cc string, sources ...string) Program {
	t.Helper()
	fixture.Tool(t, cc)
	build := append(append([]string{cc}, instrument...), "-o", "{out}", "{src}")
	return Program{Name: name, Language: lang, Sources: sources, Build: build, Args: []string{"{dir}"}, Ranks: 1, Dir: "testdata"}
}

func measure(t *testing.T, p Program) Measurement {
	t.Helper()
	m, err := Measure(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func function(t *testing.T, m Measurement, name string) Function {
	t.Helper()
	f, ok := m.Function(name)
	if !ok {
		t.Fatalf("%s: no function %s in %+v", m.Program, name, m.Functions)
	}
	return f
}

func TestMeasureC(t *testing.T) {
	m := measure(t, testProgram(t, "tiny", LangC, "cc", "tiny.c"))
	c, d, main := function(t, m, "compute"), function(t, m, "dump"), function(t, m, "main")
	if c.Calls != 500 || c.IOTime != 0 || c.SelfIO != 0 || c.Intensity != 0 || c.Wall <= 0 {
		t.Errorf("compute = %+v, want 500 calls and exactly no I/O", c)
	}
	if d.Calls != 100 || d.IOTime <= 0 || d.Intensity <= 0 || d.Intensity > 1 || d.SelfIO != d.IOTime {
		t.Errorf("dump = %+v, want 100 calls, intensity in (0, 1]", d)
	}
	if main.Calls != 1 || main.Wall < c.Wall+d.Wall || main.IOTime < d.IOTime {
		t.Errorf("main = %+v; its children: compute %+v, dump %+v", main, c, d)
	}
}

func TestMeasureFortran(t *testing.T) {
	m := measure(t, testProgram(t, "tiny_f90", LangFortran, "gfortran", "tiny.f90"))
	w, d := function(t, m, "work"), function(t, m, "dump")
	if w.Symbol != "__tiny_mod_MOD_work" || w.Calls != 50 || w.IOTime != 0 {
		t.Errorf("work = %+v, want the module procedure, 50 calls, no I/O", w)
	}
	if d.Symbol != "dump_" || d.Calls != 50 || d.IOTime <= 0 {
		t.Errorf("dump = %+v, want dump_, 50 calls with I/O", d)
	}
}

func TestMeasureMPI(t *testing.T) {
	c, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Program("mpiio_indep")
	for _, tool := range []string{p.Build[0], "mpiexec.openmpi"} {
		fixture.Tool(t, tool)
	}
	m := measure(t, p)
	// NSEG = 256 segments per rank, 2 ranks.
	if f := function(t, m, "compute_segment"); f.Calls != 512 || f.IOTime != 0 {
		t.Errorf("compute_segment = %+v, want 512 calls (both ranks), no I/O", f)
	}
	if f := function(t, m, "write_segments"); f.Calls != 2 || f.IOTime <= 0 {
		t.Errorf("write_segments = %+v, want 2 calls with I/O", f)
	}
	if f := function(t, m, "main"); f.Calls != 2 {
		t.Errorf("main = %+v, want 2 calls", f)
	}
}

// allCorpus makes TestMeasureCorpus measure every corpus program (make
// test-corpus) rather than every corpusStride'th one.
var allCorpus = flag.Bool("all-corpus", false, "measure every corpus program")

// corpusStride is the share of the corpus TestMeasureCorpus measures by
// default: one program in corpusStride, spread over the corpus's history,
// keeps go test within minutes as the corpus grows.
const corpusStride = 6

// TestMeasureCorpus builds and measures corpus programs, as many at once
// as the test runs in parallel (-parallel, GOMAXPROCS by default): one in
// corpusStride, or all of them with -all-corpus. With -v it prints the
// measured intensities.
func TestMeasureCorpus(t *testing.T) {
	c, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if !*allCorpus {
		var some []Program
		for i, p := range c.Programs {
			if i%corpusStride == 0 {
				some = append(some, p)
			}
		}
		c.Programs = some
	}
	var mu sync.Mutex
	var table strings.Builder
	t.Cleanup(func() {
		t.Logf("| program | function | calls | wall s | I/O s | intensity |\n|---|---|---|---|---|---|\n%s", table.String())
	})
	for _, p := range c.Programs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			m, err := Measure(context.Background(), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			main := function(t, m, "main")
			if main.Calls != uint64(p.Ranks) {
				t.Errorf("main called %d times, want %d", main.Calls, p.Ranks)
			}
			for _, f := range m.Functions {
				if f.Intensity < 0 || f.Intensity > 1 || f.SelfIO > f.IOTime*(1+1e-9) {
					t.Errorf("%s = %+v", f.Name, f)
				}
				mu.Lock()
				fmt.Fprintf(&table, "| %s | %s | %d | %.4f | %.4f | %.3f |\n", p.Name, f.Name, f.Calls, f.Wall, f.IOTime, f.Intensity)
				mu.Unlock()
			}
			t.Logf("%s measured in %v", p.Name, time.Since(start).Round(time.Millisecond))
		})
	}
}
