package cfront

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/iolens/iolens/static/ir"
)

// Parse parses the C or C++ source src of the file at path. The language
// comes from the extension: .c .h → C; .cc .cpp .cxx .c++ .C .hpp .hh .hxx
// → C++. Other extensions are parsed as C.
func Parse(path string, src []byte) (*ir.File, error) {
	return ParseLang(path, src, LangOf(path))
}

// LangOf returns the language of a source file from its extension: C++
// for .cc .cpp .cxx .c++ .C .hpp .hh .hxx (and .ipp .tpp .inl), C otherwise.
func LangOf(path string) ir.Lang {
	switch filepath.Ext(path) {
	case ".cc", ".cpp", ".cxx", ".c++", ".C", ".hpp", ".hh", ".hxx", ".H", ".ipp", ".tpp", ".inl":
		return ir.CPP
	}
	return ir.C
}

// ParseLang parses src, the source of the file at path, as lang (ir.C or
// ir.CPP). Syntax errors do not make it fail: they are reported in the
// returned file's Errors, and so is a parse tree-sitter abandons after a
// generous time limit (the file then has no functions). It fails only for
// another language or when the parser itself cannot run.
func ParseLang(path string, src []byte, lang ir.Lang) (*ir.File, error) {
	var pool *parserPool
	switch lang {
	case ir.C:
		pool = &pools[0]
	case ir.CPP:
		pool = &pools[1]
	default:
		return nil, fmt.Errorf("parsing %s: language %q is not C or C++", path, lang)
	}
	p, err := pool.get()
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	ft, err := p.parse(src)
	if n := 0; err == nil && lang == ir.CPP {
		n = ft.errorCount()
		// Retry with one declarator per member declaration (see
		// splitDeclarators); keep the retry if it parses better.
		if split := splitDeclarators(src); n > 0 && len(split) != len(src) {
			if ft2, err2 := p.parse(split); err2 == nil && ft2.errorCount() < n {
				ft.free()
				ft, src = ft2, split
			} else if err2 == nil {
				ft2.free()
			}
		}
	}
	pool.put(p)
	f := &ir.File{Path: path, Lang: lang, Lines: countLines(src), Consts: map[string]ir.Expr{}}
	switch {
	case errors.Is(err, errTimeout):
		// Not the file's fault as far as the caller is concerned: keep it,
		// empty, with the reason.
		f.Errors = []ir.Error{{Pos: ir.Pos{File: path, Line: 1}, Msg: err.Error()}}
		return f, nil
	case err != nil:
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	defer ft.free()
	if len(ft.nodes) == 0 {
		return f, nil
	}
	t := &tree{n: ft.nodes, src: src, g: grammarOf(lang == ir.CPP), strs: make(map[string]string, 256)}
	f.Errors = t.errors(path)
	newBuilder(t, f).translationUnit(0)
	for _, anonymous := range []string{"struct", "union"} {
		delete(f.Structs, anonymous) // known by their typedef names
	}
	return f, nil
}

// pools hold the parsers of C (index 0) and C++ (index 1).
var pools = [2]parserPool{{cpp: false}, {cpp: true}}

// countLines returns the number of lines of src; a last line without a
// newline counts.
func countLines(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}
