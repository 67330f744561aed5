package pdg

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// fortranIO adds the I/O node of a Fortran I/O statement. Transfers on an
// internal file (a character variable) are not I/O: a READ from one
// assigns the values it parses, which is how READ(arg, *) n turns a
// command argument into a number.
func (w *walker) fortranIO(s *ir.FortranIO, parent *Node) {
	if w.internalFile(s) {
		w.internalIO(s, parent)
		return
	}
	sem, ok := iosem.Statement(s)
	if !ok {
		return
	}
	io := &IO{Sem: sem, Routine: sem.Routine, Binary: sem.Binary(), Async: sem.Async,
		Random: sem.ExplicitOffset && !(w.inOrder(s.Specs["rec"]) && !w.turnsAround(s))}
	switch {
	case sem.Op == iosem.Open:
		io.File = w.fortranOpen(s)
	case sem.File.Kind == iosem.Stdout:
		io.File = w.b.stdout
	case sem.File.Kind == iosem.Stdin:
		io.File = w.b.stdin
	default:
		io.File = w.unitHandle(s.Unit)
	}
	if sem.Op.IsData() {
		io.Bytes, io.Items, io.BytesKnown = w.items(s.Items, sem.Formatted)
		if !sem.Formatted {
			io.Elementwise = w.elementwise(s.Items)
		} else if ops, ok := w.textOps(s.Items, sem.Op == iosem.Read, w.realEdit(s)); ok {
			io.FormatOps = ops
		}
		if !io.BytesKnown && sem.Op == iosem.Read && !sem.Formatted {
			io.Bytes, io.BytesKnown = w.restOfFile(io.File)
		}
		if sem.Op == iosem.Read {
			for _, it := range s.Items {
				w.env.Kill(baseName(it))
			}
			if !sem.ExplicitOffset && io.File != nil && io.File.Kind == FileHandle {
				if _, nml := s.Specs["nml"]; !nml {
					w.recordRead(s, io.File)
				}
			}
		}
	}
	if sem.Op == iosem.Write {
		io.Records = 1
	}
	w.fortranSettings(s, sem, io.File)
	if s.Op == "inquire" {
		w.inquireSize(s)
		w.inquireLength(s)
	}
	w.addIO(parent, &Node{Kind: IONode, Name: sem.Routine, Pos: s.Pos, IO: io, Taken: -1})
}

// inquireLength gives the IOLENGTH= variable of an INQUIRE the bytes an
// unformatted transfer of its items moves: the record length that
// gfortran, whose RECL unit is the byte, needs for them.
func (w *walker) inquireLength(s *ir.FortranIO) {
	v, ok := s.Specs["iolength"]
	if !ok {
		return
	}
	if bytes, _, known := w.items(s.Items, false); known {
		w.env.Set(baseName(v), IntValue(bytes, Propagated))
	}
}

// realEdit returns how the format of a formatted transfer, when its
// value is known, edits reals.
func (w *walker) realEdit(s *ir.FortranIO) iosem.RealEdit {
	if f := Eval(s.Specs["fmt"], w.env); f.Kind == Str {
		return iosem.RealEditOf(f.S)
	}
	return iosem.RealEditAny
}

// internalFile reports whether a READ or WRITE works on a character
// variable rather than on a unit.
func (w *walker) internalFile(s *ir.FortranIO) bool {
	if s.Op != "read" && s.Op != "write" || s.Unit == nil {
		return false
	}
	if _, isStr := s.Unit.(ir.Str); isStr {
		return false
	}
	v := w.env.Var(baseName(s.Unit))
	return v != nil && strings.HasPrefix(strings.ToLower(v.Type.Name), "char")
}

// internalIO parses the value of the character variable into the items of
// an internal READ, and forgets the variable an internal WRITE changes.
// The statement costs what an external one costs the runtime, as compute.
func (w *walker) internalIO(s *ir.FortranIO, parent *Node) {
	conv, ok := w.textOps(s.Items, s.Op == "read", w.realEdit(s))
	if !ok {
		conv = float64(max(len(s.Items), 1)) * iosem.FormatOpsPerItem
	}
	parent.Work += iosem.FortranStatementOps + conv
	src := Eval(s.Unit, w.env)
	if s.Op == "write" {
		w.internalName(s)
		return
	}
	if src.Kind != Str {
		for _, it := range s.Items {
			w.env.Kill(baseName(it))
		}
		return
	}
	fields := strings.FieldsFunc(src.S, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	for i, it := range s.Items {
		r, ok := it.(ir.Ref)
		if !ok {
			continue
		}
		var v Value
		if i < len(fields) {
			v = numberValue(fields[i], src.Origin)
		}
		w.env.Set(r.Name, v)
	}
}

// fortranOpen handles OPEN: a handle with the file name, form, access and
// action, registered under its unit number (or bound to the NEWUNIT=
// variable).
func (w *walker) fortranOpen(s *ir.FortranIO) *Handle {
	h := w.newHandle(FileHandle, iosem.Fortran, s.Pos)
	if f, ok := s.Specs["file"]; ok {
		v := Eval(f, w.env)
		v.S = strings.TrimSpace(v.S)
		h.setName(v, f)
	}
	access := iosem.SpecString(s, "access")
	form := iosem.SpecString(s, "form")
	h.Direct = access == "direct"
	h.StreamAccess = access == "stream"
	h.Unformatted = form == "unformatted" || form == "" && (h.Direct || h.StreamAccess)
	h.Async = iosem.SpecString(s, "asynchronous") == "yes"
	h.Mode = iosem.ModeFromString(iosem.SpecString(s, "action"), iosem.ModeReadWrite)
	switch iosem.SpecString(s, "status") {
	case "new", "replace":
		h.Mode |= iosem.ModeCreate | iosem.ModeWrite
	case "scratch":
		h.Name = "<scratch>"
	}
	w.recordsCreated(h, s)
	if nu, ok := s.Specs["newunit"]; ok {
		v := Value{Kind: HandleVal, H: h}
		w.env.Set(baseName(nu), v)
		if isIndex(nu) {
			w.elementFile(nu, v)
		}
		return h
	}
	unit := s.Unit
	if unit == nil {
		unit = s.Specs["unit"]
	}
	if h.Name == "" && h.NameVar == "" {
		if n, ok := Eval(unit, w.env).Int(); ok {
			h.Name = fmt.Sprintf("fort.%d", n)
		}
	}
	if key := w.unitKey(unit); key != "" {
		w.b.units[key] = h
	}
	return h
}

// unitKey returns the key of a unit expression: its number, or the
// variable holding an unknown number.
func (w *walker) unitKey(x ir.Expr) string {
	if x == nil {
		return ""
	}
	if n, ok := Eval(x, w.env).Int(); ok {
		return unitKey(n)
	}
	if name := baseName(x); name != "" {
		return "var:" + name
	}
	return ""
}

// unitHandle returns the file a unit expression designates: an opened
// unit, a NEWUNIT= variable, standard input or output, or the implicit
// file fort.N of a unit never opened.
func (w *walker) unitHandle(x ir.Expr) *Handle {
	if x == nil {
		return w.b.stdout
	}
	if s, ok := x.(ir.Str); ok && s.V == "*" {
		return w.b.stdout
	}
	v := Eval(x, w.env)
	if v.Kind == HandleVal {
		return v.H
	}
	key := w.unitKey(x)
	if h := w.b.units[key]; h != nil {
		return h
	}
	n, ok := v.Int()
	if !ok {
		return nil
	}
	if k, std := iosem.FortranStdUnit(n); std {
		if k == iosem.Stdin {
			return w.b.stdin
		}
		return w.b.stdout
	}
	h := w.newHandle(FileHandle, iosem.Fortran, ir.Pos{})
	h.Name = fmt.Sprintf("fort.%d", n)
	h.Mode = iosem.ModeReadWrite
	w.b.units[key] = h
	return h
}

// items returns the bytes and the number of data items of a transfer list:
// binary bytes, or for formatted transfers the estimated text
// (iosem.TextWidth per item). known is false when an item's size is
// unknown (an array of unknown extent); the others still count.
func (w *walker) items(list []ir.Expr, formatted bool) (bytes, count int64, known bool) {
	known = true
	for _, x := range list {
		b, n, ok := w.itemBytes(x, formatted)
		if !ok {
			known = false
			continue
		}
		bytes += b
		count += n
	}
	return bytes, count, known
}

func (w *walker) itemBytes(x ir.Expr, formatted bool) (bytes, n int64, ok bool) {
	if d, isDo := x.(ir.ImpliedDo); isDo {
		trip, tok := w.impliedTrip(d)
		inner, k, iok := w.items(d.Items, formatted)
		return trip * inner, trip * k, tok && iok
	}
	bytes, n, _, ok = w.item(x, formatted)
	return bytes, n, ok
}

// impliedTrip returns the trip count of an implied DO list, when known.
func (w *walker) impliedTrip(d ir.ImpliedDo) (int64, bool) {
	step := IntValue(1, Literal)
	if d.Step != nil {
		step = Eval(d.Step, w.env)
	}
	trip, _, ok := counted(Eval(d.Lo, w.env), Eval(d.Hi, w.env), step, true)
	return trip, ok
}

// item returns the size of one transfer item (a variable, a whole array,
// an element, an array section, a derived-type value or component, a
// literal or an expression) in binary bytes or, when formatted, in
// estimated characters.
func (w *walker) item(x ir.Expr, formatted bool) (bytes, n int64, typeName string, ok bool) {
	elem := int64(8)
	typeName = "real"
	n = 1
	switch x := x.(type) {
	case ir.Str:
		return int64(len(x.V)), 1, "character", true
	case ir.Int:
		if x.Char {
			return 1, 1, "char", true
		}
		elem, typeName = 4, "integer"
	case ir.Cond:
		// c ? 'x' : 'y', c ? "a" : "bc": the longer side when both have
		// one type.
		tb, tn, tt, tok := w.item(x.T, formatted)
		fb, fn, ft, fok := w.item(x.F, formatted)
		if tok && fok && tt == ft && tn == fn {
			return max(tb, fb), tn, tt, true
		}
	case ir.CallExpr:
		// real(conc(:, :, k), sp): the elements of the array converted.
		if !w.fortran() || !elementalIntrinsics[strings.ToLower(x.Callee)] || len(x.Args) == 0 {
			break
		}
		ab, an, at, aok := w.item(x.Args[0], formatted)
		if !aok || an < 1 {
			break
		}
		elem, typeName = ab/an, at
		if k, ok := convertedKind(x, w.env); ok {
			elem, typeName = k.size, k.name
		}
		n = an
	case ir.Ref, ir.Field, ir.Index:
		v := w.designated(x)
		if v == nil {
			break
		}
		if _, isIndex := x.(ir.Index); formatted && !isIndex && isText(v.Type) {
			// A C or C++ string inserted whole: its text, when known.
			if t := Eval(x, w.env); t.Kind == Str {
				return int64(len(t.S)), 1, "string", true
			}
			return iosem.StrWidth, 1, "string", true
		}
		if n, ok = w.designatedElems(x, v); !ok {
			return 0, 0, v.Type.Name, false
		}
		if e, ok := containerElem(v.Type); ok && isIndex(x) {
			if formatted && isText(e) { // code[s] of a std::array<const char *, N>
				return iosem.StrWidth, 1, "string", true
			}
			return w.elements(e, n, formatted) // dose[p] of a std::array
		}
		return w.elements(v.Type, n, formatted)
	}
	if formatted {
		return n * iosem.TextWidth(typeName, elem), n, typeName, true
	}
	return n * elem, n, typeName, true
}

// textOps returns the cost of converting the items of a formatted
// transfer, by their types and how its format edits reals
// (iosem.FortranItemOps), when all are known.
func (w *walker) textOps(list []ir.Expr, read bool, edit iosem.RealEdit) (float64, bool) {
	var ops float64
	for _, x := range list {
		if d, isDo := x.(ir.ImpliedDo); isDo {
			trip, tok := w.impliedTrip(d)
			inner, iok := w.textOps(d.Items, read, edit)
			if !tok || !iok {
				return 0, false
			}
			ops += float64(trip) * inner
			continue
		}
		_, n, typeName, ok := w.item(x, true)
		if !ok {
			return 0, false
		}
		ops += float64(n) * iosem.FortranItemOps(typeName, read, edit)
	}
	return ops, len(list) > 0
}

// elementwise returns the elements of the items of an unformatted
// transfer that gfortran moves one runtime call each, 20 ns or so apiece
// against 2 or 3 for adjacent ones: the elements of an array expression
// (the compiler loops over it, calling the runtime per element) and of a
// section whose elements are not adjacent (the runtime copies them one
// by one). Implied DO lists are left out: gfortran turns simple ones
// into array transfers.
func (w *walker) elementwise(list []ir.Expr) int64 {
	var n int64
	for _, x := range list {
		switch x := x.(type) {
		case ir.CallExpr:
			if _, elems, _, ok := w.item(x, false); ok && elems > 1 {
				n += elems
			}
		case ir.Index:
			v := w.designated(x)
			if v == nil || !scattered(x) {
				continue
			}
			if elems, ok := w.section(x, v); ok && elems > 1 {
				n += elems
			}
		}
	}
	return n
}

// scattered reports whether the section x selects elements that are not
// adjacent in column-major memory: a range after a single subscript (a
// row, a(i, :)), or a subscript triplet with a stride (a(1:n:2)).
func scattered(x ir.Index) bool {
	single := false
	for _, idx := range x.Idx {
		if u, ok := idx.(ir.Unknown); ok && strings.Count(u.Text, ":") > 1 {
			return true // lo:hi:stride
		}
		r := ranged(idx)
		if r && single {
			return true
		}
		single = single || !r
	}
	return false
}

// kindOf is the type of the elements a conversion makes.
type kindOf struct {
	name string
	size int64
}

// convertedKind returns the type of the values the conversion intrinsic
// c makes: real(x [, kind]) and float(x) reals of 4 bytes or of the kind
// given, dble(x) of 8, int(x [, kind]) and nint(x [, kind]) integers of 4
// or of the kind given. It reports false for the other intrinsics, whose
// result has the type of their argument.
func convertedKind(c ir.CallExpr, env *Env) (kindOf, bool) {
	k := kindOf{"real", 4}
	switch strings.ToLower(c.Callee) {
	case "real", "float", "sngl":
	case "dble":
		return kindOf{"real", 8}, true
	case "int", "nint":
		k.name = "integer"
	default:
		return kindOf{}, false
	}
	if len(c.Args) > 1 {
		if v, ok := Eval(c.Args[1], env).Int(); ok && (v == 4 || v == 8) {
			k.size = v
		}
	}
	return k, true
}

// designated returns the declaration of the variable or derived-type
// component a designator names: a of a, a(i) and a(1:n); c of r%c and
// r%c(i); nil for anything else.
func (w *walker) designated(x ir.Expr) *ir.Var {
	switch x := x.(type) {
	case ir.Ref:
		return w.env.Var(x.Name)
	case ir.Field:
		return w.env.component(x)
	case ir.Index:
		switch y := x.X.(type) {
		case ir.Ref:
			return w.env.Var(y.Name)
		case ir.Field:
			return w.env.component(y)
		}
	}
	return nil
}

// designatedElems returns the number of elements the designator x of the
// declaration v selects: all of a whole array (as declared or allocated),
// those of a section, 1 for an element.
func (w *walker) designatedElems(x ir.Expr, v *ir.Var) (int64, bool) {
	switch x := x.(type) {
	case ir.Ref:
		return w.env.varElems(x.Name)
	case ir.Field:
		return w.env.count(v.Type.Dims)
	case ir.Index:
		return w.section(x, v)
	}
	return 0, false
}

// elements returns the size of n elements of type t in a transfer (see
// item), with t's name.
func (w *walker) elements(t ir.Type, n int64, formatted bool) (bytes, count int64, typeName string, ok bool) {
	t.Pointer, t.Dims = 0, nil
	if d := derivedName(t); d != "" {
		size, items, ok := w.env.derivedTransfer(d, formatted, 0)
		return n * size, n * items, t.Name, ok
	}
	elem, ok := baseSize(t)
	if !ok {
		return 0, 0, t.Name, false
	}
	if formatted {
		return n * iosem.TextWidth(t.Name, elem), n, t.Name, true
	}
	return n * elem, n, t.Name, true
}

// section returns the number of elements an index expression selects: 1
// for an element, the product of the extents of the sections. A section
// is Binary{":", lo, hi} (nil bounds for omitted ones), or the Unknown
// the Fortran front-end keeps for a subscript triplet: a bare ":" selects
// the whole dimension; other triplets have an unknown extent.
func (w *walker) section(x ir.Index, v *ir.Var) (int64, bool) {
	n := int64(1)
	for k, idx := range x.Idx {
		var lo, hi ir.Expr
		switch i := idx.(type) {
		case ir.Binary:
			if i.Op != ":" {
				continue
			}
			lo, hi = i.L, i.R
		case ir.Unknown:
			if !strings.Contains(i.Text, ":") {
				continue
			}
			if strings.TrimSpace(i.Text) != ":" {
				return 0, false
			}
		default:
			continue
		}
		e, ok := w.sectionExtent(lo, hi, k, x, v)
		if !ok {
			return 0, false
		}
		n *= e
	}
	return n, true
}

// sectionElems returns the elements an array-section assignment computes
// ("c(:, j) = c(:, j) - a(:, k) * b(j, k)"): those of the first section
// or whole array of known size its value refers to, the variables of the
// counted loops around at their mean values ("a(j:nb, j)" in "do j = 1,
// nb"), else 1 (an element assignment, or sections of unknown size).
func (w *walker) sectionElems(x ir.Expr) int64 {
	saved := w.env
	w.env = w.meanEnv(x)
	defer func() { w.env = saved }()
	n := int64(1)
	var visit func(y ir.Expr) bool
	visit = func(y ir.Expr) bool {
		switch y := y.(type) {
		case ir.CallExpr:
			if _, scalar := reductionCosts()[strings.ToLower(y.Callee)]; scalar || inquiries[strings.ToLower(y.Callee)] {
				return false // sum(t(k, :)) and size(t) are one value
			}
			return slices.ContainsFunc(y.Args, visit)
		case ir.Binary:
			return visit(y.L) || visit(y.R)
		case ir.Unary:
			return visit(y.X)
		case ir.Cast:
			return visit(y.X)
		case ir.Cond:
			return visit(y.C) || visit(y.T) || visit(y.F)
		case ir.Ref: // a whole array
			if v := w.env.Var(y.Name); v != nil && (len(v.Type.Dims) > 0 || w.env.elems.m[y.Name] > 0) {
				if k, ok := w.env.varElems(y.Name); ok && k > 0 {
					n = k
					return true
				}
			}
		case ir.Index:
			r, isRef := y.X.(ir.Ref)
			if !isSection(y) || !isRef {
				return false
			}
			if v := w.env.Var(r.Name); v != nil {
				if k, ok := w.section(y, v); ok && k > 0 {
					n = k
					return true
				}
			}
		}
		return false
	}
	visit(x)
	return n
}

// inquiries are the Fortran intrinsics that return a property of an array
// argument, not its elements.
var inquiries = map[string]bool{
	"size": true, "shape": true, "lbound": true, "ubound": true, "allocated": true, "present": true,
	"kind": true, "len": true, "len_trim": true, "associated": true, "rank": true, "storage_size": true,
}

// isSection reports whether an index expression selects a section: one
// of its subscripts is a range or a triplet.
func isSection(x ir.Index) bool { return slices.ContainsFunc(x.Idx, ranged) }

// ranged reports whether a subscript is a range or a triplet (lo:hi,
// lo:hi:stride, :), not a single index.
func ranged(idx ir.Expr) bool {
	switch i := idx.(type) {
	case ir.Binary:
		return i.Op == ":"
	case ir.Unknown:
		return strings.Contains(i.Text, ":")
	}
	return false
}

// sectionExtent returns the extent lo:hi of dimension k, an omitted bound
// being the dimension's own (its declared extent, or the allocated extent
// of a one-dimensional array).
func (w *walker) sectionExtent(lo, hi ir.Expr, k int, x ir.Index, v *ir.Var) (int64, bool) {
	if lo == nil {
		lo = ir.Int{V: 1}
	}
	if hi == nil {
		sh, shaped := w.env.shapeOf(v.Name)
		switch {
		case k < len(v.Type.Dims) && v.Type.Dims[k] != nil:
			hi = v.Type.Dims[k]
		case len(x.Idx) == 1 && w.env.elems.m[v.Name] > 0:
			hi = ir.Int{V: w.env.elems.m[v.Name]}
		case shaped && k < len(sh.dims) && sh.dims[k] > 0:
			hi = ir.Int{V: sh.dims[k]} // an allocatable's allocated extent
		default:
			return 0, false
		}
	}
	return w.env.extent(ir.Binary{Op: ":", L: lo, R: hi})
}

// inOrder reports whether the record number rec of a direct-access
// transfer steps through the records in order: it is the variable of the
// innermost loop around, counted by 1, plus what does not change in that
// loop (read(u, rec=k) in do k = 1, n; write(u, rec=24*(d-1) + h) in
// do h = 1, 24). The runtime's buffer serves such reads and collects such
// writes, seeking only where the order jumps.
func (w *walker) inOrder(rec ir.Expr) bool {
	if len(w.trips) == 0 {
		return false
	}
	t := w.trips[len(w.trips)-1]
	if !steppedBy(rec, t.v) {
		return false
	}
	if t.step == nil {
		return true
	}
	step, known := Eval(t.step, w.env).Int()
	return known && step == 1
}

// turnsAround reports whether the innermost loop around the data transfer
// s also transfers the other way on its unit (read(u, rec=j) r, then
// write(u, rec=j) r): the runtime then seeks and reaches the kernel for
// each record, in order or not (5.5 µs a pair of 4 KiB records here,
// against 1.1 µs a record written in order).
func (w *walker) turnsAround(s *ir.FortranIO) bool {
	if len(w.trips) == 0 {
		return false
	}
	other := map[string]string{"read": "write", "write": "read"}[s.Op]
	found := false
	visitStmts(w.trips[len(w.trips)-1].body, func(st ir.Stmt) {
		if t, ok := st.(*ir.FortranIO); ok && t.Op == other && reflect.DeepEqual(t.Unit, s.Unit) {
			found = true
		}
	})
	return found
}

// steppedBy reports whether x is the variable v, or v plus terms that do
// not mention it.
func steppedBy(x ir.Expr, v string) bool {
	switch x := x.(type) {
	case ir.Ref:
		return x.Name == v
	case ir.Binary:
		switch x.Op {
		case "+":
			return steppedBy(x.L, v) && !mentions(x.R, v) || steppedBy(x.R, v) && !mentions(x.L, v)
		case "-":
			return steppedBy(x.L, v) && !mentions(x.R, v)
		}
	}
	return false
}
