package sysprof

import (
	"math"
	"testing"
)

func TestStorageScore(t *testing.T) {
	for bw, want := range map[float64]float64{
		0: 0, -1: 0, math.NaN(): 0, 1e6: 0, 1e7: 0.2, 1e8: 0.4, 1e11: 1, 1e13: 1,
	} {
		if got := StorageScore(bw); math.Abs(got-want) > 1e-15 {
			t.Errorf("StorageScore(%g) = %v, want %v", bw, got, want)
		}
	}
}

func TestSystemOfDefault(t *testing.T) {
	s := Default().System()
	want := System{
		SecondsPerOp:        0.5e-9, // 2 GHz, one cycle per operation
		ReadBandwidth:       500e6,
		WriteBandwidth:      500e6,
		OpLatency:           1e-6,
		SyncLatency:         1e-3,
		ReadLatency:         150e-6,
		MetaLatency:         4e-6,
		CreateLatency:       20 * DefaultPerf(ClassSSD).MetaLatency,
		CacheWriteBandwidth: DefaultCacheWriteBandwidth,
		CacheReadBandwidth:  DefaultCacheReadBandwidth,
		Memory:              DefaultMemory,
		StorageScore:        math.Log10(500) / 5,
		Ranks:               1,
		Targets:             1,
	}
	if s != want {
		t.Errorf("Default().System() =\n%+v, want\n%+v", s, want)
	}
}

func TestBandwidthAndRanks(t *testing.T) {
	s := System{ReadBandwidth: 300, WriteBandwidth: 100}
	if got := s.Bandwidth(); got != 150 { // 2/(1/300+1/100)
		t.Errorf("harmonic bandwidth = %v, want 150", got)
	}
	if got := (System{WriteBandwidth: 100}).Bandwidth(); got != 100 {
		t.Errorf("write-only bandwidth = %v", got)
	}
	if got := (System{}).RanksPerTarget(); got != 1 {
		t.Errorf("zero system ranks per target = %v, want 1", got)
	}
	if got := (System{Ranks: 2, Targets: 8}).RanksPerTarget(); got != 0.25 {
		t.Errorf("ranks per target = %v, want 0.25", got)
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
