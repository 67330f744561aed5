package model

import (
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/sysprof"
)

// Costs of the physical estimate that are not measured by sysprof. They
// are expressed in non-I/O operations, so that they scale with the CPU like
// the block's own work.
const (
	// FormatOpsPerCall is the CPU cost of one formatted (text) I/O call
	// beyond its bytes: parsing the format, locking the stream.
	FormatOpsPerCall = 200
	// FormatOpsPerByte is the CPU cost of converting one byte of formatted
	// data between text and binary (a double printed with %g is about 15
	// bytes and 150 operations).
	FormatOpsPerByte = 10
)

// Times is the physical estimate of a block's run time, in seconds, split
// by cause.
type Times struct {
	Calls   float64 `json:"calls"`   // P2 × op latency
	Data    float64 `json:"data"`    // P3 / (bandwidth / contention)
	Flush   float64 `json:"flush"`   // P7 × sync latency × contention
	Meta    float64 `json:"meta"`    // Metadata × meta latency
	Format  float64 `json:"format"`  // formatted calls and bytes × CPU cost
	Small   float64 `json:"small"`   // P13 × op latency (small requests pay their overhead twice)
	Random  float64 `json:"random"`  // P12 × uncached random-read latency
	Compute float64 `json:"compute"` // Work × seconds per operation
}

// IO is the estimated I/O time: every term but Compute.
func (t Times) IO() float64 {
	return t.Calls + t.Data + t.Flush + t.Meta + t.Format + t.Small + t.Random
}

// IOShare is IO / (IO + Compute), 0 when both are 0.
func (t Times) IOShare() float64 {
	io := t.IO()
	if io+t.Compute <= 0 {
		return 0
	}
	return clamp01(io / (io + t.Compute))
}

// EstimateTimes estimates the I/O and compute time of a block on sys:
//
//	Calls   = P2 × OpLatency
//	Data    = P3 / (Bandwidth / c)
//	Flush   = P7 × SyncLatency × c
//	Meta    = Metadata × MetaLatency
//	Format  = ((P2 − P6) × FormatOpsPerCall + P3 × (P2 − P6)/P2 × FormatOpsPerByte) × SecondsPerOp
//	Small   = P13 × OpLatency
//	Random  = P12 × ReadLatency
//	Compute = Work × SecondsPerOp
//
// where c = max(1, P14) is the contention of the ranks sharing a storage
// target (P14 from p when set, else sys.RanksPerTarget()) and Bandwidth is
// the harmonic mean of read and write bandwidth. Negative or NaN
// parameters count as 0.
func EstimateTimes(p features.Params, sys sysprof.System) Times {
	calls, bytes := nonneg(p.Calls), nonneg(p.Bytes)
	formatted := max(0, calls-nonneg(p.Binary))
	c := max(1, ranksPerTarget(p, sys))
	t := Times{
		Calls:   calls * sys.OpLatency,
		Flush:   nonneg(p.Flushes) * sys.SyncLatency * c,
		Meta:    nonneg(p.Metadata) * sys.MetaLatency,
		Format:  formatted * FormatOpsPerCall * sys.SecondsPerOp,
		Small:   nonneg(p.Small) * sys.OpLatency,
		Random:  nonneg(p.Random) * sys.ReadLatency,
		Compute: nonneg(p.Work) * sys.SecondsPerOp,
	}
	if bw := sys.Bandwidth(); bw > 0 {
		t.Data = bytes / (bw / c)
	}
	if calls > 0 {
		t.Format += bytes * formatted / calls * FormatOpsPerByte * sys.SecondsPerOp
	}
	return t
}

// ranksPerTarget is P14: from the block when the feature extraction set
// it, else from the system.
func ranksPerTarget(p features.Params, sys sysprof.System) float64 {
	if v := nonneg(p.Procs); v > 0 {
		return v
	}
	return sys.RanksPerTarget()
}

// storageScore is P15: from the block when set, else from the system.
func storageScore(p features.Params, sys sysprof.System) float64 {
	if v := nonneg(p.Storage); v > 0 {
		return v
	}
	return sys.StorageScore
}
