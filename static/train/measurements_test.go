package train

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/corpus"
)

func TestMeasurements(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	prog := corpus.Program{Name: "p", Language: corpus.LangC, Sources: []string{"p.c"}, Build: []string{"cc", "-o", "{out}", "{src}"}, Args: []string{"{dir}"}, Ranks: 1, Dir: dir}
	funcs := []corpus.Function{{Name: "main", Symbol: "main", Calls: 1, Wall: 0.5, IOTime: 0.25, SelfIO: 0.25, Intensity: 0.5}}
	path := filepath.Join(dir, "runs.json")

	m, err := OpenMeasurements(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := m.Get(prog, 3); ok || err != nil {
		t.Fatalf("empty file: got an entry (%v)", err)
	}
	if err := m.Put(prog, 3, funcs); err != nil {
		t.Fatal(err)
	}

	// Read back from the file, as a later training would.
	m, err = OpenMeasurements(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := m.Get(prog, 3)
	if err != nil || !ok || !slices.Equal(got, funcs) {
		t.Fatalf("recorded program: %v %v %v", got, ok, err)
	}
	// Anything the measurement depends on makes it stale.
	stale := map[string]func(p *corpus.Program) int{
		"runs":  func(p *corpus.Program) int { return 5 },
		"ranks": func(p *corpus.Program) int { p.Ranks = 2; return 3 },
		"args":  func(p *corpus.Program) int { p.Args = []string{"{dir}", "10"}; return 3 },
		"build": func(p *corpus.Program) int { p.Build = append(slices.Clone(p.Build), "-O3"); return 3 },
	}
	for name, change := range stale {
		p := prog
		runs := change(&p)
		if _, ok, _ := m.Get(p, runs); ok {
			t.Errorf("changed %s: the old measurement is reused", name)
		}
	}
	if err := os.WriteFile(src, []byte("int main(void) { return 1; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := m.Get(prog, 3); ok {
		t.Error("changed source: the old measurement is reused")
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("measurements file mode: %v %v", info, err)
	}

	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenMeasurements(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("corrupt file: error %v does not name it", err)
	}
	if err := os.WriteFile(path, []byte(`{"format": 99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenMeasurements(path); err == nil || !strings.Contains(err.Error(), "format 99") {
		t.Errorf("unknown format: error %v", err)
	}
}

// The Fortran main program, measured as MAIN__, pairs with the block the
// analysis names after its PROGRAM statement.
func TestSourceNames(t *testing.T) {
	meas := []corpus.Function{{Name: "MAIN__", Symbol: "MAIN__"}, {Name: "dump", Symbol: "dump_"}}
	got := sourceNames(meas, &static.Result{Entry: "solver"})
	if got[0].Name != "solver" || got[1].Name != "dump" || meas[0].Name != "MAIN__" {
		t.Errorf("named %q and %q (measured %q)", got[0].Name, got[1].Name, meas[0].Name)
	}
	if got := sourceNames(meas, &static.Result{}); got[0].Name != "MAIN__" {
		t.Errorf("without an entry: %q", got[0].Name)
	}
}
