package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/static/model"
)

const staticSample = "../../static/testdata/ckpt.c"

func TestStaticText(t *testing.T) {
	r := iolens(t, "static", "--no-probe", staticSample)
	r.want(t, 0)
	for _, s := range []string{"Sources: 1 files, 31 lines (c 31)", "Entry:   main", "function main", "function checkpoint", "call fflush"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "function step") {
		t.Errorf("the compute-only function step is listed among the I/O blocks:\n%s", r.stdout)
	}
}

func TestStaticJSON(t *testing.T) {
	r := iolens(t, "static", "--no-probe", "--json", staticSample)
	r.want(t, 0)
	var out struct {
		Blocks []struct {
			Kind, Name, File string
			Line             int
			CIOC             float64
			Invocations      float64
			Features         map[string]any
			Causes           []any
		}
		Model  map[string]any
		System map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Blocks) == 0 || out.Model["version"] != model.Default().Version || out.System["inputs"] == nil {
		t.Fatalf("blocks %d, model %v, system %v", len(out.Blocks), out.Model, out.System)
	}
	// The writes and flushes are checkpoint's, which main's loop calls
	// 100 times: it ranks first, its features counting one invocation.
	b := out.Blocks[0]
	if b.Kind != "function" || b.Name != "checkpoint" || filepath.Base(b.File) != "ckpt.c" || b.Line != 16 ||
		b.Invocations != 100 || b.Features["p2_io_calls"] != 2.0 || b.Features["p3_bytes"] != 8192.0 || b.Causes == nil {
		t.Errorf("first block %+v", b)
	}
}

func TestStaticErrors(t *testing.T) {
	for _, args := range [][]string{
		{"static"},
		{"static", "--procs", "0", staticSample},
		{"static", "--top", "-1", staticSample},
		{"static", "train", "extra"},
		{"static", "train", "--folds", "-1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { wantUsageError(t, args...) })
	}
	dir := t.TempDir()
	r := iolens(t, "static", "--no-probe", filepath.Join(dir, "missing.c"))
	r.want(t, 1)
	if !strings.Contains(r.stderr, "missing.c") {
		t.Errorf("stderr %q does not name the file", r.stderr)
	}
	r = iolens(t, "static", "--no-probe", "--model", filepath.Join(dir, "none.json"), staticSample)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "none.json") {
		t.Errorf("stderr %q does not name the model file", r.stderr)
	}
}
