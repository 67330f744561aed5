// Package sharedtest locates the shared test material (sample Darshan logs
// and the reference tools' outputs for them) for the tests of any package.
package sharedtest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Dir returns the shared directory: $IOLENS_SHARED, or "shared" beside the
// module root. When it is missing the test is skipped, or failed under CI.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("IOLENS_SHARED")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			tb.Fatalf("locating the module root: %v", err)
		}
		dir = filepath.Join(root, "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "darshan-logs")); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("shared test material missing under CI: %v", err)
		}
		tb.Skipf("shared test material not found (set IOLENS_SHARED): %v", err)
	}
	return dir
}

// Log is one sample log: its path and the base name of its reference
// outputs ("<dir>__<file>").
type Log struct {
	Path, Key string
}

// Logs lists the sample logs in a stable order.
func Logs(tb testing.TB) []Log {
	tb.Helper()
	dir := Dir(tb)
	paths, err := filepath.Glob(filepath.Join(dir, "darshan-logs", "*", "*.darshan"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no sample logs under %s: %v", dir, err)
	}
	sort.Strings(paths)
	out := make([]Log, len(paths))
	for i, p := range paths {
		out[i] = Log{Path: p, Key: filepath.Base(filepath.Dir(p)) + "__" + filepath.Base(p)}
	}
	return out
}

// Expected returns the path of the reference output of log for mode
// ("base", "total", "file", "perf" or "dxt"), and the exit status of the
// reference run (0 unless a .rc file says otherwise).
func Expected(tb testing.TB, log Log, mode string) (path string, status int) {
	tb.Helper()
	base := filepath.Join(Dir(tb), "darshan-logs-expected", log.Key+"."+mode)
	if b, err := os.ReadFile(base + ".rc"); err == nil {
		var rc int
		for _, c := range b {
			if c >= '0' && c <= '9' {
				rc = rc*10 + int(c-'0')
			}
		}
		status = rc
	}
	return base + ".gz", status
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// ReadExpected returns the decompressed reference output at path (a path
// from Expected), or nil if there is none.
func ReadExpected(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return b
}

// FirstDiff describes the first line where got and want differ.
func FirstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "identical"
}
