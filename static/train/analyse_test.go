package train

import (
	"context"
	"testing"

	"github.com/iolens/iolens/static/corpus"
	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
)

// TestAnalyseEveryProgram analyses every program of the training corpus
// and of the test set as training does, with its arguments and ranks: the
// analysis must give each a result with its entry function.
func TestAnalyseEveryProgram(t *testing.T) {
	train, test := loadSets(t)
	m := model.Default()
	for _, set := range []struct {
		name     string
		programs []corpus.Program
	}{{"training", train.Programs}, {"test", test.Programs}} {
		for _, p := range set.programs {
			an, err := analyze(context.Background(), p, Options{System: sysprof.Default()}, &m)
			if err != nil {
				t.Errorf("%s program %s: %v", set.name, p.Name, err)
				continue
			}
			if an.Entry == "" {
				t.Errorf("%s program %s: no entry function", set.name, p.Name)
			}
		}
	}
}
