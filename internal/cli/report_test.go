package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	log := sample(t, "release_logs/mpi-io-test-x86_64-3.5.0.darshan")
	r := iolens(t, "report", "--width", "90", log)
	r.want(t, ExitOK)
	for _, want := range []string{"Job", "mpi-io-test", "Insights", "romio_no_indep_rw=true"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Error("colours in output that is not a terminal")
	}

	r = iolens(t, "report", "--json", log)
	r.want(t, ExitOK)
	var doc struct {
		Job struct {
			NProcs int64 `json:"nprocs"`
		} `json:"job"`
		Insights []struct{ Code, Level string } `json:"insights"`
		Phases   []json.RawMessage              `json:"phases"`
		Files    []struct{ Name string }        `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("--json output: %v", err)
	}
	if doc.Job.NProcs != 4 || len(doc.Insights) == 0 || doc.Phases == nil || len(doc.Files) == 0 {
		t.Errorf("--json: %+v", doc)
	}

	r = iolens(t, "report", "--list-codes")
	r.want(t, ExitOK)
	for _, code := range []string{"S01", "P01", "P22", "M01", "M10"} {
		if !strings.Contains(r.stdout, "\n"+code+" ") {
			t.Errorf("--list-codes lacks %s", code)
		}
	}
}

func TestReportConfig(t *testing.T) {
	log := sample(t, "release_logs/mpi-io-test-x86_64-3.5.0.darshan")
	dir := t.TempDir()
	good := filepath.Join(dir, "t.toml")
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(good, []byte("small_requests = 0.2\n"), 0o600)
	os.WriteFile(bad, []byte("no_such_threshold = 1\n"), 0o600)
	iolens(t, "report", "--config", good, log).want(t, ExitOK)
	r := iolens(t, "report", "--config", bad, log)
	r.want(t, ExitFailure)
	if !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "no_such_threshold") {
		t.Errorf("stderr %q does not name the file and the key", r.stderr)
	}
	r = iolens(t, "report", filepath.Join(dir, "missing.darshan"))
	r.want(t, ExitFailure)
	for _, args := range [][]string{{"report"}, {"report", "a", "b"}, {"report", "--list-codes", log}, {"report", "--width", "-3", log}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { wantUsageError(t, args...) })
	}
}

func TestReportHTML(t *testing.T) {
	log := sample(t, "mpi_io_test_with_dxt/treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan")
	out := filepath.Join(t.TempDir(), "r.html")
	iolens(t, "report", "--html", out, log).want(t, ExitOK)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "mpi-io-test") {
		t.Errorf("not a report page: %.200s", page)
	}
	for _, ref := range []string{`src="http`, `href="http`, `src='http`, `href='http`} {
		if strings.Contains(page, ref) {
			t.Errorf("page loads a network resource (%s)", ref)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only the page", len(entries))
	}
	wantUsageError(t, "report", "--json", "--html", out, log)
}
