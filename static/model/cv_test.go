package model

import (
	"errors"
	"math"
	"testing"
)

// linear returns n samples with measured = 0.05 + 0.9·x16 exactly and x16
// spread over [0, 1] so that no measured value sits on a class boundary.
func linear(n int) []Sample {
	s := make([]Sample, n)
	for i := range s {
		s[i].X[15] = (float64(i) + 0.5) / float64(n)
		s[i].Measured = 0.05 + 0.9*s[i].X[15]
	}
	return s
}

func TestCrossValidateSeparable(t *testing.T) {
	for _, k := range []int{0, 4, 20} {
		res, err := CrossValidate(linear(20), k, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Accuracy != 1 || res.MAE > 1e-12 || res.N != 20 {
			t.Errorf("k = %d: %+v, want accuracy 1 and MAE 0", k, res)
		}
		if wantFolds := map[int]int{0: 20, 4: 4, 20: 20}[k]; res.Folds != wantFolds {
			t.Errorf("k = %d: %d folds, want %d", k, res.Folds, wantFolds)
		}
	}
}

// TestCrossValidateInterceptOnly uses a model with only an intercept:
// leaving sample i out predicts the mean of the others, (Σy − y_i)/(n−1),
// so the error is n/(n−1)·|y_i − ȳ|.
func TestCrossValidateInterceptOnly(t *testing.T) {
	y := []float64{0.1, 0.2, 0.25, 0.6, 0.65, 0.9, 0.95}
	s := make([]Sample, len(y))
	var sum float64
	for i, v := range y {
		s[i].Measured = v
		sum += v
	}
	n := float64(len(y))
	var mae float64
	var hits int
	for _, v := range y {
		pred := (sum - v) / (n - 1)
		mae += math.Abs(pred-v) / n
		if ClassOf(pred) == ClassOf(v) {
			hits++
		}
	}
	res, err := CrossValidate(s, 0, FitOptions{Exclude: excludeAllBut()})
	if err != nil {
		t.Fatal(err)
	}
	if !near(res.MAE, mae, 1e-14) || res.Accuracy != float64(hits)/n {
		t.Errorf("got MAE %v accuracy %v, want %v and %v", res.MAE, res.Accuracy, mae, float64(hits)/n)
	}
	// ȳ = 3.65/7; the middle samples 0.6 and 0.65 are predicted balanced.
	if hits != 2 {
		t.Errorf("hits = %d, want 2", hits)
	}
}

func TestCrossValidateTooFew(t *testing.T) {
	if _, err := CrossValidate(linear(1), 0, FitOptions{}); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("one sample: %v", err)
	}
	if _, err := CrossValidate(linear(3), 0, FitOptions{}); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("three samples, leave-one-out on two: %v", err)
	}
}

// TestCrossValidateGroups: each group is predicted by a model that never
// saw it. Two groups on two different lines: a model fitted on one group
// predicts the other by that group's line, with a known error.
func TestCrossValidateGroups(t *testing.T) {
	var samples []Sample
	for i := range 20 {
		v := float64(i) / 25
		var x X
		x[15] = v
		// Group a: measured = v; group b: measured = v + 0.1.
		samples = append(samples, Sample{Name: "a", Group: "a", X: x, Measured: v})
		samples = append(samples, Sample{Name: "b", Group: "b", X: x, Measured: v + 0.1})
	}
	res, err := CrossValidateGroups(samples, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folds != 2 || res.N != 40 {
		t.Fatalf("folds %d, n %d; want 2, 40", res.Folds, res.N)
	}
	for i, s := range samples {
		// The other group's line is 0.1 away.
		other := s.X[15] + 0.1
		if s.Group == "b" {
			other = s.X[15]
		}
		if d := res.Predicted[i] - other; d > 1e-9 || d < -1e-9 {
			t.Errorf("sample %d (%s, x %.2f): predicted %.4f, want %.4f", i, s.Group, s.X[15], res.Predicted[i], other)
		}
	}
	if _, err := CrossValidateGroups(samples[:1], FitOptions{}); err == nil {
		t.Error("one group: no error")
	}
}
