package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runsOf groups operations given as (rank, start, end, bytes) into one
// write run per rank of file 0, in the order given.
func runsOf(ops ...[4]float64) []traceRun {
	var runs []traceRun
	idx := map[int32]int{}
	for _, o := range ops {
		r := int32(o[0])
		i, ok := idx[r]
		if !ok {
			i = len(runs)
			idx[r] = i
			runs = append(runs, traceRun{rank: r, write: true})
		}
		runs[i].ops = append(runs[i].ops, traceOp{start: o[1], end: o[2], off: -1, bytes: int64(o[3])})
	}
	return runs
}

var approx = cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })

func TestPhases(t *testing.T) {
	// Intervals [0,2], [2.5,3], [3.6,4] and [24,26]: gaps 0.5, 0.6 and
	// 20 s, mean 7.03 and standard deviation 9.17, so gaps up to 16.2 s
	// are merged and the 20 s gap separates two phases.
	runs := runsOf(
		[4]float64{0, 0, 1, 100}, [4]float64{1, 0.5, 2, 200}, // one interval [0, 2]
		[4]float64{0, 2.5, 3, 50},                                                               // gap 0.5
		[4]float64{1, 3.6, 4, 50},                                                               // gap 0.6
		[4]float64{0, 24, 25, 1000}, [4]float64{1, 24.5, 24.6, 10}, [4]float64{1, 24, 26, 1000}, // gap 20; rank 1 out of order
	)
	got := phasesOf("DXT_POSIX", runs, straggling{2, 0.1})
	want := []Phase{
		// Rank 0: 1 + 0.5 = 1.5 s of I/O; rank 1: 1.5 + 0.4 = 1.9 s.
		{Module: "DXT_POSIX", Start: 0, End: 4, Bytes: 400, Operations: 4,
			FastestRank: 0, FastestTime: 1.5, SlowestRank: 1, SlowestTime: 1.9},
		{Module: "DXT_POSIX", Start: 24, End: 26, Bytes: 2010, Operations: 3,
			FastestRank: 0, FastestTime: 1, SlowestRank: 1, SlowestTime: 2.1},
	}
	if diff := cmp.Diff(want, got.phases, approx); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	// Medians are the lower middle values; rank 1 takes 2.1 s against
	// 1 s in the second phase: a straggler.
	if diff := cmp.Diff([]float64{1.5, 1}, got.median, approx); diff != "" {
		t.Errorf("medians (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]straggler{{phase: 1, rank: 1, time: 2.1}}, got.stragglers, approx, cmp.AllowUnexported(straggler{})); diff != "" {
		t.Errorf("stragglers (-want +got):\n%s", diff)
	}
	// Busy time is the union of a rank's intervals: rank 1's operation
	// [24.5, 24.6] lies inside [24, 26].
	if diff := cmp.Diff(map[int32]float64{0: 2.5, 1: 3.9}, got.busy, approx); diff != "" {
		t.Errorf("busy (-want +got):\n%s", diff)
	}
	if r := phasesOf("DXT_POSIX", nil, straggling{2, 0}); r.phases != nil {
		t.Error("phases of no operation")
	}
	// One operation: one phase.
	if got := phasesOf("DXT_MPIIO", runsOf([4]float64{3, 1, 2, 8}), straggling{2, 0}).phases; len(got) != 1 || got[0].FastestRank != 3 || got[0].Bytes != 8 {
		t.Errorf("single operation: %+v", got)
	}
}

func TestMergeRuns(t *testing.T) {
	runs := []*traceRun{
		{ops: []traceOp{{off: 0}, {off: 5}, {off: 9}}},
		{},
		{ops: []traceOp{{off: 1}, {off: 5}, {off: 20}}},
		{ops: []traceOp{{off: 3}}},
	}
	var got []int64
	mergeRuns(runs, func(o *traceOp) int64 { return o.off }, func(_ int, _ *traceRun, o *traceOp) { got = append(got, o.off) })
	if diff := cmp.Diff([]int64{0, 1, 3, 5, 5, 9, 20}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}
