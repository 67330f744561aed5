package cfront

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// define records an object-like macro with a value as a file constant;
// its value is parsed as an expression when it is one, else kept as
// Unknown text.
func (b *builder) define(i int32) {
	t := b.t
	n := t.child(i, fName)
	v := t.child(i, fValue)
	if n == none || v == none {
		return // #define FLAG: no value
	}
	text := strings.TrimSpace(string(t.bytes(v)))
	if text == "" {
		return
	}
	b.file.Consts[t.text(n)] = parseMacro(text, &b.types)
}

// funcMacro is a function-like macro whose replacement is an expression:
// its parameters and the parsed replacement, in which they are Refs.
type funcMacro struct {
	params []string
	body   ir.Expr
}

// defineFunction records a function-like macro whose replacement text
// parses as an expression ("#define IDX(i, j) ((i) * NX + (j))"), so
// that its uses are lowered as the expression they expand to, not as
// calls of an unknown routine.
func (b *builder) defineFunction(i int32) {
	t := b.t
	n, ps, v := t.child(i, fName), t.child(i, fParameters), t.child(i, fValue)
	if n == none || ps == none || v == none {
		return
	}
	var params []string
	for c := t.first(ps); c != none; c = t.next(c) {
		if t.named(c) {
			if t.kind(c) != kIdentifier {
				return // variadic
			}
			params = append(params, t.text(c))
		}
	}
	body := parseMacro(strings.TrimSpace(string(t.bytes(v))), &b.types)
	if _, unknown := body.(ir.Unknown); unknown {
		return
	}
	if b.macros == nil {
		b.macros = map[string]funcMacro{}
	}
	b.macros[t.text(n)] = funcMacro{params: params, body: body}
}

// expandMacro returns the expansion of the function-like macro name with
// the lowered arguments args, macros used in its replacement expanded in
// turn (at most maxMacroDepth deep); false when name is not such a macro
// or the arguments do not match its parameters.
func (b *builder) expandMacro(name string, args []ir.Expr, depth int) (ir.Expr, bool) {
	m, ok := b.macros[name]
	if !ok || len(args) != len(m.params) || depth > maxMacroDepth {
		return nil, false
	}
	bound := make(map[string]ir.Expr, len(args))
	for k, p := range m.params {
		bound[p] = args[k]
	}
	x := ir.Rewrite(m.body, func(x ir.Expr) (ir.Expr, bool) {
		r, ok := x.(ir.Ref)
		if !ok {
			return nil, false
		}
		a, ok := bound[r.Name]
		return a, ok
	})
	return ir.Rewrite(x, func(x ir.Expr) (ir.Expr, bool) {
		if c, ok := x.(ir.CallExpr); ok {
			return b.expandMacro(c.Callee, c.Args, depth+1)
		}
		return nil, false
	}), true
}

// parseMacro parses the replacement text of a macro as a C expression.
func parseMacro(text string, types *typeSizes) ir.Expr {
	p := macroParser{toks: lexMacro(text), types: types}
	e, ok := p.expr(0)
	if !ok || p.pos != len(p.toks) || p.bad {
		return ir.Unknown{Text: text}
	}
	return e
}

// macroToken is a token of a macro's replacement text.
type macroToken struct {
	kind byte // 'n' number, 'i' identifier, 'c' char, 's' string, 'o' operator
	text string
}

// macroOps are the operators of macro expressions, longest first.
var macroOps = []string{
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "::", "->",
	"+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "|", "^", "?", ":", "(", ")", ",",
}

// lexMacro splits a macro's replacement text into tokens; characters it
// does not know become single-character operator tokens the parser
// rejects.
func lexMacro(s string) []macroToken {
	var toks []macroToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\':
			i++
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
		case strings.HasPrefix(s[i:], "//"):
			i = len(s)
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := i + 1
			for j < len(s) && isNumberChar(s[i:j], s[j]) {
				j++
			}
			toks = append(toks, macroToken{'n', s[i:j]})
			i = j
		case isIdentChar(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			toks = append(toks, macroToken{'i', s[i:j]})
			i = j
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			kind := byte('s')
			if c == '\'' {
				kind = 'c'
			}
			toks = append(toks, macroToken{kind, s[i+1 : min(j, len(s))]})
			i = j + 1
		default:
			op := s[i : i+1]
			for _, o := range macroOps {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			toks = append(toks, macroToken{'o', op})
			i += len(op)
		}
	}
	return toks
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}

// isNumberChar tells whether d continues the preprocessing number num.
func isNumberChar(num string, d byte) bool {
	if d == '+' || d == '-' {
		last := num[len(num)-1]
		return last == 'p' || last == 'P' || (last == 'e' || last == 'E') && !isHexPrefix(num)
	}
	return isIdentChar(d) || d == '.' || d == '\''
}

func isHexPrefix(s string) bool { return len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') }

// macroParser parses macro tokens by precedence climbing.
type macroParser struct {
	toks  []macroToken
	pos   int
	bad   bool
	depth int
	types *typeSizes
}

// binaryPrec is the precedence of the binary operators (higher binds
// tighter); the conditional operator has precedence 1.
var binaryPrec = map[string]int{
	"||": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7,
	"<": 8, "<=": 8, ">": 8, ">=": 8, "<<": 9, ">>": 9,
	"+": 10, "-": 10, "*": 11, "/": 11, "%": 11,
}

// maxMacroDepth bounds the nesting the parser accepts.
const maxMacroDepth = 200

func (p *macroParser) peek() macroToken {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return macroToken{}
}

func (p *macroParser) isOp(op string) bool {
	t := p.peek()
	return t.kind == 'o' && t.text == op
}

// expr parses an expression whose operators bind tighter than minPrec.
func (p *macroParser) expr(minPrec int) (ir.Expr, bool) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxMacroDepth {
		return nil, false
	}
	l, ok := p.unary()
	if !ok {
		return nil, false
	}
	for {
		t := p.peek()
		if t.kind != 'o' {
			return l, true
		}
		if t.text == "?" && minPrec <= 1 {
			p.pos++
			x, ok := p.expr(1)
			if !ok || !p.isOp(":") {
				return nil, false
			}
			p.pos++
			y, ok := p.expr(1)
			if !ok {
				return nil, false
			}
			l = ir.Cond{C: l, T: x, F: y}
			continue
		}
		prec, isBin := binaryPrec[t.text]
		if !isBin || prec < minPrec {
			return l, true
		}
		p.pos++
		r, ok := p.expr(prec + 1)
		if !ok {
			return nil, false
		}
		l = ir.Binary{Op: t.text, L: l, R: r}
	}
}

// unary parses a prefix operation, cast, sizeof or primary expression.
func (p *macroParser) unary() (ir.Expr, bool) {
	t := p.peek()
	switch {
	case t.kind == 'o' && strings.Contains("-+!~*&", t.text) && len(t.text) == 1:
		p.pos++
		x, ok := p.unary()
		if !ok {
			return nil, false
		}
		if n, isInt := x.(ir.Int); isInt && t.text == "-" {
			return ir.Int{V: -n.V}, true
		}
		if f, isFloat := x.(ir.Float); isFloat && t.text == "-" {
			return ir.Float{V: -f.V}, true
		}
		return ir.Unary{Op: t.text, X: x}, true
	case t.kind == 'i' && t.text == "sizeof":
		p.pos++
		if p.isOp("(") {
			if ty, n, ok := p.typeName(p.pos + 1); ok && n < len(p.toks) && p.toks[n].text == ")" {
				p.pos = n + 1
				return ir.SizeOf{Type: ty}, true
			}
		}
		x, ok := p.unary()
		if !ok {
			return nil, false
		}
		return ir.SizeOf{X: x}, true
	case t.kind == 'o' && t.text == "(":
		if ty, n, ok := p.typeName(p.pos + 1); ok && n < len(p.toks) && p.toks[n].text == ")" && n+1 < len(p.toks) {
			p.pos = n + 1
			x, ok := p.unary()
			if !ok {
				return nil, false
			}
			return ir.Cast{Type: ty, X: x}, true
		}
	}
	return p.primary()
}

// typeName recognises a type name (a builtin or known type, optionally
// "struct"/"union"/"enum" tagged, followed by stars) at token k and returns
// it with the index after it.
func (p *macroParser) typeName(k int) (ir.Type, int, bool) {
	var words []string
	for k < len(p.toks) && p.toks[k].kind == 'i' {
		words = append(words, p.toks[k].text)
		k++
	}
	if len(words) == 0 {
		return ir.Type{}, 0, false
	}
	for len(words) > 1 && (words[0] == "const" || words[0] == "volatile") {
		words = words[1:]
	}
	name := strings.Join(words, " ")
	size := p.types.size(name)
	tagged := words[0] == "struct" || words[0] == "union" || words[0] == "enum"
	if size == 0 && !tagged && name != "void" {
		if _, known := p.types.defined[name]; !known {
			return ir.Type{}, 0, false
		}
	}
	ty := ir.Type{Name: name, Size: size}
	for k < len(p.toks) && p.toks[k].kind == 'o' && p.toks[k].text == "*" {
		ty.Pointer++
		k++
	}
	return ty, k, true
}

// primary parses a literal, a name, a call or a parenthesized expression,
// with the subscripts and member accesses after it.
func (p *macroParser) primary() (ir.Expr, bool) {
	x, ok := p.operand()
	for ok {
		switch {
		case p.isOp("["):
			p.pos++
			i, iok := p.expr(1)
			if !iok || !p.isOp("]") {
				return nil, false
			}
			p.pos++
			x = ir.Index{X: x, Idx: []ir.Expr{i}}
		case (p.isOp(".") || p.isOp("->")) && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == 'i':
			x = ir.Field{X: x, Name: p.toks[p.pos+1].text}
			p.pos += 2
		default:
			return x, true
		}
	}
	return nil, false
}

// operand parses a literal, a name, a call or a parenthesized expression.
func (p *macroParser) operand() (ir.Expr, bool) {
	t := p.peek()
	p.pos++
	switch t.kind {
	case 'n':
		e := parseNumber(t.text)
		if _, unknown := e.(ir.Unknown); unknown {
			p.bad = true
		}
		return e, true
	case 'c':
		return ir.Int{V: charValue(unescape(t.text))}, true
	case 's':
		s := unescape(t.text)
		for p.peek().kind == 's' {
			s += unescape(p.peek().text)
			p.pos++
		}
		return ir.Str{V: s}, true
	case 'i':
		name := t.text
		for p.isOp("::") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == 'i' {
			name += "::" + p.toks[p.pos+1].text
			p.pos += 2
		}
		if !p.isOp("(") {
			return ir.Ref{Name: name}, true
		}
		p.pos++
		call := ir.CallExpr{Callee: name}
		for !p.isOp(")") {
			a, ok := p.expr(1)
			if !ok {
				return nil, false
			}
			call.Args = append(call.Args, a)
			if p.isOp(",") {
				p.pos++
			} else if !p.isOp(")") {
				return nil, false
			}
		}
		p.pos++
		return call, true
	case 'o':
		if t.text == "(" {
			e, ok := p.expr(1)
			if !ok || !p.isOp(")") {
				return nil, false
			}
			p.pos++
			return e, true
		}
	}
	return nil, false
}
