package pdg

import (
	"strconv"
)

// ValueKind tells what a Value holds.
type ValueKind int

// The kinds of values.
const (
	Unknown   ValueKind = iota // not known at compile time
	Int                        // an integer
	Float                      // a floating-point number
	Str                        // a string
	Sym                        // an identifier with no definition in the program: MPI_DOUBLE, O_WRONLY, NULL
	HandleVal                  // an open file, stream, dataset, dataspace or property list
	Argv                       // C's argv array
)

// Origin tells where a value comes from. Combining values keeps the
// highest origin, in the order below.
type Origin int

// The origins, from the most to the least static.
const (
	Literal    Origin = iota // written in the code
	Constant                 // a #define, enumerator, const variable or PARAMETER
	Propagated               // a variable assigned a constant
	// Passed is a value a call gives its callee: an actual argument bound
	// to a parameter (dummy argument), the extents of an array argument,
	// or a host's variable seen by a Fortran internal procedure. The value
	// itself came from literals, constants or propagation; one that came
	// from the program arguments stays Argument.
	Passed
	Argument // a program argument (Options.Args)
	// Bound is the known branch of a conditional whose condition is not
	// known, as in "m = n - i < CHUNK ? n - i : CHUNK": the bound a
	// chunked loop reaches on all but its last pass.
	Bound
)

// Value is the compile-time value of an expression.
type Value struct {
	Kind   ValueKind
	I      int64
	F      float64
	S      string // Str and Sym
	H      *Handle
	Origin Origin
	// Built marks a string the program assembles as it runs (sprintf,
	// strcat, concatenation, a Fortran internal WRITE), such as a path
	// made of a directory argument and a file name.
	Built bool
}

// IntValue returns an integer value.
func IntValue(i int64, o Origin) Value { return Value{Kind: Int, I: i, Origin: o} }

// FloatValue returns a floating-point value.
func FloatValue(f float64, o Origin) Value { return Value{Kind: Float, F: f, Origin: o} }

// StrValue returns a string value.
func StrValue(s string, o Origin) Value { return Value{Kind: Str, S: s, Origin: o} }

// builtStr returns a string the program assembles (see Value.Built).
func builtStr(s string, o Origin) Value {
	v := StrValue(s, o)
	v.Built = true
	return v
}

// Known reports whether v is a number.
func (v Value) Known() bool { return v.Kind == Int || v.Kind == Float }

// Int returns v as an integer (truncating floats), and false when v is not
// a number.
func (v Value) Int() (int64, bool) {
	switch v.Kind {
	case Int:
		return v.I, true
	case Float:
		return int64(v.F), true
	}
	return 0, false
}

// Float returns v as a float, and false when v is not a number.
func (v Value) Float() (float64, bool) {
	switch v.Kind {
	case Int:
		return float64(v.I), true
	case Float:
		return v.F, true
	}
	return 0, false
}

// equal reports whether v and w are the same value (origins aside).
func (v Value) equal(w Value) bool {
	return v.Kind == w.Kind && v.I == w.I && v.F == w.F && v.S == w.S && v.H == w.H
}

// key spells v for the calling context of a function instance; unknown
// values spell "?".
func (v Value) key() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Float:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case Str:
		return strconv.Quote(v.S)
	case Sym:
		return v.S
	case HandleVal:
		return "#" + strconv.Itoa(v.H.ID)
	case Argv:
		return "argv"
	}
	return "?"
}

// String spells v for people.
func (v Value) String() string { return v.key() }

// with returns v with origin at least o.
func (v Value) with(o Origin) Value {
	v.Origin = max(v.Origin, o)
	return v
}
