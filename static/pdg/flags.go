package pdg

import (
	"math"

	"github.com/iolens/iolens/static/ir"
)

// flagTrip returns the trip count of a loop whose condition also tests a
// flag its body sets: "for (r = 0; r < NRANK && first < 0; r++)" whose
// body skips blank ranks ("if (v == R_BLANK) continue;") and sets first
// otherwise. An iteration sets the flag when it gets past the skips (each
// of its odds, UnknownOdds when the analysis cannot weigh it), and the
// loop stops at the first that does: 1/p iterations on average, at most
// what the rest of the condition allows.
func (w *walker) flagTrip(l *ir.Loop) (int64, bool) {
	c, ok := l.Cond.(ir.Binary)
	if !ok || c.Op != "&&" {
		return 0, false
	}
	flag, rest := "", ir.Expr(nil)
	for _, pair := range [2][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
		if f := flagTested(pair[0], w.env); f != "" && f != l.Var && !mentions(pair[1], f) && !w.counts(l.Body, f) {
			flag, rest = f, pair[1]
			break
		}
	}
	if flag == "" {
		return 0, false
	}
	if exits, returns := loopExits(l.Body, w.fortran(), func(ir.Expr) bool { return false }); exits > 0 || returns {
		return 0, false
	}
	p := 1.0
	for _, st := range l.Body {
		if a, ok := st.(*ir.Assign); ok && a.Target == flag && !a.Partial {
			sub := *l
			sub.Cond = rest
			m, _, bounded := w.induction(&sub)
			if isEquality(a.Value) {
				// "found = strcmp(names[i], key) == 0": a search for
				// a match, halfway through on average.
				if !bounded {
					return 0, false
				}
				return max((m+1)/2, 1), true
			}
			n := max(int64(math.Round(1/p)), 1)
			if bounded && m < n {
				n = m
			}
			return n, true
		}
		if s, ok := st.(*ir.If); ok && skips(s.Then) && len(s.Else) == 0 {
			q := w.branchOdds(s.Cond)
			if q <= 0 || q >= 1 {
				q = UnknownOdds
			}
			p *= 1 - q
			continue
		}
		if w.assignedIn(ir.Block{st})[flag] {
			return 0, false
		}
	}
	return 0, false
}

// isEquality reports whether x compares for equality: a match of a key,
// rarely true.
func isEquality(x ir.Expr) bool {
	b, ok := uncast(x).(ir.Binary)
	return ok && b.Op == "=="
}

// flagTested returns the variable x tests against a constant ("first <
// 0", "!found", "done == 0"), "" when x is no such test.
func flagTested(x ir.Expr, env *Env) string {
	switch x := x.(type) {
	case ir.Ref:
		return x.Name
	case ir.Unary:
		if r, ok := x.X.(ir.Ref); ok && x.Op == "!" {
			return r.Name
		}
	case ir.Binary:
		switch x.Op {
		case "<", ">", "<=", ">=", "==", "!=":
			for _, pair := range [2][2]ir.Expr{{x.L, x.R}, {x.R, x.L}} {
				if r, ok := pair[0].(ir.Ref); ok && constant(pair[1], env) {
					return r.Name
				}
			}
		}
	}
	return ""
}

// skips reports whether blk only goes on to the next iteration.
func skips(blk ir.Block) bool {
	if len(blk) != 1 {
		return false
	}
	j, ok := blk[0].(*ir.Jump)
	return ok && (j.Kind == "continue" || j.Kind == "cycle")
}

// constant reports whether x is a literal or a named constant.
func constant(x ir.Expr, env *Env) bool {
	v := Eval(x, env)
	return v.Known() && v.Origin <= Constant
}

// counts reports whether body steps name, a counter rather than a flag.
func (w *walker) counts(body ir.Block, name string) bool {
	_, ok := w.counterStep(body, name)
	return ok
}
