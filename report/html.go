package report

import (
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
)

// Assets of the HTML page: the template, our script and style sheet, and
// Apache ECharts (report/assets/echarts, refreshed by `make vendor-echarts`).
//
//go:embed assets/report.html.tmpl assets/graph.html.tmpl assets/tune.html.tmpl assets/report.css assets/report.js assets/echarts/echarts.min.js assets/echarts/SHA256SUMS
var assets embed.FS

// DefaultMaxPoints is the default bound on the elements the charts of an
// HTML report draw (bars and points of all charts together).
const DefaultMaxPoints = 200_000

// HTMLOptions configure HTML.
type HTMLOptions struct {
	// MaxPoints bounds the bars and points of the charts together; 0
	// means DefaultMaxPoints. Half goes to the timeline, a quarter each to
	// the transfer-size and spatiality charts. Traces with more operations
	// than a chart's share are aggregated into bins for that chart.
	MaxPoints int
	// Location is the time zone of printed times; nil means UTC.
	Location *time.Location
}

// pageTemplate is the template of the page, parsed on first use.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		"bytes": Bytes,
		"level": func(l analysis.Level) string { return strings.ToLower(l.String()) },
		"seconds": func(v float64) string {
			return fmt.Sprintf("%.4g s", v)
		},
		"quantity": quantity,
		"rank": func(r *int64) string {
			if r == nil {
				return ""
			}
			if *r < 0 {
				return "all ranks"
			}
			return fmt.Sprintf("rank %d", *r)
		},
		"join":      strings.Join,
		"percent":   func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) },
		"hasPrefix": strings.HasPrefix,
	}).ParseFS(assets, "assets/report.html.tmpl"))
})

// page is what the template renders.
type pageView struct {
	Rep      *analysis.Report
	Insights []analysis.Insight // most severe first
	Start    string
	End      string
	Trace    *traceData
	TraceErr string
	Data     pageData
	CSS      template.CSS
	App      template.JS
	ECharts  template.JS
	Version  string // of ECharts
}

// pageData is embedded as JSON for the page's script.
type pageData struct {
	Trace  *traceData       `json:"trace"`
	Phases []analysis.Phase `json:"phases"`
	Files  []analysis.File  `json:"files"`
	// Layers are the ranks and files each insight names, in the order of
	// pageView.Insights: what the charts highlight when it is selected.
	Layers []layer `json:"layers"`
}

// layer is what one insight names: its subjects' files and ranks.
type layer struct {
	Code     string         `json:"code"`
	Subjects []layerSubject `json:"subjects"`
}

// layerSubject selects operations: of File (any file when empty) by Rank
// (any rank when nil or negative, i.e. a shared record).
type layerSubject struct {
	File string `json:"file,omitempty"`
	Rank *int64 `json:"rank,omitempty"`
}

// layers returns the layer of each insight; subjects naming neither a file
// nor a rank are left out.
func layers(ins []analysis.Insight) []layer {
	out := make([]layer, len(ins))
	for i, in := range ins {
		out[i] = layer{Code: in.Code, Subjects: []layerSubject{}}
		for _, s := range in.Subjects {
			if s.File == "" && s.Rank == nil {
				continue
			}
			out[i].Subjects = append(out[i].Subjects, layerSubject{File: s.File, Rank: s.Rank})
		}
	}
	return out
}

// HTML writes one self-contained HTML page for rep: the job summary, the
// insights, and interactive charts (Apache ECharts, embedded) of the DXT
// traces — an operation timeline per rank, transfer sizes over time, file
// offsets by rank, the I/O phases of rep — and a sortable table of the
// files. Clicking an insight that names ranks or files highlights their
// operations in the charts. The traces are the operations rep.Trace kept, or when it is nil
// those of l, read from the log. Without traces (or with both nil) it
// charts the bytes per file. The
// page makes no network request. Text from the log is escaped; the chart
// data are embedded as JSON. Traces larger than opts.MaxPoints allows are
// aggregated in bins, which the page says.
func HTML(w io.Writer, rep *analysis.Report, l *darshan.Log, opts HTMLOptions) error {
	if opts.MaxPoints <= 0 {
		opts.MaxPoints = DefaultMaxPoints
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	p := pageView{Rep: rep, Insights: slices.Clone(rep.Insights)}
	slices.SortStableFunc(p.Insights, func(a, b analysis.Insight) int { return cmp.Compare(b.Level, a.Level) })
	p.Start = time.Unix(rep.Job.Start, 0).In(opts.Location).Format(time.DateTime + " MST")
	p.End = time.Unix(rep.Job.End, 0).In(opts.Location).Format(time.DateTime + " MST")
	var src segSource
	switch {
	case rep.Trace != nil:
		src = keptSegments(rep.Trace)
	case l != nil:
		src = logSegments(l)
	}
	if src != nil {
		tr, err := readTrace(src, opts.MaxPoints)
		if err != nil {
			p.TraceErr = err.Error()
		}
		if tr != nil && tr.Segments > 0 {
			p.Trace = tr
		}
	}
	p.Data = pageData{Trace: p.Trace, Phases: rep.Phases, Files: rep.Files, Layers: layers(p.Insights)}
	if p.Data.Phases == nil {
		p.Data.Phases = []analysis.Phase{}
	}
	if p.Data.Files == nil {
		p.Data.Files = []analysis.File{}
	}
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return err
	}
	app, err := assets.ReadFile("assets/report.js")
	if err != nil {
		return err
	}
	lib, err := assets.ReadFile("assets/echarts/echarts.min.js")
	if err != nil {
		return err
	}
	p.CSS, p.App, p.ECharts = template.CSS(css), template.JS(app), template.JS(lib)
	p.Version = echartsVersion()
	return pageTemplate().Execute(w, &p)
}

// ECharts returns the Apache ECharts library (echarts.min.js) that HTML
// pages embed, for servers that serve it as a file of their own.
func ECharts() []byte {
	b, err := assets.ReadFile("assets/echarts/echarts.min.js")
	if err != nil {
		panic("report: embedded echarts.min.js missing: " + err.Error())
	}
	return b
}

// echartsVersion returns the version of the embedded ECharts, from the
// first line of SHA256SUMS ("# echarts X.Y.Z").
func echartsVersion() string {
	b, err := assets.ReadFile("assets/echarts/SHA256SUMS")
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimPrefix(line, "# echarts ")
}

// traceData holds the chart data of the DXT traces, column by column
// (compact JSON). Operation kinds: 0 read, 1 write. Times are seconds
// since tracing started, rounded to the microsecond.
type traceData struct {
	Modules  []string `json:"modules"` // index: column "mod"
	Files    []string `json:"files"`   // index: column "file"
	Segments int64    `json:"segments"`
	RankMin  int64    `json:"rank_min"`
	RankMax  int64    `json:"rank_max"`
	TMin     float64  `json:"tmin"`
	TMax     float64  `json:"tmax"`
	MaxPts   int      `json:"max_points"`
	Timeline columns  `json:"timeline"`
	Sizes    columns  `json:"sizes"`
	Spatial  columns  `json:"spatial"`
}

// columns is the data of one chart. Exact: one element per operation
// (mod, kind, rank, file, t0 start, t1 end, off, size). Aggregated: one
// element per bin, with count operations of size total bytes; file is the
// file of all of them or -1; rank (not in size bins, which mix ranks) is
// the first rank of a group of group ranks; timeline bins span t0 (first start) to t1 (last end) with busy
// seconds of operations; size bins hold min, max and mean (size) sizes at
// their mean start time t0; offset bins start at off.
type columns struct {
	Exact bool      `json:"exact"`
	Note  string    `json:"note,omitempty"`
	Group int64     `json:"group"`
	Mod   []int32   `json:"mod,omitempty"`
	Kind  []int32   `json:"kind"`
	Rank  []int64   `json:"rank,omitempty"`
	File  []int32   `json:"file,omitempty"`
	T0    []float64 `json:"t0,omitempty"`
	T1    []float64 `json:"t1,omitempty"`
	Off   []int64   `json:"off,omitempty"`
	Size  []int64   `json:"size,omitempty"`
	Count []int64   `json:"count,omitempty"`
	Busy  []float64 `json:"busy,omitempty"`
	Min   []int64   `json:"min,omitempty"`
	Max   []int64   `json:"max,omitempty"`
}

// seg is one traced operation, kept while the trace is small.
type seg struct {
	start, end float64
	off, size  int64
	rank       int64
	file       int32
	mod, kind  uint8
}

var traceModules = []darshan.ModuleID{darshan.ModDXTPOSIX, darshan.ModDXTMPIIO}

// traceScan is the result of the first pass over the traces.
type traceScan struct {
	files    []string
	fileIdx  map[uint64]int32
	modUsed  [2]bool
	n        int64
	tmin     float64
	tmax     float64
	rankMin  int64
	rankMax  int64
	offMax   int64     // largest offset+length
	sizeMask [2]uint64 // bit b: an operation of log2 size class b
	raw      []seg     // every operation, while n <= rawCap
	rawCap   int
}

func sizeClass(n int64) int {
	if n <= 0 {
		return 0
	}
	return min(bits.Len64(uint64(n)), 63)
}

func us(t float64) float64 { return math.Round(t*1e6) / 1e6 }

// segFunc receives one traced operation: its rank, file (index into
// traceScan.files), module (index into traceModules) and kind.
type segFunc func(rank int64, file int32, mod, kind uint8, s *darshan.Segment)

// segSource calls fn for every traced operation, with file names resolved
// by file.
type segSource func(file func(id uint64, name func() (string, bool)) int32, fn segFunc) error

// logSegments is the source of the operations of the log l, decoded from
// its DXT modules.
func logSegments(l *darshan.Log) segSource {
	return func(file func(uint64, func() (string, bool)) int32, fn segFunc) error {
		for mi, m := range traceModules {
			err := l.Each(m, func(r *darshan.Record) error {
				if r.DXT == nil {
					return nil
				}
				fi := file(r.ID, func() (string, bool) { return l.RecordName(r.ID) })
				for i := range r.DXT.Reads {
					fn(r.Rank, fi, uint8(mi), 0, &r.DXT.Reads[i])
				}
				for i := range r.DXT.Writes {
					fn(r.Rank, fi, uint8(mi), 1, &r.DXT.Writes[i])
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// keptSegments is the source of the operations the analysis kept.
func keptSegments(t *analysis.Trace) segSource {
	return func(file func(uint64, func() (string, bool)) int32, fn segFunc) error {
		if t.Err != nil {
			return t.Err
		}
		var s darshan.Segment // reused: fn does not keep it
		for _, m := range t.Modules {
			mi := slices.Index(traceModules, m.Module)
			if mi < 0 {
				continue
			}
			for ri := range m.Runs {
				r := &m.Runs[ri]
				fi := file(r.Record, func() (string, bool) { return r.File, r.File != "" })
				kind := uint8(0)
				if r.Write {
					kind = 1
				}
				for i := range r.Len() {
					o := r.Op(i)
					s = darshan.Segment{Offset: o.Offset, Length: o.Bytes, Start: o.Start, End: o.End}
					fn(r.Rank, fi, uint8(mi), kind, &s)
				}
			}
		}
		return nil
	}
}

// readTrace reads the DXT traces of src into chart data of at most maxPts
// elements. It reads the traces once when they are small enough to draw
// every operation, twice otherwise (the second pass bins them).
func readTrace(src segSource, maxPts int) (*traceData, error) {
	tlBudget, ptBudget := maxPts/2, maxPts/4
	sc := &traceScan{fileIdx: map[uint64]int32{}, tmin: math.Inf(1), tmax: math.Inf(-1),
		rankMin: math.MaxInt64, rankMax: math.MinInt64, rawCap: tlBudget}
	err := src(sc.file, func(rank int64, fi int32, mod, kind uint8, s *darshan.Segment) {
		sc.modUsed[mod] = true
		sc.n++
		sc.tmin = min(sc.tmin, s.Start)
		sc.tmax = max(sc.tmax, s.End, s.Start)
		sc.rankMin = min(sc.rankMin, rank)
		sc.rankMax = max(sc.rankMax, rank)
		if s.Offset >= 0 {
			sc.offMax = max(sc.offMax, s.Offset+max(s.Length, 0))
		}
		sc.sizeMask[kind] |= 1 << sizeClass(s.Length)
		if sc.n <= int64(sc.rawCap) {
			sc.raw = append(sc.raw, seg{start: s.Start, end: s.End, off: s.Offset, size: s.Length,
				rank: rank, file: fi, mod: mod, kind: kind})
		} else {
			sc.raw = nil
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading the DXT traces: %w", err)
	}
	if sc.n == 0 {
		return nil, nil
	}
	td := &traceData{Files: sc.files, Segments: sc.n, RankMin: sc.rankMin, RankMax: sc.rankMax,
		TMin: us(sc.tmin), TMax: us(sc.tmax), MaxPts: maxPts}
	for _, m := range traceModules {
		td.Modules = append(td.Modules, m.String())
	}
	exactTL := sc.n <= int64(tlBudget)
	exactPt := sc.n <= int64(ptBudget)
	if exactTL {
		td.Timeline = exactColumns(sc.raw, true)
	}
	if exactPt {
		td.Sizes = exactColumns(sc.raw, false)
		td.Sizes.Mod, td.Sizes.T1 = nil, nil
		td.Spatial = exactColumns(sc.raw, false)
		td.Spatial.Mod, td.Spatial.T0, td.Spatial.T1 = nil, nil, nil
		// Operations without a recorded offset have no place here.
		td.Spatial = dropNoOffset(td.Spatial)
	}
	if exactTL && exactPt {
		return td, nil
	}
	ag := newAggregator(sc, tlBudget, ptBudget, !exactTL, !exactPt)
	err = src(sc.file, ag.add)
	if err != nil {
		return nil, fmt.Errorf("reading the DXT traces: %w", err)
	}
	if !exactTL {
		td.Timeline = ag.timeline()
	}
	if !exactPt {
		td.Sizes = ag.sizes()
		td.Spatial = ag.spatial()
	}
	return td, nil
}

// file returns the index of the file of record id, named by name (or
// "record id" when it has no name) when first seen.
func (sc *traceScan) file(id uint64, name func() (string, bool)) int32 {
	if i, ok := sc.fileIdx[id]; ok {
		return i
	}
	n, ok := name()
	if !ok {
		n = fmt.Sprintf("record %d", id)
	}
	i := int32(len(sc.files))
	sc.files = append(sc.files, n)
	sc.fileIdx[id] = i
	return i
}

func exactColumns(raw []seg, withEnd bool) columns {
	c := columns{Exact: true, Group: 1}
	n := len(raw)
	c.Mod, c.Kind, c.Rank, c.File = make([]int32, n), make([]int32, n), make([]int64, n), make([]int32, n)
	c.T0, c.Off, c.Size = make([]float64, n), make([]int64, n), make([]int64, n)
	if withEnd {
		c.T1 = make([]float64, n)
	}
	for i, s := range raw {
		c.Mod[i], c.Kind[i], c.Rank[i], c.File[i] = int32(s.mod), int32(s.kind), s.rank, s.file
		c.T0[i], c.Off[i], c.Size[i] = us(s.start), s.off, s.size
		if withEnd {
			c.T1[i] = us(s.end)
		}
	}
	return c
}

func dropNoOffset(c columns) columns {
	out := columns{Exact: true, Group: 1}
	for i := range c.Kind {
		if c.Off[i] < 0 {
			continue
		}
		out.Kind = append(out.Kind, c.Kind[i])
		out.Rank = append(out.Rank, c.Rank[i])
		out.File = append(out.File, c.File[i])
		out.Off = append(out.Off, c.Off[i])
		out.Size = append(out.Size, c.Size[i])
	}
	return out
}

// A bin of the timeline: operations of one module, kind and rank group in
// one time interval.
type tlBin struct {
	count, bytes int64
	t0, t1, busy float64
	file         int32 // -2 none yet, -1 several
}

type sizeBin struct {
	count, sum, lo, hi int64
	tsum               float64
	file               int32
}

type offBin struct {
	count, bytes int64
	file         int32
}

// aggregator bins the operations of a large trace in its second pass.
type aggregator struct {
	sc *traceScan
	// timeline: index ((mod*2+kind)*rows+row)*tlBins+bin
	tl         []tlBin
	tlRows     int64
	tlGroup    int64
	tlBins     int
	tlWidth    float64
	lanes      int
	laneOfMod  [2]int
	sz         []sizeBin // index (kind*classes+class)*szBins+bin
	szBins     int
	szWidth    float64
	classIdx   [2][64]int
	classes    int
	off        []offBin // index (kind*offRows+row)*offBins+bin
	offRows    int64
	offGroup   int64
	offBins    int
	offWidth   float64
	doTL, doPt bool
}

// rankGrouping splits ranks into rows of group ranks and each row (of
// lanes lanes) into bins so that rows*lanes*bins <= budget with at least
// minBins bins per row when possible.
func rankGrouping(nranks int64, lanes, budget, minBins int) (rows, group int64, bins int) {
	group = 1
	rows = nranks
	if rows*int64(lanes)*int64(minBins) > int64(budget) {
		group = (nranks*int64(lanes)*int64(minBins) + int64(budget) - 1) / int64(budget)
		rows = (nranks + group - 1) / group
	}
	bins = max(1, budget/int(rows*int64(lanes)))
	return rows, group, bins
}

func newAggregator(sc *traceScan, tlBudget, ptBudget int, doTL, doPt bool) *aggregator {
	ag := &aggregator{sc: sc, doTL: doTL, doPt: doPt}
	nranks := sc.rankMax - sc.rankMin + 1
	span := sc.tmax - sc.tmin
	if span <= 0 {
		span = 1e-6
	}
	if doTL {
		for m, used := range sc.modUsed {
			if used {
				ag.laneOfMod[m] = ag.lanes
				ag.lanes++
			}
		}
		ag.tlRows, ag.tlGroup, ag.tlBins = rankGrouping(nranks, ag.lanes*2, tlBudget, 16)
		ag.tlWidth = span / float64(ag.tlBins)
		ag.tl = make([]tlBin, int64(ag.lanes*2)*ag.tlRows*int64(ag.tlBins))
		for i := range ag.tl {
			ag.tl[i].file = -2
		}
	}
	if doPt {
		for k := range 2 {
			for c := range 64 {
				if sc.sizeMask[k]&(1<<c) != 0 {
					ag.classIdx[k][c] = ag.classes
					ag.classes++
				}
			}
		}
		ag.szBins = max(1, ptBudget/max(ag.classes, 1))
		ag.szWidth = span / float64(ag.szBins)
		ag.sz = make([]sizeBin, ag.classes*ag.szBins)
		for i := range ag.sz {
			ag.sz[i].file = -2
		}
		ag.offRows, ag.offGroup, ag.offBins = rankGrouping(nranks, 2, ptBudget, 16)
		ag.offWidth = float64(max(sc.offMax, 1)) / float64(ag.offBins)
		ag.off = make([]offBin, 2*ag.offRows*int64(ag.offBins))
		for i := range ag.off {
			ag.off[i].file = -2
		}
	}
	return ag
}

func binOf(v, lo, width float64, n int) int {
	b := int((v - lo) / width)
	return min(max(b, 0), n-1)
}

func mergeFile(cur, f int32) int32 {
	switch cur {
	case -2, f:
		return f
	}
	return -1
}

func (ag *aggregator) add(rank int64, file int32, mod, kind uint8, s *darshan.Segment) {
	sc := ag.sc
	r := rank - sc.rankMin
	if ag.doTL {
		lane := ag.laneOfMod[mod]*2 + int(kind)
		i := (int64(lane)*ag.tlRows+r/ag.tlGroup)*int64(ag.tlBins) + int64(binOf(s.Start, sc.tmin, ag.tlWidth, ag.tlBins))
		b := &ag.tl[i]
		if b.count == 0 {
			b.t0, b.t1 = s.Start, s.End
		} else {
			b.t0, b.t1 = min(b.t0, s.Start), max(b.t1, s.End)
		}
		b.count++
		b.bytes += s.Length
		b.busy += max(s.End-s.Start, 0)
		b.file = mergeFile(b.file, file)
	}
	if ag.doPt {
		c := ag.classIdx[kind][sizeClass(s.Length)]
		b := &ag.sz[c*ag.szBins+binOf(s.Start, sc.tmin, ag.szWidth, ag.szBins)]
		if b.count == 0 {
			b.lo, b.hi = s.Length, s.Length
		} else {
			b.lo, b.hi = min(b.lo, s.Length), max(b.hi, s.Length)
		}
		b.count++
		b.sum += s.Length
		b.tsum += s.Start
		b.file = mergeFile(b.file, file)
		if s.Offset >= 0 {
			o := &ag.off[(int64(kind)*ag.offRows+r/ag.offGroup)*int64(ag.offBins)+int64(binOf(float64(s.Offset), 0, ag.offWidth, ag.offBins))]
			o.count++
			o.bytes += s.Length
			o.file = mergeFile(o.file, file)
		}
	}
}

func (ag *aggregator) timeline() columns {
	c := columns{Group: ag.tlGroup}
	modOfLane := make([]int32, ag.lanes)
	for m, used := range ag.sc.modUsed {
		if used {
			modOfLane[ag.laneOfMod[m]] = int32(m)
		}
	}
	for i := range ag.tl {
		b := &ag.tl[i]
		if b.count == 0 {
			continue
		}
		lane := i / (int(ag.tlRows) * ag.tlBins)
		row := int64(i/ag.tlBins) % ag.tlRows
		c.Mod = append(c.Mod, modOfLane[lane/2])
		c.Kind = append(c.Kind, int32(lane%2))
		c.Rank = append(c.Rank, ag.sc.rankMin+row*ag.tlGroup)
		c.File = append(c.File, b.file)
		c.T0 = append(c.T0, us(b.t0))
		c.T1 = append(c.T1, us(b.t1))
		c.Size = append(c.Size, b.bytes)
		c.Count = append(c.Count, b.count)
		c.Busy = append(c.Busy, us(b.busy))
	}
	c.Note = fmt.Sprintf("%d operations aggregated into %d bars: one bar per %s, operation kind and time bin of %s; a bar spans the first start to the last end of its operations.",
		ag.sc.n, len(c.Kind), rankGroupText(ag.tlGroup), secondsText(ag.tlWidth))
	return c
}

func (ag *aggregator) sizes() columns {
	c := columns{Group: 1}
	for i := range ag.sz {
		b := &ag.sz[i]
		if b.count == 0 {
			continue
		}
		kind := 0
		if i/ag.szBins >= countBits(ag.sc.sizeMask[0]) {
			kind = 1
		}
		c.Kind = append(c.Kind, int32(kind))
		c.T0 = append(c.T0, us(b.tsum/float64(b.count)))
		c.Size = append(c.Size, b.sum/b.count)
		c.Min = append(c.Min, b.lo)
		c.Max = append(c.Max, b.hi)
		c.Count = append(c.Count, b.count)
		c.File = append(c.File, b.file)
	}
	c.Note = fmt.Sprintf("%d operations aggregated into %d points: one point per operation kind, power-of-two size class and time bin of %s, at the mean size and start time of its operations.",
		ag.sc.n, len(c.Kind), secondsText(ag.szWidth))
	return c
}

func (ag *aggregator) spatial() columns {
	c := columns{Group: ag.offGroup}
	var n int64
	for i := range ag.off {
		b := &ag.off[i]
		if b.count == 0 {
			continue
		}
		n += b.count
		row := int64(i/ag.offBins) % ag.offRows
		c.Kind = append(c.Kind, int32(int64(i/ag.offBins)/ag.offRows))
		c.Rank = append(c.Rank, ag.sc.rankMin+row*ag.offGroup)
		c.File = append(c.File, b.file)
		c.Off = append(c.Off, int64(float64(i%ag.offBins)*ag.offWidth))
		c.Size = append(c.Size, b.bytes)
		c.Count = append(c.Count, b.count)
	}
	c.Note = fmt.Sprintf("%d operations with an offset aggregated into %d points: one point per %s, operation kind and offset bin of %s.",
		n, len(c.Kind), rankGroupText(ag.offGroup), Bytes(int64(math.Ceil(ag.offWidth))))
	return c
}

func countBits(m uint64) int { return bits.OnesCount64(m) }

func rankGroupText(g int64) string {
	if g == 1 {
		return "rank"
	}
	return fmt.Sprintf("group of %d ranks", g)
}

func secondsText(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3g s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g µs", s*1e6)
}
