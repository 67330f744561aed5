package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iolens/iolens/internal/fixture"
)

const tuneSpaceFile = `[[param]]
name = "romio_ds_write"
kind = "mpiio"
values = ["automatic", "disable"]

[[param]]
name = "cb_buffer_size"
kind = "mpiio"
values = ["1M", "4M"]
`

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func openMPIForTests(t *testing.T) {
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	t.Setenv("OMPI_MCA_rmaps_base_oversubscribe", "1")
}

// Exhaustive tuning of the IOR-like kernel on 4 configurations: the JSON
// outcome, the history, and a resume that reruns nothing.
func TestTuneLocal(t *testing.T) {
	mpicc, mpiexec := needTool(t, "mpicc.openmpi"), needTool(t, "mpiexec.openmpi")
	prog := compileSource(t, mpicc, "bench/kernels/iorlike.c")
	openMPIForTests(t)
	dir := t.TempDir()
	space := writeFile(t, filepath.Join(dir, "space.toml"), tuneSpaceFile)
	hist, trials := filepath.Join(dir, "tuning.db"), filepath.Join(dir, "trials")
	cmd := []string{"--", mpiexec, "-n", "2", prog, filepath.Join(dir, "f.dat"), "65536", "4096", "2", "strided", "indep"}
	r := iolens(t, append([]string{"tune", "--json", "--space", space, "--strategy", "exhaustive", "--history", hist, "--dir", trials}, cmd...)...)
	r.want(t, 0)
	var doc tuneDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, r.stdout)
	}
	if doc.Runs != 4 || doc.Session != 1 || doc.Strategy != "exhaustive" || doc.Best == nil || doc.Speedup < 1 {
		t.Fatalf("outcome %+v: want 4 runs of session 1, a best at least as fast as the default", doc)
	}
	if got := doc.Default.Config.String(); got != "romio_ds_write=automatic cb_buffer_size=1048576" {
		t.Errorf("default configuration %q", got)
	}
	if doc.Best.Objective <= 0 || doc.Best.Log == "" {
		t.Errorf("best %+v: want a positive I/O time from a log", doc.Best)
	}
	// Each trial's log says what it ran with.
	meta := metadata(t, doc.Best.Log)
	if want := strings.ReplaceAll(doc.Best.Config.String(), "=", ":"); meta["iolens_set"] != want || !strings.HasPrefix(meta["iolens_set_opens"], "mpiio:4,") {
		t.Errorf("best trial's metadata iolens_set=%q iolens_set_opens=%q, want %q and 4 opens", meta["iolens_set"], meta["iolens_set_opens"], want)
	}
	r = iolens(t, "tune", "show", "--history", hist, "--json", "1")
	r.want(t, 0)
	var rows []resultDoc
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 4 {
		t.Fatalf("tune show 1: %v, %d trials\n%s", err, len(rows), r.stdout)
	}
	// Resuming a finished session measures nothing again.
	before, _ := filepath.Glob(filepath.Join(trials, "trial-*"))
	r = iolens(t, append([]string{"tune", "--json", "--space", space, "--strategy", "exhaustive", "--history", hist, "--dir", trials, "--resume", "1"}, cmd...)...)
	r.want(t, 0)
	after, _ := filepath.Glob(filepath.Join(trials, "trial-*"))
	if len(after) != len(before) {
		t.Errorf("resume ran %d trials again", len(after)-len(before))
	}
	page := filepath.Join(dir, "tuning.html")
	iolens(t, "tune", "show", "--history", hist, "--html", page, "1").want(t, 0)
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "romio_ds_write=automatic cb_buffer_size=1048576") {
		t.Errorf("tune show --html: %v, page without the default configuration", err)
	}
	r = iolens(t, "tune", "show", "--history", hist)
	r.want(t, 0)
	if !strings.Contains(r.stdout, "iorlike") || !strings.Contains(r.stdout, "exhaustive") {
		t.Errorf("tune show:\n%s", r.stdout)
	}
}

// The trials as Slurm jobs, two at a time, on a real slurmctld and slurmd.
func TestTuneSlurm(t *testing.T) {
	cluster := fixture.Slurm(t)
	mpicc, mpiexec := needTool(t, "mpicc.openmpi"), needTool(t, "mpiexec.openmpi")
	prog := compileSource(t, mpicc, "bench/kernels/iorlike.c")
	openMPIForTests(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "iolens")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/iolens/iolens/cmd/iolens").CombinedOutput(); err != nil {
		t.Fatalf("building iolens: %v\n%s", err, b)
	}
	t.Setenv("IOLENS_BIN", bin)
	t.Setenv("SLURM_CONF", cluster.Conf)
	space := writeFile(t, filepath.Join(dir, "space.toml"), tuneSpaceFile)
	r := iolens(t, "tune", "--json", "--space", space, "--strategy", "exhaustive", "--executor", "slurm", "--jobs", "2",
		"--history", filepath.Join(dir, "tuning.db"), "--dir", filepath.Join(dir, "trials"), "--timeout", "5m",
		"--", mpiexec, "-n", "2", prog, filepath.Join(dir, "f.dat"), "65536", "4096", "2", "segmented", "coll")
	r.want(t, 0)
	var doc tuneDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, r.stdout)
	}
	if doc.Runs != 4 || doc.Best == nil || doc.Default.Error != "" {
		t.Fatalf("outcome %+v, want 4 successful trials", doc)
	}
	scripts, _ := filepath.Glob(filepath.Join(dir, "trials", "trial-*", "run-1", "job.sh"))
	if len(scripts) != 4 {
		t.Errorf("%d job scripts, want 4", len(scripts))
	}
}

func TestRunSet(t *testing.T) {
	mpicc, mpiexec := needTool(t, "mpicc.openmpi"), needTool(t, "mpiexec.openmpi")
	prog := compileSource(t, mpicc, filepath.Join("collector", "testdata", "mpiio", "hints.c"))
	openMPIForTests(t)
	dir := t.TempDir()
	r := iolens(t, "run", "--set", "cb_buffer_size=8M", "--set", "romio_ds_write=disable", "--log-dir", dir, "--", mpiexec, "-n", "2", prog, dir)
	r.want(t, 0)
	if want := "a cb_buffer_size=8388608 romio_ds_write=disable\nb cb_buffer_size=8388608 romio_ds_write=disable\n"; r.stdout != want {
		t.Errorf("the program saw:\n%s\nwant:\n%s", r.stdout, want)
	}
	for _, bad := range [][]string{
		{"run", "--set", "nonsense=1", "--", "true"},
		{"run", "--set", "cb_nodes", "--", "true"},
		{"run", "--set", "romio_ds_write=maybe", "--", "true"},
		{"tune", "--", "true"},
		{"tune", "--preset", "mpiio", "--strategy", "magic", "--", "true"},
		{"tune", "--preset", "nope", "--", "true"},
	} {
		iolens(t, bad...).want(t, ExitUsage)
	}
	r = iolens(t, "tune", "--space", writeFile(t, filepath.Join(dir, "bad.toml"), "[[param]]\nname = 3\n"), "--history", filepath.Join(dir, "h.db"), "--", "true")
	r.want(t, 1)
	if !strings.Contains(r.stderr, "bad.toml") {
		t.Errorf("bad space: stderr %q does not name the file", r.stderr)
	}
}
