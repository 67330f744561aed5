package tune

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Cached returns an Evaluator that consults a session of a history first:
// a configuration the session has already measured gets its recorded
// result (marked Reused) without a run, and every new result is recorded
// in the session as soon as it is known (at once for a Streamer, else when
// its batch ends). Trials interrupted by the cancellation of their
// context are not recorded, so that a resumed session runs them. A result
// that cannot be recorded is returned failed, with the recording error.
// A search with the same seed, resumed on the same session, thus replays
// the trials already made and continues where it stopped.
func Cached(ev Evaluator, h *History, session int64) Evaluator {
	return &cached{ev: ev, h: h, session: session}
}

// cached is the Evaluator of Cached.
type cached struct {
	ev      Evaluator
	h       *History
	session int64
}

// Evaluate implements Evaluator.
func (c *cached) Evaluate(ctx context.Context, batch []Config) []Result {
	out := make([]Result, len(batch))
	known := map[string]Result{}
	prev, err := c.h.Resume(c.session)
	if err != nil {
		for i, cfg := range batch {
			out[i] = Result{Config: cfg, Err: fmt.Errorf("consulting the history: %w", err)}
		}
		return out
	}
	for _, r := range prev {
		if _, seen := known[r.Config.Key()]; !seen {
			known[r.Config.Key()] = r
		}
	}
	var todo []Config
	var where []int
	for i, cfg := range batch {
		if r, ok := known[cfg.Key()]; ok {
			r.Config = cfg
			out[i] = r
			continue
		}
		todo = append(todo, cfg)
		where = append(where, i)
	}
	if len(todo) == 0 {
		return out
	}
	var mu sync.Mutex
	recorded := make([]bool, len(todo))
	record := func(i int, r Result) {
		if errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded) {
			return
		}
		if _, err := c.h.Record(c.session, r); err != nil {
			r = Result{Config: r.Config, Err: err, Wall: r.Wall, Log: r.Log}
		}
		mu.Lock()
		out[where[i]] = r
		recorded[i] = true
		mu.Unlock()
	}
	var res []Result
	if s, ok := c.ev.(Streamer); ok {
		res = s.EvaluateStream(ctx, todo, record)
	} else {
		res = c.ev.Evaluate(ctx, todo)
	}
	for i := range todo {
		r := Result{Config: todo[i], Err: errors.New("the evaluator returned no result")}
		if i < len(res) {
			r = res[i]
			r.Config = todo[i]
		}
		mu.Lock()
		done := recorded[i]
		mu.Unlock()
		if !done {
			out[where[i]] = r
			record(i, r)
		}
	}
	return out
}
