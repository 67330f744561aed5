package pdg

import (
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// libraryCall adds the I/O node of a call of a library routine the table
// knows.
func (w *walker) libraryCall(c *ir.Call, s iosem.Semantics, parent *Node) {
	io := w.decorate(c, c.Args, s, nil)
	n := &Node{Kind: IONode, Name: c.Callee, Pos: c.Pos, IO: io, Taken: -1}
	for _, a := range c.Args {
		n.Work += ops(a, w.fortran()) // evaluated before the call, outside its time
	}
	w.addIO(parent, n)
	w.readLine(c, io)
	w.sizeQuery(c, s, io.File)
	if s.Interface == iosem.POSIX && s.Op.IsData() && io.BytesKnown {
		// read and write return the bytes moved: taken as the bytes asked
		// for, so a loop over "n = read(fd, buf, BLOCK)" runs to BLOCK.
		w.setResult(c, IntValue(io.Bytes, Bound))
	}
	if s.Interface == iosem.STDIO && s.Op.IsData() && s.Size.Kind == iosem.Bytes && s.Size.Count2 >= 0 && io.BytesKnown && io.Items > 0 {
		// fread and fwrite return the elements moved: likewise the
		// elements asked for ("while ((m = fread(buf, 8, N, f)) > 0)
		// for (i = 0; i < m; i++)" runs the inner loop N times).
		w.setResult(c, IntValue(io.Items, Bound))
	}
}

// decorate works out what one I/O call does: its file (tracking the
// handles that opens create), the bytes it moves, and whether it is
// random, collective, unbuffered. args are the call's arguments (without
// the stream of an operator call); recv is the stream of a member call.
func (w *walker) decorate(c *ir.Call, args []ir.Expr, s iosem.Semantics, recv *Handle) *IO {
	io := &IO{
		Sem:        s,
		Routine:    c.Callee,
		Binary:     s.Binary(),
		Async:      s.Async,
		Collective: s.Collective,
		Random:     s.ExplicitOffset,
	}
	call := *c
	call.Args = args
	c = &call

	var h *Handle
	switch s.File.Kind {
	case iosem.NameArg:
		h = w.open(c, s)
	case iosem.HandleArg:
		h = w.handleOf(arg(c, s.File.Arg), s.Interface)
		if s.Op == iosem.Open {
			h = w.openIn(c, s, h)
		}
	case iosem.Receiver:
		h = recv
	case iosem.Stdout:
		h = w.b.stdout
	case iosem.Stdin:
		h = w.b.stdin
	}
	if s.Op == iosem.Config {
		h = w.configure(c, s, h)
	}
	io.File = h

	if s.Op.IsData() {
		io.Bytes, io.Items, io.BytesKnown = w.transferBytes(c, s, h)
		if s.Size.Kind == iosem.Dataspace {
			io.Chunks = chunksTouched(h, w.handleOf(arg(c, s.Size.Count2), s.Interface))
		}
		line := s.Interface == iosem.Stream && s.Size.Kind == iosem.Bytes && !s.Binary() // getline
		if z := s.Size; !io.BytesKnown && !line && s.Op == iosem.Read && (z.Kind == iosem.Bytes || z.Kind == iosem.Elements) {
			io.Bytes, io.BytesKnown = w.restOfFile(h)
			if io.BytesKnown && z.Elem > 0 {
				io.Items = io.Bytes / z.Elem
			}
			if io.BytesKnown && z.Kind == iosem.Bytes {
				w.countFromFile(c, z, io.Bytes)
			}
		}
		switch s.Size.Kind {
		case iosem.Format:
			if f, ok := w.formatString(arg(c, s.Size.Count)); ok {
				io.Conversions = iosem.Conversions(f)
			}
		case iosem.Items:
			io.Conversions = w.streamConversions(c.Args)
		case iosem.Bytes:
			if line {
				io.Conversions = "s" // characters copied, none converted
			}
		}
		if s.Op == iosem.Write {
			io.Records = w.newlines(c, s)
			w.writtenText(c, s, h)
		}
	}
	w.accessState(io, c, h)
	w.killAddressed(c.Args)
	w.scanSetting(c)
	if s.Op == iosem.Read && h != nil && h.Kind == FileHandle && s.Interface != iosem.Fortran {
		w.fieldsRead(c, h)
	}

	var result Value
	if h != nil && (s.Op == iosem.Open || s.Op == iosem.Config && h.Kind != FileHandle) {
		result = Value{Kind: HandleVal, H: h}
	}
	w.setResult(c, result)
	if out := baseName(arg(c, s.File.Out)); out != "" && result.Kind == HandleVal {
		w.env.Set(out, result)
	}
	return io
}

// accessState sets what depends on the handle's history: random access
// after a seek, collective transfers through property lists or NetCDF's
// collective mode, parallel files, unbuffered streams.
func (w *walker) accessState(io *IO, c *ir.Call, h *Handle) {
	s := io.Sem
	io.Parallel = s.Interface == iosem.MPIIO || s.Interface == iosem.PnetCDF
	if s.Op.IsData() && s.Interface == iosem.POSIX {
		io.Unbuffered = true
	}
	if h == nil {
		return
	}
	f := h.File()
	io.Parallel = io.Parallel || f.MPI
	if s.Op == iosem.Open && io.Parallel && w.b.reachable && !w.b.parallelStarted {
		w.b.parallelStarted = true
		io.Starts = 1 / w.factor(0)
	}
	switch {
	case s.Op == iosem.Seek:
		if repositions(s, c, w.env) {
			w.b.seeked[f] = c.Callee
		}
	case s.Op.IsData():
		io.Unbuffered = io.Unbuffered || f.Unbuffered
		io.Buffer = f.Buffer
		if by, ok := w.b.seeked[f]; ok {
			if !io.Random {
				io.Random, io.SeekedBy = true, by
			}
			delete(w.b.seeked, f)
		}
		if p := w.handleOf(arg(c, s.Plist), s.Interface); p != nil && p.Collective {
			io.Collective = true
		}
		if f.Collective {
			io.Collective = true
		}
	}
}

// newHandle returns a handle opened at pos.
func (w *walker) newHandle(kind HandleKind, iface iosem.Interface, pos ir.Pos) *Handle {
	return &Handle{ID: w.b.nextID(), Kind: kind, Interface: iface, Pos: pos, Elems: -1}
}

// open returns the file a call names (open, fopen, MPI_File_open,
// H5Fcreate, stat...): a new handle with its name and mode.
func (w *walker) open(c *ir.Call, s iosem.Semantics) *Handle {
	h := w.newHandle(FileHandle, s.Interface, c.Pos)
	nameX := arg(c, s.File.Arg)
	h.setName(Eval(nameX, w.env), nameX)
	h.Mode = w.openMode(arg(c, s.File.Mode), s.DefaultMode)
	h.MPI = s.Interface == iosem.MPIIO || s.Interface == iosem.PnetCDF || s.Collective
	if p := w.handleOf(arg(c, s.Plist), s.Interface); p != nil && p.MPI {
		h.MPI = true
	}
	return h
}

// openMode reads the mode of an open from a mode string ("w+", "rb") or
// from the flags named in the expression (O_WRONLY | O_CREAT).
func (w *walker) openMode(x ir.Expr, def iosem.Mode) iosem.Mode {
	if x == nil {
		return def
	}
	if v := Eval(x, w.env); v.Kind == Str {
		return iosem.ModeFromString(v.S, def)
	}
	return iosem.ModeFromFlags(w.symbols(x), def)
}

// symbols returns the undefined identifiers an expression names, directly
// or through variables holding them.
func (w *walker) symbols(x ir.Expr) []string {
	var out []string
	var visit func(ir.Expr)
	visit = func(x ir.Expr) {
		switch x := x.(type) {
		case ir.Ref:
			if v := Eval(x, w.env); v.Kind == Sym {
				out = append(out, v.S)
			}
		case ir.Binary:
			visit(x.L)
			visit(x.R)
		case ir.Unary:
			visit(x.X)
		case ir.Cast:
			visit(x.X)
		}
	}
	visit(x)
	return out
}

// openIn returns the object an open creates inside another (an HDF5
// dataset or group in a file, a FILE* over a descriptor).
func (w *walker) openIn(c *ir.Call, s iosem.Semantics, parent *Handle) *Handle {
	kind := FileHandle
	if s.Dataset {
		kind = DatasetHandle
	}
	h := w.newHandle(kind, s.Interface, c.Pos)
	h.Parent = parent
	h.Mode = w.openMode(arg(c, s.File.Mode), s.DefaultMode)
	if parent != nil && s.File.Mode < 0 {
		h.Mode = parent.Mode
	}
	if sp := w.handleOf(arg(c, s.Space), s.Interface); sp != nil {
		h.Elems = sp.Elems
	}
	if p := w.handleOf(arg(c, s.Plist), s.Interface); p != nil {
		h.Filtered, h.Chunk = p.Filtered, p.Chunk
	}
	if s.Dataset {
		// H5Dcreate(loc, name, ...), H5Dopen(loc, name, ...) and their
		// Fortran forms name the dataset second, relative to a group or
		// by its path: the last component is the key.
		v := Eval(arg(c, 1), w.env)
		key := v.S[strings.LastIndexByte(v.S, '/')+1:]
		if v.Kind == Str && (h.Filtered || h.Chunk != nil) {
			w.b.datasets[key] = h
		} else if d := w.b.datasets[key]; v.Kind == Str && d != nil {
			h.Filtered, h.Chunk = d.Filtered, d.Chunk
		}
	}
	return h
}

// configure applies a configuration routine's effect: property lists,
// dataspaces, NetCDF's collective mode, stream buffering. It returns the
// handle the call creates or changes.
func (w *walker) configure(c *ir.Call, s iosem.Semantics, h *Handle) *Handle {
	created := c.Result != "" || s.File.Out >= 0
	if h == nil && (created || s.Effect == iosem.SetCollective || s.Effect == iosem.SetMPIDriver) {
		kind := PlistHandle
		if s.Effect == iosem.MakeDataspace || s.Effect == iosem.SelectDataspace || s.Effect == iosem.CopyDataspace {
			kind = DataspaceHandle
		}
		h = w.newHandle(kind, s.Interface, c.Pos)
		if s.File.Kind == iosem.HandleArg {
			if name := baseName(arg(c, s.File.Arg)); name != "" && !created {
				w.env.Set(name, Value{Kind: HandleVal, H: h})
			}
		}
	}
	if h == nil {
		return nil
	}
	ex := arg(c, s.EffectArg)
	sym := w.symbolOf(ex)
	switch s.Effect {
	case iosem.SetCollective:
		h.Collective = iosem.IsCollectiveMode(sym)
	case iosem.SetMPIDriver:
		h.MPI = true
	case iosem.SetBuffering:
		v := Eval(ex, w.env)
		h.Unbuffered = iosem.IsUnbuffered(sym) || sym == "NULL" || sym == "nullptr" || v.Kind == Int && v.I == 0
		h.Buffer = 0
		if strings.EqualFold(c.Callee, "setvbuf") && !h.Unbuffered {
			if sym == "_IOLBF" {
				h.Buffer = 1
			} else if n, ok := Eval(arg(c, 3), w.env).Int(); ok && n > 0 {
				h.Buffer = n
			}
		}
	case iosem.MakeDataspace:
		h.Elems = w.dimsElems(arg(c, 0), ex)
	case iosem.SelectDataspace:
		h.Elems = w.dimsElems(nil, ex)
		h.Count, _ = w.listValues(unaddressed(ex), -1)
	case iosem.SetFilter:
		h.Filtered = true
	case iosem.SetChunk:
		rank, ok := Eval(arg(c, 1), w.env).Int()
		h.Chunk = nil
		if ok && rank > 0 {
			h.Chunk, _ = w.listValues(unaddressed(ex), rank)
		}
	case iosem.CopyDataspace:
		h.Elems, h.Count = -1, nil
		if d := w.handleOf(ex, s.Interface); d != nil {
			h.Elems = d.Elems
		}
	case iosem.CopyPlist:
		h.Filtered, h.Chunk = false, nil
		if p := w.handleOf(ex, s.Interface); p != nil {
			h.Filtered, h.Chunk = p.Filtered, slices.Clone(p.Chunk)
		}
	}
	return h
}

// symbolOf returns the identifier an expression evaluates to, or "".
func (w *walker) symbolOf(x ir.Expr) string {
	if x == nil {
		return ""
	}
	if v := Eval(x, w.env); v.Kind == Sym {
		return v.S
	}
	return ""
}

// dimsElems returns the number of elements of a dimension array argument
// when it is known: a scalar passed by address (&n, rank 1), a Fortran
// array constructor's scalar, or a local array initialised with a list
// ({NT, NY, 1}) and never stored into, its first rank elements when the
// rank is known. Otherwise -1.
func (w *walker) dimsElems(rank, dims ir.Expr) int64 {
	r := int64(-1)
	if rank != nil {
		var ok bool
		if r, ok = Eval(rank, w.env).Int(); !ok || r < 1 {
			return -1
		}
	}
	x := unaddressed(dims)
	if l, ok := w.listValues(x, r); ok {
		n := int64(1)
		for _, k := range l {
			n *= k
		}
		return n
	}
	if r > 1 {
		return -1
	}
	if n, ok := Eval(x, w.env).Int(); ok {
		return n
	}
	return -1
}

// ChunkCacheBytes is the size of HDF5's cache of a dataset's chunks
// (H5Pset_chunk_cache's default, 1 MiB).
const ChunkCacheBytes = 1 << 20

// chunksTouched returns the chunks of the chunked dataset d a transfer of
// the hyperslab selected in the file dataspace fs touches, at least (the
// selection aligned on chunks), or 0 when the chunks or the selection are
// not known.
func chunksTouched(d, fs *Handle) int64 {
	if fs == nil || len(d.chunkDims()) == 0 || len(fs.Count) != len(d.Chunk) {
		return 0
	}
	n := int64(1)
	for i, k := range d.Chunk {
		if k <= 0 {
			return 0
		}
		n *= (fs.Count[i] + k - 1) / k
	}
	return n
}

// chunkDims returns the chunk of the dataset d, nil when d is nil or
// not chunked.
func (d *Handle) chunkDims() []int64 {
	if d == nil {
		return nil
	}
	return d.Chunk
}

// chunkedBytes returns the bytes a read of the hyperslab selected in the
// file dataspace fs moves from the chunked dataset d when the chunks it
// touches do not fit in the chunk cache: HDF5 reads whole chunks, and the
// next read, touching the same chunks for the next slice, finds them
// evicted. It returns 0 when the read is not known to do so (a selection
// that fits, or an unknown chunk or selection).
func (w *walker) chunkedBytes(d, fs *Handle, elemSize int64) int64 {
	touched := chunksTouched(d, fs) // aligned: whole chunks per dimension
	for _, k := range d.chunkDims() {
		touched *= k
	}
	if touched*elemSize <= ChunkCacheBytes {
		return 0
	}
	return touched * elemSize
}

// unaddressed strips the address-of operator from x (&dims[0] is dims).
func unaddressed(x ir.Expr) ir.Expr {
	if u, ok := x.(ir.Unary); ok && u.Op == "&" {
		x = u.X
		if i, ok := x.(ir.Index); ok && len(i.Idx) == 1 && isLiteralZero(i.Idx[0]) {
			x = i.X
		}
	}
	return x
}

// listValues returns the first n elements (all when n is negative) of the
// local array x initialised with a list of known non-negative numbers,
// when the function never stores into it.
func (w *walker) listValues(x ir.Expr, n int64) ([]int64, bool) {
	r, ok := x.(ir.Ref)
	if !ok {
		return nil, false
	}
	v := w.env.Var(r.Name)
	if v == nil || len(v.Type.Dims) != 1 || v.Type.Pointer > 0 {
		return nil, false
	}
	l, ok := v.Init.(ir.List)
	if !ok || n > int64(len(l.Elems)) {
		return nil, false
	}
	if n < 0 {
		n = int64(len(l.Elems))
	}
	if w.storedLive(r.Name) {
		return nil, false
	}
	out := make([]int64, n)
	for i, e := range l.Elems[:n] {
		k, ok := Eval(e, w.env).Int()
		if !ok || k < 0 {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

// handleOf returns the handle an argument designates: a variable holding
// one, a standard stream (stdout, fd 1), or a Fortran unit.
func (w *walker) handleOf(x ir.Expr, iface iosem.Interface) *Handle {
	if x == nil {
		return nil
	}
	for {
		if u, ok := x.(ir.Unary); ok && (u.Op == "&" || u.Op == "*") {
			x = u.X
			continue
		}
		if c, ok := x.(ir.Cast); ok {
			x = c.X
			continue
		}
		break
	}
	if iface == iosem.Fortran {
		return w.unitHandle(x)
	}
	v := Eval(x, w.env)
	switch {
	case v.Kind == HandleVal:
		return v.H
	case v.Kind == Sym && (v.S == "stdout" || v.S == "stderr"):
		return w.b.stdout
	case v.Kind == Sym && v.S == "stdin":
		return w.b.stdin
	case v.Kind == Int && iface == iosem.POSIX && (v.I == 1 || v.I == 2):
		return w.b.stdout
	case v.Kind == Int && iface == iosem.POSIX && v.I == 0:
		return w.b.stdin
	}
	return nil
}

// transferBytes returns the bytes and items one data transfer moves, and
// whether the byte count is known.
func (w *walker) transferBytes(c *ir.Call, s iosem.Semantics, h *Handle) (bytes, items int64, known bool) {
	evalInt := func(i int) (int64, bool) { return Eval(arg(c, i), w.env).Int() }
	z := s.Size
	switch z.Kind {
	case iosem.Bytes:
		bytes, known = evalInt(z.Count)
		items = bytes
		if known && z.Count2 >= 0 {
			var n int64
			n, known = evalInt(z.Count2)
			bytes, items = bytes*n, n
		}
	case iosem.Elements:
		n, ok := int64(1), true
		if z.Count >= 0 {
			n, ok = evalInt(z.Count)
		}
		size := z.Elem
		if size == 0 {
			size, _ = w.datatypeSize(arg(c, z.Type))
		}
		items = n
		bytes, known = n*size, ok && size > 0
	case iosem.Dataspace:
		n := int64(-1)
		for _, i := range []int{z.Count, z.Count2} {
			if sp := w.handleOf(arg(c, i), s.Interface); sp != nil && sp.Kind == DataspaceHandle && sp.Elems >= 0 {
				n = sp.Elems
				break
			}
		}
		if n < 0 && h != nil {
			n = h.Elems
		}
		size, ok := w.datatypeSize(arg(c, z.Type))
		if n >= 0 && ok {
			bytes, items, known = n*size, n, true
			if s.Op == iosem.Read {
				bytes = max(bytes, w.chunkedBytes(h, w.handleOf(arg(c, z.Count2), s.Interface), size))
			}
		}
	case iosem.Format:
		if v := Eval(arg(c, z.Count), w.env); v.Kind == Str {
			b, n := iosem.FormatBytes(v.S)
			bytes, items, known = b, int64(n), true
		}
	case iosem.Text:
		if v := Eval(arg(c, z.Count), w.env); v.Kind == Str {
			bytes, items, known = int64(len(v.S)), 1, true
		}
	case iosem.Char:
		bytes, items, known = 1, 1, true
	case iosem.Items:
		return w.streamItems(c.Args)
	}
	if !known && z.Buf >= 0 {
		if n, ok := w.env.bufferSize(arg(c, z.Buf)); ok {
			bytes, known = n, true
			if z.Elem > 0 {
				items = n / z.Elem
			}
		}
	}
	if !known {
		bytes, items = 0, 0
	}
	return bytes, items, known
}

// restOfFile returns the bytes a binary read of unknown size takes from
// the file of h when the program wrote that file and the read is not in a
// loop of its function: the whole of what was written. Such a read takes
// the payload whose size a header gave (fread(im.rgb, 3, w * h, f) after
// the header of an image file the program wrote).
func (w *walker) restOfFile(h *Handle) (int64, bool) {
	if h == nil || h.Kind != FileHandle || len(w.trips) > 0 {
		return 0, false
	}
	e, ok := h.contents()
	if !ok || e.bytes < 1 {
		return 0, false
	}
	return int64(e.bytes), true
}

// countFromFile gives the unknown count variable of a read that takes
// the rest of a file the program wrote (see restOfFile) the count that
// file holds: in "fread(q, sizeof *q, n, f)" on a file of bytes bytes, n
// is bytes / sizeof *q, and the loops over the records read run that
// many times.
func (w *walker) countFromFile(c *ir.Call, z iosem.Size, bytes int64) {
	count, unit := z.Count, int64(1)
	if z.Count2 >= 0 {
		u, ok := Eval(arg(c, z.Count), w.env).Int()
		if !ok || u < 1 {
			return
		}
		count, unit = z.Count2, u
	}
	r, ok := arg(c, count).(ir.Ref)
	if !ok || Eval(r, w.env).Known() {
		return
	}
	if v := w.env.Var(r.Name); v == nil || v.Const {
		return
	}
	w.env.Set(r.Name, IntValue(bytes/unit, Bound))
}

// formatString returns the text of a printf or scanf format argument for
// the cost of its conversions: a string value, or either side of a
// conditional whose two sides are strings ("c ? \",%.4f\" : \"%.4f\""),
// the longer one.
func (w *walker) formatString(x ir.Expr) (string, bool) { return formatText(x, w.env) }

// formatText is formatString with the values of env.
func formatText(x ir.Expr, env *Env) (string, bool) {
	if x == nil {
		return "", false
	}
	if v := Eval(x, env); v.Kind == Str {
		return v.S, true
	}
	if c, ok := x.(ir.Cond); ok {
		t, tok := formatText(c.T, env)
		f, fok := formatText(c.F, env)
		if tok && fok {
			if len(f) > len(t) {
				return f, true
			}
			return t, true
		}
	}
	return "", false
}

// datatypeSize returns the size of an MPI, HDF5 or NetCDF datatype
// argument, named directly or through a variable.
func (w *walker) datatypeSize(x ir.Expr) (int64, bool) {
	if x == nil {
		return 0, false
	}
	if v := Eval(x, w.env); v.Kind == Sym {
		return iosem.DatatypeSize(v.S)
	}
	if r, ok := x.(ir.Ref); ok {
		return iosem.DatatypeSize(r.Name)
	}
	return 0, false
}

// unitKey is the key of a Fortran unit number in the builder's unit table.
func unitKey(n int64) string { return strconv.FormatInt(n, 10) }

// storedLive reports whether the function assigns to name outside the
// sides of branches the walk knows are not taken ("if (ncol == 0)
// chunk[0] = 240;" with ncol 480).
func (w *walker) storedLive(name string) bool {
	dead := map[ir.Stmt]bool{}
	stored := false
	visitStmts(w.d.f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.If:
			if c, known := Eval(s.Cond, w.env).Int(); known {
				side := s.Else
				if c == 0 {
					side = s.Then
				}
				visitStmts(side, func(d ir.Stmt) { dead[d] = true })
			}
		case *ir.Assign:
			stored = stored || s.Target == name && !dead[s]
		}
	})
	return stored
}
