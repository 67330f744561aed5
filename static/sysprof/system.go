package sysprof

import "math"

// Reference values of the system-side model inputs.
const (
	// CyclesPerOp is the clock cycles one estimated non-I/O operation of
	// the feature extraction (features.Params.Work) is taken to cost.
	CyclesPerOp = 1.0
	// DefaultMHz is the clock assumed when /proc and /sys do not tell.
	DefaultMHz = 2000.0
	// DefaultMemory is the memory, in bytes, assumed when /proc does not
	// tell.
	DefaultMemory = 4e9
	// ScoreFloor and ScoreDecades define StorageScore: a bandwidth of
	// ScoreFloor bytes/s scores 0, and every decade above it adds
	// 1/ScoreDecades, so 100 GB/s scores 1.
	ScoreFloor   = 1e6
	ScoreDecades = 5.0
)

// System is the machine reduced to the inputs of the CIOC model:
// bandwidths in bytes per second, times in seconds.
type System struct {
	SecondsPerOp   float64 `json:"seconds_per_op"` // one non-I/O operation
	ReadBandwidth  float64 `json:"read_bandwidth"`
	WriteBandwidth float64 `json:"write_bandwidth"`
	OpLatency      float64 `json:"op_latency"`     // one I/O call
	SyncLatency    float64 `json:"sync_latency"`   // one flush or sync
	ReadLatency    float64 `json:"read_latency"`   // one uncached random access
	MetaLatency    float64 `json:"meta_latency"`   // one open, close, stat, seek
	CreateLatency  float64 `json:"create_latency"` // one creation of a file
	// CacheWriteBandwidth and CacheReadBandwidth are the page cache's
	// speeds; Memory is the memory available to it, in bytes.
	CacheWriteBandwidth float64 `json:"cache_write_bandwidth"`
	CacheReadBandwidth  float64 `json:"cache_read_bandwidth"`
	Memory              float64 `json:"memory"`
	StorageScore        float64 `json:"storage_score"`
	Ranks               float64 `json:"ranks"`   // processes doing I/O at the same time
	Targets             float64 `json:"targets"` // storage targets serving them
}

// System derives the model inputs from the profile, for one process doing
// I/O (set Ranks for more).
func (p Profile) System() System {
	mhz := p.CPU.MHz
	if mhz <= 0 {
		mhz = DefaultMHz
	}
	perf := p.Perf
	if perf.WriteBandwidth <= 0 || perf.ReadBandwidth <= 0 {
		perf = DefaultPerf(p.Storage.Class)
	}
	s := System{
		SecondsPerOp:        CyclesPerOp / (mhz * 1e6),
		ReadBandwidth:       perf.ReadBandwidth,
		WriteBandwidth:      perf.WriteBandwidth,
		OpLatency:           perf.OpLatency,
		SyncLatency:         perf.SyncLatency,
		ReadLatency:         perf.ReadLatency,
		MetaLatency:         perf.MetaLatency,
		CreateLatency:       perf.CreateLatency,
		CacheWriteBandwidth: perf.CacheWriteBandwidth,
		CacheReadBandwidth:  perf.CacheReadBandwidth,
		Memory:              float64(p.Memory.Available),
		Ranks:               1,
		Targets:             float64(max(1, p.Storage.Targets)),
	}
	if s.CacheWriteBandwidth <= 0 || s.CacheReadBandwidth <= 0 {
		s.CacheWriteBandwidth, s.CacheReadBandwidth = DefaultCacheWriteBandwidth, DefaultCacheReadBandwidth
	}
	if s.CreateLatency <= 0 {
		s.CreateLatency = DefaultPerf(p.Storage.Class).CreateLatency
	}
	if s.Memory <= 0 {
		s.Memory = DefaultMemory
	}
	s.StorageScore = StorageScore(s.Bandwidth())
	return s
}

// Bandwidth is the device's bandwidth for a mix of equal read and written
// bytes: the harmonic mean of the two, or the one that is known.
func (s System) Bandwidth() float64 { return harmonic(s.ReadBandwidth, s.WriteBandwidth) }

// CacheBandwidth is the page cache's bandwidth for a mix of equal read
// and written bytes, like Bandwidth.
func (s System) CacheBandwidth() float64 {
	return harmonic(s.CacheReadBandwidth, s.CacheWriteBandwidth)
}

// harmonic is the harmonic mean of two bandwidths, or the positive one.
func harmonic(r, w float64) float64 {
	switch {
	case r > 0 && w > 0:
		return 2 / (1/r + 1/w)
	case r > 0:
		return r
	default:
		return max(w, 0)
	}
}

// RanksPerTarget is the number of processes doing I/O per storage target
// (the model's P14): 1 for a single process on a local disk. Missing
// values count as 1.
func (s System) RanksPerTarget() float64 {
	return max(1, s.Ranks) / max(1, s.Targets)
}

// StorageScore maps a bandwidth in bytes per second to [0, 1] on a log
// scale (the model's P15): log10(bw/ScoreFloor)/ScoreDecades, clamped.
// 1 MB/s scores 0, 150 MB/s (a disk) 0.44, 2 GB/s (NVMe) 0.66, 100 GB/s 1.
func StorageScore(bw float64) float64 {
	if !(bw > ScoreFloor) {
		return 0
	}
	return math.Min(1, math.Log10(bw/ScoreFloor)/ScoreDecades)
}
