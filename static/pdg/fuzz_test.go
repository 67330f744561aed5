package pdg

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/iolens/iolens/static/cfront"
	"github.com/iolens/iolens/static/ir"
)

// FuzzBuild checks that no C or C++ program the front-end accepts makes
// the graph builder panic, with and without program arguments.
func FuzzBuild(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "cfront", "testdata", "*"))
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	for _, s := range []string{
		"int main(int c, char **v) { char p[64]; snprintf(p, 64, \"%s/%d\", v[1], c); FILE *f = fopen(p, \"r\");" +
			" while (fread(p, 1, 8, f) == 8) ; fseek(f, 0, SEEK_END); long n = ftell(f); return n; }",
		"void g(FILE *f, int n) { for (int i = 0; i < n; i++) fprintf(f, \"%d\\n\", i); }" +
			" int main(void) { FILE *f = fopen(\"a\", \"w\"); g(f, 3); g(f, 4); fclose(f);" +
			" f = fopen(\"a\", \"r\"); char b[9]; while (fgets(b, 9, f)) ; return 0; }",
		"int main(void) { int *a = malloc(40), s = 0; for (int i = 0; i < s; i++) a[i + 1] = a[i - 1]; return 0; }",
		"int main(void) { std::ofstream o(std::string(\"x\") + \".t\"); for (;;) o << 1 << '\\n'; }",
		"long count(std::istream &in) { std::string l; long n = 0; while (std::getline(in, l)) n++; double x;" +
			" while (in >> x) n++; return n; }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, lang := range []ir.Lang{ir.C, ir.CPP} {
			file, err := cfront.ParseLang("fuzz.c", src, lang)
			if err != nil {
				t.Fatalf("ParseLang(%s): %v", lang, err)
			}
			prog := &ir.Program{Files: []*ir.File{file}}
			for _, args := range [][]string{nil, {"out", "7"}} {
				if _, err := Build(prog, Options{Args: args, Procs: 2}); err != nil && !errors.Is(err, ErrNoEntry) {
					t.Fatalf("Build(%s): %v", lang, err)
				}
			}
		}
	})
}
