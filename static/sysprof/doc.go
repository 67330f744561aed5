// Package sysprof describes the machine a program runs on, as far as the
// CIOC model needs it: the CPU (how long a non-I/O operation takes), the
// memory, the storage under a directory (mount, file system, block device,
// storage class) and its measured bandwidth and latencies.
//
// Probe collects a Profile. Reading /proc and /sys is cheap; the bandwidth
// and latency measurement of the directory is bounded (about 1.5 s and
// 64 MiB by default) and its result is cached as JSON for a day under
// $IOLENS_CACHE_DIR/sysprof or the user cache directory, keyed by host,
// directory and device. Options.NoProbe skips the measurement and uses
// per-class defaults instead.
//
// Profile.System reduces a profile to the few numbers the model's
// normalisation uses (System): seconds per operation, bandwidths,
// latencies, a storage score and the ranks per storage target.
package sysprof
