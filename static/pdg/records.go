package pdg

import (
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// A program that writes a small text file line by line and reads it back
// in the same order (a Fortran setup file: "5000.0 5400.0 0.001" written,
// then "read(u, *) lam_min, lam_max, dlam") gives the variables it reads
// the numbers it wrote, by position: records are the lines of such a
// file, as far as the program wrote them with known text outside loops.
// The records of a Fortran unformatted sequential file (a header "write(u)
// nx, ny, dx" read back with "read(u) nx, ny, dx") are kept the same way,
// one field per item.
type records struct {
	lines []string
	// open is false once a line was written in a loop, or
	// with text the analysis does not know: the lines after it are not
	// known.
	open bool
	// partial is set when the last line has no newline yet.
	partial bool
}

// inLoop reports whether the statement being walked is inside a loop of
// its function.
func (w *walker) inLoop() bool { return len(w.trips) > 0 }

// recordWritten appends the line a sequential WRITE puts into the file
// of h. In a record of fields (see recordText) a Wildcard is one unknown
// field; in a line of text it may stand for any number of them, and the
// lines after it are not known.
func (w *walker) recordWritten(h *Handle, line string, fields bool) {
	r := w.b.records[h.sizeKey()]
	if r == nil || !r.open {
		return
	}
	if w.inLoop() || !fields && strings.Contains(line, Wildcard) {
		r.open = false
		return
	}
	r.lines = append(r.lines, line)
}

// recordsCreated starts the records of a file a sequential OPEN s
// creates or replaces (STATUS='new' or 'replace', or a unit opened for
// writing only, not for appending); opening a file to read it leaves
// them.
func (w *walker) recordsCreated(h *Handle, s *ir.FortranIO) {
	if h.Direct || h.StreamAccess || iosem.SpecString(s, "position") == "append" {
		return
	}
	switch status := iosem.SpecString(s, "status"); {
	case status == "new" || status == "replace":
	case (status == "" || status == "unknown") && iosem.SpecString(s, "action") == "write":
	default:
		return
	}
	w.startRecords(h)
}

// startRecords starts the records of the file of h, which an open
// creates or replaces: C's fopen(..., "w"), open with O_CREAT|O_TRUNC, a
// C++ std::ofstream, a Fortran OPEN (see recordsCreated).
func (w *walker) startRecords(h *Handle) {
	w.b.records[h.sizeKey()] = &records{open: true}
}

// recordRead gives the items of a sequential READ outside loops the
// values of the next line (record) of the file of h, when the program
// wrote it: list-directed and numeric items take its blank- or
// comma-separated fields in order, a character item read with "(a)" the
// whole line. An array section takes as many fields as it has elements,
// without a value the analysis keeps. A READ in a loop ends
// the reading by position of that handle.
func (w *walker) recordRead(s *ir.FortranIO, h *Handle) {
	if h.recordsRead < 0 {
		return
	}
	if w.inLoop() {
		h.recordsRead = -1
		return
	}
	r := w.b.records[h.sizeKey()]
	i := h.recordsRead
	h.recordsRead++
	if r == nil || i >= len(r.lines) {
		return
	}
	line := r.lines[i]
	if f, ok := s.Specs["fmt"].(ir.Str); ok && strings.EqualFold(strings.ReplaceAll(f.V, " ", ""), "(a)") {
		if len(s.Items) == 1 {
			if ref, ok := s.Items[0].(ir.Ref); ok {
				w.setSetting(ref.Name, StrValue(line, Propagated))
			}
		}
		return
	}
	fields := strings.FieldsFunc(line, func(c rune) bool { return c == ' ' || c == ',' || c == '\t' })
	for _, it := range s.Items {
		if len(fields) == 0 {
			return
		}
		switch it := it.(type) {
		case ir.Ref:
			if v := w.env.Var(it.Name); v != nil && len(v.Type.Dims) > 0 {
				return // a whole array: its size is not followed here
			}
			if v := numberValue(fields[0], Propagated); v.Known() {
				w.setSetting(it.Name, v)
			}
			fields = fields[1:]
		default:
			n, ok := w.sectionSize(it)
			if !ok || n > int64(len(fields)) {
				return
			}
			fields = fields[n:]
		}
	}
}

// sectionSize returns the elements of an array section read as one item
// (teff(1:n)), when known.
func (w *walker) sectionSize(x ir.Expr) (int64, bool) {
	ix, ok := x.(ir.Index)
	if !ok {
		return 0, false
	}
	if !isSection(ix) {
		return 1, true
	}
	r, ok := ix.X.(ir.Ref)
	if !ok {
		return 0, false
	}
	v := w.env.Var(r.Name)
	if v == nil {
		return 0, false
	}
	k, ok := w.section(ix, v)
	return k, ok && k > 0
}

// C and C++ programs read such text by fields rather than by lines: a
// header written with fprintf(f, "P6\n%d %d\n255\n", w, h) and read with
// fscanf(f, "P6 %d %d %d", &w, &h, &max), or in >> magic >> w >> h. The
// lines of their records may end without a newline (partial), and the
// handle's recordsRead counts fields.

// textWritten appends the text a C or C++ write puts into the file of h.
func (w *walker) textWritten(h *Handle, text string) {
	r := w.b.records[h.sizeKey()]
	if r == nil || !r.open {
		return
	}
	if w.inLoop() || strings.Contains(text, Wildcard) {
		r.open = false
		return
	}
	parts := strings.Split(text, "\n")
	if r.partial && len(r.lines) > 0 {
		r.lines[len(r.lines)-1] += parts[0]
		parts = parts[1:]
	}
	r.partial = !strings.HasSuffix(text, "\n")
	if !r.partial {
		parts = parts[:len(parts)-1]
	}
	r.lines = append(r.lines, parts...)
}

// fieldsRead gives the outputs of a C or C++ read of text outside loops
// the fields of the file of h the program wrote, in order:
// fscanf by the conversions of its format, a stream extraction by its
// items. Any other read, or one in a loop, ends the reading
// by position of that handle.
func (w *walker) fieldsRead(c *ir.Call, h *Handle) {
	if h.recordsRead < 0 {
		return
	}
	var format string
	var outs []ir.Expr
	switch callee := strings.TrimPrefix(c.Callee, "std::"); {
	case callee == "operator>>" && c.Receiver != nil:
		outs = c.Args
		format = strings.Repeat("%g ", len(outs)) // a string target takes the text
	case callee == "fscanf" && len(c.Args) >= 2:
		f := Eval(c.Args[1], w.env)
		if f.Kind != Str {
			h.recordsRead = -1
			return
		}
		format, outs = f.S, c.Args[2:]
	default:
		h.recordsRead = -1
		return
	}
	if w.inLoop() {
		h.recordsRead = -1
		return
	}
	var fields []string
	if r := w.b.records[h.sizeKey()]; r != nil {
		for _, l := range r.lines {
			fields = append(fields, strings.Fields(l)...)
		}
	}
	for _, step := range scanSteps(format) {
		i := h.recordsRead
		h.recordsRead++
		if i >= len(fields) {
			return
		}
		switch {
		case step.literal != "":
			if fields[i] != step.literal {
				h.recordsRead = -1
				return
			}
		case step.skip:
		case len(outs) > 0:
			v := numberValue(fields[i], Propagated)
			if step.text {
				v = StrValue(fields[i], Propagated)
			}
			w.storeScanned(outs[0], v, fields[i], true)
			outs = outs[1:]
		}
	}
}

// scanStep is one field of a scanf format: a literal word, or a
// conversion (text for %s, skip for an assignment-suppressed one).
type scanStep struct {
	literal    string
	text, skip bool
}

// scanSteps splits a scanf format into the fields it reads, separated by
// white space. A format whose conversions are not separated by white
// space ("%d,%d") gives the steps up to that point.
func scanSteps(format string) []scanStep {
	var steps []scanStep
	for _, word := range strings.Fields(format) {
		if !strings.HasPrefix(word, "%") {
			if strings.Contains(word, "%") {
				return steps
			}
			steps = append(steps, scanStep{literal: word})
			continue
		}
		spec := strings.TrimLeft(word[1:], "*0123456789hlLqjzt")
		if len(spec) != 1 || !strings.Contains("dioux"+"fegaEGA"+"s", spec) {
			return steps
		}
		steps = append(steps, scanStep{text: spec == "s", skip: strings.HasPrefix(word, "%*")})
	}
	return steps
}
