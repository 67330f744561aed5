package pdg

import (
	"slices"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// streamCall handles a member call or an insertion/extraction operator on
// a C++ file stream, and reports false when c is not one.
func (w *walker) streamCall(c *ir.Call, parent *Node) bool {
	if w.lineExtraction(c) {
		return w.freeStreamCall(c, parent)
	}
	s, ok := iosem.Method(c.Callee)
	if !ok {
		return false
	}
	recv, args := c.Receiver, c.Args
	if recv == nil {
		if s.Size.Kind != iosem.Items || len(args) == 0 {
			return false
		}
		recv, args = args[0], args[1:]
	}
	h, ok := w.streamOf(recv)
	if !ok {
		return false
	}
	io := w.decorate(c, args, s, h)
	if s.Op == iosem.Open && io.File != nil {
		io.File.Interface = iosem.Stream
		if def, ok := w.streamMode(recv); ok {
			io.File.Mode = w.streamOpenMode(def, args)
		}
		v := Value{Kind: HandleVal, H: io.File}
		w.env.Set(baseName(recv), v)
		if isIndex(recv) {
			w.elementFile(recv, v) // logs[m].open(...)
		}
	}
	w.addIO(parent, &Node{Kind: IONode, Name: c.Callee, Pos: c.Pos, IO: io, Taken: -1})
	w.sizeQuery(&ir.Call{Pos: c.Pos, Callee: c.Callee, Args: args, Result: c.Result}, s, io.File)
	if s.Op == iosem.Write && hasFlushManipulator(args) {
		fs, _ := iosem.Method("flush")
		fs.Routine = "std::endl"
		flush := &IO{Sem: fs, Routine: "std::endl", File: h, Flushes: true}
		parent.Children = append(parent.Children, &Node{Kind: IONode, Name: "std::endl", Pos: c.Pos, IO: flush, Taken: -1})
	}
	return true
}

// lineExtraction reports whether c is C++'s free std::getline(stream,
// string[, delimiter]), not POSIX getline(&line, &n, file): spelt with
// std::, or in C++ without it and without the address of a buffer first.
func (w *walker) lineExtraction(c *ir.Call) bool {
	if c.Receiver != nil || len(c.Args) < 2 {
		return false
	}
	switch c.Callee {
	case "std::getline", "::std::getline":
		return true
	case "getline":
		u, addressed := c.Args[0].(ir.Unary)
		return w.d.file.Lang == ir.CPP && !(addressed && u.Op == "&")
	}
	return false
}

// freeStreamCall handles std::getline: a line read from a file stream, or
// compute when the stream is a string stream or is not known to be a file
// stream.
func (w *walker) freeStreamCall(c *ir.Call, parent *Node) bool {
	s, _ := iosem.Method("getline")
	s.Routine = "std::getline"
	h, ok := w.streamOf(c.Args[0])
	if !ok {
		w.unknownCall(c, parent)
		return true
	}
	io := w.decorate(c, c.Args[1:], s, h)
	w.addIO(parent, &Node{Kind: IONode, Name: c.Callee, Pos: c.Pos, IO: io, Taken: -1})
	return true
}

// streamMode returns the access mode of the stream variable x by its
// type, or of the element x of a container of streams
// (std::vector<std::ofstream> logs; logs[m]).
func (w *walker) streamMode(x ir.Expr) (iosem.Mode, bool) {
	v := w.env.Var(baseName(x))
	if v == nil {
		return 0, false
	}
	if e, ok := containerElem(v.Type); ok && isIndex(x) {
		return iosem.StreamType(e.Name)
	}
	return iosem.StreamType(v.Type.Name)
}

// streamOpenMode returns the mode of a stream of a type allowing def
// opened with args (the file name, then the mode flags if given).
func (w *walker) streamOpenMode(def iosem.Mode, args []ir.Expr) iosem.Mode {
	if len(args) < 2 {
		return iosem.StreamOpenMode(def, 0, false)
	}
	return iosem.StreamOpenMode(def, w.openMode(args[1], 0), true)
}

// streamOf returns the handle of a stream expression: std::cout, a stream
// variable (nil handle when it was not traced, e.g. a parameter), or the
// result of a chained insertion (out << a << b).
func (w *walker) streamOf(x ir.Expr) (*Handle, bool) {
	switch x := x.(type) {
	case ir.Ref:
		if k, ok := iosem.StandardStream(x.Name); ok {
			if k == iosem.Stdin {
				return w.b.stdin, true
			}
			return w.b.stdout, true
		}
		if v := Eval(x, w.env); v.Kind == HandleVal && v.H.Interface == iosem.Stream {
			return v.H, true
		}
		_, ok := w.streamMode(x)
		return nil, ok
	case ir.Index:
		// An element of an array or container of streams: the stream
		// its elements were last opened on.
		if _, ok := w.streamMode(x); !ok {
			return nil, false
		}
		if v := Eval(ir.Ref{Name: baseName(x)}, w.env); v.Kind == HandleVal && v.H.Interface == iosem.Stream {
			return v.H, true
		}
		return nil, true
	case ir.Unary:
		if x.Op == "*" {
			return w.streamOf(x.X)
		}
	case ir.CallExpr:
		if s, ok := iosem.Method(x.Callee); ok && s.Size.Kind == iosem.Items && len(x.Args) > 0 {
			return w.streamOf(x.Args[0])
		}
	}
	return nil, false
}

// streamDecl handles the declaration of a file stream: constructed with a
// file name, it opens the file.
func (w *walker) streamDecl(d *ir.Decl, mode iosem.Mode, parent *Node) {
	v := d.Var
	if v.Init == nil {
		w.env.Set(v.Name, w.b.unopenedStream(mode, d.Pos))
		return
	}
	if h := Eval(v.Init, w.env); h.Kind == HandleVal {
		w.env.Set(v.Name, h)
		return
	}
	var args []ir.Expr
	if ce, ok := v.Init.(ir.CallExpr); ok {
		args = ce.Args
	} else {
		args = []ir.Expr{v.Init}
	}
	s, _ := iosem.Method("open")
	s.DefaultMode = mode
	c := &ir.Call{Pos: d.Pos, Callee: v.Type.Name, Args: args}
	io := w.decorate(c, args, s, nil)
	io.File.Interface = iosem.Stream
	io.File.Mode = w.streamOpenMode(mode, args)
	w.env.Set(v.Name, Value{Kind: HandleVal, H: io.File})
	w.addIO(parent, &Node{Kind: IONode, Name: v.Type.Name, Pos: d.Pos, IO: io, Taken: -1})
}

// hasFlushManipulator reports whether a stream insertion inserts std::endl
// or std::flush.
func hasFlushManipulator(args []ir.Expr) bool {
	for _, a := range args {
		if r, ok := a.(ir.Ref); ok && iosem.IsFlushManipulator(r.Name) {
			return true
		}
	}
	return false
}

// streamItems returns the text an insertion or extraction moves: the
// length of string literals, the text width of the other values.
func (w *walker) streamItems(args []ir.Expr) (bytes, items int64, known bool) {
	for _, a := range args {
		if r, ok := a.(ir.Ref); ok && iosem.IsFlushManipulator(r.Name) {
			bytes++ // the newline of std::endl
			continue
		}
		b, n, _, ok := w.item(a, true)
		if !ok {
			return 0, 0, false
		}
		bytes += b
		items += n
	}
	return bytes, items, true
}

// streamConversions returns the conversions of the operands of an
// insertion or extraction in printf's letters, for their cost (see
// iosem.FormatCost): "c" for a character, "s" for a string, "d" for an
// integer, "f" for a floating-point or other value; "" when an operand is
// not known.
func (w *walker) streamConversions(args []ir.Expr) string {
	var conv []byte
	for _, a := range args {
		if r, ok := a.(ir.Ref); ok && iosem.IsFlushManipulator(r.Name) {
			conv = append(conv, 'c')
			continue
		}
		_, n, typeName, ok := w.item(a, true)
		if !ok {
			return ""
		}
		c := iosem.ConversionOf(typeName)
		for range n {
			conv = append(conv, c)
		}
	}
	return string(conv)
}

// streamStatement handles a C++ stream statement "s << a << b" (or ">>"),
// which the front-end lowers to a partial Assign to s of the whole chain,
// as one insertion (extraction) call with the chain's operands; it reports
// false when s is not a file or standard stream.
func (w *walker) streamStatement(s *ir.Assign, parent *Node) bool {
	if !s.Partial || (s.Op != "<<" && s.Op != ">>") {
		return false
	}
	var items []ir.Expr
	x := s.Value
	for {
		b, ok := x.(ir.Binary)
		if !ok || b.Op != s.Op {
			break
		}
		items = append(items, b.R)
		x = b.L
	}
	if len(items) == 0 {
		return false
	}
	slices.Reverse(items)
	items = slices.DeleteFunc(items, func(it ir.Expr) bool {
		if stateManipulator(it) {
			parent.Work += ManipulatorOps
			return true
		}
		return false
	})
	if len(items) == 0 {
		return true // out << std::fixed: formatting state only
	}
	if w.isStringStream(x) {
		return w.stringStreamStatement(x, items, s.Op == ">>", parent)
	}
	c := &ir.Call{Pos: s.Pos, Callee: "operator" + s.Op, Receiver: x, Args: items}
	if w.streamCall(c, parent) {
		return true
	}
	return w.stringStreamStatement(x, items, s.Op == ">>", parent)
}

// ManipulatorOps is the cost of inserting a manipulator that only sets a
// stream's formatting state (std::setw(8), std::left): a call that
// stores a field of the stream.
const ManipulatorOps = 5

// stateManipulator reports whether a stream operand is a manipulator that
// moves no data (iosem.IsStateManipulator): std::left, std::setw(8).
func stateManipulator(x ir.Expr) bool {
	switch x := x.(type) {
	case ir.Ref:
		return iosem.IsStateManipulator(x.Name)
	case ir.CallExpr:
		return iosem.IsStateManipulator(x.Callee)
	}
	return false
}

// stringStreamStatement charges the conversions of an insertion into or
// an extraction from a C++ string stream as compute, and forgets the
// variables an extraction sets, unless it extracts the value of a key
// the branch tested (see scanSetting); it reports false when x is not a
// string stream.
func (w *walker) stringStreamStatement(x ir.Expr, items []ir.Expr, extract bool, parent *Node) bool {
	if !w.isStringStream(x) {
		return false
	}
	n := float64(len(items))
	parent.Work += n*iosem.StreamCallOps + iosem.StreamFormatCost(w.streamConversions(items), n, extract)
	for _, it := range items {
		parent.Work += ops(it, false)
		if extract {
			w.env.Kill(baseName(it))
		}
	}
	if extract {
		w.scanSetting(&ir.Call{Callee: "operator>>", Receiver: x, Args: items})
	}
	return true
}

// stringStream is the value of a C++ string stream variable, which a
// call passes on to a stream parameter (std::ostream &os): what the
// callee inserts into it is formatting in memory.
var stringStream = Value{Kind: Sym, S: "<string stream>"}

// isStringStream reports whether x is a string stream: a variable of a
// string stream type, or a stream parameter a caller bound to one.
func (w *walker) isStringStream(x ir.Expr) bool {
	name := baseName(x)
	if v := w.env.Var(name); v != nil && v.Type.Pointer == 0 && iosem.IsStringStream(v.Type.Name) {
		return true
	}
	return name != "" && Eval(ir.Ref{Name: name}, w.env) == stringStream
}

// unopenedStream returns a file stream declared at pos on a file the
// analysis does not know (not opened yet, or opened elsewhere).
func (b *builder) unopenedStream(mode iosem.Mode, pos ir.Pos) Value {
	return Value{Kind: HandleVal, H: &Handle{
		ID: b.nextID(), Kind: FileHandle, Interface: iosem.Stream, Mode: mode, Pos: pos, Elems: -1}}
}
