package fix

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/iolens/iolens/static"
	"github.com/iolens/iolens/static/features"
	"github.com/iolens/iolens/static/ir"
)

// The patterns a fix applies.
const (
	PatternSetvbuf           = "setvbuf"
	PatternFlushAfterLoop    = "flush-after-loop"
	PatternEndl              = "endl"
	PatternFadvise           = "fadvise"
	PatternCollectiveMPIIO   = "collective-mpiio"
	PatternCollectiveHDF5    = "collective-hdf5"
	PatternCollectivePnetCDF = "collective-pnetcdf"
	PatternCoalesce          = "coalesce-writes"
)

// Options control Make.
type Options struct {
	// Root is the directory the paths of the diff are relative to; ""
	// means the current directory. Sources outside it keep their paths
	// relative to it (with ..), which patch -p1 refuses: choose a Root
	// that holds every source.
	Root string
}

// Fix is one change made for one or more causes.
type Fix struct {
	Pattern string `json:"pattern"` // a Pattern* constant
	Cause   string `json:"cause"`   // the cause code it answers
	File    string `json:"file"`
	Line    int    `json:"line"` // the line of the cause's call
	Message string `json:"message"`

	edits []edit
	key   string // fixes with the same key are the same change
}

// Skip is a cause left without a fix, and why.
type Skip struct {
	Cause   string `json:"cause"`
	Routine string `json:"routine"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Reason  string `json:"reason"`
}

// Patch is the set of fixes of an analysis.
type Patch struct {
	Fixes   []Fix  `json:"fixes"`
	Skipped []Skip `json:"skipped"`

	root  string
	srcs  map[string]*source
	edits map[string][]edit
}

// fixer holds the state of one Make.
type fixer struct {
	prog   *ir.Program
	srcs   map[string]*source
	causes []static.Cause
	taken  map[string]bool // names given to new variables
	ranked map[string]bool // see rankNames
}

// Make computes the fixes of the causes of res. prog is the program the
// analysis parsed (static.Parse of the same files); the sources are read
// from the paths the IR names.
func Make(res *static.Result, prog *ir.Program, opts Options) (*Patch, error) {
	root := opts.Root
	if root == "" {
		root = "."
	}
	f := &fixer{prog: prog, srcs: map[string]*source{}, taken: map[string]bool{}}
	for _, fl := range prog.Files {
		text, err := os.ReadFile(fl.Path)
		if err != nil {
			return nil, fmt.Errorf("fix: reading source: %w", err)
		}
		f.srcs[fl.Path] = newSource(fl.Path, fl.Lang, text)
	}
	f.causes = uniqueCauses(res)
	p := &Patch{Fixes: []Fix{}, Skipped: []Skip{}, root: root, srcs: f.srcs, edits: map[string][]edit{}}
	keys := map[string]bool{}
	for _, c := range f.causes {
		fx, why := f.fix(c)
		if why != "" {
			p.Skipped = append(p.Skipped, Skip{Cause: c.Code, Routine: c.Routine, File: c.File, Line: c.Line, Reason: why})
			continue
		}
		if keys[fx.key] {
			continue
		}
		if o := p.conflict(fx); o != "" {
			p.Skipped = append(p.Skipped, Skip{Cause: c.Code, Routine: c.Routine, File: c.File, Line: c.Line,
				Reason: "it would change the same code as the fix " + o})
			continue
		}
		keys[fx.key] = true
		fx.Cause, fx.File, fx.Line = c.Code, c.File, c.Line
		p.Fixes = append(p.Fixes, fx)
		for _, e := range fx.edits {
			// Fixes of one pattern in a file share some edits (an
			// #include, helpers): make them once.
			if !slices.Contains(p.edits[c.File], e) {
				p.edits[c.File] = append(p.edits[c.File], e)
			}
		}
	}
	return p, nil
}

// uniqueCauses returns each cause of res once (a cause is reported by
// every block that holds its call), in file and line order.
func uniqueCauses(res *static.Result) []static.Cause {
	type key struct {
		code, routine, file string
		line                int
	}
	seen := map[key]bool{}
	var out []static.Cause
	for _, b := range res.Blocks {
		for _, c := range b.Causes {
			k := key{c.Code, c.Routine, c.File, c.Line}
			if !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b static.Cause) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Code, b.Code))
	})
	return out
}

// conflict returns the fix whose edits overlap those of fx, or "".
func (p *Patch) conflict(fx Fix) string {
	for _, o := range p.Fixes {
		if o.File != fx.File {
			continue
		}
		for _, a := range o.edits {
			for _, b := range fx.edits {
				if a.overlaps(b) {
					return fmt.Sprintf("%s at line %d", o.Pattern, o.Line)
				}
			}
		}
	}
	return ""
}

// fix returns the fix of one cause, or why there is none.
func (f *fixer) fix(c static.Cause) (Fix, string) {
	s := f.srcs[c.File]
	if s == nil {
		return Fix{}, "its source file was not parsed"
	}
	switch c.Code {
	case features.CodeFlushInLoop:
		if c.Via != "" {
			return Fix{}, fmt.Sprintf("the flush is in %s(), which the loop calls: moving it out changes what the function does for its other callers", c.Via)
		}
		return f.flush(s, c)
	case features.CodeSmallWritesInLoop, features.CodeSmallReadsInLoop:
		return f.setvbuf(s, c)
	case features.CodeUnbufferedSmallIO:
		switch c.Routine {
		case "read":
			return f.fadvise(s, c)
		case "write":
			return f.coalesce(s, c)
		}
		return Fix{}, fmt.Sprintf("no automatic fix for small %s calls", c.Routine)
	case features.CodeIndependentMPIIO:
		return f.mpiio(s, c)
	case features.CodeIndependentHDF5:
		return f.hdf5(s, c)
	case features.CodeIndependentPnetCDF:
		return f.pnetcdf(s, c)
	}
	return Fix{}, "no automatic fix for this cause"
}

// hasCause tells whether the analysis found a cause of that code at the
// call on line.
func (f *fixer) hasCause(code, file string, line int) bool {
	for _, c := range f.causes {
		if c.Code == code && c.File == file && c.Line == line {
			return true
		}
	}
	return false
}

// Files returns the files the patch changes, sorted.
func (p *Patch) Files() []string {
	var out []string
	for path, es := range p.edits {
		if len(es) > 0 {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

// Patched returns the text of a source file with the patch applied.
func (p *Patch) Patched(path string) ([]byte, bool) {
	s := p.srcs[path]
	if s == nil {
		return nil, false
	}
	return apply(s.text, p.edits[path]), true
}

// WriteDiff writes the patch as a unified diff with paths relative to
// the root, prefixed a/ and b/ (patch -p1, git apply).
func (p *Patch) WriteDiff(w io.Writer) error {
	for _, path := range p.Files() {
		rel, err := p.rel(path)
		if err != nil {
			return err
		}
		if err := writeUnified(w, p.srcs[path], rel, p.edits[path]); err != nil {
			return fmt.Errorf("writing the diff of %s: %w", path, err)
		}
	}
	return nil
}

// Diff returns the unified diff (see WriteDiff).
func (p *Patch) Diff() (string, error) {
	var b strings.Builder
	err := p.WriteDiff(&b)
	return b.String(), err
}

// rel returns the path of a source relative to the root, with slashes.
func (p *Patch) rel(path string) (string, error) {
	root, err := filepath.Abs(p.root)
	if err != nil {
		return "", fmt.Errorf("fix: root %s: %w", p.root, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("fix: source %s: %w", path, err)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", fmt.Errorf("fix: source %s relative to %s: %w", path, p.root, err)
	}
	return filepath.ToSlash(rel), nil
}
