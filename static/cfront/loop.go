package cfront

import (
	"github.com/iolens/iolens/static/ir"
)

// forStmt lowers a C for loop. The init clause is lowered before the loop;
// calls in the condition and the update are hoisted to the start of the
// body. A canonical counted loop gets Var, Lo, Hi, Step and Inclusive;
// any other keeps its condition in Cond and its update assignments at the
// end of the body.
func (b *builder) forStmt(i int32, out *ir.Block) {
	t := b.t
	loop := &ir.Loop{Pos: b.pos(i), Kind: ir.For, EndLine: t.endLine(i)}

	var lo ir.Expr
	loopVar := ""
	if init := t.child(i, fInitializer); init != none {
		before := len(*out)
		if t.kind(init) == kDeclaration {
			b.localDecl(init, out)
		} else {
			b.effects(init)
			b.flush(out)
		}
		loopVar, lo = initOf((*out)[before:])
	}

	// Condition and update: hoisted statements go to the body's start,
	// update assignments to its end.
	var head, tail ir.Block
	condNode := t.child(i, fCondition)
	if condNode != none {
		var pre ir.Block
		loop.Cond, pre = b.condition(condNode)
		head = append(head, pre...)
	}
	var updates []int32
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) == fUpdate {
			updates = append(updates, c)
		}
	}
	for _, u := range updates {
		for _, s := range b.effectBlock(u) {
			if _, ok := s.(*ir.Assign); ok {
				tail = append(tail, s)
			} else {
				head = append(head, s)
			}
		}
	}

	if loopVar != "" && condNode != none && len(updates) == 1 && len(tail) == 1 {
		if b.canonical(loop, loopVar, lo, condNode, tail[0].(*ir.Assign)) {
			loop.Cond, tail = nil, nil
		}
	}
	loop.Body = append(loop.Body, head...)
	b.stmt(t.child(i, fBody), &loop.Body)
	loop.Body = append(loop.Body, tail...)
	*out = append(*out, loop)
}

// initOf returns the variable and initial value of a loop's init clause
// when it is one plain assignment or initialised declaration (after the
// calls hoisted from its value).
func initOf(stmts ir.Block) (string, ir.Expr) {
	if len(stmts) == 0 {
		return "", nil
	}
	for _, s := range stmts[:len(stmts)-1] {
		if _, ok := s.(*ir.Call); !ok {
			return "", nil
		}
	}
	switch s := stmts[len(stmts)-1].(type) {
	case *ir.Assign:
		if s.Op == "=" && !s.Partial {
			return s.Target, s.Value
		}
	case *ir.Decl:
		if s.Var.Init != nil && s.Var.Type.Pointer == 0 {
			return s.Var.Name, s.Var.Init
		}
	}
	return "", nil
}

// canonical fills the counted-loop fields of loop when its condition
// compares v with a bound and its update steps v by a constant or
// invariant amount in the direction of the bound.
func (b *builder) canonical(loop *ir.Loop, v string, lo ir.Expr, condNode int32, upd *ir.Assign) bool {
	if upd.Target != v || upd.Partial {
		return false
	}
	cmp, ok := loop.Cond.(ir.Binary)
	if !ok {
		return false
	}
	op, hi := cmp.Op, cmp.R
	if !isRef(cmp.L, v) {
		if !isRef(cmp.R, v) {
			return false
		}
		op, hi = flipCmp(op), cmp.L // "n > i" is "i < n"
	}
	if refersTo(hi, v) {
		return false
	}

	var step ir.Expr
	switch upd.Op {
	case "+=":
		step = upd.Value
	case "-=":
		step = negate(upd.Value)
	case "=":
		// i = i + s, i = i - s
		bin, ok := upd.Value.(ir.Binary)
		if !ok || !isRef(bin.L, v) || refersTo(bin.R, v) {
			return false
		}
		switch bin.Op {
		case "+":
			step = bin.R
		case "-":
			step = negate(bin.R)
		default:
			return false
		}
	default:
		return false
	}
	if refersTo(step, v) {
		return false
	}

	sign := 0 // unknown
	if n, ok := step.(ir.Int); ok {
		switch {
		case n.V > 0:
			sign = 1
		case n.V < 0:
			sign = -1
		default:
			return false
		}
	}
	switch op {
	case "<", "<=":
		if sign < 0 {
			return false
		}
	case ">", ">=":
		if sign > 0 {
			return false
		}
	case "!=":
		if sign == 0 {
			return false
		}
	default:
		return false
	}
	loop.Var, loop.Lo, loop.Hi, loop.Step = v, lo, hi, step
	loop.Inclusive = op == "<=" || op == ">="
	return true
}

func isRef(e ir.Expr, name string) bool {
	r, ok := e.(ir.Ref)
	return ok && r.Name == name
}

// refersTo tells whether e mentions the variable name or calls anything.
func refersTo(e ir.Expr, name string) bool {
	switch e := e.(type) {
	case ir.Ref:
		return e.Name == name
	case ir.Unary:
		return refersTo(e.X, name)
	case ir.Binary:
		return refersTo(e.L, name) || refersTo(e.R, name)
	case ir.Cond:
		return refersTo(e.C, name) || refersTo(e.T, name) || refersTo(e.F, name)
	case ir.Index:
		if refersTo(e.X, name) {
			return true
		}
		for _, x := range e.Idx {
			if refersTo(x, name) {
				return true
			}
		}
	case ir.Field:
		return refersTo(e.X, name)
	case ir.Cast:
		return refersTo(e.X, name)
	case ir.SizeOf:
		return false
	case ir.CallExpr, ir.Unknown:
		return true
	}
	return false
}

func flipCmp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// negate returns -e, folding integer literals.
func negate(e ir.Expr) ir.Expr {
	if n, ok := e.(ir.Int); ok {
		return ir.Int{V: -n.V}
	}
	return ir.Unary{Op: "-", X: e}
}

// rangeFor lowers a C++ range-based for loop: Var is the element variable
// and Cond the range expression.
func (b *builder) rangeFor(i int32, out *ir.Block) {
	t := b.t
	loop := &ir.Loop{Pos: b.pos(i), Kind: ir.RangeFor, EndLine: t.endLine(i)}
	if init := t.child(i, fInitializer); init != none {
		b.stmt(init, out)
	}
	base := b.baseType(t.child(i, fType))
	if d := t.child(i, fDeclarator); d != none {
		info := b.declarator(d, base)
		loop.Var = info.name
		if info.name != "" {
			b.locals[info.name] = true
			loop.Body = append(loop.Body, &ir.Decl{Pos: b.pos(d), Var: &ir.Var{Pos: b.pos(d), Name: info.name, Type: info.typ}})
		}
	}
	if r := t.child(i, fRight); r != none {
		var pre []ir.Stmt
		loop.Cond, pre = b.isolate(func() ir.Expr { return b.expr(r) })
		*out = append(*out, pre...) // the range is evaluated once
	}
	b.stmt(t.child(i, fBody), &loop.Body)
	*out = append(*out, loop)
}

// whileStmt lowers a while or do-while loop; calls in the condition are
// hoisted to the start of the body.
func (b *builder) whileStmt(i int32, out *ir.Block) {
	t := b.t
	kind := ir.While
	if t.kind(i) == kDoStatement {
		kind = ir.DoWhile
	}
	loop := &ir.Loop{Pos: b.pos(i), Kind: kind, EndLine: t.endLine(i)}
	var pre ir.Block
	loop.Cond, pre = b.condition(t.child(i, fCondition))
	loop.Body = append(loop.Body, pre...)
	b.stmt(t.child(i, fBody), &loop.Body)
	*out = append(*out, loop)
}
