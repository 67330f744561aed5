package darshan_test

import (
	"bytes"
	"cmp"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// benchLog is a sample log held in memory for a benchmark.
type benchLog struct {
	name string // base name, used as the sub-benchmark name
	data []byte
}

// largestLogs returns the n largest sample logs, largest first.
func largestLogs(b *testing.B, n int) []benchLog {
	b.Helper()
	var logs []benchLog
	for _, lg := range fixture.Logs(b) {
		logs = append(logs, benchLog{filepath.Base(lg.Path), readFile(b, lg.Path)})
	}
	slices.SortStableFunc(logs, func(x, y benchLog) int { return cmp.Compare(len(y.data), len(x.data)) })
	return logs[:min(n, len(logs))]
}

func openBench(b *testing.B, lg benchLog) *darshan.Log {
	l, err := darshan.Open(bytes.NewReader(lg.data), int64(len(lg.data)), lg.name)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkOpenIterate opens each of the largest sample logs (from memory)
// and reads every record of every module; it reports the time per record.
func BenchmarkOpenIterate(b *testing.B) {
	for _, lg := range largestLogs(b, 5) {
		b.Run(lg.name, func(b *testing.B) {
			b.SetBytes(int64(len(lg.data)))
			b.ReportAllocs()
			records := 0
			for i := 0; i < b.N; i++ {
				n, errs := readAll(openBench(b, lg))
				if len(errs) > 0 {
					b.Fatal(errs[0])
				}
				records += n
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(records), "ns/record")
		})
	}
}

// countingWriter counts the bytes written to it and discards them.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkParserText prints each of the largest sample logs as
// darshan-parser does by default (--base, with --show-incomplete). MB/s is
// log bytes read; out-MB/s is text bytes written.
func BenchmarkParserText(b *testing.B) {
	opts := darshan.ParserOptions{Base: true, ShowIncomplete: true}
	for _, lg := range largestLogs(b, 5) {
		b.Run(lg.name, func(b *testing.B) {
			b.SetBytes(int64(len(lg.data)))
			b.ReportAllocs()
			var out countingWriter
			for i := 0; i < b.N; i++ {
				if err := darshan.WriteParserText(&out, io.Discard, openBench(b, lg), opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.n)/1e6/b.Elapsed().Seconds(), "out-MB/s")
		})
	}
}
