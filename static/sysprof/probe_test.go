package sysprof

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProbeReal runs one bounded probe of a temporary directory: it cannot
// assert speed, only that the numbers are positive, the cache is private
// and hit on the second call, and nothing is left behind.
func TestProbeReal(t *testing.T) {
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	opts := Options{CacheDir: cacheDir, ProbeBytes: 16 << 20, Budget: time.Second}
	ctx := context.Background()

	p, err := Probe(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cached || !p.Perf.Probed {
		t.Errorf("first probe: cached %v, probed %v", p.Cached, p.Perf.Probed)
	}
	f := p.Perf
	t.Logf("%s on %s (%s): %+v", dir, p.Storage.Device, p.Storage.Class, f)
	for name, v := range map[string]float64{
		"write bandwidth": f.WriteBandwidth, "read bandwidth": f.ReadBandwidth,
		"op latency": f.OpLatency, "sync latency": f.SyncLatency,
		"read latency": f.ReadLatency, "meta latency": f.MetaLatency, "elapsed": f.Elapsed,
	} {
		if !(v > 0) {
			t.Errorf("%s = %v, want > 0", name, v)
		}
	}
	if f.Bytes <= 0 || f.Bytes > 16<<20 {
		t.Errorf("probe moved %d bytes, want 1..16 MiB", f.Bytes)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("probe left %d files in %s", len(left), dir)
	}

	checkMode(t, cacheDir, 0o700)
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	checkMode(t, files[0], 0o600)

	again, err := Probe(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Perf != p.Perf || !again.ProbedAt.Equal(p.ProbedAt) {
		t.Errorf("second probe not served from the cache: %+v", again)
	}
	if loaded, err := Load(dir, opts); err != nil || loaded.Perf != p.Perf {
		t.Errorf("Load = %+v, %v", loaded.Perf, err)
	}

	stale := opts
	stale.MaxAge = time.Hour
	stale.Now = func() time.Time { return p.ProbedAt.Add(2 * time.Hour) }
	if _, err := Load(dir, stale); !errors.Is(err, ErrNotCached) {
		t.Errorf("Load of a stale profile: %v, want ErrNotCached", err)
	}

	skip := opts
	skip.NoProbe = true
	np, err := Probe(ctx, dir, skip)
	if err != nil || np.Perf.Probed || np.Perf != DefaultPerf(np.Storage.Class) {
		t.Errorf("NoProbe: %+v, %v", np.Perf, err)
	}
}

func TestProbeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Probe(ctx, dir, Options{NoCache: true, ProbeBytes: 1 << 20})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled probe: %v, want context.Canceled", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("cancelled probe left %d files", len(left))
	}
}

func TestReadWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "p.json")
	want := Default()
	want.ProbedAt = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.System() != want.System() || !got.ProbedAt.Equal(want.ProbedAt) || got.CPU != want.CPU {
		t.Errorf("round trip: got %+v, want %+v", got, want)
	}
	if err := os.WriteFile(path, []byte(`{"format": 99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "format 99") {
		t.Errorf("reading format 99: %v", err)
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode %o, want %o", path, got, want)
	}
}
