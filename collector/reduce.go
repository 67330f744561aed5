package collector

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/iolens/iolens/darshan"
)

// Shared-record reduction of MPI jobs.
//
// A record (module m, id) is shared when every rank of a complete MPI job
// has exactly one record of module m with that id. The ranks' copies are
// combined into one record of rank -1 with the per-counter rules of the
// Darshan runtime (sum, value of the highest rank, max, minimum non-zero
// start stamp, maximum end stamp, slowest operation, fastest and slowest
// rank, logical or, common-value merge, variance across ranks). Where the
// runtime's result depends on the order of its reduction tree the rules here
// are deterministic:
//
//   - fastest rank: the smallest read+write+meta time, ties to the lowest
//     rank; slowest rank: the largest, ties to the lowest rank;
//   - F_MAX_*_TIME with its size: the largest time, ties to the lowest rank;
//   - common values (ACCESSn / STRIDEn and their counts, the 11-value access
//     tuples of H5D and PNETCDF_VAR): the counts of equal values in all
//     ranks' top four are summed and the four largest counts kept, ties
//     ordered by value descending (tuples: by access size, then by the other
//     components, descending). The runtime merges pairwise along its
//     reduction tree, which can drop a value that would rank in the global
//     top four;
//   - variance: population variance over the ranks, accumulated rank by
//     rank with the runtime's pairwise update formula.

// reduceOp is how a counter of shared records is combined.
type reduceOp uint8

const (
	opNone     reduceOp = iota // not set by a span (handled by a group rule, or 0)
	opSum                      // sum over ranks
	opSumClamp                 // sum, a negative result becomes -1
	opFromIn                   // value of the highest rank
	opMax                      // maximum
	opMinNZ                    // smallest non-zero value, 0 if all are 0
	opMaxTS                    // maximum (end time stamps)
	opOr                       // 1 if any rank has 1, else 0
	opGroup                    // set by a maxtime, fastest, slowest, common or variance rule
)

// counterSpan applies op to the counters first..last (inclusive, in table
// order) of a module; names are given without the module prefix, last "" means
// first only.
type counterSpan struct {
	first, last string
	op          reduceOp
}

// reductionSpec is the reduction of one module, by counter name.
type reductionSpec struct {
	module darshan.ModuleID
	prefix string // counter name prefix, e.g. "POSIX"
	ints   []counterSpan
	floats []counterSpan
	// maxTime lists the directions ("READ", "WRITE") whose F_MAX_<d>_TIME
	// and MAX_<d>_TIME_SIZE are taken from the rank with the slowest
	// operation.
	maxTime []string
	// common lists the common-value sets ("ACCESS", "STRIDE"); tuple sets
	// have 11 values per slot (ACCESS, LENGTH_D1..5, STRIDE_D1..5).
	common []string
	tuple  bool
	// rankStats: FASTEST_RANK..., SLOWEST_RANK... and the two variances.
	fastSlow, variance bool
	fileRecID          bool // FileRecID from the highest rank
}

var timeSpans = []counterSpan{
	{"F_OPEN_START_TIMESTAMP", "F_CLOSE_START_TIMESTAMP", opMinNZ},
	{"F_OPEN_END_TIMESTAMP", "F_CLOSE_END_TIMESTAMP", opMaxTS},
	{"F_READ_TIME", "F_META_TIME", opSum},
}

func reductionSpecs() []reductionSpec {
	return []reductionSpec{
		{
			module: darshan.ModPOSIX, prefix: "POSIX",
			ints: []counterSpan{
				{"OPENS", "RENAME_TARGETS", opSumClamp},
				{"RENAMED_FROM", "MODE", opFromIn},
				{"BYTES_READ", "BYTES_WRITTEN", opSum},
				{"MAX_BYTE_READ", "MAX_BYTE_WRITTEN", opMax},
				{"CONSEC_READS", "MEM_NOT_ALIGNED", opSum},
				{"MEM_ALIGNMENT", "", opFromIn},
				{"FILE_NOT_ALIGNED", "", opSum},
				{"FILE_ALIGNMENT", "", opFromIn},
				{"SIZE_READ_0_100", "SIZE_WRITE_1G_PLUS", opSum},
			},
			floats:   timeSpans,
			maxTime:  []string{"READ", "WRITE"},
			common:   []string{"STRIDE", "ACCESS"},
			fastSlow: true, variance: true,
		},
		{
			module: darshan.ModMPIIO, prefix: "MPIIO",
			ints: []counterSpan{
				{"INDEP_OPENS", "VIEWS", opSum},
				{"MODE", "", opFromIn},
				{"BYTES_READ", "RW_SWITCHES", opSum},
				{"SIZE_READ_AGG_0_100", "SIZE_WRITE_AGG_1G_PLUS", opSum},
			},
			floats:   timeSpans,
			maxTime:  []string{"READ", "WRITE"},
			common:   []string{"ACCESS"},
			fastSlow: true, variance: true,
		},
		{
			module: darshan.ModH5F, prefix: "H5F",
			ints: []counterSpan{
				{"OPENS", "FLUSHES", opSum},
				{"USE_MPIIO", "", opOr},
			},
			floats: []counterSpan{
				{"F_OPEN_START_TIMESTAMP", "F_CLOSE_START_TIMESTAMP", opMinNZ},
				{"F_OPEN_END_TIMESTAMP", "F_CLOSE_END_TIMESTAMP", opMaxTS},
				{"F_META_TIME", "", opSum},
			},
		},
		{
			module: darshan.ModH5D, prefix: "H5D",
			ints: []counterSpan{
				{"OPENS", "POINT_SELECTS", opSum},
				{"SIZE_READ_AGG_0_100", "SIZE_WRITE_AGG_1G_PLUS", opSum},
				{"DATASPACE_NDIMS", "CHUNK_SIZE_D5", opFromIn},
				{"USE_MPIIO_COLLECTIVE", "USE_DEPRECATED", opOr},
			},
			floats:  timeSpans,
			maxTime: []string{"READ", "WRITE"},
			common:  []string{"ACCESS"}, tuple: true,
			fastSlow: true, variance: true, fileRecID: true,
		},
		{
			module: darshan.ModPnetCDFFile, prefix: "PNETCDF_FILE",
			ints: []counterSpan{{"CREATES", "WAIT_FAILURES", opSum}},
			floats: []counterSpan{
				{"F_OPEN_START_TIMESTAMP", "F_WAIT_START_TIMESTAMP", opMinNZ},
				{"F_OPEN_END_TIMESTAMP", "F_WAIT_END_TIMESTAMP", opMaxTS},
				{"F_META_TIME", "F_WAIT_TIME", opSum},
			},
		},
		{
			module: darshan.ModPnetCDFVar, prefix: "PNETCDF_VAR",
			ints: []counterSpan{
				{"OPENS", "BPUT_VARN", opSum},
				{"SIZE_READ_AGG_0_100", "SIZE_WRITE_AGG_1G_PLUS", opSum},
				{"NDIMS", "DATATYPE_SIZE", opFromIn},
				{"IS_RECORD_VAR", "", opOr},
			},
			floats:  timeSpans,
			maxTime: []string{"READ", "WRITE"},
			common:  []string{"ACCESS"}, tuple: true,
			fastSlow: true, variance: true, fileRecID: true,
		},
		{
			module: darshan.ModSTDIO, prefix: "STDIO",
			ints: []counterSpan{
				{"OPENS", "BYTES_READ", opSum},
				{"MAX_BYTE_READ", "MAX_BYTE_WRITTEN", opMax},
			},
			floats: []counterSpan{
				{"F_META_TIME", "F_READ_TIME", opSum},
				{"F_OPEN_START_TIMESTAMP", "F_READ_START_TIMESTAMP", opMinNZ},
				{"F_OPEN_END_TIMESTAMP", "F_READ_END_TIMESTAMP", opMaxTS},
			},
			fastSlow: true, variance: true,
		},
	}
}

// reduction is a reductionSpec resolved to counter indices.
type reduction struct {
	intOps, floatOps []reduceOp
	maxTime          []struct{ time, size int }
	common           []commonSet
	// Indices of the per-rank inputs and of the rank statistics; -1 when
	// the module has none.
	bytesRead, bytesWritten, readTime, writeTime, metaTime int
	fastRank, fastBytes, fastTime                          int
	slowRank, slowBytes, slowTime                          int
	varTime, varBytes                                      int
	fastSlow, variance, fileRecID                          bool
}

// commonSet locates the four slots of one common-value set: the counter
// indices of each slot's value components and of its count.
type commonSet struct {
	values [4][]int
	counts [4]int
}

// reductions holds the resolved reduction of every module that has one.
// It is resolved on first use.
var reductions = sync.OnceValue(func() map[darshan.ModuleID]*reduction {
	out := make(map[darshan.ModuleID]*reduction)
	specs := reductionSpecs()
	for i := range specs {
		r, err := resolve(&specs[i])
		if err != nil {
			panic(err)
		}
		out[specs[i].module] = r
	}
	return out
})

// resolve looks up the counters named by spec; every counter must be
// claimed by exactly one rule.
func resolve(spec *reductionSpec) (*reduction, error) {
	m := spec.module
	info := m.Info()
	r := &reduction{
		intOps:   make([]reduceOp, len(info.Counters)),
		floatOps: make([]reduceOp, len(info.FCounters)),
	}
	var err error
	idx := func(name string, float bool) int {
		full := spec.prefix + "_" + name
		i := m.CounterIndex(full)
		if float {
			i = m.FCounterIndex(full)
		}
		if i < 0 && err == nil {
			err = fmt.Errorf("reduction of %s: no counter %s", m, full)
		}
		return i
	}
	claim := func(ops []reduceOp, i int, o reduceOp) int {
		if i < 0 {
			return i
		}
		if ops[i] != opNone && err == nil {
			err = fmt.Errorf("reduction of %s: counter %d claimed twice", m, i)
		}
		ops[i] = o
		return i
	}
	spans := func(ops []reduceOp, list []counterSpan, float bool) {
		for _, s := range list {
			a := idx(s.first, float)
			b := a
			if s.last != "" {
				b = idx(s.last, float)
			}
			if a < 0 || b < a {
				if err == nil {
					err = fmt.Errorf("reduction of %s: bad counterSpan %s..%s", m, s.first, s.last)
				}
				continue
			}
			for i := a; i <= b; i++ {
				claim(ops, i, s.op)
			}
		}
	}
	spans(r.intOps, spec.ints, false)
	spans(r.floatOps, spec.floats, true)
	for _, d := range spec.maxTime {
		r.maxTime = append(r.maxTime, struct{ time, size int }{
			claim(r.floatOps, idx("F_MAX_"+d+"_TIME", true), opGroup),
			claim(r.intOps, idx("MAX_"+d+"_TIME_SIZE", false), opGroup),
		})
	}
	for _, set := range spec.common {
		var c commonSet
		for k := range 4 {
			slot := fmt.Sprintf("%s%d_", set, k+1)
			names := []string{slot + set}
			if spec.tuple {
				for _, kind := range []string{"LENGTH", "STRIDE"} {
					for d := 1; d <= 5; d++ {
						names = append(names, fmt.Sprintf("%s%s_D%d", slot, kind, d))
					}
				}
			}
			for _, n := range names {
				c.values[k] = append(c.values[k], claim(r.intOps, idx(n, false), opGroup))
			}
			c.counts[k] = claim(r.intOps, idx(slot+"COUNT", false), opGroup)
		}
		r.common = append(r.common, c)
	}
	r.bytesRead, r.bytesWritten = -1, -1
	r.readTime, r.writeTime, r.metaTime = -1, -1, -1
	r.fastRank, r.fastBytes, r.fastTime = -1, -1, -1
	r.slowRank, r.slowBytes, r.slowTime = -1, -1, -1
	r.varTime, r.varBytes = -1, -1
	if spec.fastSlow || spec.variance {
		r.bytesRead, r.bytesWritten = idx("BYTES_READ", false), idx("BYTES_WRITTEN", false)
		r.readTime, r.writeTime, r.metaTime = idx("F_READ_TIME", true), idx("F_WRITE_TIME", true), idx("F_META_TIME", true)
	}
	if spec.fastSlow {
		r.fastSlow = true
		r.fastRank = claim(r.intOps, idx("FASTEST_RANK", false), opGroup)
		r.fastBytes = claim(r.intOps, idx("FASTEST_RANK_BYTES", false), opGroup)
		r.fastTime = claim(r.floatOps, idx("F_FASTEST_RANK_TIME", true), opGroup)
		r.slowRank = claim(r.intOps, idx("SLOWEST_RANK", false), opGroup)
		r.slowBytes = claim(r.intOps, idx("SLOWEST_RANK_BYTES", false), opGroup)
		r.slowTime = claim(r.floatOps, idx("F_SLOWEST_RANK_TIME", true), opGroup)
	}
	if spec.variance {
		r.variance = true
		r.varTime = claim(r.floatOps, idx("F_VARIANCE_RANK_TIME", true), opGroup)
		r.varBytes = claim(r.floatOps, idx("F_VARIANCE_RANK_BYTES", true), opGroup)
	}
	r.fileRecID = spec.fileRecID
	if err == nil {
		for i, o := range r.intOps {
			if o == opNone {
				err = fmt.Errorf("reduction of %s: no rule for %s", m, info.Counters[i])
				break
			}
		}
	}
	if err == nil {
		for i, o := range r.floatOps {
			if o == opNone {
				err = fmt.Errorf("reduction of %s: no rule for %s", m, info.FCounters[i])
				break
			}
		}
	}
	return r, err
}

// reduce combines the copies of one shared record, recs[i] being the
// copy of rank i, into one record of rank -1.
func (r *reduction) reduce(recs []*darshan.Record) *darshan.Record {
	first, last := recs[0], recs[len(recs)-1]
	out := &darshan.Record{
		Module:    first.Module,
		ID:        first.ID,
		Rank:      -1,
		Counters:  make([]int64, len(r.intOps)),
		FCounters: make([]float64, len(r.floatOps)),
	}
	if r.fileRecID {
		out.FileRecID = last.FileRecID
	}
	for i, o := range r.intOps {
		v := last.Counters[i]
		switch o {
		case opSum, opSumClamp:
			v = 0
			for _, x := range recs {
				v += x.Counters[i]
			}
			if o == opSumClamp && v < 0 {
				v = -1
			}
		case opMax, opMaxTS:
			for _, x := range recs {
				v = max(v, x.Counters[i])
			}
		case opOr:
			v = 0
			for _, x := range recs {
				if x.Counters[i] == 1 {
					v = 1
				}
			}
		case opFromIn:
		default:
			continue
		}
		out.Counters[i] = v
	}
	for i, o := range r.floatOps {
		var v float64
		switch o {
		case opSum:
			for _, x := range recs {
				v += x.FCounters[i]
			}
		case opMax, opMaxTS:
			v = first.FCounters[i]
			for _, x := range recs[1:] {
				if x.FCounters[i] > v {
					v = x.FCounters[i]
				}
			}
		case opMinNZ:
			for _, x := range recs {
				if t := x.FCounters[i]; t > 0 && (v == 0 || t < v) {
					v = t
				}
			}
		case opFromIn:
			v = last.FCounters[i]
		default:
			continue
		}
		out.FCounters[i] = v
	}
	for _, mt := range r.maxTime {
		best := 0
		for k, x := range recs {
			if x.FCounters[mt.time] > recs[best].FCounters[mt.time] {
				best = k
			}
		}
		out.FCounters[mt.time] = recs[best].FCounters[mt.time]
		out.Counters[mt.size] = recs[best].Counters[mt.size]
	}
	for _, c := range r.common {
		mergeCommon(out, recs, &c)
	}
	if r.fastSlow || r.variance {
		r.rankStats(out, recs)
	}
	return out
}

// rankStats sets the fastest and slowest rank and the variances.
func (r *reduction) rankStats(out *darshan.Record, recs []*darshan.Record) {
	bytes := func(x *darshan.Record) int64 { return x.Counters[r.bytesRead] + x.Counters[r.bytesWritten] }
	secs := func(x *darshan.Record) float64 {
		return x.FCounters[r.readTime] + x.FCounters[r.writeTime] + x.FCounters[r.metaTime]
	}
	if r.fastSlow {
		fast, slow := 0, 0
		for k, x := range recs {
			t := secs(x)
			if t < secs(recs[fast]) {
				fast = k
			}
			if t > secs(recs[slow]) {
				slow = k
			}
		}
		out.Counters[r.fastRank], out.Counters[r.fastBytes] = int64(fast), bytes(recs[fast])
		out.FCounters[r.fastTime] = secs(recs[fast])
		out.Counters[r.slowRank], out.Counters[r.slowBytes] = int64(slow), bytes(recs[slow])
		out.FCounters[r.slowTime] = secs(recs[slow])
	}
	if r.variance {
		out.FCounters[r.varTime] = variance(recs, secs)
		out.FCounters[r.varBytes] = variance(recs, func(x *darshan.Record) float64 {
			return float64(x.Counters[r.bytesRead]) + float64(x.Counters[r.bytesWritten])
		})
	}
}

// variance returns the population variance of f over recs, adding one rank
// at a time with the pairwise update n = a.n + b.n, T = a.T + b.T,
// S = a.S + b.S + (b.n/a.n · a.T − b.T)² · a.n/(b.n·n), where a is the
// new rank (a.n = 1) and b the ranks before it. For two values the result
// is (x − y)²/4.
func variance(recs []*darshan.Record, f func(*darshan.Record) float64) float64 {
	var n, t, s float64
	for _, x := range recs {
		v := f(x)
		if n > 0 {
			d := n*v - t
			s += d * d / (n * (n + 1))
		}
		n++
		t += v
	}
	return s / n
}

// mergeCommon merges the common-value set c of recs into out (see the
// package comment of the reduction rules).
func mergeCommon(out *darshan.Record, recs []*darshan.Record, c *commonSet) {
	type entry struct {
		value []int64
		count int64
	}
	var list []entry
	for _, x := range recs {
		for k := range 4 {
			v := make([]int64, len(c.values[k]))
			for j, i := range c.values[k] {
				v[j] = x.Counters[i]
			}
			if v[0] == 0 {
				continue
			}
			n := x.Counters[c.counts[k]]
			if j := slices.IndexFunc(list, func(e entry) bool { return slices.Equal(e.value, v) }); j >= 0 {
				list[j].count += n
			} else {
				list = append(list, entry{v, n})
			}
		}
	}
	slices.SortStableFunc(list, func(a, b entry) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return slices.Compare(b.value, a.value)
	})
	for k := range 4 {
		var e entry
		if k < len(list) {
			e = list[k]
		}
		for j, i := range c.values[k] {
			if e.value != nil {
				out.Counters[i] = e.value[j]
			} else {
				out.Counters[i] = 0
			}
		}
		out.Counters[c.counts[k]] = e.count
	}
}

// orderModule returns the records of one module of a group in log order.
// byRank[i] holds the records of the group's i-th process in store order,
// with their ranks set. When shared is set (a complete MPI job, byRank[i]
// being rank i) and the module has a reduction, shared records are reduced:
// rank 0's own records by id, the shared records by id, then every other
// rank's own records by id. Otherwise the records keep rank and store
// order.
func orderModule(m darshan.ModuleID, byRank [][]*darshan.Record, shared bool) []*darshan.Record {
	red := reductions()[m]
	var ids map[uint64]bool
	if shared && red != nil && len(byRank) > 0 {
		ids = sharedIDs(byRank)
	}
	var out []*darshan.Record
	if len(ids) == 0 {
		for _, recs := range byRank {
			out = append(out, recs...)
		}
		return out
	}
	copies := make(map[uint64][]*darshan.Record, len(ids))
	for _, recs := range byRank {
		for _, r := range recs {
			if ids[r.ID] {
				copies[r.ID] = append(copies[r.ID], r)
			}
		}
	}
	sorted := slices.Sorted(maps.Keys(ids))
	for rank, recs := range byRank {
		own := slices.DeleteFunc(slices.Clone(recs), func(r *darshan.Record) bool { return ids[r.ID] })
		slices.SortStableFunc(own, func(a, b *darshan.Record) int { return cmp.Compare(a.ID, b.ID) })
		out = append(out, own...)
		if rank == 0 {
			for _, id := range sorted {
				out = append(out, red.reduce(copies[id]))
			}
		}
	}
	return out
}

// sharedIDs returns the ids that every rank has exactly one record of.
func sharedIDs(byRank [][]*darshan.Record) map[uint64]bool {
	count := make(map[uint64]int)
	for _, r := range byRank[0] {
		count[r.ID]++
	}
	for id, n := range count {
		if n != 1 {
			delete(count, id)
		}
	}
	for _, recs := range byRank[1:] {
		seen := make(map[uint64]int, len(recs))
		for _, r := range recs {
			seen[r.ID]++
		}
		for id := range count {
			if seen[id] != 1 {
				delete(count, id)
			}
		}
	}
	ids := make(map[uint64]bool, len(count))
	for id := range count {
		ids[id] = true
	}
	return ids
}

// stdStreams holds the ids of the standard streams, whose STDIO records
// are dropped when they have no reads and no writes.
var stdStreams = sync.OnceValue(func() map[uint64]bool {
	return map[uint64]bool{
		darshan.RecordID("<STDIN>"):  true,
		darshan.RecordID("<STDOUT>"): true,
		darshan.RecordID("<STDERR>"): true,
	}
})

// filterSTDIO drops the standard-stream STDIO records that have no reads
// and no writes, keeping the order of the others.
func filterSTDIO(recs []*darshan.Record) []*darshan.Record {
	reads := darshan.ModSTDIO.CounterIndex("STDIO_READS")
	writes := darshan.ModSTDIO.CounterIndex("STDIO_WRITES")
	return slices.DeleteFunc(recs, func(r *darshan.Record) bool {
		return stdStreams()[r.ID] && r.Counters[reads] == 0 && r.Counters[writes] == 0
	})
}

// Heatmaps.

// heatmapNames names the heatmap of each instrumented module.
var heatmapNames = map[darshan.ModuleID]string{
	darshan.ModPOSIX: "heatmap:POSIX",
	darshan.ModMPIIO: "heatmap:MPIIO",
	darshan.ModSTDIO: "heatmap:STDIO",
}

func heatmapName(m darshan.ModuleID) string {
	if n, ok := heatmapNames[m]; ok {
		return n
	}
	return "heatmap:" + m.String()
}

// outHeatmap is one heatmap being prepared for output.
type outHeatmap struct {
	rank        int64
	name        string
	width       float64 // seconds
	write, read []int64 // heatmapBins each
}

// collapse merges pairs of bins and doubles the width.
func (h *outHeatmap) collapse() {
	for _, b := range [][]int64{h.write, h.read} {
		for i := 0; i+1 < len(b); i += 2 {
			b[i/2] = b[i] + b[i+1]
		}
		clear(b[len(b)/2:])
	}
	h.width *= 2
}

// maxCollapses bounds the collapsing of one heatmap (the width doubles
// each time).
const maxCollapses = 64

// fitHeatmaps prepares the heatmaps of a group for output: each is
// collapsed while its span (200 bins) is shorter than its end time end
// (seconds since its process started; one for all, or one per heatmap);
// with common set (MPI jobs) all end with the same width (the largest, once
// all are within 0.1 % of it) and the same bin count. Bins are cut to
// ceil(end/width), at most 200, but never before the last non-zero bin.
// All-zero heatmaps must have been removed.
func fitHeatmaps(hms []*outHeatmap, ends []float64, common bool) {
	for i, h := range hms {
		for n := 0; n < maxCollapses && ends[i] > h.width*heatmapBins; n++ {
			h.collapse()
		}
	}
	if common && len(hms) > 0 {
		for range maxCollapses {
			w := 0.0
			for _, h := range hms {
				w = max(w, h.width)
			}
			changed := false
			for _, h := range hms {
				if h.width < w*(1-1e-3) {
					h.collapse()
					changed = true
				}
			}
			if !changed {
				break
			}
		}
		w, nbins := 0.0, 0
		for _, h := range hms {
			w = max(w, h.width)
		}
		for i, h := range hms {
			h.width = w
			nbins = max(nbins, binCount(h, ends[i]))
		}
		for _, h := range hms {
			h.write, h.read = h.write[:nbins], h.read[:nbins]
		}
		return
	}
	for i, h := range hms {
		n := binCount(h, ends[i])
		h.write, h.read = h.write[:n], h.read[:n]
	}
}

// binCount returns the number of bins to keep of h for an end time end.
func binCount(h *outHeatmap, end float64) int {
	n := heatmapBins
	if q := math.Ceil(end / h.width); q < heatmapBins {
		n = max(int(q), 0)
	}
	return min(max(n, usedBins(h.write, h.read)), heatmapBins)
}
