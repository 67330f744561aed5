package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o750)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o640)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCompactMergesAndRemovesDuplicates(t *testing.T) {
	paths, err := FindLogs([]string{sampleRoot(t)}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	earlier := func() time.Time { return time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC) }
	dir, other := t.TempDir(), t.TempDir()
	st, err := Ingest(context.Background(), dir, paths, IngestOptions{BatchLogs: 20, Now: earlier})
	if err != nil {
		t.Fatal(err)
	}
	// Another ingester took the first 10 logs at the same time: their
	// jobs are in the dataset twice.
	if _, err := Ingest(context.Background(), other, paths[:10], IngestOptions{Now: earlier}); err != nil {
		t.Fatal(err)
	}
	copyTree(t, other, dir)
	before := map[string]int{}
	for _, table := range Tables() {
		files, _ := DataFiles(dir, table)
		before[table] = len(files)
	}
	jobs := readTable[Job](t, dir, TableJobs)
	files := readTable[File](t, dir, TableFiles)
	insights := readTable[Insight](t, dir, TableInsights)
	dups := len(jobs) - st.Ingested
	if dups <= 0 {
		t.Fatalf("%d jobs rows for %d logs: no duplicates to remove", len(jobs), st.Ingested)
	}

	// A batch of now is too young to compact.
	young := filepath.Join(dir, TableJobs, "month=2030-01")
	os.MkdirAll(young, 0o750)
	fresh := NewBatchName(fixedNow()) + ".parquet"
	if err := writeParquet(filepath.Join(young, fresh), TableJobs, []Job{{ID: "young"}}); err != nil {
		t.Fatal(err)
	}

	cs, err := Compact(dir, CompactOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Duplicates != dups {
		t.Errorf("%d duplicates removed, want %d", cs.Duplicates, dups)
	}
	after := readTable[Job](t, dir, TableJobs)
	seen := map[string]bool{}
	for _, j := range after {
		if seen[j.ID] {
			t.Errorf("job %s twice after compaction", j.ID)
		}
		seen[j.ID] = true
	}
	if len(after) != st.Ingested+1 { // the young job too
		t.Errorf("%d jobs after compaction, want %d", len(after), st.Ingested+1)
	}
	// The files and insights of the duplicated jobs are kept once.
	unique := func(n int, job func(int) string) int {
		per := map[string]int{}
		for i := range n {
			per[job(i)]++
		}
		total := 0
		for id, c := range per {
			if c%2 == 0 && isDup(jobs, id) {
				c /= 2
			}
			total += c
		}
		return total
	}
	if got, want := len(readTable[File](t, dir, TableFiles)), unique(len(files), func(i int) string { return files[i].Job }); got != want {
		t.Errorf("%d files rows after compaction, want %d", got, want)
	}
	if got, want := len(readTable[Insight](t, dir, TableInsights)), unique(len(insights), func(i int) string { return insights[i].Job }); got != want {
		t.Errorf("%d insights rows after compaction, want %d", got, want)
	}
	// One file per table and partition, no temporary file left, and the
	// young batch untouched.
	for _, table := range Tables() {
		files, _ := DataFiles(dir, table)
		parts := map[string]int{}
		for _, f := range files {
			parts[filepath.Dir(f)]++
		}
		for p, n := range parts {
			if n != 1 && !strings.Contains(p, "month=2030-01") {
				t.Errorf("%s: %d files after compaction", p, n)
			}
		}
		if table != TableErrors && len(files) >= before[table] {
			t.Errorf("table %s: %d files, was %d", table, len(files), before[table])
		}
	}
	for _, f := range listAll(t, dir) {
		if strings.HasSuffix(f, ".tmp") {
			t.Errorf("temporary file %s left", f)
		}
	}
	if _, err := os.Stat(filepath.Join(young, fresh)); err != nil {
		t.Errorf("the young batch was compacted: %v", err)
	}
	// Compacting again changes nothing.
	if cs, err := Compact(dir, CompactOptions{Now: fixedNow}); err != nil || cs.Partitions != 0 {
		t.Errorf("second compaction %+v, %v", cs, err)
	}
}

// isDup reports whether job id has two rows in jobs.
func isDup(jobs []Job, id string) bool {
	n := 0
	for _, j := range jobs {
		if j.ID == id {
			n++
		}
	}
	return n > 1
}

func TestCompactMovesDailyPartitions(t *testing.T) {
	paths, err := FindLogs([]string{sampleRoot(t)}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	earlier := func() time.Time { return time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC) }
	dir := t.TempDir()
	st, err := Ingest(context.Background(), dir, paths, IngestOptions{BatchLogs: 20, Now: earlier})
	if err != nil {
		t.Fatal(err)
	}
	// The layout of an earlier version: each batch of a month in a daily
	// partition of that month (the n-th batch on day n).
	batches := map[string]int{}
	moved := 0
	for _, table := range Tables() {
		files, _ := DataFiles(dir, table)
		for _, f := range files {
			m, _, ok := partitionOf(filepath.Base(filepath.Dir(f)))
			if !ok {
				t.Fatalf("%s: not in a month partition", f)
			}
			if _, ok := batches[filepath.Base(f)]; !ok {
				batches[filepath.Base(f)] = len(batches) + 1
			}
			day := filepath.Join(dir, table, fmt.Sprintf("date=%s-%02d", m, batches[filepath.Base(f)]))
			os.MkdirAll(day, 0o750)
			if err := os.Rename(f, filepath.Join(day, filepath.Base(f))); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Dir(f))
			moved++
		}
	}
	before := len(readTable[File](t, dir, TableFiles))

	cs, err := Compact(dir, CompactOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if cs.FilesIn != moved || cs.Duplicates != 0 {
		t.Errorf("compaction %+v, want %d files in", cs, moved)
	}
	for _, f := range listAll(t, dir) {
		if strings.Contains(f, "date=") {
			t.Errorf("%s left in a daily partition", f)
		}
	}
	jobs := readTable[Job](t, dir, TableJobs)
	if len(jobs) != st.Ingested {
		t.Errorf("%d jobs after compaction, want %d", len(jobs), st.Ingested)
	}
	for _, j := range jobs {
		if !hasFile(t, filepath.Join(dir, TableJobs, "month="+j.Month())) {
			t.Errorf("job %s: no partition month=%s", j.ID, j.Month())
		}
	}
	if got := len(readTable[File](t, dir, TableFiles)); got != before {
		t.Errorf("%d files rows after compaction, want %d", got, before)
	}
	for _, table := range Tables() {
		entries, _ := os.ReadDir(filepath.Join(dir, table))
		for _, e := range entries {
			if _, daily, ok := partitionOf(e.Name()); !ok || daily {
				t.Errorf("table %s: directory %s", table, e.Name())
			}
		}
	}
}

// Jobs files of an earlier version, without the insight summary, are
// merged and their jobs summarised from the insights table.
func TestCompactSummarisesEarlierJobs(t *testing.T) {
	paths, err := FindLogs([]string{sampleRoot(t)}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	earlier := func() time.Time { return time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC) }
	dir := t.TempDir()
	if _, err := Ingest(context.Background(), dir, paths, IngestOptions{Now: earlier}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, j := range readTable[Job](t, dir, TableJobs) {
		want[j.ID] = fmt.Sprint(j.InsightCodes, j.InsightLevels)
	}
	// Rewrite every jobs file (one per month) without the two columns.
	var fields []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Job]()) {
		if f.Name != "InsightCodes" && f.Name != "InsightLevels" {
			fields = append(fields, f)
		}
	}
	legacy := reflect.StructOf(fields)
	files, _ := DataFiles(dir, TableJobs)
	for _, path := range files {
		jobs, err := parquet.ReadFile[Job](path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewWriter(out, parquet.SchemaOf(reflect.New(legacy).Interface()))
		for _, j := range jobs {
			row := reflect.New(legacy).Elem()
			for _, f := range fields {
				row.FieldByName(f.Name).Set(reflect.ValueOf(j).FieldByName(f.Name))
			}
			if err := w.Write(row.Addr().Interface()); err != nil {
				t.Fatal(err)
			}
		}
		if err := errors.Join(w.Close(), out.Close()); err != nil {
			t.Fatal(err)
		}
		if ok, err := hasColumn(path, summaryColumn); ok || err != nil {
			t.Fatalf("%s: column %s still there (%v)", path, summaryColumn, err)
		}
	}

	cs, err := Compact(dir, CompactOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Partitions == 0 {
		t.Fatalf("compaction %+v: nothing merged", cs)
	}
	jobs := readTable[Job](t, dir, TableJobs)
	if len(jobs) != len(want) {
		t.Fatalf("%d jobs after compaction, want %d", len(jobs), len(want))
	}
	summarised := 0
	for _, j := range jobs {
		if got := fmt.Sprint(j.InsightCodes, j.InsightLevels); got != want[j.ID] {
			t.Errorf("job %s (%s): insight summary %s, want %s", j.ID, j.Log, got, want[j.ID])
		}
		if len(j.InsightCodes) > 0 {
			summarised++
		}
	}
	if summarised < len(jobs)/2 {
		t.Errorf("only %d of %d jobs have insights", summarised, len(jobs))
	}
	after, _ := DataFiles(dir, TableJobs)
	for _, f := range after {
		if ok, err := hasColumn(f, summaryColumn); !ok || err != nil {
			t.Errorf("%s: no column %s after compaction (%v)", f, summaryColumn, err)
		}
	}
}
