package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
)

func TestRun(t *testing.T) {
	needTool(t, "cc")
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	out := filepath.Join(dir, "out.txt")
	// Standard input and output pass through; the exit status is the
	// command's.
	r := iolensStdin(t, strings.NewReader("hello"), "run", "--log-dir", logs, "--app", "demo", "--",
		"sh", "-c", "cat > "+out+"; echo done; exit 3")
	r.want(t, 3)
	if r.stdout != "done\n" {
		t.Errorf("stdout %q, want the command's", r.stdout)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "hello" {
		t.Errorf("%s holds %q (%v), want the standard input", out, b, err)
	}
	entries, err := os.ReadDir(logs)
	if err != nil || len(entries) != 1 {
		t.Fatalf("log directory: %v, %v", entries, err)
	}
	name := entries[0].Name()
	if !strings.Contains(name, "_demo_id") || !strings.HasSuffix(name, ".darshan") {
		t.Errorf("log name %q", name)
	}
	if !strings.Contains(r.stderr, "iolens: log "+filepath.Join(logs, name)) {
		t.Errorf("stderr %q does not name the log", r.stderr)
	}
	l, err := darshan.OpenFile(filepath.Join(logs, name))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var writes int64
	l.Each(darshan.ModPOSIX, func(rec *darshan.Record) error {
		if n, _ := l.RecordName(rec.ID); n == out {
			v, _ := rec.Counter("POSIX_BYTES_WRITTEN")
			writes += v
		}
		return nil
	})
	if writes != 5 {
		t.Errorf("bytes written to %s = %d, want 5", out, writes)
	}
}

func TestRunUsage(t *testing.T) {
	iolens(t, "run").want(t, ExitUsage)
	iolens(t, "run", "--bogus", "--", "true").want(t, ExitUsage)
	r := iolens(t, "run", "--log-dir", t.TempDir(), "--", filepath.Join(t.TempDir(), "missing"))
	r.want(t, ExitFailure)
	if !strings.Contains(r.stderr, "missing") {
		t.Errorf("stderr %q does not name the missing program", r.stderr)
	}
}
