package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/static/corpus"
)

var (
	corpusDir  = filepath.Join("..", "..", "testdata", "static", "corpus")
	testSetDir = filepath.Join("..", "..", "testdata", "static", "test")
)

// loadSets loads the training corpus and the test set of the repository.
func loadSets(t *testing.T) (train, test corpus.Manifest) {
	t.Helper()
	train, err := corpus.Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	test, err = corpus.Load(testSetDir)
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

// TestSplit is the guard of the held-out test set: it is marked as such,
// it shares no program name and no source (by path or by content) with
// the training corpus, and it has the programs it was written with.
func TestSplit(t *testing.T) {
	train, test := loadSets(t)
	if train.IsTest() || !test.IsTest() {
		t.Fatalf("sets: training %q, test %q", train.Set, test.Set)
	}
	if len(test.Programs) < 12 {
		t.Errorf("%d test programs, want at least 12", len(test.Programs))
	}
	for _, p := range test.Programs {
		if _, ok := train.Program(p.Name); ok {
			t.Errorf("test program %s is also a training program", p.Name)
		}
	}
	if err := CheckSplit(train, test); err != nil {
		t.Fatal(err)
	}
	langs, mpi := map[string]int{}, 0
	for _, p := range test.Programs {
		langs[p.Language]++
		if p.Ranks > 1 {
			mpi++
		}
		if !strings.Contains(strings.Join(p.Build, " "), "-finstrument-functions") {
			t.Errorf("%s: built without -finstrument-functions", p.Name)
		}
	}
	if langs[corpus.LangC] == 0 || langs[corpus.LangCXX] == 0 || langs[corpus.LangFortran] < 2 || mpi == 0 {
		t.Errorf("test-set languages %v, %d MPI programs", langs, mpi)
	}
}

// TestTrainingRefusesTestSet checks that the training entry points refuse
// every way a test-set program could be fitted on, before measuring
// anything (the context is cancelled, so a measurement would fail
// otherwise, but not with ErrTestSet).
func TestTrainingRefusesTestSet(t *testing.T) {
	_, test := loadSets(t)
	var names []string
	for _, p := range test.Programs {
		names = append(names, p.Name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"test programs", Options{Corpus: corpusDir, Test: testSetDir, Programs: names}},
		{"one test program", Options{Corpus: corpusDir, Test: testSetDir, Programs: []string{"matmul", names[len(names)-1]}}},
		{"test set as corpus", Options{Corpus: testSetDir}},
		{"test set as both", Options{Corpus: testSetDir, Test: testSetDir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Check(tc.opts); !errors.Is(err, ErrTestSet) {
				t.Errorf("Check: %v, want ErrTestSet", err)
			}
			if _, err := Run(ctx, tc.opts); !errors.Is(err, ErrTestSet) {
				t.Errorf("Run: %v, want ErrTestSet", err)
			}
		})
	}
	// Without the test set, its programs are simply not training ones.
	for _, name := range names {
		if err := Check(Options{Corpus: corpusDir, Programs: []string{name}}); err == nil || !strings.Contains(err.Error(), "no such program") {
			t.Errorf("Check of %s without the test set: %v", name, err)
		}
	}
	if err := Check(Options{Corpus: corpusDir, Test: testSetDir, Programs: []string{"matmul", "stencil"}}); err != nil {
		t.Errorf("Check of training programs: %v", err)
	}
}

// TestCheckSplit checks that overlaps are found in made-up sets: a shared
// name, a shared source file, a copy of a source reformatted under another
// name, and a test set not marked as one.
func TestCheckSplit(t *testing.T) {
	const src = "#include <stdio.h>\nint main(void) { puts(\"x\"); return 0; }\n"
	write := func(t *testing.T, dir, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(t *testing.T, dir, set string, progs ...[2]string) corpus.Manifest {
		t.Helper()
		var b strings.Builder
		b.WriteString(`{"set": "` + set + `", "programs": [`)
		for i, p := range progs {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`{"name": "` + p[0] + `", "language": "c", "sources": ["` + p[1] + `"], "build": ["cc", "-o", "{out}", "{src}"], "ranks": 1}`)
		}
		b.WriteString("]}")
		write(t, dir, corpus.ManifestName, b.String())
		m, err := corpus.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, trainDir, testDir string) (corpus.Manifest, corpus.Manifest)
		want  string
	}{
		{"disjoint", func(t *testing.T, tr, te string) (corpus.Manifest, corpus.Manifest) {
			write(t, tr, "a.c", src)
			write(t, te, "b.c", strings.Replace(src, "x", "y", 1))
			return manifest(t, tr, "", [2]string{"a", "a.c"}), manifest(t, te, "test", [2]string{"b", "b.c"})
		}, ""},
		{"name", func(t *testing.T, tr, te string) (corpus.Manifest, corpus.Manifest) {
			write(t, tr, "a.c", src)
			write(t, te, "b.c", strings.Replace(src, "x", "y", 1))
			return manifest(t, tr, "train", [2]string{"a", "a.c"}), manifest(t, te, "test", [2]string{"a", "b.c"})
		}, "in both"},
		{"path", func(t *testing.T, tr, te string) (corpus.Manifest, corpus.Manifest) {
			write(t, tr, "a.c", src)
			return manifest(t, tr, "train", [2]string{"a", "a.c"}), manifest(t, te, "test", [2]string{"b", "../train/a.c"})
		}, "share the source"},
		{"copy", func(t *testing.T, tr, te string) (corpus.Manifest, corpus.Manifest) {
			write(t, tr, "a.c", src)
			write(t, te, "b.c", strings.ReplaceAll(src, " ", "\t\t"))
			return manifest(t, tr, "train", [2]string{"a", "a.c"}), manifest(t, te, "test", [2]string{"b", "b.c"})
		}, "is a copy of"},
		{"unmarked", func(t *testing.T, tr, te string) (corpus.Manifest, corpus.Manifest) {
			write(t, tr, "a.c", src)
			write(t, te, "b.c", strings.Replace(src, "x", "y", 1))
			return manifest(t, tr, "train", [2]string{"a", "a.c"}), manifest(t, te, "", [2]string{"b", "b.c"})
		}, "not marked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tr, te := filepath.Join(root, "train"), filepath.Join(root, "test")
			os.Mkdir(tr, 0o755)
			os.Mkdir(te, 0o755)
			trainMan, testMan := tc.setup(t, tr, te)
			err := CheckSplit(trainMan, testMan)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckSplit: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckSplit: %v, want an error with %q", err, tc.want)
			}
			if tc.want != "" {
				if err := Check(Options{Corpus: tr, Test: te}); err == nil {
					t.Error("Check accepted the split")
				}
			}
		})
	}
}
