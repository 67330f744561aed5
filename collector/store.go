package collector

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/iolens/iolens/darshan"
)

// Layout constants of a store file (collector/c/store.h).
const (
	storeMagic      = "IOLSTOR\x01"
	storeVersion    = 1
	storeHeaderSize = 4096
	heatmapBins     = 200

	blockName    = 1
	blockRecord  = 2
	blockDXT     = 3
	blockHeatmap = 4
	blockAccess  = 6

	nameFixed      = 24  // word, id, len, pad
	recordFixed    = 48  // word ... reserved
	dxtFixed       = 16  // word, capacity, next
	segmentSize    = 56  // one struct iol_segment
	accessSize     = 192 // one struct iol_access
	accessDims     = 8   // IOL_ACCESS_DIMS
	accessNested   = 1 << 31
	heatmapSize    = 3224 // word, module, pad, width, 2×200 bins
	cmdlineMax     = 3072
	hostnameSize   = 64
	appSize        = 64
	mpiFlavorSize  = 16
	maxPlausibleS  = 1e9 // seconds; larger relative times are ignored when estimating an end time
	minCalibration = 1e-3
)

// Process states of [StoreHeader.State].
const (
	StateRunning = 1 // still running, or killed
	StateExited  = 2 // exit, _exit or a return from main
	StateExeced  = 3 // replaced itself with exec
)

// Flags of [StoreHeader.Flags].
const (
	FlagDXT      = 1 // DXT tracing was enabled
	FlagMPIBuild = 2 // the library was built with MPI support
	FlagLearn    = 4 // access sequences were recorded (IOLENS_LEARN)
)

// DXT operations of [StoreSegment.Op].
const (
	OpWrite = 1
	OpRead  = 2
)

// Sentinel errors wrapped by the errors of [ReadStore]; test them with
// errors.Is.
var (
	// ErrNotStore: the file does not start with the store magic.
	ErrNotStore = errors.New("not an iolens store")
	// ErrStoreVersion: the store layout version is not one this package reads.
	ErrStoreVersion = errors.New("unsupported store version")
	// ErrCorruptStore: the header or a complete block is malformed, or the
	// file is too short to hold the header.
	ErrCorruptStore = errors.New("corrupt store")
)

// StoreHeader holds the header fields of a store, as the preload library
// wrote them (times in ticks, wall clock in seconds and nanoseconds).
type StoreHeader struct {
	Version             uint32
	HeaderSize          uint32
	Used, Size          uint64 // bytes in use (end of the blocks), file size
	PID, PPID           int64
	ForkParent          int64 // pid of the parent of a fork child, else 0
	UID                 int64
	StartSec, StartNsec int64 // wall clock when Tick0 was read
	EndSec, EndNsec     int64 // wall clock at exit or exec, 0 if unknown
	Tick0               uint64
	CalTick             uint64 // latest calibration pair: tick ...
	CalSec, CalNsec     int64  // ... and the wall clock read with it
	TickHz              float64
	State               uint32 // StateRunning, StateExited or StateExeced
	Flags               uint32 // FlagDXT, FlagMPIBuild
	MPIRank             int64  // -1 until MPI_Init succeeded
	MPISize             int64  // 0 until MPI_Init succeeded
	MPIJob              uint64 // key shared by the ranks of one MPI job, 0 if none
	Partial             uint64 // bit m set: module m lost data
	JobID               int64  // batch job id, -1 if none
	MPIInitTick         uint64 // ticks when MPI_Init returned, 0 if never
	Hostname            string
	App                 string // IOLENS_APP
	MPIFlavor           string // "openmpi", "mpich" or ""
	Cmdline             string // argv joined by blanks
	// FunctionsLost counts function frames the profiler could not record
	// (call depth over 512, or no room for more functions).
	FunctionsLost uint64
	// Prefetch is what the prefetch thread did (iolens run --prefetch).
	Prefetch PrefetchStats
	// Injected counts the opens that got injected MPI-IO hints, HDF5
	// properties and stdio buffers (see Injection).
	Injected [3]uint64
}

// PrefetchStats count what the prefetch thread of a process did, or of a
// job when summed over its processes.
type PrefetchStats struct {
	Issued   uint64 // extents prefetched (POSIX_FADV_WILLNEED)
	Bytes    uint64 // bytes prefetched
	HitBytes uint64 // prefetched bytes the application read afterwards
	Right    uint64 // next accesses predicted right
	Wrong    uint64 // next accesses predicted wrong
	Matched  uint64 // top-level accesses found in the plan
	Unknown  uint64 // top-level accesses not in the plan
	// Status is "" without a plan, "ok", or why the plan was ignored.
	Status string
}

// StoreSegment is one traced (DXT) operation of a store.
type StoreSegment struct {
	ID     uint64           // record id
	Module darshan.ModuleID // ModPOSIX or ModMPIIO (the traced module)
	Op     uint32           // OpWrite or OpRead
	Offset int64            // -1 if unknown
	Length int64
	// Start and End are in seconds since the process start (Tick0).
	Start, End float64
	Thread     uint64
}

// StoreAccess is one access of a store's access sequence (recorded with
// IOLENS_LEARN; see darshan.Access): a PnetCDF variable or HDF5 dataset
// transfer with the bounding box of its selection, or a POSIX extent.
type StoreAccess struct {
	Module       darshan.ModuleID // ModPnetCDFVar, ModH5D or ModPOSIX
	Op           uint32           // OpWrite or OpRead
	ID, File     uint64           // object and file record ids (equal for POSIX)
	Offset       int64            // -1 for high-level accesses
	Length       int64
	Start, Count []int64 // selection bounding box, innermost dimensions
	// StartTime and EndTime are in seconds since the process start.
	StartTime, EndTime float64
	Thread             uint64
}

// StoreHeatmap is the heatmap of one module of a store: bytes per time bin,
// bins starting at the process start.
type StoreHeatmap struct {
	Module      darshan.ModuleID // the instrumented module (POSIX, MPI-IO, STDIO)
	Width       float64          // bin width in seconds
	Write, Read []int64          // 200 bins each
}

// StoreRecord is one module record of a store.
type StoreRecord struct {
	darshan.Record
	// Events is the number of updates the library made to the record; 0
	// means it was only created (e.g. for a descriptor that was never
	// used, or a standard stream).
	Events uint64
}

// Store is the content of one per-process store file.
//
// Times are converted from ticks to seconds with Hz when the store is read:
// Records' time-stamp fcounters (names ending in _TIMESTAMP) hold seconds
// since the process start (0 still meaning "never"), duration fcounters
// seconds; segment times are seconds since the process start and heatmap
// widths seconds. Records have rank 0; the merge assigns ranks.
type Store struct {
	Path   string
	Header StoreHeader
	// Hz is the tick rate used for the conversion (see ReadStore).
	Hz float64
	// Names maps record ids to names; NameIDs lists the ids in block order.
	Names   map[uint64]string
	NameIDs []uint64
	// Records, Segments and Heatmaps are in block order. Segments that
	// were never completed (kind 0) are left out.
	Records  []*StoreRecord
	Segments []StoreSegment
	Heatmaps []StoreHeatmap
	// Accesses is the access sequence, in the order the accesses ended;
	// never-completed ones are left out.
	Accesses []StoreAccess
	// Functions are the function profiles of a program built with
	// -finstrument-functions (see FunctionStats), in block order.
	Functions []StoreFunction
	// Truncated is set when the blocks stopped at an incomplete block
	// (the file ends before the header's Used, or a block runs past it).
	Truncated bool

	start, end time.Time
}

// Start returns the wall-clock time at which the process started recording
// (the time of Tick0).
func (s *Store) Start() time.Time { return s.start }

// End returns the wall-clock time at which the process ended: the header's
// end time if set; otherwise (a process that crashed or is still running)
// the later of the latest calibration time and the start plus the latest
// time found in the records, segments and heatmaps.
func (s *Store) End() time.Time { return s.end }

// ReadStore reads the store file at path. The header must have the store
// magic, version and header size; blocks are read in order up to the first
// zero block word or the first block that is incomplete (a process killed
// while allocating it, or a truncated copy), whatever the process state.
//
// Tick rate: (CalTick − Tick0) / (calibration wall time − start wall time)
// when the two pairs are at least 1 ms apart; else the header's TickHz when
// positive; else the "cpu MHz" of the first CPU in /proc/cpuinfo (×10^6);
// else 10^9.
//
// Errors name the file and wrap ErrNotStore, ErrStoreVersion or
// ErrCorruptStore (or the I/O error).
func ReadStore(path string) (*Store, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading store %s: %w", path, err)
	}
	return parseStore(path, data)
}

func storeErrorf(path string, kind error, format string, args ...any) error {
	return fmt.Errorf("reading store %s: %w: %s", path, kind, fmt.Sprintf(format, args...))
}

var storeOrder = binary.LittleEndian

// parseStore decodes a store held in data; path names it in errors.
func parseStore(path string, data []byte) (*Store, error) {
	if len(data) < len(storeMagic) || string(data[:len(storeMagic)]) != storeMagic {
		return nil, storeErrorf(path, ErrNotStore, "bad magic")
	}
	if len(data) < storeHeaderSize {
		return nil, storeErrorf(path, ErrCorruptStore, "file of %d bytes is shorter than the %d-byte header", len(data), storeHeaderSize)
	}
	s := &Store{Path: path, Names: make(map[uint64]string)}
	h := &s.Header
	if err := decodeHeader(h, data); err != nil {
		return nil, fmt.Errorf("reading store %s: %w", path, err)
	}
	s.Hz = tickRate(h)
	s.start = time.Unix(h.StartSec, h.StartNsec)
	if err := s.readBlocks(data); err != nil {
		return nil, fmt.Errorf("reading store %s: %w", path, err)
	}
	s.end = s.endTime()
	return s, nil
}

func decodeHeader(h *StoreHeader, b []byte) error {
	i64 := func(off int) int64 { return int64(storeOrder.Uint64(b[off:])) }
	h.Version = storeOrder.Uint32(b[8:])
	h.HeaderSize = storeOrder.Uint32(b[12:])
	if h.Version != storeVersion {
		return fmt.Errorf("%w: version %d (this reader knows %d)", ErrStoreVersion, h.Version, storeVersion)
	}
	if h.HeaderSize != storeHeaderSize {
		return fmt.Errorf("%w: header size %d, want %d", ErrCorruptStore, h.HeaderSize, storeHeaderSize)
	}
	h.Used, h.Size = storeOrder.Uint64(b[16:]), storeOrder.Uint64(b[24:])
	switch {
	case h.Used < storeHeaderSize:
		return fmt.Errorf("%w: %d bytes in use, less than the header", ErrCorruptStore, h.Used)
	case h.Used%8 != 0:
		return fmt.Errorf("%w: %d bytes in use, not a multiple of 8", ErrCorruptStore, h.Used)
	case h.Used > h.Size:
		return fmt.Errorf("%w: %d bytes in use in a file of %d bytes", ErrCorruptStore, h.Used, h.Size)
	}
	h.PID, h.PPID, h.ForkParent, h.UID = i64(32), i64(40), i64(48), i64(56)
	h.StartSec, h.StartNsec, h.EndSec, h.EndNsec = i64(64), i64(72), i64(80), i64(88)
	h.Tick0, h.CalTick = storeOrder.Uint64(b[96:]), storeOrder.Uint64(b[104:])
	h.CalSec, h.CalNsec = i64(112), i64(120)
	h.TickHz = math.Float64frombits(storeOrder.Uint64(b[128:]))
	h.State, h.Flags = storeOrder.Uint32(b[136:]), storeOrder.Uint32(b[140:])
	h.MPIRank, h.MPISize = i64(144), i64(152)
	h.MPIJob, h.Partial = storeOrder.Uint64(b[160:]), storeOrder.Uint64(b[168:])
	h.JobID = i64(176)
	h.MPIInitTick = storeOrder.Uint64(b[184:])
	h.Hostname = storeString(b[192 : 192+hostnameSize])
	h.App = storeString(b[256 : 256+appSize])
	h.MPIFlavor = storeString(b[320 : 320+mpiFlavorSize])
	n := storeOrder.Uint32(b[336:])
	if n > cmdlineMax {
		return fmt.Errorf("%w: command line of %d bytes, the field holds %d", ErrCorruptStore, n, cmdlineMax)
	}
	h.Cmdline = storeString(b[344 : 344+int(n)])
	h.FunctionsLost = storeOrder.Uint64(b[344+cmdlineMax:])
	pf := &h.Prefetch
	pf.Issued, pf.Bytes, pf.HitBytes = storeOrder.Uint64(b[3424:]), storeOrder.Uint64(b[3432:]), storeOrder.Uint64(b[3440:])
	pf.Right, pf.Wrong = storeOrder.Uint64(b[3448:]), storeOrder.Uint64(b[3456:])
	pf.Matched, pf.Unknown = storeOrder.Uint64(b[3464:]), storeOrder.Uint64(b[3472:])
	pf.Status = storeString(b[3480 : 3480+64])
	for i := range h.Injected {
		h.Injected[i] = storeOrder.Uint64(b[3544+8*i:])
	}
	return nil
}

// storeString returns the bytes of b up to the first NUL.
func storeString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// tickRate returns the ticks per second of a store (see ReadStore).
func tickRate(h *StoreHeader) float64 {
	counterSpan := float64(h.CalSec-h.StartSec) + float64(h.CalNsec-h.StartNsec)*1e-9
	if counterSpan >= minCalibration && h.CalTick > h.Tick0 {
		if hz := float64(h.CalTick-h.Tick0) / counterSpan; hz > 0 && !math.IsInf(hz, 0) {
			return hz
		}
	}
	if h.TickHz > 0 && !math.IsInf(h.TickHz, 0) {
		return h.TickHz
	}
	if hz := cpuHz(); hz > 0 {
		return hz
	}
	return 1e9
}

// cpuHz returns the clock rate of the first CPU of /proc/cpuinfo, or 0; a
// variable for tests.
var cpuHz = sync.OnceValue(func() float64 { return cpuinfoHz("/proc/cpuinfo") })

// cpuinfoHz returns the "cpu MHz" of the first CPU listed in the cpuinfo
// file at path, in Hz, or 0.
func cpuinfoHz(path string) float64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != "cpu MHz" {
			continue
		}
		mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(mhz > 0) || math.IsInf(mhz, 0) {
			return 0
		}
		return mhz * 1e6
	}
	return 0
}

// readBlocks decodes the blocks of data after the header.
func (s *Store) readBlocks(data []byte) error {
	limit := uint64(len(data))
	if s.Header.Used < limit {
		limit = s.Header.Used
	} else if s.Header.Used > limit {
		s.Truncated = true // the file ends before the blocks do
	}
	for off := uint64(storeHeaderSize); off+8 <= limit; {
		word := storeOrder.Uint64(data[off:])
		if word == 0 {
			return nil
		}
		typ, size := uint32(word), word>>32
		if size < 8 || size%8 != 0 {
			return fmt.Errorf("%w: block at byte %d: size %d", ErrCorruptStore, off, size)
		}
		if size > limit-off {
			s.Truncated = true
			return nil
		}
		b := data[off : off+size]
		var err error
		switch typ {
		case blockName:
			err = s.readName(b)
		case blockRecord:
			err = s.readRecord(b)
		case blockDXT:
			err = s.readDXT(b)
		case blockAccess:
			err = s.readAccess(b)
		case blockHeatmap:
			err = s.readHeatmap(b)
		case blockFunc:
			err = s.readFunc(b)
		}
		// Blocks of other types are skipped.
		if err != nil {
			return fmt.Errorf("block at byte %d: %w", off, err)
		}
		off += size
	}
	return nil
}

func (s *Store) readName(b []byte) error {
	if len(b) < nameFixed {
		return fmt.Errorf("%w: name block of %d bytes", ErrCorruptStore, len(b))
	}
	id, n := storeOrder.Uint64(b[8:]), uint64(storeOrder.Uint32(b[16:]))
	if n > uint64(len(b)-nameFixed) {
		return fmt.Errorf("%w: name of %d bytes in a %d-byte block", ErrCorruptStore, n, len(b))
	}
	if _, dup := s.Names[id]; !dup {
		s.NameIDs = append(s.NameIDs, id)
	}
	s.Names[id] = string(b[nameFixed : nameFixed+n])
	return nil
}

func (s *Store) readRecord(b []byte) error {
	if len(b) < recordFixed {
		return fmt.Errorf("%w: record block of %d bytes", ErrCorruptStore, len(b))
	}
	m := darshan.ModuleID(storeOrder.Uint32(b[8:]))
	nc, nf := uint64(storeOrder.Uint32(b[12:])), uint64(storeOrder.Uint32(b[16:]))
	if uint64(storeOrder.Uint32(b[8:])) >= darshan.NumKnownModules {
		return fmt.Errorf("%w: record of unknown module %d", ErrCorruptStore, storeOrder.Uint32(b[8:]))
	}
	info := m.Info()
	if nc != uint64(len(info.Counters)) || nf != uint64(len(info.FCounters)) || nc+nf == 0 {
		return fmt.Errorf("%w: %s record with %d counters and %d fcounters, the module has %d and %d",
			ErrCorruptStore, m, nc, nf, len(info.Counters), len(info.FCounters))
	}
	if recordFixed+8*(nc+nf) > uint64(len(b)) {
		return fmt.Errorf("%w: %s record of %d bytes cannot hold its counters", ErrCorruptStore, m, len(b))
	}
	r := &StoreRecord{
		Record: darshan.Record{
			Module:    m,
			ID:        storeOrder.Uint64(b[24:]),
			FileRecID: storeOrder.Uint64(b[32:]),
			Counters:  make([]int64, nc),
			FCounters: make([]float64, nf),
		},
		Events: storeOrder.Uint64(b[40:]),
	}
	for i := range r.Counters {
		r.Counters[i] = int64(storeOrder.Uint64(b[recordFixed+8*i:]))
	}
	kinds := fcounterKinds(m)
	fb := b[recordFixed+8*nc:]
	for i := range r.FCounters {
		v := math.Float64frombits(storeOrder.Uint64(fb[8*i:]))
		if kinds[i] != fOther {
			v /= s.Hz
		}
		r.FCounters[i] = v
	}
	s.Records = append(s.Records, r)
	return nil
}

func (s *Store) readDXT(b []byte) error {
	if len(b) < dxtFixed {
		return fmt.Errorf("%w: DXT block of %d bytes", ErrCorruptStore, len(b))
	}
	capacity := uint64(storeOrder.Uint32(b[8:]))
	if dxtFixed+segmentSize*capacity > uint64(len(b)) {
		return fmt.Errorf("%w: DXT block of %d bytes cannot hold %d segments", ErrCorruptStore, len(b), capacity)
	}
	for i := uint64(0); i < capacity; i++ {
		g := b[dxtFixed+segmentSize*i:]
		kind := storeOrder.Uint32(g[8:])
		if kind == 0 {
			continue
		}
		s.Segments = append(s.Segments, StoreSegment{
			ID:     storeOrder.Uint64(g),
			Module: darshan.ModuleID(kind >> 8),
			Op:     kind & 0xff,
			Offset: int64(storeOrder.Uint64(g[16:])),
			Length: int64(storeOrder.Uint64(g[24:])),
			Start:  float64(storeOrder.Uint64(g[32:])) / s.Hz,
			End:    float64(storeOrder.Uint64(g[40:])) / s.Hz,
			Thread: storeOrder.Uint64(g[48:]),
		})
	}
	return nil
}

func (s *Store) readAccess(b []byte) error {
	if len(b) < dxtFixed {
		return fmt.Errorf("%w: access block of %d bytes", ErrCorruptStore, len(b))
	}
	capacity := uint64(storeOrder.Uint32(b[8:]))
	if dxtFixed+accessSize*capacity > uint64(len(b)) {
		return fmt.Errorf("%w: access block of %d bytes cannot hold %d accesses", ErrCorruptStore, len(b), capacity)
	}
	for i := uint64(0); i < capacity; i++ {
		g := b[dxtFixed+accessSize*i:]
		kind := storeOrder.Uint32(g[16:])
		if kind == 0 {
			continue
		}
		nd := min(int(storeOrder.Uint32(g[20:])&^accessNested), accessDims)
		a := StoreAccess{
			Module:    darshan.ModuleID(kind >> 8),
			Op:        kind & 0xff,
			ID:        storeOrder.Uint64(g),
			File:      storeOrder.Uint64(g[8:]),
			Offset:    int64(storeOrder.Uint64(g[24:])),
			Length:    int64(storeOrder.Uint64(g[32:])),
			StartTime: float64(storeOrder.Uint64(g[40:])) / s.Hz,
			EndTime:   float64(storeOrder.Uint64(g[48:])) / s.Hz,
			Thread:    storeOrder.Uint64(g[56:]),
		}
		if nd > 0 {
			a.Start, a.Count = make([]int64, nd), make([]int64, nd)
			for d := range nd {
				a.Start[d] = int64(storeOrder.Uint64(g[64+8*d:]))
				a.Count[d] = int64(storeOrder.Uint64(g[64+8*accessDims+8*d:]))
			}
		}
		s.Accesses = append(s.Accesses, a)
	}
	return nil
}

func (s *Store) readHeatmap(b []byte) error {
	if len(b) < heatmapSize {
		return fmt.Errorf("%w: heatmap block of %d bytes, needs %d", ErrCorruptStore, len(b), heatmapSize)
	}
	width := math.Float64frombits(storeOrder.Uint64(b[16:]))
	if !(width > 0) || math.IsInf(width, 0) {
		return fmt.Errorf("%w: heatmap bin width %g", ErrCorruptStore, width)
	}
	h := StoreHeatmap{
		Module: darshan.ModuleID(storeOrder.Uint32(b[8:])),
		Width:  width / s.Hz,
		Write:  make([]int64, heatmapBins),
		Read:   make([]int64, heatmapBins),
	}
	for i := range heatmapBins {
		h.Write[i] = int64(storeOrder.Uint64(b[24+8*i:]))
		h.Read[i] = int64(storeOrder.Uint64(b[24+8*heatmapBins+8*i:]))
	}
	s.Heatmaps = append(s.Heatmaps, h)
	return nil
}

// Kinds of floating-point counters, by name suffix.
const (
	fOther     = iota
	fTimestamp // ..._TIMESTAMP: ticks since Tick0 in a store
	fDuration  // ..._TIME: ticks in a store
)

var fkinds = sync.OnceValue(func() [darshan.NumKnownModules][]uint8 {
	var out [darshan.NumKnownModules][]uint8
	for m := range darshan.ModuleID(darshan.NumKnownModules) {
		names := m.Info().FCounters
		out[m] = make([]uint8, len(names))
		for i, n := range names {
			switch {
			case strings.HasSuffix(n, "_TIMESTAMP"):
				out[m][i] = fTimestamp
			case strings.HasSuffix(n, "_TIME"):
				out[m][i] = fDuration
			}
		}
	}
	return out
})

// fcounterKinds returns the kind of every fcounter of module m.
func fcounterKinds(m darshan.ModuleID) []uint8 { return fkinds()[m] }

// endTime returns the end of the process (see Store.End).
func (s *Store) endTime() time.Time {
	h := &s.Header
	if h.EndSec != 0 || h.EndNsec != 0 {
		return time.Unix(h.EndSec, h.EndNsec)
	}
	end := s.start
	if h.CalSec != 0 || h.CalNsec != 0 {
		if c := time.Unix(h.CalSec, h.CalNsec); c.After(end) {
			end = c
		}
	}
	if rel := s.latest(); rel > 0 {
		if t := s.start.Add(time.Duration(rel * 1e9)); t.After(end) {
			end = t
		}
	}
	return end
}

// latest returns the latest time, in seconds since the start, found in the
// records' time stamps, the segments and the heatmaps' last non-empty bins.
// Implausible values (negative, not finite, over maxPlausibleS) are
// ignored.
func (s *Store) latest() float64 {
	var t float64
	see := func(v float64) {
		if v > t && v <= maxPlausibleS {
			t = v
		}
	}
	for _, r := range s.Records {
		kinds := fcounterKinds(r.Module)
		for i, v := range r.FCounters {
			if kinds[i] == fTimestamp {
				see(v)
			}
		}
	}
	for _, g := range s.Segments {
		see(g.Start)
		see(g.End)
	}
	for _, h := range s.Heatmaps {
		if n := usedBins(h.Write, h.Read); n > 0 {
			see(float64(n-1) * h.Width)
		}
	}
	return t
}

// usedBins returns one past the index of the last non-zero bin of either
// direction.
func usedBins(write, read []int64) int {
	for i := max(len(write), len(read)) - 1; i >= 0; i-- {
		if (i < len(write) && write[i] != 0) || (i < len(read) && read[i] != 0) {
			return i + 1
		}
	}
	return 0
}
