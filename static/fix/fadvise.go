package fix

import (
	"fmt"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/ir"
)

// fadvise tells the kernel that a descriptor read in small pieces in a
// loop, without seeks, is read sequentially, right after it is opened.
// The call goes after the test of the open when there is one that leaves
// the function, else right after the open: posix_fadvise on a descriptor
// that failed to open returns EBADF and does nothing else. The call is left
// out where the C library does not declare it (strict ISO modes).
func (f *fixer) fadvise(s *source, c static.Cause) (Fix, string) {
	if s.lang == ir.Fortran {
		return Fix{}, "Fortran has no posix_fadvise"
	}
	if f.hasCause(features.CodeRandomAccess, c.File, c.Line) {
		return Fix{}, "the reads are not sequential"
	}
	use, ok := f.findAt(c.File, c.Line, isCall(s.lang, c.Routine))
	if !ok {
		return Fix{}, fmt.Sprintf("the call of %s is not located exactly", c.Routine)
	}
	call := use.stmt.(*ir.Call)
	fd, ok := "", len(call.Args) > 0
	if ok {
		fd, ok = refName(call.Args[0], false)
	}
	if !ok {
		return Fix{}, "the descriptor is not a plain variable"
	}
	o, why := f.findOpen(s, use, fd, c.LoopLine, "open", "open64")
	if why != "" {
		return Fix{}, why
	}
	for _, seek := range []string{"lseek", "lseek64", "pread", "pread64"} {
		if f.streamCall(o, seek, fd, 0) != nil {
			return Fix{}, fmt.Sprintf("%s moves in the file with %s", fd, seek)
		}
	}
	line := o.stmt.Position().Line
	ind := s.indent(line)
	after, why := f.afterCheck(s, o)
	if why != "" {
		after = o.end
	}
	off, pre := s.afterLine(after)
	edits := []edit{{off: off, end: off, text: pre +
		s.comment(ind, fmt.Sprintf("iolens: %s is read sequentially (loop at line %d): let the kernel read ahead", fd, c.LoopLine)) +
		"#ifdef POSIX_FADV_SEQUENTIAL\n" +
		fmt.Sprintf("%sposix_fadvise(%s, 0, 0, POSIX_FADV_SEQUENTIAL);\n", ind, fd) +
		"#endif\n"}}
	if inc, needed, ok := s.includeEdit("fcntl.h"); needed {
		if !ok {
			return Fix{}, "no #include to add <fcntl.h> after"
		}
		edits = append(edits, inc)
	}
	return Fix{Pattern: PatternFadvise, edits: edits, key: fmt.Sprintf("fadvise:%s:%d", c.File, line),
		Message: fmt.Sprintf("advise sequential reads of %s (opened at line %d)", fd, line)}, ""
}
