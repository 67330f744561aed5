package cfront

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// expr lowers expression i. Calls, assignments and increments inside it
// are hoisted into the pending statements, innermost first.
func (b *builder) expr(i int32) ir.Expr {
	if i == none {
		return nil
	}
	t := b.t
	if t.missing(i) {
		return ir.Unknown{}
	}
	switch t.kind(i) {
	case kIdentifier:
		return ir.Ref{Name: b.inScope(t.text(i))}
	case kFieldIdentifier, kNamespaceIdentifier, kTypeIdentifier, kThis:
		return ir.Ref{Name: t.text(i)}
	case kQualifiedIdentifier:
		return ir.Ref{Name: b.qualifiedName(i)}
	case kNumberLiteral:
		return parseNumber(string(t.bytes(i)))
	case kCharLiteral:
		return ir.Int{V: charValue(unescape(b.literalContent(i))), Char: true}
	case kStringLiteral, kRawStringLiteral:
		return ir.Str{V: b.stringValue(i)}
	case kConcatenatedString:
		var sb strings.Builder
		for c := t.first(i); c != none; c = t.next(c) {
			if k := t.kind(c); k == kStringLiteral || k == kRawStringLiteral {
				sb.WriteString(b.stringValue(c))
			} else if t.named(c) {
				// A macro between literals ("x" PRId64 "y"): keep its name.
				sb.WriteString(t.text(c))
			}
		}
		return ir.Str{V: sb.String()}
	case kTrue:
		return ir.Int{V: 1}
	case kFalse, kNull:
		return ir.Int{V: 0}
	case kParenthesizedExpression:
		return b.expr(t.firstNamed(i))
	case kSubscriptExpression:
		return b.index(i)
	case kFieldExpression:
		return ir.Field{X: b.expr(t.child(i, fArgument)), Name: b.fieldName(i)}
	case kUnaryExpression, kPointerExpression:
		return ir.Unary{Op: b.op(t.child(i, fOperator)), X: b.expr(t.child(i, fArgument))}
	case kBinaryExpression:
		op := b.op(t.child(i, fOperator))
		l := b.expr(t.child(i, fLeft))
		if op != "&&" && op != "||" {
			return ir.Binary{Op: op, L: l, R: b.expr(t.child(i, fRight))}
		}
		// The calls of the right side run only when the left one does not
		// decide: "full && flush(o)" flushes when full.
		r, right := b.isolate(func() ir.Expr { return b.expr(t.child(i, fRight)) })
		switch {
		case len(right) == 0:
		case op == "&&":
			b.hoist(&ir.If{Pos: b.pos(i), Cond: l, Then: right})
		default:
			b.hoist(&ir.If{Pos: b.pos(i), Cond: l, Else: right})
		}
		return ir.Binary{Op: op, L: l, R: r}
	case kConditionalExpression:
		// The calls of each side run only when it is chosen: they are
		// hoisted into the branches of an If.
		c := b.expr(t.child(i, fCondition))
		x, then := b.isolate(func() ir.Expr { return b.expr(t.child(i, fConsequence)) })
		y, els := b.isolate(func() ir.Expr { return b.expr(t.child(i, fAlternative)) })
		if len(then)+len(els) > 0 {
			b.hoist(&ir.If{Pos: b.pos(i), Cond: c, Then: then, Else: els})
		}
		return ir.Cond{C: c, T: x, F: y}
	case kCastExpression:
		return ir.Cast{Type: b.baseType(t.child(i, fType)), X: b.expr(t.child(i, fValue))}
	case kSizeofExpression:
		return b.sizeOf(i)
	case kOffsetofExpression:
		return b.offsetOf(i)
	case kCallExpression:
		return b.call(i)
	case kAssignmentExpression:
		return b.assign(i)
	case kUpdateExpression:
		return b.update(i)
	case kCommaExpression:
		b.effects(t.child(i, fLeft))
		return b.expr(t.child(i, fRight))
	case kNewExpression:
		return b.newExpr(i)
	case kDeleteExpression:
		return b.deleteExpr(i)
	case kLambdaExpression:
		return ir.Unknown{Text: "lambda"}
	case kInitializerList:
		if n := t.firstNamed(i); n != none && t.next(n) == none {
			return b.expr(n)
		}
		b.elements(i)
		return ir.Unknown{Text: t.text(i)}
	default:
		return ir.Unknown{Text: t.text(i)}
	}
}

// literalContent returns the text between the quotes of a character or
// string literal (its content and escape sequences).
func (b *builder) literalContent(i int32) string {
	t := b.t
	start, end := t.n[i].end, t.n[i].start
	for c := t.first(i); c != none; c = t.next(c) {
		if t.named(c) {
			start = min(start, t.n[c].start)
			end = max(end, t.n[c].end)
		}
	}
	if start >= end {
		return ""
	}
	return string(t.src[start:end])
}

// stringValue returns the decoded value of a string literal.
func (b *builder) stringValue(i int32) string {
	t := b.t
	if t.kind(i) == kRawStringLiteral {
		if c := t.childOfKind(i, kRawStringContent); c != none {
			return string(t.bytes(c))
		}
		return ""
	}
	return unescape(b.literalContent(i))
}

// qualifiedName returns the text of a qualified identifier without
// whitespace.
func (b *builder) qualifiedName(i int32) string {
	s := b.t.text(i)
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Join(strings.Fields(s), "")
	}
	if ns, rest, ok := strings.Cut(s, "::"); ok {
		if target, ok := b.aliases[ns]; ok {
			s = target + "::" + rest
		}
	}
	return s
}

// fieldName returns the member name of a field expression.
func (b *builder) fieldName(i int32) string {
	if f := b.t.child(i, fField); f != none {
		return b.t.text(f)
	}
	return ""
}

// index lowers a[i][j] to one Index with the indices outermost first.
func (b *builder) index(i int32) ir.Expr {
	t := b.t
	var chain []int32
	for t.kind(i) == kSubscriptExpression {
		chain = append(chain, i)
		i = t.child(i, fArgument)
		if i == none {
			break
		}
	}
	x := ir.Index{X: b.expr(i)}
	for k := len(chain) - 1; k >= 0; k-- {
		s := chain[k]
		if idx := t.child(s, fIndex); idx != none {
			x.Idx = append(x.Idx, b.expr(idx))
			continue
		}
		if list := t.child(s, fIndices); list != none {
			for c := t.first(list); c != none; c = t.next(c) {
				if t.named(c) {
					x.Idx = append(x.Idx, b.expr(c))
				}
			}
		}
	}
	return x
}

// sizeOf lowers sizeof(type) and sizeof expr. A parenthesized name that
// tree-sitter read as a type but that is a variable in scope is an
// expression.
func (b *builder) sizeOf(i int32) ir.Expr {
	t := b.t
	if ty := t.child(i, fType); ty != none {
		inner := t.child(ty, fType)
		if inner != none && t.kind(inner) == kTypeIdentifier && t.child(ty, fDeclarator) == none {
			if name := t.text(inner); b.isVar(name) {
				return ir.SizeOf{X: ir.Ref{Name: name}}
			}
		}
		return ir.SizeOf{Type: b.baseType(ty)}
	}
	v := t.child(i, fValue)
	if v != none && t.kind(v) == kParenthesizedExpression {
		// sizeof(rec), rec a typedef tree-sitter took for a name
		if in := t.firstNamed(v); in != none && t.kind(in) == kIdentifier {
			if name := t.text(in); !b.isVar(name) && b.types.size(name) > 0 {
				return ir.SizeOf{Type: ir.Type{Name: name, Size: b.types.size(name)}}
			}
		}
	}
	return ir.SizeOf{X: b.expr(v)}
}

// offsetOf lowers offsetof(T, m) to the offset of member m in the
// structure T defined in the file, when its layout is known.
func (b *builder) offsetOf(i int32) ir.Expr {
	t := b.t
	ty, m := t.child(i, fType), t.child(i, fMember)
	if ty != none && m != none {
		name := b.baseType(ty).Name
		offs, ok := b.offsets[name]
		if !ok {
			offs = b.offsets[b.prefix+name]
		}
		if off, ok := offs[t.text(m)]; ok {
			return ir.Int{V: off}
		}
	}
	return ir.Unknown{Text: t.text(i)}
}

// args lowers the arguments of a call.
func (b *builder) args(list int32) []ir.Expr {
	if list == none {
		return nil
	}
	t := b.t
	var out []ir.Expr
	for c := t.first(list); c != none; c = t.next(c) {
		if t.named(c) {
			out = append(out, b.expr(c))
		}
	}
	return out
}

// castNames are the C++ casts, which look like template function calls.
var castNames = map[string]bool{
	"static_cast": true, "reinterpret_cast": true, "const_cast": true, "dynamic_cast": true,
	"std::bit_cast": true, "bit_cast": true,
}

// call hoists a call and returns the CallExpr that refers to it.
func (b *builder) call(i int32) ir.Expr {
	t := b.t
	fn := t.child(i, fFunction)
	argList := t.child(i, fArguments)
	c := &ir.Call{Pos: b.pos(i)}
	switch k := kindOf(t, fn); k {
	case kIdentifier:
		c.Callee = t.text(fn)
		if _, isMacro := b.macros[c.Callee]; isMacro && !b.locals[c.Callee] {
			c.Args = b.args(argList)
			if x, ok := b.expandMacro(c.Callee, c.Args, 0); ok {
				return x
			}
			argList = none // lowered
		}
		if b.locals[c.Callee] {
			// a function pointer variable
			c.Via, c.Callee, c.Indirect = c.Callee, "", true
		}
	case kQualifiedIdentifier:
		c.Callee = trimTemplateArgs(b.qualifiedName(fn))
	case kTemplateFunction:
		name := t.child(fn, fName)
		callee := b.qualifiedName(name)
		if castNames[callee] {
			var ty ir.Type
			if ta := t.child(fn, fArguments); ta != none {
				ty = b.baseType(t.firstNamed(ta))
			}
			var x ir.Expr
			if a := b.args(argList); len(a) > 0 {
				x = a[0]
			}
			return ir.Cast{Type: ty, X: x}
		}
		c.Callee = callee
	case kFieldExpression:
		c.Receiver = b.expr(t.child(fn, fArgument))
		name := b.fieldName(fn)
		if f := t.child(fn, fField); f != none && t.kind(f) != kFieldIdentifier {
			name = trimTemplateArgs(b.qualifiedName(f))
		}
		c.Callee = name
	case kParenthesizedExpression:
		// (*fp)(x), (f)(x)
		inner := t.firstNamed(fn)
		if inner != none && t.kind(inner) == kIdentifier && !b.locals[t.text(inner)] && !b.globals[t.text(inner)] {
			c.Callee = t.text(inner)
		} else {
			b.expr(fn)
			c.Indirect = true
			c.Via = pointerName(t, inner)
		}
	default:
		if fn != none {
			b.expr(fn) // hoist what the callee expression contains
		}
		c.Indirect = true
	}
	if argList != none {
		c.Args = b.args(argList)
	}
	b.hoist(c)
	b.lastCallNode = i
	if c.Indirect && c.Via != "" {
		// The value of a call through a variable is named after it:
		// u(rng) with u a std::uniform_real_distribution.
		return ir.CallExpr{Callee: c.Via, Args: c.Args}
	}
	return ir.CallExpr{Callee: c.Callee, Args: c.Args}
}

// pointerName returns the variable a parenthesised callee names: fp in
// "(fp)(x)" or "(*fp)(x)", else "".
func pointerName(t *tree, i int32) string {
	if i != none && t.kind(i) == kPointerExpression {
		i = t.child(i, fArgument)
	}
	if i != none && t.kind(i) == kIdentifier {
		return t.text(i)
	}
	return ""
}

// kindOf returns the kind of node i, or kOther for none.
func kindOf(t *tree, i int32) kind {
	if i == none {
		return kOther
	}
	return t.kind(i)
}

// trimTemplateArgs drops the template arguments of a callee name:
// "std::make_unique<T>" → "std::make_unique".
func trimTemplateArgs(s string) string {
	if k := strings.IndexByte(s, '<'); k > 0 && !strings.HasPrefix(s[k:], "<<") && !strings.HasPrefix(s[k:], "<=") {
		return s[:k]
	}
	return s
}

// target returns the variable an assignment to the lvalue node i assigns
// and whether the assignment is partial (an element or member of it).
func (b *builder) target(i int32) (string, bool) {
	t := b.t
	partial := false
	for i != none {
		switch t.kind(i) {
		case kIdentifier:
			return b.inScope(t.text(i)), partial
		case kQualifiedIdentifier:
			return b.qualifiedName(i), partial
		case kParenthesizedExpression:
			i = t.firstNamed(i)
		case kSubscriptExpression:
			partial = true
			i = t.child(i, fArgument)
		case kPointerExpression:
			partial = true
			i = t.child(i, fArgument)
		case kFieldExpression:
			if a := t.child(i, fArgument); a != none && t.kind(a) == kThis {
				return b.fieldName(i), partial // this->n = ...: the member
			}
			partial = true
			i = t.child(i, fArgument)
		default:
			return "", true
		}
	}
	return "", true
}

// memberOf returns the member an assignment to the lvalue i stores into:
// "f" for x.f and p->f (in parentheses too), "" for anything else,
// this->f included (target names it).
func (b *builder) memberOf(i int32) string {
	t := b.t
	for i != none && t.kind(i) == kParenthesizedExpression {
		i = t.firstNamed(i)
	}
	if i == none || t.kind(i) != kFieldExpression {
		return ""
	}
	if a := t.child(i, fArgument); a != none && t.kind(a) == kThis {
		return ""
	}
	return b.fieldName(i)
}

// assign hoists an assignment and returns its target as an expression.
func (b *builder) assign(i int32) ir.Expr {
	t := b.t
	left := t.child(i, fLeft)
	right := t.child(i, fRight)
	lv := b.expr(left)
	val := b.expr(right)
	name, partial := b.target(left)
	op := b.op(t.child(i, fOperator))
	if op == "=" && !partial && name != "" {
		b.setResult(right, name)
	}
	b.hoist(&ir.Assign{Pos: b.pos(i), Target: name, Op: op, Value: val, Partial: partial, Field: b.memberOf(left), Element: element(lv)})
	return lv
}

// update hoists ++ or -- as an Assign of "+=" or "-=" 1.
func (b *builder) update(i int32) ir.Expr {
	t := b.t
	arg := t.child(i, fArgument)
	lv := b.expr(arg)
	op := "+="
	if o := t.child(i, fOperator); o != none && string(t.bytes(o)) == "--" {
		op = "-="
	}
	name, partial := b.target(arg)
	b.hoist(&ir.Assign{Pos: b.pos(i), Target: name, Op: op, Value: ir.Int{V: 1}, Partial: partial, Field: b.memberOf(arg), Element: element(lv)})
	return lv
}

// element returns an lvalue when it is an array element (ir.Assign's
// Element), else nil.
func element(lv ir.Expr) ir.Expr {
	if ix, ok := lv.(ir.Index); ok {
		return ix
	}
	return nil
}

// newExpr hoists new T (a Call of "new" with SizeOf(T) and the
// constructor arguments) or new T[n] (a Call of "new[]" with n and
// SizeOf(T)).
func (b *builder) newExpr(i int32) ir.Expr {
	t := b.t
	ty := b.baseType(t.child(i, fType))
	c := &ir.Call{Pos: b.pos(i), Callee: "new"}
	if d := t.child(i, fDeclarator); d != none && t.kind(d) == kNewDeclarator {
		c.Callee = "new[]"
		if n := t.child(d, fLength); n != none {
			c.Args = append(c.Args, b.expr(n))
		}
		c.Args = append(c.Args, ir.SizeOf{Type: ty})
	} else {
		c.Args = append(c.Args, ir.SizeOf{Type: ty})
		if a := t.child(i, fArguments); a != none {
			c.Args = append(c.Args, b.args(a)...)
		}
	}
	b.hoist(c)
	b.lastCallNode = i
	return ir.CallExpr{Callee: c.Callee, Args: c.Args}
}

// deleteExpr hoists delete x (a Call of "delete" or "delete[]").
func (b *builder) deleteExpr(i int32) ir.Expr {
	t := b.t
	c := &ir.Call{Pos: b.pos(i), Callee: "delete"}
	for k := t.first(i); k != none; k = t.next(k) {
		switch {
		case !t.named(k) && string(t.bytes(k)) == "[":
			c.Callee = "delete[]"
		case t.named(k):
			c.Args = append(c.Args, b.expr(k))
		}
	}
	b.hoist(c)
	b.lastCallNode = i
	return ir.CallExpr{Callee: c.Callee, Args: c.Args}
}

// op returns the spelling of an operator token, without allocating for
// the usual ones.
func (b *builder) op(i int32) string {
	if i == none {
		return ""
	}
	tok := b.t.bytes(i)
	switch string(tok) {
	case "=":
		return "="
	case "+":
		return "+"
	case "-":
		return "-"
	case "*":
		return "*"
	case "/":
		return "/"
	case "%":
		return "%"
	case "<":
		return "<"
	case "<=":
		return "<="
	case ">":
		return ">"
	case ">=":
		return ">="
	case "==":
		return "=="
	case "!=":
		return "!="
	case "&&":
		return "&&"
	case "||":
		return "||"
	case "!":
		return "!"
	case "&":
		return "&"
	case "|":
		return "|"
	case "^":
		return "^"
	case "~":
		return "~"
	case "<<":
		return "<<"
	case ">>":
		return ">>"
	case "+=":
		return "+="
	case "-=":
		return "-="
	case "*=":
		return "*="
	case "/=":
		return "/="
	case "%=":
		return "%="
	case "&=":
		return "&="
	case "|=":
		return "|="
	case "^=":
		return "^="
	case "<<=":
		return "<<="
	case ">>=":
		return ">>="
	case "and":
		return "&&"
	case "or":
		return "||"
	case "not":
		return "!"
	}
	return b.t.intern(tok)
}

// elements lowers the elements of an initialiser list whose value is not
// kept, for the calls and assignments they contain ({k, hash(buf, n)},
// {.sum = f(x)}, nested lists).
func (b *builder) elements(list int32) {
	t := b.t
	for c := t.first(list); c != none; c = t.next(c) {
		switch {
		case !t.named(c):
		case t.kind(c) == kInitializerList:
			b.elements(c)
		case t.kind(c) == kInitializerPair:
			if v := t.child(c, fValue); v != none {
				if t.kind(v) == kInitializerList {
					b.elements(v)
				} else {
					b.effects(v)
				}
			}
		default:
			b.effects(c)
		}
	}
}
