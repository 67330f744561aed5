package iosem

import (
	"strings"
	"sync"

	"github.com/iolens/iolens/static/ir"
)

// fortranStmts are the Fortran I/O statements by lower-case keyword. Their
// file is the unit (File.Kind HandleArg with Arg -1); Statement refines
// them from the specifiers.
var fortranStmts = sync.OnceValue(func() map[string]Semantics {
	return map[string]Semantics{
		"open":      sem(Fortran, Open, defMode(ModeReadWrite)),
		"close":     sem(Fortran, Close),
		"read":      sem(Fortran, Read, items),
		"write":     sem(Fortran, Write, items),
		"print":     sem(Fortran, Write, items, stdout, formatted),
		"flush":     sem(Fortran, Flush),
		"inquire":   sem(Fortran, Stat),
		"rewind":    sem(Fortran, Seek),
		"backspace": sem(Fortran, Seek),
		"endfile":   sem(Fortran, Stat),
		"wait":      sem(Fortran, Wait),
	}
})

// Statement returns the semantics of a Fortran I/O statement: its
// operation; formatted when it has a format (FMT=, a positional format, a
// namelist, or is a PRINT), binary otherwise; at an explicit position with
// REC= (direct access) or POS= (stream access); asynchronous with
// ASYNCHRONOUS='yes'. The unit "*" is standard output (input for READ).
// Whether a unit is an internal file (a character variable) is for the
// caller to decide, as it depends on declarations.
func Statement(io *ir.FortranIO) (Semantics, bool) {
	s, ok := fortranStmts()[io.Op]
	if !ok {
		return Semantics{}, false
	}
	s.Routine = strings.ToUpper(io.Op)
	if s.File.Kind == NoFile {
		s.File.Kind = HandleArg
	}
	if u, isStr := io.Unit.(ir.Str); isStr && u.V == "*" {
		s.File.Kind = Stdout
		if s.Op == Read {
			s.File.Kind = Stdin
		}
	}
	if s.Op.IsData() {
		_, hasFmt := io.Specs["fmt"]
		_, hasNml := io.Specs["nml"]
		s.Formatted = s.Formatted || hasFmt || hasNml
		_, rec := io.Specs["rec"]
		_, pos := io.Specs["pos"]
		s.ExplicitOffset = rec || pos
	}
	if a, isStr := io.Specs["asynchronous"].(ir.Str); isStr && strings.EqualFold(strings.TrimSpace(a.V), "yes") {
		s.Async = true
	}
	return s, true
}

// SpecString returns the literal value of a Fortran specifier (FORM=,
// ACCESS=, ACTION=...), lower-cased and trimmed, or "" when it is absent
// or not a literal.
func SpecString(io *ir.FortranIO, key string) string {
	if v, ok := io.Specs[key].(ir.Str); ok {
		return strings.ToLower(strings.TrimSpace(v.V))
	}
	return ""
}

// FortranStdUnit tells which standard file a Fortran unit number denotes
// by convention: 5 is input, 6 output, 0 error output (reported as
// Stdout).
func FortranStdUnit(unit int64) (FileKind, bool) {
	switch unit {
	case 5:
		return Stdin, true
	case 6, 0:
		return Stdout, true
	}
	return NoFile, false
}
