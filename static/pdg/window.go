package pdg

import (
	"reflect"

	"github.com/iolens/iolens/static/ir"
)

// windowOdds returns the share of executions in which cond, a conjunction
// bounding the variable of a counted loop around on both sides by the same
// unknown value, holds: "i < j && i + v >= j" keeps the v values of i
// below j, whatever j is, v of the loop's n values. A width the analysis
// cannot work out (v a variable of the loop) counts as one value: such
// windows pick out the few values next to the bound.
func (w *walker) windowOdds(cond ir.Expr) float64 {
	c, ok := cond.(ir.Binary)
	if !ok || c.Op != "&&" {
		return 0
	}
	a, aok := loopBound(c.L)
	b, bok := loopBound(c.R)
	if !aok || !bok || a.v != b.v || a.upper == b.upper || !reflect.DeepEqual(a.bound, b.bound) {
		return 0
	}
	i := lastIndex(w.trips, func(t loopTrip) bool { return t.v == a.v })
	if i < 0 || w.trips[i].n < 1 || mentions(a.bound, a.v) {
		return 0
	}
	up, lo := a, b
	if b.upper {
		up, lo = b, a
	}
	// v + up.off < B (or <=) and v + lo.off >= B (or >): v in
	// [B - lo.off, B - up.off), or with the ends the operators include.
	width := int64(1)
	upOff, uok := Eval(up.off, w.env).Int()
	loOff, lok := Eval(lo.off, w.env).Int()
	if uok && lok {
		width = loOff - upOff
		if up.inclusive {
			width++
		}
		if !lo.inclusive {
			width--
		}
	}
	if width <= 0 {
		return 0
	}
	return min(float64(width)/float64(w.trips[i].n), 1)
}

// bounded is one side of a window: "v + off op bound".
type bounded struct {
	v         string
	off       ir.Expr
	bound     ir.Expr
	upper     bool // v + off < bound or <=
	inclusive bool // <= or >=
}

// loopBound reads x as "v + off op bound" with v a variable, off an
// offset (0 when absent) and op an ordering.
func loopBound(x ir.Expr) (bounded, bool) {
	c, ok := x.(ir.Binary)
	if !ok {
		return bounded{}, false
	}
	for j, side := range [2][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
		op := c.Op
		if j == 1 {
			op = mirrored[op]
		}
		if op == "" || op == "==" || op == "!=" {
			return bounded{}, false
		}
		var v string
		var off ir.Expr = ir.Int{V: 0}
		switch s := side[0].(type) {
		case ir.Ref:
			v = s.Name
		case ir.Binary:
			r, isRef := s.L.(ir.Ref)
			if !isRef || s.Op != "+" {
				continue
			}
			v, off = r.Name, s.R
		default:
			continue
		}
		return bounded{v: v, off: off, bound: side[1], upper: op == "<" || op == "<=", inclusive: op == "<=" || op == ">="}, true
	}
	return bounded{}, false
}
