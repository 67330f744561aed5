package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	fixSample      = "../../testdata/static/fix/flush_loop.c"
	coalesceSample = "../../testdata/static/fix/write_loop.c"
)

// fixCopy copies the flush-in-loop sample into a new directory and
// returns the path of the copy.
func fixCopy(t *testing.T, sample string) string {
	t.Helper()
	src, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(sample))
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStaticFixDiff(t *testing.T) {
	r := iolens(t, "static", "--no-probe", "--fix", fixCopy(t, fixSample))
	r.want(t, 0)
	// Sources outside the current directory: paths relative to theirs.
	for _, s := range []string{"--- a/flush_loop.c\n+++ b/flush_loop.c\n", "-\t\tfflush(f);\n", "+\tfflush(f);\n", "-\t\tfsync(fd);\n",
		"+\tsetvbuf(f, f_iobuf, _IOFBF, 1 << 20);\n"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("diff lacks %q:\n%s", s, r.stdout)
		}
	}
}

func TestStaticFixOut(t *testing.T) {
	src := fixCopy(t, fixSample)
	out := filepath.Join(t.TempDir(), "fix.patch")
	r := iolens(t, "static", "--no-probe", "--fix-out", out, "--json", src)
	r.want(t, 0)
	diff, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(diff), "--- a/flush_loop.c\n") {
		t.Fatalf("diff file %q: %v", diff, err)
	}
	var rep struct {
		Fixes   []struct{ Pattern string }
		Skipped []struct{ Cause, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Fixes {
		got = append(got, f.Pattern)
	}
	if strings.Join(got, " ") != "setvbuf flush-after-loop flush-after-loop" || len(rep.Skipped) != 2 {
		t.Errorf("fixes %v, skipped %+v", got, rep.Skipped)
	}
}

func TestStaticFixErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.patch")
	for _, args := range [][]string{
		{"static", "--no-probe", "--verify", fixSample},
		{"static", "--no-probe", fixSample, "--", "true"},
		{"static", "--no-probe", "--build", "make", fixSample},
		{"static", "--no-probe", "--verify", "--repeat", "0", fixSample, "--", "true"},
		{"static", "--no-probe", "--fix", "--fix-out", out, fixSample},
		{"static", "--no-probe", "--fix", "--verify", fixSample, "--", "true"},
		{"static", "--no-probe", "--fix", "--json", fixSample},
		{"static", "--no-probe", "--verify", "--", "true"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { wantUsageError(t, args...) })
	}
	// Without a Makefile, --verify needs --build.
	r := iolens(t, "static", "--no-probe", "--verify", fixCopy(t, fixSample), "--", "./flush_loop", ".")
	r.want(t, 2)
	if !strings.Contains(r.stderr, "--build") {
		t.Errorf("stderr %q does not name --build", r.stderr)
	}
}

// TestStaticVerify runs --verify on the flush-in-loop sample built by
// its Makefile: the patched copy flushes and syncs once instead of once
// per iteration, and writes as many times.
func TestStaticVerify(t *testing.T) {
	needTool(t, "cc")
	needTool(t, "make")
	src := fixCopy(t, fixSample)
	dir := filepath.Dir(src)
	mk := "flush_loop: flush_loop.c\n\tcc -O2 -o flush_loop flush_loop.c\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o600); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(src)
	r := iolens(t, "static", "--no-probe", "--json", "--verify", "--repeat", "2", dir, "--", "./flush_loop", ".", "500")
	r.want(t, 0)
	var rep struct {
		Fixes  []struct{ Pattern string }
		Verify struct {
			Build         string
			Repeat        int
			Before, After struct {
				IOTimes []float64 `json:"io_times"`
				Counts  map[string]int64
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	v := rep.Verify
	if len(rep.Fixes) != 3 || v.Build != "make" || v.Repeat != 2 || len(v.Before.IOTimes) != 2 || len(v.After.IOTimes) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for name, want := range map[string][2]int64{
		"STDIO_FLUSHES": {500, 1}, "POSIX_FSYNCS": {50, 1}, "STDIO_WRITES": {500, 500}, "POSIX_WRITES": {50, 50},
	} {
		if got := [2]int64{v.Before.Counts[name], v.After.Counts[name]}; got != want {
			t.Errorf("%s before and after = %v, want %v", name, got, want)
		}
	}
	if now, _ := os.ReadFile(src); string(now) != string(orig) {
		t.Error("--verify changed the original source")
	}
	if _, err := os.Stat(filepath.Join(dir, "flush_loop")); err == nil {
		t.Error("--verify built in the original directory")
	}
}

// TestStaticVerifyCoalesce runs --verify with a --build command on the
// small-write() sample: 5,000 records of a 24-byte header and a 7- to
// 11-byte payload, 173,890 bytes, take 10,000 write() calls before the fix
// and 3 after it (two full 64 KiB buffers and the rest after the loop).
func TestStaticVerifyCoalesce(t *testing.T) {
	needTool(t, "cc")
	src := fixCopy(t, coalesceSample)
	r := iolens(t, "static", "--no-probe", "--json", "--verify", "--build", "cc -O2 -o write_loop write_loop.c",
		filepath.Dir(src), "--", "./write_loop", ".", "5000")
	r.want(t, 0)
	var rep struct {
		Fixes  []struct{ Pattern string }
		Verify struct {
			Before, After struct {
				Counts map[string]int64
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(rep.Fixes) != 1 || rep.Fixes[0].Pattern != "coalesce-writes" {
		t.Fatalf("fixes %+v", rep.Fixes)
	}
	v := rep.Verify
	for name, want := range map[string][2]int64{"POSIX_WRITES": {10000, 3}, "POSIX_BYTES_WRITTEN": {173890, 173890}} {
		if got := [2]int64{v.Before.Counts[name], v.After.Counts[name]}; got != want {
			t.Errorf("%s before and after = %v, want %v", name, got, want)
		}
	}
}
