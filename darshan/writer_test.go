package darshan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/iolens/iolens/internal/fixture"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// writerBuffer is an in-memory io.WriterAt / io.ReaderAt.
type writerBuffer struct{ b []byte }

func (m *writerBuffer) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

func (m *writerBuffer) open(t testing.TB) *Log {
	t.Helper()
	l, err := Open(bytes.NewReader(m.b), int64(len(m.b)), "written.darshan")
	if err != nil {
		t.Fatalf("reading the written log: %v", err)
	}
	return l
}

// exactRecords compares records exactly: floats bit for bit, nil and empty
// slices alike.
var exactRecords = cmp.Options{
	cmpopts.EquateEmpty(),
	cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }),
}

var writerCompressions = []Compression{CompressZlib, CompressNone, CompressBzip2}

// readAllRecords returns clones of every record of every known module of l, by
// module.
func readAllRecords(t testing.TB, l *Log) map[ModuleID][]*Record {
	t.Helper()
	out := make(map[ModuleID][]*Record)
	for m := ModuleID(0); m < NumKnownModules; m++ {
		err := l.Each(m, func(r *Record) error {
			out[m] = append(out[m], r.Clone())
			return nil
		})
		if err != nil {
			t.Fatalf("reading module %s: %v", m, err)
		}
	}
	return out
}

// diffRecordSets reports the differences between two sets of records. It
// compares with reflect.DeepEqual first (fast on large logs, both sides
// being clones) and explains mismatches with cmp.
func diffRecordSets(t *testing.T, label string, want, got map[ModuleID][]*Record) {
	t.Helper()
	for m := ModuleID(0); m < NumKnownModules; m++ {
		w, g := want[m], got[m]
		if len(w) != len(g) {
			t.Errorf("%s: module %s: %d records, want %d", label, m, len(g), len(w))
			continue
		}
		bad := 0
		for i := range w {
			if reflect.DeepEqual(w[i], g[i]) {
				continue
			}
			if diff := cmp.Diff(w[i], g[i], exactRecords); diff != "" {
				t.Errorf("%s: module %s: record %d (-want +got):\n%s", label, m, i, diff)
				if bad++; bad == 3 {
					break
				}
			}
		}
	}
}

type writerName struct {
	ID   uint64
	Name string
}

func namesInOrder(l *Log) []writerName {
	var out []writerName
	for id, name := range l.Names() {
		out = append(out, writerName{id, name})
	}
	return out
}

// release350Versions are the record versions the Darshan 3.5.0 runtime
// writes, by module (docs/format/darshan-log-format.md, §7.1).
var release350Versions = [NumKnownModules]uint32{
	ModNull: 1, ModPOSIX: 4, ModMPIIO: 3, ModH5F: 3, ModH5D: 2, ModPnetCDFFile: 3, ModPnetCDFVar: 1,
	ModBGQ: 2, ModLustre: 2, ModSTDIO: 2, ModDXTPOSIX: 1, ModDXTMPIIO: 2, ModMDHIM: 1, ModAPXC: 1,
	ModAPMPI: 1, ModHeatmap: 1, ModDFS: 1, ModDAOS: 1,
}

// checkWrittenLayout checks the header bytes of a written log: version, magic,
// compression, contiguous regions covering the file, and module versions.
func checkWrittenLayout(t *testing.T, b []byte, opts WriterOptions) {
	t.Helper()
	comp := opts.Compression
	if len(b) < headerSize341 {
		t.Fatalf("log of %d bytes", len(b))
	}
	if got := string(b[:8]); got != "3.41\x00\x00\x00\x00" {
		t.Errorf("version bytes %q", got)
	}
	if got := binary.LittleEndian.Uint64(b[8:]); got != magicNumber {
		t.Errorf("magic %#x", got)
	}
	if b[16] != byte(comp) || !bytes.Equal(b[17:24], make([]byte, 7)) {
		t.Errorf("compression bytes % x, want %d and zero padding", b[16:24], comp)
	}
	le := binary.LittleEndian
	job := b[headerSize341:]
	if sig := map[Compression]string{CompressZlib: "\x78\x9c", CompressBzip2: "BZh9"}[comp]; !bytes.HasPrefix(job, []byte(sig)) {
		t.Errorf("job region starts % x, want %q", job[:4], sig)
	}
	region := func(off int) Region { return Region{le.Uint64(b[off:]), le.Uint64(b[off+8:])} }
	names := region(32)
	var regions []Region
	if names.Len > 0 {
		regions = append(regions, names)
	} else if names.Off != 0 {
		t.Errorf("empty name region at %d", names.Off)
	}
	for m := 0; m < MaxModules; m++ {
		g, ver := region(48+16*m), le.Uint32(b[1072+4*m:])
		want := uint32(0)
		if m < NumKnownModules {
			want = release350Versions[m]
			if opts.DXTThreads && ModuleID(m) == ModDXTPOSIX {
				want = 2
			}
			if opts.DXTThreads && ModuleID(m) == ModDXTMPIIO {
				want = 3
			}
		}
		switch {
		case g == (Region{}) && ver == 0:
		case ver != want:
			t.Errorf("module %s: version %d, want %d", ModuleID(m), ver, want)
		case g.Len == 0 && comp != CompressNone:
			t.Errorf("module %s: empty region %+v with version %d", ModuleID(m), g, ver)
		default:
			regions = append(regions, g)
		}
	}
	// The job region starts after the header; every region starts where
	// the previous one ended and the last ends the file.
	pos := uint64(headerSize341)
	if len(regions) > 0 {
		if regions[0].Off <= pos {
			t.Errorf("first region at %d leaves no job region", regions[0].Off)
		}
		pos = regions[0].Off
	}
	for _, g := range regions {
		if g.Off != pos {
			t.Errorf("region at %d, want %d (contiguous)", g.Off, pos)
		}
		pos = g.Off + g.Len
	}
	if len(regions) > 0 && pos != uint64(len(b)) {
		t.Errorf("last region ends at %d, file is %d bytes", pos, len(b))
	}
}

func intsFrom(n int, f func(i int) int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func floatsFrom(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// countedRecord returns a record of module m whose counters, as many as the
// module's tables list, count up from base.
func countedRecord(m ModuleID, id uint64, rank int64, base int64) *Record {
	info := m.Info()
	return &Record{
		Module: m, ID: id, Rank: rank,
		Counters:  intsFrom(len(info.Counters), func(i int) int64 { return base + int64(i) }),
		FCounters: floatsFrom(len(info.FCounters), func(i int) float64 { return float64(base) + float64(i)/4 }),
	}
}

const (
	testVectorPath = "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat"
	testVectorID   = 9347516096890457488
	heatmapPOSIXID = 16592106915301738621
)

// handBuiltRecords returns a record of every module, by module, and the names of
// the logs built from them.
func handBuiltRecords() (map[ModuleID][]*Record, map[uint64]string) {
	names := map[uint64]string{}
	id := func(name string) uint64 {
		names[RecordID(name)] = name
		return RecordID(name)
	}
	a, vec := id("/tmp/a"), id(testVectorPath)
	posix := countedRecord(ModPOSIX, a, 0, 10)
	posix.Counters[ModPOSIX.CounterIndex("POSIX_OPENS")] = 16
	posix.FCounters[ModPOSIX.FCounterIndex("POSIX_F_READ_TIME")] = math.Inf(1)
	h5d := countedRecord(ModH5D, id("/tmp/a:/Dataset"), 1, 3)
	h5d.FileRecID = a
	pvar := countedRecord(ModPnetCDFVar, id("/tmp/b.nc:var"), -1, 4)
	pvar.FileRecID = id("/tmp/b.nc")
	dfs := countedRecord(ModDFS, 77, 0, 5)
	dfs.PoolUUID, dfs.ContUUID = [16]byte{1, 2, 3, 15: 16}, [16]byte{0: 0xff, 15: 0xee}
	daos := countedRecord(ModDAOS, 78, 0, 6)
	daos.PoolUUID, daos.ContUUID, daos.OIDHi, daos.OIDLo = dfs.PoolUUID, dfs.ContUUID, 1<<63+5, 42
	mdhim := countedRecord(ModMDHIM, id("db"), 0, 0)
	mdhim.Counters[4] = 3
	mdhim.Servers = []int64{7, 8, 9}
	mdhim0 := countedRecord(ModMDHIM, id("db0"), 1, 0)
	mdhim0.Counters[4] = 0
	apmpiHdr := &Record{Module: ModAPMPI, ID: id("darshan-apmpi-header"), Header: true,
		Counters: []int64{0x41504D5049, 1}, FCounters: []float64{0.5, 0.25}}
	apmpi := countedRecord(ModAPMPI, id("APMPI"), 3, 1)
	apmpi.NodeName = "nid00042"
	apxcHdr := &Record{Module: ModAPXC, ID: id("darshan-apxc-header"), Header: true,
		Counters: []int64{0x4155544F50455246, 1, 2, 3, 1 << 31, 4, 99}}
	recs := map[ModuleID][]*Record{
		ModNull:        {countedRecord(ModNull, 1, 0, 1)},
		ModPOSIX:       {posix, countedRecord(ModPOSIX, vec, -1, 100)},
		ModMPIIO:       {countedRecord(ModMPIIO, vec, -1, 7)},
		ModH5F:         {countedRecord(ModH5F, a, 0, 1)},
		ModH5D:         {h5d},
		ModPnetCDFFile: {countedRecord(ModPnetCDFFile, pvar.FileRecID, -1, 2)},
		ModPnetCDFVar:  {pvar},
		ModBGQ:         {countedRecord(ModBGQ, 5, 0, 8)},
		ModLustre: {{Module: ModLustre, ID: a, Rank: -1, Counters: []int64{2, 3}, Lustre: &Lustre{
			Components: []LustreComponent{
				{StripeSize: 1 << 20, StripeCount: 1, StripePattern: 0, Flags: 0, ExtStart: 0, ExtEnd: 1 << 30, MirrorID: 0, PoolName: "fast"},
				{StripeSize: 4 << 20, StripeCount: 2, StripePattern: 4, Flags: 16, ExtStart: 1 << 30, ExtEnd: -1, MirrorID: 1, PoolName: "fifteen-bytes.."},
			},
			OSTs: []int64{3, 4, 5},
		}}},
		ModSTDIO: {countedRecord(ModSTDIO, id("<STDOUT>"), 0, 9)},
		ModDXTPOSIX: {{Module: ModDXTPOSIX, ID: a, Rank: 2, DXT: &Trace{Hostname: "node-1", ThreadIDs: true,
			Writes: []Segment{{0, 10, 0.5, 0.75, 1234}, {10, 20, 1, 2, 1 << 63}},
			Reads:  []Segment{{5, 5, 3, 4, 7}},
		}}},
		ModDXTMPIIO: {{Module: ModDXTMPIIO, ID: vec, Rank: 0, DXT: &Trace{Hostname: strings.Repeat("h", 63), ThreadIDs: true,
			Reads: []Segment{{-1, 4096, 0.125, 0.25, 0}},
		}}},
		ModMDHIM: {mdhim, mdhim0},
		ModAPXC:  {apxcHdr, countedRecord(ModAPXC, id("APXC"), 0, 11)},
		ModAPMPI: {apmpiHdr, apmpi},
		ModHeatmap: {{Module: ModHeatmap, ID: id("heatmap:POSIX"), Rank: 1, FCounters: []float64{0.1},
			Heatmap: &Heatmap{BinWidth: 0.1, Write: []int64{1, 2, 3}, Read: []int64{4, 5, 6}}}},
		ModDFS:  {dfs},
		ModDAOS: {daos},
	}
	return recs, names
}

func handBuiltJob() Job {
	return Job{UID: 1000, StartTime: 1700000000, StartNsec: 123, EndTime: 1700000100, EndNsec: 999999999,
		NProcs: 4, JobID: 4242, Metadata: "lib_ver=3.5.0\nh=romio_no_indep_rw=true;cb_nodes=4"}
}

func writeHandBuilt(t *testing.T, opts WriterOptions, recs map[ModuleID][]*Record, names map[uint64]string, mounts []Mount) *writerBuffer {
	t.Helper()
	f := &writerBuffer{}
	w := NewWriter(f, opts)
	if err := w.WriteJob(handBuiltJob(), "./mpi-io-test -i 3", mounts); err != nil {
		t.Fatal(err)
	}
	ids := slices.Sorted(maps.Keys(names))
	if err := w.WriteNames(func(yield func(uint64, string) bool) {
		for _, id := range ids {
			if !yield(id, names[id]) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, m := range slices.Sorted(maps.Keys(recs)) {
		if err := w.BeginModule(m); err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[m] {
			if err := w.WriteRecord(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.SetPartial(ModSTDIO)
	w.SetPartial(ModDAOS)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestWriterHandBuilt(t *testing.T) {
	if RecordID(testVectorPath) != testVectorID || RecordID("heatmap:POSIX") != heatmapPOSIXID {
		t.Fatal("record id test vectors do not hold")
	}
	recs, names := handBuiltRecords()
	mounts := []Mount{{"/", "rootfs"}, {"/home", "nfs"}, {"/lus", "lustre"}, {"/tmp", "xfs"}}
	for _, opts := range writerOptions() {
		comp := opts.Compression
		t.Run(fmt.Sprintf("%v threads=%v", comp, opts.DXTThreads), func(t *testing.T) {
			f := writeHandBuilt(t, opts, recs, names, mounts)
			checkWrittenLayout(t, f.b, opts)
			l := f.open(t)
			if l.Header.Version != "3.41" || l.Header.Compression != comp || l.Header.ByteOrder != binary.LittleEndian {
				t.Errorf("header %s %v %v", l.Header.Version, l.Header.Compression, l.Header.ByteOrder)
			}
			if want := uint64(1<<ModSTDIO | 1<<ModDAOS); l.Header.Partial != want {
				t.Errorf("partial flags %#x, want %#x", l.Header.Partial, want)
			}
			wantJob := handBuiltJob()
			wantJob.Metadata += "\n"
			if diff := cmp.Diff(wantJob, l.Job); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
			if l.Exe != "./mpi-io-test -i 3" {
				t.Errorf("exe %q", l.Exe)
			}
			// Written in reverse, then sorted by descending path length:
			// equal lengths come back in reverse input order.
			wantMounts := []Mount{{"/home", "nfs"}, {"/tmp", "xfs"}, {"/lus", "lustre"}, {"/", "rootfs"}}
			if diff := cmp.Diff(wantMounts, l.Mounts); diff != "" {
				t.Errorf("mounts (-want +got):\n%s", diff)
			}
			if got, _ := l.RecordName(testVectorID); got != testVectorPath {
				t.Errorf("name of %d = %q", uint64(testVectorID), got)
			}
			if got, _ := l.RecordName(heatmapPOSIXID); got != "heatmap:POSIX" {
				t.Errorf("name of %d = %q", uint64(heatmapPOSIXID), got)
			}
			got := map[uint64]string{}
			for id, name := range l.Names() {
				got[id] = name
			}
			if diff := cmp.Diff(names, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			want := recs
			if !opts.DXTThreads {
				want = withoutThreads(recs)
			}
			if diff := cmp.Diff(want, readAllRecords(t, l), exactRecords); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

// writerOptions are the options the writer is tested with: every
// compression, DXT segments with and without thread ids.
func writerOptions() []WriterOptions {
	var out []WriterOptions
	for _, comp := range writerCompressions {
		for _, threads := range []bool{false, true} {
			out = append(out, WriterOptions{Compression: comp, DXTThreads: threads})
		}
	}
	return out
}

// withoutThreads returns a copy of recs whose DXT traces have no thread
// ids, as a log written without WriterOptions.DXTThreads reads back.
func withoutThreads(recs map[ModuleID][]*Record) map[ModuleID][]*Record {
	out := maps.Clone(recs)
	for _, m := range []ModuleID{ModDXTPOSIX, ModDXTMPIIO} {
		out[m] = nil
		for _, r := range recs[m] {
			c := r.Clone()
			c.DXT.ThreadIDs = false
			for _, segs := range [][]Segment{c.DXT.Writes, c.DXT.Reads} {
				for i := range segs {
					segs[i].ThreadID = 0
				}
			}
			out[m] = append(out[m], c)
		}
	}
	return out
}

// TestWriterPOSIXBytes checks the encoding of a POSIX record byte by byte.
func TestWriterPOSIXBytes(t *testing.T) {
	r := countedRecord(ModPOSIX, testVectorID, -1, 1)
	w := NewWriter(&writerBuffer{}, WriterOptions{})
	w.cur = ModPOSIX
	b, err := w.encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 704 {
		t.Fatalf("POSIX record of %d bytes, want 704", len(b))
	}
	le := binary.LittleEndian
	if le.Uint64(b) != testVectorID || int64(le.Uint64(b[8:])) != -1 {
		t.Errorf("base record % x", b[:16])
	}
	for i, want := range r.Counters {
		if got := int64(le.Uint64(b[16+8*i:])); got != want {
			t.Errorf("counter %d = %d, want %d", i, got, want)
		}
	}
	for i, want := range r.FCounters {
		if got := math.Float64frombits(le.Uint64(b[568+8*i:])); got != want {
			t.Errorf("float counter %d = %g, want %g", i, got, want)
		}
	}
}

func TestWriterEmpty(t *testing.T) {
	for _, comp := range writerCompressions {
		f := &writerBuffer{}
		w := NewWriter(f, WriterOptions{Compression: comp})
		if err := w.WriteJob(Job{NProcs: 1}, "", nil); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteNames(maps.All(map[uint64]string{})); err != nil {
			t.Fatal(err)
		}
		if err := w.BeginModule(ModPOSIX); err != nil { // no records: an empty region
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		checkWrittenLayout(t, f.b, WriterOptions{Compression: comp})
		l := f.open(t)
		if g := l.Header.Modules[ModPOSIX]; l.Header.Names != (Region{}) || (g.Len == 0) != (comp == CompressNone) || l.Header.ModuleVersions[ModPOSIX] != 4 {
			t.Errorf("%v: names %+v, POSIX %+v v%d; want no names and an empty POSIX region of version 4", comp, l.Header.Names, g, l.Header.ModuleVersions[ModPOSIX])
		}
		if n := len(readAllRecords(t, l)[ModPOSIX]); n != 0 {
			t.Errorf("%v: %d POSIX records, want none", comp, n)
		}
		if l.Exe != "" || len(l.Mounts) != 0 || l.Job.NProcs != 1 || l.Job.Metadata != "" {
			t.Errorf("%v: job %+v exe %q mounts %v", comp, l.Job, l.Exe, l.Mounts)
		}
	}
}

// writtenJobRegion returns the decompressed job region of the log in f.
func writtenJobRegion(t *testing.T, f *writerBuffer) []byte {
	t.Helper()
	l := f.open(t)
	g := l.JobRegion
	var inf inflater
	data, err := inf.inflate(nil, f.b[g.Off:g.Off+g.Len], l.Header.Compression, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestWriterJobTextLimit(t *testing.T) {
	var mounts []Mount
	for i := range 200 {
		mounts = append(mounts, Mount{Path: "/mnt/" + strings.Repeat("p", i%40), FSType: "ext4"})
	}
	for _, tc := range []struct {
		name     string
		exe      string
		wantExe  string
		nmounts  int // mounts expected back (all those that fit)
		noMounts bool
	}{
		{name: "long exe", exe: strings.Repeat("x", 5000), wantExe: strings.Repeat("x", jobTextMax), noMounts: true},
		{name: "many mounts", exe: "app", wantExe: "app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &writerBuffer{}
			w := NewWriter(f, WriterOptions{})
			if err := w.WriteJob(Job{}, tc.exe, mounts); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data := writtenJobRegion(t, f)
			if len(data) > jobTextLimit || data[len(data)-1] != 0 {
				t.Fatalf("job region decompresses to %d bytes ending in %#x", len(data), data[len(data)-1])
			}
			l := f.open(t)
			if l.Exe != tc.wantExe {
				t.Errorf("exe of %d bytes, want %d", len(l.Exe), len(tc.wantExe))
			}
			if tc.noMounts {
				if len(l.Mounts) != 0 {
					t.Errorf("%d mounts, want none", len(l.Mounts))
				}
				return
			}
			// The kept entries are whole and are the last ones of the
			// array (written first); the next one would not have fit.
			text := string(data[jobRecord341Size : len(data)-1])
			n := strings.Count(text, "\n")
			if n == 0 || n == len(mounts) {
				t.Fatalf("%d mount entries kept of %d", n, len(mounts))
			}
			want := "app"
			for i := len(mounts) - 1; i >= len(mounts)-n; i-- {
				want += "\n" + mounts[i].FSType + "\t" + mounts[i].Path
			}
			if text != want {
				t.Errorf("job text differs from the last %d whole entries", n)
			}
			next := mounts[len(mounts)-n-1]
			if len(text)+2+len(next.FSType)+len(next.Path) <= jobTextMax {
				t.Errorf("entry %d would have fit", len(mounts)-n-1)
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	recs, _ := handBuiltRecords()
	posix := recs[ModPOSIX][0]
	newWriter := func(t *testing.T) *Writer {
		w := NewWriter(&writerBuffer{}, WriterOptions{})
		if err := w.WriteJob(handBuiltJob(), "app", nil); err != nil {
			t.Fatal(err)
		}
		return w
	}
	short := posix.Clone()
	short.Counters = short.Counters[:68]
	dxt := recs[ModDXTPOSIX][0].Clone()
	dxt.DXT = nil
	heat := recs[ModHeatmap][0].Clone()
	heat.Heatmap.Read = heat.Heatmap.Read[:1]
	mdhim := recs[ModMDHIM][0].Clone()
	mdhim.Servers = mdhim.Servers[:2]
	longHost := recs[ModDXTPOSIX][0].Clone()
	longHost.DXT.Hostname = strings.Repeat("h", 64)

	for _, tc := range []struct {
		name string
		run  func(w *Writer) error
		want error
		msg  string
	}{
		{"out of order", func(w *Writer) error {
			if err := w.BeginModule(ModSTDIO); err != nil {
				return err
			}
			return w.BeginModule(ModPOSIX)
		}, ErrWriteOrder, "module POSIX after module STDIO"},
		{"same module twice", func(w *Writer) error {
			w.BeginModule(ModPOSIX)
			return w.BeginModule(ModPOSIX)
		}, ErrWriteOrder, "increasing id order"},
		{"unknown module", func(w *Writer) error { return w.BeginModule(NumKnownModules) }, ErrUnknownModule, "module(18)"},
		{"record before module", func(w *Writer) error { return w.WriteRecord(posix) }, ErrWriteOrder, "before BeginModule"},
		{"names after module", func(w *Writer) error {
			w.BeginModule(ModPOSIX)
			return w.WriteNames(maps.All(map[uint64]string{1: "x"}))
		}, ErrWriteOrder, "name region"},
		{"wrong counter count", func(w *Writer) error {
			w.BeginModule(ModPOSIX)
			w.WriteRecord(posix)
			w.WriteRecord(posix)
			w.WriteRecord(posix)
			return w.WriteRecord(short)
		}, ErrInvalidRecord, "writing module POSIX: record 3: invalid record: 68 integer"},
		{"other module", func(w *Writer) error {
			w.BeginModule(ModMPIIO)
			return w.WriteRecord(posix)
		}, ErrInvalidRecord, "record of module POSIX"},
		{"missing trace", func(w *Writer) error {
			w.BeginModule(ModDXTPOSIX)
			return w.WriteRecord(dxt)
		}, ErrInvalidRecord, "without a trace"},
		{"long hostname", func(w *Writer) error {
			w.BeginModule(ModDXTPOSIX)
			return w.WriteRecord(longHost)
		}, ErrInvalidRecord, "hostname of 64 bytes"},
		{"heatmap bins", func(w *Writer) error {
			w.BeginModule(ModHeatmap)
			return w.WriteRecord(heat)
		}, ErrInvalidRecord, "3 write bins and 1 read bins"},
		{"mdhim servers", func(w *Writer) error {
			w.BeginModule(ModMDHIM)
			return w.WriteRecord(mdhim)
		}, ErrInvalidRecord, "MDHIM_SERVERS is 3"},
		{"apmpi without header", func(w *Writer) error {
			w.BeginModule(ModAPMPI)
			return w.WriteRecord(recs[ModAPMPI][1])
		}, ErrInvalidRecord, "header record"},
		{"header record in POSIX", func(w *Writer) error {
			w.BeginModule(ModPOSIX)
			p := posix.Clone()
			p.Header = true
			return w.WriteRecord(p)
		}, ErrInvalidRecord, "no header record"},
		{"bad mount", func(w *Writer) error {
			return NewWriter(&writerBuffer{}, WriterOptions{}).WriteJob(Job{}, "app", []Mount{{"/a b", "nfs"}})
		}, ErrInvalidRecord, "white space"},
		{"long metadata", func(w *Writer) error {
			return NewWriter(&writerBuffer{}, WriterOptions{}).WriteJob(Job{Metadata: strings.Repeat("k=v\n", 256)}, "app", nil)
		}, ErrInvalidRecord, "job metadata of 1024 bytes"},
		{"close before job", func(w *Writer) error { return NewWriter(&writerBuffer{}, WriterOptions{}).Close() }, ErrWriteOrder, "Close before WriteJob"},
		{"job twice", func(w *Writer) error { return w.WriteJob(Job{}, "", nil) }, ErrWriteOrder, "job already written"},
		{"write after close", func(w *Writer) error {
			w.Close()
			return w.BeginModule(ModPOSIX)
		}, ErrWriteOrder, "closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(newWriter(t))
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q lacks %q", err, tc.msg)
			}
		})
	}
}

func TestWriterBadCompression(t *testing.T) {
	w := NewWriter(&writerBuffer{}, WriterOptions{Compression: 7})
	if err := w.WriteJob(Job{}, "", nil); err == nil || !strings.Contains(err.Error(), "compression") {
		t.Errorf("error %v, want an unknown compression error", err)
	}
}

// failingWriterAt fails every write at or beyond limit.
type failingWriterAt struct {
	writerBuffer
	limit int64
}

var errWriterDiskFull = errors.New("disk full")

func (f *failingWriterAt) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.limit {
		return 0, errWriterDiskFull
	}
	return f.writerBuffer.WriteAt(p, off)
}

// TestWriterIOError checks that an I/O error is reported with its place and
// sticks.
func TestWriterIOError(t *testing.T) {
	recs, _ := handBuiltRecords()
	w := NewWriter(&failingWriterAt{limit: 4000}, WriterOptions{Compression: CompressNone})
	if err := w.WriteJob(handBuiltJob(), "app", nil); err != nil {
		t.Fatal(err)
	}
	w.BeginModule(ModPOSIX)
	var err error
	for i := 0; err == nil && i < 1000; i++ {
		err = w.WriteRecord(recs[ModPOSIX][0])
	}
	if err == nil {
		err = w.Close()
	}
	if !errors.Is(err, errWriterDiskFull) || !strings.Contains(err.Error(), "writing module POSIX") {
		t.Fatalf("error %v, want %v in module POSIX", err, errWriterDiskFull)
	}
	if err2 := w.Close(); err2 != err {
		t.Errorf("Close after an I/O error: %v, want %v", err2, err)
	}
}

// TestWriterRecovers checks that a rejected record leaves the Writer usable
// and that a bad name makes it fail for good.
func TestWriterRecovers(t *testing.T) {
	recs, _ := handBuiltRecords()
	f := &writerBuffer{}
	w := NewWriter(f, WriterOptions{})
	w.WriteJob(handBuiltJob(), "app", nil)
	w.BeginModule(ModPOSIX)
	bad := recs[ModPOSIX][0].Clone()
	bad.FCounters = nil
	if err := w.WriteRecord(bad); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("error %v", err)
	}
	if err := w.WriteRecord(recs[ModPOSIX][0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[ModuleID][]*Record{ModPOSIX: recs[ModPOSIX][:1]}, readAllRecords(t, f.open(t)), exactRecords); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}

	w = NewWriter(&writerBuffer{}, WriterOptions{})
	w.WriteJob(handBuiltJob(), "app", nil)
	err := w.WriteNames(maps.All(map[uint64]string{1: "a\x00b"}))
	if !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("error %v", err)
	}
	if err2 := w.Close(); err2 != err {
		t.Errorf("Close after a failed WriteNames: %v, want %v", err2, err)
	}
}

// TestWriterLustreUnused checks that unused components are not written.
func TestWriterLustreUnused(t *testing.T) {
	r := &Record{Module: ModLustre, ID: 9, Rank: -1, Counters: []int64{3, 6}, Lustre: &Lustre{
		Components: []LustreComponent{{StripeSize: 1 << 20, StripeCount: 2}, {StripeSize: -1, StripeCount: 4}, {StripeSize: 1, StripeCount: 0}},
		OSTs:       []int64{1, 2, 3, 4, 5, 6},
	}}
	f := &writerBuffer{}
	w := NewWriter(f, WriterOptions{})
	w.WriteJob(Job{}, "app", nil)
	w.BeginModule(ModLustre)
	if err := w.WriteRecord(r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := &Record{Module: ModLustre, ID: 9, Rank: -1, Counters: []int64{1, 2}, Lustre: &Lustre{
		Components: r.Lustre.Components[:1], OSTs: []int64{1, 2},
	}}
	if diff := cmp.Diff(map[ModuleID][]*Record{ModLustre: {want}}, readAllRecords(t, f.open(t)), exactRecords); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func writerSampleLogs(t testing.TB) []string {
	logs, err := filepath.Glob(filepath.Join(fixture.Dir(t), "darshan-logs", "*", "*.darshan"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no sample logs: %v", err)
	}
	return logs
}

func TestConvertRoundTrip(t *testing.T) {
	for _, path := range writerSampleLogs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			want := readAllRecords(t, src)
			wantJob := src.Job
			if wantJob.Metadata != "" && !strings.HasSuffix(wantJob.Metadata, "\n") {
				wantJob.Metadata += "\n"
			}
			for _, comp := range writerCompressions {
				f := &writerBuffer{}
				if err := Convert(f, src, WriterOptions{Compression: comp}); err != nil {
					t.Fatalf("%v: %v", comp, err)
				}
				checkWrittenLayout(t, f.b, WriterOptions{Compression: comp})
				dst := f.open(t)
				for m, g := range src.Header.Modules[:NumKnownModules] {
					if (g.Len == 0) != (dst.Header.Modules[m] == Region{}) {
						t.Errorf("%v: module %s: region %+v after converting %+v", comp, ModuleID(m), dst.Header.Modules[m], g)
					}
				}
				if dst.Header.Version != CurrentVersion || dst.Header.Compression != comp {
					t.Errorf("%v: header version %s compression %v", comp, dst.Header.Version, dst.Header.Compression)
				}
				if dst.Header.Partial != src.Header.Partial {
					t.Errorf("%v: partial flags %#x, want %#x", comp, dst.Header.Partial, src.Header.Partial)
				}
				if diff := cmp.Diff(wantJob, dst.Job); diff != "" {
					t.Errorf("%v: job (-want +got):\n%s", comp, diff)
				}
				if dst.Exe != src.Exe {
					t.Errorf("%v: exe %q, want %q", comp, dst.Exe, src.Exe)
				}
				if diff := cmp.Diff(src.Mounts, dst.Mounts, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%v: mounts (-want +got):\n%s", comp, diff)
				}
				if diff := cmp.Diff(namesInOrder(src), namesInOrder(dst)); diff != "" {
					t.Errorf("%v: names (-want +got):\n%s", comp, diff)
				}
				diffRecordSets(t, comp.String(), want, readAllRecords(t, dst))
				for m := NumKnownModules; m < MaxModules; m++ {
					if dst.Header.Modules[m].Len != 0 {
						t.Errorf("%v: unknown module %d written", comp, m)
					}
				}
			}
		})
	}
}

// BenchmarkConvert converts the largest sample log to a zlib log in
// memory; throughput is in bytes of the source file.
func BenchmarkConvert(b *testing.B) {
	path := filepath.Join(fixture.Dir(b), "darshan-logs", "partial_data_dxt", "partial_data_dxt.darshan")
	src, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	f := &writerBuffer{}
	for b.Loop() {
		f.b = f.b[:0]
		if err := Convert(f, src, WriterOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConvertKeepsThreads converts a log whose DXT segments carry thread
// ids: the converted log keeps them, and the module versions that hold them.
func TestConvertKeepsThreads(t *testing.T) {
	recs, names := handBuiltRecords()
	src := writeHandBuilt(t, WriterOptions{DXTThreads: true}, recs, names, nil).open(t)
	f := &writerBuffer{}
	if err := Convert(f, src, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWrittenLayout(t, f.b, WriterOptions{DXTThreads: true})
	if diff := cmp.Diff(recs, readAllRecords(t, f.open(t)), exactRecords); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// TestDXTReleaseLayout checks byte for byte that a DXT record is written
// in the layout of the Darshan releases 3.2.0 to 3.5.0
// (docs/format/darshan-modules.md, §10): DXT_POSIX version 1, a 104-byte
// header, then the write and the read segments of 32 bytes each (offset,
// length, start, end), little-endian.
func TestDXTReleaseLayout(t *testing.T) {
	tr := &Trace{Hostname: "nid001", ThreadIDs: true,
		Writes: []Segment{{Offset: 4096, Length: 100, Start: 0.5, End: 0.75, ThreadID: 99}},
		Reads:  []Segment{{Offset: 0, Length: 7, Start: 1.25, End: 2, ThreadID: 98}}}
	recs := map[ModuleID][]*Record{ModDXTPOSIX: {{Module: ModDXTPOSIX, ID: 0x0102030405060708, Rank: 3, DXT: tr}}}
	f := writeHandBuilt(t, WriterOptions{Compression: CompressNone}, recs, map[uint64]string{0x0102030405060708: "/f"}, nil)
	l := f.open(t)
	if v := l.Header.ModuleVersions[ModDXTPOSIX]; v != 1 {
		t.Errorf("DXT_POSIX version %d, want 1", v)
	}
	g := l.Header.Modules[ModDXTPOSIX]
	got := f.b[g.Off : g.Off+g.Len]

	le := binary.LittleEndian
	want := make([]byte, 104, 104+2*32)
	le.PutUint64(want[0:], 0x0102030405060708)
	le.PutUint64(want[8:], 3)
	copy(want[24:], "nid001")
	le.PutUint64(want[88:], 1) // write_count
	le.PutUint64(want[96:], 1) // read_count
	for _, s := range []Segment{tr.Writes[0], tr.Reads[0]} {
		var seg [32]byte
		le.PutUint64(seg[0:], uint64(s.Offset))
		le.PutUint64(seg[8:], uint64(s.Length))
		le.PutUint64(seg[16:], math.Float64bits(s.Start))
		le.PutUint64(seg[24:], math.Float64bits(s.End))
		want = append(want, seg[:]...)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("DXT_POSIX region\n got % x\nwant % x", got, want)
	}
}
