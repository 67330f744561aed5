package collector

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/iolens/iolens/darshan"
)

// memFile is an in-memory io.WriterAt.
type memFile struct{ b []byte }

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

// logContent is what a written log holds.
type logContent struct {
	log   *darshan.Log
	names map[uint64]string
	order []string // names in name-table order
	recs  map[darshan.ModuleID][]*darshan.Record
}

func readBack(t *testing.T, l *darshan.Log) *logContent {
	t.Helper()
	c := &logContent{log: l, names: make(map[uint64]string), recs: make(map[darshan.ModuleID][]*darshan.Record)}
	for id, n := range l.Names() {
		c.names[id] = n
		c.order = append(c.order, n)
	}
	for m := range darshan.ModuleID(darshan.NumKnownModules) {
		err := l.Each(m, func(r *darshan.Record) error {
			c.recs[m] = append(c.recs[m], r.Clone())
			return nil
		})
		if err != nil {
			t.Fatalf("reading module %s: %v", m, err)
		}
	}
	return c
}

// writeGroup writes g to memory and reads the log back.
func writeGroup(t *testing.T, g Group, opts LogOptions) *logContent {
	t.Helper()
	var f memFile
	if err := WriteLog(&f, g, opts); err != nil {
		t.Fatal(err)
	}
	l, err := darshan.Open(bytes.NewReader(f.b), int64(len(f.b)), "merged.darshan")
	if err != nil {
		t.Fatal(err)
	}
	return readBack(t, l)
}

var exact = []cmp.Option{
	cmpopts.EquateEmpty(),
	cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }),
}

func sameRecords(t *testing.T, what string, got, want []*darshan.Record) {
	t.Helper()
	if diff := cmp.Diff(want, got, exact...); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func storesOf(tb testing.TB, ts ...*testStore) []*Store {
	var out []*Store
	for i, x := range ts {
		s, err := parseStore(filepath.Join("stores", string(rune('a'+i))+".store"), x.bytes())
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestGroups(t *testing.T) {
	io1 := func(x *testStore) *testStore { return x.record(darshan.ModPOSIX, "/f", cv{"POSIX_OPENS": 1}) }
	stores := storesOf(t,
		io1(newTestStore(10).mpi(7, 1, 2)),                    // 0: job 7 rank 1
		io1(newTestStore(11).mpi(7, 0, 2).at(1e9)),            // 1: job 7 rank 0
		newTestStore(12).mpi(9, 0, 1).at(-1e9),                // 2: job 9, earlier, no I/O
		io1(newTestStore(300).at(1e9)),                        // 3: non-MPI, later
		io1(newTestStore(200)),                                // 4
		io1(newTestStore(100)),                                // 5: same start, lower pid
		newTestStore(50).record(darshan.ModPOSIX, "/z", cv{}), // 6: no I/O
		newTestStore(60),                                      // 7: no records
		newTestStore(70).withEvents(0).record(darshan.ModSTDIO, "<STDOUT>", cv{"STDIO_OPENS": 1}).
			record(darshan.ModPOSIX, "/dev/pts/0", cv{"POSIX_MEM_ALIGNMENT": 8}), // 8: nothing updated
	)
	got := Groups(stores)
	want := []Group{
		{MPI: true, Stores: []*Store{stores[2]}},
		{MPI: true, Stores: []*Store{stores[1], stores[0]}},
		{Stores: []*Store{stores[5], stores[4], stores[3]}},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b *Store) bool { return a == b })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if g := Groups(stores[6:]); len(g) != 0 {
		t.Errorf("stores without I/O: %d groups", len(g))
	}
}

// mpiJob returns the stores of a two-rank MPI job with known content:
// rank 1 starts at the test start time, rank 0 a quarter second later.
func mpiJob() (r0, r1 *testStore) {
	const q = 125e6 // 0.125 s in ticks
	r0 = newTestStore(100).mpi(0xabc, 0, 2).at(250e6)
	r0.h.JobID, r0.h.Hostname = 1234, "node1"
	r0.name("/data/shared.dat").name("/data/r0.dat").name("<STDOUT>").name("<STDERR>").name("/data/zero.dat")
	r0.record(darshan.ModPOSIX, "/data/shared.dat", cv{"POSIX_OPENS": 1, "POSIX_WRITES": 1, "POSIX_BYTES_WRITTEN": 1000,
		"POSIX_MODE": 420, "POSIX_F_OPEN_START_TIMESTAMP": 8 * q, "POSIX_F_WRITE_END_TIMESTAMP": 12 * q, "POSIX_F_WRITE_TIME": 4 * q})
	r0.record(darshan.ModPOSIX, "/data/r0.dat", cv{"POSIX_OPENS": 1, "POSIX_READS": 2, "POSIX_BYTES_READ": 10,
		"POSIX_F_READ_START_TIMESTAMP": 2 * q, "POSIX_F_READ_TIME": q})
	r0.record(darshan.ModPOSIX, "/data/zero.dat", cv{})
	// The standard streams are created without an update (events 0).
	r0.withEvents(0).record(darshan.ModSTDIO, "<STDOUT>", cv{"STDIO_OPENS": 1})
	r0.withEvents(1).record(darshan.ModSTDIO, "<STDERR>", cv{"STDIO_OPENS": 1, "STDIO_WRITES": 2, "STDIO_BYTES_WRITTEN": 20})
	// A record only created (an inherited descriptor never used) is left out.
	r0.name("/data/inherited").withEvents(0).record(darshan.ModPOSIX, "/data/inherited", cv{"POSIX_MEM_ALIGNMENT": 8})
	r0.withEvents(1)
	r0.dxt(8,
		tseg{"/data/r0.dat", darshan.ModPOSIX, OpRead, 0, 5, 2 * q, 3 * q, 7},
		tseg{"/data/shared.dat", darshan.ModPOSIX, OpWrite, 0, 1000, 8 * q, 12 * q, 7},
		tseg{"/data/r0.dat", darshan.ModPOSIX, OpRead, 5, 5, 4 * q, 5 * q, 8},
	)
	r0.heatmap(darshan.ModPOSIX, 1e8, map[int]int64{12: 1000}, map[int]int64{2: 10})
	r0.heatmap(darshan.ModSTDIO, 1e8, nil, nil)

	r1 = newTestStore(101).mpi(0xabc, 1, 2)
	r1.h.UID, r1.h.Hostname, r1.h.Cmdline = 1001, "node2", "./other"
	r1.h.Partial = 1 << darshan.ModPOSIX
	r1.name("/data/shared.dat").name("/data/r1.dat").name("<STDOUT>").name("<STDERR>")
	r1.record(darshan.ModPOSIX, "/data/shared.dat", cv{"POSIX_OPENS": 1, "POSIX_WRITES": 1, "POSIX_BYTES_WRITTEN": 3000,
		"POSIX_MODE": 384, "POSIX_F_OPEN_START_TIMESTAMP": 4 * q, "POSIX_F_WRITE_END_TIMESTAMP": 8 * q, "POSIX_F_WRITE_TIME": 2 * q})
	r1.record(darshan.ModPOSIX, "/data/r1.dat", cv{"POSIX_OPENS": 1, "POSIX_F_OPEN_START_TIMESTAMP": q})
	r1.withEvents(0).record(darshan.ModSTDIO, "<STDOUT>", cv{"STDIO_OPENS": 1})
	r1.record(darshan.ModSTDIO, "<STDERR>", cv{"STDIO_OPENS": 1}).withEvents(1)
	r1.mpi(0xabc, 1, 2).heatmap(darshan.ModPOSIX, 1e8, map[int]int64{7: 3000}, nil)
	return r0, r1
}

var testMounts = []darshan.Mount{
	{Path: "/", FSType: "ext4"},
	{Path: "/proc", FSType: "proc"},
	{Path: "/home", FSType: "nfs"},
	{Path: "/scratch", FSType: "lustre"},
	{Path: "/", FSType: "ext4"},
	{Path: "/tmp", FSType: "tmpfs"},
	{Path: "/data dir", FSType: "xfs"},
}

func TestWriteLogMPI(t *testing.T) {
	r0, r1 := mpiJob()
	stores := storesOf(t, r1, r0)
	groups := Groups(stores)
	if len(groups) != 1 || !groups[0].MPI {
		t.Fatalf("groups %+v", groups)
	}
	c := writeGroup(t, groups[0], LogOptions{Version: "1.2.3", Mounts: testMounts, DXTThreads: true})
	if v := c.log.Header.ModuleVersions; v[darshan.ModDXTPOSIX] != 2 {
		t.Errorf("DXT_POSIX version %d with thread ids, want 2", v[darshan.ModDXTPOSIX])
	}
	l := c.log

	wantJob := darshan.Job{UID: 1000, StartTime: testStartSec, StartNsec: testStartNsec,
		EndTime: testStartSec + 2, EndNsec: testStartNsec + 250e6, NProcs: 2, JobID: 1234,
		Metadata: "lib_ver=iolens-1.2.3\nhostnames=node1,node2\n"}
	if diff := cmp.Diff(wantJob, l.Job); diff != "" {
		t.Errorf("job (-want +got):\n%s", diff)
	}
	if l.Exe != "./app -n 1" {
		t.Errorf("exe %q", l.Exe)
	}
	wantMounts := []darshan.Mount{{Path: "/scratch", FSType: "lustre"}, {Path: "/home", FSType: "nfs"}, {Path: "/", FSType: "ext4"}}
	if diff := cmp.Diff(wantMounts, l.Mounts); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
	if l.Header.Partial != 1<<darshan.ModPOSIX {
		t.Errorf("partial flags %#x", l.Header.Partial)
	}
	if diff := cmp.Diff([]string{"/data/shared.dat", "/data/r0.dat", "<STDERR>", "/data/r1.dat", "heatmap:POSIX"}, c.order); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	shared, f0, f1 := darshan.RecordID("/data/shared.dat"), darshan.RecordID("/data/r0.dat"), darshan.RecordID("/data/r1.dat")
	// Rank 0 started 0.25 s after the job: its time stamps move by 0.25 s.
	sameRecords(t, "POSIX", c.recs[darshan.ModPOSIX], []*darshan.Record{
		mkRecord(darshan.ModPOSIX, f0, 0, cv{"POSIX_OPENS": 1, "POSIX_READS": 2, "POSIX_BYTES_READ": 10,
			"POSIX_F_READ_START_TIMESTAMP": 0.5, "POSIX_F_READ_TIME": 0.125}),
		mkRecord(darshan.ModPOSIX, shared, -1, cv{"POSIX_OPENS": 2, "POSIX_WRITES": 2, "POSIX_BYTES_WRITTEN": 4000,
			"POSIX_MODE": 384, "POSIX_F_OPEN_START_TIMESTAMP": 0.5, "POSIX_F_WRITE_END_TIMESTAMP": 1.75, "POSIX_F_WRITE_TIME": 0.75,
			"POSIX_FASTEST_RANK": 1, "POSIX_FASTEST_RANK_BYTES": 3000, "POSIX_F_FASTEST_RANK_TIME": 0.25,
			"POSIX_SLOWEST_RANK": 0, "POSIX_SLOWEST_RANK_BYTES": 1000, "POSIX_F_SLOWEST_RANK_TIME": 0.5,
			"POSIX_F_VARIANCE_RANK_TIME": 0.015625, "POSIX_F_VARIANCE_RANK_BYTES": 1e6}),
		mkRecord(darshan.ModPOSIX, f1, 1, cv{"POSIX_OPENS": 1, "POSIX_F_OPEN_START_TIMESTAMP": 0.125}),
	})
	// The standard streams of every rank are shared; <STDOUT> is then
	// dropped: no reads or writes.
	sameRecords(t, "STDIO", c.recs[darshan.ModSTDIO], []*darshan.Record{
		mkRecord(darshan.ModSTDIO, darshan.RecordID("<STDERR>"), -1, cv{"STDIO_OPENS": 2, "STDIO_WRITES": 2, "STDIO_BYTES_WRITTEN": 20,
			"STDIO_FASTEST_RANK": 0, "STDIO_FASTEST_RANK_BYTES": 20, "STDIO_SLOWEST_RANK": 0, "STDIO_SLOWEST_RANK_BYTES": 20,
			"STDIO_F_VARIANCE_RANK_BYTES": 100}),
	})
	sameRecords(t, "DXT_POSIX", c.recs[darshan.ModDXTPOSIX], []*darshan.Record{
		{Module: darshan.ModDXTPOSIX, ID: f0, Rank: 0, DXT: &darshan.Trace{Hostname: "node1", ThreadIDs: true,
			Reads: []darshan.Segment{{Offset: 0, Length: 5, Start: 0.5, End: 0.625, ThreadID: 7}, {Offset: 5, Length: 5, Start: 0.75, End: 0.875, ThreadID: 8}}}},
		{Module: darshan.ModDXTPOSIX, ID: shared, Rank: 0, DXT: &darshan.Trace{Hostname: "node1", ThreadIDs: true,
			Writes: []darshan.Segment{{Offset: 0, Length: 1000, Start: 1.25, End: 1.75, ThreadID: 7}}}},
	})
	if len(c.recs[darshan.ModDXTMPIIO]) != 0 {
		t.Errorf("DXT_MPIIO records: %d", len(c.recs[darshan.ModDXTMPIIO]))
	}
	// Both ranks ran 2 s: 0.1-s bins, 20 of them; the empty STDIO heatmap is
	// dropped.
	w0, r0b, w1 := make([]int64, 20), make([]int64, 20), make([]int64, 20)
	w0[12], r0b[2], w1[7] = 1000, 10, 3000
	hid := darshan.RecordID("heatmap:POSIX")
	sameRecords(t, "HEATMAP", c.recs[darshan.ModHeatmap], []*darshan.Record{
		{Module: darshan.ModHeatmap, ID: hid, Rank: 0, FCounters: []float64{0.1}, Heatmap: &darshan.Heatmap{BinWidth: 0.1, Write: w0, Read: r0b}},
		{Module: darshan.ModHeatmap, ID: hid, Rank: 1, FCounters: []float64{0.1}, Heatmap: &darshan.Heatmap{BinWidth: 0.1, Write: w1, Read: make([]int64, 20)}},
	})
	for m, recs := range c.recs {
		switch m {
		case darshan.ModPOSIX, darshan.ModSTDIO, darshan.ModDXTPOSIX, darshan.ModHeatmap:
		default:
			t.Errorf("unexpected module %s with %d records", m, len(recs))
		}
	}
}

func TestWriteLogNonMPI(t *testing.T) {
	later := newTestStore(300).at(1e9)
	later.h.Hostname = "hostB"
	later.name("/a").record(darshan.ModPOSIX, "/a", cv{"POSIX_OPENS": 1, "POSIX_F_OPEN_START_TIMESTAMP": 5e8})
	later.heatmap(darshan.ModSTDIO, 1e8, map[int]int64{0: 1}, nil)
	first := newTestStore(200)
	first.h.Cmdline = "./first\narg"
	first.name("/a").record(darshan.ModPOSIX, "/a", cv{"POSIX_OPENS": 1, "POSIX_F_OPEN_START_TIMESTAMP": 2.5e8})
	first.dxt(1, tseg{"/a", darshan.ModMPIIO, OpWrite, -1, 8, 2.5e8, 5e8, 1})
	idle := newTestStore(100).record(darshan.ModPOSIX, "/z", cv{})
	groups := Groups(storesOf(t, later, first, idle))
	if len(groups) != 1 || groups[0].MPI || len(groups[0].Stores) != 2 {
		t.Fatalf("groups %+v", groups)
	}
	c := writeGroup(t, groups[0], LogOptions{Mounts: []darshan.Mount{}})
	// By default, the module versions of Darshan 3.5.0: no thread ids.
	if v := c.log.Header.ModuleVersions; v[darshan.ModPOSIX] != 4 || v[darshan.ModDXTMPIIO] != 2 || v[darshan.ModHeatmap] != 1 {
		t.Errorf("module versions POSIX %d, DXT_MPIIO %d, HEATMAP %d; want 4, 2, 1", v[darshan.ModPOSIX], v[darshan.ModDXTMPIIO], v[darshan.ModHeatmap])
	}
	wantJob := darshan.Job{UID: 1000, StartTime: testStartSec, StartNsec: testStartNsec,
		EndTime: testStartSec + 3, EndNsec: testStartNsec, NProcs: 2, JobID: 200,
		Metadata: "lib_ver=iolens-dev\nhostnames=node1,hostB\n"}
	if diff := cmp.Diff(wantJob, c.log.Job); diff != "" {
		t.Errorf("job (-want +got):\n%s", diff)
	}
	if c.log.Exe != "./first arg" || len(c.log.Mounts) != 0 {
		t.Errorf("exe %q, mounts %v", c.log.Exe, c.log.Mounts)
	}
	id := darshan.RecordID("/a")
	sameRecords(t, "POSIX", c.recs[darshan.ModPOSIX], []*darshan.Record{
		mkRecord(darshan.ModPOSIX, id, 0, cv{"POSIX_OPENS": 1, "POSIX_F_OPEN_START_TIMESTAMP": 0.25}),
		mkRecord(darshan.ModPOSIX, id, 1, cv{"POSIX_OPENS": 1, "POSIX_F_OPEN_START_TIMESTAMP": 1.5}),
	})
	sameRecords(t, "DXT_MPIIO", c.recs[darshan.ModDXTMPIIO], []*darshan.Record{
		{Module: darshan.ModDXTMPIIO, ID: id, Rank: 0, DXT: &darshan.Trace{Hostname: "node1",
			Writes: []darshan.Segment{{Offset: -1, Length: 8, Start: 0.25, End: 0.5}}}},
	})
	// Each process uses its own run time for its heatmaps: 2 s → 20 bins.
	hm := c.recs[darshan.ModHeatmap]
	if len(hm) != 1 || hm[0].Rank != 1 || hm[0].ID != darshan.RecordID("heatmap:STDIO") || len(hm[0].Heatmap.Write) != 20 || hm[0].Heatmap.Write[0] != 1 {
		t.Errorf("heatmaps %+v", hm)
	}
	if diff := cmp.Diff([]string{"/a", "heatmap:STDIO"}, c.order); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestWriteLogIncompleteJob(t *testing.T) {
	mk := func(pid, rank int64) *testStore {
		x := newTestStore(pid).mpi(5, rank, 3)
		x.h.JobID = 77
		return x.name("/s").record(darshan.ModPOSIX, "/s", cv{"POSIX_OPENS": 1})
	}
	// Rank 1 crashed before writing anything: the ranks present keep their
	// records, nprocs is the job size.
	stores := storesOf(t, mk(10, 2), mk(11, 0))
	c := writeGroup(t, Groups(stores)[0], LogOptions{Mounts: []darshan.Mount{}})
	if c.log.Job.NProcs != 3 || c.log.Job.JobID != 77 {
		t.Errorf("job %+v", c.log.Job)
	}
	if diff := cmp.Diff([][2]int64{{int64(darshan.RecordID("/s")), 0}, {int64(darshan.RecordID("/s")), 2}}, idRanks(c.recs[darshan.ModPOSIX])); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}

	bad := []struct {
		stores []*Store
		match  string
	}{
		{storesOf(t, mk(10, 1), mk(11, 1)), "are both rank 1"},
		{storesOf(t, mk(10, 0), newTestStore(11).mpi(5, 1, 4)), "has MPI size 4"},
		{storesOf(t, mk(10, 0), newTestStore(11).mpi(5, 3, 3)), "has MPI rank 3 of 3"},
	}
	for _, b := range bad {
		err := WriteLog(&memFile{}, Group{MPI: true, Stores: b.stores}, LogOptions{})
		if err == nil || !strings.Contains(err.Error(), b.match) || !strings.Contains(err.Error(), "MPI job 0x5") {
			t.Errorf("error %v, want %q", err, b.match)
		}
	}
	if err := WriteLog(&memFile{}, Group{}, LogOptions{}); err == nil {
		t.Error("empty group accepted")
	}
}

func TestMetadataAndMounts(t *testing.T) {
	var procs []*mergeProc
	for i := range 300 {
		x := newTestStore(int64(i))
		x.h.Hostname = "host" + strings.Repeat("x", 10) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		procs = append(procs, &mergeProc{s: storesOf(t, x)[0]})
	}
	meta := jobMetadata("v\n1", "", procs)
	if len(meta) > metadataMax || !strings.HasPrefix(meta, "lib_ver=iolens-v1\nhostnames=hostxxxxxxxxxxaa,hostxxxxxxxxxxba,") ||
		!strings.HasSuffix(meta, ",...\n") {
		t.Errorf("metadata of %d bytes: %q", len(meta), meta)
	}
	path := filepath.Join(t.TempDir(), "mounts")
	text := "sysfs /sys sysfs rw 0 0\n/dev/sda1 / ext4 rw 0 0\nsrv:/home /home nfs rw 0 0\nbad\n/dev/sdb /data\\040x xfs rw 0 0\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := mountTable(readMounts(path))
	want := []darshan.Mount{{Path: "/", FSType: "ext4"}, {Path: `/data\040x`, FSType: "xfs"}, {Path: "/home", FSType: "nfs"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
	var many []darshan.Mount
	for i := range 100 {
		many = append(many, darshan.Mount{Path: "/m" + strings.Repeat("x", i), FSType: "ext4"})
	}
	if n := len(mountTable(many)); n != maxMounts {
		t.Errorf("%d mounts kept", n)
	}
	if readMounts(filepath.Join(t.TempDir(), "none")) != nil {
		t.Error("mounts from a missing file")
	}
}

func TestMergedName(t *testing.T) {
	for _, c := range []struct {
		out  string
		n    int
		want string
	}{
		{"app.darshan", 1, "app.darshan"},
		{"app.darshan", 2, "app-2.darshan"},
		{"/x/app.darshan", 3, "/x/app-3.darshan"},
		{"log", 2, "log-2"},
		{"/x/.darshan", 2, "/x/.darshan-2"},
	} {
		if got := mergedName(c.out, c.n); got != c.want {
			t.Errorf("mergedName(%q, %d) = %q, want %q", c.out, c.n, got, c.want)
		}
	}
}

func TestMergeDirs(t *testing.T) {
	dir1, dir2, outDir := t.TempDir(), t.TempDir(), t.TempDir()
	r0, r1 := mpiJob()
	r0.write(t, dir1, "r0.store")
	r1.write(t, dir1, "r1.store")
	newTestStore(500).record(darshan.ModPOSIX, "/p", cv{"POSIX_OPENS": 1}).write(t, dir1, "p500.store")
	newTestStore(600).at(1e9).record(darshan.ModPOSIX, "/p", cv{"POSIX_OPENS": 1}).write(t, dir2, "p600.store")
	bad := filepath.Join(dir1, "bad.store")
	if err := os.WriteFile(bad, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir1, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir2, "sub.store"), 0o755); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(outDir, "app.darshan")
	var steps [][2]int64
	paths, err := MergeDirs([]string{dir1, dir2}, out, LogOptions{Version: "t", Mounts: testMounts, Compression: darshan.CompressBzip2,
		Progress: func(done, total int64) { steps = append(steps, [2]int64{done, total}) }})
	// Five stores read (the bad one too), then the MPI job's two merged,
	// then the two non-MPI processes'.
	if diff := cmp.Diff([][2]int64{{1, 10}, {2, 10}, {3, 10}, {4, 10}, {5, 10}, {7, 10}, {9, 10}, {10, 10}}, steps); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if err == nil || !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), bad) {
		t.Errorf("error %v, want one naming %s", err, bad)
	}
	want := []string{out, filepath.Join(outDir, "app-2.darshan")}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Fatalf("paths (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(outDir)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", e.Name(), info.Mode())
		}
	}
	if diff := cmp.Diff([]string{"app-2.darshan", "app.darshan"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for i, p := range paths {
		l, err := darshan.OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := readBack(t, l)
		l.Close()
		if l.Header.Compression != darshan.CompressBzip2 || l.Job.NProcs != 2 {
			t.Errorf("%s: compression %v, nprocs %d", p, l.Header.Compression, l.Job.NProcs)
		}
		switch i {
		case 0:
			// The MPI job: the log of TestWriteLogMPI.
			r0, r1 := mpiJob()
			want := writeGroup(t, Groups(storesOf(t, r0, r1))[0], LogOptions{Version: "t", Mounts: testMounts})
			if diff := cmp.Diff(want.recs, c.recs, exact...); diff != "" {
				t.Errorf("MPI log records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.order, c.order); diff != "" {
				t.Errorf("MPI log names (-want +got):\n%s", diff)
			}
			if want.log.Job != l.Job || want.log.Exe != l.Exe || !slices.Equal(want.log.Mounts, l.Mounts) {
				t.Errorf("MPI log job %+v, want %+v", l.Job, want.log.Job)
			}
		case 1:
			// The two non-MPI processes of both directories.
			if diff := cmp.Diff([][2]int64{{int64(darshan.RecordID("/p")), 0}, {int64(darshan.RecordID("/p")), 1}}, idRanks(c.recs[darshan.ModPOSIX])); diff != "" {
				t.Errorf("non-MPI log (-want +got):\n%s", diff)
			}
			if l.Job.JobID != 500 {
				t.Errorf("non-MPI job id %d", l.Job.JobID)
			}
		}
	}

	// Nothing to merge.
	empty := t.TempDir()
	paths, err = MergeDirs([]string{empty}, filepath.Join(empty, "x.darshan"), LogOptions{})
	if !errors.Is(err, ErrNoData) || len(paths) != 0 {
		t.Errorf("empty directory: %v, %v", paths, err)
	}
	paths, err = MergeDirs([]string{filepath.Join(empty, "missing")}, filepath.Join(empty, "x.darshan"), LogOptions{})
	if err == nil || !strings.Contains(err.Error(), "missing") || len(paths) != 0 {
		t.Errorf("missing directory: %v, %v", paths, err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}

	// A log that cannot be written leaves no file, and the others are
	// still written.
	dup := t.TempDir()
	newTestStore(1).mpi(3, 0, 2).write(t, dup, "a.store")
	newTestStore(2).mpi(3, 0, 2).write(t, dup, "b.store")
	newTestStore(3).at(1e9).record(darshan.ModPOSIX, "/p", cv{"POSIX_OPENS": 1}).write(t, dup, "c.store")
	outDir = t.TempDir()
	paths, err = MergeDirs([]string{dup}, filepath.Join(outDir, "j.darshan"), LogOptions{Mounts: []darshan.Mount{}})
	if err == nil || !strings.Contains(err.Error(), "both rank 0") || !strings.Contains(err.Error(), filepath.Join(outDir, "j.darshan")) {
		t.Errorf("duplicate rank: %v", err)
	}
	if diff := cmp.Diff([]string{filepath.Join(outDir, "j-2.darshan")}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	entries, _ = os.ReadDir(outDir)
	if len(entries) != 1 || entries[0].Name() != "j-2.darshan" {
		t.Errorf("files: %v", entries)
	}

	// An output directory that does not exist.
	paths, err = MergeDirs([]string{dir2}, filepath.Join(outDir, "no", "x.darshan"), LogOptions{})
	if err == nil || len(paths) != 0 {
		t.Errorf("missing output directory: %v, %v", paths, err)
	}
}

func TestReadStores(t *testing.T) {
	dir := t.TempDir()
	newTestStore(1).write(t, dir, "b.store")
	newTestStore(2).write(t, dir, "a.store")
	if err := os.WriteFile(filepath.Join(dir, "c.store"), smallStore().bytes()[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	stores, err := ReadStores(dir)
	if len(stores) != 2 || stores[0].Header.PID != 2 || stores[1].Header.PID != 1 {
		t.Errorf("stores %v", stores)
	}
	if !errors.Is(err, ErrCorruptStore) || !strings.Contains(err.Error(), "c.store") {
		t.Errorf("error %v", err)
	}
}

// TestMutatedStores reads and merges stores with random byte changes,
// insertions and deletions: no panic, and every error names the file.
func TestMutatedStores(t *testing.T) {
	r0, _ := mpiJob()
	seeds := [][]byte{smallStore().bytes(), r0.bytes()}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 1500 {
		b := slices.Clone(seeds[i%len(seeds)])
		for range 1 + rng.IntN(6) {
			at := storeHeaderSize/2 + rng.IntN(len(b)-storeHeaderSize/2)
			switch rng.IntN(4) {
			case 0:
				b = slices.Insert(b, at, byte(rng.IntN(256)))
			case 1:
				b = slices.Delete(b, at, at+1)
			default:
				b[at] = byte(rng.IntN(256))
			}
		}
		checkStoreInput(t, b)
	}
}

// checkStoreInput parses data as a store and merges it if it is one.
func checkStoreInput(t *testing.T, data []byte) {
	t.Helper()
	s, err := parseStore("fuzz.store", data)
	if err != nil {
		if !strings.Contains(err.Error(), "fuzz.store") {
			t.Fatalf("error without the file name: %v", err)
		}
		return
	}
	for _, g := range Groups([]*Store{s}) {
		var out memFile
		if err := WriteLog(&out, g, LogOptions{Mounts: []darshan.Mount{}}); err != nil {
			continue
		}
		l, err := darshan.Open(bytes.NewReader(out.b), int64(len(out.b)), "fuzz.darshan")
		if err != nil {
			t.Fatalf("merged log does not read back: %v", err)
		}
		for m := range darshan.ModuleID(darshan.NumKnownModules) {
			if err := l.Each(m, func(*darshan.Record) error { return nil }); err != nil {
				t.Fatalf("merged log, module %s: %v", m, err)
			}
		}
	}
}

// FuzzReadStore checks that no input makes the reader or the merge panic,
// and that stores read are merged into logs that read back.
func FuzzReadStore(f *testing.F) {
	r0, r1 := mpiJob()
	for _, x := range []*testStore{smallStore(), r0, r1, newTestStore(1), funcStore(1)} {
		b := x.bytes()
		f.Add(b)
		f.Add(b[:len(b)-len(b)/3])
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkStoreInput(t, data) })
}
