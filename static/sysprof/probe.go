package sysprof

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxAge     = 24 * time.Hour
	DefaultProbeBytes = 64 << 20
	DefaultBudget     = 1500 * time.Millisecond
)

// Options control Probe, Inspect and Load. The zero value probes the real
// machine, caches for DefaultMaxAge in DefaultCacheDir, and writes up to
// DefaultProbeBytes within DefaultBudget.
type Options struct {
	// Root is prepended to /proc and /sys paths ("" is "/"): tests point
	// it at fixture trees.
	Root string
	// CacheDir overrides DefaultCacheDir.
	CacheDir string
	// MaxAge is how old a cached profile may be; 0 means DefaultMaxAge.
	MaxAge time.Duration
	// NoCache neither reads nor writes the cache.
	NoCache bool
	// NoProbe skips the measurement: the profile gets DefaultPerf of its
	// storage class, and the cache is neither read nor written.
	NoProbe bool
	// ProbeBytes is the most the bandwidth probe writes and reads back;
	// 0 means DefaultProbeBytes.
	ProbeBytes int64
	// Budget bounds the probe's time; 0 means DefaultBudget.
	Budget time.Duration
	// Targets is the number of storage targets serving the directory
	// (e.g. a Lustre stripe count); 0 means 1.
	Targets int
	// Now replaces time.Now (tests).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) cacheDir() (string, error) {
	if o.CacheDir != "" {
		return o.CacheDir, nil
	}
	return DefaultCacheDir()
}

// Probe returns the profile of the machine and of the storage under dir: a
// fresh cached one if there is one, else a new one, measured (unless
// opts.NoProbe) and cached.
func Probe(ctx context.Context, dir string, opts Options) (Profile, error) {
	p, err := Inspect(dir, opts)
	if err != nil || opts.NoProbe {
		return p, err
	}
	if !opts.NoCache {
		c, err := cached(p, opts)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, ErrNotCached) {
			return Profile{}, err
		}
	}
	size, budget := opts.ProbeBytes, opts.Budget
	if size <= 0 {
		size = DefaultProbeBytes
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	if p.Perf, err = measure(ctx, p.Dir, size, budget); err != nil {
		return Profile{}, err
	}
	if opts.NoCache {
		return p, nil
	}
	cdir, err := opts.cacheDir()
	if err != nil {
		return Profile{}, err
	}
	if err := WriteFile(filepath.Join(cdir, cacheKey(p)), p); err != nil {
		return Profile{}, fmt.Errorf("caching profile of %s: %w", p.Dir, err)
	}
	return p, nil
}

// Load returns the cached profile of dir, or ErrNotCached when there is
// none younger than opts.MaxAge. It reads /proc and /sys (to identify the
// storage) but measures nothing.
func Load(dir string, opts Options) (Profile, error) {
	p, err := Inspect(dir, opts)
	if err != nil {
		return Profile{}, err
	}
	return cached(p, opts)
}

// cached returns the cached profile matching the identity in p.
func cached(p Profile, opts Options) (Profile, error) {
	cdir, err := opts.cacheDir()
	if err != nil {
		return Profile{}, err
	}
	c, err := ReadFile(filepath.Join(cdir, cacheKey(p)))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrFormat) {
		return Profile{}, ErrNotCached // a profile of an older iolens is measured again
	}
	if err != nil {
		return Profile{}, err
	}
	maxAge := opts.MaxAge
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	if age := opts.now().Sub(c.ProbedAt); age < 0 || age > maxAge || c.Dir != p.Dir {
		return Profile{}, ErrNotCached
	}
	c.Cached = true
	return c, nil
}

// Inspect collects the profile of dir without measuring it: the CPU, the
// memory, the mounts and the storage from /proc and /sys, and DefaultPerf
// of the storage class. Missing /proc or /sys files (another OS, a
// container) leave their part at defaults; unreadable or malformed ones are
// errors.
func Inspect(dir string, opts Options) (Profile, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Profile{}, fmt.Errorf("profiling %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root := opts.Root
	if root == "" {
		root = "/"
	}
	p := Profile{Format: FormatVersion, Dir: abs, ProbedAt: opts.now().UTC().Round(0)}
	p.Host, _ = os.Hostname()
	if p.CPU, err = readCPU(root); err != nil {
		return Profile{}, fmt.Errorf("profiling %s: %w", dir, err)
	}
	if err := readOptional(root, "proc/meminfo", func(r io.Reader) (err error) {
		p.Memory, err = parseMemInfo(r)
		return err
	}); err != nil {
		return Profile{}, fmt.Errorf("profiling %s: %w", dir, err)
	}
	if err := readOptional(root, "proc/self/mountinfo", func(r io.Reader) (err error) {
		p.Mounts, err = parseMountInfo(r)
		return err
	}); err != nil {
		return Profile{}, fmt.Errorf("profiling %s: %w", dir, err)
	}
	if p.Storage, err = storageOf(root, abs, p.Mounts); err != nil {
		return Profile{}, fmt.Errorf("profiling %s: %w", dir, err)
	}
	p.Storage.Targets = max(1, opts.Targets)
	p.Perf = DefaultPerf(p.Storage.Class)
	return p, nil
}

// readCPU reads /proc/cpuinfo, falling back to cpufreq's maximum clock
// when it has no "cpu MHz" (as on many ARM machines).
func readCPU(root string) (CPU, error) {
	var cpu CPU
	err := readOptional(root, "proc/cpuinfo", func(r io.Reader) (err error) {
		cpu, err = parseCPUInfo(r)
		return err
	})
	if err != nil || cpu.MHz > 0 {
		return cpu, err
	}
	err = readOptional(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", func(r io.Reader) error {
		b, err := io.ReadAll(r)
		if err == nil {
			cpu.MHz, err = parseMaxFreq(b)
		}
		return err
	})
	return cpu, err
}

// storageOf finds the mount holding dir and its block device.
func storageOf(root, dir string, mounts []Mount) (Storage, error) {
	m, ok := mountFor(mounts, dir)
	if !ok {
		return Storage{Class: ClassUnknown}, nil
	}
	dev, haveDev, err := findBlockDevice(root, m.Major, m.Minor)
	if err != nil {
		return Storage{}, err
	}
	return Storage{
		Mount:      m,
		Device:     dev.name,
		Class:      classify(m.FSType, dev.name, dev.rotational, haveDev),
		Rotational: dev.rotational,
		Parallel:   isParallelFS(m.FSType),
	}, nil
}

// readOptional parses root/rel with parse; a missing file is not an error.
func readOptional(root, rel string, parse func(io.Reader) error) error {
	path := filepath.Join(root, rel)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := parse(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Default is the profile of a reference machine, independent of the one
// running: a 2 GHz CPU and an SSD with DefaultPerf. Tests and
// reproducible predictions use it.
func Default() Profile {
	return Profile{
		Format:  FormatVersion,
		CPU:     CPU{Model: "reference", Threads: 1, Cores: 1, MHz: DefaultMHz},
		Storage: Storage{Class: ClassSSD, Targets: 1},
		Perf:    DefaultPerf(ClassSSD),
	}
}
