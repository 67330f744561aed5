package dataset

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	young := filepath.Join(dir, TableJobs, "date=2030-01-01")
	os.MkdirAll(young, 0o750)
	fresh := NewBatchName(fixedNow()) + ".parquet"
	if err := writeParquet(filepath.Join(young, fresh), []Job{{ID: "young"}}); err != nil {
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
			if n != 1 && !strings.Contains(p, "2030-01-01") {
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
