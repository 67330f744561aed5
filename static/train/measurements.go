package train

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/iolens/iolens/static/corpus"
)

// measurementsFormat is the version of the measurements file layout.
const measurementsFormat = 1

// Measurements keeps the measured functions of corpus programs in a file
// between trainings, so that a change of the static analysis or of the
// model is fitted and scored again without running the programs again.
// A program is measured again when its sources, build command, arguments,
// ranks, number of runs or host differ from those it was recorded with.
// The file does not know the collector: discard it when the collector
// changes.
type Measurements struct {
	path string
	host string
	data measurementsFile
}

type measurementsFile struct {
	Format   int                        `json:"format"`
	Programs map[string]measuredProgram `json:"programs"`
}

// measuredProgram is one program's entry: the key of what it was
// measured with, and the median functions of its runs.
type measuredProgram struct {
	Key       string            `json:"key"`
	Functions []corpus.Function `json:"functions"`
}

// OpenMeasurements reads the measurements file at path; a file that does
// not exist yet is an empty one, written on the first Put.
func OpenMeasurements(path string) (*Measurements, error) {
	m := &Measurements{path: path, data: measurementsFile{Format: measurementsFormat, Programs: map[string]measuredProgram{}}}
	m.host, _ = os.Hostname()
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the measurements: %w", err)
	}
	var data measurementsFile
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("measurements file %s: %w", path, err)
	}
	if data.Format != measurementsFormat {
		return nil, fmt.Errorf("measurements file %s: format %d, want %d (remove it to measure again)", path, data.Format, measurementsFormat)
	}
	if data.Programs != nil {
		m.data.Programs = data.Programs
	}
	return m, nil
}

// Get returns the functions recorded for prog measured runs times, if
// nothing it depends on has changed since.
func (m *Measurements) Get(prog corpus.Program, runs int) ([]corpus.Function, bool, error) {
	key, err := m.key(prog, runs)
	if err != nil {
		return nil, false, err
	}
	e, ok := m.data.Programs[prog.Name]
	if !ok || e.Key != key {
		return nil, false, nil
	}
	return corpus.Named(prog.Language, e.Functions), true, nil
}

// Put records the functions of prog measured runs times and writes the
// file (to a temporary file renamed over it, so that an interrupted
// training leaves the earlier programs recorded).
func (m *Measurements) Put(prog corpus.Program, runs int, funcs []corpus.Function) error {
	key, err := m.key(prog, runs)
	if err != nil {
		return err
	}
	m.data.Programs[prog.Name] = measuredProgram{Key: key, Functions: funcs}
	raw, err := json.MarshalIndent(m.data, "", " ")
	if err != nil {
		return fmt.Errorf("encoding the measurements: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(m.path), filepath.Base(m.path)+".*")
	if err != nil {
		return fmt.Errorf("writing the measurements: %w", err)
	}
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the measurements: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the measurements: %w", err)
	}
	if err := os.Rename(tmp.Name(), m.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the measurements: %w", err)
	}
	return nil
}

// key is the digest of what a measurement of prog depends on.
func (m *Measurements) key(prog corpus.Program, runs int) (string, error) {
	h := sha256.New()
	head, err := json.Marshal(struct {
		Build, Args []string
		Ranks, Runs int
		Host        string
	}{prog.Build, prog.Args, prog.Ranks, runs, m.host})
	if err != nil {
		return "", err
	}
	h.Write(head)
	for _, s := range prog.Sources {
		src, err := os.ReadFile(filepath.Join(prog.Dir, s))
		if err != nil {
			return "", fmt.Errorf("program %s: %w", prog.Name, err)
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00", s, len(src))
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
