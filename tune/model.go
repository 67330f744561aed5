package tune

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Defaults of FitOptions.
const (
	DefaultMaxTerms  = 8
	DefaultMaxDegree = 2
	DefaultTol       = 1e-3
)

// FitOptions are the options of Fit.
type FitOptions struct {
	// Names are the names of the features (the columns of X), for
	// Model.Terms; empty means x1, x2, ...
	Names []string
	// MaxTerms is the most terms of the model, the constant included; 0
	// means DefaultMaxTerms. A model never has more terms than half its
	// samples (rounded up), so that it cannot interpolate them.
	MaxTerms int
	// MaxDegree is the most features with a non-zero exponent in a term;
	// 0 means DefaultMaxDegree, a negative value no limit. The number of
	// candidate terms, sum over k <= MaxDegree of C(d, k) 2^k, may not
	// exceed 100000.
	MaxDegree int
	// Tol is how much a term must lower the relative error (the RMS of
	// (m(x)-y)/y) to be added; 0 means DefaultTol, a negative value 0.
	Tol float64
}

// Model is an empirical model of an objective: a linear combination of
// terms prod_i x_i^{p_i}, p_i in {-1, 0, 1}, the first term the constant.
type Model struct {
	names  []string
	exps   [][]int8
	coef   []float64
	relErr float64
	n      int
}

// ErrBadData is returned (wrapped) by Fit for data it cannot fit:
// no sample, rows of different lengths, features or objectives that are
// not positive finite numbers.
var ErrBadData = errors.New("bad data")

// FitFunc fits a model on samples, such as Fit with given options.
type FitFunc func(X [][]float64, y []float64) (*Model, error)

// Fit fits a model of y (positive, such as I/O times) on the rows of X
// (positive features, such as the encodings of configurations). Terms are
// chosen by greedy forward selection, the constant always in: each step
// adds the candidate term that lowers most the relative error sum over j
// of ((m(x_j) - y_j)/y_j)^2, until MaxTerms or until the RMS relative
// error improves by no more than Tol; a backward pass then drops terms
// whose removal costs no more than Tol. The coefficients are the least
// squares solution on rows divided by y_j, which minimises the relative
// error.
func Fit(X [][]float64, y []float64, opts FitOptions) (*Model, error) {
	n := len(y)
	if n == 0 {
		return nil, fmt.Errorf("fit: no sample: %w", ErrBadData)
	}
	if len(X) != n {
		return nil, fmt.Errorf("fit: %d rows of features for %d objectives: %w", len(X), n, ErrBadData)
	}
	d := len(X[0])
	for j, row := range X {
		if len(row) != d {
			return nil, fmt.Errorf("fit: row %d has %d features, row 0 has %d: %w", j, len(row), d, ErrBadData)
		}
		for i, v := range row {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("fit: row %d, feature %d: %v is not a positive number: %w", j, i, v, ErrBadData)
			}
		}
		if !(y[j] > 0) || math.IsInf(y[j], 0) {
			return nil, fmt.Errorf("fit: row %d: objective %v is not a positive number: %w", j, y[j], ErrBadData)
		}
	}
	names := opts.Names
	if len(names) == 0 {
		for i := range d {
			names = append(names, "x"+strconv.Itoa(i+1))
		}
	} else if len(names) != d {
		return nil, fmt.Errorf("fit: %d names for %d features: %w", len(names), d, ErrBadData)
	}
	maxTerms := opts.MaxTerms
	if maxTerms <= 0 {
		maxTerms = DefaultMaxTerms
	}
	maxTerms = max(1, min(maxTerms, (n+1)/2))
	degree := opts.MaxDegree
	if degree == 0 {
		degree = DefaultMaxDegree
	}
	if degree < 0 || degree > d {
		degree = d
	}
	tol := opts.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	tol = max(tol, 0)

	if n := candidateCount(d, degree); n > maxCandidates {
		return nil, fmt.Errorf("fit: %d candidate terms for %d features of degree up to %d (at most %d): lower MaxDegree: %w",
			n, d, degree, maxCandidates, ErrBadData)
	}
	sel := forward(X, y, candidates(d, degree), maxTerms, tol)
	sel = backward(X, y, sel, tol)
	m, err := solve(X, y, sel)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	m.names = append([]string(nil), names...)
	return m, nil
}

// maxCandidates is the most candidate terms Fit considers.
const maxCandidates = 100000

// candidateCount returns the number of candidate terms: sum over k <=
// degree of C(d, k) 2^k (saturating past maxCandidates).
func candidateCount(d, degree int) int {
	total, binom := 0, 1
	for k := 1; k <= degree; k++ {
		binom = binom * (d - k + 1) / k
		total += binom << k
		if total > maxCandidates || binom > maxCandidates {
			return maxCandidates + 1
		}
	}
	return total
}

// candidates returns the exponent vectors of the candidate terms: every
// vector of d exponents in {-1, 0, 1} with 1 to degree non-zero ones, by
// degree, then by features, then +1 before -1.
func candidates(d, degree int) [][]int8 {
	var out [][]int8
	var pick func(start, left int, cur []int8)
	pick = func(start, left int, cur []int8) {
		if left == 0 {
			out = append(out, append([]int8(nil), cur...))
			return
		}
		for i := start; i < d; i++ {
			for _, e := range []int8{1, -1} {
				cur[i] = e
				pick(i+1, left-1, cur)
				cur[i] = 0
			}
		}
	}
	for k := 1; k <= degree; k++ {
		pick(0, k, make([]int8, d))
	}
	return out
}

// termValue returns prod_i x_i^{e_i}.
func termValue(e []int8, x []float64) float64 {
	v := 1.0
	for i, p := range e {
		switch p {
		case 1:
			v *= x[i]
		case -1:
			v /= x[i]
		}
	}
	return v
}

// column returns the values of a term on the samples, divided by y.
func column(X [][]float64, y []float64, e []int8) []float64 {
	c := make([]float64, len(y))
	for j := range y {
		c[j] = termValue(e, X[j]) / y[j]
	}
	return c
}

// collinear is the relative norm under which what a candidate adds to the
// selected terms is taken for rounding noise.
const collinear = 1e-7

// forward selects terms greedily by orthogonal least squares: each
// candidate column is kept orthogonal to the selected ones, so that the
// drop of the residual's squared norm it brings is (v.r)^2 / (v.v).
func forward(X [][]float64, y []float64, cands [][]int8, maxTerms int, tol float64) [][]int8 {
	n := len(y)
	sel := [][]int8{make([]int8, len(X[0]))}
	r := make([]float64, n)
	for j := range r {
		r[j] = 1
	}
	q := column(X, y, sel[0])
	floats.Scale(1/floats.Norm(q, 2), q)
	floats.AddScaled(r, -floats.Dot(q, r), q)
	cols := make([][]float64, len(cands))
	norms := make([]float64, len(cands))
	for c, e := range cands {
		cols[c] = column(X, y, e)
		norms[c] = floats.Norm(cols[c], 2)
		floats.AddScaled(cols[c], -floats.Dot(q, cols[c]), q)
	}
	sse := floats.Dot(r, r)
	used := make([]bool, len(cands))
	for len(sel) < maxTerms {
		best, gain := -1, 0.0
		for c, v := range cols {
			if used[c] || !(norms[c] > 0) || math.IsInf(norms[c], 0) {
				continue
			}
			nv := floats.Norm(v, 2)
			if nv <= collinear*norms[c] {
				continue
			}
			dot := floats.Dot(v, r)
			if g := dot * dot / (nv * nv); g > gain*(1+1e-12) {
				best, gain = c, g
			}
		}
		if best < 0 {
			break
		}
		before := math.Sqrt(sse / float64(n))
		after := math.Sqrt(max(sse-gain, 0) / float64(n))
		if before-after <= tol {
			break
		}
		used[best] = true
		sel = append(sel, cands[best])
		q := cols[best]
		floats.Scale(1/floats.Norm(q, 2), q)
		floats.AddScaled(r, -floats.Dot(q, r), q)
		sse = floats.Dot(r, r)
		for c := range cols {
			if !used[c] {
				floats.AddScaled(cols[c], -floats.Dot(q, cols[c]), q)
			}
		}
	}
	return sel
}

// backward drops, one at a time, the non-constant term whose removal
// raises the RMS relative error least, while the error stays within tol
// of that of all the terms forward selection chose: it may have picked a
// term that later ones made useless.
func backward(X [][]float64, y []float64, sel [][]int8, tol float64) [][]int8 {
	full, err := solve(X, y, sel)
	if err != nil {
		return sel
	}
	for len(sel) > 1 {
		best, bestErr := -1, math.Inf(1)
		for k := 1; k < len(sel); k++ {
			sub := append(append([][]int8(nil), sel[:k]...), sel[k+1:]...)
			m, err := solve(X, y, sub)
			if err == nil && m.relErr < bestErr {
				best, bestErr = k, m.relErr
			}
		}
		if best < 0 || bestErr-full.relErr > tol {
			break
		}
		sel = append(append([][]int8(nil), sel[:best]...), sel[best+1:]...)
	}
	return sel
}

// solve returns the least squares model of the selected terms, on rows
// divided by y (columns scaled to unit norm, for conditioning).
func solve(X [][]float64, y []float64, sel [][]int8) (*Model, error) {
	n, k := len(y), len(sel)
	if n < k {
		return nil, fmt.Errorf("%d samples for %d terms", n, k)
	}
	A := mat.NewDense(n, k, nil)
	scale := make([]float64, k)
	for t, e := range sel {
		c := column(X, y, e)
		scale[t] = floats.Norm(c, 2)
		if !(scale[t] > 0) || math.IsInf(scale[t], 0) {
			return nil, fmt.Errorf("term %d has no usable values", t)
		}
		for j := range c {
			A.Set(j, t, c[j]/scale[t])
		}
	}
	b := mat.NewVecDense(n, nil)
	for j := range n {
		b.SetVec(j, 1)
	}
	var qr mat.QR
	qr.Factorize(A)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, b); err != nil {
		return nil, fmt.Errorf("least squares: %w", err)
	}
	m := &Model{exps: sel, coef: make([]float64, k), n: n}
	for t := range k {
		m.coef[t] = beta.AtVec(t) / scale[t]
		if math.IsNaN(m.coef[t]) || math.IsInf(m.coef[t], 0) {
			return nil, errors.New("least squares: singular system")
		}
	}
	var sum float64
	for j := range n {
		e := (m.Predict(X[j]) - y[j]) / y[j]
		sum += e * e
	}
	m.relErr = math.Sqrt(sum / float64(n))
	return m, nil
}

// Predict returns the model's value at x (NaN if x has not as many
// features as the model).
func (m *Model) Predict(x []float64) float64 {
	if len(m.exps) > 0 && len(x) != len(m.exps[0]) {
		return math.NaN()
	}
	v := 0.0
	for t, e := range m.exps {
		v += m.coef[t] * termValue(e, x)
	}
	return v
}

// termString returns a term in the form "a^-1 * b"; the constant is "1".
func termString(e []int8, names []string) string {
	var parts []string
	for i, p := range e {
		switch p {
		case 1:
			parts = append(parts, names[i])
		case -1:
			parts = append(parts, names[i]+"^-1")
		}
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, " * ")
}

// Terms returns the terms of the model in readable form, such as
// "cb_nodes^-1 * sieve_buf_size", in the order of Coefficients; the
// constant term, first, is "1".
func (m *Model) Terms() []string {
	out := make([]string, len(m.exps))
	for t, e := range m.exps {
		out[t] = termString(e, m.names)
	}
	return out
}

// Coefficients returns the coefficients of the terms.
func (m *Model) Coefficients() []float64 { return append([]float64(nil), m.coef...) }

// Exponents returns the exponents of each term, one per feature.
func (m *Model) Exponents() [][]int {
	out := make([][]int, len(m.exps))
	for t, e := range m.exps {
		out[t] = make([]int, len(e))
		for i, p := range e {
			out[t][i] = int(p)
		}
	}
	return out
}

// Names returns the names of the features.
func (m *Model) Names() []string { return append([]string(nil), m.names...) }

// RelativeError returns the RMS of (m(x_j) - y_j)/y_j over the samples the
// model was fitted on.
func (m *Model) RelativeError() float64 { return m.relErr }

// Samples returns how many samples the model was fitted on.
func (m *Model) Samples() int { return m.n }

// String returns the model as a formula, such as
// "3 + 5 * a * b^-1 + 0.5 * c".
func (m *Model) String() string {
	var b strings.Builder
	for t, e := range m.exps {
		c := m.coef[t]
		switch {
		case t == 0:
			b.WriteString(strconv.FormatFloat(c, 'g', 6, 64))
		case c < 0:
			b.WriteString(" - " + strconv.FormatFloat(-c, 'g', 6, 64))
		default:
			b.WriteString(" + " + strconv.FormatFloat(c, 'g', 6, 64))
		}
		if t > 0 {
			b.WriteString(" * " + termString(e, m.names))
		}
	}
	return b.String()
}
