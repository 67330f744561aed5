package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// Global variables whose value analyseGlobals cannot fix for the whole
// program (a Fortran module's nx, set by a setup routine and read by a
// namelist; a C global set in main) are followed in the order of the
// walk, like local variables: a function sees the values its caller's
// environment holds of the globals it uses (they are part of its calling
// context), and its caller, after the call, the values it leaves in those
// it assigns.

// globalUse is what a function and the functions it calls do with the
// program's followed globals.
type globalUse struct {
	reads, writes scopes
}

// followed reports whether the global variable name is followed through
// the walk: a non-constant global without a program-wide value, that the
// program never updates from its own value (a generator's state, a
// counter: one value for the walk would stand for all of them).
func (s *shared) followed(name string) bool {
	g := s.globalVars[name]
	if g == nil || g.Const || s.evolving[name] {
		return false
	}
	_, fixed := s.globals[name]
	return !fixed
}

// globalUses returns the followed globals d and its callees read and
// assign (names d declares itself excluded).
func (b *builder) globalUses(d funcDef) globalUse {
	if u, ok := b.globalUseCache[d.f]; ok {
		return u
	}
	u := globalUse{reads: scopes{}, writes: scopes{}}
	b.globalUseCache[d.f] = u // a recursive call adds nothing new
	s := b.sharedOf(d.file)
	own := declaredIn(d.f)
	group := func(x ir.Expr) []string {
		if r, ok := x.(ir.Ref); ok {
			return d.file.Namelists[strings.ToLower(r.Name)]
		}
		return nil
	}
	for name := range namesIn(d.f) {
		if !own[name] && s.followed(name) {
			u.reads[name] = true
		}
	}
	written := scopes{}
	var callees []string
	visitStmts(d.f.Body, func(st ir.Stmt) {
		stores(st, written)
		switch st := st.(type) {
		case *ir.Call:
			callees = append(callees, st.Callee)
			for _, a := range st.Args {
				if name := addressed(a, d.file.Lang); name != "" {
					written[name] = true
				}
				callees = append(callees, calledIn(a)...)
			}
		case *ir.Assign:
			callees = append(callees, calledIn(st.Value)...)
		case *ir.FortranIO:
			for _, name := range group(st.Specs["nml"]) {
				u.reads[name] = u.reads[name] || !own[name] && s.followed(name)
				written[name] = written[name] || st.Op == "read"
			}
		}
	})
	for name := range written {
		if !own[name] && s.followed(name) {
			u.writes[name] = true
		}
	}
	for _, name := range callees {
		for _, c := range b.funcs[name] {
			cu := b.globalUses(c)
			for n := range cu.reads {
				u.reads[n] = true
			}
			for n := range cu.writes {
				u.writes[n] = true
			}
		}
	}
	for n := range u.writes {
		u.reads[n] = true // a global assigned on one path keeps its value on the other
	}
	return u
}

// calledIn returns the functions expression x calls.
func calledIn(x ir.Expr) []string {
	var out []string
	ir.Any(x, func(y ir.Expr) bool {
		if c, ok := y.(ir.CallExpr); ok {
			out = append(out, c.Callee)
		}
		return false
	})
	return out
}

// initialGlobals returns the values the followed globals with an
// initialiser hold when the program starts.
func (b *builder) initialGlobals() map[string]Value {
	var out map[string]Value
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		s := b.sharedOf(file)
		for _, g := range file.Globals {
			if g.Init == nil || s.globalVars[g.Name] != g || !s.followed(g.Name) {
				continue
			}
			v := Eval(g.Init, newEnv(s))
			if v.Kind != Int && v.Kind != Float {
				continue
			}
			if out == nil {
				out = map[string]Value{}
			}
			out[g.Name] = v
		}
	}
	return out
}

// globalsFor returns the values the caller's environment holds of the
// followed globals d uses, and the extents of those that are arrays; nil
// when none is known.
func (w *walker) globalsFor(d funcDef) (map[string]Value, map[string]shape) {
	var vals map[string]Value
	var shapes map[string]shape
	for name := range w.b.globalUses(d).reads {
		shapes = w.env.addAllocatedShape(shapes, name)
		v := Eval(ir.Ref{Name: name}, w.env)
		if v.Kind == Unknown || v.Kind == Sym {
			continue
		}
		if vals == nil {
			vals = map[string]Value{}
		}
		vals[name] = v
	}
	return vals, shapes
}

// globalsLeft returns the values the environment holds, at the end of
// the walk of d, of the followed globals d may assign, and the extents of
// those that are arrays of known extents.
func (w *walker) globalsLeft(d funcDef) (map[string]Value, map[string]shape) {
	vals := map[string]Value{}
	var shapes map[string]shape
	for name := range w.b.globalUses(d).writes {
		vals[name] = Eval(ir.Ref{Name: name}, w.env)
		shapes = w.env.addAllocatedShape(shapes, name)
	}
	return vals, shapes
}

// calleeGlobals gives the followed globals a call of d may assign the
// values and extents the callee left in them (target, nil for a call not
// followed: they are forgotten).
func (w *walker) calleeGlobals(d funcDef, target *Node) {
	for name := range w.b.globalUses(d).writes {
		var v Value
		if target != nil {
			v = target.globalsLeft[name]
		}
		w.env.Set(name, v)
		if s, ok := target.shapeLeft(name); ok {
			w.env.setShape(name, s)
		} else {
			w.env.forgetShape(name)
		}
	}
}

// shapeLeft returns the extents the instance n leaves in the followed
// global array name.
func (n *Node) shapeLeft(name string) (shape, bool) {
	if n == nil {
		return shape{}, false
	}
	s, ok := n.globalShapesLeft[name]
	return s, ok
}
