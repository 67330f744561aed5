package fortran

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// derivedType parses a derived-type definition, from its TYPE statement
// to its END TYPE, into File.Types: the components in order (those of an
// EXTENDS parent first), with their default initialisation. Type-bound
// procedures after CONTAINS, SEQUENCE, PRIVATE and the kind and length
// parameters of a parameterised type are not kept.
func (p *parser) derivedType() {
	p.next() // TYPE
	var parent string
	for p.acceptOp(",") {
		if p.acceptName("extends") && p.acceptOp("(") {
			parent = p.name()
			p.expectOp(")")
			continue
		}
		p.name() // abstract, public, private, bind(c)
		p.skipParens()
	}
	p.acceptOp("::")
	name := p.name()
	p.bad = "" // parameterised types: the parameter list is not kept
	comps := append([]*ir.Var(nil), p.file.Types[parent]...)
	for p.advance(); !p.eof(); p.advance() {
		c := p.classify()
		switch {
		case c.kind == kEndConstruct && c.word == "type":
			p.advance()
			p.addType(name, comps)
			return
		case c.kind == kContains:
			p.skipTo("type")
			p.addType(name, comps)
			return
		case typeWords[c.word] && c.kind != kAssign:
			pos := p.here()
			for _, e := range p.entities().list {
				if e.name != "" {
					comps = append(comps, &ir.Var{Pos: pos, Name: e.name, Type: e.t, Init: e.init})
				}
			}
			p.report()
		}
	}
	p.errorf("missing END TYPE")
	p.addType(name, comps)
}

// addType records the derived type name with its components.
func (p *parser) addType(name string, comps []*ir.Var) {
	if name == "" {
		return
	}
	if p.file.Types == nil {
		p.file.Types = map[string][]*ir.Var{}
	}
	p.file.Types[strings.ToLower(name)] = comps
}
