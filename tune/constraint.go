package tune

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Constraint is a boolean expression over parameters that every
// configuration of a space must satisfy, such as "cb_nodes <= ranks &&
// cb_buffer_size >= 1M". It has the syntax of Go expressions restricted
// to: identifiers (parameters, which stand for the numeric encoding of
// their value, and variables), numbers with an optional K, M, G or T
// suffix, string literals compared with == or != to a parameter (its value
// itself), true and false, the operators + - * / < <= > >= == != && || !,
// and parentheses.
type Constraint struct {
	expr  string
	node  ast.Expr
	names []string
}

// ParseConstraint parses a constraint expression.
func ParseConstraint(expr string) (*Constraint, error) {
	src, err := expandSuffixes(expr)
	if err != nil {
		return nil, fmt.Errorf("constraint %q: %w", expr, err)
	}
	node, err := parser.ParseExpr(src)
	if err != nil {
		return nil, fmt.Errorf("constraint %q: %w", expr, err)
	}
	c := &Constraint{expr: expr, node: node}
	t, err := c.check(node)
	if err != nil {
		return nil, fmt.Errorf("constraint %q: %w", expr, err)
	}
	if t != boolType {
		return nil, fmt.Errorf("constraint %q: not a boolean expression", expr)
	}
	slices.Sort(c.names)
	c.names = slices.Compact(c.names)
	return c, nil
}

// String returns the expression as written.
func (c *Constraint) String() string { return c.expr }

// Names returns the identifiers the constraint uses, sorted.
func (c *Constraint) Names() []string { return slices.Clone(c.names) }

// expandSuffixes returns expr with the numbers that have a binary suffix
// (64K, 1MiB) replaced by their value, which Go's syntax lacks.
func expandSuffixes(expr string) (string, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(expr))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(expr), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var b strings.Builder
	last := 0
	prevEnd, prevStart := -1, -1
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		if tok == token.IDENT && off == prevEnd && prevStart >= 0 {
			if v, ok := ParseNumber(expr[prevStart:off] + lit); ok {
				b.WriteString(expr[last:prevStart])
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
				last = off + len(lit)
			}
		}
		prevStart, prevEnd = -1, -1
		if tok == token.INT || tok == token.FLOAT {
			prevStart, prevEnd = off, off+len(lit)
		}
	}
	if len(errs) > 0 {
		return "", errs.Err()
	}
	b.WriteString(expr[last:])
	return b.String(), nil
}

// exprType is the type of a subexpression.
type exprType int

const (
	numType exprType = iota + 1
	boolType
	stringType
)

// check checks the types of a subexpression and collects its names.
func (c *Constraint) check(n ast.Expr) (exprType, error) {
	switch n := n.(type) {
	case *ast.ParenExpr:
		return c.check(n.X)
	case *ast.Ident:
		if n.Name == "true" || n.Name == "false" {
			return boolType, nil
		}
		c.names = append(c.names, n.Name)
		return numType, nil
	case *ast.BasicLit:
		switch n.Kind {
		case token.INT, token.FLOAT:
			return numType, nil
		case token.STRING:
			return stringType, nil
		}
		return 0, fmt.Errorf("unsupported literal %s", n.Value)
	case *ast.UnaryExpr:
		t, err := c.check(n.X)
		if err != nil {
			return 0, err
		}
		switch {
		case n.Op == token.NOT && t == boolType:
			return boolType, nil
		case (n.Op == token.SUB || n.Op == token.ADD) && t == numType:
			return numType, nil
		}
		return 0, fmt.Errorf("operator %s does not apply here", n.Op)
	case *ast.BinaryExpr:
		l, err := c.check(n.X)
		if err != nil {
			return 0, err
		}
		r, err := c.check(n.Y)
		if err != nil {
			return 0, err
		}
		switch n.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO:
			if l == numType && r == numType {
				return numType, nil
			}
		case token.LSS, token.GTR, token.LEQ, token.GEQ:
			if l == numType && r == numType {
				return boolType, nil
			}
		case token.EQL, token.NEQ:
			if l == r && l != stringType {
				return boolType, nil
			}
			_, li := n.X.(*ast.Ident)
			_, ri := n.Y.(*ast.Ident)
			if l == stringType && ri || r == stringType && li {
				return boolType, nil
			}
		case token.LAND, token.LOR:
			if l == boolType && r == boolType {
				return boolType, nil
			}
		default:
			return 0, fmt.Errorf("unsupported operator %s", n.Op)
		}
		return 0, fmt.Errorf("operator %s does not apply to %s and %s", n.Op, l, r)
	}
	return 0, fmt.Errorf("unsupported expression %T", n)
}

// String names the type in messages.
func (t exprType) String() string {
	switch t {
	case numType:
		return "a number"
	case boolType:
		return "a boolean"
	case stringType:
		return "a string"
	}
	return "?"
}

// env gives the values of identifiers.
type env interface {
	// number returns the numeric value of a name.
	number(name string) (float64, bool)
	// text returns the value of a parameter as written.
	text(name string) (string, bool)
}

// errUnbound is returned (wrapped) when a constraint names a variable that
// has no value.
var errUnbound = errors.New("no value")

// eval evaluates the constraint.
func (c *Constraint) eval(e env) (bool, error) {
	v, err := c.value(c.node, e)
	if err != nil {
		return false, err
	}
	return v.b, nil
}

// value is the value of a subexpression.
type value struct {
	n float64
	b bool
	s string
}

// value evaluates a subexpression (whose types check has checked).
func (c *Constraint) value(n ast.Expr, e env) (value, error) {
	switch n := n.(type) {
	case *ast.ParenExpr:
		return c.value(n.X, e)
	case *ast.Ident:
		switch n.Name {
		case "true":
			return value{b: true}, nil
		case "false":
			return value{}, nil
		}
		x, ok := e.number(n.Name)
		if !ok {
			return value{}, fmt.Errorf("%s: %w", n.Name, errUnbound)
		}
		return value{n: x}, nil
	case *ast.BasicLit:
		if n.Kind == token.STRING {
			s, err := strconv.Unquote(n.Value)
			return value{s: s}, err
		}
		x, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(n.Value, 0, 64)
			if uerr != nil {
				return value{}, err
			}
			x = float64(u)
		}
		return value{n: x}, nil
	case *ast.UnaryExpr:
		x, err := c.value(n.X, e)
		switch n.Op {
		case token.NOT:
			x.b = !x.b
		case token.SUB:
			x.n = -x.n
		}
		return x, err
	case *ast.BinaryExpr:
		return c.binary(n, e)
	}
	return value{}, fmt.Errorf("unsupported expression %T", n)
}

// binary evaluates a binary expression.
func (c *Constraint) binary(n *ast.BinaryExpr, e env) (value, error) {
	if n.Op == token.EQL || n.Op == token.NEQ {
		if eq, ok, err := c.textEqual(n, e); ok || err != nil {
			return value{b: eq == (n.Op == token.EQL)}, err
		}
	}
	l, err := c.value(n.X, e)
	if err != nil {
		return value{}, err
	}
	// && and || evaluate their right side only when needed, so that
	// "ranks > 1 && cb_nodes <= ranks" is false without cb_nodes.
	switch {
	case n.Op == token.LAND && !l.b:
		return value{}, nil
	case n.Op == token.LOR && l.b:
		return value{b: true}, nil
	}
	r, err := c.value(n.Y, e)
	if err != nil {
		return value{}, err
	}
	switch n.Op {
	case token.ADD:
		return value{n: l.n + r.n}, nil
	case token.SUB:
		return value{n: l.n - r.n}, nil
	case token.MUL:
		return value{n: l.n * r.n}, nil
	case token.QUO:
		return value{n: l.n / r.n}, nil
	case token.LSS:
		return value{b: l.n < r.n}, nil
	case token.GTR:
		return value{b: l.n > r.n}, nil
	case token.LEQ:
		return value{b: l.n <= r.n}, nil
	case token.GEQ:
		return value{b: l.n >= r.n}, nil
	case token.EQL:
		return value{b: l.n == r.n && l.b == r.b}, nil
	case token.NEQ:
		return value{b: l.n != r.n || l.b != r.b}, nil
	case token.LAND, token.LOR:
		return value{b: r.b}, nil
	}
	return value{}, fmt.Errorf("unsupported operator %s", n.Op)
}

// textEqual compares a parameter with a string literal: ok is false when
// the expression is not such a comparison. Words compare
// case-insensitively, numbers by value.
func (c *Constraint) textEqual(n *ast.BinaryExpr, e env) (eq, ok bool, err error) {
	id, lit := n.X, n.Y
	if _, isLit := id.(*ast.BasicLit); isLit {
		id, lit = lit, id
	}
	ident, isIdent := id.(*ast.Ident)
	bl, isLit := lit.(*ast.BasicLit)
	if !isIdent || !isLit || bl.Kind != token.STRING {
		return false, false, nil
	}
	want, err := strconv.Unquote(bl.Value)
	if err != nil {
		return false, true, err
	}
	got, found := e.text(ident.Name)
	if !found {
		x, isNum := e.number(ident.Name)
		if !isNum {
			return false, true, fmt.Errorf("%s: %w", ident.Name, errUnbound)
		}
		got = formatNumber(x)
	}
	if strings.EqualFold(got, want) {
		return true, true, nil
	}
	a, aok := ParseNumber(got)
	b, bok := ParseNumber(want)
	return aok && bok && a == b && !math.IsNaN(a), true, nil
}
