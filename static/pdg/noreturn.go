package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// aborts reports whether the library routine name ends the program
// instead of returning (exit, abort and their kin arrive as Jump "exit"
// from the C front-end).
func aborts(name string) bool {
	switch strings.ToLower(strings.TrimPrefix(name, "std::")) {
	case "mpi_abort", "pmpi_abort", "err", "errx", "verr", "verrx", "__assert_fail", "terminate":
		return true
	}
	return false
}

// ends reports whether st ends the program wherever it runs: an exit,
// abort, STOP or throw, or a call of a routine that never returns (an
// aborting library routine, or a program function that never returns).
// A Fortran EXIT leaves a loop, not the program.
func (w *walker) ends(st ir.Stmt) bool {
	switch st := st.(type) {
	case *ir.Jump:
		switch st.Kind {
		case "stop", "throw":
			return true
		case "exit":
			return !w.fortran()
		}
	case *ir.Call:
		return w.neverReturns(st)
	}
	return false
}

// neverReturns reports whether a call ends the program: a call of an
// aborting library routine, or of a program function with no return
// statement whose body ends the program at its top level ("die(msg)":
// fprintf(stderr, ...); exit(1);). Such calls mark the error paths of
// checks, which a run that goes on never takes.
func (w *walker) neverReturns(c *ir.Call) bool {
	if c.Indirect || c.Callee == "" {
		return false
	}
	if aborts(c.Callee) {
		return true
	}
	d, ok := w.b.resolveCall(c, w.d, w.env)
	if !ok {
		return false
	}
	if v, ok := w.b.noReturn[d.f]; ok {
		return v
	}
	w.b.noReturn[d.f] = false // a recursive call returns, as far as this is concerned
	callee := &walker{b: w.b, d: d}
	ends, returns := false, false
	visitStmts(d.f.Body, func(st ir.Stmt) {
		if _, ok := st.(*ir.Return); ok {
			returns = true
		}
	})
	if !returns {
		for _, st := range d.f.Body {
			if callee.ends(st) {
				ends = true
				break
			}
		}
	}
	w.b.noReturn[d.f] = ends
	return ends
}
