package model

import (
	"fmt"
	"math"
)

// CVResult is the outcome of a cross-validation.
type CVResult struct {
	Folds     int
	N         int
	Accuracy  float64   // share of samples whose predicted class (ClassOf) is the measured one
	MAE       float64   // mean absolute error of the held-out predictions
	Predicted []float64 // held-out prediction of each sample, in input order
}

// CrossValidate fits a model with opts on all samples but one fold and
// predicts the fold, for each of k folds (sample i is in fold i mod k);
// k < 2 or k ≥ len(samples) means leave-one-out. Predictions are clamped
// to [0, 1] like Model.PredictX.
func CrossValidate(samples []Sample, k int, opts FitOptions) (CVResult, error) {
	n := len(samples)
	if n < 2 {
		return CVResult{}, fmt.Errorf("cross-validating %d samples: %w", n, ErrTooFewSamples)
	}
	if k < 2 || k > n {
		k = n
	}
	fold := make([]int, n)
	for i := range fold {
		fold[i] = i % k
	}
	return crossValidate(samples, fold, k, opts)
}

// CrossValidateGroups is CrossValidate with one fold per group (program):
// each program's functions are predicted by a model fitted on the other
// programs only, as a program the model has never seen would be.
func CrossValidateGroups(samples []Sample, opts FitOptions) (CVResult, error) {
	ids := map[string]int{}
	fold := make([]int, len(samples))
	for i, s := range samples {
		id, ok := ids[s.Group]
		if !ok {
			id = len(ids)
			ids[s.Group] = id
		}
		fold[i] = id
	}
	if len(ids) < 2 {
		return CVResult{}, fmt.Errorf("cross-validating %d programs: %w", len(ids), ErrTooFewSamples)
	}
	return crossValidate(samples, fold, len(ids), opts)
}

// crossValidate fits and predicts each of k folds, sample i being in
// fold[i].
func crossValidate(samples []Sample, fold []int, k int, opts FitOptions) (CVResult, error) {
	n := len(samples)
	res := CVResult{Folds: k, N: n, Predicted: make([]float64, n)}
	train := make([]Sample, 0, n)
	for f := range k {
		train = train[:0]
		for i, s := range samples {
			if fold[i] != f {
				train = append(train, s)
			}
		}
		m, _, err := Fit(train, opts)
		if err != nil {
			return CVResult{}, fmt.Errorf("cross-validation fold %d of %d: %w", f+1, k, err)
		}
		for i := range samples {
			if fold[i] == f {
				res.Predicted[i] = m.PredictX(samples[i].X)
			}
		}
	}
	var hits int
	for i, s := range samples {
		if ClassOf(res.Predicted[i]) == ClassOf(s.Measured) {
			hits++
		}
		res.MAE += math.Abs(res.Predicted[i] - s.Measured)
	}
	res.Accuracy = float64(hits) / float64(n)
	res.MAE /= float64(n)
	return res, nil
}
