package iosem

// opt adjusts a Semantics while the table is built.
type opt func(*Semantics)

// sem returns the semantics of a routine of iface performing op, with every
// argument index unset, adjusted by opts.
func sem(iface Interface, op Op, opts ...opt) Semantics {
	s := Semantics{
		Interface: iface,
		Op:        op,
		Size:      Size{Count: -1, Count2: -1, Type: -1, Buf: -1},
		File:      FileRef{Arg: -1, Out: -1, Mode: -1},
		Offset:    -1,
		Whence:    -1,
		EffectArg: -1,
		Space:     -1,
		Plist:     -1,
	}
	for _, o := range opts {
		o(&s)
	}
	s.ExplicitOffset = s.Offset >= 0
	return s
}

func handle(i int) opt { return func(s *Semantics) { s.File.Kind, s.File.Arg = HandleArg, i } }
func name(i int) opt   { return func(s *Semantics) { s.File.Kind, s.File.Arg = NameArg, i } }
func out(i int) opt    { return func(s *Semantics) { s.File.Out = i } }
func mode(i int) opt   { return func(s *Semantics) { s.File.Mode = i } }
func stdout(s *Semantics) {
	s.File.Kind = Stdout
}
func stdin(s *Semantics) {
	s.File.Kind = Stdin
}
func receiver(s *Semantics) { s.File.Kind = Receiver }

// bytes: Args[n] bytes (times Args[m] when m ≥ 0), from the buffer Args[buf].
func bytes(n, m, buf int) opt {
	return func(s *Semantics) { s.Size = Size{Kind: Bytes, Count: n, Count2: m, Type: -1, Buf: buf} }
}

// elems: Args[n] elements (one when n < 0) of size elem, or of the datatype
// Args[typ] when typ ≥ 0, from the buffer Args[buf].
func elems(n, typ int, elem int64, buf int) opt {
	return func(s *Semantics) {
		s.Size = Size{Kind: Elements, Count: n, Count2: -1, Type: typ, Elem: elem, Buf: buf}
	}
}

// whole: a whole variable or dataset of elem-byte elements, known only
// through the buffer Args[buf].
func whole(elem int64, buf int) opt {
	return func(s *Semantics) {
		s.Size = Size{Kind: WholeVar, Count: -1, Count2: -1, Type: -1, Elem: elem, Buf: buf}
	}
}

// dataspace: HDF5 selection of the dataspaces Args[mem] then Args[file], of
// the memory type Args[typ], from the buffer Args[buf].
func dataspace(typ, mem, file, buf int) opt {
	return func(s *Semantics) {
		s.Size = Size{Kind: Dataspace, Count: mem, Count2: file, Type: typ, Buf: buf}
	}
}

func sized(k SizeKind, n int) opt {
	return func(s *Semantics) { s.Size = Size{Kind: k, Count: n, Count2: -1, Type: -1, Buf: -1} }
}
func format(i int) opt { return sized(Format, i) }
func text(i int) opt   { return sized(Text, i) }
func char(s *Semantics) {
	s.Size = Size{Kind: Char, Count: -1, Count2: -1, Type: -1, Buf: -1}
}
func items(s *Semantics) {
	s.Size = Size{Kind: Items, Count: -1, Count2: -1, Type: -1, Buf: -1}
}

func offset(i int) opt   { return func(s *Semantics) { s.Offset = i } }
func whence(i int) opt   { return func(s *Semantics) { s.Whence = i } }
func defMode(m Mode) opt { return func(s *Semantics) { s.DefaultMode = m } }
func effect(e Effect, i int) opt {
	return func(s *Semantics) { s.Effect, s.EffectArg = e, i }
}
func space(i int) opt         { return func(s *Semantics) { s.Space = i } }
func plist(i int) opt         { return func(s *Semantics) { s.Plist = i } }
func async(s *Semantics)      { s.Async = true }
func collective(s *Semantics) { s.Collective = true }
func formatted(s *Semantics)  { s.Formatted = true }
func dataset(s *Semantics)    { s.Dataset = true }
