package pdg

import (
	"math"
	"slices"

	"github.com/iolens/iolens/static/ir"
)

// tally follows a counter a loop steps: "natoms = natoms + 1" under a
// test in a loop nest, "nh++" for each match. Its value after the loop is
// its value before plus each step times the expected number of times the
// step runs: the trip counts of the loops and the odds of the branch
// sides between the loop and the step.
type tally struct {
	start int64
	// scale and trips are the lengths of walker.scale and walker.trips
	// outside the loop.
	scale, trips int
	sum          float64
	// ok is cleared when a step cannot be followed; a counter that only
	// grows (grows) then keeps at least its value before the loop.
	ok, grows bool
}

// startTallies returns the counters loop l (node n) steps: the variables
// its body changes only by constant increments of one sign, with a known
// integer value before the loop, other than its index and the variables
// of its bound. A counter its condition tests ("t && nt < 8") ends where
// the loop's trip count, derived from that test, leaves it. A loop whose
// trip count is guessed tallies nothing: the count would be a guess. A
// counter the body also tests, or steps where the walk cannot follow, is
// still known not to shrink when its steps are increments: after the loop
// it holds its value from before (n events generated, then more appended
// while n < cap).
func (w *walker) startTallies(l *ir.Loop, n *Node, assigned map[string]bool, guessed bool) map[string]*tally {
	if guessed || n.TripSource == TripTransfer {
		return nil
	}
	var out map[string]*tally
	for name := range assigned {
		if name == l.Var || w.tallies[name] != nil || mentions(l.Hi, name) {
			continue
		}
		v := Eval(ir.Ref{Name: name}, w.env)
		start, known := v.Int()
		if !known || v.Kind != Int {
			continue
		}
		sign, tested := w.steps(l.Body, name)
		if sign == 0 || tested && (sign < 0 || start <= 0) {
			continue
		}
		if out == nil {
			out = map[string]*tally{}
		}
		out[name] = &tally{start: start, scale: len(w.scale), trips: len(w.trips), ok: !tested, grows: sign > 0}
	}
	if len(out) > 0 && w.tallies == nil {
		w.tallies = map[string]*tally{}
	}
	for name, t := range out {
		w.tallies[name] = t
	}
	return out
}

// listsDirectory reports whether loop l runs over the entries of a
// directory ("while ((e = readdir(d)) != NULL)"): what it counts is the
// listing the rest of the program goes through, as many entries as the
// loop is taken to run even when that is a default.
func listsDirectory(l *ir.Loop) bool {
	isReaddir := func(callee string) bool { return callee == "readdir" || callee == "readdir64" }
	for _, st := range l.Body { // the read of the condition, hoisted
		if c, ok := st.(*ir.Call); ok && isReaddir(c.Callee) && c.Result != "" && mentions(l.Cond, c.Result) {
			return true
		}
	}
	return ir.Any(l.Cond, func(x ir.Expr) bool {
		c, ok := x.(ir.CallExpr)
		return ok && isReaddir(c.Callee)
	})
}

// steps returns the sign of the constant steps by which body changes
// name, 0 when it changes it otherwise or not at all, and whether it
// tests name (a counter tested against a capacity, "np < maxp", stops
// where the test says). The growth check of an array the counter fills
// is not such a test (see growthCheck).
func (w *walker) steps(body ir.Block, name string) (sign int64, tested bool) {
	ok := true
	visitStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.If:
			tested = tested || mentions(s.Cond, name) && !w.growthCheck(s, name)
		case *ir.Loop:
			tested = tested || mentions(s.Cond, name) || mentions(s.Hi, name)
		case *ir.Switch:
			tested = tested || mentions(s.Tag, name)
		}
		if a, isAssign := s.(*ir.Assign); isAssign && assignName(a) == name {
			st, known := w.stepOf(a, name).Int()
			if !known || st == 0 || sign != 0 && (st > 0) != (sign > 0) {
				ok = false
			}
			sign = st
			return
		}
		if c, isCall := s.(*ir.Call); isCall && slices.Contains(w.passedCounters(c), name) {
			// A program function the counter's structure is passed to
			// steps it by what its calls add (see calleeChanged), taken
			// as growth until the call is walked.
			if sign == 0 {
				sign = 1
			}
			return
		}
		changed := map[string]bool{}
		w.changes(s, changed)
		if changed[name] {
			ok = false
		}
	})
	if !ok {
		return 0, tested
	}
	return sign, tested
}

// growthCheck reports whether branch s checks that the array a counter
// fills has room ("if (n == cap) { cap *= 2; a = realloc(a, cap * sizeof
// *a); }"): it compares name with a capacity its then side enlarges,
// without leaving the loop, so the counter goes on past it.
func (w *walker) growthCheck(s *ir.If, name string) bool {
	b, ok := s.Cond.(ir.Binary)
	if !ok || len(s.Else) > 0 {
		return false
	}
	var limit ir.Expr
	switch {
	case isRef(b.L, name) && (b.Op == "==" || b.Op == ">=" || b.Op == ">"):
		limit = b.R
	case isRef(b.R, name) && (b.Op == "==" || b.Op == "<=" || b.Op == "<"):
		limit = b.L
	default:
		return false
	}
	if mentions(limit, name) {
		return false
	}
	changed := map[string]bool{}
	for _, st := range s.Then {
		switch st := st.(type) {
		case *ir.Return:
			return false
		case *ir.Jump:
			if st.Kind == "break" || st.Kind == "goto" {
				return false
			}
		}
		w.changes(st, changed)
	}
	return mentionsAny(limit, changed)
}

// stepTally adds the step of assignment s to the tally of its target
// (see tallyStep); a step of unknown size spoils the tally.
func (w *walker) stepTally(s *ir.Assign) {
	name := assignName(s)
	if t := w.tallies[name]; t == nil || !t.ok {
		return
	}
	st, known := w.stepOf(s, name).Int()
	if !known {
		w.spoilTally(name)
		return
	}
	w.tallyStep(name, float64(st))
}

// tallyStep adds a step of st, at the statement being walked, to the
// tally of name: st times the factors between the tallying loop and the
// statement. A step inside a loop of default trip count, or a decrease
// of a count taken to grow, spoils the tally.
func (w *walker) tallyStep(name string, st float64) {
	t := w.tallies[name]
	if t == nil || !t.ok {
		return
	}
	if w.guessedSince(t.trips) || st < 0 && t.grows {
		t.ok = false
		return
	}
	t.sum += st * w.factor(t.scale)
}

// endTallies ends the tallies of a loop: each counter whose steps were
// all followed holds its expected value after the loop, and one that only
// grows from a positive value at least that value.
func (w *walker) endTallies(tallies map[string]*tally) {
	for name, t := range tallies {
		delete(w.tallies, name)
		switch {
		case t.ok:
			w.env.Set(name, IntValue(t.start+int64(math.Round(t.sum)), Bound))
		case t.grows && t.start > 0:
			w.env.Set(name, IntValue(t.start, Bound))
		}
	}
}

// isRef reports whether x is the variable name itself.
func isRef(x ir.Expr, name string) bool {
	r, ok := x.(ir.Ref)
	return ok && r.Name == name
}
