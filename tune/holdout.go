package tune

import (
	"fmt"
	"math"
)

// HoldoutError returns the cross-validated relative error of a way of
// fitting: the samples are split into folds (sample j in fold j mod
// folds; folds < 2 or more than the samples means one sample per fold),
// each fold is predicted by a model fitted on the others, and the result
// is the RMS of (m(x_j) - y_j)/y_j over all samples.
func HoldoutError(fit FitFunc, X [][]float64, y []float64, folds int) (float64, error) {
	n := len(y)
	if n < 2 || len(X) != n {
		return 0, fmt.Errorf("holdout: %d samples, %d rows: %w", n, len(X), ErrBadData)
	}
	if folds < 2 || folds > n {
		folds = n
	}
	var sum float64
	for f := range folds {
		var trainX, testX [][]float64
		var trainY, testY []float64
		for j := range n {
			if j%folds == f {
				testX, testY = append(testX, X[j]), append(testY, y[j])
			} else {
				trainX, trainY = append(trainX, X[j]), append(trainY, y[j])
			}
		}
		m, err := fit(trainX, trainY)
		if err != nil {
			return 0, fmt.Errorf("holdout: fold %d of %d: %w", f+1, folds, err)
		}
		for j := range testY {
			e := (m.Predict(testX[j]) - testY[j]) / testY[j]
			sum += e * e
		}
	}
	return math.Sqrt(sum / float64(n)), nil
}
