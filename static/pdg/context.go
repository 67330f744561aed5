package pdg

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// callContext is what a call gives the function instance it reaches: the
// values of the parameters, the extents of the arrays passed to array
// parameters, and, for a Fortran internal procedure, the values of the
// host's variables it sees by host association.
type callContext struct {
	vals   []Value          // per parameter; Unknown when not known
	shapes []shape          // per parameter; zero when unknown or not an array parameter
	host   map[string]Value // host variables with a known value, by name
	// hostShapes are the extents of the host's arrays allocated at run.
	hostShapes map[string]shape
	// globals are the followed globals the callee uses with a known
	// value, by name (see globalUses), and globalShapes those arrays
	// among them with known extents (allocated by another function).
	globals      map[string]Value
	globalShapes map[string]shape
	// members are the known counters of the structures passed to
	// pointer parameters, by "parameter.member" (see memberContext).
	members map[string]Value
}

// key spells the context for Node.Context: the parameter values in order
// ("?" when unknown, "[1000]" or "[10x20]" for the extents of an array
// argument), then, after ";", the host variables as name=value or
// name=[extents], sorted. All unknown is "": the generic context.
func (c callContext) key() string {
	known := false
	parts := make([]string, len(c.vals))
	for i, v := range c.vals {
		parts[i] = contextKey(v)
		known = known || v.Kind != Unknown
		if i < len(c.shapes) && c.shapes[i].known() && v.Kind == Unknown {
			parts[i] = c.shapes[i].key()
			known = true
		}
	}
	key := strings.Join(parts, ",")
	if len(c.host) > 0 || len(c.hostShapes) > 0 || len(c.globals) > 0 || len(c.globalShapes) > 0 || len(c.members) > 0 {
		var names []string
		for name, v := range c.members {
			names = append(names, name+"="+contextKey(v))
		}
		for name, v := range c.host {
			names = append(names, name+"="+contextKey(v))
		}
		for name, v := range c.globals {
			names = append(names, "::"+name+"="+contextKey(v))
		}
		for name, s := range c.hostShapes {
			names = append(names, name+"="+s.key())
		}
		for name, s := range c.globalShapes {
			names = append(names, "::"+name+"="+s.key())
		}
		slices.Sort(names)
		key += ";" + strings.Join(names, ",")
		known = true
	}
	if !known {
		return ""
	}
	return key
}

// contextKey spells v in the key of a call context. A Bound value is
// marked: the callee decides no branch on it (see walker.branch), so it
// makes another context than the same number known exactly.
func contextKey(v Value) string {
	if v.Origin == Bound && v.Kind != Unknown {
		return v.key() + "~"
	}
	return v.key()
}

// shape is the extents of an array at run time, outermost dimension
// first, and where they come from.
type shape struct {
	dims   []int64
	origin Origin
}

func (s shape) known() bool { return len(s.dims) > 0 }

// count is the number of elements.
func (s shape) count() int64 {
	n := int64(1)
	for _, d := range s.dims {
		n *= d
	}
	return n
}

func (s shape) key() string {
	parts := make([]string, len(s.dims))
	for i, d := range s.dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(parts, "x") + "]"
}

func (s shape) equal(t shape) bool { return slices.Equal(s.dims, t.dims) }

// passed returns the value v as a callee sees it: a number or string
// keeps an origin of at least Passed (Argument stays Argument).
func passed(v Value) Value {
	switch v.Kind {
	case Int, Float, Str:
		return v.with(Passed)
	}
	return v
}

// callContext evaluates what the call c gives d: its arguments, the
// extents of the arrays passed to array parameters, and the host
// variables when d is a Fortran internal procedure.
func (w *walker) callContext(d funcDef, c *ir.Call) callContext {
	ctx := callContext{vals: make([]Value, len(d.f.Params))}
	for i, p := range d.f.Params {
		if i >= len(c.Args) {
			break
		}
		ctx.vals[i] = Eval(c.Args[i], w.env)
		if wantsShape(p) {
			if s, ok := w.argShape(c.Args[i]); ok {
				if ctx.shapes == nil {
					ctx.shapes = make([]shape, len(d.f.Params))
				}
				ctx.shapes[i] = s
			}
		}
	}
	if h := w.b.hostOf(d.f); h != nil {
		ctx.host, ctx.hostShapes = w.hostValues(h, d)
	}
	ctx.globals, ctx.globalShapes = w.globalsFor(d)
	ctx.members = w.memberContext(d, c)
	return ctx
}

// wantsShape reports whether a parameter takes its extents from the
// actual argument: a Fortran assumed-shape or assumed-size dummy (a(:),
// a(*)), a C array parameter without extent (a[]) or pointer (double *a),
// or a C++ container passed by reference or value (std::vector<T> &v).
func wantsShape(p *ir.Var) bool {
	if isContainer(p.Type.Name) && p.Type.Pointer == 0 {
		return true
	}
	if len(p.Type.Dims) == 0 {
		return p.Type.Pointer == 1
	}
	for _, d := range p.Type.Dims {
		if d != nil {
			return false
		}
	}
	return true
}

// argShape returns the extents of an array argument: a whole array named
// by itself or as a(:), a(:, :), or the container a call of a program
// function returns (write_csv(path, generate(rng))).
func (w *walker) argShape(x ir.Expr) (shape, bool) {
	x = uncast(x)
	if c, ok := x.(ir.CallExpr); ok {
		s, ok := w.returned[c.Callee]
		return s, ok
	}
	if ix, ok := x.(ir.Index); ok {
		for _, i := range ix.Idx {
			if u, ok := i.(ir.Unknown); !ok || strings.TrimSpace(u.Text) != ":" {
				return shape{}, false
			}
		}
		x = ix.X
	}
	r, ok := x.(ir.Ref)
	if !ok {
		return shape{}, false
	}
	return w.env.shapeOf(r.Name)
}

// bindShape gives the parameter p the extents of the array it was passed:
// an assumed-shape dummy of the same rank takes them all, a
// one-dimensional assumed-size dummy or C array parameter the number of
// elements.
func (e *Env) bindShape(p *ir.Var, s shape) {
	s.origin = max(s.origin, Passed)
	switch {
	case isContainer(p.Type.Name), len(p.Type.Dims) == len(s.dims):
		e.setShape(p.Name, s)
	case len(p.Type.Dims) == 1, len(p.Type.Dims) == 0 && p.Type.Pointer == 1:
		e.setShape(p.Name, shape{dims: []int64{s.count()}, origin: s.origin})
	}
}

// isContainer reports whether a C++ type is a standard sequence container
// whose size the analysis follows (std::vector, std::array, std::deque,
// std::valarray).
func isContainer(name string) bool {
	n := strings.TrimSpace(name)
	n = strings.TrimPrefix(n, "const ")
	n = strings.TrimPrefix(n, "std::")
	for _, c := range []string{"vector<", "array<", "deque<", "valarray<"} {
		if strings.HasPrefix(n, c) {
			return true
		}
	}
	return false
}

// containerElem returns the element type of a standard sequence
// container type (T of std::vector<T>, std::array<T, N>); the stars of a
// pointer element (const char *) are its Pointer count.
func containerElem(t ir.Type) (ir.Type, bool) {
	if !isContainer(t.Name) || len(t.Dims) > 0 {
		return ir.Type{}, false
	}
	args := t.Name[strings.IndexByte(t.Name, '<')+1:]
	depth := 0
	end := strings.IndexFunc(args, func(r rune) bool {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
			return depth < 0
		case ',':
			return depth == 0
		}
		return false
	})
	if end < 0 {
		return ir.Type{}, false
	}
	name := strings.TrimSpace(args[:end])
	ptr := 0
	for strings.HasSuffix(name, "*") {
		name = strings.TrimSpace(name[:len(name)-1])
		ptr++
	}
	return ir.Type{Name: name, Pointer: ptr}, true
}

// hostOf returns the host of a Fortran internal procedure (the program
// unit or procedure that CONTAINS it), or nil.
func (b *builder) hostOf(f *ir.Func) *ir.Func { return b.hosts[f] }

// findHosts records the host of every Fortran internal procedure and C++
// lambda: the innermost other procedure of the same file whose lines
// enclose it (the Fortran front-end gives a host the lines up to its END,
// after its CONTAINS section).
func (b *builder) findHosts() {
	b.hosts = map[*ir.Func]*ir.Func{}
	for _, file := range b.prog.Files {
		if file == nil || file.Lang == ir.C {
			continue
		}
		for _, f := range file.Funcs {
			if file.Lang != ir.Fortran && f.Kind != ir.Lambda {
				continue // C++: only lambdas have hosts
			}
			var host *ir.Func
			for _, g := range file.Funcs {
				if g == f || g.Pos.Line >= f.Pos.Line || g.EndLine < f.EndLine || f.EndLine == 0 {
					continue
				}
				if host == nil || g.Pos.Line > host.Pos.Line {
					host = g
				}
			}
			if host != nil {
				b.hosts[f] = host
			}
		}
	}
}

// hostScope is what the internal procedures of a host see of it.
type hostScope struct {
	vars  []*ir.Var          // declared variables and parameters, in order
	names map[string]*ir.Var // every host variable (nil: undeclared, implicitly typed)
	// inner are the names each internal procedure declares, used the
	// host names each refers to, itself or through the other internal
	// procedures it calls, with the host names the extents of those
	// arrays depend on.
	inner, used map[*ir.Func]scopes
	// tables are the host's arrays that read like PARAMETER arrays (see
	// hostTables).
	tables map[string]*ir.Var
}

type scopes = map[string]bool

// lookup reports whether name is a variable of the host (s may be nil).
func (s *hostScope) lookup(name string) (*ir.Var, bool) {
	if s == nil {
		return nil, false
	}
	v, ok := s.names[name]
	return v, ok
}

// hostScope returns the variables of host h and the names its internal
// procedures use.
func (b *builder) hostScope(h *ir.Func) *hostScope {
	if s := b.hostScopes[h]; s != nil {
		return s
	}
	s := &hostScope{names: map[string]*ir.Var{}, inner: map[*ir.Func]scopes{}, used: map[*ir.Func]scopes{}}
	add := func(v *ir.Var) {
		if _, dup := s.names[v.Name]; !dup {
			s.vars = append(s.vars, v)
		}
		s.names[v.Name] = v
	}
	for _, p := range h.Params {
		add(p)
	}
	visitStmts(h.Body, func(st ir.Stmt) {
		if d, ok := st.(*ir.Decl); ok {
			add(d.Var)
		}
	})
	for name := range assignedNames(h.Body) {
		if _, ok := s.names[name]; !ok {
			s.names[name] = nil
		}
	}
	direct := map[*ir.Func]scopes{}
	calls := map[*ir.Func][]*ir.Func{}
	for f, host := range b.hosts {
		if host != h {
			continue
		}
		own := declaredIn(f)
		s.inner[f] = own
		direct[f] = scopes{}
		for name := range namesIn(f) {
			if _, ok := s.names[name]; ok && !own[name] {
				direct[f][name] = true
			}
		}
		file := b.fileOf(f)
		visitStmts(f.Body, func(st ir.Stmt) {
			if c, ok := st.(*ir.Call); ok && !c.Indirect {
				if t, ok := b.resolve(c.Callee, file); ok && b.hosts[t.f] == h && t.f != f {
					calls[f] = append(calls[f], t.f)
				}
			}
		})
	}
	for f, own := range s.inner {
		used := scopes{}
		seen := map[*ir.Func]bool{}
		var visit func(g *ir.Func)
		visit = func(g *ir.Func) {
			if seen[g] {
				return
			}
			seen[g] = true
			for name := range direct[g] {
				if !own[name] {
					used[name] = true
				}
			}
			for _, c := range calls[g] {
				visit(c)
			}
		}
		visit(f)
		// The extents of a used array may depend on other host variables.
		for name := range used {
			if v := s.names[name]; v != nil {
				for _, d := range v.Type.Dims {
					ir.Any(d, func(x ir.Expr) bool {
						if r, ok := x.(ir.Ref); ok {
							if _, host := s.names[r.Name]; host && !own[r.Name] {
								used[r.Name] = true
							}
						}
						return false
					})
				}
			}
		}
		s.used[f] = used
	}
	s.tables = s.hostTables(h, slices.Collect(maps.Keys(s.inner)))
	b.hostScopes[h] = s
	return s
}

// hostTables returns the one-dimensional arrays of host h that it
// assigns once, as a whole, an array constructor (v0max = [250.0_dp,
// 250.0_dp, 170.0_dp]), and that neither it nor its internal procedures
// change otherwise or pass to a call: constant copies initialised with
// the constructor, whose elements the internal procedures read like
// those of a PARAMETER array.
func (s *hostScope) hostTables(h *ir.Func, inner []*ir.Func) map[string]*ir.Var {
	lists := map[string]ir.List{}
	changes := map[string]int{}
	note := func(st ir.Stmt) {
		out := scopes{}
		stores(st, out)
		for name := range out {
			changes[name]++
		}
		switch st := st.(type) {
		case *ir.Assign:
			if l, ok := st.Value.(ir.List); ok && st.Op == "=" && !st.Partial && st.Field == "" && st.Element == nil {
				lists[st.Target] = l
			}
		case *ir.Call:
			for _, a := range st.Args {
				changes[baseName(a)] += 2
			}
		}
	}
	visitStmts(h.Body, note)
	for _, f := range inner {
		visitStmts(f.Body, note)
	}
	var tables map[string]*ir.Var
	for name, l := range lists {
		v := s.names[name]
		if v == nil || v.Const || changes[name] != 1 || len(v.Type.Dims) != 1 || v.Type.Pointer > 0 {
			continue
		}
		c := *v
		c.Const, c.Init = true, l
		if tables == nil {
			tables = map[string]*ir.Var{}
		}
		tables[name] = &c
	}
	return tables
}

// fileOf returns the file defining f.
func (b *builder) fileOf(f *ir.Func) *ir.File {
	for _, d := range b.funcs[f.Name] {
		if d.f == f {
			return d.file
		}
	}
	return nil
}

// hostValues returns the values of the host variables the internal
// procedure d may see, and the extents of the host's arrays allocated at
// run, as the caller knows them: the host itself, or another internal
// procedure of the same host (for the names it does not redeclare).
// Constants are not passed: bindHost takes them from their declarations.
func (w *walker) hostValues(h *ir.Func, d funcDef) (vals map[string]Value, shapes map[string]shape) {
	s := w.b.hostScope(h)
	var shadow scopes
	switch {
	case w.d.f == h:
	case w.b.hostOf(w.d.f) == h:
		shadow = s.inner[w.d.f]
	default:
		return nil, nil
	}
	for name := range s.used[d.f] {
		if shadow[name] {
			continue
		}
		if v := s.names[name]; v != nil && v.Const && v.Init != nil {
			continue // a constant: bindHost gives it its value
		}
		if sh, ok := w.env.shapes.m[name]; ok {
			if shapes == nil {
				shapes = map[string]shape{}
			}
			shapes[name] = sh
			continue
		}
		val := Eval(ir.Ref{Name: name}, w.env)
		if val.Kind == Unknown || val.Kind == Sym {
			continue
		}
		if vals == nil {
			vals = map[string]Value{}
		}
		vals[name] = val
	}
	return vals, shapes
}

// bindHost declares in env the variables of host h that the internal
// procedure d does not redeclare, with the values of the host's
// constants and the values and extents the call passed.
func (b *builder) bindHost(env *Env, d funcDef, h *ir.Func, vals map[string]Value, shapes map[string]shape) {
	s := b.hostScope(h)
	own := s.inner[d.f]
	if own == nil {
		own = declaredIn(d.f)
	}
	for _, v := range s.vars {
		if own[v.Name] {
			continue
		}
		if t := s.tables[v.Name]; t != nil {
			v = t
		}
		env.Declare(v)
		if v.Const && v.Init != nil {
			env.Set(v.Name, Eval(v.Init, env))
		}
	}
	for name, v := range vals {
		if !own[name] {
			env.Set(name, passed(v))
		}
	}
	for name, sh := range shapes {
		if !own[name] {
			sh.origin = max(sh.origin, Passed)
			env.setShape(name, sh)
		}
	}
}

// declaredIn returns the names a procedure declares: its parameters and
// local variables.
func declaredIn(f *ir.Func) scopes {
	out := declaredNames(f.Body)
	for _, p := range f.Params {
		out[p.Name] = true
	}
	return out
}

// assignedNames returns the variables a block assigns as a whole or in
// part, reads into, or uses as loop or result variables.
func assignedNames(blk ir.Block) scopes {
	out := scopes{}
	visitStmts(blk, func(s ir.Stmt) { stores(s, out) })
	delete(out, "")
	return out
}

// stores adds to out the variables the statement s itself assigns as a
// whole or in part, reads into, or uses as loop or result variable (not
// those its calls may change through their arguments).
func stores(s ir.Stmt, out map[string]bool) {
	switch s := s.(type) {
	case *ir.Assign:
		out[s.Target] = true
	case *ir.Loop:
		out[s.Var] = true
	case *ir.Call:
		out[s.Result] = true
	case *ir.FortranIO:
		if s.Op == "read" {
			for _, it := range s.Items {
				out[baseName(it)] = true
			}
		}
	}
}

// namesIn returns every name a procedure's statements refer to.
func namesIn(f *ir.Func) scopes {
	out := scopes{}
	collect := func(x ir.Expr) {
		ir.Any(x, func(y ir.Expr) bool {
			switch y := y.(type) {
			case ir.Ref:
				out[y.Name] = true
			case ir.ImpliedDo:
				out[y.Var] = true
			}
			return false
		})
	}
	visitStmts(f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Decl:
			for _, d := range s.Var.Type.Dims {
				collect(d)
			}
			collect(s.Var.Init)
		case *ir.Assign:
			out[s.Target] = true
			collect(s.Value)
		case *ir.Call:
			out[s.Result] = true
			collect(s.Receiver)
			for _, a := range s.Args {
				collect(a)
			}
		case *ir.Loop:
			out[s.Var] = true
			collect(s.Lo)
			collect(s.Hi)
			collect(s.Step)
			collect(s.Cond)
		case *ir.If:
			collect(s.Cond)
		case *ir.Switch:
			collect(s.Tag)
		case *ir.Return:
			collect(s.Value)
		case *ir.FortranIO:
			collect(s.Unit)
			for _, x := range s.Specs {
				collect(x)
			}
			for _, x := range s.Items {
				collect(x)
			}
		}
	})
	for _, p := range f.Params {
		for _, d := range p.Type.Dims {
			collect(d)
		}
	}
	delete(out, "")
	return out
}
