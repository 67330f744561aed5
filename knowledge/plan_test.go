package knowledge

import (
	"bytes"
	"errors"
	"hash/fnv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

func planOf(t *testing.T, g *Graph, opts PlanOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WritePlan(&b, g, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPlanRoundTrip(t *testing.T) {
	w := newWorld()
	var g Graph
	// a -> b twice, a -> c once: the plan lists a's edges b first.
	accumulate(t, &g, w, w.chain(0, "1", "a", "b"))
	accumulate(t, &g, w, w.chain(0, "2", "a", "b"))
	accumulate(t, &g, w, w.chain(0, "3", "a", "c"))
	p, err := ReadPlan(planOf(t, &g, PlanOptions{Depth: 3}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Depth != 3 || len(p.Vertices) != 3 {
		t.Fatalf("plan depth %d with %d vertices, want 3 and 3", p.Depth, len(p.Vertices))
	}
	at := map[uint64]int{}
	for i, v := range p.Vertices {
		at[v.Key] = i
	}
	key := func(id int) int {
		i, ok := at[KeyHash(g.Vertices[id].VertexKey)]
		if !ok {
			t.Fatalf("vertex %d (%s) is not in the plan", id, g.Vertices[id].String())
		}
		return i
	}
	a := p.Vertices[key(0)]
	want := PlanVertex{
		Key: KeyHash(g.Vertices[0].VertexKey), Op: darshan.OpRead, Bytes: 80,
		Edges:   []PlanEdge{{To: key(1), Count: 2, Gap: 0.5}, {To: key(2), Count: 1, Gap: 0.5}},
		Extents: []Extent{{File: "/scratch/run_#/in_#.nc[0]", Offset: 1000, Length: 80}},
	}
	if d := cmp.Diff(want, a); d != "" {
		t.Errorf("vertex a (-want +got):\n%s", d)
	}
	if d, err := ReadPlan(planOf(t, &g, PlanOptions{})); err != nil || d.Depth != DefaultPlanDepth {
		t.Errorf("plan without a depth: %v, %v; want depth %d", d, err, DefaultPlanDepth)
	}
}

// The canonical text hashed into a plan key is the one the collector
// rebuilds in C (collector/c/plan.h).
func TestKeyHashText(t *testing.T) {
	k := VertexKey{Object: "/d/in_#.nc[0]:t", Module: darshan.ModPnetCDFVar, Op: darshan.OpRead, Offset: -1,
		Start: []int64{1, 0}, Count: []int64{1, 1000}}
	h := fnv.New64a()
	h.Write([]byte("/d/in_#.nc[0]:t\x006,1,-1,0;1,0;1,1000"))
	if got, want := KeyHash(k), h.Sum64(); got != want {
		t.Errorf("KeyHash = %#x, want %#x", got, want)
	}
	p := VertexKey{Object: "/d/x[0]", Module: darshan.ModPOSIX, Op: darshan.OpWrite, Offset: 4096, Length: 512}
	h.Reset()
	h.Write([]byte("/d/x[0]\x001,2,4096,512;;"))
	if got, want := KeyHash(p), h.Sum64(); got != want {
		t.Errorf("KeyHash(POSIX) = %#x, want %#x", got, want)
	}
}

func TestPlanCorrupt(t *testing.T) {
	w := newWorld()
	var g Graph
	accumulate(t, &g, w, w.chain(0, "1", "a", "b", "c"))
	good := planOf(t, &g, PlanOptions{})
	for name, edit := range map[string]func([]byte) []byte{
		"empty":     func(b []byte) []byte { return nil },
		"magic":     func(b []byte) []byte { b[0] = 'X'; return b },
		"version":   func(b []byte) []byte { b[8] = 9; return b },
		"truncated": func(b []byte) []byte { return b[:len(b)-8] },
		"checksum":  func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"vertices":  func(b []byte) []byte { b[24] = 200; return b },
	} {
		if _, err := ReadPlan(edit(bytes.Clone(good))); !errors.Is(err, ErrBadPlan) {
			t.Errorf("%s: error %v, want ErrBadPlan", name, err)
		}
	}
}

func FuzzReadPlan(f *testing.F) {
	w := newWorld()
	var g Graph
	if err := g.Accumulate([]darshan.AccessSequence{w.chain(0, "1", "a", "b", "c")}, w.lookup); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlan(&b, &g, PlanOptions{}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadPlan(data)
	})
}
