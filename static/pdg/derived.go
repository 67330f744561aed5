package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// maxTypeDepth bounds the nesting of derived types followed for a size
// (a type may hold an allocatable component of its own type).
const maxTypeDepth = 4

// derivedName returns the lower-case name of the Fortran derived type of
// t ("type(month_rec)" and "class(month_rec)" give "month_rec"), or "".
func derivedName(t ir.Type) string {
	n := strings.ToLower(strings.TrimSpace(t.Name))
	for _, prefix := range []string{"type(", "class("} {
		if rest, ok := strings.CutPrefix(n, prefix); ok {
			return strings.TrimSpace(strings.TrimSuffix(rest, ")"))
		}
	}
	return ""
}

// elemSize returns the size of one element of t: its base size, or for a
// Fortran derived type the sum of its components' sizes, which is what an
// unformatted transfer of it moves (the components one after the other,
// without padding).
func (e *Env) elemSize(t ir.Type) (int64, bool) {
	if name := derivedName(t); name != "" && t.Pointer == 0 {
		size, _, ok := e.derivedTransfer(name, false, 0)
		return size, ok
	}
	return baseSize(t)
}

// derivedTransfer returns what a transfer of one value of the derived
// type name moves: its bytes, or when formatted its estimated characters
// (iosem.TextWidth per component element), and the number of scalar
// items. ok is false when the type is unknown or a component's size is
// (an allocatable array, an extent that does not evaluate).
func (e *Env) derivedTransfer(name string, formatted bool, depth int) (size, items int64, ok bool) {
	comps, known := e.shared.types[name]
	if !known || depth > maxTypeDepth {
		return 0, 0, false
	}
	for _, c := range comps {
		n, ok := e.count(c.Type.Dims)
		if !ok {
			return 0, 0, false
		}
		var one, k int64
		if inner := derivedName(c.Type); inner != "" && c.Type.Pointer == 0 {
			one, k, ok = e.derivedTransfer(inner, formatted, depth+1)
		} else {
			t := c.Type
			t.Dims = nil
			one, ok = baseSize(t)
			k = 1
			if formatted {
				one = iosem.TextWidth(t.Name, one)
			}
		}
		if !ok {
			return 0, 0, false
		}
		size += n * one
		items += n * k
	}
	return size, items, true
}

// component returns the declaration of the derived-type component that
// the designator x names (r%tday, recs(i)%tday, a%b%c), or nil.
func (e *Env) component(x ir.Field) *ir.Var {
	var owner *ir.Var
	switch y := x.X.(type) {
	case ir.Ref:
		owner = e.Var(y.Name)
	case ir.Field:
		owner = e.component(y)
	case ir.Index:
		switch z := y.X.(type) {
		case ir.Ref:
			owner = e.Var(z.Name)
		case ir.Field:
			owner = e.component(z)
		}
	}
	if owner == nil {
		return nil
	}
	for _, c := range e.shared.types[derivedName(owner.Type)] {
		if c.Name == strings.ToLower(x.Name) {
			return c
		}
	}
	return nil
}
