package pdg

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// walker analyses the body of one function instance, statement by
// statement, in an environment of known values.
type walker struct {
	b   *builder
	d   funcDef
	fn  *Node
	env *Env
	// trips are the loops around the statement being walked, innermost
	// last.
	trips []loopTrip
	// scale are the factors by which the statement being walked runs per
	// call of the function: the trip counts of the loops and the odds of
	// the branch sides around it, innermost last.
	scale []float64
	// grown are the local containers the walk follows the growth of
	// (push_back in loops), with the number of loops around their
	// declarations.
	grown map[string]int
	// begun is the size of the container whose begin() the walk saw
	// last (std::sort(v.begin(), v.end()) sorts it), unknown when not
	// known.
	begun Value
	// result is the value the function returns (Node.Result).
	result Value
	// settled are the variables set in a branch that tested a key of the
	// program's own text, with the key's value: they keep it past the
	// merge of the branch and the end of the loop that parses the text,
	// until a store outside such a branch. keyDepth counts those branches
	// around the statement being walked. Arrays of handles are settled
	// too (see handleElement).
	settled  map[string]Value
	keyDepth int
	// returned are the extents of the container or array the latest call
	// of each program function returned, by callee (auto jobs =
	// load_log(path)).
	returned map[string]shape
	// resultShape is the extents of the container or array the function
	// returns (Node.resultShape).
	resultShape shape
	// tallies are the counters the loops being walked step (see
	// startTallies), by name.
	tallies map[string]*tally
	// sums are the variables counted loops added one term to per
	// iteration (see startSums), by name.
	sums map[string]sum
	// written are the character parameters the function writes a string
	// into (snprintf(buf, n, "%s/part%d.bin", dir, r)): the caller's
	// buffer holds that string after the call.
	written map[string]bool
	// changed are the changes of the counters of the structures the
	// function's pointer parameters point to, by member name (see
	// recordChange).
	changed map[string]*memberChange
	// lines are the lengths of the text lines the latest reads left in
	// character buffers, by buffer (see readLine).
	lines map[string]int64
}

func (b *builder) newWalker(d funcDef, n *Node, ctx callContext) *walker {
	w := &walker{b: b, d: d, fn: n, env: b.funcEnv(d, ctx), settled: map[string]Value{}}
	for _, p := range d.f.Params {
		if p.Type.Pointer == 0 && len(p.Type.Dims) == 0 {
			if s, ok := baseSize(p.Type); ok {
				n.Stack += float64(s)
				continue
			}
		}
		n.Stack += 8 // passed by address
	}
	return w
}

func (w *walker) fortran() bool { return w.d.file.Lang == ir.Fortran }

func (w *walker) walk(blk ir.Block, parent *Node) {
	for i, s := range blk {
		if f, ok := s.(*ir.If); ok && len(f.Else) == 0 && i+1 < len(blk) && w.skipsRest(f) {
			// "if (c) continue; rest", "if (hit) return x; rest": the
			// rest runs only when c does not hold, as the other side of
			// the branch.
			w.stmt(&ir.If{Pos: f.Pos, Cond: f.Cond, Then: f.Then, Else: blk[i+1:]}, parent)
			break
		}
		if l, ok := s.(*ir.Loop); ok && i+1 < len(blk) && w.ends(blk[len(blk)-1]) && returnsIn(l.Body) {
			// A loop returning what it looks for, then a rest that ends
			// the program ("buffer pool exhausted"; exit(1)): the rest
			// is the search's failure, an error path.
			w.stmt(s, parent)
			w.stmt(&ir.If{Pos: blk[i+1].Position(), Cond: ir.Unknown{Text: "the loop found nothing"}, Then: blk[i+1:]}, parent)
			break
		}
		w.stmt(s, parent)
		if f, ok := s.(*ir.If); ok && len(f.Else) == 0 && len(f.Then) > 0 && w.leaves(f.Then[len(f.Then)-1]) {
			w.checkCaps(f.Cond)
		}
	}
	if parent == w.fn && len(blk) > 0 {
		if r, ok := blk[len(blk)-1].(*ir.Return); ok && r.Value != nil {
			// A negative result is an error code (-1), not a number the
			// caller computes with. A handle (a file or dataset a helper
			// opens and returns) keeps what the helper knew of it.
			if v := Eval(r.Value, w.env); v.Kind == Int && v.I >= 0 || v.Kind == Float && v.F >= 0 || v.Kind == HandleVal {
				w.result = v
			}
			if ref, ok := r.Value.(ir.Ref); ok {
				w.resultShape, _ = w.env.shapeOf(ref.Name)
			}
		}
	}
}

// storedValue is the value assignment s stores into lhs, the place it
// assigns: its value, or lhs op value for a compound assignment (+=).
func storedValue(s *ir.Assign, lhs ir.Expr) ir.Expr {
	if s.Op == "=" || s.Op == "" {
		return s.Value
	}
	return ir.Binary{Op: strings.TrimSuffix(s.Op, "="), L: lhs, R: s.Value}
}

// returnsIn reports whether a return statement is among the statements
// of body.
func returnsIn(body ir.Block) bool {
	found := false
	visitStmts(body, func(s ir.Stmt) {
		_, r := s.(*ir.Return)
		found = found || r
	})
	return found
}

// leaves reports whether st ends the program or returns from the
// function: the end of a check's failure side.
func (w *walker) leaves(st ir.Stmt) bool {
	_, ret := st.(*ir.Return)
	return ret || w.ends(st)
}

// checkCaps bounds what a check that leaves the function or the program
// when it fails tested against a known limit: past "if (n > MAX_TILES)
// die(...)" an unknown n is at most MAX_TILES, and programs size such
// limits for the data they expect, so it stands for that limit.
func (w *walker) checkCaps(cond ir.Expr) {
	b, ok := cond.(ir.Binary)
	if !ok {
		return
	}
	x, limit := b.L, b.R
	switch b.Op {
	case "||":
		w.checkCaps(b.L)
		w.checkCaps(b.R)
		return
	case ">", ">=":
	case "<", "<=":
		x, limit = b.R, b.L
	default:
		return
	}
	x = uncast(x)
	lv := Eval(limit, w.env)
	if _, known := lv.Int(); !known || lv.Origin == Bound || Eval(x, w.env).Known() || callsIn(x) {
		return
	}
	switch x := x.(type) {
	case ir.Ref:
		w.env.Set(x.Name, lv.with(Bound))
	case ir.Field, ir.Index:
		w.env.setCap(x, lv)
	}
}

// weighed reports whether the analysis knows the truth or the odds of a
// condition. The skips of unweighed conditions ("if (line[0] == '#')
// continue") are taken to be rare: comment lines, bad records.
func (w *walker) weighed(cond ir.Expr) bool {
	if _, ok := truth(Eval(cond, w.env)); ok {
		return true
	}
	return w.branchOdds(cond) > 0
}

// skipsRest reports whether the then side of f ends with C's continue or
// Fortran's CYCLE on a condition the analysis weighs, or with the return
// of a cache hit (hitOdds): what follows f in its block runs only when
// its condition does not hold. Other returns are left alone: a return on
// a weighed condition is often a failed check ("return false" when a
// header or a checksum does not match), which a run that goes on does
// not take.
func (w *walker) skipsRest(f *ir.If) bool {
	if len(f.Then) == 0 {
		return false
	}
	switch s := f.Then[len(f.Then)-1].(type) {
	case *ir.Jump:
		return (s.Kind == "continue" || s.Kind == "cycle") && w.weighed(f.Cond)
	case *ir.Return:
		return w.hitOdds(f.Cond) > 0
	}
	return false
}

func (w *walker) stmt(s ir.Stmt, parent *Node) {
	switch s := s.(type) {
	case *ir.Decl:
		w.decl(s, parent)
	case *ir.Assign:
		w.assign(s, parent)
	case *ir.Call:
		w.call(s, parent)
	case *ir.Loop:
		w.loop(s, parent)
	case *ir.If:
		w.branch(s.Pos, "if", s.Cond, []ir.Block{s.Then, s.Else}, []string{"then", "else"}, parent)
	case *ir.Switch:
		labels := make([]string, len(s.Cases))
		for i := range labels {
			labels[i] = fmt.Sprintf("case %d", i+1)
		}
		parent.Work += ops(s.Tag, w.fortran())
		w.branch(s.Pos, "switch", nil, s.Cases, labels, parent)
	case *ir.FortranIO:
		w.fortranIO(s, parent)
	case *ir.Return:
		parent.Work += ops(s.Value, w.fortran())
	}
}

// table returns v, or a constant copy of it when v is a one-dimensional
// array initialised with a list that the function never changes
// ("size_t len[4] = {...}" read as len[k]): its elements are then known
// wherever it is read.
func (w *walker) table(v *ir.Var) *ir.Var {
	if _, isList := v.Init.(ir.List); !isList || v.Const || len(v.Type.Dims) != 1 || v.Type.Pointer > 0 {
		return v
	}
	changed := false
	visitStmts(w.d.f.Body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok && d.Var == v {
			return
		}
		out := map[string]bool{}
		w.changes(s, out)
		changed = changed || out[v.Name]
	})
	if changed {
		return v
	}
	c := *v
	c.Const = true
	return &c
}

func (w *walker) isParam(name string) bool {
	for _, p := range w.d.f.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// decl declares a local: its size counts towards the function's stack; a
// file stream constructed with a name opens it.
func (w *walker) decl(s *ir.Decl, parent *Node) {
	v := s.Var
	if w.isParam(v.Name) {
		// A Fortran dummy argument's declaration: keep its value and the
		// extents it was passed.
		s, shaped := w.env.shapes.m[v.Name]
		w.env.Declare(v)
		if shaped {
			w.env.setShape(v.Name, s)
		}
		return
	}
	w.env.Declare(w.table(v))
	if n, ok := w.env.typeSize(v.Type); ok {
		w.fn.Stack += float64(n)
	}
	if mode, ok := iosem.StreamType(v.Type.Name); ok && v.Type.Pointer == 0 {
		w.streamDecl(s, mode, parent)
		return
	}
	if iosem.IsStringStream(v.Type.Name) && v.Type.Pointer == 0 {
		w.env.Set(v.Name, stringStream)
	}
	if v.Init != nil {
		parent.Work += ops(v.Init, w.fortran()) + 1 + w.accessCost(v.Init)
		w.env.Set(v.Name, Eval(v.Init, w.env))
		init := v.Init
		if c, ok := init.(ir.Cast); ok {
			init = c.X
		}
		if c, ok := init.(ir.CallExpr); ok {
			// double *a = malloc(n * sizeof *a): the call ran before the
			// declaration; a now has its elements.
			w.allocation(&ir.Call{Callee: c.Callee, Args: c.Args, Result: v.Name})
		}
		w.zeroMembers(v)
	}
	if isContainer(v.Type.Name) && v.Type.Pointer == 0 && len(v.Type.Dims) == 0 {
		w.containerDecl(v)
	}
	w.returnedShape(v.Name, v.Init)
	if v.Type.Pointer > 0 && len(v.Type.Dims) == 0 {
		w.rowShape(v.Name, v.Init)
	}
}

// rowShape gives the pointer name, initialised with a row of an array of
// known extents ("const int *idx = clist[c][d]" with clist[3][5][32]),
// the extents of that row.
func (w *walker) rowShape(name string, init ir.Expr) {
	ix, ok := uncast(init).(ir.Index)
	if !ok {
		return
	}
	r, ok := ix.X.(ir.Ref)
	if !ok {
		return
	}
	if s, ok := w.env.shapeOf(r.Name); ok && len(s.dims) > len(ix.Idx) {
		w.env.setShape(name, shape{dims: slices.Clone(s.dims[len(ix.Idx):]), origin: s.origin})
	}
}

// returnedShape gives name, initialised or assigned with the result of a
// call of a program function, the extents of the container that call
// returned.
func (w *walker) returnedShape(name string, init ir.Expr) {
	if c, ok := init.(ir.Cast); ok {
		init = c.X
	}
	if c, ok := init.(ir.CallExpr); ok {
		if s, ok := w.returned[c.Callee]; ok {
			w.env.setShape(name, s)
		}
	}
}

// assign counts the operations of an assignment (times the elements of a
// whole Fortran array, but for the reductions in it, computed once) and
// propagates the assigned value.
func (w *walker) assign(s *ir.Assign, parent *Node) {
	if w.streamStatement(s, parent) {
		return
	}
	work := ops(s.Value, w.fortran()) + 1
	if s.Op != "=" {
		work++
	}
	if s.Partial && s.Target != "" {
		// counts[word]++, agg[type].n = v: a lookup in the container.
		if c, ok := memberCost(w.typeName(s.Target), "operator[]"); ok {
			work += c
		}
	}
	if w.fortran() && !s.Partial {
		if v := w.env.Var(s.Target); v != nil && (len(v.Type.Dims) > 0 || w.env.elems.m[s.Target] > 0) {
			if n, ok := w.env.varElems(s.Target); ok && n > 0 {
				work *= float64(n)
			}
		}
	} else if w.fortran() {
		work *= float64(w.sectionElems(s.Value))
	}
	parent.Work += work + w.accessCost(s.Value)
	if s.Partial {
		w.observeField(s)
		w.handleElement(s)
		w.memberAssign(s)
		return
	}
	w.stepTally(s)
	if v := Eval(storedValue(s, ir.Ref{Name: s.Target}), w.env); w.keyDepth > 0 && v.Known() {
		w.setSetting(s.Target, v)
	} else {
		w.env.Set(s.Target, v)
		w.env.killMembers(s.Target)
		delete(w.settled, s.Target)
	}
	w.containerAssign(s)
	if s.Op == "=" {
		w.returnedShape(s.Target, s.Value)
	}
}

// handleElement records a handle stored into an element of an array
// (out[i] = fopen(path, "w")) as the value of the whole array: an
// element read later (fputs(line, out[k])) is a file of the array, and
// the handle opened last stands for them all (the same interface, mode
// and buffering, set up in the same loop), each holding its share of
// what is written through any (see elementFile).
func (w *walker) handleElement(s *ir.Assign) {
	x, ok := s.Element.(ir.Index)
	if !ok || s.Op != "=" || s.Field != "" {
		return
	}
	if r, ok := x.X.(ir.Ref); !ok || r.Name != s.Target {
		return
	}
	if v := Eval(s.Value, w.env); v.Kind == HandleVal {
		w.env.Set(s.Target, v)
		w.elementFile(x, v) // past the loop that opens the files
	}
}

// call dispatches a call: through a pointer, a stream member or operator,
// a program function, a library I/O routine, or an unknown routine.
func (w *walker) call(c *ir.Call, parent *Node) {
	w.touchCounters(c)
	if c.Indirect || c.Callee == "" {
		if d, direct, ok := w.pointee(c); ok {
			w.userCall(d, direct, parent)
			return
		}
		w.unknownCall(c, parent)
		return
	}
	if w.streamCall(c, parent) {
		return
	}
	if c.Callee == "begin" || c.Callee == "cbegin" {
		w.begun, _ = w.containerQuery(&ir.Call{Callee: "size", Receiver: c.Receiver})
	}
	if w.containerCall(c, parent) || w.memberContainerCall(c, parent) {
		return
	}
	if d, ok := w.b.resolveCall(c, w.d, w.env); ok {
		w.userCall(d, c, parent)
		return
	}
	if s, ok := iosem.Lookup(c.Callee); ok {
		w.libraryCall(c, s, parent)
		return
	}
	w.unknownCall(c, parent)
}

// pointee resolves a call through a function pointer whose value the
// context knows, as when a driver gets the routine to apply as an
// argument ("stream(index_chunk)" calling "fn(buf, n)"): it returns the
// program function and the call written as a direct one.
func (w *walker) pointee(c *ir.Call) (funcDef, *ir.Call, bool) {
	if c.Via == "" {
		return funcDef{}, nil, false
	}
	v := Eval(ir.Ref{Name: c.Via}, w.env)
	if v.Kind != Sym {
		return funcDef{}, nil, false
	}
	direct := *c
	direct.Callee, direct.Indirect, direct.Via = v.S, false, ""
	d, ok := w.b.resolveCall(&direct, w.d, w.env)
	if !ok {
		return funcDef{}, nil, false
	}
	return d, &direct, true
}

// userCall links a call to the callee's instance for the calling context
// (the argument values, the extents of array arguments, the host
// variables of an internal procedure), unless that would recurse or go
// deeper than Options.MaxDepth. Then it forgets what the callee may have
// changed.
func (w *walker) userCall(d funcDef, c *ir.Call, parent *Node) {
	n := &Node{Kind: CallNode, Name: c.Callee, Pos: c.Pos, Taken: -1, Work: CallOps}
	for _, a := range c.Args {
		n.Work += ops(a, w.fortran())
	}
	switch {
	case w.b.active[d.f]:
		n.Cut = "recursion"
	case w.b.depth >= w.b.opts.MaxDepth:
		n.Cut = "depth"
	default:
		n.Target = w.b.instance(d, w.callContext(d, c))
	}
	parent.Children = append(parent.Children, n)
	eff := w.b.effectsOf(d)
	kept := w.keptMembers(c)
	w.killEffects(d, eff, c)
	var v Value
	if n.Target != nil {
		v = n.Target.Result
		w.adoptFile(v, n.Target)
		w.calleeWrote(n.Target)
		w.outArgs(c, n.Target, eff)
		w.calleeChanged(c, n.Target, kept)
	}
	w.calleeGlobals(d, n.Target)
	if n.Target != nil && n.Target.resultShape.known() {
		if w.returned == nil {
			w.returned = map[string]shape{}
		}
		s := n.Target.resultShape
		w.returned[c.Callee] = shape{dims: s.dims, origin: max(s.origin, Passed)}
	} else {
		delete(w.returned, c.Callee)
	}
	w.setResult(c, v)
}

// adoptFile makes the caller the opener of a file the callee opened and
// hands back (FILE *f = open_file(name, "wb"); call open_log(u)): what
// the caller writes into it counts from the call on, as after an open of
// its own, so that a file a function opens anew on each of its calls
// holds what one call writes.
func (w *walker) adoptFile(v Value, callee *Node) {
	if v.Kind != HandleVal || v.H == nil {
		return
	}
	if f := v.H.File(); f.openedIn == callee && f.spread == 0 {
		f.openedIn, f.openScale = w.fn, len(w.scale)
	}
}

// outArgs gives the variables a Fortran call passes to dummy arguments
// the callee changes the values the callee leaves in them (call
// read_params(path, nsteps) sets nsteps, call open_log(u) the unit it
// opens), and the arrays it allocates the extents it allocates them with
// (call load(path, xyz) with xyz allocatable, intent(out)); in C and
// C++, the character buffers a call passes to parameters the callee
// writes a string into (region_path(path, sizeof path, r)) that string.
func (w *walker) outArgs(c *ir.Call, callee *Node, eff *effects) {
	if eff == nil {
		return
	}
	for i, a := range c.Args {
		r, ok := a.(ir.Ref)
		if !ok {
			continue
		}
		if i < len(callee.outShapes) && callee.outShapes[i].known() && w.fortran() && i < len(eff.resized) && eff.resized[i] {
			s := callee.outShapes[i]
			w.env.setShape(r.Name, shape{dims: s.dims, origin: max(s.origin, Passed)})
		}
		if i >= len(callee.outs) || i >= len(eff.params) || !eff.params[i] {
			continue
		}
		if out := callee.outs[i]; !out.Known() && out.Kind != Str && out.Kind != HandleVal {
			continue
		}
		if v := w.env.Var(r.Name); v != nil && !v.Const {
			w.env.Set(r.Name, callee.outs[i])
			w.adoptFile(callee.outs[i], callee)
			w.fill(r.Name)
		}
	}
}

// fill records that the function writes a string into the variable
// name, which its caller sees when name is a parameter (see written).
func (w *walker) fill(name string) {
	if !w.isParam(name) {
		return
	}
	if w.written == nil {
		w.written = map[string]bool{}
	}
	w.written[name] = true
}

// killEffects forgets what a call c of the program function d, with
// effects eff (nil: unknown, a recursive call), may change: the variables
// passed by reference to parameters it may change, the containers and
// arrays it may resize, and the host variables it assigns.
func (w *walker) killEffects(d funcDef, eff *effects, c *ir.Call) {
	for i, a := range c.Args {
		if r, ok := a.(ir.Ref); ok && w.mayResize(eff, i, r.Name) {
			w.env.forgetShape(r.Name)
		}
	}
	w.killNames(changedArgs(c, w.d.file.Lang, d.f, eff))
	if eff == nil {
		return
	}
	for name := range eff.nonlocal {
		if v := w.env.Var(name); v == nil || !v.Const {
			w.env.Kill(name)
		}
	}
	for name := range eff.reallocated {
		w.env.forgetShape(name)
	}
}

// mayResize reports whether a call with effects eff (nil: a routine the
// program does not define) may change the extents of the variable name
// passed as its argument i: a C++ container, unless the callee is known
// not to resize it, or a Fortran array allocated at run that the callee
// allocates or deallocates (other routines cannot without an explicit
// interface, which programs seldom give library routines).
func (w *walker) mayResize(eff *effects, i int, name string) bool {
	resized := eff == nil || i >= len(eff.resized) || eff.resized[i]
	if isContainer(w.typeName(name)) {
		return resized
	}
	_, run := w.env.shapes.m[name]
	return run && w.fortran() && eff != nil && resized
}

// typeName returns the type name of the variable name, or "".
func (w *walker) typeName(name string) string {
	if v := w.env.Var(name); v != nil {
		return v.Type.Name
	}
	return ""
}

// unknownCall records a call the program does not define and the table
// does not know: its compute cost, the memory it allocates, the values it
// sets (GET_COMMAND_ARGUMENT) and its result when pure (atoi).
func (w *walker) unknownCall(c *ir.Call, parent *Node) {
	name := c.Callee
	if c.Indirect || name == "" {
		name = "(indirect)"
	}
	n := &Node{Kind: UnknownNode, Name: name, Pos: c.Pos, Indirect: c.Indirect || c.Callee == "", Taken: -1}
	n.Work = callCost(c, w.env)
	if faults, ok := freshFill(c, w.env); ok && len(w.trips) == 0 {
		// Outside loops: a container constructed on every pass reuses
		// the memory the previous one freed.
		n.Work += faults
	}
	if cost, ok := w.sortCost(c); ok {
		n.Work = cost
	}
	n.Work += w.comparatorCalls(c)
	if c.Receiver != nil {
		if cost, ok := memberCost(w.typeName(baseName(c.Receiver)), c.Callee); ok {
			n.Work = cost
		}
	}
	for _, a := range c.Args {
		n.Work += ops(a, w.fortran())
	}
	n.Space = w.allocation(c)
	parent.Children = append(parent.Children, n)
	w.killAddressed(c.Args)
	w.scanSetting(c)
	for name := range w.grown {
		if slices.ContainsFunc(c.Args, func(a ir.Expr) bool { return mentions(a, name) }) {
			w.env.forgetShape(name) // std::back_inserter(v): filled out of sight
		}
	}
	w.commandArgument(c)
	w.communicator(c)
	var v Value
	if !n.Indirect {
		// A new call: its value is not that of the previous call of the
		// same routine (a second stream constructed in the function).
		w.env.calls.set(c.Callee, Value{})
		v = Eval(ir.CallExpr{Callee: c.Callee, Args: c.Args}, w.env)
		if s, ok := w.stringCall(c); ok {
			v = s
		}
	}
	w.setResult(c, v)
}

// setResult records the value a call returned, for its Result variable
// and for the CallExpr that refers to it.
func (w *walker) setResult(c *ir.Call, v Value) {
	if c.Callee != "" {
		w.env.calls.set(c.Callee, v)
	}
	if c.Result != "" {
		w.env.Set(c.Result, v)
	}
}

// killAddressed forgets the variables a call may modify.
func (w *walker) killAddressed(args []ir.Expr) {
	names := make([]string, 0, len(args))
	for _, a := range args {
		names = append(names, addressed(a, w.d.file.Lang))
		if m := addressedMember(a, w.d.file.Lang); m != "" {
			w.b.observed[m] = Value{}
		}
	}
	w.killNames(names)
}

// communicator handles MPI_Comm_rank, whose result names the roles of
// ranks (Node.RankSplit), and MPI_Comm_size, which returns the processes
// of the run (Options.Procs) when the communicator is MPI_COMM_WORLD.
func (w *walker) communicator(c *ir.Call) {
	if len(c.Args) < 2 {
		return
	}
	r, ok := c.Args[0].(ir.Ref)
	world := ok && strings.EqualFold(r.Name, "MPI_COMM_WORLD")
	switch {
	case strings.EqualFold(c.Callee, "MPI_Comm_rank"):
		if name := memberOrName(c.Args[1]); name != "" {
			w.b.rankNames[name] = true
		}
		switch {
		case w.b.opts.Procs == 1 && world:
			w.setOut(c.Args[1], IntValue(0, Argument)) // the only process
		case w.b.opts.Procs > 1:
			// Sizes that depend on the rank are rank 0's; branches on
			// it are not decided by it (Bound), they split the roles.
			w.setOut(c.Args[1], IntValue(0, Bound))
		}
	case strings.EqualFold(c.Callee, "MPI_Comm_size") && w.b.opts.Procs > 0:
		if world {
			w.setOut(c.Args[1], IntValue(int64(w.b.opts.Procs), Argument))
		}
	}
}

// setOut gives the variable or member an output argument designates
// (&n, &d.n in C; n, d%n in Fortran) the value v.
func (w *walker) setOut(x ir.Expr, v Value) {
	if u, ok := x.(ir.Unary); ok && u.Op == "&" {
		x = u.X
	} else if !w.fortran() {
		return
	}
	switch x := x.(type) {
	case ir.Ref:
		w.env.Set(x.Name, v)
	case ir.Field:
		w.b.observed[x.Name] = v // d.nprocs, cfg%nprocs
	}
}

// memberOrName returns the variable a reference names, or the member a
// member access names, through & and *: "rank" for rank, &rank, d->rank
// and &d->rank; "" for other expressions.
func memberOrName(x ir.Expr) string {
	switch x := x.(type) {
	case ir.Ref:
		return x.Name
	case ir.Field:
		return x.Name
	case ir.Unary:
		if x.Op == "&" || x.Op == "*" {
			return memberOrName(x.X)
		}
	}
	return ""
}

// observeField records the number or handle a store into a member puts
// there, for the members analyseFields cannot give one value but that
// are only ever stored into with "=": later reads of the member in the
// walk (a size set by an init function called with a constant, lat->n =
// n; a file a structure returned by an open function holds) see it,
// until a store of another value or a call that may change it makes it
// unknown for good. A member also updated somewhere (o->len++) is left unknown:
// the walk visits a loop's body once, and would read it as the value it
// had before the loop.
func (w *walker) observeField(s *ir.Assign) {
	if s.Field == "" || !w.b.plainFields[s.Field] {
		return
	}
	var v Value
	if s.Op == "=" {
		if x := Eval(s.Value, w.env); x.Kind == Int || x.Kind == Float || x.Kind == HandleVal {
			v = x
		}
	}
	if w.keyDepth > 0 && v.Known() {
		w.b.observed[s.Field] = v // the value parsed from the program's text
		return
	}
	if prev, seen := w.b.observed[s.Field]; seen && !prev.equal(v) {
		v = Value{}
	}
	w.b.observed[s.Field] = v
}

// killNames forgets the variables a call may modify, but for handles and
// constants.
func (w *walker) killNames(names []string) {
	for _, name := range names {
		if name == "" {
			continue
		}
		if v, ok := w.env.vals.m[name]; ok && (v.Kind == HandleVal || v == stringStream) {
			continue // a handle passed by reference (Fortran unit, MPI_File, a string stream) stays the same
		}
		if v := w.env.Var(name); v != nil && v.Const {
			continue // a constant (a PARAMETER passed by reference) cannot change
		}
		w.env.Kill(name)
	}
}

// commandArgument handles Fortran's GET_COMMAND_ARGUMENT(n, value) and
// GETARG(n, value).
func (w *walker) commandArgument(c *ir.Call) {
	switch strings.ToLower(c.Callee) {
	case "get_command_argument", "getarg":
	default:
		return
	}
	if len(c.Args) < 2 || !w.env.shared.hasArgs {
		return
	}
	i, ok := Eval(c.Args[0], w.env).Int()
	r, isRef := c.Args[1].(ir.Ref)
	if !ok || !isRef || i < 1 || int(i) > len(w.env.shared.args) {
		return
	}
	w.env.Set(r.Name, StrValue(w.env.shared.args[i-1], Argument))
}

// allocation returns the bytes a heap allocation requests (malloc, calloc,
// realloc, aligned_alloc, Fortran ALLOCATE) and records the element count
// of the allocated array, so later transfers of the whole array know its
// size.
func (w *walker) allocation(c *ir.Call) float64 {
	arg := func(i int) Value {
		if i < len(c.Args) {
			return Eval(c.Args[i], w.env)
		}
		return Value{}
	}
	var bytes int64
	var ok bool
	switch strings.ToLower(c.Callee) {
	case "malloc":
		bytes, ok = arg(0).Int()
	case "realloc", "aligned_alloc":
		bytes, ok = arg(1).Int()
	case "calloc":
		n, nok := arg(0).Int()
		s, sok := arg(1).Int()
		bytes, ok = n*s, nok && sok
	case "allocate":
		return w.fortranAllocate(c.Args)
	}
	if !ok || bytes <= 0 {
		return 0
	}
	if v := w.env.Var(c.Result); v != nil {
		if s, ok := w.env.pointeeSize(v.Type); ok && s > 0 {
			w.env.elems.set(c.Result, bytes/s)
		}
	}
	return float64(bytes)
}

// fortranAllocate handles ALLOCATE(a(n, m), b(k)).
func (w *walker) fortranAllocate(args []ir.Expr) float64 {
	var total float64
	for _, a := range args {
		ix, ok := a.(ir.Index)
		if !ok {
			continue
		}
		r, ok := ix.X.(ir.Ref)
		if !ok {
			continue
		}
		sh := shape{dims: make([]int64, len(ix.Idx))}
		ok = true
		for k, d := range ix.Idx {
			x := w.env.extentValue(d)
			e, known := x.Int()
			if !known || e < 0 {
				ok = false
				break
			}
			sh.dims[k], sh.origin = e, max(sh.origin, x.Origin)
		}
		if !ok {
			w.env.forgetShape(r.Name)
			continue
		}
		n := sh.count()
		w.env.setShape(r.Name, sh)
		if v := w.env.Var(r.Name); v != nil {
			t := v.Type
			t.Pointer = 0
			if s, ok := baseSize(t); ok {
				total += float64(n * s)
			}
		}
	}
	return total
}

// branch builds a branch node with one alternative node per block. The
// environment after it keeps what all alternatives agree on, or what the
// taken alternative left when the condition is a compile-time constant.
func (w *walker) branch(pos ir.Pos, name string, cond ir.Expr, alts []ir.Block, labels []string, parent *Node) {
	n := &Node{Kind: BranchNode, Name: name, Pos: pos, EndLine: lastLine(alts), Taken: -1}
	if cond != nil {
		parent.Work += ops(cond, w.fortran()) + w.accessCost(cond)
		// A condition on a Bound value (a chunk size on all but the last
		// pass, the known side of a choice) is not decided by it.
		v := Eval(cond, w.env)
		if t, ok := truth(v); ok && v.Origin != Bound {
			n.Taken = 1
			if t {
				n.Taken = 0
			}
		} else if i, ok := w.errorPath(alts); ok {
			n.Taken = 1 - i // the program goes on through the other side
		} else if i := diagnosticSide(alts); i >= 0 {
			n.Taken = 1 - i // the report of a failed check
		} else {
			n.Odds = w.branchOdds(cond)
			if i, ok := w.leavesLoop(alts); ok && n.Odds == 0 {
				n.Odds = w.leaveOdds(i)
			}
		}
		n.RankSplit = ir.Any(cond, func(x ir.Expr) bool {
			name := memberOrName(x)
			return name != "" && w.b.rankNames[name]
		})
		if n.Taken < 0 && n.Odds == 0 && len(alts) == 2 && !n.RankSplit {
			n.Odds = UnknownOdds
		}
	}
	base := w.env
	envs := make([]*Env, len(alts))
	for i, blk := range alts {
		a := &Node{Kind: AltNode, Name: labels[i], Pos: pos, EndLine: lastLine([]ir.Block{blk}), Taken: -1}
		if len(blk) > 0 {
			a.Pos = blk[0].Position()
		}
		w.env = base.Clone()
		keyed := false
		if i == 0 && cond != nil {
			w.impliedValues(cond)
			keyed = w.keyed(cond)
		}
		if keyed {
			w.keyDepth++
		}
		w.scale = append(w.scale, sideOdds(n, i, len(alts)))
		w.walk(blk, a)
		w.scale = w.scale[:len(w.scale)-1]
		if keyed {
			w.keyDepth--
			w.env.setting = base.setting
		}
		envs[i] = w.env
		n.Children = append(n.Children, a)
	}
	if n.Odds == unknownBoundOdds && len(n.Children) > 0 {
		// pos == len, then read(fd, buf, CHUNK): the position runs
		// through the CHUNK bytes each refill reads.
		if b := readBytes(n.Children[0]); b > 1 {
			n.Odds = 1 / float64(b)
		}
	}
	if n.Taken >= 0 {
		w.env = envs[n.Taken]
	} else {
		likely := 0
		for i := range envs {
			if sideOdds(n, i, len(envs)) > sideOdds(n, likely, len(envs)) {
				likely = i
			}
		}
		w.env = base
		w.env.merge(envs, likely)
		w.keepSettled(alts...)
	}
	parent.Children = append(parent.Children, n)
}

// sideOdds is the share of the executions of branch n that take its
// alternative i of k: 1 or 0 for a known condition, the odds of a
// two-way branch, 1/k for a switch.
func sideOdds(n *Node, i, k int) float64 {
	switch {
	case n.Taken >= 0 && i == n.Taken:
		return 1
	case n.Taken >= 0:
		return 0
	case n.Odds > 0 && i == 0:
		return n.Odds
	case n.Odds > 0 && i == 1:
		return 1 - n.Odds
	}
	return 1 / float64(k)
}

// impliedValues sets, for the side of a branch where cond holds, the
// variables cond tests for equality with a known value: in "if (fill ==
// CHUNK) write(fd, buf, fill * RECSZ)", fill is CHUNK. Conjunctions give
// each of their tests.
func (w *walker) impliedValues(cond ir.Expr) {
	c, ok := cond.(ir.Binary)
	if !ok {
		return
	}
	switch c.Op {
	case "&&":
		w.impliedValues(c.L)
		w.impliedValues(c.R)
	case "==":
		for _, side := range [][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
			r, ok := side[0].(ir.Ref)
			if !ok || w.env.Var(r.Name) == nil {
				continue
			}
			if v := Eval(side[1], w.env); v.Known() && Eval(r, w.env).Kind == Unknown {
				w.env.Set(r.Name, v)
			}
		}
	}
}

// lastLine returns the line of the last statement of the blocks.
func lastLine(blks []ir.Block) int {
	line := 0
	for _, b := range blks {
		visitStmts(b, func(s ir.Stmt) { line = max(line, s.Position().Line) })
	}
	return line
}

// errorPath returns which of the two alternatives of an if ends the
// program (exit, abort, a throw, Fortran's STOP and ERROR STOP, a call
// that never returns) when the other does not: the error path of a check, which a run that goes on
// never takes.
func (w *walker) errorPath(alts []ir.Block) (int, bool) {
	return oneSide(alts, w.ends)
}

// diagnosticSide returns which of the two alternatives of an if only
// reports a problem on the standard error (fprintf(stderr, ...), std::cerr
// << ..., perror) and counts it, when the other does not: the report of a
// failed check, which a run that goes on does not take. It returns -1
// when there is no such side.
func diagnosticSide(alts []ir.Block) int {
	if len(alts) != 2 {
		return -1
	}
	a, b := onlyDiagnoses(alts[0]), onlyDiagnoses(alts[1])
	switch {
	case a && !b:
		return 0
	case b && !a:
		return 1
	}
	return -1
}

// onlyDiagnoses reports whether blk writes to the standard error and
// otherwise only steps counters or goes on with the next iteration.
func onlyDiagnoses(blk ir.Block) bool {
	reports := false
	for _, st := range blk {
		switch st := st.(type) {
		case *ir.Assign:
			if st.Op == "<<" && (st.Target == "std::cerr" || st.Target == "cerr") {
				reports = true
				continue
			}
			if st.Op != "+=" && st.Op != "-=" {
				return false
			}
		case *ir.Call:
			if st.Callee == "perror" || slices.ContainsFunc(st.Args, func(a ir.Expr) bool { return refName(a) == "stderr" }) {
				reports = true
				continue
			}
			return false
		case *ir.Jump:
			if st.Kind != "continue" && st.Kind != "cycle" {
				return false // a side leaving the loop has its own odds (leaveOdds)
			}
		default:
			return false
		}
	}
	return reports
}

// leavesLoop returns which of the two alternatives of an if leaves the
// enclosing loop (break, Fortran's EXIT, return) when the other does
// not: a side taken at most once per run of the loop, such as the report
// of a mismatch in a verification loop or the end of input.
func (w *walker) leavesLoop(alts []ir.Block) (int, bool) {
	return oneSide(alts, func(st ir.Stmt) bool {
		switch st := st.(type) {
		case *ir.Return:
			return true
		case *ir.Jump:
			return st.Kind == "break" || st.Kind == "exit" && w.fortran()
		}
		return false
	})
}

// oneSide returns which of two alternatives has a statement of its own
// (not in a nested block) satisfying ends, when the other has none.
func oneSide(alts []ir.Block, ends func(ir.Stmt) bool) (int, bool) {
	if len(alts) != 2 {
		return 0, false
	}
	a, b := slices.ContainsFunc(alts[0], ends), slices.ContainsFunc(alts[1], ends)
	switch {
	case a && !b:
		return 0, true
	case b && !a:
		return 1, true
	}
	return 0, false
}

// branchOdds returns the share of executions in which cond holds when the
// analysis can tell, 0 otherwise: a divisibility test (divisibilityOdds),
// a counter reaching a bound (counterOdds), a conjunction with one of
// them, which holds at most as often, or a disjunction of two of them,
// which holds at most as often as both together.
func (w *walker) branchOdds(cond ir.Expr) float64 {
	if c, ok := cond.(ir.Binary); ok && c.Op == "&&" {
		if o := w.windowOdds(c); o > 0 {
			return o
		}
		l, r := w.branchOdds(c.L), w.branchOdds(c.R)
		switch {
		case l > 0 && r > 0:
			return min(l, r)
		case l > 0:
			return l
		}
		return r
	}
	if c, ok := cond.(ir.Binary); ok && c.Op == "||" {
		// full || tick % K == 0: either, at most the sum of both. A
		// side the analysis cannot weigh is left out, as an unweighed
		// side of && is: "t < f.t0 || urand(s) > 0.45" holds when the
		// draw does.
		return min(w.branchOdds(c.L)+w.branchOdds(c.R), 1)
	}
	if o := divisibilityOdds(cond, w.env); o > 0 {
		return o
	}
	if o := w.rangeOdds(cond); o > 0 {
		return o
	}
	if o := w.exitOdds(cond); o > 0 {
		return o
	}
	if o := w.hitOdds(cond); o > 0 {
		return o
	}
	if o := w.selectionOdds(cond); o > 0 {
		return o
	}
	if o := w.drawOdds(cond); o > 0 {
		return o
	}
	if o := w.charOdds(cond); o > 0 {
		return o
	}
	if o, ok := w.fillOnceOdds(cond); ok {
		return o
	}
	if o, ok := w.clockEventOdds(cond); ok {
		return o
	}
	return counterOdds(cond, w.env, w.d.f.Body, w.b.steppedFields)
}

// fillOnceOdds returns the share of executions in which cond holds when
// it is the test of a statement of the innermost loop's body that keeps
// a local counter below a known bound, "n < K" (either way round), and
// the function only ever counts it up from before the loop, never back:
// the first K/step passes of the loops inside the counter's scope find
// room ("if (ntop < TOP) top[ntop++] = k; else ..." fills a table once,
// then the other side runs). It reports false for other tests.
func (w *walker) fillOnceOdds(cond ir.Expr) (float64, bool) {
	c, ok := cond.(ir.Binary)
	if !ok || len(w.trips) == 0 {
		return 0, false
	}
	x, k, op := c.L, c.R, c.Op
	if _, known := Eval(k, w.env).Int(); !known {
		x, k, op = c.R, c.L, mirrored[op]
	}
	bound, known := Eval(k, w.env).Int()
	r, isRef := x.(ir.Ref)
	if !known || !isRef || op != "<" && op != "<=" || bound < 1 {
		return 0, false
	}
	step, ok := w.countedUpOnly(r.Name)
	if w.innermostTest(cond) == nil || !ok {
		return 0, false
	}
	passes := 1.0 // of the loops inside the counter's scope
	for i := len(w.trips) - 1; i >= 0 && !declares(w.trips[i].body, r.Name); i-- {
		passes *= float64(w.trips[i].n)
	}
	if op == "<=" {
		bound++
	}
	return min(float64(bound)/float64(step)/passes, 1), true
}

// clockEventOdds returns the share of passes in which cond holds when it
// is the test of a statement of the innermost loop's body that finds the
// loop's clock past the time of the next event and then moves that time
// on by a known period ("if (t >= tnext) { write ...; tnext = tnext +
// dt_out }"): one event per period of simulated time, step/period of the
// passes, or the events of the clock's whole run over the loop's passes
// when the step is not known. It reports false for other tests.
func (w *walker) clockEventOdds(cond ir.Expr) (float64, bool) {
	if len(w.trips) == 0 || w.trips[len(w.trips)-1].clock == nil {
		return 0, false
	}
	lt := w.trips[len(w.trips)-1]
	c, ok := cond.(ir.Binary)
	if !ok {
		return 0, false
	}
	t, next, op := w.untolerated(c.L), w.untolerated(c.R), c.Op
	if op == "<=" || op == "<" {
		t, next, op = next, t, mirrored[op]
	}
	if op != ">=" && op != ">" || !isRef(t, lt.clock.name) {
		return 0, false
	}
	name := refName(next)
	var period float64
	if s := w.innermostTest(cond); s != nil && name != "" {
		for _, x := range s.Then {
			if a, ok := x.(*ir.Assign); ok && a.Target == name {
				if p, ok := w.stepOf(a, name).Float(); ok && p > 0 {
					period = p
				}
			}
		}
	}
	switch {
	case period <= 0:
		return 0, false
	case lt.clock.step > 0:
		return min(lt.clock.step/period, 1), true
	}
	events := (lt.clock.end - lt.clock.start) / period
	return min(events/float64(max(lt.n, 1)), 1), true
}

// untolerated returns x without a constant tolerance added or taken off
// ("tnext - 1.0e-9"), as a Ref when it is one.
func (w *walker) untolerated(x ir.Expr) ir.Expr {
	if b, ok := x.(ir.Binary); ok && (b.Op == "-" || b.Op == "+") {
		if _, known := Eval(b.R, w.env).Float(); known {
			return b.L
		}
	}
	return x
}

// countedUpOnly reports whether the function declares the local scalar
// name and changes it only by steps up of a known size ("n++", "n +=
// 2"), with that size; its address never taken.
func (w *walker) countedUpOnly(name string) (int64, bool) {
	declared, ok := false, true
	step := int64(0)
	visitStmts(w.d.f.Body, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Decl:
			if st.Var.Name == name {
				declared = declared || len(st.Var.Type.Dims) == 0 && st.Var.Type.Pointer == 0
			}
		case *ir.Assign:
			if st.Target != name || st.Partial {
				return
			}
			v, known := Eval(st.Value, w.env).Int()
			if st.Op != "+=" || !known || v <= 0 {
				ok = false
				return
			}
			step = max(step, v)
		case *ir.Call:
			for _, a := range st.Args {
				if addressed(a, w.d.file.Lang) == name {
					ok = false
				}
			}
		}
	})
	return step, declared && ok && step > 0
}

// declares reports whether the block declares name, at any depth.
func declares(body ir.Block, name string) bool { return declaredNames(body)[name] }

// declaredNames returns the names the declarations of body declare.
func declaredNames(body ir.Block) scopes {
	out := scopes{}
	visitStmts(body, func(st ir.Stmt) {
		if d, ok := st.(*ir.Decl); ok {
			out[d.Var.Name] = true
		}
	})
	return out
}

// CacheHitOdds is the share of the lookups of a cache the program keeps
// that find their key: all but one in DefaultTrip.
const CacheHitOdds = 1 - 1.0/DefaultTrip

// hitOdds returns CacheHitOdds for the lookup of a cache the function
// keeps: a member compared with a parameter, "if (cache[slot].id ==
// id)", where the function also stores that parameter into a member of
// that name (cache[victim].id = id), the key of what it loads on a miss.
// It returns 0 for other conditions, and inside a loop over the slots
// (see selectionOdds).
func (w *walker) hitOdds(cond ir.Expr) float64 {
	c, ok := cond.(ir.Binary)
	if !ok || c.Op != "==" {
		return 0
	}
	for _, side := range [][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
		f, isField := side[0].(ir.Field)
		p, isRef := side[1].(ir.Ref)
		if !isField || !isRef || !w.isParam(p.Name) || slices.ContainsFunc(w.trips, func(t loopTrip) bool { return t.v != "" && mentions(f, t.v) }) {
			continue
		}
		stored := false
		visitStmts(w.d.f.Body, func(s ir.Stmt) {
			if a, ok := s.(*ir.Assign); ok && a.Field == f.Name && a.Op == "=" && mentions(a.Value, p.Name) {
				stored = true
			}
		})
		if stored {
			return CacheHitOdds
		}
	}
	return 0
}

// selectionOdds returns the share of the iterations of the innermost
// counted loop in which a record it visits matches a key the loop does
// not change: "if (idx(itr)%cdp /= icmp) cycle", "if (rec[i].id == id)".
// A key selects a group of records, between one and all of them: the
// geometric middle, sqrt(trip) of the trip records, for "==", the rest
// for "!=". It returns 0 for other conditions, among them the
// comparisons of two elements of the iteration (a verification).
func (w *walker) selectionOdds(cond ir.Expr) float64 {
	c, ok := cond.(ir.Binary)
	if !ok || c.Op != "==" && c.Op != "!=" || len(w.trips) == 0 {
		return 0
	}
	t := w.trips[len(w.trips)-1]
	if t.v == "" || t.n < 2 {
		return 0
	}
	element := func(x ir.Expr) bool {
		return mentions(x, t.v) && ir.Any(x, func(y ir.Expr) bool { _, ok := y.(ir.Index); return ok }) && !callsIn(x)
	}
	key := func(x ir.Expr) bool {
		name := memberOrName(x)
		if name == "" || mentions(x, t.v) || callsIn(x) {
			return false
		}
		v := w.env.Var(name)
		return v == nil || !v.Const
	}
	if !(element(c.L) && key(c.R) || element(c.R) && key(c.L)) {
		return 0
	}
	match := 1 / math.Sqrt(float64(t.n))
	if c.Op == "!=" {
		return 1 - match
	}
	return match
}

// rangeOdds returns the share of executions in which cond holds when it
// compares the variable of a counted loop around, with known bounds, to a
// value the loop does not change ("if (i < nkeep)", "if (p <= 40)",
// "if (step == nsteps)"): the share of the variable's values for which it
// holds. It returns 0 for other conditions, and for one that never holds.
func (w *walker) rangeOdds(cond ir.Expr) float64 {
	c, ok := cond.(ir.Binary)
	if !ok {
		return 0
	}
	for j, side := range [][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
		v, isRef := side[0].(ir.Ref)
		if !isRef {
			continue
		}
		i := lastIndex(w.trips, func(t loopTrip) bool { return t.v == v.Name }) // the innermost
		if i < 0 {
			continue
		}
		if w.trips[i].values.n < 1 || mentions(side[1], v.Name) || w.assignedIn(w.trips[i].body)[v.Name] {
			return 0
		}
		k, known := Eval(side[1], w.env).Int()
		if !known {
			return 0
		}
		op := c.Op
		if j == 1 && op != "==" && op != "!=" {
			op = mirrored[op]
		}
		t := w.trips[i].values
		return float64(t.count(op, k)) / float64(t.n)
	}
	return 0
}

// charOdds returns the share of the iterations of the innermost loop in
// which a character it scans (a variable the loop assigns, or an element
// its variable indexes) equals a character literal ("if (c == '>')",
// "if (line[i] == ',')"): once per line for '\n' (the records over the
// bytes of the file the loop reads to its end, or once in
// iosem.LineWidth), once per field of iosem.StrWidth for another
// character; the rest for "!=". It returns 0 for other conditions.
func (w *walker) charOdds(cond ir.Expr) float64 {
	c, ok := cond.(ir.Binary)
	if !ok || c.Op != "==" && c.Op != "!=" || len(w.trips) == 0 {
		return 0
	}
	t := w.trips[len(w.trips)-1]
	scanned := func(x ir.Expr) bool {
		if _, known := Eval(x, w.env).Int(); known {
			return false
		}
		if t.v != "" && mentions(x, t.v) {
			return true
		}
		name := refName(x)
		return name != "" && w.assignedIn(t.body)[name]
	}
	for _, side := range [][2]ir.Expr{{c.L, c.R}, {c.R, c.L}} {
		ch, isChar := side[1].(ir.Int)
		if !isChar || !ch.Char || ch.V == 0 || !scanned(side[0]) {
			continue
		}
		match := 1.0 / iosem.StrWidth
		if ch.V == '\n' {
			match = 1.0 / iosem.LineWidth
			if t.eof != nil {
				if e, ok := t.eof.contents(); ok && e.records >= 1 {
					match = min(e.records/e.bytes, 1)
				}
			}
		}
		if c.Op == "!=" {
			return 1 - match
		}
		return match
	}
	return 0
}

// exitOdds returns the share of executions in which cond holds when the
// innermost loop leaves on the same test ("if (dmax < tol) exit" after
// "if (mod(it, K) == 0 .or. dmax < tol)"): once per run of the loop (or
// all but once when the loop leaves when it fails). It returns 0
// otherwise.
func (w *walker) exitOdds(cond ir.Expr) float64 {
	if s := w.innermostTest(cond); s != nil {
		if i, ok := w.leavesLoop([]ir.Block{s.Then, s.Else}); ok {
			return w.leaveOdds(i)
		}
	}
	return 0
}

// innermostTest returns the if statement of the innermost loop's body,
// at its top level, that tests cond, or nil.
func (w *walker) innermostTest(cond ir.Expr) *ir.If {
	if len(w.trips) == 0 {
		return nil
	}
	for _, st := range w.trips[len(w.trips)-1].body {
		if s, ok := st.(*ir.If); ok && reflect.DeepEqual(s.Cond, cond) {
			return s
		}
	}
	return nil
}

// leaveOdds returns the share of executions of the innermost loop's body
// that take side i of a test leaving the loop on that side: once per run
// of the loop (the other side all the other times). It returns 0 outside
// a loop of several iterations.
func (w *walker) leaveOdds(i int) float64 {
	if len(w.trips) == 0 || w.trips[len(w.trips)-1].n <= 1 {
		return 0
	}
	once := 1 / float64(w.trips[len(w.trips)-1].n)
	return [2]float64{once, 1 - once}[i]
}

// counterOdds returns the share of executions in which cond holds when
// it compares a counter with a bound ("x == K", "x >= K", "x > K", either
// way round, "x + n > K" for a buffer about to overflow, or "K - x < n"
// for the room left in it) and the
// function whose body is given counts x up ("x++", "++o->len", "x += n",
// "o->len += n"), or x is a member of the stepped ones, counted up in
// other functions: a buffer flushed when full or refilled when consumed,
// a batch committed every K records, a last iteration. The negations
// ("x < K", "x != K", "K > x": room left in the buffer) hold all the
// other times. It returns 0 otherwise (see counterReaching).
func counterOdds(cond ir.Expr, env *Env, body ir.Block, stepped map[string]bool) float64 {
	c, ok := cond.(ir.Binary)
	if !ok {
		return 0
	}
	if d, ok := c.L.(ir.Binary); ok && d.Op == "-" && (c.Op == "<" || c.Op == "<=") {
		// CAP - len < LINE, the room left too small: len > CAP - LINE.
		c = ir.Binary{Op: ">", L: d.R, R: ir.Binary{Op: "-", L: d.L, R: c.R}}
	}
	mirror := map[string]string{"==": "==", "<=": ">=", "<": ">"}
	if odds := counterReaching(c.L, c.R, c.Op, env, body, stepped); odds > 0 {
		return odds
	}
	if odds := counterReaching(c.R, c.L, mirror[c.Op], env, body, stepped); odds > 0 {
		return odds
	}
	// "x < K", "x != K", "K > x": the counter has not reached its bound,
	// all the other times.
	negation := map[string]string{"<": ">=", "<=": ">", "!=": "=="}
	if odds := counterReaching(c.L, c.R, negation[c.Op], env, body, stepped); odds > 0 {
		return 1 - odds
	}
	if odds := counterReaching(c.R, c.L, negation[mirrored[c.Op]], env, body, stepped); odds > 0 {
		return 1 - odds
	}
	return 0
}

// unknownBoundOdds is the share of executions in which a counter reaches
// a bound the analysis does not know: once in DefaultTrip, unless the
// branch refills a buffer with a read of known size (readBytes).
const unknownBoundOdds = 1.0 / DefaultTrip

// readBytes returns the bytes of the first read of known size under n
// (calls not followed), or 0.
func readBytes(n *Node) int64 {
	if n.Kind == IONode && n.IO != nil && n.IO.Sem.Op == iosem.Read && n.IO.BytesKnown {
		return n.IO.Bytes
	}
	for _, c := range n.Children {
		if b := readBytes(c); b > 0 {
			return b
		}
	}
	return 0
}

// counterReaching returns the share of executions in which the counter x
// compares with op to the bound k. A counter grows by its step, when
// known, else by DefaultIncrement, so that it reaches a known bound K
// once in K/step; "==" holds only for a known step that divides K or for
// an unknown one, which a program testing for equality makes land on K
// (it fills up to the room left). A bound the analysis does not know (a
// buffer refilled when its position reaches the length last read, pos ==
// len) is reached with unknownBoundOdds.
func counterReaching(x, k ir.Expr, op string, env *Env, body ir.Block, stepped map[string]bool) float64 {
	if op != "==" && op != ">=" && op != ">" {
		return 0
	}
	if sum, ok := x.(ir.Binary); ok && sum.Op == "+" && op != "==" {
		x = sum.L // len + n > CAP
	}
	if _, known := Eval(x, env).Int(); known {
		return 0
	}
	name, field := baseName(x), ""
	if f, ok := x.(ir.Field); ok {
		field = f.Name
	}
	if name == "" {
		return 0
	}
	step, unknownStep := int64(0), false
	visitStmts(body, func(st ir.Stmt) {
		a, ok := st.(*ir.Assign)
		if !ok || a.Op != "+=" || a.Target != name || a.Field != field && field != "" {
			return
		}
		if v, known := Eval(a.Value, env).Int(); !known {
			unknownStep = true
		} else if v > 0 {
			step = max(step, v)
		}
	})
	if step == 0 && !unknownStep {
		if field == "" || !stepped[field] {
			return 0
		}
		// Counted up in other functions: by steps the test does not
		// see, several between two of its executions.
		unknownStep = true
	}
	bound, known := Eval(k, env).Int()
	switch {
	case !known:
		return unknownBoundOdds
	case bound <= 1:
		return 0
	case op == "==" && step > 0 && bound%step != 0:
		return 0 // the counter jumps over K
	case step == 0 || op != "==" && unknownStep:
		step = max(step, DefaultIncrement)
	}
	return min(float64(step)/float64(bound), 1)
}

// divisibilityOdds returns the share of executions in which cond holds
// when it tests the divisibility of a varying value by K > 1 (known, or
// DefaultPeriod when the divisor is not known): 1/K for "x % K == 0",
// "!(x % K)" and Fortran's "MOD(x, K) == 0", 1 − 1/K for "!=" and for
// "x % K" alone; 0 for other conditions.
func divisibilityOdds(cond ir.Expr, env *Env) float64 {
	modulus := func(x ir.Expr) float64 {
		var k ir.Expr
		switch x := x.(type) {
		case ir.Binary:
			if x.Op == "%" {
				k = x.R
			}
		case ir.CallExpr:
			if strings.EqualFold(x.Callee, "mod") && len(x.Args) == 2 {
				k = x.Args[1]
			}
		}
		if k == nil {
			return 0
		}
		v, ok := Eval(k, env).Int()
		switch {
		case !ok:
			return DefaultPeriod
		case v > 1:
			return float64(v)
		}
		return 0
	}
	isZero := func(x ir.Expr) bool {
		v, ok := Eval(x, env).Int()
		return ok && v == 0
	}
	switch c := cond.(type) {
	case ir.Binary:
		if c.Op != "==" && c.Op != "!=" { // Fortran's .EQ. and /= arrive in C spelling
			break
		}
		k := 0.0
		switch {
		case isZero(c.R):
			k = modulus(c.L)
		case isZero(c.L):
			k = modulus(c.R)
		}
		if k == 0 {
			return 0
		}
		if c.Op == "==" {
			return 1 / k
		}
		return 1 - 1/k
	case ir.Unary:
		if k := modulus(c.X); c.Op == "!" && k > 0 {
			return 1 / k
		}
	default:
		if k := modulus(c); k > 0 {
			return 1 - 1/k
		}
	}
	return 0
}
