package fortran

import "github.com/iolens/iolens/static/ir"

// maxUseDepth bounds the chain of USE associations followed in lookups.
const maxUseDepth = 16

// A scope holds the names declared in a program unit. Lookups go through
// the unit's own declarations, then the modules it uses (those defined in
// the same file), then the host (for module and internal procedures).
type scope struct {
	parent   *scope
	vars     map[string]*ir.Var
	uses     []*scope
	external map[string]bool
	implicit *[26]ir.Type       // nil: the host's rules
	module   string             // module the unit belongs to, or ""
	kind     ir.FuncKind        // "" for a module
	dummies  map[string]*ir.Var // dummy arguments and function result
	result   *ir.Var            // the function result, nil for other units
}

func newScope(parent *scope) *scope {
	s := &scope{parent: parent, vars: map[string]*ir.Var{}}
	if parent != nil {
		s.module = parent.module
	}
	return s
}

// lookup returns the variable or constant name visible in s, or nil.
func (s *scope) lookup(name string) *ir.Var { return s.find(name, 0) }

func (s *scope) find(name string, depth int) *ir.Var {
	for ; s != nil; s = s.parent {
		if v := s.vars[name]; v != nil {
			return v
		}
		if depth < maxUseDepth {
			for _, m := range s.uses {
				if v := m.findOwn(name, depth+1); v != nil {
					return v
				}
			}
		}
	}
	return nil
}

// findOwn looks name up in s and the modules s uses, not in its host.
func (s *scope) findOwn(name string, depth int) *ir.Var {
	if v := s.vars[name]; v != nil {
		return v
	}
	if depth < maxUseDepth {
		for _, m := range s.uses {
			if v := m.findOwn(name, depth+1); v != nil {
				return v
			}
		}
	}
	return nil
}

// isExternal reports whether name was declared EXTERNAL in s or a host.
func (s *scope) isExternal(name string) bool {
	for ; s != nil; s = s.parent {
		if s.external[name] {
			return true
		}
	}
	return false
}

func (s *scope) markExternal(name string) {
	if s.external == nil {
		s.external = map[string]bool{}
	}
	s.external[name] = true
}

// implicitType returns the type an undeclared name gets: the IMPLICIT
// rules in force, by default INTEGER for names starting with i–n and REAL
// otherwise.
func (s *scope) implicitType(name string) ir.Type {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return ir.Type{Name: "real", Size: 4}
	}
	for t := s; t != nil; t = t.parent {
		if t.implicit != nil {
			if r := t.implicit[name[0]-'a']; r.Name != "" {
				return r
			}
			break
		}
	}
	if c := name[0]; c >= 'i' && c <= 'n' {
		return ir.Type{Name: "integer", Size: 4}
	}
	return ir.Type{Name: "real", Size: 4}
}

// setImplicit applies an IMPLICIT rule to the letters lo..hi.
func (s *scope) setImplicit(lo, hi byte, t ir.Type) {
	if s.implicit == nil {
		s.implicit = new([26]ir.Type)
	}
	for c := lo; c >= 'a' && c <= hi && c <= 'z'; c++ {
		s.implicit[c-'a'] = t
	}
}
