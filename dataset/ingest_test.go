package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/iolens/iolens/analysis"
	"github.com/iolens/iolens/darshan"
	"github.com/iolens/iolens/internal/fixture"
)

// sampleRoot returns the directory of the sample logs.
func sampleRoot(t *testing.T) string {
	return filepath.Join(fixture.Dir(t), "darshan-logs")
}

// readTable returns every row of a table of the dataset in dir.
func readTable[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	files, err := DataFiles(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, f := range files {
		rows, err := parquet.ReadFile[T](f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, rows...)
	}
	return out
}

var fixedNow = func() time.Time { return time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC) }

func TestIngestSamples(t *testing.T) {
	paths, err := FindLogs([]string{sampleRoot(t)}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 84 {
		t.Fatalf("%d sample logs, want 84", len(paths))
	}
	dir := t.TempDir()
	st, err := Ingest(context.Background(), dir, paths, IngestOptions{Workers: 2, Now: fixedNow, BatchLogs: 30})
	if err != nil {
		t.Fatal(err)
	}
	jobs := readTable[Job](t, dir, TableJobs)
	errs := readTable[Error](t, dir, TableErrors)
	if st.Logs != 84 || st.Ingested+st.Failed != 84 || st.Skipped != 0 || len(jobs) != st.Ingested || len(errs) != st.Failed+st.Partial {
		t.Fatalf("stats %+v: %d job rows, %d error rows", st, len(jobs), len(errs))
	}
	if st.Batches != 3 {
		t.Errorf("%d batches of at most 30 logs for 84 logs, want 3", st.Batches)
	}
	files := readTable[File](t, dir, TableFiles)
	insights := readTable[Insight](t, dir, TableInsights)
	ranks := readTable[Rank](t, dir, TableRanks)
	byJob := func(id string) (nf, ni, nr int) {
		for _, f := range files {
			if f.Job == id {
				nf++
			}
		}
		for _, i := range insights {
			if i.Job == id {
				ni++
			}
		}
		for _, r := range ranks {
			if r.Job == id {
				nr++
			}
		}
		return
	}
	// Every job equals what the analysis of its log says.
	for _, j := range jobs {
		l, err := darshan.OpenFile(j.Log)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := analysis.Analyze(l, j.Log, analysis.DefaultConfig())
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		sum, size, err := fileChecksum(j.Log)
		if err != nil {
			t.Fatal(err)
		}
		want := ExtractRows(Source{Path: j.Log, Checksum: sum, Size: size, User: j.User, Ingested: fixedNow()}, l, rep)
		if fmt.Sprint(j) != fmt.Sprint(want.Job) {
			t.Errorf("%s:\n got %+v\nwant %+v", j.Log, j, want.Job)
		}
		if j.JobID != rep.Job.JobID || j.NProcs != rep.Job.NProcs || j.Exe != rep.Job.Exe || j.Files != int64(len(rep.Files)) {
			t.Errorf("%s: job %d nprocs %d files %d", j.Log, j.JobID, j.NProcs, j.Files)
		}
		// The job's insight summary is that of its rows of insights.
		if codes, levels := summarise(insightsOf(insights, j.ID)); fmt.Sprint(j.InsightCodes, j.InsightLevels) != fmt.Sprint(codes, levels) {
			t.Errorf("%s: insight summary %v %v, want %v %v", j.Log, j.InsightCodes, j.InsightLevels, codes, levels)
		}
		nf, ni, nr := byJob(j.ID)
		if nf != len(rep.Files) || ni != len(rep.Insights) || nr != len(rep.Ranks) {
			t.Errorf("%s: %d files, %d insights, %d ranks; want %d, %d, %d", j.Log, nf, ni, nr, len(rep.Files), len(rep.Insights), len(rep.Ranks))
		}
		if want := j.Start.UTC().Format("month=2006-01"); !hasFile(t, filepath.Join(dir, TableJobs, want)) {
			t.Errorf("%s: no jobs partition %s", j.Log, want)
		}
	}
	// One log checked against its known counters.
	for _, j := range jobs {
		if !strings.HasSuffix(j.Log, "imbalanced-io.darshan") {
			continue
		}
		// The sums of POSIX and STDIO totals darshan-parser prints.
		if j.NProcs != 496 || j.BytesRead != 53791619826+1858 || j.BytesWritten != 52938480076+1142414 ||
			j.Reads != 67861+81 || j.Writes != 50832+37074 || j.Files != 1030 || j.Format != "3.21" ||
			fmt.Sprint(j.Partial) != "[POSIX]" || j.Month() != "2021-04" {
			t.Errorf("imbalanced-io: %+v", j)
		}
		// The insights `iolens report` finds in it.
		if got := fmt.Sprint(j.InsightCodes, j.InsightLevels); got != "[L02 M04 M05 M06 M07 P02 P05 P06 P07 P08 P09 P12 P14 P15 P16 P18 P19 X01] "+
			"[HIGH OK OK WARN WARN INFO HIGH HIGH HIGH HIGH WARN OK OK HIGH HIGH HIGH HIGH WARN]" {
			t.Errorf("imbalanced-io: insight summary %s", got)
		}
	}
}

func hasFile(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

func TestIngestTwiceAddsNothing(t *testing.T) {
	root := filepath.Join(sampleRoot(t), "hdf5_diagonal_write_only")
	paths, err := FindLogs([]string{root}, time.Time{})
	if err != nil || len(paths) == 0 {
		t.Fatal(paths, err)
	}
	dir := t.TempDir()
	first, err := Ingest(context.Background(), dir, paths, IngestOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	before := listAll(t, dir)
	// The same logs again, one of them twice, and a copy under another name.
	cp := filepath.Join(t.TempDir(), "copy.darshan")
	data, _ := os.ReadFile(paths[0])
	os.WriteFile(cp, data, 0o600)
	again := append(slices.Clone(paths), paths[0], cp)
	st, err := Ingest(context.Background(), dir, again, IngestOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != len(again) || st.Ingested != 0 || st.Batches != 0 {
		t.Errorf("second ingest %+v; want all %d skipped", st, len(again))
	}
	if after := listAll(t, dir); !slices.Equal(before, after) {
		t.Errorf("files changed:\n%v\n%v", before, after)
	}
	if first.Ingested != len(paths) {
		t.Errorf("first ingest %+v", first)
	}
}

func listAll(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	return out
}

func TestIngestRecordsCorruptLogs(t *testing.T) {
	good := filepath.Join(sampleRoot(t), "imbalanced_io", "imbalanced-io.darshan")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Skip("imbalanced-io sample missing")
	}
	in := t.TempDir()
	trunc := filepath.Join(in, "truncated.darshan")
	garbage := filepath.Join(in, "garbage.darshan")
	os.WriteFile(trunc, data[:len(data)/2], 0o600)
	os.WriteFile(garbage, []byte("not a log at all"), 0o600)
	missing := filepath.Join(in, "missing.darshan")
	dir := t.TempDir()
	st, err := Ingest(context.Background(), dir, []string{garbage, trunc, good, missing}, IngestOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	errs := readTable[Error](t, dir, TableErrors)
	jobs := readTable[Job](t, dir, TableJobs)
	if len(jobs) != st.Ingested || len(errs) != st.Failed+st.Partial {
		t.Fatalf("stats %+v, %d jobs, %d errors", st, len(jobs), len(errs))
	}
	reasons := map[string]string{}
	for _, e := range errs {
		reasons[filepath.Base(e.Log)] = e.Error
		if e.Ingested != fixedNow() {
			t.Errorf("%s: ingested %v", e.Log, e.Ingested)
		}
	}
	for name, want := range map[string]string{"garbage.darshan": "not a Darshan log", "missing.darshan": "no such file", "truncated.darshan": "truncated.darshan"} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: reason %q, want it to mention %q", name, reasons[name], want)
		}
	}
	if !slices.ContainsFunc(jobs, func(j Job) bool { return j.Log == good }) {
		t.Errorf("the good log was not ingested: %+v", st)
	}
	// Corrupt logs are skipped the next time (same checksum), a missing one
	// is tried again.
	st, err = Ingest(context.Background(), dir, []string{garbage, trunc, good, missing}, IngestOptions{Now: fixedNow})
	if err != nil || st.Skipped != 3 || st.Failed != 1 {
		t.Errorf("second ingest %+v, %v; want 3 skipped, the missing log failed", st, err)
	}
}

func TestConcurrentIngesters(t *testing.T) {
	paths, err := FindLogs([]string{sampleRoot(t)}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	stats := make([]IngestStats, 3)
	for k := range 3 {
		wg.Go(func() {
			var shard []string
			for i := k; i < len(paths); i += 3 {
				shard = append(shard, paths[i])
			}
			stats[k], errs[k] = Ingest(context.Background(), dir, shard, IngestOptions{Workers: 1, BatchLogs: 5, Now: fixedNow})
		})
	}
	wg.Wait()
	ingested := 0
	for k := range 3 {
		if errs[k] != nil {
			t.Fatal(errs[k])
		}
		ingested += stats[k].Ingested
	}
	jobs := readTable[Job](t, dir, TableJobs)
	ids := map[string]bool{}
	for _, j := range jobs {
		if ids[j.ID] {
			t.Errorf("job %s twice", j.ID)
		}
		ids[j.ID] = true
	}
	if len(jobs) != ingested || ingested < 80 {
		t.Errorf("%d jobs in the dataset, %d ingested", len(jobs), ingested)
	}
}

func TestAppName(t *testing.T) {
	for exe, want := range map[string]string{
		"/apps/lammps/bin/lmp -in in.lj":           "lmp",
		"python3 -u /home/u/analysis/run.py --x 1": "run.py",
		"/usr/bin/python3.11 script.py":            "script.py",
		"./a.out":                                  "a.out",
		"":                                         "",
		"bash":                                     "bash",
	} {
		if got := AppName(exe); got != want {
			t.Errorf("AppName(%q) = %q, want %q", exe, got, want)
		}
	}
}

// insightsOf returns the rows of job in insights.
func insightsOf(insights []Insight, job string) []Insight {
	var out []Insight
	for _, in := range insights {
		if in.Job == job {
			out = append(out, in)
		}
	}
	return out
}
