package darshan

import (
	"math"
	"math/bits"
)

// fixedLayout is the layout of a fixed-size record version.
type fixedLayout struct {
	size          int
	intOff, nints int
	fltOff, nflts int
}

// fixedLayouts[module][version] for every fixed-size record version.
var fixedLayouts = map[ModuleID]map[uint32]fixedLayout{
	ModNull:        {1: {48, 16, 2, 32, 2}},
	ModPOSIX:       {4: {704, 16, 69, 568, 17}, 3: {664, 16, 64, 528, 17}, 2: {648, 16, 64, 528, 15}, 1: {680, 16, 68, 560, 15}},
	ModMPIIO:       {3: {560, 16, 51, 424, 17}, 2: {544, 16, 51, 424, 15}, 1: {544, 16, 51, 424, 15}},
	ModH5F:         {3: {80, 16, 3, 40, 5}, 2: {56, 16, 1, 24, 4}, 1: {40, 16, 1, 24, 2}},
	ModH5D:         {2: {912, 24, 94, 776, 17}, 1: {904, 16, 94, 768, 17}},
	ModPnetCDFFile: {3: {152, 16, 9, 88, 8}, 2: {64, 16, 2, 32, 4}, 1: {48, 16, 2, 32, 2}},
	ModPnetCDFVar:  {1: {1120, 24, 120, 984, 17}},
	ModBGQ:         {2: {112, 16, 11, 104, 1}, 1: {120, 24, 11, 112, 1}},
	ModSTDIO:       {2: {248, 16, 14, 128, 15}, 1: {240, 16, 13, 120, 15}},
	ModDFS:         {1: {584, 16, 52, 432, 15}},
	ModDAOS:        {1: {696, 16, 64, 528, 15}},
}

// RecordSize returns the size in bytes of a fixed-size record of module m
// in record version v, or 0 when such records have no fixed size.
func RecordSize(m ModuleID, v uint32) int { return fixedLayouts[m][v].size }

func (d *decoder) decodeFixed(b []byte, r *Record) (int, bool, error) {
	lay, ok := fixedLayouts[d.mod][d.ver]
	if !ok {
		return 0, false, errorf(ErrModuleVersion, "no layout for %s version %d", d.mod, d.ver)
	}
	if len(b) < lay.size {
		return 0, false, nil
	}
	info := &modules[d.mod]
	current := d.ver == info.Version
	ints, flts := d.ints, d.floats
	if current {
		ints, flts = r.Counters, r.FCounters
	}
	ints = resize(ints, lay.nints)
	flts = resize(flts, lay.nflts)
	d.readInts(ints, b[lay.intOff:])
	d.readFloats(flts, b[lay.fltOff:])
	if current {
		r.Counters, r.FCounters = ints, flts
	} else {
		d.ints, d.floats = ints, flts
	}
	keep := true
	switch d.mod {
	case ModPOSIX:
		keep = d.upPOSIX(b, lay, r)
	case ModMPIIO:
		if !current {
			r.Counters = append(r.Counters, ints...)
			r.FCounters = upTimestamps(r.FCounters, flts)
		}
	case ModH5F:
		d.upH5F(r)
	case ModH5D:
		if current {
			r.FileRecID = d.u64(b[16:])
			if d.quirks && d.big && d.h5fVer < 2 {
				r.FileRecID = raw64(b[16:])
			}
		} else {
			r.Counters = append(r.Counters, ints...)
			r.FCounters = append(r.FCounters, flts...)
		}
	case ModPnetCDFFile:
		d.upPnetCDFFile(b, r)
	case ModPnetCDFVar:
		r.FileRecID = d.u64(b[16:])
	case ModBGQ:
		if !current {
			r.Counters = append(r.Counters, ints...)
			r.FCounters = append(r.FCounters, flts...)
		}
	case ModSTDIO:
		if !current {
			r.Counters = append(append(append(r.Counters, ints[0]), -1), ints[1:]...)
			r.FCounters = append(r.FCounters, flts...)
		}
	case ModDFS:
		d.uuids(b[552:], r)
	case ModDAOS:
		d.uuids(b[648:], r)
		r.OIDHi, r.OIDLo = d.u64(b[680:]), d.u64(b[688:])
	}
	return lay.size, keep, nil
}

// uuids reads the pool and container uuids of a DFS or DAOS record.
func (d *decoder) uuids(b []byte, r *Record) {
	copy(r.PoolUUID[:], b[:16])
	copy(r.ContUUID[:], b[16:32])
	if d.quirks && d.big {
		// The reference byte-swaps the 16-byte arrays of big-endian logs.
		reverse(r.PoolUUID[:])
		reverse(r.ContUUID[:])
	}
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// upTimestamps converts the 15 float counters of POSIX 1–2 and MPI-IO 1–2
// (one open and one close timestamp) to the 17 of the current version (open
// start/end, close start/end), appending them to dst.
func upTimestamps(dst []float64, f []float64) []float64 {
	dst = append(dst, f[0], f[1], f[2], -1, -1)
	return append(dst, f[3:]...)
}

// upPOSIX converts POSIX records of versions 1–3 to version 4. It reports
// false for version 1 records that mixed stdio counters in, which are
// dropped.
func (d *decoder) upPOSIX(b []byte, lay fixedLayout, r *Record) bool {
	if d.ver == 4 {
		return true
	}
	ints, flts := d.ints, d.floats
	if d.ver == 1 {
		// POSIX_FOPENS (index 6) > 0: the record mixes stdio data.
		fopens := ints[6]
		if d.quirks {
			fopens = int64(raw64(b[lay.intOff+6*8:]))
		}
		if fopens > 0 {
			return false
		}
		ints = append(ints[:6], ints[10:]...)
	}
	if d.quirks && d.big {
		// The reference leaves F_META_TIME, F_MAX_READ_TIME and
		// F_MAX_WRITE_TIME unswapped in big-endian logs before version 4.
		first := 10
		if d.ver < 3 {
			first = 8
		}
		for i := first; i < first+3; i++ {
			flts[i] = math.Float64frombits(raw64(b[lay.fltOff+8*i:]))
		}
	}
	c := append(r.Counters, ints[0], -1, -1)
	c = append(c, ints[1:8]...)
	c = append(c, -1, -1, 0)
	r.Counters = append(c, ints[8:]...)
	if d.ver == 3 {
		r.FCounters = append(r.FCounters, flts...)
	} else {
		r.FCounters = upTimestamps(r.FCounters, flts)
	}
	if d.quirks {
		// The reference's up-conversion loses the tail of the record.
		lost := 2
		if d.ver == 2 {
			lost = 4
		}
		if d.ver >= 2 {
			clear(r.FCounters[len(r.FCounters)-lost:])
		}
	}
	return true
}

// upH5F converts H5F (HDF5) records of versions 1–2 to version 3.
func (d *decoder) upH5F(r *Record) {
	switch d.ver {
	case 2:
		r.Counters = append(r.Counters, d.ints[0], -1, -1)
		r.FCounters = append(append(r.FCounters, d.floats...), -1)
	case 1:
		r.Counters = append(r.Counters, d.ints[0], -1, -1)
		r.FCounters = append(r.FCounters, d.floats[0], -1, -1, d.floats[1], -1)
	}
}

// upPnetCDFFile converts PNETCDF records of versions 1–2 to PNETCDF_FILE 3.
func (d *decoder) upPnetCDFFile(b []byte, r *Record) {
	if d.ver == 3 {
		return
	}
	opens := d.ints[0] + d.ints[1]
	if d.quirks && d.big {
		// The reference adds the two open counts before byte-swapping them.
		opens = int64(bits.ReverseBytes64(raw64(b[16:]) + raw64(b[24:])))
	}
	r.Counters = append(r.Counters, -1, opens, -1, -1, -1, -1, -1, -1, -1)
	f := d.floats
	if d.ver == 1 {
		f = []float64{f[0], -1, -1, f[1]}
	}
	r.FCounters = append(r.FCounters, f[0], f[1], -1, f[2], f[3], -1, -1, -1)
}
