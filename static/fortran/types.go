package fortran

import (
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// knownKinds are kind parameters of ISO_FORTRAN_ENV and ISO_C_BINDING,
// plus the usual names of kind constants defined in modules of other
// files (dp, sp, ...), with their values on common compilers.
var knownKinds = map[string]int64{
	"int8": 1, "int16": 2, "int32": 4, "int64": 8, "real32": 4, "real64": 8, "real128": 16,
	"c_int": 4, "c_short": 2, "c_long": 8, "c_long_long": 8, "c_signed_char": 1, "c_size_t": 8,
	"c_int8_t": 1, "c_int16_t": 2, "c_int32_t": 4, "c_int64_t": 8, "c_intptr_t": 8,
	"c_float": 4, "c_double": 8, "c_long_double": 16, "c_float_complex": 4, "c_double_complex": 8,
	"c_bool": 1, "c_char": 1,
	"sp": 4, "dp": 8, "qp": 16, "wp": 8,
}

// typeSpec parses a type specification (INTEGER(8), REAL*8, DOUBLE
// PRECISION, CHARACTER(LEN=n), TYPE(t), ...) at the current token.
func (p *parser) typeSpec() ir.Type {
	switch w := p.next().s; w {
	case "double":
		switch {
		case p.acceptName("precision"):
			return ir.Type{Name: "double precision", Size: 8}
		case p.acceptName("complex"):
			return ir.Type{Name: "double complex", Size: 16}
		}
		p.fail("expected PRECISION or COMPLEX after DOUBLE")
		return ir.Type{}
	case "doubleprecision":
		return ir.Type{Name: "double precision", Size: 8}
	case "doublecomplex":
		return ir.Type{Name: "double complex", Size: 16}
	case "byte":
		return ir.Type{Name: "byte", Size: 1}
	case "character":
		return p.characterType()
	case "type", "class":
		start := p.i
		p.skipParens()
		return ir.Type{Name: w + strings.ToLower(p.text(start, p.i))}
	default:
		return p.numericType(w)
	}
}

// numericType parses the kind of an INTEGER, REAL, COMPLEX or LOGICAL
// type: (k), (KIND=k) or the *n extension.
func (p *parser) numericType(base string) ir.Type {
	t := ir.Type{Name: base, Size: 4}
	if base == "complex" {
		t.Size = 8
	}
	mult := int64(1)
	if base == "complex" {
		mult = 2
	}
	switch {
	case p.isOp("("):
		p.next()
		if p.isName("kind") && p.isOpAt(1, "=") {
			p.i += 2
		}
		start := p.i
		x := p.expr()
		text := lower(p.text(start, p.i))
		p.expectOp(")")
		t.Name = base + "(kind=" + text + ")"
		t.Size = 0
		if k, ok := p.kindValue(x, text, 0); ok {
			t.Size = k * mult
		}
	case p.acceptOp("*"):
		n := p.starLen()
		if n <= 0 {
			break
		}
		t.Size = n
		t.Name = base + "(kind=" + strconv.FormatInt(n/mult, 10) + ")"
	}
	return t
}

// starLen parses the n of "*n" or "*(n)"; -1 stands for "*(*)" or an
// unknown length.
func (p *parser) starLen() int64 {
	var x ir.Expr
	if p.acceptOp("(") {
		if p.acceptOp("*") {
			p.expectOp(")")
			return -1
		}
		x = p.expr()
		p.expectOp(")")
	} else {
		x = p.primary()
	}
	if n, ok := p.constInt(x); ok {
		return n
	}
	return -1
}

// characterType parses CHARACTER's length: (n), (LEN=n, KIND=k), *n, *(*).
func (p *parser) characterType() ir.Type {
	t := ir.Type{Name: "character", Size: 1}
	switch {
	case p.acceptOp("*"):
		start := p.i
		n := p.starLen()
		t = charLen(strings.Trim(lower(p.text(start, p.i)), "()"), n)
	case p.acceptOp("("):
		for pos := 0; !p.isOp(")") && !p.atEnd(); pos++ {
			key := "len"
			if pos > 0 {
				key = "kind"
			}
			if p.peek().kind == tName && p.isOpAt(1, "=") {
				key = p.next().s
				p.next()
			}
			start := p.i
			var n int64 = -1
			if p.acceptOp("*") || p.acceptOp(":") {
			} else if x := p.expr(); key == "len" {
				if v, ok := p.constInt(x); ok {
					n = v
				}
			}
			if key == "len" {
				t = charLen(lower(p.text(start, p.i)), n)
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	return t
}

// charLen is the CHARACTER type of length text (n when known, else -1).
func charLen(text string, n int64) ir.Type {
	if n < 0 {
		n = 0
	}
	if text == "1" {
		return ir.Type{Name: "character", Size: 1}
	}
	return ir.Type{Name: "character(len=" + text + ")", Size: n}
}

func isCharacter(t ir.Type) bool { return strings.HasPrefix(t.Name, "character") }

// kindValue evaluates a kind parameter: a literal, a named constant,
// KIND(x), SELECTED_REAL_KIND(p, r) or SELECTED_INT_KIND(r). text is the
// source of x, needed for KIND(1.d0).
func (p *parser) kindValue(x ir.Expr, text string, depth int) (int64, bool) {
	if depth > maxUseDepth {
		return 0, false
	}
	switch x := x.(type) {
	case ir.Ref:
		if v := p.sc.lookup(x.Name); v != nil {
			if k, ok := p.kinds[v]; ok {
				return k, true
			}
		}
		if n, ok := p.constInt(x); ok {
			return n, true
		}
		k, ok := knownKinds[x.Name]
		return k, ok
	case ir.CallExpr:
		return p.kindCall(x, text, depth)
	}
	return p.constInt(x)
}

// kindCall evaluates the kind inquiries KIND, SELECTED_REAL_KIND and
// SELECTED_INT_KIND.
func (p *parser) kindCall(x ir.CallExpr, text string, depth int) (int64, bool) {
	arg := func(i int) (int64, bool) {
		if i < len(x.Args) {
			return p.constInt(x.Args[i])
		}
		return 0, false
	}
	switch x.Callee {
	case "kind":
		if len(x.Args) != 1 {
			return 0, false
		}
		_, text, _ = strings.Cut(text, "(") // the argument's text
		if _, suffix, _ := strings.Cut(text, "_"); suffix != "" {
			return p.kindValue(ir.Ref{Name: strings.TrimRight(lower(suffix), ")")}, "", depth+1)
		}
		switch a := x.Args[0].(type) {
		case ir.Float:
			if strings.ContainsAny(text, "dDqQ") {
				return 8, true
			}
			return 4, true
		case ir.Int:
			return 4, true
		case ir.Ref:
			if v := p.sc.lookup(a.Name); v != nil && v.Type.Size > 0 {
				return v.Type.Size, true
			}
		}
	case "selected_real_kind":
		prec, _ := arg(0)
		rng, _ := arg(1)
		switch {
		case prec <= 6 && rng <= 37:
			return 4, true
		case prec <= 15 && rng <= 307:
			return 8, true
		}
		return 16, true
	case "selected_int_kind":
		r, ok := arg(0)
		if !ok {
			return 0, false
		}
		switch {
		case r <= 2:
			return 1, true
		case r <= 4:
			return 2, true
		case r <= 9:
			return 4, true
		case r <= 18:
			return 8, true
		}
		return 16, true
	}
	return 0, false
}

// constInt evaluates an integer constant expression over literals and
// named constants.
func (p *parser) constInt(x ir.Expr) (int64, bool) {
	return ir.FoldInt(x, func(name string) (ir.Expr, bool) {
		if v := p.sc.lookup(name); v != nil {
			return v.Init, v.Const && v.Init != nil
		}
		c, ok := p.file.Consts[name]
		return c, ok
	}, maxUseDepth)
}
