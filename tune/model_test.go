package tune

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// grid returns the samples of y = 3 + 5*a/b + 0.5*c over a 6x6x6 grid of
// powers of two, with relative noise of standard deviation sigma.
func grid(sigma float64, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	var X [][]float64
	var y []float64
	for _, a := range []float64{1, 2, 4, 8, 16, 32} {
		for _, b := range []float64{1, 2, 4, 8, 16, 32} {
			for _, c := range []float64{1, 2, 4, 8, 16, 32} {
				X = append(X, []float64{a, b, c})
				y = append(y, (3+5*a/b+0.5*c)*(1+sigma*rng.NormFloat64()))
			}
		}
	}
	return X, y
}

func sortedTerms(m *Model) []string {
	t := m.Terms()
	slices.Sort(t)
	return t
}

func TestFitRecoversTerms(t *testing.T) {
	X, y := grid(0, 1)
	m, err := Fit(X, y, FitOptions{Names: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1", "a * b^-1", "c"}, sortedTerms(m)); diff != "" {
		t.Fatalf("terms (-want +got):\n%s\nmodel %s", diff, m)
	}
	want := map[string]float64{"1": 3, "a * b^-1": 5, "c": 0.5}
	for i, term := range m.Terms() {
		if got := m.Coefficients()[i]; math.Abs(got-want[term]) > 1e-6 {
			t.Errorf("coefficient of %s = %v, want %v", term, got, want[term])
		}
	}
	if m.Terms()[0] != "1" {
		t.Errorf("first term %q, want the constant", m.Terms()[0])
	}
	if e := m.RelativeError(); e > 1e-9 {
		t.Errorf("relative error %g, want ~0", e)
	}
	if m.Samples() != 216 {
		t.Errorf("samples %d, want 216", m.Samples())
	}
	if got, want := m.Predict([]float64{2, 4, 8}), 3+5*2.0/4+0.5*8; math.Abs(got-want) > 1e-9 {
		t.Errorf("Predict = %v, want %v", got, want)
	}
	if !math.IsNaN(m.Predict([]float64{1})) {
		t.Error("Predict of a short row is not NaN")
	}
}

func TestFitWithNoise(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		X, y := grid(0.01, seed)
		m, err := Fit(X, y, FitOptions{Names: []string{"a", "b", "c"}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"1", "a * b^-1", "c"}, sortedTerms(m)); diff != "" {
			t.Errorf("seed %d: terms (-want +got):\n%s\nmodel %s", seed, diff, m)
		}
		if e := m.RelativeError(); e > 0.012 || e < 0.008 {
			t.Errorf("seed %d: relative error %g, want about 0.01", seed, e)
		}
	}
}

func TestFitDefaultNames(t *testing.T) {
	X, y := grid(0, 1)
	m, err := Fit(X, y, FitOptions{MaxTerms: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1", "x1 * x2^-1"}, m.Terms()); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}

func TestFitHalfSamplesCap(t *testing.T) {
	X, y := grid(0, 1)
	m, err := Fit(X[:5], y[:5], FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Terms()); n > 3 {
		t.Errorf("%d terms for 5 samples, want at most 3", n)
	}
}

func TestFitBadData(t *testing.T) {
	cases := []struct {
		name string
		X    [][]float64
		y    []float64
	}{
		{"empty", nil, nil},
		{"rows", [][]float64{{1}}, []float64{1, 2}},
		{"ragged", [][]float64{{1}, {1, 2}}, []float64{1, 2}},
		{"zero feature", [][]float64{{1}, {0}}, []float64{1, 2}},
		{"negative objective", [][]float64{{1}, {2}}, []float64{1, -2}},
		{"NaN objective", [][]float64{{1}, {2}}, []float64{1, math.NaN()}},
	}
	for _, c := range cases {
		if _, err := Fit(c.X, c.y, FitOptions{}); !errors.Is(err, ErrBadData) {
			t.Errorf("%s: error %v, want ErrBadData", c.name, err)
		}
	}
}

func TestModelJSON(t *testing.T) {
	X, y := grid(0, 1)
	m, err := Fit(X, y, FitOptions{Names: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Terms(), back.Terms()); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(m.Coefficients(), back.Coefficients()); diff != "" {
		t.Errorf("coefficients (-want +got):\n%s", diff)
	}
	if back.RelativeError() != m.RelativeError() || back.Samples() != m.Samples() {
		t.Errorf("round trip: %v %v, want %v %v", back.RelativeError(), back.Samples(), m.RelativeError(), m.Samples())
	}
	if got, want := back.Predict(X[7]), m.Predict(X[7]); got != want {
		t.Errorf("Predict after round trip %v, want %v", got, want)
	}
}

func TestHoldoutError(t *testing.T) {
	X, y := grid(0, 1)
	fit := func(X [][]float64, y []float64) (*Model, error) { return Fit(X, y, FitOptions{}) }
	e, err := HoldoutError(fit, X, y, 5)
	if err != nil {
		t.Fatal(err)
	}
	if e > 1e-9 {
		t.Errorf("holdout error of an exact model %g, want ~0", e)
	}
	X, y = grid(0.02, 3)
	e, err = HoldoutError(fit, X, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e < 0.015 || e > 0.03 {
		t.Errorf("leave-one-out error with 2%% noise %g, want about 0.02", e)
	}
}

func TestFitTooManyCandidates(t *testing.T) {
	row := make([]float64, 20)
	for i := range row {
		row[i] = 1
	}
	_, err := Fit([][]float64{row, row}, []float64{1, 2}, FitOptions{MaxDegree: -1})
	if !errors.Is(err, ErrBadData) {
		t.Errorf("3^20 candidates: error %v, want ErrBadData", err)
	}
	if n := candidateCount(3, 2); n != 18 {
		t.Errorf("candidateCount(3, 2) = %d, want 18", n)
	}
	if n := len(candidates(3, 3)); n != 26 || candidateCount(3, 3) != 26 {
		t.Errorf("%d candidates of degree 3 over 3 features, want 26", n)
	}
}
