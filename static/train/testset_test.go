package train

import (
	"context"
	"slices"
	"testing"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/corpus"
	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
)

// ranked is a made-up analysis, in the order static.Analyze sorts blocks:
// main calls dump in a loop and compute once; dump writes with fwrite.
func ranked() *static.Result {
	return &static.Result{Blocks: []static.Block{
		{ID: 1, Parent: 0, Kind: "function", Name: "main", IOTime: 2},
		{ID: 2, Parent: 1, Kind: "loop", Name: "for", IOTime: 2},
		{ID: 3, Parent: 2, Kind: "call", Name: "dump", IOTime: 2},
		{ID: 0, Parent: -1, Kind: "file", Name: "a.c", IOTime: 1},
		{ID: 5, Parent: 0, Kind: "function", Name: "dump", IOTime: 0.1, CIOC: 0.9},
		{ID: 6, Parent: 5, Kind: "call", Name: "fwrite", IOTime: 0.1},
		{ID: 7, Parent: 0, Kind: "function", Name: "setup", IOTime: 0.05},
		{ID: 8, Parent: 7, Kind: "call", Name: "fopen", IOTime: 0.05},
		{ID: 4, Parent: 1, Kind: "call", Name: "compute"},
		{ID: 9, Parent: 0, Kind: "function", Name: "compute"},
	}}
}

func TestRankFunctions(t *testing.T) {
	got := RankFunctions(ranked())
	if want := []string{"main", "dump", "setup"}; !slices.Equal(got, want) {
		t.Errorf("RankFunctions = %v, want %v (compute has no I/O)", got, want)
	}
}

func TestBottleneck(t *testing.T) {
	meas := []corpus.Function{
		{Name: "compute", Wall: 1},
		{Name: "dump", Wall: 0.5, IOTime: 0.4, SelfIO: 0.4, Intensity: 0.8},
		{Name: "main", Wall: 1.6, IOTime: 0.45, SelfIO: 0.01, Intensity: 0.28},
		{Name: "setup", Wall: 0.1, IOTime: 0.05, SelfIO: 0.05, Intensity: 0.5},
	}
	b, ok := bottleneck("p", meas, ranked(), 3, 0.01)
	if !ok || b.Function != "dump" || b.IOTime != 0.4 || b.Measured != 0.8 || b.Predicted != 0.9 || b.EstIOTime != 0.1 ||
		b.Rank != 2 || !b.Hit || !slices.Equal(b.Top, []string{"main", "dump", "setup"}) {
		t.Errorf("bottleneck = %+v, %v", b, ok)
	}
	if b, _ := bottleneck("p", meas, ranked(), 1, 0.01); b.Hit || b.Rank != 2 || len(b.Top) != 1 {
		t.Errorf("top 1: %+v", b)
	}
	if _, ok := bottleneck("p", meas, ranked(), 3, 0.5); ok {
		t.Error("a bottleneck of less I/O than the minimum")
	}
	meas[0].SelfIO = 1 // compute ranks nowhere
	if b, _ := bottleneck("p", meas, ranked(), 3, 0.01); b.Function != "compute" || b.Rank != 0 || b.Hit {
		t.Errorf("unranked: %+v", b)
	}
	if _, ok := bottleneck("p", []corpus.Function{{Name: "main", Wall: 1}}, ranked(), 3, 0); ok {
		t.Error("a bottleneck in a program without I/O")
	}
}

// TestMeasureAndEvaluate builds and measures three programs of the
// training corpus (Fortran, C, C++): each yields a profile with its
// functions, and the test-set evaluation, run on them as if they were a
// test set, finds their samples and bottlenecks. (The programs of the test
// set are measured by the evaluation only.)
func TestMeasureAndEvaluate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three programs")
	}
	test, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		name  string
		calls uint64
		io    bool
	}
	want := map[string][]fn{
		"tsolve_fmt": {{"relax", 240, false}, {"dump_profile", 4, true}, {"MAIN__", 1, true}},
		"flush_peek": {{"stream_blocks", 1, true}, {"peek_header", 1, true}, {"fill_block", 5000, false}, {"checksum_blocks", 1, false}},
		"csv_kernel": {{"lattice::relax_spins", 60, false}, {"lattice::write_csv", 12, true}, {"lattice::append_trace", 60, true}, {"main", 1, true}},
	}
	sub := corpus.Manifest{Dir: test.Dir, Set: corpus.SetTest}
	for _, p := range test.Programs {
		fns, ok := want[p.Name]
		if !ok {
			continue
		}
		sub.Programs = append(sub.Programs, p)
		m, err := corpus.Measure(context.Background(), p, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range fns {
			f, ok := m.Function(w.name)
			if !ok {
				t.Errorf("%s: no profile of %s in %+v", p.Name, w.name, m.Functions)
				continue
			}
			if f.Calls != w.calls || (f.IOTime > 0) != w.io || f.Wall <= 0 {
				t.Errorf("%s: %s = %+v, want %d calls, I/O %v", p.Name, w.name, f, w.calls, w.io)
			}
		}
	}
	if len(sub.Programs) != len(want) {
		t.Fatalf("%d of the %d programs in the corpus", len(sub.Programs), len(want))
	}
	shipped := model.Default()
	res, err := evaluate(context.Background(), sub, shipped, Options{Runs: 1, System: sysprof.Default()}, DefaultMinWall)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"tsolve_fmt/relax", "tsolve_fmt/dump_profile", "flush_peek/stream_blocks", "csv_kernel/lattice::relax_spins", "csv_kernel/lattice::write_csv"} {
		if !slices.ContainsFunc(res.Samples, func(x TestSample) bool { return x.Program+"/"+x.Function == s }) {
			t.Errorf("no test sample %s in %+v", s, res.Samples)
		}
	}
	if res.Fitted.N != len(res.Samples) || res.Shipped.N != len(res.Samples) || len(res.Fitted.Bottlenecks) != 3 || len(res.Shipped.Bottlenecks) != 3 {
		t.Errorf("evaluation: fitted %+v, shipped %+v", res.Fitted, res.Shipped)
	}
	for _, b := range res.Shipped.Bottlenecks {
		if want := map[string]string{"tsolve_fmt": "dump_profile", "flush_peek": "stream_blocks", "csv_kernel": "lattice::write_csv"}[b.Program]; b.Function != want {
			t.Errorf("%s: bottleneck %s, want %s", b.Program, b.Function, want)
		}
		t.Log(b)
	}
}
