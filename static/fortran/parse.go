package fortran

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// ErrNotText is returned (wrapped) by Parse for input that is not text.
var ErrNotText = errors.New("not a text file")

// Parse parses the Fortran source src of the file at path. The source form
// (fixed or free) follows from the file name's extension (see FormOf).
//
// Syntax the front-end cannot parse is recorded in the returned file's
// Errors and skipped; Parse only fails for input that is not text.
func Parse(path string, src []byte) (*ir.File, error) {
	return ParseForm(path, src, FormOf(path))
}

// ParseForm is Parse with an explicit source form.
func ParseForm(path string, src []byte, form Form) (*ir.File, error) {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, fmt.Errorf("parsing %s: %w (NUL byte at offset %d)", path, ErrNotText, i)
	}
	lines := splitLines(src)
	phys, defs := preprocess(lines)
	var stmts []stmt
	if form == Fixed {
		stmts = joinFixed(phys)
	} else {
		stmts = joinFree(phys)
	}
	p := &parser{
		file:    &ir.File{Path: path, Lang: ir.Fortran, Lines: len(lines)},
		stmts:   stmts,
		modules: map[string]*scope{},
		kinds:   map[*ir.Var]int64{},
		lexed:   -1,
	}
	p.defines(defs)
	p.scanProcs()
	p.units()
	return p.file, nil
}

// parser turns the statements of one file into IR.
type parser struct {
	file    *ir.File
	stmts   []stmt
	cur     int // index of the current statement
	lexed   int // index of the statement in toks, or -1
	toks    []token
	src     string // text of the lexed statement
	ln      int    // line of the lexed statement
	i       int    // index of the current token
	bad     string // first problem found in the current statement
	depth   int    // expression nesting
	hoist   []ir.Stmt
	input   bool // parsing the items of a READ
	sc      *scope
	procs   map[string]bool   // functions defined in the file
	modules map[string]*scope // modules defined so far, by name
	kinds   map[*ir.Var]int64 // values of named constants used as kinds

	doLabels []string // terminal labels of the open labelled DO loops
	pending  string   // terminal label just reached, ending loops
}

func (p *parser) eof() bool { return p.cur >= len(p.stmts) }

// load lexes the current statement (once) and rewinds to its first token.
func (p *parser) load() {
	if p.lexed != p.cur {
		s := &p.stmts[p.cur]
		p.setSource(s.text, s.line)
		p.lexed = p.cur
	}
	p.i, p.bad, p.depth, p.hoist = 0, "", 0, nil
}

// setSource lexes text as the current statement.
func (p *parser) setSource(text string, line int) {
	p.toks = lex(text, p.toks[:0])
	p.src, p.ln = text, line
	p.i, p.bad, p.depth, p.hoist = 0, "", 0, nil
}

// advance moves to the next statement.
func (p *parser) advance() { p.cur++ }

// here is the position of the current statement.
func (p *parser) here() ir.Pos { return ir.Pos{File: p.file.Path, Line: p.ln} }

// fail records the first problem of the current statement.
func (p *parser) fail(msg string) {
	if p.bad == "" {
		p.bad = msg
	}
}

// report moves the current statement's problem, if any, to the file's
// errors and reports whether there was one.
func (p *parser) report() bool {
	if p.bad == "" && p.i < len(p.toks) {
		p.bad = "unexpected " + p.describe(p.toks[p.i])
	}
	if p.bad == "" {
		return false
	}
	p.errorf("%s", p.bad)
	p.bad = ""
	return true
}

func (p *parser) errorf(format string, args ...any) {
	p.file.Errors = append(p.file.Errors, ir.Error{Pos: p.here(), Msg: fmt.Sprintf(format, args...)})
}

// takeHoist returns the calls hoisted so far and clears them.
func (p *parser) takeHoist() ir.Block {
	h := p.hoist
	p.hoist = nil
	return h
}

var eofTok = token{kind: tEOF}

func (p *parser) peek() token { return p.peekAt(0) }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return eofTok
}

func (p *parser) next() token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *parser) atEnd() bool { return p.i >= len(p.toks) }

func (p *parser) isOp(s string) bool { return p.isOpAt(0, s) }

func (p *parser) isOpAt(k int, s string) bool {
	j := p.i + k
	return j < len(p.toks) && p.toks[j].kind == tOp && p.toks[j].s == s
}

func (p *parser) isName(s string) bool { return p.isNameAt(0, s) }

func (p *parser) isNameAt(k int, s string) bool {
	j := p.i + k
	return j < len(p.toks) && p.toks[j].kind == tName && p.toks[j].s == s
}

func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptName(s string) bool {
	if p.isName(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(s string) {
	if !p.acceptOp(s) {
		p.fail("expected " + strconv.Quote(s) + ", found " + p.describe(p.peek()))
	}
}

// name consumes a name, or records a problem and returns "".
func (p *parser) name() string {
	if p.peek().kind != tName {
		p.fail("expected a name, found " + p.describe(p.peek()))
		return ""
	}
	return p.next().s
}

func (p *parser) describe(t token) string {
	if t.kind == tEOF {
		return "end of statement"
	}
	return strconv.Quote(p.src[t.off:t.end])
}

// text returns the source text of tokens [from, to) of the statement.
func (p *parser) text(from, to int) string {
	if from >= to || from >= len(p.toks) {
		return ""
	}
	to = min(to, len(p.toks))
	return p.src[p.toks[from].off:p.toks[to-1].end]
}

// skipGroup skips a balanced group opened by the current token.
func (p *parser) skipGroup(open, close string) {
	depth := 0
	for !p.atEnd() {
		t := p.next()
		if t.kind != tOp {
			continue
		}
		switch t.s {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return
			}
		}
	}
	p.fail("unbalanced " + strconv.Quote(open))
}

// skipParens skips an optional parenthesised group.
func (p *parser) skipParens() {
	if p.isOp("(") {
		p.skipGroup("(", ")")
	}
}

// defines turns #define macros into file constants.
func (p *parser) defines(defs []define) {
	p.sc = newScope(nil)
	for _, d := range defs {
		p.setSource(d.value, d.line)
		x := p.expr()
		if p.bad != "" || !p.atEnd() {
			x = ir.Unknown{Text: d.value}
		}
		p.setConst(d.name, x)
	}
	p.sc, p.lexed = nil, -1
}

func (p *parser) setConst(name string, x ir.Expr) {
	if p.file.Consts == nil {
		p.file.Consts = map[string]ir.Expr{}
	}
	p.file.Consts[name] = x
}

// scanProcs records the functions defined in the file, so that a
// reference to one is a call even where its name is an intrinsic's.
func (p *parser) scanProcs() {
	p.procs = map[string]bool{}
	var toks []token
	for _, s := range p.stmts {
		if !containsFold(s.text, "function") {
			continue
		}
		toks = lex(s.text, toks[:0])
		if name, kind, ok := headerName(toks); ok && kind == ir.Function {
			p.procs[name] = true
		}
	}
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// containsFold reports whether s contains the lower-case word w in any case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
			return true
		}
	}
	return false
}
