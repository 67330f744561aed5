package darshan

import (
	"fmt"
	"io"
	"strconv"
	"sync"
)

// Record is one record of a module, converted to the module's current
// record version. Counters and FCounters follow the module's tables
// ([ModuleID.Info]); the remaining fields are set only for the modules that
// carry such data.
type Record struct {
	Module    ModuleID
	ID        uint64 // record id: hash of the record's name
	Rank      int64  // MPI rank, or -1 for a record shared by all ranks
	Counters  []int64
	FCounters []float64

	// FileRecID is the id of the file record an H5D or PNETCDF_VAR record
	// belongs to.
	FileRecID uint64
	// PoolUUID and ContUUID identify the DAOS pool and container of DFS and
	// DAOS records; OIDHi and OIDLo the DAOS object of a DAOS record.
	PoolUUID, ContUUID [16]byte
	OIDHi, OIDLo       uint64

	Lustre  *Lustre  // LUSTRE striping layout
	DXT     *Trace   // DXT_POSIX and DXT_MPIIO segments
	Heatmap *Heatmap // HEATMAP bins
	// Servers holds the per-server operation counts of an MDHIM record.
	Servers []int64
	// Header is set on the first record of an APMPI or APXC region, whose
	// counters follow Module.HeaderCounters and Module.HeaderFCounters.
	Header bool
	// NodeName is the processor name of an APMPI record.
	NodeName string
}

// Lustre is the striping layout of a file on Lustre.
type Lustre struct {
	Components []LustreComponent
	// OSTs lists the OST indices of all components, component by component.
	OSTs []int64
}

// LustreComponent is one component of a (possibly progressive) layout.
type LustreComponent struct {
	StripeSize, StripeCount, StripePattern, Flags int64
	ExtStart, ExtEnd                              int64 // ExtEnd -1 means end of file
	MirrorID                                      int64
	PoolName                                      string
}

// Trace is the DXT trace of one file in one process.
type Trace struct {
	Hostname string
	// Writes and Reads are the traced operations in the order they were
	// issued.
	Writes, Reads []Segment
	// ThreadIDs tells whether the segments carry the id of the calling
	// thread (DXT_POSIX 2 and DXT_MPIIO 3 onwards).
	ThreadIDs bool
}

// Segment is one traced operation.
type Segment struct {
	Offset     int64 // -1 when not recorded (DXT_MPIIO 1)
	Length     int64
	Start, End float64 // seconds since the process started tracing
	ThreadID   uint64
}

// Heatmap holds the bytes moved by one process through one module, per time
// bin of BinWidth seconds.
type Heatmap struct {
	BinWidth    float64
	Write, Read []int64
}

// Clone returns a deep copy of r, which stays valid after the reader that
// returned r moves on.
func (r *Record) Clone() *Record {
	c := *r
	c.Counters = append([]int64(nil), r.Counters...)
	c.FCounters = append([]float64(nil), r.FCounters...)
	c.Servers = append([]int64(nil), r.Servers...)
	if r.Lustre != nil {
		c.Lustre = &Lustre{
			Components: append([]LustreComponent(nil), r.Lustre.Components...),
			OSTs:       append([]int64(nil), r.Lustre.OSTs...),
		}
	}
	if r.DXT != nil {
		t := *r.DXT
		t.Writes = append([]Segment(nil), t.Writes...)
		t.Reads = append([]Segment(nil), t.Reads...)
		c.DXT = &t
	}
	if r.Heatmap != nil {
		hm := *r.Heatmap
		hm.Write = append([]int64(nil), hm.Write...)
		hm.Read = append([]int64(nil), hm.Read...)
		c.Heatmap = &hm
	}
	return &c
}

// Counter returns the value of the named integer counter, and whether the
// record's module has it.
func (r *Record) Counter(name string) (int64, bool) {
	i := r.Module.CounterIndex(name)
	if i < 0 || i >= len(r.Counters) {
		return 0, false
	}
	return r.Counters[i], true
}

// FCounter returns the value of the named floating-point counter, and
// whether the record's module has it.
func (r *Record) FCounter(name string) (float64, bool) {
	i := r.Module.FCounterIndex(name)
	if i < 0 || i >= len(r.FCounters) {
		return 0, false
	}
	return r.FCounters[i], true
}

// ReadOption changes how records are decoded.
type ReadOption func(*decoder)

// ReferenceQuirks makes the reader reproduce the known decoding errors of
// the reference darshan-util library (lossy up-conversion of old POSIX
// records, unswapped fields in big-endian logs, garbled heatmap bins), so
// that text output matches darshan-parser byte for byte. Without it the
// reader returns the values the log really holds.
func ReferenceQuirks() ReadOption { return func(d *decoder) { d.quirks = true } }

// RecordReader iterates over the records of one module region. The region
// is decompressed as the records are read, through a window of a few
// hundred KiB, so memory does not grow with the region; a large region is
// decompressed one window ahead on another goroutine while the records of
// the current window are decoded.
type RecordReader struct {
	log *Log
	mod ModuleID
	n   int // records decoded
	dec decoder
	rec Record
	err error

	// win[off:end] are the decompressed bytes not decoded yet; win[0] is
	// at offset base of the region. done is set once the region has no
	// bytes after win[end]; srcErr is then why it stopped early, if it did.
	win      []byte
	off, end int
	base     int64
	done     bool
	srcErr   error
	winChunk bool // win is one of the chunk buffers (not big or whole)

	src     *inflateStream
	ahead   bool             // decompress one chunk ahead of the window
	pending chan filledChunk // the chunk being decompressed ahead, or nil
	free    [][]byte         // chunk buffers not in use
	big     []byte           // window for records larger than reserve
	whole   []byte           // the whole region, for wholeRegion readers
	// inflate is the reader's own, so that readers of one Log can run
	// concurrently.
	inflate inflater
}

// Window geometry: regions are decompressed in chunks of chunkSize bytes,
// each placed after a reserve into which the undecoded tail of the previous
// window is copied, so that a record split between two chunks is decoded
// without copying the chunk. Records longer than reserve are assembled in
// a separate buffer.
const (
	chunkSize = 256 << 10
	reserve   = 64 << 10
	// aheadMin is the smallest compressed region decompressed ahead on
	// another goroutine; smaller ones are not worth the hand-over.
	aheadMin = 64 << 10
)

// filledChunk is a chunk buffer with n decompressed bytes after its
// reserve, and the error (io.EOF at the end of the region) that ended it.
type filledChunk struct {
	buf []byte
	n   int
	err error
}

// Records returns a reader over the records of module m, decompressing the
// module's region as the records are read. A module without data yields a
// reader with no records. Unknown module ids, unsupported module versions
// and a region whose start cannot be decompressed are errors; damage
// further into the region is reported by Next after the records before it.
// Like zlib's own readers, Next may find damage only at the checksum that
// ends a stream, so records just before such an error may come from the
// damaged part.
func (l *Log) Records(m ModuleID, opts ...ReadOption) (*RecordReader, error) {
	rr := &RecordReader{log: l}
	if err := rr.open(m, false, opts...); err != nil {
		return nil, err
	}
	return rr, nil
}

// open prepares rr to read the records of module m of rr.log, reusing the
// buffers of its previous module. With wholeRegion the region is
// decompressed at once and stays in rr.whole, for readers that go back to
// earlier records.
func (rr *RecordReader) open(m ModuleID, wholeRegion bool, opts ...ReadOption) error {
	rr.drain()
	if rr.winChunk {
		rr.free = append(rr.free, rr.win)
	}
	rr.mod, rr.n, rr.err = m, 0, nil
	rr.win, rr.off, rr.end, rr.base = nil, 0, 0, 0
	rr.done, rr.srcErr, rr.winChunk, rr.src, rr.ahead = true, nil, false, nil, false
	rr.dec = decoder{}
	l := rr.log
	part := "module " + m.String()
	if !m.Known() {
		part = "module id " + strconv.Itoa(int(m))
	}
	if m < 0 || m >= MaxModules {
		return l.errorAt(part, -1, errorf(ErrUnknownModule, "module id %d out of range", int(m)))
	}
	g := l.Header.Modules[m]
	if g.Len == 0 {
		return nil
	}
	if !m.Known() {
		return l.errorAt(part, -1, errorf(ErrUnknownModule, "module id %d is not known to this reader", int(m)))
	}
	ver := l.Header.ModuleVersions[m]
	if ver == 0 || ver > modules[m].Version {
		return l.errorAt(part, -1, errorf(ErrModuleVersion, "record version %d (this reader knows 1 to %d)", ver, modules[m].Version))
	}
	comp, err := l.readRegion(part, g)
	if err != nil {
		return err
	}
	rr.inflate.progress = &l.consumed
	rr.dec = decoder{
		mod:    m,
		ver:    ver,
		big:    isBigEndian(l.Header.ByteOrder),
		h5fVer: l.Header.ModuleVersions[ModH5F],
	}
	for _, o := range opts {
		o(&rr.dec)
	}
	if wholeRegion {
		data, err := rr.inflate.inflate(rr.whole[:0], comp, l.Header.Compression, l.MaxRegionSize, false)
		if err != nil {
			return l.errorAt(part, -1, err)
		}
		rr.whole, rr.win, rr.end = data, data, len(data)
		return nil
	}
	rr.src = rr.inflate.open(comp, l.Header.Compression, l.MaxRegionSize, false)
	rr.done, rr.ahead = false, len(comp) >= aheadMin
	if err := rr.more(); err != nil {
		return err
	}
	if rr.end == rr.off && rr.srcErr != nil {
		// Nothing could be decompressed: fail now rather than at Next.
		return l.errorAt(part, -1, rr.srcErr)
	}
	return nil
}

// Next returns the next record, or io.EOF after the last one. The record
// and everything it points to are reused by the following call.
func (rr *RecordReader) Next() (*Record, error) {
	if rr.err != nil {
		return nil, rr.err
	}
	for {
		if rr.off == rr.end && !rr.done {
			if rr.err = rr.more(); rr.err != nil {
				return nil, rr.err
			}
			continue
		}
		if rr.off == rr.end {
			return nil, rr.stop(nil)
		}
		n, keep, err := rr.dec.decode(rr.win[rr.off:rr.end], &rr.rec)
		if err != nil || n == 0 {
			if !rr.done {
				// The record continues after the window: read at least the
				// rest of it when its size is known, else the next chunk.
				more := rr.more
				if want := rr.dec.size(rr.win[rr.off:rr.end]); want > reserve {
					more = func() error { return rr.moreFor(want) }
				}
				if rr.err = more(); rr.err != nil {
					return nil, rr.err
				}
				continue
			}
			if err == nil {
				// A trailing partial record of a fixed-size module:
				// ignored, as by the reference reader.
				return nil, rr.stop(nil)
			}
			return nil, rr.stop(fmt.Errorf("record %d: %w", rr.n, err))
		}
		rr.off += n
		rr.n++
		if keep {
			rr.rec.Module = rr.mod
			return &rr.rec, nil
		}
	}
}

// stop ends the iteration with the decoding error err (nil at the end of
// the region). An error of the region's decompression takes precedence: it
// is why the last record was cut short.
func (rr *RecordReader) stop(err error) error {
	part := "module " + rr.mod.String()
	switch {
	case rr.srcErr != nil:
		rr.err = rr.log.errorAt(part, -1, rr.srcErr)
	case err != nil:
		rr.err = rr.log.errorAt(part, rr.base+int64(rr.off), err)
	default:
		rr.err = io.EOF
	}
	rr.release()
	return rr.err
}

// chunkPool keeps chunk buffers (reserve+chunkSize bytes) between readers:
// a program that reads many small logs would otherwise allocate and zero
// one for every module of every log.
var chunkPool = sync.Pool{New: func() any { return make([]byte, reserve+chunkSize) }}

// release gives the chunk buffers of a reader that has returned its last
// record back to chunkPool.
func (rr *RecordReader) release() {
	rr.drain()
	if rr.winChunk {
		rr.free = append(rr.free, rr.win)
		rr.win, rr.off, rr.end, rr.winChunk = nil, 0, 0, false
	}
	for _, b := range rr.free {
		chunkPool.Put(b)
	}
	rr.free = nil
}

// more brings the next chunk of the region into the window, after the
// bytes not decoded yet, and starts decompressing the one after it.
func (rr *RecordReader) more() error {
	c := rr.nextChunk()
	left := rr.win[rr.off:rr.end]
	data := c.buf[reserve : reserve+c.n]
	if rr.winChunk {
		rr.free = append(rr.free, rr.win)
	}
	if len(left) <= reserve {
		start := reserve - len(left)
		copy(c.buf[start:], left)
		rr.base += int64(rr.off - start)
		rr.win, rr.off, rr.end, rr.winChunk = c.buf, start, reserve+c.n, true
	} else {
		// A record longer than the reserve: gather it in big. When the
		// window is big already, left only moves if records before it
		// were decoded.
		if inBig := !rr.winChunk && len(rr.win) > 0 && &rr.win[0] == &rr.big[0]; !inBig || rr.off > 0 {
			rr.big = append(rr.big[:0], left...)
		} else {
			rr.big = rr.big[:len(left)]
		}
		rr.big = append(rr.big, data...)
		rr.free = append(rr.free, c.buf)
		rr.base += int64(rr.off)
		rr.win, rr.off, rr.end, rr.winChunk = rr.big, 0, len(rr.big), false
	}
	if c.err != nil {
		rr.done = true
		if c.err != io.EOF {
			rr.srcErr = c.err
		}
		return nil
	}
	if rr.ahead {
		rr.fetch()
	}
	return nil
}

// moreFor brings the next want bytes of the region into the window at
// once, for a large record whose size is known: they are decompressed
// straight into big rather than gathered from chunks.
func (rr *RecordReader) moreFor(want int) error {
	left := rr.win[rr.off:rr.end]
	// A corrupt record may claim any size: past 64 MiB, grow to at most
	// four times the bytes really there, so that memory follows them
	// (and a large record is copied once or twice, not at every doubling).
	want = min(want, max(4*len(left), 64<<20))
	if cap(rr.big) < want+chunkSize {
		rr.big = make([]byte, 0, want+chunkSize)
	}
	big := rr.big[:copy(rr.big[:len(left)], left)]
	if rr.winChunk {
		rr.free = append(rr.free, rr.win)
	}
	end := func(err error) {
		if err != nil {
			rr.done = true
			if err != io.EOF {
				rr.srcErr = err
			}
		}
	}
	if rr.pending != nil {
		c := <-rr.pending
		rr.pending = nil
		big = append(big, c.buf[reserve:reserve+c.n]...)
		rr.free = append(rr.free, c.buf)
		end(c.err)
	}
	if len(big) < want && !rr.done {
		n, err := readFull(rr.src, big[len(big):want])
		big = big[:len(big)+n]
		end(err)
	}
	rr.big = big
	rr.base += int64(rr.off)
	rr.win, rr.off, rr.end, rr.winChunk = big, 0, len(big), false
	if !rr.done && rr.ahead {
		rr.fetch()
	}
	return nil
}

// nextChunk returns the chunk decompressed ahead, or decompresses one now.
func (rr *RecordReader) nextChunk() filledChunk {
	if rr.pending != nil {
		c := <-rr.pending
		rr.pending = nil
		return c
	}
	buf := rr.chunkBuffer()
	n, err := readFull(rr.src, buf[reserve:])
	return filledChunk{buf, n, err}
}

// fetch starts decompressing the next chunk on another goroutine. The
// goroutine ends after that one chunk, even if the reader is abandoned.
func (rr *RecordReader) fetch() {
	buf, src := rr.chunkBuffer(), rr.src
	ch := make(chan filledChunk, 1)
	go func() {
		n, err := readFull(src, buf[reserve:])
		ch <- filledChunk{buf, n, err}
	}()
	rr.pending = ch
}

// drain waits for a chunk still being decompressed ahead, so that the
// decompressor can be reused.
func (rr *RecordReader) drain() {
	if rr.pending != nil {
		c := <-rr.pending
		rr.pending = nil
		rr.free = append(rr.free, c.buf)
	}
}

func (rr *RecordReader) chunkBuffer() []byte {
	if n := len(rr.free); n > 0 {
		b := rr.free[n-1]
		rr.free = rr.free[:n-1]
		return b
	}
	return chunkPool.Get().([]byte)
}

// Module returns the module whose records the reader returns.
func (rr *RecordReader) Module() ModuleID { return rr.mod }

// Version returns the record version stored in the log for the module.
func (rr *RecordReader) Version() uint32 { return rr.dec.ver }

// Each calls fn for every record of module m.
func (l *Log) Each(m ModuleID, fn func(*Record) error, opts ...ReadOption) error {
	return l.eachInto(new(RecordReader), m, fn, opts...)
}
