package darshan

import (
	"bytes"
	"encoding/binary"
)

// Compression is the compression method of a log's regions.
type Compression uint8

// Compression methods, as stored in the header.
const (
	CompressZlib  Compression = 0
	CompressBzip2 Compression = 1
	CompressNone  Compression = 2
)

// String returns the name darshan-parser prints for the method.
func (c Compression) String() string {
	switch c {
	case CompressZlib:
		return "ZLIB"
	case CompressBzip2:
		return "BZIP2"
	case CompressNone:
		return "NONE"
	}
	return "UNKNOWN"
}

// Region is a byte range of a log file holding one compressed region.
type Region struct {
	Off, Len uint64
}

const (
	magicNumber   = 6567223
	headerSize341 = 1328
	headerSizeOld = 360
	// CurrentVersion is the log format version [Writer] produces.
	CurrentVersion = "3.41"
)

// Header is the uncompressed header of a log, with the module arrays
// remapped to current module ids.
type Header struct {
	Version     string           // "3.00", "3.10", "3.20", "3.21" or "3.41"
	ByteOrder   binary.ByteOrder // byte order of the machine that wrote the log
	Compression Compression
	Size        int // size of the header in the file: 360 or 1328
	// Partial has bit i set when module i holds incomplete data.
	Partial uint64
	// referencePartial is the flag as the reference tools see it: they do
	// not byte-swap it.
	referencePartial uint64
	Names            Region
	Modules          [MaxModules]Region
	ModuleVersions   [MaxModules]uint32
}

// Incomplete reports whether module m is flagged as holding incomplete data.
func (h *Header) Incomplete(m ModuleID) bool {
	return m >= 0 && m < MaxModules && h.Partial&(1<<uint(m)) != 0
}

// decodeHeader parses the header at the start of b (which holds at least the
// header). It returns the header and the number of bytes it occupies.
func decodeHeader(b []byte) (*Header, error) {
	if len(b) == 0 {
		return nil, errorf(ErrNotDarshan, "file is empty")
	}
	if len(b) < 16 {
		if headerPrefix(b) {
			return nil, errorf(ErrTruncated, "file is %d bytes, too short for a header", len(b))
		}
		return nil, errorf(ErrNotDarshan, "file is %d bytes, too short for a header", len(b))
	}
	h := &Header{Version: cString(b[:8])}
	switch {
	case binary.LittleEndian.Uint64(b[8:]) == magicNumber:
		h.ByteOrder = binary.LittleEndian
	case binary.BigEndian.Uint64(b[8:]) == magicNumber:
		h.ByteOrder = binary.BigEndian
	default:
		if !printableVersion(b[:8]) {
			return nil, errorf(ErrNotDarshan, "no Darshan version string or magic number")
		}
	}
	switch h.Version {
	case "3.41":
		h.Size = headerSize341
	case "3.00", "3.10", "3.20", "3.21":
		h.Size = headerSizeOld
	default:
		if h.ByteOrder == nil {
			return nil, errorf(ErrNotDarshan, "no Darshan magic number")
		}
		return nil, errorf(ErrVersion, "log format version %q (this reader knows 3.00, 3.10, 3.20, 3.21 and 3.41)", h.Version)
	}
	if h.ByteOrder == nil {
		return nil, errorf(ErrNotDarshan, "bad magic number")
	}
	if len(b) < h.Size {
		return nil, errorf(ErrTruncated, "file is %d bytes, header of format %s needs %d", len(b), h.Version, h.Size)
	}
	bo := h.ByteOrder
	h.Compression = Compression(b[16])
	nslots := 16
	mapOff, verOff := 40, 296
	if h.Size == headerSize341 {
		nslots = MaxModules
		mapOff, verOff = 48, 1072
		h.Partial = bo.Uint64(b[24:])
		h.referencePartial = binary.NativeEndian.Uint64(b[24:])
		h.Names = Region{bo.Uint64(b[32:]), bo.Uint64(b[40:])}
	} else {
		h.Partial = uint64(bo.Uint32(b[20:]))
		h.referencePartial = uint64(binary.NativeEndian.Uint32(b[20:]))
		h.Names = Region{bo.Uint64(b[24:]), bo.Uint64(b[32:])}
	}
	if h.Compression > CompressNone || (h.Version == "3.00" && h.Compression > CompressBzip2) {
		return nil, errorf(ErrCorrupt, "unknown compression method %d", h.Compression)
	}
	for i := 0; i < nslots; i++ {
		h.Modules[i] = Region{bo.Uint64(b[mapOff+16*i:]), bo.Uint64(b[mapOff+16*i+8:])}
		h.ModuleVersions[i] = bo.Uint32(b[verOff+4*i:])
	}
	// Older formats had no H5D slot (before 3.20) and no PNETCDF_VAR slot
	// (before 3.41): open those slots so every module sits at its current id.
	if h.Version == "3.00" || h.Version == "3.10" {
		h.insertSlot(ModH5D)
	}
	if h.Size == headerSizeOld {
		h.insertSlot(ModPnetCDFVar)
	}
	return h, nil
}

// insertSlot shifts module slots i and above up by one, leaving slot i empty.
func (h *Header) insertSlot(i ModuleID) {
	copy(h.Modules[i+1:], h.Modules[i:MaxModules-1])
	copy(h.ModuleVersions[i+1:], h.ModuleVersions[i:MaxModules-1])
	h.Modules[i], h.ModuleVersions[i] = Region{}, 0
	h.Partial = insertBit(h.Partial, uint(i))
	h.referencePartial = insertBit(h.referencePartial, uint(i))
}

func insertBit(v uint64, i uint) uint64 {
	low := v & (1<<i - 1)
	return low | (v>>i)<<(i+1)
}

// encodeHeader serializes h in the 3.41 layout and byte order bo.
func encodeHeader(h *Header, bo binary.ByteOrder) []byte {
	b := make([]byte, headerSize341)
	copy(b, CurrentVersion)
	bo.PutUint64(b[8:], magicNumber)
	b[16] = byte(h.Compression)
	bo.PutUint64(b[24:], h.Partial)
	bo.PutUint64(b[32:], h.Names.Off)
	bo.PutUint64(b[40:], h.Names.Len)
	for i := 0; i < MaxModules; i++ {
		bo.PutUint64(b[48+16*i:], h.Modules[i].Off)
		bo.PutUint64(b[56+16*i:], h.Modules[i].Len)
		bo.PutUint32(b[1072+4*i:], h.ModuleVersions[i])
	}
	return b
}

// cString returns the bytes of b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// headerPrefix reports whether b, shorter than a version string and magic
// number, is the start of a Darshan header: a known version string followed
// by the start of the magic number in either byte order.
func headerPrefix(b []byte) bool {
	var magic [2][8]byte
	binary.LittleEndian.PutUint64(magic[0][:], magicNumber)
	binary.BigEndian.PutUint64(magic[1][:], magicNumber)
	for _, v := range []string{"3.00", "3.10", "3.20", "3.21", "3.41"} {
		for _, m := range magic {
			var full [16]byte
			copy(full[:], v)
			copy(full[8:], m[:])
			if bytes.HasPrefix(full[:], b) {
				return true
			}
		}
	}
	return false
}

func printableVersion(b []byte) bool {
	s := cString(b)
	if len(s) < 3 {
		return false
	}
	for _, c := range []byte(s) {
		if c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
