package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// mathCosts are the operation counts charged for math library calls and
// intrinsics; other calls of unknown routines cost one operation.
var mathCosts = map[string]float64{
	"sqrt": 4, "dsqrt": 4, "sqrtf": 4, "cbrt": 8,
	"exp": 8, "dexp": 8, "expf": 8, "log": 8, "dlog": 8, "logf": 8, "log10": 8, "log2": 8,
	"pow": 8, "powf": 8, "sin": 8, "cos": 8, "tan": 8, "dsin": 8, "dcos": 8, "asin": 8,
	"acos": 8, "atan": 8, "atan2": 8, "sinh": 8, "cosh": 8, "tanh": 8, "erf": 8, "fmod": 4,
	"hypot": 8, "fabs": 1, "abs": 1, "floor": 1, "ceil": 1, "fmin": 1, "fmax": 1,
	"min": 1, "max": 1, "mod": 2, "sign": 1, "dot_product": 2, "matmul": 2, "sum": 1,
}

// callCost returns the operations charged for a call of an unknown or
// math routine.
func callCost(name string) float64 {
	if c, ok := mathCosts[strings.ToLower(strings.TrimPrefix(name, "std::"))]; ok {
		return c
	}
	return 1
}

// ops counts the operations of an expression: one per operator, plus the
// cost of intrinsic calls kept in expressions (Fortran: intrinsics is
// true). Calls hoisted by the front-end are counted at their Call
// statement, not here.
func ops(x ir.Expr, intrinsics bool) float64 {
	switch x := x.(type) {
	case ir.Binary:
		return 1 + ops(x.L, intrinsics) + ops(x.R, intrinsics)
	case ir.Unary:
		if x.Op == "&" {
			return ops(x.X, intrinsics)
		}
		return 1 + ops(x.X, intrinsics)
	case ir.Cond:
		return 1 + ops(x.C, intrinsics) + ops(x.T, intrinsics) + ops(x.F, intrinsics)
	case ir.Index:
		n := ops(x.X, intrinsics)
		for _, i := range x.Idx {
			n += ops(i, intrinsics)
		}
		return n
	case ir.Field:
		return ops(x.X, intrinsics)
	case ir.Cast:
		return ops(x.X, intrinsics)
	case ir.CallExpr:
		var n float64
		if intrinsics {
			if c, ok := mathCosts[strings.ToLower(x.Callee)]; ok {
				n = c
			}
		}
		for _, a := range x.Args {
			n += ops(a, intrinsics)
		}
		return n
	}
	return 0
}
