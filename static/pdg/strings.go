package pdg

import (
	"fmt"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// Wildcard stands for the part of a built string the analysis cannot
// know: "out/step_*.dat" is the name of every file "%s/step_%04d.dat"
// makes from a known directory and an unknown step.
const Wildcard = "*"

// stringCall gives the character buffer a string routine fills its value:
// sprintf and snprintf format their arguments into it, strcpy, strncpy
// and strcat copy or append, and a std::string's c_str or data is the
// string itself. Unknown parts of a formatted string become Wildcard.
// It reports false when c is none of those.
func (w *walker) stringCall(c *ir.Call) (Value, bool) {
	args := make([]Value, len(c.Args))
	for i, a := range c.Args {
		args[i] = Eval(a, w.env)
	}
	var dst string
	var v Value
	switch strings.TrimPrefix(c.Callee, "std::") {
	case "sprintf", "snprintf":
		f := 1
		if c.Callee != "sprintf" && c.Callee != "std::sprintf" {
			f = 2
		}
		if len(args) <= f || args[f].Kind != Str {
			return Value{}, false
		}
		dst, v = baseName(c.Args[0]), formatValue(args[f], args[f+1:])
	case "strcpy", "strncpy":
		if len(args) < 2 {
			return Value{}, false
		}
		dst, v = baseName(c.Args[0]), args[1]
	case "strcat":
		if len(args) < 2 {
			return Value{}, false
		}
		dst, v = baseName(c.Args[0]), binary("+", args[0], args[1])
	case "c_str", "data":
		if c.Receiver == nil {
			return Value{}, false
		}
		return Eval(c.Receiver, w.env), true
	default:
		return Value{}, false
	}
	if v.Kind != Str {
		v = Value{}
	} else {
		w.fill(dst)
	}
	w.env.Set(dst, v)
	return Value{}, true
}

// formatValue formats args by the printf format f, with Wildcard for the
// conversions whose argument is not known.
func formatValue(f Value, args []Value) Value {
	var b strings.Builder
	s := f.S
	o := f.Origin
	for len(s) > 0 {
		i := strings.IndexByte(s, '%')
		if i < 0 || i == len(s)-1 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := i + 1
		for j < len(s) && strings.IndexByte("-+ #0123456789.*hlLqjzt", s[j]) >= 0 {
			j++
		}
		if j == len(s) {
			break
		}
		spec, conv := s[i:j], s[j]
		s = s[j+1:]
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if strings.Contains(spec, "*") || len(args) == 0 {
			b.WriteString(Wildcard)
			continue
		}
		a := args[0]
		args = args[1:]
		o = max(o, a.Origin)
		b.WriteString(formatOne(strings.TrimRight(spec, "hlLqjzt"), conv, a))
	}
	return builtStr(b.String(), o)
}

// formatOne formats one argument by a conversion spec (flags, width and
// precision, without length modifiers) and character, or returns
// Wildcard.
func formatOne(spec string, conv byte, a Value) string {
	switch conv {
	case 's':
		if a.Kind == Str {
			return fmt.Sprintf(spec+"s", a.S)
		}
	case 'd', 'i', 'u':
		if a.Kind == Int {
			return fmt.Sprintf(spec+"d", a.I)
		}
	case 'x', 'X', 'o':
		if a.Kind == Int {
			return fmt.Sprintf(spec+string(conv), a.I)
		}
	case 'f', 'e', 'g', 'E', 'G':
		if f, ok := a.Float(); ok {
			return fmt.Sprintf(spec+string(conv), f)
		}
	case 'c':
		if a.Kind == Int {
			return string(rune(a.I))
		}
	}
	return Wildcard
}

// internalName gives the character variable a Fortran internal WRITE
// fills the concatenation of its items: the known strings and numbers as
// written, Wildcard for the rest. Edit descriptors are not applied, so a
// name built the same way in two places ("write (fname, '(a,i4.4,a)')
// trim(dir)//'/snap_', k, '.dat'") is the same string in both.
func (w *walker) internalName(s *ir.FortranIO) {
	var b strings.Builder
	o := Literal
	for _, it := range s.Items {
		v := Eval(it, w.env)
		o = max(o, v.Origin)
		switch v.Kind {
		case Str:
			b.WriteString(v.S)
		case Int:
			fmt.Fprintf(&b, "%d", v.I)
		default:
			b.WriteString(Wildcard)
		}
	}
	w.env.Set(baseName(s.Unit), builtStr(b.String(), o))
}
