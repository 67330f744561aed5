package knowledge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

func accumulate(t *testing.T, g *Graph, w *world, seqs ...darshan.AccessSequence) {
	t.Helper()
	if err := g.Accumulate(seqs, w.lookup); err != nil {
		t.Fatal(err)
	}
}

func TestAccumulateOneRun(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "20261125", "a", "b", "c"))
	want := &Graph{
		Runs: 1,
		Vertices: []Vertex{
			hv(0, "a", 1, ext(1000)),
			hv(1, "b", 1, ext(2000)),
			hv(2, "c", 1, ext(3000)),
		},
		Edges: []Edge{
			{From: 0, To: 1, Count: 1, Gap: 0.5, LastRun: 1},
			{From: 1, To: 2, Count: 1, Gap: 0.5, LastRun: 1},
		},
	}
	if d := cmp.Diff(want, &g, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
}

// shape returns the keys of the vertices and the ends of the edges.
func shape(g *Graph) (keys []string, edges [][2]int) {
	for _, v := range g.Vertices {
		keys = append(keys, v.VertexKey.String())
	}
	for _, e := range g.Edges {
		edges = append(edges, [2]int{e.From, e.To})
	}
	return keys, edges
}

func TestAccumulateSameRunTwice(t *testing.T) {
	w := newWorld()
	var once, twice Graph
	run := []darshan.AccessSequence{w.chain(0, "20261125", "a", "b", "c", "a"), w.chain(1, "20261125", "b", "c")}
	accumulate(t, &once, w, run...)
	accumulate(t, &twice, w, run...)
	// The same run again, on another day: other paths, other record ids,
	// the same logical names.
	accumulate(t, &twice, w, w.chain(0, "20261126", "a", "b", "c", "a"), w.chain(1, "20261126", "b", "c"))

	k1, e1 := shape(&once)
	k2, e2 := shape(&twice)
	if d := cmp.Diff(k1, k2); d != "" {
		t.Errorf("vertices differ (-once +twice):\n%s", d)
	}
	if d := cmp.Diff(e1, e2); d != "" {
		t.Errorf("edges differ (-once +twice):\n%s", d)
	}
	want := &Graph{
		Runs: 2,
		Vertices: []Vertex{
			hv(0, "a", 4, ext(1000), ext(4000)),
			hv(1, "b", 4, ext(1000), ext(2000)),
			hv(2, "c", 4, ext(2000), ext(3000)),
		},
		Edges: []Edge{
			{From: 0, To: 1, Count: 2, Gap: 1, LastRun: 2},
			{From: 1, To: 2, Count: 4, Gap: 2, LastRun: 2},
			{From: 2, To: 0, Count: 2, Gap: 1, LastRun: 2},
		},
	}
	if d := cmp.Diff(want, &twice, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
	for i := range once.Vertices {
		if once.Vertices[i].Visits*2 != twice.Vertices[i].Visits {
			t.Errorf("vertex %d: %d visits once, %d twice", i, once.Vertices[i].Visits, twice.Vertices[i].Visits)
		}
	}
	for i := range once.Edges {
		if once.Edges[i].Count*2 != twice.Edges[i].Count {
			t.Errorf("edge %d: count %d once, %d twice", i, once.Edges[i].Count, twice.Edges[i].Count)
		}
	}
}

func TestAccumulateDivergence(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "1", "a", "b", "c"))
	accumulate(t, &g, w, w.chain(0, "2", "a", "b", "x"))
	want := &Graph{
		Runs: 2,
		Vertices: []Vertex{
			hv(0, "a", 2, ext(1000)),
			hv(1, "b", 2, ext(2000)),
			hv(2, "c", 1, ext(3000)),
			hv(3, "x", 1, ext(3000)),
		},
		Edges: []Edge{
			{From: 0, To: 1, Count: 2, Gap: 1, LastRun: 2},
			{From: 1, To: 2, Count: 1, Gap: 0.5, LastRun: 1},
			{From: 1, To: 3, Count: 1, Gap: 0.5, LastRun: 2},
		},
	}
	if d := cmp.Diff(want, &g, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
	if got, want := g.Out(1), []Edge{want.Edges[2], want.Edges[1]}; !cmp.Equal(got, want) {
		t.Errorf("Out(1) = %v, want %v (tie broken by the later run)", got, want)
	}
}

func TestAccumulateRejoin(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "1", "a", "b", "c", "d"))
	accumulate(t, &g, w, w.chain(0, "2", "a", "x", "c", "d"))
	want := &Graph{
		Runs: 2,
		Vertices: []Vertex{
			hv(0, "a", 2, ext(1000)),
			hv(1, "b", 1, ext(2000)),
			hv(2, "c", 2, ext(3000)),
			hv(3, "d", 2, ext(4000)),
			hv(4, "x", 1, ext(2000)),
		},
		Edges: []Edge{
			{From: 0, To: 1, Count: 1, Gap: 0.5, LastRun: 1},
			{From: 1, To: 2, Count: 1, Gap: 0.5, LastRun: 1},
			{From: 2, To: 3, Count: 2, Gap: 1, LastRun: 2},
			{From: 0, To: 4, Count: 1, Gap: 0.5, LastRun: 2},
			{From: 4, To: 2, Count: 1, Gap: 0.5, LastRun: 2},
		},
	}
	if d := cmp.Diff(want, &g, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
}

func TestAccumulateRanksAreSeparatePaths(t *testing.T) {
	w := newWorld()
	var g Graph
	// Rank 1 comes first in the slice but rank 0 is taken first.
	accumulate(t, &g, w, w.chain(1, "1", "c", "d"), w.chain(0, "1", "a", "b"))
	want := &Graph{
		Runs: 1,
		Vertices: []Vertex{
			hv(0, "a", 1, ext(1000)),
			hv(1, "b", 1, ext(2000)),
			hv(2, "c", 1, ext(1000)),
			hv(3, "d", 1, ext(2000)),
		},
		Edges: []Edge{
			{From: 0, To: 1, Count: 1, Gap: 0.5, LastRun: 1},
			{From: 2, To: 3, Count: 1, Gap: 0.5, LastRun: 1},
		},
	}
	if d := cmp.Diff(want, &g, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
}

func TestAccumulateExtents(t *testing.T) {
	w := newWorld()
	f, g2 := inFile("1"), "/scratch/run_1/other_7.dat"
	seq := darshan.AccessSequence{Accesses: []darshan.Access{
		0: w.read(f, "a", 0, 10, 300, 0, 1),
		1: w.posix(darshan.OpRead, f, 0, 100, 50, 0.1, 0.2),
		2: w.posix(darshan.OpRead, f, 0, 150, 50, 0.2, 0.3),  // touches 1
		3: w.posix(darshan.OpRead, f, 0, 120, 10, 0.3, 0.4),  // inside 1
		4: w.posix(darshan.OpRead, f, 0, 500, 100, 0.4, 0.5), // apart
		5: w.posix(darshan.OpRead, g2, 4, 0, 64, 0.5, 0.6),   // child of a child
		6: w.posix(darshan.OpRead, f, 0, 900, 0, 0.6, 0.7),   // empty: ignored
		// A top-level POSIX access: a vertex whose extent is its own.
		7: w.posix(darshan.OpWrite, g2, -1, 4096, 1024, 2, 3),
	}}
	var g Graph
	accumulate(t, &g, w, seq)
	// The next run reads a different part under the same access.
	seq2 := darshan.AccessSequence{Accesses: []darshan.Access{
		w.read(inFile("2"), "a", 0, 10, 300, 0, 1),
		w.posix(darshan.OpRead, inFile("2"), 0, 200, 100, 0.1, 0.2),
	}}
	accumulate(t, &g, w, seq2)
	want := &Graph{
		Runs: 2,
		Vertices: []Vertex{
			{
				ID: 0,
				VertexKey: VertexKey{
					Object: "/scratch/run_#/in_#.nc[0]:a", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead,
					Start: []int64{0}, Count: []int64{10}, Offset: -1,
				},
				Visits: 2, Bytes: 600, Time: 2,
				Extents: []Extent{
					{File: "/scratch/run_#/in_#.nc[0]", Offset: 100, Length: 200},
					{File: "/scratch/run_#/in_#.nc[0]", Offset: 500, Length: 100},
					{File: "/scratch/run_#/other_#.dat[0]", Offset: 0, Length: 64},
				},
			},
			{
				ID: 1,
				VertexKey: VertexKey{
					Object: "/scratch/run_#/other_#.dat[0]", Module: darshan.ModPOSIX, Op: darshan.OpWrite,
					Offset: 4096, Length: 1024,
				},
				Visits: 1, Bytes: 1024, Time: 1,
				Extents: []Extent{{File: "/scratch/run_#/other_#.dat[0]", Offset: 4096, Length: 1024}},
			},
		},
		Edges: []Edge{{From: 0, To: 1, Count: 1, Gap: 1, LastRun: 1}},
	}
	if d := cmp.Diff(want, &g, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
}

func TestAccumulateExtentCap(t *testing.T) {
	w := newWorld()
	f := inFile("1")
	seq := darshan.AccessSequence{Accesses: []darshan.Access{w.read(f, "a", 0, 10, 8000, 0, 1)}}
	for i := range MaxExtents + 6 {
		// Every other 100 bytes, in reverse order.
		seq.Accesses = append(seq.Accesses, w.posix(darshan.OpRead, f, 0, int64(200*(MaxExtents+5-i)), 100, 0, 1))
	}
	var g Graph
	accumulate(t, &g, w, seq)
	v := g.Vertices[0]
	if len(v.Extents) != MaxExtents || !v.Truncated {
		t.Fatalf("%d extents, truncated %v; want %d, true", len(v.Extents), v.Truncated, MaxExtents)
	}
	if first, last := v.Extents[0], v.Extents[MaxExtents-1]; first.Offset != 0 || last.Offset != 200*(MaxExtents-1) {
		t.Errorf("kept extents from %d to %d, want the first %d from 0", first.Offset, last.Offset, MaxExtents)
	}
}

func TestAccumulateInvalid(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "1", "a", "b"))
	before := g
	before.Vertices = append([]Vertex(nil), g.Vertices...)
	before.Edges = append([]Edge(nil), g.Edges...)
	bad := w.chain(0, "2", "a", "b", "c")
	bad.Accesses[3].Parent = 5
	err := g.Accumulate([]darshan.AccessSequence{w.chain(1, "2", "a"), bad}, w.lookup)
	if err == nil || !strings.Contains(err.Error(), "rank 0, access 3: parent 5") {
		t.Fatalf("err = %v, want one about rank 0, access 3", err)
	}
	bad = w.chain(0, "2", "a")
	bad.Accesses[0].Op = 7
	if err := g.Accumulate([]darshan.AccessSequence{bad}, w.lookup); err == nil || !strings.Contains(err.Error(), "operation 7") {
		t.Fatalf("err = %v, want one about operation 7", err)
	}
	if d := cmp.Diff(&before, &g, graphOpts); d != "" {
		t.Errorf("a failed Accumulate changed the graph (-before +after):\n%s", d)
	}
}

// TestKeyCanonicalText pins the canonical text of keys, which the preload
// library computes too (collector/c/plan.h).
func TestKeyCanonicalText(t *testing.T) {
	for _, tt := range []struct {
		k    VertexKey
		want string
	}{
		{
			VertexKey{Object: "/d/in_#.nc[1]:temp", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, Start: []int64{0, 5}, Count: []int64{2, 5}, Offset: -1},
			"/d/in_#.nc[1]:temp\x00" + fmt.Sprint(int(darshan.ModPnetCDFVar)) + ",1,-1,0;0,5;2,5",
		},
		{
			VertexKey{Object: "/d/out_#.dat[0]", Module: darshan.ModPOSIX, Op: darshan.OpWrite, Offset: 4096, Length: 512},
			"/d/out_#.dat[0]\x00" + fmt.Sprint(int(darshan.ModPOSIX)) + ",2,4096,512;;",
		},
	} {
		if got := tt.k.id(); got != tt.want {
			t.Errorf("canonical text of %v = %q, want %q", tt.k, got, tt.want)
		}
	}
}

// Each rank names its files on its own, as the collector does in each
// process: two ranks that each read their own file of one pattern, the
// same way, make one path.
func TestAccumulateRanksNameTheirOwnFiles(t *testing.T) {
	w := newWorld()
	rankRead := func(rank int64) darshan.AccessSequence {
		f := fmt.Sprintf("/scratch/in_%04d.nc", rank)
		return darshan.AccessSequence{Rank: rank, Accesses: []darshan.Access{
			w.read(f, "a", 0, 10, 80, 0, 1),
			w.posix(darshan.OpRead, f, 0, 1000, 80, 0.25, 0.75),
			w.read(f, "b", 0, 10, 80, 1.5, 2.5),
		}}
	}
	var g Graph
	accumulate(t, &g, w, rankRead(0), rankRead(1))
	if len(g.Vertices) != 2 || len(g.Edges) != 1 || g.Edges[0].Count != 2 {
		t.Fatalf("graph %+v, want 2 vertices and one edge followed twice", g)
	}
	if got, want := g.Vertices[0].Object, "/scratch/in_#.nc[0]:a"; got != want {
		t.Errorf("object %q, want %q", got, want)
	}
	if got := g.Vertices[0].Extents; len(got) != 1 || got[0].File != "/scratch/in_#.nc[0]" {
		t.Errorf("extents %+v, want one in /scratch/in_#.nc[0]", got)
	}
}
