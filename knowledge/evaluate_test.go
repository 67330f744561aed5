package knowledge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

func TestEvaluate(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "1", "a", "b", "c", "d"))

	held := []darshan.AccessSequence{
		// Rank 1: x is unknown.
		w.chain(1, "2", "a", "x", "c", "d"),
		// Rank 0: as learned.
		w.chain(0, "2", "a", "b", "c", "d"),
	}
	got, err := Evaluate(&g, held, w.lookup, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0: after a, b and c the next access is the first prediction
	// (3 of 3); the next two accesses are the two predictions after a and
	// b (2+2), the last one is the prediction after c (1): 5 of 5.
	// Rank 1: after a, b and c are predicted for x and c (0 of 1, 1 of
	// 2); after x nothing is predicted (0 of 1, 0 of 2); after c, d is
	// (1 of 1, 1 of 1).
	want := Accuracy{
		K: 2, Ranks: 2, Accesses: 8, Unknown: 1,
		Positions: 6, Predicted: 5, Hits1: 4,
		Wanted: 10, HitsK: 7,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Evaluate (-want +got):\n%s", d)
	}
	if got.Depth1() != 4.0/6 || got.DepthK() != 0.7 {
		t.Errorf("Depth1() = %v, DepthK() = %v; want 2/3, 0.7", got.Depth1(), got.DepthK())
	}

	// Depth 1: the depth-k share is the depth-1 share.
	got, err = Evaluate(&g, held, w.lookup, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hits1 != 4 || got.HitsK != 4 || got.Wanted != 6 {
		t.Errorf("Evaluate at depth 1 = %+v, want 4 hits of 6 at both depths", got)
	}

	// Repeated accesses: one prediction matches one access only.
	var loop Graph
	accumulate(t, &loop, w, w.chain(0, "1", "a", "b"))
	got, err = Evaluate(&loop, []darshan.AccessSequence{w.chain(0, "2", "a", "b", "b")}, w.lookup, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Accuracy{K: 3, Ranks: 1, Accesses: 3, Positions: 2, Predicted: 1, Hits1: 1, Wanted: 3, HitsK: 1}); got != want {
		t.Errorf("Evaluate with a repeat = %+v, want %+v", got, want)
	}
}

func TestEvaluateErrors(t *testing.T) {
	w := newWorld()
	var g Graph
	if _, err := Evaluate(&g, nil, w.lookup, 0); err == nil {
		t.Error("depth 0 accepted")
	}
	bad := w.chain(0, "1", "a")
	bad.Accesses[1].Parent = 3
	if _, err := Evaluate(&g, []darshan.AccessSequence{bad}, w.lookup, 1); err == nil {
		t.Error("an invalid sequence accepted")
	}
	got, err := Evaluate(&g, nil, w.lookup, 1)
	if err != nil || got != (Accuracy{K: 1}) || got.Depth1() != 0 || got.DepthK() != 0 {
		t.Errorf("Evaluate of nothing = %+v, %v", got, err)
	}
}
