package fortran

import "github.com/iolens/iolens/static/ir"

// ioStatements are the Fortran I/O statements ("end" for END FILE).
var ioStatements = setOf("open", "close", "read", "write", "print", "flush", "inquire", "rewind",
	"backspace", "endfile", "end", "wait")

// io parses an I/O statement into a FortranIO.
func (p *parser) io() ir.Stmt {
	s := &ir.FortranIO{Pos: p.here(), Op: p.next().s}
	if s.Op == "end" {
		p.next() // FILE
		s.Op = "endfile"
	}
	switch {
	case s.Op == "print" || s.Op == "read" && !p.isOp("("):
		// PRINT fmt [, items] and the short READ fmt [, items].
		p.setSpec(s, "fmt", p.specValue())
		if s.Op == "read" {
			s.Unit = ir.Str{V: "*"}
		}
		if p.acceptOp(",") {
			s.Items = p.items(s.Op == "read")
		}
	case p.isOp("("):
		p.controlList(s)
		if s.Op == "read" || s.Op == "write" || s.Op == "inquire" {
			p.acceptOp(",") // write(6, 100), x is a common extension
			s.Items = p.items(s.Op == "read")
		}
	case !p.atEnd(): // REWIND u, BACKSPACE u, ENDFILE u, FLUSH u
		s.Unit = p.expr()
	}
	return s
}

// controlList parses a parenthesised I/O control list: a positional unit
// and (READ, WRITE) format, then KEYWORD=value specifiers.
func (p *parser) controlList(s *ir.FortranIO) {
	p.next()
	for pos := 0; !p.atEnd() && !p.isOp(")") && p.bad == ""; pos++ {
		key := ""
		if p.peek().kind == tName && p.isOpAt(1, "=") {
			key = p.next().s
			p.next()
		} else {
			switch {
			case pos == 0:
				key = "unit"
			case pos == 1 && (s.Op == "read" || s.Op == "write"):
				key = "fmt"
			default:
				p.fail("unexpected positional specifier")
			}
		}
		v := p.specValue()
		if key == "unit" {
			s.Unit = v
		} else {
			p.setSpec(s, key, v)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
}

// specValue parses a specifier's value; "*" is the default unit or
// list-directed format.
func (p *parser) specValue() ir.Expr {
	if p.acceptOp("*") {
		return ir.Str{V: "*"}
	}
	return p.expr()
}

func (p *parser) setSpec(s *ir.FortranIO, key string, v ir.Expr) {
	if s.Specs == nil {
		s.Specs = map[string]ir.Expr{}
	}
	s.Specs[key] = v
}

// items parses a data transfer list; implied DOs become ImpliedDo. The
// items of READ are variables, so name(i) there is an array element even
// when the array's declaration is not in sight.
func (p *parser) items(read bool) []ir.Expr {
	p.input = read
	defer func() { p.input = false }()
	var items []ir.Expr
	for !p.atEnd() && p.bad == "" {
		items = append(items, p.expr())
		if !p.acceptOp(",") {
			break
		}
	}
	return items
}
