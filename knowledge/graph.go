package knowledge

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/iolens/iolens/darshan"
)

// MaxExtents is the largest number of extents a vertex keeps. Extents are
// kept merged and sorted by file then offset; beyond MaxExtents, the later
// ones in that order are dropped and the vertex is marked truncated.
const MaxExtents = 64

// VertexKey identifies a distinct access: which logical object, through
// which module, in which direction, and which part of it.
type VertexKey struct {
	// Object is the logical name of what was accessed (see [Namer]): a
	// file ("/out/step_#.nc[0]") for POSIX, an object in a file
	// ("/out/step_#.nc[0]:temperature") for high-level modules.
	Object string
	// Module is darshan.ModPOSIX for a file extent, the high-level module
	// (darshan.ModPnetCDFVar, darshan.ModH5D) otherwise.
	Module darshan.ModuleID
	// Op is darshan.OpRead or darshan.OpWrite.
	Op darshan.Op
	// Start and Count are the bounding box of the selection of a
	// high-level access, in elements (nil for POSIX and for scalars).
	Start, Count []int64
	// Offset and Length are the extent of a POSIX access; for high-level
	// accesses they are -1 and 0.
	Offset, Length int64
}

// Equal reports whether k and o are the same key.
func (k VertexKey) Equal(o VertexKey) bool {
	return k.Object == o.Object && k.Module == o.Module && k.Op == o.Op &&
		k.Offset == o.Offset && k.Length == o.Length &&
		slices.Equal(k.Start, o.Start) && slices.Equal(k.Count, o.Count)
}

// String returns the key in a readable form, such as
// "read PNETCDF_VAR /in_#.nc[0]:t [0 0]+[10 20]" or
// "write POSIX /out_#.dat[1] @4096+1024".
func (k VertexKey) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v %s", k.Op, k.Module, k.Object)
	if k.Module == darshan.ModPOSIX {
		fmt.Fprintf(&b, " @%d+%d", k.Offset, k.Length)
	} else if len(k.Start) > 0 || len(k.Count) > 0 {
		fmt.Fprintf(&b, " %v+%v", k.Start, k.Count)
	}
	return b.String()
}

// id returns the canonical text of k, which identifies it in maps. It is
// also what KeyHash hashes, and the preload library builds the same text
// (collector/c/plan.h): its format must not change.
func (k *VertexKey) id() string {
	b := make([]byte, 0, len(k.Object)+16+20*(2+len(k.Start)+len(k.Count)))
	b = append(b, k.Object...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(k.Module), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(k.Op), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, k.Offset, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, k.Length, 10)
	for _, s := range [][]int64{k.Start, k.Count} {
		b = append(b, ';')
		for i, x := range s {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, x, 10)
		}
	}
	return string(b)
}

func (k VertexKey) clone() VertexKey {
	k.Start = slices.Clone(k.Start)
	k.Count = slices.Clone(k.Count)
	return k
}

// Extent is a byte range of a file.
type Extent struct {
	File   string `json:"file"` // logical file name (see [Namer])
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
}

// Vertex is a distinct access of an application and what the runs that
// made it have in common.
type Vertex struct {
	// ID is the vertex's index in Graph.Vertices.
	ID int
	// VertexKey is what the access is.
	VertexKey
	// Visits is how many times the access was made, over all runs and
	// ranks.
	Visits int64
	// Bytes is the total of the bytes the visits moved.
	Bytes int64
	// Time is the total of the visits' durations, in seconds.
	Time float64
	// Extents are the file extents the access touched: for a high-level
	// access, the POSIX extents made on its behalf; for a POSIX access, its
	// own extent. They are merged, sorted by file then offset, and at most
	// MaxExtents are kept.
	Extents []Extent
	// Truncated is set when extents beyond MaxExtents were dropped.
	Truncated bool
}

// MeanBytes returns the bytes one visit moves on average (0 when never
// visited).
func (v *Vertex) MeanBytes() int64 {
	if v.Visits <= 0 {
		return 0
	}
	return v.Bytes / v.Visits
}

// Edge says that access To followed access From on a rank.
type Edge struct {
	// From and To are vertex ids.
	From, To int
	// Count is how many times To followed From.
	Count int64
	// Gap is the total, over those times, of the idle time between the end
	// of From and the start of To, in seconds (a negative gap, when To began
	// before From ended, counts as 0).
	Gap float64
	// LastRun is the number of the last run (1 for the first one, see
	// Graph.Runs) in which To followed From.
	LastRun int64
}

// MeanGap returns the mean idle time between From and To, in seconds.
func (e *Edge) MeanGap() float64 {
	if e.Count <= 0 {
		return 0
	}
	return e.Gap / float64(e.Count)
}

// Graph is the accumulation graph of one application: the accesses its
// runs made (vertices) and the order they made them in (edges).
//
// Vertices and Edges are listed in the order they were first seen, and a
// vertex's ID is its index. Read them freely but change a Graph only with
// [Graph.Accumulate]. The zero Graph is an empty graph ready to use; a
// Graph is not safe for concurrent use.
type Graph struct {
	// Runs is the number of runs accumulated.
	Runs int64
	// Vertices are the distinct accesses; Vertices[i].ID is i.
	Vertices []Vertex
	// Edges are the transitions between accesses; there is at most one
	// edge from a vertex to another.
	Edges []Edge

	byKey  map[string]int // key id -> vertex id
	byEdge map[[2]int]int // (from, to) -> edge index
	out    [][]int        // vertex id -> indices of its out-edges

	// touchedV and touchedE are the vertices and edges changed since the
	// graph was loaded from a repository, which Repo writes back.
	touchedV, touchedE map[int]bool
}

// index builds the lookup tables if they do not match the graph.
func (g *Graph) index() {
	if g.byKey != nil && len(g.byKey) == len(g.Vertices) && len(g.byEdge) == len(g.Edges) && len(g.out) == len(g.Vertices) {
		return
	}
	g.byKey = make(map[string]int, len(g.Vertices))
	for i := range g.Vertices {
		g.byKey[g.Vertices[i].id()] = i
	}
	g.byEdge = make(map[[2]int]int, len(g.Edges))
	g.out = make([][]int, len(g.Vertices))
	for i, e := range g.Edges {
		g.byEdge[[2]int{e.From, e.To}] = i
		if e.From >= 0 && e.From < len(g.out) {
			g.out[e.From] = append(g.out[e.From], i)
		}
	}
}

// Lookup returns the id of the vertex with key k.
func (g *Graph) Lookup(k VertexKey) (int, bool) {
	g.index()
	id, ok := g.byKey[k.id()]
	return id, ok
}

// byKeyID returns the id of the vertex whose key id is kid.
func (g *Graph) byKeyID(kid string) (int, bool) {
	g.index()
	id, ok := g.byKey[kid]
	return id, ok
}

// EdgeBetween returns the edge from vertex from to vertex to.
func (g *Graph) EdgeBetween(from, to int) (Edge, bool) {
	g.index()
	i, ok := g.byEdge[[2]int{from, to}]
	if !ok {
		return Edge{}, false
	}
	return g.Edges[i], true
}

// Out returns the out-edges of vertex id, most preferred first: the most
// followed, then the most recently followed (highest LastRun), then the one
// to the lowest vertex id.
func (g *Graph) Out(id int) []Edge {
	g.index()
	if id < 0 || id >= len(g.out) {
		return nil
	}
	out := make([]Edge, len(g.out[id]))
	for i, e := range g.out[id] {
		out[i] = g.Edges[e]
	}
	slices.SortFunc(out, preferEdge)
	return out
}

// preferEdge orders edges most preferred first.
func preferEdge(a, b Edge) int {
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	if c := cmp.Compare(b.LastRun, a.LastRun); c != 0 {
		return c
	}
	return cmp.Compare(a.To, b.To)
}

// best returns the index of the preferred out-edge of vertex id, or -1.
func (g *Graph) best(id int) int {
	g.index()
	if id < 0 || id >= len(g.out) {
		return -1
	}
	best := -1
	for _, e := range g.out[id] {
		if best < 0 || preferEdge(g.Edges[e], g.Edges[best]) < 0 {
			best = e
		}
	}
	return best
}

// step is one top-level access of a rank's path.
type step struct {
	key        VertexKey
	kid        string
	bytes      int64
	time       float64
	start, end float64
	extents    []Extent // normalized
	truncated  bool     // extents were dropped by normalization
}

// path is the sequence of top-level accesses of one rank.
type path struct {
	rank  int64
	steps []step
}

// paths turns the access sequences of one run into one path per rank, in
// increasing rank order, naming the records with one Namer per rank.
func paths(seqs []darshan.AccessSequence, names func(id uint64) (string, bool)) ([]path, error) {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(seqs[a].Rank, seqs[b].Rank) })
	out := make([]path, 0, len(seqs))
	for _, si := range order {
		// Each rank names its files on its own, as the collector's
		// prefetch thread does in each process: ranks that each read
		// their own file of one pattern share the logical name.
		var n Namer
		fileName := func(id uint64) string {
			if names != nil {
				if p, ok := names(id); ok && p != "" {
					return n.File(p)
				}
			}
			return unnamed(id)
		}
		s := &seqs[si]
		p := path{rank: s.Rank}
		stepOf := make([]int, len(s.Accesses)) // access index -> step index, or -1
		for i := range s.Accesses {
			a := &s.Accesses[i]
			stepOf[i] = -1
			if a.Op != darshan.OpRead && a.Op != darshan.OpWrite {
				return nil, fmt.Errorf("rank %d, access %d: operation %d is neither read nor write", s.Rank, i, a.Op)
			}
			if a.Parent < -1 || a.Parent >= i {
				return nil, fmt.Errorf("rank %d, access %d: parent %d is not an earlier access", s.Rank, i, a.Parent)
			}
			if a.Parent >= 0 {
				root := a.Parent
				for s.Accesses[root].Parent >= 0 {
					root = s.Accesses[root].Parent
				}
				if a.Module == darshan.ModPOSIX && a.Offset >= 0 && a.Length > 0 {
					id := a.File
					if id == 0 {
						id = a.ID
					}
					st := &p.steps[stepOf[root]]
					st.extents = append(st.extents, Extent{File: fileName(id), Offset: a.Offset, Length: a.Length})
				}
				continue
			}
			k := n.Key(a, names)
			st := step{key: k, kid: k.id(), bytes: max(a.Length, 0), time: max(a.EndTime-a.StartTime, 0), start: a.StartTime, end: a.EndTime}
			if a.Module == darshan.ModPOSIX && a.Offset >= 0 && a.Length > 0 {
				st.extents = []Extent{{File: k.Object, Offset: a.Offset, Length: a.Length}}
			}
			stepOf[i] = len(p.steps)
			p.steps = append(p.steps, st)
		}
		for i := range p.steps {
			p.steps[i].extents, p.steps[i].truncated = normalizeExtents(p.steps[i].extents)
		}
		out = append(out, p)
	}
	return out, nil
}

// normalizeExtents sorts x by file then offset, merges the extents that
// overlap or touch, and keeps at most MaxExtents of them; it reports whether
// some were dropped. It reuses x's storage.
func normalizeExtents(x []Extent) ([]Extent, bool) {
	if len(x) == 0 {
		return nil, false
	}
	slices.SortFunc(x, func(a, b Extent) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.Length, b.Length))
	})
	out := x[:1]
	for _, e := range x[1:] {
		last := &out[len(out)-1]
		if e.File == last.File && e.Offset <= last.Offset+last.Length {
			last.Length = max(last.Length, e.Offset+e.Length-last.Offset)
			continue
		}
		out = append(out, e)
	}
	if len(out) > MaxExtents {
		return out[:MaxExtents:MaxExtents], true
	}
	return out, false
}

// Accumulate adds one run of the application to the graph: seqs are its
// access sequences (one per rank) and names gives the names of its records
// (such as (*darshan.Log).RecordName; nil when none are known). Runs is
// incremented.
//
// The top-level accesses of each rank (those with Parent -1) form a path:
// every access becomes, or visits again, the vertex of its key (see
// [Namer.Key]), and every two consecutive ones the edge between their
// vertices. Accesses with a parent are not on the path: the POSIX ones add
// their extents to the vertex of their top-level ancestor, the others are
// ignored. Ranks are taken in increasing rank order, so the ids of new
// vertices and the order of new edges depend only on the run.
//
// An invalid sequence (an unknown operation, a parent that is not an
// earlier access) is an error and leaves the graph unchanged.
func (g *Graph) Accumulate(seqs []darshan.AccessSequence, names func(id uint64) (string, bool)) error {
	ps, err := paths(seqs, names)
	if err != nil {
		return fmt.Errorf("accumulate run %d: %w", g.Runs+1, err)
	}
	g.apply(ps)
	return nil
}

// apply adds the paths of one run to the graph.
func (g *Graph) apply(ps []path) {
	g.index()
	if g.touchedV == nil {
		g.touchedV, g.touchedE = make(map[int]bool), make(map[int]bool)
	}
	g.Runs++
	run := g.Runs
	for _, p := range ps {
		prev := -1
		var prevEnd float64
		for i := range p.steps {
			st := &p.steps[i]
			v, ok := g.byKey[st.kid]
			if !ok {
				v = len(g.Vertices)
				g.Vertices = append(g.Vertices, Vertex{ID: v, VertexKey: st.key.clone()})
				g.byKey[st.kid] = v
				g.out = append(g.out, nil)
			}
			vx := &g.Vertices[v]
			vx.Visits++
			vx.Bytes += st.bytes
			vx.Time += st.time
			if len(st.extents) > 0 {
				var dropped bool
				vx.Extents, dropped = normalizeExtents(append(slices.Clone(vx.Extents), st.extents...))
				vx.Truncated = vx.Truncated || dropped
			}
			vx.Truncated = vx.Truncated || st.truncated
			g.touchedV[v] = true
			if prev >= 0 {
				ei, ok := g.byEdge[[2]int{prev, v}]
				if !ok {
					ei = len(g.Edges)
					g.Edges = append(g.Edges, Edge{From: prev, To: v})
					g.byEdge[[2]int{prev, v}] = ei
					g.out[prev] = append(g.out[prev], ei)
				}
				e := &g.Edges[ei]
				e.Count++
				e.Gap += max(st.start-prevEnd, 0)
				e.LastRun = run
				g.touchedE[ei] = true
			}
			prev, prevEnd = v, st.end
		}
	}
}
