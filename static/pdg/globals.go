package pdg

import (
	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// sharedOf returns the environment part shared by the functions of file:
// its constants, and the program-wide constants, globals and arguments.
func (b *builder) sharedOf(file *ir.File) *shared {
	if s := b.shared[file]; s != nil {
		return s
	}
	s := &shared{
		consts:     file.Consts,
		progConsts: b.progConsts,
		globals:    b.globals,
		globalVars: b.globalVars,
		types:      b.types,
		evolving:   b.evolving,
		fields:     b.fields,
		observed:   b.observed,
		guessed:    b.guessed,
		structs:    b.structs,
		settings:   b.settings,
		args:       b.opts.Args,
		hasArgs:    b.opts.Args != nil,
	}
	if s.consts == nil {
		s.consts = map[string]ir.Expr{}
	}
	s.lang = file.Lang
	b.shared[file] = s
	return s
}

// collectGlobals gathers the constants and global variables of every file
// (the first definition of a name wins).
func (b *builder) collectGlobals() {
	b.progConsts = map[string]ir.Expr{}
	b.globals = map[string]Value{}
	b.globalVars = map[string]*ir.Var{}
	b.types = map[string][]*ir.Var{}
	b.evolving = map[string]bool{}
	for _, f := range b.prog.Files {
		if f == nil {
			continue
		}
		for k, v := range f.Consts {
			if _, dup := b.progConsts[k]; !dup {
				b.progConsts[k] = v
			}
		}
		for _, g := range f.Globals {
			if _, dup := b.globalVars[g.Name]; !dup {
				b.globalVars[g.Name] = g
			}
		}
		for k, v := range f.Types {
			if _, dup := b.types[k]; !dup {
				b.types[k] = v
			}
		}
		for k, v := range f.Structs {
			if _, dup := b.structs[k]; !dup {
				b.structs[k] = v
			}
		}
	}
}

// globalAssign is one assignment of a global variable somewhere in the
// program; value is nil when the assigned value cannot be expressed (a
// READ into it, its address passed to a call).
type globalAssign struct {
	value ir.Expr
	in    funcDef
	// self tells an update from the variable's own value (n++, s ^= s
	// << 13, t = t + dt).
	self bool
}

// analyseGlobals gives a value to the global variables that are constant
// flow-insensitively: a const or PARAMETER with a constant initialiser; a
// variable initialised with a constant and never assigned; or one never
// initialised and assigned exactly once, with "=", a value computable in
// the assigning function's context (nsteps = atoi(argv[1]) in main).
func (b *builder) analyseGlobals() {
	b.collectGlobals()
	entry, _ := b.findEntry()
	assigns := map[string][]globalAssign{}
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		s := b.sharedOf(file)
		for _, f := range file.Funcs {
			d := funcDef{f, file}
			for name, a := range globalAssigns(d, s.globalVars) {
				assigns[name] = append(assigns[name], a...)
				for _, x := range a {
					if x.self {
						b.evolving[name] = true
					}
				}
			}
		}
	}
	caps := b.countCaps()
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		s := b.sharedOf(file)
		for _, g := range file.Globals {
			if s.globalVars[g.Name] != g {
				continue // a duplicate name: keep the first definition only
			}
			v := b.globalValue(g, file, assigns[g.Name], entry)
			if v.Kind == Unknown {
				if k, ok := caps[g.Name]; ok && counts(assigns[g.Name]) {
					s.globals[g.Name] = k
				}
				continue
			}
			if g.Const {
				v = v.with(Constant)
			} else {
				v = v.with(Propagated)
			}
			s.globals[g.Name] = v
		}
	}
}

// countCaps returns the limits up to which the program counts globals:
// K for n in "if (n < K) buf[n++] = x" (the increment guarded by the
// comparison with a constant), with origin Bound. Outside the guard, the
// count the program gathered stands for that capacity, which programs
// size for the data they expect (see walker.checkCaps).
func (b *builder) countCaps() map[string]Value {
	caps := map[string]Value{}
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		env := newEnv(b.sharedOf(file))
		for _, f := range file.Funcs {
			visitStmts(f.Body, func(st ir.Stmt) {
				if s, ok := st.(*ir.If); ok {
					for name, k := range guardedLimits(s.Cond, env) {
						if increments(s.Then, name) {
							caps[name] = IntValue(k, Bound)
						}
					}
				}
			})
		}
	}
	return caps
}

// guardedLimits returns the variables cond (or one of its conjuncts)
// keeps below a known integer: n in "n < K" or "K > n" gives K, in
// "n <= K" K + 1.
func guardedLimits(cond ir.Expr, env *Env) map[string]int64 {
	out := map[string]int64{}
	var walk func(x ir.Expr)
	walk = func(x ir.Expr) {
		c, ok := x.(ir.Binary)
		if !ok {
			return
		}
		v, limit, op := c.L, c.R, c.Op
		switch op {
		case "&&":
			walk(c.L)
			walk(c.R)
			return
		case ">", ">=":
			v, limit, op = c.R, c.L, map[string]string{">": "<", ">=": "<="}[op]
		}
		r, ok := uncast(v).(ir.Ref)
		k, known := Eval(limit, env).Int()
		if !ok || !known || op != "<" && op != "<=" {
			return
		}
		if op == "<=" {
			k++
		}
		out[r.Name] = k
	}
	walk(cond)
	return out
}

// increments reports whether blk adds one to name somewhere ("n++",
// "n += 1").
func increments(blk ir.Block, name string) bool {
	found := false
	visitStmts(blk, func(st ir.Stmt) {
		if a, ok := st.(*ir.Assign); ok && a.Target == name && !a.Partial && a.Op == "+=" {
			if one, ok := a.Value.(ir.Int); ok && one.V == 1 {
				found = true
			}
		}
	})
	return found
}

// counts reports whether the assignments of a global are those of a
// count that only grows: steps from its own value. (One reset to zero,
// as a buffer's fill count is when flushed, cycles below its limit.)
func counts(as []globalAssign) bool {
	for _, a := range as {
		if !a.self {
			return false
		}
	}
	return len(as) > 0
}

func (b *builder) globalValue(g *ir.Var, file *ir.File, as []globalAssign, entry funcDef) Value {
	switch {
	case len(as) == 0 && g.Init != nil:
		return Eval(g.Init, newEnv(b.sharedOf(file)))
	case len(as) == 1 && g.Init == nil && as[0].value != nil:
		env := b.funcEnv(as[0].in, callContext{})
		if as[0].in.f == entry.f {
			env = b.funcEnv(as[0].in, b.entryBindings(entry))
		}
		v := Eval(as[0].value, env)
		if v.Kind == HandleVal {
			return Value{}
		}
		return v
	}
	return Value{}
}

// globalAssigns returns the assignments of d to the globals of vars (names
// d does not shadow with a local or parameter).
func globalAssigns(d funcDef, vars map[string]*ir.Var) map[string][]globalAssign {
	local := map[string]bool{}
	for _, p := range d.f.Params {
		local[p.Name] = true
	}
	visitStmts(d.f.Body, func(s ir.Stmt) {
		if dcl, ok := s.(*ir.Decl); ok {
			local[dcl.Var.Name] = true
		}
	})
	out := map[string][]globalAssign{}
	add := func(name string, x ir.Expr) {
		if name != "" && !local[name] && vars[name] != nil {
			out[name] = append(out[name], globalAssign{value: x, in: d})
		}
	}
	visitStmts(d.f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			if s.Op == "=" && !s.Partial {
				add(s.Target, s.Value)
			} else {
				add(s.Target, nil)
			}
			if as := out[s.Target]; len(as) > 0 && !s.Partial && (s.Op != "=" || reads(s.Value, s.Target)) {
				as[len(as)-1].self = true
			}
		case *ir.Call:
			if s.Result != "" {
				add(s.Result, ir.CallExpr{Callee: s.Callee, Args: s.Args})
			}
			for _, a := range s.Args {
				if name := addressed(a, d.file.Lang); name != "" {
					add(name, nil)
				}
			}
		case *ir.FortranIO:
			if s.Op == "read" {
				for _, it := range s.Items {
					if r, ok := it.(ir.Ref); ok {
						add(r.Name, nil)
					}
				}
			}
		}
	})
	return out
}

// addressed returns the variable a call argument lets the callee modify:
// &x in C, any variable in Fortran (arguments pass by reference).
func addressed(a ir.Expr, lang ir.Lang) string {
	a = uncast(a) // (char *)&n, reinterpret_cast<char *>(&n)
	if u, ok := a.(ir.Unary); ok && u.Op == "&" {
		if r, ok := u.X.(ir.Ref); ok {
			return r.Name
		}
	}
	if r, ok := a.(ir.Ref); ok && lang == ir.Fortran {
		return r.Name
	}
	return ""
}

// funcEnv returns a fresh environment for d in the calling context ctx:
// for an internal procedure, the host's variables it sees (the constants
// with their values, the others with those ctx passes); its parameters,
// bound to the values and array extents of ctx, with an origin of at
// least Passed.
func (b *builder) funcEnv(d funcDef, ctx callContext) *Env {
	env := newEnv(b.sharedOf(d.file))
	if h := b.hostOf(d.f); h != nil {
		b.bindHost(env, d, h, ctx.host, ctx.hostShapes)
	}
	b.declareMembers(env, d.f.Members)
	for name, v := range ctx.globals {
		env.Set(name, passed(v))
	}
	for name, s := range ctx.globalShapes {
		env.setShape(name, s)
	}
	for i, p := range d.f.Params {
		env.Declare(p)
		if i < len(ctx.vals) {
			env.Set(p.Name, passed(ctx.vals[i]))
		}
		if i < len(ctx.shapes) && ctx.shapes[i].known() {
			env.bindShape(p, ctx.shapes[i])
		}
	}
	for name, v := range ctx.members {
		env.Set(name, v) // as a member of the caller's structure
	}
	return env
}

// declareMembers declares the data members a C++ method sees. A file
// stream member is a stream on a file the method does not know: the
// constructor that opens it is another function.
func (b *builder) declareMembers(env *Env, members []*ir.Var) {
	for _, m := range members {
		env.Declare(m)
		if mode, ok := iosem.StreamType(m.Type.Name); ok && m.Type.Pointer == 0 && len(m.Type.Dims) == 0 {
			env.Set(m.Name, b.unopenedStream(mode, m.Pos))
		}
	}
}
