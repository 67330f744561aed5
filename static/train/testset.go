package train

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/corpus"
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/model"
)

// DefaultTopK is how many functions of the static bottleneck ranking count
// for bottleneck recall.
const DefaultTopK = 3

// ErrTestSet is returned (wrapped) when a program of the held-out test set
// would be used for training: a test-set manifest given as the training
// corpus, a test-set program named in Options.Programs, or a training and
// a test set that share a program name or a source.
var ErrTestSet = errors.New("the held-out test set must not be used for training")

// TestResult is the evaluation of the fitted and the shipped models on
// the held-out test set.
type TestResult struct {
	// Dir is the directory of the test-set manifest; Programs the
	// programs evaluated.
	Dir      string   `json:"dir"`
	Programs []string `json:"programs"`
	// TopK is how many ranked functions count for bottleneck recall.
	TopK int `json:"top_k"`
	// Samples are the test-set functions (same selection as training:
	// measured for at least MinWall and found by the analysis).
	Samples []TestSample `json:"samples"`
	Fitted  Evaluation   `json:"fitted"`
	Shipped Evaluation   `json:"shipped"`
}

// TestSample is a test-set function with the predictions of both models:
// Prior is the shipped model's, Fitted the fitted model's.
type TestSample struct {
	Sample
	Fitted float64 `json:"fitted"`
}

// Evaluation is how well one model does on the test set.
type Evaluation struct {
	// Model is the model's version.
	Model string `json:"model"`
	// N is the number of test samples; Accuracy the share whose
	// predicted class is the measured one; MAE the mean absolute error
	// of the predicted intensity.
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	MAE      float64 `json:"mae"`
	// Recall is the share of Bottlenecks that are hits (0 without any).
	Recall      float64      `json:"bottleneck_recall"`
	Bottlenecks []Bottleneck `json:"bottlenecks"`
}

// Hits is the number of bottlenecks found in the top ranks.
func (e Evaluation) Hits() int { return hits(e.Bottlenecks) }

// hits counts the bottlenecks found in the top ranks.
func hits(bs []Bottleneck) int {
	n := 0
	for _, b := range bs {
		if b.Hit {
			n++
		}
	}
	return n
}

// Bottleneck is, for one test program, its measured I/O bottleneck and
// where the static ranking puts it. A program whose largest own I/O time
// is below the minimum wall time of a sample (Options.MinWall) has none:
// its ranking would be decided by timer noise.
type Bottleneck struct {
	Program string `json:"program"`
	// Function is the function with the largest measured I/O time of its
	// own (I/O calls made in its body, not in its callees: the place to
	// fix); IOTime that time and Measured its inclusive intensity.
	Function string  `json:"function"`
	IOTime   float64 `json:"io_time"`
	Measured float64 `json:"measured"`
	// Predicted is the CIOC of the function's block and EstIOTime its
	// estimated I/O time per invocation (0 when the analysis has no such
	// function).
	Predicted float64 `json:"predicted"`
	EstIOTime float64 `json:"est_io_time"`
	// Rank is the function's 1-based position in the static ranking of
	// functions (see RankFunctions), 0 when it is not ranked; Hit is
	// whether it is within the top TopK. Top are the first TopK ranked
	// functions.
	Rank int      `json:"rank"`
	Hit  bool     `json:"hit"`
	Top  []string `json:"top"`
}

// Check checks the split of opts without measuring anything: the training
// corpus and the test set load, are disjoint, and Options.Programs names
// only training programs. Run checks the same first.
func Check(opts Options) error {
	_, _, err := loadSplit(opts)
	return err
}

// loadSplit loads the training corpus and, with Options.Test, the test set,
// and checks that no test-set program can reach the training: the corpus
// is not a test set, the two sets are disjoint (CheckSplit), and every
// program of Options.Programs is a training program.
func loadSplit(opts Options) (corpus.Manifest, *corpus.Manifest, error) {
	man, err := corpus.Load(opts.Corpus)
	if err != nil {
		return corpus.Manifest{}, nil, err
	}
	if man.IsTest() {
		return corpus.Manifest{}, nil, fmt.Errorf("training on %s: it is a test set (%q): %w", opts.Corpus, corpus.SetTest, ErrTestSet)
	}
	var test *corpus.Manifest
	if opts.Test != "" {
		t, err := corpus.Load(opts.Test)
		if err != nil {
			return corpus.Manifest{}, nil, err
		}
		if err := CheckSplit(man, t); err != nil {
			return corpus.Manifest{}, nil, err
		}
		test = &t
	}
	for _, name := range opts.Programs {
		if test != nil {
			if _, ok := test.Program(name); ok {
				return corpus.Manifest{}, nil, fmt.Errorf("training on %q: it is a program of the test set %s: %w", name, test.Dir, ErrTestSet)
			}
		}
		if _, ok := man.Program(name); !ok {
			return corpus.Manifest{}, nil, fmt.Errorf("training on %q: no such program in the training corpus %s", name, man.Dir)
		}
	}
	return man, test, nil
}

// CheckSplit checks that train is a training corpus and test a test set
// (corpus.SetTest) that share nothing: no program name, and no source file,
// by path or by content (compared without white space, so that a copied
// or reformatted test program is caught under another name).
func CheckSplit(train, test corpus.Manifest) error {
	if train.IsTest() {
		return fmt.Errorf("%s: the training corpus is marked as a test set: %w", train.Dir, ErrTestSet)
	}
	if !test.IsTest() {
		return fmt.Errorf("%s: the test set is not marked as one (\"set\": %q)", test.Dir, corpus.SetTest)
	}
	type source struct{ program, path string }
	byPath, byContent := map[string]source{}, map[[32]byte]source{}
	for _, p := range train.Programs {
		for _, s := range p.Sources {
			path, sum, err := sourceKey(filepath.Join(p.Dir, s))
			if err != nil {
				return err
			}
			byPath[path] = source{p.Name, path}
			byContent[sum] = source{p.Name, path}
		}
	}
	var errs []error
	for _, p := range test.Programs {
		if _, ok := train.Program(p.Name); ok {
			errs = append(errs, fmt.Errorf("program %q is in both the training corpus %s and the test set %s", p.Name, train.Dir, test.Dir))
		}
		for _, s := range p.Sources {
			path, sum, err := sourceKey(filepath.Join(p.Dir, s))
			if err != nil {
				return err
			}
			if t, ok := byPath[path]; ok {
				errs = append(errs, fmt.Errorf("test program %q and training program %q share the source %s", p.Name, t.program, path))
			} else if t, ok := byContent[sum]; ok {
				errs = append(errs, fmt.Errorf("the source %s of test program %q is a copy of %s of training program %q", path, p.Name, t.path, t.program))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("splitting %s and %s: %w: %w", train.Dir, test.Dir, ErrTestSet, err)
	}
	return nil
}

// sourceKey returns the absolute path of a source file, symbolic links
// resolved, and the hash of its content without white space.
func sourceKey(path string) (string, [32]byte, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", [32]byte{}, fmt.Errorf("checking the split: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", [32]byte{}, fmt.Errorf("checking the split: %w", err)
	}
	data = bytes.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, data)
	return abs, sha256.Sum256(data), nil
}

// evaluate measures the programs of the test set man and scores the fitted
// and the shipped models on them: class accuracy and MAE on the functions,
// and bottleneck recall on the programs.
func evaluate(ctx context.Context, man corpus.Manifest, fitted model.Model, opts Options, minWall float64) (*TestResult, error) {
	topK := cmp.Or(opts.TopK, DefaultTopK)
	shipped := model.Default()
	sys := opts.System.System()
	logw := cmp.Or[io.Writer](opts.Log, io.Discard)
	tr := &TestResult{Dir: man.Dir, TopK: topK, Fitted: Evaluation{Model: fitted.Version}, Shipped: Evaluation{Model: shipped.Version}}
	for _, prog := range man.Programs {
		meas, err := measure(ctx, prog, opts)
		if err != nil {
			return nil, err
		}
		anFitted, err := analyze(ctx, prog, opts, &fitted)
		if err != nil {
			return nil, err
		}
		anShipped, err := analyze(ctx, prog, opts, &shipped)
		if err != nil {
			return nil, err
		}
		meas = sourceNames(meas, anShipped)
		samples := pair(prog.Name, meas, anShipped, minWall)
		for _, s := range samples {
			s.Prior = shipped.Predict(s.Params, sys)
			tr.Samples = append(tr.Samples, TestSample{Sample: s, Fitted: fitted.Predict(s.Params, sys)})
		}
		tr.Programs = append(tr.Programs, prog.Name)
		line := fmt.Sprintf("test %-16s %d functions", prog.Name, len(samples))
		if b, ok := bottleneck(prog.Name, meas, anFitted, topK, minWall); ok {
			tr.Fitted.Bottlenecks = append(tr.Fitted.Bottlenecks, b)
			line += fmt.Sprintf(", bottleneck %s ranked %s", b.Function, rankName(b.Rank))
		} else {
			line += ", no bottleneck (too little I/O)"
		}
		if b, ok := bottleneck(prog.Name, meas, anShipped, topK, minWall); ok {
			tr.Shipped.Bottlenecks = append(tr.Shipped.Bottlenecks, b)
		}
		fmt.Fprintln(logw, line)
	}
	for _, e := range []struct {
		ev      *Evaluation
		predict func(TestSample) float64
	}{
		{&tr.Fitted, func(s TestSample) float64 { return s.Fitted }},
		{&tr.Shipped, func(s TestSample) float64 { return s.Prior }},
	} {
		r := scoreTest(tr.Samples, e.predict)
		e.ev.N, e.ev.Accuracy, e.ev.MAE = r.N, r.Accuracy, r.MAE
		if n := len(e.ev.Bottlenecks); n > 0 {
			e.ev.Recall = float64(e.ev.Hits()) / float64(n)
		}
	}
	return tr, nil
}

// scoreTest is the accuracy and mean absolute error of predict on the
// test samples.
func scoreTest(samples []TestSample, predict func(TestSample) float64) model.CVResult {
	pred, meas := make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		pred[i], meas[i] = predict(s), s.Measured
	}
	return scoreValues(pred, meas)
}

// rankName prints a rank, "unranked" for 0.
func rankName(r int) string {
	if r == 0 {
		return "unranked"
	}
	return fmt.Sprintf("#%d", r)
}

// bottleneck finds the measured I/O bottleneck of a program, the function
// with the largest I/O time of its own, and its rank in the static
// ranking an; false when that time is below minIO (or 0).
func bottleneck(program string, meas []corpus.Function, an *static.Result, topK int, minIO float64) (Bottleneck, bool) {
	best := -1
	for i, f := range meas {
		if f.SelfIO > 0 && (best < 0 || f.SelfIO > meas[best].SelfIO) {
			best = i
		}
	}
	if best < 0 || meas[best].SelfIO < minIO {
		return Bottleneck{}, false
	}
	f := meas[best]
	b := Bottleneck{Program: program, Function: f.Name, IOTime: f.SelfIO, Measured: f.Intensity}
	for _, blk := range an.Blocks {
		if blk.Kind == features.FunctionBlock && blk.Name == f.Name {
			b.Predicted, b.EstIOTime = blk.CIOC, blk.IOTime
			break
		}
	}
	ranked := RankFunctions(an)
	b.Rank = slices.Index(ranked, f.Name) + 1
	b.Hit = b.Rank > 0 && b.Rank <= topK
	b.Top = ranked[:min(topK, len(ranked))]
	return b, true
}

// RankFunctions returns the functions the static bottleneck ranking points
// at, most costly first, each once. It walks the blocks in the order of
// res.Blocks, the order in which `iolens static` prints its bottlenecks,
// keeps the blocks it ranks (Block.Ranked: calls of program functions are
// relays, their callees' function blocks ranked instead), and maps each
// block to a function: a function block to itself, a loop or a library
// call to the function it is in.
func RankFunctions(res *static.Result) []string {
	byID := make(map[int]*static.Block, len(res.Blocks))
	for i := range res.Blocks {
		byID[res.Blocks[i].ID] = &res.Blocks[i]
	}
	var out []string
	for i := range res.Blocks {
		b := &res.Blocks[i]
		if !b.Ranked() {
			continue
		}
		for b != nil && b.Kind != features.FunctionBlock {
			b = byID[b.Parent]
		}
		if b != nil && !slices.Contains(out, b.Name) {
			out = append(out, b.Name)
		}
	}
	return out
}

// String prints the top functions of a bottleneck, for a report line.
func (b Bottleneck) String() string {
	return fmt.Sprintf("%s/%s: measured %.3f (own I/O %.4f s), predicted %.3f, ranked %s; top %d: %s",
		b.Program, b.Function, b.Measured, b.IOTime, b.Predicted, rankName(b.Rank), len(b.Top), strings.Join(b.Top, ", "))
}
