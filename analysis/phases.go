package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/iolens/iolens/darshan"
)

// traceOp is one traced operation. Traces can hold tens of millions of
// operations, all kept in memory for the phases and the byte ranges, so it
// holds only what differs from one operation to the next; the rank, file
// and kind are those of its run.
type traceOp struct {
	start, end float64 // seconds since the process started tracing
	off        int64   // file offset, -1 when not recorded
	bytes      int64
}

// traceRun is the operations of one kind (reads or writes) of one DXT
// record: one file in one process, in the order they were issued.
type traceRun struct {
	ops    []traceOp
	rank   int32
	rank64 int64 // the record's rank, unconverted
	file   int32 // index into metrics.traceIDs
	write  bool
}

// traceSet is what the analysis keeps of one DXT module.
type traceSet struct {
	module darshan.ModuleID
	runs   []traceRun
	ops    int64
	// Bytes moved per rank, and per file by rank 0.
	rankBytes  map[int32]int64
	rank0Files map[int32]int64
	result     traceResult
}

// addTrace keeps the operations of a DXT record: one run for its writes
// and one for its reads, each allocated at its exact size.
func (m *metrics) addTrace(id darshan.ModuleID, r *darshan.Record) {
	ts := &m.traces[0]
	if id == darshan.ModDXTMPIIO {
		ts = &m.traces[1]
	}
	fi, ok := m.traceFiles[r.ID]
	if !ok {
		fi = int32(len(m.traceIDs))
		m.traceIDs = append(m.traceIDs, r.ID)
		m.traceFiles[r.ID] = fi
	}
	rank := int32(r.Rank)
	// The module's totals are those of its traced operations.
	ms := &m.mods[id]
	for k, segs := range [2][]darshan.Segment{r.DXT.Reads, r.DXT.Writes} {
		if len(segs) == 0 {
			continue
		}
		ops := make([]traceOp, len(segs))
		var b int64
		for i := range segs {
			s := &segs[i]
			ops[i] = traceOp{s.Start, s.End, s.Offset, s.Length}
			b += max(s.Length, 0)
			ms.time += max(s.End-s.Start, 0)
			m.traceBounds.add(r.Rank, s)
		}
		if k == 0 {
			ms.reads, ms.bytesR = ms.reads+int64(len(segs)), ms.bytesR+b
		} else {
			ms.writes, ms.bytesW = ms.writes+int64(len(segs)), ms.bytesW+b
		}
		ts.runs = append(ts.runs, traceRun{ops: ops, rank: rank, rank64: r.Rank, file: fi, write: k == 1})
		ts.ops += int64(len(ops))
		ts.rankBytes[rank] += b
		if rank == 0 {
			ts.rank0Files[fi] += b
		}
	}
}

func byStart(a, b traceOp) int { return cmp.Compare(a.start, b.start) }

// byStartOff orders operations by start time, then offset, end and size.
func byStartOff(a, b traceOp) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.off, b.off); c != 0 {
		return c
	}
	if c := cmp.Compare(a.end, b.end); c != 0 {
		return c
	}
	return cmp.Compare(a.bytes, b.bytes)
}

// mergeRuns calls fn (with the run's index in runs, the run and the
// operation) for the operations of runs in increasing order of key, each
// run being sorted by key already: a k-way merge, which needs no memory
// beyond one cursor per run.
func mergeRuns[K cmp.Ordered](runs []*traceRun, key func(*traceOp) K, fn func(int, *traceRun, *traceOp)) {
	type cursor struct {
		key K
		run int32
		pos int32
	}
	h := make([]cursor, 0, len(runs))
	less := func(a, b *cursor) bool { return a.key < b.key || a.key == b.key && a.run < b.run }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			c := l
			if r := l + 1; r < len(h) && less(&h[r], &h[l]) {
				c = r
			}
			if !less(&h[c], &h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i, r := range runs {
		if len(r.ops) > 0 {
			h = append(h, cursor{key(&r.ops[0]), int32(i), 0})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		c := &h[0]
		r := runs[c.run]
		fn(int(c.run), r, &r.ops[c.pos])
		c.pos++
		if int(c.pos) < len(r.ops) {
			c.key = key(&r.ops[c.pos])
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
}

// gapTolerance is the precision of gaps between intervals, in seconds:
// finer than the clocks of traced operations.
const gapTolerance = 1e-9

// traceResult is what the phases of one module find.
type traceResult struct {
	phases []Phase
	// median is the median I/O time of the ranks active in each phase
	// (the lower middle value for an even count).
	median []float64
	// stragglers are the ranks slow in a phase for the data they move
	// (see straggling).
	stragglers []straggler
	// busy is each rank's time inside traced operations (the union of
	// its operations' intervals).
	busy map[int32]float64
}

type straggler struct {
	phase int
	rank  int32
	time  float64
}

// straggling holds the thresholds of a straggler: a rank whose I/O time
// in a phase is above ratio times the median time of the phase's ranks
// and more than seconds above it, while its bandwidth (bytes / time) is
// below the median bandwidth divided by ratio — a rank slow because it
// moves more data is not a straggler but a sign of imbalance. Medians of
// an even count take the middle value on the fast side.
type straggling struct{ ratio, seconds float64 }

// phasesOf finds the I/O phases of one interface: the operations of all
// ranks are merged into intervals of activity, then intervals separated by
// a gap of at most the mean plus the standard deviation of all gaps are
// merged into phases (gaps within gapTolerance of the limit included, as
// rounding makes equal gaps differ slightly). Each phase gets its bytes, operations, the ranks
// with the least and the most I/O time in it, and the median time of its
// ranks; ranks far above the median are stragglers (st).
//
// Each run is sorted by start time first (in place; DXT lists operations
// as they were issued, so this is usually a check), then merged with the
// others: no copy of the operations is made.
func phasesOf(module string, runs []traceRun, st straggling) traceResult {
	res := traceResult{busy: map[int32]float64{}}
	var all []*traceRun
	for i := range runs {
		r := &runs[i]
		if len(r.ops) == 0 {
			continue
		}
		if !slices.IsSortedFunc(r.ops, byStart) {
			slices.SortFunc(r.ops, byStartOff)
		}
		all = append(all, r)
	}
	if len(all) == 0 {
		return res
	}
	// Intervals of activity, and the gaps between them; the busy time of
	// each rank on the way.
	type span struct{ start, end float64 }
	type rankSpan struct {
		span
		open bool
	}
	// Spans are as many as operations at most (and about as many when
	// operations do not overlap): presize, so that growing does not copy
	// them; they take half the memory of the operations.
	nops := 0
	for _, r := range all {
		nops += len(r.ops)
	}
	spans := make([]span, 0, nops)
	// The open span of each rank, found through its run: a run has one rank.
	slot := make(map[int32]int32)
	var cur []rankSpan
	runSlot := make([]int32, len(all))
	for i, r := range all {
		k, ok := slot[r.rank]
		if !ok {
			k = int32(len(cur))
			slot[r.rank] = k
			cur = append(cur, rankSpan{})
		}
		runSlot[i] = k
	}
	mergeRuns(all, func(o *traceOp) float64 { return o.start }, func(ri int, r *traceRun, o *traceOp) {
		end := max(o.end, o.start)
		if n := len(spans); n > 0 && o.start <= spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, end)
		} else {
			spans = append(spans, span{o.start, end})
		}
		rs := &cur[runSlot[ri]]
		switch {
		case !rs.open:
			rs.span, rs.open = span{o.start, end}, true
		case o.start <= rs.end:
			rs.end = max(rs.end, end)
		default:
			res.busy[r.rank] += rs.end - rs.start
			rs.span = span{o.start, end}
		}
	})
	for rank, k := range slot {
		res.busy[rank] += cur[k].end - cur[k].start
	}
	var sum, sumSq float64
	for i := 1; i < len(spans); i++ {
		g := spans[i].start - spans[i-1].end
		sum += g
		sumSq += g * g
	}
	// Rounding makes equal gaps differ in their last bits: a gap within
	// gapTolerance of the limit is under it.
	limit := gapTolerance
	if n := float64(len(spans) - 1); n > 0 {
		mean := sum / n
		limit += mean + math.Sqrt(max(sumSq/n-mean*mean, 0))
	}
	var phases []span
	for _, s := range spans {
		if n := len(phases); n > 0 && s.start-phases[n-1].end <= limit {
			phases[n-1].end = s.end
			continue
		}
		phases = append(phases, s)
	}
	spans = nil
	out := make([]Phase, len(phases))
	for i, s := range phases {
		out[i] = Phase{Module: module, Start: s.start, End: s.end}
	}
	// Each operation lies in exactly one phase, found by binary search;
	// a run's operations are sorted, so its phases only grow: one entry
	// per run and phase gathers its ranks' times.
	type entry struct {
		phase int
		rank  int32
		time  float64
		bytes int64
	}
	var entries []entry
	for _, r := range all {
		p := -1
		for i := range r.ops {
			o := &r.ops[i]
			if p < 0 || o.start > phases[p].end {
				// The first phase ending at or after the start: phases
				// are apart, so it is the one holding the operation.
				p, _ = slices.BinarySearchFunc(phases, o.start, func(s span, t float64) int { return cmp.Compare(s.end, t) })
				p = min(p, len(phases)-1) // only for a NaN start
				entries = append(entries, entry{phase: p, rank: r.rank})
			}
			e := &entries[len(entries)-1]
			e.time += max(o.end-o.start, 0)
			e.bytes += max(o.bytes, 0)
			out[p].Bytes += o.bytes
			out[p].Operations++
		}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if c := cmp.Compare(a.phase, b.phase); c != 0 {
			return c
		}
		return cmp.Compare(a.rank, b.rank)
	})
	// Merge the entries of one rank in one phase (its runs of several
	// files and kinds).
	n := 0
	for _, e := range entries {
		if n > 0 && entries[n-1].phase == e.phase && entries[n-1].rank == e.rank {
			entries[n-1].time += e.time
			entries[n-1].bytes += e.bytes
			continue
		}
		entries[n] = e
		n++
	}
	entries = entries[:n]
	res.median = make([]float64, len(out))
	var times, bws []float64
	bw := func(e *entry) float64 { return float64(e.bytes) / e.time }
	for i := 0; i < len(entries); {
		j := i
		for j < len(entries) && entries[j].phase == entries[i].phase {
			j++
		}
		ph := &out[entries[i].phase]
		ph.FastestRank, ph.SlowestRank = -1, -1
		times, bws = times[:0], bws[:0]
		for _, e := range entries[i:j] {
			if e.time > 0 {
				bws = append(bws, bw(&e))
			}
			if ph.FastestRank < 0 || e.time < ph.FastestTime {
				ph.FastestRank, ph.FastestTime = int64(e.rank), e.time
			}
			if ph.SlowestRank < 0 || e.time > ph.SlowestTime {
				ph.SlowestRank, ph.SlowestTime = int64(e.rank), e.time
			}
			times = append(times, e.time)
		}
		slices.Sort(times)
		slices.Sort(bws)
		med := times[(len(times)-1)/2]
		res.median[entries[i].phase] = med
		if len(times) > 1 && len(bws) > 0 {
			medBW := bws[len(bws)/2]
			for _, e := range entries[i:j] {
				if e.time > st.ratio*med && e.time-med > st.seconds && bw(&e) < medBW/st.ratio {
					res.stragglers = append(res.stragglers, straggler{phase: e.phase, rank: e.rank, time: e.time})
				}
			}
		}
		i = j
	}
	res.phases = out
	return res
}
