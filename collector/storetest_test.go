package collector

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/iolens/iolens/darshan"
)

// testStore writes store files byte for byte as collector/c/store.h lays
// them out, independently of the reader.
type testStore struct {
	h StoreHeader
	// blocks is everything after the header, up to Used.
	blocks []byte
	// used, when non-zero, overrides the computed header.used.
	used uint64
	// slack is the number of zero bytes after the blocks (the unused part
	// of the mapped file).
	slack int
	// cmdlineLen, when non-zero, overrides the command-line length field.
	cmdlineLen uint32
	// events, when set, is the event count of the records appended next.
	events *uint64
}

// withEvents sets the event count of the records appended next.
func (t *testStore) withEvents(n uint64) *testStore {
	t.events = &n
	return t
}

// Default times of a test store: tick0 at 1700000000.5 s, one tick per
// nanosecond.
const (
	testStartSec  = 1700000000
	testStartNsec = 500000000
	testTick0     = 1000
	testHz        = 1e9
)

// newTestStore returns a store of an exited non-MPI process that ran for 2
// seconds with a tick rate of 10^9 (one tick per nanosecond).
func newTestStore(pid int64) *testStore {
	return &testStore{
		h: StoreHeader{
			Version: storeVersion, HeaderSize: storeHeaderSize,
			PID: pid, PPID: 1, UID: 1000,
			StartSec: testStartSec, StartNsec: testStartNsec,
			EndSec: testStartSec + 2, EndNsec: testStartNsec,
			Tick0: testTick0, CalTick: testTick0 + 2e9,
			CalSec: testStartSec + 2, CalNsec: testStartNsec,
			TickHz: testHz, State: StateExited,
			MPIRank: -1, JobID: -1,
			Hostname: "node1", Cmdline: "./app -n 1",
		},
		slack: 4096,
	}
}

// mpi makes the store rank rank of size ranks of MPI job job.
func (t *testStore) mpi(job uint64, rank, size int64) *testStore {
	t.h.MPIJob, t.h.MPIRank, t.h.MPISize = job, rank, size
	t.h.Flags |= FlagMPIBuild
	return t
}

// at shifts the start (and end and calibration) of the store by d
// nanoseconds.
func (t *testStore) at(d int64) *testStore {
	shift := func(sec, nsec *int64) {
		ns := *sec*1e9 + *nsec + d
		*sec, *nsec = ns/1e9, ns%1e9
	}
	shift(&t.h.StartSec, &t.h.StartNsec)
	if t.h.EndSec != 0 {
		shift(&t.h.EndSec, &t.h.EndNsec)
	}
	shift(&t.h.CalSec, &t.h.CalNsec)
	return t
}

func (t *testStore) word(typ uint32, size int) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint64(b, uint64(typ)|uint64(size)<<32)
	return b
}

func pad8(n int) int { return (n + 7) &^ 7 }

// name appends a name block.
func (t *testStore) name(name string) *testStore {
	b := t.word(blockName, pad8(24+len(name)+1))
	binary.LittleEndian.PutUint64(b[8:], darshan.RecordID(name))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(name)))
	copy(b[24:], name)
	t.blocks = append(t.blocks, b...)
	return t
}

// rawRecord appends a record block with the given counters, fcounters (in
// ticks) and runtime bytes after them, updated once (events 1) unless
// t.events says otherwise.
func (t *testStore) rawRecord(m darshan.ModuleID, id, fileRecID uint64, c []int64, f []float64, runtime int) *testStore {
	b := t.word(blockRecord, 48+8*(len(c)+len(f))+runtime)
	binary.LittleEndian.PutUint32(b[8:], uint32(m))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(c)))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(f)))
	binary.LittleEndian.PutUint32(b[20:], 0xdeadbeef) // lock: runtime state
	binary.LittleEndian.PutUint64(b[24:], id)
	binary.LittleEndian.PutUint64(b[32:], fileRecID)
	events := uint64(1)
	if t.events != nil {
		events = *t.events
	}
	binary.LittleEndian.PutUint64(b[40:], events)
	for i, v := range c {
		binary.LittleEndian.PutUint64(b[48+8*i:], uint64(v))
	}
	for i, v := range f {
		binary.LittleEndian.PutUint64(b[48+8*len(c)+8*i:], math.Float64bits(v))
	}
	for i := range runtime {
		b[48+8*(len(c)+len(f))+i] = 0xa5
	}
	t.blocks = append(t.blocks, b...)
	return t
}

// cv is a set of counter values by full name; fcounter values are in
// ticks for stores, in seconds for records.
type cv map[string]float64

// record appends a record of module m for the file name with the named
// counters set (integer counters by their integer value, fcounters in
// ticks); the other counters are 0.
func (t *testStore) record(m darshan.ModuleID, name string, vals cv) *testStore {
	return t.recordOf(m, name, "", vals)
}

// recordOf is record for H5D and PNETCDF_VAR records of file file.
func (t *testStore) recordOf(m darshan.ModuleID, name, file string, vals cv) *testStore {
	info := m.Info()
	c := make([]int64, len(info.Counters))
	f := make([]float64, len(info.FCounters))
	for k, v := range vals {
		if i := m.CounterIndex(k); i >= 0 {
			c[i] = int64(v)
		} else if i := m.FCounterIndex(k); i >= 0 {
			f[i] = v
		} else {
			panic(fmt.Sprintf("no counter %s in %s", k, m))
		}
	}
	var fileID uint64
	if file != "" {
		fileID = darshan.RecordID(file)
	}
	return t.rawRecord(m, darshan.RecordID(name), fileID, c, f, 64)
}

// tseg is one DXT segment of a test store (times in ticks since tick0).
type tseg struct {
	name       string
	module     darshan.ModuleID
	op         uint32
	offset     int64
	length     int64
	start, end uint64
	thread     uint64
}

// dxt appends a DXT chunk of the given capacity holding segs; the other
// slots are empty (kind 0).
func (t *testStore) dxt(capacity int, segs ...tseg) *testStore {
	b := t.word(blockDXT, 16+56*capacity)
	binary.LittleEndian.PutUint32(b[8:], uint32(capacity))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(segs)))
	for i, s := range segs {
		g := b[16+56*i:]
		binary.LittleEndian.PutUint64(g, darshan.RecordID(s.name))
		kind := uint32(s.module)<<8 | s.op
		if s.op == 0 {
			kind = 0
		}
		binary.LittleEndian.PutUint32(g[8:], kind)
		binary.LittleEndian.PutUint64(g[16:], uint64(s.offset))
		binary.LittleEndian.PutUint64(g[24:], uint64(s.length))
		binary.LittleEndian.PutUint64(g[32:], s.start)
		binary.LittleEndian.PutUint64(g[40:], s.end)
		binary.LittleEndian.PutUint64(g[48:], s.thread)
	}
	t.blocks = append(t.blocks, b...)
	return t
}

// heatmap appends a heatmap block of module m with a bin width in ticks
// and the given non-zero bins.
func (t *testStore) heatmap(m darshan.ModuleID, width float64, write, read map[int]int64) *testStore {
	b := t.word(blockHeatmap, 3224)
	binary.LittleEndian.PutUint32(b[8:], uint32(m))
	binary.LittleEndian.PutUint64(b[16:], math.Float64bits(width))
	for i, v := range write {
		binary.LittleEndian.PutUint64(b[24+8*i:], uint64(v))
	}
	for i, v := range read {
		binary.LittleEndian.PutUint64(b[24+1600+8*i:], uint64(v))
	}
	t.blocks = append(t.blocks, b...)
	return t
}

// block appends a block of another type with size bytes.
func (t *testStore) block(typ uint32, size int) *testStore {
	t.blocks = append(t.blocks, t.word(typ, size)...)
	return t
}

// raw appends bytes as they are (e.g. a zero word).
func (t *testStore) raw(b []byte) *testStore {
	t.blocks = append(t.blocks, b...)
	return t
}

// bytes returns the store file.
func (t *testStore) bytes() []byte {
	h := t.h
	used := uint64(storeHeaderSize + len(t.blocks))
	if t.used != 0 {
		used = t.used
	}
	size := uint64(storeHeaderSize + len(t.blocks) + t.slack)
	if h.Used == 0 {
		h.Used = used
	}
	if h.Size == 0 {
		h.Size = max(size, h.Used)
	}
	b := make([]byte, storeHeaderSize, size)
	copy(b, storeMagic)
	o := binary.LittleEndian
	o.PutUint32(b[8:], h.Version)
	o.PutUint32(b[12:], h.HeaderSize)
	o.PutUint64(b[16:], h.Used)
	o.PutUint64(b[24:], h.Size)
	for off, v := range map[int]int64{
		32: h.PID, 40: h.PPID, 48: h.ForkParent, 56: h.UID,
		64: h.StartSec, 72: h.StartNsec, 80: h.EndSec, 88: h.EndNsec,
		112: h.CalSec, 120: h.CalNsec, 144: h.MPIRank, 152: h.MPISize, 176: h.JobID,
	} {
		o.PutUint64(b[off:], uint64(v))
	}
	o.PutUint64(b[96:], h.Tick0)
	o.PutUint64(b[104:], h.CalTick)
	o.PutUint64(b[128:], math.Float64bits(h.TickHz))
	o.PutUint32(b[136:], h.State)
	o.PutUint32(b[140:], h.Flags)
	o.PutUint64(b[160:], h.MPIJob)
	o.PutUint64(b[168:], h.Partial)
	o.PutUint64(b[184:], h.MPIInitTick)
	copy(b[192:256], h.Hostname)
	copy(b[256:320], h.App)
	copy(b[320:336], h.MPIFlavor)
	n := uint32(len(h.Cmdline))
	if t.cmdlineLen != 0 {
		n = t.cmdlineLen
	}
	o.PutUint32(b[336:], n)
	copy(b[344:344+3072], h.Cmdline)
	o.PutUint64(b[3416:], h.FunctionsLost)
	b = append(b, t.blocks...)
	return append(b, make([]byte, t.slack)...)
}

// write writes the store as dir/name and returns its path.
func (t *testStore) write(tb testing.TB, dir, name string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, t.bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// parse parses the store in memory.
func (t *testStore) parse(tb testing.TB) *Store {
	tb.Helper()
	s, err := parseStore("test.store", t.bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
