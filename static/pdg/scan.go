package pdg

import (
	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// DefaultScanTrip is the characters assumed for a scan to the end of a
// string whose length the analysis does not know: a key, a name or a
// word.
const DefaultScanTrip = 24

// scanTrip returns the trip count of a loop that steps through a C string
// to its terminating NUL, one character per iteration ("for (p = line;
// *p; p++)", "while (*s) h ^= *s++", "for (i = 0; key[i] != '\0'; i++)"):
// the length of the line a read left in the buffer scanned, of a string
// the program builds, else DefaultScanTrip. It reports false for other
// loops.
func (w *walker) scanTrip(l *ir.Loop) (int64, TripSource, bool) {
	x, ok := nulTest(l.Cond)
	if !ok {
		return 0, "", false
	}
	var str ir.Expr
	switch x := x.(type) {
	case ir.Unary:
		r, ok := x.X.(ir.Ref)
		if !ok || !w.stepsByOne(l, r.Name) {
			return 0, "", false
		}
		str = w.initOf(r)
	case ir.Index:
		if len(x.Idx) != 1 {
			return 0, "", false
		}
		r, ok := x.Idx[0].(ir.Ref)
		if !ok || !w.stepsByOne(l, r.Name) {
			return 0, "", false
		}
		str = x.X
	}
	if v := Eval(str, w.env); v.Kind == Str {
		return int64(max(len(v.S), 1)), TripBound, true
	}
	if n, ok := w.lines[baseName(str)]; ok && !isOffset(str) {
		return n, TripBound, true
	}
	return DefaultScanTrip, TripDefault, true
}

// bucketChain reports whether loop l follows the chain of one bucket of a
// hash table or of one row of an adjacency list: its condition tests one
// variable, which starts at an element of a table of heads ("i =
// head[b]", "p = bucket[h]") and moves along links ("i = next[i]", "p =
// p->next"). Such a chain is short, as the one row of a sparse structure
// (DefaultRowTrip).
func (w *walker) bucketChain(l *ir.Loop) bool {
	var v string
	ok := true
	ir.Any(l.Cond, func(x ir.Expr) bool {
		if r, isRef := x.(ir.Ref); isRef && r.Name != v && r.Name != "NULL" && r.Name != "nullptr" {
			if v != "" {
				ok = false
			}
			v = r.Name
		}
		return false
	})
	if !ok || v == "" {
		return false
	}
	if _, head := w.initOf(ir.Ref{Name: v}).(ir.Index); !head {
		return false
	}
	linked := false
	for _, s := range l.Body {
		a, isAssign := s.(*ir.Assign)
		if !isAssign || a.Target != v || a.Partial {
			continue
		}
		switch x := a.Value.(type) {
		case ir.Index:
			linked = len(x.Idx) == 1 && isRef(x.Idx[0], v)
		case ir.Field:
			linked = isRef(x.X, v)
		default:
			return false
		}
	}
	return linked
}

// nulTest returns the character a loop condition tests for the end of a
// string: *p or s[i], alone or compared with zero ('\0').
func nulTest(cond ir.Expr) (ir.Expr, bool) {
	if b, ok := cond.(ir.Binary); ok && b.Op == "!=" {
		if z, ok := b.R.(ir.Int); !ok || z.V != 0 {
			return nil, false
		}
		cond = b.L
	}
	switch x := cond.(type) {
	case ir.Unary:
		return x, x.Op == "*"
	case ir.Index:
		return x, true
	}
	return nil, false
}

// stepsByOne reports whether the body of l advances name by one on each
// iteration.
func (w *walker) stepsByOne(l *ir.Loop, name string) bool {
	step, ok := w.counterStep(l.Body, name)
	n, known := step.Int()
	return ok && known && n == 1
}

// isOffset reports whether x points into a string past its start
// (line + k).
func isOffset(x ir.Expr) bool {
	b, ok := x.(ir.Binary)
	return ok && (b.Op == "+" || b.Op == "-")
}

// readLine records the length of the text line a read c (node io) leaves
// in its buffer (fgets, getline): its share of the file the loop around
// it reads to the end, when the program wrote that file, and never more
// than the buffer holds. A read of a line of unknown length forgets it.
func (w *walker) readLine(c *ir.Call, io *IO) {
	s := io.Sem
	buf := s.Size.Buf
	if c.Callee == "getline" || c.Callee == "getdelim" {
		buf = 0 // getline(&line, &cap, f)
	}
	if s.Op != iosem.Read || s.Binary() || buf < 0 {
		return
	}
	name := baseName(arg(c, buf))
	if name == "" {
		return
	}
	delete(w.lines, name)
	if len(w.trips) == 0 || io.File == nil || io.File.Kind != FileHandle {
		return
	}
	t := w.trips[len(w.trips)-1]
	e, ok := io.File.contents()
	if t.eof != io.File.File() || t.n < 1 || !ok {
		return
	}
	n := int64(e.bytes / float64(t.n))
	if io.BytesKnown {
		n = min(n, io.Bytes)
	}
	if n < 1 {
		return
	}
	if w.lines == nil {
		w.lines = map[string]int64{}
	}
	w.lines[name] = n
}
