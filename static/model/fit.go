package model

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/sysprof"
)

// DefaultMinT is the |t| below which stepwise selection drops a variable:
// about the two-sided 5 % critical value of Student's t for more than 30
// residual degrees of freedom, the paper's rule.
const DefaultMinT = 2.0

// ErrTooFewSamples is returned when a fit has no more samples than
// coefficients plus one (n ≤ k+1).
var ErrTooFewSamples = errors.New("too few samples")

// Sample is one block with a measured I/O intensity (I/O time / wall time).
type Sample struct {
	Name string
	// Group is the program the sample comes from: CrossValidateGroups
	// holds out all the samples of a group at once.
	Group    string
	X        X
	Measured float64
}

// NewSample normalises a block's parameters into a Sample.
func NewSample(name string, p features.Params, sys sysprof.System, measured float64) Sample {
	return Sample{Name: name, X: Normalize(p, sys), Measured: measured}
}

// FitOptions control Fit.
type FitOptions struct {
	// MinT is the stepwise threshold; 0 means DefaultMinT.
	MinT float64
	// KeepAll disables the stepwise elimination.
	KeepAll bool
	// Exclude removes variables from the candidates.
	Exclude [NumVars]bool
	// Version and TrainedOn are copied into the model.
	Version, TrainedOn string
}

// Fit estimates a model by ordinary least squares on an intercept and the
// candidate variables, then backward stepwise elimination:
//
//  1. Candidates that are constant over the samples or (numerically) a
//     linear combination of the intercept and the earlier kept candidates
//     are dropped as collinear (Gram-Schmidt in variable order).
//  2. The fit needs n > k+1 samples for k remaining variables
//     (ErrTooFewSamples).
//  3. While some variable has |t| < MinT, the one with the smallest |t|
//     (the first on ties) is dropped and the model refitted. The intercept
//     is always kept.
//  4. While some variable's variance inflation factor (1/(1−R²) of its
//     regression on the other kept variables) exceeds MaxVIF, the one with
//     the largest is dropped: two nearly collinear variables fit with
//     large coefficients of opposite signs, which cancel on the samples
//     and not on a program whose two values part ways.
//  5. When the samples come from at least MinGroups programs (Sample.Group),
//     while dropping a variable lowers the mean absolute error of
//     predicting each program's samples by a fit on the other programs,
//     the variable whose removal lowers it most is dropped. A t-ratio
//     says a variable explains the samples; this says it helps on a
//     program the fit has not seen (pairs of correlated variables with
//     large opposite coefficients pass the first test and fail this one).
//
// Samples must have finite X and Measured. Blocks without I/O should be
// left out: Predict returns 0 for them without the model.
func Fit(samples []Sample, opts FitOptions) (Model, Table, error) {
	if len(samples) == 0 {
		return Model{}, Table{}, fmt.Errorf("fitting: no samples: %w", ErrTooFewSamples)
	}
	for _, s := range samples {
		if !finite(s.Measured) || slices.ContainsFunc(s.X[:], func(v float64) bool { return !finite(v) }) {
			return Model{}, Table{}, fmt.Errorf("fitting: sample %q has a non-finite value", s.Name)
		}
	}
	minT := opts.MinT
	if minT == 0 {
		minT = DefaultMinT
	}
	names := Names()
	var cols []int
	for i := range NumVars {
		if !opts.Exclude[i] {
			cols = append(cols, i)
		}
	}
	cols, collinear := independent(samples, cols)
	var dropped []Dropped
	for _, c := range collinear {
		dropped = append(dropped, Dropped{Name: names[c], Reason: "collinear"})
	}
	reg, err := ols(samples, cols)
	if err != nil {
		return Model{}, Table{}, fmt.Errorf("fitting %d variables: %w", len(cols), err)
	}
	for !opts.KeepAll && len(cols) > 0 {
		j := weakest(reg.t[1:])
		if math.Abs(reg.t[1+j]) >= minT {
			break
		}
		dropped = append(dropped, Dropped{Name: names[cols[j]], T: reg.t[1+j], Reason: fmt.Sprintf("|t| < %g", minT)})
		cols = slices.Delete(cols, j, j+1)
		if reg, err = ols(samples, cols); err != nil {
			return Model{}, Table{}, fmt.Errorf("refitting %d variables: %w", len(cols), err)
		}
	}
	if !opts.KeepAll {
		cols, dropped = dropInflated(samples, cols, dropped)
		cols, dropped = dropByGroups(samples, cols, dropped)
		if reg, err = ols(samples, cols); err != nil {
			return Model{}, Table{}, fmt.Errorf("refitting %d variables: %w", len(cols), err)
		}
	}
	m := reg.model(opts, minT)
	t := m.Table()
	t.Dropped = dropped
	return m, t, nil
}

// MaxVIF is the largest variance inflation factor Fit keeps.
const MaxVIF = 10

// dropInflated is step 4 of Fit.
func dropInflated(samples []Sample, cols []int, dropped []Dropped) ([]int, []Dropped) {
	names := Names()
	for len(cols) > 1 {
		worst, worstVIF := -1, float64(MaxVIF)
		for j, c := range cols {
			if v := vif(samples, cols, c); v > worstVIF {
				worst, worstVIF = j, v
			}
		}
		if worst < 0 {
			break
		}
		dropped = append(dropped, Dropped{Name: names[cols[worst]], Reason: fmt.Sprintf("variance inflation %.3g > %d", worstVIF, MaxVIF)})
		cols = slices.Delete(cols, worst, worst+1)
	}
	return cols, dropped
}

// vif is the variance inflation factor of variable c among cols: 1/(1−R²)
// of the least-squares fit of c on the other variables of cols.
func vif(samples []Sample, cols []int, c int) float64 {
	others := slices.DeleteFunc(slices.Clone(cols), func(o int) bool { return o == c })
	xs := make([]Sample, len(samples))
	for i, s := range samples {
		xs[i] = Sample{X: s.X, Measured: s.X[c]}
	}
	reg, err := ols(xs, others)
	if err != nil || reg.sst == 0 {
		return math.Inf(1)
	}
	r2 := 1 - reg.sse/reg.sst
	if r2 >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - r2)
}

// MinGroups is the number of programs from which Fit selects variables
// by their error on programs left out.
const MinGroups = 5

// dropByGroups is step 5 of Fit.
func dropByGroups(samples []Sample, cols []int, dropped []Dropped) ([]int, []Dropped) {
	groups := map[string]bool{}
	for _, s := range samples {
		groups[s.Group] = true
	}
	if len(groups) < MinGroups {
		return cols, dropped
	}
	cur := groupError(samples, cols)
	names := Names()
	for len(cols) > 0 {
		best, bestErr := -1, cur
		for j := range cols {
			if e := groupError(samples, slices.Delete(slices.Clone(cols), j, j+1)); e < bestErr {
				best, bestErr = j, e
			}
		}
		if best < 0 {
			break
		}
		dropped = append(dropped, Dropped{Name: names[cols[best]],
			Reason: fmt.Sprintf("error on programs left out %.4f without it, %.4f with it", bestErr, cur)})
		cols = slices.Delete(cols, best, best+1)
		cur = bestErr
	}
	return cols, dropped
}

// groupError is the mean absolute error of the predictions of each
// group's samples, clamped like Model.PredictX, by the least-squares fit
// on cols of the other groups' samples; +Inf when one of those fits
// cannot be made (a variable constant outside one group is no use for a
// program not seen).
func groupError(samples []Sample, cols []int) float64 {
	var sum float64
	var train []Sample
	done := map[string]bool{}
	for _, s := range samples {
		g := s.Group
		if done[g] {
			continue
		}
		done[g] = true
		train = train[:0]
		for _, o := range samples {
			if o.Group != g {
				train = append(train, o)
			}
		}
		reg, err := ols(train, cols)
		if err != nil {
			return math.Inf(1)
		}
		for _, o := range samples {
			if o.Group == g {
				sum += math.Abs(reg.predict(o.X) - o.Measured)
			}
		}
	}
	return sum / float64(len(samples))
}

// weakest returns the index of the smallest |t|, the first on ties.
func weakest(t []float64) int {
	best := 0
	for i, v := range t {
		if math.Abs(v) < math.Abs(t[best]) {
			best = i
		}
	}
	return best
}

// model turns a regression into a Model.
func (r regression) model(opts FitOptions, minT float64) Model {
	m := Model{
		Format:    FileFormat,
		Version:   opts.Version,
		TrainedOn: opts.TrainedOn,
		Names:     Names(),
		Intercept: r.coef[0],
		Stats: Stats{
			N:           r.n,
			InterceptSE: r.se[0],
			InterceptT:  r.t[0],
			R2:          r.r2,
			AdjR2:       r.adj,
			F:           r.f,
			MinT:        minT,
		},
	}
	for j, c := range r.cols {
		m.Selected[c] = true
		m.Coef[c] = r.coef[1+j]
		m.Stats.SE[c] = r.se[1+j]
		m.Stats.T[c] = r.t[1+j]
	}
	return m
}
