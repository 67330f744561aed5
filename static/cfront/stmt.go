package cfront

import (
	"bytes"

	"github.com/iolens/iolens/static/ir"
)

// stmt lowers statement i, appending to out.
func (b *builder) stmt(i int32, out *ir.Block) {
	t := b.t
	switch t.kind(i) {
	case kCompoundStatement, kAttributedStatement:
		for c := t.first(i); c != none; c = t.next(c) {
			b.stmt(c, out)
		}
	case kNamespaceAliasDefinition:
		b.namespaceAlias(i)
	case kExpressionStatement:
		if e := t.firstNamed(i); e != none {
			b.effects(e)
			b.flush(out)
		}
	case kDeclaration:
		b.localDecl(i, out)
	case kIfStatement:
		b.ifStmt(i, out)
	case kForStatement:
		b.forStmt(i, out)
	case kForRangeLoop:
		b.rangeFor(i, out)
	case kWhileStatement, kDoStatement:
		b.whileStmt(i, out)
	case kSwitchStatement:
		b.switchStmt(i, out)
	case kReturnStatement:
		r := &ir.Return{Pos: b.pos(i)}
		if v := t.firstNamed(i); v != none {
			r.Value = b.expr(v)
		}
		b.flush(out)
		*out = append(*out, r)
	case kBreakStatement:
		*out = append(*out, &ir.Jump{Pos: b.pos(i), Kind: "break"})
	case kContinueStatement:
		*out = append(*out, &ir.Jump{Pos: b.pos(i), Kind: "continue"})
	case kGotoStatement:
		j := &ir.Jump{Pos: b.pos(i), Kind: "goto"}
		if l := t.child(i, fLabel); l != none {
			j.Label = t.text(l)
		}
		*out = append(*out, j)
	case kLabeledStatement:
		for c := t.first(i); c != none; c = t.next(c) {
			if t.field(c) != fLabel {
				b.stmt(c, out)
			}
		}
	case kThrowStatement:
		if v := t.firstNamed(i); v != none {
			b.expr(v)
		}
		b.flush(out)
		*out = append(*out, &ir.Jump{Pos: b.pos(i), Kind: "throw"})
	case kTryStatement:
		b.tryStmt(i, out)
	case kPreprocIf, kPreprocIfdef:
		*out = append(*out, b.preprocIf(i))
	case kTypeDefinition:
		b.typedef(i)
	case kStructSpecifier, kUnionSpecifier, kClassSpecifier, kEnumSpecifier:
		b.typeSpecifier(i)
	case kCaseStatement:
		b.caseBody(i, out)
	}
}

// block lowers statement i into a new block.
func (b *builder) block(i int32) ir.Block {
	if i == none {
		return nil
	}
	var out ir.Block
	b.stmt(i, &out)
	return out
}

// effects lowers an expression evaluated for its side effects; the
// statements it yields are left pending.
func (b *builder) effects(e int32) {
	t := b.t
	switch t.kind(e) {
	case kParenthesizedExpression:
		if c := t.firstNamed(e); c != none {
			b.effects(c)
		}
	case kCommaExpression:
		for c := t.first(e); c != none; c = t.next(c) {
			if t.named(c) {
				b.effects(c)
			}
		}
	case kCallExpression:
		if b.exitCall(e) {
			return
		}
		b.expr(e)
	case kConditionalExpression:
		cond := b.expr(t.child(e, fCondition))
		s := &ir.If{Pos: b.pos(e), Cond: cond}
		s.Then = b.effectBlock(t.child(e, fConsequence))
		s.Else = b.effectBlock(t.child(e, fAlternative))
		b.hoist(s)
	case kBinaryExpression:
		v := b.expr(e)
		if op := stringOp(v); op != "" {
			target, _ := b.target(b.leftmost(e))
			b.hoist(&ir.Assign{Pos: b.pos(e), Target: target, Op: op, Value: v, Partial: true})
		}
	default:
		b.expr(e)
	}
}

// effectBlock lowers an expression evaluated for its side effects into a
// block of its own.
func (b *builder) effectBlock(e int32) ir.Block {
	if e == none {
		return nil
	}
	saved := b.pending
	b.pending = nil
	b.effects(e)
	out := ir.Block(b.pending)
	b.pending = saved
	return out
}

// stringOp returns "<<" or ">>" when v is a chain of stream insertions or
// extractions, else "".
func stringOp(v ir.Expr) string {
	bin, ok := v.(ir.Binary)
	if !ok || (bin.Op != "<<" && bin.Op != ">>") {
		return ""
	}
	return bin.Op
}

// leftmost returns the leftmost operand of a chain of binary expressions.
func (b *builder) leftmost(e int32) int32 {
	t := b.t
	for t.kind(e) == kBinaryExpression {
		l := t.child(e, fLeft)
		if l == none {
			break
		}
		e = l
	}
	return e
}

// exitCall lowers a statement-level call of exit, abort and friends to a
// Jump "exit"; it reports false for other calls.
func (b *builder) exitCall(e int32) bool {
	t := b.t
	fn := t.child(e, fFunction)
	if fn == none {
		return false
	}
	switch string(t.bytes(fn)) {
	case "exit", "_exit", "_Exit", "quick_exit", "abort", "std::exit", "std::abort", "std::quick_exit", "std::_Exit":
	default:
		return false
	}
	b.args(t.child(e, fArguments)) // hoists the calls in the arguments
	b.hoist(&ir.Jump{Pos: b.pos(e), Kind: "exit"})
	return true
}

// condition lowers the condition of an if, while, do or switch: a
// parenthesized expression or a C++ condition clause, which may declare a
// variable or start with an init statement. The declarations and hoisted
// calls are returned apart.
func (b *builder) condition(c int32) (ir.Expr, ir.Block) {
	t := b.t
	if c == none {
		return nil, nil
	}
	saved := b.pending
	b.pending = nil
	defer func() { b.pending = saved }()
	var pre ir.Block
	var e ir.Expr
	switch t.kind(c) {
	case kConditionClause:
		for n := t.first(c); n != none; n = t.next(n) {
			if !t.named(n) {
				continue
			}
			switch t.kind(n) {
			case kDeclaration:
				b.localDecl(n, &pre)
				if d := lastDecl(pre); d != nil {
					e = ir.Ref{Name: d.Var.Name}
				}
			default:
				if t.field(n) == fValue {
					e = b.expr(n)
				} else {
					b.stmt(n, &pre) // init statement
				}
			}
		}
	case kParenthesizedExpression:
		if n := t.firstNamed(c); n != none {
			e = b.expr(n)
		}
	default:
		e = b.expr(c)
	}
	b.flush(&pre)
	return e, pre
}

func lastDecl(bl ir.Block) *ir.Decl {
	if len(bl) == 0 {
		return nil
	}
	d, _ := bl[len(bl)-1].(*ir.Decl)
	return d
}

// ifStmt lowers an if statement; else-if chains nest.
func (b *builder) ifStmt(i int32, out *ir.Block) {
	t := b.t
	cond, pre := b.condition(t.child(i, fCondition))
	s := &ir.If{Pos: b.pos(i), Cond: cond}
	s.Then = b.block(t.child(i, fConsequence))
	if alt := t.child(i, fAlternative); alt != none {
		if t.kind(alt) == kElseClause {
			for c := t.first(alt); c != none; c = t.next(c) {
				b.stmt(c, &s.Else)
			}
		} else {
			s.Else = b.block(alt)
		}
	}
	*out = append(*out, pre...)
	*out = append(*out, s)
}

// switchStmt lowers a switch; each case label starts an alternative.
func (b *builder) switchStmt(i int32, out *ir.Block) {
	t := b.t
	tag, pre := b.condition(t.child(i, fCondition))
	s := &ir.Switch{Pos: b.pos(i), Tag: tag}
	if body := t.child(i, fBody); body != none {
		b.cases(s, body)
	}
	*out = append(*out, pre...)
	*out = append(*out, s)
}

// cases collects the alternatives of a switch body; statements outside any
// case label join the current alternative.
func (b *builder) cases(s *ir.Switch, body int32) {
	t := b.t
	for c := t.first(body); c != none; c = t.next(c) {
		switch t.kind(c) {
		case kCaseStatement:
			var alt ir.Block
			b.caseBody(c, &alt)
			s.Cases = append(s.Cases, alt)
		case kPreprocIf, kPreprocIfdef, kPreprocElse, kPreprocElif, kPreprocElifdef:
			b.cases(s, c)
		default:
			if len(s.Cases) > 0 {
				b.stmt(c, &s.Cases[len(s.Cases)-1])
			}
		}
	}
}

// caseBody lowers the statements of a case label.
func (b *builder) caseBody(i int32, out *ir.Block) {
	t := b.t
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) != fValue {
			b.stmt(c, out)
		}
	}
}

// tryStmt inlines a try block; each catch clause becomes an If with an
// Unknown condition.
func (b *builder) tryStmt(i int32, out *ir.Block) {
	t := b.t
	for c := t.first(i); c != none; c = t.next(c) {
		switch {
		case t.field(c) == fBody:
			b.stmt(c, out)
		case t.kind(c) == kCatchClause:
			cond := "catch"
			if p := t.child(c, fParameters); p != none {
				cond += " " + t.text(p)
			}
			*out = append(*out, &ir.If{Pos: b.pos(c), Cond: ir.Unknown{Text: cond}, Then: b.block(t.child(c, fBody))})
		}
	}
}

// preprocIf lowers a #if/#ifdef block in a function body, or an #elif of
// one, to an If with an Unknown condition that keeps every branch.
func (b *builder) preprocIf(i int32) *ir.If {
	t := b.t
	s := &ir.If{Pos: b.pos(i), Cond: ir.Unknown{Text: b.preprocCond(i)}}
	for c := t.first(i); c != none; c = t.next(c) {
		switch t.field(c) {
		case fName, fCondition:
		case fAlternative:
			switch t.kind(c) {
			case kPreprocElse:
				for e := t.first(c); e != none; e = t.next(e) {
					b.stmt(e, &s.Else)
				}
			default:
				s.Else = ir.Block{b.preprocIf(c)}
			}
		default:
			b.stmt(c, &s.Then)
		}
	}
	return s
}

// preprocCond returns the condition of a #if, #ifdef, #ifndef, #elif,
// #elifdef or #elifndef directive as text.
func (b *builder) preprocCond(i int32) string {
	t := b.t
	if c := t.child(i, fCondition); c != none {
		return t.text(c)
	}
	n := t.child(i, fName)
	if n == none {
		return ""
	}
	neg := ""
	if d := t.first(i); d != none && !t.named(d) {
		if bytes.Contains(t.bytes(d), []byte("ndef")) {
			neg = "!"
		}
	}
	return neg + "defined(" + t.text(n) + ")"
}
