package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
)

// evilName is a file name that would run script if a renderer pasted it
// into HTML.
const evilName = "/scratch/<script>alert(1)</script>.dat"

// memLog is an in-memory io.WriterAt.
type memLog struct{ b []byte }

func (m *memLog) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

// synthLog writes a log of ranks processes, each tracing ops DXT_POSIX
// operations (writes then reads, 64 KiB each at increasing offsets of
// one shared file, plus a few on evilName), and an MPI-IO trace on rank 0.
func synthLog(tb testing.TB, ranks, ops int) *darshan.Log {
	tb.Helper()
	var m memLog
	w := darshan.NewWriter(&m, darshan.WriterOptions{Fast: true})
	job := darshan.Job{UID: 1000, StartTime: 1700000000, EndTime: 1700000100, NProcs: int64(ranks), JobID: 7,
		Metadata: "lib_ver=3.5.0\nh=cb_nodes=2\n"}
	if err := w.WriteJob(job, "./app --out </td><b>x", []darshan.Mount{{Path: "/scratch", FSType: "lustre"}}); err != nil {
		tb.Fatal(err)
	}
	shared, evil := "/scratch/shared.dat", evilName
	names := []string{shared, evil}
	if err := w.WriteNames(func(yield func(uint64, string) bool) {
		for _, n := range names {
			if !yield(darshan.RecordID(n), n) {
				return
			}
		}
	}); err != nil {
		tb.Fatal(err)
	}
	const size = 64 << 10
	if err := w.BeginModule(darshan.ModDXTPOSIX); err != nil {
		tb.Fatal(err)
	}
	for r := range ranks {
		nw := ops / 2
		tr := &darshan.Trace{Hostname: fmt.Sprintf("node%d", r/2), ThreadIDs: true}
		tr.Writes = make([]darshan.Segment, 0, nw)
		tr.Reads = make([]darshan.Segment, 0, ops-nw)
		t := 0.001 * float64(r)
		for i := range nw {
			d := 0.0001 * (1 + float64((i*7+r)%5))
			if r == ranks-1 {
				d *= 3 // a slow rank
			}
			tr.Writes = append(tr.Writes, darshan.Segment{Offset: int64(r*nw+i) * size, Length: size, Start: t, End: t + d})
			t += d + 0.00005
		}
		t += 0.05
		for i := range ops - nw {
			d := 0.00008 * (1 + float64((i*3+r)%4))
			tr.Reads = append(tr.Reads, darshan.Segment{Offset: int64(((r+1)%ranks)*nw+i%nw) * size, Length: size >> (i % 4), Start: t, End: t + d})
			t += d + 0.00003
		}
		if err := w.WriteRecord(&darshan.Record{Module: darshan.ModDXTPOSIX, ID: darshan.RecordID(shared), Rank: int64(r), DXT: tr}); err != nil {
			tb.Fatal(err)
		}
	}
	ev := &darshan.Trace{Hostname: "node0", ThreadIDs: true,
		Writes: []darshan.Segment{{Offset: 0, Length: 100, Start: 0.01, End: 0.02}, {Offset: 100, Length: 100, Start: 0.03, End: 0.031}}}
	if err := w.WriteRecord(&darshan.Record{Module: darshan.ModDXTPOSIX, ID: darshan.RecordID(evil), Rank: 0, DXT: ev}); err != nil {
		tb.Fatal(err)
	}
	if err := w.BeginModule(darshan.ModDXTMPIIO); err != nil {
		tb.Fatal(err)
	}
	mp := &darshan.Trace{Hostname: "node0", ThreadIDs: true,
		Writes: []darshan.Segment{{Offset: -1, Length: 4 * size, Start: 0.0, End: 0.01}, {Offset: 4 * size, Length: 4 * size, Start: 0.011, End: 0.02}}}
	if err := w.WriteRecord(&darshan.Record{Module: darshan.ModDXTMPIIO, ID: darshan.RecordID(shared), Rank: 0, DXT: mp}); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	l, err := darshan.Open(bytes.NewReader(m.b), int64(len(m.b)), "synthetic.darshan")
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// synthReport is a report for synthLog with an insight naming evilName.
func synthReport(ranks int) *analysis.Report {
	rep := sampleReport()
	rep.Job.NProcs = int64(ranks)
	rep.Job.Exe = "./app --out </td><b>x"
	slow := int64(ranks - 1)
	rep.Insights = append(rep.Insights, analysis.Insight{Code: "D02", Level: analysis.LevelHigh,
		Message:  "Rank " + fmt.Sprint(slow) + " is a straggler writing " + evilName,
		Details:  []string{"file " + evilName},
		Subjects: []analysis.Subject{{File: evilName, Value: 200, Unit: "bytes"}, {Rank: &slow, Value: 1.5, Unit: "seconds"}}})
	rep.Phases = []analysis.Phase{
		{Module: "DXT_POSIX", Start: 0, End: 0.3, Bytes: 1 << 20, Operations: 100, FastestRank: 0, FastestTime: 0.1, SlowestRank: slow, SlowestTime: 0.3},
		{Module: "DXT_POSIX", Start: 0.35, End: 0.6, Bytes: 1 << 19, Operations: 100, FastestRank: 1, FastestTime: 0.1, SlowestRank: 0, SlowestTime: 0.2},
	}
	rep.Files = []analysis.File{
		{Name: "/scratch/shared.dat", Modules: []string{"POSIX", "MPI-IO"}, Ranks: ranks, Shared: true, BytesRead: 3 << 20, BytesWritten: 64 << 20, Reads: 2000, Writes: 2000, Time: 1.25},
		{Name: evilName, Modules: []string{"POSIX"}, Ranks: 1, BytesWritten: 200, Writes: 2, Time: 0.011},
		{Name: "/home/user/input.nml", Modules: []string{"STDIO"}, Ranks: 1, BytesRead: 4096, Reads: 1, Time: 0.001},
	}
	return rep
}

func writeHTML(t testing.TB, rep *analysis.Report, l *darshan.Log, opts HTMLOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, rep, l, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// pageData extracts the embedded JSON data of a page.
func embeddedData(t *testing.T, page string) map[string]json.RawMessage {
	t.Helper()
	const open = `<script type="application/json" id="iolens-data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("no data element")
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	var d map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rest[:j]), &d); err != nil {
		t.Fatalf("embedded data: %v", err)
	}
	return d
}

func echartsSource(t testing.TB) string {
	b, err := assets.ReadFile("assets/echarts/echarts.min.js")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withoutLibrary returns the page with the embedded ECharts removed:
// what remains is ours.
func withoutLibrary(t testing.TB, page string) string {
	lib := echartsSource(t)
	if strings.Count(page, lib) != 1 {
		t.Fatal("ECharts is not embedded exactly once")
	}
	return strings.Replace(page, lib, "", 1)
}

func TestHTMLSelfContained(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *darshan.Log
	}{{"dxt", synthLog(t, 4, 200)}, {"no trace", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			page := writeHTML(t, synthReport(4), tc.l, HTMLOptions{})
			ours := withoutLibrary(t, page)
			// No resource is fetched from anywhere: no src or href
			// with a URL, no stylesheet link, no CSS import or url().
			res := regexp.MustCompile(`(?i)(\bsrc|\bhref|\baction|\bposter)\s*=|<link\b|@import|url\(|<iframe|<object|<embed`)
			if m := res.FindAllString(ours, -1); m != nil {
				t.Errorf("page references resources: %q", m)
			}
			if m := regexp.MustCompile(`(?i)https?://`).FindAllString(ours, -1); m != nil {
				t.Errorf("page has URLs: %q", m)
			}
			// The library itself makes no requests either: the only
			// URLs in it are XML namespaces and license texts.
			for _, u := range regexp.MustCompile(`https?://[^"'\s)]*`).FindAllString(echartsSource(t), -1) {
				if !strings.HasPrefix(u, "http://www.w3.org/") && !strings.Contains(u, "LICENSE") {
					t.Errorf("ECharts refers to %s", u)
				}
			}
			if n := strings.Count(page, "<script"); n != 3 {
				t.Errorf("%d script elements, want 3", n)
			}
		})
	}
}

func TestHTMLEscapes(t *testing.T) {
	page := withoutLibrary(t, writeHTML(t, synthReport(4), synthLog(t, 4, 200), HTMLOptions{}))
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>x") {
		t.Fatal("untrusted text reached the page unescaped")
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;",         // insight and table text
		`\u003cscript\u003ealert(1)\u003c/script\u003e`, // JSON data
		"./app --out &lt;/td&gt;&lt;b&gt;x",
		`class="insight level-high"`, `class="insight level-warn"`, `class="insight level-ok"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Most severe first.
	if h, w, o := strings.Index(page, `data-code="M02"`), strings.Index(page, `data-code="P08"`), strings.Index(page, `data-code="P01"`); !(h < w && w < o) {
		t.Error("insights not ordered HIGH, WARN, OK")
	}
}

func TestHTMLExactTrace(t *testing.T) {
	page := writeHTML(t, synthReport(4), synthLog(t, 4, 1000), HTMLOptions{})
	var tr traceData
	if err := json.Unmarshal(embeddedData(t, page)["trace"], &tr); err != nil {
		t.Fatal(err)
	}
	const want = 4*1000 + 2 + 2
	if tr.Segments != want || len(tr.Timeline.Kind) != want || !tr.Timeline.Exact {
		t.Fatalf("segments %d, timeline %d (exact %v), want %d exact", tr.Segments, len(tr.Timeline.Kind), tr.Timeline.Exact, want)
	}
	if len(tr.Sizes.Kind) != want || len(tr.Spatial.Kind) != want-1 { // one MPI-IO write has no offset
		t.Errorf("sizes %d, spatial %d points", len(tr.Sizes.Kind), len(tr.Spatial.Kind))
	}
	if tr.RankMin != 0 || tr.RankMax != 3 || len(tr.Files) != 2 || tr.Modules[1] != "DXT_MPIIO" {
		t.Errorf("ranks %d-%d, files %q, modules %q", tr.RankMin, tr.RankMax, tr.Files, tr.Modules)
	}
	if strings.Contains(page, `class="note aggregated"`) {
		t.Error("small trace said to be aggregated")
	}
}

func TestHTMLAggregated(t *testing.T) {
	const maxPts = 2000
	page := writeHTML(t, synthReport(4), synthLog(t, 4, 5000), HTMLOptions{MaxPoints: maxPts})
	var tr traceData
	if err := json.Unmarshal(embeddedData(t, page)["trace"], &tr); err != nil {
		t.Fatal(err)
	}
	drawn := len(tr.Timeline.Kind) + len(tr.Sizes.Kind) + len(tr.Spatial.Kind)
	if tr.Timeline.Exact || tr.Sizes.Exact || drawn > maxPts || drawn < maxPts/20 {
		t.Fatalf("%d elements drawn (exact %v %v), want aggregated to at most %d", drawn, tr.Timeline.Exact, tr.Sizes.Exact, maxPts)
	}
	var ops, bytes int64
	for i := range tr.Timeline.Kind {
		ops += tr.Timeline.Count[i]
		bytes += tr.Timeline.Size[i]
	}
	var wantBytes int64
	noFile := func(uint64, func() (string, bool)) int32 { return 0 }
	logSegments(synthLog(t, 4, 5000))(noFile, func(_ int64, _ int32, _, _ uint8, s *darshan.Segment) { wantBytes += s.Length })
	if ops != tr.Segments || bytes != wantBytes {
		t.Errorf("timeline bins hold %d operations, %d bytes; want %d, %d", ops, bytes, tr.Segments, wantBytes)
	}
	var sizeOps int64
	for _, c := range tr.Sizes.Count {
		sizeOps += c
	}
	if sizeOps != tr.Segments {
		t.Errorf("size bins hold %d operations, want %d", sizeOps, tr.Segments)
	}
	if !strings.Contains(page, `class="note aggregated"`) || !strings.Contains(page, "aggregated into") {
		t.Error("the page does not say the trace was aggregated")
	}
}

// TestHTMLKeptTrace checks that the charts drawn from the operations the
// analysis kept are those drawn from the log, exact and aggregated.
func TestHTMLKeptTrace(t *testing.T) {
	for _, c := range []struct {
		ranks, ops, maxPts int
	}{{4, 1000, 0}, {4, 5000, 2000}, {300, 40, 4000}} {
		l := synthLog(t, c.ranks, c.ops)
		rep, err := analysis.Analyze(l, "synth.darshan", analysis.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Trace == nil || rep.Trace.Ops == 0 {
			t.Fatalf("%d ranks, %d operations: no trace kept", c.ranks, c.ops)
		}
		opts := HTMLOptions{MaxPoints: c.maxPts}
		kept := writeHTML(t, rep, nil, opts)
		noTrace := *rep
		noTrace.Trace = nil
		read := writeHTML(t, &noTrace, l, opts)
		if kept != read {
			t.Errorf("%d ranks, %d operations: the page from the kept trace differs from the page from the log:\nkept %s\nread %s",
				c.ranks, c.ops, embeddedData(t, kept)["trace"][:200], embeddedData(t, read)["trace"][:200])
		}
	}
}

func TestHTMLManyRanks(t *testing.T) {
	// More ranks than the budget allows rows: ranks are grouped.
	page := writeHTML(t, synthReport(300), synthLog(t, 300, 40), HTMLOptions{MaxPoints: 4000})
	var tr traceData
	if err := json.Unmarshal(embeddedData(t, page)["trace"], &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Timeline.Group < 2 || len(tr.Timeline.Kind) > 2000 {
		t.Errorf("timeline: group %d, %d bars", tr.Timeline.Group, len(tr.Timeline.Kind))
	}
}

func TestHTMLNoTrace(t *testing.T) {
	page := writeHTML(t, synthReport(4), nil, HTMLOptions{})
	if !strings.Contains(page, `id="no-trace"`) || !strings.Contains(page, `id="filebytes"`) {
		t.Error("no note on the missing traces or no per-file chart")
	}
	if string(embeddedData(t, page)["trace"]) != "null" {
		t.Error("trace data without a trace")
	}
	// An empty report renders too.
	writeHTML(t, &analysis.Report{}, nil, HTMLOptions{})
}

// TestEChartsVendored checks the embedded ECharts against the pinned
// checksums that `make vendor-echarts` verifies, and that its licenses are
// kept beside it.
func TestEChartsVendored(t *testing.T) {
	sums, err := os.ReadFile("assets/echarts/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	seen := map[string]bool{}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		f, err := os.Open(filepath.Join("assets/echarts", name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			t.Errorf("%s: sha256 %s, want %s", name, got, sum)
		}
		seen[name] = true
	}
	for _, n := range []string{"echarts.min.js", "LICENSE", "NOTICE", "LICENSE-zrender", "LICENSE-d3"} {
		if !seen[n] {
			t.Errorf("SHA256SUMS lacks %s", n)
		}
	}
	v := echartsVersion()
	if v == "" || !strings.Contains(echartsSource(t), `version:"`+v+`"`) {
		t.Errorf("embedded ECharts is not version %q", v)
	}
}

// benchLog is a synthetic log with n DXT segments over 64 ranks.
func benchLog(b *testing.B, n int) *darshan.Log {
	return synthLog(b, 64, n/64)
}

func BenchmarkHTML1M(b *testing.B) {
	l := benchLog(b, 1_000_000)
	rep := synthReport(64)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		var cw countWriter
		if err := HTML(&cw, rep, l, HTMLOptions{}); err != nil {
			b.Fatal(err)
		}
		size = int(cw)
	}
	b.ReportMetric(float64(size), "page-bytes")
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// TestHTMLLayers checks the data of the bottleneck layers: one per insight
// in the page's order, with the files and ranks of its subjects, and the
// insights marked with their index.
func TestHTMLLayers(t *testing.T) {
	rep := synthReport(4)
	page := writeHTML(t, rep, synthLog(t, 4, 5000), HTMLOptions{MaxPoints: 2000})
	var ls []layer
	if err := json.Unmarshal(embeddedData(t, page)["layers"], &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls) != len(rep.Insights) {
		t.Fatalf("%d layers for %d insights", len(ls), len(rep.Insights))
	}
	i := slices.IndexFunc(ls, func(l layer) bool { return l.Code == "D02" })
	if i < 0 || len(ls[i].Subjects) != 2 || ls[i].Subjects[0].File != evilName || ls[i].Subjects[1].Rank == nil || *ls[i].Subjects[1].Rank != 3 {
		t.Fatalf("layer of D02: %+v", ls)
	}
	if !strings.Contains(page, fmt.Sprintf(`data-code="D02" data-insight="%d"`, i)) {
		t.Error("the insight D02 does not carry the index of its layer")
	}
	// Aggregated size bins keep their file where they have one.
	var tr traceData
	if err := json.Unmarshal(embeddedData(t, page)["trace"], &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Sizes.Exact || len(tr.Sizes.File) != len(tr.Sizes.Kind) || !slices.ContainsFunc(tr.Sizes.File, func(f int32) bool { return f >= 0 }) {
		t.Errorf("aggregated size bins without files: %v", tr.Sizes.File)
	}
}
