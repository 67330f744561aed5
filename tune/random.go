package tune

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// enumerateLimit is the most combinations a sampler lists to draw from;
// larger spaces are sampled by rejection.
const enumerateLimit = 1 << 16

// Random runs configurations drawn uniformly at random, without
// replacement, from the space.
type Random struct {
	// Seed seeds the draws: the same seed draws the same configurations.
	Seed uint64
	// Batch is the most configurations per batch; 0 means all at once.
	Batch int
}

// String names the strategy.
func (r Random) String() string { return fmt.Sprintf("random(seed=%d)", r.Seed) }

// Run implements Strategy. A budget <= 0 means the whole space.
func (r Random) Run(ctx context.Context, s *Space, ev Evaluator, budget int) (*Outcome, error) {
	t, err := newTracker(s, ev, budget)
	if err != nil {
		return nil, err
	}
	if err := t.start(ctx); err != nil {
		return t.finish(err)
	}
	rng := rand.New(rand.NewPCG(r.Seed, 0x72616e646f6d))
	smp := newSampler(s, rng)
	for t.left() > 0 {
		n := t.left()
		if r.Batch > 0 {
			n = min(n, r.Batch)
		}
		batch := smp.draw(n, func(c Config) bool { _, done := t.measured(c); return done })
		if len(batch) == 0 {
			break
		}
		if _, err := t.run(ctx, batch); err != nil {
			return t.finish(err)
		}
	}
	return t.finish(nil)
}

// sampler draws distinct valid configurations of a space at random.
type sampler struct {
	s     *Space
	rng   *rand.Rand
	all   [][]int // the valid configurations in random order, for small spaces
	next  int
	drawn map[string]bool
}

// newSampler returns a sampler of s.
func newSampler(s *Space, rng *rand.Rand) *sampler {
	smp := &sampler{s: s, rng: rng, drawn: map[string]bool{}}
	if s.Total() <= enumerateLimit {
		for idx := range s.indices() {
			smp.all = append(smp.all, append([]int(nil), idx...))
		}
		rng.Shuffle(len(smp.all), func(i, j int) { smp.all[i], smp.all[j] = smp.all[j], smp.all[i] })
	}
	return smp
}

// draw returns up to n configurations not drawn before and not skipped
// (fewer when the space runs out).
func (smp *sampler) draw(n int, skip func(Config) bool) []Config {
	var out []Config
	if smp.all != nil {
		for ; smp.next < len(smp.all) && len(out) < n; smp.next++ {
			c := smp.s.config(smp.all[smp.next])
			if !skip(c) {
				out = append(out, c)
			}
		}
		return out
	}
	// Rejection sampling; a space so constrained that draws keep failing
	// ends the search.
	for tries := 0; len(out) < n && tries < 1000*(n+1); tries++ {
		idx := smp.random()
		if !smp.s.allowedIdx(idx) {
			continue
		}
		c := smp.s.config(idx)
		k := c.Key()
		if smp.drawn[k] || skip(c) {
			continue
		}
		smp.drawn[k] = true
		out = append(out, c)
	}
	return out
}

// random returns uniformly random value indices (which may violate the
// constraints).
func (smp *sampler) random() []int {
	idx := make([]int, len(smp.s.params))
	for i, p := range smp.s.params {
		idx[i] = smp.rng.IntN(len(p.Values))
	}
	return idx
}

// randomValid returns random valid value indices for which ok holds, or
// nil when none is found: random draws first, then, in a space small
// enough to list, a walk from a random place of the list.
func (smp *sampler) randomValid(ok func([]int) bool) []int {
	for range 200 {
		idx := smp.random()
		if smp.s.allowedIdx(idx) && ok(idx) {
			return idx
		}
	}
	if len(smp.all) == 0 {
		return nil
	}
	start := smp.rng.IntN(len(smp.all))
	for k := range smp.all {
		idx := smp.all[(start+k)%len(smp.all)]
		if ok(idx) {
			return append([]int(nil), idx...)
		}
	}
	return nil
}
