package cli

import (
	"os"
	"os/exec"
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

// TestDXTVersions checks the module versions of the logs that run, merge
// and convert write: those of Darshan 3.5.0 by default (DXT_POSIX 1), the
// ones with thread ids (DXT_POSIX 2) with --dxt-threads.
func TestDXTVersions(t *testing.T) {
	needTool(t, "cc")
	dir := t.TempDir()
	data := filepath.Join(dir, "data.txt")
	script := "echo hello > " + data + "; cat " + data + " > /dev/null"
	release := map[darshan.ModuleID]uint32{darshan.ModPOSIX: 4, darshan.ModDXTPOSIX: 1, darshan.ModHeatmap: 1}
	threads := map[darshan.ModuleID]uint32{darshan.ModPOSIX: 4, darshan.ModDXTPOSIX: 2, darshan.ModHeatmap: 1}

	runLog := func(flag string) string {
		logs := filepath.Join(dir, "logs"+flag)
		iolens(t, "run", flag, "--log-dir", logs, "--", "sh", "-c", script).want(t, 0)
		paths, _ := filepath.Glob(filepath.Join(logs, "*.darshan"))
		if len(paths) != 1 {
			t.Fatalf("run %s: logs %q, want one", flag, paths)
		}
		return paths[0]
	}
	plain, threaded := runLog("--dxt"), runLog("--dxt-threads")
	wantVersions(t, plain, release, false)
	wantVersions(t, threaded, threads, true)

	// merge, of stores left by the library preloaded by hand.
	r := iolens(t, "collector", "path")
	r.want(t, 0)
	stores := filepath.Join(dir, "stores")
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+strings.TrimSpace(r.stdout), "IOLENS_STORE_DIR="+stores, "IOLENS_DXT=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("preloaded run: %v\n%s", err, out)
	}
	for _, c := range []struct {
		flag string
		want map[darshan.ModuleID]uint32
	}{{"--compress=zlib", release}, {"--dxt-threads", threads}} {
		out := filepath.Join(dir, "merged"+c.flag+".darshan")
		iolens(t, "merge", c.flag, stores, "-o", out).want(t, 0)
		wantVersions(t, out, c.want, c.flag == "--dxt-threads")
	}

	// convert keeps what the log has.
	for _, c := range []struct {
		in   string
		want map[darshan.ModuleID]uint32
	}{{plain, release}, {threaded, threads}} {
		out := c.in + ".converted"
		iolens(t, "convert", c.in, out).want(t, 0)
		wantVersions(t, out, c.want, c.in == threaded)
	}
}

// wantVersions checks the versions of the modules of the log at path, and
// whether its DXT_POSIX segments carry thread ids.
func wantVersions(t *testing.T, path string, want map[darshan.ModuleID]uint32, threads bool) {
	t.Helper()
	l, err := darshan.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for m, v := range want {
		if got := l.Header.ModuleVersions[m]; got != v {
			t.Errorf("%s: module %s version %d, want %d", filepath.Base(path), m, got, v)
		}
	}
	n := 0
	err = l.Each(darshan.ModDXTPOSIX, func(r *darshan.Record) error {
		n++
		if r.DXT.ThreadIDs != threads {
			t.Errorf("%s: DXT_POSIX record with thread ids %v, want %v", filepath.Base(path), r.DXT.ThreadIDs, threads)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("%s: %d DXT_POSIX records: %v", filepath.Base(path), n, err)
	}
}
