package query

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/dataset"
	"github.com/iolens/iolens/internal/synth"
)

// run is one job of the synthetic facility.
type run struct {
	uid    int64
	exe    string
	day    int     // days after 2026-10-01
	writes int64   // POSIX writes of size bytes to one shared file
	size   int64   //
	io     float64 // seconds of write time
}

// facility is a small synthetic facility: ana runs vpic seven times, the
// last one ten times slower; ben runs wrf.exe (small writes) three times and
// lmp twice.
var facility = func() []run {
	var out []run
	for i := range 7 {
		io := 2.0
		if i == 6 {
			io = 20
		}
		out = append(out, run{1001, "/apps/vpic/bin/vpic -n 1", i, 100, 2 << 20, io})
	}
	for i := range 3 {
		out = append(out, run{1002, "/home/ben/wrf/wrf.exe", 10 + i, 10000, 1000, 5})
	}
	for i := range 2 {
		out = append(out, run{1002, "python3 /apps/lammps/lmp.py -in in.lj", 20 + i, 50, 4 << 20, 1})
	}
	return out
}()

var users = map[int64]string{1001: "ana", 1002: "ben"}

// openFacility writes, ingests and opens the synthetic facility.
func openFacility(t *testing.T) *DB {
	t.Helper()
	logs := t.TempDir()
	var paths []string
	for i, r := range facility {
		start := time.Date(2026, 10, 1+r.day, 12, 0, 0, 0, time.UTC).Unix()
		l := synth.Log{
			Job:     darshan.Job{UID: r.uid, JobID: int64(100 + i), StartTime: start, EndTime: start + 600, NProcs: 16, Metadata: "lib_ver=3.5.0\n"},
			Exe:     r.exe,
			Records: []synth.Record{synth.Writes(fmt.Sprintf("/scratch/%s/out.%d", users[r.uid], i), r.writes, r.size, r.io)},
		}
		p := filepath.Join(logs, fmt.Sprintf("job%02d.darshan", i))
		if err := l.Write(p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	dir := t.TempDir()
	st, err := dataset.Ingest(context.Background(), dir, paths, dataset.IngestOptions{User: func(uid int64) string { return users[uid] }})
	if err != nil || st.Ingested != len(facility) {
		t.Fatalf("ingest: %+v, %v", st, err)
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOverview(t *testing.T) {
	db := openFacility(t)
	o, err := db.Overview(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	const written = 7*100*(2<<20) + 3*10000*1000 + 2*50*(4<<20)
	if o.Jobs != 12 || o.Users != 2 || o.Apps != 3 || o.BytesWritten != written || o.BytesRead != 0 || o.IOTime != 49 || o.Errors != 0 {
		t.Errorf("overview %+v", o)
	}
	if len(o.Days) != 12 || o.Days[0].Date != time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC) || o.Days[0].Jobs != 1 || o.Days[11].IOTime != 1 {
		t.Errorf("days %+v", o.Days)
	}
	if o.First != time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC) || o.Last != time.Date(2026, 10, 22, 12, 0, 0, 0, time.UTC) {
		t.Errorf("first %v, last %v", o.First, o.Last)
	}
	if o.Interfaces[0] != (Interface{"POSIX", 49}) {
		t.Errorf("interfaces %+v", o.Interfaces)
	}
	i := slices.IndexFunc(o.Insights, func(c InsightCount) bool { return c.Code == "P06" })
	if i < 0 || o.Insights[i].Jobs != 3 || o.Insights[i].Users != 1 || o.Insights[i].Apps != 1 || o.Insights[i].Level != "HIGH" || len(o.Insights[i].Examples) != 3 {
		t.Errorf("insights %+v", o.Insights)
	}
	// ben's view.
	ben := int64(1002)
	o, err = db.Overview(context.Background(), Filter{UID: &ben})
	if err != nil || o.Jobs != 5 || o.Users != 1 || o.IOTime != 17 {
		t.Errorf("ben's overview %+v, %v", o, err)
	}
}

func TestTop(t *testing.T) {
	db := openFacility(t)
	ctx := context.Background()
	tb, err := db.Top(ctx, "io-time", "user", Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tb.Columns, tb.Rows); got != "[uid user jobs io_time bytes small_writes meta_time] [[1001 ana 7 32 1468006400 0 0] [1002 ben 5 17 449430400 30000 0]]" {
		t.Errorf("top users by I/O time: %s", got)
	}
	tb, err = db.Top(ctx, "small-writes", "app", Filter{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tb.Rows); got != "[[wrf.exe 3 15 30000000 30000 0]]" {
		t.Errorf("top application by small writes: %s", got)
	}
	tb, err = db.Top(ctx, "io-time", "job", Filter{App: "vpic"}, 1)
	if err != nil || len(tb.Rows) != 1 || tb.Rows[0][2] != "vpic" || tb.Rows[0][6] != 20.0 {
		t.Errorf("top vpic job: %v, %v", tb, err)
	}
	if _, err := db.Top(ctx, "speed", "user", Filter{}, 1); err == nil || !strings.Contains(err.Error(), "unknown metric") {
		t.Errorf("unknown metric: %v", err)
	}
}

func TestJobsListFiltersSortsAndPages(t *testing.T) {
	db := openFacility(t)
	ctx := context.Background()
	ids := func(jobs []Job) string {
		var s []string
		for _, j := range jobs {
			s = append(s, fmt.Sprint(j.JobID))
		}
		return strings.Join(s, " ")
	}
	jobs, total, err := db.Jobs(ctx, JobsQuery{})
	if err != nil || total != 12 || ids(jobs) != "111 110 109 108 107 106 105 104 103 102 101 100" {
		t.Errorf("all jobs: %d, %s, %v", total, ids(jobs), err)
	}
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{User: "ben"}, Sort: "io_time", Limit: 2, Offset: 1})
	if err != nil || total != 5 || ids(jobs) != "108 107" {
		t.Errorf("ben's jobs by I/O time, second page of 2... %d, %s, %v", total, ids(jobs), err)
	}
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{Code: "P06"}, Asc: true})
	if err != nil || total != 3 || ids(jobs) != "107 108 109" {
		t.Errorf("jobs with P06: %d, %s, %v", total, ids(jobs), err)
	}
	since := time.Date(2026, 10, 11, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 10, 21, 0, 0, 0, 0, time.UTC)
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{Since: since, Until: until}, Asc: true})
	if err != nil || total != 3 || ids(jobs) != "107 108 109" {
		t.Errorf("jobs of 11-20 October: %d, %s, %v", total, ids(jobs), err)
	}
	jobs, _, err = db.Jobs(ctx, JobsQuery{Filter: Filter{MinBytes: 200 << 20}, Sort: "bytes", Asc: true})
	if err != nil || ids(jobs) != "100 101 102 103 104 105 106 110 111" {
		t.Errorf("jobs of at least 200 MiB by bytes: %s, %v", ids(jobs), err)
	}
	if _, _, err := db.Jobs(ctx, JobsQuery{Sort: "1; DROP TABLE jobs"}); err == nil {
		t.Error("an unknown sort column was accepted")
	}
	j, err := db.Job(ctx, jobs[0].ID)
	if err != nil || j.JobID != 100 || j.User != "ana" || j.App != "vpic" || j.Date != time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC) ||
		j.BytesWritten != 100*(2<<20) || fmt.Sprint(j.Modules) != "[POSIX]" {
		t.Errorf("job %+v, %v", j, err)
	}
	files, err := db.Files(ctx, j.ID, 0)
	if err != nil || len(files) != 1 || files[0].Name != "/scratch/ana/out.0" || files[0].AccessSize != 2<<20 || files[0].Sequential != 1 {
		t.Errorf("files %+v, %v", files, err)
	}
	if _, err := db.Job(ctx, "0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
}

func TestAppRegression(t *testing.T) {
	db := openFacility(t)
	h, err := db.App(context.Background(), "vpic", Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 7 || h.Regressions != 1 {
		t.Fatalf("vpic: %d runs, %d regressions", len(h.Runs), h.Regressions)
	}
	last := h.Runs[6]
	if !last.Regression || last.Usual != 2 || last.IOTime != 20 {
		t.Errorf("last run %+v", last)
	}
	for _, r := range h.Runs[:6] {
		if r.Regression {
			t.Errorf("run %+v flagged", r)
		}
	}
	if h, err := db.App(context.Background(), "lmp.py", Filter{}); err != nil || len(h.Runs) != 2 {
		t.Errorf("lmp.py (a python script): %+v, %v", h, err)
	}
	if _, err := db.App(context.Background(), "nothing", Filter{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown application: %v", err)
	}
}

func TestEmptyDataset(t *testing.T) {
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o, err := db.Overview(context.Background(), Filter{})
	if err != nil || o.Jobs != 0 || len(o.Days) != 0 {
		t.Errorf("overview of an empty dataset: %+v, %v", o, err)
	}
	tb, err := db.Query(context.Background(), "SELECT count(*) FROM files JOIN jobs ON files.job = jobs.id")
	if err != nil || tb.Rows[0][0] != int64(0) {
		t.Errorf("query of an empty dataset: %v, %v", tb, err)
	}
}
