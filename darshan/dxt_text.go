package darshan

import (
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"
)

// DXTOptions selects how WriteDXTText prints, like the options of
// darshan-dxt-parser.
type DXTOptions struct {
	// ShowIncomplete prints modules flagged as incomplete, with a warning,
	// instead of stopping at them.
	ShowIncomplete bool
	// Location is the time zone of the *_asci times (default time.Local).
	Location *time.Location
}

// WriteDXTText prints the DXT traces of l as darshan-dxt-parser 3.5.0 does:
// the darshan-parser preamble, then every DXT_POSIX and DXT_MPIIO record
// with one line per traced operation (and the Lustre OSTs it touched when
// the log has the file's layout). The output goes to out, warnings and
// errors to errOut. It returns an error wrapping ErrIncomplete when it stops
// at an incomplete module, and stops at the first module that cannot be
// read, returning its error.
func WriteDXTText(out, errOut io.Writer, l *Log, opts DXTOptions) error {
	t := newTextOut(out)
	writePreamble(t, l, opts.Location)
	d := &dxtRun{t: t, errOut: errOut, l: l, opts: opts}
	err := d.modules()
	if ferr := t.flush(true); err == nil {
		err = ferr
	}
	return err
}

const dxtStars = "# ***************************************************\n"

type dxtRun struct {
	t       *textOut
	errOut  io.Writer
	l       *Log
	opts    DXTOptions
	rr      RecordReader
	lustre  map[uint64]*Lustre // layouts by record id
	threads threadSet
	prefix  []byte // first columns of the segment lines being printed
}

func (d *dxtRun) modules() error {
	h := &d.l.Header
	if h.Modules[ModDXTPOSIX].Len == 0 && h.Modules[ModDXTMPIIO].Len == 0 {
		d.t.s("\n# no DXT module data available for this Darshan log.\n")
		return nil
	}
	for m := ModuleID(0); m < MaxModules; m++ {
		if h.Modules[m].Len == 0 {
			continue
		}
		var err error
		switch {
		case !m.Known():
			io.WriteString(d.errOut, unknownModuleWarning(m))
		case m == ModNull || m == ModAPXC:
			io.WriteString(d.errOut, "Warning: no log utility handlers defined for module "+m.String()+", SKIPPING.\n")
		case m == ModLustre:
			err = d.loadLustre()
		case m == ModDXTPOSIX || m == ModDXTMPIIO:
			d.t.s("\n").s(dxtStars).s("# ").s(m.String()).s(" module data\n").s(dxtStars)
			err = d.traces(m)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// incomplete prints the notice for module m when it is flagged as
// incomplete; it returns an error wrapping ErrIncomplete when printing must
// stop there.
func (d *dxtRun) incomplete(m ModuleID) error {
	if !d.l.refIncomplete(m) {
		return nil
	}
	name := m.String()
	if d.opts.ShowIncomplete {
		d.t.s(incompleteText(name, "WARNING", "", "unecessary"))
		return nil
	}
	return stopIncomplete(d.t, d.errOut, d.l, name, "darshan-dxt-parser", "unecessary")
}

// each calls fn for every record of module m; a record that cannot be read
// is reported on errOut and ends the output.
func (d *dxtRun) each(m ModuleID, fn func(*Record) error) error {
	err := d.l.eachInto(&d.rr, m, fn, ReferenceQuirks())
	if err == nil || d.t.err != nil {
		return err
	}
	if ferr := d.t.flush(true); ferr != nil {
		return ferr
	}
	io.WriteString(d.errOut, "Error: failed to parse "+m.String()+" module record.\n")
	return err
}

// loadLustre keeps the Lustre layouts, which the DXT_POSIX records use.
func (d *dxtRun) loadLustre() error {
	if err := d.incomplete(ModLustre); err != nil {
		return err
	}
	d.lustre = make(map[uint64]*Lustre)
	return d.each(ModLustre, func(r *Record) error {
		if r.Lustre != nil {
			d.lustre[r.ID] = r.Clone().Lustre
		}
		return nil
	})
}

func (d *dxtRun) traces(m ModuleID) error {
	if err := d.incomplete(m); err != nil {
		return err
	}
	return d.each(m, func(r *Record) error {
		if r.DXT != nil {
			d.trace(m, r)
		}
		return d.t.flush(false)
	})
}

// trace prints the block of one DXT record.
func (d *dxtRun) trace(m ModuleID, r *Record) {
	tr := r.DXT
	name, ok := d.l.RecordName(r.ID)
	mnt, fs := "UNKNOWN", "UNKNOWN"
	if !ok {
		name = "(null)"
	} else if mt, found := d.l.MountOf(name); found {
		mnt, fs = mt.Path, mt.FSType
	}
	t := d.t
	t.s("\n# DXT, file_id: ").u(r.ID).s(", file_name: ").s(name).s("\n")
	t.s("# DXT, rank: ").i(r.Rank).s(", hostname: ").s(tr.Hostname).s("\n")
	t.s("# DXT, number of threads: ").i(d.threads.count(tr)).s("\n")
	t.s("# DXT, write_count: ").i(int64(len(tr.Writes))).s(", read_count: ").i(int64(len(tr.Reads))).s("\n")
	t.s("# DXT, mnt_pt: ").s(mnt).s(", fs_type: ").s(fs).s("\n")
	var lu *Lustre
	if m == ModDXTPOSIX {
		lu = d.lustre[r.ID]
	}
	if lu != nil {
		writeStripes(t, lu)
	}
	t.s("# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)")
	if lu != nil {
		t.s("   [OST]")
	}
	t.s("   Pthread-ID\n")
	label := " X_POSIX"
	if m == ModDXTMPIIO {
		label = " X_MPIIO"
	}
	d.prefix = append(appendIntW(append(d.prefix[:0], label...), r.Rank, 8), "  write"...)
	d.segments(tr.Writes, lu, tr.ThreadIDs)
	d.prefix = append(d.prefix[:len(d.prefix)-7], "   read"...)
	d.segments(tr.Reads, lu, tr.ThreadIDs)
}

// writeStripes prints the components of a Lustre layout.
func writeStripes(t *textOut, lu *Lustre) {
	t.s("# DXT, Lustre stripe components:\n")
	osts := lu.OSTs
	for k, c := range lu.Components {
		t.s("#\t[Component ").i(int64(k + 1)).s("] stripe_ext: ").i(c.ExtStart).s(" - ")
		if c.ExtEnd == -1 {
			t.s("EOF")
		} else {
			t.i(c.ExtEnd)
		}
		t.s(", stripe_size: ").i(c.StripeSize).s(", stripe_count: ").i(c.StripeCount).s(", OSTs:")
		n := int(min(max(c.StripeCount, 0), int64(len(osts))))
		for _, o := range osts[:n] {
			t.s(" ").i(o)
		}
		osts = osts[n:]
		t.s("\n")
	}
}

// segments prints one line per segment, numbered from 0, as the C format
// "%8s%8d%7s%9d%16d%16d%12.4f%12.4f  " followed by the OSTs and the thread.
// The first three columns (module, rank, direction) are in d.prefix.
func (d *dxtRun) segments(segs []Segment, lu *Lustre, threads bool) {
	t := d.t
	for i := range segs {
		s := &segs[i]
		b := append(t.b, d.prefix...)
		b = appendIntW(b, int64(int32(i)), 9)
		b = appendIntW(b, s.Offset, 16)
		b = appendIntW(b, s.Length, 16)
		b = appendFixed4W(b, s.Start, 12)
		b = appendFixed4W(b, s.End, 12)
		b = append(b, "  "...)
		if lu != nil {
			b = appendOSTs(b, lu, s.Offset, s.Length)
			if len(lu.Components) > 0 {
				b = append(b, "  "...)
			}
		}
		if threads {
			b = append(b, ' ')
			b = appendUintW(b, s.ThreadID, 4)
		} else {
			b = append(b, " N/A"...)
		}
		t.b = append(b, '\n')
		if t.flush(false) != nil {
			return
		}
	}
}

// appendOSTs appends " [<ost>]" for every OST that the byte range
// [off, off+n) touches, walking the layout components in order as
// darshan-dxt-parser does: components without stripes are passed over, and
// the number of OSTs printed for the segment is capped by the stripe count
// of the component being walked. Components with a stripe size below 1 (the
// reference divides by it) or with OSTs missing from the record print
// nothing.
func appendOSTs(b []byte, lu *Lustre, off, n int64) []byte {
	w := ostWalk{cur: off, end: off + n, osts: lu.OSTs}
	for i := range lu.Components {
		c := &lu.Components[i]
		if c.StripeCount <= 0 {
			continue
		}
		if c.StripeSize > 0 && c.StripeCount <= int64(len(w.osts))-w.base &&
			c.ExtStart <= w.cur && (w.cur < c.ExtEnd || c.ExtEnd == -1) {
			b = w.component(b, c)
		}
		w.base += c.StripeCount
	}
	return b
}

// ostWalk is the state of appendOSTs carried from component to component.
type ostWalk struct {
	cur, end int64 // next byte to place, end of the segment
	base     int64 // index in osts of the first OST of the component
	printed  int64 // OSTs printed so far for the segment
	osts     []int64
}

// component appends the OSTs of component c touched from w.cur on.
func (w *ostWalk) component(b []byte, c *LustreComponent) []byte {
	size, count := c.StripeSize, c.StripeCount
	rel := w.cur - c.ExtStart
	idx := (rel / size) % count
	for w.cur < w.end && (w.cur < c.ExtEnd || c.ExtEnd == -1) {
		b = append(b, " ["...)
		b = strconv.AppendInt(b, w.osts[w.base+idx], 10)
		b = append(b, ']')
		idx = (idx + 1) % count
		rel = (rel/size + 1) * size
		w.cur = c.ExtStart + rel
		w.printed++
		if w.printed >= count {
			w.cur = c.ExtEnd
			if c.ExtEnd == -1 {
				w.cur = w.end
			}
			break
		}
	}
	return b
}

// threadSet counts the distinct thread ids of a trace.
type threadSet struct {
	ids  []uint64
	many map[uint64]struct{} // used once ids grows long
}

// count returns the number of threads darshan-dxt-parser reports for tr:
// the distinct thread ids of its segments, or 1 when the segments carry none.
func (s *threadSet) count(tr *Trace) int64 {
	if !tr.ThreadIDs || len(tr.Writes)+len(tr.Reads) == 0 {
		return 1
	}
	s.ids, s.many = s.ids[:0], nil
	last := ^firstThread(tr)
	for _, segs := range [2][]Segment{tr.Writes, tr.Reads} {
		for i := range segs {
			if id := segs[i].ThreadID; id != last {
				s.add(id)
				last = id
			}
		}
	}
	if s.many != nil {
		return int64(len(s.many))
	}
	return int64(len(s.ids))
}

// firstThread returns the thread id of the first segment of a non-empty
// trace.
func firstThread(tr *Trace) uint64 {
	if len(tr.Writes) > 0 {
		return tr.Writes[0].ThreadID
	}
	return tr.Reads[0].ThreadID
}

func (s *threadSet) add(id uint64) {
	if s.many != nil {
		s.many[id] = struct{}{}
		return
	}
	for _, v := range s.ids {
		if v == id {
			return
		}
	}
	s.ids = append(s.ids, id)
	if len(s.ids) > 32 {
		s.many = make(map[uint64]struct{}, 2*len(s.ids))
		for _, v := range s.ids {
			s.many[v] = struct{}{}
		}
	}
}

// appendDecimal appends the decimal digits of v, with a leading '-' if neg
// and, if fixed4, a '.' before the last four digits (v is then in units of
// 10^-4), right-aligned in a field of w columns as C's printf pads (longer
// values are not cut). The digits are written in place, two at a time: this
// runs for every field of every segment.
func appendDecimal(b []byte, v uint64, neg, fixed4 bool, w int) []byte {
	var low uint64 // the fraction digits
	n := 0
	if fixed4 {
		v, low = v/10000, v%10000
		n = 5
	}
	n += decimalDigits(v)
	if neg {
		n++
	}
	start := len(b)
	pad := max(w-n, 0)
	b = slices.Grow(b, pad+n)[:start+pad+n]
	for i := start; i < start+pad; i++ {
		b[i] = ' '
	}
	i := len(b)
	if fixed4 {
		i = putDigits(b, i, low%100)
		i = putDigits(b, i, low/100)
		i--
		b[i] = '.'
	}
	for v >= 100 {
		q := v / 100
		i = putDigits(b, i, v-100*q)
		v = q
	}
	if v >= 10 {
		i = putDigits(b, i, v)
	} else {
		i--
		b[i] = byte('0' + v)
	}
	if neg {
		b[i-1] = '-'
	}
	return b
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// putDigits writes the two digits of v < 100 before b[i] and returns the
// index of the first.
func putDigits(b []byte, i int, v uint64) int {
	b[i-2], b[i-1] = digitPairs[2*v], digitPairs[2*v+1]
	return i - 2
}

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// decimalDigits returns the number of decimal digits of v (1 for 0).
func decimalDigits(v uint64) int {
	d := bits.Len64(v|1) * 1233 >> 12 // ≈ log10(2^bits)
	if v >= pow10[d] {
		d++
	}
	return max(d, 1)
}

// appendIntW appends v as C's "%<w>d".
func appendIntW(b []byte, v int64, w int) []byte {
	if v < 0 {
		return appendDecimal(b, uint64(-v), true, false, w)
	}
	return appendDecimal(b, uint64(v), false, false, w)
}

// appendUintW appends v as C's "%<w>lu".
func appendUintW(b []byte, v uint64, w int) []byte {
	return appendDecimal(b, v, false, false, w)
}

// appendFixed4W appends v as C's "%<w>.4f". strconv formats a fixed
// precision through multi-precision arithmetic; for the usual non-negative
// values below 1e9 it is enough to scale by 10^4 and round, unless the
// scaled value lies so close to a rounding tie that the error of the
// multiplication (at most half an ulp) could decide it, in which case
// strconv decides.
func appendFixed4W(b []byte, v float64, w int) []byte {
	if math.Signbit(v) || !(v < 1e9) {
		return appendSlowW(b, v, w)
	}
	y := v * 1e4
	whole := math.Floor(y)
	frac := y - whole // exact: y < 2^52
	if math.Abs(frac-0.5) <= y*0x1p-52 {
		return appendSlowW(b, v, w)
	}
	r := uint64(whole)
	if frac > 0.5 {
		r++
	}
	return appendDecimal(b, r, false, true, w)
}

// appendSlowW is appendFixed4W through strconv.
func appendSlowW(b []byte, v float64, w int) []byte {
	var tmp [32]byte
	digits := appendCFloat(tmp[:0], v, 4)
	for n := len(digits); n < w; n++ {
		b = append(b, ' ')
	}
	return append(b, digits...)
}
