package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPhases(t *testing.T) {
	// Intervals [0,2], [2.5,3], [3.6,4] and [24,26]: gaps 0.5, 0.6 and
	// 20 s, mean 7.03 and standard deviation 9.17, so gaps up to 16.2 s
	// are merged and the 20 s gap separates two phases.
	ops := []traceOp{
		{0, 1, 100, 0}, {0.5, 2, 200, 1}, // one interval [0, 2]
		{2.5, 3, 50, 0},                                           // gap 0.5
		{3.6, 4, 50, 1},                                           // gap 0.6
		{24, 25, 1000, 0}, {24, 26, 1000, 1}, {24.5, 24.6, 10, 1}, // gap 20
	}
	got := phasesOf("DXT_POSIX", ops)
	want := []Phase{
		// Rank 0: 1 + 0.5 = 1.5 s of I/O; rank 1: 1.5 + 0.4 = 1.9 s.
		{Module: "DXT_POSIX", Start: 0, End: 4, Bytes: 400, Operations: 4,
			FastestRank: 0, FastestTime: 1.5, SlowestRank: 1, SlowestTime: 1.9},
		{Module: "DXT_POSIX", Start: 24, End: 26, Bytes: 2010, Operations: 3,
			FastestRank: 0, FastestTime: 1, SlowestRank: 1, SlowestTime: 2.1},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if phasesOf("DXT_POSIX", nil) != nil {
		t.Error("phases of no operation")
	}
	// One operation: one phase.
	if got := phasesOf("DXT_MPIIO", []traceOp{{1, 2, 8, 3}}); len(got) != 1 || got[0].FastestRank != 3 || got[0].Bytes != 8 {
		t.Errorf("single operation: %+v", got)
	}
}
