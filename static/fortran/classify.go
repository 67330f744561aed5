package fortran

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// kind is the class of a statement as far as block structure goes.
type kind int

const (
	kOther        kind = iota // declaration or executable statement
	kAssign                   // assignment or pointer assignment
	kEndUnit                  // END [PROGRAM|SUBROUTINE|FUNCTION|MODULE|...]
	kEndConstruct             // END DO, END IF, END SELECT, ...
	kElse                     // ELSE
	kElseIf                   // ELSE IF
	kElseWhere                // ELSEWHERE
	kCase                     // CASE, TYPE IS, CLASS IS, CLASS DEFAULT
	kContains                 // CONTAINS
	kProgram                  // PROGRAM
	kModule                   // MODULE, SUBMODULE
	kProc                     // SUBROUTINE or FUNCTION header
	kBlockData                // BLOCK DATA
)

// class is a classified statement. The parser's token index is left after
// the construct name and the words of the class's keyword.
type class struct {
	kind  kind
	word  string // the keyword, or for END the construct ("do", "if", ...)
	label string // construct name ("outer: do")
}

// endWords are the words that may follow END (or be glued to it).
var endWords = setOf("do", "if", "select", "where", "forall", "associate", "block", "critical",
	"interface", "type", "enum", "team", "program", "subroutine", "function", "module", "submodule",
	"procedure", "blockdata")

// unitEnds are the END words that end a program unit.
var unitEnds = setOf("", "program", "subroutine", "function", "module", "submodule", "procedure", "blockdata")

// typeWords start a type specification.
var typeWords = setOf("integer", "real", "doubleprecision", "double", "complex", "doublecomplex",
	"logical", "character", "byte", "type", "class")

// prefixWords may precede SUBROUTINE or FUNCTION in a procedure header.
var prefixWords = setOf("recursive", "pure", "elemental", "impure", "non_recursive", "module")

// classify lexes and classifies the current statement.
func (p *parser) classify() class {
	p.load()
	return p.classifyHere()
}

// classifyHere classifies the statement starting at the current token
// (the action of a logical IF, WHERE or FORALL statement).
func (p *parser) classifyHere() class {
	var c class
	if p.peek().kind == tName && p.isOpAt(1, ":") && p.peekAt(2).kind == tName {
		c.label = p.next().s
		p.next()
	}
	if p.isAssignment() {
		c.kind = kAssign
		return c
	}
	w := p.peek().s
	if p.peek().kind != tName {
		return c
	}
	switch {
	case w == "end" || strings.HasPrefix(w, "end") && endWords[w[3:]]:
		if w == "end" && p.isNameAt(1, "file") {
			c.word = w // END FILE unit
			return c
		}
		p.next()
		c.word = strings.TrimPrefix(w, "end")
		if c.word == "" && p.peek().kind == tName && endWords[p.peek().s] {
			c.word = p.next().s
			if c.word == "block" && p.acceptName("data") {
				c.word = "blockdata"
			}
		}
		c.kind = kEndConstruct
		if unitEnds[c.word] {
			c.kind = kEndUnit
		}
	case w == "else" || w == "elseif" || w == "elsewhere":
		p.next()
		switch {
		case w == "elseif" || p.acceptName("if"):
			c.kind = kElseIf
		case w == "elsewhere" || p.acceptName("where"):
			c.kind = kElseWhere
		default:
			c.kind = kElse
		}
	case w == "case" || (w == "type" || w == "class") && p.isNameAt(1, "is") || w == "class" && p.isNameAt(1, "default"):
		c.kind, c.word = kCase, w
	case w == "contains" && p.peekAt(1).kind == tEOF:
		c.kind = kContains
	case w == "program" && p.peekAt(1).kind == tName:
		c.kind = kProgram
	case (w == "module" || w == "submodule") && !p.isHeader():
		c.kind, c.word = kModule, w
	case w == "blockdata" || w == "block" && p.isNameAt(1, "data"):
		c.kind = kBlockData
	case p.isHeader():
		c.kind = kProc
	default:
		c.word = w
	}
	return c
}

// isAssignment reports whether the statement is "designator = expr" or
// "designator => expr".
func (p *parser) isAssignment() bool {
	j := p.i
	if j >= len(p.toks) || p.toks[j].kind != tName {
		return false
	}
	j++
	for j < len(p.toks) {
		t := p.toks[j]
		switch {
		case t.kind == tOp && t.s == "(":
			j = matchParen(p.toks, j)
		case t.kind == tOp && t.s == "%" && j+1 < len(p.toks) && p.toks[j+1].kind == tName:
			j += 2
		case t.kind == tOp && (t.s == "=" || t.s == "=>"):
			return true
		default:
			return false
		}
	}
	return false
}

// matchParen returns the index after the parenthesis closing toks[j].
func matchParen(toks []token, j int) int {
	depth := 0
	for ; j < len(toks); j++ {
		if toks[j].kind != tOp {
			continue
		}
		switch toks[j].s {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return j
}

// isHeader reports whether the statement is a SUBROUTINE or FUNCTION
// header.
func (p *parser) isHeader() bool {
	_, _, ok := headerName(p.toks[p.i:])
	return ok
}

// headerName recognises a procedure header among toks: prefixes and a
// type specification, then SUBROUTINE or FUNCTION and the name. A
// separate module procedure ("module procedure name") counts as a
// subroutine.
func headerName(toks []token) (name string, k ir.FuncKind, ok bool) {
	if len(toks) == 0 || toks[0].kind != tName {
		return "", "", false
	}
	if w := toks[0].s; !prefixWords[w] && !typeWords[w] && w != "subroutine" && w != "function" {
		return "", "", false
	}
	for j := 0; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.kind == tOp && t.s == "(":
			j = matchParen(toks, j) - 1
		case t.kind == tOp && (t.s == "::" || t.s == "," || t.s == "="):
			return "", "", false
		case t.kind == tName && j+1 < len(toks) && toks[j+1].kind == tName:
			switch {
			case t.s == "subroutine" || t.s == "procedure" && j > 0 && toks[j-1].s == "module":
				return toks[j+1].s, ir.Subroutine, true
			case t.s == "function":
				return toks[j+1].s, ir.Function, true
			}
		}
	}
	return "", "", false
}
