package analysis

import (
	"math"

	"github.com/iolens/iolens/darshan"
)

// Trace is the traced operations of DXT_POSIX and DXT_MPIIO the analysis
// kept, for renderers that draw them: the log's traces need not be decoded
// again.
type Trace struct {
	// Modules are DXT_POSIX then DXT_MPIIO, each present even when it
	// traced nothing.
	Modules []TraceModule
	// Err is the error of a DXT module that could not be read (its
	// operations are then incomplete), nil otherwise.
	Err error
	// Bounds of all operations: their count, the earliest start, the
	// latest start or end (seconds since tracing started), the lowest and
	// highest rank, and the largest offset plus length.
	Ops              int64
	TMin, TMax       float64
	RankMin, RankMax int64
	MaxOffset        int64
}

// TraceModule is the operations of one DXT module, one run per kind of
// each record, in the order of the log's records, reads before writes.
type TraceModule struct {
	Module darshan.ModuleID
	Runs   []TraceRun
}

// TraceRun is the reads or the writes of one DXT record: one file in one
// process, in order of start time.
type TraceRun struct {
	Rank   int64
	Record uint64 // the record id; File is its name, "" when the log has none
	File   string
	Write  bool
	ops    []traceOp
}

// TraceOp is one traced operation. Offset is -1 when not recorded.
type TraceOp struct {
	Start, End    float64 // seconds since the process started tracing
	Offset, Bytes int64
}

// Len returns the number of operations of r.
func (r *TraceRun) Len() int { return len(r.ops) }

// Op returns the operation i of r.
func (r *TraceRun) Op(i int) TraceOp {
	o := &r.ops[i]
	return TraceOp{o.start, o.end, o.off, o.bytes}
}

// traceBounds accumulates the bounds of a Trace as operations are added.
type traceBounds struct {
	ops              int64
	tmin, tmax       float64
	rankMin, rankMax int64
	maxOff           int64
}

func newTraceBounds() traceBounds {
	return traceBounds{tmin: math.Inf(1), tmax: math.Inf(-1), rankMin: math.MaxInt64, rankMax: math.MinInt64}
}

func (b *traceBounds) add(rank int64, s *darshan.Segment) {
	b.ops++
	b.tmin = min(b.tmin, s.Start)
	b.tmax = max(b.tmax, s.End, s.Start)
	b.rankMin = min(b.rankMin, rank)
	b.rankMax = max(b.rankMax, rank)
	if s.Offset >= 0 {
		b.maxOff = max(b.maxOff, s.Offset+max(s.Length, 0))
	}
}

// trace returns the operations m kept, which it hands over: m must not
// reorder them afterwards.
func (m *metrics) trace() *Trace {
	b := &m.traceBounds
	t := &Trace{Ops: b.ops, TMin: b.tmin, TMax: b.tmax, RankMin: b.rankMin, RankMax: b.rankMax, MaxOffset: b.maxOff,
		Err: m.traceErr}
	names := make([]string, len(m.traceIDs))
	for i, id := range m.traceIDs {
		names[i], _ = m.l.RecordName(id)
	}
	for i := range m.traces {
		ts := &m.traces[i]
		tm := TraceModule{Module: ts.module, Runs: make([]TraceRun, len(ts.runs))}
		for j := range ts.runs {
			r := &ts.runs[j]
			tm.Runs[j] = TraceRun{Rank: r.rank64, Record: m.traceIDs[r.file], File: names[r.file], Write: r.write, ops: r.ops}
		}
		t.Modules = append(t.Modules, tm)
	}
	return t
}
