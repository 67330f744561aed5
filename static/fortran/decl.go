package fortran

import (
	"slices"

	"github.com/iolens/iolens/static/ir"
)

// typeDecl parses a type declaration statement:
// type-spec [, attributes] [::] entity [, entity]...
func (p *parser) typeDecl() ir.Block {
	d := p.entities()
	var out ir.Block
	for _, e := range d.list {
		if d.external {
			p.sc.markExternal(e.name)
		} else if e.name != "" {
			out = append(out, p.declare(e.name, e.t, e.init, d.param, e.initText)...)
		}
	}
	return out
}

// entity is one name of a type declaration statement, with its type
// (dimensions and length included) and initial value.
type entity struct {
	name     string
	t        ir.Type
	init     ir.Expr
	initText string
}

// declaration is what a type declaration statement declares: its
// entities and the attributes that change how they are declared.
type declaration struct {
	list            []entity
	param, external bool
}

// entities parses the type specification, attributes and entity list of
// a type declaration statement (or a derived-type component definition)
// at the current token.
func (p *parser) entities() declaration {
	base := p.typeSpec()
	var d declaration
	var dims, los []ir.Expr
	var pointer bool
	for p.acceptOp(",") {
		switch p.name() {
		case "dimension":
			if p.isOp("(") {
				dims, los = p.dims()
			}
		case "parameter":
			d.param = true
		case "pointer":
			pointer = true
		case "external":
			d.external = true
		default: // allocatable, intent(in), save, target, bind(c), ...
			p.skipParens()
		}
	}
	p.acceptOp("::")
	for !p.atEnd() && p.bad == "" {
		e := entity{name: p.name(), t: base}
		e.t.Dims, e.t.Lower = dims, los
		if p.isOp("(") {
			e.t.Dims, e.t.Lower = p.dims()
		}
		if p.isOp("[") {
			p.skipGroup("[", "]")
		}
		if p.acceptOp("*") {
			start := p.i
			n := p.starLen()
			if isCharacter(e.t) {
				dims, los := e.t.Dims, e.t.Lower
				e.t = charLen(lower(p.text(start, p.i)), n)
				e.t.Dims, e.t.Lower = dims, los
			} else if n > 0 {
				e.t.Size = n
			}
		}
		if pointer {
			e.t.Pointer = 1
		}
		initStart := p.i
		switch {
		case p.acceptOp("=") || p.acceptOp("=>"):
			initStart = p.i
			e.init = p.expr()
		case p.isOp("/"): // DATA-style initialisation: integer n /5/
			p.next()
			for !p.atEnd() && !p.acceptOp("/") {
				p.next()
			}
		}
		e.initText = p.text(initStart, p.i)
		d.list = append(d.list, e)
		if !p.acceptOp(",") {
			break
		}
	}
	return d
}

// declare declares name in the current scope, or completes the
// declaration of a name already known there (a dummy argument, or a name
// of an earlier DIMENSION, COMMON or PARAMETER statement). It returns the
// Decl to emit, if any.
func (p *parser) declare(name string, t ir.Type, init ir.Expr, param bool, initText string) ir.Block {
	v := p.sc.vars[name]
	if v != nil {
		if t.Dims == nil {
			t.Dims, t.Lower = v.Type.Dims, v.Type.Lower
		}
		v.Type = t
		if init != nil {
			v.Init = init
		}
		v.Const = v.Const || param
		p.constant(v, initText)
		return nil
	}
	v = &ir.Var{Pos: p.here(), Name: name, Type: t, Init: init, Const: param}
	p.sc.vars[name] = v
	p.constant(v, initText)
	switch {
	case p.sc.kind == "": // module
		if !v.Const {
			p.file.Globals = append(p.file.Globals, v)
		}
		return nil
	case p.sc.dummies[name] != nil:
		return nil
	}
	return ir.Block{&ir.Decl{Pos: v.Pos, Var: v}}
}

// constant records a PARAMETER: modules' and main programs' constants are
// file constants; values of kind inquiries are kept for later kinds.
func (p *parser) constant(v *ir.Var, initText string) {
	if !v.Const || v.Init == nil {
		return
	}
	if p.sc.kind == "" || p.sc.kind == ir.MainProgram {
		p.setConst(v.Name, v.Init)
	}
	switch v.Init.(type) {
	case ir.CallExpr, ir.Ref: // kind(1d0), selected_real_kind(15), real64
		if k, ok := p.kindValue(v.Init, initText, 0); ok {
			p.kinds[v] = k
		}
	}
}

// implicitVar returns the variable name of the current scope, declaring
// it with its implicit type if needed.
func (p *parser) implicitVar(name string) (*ir.Var, ir.Block) {
	if name == "" {
		return &ir.Var{}, nil // the problem is already reported
	}
	if v := p.sc.vars[name]; v != nil {
		return v, nil
	}
	out := p.declare(name, p.sc.implicitType(name), nil, false, "")
	return p.sc.vars[name], out
}

// dimension parses DIMENSION a(n), b(m, k).
func (p *parser) dimension() ir.Block {
	p.acceptOp("::")
	var out ir.Block
	for !p.atEnd() && p.bad == "" {
		v, d := p.implicitVar(p.name())
		out = append(out, d...)
		if p.isOp("(") {
			v.Type.Dims, v.Type.Lower = p.dims()
		}
		if !p.acceptOp(",") {
			break
		}
	}
	return out
}

// common parses COMMON [/block/] a, b(n) [/block/ ...]. The variables are
// declared (with their dimensions) in the current scope.
func (p *parser) common() ir.Block {
	var out ir.Block
	for !p.atEnd() && p.bad == "" {
		switch {
		case p.acceptOp("//"):
		case p.acceptOp("/"):
			for !p.atEnd() && !p.acceptOp("/") {
				p.next()
			}
		case p.acceptOp(","):
		default:
			v, d := p.implicitVar(p.name())
			out = append(out, d...)
			if p.isOp("(") {
				v.Type.Dims, v.Type.Lower = p.dims()
			}
		}
	}
	return out
}

// parameter parses PARAMETER (n = 100, m = 2*n) and the DEC form without
// parentheses.
func (p *parser) parameter() ir.Block {
	paren := p.acceptOp("(")
	var out ir.Block
	for !p.atEnd() && !p.isOp(")") && p.bad == "" {
		name := p.name()
		p.expectOp("=")
		start := p.i
		init := p.expr()
		if name != "" {
			v, d := p.implicitVar(name)
			out = append(out, d...)
			v.Const, v.Init = true, init
			p.constant(v, p.text(start, p.i))
		}
		if !p.acceptOp(",") {
			break
		}
	}
	if paren {
		p.expectOp(")")
	}
	return out
}

// implicit parses IMPLICIT NONE and IMPLICIT type (a-h, o-z), ...
func (p *parser) implicit() {
	if p.acceptName("none") {
		p.sc.implicit = new([26]ir.Type)
		p.skipParens() // IMPLICIT NONE (TYPE, EXTERNAL)
		return
	}
	for !p.atEnd() && p.bad == "" {
		t := p.implicitType()
		p.expectOp("(")
		for !p.atEnd() && !p.isOp(")") && p.bad == "" {
			lo := p.name()
			hi := lo
			if p.acceptOp("-") {
				hi = p.name()
			}
			if lo != "" && hi != "" {
				p.sc.setImplicit(lo[0], hi[0], t)
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		if !p.acceptOp(",") {
			break
		}
	}
}

// implicitType parses the type of an IMPLICIT rule, where "real (a-h)"
// must not read the letter list as a kind.
func (p *parser) implicitType() ir.Type {
	j := p.i
	for j < len(p.toks) && !(p.toks[j].kind == tOp && p.toks[j].s == "(") {
		j++
	}
	if end := matchParen(p.toks, j); end < len(p.toks) && p.toks[end].kind == tOp && p.toks[end].s == "(" {
		return p.typeSpec() // the first group is the kind
	}
	all := p.toks
	p.toks = p.toks[:j]
	t := p.typeSpec()
	p.toks = all
	p.i = j
	return t
}

// use records USE of a module defined earlier in the file.
func (p *parser) use() {
	for p.acceptOp(",") {
		p.name() // intrinsic, non_intrinsic
	}
	p.acceptOp("::")
	if m := p.modules[p.name()]; m != nil {
		p.sc.uses = append(p.sc.uses, m)
	}
	p.i = len(p.toks) // ONLY lists and renames are not modelled
}

// external parses EXTERNAL f, g.
func (p *parser) external() {
	p.acceptOp("::")
	for !p.atEnd() && p.bad == "" {
		p.sc.markExternal(p.name())
		if !p.acceptOp(",") {
			break
		}
	}
}

// namelist parses NAMELIST /group/ name, ... [[,] /group/ name, ...]: the
// file's groups gain the variables (a group declared again in another
// procedure keeps one copy of each).
func (p *parser) namelist() {
	group := ""
	for !p.atEnd() && p.bad == "" {
		switch {
		case p.acceptOp("/"):
			group = p.name()
			p.expectOp("/")
		case p.acceptOp(","):
		default:
			name := p.name()
			if group == "" {
				p.fail("expected /group/ before " + name)
				return
			}
			if p.file.Namelists == nil {
				p.file.Namelists = map[string][]string{}
			}
			if !slices.Contains(p.file.Namelists[group], name) {
				p.file.Namelists[group] = append(p.file.Namelists[group], name)
			}
		}
	}
}
