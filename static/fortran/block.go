package fortran

import (
	"slices"

	"github.com/iolens/iolens/static/ir"
)

// block parses statements up to a terminator, which it leaves for the
// caller. The end of a program unit, CONTAINS and the start of another
// unit always terminate a block; END DO, ELSE, CASE and the like
// terminate construct blocks and are errors (skipped) at unit level. A
// labelled DO's terminal statement ends the block after it is parsed.
func (p *parser) block(construct bool) ir.Block {
	var b ir.Block
	for !p.eof() {
		c := p.classify()
		switch c.kind {
		case kEndUnit, kContains, kProgram, kModule, kProc, kBlockData:
			return b
		case kEndConstruct, kElse, kElseIf, kElseWhere, kCase:
			if construct {
				return b
			}
			p.errorf("%q without an open construct", clip(p.src))
			p.advance()
			continue
		}
		label := p.stmts[p.cur].label
		b = append(b, p.statement(c)...)
		if p.pending == "" && label != "" && slices.Contains(p.doLabels, label) {
			p.pending = label
		}
		if p.pending != "" {
			if slices.Contains(p.doLabels, p.pending) {
				return b
			}
			p.pending = ""
		}
	}
	return b
}

// statement parses the current statement, and the statements of its
// body if it is a construct, and moves past them.
func (p *parser) statement(c class) ir.Block {
	switch c.word {
	case "do":
		return p.doConstruct()
	case "if":
		if p.isBlockIf() {
			return p.ifConstruct()
		}
	case "select", "selectcase", "selecttype", "selectrank":
		return p.selectConstruct()
	case "where":
		if p.isBlockHead() {
			return p.whereConstruct()
		}
	case "forall":
		if p.isBlockHead() {
			return p.forallConstruct()
		}
	case "associate", "block", "critical", "change":
		return p.inlineConstruct(c.word)
	case "interface", "abstract":
		p.skipTo("interface")
		return nil
	case "type":
		if !p.isOpAt(1, "(") {
			p.derivedType()
			return nil
		}
	case "enum":
		p.skipTo("enum")
		return nil
	}
	b := p.simple(c)
	p.advance()
	return b
}

// simple parses a statement that has no body, from the current token.
// It does not move to the next statement, so that it also serves the
// action of a logical IF.
func (p *parser) simple(c class) ir.Block {
	switch {
	case c.kind == kAssign:
		return p.finish(p.assignment())
	case typeWords[c.word]:
		return p.finishDecl(p.typeDecl())
	case ioStatements[c.word]:
		return p.finish(p.io())
	}
	switch c.word {
	case "call":
		return p.finish(p.call())
	case "allocate", "deallocate":
		return p.finish(p.allocate())
	case "go", "goto":
		return p.finish(p.goTo())
	case "exit", "cycle":
		p.next()
		j := &ir.Jump{Pos: p.here(), Kind: c.word}
		if p.peek().kind == tName {
			j.Label = p.next().s
		}
		return p.finish(j)
	case "stop", "error":
		p.i = len(p.toks) // the stop code does not matter
		return p.finish(&ir.Jump{Pos: p.here(), Kind: "stop"})
	case "return":
		r := &ir.Return{Pos: p.here()}
		if p.next(); !p.atEnd() {
			r.Value = p.expr()
		}
		return p.finish(r)
	case "if":
		return p.logicalIf()
	case "where":
		return p.whereStmt()
	case "forall":
		return p.forallStmt()
	}
	return p.specification(c.word)
}

// specification parses the specification statements other than type
// declarations, and skips the statements the IR does not keep.
func (p *parser) specification(word string) ir.Block {
	p.next()
	switch word {
	case "dimension":
		return p.finishDecl(p.dimension())
	case "common":
		return p.finishDecl(p.common())
	case "parameter":
		return p.finishDecl(p.parameter())
	case "implicit":
		p.implicit()
	case "use":
		p.use()
	case "external":
		p.external()
	case "namelist":
		p.namelist()
	case "":
		p.fail("unrecognised statement")
	default:
		if !ignored[word] {
			p.fail("unrecognised statement " + word)
		}
		p.i = len(p.toks)
	}
	p.report()
	return nil
}

// ignored are statements that carry nothing the IR keeps.
var ignored = setOf("continue", "format", "data", "save", "intrinsic", "intent", "optional", "public",
	"private", "protected", "allocatable", "pointer", "target", "equivalence", "import",
	"entry", "include", "value", "volatile", "asynchronous", "contiguous", "bind", "sequence",
	"generic", "final", "procedure", "nullify", "pause", "assign", "sync", "lock", "unlock",
	"event", "form", "fail", "codimension", "enumerator", "automatic", "static", "virtual", "options",
	"structure", "record", "map", "union", "cdec", "dec", "accept", "punch")

// finish ends a simple statement: the hoisted calls and s, or nothing if
// the statement could not be parsed (the problem goes to the errors).
func (p *parser) finish(s ir.Stmt) ir.Block {
	if p.report() {
		return nil
	}
	return append(p.takeHoist(), s)
}

// finishDecl ends a declaration statement.
func (p *parser) finishDecl(b ir.Block) ir.Block {
	p.report()
	if p.sc.kind == "" {
		return nil // module declarations live in the file's globals
	}
	return b
}
