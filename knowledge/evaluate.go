package knowledge

import (
	"fmt"

	"github.com/iolens/iolens/darshan"
)

// Accuracy is how well a graph predicted a run it did not learn from.
type Accuracy struct {
	// K is the prediction depth evaluated.
	K int
	// Ranks is the number of ranks replayed.
	Ranks int
	// Accesses is the number of top-level accesses replayed, and Unknown
	// how many of them are not vertices of the graph.
	Accesses, Unknown int
	// Positions is the number of accesses followed by another on their
	// rank: the positions at which a prediction is scored.
	Positions int
	// Predicted is the number of positions at which there was a
	// prediction at all.
	Predicted int
	// Hits1 is the number of positions at which the first prediction was
	// the next access.
	Hits1 int
	// Wanted is the number of actual accesses scored at depth K: at each
	// position, the next K accesses (fewer near the end of the rank).
	// HitsK is how many of them were among the K predictions (each
	// prediction matching at most one access).
	Wanted, HitsK int
}

// Depth1 returns the share of positions whose next access was the first
// prediction (0 without positions).
func (a Accuracy) Depth1() float64 {
	if a.Positions == 0 {
		return 0
	}
	return float64(a.Hits1) / float64(a.Positions)
}

// DepthK returns the share of the next K actual accesses that were among the
// K predictions, over all positions (0 without positions).
func (a Accuracy) DepthK() float64 {
	if a.Wanted == 0 {
		return 0
	}
	return float64(a.HitsK) / float64(a.Wanted)
}

// Evaluate replays a run that g did not learn from (its access sequences
// seqs, its record names names) and scores the predictions g makes. Each
// rank's top-level accesses go through a fresh [Matcher], in order; after
// each access that has a successor, the k predictions without budget are
// compared with the actual next access (depth 1) and with the next k actual
// accesses (depth k). An invalid sequence is an error.
func Evaluate(g *Graph, seqs []darshan.AccessSequence, names func(id uint64) (string, bool), k int) (Accuracy, error) {
	acc := Accuracy{K: k}
	if k < 1 {
		return acc, fmt.Errorf("evaluate: depth %d is less than 1", k)
	}
	ps, err := paths(seqs, names)
	if err != nil {
		return acc, fmt.Errorf("evaluate: %w", err)
	}
	if g == nil {
		g = &Graph{}
	}
	for _, p := range ps {
		acc.Ranks++
		ids := make([]int, len(p.steps))
		for i := range p.steps {
			id, ok := g.byKeyID(p.steps[i].kid)
			if !ok {
				id = -1
				acc.Unknown++
			}
			ids[i] = id
		}
		acc.Accesses += len(ids)
		m := NewMatcher(g)
		for i, id := range ids {
			m.ObserveVertex(id)
			if i+1 >= len(ids) {
				break
			}
			acc.Positions++
			pred := m.Predict(k, 0)
			if len(pred) > 0 {
				acc.Predicted++
				if pred[0].Vertex == ids[i+1] {
					acc.Hits1++
				}
			}
			used := make([]bool, len(pred))
			for _, want := range ids[i+1 : min(i+1+k, len(ids))] {
				acc.Wanted++
				if want < 0 {
					continue
				}
				for j := range pred {
					if !used[j] && pred[j].Vertex == want {
						used[j] = true
						acc.HitsK++
						break
					}
				}
			}
		}
	}
	return acc, nil
}
