package collector

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

// smallStore is a store with one block of every kind.
func smallStore() *testStore {
	t := newTestStore(4242)
	t.h.Flags = FlagDXT
	t.h.Partial = 1 << darshan.ModDXTPOSIX
	t.h.App, t.h.MPIFlavor = "myapp", "mpich"
	t.name("/data/out.dat")
	t.record(darshan.ModPOSIX, "/data/out.dat", cv{
		"POSIX_OPENS": 1, "POSIX_WRITES": 2, "POSIX_BYTES_WRITTEN": 8192, "POSIX_MMAPS": -1,
		"POSIX_F_OPEN_START_TIMESTAMP":  1e6,   // 1 ms
		"POSIX_F_WRITE_START_TIMESTAMP": 2e6,   // 2 ms
		"POSIX_F_WRITE_END_TIMESTAMP":   1.5e9, // 1.5 s
		"POSIX_F_WRITE_TIME":            25e7,  // 0.25 s
		"POSIX_F_MAX_WRITE_TIME":        125e6, // 0.125 s
	})
	t.dxt(4,
		tseg{"/data/out.dat", darshan.ModPOSIX, OpWrite, 0, 4096, 2e6, 3e6, 77},
		tseg{"/data/out.dat", darshan.ModPOSIX, OpWrite, 4096, 4096, 4e6, 5e6, 77},
		tseg{op: 0}, // not completed
	)
	t.heatmap(darshan.ModPOSIX, 1e8, map[int]int64{0: 4096, 3: 4096}, nil)
	return t
}

func TestReadStore(t *testing.T) {
	dir := t.TempDir()
	path := smallStore().write(t, dir, "p.store")
	s, err := ReadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Header
	if h.PID != 4242 || h.UID != 1000 || h.State != StateExited || h.Flags != FlagDXT ||
		h.MPIRank != -1 || h.JobID != -1 || h.Hostname != "node1" || h.App != "myapp" ||
		h.MPIFlavor != "mpich" || h.Cmdline != "./app -n 1" || h.Partial != 1<<10 || h.TickHz != 1e9 {
		t.Errorf("header %+v", h)
	}
	if s.Hz != 1e9 || s.Truncated {
		t.Errorf("Hz %v, Truncated %v", s.Hz, s.Truncated)
	}
	if want := time.Unix(testStartSec, testStartNsec); !s.Start().Equal(want) {
		t.Errorf("Start %v, want %v", s.Start(), want)
	}
	if want := time.Unix(testStartSec+2, testStartNsec); !s.End().Equal(want) {
		t.Errorf("End %v, want %v", s.End(), want)
	}
	id := darshan.RecordID("/data/out.dat")
	if diff := cmp.Diff(map[uint64]string{id: "/data/out.dat"}, s.Names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if len(s.Records) != 1 {
		t.Fatalf("%d records", len(s.Records))
	}
	r := s.Records[0]
	for name, want := range map[string]float64{
		"POSIX_OPENS": 1, "POSIX_WRITES": 2, "POSIX_BYTES_WRITTEN": 8192, "POSIX_MMAPS": -1, "POSIX_READS": 0,
		"POSIX_F_OPEN_START_TIMESTAMP": 0.001, "POSIX_F_WRITE_START_TIMESTAMP": 0.002,
		"POSIX_F_WRITE_END_TIMESTAMP": 1.5, "POSIX_F_WRITE_TIME": 0.25, "POSIX_F_MAX_WRITE_TIME": 0.125,
		"POSIX_F_READ_START_TIMESTAMP": 0,
	} {
		got, ok := r.Counter(name)
		if !ok {
			f, _ := r.FCounter(name)
			if f != want {
				t.Errorf("%s = %v, want %v", name, f, want)
			}
		} else if float64(got) != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if r.Module != darshan.ModPOSIX || r.ID != id || r.Rank != 0 || r.Events != 1 {
		t.Errorf("record %v %v %v", r.Module, r.ID, r.Rank)
	}
	wantSegs := []StoreSegment{
		{ID: id, Module: darshan.ModPOSIX, Op: OpWrite, Offset: 0, Length: 4096, Start: 0.002, End: 0.003, Thread: 77},
		{ID: id, Module: darshan.ModPOSIX, Op: OpWrite, Offset: 4096, Length: 4096, Start: 0.004, End: 0.005, Thread: 77},
	}
	if diff := cmp.Diff(wantSegs, s.Segments); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	if len(s.Heatmaps) != 1 {
		t.Fatalf("%d heatmaps", len(s.Heatmaps))
	}
	hm := s.Heatmaps[0]
	if hm.Module != darshan.ModPOSIX || hm.Width != 0.1 || len(hm.Write) != 200 || len(hm.Read) != 200 ||
		hm.Write[0] != 4096 || hm.Write[3] != 4096 || usedBins(hm.Write, hm.Read) != 4 {
		t.Errorf("heatmap %+v", hm)
	}
}

func TestReadStoreErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		data  func() []byte
		kind  error
		match string
	}{
		{"empty", func() []byte { return nil }, ErrNotStore, "bad magic"},
		{"magic", func() []byte {
			b := smallStore().bytes()
			b[3] = 'x'
			return b
		}, ErrNotStore, "bad magic"},
		{"short header", func() []byte { return smallStore().bytes()[:4000] }, ErrCorruptStore, "shorter than the 4096-byte header"},
		{"version", func() []byte { t := smallStore(); t.h.Version = 2; return t.bytes() }, ErrStoreVersion, "version 2"},
		{"header size", func() []byte { t := smallStore(); t.h.HeaderSize = 4000; return t.bytes() }, ErrCorruptStore, "header size 4000"},
		{"used below header", func() []byte { t := smallStore(); t.used = 8; return t.bytes() }, ErrCorruptStore, "8 bytes in use"},
		{"used unaligned", func() []byte { t := smallStore(); t.used = 4100; return t.bytes() }, ErrCorruptStore, "not a multiple of 8"},
		{"used beyond size", func() []byte { t := smallStore(); t.h.Size = 4096; t.used = 8192; return t.bytes() }, ErrCorruptStore, "8192 bytes in use in a file of 4096"},
		{"command line", func() []byte { t := smallStore(); t.cmdlineLen = 3073; return t.bytes() }, ErrCorruptStore, "command line of 3073 bytes"},
		{"block size", func() []byte {
			return newTestStore(1).raw([]byte{2, 0, 0, 0, 12, 0, 0, 0}).raw(make([]byte, 8)).bytes()
		}, ErrCorruptStore, "block at byte 4096: size 12"},
		{"block size zero", func() []byte { return newTestStore(1).raw([]byte{1, 0, 0, 0, 0, 0, 0, 0}).bytes() }, ErrCorruptStore, "size 0"},
		{"counter count", func() []byte {
			return newTestStore(1).rawRecord(darshan.ModPOSIX, 1, 0, make([]int64, 3), make([]float64, 17), 0).bytes()
		}, ErrCorruptStore, "POSIX record with 3 counters and 17 fcounters, the module has 69 and 17"},
		{"unknown module", func() []byte {
			return newTestStore(1).rawRecord(99, 1, 0, make([]int64, 3), nil, 0).bytes()
		}, ErrCorruptStore, "unknown module 99"},
		{"record too small", func() []byte {
			t := newTestStore(1).rawRecord(darshan.ModH5F, 1, 0, make([]int64, 3), make([]float64, 5), 0)
			binary.LittleEndian.PutUint32(t.blocks[12:], 1<<20) // ncounters
			return t.bytes()
		}, ErrCorruptStore, "H5F record with 1048576 counters"},
		{"name length", func() []byte {
			t := newTestStore(1).name("/a")
			binary.LittleEndian.PutUint32(t.blocks[16:], 100)
			return t.bytes()
		}, ErrCorruptStore, "name of 100 bytes in a 32-byte block"},
		{"dxt capacity", func() []byte {
			t := newTestStore(1).dxt(1)
			binary.LittleEndian.PutUint32(t.blocks[8:], 2)
			return t.bytes()
		}, ErrCorruptStore, "cannot hold 2 segments"},
		{"heatmap width", func() []byte { return newTestStore(1).heatmap(darshan.ModPOSIX, 0, nil, nil).bytes() }, ErrCorruptStore, "heatmap bin width 0"},
		{"heatmap NaN width", func() []byte { return newTestStore(1).heatmap(darshan.ModPOSIX, math.NaN(), nil, nil).bytes() }, ErrCorruptStore, "heatmap bin width NaN"},
		{"heatmap small", func() []byte { return newTestStore(1).block(blockHeatmap, 64).bytes() }, ErrCorruptStore, "heatmap block of 64 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".store")
			if err := os.WriteFile(path, c.data(), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := ReadStore(path)
			if err == nil {
				t.Fatalf("no error; store %+v", s)
			}
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.match) {
				t.Errorf("error %q: want %v, the path and %q", err, c.kind, c.match)
			}
		})
	}
	if _, err := ReadStore(filepath.Join(dir, "missing.store")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.store") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadStoreTruncated cuts a store at every multiple of 8 bytes: the
// result is an error (header incomplete) or a prefix of the blocks.
func TestReadStoreTruncated(t *testing.T) {
	ts := smallStore()
	ts.name("/data/in.dat")
	ts.record(darshan.ModSTDIO, "/data/in.dat", cv{"STDIO_READS": 3})
	full := ts.bytes()
	whole := ts.parse(t)
	used := int(whole.Header.Used)
	blockEnds := []int{}
	for off := storeHeaderSize; off < used; {
		off += int(binary.LittleEndian.Uint64(full[off:]) >> 32)
		blockEnds = append(blockEnds, off)
	}
	for n := 0; n <= len(full); n += 8 {
		s, err := parseStore("cut.store", full[:n])
		if n < storeHeaderSize {
			if err == nil {
				t.Fatalf("%d bytes: no error", n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		// The complete blocks are those ending at or before n.
		complete := 0
		for _, e := range blockEnds {
			if e <= n {
				complete++
			}
		}
		wantTrunc := n < used
		if s.Truncated != wantTrunc {
			t.Errorf("%d bytes: Truncated %v", n, s.Truncated)
		}
		got := len(s.NameIDs) + len(s.Records) + len(s.Heatmaps) + dxtBlocks(s)
		if got != complete {
			t.Errorf("%d bytes: %d blocks read, want %d", n, got, complete)
		}
		for i, r := range s.Records {
			if diff := cmp.Diff(whole.Records[i], r); diff != "" {
				t.Errorf("%d bytes: record %d differs:\n%s", n, i, diff)
			}
		}
	}
}

// dxtBlocks counts the DXT blocks of smallStore-like stores (one chunk
// with segments).
func dxtBlocks(s *Store) int {
	if len(s.Segments) > 0 {
		return 1
	}
	return 0
}

func TestReadStoreStopsAtZeroWord(t *testing.T) {
	ts := newTestStore(1).name("/a").raw(make([]byte, 8)).name("/b").block(77, 24)
	s := ts.parse(t)
	if len(s.NameIDs) != 1 || s.Names[darshan.RecordID("/a")] != "/a" || s.Truncated {
		t.Errorf("names %v, truncated %v", s.Names, s.Truncated)
	}
	// An unknown block type is skipped.
	s = newTestStore(1).block(77, 24).name("/b").parse(t)
	if len(s.NameIDs) != 1 || s.Names[darshan.RecordID("/b")] != "/b" {
		t.Errorf("names %v", s.Names)
	}
	// A block running past header.used is incomplete.
	ts = newTestStore(1).name("/a").name("/bb")
	ts.used = storeHeaderSize + 32 + 8
	s = ts.parse(t)
	if len(s.NameIDs) != 1 || !s.Truncated {
		t.Errorf("names %v, truncated %v", s.Names, s.Truncated)
	}
}

func TestTickRate(t *testing.T) {
	defer func(f func() float64) { cpuHz = f }(cpuHz)
	cpuHz = func() float64 { return 2.5e9 }
	base := StoreHeader{StartSec: 100, StartNsec: 900_000_000, Tick0: 5000}
	cases := []struct {
		name string
		set  func(h *StoreHeader)
		want float64
	}{
		// 3e9 ticks over 1.5 s.
		{"calibration", func(h *StoreHeader) {
			h.CalSec, h.CalNsec, h.CalTick, h.TickHz = 102, 400_000_000, 5000+3e9, 1e9
		}, 2e9},
		// 2.4e6 ticks over exactly 1 ms.
		{"1 ms", func(h *StoreHeader) {
			h.CalSec, h.CalNsec, h.CalTick = 100, 901_000_000, 5000+2.4e6
		}, 2.4e9},
		{"too close", func(h *StoreHeader) {
			h.CalSec, h.CalNsec, h.CalTick, h.TickHz = 100, 900_900_000, 5000+1e6, 3e9
		}, 3e9},
		{"tick before tick0", func(h *StoreHeader) {
			h.CalSec, h.CalNsec, h.CalTick, h.TickHz = 102, 0, 10, 3e9
		}, 3e9},
		{"cpuinfo", func(h *StoreHeader) {}, 2.5e9},
		{"negative tick_hz", func(h *StoreHeader) { h.TickHz = -1 }, 2.5e9},
	}
	for _, c := range cases {
		h := base
		c.set(&h)
		if got := tickRate(&h); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	cpuHz = func() float64 { return 0 }
	if got := tickRate(&base); got != 1e9 {
		t.Errorf("no rate at all: %v, want 1e9", got)
	}

	// Conversion of a store with a calibrated rate of 2e9 ticks/s.
	ts := newTestStore(1)
	ts.h.CalTick, ts.h.TickHz = testTick0+4e9, 0
	ts.record(darshan.ModPOSIX, "/f", cv{"POSIX_READS": 1, "POSIX_F_READ_END_TIMESTAMP": 3e9, "POSIX_F_READ_TIME": 1e9})
	ts.dxt(1, tseg{"/f", darshan.ModPOSIX, OpRead, 0, 1, 2e9, 3e9, 1})
	ts.heatmap(darshan.ModPOSIX, 2e8, map[int]int64{1: 1}, nil)
	s := ts.parse(t)
	r := s.Records[0]
	if end, _ := r.FCounter("POSIX_F_READ_END_TIMESTAMP"); end != 1.5 {
		t.Errorf("end stamp %v, want 1.5", end)
	}
	if d, _ := r.FCounter("POSIX_F_READ_TIME"); d != 0.5 {
		t.Errorf("read time %v, want 0.5", d)
	}
	if g := s.Segments[0]; g.Start != 1 || g.End != 1.5 {
		t.Errorf("segment %+v", g)
	}
	if w := s.Heatmaps[0].Width; w != 0.1 {
		t.Errorf("heatmap width %v, want 0.1", w)
	}
}

func TestCPUInfoHz(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	text := "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu MHz\t\t: 2894.561\n\nprocessor\t: 1\ncpu MHz\t\t: 1200.000\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cpuinfoHz(path); got != 2894.561*1e6 {
		t.Errorf("got %v", got)
	}
	if got := cpuinfoHz(filepath.Join(t.TempDir(), "none")); got != 0 {
		t.Errorf("missing file: %v", got)
	}
}

func TestStoreEnd(t *testing.T) {
	// A crashed process: no end time; the calibration pair is at 2 s, the
	// latest record time stamp at 3 s.
	ts := newTestStore(1)
	ts.h.State, ts.h.EndSec, ts.h.EndNsec = StateRunning, 0, 0
	ts.record(darshan.ModPOSIX, "/f", cv{"POSIX_WRITES": 1, "POSIX_F_WRITE_END_TIMESTAMP": 3e9})
	s := ts.parse(t)
	if want := time.Unix(testStartSec+3, testStartNsec); !s.End().Equal(want) {
		t.Errorf("End %v, want %v", s.End(), want)
	}
	// A segment ending later, then a heatmap bin starting later still.
	ts.dxt(1, tseg{"/f", darshan.ModPOSIX, OpWrite, 0, 1, 3e9, 3.25e9, 1})
	if s := ts.parse(t); !s.End().Equal(time.Unix(testStartSec+3, testStartNsec+250e6)) {
		t.Errorf("End with segment %v", s.End())
	}
	ts.heatmap(darshan.ModPOSIX, 1e8, map[int]int64{40: 1}, nil) // bin 40 starts at 4 s
	if s := ts.parse(t); !s.End().Equal(time.Unix(testStartSec+4, testStartNsec)) {
		t.Errorf("End with heatmap %v", s.End())
	}
	// The calibration pair when it is the latest.
	ts = newTestStore(1)
	ts.h.EndSec, ts.h.EndNsec = 0, 0
	if s := ts.parse(t); !s.End().Equal(time.Unix(testStartSec+2, testStartNsec)) {
		t.Errorf("End from calibration %v", s.End())
	}
	// Nothing at all: the start.
	ts.h.CalSec, ts.h.CalNsec = 0, 0
	if s := ts.parse(t); !s.End().Equal(s.Start()) {
		t.Errorf("End without data %v", s.End())
	}
}
