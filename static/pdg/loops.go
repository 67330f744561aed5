package pdg

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// loop builds a loop node: its trip count from the bounds at entry, then
// its body, walked once with every variable the body may change unknown
// (constants declared outside the loop keep their values).
func (w *walker) loop(l *ir.Loop, parent *Node) {
	n := &Node{Kind: LoopNode, Name: string(l.Kind), Pos: l.Pos, EndLine: l.EndLine, LoopKind: l.Kind, Taken: -1}
	n.Trip, n.TripSource = w.tripCount(l)
	var clk *clock // before the body's variables are forgotten
	if c, ok := w.clockOf(l); ok {
		clk = &c
	}
	eof := w.eofFile(l, n)
	n.Work = ops(l.Cond, w.fortran()) + 1
	assigned := w.assignedIn(l.Body)
	if l.Var != "" {
		assigned[l.Var] = true
	}
	declared := declaredNames(l.Body)
	for name := range assigned {
		if v := w.env.Var(name); v != nil && v.Const && !declared[name] && name != l.Var {
			delete(assigned, name) // a PARAMETER or const passed by reference stays
		}
		if v := Eval(ir.Ref{Name: name}, w.env); v.Kind == HandleVal && (onlyStreamed(l.Body, name) || w.reopened(l.Body, name)) || v == stringStream {
			// A file stream inserted into stays open, one closed and
			// reopened holds an open file; a string stream stays one.
			delete(assigned, name)
		}
	}
	// A trip count the analysis guessed: the loop's counters are not
	// followed, nor its passes taken as the count of what it lists.
	guessed := n.TripSource == TripDefault && !listsDirectory(l) || n.TripSource == TripOdds
	tallies := w.startTallies(l, n, assigned, guessed)
	sums := w.startSums(l, n, assigned)
	for name := range assigned {
		delete(w.sums, name)
	}
	if n.TripSource != TripTransfer {
		// A transfer loop's body runs once, with the values from before
		// the loop: the whole request (n - done, with done 0).
		carried := w.carriedRemainders(l.Body, eof)
		scaled := w.scaledMeans(l, n, assigned)
		for name := range assigned {
			w.env.Kill(name)
		}
		for name, v := range maps.All(carried) {
			w.env.Set(name, v)
		}
		for name, v := range maps.All(scaled) {
			w.env.Set(name, v)
		}
	}
	w.markSeeks(l.Body)
	w.trips = append(w.trips, loopTrip{clock: clk, n: n.Trip, def: guessed, body: l.Body,
		v: l.Var, step: l.Step, hi: l.Hi, inclusive: l.Inclusive, values: w.loopValues(l, n), eof: eof})
	w.scale = append(w.scale, float64(n.Trip))
	w.walk(l.Body, n)
	w.scale = w.scale[:len(w.scale)-1]
	w.trips = w.trips[:len(w.trips)-1]
	for name := range assigned {
		w.env.Kill(name)
		if v, ok := w.settled[name]; ok {
			w.env.Set(name, v)
		}
	}
	w.endTallies(tallies)
	for name, s := range sums {
		if w.sums == nil {
			w.sums = map[string]sum{}
		}
		w.sums[name] = s
	}
	if n.TripSource == TripTransfer {
		// The request is complete: done is n, left is 0.
		if counter, final, ok := w.completesTransfer(l); ok {
			w.env.Set(counter, Eval(final, w.env))
		}
	}
	if len(n.Children) == 0 {
		switch {
		case chainedLoad(l.Body):
			n.Work += LoadLatency
		case l.Var != "" && w.strided(l.Body, l.Var, n.Trip):
			n.Work += StridedLatency
		case l.Var != "" && storesOnly(l.Body, l.Var):
			n.Work /= VectorWidth
		default:
			n.Work /= StraightLineOpsPerCycle
		}
	}
	parent.Children = append(parent.Children, n)
}

// scaledMeans returns the variables of assigned that the body of loop l
// (node n) of known trip count scales by a constant factor once per
// iteration ("n /= 2" from level to level of a pyramid), at the mean of
// the values they take in the body, with origin Bound.
func (w *walker) scaledMeans(l *ir.Loop, n *Node, assigned map[string]bool) map[string]Value {
	if n.TripSource == TripDefault || n.TripSource == TripOdds || n.Trip < 1 || n.Trip > 64 {
		return nil
	}
	var out map[string]Value
	for name := range assigned {
		start, ok := Eval(ir.Ref{Name: name}, w.env).Int()
		if !ok || name == l.Var || start == 0 {
			continue
		}
		op, k, ok := w.scaling(l.Body, l.Var, name)
		if !ok {
			continue
		}
		sum, v := 0.0, start
		for range n.Trip {
			sum += float64(v)
			if v, _ = intBinary(op, v, k, Bound).Int(); v == 0 {
				break
			}
		}
		if out == nil {
			out = map[string]Value{}
		}
		out[name] = IntValue(int64(math.Round(sum/float64(n.Trip))), Bound)
	}
	return out
}

// scaling returns the operator ("/", "*", ">>" or "<<") and the constant
// factor of the one statement of body that changes name ("n /= 2", "n =
// n * 2"), at its top level or under a test of the loop's variable v
// alone ("if (level + 1 < NLEVEL) { ...; n /= 2; }": not after the last
// pass, whose value is the same); false when body changes name otherwise.
func (w *walker) scaling(body ir.Block, v, name string) (string, int64, bool) {
	op, k, found := "", int64(0), false
	top := slices.Clone(body)
	for _, st := range body {
		if s, ok := st.(*ir.If); ok && v != "" && len(s.Else) == 0 && mentions(s.Cond, v) {
			top = append(top, s.Then...)
		}
	}
	for _, st := range top {
		a, ok := st.(*ir.Assign)
		if !ok || a.Target != name || a.Partial {
			continue
		}
		o, x := strings.TrimSuffix(a.Op, "="), a.Value
		if a.Op == "=" {
			b, isBin := a.Value.(ir.Binary)
			if !isBin || refName(b.L) != name {
				return "", 0, false
			}
			o, x = b.Op, b.R
		}
		f, known := Eval(x, w.env).Int()
		shift := o == ">>" || o == "<<"
		if found || !known || f < 1 || f < 2 && !shift || o != "/" && o != "*" && !shift {
			return "", 0, false
		}
		op, k, found = o, f, true
	}
	if !found {
		return "", 0, false
	}
	changes := 0
	visitStmts(body, func(st ir.Stmt) {
		out := map[string]bool{}
		w.changes(st, out)
		if out[name] {
			changes++
		}
	})
	return op, k, changes == 1
}

// clock is a loop's floating-point clock: a variable the body advances
// by one step per pass ("t = t + dt"), from start while below end ("do
// while (t < tend)"); step is 0 when not known.
type clock struct {
	name             string
	start, end, step float64
}

// clockSlack absorbs the rounding of a clock's steps: (end − start) /
// step passes, rounded up unless within this much of a whole number.
const clockSlack = 1e-6

// clockOf returns the clock of loop l: its condition compares a variable
// below a known end (less a small tolerance, "t < tend - 1e-9"), the
// variable is known at entry, and the body's own statements advance it
// once by a positive step ("t = t + dt", "t += dt"), known or not; no
// other statement of the body changes it.
func (w *walker) clockOf(l *ir.Loop) (clock, bool) {
	c, ok := l.Cond.(ir.Binary)
	if !ok || c.Op != "<" && c.Op != "<=" {
		return clock{}, false
	}
	r, ok := c.L.(ir.Ref)
	if !ok {
		return clock{}, false
	}
	start, sok := Eval(r, w.env).Float()
	end, eok := Eval(c.R, w.env).Float()
	if !sok || !eok || end <= start {
		return clock{}, false
	}
	var step ir.Expr
	n := 0
	visitStmts(l.Body, func(st ir.Stmt) {
		if a, ok := st.(*ir.Assign); ok && a.Target == r.Name {
			n++
		}
	})
	for _, st := range l.Body {
		a, ok := st.(*ir.Assign)
		if !ok || a.Target != r.Name || a.Partial {
			continue
		}
		switch b, isSum := a.Value.(ir.Binary); {
		case a.Op == "+=":
			step = a.Value
		case a.Op == "=" && isSum && b.Op == "+" && isRef(b.L, r.Name):
			step = b.R
		case a.Op == "=" && isSum && b.Op == "+" && isRef(b.R, r.Name):
			step = b.L
		}
	}
	if step == nil || n != 1 {
		return clock{}, false
	}
	k := clock{name: r.Name, start: start, end: end}
	if v, ok := Eval(step, w.env).Float(); ok {
		if v <= 0 {
			return clock{}, false
		}
		k.step = v
	}
	return k, true
}

// loopTrip is the trip count of a loop around the statement being walked,
// and whether it is a default; for a counted loop, its variable and the
// mean value the variable takes.
type loopTrip struct {
	n    int64
	def  bool
	body ir.Block
	v    string
	step ir.Expr // of a counted loop; nil: 1
	// hi and inclusive are the bound of a counted loop (nil: none).
	hi        ir.Expr
	inclusive bool
	// values are the values the variable of a counted loop with known
	// bounds takes; the zero span otherwise.
	values span
	// eof is the file a loop reads to its end, when its trip count
	// comes from what the program wrote into it (TripWritten).
	eof *Handle
	// clock is the loop's floating-point clock, if it has one.
	clock *clock
}

// span is the arithmetic progression lo, lo + step, … of n values, the
// values of the variable of a counted loop.
type span struct{ lo, step, n int64 }

// mid returns the mean of the values of s, with origin Bound, or Unknown
// for the zero span.
func (s span) mid() Value {
	if s.n < 1 {
		return Value{}
	}
	return IntValue(s.lo+s.step*(s.n-1)/2, Bound)
}

// count returns how many values of s compare with op (<, <=, >, >=, ==
// or !=) to k. The values are monotonic, so an ordering holds on a prefix
// or a suffix of them, found by bisection.
func (s span) count(op string, k int64) int64 {
	if s.n < 1 {
		return 0
	}
	holds := func(i int64) bool {
		t, _ := truth(intBinary(op, s.lo+s.step*i, k, Bound))
		return t
	}
	switch op {
	case "==", "!=":
		var hit int64
		if d := k - s.lo; s.step != 0 && d%s.step == 0 && d/s.step >= 0 && d/s.step < s.n {
			hit = 1
		}
		if op == "==" {
			return hit
		}
		return s.n - hit
	case "<", "<=", ">", ">=":
	default:
		return 0
	}
	first, last := holds(0), holds(s.n-1)
	if first == last {
		if first {
			return s.n
		}
		return 0
	}
	// The first index at which the comparison stops (or starts) holding.
	lo, hi := int64(0), s.n-1
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; holds(mid) == first {
			lo = mid
		} else {
			hi = mid
		}
	}
	if first {
		return hi
	}
	return s.n - hi
}

// loopValues returns the values the variable of the counted loop l takes
// when its trip count n was found from known bounds, the zero span for
// other loops.
func (w *walker) loopValues(l *ir.Loop, n *Node) span {
	if l.Var == "" || l.Lo == nil || n.TripSource == TripDefault || n.Trip < 1 {
		return span{}
	}
	env := w.meanEnv(l.Lo, l.Step)
	lo, ok := Eval(l.Lo, env).Int()
	if !ok {
		return span{}
	}
	step := int64(1)
	if l.Step != nil {
		if step, ok = Eval(l.Step, env).Int(); !ok {
			return span{}
		}
	}
	return span{lo: lo, step: step, n: n.Trip}
}

// meanEnv returns the environment with the variables of the counted loops
// around, that xs mention, at their mean values (w.env itself when xs
// mention none).
func (w *walker) meanEnv(xs ...ir.Expr) *Env {
	env := w.env
	for _, t := range w.trips {
		if t.v == "" || t.values.n < 1 || !slices.ContainsFunc(xs, func(x ir.Expr) bool { return x != nil && mentions(x, t.v) }) {
			continue
		}
		if env == w.env {
			env = w.env.Clone()
		}
		env.Set(t.v, t.values.mid())
	}
	return env
}

// nestedTrip returns the trip count of a counted loop whose bounds depend
// on the variables of the counted loops around it ("for (j = i + 1; j <
// n; j++)", "do i = k + 1, nt"): its count with each of those at its mean
// value, the mean count over the outer iterations, with origin Bound.
func (w *walker) nestedTrip(l *ir.Loop, step Value) (int64, bool) {
	lo, hi := w.outerInit(l.Lo), w.outerInit(l.Hi)
	env := w.meanEnv(lo, hi)
	if env == w.env {
		return 0, false
	}
	n, _, ok := counted(Eval(lo, env), Eval(hi, env), step, l.Inclusive)
	return n, ok && n > 0
}

// triangularTrip returns the mean trip count of a loop from past the
// variable of a loop around it to the same bound, "for (a = 0; a < n;
// a++) for (b = a + 1; b < n; b++)", when that outer loop's count is
// known (from the extent of the arrays it indexes, say) and n is not:
// half the outer count, less the offset. outerDef reports an outer
// count that is itself a default.
func (w *walker) triangularTrip(l *ir.Loop) (n int64, outerDef, ok bool) {
	unit := func(step ir.Expr) bool {
		c, ok := step.(ir.Int)
		return step == nil || ok && c.V == 1
	}
	if !unit(l.Step) {
		return 0, false, false
	}
	for _, t := range slices.Backward(w.trips) {
		if t.v == "" || t.hi == nil || !unit(t.step) || t.inclusive != l.Inclusive || !reflect.DeepEqual(t.hi, l.Hi) {
			continue
		}
		off, ok := indexOffset(l.Lo, t.v)
		if !ok || off < 0 {
			return 0, false, false
		}
		return max(1, (t.n+1)/2-off), t.def, true
	}
	return 0, false, false
}

// outerInit returns the initialiser of the variable x names when it
// depends on the variable of a counted loop around ("long e = i + blk <
// n ? i + blk : n" in the body of a loop over i), else x.
func (w *walker) outerInit(x ir.Expr) ir.Expr {
	name := refName(x)
	if slices.ContainsFunc(w.trips, func(t loopTrip) bool { return t.v != "" && t.v == name }) {
		return x // a loop's variable: its mean value holds
	}
	init := w.initOf(x)
	for _, t := range w.trips {
		if t.v != "" && mentions(init, t.v) {
			return init
		}
	}
	return x
}

// VectorWidth is the factor by which compilers speed up an innermost
// counted loop that only stores into arrays (a fill or a copy): the
// elements one SIMD instruction handles.
const VectorWidth = 8

// StraightLineOpsPerCycle is how many operations a core retires per
// cycle in the other innermost loops with neither calls nor branches:
// such loops keep several independent operations in flight, where code
// with calls and branches retires about one.
const StraightLineOpsPerCycle = 2

// StridedLatency is the cycles an iteration waits for an element of an
// array it steps through across rows ("t[c * NSAMP + i]" in a loop over
// c, a transpose) over more than StridedSweepBytes: each access lands in
// another cache line, which the caches close to the core no longer hold,
// and the loop does not vectorise.
const StridedLatency = 12

// StridedSweepBytes is the span of memory a strided loop must cross, its
// stride times its trip count, for its accesses to miss the second-level
// cache: a tile of a blocked transpose stays within it.
const StridedSweepBytes = 1 << 20

// strideElems is the step, in elements, from which an access moves to
// another cache line on each iteration: 64 bytes of 4-byte elements.
const strideElems = 16

// strided reports whether the statements of body, run trip times, index
// an array by the loop variable v times a known stride of strideElems or
// more ("slab[c * NSAMP + t]" in a loop over c), across more than
// StridedSweepBytes.
func (w *walker) strided(body ir.Block, v string, trip int64) bool {
	found := false
	elem := int64(0) // of the array being indexed
	isStride := func(x ir.Expr) bool {
		b, ok := x.(ir.Binary)
		if !ok || b.Op != "*" {
			return false
		}
		for _, side := range [][2]ir.Expr{{b.L, b.R}, {b.R, b.L}} {
			k, known := Eval(side[1], w.env).Int()
			if known && k >= strideElems && isRef(uncast(side[0]), v) && k*elem*trip > StridedSweepBytes {
				return true
			}
		}
		return false
	}
	check := func(x ir.Expr) {
		ir.Any(x, func(y ir.Expr) bool {
			if ix, ok := y.(ir.Index); ok {
				elem = 0
				if a := w.env.Var(baseName(ix.X)); a != nil {
					t := a.Type
					t.Pointer, t.Dims = max(t.Pointer-1, 0), nil
					elem, _ = w.env.elemSize(t)
				}
				for _, i := range ix.Idx {
					found = found || ir.Any(i, isStride)
				}
			}
			return found
		})
	}
	for _, st := range body {
		if a, ok := st.(*ir.Assign); ok {
			check(a.Element)
			check(a.Value)
		}
	}
	return found
}

// LoadLatency is the cycles a load from the first-level cache takes. An
// iteration that cannot load before the previous one has finished (see
// chainedLoad) waits that long, besides its operations.
const LoadLatency = 4

// chainedLoad reports whether an iteration of body loads from an address
// computed from what the previous iteration loaded: a scalar assigned
// from an element it indexes with ("c = tab[(c ^ b[i]) & 0xff] ^ (c >>
// 8)", a table-driven CRC) or a member it reaches through ("p =
// p->next"). Such a loop runs at the latency of its loads, one after the
// other.
func chainedLoad(body ir.Block) bool {
	chained := false
	visitStmts(body, func(s ir.Stmt) {
		a, ok := s.(*ir.Assign)
		if !ok || a.Partial || chained {
			return
		}
		chained = ir.AnyEvaluated(a.Value, func(x ir.Expr) bool {
			switch x := x.(type) {
			case ir.Index:
				return slices.ContainsFunc(x.Idx, func(i ir.Expr) bool { return reads(i, a.Target) })
			case ir.Field:
				return reads(x.X, a.Target)
			}
			return false
		})
	})
	return chained
}

// storesOnly reports whether body is made only of assignments to array
// elements computed from the loop variable v: no scalar updates
// (reductions, recurrences), calls (math intrinsics included) or control
// flow.
func storesOnly(body ir.Block, v string) bool {
	if len(body) == 0 {
		return false
	}
	for _, s := range body {
		a, ok := s.(*ir.Assign)
		if !ok || !a.Partial || a.Op != "=" || !mentions(a.Value, v) || callsIn(a.Value) {
			return false
		}
	}
	return true
}

// onlyStreamed reports whether the only stores into name in body are
// insertions and extractions ("out << x", "in >> x"), which leave the
// stream it holds the same.
func onlyStreamed(body ir.Block, name string) bool {
	only := true
	visitStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			if s.Target == name && !(s.Partial && (s.Op == "<<" || s.Op == ">>")) {
				only = false
			}
		case *ir.Call:
			only = only && s.Result != name
		case *ir.Decl:
			only = only && s.Var.Name != name
		}
	})
	return only
}

// reopened reports whether the body changes the variable name only by
// giving it what an open routine or a program function returns: a
// helper opening the next file of a series ("f = open_month(m)"), so
// that the variable holds an open file throughout.
func (w *walker) reopened(body ir.Block, name string) bool {
	opens := func(callee string) bool {
		s, isIO := iosem.Lookup(callee)
		_, isFunc := w.b.resolve(callee, w.d.file)
		return isIO && s.Op == iosem.Open || !isIO && isFunc
	}
	found, only := false, true
	visitStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			if s.Target != name {
				return
			}
			c, isCall := uncast(s.Value).(ir.CallExpr)
			only = only && !s.Partial && isCall && opens(c.Callee)
		case *ir.Call:
			if s.Result == name {
				found = true
				only = only && opens(s.Callee)
			}
		case *ir.Decl:
			only = only && s.Var.Name != name
		}
	})
	return found && only
}

// tripCount returns how many times the body of l runs, and how that was
// found.
func (w *walker) tripCount(l *ir.Loop) (int64, TripSource) {
	def, defSrc := int64(w.b.opts.DefaultWhileTrip), TripDefault
	if l.Kind == ir.For || l.Kind == ir.Do || l.Kind == ir.RangeFor {
		def = int64(w.b.opts.DefaultTrip)
	}
	if w.probeLoop(l) {
		return ProbeTrip, TripOdds
	}
	if l.Lo != nil && l.Hi != nil {
		step := IntValue(1, Literal)
		if l.Step != nil {
			step = Eval(l.Step, w.env)
		}
		if n, o, ok := counted(Eval(l.Lo, w.env), Eval(l.Hi, w.env), step, l.Inclusive); ok {
			return n, tripSource(o)
		}
		if k, ok := w.offsetCount(l.Lo, l.Hi); ok {
			if n, o, ok := counted(IntValue(0, Literal), k, step, l.Inclusive); ok {
				return n, tripSource(o)
			}
		}
		if n, ok := w.nestedTrip(l, step); ok {
			return n, TripBound
		}
		if n, outerDef, ok := w.triangularTrip(l); ok {
			if outerDef {
				return n, defSrc
			}
			return n, TripBound
		}
		if hi, ok := w.drawMeans(l.Hi, 0); ok {
			env := w.meanEnv(l.Lo, hi)
			if n, _, ok := counted(Eval(l.Lo, env), Eval(hi, env), step, l.Inclusive); ok {
				return n, TripBound
			}
		}
		if rowRange(w.initOf(l.Lo), w.initOf(l.Hi)) || w.groupRange(l) {
			return DefaultRowTrip, defSrc
		}
		if n, ok := w.extentTrip(l); ok {
			if n > def && w.filled(l.Hi) {
				return def, defSrc
			}
			return n, TripBound
		}
		return def, defSrc
	}
	if l.Cond == nil {
		if n, ok := w.eofTrip(l); ok {
			return n, TripWritten
		}
		if n, ok := w.exitTrip(l); ok {
			return n, TripOdds
		}
		if l.Kind == ir.For {
			def = int64(w.b.opts.DefaultWhileTrip) // for (;;)
		}
		return def, defSrc
	}
	if l.Kind == ir.RangeFor {
		switch r := l.Cond.(type) {
		case ir.Ref:
			if s, ok := w.env.shapeOf(r.Name); ok {
				return s.count(), tripSource(s.origin)
			}
			if w.elementContainer(r) {
				// auto &bucket = buckets[key]; for (auto &c : bucket)
				return DefaultRowTrip, defSrc
			}
		case ir.Index:
			// for (double x : grid[i]) over a row of an array of
			// known shape, else for (uint32_t r : rels_of[obj][sect]):
			// one element's list.
			if s, ok := w.env.shapeOf(baseName(r)); ok && len(s.dims) > len(r.Idx) {
				n := int64(1)
				for _, d := range s.dims[len(r.Idx):] {
					n *= d
				}
				return n, tripSource(s.origin)
			}
			return DefaultRowTrip, defSrc
		case ir.Field:
			if n, ok := w.memberSize(r.Name); ok {
				return n, TripPropagated
			}
			if w.elementContainer(r) {
				// for (int r : papers[i].refs), for (auto &e : v.edges)
				// with v an element an outer loop visits: one element's
				// list, like a row of a sparse matrix.
				return DefaultRowTrip, defSrc
			}
		}
		return def, defSrc
	}
	w.headQueries(l)
	if t, ok := truth(Eval(l.Cond, w.env)); ok && !t {
		if l.Kind == ir.DoWhile {
			return 1, TripLiteral
		}
		return 0, TripLiteral
	}
	if n, ok := w.flagTrip(l); ok {
		return n, TripOdds
	}
	if n, o, ok := w.induction(l); ok {
		if l.Kind == ir.DoWhile {
			n = max(n, 1)
		}
		if n > def && listsDirectory(l) {
			// while ((e = readdir(d)) && n < 256): a cap on a listing
			// of unknown length, not its length.
			return def, defSrc
		}
		return n, tripSource(o)
	}
	if n, src, ok := w.scanTrip(l); ok {
		return n, src
	}
	if w.bucketChain(l) {
		return DefaultRowTrip, defSrc
	}
	if counter, final, ok := w.completesTransfer(l); ok {
		return w.transferTrips(l, counter, final), TripTransfer
	}
	if n, ok := w.eofTrip(l); ok {
		return n, TripWritten
	}
	if n, ok := w.exitTrip(l); ok {
		return n, TripOdds
	}
	if w.readsStringStream(l.Cond) {
		return def, defSrc // the fields of a line, not the records of a file
	}
	if readsInput(l.Cond) || readsInputFirst(l) {
		n := int64(w.b.opts.DefaultReadTrip)
		size := int64(DefaultReadBytes)
		if h, _, _, ok := w.eofRead(l); ok && w.openedPerIteration(h) {
			n, size = min(n, SmallFileReadTrip), SmallFileBytes
		}
		if b := w.readRequest(l); b > 0 {
			n = min(max(size/b, 1), n)
		}
		return n, defSrc
	}
	if w.overElement(l) {
		return DefaultRowTrip, defSrc
	}
	return def, defSrc
}

// SmallFileReadTrip is the records assumed for a file the program did not
// write (or whose contents the analysis does not know) when a loop opens
// one such file per iteration: a directory of reports, records or
// messages holds small files.
const SmallFileReadTrip = 50

// SmallFileBytes is the size assumed for such a file read by requests of
// known size: one request of 16 KiB or more takes it whole.
const SmallFileBytes = 16 << 10

// openedPerIteration reports whether the file of h was opened by the
// function being walked inside a loop around the statement being walked.
func (w *walker) openedPerIteration(h *Handle) bool {
	f := h.File()
	return f.openedIn == w.fn && f.openScale > 0 && f.openScale <= len(w.scale)
}

// overElement reports whether the condition of l tests the size of a
// container held in one element of another ("q < ra.size()" with "const
// auto &ra = by_sect[o][s]", "k < objs[i].syms.size()"), whose size the
// walk does not know.
func (w *walker) overElement(l *ir.Loop) bool {
	return slices.ContainsFunc(headCalls(l), func(c *ir.Call) bool {
		return (c.Callee == "size" || c.Callee == "length") && w.elementContainer(c.Receiver)
	})
}

// headCalls returns the calls of the condition of l, which the front-end
// puts first in the body, one per call in the condition; the body's own
// calls follow.
func headCalls(l *ir.Loop) []*ir.Call {
	n := 0
	ir.Any(l.Cond, func(x ir.Expr) bool {
		if _, ok := x.(ir.CallExpr); ok {
			n++
		}
		return false
	})
	var out []*ir.Call
	for _, st := range l.Body[:min(n, len(l.Body))] {
		c, ok := st.(*ir.Call)
		if !ok {
			break
		}
		out = append(out, c)
	}
	return out
}

// elementContainer reports whether x is a container held in one element
// of another: a subscript (lists[i]), a member of one (papers[i].refs,
// v.edges with v an element an outer loop visits), or a variable bound to
// one (auto &bucket = buckets[key]).
func (w *walker) elementContainer(x ir.Expr) bool {
	switch x := x.(type) {
	case ir.Index:
		return true
	case ir.Field:
		return isIndex(x.X) || w.isElementLoopVar(x.X) || w.boundToElement(x.X)
	case ir.Ref:
		return w.boundToElement(x)
	}
	return false
}

// boundToElement reports whether x is a variable initialised with an
// element of an array or container (const Object &o = objs[i]).
func (w *walker) boundToElement(x ir.Expr) bool {
	r, ok := x.(ir.Ref)
	if !ok {
		return false
	}
	v := w.env.Var(r.Name)
	return v != nil && isIndex(v.Init)
}

// readRequest returns the bytes the read in a loop's condition, or
// hoisted from it, asks for on each iteration, or 0 when unknown.
func (w *walker) readRequest(l *ir.Loop) int64 {
	var found int64
	check := func(x ir.Expr) {
		ir.Any(x, func(y ir.Expr) bool {
			c, ok := y.(ir.CallExpr)
			if !ok || found > 0 {
				return false
			}
			s, ok := iosem.Lookup(c.Callee)
			if !ok || s.Op != iosem.Read {
				return false
			}
			if b, _, known := w.transferBytes(&ir.Call{Callee: c.Callee, Args: c.Args}, s, nil); known && b > 0 {
				found = b
			}
			return true
		})
	}
	check(l.Cond)
	for _, st := range l.Body {
		switch st := st.(type) {
		case *ir.Call:
			check(ir.CallExpr{Callee: st.Callee, Args: st.Args})
		case *ir.Assign:
			check(st.Value)
		default:
			return found
		}
		if found > 0 {
			break
		}
	}
	return found
}

// completesTransfer reports whether l repeats a transfer until it has
// moved all it was asked to: "while (left > 0) { k = write(fd, p, left);
// ...; left -= k; }" or "while (done < n) { k = read(fd, p + done, n -
// done); ...; done += k; }". A read or write moves all it is asked for but
// for signals, short reads at the end of a file and pipes: the body runs
// once. It returns the counter and its value after the loop (0, n).
func (w *walker) completesTransfer(l *ir.Loop) (counter string, final ir.Expr, ok bool) {
	cond := l.Cond
	if r, isRef := cond.(ir.Ref); isRef {
		cond = ir.Binary{Op: "!=", L: r, R: ir.Int{V: 0}} // while (len)
	}
	c, ok := cond.(ir.Binary)
	if !ok {
		return "", nil, false
	}
	op := ""
	switch {
	case (c.Op == ">" || c.Op == "!=") && isLiteralZero(c.R):
		counter, op, final = refName(c.L), "-=", ir.Int{V: 0}
	case c.Op == "<":
		counter, op, final = refName(c.L), "+=", c.R
	}
	if counter == "" {
		return "", nil, false
	}
	var asks, counts bool
	set := w.assignedIn(l.Body)
	// sized are the locals the body sizes a request with from the
	// counter: "size_t want = n > CHUNK ? CHUNK : n".
	sized := map[string]bool{counter: true}
	visitStmts(l.Body, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Decl:
			if mentions(st.Var.Init, counter) {
				sized[st.Var.Name] = true
			}
		case *ir.Call:
			if s, ok := iosem.Lookup(st.Callee); ok && s.Op.IsData() && slices.ContainsFunc(st.Args, func(a ir.Expr) bool {
				return mentionsAny(a, sized)
			}) {
				asks = true
			}
		case *ir.Assign:
			// by what a transfer returned (a variable the body sets, a
			// call), not by a constant step (a counted loop over
			// records, "s++", "off += kChunk").
			if st.Target == counter && st.Op == op && (callsIn(st.Value) || mentionsAny(st.Value, set)) {
				counts = true
			}
		}
	})
	return counter, final, asks && counts
}

// transferTrips returns the trip count of a transfer loop (see
// completesTransfer): one, or the chunks of a request the body cuts in
// pieces of at most K ("want = n > K ? K : n", "min(left, K)") when the
// request and K are known.
func (w *walker) transferTrips(l *ir.Loop, counter string, final ir.Expr) int64 {
	left := Eval(ir.Ref{Name: counter}, w.env)
	if !isLiteralZero(final) { // done < n: n - done left
		left = binary("-", Eval(final, w.env), left)
	}
	var chunk int64
	var sized string // the local holding the capped request
	visitStmts(l.Body, func(st ir.Stmt) {
		d, isDecl := st.(*ir.Decl)
		if !isDecl || chunk > 0 {
			return
		}
		if k, ok := capOfCounter(d.Var.Init, counter, w.env); ok {
			chunk, sized = k, d.Var.Name
		}
	})
	total, ok := left.Int()
	switch {
	case chunk <= 0:
		return 1
	case !ok || total <= 0:
		return w.fileChunks(l, sized, chunk)
	}
	return (total + chunk - 1) / chunk
}

// fileChunks returns the chunks a transfer loop whose total is not known
// reads a file in, when it reads a file the program wrote, of known size,
// by requests of at most chunk units (the local sized): "left =
// h.count; while (left > 0) { want = min(left, K); fread(buf, sizeof
// rec, want, f); ... }" over a file of records it wrote. It returns 1
// otherwise.
func (w *walker) fileChunks(l *ir.Loop, sized string, chunk int64) int64 {
	n := int64(1)
	visitStmts(l.Body, func(st ir.Stmt) {
		c, ok := st.(*ir.Call)
		if !ok || n > 1 {
			return
		}
		s, ok := iosem.Lookup(c.Callee)
		z := s.Size
		if !ok || s.Op != iosem.Read || s.File.Kind != iosem.HandleArg || z.Kind != iosem.Bytes {
			return
		}
		unit := int64(1)
		switch {
		case z.Count2 >= 0 && mentions(arg(c, z.Count2), sized):
			if unit, ok = Eval(arg(c, z.Count), w.env).Int(); !ok || unit < 1 {
				return
			}
		case !mentions(arg(c, z.Count), sized):
			return
		}
		h := w.handleOf(arg(c, s.File.Arg), s.Interface)
		if h == nil || h.Kind != FileHandle {
			return
		}
		if e, ok := h.contents(); ok && e.bytes >= 1 {
			n = max(int64(e.bytes)/(unit*chunk), 1)
		}
	})
	return n
}

// capOfCounter returns K when x caps the counter v at K: "v > K ? K : v",
// "v < K ? v : K", min(v, K).
func capOfCounter(x ir.Expr, v string, env *Env) (int64, bool) {
	switch x := uncast(x).(type) {
	case ir.Cond:
		c, ok := x.C.(ir.Binary)
		if !ok {
			return 0, false
		}
		for _, k := range []ir.Expr{x.T, x.F} {
			if refName(uncast(k)) == v {
				continue
			}
			if n, ok := Eval(k, env).Int(); ok && n > 0 && (mentions(c.L, v) || mentions(c.R, v)) {
				return n, true
			}
		}
	case ir.CallExpr:
		if strings.EqualFold(x.Callee, "min") && len(x.Args) == 2 {
			for i, a := range x.Args {
				if refName(uncast(a)) == v {
					if n, ok := Eval(x.Args[1-i], env).Int(); ok && n > 0 {
						return n, true
					}
				}
			}
		}
	}
	return 0, false
}

// refName returns the variable x names, "" when x is not a variable.
func refName(x ir.Expr) string {
	if r, ok := x.(ir.Ref); ok {
		return r.Name
	}
	return ""
}

// isLiteralZero reports whether x is the literal 0 (divisibilityOdds also
// takes values known in the environment).
func isLiteralZero(x ir.Expr) bool {
	i, ok := x.(ir.Int)
	return ok && i.V == 0
}

// exitTrip returns the trip count of a loop without a condition (or with
// one that always holds) that leaves on one test of known odds p (see
// branchOdds) and nowhere else: 1/p, the mean number of tries until the
// first success. "for (;;) { read_page(...); if (b.count < SLOTS) {
// insert; return; } split(); }" runs about once.
func (w *walker) exitTrip(l *ir.Loop) (int64, bool) {
	l = w.endless(l)
	if l.Cond != nil {
		return 0, false
	}
	var exit *ir.If
	side := 0
	for _, st := range l.Body {
		s, ok := st.(*ir.If)
		if !ok {
			continue
		}
		if i, leaves := w.leavesLoop([]ir.Block{s.Then, s.Else}); leaves {
			if exit != nil {
				return 0, false
			}
			exit, side = s, i
		}
	}
	if exit == nil {
		return 0, false
	}
	if exits, returns := loopExits(l.Body, w.fortran(), func(x ir.Expr) bool { return false }); exits+btoi(returns) != 1 {
		return 0, false
	}
	p := w.branchOdds(exit.Cond)
	if side == 1 {
		p = 1 - p
	}
	if p <= 0 || p >= 1 {
		return 0, false
	}
	return max(int64(math.Round(1/p)), 1), true
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readsInputFirst reports whether the statements hoisted from l's
// condition to the start of its body assign a variable of the condition
// from a read: "while ((n = read(fd, buf, BLOCK)) > 0)".
func readsInputFirst(l *ir.Loop) bool {
	for _, st := range l.Body {
		switch st := st.(type) {
		case *ir.Assign:
			if mentions(l.Cond, st.Target) && readsInput(st.Value) {
				return true
			}
		case *ir.Call:
		default:
			return false
		}
	}
	return false
}

// readsInput reports whether an expression calls a data-reading routine:
// a loop whose condition does ("while (fgets(...))") reads to the end of
// its input.
func readsInput(x ir.Expr) bool {
	return ir.Any(x, func(y ir.Expr) bool {
		c, ok := y.(ir.CallExpr)
		if !ok {
			return false
		}
		s, ok := iosem.Lookup(c.Callee)
		return ok && s.Op == iosem.Read
	})
}

// readsStringStream reports whether x extracts from a C++ string stream
// ("std::getline(ss, field, ',')"): a loop on it splits a string, such as
// a line read from a file, into its fields.
func (w *walker) readsStringStream(x ir.Expr) bool {
	return ir.Any(x, func(y ir.Expr) bool {
		c, ok := y.(ir.CallExpr)
		if !ok || len(c.Args) == 0 {
			return false
		}
		s, ok := iosem.Lookup(c.Callee)
		return ok && s.Op == iosem.Read && w.isStringStream(c.Args[0])
	})
}

func tripSource(o Origin) TripSource {
	switch o {
	case Literal:
		return TripLiteral
	case Constant:
		return TripConstant
	case Propagated:
		return TripPropagated
	case Passed:
		return TripParameter
	case Argument:
		return TripArgument
	}
	return TripBound
}

// headQueries records, before the trip count is worked out, the values of
// the container size queries the front-end hoisted from a loop's
// condition to the start of its body ("i < v.size()"), so that the
// condition's bound is known at entry. The other calls hoisted from the
// condition have not run yet: an earlier call of the same routine, or an
// earlier value of the variable their result goes to, must not decide it
// ("while (fread(&x, 8, 1, f) == 1)" after another fread).
func (w *walker) headQueries(l *ir.Loop) {
	for _, c := range headCalls(l) {
		v, _ := w.containerQuery(c)
		w.env.calls.set(c.Callee, v)
		if c.Result != "" && v.Kind == Unknown {
			w.env.Set(c.Result, Value{})
		}
	}
}

// counted returns the trip count of a loop from lo to hi by step.
func counted(lo, hi, step Value, inclusive bool) (int64, Origin, bool) {
	a, aok := lo.Int()
	b, bok := hi.Int()
	s, sok := step.Int()
	if !aok || !bok || !sok || s == 0 {
		return 0, 0, false
	}
	o := max(lo.Origin, hi.Origin, step.Origin)
	d := b - a
	if s < 0 {
		d, s = -d, -s
	}
	switch {
	case d < 0, d == 0 && !inclusive:
		return 0, o, true
	case inclusive:
		return d/s + 1, o, true
	}
	return (d + s - 1) / s, o, true
}

// induction recognises a condition loop driven by a counter: the
// condition compares a variable v with a bound, and the body steps v by a
// constant in every iteration (see counterStep).
func (w *walker) induction(l *ir.Loop) (int64, Origin, bool) {
	if r, ok := l.Cond.(ir.Ref); ok {
		// while (left), do ... while (--t): a count down to zero.
		sub := *l
		sub.Cond = ir.Binary{Op: "!=", L: r, R: ir.Int{V: 0}}
		return w.induction(&sub)
	}
	cond, ok := l.Cond.(ir.Binary)
	if !ok {
		return 0, 0, false
	}
	if cond.Op == "&&" {
		// "n < max && fscanf(...) == 1": the loop stops at the first
		// counter to reach its bound, if not before.
		var best int64
		var origin Origin
		found := false
		for _, side := range []ir.Expr{cond.L, cond.R} {
			sub := *l
			sub.Cond = side
			if n, o, ok := w.induction(&sub); ok && (!found || n < best) {
				best, origin, found = n, o, true
			}
		}
		return best, origin, found
	}
	op, v, boundX := cond.Op, cond.L, cond.R
	if !counterSide(v) {
		op, v, boundX = flip(op), cond.R, cond.L
	}
	// "i + K <= n" is "i <= n - K".
	for {
		b, ok := v.(ir.Binary)
		if !ok || b.Op != "+" && b.Op != "-" {
			break
		}
		inverse := map[string]string{"+": "-", "-": "+"}[b.Op]
		v, boundX = b.L, ir.Binary{Op: inverse, L: boundX, R: b.R}
	}
	r, ok := v.(ir.Ref)
	if !ok {
		return 0, 0, false
	}
	step, ok := w.counterStep(l.Body, r.Name)
	if !ok {
		if c, ok := w.clockOf(l); ok && c.step > 0 {
			return int64(math.Ceil((c.end-c.start)/c.step - clockSlack)), Propagated, true
		}
		return w.nestedCount(l, r.Name, op, boundX)
	}
	start, bound := Eval(r, w.env), Eval(boundX, w.env)
	if k, ok := w.offsetCount(w.initOf(r), boundX); ok && !start.Known() {
		// for (m = b0; m < b0 + batch; m++): batch, whatever b0.
		start, bound = IntValue(0, Literal), k
	}
	if !bound.Known() {
		if m, ok := w.drawMeans(boundX, 0); ok {
			n, _, ok := inductionCount(op, start, Eval(m, w.env), step)
			return n, Bound, ok
		}
	}
	if s, _ := step.Int(); !start.Known() && bound.Known() && s > 0 && (op == "<" || op == "<=") {
		// for (; k < nt; k++) from where earlier statements left k: at
		// most the bound, for a count up from zero or more, when that is
		// below the default.
		if n, _, ok := inductionCount(op, IntValue(0, Literal), bound, step); ok && n < int64(w.b.opts.DefaultTrip) {
			return n, Bound, true
		}
	}
	return inductionCount(op, start, bound, step)
}

// offsetCount returns the value of K when hi is lo + K: a loop from lo to
// hi then runs over K values whatever lo is. A count that is only the
// known side of an undecided choice ("cnt = b > a ? b - a : 0") is not
// taken when it leaves no iteration.
func (w *walker) offsetCount(lo, hi ir.Expr) (Value, bool) {
	k, ok := offsetBound(lo, hi)
	if !ok {
		return Value{}, false
	}
	v := Eval(k, w.env)
	if n, known := v.Int(); !known || n <= 0 && v.Origin == Bound {
		return Value{}, false
	}
	return v, true
}

// offsetBound returns K when hi is lo + K, or when both are one base
// plus or minus constants (d0 - 1 and d0 + 1: K is 2).
func offsetBound(lo, hi ir.Expr) (ir.Expr, bool) {
	if lo == nil {
		return nil, false
	}
	if b, ok := hi.(ir.Binary); ok && b.Op == "+" {
		switch {
		case reflect.DeepEqual(b.L, lo):
			return b.R, true
		case reflect.DeepEqual(b.R, lo):
			return b.L, true
		}
	}
	lb, lk := constantOffset(lo)
	hb, hk := constantOffset(hi)
	if lb == nil || hb == nil || !reflect.DeepEqual(lb, hb) || lk == 0 && hk == 0 {
		return nil, false
	}
	return ir.Int{V: hk - lk}, true
}

// constantOffset splits x into a base and a constant added to it: d0 + 1
// is (d0, 1), d0 - 1 is (d0, -1), 2 + d0 is (d0, 2), d0 is (d0, 0).
func constantOffset(x ir.Expr) (ir.Expr, int64) {
	b, ok := x.(ir.Binary)
	if !ok || b.Op != "+" && b.Op != "-" {
		return x, 0
	}
	if k, ok := b.R.(ir.Int); ok && !k.Char {
		if b.Op == "-" {
			return b.L, -k.V
		}
		return b.L, k.V
	}
	if k, ok := b.L.(ir.Int); ok && !k.Char && b.Op == "+" {
		return b.R, k.V
	}
	return x, 0
}

// inductionCount returns the trip count of a loop testing "v op bound"
// with v from start by step.
func inductionCount(op string, start, bound, step Value) (int64, Origin, bool) {
	s, _ := step.Int()
	switch {
	case (op == "<" || op == "!=") && s > 0:
		return counted(start, bound, step, false)
	case op == "<=" && s > 0:
		return counted(start, bound, step, true)
	case (op == ">" || op == "!=") && s < 0:
		return counted(start, bound, step, false)
	case op == ">=" && s < 0:
		return counted(start, bound, step, true)
	}
	return 0, 0, false
}

// counterSide reports whether x may be the counter side of a loop
// condition: a variable, or a variable plus or minus an offset.
func counterSide(x ir.Expr) bool {
	for {
		switch e := x.(type) {
		case ir.Ref:
			return true
		case ir.Binary:
			if e.Op != "+" && e.Op != "-" {
				return false
			}
			x = e.L
		default:
			return false
		}
	}
}

// nestedCount bounds a loop whose counter v, tested "v < K" or "v <= K",
// is only counted up inside nested blocks ("while (nf < 3 && fgets(line,
// ...)) while (...) fields[nf++] = ..."): each iteration steps it once
// at least, so the loop runs at most K − v times, with origin Bound.
func (w *walker) nestedCount(l *ir.Loop, v, op string, boundX ir.Expr) (int64, Origin, bool) {
	if op != "<" && op != "<=" {
		return 0, 0, false
	}
	up, other := false, false
	visitStmts(l.Body, func(s ir.Stmt) {
		a, ok := s.(*ir.Assign)
		if !ok || a.Target != v {
			return
		}
		if st, known := w.stepOf(a, v).Int(); known && st > 0 {
			up = true
		} else {
			other = true
		}
	})
	if !up || other {
		return 0, 0, false
	}
	n, _, ok := counted(Eval(ir.Ref{Name: v}, w.env), Eval(boundX, w.env), IntValue(1, Literal), op == "<=")
	return n, Bound, ok
}

// flip mirrors a comparison: a < b is b > a.
func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

// counterStep returns the step by which body advances the counter name
// in every iteration: the sum of the constant steps of the assignments to
// it directly in body (v += c, v -= c, v = v ± c, v++). Steps in branches
// or nested loops (seq[len++] = b in an inner loop, len += K on a rare
// path) must be constants of the same sign: they only bring the bound
// nearer, and the trip count is then an upper bound. Any other assignment
// to name, or no direct step, makes it no counter.
func (w *walker) counterStep(body ir.Block, name string) (Value, bool) {
	// A step by a local the body declares first is its initialiser, at
	// entry: "size_t t = left > K ? K : left; left -= t". One set by a
	// call is what the call returns on that pass ("got = fread(...)"),
	// not known before the body runs.
	inits := map[string]ir.Expr{}
	for _, s := range body {
		if d, ok := s.(*ir.Decl); ok && d.Var.Init != nil && !callsIn(d.Var.Init) {
			inits[d.Var.Name] = d.Var.Init
		}
	}
	stepOf := func(a *ir.Assign) Value {
		if init, ok := inits[refName(uncast(a.Value))]; ok && (a.Op == "+=" || a.Op == "-=") {
			b := *a
			b.Value = init
			a = &b
		}
		return w.stepOf(a, name)
	}
	sign, ok := int64(0), true
	visitStmts(body, func(s ir.Stmt) {
		a, isAssign := s.(*ir.Assign)
		if !isAssign || a.Target != name {
			return
		}
		st, known := stepOf(a).Int()
		if !known || st == 0 || sign != 0 && (st > 0) != (sign > 0) {
			ok = false
			return
		}
		sign = st
	})
	var step Value
	for _, s := range body {
		if a, isAssign := s.(*ir.Assign); isAssign && a.Target == name {
			if step.Kind == Unknown {
				step = stepOf(a)
			} else {
				step = binary("+", step, stepOf(a))
			}
		}
	}
	if !ok || step.Kind != Int || step.I == 0 {
		return Value{}, false
	}
	return step, true
}

// stepOf returns the constant by which the assignment a steps the
// variable name, or an unknown value when a does something else.
func (w *walker) stepOf(a *ir.Assign, name string) Value {
	if assignName(a) != name {
		return Value{}
	}
	switch a.Op {
	case "+=", "-=":
		step := Eval(a.Value, w.env)
		if a.Op == "-=" {
			step = unary("-", step)
		}
		return step
	case "=":
		if b, ok := a.Value.(ir.Binary); ok && (b.Op == "+" || b.Op == "-") {
			if isRef(b.L, name) || memberOf(b.L) == name {
				step := Eval(b.R, w.env)
				if b.Op == "-" {
					step = unary("-", step)
				}
				return step
			}
		}
	}
	return Value{}
}

// assignedIn returns the variables the statements of body may change:
// those they assign, declare, read into or count with, and those passed
// by reference to calls that may change them (every such argument of a
// routine the program does not define; for a program function, those its
// effects name, and the host variables it assigns).
func (w *walker) assignedIn(body ir.Block) map[string]bool {
	out := map[string]bool{}
	visitStmts(body, func(s ir.Stmt) { w.changes(s, out) })
	delete(out, "")
	return out
}

// changes adds to out the variables statement s itself may change (not
// those of the statements nested in it).
func (w *walker) changes(s ir.Stmt, out map[string]bool) {
	stores(s, out)
	switch s := s.(type) {
	case *ir.Decl:
		out[s.Var.Name] = true
	case *ir.Assign:
		out[assignName(s)] = true
	case *ir.Call:
		for _, name := range w.passedCounters(s) {
			out[name] = true
		}
		t, eff := w.b.calleeEffects(s, w.d, w.env)
		for _, name := range changedArgs(s, w.d.file.Lang, t.f, eff) {
			out[name] = true
		}
		if eff != nil {
			for name := range eff.nonlocal {
				out[name] = true
			}
		}
	}
}

// baseName returns the variable an lvalue designates (a, a(i), a%f).
func baseName(x ir.Expr) string {
	switch x := x.(type) {
	case ir.Ref:
		return x.Name
	case ir.Index:
		return baseName(x.X)
	case ir.Field:
		return baseName(x.X)
	case ir.Unary:
		if x.Op == "&" || x.Op == "*" {
			return baseName(x.X)
		}
	}
	return ""
}

// markSeeks marks the handles that a loop body repositions, so that
// accesses before the seek in the body count as random too (they follow
// the previous iteration's seek).
func (w *walker) markSeeks(body ir.Block) {
	visitStmts(body, func(s ir.Stmt) {
		c, ok := s.(*ir.Call)
		if !ok {
			return
		}
		if _, user := w.b.resolve(c.Callee, w.d.file); user {
			return
		}
		sem, ok := iosem.Lookup(c.Callee)
		var h *Handle
		switch {
		case ok && sem.Op == iosem.Seek && sem.File.Kind == iosem.HandleArg:
			h = w.handleOf(arg(c, sem.File.Arg), sem.Interface)
		case c.Receiver != nil:
			if sem, ok = iosem.Method(c.Callee); ok && sem.Op == iosem.Seek {
				h, _ = w.streamOf(c.Receiver)
			}
		}
		if h != nil && repositions(sem, c, w.env) {
			w.b.seeked[h.File()] = c.Callee
		}
	})
}

// repositions reports whether a seek moves to a computed position rather
// than rewinding or querying: it has an offset argument that is not the
// constant 0.
func repositions(s iosem.Semantics, c *ir.Call, env *Env) bool {
	if s.Op != iosem.Seek || s.Offset < 0 {
		return false
	}
	off := arg(c, s.Offset)
	if off == nil {
		return false
	}
	v, ok := Eval(off, env).Int()
	return !ok || v != 0
}

// arg returns the i-th argument of c, or nil.
func arg(c *ir.Call, i int) ir.Expr {
	if i >= 0 && i < len(c.Args) {
		return c.Args[i]
	}
	return nil
}

// mentionsAny reports whether expression x refers to one of the
// variables of names.
func mentionsAny(x ir.Expr, names map[string]bool) bool {
	return ir.Any(x, func(y ir.Expr) bool {
		r, ok := y.(ir.Ref)
		return ok && names[r.Name]
	})
}

// mentions reports whether expression x refers to the variable name.
func mentions(x ir.Expr, name string) bool {
	return ir.Any(x, func(y ir.Expr) bool {
		r, ok := y.(ir.Ref)
		return ok && r.Name == name
	})
}

// reads reports whether evaluating x reads the variable name: a mention
// outside the operand of sizeof.
func reads(x ir.Expr, name string) bool {
	return ir.AnyEvaluated(x, func(y ir.Expr) bool {
		r, ok := y.(ir.Ref)
		return ok && r.Name == name
	})
}

// callsIn reports whether expression x calls a function.
func callsIn(x ir.Expr) bool {
	return ir.Any(x, func(y ir.Expr) bool {
		_, ok := y.(ir.CallExpr)
		return ok
	})
}

// lastIndex returns the index of the last element of s satisfying f, or
// -1.
func lastIndex[T any](s []T, f func(T) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// isIndex reports whether x is a subscript (a[i], m[key]).
func isIndex(x ir.Expr) bool {
	_, ok := x.(ir.Index)
	return ok
}
