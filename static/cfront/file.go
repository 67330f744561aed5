package cfront

import (
	"maps"
	"slices"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// translationUnit lowers the items of a translation unit, a namespace
// body, a linkage specification or a preprocessor block at file scope.
func (b *builder) translationUnit(i int32) {
	for c := b.t.first(i); c != none; c = b.t.next(c) {
		b.topItem(c)
	}
}

// topItem lowers one file-scope item.
func (b *builder) topItem(i int32) {
	t := b.t
	switch t.kind(i) {
	case kFunctionDefinition:
		b.function(i)
	case kDeclaration:
		b.fileDecl(i)
	case kTypeDefinition:
		b.typedef(i)
	case kStructSpecifier, kUnionSpecifier, kClassSpecifier, kEnumSpecifier:
		b.typeSpecifier(i)
	case kNamespaceDefinition:
		b.namespace(i)
	case kNamespaceAliasDefinition:
		b.namespaceAlias(i)
	case kLinkageSpecification:
		if body := t.child(i, fBody); body != none {
			if t.kind(body) == kDeclarationList {
				b.translationUnit(body)
			} else {
				b.topItem(body)
			}
		}
	case kTemplateDeclaration, kDeclarationList, kError:
		// Template parameters are skipped by topItem; an ERROR node may
		// still hold whole functions.
		b.translationUnit(i)
	case kPreprocDef:
		b.define(i)
	case kPreprocFunctionDef:
		b.defineFunction(i)
	case kPreprocIf, kPreprocIfdef, kPreprocElse, kPreprocElif, kPreprocElifdef:
		for c := t.first(i); c != none; c = t.next(c) {
			if f := t.field(c); f != fName && f != fCondition {
				b.topItem(c)
			}
		}
	}
}

// namespace lowers a namespace definition.
func (b *builder) namespace(i int32) {
	name := ""
	if n := b.t.child(i, fName); n != none {
		name = b.t.text(n)
		b.namespaces[name] = true
		if b.t.kind(n) != kNamespaceIdentifier {
			// "namespace a::b": record each component.
			for _, part := range strings.Split(name, "::") {
				b.namespaces[strings.TrimSpace(part)] = true
			}
		}
	}
	b.push(name, false)
	if body := b.t.child(i, fBody); body != none {
		b.translationUnit(body)
	}
	b.pop()
}

// namespaceAlias records "namespace fs = std::filesystem;": qualified
// names spelt with the alias are lowered with the namespace it stands for.
func (b *builder) namespaceAlias(i int32) {
	t := b.t
	name := t.child(i, fName)
	if name == none {
		return
	}
	var target int32 = none
	for c := t.first(i); c != none; c = t.next(c) {
		if t.named(c) && c != name {
			target = c
		}
	}
	if target != none {
		b.aliases[t.text(name)] = strings.TrimPrefix(strings.Join(strings.Fields(t.text(target)), ""), "::")
	}
}

// classBody lowers the members of a class, struct or union body: data
// members are measured into layout, member functions kept. As in C++, the
// bodies of member functions see the whole class: they are lowered after
// the data members, wherever those are declared.
func (b *builder) classBody(list int32, layout *structLayout) {
	t := b.t
	var methods []int32
	for c := t.first(list); c != none; c = t.next(c) {
		switch t.kind(c) {
		case kFunctionDefinition:
			if d := t.child(c, fDeclarator); d != none && t.kind(d) == kFieldIdentifier {
				// "double x = 0;": the grammar takes "= 0" for a pure
				// virtual function's, but a name without parameters is
				// a data member.
				b.member(c, layout)
				continue
			}
			if layout != nil && b.definesConstructor(c) {
				layout.ctor = true
			}
			methods = append(methods, c)
		case kTemplateDeclaration:
			b.classBody(c, nil)
		case kFieldDeclaration:
			b.member(c, layout)
		case kDeclaration: // static data members, constructors
			if layout != nil && b.definesConstructor(c) {
				layout.ctor = true
			}
			b.fileDecl(c)
		case kPreprocIf, kPreprocIfdef, kPreprocElse, kPreprocElif, kPreprocElifdef:
			b.classBody(c, layout)
		case kStructSpecifier, kUnionSpecifier, kClassSpecifier, kEnumSpecifier:
			b.typeSpecifier(c)
		}
	}
	if layout != nil && b.inClass() {
		b.members[strings.TrimSuffix(b.prefix, "::")] = layout.members
	}
	for _, c := range methods {
		b.function(c)
	}
}

// isConstructor tells whether a member function named name is a
// constructor of the class being lowered.
func (b *builder) isConstructor(name string) bool {
	return b.inClass() && name != "" && name == b.scope[len(b.scope)-1].name
}

// definesConstructor tells whether a member declaration or definition
// declares a constructor of the class being lowered.
func (b *builder) definesConstructor(i int32) bool {
	t := b.t
	d := t.child(i, fDeclarator)
	if d == none || t.kind(d) != kFunctionDeclarator {
		return false
	}
	n := t.child(d, fDeclarator)
	return n != none && b.isConstructor(t.text(n))
}

// member measures a data member declaration into layout; a member function
// declaration is skipped.
func (b *builder) member(i int32, layout *structLayout) {
	t := b.t
	base := b.baseType(t.child(i, fType))
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) != fDeclarator {
			continue
		}
		d := b.declarator(c, base)
		if d.fn != none {
			if layout != nil && b.isConstructor(d.name) {
				layout.ctor = true
			}
			continue
		}
		if layout == nil {
			continue
		}
		if t.childOfKind(i, kStorageClassSpecifier) != none { // static member
			continue
		}
		size, align := b.memberLayout(d.typ)
		if off := layout.add(size, align); off >= 0 {
			if layout.offsets == nil {
				layout.offsets = map[string]int64{}
			}
			layout.offsets[d.name] = off
		}
		layout.members = append(layout.members, &ir.Var{Pos: b.pos(c), Name: d.name, Type: d.typ})
	}
}

// memberLayout returns the size and alignment of a member of type typ.
func (b *builder) memberLayout(typ ir.Type) (size, align int64) {
	l := sizeAlign{size: typ.Size, align: typ.Size}
	if typ.Pointer > 0 {
		l = sizeAlign{pointerSize, pointerSize}
	} else if sa, ok := b.types.defined[typ.Name]; ok {
		l = sa
	}
	if l.align > 16 {
		l.align = 16
	}
	size = l.size
	for _, d := range typ.Dims {
		n, ok := b.constInt(d)
		if !ok || n <= 0 {
			return 0, 0
		}
		size *= n
	}
	return size, l.align
}

// maxConstDepth bounds the constants constInt follows through other
// constants.
const maxConstDepth = 8

// constInt folds an integer constant expression of the file so far: a
// number, a macro or enumerator defined before it, and arithmetic on
// them (float ch[NCHAN], char name[MAXLEN + 1]).
func (b *builder) constInt(x ir.Expr) (int64, bool) {
	return ir.FoldInt(x, func(name string) (ir.Expr, bool) {
		c, ok := b.file.Consts[name]
		return c, ok
	}, maxConstDepth)
}

// function lowers a function definition.
func (b *builder) function(i int32) {
	t := b.t
	fd := t.child(i, fDeclarator)
	for fd != none && t.kind(fd) != kFunctionDeclarator {
		switch t.kind(fd) {
		case kPointerDeclarator, kReferenceDeclarator, kParenthesizedDeclarator, kAttributedDeclarator:
			if d := t.child(fd, fDeclarator); d != none {
				fd = d
			} else {
				fd = t.firstNamed(fd)
			}
		default:
			fd = none
		}
	}
	if fd == none {
		return // a macro-heavy definition tree-sitter could not structure
	}
	f := &ir.Func{Kind: ir.Function, Pos: b.pos(i), EndLine: t.endLine(i)}
	b.funcName(f, t.child(fd, fDeclarator))

	clear(b.locals)
	if f.Kind == ir.Method {
		f.Members = b.members[f.Module]
		for _, m := range f.Members {
			b.locals[m.Name] = true
		}
	}
	f.Params = b.params(t.child(fd, fParameters))
	for _, p := range f.Params {
		if p.Name != "" {
			b.locals[p.Name] = true
		}
	}
	b.pending = b.pending[:0]
	if inits := t.childOfKind(i, kFieldInitializerList); inits != none {
		b.memberInits(inits, f.Members, &f.Body)
	}
	b.fn = f
	if body := t.child(i, fBody); body != none {
		b.stmt(body, &f.Body)
		f.EndLine = t.endLine(body)
	}
	b.fn = nil
	b.file.Funcs = append(b.file.Funcs, f)
}

// lambda lowers the lambda expression i that initialises the local
// variable name of the function being lowered into a function of its
// own, and returns its name. Its body sees the enclosing function's
// variables, as those of its host.
func (b *builder) lambda(i int32, name string) string {
	t := b.t
	host := b.fn
	f := &ir.Func{Kind: ir.Lambda, Name: host.Name + "$" + name, Pos: b.pos(i), EndLine: t.endLine(i),
		Module: host.Module, Members: host.Members}
	locals, pending := maps.Clone(b.locals), b.pending
	b.pending = nil
	if d := t.child(i, fDeclarator); d != none {
		f.Params = b.params(t.child(d, fParameters))
	}
	for _, p := range f.Params {
		if p.Name != "" {
			b.locals[p.Name] = true
		}
	}
	if body := t.child(i, fBody); body != none {
		b.stmt(body, &f.Body)
	}
	b.locals, b.pending = locals, pending
	b.file.Funcs = append(b.file.Funcs, f)
	return f.Name
}

// memberInits lowers a constructor's member initialisers, in order, as
// the declarations (data_(path, mode) constructs a file stream) and
// assignments (n_(0)) they stand for; the initialisers of base classes
// and of members not known are evaluated for their calls only.
func (b *builder) memberInits(list int32, members []*ir.Var, out *ir.Block) {
	t := b.t
	for c := t.first(list); c != none; c = t.next(c) {
		if t.kind(c) != kFieldInitializer {
			continue
		}
		name, args, i := t.firstNamed(c), none, -1
		if name != none && t.kind(name) == kFieldIdentifier {
			args = t.next(name)
			for args != none && !t.named(args) {
				args = t.next(args)
			}
			i = slices.IndexFunc(members, func(m *ir.Var) bool { return m.Name == t.text(name) })
		}
		if args == none || i < 0 {
			b.effects(c)
			continue
		}
		m := members[i]
		var vals []ir.Expr
		if t.kind(args) == kInitializerList {
			for e := t.first(args); e != none; e = t.next(e) {
				if t.named(e) {
					vals = append(vals, b.expr(e))
				}
			}
		} else {
			vals = b.args(args)
		}
		v := &ir.Var{Pos: b.pos(c), Name: m.Name, Type: m.Type}
		switch {
		case isScalar(m.Type) && len(vals) == 1:
			b.flush(out)
			*out = append(*out, &ir.Assign{Pos: v.Pos, Target: v.Name, Op: "=", Value: vals[0]})
		case !isScalar(m.Type) && len(m.Type.Dims) == 0 && b.ctorCall(v, m.Type, vals):
			b.flush(out)
			*out = append(*out, &ir.Decl{Pos: v.Pos, Var: v})
		}
	}
	b.flush(out)
}

// funcName sets the name, kind and module of f from its declarator name.
func (b *builder) funcName(f *ir.Func, n int32) {
	if n == none {
		return
	}
	name := b.t.text(n)
	if strings.ContainsAny(name, " \t\n") {
		name = strings.Join(strings.Fields(name), "")
	}
	if cut := strings.LastIndex(name, "::"); cut > 0 && b.t.kind(n) == kQualifiedIdentifier {
		// Out-of-class definition "C::f" (a method unless C is a known
		// namespace) or "ns::f".
		scope := name[:cut]
		last := scope[strings.LastIndex(scope, "::")+1:]
		if b.inClass() || b.classes[last] || !b.namespaces[last] {
			f.Kind = ir.Method
		}
		f.Name = b.prefix + name
		f.Module = b.prefix + scope
		return
	}
	f.Name = b.prefix + name
	if b.prefix != "" {
		f.Module = b.prefix[:len(b.prefix)-2]
	}
	if b.inClass() {
		f.Kind = ir.Method
	}
}

// params lowers a parameter list.
func (b *builder) params(list int32) []*ir.Var {
	if list == none {
		return nil
	}
	t := b.t
	var ps []*ir.Var
	for c := t.first(list); c != none; c = t.next(c) {
		k := t.kind(c)
		if k != kParameterDeclaration && k != kOptionalParameterDeclaration {
			continue
		}
		base := b.baseType(t.child(c, fType))
		dn := t.child(c, fDeclarator)
		if dn == none && base.Name == "void" {
			continue // f(void)
		}
		v := &ir.Var{Pos: b.pos(c), Type: base, Const: b.isConst(c)}
		if dn != none {
			d := b.declarator(dn, base)
			v.Name, v.Type = d.name, d.typ
			if d.typ.Pointer > 0 {
				v.Const = d.constPtr
			}
		}
		ps = append(ps, v)
	}
	return ps
}
