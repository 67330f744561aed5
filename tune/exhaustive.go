package tune

import (
	"context"
	"fmt"
)

// Exhaustive runs every configuration of the space, the default first.
type Exhaustive struct {
	// Batch is the most configurations per batch; 0 means all at once.
	Batch int
}

// String names the strategy.
func (e Exhaustive) String() string { return "exhaustive" }

// Run implements Strategy. A budget (> 0) smaller than the number of
// trials the space needs is an error wrapping ErrBudget, before any trial.
func (e Exhaustive) Run(ctx context.Context, s *Space, ev Evaluator, budget int) (*Outcome, error) {
	t, err := newTracker(s, ev, budget)
	if err != nil {
		return nil, err
	}
	need := s.Size()
	if !s.Contains(s.Default()) {
		need++
	}
	if budget > 0 && budget < need {
		return nil, fmt.Errorf("tune: exhaustive search of %d configurations: budget %d: %w", need, budget, ErrBudget)
	}
	if err := t.start(ctx); err != nil {
		return t.finish(err)
	}
	var batch []Config
	for c := range s.Configs() {
		if _, done := t.measured(c); done {
			continue
		}
		batch = append(batch, c)
		if e.Batch > 0 && len(batch) == e.Batch {
			if _, err := t.run(ctx, batch); err != nil {
				return t.finish(err)
			}
			batch = batch[:0]
		}
	}
	_, err = t.run(ctx, batch)
	return t.finish(err)
}
