package ir

// Rewrite returns x with every expression for which f returns a
// replacement replaced by it, outermost first: f is not applied inside a
// replacement. The other expressions are rebuilt around their rewritten
// operands; x itself is not changed.
func Rewrite(x Expr, f func(Expr) (Expr, bool)) Expr {
	if x == nil {
		return nil
	}
	if y, ok := f(x); ok {
		return y
	}
	in := func(y Expr) Expr { return Rewrite(y, f) }
	all := func(xs []Expr) []Expr {
		if xs == nil {
			return nil
		}
		out := make([]Expr, len(xs))
		for i, y := range xs {
			out[i] = in(y)
		}
		return out
	}
	switch x := x.(type) {
	case Index:
		return Index{X: in(x.X), Idx: all(x.Idx)}
	case Field:
		return Field{X: in(x.X), Name: x.Name}
	case Unary:
		return Unary{Op: x.Op, X: in(x.X)}
	case Binary:
		return Binary{Op: x.Op, L: in(x.L), R: in(x.R)}
	case Cond:
		return Cond{C: in(x.C), T: in(x.T), F: in(x.F)}
	case CallExpr:
		return CallExpr{Callee: x.Callee, Args: all(x.Args)}
	case List:
		return List{Elems: all(x.Elems)}
	case SizeOf:
		return SizeOf{Type: x.Type, X: in(x.X)}
	case Cast:
		return Cast{Type: x.Type, X: in(x.X)}
	case ImpliedDo:
		return ImpliedDo{Items: all(x.Items), Var: x.Var, Lo: in(x.Lo), Hi: in(x.Hi), Step: in(x.Step)}
	}
	return x
}
