package model

import (
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/sysprof"
)

// FileFormat is the version of the model file layout.
const FileFormat = 1

// Model is a fitted (or prior) CIOC model: the predicted intensity of a
// block is Intercept + Σ Coef[i]·X[i] over the Selected variables, clamped
// to [0, 1].
type Model struct {
	Format    int              `json:"format"`
	Version   string           `json:"version"`
	TrainedOn string           `json:"trained_on"`
	Names     [NumVars]string  `json:"names"`
	Intercept float64          `json:"intercept"`
	Coef      [NumVars]float64 `json:"coef"`
	Selected  [NumVars]bool    `json:"selected"`
	Stats     Stats            `json:"stats"`
}

// Stats are the regression statistics of a fitted model (zero for a
// prior). When the fit is exact (no residual), standard errors are 0 and
// t-ratios and F are ±math.MaxFloat64, which JSON can hold. R², adjusted
// R² and F are 0 for a model with the intercept alone or for constant
// measurements.
type Stats struct {
	N           int              `json:"n"` // samples
	InterceptSE float64          `json:"intercept_se"`
	InterceptT  float64          `json:"intercept_t"`
	SE          [NumVars]float64 `json:"se"`
	T           [NumVars]float64 `json:"t"`
	R2          float64          `json:"r2"`
	AdjR2       float64          `json:"adj_r2"`
	F           float64          `json:"f"`
	MinT        float64          `json:"min_t"` // |t| threshold of the stepwise selection
}

// Predict returns the predicted I/O intensity of a block on sys, in
// [0, 1]: exactly 0 when the block does no I/O.
func (m Model) Predict(p features.Params, sys sysprof.System) float64 {
	if !p.HasIO() {
		return 0
	}
	return m.PredictX(Normalize(p, sys))
}

// PredictX returns the model's value for normalised variables, clamped to
// [0, 1].
func (m Model) PredictX(x X) float64 {
	y := m.Intercept
	for i, sel := range m.Selected {
		if sel {
			y += m.Coef[i] * x[i]
		}
	}
	return clamp01(y)
}

// Class is a coarse I/O intensity class.
type Class int

// The intensity classes, split at 0.3 and 0.7.
const (
	Compute  Class = iota // intensity < 0.3
	Balanced              // 0.3 ≤ intensity ≤ 0.7
	Data                  // intensity > 0.7
)

// ClassOf returns the class of an intensity.
func ClassOf(intensity float64) Class {
	switch {
	case intensity < 0.3:
		return Compute
	case intensity > 0.7:
		return Data
	default:
		return Balanced
	}
}

// String returns "compute", "balanced" or "data".
func (c Class) String() string {
	switch c {
	case Compute:
		return "compute"
	case Balanced:
		return "balanced"
	case Data:
		return "data"
	}
	return "unknown"
}
