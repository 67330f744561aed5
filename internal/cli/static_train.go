package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
	"github.com/iolens/iolens/static/train"
)

type trainFlags struct {
	corpus   string
	out      string
	folds    int
	version  string
	programs string
	samples  bool
	noProbe  bool
	runs     int
}

func newStaticTrainCmd(e *env) *cobra.Command {
	var f trainFlags
	cmd := &cobra.Command{
		Use:   "train [--corpus DIR] [-o FILE] [--folds K] [--samples]",
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
iolens static --model FILE uses.`,
		Example: `  iolens static train --corpus testdata/static/corpus
  iolens static train --corpus testdata/static/corpus -o static/model/cioc-v1.json --version 1`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStaticTrain(cmd.Context(), e, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.corpus, "corpus", "testdata/static/corpus", "corpus directory (with corpus.json)")
	fl.StringVarP(&f.out, "output", "o", "", "write the fitted model to FILE")
	fl.IntVar(&f.folds, "folds", 0, "cross-validation folds (0: leave one out)")
	fl.StringVar(&f.version, "version", "trained", "version name of the fitted model")
	fl.StringVar(&f.programs, "programs", "", "comma-separated programs of the corpus to use (default: all)")
	fl.BoolVar(&f.samples, "samples", false, "print every function with its measured and predicted intensity")
	fl.BoolVar(&f.noProbe, "no-probe", false, "do not measure the storage: use its device class's typical figures")
	fl.IntVar(&f.runs, "runs", train.DefaultRuns, "runs of each program: a function's intensity is the median")
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
	// The programs run in temporary directories: the storage there is
	// the one they measure.
	prof, err := sysprof.Probe(ctx, os.TempDir(), sysprof.Options{NoProbe: f.noProbe})
	if err != nil {
		return fmt.Errorf("profiling the storage: %w", err)
	}
	opts := train.Options{Corpus: f.corpus, Folds: f.folds, Runs: f.runs, System: prof, Version: f.version, Log: e.stderr}
	if f.programs != "" {
		opts.Programs = strings.Split(f.programs, ",")
	}
	res, err := train.Run(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, res.Table.String())
	fmt.Fprintf(e.stdout, "\nCross-validation (%s, %d functions): class accuracy %.1f%%, mean absolute error %.3f\n",
		foldsName(res.CV.Folds, res.CV.N), res.CV.N, 100*res.CV.Accuracy, res.CV.MAE)
	fmt.Fprintf(e.stdout, "Shipped model (%s) on the same functions: class accuracy %.1f%%, mean absolute error %.3f\n",
		model.Default().Version, 100*res.PriorCV.Accuracy, res.PriorCV.MAE)
	if f.samples {
		tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "\nPROGRAM\tFUNCTION\tWALL (s)\tMEASURED\tCV PREDICTED\tSHIPPED")
		for i, s := range res.Samples {
			fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.3f\t%.3f\t%.3f\n", s.Program, s.Function, s.Wall, s.Measured, res.CV.Predicted[i], s.Prior)
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

func foldsName(k, n int) string {
	if k >= n || k < 2 {
		return "leave-one-out"
	}
	return fmt.Sprintf("%d-fold", k)
}
