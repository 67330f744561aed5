package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pow2Values returns "1", "2", ..., "128".
func pow2Values() []string {
	var v []string
	for x := 1; x <= 128; x *= 2 {
		v = append(v, strconv.Itoa(x))
	}
	return v
}

// synthetic returns the 8x8x8 space of a, b and c (512 configurations)
// and the objective 3 + 5*a/b + 0.5*c over it, whose optimum is a=1,
// b=128, c=1.
func synthetic(t *testing.T) *Space {
	t.Helper()
	s, err := NewSpace([]Param{
		{Name: "a", Kind: Arg, Values: pow2Values()},
		{Name: "b", Kind: Arg, Values: pow2Values()},
		{Name: "c", Kind: Arg, Values: pow2Values()},
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const optimum = 3 + 5.0/128 + 0.5

// formula returns the synthetic objective of a configuration.
func formula(c Config) float64 {
	v := map[string]float64{"size": 0}
	for _, s := range c {
		v[s.Name], _ = ParseNumber(s.Value)
	}
	return 3 + 5*v["a"]/v["b"] + 0.5*v["c"] + 0.25*v["size"]
}

// counter is an evaluator of the synthetic objective that records what it
// runs; fail says which configurations fail.
type counter struct {
	mu      sync.Mutex
	batches [][]string
	runs    map[string]int
	fail    func(Config) bool
}

func newCounter(fail func(Config) bool) *counter {
	return &counter{runs: map[string]int{}, fail: fail}
}

func (c *counter) Evaluate(ctx context.Context, batch []Config) []Result {
	var keys []string
	for _, cfg := range batch {
		keys = append(keys, cfg.String())
	}
	c.mu.Lock()
	c.batches = append(c.batches, keys)
	for _, k := range keys {
		c.runs[k]++
	}
	c.mu.Unlock()
	return Parallel(func(ctx context.Context, cfg Config) Result {
		if c.fail != nil && c.fail(cfg) {
			return Result{Err: errors.New("crashed")}
		}
		return Result{Objective: formula(cfg)}
	}, 2).Evaluate(ctx, batch)
}

// total returns the number of configurations run, and fails the test if
// one ran twice.
func (c *counter) total(t *testing.T) int {
	t.Helper()
	n := 0
	for k, r := range c.runs {
		if r > 1 {
			t.Errorf("%s ran %d times", k, r)
		}
		n += r
	}
	return n
}

// trialKeys returns the configurations of the trials, in order.
func trialKeys(o *Outcome) []string {
	var out []string
	for _, r := range o.Trials {
		out = append(out, r.String())
	}
	return out
}

func TestExhaustive(t *testing.T) {
	s := synthetic(t)
	ev := newCounter(nil)
	o, err := Exhaustive{Batch: 100}.Run(context.Background(), s, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Runs != 512 || len(o.Trials) != 512 || ev.total(t) != 512 {
		t.Errorf("runs %d, trials %d, evaluated %d; want 512", o.Runs, len(o.Trials), ev.total(t))
	}
	if got := o.Best.Config.String(); got != "a=1 b=128 c=1" || o.Best.Objective != optimum {
		t.Errorf("best %s, want a=1 b=128 c=1: %v", o.Best, optimum)
	}
	if o.Default.Config.String() != "a=1 b=1 c=1" || o.Trials[0].Config.String() != "a=1 b=1 c=1" || o.Default.Objective != 8.5 {
		t.Errorf("default %s, first trial %s", o.Default, o.Trials[0])
	}
	if n := len(ev.batches); n != 7 { // the default, then 511 in batches of 100
		t.Errorf("%d batches, want 7", n)
	}
	if got, want := o.Speedup(), 8.5/optimum; math.Abs(got-want) > 1e-12 {
		t.Errorf("speedup %v, want %v", got, want)
	}

	ev = newCounter(nil)
	_, err = Exhaustive{}.Run(context.Background(), s, ev, 511)
	if !errors.Is(err, ErrBudget) || len(ev.runs) != 0 {
		t.Errorf("budget 511: error %v after %d runs; want ErrBudget before any", err, len(ev.runs))
	}
	if _, err := (Exhaustive{}).Run(context.Background(), s, newCounter(nil), 512); err != nil {
		t.Errorf("budget 512: %v", err)
	}
}

func TestModelBased(t *testing.T) {
	s := synthetic(t)
	var first []string
	for range 2 {
		ev := newCounter(nil)
		o, err := ModelBased{Seed: 1}.Run(context.Background(), s, ev, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The default, an initial design of 10, 20 explored, 10 refitted.
		if o.Runs != 41 || ev.total(t) != 41 {
			t.Fatalf("runs %d, evaluated %d; want 41", o.Runs, ev.total(t))
		}
		if o.Runs > s.Size()*15/100 {
			t.Errorf("%d runs is more than 15%% of %d", o.Runs, s.Size())
		}
		if diff := cmp.Diff([]int{1, 10, 20, 10}, batchSizes(ev)); diff != "" {
			t.Errorf("batch sizes (-want +got):\n%s", diff)
		}
		if o.Best.Objective > 1.1*optimum {
			t.Errorf("best %s, more than 10%% above %v", o.Best, optimum)
		}
		if o.Best.Config.String() != "a=1 b=128 c=1" {
			t.Errorf("best %s, want the optimum a=1 b=128 c=1", o.Best)
		}
		if o.Trials[0].Config.String() != "a=1 b=1 c=1" {
			t.Errorf("first trial %s, want the default", o.Trials[0])
		}
		if len(o.Models) != 2 || o.Model != o.Models[1] || o.ModelErr != nil {
			t.Fatalf("%d models, final %v, error %v", len(o.Models), o.Model, o.ModelErr)
		}
		if o.Models[0].Samples() != 11 || o.Model.Samples() != 31 {
			t.Errorf("models fitted on %d and %d samples, want 11 and 31", o.Models[0].Samples(), o.Model.Samples())
		}
		if diff := cmp.Diff([]string{"1", "a * b^-1", "c"}, sortedTerms(o.Model)); diff != "" {
			t.Errorf("terms (-want +got):\n%s", diff)
		}
		if first == nil {
			first = trialKeys(o)
		} else if diff := cmp.Diff(first, trialKeys(o)); diff != "" {
			t.Errorf("same seed, other search (-first +second):\n%s", diff)
		}
	}
	o, err := ModelBased{Seed: 2}.Run(context.Background(), s, newCounter(nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(first[:11], trialKeys(o)[:11]) {
		t.Error("another seed, same initial design")
	}
}

// batchSizes returns the sizes of the batches an evaluator got.
func batchSizes(ev *counter) []int {
	var out []int
	for _, b := range ev.batches {
		out = append(out, len(b))
	}
	return out
}

func TestGenetic(t *testing.T) {
	s := synthetic(t)
	var first []string
	for range 2 {
		ev := newCounter(nil)
		o, err := Genetic{Seed: 7}.Run(context.Background(), s, ev, 120)
		if err != nil {
			t.Fatal(err)
		}
		if o.Runs != 120 || ev.total(t) != 120 {
			t.Errorf("runs %d, evaluated %d; want 120", o.Runs, ev.total(t))
		}
		if o.Trials[0].Config.String() != "a=1 b=1 c=1" {
			t.Errorf("first trial %s, want the default", o.Trials[0])
		}
		// It reaches the optimum too, but after more runs than the whole
		// model-based search (41).
		reached := slices.IndexFunc(o.Trials, func(r Result) bool { return r.OK() && r.Objective == optimum }) + 1
		if reached != 48 {
			t.Errorf("optimum reached at run %d, want 48", reached)
		}
		if first == nil {
			first = trialKeys(o)
		} else if diff := cmp.Diff(first, trialKeys(o)); diff != "" {
			t.Errorf("same seed, other search (-first +second):\n%s", diff)
		}
	}
	if _, err := (Genetic{}).Run(context.Background(), s, newCounter(nil), 0); !errors.Is(err, ErrBudget) {
		t.Errorf("no budget: error %v, want ErrBudget", err)
	}
}

func TestGeneticExhaustsSmallSpace(t *testing.T) {
	s := cube(t)
	s.SetVar("ranks", 2)
	ev := newCounter(nil)
	o, err := Genetic{Seed: 3, Population: 4}.Run(context.Background(), s, ev, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// The 18 configurations, the default among them, each once.
	if o.Runs != 18 || ev.total(t) != 18 {
		t.Errorf("runs %d, evaluated %d; want 18", o.Runs, ev.total(t))
	}
}

func TestRandom(t *testing.T) {
	s := synthetic(t)
	var first []string
	for range 2 {
		ev := newCounter(nil)
		o, err := Random{Seed: 5, Batch: 8}.Run(context.Background(), s, ev, 50)
		if err != nil {
			t.Fatal(err)
		}
		if o.Runs != 50 || ev.total(t) != 50 {
			t.Errorf("runs %d, evaluated %d; want 50", o.Runs, ev.total(t))
		}
		if diff := cmp.Diff([]int{1, 8, 8, 8, 8, 8, 8, 1}, batchSizes(ev)); diff != "" {
			t.Errorf("batch sizes (-want +got):\n%s", diff)
		}
		if first == nil {
			first = trialKeys(o)
		} else if diff := cmp.Diff(first, trialKeys(o)); diff != "" {
			t.Errorf("same seed, other search (-first +second):\n%s", diff)
		}
	}
	ev := newCounter(nil)
	o, err := Random{Seed: 5}.Run(context.Background(), s, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Runs != 512 || ev.total(t) != 512 || o.Best.Objective != optimum {
		t.Errorf("no budget: %d runs, best %s; want the whole space", o.Runs, o.Best)
	}
}

func TestBudgetRespected(t *testing.T) {
	s := synthetic(t)
	strategies := []Strategy{Random{Seed: 1}, Genetic{Seed: 1}, ModelBased{Seed: 1}}
	for _, st := range strategies {
		for _, budget := range []int{1, 2, 7, 11, 12, 30, 40} {
			ev := newCounter(nil)
			o, err := st.Run(context.Background(), s, ev, budget)
			if err != nil {
				t.Fatalf("%v, budget %d: %v", st, budget, err)
			}
			if o.Runs != budget || ev.total(t) != budget || len(o.Trials) != budget {
				t.Errorf("%v, budget %d: %d runs, %d evaluated", st, budget, o.Runs, ev.total(t))
			}
			if o.Default.Config.String() != "a=1 b=1 c=1" {
				t.Errorf("%v, budget %d: default %s", st, budget, o.Default)
			}
		}
	}
	// The model-based search cut short: 1 + 10, then 14 of the 20 explored.
	ev := newCounter(nil)
	o, err := ModelBased{Seed: 1}.Run(context.Background(), s, ev, 25)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 10, 14}, batchSizes(ev)); diff != "" || len(o.Models) != 1 {
		t.Errorf("budget 25: %d models, batch sizes (-want +got):\n%s", len(o.Models), diff)
	}
}

func TestFailedTrials(t *testing.T) {
	s := synthetic(t)
	// c=1 crashes: the default and the optimum among the failures.
	crash := func(c Config) bool { v, _ := c.Get("c"); return v == "1" }
	const best = 3 + 5.0/128 + 1 // a=1 b=128 c=2
	ev := newCounter(crash)
	o, err := Exhaustive{}.Run(context.Background(), s, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Default.Err == nil || o.Best.Config.String() != "a=1 b=128 c=2" || o.Best.Objective != best {
		t.Errorf("default %s, best %s; want a failed default and a=1 b=128 c=2", o.Default, o.Best)
	}
	failed := 0
	for _, r := range o.Trials {
		if !r.OK() {
			failed++
		}
	}
	if failed != 64 || o.Runs != 512 {
		t.Errorf("%d failed of %d, want 64 of 512", failed, o.Runs)
	}
	if o.Speedup() != 0 {
		t.Errorf("speedup %v with a failed default, want 0", o.Speedup())
	}
	for _, st := range []Strategy{ModelBased{Seed: 1}, Genetic{Seed: 1}, Random{Seed: 1}} {
		ev := newCounter(crash)
		o, err := st.Run(context.Background(), s, ev, 41)
		if err != nil {
			t.Fatalf("%v: %v", st, err)
		}
		if o.Best == nil || !o.Best.OK() || strings.Contains(o.Best.Config.String(), "c=1") {
			t.Errorf("%v: best %v", st, o.Best)
		}
		if o.Runs != 41 || ev.total(t) != 41 {
			t.Errorf("%v: %d runs, %d evaluated; want 41", st, o.Runs, ev.total(t))
		}
	}
	// Every trial fails: no best, no error, no model.
	ev = newCounter(func(Config) bool { return true })
	o, err = ModelBased{Seed: 1}.Run(context.Background(), s, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Best != nil || o.Model != nil || o.ModelErr == nil || o.Runs != 11 {
		t.Errorf("all failed: best %v, model %v, model error %v, %d runs", o.Best, o.Model, o.ModelErr, o.Runs)
	}
}

func TestBadObjectives(t *testing.T) {
	s := synthetic(t)
	ev := Parallel(func(ctx context.Context, c Config) Result {
		switch c.String() {
		case "a=1 b=1 c=1":
			return Result{Objective: 0}
		case "a=1 b=1 c=2":
			return Result{Objective: math.NaN()}
		}
		return Result{Objective: formula(c)}
	}, 1)
	o, err := Exhaustive{}.Run(context.Background(), s, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Trials[0].OK() || o.Trials[1].OK() || o.Best.Objective != optimum {
		t.Errorf("trials %s, %s, best %s", o.Trials[0], o.Trials[1], o.Best)
	}
}

// short returns one result fewer than asked.
type short struct{}

func (short) Evaluate(_ context.Context, batch []Config) []Result {
	out := make([]Result, len(batch)-1)
	for i := range out {
		out[i] = Result{Objective: formula(batch[i])}
	}
	return out
}

func TestEvaluatorMissingResults(t *testing.T) {
	s := synthetic(t)
	o, err := Random{Seed: 1}.Run(context.Background(), s, short{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if o.Runs != 10 || o.Trials[0].OK() || o.Trials[9].OK() || !o.Trials[8].OK() {
		t.Errorf("%d runs; trials %v", o.Runs, trialKeys(o))
	}
}

func TestCancel(t *testing.T) {
	s := synthetic(t)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	ev := Parallel(func(ctx context.Context, c Config) Result {
		n++
		if n == 5 {
			cancel()
		}
		return Result{Objective: formula(c)}
	}, 1)
	o, err := ModelBased{Seed: 1}.Run(ctx, s, ev, 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if o == nil || o.Runs != 11 || n != 5 || o.Trials[5].Err == nil {
		t.Errorf("outcome %+v, %d evaluated", o, n)
	}
}

func TestUnboundVariable(t *testing.T) {
	s := cube(t)
	for _, st := range []Strategy{Exhaustive{}, Random{}, Genetic{}, ModelBased{}} {
		_, err := st.Run(context.Background(), s, newCounter(nil), 10)
		if err == nil || !strings.Contains(err.Error(), "ranks") {
			t.Errorf("%v: error %v, want one naming ranks", st, err)
		}
	}
}

func TestWarmStart(t *testing.T) {
	s, err := NewSpace([]Param{
		{Name: "a", Kind: Arg, Values: pow2Values()},
		{Name: "b", Kind: Arg, Values: pow2Values()},
		{Name: "c", Kind: Arg, Values: pow2Values()},
		{Name: "size", Kind: Arg, Values: []string{"16"}},
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Earlier measurements at sizes 2 and 4, and two that cannot count.
	var warm []Result
	for i, cfg := range []string{"a=1 b=2 c=4", "a=8 b=1 c=2", "a=2 b=32 c=8", "a=64 b=4 c=1", "a=4 b=4 c=16", "a=16 b=64 c=2"} {
		c, _ := ParseConfig(cfg + fmt.Sprintf(" size=%d", 2<<(i%2)))
		warm = append(warm, Result{Config: c, Objective: formula(c)})
	}
	bad, _ := ParseConfig("a=1 b=2 c=4 size=4")
	unknown, _ := ParseConfig("a=one b=2 c=4 size=4")
	warm = append(warm, Result{Config: bad, Err: errors.New("crashed")}, Result{Config: unknown, Objective: 3})
	ev := newCounter(nil)
	o, err := ModelBased{Seed: 1, Initial: 4, Warm: warm}.Run(context.Background(), s, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Runs != 35 || o.Models[0].Samples() != 11 {
		t.Errorf("%d runs, first model on %d samples; want 35 and 11", o.Runs, o.Models[0].Samples())
	}
	if o.Best.Config.String() != "a=1 b=128 c=1 size=16" {
		t.Errorf("best %s", o.Best)
	}
	if diff := cmp.Diff([]string{"1", "a * b^-1", "c", "size"}, sortedTerms(o.Model)); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}
