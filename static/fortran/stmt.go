package fortran

import "github.com/iolens/iolens/static/ir"

// assignment parses "target = value" or "target => value".
func (p *parser) assignment() ir.Stmt {
	a := &ir.Assign{Pos: p.here(), Target: p.next().s, Op: "="}
	for {
		switch {
		case p.isOp("("):
			p.args()
			a.Partial, a.Field = true, ""
			continue
		case p.acceptOp("%"):
			a.Partial, a.Field = true, p.name()
			continue
		}
		break
	}
	if !p.acceptOp("=") && !p.acceptOp("=>") {
		p.fail("expected \"=\"")
	}
	a.Value = p.expr()
	if ce, ok := a.Value.(ir.CallExpr); ok && len(p.hoist) > 0 {
		if c, ok := p.hoist[len(p.hoist)-1].(*ir.Call); ok && c.Callee == ce.Callee {
			c.Result = a.Target
		}
	}
	return a
}

// call parses CALL name[(args)] and CALL object%procedure(args).
func (p *parser) call() ir.Stmt {
	p.next()
	c := &ir.Call{Pos: p.here(), Callee: p.name()}
	var recv ir.Expr = ir.Ref{Name: c.Callee}
	for p.isOp("%") || p.isOp("(") && p.isOpAt(matchParen(p.toks, p.i)-p.i, "%") {
		if p.isOp("(") {
			args, _ := p.args()
			recv = ir.Index{X: recv, Idx: args}
		}
		p.next()
		c.Receiver, c.Callee = recv, p.name()
		recv = ir.Field{X: recv, Name: c.Callee}
	}
	c.Args = []ir.Expr{}
	if p.isOp("(") {
		c.Args, _ = p.args()
	}
	return c
}

// allocate parses ALLOCATE and DEALLOCATE into a call whose arguments are
// the objects, with their extents for ALLOCATE: allocate(a(n, 0:m))
// becomes allocate(a(n, m+1)). STAT=, SOURCE= and the like are dropped.
func (p *parser) allocate() ir.Stmt {
	c := &ir.Call{Pos: p.here(), Callee: p.next().s, Args: []ir.Expr{}}
	p.expectOp("(")
	if j := p.find("::"); j >= 0 { // allocate(real(8) :: a(n))
		p.i = j + 1
	}
	for !p.atEnd() && !p.isOp(")") && p.bad == "" {
		if p.peek().kind == tName && p.isOpAt(1, "=") {
			p.i += 2
			p.expr()
		} else {
			c.Args = append(c.Args, p.allocObject())
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return c
}

// allocObject parses an allocation object: name{%component}[(extents)].
func (p *parser) allocObject() ir.Expr {
	var x ir.Expr = ir.Ref{Name: p.name()}
	for {
		switch {
		case p.isOp("(") && p.isOpAt(matchParen(p.toks, p.i)-p.i, "%"):
			args, _ := p.args()
			x = ir.Index{X: x, Idx: args}
		case p.acceptOp("%"):
			x = ir.Field{X: x, Name: p.name()}
		case p.isOp("("):
			dims, _ := p.dims()
			x = ir.Index{X: x, Idx: dims}
		case p.isOp("["):
			p.skipGroup("[", "]")
		default:
			return x
		}
	}
}

// find returns the index of the first operator s from the current token,
// or -1.
func (p *parser) find(s string) int {
	for j := p.i; j < len(p.toks); j++ {
		if p.toks[j].kind == tOp && p.toks[j].s == s {
			return j
		}
	}
	return -1
}

// goTo parses GO TO label, the computed GO TO (l1, l2), i and the
// assigned GO TO v; the targets of the last two are not kept.
func (p *parser) goTo() ir.Stmt {
	if p.next().s == "go" && !p.acceptName("to") {
		p.fail("expected TO after GO")
	}
	j := &ir.Jump{Pos: p.here(), Kind: "goto"}
	if t := p.peek(); t.kind == tInt {
		j.Label = trimLabel(p.next().s)
	} else {
		p.i = len(p.toks)
	}
	return j
}

// trimLabel normalises a statement label: "0010" is "10".
func trimLabel(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
