// Package corpus measures the I/O intensity of the functions of workload
// programs, the ground truth the static analysis (Vidya's CIOC scores) is
// trained and validated on.
//
// A corpus is a directory of small deterministic programs and a manifest,
// corpus.json, that says how to build and run each (see Manifest). Measure
// builds a program with -finstrument-functions, runs it under the iolens
// collector (package collector), which times every intercepted I/O
// operation and every instrumented function, and returns for each function
// its inclusive I/O time, inclusive wall time and their ratio, the
// measured intensity.
package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ManifestName is the file name of a corpus manifest.
const ManifestName = "corpus.json"

// Languages of Program.Language.
const (
	LangC       = "c"
	LangCXX     = "c++"
	LangFortran = "fortran"
)

// Sets of Manifest.Set: a training corpus is what the model is fitted and
// cross-validated on; a test set is held out, for evaluation only.
const (
	SetTrain = "train"
	SetTest  = "test"
)

// Manifest lists the programs of a corpus.
type Manifest struct {
	// Dir is the corpus directory (where Load found the manifest).
	Dir     string `json:"-"`
	Comment string `json:"comment,omitempty"`
	// Set says what the programs are for: SetTrain (the default when
	// empty) or SetTest, programs that must never be used for fitting.
	Set      string    `json:"set,omitempty"`
	Programs []Program `json:"programs"`
}

// Program is one workload of a corpus.
type Program struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Language    string   `json:"language"` // LangC, LangCXX or LangFortran
	Sources     []string `json:"sources"`  // relative to Dir
	// Build is the compiler command, an argv template: "{out}" stands for
	// the executable, "{src}" for the sources (one argument each) and
	// "{pkg-config PKG}" for the flags `pkg-config --cflags --libs PKG`
	// prints. It includes the instrumentation flags.
	Build []string `json:"build"`
	// Args are the program's arguments, a template where "{dir}" stands
	// for the directory it writes its files to.
	Args []string `json:"args"`
	// Ranks is the number of MPI processes; more than 1 runs the program
	// with mpiexec.
	Ranks int `json:"ranks"`
	// Dir is the directory of the sources.
	Dir string `json:"-"`
}

// Load reads the manifest of the corpus in dir and checks it: the set is
// known, every program has a unique name, a known language, sources that
// exist, a build template with {out} and {src}, and at least one rank.
func Load(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("loading corpus: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("loading corpus %s: %w", path, err)
	}
	m.Dir = dir
	seen := make(map[string]bool)
	var errs []error
	if m.Set != "" && m.Set != SetTrain && m.Set != SetTest {
		errs = append(errs, fmt.Errorf("unknown set %q (want %q or %q)", m.Set, SetTrain, SetTest))
	}
	for i := range m.Programs {
		p := &m.Programs[i]
		p.Dir = dir
		if err := p.check(); err != nil {
			errs = append(errs, err)
		}
		if seen[p.Name] {
			errs = append(errs, fmt.Errorf("program %q: listed twice", p.Name))
		}
		seen[p.Name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return Manifest{}, fmt.Errorf("loading corpus %s: %w", path, err)
	}
	return m, nil
}

// IsTest reports whether the manifest is a held-out test set.
func (m Manifest) IsTest() bool { return m.Set == SetTest }

// Program returns the program named name.
func (m Manifest) Program(name string) (Program, bool) {
	i := slices.IndexFunc(m.Programs, func(p Program) bool { return p.Name == name })
	if i < 0 {
		return Program{}, false
	}
	return m.Programs[i], true
}

// check reports what is wrong with p.
func (p *Program) check() error {
	if p.Name == "" || strings.ContainsAny(p.Name, `/\ `) {
		return fmt.Errorf("program %q: the name must be non-empty, without blanks or slashes", p.Name)
	}
	if p.Language != LangC && p.Language != LangCXX && p.Language != LangFortran {
		return fmt.Errorf("program %q: unknown language %q", p.Name, p.Language)
	}
	if len(p.Sources) == 0 {
		return fmt.Errorf("program %q: no sources", p.Name)
	}
	for _, s := range p.Sources {
		if _, err := os.Stat(filepath.Join(p.Dir, s)); err != nil {
			return fmt.Errorf("program %q: %w", p.Name, err)
		}
	}
	if len(p.Build) == 0 || !slices.Contains(p.Build, "{out}") || !slices.Contains(p.Build, "{src}") {
		return fmt.Errorf("program %q: the build template needs a compiler, {out} and {src}", p.Name)
	}
	if p.Ranks < 1 {
		return fmt.Errorf("program %q: %d ranks", p.Name, p.Ranks)
	}
	return nil
}
