package cli

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
	"github.com/iolens/iolens/knowledge"
)

// compileTestdata compiles testdata/<rel> of the module with cc and flags.
func compileTestdata(t *testing.T, cc, rel string, flags ...string) string {
	t.Helper()
	return compileSource(t, cc, filepath.Join("testdata", rel), flags...)
}

// compileSource compiles the C file at path rel of the module with cc and
// flags.
func compileSource(t *testing.T, cc, rel string, flags ...string) string {
	t.Helper()
	root, err := fixture.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(rel), ".c"))
	args := append([]string{"-O2", "-o", out, filepath.Join(root, rel)}, flags...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	return out
}

// onlyLog returns the one log in dir whose name contains app.
func onlyLog(t *testing.T, dir, app string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*"+app+"*.darshan"))
	if len(m) != 1 {
		t.Fatalf("logs of %s in %s: %v, want one", app, dir, m)
	}
	return m[0]
}

// metadata returns the job metadata of the log at path.
func metadata(t *testing.T, path string) map[string]string {
	t.Helper()
	l, err := darshan.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m := map[string]string{}
	for _, p := range l.Job.MetadataPairs() {
		m[p.Key] = p.Value
	}
	return m
}

func wantPrefetch(t *testing.T, path string, want map[string]string) {
	t.Helper()
	got := metadata(t, path)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: metadata %s = %q, want %q", filepath.Base(path), k, got[k], v)
		}
	}
}

// graphOf returns the JSON graph of app.
func graphOf(t *testing.T, repo, app string) graphDoc {
	t.Helper()
	r := iolens(t, "learn", "show", "--repo", repo, "--app", app, "--json")
	r.want(t, 0)
	var g graphDoc
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil {
		t.Fatalf("learn show --json: %v\n%s", err, r.stdout)
	}
	return g
}

// A POSIX program learned from one run is prefetched on the next: six
// blocks read out of order with a pause before each; the second run
// prefetches the five it can predict, two ahead, and reads all of them.
func TestLearnPrefetchPOSIX(t *testing.T) {
	prog := compileTestdata(t, needTool(t, "cc"), "prefetch/posix_reads.c")
	dir := t.TempDir()
	data := filepath.Join(dir, "blocks.dat")
	if err := os.WriteFile(data, []byte(rand.Text()+strings.Repeat("x", 32768)), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "k.db")
	logs1, logs2, logs3 := filepath.Join(dir, "1"), filepath.Join(dir, "2"), filepath.Join(dir, "3")

	iolens(t, "run", "--learn", "--log-dir", logs1, "--", prog, data, "30").want(t, 0)
	r := iolens(t, "learn", "--repo", repo, onlyLog(t, logs1, "posix-reads"))
	r.want(t, 0)
	if !strings.Contains(r.stdout, "6 accesses learned into posix_reads") {
		t.Errorf("learn said %q", r.stdout)
	}
	g := graphOf(t, repo, "posix_reads")
	if g.Runs != 1 || len(g.Vertices) != 6 || len(g.Edges) != 5 {
		t.Fatalf("graph: %d runs, %d vertices, %d edges; want 1, 6, 5", g.Runs, len(g.Vertices), len(g.Edges))
	}
	if v := g.Vertices[0]; v.Op != "read" || v.Module != "POSIX" || v.Offset != 5*4096 || v.Length != 4096 || v.Object != knowledge.Generalize(data)+"[0]" {
		t.Errorf("first vertex %+v, want the read of block 5", v)
	}

	r = iolens(t, "run", "--prefetch", "--no-learn", "--repo", repo, "--log-dir", logs2, "--", prog, data, "30")
	r.want(t, 0)
	wantPrefetch(t, onlyLog(t, logs2, "posix-reads"), map[string]string{
		"prefetch_status": "ok", "prefetch_extents": "5", "prefetch_bytes": "20480", "prefetch_hit_bytes": "20480",
		"prefetch_right": "5", "prefetch_wrong": "0", "prefetch_matched": "6", "prefetch_unknown": "0",
	})
	r = iolens(t, "report", "--width", "200", onlyLog(t, logs2, "posix-reads"))
	r.want(t, 0)
	if want := "prefetching:  5 extents, 20.0 KiB, 100% read afterwards; next access predicted right 5 times, wrong 0; 6 of 6 accesses known"; !strings.Contains(r.stdout, want) {
		t.Errorf("report lacks %q:\n%s", want, r.stdout)
	}
	if g := graphOf(t, repo, "posix_reads"); g.Runs != 1 {
		t.Errorf("--no-learn: %d runs learned, want 1", g.Runs)
	}

	// A prefetching run learns too: counts double, the shape stays.
	r = iolens(t, "run", "--prefetch", "--repo", repo, "--log-dir", logs3, "--", prog, data, "30")
	r.want(t, 0)
	if !strings.Contains(r.stderr, "iolens: 6 accesses learned into posix_reads") {
		t.Errorf("run --prefetch stderr %q does not say it learned", r.stderr)
	}
	g = graphOf(t, repo, "posix_reads")
	if g.Runs != 2 || len(g.Vertices) != 6 || len(g.Edges) != 5 || g.Edges[0].Count != 2 || g.Vertices[0].Visits != 2 {
		t.Errorf("graph after a second learned run: %d runs, %d vertices, %d edges, %+v; want 2, 6, 5, counts 2", g.Runs, len(g.Vertices), len(g.Edges), g.Edges[0])
	}
	r = iolens(t, "learn", "eval", "--repo", repo, "-k", "2", onlyLog(t, logs3, "posix-reads"))
	r.want(t, 0)
	if !regexp.MustCompile(`100\.0%\s+100\.0%`).MatchString(r.stdout) {
		t.Errorf("learn eval of a learned run:\n%s\nwant 100%% at depth 1 and 2", r.stdout)
	}
}

// A PnetCDF program on two ranks: each rank reads its row of five
// variables out of order, independently; rank 0 also reads the header.
func TestLearnPrefetchPnetCDF(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	mpiexec := needTool(t, "mpiexec.openmpi")
	flags, err := exec.Command(needTool(t, "pkg-config"), "--cflags", "--libs", "pnetcdf").Output()
	if err != nil {
		t.Fatalf("pkg-config pnetcdf: %v", err)
	}
	prog := compileTestdata(t, mpicc, "prefetch/nc_reads.c", strings.Fields(string(flags))...)
	for _, kv := range [][2]string{{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}, {"OMPI_MCA_rmaps_base_oversubscribe", "1"}} {
		t.Setenv(kv[0], kv[1])
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "v.nc")
	if b, err := exec.Command(mpiexec, "-n", "2", prog, "create", file).CombinedOutput(); err != nil {
		t.Fatalf("creating %s: %v\n%s", file, err, b)
	}
	repo := filepath.Join(dir, "k.db")
	logs1, logs2 := filepath.Join(dir, "1"), filepath.Join(dir, "2")
	iolens(t, "run", "--learn", "--log-dir", logs1, "--", mpiexec, "-n", "2", prog, "read", file, "30").want(t, 0)
	// The log of mpiexec has no access sequence: skipped, not an error.
	all, _ := filepath.Glob(filepath.Join(logs1, "*.darshan"))
	r := iolens(t, append([]string{"learn", "--repo", repo}, all...)...)
	r.want(t, 0)
	g := graphOf(t, repo, "nc_reads")
	// Rank 0: two header reads and five variables; rank 1: five variables.
	if g.Runs != 1 || len(g.Vertices) != 12 || len(g.Edges) != 10 {
		t.Fatalf("graph: %d runs, %d vertices, %d edges; want 1, 12, 10", g.Runs, len(g.Vertices), len(g.Edges))
	}
	r = iolens(t, "run", "--prefetch", "--no-learn", "--repo", repo, "--log-dir", logs2, "--", mpiexec, "-n", "2", prog, "read", file, "30")
	r.want(t, 0)
	// Rank 0 prefetches the header's second read (80512 bytes: the whole
	// file, so its variables are covered); rank 1 the rows of the four
	// variables it can predict (8000 bytes each).
	wantPrefetch(t, onlyLog(t, logs2, "nc-reads"), map[string]string{
		"prefetch_status": "ok", "prefetch_extents": "5", "prefetch_bytes": "112512", "prefetch_hit_bytes": "112512",
		"prefetch_right": "10", "prefetch_wrong": "0", "prefetch_matched": "12", "prefetch_unknown": "0",
	})
}

// The HDF5 twin of the prefetch benchmark, small: 3 datasets of 4 steps
// in two files, read out of order with a pause per step. Built against
// Open MPI and HDF5 without C++ libraries in the process, it also checks
// that the collector calls nothing the library does not link.
func TestLearnPrefetchHDF5(t *testing.T) {
	mpicc := needTool(t, "mpicc.openmpi")
	mpiexec := needTool(t, "mpiexec.openmpi")
	flags, err := exec.Command(needTool(t, "pkg-config"), "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatalf("pkg-config hdf5-openmpi: %v", err)
	}
	prog := compileSource(t, mpicc, "bench/pgea_h5.c", strings.Fields(string(flags))...)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	dir := t.TempDir()
	for _, n := range []string{"1", "2"} {
		data := filepath.Join(dir, "data_"+n)
		if err := os.Mkdir(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command(mpiexec, "-n", "1", prog, "gen", data, "3", "4", "1000", n).CombinedOutput(); err != nil {
			t.Fatalf("generating %s: %v\n%s", data, err, b)
		}
	}
	repo := filepath.Join(dir, "k.db")
	logs1, logs2 := filepath.Join(dir, "1"), filepath.Join(dir, "2")
	out := filepath.Join(dir, "out.h5")
	iolens(t, "run", "--learn", "--log-dir", logs1, "--", mpiexec, "-n", "1", prog, "run", filepath.Join(dir, "data_1"), out, "3", "4", "1000", "400", "fixed").want(t, 0)
	iolens(t, "learn", "--repo", repo, onlyLog(t, logs1, "pgea-h5")).want(t, 0)
	iolens(t, "run", "--prefetch", "--no-learn", "--repo", repo, "--log-dir", logs2, "--", mpiexec, "-n", "1", prog, "run", filepath.Join(dir, "data_2"), out, "3", "4", "1000", "400", "fixed").want(t, 0)
	// Other data of the same shape: every access is known and every
	// prediction right after the first.
	wantPrefetch(t, onlyLog(t, logs2, "pgea-h5"), map[string]string{
		"prefetch_status": "ok", "prefetch_extents": "42", "prefetch_bytes": "199056", "prefetch_hit_bytes": "199056",
		"prefetch_right": "54", "prefetch_wrong": "0", "prefetch_matched": "55", "prefetch_unknown": "0",
	})
}

func TestLearnErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	log := sample(t, "release_logs/mpi-io-test-x86_64-3.4.0.darshan")
	r := iolens(t, "learn", "--repo", garbage, log)
	r.want(t, 1)
	if !strings.Contains(r.stderr, garbage) {
		t.Errorf("stderr %q does not name the repository", r.stderr)
	}
	r = iolens(t, "learn", "--repo", filepath.Join(dir, "k.db"), log)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "no access sequences") {
		t.Errorf("learn of a log without sequences: stderr %q", r.stderr)
	}
	iolens(t, "learn").want(t, ExitUsage)
	iolens(t, "run", "--no-learn", "--", "true").want(t, ExitUsage)
	iolens(t, "learn", "show", "--repo", filepath.Join(dir, "k.db"), "--app", "nothing").want(t, 1)
	r = iolens(t, "learn", "show", "--repo", filepath.Join(dir, "k.db"))
	r.want(t, 0)
	if !strings.Contains(r.stdout, "no application learned yet") {
		t.Errorf("learn show of an empty repository: %q", r.stdout)
	}
}

// A plan that does not validate is ignored: the program runs as usual and
// the log says why.
func TestPrefetchBadPlan(t *testing.T) {
	prog := compileTestdata(t, needTool(t, "cc"), "prefetch/posix_reads.c")
	dir := t.TempDir()
	data := filepath.Join(dir, "blocks.dat")
	if err := os.WriteFile(data, make([]byte, 32768), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "bad.plan")
	if err := os.WriteFile(plan, []byte("IOLPLAN\x01 and then garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("IOLENS_PREFETCH_PLAN", plan)
	logs := filepath.Join(dir, "logs")
	iolens(t, "run", "--learn", "--log-dir", logs, "--", prog, data, "0").want(t, 0)
	wantPrefetch(t, onlyLog(t, logs, "posix-reads"), map[string]string{
		"prefetch_status": "not a prefetch plan", "prefetch_extents": "0",
	})
}
