package pdg

import (
	"math"

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
	ok           bool
}

// startTallies returns the counters loop l (node n) steps: the variables
// its body changes only by constant increments of one sign, with a known
// integer value before the loop, that the loop's condition or bound does
// not test (such a loop ends when the counter reaches its bound). A loop of
// default trip count tallies nothing: the count would be a guess.
func (w *walker) startTallies(l *ir.Loop, n *Node, assigned map[string]bool) map[string]*tally {
	if n.TripSource == TripDefault || n.TripSource == TripOdds || n.TripSource == TripTransfer {
		return nil
	}
	var out map[string]*tally
	for name := range assigned {
		if name == l.Var || w.tallies[name] != nil || mentions(l.Cond, name) || mentions(l.Hi, name) {
			continue
		}
		v := Eval(ir.Ref{Name: name}, w.env)
		start, known := v.Int()
		if !known || v.Kind != Int || !w.onlyStepped(l.Body, name) {
			continue
		}
		if out == nil {
			out = map[string]*tally{}
		}
		out[name] = &tally{start: start, scale: len(w.scale), trips: len(w.trips), ok: true}
	}
	if len(out) > 0 && w.tallies == nil {
		w.tallies = map[string]*tally{}
	}
	for name, t := range out {
		w.tallies[name] = t
	}
	return out
}

// onlyStepped reports whether body changes name only by assignments that
// step it by a constant of one sign, and does at least once, without
// testing it (a counter tested against a capacity, "np < maxp", stops
// where the test says).
func (w *walker) onlyStepped(body ir.Block, name string) bool {
	var sign int64
	ok := true
	visitStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.If:
			ok = ok && !mentions(s.Cond, name)
		case *ir.Loop:
			ok = ok && !mentions(s.Cond, name) && !mentions(s.Hi, name)
		case *ir.Switch:
			ok = ok && !mentions(s.Tag, name)
		}
		if a, isAssign := s.(*ir.Assign); isAssign && a.Target == name {
			st, known := w.stepOf(a, name).Int()
			if !known || st == 0 || sign != 0 && (st > 0) != (sign > 0) {
				ok = false
			}
			sign = st
			return
		}
		changed := map[string]bool{}
		w.changes(s, changed)
		if changed[name] {
			ok = false
		}
	})
	return ok && sign != 0
}

// stepTally adds the step of assignment s to the tally of its target:
// the step times the factors between the tallying loop and s. A step
// inside a loop of default trip count spoils the tally.
func (w *walker) stepTally(s *ir.Assign) {
	t := w.tallies[s.Target]
	if t == nil || !t.ok {
		return
	}
	st, known := w.stepOf(s, s.Target).Int()
	if !known {
		t.ok = false
		return
	}
	for _, lt := range w.trips[t.trips:] {
		if lt.def {
			t.ok = false
			return
		}
	}
	t.sum += float64(st) * w.factor(t.scale)
}

// endTallies ends the tallies of a loop: each counter whose steps were
// all followed holds its expected value after the loop.
func (w *walker) endTallies(tallies map[string]*tally) {
	for name, t := range tallies {
		delete(w.tallies, name)
		if t.ok {
			w.env.Set(name, IntValue(t.start+int64(math.Round(t.sum)), Bound))
		}
	}
}
