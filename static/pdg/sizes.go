package pdg

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/iolens/iolens/static/ir"
)

// basicSizes are the sizes of C and Fortran base types on LP64 systems,
// for front-ends that leave Type.Size at 0.
var basicSizes = sync.OnceValue(func() map[string]int64 {
	return map[string]int64{
		"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "_bool": 1, "int8_t": 1, "uint8_t": 1,
		"short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2,
		"int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
		"long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "double": 8,
		"size_t": 8, "ssize_t": 8, "off_t": 8, "int64_t": 8, "uint64_t": 8, "hsize_t": 8, "hid_t": 8,
		"mpi_offset": 8, "long double": 16,
		"integer": 4, "real": 4, "logical": 4, "character": 1, "complex": 8,
		"double precision": 8, "double complex": 16,
	}
})

// fortranKind matches the kind or length of a Fortran type name:
// real(8), real(kind=8), real*8, integer(int64) is not a literal kind.
var fortranKind = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\w+)\s*(?:\*\s*(\d+)|\(\s*(?:kind\s*=\s*|len\s*=\s*)?(\d+)\s*\))`)
})

// baseSize returns the size of one element of t's base type (8 for
// pointers), and false when unknown.
func baseSize(t ir.Type) (int64, bool) {
	if t.Pointer > 0 {
		return 8, true
	}
	if t.Size > 0 {
		return t.Size, true
	}
	n := strings.ToLower(strings.TrimSpace(t.Name))
	n = strings.TrimPrefix(strings.TrimPrefix(n, "const "), "static ")
	if s, ok := basicSizes()[n]; ok {
		return s, true
	}
	if m := fortranKind().FindStringSubmatch(n); m != nil {
		k, _ := strconv.ParseInt(m[2]+m[3], 10, 64)
		if m[1] == "complex" {
			k *= 2 // complex(8) is two real(8)
		}
		return k, k > 0
	}
	return 0, false
}

// extent evaluates one array dimension: an extent n, or a Fortran bound
// pair lo:hi written as Binary{":", lo, hi}.
func (e *Env) extent(d ir.Expr) (int64, bool) {
	if b, ok := d.(ir.Binary); ok && b.Op == ":" {
		lo, lok := e.eval(b.L, 0).Int()
		hi, hok := e.eval(b.R, 0).Int()
		return max(hi-lo+1, 0), lok && hok
	}
	return e.eval(d, 0).Int()
}

// count returns the number of elements of dims (1 for a scalar).
func (e *Env) count(dims []ir.Expr) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		if d == nil {
			return 0, false
		}
		k, ok := e.extent(d)
		if !ok {
			return 0, false
		}
		n *= k
	}
	return n, true
}

// typeSize returns the size of a whole object of type t: the base size
// times the array dimensions.
func (e *Env) typeSize(t ir.Type) (int64, bool) {
	b, ok := e.elemSize(t)
	if !ok {
		return 0, false
	}
	if t.Pointer > 0 {
		return b, true
	}
	n, ok := e.count(t.Dims)
	return b * n, ok
}

// varElems returns the number of elements of the variable name: its
// declared dimensions, or the extent it was allocated with.
func (e *Env) varElems(name string) (int64, bool) {
	if n, ok := e.elems.m[name]; ok {
		return n, true
	}
	v := e.Var(name)
	if v == nil || v.Type.Pointer > 0 && len(v.Type.Dims) == 0 {
		return 0, false
	}
	return e.count(v.Type.Dims)
}

// varSize returns the size in bytes of the variable name (a whole array).
func (e *Env) varSize(name string) (int64, bool) {
	v := e.Var(name)
	if v == nil {
		return 0, false
	}
	if n, ok := e.elems.m[name]; ok {
		t := v.Type
		t.Pointer = 0
		b, ok := e.elemSize(t)
		return b * n, ok
	}
	return e.typeSize(v.Type)
}

// exprSize returns sizeof of an expression: a variable, an element or
// sub-array of one (a[i] of double a[N][M] is M*8), a string literal (with
// its terminating NUL), or a dereferenced pointer.
func (e *Env) exprSize(x ir.Expr) (int64, bool) {
	switch x := x.(type) {
	case ir.Ref:
		v := e.Var(x.Name)
		if v == nil {
			return 0, false
		}
		return e.typeSize(v.Type)
	case ir.Str:
		return int64(len(x.V)) + 1, true
	case ir.Index:
		r, ok := x.X.(ir.Ref)
		v := e.Var(r.Name)
		if !ok || v == nil {
			return 0, false
		}
		t := v.Type
		switch {
		case len(t.Dims) >= len(x.Idx):
			t.Dims = t.Dims[len(x.Idx):]
		case t.Pointer > 0:
			t.Pointer--
		}
		return e.typeSize(t)
	case ir.Unary:
		if _, ok := x.X.(ir.Ref); ok && x.Op == "*" {
			return e.exprSize(ir.Index{X: x.X, Idx: []ir.Expr{ir.Int{}}}) // *a is a[0]
		}
	case ir.Field:
		if m := e.member(x); m != nil {
			return e.typeSize(m.Type)
		}
	case ir.Int:
		return 4, true
	case ir.Float:
		return 8, true
	}
	return 0, false
}

// bufferSize returns the size of a buffer argument when it designates a
// whole array: a, &a, (void *)a, a(:) or the allocated extent of a.
func (e *Env) bufferSize(x ir.Expr) (int64, bool) {
	for {
		switch y := x.(type) {
		case ir.Cast:
			x = y.X
			continue
		case ir.Unary:
			if y.Op == "&" {
				x = y.X
				continue
			}
		}
		break
	}
	if r, ok := x.(ir.Ref); ok {
		if v := e.Var(r.Name); v != nil && (len(v.Type.Dims) > 0 || e.elems.m[r.Name] > 0) {
			return e.varSize(r.Name)
		}
	}
	return 0, false
}

// addAllocatedShape adds to shapes (made when nil) the extents of name
// when allocatedShape knows them, and returns it.
func (e *Env) addAllocatedShape(shapes map[string]shape, name string) map[string]shape {
	if s, ok := e.allocatedShape(name); ok {
		if shapes == nil {
			shapes = map[string]shape{}
		}
		shapes[name] = s
	}
	return shapes
}

// allocatedShape returns the extents of the array name when the walk
// gave it extents (an allocation, a resize, a binding), not when they
// come from its declared type alone.
func (e *Env) allocatedShape(name string) (shape, bool) {
	_, shaped := e.shapes.m[name]
	_, counted := e.elems.m[name]
	if !shaped && !counted {
		return shape{}, false
	}
	return e.shapeOf(name)
}

// shapeOf returns the extents of the array or container name: those
// recorded at run (ALLOCATE, a container's construction or resize, an
// array argument), its declared extents when they evaluate, or the
// element count of a one-dimensional allocation.
func (e *Env) shapeOf(name string) (shape, bool) {
	if s, ok := e.shapes.m[name]; ok {
		return s, true
	}
	v := e.Var(name)
	if v == nil {
		return shape{}, false
	}
	if len(v.Type.Dims) > 0 && v.Type.Pointer == 0 {
		s := shape{dims: make([]int64, len(v.Type.Dims))}
		ok := true
		for k, d := range v.Type.Dims {
			x := e.extentValue(d)
			n, known := x.Int()
			if d == nil || !known || n < 0 {
				ok = false
				break
			}
			s.dims[k] = n
			s.origin = max(s.origin, x.Origin)
		}
		if ok {
			return s, true
		}
	}
	if n, ok := e.arrayTypeExtent(v.Type.Name); ok && len(v.Type.Dims) == 0 {
		return shape{dims: []int64{n.I}, origin: n.Origin}, true // a global std::array
	}
	if n, ok := e.elems.m[name]; ok {
		if len(v.Type.Dims) <= 1 {
			return shape{dims: []int64{n}, origin: Propagated}, true
		}
		if rows, ok := e.rowDims(v.Type); ok && v.Type.Pointer == 0 {
			return shape{dims: append([]int64{n}, rows...), origin: Propagated}, true
		}
	}
	return shape{}, false
}

// rowDims returns the known inner extents of an array of unknown outer
// extent (char (*rows)[96], int a[][4]).
func (e *Env) rowDims(t ir.Type) ([]int64, bool) {
	if len(t.Dims) < 2 || t.Dims[0] != nil {
		return nil, false
	}
	dims := make([]int64, 0, len(t.Dims)-1)
	for _, d := range t.Dims[1:] {
		n, ok := e.extentValue(d).Int()
		if d == nil || !ok || n <= 0 {
			return nil, false
		}
		dims = append(dims, n)
	}
	return dims, true
}

// pointeeSize returns the bytes of one element a pointer of type t
// steps over: the pointed-to type's, or one row of an array of unknown
// outer extent.
func (e *Env) pointeeSize(t ir.Type) (int64, bool) {
	if t.Pointer > 0 {
		t.Pointer--
		return baseSize(t)
	}
	rows, ok := e.rowDims(t)
	if !ok {
		return 0, false
	}
	s, ok := baseSize(t)
	for _, n := range rows {
		s *= n
	}
	return s, ok
}

// extentValue evaluates one declared dimension (see extent) with the
// origin of its value.
func (e *Env) extentValue(d ir.Expr) Value {
	if d == nil {
		return Value{}
	}
	if b, ok := d.(ir.Binary); ok && b.Op == ":" {
		n := binary("+", binary("-", e.eval(b.R, 0), e.eval(b.L, 0)), IntValue(1, Literal))
		if i, ok := n.Int(); ok && i < 0 {
			return IntValue(0, n.Origin)
		}
		return n
	}
	return e.eval(d, 0)
}

// lowerBound returns the lower bound of dimension k of the Fortran array
// name: that of a declared "lo:hi" dimension, which the front-end writes
// as the extent (hi - lo) + 1, else 1 (assumed-shape dummies, allocated
// arrays, and bounds folded into literal extents, whose lower bound the
// IR no longer has).
func (e *Env) lowerBound(name string, k int) Value {
	one := IntValue(1, Literal)
	if _, run := e.shapes.m[name]; run {
		return one
	}
	v := e.Var(name)
	if v == nil || k >= len(v.Type.Dims) {
		return one
	}
	switch d := v.Type.Dims[k].(type) {
	case ir.Binary:
		if d.Op == ":" {
			return e.eval(d.L, 0)
		}
		if inner, ok := d.L.(ir.Binary); ok && d.Op == "+" && inner.Op == "-" {
			if r, ok := d.R.(ir.Int); ok && r.V == 1 {
				return e.eval(inner.R, 0)
			}
		}
	}
	return one
}

// arrayInquiry evaluates the Fortran intrinsics SIZE(a), SIZE(a, k),
// LBOUND(a, k) and UBOUND(a, k) of an array whose extents are known. ok
// is false when x is not one of them.
func (e *Env) arrayInquiry(x ir.CallExpr, depth int) (v Value, ok bool) {
	name := strings.ToLower(x.Callee)
	if name != "size" && name != "lbound" && name != "ubound" || len(x.Args) == 0 || len(x.Args) > 3 {
		return Value{}, false
	}
	r, isRef := x.Args[0].(ir.Ref)
	if !isRef {
		return Value{}, true
	}
	s, known := e.shapeOf(r.Name)
	if !known {
		return Value{}, true
	}
	if len(x.Args) == 1 {
		if name == "size" {
			return IntValue(s.count(), s.origin), true
		}
		if len(s.dims) != 1 {
			return Value{}, true // the bounds of every dimension: an array
		}
	}
	dim := IntValue(1, Literal)
	if len(x.Args) > 1 {
		dim = e.eval(x.Args[1], depth)
	}
	k, known := dim.Int()
	if !known || k < 1 || int(k) > len(s.dims) {
		return Value{}, true
	}
	extent := IntValue(s.dims[k-1], max(s.origin, dim.Origin))
	switch name {
	case "size":
		return extent, true
	case "lbound":
		return e.lowerBound(r.Name, int(k-1)), true
	}
	return binary("-", binary("+", e.lowerBound(r.Name, int(k-1)), extent), IntValue(1, Literal)), true
}

// member returns the declaration of the member of a C or C++ structure x
// designates (s.f, p->f, a[i].f, s.in.f), or nil when the structure's
// type is not one the program defines.
func (e *Env) member(x ir.Field) *ir.Var {
	t, ok := e.ownerType(x.X)
	if !ok {
		return nil
	}
	name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t.Name), "const "))
	for _, m := range e.shared.structs[name] {
		if m.Name == x.Name {
			return m
		}
	}
	return nil
}

// ownerType returns the type of the structure an expression designates,
// through pointers and subscripts.
func (e *Env) ownerType(x ir.Expr) (ir.Type, bool) {
	switch x := x.(type) {
	case ir.Ref:
		if v := e.Var(x.Name); v != nil {
			return v.Type, true
		}
	case ir.Index:
		return e.ownerType(x.X)
	case ir.Unary:
		if x.Op == "*" {
			return e.ownerType(x.X)
		}
	case ir.Field:
		if m := e.member(x); m != nil {
			return m.Type, true
		}
	}
	return ir.Type{}, false
}
