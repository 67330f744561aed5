package pdg

import (
	"slices"

	"github.com/iolens/iolens/static/ir"
)

// fieldAssign is one store into a member somewhere in the program; value
// is nil when the stored value cannot be expressed (an update such as
// "+=", the member's address passed to a call, a READ into it).
type fieldAssign struct {
	value ir.Expr
	in    funcDef
	step  bool // a "+=" store
}

// fieldRounds bounds the rounds of analyseFields: a member set from
// another member ("hdr.n = s->n") gets its value in a later round.
const fieldRounds = 3

// analyseFields gives a value to the structure members that hold one
// number through the whole run, by name and flow-insensitively: every
// store into a member of that name, in any structure, is a plain "=" of
// the same known number, computed in the storing function's context
// (cfg.n = N in main; p->np = NPART in an init function). Sizes kept in
// structures then bound the loops that read them (for (i = 0; i < p->np;
// i++)). A member stored with different values, updated, or read into is
// not known; it may still be guessed (guessField, componentDefaults).
func (b *builder) analyseFields() {
	assigns := map[string][]fieldAssign{}
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		for _, f := range file.Funcs {
			collectFieldAssigns(funcDef{f, file}, assigns)
		}
	}
	entry, _ := b.findEntry()
	for name, as := range assigns {
		if !slices.ContainsFunc(as, func(a fieldAssign) bool { return a.value == nil }) && !toggled(as) {
			b.plainFields[name] = true
		}
		if slices.ContainsFunc(as, func(a fieldAssign) bool { return a.step }) {
			b.steppedFields[name] = true
		}
	}
	for range fieldRounds {
		changed := false
		for name, as := range assigns {
			if _, done := b.fields[name]; done {
				continue
			}
			if v, ok := b.fieldValue(as, entry); ok {
				b.fields[name] = v.with(Propagated)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for name, as := range assigns {
		if _, done := b.fields[name]; done || b.steppedFields[name] {
			continue
		}
		if v, ok := b.guessField(as, entry); ok {
			b.guessed[name] = v.with(Bound)
		}
	}
	for name, v := range b.componentDefaults(entry) {
		// Never stored but as a whole, or only read in (as a namelist or
		// a record) over its default.
		if !slices.ContainsFunc(assigns[name], func(a fieldAssign) bool { return a.value != nil }) {
			b.guessed[name] = v.with(Bound)
		}
	}
}

// toggled reports whether the stores as put different values into a
// member, two literal numbers or a literal and a computed value: a flag
// or state set and reset as the program runs (c->dirty = 1 when a cached
// page is written, c->dirty = 0 when it is written back; c->page = -1 for
// a free slot, c->page = page when it is filled), whose value at a read
// depends on the order of events, which a walk visiting each loop body
// once does not follow.
func toggled(as []fieldAssign) bool {
	literals := map[float64]bool{}
	computed := false
	for _, a := range as {
		x, sign := a.value, 1.0
		if u, ok := x.(ir.Unary); ok && u.Op == "-" {
			x, sign = u.X, -1
		}
		switch x := x.(type) {
		case ir.Int:
			literals[sign*float64(x.V)] = true
		case ir.Float:
			literals[sign*x.V] = true
		default:
			computed = true
		}
	}
	return len(literals) > 1 || len(literals) == 1 && computed
}

// componentDefaults returns the numbers the components of Fortran derived
// types are initialised with in their definitions (integer :: nx = 128),
// by component name, for the names all definitions agree on.
func (b *builder) componentDefaults(entry funcDef) map[string]Value {
	out := map[string]Value{}
	if entry.f == nil {
		return out
	}
	env := b.funcEnv(entry, callContext{})
	conflict := map[string]bool{}
	for _, comps := range b.types {
		for _, c := range comps {
			if c.Init == nil || conflict[c.Name] {
				continue
			}
			v := Eval(c.Init, env)
			if n, ok := v.Int(); !ok || n <= 1 {
				continue
			}
			if prev, seen := out[c.Name]; seen && !prev.equal(v) {
				delete(out, c.Name)
				conflict[c.Name] = true
				continue
			}
			out[c.Name] = v
		}
	}
	return out
}

// guessField returns the size the stores as that can be computed agree
// on, when the others store what the analysis cannot compute: a length
// the program sets from a constant and later parses back from a file it
// wrote (c[i].len = LEN[i], then c[n].len = atoi(p)), or a count it
// stores before writing a header and reads back with it. Stores of 0 or
// 1 are initialisations, not sizes, and do not count.
func (b *builder) guessField(as []fieldAssign, entry funcDef) (Value, bool) {
	var v Value
	for _, a := range as {
		if a.value == nil {
			continue
		}
		x := b.storedValue(a, entry)
		if n, ok := x.Int(); !ok || n <= 1 {
			continue
		}
		if v.Known() && !x.equal(v) {
			return Value{}, false
		}
		v = x
	}
	return v, v.Known()
}

// fieldValue returns the number all the stores as put into a member, if
// they agree.
func (b *builder) fieldValue(as []fieldAssign, entry funcDef) (Value, bool) {
	var v Value
	for i, a := range as {
		if a.value == nil {
			return Value{}, false
		}
		x := b.storedValue(a, entry)
		if x.Kind != Int && x.Kind != Float {
			return Value{}, false
		}
		if i > 0 && !x.equal(v) {
			return Value{}, false
		}
		v = x
	}
	return v, len(as) > 0
}

// storedValue evaluates the value a store puts into a member, in the
// storing function's context: the entry's bindings for the entry, the
// generic context otherwise.
func (b *builder) storedValue(a fieldAssign, entry funcDef) Value {
	ctx := callContext{}
	if a.in.f == entry.f {
		ctx = b.entryBindings(entry)
	}
	return Eval(a.value, b.funcEnv(a.in, ctx))
}

// collectFieldAssigns adds the stores of d into members to assigns, by
// member name.
func collectFieldAssigns(d funcDef, assigns map[string][]fieldAssign) {
	add := func(name string, x ir.Expr) {
		if name != "" {
			assigns[name] = append(assigns[name], fieldAssign{value: x, in: d})
		}
	}
	visitStmts(d.f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			switch {
			case s.Op == "=":
				add(s.Field, s.Value)
			case s.Op == "+=" && s.Field != "":
				assigns[s.Field] = append(assigns[s.Field], fieldAssign{in: d, step: true})
			default:
				add(s.Field, nil)
			}
		case *ir.Call:
			for _, a := range s.Args {
				add(addressedMember(a, d.file.Lang), nil)
			}
		case *ir.FortranIO:
			if s.Op == "read" {
				for _, it := range s.Items {
					add(addressedMember(it, ir.Fortran), nil)
				}
			}
		}
	})
}

// addressedMember returns the member a call argument lets the callee
// modify: &x.f in C, x%f in Fortran (arguments pass by reference).
func addressedMember(a ir.Expr, lang ir.Lang) string {
	a = uncast(a)
	if u, ok := a.(ir.Unary); ok && u.Op == "&" {
		a = u.X
	} else if lang != ir.Fortran {
		return ""
	}
	if f, ok := a.(ir.Field); ok {
		return f.Name
	}
	return ""
}
