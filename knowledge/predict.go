package knowledge

import "slices"

// maxWalk is how many vertices of the matched suffix a Matcher keeps; the
// prediction only needs the last one, the rest is for inspection.
const maxWalk = 256

// Matcher follows a running application along the accumulation graph of
// its earlier runs. It keeps the longest suffix of the accesses observed so
// far that is a walk in the graph, and predicts the next accesses from the
// end of that walk.
//
// Use one Matcher per rank. A Matcher reads its graph but does not change
// it; the graph must not change while the Matcher is in use. A Matcher is
// not safe for concurrent use.
type Matcher struct {
	g    *Graph
	walk []int // the last (at most maxWalk) vertices of the suffix
	n    int   // length of the suffix
}

// NewMatcher returns a Matcher over g with nothing observed yet.
func NewMatcher(g *Graph) *Matcher {
	if g == nil {
		g = &Graph{}
	}
	return &Matcher{g: g}
}

// Observe records the access of key k (make keys of a run with one
// [Namer], as for [Graph.Accumulate]) and reports whether it is a vertex of
// the graph.
func (m *Matcher) Observe(k VertexKey) bool {
	v, ok := m.g.Lookup(k)
	if !ok {
		v = -1
	}
	m.ObserveVertex(v)
	return ok
}

// ObserveVertex records an access to vertex id; an id that is not a vertex
// of the graph (such as -1) records an unknown access.
//
// If the access follows an edge from the end of the suffix, the suffix is
// extended by it. Otherwise the suffix loses its oldest accesses until the
// new one can follow it: since every suffix of two or more accesses would
// end with the missing edge, that leaves the new access alone when it is a
// vertex, and nothing when it is unknown.
func (m *Matcher) ObserveVertex(id int) {
	m.g.index()
	if id < 0 || id >= len(m.g.Vertices) {
		m.Reset()
		return
	}
	if m.n > 0 {
		if _, ok := m.g.byEdge[[2]int{m.walk[len(m.walk)-1], id}]; ok {
			if len(m.walk) == maxWalk {
				m.walk = append(m.walk[:0], m.walk[1:]...)
			}
			m.walk = append(m.walk, id)
			m.n++
			return
		}
	}
	m.walk = append(m.walk[:0], id)
	m.n = 1
}

// Reset forgets the observed accesses.
func (m *Matcher) Reset() {
	m.walk = m.walk[:0]
	m.n = 0
}

// Len returns the number of accesses in the matched suffix.
func (m *Matcher) Len() int { return m.n }

// Suffix returns the vertex ids of the matched suffix, oldest first; for a
// suffix longer than 256 accesses, only its last 256.
func (m *Matcher) Suffix() []int { return slices.Clone(m.walk) }

// Prediction is an access the application is expected to make.
type Prediction struct {
	// Step is 1 for the next access, 2 for the one after, and so on.
	Step int
	// Vertex is the id of the predicted access's vertex.
	Vertex int
	// Key identifies the predicted access.
	Key VertexKey
	// Bytes is the number of bytes the access moves on average.
	Bytes int64
	// Extents are the file extents the access touched before, which are
	// the ones to prefetch.
	Extents []Extent
	// Truncated is set when the vertex has more extents than it keeps.
	Truncated bool
	// Gap is the mean idle time, in seconds, between the previous access
	// (observed or predicted) and this one: the time there is to prefetch.
	Gap float64
	// Share is the fraction of the departures from the previous access
	// that went to this one, a measure of confidence.
	Share float64
}

// Predict returns up to k predicted accesses after the observed ones. From
// the last vertex of the matched suffix it follows the preferred out-edge
// (see [Graph.Out]: the most followed, then the most recently followed, then
// the one to the lowest vertex id), and again from there, until it has k
// predictions, the vertex has no out-edge, or the next prediction would
// bring the sum of the predictions' Bytes above budget (0 or less means no
// budget). It returns nil when the suffix is empty.
func (m *Matcher) Predict(k int, budget int64) []Prediction {
	if m.n == 0 || k <= 0 {
		return nil
	}
	g := m.g
	g.index()
	var out []Prediction
	var sum int64
	cur := m.walk[len(m.walk)-1]
	for step := 1; step <= k; step++ {
		ei := g.best(cur)
		if ei < 0 {
			break
		}
		e := &g.Edges[ei]
		v := &g.Vertices[e.To]
		b := v.MeanBytes()
		if budget > 0 && sum+b > budget {
			break
		}
		sum += b
		var total int64
		for _, o := range g.out[cur] {
			total += g.Edges[o].Count
		}
		share := 0.0
		if total > 0 {
			share = float64(e.Count) / float64(total)
		}
		out = append(out, Prediction{
			Step:      step,
			Vertex:    v.ID,
			Key:       v.VertexKey.clone(),
			Bytes:     b,
			Extents:   slices.Clone(v.Extents),
			Truncated: v.Truncated,
			Gap:       e.MeanGap(),
			Share:     share,
		})
		cur = e.To
	}
	return out
}
