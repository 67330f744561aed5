package tune

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Param is a tunable parameter: a name, how its value is applied to a run,
// and the values to try.
type Param struct {
	// Name names the parameter in configurations, constraints and on the
	// command line (--set NAME=VALUE). It is an identifier: a letter or
	// '_' followed by letters, digits and '_'.
	Name string
	// Kind is how the value is applied.
	Kind Kind
	// Key is what the value is applied to: the hint name (MPIIOHint), the
	// property (HDF5, one of HDF5Keys), "buffer_size" (Stdio), the
	// variable name (Env) or the placeholder name (Arg). Empty means Name;
	// an HDF5 parameter named "h5_" followed by a property name defaults
	// to that property.
	Key string
	// Values are the values to try, in their canonical form once the
	// parameter is part of a Space (see Parse).
	Values []string
	// Default is the value of the default configuration, the one that
	// does what the run does without tuning; empty means Values[0].
	Default string
	// Doc describes the parameter in one line.
	Doc string
}

// isIdent reports whether s is an identifier of a constraint expression.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// isBoolean reports whether the parameter takes booleans.
func (p Param) isBoolean() bool {
	return p.Kind == HDF5 && (p.Key == "coll_metadata_read" || p.Key == "coll_metadata_write")
}

// isInteger reports whether the parameter's numbers must be non-negative
// integers (sizes, counts).
func (p Param) isInteger() bool {
	switch p.Kind {
	case HDF5, Stdio, Ranks, MPIIOHint:
		return true
	}
	return false
}

// verbatim reports whether the parameter's values are passed on as
// written (environment variables and arguments, which the application
// parses itself), rather than in canonical form.
func (p Param) verbatim() bool { return p.Kind == Env || p.Kind == Arg }

// numeric reports whether every value of the parameter is a number.
func (p Param) numeric() bool {
	for _, v := range p.Values {
		if _, ok := ParseNumber(v); !ok {
			return false
		}
	}
	return len(p.Values) > 0
}

// words returns the values of the parameter that are not numbers.
func (p Param) words() []string {
	var w []string
	for _, v := range p.Values {
		if _, ok := ParseNumber(v); !ok {
			w = append(w, v)
		}
	}
	return w
}

// Parse validates a value of the parameter given by hand and returns its
// canonical form: one of the parameter's words (case-insensitive, spelled
// as in Values), "true" or "false" for a boolean, or a number with an
// optional K, M, G or T suffix for a numeric parameter, as plain bytes
// ("1M" -> "1048576"). A number need not be one of Values. Values of
// environment variables and arguments are returned as written, since the
// application parses them.
func (p Param) Parse(value string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", fmt.Errorf("parameter %s: empty value", p.Name)
	}
	if p.isBoolean() {
		b, ok := parseBool(v)
		if !ok {
			return "", fmt.Errorf("parameter %s: %q is not a boolean (want true or false)", p.Name, value)
		}
		if b {
			return "true", nil
		}
		return "false", nil
	}
	for _, w := range p.words() {
		if strings.EqualFold(w, v) {
			return w, nil
		}
	}
	n, isNum := ParseNumber(v)
	words := p.words()
	if !isNum {
		if len(words) > 0 {
			return "", fmt.Errorf("parameter %s: %q is not one of %s", p.Name, value, strings.Join(words, ", "))
		}
		if p.verbatim() && len(p.Values) == 0 {
			return v, nil
		}
		return "", fmt.Errorf("parameter %s: %q is not a number", p.Name, value)
	}
	if len(words) == len(p.Values) && len(words) > 0 {
		return "", fmt.Errorf("parameter %s: %q is not one of %s", p.Name, value, strings.Join(words, ", "))
	}
	if p.verbatim() {
		for _, w := range p.Values {
			if m, ok := ParseNumber(w); ok && m == n {
				return w, nil
			}
		}
		return v, nil
	}
	if p.isInteger() {
		if n != math.Trunc(n) || n < 0 || n > 1<<62 {
			return "", fmt.Errorf("parameter %s: %q is not a non-negative integer", p.Name, value)
		}
		if p.Kind == Ranks && n < 1 {
			return "", fmt.Errorf("parameter %s: %q: the number of ranks must be at least 1", p.Name, value)
		}
	}
	return formatNumber(n), nil
}

// Int returns the integer a value of the parameter applies: a number
// (with an optional K, M, G or T suffix) that is an integer, or 1 and 0
// for a boolean (true/false, enable/disable, yes/no, on/off).
func (p Param) Int(value string) (int64, error) {
	if n, ok := ParseNumber(value); ok {
		if n != math.Trunc(n) || math.Abs(n) > 1<<62 {
			return 0, fmt.Errorf("parameter %s: %q is not an integer", p.Name, value)
		}
		return int64(n), nil
	}
	if b, ok := parseBool(value); ok {
		if b {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("parameter %s: %q is neither an integer nor a boolean", p.Name, value)
}

// index returns the position of value in Values: exactly, or
// case-insensitively for words, or by numeric value for numbers.
func (p Param) index(value string) int {
	if i := slices.Index(p.Values, value); i >= 0 {
		return i
	}
	n, isNum := ParseNumber(value)
	for i, w := range p.Values {
		if m, ok := ParseNumber(w); ok {
			if isNum && m == n {
				return i
			}
		} else if strings.EqualFold(w, value) {
			return i
		}
	}
	if p.isBoolean() {
		if b, ok := parseBool(value); ok {
			for i, w := range p.Values {
				if c, ok := parseBool(w); ok && c == b {
					return i
				}
			}
		}
	}
	return -1
}

// Encode returns the numeric encoding of a value for the model: the
// number itself for a positive number, else (words such as "enable",
// booleans, and numbers <= 0) the value's 1-based position in Values. ok is false for a
// value that is neither a positive number nor one of Values.
func (p Param) Encode(value string) (x float64, ok bool) {
	if p.isBoolean() {
		// "1" is true, which is not the first value.
		if i := p.index(value); i >= 0 {
			return float64(i + 1), true
		}
		return math.NaN(), false
	}
	if n, isNum := ParseNumber(value); isNum && n > 0 {
		return n, true
	}
	if i := p.index(value); i >= 0 {
		return float64(i + 1), true
	}
	return math.NaN(), false
}

// DefaultValue returns the value of the default configuration: Default, or
// the first value.
func (p Param) DefaultValue() string {
	if p.Default != "" || len(p.Values) == 0 {
		return p.Default
	}
	return p.Values[0]
}

// normalize checks the parameter and returns it with its Key defaulted
// and its values and default in canonical form.
func (p Param) normalize() (Param, error) {
	if !isIdent(p.Name) {
		if p.Name == "" {
			return p, errors.New("missing name")
		}
		return p, fmt.Errorf("name %q is not an identifier (letters, digits and '_', not starting with a digit)", p.Name)
	}
	if !p.Kind.valid() {
		return p, fmt.Errorf("parameter %s: no kind", p.Name)
	}
	q := p
	q.Values = nil
	if q.Key == "" {
		q.Key = p.Name
		switch p.Kind {
		case HDF5:
			if k, ok := strings.CutPrefix(p.Name, "h5_"); ok && slices.Contains(hdf5Keys, k) {
				q.Key = k
			}
		case Stdio:
			q.Key = StdioBufferKey
		}
	}
	switch p.Kind {
	case HDF5:
		if !slices.Contains(hdf5Keys, q.Key) {
			return p, fmt.Errorf("parameter %s: unknown HDF5 property %q (known: %s)", p.Name, q.Key, strings.Join(hdf5Keys, ", "))
		}
	case Stdio:
		if q.Key != StdioBufferKey {
			return p, fmt.Errorf("parameter %s: unknown stdio property %q (known: %s)", p.Name, q.Key, StdioBufferKey)
		}
	case MPIIOHint:
		if strings.ContainsAny(q.Key, ";= \t\n\x00") {
			return p, fmt.Errorf("parameter %s: hint name %q holds a space, ';' or '='", p.Name, q.Key)
		}
	case Env:
		if strings.ContainsAny(q.Key, "=\x00") {
			return p, fmt.Errorf("parameter %s: variable name %q holds '=' or NUL", p.Name, q.Key)
		}
	case Arg:
		if strings.ContainsAny(q.Key, "{}") {
			return p, fmt.Errorf("parameter %s: placeholder name %q holds a brace", p.Name, q.Key)
		}
	}
	if len(p.Values) == 0 {
		return p, fmt.Errorf("parameter %s: empty value list", p.Name)
	}
	// Words are checked against the words of the list itself: canonical
	// forms need to know them.
	check := q
	check.Values = p.Values
	for _, v := range p.Values {
		c, err := check.canonical(v)
		if err != nil {
			return p, err
		}
		if i := slices.Index(q.Values, c); i >= 0 {
			return p, fmt.Errorf("parameter %s: value %q is given twice (as %q)", p.Name, v, q.Values[i])
		}
		q.Values = append(q.Values, c)
	}
	if p.Default != "" {
		i := q.index(strings.TrimSpace(p.Default))
		if i < 0 {
			return p, fmt.Errorf("parameter %s: default %q is not one of the values (%s)", p.Name, p.Default, strings.Join(q.Values, ", "))
		}
		q.Default = q.Values[i]
	}
	return q, nil
}

// canonical returns the canonical form of a value of the list.
func (p Param) canonical(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("parameter %s: empty value", p.Name)
	}
	switch {
	case p.Kind == MPIIOHint && strings.ContainsAny(v, ";=\x00"):
		return "", fmt.Errorf("parameter %s: value %q holds ';' or '='", p.Name, v)
	case p.Kind == Env && strings.ContainsRune(v, 0):
		return "", fmt.Errorf("parameter %s: value %q holds NUL", p.Name, v)
	}
	if _, isNum := ParseNumber(v); !isNum && !p.isBoolean() {
		if p.Kind == HDF5 || p.Kind == Stdio || p.Kind == Ranks {
			return "", fmt.Errorf("parameter %s: value %q is not a number", p.Name, v)
		}
		return v, nil
	}
	if p.verbatim() {
		return v, nil
	}
	return p.Parse(v)
}
