package darshan

import (
	"fmt"
	"io"
	"strconv"
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

// RecordReader iterates over the records of one module region.
type RecordReader struct {
	log  *Log
	mod  ModuleID
	data []byte
	off  int
	n    int
	dec  decoder
	rec  Record
	err  error
	// inflate is the reader's own, so that readers of one Log can run
	// concurrently.
	inflate inflater
}

// Records decompresses the region of module m and returns a reader over its
// records. A module without data yields a reader with no records. Unknown
// module ids and unsupported module versions are errors.
func (l *Log) Records(m ModuleID, opts ...ReadOption) (*RecordReader, error) {
	rr := &RecordReader{log: l}
	if err := rr.open(m, opts...); err != nil {
		return nil, err
	}
	return rr, nil
}

// open prepares rr to read the records of module m of rr.log, reusing the
// buffers of its previous module.
func (rr *RecordReader) open(m ModuleID, opts ...ReadOption) error {
	rr.mod, rr.off, rr.n, rr.err = m, 0, 0, nil
	rr.data = rr.data[:0]
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
	data, err := rr.inflate.inflate(rr.data[:0], comp, l.Header.Compression, l.MaxRegionSize, false)
	if err != nil {
		return l.errorAt(part, -1, err)
	}
	rr.data = data
	rr.dec = decoder{
		mod:    m,
		ver:    ver,
		big:    isBigEndian(l.Header.ByteOrder),
		h5fVer: l.Header.ModuleVersions[ModH5F],
	}
	for _, o := range opts {
		o(&rr.dec)
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
		if rr.off >= len(rr.data) {
			rr.err = io.EOF
			return nil, io.EOF
		}
		n, keep, err := rr.dec.decode(rr.data[rr.off:], &rr.rec)
		if err != nil {
			rr.err = rr.log.errorAt("module "+rr.mod.String(), int64(rr.off), fmt.Errorf("record %d: %w", rr.n, err))
			return nil, rr.err
		}
		if n == 0 {
			// A trailing partial record of a fixed-size module: ignored, as
			// by the reference reader.
			rr.err = io.EOF
			return nil, io.EOF
		}
		rr.off += n
		rr.n++
		if keep {
			rr.rec.Module = rr.mod
			return &rr.rec, nil
		}
	}
}

// Module returns the module whose records the reader returns.
func (rr *RecordReader) Module() ModuleID { return rr.mod }

// Version returns the record version stored in the log for the module.
func (rr *RecordReader) Version() uint32 { return rr.dec.ver }

// Each calls fn for every record of module m.
func (l *Log) Each(m ModuleID, fn func(*Record) error, opts ...ReadOption) error {
	return l.eachInto(new(RecordReader), m, fn, opts...)
}
