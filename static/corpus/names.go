package corpus

import (
	"slices"
	"strconv"
	"strings"
)

// SourceName returns the name a function has in the source of a program
// in language lang, given its symbol: GCC clone suffixes (".constprop.0",
// ".isra.0", ".part.0", ".cold") are dropped; for Fortran, a module
// procedure "__mod_MOD_name" becomes "name" and an external procedure
// "name_" becomes "name" (the main program stays "MAIN__"); for C++, a
// mangled name becomes its qualified name without parameters
// ("_ZN5Table4saveERKSs" → "Table::save", anonymous namespaces left out;
// names it cannot read are kept).
func SourceName(lang, symbol string) string {
	name := symbol
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	switch lang {
	case LangFortran:
		if _, proc, ok := strings.Cut(name, "_MOD_"); ok && strings.HasPrefix(name, "__") {
			return proc
		}
		if name != "MAIN__" && len(name) > 1 && strings.HasSuffix(name, "_") && !strings.HasSuffix(name, "__") {
			return strings.TrimSuffix(name, "_")
		}
	case LangCXX:
		if q, ok := demangleName(name); ok {
			return q
		}
	}
	return name
}

// demangleName reads the qualified name of an Itanium-mangled function
// symbol: "_Z" followed by a source name, or "N" [qualifiers] source
// names (template arguments skipped) "E", where a constructor (C1, C2, C3) or destructor (D0, D1, D2)
// code names the enclosing class.
func demangleName(sym string) (string, bool) {
	s, ok := strings.CutPrefix(sym, "_Z")
	if !ok {
		return "", false
	}
	s = strings.TrimPrefix(s, "L") // internal linkage: a static function
	nested := strings.HasPrefix(s, "N")
	if nested {
		s = strings.TrimLeft(s[1:], "rVK")
	}
	var parts []string
	for s != "" {
		switch {
		case s[0] >= '0' && s[0] <= '9':
			n := 0
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			l, err := strconv.Atoi(s[:n])
			if err != nil || n+l > len(s) {
				return "", false
			}
			parts = append(parts, s[n:n+l])
			s = s[n+l:]
		case nested && len(s) >= 2 && (s[0] == 'C' || s[0] == 'D') && s[1] >= '0' && s[1] <= '9' && len(parts) > 0:
			class := parts[len(parts)-1]
			if s[0] == 'D' {
				class = "~" + class
			}
			parts = append(parts, class)
			s = s[2:]
		case nested && s[0] == 'I': // template arguments: skipped
			rest, ok := skipTemplateArgs(s)
			if !ok {
				return "", false
			}
			s = rest
		case nested && s[0] == 'E':
			s = ""
		case strings.HasPrefix(s, "St"):
			parts = append(parts, "std")
			s = s[2:]
		default:
			if nested || len(parts) == 0 {
				return "", false
			}
			s = "" // the parameter types follow
		}
		if !nested && len(parts) > 0 && parts[len(parts)-1] != "std" {
			break
		}
	}
	// Anonymous namespaces ("_GLOBAL__N_1") are not part of a name in
	// the source.
	parts = slices.DeleteFunc(parts, func(p string) bool { return strings.HasPrefix(p, "_GLOBAL__N_") })
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "::"), true
}

// skipTemplateArgs returns s after the template argument list "I...E" it
// starts with (nested lists and source names, whose letters could be read
// as codes, are skipped whole).
func skipTemplateArgs(s string) (string, bool) {
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 'S' && i+1 < len(s) && (s[i+1] == '_' || s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] >= 'A' && s[i+1] <= 'Z'):
			// A substitution, "S_" or "S<seq-id>_": its digits are no
			// length.
			j := strings.IndexByte(s[i:], '_')
			if j < 0 {
				return "", false
			}
			i += j + 1
			continue
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			l, err := strconv.Atoi(s[i:j])
			if err != nil || j+l > len(s) {
				return "", false
			}
			i = j + l
			continue
		case c == 'I' || c == 'N' || c == 'L':
			depth++
		case c == 'E':
			depth--
		}
		i++
		if depth == 0 {
			return s[i:], true
		}
	}
	return "", false
}
