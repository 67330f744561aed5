package model

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// collinearTol is the relative size below which a column's component
// orthogonal to the columns before it makes it a linear combination of
// them.
const collinearTol = 1e-9

// regression is an ordinary least-squares fit of y on an intercept and the
// columns cols of the samples' X.
type regression struct {
	cols []int     // variables, in order
	coef []float64 // intercept, then one per column
	se   []float64 // standard errors, same order
	t    []float64 // t-ratios, same order
	n    int
	sse  float64 // residual sum of squares
	sst  float64 // total sum of squares about the mean
	r2   float64
	adj  float64
	f    float64
}

// predict is the regression's prediction for x, clamped to [0, 1].
func (r regression) predict(x X) float64 {
	v := r.coef[0]
	for i, c := range r.cols {
		v += r.coef[1+i] * x[c]
	}
	return clamp01(v)
}

// design returns the n×(1+len(cols)) matrix [1 X_cols] and the measured
// values.
func design(samples []Sample, cols []int) (*mat.Dense, *mat.VecDense) {
	a := mat.NewDense(len(samples), 1+len(cols), nil)
	y := mat.NewVecDense(len(samples), nil)
	for i, s := range samples {
		a.Set(i, 0, 1)
		for j, c := range cols {
			a.Set(i, 1+j, s.X[c])
		}
		y.SetVec(i, s.Measured)
	}
	return a, y
}

// independent splits cols into those that are linearly independent of the
// intercept and the kept columns before them, and the collinear rest
// (constant columns are collinear with the intercept). It runs
// Gram-Schmidt with re-orthogonalisation: a column whose component
// orthogonal to the kept ones is at most collinearTol of its norm is
// collinear.
func independent(samples []Sample, cols []int) (kept, collinear []int) {
	n := len(samples)
	if n == 0 {
		return nil, cols
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1 / math.Sqrt(float64(n))
	}
	basis := [][]float64{ones}
	for _, c := range cols {
		v := make([]float64, n)
		for i, s := range samples {
			v[i] = s.X[c]
		}
		norm0 := floats.Norm(v, 2)
		for range 2 {
			for _, b := range basis {
				floats.AddScaled(v, -floats.Dot(v, b), b)
			}
		}
		norm := floats.Norm(v, 2)
		if norm0 == 0 || norm <= collinearTol*norm0 {
			collinear = append(collinear, c)
			continue
		}
		floats.Scale(1/norm, v)
		basis = append(basis, v)
		kept = append(kept, c)
	}
	return kept, collinear
}

// ols fits y = b0 + Σ b_j x_cols[j] by QR factorisation. It needs more
// samples than coefficients and independent columns (see independent).
func ols(samples []Sample, cols []int) (regression, error) {
	n, p := len(samples), 1+len(cols)
	if n <= p {
		return regression{}, fmt.Errorf("%d samples for %d coefficients: %w", n, p, ErrTooFewSamples)
	}
	a, y := design(samples, cols)
	var qr mat.QR
	qr.Factorize(a)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, y); err != nil && !isCondition(err) {
		return regression{}, fmt.Errorf("least squares: %w", err)
	}
	// (AᵀA)⁻¹ = R⁻¹R⁻ᵀ, so its diagonal is the squared norms of R⁻¹'s rows.
	var rd mat.Dense
	qr.RTo(&rd)
	r := mat.NewTriDense(p, mat.Upper, nil)
	for i := range p {
		for j := i; j < p; j++ {
			r.SetTri(i, j, rd.At(i, j))
		}
	}
	var rinv mat.TriDense
	if err := rinv.InverseTri(r); err != nil && !isCondition(err) {
		return regression{}, fmt.Errorf("least squares: %w", err)
	}

	fitted := make([]float64, n)
	values := make([]float64, n)
	var yhat mat.VecDense
	yhat.MulVec(a, &beta)
	reg := regression{cols: slices.Clone(cols), n: n, coef: make([]float64, p), se: make([]float64, p), t: make([]float64, p)}
	mean := mat.Sum(y) / float64(n)
	for i := range n {
		fitted[i], values[i] = yhat.AtVec(i), y.AtVec(i)
		reg.sse += (values[i] - fitted[i]) * (values[i] - fitted[i])
		reg.sst += (values[i] - mean) * (values[i] - mean)
	}
	df := float64(n - p)
	sigma2 := reg.sse / df
	for j := range p {
		reg.coef[j] = beta.AtVec(j)
		var d float64 // [(AᵀA)⁻¹]_jj
		for l := j; l < p; l++ {
			d += rinv.At(j, l) * rinv.At(j, l)
		}
		reg.se[j] = math.Sqrt(sigma2 * d)
		reg.t[j] = tRatio(reg.coef[j], reg.se[j])
	}
	k := float64(p - 1)
	if reg.sst > 0 && k > 0 {
		reg.r2 = stat.RSquaredFrom(fitted, values, nil)
		reg.adj = 1 - (1-reg.r2)*float64(n-1)/df
		reg.f = fRatio(reg.sst-reg.sse, k, reg.sse, df)
	}
	return reg, nil
}

// tRatio is coef/se; when se is 0 (an exact fit) it is 0 for a zero
// coefficient and ±math.MaxFloat64 otherwise.
func tRatio(coef, se float64) float64 {
	switch {
	case se > 0:
		return coef / se
	case coef == 0:
		return 0
	default:
		return math.Copysign(math.MaxFloat64, coef)
	}
}

// fRatio is (ssr/k) / (sse/df), math.MaxFloat64 for an exact fit.
func fRatio(ssr, k, sse, df float64) float64 {
	if sse <= 0 {
		return math.MaxFloat64
	}
	return (ssr / k) / (sse / df)
}

func isCondition(err error) bool {
	var c mat.Condition
	return errors.As(err, &c)
}
