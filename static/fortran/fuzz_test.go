package fortran

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/iolens/iolens/static/ir"
)

// FuzzParse checks that Parse never panics or hangs, fails only on
// non-text input, and keeps every position inside the file.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src, FormOf(name) == Fixed)
		}
	}
	for _, s := range []string{
		"if (a) 10, 20, 30", "do 10 i = 1, n\n10 continue", "x = (((((a)))))", "write(*,*) ((a(i,j), i=1,n), j=1,m)",
		"#if 0\nx\n#else\ny = 1\n#endif", "character*(*) s", "select case (n)\ncase default\nend select",
		"      DO 10 I=1,N\n   10 A(I)=0\n      END", "s = 'abc&\n&def'", "call a%b(1)%c(2)", "x = z'ff' // .not. .true.",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, fixed bool) {
		form := Free
		if fixed {
			form = Fixed
		}
		file, err := ParseForm("fuzz.f", src, form)
		if err != nil {
			if !bytes.Contains(src, []byte{0}) {
				t.Fatalf("error on text input: %v", err)
			}
			return
		}
		inFile := func(p ir.Pos) {
			if p.Line < 1 || p.Line > file.Lines {
				t.Fatalf("position %d outside the file's %d lines", p.Line, file.Lines)
			}
		}
		var walk func(ir.Block)
		walk = func(b ir.Block) {
			for _, s := range b {
				inFile(s.Position())
				switch s := s.(type) {
				case *ir.Loop:
					walk(s.Body)
				case *ir.If:
					walk(s.Then)
					walk(s.Else)
				case *ir.Switch:
					for _, c := range s.Cases {
						walk(c)
					}
				}
			}
		}
		for _, fn := range file.Funcs {
			inFile(fn.Pos)
			if fn.EndLine < fn.Pos.Line {
				t.Fatalf("%s ends at %d before its header at %d", fn.Name, fn.EndLine, fn.Pos.Line)
			}
			walk(fn.Body)
		}
		for _, e := range file.Errors {
			inFile(e.Pos)
		}
	})
}
