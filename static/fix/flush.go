package fix

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/ir"
)

var (
	cFlushStmt       = lazyRegexp(`^(fflush|fsync|fdatasync)\s*\(.*\)\s*;$`)
	fortranFlushStmt = lazyRegexp(`(?i)^(call\s+)?flush\b`)
	fortranLoopEnd   = lazyRegexp(`(?i)^(\d+\s+)?(end\s*do|continue)\b`)
	endlRe           = lazyRegexp(`<<\s*((std::)?endl)\b`)
)

// flush fixes a flush in every iteration of a loop: C fflush, fsync and
// fdatasync and Fortran FLUSH move after the loop; C++ std::endl becomes
// '\n' (the stream is flushed when it is closed).
func (f *fixer) flush(s *source, c static.Cause) (Fix, string) {
	switch {
	case c.Routine == "std::endl" || c.Routine == "endl":
		return f.endl(s, c)
	case s.lang == ir.Fortran && strings.EqualFold(c.Routine, "flush"):
		return f.moveFlush(s, c, func(st ir.Stmt) bool {
			io, ok := st.(*ir.FortranIO)
			return ok && io.Op == "flush" || isCall(s.lang, "flush")(st)
		}, fortranFlushStmt())
	case s.lang != ir.Fortran && (c.Routine == "fflush" || c.Routine == "fsync" || c.Routine == "fdatasync"):
		return f.moveFlush(s, c, isCall(s.lang, c.Routine), cFlushStmt())
	}
	return Fix{}, fmt.Sprintf("no automatic fix for %s in a loop", c.Routine)
}

// moveFlush moves the flush statement on the cause's line after the end
// of the innermost loop around it.
func (f *fixer) moveFlush(s *source, c static.Cause, match func(ir.Stmt) bool, stmt *regexp.Regexp) (Fix, string) {
	use, ok := f.findAt(c.File, c.Line, match)
	if !ok {
		return Fix{}, fmt.Sprintf("the %s is not located exactly", c.Routine)
	}
	loop := use.innerLoop()
	if loop == nil || loop.Line != c.LoopLine || loop.EndLine != c.LoopEnd {
		return Fix{}, "the loop around the flush is not located exactly"
	}
	if call, ok := use.stmt.(*ir.Call); ok && call.Result != "" {
		return Fix{}, fmt.Sprintf("the result of %s is used", c.Routine)
	}
	if !s.wholeStatement(c.Line, stmt) {
		return Fix{}, fmt.Sprintf("line %d holds more than the %s statement, or it is the body of an if or loop without braces", c.Line, c.Routine)
	}
	if why := scopedOut(use, loop); why != "" {
		return Fix{}, why
	}
	if !s.boundary(loop.Line) || !s.loopEndsAlone(loop, use) {
		return Fix{}, fmt.Sprintf("the end of the loop at line %d is not located exactly", loop.Line)
	}
	text := strings.TrimSpace(s.line(c.Line))
	var note string
	switch strings.ToLower(c.Routine) {
	case "fsync", "fdatasync":
		note = fmt.Sprintf("iolens: %s moved out of the loop: what the loop writes is durable only once it ends", c.Routine)
	default:
		note = fmt.Sprintf("iolens: %s moved out of the loop: output reaches the file once the loop ends, not every iteration", c.Routine)
	}
	ind := s.indent(loop.Line)
	off, pre := s.afterLine(loop.EndLine)
	return Fix{Pattern: PatternFlushAfterLoop, key: fmt.Sprintf("flush:%s:%d", c.File, c.Line),
		Message: fmt.Sprintf("move %s after the loop at lines %d-%d", c.Routine, loop.Line, loop.EndLine),
		edits: []edit{
			{off: s.lineStart(c.Line), end: s.lineStart(c.Line + 1)},
			{off: off, end: off, text: pre + s.comment(ind, note) + ind + text + "\n"},
		}}, ""
}

// scopedOut tells why the arguments of the flush would not be in scope or
// have the same value after the loop: a variable declared or counted in
// the loop.
func scopedOut(use site, loop *ir.Loop) string {
	why := ""
	args := func(e ir.Expr) {
		refs(e, func(n string) {
			if why == "" && (n == loop.Var || declaredIn(loop.Body, n)) {
				why = fmt.Sprintf("%s is declared or changed by the loop", n)
			}
		})
	}
	switch st := use.stmt.(type) {
	case *ir.Call:
		for _, a := range st.Args {
			args(a)
		}
	case *ir.FortranIO:
		if st.Unit != nil {
			args(st.Unit)
		}
		for _, a := range st.Specs {
			args(a)
		}
	}
	return why
}

// loopEndsAlone tells whether the loop's last line holds nothing after
// the loop, and no enclosing loop ends on it too.
func (s *source) loopEndsAlone(loop *ir.Loop, use site) bool {
	for _, p := range use.path {
		if l, ok := p.(*ir.Loop); ok && l != loop && l.EndLine == loop.EndLine {
			return false
		}
	}
	end := s.code(loop.EndLine)
	if s.lang == ir.Fortran {
		return fortranLoopEnd().MatchString(end)
	}
	return strings.HasSuffix(end, "}") || strings.HasSuffix(end, ";")
}

// endl replaces std::endl by '\n' on the cause's line.
func (f *fixer) endl(s *source, c static.Cause) (Fix, string) {
	if s.lang != ir.CPP {
		return Fix{}, "std::endl outside C++"
	}
	from := s.lineStart(c.Line)
	var edits []edit
	code := s.code(c.Line)
	for _, m := range endlRe().FindAllSubmatchIndex(s.text[from:s.lineStart(c.Line+1)], -1) {
		edits = append(edits, edit{off: from + m[2], end: from + m[3], text: `'\n'`})
	}
	if len(edits) == 0 || len(edits) != len(endlRe().FindAllString(code, -1)) {
		return Fix{}, "the std::endl is not located exactly on its line"
	}
	return Fix{Pattern: PatternEndl, edits: edits, key: fmt.Sprintf("endl:%s:%d", c.File, c.Line),
		Message: "write '\\n' instead of std::endl (no flush per line)"}, ""
}
