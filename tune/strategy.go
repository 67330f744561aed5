package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Result is the outcome of one trial: a configuration and what running
// with it measured.
type Result struct {
	// Config is the configuration of the trial.
	Config Config
	// Objective is the measured objective, such as the I/O time in
	// seconds: lower is better. It is meaningful only when Err is nil.
	Objective float64
	// Err is why the trial failed, nil if it succeeded. A failed trial is
	// recorded but never the best.
	Err error
	// Wall is how long the trial took.
	Wall time.Duration
	// Log is the path of the trial's log, if any.
	Log string
	// Reused is true when the result comes from the tuning history rather
	// than from a run (see Cached).
	Reused bool
}

// OK reports whether the trial succeeded.
func (r Result) OK() bool { return r.Err == nil }

// String returns the configuration and objective (or error) of the trial.
func (r Result) String() string {
	if r.Err != nil {
		return fmt.Sprintf("%s: failed: %v", r.Config, r.Err)
	}
	return fmt.Sprintf("%s: %g", r.Config, r.Objective)
}

// Evaluator runs trials. Evaluate runs the configurations of a batch (at
// once, if it can) and returns one result per configuration, in the
// batch's order; a trial that cannot run is a result with Err set. When
// ctx is cancelled it returns at once, with the unfinished trials failed
// with ctx's error.
type Evaluator interface {
	Evaluate(ctx context.Context, batch []Config) []Result
}

// Strategy searches a space for the configuration of the lowest objective,
// running at most budget trials (budget <= 0: the strategy's own limit,
// if it has one). Every strategy runs the default configuration first.
// Failed trials are recorded in the outcome and never fatal. When ctx is
// cancelled, Run returns the outcome so far with ctx's error.
type Strategy interface {
	Run(ctx context.Context, s *Space, ev Evaluator, budget int) (*Outcome, error)
}

// Outcome is what a search found.
type Outcome struct {
	// Best is the successful trial of the lowest objective (the earliest
	// of equal ones), nil when no trial succeeded.
	Best *Result
	// Default is the trial of the default configuration, which runs first.
	Default Result
	// Trials are all the trials, in the order they were run.
	Trials []Result
	// Runs is the number of trials, those a Cached evaluator took from
	// the history included.
	Runs int
	// Model is the final model of a model-based search (nil otherwise, or
	// when no model could be fitted).
	Model *Model
	// Models are all the models a model-based search fitted, in order.
	Models []*Model
	// ModelErr is why a model-based search could not fit a model, if so.
	ModelErr error
}

// Speedup returns the objective of the default configuration divided by
// that of the best one (0 if either failed).
func (o *Outcome) Speedup() float64 {
	if o.Best == nil || o.Default.Err != nil || o.Best.Objective <= 0 {
		return 0
	}
	return o.Default.Objective / o.Best.Objective
}

// ErrBudget is returned (wrapped) when a strategy cannot work within a
// budget.
var ErrBudget = errors.New("budget too small")

// tracker runs the trials of a search: it never runs a configuration
// twice, keeps to the budget, and builds the outcome.
type tracker struct {
	s      *Space
	ev     Evaluator
	budget int // the most trials; math.MaxInt when unlimited
	seen   map[string]int
	out    *Outcome
}

// newTracker checks the space and returns a tracker.
func newTracker(s *Space, ev Evaluator, budget int) (*tracker, error) {
	if s == nil || len(s.params) == 0 {
		return nil, errors.New("tune: empty space")
	}
	if ev == nil {
		return nil, errors.New("tune: no evaluator")
	}
	if u := s.Unbound(); len(u) > 0 {
		return nil, fmt.Errorf("tune: constraints use variables without a value: %s (set them with Space.SetVar)", strings.Join(u, ", "))
	}
	if budget <= 0 {
		budget = math.MaxInt
	}
	return &tracker{s: s, ev: ev, budget: budget, seen: map[string]int{}, out: &Outcome{}}, nil
}

// left returns how many trials the budget still allows.
func (t *tracker) left() int { return t.budget - len(t.out.Trials) }

// measured returns the result of a configuration already run.
func (t *tracker) measured(c Config) (Result, bool) {
	i, ok := t.seen[c.Key()]
	if !ok {
		return Result{}, false
	}
	return t.out.Trials[i], true
}

// objective returns the objective of a trial for comparisons: +Inf for a
// failed one.
func objective(r Result) float64 {
	if r.Err != nil {
		return math.Inf(1)
	}
	return r.Objective
}

// run runs the configurations of batch that have not run yet (once each,
// as one batch, as many as the budget allows) and returns their results.
func (t *tracker) run(ctx context.Context, batch []Config) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var todo []Config
	keys := map[string]bool{}
	for _, c := range batch {
		k := c.Key()
		if _, done := t.seen[k]; done || keys[k] {
			continue
		}
		if len(todo) == t.left() {
			break
		}
		keys[k] = true
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return nil, nil
	}
	res := t.ev.Evaluate(ctx, todo)
	out := make([]Result, len(todo))
	for i, c := range todo {
		r := Result{Config: c, Err: errors.New("the evaluator returned no result")}
		if i < len(res) {
			r = res[i]
			r.Config = c
		}
		if r.Err == nil && (!(r.Objective > 0) || math.IsInf(r.Objective, 0)) {
			r.Err = fmt.Errorf("objective %v is not a positive number", r.Objective)
		}
		out[i] = r
		t.seen[c.Key()] = len(t.out.Trials)
		t.out.Trials = append(t.out.Trials, r)
		t.out.Runs++
		if r.Err == nil && (t.out.Best == nil || r.Objective < t.out.Best.Objective) {
			best := r
			t.out.Best = &best
		}
	}
	// A cancelled batch returns results failed with ctx's error: the
	// search stops there.
	return out, ctx.Err()
}

// start runs the default configuration.
func (t *tracker) start(ctx context.Context) error {
	res, err := t.run(ctx, []Config{t.s.Default()})
	if len(res) == 1 {
		t.out.Default = res[0]
	}
	return err
}

// finish returns the outcome, with err (a cancelled context) wrapped.
func (t *tracker) finish(err error) (*Outcome, error) {
	if err != nil {
		return t.out, fmt.Errorf("tune: search interrupted after %d trials: %w", t.out.Runs, err)
	}
	return t.out, nil
}
