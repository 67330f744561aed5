package dataset

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/synth"
)

// BenchmarkIngest ingests counter-only logs of 20 files each; the figure
// that matters is logs/s.
func BenchmarkIngest(b *testing.B) {
	const n = 2000
	logs := b.TempDir()
	var paths []string
	for i := range n {
		l := synth.Log{Job: darshan.Job{UID: 1000 + int64(i%50), JobID: int64(i), StartTime: 1.7e9 + int64(i)*3600, EndTime: 1.7e9 + int64(i)*3600 + 600, NProcs: 64, Metadata: "lib_ver=3.5.0\n"},
			Exe: fmt.Sprintf("/apps/app%d/bin/run -n %d", i%40, i)}
		for f := range 20 {
			l.Records = append(l.Records, synth.Writes(fmt.Sprintf("/scratch/u%d/run%d/out.%d", i%50, i, f), 100, 1<<20, 1.5))
		}
		p := filepath.Join(logs, fmt.Sprintf("%d.darshan", i))
		if err := l.Write(p); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	b.ResetTimer()
	for b.Loop() {
		dir := b.TempDir()
		t0 := time.Now()
		st, err := Ingest(context.Background(), dir, paths, IngestOptions{User: func(int64) string { return "" }})
		if err != nil || st.Ingested != n {
			b.Fatal(st, err)
		}
		b.ReportMetric(float64(n)/time.Since(t0).Seconds(), "logs/s")
	}
}
