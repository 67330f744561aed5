package pdg

import (
	"slices"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// drawOdds returns the share of executions in which cond holds when it
// compares a random draw with a known bound: a remainder below K of M
// values ("rnd() % 1000 < 8", or r < 8 with r so defined) holds K/M of
// the time,
// a uniform draw in [0, 1) below p ("drand48() < p", "rand() /
// (double)RAND_MAX < p", a Fortran RANDOM_NUMBER, a program function
// named for a uniform draw) p of the time; > and >= hold the rest. It
// returns 0 for other conditions.
func (w *walker) drawOdds(cond ir.Expr) float64 {
	c, ok := cond.(ir.Binary)
	if !ok {
		return 0
	}
	x, bound, op := c.L, c.R, c.Op
	if _, known := Eval(bound, w.env).Float(); !known {
		x, bound = c.R, c.L
		op = mirrored[op]
	}
	k, known := Eval(bound, w.env).Float()
	if !known || op == "" {
		return 0
	}
	var below float64 // the share of draws below k
	switch m, uniform := w.draw(x); {
	case m > 0:
		if op == "<=" || op == ">" {
			k++
		}
		below = k / m
	case uniform:
		below = k
	default:
		return 0
	}
	below = min(max(below, 0), 1)
	switch op {
	case "<", "<=":
		return below
	case ">", ">=":
		return 1 - below
	}
	return 0
}

// mirrored maps a comparison to the one that holds with its sides
// swapped; operators that are not ordered comparisons map to "".
var mirrored = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}

// draw describes x as a random draw: m > 0 when it is one of m integers
// (a remainder by a known m), uniform when it is a real in [0, 1). A
// variable is the draw that defines it, when the function gives it one
// definition.
func (w *walker) draw(x ir.Expr) (m float64, uniform bool) {
	switch x := uncast(x).(type) {
	case ir.Ref:
		if def, ok := w.definition(x.Name); ok {
			return w.draw(def)
		}
		return 0, w.randomNumber(x.Name)
	case ir.Binary:
		switch x.Op {
		case "%":
			if v, ok := Eval(x.R, w.env).Float(); ok && v > 1 {
				return v, false
			}
		case "/":
			// rand() / (double)RAND_MAX, (double)rand() / RAND_MAX
			return 0, callsIn(x.L) && mentions(x.R, "RAND_MAX")
		}
	case ir.CallExpr:
		if lo, hi, ok := w.distribution(x.Callee); ok {
			return 0, lo == 0 && hi == 1
		}
		return 0, uniformDraw(x.Callee) || w.uniformFunc(x.Callee)
	}
	return 0, false
}

// oneReturn returns the program function a call expression names and the
// value of its one return statement, when it has exactly one.
func (w *walker) oneReturn(callee string) (*ir.Func, ir.Expr, bool) {
	d, ok := w.b.resolve(callee, w.d.file)
	if !ok {
		return nil, nil, false
	}
	var ret ir.Expr
	n := 0
	visitStmts(d.f.Body, func(s ir.Stmt) {
		if r, ok := s.(*ir.Return); ok {
			ret = r.Value
			n++
		}
	})
	return d.f, ret, n == 1 && ret != nil
}

// uniformScale is the largest constant a generator's integer output is
// multiplied by (or the inverse of the smallest it is divided by) to
// make a uniform draw in [0, 1): 2^-20.
const uniformScale = 1.0 / (1 << 20)

// uniformFunc reports whether the program function callee returns a
// uniform draw in [0, 1) made from a generator's integer output: the
// output of a call scaled by a tiny constant ("(next() >> 11) *
// 0x1.0p-53", "xorshift() / 4294967296.0").
func (w *walker) uniformFunc(callee string) bool {
	_, ret, ok := w.oneReturn(callee)
	if !ok {
		return false
	}
	b, ok := uncast(ret).(ir.Binary)
	if !ok || !callsIn(b.L) && !callsIn(b.R) {
		return false
	}
	l, lok := Eval(b.L, w.env).Float()
	r, rok := Eval(b.R, w.env).Float()
	switch b.Op {
	case "*":
		return rok && r > 0 && r <= uniformScale || lok && l > 0 && l <= uniformScale
	case "/":
		return rok && r >= 1/uniformScale
	}
	return false
}

// drawnMean returns the mean of what a call of a program function
// returns when that is an integer drawn below one of its parameters: a
// remainder of a call by the parameter ("next() % n") or a uniform draw
// scaled by it and truncated ("static_cast<int>(unif() * n)"), both
// (n-1)/2 for the call's n. It reports false for other calls.
func (w *walker) drawnMean(x ir.CallExpr) (float64, bool) {
	f, ret, ok := w.oneReturn(x.Callee)
	if !ok {
		return 0, false
	}
	b, ok := uncast(ret).(ir.Binary)
	if !ok {
		return 0, false
	}
	bound := func(e ir.Expr) (float64, bool) { // the argument of parameter e
		r, ok := uncast(e).(ir.Ref)
		if !ok {
			return 0, false
		}
		for i, p := range f.Params {
			if p.Name == r.Name && i < len(x.Args) {
				return Eval(x.Args[i], w.env).Float()
			}
		}
		return 0, false
	}
	var n float64
	switch {
	case b.Op == "%" && callsIn(b.L):
		n, ok = bound(b.R)
	case b.Op == "*" && truncated(ret):
		if m, isDraw := w.draw(b.L); m == 0 && isDraw {
			n, ok = bound(b.R)
		} else if m, isDraw := w.draw(b.R); m == 0 && isDraw {
			n, ok = bound(b.L)
		} else {
			ok = false
		}
	default:
		ok = false
	}
	if !ok || n < 1 {
		return 0, false
	}
	return (n - 1) / 2, true
}

// scaledDraw returns K when x is a uniform draw in [0, 1) times a known
// K.
func (w *walker) scaledDraw(x ir.Expr) (float64, bool) {
	b, ok := uncast(x).(ir.Binary)
	if !ok || b.Op != "*" {
		return 0, false
	}
	for _, side := range [][2]ir.Expr{{b.L, b.R}, {b.R, b.L}} {
		if m, uniform := w.draw(side[0]); m == 0 && uniform {
			if k, ok := Eval(side[1], w.env).Float(); ok && k >= 1 {
				return k, true
			}
		}
	}
	return 0, false
}

// truncated reports whether x is a cast to an integer type.
func truncated(x ir.Expr) bool {
	c, ok := x.(ir.Cast)
	return ok && c.Type.Pointer == 0 && integerType(c.Type.Name)
}

// distribution returns the bounds of the local variable name when the
// function declares it as a C++ uniform distribution
// ("std::uniform_real_distribution<double> u(0.0, 1.0)",
// "std::uniform_int_distribution<int> age(18, 79)"), whose calls u(rng)
// draw from it.
func (w *walker) distribution(name string) (lo, hi float64, ok bool) {
	// The declared type first: most calls are of no distribution, and
	// definition walks the whole function.
	v := w.env.Var(name)
	if v == nil {
		return 0, 0, false
	}
	t := className(v.Type.Name)
	isReal := strings.HasSuffix(t, "uniform_real_distribution")
	if !isReal && !strings.HasSuffix(t, "uniform_int_distribution") {
		return 0, 0, false
	}
	def, defined := w.definition(name)
	c, isCall := def.(ir.CallExpr)
	switch {
	case !defined || !isCall:
		return 0, 0, false
	case len(c.Args) == 0 && isReal:
		return 0, 1, true // the default bounds
	case len(c.Args) != 2:
		return 0, 0, false
	}
	lo, lok := Eval(c.Args[0], w.env).Float()
	hi, hok := Eval(c.Args[1], w.env).Float()
	return lo, hi, lok && hok
}

// uniformDraw reports whether a routine returns a uniform draw in [0, 1):
// drand48 and erand48, or a routine named for one (urand, uniform01,
// rand_uniform).
func uniformDraw(callee string) bool {
	name := strings.ToLower(callee)
	switch name {
	case "drand48", "erand48":
		return true
	case "rand", "random", "rand_r", "lrand48":
		return false
	}
	return strings.Contains(name, "urand") || strings.Contains(name, "uniform") || strings.Contains(name, "rand01")
}

// definition returns the value of the one definition the function gives
// the local variable name: its initialiser, or its one assignment.
func (w *walker) definition(name string) (ir.Expr, bool) {
	var def ir.Expr
	n := 0
	visitStmts(w.d.f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Decl:
			if s.Var.Name == name && s.Var.Init != nil {
				def = s.Var.Init
				n++
			}
		case *ir.Assign:
			if s.Target == name && !s.Partial {
				def = s.Value
				n++
				if s.Op != "=" {
					n++
				}
			}
		}
	})
	return def, n == 1
}

// drawnVar reports whether x, but for shifts, casts and bit operations
// with constants, is a local variable the function defines once with a
// call ("uint64_t h = mix64(seed ^ k)"; then "(h >> 8) % 7"): a draw
// from a generator or a hash.
func (w *walker) drawnVar(x ir.Expr) bool {
	for {
		switch y := x.(type) {
		case ir.Cast:
			x = y.X
			continue
		case ir.Binary:
			if y.Op == ">>" || y.Op == "^" || y.Op == "&" || y.Op == "|" {
				x = y.L
				continue
			}
		case ir.Ref:
			def, ok := w.definition(y.Name)
			return ok && callsIn(def) && !Eval(y, w.env).Known()
		}
		return false
	}
}

// randomNumber reports whether the function fills the variable name with
// Fortran's RANDOM_NUMBER.
func (w *walker) randomNumber(name string) bool {
	found := false
	visitStmts(w.d.f.Body, func(s ir.Stmt) {
		if c, ok := s.(*ir.Call); ok && strings.EqualFold(c.Callee, "random_number") && len(c.Args) == 1 && baseName(c.Args[0]) == name {
			found = true
		}
	})
	return found
}

// maxDrawDepth bounds the definitions drawMeans follows.
const maxDrawDepth = 4

// drawMeans returns x with each remainder of a draw by a known bound K
// (rng() % K, and a variable the function defines once as an
// expression holding one) replaced by the remainder's mean, (K-1)/2, and
// each draw from a C++ uniform distribution by its mean:
// "1 + rng() % 6" authors a paper, "3 + rand() % kMaxRefs" references.
// A uniform draw in [0, 1) stands for its mean, 1/2, and one scaled by a
// known K and truncated ("6 + (int)(urand() * 10)") for (K-1)/2. A share
// of a sum stands for its mean too (shareMean). It reports false when x
// holds no such draw or share.
func (w *walker) drawMeans(x ir.Expr, depth int) (ir.Expr, bool) {
	if depth > maxDrawDepth {
		return x, false
	}
	switch x := x.(type) {
	case ir.Ref:
		if Eval(x, w.env).Known() {
			return x, false
		}
		if def, ok := w.definition(x.Name); ok {
			if y, ok := w.drawMeans(def, depth+1); ok {
				return y, true
			}
		}
	case ir.Cast:
		if k, ok := w.scaledDraw(x.X); ok && truncated(x) {
			return ir.Float{V: (k - 1) / 2}, true
		}
		if y, ok := w.drawMeans(x.X, depth); ok {
			x.X = y
			return x, true
		}
	case ir.Unary:
		if y, ok := w.drawMeans(x.X, depth); ok {
			x.X = y
			return x, true
		}
	case ir.Binary:
		if v, ok := w.shareMean(x); ok {
			return ir.Float{V: v}, true
		}
		if x.Op == "%" && (callsIn(x.L) || w.drawnVar(x.L)) {
			if k, ok := Eval(x.R, w.env).Float(); ok && k > 1 {
				return ir.Float{V: (k - 1) / 2}, true
			}
		}
		l, lok := w.drawMeans(x.L, depth)
		r, rok := w.drawMeans(x.R, depth)
		x.L, x.R = l, r
		return x, lok || rok
	case ir.Cond:
		t, tok := w.drawMeans(x.T, depth)
		f, fok := w.drawMeans(x.F, depth)
		x.T, x.F = t, f
		return x, tok || fok
	case ir.CallExpr:
		if lo, hi, ok := w.distribution(x.Callee); ok {
			return ir.Float{V: (lo + hi) / 2}, true
		}
		if _, uniform := w.draw(x); uniform {
			return ir.Float{V: 0.5}, true
		}
		if m, ok := w.drawnMean(x); ok {
			return ir.Float{V: m}, true
		}
		args := slices.Clone(x.Args)
		changed := false
		for i, a := range args {
			var ok bool
			args[i], ok = w.drawMeans(a, depth)
			changed = changed || ok
		}
		x.Args = args
		return x, changed
	}
	return x, false
}
