// Command tune is the tuning benchmark (make bench-tune): on the IOR-like
// MPI-IO kernel with 4 ranks (by default 2 segments of 1 MiB per rank in
// strided 1 KiB collective transfers) it measures every configuration of a space of
// MPI-IO hints once (the ground truth, kept in a tuning history so that the
// benchmark can be scored again without running it), then replays the
// model-based, genetic and random searches against those measurements and
// reports how many runs each needs to come within 10% of the optimum, the
// best configuration's speedup over the default, and the model's relative
// error on configurations it did not see.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/iolens/iolens/tune"
	"github.com/iolens/iolens/tune/trial"
)

const spaceFile = `# MPI-IO hints of ROMIO: 3^6 = 729 configurations.
[[param]]
name = "cb_nodes"
kind = "mpiio"
values = ["1", "2", "4"]
default = "1" # ROMIO's: one aggregator per node

[[param]]
name = "cb_buffer_size"
kind = "mpiio"
values = ["64K", "1M", "16M"]
default = "16M"

[[param]]
name = "romio_cb_write"
kind = "mpiio"
values = ["automatic", "enable", "disable"]

[[param]]
name = "romio_cb_read"
kind = "mpiio"
values = ["automatic", "enable", "disable"]

[[param]]
name = "romio_ds_write"
kind = "mpiio"
values = ["automatic", "enable", "disable"]

[[param]]
name = "romio_ds_read"
kind = "mpiio"
values = ["automatic", "enable", "disable"]
`

func main() {
	dir := flag.String("dir", "/var/tmp/iolens-bench-tune", "work directory (the ground truth is kept there)")
	ranks := flag.String("ranks", "4", "MPI ranks of the kernel")
	seeds := flag.Int("seeds", 5, "seeds of each search (medians are reported)")
	v := flag.Bool("v", false, "print the final model of each model-based search")
	block := flag.String("block", "1048576", "bytes each rank writes per segment")
	xfer := flag.String("xfer", "1024", "bytes per transfer")
	segments := flag.String("segments", "2", "segments of the shared file")
	flag.Parse()
	if err := run(*dir, *ranks, []string{*block, *xfer, *segments}, *seeds, *v); err != nil {
		fmt.Fprintln(os.Stderr, "bench-tune:", err)
		os.Exit(1)
	}
}

func run(dir, ranks string, shape []string, seeds int, verbose bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	os.Setenv("OMPI_MCA_rmaps_base_oversubscribe", "1")
	// ROMIO reads these hints; Open MPI's default MPI-IO (OMPIO) ignores
	// most of them, so the kernel runs with Open MPI's ROMIO. (MPICH's
	// collective I/O with more ranks than cores busy-waits: 45 s a trial.)
	mpicc, mpiexec := "mpicc.openmpi", "mpiexec.openmpi"
	kernel := filepath.Join(dir, "iorlike")
	if out, err := exec.Command(mpicc, "-O2", "-o", kernel, "bench/kernels/iorlike.c").CombinedOutput(); err != nil {
		return fmt.Errorf("building the kernel: %v\n%s", err, out)
	}
	s, err := tune.ParseSpace([]byte(spaceFile), "bench space")
	if err != nil {
		return err
	}
	// Small strided collective writes and reads of a shared file: what
	// collective buffering and data sieving are for.
	cmd := append([]string{mpiexec, "--mca", "io", "romio321", "-n", ranks, kernel, filepath.Join(dir, "shared.dat")}, shape...)
	cmd = append(cmd, "strided", "coll")
	truth, err := groundTruth(dir, s, cmd)
	if err != nil {
		return err
	}
	best, def := truth[0], truth[0]
	byKey := map[string]tune.Result{}
	for _, r := range truth {
		byKey[r.Config.Key()] = r
		if r.OK() && (!best.OK() || r.Objective < best.Objective) {
			best = r
		}
		if r.Config.Key() == s.Default().Key() {
			def = r
		}
	}
	fmt.Printf("space: %d configurations; kernel: %s\n", len(truth), strings.Join(cmd[1:], " "))
	fmt.Printf("exhaustive optimum %.4g s (%s); default %.4g s: %.2fx faster\n",
		best.Objective, best.Config, def.Objective, def.Objective/best.Objective)

	replay := tune.Parallel(func(_ context.Context, c tune.Config) tune.Result {
		r, ok := byKey[c.Key()]
		if !ok {
			return tune.Result{Config: c, Err: errors.New("not measured")}
		}
		return r
	}, 1)
	within := best.Objective * 1.1
	fmt.Printf("\n%-10s %8s %22s %14s\n", "strategy", "budget", "runs to within 10%", "best found")
	for _, name := range []string{"model", "ga", "random"} {
		var toTen []float64
		var found []float64
		budget := int(math.Ceil(0.15 * float64(len(truth))))
		for seed := range uint64(seeds) {
			var st tune.Strategy
			b := budget
			switch name {
			case "model":
				st = tune.ModelBased{Seed: seed + 1}
			case "ga":
				st = tune.Genetic{Seed: seed + 1}
				b = len(truth)
			case "random":
				st = tune.Random{Seed: seed + 1}
				b = len(truth)
			}
			out, err := st.Run(context.Background(), s, replay, b)
			if err != nil && out == nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if out.ModelErr != nil {
				fmt.Printf("  %s, seed %d: no model: %v\n", name, seed+1, out.ModelErr)
			}
			if verbose && out.Model != nil {
				fmt.Printf("  %s seed %d: %d runs, model %s (relative error %.2f)\n", name, seed+1, out.Runs, out.Model, out.Model.RelativeError())
			}
			runs := math.Inf(1)
			for i, r := range out.Trials {
				if r.OK() && r.Objective <= within {
					runs = float64(i + 1)
					break
				}
			}
			toTen = append(toTen, runs)
			if out.Best != nil && len(out.Trials) > 0 {
				f := out.Best.Objective
				if name != "model" { // the best within the model's budget, for comparison
					f = math.Inf(1)
					for _, r := range out.Trials[:min(budget, len(out.Trials))] {
						if r.OK() {
							f = min(f, r.Objective)
						}
					}
				}
				found = append(found, f/best.Objective)
			}
		}
		fmt.Printf("%-10s %8d %22s %14s\n", name, budget, fmt.Sprintf("median %.0f (%.1f%%)", median(toTen), 100*median(toTen)/float64(len(truth))),
			fmt.Sprintf("%.3fx optimum", median(found)))
	}

	// The model's error on configurations it did not see: fit on a
	// random 15%, predict the rest.
	var X [][]float64
	var y []float64
	for _, r := range truth {
		if r.OK() {
			X = append(X, s.Features(r.Config))
			y = append(y, r.Objective)
		}
	}
	e, err := tune.HoldoutError(func(X [][]float64, y []float64) (*tune.Model, error) {
		return tune.Fit(X, y, tune.FitOptions{Names: s.FeatureNames()})
	}, X, y, 7)
	if err != nil {
		return err
	}
	fmt.Printf("\nmodel relative error on held-out configurations (7-fold): %.1f%%\n", 100*e)
	return nil
}

// groundTruth measures every configuration once, or reads the measurements
// of an earlier run from the history in dir.
func groundTruth(dir string, s *tune.Space, cmd []string) ([]tune.Result, error) {
	h, err := tune.OpenHistory(filepath.Join(dir, "ground-truth.db"))
	if err != nil {
		return nil, err
	}
	defer h.Close()
	sessions, err := h.Sessions("bench-tune")
	if err != nil {
		return nil, err
	}
	command := strings.Join(cmd[1:], " ")
	id := int64(0)
	for _, ss := range sessions {
		if ss.Command == command && ss.Finished.IsZero() {
			id = ss.ID // interrupted: resumed below
		}
		if ss.Command == command && !ss.Finished.IsZero() {
			trials, err := h.Trials(ss.ID)
			if err != nil {
				return nil, err
			}
			out := make([]tune.Result, len(trials))
			failed := 0
			for i, t := range trials {
				out[i] = t.Result
				if !t.OK() {
					if failed == 0 {
						fmt.Fprintf(os.Stderr, "first failure: %s: %v\n", t.Config, t.Err)
					}
					failed++
				}
			}
			if failed > 0 {
				return nil, fmt.Errorf("%d of the %d measurements in %s failed; remove the file to measure again", failed, len(out), h.Path())
			}
			fmt.Printf("ground truth: %d measurements of session %d in %s\n", len(out), ss.ID, h.Path())
			return out, nil
		}
	}
	if id == 0 {
		if id, err = h.Begin(tune.Session{App: "bench-tune", Command: command, Space: string(s.Format()), Strategy: "exhaustive"}); err != nil {
			return nil, err
		}
	}
	fn, err := trial.Local(trial.Options{Command: cmd, Space: s, Dir: filepath.Join(dir, "trials"), Repeat: 1})
	if err != nil {
		return nil, err
	}
	fmt.Printf("measuring the %d configurations (once, resumable; kept in %s)...\n", s.Size(), h.Path())
	n := 0
	ev := tune.Cached(tune.Parallel(func(ctx context.Context, c tune.Config) tune.Result {
		r := fn(ctx, c)
		n++
		if n%50 == 0 {
			fmt.Printf("  %d done\n", n)
		}
		if r.Log != "" { // the trial's logs and output: trials/trial-N/run-1/LOG
			os.RemoveAll(filepath.Dir(filepath.Dir(r.Log)))
		}
		return r
	}, 1), h, id)
	out, err := tune.Exhaustive{}.Run(context.Background(), s, ev, 0)
	if err != nil {
		return nil, err
	}
	if err := h.Finish(id); err != nil {
		return nil, err
	}
	return slices.Clone(out.Trials), nil
}

// lockDir takes an exclusive lock on work directory dir, so that a second
// benchmark does not measure into the same ground truth at the same time;
// the returned function releases it.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is in use by another bench-tune: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
