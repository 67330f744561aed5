package cfront

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConcurrentParse parses the same files from several goroutines, which
// share the parser pools, and expects the results of a sequential parse.
func TestConcurrentParse(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.c*"))
	srcs := make([][]byte, len(paths))
	for i, p := range paths {
		var err error
		if srcs[i], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := 0; rep < 5; rep++ {
				for i, p := range paths {
					want, err1 := Parse(p, srcs[i])
					got, err2 := Parse(p, srcs[i])
					if err1 != nil || err2 != nil {
						t.Errorf("Parse(%s): %v, %v", p, err1, err2)
						return
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("Parse(%s) differs between runs:\n%s", p, diff)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
