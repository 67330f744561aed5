package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/static/corpus"
)

// TestStaticTrainRefusesTestSet checks that static train refuses to fit
// on the held-out test set, before probing the storage or building
// anything.
func TestStaticTrainRefusesTestSet(t *testing.T) {
	corpusDir := filepath.Join("..", "..", "testdata", "static", "corpus")
	testDir := filepath.Join("..", "..", "testdata", "static", "test")
	test, err := corpus.Load(testDir)
	if err != nil || len(test.Programs) == 0 {
		t.Fatalf("test set: %v", err)
	}
	for _, args := range [][]string{
		{"static", "train", "--no-probe", "--corpus", corpusDir, "--test", testDir, "--programs", "matmul," + test.Programs[0].Name},
		{"static", "train", "--no-probe", "--corpus", testDir, "--test", ""},
	} {
		t.Run(strings.Join(args[3:], " "), func(t *testing.T) {
			r := iolens(t, args...)
			r.want(t, 1)
			if !strings.Contains(r.stderr, "test set") || r.stdout != "" {
				t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
			}
		})
	}
	r := iolens(t, "static", "train", "--no-probe", "--corpus", corpusDir, "--test", testDir, "--programs", "no_such_program")
	r.want(t, 1)
	if !strings.Contains(r.stderr, "no_such_program") {
		t.Errorf("stderr %q", r.stderr)
	}
}
