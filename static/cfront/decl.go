package cfront

import (
	"slices"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// declInfo is what a declarator tells about one declared name.
type declInfo struct {
	name     string
	nameNode int32
	typ      ir.Type
	value    int32 // initialiser, or none
	fn       int32 // function declarator, or none
	constPtr bool  // the outermost pointer is const
}

// declarator walks a (possibly abstract) declarator, applying pointers and
// array extents to base.
func (b *builder) declarator(d int32, base ir.Type) declInfo {
	t := b.t
	info := declInfo{typ: base, value: none, fn: none, nameNode: none}
	var dims []ir.Expr // innermost (last extent) first
	outer := true
	for d != none {
		switch t.kind(d) {
		case kInitDeclarator:
			info.value = t.child(d, fValue)
			d = t.child(d, fDeclarator)
		case kPointerDeclarator, kAbstractPointerDeclarator:
			if len(dims) > 0 && !slices.Contains(dims, nil) {
				// char (*rows)[96]: a pointer to arrays indexes rows of
				// them, like an array of unknown outer extent.
				dims = append(dims, nil)
			} else {
				info.typ.Pointer++
			}
			if outer {
				for c := t.first(d); c != none; c = t.next(c) {
					if t.kind(c) == kTypeQualifier && string(t.bytes(c)) == "const" {
						info.constPtr = true
					}
				}
			}
			outer = false
			d = t.child(d, fDeclarator)
		case kArrayDeclarator, kAbstractArrayDeclarator:
			var size ir.Expr
			if s := t.child(d, fSize); s != none {
				size = b.expr(s)
			}
			dims = append(dims, size)
			outer = false
			d = t.child(d, fDeclarator)
		case kFunctionDeclarator:
			if info.fn == none {
				info.fn = d
			}
			d = t.child(d, fDeclarator)
		case kReferenceDeclarator, kAbstractReferenceDeclarator, kParenthesizedDeclarator, kAttributedDeclarator:
			if c := t.child(d, fDeclarator); c != none {
				d = c
			} else {
				d = t.firstNamed(d)
			}
		case kIdentifier, kFieldIdentifier, kTypeIdentifier, kQualifiedIdentifier, kOperatorName, kDestructorName:
			info.name, info.nameNode = t.text(d), d
			d = none
		default:
			d = none
		}
	}
	if len(dims) > 0 {
		info.typ.Dims = make([]ir.Expr, len(dims))
		for k, e := range dims {
			info.typ.Dims[len(dims)-1-k] = e
		}
	}
	return info
}

// isConst tells whether a declaration's specifiers include const or
// constexpr.
func (b *builder) isConst(i int32) bool {
	t := b.t
	for c := t.first(i); c != none; c = t.next(c) {
		if t.kind(c) == kTypeQualifier {
			switch string(t.bytes(c)) {
			case "const", "constexpr", "constinit":
				return true
			}
		}
	}
	return false
}

// isConstexpr tells whether a declaration is constexpr.
func (b *builder) isConstexpr(i int32) bool {
	t := b.t
	for c := t.first(i); c != none; c = t.next(c) {
		if t.kind(c) == kTypeQualifier && string(t.bytes(c)) == "constexpr" {
			return true
		}
	}
	return false
}

// baseType returns the type named by a type specifier node, defining the
// structs, unions, classes and enums it declares on the way.
func (b *builder) baseType(i int32) ir.Type {
	if i == none {
		return ir.Type{}
	}
	t := b.t
	switch t.kind(i) {
	case kPrimitiveType, kTypeIdentifier:
		name := t.text(i)
		return ir.Type{Name: name, Size: b.types.size(name)}
	case kSizedTypeSpecifier:
		var parts []string
		for c := t.first(i); c != none; c = t.next(c) {
			parts = append(parts, string(t.bytes(c)))
		}
		name := t.intern([]byte(strings.Join(parts, " ")))
		return ir.Type{Name: name, Size: b.types.size(name)}
	case kStructSpecifier, kUnionSpecifier, kClassSpecifier, kEnumSpecifier:
		name := b.typeSpecifier(i)
		return ir.Type{Name: name, Size: b.types.size(name)}
	case kTypeDescriptor:
		base := b.baseType(t.child(i, fType))
		if d := t.child(i, fDeclarator); d != none {
			return b.declarator(d, base).typ
		}
		return base
	case kPlaceholderTypeSpecifier:
		return ir.Type{Name: "auto"}
	default:
		name := t.text(i)
		if strings.ContainsAny(name, "\n\t") {
			name = strings.Join(strings.Fields(name), " ")
		}
		return ir.Type{Name: name, Size: b.types.size(name)}
	}
}

// typeSpecifier defines a struct, union, class or enum (when it has a
// body) and returns the type's name as written in declarations: "struct
// cell", "union u", "enum color" in C, the bare name for C++ classes.
func (b *builder) typeSpecifier(i int32) string {
	t := b.t
	k := t.kind(i)
	tag := ""
	if n := t.child(i, fName); n != none {
		tag = t.text(n)
	}
	name := tag
	switch k {
	case kStructSpecifier:
		name = "struct " + tag
	case kUnionSpecifier:
		name = "union " + tag
	case kEnumSpecifier:
		name = "enum " + tag
	}
	if tag == "" {
		name = strings.TrimSpace(name)
	}
	body := t.child(i, fBody)
	if body == none {
		return name
	}
	if k == kEnumSpecifier {
		b.enumerators(body)
		b.types.define(name, sizeAlign{4, 4})
		if b.cpp && tag != "" {
			b.types.define(tag, sizeAlign{4, 4})
		}
		return name
	}
	if tag != "" {
		b.classes[tag] = true
	}
	layout := &structLayout{union: k == kUnionSpecifier}
	b.push(tag, true)
	b.classBody(body, layout)
	b.pop()
	l := sizeAlign{layout.total(), layout.align}
	if l.size == 0 {
		l = sizeAlign{}
	}
	b.types.define(name, l)
	keys := []string{name} // the names declarations may use
	if b.cpp && tag != "" {
		b.types.define(tag, l)
		keys = append(keys, tag, b.prefix+tag)
	}
	names := layout.names()
	if b.file.Structs == nil {
		b.file.Structs = map[string][]*ir.Var{}
	}
	for _, k := range keys {
		b.offsets[k] = layout.offsets
		b.file.Structs[k] = layout.members
		if !layout.ctor && !layout.union {
			b.aggregates[k] = names
		}
	}
	return name
}

// enumerators adds the enumerators of an enum body to the file constants.
func (b *builder) enumerators(list int32) {
	t := b.t
	var next ir.Expr = ir.Int{V: 0}
	for c := t.first(list); c != none; c = t.next(c) {
		if t.kind(c) != kEnumerator {
			continue
		}
		n := t.child(c, fName)
		if n == none {
			continue
		}
		v := next
		if vn := t.child(c, fValue); vn != none {
			v = b.constExpr(vn)
		}
		b.file.Consts[t.text(n)] = v
		if iv, ok := v.(ir.Int); ok {
			next = ir.Int{V: iv.V + 1}
		} else {
			next = ir.Binary{Op: "+", L: ir.Ref{Name: t.text(n)}, R: ir.Int{V: 1}}
		}
	}
}

// constExpr lowers an expression outside any function; calls in it are
// left as CallExprs without hoisted statements.
func (b *builder) constExpr(i int32) ir.Expr {
	e, _ := b.isolate(func() ir.Expr { return b.expr(i) })
	return e
}

// typedef defines the names of a typedef with the size of their type.
func (b *builder) typedef(i int32) {
	t := b.t
	base := b.baseType(t.child(i, fType))
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) != fDeclarator {
			continue
		}
		d := b.declarator(c, base)
		if d.name == "" {
			continue
		}
		size, align := b.memberLayout(d.typ)
		b.types.define(d.name, sizeAlign{size, align})
		if d.typ.Pointer == 0 && len(d.typ.Dims) == 0 {
			if names, ok := b.aggregates[base.Name]; ok {
				b.aggregates[d.name] = names
			}
			if offs, ok := b.offsets[base.Name]; ok {
				b.offsets[d.name] = offs
			}
			if members, ok := b.file.Structs[base.Name]; ok {
				b.file.Structs[d.name] = members
			}
		}
	}
}

// fileDecl lowers a file-scope (or static member) declaration: variables
// become globals, constants also file constants; function prototypes are
// skipped.
func (b *builder) fileDecl(i int32) {
	t := b.t
	base := b.baseType(t.child(i, fType))
	isConst, isConstexpr := b.isConst(i), b.isConstexpr(i)
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) != fDeclarator {
			continue
		}
		d := b.declarator(c, base)
		if d.fn != none || d.name == "" {
			continue
		}
		v := b.newVar(c, d, isConst, isConstexpr)
		switch {
		case d.value == none:
		case t.kind(d.value) == kArgumentList:
			v.Init = b.ctorExpr(d.typ, d.value)
		default:
			if l, ok := b.arrayInit(v, d.value); ok {
				v.Init = l
				break
			}
			v.Init = b.constExpr(d.value)
		}
		name := b.prefix + d.name
		v.Name = name
		b.globals[d.name] = true
		if b.prefix != "" {
			if b.scoped == nil {
				b.scoped = map[string]bool{}
			}
			b.scoped[name] = true
		}
		b.file.Globals = append(b.file.Globals, v)
		if v.Const && v.Init != nil && len(v.Type.Dims) == 0 {
			b.file.Consts[name] = v.Init
		}
	}
}

// newVar makes the variable of declarator d of declaration node c.
func (b *builder) newVar(c int32, d declInfo, isConst, isConstexpr bool) *ir.Var {
	v := &ir.Var{Pos: b.pos(c), Name: d.name, Type: d.typ, Const: isConst && d.typ.Pointer == 0}
	if d.typ.Pointer > 0 {
		v.Const = d.constPtr || isConstexpr
	}
	return v
}

// ctorExpr returns the value of an initialisation by constructor
// arguments, T x(args), outside a function: the only argument for a
// scalar type, else a CallExpr of the type's constructor.
func (b *builder) ctorExpr(base ir.Type, args int32) ir.Expr {
	e, _ := b.isolate(func() ir.Expr { return ir.CallExpr{Args: b.args(args)} })
	list := e.(ir.CallExpr).Args
	if isScalar(base) && len(list) == 1 {
		return list[0]
	}
	return ir.CallExpr{Callee: base.Name, Args: list}
}

// isScalar tells whether typ is a builtin arithmetic or pointer type.
func isScalar(typ ir.Type) bool {
	return typ.Pointer > 0 || scalarSize(typ.Name) != 0
}

// localDecl lowers a declaration in a function body into Decls (after the
// statements hoisted from their initialisers).
func (b *builder) localDecl(i int32, out *ir.Block) {
	t := b.t
	base := b.baseType(t.child(i, fType))
	isConst, isConstexpr := b.isConst(i), b.isConstexpr(i)
	for c := t.first(i); c != none; c = t.next(c) {
		if t.field(c) != fDeclarator {
			continue
		}
		d := b.declarator(c, base)
		if d.name == "" {
			continue
		}
		v := b.newVar(c, d, isConst, isConstexpr)
		var stores ir.Block
		if d.value == none {
			// A C++ condition declaration keeps its value in the
			// declaration: if (int n = f()).
			d.value = t.child(i, fValue)
		}
		switch {
		case d.fn != none:
			// "T x(a, b)" that tree-sitter read as a function declaration
			// (the most vexing parse): a constructor call when T is a class.
			if isScalar(base) || d.typ.Pointer > 0 || base.Name == "void" {
				continue
			}
			if !b.ctorCall(v, base, b.vexingArgs(t.child(d.fn, fParameters))) {
				continue
			}
		case d.value != none && t.kind(d.value) == kLambdaExpression && b.fn != nil:
			v.Init = ir.Ref{Name: b.lambda(d.value, d.name)}
		case d.value != none:
			stores = b.initVar(v, base, d.value)
		}
		b.locals[d.name] = true
		b.flush(out)
		*out = append(*out, &ir.Decl{Pos: v.Pos, Var: v})
		*out = append(*out, stores...)
	}
}

// arrayInit lowers the initialiser of the one-dimensional array v when it
// is a list of scalars ({4096, 20000, N}), and reports false otherwise.
// An array declared without its outer dimension gets the length of its
// initialiser list ("int levels[] = {0, 12, 25}" has 3 elements).
func (b *builder) arrayInit(v *ir.Var, value int32) (ir.Expr, bool) {
	t := b.t
	if len(v.Type.Dims) == 0 || t.kind(value) != kInitializerList {
		return nil, false
	}
	b.sizeByInit(v, value)
	if len(v.Type.Dims) != 1 {
		return nil, false
	}
	var elems []ir.Expr
	for c := t.first(value); c != none; c = t.next(c) {
		switch {
		case !t.named(c):
		case t.kind(c) == kInitializerList || t.kind(c) == kInitializerPair:
			return nil, false
		default:
			elems = append(elems, b.expr(c))
		}
	}
	return ir.List{Elems: elems}, len(elems) > 0
}

// sizeByInit gives the array v declared without its outer dimension the
// number of elements of its initialiser list; a list with designators
// ([4] = x) leaves it unknown.
func (b *builder) sizeByInit(v *ir.Var, value int32) {
	t := b.t
	if v.Type.Dims[0] != nil {
		return
	}
	var n int64
	for c := t.first(value); c != none; c = t.next(c) {
		switch {
		case !t.named(c):
		case t.kind(c) == kInitializerPair:
			return
		default:
			n++
		}
	}
	if n > 0 {
		v.Type.Dims[0] = ir.Int{V: n}
	}
}

// initVar lowers the initialiser value of local variable v; the
// initialiser list of a structure comes back as the member stores it
// stands for, to follow the declaration.
func (b *builder) initVar(v *ir.Var, base ir.Type, value int32) ir.Block {
	t := b.t
	switch t.kind(value) {
	case kArgumentList:
		args := b.args(value)
		if isScalar(v.Type) || base.Name == "auto" {
			if len(args) == 1 {
				v.Init = args[0]
			}
			return nil
		}
		b.ctorCall(v, base, args)
	case kInitializerList:
		if names, ok := b.aggregateOf(v.Type); ok {
			v.Init = ir.Unknown{Text: t.text(value)}
			return b.memberStores(v, names, value)
		}
		if n := t.firstNamed(value); n != none && t.next(n) == none && t.kind(n) != kInitializerList && len(v.Type.Dims) == 0 {
			v.Init = b.expr(n) // int x{5}
			b.setResult(n, v.Name)
			return nil
		}
		if l, ok := b.arrayInit(v, value); ok {
			v.Init = l
			return nil
		}
		if t.firstNamed(value) != none {
			b.elements(value)
			v.Init = ir.Unknown{Text: t.text(value)}
		}
	default:
		v.Init = b.expr(value)
		b.setResult(value, v.Name)
	}
	return nil
}

// aggregateOf returns the members of typ when it is a structure or class
// without constructors defined in the file (not a pointer or an array).
func (b *builder) aggregateOf(typ ir.Type) ([]string, bool) {
	if typ.Pointer > 0 || len(typ.Dims) > 0 {
		return nil, false
	}
	names, ok := b.aggregates[typ.Name]
	if !ok {
		names, ok = b.aggregates[b.prefix+typ.Name]
	}
	return names, ok && len(names) > 0
}

// memberStores lowers the initialiser list of a structure v into the
// stores into its members it stands for (v.n = e), by position or by
// designator (.n = e). Literal zeros are left out: like the members the
// list leaves out, they only reset a member ({0} clears a structure), and
// a later store gives the member its value. Nested lists (members that
// are arrays or structures) are evaluated for their calls only.
func (b *builder) memberStores(v *ir.Var, names []string, list int32) ir.Block {
	t := b.t
	var stores ir.Block
	k := 0
	for c := t.first(list); c != none; c = t.next(c) {
		if !t.named(c) {
			continue
		}
		name, value := "", c
		if t.kind(c) == kInitializerPair {
			value = t.child(c, fValue)
			if d := t.firstNamed(c); d != none && d != value && strings.HasPrefix(t.text(d), ".") {
				name = strings.TrimSpace(strings.TrimPrefix(t.text(d), "."))
				k = slices.Index(names, name)
			}
		} else if k >= 0 && k < len(names) {
			name = names[k]
		}
		if k >= 0 {
			k++
		}
		switch {
		case value == none:
		case t.kind(value) == kInitializerList:
			b.elements(value)
		case name == "":
			b.effects(value)
		default:
			x := b.expr(value)
			if n, ok := x.(ir.Int); ok && n.V == 0 {
				continue
			}
			if f, ok := x.(ir.Float); ok && f.V == 0 {
				continue
			}
			b.flush(&stores)
			stores = append(stores, &ir.Assign{Pos: b.pos(value), Target: v.Name, Op: "=", Value: x, Partial: true, Field: name})
		}
	}
	b.flush(&stores)
	return stores
}

// ctorCall hoists the constructor call of local v and makes it v's
// initial value; it reports false when there is no call to make.
func (b *builder) ctorCall(v *ir.Var, base ir.Type, args []ir.Expr) bool {
	if base.Name == "" {
		return false
	}
	c := &ir.Call{Pos: v.Pos, Callee: base.Name, Args: args, Result: v.Name}
	b.hoist(c)
	v.Init = ir.CallExpr{Callee: c.Callee, Args: args}
	return true
}

// vexingArgs reads the "parameters" of a constructor call that
// tree-sitter parsed as a function declarator back as expressions.
func (b *builder) vexingArgs(list int32) []ir.Expr {
	if list == none {
		return nil
	}
	t := b.t
	var args []ir.Expr
	for c := t.first(list); c != none; c = t.next(c) {
		if !t.named(c) {
			continue
		}
		ty := t.child(c, fType)
		d := t.child(c, fDeclarator)
		switch {
		case ty != none && d == none &&
			(t.kind(ty) == kTypeIdentifier || t.kind(ty) == kQualifiedIdentifier):
			args = append(args, ir.Ref{Name: t.text(ty)})
		case ty != none && t.kind(ty) == kTypeIdentifier && d != none &&
			t.kind(d) == kAbstractArrayDeclarator && t.child(d, fSize) != none && t.child(d, fDeclarator) == none:
			// fs::path dir(argv[1]): an element, read as an array parameter.
			args = append(args, ir.Index{X: ir.Ref{Name: t.text(ty)}, Idx: []ir.Expr{b.expr(t.child(d, fSize))}})
		default:
			args = append(args, ir.Unknown{Text: t.text(c)})
		}
	}
	return args
}

// setResult records name as the result of the call that expression node
// value is, through parentheses and casts.
func (b *builder) setResult(value int32, name string) {
	t := b.t
	for {
		switch t.kind(value) {
		case kParenthesizedExpression:
			value = t.firstNamed(value)
			continue
		case kCastExpression:
			value = t.child(value, fValue)
			continue
		case kCallExpression, kNewExpression:
			if c := b.lastCall(); c != nil && c.Result == "" && b.lastCallNode == value {
				c.Result = name
			}
		}
		return
	}
}
