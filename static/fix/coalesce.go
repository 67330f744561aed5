package fix

import (
	"fmt"
	"regexp"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/ir"
)

// Names of the helpers a coalescing fix adds to a file, once.
const (
	coalesceWrite = "iolens_write_coalesced"
	coalesceFlush = "iolens_flush_coalesced"
)

// coalesceBuffer is the size of the buffer a coalescing fix declares
// before the loop, spelled in C.
const coalesceBuffer = "1 << 16"

// coalesceHelpers is the C (and C++) text of the helpers: the first keeps
// what is written in the buffer and writes the buffer out when the next
// piece would not fit; the second writes out what is left, retrying after
// signals and short writes.
const coalesceHelpers = `
/* iolens: write out the *len bytes buf holds; 0, or -1 with errno set. */
static int ` + coalesceFlush + `(int fd, char *buf, size_t *len)
{
	size_t done = 0;
	while (done < *len) {
		ssize_t w = write(fd, buf + done, *len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	*len = 0;
	return 0;
}

/* iolens: write() through buf, of cap bytes with *len used, written out
 * when the next piece would not fit; a piece larger than buf is written
 * directly. Returns n, or -1 when writing buf out failed. */
static ssize_t ` + coalesceWrite + `(int fd, char *buf, size_t cap, size_t *len, const void *data, size_t n)
{
	if (*len + n > cap && ` + coalesceFlush + `(fd, buf, len) != 0)
		return -1;
	if (n > cap)
		return write(fd, data, n);
	memcpy(buf + *len, data, n);
	*len += n;
	return (ssize_t)n;
}
`

// leavingCalls are the calls after which the code after a loop does not
// run (the front-end makes exit() and abort() Jumps).
var leavingCalls = map[string]bool{
	"longjmp": true, "siglongjmp": true, "MPI_Abort": true, "pthread_exit": true,
}

// coalesce makes the small write()s of a descriptor in a loop go through
// a 64 KiB buffer declared before the loop and written out when it fills
// and right after the loop. The fix is made only where that keeps what
// the file holds once the loop is over: the descriptor is a local
// variable or parameter that the loop uses for nothing but write(), every
// write() of it in the loop is replaced, and the loop has no way out
// (return, goto, exit) that skips the code after it. A write error shows
// up at a later write() or, for the last bytes, as a message on stderr
// after the loop.
func (f *fixer) coalesce(s *source, c static.Cause) (Fix, string) {
	switch {
	case s.lang == ir.Fortran:
		return Fix{}, "Fortran has no write() system call"
	case c.Via != "":
		return Fix{}, fmt.Sprintf("the write() is in %s(), which the loop calls: a buffer would have to outlive each call", c.Via)
	case c.LoopLine == 0:
		return Fix{}, "the write() is not in a loop"
	case s.hasWord(coalesceWrite) || s.hasWord(coalesceFlush):
		return Fix{}, fmt.Sprintf("the file already names %s or %s", coalesceWrite, coalesceFlush)
	}
	use, ok := f.findAt(c.File, c.Line, isCall(s.lang, "write"))
	if !ok {
		return Fix{}, "the call of write is not located exactly"
	}
	loop := use.innerLoop()
	if loop == nil || loop.Line != c.LoopLine || loop.EndLine != c.LoopEnd {
		return Fix{}, "the loop around the write() is not located exactly"
	}
	call := use.stmt.(*ir.Call)
	fd, ok := "", len(call.Args) == 3
	if ok {
		fd, ok = refName(call.Args[0], false)
	}
	if !ok {
		return Fix{}, "the descriptor is not a plain variable"
	}
	if !isLocal(use.fn, fd) {
		return Fix{}, fmt.Sprintf("%s is not a local variable or parameter of %s: other code may write to it", fd, use.fn.Name)
	}
	writes, why := loopWrites(s, loop, fd)
	if why != "" {
		return Fix{}, why
	}
	if !s.boundary(loop.Line) || !s.loopEndsAlone(loop, use) {
		return Fix{}, fmt.Sprintf("the loop at lines %d-%d is not located exactly, or it is the body of an if or loop without braces", loop.Line, loop.EndLine)
	}
	buf, n := s.freshName(fd+"_wbuf", f.taken), s.freshName(fd+"_wlen", f.taken)
	var edits []edit
	for _, w := range writes {
		wc, ok := s.callAt(w.Line, "write")
		if !ok || len(wc.args) != 3 || s.textOf(wc.args[0]) != fd {
			return Fix{}, fmt.Sprintf("the write() at line %d is not located exactly", w.Line)
		}
		edits = append(edits, edit{off: wc.name, end: wc.end, text: fmt.Sprintf("%s(%s, %s, sizeof %s, &%s, %s, %s)",
			coalesceWrite, fd, buf, buf, n, s.textOf(wc.args[1]), s.textOf(wc.args[2]))})
	}
	ind := s.indent(loop.Line)
	before := s.lineStart(loop.Line)
	edits = append(edits, edit{off: before, end: before, text: s.comment(ind,
		fmt.Sprintf("iolens: the small write()s of %s in the loop below go through a 64 KiB buffer, written out when it fills and after the loop", fd)) +
		fmt.Sprintf("%schar %s[%s];\n%ssize_t %s = 0;\n", ind, buf, coalesceBuffer, ind, n)})
	off, pre := s.afterLine(loop.EndLine)
	edits = append(edits, edit{off: off, end: off, text: pre +
		fmt.Sprintf("%sif (%s(%s, %s, &%s) != 0)\n%s\tperror(\"write\");\n", ind, coalesceFlush, fd, buf, n, ind)})
	var incs []edit
	for _, h := range [][]string{{"errno.h", "cerrno"}, {"string.h", "cstring"}, {"unistd.h"}} {
		inc, needed, ok := s.includeEdit(h[0], h[1:]...)
		if needed && !ok {
			return Fix{}, fmt.Sprintf("no #include to add <%s> after", h[0])
		}
		if needed {
			incs = append(incs, inc)
		}
	}
	helpers, ok := s.afterIncludes(coalesceHelpers)
	if !ok {
		return Fix{}, "no #include to add the helpers after"
	}
	edits = append(edits, append(incs, helpers)...)
	return Fix{Pattern: PatternCoalesce, edits: edits, key: fmt.Sprintf("coalesce:%s:%d", c.File, loop.Line),
		Message: fmt.Sprintf("coalesce the %d write() calls of %s in the loop at lines %d-%d through a 64 KiB buffer", len(writes), fd, loop.Line, loop.EndLine)}, ""
}

// isLocal tells whether name is a parameter of fn or declared in its body.
func isLocal(fn *ir.Func, name string) bool {
	for _, p := range fn.Params {
		if p.Name == name {
			return true
		}
	}
	return declaredIn(fn.Body, name)
}

// loopWrites returns the write() calls of fd in the loop, or why the loop
// cannot have them coalesced: fd has another use in a call, is assigned,
// or the loop can leave without running the code after it.
func loopWrites(s *source, loop *ir.Loop, fd string) ([]*ir.Call, string) {
	var writes []*ir.Call
	why := ""
	walk(loop.Body, nil, func(x site) {
		if why != "" {
			return
		}
		switch st := x.stmt.(type) {
		case *ir.Return:
			why = fmt.Sprintf("the loop returns at line %d before the buffer would be written out", st.Line)
		case *ir.Jump:
			// In C, exit() and its kin are Jump "exit".
			switch st.Kind {
			case "exit":
				why = fmt.Sprintf("the loop can end the program at line %d, losing the buffer", st.Line)
			case "goto", "throw":
				why = fmt.Sprintf("the loop leaves with %s at line %d", st.Kind, st.Line)
			}
		case *ir.Assign:
			if st.Target == fd {
				why = fmt.Sprintf("%s is assigned in the loop (line %d)", fd, st.Line)
			}
		case *ir.Call:
			if leavingCalls[st.Callee] {
				why = fmt.Sprintf("the loop can end the program with %s at line %d, losing the buffer", st.Callee, st.Line)
				return
			}
			if st.Result == fd {
				why = fmt.Sprintf("%s is assigned in the loop (line %d)", fd, st.Line)
				return
			}
			for i, a := range st.Args {
				if !mentions(a, func(n string) bool { return n == fd }) {
					continue
				}
				if st.Callee != "write" || i != 0 {
					why = fmt.Sprintf("%s is also used by %s at line %d", fd, st.Callee, st.Line)
					return
				}
				writes = append(writes, st)
			}
		}
	})
	if why != "" {
		return nil, why
	}
	// Every write() of fd in the loop's text must be one of those: a call
	// in the loop's header or behind a macro would be missed.
	re := regexp.MustCompile(`\bwrite\s*\(\s*` + regexp.QuoteMeta(fd) + `\s*,`)
	n := 0
	for l := loop.Line; l <= loop.EndLine; l++ {
		n += len(re.FindAllString(s.code(l), -1))
	}
	if n != len(writes) {
		return nil, fmt.Sprintf("the loop writes to %s where the fix cannot replace the call", fd)
	}
	return writes, ""
}
