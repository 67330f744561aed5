package fix

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/internal/fixture"
	"github.com/iolens/iolens/static/ir"
)

// TestUnifiedAgainstPatch renders edits at the edges of files (first
// line, last line without newline, hunks close and far apart) and checks
// that patch -p1 makes of the diff the text apply makes.
func TestUnifiedAgainstPatch(t *testing.T) {
	patchTool := fixture.Tool(t, "patch")
	var long strings.Builder
	for i := 1; i <= 30; i++ {
		long.WriteString("line " + strings.Repeat("x", i%4) + "\n")
	}
	cases := []struct {
		name  string
		text  string
		edits func(s *source) []edit
		want  string // the diff, when given
	}{
		{name: "no newline at end", text: "a\nb\nc", edits: func(s *source) []edit {
			off, pre := s.afterLine(3)
			return []edit{{off: off, end: off, text: pre + "d\n"}}
		}, want: "--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,4 @@\n a\n b\n-c\n\\ No newline at end of file\n+c\n+d\n"},
		{name: "first line", text: "a\nb\n", edits: func(s *source) []edit {
			return []edit{{off: 0, end: 0, text: "z\n"}}
		}, want: "--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,3 @@\n+z\n a\n b\n"},
		{name: "two hunks", text: long.String(), edits: func(s *source) []edit {
			return []edit{
				{off: s.lineStart(2), end: s.lineStart(3)},
				{off: s.lineStart(9) + 4, end: s.lineStart(9) + 4, text: "_all"},
				{off: s.lineStart(25), end: s.lineStart(25), text: "new\n"},
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSource("f.c", ir.C, []byte(c.text))
			edits := c.edits(s)
			var b strings.Builder
			if err := writeUnified(&b, s, "f.c", edits); err != nil {
				t.Fatal(err)
			}
			if c.want != "" && b.String() != c.want {
				t.Errorf("diff:\n%s\nwant:\n%s", b.String(), c.want)
			}
			if c.name == "two hunks" && strings.Count(b.String(), "@@ -") != 2 {
				t.Errorf("want 2 hunks:\n%s", b.String())
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.c"), []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(patchTool, "-p1", "--batch", "--no-backup-if-mismatch")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(b.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch: %v\n%s\n%s", err, out, b.String())
			}
			got, _ := os.ReadFile(filepath.Join(dir, "f.c"))
			if want := apply(s.text, edits); string(got) != string(want) {
				t.Errorf("patched %q, want %q", got, want)
			}
		})
	}
}
