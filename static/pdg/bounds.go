package pdg

import (
	"reflect"
	"slices"

	"github.com/iolens/iolens/static/ir"
)

// extentTrip bounds a counted C or C++ loop whose bound is not known by
// the arrays its body reads or writes at the loop's index ("for (i = 0; i
// < n; i++) out[i] = l[j]" with out allocated, declared or passed with
// 65,536 elements): it runs at most to the smallest of their extents.
func (w *walker) extentTrip(l *ir.Loop) (int64, bool) {
	if w.fortran() || l.Var == "" {
		return 0, false
	}
	lo, ok := Eval(l.Lo, w.env).Int()
	if !ok {
		return 0, false
	}
	best := int64(-1)
	check := func(x ir.Expr) {
		ir.Any(x, func(y ir.Expr) bool {
			ix, isIndex := y.(ir.Index)
			if !isIndex || len(ix.Idx) == 0 {
				return false
			}
			r, isRef := ix.X.(ir.Ref)
			off, at := indexOffset(ix.Idx[0], l.Var)
			if !isRef || !at {
				return false
			}
			if s, known := w.env.shapeOf(r.Name); known && len(s.dims) > 0 {
				if n := s.dims[0] - off - lo; n > 0 && (best < 0 || n < best) {
					best = n
				}
			}
			return false
		})
	}
	visitStmts(l.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			check(s.Value)
			check(s.Element)
		case *ir.Call:
			for _, a := range s.Args {
				check(a)
			}
		case *ir.Decl:
			check(s.Var.Init)
		case *ir.If:
			check(s.Cond)
		}
	})
	return best, best > 0
}

// filled reports whether x is a local variable the function steps
// ("live[nlive++] = ..." under "nlive < cap"): a count of the elements
// filled so far, which the extent of the array it fills only caps.
func (w *walker) filled(x ir.Expr) bool {
	r, ok := x.(ir.Ref)
	if !ok || w.env.Var(r.Name) == nil || w.isParam(r.Name) {
		return false
	}
	stepped := false
	visitStmts(w.d.f.Body, func(s ir.Stmt) {
		if a, ok := s.(*ir.Assign); ok && a.Target == r.Name {
			st, known := w.stepOf(a, r.Name).Int()
			stepped = stepped || known && st > 0
		}
	})
	return stepped
}

// indexOffset reports whether the subscript x is the variable v plus or
// minus a literal (i, i + 1, i - 1, 1 + i), and that literal.
func indexOffset(x ir.Expr, v string) (int64, bool) {
	base, k := constantOffset(x)
	r, ok := base.(ir.Ref)
	return k, ok && r.Name == v
}

// initOf returns the initialiser of the local x names when x is a
// variable declared with one ("int b = start[v], e = start[v + 1];"),
// else x.
func (w *walker) initOf(x ir.Expr) ir.Expr {
	if r, ok := x.(ir.Ref); ok {
		if v := w.env.Var(r.Name); v != nil && v.Init != nil && !v.Const {
			return v.Init
		}
	}
	return x
}

// rowRange reports whether a loop runs from x[i] to x[i + 1] (x[i] + c
// to x[i + 1]): over one row of a compressed sparse matrix or one vertex's
// adjacency list, by the row pointers x.
func rowRange(lo, hi ir.Expr) bool {
	if b, ok := lo.(ir.Binary); ok && b.Op == "+" {
		lo = b.L
	}
	l, lok := lo.(ir.Index)
	h, hok := hi.(ir.Index)
	if !lok || !hok || len(l.Idx) != 1 || len(h.Idx) != 1 || !reflect.DeepEqual(l.X, h.X) {
		return false
	}
	next, ok := h.Idx[0].(ir.Binary)
	if !ok || next.Op != "+" || !reflect.DeepEqual(next.L, l.Idx[0]) {
		return false
	}
	one, ok := next.R.(ir.Int)
	return ok && one.V == 1
}

// groupRange reports whether loop l runs over the group an enclosing loop
// has just closed: "for (a = start; a < i; a++)" in a loop over i whose
// body ends a group with "start = i" (records sorted by a key, grouped
// by it). Such a loop runs over one group at a time, like a row.
func (w *walker) groupRange(l *ir.Loop) bool {
	lo, hi := refName(l.Lo), refName(l.Hi)
	if lo == "" || hi == "" || lo == hi {
		return false
	}
	for _, t := range slices.Backward(w.trips) {
		if t.v != hi {
			continue
		}
		for _, st := range t.body {
			if a, ok := st.(*ir.Assign); ok && a.Target == lo && a.Op == "=" && !a.Partial && refName(a.Value) == hi {
				return true
			}
		}
		return false
	}
	return false
}
