package sysprof

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Sizes of the probe's requests.
const (
	bandwidthRequest = 1 << 20 // bytes per request of the bandwidth phases
	latencyRequest   = 4 << 10 // bytes per request of the latency phases
	syncEvery        = 8 << 20 // bytes written between fsyncs in the write phase
	maxLatencyOps    = 64      // requests per latency phase at most
	maxCreateOps     = 256     // files of the create phase at most
	maxOpLatencyOps  = 256     // buffered writes of the op-latency phase at most
	opRequest        = 64      // bytes per request of the op-latency phase
)

// prober measures one temporary file.
type prober struct {
	ctx    context.Context
	f      *os.File
	start  time.Time
	budget time.Duration
	rng    *rand.Rand
}

// measure writes and reads back up to size bytes of a temporary file in
// dir, then times small synchronous, buffered and random requests and
// metadata calls. Every phase stops at its share of budget (after at least
// one request), so the probe takes about budget unless single requests are
// very slow. The file (mode 0600) is removed before measure returns.
func measure(ctx context.Context, dir string, size int64, budget time.Duration) (perf Perf, err error) {
	if err := ctx.Err(); err != nil {
		return Perf{}, fmt.Errorf("probing %s: %w", dir, err)
	}
	start := time.Now()
	f, err := os.CreateTemp(dir, ".iolens-probe-*")
	if err != nil {
		return Perf{}, fmt.Errorf("probing %s: %w", dir, err)
	}
	defer func() {
		cerr := f.Close()
		rerr := os.Remove(f.Name())
		if err == nil && (cerr != nil || rerr != nil) {
			err = fmt.Errorf("probing %s: cleaning up: %w", dir, errors.Join(cerr, rerr))
		}
	}()
	p := &prober{ctx: ctx, f: f, start: start, budget: budget, rng: rand.New(rand.NewPCG(1, 2))}

	perf.Probed = true
	written, err := p.writeBandwidth(size, p.deadline(0), &perf)
	if err != nil {
		return Perf{}, fmt.Errorf("probing %s: write: %w", dir, err)
	}
	perf.Bytes = written
	steps := []struct {
		name string
		run  func(time.Time) (float64, error)
		dst  *float64
	}{
		{"read", func(d time.Time) (float64, error) { return p.readBandwidth(written, d, &perf) }, &perf.ReadBandwidth},
		{"random read", func(d time.Time) (float64, error) { return p.readLatency(written, d) }, &perf.ReadLatency},
		{"sync write", p.syncLatency, &perf.SyncLatency},
		{"buffered write", p.opLatency, &perf.OpLatency},
		{"metadata", p.metaLatency, &perf.MetaLatency},
		{"create", p.createLatency, &perf.CreateLatency},
	}
	for i, s := range steps {
		v, err := s.run(p.deadline(i + 1))
		if err != nil {
			return Perf{}, fmt.Errorf("probing %s: %s: %w", dir, s.name, err)
		}
		*s.dst = v
	}
	perf.Elapsed = time.Since(start).Seconds()
	return perf, nil
}

// deadline is the end of phase i (write, read, random read, sync write,
// buffered write, metadata, create): the fraction of the time budget at which the
// phase stops issuing requests. Every phase issues at least one.
func (p *prober) deadline(i int) time.Time {
	ends := [...]float64{0.45, 0.65, 0.75, 0.85, 0.90, 0.95, 1.0}
	return p.start.Add(time.Duration(ends[i] * float64(p.budget)))
}

// more reports whether a phase that has done n of at most limit requests
// goes on.
func (p *prober) more(n, limit int, deadline time.Time) bool {
	if n == 0 {
		return true
	}
	return n < limit && p.ctx.Err() == nil && time.Now().Before(deadline)
}

// writeBandwidth writes 1 MiB requests of random bytes (so compressing file
// systems do not flatter the result), fsyncing every 8 MiB and at the end,
// and sets the write bandwidth, and the page cache's from the time in the
// writes alone. It returns the bytes written.
func (p *prober) writeBandwidth(size int64, deadline time.Time, perf *Perf) (int64, error) {
	buf := make([]byte, bandwidthRequest)
	for i := range buf {
		buf[i] = byte(p.rng.Uint32())
	}
	limit := int(max(1, size/bandwidthRequest))
	t0 := time.Now()
	var written int64
	var inWrites time.Duration
	for n := 0; p.more(n, limit, deadline); n++ {
		w0 := time.Now()
		if _, err := p.f.WriteAt(buf, written); err != nil {
			return 0, err
		}
		inWrites += time.Since(w0)
		written += bandwidthRequest
		if written%syncEvery == 0 {
			if err := p.f.Sync(); err != nil {
				return 0, err
			}
		}
	}
	if err := p.f.Sync(); err != nil {
		return 0, err
	}
	perf.WriteBandwidth = float64(written) / time.Since(t0).Seconds()
	perf.CacheWriteBandwidth = float64(written) / max(inWrites.Seconds(), 1e-9)
	return written, p.ctx.Err()
}

// readBandwidth drops the file from the page cache and reads it back in
// 1 MiB requests; it returns bytes per second. It then reads the same
// bytes again, from the page cache, and sets the cache's read bandwidth.
func (p *prober) readBandwidth(written int64, deadline time.Time, perf *Perf) (float64, error) {
	if err := dropCache(p.f, false); err != nil {
		return 0, err
	}
	buf := make([]byte, bandwidthRequest)
	pass := func(limit int) (int64, float64, error) {
		t0 := time.Now()
		var read int64
		for n := 0; p.more(n, limit, deadline); n++ {
			if _, err := p.f.ReadAt(buf, read); err != nil {
				return 0, 0, err
			}
			read += bandwidthRequest
		}
		return read, float64(read) / max(time.Since(t0).Seconds(), 1e-9), nil
	}
	read, bw, err := pass(int(written / bandwidthRequest))
	if err != nil {
		return 0, err
	}
	if _, perf.CacheReadBandwidth, err = pass(int(read / bandwidthRequest)); err != nil {
		return 0, err
	}
	return bw, p.ctx.Err()
}

// readLatency drops the file from the page cache, turns read-ahead off and
// times 4 KiB reads at random aligned offsets; it returns the median.
func (p *prober) readLatency(written int64, deadline time.Time) (float64, error) {
	if err := dropCache(p.f, true); err != nil {
		return 0, err
	}
	buf := make([]byte, latencyRequest)
	blocks := max(1, written/latencyRequest)
	return p.timeOps(maxLatencyOps, deadline, func(int) error {
		_, err := p.f.ReadAt(buf, p.rng.Int64N(blocks)*latencyRequest)
		return err
	})
}

// syncLatency times a 4 KiB write followed by fsync; it returns the median.
func (p *prober) syncLatency(deadline time.Time) (float64, error) {
	buf := make([]byte, latencyRequest)
	return p.timeOps(maxLatencyOps, deadline, func(i int) error {
		if _, err := p.f.WriteAt(buf, int64(i)*latencyRequest); err != nil {
			return err
		}
		return p.f.Sync()
	})
}

// opLatency times buffered 64-byte writes, the cost of a system call
// that moves almost nothing; it returns the median.
func (p *prober) opLatency(deadline time.Time) (float64, error) {
	buf := make([]byte, opRequest)
	return p.timeOps(maxOpLatencyOps, deadline, func(i int) error {
		_, err := p.f.WriteAt(buf, int64(i)*opRequest)
		return err
	})
}

// metaLatency times a stat, an open and a close of the file; it returns the
// median per call.
func (p *prober) metaLatency(deadline time.Time) (float64, error) {
	name := p.f.Name()
	lat, err := p.timeOps(maxLatencyOps, deadline, func(int) error {
		if _, err := os.Stat(name); err != nil {
			return err
		}
		g, err := os.Open(name)
		if err != nil {
			return err
		}
		return g.Close()
	})
	return lat / 3, err
}

// createDirs is the number of new directories the create phase spreads
// its files over.
const createDirs = 4

// createLatency times the creation of new small files, spread round-robin
// over createDirs new directories beside the probe's file, as programs
// create their output (a directory per step, per rank or per variable):
// open with O_CREAT|O_TRUNC, a 64-byte write, close (file systems may
// allocate the blocks of a truncated file on its close). It returns the
// mean: the first files of a new directory cost several times the
// median, and a program creating many files pays for all of them. The
// files and directories are removed afterwards.
func (p *prober) createLatency(deadline time.Time) (lat float64, err error) {
	var made []string // directories, then files: removed in reverse order
	defer func() {
		for i := len(made) - 1; i >= 0; i-- {
			if rerr := os.Remove(made[i]); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	var dirs []string
	for i := range createDirs {
		dir := fmt.Sprintf("%s.d%d", p.f.Name(), i)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return 0, err
		}
		made = append(made, dir)
		dirs = append(dirs, dir)
	}
	small := make([]byte, opRequest)
	var total float64
	n := 0
	for ; p.more(n, maxCreateOps, deadline); n++ {
		name := filepath.Join(dirs[n%len(dirs)], fmt.Sprintf("f%d", n))
		t0 := time.Now()
		g, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, err
		}
		made = append(made, name)
		_, err = g.Write(small)
		if err = errors.Join(err, g.Close()); err != nil {
			return 0, err
		}
		total += time.Since(t0).Seconds()
	}
	return total / float64(n), p.ctx.Err()
}

// timeOps runs op at most limit times until deadline (at least once) and
// returns the median duration in seconds.
func (p *prober) timeOps(limit int, deadline time.Time, op func(i int) error) (float64, error) {
	var d []float64
	for n := 0; p.more(n, limit, deadline); n++ {
		t0 := time.Now()
		if err := op(n); err != nil {
			return 0, err
		}
		d = append(d, time.Since(t0).Seconds())
	}
	return median(d), p.ctx.Err()
}

// median returns the median of d (the mean of the middle two for an even
// count), or 0 for none. It sorts d.
func median(d []float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	m := len(d) / 2
	if len(d)%2 == 1 {
		return d[m]
	}
	return (d[m-1] + d[m]) / 2
}
