package tune

import (
	"context"
	"sync"
)

// Func runs one trial.
type Func func(ctx context.Context, c Config) Result

// Streamer is an Evaluator that also reports each result as soon as it is
// known, so that it can be recorded before the batch ends: done is called
// once per configuration, with its index in the batch, possibly from
// several goroutines at once.
type Streamer interface {
	Evaluator
	EvaluateStream(ctx context.Context, batch []Config, done func(i int, r Result)) []Result
}

// Parallel returns an Evaluator that runs the trials of a batch with f, at
// most workers at a time (workers < 1: one). It is a Streamer.
func Parallel(f Func, workers int) Streamer {
	return parallel{f: f, workers: max(workers, 1)}
}

// parallel is the Evaluator of Parallel.
type parallel struct {
	f       Func
	workers int
}

// Evaluate implements Evaluator.
func (p parallel) Evaluate(ctx context.Context, batch []Config) []Result {
	return p.EvaluateStream(ctx, batch, nil)
}

// EvaluateStream implements Streamer.
func (p parallel) EvaluateStream(ctx context.Context, batch []Config, done func(int, Result)) []Result {
	out := make([]Result, len(batch))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(p.workers, len(batch)) {
		wg.Go(func() {
			for i := range next {
				var r Result
				if err := ctx.Err(); err != nil {
					r = Result{Config: batch[i], Err: err}
				} else {
					r = p.f(ctx, batch[i])
					r.Config = batch[i]
				}
				out[i] = r
				if done != nil {
					done(i, r)
				}
			}
		})
	}
	for i := range batch {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
