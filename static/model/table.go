package model

import (
	"fmt"
	"math"
	"strings"
)

// Table is a model's coefficients and fit statistics in the form of the
// paper's Table II.
type Table struct {
	Version   string
	TrainedOn string
	Rows      []Row     // the intercept, then the selected variables in order
	Dropped   []Dropped // variables removed by Fit, in the order removed
	N         int
	R2        float64
	AdjR2     float64
	F         float64
	MinT      float64
}

// Row is one coefficient of a Table.
type Row struct {
	Name string
	Coef float64
	SE   float64
	T    float64
}

// Dropped is a variable that Fit removed, and why: "collinear", the
// stepwise rule (with its t-ratio when it was dropped) or its error on
// programs left out.
type Dropped struct {
	Name   string
	T      float64
	Reason string
}

// Table returns the model's coefficient table (without the dropped
// variables, which only Fit knows).
func (m Model) Table() Table {
	t := Table{
		Version: m.Version, TrainedOn: m.TrainedOn,
		N: m.Stats.N, R2: m.Stats.R2, AdjR2: m.Stats.AdjR2, F: m.Stats.F, MinT: m.Stats.MinT,
		Rows: []Row{{Name: "(intercept)", Coef: m.Intercept, SE: m.Stats.InterceptSE, T: m.Stats.InterceptT}},
	}
	for i, sel := range m.Selected {
		if sel {
			t.Rows = append(t.Rows, Row{Name: m.Names[i], Coef: m.Coef[i], SE: m.Stats.SE[i], T: m.Stats.T[i]})
		}
	}
	return t
}

// String formats the table for a terminal:
//
//	CIOC model 1 (40 workloads on host x)
//	variable           coefficient  std. error    t-ratio
//	(intercept)          0.0500508   0.0002204      227.1
//	x16_est_io_share      0.299831   0.0002206       1359
//	n = 40  R² = 0.9999  adjusted R² = 0.9999  F = 7.822e+05
//	dropped: x8_file_size (|t| < 2, t = -0.153), x15_storage_score (collinear)
func (t Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CIOC model %s (%s)\n", t.Version, t.TrainedOn)
	width := len("variable")
	for _, r := range t.Rows {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(&b, "%-*s  %12s  %10s  %9s\n", width, "variable", "coefficient", "std. error", "t-ratio")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%-*s  %12.6g  %10.4g  %9s\n", width, r.Name, r.Coef, r.SE, formatT(r.T))
	}
	fmt.Fprintf(&b, "n = %d  R² = %.4f  adjusted R² = %.4f  F = %s\n", t.N, t.R2, t.AdjR2, formatT(t.F))
	if len(t.Dropped) > 0 {
		parts := make([]string, len(t.Dropped))
		for i, d := range t.Dropped {
			if strings.HasPrefix(d.Reason, "|t|") {
				parts[i] = fmt.Sprintf("%s (%s, t = %.3g)", d.Name, d.Reason, d.T)
			} else {
				parts[i] = fmt.Sprintf("%s (%s)", d.Name, d.Reason)
			}
		}
		fmt.Fprintf(&b, "dropped: %s\n", strings.Join(parts, ", "))
	}
	return b.String()
}

// formatT prints a t-ratio or F, "exact" for the cap of an exact fit.
func formatT(v float64) string {
	if math.Abs(v) == math.MaxFloat64 {
		return "exact"
	}
	return fmt.Sprintf("%.4g", v)
}
