package tune

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func openTemp(t *testing.T) (*History, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "tuning.db")
	h, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, path
}

func TestHistoryRoundTrip(t *testing.T) {
	h, path := openTemp(t)
	if h.Path() != path {
		t.Errorf("Path = %s, want %s", h.Path(), path)
	}
	space, _ := Preset("mpiio")
	started := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	id, err := h.Begin(Session{App: "ior", Command: "mpirun -n 4 ior", Space: string(space.Format()), Strategy: "model(seed=1)", Started: started})
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.Begin(Session{App: "vpic"})
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := ParseConfig("cb_nodes=1 romio_cb_write=enable")
	c2, _ := ParseConfig(`cb_nodes=2 args="-b 4m"`)
	results := []Result{
		{Config: c1, Objective: 2.5, Wall: 1500 * time.Millisecond, Log: "/logs/1.darshan"},
		{Config: c2, Err: errors.New("exit status 1"), Wall: time.Second},
	}
	for i, r := range results {
		seq, err := h.Record(id, r)
		if err != nil || seq != i+1 {
			t.Fatalf("Record: %d, %v", seq, err)
		}
	}
	if _, err := h.Record(other, Result{Config: c1, Objective: 9}); err != nil {
		t.Fatal(err)
	}
	X, y := grid(0, 1)
	m, err := Fit(X, y, FitOptions{Names: []string{"a", "b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.RecordModel(id, m); err != nil {
		t.Fatal(err)
	}
	if err := h.Finish(id); err != nil {
		t.Fatal(err)
	}

	ss, err := h.Sessions("ior")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].ID != id || ss[0].Command != "mpirun -n 4 ior" || ss[0].Strategy != "model(seed=1)" ||
		!ss[0].Started.Equal(started) || ss[0].Finished.IsZero() {
		t.Errorf("sessions %+v", ss)
	}
	back, err := ParseSpace([]byte(ss[0].Space), "session space")
	if err != nil || back.Size() != space.Size() {
		t.Errorf("space of the session: %v", err)
	}
	all, err := h.Sessions("")
	if err != nil || len(all) != 2 || all[1].App != "vpic" || !all[1].Finished.IsZero() {
		t.Errorf("all sessions %+v, %v", all, err)
	}
	s, err := h.Session(other)
	if err != nil || s.App != "vpic" {
		t.Errorf("Session(%d) = %+v, %v", other, s, err)
	}

	trials, err := h.Trials(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 2 {
		t.Fatalf("%d trials, want 2", len(trials))
	}
	for i, tr := range trials {
		want := results[i]
		if tr.Session != id || tr.Seq != i+1 || tr.Recorded.IsZero() || tr.Config.String() != want.Config.String() ||
			tr.Objective != want.Objective || tr.Wall != want.Wall || tr.Log != want.Log || tr.OK() != want.OK() {
			t.Errorf("trial %d = %+v, want %+v", i+1, tr, want)
		}
	}
	if trials[1].Err.Error() != "exit status 1" {
		t.Errorf("error text %q", trials[1].Err)
	}
	ms, err := h.Models(id)
	if err != nil || len(ms) != 1 {
		t.Fatalf("models %v, %v", ms, err)
	}
	if diff := cmp.Diff(m.Terms(), ms[0].Terms()); diff != "" || ms[0].RelativeError() != m.RelativeError() {
		t.Errorf("model terms (-want +got):\n%s", diff)
	}
	meas, err := h.Measurements("ior")
	if err != nil || len(meas) != 1 || meas[0].Objective != 2.5 || !meas[0].Reused {
		t.Errorf("measurements %v, %v", meas, err)
	}

	if _, err := h.Record(999, results[0]); !errors.Is(err, ErrNoSession) {
		t.Errorf("Record to a missing session: %v", err)
	}
	if err := h.Finish(999); !errors.Is(err, ErrNoSession) {
		t.Errorf("Finish of a missing session: %v", err)
	}
	if _, err := h.Resume(999); !errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), path) {
		t.Errorf("Resume of a missing session: %v", err)
	}
	if _, err := h.Begin(Session{}); err == nil {
		t.Error("Begin without an application: no error")
	}

	// Reopening finds everything.
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h2, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	again, err := h2.Trials(id)
	if err != nil || len(again) != 2 {
		t.Errorf("after reopening: %d trials, %v", len(again), err)
	}
}

func TestHistoryResume(t *testing.T) {
	s := synthetic(t)
	h, _ := openTemp(t)
	id, err := h.Begin(Session{App: "synthetic", Strategy: "model"})
	if err != nil {
		t.Fatal(err)
	}
	// The reference: an uninterrupted search.
	want, err := ModelBased{Seed: 3}.Run(context.Background(), s, newCounter(nil), 0)
	if err != nil {
		t.Fatal(err)
	}

	// The first attempt is interrupted during its explore batch.
	ctx, cancel := context.WithCancel(context.Background())
	ran := map[string]int{}
	var mu sync.Mutex
	n := 0
	objective := func(ctx context.Context, c Config) Result {
		mu.Lock()
		defer mu.Unlock()
		ran[c.String()]++
		if n++; n == 20 {
			cancel()
		}
		return Result{Objective: formula(c)}
	}
	_, err = ModelBased{Seed: 3}.Run(ctx, s, Cached(Parallel(objective, 1), h, id), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first attempt: %v, want context.Canceled", err)
	}
	prev, err := h.Resume(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(prev) != 20 || !prev[0].Reused {
		t.Fatalf("%d trials recorded before the interruption, want 20 (reused %v)", len(prev), prev[0].Reused)
	}

	// The second attempt replays them from the history and runs the rest.
	got, err := ModelBased{Seed: 3}.Run(context.Background(), s, Cached(Parallel(objective, 2), h, id), 0)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range ran {
		if r > 1 {
			t.Errorf("%s ran %d times", k, r)
		}
	}
	if n != 41 {
		t.Errorf("%d runs in all, want 41", n)
	}
	if diff := cmp.Diff(trialKeys(want), trialKeys(got)); diff != "" {
		t.Errorf("resumed search (-uninterrupted +resumed):\n%s", diff)
	}
	reused := 0
	for _, r := range got.Trials {
		if r.Reused {
			reused++
		}
	}
	if reused != 20 {
		t.Errorf("%d trials reused, want 20", reused)
	}
	trials, err := h.Trials(id)
	if err != nil || len(trials) != 41 {
		t.Errorf("%d trials in the history, want 41 (%v)", len(trials), err)
	}
}

func TestHistoryConcurrentWriters(t *testing.T) {
	_, path := openTemp(t)
	const writers, each = 4, 15
	hs := make([]*History, writers)
	for i := range hs {
		h, err := OpenHistory(path)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		hs[i] = h
	}
	shared, err := hs[0].Begin(Session{App: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	own := make([]int64, writers)
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		wg.Go(func() {
			id, err := hs[w].Begin(Session{App: "own"})
			if err != nil {
				errs <- err
				return
			}
			own[w] = id
			for i := range each {
				c := Config{{"w", string(rune('a' + w))}, {"i", string(rune('a' + i))}}
				if _, err := hs[w].Record(shared, Result{Config: c, Objective: 1}); err != nil {
					errs <- err
				}
				if _, err := hs[w].Record(id, Result{Config: c, Objective: 1}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	trials, err := hs[0].Trials(shared)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for _, tr := range trials {
		seqs = append(seqs, tr.Seq)
	}
	want := make([]int, writers*each)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(seqs, want) {
		t.Errorf("shared session: sequence numbers %v, want 1..%d", seqs, writers*each)
	}
	for w, id := range own {
		trials, err := hs[w].Trials(id)
		if err != nil || len(trials) != each {
			t.Errorf("session of writer %d: %d trials, %v", w, len(trials), err)
		}
	}
	ss, err := hs[1].Sessions("own")
	if err != nil || len(ss) != writers {
		t.Errorf("%d sessions, want %d (%v)", len(ss), writers, err)
	}
}

func TestHistoryCorrupt(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.db")
	if err := os.WriteFile(text, []byte("this is not a database, just some text"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.db")
	if err := os.WriteFile(broken, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (x TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for path, want := range map[string]string{text: "not an SQLite database", broken: "", foreign: "not an iolens tuning history"} {
		h, err := OpenHistory(path)
		if err == nil {
			h.Close()
			t.Errorf("%s: no error", path)
			continue
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q, want one naming the file and saying %q", path, err, want)
		}
	}
	if data, _ := os.ReadFile(text); !strings.HasPrefix(string(data), "this is not") {
		t.Error("the text file was overwritten")
	}
}

func TestDefaultHistoryPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	if p, err := DefaultHistoryPath(); err != nil || p != "/data/iolens/tuning.db" {
		t.Errorf("with XDG_DATA_HOME: %s, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/me")
	if p, err := DefaultHistoryPath(); err != nil || p != "/home/me/.local/share/iolens/tuning.db" {
		t.Errorf("without XDG_DATA_HOME: %s, %v", p, err)
	}
}
