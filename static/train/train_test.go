package train

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/iolens/iolens/static/model"
	"github.com/iolens/iolens/static/sysprof"
)

// TestRun trains on six programs of the corpus: every sampled function is
// one the static side found, the fitted model describes exactly these
// samples, and compute-only functions are measured and predicted as such.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs six corpus programs")
	}
	progs := []string{"matmul", "stencil", "unbuf_log", "fflush_loop", "bfs", "extsort"}
	res, err := Run(context.Background(), Options{
		Corpus:   filepath.Join("..", "..", "testdata", "static", "corpus"),
		Programs: progs,
		System:   sysprof.Default(),
		Folds:    5,
		Version:  "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) < 20 {
		t.Fatalf("%d samples, want at least 20", len(res.Samples))
	}
	for _, s := range res.Samples {
		if !slices.Contains(progs, s.Program) || s.Wall < DefaultMinWall {
			t.Errorf("sample %+v", s)
		}
		if (s.Function == "multiply" || s.Function == "step") && (s.Measured != 0 || s.Prior != 0 || s.Params.HasIO()) {
			t.Errorf("compute-only %s/%s: measured %v, predicted %v, params %+v", s.Program, s.Function, s.Measured, s.Prior, s.Params)
		}
	}
	if res.Table.N != len(res.Samples) || res.CV.N != len(res.Samples) || res.CV.Folds != 5 || res.PriorCV.N != len(res.Samples) {
		t.Errorf("table n %d, cv n %d folds %d, prior n %d; want %d samples", res.Table.N, res.CV.N, res.CV.Folds, res.PriorCV.N, len(res.Samples))
	}
	if res.Model.Version != "test" || res.Model.Format != model.FileFormat {
		t.Errorf("model version %q format %d", res.Model.Version, res.Model.Format)
	}
	// Each program's measured bottleneck, the function with the most I/O
	// of its own, and where the static ranking puts it.
	own := map[string]string{}
	for _, b := range res.Bottlenecks {
		own[b.Program] = b.Function
		if b.Hit != (b.Rank > 0 && b.Rank <= res.TopK) || len(b.Top) == 0 || len(b.Top) > res.TopK {
			t.Errorf("bottleneck %s", b)
		}
	}
	want := map[string]string{"stencil": "checkpoint", "unbuf_log": "log_event", "fflush_loop": "report", "extsort": "merge_runs", "bfs": "load_edges"}
	for p, f := range want {
		if own[p] != f {
			t.Errorf("%s: bottleneck %q, want %s", p, own[p], f)
		}
	}
	if res.TopK != DefaultTopK || res.Hits() > len(res.Bottlenecks) {
		t.Errorf("top %d, %d hits of %d", res.TopK, res.Hits(), len(res.Bottlenecks))
	}
}
