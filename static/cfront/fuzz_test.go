package cfront

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/iolens/iolens/static/ir"
)

// FuzzParse checks that no input makes the front-end panic or fail, in
// either language, and that the positions it reports are within the file.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	for _, s := range []string{
		"", "{", "#if\n", "#define X(", "int f(){for(;;", "a<<b>>c;",
		"void f(){ x = y ? : z; }", "#define A '\\", "class C { void f() { [](){}(); } };",
		"int f() { return sizeof(int[3]) + (int){1}; }",
		"template<class T> T g(T t) { return t; }",
		string(generateC(2)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, lang := range []ir.Lang{ir.C, ir.CPP} {
			file, err := ParseLang("fuzz", src, lang)
			if err != nil {
				t.Fatalf("ParseLang(%s): %v", lang, err)
			}
			for _, fn := range file.Funcs {
				if fn.Pos.Line < 1 || fn.EndLine < fn.Pos.Line || fn.EndLine > file.Lines+1 {
					t.Fatalf("%s: function %q spans lines %d-%d of %d", lang, fn.Name, fn.Pos.Line, fn.EndLine, file.Lines)
				}
			}
			for _, e := range file.Errors {
				if e.Pos.Line < 1 || e.Pos.Line > file.Lines+1 {
					t.Fatalf("%s: error %v outside the file's %d lines", lang, e, file.Lines)
				}
			}
		}
	})
}

// TestParseTimeout checks that a parse that runs out of time leaves the
// parser usable for the next file.
func TestParseTimeout(t *testing.T) {
	p, err := newParser(false)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte("{(;<a*[#x'\n"), 20000)
	if _, err := p.parseWithin(garbage, time.Microsecond); !errors.Is(err, errTimeout) {
		t.Fatalf("parse of garbage within 1µs: error %v, want errTimeout", err)
	}
	ft, err := p.parse([]byte("int f(void) { return 0; }"))
	if err != nil {
		t.Fatalf("parse after a timeout: %v", err)
	}
	defer ft.free()
	if len(ft.nodes) < 10 {
		t.Fatalf("parse after a timeout: %d nodes", len(ft.nodes))
	}
}
