package darshan

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Extension modules are module slots that no Darshan release uses. iolens
// keeps data of its own there, so that a log stays one valid Darshan log:
// darshan-parser prints such a region as "<UNKNOWN> module (id N)", warns
// on stderr and goes on; PyDarshan lists it without a name.
const (
	// ModAccess holds the access sequences recorded with --learn: per
	// rank, the ordered high-level accesses (PnetCDF variables, HDF5
	// datasets) and the POSIX extents under them (see [AccessSequence]).
	ModAccess ModuleID = 63

	// AccessVersion is the version of the ModAccess records this package
	// reads and writes.
	AccessVersion = 1
)

// IsExtension reports whether m is a module slot that holds iolens data
// rather than a Darshan module.
func (m ModuleID) IsExtension() bool { return m == ModAccess }

// Op is the direction of an access.
type Op uint8

// Directions of an access.
const (
	OpRead  Op = 1
	OpWrite Op = 2
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// MaxAccessDims is the largest number of dimensions of a selection an
// Access keeps; a selection of more dimensions keeps its innermost ones.
const MaxAccessDims = 8

// Access is one operation of an access sequence.
//
// A high-level access (Module ModPnetCDFVar or ModH5D) reads or writes a
// selection of a logical object: ID is the object's record id (its name in
// the log's name table is "file:variable" or "file:/dataset"), File the id
// of its file's record, Start and Count the bounding box of the selection
// in elements, Length the bytes it moved. A POSIX access (Module ModPOSIX)
// is an extent of a file: ID and File are both the file's record id, Offset
// and Length the extent. Parent is the index, in the same sequence, of the
// high-level access a POSIX access served, or -1.
type Access struct {
	Module         ModuleID
	Op             Op
	ID, File       uint64
	Parent         int
	Offset, Length int64
	Start, Count   []int64
	// StartTime and EndTime are seconds since the job started.
	StartTime, EndTime float64
}

// AccessSequence is the ordered list of accesses of one rank, in the order
// in which they began. Partial is set when the collector's cap on recorded
// accesses was reached: later accesses are missing.
type AccessSequence struct {
	Rank     int64
	Partial  bool
	Accesses []Access
}

// accessRecordID is the record id of every ModAccess record: the lookup8
// hash of the record's role, not of a file.
var accessRecordID = RecordID("<iolens access sequence>")

// Sizes of the ModAccess record layout (little-endian, like every log this
// package writes): a record is the base record (id, rank), the access count
// and flags, then each access as a fixed part followed by ndims pairs
// (start, count).
const (
	accessRecordHeader = 32
	accessFixed        = 64
	accessPartialFlag  = 1
)

// AppendAccessRecord appends the ModAccess record of s to b.
func AppendAccessRecord(b []byte, s *AccessSequence) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, accessRecordID)
	b = le.AppendUint64(b, uint64(s.Rank))
	b = le.AppendUint64(b, uint64(len(s.Accesses)))
	var flags uint64
	if s.Partial {
		flags |= accessPartialFlag
	}
	b = le.AppendUint64(b, flags)
	for i := range s.Accesses {
		a := &s.Accesses[i]
		start, count := a.Start, a.Count
		n := min(len(start), len(count))
		if n > MaxAccessDims {
			start, count = start[len(start)-MaxAccessDims:], count[len(count)-MaxAccessDims:]
			n = MaxAccessDims
		}
		b = le.AppendUint16(b, uint16(a.Module))
		b = append(b, byte(a.Op), byte(n))
		b = le.AppendUint32(b, 0)
		b = le.AppendUint64(b, a.ID)
		b = le.AppendUint64(b, a.File)
		b = le.AppendUint64(b, uint64(int64(a.Parent)))
		b = le.AppendUint64(b, uint64(a.Offset))
		b = le.AppendUint64(b, uint64(a.Length))
		b = le.AppendUint64(b, math.Float64bits(a.StartTime))
		b = le.AppendUint64(b, math.Float64bits(a.EndTime))
		for d := 0; d < n; d++ {
			b = le.AppendUint64(b, uint64(start[d]))
			b = le.AppendUint64(b, uint64(count[d]))
		}
	}
	return b
}

// DecodeAccessRecords decodes a ModAccess region: one sequence per record.
func DecodeAccessRecords(data []byte) ([]AccessSequence, error) {
	le := binary.LittleEndian
	var out []AccessSequence
	for off := 0; off < len(data); {
		rec := len(out)
		if len(data)-off < accessRecordHeader {
			return out, fmt.Errorf("access record %d: %w", rec, errorf(ErrTruncated, "%d bytes left, the header needs %d", len(data)-off, accessRecordHeader))
		}
		h := data[off:]
		if id := le.Uint64(h); id != accessRecordID {
			return out, fmt.Errorf("access record %d: %w", rec, errorf(ErrCorrupt, "record id %#x is not that of an access sequence", id))
		}
		s := AccessSequence{Rank: int64(le.Uint64(h[8:])), Partial: le.Uint64(h[24:])&accessPartialFlag != 0}
		n := le.Uint64(h[16:])
		off += accessRecordHeader
		if n > uint64(len(data)-off)/accessFixed {
			return out, fmt.Errorf("access record %d: %w", rec, errorf(ErrCorrupt, "%d accesses but %d bytes left", n, len(data)-off))
		}
		s.Accesses = make([]Access, n)
		for i := range s.Accesses {
			if len(data)-off < accessFixed {
				return out, fmt.Errorf("access record %d, access %d: %w", rec, i, errorf(ErrTruncated, "%d bytes left, an access needs %d", len(data)-off, accessFixed))
			}
			p := data[off:]
			nd := int(p[3])
			if nd > MaxAccessDims {
				return out, fmt.Errorf("access record %d, access %d: %w", rec, i, errorf(ErrCorrupt, "%d dimensions (at most %d)", nd, MaxAccessDims))
			}
			size := accessFixed + 16*nd
			if len(data)-off < size {
				return out, fmt.Errorf("access record %d, access %d: %w", rec, i, errorf(ErrTruncated, "%d bytes left, the access needs %d", len(data)-off, size))
			}
			parent := int64(le.Uint64(p[24:]))
			if parent < -1 || parent >= int64(i) {
				return out, fmt.Errorf("access record %d, access %d: %w", rec, i, errorf(ErrCorrupt, "parent %d is not an earlier access", parent))
			}
			a := Access{
				Module:    ModuleID(le.Uint16(p)),
				Op:        Op(p[2]),
				ID:        le.Uint64(p[8:]),
				File:      le.Uint64(p[16:]),
				Parent:    int(parent),
				Offset:    int64(le.Uint64(p[32:])),
				Length:    int64(le.Uint64(p[40:])),
				StartTime: math.Float64frombits(le.Uint64(p[48:])),
				EndTime:   math.Float64frombits(le.Uint64(p[56:])),
			}
			if a.Op != OpRead && a.Op != OpWrite {
				return out, fmt.Errorf("access record %d, access %d: %w", rec, i, errorf(ErrCorrupt, "operation %d is neither read nor write", p[2]))
			}
			if nd > 0 {
				a.Start, a.Count = make([]int64, nd), make([]int64, nd)
				for d := range nd {
					a.Start[d] = int64(le.Uint64(p[accessFixed+16*d:]))
					a.Count[d] = int64(le.Uint64(p[accessFixed+16*d+8:]))
				}
			}
			s.Accesses[i] = a
			off += size
		}
		out = append(out, s)
	}
	return out, nil
}

// AccessSequences returns the access sequences of the log, one per rank
// that recorded any, or nil when the log has none.
func (l *Log) AccessSequences() ([]AccessSequence, error) {
	data, ver, err := l.Extension(ModAccess)
	if err != nil || data == nil {
		return nil, err
	}
	part := "module id " + fmt.Sprint(int(ModAccess)) + " (access sequences)"
	if ver != AccessVersion {
		return nil, l.errorAt(part, -1, errorf(ErrModuleVersion, "record version %d (this reader knows %d)", ver, AccessVersion))
	}
	if isBigEndian(l.Header.ByteOrder) {
		return nil, l.errorAt(part, -1, errorf(ErrCorrupt, "access sequences in a big-endian log"))
	}
	seqs, err := DecodeAccessRecords(data)
	if err != nil {
		return nil, l.errorAt(part, -1, err)
	}
	return seqs, nil
}

// Extension returns the decompressed region of extension module m and its
// version, or nil when the log has no such region.
func (l *Log) Extension(m ModuleID) (data []byte, version uint32, err error) {
	part := "module id " + fmt.Sprint(int(m))
	if !m.IsExtension() {
		return nil, 0, l.errorAt(part, -1, errorf(ErrUnknownModule, "module id %d is not an extension module", int(m)))
	}
	g := l.Header.Modules[m]
	if g.Len == 0 {
		return nil, 0, nil
	}
	comp, err := l.readRegion(part, g)
	if err != nil {
		return nil, 0, err
	}
	var z inflater
	data, err = z.inflate(nil, comp, l.Header.Compression, l.MaxRegionSize, false)
	if err != nil {
		return nil, 0, l.errorAt(part, -1, err)
	}
	return data, l.Header.ModuleVersions[m], nil
}
