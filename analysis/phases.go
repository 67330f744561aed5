package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/iolens/iolens/darshan"
)

// traceOp is one traced operation, compact: phases keep every operation of
// a trace in memory.
type traceOp struct {
	start, end float64
	bytes      int64
	rank       int32
}

// addTrace keeps the operations of a DXT record for the phases.
func (m *metrics) addTrace(id darshan.ModuleID, r *darshan.Record) {
	ops := m.ops[id]
	for _, list := range [][]darshan.Segment{r.DXT.Writes, r.DXT.Reads} {
		for _, s := range list {
			ops = append(ops, traceOp{s.Start, s.End, s.Length, int32(r.Rank)})
		}
	}
	m.ops[id] = ops
}

// phasesOf finds the I/O phases of one interface: the operations of all
// ranks are merged into intervals of activity, then intervals separated by
// a gap of at most the mean plus the standard deviation of all gaps are
// merged into phases. Each phase gets its bytes, operations, and the ranks
// with the least and the most I/O time in it.
func phasesOf(module string, ops []traceOp) []Phase {
	if len(ops) == 0 {
		return nil
	}
	slices.SortFunc(ops, func(a, b traceOp) int { return cmp.Compare(a.start, b.start) })
	// Intervals of activity, and the gaps between them.
	type span struct{ start, end float64 }
	var spans []span
	for _, o := range ops {
		if n := len(spans); n > 0 && o.start <= spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, o.end)
			continue
		}
		spans = append(spans, span{o.start, o.end})
	}
	var sum, sumSq float64
	for i := 1; i < len(spans); i++ {
		g := spans[i].start - spans[i-1].end
		sum += g
		sumSq += g * g
	}
	limit := 0.0
	if n := float64(len(spans) - 1); n > 0 {
		mean := sum / n
		limit = mean + math.Sqrt(max(sumSq/n-mean*mean, 0))
	}
	var phases []span
	for _, s := range spans {
		if n := len(phases); n > 0 && s.start-phases[n-1].end <= limit {
			phases[n-1].end = s.end
			continue
		}
		phases = append(phases, s)
	}
	// Operations are sorted by start and phases by time: one pass assigns
	// each operation to its phase.
	out := make([]Phase, len(phases))
	p, times := 0, map[int32]float64{}
	flush := func() {
		ph := &out[p]
		ph.FastestRank, ph.SlowestRank = -1, -1
		ranks := make([]int32, 0, len(times))
		for r := range times {
			ranks = append(ranks, r)
		}
		slices.Sort(ranks)
		for _, r := range ranks {
			t := times[r]
			if ph.FastestRank < 0 || t < ph.FastestTime {
				ph.FastestRank, ph.FastestTime = int64(r), t
			}
			if ph.SlowestRank < 0 || t > ph.SlowestTime {
				ph.SlowestRank, ph.SlowestTime = int64(r), t
			}
		}
		clear(times)
	}
	for i, s := range phases {
		out[i] = Phase{Module: module, Start: s.start, End: s.end}
	}
	for _, o := range ops {
		for o.start > phases[p].end {
			flush()
			p++
		}
		out[p].Bytes += o.bytes
		out[p].Operations++
		times[o.rank] += o.end - o.start
	}
	flush()
	return out
}
