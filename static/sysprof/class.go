package sysprof

import "strings"

// Class is a coarse storage class, decided from the file system type and
// the backing block device.
type Class string

// The storage classes.
const (
	ClassMemory  Class = "memory"  // tmpfs, ramfs
	ClassNVMe    Class = "nvme"    // NVMe block device
	ClassSSD     Class = "ssd"     // non-rotational block device
	ClassHDD     Class = "hdd"     // rotational block device
	ClassNetwork Class = "network" // NFS, SMB and parallel file systems
	ClassUnknown Class = "unknown" // overlay, FUSE, no device found, …
)

// isMemoryFS reports whether a file system lives in memory.
func isMemoryFS(fsType string) bool {
	switch fsType {
	case "tmpfs", "ramfs", "devtmpfs":
		return true
	}
	return false
}

// isParallelFS reports whether a file system is a parallel one: network
// storage striped over several targets.
func isParallelFS(fsType string) bool {
	switch fsType {
	case "lustre", "gpfs", "beegfs", "ceph", "fuse.ceph-fuse", "orangefs", "pvfs2",
		"glusterfs", "fuse.glusterfs", "panfs", "wekafs":
		return true
	}
	return false
}

// isNetworkFS reports whether a file system is served over the network.
func isNetworkFS(fsType string) bool {
	switch fsType {
	case "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "fuse.sshfs", "davfs":
		return true
	}
	return isParallelFS(fsType)
}

// classify decides the storage class from the file system type and, for a
// block device, its name and rotational flag.
func classify(fsType, device string, rotational, haveDevice bool) Class {
	switch {
	case isMemoryFS(fsType):
		return ClassMemory
	case isNetworkFS(fsType):
		return ClassNetwork
	case !haveDevice:
		return ClassUnknown
	case strings.HasPrefix(device, "nvme"):
		return ClassNVMe
	case rotational:
		return ClassHDD
	default:
		return ClassSSD
	}
}

// DefaultPerf returns typical figures for a storage class, used when the
// probe is skipped or fails. They are orders of magnitude, not
// measurements.
func DefaultPerf(c Class) Perf {
	const (
		us = 1e-6
		ms = 1e-3
		mb = 1e6
	)
	var p Perf
	switch c {
	case ClassMemory:
		p = Perf{WriteBandwidth: 4000 * mb, ReadBandwidth: 8000 * mb, OpLatency: 0.5 * us, SyncLatency: 2 * us, ReadLatency: 2 * us, MetaLatency: 2 * us}
	case ClassNVMe:
		p = Perf{WriteBandwidth: 2000 * mb, ReadBandwidth: 3000 * mb, OpLatency: 1 * us, SyncLatency: 50 * us, ReadLatency: 80 * us, MetaLatency: 3 * us}
	case ClassHDD:
		p = Perf{WriteBandwidth: 150 * mb, ReadBandwidth: 150 * mb, OpLatency: 1 * us, SyncLatency: 10 * ms, ReadLatency: 8 * ms, MetaLatency: 5 * us}
	case ClassNetwork:
		p = Perf{WriteBandwidth: 1000 * mb, ReadBandwidth: 1000 * mb, OpLatency: 20 * us, SyncLatency: 2 * ms, ReadLatency: 500 * us, MetaLatency: 300 * us}
	default: // SSD and unknown
		p = Perf{WriteBandwidth: 500 * mb, ReadBandwidth: 500 * mb, OpLatency: 1 * us, SyncLatency: 1 * ms, ReadLatency: 150 * us, MetaLatency: 4 * us}
	}
	p.CacheWriteBandwidth, p.CacheReadBandwidth = DefaultCacheWriteBandwidth, DefaultCacheReadBandwidth
	p.CreateLatency = 20 * p.MetaLatency // a journal or metadata server update
	return p
}

// Typical page-cache bandwidths, in bytes per second, used when the probe
// is skipped or a cached profile predates their measurement.
const (
	DefaultCacheWriteBandwidth = 2e9
	DefaultCacheReadBandwidth  = 5e9
)
