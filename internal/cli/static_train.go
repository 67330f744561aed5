package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/static/corpus"
	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
	"github.com/iolens/iolens/static/train"
)

type trainFlags struct {
	corpus   string
	test     string
	testSet  bool // --test given
	out      string
	folds    int
	version  string
	programs string
	samples  bool
	noProbe  bool
	runs     int
	// measurements is the file of measured runs kept between trainings.
	measurements string
}

func newStaticTrainCmd(e *env) *cobra.Command {
	var f trainFlags
	cmd := &cobra.Command{
		Use:   "train [--corpus DIR] [--test DIR] [-o FILE] [--folds K] [--runs N] [--measurements FILE] [--samples]",
		Short: "Fit the CIOC model on a corpus of workload programs measured with the collector",
		Long: `Train builds and runs every program of the corpus (a directory with a
corpus.json manifest) under the collector, with -finstrument-functions, to
measure the I/O intensity of each function (its I/O time over its wall
time, the median of --runs runs); analyses the same sources statically; and fits the CIOC model on
the pairs by least squares with backward stepwise selection (variables
with |t| < 2 are dropped). It prints the coefficients with their standard
errors and t-ratios, R², adjusted R² and F, and the cross-validated class
accuracy (compute < 0.3 ≤ balanced ≤ 0.7 < data) and mean absolute error,
next to those of the shipped model. -o writes the fitted model, which
iolens static --model FILE uses.

The programs are split into two sets: the training corpus (--corpus), the
only one fitted and cross-validated on, and a held-out test set (--test, a
manifest marked "set": "test"), never used for fitting or tuning. After
the fit, the test set is measured and analysed the same way and the fitted
and shipped models are scored on it: class accuracy, mean absolute error
and bottleneck recall, the share of test programs whose measured
bottleneck (the function with the most I/O time of its own) is among the
top 3 functions of the ranking iolens static prints. The misses are listed.
The ranking has no fitted parameter: its recall on the training programs
is reported too.
The sets must not share a program or a source, and --programs may only
name training programs. --test "" skips the test set.

--measurements FILE keeps the measured runs: a later training with the
same FILE runs only the programs whose sources, build, arguments, ranks
or --runs changed, and fits and scores the current analysis on the
recorded runs of the others. Measurements depend on the machine and the
collector: remove FILE when either changes.`,
		Example: `  iolens static train
  iolens static train --corpus testdata/static/corpus --test testdata/static/test --samples
  iolens static train --corpus testdata/static/corpus -o static/model/cioc-v31.json --version 31
  iolens static train --measurements /var/tmp/cioc-runs.json --samples`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.testSet = cmd.Flags().Changed("test")
			return runStaticTrain(cmd.Context(), e, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.corpus, "corpus", "testdata/static/corpus", "training corpus directory (with corpus.json)")
	fl.StringVar(&f.test, "test", defaultTestSet, `held-out test set directory (with corpus.json, "set": "test"); "" for none`)
	fl.StringVarP(&f.out, "output", "o", "", "write the fitted model to FILE")
	fl.IntVar(&f.folds, "folds", 0, "cross-validation folds (0: leave one out)")
	fl.StringVar(&f.version, "version", "trained", "version name of the fitted model")
	fl.StringVar(&f.programs, "programs", "", "comma-separated programs of the training corpus to use (default: all)")
	fl.BoolVar(&f.samples, "samples", false, "print every function with its measured and predicted intensity")
	fl.BoolVar(&f.noProbe, "no-probe", false, "do not measure the storage: use its device class's typical figures")
	fl.IntVar(&f.runs, "runs", train.DefaultRuns, "runs of each program: a function's intensity is the median")
	fl.StringVar(&f.measurements, "measurements", "", "keep the measured runs in FILE (JSON) and reuse those of unchanged programs")
	return cmd
}

func runStaticTrain(ctx context.Context, e *env, f *trainFlags) error {
	if f.folds < 0 {
		return usagef("--folds must not be negative")
	}
	if f.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	opts := train.Options{Corpus: f.corpus, Test: f.test, Folds: f.folds, Runs: f.runs, Version: f.version, Log: e.stderr}
	if !f.testSet && f.test == defaultTestSet {
		// The default test set is relative to the repository: run
		// elsewhere without --test, there is none.
		if _, err := os.Stat(filepath.Join(f.test, corpus.ManifestName)); err != nil {
			fmt.Fprintf(e.stderr, "no test set in %s: evaluating on none (--test DIR names one)\n", f.test)
			opts.Test = ""
		}
	}
	if f.programs != "" {
		opts.Programs = strings.Split(f.programs, ",")
	}
	if f.measurements != "" {
		m, err := train.OpenMeasurements(f.measurements)
		if err != nil {
			return err
		}
		opts.Measurements = m
	}
	// The split is checked before the storage is probed and anything is
	// built.
	if err := train.Check(opts); err != nil {
		return err
	}
	// The programs run in temporary directories: the storage there is
	// the one they measure.
	prof, err := sysprof.Probe(ctx, os.TempDir(), sysprof.Options{NoProbe: f.noProbe})
	if err != nil {
		return fmt.Errorf("profiling the storage: %w", err)
	}
	opts.System = prof
	res, err := train.Run(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, res.Table.String())
	fmt.Fprintf(e.stdout, "\nCross-validation on the training set (%s, %d functions of %d programs): class accuracy %.1f%%, mean absolute error %.3f\n",
		foldsName(res.CV.Folds, res.CV.N), res.CV.N, countPrograms(res.Samples), 100*res.CV.Accuracy, res.CV.MAE)
	fmt.Fprintf(e.stdout, "Leaving one program out at a time (%d programs): class accuracy %.1f%%, mean absolute error %.3f\n",
		res.ProgramCV.Folds, 100*res.ProgramCV.Accuracy, res.ProgramCV.MAE)
	fmt.Fprintf(e.stdout, "Shipped model (%s) on the same functions: class accuracy %.1f%%, mean absolute error %.3f\n",
		model.Default().Version, 100*res.PriorCV.Accuracy, res.PriorCV.MAE)
	if n := len(res.Bottlenecks); n > 0 {
		fmt.Fprintf(e.stdout, "Bottleneck recall on the training set: %d/%d (%.0f%%, top %d)\n",
			res.Hits(), n, 100*float64(res.Hits())/float64(n), res.TopK)
	}
	if res.Test != nil {
		writeTestSet(e.stdout, res.Test)
	}
	if f.samples {
		tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "\nTRAINING SET\nPROGRAM\tFUNCTION\tWALL (s)\tMEASURED\tCV PREDICTED\tSHIPPED")
		for i, s := range res.Samples {
			fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.3f\t%.3f\t%.3f\n", s.Program, s.Function, s.Wall, s.Measured, res.CV.Predicted[i], s.Prior)
		}
		writeBottlenecks(tw, "TRAINING-SET BOTTLENECKS (shipped model)", res.Bottlenecks, res.TopK)
		if t := res.Test; t != nil {
			fmt.Fprintln(tw, "\nTEST SET\nPROGRAM\tFUNCTION\tWALL (s)\tMEASURED\tFITTED\tSHIPPED")
			for _, s := range t.Samples {
				fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.3f\t%.3f\t%.3f\n", s.Program, s.Function, s.Wall, s.Measured, s.Fitted, s.Prior)
			}
			writeBottlenecks(tw, "TEST-SET BOTTLENECKS (fitted model)", t.Fitted.Bottlenecks, t.TopK)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := res.Model.Save(f.out); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "model written to %s\n", f.out)
	}
	return nil
}

// defaultTestSet is the held-out test set of the repository.
const defaultTestSet = "testdata/static/test"

// writeTestSet prints the scores of both models on the test set and the
// bottlenecks they miss.
func writeTestSet(w io.Writer, t *train.TestResult) {
	fmt.Fprintf(w, "\nTest set (%s: %d programs, %d functions, never fitted on):\n", t.Dir, len(t.Programs), len(t.Samples))
	for _, m := range []struct {
		name string
		ev   train.Evaluation
	}{{"fitted model", t.Fitted}, {"shipped model", t.Shipped}} {
		fmt.Fprintf(w, "  %s (%s): class accuracy %.1f%%, mean absolute error %.3f, bottleneck recall %d/%d (%.0f%%, top %d)\n",
			m.name, m.ev.Model, 100*m.ev.Accuracy, m.ev.MAE, m.ev.Hits(), len(m.ev.Bottlenecks), 100*m.ev.Recall, t.TopK)
	}
	var misses []string
	for _, m := range []struct {
		name string
		ev   train.Evaluation
	}{{"fitted", t.Fitted}, {"shipped", t.Shipped}} {
		for _, b := range m.ev.Bottlenecks {
			if !b.Hit {
				misses = append(misses, fmt.Sprintf("  %s model: %s/%s: measured intensity %.3f (%.4f s of its own I/O), predicted %.3f; ranked %s, top %d: %s",
					m.name, b.Program, b.Function, b.Measured, b.IOTime, b.Predicted, rankText(b.Rank), t.TopK, strings.Join(b.Top, ", ")))
			}
		}
	}
	if n := len(t.Programs) - len(t.Fitted.Bottlenecks); n > 0 {
		fmt.Fprintf(w, "  %d of the %d programs not counted for recall: none of their functions does %g ms of I/O of its own\n",
			n, len(t.Programs), 1e3*train.DefaultMinWall)
	}
	if len(misses) > 0 {
		fmt.Fprintf(w, "Bottlenecks missed (the function with the most measured I/O of its own is not in the top %d):\n%s\n", t.TopK, strings.Join(misses, "\n"))
	}
}

// writeBottlenecks prints a table of bottlenecks under title.
func writeBottlenecks(w io.Writer, title string, bs []train.Bottleneck, topK int) {
	fmt.Fprintf(w, "\n%s\nPROGRAM\tFUNCTION\tOWN I/O (s)\tMEASURED\tPREDICTED\tRANK\tTOP %d\n", title, topK)
	for _, b := range bs {
		fmt.Fprintf(w, "%s\t%s\t%.4f\t%.3f\t%.3f\t%s\t%s\n", b.Program, b.Function, b.IOTime, b.Measured, b.Predicted, rankText(b.Rank), strings.Join(b.Top, ", "))
	}
}

// rankText prints a rank of the static ranking, 0 being none.
func rankText(r int) string {
	if r == 0 {
		return "not ranked"
	}
	return fmt.Sprintf("#%d", r)
}

// countPrograms is the number of programs the samples come from.
func countPrograms(samples []train.Sample) int {
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.Program] = true
	}
	return len(seen)
}

func foldsName(k, n int) string {
	if k >= n || k < 2 {
		return "leave-one-out"
	}
	return fmt.Sprintf("%d-fold", k)
}
