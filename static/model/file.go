package model

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
)

// embedded is the model shipped with iolens.
//
//go:embed cioc-v31.json
var embedded []byte

// defaultModel parses the embedded model once.
var defaultModel = sync.OnceValues(func() (Model, error) { return Parse(embedded) })

// Default returns the model shipped with iolens (cioc-v31.json). It panics
// if that file is broken, which the package's tests rule out.
func Default() Model {
	m, err := defaultModel()
	if err != nil {
		panic(fmt.Sprintf("model: embedded cioc-v31.json: %v", err))
	}
	return m
}

// Parse decodes a model file and checks that it is usable: a known format,
// the variables of this version of Normalize in the same order, and finite
// numbers.
func Parse(data []byte) (Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return Model{}, fmt.Errorf("parsing model: %w", err)
	}
	if err := m.validate(); err != nil {
		return Model{}, fmt.Errorf("parsing model %q: %w", m.Version, err)
	}
	return m, nil
}

func (m Model) validate() error {
	if m.Format != FileFormat {
		return fmt.Errorf("format %d, want %d", m.Format, FileFormat)
	}
	if m.Names != Names() {
		return errors.New("variables differ from this iolens's X1…X16")
	}
	if !finite(m.Intercept) {
		return errors.New("intercept is not finite")
	}
	for i, c := range m.Coef {
		if !finite(c) {
			return fmt.Errorf("coefficient of %s is not finite", m.Names[i])
		}
	}
	return nil
}

// Load reads a model file written by Save.
func Load(path string) (Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Model{}, fmt.Errorf("loading model: %w", err)
	}
	m, err := Parse(b)
	if err != nil {
		return Model{}, fmt.Errorf("loading %s: %w", path, err)
	}
	return m, nil
}

// Marshal encodes m as indented JSON, the layout of model files.
func (m Model) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding model %q: %w", m.Version, err)
	}
	return append(b, '\n'), nil
}

// Save writes m to path atomically (a temporary file in the same directory
// renamed over it), with mode 0644: a model is a shareable artefact.
func (m Model) Save(path string) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("saving model %q: %w", m.Version, err)
	}
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".model-*")
	if err != nil {
		return fmt.Errorf("saving model: %w", err)
	}
	_, werr := f.Write(b)
	cherr := f.Chmod(0o644)
	cerr := f.Close()
	if err := errors.Join(werr, cherr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving model to %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving model: %w", err)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
