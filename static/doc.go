// Package static predicts the I/O intensity of every code block of a
// program from its source alone, after the Vidya method: the C/C++ and
// Fortran front-ends (static/cfront, static/fortran) parse the sources
// into one IR (static/ir), static/pdg builds the program dependency graph
// and decorates its I/O calls (static/iosem), static/features derives the
// parameters of each file, function, loop and call block, and static/model
// scores them with the CIOC model, on the machine described by
// static/sysprof.
//
// Analyze runs the whole chain; Fixes (static/fix) turns the causes it
// finds into patches.
package static
