package pdg

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/iolens/iolens/static/ir"
)

// Eval returns the compile-time value of x in env, or a Value of kind
// Unknown. It folds literals, constants and propagated variables through
// the arithmetic, shift, comparison and logical operators, the conditional
// operator, casts, sizeof (from Type.Size and Dims), argv[i], and the pure
// library functions of pureFuncs (atoi(argv[1]), MIN, MOD...). A call
// hoisted earlier by the front-end (a CallExpr of a non-pure routine)
// evaluates to the result recorded for it, e.g. the handle fopen returned.
func Eval(x ir.Expr, env *Env) Value { return env.eval(x, 0) }

func (e *Env) eval(x ir.Expr, depth int) Value {
	switch x := x.(type) {
	case ir.Int:
		return IntValue(x.V, Literal)
	case ir.Float:
		return FloatValue(x.V, Literal)
	case ir.Str:
		return StrValue(x.V, Literal)
	case ir.Ref:
		return e.lookup(x.Name, depth)
	case ir.Index:
		return e.evalIndex(x, depth)
	case ir.Field:
		if v, ok := e.memberValue(x); ok {
			return v
		}
		if v, ok := e.shared.fields[x.Name]; ok {
			return v
		}
		if v := e.shared.observed[x.Name]; v.Kind != Unknown {
			return v
		}
		if v, ok := e.shared.guessed[x.Name]; ok {
			return v
		}
		if v, ok := e.capOf(x); ok {
			return v
		}
	case ir.Unary:
		return unary(x.Op, e.eval(x.X, depth))
	case ir.Binary:
		return binary(x.Op, e.eval(x.L, depth), e.eval(x.R, depth))
	case ir.Cond:
		c := e.eval(x.C, depth)
		if t, ok := truth(c); ok {
			if t {
				return e.eval(x.T, depth).with(c.Origin)
			}
			return e.eval(x.F, depth).with(c.Origin)
		}
		t, f := e.eval(x.T, depth), e.eval(x.F, depth)
		// An equality seldom holds: the side it guards is the special
		// case (id == 0 ? 0 : n), not the value the expression has.
		op := e.comparison(x.C)
		switch {
		case t.Kind != Unknown && t.equal(f):
			return t
		case op == "==" && f.Known():
			return f.with(Bound)
		case op == "!=" && t.Known():
			return t.with(Bound)
		case t.Known() && f.Kind == Unknown && op != "==":
			return t.with(Bound)
		case f.Known() && t.Kind == Unknown && op != "!=":
			return f.with(Bound)
		case (t.Kind == Int || t.Kind == Float) && (f.Kind == Int || f.Kind == Float) && op != "==" && op != "!=":
			// torn ? 4 : 8, on a condition the walk cannot decide: either
			// side half the time, as a branch.
			two := IntValue(2, Literal)
			if t.Kind == Float || f.Kind == Float {
				two = FloatValue(2, Literal)
			}
			return binary("/", binary("+", t, f), two).with(Bound)
		}
	case ir.Cast:
		return cast(x.Type, e.eval(x.X, depth))
	case ir.SizeOf:
		var n int64
		var ok bool
		if x.X == nil {
			n, ok = e.typeSize(x.Type)
		} else {
			n, ok = e.exprSize(x.X)
		}
		if ok {
			return IntValue(n, Literal)
		}
	case ir.CallExpr:
		return e.evalCall(x, depth)
	}
	return Value{}
}

// evalIndex evaluates argv[i] (a string of Options.Args, or the program
// name for argv[0]) and elements of constant arrays (tableElement).
func (e *Env) evalIndex(x ir.Index, depth int) Value {
	if v, ok := e.tableElement(x, depth); ok {
		return v
	}
	if v, ok := e.mapSetting(x, depth); ok {
		return v
	}
	arr := e.eval(x.X, depth)
	if arr.Kind == HandleVal {
		return arr // an array of handles (walker.handleElement)
	}
	if arr.Kind != Argv || len(x.Idx) != 1 {
		v, _ := e.capOf(x)
		return v
	}
	i, ok := e.eval(x.Idx[0], depth).Int()
	switch {
	case !ok || i < 0:
		return Value{}
	case i == 0:
		return StrValue("prog", Argument)
	case int(i) <= len(e.shared.args):
		return StrValue(e.shared.args[i-1], Argument)
	}
	return Value{}
}

// comparison returns the operator of condition x: its own, or that of
// the initialiser of the constant it names (const bool last = (m == n -
// 1)).
func (e *Env) comparison(x ir.Expr) string {
	if r, ok := x.(ir.Ref); ok {
		if v := e.Var(r.Name); v != nil && v.Const {
			x = v.Init
		}
	}
	if b, ok := x.(ir.Binary); ok {
		return b.Op
	}
	return ""
}

// tableElement evaluates an element of a constant one-dimensional array
// initialised with numbers (static const size_t sizes[] = {4096, 20000,
// 65536}): the element when the index is known, else the mean of the
// elements, the expected value of an index drawn at random, with origin
// Bound. A Fortran array's index starts at its lower bound (1 unless
// declared). It reports false for other expressions.
func (e *Env) tableElement(x ir.Index, depth int) (Value, bool) {
	r, ok := x.X.(ir.Ref)
	if !ok || len(x.Idx) != 1 || depth >= maxConstDepth {
		return Value{}, false
	}
	v := e.Var(r.Name)
	if v == nil || !v.Const || len(v.Type.Dims) != 1 {
		return Value{}, false
	}
	l, ok := v.Init.(ir.List)
	if !ok {
		return Value{}, false
	}
	lo := int64(0)
	if e.shared.lang == ir.Fortran {
		lo = 1
	}
	if len(v.Type.Lower) > 0 && v.Type.Lower[0] != nil {
		var ok bool
		if lo, ok = e.eval(v.Type.Lower[0], depth+1).Int(); !ok {
			return Value{}, false
		}
	}
	if d := v.Type.Dims[0]; d != nil {
		if n, ok := e.extent(d); !ok || n != int64(len(l.Elems)) {
			return Value{}, false // partly initialised: the rest are zeros
		}
	}
	if i, ok := e.eval(x.Idx[0], depth+1).Int(); ok {
		i -= lo
		if i < 0 || int(i) >= len(l.Elems) {
			return Value{}, false
		}
		return e.eval(l.Elems[i], depth+1).with(Constant), true
	}
	sum, allInt := 0.0, true
	for _, el := range l.Elems {
		ev := e.eval(el, depth+1)
		f, ok := ev.Float()
		if !ok {
			return Value{}, false
		}
		sum += f
		allInt = allInt && ev.Kind == Int
	}
	mean := sum / float64(len(l.Elems))
	if allInt {
		return IntValue(int64(math.Round(mean)), Bound), true
	}
	return FloatValue(mean, Bound), true
}

func truth(v Value) (bool, bool) {
	switch v.Kind {
	case Int:
		return v.I != 0, true
	case Float:
		return v.F != 0, true
	}
	return false, false
}

func boolValue(b bool, o Origin) Value {
	if b {
		return IntValue(1, o)
	}
	return IntValue(0, o)
}

func unary(op string, v Value) Value {
	switch {
	case op == "+":
		return v
	case op == "-" && v.Kind == Int:
		return IntValue(-v.I, v.Origin)
	case op == "-" && v.Kind == Float:
		return FloatValue(-v.F, v.Origin)
	case op == "!":
		if t, ok := truth(v); ok {
			return boolValue(!t, v.Origin)
		}
	case op == "~" && v.Kind == Int:
		return IntValue(^v.I, v.Origin)
	}
	return Value{}
}

// binary folds l op r. Integers stay integers (C and Fortran integer
// division truncates); a float operand makes the result a float.
func binary(op string, l, r Value) Value {
	o := max(l.Origin, r.Origin)
	switch op {
	case "&&", "||":
		lt, lok := truth(l)
		rt, rok := truth(r)
		switch {
		case op == "&&" && lok && !lt, op == "&&" && rok && !rt:
			return boolValue(false, o)
		case op == "||" && lok && lt, op == "||" && rok && rt:
			return boolValue(true, o)
		case lok && rok:
			return boolValue(op == "&&" && lt && rt || op == "||" && (lt || rt), o)
		}
		return Value{}
	case "//", "+":
		// Fortran's concatenation, and C++'s on std::string.
		if l.Kind == Str && r.Kind == Str {
			return builtStr(l.S+r.S, o)
		}
	case "/":
		// std::filesystem::path's: dir / "name".
		if l.Kind == Str && r.Kind == Str {
			return builtStr(strings.TrimSuffix(l.S, "/")+"/"+r.S, o)
		}
	case "==", "!=":
		if l.Kind == Sym && r.Kind == Sym {
			return boolValue((l.S == r.S) == (op == "=="), o)
		}
		if l.Kind == Str && r.Kind == Str {
			return boolValue((l.S == r.S) == (op == "=="), o)
		}
	}
	if l.Kind == Int && r.Kind == Int {
		return intBinary(op, l.I, r.I, o)
	}
	lf, lok := l.Float()
	rf, rok := r.Float()
	if !lok || !rok {
		return Value{}
	}
	return floatBinary(op, lf, rf, o)
}

func intBinary(op string, a, b int64, o Origin) Value {
	switch op {
	case "+":
		return IntValue(a+b, o)
	case "-":
		return IntValue(a-b, o)
	case "*":
		return IntValue(a*b, o)
	case "/", "%":
		if b == 0 {
			return Value{}
		}
		if op == "/" {
			return IntValue(a/b, o)
		}
		return IntValue(a%b, o)
	case "**":
		if b < 0 || b > 62 {
			return FloatValue(math.Pow(float64(a), float64(b)), o)
		}
		p := int64(1)
		for range b {
			p *= a
		}
		return IntValue(p, o)
	case "<<":
		if b < 0 || b > 62 {
			return Value{}
		}
		return IntValue(a<<b, o)
	case ">>":
		if b < 0 || b > 62 {
			return Value{}
		}
		return IntValue(a>>b, o)
	case "&":
		return IntValue(a&b, o)
	case "|":
		return IntValue(a|b, o)
	case "^":
		return IntValue(a^b, o)
	}
	return compare(op, float64(a), float64(b), o)
}

func floatBinary(op string, a, b float64, o Origin) Value {
	switch op {
	case "+":
		return FloatValue(a+b, o)
	case "-":
		return FloatValue(a-b, o)
	case "*":
		return FloatValue(a*b, o)
	case "/":
		if b == 0 {
			return Value{}
		}
		return FloatValue(a/b, o)
	case "**":
		return FloatValue(math.Pow(a, b), o)
	}
	return compare(op, a, b, o)
}

func compare(op string, a, b float64, o Origin) Value {
	switch op {
	case "<":
		return boolValue(a < b, o)
	case "<=":
		return boolValue(a <= b, o)
	case ">":
		return boolValue(a > b, o)
	case ">=":
		return boolValue(a >= b, o)
	case "==":
		return boolValue(a == b, o)
	case "!=":
		return boolValue(a != b, o)
	}
	return Value{}
}

// cast converts numbers to integer types (truncating) or floating types.
func cast(t ir.Type, v Value) Value {
	if t.Pointer > 0 || !v.Known() {
		return v
	}
	n := strings.ToLower(t.Name)
	if strings.Contains(n, "float") || strings.Contains(n, "double") || strings.HasPrefix(n, "real") {
		f, _ := v.Float()
		return FloatValue(f, v.Origin)
	}
	i, _ := v.Int()
	return IntValue(i, v.Origin)
}

// pureFuncs evaluates the library functions and Fortran intrinsics whose
// result follows from their arguments, by lower-case name.
var pureFuncs = sync.OnceValue(func() map[string]func(env *Env, args []Value) Value {
	return map[string]func(env *Env, args []Value) Value{
		"atoi": parseInt, "atol": parseInt, "atoll": parseInt,
		"strtol": parseInt, "strtoll": parseInt, "strtoul": parseInt, "strtoull": parseInt,
		"atof": parseFloat, "strtod": parseFloat, "strtof": parseFloat,
		"stoi": parseInt, "stol": parseInt, "stoll": parseInt, "stoul": parseInt, "stoull": parseInt,
		"stod": parseFloat, "stof": parseFloat,
		"abs": absValue, "labs": absValue, "fabs": absValue, "iabs": absValue, "dabs": absValue,
		"min": extremum(-1), "max": extremum(1), "fmin": extremum(-1), "fmax": extremum(1),
		"min0": extremum(-1), "max0": extremum(1), "amin1": extremum(-1), "amax1": extremum(1),
		"mod":                    func(_ *Env, a []Value) Value { return arg2(a, "%") },
		"pow":                    func(_ *Env, a []Value) Value { return arg2(a, "**") },
		"int":                    func(_ *Env, a []Value) Value { return conv(a, ir.Type{Name: "int"}) },
		"nint":                   roundValue,
		"lround":                 roundValue,
		"floor":                  func(_ *Env, a []Value) Value { return mathValue(a, math.Floor) },
		"ceil":                   func(_ *Env, a []Value) Value { return mathValue(a, math.Ceil) },
		"ceiling":                func(_ *Env, a []Value) Value { return mathValue(a, math.Ceil) },
		"sqrt":                   func(_ *Env, a []Value) Value { return mathValue(a, math.Sqrt) },
		"real":                   func(_ *Env, a []Value) Value { return conv(a, ir.Type{Name: "real"}) },
		"dble":                   func(_ *Env, a []Value) Value { return conv(a, ir.Type{Name: "real"}) },
		"float":                  func(_ *Env, a []Value) Value { return conv(a, ir.Type{Name: "real"}) },
		"trim":                   func(_ *Env, a []Value) Value { return strValue(a, trimBlanks) },
		"adjustl":                func(_ *Env, a []Value) Value { return strValue(a, strings.TrimSpace) },
		"string":                 func(_ *Env, a []Value) Value { return strValue(a, func(s string) string { return s }) },
		"filesystem::path":       func(_ *Env, a []Value) Value { return strValue(a, func(s string) string { return s }) },
		"fs::path":               func(_ *Env, a []Value) Value { return strValue(a, func(s string) string { return s }) },
		"command_argument_count": argCount,
		"iargc":                  argCount,
	}
})

// strValue applies f to a single string argument.
func strValue(a []Value, f func(string) string) Value {
	if len(a) != 1 || a[0].Kind != Str {
		return Value{}
	}
	v := a[0]
	v.S = f(v.S)
	return v
}

// trimBlanks is Fortran's TRIM: the string without its trailing blanks.
func trimBlanks(s string) string { return strings.TrimRight(s, " ") }

// argCount is Fortran's COMMAND_ARGUMENT_COUNT (and IARGC).
func argCount(env *Env, _ []Value) Value {
	if !env.shared.hasArgs {
		return Value{}
	}
	return IntValue(int64(len(env.shared.args)), Argument)
}

func (e *Env) evalCall(x ir.CallExpr, depth int) Value {
	if e.shared.lang != ir.C && e.shared.lang != ir.CPP {
		if v, ok := e.arrayInquiry(x, depth); ok {
			return v
		}
	}
	if x.Callee == "at" && len(x.Args) == 1 {
		// kv.at("nodes"), on a map of the keys of the program's own text.
		if k := e.eval(x.Args[0], depth); k.Kind == Str {
			if st, ok := e.shared.settings.known(k.S); ok {
				return st.v
			}
		}
	}
	if f, ok := pureFuncs()[strings.ToLower(strings.TrimPrefix(x.Callee, "std::"))]; ok {
		args := make([]Value, len(x.Args))
		for i, a := range x.Args {
			args[i] = e.eval(a, depth)
		}
		return f(e, args)
	}
	if depth > 0 {
		// In a constant's definition ("kMats = kMatKm.size()"), not
		// the result of a call the function made.
		return Value{}
	}
	return e.calls.m[x.Callee]
}

// converted returns the text a conversion routine (atoi, strtod,
// std::stoi) converts: its argument, or in the branch that tested a key
// of the program's own text, that key's value (see Env.setting).
func converted(env *Env, a []Value) []Value {
	if len(a) > 0 && a[0].Kind == Unknown && env != nil && env.setting.v.Known() {
		return append([]Value{StrValue(env.setting.text, Propagated)}, a[1:]...)
	}
	return a
}

func parseInt(env *Env, a []Value) Value {
	a = converted(env, a)
	if len(a) > 0 && (a[0].Kind == Int || a[0].Kind == Float) {
		i, _ := a[0].Int()
		return IntValue(i, a[0].Origin) // a number a setting gave
	}
	if len(a) == 0 || a[0].Kind != Str {
		return Value{}
	}
	s := strings.TrimSpace(a[0].S)
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return IntValue(i, a[0].Origin)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return IntValue(int64(f), a[0].Origin)
	}
	return Value{}
}

func parseFloat(env *Env, a []Value) Value {
	a = converted(env, a)
	if len(a) > 0 && (a[0].Kind == Int || a[0].Kind == Float) {
		f, _ := a[0].Float()
		return FloatValue(f, a[0].Origin) // a number a setting gave
	}
	if len(a) == 0 || a[0].Kind != Str {
		return Value{}
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(a[0].S), 64); err == nil {
		return FloatValue(f, a[0].Origin)
	}
	return Value{}
}

func absValue(_ *Env, a []Value) Value {
	if len(a) != 1 {
		return Value{}
	}
	switch v := a[0]; {
	case v.Kind == Int && v.I < 0:
		return IntValue(-v.I, v.Origin)
	case v.Kind == Float:
		return FloatValue(math.Abs(v.F), v.Origin)
	case v.Kind == Int:
		return v
	}
	return Value{}
}

// extremum returns MIN (sign -1) or MAX (sign 1) of its arguments.
func extremum(sign int) func(*Env, []Value) Value {
	op := "<"
	if sign > 0 {
		op = ">"
	}
	return func(_ *Env, a []Value) Value {
		known := slices.DeleteFunc(slices.Clone(a), func(v Value) bool { return !v.Known() })
		if len(known) == 0 || sign > 0 && len(known) < len(a) {
			return Value{}
		}
		best := known[0]
		for _, v := range known[1:] {
			c, ok := truth(binary(op, v, best))
			if !ok {
				return Value{}
			}
			if c {
				best = v.with(best.Origin)
			} else {
				best = best.with(v.Origin)
			}
		}
		if len(known) < len(a) {
			// min(block, n - done): at most block, the size of all
			// chunks but the last. Not a value that is itself a mean
			// or a bound (min(i, k) in a loop over i).
			if best.Origin >= Bound {
				return Value{}
			}
			return best.with(Bound)
		}
		return best
	}
}

func arg2(a []Value, op string) Value {
	if len(a) != 2 {
		return Value{}
	}
	return binary(op, a[0], a[1])
}

func conv(a []Value, t ir.Type) Value {
	if len(a) == 0 {
		return Value{}
	}
	return cast(t, a[0])
}

func roundValue(_ *Env, a []Value) Value {
	if len(a) == 0 {
		return Value{}
	}
	f, ok := a[0].Float()
	if !ok {
		return Value{}
	}
	return IntValue(int64(math.Round(f)), a[0].Origin)
}

func mathValue(a []Value, f func(float64) float64) Value {
	if len(a) == 0 {
		return Value{}
	}
	x, ok := a[0].Float()
	if !ok {
		return Value{}
	}
	return FloatValue(f(x), a[0].Origin)
}
