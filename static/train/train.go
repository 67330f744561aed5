// Package train fits the CIOC model on a corpus of workload programs: it
// measures the I/O intensity of each program's functions under the
// collector (static/corpus), predicts the same functions' parameters from
// their source (static), and fits the model on the pairs (static/model).
//
// The programs are split: the model is fitted and cross-validated on a
// training corpus only, then evaluated on a held-out test set of other
// programs (class accuracy, mean absolute error and bottleneck recall, see
// TestResult). Run refuses to train on a test-set program (see Check and
// CheckSplit).
package train

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/corpus"
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
)

// DefaultMinWall is the shortest inclusive wall time, in seconds, of a
// function used as a sample: shorter ones are dominated by timer and
// instrumentation noise.
const DefaultMinWall = 2e-3

// DefaultRuns is how many times each program is measured.
const DefaultRuns = 3

// Options control Run.
type Options struct {
	// Corpus is the directory of the training corpus manifest: the model
	// is fitted and cross-validated on its programs only. A manifest
	// marked as a test set (corpus.SetTest) is refused.
	Corpus string
	// Test is the directory of the held-out test set manifest, marked as
	// such, whose programs are never fitted on: after the fit, the fitted
	// and the shipped models are evaluated on them (see TestResult).
	// Empty means no test-set evaluation. The two sets must not share a
	// program name or a source file (see CheckSplit).
	Test string
	// Programs restricts the training to these programs of the corpus
	// (all when empty); naming a program the corpus does not have, or
	// one of the test set, is an error.
	Programs []string
	// Folds of the cross-validation; 0 means leave-one-out.
	Folds int
	// MinWall is the shortest function used (DefaultMinWall when 0).
	MinWall float64
	// Runs is how many times each program is measured (DefaultRuns when
	// 0): a function's intensity and wall time are the medians.
	Runs int
	// System is the machine profile the static side scores for.
	System sysprof.Profile
	// Measure configures the measured runs.
	Measure corpus.Options
	// Version names the fitted model.
	Version string
	// TopK is how many of the functions the static ranking puts first
	// count for bottleneck recall (DefaultTopK when 0).
	TopK int
	// Log receives progress, one line per program; nil discards it.
	Log io.Writer
	// Measurements, when not nil, keeps the measured programs: those
	// recorded with the same sources, build, arguments, ranks and runs
	// are not run again, the others are recorded.
	Measurements *Measurements
}

// Sample is one function with its measured and static sides.
type Sample struct {
	Program  string          `json:"program"`
	Function string          `json:"function"`
	Wall     float64         `json:"wall"`
	Measured float64         `json:"measured"`
	Prior    float64         `json:"prior"` // the shipped model's prediction
	Params   features.Params `json:"params"`
}

// Result is a fitted model and how well it predicts.
type Result struct {
	Samples []Sample
	Model   model.Model
	Table   model.Table
	// CV is the cross-validation of the fitting procedure, PriorCV the
	// score of the shipped model on the same samples.
	CV      model.CVResult
	PriorCV model.CVResult
	// ProgramCV holds out one program at a time: each program's functions
	// predicted by a model fitted on the other programs, the closest the
	// training set comes to a program never seen.
	ProgramCV model.CVResult
	// Bottlenecks are the measured I/O bottlenecks of the training
	// programs and where the static ranking puts them (see Bottleneck).
	// The ranking orders blocks by their estimated I/O time, which no
	// fitted coefficient enters, so its recall on the training set
	// measures the analysis much as a held-out set would.
	Bottlenecks []Bottleneck
	// TopK is how many ranked functions count for bottleneck recall.
	TopK int
	// Test is the evaluation on the held-out test set; nil without
	// Options.Test.
	Test *TestResult
}

// Hits is the number of training programs whose bottleneck is in the top
// TopK of the ranking.
func (r *Result) Hits() int { return hits(r.Bottlenecks) }

// Run measures the training corpus, analyses its sources and fits and
// cross-validates the model on it; then, with Options.Test, it measures
// the test set and evaluates the fitted and the shipped models on it. The
// split is checked before anything is measured.
func Run(ctx context.Context, opts Options) (*Result, error) {
	man, test, err := loadSplit(opts)
	if err != nil {
		return nil, err
	}
	minWall := opts.MinWall
	if minWall == 0 {
		minWall = DefaultMinWall
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	res := &Result{TopK: cmp.Or(opts.TopK, DefaultTopK)}
	prior := model.Default()
	sys := opts.System.System()
	for _, prog := range man.Programs {
		if len(opts.Programs) > 0 && !slices.Contains(opts.Programs, prog.Name) {
			continue
		}
		samples, b, err := programSamples(ctx, prog, opts, minWall, res.TopK)
		if err != nil {
			return nil, err
		}
		if b != nil {
			res.Bottlenecks = append(res.Bottlenecks, *b)
		}
		for i := range samples {
			samples[i].Prior = prior.Predict(samples[i].Params, sys)
		}
		fmt.Fprintf(logw, "%-16s %d functions\n", prog.Name, len(samples))
		res.Samples = append(res.Samples, samples...)
	}
	ms := make([]model.Sample, len(res.Samples))
	for i, s := range res.Samples {
		ms[i] = model.NewSample(s.Program+"/"+s.Function, s.Params, sys, s.Measured)
		ms[i].Group = s.Program
	}
	fo := model.FitOptions{Version: opts.Version,
		TrainedOn: fmt.Sprintf("%d functions of %d programs of the corpus in %s", len(ms), countPrograms(res.Samples), opts.Corpus)}
	if res.Model, res.Table, err = model.Fit(ms, fo); err != nil {
		return nil, fmt.Errorf("fitting the model: %w", err)
	}
	if res.CV, err = model.CrossValidate(ms, opts.Folds, fo); err != nil {
		return nil, fmt.Errorf("cross-validating the model: %w", err)
	}
	if res.ProgramCV, err = model.CrossValidateGroups(ms, fo); err != nil {
		return nil, fmt.Errorf("cross-validating the model by program: %w", err)
	}
	res.PriorCV = score(res.Samples, func(s Sample) float64 { return s.Prior })
	if test != nil {
		if res.Test, err = evaluate(ctx, *test, res.Model, opts, minWall); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// programSamples measures one program and pairs its functions with their
// static parameters; it also returns the program's bottleneck, nil when it
// has too little I/O to have one.
func programSamples(ctx context.Context, prog corpus.Program, opts Options, minWall float64, topK int) ([]Sample, *Bottleneck, error) {
	meas, err := measure(ctx, prog, opts)
	if err != nil {
		return nil, nil, err
	}
	an, err := analyze(ctx, prog, opts, nil)
	if err != nil {
		return nil, nil, err
	}
	meas = sourceNames(meas, an)
	var bn *Bottleneck
	if b, ok := bottleneck(prog.Name, meas, an, topK, minWall); ok {
		bn = &b
	}
	return pair(prog.Name, meas, an, minWall), bn, nil
}

// gfortranMain is the symbol gfortran gives a Fortran main program.
const gfortranMain = "MAIN__"

// sourceNames returns meas with the Fortran main program, measured under
// its symbol MAIN__, named as the analysis names it: by its PROGRAM
// statement (the entry of an).
func sourceNames(meas []corpus.Function, an *static.Result) []corpus.Function {
	out := slices.Clone(meas)
	for i := range out {
		if out[i].Name == gfortranMain && an.Entry != "" {
			out[i].Name = an.Entry
		}
	}
	return out
}

// analyze runs the static analysis of prog's sources with model m (nil:
// the shipped model), with the program's arguments and ranks.
func analyze(ctx context.Context, prog corpus.Program, opts Options, m *model.Model) (*static.Result, error) {
	files := make([]string, len(prog.Sources))
	for i, s := range prog.Sources {
		files[i] = filepath.Join(prog.Dir, s)
	}
	args := make([]string, len(prog.Args))
	for i, a := range prog.Args {
		args[i] = strings.ReplaceAll(a, "{dir}", "out")
	}
	an, err := static.Analyze(ctx, files, static.Options{Args: args, System: opts.System, Procs: max(prog.Ranks, 1), Model: m})
	if err != nil {
		return nil, fmt.Errorf("analysing %s: %w", prog.Name, err)
	}
	return an, nil
}

// pair returns the samples of a program: its measured functions of at
// least minWall that the analysis found as reachable function blocks,
// with their static parameters.
func pair(program string, meas []corpus.Function, an *static.Result, minWall float64) []Sample {
	funcs := map[string]features.Params{}
	for _, b := range an.Blocks {
		if b.Kind == features.FunctionBlock && !b.Unreachable {
			if _, dup := funcs[b.Name]; !dup {
				funcs[b.Name] = b.Features.Params
			}
		}
	}
	var out []Sample
	for _, f := range meas {
		p, ok := funcs[f.Name]
		if !ok || f.Wall < minWall {
			continue
		}
		out = append(out, Sample{Program: program, Function: f.Name, Wall: f.Wall, Measured: f.Intensity, Params: p})
	}
	return out
}

// measure runs prog opts.Runs times and returns, per function measured in
// every run, the median wall time, I/O times and intensity, in the order
// of the first run.
func measure(ctx context.Context, prog corpus.Program, opts Options) ([]corpus.Function, error) {
	runs := opts.Runs
	if runs <= 0 {
		runs = DefaultRuns
	}
	if opts.Measurements != nil {
		funcs, ok, err := opts.Measurements.Get(prog, runs)
		if err != nil || ok {
			return funcs, err
		}
	}
	var first []corpus.Function
	walls := map[string][]float64{}
	intensities := map[string][]float64{}
	ios := map[string][]float64{}
	selfs := map[string][]float64{}
	for range runs {
		m, err := corpus.Measure(ctx, prog, opts.Measure)
		if err != nil {
			return nil, fmt.Errorf("measuring %s: %w", prog.Name, err)
		}
		if first == nil {
			first = m.Functions
		}
		for _, f := range m.Functions {
			walls[f.Name] = append(walls[f.Name], f.Wall)
			intensities[f.Name] = append(intensities[f.Name], f.Intensity)
			ios[f.Name] = append(ios[f.Name], f.IOTime)
			selfs[f.Name] = append(selfs[f.Name], f.SelfIO)
		}
	}
	var out []corpus.Function
	for _, f := range first {
		if len(walls[f.Name]) != runs {
			continue
		}
		f.Wall, f.Intensity = median(walls[f.Name]), median(intensities[f.Name])
		f.IOTime, f.SelfIO = median(ios[f.Name]), median(selfs[f.Name])
		out = append(out, f)
	}
	if opts.Measurements != nil {
		if err := opts.Measurements.Put(prog, runs, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// median returns the median of v (the mean of the middle two for an even
// count); it sorts v.
func median(v []float64) float64 {
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}

// score is the accuracy and mean absolute error of fixed predictions.
func score(samples []Sample, predict func(Sample) float64) model.CVResult {
	pred, meas := make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		pred[i], meas[i] = predict(s), s.Measured
	}
	return scoreValues(pred, meas)
}

// scoreValues is the class accuracy and mean absolute error of the
// predictions pred of the measured intensities meas.
func scoreValues(pred, meas []float64) model.CVResult {
	r := model.CVResult{N: len(pred), Predicted: pred}
	for i, p := range pred {
		if model.ClassOf(p) == model.ClassOf(meas[i]) {
			r.Accuracy++
		}
		r.MAE += abs(p - meas[i])
	}
	if r.N > 0 {
		r.Accuracy /= float64(r.N)
		r.MAE /= float64(r.N)
	}
	return r
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func countPrograms(s []Sample) int {
	seen := map[string]bool{}
	for _, x := range s {
		seen[x.Program] = true
	}
	return len(seen)
}
