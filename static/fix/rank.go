package fix

import (
	"fmt"

	"github.com/iolens/iolens/static/ir"
)

// rankNames returns the variables whose value may depend on the MPI rank:
// those MPI_Comm_rank sets, and every variable assigned from them, in any
// function (names are not told apart by scope: more names, never fewer).
func (f *fixer) rankNames() map[string]bool {
	if f.ranked != nil {
		return f.ranked
	}
	t := map[string]bool{}
	for _, s := range f.calls(func(fl *ir.File, c *ir.Call) bool { return sameName(fl.Lang, c.Callee, "MPI_Comm_rank") }) {
		c := s.stmt.(*ir.Call)
		if len(c.Args) < 2 {
			continue
		}
		if n, ok := refName(c.Args[1], s.file.Lang != ir.Fortran); ok {
			t[n] = true
		}
	}
	in := func(n string) bool { return t[n] }
	for changed := true; changed; {
		changed = false
		mark := func(n string) {
			if n != "" && !t[n] {
				t[n], changed = true, true
			}
		}
		for _, fl := range f.prog.Files {
			for _, fn := range fl.Funcs {
				walk(fn.Body, nil, func(s site) {
					switch st := s.stmt.(type) {
					case *ir.Decl:
						if st.Var.Init != nil && mentions(st.Var.Init, in) {
							mark(st.Var.Name)
						}
					case *ir.Assign:
						if mentions(st.Value, in) {
							mark(st.Target)
						}
					case *ir.Call:
						f.taintCall(st, in, mark)
					}
				})
			}
		}
	}
	f.ranked = t
	return t
}

// taintCall marks what a call with rank-dependent arguments may make
// rank-dependent: its result, the variables passed by address, and the
// parameters of a program function that receive them.
func (f *fixer) taintCall(c *ir.Call, in func(string) bool, mark func(string)) {
	tainted := false
	for _, a := range c.Args {
		tainted = tainted || mentions(a, in)
	}
	if !tainted {
		return
	}
	mark(c.Result)
	for _, a := range c.Args {
		if n, ok := refName(a, true); ok {
			mark(n)
		}
	}
	if _, fn := f.funcByName(c.Callee); fn != nil {
		for i, a := range c.Args {
			if i < len(fn.Params) && mentions(a, in) {
				mark(fn.Params[i].Name)
			}
		}
	}
}

// rankDependent explains why the statement at s may not run the same
// number of times on every process: a condition or loop bound around it,
// or an early exit in its function, that depends on the rank; the same
// holds for every call of its function. It returns "" when none is found.
func (f *fixer) rankDependent(s site, seen map[*ir.Func]bool) string {
	t := f.rankNames()
	in := func(n string) bool { return t[n] }
	for _, st := range s.path {
		var conds []ir.Expr
		switch st := st.(type) {
		case *ir.If:
			conds = []ir.Expr{st.Cond}
		case *ir.Switch:
			conds = []ir.Expr{st.Tag}
		case *ir.Loop:
			conds = []ir.Expr{st.Lo, st.Hi, st.Step, st.Cond}
		}
		for _, c := range conds {
			if c != nil && mentions(c, in) {
				return fmt.Sprintf("it runs under a condition that depends on the MPI rank (line %d)", st.Position().Line)
			}
		}
	}
	if why := earlyExit(s.fn, in); why != "" {
		return why
	}
	if seen[s.fn] {
		return ""
	}
	seen[s.fn] = true
	for _, c := range f.calls(func(fl *ir.File, c *ir.Call) bool { return sameName(fl.Lang, c.Callee, s.fn.Name) }) {
		if why := f.rankDependent(c, seen); why != "" {
			return why
		}
	}
	return ""
}

// earlyExit finds a return, break, continue, goto or exit under a
// rank-dependent condition in fn.
func earlyExit(fn *ir.Func, in func(string) bool) string {
	why := ""
	walk(fn.Body, nil, func(s site) {
		switch s.stmt.(type) {
		case *ir.Return, *ir.Jump:
		default:
			return
		}
		for _, p := range s.path {
			var c ir.Expr
			switch p := p.(type) {
			case *ir.If:
				c = p.Cond
			case *ir.Switch:
				c = p.Tag
			}
			if c != nil && mentions(c, in) && why == "" {
				why = fmt.Sprintf("a rank-dependent condition (line %d) leaves the function or loop early", p.Position().Line)
			}
		}
	})
	return why
}
