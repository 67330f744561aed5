package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/iolens/iolens/internal/fixture"
)

// needTool returns the path of a program the test needs (see
// fixture.Tool).
func needTool(t testing.TB, name string) string {
	t.Helper()
	return fixture.Tool(t, name)
}

// withCollectorSources makes the collector commands build src into a
// fresh cache, and returns the cache.
func withCollectorSources(t *testing.T, src fstest.MapFS) string {
	t.Helper()
	old := collectorSources
	collectorSources = src
	t.Cleanup(func() { collectorSources = old })
	cache := t.TempDir()
	t.Setenv("IOLENS_CACHE_DIR", cache)
	return cache
}

var testCollector = fstest.MapFS{
	"lib.c": {Data: []byte(`#include <unistd.h>
int iolens_cli_test(void) { return (int)getpid(); }
`)},
	"mpi.c": {Data: []byte(`/* iolens: mpi */
#include <mpi.h>
int iolens_cli_rank(void) { int r = -1; PMPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
`)},
}

// libPath checks that out is one line naming a library in cache.
func libPath(t *testing.T, out, cache string) string {
	t.Helper()
	lib, ok := strings.CutSuffix(out, "\n")
	if !ok || strings.Contains(lib, "\n") {
		t.Fatalf("output is not one line: %q", out)
	}
	if !strings.HasPrefix(lib, cache+string(filepath.Separator)) || filepath.Base(lib) != "libiolens.so" {
		t.Errorf("library %s is not a libiolens.so in %s", lib, cache)
	}
	if st, err := os.Stat(lib); err != nil || !st.Mode().IsRegular() {
		t.Errorf("library %s: %v", lib, err)
	}
	return lib
}

func TestCollectorBuildAndPath(t *testing.T) {
	needTool(t, "cc")
	cache := withCollectorSources(t, testCollector)

	r := iolens(t, "collector", "build")
	r.want(t, 0)
	lib := libPath(t, r.stdout, cache)
	// The first build says it happens, once.
	if want := "iolens: building the collector for programs without MPI (first use, once)...\n"; r.stderr != want {
		t.Errorf("stderr of the first build %q, want %q", r.stderr, want)
	}

	r = iolens(t, "collector", "path")
	r.want(t, 0)
	if got := libPath(t, r.stdout, cache); got != lib {
		t.Errorf("path prints %s, build printed %s", got, lib)
	}
	if r.stderr != "" {
		t.Errorf("stderr without a build: %q", r.stderr)
	}

	// path builds when the cache is empty.
	cache2 := withCollectorSources(t, testCollector)
	r = iolens(t, "collector", "path")
	r.want(t, 0)
	libPath(t, r.stdout, cache2)
}

func TestCollectorMPI(t *testing.T) {
	needTool(t, "cc")
	needTool(t, "objcopy")
	cache := withCollectorSources(t, testCollector)
	plain := iolens(t, "collector", "path")
	plain.want(t, 0)
	seen := map[string]string{}
	for _, c := range []struct{ flavor, mpicc string }{{"openmpi", "mpicc.openmpi"}, {"mpich", "mpicc.mpich"}} {
		needTool(t, c.mpicc)
		r := iolens(t, "collector", "build", "--mpicc", c.mpicc)
		r.want(t, 0)
		lib := libPath(t, r.stdout, cache)
		name := map[string]string{"openmpi": "Open MPI", "mpich": "MPICH"}[c.flavor]
		if want := "iolens: building the collector for " + name + " (first use, once)...\n"; !strings.HasPrefix(r.stderr, want) {
			t.Errorf("stderr of the first build %q, want %q first", r.stderr, want)
		}
		if r.stdout == plain.stdout {
			t.Errorf("--mpicc %s: same library as without MPI", c.mpicc)
		}
		t.Setenv("IOLENS_MPICC", "")
		r = iolens(t, "collector", "path", "--mpi", c.flavor)
		r.want(t, 0)
		if got := libPath(t, r.stdout, cache); got != lib {
			t.Errorf("--mpi %s: %s, want the library of %s: %s", c.flavor, got, c.mpicc, lib)
		}
		seen[c.flavor] = lib
	}
	if seen["openmpi"] == seen["mpich"] {
		t.Errorf("Open MPI and MPICH share a library")
	}
}

func TestCollectorBuildFailure(t *testing.T) {
	needTool(t, "cc")
	src := fstest.MapFS{"bad.c": {Data: []byte("int f(void) { return no_such_symbol_iolens; }\n")}}
	cache := withCollectorSources(t, src)
	r := iolens(t, "collector", "path")
	r.want(t, 1)
	if r.stdout != "" {
		t.Errorf("stdout: %q", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "iolens: building the collector") || !strings.Contains(r.stderr, "no_such_symbol_iolens") {
		t.Errorf("stderr does not carry the compiler's error:\n%s", r.stderr)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("failed build left %d entries in the cache", len(entries))
	}
}

func TestCollectorUsage(t *testing.T) {
	withCollectorSources(t, testCollector)
	for _, args := range [][]string{
		{"collector"},
		{"collector", "bogus"},
		{"collector", "build", "extra"},
		{"collector", "path", "extra"},
		{"collector", "path", "--no-such-flag"},
		{"collector", "build", "--mpicc", "/no/such/mpicc"},
		{"collector", "path", "--mpi", "lam"},
		{"collector", "path", "--mpi", "mpich", "--mpicc", "mpicc"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { wantUsageError(t, args...) })
	}
}

func TestCollectorHelp(t *testing.T) {
	for _, args := range [][]string{{"collector", "--help"}, {"collector", "build", "--help"}, {"collector", "path", "--help"}} {
		r := iolens(t, args...)
		r.want(t, 0)
		if !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "iolens collector") {
			t.Errorf("%v: help has no example:\n%s", args, r.stdout)
		}
	}
}
