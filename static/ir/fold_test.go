package ir

import "testing"

// TestFoldInt checks constant folding through names, casts and
// operators, its depth bound, and what it refuses.
func TestFoldInt(t *testing.T) {
	consts := map[string]Expr{
		"N":    Int{V: 8},
		"M":    Binary{Op: "*", L: Ref{Name: "N"}, R: Int{V: 4}},
		"LOOP": Ref{Name: "LOOP"},
	}
	resolve := func(name string) (Expr, bool) { x, ok := consts[name]; return x, ok }
	for _, tc := range []struct {
		name string
		x    Expr
		want int64
		ok   bool
	}{
		{"number", Int{V: 3}, 3, true},
		{"names", Binary{Op: "+", L: Ref{Name: "M"}, R: Int{V: 1}}, 33, true},
		{"cast and negation", Cast{X: Unary{Op: "-", X: Ref{Name: "N"}}}, -8, true},
		{"shift and division", Binary{Op: "/", L: Binary{Op: "<<", L: Int{V: 1}, R: Int{V: 10}}, R: Ref{Name: "N"}}, 128, true},
		{"division by zero", Binary{Op: "/", L: Int{V: 1}, R: Int{V: 0}}, 0, false},
		{"unknown name", Ref{Name: "n"}, 0, false},
		{"a name defined by itself", Ref{Name: "LOOP"}, 0, false},
		{"a call", CallExpr{Callee: "f"}, 0, false},
	} {
		if got, ok := FoldInt(tc.x, resolve, 8); got != tc.want || ok != tc.ok {
			t.Errorf("%s: %d %v, want %d %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
