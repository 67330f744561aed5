package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/internal/fixture"
	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/sysprof"
)

// speed is what BenchmarkPredictVsRun measured for one program: the
// medians over the iterations of the time of predicting it and of running
// it under the collector.
type speed struct {
	name         string
	predict, run time.Duration
}

// BenchmarkPredictVsRun compares, for every program of the corpus, the
// time of predicting it (static.Analyze of its sources, in process, on the
// reference machine profile so that no probe runs) with the time of
// running its built executable under the collector, as corpus.Measure
// does (the run and the collection of its profiles, not the build). ns/op
// is the time of predicting; the program's median predict-ms and run-ms
// and their ratio run/predict are reported as metrics, and with -v a table
// of all the programs is logged at the end.
func BenchmarkPredictVsRun(b *testing.B) {
	c, err := Load(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	var speeds []speed
	for _, p := range c.Programs {
		b.Run("prog="+p.Name, func(b *testing.B) {
			speeds = append(speeds, predictVsRun(b, p))
		})
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-18s %12s %12s %12s\n", "program", "predict ms", "run ms", "run/predict")
	for _, s := range speeds {
		fmt.Fprintf(&table, "%-18s %12.2f %12.1f %12.1f\n", s.name, ms(s.predict), ms(s.run), s.run.Seconds()/s.predict.Seconds())
	}
	b.Logf("medians per program:\n%s", table.String())
}

// predictVsRun measures program p for BenchmarkPredictVsRun.
func predictVsRun(b *testing.B, p Program) speed {
	fixture.Tool(b, p.Build[0])
	if p.Ranks > 1 {
		fixture.Tool(b, "mpiexec.openmpi")
	}
	if slices.ContainsFunc(p.Build, func(a string) bool { return strings.HasPrefix(a, "{pkg-config ") }) {
		fixture.Tool(b, "pkg-config")
	}
	ctx := context.Background()
	files := make([]string, len(p.Sources))
	for i, s := range p.Sources {
		files[i] = filepath.Join(p.Dir, s)
	}
	opts := static.Options{System: sysprof.Default(), Procs: p.Ranks}
	predict := func() time.Duration {
		start := time.Now()
		if _, err := static.Analyze(ctx, files, opts); err != nil {
			b.Fatalf("predicting %s: %v", p.Name, err)
		}
		return time.Since(start)
	}

	work := b.TempDir()
	env := os.Environ()
	exe, err := build(ctx, p, work, env)
	if err != nil {
		b.Fatalf("measuring %s: %v", p.Name, err)
	}
	iteration := 0
	execute := func() time.Duration {
		// A new directory for the files of each run, so that a program
		// that appends does not find the previous run's files.
		iteration++
		out := filepath.Join(work, fmt.Sprintf("run%d", iteration), "out")
		if err := os.MkdirAll(out, 0o700); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := run(ctx, p, exe, out, env, Options{}); err != nil {
			b.Fatalf("measuring %s: %v", p.Name, err)
		}
		elapsed := time.Since(start)
		if err := os.RemoveAll(filepath.Dir(out)); err != nil {
			b.Fatal(err)
		}
		return elapsed
	}
	// Untimed: the first run builds the collector library if it is not in
	// the cache yet, the first prediction builds the parsers' tables.
	predict()
	execute()

	var predicts, runs []time.Duration
	for b.Loop() {
		predicts = append(predicts, predict())
		b.StopTimer()
		runs = append(runs, execute())
		b.StartTimer()
	}
	s := speed{name: p.Name, predict: median(predicts), run: median(runs)}
	b.ReportMetric(ms(s.predict), "predict-ms")
	b.ReportMetric(ms(s.run), "run-ms")
	b.ReportMetric(s.run.Seconds()/s.predict.Seconds(), "run/predict")
	return s
}

// median returns the median of d, which it sorts.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }
