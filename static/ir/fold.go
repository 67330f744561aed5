package ir

// FoldInt evaluates an integer constant expression: numbers, the names
// resolve gives an expression for (a macro, an enumerator, a PARAMETER),
// casts, negation and the operators + - * / and <<. It follows at most
// maxDepth names, and reports false for anything else.
func FoldInt(x Expr, resolve func(name string) (Expr, bool), maxDepth int) (int64, bool) {
	if maxDepth < 0 {
		return 0, false
	}
	switch x := x.(type) {
	case Int:
		return x.V, true
	case Ref:
		if c, ok := resolve(x.Name); ok {
			return FoldInt(c, resolve, maxDepth-1)
		}
	case Cast:
		return FoldInt(x.X, resolve, maxDepth)
	case Unary:
		if v, ok := FoldInt(x.X, resolve, maxDepth); ok && x.Op == "-" {
			return -v, true
		}
	case Binary:
		l, lok := FoldInt(x.L, resolve, maxDepth)
		r, rok := FoldInt(x.R, resolve, maxDepth)
		if !lok || !rok {
			return 0, false
		}
		switch x.Op {
		case "+":
			return l + r, true
		case "-":
			return l - r, true
		case "*":
			return l * r, true
		case "/":
			if r != 0 {
				return l / r, true
			}
		case "<<":
			if r >= 0 && r < 63 {
				return l << r, true
			}
		}
	}
	return 0, false
}
