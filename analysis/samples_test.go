package analysis

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// analyzeFile opens and analyses the log at path with the default
// thresholds.
func analyzeFile(tb testing.TB, path string) *Report {
	tb.Helper()
	l, err := darshan.OpenFile(path)
	if err != nil {
		tb.Fatalf("opening %s: %v", path, err)
	}
	defer l.Close()
	rep, err := Analyze(l, path, DefaultConfig())
	if err != nil {
		tb.Fatalf("analysing %s: %v", path, err)
	}
	return rep
}

// TestSampleLogs analyses every sample log, including empty and incomplete
// ones, and checks invariants of the report.
func TestSampleLogs(t *testing.T) {
	for _, lg := range fixture.Logs(t) {
		t.Run(lg.Key, func(t *testing.T) {
			rep := analyzeFile(t, lg.Path)
			if _, err := json.Marshal(rep); err != nil {
				t.Fatalf("encoding the report: %v", err)
			}
			seen := map[string]bool{}
			for _, in := range rep.Insights {
				if seen[in.Code] {
					t.Errorf("insight %s reported twice", in.Code)
				}
				seen[in.Code] = true
				if codeInfo(in.Code).Code == "" {
					t.Errorf("insight %s is not in the code table", in.Code)
				}
				if len(in.Subjects) > maxSubjects {
					t.Errorf("insight %s names %d subjects", in.Code, len(in.Subjects))
				}
				if in.Code == "X02" {
					t.Errorf("module not readable: %v", in.Details)
				}
			}
			for i := 1; i < len(rep.Files); i++ {
				a, b := rep.Files[i-1], rep.Files[i]
				if a.BytesRead+a.BytesWritten < b.BytesRead+b.BytesWritten {
					t.Errorf("files not sorted by bytes: %s before %s", a.Name, b.Name)
				}
			}
			if len(rep.Job.Partial) > 0 != seen["X01"] {
				t.Errorf("partial modules %v but X01 reported: %v", rep.Job.Partial, seen["X01"])
			}
			if testing.Verbose() {
				var codes []string
				for _, in := range rep.Insights {
					codes = append(codes, in.Code+":"+in.Level.String())
				}
				t.Logf("%s nodes=%d hints=%v %v", filepath.Base(lg.Path), rep.Job.Nodes, rep.Job.Hints, codes)
			}
		})
	}
}
