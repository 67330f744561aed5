package fix

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// site is a statement located in the IR with what encloses it.
type site struct {
	file  *ir.File
	fn    *ir.Func
	stmt  ir.Stmt
	path  []ir.Stmt // enclosing loops, ifs and switches, outermost first
	block ir.Block  // the statements of the innermost block holding stmt
	index int       // stmt's index in block
}

// innerLoop returns the innermost loop around the site, or nil.
func (s site) innerLoop() *ir.Loop {
	for i := len(s.path) - 1; i >= 0; i-- {
		if l, ok := s.path[i].(*ir.Loop); ok {
			return l
		}
	}
	return nil
}

// sameName compares names of routines and variables: exactly, or without
// case in Fortran.
func sameName(lang ir.Lang, a, b string) bool {
	if lang == ir.Fortran {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// isCall returns a matcher of the calls of routine (C++: also with a std::
// qualifier).
func isCall(lang ir.Lang, routine string) func(ir.Stmt) bool {
	return func(st ir.Stmt) bool {
		c, ok := st.(*ir.Call)
		return ok && (sameName(lang, c.Callee, routine) || c.Callee == "std::"+routine)
	}
}

// find returns the statements of the function holding line of file that
// match, in source order.
func (f *fixer) find(file string, line int, match func(ir.Stmt) bool) []site {
	var out []site
	for _, fl := range f.prog.Files {
		if fl.Path != file {
			continue
		}
		for _, fn := range fl.Funcs {
			if line >= fn.Pos.Line && line <= fn.EndLine {
				walk(fn.Body, nil, func(s site) {
					if match(s.stmt) {
						s.file, s.fn = fl, fn
						out = append(out, s)
					}
				})
			}
		}
	}
	return out
}

// findAt returns the one statement on line that matches.
func (f *fixer) findAt(file string, line int, match func(ir.Stmt) bool) (site, bool) {
	var at []site
	for _, s := range f.find(file, line, match) {
		if s.stmt.Position().Line == line {
			at = append(at, s)
		}
	}
	if len(at) != 1 {
		return site{}, false
	}
	return at[0], true
}

// walk visits every statement of b and of the blocks nested in it.
func walk(b ir.Block, path []ir.Stmt, visit func(site)) {
	for i, st := range b {
		visit(site{stmt: st, path: path, block: b, index: i})
		inner := append(path[:len(path):len(path)], st)
		switch st := st.(type) {
		case *ir.Loop:
			walk(st.Body, inner, visit)
		case *ir.If:
			walk(st.Then, inner, visit)
			walk(st.Else, inner, visit)
		case *ir.Switch:
			for _, c := range st.Cases {
				walk(c, inner, visit)
			}
		}
	}
}

// refs calls fn for every variable name an expression reads.
func refs(e ir.Expr, fn func(string)) {
	switch e := e.(type) {
	case ir.Ref:
		fn(e.Name)
	case ir.Index:
		refs(e.X, fn)
		for _, x := range e.Idx {
			refs(x, fn)
		}
	case ir.Field:
		refs(e.X, fn)
	case ir.Unary:
		refs(e.X, fn)
	case ir.Binary:
		refs(e.L, fn)
		refs(e.R, fn)
	case ir.Cond:
		refs(e.C, fn)
		refs(e.T, fn)
		refs(e.F, fn)
	case ir.CallExpr:
		for _, x := range e.Args {
			refs(x, fn)
		}
	case ir.SizeOf:
		refs(e.X, fn)
	case ir.Cast:
		refs(e.X, fn)
	case ir.ImpliedDo:
		for _, x := range e.Items {
			refs(x, fn)
		}
	case ir.Unknown:
		for _, w := range strings.FieldsFunc(e.Text, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			fn(w)
		}
	}
}

// mentions tells whether e reads a name for which in returns true.
func mentions(e ir.Expr, in func(string) bool) bool {
	found := false
	refs(e, func(n string) { found = found || in(n) })
	return found
}

// refName returns the variable an argument names: x, or &x when addr.
func refName(e ir.Expr, addr bool) (string, bool) {
	if addr {
		u, ok := e.(ir.Unary)
		if !ok || u.Op != "&" {
			return "", false
		}
		e = u.X
	}
	r, ok := e.(ir.Ref)
	return r.Name, ok
}

// declaredIn tells whether b declares name (or counts a loop with it).
func declaredIn(b ir.Block, name string) bool {
	found := false
	walk(b, nil, func(s site) {
		switch st := s.stmt.(type) {
		case *ir.Decl:
			found = found || st.Var.Name == name
		case *ir.Loop:
			found = found || st.Var == name
		}
	})
	return found
}

// leaves tells whether a block ends by leaving the function or the
// program (return, exit, goto, stop).
func leaves(b ir.Block) bool {
	if len(b) == 0 {
		return false
	}
	switch st := b[len(b)-1].(type) {
	case *ir.Return:
		return true
	case *ir.Jump:
		return st.Kind == "exit" || st.Kind == "goto" || st.Kind == "stop"
	case *ir.Call:
		switch st.Callee {
		case "exit", "abort", "_exit", "MPI_Abort":
			return true
		}
	}
	return false
}

// funcByName returns the program's function of that name.
func (f *fixer) funcByName(name string) (*ir.File, *ir.Func) {
	for _, fl := range f.prog.Files {
		for _, fn := range fl.Funcs {
			if sameName(fl.Lang, fn.Name, name) {
				return fl, fn
			}
		}
	}
	return nil, nil
}

// calls returns every call in the program matching.
func (f *fixer) calls(match func(*ir.File, *ir.Call) bool) []site {
	var out []site
	for _, fl := range f.prog.Files {
		for _, fn := range fl.Funcs {
			walk(fn.Body, nil, func(s site) {
				if c, ok := s.stmt.(*ir.Call); ok && match(fl, c) {
					s.file, s.fn = fl, fn
					out = append(out, s)
				}
			})
		}
	}
	return out
}
