package tune

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Defaults of ModelBased.
const (
	DefaultPrune = 20
	DefaultRefit = 10
)

// ModelBased is the model-based search: run a space-filling initial
// design, fit a model of the objective (Fit) on it and on warm results,
// prune the space to the Prune best predicted configurations not yet
// measured, explore them (one batch), refit the model with them, run the
// Refit best configurations of the refitted model not yet measured (one
// batch), and return the best measured configuration. The same seed gives
// the same search.
type ModelBased struct {
	// Seed seeds the initial design.
	Seed uint64
	// Initial is the size of the initial design; 0 means max(2d+1, 10)
	// for d parameters.
	Initial int
	// Prune is how many predicted configurations the explore phase runs;
	// 0 means DefaultPrune.
	Prune int
	// Refit is how many configurations of the refitted model the last
	// phase runs; 0 means DefaultRefit.
	Refit int
	// Warm are earlier results, such as measurements of the same
	// application at another size or scale (where size or ranks are
	// parameters, so that the model learns how they matter). They enter
	// every fit, but are not trials of this search; failed ones and
	// configurations the space cannot encode are left out.
	Warm []Result
	// Fit are the options of the fits; Names defaults to the names of the
	// parameters.
	Fit FitOptions
}

// String names the strategy and its settings.
func (m ModelBased) String() string {
	return fmt.Sprintf("model(seed=%d,initial=%d,prune=%d,refit=%d,warm=%d)",
		m.Seed, m.Initial, cmp.Or(m.Prune, DefaultPrune), cmp.Or(m.Refit, DefaultRefit), len(m.Warm))
}

// InitialSize returns the size of the initial design for space s.
func (m ModelBased) InitialSize(s *Space) int {
	if m.Initial > 0 {
		return m.Initial
	}
	return max(2*len(s.params)+1, 10)
}

// Run implements Strategy. A budget <= 0 means 1 + InitialSize + Prune +
// Refit trials; a smaller budget cuts the phases short in order, and a
// larger one adds refit rounds of Refit trials until it is spent.
func (m ModelBased) Run(ctx context.Context, s *Space, ev Evaluator, budget int) (*Outcome, error) {
	t, err := newTracker(s, ev, budget)
	if err != nil {
		return nil, err
	}
	if err := t.start(ctx); err != nil {
		return t.finish(err)
	}
	rng := rand.New(rand.NewPCG(m.Seed, 0x6d6f64656c))
	smp := newSampler(s, rng)
	measured := func(idx []int) bool { _, done := t.measured(s.config(idx)); return done }

	design := latinDesign(s, smp, rng, min(m.InitialSize(s), t.left()), measured)
	if _, err := t.run(ctx, configs(s, design)); err != nil {
		return t.finish(err)
	}
	refit := cmp.Or(m.Refit, DefaultRefit)
	for phase := 0; t.left() > 0; phase++ {
		n := refit
		switch {
		case phase == 0:
			n = cmp.Or(m.Prune, DefaultPrune)
		case phase >= 2 && budget <= 0:
			// The method's phases are done: prune, explore, refit.
			return t.finish(nil)
		}
		// A larger budget buys more refit rounds, each of the refitted
		// model's best configurations not measured yet.
		model, err := m.fit(s, t.out.Trials)
		if err != nil {
			t.out.ModelErr = err
			break
		}
		t.out.Model = model
		t.out.Models = append(t.out.Models, model)
		best := predictBest(s, model, min(n, t.left()), measured)
		if len(best) == 0 {
			break
		}
		if _, err := t.run(ctx, configs(s, best)); err != nil {
			return t.finish(err)
		}
	}
	return t.finish(nil)
}

// configs returns the configurations of value indices.
func configs(s *Space, idx [][]int) []Config {
	out := make([]Config, len(idx))
	for i, x := range idx {
		out[i] = s.config(x)
	}
	return out
}

// fit fits a model on the successful trials and warm results.
func (m ModelBased) fit(s *Space, trials []Result) (*Model, error) {
	var X [][]float64
	var y []float64
	for _, r := range slices.Concat(m.Warm, trials) {
		if r.Err != nil || !(r.Objective > 0) || math.IsInf(r.Objective, 0) {
			continue
		}
		x := s.Features(r.Config)
		if slices.ContainsFunc(x, math.IsNaN) {
			continue
		}
		X, y = append(X, x), append(y, r.Objective)
	}
	opts := m.Fit
	if len(opts.Names) == 0 {
		opts.Names = s.FeatureNames()
	}
	model, err := Fit(X, y, opts)
	if err != nil {
		return nil, fmt.Errorf("model of %d measurements: %w", len(y), err)
	}
	return model, nil
}

// predicted is a configuration and its predicted objective.
type predicted struct {
	idx []int
	y   float64
	seq int
}

// predictBest returns the n configurations of the space of the lowest
// predicted objective that skip does not exclude, best first (the earlier
// in Configs order of equal predictions).
func predictBest(s *Space, model *Model, n int, skip func([]int) bool) [][]int {
	if n <= 0 {
		return nil
	}
	worse := func(a, b predicted) int { // > 0 when a is better than b
		if c := cmp.Compare(b.y, a.y); c != 0 {
			return c
		}
		return cmp.Compare(b.seq, a.seq)
	}
	var keep []predicted // the n best so far, worst first
	x := make([]float64, s.featureCount())
	seq := 0
	for idx := range s.indices() {
		seq++
		s.featuresIdx(idx, x)
		p := predicted{y: model.Predict(x), seq: seq}
		if math.IsNaN(p.y) {
			p.y = math.Inf(1)
		}
		if len(keep) == n && worse(p, keep[0]) <= 0 {
			continue
		}
		if skip(idx) {
			continue
		}
		p.idx = slices.Clone(idx)
		i, _ := slices.BinarySearchFunc(keep, p, worse)
		keep = slices.Insert(keep, i, p)
		if len(keep) > n {
			keep = keep[1:]
		}
	}
	out := make([][]int, len(keep))
	for i, p := range keep {
		out[len(keep)-1-i] = p.idx
	}
	return out
}
