package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/internal/fixture"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	want := DefaultConfig()
	want.SmallRequests = 0.25
	want.MetadataTimeRank = 5
	want.DXTMaxPhases = 20
	want.DXTStragglerRatio = 3
	want.DXTIOTime = 0.8
	for name, text := range map[string]string{
		"c.toml": "small_requests = 0.25\nmetadata_time_rank = 5.0\ndxt_max_phases = 20\ndxt_straggler_ratio = 3.0\ndxt_io_time = 0.8\n",
		"c.json": `{"small_requests": 0.25, "metadata_time_rank": 5, "dxt_max_phases": 20, "dxt_straggler_ratio": 3, "dxt_io_time": 0.8}`,
	} {
		got, err := LoadConfig(writeFile(t, name, text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
}

func TestLoadConfigErrors(t *testing.T) {
	for name, tc := range map[string]struct{ file, text, want string }{
		"unknown toml": {"c.toml", "small_request = 0.2\n", `unknown key "small_request"`},
		"unknown json": {"c.json", `{"smallrequests": 0.2}`, `unknown key "smallrequests"`},
		"ratio":        {"c.toml", "imbalance_size = 1.5\n", "imbalance_size = 1.5: must be between 0 and 1"},
		"negative":     {"c.json", `{"small_requests_absolute": -1}`, "small_requests_absolute = -1"},
		"small bytes":  {"c.toml", "small_bytes = 1000\n", "small_bytes = 1000: must be an edge"},
		"type":         {"c.toml", "small_requests = \"x\"\n", "small_requests"},
		"extension":    {"c.yaml", "a: 1\n", "unknown format"},
		"dxt ratio":    {"c.toml", "dxt_straggler_ratio = 0.5\n", "dxt_straggler_ratio = 0.5: must be a ratio of at least 1"},
		"dxt share":    {"c.json", `{"dxt_rank0_share": 2}`, "dxt_rank0_share = 2: must be between 0 and 1"},
		"dxt phases":   {"c.toml", "dxt_max_phases = -1\n", "dxt_max_phases = -1"},
		"chunk ratio":  {"c.toml", "hdf5_chunk_ratio = 0.5\n", "hdf5_chunk_ratio = 0.5: must be a ratio of at least 1"},
		"lustre bytes": {"c.json", `{"lustre_large_file": -1}`, "lustre_large_file = -1"},
		"dxt seconds":  {"c.json", `{"dxt_straggler_seconds": -0.5}`, "dxt_straggler_seconds = -0.5"},
	} {
		p := writeFile(t, tc.file, tc.text)
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s and %q", name, err, p, tc.want)
		}
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("no error for a missing file")
	}
}

// BenchmarkAnalyze analyses the largest sample logs.
func BenchmarkAnalyze(b *testing.B) {
	logs := fixture.Logs(b)
	type sized struct {
		path string
		size int64
	}
	var all []sized
	for _, lg := range logs {
		if st, err := os.Stat(lg.Path); err == nil {
			all = append(all, sized{lg.Path, st.Size()})
		}
	}
	// the three largest
	for i := 0; i < len(all); i++ {
		for j := i + 1; j < len(all); j++ {
			if all[j].size > all[i].size {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	for _, s := range all[:min(3, len(all))] {
		b.Run(filepath.Base(s.path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				analyzeFile(b, s.path)
			}
		})
	}
}
