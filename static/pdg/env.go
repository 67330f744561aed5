package pdg

import (
	"fmt"
	"maps"

	"github.com/iolens/iolens/static/ir"
)

// Env is the environment in which Eval evaluates expressions: the values
// and declarations of a function's variables, the compile-time constants
// of its file and of the whole program, the program's global variables,
// and the program arguments.
//
// Local values are flow-sensitive: the builder sets them as it walks the
// statements in order, kills the variables a loop assigns before walking
// the loop, and keeps after a branch only the values every alternative
// agrees on.
type Env struct {
	vals   cowMap[string, Value]   // locals and parameters
	vars   cowMap[string, *ir.Var] // declarations in scope
	locals cowMap[string, bool]    // names declared in the function
	elems  cowMap[string, int64]   // element counts of allocated arrays (malloc, ALLOCATE)
	shapes cowMap[string, shape]   // extents known at run: ALLOCATE, containers, array arguments
	calls  cowMap[string, Value]   // result of the latest hoisted call, by callee
	caps   cowMap[string, capped]  // upper bounds checks gave unknown values (see walker.checkCaps)
	// setting is the key of the program's own text that the branch being
	// walked tested, with its value (see walker.keyed).
	setting setting
	shared  *shared
}

// cowMap is a map that clones of an environment share until one of them
// changes it: the alternatives of a branch start from the same state and
// most change only a few of their maps.
type cowMap[K comparable, V any] struct {
	m     map[K]V // read it directly; change it with set and del
	owned bool    // m is not shared
}

func newCowMap[K comparable, V any]() cowMap[K, V] {
	return cowMap[K, V]{m: map[K]V{}, owned: true}
}

// own makes m this map's own before a change.
func (c *cowMap[K, V]) own() {
	if !c.owned {
		c.m = maps.Clone(c.m)
		c.owned = true
	}
}

func (c *cowMap[K, V]) set(k K, v V) {
	c.own()
	c.m[k] = v
}

func (c *cowMap[K, V]) del(k K) {
	if _, ok := c.m[k]; ok {
		c.own()
		delete(c.m, k)
	}
}

// share returns a map with the same contents, which both then copy before
// changing them.
func (c *cowMap[K, V]) share() cowMap[K, V] {
	c.owned = false
	return cowMap[K, V]{m: c.m}
}

// shared is the part of an environment common to every function of a
// program.
type shared struct {
	consts     map[string]ir.Expr // constants of the file being analysed
	progConsts map[string]ir.Expr // constants of every file, for module PARAMETERs
	globals    map[string]Value   // global variables' values (constants, and handles set at run)
	globalVars map[string]*ir.Var
	types      map[string][]*ir.Var // Fortran derived types by lower-case name
	structs    map[string][]*ir.Var // C and C++ structures' members by type name
	evolving   map[string]bool      // globals updated from their own value
	fields     map[string]Value     // members that keep one number (analyseFields)
	observed   map[string]Value     // numbers stored into members so far (observeField)
	guessed    map[string]Value     // members some stores give a known size (analyseFields)
	settings   settings             // keys of the text the program wrote so far (see settings)
	args       []string
	hasArgs    bool
	lang       ir.Lang // the language of the file ("" for NewEnv: any)
}

// NewEnv returns an environment with the file constants consts and the
// program arguments args (nil when unknown: argc and argv[i] then have no
// value).
func NewEnv(consts map[string]ir.Expr, args []string) *Env {
	return newEnv(&shared{
		consts:     consts,
		progConsts: consts,
		globals:    map[string]Value{},
		globalVars: map[string]*ir.Var{},
		args:       args,
		hasArgs:    args != nil,
	})
}

func newEnv(s *shared) *Env {
	return &Env{
		vals:   newCowMap[string, Value](),
		vars:   newCowMap[string, *ir.Var](),
		locals: newCowMap[string, bool](),
		elems:  newCowMap[string, int64](),
		shapes: newCowMap[string, shape](),
		calls:  newCowMap[string, Value](),
		caps:   newCowMap[string, capped](),
		shared: s,
	}
}

// Set gives name the value v. Names not declared in the function are
// globals: only handles are recorded for them (a global FILE* opened in
// one function and written in another); their other values come from the
// program-wide analysis of global assignments.
func (e *Env) Set(name string, v Value) {
	if name == "" {
		return
	}
	if !e.locals.m[name] && e.shared.globalVars[name] != nil {
		if v.Kind == HandleVal {
			e.shared.globals[name] = v
			return
		}
		if !e.shared.followed(name) {
			return
		}
	}
	for k, c := range e.caps.m {
		if mentions(c.x, name) {
			e.caps.del(k)
		}
	}
	if v.Kind == Unknown {
		e.vals.del(name)
		return
	}
	e.vals.set(name, v)
}

// capped is an expression of unknown value that a check bounded: "if
// (idx[k].bytes > CAP) die(...)" leaves idx[k].bytes at most CAP.
type capped struct {
	x ir.Expr
	v Value
}

// capKey identifies an expression among the caps.
func capKey(x ir.Expr) string { return fmt.Sprintf("%#v", x) }

// setCap records that x, of unknown value, is at most v.
func (e *Env) setCap(x ir.Expr, v Value) {
	e.caps.set(capKey(x), capped{x: x, v: v.with(Bound)})
}

// capOf returns the bound a check gave x.
func (e *Env) capOf(x ir.Expr) (Value, bool) {
	if len(e.caps.m) == 0 {
		return Value{}, false
	}
	c, ok := e.caps.m[capKey(x)]
	return c.v, ok
}

// Kill forgets the value of name.
func (e *Env) Kill(name string) {
	e.Set(name, Value{})
	e.killMembers(name)
}

// Lookup returns the value of the variable or constant name.
func (e *Env) Lookup(name string) (Value, bool) {
	v := e.lookup(name, 0)
	return v, v.Kind != Unknown
}

// Declare declares a local variable; it has no value until Set.
func (e *Env) Declare(v *ir.Var) {
	e.vars.set(v.Name, v)
	e.locals.set(v.Name, true)
	e.elems.del(v.Name)
	e.shapes.del(v.Name)
}

// setShape records the extents of the array or container name (and so
// its element count).
func (e *Env) setShape(name string, s shape) {
	e.shapes.set(name, s)
	e.elems.set(name, s.count())
}

// forgetShape forgets the extents of name: it was reallocated or resized.
func (e *Env) forgetShape(name string) {
	e.shapes.del(name)
	e.elems.del(name)
}

// Var returns the declaration of name, local or global, or nil.
func (e *Env) Var(name string) *ir.Var {
	if v := e.vars.m[name]; v != nil {
		return v
	}
	return e.shared.globalVars[name]
}

// Clone returns a copy of e whose local state can change independently.
func (e *Env) Clone() *Env {
	return &Env{
		vals:    e.vals.share(),
		vars:    e.vars.share(),
		locals:  e.locals.share(),
		elems:   e.elems.share(),
		shapes:  e.shapes.share(),
		calls:   e.calls.share(),
		caps:    e.caps.share(),
		setting: e.setting,
		shared:  e.shared,
	}
}

// merge keeps in e only the local values that every environment of alts
// agrees on (the state after a branch); a variable holding an open file
// on every side, not the same one, holds that of the side likely (an
// index of alts) takes most often: the series a branch moves on to the
// next file of ("if (day == last) { fclose(f); f = open_month(m); }").
func (e *Env) merge(alts []*Env, likely int) {
	if len(alts) == 0 {
		return
	}
	first := alts[0]
	st := e.setting
	*e = *first.Clone()
	e.setting = st
	for name, v := range first.vals.m {
		files := v.Kind == HandleVal
		agree := true
		for _, a := range alts[1:] {
			w, ok := a.vals.m[name]
			agree = agree && ok && w.equal(v)
			files = files && ok && w.Kind == HandleVal
		}
		switch {
		case agree:
		case files:
			e.vals.set(name, alts[likely].vals.m[name])
		default:
			e.vals.del(name)
		}
	}
	for name, n := range first.elems.m {
		for _, a := range alts[1:] {
			if a.elems.m[name] != n {
				e.elems.del(name)
				break
			}
		}
	}
	for name, s := range first.shapes.m {
		for _, a := range alts[1:] {
			if t, ok := a.shapes.m[name]; !ok || !t.equal(s) {
				e.shapes.del(name)
				break
			}
		}
	}
	for k, c := range first.caps.m {
		for _, a := range alts[1:] {
			if d, ok := a.caps.m[k]; !ok || !d.v.equal(c.v) {
				e.caps.del(k)
				break
			}
		}
	}
}

// lookup resolves name: a local value, then a constant of the file or the
// program (evaluated, at most depth levels of constants deep), then a
// global's value. An undeclared name without a definition is a symbol.
func (e *Env) lookup(name string, depth int) Value {
	if v, ok := e.vals.m[name]; ok {
		switch {
		case v.Kind == HandleVal || v.Kind == Argv || v.Kind == Sym:
			return v
		case e.vars.m[name] != nil && e.vars.m[name].Const:
			return v.with(Constant)
		}
		return v.with(Propagated)
	}
	if e.locals.m[name] {
		return Value{}
	}
	if x, ok := e.shared.consts[name]; ok && depth < maxConstDepth {
		return e.eval(x, depth+1).with(Constant)
	}
	if x, ok := e.shared.progConsts[name]; ok && depth < maxConstDepth {
		return e.eval(x, depth+1).with(Constant)
	}
	if v, ok := e.shared.globals[name]; ok {
		return v
	}
	if e.shared.globalVars[name] != nil {
		return Value{}
	}
	return Value{Kind: Sym, S: name}
}

// maxConstDepth bounds the expansion of constants defined by other
// constants (and breaks cycles between them).
const maxConstDepth = 32
