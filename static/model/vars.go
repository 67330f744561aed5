package model

import (
	"math"

	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/sysprof"
)

// NumVars is the number of model variables.
const NumVars = 16

// X holds the normalised variables X1…X16 of one block (X[0] is X1).
type X [NumVars]float64

// Variable documents one model variable. Every variable lies in [0, 1].
type Variable struct {
	Name    string // stable identifier, used in model files
	Desc    string
	Formula string
}

// definition is a variable and how to compute it.
type definition struct {
	Variable
	eval func(p features.Params, sys sysprof.System) float64
}

// definitions is the table of X1…X16. In the formulas, lg(v, ref) =
// log10(1+v) / log10(1+ref) clamped to [0, 1] (0 for none, 1 from ref on),
// and share(a, b) = a/b clamped to [0, 1] (0 when b is 0).
func definitions() [NumVars]definition {
	return [NumVars]definition{
		{Variable{"x1_loop_io", "iterations of loops containing I/O", "lg(P1, 1e9)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.LoopIO, 1e9) }},
		{Variable{"x2_io_calls", "I/O calls", "lg(P2, 1e9)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.Calls, 1e9) }},
		{Variable{"x3_bytes", "bytes read and written", "lg(P3, 1e12)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.Bytes, 1e12) }},
		{Variable{"x4_sync_share", "share of synchronous calls", "share(P4, P2)"},
			func(p features.Params, _ sysprof.System) float64 { return share(p.Sync, p.Calls) }},
		{Variable{"x5_conditional_share", "share of calls under a branch", "share(P5, P2)"},
			func(p features.Params, _ sysprof.System) float64 { return share(p.Conditional, p.Calls) }},
		{Variable{"x6_binary_share", "share of calls moving binary data", "share(P6, P2)"},
			func(p features.Params, _ sysprof.System) float64 { return share(p.Binary, p.Calls) }},
		{Variable{"x7_flush_share", "flushes among calls and flushes", "share(P7, P2 + P7)"},
			func(p features.Params, _ sysprof.System) float64 {
				return share(p.Flushes, nonneg(p.Calls)+nonneg(p.Flushes))
			}},
		{Variable{"x8_file_size", "largest file extent", "lg(P8, 1e12)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.FileSize, 1e12) }},
		{Variable{"x9_files", "distinct files opened", "lg(P9, 1e6)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.Files, 1e6) }},
		{Variable{"x10_space", "bytes of arrays and buffers (space complexity)", "lg(P10, 1e12)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.Space, 1e12) }},
		{Variable{"x11_stack", "bytes of local variables", "lg(P11, 1e8)"},
			func(p features.Params, _ sysprof.System) float64 { return lg(p.Stack, 1e8) }},
		{Variable{"x12_random_share", "share of random accesses", "share(P12, P2)"},
			func(p features.Params, _ sysprof.System) float64 { return share(p.Random, p.Calls) }},
		{Variable{"x13_small_share", "share of small accesses", "share(P13, P2)"},
			func(p features.Params, _ sysprof.System) float64 { return share(p.Small, p.Calls) }},
		{Variable{"x14_ranks_per_target", "processes per storage target", "lg(P14, 1e4), P14 from sysprof when unset"},
			func(p features.Params, sys sysprof.System) float64 { return lg(ranksPerTarget(p, sys), 1e4) }},
		{Variable{"x15_storage_score", "storage speed score (log bandwidth)", "clamp(P15), P15 = sysprof.StorageScore when unset"},
			func(p features.Params, sys sysprof.System) float64 { return clamp01(storageScore(p, sys)) }},
		{Variable{"x16_est_io_share", "estimated I/O time share", "io / (io + compute) of EstimateTimes"},
			func(p features.Params, sys sysprof.System) float64 { return EstimateTimes(p, sys).IOShare() }},
	}
}

// Variables documents X1…X16.
func Variables() [NumVars]Variable {
	var v [NumVars]Variable
	for i, d := range definitions() {
		v[i] = d.Variable
	}
	return v
}

// Names are the identifiers of X1…X16, as stored in model files.
func Names() [NumVars]string {
	var n [NumVars]string
	for i, d := range definitions() {
		n[i] = d.Name
	}
	return n
}

// Normalize computes X1…X16 of a block on sys; see Variables. Every value
// is in [0, 1], whatever the parameters (negative and NaN ones count as 0).
func Normalize(p features.Params, sys sysprof.System) X {
	var x X
	for i, d := range definitions() {
		x[i] = d.eval(p, sys)
	}
	return x
}

// lg is log10(1+v)/log10(1+ref) clamped to [0, 1].
func lg(v, ref float64) float64 {
	return clamp01(math.Log10(1+nonneg(v)) / math.Log10(1+ref))
}

// share is a/b clamped to [0, 1], 0 when b is not positive.
func share(a, b float64) float64 {
	a, b = nonneg(a), nonneg(b)
	if b == 0 {
		return 0
	}
	return clamp01(a / b)
}

// nonneg maps negative values and NaN to 0.
func nonneg(v float64) float64 {
	if v > 0 {
		return v
	}
	return 0
}

// clamp01 clamps v to [0, 1], mapping NaN to 0.
func clamp01(v float64) float64 {
	switch {
	case v > 1:
		return 1
	case v > 0:
		return v
	default:
		return 0
	}
}

// Index returns the position (0 for X1) of the variable with the given
// name, or -1.
func Index(name string) int {
	for i, n := range Names() {
		if n == name {
			return i
		}
	}
	return -1
}
