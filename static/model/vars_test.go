package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/iosem"
	"github.com/iolens/iolens/static/sysprof"
)

func TestVariablesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for i, v := range Variables() {
		if v.Name == "" || v.Desc == "" || v.Formula == "" || seen[v.Name] {
			t.Errorf("X%d: %+v", i+1, v)
		}
		seen[v.Name] = true
		if Index(v.Name) != i {
			t.Errorf("Index(%q) = %d, want %d", v.Name, Index(v.Name), i)
		}
	}
	if Index("nope") != -1 {
		t.Error("Index of an unknown name")
	}
}

func TestNormalizeValues(t *testing.T) {
	p := features.Params{
		LoopIO: 999, Calls: 8, Bytes: 1e12, Sync: 8, Conditional: 2, Binary: 6, Flushes: 2,
		FileSize: 0, Files: 3e6, Space: 1e12, Stack: 1e8, Random: 20, Small: 4, Work: 1e6,
	}
	sys := refSystem()
	x := Normalize(p, sys)
	want := X{
		math.Log10(1000) / math.Log10(1+1e9), // X1
		math.Log10(9) / math.Log10(1+1e9),    // X2
		1,                                    // X3: 1e12 is the reference
		1, 0.25, 0.75,                        // X4–X6: shares of 8 calls
		0.2,     // X7: 2 flushes among 10
		0,       // X8
		1, 1, 1, // X9–X11 at or above their references
		1,                                 // X12: 20 random of 8 calls, clamped
		0.5,                               // X13
		math.Log10(2) / math.Log10(1+1e4), // X14: one rank per target
		sys.StorageScore,                  // X15
		EstimateTimes(p, sys).IOShare(),   // X16
	}
	for i := range x {
		if !near(x[i], want[i], 1e-14) {
			t.Errorf("X%d = %v, want %v", i+1, x[i], want[i])
		}
	}
	p.Procs, p.Storage = 99, 0.25 // set by the feature extraction: they win
	x = Normalize(p, sys)
	if !near(x[13], 2/math.Log10(1+1e4), 1e-14) || x[14] != 0.25 {
		t.Errorf("X14, X15 = %v, %v with P14 = 99, P15 = 0.25", x[13], x[14])
	}
}

func TestEstimateTimes(t *testing.T) {
	sys := refSystem() // SSD class defaults, 4 GB of memory, 2000 MHz
	ns := 0.5e-9
	got := EstimateTimes(ioBound(), sys)
	cache := 2 / (1/5e9 + 1/2e9) // harmonic mean of the page cache's bandwidths
	want := Times{Kernel: 1000 * 1e-6, Data: 1e8 / cache, Compute: 0.5}
	if !nearTimes(got, want) || !near(got.IOShare(), want.IO()/(want.IO()+0.5), 1e-14) {
		t.Errorf("binary block: %+v, want %+v", got, want)
	}

	// A block whose file (2 GB) outgrows a quarter of the memory: device
	// bandwidth, and random reads pay the device's latency. 4 ranks share
	// one target.
	p := features.Params{Bytes: 1000, Written: 600, FileSize: 2e9, Random: 5, Metadata: 7, Procs: 4, Work: 2e6,
		Kernel: 100, Buffered: 100, FormatItems: 300, FormatOps: 300 * iosem.FormatOpsPerItem, Syncs: 3, Creates: 2, Parallel: 10, Collective: 4, ParallelOpens: 2, ParallelStarts: 1}
	got = EstimateTimes(p, sys)
	want = Times{
		Kernel:   100 * 1e-6,
		Data:     1000 / (500e6 / 4),
		Buffered: 100 * BufferedCallOps * ns,
		Format:   300 * iosem.FormatOpsPerItem * ns,
		Sync:     (3*1e-3 + 600/500e6) * 4, // the syncs write the 600 bytes written back
		Meta:     7 * 4e-6,
		Create:   2 * (80e-6 - 4e-6),
		Parallel: 10*ParallelCallTime + 4*CollectiveCallTime*1 + 2*ParallelOpenTime + ParallelStartTime, // log2(1 + 1 rank)
		Random:   5 * 150e-6,
		Compute:  2e6 * ns,
	}
	if !nearTimes(got, want) {
		t.Errorf("uncached block: %+v, want %+v", got, want)
	}
	// Five checkpoints of 1 MB, each synced: the syncs write back the 5 MB
	// even though the file stays in the page cache. Two syncs of the same
	// file write back at most twice its extent.
	p = features.Params{Bytes: 5e6, Written: 5e6, FileSize: 1e6, Syncs: 5}
	if got := EstimateTimes(p, sys).Sync; !near(got, 5*1e-3+5e6/500e6, 1e-14) {
		t.Errorf("synced checkpoints: sync %v", got)
	}
	p.Syncs = 2
	if got := EstimateTimes(p, sys).Sync; !near(got, 2*1e-3+2e6/500e6, 1e-14) {
		t.Errorf("two syncs: sync %v", got)
	}
	// A flush at the end of a run, of 12 MB written by other functions:
	// the bytes traced to the sync are written back.
	p = features.Params{Syncs: 1, WriteBack: 12e6}
	if got := EstimateTimes(p, sys).Sync; !near(got, 1e-3+12e6/500e6, 1e-14) {
		t.Errorf("final flush: sync %v", got)
	}
	if s := (Times{}).IOShare(); s != 0 {
		t.Errorf("empty share %v", s)
	}
	if s := (Times{Meta: 1}).IOShare(); s != 1 {
		t.Errorf("I/O only share %v", s)
	}
}

func nearTimes(a, b Times) bool {
	x := []float64{a.Kernel, a.Data, a.Buffered, a.Format, a.Sync, a.Meta, a.Create, a.Parallel, a.Random, a.Compute}
	y := []float64{b.Kernel, b.Data, b.Buffered, b.Format, b.Sync, b.Meta, b.Create, b.Parallel, b.Random, b.Compute}
	for i := range x {
		if !near(x[i], y[i], 1e-14) {
			return false
		}
	}
	return true
}

// TestNormalizeRanges checks the documented range [0, 1] of every variable
// over random parameters and systems, including zeros, huge, negative,
// infinite and NaN values.
func TestNormalizeRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	value := func() float64 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return -rng.Float64() * 100
		case 2:
			return math.Inf(1)
		case 3:
			return math.NaN()
		default:
			return math.Pow(10, rng.Float64()*20-3)
		}
	}
	for range 20000 {
		p := features.Params{
			LoopIO: value(), Calls: value(), Bytes: value(), Sync: value(), Conditional: value(),
			Binary: value(), Flushes: value(), FileSize: value(), Files: value(), Space: value(),
			Stack: value(), Random: value(), Small: value(), Procs: value(), Storage: value(),
			Metadata: value(), Work: value(),
		}
		sys := sysprof.System{
			SecondsPerOp: value(), ReadBandwidth: value(), WriteBandwidth: value(), OpLatency: value(),
			SyncLatency: value(), ReadLatency: value(), MetaLatency: value(), StorageScore: value(),
			Ranks: value(), Targets: value(),
		}
		for i, v := range Normalize(p, sys) {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("X%d = %v outside [0, 1] for %+v on %+v", i+1, v, p, sys)
			}
		}
		if y := Default().Predict(p, sys); !(y >= 0 && y <= 1) || (!p.HasIO() && y != 0) {
			t.Fatalf("prediction %v for %+v", y, p)
		}
	}
}
