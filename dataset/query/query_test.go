package query

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	dir := t.TempDir()
	ingest(t, dir, facilityLogs(t))
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ingest adds logs to the dataset in dir.
func ingest(t *testing.T, dir string, paths []string) {
	t.Helper()
	st, err := dataset.Ingest(context.Background(), dir, paths, dataset.IngestOptions{User: func(uid int64) string { return users[uid] }})
	if err != nil || st.Ingested != len(paths) {
		t.Fatalf("ingest: %+v, %v", st, err)
	}
}

// facilityLogs writes the logs of the synthetic facility, in job order.
func facilityLogs(t *testing.T) []string {
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
	return paths
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
		t.Fatalf("insights %+v", o.Insights)
	}
	// The message is that of the first example's P06.
	ins, err := db.JobInsights(context.Background(), o.Insights[i].Examples[0])
	k := slices.IndexFunc(ins, func(in dataset.Insight) bool { return in.Code == "P06" })
	if err != nil || k < 0 || o.Insights[i].Message == "" || o.Insights[i].Message != ins[k].Message {
		t.Errorf("P06 message %q, the example's insights %+v, %v", o.Insights[i].Message, ins, err)
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

func TestNames(t *testing.T) {
	db := openFacility(t)
	ctx := context.Background()
	users, apps, err := db.Names(ctx, Filter{}, 0)
	if err != nil || fmt.Sprint(users, apps) != "[ana ben] [lmp.py vpic wrf.exe]" {
		t.Errorf("names %v %v, %v", users, apps, err)
	}
	// The names of the most jobs: ana (7 jobs), vpic (7).
	users, apps, err = db.Names(ctx, Filter{}, 1)
	if err != nil || fmt.Sprint(users, apps) != "[ana] [vpic]" {
		t.Errorf("first names %v %v, %v", users, apps, err)
	}
	ben := int64(1002)
	users, apps, err = db.Names(ctx, Filter{UID: &ben}, 0)
	if err != nil || fmt.Sprint(users, apps) != "[ben] [lmp.py wrf.exe]" {
		t.Errorf("ben's names %v %v, %v", users, apps, err)
	}
}

func TestJobsListFiltersSortsAndPages(t *testing.T) {
	db := openFacility(t)
	ctx := context.Background()
	jobs, total, err := db.Jobs(ctx, JobsQuery{})
	if err != nil || total != 12 || jobIDs(jobs) != "111 110 109 108 107 106 105 104 103 102 101 100" {
		t.Errorf("all jobs: %d, %s, %v", total, jobIDs(jobs), err)
	}
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{User: "ben"}, Sort: "io_time", Limit: 2, Offset: 1})
	if err != nil || total != 5 || jobIDs(jobs) != "108 107" {
		t.Errorf("ben's jobs by I/O time, second page of 2... %d, %s, %v", total, jobIDs(jobs), err)
	}
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{Code: "P06"}, Asc: true})
	if err != nil || total != 3 || jobIDs(jobs) != "107 108 109" {
		t.Errorf("jobs with P06: %d, %s, %v", total, jobIDs(jobs), err)
	}
	since := time.Date(2026, 10, 11, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 10, 21, 0, 0, 0, 0, time.UTC)
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{Since: since, Until: until}, Asc: true})
	if err != nil || total != 3 || jobIDs(jobs) != "107 108 109" {
		t.Errorf("jobs of 11-20 October: %d, %s, %v", total, jobIDs(jobs), err)
	}
	jobs, _, err = db.Jobs(ctx, JobsQuery{Filter: Filter{MinBytes: 200 << 20}, Sort: "bytes", Asc: true})
	if err != nil || jobIDs(jobs) != "100 101 102 103 104 105 106 110 111" {
		t.Errorf("jobs of at least 200 MiB by bytes: %s, %v", jobIDs(jobs), err)
	}
	// A listed job has the columns of a list, not the others.
	l := jobs[0]
	if l.JobID != 100 || l.User != "ana" || l.UID != 1001 || l.App != "vpic" || l.Exe != "/apps/vpic/bin/vpic -n 1" || l.NProcs != 16 ||
		l.BytesWritten != 100*(2<<20) || l.IOTime != 2 || l.RunTime != 600 || l.Date != time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC) ||
		l.Log != "" || l.Checksum != "" || l.Modules != nil {
		t.Errorf("listed job %+v", l)
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

// Filters on the start time read only the months they span, and select
// exactly by the start time.
func TestFilterMonths(t *testing.T) {
	db := openFacility(t)
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2026, 10, d, 0, 0, 0, 0, time.UTC) }
	november := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	jobs, total, err := db.Jobs(ctx, JobsQuery{Filter: Filter{Since: day(22), Until: november}})
	if err != nil || total != 1 || jobIDs(jobs) != "111" {
		t.Errorf("jobs of 22-31 October: %d, %s, %v", total, jobIDs(jobs), err)
	}
	if jobs, total, err := db.Jobs(ctx, JobsQuery{Filter: Filter{Since: november}}); err != nil || total != 0 || len(jobs) != 0 {
		t.Errorf("jobs of November: %d, %s, %v", total, jobIDs(jobs), err)
	}
	if jobs, total, err := db.Jobs(ctx, JobsQuery{Filter: Filter{Until: day(1).Add(12 * time.Hour)}}); err != nil || total != 0 || len(jobs) != 0 {
		t.Errorf("jobs before the first: %d, %s, %v", total, jobIDs(jobs), err)
	}
	jobs, total, err = db.Jobs(ctx, JobsQuery{Filter: Filter{Code: "P06", Since: day(13)}})
	if err != nil || total != 1 || jobIDs(jobs) != "109" {
		t.Errorf("jobs with P06 since 13 October: %d, %s, %v", total, jobIDs(jobs), err)
	}
	counts, err := db.Insights(ctx, Filter{Since: day(13)}, nil, 0)
	i := slices.IndexFunc(counts, func(c InsightCount) bool { return c.Code == "P06" })
	if err != nil || i < 0 || counts[i].Jobs != 1 || counts[i].Message == "" {
		t.Errorf("insights since 13 October: %+v, %v", counts, err)
	}
	all, err := db.Codes(ctx, Filter{})
	if err != nil || !slices.Contains(all, "P06") || !slices.IsSorted(all) {
		t.Errorf("codes: %v, %v", all, err)
	}
	if ana, err := db.Codes(ctx, Filter{User: "ana", Since: day(1)}); err != nil || len(ana) == 0 || slices.Contains(ana, "P06") {
		t.Errorf("codes of ana's jobs: %v, %v", ana, err)
	}
}

// Batches ingested after Open are seen, in the tables that had files at
// Open and in those that had none.
func TestBatchesAddedSinceOpen(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	paths := facilityLogs(t)
	overview := func() *Overview {
		t.Helper()
		o, err := db.Overview(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := overview(); o.Jobs != 0 {
		t.Fatalf("%d jobs in an empty dataset", o.Jobs)
	}
	ingest(t, dir, paths[:7])
	if o := overview(); o.Jobs != 7 || o.Errors != 0 {
		t.Errorf("after the first batch: %d jobs, %d errors", o.Jobs, o.Errors)
	}
	bad := filepath.Join(t.TempDir(), "bad.darshan")
	if err := os.WriteFile(bad, []byte("not a Darshan log"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.Ingest(ctx, dir, append(paths[7:], bad), dataset.IngestOptions{User: func(uid int64) string { return users[uid] }}); err != nil {
		t.Fatal(err)
	}
	if o := overview(); o.Jobs != 12 || o.Errors != 1 {
		t.Errorf("after the second batch: %d jobs, %d errors", o.Jobs, o.Errors)
	}
	jobs, _, err := db.Jobs(ctx, JobsQuery{Filter: Filter{App: "lmp.py"}})
	if err != nil || len(jobs) != 2 {
		t.Fatalf("lmp.py jobs: %+v, %v", jobs, err)
	}
	if files, err := db.Files(ctx, jobs[0].ID, 0); err != nil || len(files) != 1 {
		t.Errorf("files of a job of the second batch: %+v, %v", files, err)
	}
	for name, f := range map[string]func(string) (int, error){
		"files":    func(id string) (int, error) { r, err := db.Files(ctx, id, 0); return len(r), err },
		"insights": func(id string) (int, error) { r, err := db.JobInsights(ctx, id); return len(r), err },
		"ranks":    func(id string) (int, error) { r, err := db.Ranks(ctx, id); return len(r), err },
	} {
		if n, err := f("0000000000000000"); n != 0 || err != nil {
			t.Errorf("%s of an unknown job: %d, %v", name, n, err)
		}
	}
}

// A dataset in the daily partitions of earlier versions is refused until
// compacted into months.
func TestDailyLayoutRefused(t *testing.T) {
	dir := t.TempDir()
	ingest(t, dir, facilityLogs(t)[:2])
	month := filepath.Join(dir, dataset.TableJobs, "month=2026-10")
	if err := os.Rename(month, filepath.Join(dir, dataset.TableJobs, "date=2026-10-01")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "store compact") {
		t.Fatalf("opening a daily dataset: %v", err)
	}
	later := func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := dataset.Compact(dir, dataset.CompactOptions{Now: later}); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if o, err := db.Overview(context.Background(), Filter{}); err != nil || o.Jobs != 2 {
		t.Errorf("after compaction: %+v, %v", o, err)
	}
}

// Jobs files of an earlier version, without the insight summary, are
// refused until compaction has added it.
func TestJobsWithoutSummaryRefused(t *testing.T) {
	dir := t.TempDir()
	ingest(t, dir, facilityLogs(t)[7:10])
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := db.Insights(context.Background(), Filter{}, nil, 0)
	if err != nil || len(want) == 0 {
		t.Fatalf("insights: %+v, %v", want, err)
	}
	files, err := dataset.DataFiles(dir, dataset.TableJobs)
	if err != nil || len(files) != 1 {
		t.Fatalf("jobs files %v, %v", files, err)
	}
	// The file as an earlier version wrote it.
	old := filepath.Join(t.TempDir(), "old.parquet")
	if _, err := db.Query(context.Background(), fmt.Sprintf("COPY (SELECT * EXCLUDE (insight_codes, insight_levels, month, date) FROM jobs) TO %s (FORMAT parquet)", literal(old))); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Rename(old, files[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "3 jobs written by an earlier version") || !strings.Contains(err.Error(), "store compact") {
		t.Fatalf("opening a dataset of jobs without insight summary: %v", err)
	}
	later := func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := dataset.Compact(dir, dataset.CompactOptions{Now: later}); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Insights(context.Background(), Filter{}, nil, 0)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after compaction: %+v, %v; want %+v", got, err, want)
	}
}

// jobIDs lists the batch-system job ids of jobs, in order.
func jobIDs(jobs []Job) string {
	var s []string
	for _, j := range jobs {
		s = append(s, fmt.Sprint(j.JobID))
	}
	return strings.Join(s, " ")
}
