package fix

import (
	"fmt"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/ir"
)

// streamArg is the index of the FILE * argument of the stdio routines
// whose small transfers a larger buffer helps.
var streamArg = map[string]int{
	"fwrite": 3, "fread": 3, "fputc": 1, "putc": 1, "fputs": 1, "fprintf": 0, "vfprintf": 0,
	"fgetc": 0, "getc": 0, "fgets": 2, "fscanf": 0, "vfscanf": 0,
}

// bufferSize is the stdio buffer a setvbuf fix gives, spelled in C.
const bufferSize = "1 << 20"

// setvbuf gives the stream of a small stdio transfer in a loop a 1 MiB
// buffer right after its fopen (after the test of its success, if any)
// and frees it after its fclose. The buffer is allocated: setvbuf with a
// null buffer keeps the default size in glibc.
func (f *fixer) setvbuf(s *source, c static.Cause) (Fix, string) {
	if s.lang == ir.Fortran {
		return Fix{}, "Fortran units have no stdio buffer to enlarge"
	}
	arg, ok := streamArg[c.Routine]
	if !ok {
		return Fix{}, fmt.Sprintf("%s is not a stdio routine with a stream argument", c.Routine)
	}
	use, ok := f.findAt(c.File, c.Line, isCall(s.lang, c.Routine))
	if !ok {
		return Fix{}, fmt.Sprintf("the call of %s is not located exactly", c.Routine)
	}
	call := use.stmt.(*ir.Call)
	if arg >= len(call.Args) {
		return Fix{}, fmt.Sprintf("%s has fewer arguments than expected", c.Routine)
	}
	stream, ok := refName(call.Args[arg], false)
	if !ok {
		return Fix{}, "the stream is not a plain variable"
	}
	o, why := f.findOpen(s, use, stream, c.LoopLine, "fopen", "fopen64", "fdopen")
	if why != "" {
		return Fix{}, why
	}
	for _, fn := range []string{"setvbuf", "setbuf", "setbuffer", "setlinebuf"} {
		if f.streamCall(o, fn, stream, 0) != nil {
			return Fix{}, fmt.Sprintf("%s already sets the buffer of %s", fn, stream)
		}
	}
	closing := f.streamCall(o, "fclose", stream, o.index+1)
	if closing == nil {
		return Fix{}, fmt.Sprintf("%s is not closed in the block that opens it", stream)
	}
	cc, ok := s.callAt(closing.Line, "fclose")
	if !ok || !s.boundary(closing.Line) {
		return Fix{}, fmt.Sprintf("the fclose of %s (line %d) is not located exactly", stream, closing.Line)
	}
	closeEnd, ok := s.statementEnd(cc.name)
	if !ok {
		return Fix{}, fmt.Sprintf("the fclose of %s (line %d) does not end on a line of its own", stream, closing.Line)
	}
	after, why := f.afterCheck(s, o)
	if why != "" {
		return Fix{}, why
	}
	buf := s.freshName(stream+"_iobuf", f.taken)
	ind := s.indent(o.stmt.Position().Line)
	alloc := "malloc(" + bufferSize + ")"
	if s.lang == ir.CPP {
		alloc = "static_cast<char *>(malloc(" + bufferSize + "))"
	}
	off, pre := s.afterLine(after)
	edits := []edit{{off: off, end: off, text: pre +
		s.comment(ind, fmt.Sprintf("iolens: 1 MiB buffer for the small %s calls of the loop at line %d", c.Routine, c.LoopLine)) +
		fmt.Sprintf("%schar *%s = %s;\n%ssetvbuf(%s, %s, _IOFBF, %s);\n", ind, buf, alloc, ind, stream, buf, bufferSize)}}
	off, pre = s.afterLine(closeEnd)
	edits = append(edits, edit{off: off, end: off, text: fmt.Sprintf("%s%sfree(%s);\n", pre, s.indent(closing.Line), buf)})
	if inc, needed, ok := s.includeEdit("stdlib.h", "cstdlib"); needed {
		if !ok {
			return Fix{}, "no #include to add <stdlib.h> after"
		}
		edits = append(edits, inc)
	}
	return Fix{Pattern: PatternSetvbuf, edits: edits, key: fmt.Sprintf("setvbuf:%s:%d", c.File, o.stmt.Position().Line),
		Message: fmt.Sprintf("give %s (opened at line %d) a 1 MiB buffer", stream, o.stmt.Position().Line)}, ""
}

// streamCall returns the call of routine on the stream in the opening's
// block from index from on (from 0: anywhere in the function).
func (f *fixer) streamCall(o opening, routine, stream string, from int) *ir.Call {
	var found *ir.Call
	match := func(st ir.Stmt) {
		if c, ok := st.(*ir.Call); ok && c.Callee == routine && len(c.Args) > 0 && found == nil {
			if n, ok := refName(c.Args[0], false); ok && n == stream {
				found = c
			}
		}
	}
	if from == 0 {
		walk(o.fn.Body, nil, func(x site) { match(x.stmt) })
		return found
	}
	for _, st := range o.block[from:] {
		match(st)
	}
	return found
}
