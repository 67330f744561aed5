package cfront

import (
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// builder lowers one file's syntax tree to IR.
type builder struct {
	t     *tree
	file  *ir.File
	cpp   bool
	types typeSizes
	// fn is the function whose body is being lowered, nil outside one.
	fn *ir.Func

	// scope is the stack of enclosing namespaces and classes; prefix is
	// their names joined by "::" (with a trailing "::"), or "".
	scope  []scopeEntry
	prefix string
	// classes and namespaces record the names defined in the file, to
	// tell a method "C::f" from a namespace function "ns::f".
	classes    map[string]bool
	namespaces map[string]bool
	// aggregates are the data members, in order, of the structures and
	// classes without constructors, by the type names declarations use
	// ("struct cfg", a typedef name, a C++ class name with and without
	// its namespaces).
	aggregates map[string][]string
	// aliases are the namespace aliases of the file, by alias.
	aliases map[string]string
	// offsets are the offsets of the members of the structures defined
	// in the file, by the same names as aggregates.
	offsets map[string]map[string]int64
	// members are the data members of the classes defined in the file,
	// by qualified class name ("render::Writer").
	members map[string][]*ir.Var
	// macros are the function-like macros whose replacement is an
	// expression, by name.
	macros map[string]funcMacro

	// globals and locals are the variables in scope: file-scope ones, and
	// the parameters and locals of the function being lowered. scoped
	// holds the qualified names of the variables and constants declared
	// in namespaces ("lattice::L").
	globals map[string]bool
	locals  map[string]bool
	scoped  map[string]bool

	// pending collects the statements hoisted out of the expressions of
	// the statement being lowered: calls and embedded assignments.
	pending []ir.Stmt
	// lastCallNode is the node of the last call hoisted.
	lastCallNode int32
}

// scopeEntry is an enclosing namespace or class.
type scopeEntry struct {
	name   string
	class  bool
	prefix string // the builder's prefix before entering
}

func newBuilder(t *tree, f *ir.File) *builder {
	return &builder{
		t:          t,
		file:       f,
		cpp:        f.Lang == ir.CPP,
		classes:    map[string]bool{},
		namespaces: map[string]bool{},
		aggregates: map[string][]string{},
		members:    map[string][]*ir.Var{},
		offsets:    map[string]map[string]int64{},
		aliases:    map[string]string{},
		globals:    map[string]bool{},
		locals:     map[string]bool{},
	}
}

func (b *builder) pos(i int32) ir.Pos { return ir.Pos{File: b.file.Path, Line: b.t.line(i)} }

// push enters a namespace or class.
func (b *builder) push(name string, class bool) {
	b.scope = append(b.scope, scopeEntry{name: name, class: class, prefix: b.prefix})
	if name != "" {
		b.prefix = b.prefix + name + "::"
	}
}

func (b *builder) pop() {
	top := b.scope[len(b.scope)-1]
	b.scope = b.scope[:len(b.scope)-1]
	b.prefix = top.prefix
}

// inClass tells whether the innermost scope is a class.
func (b *builder) inClass() bool { return len(b.scope) > 0 && b.scope[len(b.scope)-1].class }

// inScope returns the qualified name that name, used in the namespace
// being lowered, refers to: the variable or constant of the innermost
// enclosing namespace declaring it ("L" in namespace lattice is
// "lattice::L"), else name itself.
func (b *builder) inScope(name string) string {
	if b.locals[name] || len(b.scoped) == 0 {
		return name
	}
	for p := b.prefix; p != ""; {
		if b.scoped[p+name] {
			return p + name
		}
		outer := p[:len(p)-2]
		if k := strings.LastIndex(outer, "::"); k >= 0 {
			p = outer[:k+2]
		} else {
			p = ""
		}
	}
	return name
}

// isVar tells whether name is a variable in scope.
func (b *builder) isVar(name string) bool { return b.locals[name] || b.globals[name] }

// hoist appends a statement to the pending ones.
func (b *builder) hoist(s ir.Stmt) { b.pending = append(b.pending, s) }

// flush moves the pending statements to out.
func (b *builder) flush(out *ir.Block) {
	if len(b.pending) == 0 {
		return
	}
	*out = append(*out, b.pending...)
	clear(b.pending)
	b.pending = b.pending[:0]
}

// isolate runs lower with an empty pending list and returns the
// expression it produced and the statements it hoisted.
func (b *builder) isolate(lower func() ir.Expr) (ir.Expr, []ir.Stmt) {
	saved := b.pending
	b.pending = nil
	e := lower()
	hoisted := b.pending
	b.pending = saved
	return e, hoisted
}

// lastCall returns the last pending statement if it is a call.
func (b *builder) lastCall() *ir.Call {
	if len(b.pending) == 0 {
		return nil
	}
	c, _ := b.pending[len(b.pending)-1].(*ir.Call)
	return c
}
