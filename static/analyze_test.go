package static

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/model"
)

// TestAnalyzeCheckpoint scores a program whose I/O is one fwrite of 1024
// doubles and one fflush per step, over 100 steps, on the reference
// machine.
func TestAnalyzeCheckpoint(t *testing.T) {
	files, err := Sources([]string{filepath.Join("testdata", "ckpt.c")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Analyze(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entry != "main" || res.Lines != 31 || len(res.Files) != 1 || len(res.Files[0].Errors) != 0 {
		t.Fatalf("entry %q, %d lines, files %+v", res.Entry, res.Lines, res.Files)
	}
	if res.Model.Version != model.Default().Version {
		t.Errorf("model %q, want the shipped model", res.Model.Version)
	}
	byName := map[string]Block{}
	for _, b := range res.Blocks {
		if b.Kind == features.FunctionBlock {
			byName[b.Name] = b
		}
	}
	type io struct{ LoopIO, Calls, Bytes, Flushes, Binary, Metadata float64 }
	got := func(b Block) io {
		p := b.Features.Params
		return io{p.LoopIO, p.Calls, p.Bytes, p.Flushes, p.Binary, p.Metadata}
	}
	want := map[string]io{
		"main":       {LoopIO: 100, Calls: 200, Bytes: 819200, Flushes: 100, Binary: 100, Metadata: 2},
		"checkpoint": {Calls: 2, Bytes: 8192, Flushes: 1, Binary: 1},
		"step":       {},
	}
	for name, w := range want {
		b, ok := byName[name]
		if !ok {
			t.Fatalf("no function block %s", name)
		}
		if diff := cmp.Diff(w, got(b)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	// step's loop only stores into grid: 1024 × 4 operations, vectorised
	// by pdg.VectorWidth, plus the function's own.
	if s := byName["step"]; s.CIOC != 0 || s.IOTime != 0 || s.Class != "compute" || s.Features.Work != 1024*4/8+1 {
		t.Errorf("step: CIOC %v, I/O time %v, class %s, work %v; want exactly 0, 0, compute, 513", s.CIOC, s.IOTime, s.Class, s.Features.Work)
	}
	if m := byName["main"]; m.CIOC <= 0.7 || m.Class != "data" {
		t.Errorf("main: CIOC %v (%s), want a data-bound block", m.CIOC, m.Class)
	}
	// Ranking: the blocks with the most I/O of their own over the run
	// first. The writes and flushes are checkpoint's, which main calls
	// 100 times in its loop; main's own I/O is its fopen and fclose.
	if b := res.Blocks[0]; b.Kind != features.FunctionBlock || b.Name != "checkpoint" {
		t.Errorf("first block %s %s, want function checkpoint", b.Kind, b.Name)
	}
	for i := 1; i < len(res.Blocks); i++ {
		if res.Blocks[i].OwnIOTime > res.Blocks[i-1].OwnIOTime {
			t.Fatalf("block %d (%s) has more own I/O time than block %d", i, res.Blocks[i].Name, i-1)
		}
	}
	m, c := byName["main"], byName["checkpoint"]
	if c.Invocations != 100 || m.Invocations != 1 || math.Abs(c.OwnIOTime-100*c.IOTime) > 1e-9*c.OwnIOTime ||
		m.OwnIOTime >= m.IOTime || m.OwnIOTime <= 0 {
		t.Errorf("main: %v invocations, own I/O %v of %v; checkpoint: %v invocations, own I/O %v of %v per invocation; "+
			"want 1 invocation and part of main's, 100 invocations and all of checkpoint's",
			m.Invocations, m.OwnIOTime, m.IOTime, c.Invocations, c.OwnIOTime, c.IOTime)
	}
}

func TestSources(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.c", "b.F90", "c.cpp", "notes.txt", ".hidden/d.c", "sub/e.f"} {
		writeFile(t, filepath.Join(dir, name), "\n")
	}
	got, err := Sources([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(dir, p)
		rel = append(rel, r)
	}
	if diff := cmp.Diff([]string{"a.c", "b.F90", "c.cpp", "sub/e.f"}, rel); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if _, err := Sources([]string{filepath.Join(dir, "notes.txt")}); err == nil {
		t.Error("a .txt file was accepted as source")
	}
	if _, err := Sources([]string{filepath.Join(dir, "missing.c")}); err == nil {
		t.Error("a missing file was accepted")
	}
	if _, err := Sources([]string{filepath.Join(dir, ".hidden")}); err != nil {
		t.Errorf("an explicit hidden directory: %v", err)
	}
}

// TestVariablesJSON checks that a block's variables are written as an
// object keyed by the model's names and read back exactly.
func TestVariablesJSON(t *testing.T) {
	var v Variables
	for i := range v {
		v[i] = float64(i+1) / 32
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != model.NumVars || m["x1_loop_io"] != 1.0/32 || m[model.Names()[15]] != 0.5 {
		t.Errorf("variables as JSON: %s", b)
	}
	var back Variables
	if err := json.Unmarshal(b, &back); err != nil || back != v {
		t.Errorf("read back %v (error %v), want %v", back, err, v)
	}
	if err := json.Unmarshal([]byte(`{"x99": 1}`), &back); err == nil {
		t.Error("an unknown variable was accepted")
	}
}

// TestAnalyzeProgress checks the progress reported while analysing two
// files: each file's size once parsed, then the rest of the analysis in
// steps up to twice their size.
func TestAnalyzeProgress(t *testing.T) {
	dir := t.TempDir()
	src := map[string]string{
		"main.c": "#include <stdio.h>\nvoid dump(FILE *f);\nint main(void) {\n  FILE *f = fopen(\"out\", \"w\");\n  for (int i = 0; i < 10; i++) dump(f);\n  return fclose(f);\n}\n",
		"dump.c": "#include <stdio.h>\nvoid dump(FILE *f) { fprintf(f, \"%d\\n\", 1); }\n",
	}
	var paths []string
	var size int64
	for name, text := range src {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		size += int64(len(text))
	}
	var got [][2]int64
	_, err := Analyze(context.Background(), paths, Options{Progress: func(done, total int64) {
		got = append(got, [2]int64{done, total})
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("progress %v: want 5 calls", got)
	}
	first := got[0][0]
	if first != int64(len(src["main.c"])) && first != int64(len(src["dump.c"])) {
		t.Errorf("first call %v: want the size of one file", got[0])
	}
	want := [][2]int64{{size, 2 * size}, {size + size/2, 2 * size}, {size + size*3/4, 2 * size}, {2 * size, 2 * size}}
	if diff := cmp.Diff(want, got[1:]); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

// Blocks that only pass their I/O on are relays: calls of program
// functions, whose function blocks stand for them, and blocks whose I/O is
// in one such call. The ranking starts where the I/O is issued, over the
// whole run: dump, called ten times.
func TestRelays(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "relay.c"), `#include <stdio.h>
static double grid[4096];
static void dump(FILE *f) {
	for (int i = 0; i < 4096; i++)
		fprintf(f, "%f\n", grid[i]);
}
static void relax(void) {
	for (int i = 1; i < 4095; i++)
		grid[i] = 0.5 * (grid[i - 1] + grid[i + 1]);
}
static void run(FILE *f) {
	for (int s = 0; s < 10; s++) {
		relax();
		dump(f);
	}
}
static void note(const char *path) {
	FILE *g = fopen(path, "w");
	fputs("started\n", g);
	fclose(g);
}
int main(void) {
	FILE *f = fopen("grid.txt", "w");
	run(f);
	fclose(f);
	note("log.txt");
	return 0;
}
`)
	files, err := Sources([]string{filepath.Join(dir, "relay.c")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Analyze(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	relays := map[string]bool{}
	var ranked []string
	for _, b := range res.Blocks {
		if b.Kind == features.FunctionBlock || (b.Kind == features.CallBlock && slices.Contains([]string{"run", "dump", "note"}, b.Name)) {
			relays[b.Kind+" "+b.Name] = b.Relay
		}
		if b.Ranked() && b.Kind != features.LoopBlock {
			ranked = append(ranked, b.Kind+" "+b.Name)
		}
	}
	want := map[string]bool{
		"function main": true, "function run": true, // all their I/O is dump's
		"call run": true, "call dump": true, "call note": true, // calls of program functions
		"function dump": false, "function relax": false,
		"function note": false, // fopen, fputs and fclose: no call of a program function
	}
	for k, v := range want {
		if got, ok := relays[k]; !ok || got != v {
			t.Errorf("%s: relay %v (found %v), want %v", k, got, ok, v)
		}
	}
	if len(ranked) < 2 || ranked[0] != "function dump" || ranked[1] != "call fprintf" {
		t.Errorf("ranking %v, want function dump then its fprintf first", ranked)
	}
	for _, b := range res.Blocks {
		if b.Kind == features.FunctionBlock && b.Name == "dump" && (b.Invocations != 10 || b.OwnIOTime <= 9*b.IOTime) {
			t.Errorf("dump: %v invocations, own I/O %v for %v per invocation; want 10 invocations", b.Invocations, b.OwnIOTime, b.IOTime)
		}
	}
}
