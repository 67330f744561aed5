package sysprof

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unpackFixture writes the files of a txtar-style archive ("-- path --"
// lines followed by the file's content) under a temporary directory and
// returns that directory, to be used as Options.Root.
func unpackFixture(t *testing.T, archive string) string {
	t.Helper()
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var (
		name string
		body strings.Builder
	)
	flush := func() {
		if name == "" {
			return
		}
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		body.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			name = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --")
			continue
		}
		if name != "" {
			body.WriteString(line + "\n")
		}
	}
	flush()
	return root
}
