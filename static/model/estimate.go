package model

import (
	"math"

	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/sysprof"
)

// Costs of the physical estimate that sysprof does not measure.
const (
	// BufferedCallOps is the CPU cost, in operations, of one STDIO call
	// served from the stream's buffer: locking, copying a few bytes,
	// and the collector's timer (about 17 ns for an 8-byte fwrite or
	// fread in the corpus's measurements).
	BufferedCallOps = 45
	// ParallelCallTime is the time of one MPI-IO, HDF5, PnetCDF or
	// NetCDF call beyond its system calls: the library's own layers.
	ParallelCallTime = 20e-6
	// CollectiveCallTime is the synchronisation a collective call adds,
	// per doubling of the processes taking part.
	CollectiveCallTime = 50e-6
	// ParallelOpenTime is what opening a file through MPI-IO (directly,
	// through PnetCDF, or through HDF5's MPI-IO driver) adds to a
	// collective call: the library picks and starts its file-system
	// components and the processes agree on the file. About 0.3 ms with
	// Open MPI on a local file system.
	ParallelOpenTime = 300e-6
	// ParallelStartTime is what the first such open of a run adds: the
	// library loads and starts its I/O components. About 2 ms with Open
	// MPI.
	ParallelStartTime = 2e-3
	// CachedShare is the share of the memory under which a block's files
	// are taken to stay in the page cache.
	CachedShare = 0.25
)

// Times is the physical estimate of a block's run time, in seconds, split
// by cause. It estimates what the collector measures: the time inside
// intercepted I/O calls (POSIX, STDIO, MPI-IO, HDF5, PnetCDF), against
// everything else.
type Times struct {
	Kernel   float64 `json:"kernel"`   // system calls: requests and buffer flushes
	Data     float64 `json:"data"`     // bytes moved, at page-cache or device bandwidth
	Buffered float64 `json:"buffered"` // STDIO calls served from the stream's buffer
	Format   float64 `json:"format"`   // text conversions inside STDIO calls, Fortran statements and stream operations
	Runtime  float64 `json:"runtime"`  // the Fortran and C++ stream runtimes' own work in a statement
	Sync     float64 `json:"sync"`     // syncs to storage
	Meta     float64 `json:"meta"`     // open, close, stat, seek
	Create   float64 `json:"create"`   // file creations beyond their open
	Parallel float64 `json:"parallel"` // MPI-IO, HDF5, PnetCDF layers and collective synchronisation
	Random   float64 `json:"random"`   // uncached random reads
	Compute  float64 `json:"compute"`  // everything else (Work)
}

// IO is the estimated I/O time: every term but Compute.
func (t Times) IO() float64 {
	return t.Kernel + t.Data + t.Buffered + t.Format + t.Runtime + t.Sync + t.Meta + t.Create + t.Parallel + t.Random
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
//	Kernel   = kernel calls × OpLatency
//	Data     = P3 / (bandwidth / c)
//	Buffered = buffered calls × BufferedCallOps × SecondsPerOp
//	Format   = format ops × SecondsPerOp
//	Runtime  = runtime ops × SecondsPerOp
//	Sync     = (syncs × SyncLatency + write-back) × c
//	Meta     = Metadata × MetaLatency
//	Create   = creates × (CreateLatency − MetaLatency)
//	Parallel = parallel calls × ParallelCallTime + collective calls × CollectiveCallTime × log2(1 + ranks)
//	           + parallel opens × ParallelOpenTime + first opens × ParallelStartTime
//	Random   = P12 × ReadLatency, for uncached files only
//	Compute  = Work × SecondsPerOp
//
// where the write-back is the time the syncs take to write the data the
// block wrote to the device (at WriteBandwidth; see writeBack), and
// c = max(1, P14) is the contention of the ranks sharing a storage
// target (P14 from p when set, else sys.RanksPerTarget()). A block whose
// largest file (P8) fits in CachedShare of the memory works in the page
// cache: its bandwidth is the harmonic mean of the cache's read and write
// bandwidths, and its random reads cost no seek. Otherwise the device's
// bandwidths apply. Negative or NaN parameters count as 0.
func EstimateTimes(p features.Params, sys sysprof.System) Times {
	c := max(1, ranksPerTarget(p, sys))
	cached := nonneg(p.FileSize) <= CachedShare*sys.Memory
	t := Times{
		Kernel:   nonneg(p.Kernel) * sys.OpLatency,
		Buffered: nonneg(p.Buffered) * BufferedCallOps * sys.SecondsPerOp,
		Format:   nonneg(p.FormatOps) * sys.SecondsPerOp,
		Runtime:  nonneg(p.RuntimeOps) * sys.SecondsPerOp,
		Sync:     nonneg(p.Syncs) * sys.SyncLatency * c,
		Meta:     nonneg(p.Metadata) * sys.MetaLatency,
		Create:   nonneg(p.Creates) * max(0, sys.CreateLatency-sys.MetaLatency),
		Parallel: nonneg(p.Parallel)*ParallelCallTime +
			nonneg(p.Collective)*CollectiveCallTime*math.Log2(1+max(1, sys.Ranks)) +
			nonneg(p.ParallelOpens)*ParallelOpenTime + nonneg(p.ParallelStarts)*ParallelStartTime,
		Compute: nonneg(p.Work) * sys.SecondsPerOp,
	}
	bw := sys.Bandwidth()
	if cached {
		bw = sys.CacheBandwidth()
	} else {
		t.Random = nonneg(p.Random) * sys.ReadLatency
	}
	if bw > 0 {
		t.Data = nonneg(p.Bytes) / (bw / c)
	}
	t.Sync += writeBack(p, sys) * c
	return t
}

// writeBack is the time the syncs of a block spend writing data back to
// the device: the bytes the analysis traced to them (WriteBack: what the
// program wrote into their files since the sync before, wherever it was
// written), or, when more, the bytes the block wrote, at most the
// largest file's extent per sync (all of them when the extent is
// unknown).
func writeBack(p features.Params, sys sysprof.System) float64 {
	syncs, written := nonneg(p.Syncs), nonneg(p.Written)
	if syncs == 0 || sys.WriteBandwidth <= 0 {
		return 0
	}
	if size := nonneg(p.FileSize); size > 0 {
		written = min(written, syncs*size)
	}
	return max(written, nonneg(p.WriteBack)) / sys.WriteBandwidth
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
