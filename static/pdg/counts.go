package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// Counts kept in structure members. C programs keep a growing array and
// its length together ("typedef struct { rr_t *v; size_t n, cap; }
// rrvec") and fill it through a pointer ("push(rv, ...)" doing
// "rv->v[rv->n++] = r"); later loops run to "rv->n". The walk follows the
// integer members of local structures and of the structures pointer
// parameters point to, under the name "var.member": their values from
// initialisers and assignments, their constant steps in loops (as
// tallies), what a call of a program function adds to the members of the
// structure passed to it, and the values they carry into callees.

// memberName is the name under which the walk keeps the value of member
// field of the structure variable base, or of the structure the pointer
// base points to: "rv.n".
func memberName(base, field string) string { return base + "." + field }

// memberOf returns the member name of b.f or b->f, with b a variable,
// else "".
func memberOf(x ir.Expr) string {
	f, ok := x.(ir.Field)
	if !ok {
		return ""
	}
	r, ok := f.X.(ir.Ref)
	if !ok {
		return ""
	}
	return memberName(r.Name, f.Name)
}

// assignName is the name an assignment stores into: its target, or the
// member name of a store into a member of a structure variable.
func assignName(a *ir.Assign) string {
	if a.Partial {
		if a.Field == "" || a.Element != nil {
			return ""
		}
		return memberName(a.Target, a.Field)
	}
	return a.Target
}

// memberValue returns the value the walk keeps for x, a member of a
// structure variable.
func (e *Env) memberValue(x ir.Field) (Value, bool) {
	name := memberOf(x)
	if name == "" {
		return Value{}, false
	}
	v, ok := e.vals.m[name]
	return v.with(Propagated), ok
}

// killMembers forgets the members kept for the structure variable name.
func (e *Env) killMembers(name string) {
	prefix := name + "."
	for k := range e.vals.m {
		if strings.HasPrefix(k, prefix) {
			e.vals.del(k)
		}
	}
}

// counters returns the integer members of the structure the variable name
// is, or points to, by member name ("rv.n", "rv.cap"), when the walk may
// follow them: name is a local or a parameter of a C or C++ function.
func (w *walker) counters(name string) []string {
	if w.fortran() || name == "" || !w.env.locals.m[name] {
		return nil
	}
	v := w.env.Var(name)
	if v == nil || len(v.Type.Dims) > 0 || v.Type.Pointer > 1 {
		return nil
	}
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.Type.Name), "const "))
	t = strings.TrimSpace(strings.TrimPrefix(t, "struct "))
	var out []string
	for _, m := range w.env.shared.structs[t] {
		if m.Type.Pointer == 0 && len(m.Type.Dims) == 0 && integerType(m.Type.Name) {
			out = append(out, memberName(name, m.Name))
		}
	}
	return out
}

// integerType reports whether a C type name is an integer type.
func integerType(t string) bool {
	for _, w := range strings.Fields(strings.NewReplacer("const", " ", "unsigned", " int ", "signed", " int ").Replace(t)) {
		switch w {
		case "int", "long", "short", "size_t", "ssize_t", "ptrdiff_t", "int32_t", "int64_t", "uint32_t",
			"uint64_t", "uint16_t", "int16_t", "uint8_t", "int8_t", "off_t", "uint", "ulong":
			return true
		}
	}
	return false
}

// structArg returns the structure variable whose members a call argument
// lets the callee change: b for &b, or a pointer variable p passed as p.
func (w *walker) structArg(x ir.Expr) string {
	x = uncast(x)
	if u, ok := x.(ir.Unary); ok && u.Op == "&" {
		if r, ok := u.X.(ir.Ref); ok {
			if v := w.env.Var(r.Name); v != nil && v.Type.Pointer == 0 {
				return r.Name
			}
		}
		return ""
	}
	if r, ok := x.(ir.Ref); ok {
		if v := w.env.Var(r.Name); v != nil && v.Type.Pointer == 1 {
			return r.Name
		}
	}
	return ""
}

// zeroMembers gives the counters of a structure variable declared with a
// zero initialiser ("rrvec rv = {0}", "= {}") the value 0.
func (w *walker) zeroMembers(v *ir.Var) {
	if v.Type.Pointer > 0 || !zeroInit(v.Init) {
		return
	}
	for _, name := range w.counters(v.Name) {
		w.env.Set(name, IntValue(0, Literal))
	}
}

// zeroInit reports whether x is a zero initialiser: {0} or {}.
func zeroInit(x ir.Expr) bool {
	switch x := x.(type) {
	case ir.List:
		for _, e := range x.Elems {
			if z, ok := e.(ir.Int); !ok || z.V != 0 {
				return false
			}
		}
		return true
	case ir.Unknown:
		t := strings.Join(strings.Fields(x.Text), "")
		return t == "{0}" || t == "{}"
	}
	return false
}

// memberAssign follows a store into a member of a structure variable:
// the member's new value, its step in the loops being tallied, and, for
// the structure a pointer parameter points to, what the function changes
// for its callers (see memberChange).
func (w *walker) memberAssign(s *ir.Assign) {
	name := assignName(s)
	if name == "" || !w.env.locals.m[s.Target] || w.fortran() {
		return
	}
	w.stepTally(s)
	w.recordChange(name, w.stepOf(s, name))
	w.env.Set(name, Eval(storedValue(s, ir.Field{X: ir.Ref{Name: s.Target}, Name: s.Field}), w.env))
}

// memberChange is what one call of a function does to a counter of the
// structure one of its pointer parameters points to: add delta (the
// expected sum of its constant steps), or leave it at value (set), or
// something the walk does not know (unknown).
type memberChange struct {
	delta   float64
	set     bool
	unknown bool
	value   Value
}

// recordChange records, when name is a member of the structure a
// parameter points to, a change of it by step (Unknown: a store of
// another kind) at the statement being walked.
func (w *walker) recordChange(name string, step Value) {
	base, _, _ := strings.Cut(name, ".")
	if !w.isParam(base) {
		return
	}
	if w.changed == nil {
		w.changed = map[string]*memberChange{}
	}
	c := w.changed[name]
	if c == nil {
		c = &memberChange{}
		w.changed[name] = c
	}
	st, ok := step.Float()
	switch {
	case !ok:
		c.set = true
	case w.guessedSince(0):
		c.unknown = true
	default:
		c.delta += st * w.factor(0)
	}
}

// memberChanges returns what a call of the function changes in the
// counters its pointer parameters point to, by parameter index and
// member, from the walk's record and its values at the end.
func (w *walker) memberChanges() map[int]map[string]memberChange {
	if len(w.changed) == 0 {
		return nil
	}
	out := map[int]map[string]memberChange{}
	for i, p := range w.d.f.Params {
		for name, c := range w.changed {
			base, field, _ := strings.Cut(name, ".")
			if base != p.Name {
				continue
			}
			ch := *c
			if ch.set {
				v := Eval(ir.Ref{Name: name}, w.env)
				ch.value, ch.unknown = v, ch.unknown || v.Kind != Int
			}
			if out[i] == nil {
				out[i] = map[string]memberChange{}
			}
			out[i][field] = ch
		}
	}
	return out
}

// touchCounters forgets the counters of the structures a call of a
// routine the program does not define gets the address of (memset(&rv,
// 0, sizeof rv), fread(hdr, sizeof *hdr, 1, f)): it may change them.
func (w *walker) touchCounters(c *ir.Call) {
	var names []string
	for _, a := range c.Args {
		names = append(names, w.counters(w.structArg(a))...)
	}
	if len(names) == 0 {
		return // most calls: no structure's address, no call resolved here
	}
	if c.Indirect || c.Callee == "" {
		if _, _, ok := w.pointee(c); ok {
			return
		}
	} else if _, ok := w.b.resolveCall(c, w.d, w.env); ok {
		return
	}
	for _, name := range names {
		w.forgetCounter(name, Value{})
	}
}

// forgetCounter gives the counter name the value v (Unknown: none) that
// something other than a constant step left in it: its tally is spoilt,
// and a caller sees it set.
func (w *walker) forgetCounter(name string, v Value) {
	w.env.Set(name, v)
	w.spoilTally(name)
	w.recordChange(name, Value{})
}

// passedCounters returns the counters of the structures a call of a
// program function may change through its arguments.
func (w *walker) passedCounters(c *ir.Call) []string {
	if _, ok := w.b.resolveCall(c, w.d, w.env); !ok {
		return nil
	}
	var out []string
	for _, a := range c.Args {
		out = append(out, w.counters(w.structArg(a))...)
	}
	return out
}

// keptMembers returns the values of the counters of the structures a call
// c passes, before the call forgets them (see calleeChanged).
func (w *walker) keptMembers(c *ir.Call) map[string]Value {
	var out map[string]Value
	for _, a := range c.Args {
		for _, name := range w.counters(w.structArg(a)) {
			if v, ok := w.env.vals.m[name]; ok {
				if out == nil {
					out = map[string]Value{}
				}
				out[name] = v
			}
		}
	}
	return out
}

// calleeChanged applies what a call c of the function instance callee did
// to the counters of the structures passed to it, which held kept before
// the call: the caller's members take the values the callee left or are
// stepped by its changes, in the tallies of the loops around the call
// too. The others keep their values.
func (w *walker) calleeChanged(c *ir.Call, callee *Node, kept map[string]Value) {
	for name, v := range kept {
		w.env.Set(name, v)
	}
	for i, fields := range callee.memberOuts {
		if i >= len(c.Args) {
			continue
		}
		base := w.structArg(c.Args[i])
		if base == "" || !w.env.locals.m[base] {
			continue
		}
		for field, ch := range fields {
			name := memberName(base, field)
			switch {
			case ch.unknown:
				w.forgetCounter(name, Value{})
			case ch.set:
				w.forgetCounter(name, passed(ch.value))
			default:
				w.stepMember(name, ch.delta)
			}
		}
	}
}

// stepMember steps the counter name by delta, once per execution of the
// statement being walked.
func (w *walker) stepMember(name string, delta float64) {
	w.tallyStep(name, delta)
	w.recordChange(name, FloatValue(delta, Bound))
	v := Eval(ir.Ref{Name: name}, w.env)
	if f, ok := v.Float(); ok && v.Kind == Int {
		w.env.Set(name, IntValue(int64(f+delta+0.5), Bound))
		return
	}
	w.env.Kill(name)
}

// spoilTally gives up the tally of name: the count is set otherwise.
func (w *walker) spoilTally(name string) {
	if t := w.tallies[name]; t != nil {
		t.ok = false
	}
}

// guessedSince reports whether a loop of default trip count is among the
// loops around the statement being walked from the from'th on: a count
// stepped there would be a guess.
func (w *walker) guessedSince(from int) bool {
	for _, lt := range w.trips[from:] {
		if lt.def {
			return true
		}
	}
	return false
}

// memberContext returns the values of the counters of the structures a
// call c passes to the parameters of d, by "parameter.member".
func (w *walker) memberContext(d funcDef, c *ir.Call) map[string]Value {
	var out map[string]Value
	for i, p := range d.f.Params {
		if i >= len(c.Args) {
			break
		}
		base := w.structArg(c.Args[i])
		if base == "" {
			continue
		}
		for _, name := range w.counters(base) {
			v, ok := w.env.vals.m[name]
			if !ok || v.Kind != Int {
				continue
			}
			if out == nil {
				out = map[string]Value{}
			}
			_, field, _ := strings.Cut(name, ".")
			out[memberName(p.Name, field)] = v
		}
	}
	return out
}
