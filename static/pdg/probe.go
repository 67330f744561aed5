package pdg

import (
	"slices"

	"github.com/iolens/iolens/static/ir"
)

// ProbeTrip is the number of slots a lookup in an open-addressing hash
// table probes before it finds its key or an empty slot: between one and
// two and a half at the loads programs keep tables below (two thirds).
const ProbeTrip = 2

// probeLoop reports whether l probes the slots of a hash table: it steps
// through them by a wrapped index, "k = (h + i) & mask" with i the loop's
// variable, "h = (h + 1) % n", or an element at one, "x = &s[(start + k)
// % n]", and stops at the slot its key is in, or at an empty one: a
// return or break in its body, or its condition testing the slot. A
// return inside a loop of its body ends it too: a probe over pages whose
// inner loop probes each page's slots.
func (w *walker) probeLoop(l *ir.Loop) bool {
	var slots []string
	visitOwn(l.Body, func(s ir.Stmt) {
		var x ir.Expr
		var target string
		switch s := s.(type) {
		case *ir.Assign:
			if s.Partial || s.Op != "=" {
				return
			}
			x, target = s.Value, s.Target
		case *ir.Decl:
			x, target = s.Var.Init, s.Var.Name
		}
		if wrappedStep(x, l.Var, target) || wrappedElement(x, l.Var) {
			slots = append(slots, target)
		}
	})
	if len(slots) == 0 {
		return false
	}
	if exits, returns := loopExits(l.Body, w.fortran(), func(ir.Expr) bool { return false }); exits > 0 || returns {
		return true
	}
	if nestedReturn(l.Body) {
		return true
	}
	return l.Cond != nil && l.Lo == nil && mentions(l.Cond, slots[0])
}

// wrappedStep reports whether x, assigned to target, is a sum involving
// the loop variable or target itself wrapped around a table's size:
// "(h + i) & (N - 1)", "(h + 1) % n".
func wrappedStep(x ir.Expr, loopVar, target string) bool {
	b, ok := uncast(x).(ir.Binary)
	if !ok || b.Op != "&" && b.Op != "%" {
		return false
	}
	sum, ok := uncast(b.L).(ir.Binary)
	if !ok || sum.Op != "+" {
		return false
	}
	return loopVar != "" && mentions(sum, loopVar) || mentions(sum, target)
}

// wrappedElement reports whether x takes an element at a wrapped index
// of the loop variable: "&s[(start + k) % n]".
func wrappedElement(x ir.Expr, loopVar string) bool {
	return x != nil && ir.Any(x, func(y ir.Expr) bool {
		ix, ok := y.(ir.Index)
		return ok && slices.ContainsFunc(ix.Idx, func(i ir.Expr) bool { return wrappedStep(i, loopVar, "") })
	})
}

// nestedReturn reports whether a loop inside body returns.
func nestedReturn(body ir.Block) bool {
	found := false
	visitOwn(body, func(s ir.Stmt) {
		if l, ok := s.(*ir.Loop); ok {
			visitStmts(l.Body, func(s ir.Stmt) {
				if _, ok := s.(*ir.Return); ok {
					found = true
				}
			})
		}
	})
	return found
}
