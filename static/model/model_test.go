package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/sysprof"
)

// ioBound is a block whose estimated I/O share on the reference system is
// 0.204/0.704: 1000 binary calls (4 ms), 100 MB at 500 MB/s (0.2 s) and
// 1e9 operations at 0.5 ns (0.5 s).
func ioBound() features.Params {
	return features.Params{Calls: 1000, Binary: 1000, Bytes: 1e8, Work: 1e9, Kernel: 1000}
}

func refSystem() sysprof.System { return sysprof.Default().System() }

func TestPredictClampsAndNoIO(t *testing.T) {
	sys := refSystem()
	var high, low Model
	high.Intercept, high.Coef[15], high.Selected[15] = 0.5, 10, true
	low.Intercept, low.Coef[15], low.Selected[15] = -1, 0.1, true
	if got := high.Predict(ioBound(), sys); got != 1 {
		t.Errorf("high = %v, want clamped to 1", got)
	}
	if got := low.Predict(ioBound(), sys); got != 0 {
		t.Errorf("low = %v, want clamped to 0", got)
	}
	compute := features.Params{Work: 1e9, Space: 1e6, LoopIO: 0}
	if got := high.Predict(compute, sys); got != 0 {
		t.Errorf("block without I/O = %v, want exactly 0 whatever the intercept", got)
	}
	var mid Model
	mid.Intercept, mid.Coef[15], mid.Selected[15] = 0.1, 0.5, true
	want := 0.1 + 0.5*EstimateTimes(ioBound(), sys).IOShare()
	if got := mid.Predict(ioBound(), sys); !near(got, want, 1e-15) {
		t.Errorf("mid = %v, want %v", got, want)
	}
	mid.Selected[15] = false // an unselected coefficient is ignored
	if got := mid.Predict(ioBound(), sys); got != 0.1 {
		t.Errorf("unselected = %v, want the intercept 0.1", got)
	}
}

func TestDefaultIsTheShippedFit(t *testing.T) {
	m := Default()
	if m.Version != "31" || !strings.Contains(m.TrainedOn, "programs of the corpus") || m.Stats.N < 500 {
		t.Errorf("default model %q (%q), n %d", m.Version, m.TrainedOn, m.Stats.N)
	}
	// The physical estimate carries the fit: selected, significant, and
	// weighing most.
	if !m.Selected[15] || m.Coef[15] < 0.5 || m.Stats.T[15] < 10 {
		t.Errorf("x16: selected %v, coefficient %v, t %v", m.Selected[15], m.Coef[15], m.Stats.T[15])
	}
	rows := 1
	for i := range NumVars {
		if m.Selected[i] {
			rows++
		} else if m.Coef[i] != 0 {
			t.Errorf("%s: dropped with coefficient %v", m.Names[i], m.Coef[i])
		}
	}
	if len(m.Table().Rows) != rows {
		t.Errorf("table has %d rows, want %d:\n%s", len(m.Table().Rows), rows, m.Table())
	}
	sys := refSystem()
	if got := m.Predict(features.Params{Work: 1e9}, sys); got != 0 {
		t.Errorf("block without I/O = %v, want 0", got)
	}
	x := Normalize(ioBound(), sys)
	want := m.Intercept
	for i := range NumVars {
		if m.Selected[i] {
			want += m.Coef[i] * x[i]
		}
	}
	if got := m.Predict(ioBound(), sys); !near(got, clamp01(want), 1e-12) {
		t.Errorf("predicts %v, want %v", got, clamp01(want))
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.json")
	fitted, _, err := Fit(factorial(), FitOptions{KeepAll: true, Version: "1", TrainedOn: "factorial"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Model{Default(), fitted} {
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("round trip of %q (-saved +loaded):\n%s", m.Version, diff)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("model file mode %v, %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	for _, key := range []string{`"version"`, `"trained_on"`, `"names"`, `"intercept"`, `"coef"`, `"selected"`, `"stats"`, `"adj_r2"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("model file lacks %s", key)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good, err := Default().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct{ from, to, want string }{
		"format":    {`"format": 1`, `"format": 2`, "format 2"},
		"variables": {`"x9_files"`, `"x9_nfiles"`, "variables differ"},
		"syntax":    {`"version"`, `version`, "parsing model"},
	} {
		_, err := Parse([]byte(strings.Replace(string(good), tt.from, tt.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tt.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("loading a missing file succeeded")
	}
}

func TestClassOf(t *testing.T) {
	for v, want := range map[float64]Class{0: Compute, 0.29: Compute, 0.3: Balanced, 0.7: Balanced, 0.71: Data, 1: Data} {
		if got := ClassOf(v); got != want {
			t.Errorf("ClassOf(%v) = %v, want %v", v, got, want)
		}
	}
	if Data.String() != "data" || Class(9).String() != "unknown" {
		t.Error("class names")
	}
}
