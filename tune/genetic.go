package tune

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Defaults of Genetic.
const (
	DefaultPopulation = 10
	DefaultTournament = 3
	DefaultCrossover  = 0.9
	DefaultMutation   = 0.1
	DefaultElite      = 1
)

// maxStall is how many generations in a row may bring no new trial before
// a genetic search gives up (the population keeps producing configurations
// already measured, and random newcomers cannot be found).
const maxStall = 50

// Genetic is a genetic algorithm after H5Evolve, the baseline of the
// model-based search: a population of configurations (genes: the value
// of each parameter) evolves by tournament selection, uniform crossover,
// per-gene mutation and elitism, generation after generation until the
// budget is spent. A configuration is never run twice: one already
// measured keeps its objective. The same seed gives the same search.
type Genetic struct {
	// Seed seeds the search.
	Seed uint64
	// Population is the number of individuals; 0 means DefaultPopulation.
	Population int
	// Tournament is how many individuals a parent is the best of; 0
	// means DefaultTournament.
	Tournament int
	// Crossover is the probability that a child mixes its two parents
	// (each gene from either with probability 1/2) rather than copies the
	// first; 0 means DefaultCrossover, a negative value none.
	Crossover float64
	// Mutation is the probability that a gene of a child takes another
	// value at random; 0 means DefaultMutation, a negative value none.
	Mutation float64
	// Elite is how many of the best individuals pass unchanged to the next
	// generation; 0 means DefaultElite, a negative value none.
	Elite int
}

// String names the strategy and its settings.
func (g Genetic) String() string {
	g = g.withDefaults()
	return fmt.Sprintf("genetic(seed=%d,population=%d,tournament=%d,crossover=%g,mutation=%g,elite=%d)",
		g.Seed, g.Population, g.Tournament, g.Crossover, g.Mutation, g.Elite)
}

// withDefaults returns g with the defaults of unset fields.
func (g Genetic) withDefaults() Genetic {
	if g.Population <= 0 {
		g.Population = DefaultPopulation
	}
	if g.Tournament <= 0 {
		g.Tournament = DefaultTournament
	}
	switch {
	case g.Crossover == 0:
		g.Crossover = DefaultCrossover
	case g.Crossover < 0:
		g.Crossover = 0
	}
	switch {
	case g.Mutation == 0:
		g.Mutation = DefaultMutation
	case g.Mutation < 0:
		g.Mutation = 0
	}
	switch {
	case g.Elite == 0:
		g.Elite = DefaultElite
	case g.Elite < 0:
		g.Elite = 0
	}
	g.Elite = min(g.Elite, g.Population)
	return g
}

// individual is a member of the population.
type individual struct {
	idx []int
	obj float64 // +Inf when failed
}

// Run implements Strategy. The budget must be positive.
func (g Genetic) Run(ctx context.Context, s *Space, ev Evaluator, budget int) (*Outcome, error) {
	if budget <= 0 {
		return nil, fmt.Errorf("tune: genetic search: %w: it needs a positive budget", ErrBudget)
	}
	g = g.withDefaults()
	t, err := newTracker(s, ev, budget)
	if err != nil {
		return nil, err
	}
	if err := t.start(ctx); err != nil {
		return t.finish(err)
	}
	rng := rand.New(rand.NewPCG(g.Seed, 0x67656e65746963))
	smp := newSampler(s, rng)
	unmeasured := func(idx []int) bool { _, done := t.measured(s.config(idx)); return !done }

	// The first generation: the default configuration (when valid) and
	// random ones.
	var pop []individual
	if idx, ok := s.indicesOf(t.out.Default.Config); ok && s.allowedIdx(idx) {
		pop = append(pop, individual{idx: idx, obj: objective(t.out.Default)})
	}
	batch := smp.draw(g.Population-len(pop), func(c Config) bool { _, done := t.measured(c); return done })
	res, err := t.run(ctx, batch)
	if err != nil {
		return t.finish(err)
	}
	for _, r := range res {
		idx, _ := s.indicesOf(r.Config)
		pop = append(pop, individual{idx: idx, obj: objective(r)})
	}
	if len(pop) == 0 {
		return t.finish(nil)
	}
	for stall, exhausted := 0, false; t.left() > 0 && stall < maxStall && !exhausted; {
		next := g.elite(pop)
		var kids [][]int
		for len(next)+len(kids) < g.Population {
			a, b := g.tournament(pop, rng), g.tournament(pop, rng)
			var kid []int
			kid, exhausted = g.child(s, smp, rng, a.idx, b.idx, unmeasured)
			if kid == nil || exhausted {
				break
			}
			kids = append(kids, kid)
		}
		var fresh []Config
		for _, k := range kids {
			if unmeasured(k) {
				fresh = append(fresh, s.config(k))
			}
		}
		res, err := t.run(ctx, fresh)
		if err != nil {
			return t.finish(err)
		}
		if len(res) == 0 {
			stall++
		} else {
			stall = 0
		}
		for _, k := range kids {
			r, done := t.measured(s.config(k))
			if !done {
				continue // beyond the budget
			}
			next = append(next, individual{idx: k, obj: objective(r)})
		}
		pop = next
	}
	return t.finish(nil)
}

// elite returns the Elite best individuals of pop (copies), best first.
func (g Genetic) elite(pop []individual) []individual {
	sorted := slices.Clone(pop)
	slices.SortStableFunc(sorted, func(a, b individual) int { return cmp.Compare(a.obj, b.obj) })
	return sorted[:min(g.Elite, len(sorted))]
}

// tournament returns the best of Tournament individuals drawn at random
// (with replacement).
func (g Genetic) tournament(pop []individual, rng *rand.Rand) individual {
	best := pop[rng.IntN(len(pop))]
	for range g.Tournament - 1 {
		if c := pop[rng.IntN(len(pop))]; c.obj < best.obj {
			best = c
		}
	}
	return best
}

// child returns a valid child of parents a and b: crossover, then
// mutation, tried again while the child violates the constraints or has
// already been measured; then a random unmeasured configuration. When
// none is found, exhausted is true and the child is an already measured
// one, or nil.
func (g Genetic) child(s *Space, smp *sampler, rng *rand.Rand, a, b []int, unmeasured func([]int) bool) (kid []int, exhausted bool) {
	var fallback []int
	for range 20 {
		kid := slices.Clone(a)
		if rng.Float64() < g.Crossover {
			for i := range kid {
				if rng.IntN(2) == 1 {
					kid[i] = b[i]
				}
			}
		}
		for i, p := range s.params {
			if n := len(p.Values); n > 1 && rng.Float64() < g.Mutation {
				kid[i] = (kid[i] + 1 + rng.IntN(n-1)) % n
			}
		}
		if !s.allowedIdx(kid) {
			continue
		}
		if unmeasured(kid) {
			return kid, false
		}
		if fallback == nil {
			fallback = kid
		}
	}
	if idx := smp.randomValid(unmeasured); idx != nil {
		return idx, false
	}
	return fallback, true
}
