package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// effects are what a call of a function may change in its caller.
type effects struct {
	// params tells, per parameter, whether the function may change the
	// variable passed to it by reference: a Fortran dummy argument it
	// assigns, reads into, or passes on to a routine that may change it;
	// in C and C++ every pointer or array parameter (what it points to
	// may change), and a C++ parameter it assigns (the IR does not tell a
	// reference from a value: see maybeReference).
	params []bool
	// resized tells, per parameter, whether the function may change the
	// size of a C++ container or Fortran allocatable array passed to it.
	resized []bool
	// nonlocal are the host variables an internal procedure may assign
	// (directly or through the procedures it calls), and reallocated
	// those of its host's arrays it may allocate or deallocate.
	nonlocal, reallocated scopes
}

// effectsOf returns the effects of d, or nil while d is being analysed
// (a recursive call): callers then assume the worst.
func (b *builder) effectsOf(d funcDef) *effects {
	if e, ok := b.effectCache[d.f]; ok {
		return e
	}
	if b.effectBusy[d.f] {
		return nil
	}
	b.effectBusy[d.f] = true
	defer delete(b.effectBusy, d.f)

	lang := d.file.Lang
	eff := &effects{params: make([]bool, len(d.f.Params)), resized: make([]bool, len(d.f.Params)),
		nonlocal: scopes{}, reallocated: scopes{}}
	index := map[string]int{}
	for i, p := range d.f.Params {
		index[p.Name] = i
		if lang != ir.Fortran && (p.Type.Pointer > 0 || len(p.Type.Dims) > 0) {
			eff.params[i] = true
		}
	}
	own := declaredIn(d.f)
	// Names a procedure assigns without declaring them are its host's
	// variables when it is an internal procedure that the host has;
	// otherwise they are implicitly typed locals (Fortran) or globals,
	// whose values the analysis does not follow through calls.
	var host *hostScope
	if h := b.hostOf(d.f); h != nil {
		host = b.hostScope(h)
	}
	mark := func(name string) {
		if name == "" {
			return
		}
		if i, ok := index[name]; ok {
			eff.params[i] = true
			return
		}
		if _, ok := host.lookup(name); ok && !own[name] {
			eff.nonlocal[name] = true
		}
	}
	resize := func(name string) {
		if i, ok := index[name]; ok {
			eff.resized[i] = true
		} else if _, ok := host.lookup(name); ok && !own[name] {
			eff.reallocated[name] = true
		}
	}
	chars := map[string]bool{}
	for _, p := range d.f.Params {
		chars[p.Name] = strings.HasPrefix(strings.ToLower(p.Type.Name), "char")
	}
	visitStmts(d.f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Decl:
			chars[s.Var.Name] = strings.HasPrefix(strings.ToLower(s.Var.Type.Name), "char")
		case *ir.Assign:
			mark(s.Target)
			if !s.Partial {
				resize(s.Target)
			}
		case *ir.Loop:
			mark(s.Var)
		case *ir.Call:
			mark(s.Result)
			if s.Receiver != nil && resizes(s.Callee) {
				mark(baseName(s.Receiver))
				resize(baseName(s.Receiver))
			}
			if lang == ir.Fortran && (s.Callee == "allocate" || s.Callee == "deallocate") {
				for _, a := range s.Args {
					mark(baseName(a))
					resize(baseName(a))
				}
			}
			b.callEffects(d, s, mark, resize)
		case *ir.FortranIO:
			switch {
			case s.Op == "read":
				for _, it := range s.Items {
					mark(baseName(it))
				}
			case s.Op == "write" && chars[baseName(s.Unit)]:
				mark(baseName(s.Unit)) // an internal WRITE into a character dummy
			}
			for _, spec := range []string{"iostat", "iomsg", "newunit", "size"} {
				if x, ok := s.Specs[spec]; ok {
					mark(baseName(x))
				}
			}
		}
	})
	b.effectCache[d.f] = eff
	return eff
}

// callEffects marks what the call c, made by d, may change: the variables
// d passes by reference to parameters the callee may change (all of them
// for routines the program does not define), the containers and arrays it
// may resize, and the host variables it assigns.
func (b *builder) callEffects(d funcDef, c *ir.Call, mark, resize func(string)) {
	t, callee := b.calleeEffects(c, d, nil)
	for _, name := range changedArgs(c, d.file.Lang, t.f, callee) {
		mark(name)
	}
	for i, a := range c.Args {
		r, ok := a.(ir.Ref)
		if !ok {
			continue
		}
		if callee == nil && d.file.Lang == ir.CPP || callee != nil && (i >= len(callee.resized) || callee.resized[i]) {
			resize(r.Name)
		}
	}
	if callee != nil {
		for name := range callee.nonlocal {
			mark(name)
		}
		for name := range callee.reallocated {
			resize(name)
		}
	}
}

// changedArgs returns the variables of a caller in language lang that the
// call c may change through its arguments, given the callee t and its
// effects eff (nil: a routine the program does not define, or a recursive
// call): those passed by reference (Fortran variables, C's &x, C++
// variables passed to parameters that may be references) to parameters
// the callee may change.
func changedArgs(c *ir.Call, lang ir.Lang, t *ir.Func, eff *effects) []string {
	var out []string
	for i, a := range c.Args {
		if eff != nil && i < len(eff.params) && !eff.params[i] {
			continue
		}
		if name := addressed(a, lang); name != "" {
			out = append(out, name)
			continue
		}
		if r, ok := a.(ir.Ref); ok && lang == ir.CPP && t != nil && i < len(t.Params) && maybeReference(t.Params[i]) {
			out = append(out, r.Name)
		}
	}
	return out
}

// maybeReference reports whether a C++ parameter may be a non-const
// reference (int &n): the front-end types references as their referent,
// so any non-const parameter that is not a pointer or an array may be.
func maybeReference(p *ir.Var) bool {
	return !p.Const && p.Type.Pointer == 0 && len(p.Type.Dims) == 0
}

// calleeEffects returns the program function a call statement names and
// its effects; the effects are nil for a routine the program does not
// define (t is then zero), an indirect call or a recursive one.
func (b *builder) calleeEffects(c *ir.Call, from funcDef, env *Env) (t funcDef, eff *effects) {
	if c.Indirect || c.Callee == "" {
		return funcDef{}, nil
	}
	t, ok := b.resolveCall(c, from, env)
	if !ok {
		return funcDef{}, nil
	}
	return t, b.effectsOf(t)
}

// resizes reports whether a C++ member function may change the size of
// a container.
func resizes(method string) bool {
	switch method {
	case "resize", "assign", "clear", "push_back", "emplace_back", "pop_back", "insert", "emplace",
		"erase", "swap", "push_front", "emplace_front", "pop_front", "append", "shrink_to_fit":
		return true
	}
	return false
}

// resolveCall returns the program function a call statement of from
// names. In C++, a member call goes to a method of the receiver's class
// (its declared type in env), or else to any method of that name; a plain
// call in a method to a method of the same class, or else to a free
// function of that name. Otherwise it is resolve.
func (b *builder) resolveCall(c *ir.Call, from funcDef, env *Env) (funcDef, bool) {
	if from.file == nil || from.file.Lang != ir.CPP || strings.Contains(c.Callee, "::") {
		return b.resolve(c.Callee, from.file)
	}
	class := ""
	if i := strings.LastIndex(from.f.Name, "::"); i >= 0 {
		class = from.f.Name[:i]
	}
	if c.Receiver != nil {
		recv := baseName(c.Receiver)
		switch {
		case recv == "this":
		case env != nil && env.Var(recv) != nil:
			class = className(env.Var(recv).Type.Name)
		default:
			class = ""
		}
	}
	defs := b.funcs[c.Callee]
	if class != "" {
		for _, d := range defs {
			if d.f.Name == class+"::"+c.Callee || strings.HasSuffix(d.f.Name, "::"+class+"::"+c.Callee) {
				return d, true
			}
		}
	}
	// A member call names a method; a plain call a free function (or one
	// of the same namespace), else anything of that name.
	var best funcDef
	for _, d := range defs {
		member := strings.Contains(d.f.Name, "::")
		if c.Receiver != nil && !member || c.Receiver == nil && d.f.Name != c.Callee {
			continue
		}
		if best.f == nil || d.file == from.file && best.file != from.file {
			best = d
		}
	}
	if best.f != nil {
		return best, true
	}
	return b.resolve(c.Callee, from.file)
}

// className returns the class a C++ variable type names, without
// qualifiers, template arguments or pointers.
func className(t string) string {
	t = strings.TrimSpace(t)
	for _, p := range []string{"const ", "struct ", "class ", "volatile "} {
		t = strings.TrimPrefix(t, p)
	}
	if i := strings.IndexByte(t, '<'); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSpace(strings.TrimRight(t, "*& "))
}
