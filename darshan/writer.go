package darshan

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dsnet/compress/bzip2"
	"github.com/klauspost/compress/zlib"
)

// Sentinel errors of the writer, wrapped by the [WriteError] values it
// returns; test them with errors.Is.
var (
	// ErrInvalidRecord: a record, name or job field does not fit the log
	// format (wrong counter count, string too long, missing trace, ...).
	ErrInvalidRecord = errors.New("invalid record")
	// ErrWriteOrder: a Writer method was called out of order (a module
	// after a higher one, a record before BeginModule, ...).
	ErrWriteOrder = errors.New("writer call out of order")
)

// WriteError reports a problem met while writing a log: which part of it
// was being written and, for module records, which record.
type WriteError struct {
	File   string // log being converted (set by Convert), or empty
	Part   string // "job region", "name region", "module POSIX", "header", ...
	Record int    // index of the record within its module, or -1
	Err    error  // what is wrong; wraps a sentinel error or an I/O error
}

func (e *WriteError) Error() string {
	s := "darshan: "
	if e.File != "" {
		s += "converting " + e.File + ": "
	}
	s += "writing " + e.Part
	if e.Record >= 0 {
		s += fmt.Sprintf(": record %d", e.Record)
	}
	return s + ": " + e.Err.Error()
}

func (e *WriteError) Unwrap() error { return e.Err }

// WriterOptions configures a [Writer].
type WriterOptions struct {
	// Compression of every region: CompressZlib (the zero value, as the
	// Darshan runtime writes), CompressBzip2 (as darshan-convert --bzip2)
	// or CompressNone.
	Compression Compression
	// Fast selects the fastest zlib level instead of the default one:
	// logs are a little larger and written several times faster, which
	// suits logs written at the end of a run.
	Fast bool
	// DXTThreads writes DXT segments with the id of the calling thread:
	// DXT_POSIX version 2 and DXT_MPIIO version 3, which only Darshan
	// newer than 3.5.0 reads. Without it, DXT_POSIX version 1 and
	// DXT_MPIIO version 2 are written, as by every Darshan release from
	// 3.2.0 to 3.5.0, and thread ids are left out.
	DXTThreads bool
}

// Writer writes a Darshan log in the current format (3.41), little-endian
// whatever the host, streaming every region straight to the output.
//
// Calls must come in this order:
//
//  1. WriteJob, once;
//  2. WriteNames, at most once (without it the log has no name region);
//  3. for each module with records, in strictly increasing module id
//     order: BeginModule, then WriteRecord for each of its records;
//  4. Close, which writes the header.
//
// SetPartial may be called at any time before Close. Each region is one
// compressed stream; regions are contiguous, starting with the job region
// right after the 1328-byte header. Records are written in the current
// record version of their module ([Module.Version]; for DXT see
// [WriterOptions.DXTThreads]). A module begun without records gets an
// empty region.
//
// A call rejected for bad arguments or order leaves the Writer usable; an
// I/O error (or a bad name in WriteNames) makes every later call fail with
// the same error. The Writer never closes the io.WriterAt. A Writer must
// not be used from several goroutines at once.
type Writer struct {
	w     io.WriterAt
	hdr   Header
	state writerState
	err   error // sticky: I/O errors and half-written regions

	cur  ModuleID // module being written, -1 before the first
	nrec int      // records written in module cur
	pos  uint64   // file offset where the next region starts
	out  regionStream
	buf  []byte // encoding scratch, reused for every record
	// threads writes DXT segments with thread ids (WriterOptions.DXTThreads).
	threads bool
}

type writerState uint8

const (
	stateNew        writerState = iota // expecting WriteJob
	stateJob                           // job written: names or modules next
	stateModules                       // names written or modules started
	stateExtensions                    // extension regions started (each written whole)
	stateClosed
)

// NewWriter returns a Writer producing a log in w with the given options.
// w should be empty (a converted log shorter than earlier content would
// leave stale bytes at its end).
func NewWriter(w io.WriterAt, opts WriterOptions) *Writer {
	wr := &Writer{w: w, cur: -1, pos: headerSize341, threads: opts.DXTThreads}
	wr.hdr.Compression = opts.Compression
	wr.out.comp = opts.Compression
	wr.out.fast = opts.Fast
	if opts.Compression > CompressNone {
		wr.err = &WriteError{Part: "log", Record: -1,
			Err: fmt.Errorf("unknown compression method %d", opts.Compression)}
	}
	return wr
}

// partError wraps err with the part of the log being written.
func partError(part string, err error) error {
	return &WriteError{Part: part, Record: -1, Err: err}
}

// fail records a fatal error: the log cannot be completed after it.
func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

// usable returns the sticky error, or an order error when the Writer is
// closed.
func (w *Writer) usable(part string) error {
	if w.err != nil {
		return w.err
	}
	if w.state == stateClosed {
		return partError(part, errorf(ErrWriteOrder, "writer already closed"))
	}
	return nil
}

// WriteJob writes the job region: the job record, the command line exe and
// the mount table. Non-empty metadata lacking a final newline gets one. The
// mount entries are written in reverse order (as the Darshan utilities do),
// so a reader lists entries of equal path length in the reverse of mounts.
// The text after the job record is cut to keep the region within the 4096
// bytes readers decode: the command line is shortened if it alone is too
// long, and mount entries that no longer fit are left out whole.
func (w *Writer) WriteJob(job Job, exe string, mounts []Mount) error {
	const part = "job region"
	if err := w.usable(part); err != nil {
		return err
	}
	if w.state != stateNew {
		return partError(part, errorf(ErrWriteOrder, "job already written"))
	}
	data, err := encodeJob(job, exe, mounts)
	if err != nil {
		return partError(part, err)
	}
	if _, err := w.writeRegion(part, slices.Values([][]byte{data})); err != nil {
		return err
	}
	w.state = stateJob
	return nil
}

// WriteNames writes the name region from names, which yields (record id,
// name) pairs in the order they are to be stored. Names must not contain
// NUL bytes; such a name stops the iteration, and the Writer, with an
// error. It must come after WriteJob and before the first BeginModule, and
// may be omitted when the log has no names.
func (w *Writer) WriteNames(names iter.Seq2[uint64, string]) error {
	const part = "name region"
	if err := w.usable(part); err != nil {
		return err
	}
	if w.state != stateJob {
		return partError(part, errorf(ErrWriteOrder, "names must follow the job and precede the modules"))
	}
	w.state = stateModules
	var bad error
	entries := func(yield func([]byte) bool) {
		for id, name := range names {
			if strings.IndexByte(name, 0) >= 0 {
				bad = errorf(ErrInvalidRecord, "name of record %d contains a NUL byte", id)
				return
			}
			w.buf = binary.LittleEndian.AppendUint64(w.buf[:0], id)
			w.buf = append(append(w.buf, name...), 0)
			if !yield(w.buf) {
				return
			}
		}
	}
	g, err := w.writeRegion(part, entries)
	if err != nil {
		return err
	}
	if bad != nil {
		return w.fail(partError(part, bad))
	}
	w.hdr.Names = g
	return nil
}

// writeRegion writes the chunks as one region starting at the current
// position. It returns the region, {0,0} when no byte was written.
func (w *Writer) writeRegion(part string, chunks iter.Seq[[]byte]) (Region, error) {
	var werr error
	for c := range chunks {
		if werr = w.writeData(c); werr != nil {
			break
		}
	}
	g, err := w.endRegion()
	if werr == nil {
		werr = err
	}
	if werr != nil {
		return Region{}, w.fail(partError(part, werr))
	}
	return g, nil
}

// writeData appends b to the current region, starting the region's stream
// if b is its first data.
func (w *Writer) writeData(b []byte) error {
	if !w.out.open {
		if err := w.out.begin(w.w, w.pos); err != nil {
			return err
		}
	}
	_, err := w.out.Write(b)
	return err
}

// endRegion ends the current region's stream, if one was started, and
// returns the region it occupies.
func (w *Writer) endRegion() (Region, error) {
	if !w.out.open {
		return Region{}, nil
	}
	g, err := w.out.end()
	w.pos = g.Off + g.Len
	return g, err
}

// BeginModule starts the region of module m, ending the previous module's.
// Modules must come in strictly increasing id order and be known to this
// package (ids below NumKnownModules).
func (w *Writer) BeginModule(m ModuleID) error {
	part := "module " + m.String()
	if err := w.usable(part); err != nil {
		return err
	}
	switch {
	case w.state == stateNew:
		return partError(part, errorf(ErrWriteOrder, "BeginModule before WriteJob"))
	case !m.Known():
		return partError(part, errorf(ErrUnknownModule, "module id %d cannot be written", int(m)))
	case m <= w.cur:
		return partError(part, errorf(ErrWriteOrder, "module %s after module %s: modules must come in increasing id order", m, w.cur))
	}
	if err := w.endModule(); err != nil {
		return err
	}
	w.state, w.cur, w.nrec = stateModules, m, 0
	return nil
}

// endModule ends the region of the current module and enters it in the
// header.
func (w *Writer) endModule() error {
	if w.cur < 0 || w.state == stateExtensions {
		return nil
	}
	// A module without records still gets its (empty) region, so that
	// converting a log keeps every region it has.
	if err := w.writeData(nil); err != nil {
		return w.fail(partError("module "+w.cur.String(), err))
	}
	g, err := w.endRegion()
	if err != nil {
		return w.fail(partError("module "+w.cur.String(), err))
	}
	w.hdr.Modules[w.cur] = g
	w.hdr.ModuleVersions[w.cur] = w.version(w.cur)
	return nil
}

// version returns the record version the Writer writes for module m: the
// newest, except for DXT without thread ids.
func (w *Writer) version(m ModuleID) uint32 {
	switch {
	case w.threads:
	case m == ModDXTPOSIX:
		return 1
	case m == ModDXTMPIIO:
		return 2
	}
	return modules[m].Version
}

// WriteRecord appends r, a record of the module begun last, to its region.
// Its counter slices must have the lengths of the module's tables (the
// header tables for the header record of APMPI and APXC, which must be the
// module's first record), and the module's extra data must be present and
// fit the format (see [Record]). For LUSTRE records the two counters are
// recomputed from r.Lustre, whose unused components (stripe size -1) and
// everything after them are left out; the counters are kept as given only
// for a record without components. DXT segments carry their thread ids
// only with WriterOptions.DXTThreads.
func (w *Writer) WriteRecord(r *Record) error {
	if w.cur < 0 || w.state != stateModules {
		if err := w.usable("record"); err != nil {
			return err
		}
		return partError("record", errorf(ErrWriteOrder, "WriteRecord before BeginModule"))
	}
	part := "module " + w.cur.String()
	if err := w.usable(part); err != nil {
		return err
	}
	b, err := w.encode(r)
	w.buf = b[:0]
	if err != nil {
		return &WriteError{Part: part, Record: w.nrec, Err: err}
	}
	if err := w.writeData(b); err != nil {
		return w.fail(&WriteError{Part: part, Record: w.nrec, Err: err})
	}
	w.nrec++
	return nil
}

// WriteExtension writes the region of extension module m (see
// [ModuleID.IsExtension]) holding data, uncompressed, at the given version.
// Extension regions come after every Darshan module, in increasing id
// order; an empty data writes nothing.
func (w *Writer) WriteExtension(m ModuleID, version uint32, data []byte) error {
	part := "module id " + strconv.Itoa(int(m))
	if err := w.usable(part); err != nil {
		return err
	}
	switch {
	case w.state == stateNew:
		return partError(part, errorf(ErrWriteOrder, "WriteExtension before WriteJob"))
	case !m.IsExtension():
		return partError(part, errorf(ErrUnknownModule, "module id %d is not an extension module", int(m)))
	case m <= w.cur:
		return partError(part, errorf(ErrWriteOrder, "module id %d after module %s: modules must come in increasing id order", int(m), w.cur))
	}
	if err := w.endModule(); err != nil {
		return err
	}
	w.state, w.cur = stateExtensions, m
	if len(data) == 0 {
		return nil
	}
	if err := w.writeData(data); err != nil {
		return w.fail(partError(part, err))
	}
	g, err := w.endRegion()
	if err != nil {
		return w.fail(partError(part, err))
	}
	w.hdr.Modules[m] = g
	w.hdr.ModuleVersions[m] = version
	return nil
}

// SetPartial flags module m as holding incomplete data (bit m of the
// header's partial flag). Ids outside 0–63 are ignored.
func (w *Writer) SetPartial(m ModuleID) {
	if m >= 0 && m < MaxModules {
		w.hdr.Partial |= 1 << uint(m)
	}
}

// Close ends the last module region and writes the header. The log is
// complete only when Close returns nil.
func (w *Writer) Close() error {
	if err := w.usable("header"); err != nil {
		return err
	}
	if w.state == stateNew {
		return partError("header", errorf(ErrWriteOrder, "Close before WriteJob"))
	}
	if err := w.endModule(); err != nil {
		return err
	}
	w.state = stateClosed
	if _, err := w.w.WriteAt(encodeHeader(&w.hdr, binary.LittleEndian), 0); err != nil {
		return w.fail(partError("header", err))
	}
	return nil
}

// Convert rewrites the log src into dst in the current format (3.41) with
// the given options: job record, command line, mount table, every name,
// the records of every known module (read without [ReferenceQuirks] and
// converted to the current record versions; DXT segments keep their thread
// ids when src has them), the extension regions of iolens (unchanged) and
// the partial flags. Every region of a known module is kept, empty ones
// included; regions of modules unknown to this package are dropped. The mount table is written so that reading dst
// yields src.Mounts in the same order.
func Convert(dst io.WriterAt, src *Log, opts WriterOptions) error {
	v := src.Header.ModuleVersions
	if src.Header.Modules[ModDXTPOSIX].Len > 0 && v[ModDXTPOSIX] >= 2 || src.Header.Modules[ModDXTMPIIO].Len > 0 && v[ModDXTMPIIO] >= 3 {
		opts.DXTThreads = true
	}
	w := NewWriter(dst, opts)
	mounts := slices.Clone(src.Mounts)
	slices.Reverse(mounts)
	if err := w.WriteJob(src.Job, src.Exe, mounts); err != nil {
		return convertError(src, err)
	}
	if err := w.WriteNames(src.Names()); err != nil {
		return convertError(src, err)
	}
	for m := ModuleID(0); m < NumKnownModules; m++ {
		if src.Header.Modules[m].Len == 0 {
			continue
		}
		if err := w.BeginModule(m); err != nil {
			return convertError(src, err)
		}
		if err := src.Each(m, w.WriteRecord); err != nil {
			return convertError(src, err)
		}
	}
	for m := ModuleID(NumKnownModules); m < MaxModules; m++ {
		if !m.IsExtension() || src.Header.Modules[m].Len == 0 {
			continue
		}
		data, ver, err := src.Extension(m)
		if err != nil {
			return convertError(src, err)
		}
		if err := w.WriteExtension(m, ver, data); err != nil {
			return convertError(src, err)
		}
	}
	w.hdr.Partial = src.Header.Partial
	return convertError(src, w.Close())
}

// convertError names the converted log in writer errors; reader errors
// already name it.
func convertError(src *Log, err error) error {
	var we *WriteError
	if errors.As(err, &we) && we.File == "" {
		c := *we
		c.File = src.Name
		return &c
	}
	return err
}

// Job region.

const (
	jobRecord341Size = 1080
	metadataSize     = 1024
	// jobTextMax is the room for the command line and mount entries: what
	// the 4096 decoded bytes leave after the job record and the final NUL.
	jobTextMax = jobTextLimit - jobRecord341Size - 1
)

// encodeJob returns the decompressed job region.
func encodeJob(job Job, exe string, mounts []Mount) ([]byte, error) {
	meta := job.Metadata
	if meta != "" && !strings.HasSuffix(meta, "\n") {
		meta += "\n"
	}
	b := make([]byte, jobRecord341Size, jobTextLimit)
	if err := putCString(b[jobRecord341Size-metadataSize:], meta, "job metadata"); err != nil {
		return nil, err
	}
	putInt64s(b, []int64{job.UID, job.StartTime, job.StartNsec, job.EndTime, job.EndNsec, job.NProcs, job.JobID})
	text, err := jobText(exe, mounts)
	if err != nil {
		return nil, err
	}
	return append(append(b, text...), 0), nil
}

// jobText returns the command line followed by the mount entries in reverse
// order, cut to jobTextMax bytes without splitting a mount entry.
func jobText(exe string, mounts []Mount) (string, error) {
	if strings.ContainsAny(exe, "\n\x00") {
		return "", errorf(ErrInvalidRecord, "command line contains a newline or NUL byte")
	}
	if len(exe) > jobTextMax {
		return exe[:jobTextMax], nil
	}
	var sb strings.Builder
	sb.WriteString(exe)
	for i := len(mounts) - 1; i >= 0; i-- {
		m := mounts[i]
		if err := checkMount(m); err != nil {
			return "", err
		}
		if sb.Len()+2+len(m.FSType)+len(m.Path) > jobTextMax {
			break
		}
		sb.WriteString("\n" + m.FSType + "\t" + m.Path)
	}
	return sb.String(), nil
}

// checkMount rejects mount entries a reader could not split back into type
// and path.
func checkMount(m Mount) error {
	const blanks = " \t\n\v\f\r\x00"
	if m.FSType == "" || m.Path == "" || strings.ContainsAny(m.FSType, blanks) || strings.ContainsAny(m.Path, blanks) {
		return errorf(ErrInvalidRecord, "mount entry %q on %q: type and path must be non-empty and free of white space", m.FSType, m.Path)
	}
	return nil
}

// Record encoding. Every encoder appends one record, in the module's current
// version and little-endian, to a buffer and is the inverse of its decoder.

const (
	baseRecordSize    = 16 // record id and rank
	dxtSegmentSize    = 40 // with the thread id
	dxtOldSegmentSize = 32 // without (DXT_POSIX 1, DXT_MPIIO 1 and 2)
	lustreCompSize    = 72
	lustreFixed       = 32
	mdhimFixed        = 96
	heatmapFixed      = 48
)

var outOrder = binary.LittleEndian

// encode checks r against the current module and appends its encoding to
// w.buf.
func (w *Writer) encode(r *Record) ([]byte, error) {
	b := w.buf[:0]
	if r == nil {
		return b, errorf(ErrInvalidRecord, "nil record")
	}
	if r.Module != w.cur {
		return b, errorf(ErrInvalidRecord, "record of module %s", r.Module)
	}
	if err := w.checkShape(r); err != nil {
		return b, err
	}
	switch r.Module {
	case ModLustre:
		return appendLustre(b, r)
	case ModDXTPOSIX, ModDXTMPIIO:
		return appendDXT(b, r, w.threads)
	case ModMDHIM:
		return appendMDHIM(b, r)
	case ModHeatmap:
		return appendHeatmap(b, r)
	case ModAPMPI:
		return appendAPMPI(b, r)
	case ModAPXC:
		return appendAPXC(b, r)
	}
	return appendFixed(b, r), nil
}

// checkShape checks the header flag and the counter counts of r against the
// tables of the current module.
func (w *Writer) checkShape(r *Record) error {
	info := &modules[w.cur]
	ints, flts := info.Counters, info.FCounters
	if info.HeaderCounters != nil {
		if first := w.nrec == 0; r.Header != first {
			return errorf(ErrInvalidRecord, "the header record (Header set) must be the first %s record, and only the first", w.cur)
		}
		if r.Header {
			ints, flts = info.HeaderCounters, info.HeaderFCounters
		}
	} else if r.Header {
		return errorf(ErrInvalidRecord, "module %s has no header record", w.cur)
	}
	if len(r.Counters) != len(ints) || len(r.FCounters) != len(flts) {
		return errorf(ErrInvalidRecord, "%d integer and %d floating-point counters, %s records have %d and %d",
			len(r.Counters), len(r.FCounters), w.cur, len(ints), len(flts))
	}
	return nil
}

// growZeroed extends b by n zero bytes and returns it with the new part.
func growZeroed(b []byte, n int) ([]byte, []byte) {
	start := len(b)
	b = slices.Grow(b, n)[:start+n]
	clear(b[start:])
	return b, b[start:]
}

// appendBase appends a zeroed record of size bytes starting with r's id
// and rank, and returns the buffer with the record.
func appendBase(b []byte, r *Record, size int) ([]byte, []byte) {
	b, rec := growZeroed(b, size)
	outOrder.PutUint64(rec, r.ID)
	outOrder.PutUint64(rec[8:], uint64(r.Rank))
	return b, rec
}

// appendSized is appendBase followed by r's integer counters at intOff and
// floating-point counters at fltOff.
func appendSized(b []byte, r *Record, size, intOff, fltOff int) ([]byte, []byte) {
	b, rec := appendBase(b, r, size)
	putInt64s(rec[intOff:], r.Counters)
	putFloat64s(rec[fltOff:], r.FCounters)
	return b, rec
}

func putInt64s(dst []byte, v []int64) {
	for i, x := range v {
		outOrder.PutUint64(dst[8*i:], uint64(x))
	}
}

func putFloat64s(dst []byte, v []float64) {
	for i, x := range v {
		outOrder.PutUint64(dst[8*i:], math.Float64bits(x))
	}
}

// putCString stores s NUL-terminated in the zeroed field dst.
func putCString(dst []byte, s, what string) error {
	if len(s) >= len(dst) {
		return errorf(ErrInvalidRecord, "%s of %d bytes does not fit in %d bytes with its NUL", what, len(s), len(dst))
	}
	if strings.IndexByte(s, 0) >= 0 {
		return errorf(ErrInvalidRecord, "%s contains a NUL byte", what)
	}
	copy(dst, s)
	return nil
}

// appendFixed encodes a record of a fixed-size module.
func appendFixed(b []byte, r *Record) []byte {
	lay := fixedLayouts[r.Module][modules[r.Module].Version]
	b, rec := appendSized(b, r, lay.size, lay.intOff, lay.fltOff)
	extra := rec[lay.fltOff+8*lay.nflts:] // DFS and DAOS fields after the counters
	switch r.Module {
	case ModH5D, ModPnetCDFVar:
		outOrder.PutUint64(rec[baseRecordSize:], r.FileRecID)
	case ModDFS:
		putUUIDs(extra, r)
	case ModDAOS:
		putUUIDs(extra, r)
		outOrder.PutUint64(extra[32:], r.OIDHi)
		outOrder.PutUint64(extra[40:], r.OIDLo)
	}
	return b
}

func putUUIDs(dst []byte, r *Record) {
	copy(dst, r.PoolUUID[:])
	copy(dst[16:], r.ContUUID[:])
}

// appendLustre encodes a LUSTRE version 2 record.
func appendLustre(b []byte, r *Record) ([]byte, error) {
	var comps []LustreComponent
	var osts []int64
	if r.Lustre != nil {
		comps, osts = usedComponents(r.Lustre)
	}
	ncomp, nstripe := int64(len(comps)), int64(len(osts))
	if len(comps) == 0 {
		// The count fields of a layout without components are kept: a
		// reader then reads only the fixed part.
		if r.Counters[0] >= 1 {
			return b, errorf(ErrInvalidRecord, "LUSTRE_NUM_COMPONENTS is %d but the record has no used component", r.Counters[0])
		}
		ncomp, nstripe = r.Counters[0], r.Counters[1]
	}
	size := lustreFixed + lustreCompSize*len(comps) + 8*len(osts)
	b, rec := appendBase(b, r, size)
	putInt64s(rec[baseRecordSize:], []int64{ncomp, nstripe})
	for i, c := range comps {
		dst := rec[lustreFixed+lustreCompSize*i:]
		putInt64s(dst, []int64{c.StripeSize, c.StripeCount, c.StripePattern, c.Flags, c.ExtStart, c.ExtEnd, c.MirrorID})
		if err := putCString(dst[56:lustreCompSize], c.PoolName, "LUSTRE pool name"); err != nil {
			return b, err
		}
	}
	putInt64s(rec[lustreFixed+lustreCompSize*len(comps):], osts)
	return b, nil
}

// usedComponents returns the components of l before the first unused one
// (stripe size -1) and their OSTs.
func usedComponents(l *Lustre) ([]LustreComponent, []int64) {
	i := slices.IndexFunc(l.Components, func(c LustreComponent) bool { return c.StripeSize == -1 })
	if i < 0 {
		return l.Components, l.OSTs
	}
	var n int64
	for _, c := range l.Components[:i] {
		n += c.StripeCount
	}
	n = min(max(n, 0), int64(len(l.OSTs)))
	return l.Components[:i], l.OSTs[:n]
}

// appendDXT encodes a DXT record: segments with thread ids (DXT_POSIX
// version 2, DXT_MPIIO version 3) when threads is set, else without
// (DXT_POSIX 1, DXT_MPIIO 2).
func appendDXT(b []byte, r *Record, threads bool) ([]byte, error) {
	t := r.DXT
	if t == nil {
		return b, errorf(ErrInvalidRecord, "%s record without a trace", r.Module)
	}
	seg := dxtOldSegmentSize
	if threads {
		seg = dxtSegmentSize
	}
	size := dxtHeaderSize + seg*(len(t.Writes)+len(t.Reads))
	b, rec := appendBase(b, r, size)
	if err := putCString(rec[24:88], t.Hostname, "DXT hostname"); err != nil {
		return b, err
	}
	outOrder.PutUint64(rec[88:], uint64(len(t.Writes)))
	outOrder.PutUint64(rec[96:], uint64(len(t.Reads)))
	putSegments(putSegments(rec[dxtHeaderSize:], t.Writes, seg), t.Reads, seg)
	return b, nil
}

// putSegments stores segs at dst, seg bytes each (with their thread ids
// when seg is dxtSegmentSize), and returns the rest of dst.
func putSegments(dst []byte, segs []Segment, seg int) []byte {
	for _, s := range segs {
		putInt64s(dst, []int64{s.Offset, s.Length})
		putFloat64s(dst[16:], []float64{s.Start, s.End})
		if seg == dxtSegmentSize {
			outOrder.PutUint64(dst[32:], s.ThreadID)
		}
		dst = dst[seg:]
	}
	return dst
}

// appendMDHIM encodes an MDHIM record: the fixed part holds the first
// server slot, the other slots follow.
func appendMDHIM(b []byte, r *Record) ([]byte, error) {
	servers := r.Counters[4]
	if int64(len(r.Servers)) != max(servers, 0) {
		return b, errorf(ErrInvalidRecord, "MDHIM_SERVERS is %d but the record has %d server counts", servers, len(r.Servers))
	}
	size := mdhimFixed + 8*max(len(r.Servers)-1, 0)
	b, rec := appendSized(b, r, size, baseRecordSize, baseRecordSize+8*len(r.Counters))
	putInt64s(rec[mdhimFixed-8:], r.Servers)
	return b, nil
}

// appendHeatmap encodes a HEATMAP record.
func appendHeatmap(b []byte, r *Record) ([]byte, error) {
	h := r.Heatmap
	switch {
	case h == nil:
		return b, errorf(ErrInvalidRecord, "HEATMAP record without bins")
	case len(h.Write) != len(h.Read):
		return b, errorf(ErrInvalidRecord, "HEATMAP record with %d write bins and %d read bins", len(h.Write), len(h.Read))
	case math.Float64bits(h.BinWidth) != math.Float64bits(r.FCounters[0]):
		return b, errorf(ErrInvalidRecord, "HEATMAP bin width %g differs from HEATMAP_F_BIN_WIDTH_SECONDS %g", h.BinWidth, r.FCounters[0])
	}
	n := len(h.Write)
	b, rec := appendSized(b, r, heatmapFixed+16*n, baseRecordSize, baseRecordSize)
	outOrder.PutUint64(rec[24:], uint64(n))
	putInt64s(rec[heatmapFixed:], h.Write)
	putInt64s(rec[heatmapFixed+8*n:], h.Read)
	return b, nil
}

// appendAPMPI encodes the APMPI header record (magic, 32-bit sync flag,
// padding, two variances) or a per-process record.
func appendAPMPI(b []byte, r *Record) ([]byte, error) {
	if r.Header {
		flag := r.Counters[1]
		if flag < 0 || flag > math.MaxUint32 {
			return b, errorf(ErrInvalidRecord, "APMPI_SYNC_FLAG %d does not fit 32 bits", flag)
		}
		b, rec := appendBase(b, r, apmpiHeaderSize)
		outOrder.PutUint64(rec[baseRecordSize:], uint64(r.Counters[0]))
		outOrder.PutUint32(rec[baseRecordSize+8:], uint32(flag))
		putFloat64s(rec[baseRecordSize+16:], r.FCounters)
		return b, nil
	}
	fltOff := baseRecordSize + 8*len(apmpiCounters)
	b, rec := appendSized(b, r, apmpiRecordSize, baseRecordSize, fltOff)
	return b, putCString(rec[fltOff+8*len(apmpiFCounters):], r.NodeName, "APMPI node name")
}

// appendAPXC encodes the APXC header record or a per-router record.
func appendAPXC(b []byte, r *Record) ([]byte, error) {
	size := apxcRecordSize
	if r.Header {
		size = apxcHeaderSize
	}
	b, _ = appendSized(b, r, size, baseRecordSize, size)
	return b, nil
}

// regionStream writes one region: a compressed stream written at an
// advancing file offset. The compressors are kept between regions.
type regionStream struct {
	comp  Compression
	fast  bool // fastest zlib level
	at    offsetWriter
	bw    *bufio.Writer
	zw    *zlib.Writer
	bz    *bzip2.Writer
	in    io.Writer // compressor input, or bw without compression
	start uint64
	open  bool
}

// offsetWriter turns an io.WriterAt into an io.Writer at an advancing
// offset.
type offsetWriter struct {
	w   io.WriterAt
	off uint64
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.w.WriteAt(p, int64(o.off))
	o.off += uint64(n)
	return n, err
}

// begin starts a stream at offset off of w.
func (s *regionStream) begin(w io.WriterAt, off uint64) error {
	s.at = offsetWriter{w: w, off: off}
	s.start = off
	if s.bw == nil {
		s.bw = bufio.NewWriterSize(&s.at, 64<<10)
	} else {
		s.bw.Reset(&s.at)
	}
	switch s.comp {
	case CompressZlib:
		if s.zw == nil {
			level := zlib.DefaultCompression
			if s.fast {
				level = zlib.BestSpeed
			}
			s.zw, _ = zlib.NewWriterLevel(s.bw, level) // the level is valid
		} else {
			s.zw.Reset(s.bw)
		}
		s.in = s.zw
	case CompressBzip2:
		if s.bz == nil {
			bz, err := bzip2.NewWriter(s.bw, &bzip2.WriterConfig{Level: bzip2.BestCompression})
			if err != nil {
				return err
			}
			s.bz = bz
		} else if err := s.bz.Reset(s.bw); err != nil {
			return err
		}
		s.in = s.bz
	default:
		s.in = s.bw
	}
	s.open = true
	return nil
}

func (s *regionStream) Write(p []byte) (int, error) { return s.in.Write(p) }

// end finishes the stream and returns the region it occupies.
func (s *regionStream) end() (Region, error) {
	s.open = false
	var err error
	if c, ok := s.in.(io.Closer); ok {
		err = c.Close()
	}
	if ferr := s.bw.Flush(); err == nil {
		err = ferr
	}
	return Region{Off: s.start, Len: s.at.off - s.start}, err
}
