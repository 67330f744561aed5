package fortran

import (
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// maxDepth bounds the nesting of parsed expressions; deeper input is kept
// as source text.
const maxDepth = 200

// binop describes an infix operator: its C spelling and precedence.
type binop struct {
	op   string
	prec int
}

// Precedences, loosest first. .NOT. (unary) sits between .AND. and the
// relational operators.
const (
	precEqv    = 1
	precOr     = 2
	precAnd    = 3
	precNot    = 4
	precRel    = 5
	precConcat = 6
	precAdd    = 7
	precMul    = 8
	precPow    = 9
)

// lookupBinop returns the C spelling and precedence of the Fortran
// infix operator s.
func lookupBinop(s string) (binop, bool) {
	switch s {
	case ".eqv.":
		return binop{"==", precEqv}, true
	case ".neqv.":
		return binop{"!=", precEqv}, true
	case ".or.":
		return binop{"||", precOr}, true
	case ".and.":
		return binop{"&&", precAnd}, true
	case ".eq.", "==":
		return binop{"==", precRel}, true
	case ".ne.", "/=":
		return binop{"!=", precRel}, true
	case ".lt.", "<":
		return binop{"<", precRel}, true
	case ".le.", "<=":
		return binop{"<=", precRel}, true
	case ".gt.", ">":
		return binop{">", precRel}, true
	case ".ge.", ">=":
		return binop{">=", precRel}, true
	case "//":
		return binop{"//", precConcat}, true
	case "+", "-":
		return binop{s, precAdd}, true
	case "*", "/":
		return binop{s, precMul}, true
	case "**":
		return binop{"**", precPow}, true
	}
	return binop{}, false
}

// expr parses an expression at the current token.
func (p *parser) expr() ir.Expr { return p.binary(0) }

// binop returns the infix operator at the current token, if any. A
// defined operator (.myop.) has the loosest precedence and no C spelling.
func (p *parser) binop() (binop, bool) {
	if p.i >= len(p.toks) || p.toks[p.i].kind != tOp {
		return binop{}, false
	}
	t := &p.toks[p.i]
	if b, ok := lookupBinop(t.s); ok {
		if t.s == "/" && p.isOpAt(1, ")") {
			return binop{}, false // end of an array constructor "(/ ... /)"
		}
		return b, true
	}
	if len(t.s) > 2 && t.s[0] == '.' && t.s != ".not." && t.s != ".true." && t.s != ".false." {
		return binop{t.s, 0}, true
	}
	return binop{}, false
}

// binary parses operators of precedence min and tighter (precedence
// climbing). Unary + - and .NOT. are accepted wherever an operand may
// stand, as compilers do.
func (p *parser) binary(min int) ir.Expr {
	start := p.i
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return p.skipExpr(start)
	}
	var x ir.Expr
	switch t := p.peek(); {
	case t.kind == tOp && t.s == ".not.":
		p.next()
		x = ir.Unary{Op: "!", X: p.binary(max(min, precRel))}
	case t.kind == tOp && (t.s == "-" || t.s == "+"):
		p.next()
		x = p.binary(max(min, precMul))
		if t.s == "-" {
			x = negate(x)
		}
	default:
		x = p.primary()
	}
	for {
		b, ok := p.binop()
		if !ok || b.prec < min {
			return x
		}
		p.next()
		next := b.prec + 1
		if b.prec == precPow {
			next = precPow // right associative
		}
		y := p.binary(next)
		if b.prec == 0 {
			x = ir.Unknown{Text: p.text(start, p.i)}
			continue
		}
		x = ir.Binary{Op: b.op, L: x, R: y}
	}
}

// negate folds a minus sign into a numeric literal.
func negate(x ir.Expr) ir.Expr {
	switch v := x.(type) {
	case ir.Int:
		return ir.Int{V: -v.V}
	case ir.Float:
		return ir.Float{V: -v.V}
	}
	return ir.Unary{Op: "-", X: x}
}

// skipExpr skips the rest of an over-deep expression and keeps its text.
func (p *parser) skipExpr(start int) ir.Expr {
	p.fail("expression nested too deeply")
	p.i = len(p.toks)
	return ir.Unknown{Text: p.text(start, p.i)}
}

// primary parses a literal, a designator, a function reference or a
// parenthesised expression.
func (p *parser) primary() ir.Expr {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.next()
		return intLit(t.s)
	case tReal:
		p.next()
		return realLit(t.s)
	case tString:
		p.next()
		return ir.Str{V: t.s}
	case tName:
		if v, ok := p.boz(); ok {
			return v
		}
		return p.designator()
	case tOp:
		switch t.s {
		case ".true.":
			p.next()
			return ir.Int{V: 1}
		case ".false.":
			p.next()
			return ir.Int{V: 0}
		case "(":
			return p.paren()
		case "[":
			return p.constructor()
		}
	}
	p.fail("expected an expression, found " + p.describe(t))
	return ir.Unknown{}
}

// intLit converts an integer literal (with an optional kind suffix).
func intLit(s string) ir.Expr {
	digits, _, _ := strings.Cut(s, "_")
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return ir.Unknown{Text: s}
	}
	return ir.Int{V: v}
}

// realLit converts a real literal: d and q exponents become e, the kind
// suffix is dropped.
func realLit(s string) ir.Expr {
	m, _, _ := strings.Cut(s, "_")
	m = strings.Map(func(r rune) rune {
		switch r {
		case 'd', 'D', 'q', 'Q':
			return 'e'
		}
		return r
	}, m)
	v, err := strconv.ParseFloat(m, 64)
	if err != nil && v == 0 {
		return ir.Unknown{Text: s}
	}
	return ir.Float{V: v}
}

// boz parses a binary, octal or hexadecimal constant: B'101', O'17', Z'ff'.
func (p *parser) boz() (ir.Expr, bool) {
	t, s := p.peek(), p.peekAt(1)
	if s.kind != tString || s.off != t.end {
		return nil, false
	}
	var base int
	switch t.s {
	case "b":
		base = 2
	case "o":
		base = 8
	case "z", "x":
		base = 16
	default:
		return nil, false
	}
	p.next()
	p.next()
	v, err := strconv.ParseUint(s.s, base, 64)
	if err != nil {
		return ir.Unknown{Text: p.text(p.i-2, p.i)}, true
	}
	return ir.Int{V: int64(v)}, true
}

// paren parses "(" at the current token: a parenthesised expression, an
// implied-DO list, a complex constant or an array constructor "(/ /)".
func (p *parser) paren() ir.Expr {
	start := p.i
	p.next()
	if p.isOp("/") {
		p.i = start
		return p.constructor()
	}
	x := p.expr()
	if p.acceptOp(")") {
		return x
	}
	items := []ir.Expr{x}
	for p.acceptOp(",") {
		if p.peek().kind == tName && p.isOpAt(1, "=") {
			d := p.impliedDo(items)
			p.expectOp(")")
			return d
		}
		items = append(items, p.expr())
	}
	p.expectOp(")")
	return ir.Unknown{Text: p.text(start, p.i)}
}

// constructor parses the array constructor at the current token, [a, b]
// or (/ a, b /), into the list of its values. One with a type
// specification ([character(len=8) :: ...]) or an implied DO, or one that
// does not parse, stays unknown, with its text.
func (p *parser) constructor() ir.Expr {
	start := p.i
	first := start + 1 // after "["
	if p.isOp("[") {
		p.skipGroup("[", "]")
	} else {
		p.skipGroup("(", ")")
		first++ // after "(/"
	}
	end := p.i
	whole := ir.Unknown{Text: p.text(start, end)}
	depth := 0
	for _, t := range p.toks[start:end] {
		if t.kind != tOp {
			continue
		}
		switch t.s {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
		case "::":
			if depth == 1 {
				return whole
			}
		}
	}
	closing := end - 1 // "]"
	if first > start+1 {
		closing-- // "/)"
	}
	bad := p.bad
	p.i = first
	var l ir.List
	for p.i < closing {
		x := p.expr()
		if _, ok := x.(ir.ImpliedDo); ok || p.bad != bad {
			break
		}
		l.Elems = append(l.Elems, x)
		if !p.acceptOp(",") {
			break
		}
	}
	ok := p.i == closing && p.bad == bad && len(l.Elems) > 0
	p.bad, p.i = bad, end
	if !ok {
		return whole
	}
	return l
}

// impliedDo parses the control "v = lo, hi [, step]" of an implied DO
// whose items have been parsed.
func (p *parser) impliedDo(items []ir.Expr) ir.Expr {
	d := ir.ImpliedDo{Items: items, Var: p.next().s}
	p.next() // "="
	d.Lo = p.expr()
	p.expectOp(",")
	d.Hi = p.expr()
	if p.acceptOp(",") {
		d.Step = p.expr()
	} else {
		d.Step = ir.Int{V: 1}
	}
	return d
}

// designator parses a name with its subscripts, arguments and
// components.
func (p *parser) designator() ir.Expr {
	name := p.next().s
	var x ir.Expr = ir.Ref{Name: name}
	if p.isOp("(") {
		args, section := p.args()
		x = p.reference(name, args, section)
	}
	for {
		switch {
		case p.isOp("%") && p.peekAt(1).kind == tName:
			p.next()
			x = ir.Field{X: x, Name: p.next().s}
		case p.isOp("("):
			args, _ := p.args()
			x = ir.Index{X: x, Idx: args}
		default:
			return x
		}
	}
}

// reference decides what name(args) is: an array element or substring, an
// intrinsic, or a call of a procedure, which is hoisted.
func (p *parser) reference(name string, args []ir.Expr, section bool) ir.Expr {
	if v := p.sc.lookup(name); v != nil && (len(v.Type.Dims) > 0 || section && isCharacter(v.Type)) {
		return ir.Index{X: ir.Ref{Name: name}, Idx: args}
	}
	if section || p.input && !intrinsics[name] {
		return ir.Index{X: ir.Ref{Name: name}, Idx: args}
	}
	if !p.procs[name] && !p.sc.isExternal(name) {
		if x, ok := intrinsic(name, args); ok {
			return x
		}
	}
	p.hoist = append(p.hoist, &ir.Call{Pos: p.here(), Callee: name, Args: args})
	return ir.CallExpr{Callee: name, Args: args}
}

// args parses a parenthesised argument or subscript list. Keyword
// arguments keep their value only; array sections and substrings
// (lo:hi:stride) are kept as source text and reported.
func (p *parser) args() (args []ir.Expr, section bool) {
	p.next() // "("
	if p.acceptOp(")") {
		return []ir.Expr{}, false
	}
	for {
		start := p.i
		if p.peek().kind == tName && p.isOpAt(1, "=") {
			p.i += 2
		}
		switch {
		case p.isOp("*") && (p.isOpAt(1, ",") || p.isOpAt(1, ")") || p.peekAt(1).kind == tInt):
			p.next()
			if p.peek().kind == tInt {
				p.next()
			}
			args = append(args, ir.Unknown{Text: p.text(start, p.i)})
		default:
			var x ir.Expr
			if !p.isOp(":") {
				x = p.expr()
			}
			if p.isOp(":") || p.isOp("::") {
				section = true
				x = p.sectionSubscript(x, start)
			}
			args = append(args, x)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return args, section
}

// sectionSubscript parses the ":hi" or ":hi:stride" rest of a subscript
// triplet whose lower bound lo (nil when omitted) began at start: a range
// with a bound, lo:hi, is Binary{":", lo, hi} (a nil side for an omitted
// bound); a bare ":" and triplets with a stride stay Unknown with their
// text. Their bounds are parsed (and their calls hoisted) either way.
func (p *parser) sectionSubscript(lo ir.Expr, start int) ir.Expr {
	var hi ir.Expr
	parts := 0
	for p.isOp(":") || p.isOp("::") {
		parts++
		if p.isOp("::") {
			parts++
		}
		p.next()
		if t := p.peek(); t.kind != tEOF && t.s != ":" && t.s != "::" && t.s != "," && t.s != ")" {
			x := p.expr()
			if parts == 1 {
				hi = x
			}
		}
	}
	if parts == 1 && (lo != nil || hi != nil) {
		return ir.Binary{Op: ":", L: lo, R: hi}
	}
	return ir.Unknown{Text: p.text(start, p.i)}
}

// extent converts a declared or allocated bound "lo:hi" to an extent
// (hi-lo+1), with the lower bound when it is given; a lone ":" or "*" is
// an unknown extent (nil).
func (p *parser) extent() (ext, lower ir.Expr) {
	if p.isOp("*") || p.isOp(":") {
		p.next()
		if !p.isOp(",") && !p.isOp(")") {
			p.expr()
		}
		return nil, nil
	}
	lo := p.expr()
	if !p.acceptOp(":") {
		return lo, nil
	}
	if p.isOp("*") || p.isOp(",") || p.isOp(")") {
		p.acceptOp("*")
		return nil, lo
	}
	return extentOf(lo, p.expr()), lo
}

// extentOf returns hi-lo+1, folded when the bounds are literals.
func extentOf(lo, hi ir.Expr) ir.Expr {
	l, lok := lo.(ir.Int)
	h, hok := hi.(ir.Int)
	switch {
	case lok && hok:
		return ir.Int{V: h.V - l.V + 1}
	case lok && l.V == 1:
		return hi
	case lok && l.V == 0:
		return ir.Binary{Op: "+", L: hi, R: ir.Int{V: 1}}
	}
	return ir.Binary{Op: "+", L: ir.Binary{Op: "-", L: hi, R: lo}, R: ir.Int{V: 1}}
}

// dims parses a parenthesised list of array bounds as extents, with the
// lower bounds when one is other than 1 (see ir.Type.Lower).
func (p *parser) dims() (dims, lower []ir.Expr) {
	p.next() // "("
	var los []ir.Expr
	given := false
	for {
		ext, lo := p.extent()
		if one, ok := lo.(ir.Int); ok && one.V == 1 {
			lo = nil
		}
		dims, los = append(dims, ext), append(los, lo)
		given = given || lo != nil
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	if given {
		lower = los
	}
	return dims, lower
}
