package knowledge

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

// literal returns a graph of n POSIX vertices, vertex i reading 100 bytes
// at 100*i of file "f[0]" (visited twice, 200 bytes in all), and edges.
func literal(n int, edges ...Edge) *Graph {
	g := &Graph{Runs: 3, Edges: edges}
	for i := range n {
		k := VertexKey{Object: "f[0]", Module: darshan.ModPOSIX, Op: darshan.OpRead, Offset: int64(100 * i), Length: 100}
		g.Vertices = append(g.Vertices, Vertex{
			ID: i, VertexKey: k, Visits: 2, Bytes: 200, Time: 0.1,
			Extents: []Extent{{File: "f[0]", Offset: k.Offset, Length: 100}},
		})
	}
	return g
}

// predicted returns the vertices of ps.
func predicted(ps []Prediction) []int {
	out := []int{}
	for _, p := range ps {
		out = append(out, p.Vertex)
	}
	return out
}

func TestPredictChain(t *testing.T) {
	g := literal(5,
		Edge{From: 0, To: 1, Count: 3, Gap: 3, LastRun: 3},
		Edge{From: 0, To: 2, Count: 1, Gap: 5, LastRun: 3},
		Edge{From: 1, To: 3, Count: 2, Gap: 1, LastRun: 3},
		Edge{From: 3, To: 4, Count: 4, Gap: 2, LastRun: 3},
	)
	m := NewMatcher(g)
	if !m.Observe(g.Vertices[0].VertexKey) {
		t.Fatal("vertex 0 is not known")
	}
	got := m.Predict(5, 0)
	want := []Prediction{
		{Step: 1, Vertex: 1, Key: g.Vertices[1].VertexKey, Bytes: 100, Extents: []Extent{{"f[0]", 100, 100}}, Gap: 1, Share: 0.75},
		{Step: 2, Vertex: 3, Key: g.Vertices[3].VertexKey, Bytes: 100, Extents: []Extent{{"f[0]", 300, 100}}, Gap: 0.5, Share: 1},
		{Step: 3, Vertex: 4, Key: g.Vertices[4].VertexKey, Bytes: 100, Extents: []Extent{{"f[0]", 400, 100}}, Gap: 0.5, Share: 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Predict(5, 0) (-want +got):\n%s", d)
	}
	if got := predicted(m.Predict(2, 0)); !cmp.Equal(got, []int{1, 3}) {
		t.Errorf("Predict(2, 0) = %v, want [1 3]", got)
	}
	// A prediction is a copy: changing it leaves the graph alone.
	got[0].Extents[0].Offset = 7
	got[0].Key.Object = "changed"
	if g.Vertices[1].Extents[0].Offset != 100 {
		t.Error("changing a prediction's extents changed the graph")
	}
}

func TestPredictTies(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edges []Edge
		want  int
	}{
		{"most visited", []Edge{{From: 0, To: 1, Count: 2, LastRun: 3}, {From: 0, To: 2, Count: 3, LastRun: 1}}, 2},
		{"most recent", []Edge{{From: 0, To: 1, Count: 2, LastRun: 1}, {From: 0, To: 2, Count: 2, LastRun: 3}}, 2},
		{"most recent first", []Edge{{From: 0, To: 2, Count: 2, LastRun: 3}, {From: 0, To: 1, Count: 2, LastRun: 1}}, 2},
		{"lower id", []Edge{{From: 0, To: 3, Count: 2, LastRun: 2}, {From: 0, To: 2, Count: 2, LastRun: 2}}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMatcher(literal(4, tt.edges...))
			m.ObserveVertex(0)
			if got := predicted(m.Predict(1, 0)); !cmp.Equal(got, []int{tt.want}) {
				t.Errorf("Predict(1, 0) = %v, want [%d]", got, tt.want)
			}
		})
	}
}

func TestPredictBudget(t *testing.T) {
	g := literal(4,
		Edge{From: 0, To: 1, Count: 1, LastRun: 1},
		Edge{From: 1, To: 2, Count: 1, LastRun: 1},
		Edge{From: 2, To: 3, Count: 1, LastRun: 1},
	)
	m := NewMatcher(g)
	m.ObserveVertex(0)
	// Each access moves 100 bytes on average.
	for budget, want := range map[int64][]int{
		0:   {1, 2, 3},
		99:  {},
		100: {1},
		250: {1, 2},
		300: {1, 2, 3},
		1e9: {1, 2, 3},
	} {
		if got := predicted(m.Predict(10, budget)); !cmp.Equal(got, want) {
			t.Errorf("Predict(10, %d) = %v, want %v", budget, got, want)
		}
	}
}

func TestPredictLoop(t *testing.T) {
	g := literal(3,
		Edge{From: 0, To: 1, Count: 5, LastRun: 1},
		Edge{From: 1, To: 2, Count: 5, LastRun: 1},
		Edge{From: 2, To: 1, Count: 4, LastRun: 1},
	)
	m := NewMatcher(g)
	m.ObserveVertex(0)
	if got, want := predicted(m.Predict(5, 0)), []int{1, 2, 1, 2, 1}; !cmp.Equal(got, want) {
		t.Errorf("Predict(5, 0) = %v, want %v", got, want)
	}
}

func TestMatcherSuffix(t *testing.T) {
	g := literal(5,
		Edge{From: 0, To: 1, Count: 1, LastRun: 1},
		Edge{From: 1, To: 2, Count: 1, LastRun: 1},
		Edge{From: 2, To: 3, Count: 1, LastRun: 1},
		Edge{From: 3, To: 4, Count: 1, LastRun: 1},
	)
	m := NewMatcher(g)
	if got := m.Predict(3, 0); got != nil {
		t.Errorf("Predict with nothing observed = %v, want nil", got)
	}
	unknown := VertexKey{Object: "g[0]", Module: darshan.ModPOSIX, Op: darshan.OpRead, Length: 100}
	steps := []struct {
		observe any // vertex id or key
		want    []int
		next    []int
	}{
		{0, []int{0}, []int{1, 2}},
		{1, []int{0, 1}, []int{2, 3}},
		{2, []int{0, 1, 2}, []int{3, 4}},
		// 4 does not follow 2: the suffix shrinks to 4 alone, which has
		// no successor.
		{4, []int{4}, []int{}},
		// 0 does not follow 4 either.
		{0, []int{0}, []int{1, 2}},
		{1, []int{0, 1}, []int{2, 3}},
		// An unknown access empties the suffix: no prediction.
		{unknown, []int{}, []int{}},
		{3, []int{3}, []int{4}},
		{4, []int{3, 4}, []int{}},
		{-1, []int{}, []int{}},
		{99, []int{}, []int{}},
	}
	for i, s := range steps {
		switch o := s.observe.(type) {
		case int:
			m.ObserveVertex(o)
		case VertexKey:
			if m.Observe(o) {
				t.Errorf("step %d: Observe(%v) reports a known vertex", i, o)
			}
		}
		if got := m.Suffix(); !cmp.Equal(got, s.want) && !(len(got) == 0 && len(s.want) == 0) {
			t.Errorf("step %d: after %v, Suffix() = %v, want %v", i, s.observe, got, s.want)
		}
		if m.Len() != len(s.want) {
			t.Errorf("step %d: Len() = %d, want %d", i, m.Len(), len(s.want))
		}
		if got := predicted(m.Predict(2, 0)); !cmp.Equal(got, s.next) {
			t.Errorf("step %d: after %v, Predict(2, 0) = %v, want %v", i, s.observe, got, s.next)
		}
	}
	if got := m.Predict(2, 0); got != nil {
		t.Errorf("Predict after an unknown access = %v, want nil", got)
	}
}

func TestMatcherLongSuffix(t *testing.T) {
	g := literal(1, Edge{From: 0, To: 0, Count: 1, LastRun: 1})
	m := NewMatcher(g)
	for range 1000 {
		m.ObserveVertex(0)
	}
	if m.Len() != 1000 || len(m.Suffix()) != maxWalk {
		t.Errorf("Len() = %d, len(Suffix()) = %d; want 1000, %d", m.Len(), len(m.Suffix()), maxWalk)
	}
	if got := fmt.Sprint(predicted(m.Predict(3, 0))); got != "[0 0 0]" {
		t.Errorf("Predict(3, 0) = %s, want [0 0 0]", got)
	}
}

// TestMatcherOnAccumulated predicts from a learned graph, with keys made
// by a Namer from a new run's accesses.
func TestMatcherOnAccumulated(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "1", "a", "b", "c"))
	accumulate(t, &g, w, w.chain(0, "2", "a", "b", "c"))
	accumulate(t, &g, w, w.chain(0, "3", "a", "x", "c"))
	live := w.chain(0, "4", "a")
	var n Namer
	m := NewMatcher(&g)
	if !m.Observe(n.Key(&live.Accesses[0], w.lookup)) {
		t.Fatal("the first read of a new run is not recognised")
	}
	got := m.Predict(2, 0)
	if len(got) != 2 || got[0].Key.Object != "/scratch/run_#/in_#.nc[0]:b" || got[1].Key.Object != "/scratch/run_#/in_#.nc[0]:c" {
		t.Fatalf("Predict(2, 0) = %+v, want b then c", got)
	}
	if got[0].Share != 2.0/3 || got[0].Gap != 0.5 || !cmp.Equal(got[0].Extents, []Extent{ext(2000)}) {
		t.Errorf("first prediction = %+v, want share 2/3, gap 0.5 and extent 2000+80", got[0])
	}
}
