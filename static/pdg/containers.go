package pdg

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// containerDecl records the size of a C++ container declared with one:
// std::vector<T> v(n), std::vector<T> v(n, x), std::vector<T> w(v),
// std::array<T, N> a.
func (w *walker) containerDecl(v *ir.Var) {
	if n, ok := w.env.arrayTypeExtent(v.Type.Name); ok {
		w.env.setShape(v.Name, shape{dims: []int64{n.I}, origin: n.Origin})
		return
	}
	ce, ok := v.Init.(ir.CallExpr)
	if v.Init == nil || ok && len(ce.Args) == 0 && className(ce.Callee) == className(v.Type.Name) {
		// Empty: the walk follows its growth.
		w.env.setShape(v.Name, shape{dims: []int64{0}, origin: Literal})
		if w.grown == nil {
			w.grown = map[string]int{}
		}
		w.grown[v.Name] = len(w.trips)
		return
	}
	if !ok || len(ce.Args) > 2 || className(ce.Callee) != className(v.Type.Name) {
		return
	}
	if r, ok := ce.Args[0].(ir.Ref); ok && len(ce.Args) == 1 && isContainer(w.typeName(r.Name)) {
		if s, ok := w.env.shapeOf(r.Name); ok {
			w.env.setShape(v.Name, s) // a copy
		}
		return
	}
	if n := Eval(ce.Args[0], w.env); n.Kind == Int && n.I >= 0 {
		w.env.setShape(v.Name, shape{dims: []int64{n.I}, origin: n.Origin})
	}
}

// arrayTypeExtent returns N of a std::array<T, N> type.
func (e *Env) arrayTypeExtent(t string) (Value, bool) {
	t = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(t), "const "), "std::")
	if !strings.HasPrefix(t, "array<") || !strings.HasSuffix(t, ">") {
		return Value{}, false
	}
	args := t[len("array<") : len(t)-1]
	i := strings.LastIndexByte(args, ',')
	if i < 0 {
		return Value{}, false
	}
	n := strings.TrimSpace(args[i+1:])
	if k, err := strconv.ParseInt(strings.TrimRight(n, "uUlL"), 0, 64); err == nil {
		return IntValue(k, Literal), true
	}
	v := Eval(ir.Ref{Name: n}, e)
	return v, v.Kind == Int && v.I >= 0
}

// containerCall handles a member call on a C++ container whose size the
// analysis follows: size() and length() return it, empty() tests it,
// resize(n), assign(n, x) and clear() set it, other modifiers (push_back,
// insert, erase...) make it unknown. It reports false when c is not a
// member call on a container variable.
func (w *walker) containerCall(c *ir.Call, parent *Node) bool {
	r, ok := c.Receiver.(ir.Ref)
	if !ok || !isContainer(w.typeName(r.Name)) {
		return false
	}
	w.unknownCall(c, parent)
	if v, ok := w.containerQuery(c); ok {
		w.setResult(c, v)
		return true
	}
	switch c.Callee {
	case "resize", "assign":
		if len(c.Args) > 0 {
			if n := Eval(c.Args[0], w.env); n.Kind == Int && n.I >= 0 {
				w.env.setShape(r.Name, shape{dims: []int64{n.I}, origin: n.Origin})
				return true
			}
		}
		w.env.forgetShape(r.Name)
	case "clear":
		w.env.setShape(r.Name, shape{dims: []int64{0}, origin: Literal})
	case "push_back", "emplace_back", "push_front", "emplace_front":
		w.grow(r.Name)
	case "erase":
		if len(c.Args) > 0 && isCallOf(c.Args[0], "unique") {
			return true // v.erase(std::unique(...), v.end()): the duplicates are few; the size stays a bound
		}
		w.env.forgetShape(r.Name)
	default:
		if resizes(c.Callee) {
			w.env.forgetShape(r.Name)
		}
	}
	return true
}

// containerQuery returns the value of size(), length() or empty() called
// on a container of known size (a variable, or a member the walk has
// seen filled), and false for other calls.
func (w *walker) containerQuery(c *ir.Call) (Value, bool) {
	switch c.Callee {
	case "size", "length", "empty":
	default:
		return Value{}, false
	}
	var s shape
	switch r := c.Receiver.(type) {
	case ir.Ref:
		var ok bool
		if !isContainer(w.typeName(r.Name)) {
			return Value{}, false
		}
		if s, ok = w.env.shapeOf(r.Name); !ok {
			return Value{}, false
		}
	case ir.Field:
		n, ok := w.memberSize(r.Name)
		if !ok {
			return Value{}, false
		}
		if t, ok := w.elementLoop(r.X); ok && t.n > 1 {
			// The member of one element of a container the loop visits
			// holds its share of what was added to all of them.
			n = max(n/t.n, 1)
		}
		s = shape{dims: []int64{n}, origin: Propagated}
	default:
		return Value{}, false
	}
	if c.Callee == "empty" {
		return boolValue(s.count() == 0, s.origin), true
	}
	return IntValue(s.count(), s.origin), true
}

// containerAssign follows a whole assignment to a container: a copy of
// another takes its size; any other value makes it unknown.
func (w *walker) containerAssign(s *ir.Assign) {
	if s.Partial || !isContainer(w.typeName(s.Target)) {
		return
	}
	if r, ok := s.Value.(ir.Ref); ok && s.Op == "=" {
		if sh, ok := w.env.shapeOf(r.Name); ok {
			w.env.setShape(s.Target, sh)
			return
		}
	}
	w.env.forgetShape(s.Target)
}

// grow follows an element added to the local container name: it grows by
// the iterations of the loops around the call that are inside the
// container's scope. Its size becomes unknown when one of those loops
// has a default trip count, or when it is not a container declared empty
// in this function.
func (w *walker) grow(name string) {
	s, known := w.env.shapeOf(name)
	depth, followed := w.grown[name]
	if !known || !followed || len(s.dims) != 1 || depth > len(w.trips) {
		w.env.forgetShape(name)
		return
	}
	n := int64(1)
	for _, t := range w.trips[depth:] {
		if t.def {
			w.env.forgetShape(name)
			return
		}
		n *= t.n
	}
	w.env.setShape(name, shape{dims: []int64{s.dims[0] + n}, origin: Propagated})
}

// memberContainerCall follows the size of a container held in a structure
// or class member ("m.verts.push_back(p)", "mesh->tris.resize(n)"), by
// member name, through the walk: elements added in loops of known trip
// counts add those iterations, resize(n) and clear() set it. An element
// added outside a loop of the function (by a helper called from
// elsewhere) or in a loop of unknown count makes it unknown from there
// on. It reports false when c is not such a call.
func (w *walker) memberContainerCall(c *ir.Call, parent *Node) bool {
	f, ok := c.Receiver.(ir.Field)
	if !ok {
		return false
	}
	sizes := w.b.memberSizes
	switch c.Callee {
	case "push_back", "emplace_back", "push_front", "emplace_front":
		n := int64(1)
		if w.keyedElement(f.X) {
			sizes[f.Name] = -1
			break
		}
		for _, t := range w.trips {
			n *= t.n
			if t.def {
				n = -1
				break
			}
		}
		if len(w.trips) == 0 || n < 0 || sizes[f.Name] < 0 {
			sizes[f.Name] = -1
		} else {
			sizes[f.Name] += n
		}
	case "resize", "assign":
		sizes[f.Name] = -1
		if len(c.Args) > 0 {
			if n := Eval(c.Args[0], w.env); n.Kind == Int && n.I >= 0 {
				sizes[f.Name] = n.I
			}
		}
	case "clear":
		sizes[f.Name] = 0
	default:
		v, ok := w.containerQuery(c)
		if !ok {
			return false
		}
		w.unknownCall(c, parent)
		w.setResult(c, v)
		return true
	}
	w.unknownCall(c, parent)
	return true
}

// keyedElement reports whether x is an element of an array or container
// that no loop around visits in order ("Profile &pr = prof[key]"): what
// is added to its members goes to one element of many, in shares the
// walk does not know. (Elements a loop visits, rows[i], keep the total:
// a use in such a loop takes its share, see containerQuery.)
func (w *walker) keyedElement(x ir.Expr) bool {
	x = w.initOf(x)
	if !isIndex(x) {
		return false
	}
	_, visited := w.elementLoop(x)
	return !visited
}

// elementLoop returns the loop around that visits the elements x stands
// for: a loop whose variable x is (for (auto &tr : trains)) or indexes
// (trains[i]).
func (w *walker) elementLoop(x ir.Expr) (loopTrip, bool) {
	var names []string
	switch x := x.(type) {
	case ir.Ref:
		names = append(names, x.Name)
	case ir.Index:
		for _, i := range x.Idx {
			if r, ok := i.(ir.Ref); ok {
				names = append(names, r.Name)
			}
		}
	}
	i := lastIndex(w.trips, func(t loopTrip) bool { return t.v != "" && slices.Contains(names, t.v) })
	if i < 0 {
		return loopTrip{}, false
	}
	return w.trips[i], true
}

// memberSize returns the size of the container held in the member name,
// as the walk has seen it filled, and false when unknown.
func (w *walker) memberSize(name string) (int64, bool) {
	n, ok := w.b.memberSizes[name]
	return n, ok && n >= 0
}

// SortCompareOps is the cost of one comparison of a sort of a range,
// with the moves around it: that of qsort's comparisons through a
// function pointer (sizedCosts), which a comparator object or lambda
// inlined into std::sort saves only in part on structures.
const SortCompareOps = 20

// sortCost returns the cost of std::sort or std::stable_sort over the
// range of a container of known size, n log2 n comparisons: the range
// starts at the begin() of the container whose begin() the walk saw
// last. It reports false for other calls and ranges.
func (w *walker) sortCost(c *ir.Call) (float64, bool) {
	switch strings.TrimPrefix(c.Callee, "std::") {
	case "sort", "stable_sort":
	default:
		return 0, false
	}
	if len(c.Args) < 2 {
		return 0, false
	}
	if b, ok := c.Args[0].(ir.CallExpr); !ok || b.Callee != "begin" && b.Callee != "cbegin" {
		return 0, false
	}
	n, ok := w.begun.Float()
	if !ok || n < 2 {
		return 0, false
	}
	return n * math.Log2(n) * SortCompareOps, true
}

// comparatorCalls returns the cost of the calls a qsort makes of a
// comparator the program defines, one per comparison: a call of a
// program function with its instrumentation hooks (CallOps), beyond the
// comparison itself that the qsort's own cost holds.
func (w *walker) comparatorCalls(c *ir.Call) float64 {
	if strings.TrimPrefix(c.Callee, "std::") != "qsort" || len(c.Args) != 4 {
		return 0
	}
	cmp := uncast(c.Args[3])
	if u, ok := cmp.(ir.Unary); ok && u.Op == "&" {
		cmp = u.X
	}
	r, ok := cmp.(ir.Ref)
	if !ok {
		return 0
	}
	if _, ok := w.b.resolve(r.Name, w.d.file); !ok {
		return 0
	}
	n, ok := Eval(c.Args[1], w.env).Float()
	if !ok || n < 2 {
		return 0
	}
	return n * math.Log2(n) * CallOps
}

// isCallOf reports whether x is a call of the library routine name, with
// or without its std:: qualifier.
func isCallOf(x ir.Expr, name string) bool {
	c, ok := x.(ir.CallExpr)
	return ok && strings.TrimPrefix(c.Callee, "std::") == name
}

// isElementLoopVar reports whether x is the variable of a loop around
// that visits elements (for (const auto &p : papers)).
func (w *walker) isElementLoopVar(x ir.Expr) bool {
	r, ok := x.(ir.Ref)
	return ok && slices.ContainsFunc(w.trips, func(t loopTrip) bool { return t.v == r.Name })
}
