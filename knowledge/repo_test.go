package knowledge

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/darshan"
)

func openRepo(t *testing.T, path string) *Repo {
	t.Helper()
	r, err := OpenRepo(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRepoRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "dir", "knowledge.db")
	r := openRepo(t, path)
	if r.Path() != path {
		t.Errorf("Path() = %q, want %q", r.Path(), path)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode(), err, want)
		}
	}

	w := newWorld()
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 123, time.UTC)
	runs := []Run{
		{Source: "a.darshan", Sequences: []darshan.AccessSequence{w.chain(0, "1", "a", "b", "c"), w.chain(1, "1", "b", "c")}},
		{Source: "b.darshan", Sequences: []darshan.AccessSequence{w.chain(0, "2", "a", "x", "c")}},
		{Source: "c.darshan", Sequences: []darshan.AccessSequence{w.chain(0, "3", "a", "b", "c", "d")}},
	}
	runs[1].Sequences[0].Partial = true
	var want Graph
	for i, run := range runs {
		run.Names = w.lookup
		run.Time = t0.Add(time.Duration(i) * time.Hour)
		if err := r.Learn("sim", run); err != nil {
			t.Fatal(err)
		}
		accumulate(t, &want, w, run.Sequences...)
	}
	if err := r.Learn("other", Run{Source: "o.darshan", Names: w.lookup, Time: t0, Sequences: []darshan.AccessSequence{w.chain(0, "1", "z")}}); err != nil {
		t.Fatal(err)
	}

	check := func(r *Repo) {
		t.Helper()
		got, err := r.Graph("sim")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(&want, got, graphOpts); d != "" {
			t.Errorf("graph (-want +got):\n%s", d)
		}
		apps, err := r.Apps()
		if err != nil {
			t.Fatal(err)
		}
		wantApps := []AppSummary{
			{Name: "other", Runs: 1, Vertices: 1, LastLearned: t0},
			{Name: "sim", Runs: 3, Vertices: len(want.Vertices), Edges: len(want.Edges), LastLearned: t0.Add(2 * time.Hour)},
		}
		if d := cmp.Diff(wantApps, apps); d != "" {
			t.Errorf("Apps (-want +got):\n%s", d)
		}
		infos, err := r.Runs("sim")
		if err != nil {
			t.Fatal(err)
		}
		wantInfos := []RunInfo{
			{Run: 1, Source: "a.darshan", Learned: t0, Ranks: 2, Accesses: 10},
			{Run: 2, Source: "b.darshan", Learned: t0.Add(time.Hour), Ranks: 1, PartialRanks: 1, Accesses: 6},
			{Run: 3, Source: "c.darshan", Learned: t0.Add(2 * time.Hour), Ranks: 1, Accesses: 8},
		}
		if d := cmp.Diff(wantInfos, infos); d != "" {
			t.Errorf("Runs (-want +got):\n%s", d)
		}
	}
	check(r)
	r.Close()
	check(openRepo(t, path))

	// A loaded graph predicts like the one it was saved from.
	got, err := openRepo(t, path).Graph("sim")
	if err != nil {
		t.Fatal(err)
	}
	m1, m2 := NewMatcher(&want), NewMatcher(got)
	m1.ObserveVertex(0)
	m2.ObserveVertex(0)
	if d := cmp.Diff(m1.Predict(3, 0), m2.Predict(3, 0)); d != "" {
		t.Errorf("predictions differ (-built +loaded):\n%s", d)
	}
}

func TestRepoUnknownApp(t *testing.T) {
	r := openRepo(t, filepath.Join(t.TempDir(), "k.db"))
	if _, err := r.Graph("nope"); !errors.Is(err, ErrUnknownApp) {
		t.Errorf("Graph of an unknown application: %v, want ErrUnknownApp", err)
	}
	if _, err := r.Runs("nope"); !errors.Is(err, ErrUnknownApp) {
		t.Errorf("Runs of an unknown application: %v, want ErrUnknownApp", err)
	}
	if apps, err := r.Apps(); err != nil || len(apps) != 0 {
		t.Errorf("Apps of an empty repository = %v, %v", apps, err)
	}
	if err := r.Learn("", Run{}); err == nil {
		t.Error("empty application name accepted")
	}
}

func TestRepoLearnInvalid(t *testing.T) {
	r := openRepo(t, filepath.Join(t.TempDir(), "k.db"))
	w := newWorld()
	if err := r.Learn("sim", Run{Names: w.lookup, Sequences: []darshan.AccessSequence{w.chain(0, "1", "a", "b")}}); err != nil {
		t.Fatal(err)
	}
	bad := w.chain(0, "2", "a", "b")
	bad.Accesses[1].Parent = 2
	err := r.Learn("sim", Run{Source: "bad.darshan", Names: w.lookup, Sequences: []darshan.AccessSequence{bad}})
	if err == nil || !strings.Contains(err.Error(), r.Path()) || !strings.Contains(err.Error(), "bad.darshan") {
		t.Fatalf("err = %v, want one naming the repository and the run", err)
	}
	g, err := r.Graph("sim")
	if err != nil {
		t.Fatal(err)
	}
	if g.Runs != 1 || g.Vertices[0].Visits != 1 {
		t.Errorf("after a failed Learn: %d runs, %d visits; want 1, 1", g.Runs, g.Vertices[0].Visits)
	}
}

func TestRepoConcurrentLearners(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	const learners, learns = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, learners*learns)
	for i := range learners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each learner is a process of its own: its own Repo, opened
			// at the same time as the others.
			r, err := OpenRepo(path)
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			w := newWorld()
			for j := range learns {
				date := fmt.Sprint(2026000 + 10*i + j)
				run := Run{
					Source:    "learner",
					Names:     w.lookup,
					Sequences: []darshan.AccessSequence{w.chain(0, date, "a", "b", "c"), w.chain(1, date, "c", "a")},
				}
				if err := r.Learn("sim", run); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r := openRepo(t, path)
	g, err := r.Graph("sim")
	if err != nil {
		t.Fatal(err)
	}
	const n = learners * learns
	want := &Graph{
		Runs: n,
		Vertices: []Vertex{
			hv(0, "a", 2*n, ext(1000), ext(2000)),
			hv(1, "b", n, ext(2000)),
			hv(2, "c", 2*n, ext(1000), ext(3000)),
		},
		Edges: []Edge{
			{From: 0, To: 1, Count: n, Gap: 0.5 * n, LastRun: n},
			{From: 1, To: 2, Count: n, Gap: 0.5 * n, LastRun: n},
			{From: 2, To: 0, Count: n, Gap: 0.5 * n, LastRun: n},
		},
	}
	if d := cmp.Diff(want, g, graphOpts); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
	infos, err := r.Runs("sim")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != n {
		t.Fatalf("%d runs recorded, want %d", len(infos), n)
	}
	for i, ri := range infos {
		if ri.Run != int64(i+1) {
			t.Errorf("run %d numbered %d", i+1, ri.Run)
		}
	}
}

func TestRepoCorrupt(t *testing.T) {
	dir := t.TempDir()
	for i, tt := range []struct{ content, want string }{
		{strings.Repeat("this is not a database\n", 300), "not an SQLite database"},
		// SQLite itself would take this one for an empty database.
		{"x", "not an SQLite database"},
		{"SQLite format", "not an SQLite database"},
		// The header of an SQLite database, then garbage.
		{"SQLite format 3\x00" + strings.Repeat("garbage!", 512), "file is not a database"},
	} {
		path := filepath.Join(dir, fmt.Sprintf("garbage%d.db", i))
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := OpenRepo(path)
		if err == nil {
			r.Close()
			t.Errorf("garbage %d opened as a repository", i)
			continue
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("garbage %d: err = %v, want one naming %s and saying %q", i, err, path, tt.want)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != tt.content {
			t.Errorf("garbage %d: the file changed (%v)", i, err)
		}
	}

	// An SQLite database of another program.
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r, err := OpenRepo(other)
	if err == nil {
		r.Close()
		t.Fatal("another program's database opened as a repository")
	}
	if !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "not an iolens knowledge repository") {
		t.Errorf("err = %v, want one naming %s and saying it is not a repository", err, other)
	}

	// A repository whose graph was damaged.
	damaged := filepath.Join(dir, "damaged.db")
	rr := openRepo(t, damaged)
	w := newWorld()
	if err := rr.Learn("sim", Run{Names: w.lookup, Sequences: []darshan.AccessSequence{w.chain(0, "1", "a", "b")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rr.db.SQL.Exec("UPDATE vertices SET extents = 'garbage' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := rr.Graph("sim"); err == nil || !strings.Contains(err.Error(), damaged) || !strings.Contains(err.Error(), "corrupt graph: vertex 1: extents") {
		t.Errorf("Graph of a damaged repository: %v", err)
	}
}

func TestRepoNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	r := openRepo(t, path)
	if _, err := r.db.SQL.Exec("PRAGMA user_version = 2"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r, err := OpenRepo(path)
	if err == nil {
		r.Close()
		t.Fatal("a repository of a newer schema opened")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "schema version 2 is newer") {
		t.Errorf("err = %v, want one naming %s and its newer schema version", err, path)
	}
}

func TestDefaultRepoPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data/home")
	if p, err := DefaultRepoPath(); err != nil || p != "/data/home/iolens/knowledge.db" {
		t.Errorf("with XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if p, err := DefaultRepoPath(); err != nil || p != "/home/u/.local/share/iolens/knowledge.db" {
		t.Errorf("with a relative XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	if p, err := DefaultRepoPath(); err != nil || p != "/home/u/.local/share/iolens/knowledge.db" {
		t.Errorf("without XDG_DATA_HOME: %q, %v", p, err)
	}
}
