package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// traceInsights evaluates the rules on the DXT traces (D01–D06).
func (m *metrics) traceInsights(add addFunc, hasMPIIO bool) {
	var sets []*traceSet
	for i := range m.traces {
		if m.traces[i].ops > 0 {
			sets = append(sets, &m.traces[i])
		}
	}
	if len(sets) == 0 {
		return
	}
	m.manyPhases(add, sets)
	m.phaseStragglers(add, sets)
	// The workload of the ranks is the application's: MPI-IO when traced
	// (its POSIX operations are the aggregators'), else POSIX.
	work := sets[len(sets)-1]
	if !m.rank0Heavy(add, work, hasMPIIO) {
		m.unbalanced(add, work)
	}
	m.redundantRanges(add, sets)
	m.ioTime(add, sets)
}

// fileName returns the name of the traced file of index i.
func (m *metrics) fileName(i int32) string {
	id := m.traceIDs[i]
	if f := m.files[id]; f != nil {
		return f.name
	}
	if name, ok := m.l.RecordName(id); ok {
		return name
	}
	return "<" + strconv.FormatUint(id, 10) + ">"
}

func rankSubject(rank int32, v float64, unit string) Subject {
	r := int64(rank)
	return Subject{Rank: &r, Value: v, Unit: unit}
}

func secs(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " s" }

func fmtRatio(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// D01: too many I/O phases.
func (m *metrics) manyPhases(add addFunc, sets []*traceSet) {
	var worst *traceSet
	var details []string
	for _, ts := range sets {
		ph := ts.result.phases
		if int64(len(ph)) <= m.cfg.DXTMaxPhases {
			continue
		}
		if worst == nil || len(ph) > len(worst.result.phases) {
			worst = ts
		}
		var busy, gaps float64
		for i, p := range ph {
			busy += p.End - p.Start
			if i > 0 {
				gaps += p.Start - ph[i-1].End
			}
		}
		details = append(details, fmt.Sprintf("%s: %d phases from %s to %s, lasting %s on average, %s apart on average",
			ts.module.Info().Name, len(ph), secs(ph[0].Start), secs(ph[len(ph)-1].End),
			secs(busy/float64(len(ph))), secs(gaps/float64(len(ph)-1))))
	}
	if worst == nil {
		return
	}
	add(Insight{
		Code: "D01", Level: LevelWarn,
		Message: fmt.Sprintf("The traces show %d I/O phases in %s (more than %d): the job alternates between I/O and computation often",
			len(worst.result.phases), worst.module.Info().Name, m.cfg.DXTMaxPhases),
		Details:        details,
		Recommendation: "Group I/O into fewer, larger phases: keep results in memory and write them every few steps, or overlap the I/O with computation (non-blocking MPI-IO, the HDF5 asynchronous VOL connector)",
		Snippet:        snippetMPIIONonblocking,
	})
}

// D02: stragglers within phases.
func (m *metrics) phaseStragglers(add addFunc, sets []*traceSet) {
	excess := map[int32]float64{}
	var details []string
	phases, total := 0, 0
	type worstT struct {
		ts     *traceSet
		s      straggler
		excess float64
	}
	var worst *worstT
	for _, ts := range sets {
		res := &ts.result
		total += len(res.phases)
		last := -1
		for _, s := range res.stragglers {
			med := res.median[s.phase]
			excess[s.rank] += s.time - med
			if s.phase != last {
				phases++
				last = s.phase
			}
			if worst == nil || s.time-med > worst.excess {
				worst = &worstT{ts, s, s.time - med}
			}
		}
	}
	if worst == nil {
		return
	}
	subj := make([]Subject, 0, len(excess))
	for r, e := range excess {
		subj = append(subj, rankSubject(r, round2(e), "s above the phase median"))
	}
	res := &worst.ts.result
	p := res.phases[worst.s.phase]
	details = append(details, fmt.Sprintf("worst: rank %d in phase %d of %s (%s to %s): %s of I/O against a median of %s",
		worst.s.rank, worst.s.phase+1, worst.ts.module.Info().Name, secs(p.Start), secs(p.End), secs(worst.s.time), secs(res.median[worst.s.phase])))
	add(Insight{
		Code: "D02", Level: LevelHigh,
		Message: fmt.Sprintf("Stragglers in %d of %d I/O phases: %d rank(s) spent more than %s times the median I/O time of the phase's ranks, and the phase lasts until they finish",
			phases, total, len(excess), fmtRatio(m.cfg.DXTStragglerRatio)),
		Details:        details,
		Subjects:       topSubjects(subj),
		Recommendation: "Look at what sets the straggling ranks apart: more data than the others, a busy or failing node, storage targets shared with other files; balance the data among ranks and let MPI-IO collective calls spread the requests over aggregators",
		Snippet:        snippetLustreStripe,
	})
}

// D03: rank 0 moves most of the bytes. It reports whether it fired.
func (m *metrics) rank0Heavy(add addFunc, ts *traceSet, hasMPIIO bool) bool {
	if m.l.Job.NProcs <= 1 {
		return false
	}
	var total int64
	for _, b := range ts.rankBytes {
		total += b
	}
	r0 := ts.rankBytes[0]
	if total == 0 || ratio(r0, total) <= m.cfg.DXTRank0Share {
		return false
	}
	var subj []Subject
	for fi, b := range ts.rank0Files {
		if b > 0 {
			s := rankSubject(0, float64(b), "bytes")
			s.File = m.fileName(fi)
			subj = append(subj, s)
		}
	}
	slices.SortFunc(subj, func(a, b Subject) int { return strings.Compare(a.File, b.File) })
	rec := "Let every rank read and write its own part of the data instead of gathering it on rank 0"
	if hasMPIIO {
		rec += ": the job uses MPI-IO already, so open the files on all ranks and use collective calls"
	} else {
		rec += ", with MPI-IO collective calls (or HDF5 or PnetCDF on top of them) on a file shared by all ranks"
	}
	add(Insight{
		Code: "D03", Level: LevelHigh,
		Message: fmt.Sprintf("Rank 0 moves %s of the %s traced in %s (%s) while the job has %d processes",
			pct(r0, total), fmtBytes(total), ts.module.Info().Name, fmtBytes(r0), m.l.Job.NProcs),
		Subjects:       topSubjects(subj),
		Recommendation: rec,
		Snippet:        snippetMPIIOCollWrite,
	})
	return true
}

// D04: unbalanced bytes per rank.
func (m *metrics) unbalanced(add addFunc, ts *traceSet) {
	n := m.l.Job.NProcs
	if n <= 1 {
		return
	}
	var lo, hi, total int64
	lo = -1
	inRange := int64(0)
	for r, b := range ts.rankBytes {
		total += b
		hi = max(hi, b)
		if lo < 0 || b < lo {
			lo = b
		}
		if int64(r) >= 0 && int64(r) < n {
			inRange++
		}
	}
	idle := n - inRange
	if idle > 0 {
		lo = 0
	}
	if hi == 0 || ratio(hi-lo, hi) <= m.cfg.DXTImbalance {
		return
	}
	subj := make([]Subject, 0, len(ts.rankBytes))
	for r, b := range ts.rankBytes {
		subj = append(subj, rankSubject(r, float64(b), "bytes"))
	}
	var details []string
	if idle > 0 {
		details = append(details, fmt.Sprintf("%d of %d ranks have no traced operation", idle, n))
	}
	ranks := max(n, int64(len(ts.rankBytes)))
	add(Insight{
		Code: "D04", Level: LevelHigh,
		Message: fmt.Sprintf("Unbalanced workload: the ranks move from %s to %s each in %s (mean %s over %d ranks), an imbalance of %s",
			fmtBytes(lo), fmtBytes(hi), ts.module.Info().Name, fmtBytes(total/ranks), ranks, pct(hi-lo, hi)),
		Details:        details,
		Subjects:       topSubjects(subj),
		Recommendation: "Distribute the data evenly among the ranks (domain decomposition, or MPI-IO collective calls whose aggregators even out the requests), so that no rank waits for the most loaded one",
	})
}

// D05: byte ranges moved more than once. The offsets come from
// DXT_POSIX when it has any, else from DXT_MPIIO. Each run is sorted by
// offset (in place: the phases are done; by start time again at the end),
// then the runs of one file and kind are merged to measure the union of
// their ranges.
func (m *metrics) redundantRanges(add addFunc, sets []*traceSet) {
	var ts *traceSet
	for _, s := range sets {
		for i := range s.runs {
			if len(s.runs[i].ops) > 0 && s.runs[i].ops[0].off >= 0 {
				ts = s
				break
			}
		}
		if ts != nil {
			break
		}
	}
	if ts == nil {
		return
	}
	type key struct {
		file  int32
		write bool
	}
	groups := map[key][]*traceRun{}
	// The runs sorted here go back to the order of start time afterwards,
	// which the phases left and the report's Trace has.
	byOff := func(a, b traceOp) int { return cmp.Compare(a.off, b.off) }
	var sorted []*traceRun
	defer func() {
		for _, r := range sorted {
			slices.SortFunc(r.ops, byStartOff)
		}
	}()
	for i := range ts.runs {
		r := &ts.runs[i]
		if !slices.IsSortedFunc(r.ops, byOff) {
			slices.SortFunc(r.ops, byOff)
			sorted = append(sorted, r)
		}
		k := key{r.file, r.write}
		groups[k] = append(groups[k], r)
	}
	type fileRed struct {
		moved, againR, againW int64
	}
	red := map[int32]*fileRed{}
	for k, runs := range groups {
		var sum, union, end int64
		mergeRuns(runs, func(o *traceOp) int64 { return o.off }, func(_ int, _ *traceRun, o *traceOp) {
			if o.off < 0 || o.bytes <= 0 {
				return
			}
			sum += o.bytes
			e := o.off + o.bytes
			switch {
			case o.off >= end:
				union += o.bytes
				end = e
			case e > end:
				union += e - end
				end = e
			}
		})
		f := red[k.file]
		if f == nil {
			f = &fileRed{}
			red[k.file] = f
		}
		f.moved += sum
		if k.write {
			f.againW += sum - union
		} else {
			f.againR += sum - union
		}
	}
	var subj []Subject
	var againR, againW, moved int64
	for fi, f := range red {
		again := f.againR + f.againW
		if again == 0 || ratio(again, f.moved) <= m.cfg.DXTRedundant {
			continue
		}
		againR += f.againR
		againW += f.againW
		moved += f.moved
		subj = append(subj, Subject{File: m.fileName(fi), Value: float64(again), Unit: "bytes moved again"})
	}
	if len(subj) == 0 {
		return
	}
	slices.SortFunc(subj, func(a, b Subject) int { return strings.Compare(a.File, b.File) })
	add(Insight{
		Code: "D05", Level: LevelWarn,
		Message: fmt.Sprintf("Redundant traffic in the %s traces: %d file(s) had byte ranges accessed more than once: %s read again and %s written again, of %s moved to them",
			ts.module.Info().Name, len(subj), fmtBytes(againR), fmtBytes(againW), fmtBytes(moved)),
		Subjects:       topSubjects(subj),
		Recommendation: "Read data once and share it (read on one rank and broadcast, or cache it in memory) and write each region once, after it is final; overlapping requests of several ranks also serialise on file locks",
	})
}

// D06: the time each rank spends in traced I/O against the run time.
// With both modules traced, a rank's time is the larger of the two (its
// MPI-IO calls contain their POSIX calls).
func (m *metrics) ioTime(add addFunc, sets []*traceSet) {
	run := m.l.RunTime()
	if !(run > 0) {
		return
	}
	busy := map[int32]float64{}
	for _, ts := range sets {
		for r, t := range ts.result.busy {
			busy[r] = max(busy[r], t)
		}
	}
	if len(busy) == 0 {
		return
	}
	var sum, hi float64
	lo := -1.0
	var subj, over []Subject
	for r, t := range busy {
		sum += t
		hi = max(hi, t)
		if lo < 0 || t < lo {
			lo = t
		}
		s := rankSubject(r, round2(100*t/run), "% of run time")
		subj = append(subj, s)
		if t/run > m.cfg.DXTIOTime {
			over = append(over, s)
		}
	}
	share := func(t float64) string { return strconv.FormatFloat(100*t/run, 'f', 2, 64) + "%" }
	in := Insight{
		Code: "D06", Level: LevelInfo,
		Message: fmt.Sprintf("Ranks spend %s of the %s run in traced I/O on average (%d rank(s), from %s to %s)",
			share(sum/float64(len(busy))), secs(run), len(busy), share(lo), share(hi)),
		Subjects: topSubjects(subj),
	}
	if len(over) > 0 {
		in.Level = LevelHigh
		in.Message += fmt.Sprintf("; %d rank(s) spend more than %s of it in I/O", len(over), strconv.FormatFloat(100*m.cfg.DXTIOTime, 'f', -1, 64)+"%")
		in.Subjects = topSubjects(over)
		in.Recommendation = "I/O takes a large part of the run: make it cheaper (larger requests, collective I/O, fewer phases) or overlap it with computation (non-blocking MPI-IO, the HDF5 asynchronous VOL connector)"
		in.Snippet = snippetMPIIONonblocking
	}
	add(in)
}
