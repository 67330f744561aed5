package pdg

import (
	"cmp"
	"slices"
	"strings"

	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/ir"
)

// extent is what a program wrote into a file: bytes, and records (lines
// of text, Fortran records) when their count is known.
type extent struct{ bytes, records float64 }

func (e extent) scaled(f float64) extent { return extent{e.bytes * f, e.records * f} }

func (e extent) plus(o extent) extent { return extent{e.bytes + o.bytes, e.records + o.records} }

// writeLog is what the calls of a function instance write, per call,
// into files the instance did not open: the caller, which opened them or
// passes them on, multiplies it by the times it calls the instance.
type writeLog map[*Handle]extent

// addIO appends an I/O node to parent and follows the files it opens and
// the data it writes (see wrote).
func (w *walker) addIO(parent *Node, n *Node) {
	parent.Children = append(parent.Children, n)
	io := n.IO
	if io == nil || io.File == nil || io.File.Kind == StdHandle {
		return
	}
	if io.File.Kind == DatasetHandle {
		// What a dataset write stores is in its file when it is flushed.
		if io.Sem.Op == iosem.Write && io.BytesKnown {
			w.wrote(io.File, extent{bytes: float64(io.Bytes)})
		}
		return
	}
	f := io.File
	if io.Sem.Op == iosem.Read {
		if e, ok := f.contents(); ok {
			io.Extent = e.bytes
			w.eofShare(io, e)
		}
	}
	if io.Sem.Op == iosem.Open && f.Interface != iosem.Fortran && f.Mode&iosem.ModeCreate != 0 && f.Mode&iosem.ModeAppend == 0 {
		w.startRecords(f)
	}
	switch {
	case io.Sem.Op == iosem.Open && f.openedIn == nil:
		f.openedIn, f.openScale = w.fn, len(w.scale)
		if f.spread > 0 {
			f.openScale = 0 // the files of all elements: all that is written
		}
		if f.Mode&iosem.ModeCreate == 0 || f.Mode&iosem.ModeAppend != 0 {
			f.base = w.b.sizes[f.sizeKey()]
		}
	case io.Sem.Op == iosem.Write && io.BytesKnown:
		w.wrote(f, extent{float64(io.Bytes), float64(io.Records)})
	case io.Sem.Op == iosem.Sync:
		w.writeBack(io)
	}
}

// elementFile records the file opened into an element of an array or a
// container in a loop over it (logs[m].open(...), OPEN(NEWUNIT=units(i),
// ...)): past the loop, the handle stands for the files of every element
// (the count of elements, else the trips of the loop opening them), and
// what is written through any element is shared among them: all of it
// after the loop, when the function walked opened them.
func (w *walker) elementFile(x ir.Expr, v Value) {
	name := baseName(x)
	w.settled[name] = v
	sh, shaped := w.env.shapeOf(name)
	switch {
	case shaped:
		v.H.spread = sh.count()
	case len(w.trips) > 0:
		v.H.spread = w.trips[len(w.trips)-1].n
	default:
		v.H.spread = 1
	}
	if f := v.H.File(); f.openedIn == w.fn {
		// The open was walked first (out[i] = fopen(...)): all that is
		// written after the loop, as addIO gives a file of an array
		// whose open is walked after this (logs[m].open(...)).
		f.openScale = 0
	}
}

// writeBack gives a sync of a file the bytes it writes back to storage
// each time it runs: what the program wrote into the file since the sync
// before, over the executions of the sync in that time (the factors
// between the file's open and the sync, or all of them when another
// function opened it). An fsync after each step's writes writes back a
// step; an H5Fflush at the end of a run, every dataset write before it.
func (w *walker) writeBack(io *IO) {
	f := io.File.File()
	dirty := f.written.bytes - f.synced
	f.synced = f.written.bytes
	from := 0
	if f.openedIn == w.fn {
		from = f.openScale
	}
	if n := w.factor(from); dirty > 0 && n > 0 {
		io.WriteBack = dirty / n
	}
}

// eofShare gives a read of unknown size that the innermost loop repeats
// to the end of the file it reads, holding e, its share of the file: a
// line of the lines the program wrote ("while (getline(&line, &cap, f) >
// 0)").
func (w *walker) eofShare(io *IO, e extent) {
	if io.BytesKnown || len(w.trips) == 0 {
		return
	}
	if t := w.trips[len(w.trips)-1]; t.eof == io.File.File() && t.n > 0 {
		io.Bytes = int64(e.bytes / float64(t.n))
		io.BytesKnown = io.Bytes > 0
	}
}

// factor is the product of the scale factors around the statement being
// walked from the from'th on: loop trip counts and branch odds.
func (w *walker) factor(from int) float64 {
	f := 1.0
	// A file of an array opened in a loop the walk has left
	// (handleElement) is written after it: no factor of that loop.
	for _, s := range w.scale[min(from, len(w.scale)):] {
		f *= s
	}
	return f
}

// wrote records that the statement being walked writes e into the file
// of h each time it runs. Into a file the function opened, one opening
// receives e times the factors between the open and the write; a file
// rewritten on every step holds one step's data; one file of an array
// of files (elementFile) its share. A root function (the
// entry, or a function no other calls) owns every file written in it.
// Other functions log what one of their calls writes for their callers
// (see writeLog).
func (w *walker) wrote(h *Handle, e extent) {
	f := h.File()
	var n float64
	switch {
	case f.openedIn == w.fn:
		n = w.factor(f.openScale)
	case w.b.depth <= 1:
		n = w.factor(0)
	default:
		if w.fn.writes == nil {
			w.fn.writes = writeLog{}
		}
		w.fn.writes[f] = w.fn.writes[f].plus(e.scaled(w.factor(0)))
		return
	}
	if f.spread > 1 {
		n /= float64(f.spread) // into one of the files of an array
	}
	f.written = f.written.plus(e.scaled(n))
	w.b.sizes[f.sizeKey()] = f.base.plus(f.written)
}

// calleeWrote replays, after a call of a function instance, what the
// instance writes into files it did not open.
func (w *walker) calleeWrote(callee *Node) {
	hs := make([]*Handle, 0, len(callee.writes))
	for h := range callee.writes {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b *Handle) int { return cmp.Compare(a.ID, b.ID) })
	for _, h := range hs {
		w.wrote(h, callee.writes[h])
	}
}

// contents returns what the file of h holds when the program reads it:
// what was written through h itself, or into the file of its name before
// it was opened, when the program wrote any of it.
func (h *Handle) contents() (extent, bool) {
	f := h.File()
	e := f.base.plus(f.written)
	return e, e.bytes > 0
}

// readTrip returns the trip count of a loop that reads the file of h to
// its end, request bytes per iteration (0: unknown) and one record per
// iteration when records is set, when the program wrote the file itself:
// its records, or its bytes over the request.
func (h *Handle) readTrip(request int64, records bool) (int64, bool) {
	e, ok := h.contents()
	switch {
	case !ok:
		return 0, false
	case records && e.records >= 1:
		return int64(e.records + 0.5), true
	case request > 0:
		return max(int64(e.bytes)/request, 1), true
	}
	return 0, false
}

// eofRead finds the read of a loop that reads a file to its end: the read
// in its condition ("while (fread(&r, sizeof r, 1, f) == 1)", "while
// (std::getline(in, line))", "while (in >> x)"), or the first statement
// of a loop without one (Fortran "do; read (u, *, iostat=ios) x; if (ios
// /= 0) exit"), or the first of its statements before a test ("for (;;)
// { ssize_t n = read(fd, buf, N); if (n == 0) break; ...").
// It returns the file, the bytes one iteration asks for (0
// when unknown) and whether the read takes one record or line.
func (w *walker) eofRead(l *ir.Loop) (h *Handle, request int64, records, ok bool) {
	if l.Cond == nil && len(l.Body) == 0 {
		return nil, 0, false, false
	}
	if s, isIO := firstStmt(l).(*ir.FortranIO); isIO {
		if s.Op != "read" || s.Specs["iostat"] == nil && s.Specs["end"] == nil {
			return nil, 0, false, false
		}
		sem, known := iosem.Statement(s)
		if !known || w.internalFile(s) {
			return nil, 0, false, false
		}
		h = w.unitHandle(s.Unit)
		if h == nil {
			return nil, 0, false, false
		}
		b, _, bok := w.items(s.Items, sem.Formatted)
		if !bok || !h.StreamAccess {
			b = 0
		}
		return h, b, !h.StreamAccess, true
	}
	if x, isBin := l.Cond.(ir.Binary); isBin && x.Op == ">>" {
		if s, _ := w.streamOf(x.L); s != nil {
			return s, 0, true, true
		}
	}
	find := func(y ir.Expr) bool {
		c, isCall := y.(ir.CallExpr)
		if !isCall || ok {
			return false
		}
		call := &ir.Call{Callee: c.Callee, Args: c.Args}
		if w.lineExtraction(call) {
			h, _ = w.streamOf(c.Args[0])
			ok, records = h != nil, true
			return true
		}
		s, known := iosem.Lookup(c.Callee)
		if !known || s.Op != iosem.Read || s.File.Kind != iosem.HandleArg {
			return false
		}
		h = w.handleOf(arg(call, s.File.Arg), s.Interface)
		ok = h != nil
		switch {
		case s.Size.Kind == iosem.Char:
			request = 1
		case s.Formatted:
			records = true
		default:
			if b, _, known := w.transferBytes(call, s, h); known && b > 0 {
				request = b
			}
		}
		return true
	}
	ir.Any(l.Cond, find)
	for _, st := range l.Body {
		if ok || l.Cond != nil && !readsInputFirst(l) {
			break
		}
		switch st := st.(type) {
		case *ir.Call:
			ir.Any(ir.CallExpr{Callee: st.Callee, Args: st.Args}, find)
		case *ir.Assign:
			ir.Any(st.Value, find)
		case *ir.Decl:
			if st.Var.Init == nil {
				continue
			}
			ir.Any(st.Var.Init, find)
		default:
			return h, request, records, ok
		}
	}
	return h, request, records, ok
}

// endless returns l without its condition when that always holds
// ("while (1)", "while (true)"), else l.
func (w *walker) endless(l *ir.Loop) *ir.Loop {
	if t, ok := truth(Eval(l.Cond, w.env)); l.Cond == nil || !ok || !t {
		return l
	}
	bare := *l
	bare.Cond = nil
	return &bare
}

// firstStmt returns the first statement of a loop without a condition,
// or nil.
func firstStmt(l *ir.Loop) ir.Stmt {
	if l.Cond != nil || len(l.Body) == 0 {
		return nil
	}
	return l.Body[0]
}

// newlines returns the newlines one execution of the C or C++ write c
// (arguments without the stream) ends its text with: those of its known
// format or strings, a '\n' character, std::endl, and the one puts adds.
func (w *walker) newlines(c *ir.Call, s iosem.Semantics) int64 {
	count := func(x ir.Expr) int64 {
		if r, ok := x.(ir.Ref); ok && iosem.IsFlushManipulator(r.Name) && !strings.HasSuffix(r.Name, "flush") {
			return 1
		}
		switch v := Eval(x, w.env); v.Kind {
		case Str:
			return int64(strings.Count(v.S, "\n"))
		case Int:
			if ch, ok := x.(ir.Int); ok && ch.Char && v.I == '\n' {
				return 1
			}
		}
		return 0
	}
	switch s.Size.Kind {
	case iosem.Format, iosem.Text:
		n := count(arg(c, s.Size.Count))
		if c.Callee == "puts" {
			n++
		}
		return n
	case iosem.Items, iosem.Char:
		// Every argument but the stream, which counts none: fputc('\n',
		// f), os.put('\n').
		var n int64
		for _, a := range c.Args {
			n += count(a)
		}
		return n
	}
	return 0
}

// eofTrip returns the trip count of a loop reading to its end a file the
// program wrote (see eofRead and Handle.readTrip).
//
// A loop that may leave before the end (a return, a break, a condition
// testing more than the read: "while ((c = fgetc(f)) != EOF && c !=
// '\n')") searches its file rather than reading all of it, as does a
// loop inside another that reads the same file to its end. Exits under a
// guard (guardExit) do not count: a file the program wrote reads back
// whole.
func (w *walker) eofTrip(l *ir.Loop) (int64, bool) {
	l = w.endless(l)
	if c, ok := l.Cond.(ir.Binary); ok && (c.Op == "&&" || c.Op == "||") {
		return 0, false
	}
	exits, returns := loopExits(l.Body, w.fortran(), w.guardExit(l.Body))
	if returns || l.Cond != nil && exits > 0 || l.Cond == nil && exits > 1 {
		return 0, false
	}
	h, request, records, ok := w.eofRead(l)
	if !ok || w.reads(l.Body, h.File()) > 1 || slices.ContainsFunc(w.trips, func(t loopTrip) bool { return t.eof == h.File() }) {
		return 0, false
	}
	return h.readTrip(request, records)
}

// reads counts the read calls of blk, nested ones included, on the file
// f. A loop reading to the end of a file its test reads (hoisted into its
// body) also reads it elsewhere when the count passes one: a header, then
// the data it announces, each iteration taking more than its first read.
func (w *walker) reads(blk ir.Block, f *Handle) int {
	n := 0
	visitStmts(blk, func(st ir.Stmt) {
		c, ok := st.(*ir.Call)
		if !ok {
			return
		}
		s, known := iosem.Lookup(c.Callee)
		if !known || s.Op != iosem.Read || s.File.Kind != iosem.HandleArg {
			return
		}
		if h := w.handleOf(arg(c, s.File.Arg), s.Interface); h != nil && h.File() == f {
			n++
		}
	})
	return n
}

// guardExit returns the test telling whether an if in a loop with the
// given body leaves the loop only when a read fails or a table fills: a
// nested read or parse that returns its failure ("!fgets(...)",
// "fscanf(...) != 3", "sscanf(...) < 2"), or a counter the loop counts
// up reaching a bound it does not change ("++n >= maxp"). Reading back
// what the program wrote, neither happens before the end of the file:
// the program sizes its tables for its own data.
func (w *walker) guardExit(body ir.Block) func(ir.Expr) bool {
	assigned := w.assignedIn(body)
	var guard func(ir.Expr) bool
	guard = func(x ir.Expr) bool {
		switch x := x.(type) {
		case ir.Unary:
			return x.Op == "!" && readCall(x.X)
		case ir.Binary:
			switch x.Op {
			case "||":
				return guard(x.L) && guard(x.R)
			case "!=", "<", "<=", "==":
				if readCall(x.L) {
					return x.Op != "==" || failure(Eval(x.R, w.env))
				}
			}
			return w.countsUp(body, x.L, x.R, x.Op, assigned) || w.countsUp(body, x.R, x.L, flip(x.Op), assigned)
		}
		return false
	}
	return guard
}

// readCall reports whether x is a call reading input (see readsInput) or
// parsing it (the sscanf family).
func readCall(x ir.Expr) bool {
	if c, ok := x.(ir.CallExpr); ok && strings.HasSuffix(c.Callee, "sscanf") {
		return true
	}
	_, ok := x.(ir.CallExpr)
	return ok && readsInput(x)
}

// failure reports whether v is what a read returns when it fails: NULL,
// EOF or 0 items.
func failure(v Value) bool {
	n, ok := v.Int()
	return ok && n <= 0
}

// countsUp reports whether "x op k" tests a counter that body counts up
// (x += step) reaching a bound k that body does not change.
func (w *walker) countsUp(body ir.Block, x, k ir.Expr, op string, assigned map[string]bool) bool {
	if op != "==" && op != ">=" && op != ">" {
		return false
	}
	name := refName(x)
	if name == "" || ir.Any(k, func(y ir.Expr) bool { r, ok := y.(ir.Ref); return ok && assigned[r.Name] }) {
		return false
	}
	up := false
	visitStmts(body, func(st ir.Stmt) {
		if a, ok := st.(*ir.Assign); ok && a.Op == "+=" && a.Target == name && a.Field == "" {
			v, known := Eval(a.Value, w.env).Int()
			up = up || !known || v > 0
		}
	})
	return up
}

// loopExits counts the statements of a loop body that leave the loop
// (break, Fortran EXIT, goto), outside nested loops and C switches and
// outside ifs whose condition satisfies guarded, and reports whether it
// returns outside them. C's exit() ends the program on an error path: it
// is not one of them.
func loopExits(body ir.Block, fortran bool, guarded func(ir.Expr) bool) (exits int, returns bool) {
	var visit func(ir.Block, bool)
	visit = func(blk ir.Block, inSwitch bool) {
		for _, s := range blk {
			switch s := s.(type) {
			case *ir.Return:
				returns = true
			case *ir.Jump:
				if s.Kind == "exit" && fortran || s.Kind == "goto" || s.Kind == "break" && !inSwitch {
					exits++
				}
			case *ir.If:
				if !guarded(s.Cond) {
					visit(s.Then, inSwitch)
				}
				visit(s.Else, inSwitch)
			case *ir.Switch:
				for _, c := range s.Cases {
					visit(c, true)
				}
			}
		}
	}
	visit(body, false)
	return exits, returns
}

// sizeQuery gives the calls that ask the size of a file the program wrote
// that size: lseek(fd, 0, SEEK_END) returns it, as do ftell, tellg and
// tellp after a seek to the end; fstat and stat put it in st_size, and
// MPI_File_get_size in its second argument.
func (w *walker) sizeQuery(c *ir.Call, s iosem.Semantics, h *Handle) {
	if h == nil {
		return
	}
	f := h.File()
	e, known := f.contents()
	if s.Op == iosem.Stat && s.File.Kind == iosem.NameArg {
		e = w.b.sizes[f.sizeKey()]
		known = e.bytes > 0
	}
	size := IntValue(int64(e.bytes), Bound)
	switch name := strings.TrimPrefix(c.Callee, "std::"); {
	case s.Op == iosem.Seek && s.Whence >= 0:
		f.atEnd = w.seeksToEnd(c, s)
		if f.atEnd && known && s.Interface == iosem.POSIX {
			w.setResult(c, size)
		}
	case s.Op == iosem.Seek && (name == "ftell" || name == "ftello" || name == "ftello64" || name == "tellg" || name == "tellp"):
		if f.atEnd && known {
			w.setResult(c, size)
		}
	case s.Op == iosem.Seek:
		f.atEnd = false
	case s.Op == iosem.Stat && known && (name == "stat" || name == "fstat" || name == "lstat" || name == "stat64" || name == "fstat64"):
		w.b.observed["st_size"] = size
	case s.Op == iosem.Stat && known && name == "MPI_File_get_size":
		w.env.Set(baseName(arg(c, 1)), size)
	}
}

// seeksToEnd reports whether the seek c goes to the end of its file: an
// offset of 0 from SEEK_END, std::ios::end or MPI_SEEK_END.
func (w *walker) seeksToEnd(c *ir.Call, s iosem.Semantics) bool {
	if off, ok := Eval(arg(c, s.Offset), w.env).Int(); !ok || off != 0 {
		return false
	}
	for _, sym := range w.symbols(arg(c, s.Whence)) {
		if strings.HasSuffix(strings.ToLower(sym), "end") {
			return true
		}
	}
	return false
}

// inquireSize gives the SIZE= variable of a Fortran INQUIRE the size of
// the file it names, or of the unit's file, when the program wrote it.
func (w *walker) inquireSize(s *ir.FortranIO) {
	v, ok := s.Specs["size"]
	if !ok {
		return
	}
	var e extent
	if name, named := s.Specs["file"]; named {
		if n := Eval(name, w.env); n.Kind == Str {
			e = w.b.sizes[(&Handle{Name: strings.TrimSpace(n.S)}).sizeKey()]
		}
	} else if h := w.unitHandle(s.Unit); h != nil {
		e, _ = h.contents()
	}
	if e.bytes > 0 {
		w.env.Set(baseName(v), IntValue(int64(e.bytes), Bound))
	}
}

// carriedRemainders returns, for a loop reading a file to its end (eof
// not nil), the variables carrying the part of a record left over from
// one read to the next, with their values before the loop: set in the
// body to the remainder of a division into records ("carry = have -
// nrec * sizeof rec" after "nrec = have / sizeof rec", "have % sizeof
// rec", or a variable holding one), and otherwise only added to ("have
// += got"). Less than a record, they stay what they start as (0) for the
// reads' requests and the records decoded: "read(fd, buf + carry, CHUNK
// - carry)" takes a chunk, and "(carry + got) / sizeof rec" records are
// decoded from it.
func (w *walker) carriedRemainders(body ir.Block, eof *Handle) map[string]Value {
	if eof == nil {
		return nil
	}
	type def struct {
		op    string
		value ir.Expr
	}
	defs := map[string][]def{}
	var order []string
	add := func(name, op string, x ir.Expr) {
		if defs[name] == nil {
			order = append(order, name)
		}
		defs[name] = append(defs[name], def{op, uncast(x)})
	}
	visitStmts(body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			if s.Partial {
				add(s.Target, "partial", nil)
			} else {
				add(s.Target, s.Op, s.Value)
			}
		case *ir.Decl:
			if s.Var.Init != nil {
				add(s.Var.Name, "=", s.Var.Init)
			}
		}
	})
	quotient := func(name string) bool { // only ever set to a division
		return len(defs[name]) > 0 && !slices.ContainsFunc(defs[name], func(d def) bool {
			b, ok := d.value.(ir.Binary)
			return d.op != "=" || !ok || b.Op != "/"
		})
	}
	remainders := map[string]bool{}
	remainder := func(x ir.Expr) bool {
		switch x := x.(type) {
		case ir.Ref:
			return remainders[x.Name]
		case ir.Binary:
			p, ok := uncast(x.R).(ir.Binary)
			return x.Op == "%" || x.Op == "-" && ok && p.Op == "*" && ir.Any(p, func(y ir.Expr) bool {
				r, ok := y.(ir.Ref)
				return ok && quotient(r.Name)
			})
		}
		return false
	}
	carried := func(name string) bool {
		some := false
		for _, d := range defs[name] {
			switch {
			case d.op == "=" && remainder(d.value):
				some = true
			case d.op != "+=":
				return false
			}
		}
		return some
	}
	out := map[string]Value{}
	for range 2 { // a variable set to a remainder held in another
		for _, name := range order {
			if !carried(name) {
				continue
			}
			remainders[name] = true
			if v := Eval(ir.Ref{Name: name}, w.env); v.Kind == Int {
				out[name] = v.with(Bound)
			}
		}
	}
	return out
}

// uncast returns x without the casts around it.
func uncast(x ir.Expr) ir.Expr {
	for {
		c, ok := x.(ir.Cast)
		if !ok {
			return x
		}
		x = c.X
	}
}

// eofFile returns the file loop l reads to its end, when its trip count
// n comes from what the program wrote into it.
func (w *walker) eofFile(l *ir.Loop, n *Node) *Handle {
	if n.TripSource != TripWritten {
		return nil
	}
	if h, _, _, ok := w.eofRead(w.endless(l)); ok {
		return h.File()
	}
	return nil
}
