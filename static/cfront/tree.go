package cfront

import (
	"strconv"

	"github.com/iolens/iolens/static/ir"
)

// none is the index of an absent node.
const none int32 = -1

// tree gives typed access to a flattened syntax tree and its source.
type tree struct {
	n    []node
	src  []byte
	g    *grammar
	strs map[string]string // interned identifier spellings
}

func (t *tree) kind(i int32) kind {
	s := t.n[i].sym
	if s == symError {
		return kError
	}
	if int(s) >= len(t.g.kinds) {
		return kOther
	}
	return t.g.kinds[s]
}

func (t *tree) field(i int32) field {
	f := t.n[i].field
	if int(f) >= len(t.g.fields) {
		return fNone
	}
	return t.g.fields[f]
}

func (t *tree) named(i int32) bool   { return t.n[i].flags&flagNamed != 0 }
func (t *tree) missing(i int32) bool { return t.n[i].flags&flagMissing != 0 }

// line returns the 1-based line where node i starts.
func (t *tree) line(i int32) int { return int(t.n[i].line) + 1 }

// endLine returns the 1-based line where node i ends.
func (t *tree) endLine(i int32) int { return int(t.n[i].endLine) + 1 }

// first returns the first child of i, or none.
func (t *tree) first(i int32) int32 {
	if t.n[i].nkids == 0 {
		return none
	}
	return i + 1
}

// next returns the next sibling of i, or none.
func (t *tree) next(i int32) int32 { return t.n[i].next }

// child returns the first child of i in field f, or none.
func (t *tree) child(i int32, f field) int32 {
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) == f {
			return c
		}
	}
	return none
}

// firstNamed returns the first named child of i, or none.
func (t *tree) firstNamed(i int32) int32 {
	for c := t.first(i); c != none; c = t.next(c) {
		if t.named(c) {
			return c
		}
	}
	return none
}

// childOfKind returns the first child of i of kind k, or none.
func (t *tree) childOfKind(i int32, k kind) int32 {
	for c := t.first(i); c != none; c = t.next(c) {
		if t.kind(c) == k {
			return c
		}
	}
	return none
}

// bytes returns the source text of node i.
func (t *tree) bytes(i int32) []byte { return t.src[t.n[i].start:t.n[i].end] }

// text returns the source text of node i, interned so that repeated
// identifiers share one string.
func (t *tree) text(i int32) string { return t.intern(t.bytes(i)) }

func (t *tree) intern(b []byte) string {
	if s, ok := t.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	t.strs[s] = s
	return s
}

// errors lists the outermost ERROR nodes and the MISSING nodes of the tree.
func (t *tree) errors(path string) []ir.Error {
	var errs []ir.Error
	var end uint32 // end of the last reported ERROR node
	reported := false
	for i := range t.n {
		nd := &t.n[i]
		switch {
		case nd.sym == symError:
			if reported && nd.start < end {
				continue
			}
			reported, end = true, nd.end
			errs = append(errs, ir.Error{
				Pos: ir.Pos{File: path, Line: int(nd.line) + 1},
				Msg: "syntax error near " + strconv.Quote(snippet(t.src[nd.start:nd.end])),
			})
		case nd.flags&flagMissing != 0:
			name := ""
			if int(nd.sym) < len(t.g.names) {
				name = t.g.names[nd.sym]
			}
			errs = append(errs, ir.Error{
				Pos: ir.Pos{File: path, Line: int(nd.line) + 1},
				Msg: "syntax error: missing " + strconv.Quote(name),
			})
		}
	}
	return errs
}

// snippet shortens source text for an error message.
func snippet(b []byte) string {
	const max = 40
	for i, c := range b {
		if c == '\n' {
			b = b[:i]
			break
		}
	}
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
