package sysprof

import "time"

// FormatVersion is the version of the Profile JSON layout. Cached profiles
// of another version are ignored.
const FormatVersion = 3

// Profile is what iolens knows about the machine and the storage under one
// directory.
type Profile struct {
	Format   int       `json:"format"`
	Host     string    `json:"host"`
	Dir      string    `json:"dir"`       // absolute directory that was probed
	ProbedAt time.Time `json:"probed_at"` // when the profile was collected
	CPU      CPU       `json:"cpu"`
	Memory   Memory    `json:"memory"`
	Storage  Storage   `json:"storage"`
	Perf     Perf      `json:"perf"`
	Mounts   []Mount   `json:"mounts,omitempty"`

	// Cached reports whether the profile was read from the cache rather
	// than collected by this call. It is not stored.
	Cached bool `json:"-"`
}

// CPU describes the processors.
type CPU struct {
	Model   string  `json:"model"`
	Threads int     `json:"threads"` // logical CPUs
	Cores   int     `json:"cores"`   // physical cores (Threads when unknown)
	MHz     float64 `json:"mhz"`     // mean current clock, or the maximum clock when /proc has none
}

// Memory describes main memory, in bytes.
type Memory struct {
	Total     uint64 `json:"total"`
	Available uint64 `json:"available"`
}

// Mount is one line of /proc/self/mountinfo.
type Mount struct {
	MountPoint string `json:"mount_point"`
	FSType     string `json:"fs_type"`
	Source     string `json:"source"`
	Major      int    `json:"major"`
	Minor      int    `json:"minor"`
}

// Storage describes the storage under the probed directory.
type Storage struct {
	Mount      Mount  `json:"mount"`
	Device     string `json:"device,omitempty"` // whole block device, e.g. "sda", "nvme0n1"; empty when none
	Class      Class  `json:"class"`
	Rotational bool   `json:"rotational"`
	Parallel   bool   `json:"parallel"` // a parallel file system (Lustre, GPFS, BeeGFS, CephFS, OrangeFS)
	Targets    int    `json:"targets"`  // storage targets that serve the directory concurrently
}

// Perf holds the measured (or, when Probed is false, default) performance
// of the storage. Bandwidths are in bytes per second, latencies in seconds.
type Perf struct {
	Probed         bool    `json:"probed"`
	Bytes          int64   `json:"bytes"`           // bytes written and read back by the bandwidth probe
	WriteBandwidth float64 `json:"write_bandwidth"` // 1 MiB writes, fsync included
	ReadBandwidth  float64 `json:"read_bandwidth"`  // 1 MiB reads after dropping the file from the page cache
	OpLatency      float64 `json:"op_latency"`      // median 64-byte buffered write: a system call's own cost
	SyncLatency    float64 `json:"sync_latency"`    // median 4 KiB write followed by fsync
	ReadLatency    float64 `json:"read_latency"`    // median uncached 4 KiB read at a random offset
	MetaLatency    float64 `json:"meta_latency"`    // median of stat, open and close, per call
	CreateLatency  float64 `json:"create_latency"`  // mean creation, 64-byte write and close of a new file in a new directory
	// CacheWriteBandwidth and CacheReadBandwidth are the speeds of the
	// page cache: the 1 MiB writes of the write phase without their
	// fsyncs, and 1 MiB reads of data just read.
	CacheWriteBandwidth float64 `json:"cache_write_bandwidth"`
	CacheReadBandwidth  float64 `json:"cache_read_bandwidth"`
	Elapsed             float64 `json:"elapsed"` // seconds the probe took
}
