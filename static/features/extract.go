package features

import (
	"slices"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/pdg"
)

// Extract computes the blocks of a program dependency graph: one file
// block per source file holding its function blocks, which hold their loop
// and call blocks. See Block for what the parameters count.
func Extract(g *pdg.Graph, sys System) []Block {
	x := &extractor{
		sys:   sys.withDefaults(),
		funcs: map[*pdg.Node]*funcResult{},
		edges: map[*pdg.Node][]edge{},
		waits: map[*pdg.Node]float64{},
	}
	if x.balanceRoles(g) {
		x.funcs, x.edges = map[*pdg.Node]*funcResult{}, map[*pdg.Node][]edge{}
	}
	for _, f := range g.Funcs {
		x.function(f)
	}
	inv := x.invocations(g)
	blocks := make([]Block, 0, len(g.Files))
	for _, fn := range g.Files {
		blocks = append(blocks, x.file(fn, g.Funcs, inv))
	}
	return blocks
}

// extractor holds the state of one Extract.
type extractor struct {
	sys   System
	funcs map[*pdg.Node]*funcResult
	edges map[*pdg.Node][]edge // calls of program functions, per calling function
	// waits is the compute charged to blocking receives for the time
	// they wait for other ranks, per execution (see balanceRoles).
	waits map[*pdg.Node]float64
}

// funcResult is what one invocation of a function node amounts to.
type funcResult struct {
	acc   acc
	block Block
}

// edge is a call site: the callee and how often one invocation of the
// caller executes it.
type edge struct {
	callee *pdg.Node
	times  float64
	site   *pdg.Node
}

// frame is the context of a node within its function.
type frame struct {
	fn   *pdg.Node
	loop *pdg.Node // innermost loop, or nil
	mult float64   // product of the trip counts of the enclosing loops
	cond bool      // in the counted alternative of an unknown branch
	dead bool      // in an alternative that does not count for its parent
}

// function returns the accumulation and block of one invocation of the
// function node f (memoised; the graph has no call cycles, recursion
// being cut).
func (x *extractor) function(f *pdg.Node) *funcResult {
	if r := x.funcs[f]; r != nil {
		return r
	}
	r := &funcResult{}
	x.funcs[f] = r
	fr := frame{fn: f, mult: 1}
	var children []Block
	a := x.children(f.Children, fr, &children)
	own := part{p: Params{Work: f.Work, Stack: f.Stack, Space: f.Space}}
	a.add(both(own))
	r.acc = a
	r.block = Block{
		Kind: FunctionBlock, Name: f.Name, File: f.Pos.File, Line: f.Pos.Line, EndLine: f.EndLine,
		Params: a.inc.params(x.sys), Causes: finish(a.inc.causes), Children: children,
		Unreachable: !f.Reachable,
	}
	return r
}

// children accumulates a sequence of nodes for one execution, appending
// their blocks to out.
func (x *extractor) children(ns []*pdg.Node, fr frame, out *[]Block) acc {
	var a acc
	for _, n := range ns {
		a.add(x.node(n, fr, out))
	}
	return a
}

// node accumulates one execution of n.
func (x *extractor) node(n *pdg.Node, fr frame, out *[]Block) acc {
	switch n.Kind {
	case pdg.LoopNode:
		return x.loop(n, fr, out)
	case pdg.BranchNode:
		return x.branch(n, fr, out)
	case pdg.AltNode:
		a := x.children(n.Children, fr, out)
		a.add(both(part{p: Params{Work: n.Work}})) // its own statements
		return a
	case pdg.CallNode:
		return x.call(n, fr, out)
	case pdg.IONode:
		return x.io(n, fr, out)
	}
	// Unknown calls: their compute cost, waits included, and allocations.
	return both(part{p: Params{Work: n.Work + x.waits[n], Space: n.Space}})
}

func (x *extractor) loop(n *pdg.Node, fr frame, out *[]Block) acc {
	trip := float64(n.Trip)
	inner := fr
	inner.loop, inner.mult = n, fr.mult*trip
	var children []Block
	body := x.children(n.Children, inner, &children)
	body.add(both(part{p: Params{Work: n.Work}}))
	a := body.scaled(trip)
	for _, p := range []*part{&a.inc, &a.self} {
		if p.p.HasIO() {
			p.p.LoopIO += trip
		}
	}
	x.emit(out, fr, a, Block{Kind: LoopBlock, Name: n.Name, Children: children,
		Trip: n.Trip, TripSource: string(n.TripSource)}, n)
	return a
}

// branch counts the alternative a constant condition selects, or else the
// heaviest alternative, whose calls become conditional.
func (x *extractor) branch(n *pdg.Node, fr frame, out *[]Block) acc {
	alts := make([]acc, len(n.Children))
	blocks := make([][]Block, len(n.Children))
	for i, alt := range n.Children {
		inner := fr
		inner.cond = fr.cond || n.Taken < 0
		inner.mult *= oddsOf(n, i)
		alts[i] = x.node(alt, inner, &blocks[i])
	}
	pick := n.Taken
	if pick < 0 || pick >= len(alts) {
		pick = 0
		for i := range alts {
			if heavier(alts[i].inc.p, alts[pick].inc.p) {
				pick = i
			}
		}
	}
	for i := range blocks {
		if i != pick {
			if n.Taken >= 0 {
				continue // never runs: a constant condition, or a check's error path
			}
			markDead(blocks[i])
		}
		*out = append(*out, blocks[i]...)
	}
	if len(alts) == 0 {
		return acc{}
	}
	if n.Taken < 0 && n.Odds > 0 {
		var a acc
		for i, alt := range alts {
			a.add(alt.scaled(oddsOf(n, i)))
		}
		a.inc.p.Conditional = a.inc.p.Calls
		a.self.p.Conditional = a.self.p.Calls
		return a
	}
	a := alts[pick]
	if n.Taken < 0 {
		a.inc.p.Conditional = a.inc.p.Calls
		a.self.p.Conditional = a.self.p.Calls
	}
	x.reweigh(n, pick, fr.fn)
	return a
}

// oddsOf is the share of a branch's executions that take alternative i:
// from the branch's Odds when known (the first alternative by Odds, the
// second by the rest), else 1 (the alternatives are weighed by branch).
func oddsOf(n *pdg.Node, i int) float64 {
	switch {
	case n.Taken >= 0 || n.Odds <= 0:
		return 1
	case i == 0:
		return n.Odds
	case i == 1:
		return 1 - n.Odds
	}
	return 0
}

// markDead marks blocks of an alternative that does not count.
func markDead(bs []Block) {
	for i := range bs {
		bs[i].Conditional = true
		markDead(bs[i].Children)
	}
}

// reweigh zeroes the call edges recorded for the alternatives of n that
// do not count, so that invocation counts agree with the accumulation.
func (x *extractor) reweigh(n *pdg.Node, pick int, caller *pdg.Node) {
	dead := map[*pdg.Node]bool{}
	for i, alt := range n.Children {
		if i != pick {
			collectCalls(alt, dead)
		}
	}
	for j, e := range x.edges[caller] {
		if dead[e.site] {
			x.edges[caller][j].times = 0
		}
	}
}

// collectCalls gathers the call nodes under n.
func collectCalls(n *pdg.Node, into map[*pdg.Node]bool) {
	if n.Kind == pdg.CallNode {
		into[n] = true
	}
	for _, c := range n.Children {
		collectCalls(c, into)
	}
}

// call accumulates a call of a program function: the callee's inclusive
// parameters, and for the caller's own part only the call itself. The
// block is named after the callee's function block (DiskHashTable::lookup
// for t.lookup(k)).
func (x *extractor) call(n *pdg.Node, fr frame, out *[]Block) acc {
	a := acc{self: part{p: Params{Work: n.Work}}}
	a.inc = a.self.clone()
	name := n.Name
	if n.Target != nil {
		name = n.Target.Name
		r := x.function(n.Target)
		a.inc.add(r.acc.inc.clone())
		if fr.loop != nil && fr.loop.Trip > 1 {
			a.inc.causes = append(a.inc.causes, viaCauses(n.Target, fr.loop, fr.mult, x.sys)...)
		}
		x.edges[fr.fn] = append(x.edges[fr.fn], edge{callee: n.Target, times: fr.mult, site: n})
	}
	x.emit(out, fr, a, Block{Kind: CallBlock, Name: name}, n)
	return a
}

// io accumulates one execution of an I/O call.
func (x *extractor) io(n *pdg.Node, fr frame, out *[]Block) acc {
	io := n.IO
	var p part
	op := io.Sem.Op
	switch {
	case op.IsData():
		p.p.Calls = 1
		p.p.Bytes = float64(io.Bytes)
		if op == iosem.Write {
			p.p.Written = p.p.Bytes
		}
		if io.Binary {
			p.p.Binary = 1
		}
		if io.Random {
			p.p.Random = 1
		}
		if io.Small(x.sys.SmallThreshold) {
			p.p.Small = 1
		}
		if io.File != nil && io.File.Kind != pdg.StdHandle {
			p.files = map[string]float64{io.File.Key(): float64(io.Bytes)}
			if io.Extent > 0 {
				p.extents = map[string]float64{io.File.Key(): io.Extent}
			}
		}
	case op.IsFlush() || io.Flushes:
		p.p.Calls, p.p.Flushes = 1, 1
	case op.IsMetadata():
		p.p.Metadata = 1
		if op == iosem.Open && io.File != nil && io.File.Kind == pdg.FileHandle {
			p.opened = map[string]bool{io.File.Key(): true}
		}
	}
	if p.p.Calls > 0 && io.Sync() {
		p.p.Sync = 1
	}
	if c := runtimeCost(io); c != (Params{}) {
		p.p.Add(c)
	}
	if p.p.HasIO() {
		// The arguments evaluated before the call and the collector's
		// wrapper outside the time it measures are compute.
		p.p.Work += n.Work + InterceptOps
	}
	if p.p.Calls > 0 || p.p.Metadata > 0 {
		p.causes = causesOf(io, n, fr.loop, fr.mult, x.sys)
	}
	a := both(p)
	if p.p.HasIO() {
		x.emit(out, fr, a, Block{Kind: CallBlock, Name: n.Name}, n)
	}
	return a
}

// emit appends the block of node n, its parameters scaled to one
// invocation of the enclosing function.
func (x *extractor) emit(out *[]Block, fr frame, a acc, b Block, n *pdg.Node) {
	s := a.inc.scaled(fr.mult)
	if fr.cond {
		s.p.Conditional = s.p.Calls
	}
	b.File, b.Line, b.EndLine = n.Pos.File, n.Pos.Line, n.EndLine
	if b.EndLine == 0 {
		b.EndLine = b.Line
	}
	b.Params = s.params(x.sys)
	b.Causes = finish(s.causes)
	b.Conditional = fr.cond
	*out = append(*out, b)
}

// invocations returns how many times each function node runs: once for
// the entry (or for every root when there is no entry), and for the
// others the sum over their call sites of the caller's invocations times
// the site's executions.
func (x *extractor) invocations(g *pdg.Graph) map[*pdg.Node]float64 {
	roots := g.Roots
	if g.Entry != nil {
		roots = []*pdg.Node{g.Entry}
	}
	var order []*pdg.Node
	seen := map[*pdg.Node]bool{}
	var visit func(*pdg.Node)
	visit = func(n *pdg.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, e := range x.edges[n] {
			visit(e.callee)
		}
		order = append(order, n)
	}
	for _, r := range roots {
		visit(r)
	}
	slices.Reverse(order)
	inv := map[*pdg.Node]float64{}
	for _, r := range roots {
		inv[r] = 1
	}
	for _, n := range order {
		for _, e := range x.edges[n] {
			inv[e.callee] += inv[n] * e.times
		}
	}
	return inv
}

// file returns the block of a source file: its functions' own parameters
// weighed by their invocations, its global arrays, and one block per
// function.
func (x *extractor) file(fn *pdg.Node, funcs []*pdg.Node, inv map[*pdg.Node]float64) Block {
	var total part
	total.p.Space = fn.Space
	b := Block{Kind: FileBlock, Name: fn.Name, File: fn.Name, Line: 1, EndLine: fn.EndLine}
	for _, f := range fn.Children {
		b.Children = append(b.Children, x.function(f).block)
	}
	// Every context of every function of the file counts, by its
	// invocations, for the file and for the function: a function called
	// in several contexts (a helper reading a 48-byte header once and a
	// 48 KiB record per record) is their mean invocation, as a profile
	// measures it.
	runs, incs := map[string]*part{}, map[string]*part{}
	invs, contexts := map[string]float64{}, map[string]int{}
	for _, n := range funcs {
		if times := inv[n]; n.Path == fn.Name && times > 0 {
			r := x.function(n).acc
			total.add(r.self.scaled(times))
			if runs[n.Name] == nil {
				runs[n.Name], incs[n.Name] = &part{}, &part{}
			}
			runs[n.Name].add(r.self.scaled(times))
			incs[n.Name].add(r.inc.scaled(times))
			invs[n.Name] += times
			contexts[n.Name]++
		}
	}
	for i := range b.Children {
		c := &b.Children[i]
		if r := runs[c.Name]; r != nil {
			c.Run, c.Invocations = r.params(x.sys), invs[c.Name]
			if contexts[c.Name] > 1 {
				c.Params = incs[c.Name].scaled(1 / invs[c.Name]).params(x.sys)
			}
		}
	}
	b.Params = total.params(x.sys)
	b.Causes = finish(total.causes)
	return b
}
