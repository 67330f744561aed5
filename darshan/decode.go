package darshan

import (
	"encoding/binary"
	"math"
)

// decoder turns the bytes of one module region into records, converting
// older record versions to the current one.
type decoder struct {
	mod    ModuleID
	ver    uint32
	big    bool   // the log is big-endian
	h5fVer uint32 // H5F record version (the reference's H5D swap test uses it)
	quirks bool   // reproduce the reference reader's decoding errors

	// seen is set once the first record of the region was decoded: the
	// AutoPerf modules start with a header record, and the heatmap bin
	// correction compares every record with the first.
	seen       bool
	firstBins  int
	firstWidth float64

	ints   []int64 // scratch for old record layouts
	floats []float64
	lustre Lustre
	trace  Trace
	heat   Heatmap
}

func isBigEndian(bo binary.ByteOrder) bool { return bo == binary.BigEndian }

func (d *decoder) u64(b []byte) uint64 {
	if d.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) i64(b []byte) int64   { return int64(d.u64(b)) }
func (d *decoder) f64(b []byte) float64 { return math.Float64frombits(d.u64(b)) }

// raw64 reads 8 bytes in host order: what the reference reader sees for a
// field it forgets to byte-swap.
func raw64(b []byte) uint64 { return binary.NativeEndian.Uint64(b) }

// readInts fills dst from consecutive 8-byte integers at b.
func (d *decoder) readInts(dst []int64, b []byte) {
	if len(dst) == 0 {
		return
	}
	_ = b[8*len(dst)-1]
	if d.big {
		for i := range dst {
			dst[i] = int64(binary.BigEndian.Uint64(b[8*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// readFloats fills dst from consecutive 8-byte floats at b.
func (d *decoder) readFloats(dst []float64, b []byte) {
	if len(dst) == 0 {
		return
	}
	_ = b[8*len(dst)-1]
	if d.big {
		for i := range dst {
			dst[i] = math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// layout describes a fixed-size record: total size, where the integer and
// float counters start and how many there are.
type layout struct {
	size           int
	intOff, nints  int
	fltOff, nflts  int
	fileRecID      bool // a u64 file record id at offset 16
	convertCounter func(d *decoder, r *Record)
}

// decode decodes the record at the start of b into r. It returns the number
// of bytes consumed (0 when b holds only a partial fixed-size record, which
// ends the region), and whether the record is to be returned (old POSIX
// records mixing in stdio data are dropped).
func (d *decoder) decode(b []byte, r *Record) (int, bool, error) {
	*r = Record{Counters: r.Counters[:0], FCounters: r.FCounters[:0], Servers: r.Servers[:0]}
	if len(b) < 16 {
		return 0, false, nil
	}
	r.ID = d.u64(b)
	r.Rank = d.i64(b[8:])
	switch d.mod {
	case ModLustre:
		return d.decodeLustre(b, r)
	case ModDXTPOSIX, ModDXTMPIIO:
		return d.decodeDXT(b, r)
	case ModMDHIM:
		return d.decodeMDHIM(b, r)
	case ModHeatmap:
		return d.decodeHeatmap(b, r)
	case ModAPMPI:
		return d.decodeAPMPI(b, r)
	case ModAPXC:
		return d.decodeAPXC(b, r)
	}
	return d.decodeFixed(b, r)
}

func (d *decoder) u32(b []byte) uint32 {
	if d.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// size returns the size of the variable-size record that starts b, when b
// holds enough of it to tell and the size is plausible, else 0.
func (d *decoder) size(b []byte) int {
	var n int64
	switch d.mod {
	case ModDXTPOSIX, ModDXTMPIIO:
		if len(b) < dxtHeaderSize {
			return 0
		}
		seg := int64(32)
		if (d.mod == ModDXTPOSIX && d.ver >= 2) || (d.mod == ModDXTMPIIO && d.ver >= 3) {
			seg = 40
		}
		nw, nr := d.i64(b[88:]), d.i64(b[96:])
		if nw < 0 || nr < 0 || nw > 1<<40 || nr > 1<<40 {
			return 0
		}
		n = dxtHeaderSize + seg*(nw+nr)
	case ModHeatmap:
		if len(b) < 48 {
			return 0
		}
		bins := d.i64(b[24:])
		if bins < 0 || bins > 1<<40 {
			return 0
		}
		n = 48 + 16*bins
	default:
		return 0
	}
	if n > 1<<40 {
		return 0
	}
	return int(n)
}
