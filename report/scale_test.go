package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
)

// Shape of the scale benchmark's log: scaleRanks ranks each trace
// scaleSegs operations on one shared file, 10 million in all.
const (
	scaleRanks = 64
	scaleSegs  = 156250
	scalePhase = 15625 // operations per rank and I/O phase: ten phases
)

// writeScaleLog writes the scale benchmark's log to path: every rank
// writes its own contiguous block of a shared file in 64 KiB requests,
// in ten phases separated by one second of computation, then reads back
// the first request of each phase. Durations vary with the rank and the
// request, and the last rank is slower.
func writeScaleLog(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := darshan.NewWriter(f, darshan.WriterOptions{Fast: true})
	job := darshan.Job{UID: 1000, StartTime: 1700000000, EndTime: 1700000200, NProcs: scaleRanks, JobID: 10,
		Metadata: "lib_ver=3.5.0\nh=cb_nodes=4\n"}
	if err := w.WriteJob(job, "./sim --steps 10", []darshan.Mount{{Path: "/scratch", FSType: "lustre"}}); err != nil {
		tb.Fatal(err)
	}
	const name = "/scratch/run/checkpoint.dat"
	if err := w.WriteNames(func(yield func(uint64, string) bool) { yield(darshan.RecordID(name), name) }); err != nil {
		tb.Fatal(err)
	}
	if err := w.BeginModule(darshan.ModDXTPOSIX); err != nil {
		tb.Fatal(err)
	}
	const size = 64 << 10
	phases := scaleSegs / scalePhase
	tr := &darshan.Trace{ThreadIDs: true}
	for r := range scaleRanks {
		tr.Hostname = "node" + strconv.Itoa(r/16)
		tr.Writes = tr.Writes[:0]
		tr.Reads = tr.Reads[:0]
		t := 0.5 + 0.0001*float64(r)
		base := int64(r) * scaleSegs * size
		for i := range scaleSegs - phases {
			if i > 0 && i%(scalePhase-1) == 0 {
				t += 1
			}
			d := 1e-5 * float64(1+(i*7+r)%5)
			if r == scaleRanks-1 {
				d *= 2
			}
			tr.Writes = append(tr.Writes, darshan.Segment{Offset: base + int64(i)*size, Length: size, Start: t, End: t + d, ThreadID: 1})
			t += d + 2e-6
		}
		for p := range phases {
			s := float64(p) * 1.2
			off := base + int64(p*(scalePhase-1))*size
			tr.Reads = append(tr.Reads, darshan.Segment{Offset: off, Length: size, Start: s, End: s + 1e-4, ThreadID: 1})
		}
		if err := w.WriteRecord(&darshan.Record{Module: darshan.ModDXTPOSIX, ID: darshan.RecordID(name), Rank: int64(r), DXT: tr}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// peakRSS returns the peak resident set size of the process in bytes
// (VmHWM), or 0 where /proc is not available.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			var kb float64
			if _, err := fmt.Sscan(string(v), &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// resetPeakRSS restarts the count of peakRSS (Linux: clear_refs 5), and
// reports whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// BenchmarkReport10M analyses a log of 10 million DXT segments and renders
// its HTML page, as `iolens report --html` does. The log is written once;
// each iteration opens it, runs analysis.Analyze and HTML. analyze-s and
// html-s split the time per iteration; peak-RSS-MiB is the process's peak
// resident set size from the first iteration on, analyze-peak-RSS-MiB and
// html-peak-RSS-MiB that of each step (the peaks count from the start of
// the process where they cannot be reset, log writing included).
func BenchmarkReport10M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "scale.darshan")
	writeScaleLog(b, path)
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	var analyze, html time.Duration
	var analyzePeak, htmlPeak float64
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		l, err := darshan.OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := analysis.Analyze(l, path, analysis.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		analyzePeak = max(analyzePeak, peakRSS())
		resetPeakRSS()
		if err := HTML(io.Discard, rep, l, HTMLOptions{}); err != nil {
			b.Fatal(err)
		}
		l.Close()
		analyze += t1.Sub(t0)
		html += time.Since(t1)
		htmlPeak = max(htmlPeak, peakRSS())
	}
	b.ReportMetric(analyze.Seconds()/float64(b.N), "analyze-s")
	b.ReportMetric(html.Seconds()/float64(b.N), "html-s")
	b.ReportMetric(max(analyzePeak, htmlPeak)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(analyzePeak/(1<<20), "analyze-peak-RSS-MiB")
	b.ReportMetric(htmlPeak/(1<<20), "html-peak-RSS-MiB")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/(1<<20), "log-MiB")
	}
}
