package fortran

import (
	"path/filepath"
	"strings"
)

// Form is the source form of a Fortran file.
type Form int

// The two source forms.
const (
	// Fixed is the FORTRAN 77 card layout: labels in columns 1–5,
	// continuation mark in column 6, statement text in columns 7–72,
	// comment lines marked in column 1.
	Fixed Form = iota
	// Free is the Fortran 90 layout: statements anywhere on the line,
	// "&" continuation, "!" comments, ";" separators.
	Free
)

func (f Form) String() string {
	if f == Fixed {
		return "fixed"
	}
	return "free"
}

// FormOf returns the source form compilers assume for a file name:
// .f .for .ftn .f77 (and their upper-case, preprocessed spellings) are
// fixed form; everything else (.f90 .f95 .f03 .f08 .f18 ...) is free form.
func FormOf(path string) Form {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".f", ".for", ".ftn", ".f77", ".fpp":
		return Fixed
	}
	return Free
}
