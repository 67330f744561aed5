package pdg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// ErrNoEntry is returned when Options.Entry names a function the program
// does not define.
var ErrNoEntry = errors.New("entry function not found")

// builder holds the state of one Build.
type builder struct {
	prog   *ir.Program
	opts   Options
	graph  *Graph
	funcs  map[string][]funcDef // program functions by name (Fortran: lower case)
	shared map[*ir.File]*shared
	// Program-wide constants and globals, shared by every environment.
	progConsts map[string]ir.Expr
	globals    map[string]Value
	globalVars map[string]*ir.Var
	// types are the Fortran derived types of every file, by lower-case
	// name (the first definition of a name wins).
	types map[string][]*ir.Var
	// evolving are the globals updated from their own value somewhere in
	// the program: states and tallies, not followed through the walk.
	evolving map[string]bool
	// fields holds the structure members that keep one number (see
	// analyseFields); plainFields, those only ever stored into with "=";
	// observed, the numbers stored into those so far in the walk (see
	// walker.observeField).
	fields      map[string]Value
	plainFields map[string]bool
	observed    map[string]Value
	// structs are the data members of the C and C++ structures of every
	// file, by type name (the first definition of a name wins).
	structs map[string][]*ir.Var
	// guessed are the members given a known number by some stores and a
	// number the analysis cannot compute by others (see analyseFields).
	guessed map[string]Value
	// steppedFields are the members counted up somewhere ("o->n += k",
	// "lg->pending++").
	steppedFields map[string]bool
	// rankNames are the variables and members MPI_Comm_rank sets.
	rankNames map[string]bool
	// datasets are the HDF5 datasets created so far in the walk with a
	// compression filter or chunks, by name: opened again by name, they
	// still have them.
	datasets map[string]*Handle
	// memberSizes are the sizes of containers held in members, by member
	// name, as the walk has seen them filled so far (-1: unknown); see
	// walker.memberContainerCall.
	memberSizes map[string]int64
	// sizes are what the files the program wrote hold so far in the walk,
	// by Handle.Key.
	sizes map[string]extent
	// settings are the keys of the text the program wrote into files so
	// far in the walk (see settings).
	settings settings
	// records are the lines of the text files the program wrote, by
	// Handle.sizeKey (see records).
	records map[string]*records
	// noReturn tells, of the program functions looked at, which never
	// return (see walker.neverReturns).
	noReturn map[*ir.Func]bool
	// instances maps a function and a context key to its node.
	instances map[*ir.Func]map[string]*Node
	active    map[*ir.Func]bool // functions being analysed (on the call stack)
	// Fortran internal procedures: their hosts, and what they see of them.
	hosts      map[*ir.Func]*ir.Func
	hostScopes map[*ir.Func]*hostScope
	// What calls of a function may change in their caller.
	effectCache map[*ir.Func]*effects
	// globalUseCache holds the followed globals each function uses (see
	// globalUses).
	globalUseCache map[*ir.Func]globalUse
	effectBusy     map[*ir.Func]bool
	depth          int
	reachable      bool // analysing from the entry
	// parallelStarted is set by the first open through MPI-IO the walk
	// from the entry reaches (IO.Starts).
	parallelStarted bool

	handles int                // handles created so far (their IDs)
	units   map[string]*Handle // Fortran units by number, program-wide
	seeked  map[*Handle]string // handles whose next access follows a seek, and the seek routine
	stdout  *Handle
	stdin   *Handle
}

type funcDef struct {
	f    *ir.Func
	file *ir.File
}

// Build builds the program dependency graph of prog. It analyses the entry
// function and everything it calls, then every function not reached as a
// root of its own. Problems in the code (unresolved calls, unknown bounds)
// are not errors: they leave unknown calls and default trip counts.
func Build(prog *ir.Program, opts Options) (*Graph, error) {
	if prog == nil {
		return nil, errors.New("pdg: nil program")
	}
	b := &builder{
		prog:     prog,
		opts:     opts.withDefaults(),
		funcs:    map[string][]funcDef{},
		shared:   map[*ir.File]*shared{},
		fields:   map[string]Value{},
		observed: map[string]Value{},
		guessed:  map[string]Value{},
		structs:  map[string][]*ir.Var{},
		settings: settings{},
		records:  map[string]*records{},

		plainFields:   map[string]bool{},
		steppedFields: map[string]bool{},
		rankNames:     map[string]bool{},
		datasets:      map[string]*Handle{},
		noReturn:      map[*ir.Func]bool{},
		memberSizes:   map[string]int64{},
		sizes:         map[string]extent{},
		instances:     map[*ir.Func]map[string]*Node{},
		active:        map[*ir.Func]bool{},
		units:         map[string]*Handle{},
		seeked:        map[*Handle]string{},

		hostScopes:     map[*ir.Func]*hostScope{},
		effectCache:    map[*ir.Func]*effects{},
		globalUseCache: map[*ir.Func]globalUse{},
		effectBusy:     map[*ir.Func]bool{},
	}
	b.graph = &Graph{Options: b.opts}
	b.stdout = &Handle{ID: b.nextID(), Kind: StdHandle, Name: "<stdout>", Mode: iosem.ModeWrite, Elems: -1}
	b.stdin = &Handle{ID: b.nextID(), Kind: StdHandle, Name: "<stdin>", Mode: iosem.ModeRead, Elems: -1}
	b.index()
	b.findHosts()
	b.analyseGlobals()
	b.analyseFields()

	entry, err := b.findEntry()
	if err != nil {
		return nil, err
	}
	if entry.f != nil {
		b.reachable = true
		n := b.instance(entry, b.entryBindings(entry))
		b.reachable = false
		b.graph.Entry = n
		b.graph.Roots = append(b.graph.Roots, n)
	}
	for _, d := range b.unreachedRoots() {
		b.graph.Roots = append(b.graph.Roots, b.instance(d, callContext{}))
	}
	b.fileNodes()
	return b.graph, nil
}

func (b *builder) nextID() int {
	b.handles++
	return b.handles
}

// index records every function by name; Fortran names and C++ methods are
// also found by their unqualified name.
func (b *builder) index() {
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		for _, f := range file.Funcs {
			d := funcDef{f, file}
			b.funcs[f.Name] = append(b.funcs[f.Name], d)
			if i := strings.LastIndex(f.Name, "::"); i >= 0 {
				b.funcs[f.Name[i+2:]] = append(b.funcs[f.Name[i+2:]], d)
			}
		}
	}
}

// resolve returns the program function a call names, preferring one
// defined in the caller's file, and false when there is none.
func (b *builder) resolve(name string, from *ir.File) (funcDef, bool) {
	defs := b.funcs[name]
	if len(defs) == 0 && from != nil && from.Lang == ir.Fortran {
		defs = b.funcs[strings.ToLower(name)]
	}
	for _, d := range defs {
		if d.file == from {
			return d, true
		}
	}
	if len(defs) > 0 {
		return defs[0], true
	}
	return funcDef{}, false
}

// findEntry returns Options.Entry, or main, or the Fortran main program.
// With no entry option and none of those, it returns a zero funcDef.
func (b *builder) findEntry() (funcDef, error) {
	if b.opts.Entry != "" {
		if d, ok := b.resolve(b.opts.Entry, nil); ok {
			return d, nil
		}
		if d, ok := b.resolve(strings.ToLower(b.opts.Entry), nil); ok {
			return d, nil
		}
		return funcDef{}, fmt.Errorf("pdg: %w: %q", ErrNoEntry, b.opts.Entry)
	}
	if d, ok := b.resolve("main", nil); ok {
		return d, nil
	}
	for _, file := range b.prog.Files {
		for _, f := range file.Funcs {
			if f.Kind == ir.MainProgram {
				return funcDef{f, file}, nil
			}
		}
	}
	return funcDef{}, nil
}

// entryBindings binds C's argc and argv to the program arguments, and
// the followed globals to their initial values.
func (b *builder) entryBindings(d funcDef) callContext {
	if d.f.Kind == ir.MainProgram || len(d.f.Params) == 0 {
		return callContext{globals: b.initialGlobals()}
	}
	vals := make([]Value, len(d.f.Params))
	if b.opts.Args != nil {
		vals[0] = IntValue(int64(len(b.opts.Args)+1), Argument)
	}
	if len(vals) > 1 {
		vals[1] = Value{Kind: Argv, Origin: Argument}
	}
	return callContext{vals: vals, globals: b.initialGlobals()}
}

// instance returns the node of function d analysed in the calling context
// ctx (the zero context: all unknown), analysing it if this context is
// new. Past Options.MaxContexts contexts of d, further calls share its
// generic context, where only constants are known.
func (b *builder) instance(d funcDef, ctx callContext) *Node {
	ctxKey := ctx.key()
	ctxs := b.instances[d.f]
	if ctxs == nil {
		ctxs = map[string]*Node{}
		b.instances[d.f] = ctxs
	}
	if n, ok := ctxs[ctxKey]; ok {
		return n
	}
	if len(ctxs) >= b.opts.MaxContexts {
		ctxKey, ctx = "", callContext{}
		if n, ok := ctxs[ctxKey]; ok {
			return n
		}
	}
	n := &Node{
		Kind:      FuncNode,
		Name:      d.f.Name,
		Pos:       d.f.Pos,
		EndLine:   d.f.EndLine,
		Func:      d.f,
		Path:      d.file.Path,
		Lang:      d.file.Lang,
		Context:   ctxKey,
		Reachable: b.reachable,
		Taken:     -1,
	}
	ctxs[ctxKey] = n
	b.graph.Funcs = append(b.graph.Funcs, n)

	b.active[d.f] = true
	b.depth++
	w := b.newWalker(d, n, ctx)
	w.walk(d.f.Body, n)
	n.Result = w.result
	n.resultShape = w.resultShape
	n.globalsLeft, n.globalShapesLeft = w.globalsLeft(d)
	n.memberOuts = w.memberChanges()
	if d.file.Lang == ir.Fortran {
		n.outs = make([]Value, len(d.f.Params))
		n.outShapes = make([]shape, len(d.f.Params))
		for i, p := range d.f.Params {
			if v := Eval(ir.Ref{Name: p.Name}, w.env); v.Kind == Int || v.Kind == Float || v.Kind == HandleVal {
				n.outs[i] = v.with(Passed)
			}
			n.outShapes[i], _ = w.env.shapeOf(p.Name)
		}
	} else if len(w.written) > 0 {
		n.outs = make([]Value, len(d.f.Params))
		for i, p := range d.f.Params {
			if v := Eval(ir.Ref{Name: p.Name}, w.env); w.written[p.Name] && v.Kind == Str {
				n.outs[i] = v.with(Passed)
			}
		}
	}
	b.depth--
	delete(b.active, d.f)
	return n
}

// unreachedRoots returns the functions not analysed yet that no other
// unanalysed function calls, then, for call cycles among the rest, one
// function per cycle; each is analysed as a root before the next is
// chosen.
func (b *builder) unreachedRoots() []funcDef {
	var pending []funcDef
	for _, file := range b.prog.Files {
		for _, f := range file.Funcs {
			if b.instances[f] == nil {
				pending = append(pending, funcDef{f, file})
			}
		}
	}
	called := map[*ir.Func]bool{}
	for _, d := range pending {
		for _, c := range calledFuncs(d, b) {
			if c != d.f {
				called[c] = true
			}
		}
	}
	var roots []funcDef
	for _, d := range pending {
		if !called[d.f] {
			roots = append(roots, d)
		}
	}
	for _, d := range pending {
		if called[d.f] {
			roots = append(roots, d) // analysed only if still unreached
		}
	}
	var out []funcDef
	for _, d := range roots {
		if b.instances[d.f] == nil {
			out = append(out, d)
			b.instance(d, callContext{})
		}
	}
	return out
}

// calledFuncs returns the program functions d calls directly.
func calledFuncs(d funcDef, b *builder) []*ir.Func {
	var out []*ir.Func
	visitStmts(d.f.Body, func(s ir.Stmt) {
		if c, ok := s.(*ir.Call); ok && !c.Indirect {
			if t, ok := b.resolveCall(c, d, nil); ok {
				out = append(out, t.f)
			}
		}
	})
	return out
}

// visitStmts calls f for every statement of blk, nested ones included.
func visitStmts(blk ir.Block, f func(ir.Stmt)) { visitBlock(blk, f, true) }

// visitOwn calls f for each statement of blk and of the branches in it,
// not for those of the loops nested in it: the statements of one
// iteration of the loop whose body blk is.
func visitOwn(blk ir.Block, f func(ir.Stmt)) { visitBlock(blk, f, false) }

// visitBlock calls f for each statement of blk, of its branches and, when
// loops is set, of its loops, recursively.
func visitBlock(blk ir.Block, f func(ir.Stmt), loops bool) {
	for _, s := range blk {
		f(s)
		switch s := s.(type) {
		case *ir.Loop:
			if loops {
				visitBlock(s.Body, f, loops)
			}
		case *ir.If:
			visitBlock(s.Then, f, loops)
			visitBlock(s.Else, f, loops)
		case *ir.Switch:
			for _, c := range s.Cases {
				visitBlock(c, f, loops)
			}
		}
	}
}

// fileNodes builds one FileNode per file holding, per function, the node
// of the first context analysed, and the space of its global arrays.
func (b *builder) fileNodes() {
	first := make(map[*ir.Func]*Node, len(b.graph.Funcs))
	for _, n := range b.graph.Funcs {
		if _, ok := first[n.Func]; !ok {
			first[n.Func] = n
		}
	}
	for _, file := range b.prog.Files {
		if file == nil {
			continue
		}
		fn := &Node{Kind: FileNode, Name: file.Path, Pos: ir.Pos{File: file.Path, Line: 1}, EndLine: file.Lines,
			Lang: file.Lang, Taken: -1}
		env := newEnv(b.sharedOf(file))
		for _, g := range file.Globals {
			if len(g.Type.Dims) > 0 {
				if n, ok := env.typeSize(g.Type); ok {
					fn.Space += float64(n)
				}
			}
		}
		for _, f := range file.Funcs {
			if n, ok := first[f]; ok {
				fn.Children = append(fn.Children, n)
			}
		}
		b.graph.Files = append(b.graph.Files, fn)
	}
}
