package pdg

import (
	"reflect"

	"github.com/iolens/iolens/static/ir"
)

// sum is a variable a counted loop added one term to per iteration,
// from zero: "for (p = 0; p < NPREC; p++) wsum += prec[p].turnout".
type sum struct {
	terms float64 // how many terms it holds
	term  ir.Expr
}

// startSums returns the variables of assigned that loop l (node n) adds
// one term to per iteration: zero before the loop, changed only by one
// "s += term" or "s = s + term" in the loop's body itself, the term not
// depending on s. A loop of default trip count sums nothing the walk can
// use.
func (w *walker) startSums(l *ir.Loop, n *Node, assigned map[string]bool) map[string]sum {
	if n.TripSource == TripDefault || n.TripSource == TripOdds || n.TripSource == TripTransfer {
		return nil
	}
	var out map[string]sum
	for _, st := range l.Body {
		a, ok := st.(*ir.Assign)
		if !ok || a.Partial || !assigned[a.Target] || a.Target == l.Var {
			continue
		}
		term := a.Value
		switch b, isSum := a.Value.(ir.Binary); {
		case a.Op == "=" && isSum && b.Op == "+" && refName(b.L) == a.Target:
			term = b.R // s = s + x
		case a.Op != "+=":
			continue
		}
		if mentions(term, a.Target) {
			continue
		}
		if v, ok := Eval(ir.Ref{Name: a.Target}, w.env).Float(); !ok || v != 0 {
			continue
		}
		stores := 0
		visitStmts(l.Body, func(s ir.Stmt) {
			if b, ok := s.(*ir.Assign); ok && b.Target == a.Target {
				stores++
			}
		})
		if stores != 1 {
			continue
		}
		if out == nil {
			out = map[string]sum{}
		}
		out[a.Target] = sum{terms: float64(n.Trip), term: term}
	}
	return out
}

// shareMean returns the mean value of a share of a sum: "total * x[i] /
// xsum" or "total * (x[i] / xsum)" with xsum a sum of terms like x[i]
// (startSums) and total known is on average total over the number of
// terms: NBALLOT * prec[p].turnout / wsum ballots for each precinct.
func (w *walker) shareMean(x ir.Binary) (float64, bool) {
	// share is total / terms when num/den is a term of the sum den.
	share := func(total, num, den ir.Expr) (float64, bool) {
		d, ok := uncast(den).(ir.Ref)
		if !ok {
			return 0, false
		}
		s, ok := w.sums[d.Name]
		if !ok || !sameQuantity(num, s.term) {
			return 0, false
		}
		t, ok := Eval(total, w.env).Float()
		return t / s.terms, ok
	}
	switch x.Op {
	case "/": // total * x / sum
		if m, ok := uncast(x.L).(ir.Binary); ok && m.Op == "*" {
			if v, ok := share(m.L, m.R, x.R); ok {
				return v, true
			}
			return share(m.R, m.L, x.R)
		}
	case "*": // total * (x / sum)
		if d, ok := uncast(x.R).(ir.Binary); ok && d.Op == "/" {
			return share(x.L, d.L, d.R)
		}
		if d, ok := uncast(x.L).(ir.Binary); ok && d.Op == "/" {
			return share(x.R, d.L, d.R)
		}
	}
	return 0, false
}

// sameQuantity reports whether x and y read the same quantity: equal
// expressions, or the same member or array of possibly other elements.
func sameQuantity(x, y ir.Expr) bool {
	x, y = uncast(x), uncast(y)
	if reflect.DeepEqual(x, y) {
		return true
	}
	switch x := x.(type) {
	case ir.Field:
		f, ok := y.(ir.Field)
		return ok && f.Name == x.Name
	case ir.Index:
		i, ok := y.(ir.Index)
		return ok && baseName(i) == baseName(x) && baseName(x) != ""
	}
	return false
}
