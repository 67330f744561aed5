package static

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/iolens/iolens/static/ir"
)

// LangOf returns the language of a source file from its extension, and
// false for a file that is not C, C++ or Fortran source.
func LangOf(path string) (ir.Lang, bool) {
	ext := filepath.Ext(path)
	switch ext {
	case ".c", ".h":
		return ir.C, true
	case ".cc", ".cpp", ".cxx", ".c++", ".C", ".hpp", ".hh", ".hxx", ".H":
		return ir.CPP, true
	}
	switch strings.ToLower(ext) {
	case ".f", ".for", ".ftn", ".f77", ".f90", ".f95", ".f03", ".f08":
		return ir.Fortran, true
	}
	return "", false
}

// Sources expands paths into the source files to analyse: a file is taken
// as it is (it must be C, C++ or Fortran), a directory is searched
// recursively for source files, skipping hidden directories. The result is
// sorted and has no duplicates.
func Sources(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", p, err)
		}
		if !st.IsDir() {
			if _, ok := LangOf(p); !ok {
				return nil, fmt.Errorf("source %s: not C, C++ or Fortran (by its extension)", p)
			}
			out = append(out, filepath.Clean(p))
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if _, ok := LangOf(path); ok && d.Type().IsRegular() {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("searching %s for sources: %w", p, err)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("no C, C++ or Fortran source in %s", strings.Join(paths, ", "))
	}
	return out, nil
}
