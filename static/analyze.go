package static

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/iolens/iolens/static/cfront"
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/fortran"
	"github.com/iolens/iolens/static/ir"
	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/pdg"
	"github.com/iolens/iolens/static/sysprof"
)

// Options control Analyze.
type Options struct {
	// Entry is the function the program starts in ("" for main or the
	// Fortran PROGRAM).
	Entry string
	// Args are the program's arguments, when known.
	Args []string
	// Model scores the blocks; nil means model.Default().
	Model *model.Model
	// System is the machine the program runs on; the zero value means
	// sysprof.Default().
	System sysprof.Profile
	// Procs is the number of processes the program runs with (MPI ranks);
	// 0 means 1.
	Procs int
	// Progress, when not nil, is called as the analysis advances, with the
	// work done and its total in units of source bytes: parsing a file
	// counts its size, the rest of the analysis as much as all the files.
	// Calls come from several goroutines, one at a time.
	Progress func(done, total int64)
}

// Result is the analysis of a program.
type Result struct {
	// Blocks are every file, function, loop and call block, most costly
	// first: by estimated I/O time, then by CIOC, then functions before
	// loops, calls and files.
	Blocks []Block `json:"blocks"`
	// Files are the parsed sources with what their front-end could not
	// parse.
	Files []SourceFile `json:"files"`
	// Lines is the number of source lines analysed.
	Lines int `json:"lines"`
	// Entry is the entry function, or "" when the program has none.
	Entry  string     `json:"entry"`
	Model  ModelInfo  `json:"model"`
	System SystemInfo `json:"system"`
}

// SystemInfo is the machine the blocks were scored for: its profile and
// the model inputs derived from it.
type SystemInfo struct {
	Profile sysprof.Profile `json:"profile"`
	Inputs  sysprof.System  `json:"inputs"`
}

// SourceFile is one analysed source file.
type SourceFile struct {
	Path   string   `json:"path"`
	Lang   ir.Lang  `json:"lang"`
	Lines  int      `json:"lines"`
	Errors []string `json:"errors"`
}

// ModelInfo identifies the model that scored the blocks.
type ModelInfo struct {
	Version   string             `json:"version"`
	TrainedOn string             `json:"trained_on"`
	Intercept float64            `json:"intercept"`
	Coef      map[string]float64 `json:"coef"` // selected variables only
	R2        float64            `json:"r2"`
	N         int                `json:"n"`
}

// Block is one scored code block.
type Block struct {
	ID      int    `json:"id"`
	Parent  int    `json:"parent"` // ID of the enclosing block, -1 for a file
	Kind    string `json:"kind"`   // file, function, loop, call
	Name    string `json:"name"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	// CIOC is the predicted I/O intensity, 0 (compute only) to 1 (I/O
	// only); Class is "compute" (< 0.3), "balanced" or "data" (> 0.7).
	CIOC  float64 `json:"cioc"`
	Class string  `json:"class"`
	// IOTime and ComputeTime are the physical estimates of one run of the
	// block on the system, in seconds.
	IOTime      float64  `json:"io_time"`
	ComputeTime float64  `json:"compute_time"`
	Features    Features `json:"features"`
	Causes      []Cause  `json:"causes"`
	Trip        int64    `json:"trip,omitempty"`
	TripSource  string   `json:"trip_source,omitempty"`
	Conditional bool     `json:"conditional,omitempty"`
	Unreachable bool     `json:"unreachable,omitempty"`
	// Invocations is, for a function block, how many times the function
	// runs in one run of the program (0 when the entry does not reach
	// it).
	Invocations float64 `json:"invocations,omitempty"`
	// OwnIOTime is the estimated I/O time the block spends in its own
	// statements over the whole run: that of the program functions it
	// calls is left out, and what it does per invocation of its function
	// counts as many times as the function runs (see attribute); 0 for a
	// file and for a call of a program function. Bottlenecks are ranked
	// by it: the place to fix is where the I/O happens.
	OwnIOTime float64 `json:"own_io_time"`
	// Relay marks a block that only passes its I/O on: a call of a
	// program function, whose function block stands for it, or a
	// function or loop at least RelayShare of whose estimated I/O time is
	// in one call of a program function below it. The place to fix is
	// further down.
	Relay bool `json:"relay,omitempty"`

	runIO float64 // the estimated I/O time of features.Block.Run
}

// RelayShare is the share of a block's estimated I/O that one call of a
// program function below it must hold for the block to be a relay.
const RelayShare = 0.95

// Ranked reports whether b is one of the blocks `iolens static` ranks as
// bottlenecks: not a file, with estimated I/O (in the context the block
// describes, or over the run), not a relay.
func (b *Block) Ranked() bool {
	return b.Kind != features.FileBlock && (b.IOTime > 0 || b.OwnIOTime > 0) && !b.Relay
}

// Features are a block's raw parameters P1–P15 and its normalised
// variables X1–X16 by name.
type Features struct {
	features.Params
	X Variables `json:"x"`
}

// Variables are a block's normalised model variables X1…X16 (see
// model.Names); JSON has them as an object keyed by their names.
type Variables model.X

// MarshalJSON writes the variables as an object keyed by their names.
func (v Variables) MarshalJSON() ([]byte, error) {
	names := model.Names()
	m := make(map[string]float64, len(v))
	for i, x := range v {
		m[names[i]] = x
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the object MarshalJSON writes; a name that is not a
// variable's is an error.
func (v *Variables) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	names := model.Names()
	*v = Variables{}
	for name, x := range m {
		i := slices.Index(names[:], name)
		if i < 0 {
			return fmt.Errorf("unknown model variable %q", name)
		}
		v[i] = x
	}
	return nil
}

// Cause is a dominant reason for a block's I/O cost, located in the source.
type Cause struct {
	Code     string  `json:"code"`
	Message  string  `json:"message"`
	Weight   float64 `json:"weight"`
	Routine  string  `json:"routine"`
	Target   string  `json:"target,omitempty"` // the file accessed, when known
	File     string  `json:"file"`
	Line     int     `json:"line"`
	LoopLine int     `json:"loop_line,omitempty"`
	LoopEnd  int     `json:"loop_end,omitempty"`
	Trip     int64   `json:"trip,omitempty"`
	// Via is the function called in the loop that makes the call, for
	// a call in a function called from a loop; LoopFile is the loop's
	// file when it differs from the call's.
	Via      string `json:"via,omitempty"`
	LoopFile string `json:"loop_file,omitempty"`

	raw features.Cause
}

// Raw returns the cause as static/features found it.
func (c Cause) Raw() features.Cause { return c.raw }

// Analyze parses the source files (see Sources), builds the program
// dependency graph and scores every block.
func Analyze(ctx context.Context, files []string, opts Options) (*Result, error) {
	prog, srcs, size, err := parseAll(ctx, files, opts.Progress)
	if err != nil {
		return nil, err
	}
	// The rest of the work is counted as much as parsing: half of it for
	// the graph, a quarter each for the features and the scores.
	step := func(done int64) {
		if opts.Progress != nil {
			opts.Progress(size+done, 2*size)
		}
	}
	g, err := pdg.Build(prog, pdg.Options{Entry: opts.Entry, Args: opts.Args, Procs: max(opts.Procs, 1)})
	if err != nil {
		return nil, fmt.Errorf("building the program dependency graph: %w", err)
	}
	step(size / 2)
	m := model.Default()
	if opts.Model != nil {
		m = *opts.Model
	}
	prof := opts.System
	if prof.Format == 0 {
		prof = sysprof.Default()
	}
	sys := prof.System()
	procs := max(opts.Procs, 1)
	sys.Ranks = float64(procs)
	fsys := features.System{Procs: procs, StorageTargets: int(sys.Targets), StorageScore: sys.StorageScore}
	res := &Result{Files: srcs, Model: modelInfo(m), System: SystemInfo{Profile: prof, Inputs: sys}}
	for _, f := range srcs {
		res.Lines += f.Lines
	}
	if g.Entry != nil {
		res.Entry = g.Entry.Name
	}
	blocks := features.Extract(g, fsys)
	step(size * 3 / 4)
	scored := scoreAll(blocks, m, sys)
	attribute(scored)
	res.Blocks = sortBlocks(scored)
	step(size)
	return res, nil
}

// scoreAll scores the blocks of the trees roots, concurrently, and returns
// them in preorder: a block's ID is its index, its Parent the ID of its
// parent block (-1 for a root).
func scoreAll(roots []features.Block, m model.Model, sys sysprof.System) []Block {
	type item struct {
		b      *features.Block
		parent int
	}
	var items []item
	var add func(b *features.Block, parent int)
	add = func(b *features.Block, parent int) {
		id := len(items)
		items = append(items, item{b, parent})
		for i := range b.Children {
			add(&b.Children[i], id)
		}
	}
	for i := range roots {
		add(&roots[i], -1)
	}
	blocks := make([]Block, len(items))
	workers := min(runtime.GOMAXPROCS(0), len(items)/256+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(items); i += workers {
				blocks[i] = score(items[i].b, i, items[i].parent, m, sys)
			}
		})
	}
	wg.Wait()
	return blocks
}

// attribute sets OwnIOTime and Relay on the blocks, whose IDs are their
// indexes. A function block's own I/O is that of its own statements over
// the whole run (features.Block.Run); a loop's is its I/O per invocation
// of its function, less that of the calls of program functions inside
// it, times the function's invocations; a library call's, its I/O times
// those invocations. A call of a program function is a relay, its callee's
// function block standing for its I/O; so is a function or loop block at
// least RelayShare of whose estimated I/O is in one call of a program
// function inside it.
func attribute(blocks []Block) {
	funcs := map[string]bool{} // the program's functions
	for _, b := range blocks {
		if b.Kind == features.FunctionBlock {
			funcs[b.Name] = true
		}
	}
	// The I/O of the calls of program functions inside each function and
	// loop block, up to the enclosing function: all of it, and the
	// costliest call's.
	sum, top := make([]float64, len(blocks)), make([]float64, len(blocks))
	for _, b := range blocks {
		if b.Kind != features.CallBlock || !funcs[b.Name] {
			continue
		}
		for p := b.Parent; p >= 0; p = blocks[p].Parent {
			sum[p] += b.IOTime
			top[p] = max(top[p], b.IOTime)
			if blocks[p].Kind == features.FunctionBlock {
				break
			}
		}
	}
	invocations := func(i int) float64 {
		for p := i; p >= 0; p = blocks[p].Parent {
			if blocks[p].Kind == features.FunctionBlock {
				return blocks[p].Invocations
			}
		}
		return 0
	}
	for i := range blocks {
		b := &blocks[i]
		relay := b.IOTime > 0 && top[i] >= RelayShare*b.IOTime
		switch {
		case b.Kind == features.FunctionBlock:
			b.OwnIOTime, b.Relay = b.runIO, relay
		case b.Kind == features.LoopBlock:
			b.OwnIOTime, b.Relay = max(b.IOTime-sum[i], 0)*invocations(i), relay
		case b.Kind == features.CallBlock && funcs[b.Name]:
			b.Relay = true
		case b.Kind == features.CallBlock:
			b.OwnIOTime = b.IOTime * invocations(i)
		}
	}
}

// sortBlocks returns blocks, whose IDs are their indexes, ordered by
// rounded own I/O time (see Block.OwnIOTime), then kind (see kindRank),
// then score, all decreasing but the kind's rank; blocks equal in all
// three keep their order.
func sortBlocks(blocks []Block) []Block {
	type key struct {
		io   float64
		kind int
	}
	keys := make([]key, len(blocks))
	order := make([]int, len(blocks))
	for i := range blocks {
		keys[i] = key{rounded(blocks[i].OwnIOTime), kindRank[blocks[i].Kind]}
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(keys[b].io, keys[a].io); c != 0 {
			return c
		}
		if c := cmp.Compare(keys[a].kind, keys[b].kind); c != 0 {
			return c
		}
		if c := cmp.Compare(blocks[b].CIOC, blocks[a].CIOC); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sorted := make([]Block, len(blocks))
	for i, j := range order {
		sorted[i] = blocks[j]
	}
	return sorted
}

// rounded is v to nine significant digits, so that sums of the same terms
// in another order compare equal: blocks of the same I/O time are ordered
// by kind (see kindRank), then by score.
func rounded(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	scale := math.Pow(10, 8-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// kindRank orders blocks of equal cost: the function that holds the cost,
// then the loop, then the call, then the file.
var kindRank = map[string]int{features.FunctionBlock: 0, features.LoopBlock: 1, features.CallBlock: 2, features.FileBlock: 3}

func score(b *features.Block, id, parent int, m model.Model, sys sysprof.System) Block {
	t := model.EstimateTimes(b.Params, sys)
	c := m.Predict(b.Params, sys)
	out := Block{
		ID: id, Parent: parent, Kind: b.Kind, Name: b.Name, File: b.File, Line: b.Line, EndLine: b.EndLine,
		CIOC: c, Class: model.ClassOf(c).String(), ComputeTime: t.Compute,
		Features: Features{Params: b.Params, X: Variables(model.Normalize(b.Params, sys))}, Causes: []Cause{},
		Trip: b.Trip, TripSource: b.TripSource, Conditional: b.Conditional, Unreachable: b.Unreachable,
	}
	if b.Params.HasIO() {
		out.IOTime = t.IO()
	}
	if b.Run.HasIO() {
		out.runIO = model.EstimateTimes(b.Run, sys).IO()
	}
	out.Invocations = b.Invocations
	for _, fc := range b.Causes {
		out.Causes = append(out.Causes, Cause{
			Code: fc.Code, Message: fc.Message, Weight: fc.Weight, Routine: fc.Routine, Target: fc.FileName,
			File: fc.Call.File, Line: fc.Call.Line, LoopLine: fc.Loop.Line, LoopEnd: fc.LoopEnd, Trip: fc.Trip,
			Via: fc.Via, LoopFile: loopFile(fc), raw: fc,
		})
	}
	return out
}

// loopFile is the file of a cause's loop when it differs from its call's.
func loopFile(c features.Cause) string {
	if c.Loop.File != c.Call.File {
		return c.Loop.File
	}
	return ""
}

func modelInfo(m model.Model) ModelInfo {
	mi := ModelInfo{Version: m.Version, TrainedOn: m.TrainedOn, Intercept: m.Intercept,
		Coef: map[string]float64{}, R2: m.Stats.R2, N: m.Stats.N}
	for i, sel := range m.Selected {
		if sel {
			mi.Coef[m.Names[i]] = m.Coef[i]
		}
	}
	return mi
}

// Parse parses the source files concurrently, each with the front-end of
// its language, and returns them as one program in the order given.
func Parse(ctx context.Context, files []string) (*ir.Program, []SourceFile, error) {
	prog, srcs, _, err := parseAll(ctx, files, nil)
	return prog, srcs, err
}

// parseAll is Parse, also returning the size of the sources, and calling
// progress (when not nil) after each file with the bytes parsed so far and
// twice the bytes of all files.
func parseAll(ctx context.Context, files []string, progress func(done, total int64)) (*ir.Program, []SourceFile, int64, error) {
	parsed := make([]*ir.File, len(files))
	sizes := make([]int64, len(files))
	errs := make([]error, len(files))
	var total int64
	if progress != nil {
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
	}
	var mu sync.Mutex
	var done int64
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				parsed[i], sizes[i], errs[i] = parseFile(files[i])
				if progress != nil {
					mu.Lock()
					done += sizes[i]
					progress(done, 2*total)
					mu.Unlock()
				}
			}
		})
	}
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	prog := &ir.Program{}
	var size int64
	srcs := make([]SourceFile, 0, len(files))
	for i, f := range parsed {
		if errs[i] != nil {
			return nil, nil, 0, errs[i]
		}
		size += sizes[i]
		prog.Files = append(prog.Files, f)
		sf := SourceFile{Path: f.Path, Lang: f.Lang, Lines: f.Lines, Errors: []string{}}
		for _, e := range f.Errors {
			sf.Errors = append(sf.Errors, e.Error())
		}
		srcs = append(srcs, sf)
	}
	return prog, srcs, size, nil
}

// parseFile parses the source at path and returns it with its size.
func parseFile(path string) (*ir.File, int64, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("reading source: %w", err)
	}
	f, err := parseSource(path, src)
	return f, int64(len(src)), err
}

// parseSource parses src, the source at path, with the front-end of its
// language.
func parseSource(path string, src []byte) (*ir.File, error) {
	lang, ok := LangOf(path)
	var f *ir.File
	var err error
	switch {
	case !ok:
		return nil, fmt.Errorf("source %s: not C, C++ or Fortran (by its extension)", path)
	case lang == ir.Fortran:
		f, err = fortran.Parse(path, src)
	default:
		f, err = cfront.Parse(path, src)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return f, nil
}
