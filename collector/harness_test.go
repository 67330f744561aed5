package collector

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// Test harness: build the real preload library, compile workload programs
// from testdata, run them under the collector and read what it recorded.

var (
	libMu   sync.Mutex
	libPath = map[string]string{}
)

// testLibrary returns the preload library built for mpicc ("" = no MPI),
// building it once per test binary into the user's collector cache.
func testLibrary(t testing.TB, mpicc string) string {
	t.Helper()
	libMu.Lock()
	defer libMu.Unlock()
	if p, ok := libPath[mpicc]; ok {
		return p
	}
	p, err := Library(context.Background(), BuildOptions{MPICC: mpicc})
	if err != nil {
		t.Fatalf("building the collector library (mpicc %q): %v", mpicc, err)
	}
	libPath[mpicc] = p
	return p
}

// compileWorkload compiles testdata/src with compiler cc into a temporary
// directory and returns the program's path.
func compileWorkload(t testing.TB, cc, src string, flags ...string) string {
	t.Helper()
	needTool(t, cc)
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	args := append([]string{"-O2", "-g", "-o", out, filepath.Join("testdata", src)}, flags...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
	}
	return out
}

// runResult is a workload run under Run: its logs, read back.
type runResult struct {
	Result RunResult
	Logs   []*darshan.Log
	LogDir string
}

// runCollected runs argv under Run with a fresh log directory and reads
// every log it wrote. env entries are added to the environment.
func runCollected(t testing.TB, opts RunOptions, env []string, argv ...string) runResult {
	t.Helper()
	dir := t.TempDir()
	if opts.LogDir == "" {
		opts.LogDir = dir
	}
	opts.Env = append(os.Environ(), env...)
	opts.Stdin = strings.NewReader("")
	var stderr strings.Builder
	if opts.Stderr == nil {
		opts.Stderr = &stderr
	}
	res, err := Run(context.Background(), argv, opts)
	if err != nil {
		t.Fatalf("run %q: %v\nstderr:\n%s", argv, err, stderr.String())
	}
	out := runResult{Result: res, LogDir: opts.LogDir}
	for _, p := range res.Logs {
		l, err := darshan.OpenFile(p)
		if err != nil {
			t.Fatalf("reading %s: %v", p, err)
		}
		t.Cleanup(func() { l.Close() })
		out.Logs = append(out.Logs, l)
	}
	return out
}

// records returns every record of module m in l.
func records(t testing.TB, l *darshan.Log, m darshan.ModuleID) []*darshan.Record {
	t.Helper()
	var out []*darshan.Record
	err := l.Each(m, func(r *darshan.Record) error {
		out = append(out, r.Clone())
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s records: %v", m.Info().Name, err)
	}
	return out
}

// record returns the record of module m named name for rank (the only one;
// the test fails if there is none or several).
func record(t testing.TB, l *darshan.Log, m darshan.ModuleID, name string, rank int64) *darshan.Record {
	t.Helper()
	var found []*darshan.Record
	for _, r := range records(t, l, m) {
		if n, _ := l.RecordName(r.ID); n == name && r.Rank == rank {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, r := range records(t, l, m) {
			n, _ := l.RecordName(r.ID)
			names = append(names, n)
		}
		t.Fatalf("%d %s records of %q for rank %d; records: %q", len(found), m.Info().Name, name, rank, names)
	}
	return found[0]
}

// wantCounters checks the named integer counters of r.
func wantCounters(t testing.TB, r *darshan.Record, want map[string]int64) {
	t.Helper()
	names := r.Module.Info().Counters
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i := slices.Index(names, k)
		if i < 0 {
			t.Fatalf("no counter %s in %s", k, r.Module.Info().Name)
		}
		if got := r.Counters[i]; got != want[k] {
			t.Errorf("%s = %d, want %d", k, got, want[k])
		}
	}
}

// fcounter returns the named floating-point counter of r.
func fcounter(t testing.TB, r *darshan.Record, name string) float64 {
	t.Helper()
	i := slices.Index(r.Module.Info().FCounters, name)
	if i < 0 {
		t.Fatalf("no counter %s in %s", name, r.Module.Info().Name)
	}
	return r.FCounters[i]
}

// dirNames returns the file names in dir.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
